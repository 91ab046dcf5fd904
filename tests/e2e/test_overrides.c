/* Per-photo overrides (issue 43, item 5), through `gallop run`: a sidecar's
 * focus point moves a cover crop (and so does an XMP face region, written
 * by exiftool), watermark: false leaves one photo unmarked, a sidecar's
 * caption, alt text and description and IPTC's Alt Text (Accessibility)
 * and Extended Description reach the gallery page and the report (a
 * sharded run's merged page too), a wrong sidecar fails its photo alone
 * with its place, and editing or adding one sidecar rebuilds that photo
 * only, whatever gallop recorded it. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_meta.h"
#include "gal_test_json.h"

TestSuite(overrides, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

/* A 400x200 JPEG whose red grows from 0 at the left edge to 255 at the
 * right: a crop's mean red says where it was cut from. */
static void
write_ramp(const char *path)
{
    g_autoptr(VipsImage) ramp = gal_test_gradient(400, 200);

    cr_assert_eq(vips_jpegsave(ramp, path, "Q", 95, NULL), 0, "%s", vips_error_buffer());
}

static void
write_text(const char *dir, const char *name, const char *text)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);

    cr_assert(g_file_set_contents(path, text, -1, NULL));
}

static double
band_mean(const char *path, int band)
{
    g_autoptr(VipsImage) image = gal_test_load_image(path, TRUE);
    g_autoptr(VipsImage) one = NULL;
    double mean;

    cr_assert_not_null(image, "%s", path);
    cr_assert_eq(vips_extract_band(image, &one, band, NULL), 0);
    cr_assert_eq(vips_avg(one, &mean, NULL), 0);
    return mean;
}

static int
run(const char *preset, const char *in, const char *out, const char *report, char **err)
{
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "--report", report, NULL };
    g_autofree char *stdout_text = NULL;

    return gal_test_spawn(argv, &stdout_text, err);
}

static void
exiftool(const char *file, const char *assignment)
{
    const char *argv[] = { "exiftool", "-q", "-overwrite_original", assignment, file, NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "exiftool: %s", err);
}

#define CROP_PRESET \
    "gallop: 1\nstages:\n  - resize: { width: 100, height: 100, fit: cover, crop: %s }\n" \
    "output: { format: png, name: \"{stem}.png\" }\n"

Test(overrides, a_focus_point_moves_the_crop_where_asked)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-focus");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *report = g_build_filename(dir, "report.json", NULL);
    g_autofree char *yaml = g_strdup_printf(CROP_PRESET, "centre");
    g_autofree char *preset = gal_test_write_preset(dir, "crop.yaml", yaml);
    g_autofree char *smart_yaml = g_strdup_printf(CROP_PRESET, "attention");
    g_autofree char *smart = gal_test_write_preset(dir, "smart.yaml", smart_yaml);
    g_autofree char *smart_out = g_build_filename(dir, "smart", NULL);
    g_autofree char *smart_left = g_build_filename(smart_out, "left.png", NULL);
    g_autofree char *smart_none = g_build_filename(smart_out, "none.png", NULL);
    const char *names[] = { "right.jpg", "left.jpg", "none.jpg", "faces.jpg" };
    g_autofree char *err = NULL;
    double red[G_N_ELEMENTS(names)], smart_red;

    gal_test_need_exiftool();
    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *path = g_build_filename(in, names[i], NULL);

        write_ramp(path);
    }
    write_text(in, "right.yaml", "focus: [0.95, 0.5]\n");
    write_text(in, "left.jpg.yaml", "focus: [0.05, 0.5]\n");
    {
        g_autofree char *faces = g_build_filename(in, "faces.jpg", NULL);

        /* Two faces at the left: the box around them is centred at x 0.15. */
        exiftool(faces, "-RegionInfo={AppliedToDimensions={W=400,H=200,Unit=pixel},"
                        "RegionList=[{Area={X=0.1,Y=0.5,W=0.1,H=0.1,Unit=normalized},Type=Face},"
                        "{Area={X=0.2,Y=0.5,W=0.1,H=0.1,Unit=normalized},Type=Face}]}");
    }
    cr_assert_eq(run(preset, in, out, report, &err), 0, "%s", err);
    for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *stem = g_strndup(names[i], strlen(names[i]) - 4);
        g_autofree char *png = g_strdup_printf("%s/%s.png", out, stem);

        red[i] = band_mean(png, 0);
    }
    /* Scaled to 200x100, a 100 px window: at x 190 it is pushed to the
     * right edge (columns 100..199: red about 191), at x 10 to the left
     * (0..99: about 64); faces at x 30 likewise. */
    cr_expect(red[0] > 180 && red[0] < 200, "right: mean red %.1f", red[0]);
    cr_expect(red[1] > 55 && red[1] < 75, "left: mean red %.1f", red[1]);
    cr_expect(red[3] > 55 && red[3] < 75, "faces: mean red %.1f", red[3]);
    cr_expect(red[2] > 119 && red[2] < 136, "none: the preset's centre crop: %.1f", red[2]);
    /* The point wins over an attention crop, which would go elsewhere. */
    g_clear_pointer(&err, g_free);
    cr_assert_eq(run(smart, in, smart_out, report, &err), 0, "%s", err);
    smart_red = band_mean(smart_left, 0);
    cr_expect(smart_red > 55 && smart_red < 75, "left with attention: mean red %.1f", smart_red);
    smart_red = band_mean(smart_none, 0);
    cr_expect(smart_red > 100, "none with attention: its own choice, %.1f", smart_red);
}

