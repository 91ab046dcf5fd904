/* sink.c: where a run's records go (engine.h): a shard's part, else the
 * folder's records; each photo's records in one transaction, so a run
 * killed at any moment keeps every photo it committed. Whatever decides,
 * records or merges keeps records through here, and knows nothing of
 * which store takes them. */
#include <string.h>

#include "engine.h"

/* A run that makes its own pages keeps nothing but records. */
const record_sink gal__run_sink = { NULL, NULL };

static gal_store *
sink(const preset_run *pr)
{
    return pr->part ? pr->part : pr->store;
}

void
gal__record_failed(preset_run *pr, const gal_error *err)
{
    if (err->code && !pr->summary->manifest_error.code)
        pr->summary->manifest_error = *err;
}

void
gal__record_keep(preset_run *pr, const gal_record *r)
{
    gal_error err = { 0 };

    gal__store_put(sink(pr), r, &err);
    gal__record_failed(pr, &err);
}

void
gal__record_commit(preset_run *pr, gboolean durable)
{
    gal_error err = { 0 };

    gal__store_commit(sink(pr), durable, &err);
    gal__record_failed(pr, &err);
}

void
gal__record_recipe(preset_run *pr)
{
    gal_error err = { 0 };

    gal__store_put_recipe(sink(pr), pr->config->preset_digest, pr->config->keys, &err);
    gal__record_failed(pr, &err);
}

void
gal__record_photo(const preset_run *pr, int i, const gal_job *job, gal_record_kind kind,
    gal_record *r)
{
    *r = (gal_record) { .kind = kind };
    r->input = gal__out_rel(pr, job->input);
    r->in_size = pr->inputs[i].size;
    r->in_mtime_ns = pr->inputs[i].mtime_ns;
    gal__plan_digest(&pr->plans[i], &r->in_digest);
    g_strlcpy(r->recipe, pr->config->preset_digest, sizeof(r->recipe));
    r->version = g_strdup(GAL_VERSION);
    gal__record_deps(pr, job, r);
}

void
gal__record_deps(const preset_run *pr, const gal_job *job, gal_record *r)
{
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(gal_caption_row));
    struct stat st;

    for (guint d = 0; job->depends && d < job->depends->len; d++) {
        g_autofree char *path = g_canonicalize_filename(job->depends->pdata[d], NULL);
        g_autofree char *rel = gal__out_rel(pr, path);
        char hex[65];
        gboolean exists;

        gal__dependency_state(path, &st, &exists, hex, NULL);
        gal__record_add_dep(r, rel, exists, exists ? st.st_size : 0,
            exists ? gal__mtime_ns(&st) : 0, exists ? hex : NULL);
    }
    /* The table and the export are shared by every photo: each output
     * that shows the caption, or whose row may hold overrides, depends on
     * its own row of them (decide.c compares it again when the file's
     * size or time changed). */
    if (job->depends && (gal__preset_uses_field(job->preset, "caption") ||
                            gal__captions_give_overrides(job->preset->captions)))
        gal__caption_rows(job->preset->captions, job->input, rows);
    for (guint k = 0; k < rows->len; k++) {
        const gal_caption_row *row = &g_array_index(rows, gal_caption_row, k);
        g_autofree char *rel = gal__out_rel(pr, row->path);

        gal__record_add_dep(r, rel, TRUE, row->size, row->mtime_ns, row->digest);
    }
}

