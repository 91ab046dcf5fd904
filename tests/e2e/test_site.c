/* A gallery as a site, run by the real binary over an album tree: what
 * the report says of each photo's album and of the pages. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"
#include "gal_test_meta.h"
#include "gal_test_json.h"

TestSuite(site, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

static const char site_preset[] = "gallop: 1\n"
                                  "stages:\n"
                                  "  - resize: {width: 96, height: 96, fit: inside}\n"
                                  "  - gallery: {sort: date}\n"
                                  "output: {name: \"{dir}/{stem}.{ext}\", quality: 70}\n";

/* The tree: trip-01 at the top, an album `alps` with a sub-album
 * `alps/day 1`, and `coast`; each album with an album.yaml. */
static gal_test_bench
site_bench_with(const char *name, const char *preset)
{
    static const int top[] = { 1 };
    gal_test_bench b = gal_test_bench_new(name, preset, top, 1);
    g_autofree char *alps = g_build_filename(b.in, "alps", NULL);
    g_autofree char *day = g_build_filename(b.in, "alps", "day 1", NULL);
    g_autofree char *coast = g_build_filename(b.in, "coast", NULL);
    const char *const yamls[][2] = {
        { alps, "title: The Alps\ndescription: Up high.\n" },
        { day, "title: Day one\n" },
        { coast, "title: The coast\ndescription: Down low.\n" },
    };

    gal_test_copy_trip(alps, 2, "a.jpg");
    gal_test_copy_trip(alps, 3, "b.jpg");
    gal_test_copy_trip(day, 4, "c.jpg");
    gal_test_copy_trip(coast, 5, "d.jpg");
    gal_test_copy_trip(coast, 6, "e.jpg");
    for (gsize k = 0; k < G_N_ELEMENTS(yamls); k++) {
        g_autofree char *path = g_build_filename(yamls[k][0], "album.yaml", NULL);

        cr_assert(g_file_set_contents(path, yamls[k][1], -1, NULL));
    }
    return b;
}

static gal_test_bench
site_bench(const char *name)
{
    return site_bench_with(name, site_preset);
}

