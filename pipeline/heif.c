/* heif.c: HEIF photos through libheif, to 8 bits (heif.h). */
#include <errno.h>
#include <unistd.h>

#include <libheif/heif.h>

#include "heif.h"
#include "heif_frames.h"

/* libheif reads the file through the photo's one descriptor, as libvips'
 * loader does: only the boxes and the coded image, never the whole file
 * at once. */
typedef struct {
    int fd;
    gint64 position;
    gint64 size;
} heif_file;

static int64_t
file_position(void *userdata)
{
    return ((heif_file *) userdata)->position;
}

static int
file_read(void *data, size_t size, void *userdata)
{
    heif_file *file = userdata;
    size_t done = 0;

    while (done < size) {
        ssize_t n = pread(file->fd, (char *) data + done, size - done, file->position);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t) n;
        file->position += n;
    }
    return 0;
}

static int
file_seek(int64_t position, void *userdata)
{
    heif_file *file = userdata;

    if (position < 0 || position > file->size)
        return -1;
    file->position = position;
    return 0;
}

static enum heif_reader_grow_status
file_wait(int64_t target_size, void *userdata)
{
    return target_size <= ((heif_file *) userdata)->size
        ? heif_reader_grow_status_size_reached
        : heif_reader_grow_status_size_beyond_eof;
}

static const struct heif_reader file_reader = {
    .reader_api_version = 1,
    .get_position = file_position,
    .read = file_read,
    .seek = file_seek,
    .wait_for_file_size = file_wait,
};

static int
heif_failed(struct heif_error error)
{
    vips_error("heif", "%s (%d.%d)", error.message, error.code, error.subcode);
    return -1;
}

/* The header's metadata onto `image`: the fields it lacks (a new image
 * has every built-in field already), and none that the header lacks.
 * Setting the EXIF block makes libvips parse it again, which brought back
 * the orientation its HEIF loader had taken away (libheif applies the
 * file's own turn, irot and imir; an EXIF Orientation left in the block
 * is not applied again): a phone's portrait came out turned twice. */
static void
copy_metadata(VipsImage *header, VipsImage *image)
{
    g_auto(GStrv) names = vips_image_get_fields(header);
    g_auto(GStrv) made = NULL;

    for (int i = 0; names[i]; i++) {
        GValue value = G_VALUE_INIT;

        if (vips_image_get_typeof(image, names[i]) ||
            vips_image_get(header, names[i], &value))
            continue;
        vips_image_set(image, names[i], &value);
        g_value_unset(&value);
    }
    made = vips_image_get_fields(image);
    for (int i = 0; made[i]; i++)
        if (!vips_image_get_typeof(header, made[i]))
            vips_image_remove(image, made[i]);
}

/* The planes of `decoded` (R, G, B and alpha when `bands` is 4, each of
 * up to 16 bits, stored in 8 or 16) interleaved at 8 bits, rounded to
 * the nearest level, into a new buffer of width x height x bands bytes;
 * NULL when it cannot be had. */
static guint8 *
interleave(const struct heif_image *decoded, int width, int height, int bands)
{
    static const enum heif_channel channels[] = { heif_channel_R, heif_channel_G,
        heif_channel_B, heif_channel_Alpha };
    guint8 *pixels = g_try_malloc((size_t) width * height * bands);

    for (int b = 0; pixels && b < bands; b++) {
        int stride, bits = heif_image_get_bits_per_pixel_range(decoded, channels[b]);
        int storage = heif_image_get_bits_per_pixel(decoded, channels[b]);
        const guint8 *plane = heif_image_get_plane_readonly(decoded, channels[b], &stride);
        guint32 top = (1u << CLAMP(bits, 1, 16)) - 1;

        if (!plane || bits < 1 || bits > storage || (storage != 8 && storage != 16) ||
            heif_image_get_width(decoded, channels[b]) != width ||
            heif_image_get_height(decoded, channels[b]) != height) {
            g_clear_pointer(&pixels, g_free);
            break;
        }
        for (int y = 0; y < height; y++) {
            const guint8 *row8 = plane + (size_t) stride * y;
            const guint16 *row16 = (const guint16 *) row8;
            guint8 *out = pixels + (size_t) width * bands * y + b;

            for (int x = 0; x < width; x++, out += bands) {
                guint32 value = MIN(storage == 8 ? row8[x] : row16[x], top);

                *out = bits == 8 ? (guint8) value : (guint8) ((value * 255u + top / 2) / top);
            }
        }
    }
    return pixels;
}

int
gal__heif_load(const gal_photo_file *file, VipsImage *header, gboolean strict,
    VipsImage **out)
{
    heif_file reader = { file->fd, 0, file->st.st_size };
    struct heif_context *context = NULL;
    struct heif_image_handle *handle = NULL;
    struct heif_decoding_options *options = NULL;
    struct heif_image *decoded = NULL;
    struct heif_error error;
    int bands = 3, width = 0, height = 0;
    guint8 *pixels = NULL;

    *out = NULL;
    /* As for every load (decode.c): no frame larger than declared reaches
     * libde265, even from a file changed since its header was read. */
    if (gal__heif_frames_check(file->fd, file->st.st_size))
        return -1;
    if (!(context = heif_context_alloc())) {
        vips_error("heif", "out of memory");
        return -1;
    }
    /* A grid of tiles (as phones write them) is decoded a tile per thread:
     * as many as there are cores, no more. Each costs a decoder's memory,
     * and libheif's default of 8 would only add that on a small machine. */
    heif_context_set_max_decoding_threads(context, MIN(8, MAX(1, g_get_num_processors())));
    error = heif_context_read_from_reader(context, &file_reader, &reader, NULL);
    if (!error.code)
        error = heif_context_get_primary_image_handle(context, &handle);
    if (!error.code) {
        bands = heif_image_handle_has_alpha_channel(handle) ? 4 : 3;
        options = heif_decoding_options_alloc();
        options->strict_decoding = strict;
        /* Planar RGB: libheif's interleaved RGB of a 12 MP 10-bit frame
         * (even with its convert_hdr_to_8bit) peaked at 153 MiB, planar at
         * 118 (8 bits: 101 and 66), as it converts in fewer steps. */
        error = heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_444,
            options);
        heif_decoding_options_free(options);
    }
    /* The message is the context's: said before the context goes. */
    if (error.code)
        heif_failed(error);
    if (handle)
        heif_image_handle_release(handle);
    heif_context_free(context);
    if (error.code)
        return -1;
    width = heif_image_get_width(decoded, heif_channel_R);
    height = heif_image_get_height(decoded, heif_channel_R);
    if (width != header->Xsize || height != header->Ysize) {
        heif_image_release(decoded);
        vips_error("heif", "libheif decoded %dx%d of a photo of %dx%d", width, height,
            header->Xsize, header->Ysize);
        return -1;
    }
    pixels = interleave(decoded, width, height, bands);
    heif_image_release(decoded);
    if (!pixels) {
        vips_error("heif", "libheif gave no %d-band image of %dx%d", bands, width, height);
        return -1;
    }
    if (!(*out = vips_image_new_from_memory(pixels, (size_t) width * height * bands, width,
              height, bands, VIPS_FORMAT_UCHAR))) {
        g_free(pixels);
        return -1;
    }
    g_signal_connect_swapped(*out, "postclose", G_CALLBACK(g_free), pixels);
    (*out)->Type = VIPS_INTERPRETATION_sRGB;
    copy_metadata(header, *out);
    return 0;
}
