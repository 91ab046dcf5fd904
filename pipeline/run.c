/* run.c: gal_run_presets (engine.h): each preset's photos collected, its
 * output folder claimed and manifest read, its products planned and
 * decided; then the workers; then each preset's records, orphans, the
 * manifest saved, and its summary. */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine.h"
#include "legacy.h"

void
gal__count(gal_run_summary *summary)
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

/* The working folder as the system has it (canonical), or NULL. */
static char *
working_folder(void)
{
    char cwd[PATH_MAX];

    return getcwd(cwd, sizeof cwd) ? g_strdup(cwd) : NULL;
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

int
gal__collect(preset_run *pr, const gal_run_options *opts, const char *const *paths, int n_paths,
    const char *skip_dir, gboolean look_up, gal_errors *errs)
{
    const gal_preset *preset = pr->config->preset;
    gal_run_summary *summary = pr->summary;
    gal_scan_options scan;
    /* The captions table and export: read, so not reported as skipped when
     * they sit among the photos. */
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(gal_caption_row));
    g_autoptr(GPtrArray) reads = g_ptr_array_new();

    if (n_paths == 0 && preset->input->paths) {
        paths = (const char *const *) preset->input->paths;
        n_paths = (int) g_strv_length(preset->input->paths);
    }
    if (n_paths == 0)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "no photos to process: name files or folders, or set input.paths in the preset");
    if (!summary->paths)
        summary->paths = gal__path_arena_new();
    gal__caption_rows(preset->captions, "", rows);
    for (guint i = 0; i < rows->len; i++)
        g_ptr_array_add(reads, (gpointer) g_array_index(rows, gal_caption_row, i).path);
    g_ptr_array_add(reads, NULL);
    scan = (gal_scan_options) { skip_dir, opts->follow_symlinks, opts->jobs, opts->shard,
        opts->shards, !look_up, (const char *const *) reads->pdata };
    if (gal__inputs_collect(preset->input, paths, n_paths, &scan, summary->paths->inputs,
            &pr->inputs, &pr->n_inputs, errs))
        return -1;
    pr->run_total = summary->total = pr->n_inputs;
    if (opts->shards > 0)
        gal__shard_select(pr, opts->shard, opts->shards);
    summary->photos = g_new0(gal_photo_result, MAX(1, summary->total));
    pr->outputs = g_new0(char *, MAX(1, summary->total) * pr->config->n_variants);
    pr->todo = g_new0(int, MAX(1, summary->total));
    pr->plans = g_new0(photo_plan, MAX(1, summary->total));
    return 0;
}

int
gal__claim(preset_run *pr, gal_claim how, gal_errors *errs)
{
    gal_error err = { 0 };

    if (gal__out_dir_claim(pr->config->out_dir, how, &pr->claim, &err)) {
        gal__errors_add(errs, &err);
        return -1;
    }
    return 0;
}

