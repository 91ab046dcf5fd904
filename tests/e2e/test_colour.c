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

/* Run a PNG preset with output `keys` (", profile: ..." and the like)
 * over `in`, into `tmp`/`out_name`. */
static void
run_png(const char *tmp, const char *in, const char *out_name, const char *keys)
{
    g_autofree char *file = g_strdup_printf("%s.yaml", out_name);
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\", sharpen: none%s }\n", keys);
    g_autofree char *preset = gal_test_write_preset(tmp, file, yaml);
    g_autofree char *dir = g_build_filename(tmp, out_name, NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", dir, "-q", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
}

/* CIELAB of (x, y) of `image`, through its embedded profile (none: sRGB). */
static void
lab_at(VipsImage *image, int x, int y, double lab[3])
{
    g_autoptr(VipsImage) imported = NULL;
    gboolean tagged = vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;

    cr_assert_eq(vips_icc_import(image, &imported, "embedded", tagged, "input_profile", "srgb",
                     "intent", VIPS_INTENT_RELATIVE, "pcs", VIPS_PCS_LAB, NULL),
        0);
    for (int band = 0; band < 3; band++)
        lab[band] = at(imported, x, y, band);
}

static double
delta_e_lab(const double a[3], const double b[3])
{
    return vips_col_dE00(a[0], a[1], a[2], b[0], b[1], b[2]);
}

Test(colour, display_p3_outputs_keep_colours_srgb_cannot_show)
{
    g_autofree char *tmp = gal_test_tmpdir("colour-p3");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *path = g_build_filename(in, "p3.png", NULL);
    g_autoptr(VipsImage) srgb = chart();
    g_autoptr(VipsImage) as_p3 = NULL;
    g_autoptr(VipsImage) photo = NULL;
    const void *p3_profile;
    size_t p3_len;
    static double green[3] = { 0, 255, 0 }, red[3] = { 255, 0, 0 };
    static const struct {
        const char *dir, *keys;
        gboolean tagged;
    } outputs[] = { { "srgb", "", FALSE }, { "p3", ", profile: display-p3", TRUE } };
    double source_green[3], source_red[3];

    g_mkdir_with_parents(in, 0777);
    /* Display P3's own green and red, beyond what sRGB can show, in a
     * photo tagged with libvips' P3 profile. */
    cr_assert_eq(vips_icc_export(srgb, &as_p3, "output_profile", "p3", NULL), 0);
    cr_assert_eq(vips_image_get_blob(as_p3, VIPS_META_ICC_NAME, &p3_profile, &p3_len), 0);
    photo = vips_image_copy_memory(as_p3);
    cr_assert_eq(vips_draw_rect(photo, green, 3, 0, 0, 32, 32, "fill", TRUE, NULL), 0);
    cr_assert_eq(vips_draw_rect(photo, red, 3, 32, 0, 32, 32, "fill", TRUE, NULL), 0);
    cr_assert_eq(vips_pngsave(photo, path, NULL), 0);
    lab_at(photo, 16, 16, source_green);
    lab_at(photo, 48, 16, source_red);

    for (size_t i = 0; i < G_N_ELEMENTS(outputs); i++) {
        g_autofree char *png = g_build_filename(tmp, outputs[i].dir, "p3.png", NULL);
        g_autoptr(VipsImage) out = NULL;
        double got_green[3], got_red[3], de_green, de_red;

        run_png(tmp, in, outputs[i].dir, outputs[i].keys);
        out = gal_test_load_image(png, FALSE);
        cr_expect_eq(vips_image_get_typeof(out, VIPS_META_ICC_NAME) != 0, outputs[i].tagged,
            "%s: a profile embedded only for display-p3", outputs[i].dir);
        lab_at(out, 16, 16, got_green);
        lab_at(out, 48, 16, got_red);
        de_green = delta_e_lab(source_green, got_green);
        de_red = delta_e_lab(source_red, got_red);
        if (outputs[i].tagged) {
            cr_expect_leq(de_green, 1.0, "P3 green kept: dE00 %.2f", de_green);
            cr_expect_leq(de_red, 1.0, "P3 red kept: dE00 %.2f", de_red);
        }
        else {
            /* sRGB clips both: what display-p3 is for. */
            cr_expect_geq(de_green, 5.0, "sRGB clips P3 green: dE00 %.2f", de_green);
            cr_expect_geq(de_red, 3.0, "sRGB clips P3 red: dE00 %.2f", de_red);
        }
    }
}

