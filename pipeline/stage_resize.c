/* Resize: fit the photo to a box (cover, contain, inside, fill), with a
 * centre, entropy or attention crop for cover, or around the photo's own
 * focus point when it has one (overrides.h).
 *
 * Shrink-on-load lives here in one place: when resize is the first stage,
 * the engine asks load_size() for the scaled size and decodes straight to it
 * (vips_thumbnail: JPEG DCT scaling, auto-orientation, ICC to sRGB); build()
 * then finds the scale already done and only crops or pads; enlarging is
 * done here, not by the loader (upsize()). The geometry is pure functions,
 * gal__resize_plan() and gal__resize_span(), so both paths agree by design.
 * Cover chooses its window in the photo as decoded and scales only that
 * (cover()): a thin strip covering a box would be millions of pixels long
 * enlarged whole. Not lazy: entropy/attention crops score a copy of the
 * photo in memory (at the output's scale when that is small, else as
 * decoded or smaller: see PROXY_CROPS), and enlargements are made in
 * memory, only where the crop keeps them. */
#include <math.h>

#include "internal.h"
#include "cancel.h"
#include "resample.h"
#include "schema.h"
#include "stage.h"

typedef struct {
    int width;
    int height;
    int long_edge;
    int short_edge;
    double megapixels;
    double percent;
    gal_fit fit;
    gal_crop crop;
    bool upscale;
    bool dont_enlarge;
    gal_kernel kernel;
    gal_color background;
} resize_opts;

static const char *const gal_fit_names[] = { "cover", "contain", "inside", "fill", NULL };
static const char *const gal_crop_names[] = { "centre", "entropy", "attention", NULL };
static const char *const gal_kernel_names[] = { "lanczos3", "catmull-rom", NULL };

static const gal_param resize_params[] = {
    GAL_PARAM_INT(resize_opts, width, "box width in pixels; omit to follow the height", NULL,
        1, 65535),
    GAL_PARAM_INT(resize_opts, height, "box height in pixels; omit to follow the width", NULL,
        1, 65535),
    GAL_PARAM_INT(resize_opts, long_edge,
        "the longer side in pixels, whichever way the photo is turned (Lightroom's "
        "\"Long Edge\")", NULL, 1, 65535),
    GAL_PARAM_INT(resize_opts, short_edge,
        "the shorter side in pixels, whichever way the photo is turned (\"Short Edge\")", NULL,
        1, 65535),
    GAL_PARAM_DOUBLE(resize_opts, megapixels,
        "the pixel count in millions, the shape kept (\"Megapixels\")", NULL, 0.01, 1000),
    GAL_PARAM_DOUBLE(resize_opts, percent,
        "a share of the picture's size as the stage gets it (\"Percentage\"); above 100 needs "
        "upscale: true", NULL, 1, 1000),
    GAL_PARAM_ENUM(resize_opts, fit, gal_fit,
        "cover: fill the box and crop; contain: fit inside and pad to the box; "
        "inside: fit inside; fill: stretch to the box",
        "inside"),
    GAL_PARAM_ENUM(resize_opts, crop, gal_crop,
        "which part cover keeps: the centre, the busiest part (entropy) or what draws "
        "the eye (attention: skin, saturation, edges); a photo's own focus point (its "
        "sidecar's focus, the captions table, its XMP regions) wins",
        "centre"),
    GAL_PARAM_BOOL(resize_opts, upscale,
        "enlarge photos smaller than the box (off: small photos keep their size, and "
        "cover keeps the box's shape)",
        "false"),
    GAL_PARAM_BOOL(resize_opts, dont_enlarge,
        "Lightroom's \"Don't Enlarge\": the opposite of upscale (false enlarges)", "true"),
    GAL_PARAM_ENUM(resize_opts, kernel, gal_kernel,
        "how an enlargement is interpolated: lanczos3 (six taps, closer to the real thing: "
        "docs/presets.md) or catmull-rom (libvips' bicubic, four taps, faster); shrinking is "
        "always Lanczos 3",
        "lanczos3"),
    GAL_PARAM_COLOR(resize_opts, background,
        "padding colour for contain; with alpha (#rrggbbaa) on formats that carry it", "black"),
    GAL_PARAM_END,
};

/* Pixels, rounded, at least one. 64 bits: cover scales a thin strip far
 * beyond int (see gal_resize_plan). */
