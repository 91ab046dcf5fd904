/* icc.h: a photo's colours to sRGB with lcms2 directly, where libvips 8.14's
 * vips_icc_transform falls short (icc.c is the one file that uses lcms2):
 *
 *  - CMYK: libvips converts relative colorimetric without black-point
 *    compensation, so rich black comes out grey (36 of 255 through its own
 *    CMYK profile) and saturated colours flatten. Here: relative
 *    colorimetric with black-point compensation, as Photoshop's default.
 *  - A profile without the table of the intent asked for (an XYB JPEG from
 *    jpegli has only a perceptual one): it is converted with an intent the
 *    profile has, and the photo gets a warning saying so.
 *
 * Everything else keeps vips_icc_transform (job.c). */
#ifndef GAL_ICC_H
#define GAL_ICC_H

#include "internal.h"

/* Whether `in` (as decoded: its interpretation and bands) with `profile`
 * (`len` bytes; NULL: none embedded) is converted here rather than by
 * libvips: CMYK with any profile or none (libvips' built-in CMYK profile
 * then), or a profile lacking the relative-colorimetric table for its
 * colour space. FALSE for a profile lcms2 cannot read or that does not
 * match the pixels (libvips' handling of those is kept). Pure. */
gboolean gal__icc_is_ours(VipsImage *in, const void *profile, size_t len);

/* `in` (8- or 16-bit CMYK, RGB or grey, alpha kept) converted to 8-bit
 * sRGB through `profile` (NULL: libvips' built-in CMYK profile), lazily:
 * the transform is made once, here, and every libvips thread computing a
 * region of the result applies it (cmsDoTransform on a transform made
 * with cmsFLAGS_NOCACHE, which is what makes sharing it thread-safe). The
 * output carries libvips' sRGB profile. Anything worth telling the user
 * (an intent the profile lacks, lcms2's own complaints) is appended to
 * `warnings`, one line each. -1 with `err` set (GAL_ERR_INPUT) when the
 * profile cannot be used. */
int gal__icc_to_srgb(VipsImage *in, const void *profile, size_t len, VipsImage **out,
    GString *warnings, gal_error *err);

/* Whether `profile` (`len` bytes) is one lcms2 reads, for RGB pixels:
 * one an output can keep (output.profile: keep). Pure. */
gboolean gal__icc_is_rgb(const void *profile, size_t len);

#endif /* GAL_ICC_H */
