/* The makers' raws that no file of a camera can be had for offline (CR2,
 * RW2, ORF, RAF), forged as their cameras lay them out (tests/support/
 * gal_test_raw_makers.c) and made through `gallop run`: developed, the
 * colours come out, and the facts and orientation come from the raw as
 * from a JPEG; the embedded JPEG serves what it covers; one cut short
 * fails alone. The outputs are PNG and JPEG, read back with libvips and
 * libexif. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_meta.h"
#include "gal_test_raw.h"

TestSuite(raw_makers, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 60);

/* Linear sRGB of the four quarters: red, green, blue, 18% grey. */
static const double targets[4][3] = { { 0.45, 0.08, 0.06 }, { 0.07, 0.35, 0.08 },
    { 0.06, 0.08, 0.45 }, { 0.18, 0.18, 0.18 } };

/* `raw` written to `dir`/`name` with its photosites aimed at `targets`
 * through its camera's levels, matrix and balance in libraw's tables
 * (read from a first forgery): its path (g_free). */
static char *
forge(const char *dir, const char *name, gal_test_dng *raw)
{
    g_autofree char *first = gal_test_dng_write(dir, name, raw);
    gal_test_raw_camera camera = gal_test_raw_camera_of(first);

    gal_test_raw_aim(raw, &camera, targets);
    return gal_test_dng_write(dir, name, raw);
}

/* Run `yaml` over `in_dir` into `out_dir`; fails the test unless it
 * succeeds. */
static void
run(const char *tmp, const char *yaml, const char *in_dir, const char *out_dir)
{
    g_autofree char *preset = gal_test_write_preset(tmp, "makers.yaml", yaml);
    const char *argv[] = { GAL_BINARY, "run", preset, in_dir, "-o", out_dir, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "stdout:\n%s\nstderr:\n%s", out, err);
}

/* The output in `dir` whose name starts with `prefix`, decoded strictly
 * into memory. */
static VipsImage *
load_output(const char *dir, const char *prefix, char **name)
{
    g_autoptr(GPtrArray) names = gal_test_list_dir(dir);

    for (guint i = 0; i < names->len; i++)
        if (g_str_has_prefix(names->pdata[i], prefix)) {
            g_autofree char *path = g_build_filename(dir, names->pdata[i], NULL);
            g_autoptr(VipsImage) image = gal_test_load_image(path, TRUE);
            VipsImage *memory = vips_image_copy_memory(image);

            cr_assert_not_null(memory, "%s: %s", path, vips_error_buffer());
            if (name)
                *name = g_strdup(names->pdata[i]);
            return memory;
        }
    cr_assert_fail("no output named %s* in %s", prefix, dir);
    return NULL;
}

/* A raw of a camera libraw knows, 128 x 96, with its facts. */
static gal_test_dng
camera_raw(gal_test_raw_layout layout, const char *make, const char *model, const char *lens)
{
    gal_test_dng raw = gal_test_dng_default();

    raw.layout = layout;
    raw.maker_raw = TRUE;
    raw.width = 128;
    raw.height = 96;
    raw.make = make;
    raw.model = model;
    raw.lens = lens;
    raw.taken = "2024:05:01 08:30:00";
    raw.iso = 400;
    /* Every format's photosites hold 12 bits (aimed: the camera's white). */
    raw.white = 4095;
    return raw;
}

Test(raw_makers, a_cr2_is_developed_to_its_colours_and_named_by_its_date_and_camera)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-makers-cr2");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    gal_test_dng raw = camera_raw(GAL_TEST_RAW_CR2, "Canon", "Canon EOS 5D Mark III",
        "EF24-105mm f/4L IS USM");
    g_autofree char *path = NULL;
    g_autofree char *name = NULL;
    g_autoptr(VipsImage) developed = NULL;

    g_mkdir_with_parents(in_dir, 0755);
    path = forge(in_dir, "IMG_0001.CR2", &raw);
    run(tmp,
        "gallop: 1\n"
        "input: {raw: develop}\n"
        "output: {format: png, name: '{stem}-{date:%Y}-{camera}.png'}\n",
        in_dir, out_dir);
    developed = load_output(out_dir, "IMG_0001-2024-", &name);
    cr_expect(strstr(name, "5D Mark III") != NULL, "%s", name);
    cr_assert_eq(developed->Xsize, 128);
    cr_assert_eq(developed->Ysize, 96);
    gal_test_raw_expect_aimed(developed, targets, "CR2");
}

