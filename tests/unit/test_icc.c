/* Colour conversion with lcms2 (icc.c): CMYK to sRGB with black-point
 * compensation, and profiles lacking the intent's table (issue 13). The
 * CMYK photos are made here: an sRGB chart exported through libvips'
 * built-in CMYK profile, as a prepress tool would. */
#include <math.h>

#include <criterion/criterion.h>

#include "gal_test.h"
#include "icc.h"

TestSuite(icc, .init = gal_test_setup, .fini = gal_test_teardown);

#define PATCH 32

/* Named patches of the chart, left to right; their sRGB values are the
 * reference the round trip through CMYK is held to. All but the first are
 * inside the CMYK gamut (black is the point of the test, red its edge). */
static const struct {
    const char *name;
    double rgb[3];
    double max_de; /* CIEDE2000 allowed after sRGB -> CMYK -> sRGB */
} patches[] = {
    { "black", { 0, 0, 0 }, 0 }, /* checked by level, not delta E */
    { "red", { 200, 30, 35 }, 6 },
    { "skin", { 224, 172, 140 }, 4 },
    { "sky", { 95, 145, 200 }, 5 },
    { "foliage", { 70, 120, 55 }, 5 },
    { "grey", { 128, 128, 128 }, 5 },
    { "white", { 255, 255, 255 }, 2 },
};

