/* schedule.c: library start-up, the run plan, and the worker pool.
 *
 * A run is planned on the calling thread (inputs scanned and sorted, every
 * output name rendered and checked for collisions and for overwriting an
 * input), so what gets written never depends on scheduling. Workers then
 * take photos by an atomic index; each writes only its own result slot.
 * Everything they share (the preset, the plan) is read-only by then. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

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

int
gal_init(const char *argv0, gal_error *err)
{
    if (VIPS_INIT(argv0 ? argv0 : "gallop"))
        return gal_error_from_vips(err, GAL_ERR_INIT, NULL, "libvips failed to start");
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
        drop_log, NULL);
    /* Photos come from anywhere: keep to the well-fuzzed loaders. */
    vips_block_untrusted_set(TRUE);
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

typedef struct {
    const gal_preset *preset;
    gal_run_summary *summary;
    char **outputs;  /* planned output path per photo, NULL if none */
    int *todo;       /* photo indices to build */
    int n_todo;
    gint next;       /* atomic: next position in todo */
    gint finished;   /* atomic: photos finished, for progress */
    GMutex progress_lock;
    gal_progress_fn progress;
    void *user;
    gal_gather *gather;   /* the contact sheet, or NULL */
    int *gather_id;       /* photo index -> id in the gather's order */
} run_ctx;

static void
report(run_ctx *ctx, const gal_photo_result *photo, int done)
{
    if (!ctx->progress)
        return;
    g_mutex_lock(&ctx->progress_lock);
    ctx->progress(photo, done, ctx->summary->total, ctx->user);
    g_mutex_unlock(&ctx->progress_lock);
}

static gpointer
worker(gpointer data)
{
    run_ctx *ctx = data;
    int position;

    while ((position = g_atomic_int_add(&ctx->next, 1)) < ctx->n_todo) {
        int i = ctx->todo[position];
        gal_photo_result *result = &ctx->summary->photos[i];
        gal_job job = { ctx->preset, result->input, ctx->outputs[i], { 0 },
            g_string_chunk_new(256), 0, 0, 0, 0, 0, NULL };
        gint64 start = g_get_monotonic_time();

        gal__facts_from_path(ctx->preset, result->input, i + 1, ctx->summary->total,
            &job.facts, job.strings);
        if (ctx->gather)
            job.gather_index = gal__gather_index(ctx->gather, ctx->gather_id[i]);
        if (gal__job_run(&job, &result->error) == 0) {
            result->status = GAL_PHOTO_DONE;
            result->width = job.out_width;
            result->height = job.out_height;
        }
        else {
            result->status = GAL_PHOTO_FAILED;
            gal_error_set_subject(&result->error, result->input);
        }
        result->seconds = (g_get_monotonic_time() - start) / 1e6;
        if (ctx->gather) {
            /* A failed photo still counts towards its page, as a gap closed up. */
            gal__gather_done(ctx->gather, ctx->gather_id[i],
                result->status == GAL_PHOTO_DONE ? g_steal_pointer(&job.gather_item) : NULL);
        }
        VIPS_UNREF(job.gather_item);
        g_string_chunk_free(job.strings);
        report(ctx, result, g_atomic_int_add(&ctx->finished, 1) + 1);
    }
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

/* Decide each photo's output path; photos whose path is unusable fail
 * here, before anything is written. */
static void
plan(run_ctx *ctx, GArray *inputs, const char *out_dir)
{
    const gal_preset *preset = ctx->preset;
    gal_run_summary *summary = ctx->summary;
    g_autoptr(GHashTable) claimed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) input_paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) input_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean needs_exif = name_needs_exif(preset->output);

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
        if (!in->regular) {
            gal_error_set(&result->error, GAL_ERR_INPUT, NULL, NULL,
                "not a regular file (FIFO, device or socket): skipped, never opened");
            gal_error_set_subject(&result->error, result->input);
            result->status = GAL_PHOTO_IGNORED;
            continue;
        }
        gal__facts_from_path(preset, in->path, i + 1, summary->total, &facts, strings);
        if (needs_exif && gal__photo_facts(preset, in->path, &facts, strings, &result->error)) {
            gal_error_set_subject(&result->error, result->input);
            result->status = GAL_PHOTO_FAILED;
            continue;
        }
        if (!(path = gal__output_path(preset->output, out_dir, &facts, &result->error))) {
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
        ctx->outputs[i] = g_steal_pointer(&path);
        result->output = g_strdup(ctx->outputs[i]);
        ctx->todo[ctx->n_todo++] = i;
    }
}

/* With a contact sheet, photos are processed in the sheet's order, so its
 * pages complete (and are freed) one after another. */
