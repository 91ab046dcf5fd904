/* The contact sheet's order: by name, by date taken, or the run's order. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(gather, .init = gal_test_setup, .fini = gal_test_teardown);

static const char *const trip[] = {
    GAL_FIXTURES_DIR "/trip/trip-03.jpg", GAL_FIXTURES_DIR "/trip/trip-01.jpg",
    GAL_FIXTURES_DIR "/trip/trip-22.jpg", GAL_FIXTURES_DIR "/trip/trip-09.png",
    GAL_FIXTURES_DIR "/trip/trip-13.jpg", GAL_FIXTURES_DIR "/trip/trip-17.jpg",
};

/* Ordering and paging only: nothing is written there. */
static gal_out_dir nowhere = { .fd = -1, .path = (char *) GAL_TEST_TMP };

static gal_gather *
plan(const char *sort, int *order, gal_preset **preset_out)
{
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\nstages:\n  - contact-sheet: {sort: %s, per-page: 4}\n", sort);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    gal_gather *g;

    cr_assert_not_null(preset);
    g = gal__gather_new(preset, (const char *const *) trip, NULL, NULL, G_N_ELEMENTS(trip), &nowhere,
        order);
    cr_assert_not_null(g);
    *preset_out = preset; /* it must outlive the gather */
    return g;
}

Test(gather, sorts_by_file_name)
{
    int order[6];
    gal_preset *sheet;
    gal_gather *g = plan("name", order, &sheet);

    for (int p = 1; p < 6; p++) {
        g_autofree char *a = g_path_get_basename(trip[order[p - 1]]);
        g_autofree char *b = g_path_get_basename(trip[order[p]]);

        cr_expect_lt(strcmp(a, b), 0, "%s before %s", a, b);
    }
    cr_expect_eq(gal__gather_index(g, order[0]), 1);
    cr_expect_eq(gal__gather_index(g, order[5]), 6);
    g_array_free(gal__gather_free(g), TRUE);
    gal_preset_free(sheet);
}

Test(gather, names_sort_naturally_and_without_regard_to_case)
{
    static const char *const sorted[] = { "aqua.jpg", "img_1.jpg", "IMG_2.jpg", "img_3.jpg",
        "IMG_10.jpg", "IMG_10a.jpg", "IMG_011.jpg", "IMG_100.jpg", "Yellow.jpg", "zebra.jpg" };

    for (size_t i = 0; i < G_N_ELEMENTS(sorted); i++)
        for (size_t j = 0; j < G_N_ELEMENTS(sorted); j++) {
            int c = gal__natural_compare(sorted[i], sorted[j]);

            cr_expect(i < j ? c < 0 : i > j ? c > 0 : c == 0, "%s vs %s: %d", sorted[i],
                sorted[j], c);
        }
    /* Equal but for case: still one order, both ways. */
    cr_expect_lt(gal__natural_compare("IMG_2.jpg", "img_2.jpg"), 0);
    cr_expect_gt(gal__natural_compare("img_2.jpg", "IMG_2.jpg"), 0);
    cr_expect_neq(gal__natural_compare("IMG_02.jpg", "IMG_2.jpg"), 0);
}

Test(gather, sorts_by_date_taken)
{
    int order[6];
    gal_preset *sheet;
    gal_gather *g = plan("date", order, &sheet);
    g_autofree char *yaml = g_strdup("gallop: 1\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    char previous[32] = "";

    for (int p = 0; p < 6; p++) {
        g_autoptr(GStringChunk) strings = g_string_chunk_new(64);
        gal_facts facts = { 0 };
        gal_error err = { 0 };
        char when[32];

        cr_assert_eq(gal__photo_facts(preset, &(gal_photo_ref) { .path = trip[order[p]] }, &facts, strings, &err), 0);
        cr_assert(facts.has_date, "%s has a date", trip[order[p]]);
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &facts.date);
        cr_expect_geq(strcmp(when, previous), 0, "%s (%s) after %s", trip[order[p]], when,
            previous);
        g_strlcpy(previous, when, sizeof(previous));
    }
    gal_preset_free(preset);
    g_array_free(gal__gather_free(g), TRUE);
    gal_preset_free(sheet);
}

Test(gather, input_order_is_the_run_order)
{
    int order[6];
    gal_preset *sheet;
    gal_gather *g = plan("input", order, &sheet);

    for (int p = 0; p < 6; p++)
        cr_expect_eq(order[p], p);
    g_array_free(gal__gather_free(g), TRUE);
    gal_preset_free(sheet);
}