static gint64
round_px(double v)
{
    return MAX(1, llround(v));
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

            box_w = (int) MIN(in_width, round_px(width * k));
            box_h = (int) MIN(in_height, round_px(height * k));
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

static gint64
gcd64(gint64 a, gint64 b)
{
    while (b) {
        gint64 t = a % b;

        a = b;
        b = t;
    }
    return a;
}

/* Alignment of a span's first source pixel: see gal__resize_span. Larger
 * steps would read (and scale) up to this many more pixels per side. */
#define SPAN_ALIGN_MAX 4096

void
gal__resize_span(int length, gint64 scaled_length, gint64 keep_start, int keep_length,
    gal_resize_span *span)
{
    double scale = (double) scaled_length / length;
    /* scale = p / q in lowest terms: source pixel q * k is scaled pixel
     * p * k exactly, so a span starting there scales to the very pixels of
     * the whole photo scaled. */
    gint64 g = gcd64(scaled_length, length);
    gint64 p = scaled_length / g, q = length / g;
    gint64 align = q == 1 || (p <= SPAN_ALIGN_MAX && q <= SPAN_ALIGN_MAX) ? q : 1;
    /* Lanczos 3 reaches 3 pixels either side of the sample point, in the
     * larger of the two pixels (source or scaled), shrinking or enlarging
     * (resize.kernel lanczos3; catmull-rom reaches only 2); two more for
     * rounding. */
    int margin = (int) ceil(3.0 / MIN(scale, 1.0)) + 2;
    gint64 start, end, scaled, offset;

    if (scaled_length == length) {
        *span = (gal_resize_span) { (int) keep_start, keep_length, keep_length, 0 };
        return;
    }
    start = (gint64) floor(keep_start / scale) - margin;
    end = (gint64) ceil((keep_start + keep_length) / scale) + margin;
    start = CLAMP(start, 0, length - 1) / align * align;
    end = MIN(length, (CLAMP(end, start + 1, length) + align - 1) / align * align);
    if (align == q) {
        /* start and end (a multiple of q, or the whole length, which is
         * one too) fall on whole scaled pixels. */
        scaled = (end - start) / q * p;
        offset = keep_start - start / q * p;
    }
    else {
        scaled = round_px((end - start) * scale);
        offset = llround(keep_start - start * scale);
    }
    offset = CLAMP(offset, 0, MAX(0, scaled - keep_length));
    scaled = MAX(scaled, offset + keep_length);
    *span = (gal_resize_span) { (int) start, (int) (end - start), (int) scaled, (int) offset };
}

/* Most pixels a side given by a relative rule (megapixels, percent) may
 * ask for: the same bound as width and height. */
#define SIDE_MAX 65535

/* Whether the stage may enlarge: upscale on, or dont-enlarge off (the two
 * keys say one thing; check() refuses them disagreeing). */
static gboolean
enlarges(const resize_opts *o)
{
    return o->upscale || !o->dont_enlarge;
}

/* The box a sizing rule gives a photo of `in_width` x `in_height`
 * (upright): the edges pick the side by the photo's shape; megapixels and
 * percent scale both sides by one factor (fit inside then keeps the
 * shape to the pixel). Otherwise the box as given. */
static void
box_for(const resize_opts *o, int in_width, int in_height, int *width, int *height)
{
    gboolean landscape = in_width >= in_height;
    double k;

    *width = o->width;
    *height = o->height;
    if (o->long_edge || o->short_edge) {
        gboolean on_width = o->long_edge ? landscape : !landscape;
        int edge = o->long_edge ? o->long_edge : o->short_edge;

        *width = on_width ? edge : 0;
        *height = on_width ? 0 : edge;
        return;
    }
    if (o->megapixels > 0)
        k = sqrt(o->megapixels * 1e6 / ((double) in_width * in_height));
    else if (o->percent > 0)
        k = o->percent / 100.0;
    else
        return;
    *width = (int) MIN(SIDE_MAX, round_px(in_width * k));
    *height = (int) MIN(SIDE_MAX, round_px(in_height * k));
}

static void
plan_for(const resize_opts *o, int in_width, int in_height, gal_resize_plan *plan)
{
    int width, height;

    box_for(o, in_width, in_height, &width, &height);
    gal__resize_plan(o->fit, width, height, enlarges(o), in_width, in_height, plan);
}

/* The sizing rules a stage gives one of: width and height (with fit) are
 * one box; each of the others is a rule of its own. Fields, then keys. */
static const char *const rule_fields[] = { "width", "long_edge", "short_edge", "megapixels",
    "percent" };
static const char *const rule_keys[] = { "width", "long-edge", "short-edge", "megapixels",
    "percent" };

static gboolean
rule_given(const resize_opts *o, size_t rule)
{
    switch (rule) {
    case 0: return o->width || o->height;
    case 1: return o->long_edge != 0;
    case 2: return o->short_edge != 0;
    case 3: return o->megapixels > 0;
    default: return o->percent > 0;
    }
}

/* A rule's key as the user wrote it: the box is "height" when only that
 * was given. */
static const char *
rule_key(const resize_opts *o, size_t rule)
{
    return rule == 0 && !o->width ? "height" : rule_keys[rule];
}

/* Where the user gave the stage's key `field` (the stage's place for a
 * default). */
static const gal_loc *
key_loc(const gal_stage_ctx *sc, const char *field)
{
    return gal__stage_key_loc(sc, resize_params, field);
}

static gboolean
key_given(const gal_stage_ctx *sc, const char *field)
{
    return key_loc(sc, field) != &sc->loc;
}

static int
resize_check(const gal_stage_ctx *sc, gal_error *err)
{
    const resize_opts *o = sc->opts;
    int first = -1;

    for (int r = 0; r < (int) G_N_ELEMENTS(rule_fields); r++) {
        if (!rule_given(o, r))
            continue;
        if (first < 0) {
            first = r;
            continue;
        }
        return gal_error_set(err, GAL_ERR_PRESET,
            key_loc(sc, r == 0 && !o->width ? "height" : rule_fields[r]), "resize",
            "%s and %s are two sizing rules; give one of width/height, long-edge, short-edge, "
            "megapixels or percent",
            rule_key(o, first), rule_key(o, r));
    }
    if (first < 0)
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "resize",
            "give a width, a height or both (or long-edge, short-edge, megapixels or percent)");
    if (first > 0 && o->fit != GAL_FIT_INSIDE)
        return gal_error_set(err, GAL_ERR_PRESET, key_loc(sc, "fit"), "resize.fit",
            "%s keeps the photo's shape (fit: inside); fit: %s needs width and height",
            rule_keys[first], gal_fit_names[o->fit]);
    if (o->fit != GAL_FIT_INSIDE && (!o->width || !o->height))
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "resize.fit",
            "%s needs both width and height", gal_fit_names[o->fit]);
    if (key_given(sc, "upscale") && key_given(sc, "dont_enlarge") &&
        o->upscale == o->dont_enlarge)
        return gal_error_set(err, GAL_ERR_PRESET, key_loc(sc, "dont_enlarge"),
            "resize.dont-enlarge", "upscale: %s and dont-enlarge: %s disagree; give one of them",
            o->upscale ? "true" : "false", o->dont_enlarge ? "true" : "false");
    if (o->percent > 100 && !enlarges(o))
        return gal_error_set(err, GAL_ERR_PRESET, key_loc(sc, "percent"), "resize.percent",
            "%g%% enlarges, which this resize does not: add upscale: true (or dont-enlarge: "
            "false)",
            o->percent);
    return 0;
}

