/* schedule.c: library start-up, the run plan, and the worker pool.
 *
 * A run is planned on the calling thread (inputs scanned and sorted, every
 * output name rendered and checked for collisions and for overwriting an
 * input), so what gets written never depends on scheduling. Workers then
 * take photos by an atomic index; each writes only its own result slot.
 * Everything they share (the preset, the plan) is read-only by then.
 * With output.photos false there are no names to plan: every photo is
 * opened only for its contact-sheet tile, and the sheets are all a run
 * writes. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "limit.h"
#include "solo.h"

#include <vips/vector.h> /* after vips.h, which it needs */

/* libvips logs warnings (a tile it could not decode, a bad ICC profile)
 * to stderr; the library never prints, and every failure that matters
 * reaches the caller as a gal_error for its photo. */
static void
drop_log(const char *domain, GLogLevelFlags level, const char *message, gpointer user)
{
    (void) domain;
    (void) level;
    (void) message;
    (void) user;
}

/* The first orc whose compiled-code allocator is thread-safe (see
 * gal_init). */
#define ORC_SAFE_MAJOR 0
#define ORC_SAFE_MINOR 4
#define ORC_SAFE_MICRO 34

/* One decimal version component: digits only, at most 6 of them (no
 * overflow). Returns the character after it, or NULL when there is none. */
static const char *
version_component(const char *p, int *value)
{
    int n = 0;

    *value = 0;
    for (; g_ascii_isdigit(*p) && n < 7; p++, n++)
        *value = *value * 10 + (*p - '0');
    return n == 0 || n > 6 ? NULL : p;
}

gboolean
gal__version_at_least(const char *version, int major, int minor, int micro)
{
    int have[3];
    const int want[3] = { major, minor, micro };
    const char *p = version;

    if (!p)
        return FALSE;
    for (int i = 0; i < 3; i++) {
        if (!(p = version_component(p, &have[i])))
            return FALSE;
        if (i < 2 && *p++ != '.')
            return FALSE;
    }
    /* "0.4.33.1" (a nano version: orc's development snapshots) counts as
     * 0.4.33; anything else after the micro version is not a version. */
    if (*p == '.') {
        int nano;

        if (!(p = version_component(p + 1, &nano)))
            return FALSE;
    }
    if (*p != '\0')
        return FALSE;
    for (int i = 0; i < 3; i++)
        if (have[i] != want[i])
            return have[i] > want[i];
    return TRUE;
}

/* The version of the orc libvips runs, as orc reports it (a static
 * string), or NULL when no orc is loaded or it predates
 * orc_version_string() (0.4.25). liborc is a dependency of libvips, so it
 * is already in the process: look it up rather than link it. */
static const char *
orc_version(void)
{
    const char *(*version_fn)(void);
    void *sym = dlsym(RTLD_DEFAULT, "orc_version_string");

    G_STATIC_ASSERT(sizeof(sym) == sizeof(version_fn));
    if (!sym)
        return NULL;
    /* POSIX guarantees that dlsym's result converts to a function
     * pointer; ISO C has no such conversion, so copy the bits. */
    memcpy(&version_fn, &sym, sizeof(version_fn));
    return version_fn();
}

static gboolean
orc_is_thread_safe(const char *version)
{
    return gal__version_at_least(version, ORC_SAFE_MAJOR, ORC_SAFE_MINOR, ORC_SAFE_MICRO);
}

int
gal_init(const char *argv0, gal_error *err)
{
    if (VIPS_INIT(argv0 ? argv0 : "gallop"))
        return gal_error_from_vips(err, GAL_ERR_INIT, NULL, "libvips failed to start");
    /* orc before 0.4.34 frees compiled programs without a lock, and
     * takes a chunk of code memory under its lock but splits it after,
     * so two workers dropping (or one building) a resize at once can
     * corrupt orc's list of code chunks and crash in liborc (issue 12).
     * libvips serialises the compiling, not the freeing, which happens
     * wherever the last reference to an operation goes. The C loops are
     * slower but safe; an orc we cannot identify counts as old. This must
     * come before any operation is built: libvips picks the path then. */
    if (!orc_is_thread_safe(orc_version()))
        vips_vector_set_enabled(FALSE);
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
        drop_log, NULL);
    /* Photos come from anywhere: keep to the well-fuzzed loaders. Photos
     * never reach libvips' choice of loader (decode.c picks each one from
     * the file's first bytes and refuses SVG), so the SVG loader, which
     * libvips counts as untrusted, is left open for the one caller that
     * needs it: a preset's own logo (gal__logo_load). */
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoadSvg", FALSE);
    /* Every photo is different, so cached operations would only pile up
     * memory in proportion to the batch. */
    vips_cache_set_max(0);
    return 0;
}

void
gal_shutdown(void)
{
    vips_shutdown();
}

const char *
gal_version(void)
{
    return GAL_VERSION;
}

const char *
gal_libvips_version(void)
{
    return vips_version_string();
}

gal_vectors
gal_vectors_status(void)
{
    gal_vectors v = { .orc_version = orc_version(), .enabled = vips_vector_isenabled() };

    if (!orc_is_thread_safe(v.orc_version))
        v.reason = v.orc_version ? "orc older than 0.4.34 can crash a multi-threaded run"
                                 : "orc not found or too old to say its version";
    else if (!v.enabled)
        v.reason = "turned off by VIPS_NOVECTOR";
    else
        v.reason = "orc 0.4.34 or newer";
    return v;
}

/* Photo-level parallelism scales better than libvips' threads inside one
 * small photo (little work per tile, a serial JPEG decoder per photo), so
 * the budget gives cores to photos first: workers x libvips threads is
 * about the number of cores. Measured in bench/ (issue 7). */
int
gal__schedule_workers(int jobs, int n_photos, int *vips_threads)
{
    int cores = MAX(1, (int) g_get_num_processors());
    int workers = jobs > 0 ? jobs : cores;

    workers = CLAMP(workers, 1, MAX(1, n_photos));
    *vips_threads = MAX(1, cores / workers);
    return workers;
}

/* What the plan knows of one photo, and what its worker adds. */
typedef struct {
    struct stat in_st;         /* the photo as planned */
    char in_sha256[65];        /* "" until hashed */
    gboolean member;           /* taken into the run: neither refused nor ignored */
    gboolean tap_only;         /* opened only for a contact sheet: up to date, or
                                * no file per photo (output.photos false) */
    gboolean started;          /* a worker took it */
    gal_manifest_entry *entry; /* the new record, when its output was written */
} photo_plan;

/* What every preset of a run shares: the workers, the photos they take,
 * progress and cancel. */
typedef struct shared_run {
    struct run_ctx **runs; /* one per preset */
    int n_runs;
    /* The photos to open, in order: todo[k * n_runs + r] is the photo's
     * index in run r's summary, or -1 when run r has nothing to do with it. */
    int *todo;
    int n_todo;
    gint next;       /* atomic: next position in todo */
    gint finished;   /* atomic: outputs finished, for progress */
    int total;       /* outputs in the run: every preset's photos */
    GMutex progress_lock;
    gal_progress_fn progress;
    void *user;
    gal_cancel *cancel;
    gal_solo *solo;       /* failed photos run again alone, for their reasons */
    GMutex wait_lock;     /* guards live; wait_cond signals a worker's exit */
    GCond wait_cond;
    int live;
} shared_run;

