/* Several files per photo (output.widths, output.formats) and albums
 * ({dir}): every file written at its size, named, recorded in the
 * manifest and the report, checked by --check, pruned when no longer
 * made; same-named photos in two folders both kept. The real binary runs
 * over copies of fixtures in a per-process folder. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"
#include "gal_test_json.h"

TestSuite(variants, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

/* trip-01 is 640x640, trip-02 512x640: the stages make them 400x400 and
 * 320x400. */
static const char widths_preset[] = "gallop: 1\n"
                                    "stages: [ {resize: {width: 400, height: 400, fit: inside}} ]\n"
                                    "output:\n"
                                    "  quality: 80\n"
                                    "  widths: [120, 1000, 300]\n"
                                    "  formats: [webp, jpeg]\n";

typedef gal_test_bench bench;

static bench
setup_bench(const char *name, const char *yaml)
{
    static const int trips[] = { 1, 2 };

    return gal_test_bench_new(name, yaml, trips, (int) G_N_ELEMENTS(trips));
}

/* gallop run PRESET IN -o OUT --report REPORT [extra]; its status. */
static int
run(const bench *b, const char *extra, char **out, char **err)
{
    const char *argv[] = { GAL_BINARY, "run", b->preset, b->in, "-o", b->out, "--report",
        b->report, "-j", "2", extra, NULL };

    return gal_test_spawn(argv, out, err);
}

static void
expect_image(const char *dir, const char *name, int width, int height, const char *loader)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(VipsImage) image = NULL;
    const char *found = NULL;

    cr_assert(g_file_test(path, G_FILE_TEST_IS_REGULAR), "%s is missing", path);
    image = gal_test_load_image(path, TRUE);
    cr_expect_eq(image->Xsize, width, "%s: width %d, not %d", name, image->Xsize, width);
    cr_expect_eq(image->Ysize, height, "%s: height %d, not %d", name, image->Ysize, height);
    cr_assert_eq(vips_image_get_string(image, "vips-loader", &found), 0);
    cr_expect(g_str_has_prefix(found, loader), "%s: read by %s, not %s", name, found, loader);
}

Test(variants, every_width_in_every_format_is_written_never_enlarged)
{
    bench b = setup_bench("variants-all", widths_preset);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) names = NULL;
    g_autofree char *manifest_path = NULL;
    g_autofree char *manifest = NULL;
    g_autofree char *text = NULL;
    g_autoptr(gal_json) report = NULL;

    cr_assert_eq(run(&b, NULL, &out, &err), 0, "%s\n%s", out, err);
    names = gal_test_list_dir(b.out);
    /* Widths largest first, each in webp then jpeg: 2 photos x 3 x 2. */
    cr_assert_eq(names->len, 12, "%u files", names->len);
    /* 1000 is above the finished picture: it is the picture as it is. */
    expect_image(b.out, "trip-01-1000.webp", 400, 400, "webp");
    expect_image(b.out, "trip-01-1000.jpg", 400, 400, "jpeg");
    expect_image(b.out, "trip-01-300.webp", 300, 300, "webp");
    expect_image(b.out, "trip-01-300.jpg", 300, 300, "jpeg");
    expect_image(b.out, "trip-01-120.jpg", 120, 120, "jpeg");
    expect_image(b.out, "trip-02-1000.jpg", 320, 400, "jpeg");
    expect_image(b.out, "trip-02-300.webp", 300, 375, "webp");
    expect_image(b.out, "trip-02-120.jpg", 120, 150, "jpeg");
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 12, "%s", out);

    /* Each file is a product with its own record. */
    manifest_path = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    manifest = gal_test_read_manifest(manifest_path);
    cr_expect_eq(gal_test_count_lines(manifest, "output\t", NULL), 12, "%s", manifest);
    cr_expect(strstr(manifest, "output\ttrip-02-120.jpg\t") != NULL, "%s", manifest);

    /* The report lists every file with its format and its own figures. */
    text = gal_test_read_bytes(b.report, NULL);
    report = gal_json_parse(text, NULL);
    cr_assert_not_null(report);
    for (int p = 0; p < 2; p++) {
        g_autofree char *files = g_strdup_printf("photos.%d.outputs", p);
        const gal_json *list = gal_json_get(report, files);

        cr_assert_not_null(list);
        cr_assert_eq(list->items->len, 6);
        for (guint k = 0; k < 6; k++) {
            const gal_json *f = list->items->pdata[k];
            const char *path = gal_json_string(f, "path");
            gsize len = 0;
            g_autofree char *bytes = gal_test_read_bytes(path, &len);
            g_autofree char *sha = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
                (const guchar *) bytes, len);

            cr_expect_str_eq(gal_json_string(f, "format"), k % 2 ? "jpeg" : "webp");
            cr_expect_eq(gal_json_number(f, "bytes"), (double) len, "%s", path);
            cr_expect_str_eq(gal_json_string(f, "sha256"), sha, "%s", path);
        }
    }
    cr_expect_eq(gal_json_number(report, "photos.0.outputs.4.width"), 120);
    cr_expect_eq(gal_json_number(report, "photos.0.outputs.4.height"), 120);
    cr_expect_eq(gal_json_number(report, "photos.1.outputs.0.width"), 320);
    gal_test_bench_clear(&b);
}