static void
resize_load_size(const gal_stage_ctx *sc, int width, int height, int *load_width,
    int *load_height)
{
    const resize_opts *o = sc->opts;
    gal_resize_plan plan;

    /* A percent is of the picture the stage is given: decoded smaller, it
     * would be taken twice. So the decoder delivers the photo whole. */
    if (o->percent > 0) {
        *load_width = width;
        *load_height = height;
        return;
    }
    plan_for(o, width, height, &plan);
    /* Enlarging is left to build(), which does it better and faster than
     * vips_thumbnail would (see upsize()): the decoder delivers the photo
     * at its own size on an axis that grows. */
    *load_width = (int) MIN(plan.width, width);
    *load_height = (int) MIN(plan.height, height);
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

/* `in` as gal__scale_columns() needs it: itself (a new reference) when
 * 8-bit; else a copy in memory for the turns, without the decoder's
 * "sequential" mark, which would make them work in one-row strips. (Copies
 * that are only read otherwise keep the mark: without it a shrink of a wide
 * image asks for small tiles and takes 20 times longer.) Within the
 * photo's memory budget: NULL with `err` set. */
static VipsImage *
for_columns(gal_watch *watch, VipsImage *in, gal_error *err)
{
    VipsImage *memory;

    if (!gal__columns_turn(in))
        return g_object_ref(in);
    memory = gal__watch_to_memory(watch, in, "resize", err);

    if (memory)
        vips_image_remove(memory, VIPS_META_SEQUENTIAL);
    return memory;
}

/* Scale to `width` x `height` when an axis grows (see gal__scale_rows).
 * The input is small (it is being enlarged); one that is not 8-bit is put
 * in memory first for the turn, and the caller puts the result there too
 * (see resize_build). An axis that shrinks (fill) goes first, so no step is
 * larger than the input or the output: a 5000x1 strip filling 1080x1350
 * becomes 1080x1 before it grows to 1350 rows, not 5000x1350. */
static int
upsize(gal_watch *watch, VipsImage *in, int width, int height, gal_kernel kernel,
    VipsImage **out, gal_error *err)
{
    g_autoptr(VipsImage) memory = NULL;
    g_autoptr(VipsImage) first = NULL;
    g_autoptr(VipsImage) both = NULL;

    if (!(memory = for_columns(watch, in, err)))
        return -1;
    if (width < memory->Xsize) {
        if (gal__scale_columns_with(memory, width, kernel, &first) ||
            gal__scale_rows_with(first, height, kernel, &both))
            return -1;
    }
    else if (gal__scale_rows_with(memory, height, kernel, &first) ||
        gal__scale_columns_with(first, width, kernel, &both))
        return -1;
    /* Rounding in vips_reducev: a pixel more or less, from the edge. */
    return vips_gravity(both, out, VIPS_COMPASS_DIRECTION_CENTRE, width, height, "extend",
        VIPS_EXTEND_COPY, NULL);
}

/* The kept rows of one span (gal__resize_span) of `in`, which holds the
 * span's source rows: scaled to span->scaled rows, keep rows
 * [offset, offset + keep). */
static int
scale_span_rows(VipsImage *in, const gal_resize_span *span, int keep, gal_kernel kernel,
    VipsImage **out)
{
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) whole = NULL;

    if (span->scaled == in->Ysize)
        return vips_extract_area(in, out, 0, span->offset, in->Xsize, keep, NULL);
    if (gal__scale_rows_with(in, span->scaled, kernel, &scaled))
        return -1;
    /* Rounding in vips_reducev: a row more or less, at the end. */
    if (vips_embed(scaled, &whole, 0, 0, in->Xsize, span->scaled, "extend", VIPS_EXTEND_COPY,
            NULL))
        return -1;
    return vips_extract_area(whole, out, 0, span->offset, in->Xsize, keep, NULL);
}

