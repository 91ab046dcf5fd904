/* Sharded runs (issue 16): N shards run at once into one folder, then
 * merged, leave what one run leaves (outputs, contact sheets and report
 * byte for byte, timings aside); a shard tried again rebuilds nothing;
 * a killed shard leaves no partial file, and the merge names what is
 * missing; --shard auto reads each scheduler's environment. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gal_test.h"
#include "gal_test_json.h"
#include "shard.h"

/* A preset with a file per photo (a caption from EXIF) and contact
 * sheets whose labels show what only the merge knows (the place on the
 * sheets, the count) and what only the shard read (camera, date), in
 * date order, several pages. */
static const char photos_preset[] =
    "gallop: 1\n"
    "name: posts\n"
    "stages:\n"
    "  - resize: {width: 160, height: 160, fit: inside}\n"
    "  - caption-burn: {size: 7%, max-lines: 2}\n"
    "  - contact-sheet: {columns: 4, tile: 64, per-page: 9, sort: date, gap: 4,\n"
    "      label: \"{index}/{count} {camera|?} {date:%a %H:%M}\", title: \"{preset}: {count}\"}\n"
    "output: {name: \"{stem}.{ext}\", format: jpeg, quality: 80}\n";

/* Contact sheets only: the photos are known by size and time. */
static const char sheets_preset[] =
    "gallop: 1\n"
    "name: proof\n"
    "stages:\n"
    "  - resize: {width: 72, height: 72, fit: inside}\n"
    "  - contact-sheet: {file: \"proof-{page}.png\", columns: 5, tile: 72, per-page: 10}\n"
    "output: {photos: false}\n";

static char *
trip_dir(void)
{
    return g_build_filename(GAL_FIXTURES_DIR, "trip", NULL);
}

/* gallop ARGS... with a hang guard; its exit status. ARGS may start with
 * "-C", DIR: run from DIR. */
static int
gallop(const char *const *args, char **out, char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();

    /* No scheduler of the machine the tests run on may choose a shard. */
    for (const char *const *v = (const char *const[]) { "env", "-u", "SLURM_ARRAY_TASK_ID",
             "-u", "JOB_COMPLETION_INDEX", "-u", "CI_NODE_INDEX", "-u", "GALLOP_SHARDS", NULL };
         *v; v++)
        g_ptr_array_add(argv, (gpointer) *v);
    /* "-C DIR" first: run from that folder. */
    if (strcmp(args[0], "-C") == 0) {
        g_ptr_array_add(argv, "-C");
        g_ptr_array_add(argv, (gpointer) args[1]);
        args += 2;
    }
    g_ptr_array_add(argv, GAL_BINARY);
    for (int i = 0; args[i]; i++)
        g_ptr_array_add(argv, (gpointer) args[i]);
    g_ptr_array_add(argv, NULL);
    return gal_test_spawn_limited((const char *const *) argv->pdata, 300, out, err, NULL);
}

/* Start gallop ARGS... without waiting; its stderr goes to `log`. */
static GPid
start(const char *const *args, const char *log)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_autoptr(GError) error = NULL;
    GPid pid = 0;

    g_ptr_array_add(argv, "/bin/sh");
    g_ptr_array_add(argv, "-c");
    g_ptr_array_add(argv, "log=$1; shift; exec env -u SLURM_ARRAY_TASK_ID -u "
                          "JOB_COMPLETION_INDEX -u CI_NODE_INDEX \"$@\" >/dev/null 2>\"$log\"");
    g_ptr_array_add(argv, "sh");
    g_ptr_array_add(argv, (gpointer) log);
    g_ptr_array_add(argv, GAL_BINARY);
    for (int i = 0; args[i]; i++)
        g_ptr_array_add(argv, (gpointer) args[i]);
    g_ptr_array_add(argv, NULL);
    cr_assert(g_spawn_async(NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                  NULL, &pid, &error),
        "spawn: %s", error ? error->message : "?");
    return pid;
}

