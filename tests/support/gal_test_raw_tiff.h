/* gal_test_raw_tiff.h: TIFF directories written byte by byte, for the raw
 * forgers (gal_test_raw.c, gal_test_raw_makers.c): most camera raws are
 * TIFFs under another signature, with the maker's own tags. */
#ifndef GAL_TEST_RAW_TIFF_H
#define GAL_TEST_RAW_TIFF_H

#include <glib.h>

enum { GAL_TIFF_BYTE = 1, GAL_TIFF_ASCII = 2, GAL_TIFF_SHORT = 3, GAL_TIFF_LONG = 4,
    GAL_TIFF_RATIONAL = 5, GAL_TIFF_UNDEFINED = 7, GAL_TIFF_SRATIONAL = 10 };

/* A directory: its entries (added in ascending tag order, as TIFF wants)
 * and where it goes in the file. Little-endian unless `big`. */
typedef struct gal_test_tiff_dir {
    GArray *entries;
    guint32 at;
    gboolean big;
} gal_test_tiff_dir;

gal_test_tiff_dir gal_test_tiff_new(gboolean big);
void gal_test_tiff_clear(gal_test_tiff_dir *dir);

/* An entry of `count` values of `type`, whose bytes (in the directory's
 * order) are `bytes`. */
void gal_test_tiff_add(gal_test_tiff_dir *dir, guint16 tag, guint16 type, guint32 count,
    const void *bytes, gsize len);
void gal_test_tiff_short(gal_test_tiff_dir *dir, guint16 tag, guint32 value);
void gal_test_tiff_long(gal_test_tiff_dir *dir, guint16 tag, guint32 value);
/* Nothing when `text` is NULL. */
void gal_test_tiff_ascii(gal_test_tiff_dir *dir, guint16 tag, const char *text);
/* `n` rationals (signed when `type` says) of `values`, to a millionth. */
void gal_test_tiff_rationals(gal_test_tiff_dir *dir, guint16 tag, guint16 type,
    const double *values, int n);
/* EXIF's usual photo facts, each when set: exposure, f-number, ISO, date
 * taken, focal length, lens. */
void gal_test_tiff_exif_facts(gal_test_tiff_dir *dir, double exposure_seconds, double f_number,
    int iso, const char *taken, double focal_mm, const char *lens);
/* Set the 4-byte value of `tag`, added before as a LONG (an offset known
 * only once the file is laid out). */
void gal_test_tiff_patch(gal_test_tiff_dir *dir, guint16 tag, guint32 value);

/* The bytes the directory takes: its entries, the next-directory link and
 * the values longer than 4 bytes, which follow it. */
guint32 gal_test_tiff_size(const gal_test_tiff_dir *dir);
/* Write the directory at its `at` in `out` (grown to hold it), its link
 * to the next directory `next` (0: none). */
void gal_test_tiff_put(const gal_test_tiff_dir *dir, guint32 next, GByteArray *out);

/* 16 and 32-bit values in either order. */
void gal_test_put16(guint8 *p, guint32 value, gboolean big);
void gal_test_put32(guint8 *p, guint32 value, gboolean big);

#endif /* GAL_TEST_RAW_TIFF_H */