/* One preset's part of a run: its plan, manifest and summary. */
typedef struct run_ctx {
    shared_run *run;
    const gal_preset *preset;
    gal_run_summary *summary;
    char **outputs;  /* planned output path per photo, NULL if none */
    /* output.photos false: no outputs[], every member only gives its tile. */
    gboolean sheets_only;
    /* With sheets_only, the members as planned (see stat_members_digest):
     * what the sheets' records are compared with, and then hold. */
    char stat_members[65];
    int *todo;       /* photo indices to build */
    int n_todo;
    gal_gather *gather;   /* the contact sheet, or NULL */
    int *gather_id;       /* photo index -> id in the gather's order */
    photo_plan *plans;    /* per photo */
    char *out_dir;
    char preset_digest[65];
    GPtrArray *keys;      /* the effective preset's key lines */
    gal_manifest *manifest;
    GMutex manifest_lock; /* workers add records while others read it */
    gint64 manifest_saved; /* monotonic time of the last save, microseconds */
    GArray *inputs;       /* gal_input */
    gal_out_dir claim;    /* the output folder, locked for this run */
    gboolean follow_links; /* --follow-symlinks */
} run_ctx;

static void
report(run_ctx *ctx, const gal_photo_result *photo, int done)
{
    shared_run *run = ctx->run;

    if (!run->progress)
        return;
    g_mutex_lock(&run->progress_lock);
    run->progress(photo, done, run->total, run->user);
    g_mutex_unlock(&run->progress_lock);
}

static int
next_done(run_ctx *ctx)
{
    return g_atomic_int_add(&ctx->run->finished, 1) + 1;
}

/* What an output's name was rendered from: the template, and the fields
 * that do not come from the photo. */
static char *
name_key(run_ctx *ctx, int i)
{
    return g_strdup_printf("%s\t%d\t%d", gal__template_text(ctx->preset->output->name), i + 1,
        ctx->summary->total);
}

/* Files an output depends on (caption sidecars, tables, exports) are
 * named by paths the manifest keeps, which may have been tampered with:
 * each is hashed only when it is a regular file within the limit. */
static const gal_read_rules dependency_rules = { "file an output depends on", NULL, TRUE, 0,
    GAL_ERR_INPUT };

/* A dependency as it is now: *exists when it is a regular file, and
 * then its contents' digest in `hex`, or 64 zeros when it cannot be read
 * within the limit (any later change then counts). */
static void
dependency_state(const char *path, struct stat *st, gboolean *exists, char *hex)
{
    gal_read_rules rules = dependency_rules;
    gal_error err = { 0 };
    int fd;

    *exists = stat(path, st) == 0 && S_ISREG(st->st_mode);
    memset(hex, '0', 64);
    hex[64] = '\0';
    if (!*exists)
        return;
    rules.max_bytes = gal__limits.dependency_bytes;
    if (gal__file_open(path, &rules, &fd, NULL, &err))
        return;
    if (gal__fd_sha256(fd, hex, NULL) != 0) {
        memset(hex, '0', 64);
        hex[64] = '\0';
    }
    close(fd);
}

/* The manifest record of a photo whose output was just written. */
static gal_manifest_entry *
record(run_ctx *ctx, int i, const gal_job *job)
{
    const photo_plan *plan = &ctx->plans[i];
    gal_manifest_entry *e = gal__manifest_entry_new();
    struct stat st;

    e->output = gal__relative_path(ctx->out_dir, ctx->outputs[i]);
    e->input = gal__relative_path(ctx->out_dir, job->input);
    e->in_size = plan->in_st.st_size;
    e->in_mtime_ns = gal__mtime_ns(&plan->in_st);
    g_strlcpy(e->in_sha256, plan->in_sha256, sizeof(e->in_sha256));
    g_strlcpy(e->preset_digest, ctx->preset_digest, sizeof(e->preset_digest));
    e->version = g_strdup(GAL_VERSION);
    e->out_size = job->out_bytes;
    e->out_mtime_ns = gal__stat_beneath(ctx->claim.fd, e->output, &st) == 0 ? gal__mtime_ns(&st) : 0;
    g_strlcpy(e->out_sha256, job->out_sha256, sizeof(e->out_sha256));
    e->width = job->out_width;
    e->height = job->out_height;
    e->name_key = name_key(ctx, i);
    e->caption = g_strdup(job->caption);
    e->caption_source = g_strdup(job->caption_source);
    e->caption_cut = job->caption_cut;
    for (guint d = 0; job->depends && d < job->depends->len; d++) {
        g_autofree char *path = g_canonicalize_filename(job->depends->pdata[d], NULL);
        char hex[65];
        gboolean exists;

        dependency_state(path, &st, &exists, hex);

        gal__manifest_add_dep(e, path, exists, exists ? st.st_size : 0,
            exists ? gal__mtime_ns(&st) : 0, exists ? hex : NULL);
    }
    return e;
}

/* A killed run (a second Ctrl-C, SIGKILL, a power cut) keeps what the
 * last save recorded; saving after every photo would cost an fsync each,
 * so the manifest is saved at most this often while workers run (and
 * always at the end). */
#define MANIFEST_SAVE_INTERVAL_US (2 * G_USEC_PER_SEC)

/* A worker finished an output: record it at once, so that a run that is
 * killed keeps it. */
static void
record_now(run_ctx *ctx, int i)
{
    gint64 now = g_get_monotonic_time();
    gal_error err = { 0 };

    g_mutex_lock(&ctx->manifest_lock);
    gal__manifest_put(ctx->manifest, g_steal_pointer(&ctx->plans[i].entry));
    gal__manifest_put_keys(ctx->manifest, ctx->preset_digest, ctx->keys);
    if (now - ctx->manifest_saved >= MANIFEST_SAVE_INTERVAL_US) {
        /* A failure here is reported by the save at the end. */
        gal__manifest_save(ctx->manifest, &err);
        ctx->manifest_saved = now;
    }
    g_mutex_unlock(&ctx->manifest_lock);
}

static void
job_clear(gal_job *job)
{
    VIPS_UNREF(job->gather_item);
    if (job->depends)
        g_ptr_array_unref(job->depends);
    g_string_chunk_free(job->strings);
    g_free(job->output_rel);
}

/* After the photo's jobs ran: its result, record and progress in one run. */
static void
finish_photo(run_ctx *ctx, int i, gal_job *job, const gal_error *job_err, gint64 start)
{
    gal_photo_result *result = &ctx->summary->photos[i];
    photo_plan *plan = &ctx->plans[i];
    gboolean failed = job_err->code != GAL_OK;

    if (plan->tap_only && !ctx->sheets_only)
        ; /* still UP_TO_DATE: its own output was not touched */
    else if (!failed) {
        /* Without a file of its own (sheets_only), the photo is done once
         * its tile is taken: no size, no digest, no record of its own. */
        result->status = GAL_PHOTO_DONE;
        result->caption = g_strdup(job->caption);
        result->caption_source = g_strdup(job->caption_source);
        result->caption_cut = job->caption_cut;
        if (!plan->tap_only) {
            result->width = job->out_width;
            result->height = job->out_height;
            result->bytes = job->out_bytes;
            memcpy(result->sha256, job->out_sha256, sizeof(result->sha256));
            plan->entry = record(ctx, i, job);
            record_now(ctx, i);
        }
    }
    else if (gal__cancelled(ctx->run->cancel)) {
        /* Stopped on purpose: not a failure of the photo. */
        result->status = GAL_PHOTO_CANCELLED;
        vips_error_clear();
    }
    else {
        result->status = GAL_PHOTO_FAILED;
        result->error = *job_err;
        /* With several presets, the error says which one failed. */
        if (ctx->run->n_runs > 1) {
            g_autofree char *subject = g_strdup_printf("%s (preset %s)", result->input,
                ctx->preset->name);

            gal_error_set_subject(&result->error, subject);
        }
        else
            gal_error_set_subject(&result->error, result->input);
    }
    result->seconds = (g_get_monotonic_time() - start) / 1e6;
    /* A failed photo still counts towards its page, as a gap closed up;
     * after a cancel no page is finished half-empty. */
    if (ctx->gather && !gal__cancelled(ctx->run->cancel))
        gal__gather_done(ctx->gather, ctx->gather_id[i],
            !failed ? g_steal_pointer(&job->gather_item) : NULL);
    job_clear(job);
    /* An up-to-date photo read for a sheet was reported before the run. */
    if (!plan->tap_only || ctx->sheets_only)
        report(ctx, result, next_done(ctx));
}

