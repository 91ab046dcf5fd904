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

/* Write `photo` (8-bit sRGB, 3 bands) as a HEIC of `bits` (8 or 10) bits
 * at `path`, HEVC at quality 90, stored as it is with the transformations
 * (irot and imir boxes) that EXIF `orientation` (1..8) stands for: a
 * reader shows `photo` turned as that orientation says. Fails the test if
 * it cannot. */
void gal_test_write_heic_turned(const char *path, VipsImage *photo, int bits, int orientation);

/* Write `photo` (8-bit sRGB, 3 bands) as a HEIC of `bits` (8 or 10) bits at `path` as
 * phones do: a grid of `tile` x `tile` HEVC tiles (quality 90), the right and bottom ones
 * cropped to the photo's size. Fails the test if it cannot. */
void gal_test_write_heic_grid(const char *path, VipsImage *photo, int tile, int bits);

/* Make the HEIF (HEIC or AVIF) at `path` lie about a size: its `nth` ispe box from the start
 * (0: the first, the primary image's as libheif and gal_test_write_heic_grid write them; a
 * thumbnail's follows its photo's) says `declared_width` x `declared_height`, its streams
 * still code the frames they did. Fails the test if it cannot. */
void gal_test_rewrite_ispe(const char *path, int nth, int declared_width, int declared_height);

/* Write `photo` (8-bit sRGB, 3 bands) as a HEIC of `bits` (8 or 10) bits at `path`, HEVC at
 * quality 90, then make the file lie about its size: its `ispe` says the photo is
 * `declared_width` x `declared_height`, while its HEVC stream still codes the whole frame, as
 * a hostile file's would. Fails the test if it cannot. */
void gal_test_write_heic_declaring(const char *path, VipsImage *photo, int bits,
    int declared_width, int declared_height);

#endif /* GAL_TEST_HEIF_H */
