/* Camera raw photos through `gallop run`, end to end, on DNGs forged with
 * known colours (tests/support/gal_test_raw.c): the colours developed,
 * the facts read, the preview taken, the orientation turned, and a
 * hostile raw failing alone. The outputs are PNG, read back with libvips. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_meta.h"
#include "gal_test_raw.h"

TestSuite(raw_run, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 60);

/* Run `yaml` over `in_dir` into `out_dir`: its exit status, stdout and stderr. */
static int
run(const char *tmp, const char *yaml, const char *in_dir, const char *out_dir, char **out,
    char **err)
{
    g_autofree char *preset = gal_test_write_preset(tmp, "raw.yaml", yaml);
    const char *argv[] = { GAL_BINARY, "run", preset, in_dir, "-o", out_dir, NULL };

    return gal_test_spawn(argv, out, err);
}

/* An output, decoded strictly, in memory (read at several places). */
static VipsImage *
load(const char *path)
{
    g_autoptr(VipsImage) image = gal_test_load_image(path, TRUE);
    VipsImage *memory = vips_image_copy_memory(image);

    cr_assert_not_null(memory, "%s: %s", path, vips_error_buffer());
    return memory;
}

static void
expect_colour(VipsImage *image, int x, int y, const double want[3], double tolerance,
    const char *what)
{
    double rgb[3];

    gal_test_block_mean(image, x, y, rgb);
    for (int b = 0; b < 3; b++)
        cr_expect(fabs(rgb[b] - want[b]) <= tolerance, "%s band %d: %.1f, want %.1f", what, b,
            rgb[b], want[b]);
}

Test(raw_run, a_dng_beside_a_jpeg_is_developed_to_its_colours_and_named_by_its_facts)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-develop");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *dng_path = NULL;
    g_autofree char *developed_path = g_build_filename(out_dir, "IMG_0001-2024-D750.png", NULL);
    g_autoptr(VipsImage) developed = NULL;

    gal_test_copy_trip(in_dir, 1, NULL);
    dng_path = gal_test_dng_write(in_dir, "IMG_0001.DNG", &dng);
    cr_assert_eq(run(tmp,
                     "gallop: 1\n"
                     "input: {raw: develop}\n"
                     "output: {format: png, name: '{stem}-{date:%Y}-{camera}.png'}\n",
                     in_dir, out_dir, &out, &err),
        0, "stdout:\n%s\nstderr:\n%s", out, err);
    cr_expect(strstr(err, "2 written, 0 failed") != NULL, "%s", err);
    /* {camera} is "Nikon D750" or its maker's spelling: only the model is asked for. */
    if (!g_file_test(developed_path, G_FILE_TEST_EXISTS)) {
        g_autoptr(GPtrArray) names = gal_test_list_dir(out_dir);

        for (guint i = 0; i < names->len; i++)
            if (g_str_has_prefix(names->pdata[i], "IMG_0001-2024-") &&
                strstr(names->pdata[i], "D750")) {
                g_free(developed_path);
                developed_path = g_build_filename(out_dir, names->pdata[i], NULL);
            }
    }
    developed = load(developed_path);
    cr_assert_eq(developed->Xsize, 64);
    cr_assert_eq(developed->Ysize, 48);
    gal_test_raw_expect_quarters(developed, &dng, 4, "developed");
}

Test(raw_run, a_raw_turned_by_its_orientation_comes_out_upright)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-orientation");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *out_path = g_build_filename(out_dir, "turned.png", NULL);
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) image = NULL;
    /* Orientation 6: the stored top left (red) is at the top right upright. */
    static const double red_srgb[3] = { 203.2, 63.0, 63.0 };

    dng.orientation = 6;
    g_mkdir_with_parents(in_dir, 0755);
    path = gal_test_dng_write(in_dir, "turned.dng", &dng);
    cr_assert_eq(run(tmp, "gallop: 1\ninput: {raw: develop}\noutput: {format: png}\n", in_dir,
                     out_dir, &out, &err),
        0, "stdout:\n%s\nstderr:\n%s", out, err);
    image = load(out_path);
    cr_assert_eq(image->Xsize, 48);
    cr_assert_eq(image->Ysize, 64);
    expect_colour(image, 48 - 12 - 2, 16 - 2, red_srgb, 4, "upright top right");
}