Test(gather, no_gathering_stage_no_gather)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\n", errs);
    int order[6] = { -1, -1, -1, -1, -1, -1 };

    cr_expect_null(gal__gather_new(preset, (const char *const *) trip, NULL, NULL, 6, &nowhere, order));
    cr_expect_eq(order[0], -1, "order untouched");
    gal_preset_free(preset);
}

/* A gallery's plan over `paths`, whose albums are `albums`. */
static gal_gather *
plan_gallery(const char *opts, const char *const *paths, const char *const *albums, int n,
    int *order, gal_preset **preset_out)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - gallery: %s\n", opts);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    gal_gather *g;

    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    g = gal__gather_new(preset, paths, albums, NULL, n, &nowhere, order);
    cr_assert_not_null(g);
    *preset_out = preset;
    return g;
}

/* A photo without a date taken (no EXIF at all) in `dir`. */
static char *
undated_photo(const char *dir, const char *name)
{
    g_autoptr(VipsImage) image = gal_test_gradient(64, 48);
    char *path = g_build_filename(dir, name, NULL);

    cr_assert_eq(vips_jpegsave(image, path, "strip", TRUE, NULL), 0);
    return path;
}

Test(gather, undated_photos_go_last_by_date_and_by_newest)
{
    g_autofree char *dir = gal_test_tmpdir("undated");
    g_autofree char *undated = undated_photo(dir, "a-undated.jpg");
    /* trip-01 was taken before trip-22. */
    const char *paths[] = { undated, GAL_FIXTURES_DIR "/trip/trip-22.jpg",
        GAL_FIXTURES_DIR "/trip/trip-01.jpg" };
    const char *albums[] = { "", "", "" };
    int order[3];
    gal_preset *preset;
    gal_gather *g = plan_gallery("{sort: date}", paths, albums, 3, order, &preset);

    cr_expect_eq(order[0], 2, "the oldest first");
    cr_expect_eq(order[1], 1);
    cr_expect_eq(order[2], 0, "the photo without a date last, though its file is the newest");
    g_array_free(gal__gather_free(g), TRUE);
    gal_preset_free(preset);

    g = plan_gallery("{sort: newest}", paths, albums, 3, order, &preset);
    cr_expect_eq(order[0], 1, "the newest first");
    cr_expect_eq(order[1], 2);
    cr_expect_eq(order[2], 0, "the photo without a date still last");
    g_array_free(gal__gather_free(g), TRUE);
    gal_preset_free(preset);
}

/* Albums: the top's photos, then each album and its sub-albums in turn
 * (by name), each album's photos together; album.yaml's sort is the
 * album's own. */
Test(gather, albums_are_a_tree_in_order_each_with_its_sort)
{
    g_autofree char *root = gal_test_tmpdir("albums");
    g_autofree char *b = g_build_filename(root, "b", NULL);
    g_autofree char *a = g_build_filename(root, "a", NULL);
    g_autofree char *ab = g_build_filename(root, "a", "b", NULL);
    g_autofree char *yaml = g_build_filename(ab, "album.yaml", NULL);
    g_autofree char *p0 = NULL, *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL, *p5 = NULL;
    const char *albums[] = { "b", "a/b", "a/b", "", "a", "a/b" };
    int order[6];
    gal_preset *preset;
    gal_gather *g;

    cr_assert_eq(g_mkdir_with_parents(b, 0755) | g_mkdir_with_parents(ab, 0755), 0);
    p0 = undated_photo(b, "z.jpg");
    p1 = undated_photo(ab, "1.jpg");
    p2 = undated_photo(ab, "3.jpg");
    p3 = undated_photo(root, "top.jpg");
    p4 = undated_photo(a, "x.jpg");
    p5 = undated_photo(ab, "2.jpg");
    /* a/b in the reverse of its names: input order is by path. */
    cr_assert(g_file_set_contents(yaml, "sort: input\n", -1, NULL));
    {
        const char *paths[] = { p0, p1, p2, p3, p4, p5 };

        g = plan_gallery("{sort: name}", paths, albums, 6, order, &preset);
    }
    cr_expect_eq(order[0], 3, "the top album's photos first");
    cr_expect_eq(order[1], 4, "then a");
    cr_expect_eq(order[2], 1, "then a/b, in its own order (the run's)");
    cr_expect_eq(order[3], 2);
    cr_expect_eq(order[4], 5);
    cr_expect_eq(order[5], 0, "then b");
    g_array_free(gal__gather_free(g), TRUE);
    gal_preset_free(preset);
}
