/* gal_test_raw.c: DNGs forged byte by byte (see gal_test_raw.h), and
 * photosites aimed at colours through a camera's tables in libraw. A DNG
 * is a little-endian TIFF (gal_test_raw_tiff.c), here laid out as
 * header | raw directory | EXIF directory | preview directory | photosites
 * | preview JPEG. The makers' own formats are in gal_test_raw_makers.c. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <libraw/libraw.h>

#include "gal_test.h"
#include "gal_test_raw.h"
#include "gal_test_raw_tiff.h"

double
gal_test_srgb8(double linear)
{
    double v = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;

    return 255 * CLAMP(v, 0, 1);
}

gal_test_dng
gal_test_dng_default(void)
{
    return (gal_test_dng) {
        .width = 64, .height = 48,
        .patches = { { 0.60, 0.05, 0.05 }, { 0.05, 0.50, 0.05 }, { 0.05, 0.05, 0.70 },
            { 0.18, 0.18, 0.18 } },
        .make = "NIKON CORPORATION", .model = "NIKON D750",
        .lens = "AF-S NIKKOR 24-120mm f/4G ED VR", .taken = "2024:05:01 08:30:00",
        .exposure_seconds = 1 / 250.0, .f_number = 5.6, .focal_mm = 35, .iso = 200,
    };
}

guint16
gal_test_raw_photosite(const gal_test_dng *dng, int x, int y)
{
    int quarter = (x >= dng->width / 2) + 2 * (y >= dng->height / 2);
    int channel = (y % 2 == 0) ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2);

    int white = dng->white ? dng->white : 65535;

    return (guint16) lround(dng->black + CLAMP(dng->patches[quarter][channel], 0, 1) *
        (white - dng->black));
}

GBytes *
gal_test_dng_bytes(const gal_test_dng *dng)
{
    /* XYZ (D65) to linear sRGB: DNG's ColorMatrix goes from XYZ to the
     * camera, so the camera's RGB is sRGB's. */
    static const double xyz_to_srgb[9] = { 3.240479, -1.537150, -0.498535, -0.969256, 1.875992,
        0.041556, 0.055648, -0.204043, 1.057311 };
    static const double neutral[3] = { 1, 1, 1 };
    static const guint8 version[4] = { 1, 4, 0, 0 }, cfa[4] = { 0, 1, 1, 2 };
    guint8 repeat[4], bps3[6];
    gal_test_tiff_dir raw = gal_test_tiff_new(FALSE), exif = gal_test_tiff_new(FALSE),
        preview = gal_test_tiff_new(FALSE);
    gboolean has_preview = dng->preview_jpeg != NULL;
    guint32 pixels_len = (guint32) dng->width * dng->height * 2, pixels_at, jpeg_at;
    GByteArray *out;

    if (dng->layout != GAL_TEST_RAW_DNG) {
        GBytes *whole = dng->layout == GAL_TEST_RAW_CR2 ? gal_test_cr2_bytes(dng)
            : dng->layout == GAL_TEST_RAW_RW2           ? gal_test_rw2_bytes(dng)
            : dng->layout == GAL_TEST_RAW_ORF           ? gal_test_orf_bytes(dng)
                                                        : gal_test_raf_bytes(dng);
        GBytes *cut;

        if (!dng->cut_to || dng->cut_to >= g_bytes_get_size(whole))
            return whole;
        cut = g_bytes_new_from_bytes(whole, 0, dng->cut_to);
        g_bytes_unref(whole);
        return cut;
    }
    out = g_byte_array_new();
    gal_test_put16(repeat, 2, FALSE);
    gal_test_put16(repeat + 2, 2, FALSE);
    for (int i = 0; i < 3; i++)
        gal_test_put16(bps3 + 2 * i, 8, FALSE);

    gal_test_tiff_long(&raw, 254, 0); /* NewSubFileType: the main image */
    gal_test_tiff_long(&raw, 256, dng->claimed_width ? dng->claimed_width : (guint32) dng->width);
    gal_test_tiff_long(&raw, 257,
        dng->claimed_height ? dng->claimed_height : (guint32) dng->height);
    gal_test_tiff_short(&raw, 258, 16);
    gal_test_tiff_short(&raw, 259, 1);
    gal_test_tiff_short(&raw, 262, 32803); /* CFA */
    gal_test_tiff_ascii(&raw, 271, dng->make);
    gal_test_tiff_ascii(&raw, 272, dng->model);
    gal_test_tiff_long(&raw, 273, 0); /* StripOffsets, below */
    if (dng->orientation)
        gal_test_tiff_short(&raw, 274, (guint32) dng->orientation);
    gal_test_tiff_short(&raw, 277, 1);
    gal_test_tiff_long(&raw, 278, (guint32) dng->height);
    gal_test_tiff_long(&raw, 279, pixels_len);
    gal_test_tiff_short(&raw, 284, 1);
    if (has_preview)
        gal_test_tiff_long(&raw, 330, 0); /* SubIFDs, below */
    gal_test_tiff_add(&raw, 33421, GAL_TIFF_SHORT, 2, repeat, 4);
    gal_test_tiff_add(&raw, 33422, GAL_TIFF_BYTE, 4, cfa, 4);
    gal_test_tiff_long(&raw, 34665, 0); /* the EXIF directory, below */
    if (!dng->maker_raw) {
        gal_test_tiff_add(&raw, 50706, GAL_TIFF_BYTE, 4, version, 4);
        gal_test_tiff_ascii(&raw, 50708, dng->model ? dng->model : "gallop test camera");
        gal_test_tiff_long(&raw, 50714, dng->black);                        /* BlackLevel */
        gal_test_tiff_long(&raw, 50717, dng->white ? dng->white : 65535u); /* WhiteLevel */
        gal_test_tiff_rationals(&raw, 50721, GAL_TIFF_SRATIONAL, xyz_to_srgb, 9);
        gal_test_tiff_rationals(&raw, 50728, GAL_TIFF_RATIONAL, neutral, 3);
        gal_test_tiff_short(&raw, 50778, 21); /* CalibrationIlluminant1: D65 */
    }

    gal_test_tiff_exif_facts(&exif, dng->exposure_seconds, dng->f_number, dng->iso, dng->taken,
        dng->focal_mm, dng->lens);

    if (has_preview) {
        gal_test_tiff_long(&preview, 254, 1); /* a reduced image */
        gal_test_tiff_long(&preview, 256, (guint32) dng->preview_width);
        gal_test_tiff_long(&preview, 257, (guint32) dng->preview_height);
        gal_test_tiff_add(&preview, 258, GAL_TIFF_SHORT, 3, bps3, 6);
        gal_test_tiff_short(&preview, 259, 7); /* JPEG */
        gal_test_tiff_short(&preview, 262, 6); /* YCbCr */
        gal_test_tiff_long(&preview, 273, 0);  /* below */
        gal_test_tiff_short(&preview, 277, 3);
        gal_test_tiff_long(&preview, 278, (guint32) dng->preview_height);
        gal_test_tiff_long(&preview, 279, (guint32) dng->preview_len);
    }

    raw.at = 8;
    exif.at = raw.at + gal_test_tiff_size(&raw);
    preview.at = exif.at + gal_test_tiff_size(&exif);
    pixels_at = preview.at + (has_preview ? gal_test_tiff_size(&preview) : 0);
    jpeg_at = pixels_at + pixels_len;
    gal_test_tiff_patch(&raw, 273, dng->pixels_past_end ? jpeg_at + (guint32) dng->preview_len +
                                                    dng->pixels_past_end
                                              : pixels_at);
    gal_test_tiff_patch(&raw, 34665, exif.at);
    gal_test_tiff_patch(&raw, 330, preview.at);
    gal_test_tiff_patch(&preview, 273, jpeg_at);

    g_byte_array_append(out, (const guint8 *) "II*\0", 4);
    g_byte_array_set_size(out, 8);
    gal_test_put32(out->data + 4, raw.at, FALSE);
    gal_test_tiff_put(&raw, 0, out);
    gal_test_tiff_put(&exif, 0, out);
    if (has_preview)
        gal_test_tiff_put(&preview, 0, out);
    g_byte_array_set_size(out, pixels_at + pixels_len);
    for (int y = 0; y < dng->height; y++)
        for (int x = 0; x < dng->width; x++)
            gal_test_put16(out->data + pixels_at + 2 * ((gsize) y * dng->width + x),
                gal_test_raw_photosite(dng, x, y), FALSE);
    if (has_preview)
        g_byte_array_append(out, dng->preview_jpeg, (guint) dng->preview_len);
    if (dng->cut_to && dng->cut_to < out->len)
        g_byte_array_set_size(out, (guint) dng->cut_to);
    gal_test_tiff_clear(&raw);
    gal_test_tiff_clear(&exif);
    gal_test_tiff_clear(&preview);
    return g_byte_array_free_to_bytes(out);
}