/* The raw's EXIF facts in a JPEG made of it, read back with libexif
 * (not gallop's reader), and its orientation applied: stored on its side
 * (orientation 6, the camera turned right), red at its top left, the
 * photo comes out upright, taller than wide, red at its top right. */
static void
expect_facts_and_orientation(gal_test_raw_layout layout, const char *make, const char *model,
    const char *lens_model, const char *name)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-makers-facts");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *stem = g_strndup(name, strcspn(name, "."));
    g_autofree char *jpeg = g_strdup_printf("%s/%s.jpg", out_dir, stem);
    gal_test_dng raw = camera_raw(layout, make, model, lens_model);
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) upright = NULL;
    g_autoptr(ExifData) ed = NULL;
    g_autofree char *got_model = NULL;
    g_autofree char *lens = NULL;
    g_autofree char *taken = NULL;
    double rgb[3];

    raw.orientation = 6;
    g_mkdir_with_parents(in_dir, 0755);
    path = forge(in_dir, name, &raw);
    run(tmp, "gallop: 1\ninput: {raw: develop}\noutput: {format: jpeg, quality: 95}\n", in_dir,
        out_dir);
    upright = load_output(out_dir, stem, NULL);
    cr_expect_eq(upright->Xsize, 96, "%s: upright, 96 wide", name);
    cr_expect_eq(upright->Ysize, 128, "%s: upright, 128 tall", name);
    gal_test_block_mean(upright, 96 - 24 - 2, 32 - 2, rgb);
    cr_expect(rgb[0] - MAX(rgb[1], rgb[2]) >= 60, "%s: top right %.0f %.0f %.0f, want red",
        name, rgb[0], rgb[1], rgb[2]);
    gal_test_block_mean(upright, 24 - 2, 32 - 2, rgb);
    cr_expect(rgb[2] - MAX(rgb[0], rgb[1]) >= 60, "%s: top left %.0f %.0f %.0f, want blue",
        name, rgb[0], rgb[1], rgb[2]);

    ed = gal_test_exif(jpeg);
    cr_assert_not_null(ed, "no EXIF in %s", jpeg);
    got_model = gal_test_exif_text(ed, EXIF_IFD_0, EXIF_TAG_MODEL);
    lens = gal_test_exif_text(ed, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL);
    taken = gal_test_exif_text(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL);
    cr_assert_not_null(got_model);
    cr_expect(strlen(got_model) >= 4 && strstr(model, got_model) != NULL, "%s: model %s", name,
        got_model);
    cr_expect_str_eq(lens, lens_model);
    cr_expect_str_eq(taken, "2024:05:01 08:30:00");
    cr_expect_eq(gal_test_exif_short(ed, EXIF_IFD_EXIF, EXIF_TAG_ISO_SPEED_RATINGS), 400);
}

Test(raw_makers, a_cr2s_date_camera_lens_and_orientation_come_from_its_exif)
{
    expect_facts_and_orientation(GAL_TEST_RAW_CR2, "Canon", "Canon EOS 5D Mark III",
        "EF24-105mm f/4L IS USM", "IMG_0002.CR2");
}

/* A raw of `layout` developed (input.raw: develop) to a PNG of its size
 * whose quarters are their targets. */
static void
expect_developed(gal_test_raw_layout layout, const char *make, const char *model,
    const char *lens, const char *file_name, const char *what)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-makers-develop");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *stem = g_strndup(file_name, strcspn(file_name, "."));
    gal_test_dng raw = camera_raw(layout, make, model, lens);
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) developed = NULL;

    g_mkdir_with_parents(in_dir, 0755);
    path = forge(in_dir, file_name, &raw);
    run(tmp, "gallop: 1\ninput: {raw: develop}\noutput: {format: png}\n", in_dir, out_dir);
    developed = load_output(out_dir, stem, NULL);
    cr_assert_eq(developed->Xsize, 128);
    cr_assert_eq(developed->Ysize, 96);
    gal_test_raw_expect_aimed(developed, targets, what);
}

