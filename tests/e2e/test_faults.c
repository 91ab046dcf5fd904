/* Faults around a run: a disk that fills up (a file-size limit stands in
 * for it), an output folder that cannot exist, and symbolic links in the
 * input tree (followed inside it, not out of it unless asked, loops
 * caught). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(faults, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

static const char preset_yaml[] =
    "gallop: 1\n"
    "stages: [ {resize: {width: 480, height: 480, fit: inside}} ]\n"
    "output: {quality: 95}\n";

static gint64
file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (gint64) st.st_size : -1;
}

/* With a file-size limit between the smallest and the largest output, the
 * small ones are written and recorded, the large ones fail naming their
 * path, and nothing is left half-written. */
Test(faults, a_full_disk_fails_the_photos_it_hits_and_keeps_the_rest)
{
    g_autofree char *tmp = gal_test_tmpdir("faults-full");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *probe = g_build_filename(tmp, "probe", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    const int photos[] = { 1, 3, 10, 18, 19, 22 };
    gint64 sizes[G_N_ELEMENTS(photos)], smallest = G_MAXINT64, largest = 0, limit;
    g_autofree char *command = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    const char *sh[] = { "bash", "-c", NULL, NULL };
    const char *free_run[] = { GAL_BINARY, "run", preset, in, "-o", probe, "-q", NULL };
    int small = 0, large = 0;

    for (guint i = 0; i < G_N_ELEMENTS(photos); i++)
        gal_test_copy_trip(in, photos[i], NULL);
    cr_assert_eq(gal_test_spawn(free_run, NULL, NULL), 0);
    for (guint i = 0; i < G_N_ELEMENTS(photos); i++) {
        g_autofree char *name = g_strdup_printf("trip-%02d.jpg", photos[i]);
        g_autofree char *path = g_build_filename(probe, name, NULL);

        sizes[i] = file_size(path);
        smallest = MIN(smallest, sizes[i]);
        largest = MAX(largest, sizes[i]);
    }
    cr_assert_lt(smallest + 2048, largest, "outputs too alike to split by size");
    limit = (smallest + largest) / 2 / 1024; /* bash counts 1024-byte blocks */
    /* SIGXFSZ ignored: a write past the limit fails with EFBIG instead. */
    command = g_strdup_printf("trap '' XFSZ; ulimit -f %" G_GINT64_FORMAT "; exec %s run %s %s "
                              "-o %s -q",
        limit, GAL_BINARY, preset, in, out);
    sh[2] = command;
    cr_assert_eq(gal_test_spawn(sh, NULL, &err), 1, "%s", err);
    text = gal_test_read_manifest(manifest);
    for (guint i = 0; i < G_N_ELEMENTS(photos); i++) {
        g_autofree char *name = g_strdup_printf("trip-%02d.jpg", photos[i]);
        g_autofree char *path = g_build_filename(out, name, NULL);
        g_autofree char *recorded = g_strdup_printf("output\t%s\t", name);
        g_autofree char *message = g_strdup_printf("cannot write %s: File too large", path);

        if (sizes[i] < limit * 1024) {
            g_autoptr(VipsImage) image = gal_test_load_image(path, TRUE);
            double avg;

            small++;
            cr_expect_eq(vips_avg(image, &avg, NULL), 0, "%s does not decode", path);
            cr_expect(strstr(text, recorded) != NULL, "%s not recorded", name);
        }
        else if (sizes[i] > limit * 1024) {
            large++;
            cr_expect_not(g_file_test(path, G_FILE_TEST_EXISTS), "%s written", path);
            cr_expect(strstr(err, message) != NULL, "no \"%s\" in:\n%s", message, err);
            cr_expect(strstr(text, recorded) == NULL, "%s recorded", name);
        }
    }
    cr_expect_gt(small, 0);
    cr_expect_gt(large, 0);
    {
        g_autoptr(GPtrArray) names = gal_test_list_dir(out);

        for (guint i = 0; i < names->len; i++)
            cr_expect_not(g_str_has_suffix(names->pdata[i], ".gallop-tmp"), "left: %s",
                (char *) names->pdata[i]);
    }
}

Test(faults, an_output_folder_that_cannot_exist_is_named)
{
    g_autofree char *tmp = gal_test_tmpdir("faults-notdir");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *blocker = g_build_filename(tmp, "file", NULL);
    g_autofree char *out = g_build_filename(blocker, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, NULL };
    g_autofree char *err = NULL;
    g_autofree char *message = g_strdup_printf("cannot create folder %s: Not a directory", out);

    gal_test_copy_trip(in, 1, NULL);
    gal_test_copy_trip(in, 2, NULL);
    cr_assert(g_file_set_contents(blocker, "not a folder", -1, NULL));
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 1, "%s", err);
    cr_expect(strstr(err, message) != NULL, "no \"%s\" in:\n%s", message, err);
    cr_expect(strstr(err, "0 written, 2 failed") != NULL, "%s", err);
}