Test(raw_run, the_preview_makes_what_it_covers_and_a_larger_output_is_developed)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-preview");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *small_path = g_build_filename(out_dir, "shot-64.png", NULL);
    g_autofree char *large_path = g_build_filename(out_dir, "shot-128.png", NULL);
    static const double magenta[3] = { 200, 30, 200 };
    g_autoptr(GBytes) jpeg = gal_test_raw_preview_jpeg(64, 48, magenta);
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) small = NULL;
    g_autoptr(VipsImage) large = NULL;

    dng.width = 128;
    dng.height = 96;
    dng.preview_jpeg = g_bytes_get_data(jpeg, &dng.preview_len);
    dng.preview_width = 64;
    dng.preview_height = 48;
    g_mkdir_with_parents(in_dir, 0755);
    path = gal_test_dng_write(in_dir, "shot.dng", &dng);
    /* One preset at 64 px: the preview covers it. */
    cr_assert_eq(run(tmp,
                     "gallop: 1\n"
                     "output: {format: png, name: '{stem}-64.png'}\n"
                     "stages: [ {resize: {width: 64, height: 64, fit: inside}} ]\n",
                     in_dir, out_dir, &out, &err),
        0, "stdout:\n%s\nstderr:\n%s", out, err);
    small = load(small_path);
    cr_assert_eq(small->Xsize, 64);
    expect_colour(small, 30, 22, magenta, 6, "from the preview");
    /* At 128 px it does not: developed, the patches' colours. */
    g_free(out);
    g_free(err);
    cr_assert_eq(run(tmp,
                     "gallop: 1\n"
                     "output: {format: png, name: '{stem}-128.png'}\n"
                     "stages: [ {resize: {width: 128, height: 128, fit: inside}} ]\n",
                     in_dir, out_dir, &out, &err),
        0, "stdout:\n%s\nstderr:\n%s", out, err);
    large = load(large_path);
    cr_assert_eq(large->Xsize, 128);
    gal_test_raw_expect_quarters(large, &dng, 4, "large");
}

Test(raw_run, a_hostile_raw_fails_alone_and_says_what_is_wrong)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-hostile");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    gal_test_dng huge = gal_test_dng_default();
    gal_test_dng cut = gal_test_dng_default();
    g_autofree char *huge_path = NULL;
    g_autofree char *cut_path = NULL;
    g_autofree char *huge_line = NULL;
    g_autofree char *cut_line = NULL;

    gal_test_copy_trip(in_dir, 1, NULL);
    huge.claimed_width = 60000;
    huge.claimed_height = 60000;
    huge_path = gal_test_dng_write(in_dir, "huge.dng", &huge);
    cut.cut_to = 600;
    cut_path = gal_test_dng_write(in_dir, "cut.dng", &cut);
    cr_assert_eq(run(tmp, "gallop: 1\ninput: {raw: develop}\noutput: {format: png}\n", in_dir,
                     out_dir, &out, &err),
        1, "stdout:\n%s\nstderr:\n%s", out, err);
    cr_expect(g_file_test(out_dir, G_FILE_TEST_IS_DIR));
    cr_expect(strstr(err, "1 written, 2 failed") != NULL, "%s", err);
    huge_line = g_strdup_printf("%s: ", huge_path);
    cut_line = g_strdup_printf("%s: ", cut_path);
    cr_expect_eq(gal_test_count_lines(err, huge_line, NULL), 1, "%s", err);
    cr_expect_eq(gal_test_count_lines(err, cut_line, NULL), 1, "%s", err);
    cr_expect(strstr(err, "this DNG raw photo: its data ends early or is damaged") != NULL, "%s",
        err);
    cr_expect(strstr(err, "declares a sensor of 60000 x 60000 pixels") != NULL, "%s", err);
}

/* Run `yaml` over `in_dir` with `extra` arguments (NULL-terminated). */
static int
run_args(const char *tmp, const char *yaml, const char *in_dir, const char *out_dir,
    const char *const *extra, char **out, char **err)
{
    g_autofree char *preset = gal_test_write_preset(tmp, "raw.yaml", yaml);
    g_autoptr(GPtrArray) argv = g_ptr_array_new();

    g_ptr_array_add(argv, (gpointer) GAL_BINARY);
    g_ptr_array_add(argv, (gpointer) "run");
    g_ptr_array_add(argv, preset);
    g_ptr_array_add(argv, (gpointer) in_dir);
    g_ptr_array_add(argv, (gpointer) "-o");
    g_ptr_array_add(argv, (gpointer) out_dir);
    for (int i = 0; extra && extra[i]; i++)
        g_ptr_array_add(argv, (gpointer) extra[i]);
    g_ptr_array_add(argv, NULL);
    return gal_test_spawn((const char *const *) argv->pdata, out, err);
}

