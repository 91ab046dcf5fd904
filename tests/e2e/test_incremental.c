/* Incremental runs: what a rerun skips and rebuilds, and why (--dry-run
 * names the reason for each kind of change), --force, --check and
 * --prune, and contact sheets rebuilt only when a photo changed. The real
 * binary runs over copies of fixtures in a per-process folder. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(incremental, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

static const char small_preset[] = "gallop: 1\n"
                                   "stages: [ {resize: {width: 160, height: 160, fit: inside}} ]\n"
                                   "output: {quality: 80}\n";

typedef struct {
    char *tmp, *in, *out, *preset;
} bench;

/* Four photos and the small preset, in a fresh folder. */
static bench
setup_bench(const char *name, const char *yaml)
{
    bench b;

    b.tmp = gal_test_tmpdir(name);
    b.in = g_build_filename(b.tmp, "in", NULL);
    b.out = g_build_filename(b.tmp, "out", NULL);
    b.preset = gal_test_write_preset(b.tmp, "small.yaml", yaml ? yaml : small_preset);
    cr_assert_eq(g_mkdir_with_parents(b.in, 0777), 0);
    for (int i = 1; i <= 4; i++)
        gal_test_copy_trip(b.in, i, NULL);
    return b;
}

static void
bench_clear(bench *b)
{
    g_free(b->tmp);
    g_free(b->in);
    g_free(b->out);
    g_free(b->preset);
}

/* gallop run PRESET IN -o OUT [extra...]; exit status, stdout, stderr. */
static int
run(const bench *b, const char *const *extra, char **out, char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    const char *const base[] = { GAL_BINARY, "run", b->preset, b->in, "-o", b->out, "-j", "2" };

    for (guint i = 0; i < G_N_ELEMENTS(base); i++)
        g_ptr_array_add(argv, (gpointer) base[i]);
    for (int i = 0; extra && extra[i]; i++)
        g_ptr_array_add(argv, (gpointer) extra[i]);
    g_ptr_array_add(argv, NULL);
    return gal_test_spawn((const char *const *) argv->pdata, out, err);
}

static void
run_ok(const bench *b, const char *const *extra, const char *summary_part)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(run(b, extra, &out, &err), 0, "stdout:\n%s\nstderr:\n%s", out, err);
    if (summary_part)
        cr_expect(strstr(err, summary_part) != NULL, "no \"%s\" in:\n%s", summary_part, err);
}