static int
wait_exit(GPid pid)
{
    int status = 0;

    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *
read_text(const char *path)
{
    char *text = NULL;

    g_file_get_contents(path, &text, NULL, NULL);
    return text ? text : g_strdup("");
}

/* Shards 1..n of the presets, all at once, into `out`; each must exit
 * `status`. */
static void
run_shards(const char *const *presets, const char *in, const char *out, int n, const char *tmp,
    int status_wanted)
{
    GPid pids[16];

    cr_assert(n <= 16);
    for (int k = 1; k <= n; k++) {
        g_autofree char *shard = g_strdup_printf("%d/%d", k, n);
        g_autofree char *log = g_strdup_printf("%s/shard-%d-of-%d.log", tmp, k, n);
        g_autoptr(GPtrArray) args = g_ptr_array_new();

        g_ptr_array_add(args, "run");
        for (int p = 0; presets[p]; p++)
            g_ptr_array_add(args, (gpointer) presets[p]);
        for (const char *const *v = (const char *const[]) { in, "-o", out, "-j", "1", "-q",
                 "--shard", shard, NULL };
             *v; v++)
            g_ptr_array_add(args, (gpointer) *v);
        g_ptr_array_add(args, NULL);
        pids[k - 1] = start((const char *const *) args->pdata, log);
    }
    for (int k = 1; k <= n; k++) {
        g_autofree char *log = g_strdup_printf("%s/shard-%d-of-%d.log", tmp, k, n);
        int status = wait_exit(pids[k - 1]);
        g_autofree char *text = read_text(log);

        cr_assert_eq(status, status_wanted, "shard %d/%d exited %d:\n%s", k, n, status, text);
    }
}

/* The report with what differs between any two runs taken out: timings,
 * memory, and the output folder's own path. */
static char *
comparable_report(const char *path, const char *out_dir)
{
    g_autofree char *text = read_text(path);
    g_autoptr(GRegex) numbers = g_regex_new(
        "\"(total_seconds|hash_seconds|elapsed_seconds|peak_memory_bytes)\":[0-9.e+-]+", 0, 0,
        NULL);
    g_autofree char *timeless = g_regex_replace(numbers, text, -1, 0, "\"\\1\":0", 0, NULL);
    g_auto(GStrv) parts = g_strsplit(timeless, out_dir, -1);

    return g_strjoinv("OUT", parts);
}

/* Every file in `a` (a one run's folder, hidden ones and folders aside)
 * is in `b` with the same bytes, and `b` has no other. */
static void
expect_same_files(const char *a, const char *b, int *count)
{
    g_autoptr(GPtrArray) names_a = gal_test_list_dir(a);
    g_autoptr(GPtrArray) names_b = gal_test_list_dir(b);
    g_autoptr(GPtrArray) shown_a = g_ptr_array_new();
    g_autoptr(GPtrArray) shown_b = g_ptr_array_new();

    for (guint i = 0; i < names_a->len; i++) {
        g_autofree char *path = g_build_filename(a, names_a->pdata[i], NULL);

        if (((char *) names_a->pdata[i])[0] != '.' && !g_file_test(path, G_FILE_TEST_IS_DIR))
            g_ptr_array_add(shown_a, names_a->pdata[i]);
    }
    for (guint i = 0; i < names_b->len; i++) {
        g_autofree char *path = g_build_filename(b, names_b->pdata[i], NULL);

        if (((char *) names_b->pdata[i])[0] != '.' && !g_file_test(path, G_FILE_TEST_IS_DIR))
            g_ptr_array_add(shown_b, names_b->pdata[i]);
    }
    cr_assert_eq(shown_a->len, shown_b->len, "%u files in %s, %u in %s", shown_a->len, a,
        shown_b->len, b);
    for (guint i = 0; i < shown_a->len; i++) {
        g_autofree char *pa = g_build_filename(a, shown_a->pdata[i], NULL);
        g_autofree char *pb = g_build_filename(b, shown_b->pdata[i], NULL);
        gsize la, lb;
        g_autofree char *da = NULL;
        g_autofree char *db = NULL;

        cr_assert_str_eq(shown_a->pdata[i], shown_b->pdata[i]);
        da = gal_test_read_bytes(pa, &la);
        db = gal_test_read_bytes(pb, &lb);
        cr_expect(la == lb && memcmp(da, db, la) == 0, "%s differs from one run's", pb);
    }
    *count = (int) shown_a->len;
}

Test(shards, merged_equals_one_run, .timeout = 600)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-equal");
    g_autofree char *trip = trip_dir();
    g_autofree char *posts = gal_test_write_preset(tmp, "posts.yaml", photos_preset);
    g_autofree char *proof = gal_test_write_preset(tmp, "proof.yaml", sheets_preset);
    g_autofree char *one = g_build_filename(tmp, "one", NULL);
    g_autofree char *one_report = g_build_filename(tmp, "one.json", NULL);
    const char *presets[] = { posts, proof, NULL };
    g_autofree char *one_text = NULL;

    cr_assert_eq(gallop((const char *const[]) { "run", posts, proof, trip, "-o", one, "-q",
                            "--report", one_report, NULL },
                     NULL, NULL),
        0);
    one_text = comparable_report(one_report, one);
    for (int n = 1; n <= 4; n++) {
        g_autofree char *name = g_strdup_printf("sharded-%d", n);
        g_autofree char *out = g_build_filename(tmp, name, NULL);
        g_autofree char *report = g_strdup_printf("%s.json", out);
        g_autofree char *err = NULL;
        g_autofree char *check_err = NULL;
        g_autofree char *text = NULL;
        g_autofree char *posts_one = g_build_filename(one, "posts", NULL);
        g_autofree char *posts_out = g_build_filename(out, "posts", NULL);
        g_autofree char *proof_one = g_build_filename(one, "proof", NULL);
        g_autofree char *proof_out = g_build_filename(out, "proof", NULL);
        g_autofree char *parts = NULL;
        int files = 0, sheets = 0;

        run_shards(presets, trip, out, n, tmp, 0);
        /* Each shard left its part, and no manifest or sheet yet. */
        for (int k = 1; k <= n; k++) {
            g_autofree char *part = g_strdup_printf("%s/.gallop-manifest.%d-of-%d.db",
                posts_out, k, n);

            cr_expect(g_file_test(part, G_FILE_TEST_IS_REGULAR), "no %s", part);
        }
        parts = g_build_filename(posts_out, "contact-1.jpg", NULL);
        cr_expect_not(g_file_test(parts, G_FILE_TEST_EXISTS), "a shard made a contact sheet");

        cr_assert_eq(gallop((const char *const[]) { "merge", posts, proof, "-o", out,
                                "--report", report, NULL },
                         NULL, &err),
            0, "merge of %d shards: %s", n, err);
        expect_same_files(posts_one, posts_out, &files);
        cr_expect_eq(files, 23 + 3, "23 posts and 3 contact sheets, got %d files", files);
        expect_same_files(proof_one, proof_out, &sheets);
        cr_expect_eq(sheets, 3, "23 photos on 3 proof sheets, got %d", sheets);
        text = comparable_report(report, out);
        cr_expect_str_eq(text, one_text, "the report of %d merged shards differs from one run's",
            n);
        /* The parts are joined, and the result is up to date. */
        cr_expect_eq(gallop((const char *const[]) { "run", posts, proof, trip, "-o", out,
                                "--check", NULL },
                         NULL, &check_err),
            0, "--check after merging %d shards: %s", n, check_err);
        g_free(parts);
        parts = g_strdup_printf("%s/.gallop-manifest.1-of-%d.db", posts_out, n);
        cr_expect_not(g_file_test(parts, G_FILE_TEST_EXISTS), "the merge left %s", parts);
    }
}

/* A shard run again (a rescheduled pod, a requeued array task) finds what
 * it made up to date: nothing is written again. */