/* ---- symbolic links ---------------------------------------------------------------- */

static void
symlink_tree(const char *tmp, char **in_out)
{
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *sub = g_build_filename(in, "sub", NULL);
    g_autofree char *elsewhere = g_build_filename(tmp, "elsewhere", NULL);
    g_autofree char *inner = g_build_filename(sub, "inner.jpg", NULL);
    g_autofree char *outside = g_build_filename(in, "outside.jpg", NULL);
    g_autofree char *linkdir = g_build_filename(in, "linkdir", NULL);
    g_autofree char *loop = g_build_filename(sub, "loop", NULL);
    g_autofree char *a = g_build_filename(in, "trip-01.jpg", NULL);
    g_autofree char *b = g_build_filename(elsewhere, "trip-02.jpg", NULL);

    gal_test_copy_trip(in, 1, NULL);
    gal_test_copy_trip(elsewhere, 2, NULL);
    gal_test_copy_trip(elsewhere, 3, NULL);
    cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
    cr_assert_eq(symlink("../trip-01.jpg", inner), 0);   /* inside: followed */
    cr_assert_eq(symlink(b, outside), 0);                /* a file outside */
    cr_assert_eq(symlink("../elsewhere", linkdir), 0);   /* a folder outside */
    cr_assert_eq(symlink("..", loop), 0);                /* back to in/ */
    (void) a;
    *in_out = g_steal_pointer(&in);
}

Test(faults, symlinks_stay_inside_the_input_tree_and_loops_are_caught)
{
    g_autofree char *tmp = gal_test_tmpdir("faults-links");
    g_autofree char *in = NULL;
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) names = NULL;
    g_autofree char *line = NULL;
    g_autofree char *loop_prefix = NULL;
    g_autofree char *outside_prefix = NULL;

    symlink_tree(tmp, &in);
    {
        const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };

        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    }
    names = gal_test_list_dir(out);
    /* Outputs keep the photos' folders ({dir}): sub/inner.jpg. */
    cr_assert_eq(names->len, 2, "%u outputs", names->len);
    cr_expect_str_eq(names->pdata[0], "sub");
    cr_expect_str_eq(names->pdata[1], "trip-01.jpg");
    {
        g_autofree char *inner = g_build_filename(out, "sub", "inner.jpg", NULL);

        cr_expect(g_file_test(inner, G_FILE_TEST_IS_REGULAR), "%s is missing", inner);
    }
    outside_prefix = g_strdup_printf("%s/outside.jpg: ", in);
    cr_assert_eq(gal_test_count_lines(err, outside_prefix, &line), 1, "%s", err);
    cr_expect(strstr(line, "outside the input folder: not followed (--follow-symlinks") != NULL,
        "%s", line);
    g_clear_pointer(&line, g_free);
    cr_expect(strstr(err, "/linkdir: a symbolic link to ") != NULL, "%s", err);
    loop_prefix = g_strdup_printf("%s/sub/loop: ", in);
    cr_assert_eq(gal_test_count_lines(err, loop_prefix, &line), 1, "%s", err);
    cr_expect(strstr(line, "symbolic link loop") != NULL, "%s", line);

    /* --follow-symlinks: the outside photos too; the loop is still caught. */
    g_clear_pointer(&err, g_free);
    {
        const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q",
            "--follow-symlinks", NULL };

        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    }
    g_ptr_array_unref(names);
    names = gal_test_list_dir(out);
    /* linkdir, outside.jpg, sub, trip-01.jpg; linkdir holds two. */
    cr_expect_eq(names->len, 4, "%u outputs", names->len);
    {
        g_autofree char *linked = g_build_filename(out, "linkdir", "trip-03.jpg", NULL);

        cr_expect(g_file_test(linked, G_FILE_TEST_IS_REGULAR), "%s is missing", linked);
    }
    cr_expect(strstr(err, "symbolic link loop") != NULL, "%s", err);
    cr_expect(strstr(err, "outside the input folder") == NULL, "%s", err);
}

