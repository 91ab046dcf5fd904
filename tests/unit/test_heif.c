/* test_heif.c: HEIF photos decoded by gallop through libheif straight to
 * 8 bits (heif.c), against libvips' own decode of the same file. */
#include <criterion/criterion.h>

#include "gal_test.h"
#include "gal_test_heif.h"
#include "heif.h"

TestSuite(heif_decode, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

/* The photo at `path`: its libvips header, and its pixels decoded by
 * gallop (heif.c) and by libvips' loader (to 8-bit sRGB, as job.c makes
 * every decode). */
static void
decode_both(const char *path, VipsImage **header, VipsImage **ours, VipsImage **theirs)
{
    gal_photo_file file;
    gal_error err = { 0 };
    g_autoptr(VipsImage) loaded = NULL;
    g_autoptr(VipsImage) srgb = NULL;

    cr_assert_eq(gal__photo_open(path, &file, &err), 0, "%s", err.msg);
    cr_assert_eq(file.format, GAL_IMAGE_HEIF);
    cr_assert_eq(gal__photo_load(&file, VIPS_FAIL_ON_ERROR, 1, header), 0, "%s",
        vips_error_buffer());
    cr_assert_eq(gal__heif_load(&file, *header, FALSE, ours), 0, "%s",
        vips_error_buffer());
    cr_assert_eq(gal__photo_load(&file, VIPS_FAIL_ON_ERROR, 1, &loaded), 0);
    cr_assert_eq(vips_colourspace(loaded, &srgb, VIPS_INTERPRETATION_sRGB, NULL), 0);
    cr_assert_eq(vips_cast_uchar(srgb, theirs, NULL), 0);
    gal__photo_close(&file);
}

/* CIEDE2000 between two 8-bit sRGB images (alpha left out): mean and
 * largest over the pixels. */
static void
delta_e(VipsImage *a, VipsImage *b, double *mean, double *max)
{
    VipsImage *images[2] = { a, b };
    VipsImage *lab[2] = { NULL, NULL };
    g_autoptr(VipsImage) de = NULL;

    for (int i = 0; i < 2; i++) {
        g_autoptr(VipsImage) rgb = NULL;

        cr_assert_eq(vips_extract_band(images[i], &rgb, 0, "n", 3, NULL), 0);
        rgb->Type = VIPS_INTERPRETATION_sRGB;
        cr_assert_eq(vips_colourspace(rgb, &lab[i], VIPS_INTERPRETATION_LAB, NULL), 0);
    }
    cr_assert_eq(vips_dE00(lab[0], lab[1], &de, NULL), 0);
    cr_assert_eq(vips_avg(de, mean, NULL), 0);
    cr_assert_eq(vips_max(de, max, NULL), 0);
    g_object_unref(lab[0]);
    g_object_unref(lab[1]);
}

/* `picture` saved by libvips as a HEIC of `bits` bits, decoded both ways:
 * the same pixels at 8 bits, and within a level at 10 (libvips truncates
 * 10 bits to 8, gallop rounds: measured, a mean of 0.2 levels and 0.15
 * dE00, at most 1 level and 1.2 dE00), the same bands and size. */
static void
expect_same_decode(const char *name, VipsImage *picture, int bits)
{
    g_autofree char *dir = gal_test_tmpdir(name);
    g_autofree char *path = g_build_filename(dir, "IMG_0001.heic", NULL);
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) ours = NULL;
    g_autoptr(VipsImage) theirs = NULL;
    double max_abs, mean_abs, mean_de, max_de;

    cr_assert_eq(vips_heifsave(picture, path, "bitdepth", bits, "Q", 90, "effort", 0, NULL), 0,
        "%s", vips_error_buffer());
    decode_both(path, &header, &ours, &theirs);
    cr_expect_eq(header->BandFmt, bits > 8 ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR);
    cr_assert_eq(ours->BandFmt, VIPS_FORMAT_UCHAR);
    cr_assert_eq(ours->Bands, picture->Bands);
    cr_expect_eq(ours->Type, VIPS_INTERPRETATION_sRGB);
    cr_assert_eq(gal_test_diff(ours, theirs, &max_abs, &mean_abs), 0, "%dx%dx%d against %dx%dx%d",
        ours->Xsize, ours->Ysize, ours->Bands, theirs->Xsize, theirs->Ysize, theirs->Bands);
    delta_e(ours, theirs, &mean_de, &max_de);
    cr_expect(mean_abs <= 0.5 && max_abs <= (bits > 8 ? 1 : 0),
        "%s: levels apart: mean %.3f, max %.0f", name, mean_abs, max_abs);
    cr_expect(mean_de <= 0.3 && max_de <= 1.5, "%s: dE00 mean %.3f, max %.3f", name, mean_de,
        max_de);
}

