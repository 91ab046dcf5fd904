/* Shrinking 8-bit images with gallop's own Lanczos 3 (resample.c, issue
 * 17): columns row by row, rows a few at a time. Flat areas kept flat, as
 * libvips' vips_reducev makes it (columns through quarter turns), the SSE2
 * loops the same bytes as the plain ones, a span shrunk alone the whole
 * axis's span; enlarging, the vector loops the plain ones' bytes. */
#include <criterion/criterion.h>

#include "gal_test.h"
#include "resample.h"

TestSuite(resample, .init = gal_test_setup, .fini = gal_test_teardown);

/* 8-bit noise of `bands` bands, in memory: every tap's weight shows. */
static VipsImage *
noise(int width, int height, int bands)
{
    return gal_test_noise(width, height, bands, 60.0, 17);
}

static VipsImage *
shrink_axis(VipsImage *in, gboolean rows, int length)
{
    VipsImage *scaled, *memory;

    cr_assert_eq(rows ? gal__scale_rows(in, length, &scaled) : gal__scale_columns(in, length,
                                                                    &scaled),
        0, "%s", vips_error_buffer());
    memory = vips_image_copy_memory(scaled);
    cr_assert_not_null(memory, "%s", vips_error_buffer());
    g_object_unref(scaled);
    return memory;
}

static VipsImage *
shrink_columns(VipsImage *in, int width)
{
    return shrink_axis(in, FALSE, width);
}

/* The libvips reducer gallop's replaced: Lanczos 3 on rows, and on columns
 * through quarter turns. */
static VipsImage *
shrink_rows_libvips(VipsImage *in, int height)
{
    VipsImage *scaled, *memory;

    cr_assert_eq(vips_reducev(in, &scaled, (double) in->Ysize / height, "kernel",
                     VIPS_KERNEL_LANCZOS3, NULL),
        0);
    memory = vips_image_copy_memory(scaled);
    g_object_unref(scaled);
    return memory;
}

static VipsImage *
shrink_columns_turned(VipsImage *in, int width)
{
    VipsImage *turned, *scaled, *back, *memory;

    cr_assert_eq(vips_rot(in, &turned, VIPS_ANGLE_D90, NULL), 0);
    cr_assert_eq(vips_reducev(turned, &scaled, (double) turned->Ysize / width, "kernel",
                     VIPS_KERNEL_LANCZOS3, NULL),
        0);
    cr_assert_eq(vips_rot(scaled, &back, VIPS_ANGLE_D270, NULL), 0);
    memory = vips_image_copy_memory(back);
    g_object_unref(turned);
    g_object_unref(scaled);
    g_object_unref(back);
    return memory;
}

static const int ratios[][2] = {
    { 2016, 1800 }, /* a 12 MP photo's columns, landscape (2016 as decoded) */
    { 1500, 1080 }, /* portrait */
    { 1080, 200 },  /* a contact-sheet tile */
    { 641, 640 },   /* hardly any */
    { 7, 3 },       /* a row shorter than the kernel */
    { 5, 2 },       /* ...with an odd count of taps */
};

Test(resample, shrinking_columns_keeps_a_flat_colour_exactly)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ratios); i++)
        for (int bands = 1; bands <= 4; bands++) {
            double ink[4] = { 3, 130, 252, 77 };
            VipsImage *black, *flat, *in, *out;
            double min, max;

            cr_assert_eq(vips_black(&black, ratios[i][0], 9, "bands", bands, NULL), 0);
            cr_assert_eq(vips_linear(black, &flat, (double[]) { 1, 1, 1, 1 }, ink, bands,
                             "uchar", TRUE, NULL),
                0);
            in = vips_image_copy_memory(flat);
            out = shrink_columns(in, ratios[i][1]);
            cr_assert_eq(out->Xsize, ratios[i][1]);
            for (int b = 0; b < bands; b++) {
                VipsImage *band;

                cr_assert_eq(vips_extract_band(out, &band, b, NULL), 0);
                cr_assert_eq(vips_min(band, &min, NULL), 0);
                cr_assert_eq(vips_max(band, &max, NULL), 0);
                cr_expect(min == ink[b] && max == ink[b],
                    "%d -> %d, %d bands, band %d: %g..%g, not %g", ratios[i][0], ratios[i][1],
                    bands, b, min, max, ink[b]);
                g_object_unref(band);
            }
            g_object_unref(black);
            g_object_unref(flat);
            g_object_unref(in);
            g_object_unref(out);
        }
}

/* Three bands take the SSE2 loop; one band the plain one. Each band of a
 * 3-band image shrunk must be that band shrunk alone, to the byte. */