static gint64
mtime_ns(const char *path)
{
    struct stat st;

    cr_assert_eq(stat(path, &st), 0, "%s missing", path);
    return (gint64) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static char *
out_path(const bench *b, int number)
{
    g_autofree char *name = g_strdup_printf("trip-%02d.jpg", number);

    return g_build_filename(b->out, name, NULL);
}

/* The dry-run line for photo `number`: its first word and the reason. */
static void
expect_plan(const char *out, const bench *b, int number, const char *verb, const char *reason)
{
    g_autofree char *name = g_strdup_printf("trip-%02d.jpg", number);
    g_autofree char *input = g_build_filename(b->in, name, NULL);
    g_autofree char *prefix = g_strdup_printf("%s %s -> ", verb, input);
    g_autofree char *line = NULL;

    cr_assert_eq(gal_test_count_lines(out, prefix, &line), 1, "no \"%s\" line in:\n%s", prefix,
        out);
    cr_expect(strstr(line, reason) != NULL, "\"%s\" not in: %s", reason, line);
}

Test(incremental, a_rerun_writes_nothing_and_touches_no_output)
{
    bench b = setup_bench("inc-rerun", NULL);
    g_autofree char *first = out_path(&b, 1);
    g_autofree char *manifest = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    gint64 before, manifest_before;
    struct stat manifest_st;

    run_ok(&b, NULL, "4 written, 0 failed, 0 skipped, 0 up to date");
    before = mtime_ns(first);
    manifest_before = mtime_ns(manifest);
    cr_assert_eq(stat(manifest, &manifest_st), 0);
    run_ok(&b, NULL, "0 written, 0 failed, 0 skipped, 4 up to date");
    cr_expect_eq(mtime_ns(first), before, "an up-to-date output was rewritten");
    /* Not the manifest either: it would say the same. A rewrite renames a
     * new file over it, so the inode tells even where mtimes are coarse. */
    {
        struct stat now;

        cr_assert_eq(stat(manifest, &now), 0);
        cr_expect(now.st_ino == manifest_st.st_ino && mtime_ns(manifest) == manifest_before,
            "the manifest was rewritten with nothing changed");
    }
    /* --force rebuilds everything. */
    run_ok(&b, (const char *const[]) { "--force", NULL }, "4 written, 0 failed");
    cr_expect_neq(mtime_ns(first), before);
    bench_clear(&b);
}

Test(incremental, dry_run_names_the_reason_for_every_kind_of_change)
{
    bench b = setup_bench("inc-reasons", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *in1 = g_build_filename(b.in, "trip-01.jpg", NULL);
    g_autofree char *in2 = g_build_filename(b.in, "trip-02.jpg", NULL);
    g_autofree char *out3 = out_path(&b, 3);
    g_autofree char *out4 = out_path(&b, 4);
    struct timespec later[2] = { { 0, UTIME_OMIT }, { 2000000000, 0 } };
    g_autofree char *manifest = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    g_autofree char *manifest_before = NULL;
    g_autofree char *manifest_after = NULL;

    run_ok(&b, NULL, "4 written");
    /* 1: touched only, same bytes. 2: new contents. 3: output deleted.
     * 4: output edited. 5: a new photo. */
    cr_assert_eq(utimensat(AT_FDCWD, in1, later, 0), 0);
    gal_test_copy_trip(b.in, 6, "trip-02.jpg");
    cr_assert_eq(unlink(out3), 0);
    {
        gsize len;
        g_autofree char *bytes = gal_test_read_bytes(out4, &len);

        bytes[len / 2] ^= 0x55;
        cr_assert(g_file_set_contents(out4, bytes, (gssize) len, NULL));
    }
    gal_test_copy_trip(b.in, 5, NULL);
    manifest_before = gal_test_read_manifest(manifest);

    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", NULL }, &out, &err), 0, "%s", err);
    expect_plan(out, &b, 1, "skip  ", "(up to date)");
    expect_plan(out, &b, 2, "build ", "(input-changed)");
    expect_plan(out, &b, 3, "build ", "(output-missing)");
    expect_plan(out, &b, 4, "build ", "(output-modified)");
    expect_plan(out, &b, 5, "build ", "(new)");
    cr_expect(strstr(err, "4 would be built, 1 up to date") != NULL, "%s", err);
    /* Quiet: the summary only (a million "skip" lines were most of a quiet
     * dry run of a large set); --check still lists what is stale. */
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", "-q", NULL }, &out, &err), 0, "%s",
        err);
    cr_expect_str_eq(out, "", "a quiet dry run listed its photos");
    cr_expect(strstr(err, "4 would be built, 1 up to date") != NULL, "%s", err);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b, (const char *const[]) { "--check", "-q", NULL }, &out, &err), 1, "%s",
        err);
    cr_expect_eq(gal_test_count_lines(out, "stale  ", NULL), 4, "%s", out);
    manifest_after = gal_test_read_manifest(manifest);
    cr_expect_str_eq(manifest_after, manifest_before, "a dry run changed the manifest");
    cr_expect_not(g_file_test(out3, G_FILE_TEST_EXISTS), "a dry run wrote");
    (void) in2;
    bench_clear(&b);
}

Test(incremental, a_preset_change_names_the_key_and_its_values)
{
    bench b = setup_bench("inc-preset", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    run_ok(&b, NULL, "4 written");
    cr_assert_eq(run(&b,
                     (const char *const[]) { "--dry-run", "--set", "output.quality=70", "--set",
                         "resize.width=200", NULL },
                     &out, &err),
        0, "%s", err);
    for (int i = 1; i <= 4; i++)
        expect_plan(out, &b, i, "build ",
            "(preset-changed: resize.width 160 -> 200, output.quality 80 -> 70)");
    /* Where outputs go and which photos run is not what they look like. */
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b,
                     (const char *const[]) { "--dry-run", "--set", "input.recursive=false", NULL },
                     &out, &err),
        0, "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "skip   ", NULL), 4, "%s", out);
    bench_clear(&b);
}

