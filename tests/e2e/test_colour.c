/* Colour end to end (issue 13): CMYK JPEG and TIFF files, with and without
 * an embedded profile, come out with black black; a profile lacking the
 * intent's table gives the photo a warning, printed and in the report. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(colour, .init = gal_test_setup, .fini = gal_test_teardown);

/* A 96x32 sRGB chart: black, red, white thirds. */
static VipsImage *
chart(void)
{
    static double black[3] = { 0, 0, 0 }, red[3] = { 200, 30, 35 }, white[3] = { 255, 255, 255 };
    VipsImage *zero, *cast, *canvas;

    cr_assert_eq(vips_black(&zero, 96, 32, "bands", 3, NULL), 0);
    cr_assert_eq(vips_cast_uchar(zero, &cast, NULL), 0);
    g_object_unref(zero);
    cr_assert_eq(vips_copy(cast, &zero, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    g_object_unref(cast);
    canvas = vips_image_copy_memory(zero);
    g_object_unref(zero);
    cr_assert_eq(vips_draw_rect(canvas, black, 3, 0, 0, 32, 32, "fill", TRUE, NULL), 0);
    cr_assert_eq(vips_draw_rect(canvas, red, 3, 32, 0, 32, 32, "fill", TRUE, NULL), 0);
    cr_assert_eq(vips_draw_rect(canvas, white, 3, 64, 0, 32, 32, "fill", TRUE, NULL), 0);
    return canvas;
}

static double
at(VipsImage *image, int x, int y, int band)
{
    double *vec, v;
    int n;

    cr_assert_eq(vips_getpoint(image, &vec, &n, x, y, NULL), 0);
    v = vec[band];
    g_free(vec);
    return v;
}

/* Run a plain PNG preset over `dir`; stderr in *err (may be NULL). */
static void
run(const char *tmp, const char *dir, char **err)
{
    g_autofree char *preset = gal_test_write_preset(tmp, "plain.yaml",
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\" }\n"
        "stages:\n  - resize: { width: 96 }\n");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, dir, "-o", out, "-q", NULL };

    cr_assert_eq(gal_test_spawn(argv, NULL, err), 0, "%s", err ? *err : "");
}

Test(colour, cmyk_files_come_out_with_black_black)
{
    g_autofree char *tmp = gal_test_tmpdir("colour-cmyk");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autoptr(VipsImage) srgb = chart();
    g_autoptr(VipsImage) cmyk = NULL;
    static const char *const names[] = { "tagged.jpg", "bare.jpg", "tiff.tif" };
    g_autofree char *err = NULL;

    g_mkdir_with_parents(in, 0777);
    cr_assert_eq(vips_icc_export(srgb, &cmyk, "output_profile", "cmyk", NULL), 0);
    {
        g_autofree char *a = g_build_filename(in, names[0], NULL);
        g_autofree char *b = g_build_filename(in, names[1], NULL);
        g_autofree char *c = g_build_filename(in, names[2], NULL);

        cr_assert_eq(vips_jpegsave(cmyk, a, "Q", 95, NULL), 0);
        cr_assert_eq(vips_jpegsave(cmyk, b, "Q", 95, "strip", TRUE, NULL), 0);
        cr_assert_eq(vips_tiffsave(cmyk, c, NULL), 0);
    }
    run(tmp, in, &err);
    cr_expect_null(strstr(err, "warning"), "no warnings: %s", err);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *stem = g_strndup(names[i], strlen(names[i]) - 4);
        g_autofree char *png = g_strdup_printf("%s/out/%s.png", tmp, stem);
        g_autoptr(VipsImage) out = gal_test_load_image(png, FALSE);

        cr_assert_eq(out->Bands, 3, "%s: sRGB", names[i]);
        for (int band = 0; band < 3; band++)
            cr_expect_leq(at(out, 16, 16, band), 8, "%s: black, band %d: %g", names[i], band,
                at(out, 16, 16, band));
        cr_expect_geq(at(out, 48, 16, 0) - at(out, 48, 16, 1), 150, "%s: red stays red (%g %g)",
            names[i], at(out, 48, 16, 0), at(out, 48, 16, 1));
        cr_expect_geq(at(out, 80, 16, 1), 250, "%s: white", names[i]);
    }
}

