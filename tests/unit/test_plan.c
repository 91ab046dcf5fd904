/* The plan as data (plan.c, decide.c): each photo's products, and whether
 * each is up to date and why not, decided from the records of an output
 * folder and what the files are now. No photo is decoded here: the
 * "photos" are a few bytes each, and the records are put into the folder's
 * store by hand, as a run would have left them. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"
#include "engine.h"
#include "shard.h"

TestSuite(plan, .init = gal_test_setup, .fini = gal_test_teardown);

static const char preset_yaml[] = "gallop: 1\n"
                                  "stages:\n"
                                  "  - resize: {width: 120, height: 120}\n"
                                  "output: {name: \"{stem}.{ext}\", format: jpeg}\n";

/* A folder of photos (files of bytes), its output folder, and the run
 * planned and decided over them. */
typedef struct {
    char *tmp, *in, *out;
    gal_preset *preset;
    engine engine;
    preset_run run;
    gal_run_summary *summary;
    gal_errors errs;
} plan_bench;

static char *
write_file(const char *dir, const char *name, const char *bytes)
{
    char *path = g_build_filename(dir, name, NULL);
    g_autofree char *folder = g_path_get_dirname(path);

    cr_assert_eq(g_mkdir_with_parents(folder, 0777), 0);
    cr_assert(g_file_set_contents(path, bytes, -1, NULL), "%s", path);
    return path;
}

/* A run of the bench's preset into its output folder, begun (its keys
 * and digest known), not yet planned. */
static void
run_begin(plan_bench *b)
{
    gal_run_options opts = { .jobs = 2, .output_dir = b->out };
    const gal_preset *presets[] = { b->preset };

    b->engine = (engine) { 0 };
    b->run = (preset_run) { 0 };
    cr_assert_eq(gal__engine_begin(&b->engine, &b->run, presets, 1, &opts, &b->summary,
                     &b->errs),
        0);
}

static void
run_end(plan_bench *b)
{
    gal__engine_end(&b->engine);
    gal_run_summary_free(b->summary);
    b->summary = NULL;
}

static void
bench_begin(plan_bench *b, const char *name, const char *yaml)
{
    *b = (plan_bench) { 0 };
    b->tmp = gal_test_tmpdir(name);
    b->in = g_build_filename(b->tmp, "in", NULL);
    b->out = g_build_filename(b->tmp, "out", NULL);
    cr_assert_eq(g_mkdir_with_parents(b->out, 0777), 0);
    b->preset = gal_test_load(yaml ? yaml : preset_yaml, &b->errs);
    cr_assert_not_null(b->preset, "%s", b->errs.count ? b->errs.items[0].msg : "");
    run_begin(b);
}

/* A record of `output`, made from `photo` as it is now, into `out`'s
 * store (the output's file as it is now, when there is one). */
static gal_record
record_of(const plan_bench *b, const char *output, const char *photo)
{
    g_autofree char *path = g_build_filename(b->in, photo, NULL);
    g_autofree char *out_path = g_build_filename(b->out, output, NULL);
    gal_record r = { .kind = GAL_RECORD_FILE };
    char hex[65];
    struct stat st;

    r.output = g_strdup(output);
    r.input = gal__relative_path_from(NULL, b->out, path);
    cr_assert_eq(stat(path, &st), 0);
    r.in_size = st.st_size;
    r.in_mtime_ns = gal__mtime_ns(&st);
    cr_assert_eq(gal__file_digest(path, NULL, hex, NULL, NULL, &(gal_error) { 0 }), 0);
    gal__digest_from_hex(&r.in_digest, hex);
    g_strlcpy(r.recipe, b->run.config->preset_digest, sizeof(r.recipe));
    r.version = g_strdup(GAL_VERSION);
    if (stat(out_path, &st) == 0) {
        r.out_size = st.st_size;
        r.out_mtime_ns = gal__mtime_ns(&st);
        cr_assert_eq(gal__file_sha256(out_path, NULL, hex, NULL, &(gal_error) { 0 }), 0);
        gal__digest_from_hex(&r.out_sha256, hex);
    }
    r.width = 120;
    r.height = 90;
    r.name_key = g_strdup("{stem}.{ext}\t1\t1");
    return r;
}

