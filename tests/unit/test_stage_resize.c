/* Resize geometry (every fit mode, both orientations of the box, with and
 * without upscale) and the stage's pixels. */
#include <math.h>

#include <criterion/criterion.h>

#include "gal_test.h"
#include "recipe.h"

TestSuite(stage_resize, .init = gal_test_setup, .fini = gal_test_teardown);

static gal_resize_plan
plan(gal_fit fit, int w, int h, gboolean upscale, int in_w, int in_h)
{
    gal_resize_plan p;

    gal__resize_plan(fit, w, h, upscale, in_w, in_h, &p);
    return p;
}

/* The size the photo ends up with after scale, crop and pad. */
static void
final_size(const gal_resize_plan *p, int *w, int *h)
{
    *w = p->canvas_width ? p->canvas_width : p->crop_width ? p->crop_width : p->width;
    *h = p->canvas_height ? p->canvas_height : p->crop_height ? p->crop_height : p->height;
}

Test(stage_resize, cover_fills_the_box_exactly_for_landscape_and_portrait_photos)
{
    static const int photos[][2] = { { 4032, 3024 }, { 3024, 4032 }, { 3000, 3000 },
        { 6000, 1400 }, { 1200, 6000 } };

    for (size_t i = 0; i < G_N_ELEMENTS(photos); i++) {
        gal_resize_plan p = plan(GAL_FIT_COVER, 1080, 1350, FALSE, photos[i][0], photos[i][1]);
        int w, h;

        final_size(&p, &w, &h);
        cr_expect_eq(w, 1080, "photo %d: width %d", (int) i, w);
        cr_expect_eq(h, 1350, "photo %d: height %d", (int) i, h);
        cr_expect(p.width >= 1080 && p.height >= 1350, "scaled %dx%d must cover", p.width,
            p.height);
        cr_expect(p.width == 1080 || p.height == 1350, "one side fits exactly");
    }
}

Test(stage_resize, cover_without_upscale_keeps_the_box_shape_on_small_photos)
{
    gal_resize_plan p = plan(GAL_FIT_COVER, 1080, 1350, FALSE, 640, 640);
    int w, h;

    final_size(&p, &w, &h);
    cr_expect_eq(p.width, 640);
    cr_expect_eq(p.height, 640);
    cr_expect_eq(w, 512);
    cr_expect_eq(h, 640);
}

Test(stage_resize, cover_with_upscale_enlarges_small_photos)
{
    gal_resize_plan p = plan(GAL_FIT_COVER, 1080, 1350, TRUE, 640, 335);
    int w, h;

    final_size(&p, &w, &h);
    cr_expect_eq(w, 1080);
    cr_expect_eq(h, 1350);
    cr_expect_eq(p.height, 1350);
    cr_expect_eq(p.width, 2579); /* 640 * 1350 / 335, rounded */
}

Test(stage_resize, contain_pads_to_the_box)
{
    gal_resize_plan p = plan(GAL_FIT_CONTAIN, 1000, 1000, FALSE, 4000, 2000);

    cr_expect_eq(p.width, 1000);
    cr_expect_eq(p.height, 500);
    cr_expect_eq(p.canvas_width, 1000);
    cr_expect_eq(p.canvas_height, 1000);
    p = plan(GAL_FIT_CONTAIN, 1000, 1000, FALSE, 2000, 4000);
    cr_expect_eq(p.width, 500);
    cr_expect_eq(p.height, 1000);
    p = plan(GAL_FIT_CONTAIN, 1000, 1000, FALSE, 300, 200);
    cr_expect_eq(p.width, 300, "no upscale: the photo keeps its size inside the canvas");
    cr_expect_eq(p.canvas_width, 1000);
    p = plan(GAL_FIT_CONTAIN, 1000, 1000, TRUE, 300, 200);
    cr_expect_eq(p.width, 1000);
    cr_expect_eq(p.height, 667);
}

Test(stage_resize, inside_fits_the_long_edge_and_never_pads)
{
    gal_resize_plan p = plan(GAL_FIT_INSIDE, 2048, 2048, FALSE, 4032, 3024);

    cr_expect_eq(p.width, 2048);
    cr_expect_eq(p.height, 1536);
    cr_expect_eq(p.canvas_width + p.crop_width, 0);
    p = plan(GAL_FIT_INSIDE, 2048, 2048, FALSE, 3024, 4032);
    cr_expect_eq(p.width, 1536);
    cr_expect_eq(p.height, 2048);
    p = plan(GAL_FIT_INSIDE, 2048, 2048, FALSE, 640, 480);
    cr_expect_eq(p.width, 640, "no upscale");
    p = plan(GAL_FIT_INSIDE, 2048, 2048, TRUE, 640, 480);
    cr_expect_eq(p.width, 2048);
    cr_expect_eq(p.height, 1536);
}

Test(stage_resize, one_side_given_scales_to_it)
{
    gal_resize_plan p = plan(GAL_FIT_COVER, 800, 0, FALSE, 4000, 3000);

    cr_expect_eq(p.width, 800);
    cr_expect_eq(p.height, 600);
    p = plan(GAL_FIT_INSIDE, 0, 300, FALSE, 4000, 3000);
    cr_expect_eq(p.width, 400);
    cr_expect_eq(p.height, 300);
}

Test(stage_resize, fill_stretches_and_respects_upscale_per_axis)
{
    gal_resize_plan p = plan(GAL_FIT_FILL, 500, 500, FALSE, 1000, 200);

    cr_expect_eq(p.width, 500);
    cr_expect_eq(p.height, 200);
    p = plan(GAL_FIT_FILL, 500, 500, TRUE, 1000, 200);
    cr_expect_eq(p.height, 500);
}

Test(stage_resize, plan_is_idempotent_so_shrink_on_load_and_build_agree)
{
    static const gal_fit fits[] = { GAL_FIT_COVER, GAL_FIT_CONTAIN, GAL_FIT_INSIDE, GAL_FIT_FILL };
    static const int photos[][2] = { { 4032, 3024 }, { 3024, 4032 }, { 641, 333 }, { 97, 1301 } };

    for (size_t f = 0; f < G_N_ELEMENTS(fits); f++)
        for (size_t i = 0; i < G_N_ELEMENTS(photos); i++)
            for (int up = 0; up < 2; up++) {
                gal_resize_plan a = plan(fits[f], 1080, 1350, up, photos[i][0], photos[i][1]);
                gal_resize_plan b = plan(fits[f], 1080, 1350, up, a.width, a.height);

                cr_expect_eq(b.width, a.width, "fit %d photo %zu: replanning rescales", (int) f, i);
                cr_expect_eq(b.height, a.height);
                cr_expect_eq(b.crop_width, a.crop_width);
                cr_expect_eq(b.canvas_height, a.canvas_height);
            }
}