Test(incremental, a_changed_file_the_preset_names_rebuilds_everything)
{
    g_autofree char *tmp = gal_test_tmpdir("inc-logo");
    g_autofree char *logo = g_build_filename(tmp, "logo.png", NULL);
    g_autofree char *yaml = g_strdup_printf("gallop: 1\n"
                                            "stages:\n"
                                            "  - resize: {width: 160, height: 160}\n"
                                            "  - watermark: {image: %s, size: 20%%}\n",
        logo);
    bench b = setup_bench("inc-logo-bench", yaml);
    g_autoptr(VipsImage) one = gal_test_gradient(40, 20);
    g_autoptr(VipsImage) two = gal_test_gradient(40, 21);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(vips_pngsave(one, logo, NULL), 0);
    /* The preset is loaded before it is written: write it again now. */
    g_free(b.preset);
    b.preset = gal_test_write_preset(b.tmp, "logo.yaml", yaml);
    run_ok(&b, NULL, "4 written");
    run_ok(&b, NULL, "4 up to date");
    cr_assert_eq(vips_pngsave(two, logo, NULL), 0);
    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", NULL }, &out, &err), 0, "%s", err);
    for (int i = 1; i <= 4; i++)
        expect_plan(out, &b, i, "build ", "preset-changed: watermark.image");
    bench_clear(&b);
}

/* A gallop upgrade, or a caption sidecar a stage read: both recorded in the
 * records, which are edited here the way another version or stage would
 * have written them. */
Test(incremental, version_and_dependency_changes_are_seen)
{
    bench b = setup_bench("inc-version", NULL);
    g_autofree char *manifest = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    g_autofree char *sidecar = g_build_filename(b.tmp, "trip-02.txt", NULL);
    g_autofree char *sql = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    struct stat st;

    run_ok(&b, NULL, "4 written");
    cr_assert(g_file_set_contents(sidecar, "a caption", -1, NULL));
    cr_assert_eq(stat(sidecar, &st), 0);
    /* Recorded with another hash: as if the caption changed since. */
    sql = g_strdup_printf("UPDATE product SET version = '0.0.9' WHERE output = 'trip-01.jpg';"
                          "INSERT INTO depend VALUES ('trip-02.jpg', '../trip-02.txt', %lld, 1, "
                          "'00000000000000000000000000000000');",
        (long long) st.st_size + 1);
    gal_test_manifest_exec(manifest, sql);
    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", NULL }, &out, &err), 0, "%s", err);
    expect_plan(out, &b, 1, "build ", "(version-changed: made by gallop 0.0.9, this is");
    expect_plan(out, &b, 2, "build ", "(dependency-changed:");
    expect_plan(out, &b, 2, "build ", "trip-02.txt changed");
    expect_plan(out, &b, 3, "skip  ", "(up to date)");
    bench_clear(&b);
}

Test(incremental, check_exits_1_listing_stale_outputs_and_changes_nothing)
{
    bench b = setup_bench("inc-check", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *out2 = out_path(&b, 2);
    g_autofree char *manifest = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    g_autofree char *before = NULL;
    g_autofree char *after = NULL;

    /* Nothing built yet: everything is missing. */
    cr_assert_eq(run(&b, (const char *const[]) { "--check", NULL }, &out, &err), 1, "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "stale  ", NULL), 4, "%s", out);
    cr_expect_not(g_file_test(b.out, G_FILE_TEST_EXISTS), "--check created the output folder");
    run_ok(&b, NULL, "4 written");
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b, (const char *const[]) { "--check", NULL }, &out, &err), 0, "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "stale  ", NULL), 0, "%s", out);
    cr_expect(strstr(err, "4 up to date, 0 stale") != NULL, "%s", err);

    cr_assert_eq(unlink(out2), 0);
    before = gal_test_read_manifest(manifest);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b, (const char *const[]) { "--check", NULL }, &out, &err), 1, "%s", err);
    expect_plan(out, &b, 2, "stale ", "(output-missing)");
    cr_expect_eq(gal_test_count_lines(out, "stale  ", NULL), 1, "%s", out);
    cr_expect_not(g_file_test(out2, G_FILE_TEST_EXISTS), "--check rebuilt");
    after = gal_test_read_manifest(manifest);
    cr_expect_str_eq(after, before);
    /* --check refuses options that would change things. */
    g_clear_pointer(&err, g_free);
    cr_expect_eq(run(&b, (const char *const[]) { "--check", "--prune", NULL }, NULL, &err), 2);
    cr_expect(strstr(err, "--check changes nothing") != NULL, "%s", err);
    bench_clear(&b);
}

