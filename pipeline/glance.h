/* glance.h: what a page shows of a photo before the photo itself loads: a
 * tiny copy (the lazy-loading placeholder) and its dominant colour. */
#ifndef GAL_GLANCE_H
#define GAL_GLANCE_H

#include <vips/vips.h>

/* The tiny copy's width, in pixels; its height keeps the aspect (at most
 * GAL_GLANCE_MAX_HEIGHT, a strip gets narrower instead). */
#define GAL_GLANCE_WIDTH 16
#define GAL_GLANCE_MAX_HEIGHT 64

/* `in` (8-bit, 1 to 4 bands, sRGB; alpha flattened on white) made tiny,
 * 3 bands, in memory: each pixel the average of its box. *out is a new
 * reference. Returns 0, or -1 with the libvips error buffer set. Give it
 * pixels already in memory: a lazy image is rendered whole first. */
int gal__glance_thumb(VipsImage *in, VipsImage **out);

/* The tiny copy as a data URI ("data:image/webp;base64,..."), a few
 * hundred bytes, the same bytes for the same pixels; NULL when libvips
 * cannot encode WebP (libvips error buffer set). g_free it. */
char *gal__glance_placeholder(VipsImage *thumb);

/* The colour most of the tiny copy has: its pixels put in 512 bins (3 bits
 * a channel), the average of the fullest bin (ties: the first bin), as
 * "#rrggbb" into `hex`. */
void gal__glance_color(VipsImage *thumb, char hex[8]);

#endif /* GAL_GLANCE_H */