static void
put_records(const plan_bench *b, gal_record *records, int n)
{
    gal_store *s = gal__store_open(b->out, GAL_STORE_NAME, GAL_STORE_WRITE, NULL, NULL);

    cr_assert_not_null(s);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(gal__store_put(s, &records[i], NULL), 0);
        gal__record_clear(&records[i]);
    }
    cr_assert_eq(gal__store_close(s, NULL), 0);
}

/* Collect, claim, open the records, plan and decide, as a dry run. */
static void
plan_and_decide(plan_bench *b, gboolean dry_run)
{
    gal_run_options opts = { .jobs = 2, .dry_run = dry_run, .output_dir = b->out };
    const char *inputs[] = { b->in };

    opts.inputs = inputs;
    opts.n_inputs = 1;
    cr_assert_eq(gal__collect(&b->run, &opts, inputs, 1, b->out, TRUE, &b->errs), 0);
    cr_assert_eq(gal__claim(&b->run, dry_run ? GAL_CLAIM_LOOK : GAL_CLAIM_OWN, &b->errs), 0);
    cr_assert_eq(gal__open_records(&b->run, dry_run ? GAL_STORE_READ : GAL_STORE_WRITE,
                     &b->errs),
        0);
    gal__plan_photos(&b->run);
    gal__decide(&b->run, &opts);
}

/* As plan_and_decide, as shard `shard` of `shards` (0 of 0: not sharded)
 * would plan in a dry run: which photos are its own, and their names. */
static void
plan_shard(plan_bench *b, int shard, int shards)
{
    gal_run_options opts = { .jobs = 2, .dry_run = TRUE, .output_dir = b->out, .shard = shard,
        .shards = shards };
    const char *inputs[] = { b->in };
    const gal_preset *presets[] = { b->preset };

    opts.inputs = inputs;
    opts.n_inputs = 1;
    b->engine = (engine) { 0 };
    b->run = (preset_run) { 0 };
    cr_assert_eq(gal__engine_begin(&b->engine, &b->run, presets, 1, &opts, &b->summary,
                     &b->errs),
        0);
    cr_assert_eq(gal__collect(&b->run, &opts, inputs, 1, b->out, TRUE, &b->errs), 0);
    cr_assert_eq(gal__claim(&b->run, GAL_CLAIM_LOOK, &b->errs), 0);
    cr_assert_eq(gal__open_records(&b->run, GAL_STORE_READ, &b->errs), 0);
    if (shards > 0)
        cr_assert_eq(gal__shard_begin(&b->run, &opts, &b->errs), 0);
    gal__plan_photos(&b->run);
    if (shards > 0)
        gal__shard_leave_others(&b->run);
    gal__decide(&b->run, &opts);
}

/* Photo `name`'s result. */
static const gal_photo_result *
result_of(const plan_bench *b, const char *name)
{
    for (int i = 0; i < b->summary->total; i++)
        if (g_str_has_suffix(b->summary->photos[i].input, name))
            return &b->summary->photos[i];
    cr_assert_fail("no photo %s", name);
    return NULL;
}

static void
bench_end(plan_bench *b)
{
    run_end(b);
    gal_preset_free(b->preset);
    g_free(b->tmp);
    g_free(b->in);
    g_free(b->out);
}

static void
expect_why(const plan_bench *b, const char *photo, gal_why why, const char *detail)
{
    const gal_photo_result *r = result_of(b, photo);
    const char *got = gal_photo_notes_of(r)->why_detail;

    cr_expect_eq(r->why, why, "%s: %s, not %s (%s)", photo, gal_why_name(r->why),
        gal_why_name(why), got ? got : "");
    if (detail)
        cr_expect(got && strstr(got, detail), "%s: detail \"%s\", not \"%s\"", photo,
            got ? got : "", detail);
}

