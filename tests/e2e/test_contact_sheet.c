/* Contact sheets end to end: sizes for grid and justified layouts, pages,
 * a failed photo closing up, and the same bytes whatever -j. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_meta.h"

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

TestSuite(contact_sheet);

static int
run(const char *tmp, const char *yaml, const char *input, const char *out_dir, const char *jobs,
    char **err)
{
    g_autofree char *preset = gal_test_write_preset(tmp, "sheet.yaml", yaml);
    const char *argv[] = { GAL_BINARY, "run", preset, input, "-o", out_dir, "-j", jobs, "-q",
        NULL };

    return gal_test_spawn(argv, NULL, err);
}

Test(contact_sheet, twenty_three_photos_at_ten_a_page_make_three_grid_sheets)
{
    g_autofree char *tmp = gal_test_tmpdir("sheet-pages");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *err = NULL;
    const char *yaml = "gallop: 1\n"
                       "stages:\n"
                       "  - resize: {width: 300, height: 300}\n"
                       "  - contact-sheet: {file: \"c-{page}.png\", columns: 4, tile: 100, "
                       "gap: 5, per-page: 10, label: \"\"}\n";
    int widths[3], heights[3];

    cr_assert_eq(run(tmp, yaml, TRIP_DIR, out, "2", &err), 0, "%s", err);
    for (int p = 0; p < 3; p++) {
        g_autofree char *name = g_strdup_printf("c-%d.png", p + 1);
        g_autofree char *path = g_build_filename(out, name, NULL);
        g_autoptr(VipsImage) sheet = gal_test_load_image(path, FALSE);

        widths[p] = sheet->Xsize;
        heights[p] = sheet->Ysize;
    }
    {
        g_autofree char *fourth = g_build_filename(out, "c-4.png", NULL);

        cr_expect_not(g_file_test(fourth, G_FILE_TEST_EXISTS), "only three sheets");
    }
    cr_expect_eq(widths[0], 5 + 4 * 105, "4 columns of 100 + gaps");
    cr_expect_eq(widths[2], 5 + 3 * 105, "the last page holds 3 photos in one row");
    cr_expect_eq(heights[0] - heights[2], 2 * 105, "10 photos make 3 rows, 3 photos 1 row");
    cr_expect_eq(heights[0], heights[1]);
}

Test(contact_sheet, justified_rows_fill_the_sheet_width)
{
    g_autofree char *tmp = gal_test_tmpdir("sheet-justified");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet_path = g_build_filename(out, "all.png", NULL);
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) sheet = NULL;

    cr_assert_eq(run(tmp,
                     "gallop: 1\nstages:\n  - contact-sheet: {file: all.png, layout: justified, "
                     "columns: 5, tile: 120, gap: 6, per-page: 0}\n",
                     TRIP_DIR, out, "2", &err),
        0, "%s", err);
    sheet = gal_test_load_image(sheet_path, FALSE);
    cr_expect_eq(sheet->Xsize, 6 + 5 * 126);
    cr_expect_gt(sheet->Ysize, 3 * 120, "23 photos need several rows");
}

Test(contact_sheet, a_failed_photo_is_left_out_and_the_sheet_still_builds)
{
    g_autofree char *tmp = gal_test_tmpdir("sheet-broken");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet_path = g_build_filename(out, "c-1.png", NULL);
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) sheet = NULL;
    static const char *const photos[] = { "trip-01.jpg", "trip-02.jpg", "trip-03.jpg" };

    g_mkdir_with_parents(in, 0777);
    for (size_t i = 0; i < G_N_ELEMENTS(photos); i++) {
        g_autofree char *from = g_build_filename(TRIP_DIR, photos[i], NULL);
        g_autofree char *to = g_build_filename(in, photos[i], NULL);
        gsize len;
        g_autofree char *bytes = gal_test_read_bytes(from, &len);

        cr_assert(g_file_set_contents(to, bytes, (gssize) len, NULL));
    }
    {
        g_autofree char *to = g_build_filename(in, "trip-02b.jpg", NULL);
        gsize len;
        g_autofree char *bytes = gal_test_read_bytes(GAL_FIXTURES_DIR "/broken/truncated.jpg",
            &len);

        cr_assert(g_file_set_contents(to, bytes, (gssize) len, NULL));
    }
    cr_assert_eq(run(tmp,
                     "gallop: 1\nstages:\n  - resize: {width: 200}\n  - contact-sheet: "
                     "{file: \"c-{page}.png\", columns: 6, tile: 100, gap: 10, label: \"\"}\n",
                     in, out, "2", &err),
        1, "%s", err);
    cr_expect(strstr(err, "trip-02b.jpg: ") != NULL, "the failure is reported: %s", err);
    sheet = gal_test_load_image(sheet_path, FALSE);
    cr_expect_eq(sheet->Xsize, 10 + 3 * 110, "three good photos side by side, no empty cell");
}

Test(contact_sheet, sheets_are_the_same_bytes_with_one_or_four_jobs)
{
    g_autofree char *tmp = gal_test_tmpdir("sheet-jobs");
    g_autofree char *one = g_build_filename(tmp, "one", NULL);
    g_autofree char *four = g_build_filename(tmp, "four", NULL);
    g_autofree char *err = NULL;
    const char *yaml = "gallop: 1\nstages:\n  - resize: {width: 300, height: 300}\n"
                       "  - contact-sheet: {per-page: 9, sort: date, tile: 90}\n";

    cr_assert_eq(run(tmp, yaml, TRIP_DIR, one, "1", &err), 0, "%s", err);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(tmp, yaml, TRIP_DIR, four, "4", &err), 0, "%s", err);
    for (int p = 1; p <= 3; p++) {
        g_autofree char *name = g_strdup_printf("contact-%d.jpg", p);
        g_autofree char *a_path = g_build_filename(one, name, NULL);
        g_autofree char *b_path = g_build_filename(four, name, NULL);
        gsize a_len, b_len;
        g_autofree char *a = gal_test_read_bytes(a_path, &a_len);
        g_autofree char *b = gal_test_read_bytes(b_path, &b_len);

        cr_expect(a_len == b_len && memcmp(a, b, a_len) == 0, "%s differs between -j 1 and -j 4",
            name);
    }
}

Test(contact_sheet, a_sheet_carries_no_photos_caption_camera_or_date)
{
    g_autofree char *tmp = gal_test_tmpdir("sheet-meta");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet_path = g_build_filename(out, "contact-1.jpg", NULL);
    g_autofree char *photo_path = g_build_filename(out, "trip-01.jpg", NULL);
    g_autofree char *err = NULL;
    g_autoptr(ExifData) sheet = NULL;
    g_autoptr(ExifData) photo = NULL;
    g_autofree char *software = NULL;
    g_autofree char *photo_caption = NULL;
    const char *yaml = "gallop: 1\nstages:\n  - resize: {width: 200, height: 200}\n"
                       "  - contact-sheet: {per-page: 0, tile: 60, sort: name}\n";

    cr_assert_eq(run(tmp, yaml, TRIP_DIR, out, "2", &err), 0, "%s", err);
    /* The photo itself keeps its caption under the default policy, so the
     * sheet's lack of one is the sheet's doing. */
    photo = gal_test_exif(photo_path);
    cr_assert_not_null(photo);
    photo_caption = gal_test_exif_text(photo, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION);
    cr_assert_not_null(photo_caption, "trip-01's output keeps its caption");

    sheet = gal_test_exif(sheet_path);
    cr_assert_not_null(sheet, "the sheet is tagged with the software that made it");
    software = gal_test_exif_text(sheet, EXIF_IFD_0, EXIF_TAG_SOFTWARE);
    cr_expect(software && g_str_has_prefix(software, "gallop ") &&
            strstr(software, "(preset sheet)") != NULL,
        "Software: %s", software);
    static const struct { ExifIfd ifd; ExifTag tag; } photo_tags[] = {
        { EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION }, { EXIF_IFD_0, EXIF_TAG_MAKE },
        { EXIF_IFD_0, EXIF_TAG_MODEL }, { EXIF_IFD_0, EXIF_TAG_ARTIST },
        { EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL }, { EXIF_IFD_EXIF, EXIF_TAG_EXPOSURE_TIME },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(photo_tags); i++)
        cr_expect_null(exif_content_get_entry(sheet->ifd[photo_tags[i].ifd], photo_tags[i].tag),
            "the sheet carries a photo's %s", exif_tag_get_name(photo_tags[i].tag));
    cr_expect_null(exif_data_get_entry(sheet, EXIF_TAG_GPS_LATITUDE), "no GPS on the sheet");
}
