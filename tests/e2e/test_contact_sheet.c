/* Contact sheets end to end: sizes for grid and justified layouts, pages,
 * a failed photo closing up, and the same bytes whatever -j; runs of the
 * sheets only (output.photos false, the shipped contact-proof): what they
 * write, and what their reruns, --check and --prune do. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

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
    /* Issue 13: the short last page (3 photos) is the size of the others,
     * its empty cells blank, so a set prints and pages alike. */
    for (int p = 1; p < 3; p++) {
        cr_expect_eq(widths[p], widths[0], "page %d is %d wide, page 1 %d", p + 1, widths[p],
            widths[0]);
        cr_expect_eq(heights[p], heights[0], "page %d is %d high, page 1 %d", p + 1, heights[p],
            heights[0]);
    }
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

/* Justified pages of a set are the same size too (issue 13): the trip's
 * mixed shapes (square, 3:2, 4:5, panoramic 2:1 and its portrait) made
 * each page's rows a different height, and the short last page shorter. */
Test(contact_sheet, justified_pages_of_a_set_are_the_same_size)
{
    g_autofree char *tmp = gal_test_tmpdir("sheet-justified-pages");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *err = NULL;
    const char *yaml = "gallop: 1\n"
                       "stages:\n"
                       "  - contact-sheet: {file: \"j-{page}.png\", layout: justified, "
                       "columns: 4, tile: 100, gap: 5, per-page: 10}\n";
    int widths[3], heights[3];

    cr_assert_eq(run(tmp, yaml, TRIP_DIR, out, "2", &err), 0, "%s", err);
    for (int p = 0; p < 3; p++) {
        g_autofree char *name = g_strdup_printf("j-%d.png", p + 1);
        g_autofree char *path = g_build_filename(out, name, NULL);
        g_autoptr(VipsImage) sheet = gal_test_load_image(path, FALSE);

        widths[p] = sheet->Xsize;
        heights[p] = sheet->Ysize;
    }
    cr_expect_eq(widths[0], 5 + 4 * 105, "4 tiles of 100 + gaps");
    for (int p = 1; p < 3; p++) {
        cr_expect_eq(widths[p], widths[0], "page %d is %d wide, page 1 %d", p + 1, widths[p],
            widths[0]);
        cr_expect_eq(heights[p], heights[0], "page %d is %d high, page 1 %d", p + 1, heights[p],
            heights[0]);
    }
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

        gal_test_copy_file(from, to);
    }
    {
        g_autofree char *to = g_build_filename(in, "trip-02b.jpg", NULL);

        gal_test_copy_file(GAL_FIXTURES_DIR "/broken/truncated.jpg", to);
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

/* ---- sheets only (output.photos: false) ---------------------------------------------- */

/* Copy the fixture `from` into `dir` as `as`. */
static void
copy_fixture(const char *from, const char *dir, const char *as)
{
    g_autofree char *to = g_build_filename(dir, as, NULL);

    gal_test_copy_file(from, to);
}

/* A folder `in` holding copies of trip-01.jpg ... trip-NN.jpg. */
static char *
trip_copies(const char *tmp, int n)
{
    char *in = g_build_filename(tmp, "in", NULL);

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    for (int i = 1; i <= n; i++) {
        g_autofree char *name = g_strdup_printf("trip-%02d.jpg", i);
        g_autofree char *from = g_build_filename(TRIP_DIR, name, NULL);

        copy_fixture(from, in, name);
    }
    return in;
}

/* gallop run PRESET INPUT -o OUT -j 2 [extra...]: exit status, stdout, stderr. */
static int
run_with(const char *preset, const char *input, const char *out_dir,
    const char *const *extra, char **out, char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    const char *const base[] = { GAL_BINARY, "run", preset, input, "-o", out_dir, "-j", "2" };

    for (size_t i = 0; i < G_N_ELEMENTS(base); i++)
        g_ptr_array_add(argv, (gpointer) base[i]);
    for (int i = 0; extra && extra[i]; i++)
        g_ptr_array_add(argv, (gpointer) extra[i]);
    g_ptr_array_add(argv, NULL);
    return gal_test_spawn((const char *const *) argv->pdata, out, err);
}

/* The folder's files, manifest left out, as one string: "a.jpg b.jpg". */
static char *
listing(const char *dir)
{
    g_autoptr(GPtrArray) names = gal_test_list_dir(dir);

    g_ptr_array_add(names, NULL);
    return g_strjoinv(" ", (char **) names->pdata);
}

static struct stat
stat_of(const char *path)
{
    struct stat st;

    cr_assert_eq(stat(path, &st), 0, "%s is missing", path);
    return st;
}

/* Written again: a new file was renamed over it (a new inode), which
 * holds however coarse the clock behind mtimes is. */
static gboolean
rewritten(const struct stat *before, const char *path)
{
    struct stat now = stat_of(path);

    return now.st_ino != before->st_ino || now.st_mtim.tv_sec != before->st_mtim.tv_sec ||
        now.st_mtim.tv_nsec != before->st_mtim.tv_nsec;
}

Test(contact_sheet, contact_proof_writes_the_sheet_and_no_file_per_photo)
{
    g_autofree char *tmp = gal_test_tmpdir("proof-only");
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet_path = g_build_filename(out, "contact-1.jpg", NULL);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autofree char *report = g_build_filename(tmp, "report.json", NULL);
    g_autofree char *files = NULL;
    g_autofree char *text = NULL;
    g_autofree char *stdout_text = NULL;
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) sheet = NULL;

    cr_assert_eq(run_with("contact-proof", TRIP_DIR, out,
                     (const char *const[]) { "--report", report, NULL }, &stdout_text, &err),
        0, "%s", err);
    files = listing(out);
    cr_expect_str_eq(files, "contact-1.jpg", "only the sheet, no photo and no temporary file");
    cr_expect(g_file_test(manifest, G_FILE_TEST_IS_REGULAR), "the run keeps its manifest");
    cr_expect(strstr(err, " photos, no file per photo: 1 contact sheet written; ") != NULL &&
            strstr(err, " read, 0 failed, 1 skipped (1 unknown), 0 up to date") != NULL,
        "the summary counts what was written (and the trip's MANIFEST.tsv, skipped): %s", err);
    cr_expect_eq(gal_test_count_lines(stdout_text, "wrote ", NULL), 0, "%s", stdout_text);
    /* Six 240 px cells a row, with 8 px gaps. */
    sheet = gal_test_load_image(sheet_path, FALSE);
    cr_expect_eq(sheet->Xsize, 8 + 6 * 248);

    text = gal_test_read_manifest(manifest);
    cr_expect_eq(gal_test_count_lines(text, "output\t", NULL), 0, "no per-photo record:\n%s",
        text);
    cr_expect_eq(gal_test_count_lines(text, "sheet\tcontact-1.jpg\t", NULL), 1, "%s", text);
    g_clear_pointer(&text, g_free);
    /* The report says each photo is done, with no file of its own. */
    text = gal_test_read_bytes(report, NULL);
    cr_expect(strstr(text, "\"up_to_date\":0,\"failed\":0,") != NULL, "%s", text);
    cr_expect(strstr(text, "\"status\":\"up-to-date\"") == NULL, "%s", text);
    cr_expect(strstr(text, "\"status\":\"done\",\"reason\":\"contact-sheet\",\"reason_detail\":null,"
                           "\"outputs\":[],\"planned_output\":null") != NULL,
        "%s", text);
}