Test(variants, one_missing_file_is_seen_by_check_and_rebuilt)
{
    bench b = setup_bench("variants-check", widths_preset);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *gone = g_build_filename(b.out, "trip-02-120.webp", NULL);
    g_autofree char *kept = g_build_filename(b.out, "trip-01-300.jpg", NULL);
    g_autofree char *before = NULL;
    gsize before_len = 0;

    cr_assert_eq(run(&b, NULL, NULL, NULL), 0);
    before = gal_test_read_bytes(gone, &before_len);
    /* A rerun writes nothing. */
    cr_assert_eq(run(&b, NULL, &out, &err), 0);
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 0, "%s", out);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b, "--check", &out, &err), 0, "%s\n%s", out, err);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);

    cr_assert_eq(unlink(gone), 0);
    cr_expect_eq(run(&b, "--check", &out, &err), 1, "%s\n%s", out, err);
    cr_expect(strstr(out, "trip-02.jpg") && strstr(out, "output-missing: trip-02-120.webp"),
        "%s", out);
    cr_expect(!strstr(out, "trip-01.jpg"), "%s", out);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);

    cr_assert_eq(run(&b, NULL, &out, &err), 0);
    cr_expect(strstr(err, "1 written") && strstr(err, "1 up to date"), "%s", err);
    {
        gsize len = 0;
        g_autofree char *again = gal_test_read_bytes(gone, &len);

        /* The same bytes as the first time. */
        cr_expect_eq(len, before_len);
        cr_expect_eq(memcmp(again, before, len), 0);
    }
    cr_expect(g_file_test(kept, G_FILE_TEST_IS_REGULAR));
    gal_test_bench_clear(&b);
}

Test(variants, a_width_left_out_leaves_its_files_to_prune)
{
    bench b = setup_bench("variants-prune", widths_preset);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *narrow = g_build_filename(b.out, "trip-01-120.jpg", NULL);
    g_autoptr(GPtrArray) names = NULL;

    cr_assert_eq(run(&b, NULL, NULL, NULL), 0);
    g_free(b.preset);
    b.preset = gal_test_write_preset(b.tmp, "p.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 400, height: 400, fit: inside}} ]\n"
        "output: {quality: 80, widths: [1000, 300], formats: [webp, jpeg]}\n");
    cr_assert_eq(run(&b, "--dry-run", &out, &err), 0);
    cr_expect_eq(gal_test_count_lines(out, "orphan ", NULL), 4, "%s", out);
    /* The files still made are up to date: nothing is built again. */
    cr_expect_eq(gal_test_count_lines(out, "skip   ", NULL), 2, "%s", out);
    cr_expect_eq(gal_test_count_lines(out, "build  ", NULL), 0, "%s", out);
    cr_expect(g_file_test(narrow, G_FILE_TEST_IS_REGULAR));
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(&b, "--prune", &out, &err), 0, "%s\n%s", out, err);
    cr_expect_eq(gal_test_count_lines(out, "removed ", NULL), 4, "%s", out);
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 0, "%s", out);
    cr_expect(!g_file_test(narrow, G_FILE_TEST_EXISTS));
    names = gal_test_list_dir(b.out);
    cr_expect_eq(names->len, 8, "%u files", names->len);
    gal_test_bench_clear(&b);
}

