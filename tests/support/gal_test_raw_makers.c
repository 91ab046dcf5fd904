/* gal_test_raw_makers.c: the makers' raw formats forged byte by byte (see
 * gal_test_raw.h), each laid out as its cameras write it, as far as
 * libraw 0.20 needs to read it: the camera by make and model (libraw's
 * tables give the levels and colour matrix), the photosites, the EXIF
 * facts. Maker notes are not forged, so libraw balances for daylight. */
#include <stdlib.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_raw.h"
#include "gal_test_raw_tiff.h"

/* ---- lossless JPEG (ITU T.81's process 14: SOF3, Huffman-coded) ---- */

typedef struct {
    GByteArray *out;
    guint32 bits;
    int n_bits;
} bit_writer;

/* MSB first; a 0xff byte of entropy-coded data is followed by a 0x00, so
 * that it is not taken for a marker. */
static void
put_bits(bit_writer *w, guint32 value, int count)
{
    for (int i = count - 1; i >= 0; i--) {
        w->bits = w->bits << 1 | ((value >> i) & 1);
        if (++w->n_bits == 8) {
            guint8 byte = (guint8) w->bits;

            g_byte_array_append(w->out, &byte, 1);
            if (byte == 0xff)
                g_byte_array_append(w->out, (const guint8 *) "", 1);
            w->bits = 0;
            w->n_bits = 0;
        }
    }
}

static void
put_marker(GByteArray *out, guint8 marker, const guint8 *body, gsize len)
{
    guint8 head[4] = { 0xff, marker, (guint8) ((len + 2) >> 8), (guint8) (len + 2) };

    g_byte_array_append(out, head, body ? 4 : 2);
    if (body)
        g_byte_array_append(out, body, (guint) len);
}

/* A lossless JPEG of `components` interleaved components, `width` x
 * `height` samples each, of `precision` bits; predictor 1 (the sample to
 * the left; the first of a row, the one above), as Canon's cameras write.
 * One Huffman table for every component: the difference categories 0 to
 * 15, each a 5-bit code (size does not matter here, being simple does). */
static void
ljpeg_encode(GByteArray *out, const guint16 *samples, int width, int height, int components,
    int precision)
{
    guint8 dht[1 + 16 + 16] = { 0x00 }, sof[6 + 3 * 4], sos[4 + 2 * 4];
    bit_writer w = { out, 0, 0 };

    dht[1 + 4] = 16; /* sixteen codes of 5 bits */
    for (int s = 0; s < 16; s++)
        dht[17 + s] = (guint8) s;
    sof[0] = (guint8) precision;
    sof[1] = (guint8) (height >> 8);
    sof[2] = (guint8) height;
    sof[3] = (guint8) (width >> 8);
    sof[4] = (guint8) width;
    sof[5] = (guint8) components;
    sos[0] = (guint8) components;
    for (int c = 0; c < components; c++) {
        sof[6 + 3 * c] = (guint8) (c + 1);
        sof[7 + 3 * c] = 0x11; /* no subsampling */
        sof[8 + 3 * c] = 0;
        sos[1 + 2 * c] = (guint8) (c + 1);
        sos[2 + 2 * c] = 0x00; /* Huffman table 0 */
    }
    sos[1 + 2 * components] = 1; /* predictor 1 */
    sos[2 + 2 * components] = 0;
    sos[3 + 2 * components] = 0; /* no point transform */
    put_marker(out, 0xd8, NULL, 0);
    put_marker(out, 0xc4, dht, sizeof(dht));
    put_marker(out, 0xc3, sof, 6 + 3 * (gsize) components);
    put_marker(out, 0xda, sos, 4 + 2 * (gsize) components);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (int c = 0; c < components; c++) {
                gsize at = ((gsize) y * width + x) * components + c;
                int predicted = x > 0 ? samples[at - components]
                    : y > 0           ? samples[at - (gsize) width * components]
                                      : 1 << (precision - 1);
                int diff = samples[at] - predicted, category = 0;

                while ((abs(diff) >> category) != 0)
                    category++;
                put_bits(&w, (guint32) category, 5);
                /* A negative difference is sent as its ones' complement. */
                put_bits(&w, (guint32) (diff >= 0 ? diff : diff + (1 << category) - 1), category);
            }
    if (w.n_bits > 0)
        put_bits(&w, 0x7f, 8 - w.n_bits); /* padded with ones */
    put_marker(out, 0xd9, NULL, 0);
}

/* ---- Canon CR2 ---- */

