/* gal_test_meta.h: reading outputs' metadata back in tests, with libexif
 * and libpng directly (not through the code under test). */
#ifndef GAL_TEST_META_H
#define GAL_TEST_META_H

#include <libexif/exif-data.h>

#include "gal_test.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ExifData, exif_data_unref)

/* The EXIF block of any image libvips reads (JPEG APP1, WebP EXIF chunk,
 * PNG eXIf), parsed by libexif; NULL when there is none. */
ExifData *gal_test_exif(const char *path);
/* An ASCII entry's text (new string), NULL when absent. */
char *gal_test_exif_text(ExifData *ed, ExifIfd ifd, ExifTag tag);
/* A SHORT entry's value, -1 when absent. */
int gal_test_exif_short(ExifData *ed, ExifIfd ifd, ExifTag tag);

/* A PNG's text chunks (tEXt, zTXt, iTXt) as key -> text, read by libpng. */
GHashTable *gal_test_png_text(const char *path);
/* Does the PNG file hold a chunk of this 4-letter name? */
gboolean gal_test_png_has_chunk(const char *path, const char *name);

/* Skip the test when exiftool (libimage-exiftool-perl, which `make test`
 * installs) is not there: tests read metadata back with it as a reference
 * reader that is not gallop's. */
void gal_test_need_exiftool(void);
/* exiftool's reading of one tag of `file` ("GPSLatitude",
 * "XMP-dc:Description"), as text (new string); "" when it has none. */
char *gal_test_exiftool_tag(const char *file, const char *tag);

/* Where a JPEG's scan starts: the offset of its first SOS marker, after
 * the headers (asserted to be there). */
size_t gal_test_jpeg_scan_start(const guchar *jpeg, size_t len);

#endif /* GAL_TEST_META_H */