Test(variants, one_width_is_a_scaled_file_named_by_default_with_it)
{
    bench b = setup_bench("variants-one",
        "gallop: 1\n"
        "output: {widths: [200]}\n");
    g_autoptr(GPtrArray) names = NULL;

    cr_assert_eq(run(&b, NULL, NULL, NULL), 0);
    names = gal_test_list_dir(b.out);
    cr_assert_eq(names->len, 2);
    /* No stage: the whole photo, scaled to the width. */
    expect_image(b.out, "trip-01-200.jpg", 200, 200, "jpeg");
    expect_image(b.out, "trip-02-200.jpg", 200, 250, "jpeg");
    gal_test_bench_clear(&b);
}

/* Albums: same-named photos in two folders both survive, beneath folders
 * of the same names; the top level stays at the top. */
Test(variants, albums_keep_their_folders)
{
    bench b = setup_bench("variants-albums",
        "gallop: 1\n"
        "stages: [ {resize: {width: 100, height: 100, fit: inside}} ]\n"
        "output: {widths: [100, 50]}\n");
    g_autofree char *a = g_build_filename(b.in, "2024", "alps", NULL);
    g_autofree char *c = g_build_filename(b.in, "coast", NULL);
    g_autoptr(GPtrArray) names = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    gal_test_copy_trip(a, 3, "IMG_0001.jpg");
    gal_test_copy_trip(c, 4, "IMG_0001.jpg");
    cr_assert_eq(run(&b, NULL, &out, &err), 0, "%s\n%s", out, err);
    expect_image(b.out, "trip-01-100.jpg", 100, 100, "jpeg");
    expect_image(b.out, "2024/alps/IMG_0001-100.jpg", 100, 52, "jpeg");
    expect_image(b.out, "2024/alps/IMG_0001-50.jpg", 50, 26, "jpeg");
    expect_image(b.out, "coast/IMG_0001-50.jpg", 50, 50, "jpeg");
    names = gal_test_list_dir(b.out);
    /* At the top: trip-01 and trip-02 (2 files each), 2024/ and coast/. */
    cr_expect_eq(names->len, 6, "%u entries", names->len);
    gal_test_bench_clear(&b);
}

/* A name without {dir} flattens albums again: the second photo of a name
 * is refused, alone. */
