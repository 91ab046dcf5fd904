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

/* A 600x400 JPEG in `dir`: band `left` grey on the left half and `right`
 * on the right (flat when they are equal). */
static char *
halves(const char *dir, const char *name, int left, int right)
{
    g_autofree char *file = g_strdup_printf("%s.jpg", name);
    char *path = g_build_filename(dir, file, NULL);
    g_autoptr(VipsImage) a = NULL;
    g_autoptr(VipsImage) b = NULL;
    g_autoptr(VipsImage) pa = NULL;
    g_autoptr(VipsImage) pb = NULL;
    g_autoptr(VipsImage) both = NULL;
    g_autoptr(VipsImage) both8 = NULL;

    cr_assert_eq(vips_black(&a, 300, 400, "bands", 3, NULL), 0);
    cr_assert_eq(vips_black(&b, 300, 400, "bands", 3, NULL), 0);
    cr_assert_eq(vips_linear1(a, &pa, 1, left, NULL), 0);
    cr_assert_eq(vips_linear1(b, &pb, 1, right, NULL), 0);
    cr_assert_eq(vips_join(pa, pb, &both, VIPS_DIRECTION_HORIZONTAL, NULL), 0);
    cr_assert_eq(vips_cast_uchar(both, &both8, NULL), 0);
    cr_assert_eq(vips_jpegsave(both8, path, "Q", 95, NULL), 0);
    return path;
}

/* CIE L* of band 0.. of a PNG, as a one-band float image. */
static VipsImage *
lightness(const char *png)
{
    g_autoptr(VipsImage) image = gal_test_load_image(png, FALSE);
    g_autoptr(VipsImage) lab = NULL;
    VipsImage *l = NULL;

    cr_assert_eq(vips_colourspace(image, &lab, VIPS_INTERPRETATION_LAB, NULL), 0);
    cr_assert_eq(vips_extract_band(lab, &l, 0, NULL), 0);
    return l;
}

/* The mark of `png` against the same photo without one (`bare`): the mean
 * L* of its pixels (those that differ by more than 4 L*) minus that of the
 * photo there (< 0: a dark mark), and the mean |ΔL*| over them. */
static void
mark_contrast(const char *png, const char *bare, double *signed_dl, double *abs_dl)
{
    g_autoptr(VipsImage) with = lightness(png);
    g_autoptr(VipsImage) without = lightness(bare);
    g_autoptr(VipsImage) dl = NULL;
    g_autoptr(VipsImage) adl = NULL;
    g_autoptr(VipsImage) on = NULL;
    g_autoptr(VipsImage) on01 = NULL;
    g_autoptr(VipsImage) masked = NULL;
    g_autoptr(VipsImage) amasked = NULL;
    double share, mean, amean;

    cr_assert_eq(vips_subtract(with, without, &dl, NULL), 0);
    cr_assert_eq(vips_abs(dl, &adl, NULL), 0);
    cr_assert_eq(vips_more_const1(adl, &on, 4, NULL), 0);
    cr_assert_eq(vips_linear1(on, &on01, 1 / 255.0, 0, NULL), 0);
    cr_assert_eq(vips_multiply(dl, on01, &masked, NULL), 0);
    cr_assert_eq(vips_multiply(adl, on01, &amasked, NULL), 0);
    cr_assert_eq(vips_avg(on01, &share, NULL), 0);
    cr_assert_eq(vips_avg(masked, &mean, NULL), 0);
    cr_assert_eq(vips_avg(amasked, &amean, NULL), 0);
    cr_assert_gt(share, 0.001, "%s: no mark found", png);
    *signed_dl = mean / share;
    *abs_dl = amean / share;
}

/* Run `extra` watermark keys over `photo`, into tmp/name/; the PNG's path. */
static char *
run_mark(const char *tmp, const char *name, const char *photo, const char *extra)
{
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\" }\nstages:\n"
        "  - watermark: { font-size: 8%%, opacity: 1, %s }\n", extra);
    g_autofree char *file = g_strdup_printf("%s.yaml", name);
    g_autofree char *preset = gal_test_write_preset(tmp, file, yaml);
    g_autofree char *out = g_build_filename(tmp, name, NULL);
    g_autofree char *base = g_path_get_basename(photo);
    const char *argv[] = { GAL_BINARY, "run", preset, photo, "-o", out, "-q", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    *strrchr(base, '.') = '\0';
    return g_strdup_printf("%s/%s.png", out, base);
}

