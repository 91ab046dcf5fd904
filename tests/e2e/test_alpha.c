/* Enlarging a photo with transparency (issue 13): the colour that
 * transparent pixels happen to hold must not bleed into the opaque ones
 * next to them. A PNG whose transparent half hides bright red, next to an
 * opaque white half, enlarged 3x: no pink at the edge. */
#include <criterion/criterion.h>

#include "gal_test.h"

TestSuite(alpha, .init = gal_test_setup, .fini = gal_test_teardown);

/* 40x40 RGBA: the left half (255, 0, 0, 0), the right (255, 255, 255, 255). */
static void
hidden_red_png(const char *path)
{
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) left = NULL;
    g_autoptr(VipsImage) right = NULL;
    g_autoptr(VipsImage) both = NULL;
    g_autoptr(VipsImage) both8 = NULL;
    g_autoptr(VipsImage) srgb = NULL;

    cr_assert_eq(vips_black(&black, 20, 40, "bands", 4, NULL), 0);
    cr_assert_eq(vips_linear(black, &left, (double[]) { 1, 1, 1, 1 },
                     (double[]) { 255, 0, 0, 0 }, 4, NULL),
        0);
    cr_assert_eq(vips_linear1(black, &right, 1, 255, NULL), 0);
    cr_assert_eq(vips_join(left, right, &both, VIPS_DIRECTION_HORIZONTAL, NULL), 0);
    cr_assert_eq(vips_cast_uchar(both, &both8, NULL), 0);
    cr_assert_eq(vips_copy(both8, &srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    cr_assert_eq(vips_pngsave(srgb, path, NULL), 0);
}

/* The largest R - G over pixels at least `min_alpha` opaque. */
static double
most_pink(VipsImage *image, int min_alpha)
{
    g_autoptr(VipsImage) r = NULL;
    g_autoptr(VipsImage) g = NULL;
    g_autoptr(VipsImage) a = NULL;
    g_autoptr(VipsImage) pink = NULL;
    g_autoptr(VipsImage) seen = NULL;
    g_autoptr(VipsImage) seen01 = NULL;
    g_autoptr(VipsImage) where = NULL;
    double most;

    cr_assert_eq(image->Bands, 4);
    cr_assert_eq(vips_extract_band(image, &r, 0, NULL), 0);
    cr_assert_eq(vips_extract_band(image, &g, 1, NULL), 0);
    cr_assert_eq(vips_extract_band(image, &a, 3, NULL), 0);
    cr_assert_eq(vips_subtract(r, g, &pink, NULL), 0);
    cr_assert_eq(vips_moreeq_const1(a, &seen, min_alpha, NULL), 0);
    cr_assert_eq(vips_linear1(seen, &seen01, 1 / 255.0, 0, NULL), 0);
    cr_assert_eq(vips_multiply(pink, seen01, &where, NULL), 0);
    cr_assert_eq(vips_max(where, &most, NULL), 0);
    return most;
}

Test(alpha, enlarging_keeps_hidden_colour_out_of_the_opaque_edge)
{
    g_autofree char *tmp = gal_test_tmpdir("alpha-enlarge");
    g_autofree char *in = g_build_filename(tmp, "hidden.png", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "big.yaml",
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\", sharpen: none }\n"
        "stages:\n  - resize: { width: 120, upscale: true }\n");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *png = g_build_filename(out, "hidden.png", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) image = NULL;
    double pink;

    hidden_red_png(in);
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    image = gal_test_load_image(png, FALSE);
    cr_assert_eq(image->Xsize, 120);
    pink = most_pink(image, 16);
    cr_expect_leq(pink, 8, "pink edge: R - G reaches %g where alpha >= 16", pink);
}

/* The kernel alone, each axis: a transparent red column or row beside
 * opaque white. */
Test(alpha, each_axis_of_the_bicubic_weighs_colour_by_alpha)
{
    g_autofree char *tmp = gal_test_tmpdir("alpha-axes");
    g_autofree char *path = g_build_filename(tmp, "hidden.png", NULL);
    g_autoptr(VipsImage) image = NULL;
    g_autoptr(VipsImage) memory = NULL;
    g_autoptr(VipsImage) turned = NULL;
    g_autoptr(VipsImage) turned_memory = NULL;
    g_autoptr(VipsImage) wide = NULL;
    g_autoptr(VipsImage) tall = NULL;

    hidden_red_png(path);
    image = gal_test_load_image(path, FALSE);
    memory = vips_image_copy_memory(image);
    cr_assert_eq(gal__enlarge_columns(memory, 130, &wide), 0);
    cr_expect_leq(most_pink(wide, 1), 8, "columns: R - G %g", most_pink(wide, 1));
    cr_assert_eq(vips_rot(memory, &turned, VIPS_ANGLE_D90, NULL), 0);
    turned_memory = vips_image_copy_memory(turned);
    cr_assert_eq(gal__enlarge_rows(turned_memory, 130, &tall), 0);
    cr_expect_leq(most_pink(tall, 1), 8, "rows: R - G %g", most_pink(tall, 1));
}