Test(raw_run, a_raw_and_its_jpeg_are_one_photo_and_input_pairs_says_which)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-pairs");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *jpeg_out = g_build_filename(tmp, "jpeg", NULL);
    g_autofree char *raw_out = g_build_filename(tmp, "raw", NULL);
    g_autofree char *jpeg_file = g_build_filename(jpeg_out, "IMG_0001.png", NULL);
    g_autofree char *raw_file = g_build_filename(raw_out, "IMG_0001.png", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *raw_out_text = NULL;
    g_autofree char *raw_err = NULL;
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *dng_path = NULL;
    g_autoptr(VipsImage) from_jpeg = NULL;
    g_autoptr(VipsImage) from_raw = NULL;
    static const char yaml[] = "gallop: 1\ninput: {raw: develop}\noutput: {format: png}\n";
    const char *const pairs_raw[] = { "--set", "input.pairs=raw", NULL };

    gal_test_copy_trip(in_dir, 1, "IMG_0001.JPG");
    dng_path = gal_test_dng_write(in_dir, "IMG_0001.DNG", &dng);
    cr_assert_eq(run_args(tmp, yaml, in_dir, jpeg_out, NULL, &out, &err), 0, "%s", err);
    cr_expect(strstr(err, "1 written, 0 failed, 1 skipped (1 pair)") != NULL, "%s", err);
    cr_expect(strstr(err, "IMG_0001.DNG: the raw of the same shot as IMG_0001.JPG, which is "
                          "read instead (input.pairs: jpeg): skipped") != NULL,
        "%s", err);
    {
        g_autoptr(GPtrArray) names = gal_test_list_dir(jpeg_out);

        cr_expect_eq(names->len, 1, "one photo, one file");
    }
    from_jpeg = load(jpeg_file);
    cr_expect_eq(from_jpeg->Xsize, 640, "made from the JPEG (640 x 640), not the 64 x 48 raw");

    cr_assert_eq(run_args(tmp, yaml, in_dir, raw_out, pairs_raw, &raw_out_text, &raw_err), 0,
        "%s", raw_err);
    cr_expect(strstr(raw_err, "IMG_0001.JPG: the JPEG of the same shot as IMG_0001.DNG") != NULL,
        "%s", raw_err);
    from_raw = load(raw_file);
    cr_assert_eq(from_raw->Xsize, 64);
    gal_test_raw_expect_quarters(from_raw, &dng, 4, "from_raw");
}

Test(raw_run, every_file_skipped_is_named_and_counted_by_kind_in_summary_log_and_report)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-skipped");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *report = g_build_filename(tmp, "report.json", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    const char *const extra[] = { "--log", "json", "--report", report, NULL };
    static const char *const others[] = { "clip.mp4", ".DS_Store", "IMG_0001.xmp", "old.x3f",
        "trip-01.txt" };

    gal_test_copy_trip(in_dir, 1, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(others); i++) {
        g_autofree char *path = g_build_filename(in_dir, others[i], NULL);

        cr_assert(g_file_set_contents(path, "x", 1, NULL));
    }
    cr_assert_eq(run_args(tmp, "gallop: 1\noutput: {format: png}\n", in_dir, out_dir, extra,
                     &out, &err),
        0, "%s", err);
    /* trip-01.txt is the photo's caption sidecar: read, not skipped. */
    for (size_t i = 0; i < 4; i++) {
        g_autofree char *needle = g_strdup_printf("%s\",\"preset\":\"raw\",\"status\":\"ignored\"",
            others[i]);

        cr_expect(strstr(err, needle) != NULL, "no event for %s:\n%s", others[i], err);
    }
    cr_expect(strstr(err, "\"skipped\":\"video\"") && strstr(err, "\"skipped\":\"hidden\"") &&
            strstr(err, "\"skipped\":\"unknown\"") && strstr(err, "\"skipped\":\"raw-unsupported\""),
        "%s", err);
    cr_expect(strstr(err, "trip-01.txt\",\"preset\"") == NULL, "%s", err);
    cr_expect(strstr(err, "\"caption_source\":\"sidecar:") != NULL, "%s", err);
    text = gal_test_read_bytes(report, NULL);
    cr_expect(strstr(text, "\"skipped\":{\"video\":1,\"raw-unsupported\":1,\"unknown\":1,"
                           "\"hidden\":1,\"pair\":0,\"link\":0,\"special\":0}") != NULL,
        "%s", text);
}