Test(overrides, watermark_false_leaves_that_photo_unmarked)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-watermark");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *marked = g_build_filename(dir, "marked", NULL);
    g_autofree char *plain = g_build_filename(dir, "plain", NULL);
    g_autofree char *report = g_build_filename(dir, "report.json", NULL);
    g_autofree char *with = gal_test_write_preset(dir, "with.yaml",
        "gallop: 1\nstages:\n  - resize: { width: 200 }\n"
        "  - watermark: { text: MARK, size: 60%, opacity: 1, gravity: centre }\n"
        "output: { format: png, name: \"{stem}.png\" }\n");
    g_autofree char *without = gal_test_write_preset(dir, "without.yaml",
        "gallop: 1\nstages:\n  - resize: { width: 200 }\n"
        "output: { format: png, name: \"{stem}.png\" }\n");
    g_autofree char *err = NULL;
    const char *names[] = { "skip", "keep" };

    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *path = g_strdup_printf("%s/%s.jpg", in, names[i]);

        write_ramp(path);
    }
    write_text(in, "skip.yaml", "watermark: false\n");
    cr_assert_eq(run(with, in, marked, report, &err), 0, "%s", err);
    cr_assert_eq(run(without, in, plain, report, NULL), 0);
    for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *a_path = g_strdup_printf("%s/%s.png", marked, names[i]);
        g_autofree char *b_path = g_strdup_printf("%s/%s.png", plain, names[i]);
        g_autoptr(VipsImage) a_file = gal_test_load_image(a_path, TRUE);
        g_autoptr(VipsImage) b_file = gal_test_load_image(b_path, TRUE);
        /* Read twice (max, mean): each decoded once, into memory. */
        g_autoptr(VipsImage) a = vips_image_copy_memory(a_file);
        g_autoptr(VipsImage) b = vips_image_copy_memory(b_file);
        double max_abs, mean_abs;

        cr_assert_eq(gal_test_diff(a, b, &max_abs, &mean_abs), 0);
        if (i == 0)
            cr_expect_eq(max_abs, 0, "skip: every pixel as without a watermark (max %.0f)",
                max_abs);
        else
            cr_expect_gt(max_abs, 100, "keep: the mark is there (max %.0f)", max_abs);
    }
}

/* The photo's entry in the report (by the end of its input path). */
static const gal_json *
photo_entry(const gal_json *report, const char *name)
{
    const gal_json *photos = gal_json_get(report, "photos");

    cr_assert_not_null(photos);
    for (guint i = 0; i < photos->items->len; i++) {
        const gal_json *p = photos->items->pdata[i];
        const char *input = gal_json_string(p, "input");

        if (input && g_str_has_suffix(input, name))
            return p;
    }
    cr_assert_fail("%s is not in the report", name);
    return NULL;
}