Test(marks, color_auto_picks_dark_ink_on_a_pale_photo_and_light_on_a_dark_one)
{
    g_autofree char *tmp = gal_test_tmpdir("marks-auto");
    g_autofree char *pale = halves(tmp, "pale", 235, 235);
    g_autofree char *dark = halves(tmp, "dark", 30, 30);
    g_autofree char *pale_bare = run_mark(tmp, "pale-bare", pale, "text: \" \"");
    g_autofree char *dark_bare = run_mark(tmp, "dark-bare", dark, "text: \" \"");
    /* Fixed text (rendered once per ink) and per-photo text ({stem}). */
    const char *texts[] = { "text: \"(c) Jen Loong\"", "text: \"(c) {stem}\"" };

    for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
        g_autofree char *keys = g_strdup_printf("%s, color: auto", texts[i]);
        g_autofree char *on_pale = run_mark(tmp, i ? "pale-stem" : "pale-fixed", pale, keys);
        g_autofree char *on_dark = run_mark(tmp, i ? "dark-stem" : "dark-fixed", dark, keys);
        double signed_dl, abs_dl;

        mark_contrast(on_pale, pale_bare, &signed_dl, &abs_dl);
        cr_expect_lt(signed_dl, -30, "%s on a pale photo: a dark mark, not %+.1f L*", texts[i],
            signed_dl);
        cr_expect_gt(abs_dl, 40, "%s on a pale photo: contrast %.1f L*", texts[i], abs_dl);
        mark_contrast(on_dark, dark_bare, &signed_dl, &abs_dl);
        cr_expect_gt(signed_dl, 30, "%s on a dark photo: a light mark, not %+.1f L*", texts[i],
            signed_dl);
        cr_expect_gt(abs_dl, 40, "%s on a dark photo: contrast %.1f L*", texts[i], abs_dl);
    }
}

Test(marks, color_auto_reads_the_part_of_the_photo_under_the_mark)
{
    g_autofree char *tmp = gal_test_tmpdir("marks-auto-region");
    /* Dark on the left, pale on the right. */
    g_autofree char *split = halves(tmp, "split", 30, 235);
    g_autofree char *bare = run_mark(tmp, "bare", split, "text: \" \"");
    g_autofree char *east = run_mark(tmp, "east", split,
        "text: \"(c) Jen\", color: auto, gravity: south-east");
    g_autofree char *west = run_mark(tmp, "west", split,
        "text: \"(c) Jen\", color: auto, gravity: south-west");
    double signed_dl, abs_dl;

    mark_contrast(east, bare, &signed_dl, &abs_dl);
    cr_expect_lt(signed_dl, -30, "over the pale half: dark ink, not %+.1f L*", signed_dl);
    mark_contrast(west, bare, &signed_dl, &abs_dl);
    cr_expect_gt(signed_dl, 30, "over the dark half: light ink, not %+.1f L*", signed_dl);
}

Test(marks, color_auto_is_for_text_marks_and_other_words_are_errors)
{
    g_autofree char *tmp = gal_test_tmpdir("marks-auto-bad");
    g_autofree char *in = g_build_filename(GAL_FIXTURES_DIR, "trip", "trip-01.jpg", NULL);
    g_autofree char *bad = gal_test_write_preset(tmp, "bad.yaml",
        "gallop: 1\nstages:\n  - watermark: { text: \"(c)\", color: automatic }\n");
    g_autofree char *band = gal_test_write_preset(tmp, "band.yaml",
        "gallop: 1\nstages:\n  - caption-burn: { text: \"x\", color: auto }\n");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    const char *bad_argv[] = { GAL_BINARY, "run", bad, in, "-o", out, "-q", NULL };
    const char *band_argv[] = { GAL_BINARY, "run", band, in, "-o", out, "-q", NULL };
    g_autofree char *bad_err = NULL;
    g_autofree char *band_err = NULL;

    cr_expect_eq(gal_test_spawn(bad_argv, NULL, &bad_err), 2);
    cr_expect(strstr(bad_err, "bad.yaml:3:") && strstr(bad_err, "color") &&
            strstr(bad_err, "or auto, got \"automatic\""),
        "names the file, line, key and the choices: %s", bad_err);
    /* caption-burn's colour has no auto: the message does not offer it. */
    cr_expect_eq(gal_test_spawn(band_argv, NULL, &band_err), 2);
    cr_expect(strstr(band_err, "band.yaml:3:") && strstr(band_err, "got \"auto\"") &&
            !strstr(band_err, "or auto"),
        "%s", band_err);
}