Test(shards, retried_shard_rebuilds_nothing)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-retry");
    g_autofree char *trip = trip_dir();
    g_autofree char *posts = gal_test_write_preset(tmp, "posts.yaml", photos_preset);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *first = NULL;
    g_autofree char *again = NULL;
    g_autoptr(GPtrArray) before = NULL;
    g_autoptr(GPtrArray) sums = g_ptr_array_new_with_free_func(g_free);

    cr_assert_eq(gallop((const char *const[]) { "run", posts, trip, "-o", out, "--shard", "2/3",
                            NULL },
                     NULL, &first),
        0, "%s", first);
    cr_assert(strstr(first, "0 up to date"), "%s", first);
    before = gal_test_list_dir(out);
    for (guint i = 0; i < before->len; i++) {
        g_autofree char *path = g_build_filename(out, before->pdata[i], NULL);
        struct stat st;

        cr_assert_eq(stat(path, &st), 0);
        g_ptr_array_add(sums, S_ISREG(st.st_mode)
                ? g_strdup_printf("%s %ld.%09ld", (char *) before->pdata[i], (long) st.st_mtim.tv_sec,
                      st.st_mtim.tv_nsec)
                : g_strdup(before->pdata[i]));
    }
    cr_assert_eq(gallop((const char *const[]) { "run", posts, trip, "-o", out, "--shard", "2/3",
                            NULL },
                     NULL, &again),
        0, "%s", again);
    cr_expect(strstr(again, " 0 written"), "the retry wrote something:\n%s", again);
    /* Every file as it was, to the nanosecond. */
    {
        g_autoptr(GPtrArray) after = gal_test_list_dir(out);

        cr_assert_eq(after->len, before->len);
        for (guint i = 0; i < after->len; i++) {
            g_autofree char *path = g_build_filename(out, after->pdata[i], NULL);
            g_autofree char *now = NULL;
            struct stat st;

            cr_assert_eq(stat(path, &st), 0);
            now = S_ISREG(st.st_mode) && strcmp(after->pdata[i], ".gallop-manifest.2-of-3.db")
                ? g_strdup_printf("%s %ld.%09ld", (char *) after->pdata[i],
                      (long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec)
                : NULL;
            if (now)
                cr_expect_str_eq(now, sums->pdata[i], "%s was written again", path);
        }
    }
}

/* Whether the file at `path` holds `text` (FALSE while it is not there). */
static gboolean
recorded(const char *path, const char *where)
{
    return gal_test_manifest_count(path, where) > 0;
}

/* A shard tried again after it built photos, whether its first try
 * finished or was killed part-way, finds them up to date; the merge still
 * reports them as built, as one run over the same photos does (issue 16:
 * the report after a merge is one run's). */
Test(shards, retried_shard_reports_as_one_run, .timeout = 600)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-retry-report");
    g_autofree char *trip = trip_dir();
    g_autofree char *posts = gal_test_write_preset(tmp, "posts.yaml", photos_preset);
    g_autofree char *one = g_build_filename(tmp, "one", NULL);
    g_autofree char *one_report = g_build_filename(tmp, "one.json", NULL);
    g_autofree char *one_text = NULL;

    cr_assert_eq(gallop((const char *const[]) { "run", posts, trip, "-o", one, "-q",
                            "--report", one_report, NULL },
                     NULL, NULL),
        0);
    one_text = comparable_report(one_report, one);
    for (int killed = 0; killed <= 1; killed++) {
        g_autofree char *out = g_build_filename(tmp, killed ? "killed" : "finished", NULL);
        g_autofree char *report = g_strdup_printf("%s.json", out);
        g_autofree char *part = g_build_filename(out, ".gallop-manifest.1-of-2.db", NULL);
        g_autofree char *log = g_strdup_printf("%s.log", out);
        g_autofree char *again = NULL;
        g_autofree char *err = NULL;
        g_autofree char *text = NULL;
        GPid pid = start((const char *const[]) { "run", posts, trip, "-o", out, "-j", "1", "-q",
                             "--shard", "1/2", NULL },
            log);

        if (killed) {
            /* Killed once it has recorded a photo it built. */
            for (int wait = 0; wait < 3000 && !recorded(part, "kind = 'file'"); wait++)
                g_usleep(10000);
            kill(pid, SIGKILL);
        }
        cr_assert_eq(wait_exit(pid), killed ? 128 + SIGKILL : 0, "shard 1/2, first try");
        cr_assert_eq(gallop((const char *const[]) { "run", posts, trip, "-o", out, "-j", "1",
                                "--shard", "1/2", NULL },
                         NULL, &again),
            0, "%s", again);
        cr_expect(!strstr(again, " 0 up to date"), "the retry built it all again:\n%s", again);
        cr_assert_eq(gallop((const char *const[]) { "run", posts, trip, "-o", out, "-j", "1",
                                "-q", "--shard", "2/2", NULL },
                         NULL, NULL),
            0);
        cr_assert_eq(gallop((const char *const[]) { "merge", posts, "-o", out, "--report", report,
                                NULL },
                         NULL, &err),
            0, "%s", err);
        text = comparable_report(report, out);
        cr_expect_str_eq(text, one_text,
            "the report of a merge after shard 1 was %s and tried again differs from one run's",
            killed ? "killed" : "finished");
    }
}

/* A shard killed part-way leaves finished outputs and hidden temporary
 * files only; the merge refuses, naming it; run again, it finishes what
 * was left, and the merge goes through. */
Test(shards, killed_shard_is_named_then_resumed, .timeout = 300)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-killed");
    g_autofree char *trip = trip_dir();
    g_autofree char *posts = gal_test_write_preset(tmp, "posts.yaml", photos_preset);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *log = g_build_filename(tmp, "killed.log", NULL);
    g_autofree char *err = NULL;
    g_autofree char *resumed = NULL;
    g_autofree char *merged = NULL;
    g_autofree char *first_output = g_build_filename(out, "trip-01.jpg", NULL);
    g_autofree char *part = g_build_filename(out, ".gallop-manifest.1-of-1.db", NULL);
    GPid pid = start((const char *const[]) { "run", posts, trip, "-o", out, "-j", "1",
                         "--shard", "1/1", NULL },
        log);
    int written = 0;

    /* Killed once its first output is there and recorded in its part. */
    for (int wait = 0; wait < 3000 && !recorded(part, "output = 'trip-01.jpg'"); wait++)
        g_usleep(10000);
    cr_assert(g_file_test(first_output, G_FILE_TEST_EXISTS));
    kill(pid, SIGKILL);
    wait_exit(pid);
    {
        g_autoptr(GPtrArray) names = gal_test_list_dir(out);

        for (guint i = 0; i < names->len; i++) {
            const char *name = names->pdata[i];
            g_autofree char *path = g_build_filename(out, name, NULL);

            if (name[0] == '.')
                continue;
            /* Whatever has a final name is whole. */
            g_autoptr(VipsImage) image = gal_test_load_image(path, TRUE);
            cr_expect_gt(vips_image_get_height(image), 0);
            written++;
        }
    }
    cr_assert_lt(written, 23, "the shard finished before it was killed");
    cr_assert_eq(gallop((const char *const[]) { "merge", posts, "-o", out, NULL }, NULL, &err),
        1, "%s", err);
    cr_expect(strstr(err, "shard 1 of 1 did not finish"), "%s", err);
    cr_expect(strstr(err, "--shard 1/1"), "%s", err);
    cr_assert_eq(gallop((const char *const[]) { "run", posts, trip, "-o", out, "--shard", "1/1",
                            NULL },
                     NULL, &resumed),
        0, "%s", resumed);
    {
        g_autofree char *expect = g_strdup_printf("%d written", 23 - written);

        /* What the killed try recorded is not made again (an output
         * after the first may have landed unrecorded: it is made again). */
        cr_expect(strstr(resumed, expect) || written > 1, "%s", resumed);
        cr_expect(!strstr(resumed, " 0 up to date"), "%s", resumed);
    }
    cr_expect_eq(gallop((const char *const[]) { "merge", posts, "-o", out, NULL }, NULL,
                     &merged),
        0, "%s", merged);
    cr_expect_eq(gallop((const char *const[]) { "run", posts, trip, "-o", out, "--check", NULL },
                     NULL, NULL),
        0);
}