Test(stage_resize, cover_centre_crop_keeps_the_middle)
{
    VipsImage *out = gal_test_run_stage("resize",
        "{width: 100, height: 100, fit: cover, crop: centre}", gal_test_gradient(400, 200));
    double pixel[4];
    double *vec;
    int n;

    cr_assert_eq(out->Xsize, 100);
    cr_assert_eq(out->Ysize, 100);
    /* the middle column of a 400-wide red ramp scaled to 200 wide is red ~128 */
    cr_assert_eq(vips_getpoint(out, &vec, &n, 50, 50, NULL), 0);
    memcpy(pixel, vec, sizeof(double) * MIN(n, 4));
    g_free(vec);
    cr_expect(pixel[0] > 110 && pixel[0] < 146, "red %g", pixel[0]);
    g_object_unref(out);
}

Test(stage_resize, contain_pads_with_the_background_colour)
{
    VipsImage *out = gal_test_run_stage("resize",
        "{width: 100, height: 100, fit: contain, background: \"#ff0000\"}",
        gal_test_gradient(400, 200));
    double *vec;
    int n;

    cr_assert_eq(out->Xsize, 100);
    cr_assert_eq(out->Ysize, 100);
    cr_assert_eq(vips_getpoint(out, &vec, &n, 50, 5, NULL), 0);
    cr_expect_eq(vec[0], 255);
    cr_expect_eq(vec[1], 0);
    g_free(vec);
    g_object_unref(out);
}

Test(stage_resize, transparent_background_adds_alpha)
{
    VipsImage *out = gal_test_run_stage("resize",
        "{width: 100, height: 100, fit: contain, background: transparent}",
        gal_test_gradient(400, 200));
    double *vec;
    int n;

    cr_assert_eq(out->Bands, 4);
    cr_assert_eq(vips_getpoint(out, &vec, &n, 50, 5, NULL), 0);
    cr_expect_eq(vec[3], 0, "padding is transparent");
    g_free(vec);
    cr_assert_eq(vips_getpoint(out, &vec, &n, 50, 50, NULL), 0);
    cr_expect_eq(vec[3], 255, "the photo is opaque");
    g_free(vec);
    g_object_unref(out);
}