Test(variants, a_flat_name_refuses_the_second_album_photo)
{
    bench b = setup_bench("variants-flat",
        "gallop: 1\n"
        "stages: [ {resize: {width: 100, height: 100, fit: inside}} ]\n"
        "output: {name: \"{stem}.{ext}\"}\n");
    g_autofree char *a = g_build_filename(b.in, "alps", NULL);
    g_autofree char *c = g_build_filename(b.in, "coast", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    gal_test_copy_trip(a, 3, "IMG_0001.jpg");
    gal_test_copy_trip(c, 4, "IMG_0001.jpg");
    cr_expect_eq(run(&b, NULL, &out, &err), 1, "%s\n%s", out, err);
    cr_expect(strstr(err, "coast/IMG_0001.jpg") && strstr(err, "is already the output of"),
        "%s", err);
    expect_image(b.out, "IMG_0001.jpg", 100, 52, "jpeg");
    gal_test_bench_clear(&b);
}

/* Two widths above the picture's own: both files are the picture as it
 * is, the same bytes (the second is a copy of the first, not encoded
 * again), and each has its own record. */
Test(variants, widths_above_the_picture_give_the_same_file)
{
    bench b = setup_bench("variants-clamped",
        "gallop: 1\n"
        "stages: [ {resize: {width: 400, height: 400, fit: inside}} ]\n"
        "output: {widths: [900, 600, 200], formats: [webp, jpeg]}\n");
    g_autofree char *a = g_build_filename(b.out, "trip-02-900.webp", NULL);
    g_autofree char *c = g_build_filename(b.out, "trip-02-600.webp", NULL);
    g_autofree char *manifest_path = g_build_filename(b.out, GAL_STORE_NAME, NULL);
    g_autofree char *manifest = NULL;
    g_autofree char *da = NULL;
    g_autofree char *dc = NULL;
    gsize la = 0, lc = 0;

    cr_assert_eq(run(&b, NULL, NULL, NULL), 0);
    expect_image(b.out, "trip-02-900.webp", 320, 400, "webp");
    expect_image(b.out, "trip-02-600.webp", 320, 400, "webp");
    expect_image(b.out, "trip-02-600.jpg", 320, 400, "jpeg");
    expect_image(b.out, "trip-02-200.webp", 200, 250, "webp");
    da = gal_test_read_bytes(a, &la);
    dc = gal_test_read_bytes(c, &lc);
    cr_assert_gt(la, 1000);
    cr_expect(la == lc && memcmp(da, dc, la) == 0);
    manifest = gal_test_read_manifest(manifest_path);
    cr_expect_eq(gal_test_count_lines(manifest, "output\ttrip-02-600.webp\t", NULL), 1);
    cr_expect_eq(gal_test_count_lines(manifest, "output\t", NULL), 12);
    /* A rerun finds the copy up to date. */
    cr_assert_eq(run(&b, "--check", NULL, NULL), 0);
    gal_test_bench_clear(&b);
}

/* A width added makes only its own files; a missing file is made alone,
 * the others left as they are (not even rewritten); the report still
 * gives every file. */
Test(variants, a_width_added_or_a_file_lost_makes_only_those_files)
{
    bench b = setup_bench("variants-added",
        "gallop: 1\n"
        "stages: [ {resize: {width: 400, height: 400, fit: inside}} ]\n"
        "output: {widths: [300], formats: [webp, jpeg]}\n");
    g_autofree char *kept = g_build_filename(b.out, "trip-01-300.jpg", NULL);
    g_autofree char *lost = g_build_filename(b.out, "trip-01-100.webp", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autoptr(gal_json) report = NULL;
    struct stat before, after;

    cr_assert_eq(run(&b, NULL, NULL, NULL), 0);
    cr_assert_eq(stat(kept, &before), 0);
    g_free(b.preset);
    b.preset = gal_test_write_preset(b.tmp, "p.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 400, height: 400, fit: inside}} ]\n"
        "output: {widths: [300, 100], formats: [webp, jpeg]}\n");
    /* The sleep lets a rewrite show in the time, even on coarse clocks. */
    g_usleep(20000);
    cr_assert_eq(run(&b, NULL, &out, &err), 0, "%s\n%s", out, err);
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 4, "%s", out);
    cr_expect(strstr(out, "trip-01-100.webp") && !strstr(out, "trip-01-300.jpg"), "%s", out);
    cr_assert_eq(stat(kept, &after), 0);
    cr_expect_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    cr_expect_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    expect_image(b.out, "trip-02-100.jpg", 100, 125, "jpeg");
    text = gal_test_read_bytes(b.report, NULL);
    report = gal_json_parse(text, NULL);
    cr_assert_not_null(report);
    cr_assert_eq(gal_json_get(report, "photos.0.outputs")->items->len, 4);
    cr_expect_eq(gal_json_number(report, "photos.0.outputs.1.width"), 300);
    cr_expect_gt(gal_json_number(report, "photos.0.outputs.1.bytes"), 1000);
    cr_expect_eq(gal_json_number(report, "photos.0.outputs.2.width"), 100);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);

    cr_assert_eq(unlink(lost), 0);
    cr_assert_eq(run(&b, NULL, &out, &err), 0, "%s\n%s", out, err);
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 1, "%s", out);
    cr_expect(strstr(out, "trip-01-100.webp"), "%s", out);
    expect_image(b.out, "trip-01-100.webp", 100, 100, "webp");
    cr_assert_eq(run(&b, "--check", NULL, NULL), 0);
    gal_test_bench_clear(&b);
}