/* ---- one run per output folder ------------------------------------------------------ */

Test(faults, temporary_files_of_a_killed_run_are_removed_and_nothing_else)
{
    g_autofree char *tmp = gal_test_tmpdir("faults-leftovers");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sub = g_build_filename(out, "sub", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    const char *leftovers[] = { ".trip-09.jpg.Ab12Cd.gallop-tmp", "sub/.x.jpg.QQ12zz.gallop-tmp",
        ".gallop-manifest.tsv.Zz99Yy.gallop-tmp" };
    const char *kept[] = { "notes.gallop-tmp", "sub/.hidden.jpg", "photo.jpg" };
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, NULL };
    g_autofree char *err = NULL;

    gal_test_copy_trip(in, 1, NULL);
    cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
    for (size_t i = 0; i < G_N_ELEMENTS(leftovers); i++) {
        g_autofree char *path = g_build_filename(out, leftovers[i], NULL);
        g_autofree char *keep = g_build_filename(out, kept[i], NULL);

        cr_assert(g_file_set_contents(path, "half a JPEG", -1, NULL));
        cr_assert(g_file_set_contents(keep, "the user's", -1, NULL));
    }
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    cr_expect(strstr(err, "removed 3 temporary files left in") != NULL, "%s", err);
    for (size_t i = 0; i < G_N_ELEMENTS(leftovers); i++) {
        g_autofree char *path = g_build_filename(out, leftovers[i], NULL);
        g_autofree char *keep = g_build_filename(out, kept[i], NULL);

        cr_expect_not(g_file_test(path, G_FILE_TEST_EXISTS), "%s is still there", leftovers[i]);
        cr_expect(g_file_test(keep, G_FILE_TEST_EXISTS), "%s was removed", kept[i]);
    }
}

Test(faults, a_second_run_into_the_same_folder_is_refused_while_the_first_writes)
{
    g_autofree char *tmp = gal_test_tmpdir("faults-locked");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *written = g_build_filename(out, "trip-01.jpg", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    const char *run[] = { GAL_BINARY, "run", preset, in, "-o", out, NULL };
    const char *dry[] = { GAL_BINARY, "run", preset, in, "-o", out, "--dry-run", NULL };
    g_autofree char *err = NULL;
    g_autofree char *dry_out = NULL;
    int held;

    gal_test_copy_trip(in, 1, NULL);
    cr_assert_eq(g_mkdir_with_parents(out, 0777), 0);
    /* This test process stands in for the run in progress. */
    held = open(out, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(held, 0);
    cr_assert_eq(flock(held, LOCK_EX | LOCK_NB), 0);

    cr_expect_eq(gal_test_spawn(run, NULL, &err), 2, "%s", err);
    cr_expect(strstr(err, "another gallop run is writing to") != NULL, "%s", err);
    cr_expect_not(g_file_test(written, G_FILE_TEST_EXISTS), "nothing is written");
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gal_test_spawn(dry, &dry_out, &err), 0, "a dry run only looks: %s", err);
    cr_expect(strstr(dry_out, "build ") != NULL, "%s", dry_out);

    close(held);
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gal_test_spawn(run, NULL, &err), 0, "%s", err);
    cr_expect(g_file_test(written, G_FILE_TEST_EXISTS));
}
