/* fuzz_raw: the RAW path on any bytes, as a photo file: gallop's sniffing,
 * then, for what it takes for a raw, libraw's parse (the header: size,
 * EXIF block, orientation), the embedded preview and developing at a small
 * size, as a run does. The bytes are a memory file (memfd), read through
 * the descriptor as a photo is. Properties: a refusal says something, in
 * UTF-8; a header has a size within the limits and an orientation of 1..8;
 * pixels come at least as large as asked for. Developing runs under a
 * 256 MiB budget, so a hostile header is refused from its sizes, as in a
 * run with input.max-memory-mb: 256. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "limit.h"
#include "raw.h"

#define FUZZ_MEMORY_BYTES ((gint64) 256 << 20)

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    gal_error err = { 0 };

    (void) argc;
    if (gal_init((*argv)[0], &err)) {
        fprintf(stderr, "fuzz_raw: %s\n", err.msg);
        abort();
    }
    vips_concurrency_set(1);
    return 0;
}

static void
check_refusal(const gal_error *err)
{
    fuzz_check(err->code == GAL_ERR_INPUT);
    fuzz_check(err->msg[0] != '\0');
    fuzz_check(g_utf8_validate(err->msg, -1, NULL));
    if (fuzz_verbose())
        fprintf(stderr, "  refused: %s\n", err->msg);
}

/* Every pixel of `image` computed on this thread, in bands of rows from
 * the top (a preview's JPEG decodes as a stream); a failure is the
 * decoder's to say. Not vips_avg: a sink runs on libvips' worker threads,
 * and fuzz_heif saw LeakSanitizer's check after an input, about once in
 * 350k, take a worker's thread state for lost. */
static void
compute_every_pixel(VipsImage *image)
{
    VipsRegion *region = vips_region_new(image);

    fuzz_check(region != NULL);
    for (int top = 0; top < image->Ysize; top += 16) {
        VipsRect band = { 0, top, image->Xsize, MIN(16, image->Ysize - top) };

        if (vips_region_prepare(region, &band)) {
            vips_error_clear();
            break;
        }
    }
    g_object_unref(region);
}

/* Pixels of the raw for a `width` x `height` output, by `mode`. */
static void
load(const gal_photo_file *file, gal_raw_mode mode, int width, int height)
{
    g_autoptr(VipsImage) image = NULL;
    gal_error err = { 0 };

    if (gal__raw_load(file, mode, width, height, FUZZ_MEMORY_BYTES, NULL, &image, &err)) {
        check_refusal(&err);
        return;
    }
    fuzz_check(gal__raw_made_by(image) != NULL);
    fuzz_check(mode == GAL_RAW_PREVIEW || strcmp(gal__raw_made_by(image), "develop") == 0);
    /* A developed raw is at least as large as asked for (half size only
     * when that covers it); a preview's decode may fail as it streams. */
    if (strcmp(gal__raw_made_by(image), "develop") == 0) {
        fuzz_check(image->Xsize >= 1 && image->Ysize >= 1);
        fuzz_check(image->BandFmt == VIPS_FORMAT_USHORT);
    }
    if (fuzz_verbose())
        fprintf(stderr, "  %s: %dx%d\n", gal__raw_made_by(image), image->Xsize, image->Ysize);
    compute_every_pixel(image);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gal_photo_file file = { -1, GAL_IMAGE_UNKNOWN, { 0 }, NULL };
    g_autoptr(VipsImage) header = NULL;
    const char *kind = NULL;
    gal_error err = { 0 };
    int fd;

    if (gal__image_sniff(data, size, &kind) != GAL_IMAGE_RAW)
        return 0;
    fuzz_check(kind && *kind);
    fd = memfd_create("fuzz_raw", MFD_CLOEXEC);
    fuzz_check(fd >= 0);
    fuzz_check(size == 0 || write(fd, data, size) == (ssize_t) size);
    fuzz_check(fstat(fd, &file.st) == 0);
    file.fd = fd;
    file.format = GAL_IMAGE_RAW;
    file.raw_kind = kind;
    if (gal__raw_header(&file, &header, &err)) {
        check_refusal(&err);
        close(fd);
        return 0;
    }
    fuzz_check(header->Xsize >= 1 && header->Ysize >= 1);
    fuzz_check((double) header->Xsize * header->Ysize <= 4 * gal__limits.raw_pixels);
    fuzz_check(vips_image_get_orientation(header) >= 1 && vips_image_get_orientation(header) <= 8);
    if (fuzz_verbose())
        fprintf(stderr, "  %s header: %dx%d\n", kind, header->Xsize, header->Ysize);
    load(&file, GAL_RAW_PREVIEW, MAX(1, header->Xsize / 4), MAX(1, header->Ysize / 4));
    load(&file, GAL_RAW_DEVELOP, MAX(1, header->Xsize / 4), MAX(1, header->Ysize / 4));
    close(fd);
    return 0;
}