/* One width, named without {width}: a new width gives the same name, and
 * the record says the file was made at another. */
Test(variants, a_new_width_under_the_same_name_is_made_again)
{
    bench b = setup_bench("variants-rewidth",
        "gallop: 1\n"
        "output: {widths: [300], name: \"{stem}.{ext}\"}\n");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(run(&b, NULL, NULL, NULL), 0);
    expect_image(b.out, "trip-01.jpg", 300, 300, "jpeg");
    g_free(b.preset);
    b.preset = gal_test_write_preset(b.tmp, "p.yaml",
        "gallop: 1\n"
        "output: {widths: [200], name: \"{stem}.{ext}\"}\n");
    cr_assert_eq(run(&b, "--dry-run", &out, &err), 0, "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "build  ", NULL), 2, "%s", out);
    cr_expect(strstr(out, "(preset-changed: trip-01.jpg was made at another width or in another "
                          "format"),
        "%s", out);
    cr_assert_eq(run(&b, NULL, NULL, NULL), 0);
    expect_image(b.out, "trip-01.jpg", 200, 200, "jpeg");
    gal_test_bench_clear(&b);
}

/* The report's sha256 of every file is SHA-256 of the file as it is on
 * disk (`sha256sum`), in every format: the writers hash the bytes as they
 * go out, and read the file back only after a saver went back in it
 * (output.c). */
Test(variants, every_format_reports_the_sha256_of_its_file)
{
    bench b = setup_bench("variants-sha256",
        "gallop: 1\n"
        "stages: [ {resize: {width: 200, height: 200, fit: inside}} ]\n"
        "output:\n"
        "  quality: 60\n"
        "  formats: [jpeg, png, webp, avif, jxl]\n");
    static const char *const formats[] = { "jpeg", "png", "webp", "avif", "jxl" };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autoptr(gal_json) report = NULL;

    cr_assert_eq(run(&b, NULL, &out, &err), 0, "%s\n%s", out, err);
    text = gal_test_read_bytes(b.report, NULL);
    report = gal_json_parse(text, NULL);
    cr_assert_not_null(report);
    for (int p = 0; p < 2; p++) {
        g_autofree char *files = g_strdup_printf("photos.%d.outputs", p);
        const gal_json *list = gal_json_get(report, files);

        cr_assert_not_null(list);
        cr_assert_eq(list->items->len, G_N_ELEMENTS(formats));
        for (guint k = 0; k < G_N_ELEMENTS(formats); k++) {
            const gal_json *f = list->items->pdata[k];
            const char *path = gal_json_string(f, "path");
            char sha[65];
            gint64 size = 0;
            gal_error e = { 0 };

            cr_expect_str_eq(gal_json_string(f, "format"), formats[k]);
            cr_assert_eq(gal__file_sha256(path, NULL, sha, &size, &e), 0, "%s", e.msg);
            cr_expect_str_eq(gal_json_string(f, "sha256"), sha, "%s", path);
            cr_expect_eq(gal_json_number(f, "bytes"), (double) size, "%s", path);
        }
    }
    gal_test_bench_clear(&b);
}
