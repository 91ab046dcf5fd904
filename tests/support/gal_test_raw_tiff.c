/* gal_test_raw_tiff.c: TIFF directories written byte by byte (see
 * gal_test_raw_tiff.h). An entry is 12 bytes: tag, type, count, and the
 * value itself when it fits in 4 bytes, else where it is. */
#include <math.h>
#include <string.h>

#include "gal_test_raw_tiff.h"

typedef struct {
    guint16 tag, type;
    guint32 count;
    GByteArray *value;
} tiff_entry;

void
gal_test_put16(guint8 *p, guint32 value, gboolean big)
{
    p[big ? 1 : 0] = (guint8) value;
    p[big ? 0 : 1] = (guint8) (value >> 8);
}

void
gal_test_put32(guint8 *p, guint32 value, gboolean big)
{
    gal_test_put16(p + (big ? 2 : 0), value & 0xffff, big);
    gal_test_put16(p + (big ? 0 : 2), value >> 16, big);
}

gal_test_tiff_dir
gal_test_tiff_new(gboolean big)
{
    return (gal_test_tiff_dir) { g_array_new(FALSE, FALSE, sizeof(tiff_entry)), 0, big };
}

void
gal_test_tiff_clear(gal_test_tiff_dir *dir)
{
    for (guint i = 0; i < dir->entries->len; i++)
        g_byte_array_unref(g_array_index(dir->entries, tiff_entry, i).value);
    g_array_unref(dir->entries);
    dir->entries = NULL;
}

void
gal_test_tiff_add(gal_test_tiff_dir *dir, guint16 tag, guint16 type, guint32 count,
    const void *bytes, gsize len)
{
    tiff_entry e = { tag, type, count, g_byte_array_new() };

    g_byte_array_append(e.value, bytes, (guint) len);
    g_array_append_val(dir->entries, e);
}

void
gal_test_tiff_short(gal_test_tiff_dir *dir, guint16 tag, guint32 value)
{
    guint8 b[2];

    gal_test_put16(b, value, dir->big);
    gal_test_tiff_add(dir, tag, GAL_TIFF_SHORT, 1, b, 2);
}

void
gal_test_tiff_long(gal_test_tiff_dir *dir, guint16 tag, guint32 value)
{
    guint8 b[4];

    gal_test_put32(b, value, dir->big);
    gal_test_tiff_add(dir, tag, GAL_TIFF_LONG, 1, b, 4);
}

void
gal_test_tiff_ascii(gal_test_tiff_dir *dir, guint16 tag, const char *text)
{
    if (text)
        gal_test_tiff_add(dir, tag, GAL_TIFF_ASCII, (guint32) strlen(text) + 1, text,
            strlen(text) + 1);
}

void
gal_test_tiff_rationals(gal_test_tiff_dir *dir, guint16 tag, guint16 type, const double *values,
    int n)
{
    g_autofree guint8 *b = g_new(guint8, 8 * n);

    for (int i = 0; i < n; i++) {
        gal_test_put32(b + 8 * i, (guint32) (gint32) lround(values[i] * 1e6), dir->big);
        gal_test_put32(b + 8 * i + 4, 1000000, dir->big);
    }
    gal_test_tiff_add(dir, tag, type, (guint32) n, b, 8 * (gsize) n);
}

void
gal_test_tiff_exif_facts(gal_test_tiff_dir *dir, double exposure_seconds, double f_number,
    int iso, const char *taken, double focal_mm, const char *lens)
{
    if (exposure_seconds > 0)
        gal_test_tiff_rationals(dir, 33434, GAL_TIFF_RATIONAL, &exposure_seconds, 1);
    if (f_number > 0)
        gal_test_tiff_rationals(dir, 33437, GAL_TIFF_RATIONAL, &f_number, 1);
    if (iso > 0)
        gal_test_tiff_short(dir, 34855, (guint32) iso);
    gal_test_tiff_ascii(dir, 36867, taken);
    if (focal_mm > 0)
        gal_test_tiff_rationals(dir, 37386, GAL_TIFF_RATIONAL, &focal_mm, 1);
    gal_test_tiff_ascii(dir, 42036, lens);
}

void
gal_test_tiff_patch(gal_test_tiff_dir *dir, guint16 tag, guint32 value)
{
    for (guint i = 0; i < dir->entries->len; i++) {
        tiff_entry *e = &g_array_index(dir->entries, tiff_entry, i);

        if (e->tag == tag)
            gal_test_put32(e->value->data, value, dir->big);
    }
}

guint32
gal_test_tiff_size(const gal_test_tiff_dir *dir)
{
    guint32 size = 2 + 12 * dir->entries->len + 4;

    for (guint i = 0; i < dir->entries->len; i++) {
        const tiff_entry *e = &g_array_index(dir->entries, tiff_entry, i);

        if (e->value->len > 4)
            size += (e->value->len + 1) & ~1u;
    }
    return size;
}

void
gal_test_tiff_put(const gal_test_tiff_dir *dir, guint32 next, GByteArray *out)
{
    guint32 extra = dir->at + 2 + 12 * dir->entries->len + 4;

    if (out->len < dir->at + gal_test_tiff_size(dir))
        g_byte_array_set_size(out, dir->at + gal_test_tiff_size(dir));
    gal_test_put16(out->data + dir->at, dir->entries->len, dir->big);
    for (guint i = 0; i < dir->entries->len; i++) {
        const tiff_entry *e = &g_array_index(dir->entries, tiff_entry, i);
        guint8 *p = out->data + dir->at + 2 + 12 * i;

        gal_test_put16(p, e->tag, dir->big);
        gal_test_put16(p + 2, e->type, dir->big);
        gal_test_put32(p + 4, e->count, dir->big);
        memset(p + 8, 0, 4);
        if (e->value->len <= 4)
            memcpy(p + 8, e->value->data, e->value->len);
        else {
            gal_test_put32(p + 8, extra, dir->big);
            memcpy(out->data + extra, e->value->data, e->value->len);
            extra += (e->value->len + 1) & ~1u;
        }
    }
    gal_test_put32(out->data + dir->at + 2 + 12 * dir->entries->len, next, dir->big);
}
