/* What a run tells: the JSON report (--report, docs/report.md), JSON log
 * events (--log json), the live progress line on a terminal and its
 * absence elsewhere, and the metadata each output format carries under
 * each policy, read back with libexif and libpng. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test_json.h"
#include "gal_test_meta.h"

TestSuite(report, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"
#define TRIP_COUNT 23

/* trip-01, trip-09 (PNG) and trip-19 (Hangul caption), and a truncated JPEG. */
static char *
photos(const char *tmp)
{
    char *in = g_build_filename(tmp, "in", NULL);
    const char *const names[] = { "trip/trip-01.jpg", "trip/trip-09.png", "trip/trip-19.jpg",
        "broken/truncated.jpg", NULL };

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    for (int i = 0; names[i]; i++) {
        g_autofree char *from = g_build_filename(GAL_FIXTURES_DIR, names[i], NULL);
        g_autofree char *base = g_path_get_basename(names[i]);
        g_autofree char *to = g_build_filename(in, base, NULL);

        gal_test_copy_file(from, to);
    }
    return in;
}

static const char small_preset[] = "gallop: 1\n"
                                   "stages: [ {resize: {width: 200, height: 200, fit: inside}} ]\n";

static const gal_json *
photo_named(const gal_json *report, const char *base)
{
    const gal_json *list = gal_json_get(report, "photos");

    cr_assert_not_null(list);
    for (guint i = 0; i < list->items->len; i++) {
        const gal_json *p = list->items->pdata[i];
        const char *input = gal_json_string(p, "input");

        if (input && g_str_has_suffix(input, base))
            return p;
    }
    cr_assert_fail("no photo %s in the report", base);
    return NULL;
}

Test(report, report_lists_every_photo_with_its_output_and_parses)
{
    g_autofree char *tmp = gal_test_tmpdir("report-json");
    g_autofree char *in = photos(tmp);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *report_path = g_build_filename(tmp, "report.json", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "small.yaml", small_preset);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "--report",
        report_path, NULL };
    g_autofree char *text = NULL;
    g_autofree char *error = NULL;
    g_autoptr(gal_json) report = NULL;
    const gal_json *p;

    cr_assert_eq(gal_test_spawn(argv, NULL, NULL), 1);
    text = gal_test_read_bytes(report_path, NULL);
    report = gal_json_parse(text, &error);
    cr_assert_not_null(report, "the report is not JSON (%s):\n%s", error, text);
    cr_expect_eq(gal_json_number(report, "gallop_report"), 1);
    cr_expect_str_eq(gal_json_string(report, "versions.gallop"), "0.1.0");
    cr_expect_not_null(gal_json_string(report, "versions.libvips"));
    cr_expect_not_null(gal_json_string(report, "versions.libpng"));
    cr_expect_str_eq(gal_json_string(report, "preset.name"), "small");
    cr_expect_str_eq(gal_json_string(report, "output_dir"), out_dir);
    cr_expect_eq(gal_json_number(report, "totals.photos"), 4);
    cr_expect_eq(gal_json_number(report, "totals.done"), 3);
    cr_expect_eq(gal_json_number(report, "totals.failed"), 1);
    cr_expect_gt(gal_json_number(report, "elapsed_seconds"), 0);
    cr_expect_gt(gal_json_number(report, "peak_memory_bytes"), 1e6);
    cr_expect_eq(gal_json_get(report, "interrupted")->type, GAL_JSON_BOOL);

    for (int i = 0; i < 3; i++) {
        const char *base = (const char *const[]) { "trip-01.jpg", "trip-09.png",
            "trip-19.jpg" }[i];
        const char *path;
        char sha[65];
        gint64 size;
        gal_error err = { 0 };
        g_autoptr(VipsImage) image = NULL;

        p = photo_named(report, base);
        cr_expect_str_eq(gal_json_string(p, "status"), "done", "%s", base);
        cr_expect_str_eq(gal_json_string(p, "reason"), "new");
        cr_expect_eq(gal_json_get(p, "error")->type, GAL_JSON_NULL);
        /* No stage shows the caption, yet the report has it, for alt text. */
        cr_expect_not_null(gal_json_string(p, "caption"), "%s", base);
        cr_expect_not_null(gal_json_string(p, "caption_source"), "%s", base);
        cr_expect_eq(gal_json_get(p, "caption_cut")->type, GAL_JSON_BOOL);
        {
            g_autofree char *file = g_path_get_basename(gal_json_string(p, "outputs.0.path"));

            /* Relative to output_dir, for a page to link to. */
            cr_expect_str_eq(gal_json_string(p, "outputs.0.rel_path"), file);
            cr_expect_str_eq(gal_json_string(p, "outputs.0.format"),
                g_str_has_suffix(file, ".png") ? "png" : "jpeg");
        }
        cr_expect_gt(gal_json_number(p, "timings.total_seconds"), 0);
        cr_assert_eq(gal_json_get(p, "outputs")->items->len, 1);
        path = gal_json_string(p, "outputs.0.path");
        cr_assert_not_null(path);
        /* The figures are those of the file on disk. */
        cr_assert_eq(gal__file_sha256(path, NULL, sha, &size, &err), 0, "%s", err.msg);
        cr_expect_str_eq(gal_json_string(p, "outputs.0.sha256"), sha);
        cr_expect_eq(gal_json_number(p, "outputs.0.bytes"), (double) size);
        image = gal_test_load_image(path, FALSE);
        cr_expect_eq(gal_json_number(p, "outputs.0.width"), image->Xsize);
        cr_expect_eq(gal_json_number(p, "outputs.0.height"), image->Ysize);
    }
    p = photo_named(report, "truncated.jpg");
    cr_expect_str_eq(gal_json_string(p, "status"), "failed");
    cr_expect_eq(gal_json_get(p, "outputs")->items->len, 0);
    cr_expect_not_null(gal_json_string(p, "error.code"));
    cr_expect(strstr(gal_json_string(p, "error.text"), "truncated.jpg: ") != NULL);
}

