/* Resize geometry (every fit mode, both orientations of the box, with and
 * without upscale) and the stage's pixels. */
#include <criterion/criterion.h>

#include "gal_test.h"

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
