/* HEIC at speed (job.c, decode.c): a HEIC's embedded thumbnail is decoded
 * instead of its 12 MP frame wherever it covers every product the photo
 * makes, and never where it does not (too small, another shape). The
 * HEICs are forged with a thumbnail of another colour than the photo, so
 * the output shows which was decoded. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_heif.h"

TestSuite(heif, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

static VipsImage *
solid(int width, int height, double r, double g, double b)
{
    double colour[] = { r, g, b };
    VipsImage *black = NULL, *lit = NULL, *out = NULL;

    cr_assert_eq(vips_black(&black, width, height, "bands", 3, NULL), 0);
    cr_assert_eq(vips_linear(black, &lit, (double[]) { 1, 1, 1 }, colour, 3, NULL), 0);
    cr_assert_eq(vips_cast_uchar(lit, &out, NULL), 0);
    g_object_unref(black);
    g_object_unref(lit);
    return out;
}

/* Run `yaml` over the one photo `heic`; its output's colour at the
 * centre, red or blue ('r', 'b'), or '?'. */
static char
colour_made(const char *name, const char *yaml, VipsImage *photo, VipsImage *thumb)
{
    g_autofree char *tmp = gal_test_tmpdir(name);
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *heic = g_build_filename(in, "IMG_0001.heic", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *jpg = g_build_filename(out_dir, "IMG_0001.jpg", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", yaml);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-j", "2", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) made = NULL;
    double *pixel = NULL;
    int n = 0;
    char found;

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    gal_test_write_heic(heic, photo, thumb, 320);
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "%s\n%s", out, err);
    made = gal_test_load_image(jpg, FALSE);
    cr_assert_eq(vips_getpoint(made, &pixel, &n, made->Xsize / 2, made->Ysize / 2, NULL), 0);
    found = pixel[0] > 200 && pixel[2] < 60 ? 'r' : pixel[2] > 200 && pixel[0] < 60 ? 'b' : '?';
    g_free(pixel);
    return found;
}

Test(heif, the_thumbnail_is_decoded_where_it_covers_the_output)
{
    g_autoptr(VipsImage) photo = solid(1200, 900, 0, 0, 255);
    /* Scaled to 320 x 240 by libheif. */
    g_autoptr(VipsImage) thumb = solid(1200, 900, 255, 0, 0);

    /* 200 px wide: the 320 px thumbnail covers it. */
    cr_expect_eq(colour_made("heif-small",
                     "gallop: 1\nstages: [ {resize: {width: 200, height: 200, fit: inside}} ]\n",
                     photo, thumb),
        'r');
    /* 320 px exactly: still covered, nothing enlarged. */
    cr_expect_eq(colour_made("heif-exact",
                     "gallop: 1\nstages: [ {resize: {width: 320, height: 320, fit: inside}} ]\n",
                     photo, thumb),
        'r');
    /* 400 px: the thumbnail would be enlarged; the photo is decoded. */
    cr_expect_eq(colour_made("heif-large",
                     "gallop: 1\nstages: [ {resize: {width: 400, height: 400, fit: inside}} ]\n",
                     photo, thumb),
        'b');
    /* No resize: the whole photo. */
    cr_expect_eq(colour_made("heif-whole", "gallop: 1\n", photo, thumb), 'b');
    /* Without stages, output.widths say the size. */
    cr_expect_eq(colour_made("heif-width-300",
                     "gallop: 1\noutput: {widths: [300], name: '{stem}.{ext}'}\n", photo, thumb),
        'r');
    cr_expect_eq(colour_made("heif-width-500",
                     "gallop: 1\noutput: {widths: [500], name: '{stem}.{ext}'}\n", photo, thumb),
        'b');
}

Test(heif, a_thumbnail_of_another_shape_is_not_used)
{
    g_autoptr(VipsImage) photo = solid(1200, 900, 0, 0, 255);
    g_autoptr(VipsImage) square = solid(900, 900, 255, 0, 0);

    cr_expect_eq(colour_made("heif-square",
                     "gallop: 1\nstages: [ {resize: {width: 100, height: 100, fit: inside}} ]\n",
                     photo, square),
        'b');
}

Test(heif, a_heic_without_thumbnail_is_decoded_whole)
{
    g_autoptr(VipsImage) photo = solid(640, 480, 0, 0, 255);

    cr_expect_eq(colour_made("heif-none",
                     "gallop: 1\nstages: [ {resize: {width: 100, height: 100, fit: inside}} ]\n",
                     photo, NULL),
        'b');
}

/* A 10-bit HEIC whose file says to show it turned (irot), decoded by
 * gallop through libheif (heif.c): made upright, in its colours, its
 * ICC-less pixels taken as sRGB, at 1 level of what was encoded. */
Test(heif, a_10_bit_heic_is_made_upright_in_its_colours)
{
    g_autofree char *tmp = gal_test_tmpdir("heif-10-turned");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *heic = g_build_filename(in, "IMG_0001.heic", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *png = g_build_filename(out_dir, "IMG_0001.png", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\noutput: {format: png, sharpen: none}\n");
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-j", "2", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) picture = gal_test_gradient(240, 160);
    g_autoptr(VipsImage) upright = NULL;
    g_autoptr(VipsImage) made = NULL;
    double max_abs, mean_abs;

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    /* Stored as the gradient, shown turned a quarter anticlockwise. */
    gal_test_write_heic_turned(heic, picture, 10, 8);
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "%s\n%s", out, err);
    made = gal_test_load_image(png, FALSE);
    cr_assert_eq(vips_rot(picture, &upright, VIPS_ANGLE_D270, NULL), 0);
    cr_assert_eq(made->Xsize, 160);
    cr_assert_eq(made->Ysize, 240);
    cr_assert_eq(gal_test_diff(made, upright, &max_abs, &mean_abs), 0);
    /* HEVC at quality 90 and 4:2:0 chroma: a level or two on average. */
    cr_expect(mean_abs < 2.5, "mean %.2f, max %.0f", mean_abs, max_abs);
}