/* A shard that never ran: the merge exits 1 naming it and every photo it
 * was to build, and changes nothing. */
Test(shards, missing_shard_is_named_with_its_photos)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-missing");
    g_autofree char *trip = trip_dir();
    g_autofree char *posts = gal_test_write_preset(tmp, "posts.yaml", photos_preset);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *err = NULL;
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autoptr(GPtrArray) names = NULL;
    int missing = 0;

    for (int k = 1; k <= 3; k += 2) {
        g_autofree char *shard = g_strdup_printf("%d/3", k);

        cr_assert_eq(gallop((const char *const[]) { "run", posts, trip, "-o", out, "-q",
                                "--shard", shard, NULL },
                         NULL, NULL),
            0);
    }
    cr_assert_eq(gallop((const char *const[]) { "merge", posts, "-o", out, NULL }, NULL, &err),
        1, "%s", err);
    cr_expect(strstr(err, "shard 2 of 3 has not run (no part)"), "%s", err);
    /* The photos named are those whose outputs are not there. */
    for (int i = 1; i <= 23; i++) {
        g_autofree char *name = g_strdup_printf("trip-%02d.jpg", i);
        g_autofree char *output = g_build_filename(out, name, NULL);

        if (!g_file_test(output, G_FILE_TEST_EXISTS))
            missing++;
    }
    {
        g_autofree char *count = g_strdup_printf("its %d photo", missing);

        cr_expect(missing > 0 && strstr(err, count), "%d missing; %s", missing, err);
        cr_expect(strstr(err, "/trip/trip-") && !strstr(err, "(null)"),
            "the photos are not named: %s", err);
    }
    cr_expect_not(g_file_test(manifest, G_FILE_TEST_EXISTS), "the failed merge wrote a manifest");
    names = gal_test_list_dir(out);
    for (guint i = 0; i < names->len; i++)
        cr_expect(!g_str_has_prefix(names->pdata[i], "contact-"), "a sheet was made: %s",
            (char *) names->pdata[i]);
}

/* Photos added after the shards ran, and a merge given other preset
 * values, are refused with what to do. */
Test(shards, merge_refuses_other_photos_and_values)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-other");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *posts = gal_test_write_preset(tmp, "posts.yaml", photos_preset);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *err = NULL;
    g_autofree char *err2 = NULL;

    for (int i = 1; i <= 4; i++)
        gal_test_copy_trip(in, i, NULL);
    for (int k = 1; k <= 2; k++) {
        g_autofree char *shard = g_strdup_printf("%d/2", k);

        cr_assert_eq(gallop((const char *const[]) { "run", posts, in, "-o", out, "-q",
                                "--shard", shard, NULL },
                         NULL, NULL),
            0);
    }
    cr_assert_eq(gallop((const char *const[]) { "merge", posts, "-o", out, "--set",
                            "resize.width=100", NULL },
                     NULL, &err2),
        2, "%s", err2);
    cr_expect(strstr(err2, "other values") && strstr(err2, "resize.width"), "%s", err2);
    gal_test_copy_trip(in, 5, NULL);
    cr_assert_eq(gallop((const char *const[]) { "merge", posts, "-o", out, NULL }, NULL, &err),
        1, "%s", err);
    cr_expect(strstr(err, "trip-05.jpg: not in the part of its shard"), "%s", err);
}