/* One photo: the jobs of every preset that builds it (or takes its
 * contact-sheet tile), from one read of the file. `slots[r]` is its index
 * in run r, or -1. A job that fails (not stopped by the run or its time)
 * is not finished here: its slot goes into `retry` (the others are -1)
 * and TRUE is returned, for the caller to run it again solo (solo.h),
 * where `solo` is set and every job is finished, whatever happens. */
static gboolean
run_photo(shared_run *run, const int *slots, gboolean solo, int *retry)
{
    gboolean again = FALSE;
    int n = run->n_runs;
    g_autofree gal_job *jobs = g_new0(gal_job, n);
    g_autofree gal_job **live = g_new0(gal_job *, n);
    g_autofree gal_error *errs = g_new0(gal_error, n);
    g_autofree int *live_run = g_new0(int, n);
    gint64 start = g_get_monotonic_time();
    const char *input = NULL;
    char sha256[65] = "";
    double hash_seconds = 0;
    gal_error hash_err = { 0 };
    gal_watch *watch;
    double seconds = 0;
    gint64 memory_bytes = 0;
    int n_live = 0;

    for (int r = 0; r < n; r++) {
        run_ctx *ctx = run->runs[r];
        int i = slots[r];

        if (i < 0)
            continue;
        input = ctx->summary->photos[i].input;
        ctx->plans[i].started = TRUE;
        if (ctx->plans[i].in_sha256[0])
            memcpy(sha256, ctx->plans[i].in_sha256, sizeof(sha256));
    }
    /* The photo's digest is taken before it is read for processing, so a
     * photo changed half-way through is seen as changed next time. Once,
     * for every preset. */
    for (int r = 0; r < n && !sha256[0] && !hash_err.code; r++) {
        int i = slots[r];

        if (i >= 0 && !run->runs[r]->plans[i].tap_only) {
            gal__file_sha256(input, NULL, sha256, NULL, &hash_err);
            hash_seconds = (g_get_monotonic_time() - start) / 1e6;
        }
    }
    /* One decode serves every preset, so the photo gets the most generous
     * of their budgets. */
    for (int r = 0; r < n; r++)
        if (slots[r] >= 0) {
            const gal_input_opts *in = run->runs[r]->preset->input;

            seconds = MAX(seconds, in->max_seconds);
            memory_bytes = MAX(memory_bytes, (gint64) in->max_memory_mb << 20);
        }
    watch = gal__watch_begin(run->cancel, seconds, memory_bytes);
    for (int r = 0; r < n; r++) {
        run_ctx *ctx = run->runs[r];
        int i = slots[r];
        photo_plan *plan;

        if (i < 0)
            continue;
        plan = &ctx->plans[i];
        jobs[r] = (gal_job) { .preset = ctx->preset, .input = input,
            .output_path = ctx->outputs[i], .out_dir = &ctx->claim,
            .input_root = g_array_index(ctx->inputs, gal_input, i).root,
            .follow_links = ctx->follow_links,
            .output_rel = ctx->outputs[i] ? gal__relative_path(ctx->out_dir, ctx->outputs[i]) : NULL,
            .strings = g_string_chunk_new(256),
            .watch = watch, .tap_only = plan->tap_only, .solo = solo };
        if (!plan->tap_only) {
            if (!plan->in_sha256[0])
                memcpy(plan->in_sha256, sha256, sizeof(plan->in_sha256));
            ctx->summary->photos[i].hash_seconds = hash_seconds;
        }
        gal__facts_from_path(ctx->preset, input, i + 1, ctx->summary->total, &jobs[r].facts,
            jobs[r].strings);
        if (ctx->gather)
            jobs[r].gather_index = gal__gather_index(ctx->gather, ctx->gather_id[i]);
        if (hash_err.code && !plan->tap_only) {
            errs[r] = hash_err;
            continue;
        }
        live[n_live] = &jobs[r];
        live_run[n_live++] = r;
    }
    {
        g_autofree gal_error *live_errs = g_new0(gal_error, MAX(1, n_live));

        gal__photo_run(live, n_live, live_errs);
        for (int k = 0; k < n_live; k++) {
            /* A photo stopped for its time fails for that, whatever libvips
             * said about the evaluation it killed. */
            if (gal__watch_stopped(watch) == GAL_STOP_TIMEOUT && live_errs[k].code) {
                live_errs[k] = (gal_error) { 0 };
                gal__watch_check(watch, &live_errs[k]);
            }
            errs[live_run[k]] = live_errs[k];
        }
    }
    for (int r = 0; r < n; r++) {
        gboolean retried = !solo && slots[r] >= 0 && errs[r].code &&
            !gal__watch_stopped(watch) && !gal__cancelled(run->cancel);

        if (retry)
            retry[r] = retried ? slots[r] : -1;
        if (retried) {
            job_clear(&jobs[r]);
            again = TRUE;
        }
        else if (slots[r] >= 0)
            finish_photo(run->runs[r], slots[r], &jobs[r], &errs[r], start);
    }
    gal__watch_end(watch);
    return again;
}

static gpointer
worker(gpointer data)
{
    shared_run *run = data;
    g_autofree int *retry = g_new(int, run->n_runs);
    int position;

    /* A cancel stops the taking of new photos at once. */
    while (!gal__cancelled(run->cancel) &&
        (position = g_atomic_int_add(&run->next, 1)) < run->n_todo) {
        gboolean again;

        gal__solo_enter(run->solo);
        again = run_photo(run, &run->todo[position * run->n_runs], FALSE, retry);
        gal__solo_leave(run->solo);
        /* A failure's reason is read from a run of the photo alone. */
        if (again) {
            gal__solo_begin(run->solo);
            run_photo(run, retry, TRUE, NULL);
            gal__solo_end(run->solo);
        }
    }
    g_mutex_lock(&run->wait_lock);
    run->live--;
    g_cond_signal(&run->wait_cond);
    g_mutex_unlock(&run->wait_lock);
    /* libvips asks threads it did not create to release its per-thread
     * buffers before they exit. */
    vips_thread_shutdown();
    return NULL;
}

static const char *const exif_fields[] = {
    "date", "caption", "camera", "lens", "artist", "copyright", "exposure", NULL,
};

static gboolean
name_needs_exif(const gal_output_opts *output)
{
    for (int i = 0; exif_fields[i]; i++)
        if (gal__template_uses(output->name, exif_fields[i]))
            return TRUE;
    return FALSE;
}

/* A file's identity, so that one file reached by two spellings (a symlinked
 * folder, a hard link) is still recognised as the same file. */
static char *
file_id(const struct stat *st)
{
    return g_strdup_printf("%ju:%ju", (uintmax_t) st->st_dev, (uintmax_t) st->st_ino);
}

static void
refuse(gal_photo_result *result, const char *message)
{
    gal_error_set(&result->error, GAL_ERR_OUTPUT, NULL, NULL, "%s", message);
    gal_error_set_subject(&result->error, result->input);
    result->status = GAL_PHOTO_FAILED;
}

/* Comparing paths is not enough: the output folder may reach an input
 * through a symlink (-o real/ with the photos given as link/). */