Test(colour, keep_writes_an_rgb_photos_own_pixels_and_profile)
{
    g_autofree char *tmp = gal_test_tmpdir("colour-keep");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *icc = g_build_filename(tmp, "gamma18.icc", NULL);
    g_autofree char *path = g_build_filename(in, "prophoto.png", NULL);
    g_autofree char *png = g_build_filename(tmp, "keep", "prophoto.png", NULL);
    g_autoptr(VipsImage) srgb = chart();
    g_autoptr(VipsImage) tagged = NULL;
    g_autoptr(VipsImage) photo = NULL;
    g_autoptr(VipsImage) out = NULL;
    gsize len;
    g_autofree void *profile = gal_test_gamma18_profile(&len);
    const void *kept;
    size_t kept_len;

    g_mkdir_with_parents(in, 0777);
    cr_assert(g_file_set_contents(icc, profile, (gssize) len, NULL));
    cr_assert_eq(vips_icc_export(srgb, &tagged, "output_profile", icc, NULL), 0);
    cr_assert_eq(vips_pngsave(tagged, path, NULL), 0);
    run_png(tmp, in, "keep", ", profile: keep");
    out = gal_test_load_image(png, FALSE);
    photo = gal_test_load_image(path, FALSE);
    cr_assert_eq(vips_image_get_blob(out, VIPS_META_ICC_NAME, &kept, &kept_len), 0,
        "the photo's profile is embedded");
    cr_expect(kept_len == len && memcmp(kept, profile, len) == 0, "byte for byte (%zu, %zu)",
        kept_len, (size_t) len);
    for (int x = 16; x < 96; x += 32)
        for (int band = 0; band < 3; band++)
            cr_expect_eq(at(out, x, 16, band), at(photo, x, 16, band),
                "x=%d band %d: the photo's own encoding", x, band);
}

/* A contact sheet is drawn on a canvas of its own: under display-p3 it
 * carries the P3 profile its tiles' pixels need all the same. */
Test(colour, a_display_p3_contact_sheet_carries_the_p3_profile)
{
    g_autofree char *tmp = gal_test_tmpdir("colour-p3-sheet");
    g_autofree char *preset = gal_test_write_preset(tmp, "sheet.yaml",
        "gallop: 1\noutput: { profile: display-p3, photos: false }\n"
        "stages:\n  - resize: { width: 120 }\n  - contact-sheet: { columns: 2 }\n");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet = g_build_filename(out, "contact-1.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, GAL_FIXTURES_DIR "/trip/trip-14.jpg",
        GAL_FIXTURES_DIR "/trip/trip-01.jpg", "-o", out, "-q", NULL };
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) image = NULL;
    VipsBlob *p3 = NULL;
    const void *icc, *want;
    size_t icc_len, want_len;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    image = gal_test_load_image(sheet, FALSE);
    cr_assert_eq(vips_image_get_blob(image, VIPS_META_ICC_NAME, &icc, &icc_len), 0,
        "the sheet has no profile");
    cr_assert_eq(vips_profile_load("p3", &p3, NULL), 0);
    want = vips_blob_get(p3, &want_len);
    cr_expect(icc_len == want_len && memcmp(icc, want, icc_len) == 0, "libvips' P3 profile");
    vips_area_unref(VIPS_AREA(p3));
}