Test(resample, three_bands_shrink_as_each_band_alone)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ratios); i++) {
        VipsImage *in = noise(ratios[i][0], 23, 3);
        VipsImage *out = shrink_columns(in, ratios[i][1]);

        for (int b = 0; b < 3; b++) {
            VipsImage *band, *band_memory, *alone, *of_three;
            double max_abs, mean_abs;

            cr_assert_eq(vips_extract_band(in, &band, b, NULL), 0);
            band_memory = vips_image_copy_memory(band);
            alone = shrink_columns(band_memory, ratios[i][1]);
            cr_assert_eq(vips_extract_band(out, &of_three, b, NULL), 0);
            cr_assert_eq(gal_test_diff(alone, of_three, &max_abs, &mean_abs), 0);
            cr_expect_eq(max_abs, 0, "%d -> %d, band %d: the vector loop differs by %g",
                ratios[i][0], ratios[i][1], b, max_abs);
            g_object_unref(band);
            g_object_unref(band_memory);
            g_object_unref(alone);
            g_object_unref(of_three);
        }
        g_object_unref(in);
        g_object_unref(out);
    }
}

/* Against libvips' own Lanczos 3 (vips_reducev through turns): the same
 * filter, so on a smooth picture the two agree to rounding; on noise (sigma
 * 60), the harshest case, within a few levels: libvips quantises the
 * filter's phase (measured: mean 0.7 and max 5 at 2016 -> 1800 and 1500 ->
 * 1080; mean 1.5 and max 8 at 1080 -> 200). */
Test(resample, shrinking_columns_agrees_with_libvips_lanczos3)
{
    static const int photo_ratios[][2] = { { 2016, 1800 }, { 1500, 1080 }, { 1080, 200 } };

    for (size_t i = 0; i < G_N_ELEMENTS(photo_ratios); i++) {
        VipsImage *gradient = gal_test_gradient(photo_ratios[i][0], 40);
        VipsImage *smooth = vips_image_copy_memory(gradient);
        VipsImage *rough = noise(photo_ratios[i][0], 40, 3);
        VipsImage *ours, *theirs;
        double max_abs, mean_abs;

        ours = shrink_columns(smooth, photo_ratios[i][1]);
        theirs = shrink_columns_turned(smooth, photo_ratios[i][1]);
        cr_assert_eq(gal_test_diff(ours, theirs, &max_abs, &mean_abs), 0, "sizes differ");
        cr_expect_leq(max_abs, 1, "gradient %d -> %d: max %g", photo_ratios[i][0],
            photo_ratios[i][1], max_abs);
        g_object_unref(ours);
        g_object_unref(theirs);

        ours = shrink_columns(rough, photo_ratios[i][1]);
        theirs = shrink_columns_turned(rough, photo_ratios[i][1]);
        cr_assert_eq(gal_test_diff(ours, theirs, &max_abs, &mean_abs), 0, "sizes differ");
        cr_expect_leq(mean_abs, 2.0, "noise %d -> %d: mean %g", photo_ratios[i][0],
            photo_ratios[i][1], mean_abs);
        cr_expect_leq(max_abs, 12, "noise %d -> %d: max %g", photo_ratios[i][0],
            photo_ratios[i][1], max_abs);
        g_object_unref(ours);
        g_object_unref(theirs);
        g_object_unref(gradient);
        g_object_unref(smooth);
        g_object_unref(rough);
    }
}

/* 2016 -> 1800 is 28 -> 25: source columns from a multiple of 28, shrunk
 * alone, are the whole row's output from the same multiple of 25, away
 * from the span's own edges (where the whole row has neighbours the span
 * lacks). */