/* --shard auto in each scheduler's environment. */
Test(shards, auto_reads_each_scheduler)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-auto");
    g_autofree char *trip = trip_dir();
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    static const struct {
        const char *env[4];
        const char *args[3];
        int status;
        const char *says;
    } cases[] = {
        { { "SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=4", "SLURM_ARRAY_TASK_COUNT=3" }, { 0 },
            0, "shard 2 of 3 (Slurm array task 5)" },
        { { "SLURM_ARRAY_TASK_ID=8", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=4",
              "SLURM_ARRAY_TASK_STEP=4" }, { 0 }, 0, "shard 3 of 4 (Slurm array task 8)" },
        { { "SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=3" }, { 0 },
            2, "is not one of evenly spaced tasks" },
        { { "JOB_COMPLETION_INDEX=0" }, { "--shards", "4" }, 0,
            "shard 1 of 4 (Kubernetes completion index 0)" },
        { { "JOB_COMPLETION_INDEX=3", "GALLOP_SHARDS=4" }, { 0 }, 0,
            "shard 4 of 4 (Kubernetes completion index 3)" },
        { { "JOB_COMPLETION_INDEX=1" }, { 0 }, 2, "give --shards N or set GALLOP_SHARDS" },
        { { "JOB_COMPLETION_INDEX=4", "GALLOP_SHARDS=4" }, { 0 }, 2, "there are 4 shards" },
        { { "CI_NODE_INDEX=3", "CI_NODE_TOTAL=3" }, { 0 }, 0, "shard 3 of 3 (GitLab parallel job 3)" },
        { { "CI_NODE_INDEX=4", "CI_NODE_TOTAL=3" }, { 0 }, 2, "is not a job of a `parallel:` set" },
        { { "CI_NODE_INDEX=2", "CI_NODE_TOTAL=3" }, { "--shards", "4" }, 2,
            "--shards 4, but the GitLab parallel job 2 is one of 3" },
        { { 0 }, { 0 }, 2, "no scheduler says which shard this is" },
    };

    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_autofree char *err = NULL;
        int status;

        for (const char *const *v = (const char *const[]) { "env", "-u", "SLURM_ARRAY_TASK_ID",
                 "-u", "SLURM_ARRAY_TASK_MIN", "-u", "SLURM_ARRAY_TASK_COUNT", "-u",
                 "SLURM_ARRAY_TASK_STEP", "-u", "JOB_COMPLETION_INDEX", "-u", "GALLOP_SHARDS",
                 "-u", "CI_NODE_INDEX", "-u", "CI_NODE_TOTAL", NULL };
             *v; v++)
            g_ptr_array_add(argv, (gpointer) *v);
        for (int e = 0; e < 4 && cases[c].env[e]; e++)
            g_ptr_array_add(argv, (gpointer) cases[c].env[e]);
        for (const char *const *v = (const char *const[]) { GAL_BINARY, "run",
                 "instagram-square", trip, "-o", out, "--dry-run", "--shard", "auto", NULL };
             *v; v++)
            g_ptr_array_add(argv, (gpointer) *v);
        for (int a = 0; a < 3 && cases[c].args[a]; a++)
            g_ptr_array_add(argv, (gpointer) cases[c].args[a]);
        g_ptr_array_add(argv, NULL);
        status = gal_test_spawn_limited((const char *const *) argv->pdata, 120, NULL, &err, NULL);
        cr_expect_eq(status, cases[c].status, "case %zu: exit %d:\n%s", c, status, err);
        cr_expect(strstr(err, cases[c].says), "case %zu: wanted \"%s\" in:\n%s", c,
            cases[c].says, err);
    }
}

Test(shards, bad_values_are_usage_errors)
{
    static const char *const values[][2] = {
        { "0/3", "takes K/N" }, { "4/3", "takes K/N" }, { "2", "takes K/N" },
        { "a/b", "takes K/N" }, { "1/0", "takes K/N" },
    };
    g_autofree char *tmp = gal_test_tmpdir("shards-bad");
    g_autofree char *trip = trip_dir();
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *err = NULL;

    for (size_t v = 0; v < G_N_ELEMENTS(values); v++) {
        g_autofree char *e = NULL;

        cr_expect_eq(gallop((const char *const[]) { "run", "instagram-square", trip, "-o", out,
                                "--shard", values[v][0], NULL },
                         NULL, &e),
            2, "--shard %s", values[v][0]);
        cr_expect(strstr(e, values[v][1]), "--shard %s: %s", values[v][0], e);
    }
    cr_expect_eq(gallop((const char *const[]) { "run", "instagram-square", trip, "-o", out,
                            "--shard", "1/2", "--prune", NULL },
                     NULL, &err),
        2);
    cr_expect(strstr(err, "--prune"), "%s", err);
    cr_expect_not(g_file_test(out, G_FILE_TEST_EXISTS), "a refused run made %s", out);
}

/* Names from EXIF: a shard reads only its own photos' headers, so two
 * shards may both write one name. The merge refuses the later photo, as
 * one run does, and fails the first unless its file is still its own; a
 * run afterwards makes what one run makes. */
Test(shards, names_from_exif_clashing_across_shards)
{
    static const char preset[] = "gallop: 1\n"
                                 "name: clash\n"
                                 "stages:\n"
                                 "  - resize: {width: 64, height: 64, fit: inside}\n"
                                 "output: {name: \"{camera|none}.{ext}\", format: jpeg}\n";
    g_autofree char *tmp = gal_test_tmpdir("shards-clash");
    g_autofree char *trip = trip_dir();
    g_autofree char *p = gal_test_write_preset(tmp, "clash.yaml", preset);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *one = g_build_filename(tmp, "one", NULL);
    g_autofree char *err = NULL;
    g_autofree char *after = NULL;
    const char *presets[] = { p, NULL };
    int files = 0;

    cr_assert_eq(gallop((const char *const[]) { "run", p, trip, "-o", one, "-q", NULL }, NULL,
                     NULL),
        1, "one photo gets the name, 22 are refused");
    /* Each shard refuses its own photos after its first. */
    run_shards(presets, trip, out, 3, tmp, 1);
    cr_assert_eq(gallop((const char *const[]) { "merge", p, "-o", out, NULL }, NULL, &err), 1,
        "%s", err);
    /* Refused as in one run: every photo but the first. */
    cr_expect_eq(gal_test_count_lines(err, "  ", NULL), 22 + (strstr(err, "was replaced by") != NULL),
        "%s", err);
    cr_expect(strstr(err, "trip-23.jpg: its output") && strstr(err, "is already the output of"),
        "%s", err);
    cr_expect_eq(gallop((const char *const[]) { "run", p, trip, "-o", out, NULL }, NULL, &after),
        1, "%s", after);
    expect_same_files(one, out, &files);
    cr_expect_eq(files, 1);
}

/* Two shards' photos name one file (names from EXIF), and the shard of
 * the photo one run gives the name writes last: the file is that photo's,
 * so the merge keeps its record, refuses the other photo as one run does,
 * and the next run builds nothing. (The merge once checked the file
 * against the other photo's record, failed the owner and dropped its
 * record.) Then the other way round: the other photo's shard writes last,
 * and the owner is failed as replaced. */
