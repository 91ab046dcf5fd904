/* Resize: fit the photo to a box (cover, contain, inside, fill), with a
 * centre, entropy or attention crop for cover.
 *
 * Shrink-on-load lives here in one place: when resize is the first stage,
 * the engine asks load_size() for the scaled size and decodes straight to it
 * (vips_thumbnail: JPEG DCT scaling, auto-orientation, ICC to sRGB); build()
 * then finds the scale already done and only crops or pads; enlarging is
 * done here, not by the loader (upsize()). The geometry is one pure
 * function, gal__resize_plan(), so both paths agree by design.
 * Not lazy: entropy/attention crops must see the whole (already shrunk)
 * image before they choose a window, and enlarging turns the image, so
 * that image is copied to memory. */
#include <math.h>

#include "internal.h"

typedef struct {
    int width;
    int height;
    int fit;  /* gal_fit */
    int crop; /* gal_crop */
    gboolean upscale;
    gal_color background;
} resize_opts;

static const char *const fit_names[] = { "cover", "contain", "inside", "fill", NULL };
static const char *const crop_names[] = { "centre", "entropy", "attention", NULL };

static const gal_param resize_params[] = {
    GAL_PARAM_INT(resize_opts, width, "box width in pixels; omit to follow the height", NULL,
        1, 65535),
    GAL_PARAM_INT(resize_opts, height, "box height in pixels; omit to follow the width", NULL,
        1, 65535),
    GAL_PARAM_ENUM(resize_opts, fit,
        "cover: fill the box and crop; contain: fit inside and pad to the box; "
        "inside: fit inside; fill: stretch to the box",
        "inside", fit_names),
    GAL_PARAM_ENUM(resize_opts, crop,
        "which part cover keeps: the centre, the busiest part (entropy) or what draws "
        "the eye (attention: skin, saturation, edges)",
        "centre", crop_names),
    GAL_PARAM_BOOL(resize_opts, upscale,
        "enlarge photos smaller than the box (off: small photos keep their size, and "
        "cover keeps the box's shape)",
        "false"),
    GAL_PARAM_COLOR(resize_opts, background,
        "padding colour for contain; with alpha (#rrggbbaa) on formats that carry it", "black"),
    GAL_PARAM_END,
};

static int
round_px(double v)
{
    return MAX(1, (int) lround(v));
}

void
gal__resize_plan(gal_fit fit, int width, int height, gboolean upscale, int in_width,
    int in_height, gal_resize_plan *plan)
{
    double sx = width ? (double) width / in_width : INFINITY;
    double sy = height ? (double) height / in_height : INFINITY;
    double s;

    *plan = (gal_resize_plan) { in_width, in_height, 0, 0, 0, 0 };
    if (!width && !height)
        return;
    if (!width || !height)
        fit = GAL_FIT_INSIDE; /* one side given: scale to it */

    switch (fit) {
    case GAL_FIT_COVER: {
        int box_w = width, box_h = height;

        s = MAX(sx, sy);
        if (!upscale && s > 1) {
            /* Too small to cover the box: keep every pixel we have and crop
             * to the largest window of the box's shape instead. */
            double k = MIN((double) in_width / width, (double) in_height / height);

            box_w = MIN(in_width, round_px(width * k));
            box_h = MIN(in_height, round_px(height * k));
            s = 1;
        }
        plan->width = s == sx ? box_w : MAX(box_w, round_px(in_width * s));
        plan->height = s == sy ? box_h : MAX(box_h, round_px(in_height * s));
        if (s == 1) {
            plan->width = in_width;
            plan->height = in_height;
        }
        if (plan->width != box_w || plan->height != box_h) {
            plan->crop_width = box_w;
            plan->crop_height = box_h;
        }
        break;
    }
    case GAL_FIT_CONTAIN:
    case GAL_FIT_INSIDE:
        s = MIN(sx, sy);
        if (!upscale)
            s = MIN(s, 1);
        plan->width = s == sx ? width : round_px(in_width * s);
        plan->height = s == sy ? height : round_px(in_height * s);
        if (s == 1) {
            plan->width = in_width;
            plan->height = in_height;
        }
        if (fit == GAL_FIT_CONTAIN && (plan->width != width || plan->height != height)) {
            plan->canvas_width = width;
            plan->canvas_height = height;
        }
        break;
    case GAL_FIT_FILL:
        plan->width = upscale || width <= in_width ? width : in_width;
        plan->height = upscale || height <= in_height ? height : in_height;
        break;
    }
}

