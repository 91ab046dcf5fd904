/* Ctrl-C during a real run: the trip set ten times over (hard links),
 * signalled once photos start to appear. Exit 130 (143 for SIGTERM), no temporary file left,
 * every file under a final name decodes, and the manifest lists exactly
 * the outputs that were finished. A second signal stops at once. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(signals, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

static const char preset_yaml[] =
    "gallop: 1\n"
    "stages: [ {resize: {width: 1080, height: 1350, fit: cover, crop: attention, "
    "upscale: true}} ]\n"
    "output: {quality: 90}\n";

/* 230 photos: r0-trip-01.jpg ... r9-trip-23.jpg, hard links when possible. */
static void
trip_times_ten(const char *dir)
{
    g_autoptr(GPtrArray) names = gal_test_list_dir(TRIP_DIR);

    cr_assert_eq(g_mkdir_with_parents(dir, 0777), 0);
    for (int round = 0; round < 10; round++)
        for (guint i = 0; i < names->len; i++) {
            const char *name = names->pdata[i];
            g_autofree char *from = g_build_filename(TRIP_DIR, name, NULL);
            g_autofree char *as = g_strdup_printf("r%d-%s", round, name);
            g_autofree char *to = g_build_filename(dir, as, NULL);

            if (!g_str_has_prefix(name, "trip-"))
                continue;
            if (link(from, to) != 0)
                gal_test_copy_file(from, to);
        }
}

static GPid
start(const char *preset, const char *in, const char *out)
{
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-j", "2", "-q", NULL };
    g_autoptr(GError) error = NULL;
    GPid pid;

    cr_assert(g_spawn_async(NULL, (char **) argv, NULL,
                  G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                      G_SPAWN_STDERR_TO_DEV_NULL,
                  NULL, NULL, &pid, &error),
        "cannot start gallop: %s", error ? error->message : "");
    return pid;
}

/* Final outputs in `dir` (no hidden files). */
static int
count_outputs(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    int n = 0;

    if (!d)
        return 0;
    while ((name = g_dir_read_name(d)))
        n += name[0] != '.';
    g_dir_close(d);
    return n;
}

static void
wait_for_outputs(const char *dir, int n)
{
    gint64 deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;

    while (count_outputs(dir) < n) {
        cr_assert_lt(g_get_monotonic_time(), deadline, "no outputs appeared in %s", dir);
        g_usleep(20000);
    }
}

/* Exit status, and how long the wait took, in seconds. */
static int
wait_exit(GPid pid, double *seconds)
{
    gint64 t0 = g_get_monotonic_time();
    int status;

    cr_assert_eq(waitpid(pid, &status, 0), pid);
    *seconds = (g_get_monotonic_time() - t0) / 1e6;
    g_spawn_close_pid(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Every name in `dir` is a whole image, or (when allowed) a temporary. */
static GHashTable *
check_outputs(const char *dir, gboolean temporaries_allowed)
{
    g_autoptr(GPtrArray) names = gal_test_list_dir(dir);
    GHashTable *finals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autoptr(VipsImage) image = NULL;
        double avg;

        if (g_str_has_suffix(name, ".gallop-tmp")) {
            cr_expect(temporaries_allowed, "temporary left behind: %s", name);
            continue;
        }
        image = gal_test_load_image(path, TRUE);
        cr_expect_eq(vips_avg(image, &avg, NULL), 0, "%s does not decode: %s", name,
            vips_error_buffer());
        vips_error_clear();
        g_hash_table_add(finals, g_strdup(name));
    }
    return finals;
}

/* One signal: the run stops taking photos, abandons those in flight,
 * records what finished and exits 128 + the signal. */
static void
stops_cleanly_on(int sig, int status)
{
    g_autofree char *tmp = gal_test_tmpdir(sig == SIGINT ? "signals-int" : "signals-term");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autofree char *text = NULL;
    g_autoptr(GHashTable) finals = NULL;
    g_auto(GStrv) lines = NULL;
    double seconds;
    int recorded = 0;
    GPid pid;

    trip_times_ten(in);
    pid = start(preset, in, out);
    wait_for_outputs(out, 3);
    cr_assert_eq(kill(pid, sig), 0);
    cr_assert_eq(wait_exit(pid, &seconds), status);
    cr_expect_lt(seconds, 5, "took %.1f s to stop", seconds);

    finals = check_outputs(out, FALSE);
    cr_expect_gt(g_hash_table_size(finals), 2);
    cr_expect_lt(g_hash_table_size(finals), 230, "the run was not interrupted");
    text = gal_test_read_manifest(manifest);
    lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        g_auto(GStrv) f = NULL;

        if (!g_str_has_prefix(lines[i], "output\t"))
            continue;
        f = g_strsplit(lines[i], "\t", 3);
        cr_expect(g_hash_table_contains(finals, f[1]), "%s recorded but not there", f[1]);
        recorded++;
    }
    cr_expect_eq(recorded, (int) g_hash_table_size(finals),
        "%d recorded, %u outputs: the manifest must list exactly the finished ones", recorded,
        g_hash_table_size(finals));
}

