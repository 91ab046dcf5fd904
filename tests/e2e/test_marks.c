/* Text marks that cannot be read (issue 13): `size` is a width, so a long
 * text made that wide is drawn tiny; the photo's result says so. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(marks, .init = gal_test_setup, .fini = gal_test_teardown);

/* trip-01 (640x640) made 400 px wide, with a text mark `size` wide; stderr. */
static char *
run(const char *tmp, const char *name, const char *text, const char *size)
{
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\" }\nstages:\n"
        "  - resize: { width: 400 }\n  - watermark: { text: \"%s\", size: %s }\n",
        text, size);
    g_autofree char *file = g_strdup_printf("%s.yaml", name);
    g_autofree char *preset = gal_test_write_preset(tmp, file, yaml);
    g_autofree char *in = g_build_filename(GAL_FIXTURES_DIR, "trip", "trip-01.jpg", NULL);
    g_autofree char *out = g_build_filename(tmp, name, NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };
    char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    return err;
}

Test(marks, a_text_mark_drawn_too_small_to_read_is_a_warning_for_the_photo)
{
    g_autofree char *tmp = gal_test_tmpdir("marks-small");
    /* 30 px wide for a 26-character credit: letters of about 2 px. */
    g_autofree char *small = run(tmp, "small", "(c) 2024 Jen Loong, Studio", "30");
    /* 60% of 400 px: about 20 px letters. */
    g_autofree char *fine = run(tmp, "fine", "(c) Jen Loong", "60%");

    cr_expect(strstr(small, "gallop: warning: ") && strstr(small, "trip-01.jpg: watermark (") &&
            strstr(small, "too small to read"),
        "a warning naming the photo and the stage: %s", small);
    cr_expect_null(strstr(fine, "warning"), "a readable mark: no warning: %s", fine);
}

Test(marks, font_size_sizes_the_letters_instead_of_the_width)
{
    g_autofree char *tmp = gal_test_tmpdir("marks-font-size");
    /* 5% of a 400 px short edge: 20 px letters, whatever the text's length. */
    g_autofree char *err = run(tmp, "big", "(c) 2024 Jen Loong, Studio", "30, font-size: 5%");
    g_autofree char *png = g_build_filename(tmp, "big", "trip-01.png", NULL);
    g_autofree char *bare_err = run(tmp, "bare", " ", "30");
    g_autofree char *bare_png = g_build_filename(tmp, "bare", "trip-01.png", NULL);
    g_autoptr(VipsImage) with = gal_test_load_image(png, FALSE);
    g_autoptr(VipsImage) without = gal_test_load_image(bare_png, FALSE);
    g_autoptr(VipsImage) diff = NULL;
    g_autoptr(VipsImage) band = NULL;
    g_autoptr(VipsImage) mask = NULL;
    g_autoptr(VipsArrayDouble) zero = vips_array_double_newv(1, 0.0);
    int left, top, width, height;

    cr_expect_null(strstr(err, "too small"), "20 px letters are readable: %s", err);
    cr_assert_eq(vips_subtract(with, without, &diff, NULL), 0);
    cr_assert_eq(vips_extract_band(diff, &band, 0, NULL), 0);
    cr_assert_eq(vips_abs(band, &mask, NULL), 0);
    {
        g_autoptr(VipsImage) on = NULL;

        cr_assert_eq(vips_moreeq_const1(mask, &on, 2, NULL), 0);
        cr_assert_eq(vips_find_trim(on, &left, &top, &width, &height, "threshold", 0.5,
                         "background", zero, NULL),
            0);
    }
    /* 26 characters of 20 px DejaVu Sans Bold: far wider than size's 30 px. */
    cr_expect_gt(width, 200, "the mark is %d px wide", width);
    cr_expect(height >= 14 && height <= 30, "the letters are %d px high", height);
}

/* The darkest value of band 0 of the output of a white text mark over a
 * flat pale photo (235 grey), with `extra` watermark keys. */
static double
darkest_over_pale(const char *tmp, const char *name, const char *extra)
{
    g_autofree char *in = g_build_filename(tmp, "pale.jpg", NULL);
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\" }\nstages:\n"
        "  - watermark: { text: \"(c) Jen Loong\", font-size: 8%%, opacity: 1, %s }\n", extra);
    g_autofree char *file = g_strdup_printf("%s.yaml", name);
    g_autofree char *preset = gal_test_write_preset(tmp, file, yaml);
    g_autofree char *out = g_build_filename(tmp, name, NULL);
    g_autofree char *png = g_build_filename(out, "pale.png", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) image = NULL;
    double low;

    if (!g_file_test(in, G_FILE_TEST_EXISTS)) {
        g_autoptr(VipsImage) black = NULL;
        g_autoptr(VipsImage) pale = NULL;
        g_autoptr(VipsImage) pale8 = NULL;

        cr_assert_eq(vips_black(&black, 400, 300, "bands", 3, NULL), 0);
        cr_assert_eq(vips_linear1(black, &pale, 1, 235, NULL), 0);
        cr_assert_eq(vips_cast_uchar(pale, &pale8, NULL), 0);
        cr_assert_eq(vips_jpegsave(pale8, in, "Q", 95, NULL), 0);
    }
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    image = gal_test_load_image(png, FALSE);
    cr_assert_eq(vips_min(image, &low, NULL), 0);
    return low;
}

Test(marks, shadow_and_outline_make_white_text_read_on_a_pale_photo)
{
    g_autofree char *tmp = gal_test_tmpdir("marks-pale");
    double plain = darkest_over_pale(tmp, "plain", "shadow: false");
    double outline = darkest_over_pale(tmp, "outline", "outline: true");
    double shadow = darkest_over_pale(tmp, "shadow", "shadow: true");

    cr_expect_geq(plain, 225, "plain white text leaves the pale photo pale: %g", plain);
    cr_expect_leq(outline, 100, "an outline is dark: %g", outline);
    cr_expect_leq(shadow, 150, "a shadow is dark: %g", shadow);
}
