/* Forged HEIC files for tests: a photo and an embedded thumbnail of
 * pixels of the test's choosing (libheif, as a phone writes them), so a
 * test can tell which of the two a run decoded. */
#ifndef GAL_TEST_HEIF_H
#define GAL_TEST_HEIF_H

#include <vips/vips.h>

/* Write `photo` (8-bit sRGB, 3 bands) as a HEIC at `path`, with `thumb`
 * (likewise; NULL: none) as its thumbnail, scaled by libheif to fit a
 * `thumb_box` pixels square (it must be larger), both HEVC at quality 90.
 * Fails the test if it cannot. */
void gal_test_write_heic(const char *path, VipsImage *photo, VipsImage *thumb, int thumb_box);

#endif /* GAL_TEST_HEIF_H */
