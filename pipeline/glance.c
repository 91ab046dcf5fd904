/* glance.c: a photo's placeholder and dominant colour for pages that load
 * it lazily (the run report, the gallery). Both come from the photo as
 * its stages left it, already small and in memory, so they cost neither a
 * second decode nor a second pass through the stages. */
#include <string.h>

#include "internal.h"
#include "glance.h"

int
gal__glance_thumb(VipsImage *in, VipsImage **out)
{
    g_autoptr(VipsImage) small = NULL;
    g_autoptr(VipsImage) flat = NULL;
    g_autoptr(VipsImage) rgb = NULL;
    VipsImage *current;

    if (vips_thumbnail_image(in, &small, GAL_GLANCE_WIDTH, "height", GAL_GLANCE_MAX_HEIGHT,
            NULL))
        return -1;
    current = small;
    if (vips_image_hasalpha(current)) {
        double white[3] = { 255, 255, 255 };
        g_autoptr(VipsArrayDouble) background = vips_array_double_new(white, 3);

        if (vips_flatten(current, &flat, "background", background, NULL))
            return -1;
        current = flat;
    }
    if (current->Bands < 3) {
        if (vips_colourspace(current, &rgb, VIPS_INTERPRETATION_sRGB, NULL))
            return -1;
        current = rgb;
    }
    {
        g_autoptr(VipsImage) bands = NULL;
        g_autoptr(VipsImage) bytes = NULL;

        g_autoptr(VipsImage) memory = NULL;

        if (vips_extract_band(current, &bands, 0, "n", 3, NULL) ||
            vips_cast_uchar(bands, &bytes, NULL) || !(memory = vips_image_copy_memory(bytes)))
            return -1;
        /* A new image of the pixels alone: the photo's metadata (EXIF,
         * XMP, a profile) would otherwise ride along into the placeholder,
         * ten times its size. */
        if (!(*out = vips_image_new_from_memory_copy(VIPS_IMAGE_ADDR(memory, 0, 0),
                  VIPS_IMAGE_SIZEOF_IMAGE(memory), memory->Xsize, memory->Ysize, 3,
                  VIPS_FORMAT_UCHAR)))
            return -1;
        (*out)->Type = VIPS_INTERPRETATION_sRGB;
    }
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