int
gal__open_records(preset_run *pr, gal_store_mode mode, gal_errors *errs)
{
    gal_error err = { 0 };
    int dir_fd = open(pr->config->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    gboolean carry_over = dir_fd >= 0 &&
        faccessat(dir_fd, GAL_STORE_NAME, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
        faccessat(dir_fd, GAL_LEGACY_MANIFEST_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0;

    pr->store = gal__store_open(pr->config->out_dir, GAL_STORE_NAME, mode, pr->warnings, &err);
    if (!pr->store) {
        if (dir_fd >= 0)
            close(dir_fd);
        gal__errors_add(errs, &err);
        return -1;
    }
    /* A folder an earlier gallop made: its text manifest, carried over
     * once (into memory, when this run may not write). */
    if (carry_over &&
        gal__legacy_import(pr->store, pr->config->out_dir, dir_fd, pr->warnings) >= 0 &&
        gal__store_commit(pr->store, TRUE, &err) == 0 && mode == GAL_STORE_WRITE)
        unlinkat(dir_fd, GAL_LEGACY_MANIFEST_NAME, 0);
    if (dir_fd >= 0)
        close(dir_fd);
    return 0;
}

/* Plan one preset's part: inputs, output names, what is up to date. A dry
 * run writes nothing and may look while another run works; shards share
 * the folder, and read its records as the last merge left them. */
static int
prepare_run(preset_run *pr, const gal_run_options *opts, const char *skip_dir, gal_errors *errs)
{
    gal_claim how = opts->dry_run ? GAL_CLAIM_LOOK
        : opts->shards > 0        ? GAL_CLAIM_SHARE
                                  : GAL_CLAIM_OWN;
    gal_store_mode mode = opts->dry_run || opts->shards > 0 ? GAL_STORE_READ : GAL_STORE_WRITE;
    /* Claimed before the records are read, so no other run changes them
     * between this run's reading and writing them. A new folder is made
     * only once there are photos. */
    gboolean there = g_file_test(pr->config->out_dir, G_FILE_TEST_IS_DIR);

    if ((there && gal__claim(pr, how, errs)) ||
        gal__collect(pr, opts, opts->inputs, opts->n_inputs, skip_dir, TRUE, errs) ||
        (!there && gal__claim(pr, how, errs)) || gal__open_records(pr, mode, errs))
        return -1;
    if (opts->shards > 0 && gal__shard_begin(pr, opts, errs))
        return -1;
    gal__plan_photos(pr);
    if (pr->config->shards > 0)
        gal__shard_leave_others(pr);
    gal__decide(pr, opts);
    return 0;
}

/* Photo i's item for the pages, from its record (decide.c: an up-to-date
 * photo whose record keeps all a text page shows of it), linking to its
 * files as recorded. */
static VipsImage *
recorded_item(preset_run *pr, int i)
{
    const gal_photo_result *made = &pr->summary->photos[i];
    const gal_photo_notes *notes = gal_photo_notes_of(made);
    VipsImage *item = gal__item_from_about(made->about);
    char source[65];

    if (item && *gal__plan_digest_hex(&pr->plans[i], source))
        vips_image_set_string(item, GAL_META_SOURCE_DIGEST, source);
    if (item && notes->n_files == 0) {
        g_autofree char *rel = gal__out_rel(pr, made->output);

        gal__item_set_outputs(item, rel, made->width, made->height,
            pr->config->preset->output->format);
        gal__item_add_digest(item, rel, &made->sha256);
    }
    for (int f = 0; item && f < notes->n_files; f++) {
        const gal_output_file *file = &notes->files[f];
        g_autofree char *rel = gal__out_rel(pr, file->path);

        if (f == 0)
            gal__item_set_outputs(item, rel, file->width, file->height,
                gal__format_of_name(file->format));
        else
            gal__item_add_output(item, rel, file->width, file->height,
                gal__format_of_name(file->format));
        gal__item_add_digest(item, rel, &file->sha256);
    }
    return item;
}

/* The sort times of the photos whose items come from their records, as
 * recorded: planning the pages then reads no photo's header (a site of
 * 10,000 photos sorted by date read every one). */
static void
times_from_records(preset_run *pr)
{
    for (int k = 0; k < pr->n_todo; k++) {
        int i = pr->todo[k];
        const char *time = pr->plans[i].item_from_record
            ? gal__about_get(pr->summary->photos[i].about, GAL_ABOUT_PAGE_TIME) : NULL;
        char *end = NULL;
        gint64 seconds = time ? g_ascii_strtoll(time, &end, 10) : 0;

        if (!time || end == time || *end)
            continue;
        if (!pr->sort_times) {
            pr->sort_times = g_new(gint64, MAX(1, pr->summary->total));
            for (int j = 0; j < pr->summary->total; j++)
                pr->sort_times[j] = GAL_SORT_TIME_UNKNOWN;
        }
        pr->sort_times[i] = seconds;
    }
}

/* The pages' items of the photos not opened for them (item_from_record),
 * handed to the pages now; the photos to open are the others. */
static void
items_from_records(preset_run *pr)
{
    int open = 0;

    for (int k = 0; k < pr->n_todo; k++) {
        int i = pr->todo[k];

        if (pr->plans[i].item_from_record)
            gal__gather_done(pr->gather, pr->gather_id[i], recorded_item(pr, i));
        else
            pr->todo[open++] = i;
    }
    pr->n_todo = open;
}

/* A dry run's stale pages: those the run would make, each `planned`, so
 * its report lists every page too, and the files a gallery makes besides
 * (a sitemap, a feed, its zips). */
static void
plan_stale_pages(preset_run *pr)
{
    gal_run_summary *summary = pr->summary;
    const gal_preset *preset = pr->config->preset;
    const char *stage = NULL;
    g_autoptr(GPtrArray) names = NULL;
    GArray *none;

    pr->n_todo = 0;
    for (int i = 0; i < summary->total; i++)
        if (pr->plans[i].member)
            pr->todo[pr->n_todo++] = i;
    if (pr->n_todo == 0)
        return;
    gal__plan_pages(pr);
    if (!pr->gather)
        return;
    for (guint s = 0; s < preset->stages->len && !stage; s++)
        if (g_array_index(preset->stages, gal_stage_instance, s).def->kind == GAL_STAGE_GATHER)
            stage = g_array_index(preset->stages, gal_stage_instance, s).def->name;
    names = gal__gather_page_names(pr->gather);
    none = gal__gather_free(g_steal_pointer(&pr->gather));
    g_array_unref(none);
    summary->sheets = g_new0(gal_photo_result, MAX(1, names->len));
    for (guint k = 0; k < names->len; k++) {
        gal_photo_result *page = &summary->sheets[summary->n_sheets++];

        page->output = g_build_filename(pr->config->out_dir, names->pdata[k], NULL);
        page->input = g_strdup(stage);
        page->status = GAL_PHOTO_PLANNED;
    }
}

/* Photos refused by the plan are reported first, then those that are up
 * to date, in input order; in a dry run, then those it would build. */
static void
report_planned(preset_run *pr, gboolean dry_run)
{
    gal_run_summary *summary = pr->summary;

    for (int i = 0; i < summary->total; i++)
        if (!pr->plans[i].member)
            gal__report(pr, &summary->photos[i]);
    for (int i = 0; i < summary->total; i++)
        if (summary->photos[i].status == GAL_PHOTO_UP_TO_DATE)
            gal__report(pr, &summary->photos[i]);
    for (int k = 0; k < pr->n_todo && dry_run; k++) {
        gal_photo_result *result = &summary->photos[pr->todo[k]];

        result->status = GAL_PHOTO_PLANNED;
        gal__report(pr, result);
    }
}

/* After the workers: contact sheets, cancelled photos, orphans, and the
 * manifest saved once more with everything. */
static void
conclude_run(preset_run *pr, const gal_run_options *opts)
{
    gal_run_summary *summary = pr->summary;
    g_autoptr(GHashTable) new_sheets = NULL;

    if (pr->gather) {
        GArray *sheets = gal__gather_free(g_steal_pointer(&pr->gather));

        summary->n_sheets = (int) sheets->len;
        summary->sheets = (gal_photo_result *) g_array_free(sheets, FALSE);
    }
    summary->interrupted = gal__cancelled(pr->engine->cancel);
    for (int k = 0; k < pr->n_todo && !opts->dry_run; k++) {
        const photo_plan *plan = &pr->plans[pr->todo[k]];

        /* An up-to-date photo only read for its item stays up to date. */
        if (!plan->started && (plan->build_output || !plan->has_output))
            summary->photos[pr->todo[k]].status = GAL_PHOTO_CANCELLED;
    }
    /* A dry run's planned pages are not all the site's files: no page is
     * called an orphan for them. */
    if (summary->n_sheets > 0 && !summary->interrupted &&
        !(opts->dry_run && summary->sheets_stale)) {
        new_sheets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        gal__record_pages(pr, new_sheets);
    }
    if (pr->config->shards > 0)
        /* Orphans and the folder's records are the merge's. */
        gal__shard_conclude(pr, opts);
    else {
        gal__find_orphans(pr, opts, new_sheets);
        if (!opts->dry_run) {
            gal__record_recipe(pr);
            gal__record_commit(pr, FALSE);
        }
    }
    summary->leftovers_removed = pr->claim.leftovers_removed;
    gal__count(summary);
}

/* Are the preset's pages text made from its last stage (a gallery's), whose
 * items the photos' records can stand for (job.h: the label is recorded
 * only then)? */
static gboolean
pages_are_text(const gal_preset *preset)
{
    guint last = preset->stages->len - 1;
    const gal_stage_instance *st = preset->stages->len
        ? &g_array_index(preset->stages, gal_stage_instance, last) : NULL;

    return st && st->def->kind == GAL_STAGE_GATHER && st->def->build_text;
}

/* What preset `preset`, one of n, is asked to do by `opts`. One preset
 * writes into the output folder itself; several write into a folder each,
 * named after the preset, inside it. */
static run_config *
configure(const gal_preset *preset, int n, const gal_run_options *opts)
{
    run_config *config = g_new0(run_config, 1);
    g_autofree char *dir = g_canonicalize_filename(
        opts->output_dir ? opts->output_dir : preset->output->dir, NULL);

    config->preset = preset;
    config->variants = gal__output_variants(preset->output, &config->n_variants);
    config->has_pages = gal__preset_has_gather(preset);
    /* With files of their own, photos are hashed anyway: the pages know
     * them by content; without, by size and time, which is all a quick
     * proof should cost. */
    config->members_by_content = preset->output->photos;
    config->items_from_records = config->has_pages && preset->output->photos &&
        opts->shards == 0 && pages_are_text(preset);
    config->out_dir = n > 1 ? g_build_filename(dir, preset->name, NULL) : g_strdup(dir);
    config->cwd = working_folder();
    config->follow_links = opts->follow_symlinks;
    config->keys = gal__preset_keys(preset, config->out_dir);
    gal__keys_digest(config->keys, config->preset_digest);
    config->shard = opts->shard;
    config->shards = opts->shards;
    config->sink = opts->shards > 0 ? gal__shard_sink(config->has_pages) : &gal__run_sink;
    return config;
}

static void
config_free(run_config *config)
{
    if (!config)
        return;
    g_free(config->variants);
    g_ptr_array_unref(config->keys);
    g_free(config->out_dir);
    g_free(config->cwd);
    g_free(config);
}

static void
clear_run(preset_run *pr)
{
    gal_error err = { 0 };

    if (pr->gather)
        g_array_unref(gal__gather_free(g_steal_pointer(&pr->gather)));
    /* Closed before the lock goes: no other run may write meanwhile. */
    if (gal__store_close(pr->part, &err) == 0)
        gal__store_close(pr->store, &err);
    else
        gal__store_close(pr->store, NULL);
    gal__record_failed(pr, &err);
    gal__part_info_clear(&pr->part_info);
    g_clear_pointer(&pr->built, g_hash_table_unref);
    gal__out_dir_release(&pr->claim);
    g_mutex_clear(&pr->record_lock);
    /* The planned outputs' paths are in the summary's arena, as its
     * results' outputs. */
    g_free(pr->plans);
    g_free(pr->gather_id);
    g_free(pr->sort_times);
    g_free(pr->outputs);
    g_free(pr->todo);
    g_free(pr->run_index);
    config_free((run_config *) pr->config);
    /* The photos' paths are in the summary's arena (its results' inputs),
     * which outlives the inputs. */
    gal__inputs_free(pr->inputs, pr->n_inputs);
}

int
gal__engine_begin(engine *run, preset_run *prs, const gal_preset *const *presets, int n,
    const gal_run_options *opts, gal_run_summary **out, gal_errors *errs)
{
    run->runs = g_new0(preset_run *, MAX(1, n));
    run->n_runs = n;
    run->start = g_get_monotonic_time();
    run->progress = opts->progress;
    run->user = opts->user;
    run->cancel = gal__cancel_new(opts->cancel);
    run->solo = gal__solo_new();
    g_mutex_init(&run->progress_lock);
    g_mutex_init(&run->wait_lock);
    g_cond_init(&run->wait_cond);

    for (int r = 0; r < n; r++) {
        preset_run *pr = &prs[r];

        run->runs[r] = pr;
        pr->engine = run;
        pr->config = configure(presets[r], n, opts);
        pr->summary = out[r] = g_new0(gal_run_summary, 1);
        pr->summary->preset = g_strdup(presets[r]->name);
        pr->summary->sheets_only = !presets[r]->output->photos;
        for (guint s = 0; s < presets[r]->stages->len; s++)
            pr->summary->pages_are_html |=
                g_array_index(presets[r]->stages, gal_stage_instance, s).def->build_text != NULL;
        pr->summary->output_dir = g_strdup(pr->config->out_dir);
        pr->warnings = g_ptr_array_new_with_free_func(g_free);
        g_mutex_init(&pr->record_lock);
        pr->claim = (gal_out_dir) { .fd = -1 };
    }
    if (n < 1)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL, "no preset to run");
    if (opts->shards < 0 || (opts->shards > 0 && (opts->shard < 1 || opts->shard > opts->shards)))
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "shard %d of %d: a shard is a number from 1 to the number of shards", opts->shard,
            opts->shards);
    if (opts->shards > 0 && opts->prune)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "--prune removes outputs no photo makes, which no shard can tell alone: prune "
            "with a run that is not sharded, after the merge");
    return check_presets(presets, n, errs);
}