Test(shards, a_clash_keeps_the_owner_exactly_when_the_file_is_its_own)
{
    static const char preset[] = "gallop: 1\n"
                                 "name: clash\n"
                                 "stages:\n"
                                 "  - resize: {width: 64, height: 64, fit: inside}\n"
                                 "output: {name: \"{camera|none}.{ext}\", format: jpeg}\n";
    g_autofree char *tmp = gal_test_tmpdir("shards-clash-owner");
    g_autofree char *p = gal_test_write_preset(tmp, "clash.yaml", preset);
    g_autofree char *owner = NULL;
    g_autofree char *other = NULL;

    /* Names that put the owner (first in input order) in shard 2. */
    for (int n = 0; !owner && n < 100; n++) {
        g_autofree char *a = g_strdup_printf("a-%d.jpg", n);
        g_autofree char *b = g_strdup_printf("b-%d.jpg", n);

        if (gal__shard_of(a, 2) == 2 && gal__shard_of(b, 2) == 1) {
            owner = g_steal_pointer(&a);
            other = g_steal_pointer(&b);
        }
    }
    cr_assert(owner);
    for (int owner_last = 1; owner_last >= 0; owner_last--) {
        g_autofree char *in = g_strdup_printf("%s/in-%d", tmp, owner_last);
        g_autofree char *out = g_strdup_printf("%s/out-%d", tmp, owner_last);
        g_autofree char *err = NULL;
        g_autofree char *after = NULL;
        g_autofree char *report = g_strdup_printf("%s/after-%d.json", tmp, owner_last);
        g_autofree char *text = NULL;
        g_autoptr(gal_json) json = NULL;

        gal_test_copy_trip(in, 1, owner);
        gal_test_copy_trip(in, 2, other);
        /* The owner's shard is 2: last when run in order. */
        for (int i = 0; i < 2; i++) {
            const char *shard = (i == 0) == owner_last ? "1/2" : "2/2";

            cr_assert_lt(gallop((const char *const[]) { "run", p, in, "-o", out, "-q", "--shard",
                                    shard, NULL },
                             NULL, NULL),
                2);
        }
        cr_assert_eq(gallop((const char *const[]) { "merge", p, "-o", out, NULL }, NULL, &err), 1,
            "%s", err);
        cr_expect(strstr(err, other) && strstr(err, "is already the output of"), "%s", err);
        if (owner_last)
            cr_expect_not(strstr(err, "was replaced by"), "the owner's own file: %s", err);
        else
            cr_expect(strstr(err, owner) && strstr(err, "was replaced by"), "%s", err);
        cr_expect_eq(gallop((const char *const[]) { "run", p, in, "-o", out, "-q", "--report",
                                report, NULL },
                         NULL, &after),
            1, "%s", after);
        text = read_text(report);
        json = gal_json_parse(text, NULL);
        cr_assert(json, "%s", text);
        cr_expect_str_eq(gal_json_string(json, "photos.0.status"),
            owner_last ? "up-to-date" : "done", "%s", text);
    }
}

/* A shard lists only its own photos and counts the others, yet names
 * them all: a name one run gives to an earlier photo, another shard's, is
 * refused to its own photos, as one run refuses it. */
Test(shards, shard_lists_its_own_photos_and_refuses_names_others_took)
{
    static const char preset[] = "gallop: 1\n"
                                 "name: same\n"
                                 "stages:\n"
                                 "  - resize: {width: 32, height: 32, fit: inside}\n"
                                 "output: {name: \"same.{ext}\", format: jpeg}\n";
    g_autofree char *tmp = gal_test_tmpdir("shards-own");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *p = gal_test_write_preset(tmp, "same.yaml", preset);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    int listed = 0, owners = 0;

    for (int i = 1; i <= 6; i++)
        gal_test_copy_trip(in, i, NULL);
    for (int k = 1; k <= 2; k++) {
        g_autofree char *shard = g_strdup_printf("%d/2", k);
        g_autofree char *report = g_strdup_printf("%s/shard-%d.json", tmp, k);
        g_autofree char *err = NULL;
        g_autofree char *text = NULL;
        g_autoptr(gal_json) json = NULL;
        g_autofree char *left = NULL;
        const gal_json *photos;
        gboolean owner = FALSE;

        /* Every photo but the run's first is refused: exit 1. */
        cr_assert_eq(gallop((const char *const[]) { "run", p, in, "-o", out, "-q", "--shard",
                                shard, "--report", report, NULL },
                         NULL, &err),
            1, "%s", err);
        text = read_text(report);
        json = gal_json_parse(text, NULL);
        cr_assert(json, "%s", text);
        photos = gal_json_get(json, "photos");
        cr_assert(photos && photos->items->len > 0 && photos->items->len < 6,
            "shard %d of 2 lists %u photos: %s", k, photos ? photos->items->len : 0, text);
        cr_expect_eq(gal_json_number(json, "totals.photos"), 6, "%s", text);
        cr_expect_eq(gal_json_number(json, "totals.elsewhere"), 6 - (int) photos->items->len,
            "%s", text);
        left = g_strdup_printf("%d left to other shards", 6 - (int) photos->items->len);
        cr_expect(strstr(err, left), "%s", err);
        for (guint i = 0; i < photos->items->len; i++) {
            g_autofree char *at = g_strdup_printf("photos.%u.", i);
            g_autofree char *input_key = g_strconcat(at, "input", NULL);
            g_autofree char *status_key = g_strconcat(at, "status", NULL);
            g_autofree char *message_key = g_strconcat(at, "error.message", NULL);
            const char *input = gal_json_string(json, input_key);
            const char *status = gal_json_string(json, status_key);
            const char *message = gal_json_string(json, message_key);

            cr_assert(input && status, "%s", text);
            if (g_str_has_suffix(input, "/trip-01.jpg")) {
                owner = TRUE;
                cr_expect_str_eq(status, "done", "%s", text);
                continue;
            }
            /* trip-01.jpg is the run's first: its name is taken, whichever
             * shard it is in. */
            cr_expect_str_eq(status, "failed", "%s", text);
            cr_expect(message && strstr(message, "is already the output of") &&
                    strstr(message, "/trip-01.jpg"),
                "%s: %s", input, message ? message : "no error");
        }
        listed += (int) photos->items->len;
        owners += owner;
    }
    cr_expect_eq(listed, 6, "the two shards list every photo once");
    cr_expect_eq(owners, 1);
}

/* A shard's part is as untrusted as any file the folder holds: a result
 * that does not check makes it damaged, named, with the shard to run
 * again; a photo whose result is gone from it is named as not built; put
 * back, the merge gives one run's report. */
