/* lazy.c: see lazy.h. */
#include "lazy.h"

int
gal__lazy_op(VipsImage *in, int width, int height, VipsStartFn start, VipsGenerateFn generate,
    VipsStopFn stop, void *plan, GCallback plan_free, VipsImage **out)
{
    VipsImage *image = vips_image_new();

    if (plan_free)
        g_signal_connect(image, "close", plan_free, plan);
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)) {
        g_object_unref(image);
        return -1;
    }
    image->Xsize = width;
    image->Ysize = height;
    /* The input lives as long as the image reads it. */
    g_object_ref(in);
    vips_object_local(image, in);
    if (vips_image_generate(image, start, generate, stop, in, plan)) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
}