/* The same for columns: `in` as for_columns() gives it. */
static int
scale_span_columns(VipsImage *in, const gal_resize_span *span, int keep, gal_kernel kernel,
    VipsImage **out)
{
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) whole = NULL;

    if (span->scaled == in->Xsize)
        return vips_extract_area(in, out, span->offset, 0, keep, in->Ysize, NULL);
    if (gal__scale_columns_with(in, span->scaled, kernel, &scaled) ||
        vips_embed(scaled, &whole, 0, 0, span->scaled, in->Ysize, "extend", VIPS_EXTEND_COPY,
            NULL))
        return -1;
    return vips_extract_area(whole, out, span->offset, 0, keep, in->Ysize, NULL);
}

/* What the entropy and attention crops score, at most this many times the
 * crop's pixels (and never less than PROXY_MIN_AREA). The photo at the
 * output's scale when it is no larger (an ordinary photo: the window is the
 * one the search always chose there, to the pixel); otherwise the photo as
 * decoded, never enlarged, and shrunk to that if larger (a thin strip, whose
 * enlargement would be millions of pixels). Both searches are coarse
 * (attention looks at a 32x32 grid; entropy trims eighths), so the smaller
 * copy loses little they would see. */
#define PROXY_CROPS 4.0
#define PROXY_MIN_AREA (512.0 * 512.0)

static double
proxy_budget(const gal_resize_plan *plan)
{
    return MAX(PROXY_CROPS * plan->crop_width * plan->crop_height, PROXY_MIN_AREA);
}