Test(raw_makers, an_rw2_is_developed_to_its_colours)
{
    expect_developed(GAL_TEST_RAW_RW2, "Panasonic", "DMC-GH4", "LUMIX G VARIO 12-35/F2.8",
        "P1000001.RW2", "RW2");
}

Test(raw_makers, an_rw2s_date_camera_lens_and_orientation_come_from_its_exif)
{
    expect_facts_and_orientation(GAL_TEST_RAW_RW2, "Panasonic", "DMC-GH4",
        "LUMIX G VARIO 12-35/F2.8", "P1000002.RW2");
}

Test(raw_makers, an_orf_is_developed_to_its_colours)
{
    expect_developed(GAL_TEST_RAW_ORF, "OLYMPUS IMAGING CORP.", "E-M10",
        "OLYMPUS M.14-42mm F3.5-5.6 II R", "P5010001.ORF", "ORF");
}

Test(raw_makers, an_orfs_date_camera_lens_and_orientation_come_from_its_exif)
{
    expect_facts_and_orientation(GAL_TEST_RAW_ORF, "OLYMPUS IMAGING CORP.", "E-M10",
        "OLYMPUS M.14-42mm F3.5-5.6 II R", "P5010002.ORF");
}

Test(raw_makers, a_raf_is_developed_to_its_colours)
{
    expect_developed(GAL_TEST_RAW_RAF, "FUJIFILM", "X100", NULL, "DSCF0001.RAF", "RAF");
}

Test(raw_makers, a_rafs_date_camera_lens_and_orientation_come_from_its_exif)
{
    expect_facts_and_orientation(GAL_TEST_RAW_RAF, "FUJIFILM", "X100", "FUJINON 23mm F2",
        "DSCF0002.RAF");
}

/* Each maker's raw cut short (by 64 bytes: within the last row of
 * photosites, which libraw 0.20 read past the end of an ORF without a
 * word; and by half) fails alone, its kind named, and the whole raw
 * beside them is still made. */
Test(raw_makers, a_makers_raw_cut_short_fails_alone_naming_its_kind)
{
    static const struct {
        gal_test_raw_layout layout;
        const char *make, *model, *ext, *kind;
    } cameras[] = {
        { GAL_TEST_RAW_CR2, "Canon", "Canon EOS 5D Mark III", "CR2", "Canon CR2" },
        { GAL_TEST_RAW_RW2, "Panasonic", "DMC-GH4", "RW2", "Panasonic RW2" },
        { GAL_TEST_RAW_ORF, "OLYMPUS IMAGING CORP.", "E-M10", "ORF", "Olympus ORF" },
        { GAL_TEST_RAW_RAF, "FUJIFILM", "X100", "RAF", "Fujifilm RAF" },
    };
    g_autofree char *tmp = gal_test_tmpdir("raw-makers-cut");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    gal_test_dng whole = camera_raw(GAL_TEST_RAW_ORF, "OLYMPUS IMAGING CORP.", "E-M10", NULL);
    g_autofree char *whole_path = NULL;
    g_autoptr(VipsImage) made = NULL;

    g_mkdir_with_parents(in_dir, 0755);
    whole_path = forge(in_dir, "P5019999.ORF", &whole);
    for (gsize i = 0; i < G_N_ELEMENTS(cameras); i++)
        for (int half = 0; half < 2; half++) {
            gal_test_dng raw = camera_raw(cameras[i].layout, cameras[i].make, cameras[i].model,
                NULL);
            g_autofree char *name = g_strdup_printf("cut-%s-%s.%s", half ? "half" : "64",
                cameras[i].ext, cameras[i].ext);
            g_autofree char *path = forge(in_dir, name, &raw);
            g_autoptr(GBytes) bytes = gal_test_dng_bytes(&raw);
            g_autofree char *cut_path = NULL;

            raw.cut_to = half ? g_bytes_get_size(bytes) / 2 : g_bytes_get_size(bytes) - 64;
            cut_path = gal_test_dng_write(in_dir, name, &raw);
        }
    preset = gal_test_write_preset(tmp, "makers.yaml",
        "gallop: 1\ninput: {raw: develop}\noutput: {format: png}\n");
    {
        const char *argv[] = { GAL_BINARY, "run", preset, in_dir, "-o", out_dir, NULL };

        cr_assert_eq(gal_test_spawn(argv, &out, &err), 1, "stdout:\n%s\nstderr:\n%s", out, err);
    }
    cr_expect(strstr(err, "1 written, 8 failed") != NULL, "%s", err);
    for (gsize i = 0; i < G_N_ELEMENTS(cameras); i++)
        for (int half = 0; half < 2; half++) {
            g_autofree char *name = g_strdup_printf("cut-%s-%s.%s", half ? "half" : "64",
                cameras[i].ext, cameras[i].ext);
            g_autofree char *prefix = g_strdup_printf("%s/%s: cannot ", in_dir, name);
            g_autofree char *kind = g_strdup_printf("this %s raw photo: ", cameras[i].kind);
            g_autofree char *line = NULL;

            cr_expect_eq(gal_test_count_lines(err, prefix, &line), 1, "%s:\n%s", name, err);
            cr_expect(line && strstr(line, kind), "%s: %s", name, line);
        }
    made = load_output(out_dir, "P5019999", NULL);
    gal_test_raw_expect_aimed(made, targets, "the whole ORF beside them");
}

