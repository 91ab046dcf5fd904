/* Contact sheets: grid and justified layouts (pure geometry), options, and
 * a composed page with labels, title and footer. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gal_test.h"

TestSuite(stage_contact_sheet, .init = gal_test_setup, .fini = gal_test_teardown);

Test(stage_contact_sheet, grid_cells_fit_photos_inside_and_size_the_sheet)
{
    double aspects[7] = { 1.0, 1.5, 0.8, 2.0, 0.5, 1.0, 1.91 };
    gal_rect cells[7];
    int w, h;

    gal__sheet_grid(7, 7, aspects, 3, 200, 1.0, 10, 30, FALSE, cells, &w, &h);
    cr_expect_eq(w, 10 + 3 * 210);
    cr_expect_eq(h, 10 + 3 * (200 + 30 + 10), "3 rows of 200 + label 30 + gap");
    /* landscape 1.5 in a square cell: full width, 133 high, sitting on the label */
    cr_expect_eq(cells[1].w, 200);
    cr_expect_eq(cells[1].h, 133);
    cr_expect_eq(cells[1].x, 10 + 210);
    cr_expect_eq(cells[1].y, 10 + 200 - 133);
    /* portrait 0.8: full height, centred */
    cr_expect_eq(cells[2].h, 200);
    cr_expect_eq(cells[2].w, 160);
    cr_expect_eq(cells[2].x, 10 + 2 * 210 + 20);
    /* second row */
    cr_expect_eq(cells[3].y, 10 + 240 + (200 - 100), "row 2 starts one cell + label + gap down");
    cr_expect_eq(cells[6].x, 10 + (200 - 200) / 2);
}

Test(stage_contact_sheet, grid_with_crop_fills_every_cell)
{
    double aspects[2] = { 3.0, 0.3 };
    gal_rect cells[2];
    int w, h;

    gal__sheet_grid(2, 2, aspects, 6, 100, 1.25, 4, 0, TRUE, cells, &w, &h);
    cr_expect_eq(cells[0].w, 100);
    cr_expect_eq(cells[0].h, 125);
    cr_expect_eq(cells[1].h, 125);
    cr_expect_eq(w, 4 + 2 * 104, "a short last row does not widen the sheet");
}

Test(stage_contact_sheet, a_short_last_page_is_laid_out_as_a_full_one)
{
    double aspects[3] = { 1.0, 1.5, 0.8 };
    gal_rect cells[3];
    int full_w, full_h, w, h;
    gal_rect full_cells[10];
    double full_aspects[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };

    gal__sheet_grid(10, 10, full_aspects, 5, 100, 1.0, 4, 20, FALSE, full_cells, &full_w,
        &full_h);
    gal__sheet_grid(3, 10, aspects, 5, 100, 1.0, 4, 20, FALSE, cells, &w, &h);
    cr_expect_eq(w, full_w, "width %d, a full page %d", w, full_w);
    cr_expect_eq(h, full_h, "height %d, a full page %d", h, full_h);
    cr_expect_eq(cells[0].x, full_cells[0].x, "the first cell stays where it is");
}

Test(stage_contact_sheet, a_long_label_keeps_its_index_and_the_end_of_the_name)
{
    static const char *const labels[] = { "3. storm-rotated-in-the-harbour.jpg",
        "12. IMG_20240101_123456789.jpg", "7. 北朝鮮の写真とても長い名前です.jpg" };
    gal_color white = { 255, 255, 255, 255, FALSE };

    for (size_t i = 0; i < G_N_ELEMENTS(labels); i++)
        for (int width = 60; width <= 200; width += 35) {
            gal_error err = { 0 };
            g_autofree char *fit = gal__sheet_label_fit(labels[i], 12, width, &white, &err);
            const char *dot = strchr(labels[i], ' ');
            g_autofree char *index = g_strndup(labels[i], (gsize) (dot - labels[i]) + 1);
            const char *end = labels[i] + strlen(labels[i]) - 3; /* "jpg" */

            cr_assert_not_null(fit, "%s at %d: %s", labels[i], width, err.msg);
            cr_expect(g_str_has_prefix(fit, index), "%s at %d px: \"%s\" lost its index",
                labels[i], width, fit);
            cr_expect(g_str_has_suffix(fit, end), "%s at %d px: \"%s\" lost the name's end",
                labels[i], width, fit);
            cr_expect(strstr(fit, "…"), "%s at %d px: \"%s\" is cut in the middle", labels[i],
                width, fit);
        }
    {
        gal_error err = { 0 };
        g_autofree char *fit =
            gal__sheet_label_fit("3. storm-rotated.jpg", 12, 1000, &white, &err);

        cr_expect_str_eq(fit, "3. storm-rotated.jpg", "a label that fits is whole");
    }
}