static gboolean
is_input_file(GHashTable *input_ids, const char *path)
{
    g_autofree char *id = NULL;
    struct stat st;

    if (stat(path, &st) != 0)
        return FALSE;
    id = file_id(&st);
    return g_hash_table_contains(input_ids, id);
}

static GHashTable *
entries_by_input(gal_manifest *m)
{
    GHashTable *by_input = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTableIter it;
    gpointer value;

    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        gal_manifest_entry *e = value;

        if (!e->sheet && e->name_key)
            g_hash_table_insert(by_input, e->input, e);
    }
    return by_input;
}

/* A name template that shows EXIF facts needs each photo's header; the
 * path recorded for an unchanged photo (same size and mtime, same template
 * and place in the run) spares that read on reruns. */
static char *
recorded_output(run_ctx *ctx, GHashTable *by_input, int i, const char *input)
{
    g_autofree char *rel = gal__relative_path(ctx->out_dir, input);
    g_autofree char *key = NULL;
    gal_manifest_entry *e = g_hash_table_lookup(by_input, rel);
    struct stat st;

    if (!e || stat(input, &st) != 0 || st.st_size != e->in_size ||
        gal__mtime_ns(&st) != e->in_mtime_ns)
        return NULL;
    key = name_key(ctx, i);
    if (strcmp(key, e->name_key) != 0)
        return NULL;
    return g_build_filename(ctx->out_dir, e->output, NULL);
}

/* Decide each photo's output path; photos whose path is unusable fail
 * here, before anything is written. */
static void
plan(run_ctx *ctx, GArray *inputs, const char *out_dir, gal_manifest *manifest)
{
    const gal_preset *preset = ctx->preset;
    gal_run_summary *summary = ctx->summary;
    g_autoptr(GHashTable) claimed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) input_paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) input_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean needs_exif = !ctx->sheets_only && name_needs_exif(preset->output);
    g_autoptr(GHashTable) by_input = needs_exif ? entries_by_input(manifest) : NULL;

    for (guint i = 0; i < inputs->len; i++) {
        const char *input = g_array_index(inputs, gal_input, i).path;
        struct stat st;

        g_hash_table_add(input_paths, g_canonicalize_filename(input, NULL));
        if (stat(input, &st) == 0)
            g_hash_table_add(input_ids, file_id(&st));
    }

    for (int i = 0; i < summary->total; i++) {
        const gal_input *in = &g_array_index(inputs, gal_input, i);
        gal_photo_result *result = &summary->photos[i];
        g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
        gal_facts facts;
        g_autofree char *path = NULL;
        g_autofree char *canonical = NULL;
        const char *owner;

        result->input = g_strdup(in->path);
        if (in->why || !in->regular) {
            gal_error_set(&result->error, GAL_ERR_INPUT, NULL, NULL, "%s", in->why ? in->why
                : "not a regular file (FIFO, device or socket): skipped, never opened");
            gal_error_set_subject(&result->error, result->input);
            result->status = in->refused ? GAL_PHOTO_FAILED : GAL_PHOTO_IGNORED;
            continue;
        }
        if (ctx->sheets_only) {
            /* No name to render, so none to collide or to overwrite an
             * input: every photo is a member, and the sheets' names were
             * checked when the preset loaded. */
            ctx->plans[i].member = TRUE;
            ctx->todo[ctx->n_todo++] = i;
            continue;
        }
        gal__facts_from_path(preset, in->path, i + 1, summary->total, &facts, strings);
        if (needs_exif && (path = recorded_output(ctx, by_input, i, in->path)))
            ; /* the photo is as it was when this name was rendered from it */
        else if (needs_exif &&
            gal__photo_facts(preset, &(gal_photo_ref) { in->path, in->root, ctx->follow_links },
                &facts, strings, &result->error)) {
            gal_error_set_subject(&result->error, result->input);
            result->status = GAL_PHOTO_FAILED;
            continue;
        }
        if (!path && !(path = gal__output_path(preset->output, out_dir, &facts, &result->error))) {
            gal_error_set_subject(&result->error, result->input);
            result->status = GAL_PHOTO_FAILED;
            continue;
        }
        canonical = g_canonicalize_filename(path, NULL);
        if (g_hash_table_contains(input_paths, canonical) || is_input_file(input_ids, path)) {
            g_autofree char *msg = g_strdup_printf("its output %s would overwrite an input", path);

            refuse(result, msg);
            continue;
        }
        if ((owner = g_hash_table_lookup(claimed, canonical))) {
            g_autofree char *msg = g_strdup_printf("its output %s is already the output of %s "
                "(put {index} or {ext} in output.name?)", path, owner);

            refuse(result, msg);
            continue;
        }
        g_hash_table_insert(claimed, g_strdup(canonical), (gpointer) result->input);
        ctx->plans[i].member = TRUE;
        ctx->outputs[i] = g_steal_pointer(&path);
        result->output = g_strdup(ctx->outputs[i]);
        ctx->todo[ctx->n_todo++] = i;
    }
}

/* With a contact sheet, photos are processed in the sheet's order, so its
 * pages complete (and are freed) one after another. */
static void
order_for_gather(run_ctx *ctx)
{
    g_autofree const char **paths = g_new0(const char *, ctx->n_todo);
    g_autofree int *order = g_new0(int, ctx->n_todo);
    g_autofree int *members = g_memdup2(ctx->todo, sizeof(int) * ctx->n_todo);

    for (int k = 0; k < ctx->n_todo; k++)
        paths[k] = ctx->summary->photos[members[k]].input;
    ctx->gather = gal__gather_new(ctx->preset, paths, ctx->n_todo, &ctx->claim, order);
    if (!ctx->gather)
        return;
    ctx->gather_id = g_new0(int, ctx->summary->total);
    for (int k = 0; k < ctx->n_todo; k++) {
        ctx->gather_id[members[k]] = k;
        ctx->todo[k] = members[order[k]];
    }
}

/* ---- incremental decisions ------------------------------------------------------------ */

/* A file the incremental decisions compare with its record: a photo (a
 * path), or an output (`path` relative beneath the output folder
 * `root_fd`, never read through a link). */
typedef struct {
    const char *path;
    int root_fd; /* >= 0: an output beneath this folder */
} file_ref;

static int
ref_sha256(const file_ref *f, char *hex)
{
    gal_error err = { 0 };

    if (f->root_fd >= 0)
        return gal__sha256_beneath(f->root_fd, f->path, hex, NULL);
    return gal__file_sha256(f->path, NULL, hex, NULL, &err);
}

/* Is the file still the one recorded (size, mtime, else content)? On a
 * content match with a new mtime the record is refreshed, so the next run
 * takes the fast path again. A hash taken on the way lands in `hashed`
 * (may be NULL), so a changed photo is not read twice. */
static gboolean
same_file_hashed(const file_ref *f, gint64 *size, gint64 *mtime_ns, char *sha256,
    const struct stat *st, char *hashed)
{
    char hex[65];

    if (st->st_size == *size && gal__mtime_ns(st) == *mtime_ns)
        return TRUE;
    if (ref_sha256(f, hex))
        return FALSE;
    if (hashed)
        memcpy(hashed, hex, sizeof(hex));
    if (st->st_size != *size || strcmp(hex, sha256) != 0)
        return FALSE;
    *mtime_ns = gal__mtime_ns(st);
    return TRUE;
}

static gboolean
same_file(const file_ref *f, gint64 *size, gint64 *mtime_ns, char *sha256, const struct stat *st)
{
    /* A different size is a different file: no need to read it. */
    if (st->st_size != *size)
        return FALSE;
    return same_file_hashed(f, size, mtime_ns, sha256, st, NULL);
}

/* Is the output `rel` (beneath the output folder) still what gallop wrote?
 * A link or anything but a regular file in its place is not. */