char *
gal_test_dng_write(const char *dir, const char *name, const gal_test_dng *dng)
{
    g_autoptr(GBytes) bytes = gal_test_dng_bytes(dng);
    char *path = g_build_filename(dir, name, NULL);
    gsize len;
    const char *data = g_bytes_get_data(bytes, &len);

    if (!g_file_set_contents(path, data, (gssize) len, NULL))
        g_error("cannot write %s", path);
    return path;
}

gal_test_raw_camera
gal_test_raw_camera_of(const char *path)
{
    libraw_data_t *lr = libraw_init(0);
    gal_test_raw_camera camera;
    double least;

    cr_assert_not_null(lr);
    cr_assert_eq(libraw_open_file(lr, path), LIBRAW_SUCCESS, "%s", path);
    camera.black = lr->color.black;
    camera.white = lr->color.maximum;
    least = MIN(lr->color.pre_mul[0], MIN(lr->color.pre_mul[1], lr->color.pre_mul[2]));
    cr_assert_gt(least, 0, "%s: no white balance", path);
    for (int c = 0; c < 3; c++) {
        camera.gain[c] = lr->color.pre_mul[c] / least;
        for (int k = 0; k < 3; k++)
            camera.to_srgb[c][k] = lr->color.rgb_cam[c][k];
    }
    libraw_close(lr);
    return camera;
}

