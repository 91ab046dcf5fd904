/* The watermark end to end: the trip set's own preset (fixtures/trip.yaml,
 * instagram-portrait with the runner's logo) puts the logo where the
 * geometry says, on every trip photo, and nowhere else; the shipped
 * instagram-portrait marks each photo with its own credit, or not at all. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"
#define TRIP_PRESET GAL_FIXTURES_DIR "/trip.yaml"

TestSuite(watermark);

/* Run `preset` as it is and with its watermark dropped, as PNG so the
 * only differences are the mark's. `photo` is a path, or a name in the
 * trip set. */
static void
run_pair(const char *tmp, const char *preset, const char *photo, char **with_out,
    char **without_out)
{
    g_autofree char *plain_yaml = g_strdup_printf(
        "gallop: 1\nextends: %s\nstages:\n  - watermark: off\n", preset);
    g_autofree char *plain_preset = gal_test_write_preset(tmp, "plain.yaml", plain_yaml);
    g_autofree char *with_dir = g_build_filename(tmp, "with", NULL);
    g_autofree char *without_dir = g_build_filename(tmp, "without", NULL);
    g_autofree char *input = g_path_is_absolute(photo) ? g_strdup(photo)
                                                       : g_build_filename(TRIP_DIR, photo, NULL);
    g_autofree char *base = g_path_get_basename(photo);
    g_autofree char *stem = g_strndup(base, strlen(base) - 4);
    g_autofree char *png = g_strdup_printf("%s.png", stem);
    const char *with_argv[] = { GAL_BINARY, "run", preset, input, "-o", with_dir,
        "--set", "output.format=png", "-q", NULL };
    const char *without_argv[] = { GAL_BINARY, "run", plain_preset, input, "-o", without_dir,
        "--set", "output.format=png", "-q", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(with_argv, NULL, &err), 0, "%s", err);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(gal_test_spawn(without_argv, NULL, &err), 0, "%s", err);
    *with_out = g_build_filename(with_dir, png, NULL);
    *without_out = g_build_filename(without_dir, png, NULL);
}

Test(watermark, the_logo_sits_bottom_right_of_every_post_and_nowhere_else)
{
    /* fixtures/trip.yaml: 1080x1350, logo 445x77 at 30% of the short edge
     * (324 px wide, 56 high), margin 3% (32 px), south-east; raised above a
     * caption band when the preset draws one. */
    const int x = 1080 - 324 - 32, lowest_y = 1350 - 56 - 32;
    static const char *const photos[] = { "trip-03.jpg", "trip-09.png", "trip-16.jpg",
        "trip-18.jpg" };
    g_autofree char *tmp = gal_test_tmpdir("watermark-e2e");

    for (size_t i = 0; i < G_N_ELEMENTS(photos); i++) {
        g_autofree char *sub = g_build_filename(tmp, photos[i], NULL);
        g_autofree char *with_path = NULL;
        g_autofree char *without_path = NULL;
        g_autoptr(VipsImage) with = NULL;
        g_autoptr(VipsImage) without = NULL;
        g_autoptr(VipsImage) diff = NULL;
        g_autoptr(VipsImage) magnitude = NULL;
        g_autoptr(VipsImage) inside = NULL;
        int left, top, width, height;
        double inside_mean;

        g_mkdir_with_parents(sub, 0777);
        run_pair(sub, TRIP_PRESET, photos[i], &with_path, &without_path);
        with = gal_test_load_image(with_path, FALSE);
        without = gal_test_load_image(without_path, FALSE);
        cr_assert_eq(with->Xsize, 1080);
        cr_assert_eq(with->Ysize, 1350);
        cr_assert_eq(vips_subtract(with, without, &diff, NULL), 0);
        cr_assert_eq(vips_abs(diff, &magnitude, NULL), 0);
        {
            g_autoptr(VipsImage) band = NULL;
            g_autoptr(VipsImage) mask = NULL;
            g_autoptr(VipsArrayDouble) zero = vips_array_double_newv(1, 0.0);

            cr_assert_eq(vips_extract_band(magnitude, &band, 0, NULL), 0);
            cr_assert_eq(vips_moreeq_const1(band, &mask, 1, NULL), 0);
            cr_assert_eq(vips_find_trim(mask, &left, &top, &width, &height, "threshold", 0.5,
                "background", zero, NULL), 0);
        }
        /* The logo's own transparent rim may leave a pixel or two unchanged. */
        cr_expect(left >= x && left <= x + 4, "%s: changes start at x=%d, expected ~%d",
            photos[i], left, x);
        cr_expect(top <= lowest_y + 4, "%s: changes start at y=%d, lower than %d", photos[i],
            top, lowest_y);
        cr_expect(left + width <= x + 324 && left + width >= x + 320, "%s: right edge %d",
            photos[i], left + width);
        cr_expect(height <= 56 && height >= 52, "%s: %d rows changed", photos[i], height);
        cr_assert_eq(vips_extract_area(magnitude, &inside, x, top, 324, height, NULL), 0);
        cr_assert_eq(vips_avg(inside, &inside_mean, NULL), 0);
        cr_expect_gt(inside_mean, 2, "%s: the mark is visible (mean change %.2f)", photos[i],
            inside_mean);
    }
}