Test(signals, sigint_stops_cleanly_and_records_what_finished)
{
    stops_cleanly_on(SIGINT, 130);
}

/* Schedulers (Slurm, Kubernetes) and `kill` stop a job with SIGTERM. */
Test(signals, sigterm_stops_cleanly_and_records_what_finished)
{
    stops_cleanly_on(SIGTERM, 143);
}

Test(signals, second_sigterm_exits_at_once_without_half_written_files)
{
    g_autofree char *tmp = gal_test_tmpdir("signals-twice");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    g_autoptr(GHashTable) finals = NULL;
    double seconds;
    GPid pid;

    trip_times_ten(in);
    pid = start(preset, in, out);
    wait_for_outputs(out, 2);
    cr_assert_eq(kill(pid, SIGTERM), 0);
    cr_assert_eq(kill(pid, SIGTERM), 0);
    cr_assert_eq(wait_exit(pid, &seconds), 143);
    cr_expect_lt(seconds, 1, "took %.2f s to stop", seconds);
    /* Hidden temporaries may remain; nothing under a final name is cut. */
    finals = check_outputs(out, TRUE);
    cr_expect_gt(g_hash_table_size(finals), 1);
}

/* SIGKILL (or a power cut) cannot be caught: each photo's records are
 * committed as it finishes, so what the records list is finished and is
 * not rebuilt next time. */
Test(signals, sigkill_keeps_the_outputs_recorded_so_far)
{
    g_autofree char *tmp = gal_test_tmpdir("signals-kill");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", preset_yaml);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autofree char *text = NULL;
    g_autofree char *dry = NULL;
    g_autoptr(GHashTable) finals = NULL;
    g_auto(GStrv) lines = NULL;
    gint64 deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-n", NULL };
    double seconds;
    int recorded = 0, up_to_date;
    GPid pid;

    trip_times_ten(in);
    pid = start(preset, in, out);
    while (gal_test_manifest_count(manifest, "kind = 'file'") < 1) {
        cr_assert_lt(g_get_monotonic_time(), deadline, "no record appeared in %s", out);
        g_usleep(5000);
    }
    cr_assert_eq(kill(pid, SIGKILL), 0);
    cr_assert_eq(wait_exit(pid, &seconds), 128 + SIGKILL);

    finals = check_outputs(out, TRUE);
    text = gal_test_read_manifest(manifest);
    lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        g_auto(GStrv) f = NULL;

        if (!g_str_has_prefix(lines[i], "output\t"))
            continue;
        f = g_strsplit(lines[i], "\t", 3);
        cr_expect(g_hash_table_contains(finals, f[1]), "%s recorded but not there", f[1]);
        recorded++;
    }
    cr_expect_gt(recorded, 0, "the manifest lists no output");
    /* The next run finds every recorded output up to date. */
    gal_test_spawn(argv, &dry, NULL);
    up_to_date = gal_test_count_lines(dry, "skip ", NULL);
    cr_expect_geq(up_to_date, recorded, "%d recorded, %d up to date", recorded, up_to_date);
}
