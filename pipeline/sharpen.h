/* sharpen.h: output sharpening (sharpen.c), applied after the last resize
 * that made the photo smaller. */
#ifndef GAL_SHARPEN_H
#define GAL_SHARPEN_H

#include <vips/vips.h>

/* Output sharpening (output.sharpen), for a photo made smaller: none, or
 * an unsharp mask on luma in the manner of vips_sharpen (flat areas left
 * alone, brightening and darkening capped) at three measured strengths;
 * see gal__sharpen. */
typedef enum gal_sharpen {
    GAL_SHARPEN_NONE,
    GAL_SHARPEN_LOW,
    GAL_SHARPEN_STANDARD,
    GAL_SHARPEN_HIGH,
} gal_sharpen;

/* What the output is sharpened for (gal__media's order). */
typedef enum gal_medium {
    GAL_MEDIUM_SCREEN,
    GAL_MEDIUM_MATTE,  /* print on matte paper, which softens: the most */
    GAL_MEDIUM_GLOSSY, /* print on glossy paper */
} gal_medium;

/* Sharpen `in` (8-bit sRGB, alpha kept) at `level` for `medium`: for a
 * screen the radius fits the image's size; for print it fits `ppi`, the
 * pixels per inch it is printed at. Lazy. NONE gives a copy. New image in
 * *out; -1 with the libvips error set. */
int gal__sharpen(VipsImage *in, gal_sharpen level, gal_medium medium, int ppi, VipsImage **out);

#endif /* GAL_SHARPEN_H */