Test(incremental, prune_removes_only_recorded_outputs_of_deleted_photos)
{
    bench b = setup_bench("inc-prune", NULL);
    g_autofree char *in3 = g_build_filename(b.in, "trip-03.jpg", NULL);
    g_autofree char *in4 = g_build_filename(b.in, "trip-04.jpg", NULL);
    g_autofree char *out3 = out_path(&b, 3);
    g_autofree char *out4 = out_path(&b, 4);
    g_autofree char *stranger = g_build_filename(b.out, "not-ours.jpg", NULL);
    g_autofree char *manifest = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;

    run_ok(&b, NULL, "4 written");
    gal_test_copy_trip(b.out, 5, "not-ours.jpg");
    cr_assert_eq(unlink(in3), 0);
    cr_assert_eq(unlink(in4), 0);
    /* out4 was edited after gallop wrote it: never removed. */
    {
        FILE *f = fopen(out4, "ab");

        cr_assert_not_null(f);
        fputs("edited", f);
        fclose(f);
    }

    /* Without --prune: told, not removed. */
    run_ok(&b, NULL, "2 outputs no photo makes any more");
    cr_expect(g_file_test(out3, G_FILE_TEST_EXISTS));
    /* Dry run: what would go. */
    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", "--prune", NULL }, &out, &err), 0,
        "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "remove ", NULL), 2, "%s", out);
    cr_expect(g_file_test(out3, G_FILE_TEST_EXISTS), "a dry run removed %s", out3);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);

    cr_assert_eq(run(&b, (const char *const[]) { "--prune", NULL }, &out, &err), 0, "%s", err);
    cr_expect_not(g_file_test(out3, G_FILE_TEST_EXISTS), "%s not pruned", out3);
    cr_expect(g_file_test(out4, G_FILE_TEST_EXISTS), "an edited output was pruned");
    cr_expect(strstr(err, "changed since gallop wrote it: not removed") != NULL, "%s", err);
    cr_expect(g_file_test(stranger, G_FILE_TEST_EXISTS), "a file gallop did not write went");
    cr_expect_eq(gal_test_count_lines(out, "removed ", NULL), 1, "%s", out);
    text = gal_test_read_manifest(manifest);
    cr_expect(strstr(text, "\ttrip-03.jpg\t") == NULL, "trip-03 is still recorded");
    cr_expect(strstr(text, "\ttrip-01.jpg\t") != NULL);
    bench_clear(&b);
}

Test(incremental, contact_sheets_are_rebuilt_only_when_a_photo_changed)
{
    bench b = setup_bench("inc-sheet",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 160, height: 160}\n"
        "  - contact-sheet: {columns: 2, tile: 80, file: \"sheet-{page}.jpg\"}\n");
    g_autofree char *sheet = g_build_filename(b.out, "sheet-1.jpg", NULL);
    g_autofree char *out1 = out_path(&b, 1);
    g_autofree char *out2 = out_path(&b, 2);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    gint64 sheet_time, photo1_time;

    run_ok(&b, NULL, "4 written");
    sheet_time = mtime_ns(sheet);
    photo1_time = mtime_ns(out1);
    /* Not made, but counted (and listed in the report) as up to date. */
    run_ok(&b, NULL, "0 written, 0 failed, 0 skipped, 4 up to date; 1 contact sheet up to date; in");
    cr_expect_eq(mtime_ns(sheet), sheet_time, "the sheet was rebuilt with nothing changed");
    cr_assert_eq(run(&b, (const char *const[]) { "--check", NULL }, &out, &err), 0, "%s\n%s",
        out, err);

    /* The sheet is missing: it comes back, no photo output is rewritten. */
    cr_assert_eq(unlink(sheet), 0);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b, (const char *const[]) { "--check", NULL }, &out, &err), 1, "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "stale  contact sheets", NULL), 1, "%s", out);
    run_ok(&b, NULL, "0 written, 0 failed, 0 skipped, 4 up to date; 1 contact sheet");
    cr_expect(g_file_test(sheet, G_FILE_TEST_EXISTS));
    cr_expect_eq(mtime_ns(out1), photo1_time, "an up-to-date photo was rewritten");

    /* One photo changes: it and the sheet are rebuilt, not the others. */
    sheet_time = mtime_ns(sheet);
    gal_test_copy_trip(b.in, 7, "trip-02.jpg");
    run_ok(&b, NULL, "1 written, 0 failed, 0 skipped, 3 up to date; 1 contact sheet");
    cr_expect_neq(mtime_ns(sheet), sheet_time);
    cr_expect_eq(mtime_ns(out1), photo1_time);
    cr_expect(g_file_test(out2, G_FILE_TEST_EXISTS));
    bench_clear(&b);
}