Test(stage_contact_sheet, justified_rows_fill_the_width_at_one_height)
{
    double aspects[6] = { 1.5, 1.5, 0.75, 1.0, 1.5, 0.75 };
    gal_rect cells[6];
    int h;

    gal__sheet_justified(6, aspects, 1000, 200, 10, 0, cells, &h);
    for (int i = 0; i < 6; i++) {
        int row_end = i + 1 < 6 && cells[i + 1].y == cells[i].y ? 0 : 1;

        if (row_end && cells[i].y != cells[5].y)
            cr_expect_eq(cells[i].x + cells[i].w, 990, "row ends flush at %d", cells[i].x + cells[i].w);
        if (i > 0 && cells[i].y == cells[i - 1].y) {
            cr_expect_eq(cells[i].h, cells[i - 1].h, "equal heights in a row");
            cr_expect_eq(cells[i].x, cells[i - 1].x + cells[i - 1].w + 10);
        }
    }
    cr_expect_eq(cells[5].h, 200, "the last row keeps the target height");
    cr_expect_gt(h, 2 * 200);
}

static gal_preset *
sheet_preset(const char *opts)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - contact-sheet: %s\n", opts);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);

    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    return preset;
}

/* Tiles as tap() makes them, from synthetic photos of the given sizes. */
static VipsImage **
tiles(const gal_stage_instance *st, const int (*sizes)[2], int n)
{
    VipsImage **items = g_new0(VipsImage *, n);
    gal_stage_ctx sc = gal__stage_ctx(st);

    for (int i = 0; i < n; i++) {
        gal_error err = { 0 };
        g_autofree char *name = g_strdup_printf("IMG_%04d.jpg", i + 1);
        g_autoptr(VipsImage) photo = gal_test_gradient(sizes[i][0], sizes[i][1]);
        gal_facts facts = { .name = name, .index = i + 1 };
        gal_photo in = { &facts, NULL };

        cr_assert_eq(st->def->tap(&sc, &in, photo, &items[i], &err), 0, "%s", err.msg);
    }
    return items;
}