Test(contact_sheet, contact_proof_with_a_broken_photo_exits_1_and_still_makes_the_sheet)
{
    g_autofree char *tmp = gal_test_tmpdir("proof-broken");
    g_autofree char *in = trip_copies(tmp, 3);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet_path = g_build_filename(out, "contact-1.jpg", NULL);
    g_autofree char *files = NULL;
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) sheet = NULL;
    struct stat first;

    copy_fixture(GAL_FIXTURES_DIR "/broken/truncated.jpg", in, "trip-02b.jpg");
    cr_assert_eq(run_with("contact-proof", in, out, NULL, NULL, &err), 1, "%s", err);
    cr_expect(strstr(err, "trip-02b.jpg: ") != NULL, "the failure is reported: %s", err);
    cr_expect(strstr(err, "4 photos, no file per photo: 1 contact sheet written; 3 read, "
                          "1 failed") != NULL,
        "%s", err);
    files = listing(out);
    cr_expect_str_eq(files, "contact-1.jpg");
    /* Three tiles in one row: the broken photo left no empty cell. */
    sheet = gal_test_load_image(sheet_path, FALSE);
    cr_expect_eq(sheet->Xsize, 8 + 3 * 248);

    /* The broken photo is tried again, as a photo's own file would be:
     * not called up to date because it failed the same way before. */
    first = stat_of(sheet_path);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, NULL, NULL, &err), 1, "%s", err);
    cr_expect(strstr(err, "trip-02b.jpg: ") != NULL, "%s", err);
    cr_expect(rewritten(&first, sheet_path));
}