static gboolean
same_output(run_ctx *ctx, const char *rel, gint64 *size, gint64 *mtime_ns, char *sha256,
    gboolean *exists)
{
    file_ref f = { rel, ctx->claim.fd };
    struct stat st;

    *exists = gal__stat_beneath(ctx->claim.fd, rel, &st) == 0;
    return *exists && S_ISREG(st.st_mode) && same_file(&f, size, mtime_ns, sha256, &st);
}

/* Is a file an output depends on what it was? Its change, in words, or
 * NULL. Size and time first: only a touched file is read. */
static const char *
dependency_change(gal_dep_record *dep)
{
    char hex[65];
    struct stat st;
    gboolean exists = stat(dep->path, &st) == 0 && S_ISREG(st.st_mode);

    if (exists != dep->exists)
        return exists ? "appeared" : "is gone";
    if (!exists || (st.st_size == dep->size && gal__mtime_ns(&st) == dep->mtime_ns))
        return NULL;
    if (st.st_size != dep->size)
        return "changed";
    dependency_state(dep->path, &st, &exists, hex);
    if (!exists || strcmp(hex, dep->sha256) != 0)
        return "changed";
    dep->mtime_ns = gal__mtime_ns(&st);
    return NULL;
}

static gal_why
decide(run_ctx *ctx, gal_manifest *m, GPtrArray *keys, int i, char **detail)
{
    gal_photo_result *result = &ctx->summary->photos[i];
    photo_plan *plan = &ctx->plans[i];
    g_autofree char *rel_out = gal__relative_path(ctx->out_dir, ctx->outputs[i]);
    g_autofree char *rel_in = gal__relative_path(ctx->out_dir, result->input);
    gal_manifest_entry *e = g_hash_table_lookup(m->entries, rel_out);
    file_ref photo = { result->input, -1 };
    gboolean exists;

    if (!e || e->sheet)
        return GAL_WHY_NEW;
    if (strcmp(e->input, rel_in) != 0) {
        *detail = g_strdup_printf("it was made from %s", e->input);
        return GAL_WHY_OTHER_INPUT;
    }
    if (strcmp(e->version, GAL_VERSION) != 0) {
        *detail = g_strdup_printf("made by gallop %s, this is %s", e->version, GAL_VERSION);
        return GAL_WHY_VERSION_CHANGED;
    }
    if (strcmp(e->preset_digest, ctx->preset_digest) != 0) {
        *detail = gal__keys_diff(g_hash_table_lookup(m->presets, e->preset_digest), keys);
        return GAL_WHY_PRESET_CHANGED;
    }
    if (!same_file_hashed(&photo, &e->in_size, &e->in_mtime_ns, e->in_sha256, &plan->in_st,
            plan->in_sha256))
        return GAL_WHY_INPUT_CHANGED;
    for (guint d = 0; d < e->deps->len; d++) {
        gal_dep_record *dep = e->deps->pdata[d];
        const char *change = dependency_change(dep);

        if (change) {
            *detail = g_strdup_printf("%s %s", dep->path, change);
            return GAL_WHY_DEPENDENCY_CHANGED;
        }
    }
    if (!same_output(ctx, rel_out, &e->out_size, &e->out_mtime_ns, e->out_sha256, &exists))
        return exists ? GAL_WHY_OUTPUT_MODIFIED : GAL_WHY_OUTPUT_MISSING;
    g_strlcpy(plan->in_sha256, e->in_sha256, sizeof(plan->in_sha256));
    result->width = e->width;
    result->height = e->height;
    result->bytes = e->out_size;
    g_strlcpy(result->sha256, e->out_sha256, sizeof(result->sha256));
    /* The report of a rerun still tells what each photo shows. */
    result->caption = g_strdup(e->caption);
    result->caption_source = g_strdup(e->caption_source);
    result->caption_cut = e->caption_cut;
    return GAL_WHY_UP_TO_DATE;
}

/* The digest of a contact sheet's members: every planned photo and its
 * contents. "" when some photo's digest is not known. */
static void
members_digest(run_ctx *ctx, char *hex)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);

    hex[0] = '\0';
    for (int i = 0; i < ctx->summary->total; i++) {
        g_autofree char *rel = NULL;

        if (!ctx->plans[i].member)
            continue;
        if (!ctx->plans[i].in_sha256[0])
            return;
        rel = gal__relative_path(ctx->out_dir, ctx->summary->photos[i].input);
        g_checksum_update(sum, (const guchar *) rel, -1);
        g_checksum_update(sum, (const guchar *) "\t", 1);
        g_checksum_update(sum, (const guchar *) ctx->plans[i].in_sha256, -1);
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
}

/* stat() a file into a members digest, by its path relative to the output
 * folder (as the photos are): "-" when it does not exist. */
static void
digest_stat(run_ctx *ctx, GChecksum *sum, const char *label, const char *path)
{
    g_autofree char *rel = gal__relative_path(ctx->out_dir, path);
    g_autofree char *line = NULL;
    struct stat st;

    if (stat(path, &st) == 0)
        line = g_strdup_printf("\t%s %s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, label, rel,
            (gint64) st.st_size, gal__mtime_ns(&st));
    else
        line = g_strdup_printf("\t%s %s -", label, rel);
    g_checksum_update(sum, (const guchar *) line, -1);
}

/* The members of a sheets-only run (output.photos false) by what stat()
 * says: each photo's path, size and time as planned and, when the preset
 * shows a caption, those of the files it may come from (a sidecar). There
 * are no per-photo records holding content hashes to compare with, and
 * hashing every photo on each rerun would cost a good part of what a quick
 * proof saves; a photo only touched, or checked out again, makes the
 * sheets again. Its first line keeps it from ever equalling a
 * members_digest. */
static void
stat_members_digest(run_ctx *ctx, char *hex)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    gboolean captions = gal__preset_uses_field(ctx->preset, "caption");

    g_checksum_update(sum, (const guchar *) "members by stat\n", -1);
    for (int i = 0; i < ctx->summary->total; i++) {
        const photo_plan *plan = &ctx->plans[i];
        g_autofree char *rel = NULL;
        g_autofree char *line = NULL;

        if (!plan->member)
            continue;
        rel = gal__relative_path(ctx->out_dir, ctx->summary->photos[i].input);
        line = g_strdup_printf("%s\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT, rel,
            (gint64) plan->in_st.st_size, gal__mtime_ns(&plan->in_st));
        g_checksum_update(sum, (const guchar *) line, -1);
        if (captions) {
            g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

            gal__caption_files(ctx->preset->captions, ctx->summary->photos[i].input, files);
            for (guint d = 0; d < files->len; d++)
                digest_stat(ctx, sum, "caption", files->pdata[d]);
        }
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
}

/* Are the contact sheets recorded for exactly these `members` (a digest),
 * and intact? */
static gboolean
sheets_current(run_ctx *ctx, gal_manifest *m, const char *members)
{
    GHashTableIter it;
    gpointer value;
    int found = 0;

    if (!members[0])
        return FALSE;
    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        gal_manifest_entry *e = value;
        gboolean exists;

        if (!e->sheet || strcmp(e->in_sha256, members) != 0 ||
            strcmp(e->preset_digest, ctx->preset_digest) != 0 ||
            strcmp(e->version, GAL_VERSION) != 0)
            continue;
        if (!same_output(ctx, e->output, &e->out_size, &e->out_mtime_ns, e->out_sha256, &exists))
            return FALSE;
        found++;
    }
    return found > 0;
}

/* output.photos false: the sheets are the only outputs, so one decision
 * covers every photo. Stale (or --force): every member is opened for its
 * tile; current: none is, and every one is up to date. */