/* What a site shows of a photo: EXIF facts typed, the orientation applied,
 * a placeholder and colour from the finished pixels, GPS only when the
 * metadata policy writes it into the outputs; a rerun that builds nothing
 * reports the same, from the manifest. */
Test(report, report_has_what_a_site_shows_of_each_photo)
{
    g_autofree char *tmp = gal_test_tmpdir("report-site");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *gps_dir = g_build_filename(tmp, "gps", NULL);
    g_autofree char *report_path = g_build_filename(tmp, "report.json", NULL);
    g_autofree char *first_text = NULL;
    g_autofree char *preset = gal_test_write_preset(tmp, "small.yaml", small_preset);
    const char *run[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "--report",
        report_path, "-q", NULL };
    const char *run_gps[] = { GAL_BINARY, "run", preset, in, "-o", gps_dir, "--report",
        report_path, "-q", "--set", "output.metadata=[default, gps]", NULL };
    const char *const names[] = { "trip-01.jpg", "trip-02.jpg", NULL };

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    for (int i = 0; names[i]; i++) {
        g_autofree char *from = g_build_filename(TRIP_DIR, names[i], NULL);
        g_autofree char *to = g_build_filename(in, names[i], NULL);

        gal_test_copy_file(from, to);
    }
    for (int round = 1; round <= 2; round++) {
        g_autofree char *text = NULL;
        g_autofree char *error = NULL;
        g_autoptr(gal_json) report = NULL;
        const gal_json *p;

        cr_assert_eq(gal_test_spawn(run, NULL, NULL), 0);
        text = gal_test_read_bytes(report_path, NULL);
        report = gal_json_parse(text, &error);
        cr_assert_not_null(report, "%s", error);
        p = photo_named(report, "trip-01.jpg");
        cr_expect_str_eq(gal_json_string(p, "status"), round == 1 ? "done" : "up-to-date");
        cr_expect_str_eq(gal_json_string(p, "caption_source"), "exif");
        cr_expect(g_str_has_prefix(gal_json_string(p, "caption"), "A #northkorea #wedding"));
        cr_expect_str_eq(gal_json_string(p, "taken"), "2014-04-11T11:25:09");
        cr_expect_str_eq(gal_json_string(p, "camera"), "Apple iPhone 5s");
        cr_expect_str_eq(gal_json_string(p, "lens"), "iPhone 5s back camera 4.12mm f/2.2");
        cr_expect_float_eq(gal_json_number(p, "exposure.f"), 2.2, 1e-9);
        cr_expect_str_eq(gal_json_string(p, "exposure.shutter"), "1/640");
        cr_expect_eq(gal_json_number(p, "exposure.iso"), 32);
        cr_expect_float_eq(gal_json_number(p, "exposure.focal_mm"), 4.12, 1e-9);
        cr_expect_eq(gal_json_number(p, "orientation"), 1);
        /* The default policy drops GPS from the files: the report too. */
        cr_expect_eq(gal_json_get(p, "gps")->type, GAL_JSON_NULL);
        cr_expect(g_regex_match_simple("^#[0-9a-f]{6}$", gal_json_string(p, "color"), 0, 0));
        cr_expect(g_str_has_prefix(gal_json_string(p, "placeholder"), "data:image/webp;base64,"));
        /* Small: a 16 px WebP, not the photo, nor its metadata. */
        cr_expect_lt(strlen(gal_json_string(p, "placeholder")), 400);
        /* trip-02 is stored on its side (Orientation 6), turned upright. */
        cr_expect_eq(gal_json_number(photo_named(report, "trip-02.jpg"), "orientation"), 6);
        if (round == 1)
            first_text = g_strdup(gal_json_string(p, "placeholder"));
        else
            cr_expect_str_eq(gal_json_string(p, "placeholder"), first_text);
    }
    /* One photo changed: the run saves a new manifest over the one it read,
     * and still reports the other from the file it read (kept open). */
    {
        g_autofree char *from = g_build_filename(TRIP_DIR, "trip-03.jpg", NULL);
        g_autofree char *to = g_build_filename(in, "trip-02.jpg", NULL);
        g_autofree char *text = NULL;
        g_autoptr(gal_json) report = NULL;
        const gal_json *p;

        gal_test_copy_file(from, to);
        cr_assert_eq(gal_test_spawn(run, NULL, NULL), 0);
        text = gal_test_read_bytes(report_path, NULL);
        report = gal_json_parse(text, NULL);
        cr_assert_not_null(report);
        cr_expect_str_eq(gal_json_string(photo_named(report, "trip-02.jpg"), "status"), "done");
        p = photo_named(report, "trip-01.jpg");
        cr_expect_str_eq(gal_json_string(p, "status"), "up-to-date");
        cr_expect_str_eq(gal_json_string(p, "camera"), "Apple iPhone 5s");
        cr_expect_str_eq(gal_json_string(p, "taken"), "2014-04-11T11:25:09");
        cr_expect_str_eq(gal_json_string(p, "placeholder"), first_text);
    }
    {
        g_autofree char *text = NULL;
        g_autoptr(gal_json) report = NULL;
        const gal_json *p;

        cr_assert_eq(gal_test_spawn(run_gps, NULL, NULL), 0);
        text = gal_test_read_bytes(report_path, NULL);
        report = gal_json_parse(text, NULL);
        cr_assert_not_null(report);
        p = photo_named(report, "trip-01.jpg");
        /* 39 deg 1' 53.40" N */
        cr_expect_float_eq(gal_json_number(p, "gps.lat"), 39 + 1 / 60.0 + 53.40 / 3600, 1e-6);
        cr_expect_neq(gal_json_get(p, "gps.lon")->type, GAL_JSON_NULL);
    }
}