/* gallop run PRESET IN -o OUT --report REPORT [extra]: the report, parsed. */
static gal_json *
run_site(const gal_test_bench *b, const char *extra)
{
    const char *argv[] = { GAL_BINARY, "run", b->preset, b->in, "-o", b->out, "--report",
        b->report, "-j", "2", extra, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    int status = gal_test_spawn(argv, &out, &err);

    cr_assert_eq(status, 0, "gallop run exited %d\n%s\n%s", status, out, err);
    text = gal_test_read_bytes(b->report, NULL);
    return gal_json_parse(text, NULL);
}

/* The photo of the report whose input ends with `name`. */
static const gal_json *
photo_named(const gal_json *report, const char *name)
{
    const gal_json *photos = gal_json_get(report, "photos");

    cr_assert(photos && photos->type == GAL_JSON_ARRAY);
    for (guint k = 0; k < photos->items->len; k++) {
        const gal_json *p = photos->items->pdata[k];
        const char *input = gal_json_string(p, "input");

        if (input && g_str_has_suffix(input, name))
            return p;
    }
    cr_assert_fail("no photo %s in the report", name);
    return NULL;
}

Test(site, the_report_gives_each_photo_its_album_on_every_run)
{
    gal_test_bench b = site_bench("site-album");
    static const char *const expected[][2] = {
        { "trip-01.jpg", "" },   { "alps/a.jpg", "alps" },   { "alps/b.jpg", "alps" },
        { "day 1/c.jpg", "alps/day 1" }, { "coast/d.jpg", "coast" }, { "coast/e.jpg", "coast" },
    };

    /* Built, then up to date: the album either way. */
    for (int pass = 0; pass < 2; pass++) {
        g_autoptr(gal_json) report = run_site(&b, NULL);

        for (gsize k = 0; k < G_N_ELEMENTS(expected); k++) {
            const gal_json *p = photo_named(report, expected[k][0]);
            const char *album = gal_json_string(p, "album");

            cr_expect_str_eq(gal_json_string(p, "status"), pass ? "up-to-date" : "done");
            cr_expect(album && strcmp(album, expected[k][1]) == 0,
                "pass %d: %s in album %s, not %s", pass, expected[k][0], album ? album : "(null)",
                expected[k][1]);
        }
        /* Every page of the site, made or up to date: the top, alps, its
         * day 1, coast. */
        cr_expect_eq(gal_json_number(report, "totals.sheets"), 4, "pass %d: %g pages", pass,
            gal_json_number(report, "totals.sheets"));
    }
    gal_test_bench_clear(&b);
}

Test(site, a_preset_without_albums_gives_no_album)
{
    static const int trips[] = { 1 };
    gal_test_bench b = gal_test_bench_new("site-no-album",
        "gallop: 1\nstages: [ {resize: {width: 64, height: 64}} ]\n", trips, 1);
    g_autoptr(gal_json) report = run_site(&b, NULL);
    const gal_json *album = gal_json_get(photo_named(report, "trip-01.jpg"), "album");

    cr_assert(album, "the photo has no album key");
    cr_expect_eq(album->type, GAL_JSON_NULL);
    gal_test_bench_clear(&b);
}

/* A file's identity as a rewrite would change it: its inode (gallop
 * writes by rename), time and bytes. */
typedef struct {
    ino_t ino;
    gint64 mtime_ns;
    char *bytes;
} file_state;

static file_state
state_of(const char *dir, const char *rel)
{
    g_autofree char *path = g_build_filename(dir, rel, NULL);
    file_state s = { 0 };
    struct stat st;

    cr_assert_eq(stat(path, &st), 0, "%s is missing", path);
    s.ino = st.st_ino;
    s.mtime_ns = (gint64) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    s.bytes = gal_test_read_bytes(path, NULL);
    return s;
}

static gboolean
same_state(const file_state *a, const file_state *b)
{
    return a->ino == b->ino && a->mtime_ns == b->mtime_ns && strcmp(a->bytes, b->bytes) == 0;
}

Test(site, an_edited_album_yaml_rewrites_its_pages_and_its_parents_only_and_opens_no_photo)
{
    gal_test_bench b = site_bench("site-incremental");
    static const char *const pages[] = { "index.html", "alps/index.html",
        "alps/day 1/index.html", "coast/index.html" };
    /* The day's own page (its title) and alps's (its card): rewritten. */
    static const gboolean rewritten[] = { FALSE, TRUE, TRUE, FALSE };
    file_state before[G_N_ELEMENTS(pages)];
    g_autofree char *yaml = g_build_filename(b.in, "alps", "day 1", "album.yaml", NULL);
    g_autofree char *fresh = g_build_filename(b.tmp, "fresh", NULL);
    g_autoptr(gal_json) first = run_site(&b, NULL);
    g_autoptr(gal_json) report = NULL;
    const gal_json *photos;

    for (gsize k = 0; k < G_N_ELEMENTS(pages); k++)
        before[k] = state_of(b.out, pages[k]);
    cr_assert(g_file_set_contents(yaml, "title: The first day\n", -1, NULL));
    /* A dry run lists the pages it would make. */
    {
        g_autoptr(gal_json) dry = run_site(&b, "--dry-run");
        const gal_json *sheets = gal_json_get(dry, "sheets");

        cr_assert(sheets && sheets->items->len == G_N_ELEMENTS(pages), "the dry run lists %u pages",
            sheets ? sheets->items->len : 0);
        for (guint k = 0; k < sheets->items->len; k++) {
            const char *planned = gal_json_string(sheets->items->pdata[k], "planned_output");

            cr_expect_str_eq(gal_json_string(sheets->items->pdata[k], "status"), "planned");
            cr_expect(planned && g_str_has_suffix(planned, ".html"), "planned %s", planned);
        }
        cr_expect_eq(gal_json_number(dry, "totals.orphans"), 0);
    }
    report = run_site(&b, NULL);
    for (gsize k = 0; k < G_N_ELEMENTS(pages); k++) {
        file_state now = state_of(b.out, pages[k]);

        cr_expect_eq(!same_state(&before[k], &now), rewritten[k], "%s %s", pages[k],
            rewritten[k] ? "was not rewritten" : "was rewritten, unchanged");
        g_free(now.bytes);
        g_free(before[k].bytes);
    }
    {
        g_autofree char *day = g_build_filename(b.out, "alps", "day 1", "index.html", NULL);
        g_autofree char *html = gal_test_read_bytes(day, NULL);

        cr_expect(strstr(html, "The first day"), "the new title is not on the day's page");
    }
    /* No photo was opened for the pages: each is up to date as such. */
    photos = gal_json_get(report, "photos");
    for (guint k = 0; k < photos->items->len; k++)
        cr_expect_str_eq(gal_json_string(photos->items->pdata[k], "reason"), "up-to-date",
            "%s was read again", gal_json_string(photos->items->pdata[k], "input"));
    /* Every page listed: 2 made, 2 up to date. */
    cr_expect_eq(gal_json_number(report, "totals.sheets"), 4);
    /* The pages are those a fresh build makes, byte for byte. */
    {
        gal_test_bench again = b;

        again.out = fresh;
        g_autoptr(gal_json) fresh_report = run_site(&again, NULL);

        for (gsize k = 0; k < G_N_ELEMENTS(pages); k++) {
            file_state x = state_of(b.out, pages[k]);
            file_state y = state_of(fresh, pages[k]);

            cr_expect_str_eq(x.bytes, y.bytes, "%s differs from a fresh build's", pages[k]);
            g_free(x.bytes);
            g_free(y.bytes);
        }
    }
    /* And the run after is a no-op. */
    {
        g_autoptr(gal_json) third = run_site(&b, NULL);

        cr_expect_eq(gal_json_number(third, "totals.done"), 0);
        cr_expect_eq(gal_json_get(third, "sheets_stale")->boolean, FALSE);
    }
    gal_test_bench_clear(&b);
}

Test(site, a_wrong_album_yaml_fails_its_page_and_prune_keeps_the_last_one_made)
{
    gal_test_bench b = site_bench("site-wrong-yaml");
    g_autofree char *yaml = g_build_filename(b.in, "coast", "album.yaml", NULL);
    g_autofree char *page = g_build_filename(b.out, "coast", "index.html", NULL);
    const char *argv[] = { GAL_BINARY, "run", b.preset, b.in, "-o", b.out, "--prune", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(gal_json) first = run_site(&b, NULL);
    int status;

    cr_assert(g_file_set_contents(yaml, "title: The coast\ntitle: twice\n", -1, NULL));
    status = gal_test_spawn(argv, &out, &err);
    cr_expect_eq(status, 1, "exit %d\n%s\n%s", status, out, err);
    cr_expect(strstr(err, "album.yaml:2:1: title: duplicate key"), "%s", err);
    cr_expect(!strstr(out, "removed"), "--prune removed a page: %s", out);
    cr_expect(g_file_test(page, G_FILE_TEST_IS_REGULAR), "coast/index.html is gone");
    gal_test_bench_clear(&b);
}

/* The site with a zip per album and a sitemap and feed. */
static const char zip_preset[] = "gallop: 1\n"
                                 "stages:\n"
                                 "  - resize: {width: 96, height: 96, fit: inside}\n"
                                 "  - gallery: {sort: date, download: largest,\n"
                                 "      base-url: \"https://example.org/p/\"}\n"
                                 "output: {name: \"{dir}/{stem}.{ext}\", quality: 70}\n";

/* The zips of site_bench's albums, and the files each one stores. */
static const char *const zips[] = { "album.zip", "alps/album.zip", "alps/day 1/album.zip",
    "coast/album.zip" };
static const char *const stored[] = { "trip-01.jpg", "alps/a.jpg", "alps/b.jpg",
    "alps/day 1/c.jpg", "coast/d.jpg", "coast/e.jpg" };

/* Write `len` bytes over the file at `path`, keeping its time: a change
 * that only reading the file shows. */
static void
overwrite_keeping_time(const char *path, const char *bytes, gsize len)
{
    struct stat st;
    struct timespec times[2];

    cr_assert_eq(stat(path, &st), 0);
    times[0] = st.st_atim;
    times[1] = st.st_mtim;
    cr_assert(g_file_set_contents(path, bytes, (gssize) len, NULL));
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
}

static gboolean
holds(const char *bytes, gsize len, const char *part, gsize part_len)
{
    for (gsize i = 0; i + part_len <= len; i++)
        if (memcmp(bytes + i, part, part_len) == 0)
            return TRUE;
    return FALSE;
}

Test(site, an_album_zip_is_made_again_only_when_its_photos_change)
{
    gal_test_bench b = site_bench_with("site-zips", zip_preset);
    g_autofree char *yaml = g_build_filename(b.in, "alps", "day 1", "album.yaml", NULL);
    g_autofree char *photo = g_build_filename(b.in, "coast", "d.jpg", NULL);
    g_autofree char *fresh = g_build_filename(b.tmp, "fresh", NULL);
    g_autoptr(gal_json) first = run_site(&b, NULL);
    g_autoptr(gal_json) second = NULL;
    g_autoptr(gal_json) third = NULL;
    file_state before[G_N_ELEMENTS(zips)];
    char *kept[G_N_ELEMENTS(stored)];
    gsize kept_len[G_N_ELEMENTS(stored)];

    for (gsize z = 0; z < G_N_ELEMENTS(zips); z++)
        before[z] = state_of(b.out, zips[z]);
    /* Every stored file changed where only a read sees it (same size and
     * time): a zip made again would hold the new bytes. */
    for (gsize f = 0; f < G_N_ELEMENTS(stored); f++) {
        g_autofree char *path = g_build_filename(b.out, stored[f], NULL);
        g_autofree char *flipped = NULL;

        cr_assert(g_file_get_contents(path, &kept[f], &kept_len[f], NULL));
        flipped = g_memdup2(kept[f], kept_len[f]);
        for (gsize i = kept_len[f] / 2; i < kept_len[f] / 2 + 16; i++)
            flipped[i] ^= 0x5a;
        overwrite_keeping_time(path, flipped, kept_len[f]);
    }
    /* An album.yaml edited: its pages again, no zip, no photo read. */
    cr_assert(g_file_set_contents(yaml, "title: The first day\n", -1, NULL));
    second = run_site(&b, NULL);
    for (gsize z = 0; z < G_N_ELEMENTS(zips); z++) {
        file_state now = state_of(b.out, zips[z]);

        cr_expect(same_state(&before[z], &now), "%s was made again", zips[z]);
        g_free(now.bytes);
    }
    for (gsize f = 0; f < G_N_ELEMENTS(stored); f++) {
        g_autofree char *path = g_build_filename(b.out, stored[f], NULL);

        overwrite_keeping_time(path, kept[f], kept_len[f]);
        g_free(kept[f]);
    }
    /* A photo of the coast changed: the coast's zip, and no other. */
    {
        g_autofree char *coast = g_path_get_dirname(photo);

        gal_test_copy_trip(coast, 7, "d.jpg");
    }
    third = run_site(&b, NULL);
    for (gsize z = 0; z < G_N_ELEMENTS(zips); z++) {
        file_state now = state_of(b.out, zips[z]);
        gboolean coast = strcmp(zips[z], "coast/album.zip") == 0;

        cr_expect_eq(!same_state(&before[z], &now), coast, "%s %s", zips[z],
            coast ? "was not made again" : "was made again");
        g_free(now.bytes);
    }
    /* It holds the new file, and is the zip a fresh build makes. */
    {
        g_autofree char *zip_path = g_build_filename(b.out, "coast", "album.zip", NULL);
        g_autofree char *made_path = g_build_filename(b.out, "coast", "d.jpg", NULL);
        g_autofree char *fresh_path = g_build_filename(fresh, "coast", "album.zip", NULL);
        g_autofree char *zip = NULL;
        g_autofree char *made = NULL;
        g_autofree char *fresh_zip = NULL;
        gsize zip_len, made_len, fresh_len;
        gal_test_bench again = b;

        again.out = fresh;
        g_autoptr(gal_json) fresh_report = run_site(&again, NULL);
        cr_assert(g_file_get_contents(zip_path, &zip, &zip_len, NULL));
        cr_assert(g_file_get_contents(made_path, &made, &made_len, NULL));
        cr_assert(g_file_get_contents(fresh_path, &fresh_zip, &fresh_len, NULL));
        cr_expect(holds(zip, zip_len, made, made_len), "the zip lacks the new d.jpg");
        cr_expect(zip_len == fresh_len && memcmp(zip, fresh_zip, zip_len) == 0,
            "coast/album.zip differs from a fresh build's");
    }
    for (gsize z = 0; z < G_N_ELEMENTS(zips); z++)
        g_free(before[z].bytes);
    /* A zip changed behind gallop's back, its size and time kept: a run
     * trusts it, as it does any output; --force makes it again. */
    {
        g_autofree char *zip_path = g_build_filename(b.out, "alps", "album.zip", NULL);
        g_autofree char *good = NULL;
        g_autofree char *now = NULL;
        g_autofree char *bad = NULL;
        gsize len;

        cr_assert(g_file_get_contents(zip_path, &good, &len, NULL));
        bad = g_memdup2(good, len);
        bad[len / 2] ^= 0x5a;
        overwrite_keeping_time(zip_path, bad, len);
        g_autoptr(gal_json) trusted = run_site(&b, NULL);
        g_autoptr(gal_json) forced = run_site(&b, "--force");
        cr_assert(g_file_get_contents(zip_path, &now, &len, NULL));
        cr_expect(memcmp(now, good, len) == 0, "--force did not make alps/album.zip again");
    }
    gal_test_bench_clear(&b);
}

/* -n and --check list every file of the site they would write: pages,
 * sitemap, feed and zips. */
Test(site, a_dry_run_and_check_list_the_sitemap_the_feed_and_the_zips)
{
    gal_test_bench b = site_bench_with("site-dry-files", zip_preset);
    g_autofree char *yaml = g_build_filename(b.in, "coast", "album.yaml", NULL);
    g_autoptr(gal_json) first = run_site(&b, NULL);
    static const char *const files[] = { "index.html", "alps/index.html",
        "alps/day 1/index.html", "coast/index.html", "sitemap.xml", "feed.xml", "album.zip",
        "alps/album.zip", "alps/day 1/album.zip", "coast/album.zip" };
    const char *const modes[] = { "--dry-run", "--check" };

    cr_assert(g_file_set_contents(yaml, "title: The shore\n", -1, NULL));
    for (gsize m = 0; m < G_N_ELEMENTS(modes); m++) {
        const char *argv[] = { GAL_BINARY, "run", b.preset, b.in, "-o", b.out, "--report",
            b.report, modes[m], NULL };
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        g_autofree char *text = NULL;
        g_autoptr(gal_json) report = NULL;
        const gal_json *sheets;
        int status = gal_test_spawn(argv, &out, &err);

        /* --check: stale pages are a failed check. */
        cr_expect_eq(status, m == 0 ? 0 : 1, "%s exited %d\n%s", modes[m], status, err);
        text = gal_test_read_bytes(b.report, NULL);
        report = gal_json_parse(text, NULL);
        sheets = gal_json_get(report, "sheets");
        cr_assert(sheets && sheets->type == GAL_JSON_ARRAY);
        cr_expect_eq(sheets->items->len, G_N_ELEMENTS(files), "%s lists %u files", modes[m],
            sheets->items->len);
        for (gsize f = 0; f < G_N_ELEMENTS(files); f++) {
            g_autofree char *want = g_build_filename(b.out, files[f], NULL);
            gboolean found = FALSE;

            for (guint k = 0; k < sheets->items->len; k++) {
                const char *planned = gal_json_string(sheets->items->pdata[k], "planned_output");

                found |= planned && strcmp(planned, want) == 0;
            }
            cr_expect(found, "%s does not list %s", modes[m], files[f]);
        }
    }
    gal_test_bench_clear(&b);
}

/* download: original, under a policy that removes the location. */
static const char originals_preset[] = "gallop: 1\n"
                                       "stages:\n"
                                       "  - resize: {width: 96, height: 96, fit: inside}\n"
                                       "  - gallery: {sort: name, download: original}\n"
                                       "output: {name: \"{stem}.{ext}\", quality: 70,\n"
                                       "  remove-location: true}\n";

/* The same, keeping everything: an original published as it is. */
static const char originals_kept_preset[] = "gallop: 1\n"
                                            "stages:\n"
                                            "  - resize: {width: 96, height: 96, fit: inside}\n"
                                            "  - gallery: {sort: name, download: original}\n"
                                            "output: {name: \"{stem}.{ext}\", quality: 70,\n"
                                            "  metadata: [keep]}\n";

/* The report's warnings of a photo, one line each, joined. */
static char *
photo_warnings(const gal_json *report, const char *name)
{
    const gal_json *warnings = gal_json_get(photo_named(report, name), "warnings");
    GString *all = g_string_new(NULL);

    for (guint w = 0; warnings && warnings->type == GAL_JSON_ARRAY && w < warnings->items->len;
         w++) {
        g_autofree char *key = g_strdup_printf("%u", w);
        const char *line = gal_json_string(warnings, key);

        g_string_append_printf(all, "%s\n", line ? line : "");
    }
    return g_string_free(all, FALSE);
}

Test(site, download_original_publishes_each_jpeg_without_its_location_and_links_it)
{
    static const int trips[] = { 1, 2 };
    gal_test_bench b = gal_test_bench_new("site-originals", originals_preset, trips, 2);
    g_autofree char *png = g_build_filename(b.in, "trip-09.png", NULL);
    g_autofree char *input = g_build_filename(b.in, "trip-01.jpg", NULL);
    g_autofree char *original = g_build_filename(b.out, "originals", "trip-01.jpg", NULL);
    g_autofree char *second_original = g_build_filename(b.out, "originals", "trip-02.jpg", NULL);
    g_autofree char *png_original = g_build_filename(b.out, "originals", "trip-09.png", NULL);
    g_autofree char *page_path = g_build_filename(b.out, "index.html", NULL);
    g_autofree char *in_gps = NULL;
    g_autofree char *out_gps = NULL;
    g_autofree char *page = NULL;
    g_autofree char *warnings = NULL;
    g_autoptr(gal_json) first = NULL;
    g_autoptr(gal_json) second = NULL;
    g_autoptr(VipsImage) in_image = NULL;
    g_autoptr(VipsImage) out_image = NULL;
    file_state before, now;
    double max_abs = -1, mean_abs = -1;

    gal_test_need_exiftool();
    gal_test_copy_file(GAL_FIXTURES_DIR "/trip/trip-09.png", png);
    first = run_site(&b, NULL);

    /* Published without its GPS, its pixels as they were. */
    in_gps = gal_test_exiftool_tag(input, "GPSLatitude");
    out_gps = gal_test_exiftool_tag(original, "GPSLatitude");
    cr_assert(*in_gps, "the fixture has no GPS to remove");
    cr_expect_str_empty(out_gps, "the published original keeps GPS %s", out_gps);
    /* Random access: the difference is read twice (max, mean). */
    in_image = gal_test_load_image(input, FALSE);
    out_image = gal_test_load_image(original, FALSE);
    cr_assert_eq(gal_test_diff(in_image, out_image, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0, "the original decodes to other pixels (max %g)", max_abs);
    cr_expect(g_file_test(second_original, G_FILE_TEST_IS_REGULAR),
        "originals/trip-02.jpg is missing");

    /* The lightbox takes each JPEG's original home; the PNG its largest
     * file, with a warning saying why. */
    page = gal_test_read_bytes(page_path, NULL);
    cr_expect(strstr(page, "data-orig=\"originals/trip-01.jpg\""), "no link to the original");
    cr_expect(strstr(page, "data-orig=\"originals/trip-02.jpg\""), "no link to trip-02's");
    cr_expect(strstr(page, "a.dataset.orig"), "the lightbox does not use the original");
    cr_expect(strstr(page, "class=\"orig\" href=\"#\" download"), "the link does not download");
    cr_expect_null(strstr(page, "originals/trip-09"), "a PNG's original is linked");
    cr_expect_not(g_file_test(png_original, G_FILE_TEST_EXISTS), "a PNG was published");
    warnings = photo_warnings(first, "trip-09.png");
    cr_expect(strstr(warnings, "not a JPEG"), "no warning for the PNG: %s", warnings);

    /* Again: nothing written. */
    before = state_of(b.out, "originals/trip-01.jpg");
    second = run_site(&b, NULL);
    now = state_of(b.out, "originals/trip-01.jpg");
    cr_expect(same_state(&before, &now), "the original was written again");
    g_free(now.bytes);

    /* Another policy: made again, as it is under keep. */
    g_free(b.preset);
    b.preset = gal_test_write_preset(b.tmp, "p.yaml", originals_kept_preset);
    {
        g_autoptr(gal_json) kept = run_site(&b, NULL);
        gsize in_len, out_len;
        g_autofree char *in_bytes = gal_test_read_bytes(input, &in_len);
        g_autofree char *out_bytes = gal_test_read_bytes(original, &out_len);

        now = state_of(b.out, "originals/trip-01.jpg");
        cr_expect(!same_state(&before, &now), "a new policy did not make the original again");
        cr_expect(in_len == out_len && memcmp(in_bytes, out_bytes, in_len) == 0,
            "under keep the original is not the input's bytes");
        g_free(now.bytes);
    }
    g_free(before.bytes);
    gal_test_bench_clear(&b);
}

/* A photo that fails is not on its page: its original (here a JPEG cut
 * short) is not published either. */
Test(site, the_original_of_a_photo_that_failed_is_not_published)
{
    static const int trips[] = { 1 };
    gal_test_bench b = gal_test_bench_new("site-originals-failed", originals_preset, trips, 1);
    g_autofree char *cut = g_build_filename(b.in, "trip-03.jpg", NULL);
    g_autofree char *whole = gal_test_read_bytes(GAL_FIXTURES_DIR "/trip/trip-03.jpg", NULL);
    g_autofree char *published = g_build_filename(b.out, "originals", "trip-01.jpg", NULL);
    g_autofree char *not_published = g_build_filename(b.out, "originals", "trip-03.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", b.preset, b.in, "-o", b.out, "-j", "2", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert(g_file_set_contents(cut, whole, 3000, NULL));
    cr_expect_neq(gal_test_spawn(argv, &out, &err), 0, "the cut JPEG did not fail: %s", err);
    cr_expect(strstr(err, "trip-03.jpg") != NULL, "%s", err);
    /* The summary tells the page from the album's zip and trip-01's original. */
    cr_expect(strstr(err, "; 1 gallery page, 2 site files;") != NULL, "%s", err);
    cr_expect(g_file_test(published, G_FILE_TEST_IS_REGULAR), "trip-01's original is missing");
    cr_expect_not(g_file_test(not_published, G_FILE_TEST_EXISTS),
        "the failed photo's original was published");
    gal_test_bench_clear(&b);
}

/* -n lists the originals it would publish, as it lists pages and zips. */
Test(site, a_dry_run_lists_the_originals)
{
    static const int trips[] = { 1, 2 };
    gal_test_bench b = gal_test_bench_new("site-originals-dry", originals_preset, trips, 2);
    const char *argv[] = { GAL_BINARY, "run", b.preset, b.in, "-o", b.out, "--report", b.report,
        "--dry-run", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autoptr(gal_json) report = NULL;
    const gal_json *sheets;
    int status = gal_test_spawn(argv, &out, &err);

    cr_assert_eq(status, 0, "--dry-run exited %d\n%s", status, err);
    text = gal_test_read_bytes(b.report, NULL);
    report = gal_json_parse(text, NULL);
    sheets = gal_json_get(report, "sheets");
    cr_assert(sheets && sheets->type == GAL_JSON_ARRAY);
    for (int k = 1; k <= 2; k++) {
        g_autofree char *want = g_strdup_printf("%s/originals/trip-%02d.jpg", b.out, k);
        gboolean found = FALSE;

        for (guint s = 0; s < sheets->items->len; s++) {
            const char *planned = gal_json_string(sheets->items->pdata[s], "planned_output");

            found |= planned && strcmp(planned, want) == 0;
        }
        cr_expect(found, "--dry-run does not list %s", want);
    }
    cr_expect_eq(access(b.out, F_OK), -1, "--dry-run wrote the site");
    gal_test_bench_clear(&b);
}
