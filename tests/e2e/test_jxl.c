/* JPEG XL, in and out (format_jxl.c, decode.c): output.format jxl writes
 * a JPEG XL file (its signature, its size, its pixels close to the JPEG
 * the same preset makes), a .jxl photo is read by its own loader, and a
 * gallery offers the JXL files as a <source>. The real binary runs over
 * copies of fixtures in a per-process folder. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(jxl, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

/* gallop run PRESET IN -o OUT -j 2; its status, its output in *out. */
static int
run(const char *preset, const char *in, const char *out_dir, char **out, char **err)
{
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-j", "2", NULL };

    return gal_test_spawn(argv, out, err);
}

/* A file read as libvips' source loaders read it (the file loaders of
 * JPEG XL are blocked as untrusted; gallop reads only through sources). */
static VipsImage *
load(const char *path)
{
    VipsSource *source = vips_source_new_from_file(path);
    VipsImage *image;

    cr_assert_not_null(source, "%s: %s", path, vips_error_buffer());
    image = vips_image_new_from_source(source, "", NULL);
    g_object_unref(source);
    cr_assert_not_null(image, "%s: %s", path, vips_error_buffer());
    return image;
}

/* `image` as a JPEG XL file, through the one saver gallop leaves open. */
static void
save_jxl(VipsImage *image, const char *path, gboolean lossless)
{
    VipsTarget *target = vips_target_new_to_file(path);

    cr_assert_not_null(target, "%s: %s", path, vips_error_buffer());
    cr_assert_eq(vips_jxlsave_target(image, target, "lossless", lossless, NULL), 0, "%s",
        vips_error_buffer());
    g_object_unref(target);
}

static const char *
loader_of(VipsImage *image)
{
    const char *found = NULL;

    cr_assert_eq(vips_image_get_string(image, "vips-loader", &found), 0);
    return found;
}

Test(jxl, output_format_jxl_writes_a_jpeg_xl_file_close_to_the_jpeg)
{
    g_autofree char *tmp = gal_test_tmpdir("jxl-out");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_jxl = g_build_filename(tmp, "jxl", NULL);
    g_autofree char *out_jpg = g_build_filename(tmp, "jpg", NULL);
    g_autofree char *jxl_preset = gal_test_write_preset(tmp, "jxl.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 300, height: 300, fit: inside}} ]\n"
        "output: {format: jxl, quality: 90}\n");
    g_autofree char *jpg_preset = gal_test_write_preset(tmp, "jpg.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 300, height: 300, fit: inside}} ]\n"
        "output: {format: jpeg, quality: 90}\n");
    g_autofree char *jxl_path = NULL;
    g_autofree char *jpg_path = NULL;
    g_autofree char *bytes = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) jxl = NULL;
    g_autoptr(VipsImage) jpg = NULL;
    gsize len = 0;
    double max_abs, mean_abs;

    gal_test_copy_trip(in, 1, NULL);
    cr_assert_eq(run(jxl_preset, in, out_jxl, &out, &err), 0, "%s\n%s", out, err);
    cr_expect(strstr(out, "trip-01.jxl (300x300)") != NULL, "%s", out);
    cr_assert_eq(run(jpg_preset, in, out_jpg, NULL, NULL), 0);
    jxl_path = g_build_filename(out_jxl, "trip-01.jxl", NULL);
    jpg_path = g_build_filename(out_jpg, "trip-01.jpg", NULL);
    bytes = gal_test_read_bytes(jxl_path, &len);
    /* A bare codestream (FF 0A) or the ISO container, as libjxl writes. */
    cr_assert_gt(len, 12);
    cr_expect((guint8) bytes[0] == 0xff && bytes[1] == 0x0a ? TRUE
                  : memcmp(bytes, "\0\0\0\x0cJXL \r\n\x87\n", 12) == 0,
        "not a JPEG XL file");
    jxl = load(jxl_path);
    jpg = load(jpg_path);
    cr_expect(g_str_has_prefix(loader_of(jxl), "jxlload"), "%s", loader_of(jxl));
    cr_assert_eq(jxl->Xsize, 300);
    cr_assert_eq(jxl->Ysize, 300);
    cr_assert_eq(gal_test_diff(jxl, jpg, &max_abs, &mean_abs), 0);
    /* Two lossy encodings of one picture at quality 90. */
    cr_expect_lt(mean_abs, 3.0, "mean difference %.2f from the JPEG", mean_abs);
}

Test(jxl, a_jpeg_xl_photo_is_read)
{
    g_autofree char *tmp = gal_test_tmpdir("jxl-in");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *jpeg = g_build_filename(in, "trip-01.jpg", NULL);
    g_autofree char *jxl = g_build_filename(in, "trip-01.jxl", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\n"
        "input: {include: ['*.jxl']}\n"
        "output: {format: png, name: '{stem}-{name}.{ext}'}\n");
    g_autofree char *png = g_build_filename(out_dir, "trip-01-trip-01.jxl.png", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) original = NULL;
    g_autoptr(VipsImage) written = NULL;
    double max_abs, mean_abs;

    /* The fixture as a lossless JPEG XL: the output is its pixels. */
    gal_test_copy_trip(in, 1, NULL);
    original = gal_test_load_image(jpeg, FALSE);
    save_jxl(original, jxl, TRUE);
    cr_assert_eq(run(preset, in, out_dir, &out, &err), 0, "%s\n%s", out, err);
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 1, "%s", out);
    written = load(png);
    cr_assert_eq(gal_test_diff(written, original, &max_abs, &mean_abs), 0);
    cr_expect_leq(max_abs, 1.0, "max difference %.0f", max_abs);
}

/* A truncated JPEG XL fails alone, named, with the decoder's words. */
Test(jxl, a_truncated_jpeg_xl_fails_alone)
{
    g_autofree char *tmp = gal_test_tmpdir("jxl-cut");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *jpeg = g_build_filename(in, "trip-01.jpg", NULL);
    g_autofree char *whole = g_build_filename(tmp, "whole.jxl", NULL);
    g_autofree char *cut = g_build_filename(in, "cut.jxl", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\n"
        "input: {include: ['*.jxl', '*.jpg']}\n");
    g_autofree char *bytes = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) original = NULL;
    gsize len = 0;

    gal_test_copy_trip(in, 1, NULL);
    original = gal_test_load_image(jpeg, FALSE);
    save_jxl(original, whole, FALSE);
    bytes = gal_test_read_bytes(whole, &len);
    cr_assert(g_file_set_contents(cut, bytes, (gssize) len / 2, NULL));
    cr_assert_eq(run(preset, in, out_dir, &out, &err), 1, "%s\n%s", out, err);
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 1, "%s", out);
    /* Told a JPEG XL and given to its decoder, which finds it cut. */
    cr_expect(strstr(err, "cut.jxl: decoding failed: jxlload") != NULL, "%s", err);
}