/* The manifest is not trusted: what its about lines say is typed again
 * before it reaches a report, so a placeholder that is not a WebP data URI,
 * a colour that is not one, a number that is not one, are null. */
Test(report, about_lines_of_a_tampered_manifest_are_typed_again)
{
    g_autofree char *tmp = gal_test_tmpdir("report-about");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *photo = g_build_filename(in, "trip-01.jpg", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *manifest = g_build_filename(out_dir, GAL_STORE_NAME, NULL);
    g_autofree char *report_path = g_build_filename(tmp, "report.json", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "small.yaml", small_preset);
    const char *run[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "--report",
        report_path, "-q", NULL };
    g_autofree char *text = NULL;
    g_autofree char *tampered = NULL;
    g_autofree char *report_text = NULL;
    g_autoptr(GRegex) placeholder = g_regex_new("\tplaceholder=[^\t\n]*", 0, 0, NULL);
    g_autoptr(GRegex) color = g_regex_new("\tcolor=[^\t\n]*", 0, 0, NULL);
    g_autoptr(GRegex) f = g_regex_new("\tf=[^\t\n]*", 0, 0, NULL);
    g_autoptr(gal_json) report = NULL;
    const gal_json *p;
    char *step;

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    gal_test_copy_file(TRIP_DIR "/trip-01.jpg", photo);
    cr_assert_eq(gal_test_spawn(run, NULL, NULL), 0);
    text = gal_test_read_manifest(manifest);
    cr_assert((step = strstr(text, "\nabout\ttrip-01.jpg\t")), "no about line:\n%s", text);
    {
        /* The record's about fields (one a line in the database), edited. */
        g_autofree char *line = g_strndup(step + strlen("\nabout\ttrip-01.jpg"),
            strcspn(step + 1, "\n") - strlen("about\ttrip-01.jpg"));
        g_autofree char *edited = NULL;
        g_auto(GStrv) fields = NULL;
        g_auto(GStrv) quoted = NULL;
        g_autofree char *value = NULL;
        g_autofree char *sql = NULL;

        tampered = g_regex_replace_literal(placeholder, line, -1, 0,
            "\tplaceholder=javascript:alert(1)", 0, NULL);
        edited = g_regex_replace_literal(color, tampered, -1, 0, "\tcolor=red;x:url(y)", 0,
            NULL);
        g_free(tampered);
        tampered = g_regex_replace_literal(f, edited, -1, 0, "\tf=2.2abc", 0, NULL);
        fields = g_strsplit(tampered + 1, "\t", -1);
        value = g_strjoinv("\n", fields);
        quoted = g_strsplit(value, "'", -1);
        g_free(value);
        value = g_strjoinv("''", quoted);
        sql = g_strdup_printf("UPDATE product SET about = '%s' WHERE output = 'trip-01.jpg'",
            value);
        gal_test_manifest_exec(manifest, sql);
    }
    cr_assert_eq(gal_test_spawn(run, NULL, NULL), 0);
    report_text = gal_test_read_bytes(report_path, NULL);
    report = gal_json_parse(report_text, NULL);
    cr_assert_not_null(report);
    p = photo_named(report, "trip-01.jpg");
    cr_expect_str_eq(gal_json_string(p, "status"), "up-to-date");
    cr_expect_eq(gal_json_get(p, "placeholder")->type, GAL_JSON_NULL);
    cr_expect_eq(gal_json_get(p, "color")->type, GAL_JSON_NULL);
    cr_expect_eq(gal_json_get(p, "exposure.f")->type, GAL_JSON_NULL);
    /* What was not touched is still there. */
    cr_expect_eq(gal_json_number(p, "exposure.iso"), 32);
    cr_expect_str_eq(gal_json_string(p, "taken"), "2014-04-11T11:25:09");
}

Test(report, log_json_writes_one_object_per_event_and_no_escape_codes)
{
    g_autofree char *tmp = gal_test_tmpdir("report-log");
    g_autofree char *in = photos(tmp);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "small.yaml", small_preset);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "--log", "json", NULL };
    g_autofree char *err = NULL;
    g_auto(GStrv) lines = NULL;
    int photos_seen = 0, summaries = 0, failed = 0;

    for (int round = 1; round <= 2; round++) {
        g_clear_pointer(&err, g_free);
        g_clear_pointer(&lines, g_strfreev);
        photos_seen = summaries = failed = 0;
        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 1, "%s", err);
        cr_expect_null(strchr(err, '\033'), "an escape code in the log");
        lines = g_strsplit(err, "\n", -1);
        for (int i = 0; lines[i]; i++) {
            g_autofree char *error = NULL;
            g_autoptr(gal_json) event = NULL;
            const char *kind;

            if (!*lines[i])
                continue;
            event = gal_json_parse(lines[i], &error);
            cr_assert_not_null(event, "not JSON (%s): %s", error, lines[i]);
            kind = gal_json_string(event, "event");
            cr_assert_not_null(kind);
            if (strcmp(kind, "photo") == 0) {
                photos_seen++;
                failed += strcmp(gal_json_string(event, "status"), "failed") == 0;
                cr_expect_eq(gal_json_number(event, "total"), 4);
                if (round == 2 && strcmp(gal_json_string(event, "status"), "failed") != 0)
                    cr_expect_str_eq(gal_json_string(event, "status"), "up-to-date");
                /* What a page links to, as in the report (it was null). */
                if (strcmp(gal_json_string(event, "status"), "failed") != 0) {
                    const char *rel = gal_json_string(event, "outputs.0.rel_path");

                    cr_expect(rel && *rel && rel[0] != '/', "rel_path %s: %s",
                        rel ? rel : "missing or null", lines[i]);
                }
            }
            else if (strcmp(kind, "summary") == 0) {
                summaries++;
                cr_expect_eq(gal_json_number(event, "failed"), 1);
                cr_expect_eq(gal_json_number(event, round == 1 ? "done" : "up_to_date"), 3);
            }
        }
        cr_expect_eq(photos_seen, 4, "round %d: %d photo events", round, photos_seen);
        cr_expect_eq(failed, 1);
        cr_expect_eq(summaries, 1);
    }
}