Test(resample, a_span_shrunk_alone_is_the_whole_rows_span)
{
    VipsImage *in = noise(2016, 11, 3);
    VipsImage *whole = shrink_columns(in, 1800);
    VipsImage *span_in, *span_memory, *span, *inner_span, *inner_whole;
    double max_abs, mean_abs;

    cr_assert_eq(vips_extract_area(in, &span_in, 28 * 10, 0, 28 * 20, 11, NULL), 0);
    span_memory = vips_image_copy_memory(span_in);
    span = shrink_columns(span_memory, 25 * 20);
    /* The kernel reaches 3 * 28/25 source columns: 4 output columns. */
    cr_assert_eq(vips_extract_area(span, &inner_span, 5, 0, 25 * 20 - 10, 11, NULL), 0);
    cr_assert_eq(vips_extract_area(whole, &inner_whole, 25 * 10 + 5, 0, 25 * 20 - 10, 11, NULL),
        0);
    cr_assert_eq(gal_test_diff(inner_span, inner_whole, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0, "the span differs from the whole row by up to %g", max_abs);
    g_object_unref(in);
    g_object_unref(whole);
    g_object_unref(span_in);
    g_object_unref(span_memory);
    g_object_unref(span);
    g_object_unref(inner_span);
    g_object_unref(inner_whole);
}

/* Rows: the same checks. The SSE2 loop takes 16 bytes at a time and the
 * plain one the rest of the row: a picture shrunk from 5 columns further
 * in must give the same bytes in every column both have. */
Test(resample, shrinking_rows_keeps_flat_colour_and_agrees_with_libvips)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ratios); i++) {
        VipsImage *black, *flat, *in, *out, *gradient, *smooth, *ours, *theirs;
        double min, max, max_abs, mean_abs;

        cr_assert_eq(vips_black(&black, 7, ratios[i][0], "bands", 3, NULL), 0);
        cr_assert_eq(vips_linear1(black, &flat, 1, 201, "uchar", TRUE, NULL), 0);
        in = vips_image_copy_memory(flat);
        out = shrink_axis(in, TRUE, ratios[i][1]);
        cr_assert_eq(out->Ysize, ratios[i][1]);
        cr_assert_eq(vips_min(out, &min, NULL), 0);
        cr_assert_eq(vips_max(out, &max, NULL), 0);
        cr_expect(min == 201 && max == 201, "%d -> %d rows: %g..%g, not 201", ratios[i][0],
            ratios[i][1], min, max);
        if (ratios[i][1] >= 200) {
            gradient = gal_test_gradient(40, ratios[i][0]);
            smooth = vips_image_copy_memory(gradient);
            ours = shrink_axis(smooth, TRUE, ratios[i][1]);
            theirs = shrink_rows_libvips(smooth, ratios[i][1]);
            cr_assert_eq(gal_test_diff(ours, theirs, &max_abs, &mean_abs), 0, "sizes differ");
            cr_expect_leq(max_abs, 1, "gradient %d -> %d rows: max %g", ratios[i][0],
                ratios[i][1], max_abs);
            g_object_unref(gradient);
            g_object_unref(smooth);
            g_object_unref(ours);
            g_object_unref(theirs);
        }
        g_object_unref(black);
        g_object_unref(flat);
        g_object_unref(in);
        g_object_unref(out);
    }
}

