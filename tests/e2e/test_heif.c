/* HEIC at speed (job.c, decode.c): a HEIC's embedded thumbnail is decoded
 * instead of its 12 MP frame wherever it covers every product the photo
 * makes, and never where it does not (too small, another shape). The
 * HEICs are forged with a thumbnail of another colour than the photo, so
 * the output shows which was decoded. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_heif.h"

TestSuite(heif, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

/* The picture as decoded, unsharpened, in a lossless file. */
#define PNG_AS_IT_IS "gallop: 1\noutput: {format: png, sharpen: none}\n"

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

/* in/IMG_0001.heic in a new folder of the test's (`name`), the folder
 * made: where a test writes its photo before run_on_heic. */
static char *
heic_in(const char *name)
{
    g_autofree char *tmp = gal_test_tmpdir(name);
    g_autofree char *in = g_build_filename(tmp, "in", NULL);

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    return g_build_filename(in, "IMG_0001.heic", NULL);
}

/* Run a preset of `yaml` at -j 2 over the folder of `heic` (heic_in's);
 * the output file `made` ("IMG_0001.png") loaded. */
static VipsImage *
run_on_heic(const char *heic, const char *yaml, const char *made)
{
    g_autofree char *in = g_path_get_dirname(heic);
    g_autofree char *tmp = g_path_get_dirname(in);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *path = g_build_filename(out_dir, made, NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", yaml);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-j", "2", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "%s\n%s", out, err);
    return gal_test_load_image(path, FALSE);
}

/* Run `yaml` over one HEIC of `photo` with `thumb` as its thumbnail; its
 * output's colour at the centre, red or blue ('r', 'b'), or '?'. */
static char
colour_made(const char *name, const char *yaml, VipsImage *photo, VipsImage *thumb)
{
    g_autofree char *heic = heic_in(name);
    g_autoptr(VipsImage) made = NULL;
    double *pixel = NULL;
    int n = 0;
    char found;

    gal_test_write_heic(heic, photo, thumb, 320);
    made = run_on_heic(heic, yaml, "IMG_0001.jpg");
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
    g_autofree char *heic = heic_in("heif-10-turned");
    g_autoptr(VipsImage) picture = gal_test_gradient(240, 160);
    g_autoptr(VipsImage) upright = NULL;
    g_autoptr(VipsImage) made = NULL;
    double max_abs, mean_abs;

    /* Stored as the gradient, shown turned a quarter anticlockwise. */
    gal_test_write_heic_turned(heic, picture, 10, 8);
    made = run_on_heic(heic, PNG_AS_IT_IS, "IMG_0001.png");
    cr_assert_eq(vips_rot(picture, &upright, VIPS_ANGLE_D270, NULL), 0);
    cr_assert_eq(made->Xsize, 160);
    cr_assert_eq(made->Ysize, 240);
    cr_assert_eq(gal_test_diff(made, upright, &max_abs, &mean_abs), 0);
    /* HEVC at quality 90 and 4:2:0 chroma: a level or two on average. */
    cr_expect(mean_abs < 2.5, "mean %.2f, max %.0f", mean_abs, max_abs);
}

/* A phone's HEIC: a grid of 512 px tiles, each of its own colour, the
 * right and bottom ones cropped to the photo's 1000 x 700. Decoded whole
 * at `bits`: through libvips' loader at 8 bits, through heif.c above (the
 * header read says which), to the photo's size, each tile in its colour. */