/* Under a pseudo-terminal (script(1)) the progress line shows; through a
 * pipe it does not. */
Test(report, progress_line_only_on_a_terminal)
{
    g_autofree char *tmp = gal_test_tmpdir("report-tty");
    g_autofree char *in = photos(tmp);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "small.yaml", small_preset);
    g_autofree char *command = g_strdup_printf("%s run %s %s -o %s", GAL_BINARY, preset, in,
        out_dir);
    const char *argv[] = { "script", "-qec", command, "/dev/null", NULL };
    const char *piped[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "--force", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_autofree char *script = g_find_program_in_path("script");

    if (!script)
        cr_skip_test("script(1) is not installed");
    gal_test_spawn(argv, &out, NULL);
    cr_expect(strstr(out, "\r\033[K") != NULL, "no live line on a terminal:\n%s", out);
    cr_expect(strstr(out, "4/4 photos") != NULL, "%s", out);
    cr_expect(strstr(out, "1 failed") != NULL, "%s", out);
    g_clear_pointer(&out, g_free);
    cr_assert_eq(gal_test_spawn(piped, &out, &err), 1);
    cr_expect_null(strchr(err, '\033'), "escape codes through a pipe:\n%s", err);
    cr_expect_null(strchr(out, '\033'));
}

/* ---- metadata in outputs ------------------------------------------------------------ */