Test(stage_resize, attention_crop_finds_the_subject)
{
    /* A grey field with one saturated red patch on the right: attention must
     * move the window there, centre would miss it. */
    VipsImage *grey, *patch, *scene, *out;
    double *vec;
    int n;

    cr_assert_eq(vips_black(&grey, 600, 200, "bands", 3, NULL), 0);
    {
        VipsImage *lifted;

        cr_assert_eq(vips_linear1(grey, &lifted, 1, 128, NULL), 0);
        g_object_unref(grey);
        cr_assert_eq(vips_cast_uchar(lifted, &grey, NULL), 0);
        g_object_unref(lifted);
    }
    cr_assert_eq(vips_copy(grey, &scene, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    g_object_unref(grey);
    {
        double red[3] = { 255, 0, 0 };

        patch = vips_image_copy_memory(scene);
        g_object_unref(scene);
        cr_assert_eq(vips_draw_rect(patch, red, 3, 520, 70, 60, 60, "fill", TRUE, NULL), 0);
    }
    out = gal_test_run_stage("resize", "{width: 200, height: 200, fit: cover, crop: attention}",
        patch);
    cr_assert_eq(out->Xsize, 200);
    cr_assert_eq(vips_getpoint(out, &vec, &n, 150, 100, NULL), 0);
    cr_expect(vec[0] > 200 && vec[1] < 60, "the red patch is in the crop (%g,%g,%g)", vec[0],
        vec[1], vec[2]);
    g_free(vec);
    g_object_unref(out);
}

Test(stage_resize, check_rejects_cover_without_both_sides)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_assert_null(gal_test_load("gallop: 1\nstages:\n  - resize: {width: 10, fit: cover}\n",
        errs));
    cr_assert_eq(errs->count, 1);
    cr_expect_str_eq(errs->items[0].key, "resize.fit");
    cr_expect_eq(errs->items[0].line, 3);
    cr_expect(strstr(errs->items[0].msg, "needs both width and height") != NULL, "%s",
        errs->items[0].msg);
}

/* ---- extreme shapes: thin strips, huge aspect ratios ---------------------------- */

static const int strips[][2] = { { 1, 5000 }, { 5000, 1 }, { 4, 1000 }, { 1000, 4 }, { 2, 3 },
    { 1, 1 }, { 20000, 100 }, { 100, 20000 }, { 8000, 16 }, { 7, 70001 }, { 1, 3000000 },
    { 3000000, 1 } };

Test(stage_resize, cover_of_thin_strips_plans_the_exact_box_without_overflow)
{
    for (size_t i = 0; i < G_N_ELEMENTS(strips); i++) {
        gal_resize_plan p = plan(GAL_FIT_COVER, 1080, 1350, TRUE, strips[i][0], strips[i][1]);
        int w, h;

        final_size(&p, &w, &h);
        cr_expect_eq(w, 1080, "%dx%d: width %d", strips[i][0], strips[i][1], w);
        cr_expect_eq(h, 1350, "%dx%d: height %d", strips[i][0], strips[i][1], h);
        cr_expect(p.width >= 1080 && p.height >= 1350, "%dx%d: scaled %" G_GINT64_FORMAT
            "x%" G_GINT64_FORMAT " must cover", strips[i][0], strips[i][1], p.width, p.height);
        cr_expect(p.width == 1080 || p.height == 1350, "one side fits exactly");
    }
    /* 1x5000 is enlarged 1080 times: 5.4 million rows, never made. */
    cr_expect_eq(plan(GAL_FIT_COVER, 1080, 1350, TRUE, 1, 5000).height, 5400000);
    /* Beyond int: 1x3000000 would be 3.24e9 rows. */
    cr_expect_eq(plan(GAL_FIT_COVER, 1080, 1350, TRUE, 1, 3000000).height,
        G_GINT64_CONSTANT(3240000000));
}

Test(stage_resize, inside_contain_and_fill_of_thin_strips_stay_within_the_box)
{
    gal_resize_plan p = plan(GAL_FIT_INSIDE, 1080, 1080, FALSE, 1, 5000);

    cr_expect_eq(p.width, 1);
    cr_expect_eq(p.height, 1080);
    p = plan(GAL_FIT_INSIDE, 1080, 1080, TRUE, 5000, 1);
    cr_expect_eq(p.width, 1080);
    cr_expect_eq(p.height, 1);
    p = plan(GAL_FIT_CONTAIN, 1080, 1350, TRUE, 4, 1000);
    cr_expect_eq(p.width, 5); /* 4 * 1.35, rounded */
    cr_expect_eq(p.height, 1350);
    cr_expect_eq(p.canvas_width, 1080);
    p = plan(GAL_FIT_FILL, 1080, 1350, TRUE, 5000, 1);
    cr_expect_eq(p.width, 1080);
    cr_expect_eq(p.height, 1350);
}

/* Every span reads pixels inside the source, at least one, and keeps
 * pixels inside what it scales them to, at the place they have in the whole
 * photo scaled (to half a pixel; exactly when it says so). */
static void
check_span(int length, gint64 scaled_length, gint64 keep_start, int keep_length)
{
    gal_resize_span s;
    double scale = (double) scaled_length / length;
    double first, last;

    gal__resize_span(length, scaled_length, keep_start, keep_length, &s);
    cr_assert(s.start >= 0 && s.length >= 1 && s.start + s.length <= length,
        "%d -> %" G_GINT64_FORMAT " keep %" G_GINT64_FORMAT "+%d: reads [%d, %d)", length,
        scaled_length, keep_start, keep_length, s.start, s.start + s.length);
    cr_assert(s.offset >= 0 && s.offset + keep_length <= s.scaled,
        "%d -> %" G_GINT64_FORMAT ": keeps [%d, %d) of %d", length, scaled_length, s.offset,
        s.offset + keep_length, s.scaled);
    /* The read scales at the photo's scale... */
    cr_expect_leq(fabs(s.scaled - s.length * scale), 1.0, "scaled %d for %d pixels at %g",
        s.scaled, s.length, scale);
    /* ...puts the kept pixels where they were... */
    cr_expect_leq(fabs(s.start * scale + s.offset - keep_start), 0.5,
        "%d -> %" G_GINT64_FORMAT ": kept pixels start at %g, not %" G_GINT64_FORMAT, length,
        scaled_length, s.start * scale + s.offset, keep_start);
    /* ...and covers the source pixels under them, with the kernel's reach
     * (3 pixels) where the source has them. */
    first = keep_start / scale - 3;
    last = (keep_start + keep_length) / scale + 3;
    cr_expect(s.start <= MAX(0, first) && s.start + s.length >= MIN(length, last),
        "%d -> %" G_GINT64_FORMAT ": reads [%d, %d) for [%g, %g)", length, scaled_length,
        s.start, s.start + s.length, first, last);
}

Test(stage_resize, cover_spans_of_thin_strips_stay_inside_the_source)
{
    for (size_t i = 0; i < G_N_ELEMENTS(strips); i++)
        for (int fit_w = 0; fit_w < 2; fit_w++) {
            gal_resize_plan p =
                plan(GAL_FIT_COVER, 1080, 1350, TRUE, strips[i][0], strips[i][1]);
            int length = fit_w ? strips[i][0] : strips[i][1];
            gint64 scaled = fit_w ? p.width : p.height;
            int keep = fit_w ? p.crop_width : p.crop_height;

            if (!keep)
                continue;
            /* The window at the start, the middle and the end. */
            check_span(length, scaled, 0, keep);
            check_span(length, scaled, (scaled - keep) / 2, keep);
            check_span(length, scaled, scaled - keep, keep);
        }
    /* Shrinking too, and odd ratios. */
    check_span(4000, 1800, 360, 1080);
    check_span(4001, 1800, 0, 1080);
    check_span(641, 2599, 759, 1080);
    check_span(70001, 10800154, 5399402, 1350);
}

Test(stage_resize, a_one_pixel_strip_keeps_its_fraction_of_a_row)
{
    gal_resize_span s;

    /* 1x5000 covering 1080x1350: 1.25 source rows, 2499.375 to 2500.625,
     * read with 5 rows either side; scale 1080 is whole, so exact. */
    gal__resize_span(5000, 5400000, 2699325, 1350, &s);
    cr_expect_eq(s.start, 2494);
    cr_expect_eq(s.length, 12);
    cr_expect_eq(s.scaled, 12 * 1080);
    cr_expect_eq(s.offset, 2699325 - 2494 * 1080);
    /* Its one column becomes the whole width. */
    gal__resize_span(1, 1080, 0, 1080, &s);
    cr_expect_eq(s.start, 0);
    cr_expect_eq(s.length, 1);
    cr_expect_eq(s.scaled, 1080);
    cr_expect_eq(s.offset, 0);
    /* No scaling: exactly the kept pixels. */
    gal__resize_span(640, 640, 100, 268, &s);
    cr_expect_eq(s.start, 100);
    cr_expect_eq(s.length, 268);
    cr_expect_eq(s.scaled, 268);
}

Test(stage_resize, spans_of_an_ordinary_enlargement_scale_the_whole_axis)
{
    gal_resize_span s;

    /* 640x335 covering 1080x1350 is 2579x1350: 2579/640 has no smaller
     * step, so the whole width is read, as the whole photo scaled was. */
    gal__resize_span(640, 2579, 749, 1080, &s);
    cr_expect_eq(s.start, 0);
    cr_expect_eq(s.length, 640);
    cr_expect_eq(s.scaled, 2579);
    cr_expect_eq(s.offset, 749);
}

/* The stage over a gradient strip, `yaml` options: exactly `w` x `h`. */
static VipsImage *
run_strip(const char *yaml, int in_w, int in_h, int w, int h)
{
    VipsImage *out = gal_test_run_stage("resize", yaml, gal_test_gradient(in_w, in_h));

    cr_assert_eq(out->Xsize, w, "%dx%d %s: width %d", in_w, in_h, yaml, out->Xsize);
    cr_assert_eq(out->Ysize, h, "%dx%d %s: height %d", in_w, in_h, yaml, out->Ysize);
    return out;
}

static double
band_at(VipsImage *image, int x, int y, int band)
{
    double *vec;
    double v;
    int n;

    cr_assert_eq(vips_getpoint(image, &vec, &n, x, y, NULL), 0);
    v = vec[band];
    g_free(vec);
    return v;
}

Test(stage_resize, every_crop_of_every_strip_gives_exactly_the_box)
{
    static const char *const crops[] = { "centre", "entropy", "attention" };
    static const int shapes[][2] = { { 1, 5000 }, { 5000, 1 }, { 4, 1000 }, { 1000, 4 },
        { 2, 3 }, { 1, 1 } };

    for (size_t c = 0; c < G_N_ELEMENTS(crops); c++)
        for (size_t i = 0; i < G_N_ELEMENTS(shapes); i++) {
            g_autofree char *yaml = g_strdup_printf(
                "{width: 1080, height: 1350, fit: cover, crop: %s, upscale: true}", crops[c]);
            VipsImage *out = run_strip(yaml, shapes[i][0], shapes[i][1], 1080, 1350);

            cr_expect_eq(out->Bands, 3);
            g_object_unref(out);
        }
}

Test(stage_resize, centre_crop_of_a_strip_is_its_middle)
{
    /* The gradient's red is 255 * x / (width - 1): the middle of 5000x1 is
     * 127.5, and the 1.25 source columns kept barely change it. */
    VipsImage *out = run_strip("{width: 1080, height: 1350, fit: cover, upscale: true}", 5000, 1,
        1080, 1350);

    cr_expect(fabs(band_at(out, 0, 675, 0) - 127.5) <= 1.0, "red %g", band_at(out, 0, 675, 0));
    cr_expect(fabs(band_at(out, 1079, 675, 0) - 127.5) <= 1.0, "red %g",
        band_at(out, 1079, 675, 0));
    g_object_unref(out);
    /* 4x1000: green is 255 * y / 999; the middle five rows of 1000. */
    out = run_strip("{width: 1080, height: 1350, fit: cover, upscale: true}", 4, 1000, 1080, 1350);
    cr_expect(fabs(band_at(out, 540, 675, 1) - 127.5) <= 1.0, "green %g",
        band_at(out, 540, 675, 1));
    /* All four columns, left to right. */
    cr_expect_lt(band_at(out, 10, 675, 0), 20);
    cr_expect_gt(band_at(out, 1070, 675, 0), 235);
    g_object_unref(out);
}

/* A grey strip with a red patch at x, y, w x h. */
static VipsImage *
strip_with_patch(int width, int height, int x, int y, int w, int h)
{
    VipsImage *grey, *lifted, *scene, *patch;
    double red[3] = { 255, 0, 0 };

    cr_assert_eq(vips_black(&grey, width, height, "bands", 3, NULL), 0);
    cr_assert_eq(vips_linear1(grey, &lifted, 1, 128, NULL), 0);
    g_object_unref(grey);
    cr_assert_eq(vips_cast_uchar(lifted, &grey, NULL), 0);
    g_object_unref(lifted);
    cr_assert_eq(vips_copy(grey, &scene, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    g_object_unref(grey);
    patch = vips_image_copy_memory(scene);
    g_object_unref(scene);
    cr_assert_eq(vips_draw_rect(patch, red, 3, x, y, w, h, "fill", TRUE, NULL), 0);
    return patch;
}

Test(stage_resize, attention_finds_the_subject_of_a_thin_strip)
{
    /* Attention's window is five source rows of 1000 (or columns): it
     * must land on the red, far from the middle, in source coordinates. */
    VipsImage *out = gal_test_run_stage("resize",
        "{width: 1080, height: 1350, fit: cover, crop: attention, upscale: true}",
        strip_with_patch(4, 1000, 0, 150, 4, 20));

    cr_assert_eq(out->Ysize, 1350);
    cr_expect(band_at(out, 540, 675, 0) > 200 && band_at(out, 540, 675, 1) < 60,
        "tall strip: the red patch is in the crop (%g,%g)", band_at(out, 540, 675, 0),
        band_at(out, 540, 675, 1));
    g_object_unref(out);
    out = gal_test_run_stage("resize",
        "{width: 1080, height: 1350, fit: cover, crop: attention, upscale: true}",
        strip_with_patch(1000, 4, 800, 0, 20, 4));
    cr_assert_eq(out->Xsize, 1080);
    cr_expect(band_at(out, 540, 675, 0) > 200 && band_at(out, 540, 675, 1) < 60,
        "wide strip: the red patch is in the crop (%g,%g)", band_at(out, 540, 675, 0),
        band_at(out, 540, 675, 1));
    g_object_unref(out);
}

/* The window made from its own source pixels is the window of the whole
 * photo scaled: exactly where the scale is a simple fraction, and otherwise
 * within the end-to-end tolerance (shifted by half a pixel at most). */
static void
check_window_against_whole(int in_w, int in_h, gboolean exact)
{
    VipsImage *in = gal_test_gradient(in_w, in_h);
    VipsImage *memory = vips_image_copy_memory(in);
    VipsImage *tall, *wide, *whole, *window, *out;
    gal_resize_plan p = plan(GAL_FIT_COVER, 1080, 1350, TRUE, in_w, in_h);
    double max_abs, mean_abs;

    cr_assert(p.width * p.height < 50000000, "the reference must stay small");
    /* Each enlarging kernel (resize.kernel), the default first. */
    for (gal_kernel k = GAL_KERNEL_LANCZOS3; k <= GAL_KERNEL_CATMULL_ROM; k++) {
        const char *name = k == GAL_KERNEL_LANCZOS3 ? "lanczos3" : "catmull-rom";
        g_autofree char *opts = g_strdup_printf(
            "{width: 1080, height: 1350, fit: cover, upscale: true, kernel: %s}", name);

        cr_assert_eq(gal__scale_rows_with(memory, (int) p.height, k, &tall), 0);
        cr_assert_eq(gal__scale_columns_with(tall, (int) p.width, k, &wide), 0);
        whole = vips_image_copy_memory(wide);
        cr_assert_eq(vips_extract_area(whole, &window, (int) (p.width - 1080) / 2,
                         (int) (p.height - 1350) / 2, 1080, 1350, NULL),
            0);
        out = gal_test_run_stage("resize", opts, g_object_ref(in));
        cr_assert_eq(gal_test_diff(out, window, &max_abs, &mean_abs), 0);
        cr_expect_leq(max_abs, exact ? 0 : 2, "%dx%d %s: max abs diff %g", in_w, in_h, name,
            max_abs);
        cr_expect_leq(mean_abs, exact ? 0 : 0.5, "%dx%d %s: mean abs diff %g", in_w, in_h, name,
            mean_abs);
        g_object_unref(out);
        g_object_unref(window);
        g_object_unref(whole);
        g_object_unref(wide);
        g_object_unref(tall);
    }
    g_object_unref(in);
    g_object_unref(memory);
}

Test(stage_resize, a_window_scaled_alone_matches_the_whole_photo_scaled)
{
    check_window_against_whole(40, 300, TRUE);   /* rows: 300 -> 8100, 27 each */
    check_window_against_whole(300, 40, TRUE);   /* columns likewise */
    check_window_against_whole(640, 335, TRUE);  /* 2579 / 640: the whole width */
    check_window_against_whole(37, 301, FALSE);  /* 8786 / 301: no whole step */
}

/* Enlargement (issue 13): a real interpolator, not pixel replication. */

/* The share of horizontally neighbouring pixels (all bands) that are
 * identical: 1 for blocks of replicated pixels, low for a smooth
 * enlargement of a photo. */
static double
identical_neighbour_share(VipsImage *image)
{
    g_autoptr(VipsImage) left = NULL;
    g_autoptr(VipsImage) right = NULL;
    g_autoptr(VipsImage) same = NULL;
    g_autoptr(VipsImage) all = NULL;
    double mean;

    cr_assert_eq(vips_extract_area(image, &left, 0, 0, image->Xsize - 1, image->Ysize, NULL), 0);
    cr_assert_eq(vips_extract_area(image, &right, 1, 0, image->Xsize - 1, image->Ysize, NULL), 0);
    cr_assert_eq(vips_relational(left, right, &same, VIPS_OPERATION_RELATIONAL_EQUAL, NULL), 0);
    cr_assert_eq(vips_bandbool(same, &all, VIPS_OPERATION_BOOLEAN_AND, NULL), 0);
    cr_assert_eq(vips_avg(all, &mean, NULL), 0);
    return mean / 255.0;
}

/* Peak signal-to-noise ratio of `a` against `ref`, in dB (same size). */
static double
psnr(VipsImage *a, VipsImage *ref)
{
    g_autoptr(VipsImage) d = NULL;
    g_autoptr(VipsImage) sq = NULL;
    double mse;

    cr_assert_eq(vips_subtract(a, ref, &d, NULL), 0);
    cr_assert_eq(vips_multiply(d, d, &sq, NULL), 0);
    cr_assert_eq(vips_avg(sq, &mse, NULL), 0);
    return mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : 99;
}

/* A real photo (trip-01, 640x640), shrunk to `size` px square, in memory. */
static VipsImage *
small_photo(int size)
{
    g_autofree char *path = g_build_filename(GAL_FIXTURES_DIR, "trip", "trip-01.jpg", NULL);
    g_autoptr(VipsImage) photo = gal_test_load_image(path, FALSE);
    g_autoptr(VipsImage) small = NULL;

    cr_assert_eq(vips_resize(photo, &small, (double) size / photo->Xsize, NULL), 0);
    return vips_image_copy_memory(small);
}

/* The centred bicubic (Catmull-Rom) enlargement of `in` by `scale`, cut
 * like cover's centre crop to w x h: bench/benchtool.c's reference. */
static VipsImage *
centred_bicubic(VipsImage *in, double scale, int w, int h)
{
    VipsInterpolate *bicubic = vips_interpolate_new("bicubic");
    int sw = (int) lround(in->Xsize * scale), sh = (int) lround(in->Ysize * scale);
    g_autoptr(VipsArrayInt) area = vips_array_int_newv(4, 0, 0, sw, sh);
    g_autoptr(VipsImage) big = NULL;
    VipsImage *out;

    cr_assert_eq(vips_affine(in, &big, scale, 0, 0, scale, "interpolate", bicubic, "odx",
                     (scale - 1) / 2, "ody", (scale - 1) / 2, "oarea", area, "extend",
                     VIPS_EXTEND_COPY, NULL),
        0);
    g_object_unref(bicubic);
    cr_assert_eq(vips_extract_area(big, &out, (sw - w) / 2, (sh - h) / 2, w, h, NULL), 0);
    return out;
}

Test(stage_resize, enlarging_interpolates_instead_of_repeating_pixels)
{
    /* The case: a 215 px photo covering 1080x1350 (6.28x). */
    g_autoptr(VipsImage) in = small_photo(215);
    g_autoptr(VipsImage) out = gal_test_run_stage("resize",
        "{width: 1080, height: 1350, fit: cover, upscale: true}", g_object_ref(in));
    g_autoptr(VipsImage) cubic = NULL;
    g_autoptr(VipsImage) cubic_window = NULL;
    g_autoptr(VipsImage) reference = NULL;
    double scale = 1350.0 / 215, mine, theirs;

    cr_assert_eq(out->Xsize, 1080);
    cr_assert_eq(out->Ysize, 1350);
    cr_assert_eq(vips_resize(in, &cubic, scale, "kernel", VIPS_KERNEL_CUBIC, NULL), 0);
    cr_assert_eq(vips_extract_area(cubic, &cubic_window, (cubic->Xsize - 1080) / 2,
                     (cubic->Ysize - 1350) / 2, 1080, 1350, NULL),
        0);
    mine = identical_neighbour_share(out);
    theirs = identical_neighbour_share(cubic_window);
    cr_expect_leq(mine, 1.25 * theirs, "identical neighbours: %.1f%%, bicubic %.1f%%",
        100 * mine, 100 * theirs);
    reference = centred_bicubic(in, scale, 1080, 1350);
    cr_expect_geq(psnr(out, reference), 40, "PSNR against a centred bicubic: %.2f dB",
        psnr(out, reference));
}

Test(stage_resize, an_exact_double_is_not_nearest_neighbour)
{
    g_autoptr(VipsImage) in = small_photo(300);
    g_autoptr(VipsImage) out =
        gal_test_run_stage("resize", "{width: 600, upscale: true}", g_object_ref(in));
    g_autoptr(VipsImage) nearest = NULL;
    g_autoptr(VipsImage) reference = centred_bicubic(in, 2.0, 600, 600);
    double max_abs, mean_abs;

    cr_assert_eq(vips_zoom(in, &nearest, 2, 2, NULL), 0);
    cr_assert_eq(gal_test_diff(out, nearest, &max_abs, &mean_abs), 0);
    cr_expect_gt(mean_abs, 1.0, "2x is pixel replication (mean diff %.3f)", mean_abs);
    cr_expect_geq(psnr(out, reference), 40, "PSNR against a centred bicubic: %.2f dB",
        psnr(out, reference));
}

/* Output sharpening (output.sharpen; resample.c), issue 13. */

/* Mean Sobel magnitude of the image's first band: its edge energy. */
static double
edge_energy(VipsImage *image)
{
    g_autoptr(VipsImage) band = NULL;
    g_autoptr(VipsImage) edges = NULL;
    double mean;

    cr_assert_eq(vips_extract_band(image, &band, 0, NULL), 0);
    cr_assert_eq(vips_sobel(band, &edges, NULL), 0);
    cr_assert_eq(vips_avg(edges, &mean, NULL), 0);
    return mean;
}

static VipsImage *
sharpened_for(VipsImage *in, gal_sharpen level, gal_medium medium, int ppi)
{
    VipsImage *out, *memory;

    cr_assert_eq(gal__sharpen(in, level, medium, ppi, &out), 0, "%s", vips_error_buffer());
    cr_assert_eq(out->Xsize, in->Xsize);
    cr_assert_eq(out->Bands, in->Bands);
    cr_assert_eq(out->BandFmt, VIPS_FORMAT_UCHAR);
    memory = vips_image_copy_memory(out);
    g_object_unref(out);
    return memory;
}

static VipsImage *
sharpened(VipsImage *in, gal_sharpen level)
{
    return sharpened_for(in, level, GAL_MEDIUM_SCREEN, 300);
}

Test(stage_resize, each_sharpening_level_raises_edge_energy)
{
    /* A real photo made small, as a downscaled output is. */
    g_autoptr(VipsImage) in = small_photo(400);
    double previous = edge_energy(in);

    for (gal_sharpen level = GAL_SHARPEN_LOW; level <= GAL_SHARPEN_HIGH; level++) {
        g_autoptr(VipsImage) out = sharpened(in, level);
        double energy = edge_energy(out);

        cr_expect_gt(energy, previous * 1.005, "level %d: Sobel mean %.3f after %.3f", level,
            energy, previous);
        previous = energy;
    }
}

/* A soft vertical step from 64 to 192 grey at x = 100 of 200 x 40, as a
 * downscale leaves it. */
static VipsImage *
soft_step(void)
{
    g_autoptr(VipsImage) step = NULL;
    g_autoptr(VipsImage) soft = NULL;
    VipsImage *in = NULL;
    {
        g_autoptr(VipsImage) xy = NULL;
        g_autoptr(VipsImage) x = NULL;
        g_autoptr(VipsImage) right = NULL;
        g_autoptr(VipsImage) level = NULL;
        g_autoptr(VipsImage) grey = NULL;
        VipsImage *bands[3];

        cr_assert_eq(vips_xyz(&xy, 200, 40, NULL), 0);
        cr_assert_eq(vips_extract_band(xy, &x, 0, NULL), 0);
        cr_assert_eq(vips_more_const1(x, &right, 99.5, NULL), 0);
        cr_assert_eq(vips_linear1(right, &level, 128.0 / 255, 64, NULL), 0);
        cr_assert_eq(vips_cast_uchar(level, &grey, NULL), 0);
        bands[0] = bands[1] = bands[2] = grey;
        cr_assert_eq(vips_bandjoin(bands, &step, 3, NULL), 0);
        cr_assert_eq(vips_gaussblur(step, &soft, 0.7, NULL), 0);
        cr_assert_eq(vips_copy(soft, &in, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    }
    return in;
}

Test(stage_resize, sharpening_a_step_edge_leaves_a_bounded_halo)
{
    g_autoptr(VipsImage) in = soft_step();

    for (gal_sharpen level = GAL_SHARPEN_LOW; level <= GAL_SHARPEN_HIGH; level++) {
        g_autoptr(VipsImage) out = sharpened(in, level);
        double lowest = 255, highest = 0;

        for (int x = 0; x < 200; x++) {
            double v = band_at(out, x, 20, 0), was = band_at(in, x, 20, 0);

            lowest = MIN(lowest, v);
            highest = MAX(highest, v);
            /* The halo is at most 3 px wide either side of the edge. */
            if (x < 96 || x > 103)
                cr_expect_leq(fabs(v - was), 1, "level %d: x=%d changed %g -> %g", level, x,
                    was, v);
        }
        /* Overshoot: at most 24 of 255 on a 128 step, even at high. */
        cr_expect_geq(lowest, 64 - 24, "level %d: darkest %g", level, lowest);
        cr_expect_leq(highest, 192 + 24, "level %d: brightest %g", level, highest);
    }
}

/* The darkest and brightest of the step's row 20 sharpened so. */
static void
step_extremes(VipsImage *in, gal_sharpen level, gal_medium medium, int ppi, double *lowest,
    double *highest)
{
    g_autoptr(VipsImage) out = sharpened_for(in, level, medium, ppi);

    *lowest = 255;
    *highest = 0;
    for (int x = 0; x < 200; x++) {
        *lowest = MIN(*lowest, band_at(out, x, 20, 0));
        *highest = MAX(*highest, band_at(out, x, 20, 0));
    }
}

/* Print sharpening (issue 43): stronger than the screen's at each amount,
 * matte most, its radius following output.ppi; the halo still bounded.
 * The figures are docs/presets.md's table (criterion --verbose logs them). */
Test(stage_resize, print_sharpening_is_stronger_matte_most_and_follows_ppi)
{
    static const char *const media[] = { "screen", "matte", "glossy" };
    g_autoptr(VipsImage) photo = small_photo(400);
    g_autoptr(VipsImage) step = soft_step();
    double none = edge_energy(photo);

    for (gal_sharpen level = GAL_SHARPEN_LOW; level <= GAL_SHARPEN_HIGH; level++) {
        double energy[3];

        for (gal_medium m = GAL_MEDIUM_SCREEN; m <= GAL_MEDIUM_GLOSSY; m++) {
            g_autoptr(VipsImage) out = sharpened_for(photo, level, m, 300);
            double lowest, highest;

            energy[m] = edge_energy(out);
            step_extremes(step, level, m, 300, &lowest, &highest);
            cr_log_info("%s level %d at 300 ppi: Sobel %.2f (%+.1f%%), step %g -> %g", media[m],
                level, energy[m], 100 * (energy[m] / none - 1), lowest, highest);
            cr_expect_geq(lowest, 64 - 45, "%s level %d: darkest %g", media[m], level, lowest);
            cr_expect_leq(highest, 192 + 45, "%s level %d: brightest %g", media[m], level,
                highest);
        }
        cr_expect_gt(energy[GAL_MEDIUM_MATTE], energy[GAL_MEDIUM_GLOSSY], "level %d", level);
        cr_expect_gt(energy[GAL_MEDIUM_GLOSSY], energy[GAL_MEDIUM_SCREEN], "level %d", level);
    }
    {
        /* A smaller radius at a lower ppi: the same photo sharpened so
         * differs, and less of it (a finer halo). */
        g_autoptr(VipsImage) at300 = sharpened_for(photo, GAL_SHARPEN_STANDARD,
            GAL_MEDIUM_MATTE, 300);
        g_autoptr(VipsImage) at150 = sharpened_for(photo, GAL_SHARPEN_STANDARD,
            GAL_MEDIUM_MATTE, 150);
        double max_abs, mean_abs;

        cr_assert_eq(gal_test_diff(at300, at150, &max_abs, &mean_abs), 0);
        cr_expect_gt(max_abs, 2, "300 and 150 ppi sharpen alike (max %g)", max_abs);
        cr_log_info("matte standard: 150 ppi vs 300 ppi differ by mean %.2f, max %g",
            mean_abs, max_abs);
    }
}

/* ---- Lightroom's sizing rules (issue 43) ------------------------------------------------- */

#define TEST_YAML GAL_TEST_TMP "/test.yaml"

/* The size a resize of `opts` makes of a `w` x `h` gradient. */
static void
stage_size(const char *opts, int w, int h, int *out_w, int *out_h)
{
    g_autoptr(VipsImage) out = gal_test_run_stage("resize", opts, gal_test_gradient(w, h));

    *out_w = out->Xsize;
    *out_h = out->Ysize;
}

Test(stage_resize, long_and_short_edge_follow_the_photos_shape)
{
    static const struct {
        const char *opts;
        int in_w, in_h, w, h;
    } cases[] = {
        { "{long-edge: 300}", 600, 400, 300, 200 },
        { "{long-edge: 300}", 400, 600, 200, 300 },
        { "{long-edge: 300}", 500, 500, 300, 300 },
        { "{short-edge: 100}", 600, 400, 150, 100 },
        { "{short-edge: 100}", 400, 600, 100, 150 },
        /* Smaller already: kept, as Lightroom's Don't Enlarge (the default). */
        { "{long-edge: 900}", 600, 400, 600, 400 },
        { "{long-edge: 900, dont-enlarge: false}", 600, 400, 900, 600 },
        { "{long-edge: 900, upscale: true}", 400, 600, 600, 900 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        int w, h;

        stage_size(cases[i].opts, cases[i].in_w, cases[i].in_h, &w, &h);
        cr_expect(w == cases[i].w && h == cases[i].h, "%s on %dx%d: %dx%d, not %dx%d",
            cases[i].opts, cases[i].in_w, cases[i].in_h, w, h, cases[i].w, cases[i].h);
    }
}

Test(stage_resize, megapixels_and_percent_keep_the_shape)
{
    int w, h;

    stage_size("{megapixels: 0.06}", 600, 400, &w, &h); /* 300 x 200 = 0.06 MP */
    cr_expect(w == 300 && h == 200, "0.06 MP: %dx%d", w, h);
    stage_size("{megapixels: 0.06}", 401, 599, &w, &h);
    cr_expect(fabs(w * (double) h - 60000) < 600 && abs(w * 599 - h * 401) < 600,
        "0.06 MP of a portrait: %dx%d", w, h);
    stage_size("{megapixels: 1}", 600, 400, &w, &h); /* would enlarge: kept */
    cr_expect(w == 600 && h == 400, "1 MP of 0.24 MP, not enlarged: %dx%d", w, h);
    stage_size("{percent: 25}", 600, 400, &w, &h);
    cr_expect(w == 150 && h == 100, "25%%: %dx%d", w, h);
    stage_size("{percent: 150, upscale: true}", 200, 100, &w, &h);
    cr_expect(w == 300 && h == 150, "150%%: %dx%d", w, h);
}

/* The size the preset's first stage asks the decoder for. */
static void
load_size_of(const char *opts, int w, int h, int *load_w, int *load_h)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - resize: %s\n", opts);
    gal_preset *preset = gal_test_load_ok(yaml);
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);

    st->def->load_size(&sc, w, h, load_w, load_h);
    gal_preset_free(preset);
}

Test(stage_resize, the_decoder_shrinks_for_the_new_rules_but_a_percent_is_taken_once)
{
    int w, h;

    load_size_of("{long-edge: 1000}", 3000, 4000, &w, &h);
    cr_expect(w == 750 && h == 1000, "long-edge: %dx%d", w, h);
    load_size_of("{megapixels: 3}", 3000, 4000, &w, &h);
    cr_expect(w == 1500 && h == 2000, "megapixels: %dx%d", w, h);
    /* The stage takes its percent of what it gets: the photo whole. */
    load_size_of("{percent: 50}", 3000, 4000, &w, &h);
    cr_expect(w == 3000 && h == 4000, "percent: %dx%d", w, h);
}

/* The first error of a resize of `opts` (on line 3; its '{' at column 13). */
static void
expect_resize_error(const char *opts, int col, const char *key, const char *msg_part)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - resize: %s\n", opts);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);

    cr_assert_null(preset, "%s loaded", opts);
    cr_assert_geq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, TEST_YAML, 3, col, key, msg_part);
}

Test(stage_resize, one_sizing_rule_per_stage_with_the_second_located)
{
    expect_resize_error("{width: 800, long-edge: 1000}", 37, "resize",
        "width and long-edge are two sizing rules");
    expect_resize_error("{height: 800, percent: 50}", 36, "resize",
        "height and percent are two sizing rules");
    expect_resize_error("{short-edge: 8, megapixels: 2}", 41, "resize",
        "short-edge and megapixels are two sizing rules");
    expect_resize_error("{long-edge: 800, fit: cover}", 35, "resize.fit",
        "long-edge keeps the photo's shape (fit: inside); fit: cover needs width and height");
    expect_resize_error("{long-edge: 8, upscale: true, dont-enlarge: true}", 57,
        "resize.dont-enlarge", "upscale: true and dont-enlarge: true disagree");
    expect_resize_error("{percent: 200}", 23, "resize.percent",
        "200% enlarges, which this resize does not: add upscale: true");
    expect_resize_error("{dont-enlarge: false}", 5, "resize",
        "give a width, a height or both (or long-edge, short-edge, megapixels or percent)");
    expect_resize_error("{megapixels: 0}", 26, "resize.megapixels", "must be between 0.01 and");
}

/* The recipe line of `opts`'s resize that starts with `prefix`, or NULL. */
static char *
recipe_line(const char *opts, const char *prefix)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - resize: %s\n", opts);
    gal_preset *preset = gal_test_load_ok(yaml);
    g_autoptr(GPtrArray) keys = gal__preset_keys(preset, GAL_TEST_TMP);
    char *found = NULL;

    for (guint i = 0; i < keys->len && !found; i++)
        if (g_str_has_prefix(keys->pdata[i], prefix))
            found = g_strdup(keys->pdata[i]);
    gal_preset_free(preset);
    return found;
}

Test(stage_resize, new_rules_are_in_the_recipe_only_when_given)
{
    static const char *const later[] = { "resize.long-edge=", "resize.short-edge=",
        "resize.megapixels=", "resize.percent=", "resize.dont-enlarge=", "resize.kernel=",
        "output.profile=" };
    g_autofree char *edge = recipe_line("{long-edge: 900}", "resize.long-edge=");
    g_autofree char *enlarge = recipe_line("{width: 9, dont-enlarge: false}", "resize.dont-");
    g_autofree char *percent = recipe_line("{percent: 40}", "resize.percent=");

    /* A preset of before keeps its recipe, so its outputs stay up to date. */
    for (size_t i = 0; i < G_N_ELEMENTS(later); i++) {
        g_autofree char *line = recipe_line("{width: 900}", later[i]);

        cr_expect_null(line, "unused, yet in the recipe: %s", line);
    }
    cr_expect_str_eq(edge ? edge : "", "resize.long-edge=900");
    cr_expect_str_eq(enlarge ? enlarge : "", "resize.dont-enlarge=false");
    cr_expect_str_eq(percent ? percent : "", "resize.percent=40");
}

/* ---- resize.kernel (issue 43) ------------------------------------------------------------- */

/* `in` enlarged to w x h with `kernel`, rows first, in memory. */
static VipsImage *
enlarged(VipsImage *in, int w, int h, gal_kernel kernel)
{
    g_autoptr(VipsImage) rows = NULL;
    g_autoptr(VipsImage) both = NULL;

    cr_assert_eq(gal__scale_rows_with(in, h, kernel, &rows), 0);
    cr_assert_eq(gal__scale_columns_with(rows, w, kernel, &both), 0);
    return vips_image_copy_memory(both);
}

/* Why lanczos3 is the default: a photo shrunk to a third and enlarged back
 * comes closer to itself than with Catmull-Rom (docs/presets.md has the
 * figures on twelve photos). */
Test(stage_resize, lanczos3_enlarges_closer_to_the_photo_than_catmull_rom)
{
    g_autoptr(VipsImage) photo = small_photo(600);
    g_autoptr(VipsImage) third = NULL;
    g_autoptr(VipsImage) small = NULL;
    g_autoptr(VipsImage) lanczos = NULL;
    g_autoptr(VipsImage) cubic = NULL;
    double lanczos_max, lanczos_mean, cubic_max, cubic_mean;

    cr_assert_eq(vips_resize(photo, &third, 1.0 / 3, NULL), 0);
    small = vips_image_copy_memory(third);
    lanczos = enlarged(small, photo->Xsize, photo->Ysize, GAL_KERNEL_LANCZOS3);
    cubic = enlarged(small, photo->Xsize, photo->Ysize, GAL_KERNEL_CATMULL_ROM);
    cr_assert_eq(gal_test_diff(lanczos, photo, &lanczos_max, &lanczos_mean), 0);
    cr_assert_eq(gal_test_diff(cubic, photo, &cubic_max, &cubic_mean), 0);
    cr_log_info("x3 back: lanczos3 mean %.3f, catmull-rom mean %.3f", lanczos_mean, cubic_mean);
    cr_expect_lt(lanczos_mean, cubic_mean, "lanczos3 %.3f, catmull-rom %.3f", lanczos_mean,
        cubic_mean);
}

/* Lanczos 3 weighs colours by alpha as the bicubic does: a transparent
 * red beside opaque blue leaves no red in the blue. */
Test(stage_resize, lanczos3_keeps_a_transparent_colour_out_of_its_neighbours)
{
    static double clear_red[4] = { 255, 0, 0, 0 }, blue[4] = { 0, 0, 255, 255 };
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) cast = NULL;
    g_autoptr(VipsImage) tagged = NULL;
    g_autoptr(VipsImage) canvas = NULL;
    g_autoptr(VipsImage) out = NULL;

    cr_assert_eq(vips_black(&black, 20, 8, "bands", 4, NULL), 0);
    cr_assert_eq(vips_cast_uchar(black, &cast, NULL), 0);
    cr_assert_eq(vips_copy(cast, &tagged, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    canvas = vips_image_copy_memory(tagged);
    cr_assert_eq(vips_draw_rect(canvas, clear_red, 4, 0, 0, 10, 8, "fill", TRUE, NULL), 0);
    cr_assert_eq(vips_draw_rect(canvas, blue, 4, 10, 0, 10, 8, "fill", TRUE, NULL), 0);
    out = enlarged(canvas, 80, 32, GAL_KERNEL_LANCZOS3);
    for (int x = 40; x < 80; x++)
        if (band_at(out, x, 16, 3) > 0)
            cr_expect_leq(band_at(out, x, 16, 0), 2, "x=%d: red %g bled into blue (alpha %g)",
                x, band_at(out, x, 16, 0), band_at(out, x, 16, 3));
}