/* A name made from EXIF facts: reruns take it from the manifest instead of
 * reading every header again, until the photo changes. */
Test(incremental, names_from_exif_are_reused_until_the_photo_changes)
{
    bench b = setup_bench("inc-exif-name", NULL);
    const char *const by_date[] = { "--set", "output.name={date:%Y-%m-%d}/{stem}.{ext}", NULL };
    const char *const by_date_dry[] = { "--set", "output.name={date:%Y-%m-%d}/{stem}.{ext}",
        "--dry-run", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *first = g_build_filename(b.out, "2014-04-09", "trip-02.jpg", NULL);

    run_ok(&b, by_date, "4 written");
    cr_assert(g_file_test(first, G_FILE_TEST_EXISTS), "%s missing", first);
    run_ok(&b, by_date, "4 up to date");
    /* trip-02 becomes a photo taken on another day: a new output name. */
    gal_test_copy_trip(b.in, 21, "trip-02.jpg");
    cr_assert_eq(run(&b, by_date_dry, &out, &err), 0, "%s", err);
    {
        g_autofree char *input = g_build_filename(b.in, "trip-02.jpg", NULL);
        g_autofree char *prefix = g_strdup_printf("build  %s -> %s/2014-04-13/trip-02.jpg (new)",
            input, b.out);

        cr_expect_eq(gal_test_count_lines(out, prefix, NULL), 1, "no \"%s\" in:\n%s", prefix,
            out);
    }
    cr_expect(strstr(err, "1 would be built, 3 up to date") != NULL, "%s", err);
    /* Built under its new name, the old one is left for --prune. */
    run_ok(&b, by_date, "1 written");
    cr_expect(g_file_test(first, G_FILE_TEST_EXISTS));
    run_ok(&b, (const char *const[]) { "--set", "output.name={date:%Y-%m-%d}/{stem}.{ext}",
                   "--prune", NULL },
        "4 up to date");
    cr_expect_not(g_file_test(first, G_FILE_TEST_EXISTS), "the old name was not pruned");
    {
        g_autofree char *day = g_path_get_dirname(first);

        cr_expect_not(g_file_test(day, G_FILE_TEST_EXISTS), "the emptied folder stays");
    }
    bench_clear(&b);
}

/* The caption reaches an output through any template, not only the
 * caption-burn band: here a text watermark. */
Test(incremental, a_sidecar_appearing_rebuilds_a_photo_whose_watermark_shows_the_caption)
{
    bench b = setup_bench("inc-caption-mark",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 160, height: 160, fit: inside}\n"
        "  - watermark: {text: \"{caption|none}\", size: 50%}\n");
    g_autofree char *sidecar = g_build_filename(b.in, "trip-02.txt", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    run_ok(&b, NULL, "4 written");
    cr_assert(g_file_set_contents(sidecar, "a new caption", -1, NULL));
    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", NULL }, &out, &err), 0, "%s", err);
    expect_plan(out, &b, 2, "build ", "trip-02.txt");
    expect_plan(out, &b, 3, "skip  ", "(up to date)");
    bench_clear(&b);
}

Test(incremental, caption_sources_count_only_for_a_preset_that_shows_or_publishes_a_caption)
{
    static const char shows[] = "gallop: 1\n"
                                "stages:\n"
                                "  - resize: {width: 160, height: 160, fit: inside}\n"
                                "  - caption-burn: {text: \"{caption}\"}\n";
    /* The caption also travels in the file's metadata (EXIF, XMP), where
     * output.metadata publishes it. */
    static const char publishes[] = "gallop: 1\n"
                                    "stages: [ {resize: {width: 160, height: 160, fit: inside}} ]\n";
    static const char hides[] = "gallop: 1\n"
                                "output: {metadata: [date, camera]}\n"
                                "stages: [ {resize: {width: 160, height: 160, fit: inside}} ]\n";
    const char *const presets[] = { shows, publishes, hides };
    const char *const names[] = { "inc-sources-shown", "inc-sources-published",
        "inc-sources-hidden" };
    const char *const verbs[] = { "build ", "build ", "skip  " };
    const char *const reasons[] = { "captions.sources", "captions.sources", "(up to date)" };

    for (int k = 0; k < 3; k++) {
        bench b = setup_bench(names[k], presets[k]);
        g_autofree char *changed = g_strconcat(presets[k], "captions: {sources: [exif]}\n", NULL);
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;

        run_ok(&b, NULL, "4 written");
        g_free(gal_test_write_preset(b.tmp, "small.yaml", changed));
        cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", NULL }, &out, &err), 0, "%s",
            err);
        expect_plan(out, &b, 1, verbs[k], reasons[k]);
        bench_clear(&b);
    }
}