static void
expect_grid_decoded(const char *name, int bits)
{
    static const double colours[4][3] = {
        { 220, 30, 30 }, { 30, 200, 40 }, { 30, 40, 220 }, { 230, 210, 40 }
    };
    g_autofree char *heic = heic_in(name);
    g_autoptr(VipsImage) photo = solid(1000, 700, 0, 0, 0);
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) made = NULL;

    for (int i = 0; i < 4; i++) {
        int left = i % 2 * 512, top = i / 2 * 512;
        VipsImage *drawn = NULL;

        cr_assert_eq(vips_copy(photo, &drawn, NULL), 0);
        cr_assert_eq(vips_draw_rect(drawn, (double *) colours[i], 3, left, top, 512, 512,
                         "fill", TRUE, NULL),
            0);
        g_object_unref(photo);
        photo = drawn;
    }
    gal_test_write_heic_grid(heic, photo, 512, bits);
    header = vips_image_new_from_file(heic, NULL);
    cr_assert_not_null(header, "%s", vips_error_buffer());
    cr_assert_eq(header->BandFmt, bits > 8 ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR);
    made = run_on_heic(heic, PNG_AS_IT_IS, "IMG_0001.png");
    cr_assert_eq(made->Xsize, 1000);
    cr_assert_eq(made->Ysize, 700);
    for (int i = 0; i < 4; i++) {
        /* The middle of each tile's part of the photo. */
        int x = i % 2 ? (512 + 1000) / 2 : 256, y = i / 2 ? (512 + 700) / 2 : 256;
        double *pixel = NULL;
        int n = 0;

        cr_assert_eq(vips_getpoint(made, &pixel, &n, x, y, NULL), 0);
        for (int b = 0; b < 3; b++)
            cr_expect(fabs(pixel[b] - colours[i][b]) <= 4,
                "tile %d at %d,%d: band %d is %.0f, not %.0f", i, x, y, b, pixel[b],
                colours[i][b]);
        g_free(pixel);
    }
}

Test(heif, an_8_bit_grid_heic_is_decoded_whole_tile_by_tile)
{
    expect_grid_decoded("heif-grid-8", 8);
}

Test(heif, a_10_bit_grid_heic_is_decoded_whole_tile_by_tile)
{
    expect_grid_decoded("heif-grid-10", 10);
}

/* A HEIC whose `ispe` declares 64x48 while its HEVC stream codes 2048x2048 (issue 41): libde265
 * allocates the frame the stream codes, so the photo is refused from its stream's SPS before
 * any decoder sees it, not after ("libheif decoded 2048x2048 of a photo of 64x48"); the
 * honest photo beside it is made. 8 bits go through libvips' loader, 10 through heif.c. */
static void
expect_lying_heic_refused(const char *name, int bits)
{
    g_autofree char *heic = heic_in(name);
    g_autofree char *in = g_path_get_dirname(heic);
    g_autofree char *tmp = g_path_get_dirname(in);
    g_autofree char *honest = g_build_filename(in, "IMG_0002.heic", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *made = g_build_filename(out_dir, "IMG_0002.png", NULL);
    g_autofree char *refused = g_build_filename(out_dir, "IMG_0001.png", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", PNG_AS_IT_IS);
    g_autoptr(VipsImage) grey = solid(2048, 2048, 128, 128, 128);
    g_autoptr(VipsImage) small = solid(64, 48, 128, 128, 128);
    g_autoptr(VipsImage) honest_made = NULL;
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-j", "2", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    gal_test_write_heic_declaring(heic, grey, bits, 64, 48);
    gal_test_write_heic_turned(honest, small, bits, 1);
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 1, "%s\n%s", out, err);
    cr_expect(strstr(err, "IMG_0001.heic") &&
            strstr(err, "its HEVC stream codes a 2048x2048 frame, larger than the 64x48 it "
                        "declares"),
        "%s", err);
    cr_expect(!strstr(err, "libheif decoded"), "%s", err);
    cr_expect(!g_file_test(refused, G_FILE_TEST_EXISTS));
    honest_made = gal_test_load_image(made, FALSE);
    cr_expect_eq(honest_made->Xsize, 64);
    cr_expect_eq(honest_made->Ysize, 48);
}

Test(heif, an_8_bit_heic_coding_a_larger_frame_than_it_declares_is_refused_before_decoding)
{
    expect_lying_heic_refused("heif-lying-8", 8);
}

Test(heif, a_10_bit_heic_coding_a_larger_frame_than_it_declares_is_refused_before_decoding)
{
    expect_lying_heic_refused("heif-lying-10", 10);
}