static void
plan_for(const resize_opts *o, int in_width, int in_height, gal_resize_plan *plan)
{
    gal__resize_plan(o->fit, o->width, o->height, o->upscale, in_width, in_height, plan);
}

static int
resize_check(const gal_stage_ctx *sc, gal_error *err)
{
    const resize_opts *o = sc->opts;

    if (!o->width && !o->height)
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "resize",
            "give a width, a height or both");
    if (o->fit != GAL_FIT_INSIDE && (!o->width || !o->height))
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "resize.fit",
            "%s needs both width and height", fit_names[o->fit]);
    return 0;
}

static void
resize_load_size(const gal_stage_ctx *sc, int width, int height, int *load_width,
    int *load_height)
{
    gal_resize_plan plan;

    plan_for(sc->opts, width, height, &plan);
    /* Enlarging is left to build(), which does it better and faster than
     * vips_thumbnail would (see upsize()): the decoder delivers the photo
     * at its own size on an axis that grows. */
    *load_width = MIN(plan.width, width);
    *load_height = MIN(plan.height, height);
}

static int
crop(const gal_stage_ctx *sc, VipsImage *in, const gal_resize_plan *plan, VipsImage **out,
    gal_error *err)
{
    const resize_opts *o = sc->opts;
    VipsInteresting interesting =
        o->crop == GAL_CROP_ENTROPY ? VIPS_INTERESTING_ENTROPY : VIPS_INTERESTING_ATTENTION;
    g_autoptr(VipsImage) memory = NULL;

    if (o->crop == GAL_CROP_CENTRE) {
        if (vips_extract_area(in, out, (in->Xsize - plan->crop_width) / 2,
                (in->Ysize - plan->crop_height) / 2, plan->crop_width, plan->crop_height, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "crop");
        return 0;
    }
    /* smartcrop reads the image to score it, then again to cut: with a
     * sequential decoder behind `in` that second read would fail, so
     * score a private copy of the already shrunk pixels. */
    if (!(memory = vips_image_copy_memory(in)) ||
        vips_smartcrop(memory, out, plan->crop_width, plan->crop_height, "interesting",
            interesting, NULL))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "smart crop");
    return 0;
}

static int
pad(const gal_stage_ctx *sc, VipsImage *in, const gal_resize_plan *plan, VipsImage **out,
    gal_error *err)
{
    const resize_opts *o = sc->opts;
    g_autoptr(VipsImage) with_alpha = NULL;
    VipsImage *src = in;
    double bg[4] = { o->background.r, o->background.g, o->background.b, o->background.a };
    g_autoptr(VipsArrayDouble) background = NULL;

    if (o->background.a < 255 && !vips_image_hasalpha(in)) {
        if (vips_addalpha(in, &with_alpha, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "add alpha");
        src = with_alpha;
    }
    background = vips_array_double_new(bg, src->Bands);
    if (vips_gravity(src, out, VIPS_COMPASS_DIRECTION_CENTRE, plan->canvas_width,
            plan->canvas_height, "extend", VIPS_EXTEND_BACKGROUND, "background", background,
            NULL))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "pad");
    return 0;
}

/* Lanczos 3 along one axis, the vectorised way. libvips 8.14 has two
 * reducers: vips_reducev (orc) and vips_reduceh (plain C, about three times
 * slower), and enlarges with a bicubic vips_affine, slower still (about
 * 45 ns a pixel) and half an output pixel off centre. So every scale in
 * gallop goes through vips_reducev: rows here; columns by turning the image
 * a quarter round and back (gal__scale_columns), which is still faster.
 * To grow, rows are first repeated a whole number of times (vips_zoom, a
 * copy); the result is centred, within 0.25 of 255 on average of a centred
 * bicubic enlargement. With an orc older than 0.4.34, gal_init() turns the
 * vector paths off and vips_reducev runs C as well, still a little faster
 * than vips_reduceh (bench/RESULTS.md, issue 12), so the turns stay. */