Test(overrides, caption_alt_and_iptc_alt_reach_the_gallery_and_report)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-gallery");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *report_path = g_build_filename(dir, "report.json", NULL);
    g_autofree char *index = g_build_filename(out, "index.html", NULL);
    g_autofree char *preset = gal_test_write_preset(dir, "site.yaml",
        "gallop: 1\nstages:\n  - resize: { width: 200 }\n  - gallery: { title: Site }\n"
        "output: { format: jpeg, name: \"{stem}.jpg\" }\n");
    g_autofree char *iptc = g_build_filename(in, "iptc.jpg", NULL);
    g_autofree char *both = g_build_filename(in, "both.jpg", NULL);
    g_autofree char *own = g_build_filename(in, "own.jpg", NULL);
    g_autofree char *html = NULL;
    g_autofree char *text = NULL;
    g_autofree char *err = NULL;
    g_autoptr(gal_json) report = NULL;
    const gal_json *p;

    gal_test_need_exiftool();
    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    write_ramp(iptc);
    write_ramp(both);
    write_ramp(own);
    exiftool(iptc, "-XMP-iptcCore:AltTextAccessibility=A grey ramp & a \"quote\"");
    exiftool(iptc, "-XMP-iptcCore:ExtDescrAccessibility=From black at the left to red");
    exiftool(both, "-XMP-iptcCore:AltTextAccessibility=Embedded alt");
    write_text(in, "both.yaml", "alt: The sidecar's alt\n");
    write_text(in, "own.jpg.yaml", "caption: Caption from the sidecar\nalt: Own alt\n"
                                   "description: |\n  Two lines\n  of description\n");
    cr_assert_eq(run(preset, in, out, report_path, &err), 0, "%s", err);
    cr_assert(g_file_get_contents(index, &html, NULL, NULL));
    cr_expect(strstr(html, "alt=\"A grey ramp &amp; a &quot;quote&quot;\""), "IPTC alt:\n%s", html);
    cr_expect(strstr(html, "alt=\"The sidecar&#39;s alt\"") ||
            strstr(html, "alt=\"The sidecar's alt\""),
        "the sidecar's alt over the embedded one:\n%s", html);
    cr_expect_null(strstr(html, "Embedded alt"));
    cr_expect(strstr(html, "alt=\"Own alt\""), "%s", html);
    cr_expect(strstr(html, "data-caption=\"Caption from the sidecar\""), "%s", html);
    cr_expect(strstr(html, "data-description=\"From black at the left to red\""), "%s", html);
    cr_expect(strstr(html, "data-description=\"Two lines\nof description\""), "%s", html);

    cr_assert(g_file_get_contents(report_path, &text, NULL, NULL));
    report = gal_json_parse(text, NULL);
    cr_assert_not_null(report);
    p = photo_entry(report, "iptc.jpg");
    cr_expect_str_eq(gal_json_string(p, "alt_text"), "A grey ramp & a \"quote\"");
    cr_expect_str_eq(gal_json_string(p, "description"), "From black at the left to red");
    p = photo_entry(report, "own.jpg");
    cr_expect_str_eq(gal_json_string(p, "alt_text"), "Own alt");
    cr_expect_str_eq(gal_json_string(p, "description"), "Two lines of description");
    cr_expect_str_eq(gal_json_string(p, "caption"), "Caption from the sidecar");
    cr_expect(g_str_has_prefix(gal_json_string(p, "caption_source"), "sidecar:"));
    cr_expect(g_str_has_suffix(gal_json_string(p, "caption_source"), "own.jpg.yaml"));
    /* A rerun, all up to date, reports them from the records. */
    g_clear_pointer(&text, g_free);
    g_clear_pointer(&report, gal_json_free);
    cr_assert_eq(run(preset, in, out, report_path, NULL), 0);
    cr_assert(g_file_get_contents(report_path, &text, NULL, NULL));
    report = gal_json_parse(text, NULL);
    p = photo_entry(report, "own.jpg");
    cr_expect_str_eq(gal_json_string(p, "status"), "up-to-date");
    cr_expect_str_eq(gal_json_string(p, "alt_text"), "Own alt");
}

Test(overrides, a_wrong_sidecar_fails_its_photo_alone_with_its_place)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-bad");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *report = g_build_filename(dir, "report.json", NULL);
    g_autofree char *yaml = g_strdup_printf(CROP_PRESET, "centre");
    g_autofree char *preset = gal_test_write_preset(dir, "crop.yaml", yaml);
    g_autofree char *good = g_build_filename(in, "good.jpg", NULL);
    g_autofree char *bad = g_build_filename(in, "bad.jpg", NULL);
    g_autofree char *good_out = g_build_filename(out, "good.png", NULL);
    g_autofree char *bad_out = g_build_filename(out, "bad.png", NULL);
    g_autofree char *err = NULL;

    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    write_ramp(good);
    write_ramp(bad);
    write_text(in, "bad.yaml", "caption: fine\nfocus: [0.5, 1.5]\n");
    cr_assert_eq(run(preset, in, out, report, &err), 1, "%s", err);
    cr_expect(strstr(err, "bad.jpg: ") &&
            strstr(err, "bad.yaml:2:14: focus: must be between 0 and 1"),
        "%s", err);
    cr_expect(g_file_test(good_out, G_FILE_TEST_EXISTS), "the batch goes on");
    cr_expect_not(g_file_test(bad_out, G_FILE_TEST_EXISTS));
}