/* Place the crop window of entropy or attention (`interesting`) in the
 * photo `base` (in memory) scaled to `width` x `height`: *left and *top in
 * those scaled pixels. The search runs on `base`, shrunk first when it is
 * larger than `budget` pixels; where it leaves no choice (a 1-pixel
 * strip), the window is centred. */
static int
choose_window(gal_watch *watch, VipsInteresting interesting, VipsImage *base, gint64 width,
    gint64 height, int crop_width, int crop_height, double budget, gint64 *left, gint64 *top,
    gal_error *err)
{
    g_autoptr(VipsImage) shrunk = NULL;
    g_autoptr(VipsImage) small = NULL;
    g_autoptr(VipsImage) cropped = NULL;
    VipsImage *proxy = base;
    double area = (double) base->Xsize * base->Ysize;
    int window_w, window_h, x = 0, y = 0;
    double centre_x, centre_y;

    if (area > budget) {
        double k = sqrt(budget / area);
        double w = (double) round_px(base->Xsize * k);
        double h = (double) round_px(base->Ysize * k);

        if (vips_resize(base, &shrunk, w / base->Xsize, "vscale", h / base->Ysize, NULL) ||
            !(small = gal__watch_to_memory(watch, shrunk, "smart crop", err)))
            return -1;
        proxy = small;
    }
    /* The window in proxy pixels: at least one, at most the proxy. */
    window_w = (int) CLAMP(round_px(crop_width * (double) proxy->Xsize / width), 1, proxy->Xsize);
    window_h =
        (int) CLAMP(round_px(crop_height * (double) proxy->Ysize / height), 1, proxy->Ysize);
    if (window_w < proxy->Xsize || window_h < proxy->Ysize) {
        if (vips_smartcrop(proxy, &cropped, window_w, window_h, "interesting", interesting,
                NULL))
            return -1;
        /* smartcrop gives the window's place as the offset of the input
         * seen from the result: (-left, -top). */
        x = CLAMP(-cropped->Xoffset, 0, proxy->Xsize - window_w);
        y = CLAMP(-cropped->Yoffset, 0, proxy->Ysize - window_h);
    }
    /* The window's centre, in scaled pixels: the window keeps it. Rounded
     * down, as smartcrop does: scoring the photo at the output's scale,
     * the window is exactly the one smartcrop chose (the sums are of small
     * integers and halves); scoring it smaller, or without a choice, the
     * attention point (or the middle) falls where it would at full size. */
    centre_x = (x + window_w / 2.0) * width / proxy->Xsize;
    centre_y = (y + window_h / 2.0) * height / proxy->Ysize;
    *left = CLAMP((gint64) floor(centre_x - crop_width / 2.0), 0, width - crop_width);
    *top = CLAMP((gint64) floor(centre_y - crop_height / 2.0), 0, height - crop_height);
    return 0;
}

/* Cover: the crop window of the photo scaled to plan->width x height.
 * A photo that shrinks is scaled whole first, as the other fits do (usually
 * the decoder has done that already). The window is made by scaling only
 * the source pixels under it (gal__resize_span), rows first, then columns
 * (of the kept rows only; for_columns); except that an entropy or attention crop
 * scored on the whole photo at the output's scale (see PROXY_CROPS) cuts
 * the window from that. */