static void
expect_no_gps(const char *path)
{
    g_autoptr(ExifData) ed = gal_test_exif(path);

    cr_assert_not_null(ed, "%s has no EXIF", path);
    cr_expect_eq(ed->ifd[EXIF_IFD_GPS]->count, 0, "%s: %u GPS tags", path,
        ed->ifd[EXIF_IFD_GPS]->count);
}

static void
expect_exif_text(ExifData *ed, ExifIfd ifd, ExifTag tag, const char *want, const char *path)
{
    g_autofree char *got = gal_test_exif_text(ed, ifd, tag);

    cr_expect_not_null(got, "%s: no %s", path, exif_tag_get_name_in_ifd(tag, ifd));
    if (got && want)
        cr_expect_str_eq(got, want, "%s", path);
}

Test(report, default_policy_on_the_whole_trip_set_in_every_format)
{
    g_autofree char *tmp = gal_test_tmpdir("report-metadata");
    g_autofree char *preset = gal_test_write_preset(tmp, "meta.yaml", small_preset);
    const char *const formats[] = { "jpeg", "webp", "png", NULL };
    const char *const exts[] = { "jpg", "webp", "png" };

    for (int f = 0; formats[f]; f++) {
        g_autofree char *out_dir = g_build_filename(tmp, formats[f], NULL);
        g_autofree char *format = g_strdup_printf("output.format=%s", formats[f]);
        const char *argv[] = { GAL_BINARY, "run", preset, TRIP_DIR, "-o", out_dir, "-q",
            "--set", format, NULL };
        g_autofree char *err = NULL;

        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
        for (int i = 1; i <= TRIP_COUNT; i++) {
            g_autofree char *name = g_strdup_printf("trip-%02d.%s", i, exts[f]);
            g_autofree char *path = g_build_filename(out_dir, name, NULL);
            g_autoptr(ExifData) ed = gal_test_exif(path);

            expect_no_gps(path);
            cr_assert_not_null(ed);
            cr_expect_eq(gal_test_exif_short(ed, EXIF_IFD_0, EXIF_TAG_ORIENTATION), 1, "%s",
                path);
            expect_exif_text(ed, EXIF_IFD_0, EXIF_TAG_SOFTWARE, "gallop 0.1.0 (preset meta)", path);
            expect_exif_text(ed, EXIF_IFD_0, EXIF_TAG_ARTIST, "Jen Loong", path);
            expect_exif_text(ed, EXIF_IFD_0, EXIF_TAG_COPYRIGHT, "\xc2\xa9 2014 Jen Loong", path);
            expect_exif_text(ed, EXIF_IFD_0, EXIF_TAG_MAKE, "Apple", path);
            expect_exif_text(ed, EXIF_IFD_0, EXIF_TAG_MODEL, "iPhone 5s", path);
            expect_exif_text(ed, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL, NULL, path);
            expect_exif_text(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, NULL, path);
            cr_expect_not_null(exif_content_get_entry(ed->ifd[EXIF_IFD_EXIF],
                                   EXIF_TAG_EXPOSURE_TIME),
                "%s: no exposure", path);
            if (i == 19)
                expect_exif_text(ed, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION,
                    "\xea\xb3\xa0\xeb\xa0\xa4\xec\x8b\x9d \xec\x83\x81\xec\xb0\xa8\xeb\xa6\xbc "
                    "#dprk #northkorea #diningtable #eat",
                    path);
            if (strcmp(formats[f], "png") == 0) {
                g_autoptr(GHashTable) text = gal_test_png_text(path);

                cr_expect_str_eq(g_hash_table_lookup(text, "Author"), "Jen Loong", "%s", path);
                cr_expect_str_eq(g_hash_table_lookup(text, "Copyright"), "\xc2\xa9 2014 Jen Loong");
                cr_expect_str_eq(g_hash_table_lookup(text, "Software"),
                    "gallop 0.1.0 (preset meta)");
                cr_expect_not_null(g_hash_table_lookup(text, "Title"), "%s", path);
                cr_expect_not_null(g_hash_table_lookup(text, "Description"), "%s", path);
                cr_expect_not(gal_test_png_has_chunk(path, "tIME"), "%s", path);
            }
        }
    }
}