Test(raw_run, a_raws_facts_go_into_its_outputs_metadata_as_a_jpegs_do)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-metadata");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *out_path = g_build_filename(out_dir, "shot.jpg", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *path = NULL;
    g_autoptr(ExifData) ed = NULL;
    g_autofree char *model = NULL;
    g_autofree char *lens = NULL;
    g_autofree char *taken = NULL;

    g_mkdir_with_parents(in_dir, 0755);
    path = gal_test_dng_write(in_dir, "shot.dng", &dng);
    cr_assert_eq(run(tmp, "gallop: 1\ninput: {raw: develop}\noutput: {format: jpeg}\n", in_dir,
                     out_dir, &out, &err),
        0, "%s", err);
    /* Read back with libexif directly, not through gallop's reader. */
    ed = gal_test_exif(out_path);
    cr_assert_not_null(ed, "no EXIF in %s", out_path);
    model = gal_test_exif_text(ed, EXIF_IFD_0, EXIF_TAG_MODEL);
    lens = gal_test_exif_text(ed, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL);
    taken = gal_test_exif_text(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL);
    cr_assert_not_null(model);
    cr_expect(strstr(model, "D750") != NULL, "%s", model);
    cr_expect_str_eq(lens, "AF-S NIKKOR 24-120mm f/4G ED VR");
    cr_expect_str_eq(taken, "2024:05:01 08:30:00");
    cr_expect_eq(gal_test_exif_short(ed, EXIF_IFD_EXIF, EXIF_TAG_ISO_SPEED_RATINGS), 200);
}

/* A `pages`-page image of 40 x 30 pages, each one colour of `inks`, saved
 * by `saver` ("tiffsave", "gifsave") as one multi-page file. */
static void
write_pages(const char *path, const char *saver, const double inks[][3], int pages)
{
    g_autoptr(VipsImage) joined = NULL;
    g_autoptr(VipsImage) srgb = NULL;
    VipsImage **each = g_new0(VipsImage *, pages);

    for (int p = 0; p < pages; p++) {
        g_autoptr(VipsImage) black = NULL;

        cr_assert_eq(vips_black(&black, 40, 30, "bands", 3, NULL), 0);
        cr_assert_eq(vips_linear(black, &each[p], (double[]) { 1, 1, 1 }, (double *) inks[p], 3,
                         "uchar", TRUE, NULL),
            0);
    }
    cr_assert_eq(vips_arrayjoin(each, &joined, pages, "across", 1, NULL), 0);
    cr_assert_eq(vips_copy(joined, &srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    vips_image_set_int(srgb, "page-height", 30);
    cr_assert_eq(strcmp(saver, "gifsave") == 0 ? vips_gifsave(srgb, path, NULL)
                                                : vips_tiffsave(srgb, path, NULL),
        0, "%s: %s", path, vips_error_buffer());
    for (int p = 0; p < pages; p++)
        g_object_unref(each[p]);
    g_free(each);
}

Test(raw_run, a_gif_and_a_multi_page_tiff_are_taken_by_default_as_their_first_page)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-run-pages");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *gif = g_build_filename(in_dir, "anim.gif", NULL);
    g_autofree char *tiff = g_build_filename(in_dir, "scan.tif", NULL);
    g_autofree char *gif_out = g_build_filename(out_dir, "anim.png", NULL);
    g_autofree char *tiff_out = g_build_filename(out_dir, "scan.png", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    static const double inks[3][3] = { { 220, 40, 40 }, { 40, 220, 40 }, { 40, 40, 220 } };
    g_autoptr(VipsImage) first_gif = NULL;
    g_autoptr(VipsImage) first_tiff = NULL;

    g_mkdir_with_parents(in_dir, 0755);
    write_pages(gif, "gifsave", inks, 3);
    write_pages(tiff, "tiffsave", inks, 3);
    cr_assert_eq(run(tmp, "gallop: 1\noutput: {format: png}\n", in_dir, out_dir, &out, &err), 0,
        "%s", err);
    cr_expect(strstr(err, "2 written, 0 failed, 0 skipped") != NULL, "%s", err);
    first_gif = load(gif_out);
    first_tiff = load(tiff_out);
    cr_expect_eq(first_gif->Ysize, 30, "one frame of the GIF, not all three stacked");
    cr_expect_eq(first_tiff->Ysize, 30, "the TIFF's first page");
    expect_colour(first_gif, 18, 13, inks[0], 12, "the GIF's first frame");
    expect_colour(first_tiff, 18, 13, inks[0], 2, "the TIFF's first page");
}