/* The manifest's depends line of `output` on `file`: its size and digest. */
static void
dep_of(const bench *b, const char *output, const char *file, gint64 *size, char **digest)
{
    g_autofree char *path = g_build_filename(b->out, GAL_STORE_NAME, NULL);
    g_autofree char *text = gal_test_read_manifest(path);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

    *size = -2;
    *digest = NULL;
    for (int i = 0; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], "\t", -1);

        if (g_strv_length(f) == 6 && strcmp(f[0], "depends") == 0 &&
            strcmp(f[1], output) == 0 && g_str_has_suffix(f[2], file)) {
            *size = g_ascii_strtoll(f[3], NULL, 10);
            *digest = g_strdup(f[5]);
        }
    }
    cr_assert_neq(*size, -2, "no depends line of %s on %s in:\n%s", output, file, text);
}

/* One edited row of a captions table rebuilds the photo of that row only;
 * a row added rebuilds its photo; other edits of the file rebuild nothing,
 * and the records take the file's new size, so the next run is quick. */
Test(incremental, an_edited_table_row_rebuilds_only_its_photo)
{
    bench b = setup_bench("inc-table-row",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 160, height: 160, fit: inside}\n"
        "  - caption-burn: {text: \"{caption}\"}\n"
        "captions: {sources: [table], table: in/captions.tsv}\n");
    g_autofree char *table = g_build_filename(b.in, "captions.tsv", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *digest = NULL;
    g_autofree char *digest_none = NULL;
    gint64 size = 0;

    cr_assert(g_file_set_contents(table,
        "file\tcaption\ntrip-01.jpg\tone\ntrip-02.jpg\ttwo\ntrip-03.jpg\tthree\n", -1, NULL));
    /* The table is read when the preset loads: it must be there first. */
    run_ok(&b, NULL, "4 written");
    dep_of(&b, "trip-01.jpg", "/captions.tsv", &size, &digest);
    /* A short digest of the row, not the file's SHA-256. */
    cr_expect(g_str_has_prefix(digest, "row:") && strlen(digest) == 20, "%s", digest);
    dep_of(&b, "trip-04.jpg", "/captions.tsv", &size, &digest_none);
    cr_expect_str_neq(digest, digest_none);

    cr_assert(g_file_set_contents(table,
        "file\tcaption\ntrip-01.jpg\tone\ntrip-02.jpg\ttwo, edited\ntrip-03.jpg\tthree\n", -1,
        NULL));
    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", NULL }, &out, &err), 0, "%s", err);
    expect_plan(out, &b, 1, "skip  ", "(up to date)");
    expect_plan(out, &b, 2, "build ", "captions.tsv changed its row for this photo");
    expect_plan(out, &b, 3, "skip  ", "(up to date)");
    expect_plan(out, &b, 4, "skip  ", "(up to date)");
    run_ok(&b, NULL, "1 written");

    /* A row for a photo that had none. */
    cr_assert(g_file_set_contents(table,
        "file\tcaption\ntrip-01.jpg\tone\ntrip-02.jpg\ttwo, edited\ntrip-03.jpg\tthree\n"
        "trip-04.jpg\tfour\n", -1, NULL));
    run_ok(&b, NULL, "1 written");

    /* Rows moved: no photo's row changed. */
    cr_assert(g_file_set_contents(table,
        "file\tcaption\ntrip-04.jpg\tfour\ntrip-03.jpg\tthree\ntrip-02.jpg\ttwo, edited\n"
        "trip-01.jpg\tone\n", -1, NULL));
    run_ok(&b, NULL, "0 written");
    {
        gint64 now = 0;
        g_autofree char *again = NULL;
        gsize len = 0;
        g_autofree char *bytes = gal_test_read_bytes(table, &len);

        dep_of(&b, "trip-01.jpg", "/captions.tsv", &now, &again);
        cr_expect_eq(now, (gint64) len);
        cr_expect_str_eq(again, digest);
    }
    bench_clear(&b);
}