Test(report, keep_keeps_gps_and_strip_leaves_nothing)
{
    g_autofree char *tmp = gal_test_tmpdir("report-keep-strip");
    g_autofree char *preset = gal_test_write_preset(tmp, "meta.yaml", small_preset);
    g_autofree char *keep_dir = g_build_filename(tmp, "keep", NULL);
    g_autofree char *strip_dir = g_build_filename(tmp, "strip", NULL);
    const char *keep[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-02.jpg", "-o", keep_dir,
        "-q", "--set", "output.metadata=keep", NULL };
    const char *strip[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-09.png",
        TRIP_DIR "/trip-02.jpg", "-o", strip_dir, "-q", "--set", "output.metadata=strip", "--set",
        "output.format=png", NULL };
    g_autofree char *kept = g_build_filename(keep_dir, "trip-02.jpg", NULL);
    g_autofree char *stripped = g_build_filename(strip_dir, "trip-09.png", NULL);
    g_autoptr(ExifData) ed = NULL;
    g_autoptr(ExifData) none = NULL;
    g_autoptr(GHashTable) text = NULL;

    cr_assert_eq(gal_test_spawn(keep, NULL, NULL), 0);
    ed = gal_test_exif(kept);
    cr_assert_not_null(ed);
    cr_expect_gt(ed->ifd[EXIF_IFD_GPS]->count, 0, "keep dropped GPS");
    /* trip-02 is stored with Orientation 6; the output is upright. */
    cr_expect_eq(gal_test_exif_short(ed, EXIF_IFD_0, EXIF_TAG_ORIENTATION), 1);

    cr_assert_eq(gal_test_spawn(strip, NULL, NULL), 0);
    none = gal_test_exif(stripped);
    cr_expect_null(none, "strip left EXIF");
    text = gal_test_png_text(stripped);
    cr_expect_eq(g_hash_table_size(text), 0, "strip left text chunks");
}

