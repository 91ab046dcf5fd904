/* gal_test_raw.c: DNGs forged byte by byte (see gal_test_raw.h). A DNG is
 * a little-endian TIFF: a header, then directories of 12-byte entries
 * (tag, type, count, the value or where it is), here laid out as
 * header | raw directory | EXIF directory | preview directory | photosites
 * | preview JPEG. */
#include <math.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_raw.h"

enum { T_BYTE = 1, T_ASCII = 2, T_SHORT = 3, T_LONG = 4, T_RATIONAL = 5, T_SRATIONAL = 10 };

typedef struct {
    guint16 tag, type;
    guint32 count;
    GByteArray *value;
} tiff_entry;

typedef struct {
    GArray *entries; /* tiff_entry, added in ascending tag order */
    guint32 at;
} tiff_dir;

static void
le16(guint8 *p, guint32 v)
{
    p[0] = (guint8) v;
    p[1] = (guint8) (v >> 8);
}

static void
le32(guint8 *p, guint32 v)
{
    le16(p, v & 0xffff);
    le16(p + 2, v >> 16);
}

static void
dir_add(tiff_dir *dir, guint16 tag, guint16 type, guint32 count, const void *bytes, gsize len)
{
    tiff_entry e = { tag, type, count, g_byte_array_new() };

    g_byte_array_append(e.value, bytes, (guint) len);
    g_array_append_val(dir->entries, e);
}

static void
dir_short(tiff_dir *dir, guint16 tag, guint32 value)
{
    guint8 b[2];

    le16(b, value);
    dir_add(dir, tag, T_SHORT, 1, b, 2);
}

static void
dir_long(tiff_dir *dir, guint16 tag, guint32 value)
{
    guint8 b[4];

    le32(b, value);
    dir_add(dir, tag, T_LONG, 1, b, 4);
}

static void
dir_ascii(tiff_dir *dir, guint16 tag, const char *text)
{
    if (text)
        dir_add(dir, tag, T_ASCII, (guint32) strlen(text) + 1, text, strlen(text) + 1);
}

/* `n` rationals (signed when `type` says) of `values`, to a millionth. */
static void
dir_rationals(tiff_dir *dir, guint16 tag, guint16 type, const double *values, int n)
{
    g_autofree guint8 *b = g_new(guint8, 8 * n);

    for (int i = 0; i < n; i++) {
        le32(b + 8 * i, (guint32) (gint32) lround(values[i] * 1e6));
        le32(b + 8 * i + 4, 1000000);
    }
    dir_add(dir, tag, type, (guint32) n, b, 8 * (gsize) n);
}

/* Set the 4-byte value of `tag`, added before as a LONG. */
static void
dir_patch(tiff_dir *dir, guint16 tag, guint32 value)
{
    for (guint i = 0; i < dir->entries->len; i++) {
        tiff_entry *e = &g_array_index(dir->entries, tiff_entry, i);

        if (e->tag == tag)
            le32(e->value->data, value);
    }
}

static guint32
dir_size(const tiff_dir *dir)
{
    guint32 size = 2 + 12 * dir->entries->len + 4;

    for (guint i = 0; i < dir->entries->len; i++) {
        const tiff_entry *e = &g_array_index(dir->entries, tiff_entry, i);

        if (e->value->len > 4)
            size += (e->value->len + 1) & ~1u;
    }
    return size;
}

/* Write the directory at its place in `out` (grown to hold it). */
static void
dir_put(const tiff_dir *dir, GByteArray *out)
{
    guint32 extra = dir->at + 2 + 12 * dir->entries->len + 4;

    if (out->len < dir->at + dir_size(dir))
        g_byte_array_set_size(out, dir->at + dir_size(dir));
    le16(out->data + dir->at, dir->entries->len);
    for (guint i = 0; i < dir->entries->len; i++) {
        const tiff_entry *e = &g_array_index(dir->entries, tiff_entry, i);
        guint8 *p = out->data + dir->at + 2 + 12 * i;

        le16(p, e->tag);
        le16(p + 2, e->type);
        le32(p + 4, e->count);
        memset(p + 8, 0, 4);
        if (e->value->len <= 4)
            memcpy(p + 8, e->value->data, e->value->len);
        else {
            le32(p + 8, extra);
            memcpy(out->data + extra, e->value->data, e->value->len);
            extra += (e->value->len + 1) & ~1u;
        }
    }
    le32(out->data + dir->at + 2 + 12 * dir->entries->len, 0);
}

