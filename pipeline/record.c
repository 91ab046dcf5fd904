/* record.c: what a run remembers of what it made (engine.h): each
 * output's record, put into the manifest as soon as the output is
 * written (saved every few seconds, so a killed run keeps it), the pages'
 * records after the run, and outputs no photo makes any more (listed;
 * removed with --prune, only beneath the output folder and only when
 * unchanged since gallop wrote them). */
#include <errno.h>
#include <string.h>

#include "engine.h"

/* What a site shows of the photo (job->about), and its warnings, one
 * "warning=LINE" each: a rerun that finds the photo up to date, and the
 * merge of a sharded run, report them from here (report.c). */
static gal_about *
about_with_warnings(const gal_job *job)
{
    g_autoptr(GPtrArray) about = g_ptr_array_new_with_free_func(g_free);
    g_auto(GStrv) lines = job->warnings ? g_strsplit(job->warnings, "\n", -1) : NULL;

    for (guint a = 0; job->about && a < job->about->len; a++)
        g_ptr_array_add(about, g_strdup(job->about->pdata[a]));
    for (int w = 0; lines && lines[w]; w++)
        if (*lines[w])
            g_ptr_array_add(about, g_strconcat("warning=", lines[w], NULL));
    return gal__about_new((const char *const *) about->pdata, about->len);
}

/* The photo's result's caption (or source), when it is the job's: one copy
 * for both (exec.c sets the result's first). */
static char *
shared_with_result(const char *in_result, const char *text)
{
    if (in_result && text && strcmp(in_result, text) == 0)
        return gal__shared_text_ref((char *) in_result);
    return gal__shared_text(text);
}

/* The manifest records of a photo whose outputs were just written: one
 * per variant, each a product of its own (so --check, --prune and the
 * next run's decisions know every file), sharing what they are made from. */
void
gal__record_output(preset_run *pr, int i, const gal_job *job)
{
    const photo_plan *plan = &pr->plans[i];
    const gal_photo_result *result = &pr->summary->photos[i];
    gal_manifest_entry *first = gal__manifest_entry_new();
    plan_made *made;
    struct stat st;

    first->input = gal__out_rel(pr, job->input);
    first->tail->in_size = pr->inputs[i].size;
    first->tail->in_mtime_ns = pr->inputs[i].mtime_ns;
    gal__plan_digest(plan, &first->tail->in_digest);
    gal__manifest_entry_set_recipe(first, pr->preset_digest, GAL_VERSION);
    first->tail->caption = shared_with_result(gal_photo_notes_of(result)->caption, job->caption);
    first->tail->caption_source = shared_with_result(gal_photo_notes_of(result)->caption_source,
        job->caption_source);
    first->tail->caption_cut = job->caption_cut;
    /* What a site shows of the photo: on its first file's record only. */
    first->about = about_with_warnings(job);
    gal__job_record_deps(job, first);
    made = gal__plan_made(&pr->plans[i], pr->n_variants);
    for (int v = 0; v < pr->n_variants; v++) {
        gal_manifest_entry *e;

        /* A file left up to date keeps its record. */
        if (!(job->write_files & (G_GUINT64_CONSTANT(1) << v)))
            continue;
        e = gal__manifest_entry_copy(first);
        if (v > 0)
            g_clear_pointer(&e->about, gal__about_unref);

        g_free(e->output);
        e->output = g_strdup(job->variant_rels[v]);
        e->tail->out_size = job->files[v].bytes;
        e->tail->out_mtime_ns = gal__stat_beneath(pr->claim.fd, e->output, &st) == 0
            ? gal__mtime_ns(&st) : 0;
        gal__digest_from_hex(&e->tail->out_sha256, job->files[v].sha256);
        e->tail->width = job->files[v].width;
        e->tail->height = job->files[v].height;
        g_free(e->tail->name_key);
        e->tail->name_key = gal__name_key(pr, i, v);
        gal__manifest_entry_free(made->entries[v]);
        made->entries[v] = e;
    }
    gal__manifest_entry_free(first);
}

/* A worker finished an output: record it at once, so that a run that is
 * killed keeps it. */
void
gal__record_now(preset_run *pr, int i)
{
    gint64 now = g_get_monotonic_time();
    gal_error err = { 0 };

    gal_manifest *m = pr->part ? pr->part : pr->manifest;
    plan_made *made = pr->plans[i].made;

    g_mutex_lock(&pr->manifest_lock);
    for (int v = 0; made && v < pr->n_variants; v++)
        if (made->entries[v])
            gal__manifest_put(m, g_steal_pointer(&made->entries[v]));
    if (made && made->item_entry)
        gal__manifest_put(m, g_steal_pointer(&made->item_entry));
    gal__manifest_put_keys(m, pr->preset_digest, pr->keys);
    if (pr->built && pr->summary->photos[i].status == GAL_PHOTO_DONE)
        gal__shard_built(pr, i);
    if (now - pr->manifest_saved >= MANIFEST_SAVE_INTERVAL_US) {
        /* A failure here is reported by the save at the end. */
        if (pr->part)
            gal__part_save(pr, FALSE, &err);
        else
            gal__manifest_save(m, &err);
        pr->manifest_saved = now;
    }
    g_mutex_unlock(&pr->manifest_lock);
}