Test(stage_contact_sheet, a_page_has_the_grid_size_labels_and_footer)
{
    static const int sizes[5][2] = { { 400, 300 }, { 300, 400 }, { 500, 500 }, { 800, 200 },
        { 200, 800 } };
    gal_preset *preset = sheet_preset("{columns: 3, tile: 120, gap: 6, title: \"Trip — {count} photos\"}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    VipsImage **items = tiles(st, sizes, 5);
    gal_page page = { .number = 1, .pages = 2, .count = 9, .preset = "test" };
    gal_error err = { 0 };
    g_autoptr(VipsImage) sheet = NULL;
    g_autoptr(VipsImage) unlabelled = NULL;
    g_autoptr(VipsImage) a = NULL;
    g_autoptr(VipsImage) b = NULL;
    double max_d, mean_d;
    const char *label;

    cr_assert_eq(vips_image_get_string(items[2], "gal-label", &label), 0);
    cr_expect_str_eq(label, "3. IMG_0003.jpg");
    cr_expect_leq(items[0]->Xsize, 120);
    cr_expect_leq(items[1]->Ysize, 120);
    cr_assert_eq(st->def->build_many(&sc, items, 5, &page, &sheet, &err), 0, "%s", err.msg);
    cr_expect_eq(sheet->Xsize, 6 + 3 * 126, "width %d", sheet->Xsize);
    cr_expect_eq(sheet->Bands, 3);
    cr_expect_gt(sheet->Ysize, 6 + 2 * 126, "two rows with labels, title and footer: %d",
        sheet->Ysize);
    /* Labels draw ink under the cells: the sheet differs from one without. */
    for (int i = 0; i < 5; i++)
        vips_image_set_string(items[i], "gal-label", "");
    cr_assert_eq(st->def->build_many(&sc, items, 5, &page, &unlabelled, &err), 0, "%s", err.msg);
    a = vips_image_copy_memory(sheet);
    b = vips_image_copy_memory(unlabelled);
    cr_assert_eq(gal_test_diff(a, b, &max_d, &mean_d), 0);
    cr_expect_gt(max_d, 100, "labels are drawn");
    for (int i = 0; i < 5; i++)
        g_object_unref(items[i]);
    g_free(items);
    gal_preset_free(preset);
}

Test(stage_contact_sheet, page_names_are_numbered_and_padded)
{
    gal_preset *preset = sheet_preset("{file: \"proof-{page}.png\"}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    gal_page of_5 = { .number = 3, .pages = 5 }, of_12 = { .number = 3, .pages = 12 };
    g_autofree char *one = st->def->page_name(&sc, &of_5);
    g_autofree char *two = st->def->page_name(&sc, &of_12);

    cr_expect_str_eq(one, "proof-3.png");
    cr_expect_str_eq(two, "proof-03.png", "sorts right in a folder");
    gal_preset_free(preset);
}

Test(stage_contact_sheet, options_are_checked_at_load)
{
    static const struct { const char *opts, *msg; } cases[] = {
        { "{file: contact.jpg}", "has no {page}" },
        { "{file: \"sheets/c-{page}.jpg\"}", "plain file name" },
        { "{file: \"c-{page}.gif\"}", "end the name in .jpg, .png or .webp" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - contact-sheet: %s\n",
            cases[i].opts);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);

        cr_expect_null(gal_test_load(yaml, errs), "%s loaded", cases[i].opts);
        cr_expect(errs->count == 1 && strstr(errs->items[0].msg, cases[i].msg) != NULL,
            "%s: %s", cases[i].opts, errs->count ? errs->items[0].msg : "(no error)");
    }
    {
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_preset *one_sheet = gal_test_load(
            "gallop: 1\nstages:\n  - contact-sheet: {file: all.jpg, per-page: 0}\n", errs);

        cr_expect_not_null(one_sheet, "one sheet needs no {page}");
        gal_preset_free(one_sheet);
    }
}

/* aspect is a ratio, parsed when the preset loads: a bad one is an error at
 * its own line and column, not at the stage. */
Test(stage_contact_sheet, aspect_is_a_ratio_checked_at_its_key)
{
    static const char *const bad[] = { "3x2", "0:1", "1:0", "101:1", "1:101", "1:", ":1",
        "1:2:3", "-1:2", "+1:2", "a:b", "1.5:1", "square", "" };
    static const struct { const char *text, *shown; } good[] = {
        { "3:2", "aspect=3:2" }, { " 4 : 5 ", "aspect=4:5" }, { "100:1", "aspect=100:1" },
        { "01:1", "aspect=1:1" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *yaml = g_strdup_printf(
            "gallop: 1\nstages:\n  - contact-sheet:\n      aspect: \"%s\"\n", bad[i]);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);

        cr_expect_null(gal_test_load(yaml, errs), "aspect \"%s\" loaded", bad[i]);
        cr_expect(errs->count == 1 && errs->items[0].line == 4 && errs->items[0].col == 15 &&
                strcmp(errs->items[0].key, "contact-sheet.aspect") == 0 &&
                strstr(errs->items[0].msg, "expected width:height") != NULL,
            "aspect \"%s\": %d:%d %s: %s", bad[i], errs->count ? errs->items[0].line : 0,
            errs->count ? errs->items[0].col : 0, errs->count ? errs->items[0].key : "",
            errs->count ? errs->items[0].msg : "(no error)");
    }
    for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
        g_autofree char *yaml = g_strdup_printf(
            "gallop: 1\nstages:\n  - contact-sheet: {aspect: \"%s\"}\n", good[i].text);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_preset *preset = gal_test_load(yaml, errs);
        g_autofree char *described = preset ? gal_preset_describe(preset) : NULL;

        cr_expect(described && strstr(described, good[i].shown), "aspect \"%s\": %s",
            good[i].text, described ? described : errs->items[0].msg);
        gal_preset_free(preset);
    }
}