/* The inverse of a 3 x 3 matrix (by cofactors). */
static void
invert3(const double m[3][3], double out[3][3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
        m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
        m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);

    cr_assert_gt(fabs(det), 1e-6);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;

            out[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
        }
}

void
gal_test_raw_aim(gal_test_dng *raw, const gal_test_raw_camera *camera,
    const double targets[4][3])
{
    double from_srgb[3][3];

    raw->black = (guint16) camera->black;
    raw->white = (guint16) MIN(camera->white, 65535);
    invert3(camera->to_srgb, from_srgb);
    for (int q = 0; q < 4; q++)
        for (int c = 0; c < 3; c++) {
            double site = 0;

            for (int k = 0; k < 3; k++)
                site += from_srgb[c][k] * targets[q][k];
            raw->patches[q][c] = site / camera->gain[c];
            /* In range, and under libraw's guess at a lower white level
             * (adjust_maximum_thr: the brightest photosite, when it is
             * over 75% of the white level, becomes the white level). */
            cr_assert(raw->patches[q][c] > 0 && raw->patches[q][c] < 0.7, "%s: %g", raw->model,
                raw->patches[q][c]);
        }
}

GBytes *
gal_test_raw_preview_jpeg(int width, int height, const double ink[3])
{
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) coloured = NULL;
    g_autoptr(VipsImage) srgb = NULL;
    void *buf = NULL;
    size_t len = 0;

    cr_assert_eq(vips_black(&black, width, height, "bands", 3, NULL), 0);
    cr_assert_eq(vips_linear(black, &coloured, (double[]) { 1, 1, 1 }, (double *) ink, 3,
                     "uchar", TRUE, NULL),
        0);
    cr_assert_eq(vips_copy(coloured, &srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    cr_assert_eq(vips_jpegsave_buffer(srgb, &buf, &len, "Q", 95, "strip", TRUE, NULL), 0);
    return g_bytes_new_take(buf, len);
}

/* The quarters' check of gal_test_raw_expect_quarters, against `linear`:
 * four colours of three bands, one after another. */
static void
expect_quarters(VipsImage *image, const double *linear, double tolerance, const char *what)
{
    for (int q = 0; q < 4; q++) {
        int x = (q % 2) * image->Xsize / 2 + image->Xsize / 4 - 2;
        int y = (q / 2) * image->Ysize / 2 + image->Ysize / 4 - 2;
        double rgb[3];

        gal_test_block_mean(image, x, y, rgb);
        for (int b = 0; b < 3; b++) {
            double want = gal_test_srgb8(linear[3 * q + b]);

            cr_expect(fabs(rgb[b] - want) <= tolerance,
                "%s quarter %d band %d: %.1f, want %.1f (+-%g)", what, q, b, rgb[b], want,
                tolerance);
        }
    }
}

void
gal_test_raw_expect_quarters(VipsImage *image, const gal_test_dng *raw, double tolerance,
    const char *what)
{
    expect_quarters(image, &raw->patches[0][0], tolerance, what);
}

void
gal_test_raw_expect_aimed(VipsImage *image, const double targets[4][3], const char *what)
{
    expect_quarters(image, &targets[0][0], 8, what);
    for (int q = 0; q < 4; q++) {
        int x = (q % 2) * image->Xsize / 2 + image->Xsize / 4 - 2;
        int y = (q / 2) * image->Ysize / 2 + image->Ysize / 4 - 2;
        double rgb[3];

        gal_test_block_mean(image, x, y, rgb);
        if (q < 3)
            cr_expect(rgb[q] - MAX(rgb[(q + 1) % 3], rgb[(q + 2) % 3]) >= 60,
                "%s quarter %d: %.0f %.0f %.0f", what, q, rgb[0], rgb[1], rgb[2]);
        else
            cr_expect(MAX(rgb[0], MAX(rgb[1], rgb[2])) - MIN(rgb[0], MIN(rgb[1], rgb[2])) <= 12,
                "%s grey: %.0f %.0f %.0f", what, rgb[0], rgb[1], rgb[2]);
    }
}