/* A TIFF with "CR" 2 0 and the raw directory's offset after its header:
 *   header | IFD0 (make, model, orientation, EXIF; the preview) | EXIF IFD
 *   | raw IFD | lossless JPEG | preview JPEG.
 * IFD0 links to the raw IFD (a camera puts two smaller previews between
 * them; libraw takes the largest image of the chain as the raw). The raw IFD
 * has no size and no bit depth: libraw reads them from the JPEG, which is
 * how it knows a Canon one. Like a camera, the JPEG's two components are
 * consecutive photosites (its width half the sensor's), and it is cut in
 * vertical slices (tag 0xc640: two slices of 3/8 of the width, then the
 * rest), each sent whole, top to bottom, before the next. 14 bits. */
GBytes *
gal_test_cr2_bytes(const gal_test_dng *raw)
{
    gal_test_tiff_dir ifd0 = gal_test_tiff_new(FALSE), exif = gal_test_tiff_new(FALSE),
        raw_ifd = gal_test_tiff_new(FALSE);
    int slice = raw->width * 3 / 8 & ~1, last = raw->width - 2 * slice;
    guint8 slices[6], bps3[6];
    gboolean has_preview = raw->preview_jpeg != NULL;
    g_autofree guint16 *samples = g_new(guint16, (gsize) raw->width * raw->height);
    GByteArray *out = g_byte_array_new(), *jpeg = g_byte_array_new();
    gsize n = 0;

    g_assert(raw->width % 2 == 0 && last > 0);
    for (int s = 0; s < 3; s++)
        for (int y = 0; y < raw->height; y++)
            for (int x = s * slice; x < (s < 2 ? (s + 1) * slice : raw->width); x++)
                samples[n++] = gal_test_raw_photosite(raw, x, y);
    g_assert(n == (gsize) raw->width * raw->height);
    ljpeg_encode(jpeg, samples, raw->width / 2, raw->height, 2, 14);
    for (int i = 0; i < 3; i++)
        gal_test_put16(bps3 + 2 * i, 8, FALSE);

    if (has_preview) {
        gal_test_tiff_long(&ifd0, 256, (guint32) raw->preview_width);
        gal_test_tiff_long(&ifd0, 257, (guint32) raw->preview_height);
        gal_test_tiff_add(&ifd0, 258, GAL_TIFF_SHORT, 3, bps3, 6);
        gal_test_tiff_short(&ifd0, 259, 6);
    }
    gal_test_tiff_ascii(&ifd0, 271, raw->make);
    gal_test_tiff_ascii(&ifd0, 272, raw->model);
    if (has_preview)
        gal_test_tiff_long(&ifd0, 273, 0); /* the preview, after the raw */
    if (raw->orientation)
        gal_test_tiff_short(&ifd0, 274, (guint32) raw->orientation);
    if (has_preview)
        gal_test_tiff_long(&ifd0, 279, (guint32) raw->preview_len);
    gal_test_tiff_long(&ifd0, 34665, 0); /* the EXIF IFD, below */
    gal_test_tiff_exif_facts(&exif, raw->exposure_seconds, raw->f_number, raw->iso, raw->taken,
        raw->focal_mm, raw->lens);
    gal_test_tiff_short(&raw_ifd, 259, 6); /* old-style JPEG, as Canon says */
    gal_test_tiff_long(&raw_ifd, 273, 0);  /* the JPEG, below */
    gal_test_tiff_long(&raw_ifd, 279, jpeg->len);
    gal_test_put16(slices, 2, FALSE);
    gal_test_put16(slices + 2, (guint32) slice, FALSE);
    gal_test_put16(slices + 4, (guint32) last, FALSE);
    gal_test_tiff_add(&raw_ifd, 0xc640, GAL_TIFF_SHORT, 3, slices, 6);

    ifd0.at = 16;
    exif.at = ifd0.at + gal_test_tiff_size(&ifd0);
    raw_ifd.at = exif.at + gal_test_tiff_size(&exif);
    gal_test_tiff_patch(&ifd0, 34665, exif.at);
    gal_test_tiff_patch(&raw_ifd, 273, raw_ifd.at + gal_test_tiff_size(&raw_ifd));
    gal_test_tiff_patch(&ifd0, 273, raw_ifd.at + gal_test_tiff_size(&raw_ifd) + jpeg->len);

    g_byte_array_append(out, (const guint8 *) "II*\0\0\0\0\0CR\2\0\0\0\0\0", 16);
    gal_test_put32(out->data + 4, ifd0.at, FALSE);
    gal_test_put32(out->data + 12, raw_ifd.at, FALSE);
    gal_test_tiff_put(&ifd0, raw_ifd.at, out);
    gal_test_tiff_put(&exif, 0, out);
    gal_test_tiff_put(&raw_ifd, 0, out);
    g_byte_array_append(out, jpeg->data, jpeg->len);
    if (has_preview)
        g_byte_array_append(out, raw->preview_jpeg, (guint) raw->preview_len);
    g_byte_array_unref(jpeg);
    gal_test_tiff_clear(&ifd0);
    gal_test_tiff_clear(&exif);
    gal_test_tiff_clear(&raw_ifd);
    return g_byte_array_free_to_bytes(out);
}

