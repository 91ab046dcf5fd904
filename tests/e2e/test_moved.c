/* Records travel with the folder (issue 39): a tree of photos, presets,
 * a logo, a captions table and the output folder, moved or copied to
 * another path, or an output folder restored from a CI cache into a
 * checkout elsewhere, keeps every output up to date; a changed logo or
 * table row still rebuilds exactly the photos it shapes; a copied folder
 * of a sharded run still merges. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(moved, .init = gal_test_setup, .fini = gal_test_teardown);

static const char site_preset[] =
    "gallop: 1\n"
    "name: site\n"
    "stages:\n"
    "  - resize: {width: 120, height: 120, fit: inside}\n"
    "  - caption-burn: {text: \"{caption}\", size: 8%}\n"
    "  - watermark: {image: ../logo.png, size: 20%}\n"
    "captions: {sources: [table, metadata], table: ../captions.tsv}\n"
    "output: {name: \"{stem}.{ext}\", format: jpeg, quality: 80}\n";

/* A tree under `root`: photos/ (four), presets/site.yaml, logo.png,
 * captions.tsv (rows for two photos). */
static void
make_tree(const char *root)
{
    g_autofree char *photos = g_build_filename(root, "photos", NULL);
    g_autofree char *presets = g_build_filename(root, "presets", NULL);
    g_autofree char *logo = g_build_filename(root, "logo.png", NULL);
    g_autofree char *table = g_build_filename(root, "captions.tsv", NULL);
    g_autofree char *preset = NULL;

    cr_assert_eq(g_mkdir_with_parents(presets, 0777), 0);
    for (int i = 1; i <= 4; i++)
        gal_test_copy_trip(photos, i, NULL);
    gal_test_copy_file(GAL_FIXTURES_DIR "/jen-loong-logo.png", logo);
    cr_assert(g_file_set_contents(table, "file\tcaption\ntrip-01.jpg\tThe start line\n"
                                         "trip-02.jpg\tKm 21\n",
        -1, NULL));
    preset = gal_test_write_preset(presets, "site.yaml", site_preset);
}

/* gallop ARGS... run from `dir` (env -C): its exit status, stdout and
 * stderr. */
static int
gallop_in(const char *dir, const char *const *args, char **out, char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();

    g_ptr_array_add(argv, "env");
    g_ptr_array_add(argv, "-C");
    g_ptr_array_add(argv, (gpointer) dir);
    g_ptr_array_add(argv, GAL_BINARY);
    for (int i = 0; args[i]; i++)
        g_ptr_array_add(argv, (gpointer) args[i]);
    g_ptr_array_add(argv, NULL);
    return gal_test_spawn((const char *const *) argv->pdata, out, err);
}

static const char *const run_site[] = { "run", "presets/site.yaml", "photos", "-o", "site",
    "-q", NULL };
static const char *const check_site[] = { "run", "presets/site.yaml", "photos", "-o", "site",
    "--check", NULL };
static const char *const dry_site[] = { "run", "presets/site.yaml", "photos", "-o", "site",
    "--dry-run", NULL };

static void
rename_tree(const char *from, const char *to)
{
    cr_assert_eq(rename(from, to), 0, "%s -> %s", from, to);
}

Test(moved, a_moved_tree_keeps_every_output_up_to_date)
{
    g_autofree char *tmp = gal_test_tmpdir("moved-tree");
    g_autofree char *a = g_build_filename(tmp, "a", NULL);
    g_autofree char *b = g_build_filename(tmp, "elsewhere", "b", NULL);
    g_autofree char *b_parent = g_path_get_dirname(b);
    g_autofree char *logo = g_build_filename(b, "logo.png", NULL);
    g_autofree char *table = g_build_filename(b, "captions.tsv", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    make_tree(a);
    cr_assert_eq(gallop_in(a, run_site, NULL, &err), 0, "%s", err);
    cr_assert_eq(g_mkdir_with_parents(b_parent, 0777), 0);
    rename_tree(a, b);

    /* Everything as it was: --check agrees, a dry run builds nothing. */
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop_in(b, check_site, &out, &err), 0, "%s%s", out, err);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop_in(b, dry_site, &out, &err), 0, "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "skip ", NULL), 4, "%s", out);
    cr_expect_eq(gal_test_count_lines(out, "build ", NULL), 0, "%s", out);

    /* One row of the table changed: its photo alone. */
    cr_assert(g_file_set_contents(table, "file\tcaption\ntrip-01.jpg\tThe start line\n"
                                         "trip-02.jpg\tKm 22\n",
        -1, NULL));
    g_clear_pointer(&out, g_free);
    cr_expect_eq(gallop_in(b, dry_site, &out, NULL), 0);
    cr_expect_eq(gal_test_count_lines(out, "build ", NULL), 1, "%s", out);
    cr_expect(strstr(out, "trip-02.jpg (dependency-changed: ../captions.tsv changed its row for "
                          "this photo)") != NULL,
        "%s", out);

    /* The logo changed: every photo it marks, by its content. */
    {
        g_autoptr(VipsImage) image = gal_test_load_image(GAL_FIXTURES_DIR "/trip/trip-05.jpg",
            FALSE);

        cr_assert_eq(vips_pngsave(image, logo, NULL), 0);
    }
    g_clear_pointer(&out, g_free);
    cr_expect_eq(gallop_in(b, dry_site, &out, NULL), 0);
    cr_expect_eq(gal_test_count_lines(out, "build ", NULL), 4, "%s", out);
    cr_expect(strstr(out, "(preset-changed: watermark.image sha256:") != NULL, "%s", out);
}