Test(colour, a_profile_without_the_intents_table_warns_per_photo)
{
    g_autofree char *tmp = gal_test_tmpdir("colour-xyb");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *path = g_build_filename(in, "xyb.jpg", NULL);
    g_autofree char *plain = g_build_filename(in, "plain.jpg", NULL);
    g_autoptr(VipsImage) srgb = chart();
    g_autoptr(VipsImage) tagged = NULL;
    gsize len;
    void *profile = gal_test_perceptual_only_profile(&len);
    g_autofree char *err = NULL;

    g_mkdir_with_parents(in, 0777);
    cr_assert_eq(vips_copy(srgb, &tagged, NULL), 0);
    vips_image_set_blob_copy(tagged, VIPS_META_ICC_NAME, profile, len);
    g_free(profile);
    cr_assert_eq(vips_jpegsave(tagged, path, "Q", 95, NULL), 0);
    cr_assert_eq(vips_jpegsave(srgb, plain, "Q", 95, NULL), 0);
    run(tmp, in, &err);
    cr_expect(strstr(err, "warning: ") && strstr(err, "xyb.jpg: colour profile \"perceptual "
                                                      "only\" has no relative colorimetric "
                                                      "table; converted with its perceptual one"),
        "the warning names the photo: %s", err);
    cr_expect_null(strstr(err, "plain.jpg"), "only that photo: %s", err);
}

/* A 1600x1000 sRGB picture of hard edges between saturated colours: 37 px
 * blocks (so no edge falls on a whole output pixel at 1/4 scale) of red,
 * green, blue, black, white and yellow in turn. */
static VipsImage *
edges(void)
{
    static double colours[][3] = { { 230, 20, 30 }, { 20, 200, 40 }, { 30, 40, 220 },
        { 0, 0, 0 }, { 255, 255, 255 }, { 250, 220, 0 } };
    VipsImage *zero, *cast, *canvas;

    cr_assert_eq(vips_black(&zero, 1600, 1000, "bands", 3, NULL), 0);
    cr_assert_eq(vips_cast_uchar(zero, &cast, NULL), 0);
    g_object_unref(zero);
    cr_assert_eq(vips_copy(cast, &zero, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    g_object_unref(cast);
    canvas = vips_image_copy_memory(zero);
    g_object_unref(zero);
    for (int y = 0, row = 0; y < 1000; y += 37, row++)
        for (int x = 0, col = 0; x < 1600; x += 37, col++)
            cr_assert_eq(vips_draw_rect(canvas, colours[(row * 5 + col) % 6], 3, x, y, 37, 37,
                             "fill", TRUE, NULL),
                0);
    return canvas;
}

Test(colour, a_gamma_18_photo_is_converted_before_it_is_scaled)
{
    g_autofree char *tmp = gal_test_tmpdir("colour-gamma18");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *icc = g_build_filename(tmp, "gamma18.icc", NULL);
    g_autofree char *path = g_build_filename(in, "prophoto.png", NULL);
    g_autofree char *png = g_build_filename(tmp, "out", "prophoto.png", NULL);
    g_autoptr(VipsImage) srgb = edges();
    g_autoptr(VipsImage) tagged = NULL;
    g_autoptr(VipsImage) photo = NULL;
    g_autoptr(VipsImage) converted = NULL;
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) reference = NULL;
    g_autoptr(VipsImage) out = NULL;
    gsize len;
    g_autofree void *profile = gal_test_gamma18_profile(&len);
    double mean, max;

    g_mkdir_with_parents(in, 0777);
    cr_assert(g_file_set_contents(icc, profile, (gssize) len, NULL));
    /* 16 bits a channel in the gamma-1.8 encoding, the profile embedded. */
    cr_assert_eq(vips_icc_export(srgb, &tagged, "output_profile", icc, "depth", 16, NULL), 0);
    cr_assert_eq(vips_pngsave(tagged, path, NULL), 0);
    {
        /* Without output sharpening, which is no part of the comparison. */
        g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
            "gallop: 1\noutput: { format: png, name: \"{stem}.png\", sharpen: none }\n"
            "stages:\n  - resize: { width: 400 }\n");
        g_autofree char *dir = g_build_filename(tmp, "out", NULL);
        const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", dir, "-q", NULL };
        g_autofree char *err = NULL;

        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    }
    out = gal_test_load_image(png, FALSE);
    /* What the photo should give: into sRGB (16 bits), then scaled, as
     * sharp does. */
    photo = gal_test_load_image(path, FALSE);
    cr_assert_eq(vips_icc_transform(photo, &converted, "srgb", "embedded", TRUE, "intent",
                     VIPS_INTENT_RELATIVE, "depth", 16, NULL),
        0);
    cr_assert_eq(vips_resize(converted, &scaled, 0.25, NULL), 0);
    cr_assert_eq(vips_colourspace(scaled, &reference, VIPS_INTERPRETATION_sRGB, NULL), 0);
    gal_test_delta_e(out, reference, &mean, &max);
    /* Scaled in the gamma-1.8 encoding and converted after, the edges come
     * out 20-30 dE00 off (mean about 3): docs/presets.md "Colour". */
    cr_expect_leq(mean, 0.3, "dE00 mean %.2f (max %.2f)", mean, max);
    cr_expect_leq(max, 2.0, "dE00 max %.2f (mean %.2f)", max, mean);
}