/* The same for a post of an Instagram export. */
Test(incremental, an_edited_instagram_post_rebuilds_only_its_photo)
{
    bench b = setup_bench("inc-insta-post",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 160, height: 160, fit: inside}\n"
        "  - caption-burn: {text: \"{caption}\"}\n"
        "captions: {sources: [instagram], instagram: [in/posts_1.json]}\n");
    g_autofree char *posts = g_build_filename(b.in, "posts_1.json", NULL);
    static const char before[] =
        "[{\"media\": [{\"uri\": \"media/posts/1/trip-01.jpg\", \"title\": \"first\"}]},\n"
        " {\"media\": [{\"uri\": \"media/posts/1/trip-03.jpg\", \"title\": \"third\"}]}]\n";
    static const char after[] =
        "[{\"media\": [{\"uri\": \"media/posts/1/trip-01.jpg\", \"title\": \"first\"}]},\n"
        " {\"media\": [{\"uri\": \"media/posts/1/trip-03.jpg\", \"title\": \"third, edited\"}]}]\n";
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert(g_file_set_contents(posts, before, -1, NULL));
    run_ok(&b, NULL, "4 written");
    cr_assert(g_file_set_contents(posts, after, -1, NULL));
    cr_assert_eq(run(&b, (const char *const[]) { "--dry-run", NULL }, &out, &err), 0, "%s", err);
    expect_plan(out, &b, 1, "skip  ", "(up to date)");
    expect_plan(out, &b, 2, "skip  ", "(up to date)");
    expect_plan(out, &b, 3, "build ", "posts_1.json changed its row for this photo");
    expect_plan(out, &b, 4, "skip  ", "(up to date)");
    run_ok(&b, NULL, "1 written");
    bench_clear(&b);
}

/* The records in `out` as gallop 0.1 kept them, a text manifest
 * (.gallop-manifest.tsv, format 2), in place of the database: files by
 * absolute path, a preset's logo by its path and SHA-256 in the recipe
 * lines (so the recipe's digest was another), lines sorted by output. */
static void
write_text_manifest(const bench *b, const char *logo)
{
    g_autofree char *db = g_build_filename(b->out, GAL_STORE_NAME, NULL);
    g_autofree char *tsv = g_build_filename(b->out, ".gallop-manifest.tsv", NULL);
    g_autofree char *text = gal_test_read_manifest(db);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autoptr(GString) recipe = g_string_new(NULL);
    g_autoptr(GString) records = g_string_new(NULL);
    g_autoptr(GString) written = g_string_new("gallop-manifest\t2\n");
    g_autofree char *old_digest = NULL;
    g_auto(GStrv) recipe_lines = NULL;

    for (int i = 0; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], "\t", -1);

        if (!*lines[i])
            continue;
        if (g_str_has_prefix(lines[i], "preset\t")) {
            if (g_str_has_prefix(f[2], "watermark.image=sha256:"))
                g_string_append_printf(recipe, "watermark.image=%s %s\n", logo,
                    f[2] + strlen("watermark.image="));
            else
                g_string_append_printf(recipe, "%s\n", f[2]);
            continue;
        }
        if (g_str_has_prefix(lines[i], "depends\t")) {
            g_autofree char *path = g_canonicalize_filename(f[2], b->out);

            g_free(f[2]);
            f[2] = g_steal_pointer(&path);
            if (!*f[5]) {
                g_free(f[5]);
                f[5] = g_strdup("-");
            }
        }
        {
            g_autofree char *line = g_strjoinv("\t", f);

            g_string_append_printf(records, "%s\n", line);
        }
    }
    old_digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, recipe->str, -1);
    recipe_lines = g_strsplit(recipe->str, "\n", -1);
    for (int i = 0; recipe_lines[i]; i++)
        if (*recipe_lines[i])
            g_string_append_printf(written, "preset\t%s\t%s\n", old_digest, recipe_lines[i]);
    {
        /* The records' recipe: the old digest. */
        g_auto(GStrv) record_lines = g_strsplit(records->str, "\n", -1);

        for (int i = 0; record_lines[i]; i++) {
            g_auto(GStrv) f = g_strsplit(record_lines[i], "\t", -1);
            g_autofree char *line = NULL;

            if (!*record_lines[i])
                continue;
            if (g_strv_length(f) >= 13 && (strcmp(f[0], "output") == 0 ||
                                              strcmp(f[0], "sheet") == 0)) {
                g_free(f[6]);
                f[6] = g_strdup(old_digest);
            }
            line = g_strjoinv("\t", f);
            g_string_append_printf(written, "%s\n", line);
        }
    }
    cr_assert_eq(unlink(db), 0);
    cr_assert(g_file_set_contents(tsv, written->str, -1, NULL));
}