Test(plan, every_reason_is_decided_from_records_and_files)
{
    plan_bench b;
    const char *names[] = { "new.jpg", "other.jpg", "version.jpg", "preset.jpg", "edited.jpg",
        "touched.jpg", "missing.jpg", "modified.jpg", "same.jpg" };
    gal_record records[G_N_ELEMENTS(names)];
    g_autoptr(GPtrArray) old_keys = g_ptr_array_new();
    struct timespec later[2] = { { 0, UTIME_OMIT }, { 2000000000, 0 } };
    int n = 0;

    bench_begin(&b, "plan-reasons", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *bytes = g_strdup_printf("photo %s", names[i]);
        g_autofree char *photo = write_file(b.in, names[i], bytes);
        g_autofree char *output = write_file(b.out, names[i], "an output");
    }
    for (size_t i = 1; i < G_N_ELEMENTS(names); i++)
        records[n++] = record_of(&b, names[i], names[i]);
    /* other.jpg's file was made from another photo. */
    g_free(records[0].input);
    records[0].input = g_strdup("../in/somewhere-else.jpg");
    g_free(records[1].version);
    records[1].version = g_strdup("0.0.9");
    /* preset.jpg: made with other values, which the store keeps. */
    g_strlcpy(records[2].recipe, "0123456789012345678901234567890123456789012345678901234567890123",
        sizeof(records[2].recipe));
    g_ptr_array_add(old_keys, "resize.width=100");
    put_records(&b, records, n);
    {
        gal_store *s = gal__store_open(b.out, GAL_STORE_NAME, GAL_STORE_WRITE, NULL, NULL);
        GPtrArray *now = b.run.config->keys;
        g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func(g_free);

        for (guint k = 0; k < now->len; k++)
            g_ptr_array_add(before, g_str_has_prefix(now->pdata[k], "resize.width=")
                    ? g_strdup("resize.width=100") : g_strdup(now->pdata[k]));
        cr_assert_eq(gal__store_put_recipe(s,
                         "0123456789012345678901234567890123456789012345678901234567890123",
                         before, NULL),
            0);
        gal__store_close(s, NULL);
    }
    /* edited.jpg's photo has other bytes; touched.jpg only a new time. */
    g_autofree char *edited = write_file(b.in, "edited.jpg", "another photo, longer");
    g_autofree char *touched = g_build_filename(b.in, "touched.jpg", NULL);
    g_autofree char *gone = g_build_filename(b.out, "missing.jpg", NULL);
    g_autofree char *changed = write_file(b.out, "modified.jpg", "an output edited by hand");

    cr_assert_eq(utimensat(AT_FDCWD, touched, later, 0), 0);
    cr_assert_eq(unlink(gone), 0);

    plan_and_decide(&b, TRUE);
    expect_why(&b, "new.jpg", GAL_WHY_NEW, NULL);
    expect_why(&b, "other.jpg", GAL_WHY_OTHER_INPUT, "it was made from ../in/somewhere-else.jpg");
    expect_why(&b, "version.jpg", GAL_WHY_VERSION_CHANGED, "made by gallop 0.0.9");
    expect_why(&b, "preset.jpg", GAL_WHY_PRESET_CHANGED, "resize.width 100 -> 120");
    expect_why(&b, "edited.jpg", GAL_WHY_INPUT_CHANGED, NULL);
    expect_why(&b, "touched.jpg", GAL_WHY_UP_TO_DATE, NULL);
    expect_why(&b, "missing.jpg", GAL_WHY_OUTPUT_MISSING, NULL);
    expect_why(&b, "modified.jpg", GAL_WHY_OUTPUT_MODIFIED, NULL);
    expect_why(&b, "same.jpg", GAL_WHY_UP_TO_DATE, NULL);
    /* An up-to-date photo's figures are its record's. */
    cr_expect_eq(result_of(&b, "same.jpg")->width, 120);
    cr_expect_eq(result_of(&b, "same.jpg")->height, 90);
    cr_expect_eq(b.run.n_todo, 7, "photos to open: %d", b.run.n_todo);
    bench_end(&b);
}

/* A photo found the same by content with a new time has its record
 * refreshed (written back when the run may write), so the next run takes
 * the fast path; a dry run writes nothing. */