/* ---- Panasonic RW2 ---- */

/* A TIFF with "IIU" for its magic, one directory of Panasonic's own tags
 * (below 0x100: version, sensor size, colour filter pattern, ISO, black
 * levels) and the usual ones (make, model, orientation, strips, EXIF):
 *   header | IFD0 | EXIF IFD | photosites.
 * The photosites are uncompressed, 16 bits each with the 12-bit value in
 * the top bits (libraw shifts them down by 4): libraw 0.20 reads that
 * when the raw's offset is given as StripOffsets; Panasonic's
 * RawDataOffset (0x118) would mean the cameras' packed format, whose
 * writer is not worth its code here. */
GBytes *
gal_test_rw2_bytes(const gal_test_dng *raw)
{
    gal_test_tiff_dir ifd0 = gal_test_tiff_new(FALSE), exif = gal_test_tiff_new(FALSE);
    guint32 pixels_len = (guint32) raw->width * raw->height * 2, pixels_at;
    GByteArray *out = g_byte_array_new();

    gal_test_tiff_add(&ifd0, 0x01, GAL_TIFF_UNDEFINED, 4, "0310", 4); /* PanasonicRawVersion */
    gal_test_tiff_short(&ifd0, 0x02, (guint32) raw->width);             /* SensorWidth */
    gal_test_tiff_short(&ifd0, 0x03, (guint32) raw->height);            /* SensorHeight */
    gal_test_tiff_short(&ifd0, 0x09, 1);                                /* CFAPattern: RGGB */
    if (raw->iso > 0)
        gal_test_tiff_short(&ifd0, 0x17, (guint32) raw->iso);
    for (guint16 tag = 0x1c; tag <= 0x1e; tag++)                       /* BlackLevel R, G, B */
        gal_test_tiff_short(&ifd0, tag, raw->black);
    gal_test_tiff_ascii(&ifd0, 271, raw->make);
    gal_test_tiff_ascii(&ifd0, 272, raw->model);
    gal_test_tiff_long(&ifd0, 273, 0); /* the photosites, below */
    if (raw->orientation)
        gal_test_tiff_short(&ifd0, 274, (guint32) raw->orientation);
    gal_test_tiff_long(&ifd0, 279, pixels_len);
    gal_test_tiff_long(&ifd0, 34665, 0); /* the EXIF IFD, below */
    gal_test_tiff_exif_facts(&exif, raw->exposure_seconds, raw->f_number, raw->iso, raw->taken,
        raw->focal_mm, raw->lens);

    ifd0.at = 8;
    exif.at = ifd0.at + gal_test_tiff_size(&ifd0);
    pixels_at = exif.at + gal_test_tiff_size(&exif);
    gal_test_tiff_patch(&ifd0, 273, pixels_at);
    gal_test_tiff_patch(&ifd0, 34665, exif.at);

    g_byte_array_append(out, (const guint8 *) "IIU\0\0\0\0\0", 8);
    gal_test_put32(out->data + 4, ifd0.at, FALSE);
    gal_test_tiff_put(&ifd0, 0, out);
    gal_test_tiff_put(&exif, 0, out);
    g_byte_array_set_size(out, pixels_at + pixels_len);
    for (int y = 0; y < raw->height; y++)
        for (int x = 0; x < raw->width; x++)
            gal_test_put16(out->data + pixels_at + 2 * ((gsize) y * raw->width + x),
                (guint32) gal_test_raw_photosite(raw, x, y) << 4, FALSE);
    gal_test_tiff_clear(&ifd0);
    gal_test_tiff_clear(&exif);
    return g_byte_array_free_to_bytes(out);
}

/* ---- Olympus ORF ---- */

/* A TIFF with "RO" for its magic and one directory, the raw's:
 *   header | IFD0 | EXIF IFD | photosites.
 * The photosites are uncompressed, 12 bits packed: libraw tells this
 * variant by its size (StripByteCounts of 1.5 bytes a photosite) and
 * reads the bits most significant first from 32-bit little-endian
 * words. */