Test(contact_sheet, contact_proof_reruns_make_the_sheet_again_only_when_a_photo_changed)
{
    g_autofree char *tmp = gal_test_tmpdir("proof-rerun");
    g_autofree char *in = trip_copies(tmp, 5);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet_path = g_build_filename(out, "contact-1.jpg", NULL);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autofree char *touched = g_build_filename(in, "trip-03.jpg", NULL);
    g_autofree char *stdout_text = NULL;
    g_autofree char *err = NULL;
    struct stat sheet, record, photo;
    struct timespec times[2];

    /* Each photo is reported as it is done, though it writes no file. */
    cr_assert_eq(run_with("contact-proof", in, out, (const char *const[]) { "--log", "json", NULL },
                     NULL, &err),
        0, "%s", err);
    cr_expect_eq(gal_test_count_lines(err, "{\"event\":\"photo\",", NULL), 5, "%s", err);
    cr_expect(strstr(err, "{\"event\":\"photo\",\"done\":5,\"total\":5,") != NULL, "%s", err);
    sheet = stat_of(sheet_path);
    record = stat_of(manifest);

    /* Nothing changed: nothing is read or written, and --check agrees. */
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, NULL, NULL, &err), 0, "%s", err);
    cr_expect(strstr(err, "5 photos, no file per photo: 0 contact sheets written; 0 read, "
                          "0 failed, 0 skipped, 5 up to date") != NULL,
        "%s", err);
    cr_expect_not(rewritten(&sheet, sheet_path), "the sheet was made again for nothing");
    cr_expect_not(rewritten(&record, manifest), "the manifest was rewritten for nothing");
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, (const char *const[]) { "--check", NULL },
                     &stdout_text, &err),
        0, "stdout:\n%s\nstderr:\n%s", stdout_text, err);
    cr_expect(strstr(err, "contact sheets up to date") != NULL, "%s", err);

    /* One photo copy touched (its time moved, its bytes the same): --check
     * says the sheets are stale, a dry run says what it would read, and
     * a run makes the sheet again. */
    photo = stat_of(touched);
    times[0] = photo.st_atim;
    times[1] = photo.st_mtim;
    times[1].tv_sec += 2;
    cr_assert_eq(utimensat(AT_FDCWD, touched, times, 0), 0);
    g_clear_pointer(&stdout_text, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, (const char *const[]) { "--check", NULL },
                     &stdout_text, &err),
        1, "stdout:\n%s\nstderr:\n%s", stdout_text, err);
    cr_expect_eq(gal_test_count_lines(stdout_text, "stale  contact sheets", NULL), 1, "%s",
        stdout_text);
    cr_expect(strstr(err, "contact sheets stale") != NULL, "%s", err);
    g_clear_pointer(&stdout_text, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, (const char *const[]) { "--dry-run", NULL },
                     &stdout_text, &err),
        0, "%s", err);
    cr_expect_eq(gal_test_count_lines(stdout_text, "read   ", NULL), 5, "%s", stdout_text);
    cr_expect_eq(gal_test_count_lines(stdout_text, "sheet  contact sheets", NULL), 1, "%s",
        stdout_text);
    cr_expect_not(rewritten(&sheet, sheet_path), "a dry run wrote the sheet");
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, NULL, NULL, &err), 0, "%s", err);
    cr_expect(strstr(err, "1 contact sheet written; 5 read") != NULL, "%s", err);
    cr_expect(rewritten(&sheet, sheet_path), "the sheet was not made again");

    /* Up to date again; then a photo added, and one removed. */
    sheet = stat_of(sheet_path);
    g_clear_pointer(&stdout_text, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, (const char *const[]) { "--check", NULL },
                     &stdout_text, &err),
        0, "%s", err);
    copy_fixture(TRIP_DIR "/trip-06.jpg", in, "trip-06.jpg");
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, NULL, NULL, &err), 0, "%s", err);
    cr_expect(strstr(err, "6 photos, no file per photo: 1 contact sheet written") != NULL, "%s",
        err);
    cr_expect(rewritten(&sheet, sheet_path), "an added photo did not make the sheet again");
    sheet = stat_of(sheet_path);
    cr_assert_eq(unlink(touched), 0);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, NULL, NULL, &err), 0, "%s", err);
    cr_expect(rewritten(&sheet, sheet_path), "a removed photo did not make the sheet again");

    /* --force makes it again with nothing changed. */
    sheet = stat_of(sheet_path);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with("contact-proof", in, out, (const char *const[]) { "--force", NULL },
                     NULL, &err),
        0, "%s", err);
    cr_expect(rewritten(&sheet, sheet_path), "--force did not make the sheet again");
}

