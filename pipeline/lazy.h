/* lazy.h: gallop's own lazy libvips operations, made without a VipsOperation
 * class: an image whose pixels a generate function makes from `in` when a
 * region of it is asked for. Used by the scalers (resample.c), sharpening
 * and the overlays (overlay.c). */
#ifndef GAL_LAZY_H
#define GAL_LAZY_H

#include <vips/vips.h>

/* A new `width` x `height` image made from `in` by `generate` in strips
 * of rows (`start` and `stop` make and free each thread's sequence, as
 * vips_image_generate's). It holds `in` and `plan` as long as it lives;
 * `plan_free`, when given, frees the plan as the image closes, which a
 * failure here does too. Returns 0 with the image in *out, or -1 with the
 * libvips error set. */
int gal__lazy_op(VipsImage *in, int width, int height, VipsStartFn start,
    VipsGenerateFn generate, VipsStopFn stop, void *plan, GCallback plan_free, VipsImage **out);

#endif /* GAL_LAZY_H */