/* How many photos of the report have `status`. */
static int
count_status(const char *report_path, const char *status, const char *only_name)
{
    g_autofree char *text = NULL;
    g_autoptr(gal_json) report = NULL;
    const gal_json *photos;
    int n = 0;

    cr_assert(g_file_get_contents(report_path, &text, NULL, NULL));
    report = gal_json_parse(text, NULL);
    photos = gal_json_get(report, "photos");
    for (guint i = 0; i < photos->items->len; i++) {
        const gal_json *p = photos->items->pdata[i];

        if (g_strcmp0(gal_json_string(p, "status"), status) != 0)
            continue;
        n++;
        if (only_name)
            cr_expect(g_str_has_suffix(gal_json_string(p, "input"), only_name), "%s",
                gal_json_string(p, "input"));
    }
    return n;
}

Test(overrides, editing_one_sidecar_rebuilds_that_photo_only)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-rebuild");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *report = g_build_filename(dir, "report.json", NULL);
    g_autofree char *yaml = g_strdup_printf(CROP_PRESET, "centre");
    g_autofree char *preset = gal_test_write_preset(dir, "crop.yaml", yaml);
    const char *dry[] = { GAL_BINARY, "run", preset, in, "-o", out, "-n", NULL };
    g_autofree char *dry_out = NULL;
    g_autofree char *dry_err = NULL;

    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    for (int i = 1; i <= 3; i++) {
        g_autofree char *path = g_strdup_printf("%s/p%d.jpg", in, i);

        write_ramp(path);
    }
    write_text(in, "p1.yaml", "focus: [0.9, 0.5]\n");
    write_text(in, "p2.yaml", "focus: [0.1, 0.5]\n");
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "done", NULL), 3);
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "up-to-date", NULL), 3, "nothing changed");

    /* One sidecar edited, one appearing: each rebuilds its own photo. */
    write_text(in, "p2.yaml", "focus: [0.2, 0.5]\n");
    cr_assert_eq(gal_test_spawn(dry, &dry_out, &dry_err), 0, "%s", dry_err);
    cr_expect_eq(gal_test_count_lines(dry_out, "build  ", NULL), 1, "%s", dry_out);
    cr_expect(strstr(dry_out, "p2.yaml changed"), "%s", dry_out);
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "done", "p2.jpg"), 1);
    cr_expect_eq(count_status(report, "up-to-date", NULL), 2);
    write_text(in, "p3.jpg.yaml", "watermark: false\n");
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "done", "p3.jpg"), 1, "a new sidecar counts too");
    cr_expect_eq(count_status(report, "up-to-date", NULL), 2);
}

/* A sharded run's gallery page, made by the merge from the items the
 * shards kept, says what one run's page says of each photo: its own alt
 * text and description travel with its item, an empty alt (a decoration)
 * too. */
Test(overrides, a_merged_gallery_keeps_each_photos_alt_and_description, .timeout = 300)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-shards");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *one = g_build_filename(dir, "one", NULL);
    g_autofree char *two = g_build_filename(dir, "two", NULL);
    g_autofree char *report = g_build_filename(dir, "report.json", NULL);
    g_autofree char *one_page_path = g_build_filename(one, "index.html", NULL);
    g_autofree char *two_page_path = g_build_filename(two, "index.html", NULL);
    g_autofree char *preset = gal_test_write_preset(dir, "site.yaml",
        "gallop: 1\nname: site\nstages:\n  - resize: { width: 200 }\n"
        "  - gallery: { title: Site }\noutput: { format: jpeg, name: \"{stem}.jpg\" }\n");
    g_autofree char *one_page = NULL;
    g_autofree char *two_page = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    for (int i = 1; i <= 6; i++) {
        g_autofree char *path = g_strdup_printf("%s/p%d.jpg", in, i);
        g_autofree char *name = g_strdup_printf("p%d.yaml", i);
        g_autofree char *yaml = i == 6 ? g_strdup("alt: \"\"\n")
                                       : g_strdup_printf("alt: Alt of photo %d\n"
                                                         "description: Description of photo %d\n",
                                             i, i);

        write_ramp(path);
        write_text(in, name, yaml);
    }
    cr_assert_eq(run(preset, in, one, report, &err), 0, "%s", err);
    for (int k = 1; k <= 2; k++) {
        g_autofree char *shard = g_strdup_printf("%d/2", k);
        const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", two, "-q", "--shard", shard,
            NULL };

        g_clear_pointer(&err, g_free);
        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "shard %s: %s", shard, err);
    }
    {
        const char *argv[] = { GAL_BINARY, "merge", preset, "-o", two, "-q", NULL };

        g_clear_pointer(&err, g_free);
        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "merge: %s", err);
    }
    cr_assert(g_file_get_contents(one_page_path, &one_page, NULL, NULL));
    cr_assert(g_file_get_contents(two_page_path, &two_page, NULL, NULL));
    cr_expect(strstr(one_page, "alt=\"Alt of photo 4\""), "%s", one_page);
    cr_expect(strstr(one_page, "data-description=\"Description of photo 4\""), "%s", one_page);
    cr_expect(strstr(one_page, "alt=\"\""), "photo 6 is a decoration: %s", one_page);
    cr_expect_str_eq(two_page, one_page, "the merged page differs from one run's");
}

