/* exec.c: the workers (engine.h). Each takes the next photo and opens it
 * once for every product every preset makes of it (decoded at the largest
 * size they need); a preset's pages are made by the worker that completes
 * their last item. A photo that fails is run again alone, for a reason
 * that is its own (solo.h). The calling thread waits, watching the cancel
 * and each photo's time (cancel.h). */
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "engine.h"

void
gal__report(preset_run *pr, const gal_photo_result *photo)
{
    engine *e = pr->engine;
    int done = g_atomic_int_add(&e->finished, 1) + 1;

    if (!e->progress)
        return;
    g_mutex_lock(&e->progress_lock);
    e->progress(pr->summary, photo, done, e->total, e->user);
    g_mutex_unlock(&e->progress_lock);
}

static void
job_clear(gal_job *job)
{
    VIPS_UNREF(job->gather_item);
    if (job->about)
        g_ptr_array_unref(job->about);
    if (job->depends)
        g_ptr_array_unref(job->depends);
    g_string_chunk_free(job->strings);
    g_free(job->output_rel);
    for (int v = 0; job->variant_rels && v < job->n_variants; v++)
        g_free(job->variant_rels[v]);
    g_free(job->variant_rels);
    g_free(job->files);
}

/* The SHA-256 of each file the photo's item stands for, as its record
 * keeps it, and its input's digest: a zip of them (a gallery's album.zip)
 * or its published original is then known by what it holds, without
 * reading them. */
static void
item_digests(const preset_run *pr, int i, const gal_job *job)
{
    const gal_photo_result *result = &pr->summary->photos[i];
    const gal_photo_notes *notes = gal_photo_notes_of(result);
    char source[65];

    if (job->gather_item && *gal__plan_digest_hex(&pr->plans[i], source))
        vips_image_set_string(job->gather_item, GAL_META_SOURCE_DIGEST, source);
    if (!job->gather_item || !job->variant_rels)
        return;
    if (notes->n_files == 0)
        gal__item_add_digest(job->gather_item, job->variant_rels[0], &result->sha256);
    for (int f = 0; f < notes->n_files && f < job->n_variants; f++)
        gal__item_add_digest(job->gather_item, job->variant_rels[f], &notes->files[f].sha256);
}