void
gal__record_pages(preset_run *pr, GHashTable *written)
{
    gal_manifest *m = pr->manifest;
    char members[65];

    if (!pr->members_by_content) {
        gboolean all_in = TRUE;

        for (int i = 0; i < pr->summary->total; i++)
            if (pr->plans[i].member && pr->summary->photos[i].status == GAL_PHOTO_FAILED)
                all_in = FALSE;
        /* A page a photo failed to get onto is recorded for no members, so
         * the next run tries that photo again (as it would retry its file
         * with output.photos true) rather than call it up to date. The
         * members by size and time are as planned: taken before the run. */
        g_strlcpy(members, all_in ? pr->members : "", sizeof(members));
    }
    else
        gal__members_identity(pr, members);
    for (int k = 0; k < pr->summary->n_sheets; k++) {
        gal_photo_result *sheet = &pr->summary->sheets[k];
        g_autofree char *rel = gal__out_rel(pr, sheet->output);
        gal_manifest_entry *e;
        gint64 bytes = sheet->bytes;
        struct stat st;
        char hex[65];

        /* A picture page's digest was taken as it was written (gather.c);
         * a text page (a gallery's HTML) is read back. */
        if (sheet->status != GAL_PHOTO_DONE ||
            (!sheet->sha256.known &&
                gal__sha256_beneath(pr->claim.fd, rel, hex, &bytes)) ||
            gal__stat_beneath(pr->claim.fd, rel, &st) != 0)
            continue;
        sheet->bytes = bytes;
        if (!sheet->sha256.known)
            gal__sha256_from_hex(&sheet->sha256, hex);
        e = gal__manifest_entry_new();
        e->sheet = TRUE;
        e->output = g_steal_pointer(&rel);
        e->input = g_strdup("");
        gal__digest_from_hex(&e->tail->in_digest, members);
        gal__manifest_entry_set_recipe(e, pr->preset_digest, GAL_VERSION);
        e->tail->out_size = sheet->bytes;
        e->tail->out_mtime_ns = gal__mtime_ns(&st);
        gal__digest_from_sha256(&e->tail->out_sha256, &sheet->sha256);
        e->tail->width = sheet->width;
        e->tail->height = sheet->height;
        g_hash_table_add(written, g_strdup(e->output));
        gal__manifest_put(m, e);
    }
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Does photo i make files in this run? */
static gboolean
makes_files(const preset_run *pr, int i)
{
    gal_photo_status status = pr->summary->photos[i].status;

    return gal__output_of(pr, i, 0) &&
        (status == GAL_PHOTO_DONE || status == GAL_PHOTO_UP_TO_DATE ||
            status == GAL_PHOTO_PLANNED);
}

/* The photos that make files in this run, by their paths relative to the
 * output folder. New set. */
static GHashTable *
photos_making_files(const preset_run *pr)
{
    GHashTable *now = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

    for (int i = 0; i < pr->summary->total; i++)
        if (makes_files(pr, i))
            g_hash_table_add(now, gal__out_rel(pr, pr->summary->photos[i].input));
    return now;
}

/* A record's output, as this run's photos make it. */
enum { MADE_BY_NONE, MADE_BY_ITS_PHOTO, MADE_BY_ANOTHER };

/* The records of photo i's files say who makes them. */
static void
mark_made_by(const preset_run *pr, int i)
{
    g_autofree char *rel_in = gal__out_rel(pr, pr->summary->photos[i].input);

    for (int v = 0; v < pr->n_variants; v++) {
        const char *out = gal__output_of(pr, i, v);
        /* The planned path's end, when it is one (nearly always). */
        const char *below = gal__path_below(pr->out_dir, out);
        g_autofree char *rel_out = below ? NULL : gal__out_rel(pr, out);
        gal_manifest_entry *e = gal__manifest_find(pr->manifest, below ? below : rel_out);

        if (e && e->made_by != MADE_BY_ITS_PHOTO)
            e->made_by = strcmp(e->input, rel_in) == 0 ? MADE_BY_ITS_PHOTO : MADE_BY_ANOTHER;
    }
}

/* Marking the records on several threads, a batch of photos at a time:
 * no two photos that make files have a file of the same name (the plan
 * refused the second), so each record is marked by one photo's thread
 * only, and the manifest is only read. On one thread it was the last
 * stretch of a merge before its save (and of a rerun before its end) on
 * one core. */
typedef struct {
    const preset_run *pr;
    gint next;      /* atomic: the next photo to take */
} marking;

#define MARK_BATCH 512

static gpointer
mark_thread(gpointer data)
{
    marking *mk = data;
    int total = mk->pr->summary->total, from;

    while ((from = g_atomic_int_add(&mk->next, MARK_BATCH)) < total)
        for (int i = from; i < MIN(from + MARK_BATCH, total); i++)
            if (makes_files(mk->pr, i))
                mark_made_by(mk->pr, i);
    return NULL;
}

static void
mark_records(const preset_run *pr, int jobs)
{
    marking mk = { pr, 0 };
    int workers = gal__schedule_workers(jobs, pr->summary->total / MARK_BATCH + 1);
    g_autofree GThread **threads = g_new0(GThread *, workers);

    for (int t = 1; t < workers; t++)
        threads[t] = g_thread_new("gallop-orphans", mark_thread, &mk);
    mark_thread(&mk);
    for (int t = 1; t < workers; t++)
        g_thread_join(threads[t]);
}

/* Outputs whose photo is gone (and, after new contact sheets, old sheets
 * not made again): listed, and removed with --prune. */
void
gal__find_orphans(preset_run *pr, const gal_run_options *opts, GHashTable *sheets)
{
    gal_manifest *m = pr->manifest;
    g_autoptr(GArray) orphans = g_array_new(FALSE, TRUE, sizeof(gal_orphan));
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    /* Each record says who makes its file in this run (made_by), for
     * outputs a photo no longer makes (its name template or EXIF date
     * changed, a width or format left out). On the records: sets of every
     * photo's and file's relative path were 130 bytes a photo at a merge's
     * peak, a set of records 40. The set of the photos themselves is made
     * only for a record that no photo makes, which is rare. */
    g_autoptr(GHashTable) now = NULL;
    /* Sheets only: the run's photos, which make no file of their own now. */
    g_autoptr(GHashTable) members = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTableIter it;
    gpointer value;

    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value))
        ((gal_manifest_entry *) value)->made_by = MADE_BY_NONE;
    mark_records(pr, opts->jobs);
    for (int i = 0; i < pr->summary->total; i++)
        if (pr->plans[i].member && !pr->plans[i].has_output)
            g_hash_table_add(members, gal__out_rel(pr, pr->summary->photos[i].input));
    /* Only the records that may be orphans are sorted, to be listed in
     * order: not those of items, of the pages made, or of this run's
     * photos' own files (the loop below passes them by too), which are
     * nearly all: a million names were sorted to list none. */
    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        const gal_manifest_entry *e = value;

        if (e->item || (e->sheet && (!sheets || g_hash_table_contains(sheets, e->output))) ||
            (!e->sheet && e->made_by == MADE_BY_ITS_PHOTO &&
                !g_hash_table_contains(members, e->input)))
            continue;
        g_ptr_array_add(names, e->output);
    }
    g_ptr_array_sort(names, compare_strings);
    for (guint k = 0; k < names->len; k++) {
        gal_manifest_entry *e = gal__manifest_find(m, names->pdata[k]);
        g_autofree char *input = NULL;
        g_autofree char *output = NULL;
        gal_orphan o = { 0 };
        struct stat st;

        /* A shard's kept item is no output: the merge keeps those of the
         * photos it has, and removes the others. */
        if (e->item)
            continue;
        if (e->sheet) {
            if (!sheets || g_hash_table_contains(sheets, e->output))
                continue;
        }
        else {
            int by = e->made_by;
            /* Is the record's photo one that makes files in this run? Its
             * own file says yes; another photo's file there leaves it to
             * the lstat below (a photo of the run was there when scanned,
             * so the answer is the same). */
            gboolean photo_here = by == MADE_BY_ITS_PHOTO;

            if (by == MADE_BY_NONE) {
                if (!now)
                    now = photos_making_files(pr);
                photo_here = g_hash_table_contains(now, e->input);
            }
            o.renamed = photo_here && by == MADE_BY_NONE;
            o.not_made = g_hash_table_contains(members, e->input);
            /* A photo of this run was there when it was scanned: only the
             * records of other photos cost a stat (one per photo was a
             * fifth of a merge's). */
            if (!o.renamed && !o.not_made && photo_here)
                continue;
            input = g_canonicalize_filename(e->input, pr->out_dir);
            if (!o.renamed && !o.not_made && (lstat(input, &st) == 0 || errno != ENOENT))
                continue;
        }
        output = g_build_filename(pr->out_dir, e->output, NULL);
        o.output = g_strdup(output);
        o.input = g_strdup(e->sheet ? "(contact sheet)" : input);
        if (opts->prune && !opts->dry_run) {
            gboolean exists;

            /* Only ever beneath the output folder (the manifest's names were
             * checked when it was read), never through a link, and only
             * what gallop wrote, unchanged. */
            if (gal__output_intact(pr, e->output, gal__record_tail(e), &exists))
                o.removed = gal__unlink_beneath(pr->claim.fd, pr->out_dir, e->output,
                                &o.error) == 0;
            else if (!exists && errno == ENOENT)
                o.removed = TRUE; /* gone already: only the record goes */
            else
                gal_error_set(&o.error, GAL_ERR_OUTPUT, NULL, NULL,
                    "%s changed since gallop wrote it: not removed", output);
            if (o.removed)
                gal__manifest_remove(m, e->output);
        }
        g_array_append_val(orphans, o);
    }
    pr->summary->n_orphans = (int) orphans->len;
    pr->summary->orphans = (gal_orphan *) g_array_free(g_steal_pointer(&orphans), FALSE);
}
