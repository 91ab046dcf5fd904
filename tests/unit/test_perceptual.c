/* The perceptual metric (perceptual.c, issue 42): MS-SSIM on lightness in
 * decibels. Identical pictures score perfect; more blur, coarser JPEG or
 * stronger noise score lower; the same pixels give the same score bit for
 * bit; grey, alpha and pictures too small for a window are compared too. */
#include <criterion/criterion.h>
#include <math.h>

#include "gal_test.h"
#include "perceptual.h"

TestSuite(perceptual, .init = gal_test_setup, .fini = gal_test_teardown);

/* A fixture photo (trip-01: grass, sky, a dark box with white digits) in
 * memory. */
static VipsImage *
photo(void)
{
    g_autoptr(VipsImage) loaded = gal_test_load_image(GAL_FIXTURES_DIR "/trip/trip-01.jpg", TRUE);
    VipsImage *memory = vips_image_copy_memory(loaded);

    cr_assert_not_null(memory, "%s", vips_error_buffer());
    return memory;
}

static double
score_of(VipsImage *reference, VipsImage *image)
{
    gal_error err = { 0 };
    g_autoptr(gal_percept_ref) ref = gal__percept_ref_new(reference, &err);
    double score = -1;

    cr_assert_not_null(ref, "%s", err.msg);
    cr_assert_eq(gal__percept_score(ref, image, &score, NULL, &err), 0, "%s", err.msg);
    return score;
}

static VipsImage *
blurred(VipsImage *in, double sigma)
{
    VipsImage *blur = NULL, *cast = NULL;

    cr_assert_eq(vips_gaussblur(in, &blur, sigma, NULL), 0, "%s", vips_error_buffer());
    cr_assert_eq(vips_cast_uchar(blur, &cast, NULL), 0, "%s", vips_error_buffer());
    g_object_unref(blur);
    return cast;
}

static VipsImage *
as_jpeg(VipsImage *in, int quality)
{
    void *buf = NULL;
    size_t len = 0;
    VipsImage *decoded, *memory;

    cr_assert_eq(vips_jpegsave_buffer(in, &buf, &len, "Q", quality, NULL), 0, "%s",
        vips_error_buffer());
    decoded = vips_image_new_from_buffer(buf, len, "", NULL);
    cr_assert_not_null(decoded, "%s", vips_error_buffer());
    memory = vips_image_copy_memory(decoded);
    g_object_unref(decoded);
    g_free(buf);
    return memory;
}

Test(perceptual, identical_pictures_score_perfect)
{
    g_autoptr(VipsImage) a = photo();
    g_autoptr(VipsImage) b = photo();
    gal_error err = { 0 };
    g_autoptr(gal_percept_ref) ref = gal__percept_ref_new(a, &err);
    double score = 0, ms_ssim = 0;

    cr_assert_not_null(ref, "%s", err.msg);
    cr_assert_eq(gal__percept_score(ref, b, &score, &ms_ssim, &err), 0, "%s", err.msg);
    cr_assert_float_eq(ms_ssim, 1.0, 1e-9);
    cr_assert_eq(score, GAL_PERCEPT_PERFECT);
}

Test(perceptual, stronger_blur_scores_worse)
{
    g_autoptr(VipsImage) a = photo();
    g_autoptr(VipsImage) soft = blurred(a, 0.8);
    g_autoptr(VipsImage) softer = blurred(a, 1.6);
    g_autoptr(VipsImage) softest = blurred(a, 3.2);
    double s1 = score_of(a, soft), s2 = score_of(a, softer), s3 = score_of(a, softest);

    cr_assert_lt(s1, GAL_PERCEPT_PERFECT);
    cr_assert_gt(s1, s2, "blur 0.8: %g, blur 1.6: %g", s1, s2);
    cr_assert_gt(s2, s3, "blur 1.6: %g, blur 3.2: %g", s2, s3);
}