Test(plan, a_touched_photo_is_refreshed_only_when_the_run_writes)
{
    plan_bench b;
    gal_record r;
    struct timespec later[2] = { { 0, UTIME_OMIT }, { 2000000000, 0 } };
    g_autofree char *photo = NULL;
    g_autofree char *output = NULL;
    struct stat st;

    bench_begin(&b, "plan-refresh", NULL);
    photo = write_file(b.in, "a.jpg", "photo a");
    output = write_file(b.out, "a.jpg", "an output");
    r = record_of(&b, "a.jpg", "a.jpg");
    put_records(&b, &r, 1);
    cr_assert_eq(utimensat(AT_FDCWD, photo, later, 0), 0);
    cr_assert_eq(stat(photo, &st), 0);
    for (int dry = 1; dry >= 0; dry--) {
        gal_store *s;
        gal_record now;

        plan_and_decide(&b, dry);
        expect_why(&b, "a.jpg", GAL_WHY_UP_TO_DATE, NULL);
        run_end(&b);
        run_begin(&b);
        s = gal__store_open(b.out, GAL_STORE_NAME, GAL_STORE_READ, NULL, NULL);
        cr_assert(gal__store_get(s, "a.jpg", &now));
        if (dry)
            cr_expect_neq(now.in_mtime_ns, gal__mtime_ns(&st), "a dry run refreshed the record");
        else
            cr_expect_eq(now.in_mtime_ns, gal__mtime_ns(&st), "the record was not refreshed");
        gal__record_clear(&now);
        gal__store_close(s, NULL);
    }
    bench_end(&b);
}

/* Two photos whose names render alike: the first in input order keeps
 * the name, the second is refused, before anything is written; a photo
 * whose output would overwrite an input is refused. */
Test(plan, names_that_clash_are_refused_in_input_order)
{
    plan_bench b;
    const gal_photo_result *second;

    bench_begin(&b, "plan-clash", NULL);
    g_free(write_file(b.in, "2024/x.jpg", "first"));
    g_free(write_file(b.in, "2025/x.jpg", "second"));
    g_free(write_file(b.in, "y.jpg", "third"));
    plan_and_decide(&b, TRUE);
    second = result_of(&b, "2025/x.jpg");
    cr_expect_eq(second->status, GAL_PHOTO_FAILED);
    cr_expect(gal_photo_notes_of(second)->error &&
            strstr(gal_photo_notes_of(second)->error->msg, "is already the output of"),
        "%s", gal_photo_notes_of(second)->error ? gal_photo_notes_of(second)->error->msg : "");
    expect_why(&b, "2024/x.jpg", GAL_WHY_NEW, NULL);
    expect_why(&b, "y.jpg", GAL_WHY_NEW, NULL);
    bench_end(&b);
}

/* Each shard plans its own photos and no other (the shard a photo's path
 * hashes to), and names each as the whole run would: {index} counts in
 * the whole run, not in the shard. */
Test(plan, a_shard_plans_its_own_photos_named_as_in_one_run)
{
    plan_bench b;
    g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    int planned = 0;

    bench_begin(&b, "plan-shards",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 120, height: 120}\n"
        "output: {name: \"{index}-{stem}.{ext}\", format: jpeg}\n");
    run_end(&b);
    for (int i = 0; i < 12; i++) {
        g_autofree char *name = g_strdup_printf("day%d/p%02d.jpg", i % 3, i);
        g_autofree char *bytes = g_strdup_printf("photo %d", i);

        g_free(write_file(b.in, name, bytes));
    }
    plan_shard(&b, 0, 0);
    cr_assert_eq(b.summary->total, 12);
    for (int i = 0; i < 12; i++)
        g_hash_table_insert(names, g_strdup(b.summary->photos[i].input),
            g_path_get_basename(gal__output_of(&b.run, i, 0)));
    run_end(&b);
    for (int k = 1; k <= 3; k++) {
        plan_shard(&b, k, 3);
        for (int i = 0; i < b.summary->total; i++) {
            const char *input = b.summary->photos[i].input;
            g_autofree char *rel = g_path_get_basename(gal__output_of(&b.run, i, 0));
            g_autofree char *in_rel = gal__relative_path_from(NULL, b.in, input);

            cr_expect_eq(gal__shard_of(in_rel, 3), k, "%s is shard %d's, planned by %d", in_rel,
                gal__shard_of(in_rel, 3), k);
            cr_expect_str_eq(rel, (const char *) g_hash_table_lookup(names, input), "%s", input);
            expect_why(&b, in_rel, GAL_WHY_NEW, NULL);
        }
        cr_expect_eq(b.summary->total + b.summary->elsewhere, 12);
        planned += b.summary->total;
        run_end(&b);
    }
    cr_expect_eq(planned, 12, "the shards planned %d photos of 12", planned);
    gal_preset_free(b.preset);
    g_free(b.tmp);
    g_free(b.in);
    g_free(b.out);
}
