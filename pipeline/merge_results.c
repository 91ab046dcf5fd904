/* merge_results.c: gal__merge_take_results (engine.h): each photo of a
 * merge takes its result from its shard's part, the parts read again one
 * at a time on several threads (merge.c read and checked them first). */
#include <string.h>

#include "engine.h"
#include "shard.h"

/* Photo i's result, `taken` from its shard's part. */
static void
take_result(preset_run *pr, const parts_found *found, int i, int k,
    const gal_part_result *taken)
{
    gal_photo_result *result = &pr->summary->photos[i];
    const gal_photo_result *r = &taken->result;
    const gal_photo_notes *rn = gal_photo_notes_of(r);
    gal_photo_notes *notes = NULL;
    gal_digest digest;

    /* Refused by the plan here as by its shard's (or here only: two
     * shards' photos whose names, from their EXIF, are the same; the
     * later one is refused, as one run would). */
    if (result->status == GAL_PHOTO_FAILED || result->status == GAL_PHOTO_IGNORED)
        return;
    result->status = r->status;
    result->why = r->why;
    if (r->notes) {
        notes = gal__photo_notes(result);
        notes->why_detail = g_strdup(rn->why_detail);
        notes->caption_cut = rn->caption_cut;
    }
    result->width = r->width;
    result->height = r->height;
    result->bytes = r->bytes;
    result->sha256 = r->sha256;
    /* What the report says of the photo is in its output's record: the
     * shard's part when it made it, else the manifest. */
    if (taken->rel_output) {
        gal_manifest_entry *e = found->parts[k].manifest
            ? gal__manifest_find(found->parts[k].manifest, taken->rel_output) : NULL;

        if (!e || !e->about)
            e = gal__manifest_find(pr->manifest, taken->rel_output);
        if (e)
            result->about = gal__about_ref(e->about);
        /* The record's caption, when it is the one reported: one copy.
         * A record's tail left in its part is read only then. */
        if (e && (rn->caption || rn->caption_source)) {
            const gal_record_tail *t = gal__record_tail(e);

            if (t->caption && rn->caption && strcmp(t->caption, rn->caption) == 0)
                notes->caption = gal__shared_text_ref(t->caption);
            if (t->caption_source && rn->caption_source &&
                strcmp(t->caption_source, rn->caption_source) == 0)
                notes->caption_source = gal__shared_text_ref(t->caption_source);
        }
    }
    if (notes && !notes->caption)
        notes->caption = gal__shared_text(rn->caption);
    if (notes && !notes->caption_source)
        notes->caption_source = gal__shared_text(rn->caption_source);
    result->seconds = r->seconds;
    result->hash_seconds = r->hash_seconds;
    if (rn->error)
        *gal__photo_error(result) = *rn->error;
    if (!taken->rel_output)
        result->output = NULL; /* the plan's string: the plan keeps it */
    /* Every file's size and digest, from the records the parts
     * joined (a part's result line gives the first only). */
    if (r->status == GAL_PHOTO_DONE || r->status == GAL_PHOTO_UP_TO_DATE)
        gal__files_from_records(pr, i);
    /* The pages know photos without files of their own by size and
     * time, as now (the scan's, when it looked the photo up); nothing
     * else in a merge reads them (collect_from). */
    if (pr->has_pages)
        gal__plan_stat(&pr->inputs[i], result->input);
    gal__digest_from_hex(&digest, taken->in_digest);
    gal__plan_set_digest(&pr->plans[i], pr->n_variants, &digest);
}

/* Taking one shard's results as its part gives them, in its photos'
 * order, which is the merge's (both sort the same paths): each result is
 * the next photo's, taken at once, without a table of the part's results.
 * A result that is not the next photo's (a part of an older gallop, a
 * photo gone since) waits in `others` for its photo; after a photo the
 * part lacks (a new one), every later result waits there, which is slower
 * but takes the same results. */
typedef struct {
    preset_run *pr;
    const parts_found *found;
    int k;
    const int *photos;      /* the shard's, in input order */
    int n, next;            /* the next photo to take */
    gboolean *taken;        /* per photo of the run */
    GHashTable *others;     /* rel input -> gal_part_result (owned) */
} shard_taking;

static gboolean
take_next(const char *rel_input, const gal_part_result *result, void *user)
{
    shard_taking *t = user;

    if (t->next < t->n) {
        int i = t->photos[t->next];
        g_autofree char *rel = gal__out_rel(t->pr, t->pr->summary->photos[i].input);

        if (strcmp(rel, rel_input) == 0) {
            take_result(t->pr, t->found, i, t->k, result);
            t->taken[i] = TRUE;
            t->next++;
            return TRUE;
        }
    }
    return g_hash_table_insert(t->others, g_strdup(rel_input),
        gal__part_result_new(&result->result, result->rel_output, result->in_digest));
}

/* The shard's photos its part's order passed by take theirs from
 * `others`; a result left there for a photo taken already is a second
 * one: -1, the part is damaged. */