Test(contact_sheet, switching_photos_off_lists_and_prunes_their_files_but_keeps_the_sheet)
{
    g_autofree char *tmp = gal_test_tmpdir("proof-prune");
    g_autofree char *in = trip_copies(tmp, 3);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "proof.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 200, height: 200}\n"
        "  - contact-sheet: {columns: 3, tile: 80, file: \"sheet-{page}.jpg\"}\n");
    g_autofree char *files = NULL;
    g_autofree char *stdout_text = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(run_with(preset, in, out, NULL, NULL, &err), 0, "%s", err);
    files = listing(out);
    cr_assert_str_eq(files, "sheet-1.jpg trip-01.jpg trip-02.jpg trip-03.jpg");

    /* Without --prune the files a photo no longer makes are listed. */
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with(preset, in, out,
                     (const char *const[]) { "--set", "output.photos=false", "--dry-run", NULL },
                     &stdout_text, &err),
        0, "%s", err);
    cr_expect_eq(gal_test_count_lines(stdout_text, "orphan ", NULL), 3, "%s", stdout_text);
    cr_expect(strstr(stdout_text, "makes no file of its own now (output.photos is false)") != NULL,
        "%s", stdout_text);
    g_clear_pointer(&stdout_text, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with(preset, in, out,
                     (const char *const[]) { "--set", "output.photos=false", "--prune", NULL },
                     &stdout_text, &err),
        0, "%s", err);
    cr_expect_eq(gal_test_count_lines(stdout_text, "removed ", NULL), 3, "%s", stdout_text);
    g_clear_pointer(&files, g_free);
    files = listing(out);
    cr_expect_str_eq(files, "sheet-1.jpg", "the sheet stays, the photos' files go");
    /* And the sheet is recorded: the next run is up to date. */
    g_clear_pointer(&stdout_text, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with(preset, in, out,
                     (const char *const[]) { "--set", "output.photos=false", "--check", NULL },
                     &stdout_text, &err),
        0, "stdout:\n%s\nstderr:\n%s", stdout_text, err);
}

Test(contact_sheet, a_sheets_only_run_with_captions_is_made_again_when_a_sidecar_appears)
{
    g_autofree char *tmp = gal_test_tmpdir("proof-sidecar");
    g_autofree char *in = trip_copies(tmp, 3);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet_path = g_build_filename(out, "contact-1.jpg", NULL);
    g_autofree char *sidecar = g_build_filename(in, "trip-02.txt", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "labels.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 200, height: 200, fit: inside}\n"
        "  - contact-sheet: {columns: 3, tile: 100, label: \"{caption|no caption}\"}\n"
        "output: {photos: false}\n");
    g_autofree char *err = NULL;
    struct stat sheet;

    cr_assert_eq(run_with(preset, in, out, NULL, NULL, &err), 0, "%s", err);
    sheet = stat_of(sheet_path);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with(preset, in, out, (const char *const[]) { "--check", NULL }, NULL, &err),
        0, "%s", err);
    /* The label shows the caption, and a sidecar is where it comes from
     * first: the photo is as it was, its label is not. */
    cr_assert(g_file_set_contents(sidecar, "Start line, 8 a.m.", -1, NULL));
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with(preset, in, out, (const char *const[]) { "--check", NULL }, NULL, &err),
        1, "%s", err);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run_with(preset, in, out, NULL, NULL, &err), 0, "%s", err);
    cr_expect(rewritten(&sheet, sheet_path), "the sheet still shows the old label");
}