int
gal__scale_rows(VipsImage *in, int height, VipsImage **out)
{
    double scale = (double) height / in->Ysize;
    int zoom = scale > 1 ? (int) ceil(scale) : 1;
    g_autoptr(VipsImage) zoomed = NULL;

    if (height == in->Ysize)
        return vips_copy(in, out, NULL);
    if (zoom == 1)
        return vips_reducev(in, out, (double) in->Ysize / height, "kernel",
            VIPS_KERNEL_LANCZOS3, NULL);
    return vips_zoom(in, &zoomed, 1, zoom, NULL) ||
        vips_reducev(zoomed, out, (double) zoomed->Ysize / height, "kernel",
            VIPS_KERNEL_LANCZOS3, NULL);
}

/* The columns' counterpart of gal__scale_rows(). Turning reads whole
 * columns, so `in` must allow random access (be in memory) and not carry
 * the decoder's "sequential" mark, which would make every operation after
 * it ask for one-row strips: through the turn, column after column, many
 * times slower than tiles. */
int
gal__scale_columns(VipsImage *in, int width, VipsImage **out)
{
    g_autoptr(VipsImage) turned = NULL;
    g_autoptr(VipsImage) scaled = NULL;

    if (width == in->Xsize)
        return vips_copy(in, out, NULL);
    return vips_rot(in, &turned, VIPS_ANGLE_D90, NULL) ||
        gal__scale_rows(turned, width, &scaled) ||
        vips_rot(scaled, out, VIPS_ANGLE_D270, NULL);
}

/* Scale to `width` x `height` when an axis grows (see gal__scale_rows).
 * The input is small (it is being enlarged), so it is put in memory first
 * for the turn, and the caller puts the result there too (see
 * resize_build). */
static int
upsize(VipsImage *in, int width, int height, VipsImage **out)
{
    g_autoptr(VipsImage) memory = NULL;
    g_autoptr(VipsImage) tall = NULL;
    g_autoptr(VipsImage) wide = NULL;

    if (!(memory = vips_image_copy_memory(in)))
        return -1;
    vips_image_remove(memory, VIPS_META_SEQUENTIAL);
    if (gal__scale_rows(memory, height, &tall) || gal__scale_columns(tall, width, &wide))
        return -1;
    /* Rounding in vips_reducev: a pixel more or less, from the edge. */
    return vips_gravity(wide, out, VIPS_COMPASS_DIRECTION_CENTRE, width, height, "extend",
        VIPS_EXTEND_COPY, NULL);
}

static int
resize_build(const gal_stage_ctx *sc, gal_job *job, VipsImage *in, VipsImage **out,
    gal_error *err)
{
    gal_resize_plan plan;
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) fitted = NULL;
    gboolean grows;
    VipsImage *current = in;

    (void) job;
    plan_for(sc->opts, in->Xsize, in->Ysize, &plan);
    grows = plan.width > in->Xsize || plan.height > in->Ysize;
    if (grows) {
        if (upsize(in, plan.width, plan.height, &scaled))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
        current = scaled;
    }
    else if (plan.width != in->Xsize || plan.height != in->Ysize) {
        if (vips_resize(in, &scaled, (double) plan.width / in->Xsize, "vscale",
                (double) plan.height / in->Ysize, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
        current = scaled;
    }
    if (plan.crop_width) {
        if (crop(sc, current, &plan, &fitted, err))
            return -1;
    }
    else if (plan.canvas_width) {
        if (pad(sc, current, &plan, &fitted, err))
            return -1;
    }
    else
        fitted = g_object_ref(current);
    if (!grows) {
        *out = g_steal_pointer(&fitted);
        return 0;
    }
    /* An enlargement is made in memory, in tiles, only where the crop
     * keeps it: the turns in upsize() would be slow pulled through in
     * the strips the encoder asks for. The stages after it see a
     * sequential image again, as if it came from the decoder. */
    if (!(*out = vips_image_copy_memory(fitted)))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
    vips_image_set_int(*out, VIPS_META_SEQUENTIAL, 1);
    return 0;
}

const gal_stage_def gal_stage_resize = {
    .name = "resize",
    .summary = "scale to a box: cover (crop), contain (pad), inside or fill",
    .params = resize_params,
    .opts_size = sizeof(resize_opts),
    .kind = GAL_STAGE_MAP,
    .check = resize_check,
    .load_size = resize_load_size,
    .build = resize_build,
};