Test(shards, a_tampered_part_is_named, .timeout = 300)
{
    static const char preset[] = "gallop: 1\n"
                                 "name: small\n"
                                 "stages:\n"
                                 "  - resize: {width: 32, height: 32, fit: inside}\n"
                                 "output: {name: \"{stem}.{ext}\", format: jpeg}\n";
    g_autofree char *tmp = gal_test_tmpdir("shards-tampered");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *p = gal_test_write_preset(tmp, "small.yaml", preset);
    g_autofree char *one = g_build_filename(tmp, "one", NULL);
    g_autofree char *one_report = g_build_filename(tmp, "one.json", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *part = g_build_filename(out, ".gallop-manifest.1-of-2.db", NULL);
    g_autofree char *kept = g_build_filename(tmp, "kept.db", NULL);
    g_autofree char *report = g_build_filename(tmp, "merged.json", NULL);
    g_autofree char *one_text = NULL;
    g_autofree char *text = NULL;
    g_autofree char *err = NULL;
    const char *presets[] = { p, NULL };
    int files = 0;

    for (int i = 1; i <= 8; i++)
        gal_test_copy_trip(in, i, NULL);
    cr_assert_eq(gallop((const char *const[]) { "run", p, in, "-o", one, "-q", "--report",
                            one_report, NULL },
                     NULL, NULL),
        0);
    one_text = comparable_report(one_report, one);
    run_shards(presets, in, out, 2, tmp, 0);
    gal_test_copy_file(part, kept);

    gal_test_manifest_exec(part, "UPDATE result SET status = 'exploded' "
                                 "WHERE input = (SELECT min(input) FROM result)");
    cr_expect_eq(gallop((const char *const[]) { "merge", p, "-o", out, NULL }, NULL, &err), 1,
        "%s", err);
    cr_expect(strstr(err, ".gallop-manifest.1-of-2.db") && strstr(err, "a bad result row") &&
            strstr(err, "the part is damaged; run its shard again"),
        "%s", err);

    gal_test_copy_file(kept, part);
    gal_test_manifest_exec(part, "DELETE FROM result WHERE input = (SELECT min(input) FROM "
                                 "result); UPDATE shard SET results = results - 1");
    g_clear_pointer(&err, g_free);
    cr_expect_eq(gallop((const char *const[]) { "merge", p, "-o", out, NULL }, NULL, &err), 1,
        "%s", err);
    cr_expect(strstr(err, "not in the part of its shard (1 of 2)") &&
            strstr(err, "run shard 1 again (--shard 1/2)"),
        "%s", err);

    gal_test_copy_file(kept, part);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(gallop((const char *const[]) { "merge", p, "-o", out, "--report", report,
                            NULL },
                     NULL, &err),
        0, "%s", err);
    text = comparable_report(report, out);
    cr_expect_str_eq(text, one_text, "the report of the merge differs from one run's");
    expect_same_files(one, out, &files);
    cr_expect_eq(files, 8);
}

/* Shards started from different folders, given the photos by absolute
 * path (a CI runner's build folders), are one run; a shard of another
 * count meets parts not merged yet, and is refused rather than throwing
 * them away. */
Test(shards, folders_and_counts)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-folders");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *posts = gal_test_write_preset(tmp, "posts.yaml", photos_preset);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *err = NULL;
    g_autofree char *merged = NULL;

    for (int i = 1; i <= 6; i++)
        gal_test_copy_trip(in, i, NULL);
    for (int k = 1; k <= 2; k++) {
        g_autofree char *dir = g_strdup_printf("%s/runner-%d", tmp, k);
        g_autofree char *shard = g_strdup_printf("%d/2", k);

        cr_assert_eq(g_mkdir_with_parents(dir, 0777), 0);
        cr_assert_eq(gallop((const char *const[]) { "-C", dir, "run", posts, in, "-o",
                                out, "-q", "--shard", shard, NULL },
                         NULL, NULL),
            0);
    }
    /* A shard of one (a Slurm task submitted alone) finds the parts of 2. */
    cr_assert_eq(gallop((const char *const[]) { "run", posts, in, "-o", out, "--shard", "1/1",
                            NULL },
                     NULL, &err),
        2, "%s", err);
    cr_expect(strstr(err, "holds 2 parts of a sharded run of 2 shards, not merged") &&
            strstr(err, "this run is shard 1 of 1"),
        "%s", err);
    /* A part of another count beside them, or part 1 damaged, fails the
     * merge; once they are gone, it merges (below). */
    {
        g_autofree char *first = g_build_filename(out, ".gallop-manifest.1-of-2.db", NULL);
        g_autofree char *other = g_build_filename(out, ".gallop-manifest.1-of-3.db", NULL);
        g_autofree char *another = g_build_filename(out, ".gallop-manifest.2-of-3.db", NULL);
        g_autofree char *kept = NULL;
        gsize len;

        kept = gal_test_read_bytes(first, &len);
        cr_assert(g_file_set_contents(other, kept, (gssize) len, NULL));
        cr_assert(g_file_set_contents(another, kept, (gssize) len, NULL));
        g_clear_pointer(&err, g_free);
        cr_expect_neq(gallop((const char *const[]) { "merge", posts, "-o", out, NULL }, NULL,
                          &err),
            0, "%s", err);
        cr_expect(strstr(err, "merge one sharded run at a time") != NULL, "%s", err);
        /* Each count once, whichever part the folder lists first (two of
         * each count: the first listed may be of either). */
        cr_expect(strstr(err, "runs of 3, 2 shards") || strstr(err, "runs of 2, 3 shards"), "%s",
            err);
        cr_assert_eq(unlink(other), 0);
        cr_assert_eq(unlink(another), 0);
        cr_assert(g_file_set_contents(first, "not a part\n", -1, NULL));
        /* (a text file where the part was: no database at all) */
        g_clear_pointer(&err, g_free);
        cr_expect_neq(gallop((const char *const[]) { "merge", posts, "-o", out, NULL }, NULL,
                          &err),
            0, "%s", err);
        cr_expect(strstr(err, ".gallop-manifest.1-of-2.db") != NULL, "%s", err);
        cr_assert(g_file_set_contents(first, kept, (gssize) len, NULL));
    }
    cr_expect_eq(gallop((const char *const[]) { "merge", posts, "-o", out, NULL }, NULL, &merged),
        0, "%s", merged);
}

/* Albums and several files per photo: two shards and the merge give the
 * files (in the albums' folders) and the report of one run. */
