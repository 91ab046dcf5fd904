/* The overlay operation (overlay.c, issue 17): a caption's band and text,
 * or a mark, painted onto an opaque 8-bit photo in one operation, with
 * the pixels of the libvips operations it replaces: vips_ifthenelse's
 * blend for straight-alpha pictures, vips_composite's "over" for
 * premultiplied ones, a rounded tint for the band; everything else the
 * photo's own. */
#include <math.h>

#include <criterion/criterion.h>

#include "gal_test.h"
#include "overlay.h"

TestSuite(overlay, .init = gal_test_setup, .fini = gal_test_teardown);

/* Noise wide enough that every value from 0 to 255 occurs (alpha 0 and
 * 255 included). */
static VipsImage *
noise(int width, int height, int bands, int seed)
{
    return gal_test_noise(width, height, bands, 90.0, seed);
}

static VipsImage *
painted(VipsImage *photo, const gal_overlay *overlay)
{
    VipsImage *out, *memory;

    cr_assert_eq(gal__overlay(photo, overlay, &out), 0, "%s", vips_error_buffer());
    memory = vips_image_copy_memory(out);
    cr_assert_not_null(memory, "%s", vips_error_buffer());
    g_object_unref(out);
    return memory;
}

static void
expect_same(VipsImage *got, VipsImage *want, const char *what)
{
    double max_abs = -1, mean_abs = -1;

    cr_assert_eq(got->Xsize, want->Xsize);
    cr_assert_eq(got->Ysize, want->Ysize);
    cr_assert_eq(got->Bands, want->Bands);
    cr_assert_eq(gal_test_diff(got, want, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0, "%s: up to %g apart (mean %g)", what, max_abs, mean_abs);
}

/* What the caption stage did before: the picture's part inside `area`
 * blended over the photo's by vips_ifthenelse, and inserted back. */
static VipsImage *
ifthenelse_reference(VipsImage *photo, VipsImage *picture, int x, int y, VipsRect area)
{
    VipsRect at = { x, y, picture->Xsize, picture->Ysize };
    VipsImage *clipped, *rgb, *alpha, *below, *mixed, *out, *memory;

    vips_rect_intersectrect(&at, &area, &at);
    cr_assert_eq(vips_extract_area(picture, &clipped, at.left - x, at.top - y, at.width,
                     at.height, NULL),
        0);
    cr_assert_eq(vips_extract_band(clipped, &rgb, 0, "n", 3, NULL), 0);
    cr_assert_eq(vips_extract_band(clipped, &alpha, 3, NULL), 0);
    cr_assert_eq(vips_extract_area(photo, &below, at.left, at.top, at.width, at.height, NULL), 0);
    cr_assert_eq(vips_ifthenelse(alpha, rgb, below, &mixed, "blend", TRUE, NULL), 0);
    cr_assert_eq(vips_insert(photo, mixed, &out, at.left, at.top, NULL), 0);
    memory = vips_image_copy_memory(out);
    g_object_unref(clipped);
    g_object_unref(rgb);
    g_object_unref(alpha);
    g_object_unref(below);
    g_object_unref(mixed);
    g_object_unref(out);
    return memory;
}

Test(overlay, a_straight_picture_blends_as_ifthenelse_inside_its_area_only)
{
    VipsImage *photo = noise(300, 200, 3, 1);
    VipsImage *text = noise(90, 70, 4, 11);
    /* Half off the right edge, and cut by the band's rows 150..199. */
    VipsRect area = { 0, 150, 300, 50 };
    gal_overlay overlay = { .area = area, .pictures = { { text, 250, 120 } }, .n_pictures = 1 };
    VipsImage *got = painted(photo, &overlay);
    VipsImage *want = ifthenelse_reference(photo, text, 250, 120, area);

    expect_same(got, want, "text over the band's rows");
    g_object_unref(photo);
    g_object_unref(text);
    g_object_unref(got);
    g_object_unref(want);
}

Test(overlay, a_premultiplied_picture_blends_as_composite_over)
{
    VipsImage *photo = noise(260, 180, 3, 2);
    VipsImage *logo = noise(120, 50, 4, 21);
    VipsImage *premultiplied, *faded, *mark, *region, *mixed, *rgb, *cast, *placed, *want;
    int x = 100, y = 110;
    gal_overlay overlay = { .n_pictures = 1 };
    VipsImage *got;

    /* As the watermark stage makes its mark: premultiplied, faded. */
    cr_assert_eq(vips_premultiply(logo, &premultiplied, NULL), 0);
    cr_assert_eq(vips_linear1(premultiplied, &faded, 0.6, 0, NULL), 0);
    mark = vips_image_copy_memory(faded);
    cr_assert_eq(mark->BandFmt, VIPS_FORMAT_FLOAT);
    overlay.pictures[0] = (gal_overlay_picture) { mark, x, y };
    got = painted(photo, &overlay);

    cr_assert_eq(vips_extract_area(photo, &region, x, y, mark->Xsize, mark->Ysize, NULL), 0);
    cr_assert_eq(vips_composite2(region, mark, &mixed, VIPS_BLEND_MODE_OVER, "premultiplied",
                     TRUE, "compositing_space", VIPS_INTERPRETATION_sRGB, NULL),
        0);
    cr_assert_eq(vips_extract_band(mixed, &rgb, 0, "n", 3, NULL), 0);
    cr_assert_eq(vips_cast_uchar(rgb, &cast, NULL), 0);
    cr_assert_eq(vips_insert(photo, cast, &placed, x, y, NULL), 0);
    want = vips_image_copy_memory(placed);
    expect_same(got, want, "mark over the photo");

    g_object_unref(premultiplied);
    g_object_unref(faded);
    g_object_unref(region);
    g_object_unref(mixed);
    g_object_unref(rgb);
    g_object_unref(cast);
    g_object_unref(placed);
    g_object_unref(want);
    g_object_unref(got);
    g_object_unref(mark);
    g_object_unref(logo);
    g_object_unref(photo);
}

Test(overlay, the_band_is_tinted_with_rounding_and_every_other_row_kept)
{
    VipsImage *photo = noise(64, 120, 3, 3);
    const int top = 70, height = 37, alpha = 128, colour[3] = { 10, 200, 30 };
    gal_overlay overlay = { .band_top = top, .band_height = height,
        .band_rgb = { colour[0], colour[1], colour[2] }, .band_alpha = alpha };
    VipsImage *got = painted(photo, &overlay);
    int wrong = 0;

    for (int y = 0; y < photo->Ysize; y++)
        for (int x = 0; x < photo->Xsize; x++)
            for (int b = 0; b < 3; b++) {
                int in = VIPS_IMAGE_ADDR(photo, x, y)[b];
                int out = VIPS_IMAGE_ADDR(got, x, y)[b];
                int want = y >= top && y < top + height
                    ? (int) floor((in * (255.0 - alpha) + colour[b] * alpha) / 255.0 + 0.5)
                    : in;

                wrong += out != want;
            }
    cr_expect_eq(wrong, 0, "%d values not as tinted (or changed outside the band)", wrong);
    g_object_unref(got);
    g_object_unref(photo);
}

Test(overlay, photos_it_cannot_paint_are_refused)
{
    VipsImage *rgba = noise(16, 16, 4, 4);
    VipsImage *rgb = noise(16, 16, 3, 5);
    VipsImage *lazy, *out = NULL;
    gal_overlay none = { 0 };
    gal_overlay with_lazy = { .n_pictures = 1 };

    cr_expect_not(gal__overlay_fits(rgba));
    cr_expect_eq(gal__overlay(rgba, &none, &out), -1);
    cr_expect_null(out);
    /* A picture must be in memory: it is read by address. */
    cr_assert_eq(vips_linear1(rgba, &lazy, 1, 0, "uchar", TRUE, NULL), 0);
    with_lazy.pictures[0] = (gal_overlay_picture) { lazy, 0, 0 };
    cr_expect_eq(gal__overlay(rgb, &with_lazy, &out), -1);
    cr_expect_null(out);
    g_object_unref(lazy);
    g_object_unref(rgb);
    g_object_unref(rgba);
}
