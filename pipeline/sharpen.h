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

/* Sharpen `in` (8-bit sRGB, alpha kept) for a screen at `level`, its
 * radius fitted to the image's size; lazy. NONE gives a copy. New image in
 * *out; -1 with the libvips error set. */
int gal__sharpen(VipsImage *in, gal_sharpen level, VipsImage **out);

#endif /* GAL_SHARPEN_H */