Test(perceptual, coarser_jpeg_scores_worse)
{
    g_autoptr(VipsImage) a = photo();
    g_autoptr(VipsImage) q90 = as_jpeg(a, 90);
    g_autoptr(VipsImage) q60 = as_jpeg(a, 60);
    g_autoptr(VipsImage) q20 = as_jpeg(a, 20);
    double s90 = score_of(a, q90), s60 = score_of(a, q60), s20 = score_of(a, q20);

    cr_assert_gt(s90, s60, "q90: %g, q60: %g", s90, s60);
    cr_assert_gt(s60, s20, "q60: %g, q20: %g", s60, s20);
}

/* The quality search's same bytes for any -j rest on this. */
Test(perceptual, same_pixels_same_score_bit_for_bit)
{
    g_autoptr(VipsImage) a = photo();
    g_autoptr(VipsImage) q50 = as_jpeg(a, 50);
    double s1 = score_of(a, q50), s2 = score_of(a, q50);

    cr_assert(memcmp(&s1, &s2, sizeof s1) == 0, "%.17g against %.17g", s1, s2);
}

/* A grey picture (one band) is compared as its lightness too. */
Test(perceptual, grey_pictures_compare)
{
    g_autoptr(VipsImage) grey = gal_test_noise(200, 150, 1, 40.0, 3);
    g_autoptr(VipsImage) soft = NULL;
    g_autoptr(VipsImage) flat = NULL;

    cr_assert_eq(vips_extract_band(grey, &flat, 0, NULL), 0, "%s", vips_error_buffer());
    soft = blurred(flat, 2.0);
    cr_assert_eq(flat->Bands, 1);
    cr_assert_eq(score_of(flat, flat), GAL_PERCEPT_PERFECT);
    cr_assert_lt(score_of(flat, soft), GAL_PERCEPT_PERFECT);
}

Test(perceptual, alpha_is_left_out)
{
    g_autoptr(VipsImage) a = photo();
    g_autoptr(VipsImage) with_alpha = NULL;
    g_autoptr(VipsImage) half = NULL;

    cr_assert_eq(vips_bandjoin_const1(a, &with_alpha, 255, NULL), 0, "%s", vips_error_buffer());
    cr_assert_eq(vips_bandjoin_const1(a, &half, 128, NULL), 0, "%s", vips_error_buffer());
    cr_assert_eq(score_of(with_alpha, half), GAL_PERCEPT_PERFECT);
}

Test(perceptual, a_picture_smaller_than_a_window_is_compared_whole)
{
    g_autoptr(VipsImage) a = photo();
    g_autoptr(VipsImage) tiny = NULL;
    g_autoptr(VipsImage) darker = NULL;
    g_autoptr(VipsImage) darker8 = NULL;

    cr_assert_eq(vips_resize(a, &tiny, 12.0 / a->Xsize, NULL), 0, "%s", vips_error_buffer());
    cr_assert_lt(tiny->Xsize, 16);
    cr_assert_eq(vips_linear1(tiny, &darker, 0.6, 0, NULL), 0, "%s", vips_error_buffer());
    cr_assert_eq(vips_cast_uchar(darker, &darker8, NULL), 0, "%s", vips_error_buffer());
    cr_assert_eq(score_of(tiny, tiny), GAL_PERCEPT_PERFECT);
    cr_assert_lt(score_of(tiny, darker8), GAL_PERCEPT_PERFECT);
}

/* A flat grey picture of code value `code`, in memory. */
static VipsImage *
flat_grey(int code)
{
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) grey = NULL;
    g_autoptr(VipsImage) eight = NULL;
    VipsImage *memory;

    cr_assert_eq(vips_black(&black, 32, 32, NULL), 0);
    cr_assert_eq(vips_linear1(black, &grey, 1.0, code, NULL), 0);
    cr_assert_eq(vips_cast_uchar(grey, &eight, NULL), 0);
    cr_assert_not_null(memory = vips_image_copy_memory(eight));
    return memory;
}

/* CIE L* / 100 of an sRGB code value, as the standard defines it. */
static double
exact_lightness(int code)
{
    double v = code / 255.0, y = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);

    return (y > 216.0 / 24389.0 ? 116.0 * cbrt(y) - 16.0 : 24389.0 / 27.0 * y) / 100.0;
}