static void
dir_clear(tiff_dir *dir)
{
    for (guint i = 0; i < dir->entries->len; i++)
        g_byte_array_unref(g_array_index(dir->entries, tiff_entry, i).value);
    g_array_unref(dir->entries);
}

static tiff_dir
dir_new(void)
{
    return (tiff_dir) { g_array_new(FALSE, FALSE, sizeof(tiff_entry)), 0 };
}

double
gal_test_srgb8(double linear)
{
    double v = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;

    return 255 * CLAMP(v, 0, 1);
}

gal_test_dng
gal_test_dng_default(void)
{
    return (gal_test_dng) {
        .width = 64, .height = 48,
        .patches = { { 0.60, 0.05, 0.05 }, { 0.05, 0.50, 0.05 }, { 0.05, 0.05, 0.70 },
            { 0.18, 0.18, 0.18 } },
        .make = "NIKON CORPORATION", .model = "NIKON D750",
        .lens = "AF-S NIKKOR 24-120mm f/4G ED VR", .taken = "2024:05:01 08:30:00",
        .exposure_seconds = 1 / 250.0, .f_number = 5.6, .focal_mm = 35, .iso = 200,
    };
}

/* The photosite at (x, y) of an RGGB mosaic of the four quarters. */
static guint16
photosite(const gal_test_dng *dng, int x, int y)
{
    int quarter = (x >= dng->width / 2) + 2 * (y >= dng->height / 2);
    int channel = (y % 2 == 0) ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2);

    int white = dng->white ? dng->white : 65535;

    return (guint16) lround(dng->black + CLAMP(dng->patches[quarter][channel], 0, 1) *
        (white - dng->black));
}