static VipsImage *
solid_photo(int width, int height, double r, double g, double b)
{
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) painted = NULL;
    double one[3] = { 1, 1, 1 }, rgb[3] = { r, g, b };
    VipsImage *out = NULL;

    cr_assert_eq(vips_black(&black, width, height, "bands", 3, NULL), 0);
    cr_assert_eq(vips_linear(black, &painted, one, rgb, 3, "uchar", TRUE, NULL), 0);
    cr_assert_eq(vips_copy(painted, &out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    return out;
}

static void
expect_pixel(VipsImage *image, int x, int y, int r, int g, int b)
{
    double *v = NULL;
    int n;

    cr_assert_eq(vips_getpoint(image, &v, &n, x, y, NULL), 0);
    cr_expect(fabs(v[0] - r) <= 1 && fabs(v[1] - g) <= 1 && fabs(v[2] - b) <= 1,
        "(%d, %d) is %g %g %g, not %d %d %d", x, y, v[0], v[1], v[2], r, g, b);
    g_free(v);
}

/* Every tile where the grid puts it, the background everywhere else. */
Test(stage_contact_sheet, tiles_are_painted_at_their_cells_over_the_background)
{
    gal_preset *preset = sheet_preset(
        "{columns: 2, tile: 100, gap: 10, label: none, background: \"#0000ff\"}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    const double colours[3][3] = { { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 255 } };
    VipsImage *items[3];
    gal_page page = { .number = 1, .pages = 1, .count = 3, .preset = "test" };
    gal_error err = { 0 };
    g_autoptr(VipsImage) sheet = NULL;
    g_autoptr(VipsImage) memory = NULL;

    for (int i = 0; i < 3; i++) {
        g_autoptr(VipsImage) photo =
            solid_photo(100, 100, colours[i][0], colours[i][1], colours[i][2]);
        gal_facts facts = { .index = i + 1 };
        gal_photo in = { &facts, NULL };

        cr_assert_eq(st->def->tap(&sc, &in, photo, &items[i], &err), 0, "%s", err.msg);
    }
    cr_assert_eq(st->def->build_many(&sc, items, 3, &page, &sheet, &err), 0, "%s", err.msg);
    memory = vips_image_copy_memory(sheet);
    cr_assert_not_null(memory);
    cr_expect_eq(memory->Xsize, 10 + 2 * 110);
    expect_pixel(memory, 10 + 50, 10 + 50, 255, 0, 0);   /* row 1, column 1 */
    expect_pixel(memory, 120 + 50, 10 + 50, 0, 255, 0);  /* row 1, column 2 */
    expect_pixel(memory, 10 + 50, 120 + 50, 255, 255, 255); /* row 2, column 1 */
    expect_pixel(memory, 10, 10, 255, 0, 0);             /* a tile's first pixel */
    expect_pixel(memory, 109, 109, 255, 0, 0);           /* and its last */
    expect_pixel(memory, 5, 5, 0, 0, 255);               /* the gap before it */
    expect_pixel(memory, 115, 60, 0, 0, 255);            /* the gap between columns */
    expect_pixel(memory, 120 + 50, 120 + 50, 0, 0, 255); /* the empty cell */
    for (int i = 0; i < 3; i++)
        g_object_unref(items[i]);
    gal_preset_free(preset);
}

/* The mean of band 0 (red: gal_test_gradient's grows left to right). */
static double
red_mean(VipsImage *image)
{
    g_autoptr(VipsImage) red = NULL;
    double mean;

    cr_assert_eq(vips_extract_band(image, &red, 0, NULL), 0);
    cr_assert_eq(vips_avg(red, &mean, NULL), 0);
    return mean;
}

/* A cropped tile is cut around the photo's own focus point (overrides.h),
 * shrunk or enlarged; without one, from the centre. */
Test(stage_contact_sheet, a_cropped_tile_keeps_the_photos_focus_point)
{
    gal_preset *preset = sheet_preset("{columns: 2, tile: 100, crop: true}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    static const int widths[] = { 800, 80 }; /* shrunk, then enlarged */
    static const double points[] = { 0.95, 0.05, -1 };

    for (gsize s = 0; s < G_N_ELEMENTS(widths); s++) {
        double red[G_N_ELEMENTS(points)];

        for (gsize p = 0; p < G_N_ELEMENTS(points); p++) {
            gal_facts facts = { .name = "a.jpg", .index = 1, .has_focus = points[p] >= 0,
                .focus_x = points[p], .focus_y = 0.5 };
            gal_photo photo = { &facts, NULL };
            g_autoptr(VipsImage) in = gal_test_gradient(widths[s], widths[s] / 4);
            g_autoptr(VipsImage) item = NULL;
            gal_error err = { 0 };

            cr_assert_eq(st->def->tap(&sc, &photo, in, &item, &err), 0, "%s", err.msg);
            cr_assert_eq(item->Xsize, 100);
            cr_assert_eq(item->Ysize, 100);
            red[p] = red_mean(item);
        }
        /* The photo is four tiles wide at tile height: the right quarter
         * is red about 223, the left about 32, the middle about 128. */
        cr_expect_gt(red[0], 200, "width %d, focus at the right: %.1f", widths[s], red[0]);
        cr_expect_lt(red[1], 55, "width %d, focus at the left: %.1f", widths[s], red[1]);
        cr_expect(red[2] > 110 && red[2] < 145, "width %d, centre: %.1f", widths[s], red[2]);
    }
    gal_preset_free(preset);
}
