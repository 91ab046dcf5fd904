/* output.sharpen end to end (issue 13): a photo made smaller is sharpened
 * after its resize, an enlarged one never; overlays drawn after it are not. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(sharpen, .init = gal_test_setup, .fini = gal_test_teardown);

/* trip-01 (640x640) through `stages`, with output.sharpen `level`, as PNG. */
static VipsImage *
run(const char *tmp, const char *stages, const char *level)
{
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\", sharpen: %s }\nstages:\n%s",
        level, stages);
    g_autofree char *name = g_strdup_printf("%s.yaml", level);
    g_autofree char *preset = gal_test_write_preset(tmp, name, yaml);
    g_autofree char *in = g_build_filename(GAL_FIXTURES_DIR, "trip", "trip-01.jpg", NULL);
    g_autofree char *out = g_build_filename(tmp, level, NULL);
    g_autofree char *png = g_build_filename(out, "trip-01.png", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    return gal_test_load_image(png, FALSE);
}

static double
edge_energy(VipsImage *image)
{
    g_autoptr(VipsImage) band = NULL;
    g_autoptr(VipsImage) edges = NULL;
    double mean;

    cr_assert_eq(vips_extract_band(image, &band, 0, NULL), 0);
    cr_assert_eq(vips_sobel(band, &edges, NULL), 0);
    cr_assert_eq(vips_avg(edges, &mean, NULL), 0);
    return mean;
}

Test(sharpen, a_photo_made_smaller_is_sharpened_by_default)
{
    g_autofree char *tmp = gal_test_tmpdir("sharpen-down");
    const char *stages = "  - resize: { width: 300 }\n";
    g_autoptr(VipsImage) none = run(tmp, stages, "none");
    g_autoptr(VipsImage) standard = run(tmp, stages, "standard");
    g_autoptr(VipsImage) high = run(tmp, stages, "high");

    cr_expect_gt(edge_energy(standard), edge_energy(none), "standard %.3f, none %.3f",
        edge_energy(standard), edge_energy(none));
    cr_expect_gt(edge_energy(high), edge_energy(standard), "high %.3f, standard %.3f",
        edge_energy(high), edge_energy(standard));
}