GBytes *
gal_test_orf_bytes(const gal_test_dng *raw)
{
    gal_test_tiff_dir ifd0 = gal_test_tiff_new(FALSE), exif = gal_test_tiff_new(FALSE);
    guint32 pixels_len = (guint32) raw->width * raw->height * 3 / 2, pixels_at, word = 0;
    int n_bits = 0;
    GByteArray *out = g_byte_array_new();
    guint8 *at;

    g_assert(raw->width * 12 % 32 == 0);
    gal_test_tiff_long(&ifd0, 254, 0); /* the main image */
    gal_test_tiff_long(&ifd0, 256, (guint32) raw->width);
    gal_test_tiff_long(&ifd0, 257, (guint32) raw->height);
    gal_test_tiff_short(&ifd0, 258, 12);
    gal_test_tiff_short(&ifd0, 259, 1);
    gal_test_tiff_short(&ifd0, 262, 1);
    gal_test_tiff_ascii(&ifd0, 271, raw->make);
    gal_test_tiff_ascii(&ifd0, 272, raw->model);
    gal_test_tiff_long(&ifd0, 273, 0); /* the photosites, below */
    if (raw->orientation)
        gal_test_tiff_short(&ifd0, 274, (guint32) raw->orientation);
    gal_test_tiff_short(&ifd0, 277, 1);
    gal_test_tiff_long(&ifd0, 278, (guint32) raw->height);
    gal_test_tiff_long(&ifd0, 279, pixels_len);
    gal_test_tiff_long(&ifd0, 34665, 0); /* the EXIF IFD, below */
    gal_test_tiff_exif_facts(&exif, raw->exposure_seconds, raw->f_number, raw->iso, raw->taken,
        raw->focal_mm, raw->lens);

    ifd0.at = 8;
    exif.at = ifd0.at + gal_test_tiff_size(&ifd0);
    pixels_at = exif.at + gal_test_tiff_size(&exif);
    gal_test_tiff_patch(&ifd0, 273, pixels_at);
    gal_test_tiff_patch(&ifd0, 34665, exif.at);

    g_byte_array_append(out, (const guint8 *) "IIRO\0\0\0\0", 8);
    gal_test_put32(out->data + 4, ifd0.at, FALSE);
    gal_test_tiff_put(&ifd0, 0, out);
    gal_test_tiff_put(&exif, 0, out);
    g_byte_array_set_size(out, pixels_at + pixels_len);
    at = out->data + pixels_at;
    for (int y = 0; y < raw->height; y++)
        for (int x = 0; x < raw->width; x++) {
            guint32 site = MIN(gal_test_raw_photosite(raw, x, y), 0xfff);

            /* 12 bits into the word from its top; a full word is written. */
            for (int b = 11; b >= 0; b--) {
                word = word << 1 | ((site >> b) & 1);
                if (++n_bits == 32) {
                    gal_test_put32(at, word, FALSE);
                    at += 4;
                    word = 0;
                    n_bits = 0;
                }
            }
        }
    gal_test_tiff_clear(&ifd0);
    gal_test_tiff_clear(&exif);
    return g_byte_array_free_to_bytes(out);
}

/* ---- Fujifilm RAF ---- */

/* The JPEG a RAF embeds: `raw`'s preview, else one of half its size in
 * one colour (magenta: were it shown for the developed photo, no patch
 * would match), with an APP1 EXIF of the camera's facts right after its
 * SOI, where libraw looks for them (12 bytes in). Big-endian, as the rest
 * of the file. */