static void
decide_sheets_only(run_ctx *ctx, gal_manifest *m, const gal_run_options *opts, const int *all,
    int n_all)
{
    gal_run_summary *summary = ctx->summary;

    for (int k = 0; k < n_all; k++)
        if (stat(summary->photos[all[k]].input, &ctx->plans[all[k]].in_st) != 0)
            memset(&ctx->plans[all[k]].in_st, 0, sizeof(struct stat));
    stat_members_digest(ctx, ctx->stat_members);
    summary->sheets_stale =
        n_all > 0 && (opts->force || !sheets_current(ctx, m, ctx->stat_members));
    ctx->n_todo = 0;
    for (int k = 0; k < n_all; k++) {
        gal_photo_result *result = &summary->photos[all[k]];

        if (!summary->sheets_stale) {
            result->status = GAL_PHOTO_UP_TO_DATE;
            result->why = GAL_WHY_UP_TO_DATE;
            continue;
        }
        result->why = opts->force ? GAL_WHY_FORCED : GAL_WHY_SHEET;
        ctx->plans[all[k]].tap_only = TRUE;
        ctx->todo[ctx->n_todo++] = all[k];
    }
}

/* Split the planned photos into those to build (left in todo) and those
 * up to date; with a contact sheet to rebuild, up-to-date photos stay in
 * todo to give their tiles. */
static void
decide_all(run_ctx *ctx, gal_manifest *m, GPtrArray *keys, const gal_run_options *opts)
{
    gal_run_summary *summary = ctx->summary;
    g_autofree int *all = g_memdup2(ctx->todo, sizeof(int) * MAX(1, ctx->n_todo));
    int n_all = ctx->n_todo;
    gboolean gather = gal__preset_has_gather(ctx->preset);

    if (ctx->sheets_only) {
        decide_sheets_only(ctx, m, opts, all, n_all);
        return;
    }
    ctx->n_todo = 0;
    for (int k = 0; k < n_all; k++) {
        int i = all[k];
        gal_photo_result *result = &summary->photos[i];
        char *detail = NULL;

        if (stat(result->input, &ctx->plans[i].in_st) != 0)
            memset(&ctx->plans[i].in_st, 0, sizeof(struct stat));
        result->why = opts->force ? GAL_WHY_FORCED : decide(ctx, m, keys, i, &detail);
        result->why_detail = detail;
        if (result->why == GAL_WHY_UP_TO_DATE)
            result->status = GAL_PHOTO_UP_TO_DATE;
        else
            ctx->todo[ctx->n_todo++] = i;
    }
    if (gather && n_all > 0) {
        char members[65];

        members_digest(ctx, members);
        summary->sheets_stale = ctx->n_todo > 0 || !sheets_current(ctx, m, members);
    }
    if (summary->sheets_stale && !opts->dry_run) {
        for (int k = 0; k < n_all; k++) {
            gal_photo_result *result = &summary->photos[all[k]];

            if (result->status == GAL_PHOTO_UP_TO_DATE) {
                ctx->plans[all[k]].tap_only = TRUE;
                result->why = GAL_WHY_SHEET;
            }
        }
        /* Every member, in input order: the gather puts them in its own. */
        memcpy(ctx->todo, all, sizeof(int) * n_all);
        ctx->n_todo = n_all;
    }
}

/* ---- after the run ---------------------------------------------------------------------- */

static void
record_sheets(run_ctx *ctx, gal_manifest *m, GHashTable *written)
{
    char members[65];

    if (ctx->sheets_only) {
        gboolean all_in = TRUE;

        for (int i = 0; i < ctx->summary->total; i++)
            if (ctx->plans[i].member && ctx->summary->photos[i].status == GAL_PHOTO_FAILED)
                all_in = FALSE;
        /* A sheet a photo failed to get onto is recorded for no members,
         * so the next run tries that photo again (as it would retry its
         * file with output.photos true) rather than call it up to date. */
        g_strlcpy(members, all_in ? ctx->stat_members : "", sizeof(members));
    }
    else
        members_digest(ctx, members);
    for (int k = 0; k < ctx->summary->n_sheets; k++) {
        gal_photo_result *sheet = &ctx->summary->sheets[k];
        g_autofree char *rel = gal__relative_path(ctx->out_dir, sheet->output);
        gal_manifest_entry *e;
        gint64 bytes = 0;
        struct stat st;

        if (sheet->status != GAL_PHOTO_DONE ||
            gal__sha256_beneath(ctx->claim.fd, rel, sheet->sha256, &bytes) ||
            gal__stat_beneath(ctx->claim.fd, rel, &st) != 0)
            continue;
        sheet->bytes = bytes;
        e = gal__manifest_entry_new();
        e->sheet = TRUE;
        e->output = g_steal_pointer(&rel);
        e->input = g_strdup("");
        g_strlcpy(e->in_sha256, members, sizeof(e->in_sha256));
        g_strlcpy(e->preset_digest, ctx->preset_digest, sizeof(e->preset_digest));
        e->version = g_strdup(GAL_VERSION);
        e->out_size = sheet->bytes;
        e->out_mtime_ns = gal__mtime_ns(&st);
        g_strlcpy(e->out_sha256, sheet->sha256, sizeof(e->out_sha256));
        e->width = sheet->width;
        e->height = sheet->height;
        g_hash_table_add(written, g_strdup(e->output));
        gal__manifest_put(m, e);
    }
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Outputs whose photo is gone (and, after new contact sheets, old sheets
 * not made again): listed, and removed with --prune. */
static void
find_orphans(run_ctx *ctx, gal_manifest *m, const gal_run_options *opts, GHashTable *sheets)
{
    g_autoptr(GArray) orphans = g_array_new(FALSE, TRUE, sizeof(gal_orphan));
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    /* Photo -> its output in this run, for outputs a photo no longer makes
     * (its name template or EXIF date changed). */
    g_autoptr(GHashTable) now = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    /* Sheets only: the run's photos, which make no file of their own now. */
    g_autoptr(GHashTable) members = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTableIter it;
    gpointer key;

    for (int i = 0; i < ctx->summary->total; i++) {
        gal_photo_status status = ctx->summary->photos[i].status;

        if (ctx->outputs[i] && (status == GAL_PHOTO_DONE || status == GAL_PHOTO_UP_TO_DATE ||
                                   status == GAL_PHOTO_PLANNED))
            g_hash_table_insert(now,
                gal__relative_path(ctx->out_dir, ctx->summary->photos[i].input),
                gal__relative_path(ctx->out_dir, ctx->outputs[i]));
        if (ctx->sheets_only && ctx->plans[i].member)
            g_hash_table_add(members,
                gal__relative_path(ctx->out_dir, ctx->summary->photos[i].input));
    }
    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, &key, NULL))
        g_ptr_array_add(names, key);
    g_ptr_array_sort(names, compare_strings);
    for (guint k = 0; k < names->len; k++) {
        gal_manifest_entry *e = g_hash_table_lookup(m->entries, names->pdata[k]);
        g_autofree char *input = NULL;
        g_autofree char *output = g_build_filename(ctx->out_dir, e->output, NULL);
        gal_orphan o = { 0 };
        struct stat st;

        if (e->sheet) {
            if (!sheets || g_hash_table_contains(sheets, e->output))
                continue;
        }
        else {
            const char *made = g_hash_table_lookup(now, e->input);

            input = g_canonicalize_filename(e->input, ctx->out_dir);
            o.renamed = made && strcmp(made, e->output) != 0;
            o.not_made = g_hash_table_contains(members, e->input);
            if (!o.renamed && !o.not_made && (lstat(input, &st) == 0 || errno != ENOENT))
                continue;
        }
        o.output = g_strdup(output);
        o.input = g_strdup(e->sheet ? "(contact sheet)" : input);
        if (opts->prune && !opts->dry_run) {
            gboolean exists;

            /* Only ever beneath the output folder (the manifest's names were
             * checked when it was read), never through a link, and only
             * what gallop wrote, unchanged. */
            if (same_output(ctx, e->output, &e->out_size, &e->out_mtime_ns, e->out_sha256,
                    &exists))
                o.removed = gal__unlink_beneath(ctx->claim.fd, ctx->out_dir, e->output,
                                &o.error) == 0;
            else if (!exists && errno == ENOENT)
                o.removed = TRUE; /* gone already: only the record goes */
            else
                gal_error_set(&o.error, GAL_ERR_OUTPUT, NULL, NULL,
                    "%s changed since gallop wrote it: not removed", output);
            if (o.removed)
                g_hash_table_remove(m->entries, e->output);
        }
        g_array_append_val(orphans, o);
    }
    ctx->summary->n_orphans = (int) orphans->len;
    ctx->summary->orphans = (gal_orphan *) g_array_free(g_steal_pointer(&orphans), FALSE);
}