static void
order_for_gather(run_ctx *ctx, const char *out_dir)
{
    g_autofree const char **paths = g_new0(const char *, ctx->n_todo);
    g_autofree int *order = g_new0(int, ctx->n_todo);
    g_autofree int *members = g_memdup2(ctx->todo, sizeof(int) * ctx->n_todo);

    for (int k = 0; k < ctx->n_todo; k++)
        paths[k] = ctx->summary->photos[members[k]].input;
    ctx->gather = gal__gather_new(ctx->preset, paths, ctx->n_todo, out_dir, order);
    if (!ctx->gather)
        return;
    ctx->gather_id = g_new0(int, ctx->summary->total);
    for (int k = 0; k < ctx->n_todo; k++) {
        ctx->gather_id[members[k]] = k;
        ctx->todo[k] = members[order[k]];
    }
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
        }
}

int
gal_run(const gal_preset *preset, const gal_run_options *opts, gal_run_summary **out,
    gal_errors *errs)
{
    gal_run_summary *summary = g_new0(gal_run_summary, 1);
    const char *const *paths = opts->inputs;
    int n_paths = opts->n_inputs;
    g_autofree char *out_dir = g_canonicalize_filename(
        opts->output_dir ? opts->output_dir : preset->output->dir, NULL);
    GArray *inputs = NULL;
    gint64 start = g_get_monotonic_time();
    run_ctx ctx = { 0 };

    *out = summary;
    if (n_paths == 0 && preset->input->paths) {
        paths = (const char *const *) preset->input->paths;
        n_paths = (int) g_strv_length(preset->input->paths);
    }
    if (n_paths == 0)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "no photos to process: name files or folders, or set input.paths in the preset");
    if (gal__inputs_collect(preset->input, paths, n_paths, out_dir, &inputs, errs))
        return -1;

    summary->total = (int) inputs->len;
    summary->photos = g_new0(gal_photo_result, MAX(1, summary->total));
    ctx = (run_ctx) { preset, summary, g_new0(char *, MAX(1, summary->total)),
        g_new0(int, MAX(1, summary->total)), 0, 0, 0, { 0 }, opts->progress, opts->user, NULL,
        NULL };
    g_mutex_init(&ctx.progress_lock);
    plan(&ctx, inputs, out_dir);

    /* Photos refused by the plan are reported first, in input order. */
    for (int i = 0; i < summary->total; i++)
        if (!ctx.outputs[i])
            report(&ctx, &summary->photos[i], g_atomic_int_add(&ctx.finished, 1) + 1);

    if (opts->dry_run) {
        for (int k = 0; k < ctx.n_todo; k++) {
            gal_photo_result *result = &summary->photos[ctx.todo[k]];

            result->status = GAL_PHOTO_PLANNED;
            report(&ctx, result, g_atomic_int_add(&ctx.finished, 1) + 1);
        }
    }
    else if (ctx.n_todo > 0) {
        int vips_threads;

        order_for_gather(&ctx, out_dir);
        int workers = gal__schedule_workers(opts->jobs, ctx.n_todo, &vips_threads);
        GThread **threads = g_new0(GThread *, workers);

        vips_concurrency_set(vips_threads);
        for (int w = 0; w < workers; w++)
            threads[w] = g_thread_new("gallop-worker", worker, &ctx);
        for (int w = 0; w < workers; w++)
            g_thread_join(threads[w]);
        g_free(threads);
    }

    if (ctx.gather) {
        GArray *sheets = gal__gather_free(ctx.gather);

        summary->n_sheets = (int) sheets->len;
        summary->sheets = (gal_photo_result *) g_array_free(sheets, FALSE);
        g_free(ctx.gather_id);
    }
    count(summary);
    summary->seconds = (g_get_monotonic_time() - start) / 1e6;
    g_mutex_clear(&ctx.progress_lock);
    for (int i = 0; i < summary->total; i++)
        g_free(ctx.outputs[i]);
    g_free(ctx.outputs);
    g_free(ctx.todo);
    gal__inputs_free(inputs);
    return 0;
}

void
gal_run_summary_free(gal_run_summary *summary)
{
    if (!summary)
        return;
    for (int i = 0; i < summary->total; i++) {
        g_free((char *) summary->photos[i].input);
        g_free((char *) summary->photos[i].output);
    }
    for (int i = 0; i < summary->n_sheets; i++) {
        g_free((char *) summary->sheets[i].input);
        g_free((char *) summary->sheets[i].output);
    }
    g_free(summary->sheets);
    g_free(summary->photos);
    g_free(summary);
}