/* Every photo and caption file gets a new time, its content unchanged
 * (a fresh checkout). */
static void
touch_all(const bench *b)
{
    const char *names[] = { "trip-01.jpg", "trip-02.jpg", "trip-03.jpg", "trip-04.jpg",
        "trip-02.txt" };

    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *path = g_build_filename(b->in, names[i], NULL);
        struct timespec times[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };

        cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0, "%s", path);
    }
}

/* An output folder kept across versions (a CI cache) holds the text
 * manifest of gallop 0.1: the first run carries it over into the record
 * database and rebuilds nothing, even with every file touched (each read
 * once, by content), and still sees a photo that did change. */
Test(incremental, a_text_manifest_is_carried_over_rebuilding_nothing)
{
    bench b = setup_bench("inc-text-manifest",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 160, height: 160}\n"
        "  - watermark: {image: logo.png, size: 20%}\n"
        "  - caption-burn: {text: \"{caption|none}\"}\n"
        "  - contact-sheet: {columns: 2, tile: 80, file: \"sheet-{page}.jpg\"}\n");
    g_autofree char *sidecar = g_build_filename(b.in, "trip-02.txt", NULL);
    g_autofree char *logo = g_build_filename(b.tmp, "logo.png", NULL);
    g_autofree char *db = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    g_autofree char *tsv = g_build_filename(b.out, ".gallop-manifest.tsv", NULL);
    g_autofree char *sheet = g_build_filename(b.out, "sheet-1.jpg", NULL);
    g_autofree char *out1 = out_path(&b, 1);
    g_autofree char *before = NULL;
    g_autofree char *after = NULL;
    gint64 sheet_time, photo_time;

    gal_test_copy_file(GAL_FIXTURES_DIR "/jen-loong-logo.png", logo);
    cr_assert(g_file_set_contents(sidecar, "a caption", -1, NULL));
    run_ok(&b, NULL, "4 written");
    sheet_time = mtime_ns(sheet);
    photo_time = mtime_ns(out1);
    before = gal_test_read_manifest(db);

    /* Untouched: nothing is read, the records are what they were. */
    write_text_manifest(&b, logo);
    run_ok(&b, NULL, "0 written, 0 failed, 0 skipped, 4 up to date");
    cr_expect_not(g_file_test(tsv, G_FILE_TEST_EXISTS), "the text manifest stays");
    after = gal_test_read_manifest(db);
    cr_expect_str_eq(after, before, "the records carried over are not the run's");
    /* Every file touched: each is read once, nothing rebuilt. */
    write_text_manifest(&b, logo);
    touch_all(&b);
    run_ok(&b, NULL, "0 written, 0 failed, 0 skipped, 4 up to date");
    cr_expect_eq(mtime_ns(sheet), sheet_time, "the contact sheet was rebuilt");
    cr_expect_eq(mtime_ns(out1), photo_time, "an up-to-date photo was rewritten");
    /* The next run takes the fast path again; so does the sheet. */
    run_ok(&b, NULL, "0 written, 0 failed, 0 skipped, 4 up to date");
    cr_expect_eq(mtime_ns(sheet), sheet_time, "the contact sheet was rebuilt");

    /* A photo that changed under a carried-over record is built again. */
    write_text_manifest(&b, logo);
    gal_test_copy_trip(b.in, 7, "trip-03.jpg");
    run_ok(&b, NULL, "1 written, 0 failed, 0 skipped, 3 up to date");
    cr_expect_eq(mtime_ns(out1), photo_time, "an up-to-date photo was rewritten");
    bench_clear(&b);
}