Test(sharpen, an_enlargement_is_never_sharpened)
{
    g_autofree char *tmp = gal_test_tmpdir("sharpen-up");
    const char *stages = "  - resize: { width: 900, upscale: true }\n";
    g_autoptr(VipsImage) none = run(tmp, stages, "none");
    g_autoptr(VipsImage) high = run(tmp, stages, "high");
    double max_abs, mean_abs;

    cr_assert_eq(gal_test_diff(none, high, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0, "an enlargement changed by sharpening: max %g", max_abs);
}

static gboolean
is_band(VipsImage *image, int x, int y)
{
    double *vec;
    int n;
    gboolean yes;

    cr_assert_eq(vips_getpoint(image, &vec, &n, x, y, NULL), 0);
    yes = vec[0] == 0x20 && vec[1] == 0x40 && vec[2] == 0x60;
    g_free(vec);
    return yes;
}

Test(sharpen, overlays_after_the_resize_are_not_sharpened)
{
    /* A flat band drawn after the resize keeps exactly its colour, even in
     * its first row, against the photo: sharpened after it, that edge
     * would get a halo. */
    g_autofree char *tmp = gal_test_tmpdir("sharpen-order");
    const char *stages = "  - resize: { width: 300 }\n"
                         "  - caption-burn: { text: \"Hi\", band: \"#204060\", gravity: south, "
                         "padding: 20px }\n";
    g_autoptr(VipsImage) high = run(tmp, stages, "high");
    int top = high->Ysize - 1;

    while (top > 0 && is_band(high, 2, top - 1))
        top--;
    cr_assert_lt(top, high->Ysize - 20, "the band is there (from row %d)", top);
    for (int x = 0; x < high->Xsize; x += 3)
        cr_expect(is_band(high, x, top), "row %d, x %d: not the band's colour", top, x);
}

/* trip-01 made 300 px wide under the output keys `keys`, as PNG, in
 * `tmp`/`label`. */
static VipsImage *
run_keys(const char *tmp, const char *label, const char *keys)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\noutput: { format: png, name: "
                                            "\"{stem}.png\", %s }\nstages:\n"
                                            "  - resize: { width: 300 }\n",
        keys);
    g_autofree char *name = g_strdup_printf("%s.yaml", label);
    g_autofree char *preset = gal_test_write_preset(tmp, name, yaml);
    g_autofree char *in = g_build_filename(GAL_FIXTURES_DIR, "trip", "trip-01.jpg", NULL);
    g_autofree char *out = g_build_filename(tmp, label, NULL);
    g_autofree char *png = g_build_filename(out, "trip-01.png", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    return gal_test_load_image(png, FALSE);
}

Test(sharpen, print_sharpening_is_stronger_and_the_file_says_its_ppi)
{
    g_autofree char *tmp = gal_test_tmpdir("sharpen-print");
    g_autoptr(VipsImage) screen = run_keys(tmp, "screen", "sharpen: standard");
    g_autoptr(VipsImage) glossy =
        run_keys(tmp, "glossy", "sharpen: {for: glossy, amount: standard}, ppi: 240");
    g_autoptr(VipsImage) matte = run_keys(tmp, "matte", "sharpen: {for: matte}, ppi: 240");

    cr_expect_gt(edge_energy(glossy), edge_energy(screen), "glossy %.3f, screen %.3f",
        edge_energy(glossy), edge_energy(screen));
    cr_expect_gt(edge_energy(matte), edge_energy(glossy), "matte %.3f, glossy %.3f",
        edge_energy(matte), edge_energy(glossy));
    /* The PNG's pHYs, as libvips reads it: pixels per mm. */
    cr_expect_float_eq(matte->Xres * 25.4, 240, 0.05, "matte: %g ppi", matte->Xres * 25.4);
    cr_expect_float_eq(screen->Xres * 25.4, 300, 0.05, "the default: %g ppi",
        screen->Xres * 25.4);
}

/* The chroma subsampling of the JPEG gallop writes of trip-01 at `quality`
 * with output.subsampling `subsampling`: libvips' reading, "4:2:0" or
 * "4:4:4". */
static char *
chroma_of(const char *tmp, int quality, const char *subsampling)
{
    g_autofree char *label = g_strdup_printf("q%d-%c", quality, subsampling[0]);
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\noutput: { quality: %d, subsampling: \"%s\" }\n", quality, subsampling);
    g_autofree char *name = g_strdup_printf("%s.yaml", label);
    g_autofree char *preset = gal_test_write_preset(tmp, name, yaml);
    g_autofree char *in = g_build_filename(GAL_FIXTURES_DIR, "trip", "trip-01.jpg", NULL);
    g_autofree char *out = g_build_filename(tmp, label, NULL);
    g_autofree char *jpg = g_build_filename(out, "trip-01.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) image = NULL;
    const char *chroma = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    image = gal_test_load_image(jpg, FALSE);
    cr_assert_eq(vips_image_get_string(image, "jpeg-chroma-subsample", &chroma), 0);
    return g_strdup(chroma);
}

/* subsampling: auto stays 4:2:0 at quality 90 and above (libvips' auto
 * went to 4:4:4 there, and the files grew by half); 4:4:4 when asked. */
Test(sharpen, subsampling_auto_keeps_420_at_every_quality)
{
    g_autofree char *tmp = gal_test_tmpdir("subsampling");
    g_autofree char *q85 = chroma_of(tmp, 85, "auto");
    g_autofree char *q95 = chroma_of(tmp, 95, "auto");
    g_autofree char *asked = chroma_of(tmp, 85, "4:4:4");

    cr_expect_str_eq(q85, "4:2:0");
    cr_expect_str_eq(q95, "4:2:0");
    cr_expect_str_eq(asked, "4:4:4");
}