/* By default (input.raw: preview) the JPEG the camera embedded makes
 * what it covers, found where the maker puts it (a CR2's first
 * directory, a RAF's header), and a larger output is developed. */
static void
expect_preview_then_develop(gal_test_raw_layout layout, const char *make, const char *model,
    const char *name)
{
    g_autofree char *tmp = gal_test_tmpdir("raw-makers-preview");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *small_dir = g_build_filename(tmp, "small", NULL);
    g_autofree char *large_dir = g_build_filename(tmp, "large", NULL);
    g_autofree char *stem = g_strndup(name, strcspn(name, "."));
    static const double magenta[3] = { 200, 30, 200 };
    g_autoptr(GBytes) jpeg = gal_test_raw_preview_jpeg(64, 48, magenta);
    gal_test_dng raw = camera_raw(layout, make, model, NULL);
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) small = NULL;
    g_autoptr(VipsImage) large = NULL;
    double rgb[3];

    raw.preview_jpeg = g_bytes_get_data(jpeg, &raw.preview_len);
    raw.preview_width = 64;
    raw.preview_height = 48;
    g_mkdir_with_parents(in_dir, 0755);
    path = forge(in_dir, name, &raw);
    run(tmp,
        "gallop: 1\n"
        "output: {format: png}\n"
        "stages: [ {resize: {width: 64, height: 64, fit: inside}} ]\n",
        in_dir, small_dir);
    small = load_output(small_dir, stem, NULL);
    cr_expect_eq(small->Xsize, 64, "%s", name);
    gal_test_block_mean(small, 30, 22, rgb);
    for (int b = 0; b < 3; b++)
        cr_expect(fabs(rgb[b] - magenta[b]) <= 6, "%s from the preview, band %d: %.1f, want %.0f",
            name, b, rgb[b], magenta[b]);
    run(tmp,
        "gallop: 1\n"
        "output: {format: png}\n"
        "stages: [ {resize: {width: 128, height: 128, fit: inside}} ]\n",
        in_dir, large_dir);
    large = load_output(large_dir, stem, NULL);
    cr_assert_eq(large->Xsize, 128, "%s", name);
    gal_test_raw_expect_aimed(large, targets, name);
}

Test(raw_makers, a_cr2s_preview_makes_what_it_covers_and_a_larger_output_is_developed)
{
    expect_preview_then_develop(GAL_TEST_RAW_CR2, "Canon", "Canon EOS 5D Mark III",
        "IMG_0003.CR2");
}

Test(raw_makers, a_rafs_preview_makes_what_it_covers_and_a_larger_output_is_developed)
{
    expect_preview_then_develop(GAL_TEST_RAW_RAF, "FUJIFILM", "X100", "DSCF0003.RAF");
}