static VipsImage *
chart_srgb(void)
{
    VipsImage *black, *lifted, *canvas;
    int n = G_N_ELEMENTS(patches);

    cr_assert_eq(vips_black(&black, PATCH * n, PATCH, "bands", 3, NULL), 0);
    cr_assert_eq(vips_cast_uchar(black, &lifted, NULL), 0);
    g_object_unref(black);
    cr_assert_eq(vips_copy(lifted, &black, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    g_object_unref(lifted);
    canvas = vips_image_copy_memory(black);
    g_object_unref(black);
    for (int i = 0; i < n; i++)
        cr_assert_eq(vips_draw_rect(canvas, (double *) patches[i].rgb, 3, i * PATCH, 0, PATCH,
                         PATCH, "fill", TRUE, NULL),
            0);
    return canvas;
}

/* The chart in CMYK, 8-bit, through libvips' CMYK profile (attached). */
static VipsImage *
chart_cmyk(void)
{
    g_autoptr(VipsImage) srgb = chart_srgb();
    VipsImage *cmyk;

    cr_assert_eq(vips_icc_export(srgb, &cmyk, "output_profile", "cmyk", NULL), 0);
    cr_assert_eq(cmyk->Bands, 4);
    cr_assert_eq(cmyk->Type, VIPS_INTERPRETATION_CMYK);
    return cmyk;
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

/* CIEDE2000 between two sRGB images at the centre of patch i. */
static double
delta_e(VipsImage *a, VipsImage *b, int i)
{
    g_autoptr(VipsImage) la = NULL;
    g_autoptr(VipsImage) lb = NULL;
    g_autoptr(VipsImage) de = NULL;

    cr_assert_eq(vips_colourspace(a, &la, VIPS_INTERPRETATION_LAB, NULL), 0);
    cr_assert_eq(vips_colourspace(b, &lb, VIPS_INTERPRETATION_LAB, NULL), 0);
    cr_assert_eq(vips_dE00(la, lb, &de, NULL), 0);
    return at(de, i * PATCH + PATCH / 2, PATCH / 2, 0);
}

/* C*ab of an sRGB image at the centre of patch i. */
static double
chroma(VipsImage *image, int i)
{
    g_autoptr(VipsImage) lab = NULL;
    double a, b;

    cr_assert_eq(vips_colourspace(image, &lab, VIPS_INTERPRETATION_LAB, NULL), 0);
    a = at(lab, i * PATCH + PATCH / 2, PATCH / 2, 1);
    b = at(lab, i * PATCH + PATCH / 2, PATCH / 2, 2);
    return hypot(a, b);
}

static VipsImage *
ours(VipsImage *cmyk, gboolean embedded, GString *warnings)
{
    const void *profile = NULL;
    size_t len = 0;
    VipsImage *out, *memory;
    gal_error err = { 0 };

    if (embedded)
        cr_assert_eq(vips_image_get_blob(cmyk, VIPS_META_ICC_NAME, &profile, &len), 0);
    cr_assert(gal__icc_is_ours(cmyk, profile, len), "CMYK is converted by gallop");
    cr_assert_eq(gal__icc_to_srgb(cmyk, profile, len, &out, warnings, &err), 0, "%s", err.msg);
    cr_assert_eq(out->Bands, 3);
    cr_assert_eq(out->Type, VIPS_INTERPRETATION_sRGB);
    memory = vips_image_copy_memory(out);
    g_object_unref(out);
    return memory;
}

Test(icc, cmyk_rich_black_comes_out_black)
{
    g_autoptr(VipsImage) cmyk = chart_cmyk();
    g_autoptr(GString) warnings = g_string_new(NULL);
    g_autoptr(VipsImage) srgb = ours(cmyk, TRUE, warnings);
    g_autoptr(VipsImage) bare = ours(cmyk, FALSE, warnings);
    g_autoptr(VipsImage) by_vips = NULL;

    for (int band = 0; band < 3; band++) {
        cr_expect_leq(at(srgb, PATCH / 2, PATCH / 2, band), 8, "black, band %d: %g", band,
            at(srgb, PATCH / 2, PATCH / 2, band));
        cr_expect_leq(at(bare, PATCH / 2, PATCH / 2, band), 8,
            "black without an embedded profile, band %d: %g", band,
            at(bare, PATCH / 2, PATCH / 2, band));
    }
    cr_expect_eq(warnings->len, 0, "no warnings: %s", warnings->str);
    /* The test means something: libvips' own conversion leaves it grey. */
    cr_assert_eq(vips_colourspace(cmyk, &by_vips, VIPS_INTERPRETATION_sRGB, NULL), 0);
    cr_expect_gt(at(by_vips, PATCH / 2, PATCH / 2, 0), 20, "libvips' black: %g",
        at(by_vips, PATCH / 2, PATCH / 2, 0));
}

Test(icc, cmyk_patches_stay_close_and_red_keeps_its_saturation)
{
    g_autoptr(VipsImage) reference = chart_srgb();
    g_autoptr(VipsImage) cmyk = chart_cmyk();
    g_autoptr(GString) warnings = g_string_new(NULL);
    g_autoptr(VipsImage) srgb = ours(cmyk, TRUE, warnings);
    g_autoptr(VipsImage) by_vips = NULL;

    for (int i = 1; i < (int) G_N_ELEMENTS(patches); i++)
        cr_expect_leq(delta_e(srgb, reference, i), patches[i].max_de, "%s: dE00 %.2f",
            patches[i].name, delta_e(srgb, reference, i));
    cr_assert_eq(vips_colourspace(cmyk, &by_vips, VIPS_INTERPRETATION_sRGB, NULL), 0);
    cr_expect_geq(chroma(srgb, 1), 0.9 * chroma(reference, 1), "red chroma %.1f of %.1f",
        chroma(srgb, 1), chroma(reference, 1));
    cr_expect_geq(chroma(srgb, 1), chroma(by_vips, 1), "red chroma %.1f, libvips %.1f",
        chroma(srgb, 1), chroma(by_vips, 1));
}

Test(icc, cmyk_with_alpha_keeps_it)
{
    g_autoptr(VipsImage) cmyk = chart_cmyk();
    g_autoptr(VipsImage) alpha = NULL;
    g_autoptr(VipsImage) with_alpha = NULL;
    g_autoptr(GString) warnings = g_string_new(NULL);
    VipsImage *out;
    gal_error err = { 0 };

    cr_assert_eq(vips_black(&alpha, cmyk->Xsize, cmyk->Ysize, NULL), 0);
    {
        g_autoptr(VipsImage) lifted = NULL;
        g_autoptr(VipsImage) lifted8 = NULL;

        cr_assert_eq(vips_linear1(alpha, &lifted, 1, 200, NULL), 0);
        cr_assert_eq(vips_cast_uchar(lifted, &lifted8, NULL), 0);
        cr_assert_eq(vips_bandjoin2(cmyk, lifted8, &with_alpha, NULL), 0);
    }
    cr_assert_eq(gal__icc_to_srgb(with_alpha, NULL, 0, &out, warnings, &err), 0, "%s", err.msg);
    cr_expect_eq(out->Bands, 4);
    cr_expect_eq(at(out, 5, 5, 3), 200);
    cr_expect_leq(at(out, 5, 5, 0), 8);
    g_object_unref(out);
}

Test(icc, a_profile_without_the_intents_table_falls_back_and_says_so)
{
    gsize len;
    g_autofree void *profile = gal_test_perceptual_only_profile(&len);
    g_autoptr(VipsImage) reference = chart_srgb();
    g_autoptr(GString) warnings = g_string_new(NULL);
    VipsImage *out, *memory;
    gal_error err = { 0 };

    cr_assert(gal__icc_is_ours(reference, profile, len),
        "a profile without a relative colorimetric table is converted by gallop");
    cr_assert_eq(gal__icc_to_srgb(reference, profile, len, &out, warnings, &err), 0, "%s",
        err.msg);
    memory = vips_image_copy_memory(out);
    g_object_unref(out);
    cr_expect(strstr(warnings->str, "\"perceptual only\" has no relative colorimetric table; "
                                    "converted with its perceptual one"),
        "warning: %s", warnings->str);
    /* The profile is sRGB's: the colours come back as they were. */
    for (int i = 0; i < (int) G_N_ELEMENTS(patches); i++)
        cr_expect_leq(delta_e(memory, reference, i), 1.5, "%s: dE00 %.2f", patches[i].name,
            delta_e(memory, reference, i));
    g_object_unref(memory);
}

Test(icc, an_ordinary_rgb_profile_is_left_to_libvips)
{
    g_autoptr(VipsImage) reference = chart_srgb();
    VipsBlob *srgb = NULL;
    const void *data;
    size_t len;

    cr_assert_eq(vips_profile_load("srgb", &srgb, NULL), 0);
    data = vips_blob_get(srgb, &len);
    cr_expect_not(gal__icc_is_ours(reference, data, len));
    cr_expect_not(gal__icc_is_ours(reference, NULL, 0), "sRGB without a profile");
    cr_expect_not(gal__icc_is_ours(reference, "not a profile", 13), "unreadable: libvips'");
    vips_area_unref(VIPS_AREA(srgb));
}