/* A rerun's report still gives the captions of photos it did not touch. */
Test(report, a_rerun_reports_the_captions_of_up_to_date_photos)
{
    g_autofree char *tmp = gal_test_tmpdir("report-caption");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "cap.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 300, height: 300}}, {caption-burn: {}} ]\n");

    for (int round = 1; round <= 2; round++) {
        g_autofree char *report_path = g_strdup_printf("%s/r%d.json", tmp, round);
        const char *argv[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-19.jpg", "-o", out_dir,
            "-q", "--report", report_path, NULL };
        g_autofree char *text = NULL;
        g_autofree char *error = NULL;
        g_autoptr(gal_json) report = NULL;

        cr_assert_eq(gal_test_spawn(argv, NULL, NULL), 0);
        text = gal_test_read_bytes(report_path, NULL);
        report = gal_json_parse(text, &error);
        cr_assert_not_null(report, "%s", error);
        cr_expect_str_eq(gal_json_string(report, "photos.0.status"),
            round == 1 ? "done" : "up-to-date");
        cr_expect_str_eq(gal_json_string(report, "photos.0.caption"),
            "\xea\xb3\xa0\xeb\xa0\xa4\xec\x8b\x9d \xec\x83\x81\xec\xb0\xa8\xeb\xa6\xbc "
            "#dprk #northkorea #diningtable #eat",
            "round %d", round);
        cr_expect_str_eq(gal_json_string(report, "photos.0.caption_source"), "exif",
            "round %d", round);
    }
}

/* A photo's warnings (a mark too small to read) stay in the report when a
 * rerun finds the photo up to date: its record keeps them. */
