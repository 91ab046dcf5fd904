/* glance.c: a photo's placeholder and dominant colour for pages that load
 * it lazily (the run report, the gallery). Both come from the photo as
 * its stages left it, already small and in memory, so they cost neither a
 * second decode nor a second pass through the stages. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "glance.h"

int
gal__glance_thumb(VipsImage *in, VipsImage **out)
{
    double scale;
    int width, height, bands = in->Bands;
    gboolean alpha = bands == 2 || bands == 4;
    int step_x, step_y;
    g_autofree guint64 *sum = NULL;
    g_autofree guint32 *count = NULL;
    g_autofree VipsPel *pixels = NULL;
    g_autofree int *column_of = NULL;

    /* The pixels addressed as they are: `in` is already in memory (the
     * engine's copy), so this reads it and runs no graph. */
    if (in->BandFmt != VIPS_FORMAT_UCHAR) {
        vips_error("glance", "%s", "not an 8-bit image");
        return -1;
    }
    if (vips_image_wio_input(in))
        return -1;
    scale = MIN((double) GAL_GLANCE_WIDTH / in->Xsize, (double) GAL_GLANCE_MAX_HEIGHT / in->Ysize);
    width = MAX(1, (int) lround(in->Xsize * scale));
    height = MAX(1, (int) lround(in->Ysize * scale));
    /* Each tiny pixel is the average of its box of the photo, sampled on
     * a grid of about 16 x 16 points: a placeholder is blurred when shown,
     * and a fixed number of samples keeps its cost the same for any size
     * (a vips_resize pipeline cost about 3 ms a photo, mostly starting
     * its threads). */
    step_x = MAX(1, in->Xsize / width / 16);
    step_y = MAX(1, in->Ysize / height / 16);
    sum = g_new0(guint64, (gsize) width * height * 3);
    count = g_new0(guint32, (gsize) width * height);
    /* Each sampled column's tiny column, worked out once, not per row. */
    column_of = g_new(int, in->Xsize / step_x + 1);
    for (int x = 0, i = 0; x < in->Xsize; x += step_x, i++)
        column_of[i] = MIN(width - 1, (int) ((gint64) x * width / in->Xsize));
    for (int y = 0; y < in->Ysize; y += step_y) {
        const VipsPel *row = VIPS_IMAGE_ADDR(in, 0, y);
        int ty = MIN(height - 1, (int) ((gint64) y * height / in->Ysize));

        for (int x = 0, i = 0; x < in->Xsize; x += step_x, i++) {
            const VipsPel *p = row + (gsize) x * bands;
            int tx = column_of[i];
            guint64 *s = &sum[((gsize) ty * width + tx) * 3];
            int a = alpha ? p[bands - 1] : 255;

            for (int b = 0; b < 3; b++) {
                int v = bands < 3 ? p[0] : p[b];

                /* Flattened on white, as a page behind it would be (an
                 * opaque pixel stays as it is). */
                s[b] += (guint64) (a == 255 ? v : (v * a + 255 * (255 - a) + 127) / 255);
            }
            count[ty * width + tx]++;
        }
    }
    pixels = g_new(VipsPel, (gsize) width * height * 3);
    for (int i = 0; i < width * height; i++)
        for (int b = 0; b < 3; b++)
            pixels[i * 3 + b] = (VipsPel) (count[i] ? (sum[i * 3 + b] + count[i] / 2) / count[i]
                                                    : 255);
    /* A new image of the pixels alone: the photo's metadata (EXIF, XMP, a
     * profile) would otherwise ride along into the placeholder. */
    if (!(*out = vips_image_new_from_memory_copy(pixels, (size_t) width * height * 3, width,
              height, 3, VIPS_FORMAT_UCHAR)))
        return -1;
    (*out)->Type = VIPS_INTERPRETATION_sRGB;
    return 0;
}

static guint32
le32(const unsigned char *p)
{
    return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

/* The bitstream chunk of a WebP file (VP8 or VP8L) as a simple-format file
 * of its own, in place; its new length, or 0 when there is none. libvips
 * 8.14 writes an EXIF chunk (resolution, orientation) even with strip,
 * which would be most of a placeholder's bytes. */
static size_t
webp_bitstream_only(unsigned char *webp, size_t len)
{
    size_t at = 12;

    if (len < 12 || memcmp(webp, "RIFF", 4) != 0 || memcmp(webp + 8, "WEBP", 4) != 0)
        return 0;
    while (at + 8 <= len) {
        size_t size = le32(webp + at + 4);
        size_t padded = size + (size & 1);

        if (padded > len - at - 8)
            return 0;
        if (memcmp(webp + at, "VP8 ", 4) == 0 || memcmp(webp + at, "VP8L", 4) == 0) {
            guint32 riff = (guint32) (4 + 8 + padded);

            memmove(webp + 12, webp + at, 8 + padded);
            for (int i = 0; i < 4; i++)
                webp[4 + i] = (unsigned char) (riff >> (8 * i));
            return 12 + 8 + padded;
        }
        at += 8 + padded;
    }
    return 0;
}

char *
gal__glance_placeholder(VipsImage *thumb)
{
    void *webp = NULL;
    size_t len = 0;
    g_autofree char *base64 = NULL;

    /* Blurred by the browser when shown large, so a low quality suffices. */
    if (vips_webpsave_buffer(thumb, &webp, &len, "Q", 60, "strip", TRUE, "effort", 4, NULL))
        return NULL;
    if (!(len = webp_bitstream_only(webp, len))) {
        g_free(webp);
        vips_error("glance", "%s", "the WebP encoder gave no bitstream");
        return NULL;
    }
    base64 = g_base64_encode(webp, len);
    g_free(webp);
    return g_strconcat("data:image/webp;base64,", base64, NULL);
}

void
gal__glance_color(VipsImage *thumb, char hex[8])
{
    guint count[512] = { 0 };
    guint64 sum[512][3] = { { 0 } };
    int best = 0;

    for (int y = 0; y < thumb->Ysize; y++) {
        const VipsPel *p = VIPS_IMAGE_ADDR(thumb, 0, y);

        for (int x = 0; x < thumb->Xsize; x++, p += thumb->Bands) {
            int bin = (p[0] >> 5) << 6 | (p[1] >> 5) << 3 | p[2] >> 5;

            count[bin]++;
            for (int b = 0; b < 3; b++)
                sum[bin][b] += p[b];
        }
    }
    for (int bin = 1; bin < 512; bin++)
        if (count[bin] > count[best])
            best = bin;
    if (!count[best]) {
        g_strlcpy(hex, "#808080", 8);
        return;
    }
    g_snprintf(hex, 8, "#%02x%02x%02x", (unsigned) (sum[best][0] / count[best]),
        (unsigned) (sum[best][1] / count[best]), (unsigned) (sum[best][2] / count[best]));
}