static void
count(gal_run_summary *summary)
{
    for (int i = 0; i < summary->total; i++)
        switch (summary->photos[i].status) {
        case GAL_PHOTO_DONE: summary->done++; break;
        case GAL_PHOTO_FAILED: summary->failed++; break;
        case GAL_PHOTO_IGNORED: summary->ignored++; break;
        case GAL_PHOTO_PLANNED: summary->planned++; break;
        case GAL_PHOTO_UP_TO_DATE: summary->up_to_date++; break;
        case GAL_PHOTO_CANCELLED: summary->cancelled++; break;
        }
}

static long long
peak_rss_bytes(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (long long) ru.ru_maxrss * 1024; /* kilobytes on Linux */
}

/* Start the workers and wait for them, watching the cancel flag: once it
 * is set, the evaluations in flight are killed. */
static void
run_workers(shared_run *run, const gal_run_options *opts)
{
    int vips_threads;
    int workers = gal__schedule_workers(opts->jobs, run->n_todo, &vips_threads);
    GThread **threads = g_new0(GThread *, workers);

    vips_concurrency_set(vips_threads);
    run->live = workers;
    for (int w = 0; w < workers; w++)
        threads[w] = g_thread_new("gallop-worker", worker, run);
    g_mutex_lock(&run->wait_lock);
    while (run->live > 0) {
        g_cond_wait_until(&run->wait_cond, &run->wait_lock, g_get_monotonic_time() + 50000);
        gal__cancel_poll(run->cancel);
    }
    g_mutex_unlock(&run->wait_lock);
    for (int w = 0; w < workers; w++)
        g_thread_join(threads[w]);
    g_free(threads);
}

/* The photos to open, each once, with the presets that build it: the
 * first contact sheet's order first (so its pages complete in turn), then
 * whatever the other presets add. */
static void
merge_todo(shared_run *run)
{
    g_autoptr(GHashTable) position = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(int));
    int n = run->n_runs;

    for (int r = 0; r < n; r++) {
        run_ctx *ctx = run->runs[r];

        for (int k = 0; k < ctx->n_todo; k++) {
            int i = ctx->todo[k];
            const char *input = ctx->summary->photos[i].input;
            gpointer found;
            guint at;

            if (g_hash_table_lookup_extended(position, input, NULL, &found))
                at = GPOINTER_TO_UINT(found);
            else {
                at = todo->len / n;
                g_hash_table_insert(position, (gpointer) input, GUINT_TO_POINTER(at));
                for (int q = 0; q < n; q++) {
                    int none = -1;

                    g_array_append_val(todo, none);
                }
            }
            g_array_index(todo, int, at * n + r) = i;
        }
    }
    run->n_todo = (int) (todo->len / n);
    run->todo = (int *) g_array_free(g_steal_pointer(&todo), FALSE);
}

/* A preset's name becomes its folder when several presets run together. */
static gboolean
folder_name_ok(const char *name)
{
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || name[0] == '.')
        return FALSE;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\' || (unsigned char) *p < 0x20)
            return FALSE;
    return TRUE;
}

/* Several presets: each needs a name that can be a folder, and no two the
 * same (their outputs would mix in one folder and manifest). */
static int
check_presets(const gal_preset *const *presets, int n, gal_errors *errs)
{
    int failed = 0;

    for (int r = 0; r < n && n > 1; r++) {
        if (!folder_name_ok(presets[r]->name))
            failed = gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
                "%s: preset name \"%s\" cannot be a folder name, and with several presets "
                "each writes to a folder named after it (set `name:` in the preset)",
                presets[r]->path, presets[r]->name);
        for (int q = 0; q < r; q++)
            if (strcmp(presets[q]->name, presets[r]->name) == 0) {
                if (strcmp(presets[q]->path, presets[r]->path) == 0)
                    failed = gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
                        "preset %s is given twice", presets[r]->path);
                else
                    failed = gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
                        "presets %s and %s are both named \"%s\": each preset writes to a "
                        "folder named after it, so names must differ",
                        presets[q]->path, presets[r]->path, presets[r]->name);
                break;
            }
    }
    return failed;
}

/* Plan one preset's part: inputs, output names, what is up to date. */
static int
prepare_run(run_ctx *ctx, const gal_run_options *opts, const char *skip_dir, gal_errors *errs)
{
    const gal_preset *preset = ctx->preset;
    gal_run_summary *summary = ctx->summary;
    const char *const *paths = opts->inputs;
    int n_paths = opts->n_inputs;

    if (n_paths == 0 && preset->input->paths) {
        paths = (const char *const *) preset->input->paths;
        n_paths = (int) g_strv_length(preset->input->paths);
    }
    if (n_paths == 0)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "no photos to process: name files or folders, or set input.paths in the preset");
    if (gal__inputs_collect(preset->input, paths, n_paths, skip_dir, opts->follow_symlinks,
            &ctx->inputs, errs))
        return -1;

    /* Claimed before the manifest is read, so no other run changes it
     * between this run's reading and writing it. A dry run writes nothing
     * and may look while another run works. */
    {
        gal_error err = { 0 };

        if (gal__out_dir_claim(ctx->out_dir, !opts->dry_run, &ctx->claim, &err)) {
            gal__errors_add(errs, &err);
            return -1;
        }
    }

    summary->total = (int) ctx->inputs->len;
    summary->photos = g_new0(gal_photo_result, MAX(1, summary->total));
    ctx->outputs = g_new0(char *, MAX(1, summary->total));
    ctx->todo = g_new0(int, MAX(1, summary->total));
    ctx->plans = g_new0(photo_plan, MAX(1, summary->total));
    ctx->manifest = gal__manifest_load(ctx->out_dir);
    plan(ctx, ctx->inputs, ctx->out_dir, ctx->manifest);
    for (int i = 0; i < summary->total; i++)
        summary->photos[i].preset = summary->preset;
    ctx->keys = gal__preset_keys(preset);
    gal__keys_digest(ctx->keys, ctx->preset_digest);
    decide_all(ctx, ctx->manifest, ctx->keys, opts);
    return 0;
}

/* Photos refused by the plan are reported first, then those that are up
 * to date, in input order; in a dry run, then those it would build. */
static void
report_planned(run_ctx *ctx, gboolean dry_run)
{
    gal_run_summary *summary = ctx->summary;

    for (int i = 0; i < summary->total; i++)
        if (!ctx->plans[i].member)
            report(ctx, &summary->photos[i], next_done(ctx));
    for (int i = 0; i < summary->total; i++)
        if (summary->photos[i].status == GAL_PHOTO_UP_TO_DATE)
            report(ctx, &summary->photos[i], next_done(ctx));
    for (int k = 0; k < ctx->n_todo && dry_run; k++) {
        gal_photo_result *result = &summary->photos[ctx->todo[k]];

        result->status = GAL_PHOTO_PLANNED;
        report(ctx, result, next_done(ctx));
    }
}