void
gal__engine_end(engine *run)
{
    /* From the user's side the run began when gallop began loading its
     * presets: a large captions table is read then, before this clock
     * starts (gallop.h: gal_run_summary.seconds). */
    double loading = 0;

    for (int r = 0; r < run->n_runs; r++)
        loading += run->runs[r]->config->preset->load_seconds;
    for (int r = 0; r < run->n_runs; r++) {
        preset_run *pr = run->runs[r];

        pr->summary->seconds = (g_get_monotonic_time() - run->start) / 1e6 + loading;
        pr->summary->peak_rss_bytes = peak_rss_bytes();
        clear_run(pr);
        /* What the stores refused, said once the stores are closed. */
        if (pr->warnings) {
            g_ptr_array_add(pr->warnings, NULL);
            pr->summary->warnings = (char **) g_ptr_array_free(pr->warnings, FALSE);
        }
    }
    g_mutex_clear(&run->progress_lock);
    g_mutex_clear(&run->wait_lock);
    g_cond_clear(&run->wait_cond);
    gal__cancel_free(run->cancel);
    gal__solo_free(run->solo);
    g_free(run->todo);
    g_free(run->runs);
}

int
gal_run_presets(const gal_preset *const *presets, int n, const gal_run_options *opts,
    gal_run_summary **out, gal_errors *errs)
{
    g_autofree preset_run *prs = g_new0(preset_run, MAX(1, n));
    engine run = { 0 };
    int status = gal__engine_begin(&run, prs, presets, n, opts, out, errs);

    /* Each preset collects its own photos (its input section may choose
     * others), never from inside any output folder of the run. */
    for (int r = 0; r < n && status == 0; r++) {
        g_autofree char *skip = n > 1 ? g_path_get_dirname(prs[r].config->out_dir) : NULL;

        status = prepare_run(&prs[r], opts, skip ? skip : prs[r].config->out_dir, errs);
    }
    if (status == 0) {
        for (int r = 0; r < n; r++)
            run.total += prs[r].summary->total;
        for (int r = 0; r < n; r++)
            report_planned(&prs[r], opts->dry_run);
        if (!opts->dry_run && !gal__cancelled(run.cancel)) {
            /* A shard keeps items: the merge makes the pages. */
            for (int r = 0; r < n; r++)
                if (prs[r].n_todo > 0 && !gal__keeps_items(&prs[r])) {
                    if (prs[r].config->items_from_records)
                        times_from_records(&prs[r]);
                    gal__plan_pages(&prs[r]);
                    /* --force makes every zip again too (written if its bytes differ). */
                    if (prs[r].gather && opts->force)
                        gal__gather_keep_zips(prs[r].gather, NULL);
                    if (prs[r].gather && prs[r].config->items_from_records)
                        items_from_records(&prs[r]);
                }
            gal__exec(&run, opts);
        }
        for (int r = 0; r < n && opts->dry_run; r++)
            if (prs[r].summary->sheets_stale && !gal__keeps_items(&prs[r]) &&
                !prs[r].summary->sheets)
                plan_stale_pages(&prs[r]);
        for (int r = 0; r < n; r++)
            conclude_run(&prs[r], opts);
    }
    gal__engine_end(&run);
    return status;
}

static void
free_result(gal_photo_result *r, gboolean paths_owned)
{
    gal_photo_notes *notes = (gal_photo_notes *) r->notes;

    if (paths_owned) {
        g_free((char *) r->input);
        g_free((char *) r->output);
    }
    gal__about_unref(r->about);
    if (!notes)
        return;
    g_free((char *) notes->why_detail);
    gal__shared_text_unref(notes->caption);
    gal__shared_text_unref(notes->caption_source);
    gal__shared_text_unref(notes->album);
    g_free((char *) notes->warnings);
    g_free(notes->error);
    for (int f = 0; f < notes->n_files; f++)
        g_free((char *) notes->files[f].path);
    g_free(notes->files);
    g_free(notes);
}

void
gal_run_summary_free(gal_run_summary *summary)
{
    if (!summary)
        return;
    for (int i = 0; i < summary->total; i++)
        /* A photo's paths are in the summary's arena. */
        free_result(&summary->photos[i], FALSE);
    for (int i = 0; i < summary->n_sheets; i++)
        free_result(&summary->sheets[i], TRUE);
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
    gal__path_arena_free(summary->paths);
    g_free(summary);
}