/* After the photo's jobs ran: its result, record and progress in one run. */
static void
finish_photo(preset_run *pr, int i, gal_job *job, const gal_error *job_failure, gint64 start)
{
    gal_photo_result *result = &pr->summary->photos[i];
    photo_plan *plan = &pr->plans[i];
    gal_error item_err = { 0 };
    const gal_error *job_err = job_failure;
    gboolean failed = job_err->code != GAL_OK;
    /* The photo's status is its output's; without a file of its own
     * (output.photos false), its item's. An up-to-date photo read only for
     * its item stays UP_TO_DATE. */
    gboolean reported = plan->build_output || !plan->has_output;
    gboolean record_outputs = FALSE;

    /* A shard keeps the item for the merge; the photo fails without it,
     * or its pages would be made without it. */
    if (!failed && pr->config->sink->keep_item && plan->build_item &&
        pr->config->sink->keep_item(pr, i, job, &item_err)) {
        job_err = &item_err;
        failed = TRUE;
    }
    if (failed && pr->config->sink->keep_item && plan->build_item)
        reported = TRUE;

    if (!reported)
        ; /* still UP_TO_DATE: its own output was not touched */
    else if (!failed) {
        /* Allocated when the photo has any (a multi-file photo's files
         * have them already from its plan). */
        gal_photo_notes *notes = job->caption || job->caption_source || job->caption_cut ||
            job->warnings || result->notes ? gal__photo_notes(result) : NULL;

        result->status = GAL_PHOTO_DONE;
        if (notes) {
            notes->caption = gal__shared_text(job->caption);
            notes->caption_source = gal__shared_text(job->caption_source);
            notes->caption_cut = job->caption_cut;
            notes->warnings = g_strdup(job->warnings);
        }
        if (plan->build_output) {
            int n_files = notes ? notes->n_files : 0;

            /* With its page label, its place in a `sort: date` album: the
             * pages are then planned without reading its header again. */
            if (pr->config->items_from_records && job->about && job->make_item)
                g_ptr_array_add(job->about,
                    g_strdup_printf(GAL_ABOUT_PAGE_TIME "=%" G_GINT64_FORMAT,
                        (gint64) gal__sort_time(&job->facts, job->input)));

            result->about = gal__about_from_array(job->about);
            if (plan->stale_files & 1) {
                result->width = job->out_width;
                result->height = job->out_height;
                result->bytes = job->out_bytes;
                gal__sha256_from_hex(&result->sha256, job->out_sha256);
            }
            else if (n_files > 0) {
                /* The first file stayed as it was: its record's figures. */
                result->width = notes->files[0].width;
                result->height = notes->files[0].height;
                result->bytes = notes->files[0].bytes;
                result->sha256 = notes->files[0].sha256;
            }
            for (int f = 0; f < n_files; f++) {
                gal_output_file *file = &notes->files[f];

                /* Files left up to date keep the figures decide took from
                 * their records. */
                if (!(plan->stale_files & (G_GUINT64_CONSTANT(1) << f)))
                    continue;
                file->written = TRUE;
                file->width = job->files[f].width;
                file->height = job->files[f].height;
                file->bytes = job->files[f].bytes;
                gal__sha256_from_hex(&file->sha256, job->files[f].sha256);
            }
            record_outputs = TRUE;
        }
    }
    else if (gal__cancelled(pr->engine->cancel)) {
        /* Stopped on purpose: not a failure of the photo. */
        result->status = GAL_PHOTO_CANCELLED;
        vips_error_clear();
    }
    else {
        result->status = GAL_PHOTO_FAILED;
        *gal__photo_error(result) = *job_err;
        /* With several presets, the error says which one failed. */
        if (pr->engine->n_runs > 1) {
            g_autofree char *subject = g_strdup_printf("%s (preset %s)", result->input,
                pr->config->preset->name);

            gal_error_set_subject(gal__photo_error(result), subject);
        }
        else
            gal_error_set_subject(gal__photo_error(result), result->input);
    }
    /* Timed before it is recorded: a shard's part keeps the result with
     * the record (record_sink.photo_built). */
    result->seconds = (g_get_monotonic_time() - start) / 1e6;
    if (!failed) {
        /* The photo's records (and a shard's result) in one commit: a run
         * killed at any moment keeps every photo it finished. */
        g_mutex_lock(&pr->record_lock);
        if (record_outputs)
            gal__record_output(pr, i, job);
        if (pr->config->sink->photo_built && result->status == GAL_PHOTO_DONE)
            pr->config->sink->photo_built(pr, i);
        gal__record_commit(pr, FALSE);
        g_mutex_unlock(&pr->record_lock);
    }
    /* A failed photo still counts towards its page, as a gap closed up;
     * after a cancel no page is finished half-empty. */
    if (pr->gather && !failed)
        item_digests(pr, i, job);
    if (pr->gather && !gal__cancelled(pr->engine->cancel))
        gal__gather_done(pr->gather, pr->gather_id[i],
            !failed ? g_steal_pointer(&job->gather_item) : NULL);
    job_clear(job);
    /* An up-to-date photo read for its item was reported before the run. */
    if (reported)
        gal__report(pr, result);
}

/* One photo: the jobs of every preset that builds it (or takes its
 * contact-sheet tile), from one read of the file. `slots[r]` is its index
 * in run r, or -1. A job that fails (not stopped by the run or its time)
 * is not finished here: its slot goes into `retry` (the others are -1)
 * and TRUE is returned, for the caller to run it again solo (solo.h),
 * where `solo` is set and every job is finished, whatever happens. */
