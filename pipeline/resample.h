/* resample.h: scaling helpers shared by decoding and the resize stage. */
#ifndef GAL_RESAMPLE_H
#define GAL_RESAMPLE_H

#include "internal.h"
#include "sharpen.h"

/* Scaling along one axis (resample.c): rows to `height`, or columns to
 * `width`. Shrinking is Lanczos 3: 8-bit images with our own reducer
 * (centred as the enlargement is, so a span shrunk alone gives the whole
 * axis's pixels; SSE2), other formats with libvips' vips_reducev, columns
 * through quarter turns (gal__columns_turn); growing is
 * gal__enlarge_rows/_columns. New image in *out; -1 with the libvips error
 * set. */
int gal__scale_rows(VipsImage *in, int height, VipsImage **out);
int gal__scale_columns(VipsImage *in, int width, VipsImage **out);

/* The kernel an enlargement is made with (resize.kernel). */
typedef enum gal_kernel {
    GAL_KERNEL_LANCZOS3,    /* six taps, centred as the bicubic */
    GAL_KERNEL_CATMULL_ROM, /* libvips' "bicubic": four taps */
} gal_kernel;

/* gal__scale_rows() and gal__scale_columns(), enlarging with `enlarge`
 * (shrinking is Lanczos 3 either way). Lanczos 3 enlarges 8-bit images
 * only, centred and span-exact as the bicubic (a window scaled alone is
 * the whole axis's), with alpha weighed as gal__enlarge_rows() does. */
int gal__scale_rows_with(VipsImage *in, int height, gal_kernel enlarge, VipsImage **out);
int gal__scale_columns_with(VipsImage *in, int width, gal_kernel enlarge, VipsImage **out);

/* Whether gal__scale_columns() shrinks `in` through quarter turns (it is
 * not 8-bit): `in` must then be in memory, without the sequential mark. */
gboolean gal__columns_turn(const VipsImage *in);

/* Shrink `in` (in memory, or cheap to read at random) to `width` x
 * `height`, neither larger than it is: Lanczos 3 on each axis, lazy (but
 * for the turns of an image that is not 8-bit). New image in *out; -1 with
 * the libvips error set. */
int gal__shrink(VipsImage *in, int width, int height, VipsImage **out);

/* Enlarge 8-bit `in` along one axis to `height` rows (or `width` columns),
 * at least as many as it has: a separable Catmull-Rom bicubic (or Lanczos
 * 3 through gal__scale_rows_with / _columns_with), centred
 * (output line i samples source position (i + 0.5) * in / out - 0.5; edges
 * repeat), lazy. Weights depend only on the scale's ratio and the output
 * line, so a span of the axis scaled alone gives the same pixels as the
 * whole axis scaled. With alpha (vips_image_hasalpha), colours are weighted
 * as premultiplied by it, so a transparent pixel's colour does not bleed
 * into its opaque neighbours; in and out stay straight (unpremultiplied).
 * New image in *out; -1 with the libvips error set (not 8-bit).
 * Thread-safe: the plan is read-only once made. */
int gal__enlarge_rows(VipsImage *in, int height, VipsImage **out);
int gal__enlarge_columns(VipsImage *in, int width, VipsImage **out);

/* The size to decode a photo of `width` x `height` (upright) at for `n`
 * presets that want it at load_w[k] x load_h[k]. One preset: its size, as
 * a run of it alone decodes (upscaling included). Several: the largest
 * width and height any of them wants, but never more than the photo has,
 * so a preset that upscales does it from the whole photo and none scales
 * down from an enlarged copy. Pure. */
void gal__shared_decode_size(int width, int height, const int *load_w, const int *load_h, int n,
    int *decode_w, int *decode_h);

#endif /* GAL_RESAMPLE_H */