Test(heif_decode, a_10_bit_heic_decodes_to_8_bits_as_libvips_decodes_it)
{
    g_autoptr(VipsImage) picture = gal_test_gradient(320, 240);

    expect_same_decode("heif-10", picture, 10);
}

Test(heif_decode, an_8_bit_heic_and_one_with_alpha_decode_as_libvips_decodes_them)
{
    g_autoptr(VipsImage) picture = gal_test_gradient(320, 240);
    g_autoptr(VipsImage) alpha = NULL;
    g_autoptr(VipsImage) with_alpha = NULL;

    expect_same_decode("heif-8", picture, 8);
    /* Alpha: a ramp, so a band taken from elsewhere shows. */
    cr_assert_eq(vips_extract_band(picture, &alpha, 0, NULL), 0);
    cr_assert_eq(vips_bandjoin2(picture, alpha, &with_alpha, NULL), 0);
    with_alpha->Type = VIPS_INTERPRETATION_sRGB;
    expect_same_decode("heif-10-alpha", with_alpha, 10);
}

Test(heif_decode, the_photo_keeps_its_exif_and_colour_profile_and_no_turn_libvips_drops)
{
    g_autofree char *dir = gal_test_tmpdir("heif-meta");
    g_autofree char *path = g_build_filename(dir, "IMG_0001.heic", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(160, 120);
    g_autoptr(VipsImage) tagged = NULL;
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) ours = NULL;
    g_autoptr(VipsImage) theirs = NULL;
    VipsBlob *profile = NULL;
    const void *ours_blob, *header_blob;
    size_t ours_len, header_len;
    const char *artist = NULL;

    cr_assert_eq(vips_copy(picture, &tagged, NULL), 0);
    cr_assert_eq(vips_profile_load("p3", &profile, NULL), 0);
    vips_image_set_blob_copy(tagged, VIPS_META_ICC_NAME, VIPS_AREA(profile)->data,
        VIPS_AREA(profile)->length);
    vips_area_unref(VIPS_AREA(profile));
    vips_image_set_string(tagged, "exif-ifd0-Artist", "Jen Loong");
    /* Written into the EXIF block; libvips' loader drops it (a HEIF's turn
     * is its irot and imir boxes, which libheif applies). */
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, 6);
    cr_assert_eq(vips_heifsave(tagged, path, "bitdepth", 10, "Q", 90, "effort", 0, NULL), 0,
        "%s", vips_error_buffer());
    decode_both(path, &header, &ours, &theirs);
    for (int i = 0; i < 2; i++) {
        const char *name = i == 0 ? VIPS_META_ICC_NAME : VIPS_META_EXIF_NAME;

        cr_assert_eq(vips_image_get_blob(header, name, &header_blob, &header_len), 0, "%s", name);
        cr_assert_eq(vips_image_get_blob(ours, name, &ours_blob, &ours_len), 0, "%s", name);
        cr_expect_eq(ours_len, header_len, "%s", name);
        cr_expect_arr_eq(ours_blob, header_blob, MIN(ours_len, header_len), "%s", name);
    }
    cr_assert_eq(vips_image_get_string(ours, "exif-ifd0-Artist", &artist), 0);
    cr_expect(g_str_has_prefix(artist, "Jen Loong"), "%s", artist);
    cr_expect_eq(vips_image_get_orientation(header), 1);
    cr_expect_eq(vips_image_get_orientation(ours), vips_image_get_orientation(header));
    cr_expect_eq(vips_image_get_typeof(ours, "exif-ifd0-Orientation"),
        vips_image_get_typeof(header, "exif-ifd0-Orientation"));
    cr_expect_eq(ours->Xsize, 160);
}

Test(heif_decode, the_files_own_turn_is_applied_as_libvips_applies_it)
{
    g_autofree char *dir = gal_test_tmpdir("heif-turned");
    g_autofree char *path = g_build_filename(dir, "IMG_0001.heic", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(160, 120);
    g_autoptr(VipsImage) turned = NULL;
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) ours = NULL;
    g_autoptr(VipsImage) theirs = NULL;
    double max_abs, mean_abs;

    /* Orientation 6: shown turned a quarter clockwise. */
    gal_test_write_heic_turned(path, picture, 10, 6);
    decode_both(path, &header, &ours, &theirs);
    cr_assert_eq(ours->Xsize, 120);
    cr_assert_eq(ours->Ysize, 160);
    cr_assert_eq(vips_rot(picture, &turned, VIPS_ANGLE_D90, NULL), 0);
    cr_assert_eq(gal_test_diff(ours, turned, &max_abs, &mean_abs), 0);
    cr_expect(mean_abs < 2.5, "against the picture turned: mean %.2f, max %.0f", mean_abs,
        max_abs);
    cr_assert_eq(gal_test_diff(ours, theirs, &max_abs, &mean_abs), 0);
    cr_expect(mean_abs <= 0.5 && max_abs <= 1, "against libvips: mean %.3f, max %.0f", mean_abs,
        max_abs);
}