Test(report, a_rerun_reports_the_warnings_of_up_to_date_photos)
{
    g_autofree char *tmp = gal_test_tmpdir("report-warnings");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "tiny.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 300}},\n"
        "          {watermark: {text: \"(c) 2024 Jen Loong, Studio\", size: 30}} ]\n");

    for (int round = 1; round <= 2; round++) {
        g_autofree char *report_path = g_strdup_printf("%s/r%d.json", tmp, round);
        const char *argv[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-01.jpg", "-o", out_dir,
            "-q", "--report", report_path, NULL };
        g_autofree char *text = NULL;
        g_autofree char *error = NULL;
        g_autofree char *err = NULL;
        g_autoptr(gal_json) report = NULL;
        const gal_json *warnings;
        const char *first;

        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
        text = gal_test_read_bytes(report_path, NULL);
        report = gal_json_parse(text, &error);
        cr_assert_not_null(report, "%s", error);
        cr_expect_str_eq(gal_json_string(report, "photos.0.status"),
            round == 1 ? "done" : "up-to-date");
        warnings = gal_json_get(report, "photos.0.warnings");
        cr_assert_not_null(warnings);
        cr_assert_eq(warnings->items->len, 1, "round %d: %u warnings", round,
            warnings->items->len);
        first = gal_json_string(report, "photos.0.warnings.0");
        cr_expect(first && strstr(first, "watermark (") && strstr(first, "too small to read"),
            "round %d: %s", round, first);
    }
}

/* A contact sheet's page reports the SHA-256 and size of its file as it
 * is on disk, in each format, though the digest is taken as the page is
 * written; so does the manifest's record of it. */
Test(report, contact_sheet_pages_report_the_sha256_of_their_file)
{
    static const char *const files[] = { "c-{page}.jpg", "c-{page}.png", "c-{page}.webp" };

    for (guint f = 0; f < G_N_ELEMENTS(files); f++) {
        g_autofree char *name = g_strdup_printf("report-sheet-%u", f);
        g_autofree char *tmp = gal_test_tmpdir(name);
        g_autofree char *in = photos(tmp);
        g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
        g_autofree char *report_path = g_build_filename(tmp, "report.json", NULL);
        g_autofree char *yaml = g_strdup_printf("gallop: 1\n"
                                                "stages:\n"
                                                "  - resize: {width: 200, height: 200}\n"
                                                "  - contact-sheet: {file: \"%s\", columns: 2, "
                                                "tile: 80, per-page: 2}\n",
            files[f]);
        g_autofree char *preset = gal_test_write_preset(tmp, "sheet.yaml", yaml);
        g_autofree char *manifest_path = g_build_filename(out_dir, GAL_STORE_NAME, NULL);
        g_autofree char *manifest = NULL;
        const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "--report",
            report_path, NULL };
        g_autofree char *text = NULL;
        g_autoptr(gal_json) report = NULL;
        const gal_json *sheets;

        /* The truncated photo fails: 1. */
        cr_assert_eq(gal_test_spawn(argv, NULL, NULL), 1);
        text = gal_test_read_bytes(report_path, NULL);
        report = gal_json_parse(text, NULL);
        cr_assert_not_null(report);
        manifest = gal_test_read_manifest(manifest_path);
        sheets = gal_json_get(report, "sheets");
        cr_assert_not_null(sheets);
        cr_assert_eq(sheets->items->len, 2, "%s", text);
        for (guint k = 0; k < sheets->items->len; k++) {
            const gal_json *s = sheets->items->pdata[k];
            const char *path = gal_json_string(s, "outputs.0.path");
            char sha[65];
            gint64 size = 0;
            gal_error err = { 0 };
            g_autofree char *base = NULL;
            g_autofree char *record = NULL;

            cr_assert_not_null(path, "%s", text);
            cr_assert_eq(gal__file_sha256(path, NULL, sha, &size, &err), 0, "%s", err.msg);
            cr_expect_str_eq(gal_json_string(s, "outputs.0.sha256"), sha, "%s", path);
            cr_expect_eq(gal_json_number(s, "outputs.0.bytes"), (double) size, "%s", path);
            base = g_path_get_basename(path);
            record = g_strdup_printf("sheet\t%s\t", base);
            cr_expect(strstr(manifest, record) != NULL && strstr(manifest, sha) != NULL,
                "%s: no record with its digest in:\n%s", base, manifest);
        }
    }
}