/* After the workers: contact sheets, cancelled photos, orphans, and the
 * manifest saved once more with everything. */
static void
conclude_run(run_ctx *ctx, const gal_run_options *opts)
{
    gal_run_summary *summary = ctx->summary;
    g_autoptr(GHashTable) new_sheets = NULL;

    if (ctx->gather) {
        GArray *sheets = gal__gather_free(g_steal_pointer(&ctx->gather));

        summary->n_sheets = (int) sheets->len;
        summary->sheets = (gal_photo_result *) g_array_free(sheets, FALSE);
        for (int k = 0; k < summary->n_sheets; k++)
            summary->sheets[k].preset = summary->preset;
    }
    summary->interrupted = gal__cancelled(ctx->run->cancel);
    for (int k = 0; k < ctx->n_todo && !opts->dry_run; k++) {
        int i = ctx->todo[k];

        /* An up-to-date photo only read for a sheet stays up to date. */
        if (!ctx->plans[i].started && (!ctx->plans[i].tap_only || ctx->sheets_only))
            summary->photos[i].status = GAL_PHOTO_CANCELLED;
    }
    if (summary->n_sheets > 0 && !summary->interrupted) {
        new_sheets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        record_sheets(ctx, ctx->manifest, new_sheets);
        gal__manifest_put_keys(ctx->manifest, ctx->preset_digest, ctx->keys);
    }
    find_orphans(ctx, ctx->manifest, opts, new_sheets);
    if (!opts->dry_run)
        gal__manifest_save(ctx->manifest, &summary->manifest_error);
    summary->leftovers_removed = ctx->claim.leftovers_removed;
    g_ptr_array_add(ctx->manifest->warnings, NULL);
    summary->warnings = g_strdupv((char **) ctx->manifest->warnings->pdata);
    g_ptr_array_set_size(ctx->manifest->warnings, ctx->manifest->warnings->len - 1);
    count(summary);
}

static void
clear_run(run_ctx *ctx)
{
    int total = ctx->summary ? ctx->summary->total : 0;

    gal__manifest_free(ctx->manifest);
    /* After the last save: the lock is held until the manifest is written. */
    gal__out_dir_release(&ctx->claim);
    g_mutex_clear(&ctx->manifest_lock);
    for (int i = 0; i < total && ctx->outputs; i++) {
        g_free(ctx->outputs[i]);
        gal__manifest_entry_free(ctx->plans[i].entry);
    }
    if (ctx->keys)
        g_ptr_array_unref(ctx->keys);
    g_free(ctx->gather_id);
    g_free(ctx->plans);
    g_free(ctx->outputs);
    g_free(ctx->todo);
    g_free(ctx->out_dir);
    if (ctx->inputs)
        gal__inputs_free(ctx->inputs);
}

int
gal_run_presets(const gal_preset *const *presets, int n, const gal_run_options *opts,
    gal_run_summary **out, gal_errors *errs)
{
    g_autofree run_ctx *ctxs = g_new0(run_ctx, MAX(1, n));
    g_autofree run_ctx **runs = g_new0(run_ctx *, MAX(1, n));
    shared_run run = { 0 };
    gint64 start = g_get_monotonic_time();
    int status = 0;

    run.runs = runs;
    run.n_runs = n;
    run.progress = opts->progress;
    run.user = opts->user;
    run.cancel = gal__cancel_new(opts->cancel);
    run.solo = gal__solo_new();
    g_mutex_init(&run.progress_lock);
    g_mutex_init(&run.wait_lock);
    g_cond_init(&run.wait_cond);

    /* One preset writes into the output folder itself; several write into
     * a folder each, named after the preset, inside it. */
    for (int r = 0; r < n; r++) {
        run_ctx *ctx = &ctxs[r];
        g_autofree char *dir = g_canonicalize_filename(
            opts->output_dir ? opts->output_dir : presets[r]->output->dir, NULL);

        runs[r] = ctx;
        ctx->run = &run;
        ctx->preset = presets[r];
        ctx->summary = out[r] = g_new0(gal_run_summary, 1);
        ctx->summary->preset = g_strdup(presets[r]->name);
        ctx->sheets_only = !presets[r]->output->photos;
        ctx->follow_links = opts->follow_symlinks;
        ctx->summary->sheets_only = ctx->sheets_only;
        ctx->out_dir = n > 1 ? g_build_filename(dir, presets[r]->name, NULL) : g_strdup(dir);
        ctx->summary->output_dir = g_strdup(ctx->out_dir);
        g_mutex_init(&ctx->manifest_lock);
        ctx->claim = (gal_out_dir) { .fd = -1 };
        /* The first output is saved at once, then at most every interval. */
        ctx->manifest_saved = start - MANIFEST_SAVE_INTERVAL_US;
    }
    if (n < 1)
        status = gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL, "no preset to run");
    else
        status = check_presets(presets, n, errs);
    /* Each preset collects its own photos (its input section may choose
     * others), never from inside any output folder of the run. */
    for (int r = 0; r < n && status == 0; r++) {
        g_autofree char *skip = n > 1 ? g_path_get_dirname(ctxs[r].out_dir) : NULL;

        status = prepare_run(&ctxs[r], opts, skip ? skip : ctxs[r].out_dir, errs);
    }
    if (status == 0) {
        for (int r = 0; r < n; r++)
            run.total += ctxs[r].summary->total;
        for (int r = 0; r < n; r++)
            report_planned(&ctxs[r], opts->dry_run);
        if (!opts->dry_run && !gal__cancelled(run.cancel)) {
            for (int r = 0; r < n; r++)
                if (ctxs[r].n_todo > 0)
                    order_for_gather(&ctxs[r]);
            merge_todo(&run);
            if (run.n_todo > 0)
                run_workers(&run, opts);
        }
        for (int r = 0; r < n; r++)
            conclude_run(&ctxs[r], opts);
    }
    for (int r = 0; r < n; r++) {
        ctxs[r].summary->seconds = (g_get_monotonic_time() - start) / 1e6;
        ctxs[r].summary->peak_rss_bytes = peak_rss_bytes();
        clear_run(&ctxs[r]);
    }
    g_mutex_clear(&run.progress_lock);
    g_mutex_clear(&run.wait_lock);
    g_cond_clear(&run.wait_cond);
    gal__cancel_free(run.cancel);
    gal__solo_free(run.solo);
    g_free(run.todo);
    return status;
}

int
gal_run(const gal_preset *preset, const gal_run_options *opts, gal_run_summary **out,
    gal_errors *errs)
{
    return gal_run_presets(&preset, 1, opts, out, errs);
}

static void
free_result(gal_photo_result *r)
{
    g_free((char *) r->input);
    g_free((char *) r->output);
    g_free((char *) r->why_detail);
    g_free((char *) r->caption);
    g_free((char *) r->caption_source);
}

void
gal_run_summary_free(gal_run_summary *summary)
{
    if (!summary)
        return;
    for (int i = 0; i < summary->total; i++)
        free_result(&summary->photos[i]);
    for (int i = 0; i < summary->n_sheets; i++)
        free_result(&summary->sheets[i]);
    for (int i = 0; i < summary->n_orphans; i++) {
        g_free((char *) summary->orphans[i].output);
        g_free((char *) summary->orphans[i].input);
    }
    g_free(summary->orphans);
    g_strfreev(summary->warnings);
    g_free((char *) summary->output_dir);
    g_free((char *) summary->preset);
    g_free(summary->sheets);
    g_free(summary->photos);
    g_free(summary);
}