Test(resample, rows_shrink_the_same_in_the_vector_loop_and_the_tail)
{
    VipsImage *in = noise(37, 1500, 3);
    VipsImage *whole = shrink_axis(in, TRUE, 1080);
    VipsImage *moved_in, *moved_memory, *moved, *a, *b;
    double max_abs, mean_abs;

    /* 37 x 3 = 111 bytes a row: 96 by the vector loop, 15 by the tail. */
    cr_assert_eq(vips_extract_area(in, &moved_in, 5, 0, 32, 1500, NULL), 0);
    moved_memory = vips_image_copy_memory(moved_in);
    moved = shrink_axis(moved_memory, TRUE, 1080);
    cr_assert_eq(vips_extract_area(whole, &a, 5, 0, 32, 1080, NULL), 0);
    cr_assert_eq(vips_extract_area(moved, &b, 0, 0, 32, 1080, NULL), 0);
    cr_assert_eq(gal_test_diff(a, b, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0, "the same columns differ by up to %g", max_abs);
    g_object_unref(in);
    g_object_unref(whole);
    g_object_unref(moved_in);
    g_object_unref(moved_memory);
    g_object_unref(moved);
    g_object_unref(a);
    g_object_unref(b);
}

/* gal__shrink (contact-sheet tiles) halves the rows first when a quarter
 * or fewer are left: an odd count keeps its last row, a flat picture stays
 * flat, and a smooth one comes out as the reducer alone makes it (within a
 * level: the halving rounds). */
Test(resample, a_tile_is_the_photo_shrunk_both_ways)
{
    static const int heights[] = { 1350, 1351 };

    for (size_t i = 0; i < G_N_ELEMENTS(heights); i++) {
        VipsImage *gradient = gal_test_gradient(1080, heights[i]);
        VipsImage *smooth = vips_image_copy_memory(gradient);
        VipsImage *tile, *tile_memory, *rows, *direct;
        double max_abs, mean_abs;

        cr_assert_eq(gal__shrink(smooth, 200, 250, &tile), 0, "%s", vips_error_buffer());
        tile_memory = vips_image_copy_memory(tile);
        cr_assert_not_null(tile_memory, "%s", vips_error_buffer());
        cr_assert_eq(tile_memory->Xsize, 200);
        cr_assert_eq(tile_memory->Ysize, 250);
        rows = shrink_axis(smooth, TRUE, 250);
        direct = shrink_axis(rows, FALSE, 200);
        cr_assert_eq(gal_test_diff(tile_memory, direct, &max_abs, &mean_abs), 0);
        cr_expect_leq(max_abs, 2, "%d rows: the tile differs by up to %g", heights[i], max_abs);
        cr_expect_leq(mean_abs, 0.5, "%d rows: mean difference %g", heights[i], mean_abs);
        g_object_unref(gradient);
        g_object_unref(smooth);
        g_object_unref(tile);
        g_object_unref(tile_memory);
        g_object_unref(rows);
        g_object_unref(direct);
    }
}

/* Rows alternately black and white (an even count, so every pair is
 * whole): every tile pixel is their mean, which only holds if the halving
 * takes both rows of each pair. */
Test(resample, a_tile_of_striped_rows_is_their_mean)
{
    VipsImage *rows, *odd, *stripes, *wide, *memory, *tile;
    double min, max;

    cr_assert_eq(vips_xyz(&rows, 1, 1350, NULL), 0);
    cr_assert_eq(vips_extract_band(rows, &odd, 1, NULL), 0);
    /* 255 on odd rows, 0 on even ones. */
    cr_assert_eq(vips_boolean_const1(odd, &stripes, VIPS_OPERATION_BOOLEAN_AND, 1, NULL), 0);
    {
        VipsImage *scaled, *uchar, *three[3];

        cr_assert_eq(vips_linear1(stripes, &scaled, 255, 0, NULL), 0);
        cr_assert_eq(vips_cast_uchar(scaled, &uchar, NULL), 0);
        three[0] = three[1] = three[2] = uchar;
        cr_assert_eq(vips_bandjoin(three, &wide, 3, NULL), 0);
        g_object_unref(scaled);
        g_object_unref(uchar);
    }
    {
        VipsImage *broad;

        cr_assert_eq(vips_embed(wide, &broad, 0, 0, 1080, 1350, "extend", VIPS_EXTEND_COPY,
                         NULL),
            0);
        memory = vips_image_copy_memory(broad);
        g_object_unref(broad);
    }
    cr_assert_eq(gal__shrink(memory, 200, 250, &tile), 0, "%s", vips_error_buffer());
    cr_assert_eq(vips_min(tile, &min, NULL), 0);
    cr_assert_eq(vips_max(tile, &max, NULL), 0);
    cr_expect(min >= 126 && max <= 129, "striped rows made a tile of %g..%g, not about 128", min,
        max);
    g_object_unref(rows);
    g_object_unref(odd);
    g_object_unref(stripes);
    g_object_unref(wide);
    g_object_unref(memory);
    g_object_unref(tile);
}

/* Enlarging: the 3-band columns take the SSE2 loop (pairs of taps, the
 * edges paired by hand), one band the plain one; rows take the vector loop
 * and its tail. Each kernel's taps (four or six), at ratios whose edges
 * repeat the edge pixel. */
Test(resample, three_bands_enlarge_as_each_band_alone)
{
    static const int sizes[][2] = { { 7, 23 }, { 25, 28 }, { 40, 97 }, { 3, 1000 } };

    for (gal_kernel k = GAL_KERNEL_LANCZOS3; k <= GAL_KERNEL_CATMULL_ROM; k++)
        for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
            int from = sizes[i][0], to = sizes[i][1];
            VipsImage *in = noise(from, from + 2, 3), *cols, *both, *out;

            cr_assert_eq(gal__scale_columns_with(in, to, k, &cols), 0, "%s", vips_error_buffer());
            cr_assert_eq(gal__scale_rows_with(cols, to + 5, k, &both), 0);
            out = vips_image_copy_memory(both);
            for (int b = 0; b < 3; b++) {
                VipsImage *band, *band_memory, *band_cols, *band_both, *of_three;
                double max_abs, mean_abs;

                cr_assert_eq(vips_extract_band(in, &band, b, NULL), 0);
                band_memory = vips_image_copy_memory(band);
                cr_assert_eq(gal__scale_columns_with(band_memory, to, k, &band_cols), 0);
                cr_assert_eq(gal__scale_rows_with(band_cols, to + 5, k, &band_both), 0);
                cr_assert_eq(vips_extract_band(out, &of_three, b, NULL), 0);
                cr_assert_eq(gal_test_diff(band_both, of_three, &max_abs, &mean_abs), 0);
                cr_expect_eq(max_abs, 0, "kernel %d, %d -> %d, band %d: the loops differ by %g",
                    k, from, to, b, max_abs);
                g_object_unref(band);
                g_object_unref(band_memory);
                g_object_unref(band_cols);
                g_object_unref(band_both);
                g_object_unref(of_three);
            }
            g_object_unref(in);
            g_object_unref(cols);
            g_object_unref(both);
            g_object_unref(out);
        }
}