/* The lightness is computed, not looked up (perceptual.c): two flat
 * pictures differ in their lightness alone (the luminance term of SSIM),
 * so every grey from black to white against a mid grey gives the term of
 * the exact L*, in the dark (linear) part of the curve as in the rest.
 * Within the float noise of the contrast term's variances (2e-4: the
 * lightness itself is within 3e-7 of L* over all of 0..1, checked apart);
 * luminance in place of L* would be off by up to 0.42. */
Test(perceptual, lightness_is_cie_lstar_at_every_grey)
{
    g_autoptr(VipsImage) mid = flat_grey(128);
    gal_error err = { 0 };
    g_autoptr(gal_percept_ref) ref = gal__percept_ref_new(mid, &err);
    double lx = exact_lightness(128), worst = 0;

    cr_assert_not_null(ref, "%s", err.msg);
    for (int code = 0; code < 256; code++) {
        g_autoptr(VipsImage) grey = flat_grey(code);
        double ly = exact_lightness(code), scales[5];
        double expected = (2 * lx * ly + 1e-4) / (lx * lx + ly * ly + 1e-4);

        cr_assert_eq(gal__percept_scales(ref, grey, scales, &err), 2, "%s", err.msg);
        worst = MAX(worst, fabs(scales[0] - expected));
    }
    cr_expect_lt(worst, 5e-4, "%g", worst);
}

Test(perceptual, refuses_a_picture_of_another_size)
{
    g_autoptr(VipsImage) a = photo();
    g_autoptr(VipsImage) b = NULL;
    gal_error err = { 0 };
    g_autoptr(gal_percept_ref) ref = gal__percept_ref_new(a, &err);
    double score;

    cr_assert_eq(vips_crop(a, &b, 0, 0, a->Xsize - 2, a->Ysize, NULL), 0);
    cr_assert_eq(gal__percept_score(ref, b, &score, NULL, &err), -1);
    cr_assert(strstr(err.msg, "against"), "%s", err.msg);
}

/* The sample's tiles are taken across the picture's range of detail: a
 * picture flat above and grainy below gives as many of each, at multiples
 * of the tile size, the same every time. */
Test(perceptual, tiles_are_picked_across_the_range_of_detail)
{
    g_autoptr(VipsImage) flat = NULL;
    g_autoptr(VipsImage) noise = NULL;
    g_autoptr(VipsImage) grainy = NULL;
    g_autoptr(VipsImage) both = NULL;
    g_autoptr(VipsImage) eight = NULL;
    g_autoptr(VipsImage) memory = NULL;
    g_autoptr(gal_percept_ref) ref = NULL;
    gal_error err = { 0 };
    int x[4], y[4], x2[4], y2[4], above = 0;

    cr_assert_eq(vips_black(&flat, 128, 64, NULL), 0);
    cr_assert_eq(vips_gaussnoise(&noise, 128, 64, "sigma", 40.0, "mean", 128.0, NULL), 0);
    cr_assert_eq(vips_linear1(flat, &grainy, 1.0, 128.0, NULL), 0);
    cr_assert_eq(vips_join(grainy, noise, &both, VIPS_DIRECTION_VERTICAL, NULL), 0);
    cr_assert_eq(vips_cast_uchar(both, &eight, NULL), 0);
    cr_assert_not_null(memory = vips_image_copy_memory(eight));
    cr_assert_not_null(ref = gal__percept_ref_new(memory, &err), "%s", err.msg);
    cr_assert_eq(gal__percept_pick_tiles(ref, 32, 4, x, y), 4);
    cr_assert_eq(gal__percept_pick_tiles(ref, 32, 4, x2, y2), 4);
    for (int k = 0; k < 4; k++) {
        cr_expect_eq(x[k] % 32, 0);
        cr_expect_eq(y[k] % 32, 0);
        cr_expect_eq(x[k], x2[k]);
        cr_expect_eq(y[k], y2[k]);
        above += y[k] < 64;
    }
    cr_expect_eq(above, 2, "%d of 4 tiles from the flat half", above);
    /* More tiles than the picture has: all of them. */
    cr_expect_eq(gal__percept_pick_tiles(ref, 64, 4, x, y), 4);
    cr_expect_eq(gal__percept_pick_tiles(ref, 128, 4, x, y), 1);
}