static int
take_others(shard_taking *t, const char *name, gal_error *err)
{
    g_autoptr(GHashTable) rels = NULL;
    GHashTableIter it;
    gpointer key;

    for (int at = 0; at < t->n && g_hash_table_size(t->others); at++) {
        int i = t->photos[at];
        g_autofree char *rel = NULL;
        const gal_part_result *result;

        if (t->taken[i])
            continue;
        rel = gal__out_rel(t->pr, t->pr->summary->photos[i].input);
        if ((result = g_hash_table_lookup(t->others, rel))) {
            take_result(t->pr, t->found, i, t->k, result);
            t->taken[i] = TRUE;
            g_hash_table_remove(t->others, rel);
        }
    }
    if (g_hash_table_size(t->others) == 0)
        return 0;
    /* Left: photos the merge does not have (gone since), or second
     * results of photos it took. */
    rels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (int at = 0; at < t->n; at++)
        g_hash_table_add(rels,
            gal__out_rel(t->pr, t->pr->summary->photos[t->photos[at]].input));
    g_hash_table_iter_init(&it, t->others);
    while (g_hash_table_iter_next(&it, &key, NULL))
        if (g_hash_table_contains(rels, key))
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL,
                "%s/%s: a second result for %s: the part is damaged; run its shard again",
                t->pr->out_dir, name, (const char *) key);
    return 0;
}

/* Taking the parts' results on several threads, a part each at a time:
 * a part's results are its shard's photos' only, so each thread writes
 * only its own photos' results and plans, and reads the manifest, which
 * nothing changes meanwhile. Reading the parts again was the largest
 * part of a merge left on one thread. */
typedef struct {
    preset_run *pr;
    const parts_found *found;
    const int *first;       /* shard k's photos are by_shard[first[k] .. first[k + 1]) */
    const int *by_shard;
    gboolean *taken;        /* per photo */
    gint next;              /* atomic: the shard to take next, less one */
    gal_error **failure;    /* per shard: NULL, or why its part could not be taken */
} results_taking;

static void
take_shard(results_taking *rt, int k)
{
    const parts_found *found = rt->found;
    g_autoptr(GHashTable) others = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__part_result_free);
    g_autofree char *name = gal__part_name(k, found->shards);
    shard_taking t = { rt->pr, found, k, rt->by_shard + rt->first[k],
        rt->first[k + 1] - rt->first[k], 0, rt->taken, others };
    gal_error err = { 0 };

    if (gal__part_read_results(rt->pr->out_dir, name, &found->parts[k].info, take_next, &t,
            &err) == 0)
        take_others(&t, name, &err);
    if (err.code)
        rt->failure[k] = g_memdup2(&err, sizeof err);
}

static gpointer
results_thread(gpointer data)
{
    results_taking *rt = data;
    int k;

    while ((k = g_atomic_int_add(&rt->next, 1) + 1) <= rt->found->shards)
        if (rt->first[k] < rt->first[k + 1])
            take_shard(rt, k);
    return NULL;
}

int
gal__merge_take_results(preset_run *pr, const parts_found *found, int jobs, gal_errors *errs)
{
    gal_run_summary *summary = pr->summary;
    int total = summary->total, failed = 0;
    /* The photos by shard (a counting sort), each shard's in input order. */
    g_autofree int *shard_of = g_new(int, MAX(1, total));
    g_autofree int *first = g_new0(int, found->shards + 2);
    g_autofree int *by_shard = g_new(int, MAX(1, total));
    g_autofree gboolean *taken = g_new0(gboolean, MAX(1, total));
    g_autofree gal_error **failure = g_new0(gal_error *, found->shards + 1);
    results_taking rt = { pr, found, first, by_shard, taken, 0, failure };
    int workers = gal__schedule_workers(jobs, found->shards);
    g_autofree GThread **threads = g_new0(GThread *, MAX(1, workers));

    for (int i = 0; i < total; i++) {
        shard_of[i] = gal__shard_of(gal__input_rel(&pr->inputs[i]), found->shards);
        first[shard_of[i] + 1]++;
    }
    for (int k = 1; k <= found->shards; k++)
        first[k + 1] += first[k];
    {
        g_autofree int *next = g_memdup2(first, sizeof(int) * (found->shards + 2));

        for (int i = 0; i < total; i++)
            by_shard[next[shard_of[i]]++] = i;
    }
    for (int t = 1; t < workers; t++)
        threads[t] = g_thread_new("gallop-results", results_thread, &rt);
    results_thread(&rt);
    for (int t = 1; t < workers; t++)
        g_thread_join(threads[t]);
    /* A part that could not be read names no photo as missing: its error
     * says what to do. Said in shard order, as when taken one by one. */
    for (int k = 1; k <= found->shards; k++)
        if (failure[k]) {
            gal__errors_add(errs, failure[k]);
            failed = -1;
        }
    /* In input order, as one pass over the photos would say it. */
    for (int i = 0; i < total; i++) {
        int k = shard_of[i];

        if (!failure[k] && !taken[i])
            failed = gal__errors_push(errs, GAL_ERR_OUTPUT, NULL, NULL,
                "%s: not in the part of its shard (%d of %d), which ran before the photo was "
                "there, or with other photos: run shard %d again (--shard %d/%d)",
                summary->photos[i].input, k, found->shards, k, k, found->shards);
    }
    for (int k = 1; k <= found->shards; k++)
        g_free(failure[k]);
    return failed;
}