Test(shards, albums_and_widths_merge_as_one_run, .timeout = 300)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-widths");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *alps = g_build_filename(in, "alps", NULL);
    g_autofree char *coast = g_build_filename(in, "coast", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "w.yaml",
        "gallop: 1\n"
        "name: w\n"
        "stages: [ {resize: {width: 200, height: 200, fit: inside}} ]\n"
        "output: {widths: [200, 80], formats: [webp, jpeg], quality: 80}\n");
    g_autofree char *one = g_build_filename(tmp, "one", NULL);
    g_autofree char *two = g_build_filename(tmp, "two", NULL);
    g_autofree char *one_report = g_build_filename(tmp, "one.json", NULL);
    g_autofree char *two_report = g_build_filename(tmp, "two.json", NULL);
    g_autofree char *one_text = NULL;
    g_autofree char *two_text = NULL;
    g_autofree char *err = NULL;
    const char *presets[] = { preset, NULL };
    const char *const folders[] = { "", "alps", "coast" };
    int total = 0;

    for (int k = 1; k <= 3; k++) {
        gal_test_copy_trip(alps, k, NULL);
        gal_test_copy_trip(coast, k + 3, k == 1 ? "trip-01.jpg" : NULL);
    }
    gal_test_copy_trip(in, 7, NULL);
    cr_assert_eq(gallop((const char *const[]) { "run", preset, in, "-o", one, "-q", "--report",
                            one_report, NULL },
                     NULL, &err),
        0, "%s", err);
    run_shards(presets, in, two, 2, tmp, 0);
    cr_assert_eq(gallop((const char *const[]) { "merge", preset, in, "-o", two, "--report",
                            two_report, NULL },
                     NULL, NULL),
        0);
    for (guint f = 0; f < G_N_ELEMENTS(folders); f++) {
        g_autofree char *a = g_build_filename(one, folders[f], NULL);
        g_autofree char *b = g_build_filename(two, folders[f], NULL);
        int files = 0;

        expect_same_files(a, b, &files);
        total += files;
    }
    /* trip-07 at the top, 3 photos in each album, 4 files each;
     * alps/trip-01 and coast/trip-01 both kept. */
    cr_expect_eq(total, 4 + 12 + 12, "%d files", total);
    one_text = comparable_report(one_report, one);
    two_text = comparable_report(two_report, two);
    cr_expect_str_eq(two_text, one_text);
    cr_expect(strstr(one_text, "OUT/coast/trip-01-80.webp"), "%s", one_text);
}

/* A gallery over several widths: its page, made by one run, made again
 * from up-to-date photos only, and made by the merge of three shards, is
 * the same page, with every width in each photo's srcset. */
Test(shards, gallery_page_with_widths_is_one_page, .timeout = 300)
{
    static const char gallery_preset[] =
        "gallop: 1\n"
        "name: site\n"
        "stages:\n"
        "  - resize: { width: 600, height: 600, fit: inside }\n"
        "  - gallery: { title: \"{count} photos\" }\n"
        "output: { widths: [600, 300], format: jpeg, quality: 80 }\n";
    g_autofree char *tmp = gal_test_tmpdir("shards-gallery");
    g_autofree char *trip = trip_dir();
    g_autofree char *site = gal_test_write_preset(tmp, "site.yaml", gallery_preset);
    g_autofree char *one = g_build_filename(tmp, "one", NULL);
    g_autofree char *three = g_build_filename(tmp, "three", NULL);
    g_autofree char *one_page = g_build_filename(one, "index.html", NULL);
    g_autofree char *three_page = g_build_filename(three, "index.html", NULL);
    const char *presets[] = { site, NULL };
    g_autofree char *first = NULL;
    g_autofree char *again = NULL;
    g_autofree char *merged = NULL;
    gsize len = 0;

    cr_assert_eq(gallop((const char *const[]) { "run", site, trip, "-o", one, "-q", NULL }, NULL,
                     NULL),
        0);
    first = gal_test_read_bytes(one_page, &len);
    cr_assert_not_null(first);
    cr_expect(strstr(first, "srcset=\"trip-01-600.jpg "), "no srcset from the largest file");
    cr_expect(strstr(first, ", trip-01-300.jpg 300w\""), "no srcset over both widths");
    cr_assert_eq(unlink(one_page), 0);
    cr_assert_eq(gallop((const char *const[]) { "run", site, trip, "-o", one, "-q", NULL }, NULL,
                     NULL),
        0);
    again = gal_test_read_bytes(one_page, &len);
    cr_expect_str_eq(again, first, "the page made from up-to-date photos differs");
    run_shards(presets, trip, three, 3, tmp, 0);
    cr_assert_eq(gallop((const char *const[]) { "merge", site, "-o", three, NULL }, NULL, NULL),
        0);
    merged = gal_test_read_bytes(three_page, &len);
    cr_expect_str_eq(merged, first, "the merged page differs from one run's");
}

/* A photo's warnings (a mark too small to read) reach the merge's report:
 * the shard's record of the output keeps them. */
Test(shards, merge_reports_the_photos_warnings)
{
    g_autofree char *tmp = gal_test_tmpdir("shards-warnings");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *report_path = g_build_filename(tmp, "merged.json", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "tiny.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 300}},\n"
        "          {watermark: {text: \"(c) 2024 Jen Loong, Studio\", size: 30}} ]\n");
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autofree char *error = NULL;
    g_autoptr(gal_json) report = NULL;
    const gal_json *list;

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    gal_test_copy_trip(in, 1, "trip-01.jpg");
    gal_test_copy_trip(in, 2, "trip-02.jpg");
    for (int k = 1; k <= 2; k++) {
        g_autofree char *shard = g_strdup_printf("%d/2", k);
        g_autofree char *shard_err = NULL;

        cr_assert_eq(gallop((const char *const[]) { "run", preset, in, "-o", out, "-q",
                                "--shard", shard, NULL },
                         NULL, &shard_err),
            0, "%s", shard_err);
    }
    cr_assert_eq(gallop((const char *const[]) { "merge", preset, "-o", out, "--report",
                            report_path, NULL },
                     NULL, &err),
        0, "%s", err);
    text = gal_test_read_bytes(report_path, NULL);
    report = gal_json_parse(text, &error);
    cr_assert_not_null(report, "%s", error);
    list = gal_json_get(report, "photos");
    cr_assert_not_null(list);
    cr_assert_eq(list->items->len, 2);
    for (guint i = 0; i < list->items->len; i++) {
        g_autofree char *path = g_strdup_printf("photos.%u.warnings.0", i);
        const char *first = gal_json_string(report, path);

        cr_expect(first && strstr(first, "too small to read"), "%s: %s", path, first);
    }
}
