/* merge_results.c: gal__merge_take_results (engine.h): each photo of a
 * merge takes its result from its shard's part (merge.c opened and
 * checked them). */
#include <string.h>

#include "engine.h"
#include "shard.h"

/* Photo i's result, `taken` from its shard's part. */
static void
take_result(preset_run *pr, int i, const gal_part_result *taken, gboolean lean)
{
    gal_photo_result *result = &pr->summary->photos[i];
    const gal_photo_result *r = &taken->result;
    const gal_photo_notes *rn = gal_photo_notes_of(r);
    gal_digest digest;

    /* Refused by the plan here as by its shard's (or here only: two
     * shards' photos whose names, from their EXIF, are the same; the
     * later one is refused, as one run would). */
    if (result->status == GAL_PHOTO_FAILED || result->status == GAL_PHOTO_IGNORED)
        return;
    result->status = r->status;
    result->why = r->why;
    if (r->notes) {
        gal_photo_notes *notes = gal__photo_notes(result);

        notes->why_detail = g_strdup(rn->why_detail);
        notes->caption = gal__shared_text(rn->caption);
        notes->caption_source = gal__shared_text(rn->caption_source);
        notes->caption_cut = rn->caption_cut;
        if (rn->error)
            *gal__photo_error(result) = *rn->error;
    }
    result->width = r->width;
    result->height = r->height;
    result->bytes = r->bytes;
    result->sha256 = r->sha256;
    result->seconds = r->seconds;
    result->hash_seconds = r->hash_seconds;
    /* What the report says of the photo is in its output's record, its
     * shard's (read with the result; else pr->part, then the folder's). */
    if (r->about && !lean)
        result->about = gal__about_ref(r->about);
    else if (taken->rel_output && !lean) {
        gal_record rec;

        if (gal__record_find(pr, taken->rel_output, &rec)) {
            result->about = gal__about_ref(rec.about);
            gal__record_clear(&rec);
        }
    }
    if (!taken->rel_output)
        result->output = NULL; /* the plan's string: the plan keeps it */
    /* Every file's size and digest, from the records the parts joined (a
     * part's result gives the first only). */
    if (r->status == GAL_PHOTO_DONE || r->status == GAL_PHOTO_UP_TO_DATE)
        gal__files_from_records(pr, i);
    /* The pages know photos without files of their own by size and time,
     * as now (the scan's, when it looked the photo up); nothing else in a
     * merge reads them. */
    if (pr->config->has_pages)
        gal__plan_stat(&pr->inputs[i], result->input);
    gal__digest_from_hex(&digest, taken->in_digest);
    gal__plan_set_digest(&pr->plans[i], &digest);
}

/* Taking one shard's results: each is its photo's, found by its path. */
typedef struct {
    preset_run *pr;
    GHashTable *photos;     /* rel input -> photo index + 1 */
    int k, shards;
    gboolean lean;          /* gal_run_options.lean_results */
    gboolean *taken;        /* per photo */
} shard_taking;

static void
take_one(const char *rel_input, const gal_part_result *result, void *user)
{
    shard_taking *t = user;
    int i = GPOINTER_TO_INT(g_hash_table_lookup(t->photos, rel_input)) - 1;

    /* A photo gone since, or another shard's: not this merge's. */
    if (i < 0 || gal__shard_of(gal__input_rel(&t->pr->inputs[i]), t->shards) != t->k)
        return;
    take_result(t->pr, i, result, t->lean);
    t->taken[i] = TRUE;
}

int
gal__merge_take_results(preset_run *pr, const parts_found *found, gboolean lean,
    gal_errors *errs)
{
    gal_run_summary *summary = pr->summary;
    int total = summary->total, failed = 0;
    g_autoptr(GHashTable) photos = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autofree gboolean *taken = g_new0(gboolean, MAX(1, total));
    g_autofree gboolean *part_failed = g_new0(gboolean, found->shards + 1);

    for (int i = 0; i < total; i++)
        g_hash_table_insert(photos, gal__out_rel(pr, summary->photos[i].input),
            GINT_TO_POINTER(i + 1));
    for (int k = 1; k <= found->shards; k++) {
        shard_taking t = { pr, photos, k, found->shards, lean, taken };
        gal_error err = { 0 };
        int part_bad;

        /* The records its results need are its part's. */
        pr->part = found->parts[k].store;
        part_bad = gal__part_each_result(found->parts[k].store, !lean, take_one, &t, &err);
        pr->part = NULL;
        if (part_bad) {
            gal__errors_add(errs, &err);
            part_failed[k] = TRUE;
            failed = -1;
        }
    }
    /* In input order, as one pass over the photos would say it. A part
     * that could not be read names no photo as missing: its error says
     * what to do. */
    for (int i = 0; i < total; i++) {
        int k = gal__shard_of(gal__input_rel(&pr->inputs[i]), found->shards);

        if (!part_failed[k] && !taken[i])
            failed = gal__errors_push(errs, GAL_ERR_OUTPUT, NULL, NULL,
                "%s: not in the part of its shard (%d of %d), which ran before the photo was "
                "there, or with other photos: run shard %d again (--shard %d/%d)",
                summary->photos[i].input, k, found->shards, k, k, found->shards);
    }
    return failed;
}