GBytes *
gal_test_dng_bytes(const gal_test_dng *dng)
{
    /* XYZ (D65) to linear sRGB: DNG's ColorMatrix goes from XYZ to the
     * camera, so the camera's RGB is sRGB's. */
    static const double xyz_to_srgb[9] = { 3.240479, -1.537150, -0.498535, -0.969256, 1.875992,
        0.041556, 0.055648, -0.204043, 1.057311 };
    static const double neutral[3] = { 1, 1, 1 };
    static const guint8 version[4] = { 1, 4, 0, 0 }, cfa[4] = { 0, 1, 1, 2 };
    guint8 repeat[4], bps3[6];
    tiff_dir raw = dir_new(), exif = dir_new(), preview = dir_new();
    gboolean has_preview = dng->preview_jpeg != NULL;
    guint32 pixels_len = (guint32) dng->width * dng->height * 2, pixels_at, jpeg_at;
    GByteArray *out = g_byte_array_new();
    double value;

    le16(repeat, 2);
    le16(repeat + 2, 2);
    for (int i = 0; i < 3; i++)
        le16(bps3 + 2 * i, 8);

    dir_long(&raw, 254, 0); /* NewSubFileType: the main image */
    dir_long(&raw, 256, dng->claimed_width ? dng->claimed_width : (guint32) dng->width);
    dir_long(&raw, 257, dng->claimed_height ? dng->claimed_height : (guint32) dng->height);
    dir_short(&raw, 258, 16);
    dir_short(&raw, 259, 1);
    dir_short(&raw, 262, 32803); /* CFA */
    dir_ascii(&raw, 271, dng->make);
    dir_ascii(&raw, 272, dng->model);
    dir_long(&raw, 273, 0); /* StripOffsets, below */
    if (dng->orientation)
        dir_short(&raw, 274, (guint32) dng->orientation);
    dir_short(&raw, 277, 1);
    dir_long(&raw, 278, (guint32) dng->height);
    dir_long(&raw, 279, pixels_len);
    dir_short(&raw, 284, 1);
    if (has_preview)
        dir_long(&raw, 330, 0); /* SubIFDs, below */
    dir_add(&raw, 33421, T_SHORT, 2, repeat, 4);
    dir_add(&raw, 33422, T_BYTE, 4, cfa, 4);
    dir_long(&raw, 34665, 0); /* the EXIF directory, below */
    if (!dng->maker_raw) {
        dir_add(&raw, 50706, T_BYTE, 4, version, 4);
        dir_ascii(&raw, 50708, dng->model ? dng->model : "gallop test camera");
        dir_long(&raw, 50714, dng->black);                        /* BlackLevel */
        dir_long(&raw, 50717, dng->white ? dng->white : 65535u); /* WhiteLevel */
        dir_rationals(&raw, 50721, T_SRATIONAL, xyz_to_srgb, 9);
        dir_rationals(&raw, 50728, T_RATIONAL, neutral, 3);
        dir_short(&raw, 50778, 21); /* CalibrationIlluminant1: D65 */
    }

    if (dng->exposure_seconds > 0) {
        value = dng->exposure_seconds;
        dir_rationals(&exif, 33434, T_RATIONAL, &value, 1);
    }
    if (dng->f_number > 0) {
        value = dng->f_number;
        dir_rationals(&exif, 33437, T_RATIONAL, &value, 1);
    }
    if (dng->iso > 0)
        dir_short(&exif, 34855, (guint32) dng->iso);
    dir_ascii(&exif, 36867, dng->taken);
    if (dng->focal_mm > 0) {
        value = dng->focal_mm;
        dir_rationals(&exif, 37386, T_RATIONAL, &value, 1);
    }
    dir_ascii(&exif, 42036, dng->lens);

    if (has_preview) {
        dir_long(&preview, 254, 1); /* a reduced image */
        dir_long(&preview, 256, (guint32) dng->preview_width);
        dir_long(&preview, 257, (guint32) dng->preview_height);
        dir_add(&preview, 258, T_SHORT, 3, bps3, 6);
        dir_short(&preview, 259, 7); /* JPEG */
        dir_short(&preview, 262, 6); /* YCbCr */
        dir_long(&preview, 273, 0);  /* below */
        dir_short(&preview, 277, 3);
        dir_long(&preview, 278, (guint32) dng->preview_height);
        dir_long(&preview, 279, (guint32) dng->preview_len);
    }

    raw.at = 8;
    exif.at = raw.at + dir_size(&raw);
    preview.at = exif.at + dir_size(&exif);
    pixels_at = preview.at + (has_preview ? dir_size(&preview) : 0);
    jpeg_at = pixels_at + pixels_len;
    dir_patch(&raw, 273, dng->pixels_past_end ? jpeg_at + (guint32) dng->preview_len +
                                                    dng->pixels_past_end
                                              : pixels_at);
    dir_patch(&raw, 34665, exif.at);
    dir_patch(&raw, 330, preview.at);
    dir_patch(&preview, 273, jpeg_at);

    g_byte_array_append(out, (const guint8 *) "II*\0", 4);
    g_byte_array_set_size(out, 8);
    le32(out->data + 4, raw.at);
    dir_put(&raw, out);
    dir_put(&exif, out);
    if (has_preview)
        dir_put(&preview, out);
    g_byte_array_set_size(out, pixels_at + pixels_len);
    for (int y = 0; y < dng->height; y++)
        for (int x = 0; x < dng->width; x++)
            le16(out->data + pixels_at + 2 * ((gsize) y * dng->width + x), photosite(dng, x, y));
    if (has_preview)
        g_byte_array_append(out, dng->preview_jpeg, (guint) dng->preview_len);
    if (dng->cut_to && dng->cut_to < out->len)
        g_byte_array_set_size(out, (guint) dng->cut_to);
    dir_clear(&raw);
    dir_clear(&exif);
    dir_clear(&preview);
    return g_byte_array_free_to_bytes(out);
}

char *
gal_test_dng_write(const char *dir, const char *name, const gal_test_dng *dng)
{
    g_autoptr(GBytes) bytes = gal_test_dng_bytes(dng);
    char *path = g_build_filename(dir, name, NULL);
    gsize len;
    const char *data = g_bytes_get_data(bytes, &len);

    if (!g_file_set_contents(path, data, (gssize) len, NULL))
        g_error("cannot write %s", path);
    return path;
}