/* The shipped instagram-portrait carries nobody's logo: it marks a photo
 * with the Copyright of its own EXIF ("© 2014 Jen Loong" on the trip set),
 * bottom right, and leaves a photo without one unmarked (no stray "©"). */
Test(watermark, the_shipped_mark_is_the_photos_own_credit_or_nothing)
{
    g_autofree char *tmp = gal_test_tmpdir("watermark-credit");
    g_autofree char *bare = g_build_filename(tmp, "bare.png", NULL);
    g_autofree char *credited_dir = g_build_filename(tmp, "credited", NULL);
    g_autofree char *bare_dir = g_build_filename(tmp, "bare", NULL);
    g_autofree char *with_path = NULL;
    g_autofree char *without_path = NULL;
    g_autoptr(VipsImage) source = NULL;
    g_autoptr(VipsImage) with = NULL;
    g_autoptr(VipsImage) without = NULL;
    g_autoptr(VipsImage) corner_with = NULL;
    g_autoptr(VipsImage) corner_without = NULL;
    double max_abs, mean_abs;

    /* The same pixels as trip-16, with no metadata at all. */
    source = gal_test_load_image(TRIP_DIR "/trip-16.jpg", FALSE);
    cr_assert_eq(vips_pngsave(source, bare, "strip", TRUE, NULL), 0);

    g_mkdir_with_parents(credited_dir, 0777);
    run_pair(credited_dir, "instagram-portrait", "trip-16.jpg", &with_path, &without_path);
    with = gal_test_load_image(with_path, FALSE);
    without = gal_test_load_image(without_path, FALSE);
    /* Only the bottom-right corner above the caption band changes. */
    cr_assert_eq(vips_extract_area(with, &corner_with, 540, 900, 540, 200, NULL), 0);
    cr_assert_eq(vips_extract_area(without, &corner_without, 540, 900, 540, 200, NULL), 0);
    cr_assert_eq(gal_test_diff(corner_with, corner_without, &max_abs, &mean_abs), 0);
    cr_expect_gt(max_abs, 60, "the credit is drawn (max change %.1f)", max_abs);
    cr_assert_eq(gal_test_diff(with, without, &max_abs, &mean_abs), 0);
    cr_expect_lt(mean_abs, 1.0, "and only the credit (mean change %.2f)", mean_abs);

    g_clear_pointer(&with_path, g_free);
    g_clear_pointer(&without_path, g_free);
    g_clear_object(&with);
    g_clear_object(&without);
    g_mkdir_with_parents(bare_dir, 0777);
    run_pair(bare_dir, "instagram-portrait", bare, &with_path, &without_path);
    with = gal_test_load_image(with_path, FALSE);
    without = gal_test_load_image(without_path, FALSE);
    cr_assert_eq(gal_test_diff(with, without, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0, "no credit, no mark (max change %.1f)", max_abs);
}

/* A text mark is one line: 100 KB of fixed text stops the run at load
 * (exit 2) with the text key's place; a 100 KB caption in the mark only
 * shows up per photo, and is cut: the photo is written. */
Test(watermark, a_huge_text_mark_is_a_preset_error_and_a_huge_caption_in_one_is_cut)
{
    g_autofree char *dir = gal_test_tmpdir("watermark-huge");
    g_autofree char *out_dir = g_build_filename(dir, "out", NULL);
    g_autofree char *table = g_build_filename(dir, "captions.tsv", NULL);
    g_autoptr(GString) text = g_string_new(NULL);
    g_autofree char *rows = NULL;
    g_autofree char *fixed_yaml = NULL;
    g_autofree char *fixed = NULL;
    g_autofree char *per_photo = NULL;
    g_autofree char *want = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *written = g_build_filename(out_dir, "trip-01.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", NULL, TRIP_DIR "/trip-01.jpg", "-o", NULL, "-q",
        NULL };

    while (text->len < 100 * 1024)
        g_string_append(text, "lorem ipsum dolor sit amet ");
    fixed_yaml = g_strdup_printf("gallop: 1\nstages:\n  - watermark: {text: \"%s\"}\n",
        text->str);
    fixed = gal_test_write_preset(dir, "fixed.yaml", fixed_yaml);
    argv[2] = fixed;
    argv[5] = out_dir;
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 2, "%.300s", err);
    want = g_strdup_printf("%s:3:23: watermark.text: a text of %zu characters (\"lorem ipsum",
        fixed, text->len);
    cr_expect(strstr(err, want) != NULL, "%.300s", err);
    cr_expect(strstr(err, "longer than the 1000 this key takes") != NULL, "%.300s", err);
    cr_expect_not(g_file_test(written, G_FILE_TEST_EXISTS));

    rows = g_strdup_printf("file\tcaption\ntrip-01.jpg\t%s\n", text->str);
    cr_assert(g_file_set_contents(table, rows, -1, NULL));
    per_photo = gal_test_write_preset(dir, "per-photo.yaml",
        "gallop: 1\ncaptions: {table: captions.tsv}\n"
        "stages:\n  - watermark: {text: \"{caption}\"}\n");
    argv[2] = per_photo;
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "%.300s", err);
    cr_expect(g_file_test(written, G_FILE_TEST_IS_REGULAR));
}