/* An output recorded before photos had sidecars of their own lists
 * neither name: a sidecar there now rebuilds its photo all the same, and
 * the others stay up to date. */
Test(overrides, a_sidecar_new_to_an_older_record_rebuilds_its_photo)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-older");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *report = g_build_filename(dir, "report.json", NULL);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autofree char *yaml = g_strdup_printf(CROP_PRESET, "centre");
    g_autofree char *preset = gal_test_write_preset(dir, "crop.yaml", yaml);
    const char *dry[] = { GAL_BINARY, "run", preset, in, "-o", out, "-n", NULL };
    g_autofree char *dry_out = NULL;

    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    for (int i = 1; i <= 3; i++) {
        g_autofree char *path = g_strdup_printf("%s/p%d.jpg", in, i);

        write_ramp(path);
    }
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    /* As an earlier gallop recorded them. */
    gal_test_manifest_exec(manifest, "DELETE FROM depend WHERE path LIKE '%.yaml';");
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "up-to-date", NULL), 3, "no sidecar: nothing to do");
    write_text(in, "p2.yaml", "focus: [0.1, 0.5]\n");
    cr_assert_eq(gal_test_spawn(dry, &dry_out, NULL), 0);
    cr_expect_eq(gal_test_count_lines(dry_out, "build  ", NULL), 1, "%s", dry_out);
    cr_expect(strstr(dry_out, "p2.yaml appeared"), "%s", dry_out);
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "done", "p2.jpg"), 1);
}

/* A preset that shows no caption (none in a stage, none in the files'
 * metadata) depends on the captions table's row only when the table has
 * override cells: a caption edited in a table of captions alone rebuilds
 * nothing, a focus cell edited rebuilds its photo. */
Test(overrides, a_table_row_shapes_a_photo_only_through_what_it_uses)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-table");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *report = g_build_filename(dir, "report.json", NULL);
    const char *yaml = "gallop: 1\ncaptions: { table: captions.tsv }\n"
                       "stages: [resize: { width: 100, height: 100, fit: cover }]\n"
                       "output: { format: png, name: \"{stem}.png\", metadata: strip }\n";
    g_autofree char *preset = NULL;
    g_autofree char *right = g_build_filename(out, "p1.png", NULL);

    cr_assert_eq(g_mkdir_with_parents(in, 0755), 0);
    for (int i = 1; i <= 2; i++) {
        g_autofree char *path = g_strdup_printf("%s/p%d.jpg", in, i);

        write_ramp(path);
    }
    write_text(dir, "captions.tsv", "file\tcaption\np1.jpg\tOne\np2.jpg\tTwo\n");
    preset = gal_test_write_preset(dir, "crop.yaml", yaml);
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    write_text(dir, "captions.tsv", "file\tcaption\np1.jpg\tOne, edited\np2.jpg\tTwo\n");
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "up-to-date", NULL), 2, "a caption this preset never shows");

    write_text(dir, "captions.tsv", "file\tcaption\tfocus\np1.jpg\tOne\t0.95 0.5\np2.jpg\tTwo\t\n");
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "done", NULL), 2, "override cells: every row is read anew");
    cr_expect_gt(band_mean(right, 0), 180, "p1 cropped at its focus cell");
    write_text(dir, "captions.tsv", "file\tcaption\tfocus\np1.jpg\tOne\t0.05 0.5\np2.jpg\tTwo\t\n");
    cr_assert_eq(run(preset, in, out, report, NULL), 0);
    cr_expect_eq(count_status(report, "done", "p1.jpg"), 1, "its focus cell changed");
    cr_expect_eq(count_status(report, "up-to-date", NULL), 1);
    cr_expect_lt(band_mean(right, 0), 75);
}
