/* fuzz_heif: the HEIF path on any bytes, as a photo file: gallop's
 * sniffing, then, for what it takes for a HEIF, the check of its coded
 * frames against its declared sizes (heif_frames.c: its boxes, HEVC SPSs
 * and AV1 sequence headers), libvips' header and gallop's own decode
 * through libheif (heif.c), as a run does. The bytes
 * are a memory file (memfd), read through the descriptor as a photo is.
 * Properties: a refusal says something, in UTF-8; a decoded image is
 * 8-bit RGB or RGBA of the header's size. A header of more than 16
 * megapixels is not decoded, as a run refuses one over
 * input.max-megapixels. */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "heif.h"

#define FUZZ_MAX_PIXELS (16.0 * 1000 * 1000)

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    gal_error err = { 0 };

    (void) argc;
    if (gal_init((*argv)[0], &err)) {
        fprintf(stderr, "fuzz_heif: %s\n", err.msg);
        abort();
    }
    vips_concurrency_set(1);
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gal_photo_file file = { -1, GAL_IMAGE_UNKNOWN, { 0 }, NULL };
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) image = NULL;
    int fd;

    if (gal__image_sniff(data, size, NULL) != GAL_IMAGE_HEIF)
        return 0;
    fd = memfd_create("fuzz_heif", MFD_CLOEXEC);
    fuzz_check(fd >= 0);
    fuzz_check(size == 0 || write(fd, data, size) == (ssize_t) size);
    fuzz_check(fstat(fd, &file.st) == 0);
    file.fd = fd;
    file.format = GAL_IMAGE_HEIF;
    if (gal__photo_load(&file, VIPS_FAIL_ON_ERROR, 1, &header) ||
        (double) header->Xsize * header->Ysize > FUZZ_MAX_PIXELS) {
        vips_error_clear();
        close(fd);
        return 0;
    }
    if (gal__heif_load(&file, header, FALSE, &image)) {
        const char *message = vips_error_buffer();

        fuzz_check(message[0] != '\0');
        fuzz_check(g_utf8_validate(message, -1, NULL));
        if (fuzz_verbose())
            fprintf(stderr, "  refused: %s", message);
        vips_error_clear();
    }
    else {
        const guint8 *pixels = (const guint8 *) image->data;
        guint64 bytes = VIPS_IMAGE_SIZEOF_IMAGE(image), sum = 0;
        double mean;

        fuzz_check(image->Xsize == header->Xsize && image->Ysize == header->Ysize);
        fuzz_check(image->BandFmt == VIPS_FORMAT_UCHAR);
        fuzz_check(image->Bands == 3 || image->Bands == 4);
        fuzz_check(bytes == (guint64) image->Xsize * image->Ysize * image->Bands);
        /* Every byte read where heif.c put it (ASan sees a short buffer).
         * Not vips_avg: a libvips sink runs on its worker threads, and
         * now and then (1 in ~350k inputs) LeakSanitizer's check after
         * an input caught a worker's thread state between its threads
         * and reported it lost, where replaying the input never did. */
        fuzz_check(pixels != NULL);
        for (guint64 i = 0; i < bytes; i++)
            sum += pixels[i];
        mean = (double) sum / (double) bytes;
        if (fuzz_verbose())
            fprintf(stderr, "  decoded: %dx%dx%d, mean %.1f\n", image->Xsize, image->Ysize,
                image->Bands, mean);
    }
    close(fd);
    return 0;
}