static gboolean
run_photo(engine *run, const int *slots, gboolean solo, int *retry)
{
    gboolean again = FALSE;
    int n = run->n_runs;
    g_autofree gal_job *jobs = g_new0(gal_job, n);
    g_autofree gal_job **live = g_new0(gal_job *, n);
    g_autofree gal_error *errs = g_new0(gal_error, n);
    g_autofree int *live_run = g_new0(int, n);
    gint64 start = g_get_monotonic_time();
    const char *input = NULL;
    gal_photo_digest digest = { "", 0 };
    gboolean want_digest = FALSE;
    gal_watch *watch;
    gint64 admitted_bytes = -1;
    double seconds = 0;
    gint64 memory_bytes = 0;
    int n_live = 0;

    for (int r = 0; r < n; r++) {
        preset_run *pr = run->runs[r];
        int i = slots[r];

        if (i < 0)
            continue;
        input = pr->summary->photos[i].input;
        pr->plans[i].started = TRUE;
        if (pr->plans[i].has_digest)
            gal__plan_digest_hex(&pr->plans[i], digest.hex);
        want_digest |= pr->plans[i].build_output;
    }
    /* One decode serves every preset, so the photo gets the most generous
     * of their budgets. */
    for (int r = 0; r < n; r++)
        if (slots[r] >= 0) {
            const gal_input_opts *in = run->runs[r]->config->preset->input;

            seconds = MAX(seconds, in->max_seconds);
            memory_bytes = MAX(memory_bytes, (gint64) in->max_memory_mb << 20);
        }
    watch = gal__watch_begin(run->cancel, seconds, memory_bytes);
    for (int r = 0; r < n; r++) {
        preset_run *pr = run->runs[r];
        int i = slots[r];
        photo_plan *plan;

        if (i < 0)
            continue;
        plan = &pr->plans[i];
        jobs[r] = (gal_job) { .preset = pr->config->preset, .input = input,
            .output_path = gal__output_of(pr, i, 0), .out_dir = &pr->claim,
            .input_root = pr->inputs[i].root,
            .follow_links = pr->config->follow_links,
            .output_rel = gal__output_of(pr, i, 0)
                ? gal__out_rel(pr, gal__output_of(pr, i, 0)) : NULL,
            .strings = g_string_chunk_new(256),
            .watch = watch, .make_output = plan->build_output,
            .make_item = plan->build_item, .solo = solo,
            .n_variants = pr->config->n_variants, .variants = pr->config->variants,
            .write_files = plan->stale_files };
        if (gal__output_of(pr, i, 0)) {
            jobs[r].variant_rels = g_new0(char *, pr->config->n_variants);
            jobs[r].files = g_new0(struct gal_job_file, pr->config->n_variants);
            for (int v = 0; v < pr->config->n_variants; v++)
                jobs[r].variant_rels[v] = gal__out_rel(pr, gal__output_of(pr, i, v));
        }
        gal__facts_from_path(pr->config->preset, input, gal__photo_number(pr, i), pr->run_total,
            &jobs[r].facts, jobs[r].strings);
        gal__facts_set_dir(&jobs[r].facts, gal__input_rel(&pr->inputs[i]),
            jobs[r].strings);
        if (pr->gather)
            jobs[r].gather_index = gal__gather_index(pr->gather, pr->gather_id[i]);
        live[n_live] = &jobs[r];
        live_run[n_live++] = r;
    }
    {
        g_autofree gal_error *live_errs = g_new0(gal_error, MAX(1, n_live));

        /* The photo's digest, once for every preset, is taken by the one
         * open the decoder reads (job.h). */
        gal__photo_run(live, n_live, want_digest ? &digest : NULL, run->admit,
            &admitted_bytes, live_errs);
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
        preset_run *pr = run->runs[r];
        int i = slots[r];

        if (i < 0 || !pr->plans[i].build_output)
            continue;
        if (!pr->plans[i].has_digest) {
            gal_digest taken;

            gal__digest_from_hex(&taken, digest.hex);
            gal__plan_set_digest(&pr->plans[i], &taken);
        }
        pr->summary->photos[i].hash_seconds = digest.seconds;
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
    /* The photo's images are released: its memory goes back to the run.
     * glibc keeps what a worker's decoder freed in that thread's arena,
     * for that thread to reuse: with two workers taking large photos in
     * turn, each held a phone HEIC's frame it no longer used, and a run
     * the budget held to 160 MiB of photos peaked at 220 MiB (bench,
     * phone set). A large photo's pages are handed back to the system. */
    if (admitted_bytes >= 0) {
#ifdef __GLIBC__
        if (admitted_bytes >= (gint64) 64 << 20)
            malloc_trim(0);
#endif
        gal__admit_give(run->admit, admitted_bytes);
    }
    return again;
}

static gpointer
worker(gpointer data)
{
    engine *run = data;
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

/* Start the workers and wait for them, watching the cancel flag: once it
 * is set, the evaluations in flight are killed. */
static void
run_workers(engine *run, const gal_run_options *opts)
{
    int workers = gal__schedule_workers(opts->jobs, run->n_todo);
    GThread **threads = g_new0(GThread *, workers);

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
merge_todo(engine *run)
{
    g_autoptr(GHashTable) position = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(int));
    int n = run->n_runs;

    for (int r = 0; r < n; r++) {
        preset_run *pr = run->runs[r];

        for (int k = 0; k < pr->n_todo; k++) {
            int i = pr->todo[k];
            const char *input = pr->summary->photos[i].input;
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


void
gal__exec(engine *e, const gal_run_options *opts)
{
    merge_todo(e);
    if (e->n_todo == 0)
        return;
    e->admit = gal__admit_new(opts->memory_bytes == 0 ? GAL_DEFAULT_MEMORY_BYTES
                                                      : opts->memory_bytes);
    run_workers(e, opts);
    gal__admit_free(g_steal_pointer(&e->admit));
}