/* CI: the output folder is restored from a cache into a checkout at
 * another path (the same tree, another root). */
Test(moved, an_output_folder_restored_into_another_checkout_is_up_to_date)
{
    g_autofree char *tmp = gal_test_tmpdir("moved-cache");
    g_autofree char *first = g_build_filename(tmp, "runner-1", "build", NULL);
    g_autofree char *second = g_build_filename(tmp, "runner-2", "work", "build", NULL);
    g_autofree char *cached = g_build_filename(first, "site", NULL);
    g_autofree char *restored = g_build_filename(second, "site", NULL);
    g_autofree char *command = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    make_tree(first);
    cr_assert_eq(gallop_in(first, run_site, NULL, &err), 0, "%s", err);
    /* A fresh checkout: the same files, new times. */
    make_tree(second);
    command = g_strdup_printf("cp -a '%s' '%s'", cached, restored);
    cr_assert_eq(system(command), 0);
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop_in(second, check_site, &out, &err), 0, "%s%s", out, err);
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop_in(second, run_site, NULL, &err), 0, "%s", err);
    cr_expect(strstr(err, "0 written, 0 failed, 0 skipped, 4 up to date") != NULL, "%s", err);
}

/* A gallery publishing its photos' originals (download: original),
 * restored into a fresh checkout (new paths, new times): its pages, zip
 * and originals are up to date, nothing to build. */
Test(moved, published_originals_restored_into_another_checkout_are_up_to_date)
{
    static const char gallery_preset[] = "gallop: 1\n"
                                         "name: site\n"
                                         "stages:\n"
                                         "  - resize: {width: 96, height: 96, fit: inside}\n"
                                         "  - gallery: {sort: name, download: original}\n"
                                         "output: {name: \"{stem}.{ext}\", quality: 70,\n"
                                         "  remove-location: true}\n";
    g_autofree char *tmp = gal_test_tmpdir("moved-originals");
    g_autofree char *first = g_build_filename(tmp, "runner-1", "build", NULL);
    g_autofree char *second = g_build_filename(tmp, "runner-2", "work", "build", NULL);
    g_autofree char *cached = g_build_filename(first, "site", NULL);
    g_autofree char *restored = g_build_filename(second, "site", NULL);
    g_autofree char *original = g_build_filename(restored, "originals", "trip-01.jpg", NULL);
    g_autofree char *command = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    const char *trees[] = { first, second };

    for (int t = 0; t < 2; t++) {
        g_autofree char *presets = g_build_filename(trees[t], "presets", NULL);
        g_autofree char *preset = NULL;

        make_tree(trees[t]);
        preset = gal_test_write_preset(presets, "site.yaml", gallery_preset);
    }
    cr_assert_eq(gallop_in(first, run_site, NULL, &err), 0, "%s", err);
    command = g_strdup_printf("cp -a '%s' '%s'", cached, restored);
    cr_assert_eq(system(command), 0);
    cr_assert(g_file_test(original, G_FILE_TEST_IS_REGULAR), "no original was published");
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop_in(second, check_site, &out, &err), 0, "%s%s", out, err);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop_in(second, dry_site, &out, &err), 0, "%s", err);
    cr_expect_eq(gal_test_count_lines(out, "build ", NULL), 0, "%s", out);
}

/* The shards ran in one tree; the folder, copied with its photos to
 * another path, merges there. */
Test(moved, a_copied_folder_of_shards_merges)
{
    g_autofree char *tmp = gal_test_tmpdir("moved-shards");
    g_autofree char *a = g_build_filename(tmp, "a", NULL);
    g_autofree char *b = g_build_filename(tmp, "b", NULL);
    g_autofree char *command = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    const char *merge[] = { "merge", "presets/site.yaml", "-o", "site", NULL };

    make_tree(a);
    for (int k = 1; k <= 2; k++) {
        g_autofree char *shard = g_strdup_printf("%d/2", k);
        const char *args[] = { "run", "presets/site.yaml", "photos", "-o", "site", "-q",
            "--shard", shard, NULL };

        cr_assert_eq(gallop_in(a, args, NULL, &err), 0, "%s", err);
        g_clear_pointer(&err, g_free);
    }
    command = g_strdup_printf("cp -a '%s' '%s'", a, b);
    cr_assert_eq(system(command), 0);
    cr_expect_eq(gallop_in(b, merge, NULL, &err), 0, "%s", err);
    cr_expect(strstr(err, "merged: 4 photos: 4 done, 0 failed") != NULL, "%s", err);
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop_in(b, check_site, &out, &err), 0, "%s%s", out, err);
}