static int
cover(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in,
    const gal_resize_plan *plan, VipsImage **out, gal_error *err)
{
    gal_watch *watch = photo->watch;
    const resize_opts *o = sc->opts;
    VipsInteresting interesting =
        o->crop == GAL_CROP_ENTROPY ? VIPS_INTERESTING_ENTROPY : VIPS_INTERESTING_ATTENTION;
    int crop_w = plan->crop_width, crop_h = plan->crop_height;
    g_autoptr(VipsImage) shrunk = NULL;
    g_autoptr(VipsImage) enlarged = NULL;
    g_autoptr(VipsImage) memory = NULL;
    g_autoptr(VipsImage) region = NULL;
    g_autoptr(VipsImage) source = NULL;
    g_autoptr(VipsImage) rows = NULL;
    g_autoptr(VipsImage) rows_memory = NULL;
    VipsImage *base = in;
    gint64 width = plan->width, height = plan->height;
    gint64 left, top;
    gal_resize_span x, y;

    if (width <= in->Xsize && height <= in->Ysize && (width < in->Xsize || height < in->Ysize)) {
        if (vips_resize(in, &shrunk, (double) width / in->Xsize, "vscale",
                (double) height / in->Ysize, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
        base = shrunk;
        width = base->Xsize;
        height = base->Ysize;
    }
    if (photo->facts && photo->facts->has_focus) {
        /* The photo's own point (its sidecar, the captions table, its XMP
         * regions) is in the middle of the window, or as near as the
         * edges let it be; it wins over any crop the preset names. */
        left = CLAMP((gint64) floor(photo->facts->focus_x * width - crop_w / 2.0), 0,
            width - crop_w);
        top = CLAMP((gint64) floor(photo->facts->focus_y * height - crop_h / 2.0), 0,
            height - crop_h);
    }
    else if (o->crop == GAL_CROP_CENTRE) {
        left = (width - crop_w) / 2;
        top = (height - crop_h) / 2;
    }
    else if ((double) width * height <= proxy_budget(plan)) {
        /* Small enough to score at the output's scale: in memory, as the
         * search reads it twice (and a sequential decoder behind `base`
         * could not go back). Scaled here only if it grows. */
        if ((width > base->Xsize || height > base->Ysize) &&
            upsize(watch, base, (int) width, (int) height, o->kernel, &enlarged, err))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
        if (!(memory = gal__watch_to_memory(watch, enlarged ? enlarged : base, "smart crop",
                  err)) ||
            choose_window(watch, interesting, memory, width, height, crop_w, crop_h,
                proxy_budget(plan), &left, &top, err) ||
            vips_extract_area(memory, out, (int) left, (int) top, crop_w, crop_h, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "smart crop");
        return 0;
    }
    else {
        /* Scored on the photo as decoded (or smaller), in memory for the
         * same reason. */
        if (!(memory = gal__watch_to_memory(watch, base, "smart crop", err)) ||
            choose_window(watch, interesting, memory, width, height, crop_w, crop_h,
                proxy_budget(plan), &left, &top, err))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "smart crop");
        base = memory;
    }
    gal__resize_span(base->Xsize, width, left, crop_w, &x);
    gal__resize_span(base->Ysize, height, top, crop_h, &y);
    if (vips_extract_area(base, &region, x.start, y.start, x.length, y.length, NULL))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "crop");
    if (x.scaled == x.length && y.scaled == y.length) {
        /* No scaling: a plain (lazy) crop. */
        if (vips_extract_area(region, out, x.offset, y.offset, crop_w, crop_h, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "crop");
        return 0;
    }
    if (!(source = for_columns(watch, region, err)) ||
        scale_span_rows(source, &y, crop_h, o->kernel, &rows) ||
        !(rows_memory = for_columns(watch, rows, err)) ||
        scale_span_columns(rows_memory, &x, crop_w, o->kernel, out))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
    return 0;
}

static int
resize_build(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in,
    VipsImage **out, gal_error *err)
{
    gal_resize_plan plan;
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) fitted = NULL;
    gboolean grows;
    VipsImage *current = in;

    plan_for(sc->opts, in->Xsize, in->Ysize, &plan);
    grows = plan.width > in->Xsize || plan.height > in->Ysize;
    if (plan.crop_width) {
        if (cover(sc, photo, in, &plan, &fitted, err))
            return -1;
    }
    else {
        /* Without a crop the plan is the output, no larger than the box
         * or the photo: an int. */
        int width = (int) plan.width, height = (int) plan.height;

        if (grows) {
            if (upsize(photo->watch, in, width, height, ((const resize_opts *) sc->opts)->kernel,
                    &scaled, err))
                return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
            current = scaled;
        }
        else if (width != in->Xsize || height != in->Ysize) {
            if (vips_resize(in, &scaled, (double) width / in->Xsize, "vscale",
                    (double) height / in->Ysize, NULL))
                return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
            current = scaled;
        }
        if (plan.canvas_width) {
            if (pad(sc, current, &plan, &fitted, err))
                return -1;
        }
        else
            fitted = g_object_ref(current);
    }
    if (!grows || !gal__columns_turn(fitted)) {
        *out = g_steal_pointer(&fitted);
        return 0;
    }
    /* An enlargement that is not 8-bit is made in memory, in tiles, only
     * where the crop keeps it: its turns would be slow pulled through in
     * the strips the encoder asks for. The stages after it see a
     * sequential image again, as if it came from the decoder. */
    if (!(*out = gal__watch_to_memory(photo->watch, fitted, "resize", err)))
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