static GByteArray *
raf_jpeg(const gal_test_dng *raw)
{
    gal_test_tiff_dir ifd0 = gal_test_tiff_new(TRUE), exif = gal_test_tiff_new(TRUE);
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) magenta = NULL;
    void *made = NULL;
    const guint8 *plain = raw->preview_jpeg;
    size_t plain_len = raw->preview_len;
    GByteArray *tiff = g_byte_array_new(), *jpeg = g_byte_array_new();
    guint8 app1[10] = { 0xff, 0xd8, 0xff, 0xe1, 0, 0, 'E', 'x', 'i', 'f' };

    if (!plain) {
        if (vips_black(&black, raw->width / 2, raw->height / 2, "bands", 3, NULL) ||
            vips_linear(black, &magenta, (double[]) { 1, 1, 1 }, (double[]) { 200, 30, 200 }, 3,
                "uchar", TRUE, NULL) ||
            vips_jpegsave_buffer(magenta, &made, &plain_len, "strip", TRUE, NULL))
            g_error("raf_jpeg: %s", vips_error_buffer());
        plain = made;
    }
    gal_test_tiff_ascii(&ifd0, 271, raw->make);
    gal_test_tiff_ascii(&ifd0, 272, raw->model);
    if (raw->orientation)
        gal_test_tiff_short(&ifd0, 274, (guint32) raw->orientation);
    gal_test_tiff_long(&ifd0, 34665, 0); /* the EXIF IFD, below */
    gal_test_tiff_exif_facts(&exif, raw->exposure_seconds, raw->f_number, raw->iso, raw->taken,
        raw->focal_mm, raw->lens);
    ifd0.at = 8;
    exif.at = ifd0.at + gal_test_tiff_size(&ifd0);
    gal_test_tiff_patch(&ifd0, 34665, exif.at);
    g_byte_array_append(tiff, (const guint8 *) "MM\0*\0\0\0\0", 8);
    gal_test_put32(tiff->data + 4, ifd0.at, TRUE);
    gal_test_tiff_put(&ifd0, 0, tiff);
    gal_test_tiff_put(&exif, 0, tiff);

    gal_test_put16(app1 + 4, 2 + 6 + tiff->len, TRUE);
    g_byte_array_append(jpeg, app1, sizeof(app1));
    g_byte_array_append(jpeg, (const guint8 *) "\0\0", 2);
    g_byte_array_append(jpeg, tiff->data, tiff->len);
    /* The plain JPEG without its SOI. */
    g_byte_array_append(jpeg, plain + 2, (guint) plain_len - 2);
    g_free(made);
    g_byte_array_unref(tiff);
    gal_test_tiff_clear(&ifd0);
    gal_test_tiff_clear(&exif);
    return jpeg;
}

/* Fujifilm's own container, big-endian:
 *   header (160 bytes) | JPEG (with the EXIF) | CFA header | photosites.
 * The header: "FUJIFILMCCD-RAW ", a format version and camera ID, the
 * model (32 bytes at 0x1c), then at 84 the JPEG's offset and length, at
 * 92 the CFA header's and at 100 the photosites'. The CFA header is a
 * count and tagged records: 0x100 the sensor's height and width, 0x121
 * the image's (the same: no margins). libraw takes the make and the EXIF
 * from the JPEG, and the photosites uncompressed, 16 bits each, in the
 * byte order it read last: that EXIF's. (Later cameras put a TIFF-like
 * table at the photosites' offset, and compress; neither is forged.) */
GBytes *
gal_test_raf_bytes(const gal_test_dng *raw)
{
    GByteArray *jpeg = raf_jpeg(raw), *out = g_byte_array_new();
    guint32 jpeg_at = 160, cfa_header_at = jpeg_at + jpeg->len, pixels_at = cfa_header_at + 20;
    guint32 pixels_len = (guint32) raw->width * raw->height * 2;
    guint8 *p;

    g_byte_array_set_size(out, pixels_at + pixels_len);
    p = out->data;
    memset(p, 0, pixels_at);
    memcpy(p, "FUJIFILMCCD-RAW 0201FF129502", 28);
    if (raw->model)
        memcpy(p + 0x1c, raw->model, MIN(strlen(raw->model), 31));
    memcpy(p + 0x3c, "0100", 4);
    gal_test_put32(p + 84, jpeg_at, TRUE);
    gal_test_put32(p + 88, jpeg->len, TRUE);
    gal_test_put32(p + 92, cfa_header_at, TRUE);
    gal_test_put32(p + 96, 20, TRUE);
    gal_test_put32(p + 100, pixels_at, TRUE);
    gal_test_put32(p + 104, pixels_len, TRUE);
    memcpy(p + jpeg_at, jpeg->data, jpeg->len);
    p += cfa_header_at;
    gal_test_put32(p, 2, TRUE); /* records */
    gal_test_put16(p + 4, 0x100, TRUE);
    gal_test_put16(p + 6, 4, TRUE);
    gal_test_put16(p + 8, (guint32) raw->height, TRUE);
    gal_test_put16(p + 10, (guint32) raw->width, TRUE);
    gal_test_put16(p + 12, 0x121, TRUE);
    gal_test_put16(p + 14, 4, TRUE);
    gal_test_put16(p + 16, (guint32) raw->height, TRUE);
    gal_test_put16(p + 18, (guint32) raw->width, TRUE);
    for (int y = 0; y < raw->height; y++)
        for (int x = 0; x < raw->width; x++)
            gal_test_put16(out->data + pixels_at + 2 * ((gsize) y * raw->width + x),
                gal_test_raw_photosite(raw, x, y), TRUE);
    g_byte_array_unref(jpeg);
    return g_byte_array_free_to_bytes(out);
}
