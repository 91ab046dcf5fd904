/* merge_pages.c: what a merge makes of the items the shards kept
 * (engine.h): every photo on the pages checked to have its item, the
 * pages made from them by the run's own gathering (so they are one run's
 * files), and the items of photos gone dropped. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "parallel.h"
#include "exif.h"
#include "limit.h"
#include "shard.h"
#include "stage.h"

static const gal_stage_instance *
gather_stage(const gal_preset *preset)
{
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);

        if (st->def->kind == GAL_STAGE_GATHER)
            return st;
    }
    return NULL;
}

/* The record of photo i's kept item, when it is there as recorded: TRUE
 * with `r` filled (clear it). */
static gboolean
kept_item(preset_run *pr, int i, gal_record *r)
{
    g_autofree char *rel = gal__item_rel(pr, i);
    g_autofree char *rel_in = gal__out_rel(pr, pr->summary->photos[i].input);
    gboolean exists;

    if (!gal__store_get(pr->store, rel, r))
        return FALSE;
    if (r->kind == GAL_RECORD_ITEM && strcmp(r->input, rel_in) == 0 &&
        strcmp(r->recipe, pr->config->preset_digest) == 0 &&
        gal__output_intact(pr, rel, r, &exists))
        return TRUE;
    gal__record_clear(r);
    return FALSE;
}

/* Does photo i go on the pages with an item? A photo that failed leaves
 * a gap, closed up, as in one run. */
static gboolean
on_pages(const preset_run *pr, int i)
{
    return pr->plans[i].member && pr->summary->photos[i].status != GAL_PHOTO_FAILED;
}

int
gal__merge_check_items(preset_run *pr, int shards, gal_errors *errs)
{
    int failed = 0;

    pr->sort_times = g_new(gint64, MAX(1, pr->summary->total));
    for (int i = 0; i < pr->summary->total; i++) {
        gal_record r;
        const char *sort_time;
        gint64 time;
        char *end;

        pr->sort_times[i] = GAL_SORT_TIME_UNKNOWN;
        if (!on_pages(pr, i))
            continue;
        if (!kept_item(pr, i, &r)) {
            int k = gal__shard_of(gal__input_rel(&pr->inputs[i]), shards);

            failed = gal__errors_push(errs, GAL_ERR_OUTPUT, NULL, NULL,
                "%s: its contact-sheet item is missing, or not what its shard (%d of %d) kept: "
                "run shard %d again (--shard %d/%d)", pr->summary->photos[i].input, k, shards,
                k, k, shards);
            continue;
        }
        sort_time = r.facts ? r.facts[GAL_ITEM_SORT_TIME] : NULL;
        time = sort_time ? g_ascii_strtoll(sort_time, &end, 10) : 0;
        if (sort_time && !*end && end != sort_time)
            pr->sort_times[i] = time;
        gal__record_clear(&r);
    }
    return failed;
}

/* Photo i's kept item, read back, labelled as its tile would be. */
static VipsImage *
load_item(preset_run *pr, int i, const gal_stage_instance *stage, gal_error *err)
{
    static const gal_read_rules rules = { "contact-sheet item", NULL, FALSE, 0, GAL_ERR_OUTPUT };
    gal_read_rules capped = rules;
    g_autofree char *rel = gal__item_rel(pr, i);
    g_auto(gal_record) r = { 0 };
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    g_autoptr(VipsImage) png = NULL;
    g_autofree char *data = NULL;
    gsize len = 0;
    VipsImage *item;
    gal_facts facts;
    gal_stage_ctx sc = gal__stage_ctx(stage);
    int fd = gal__open_beneath(pr->claim.fd, rel);

    capped.max_bytes = gal__limits.item_bytes;
    if (!gal__store_get(pr->store, rel, &r) || !r.facts) {
        if (fd >= 0)
            close(fd);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s: its record is gone",
                   pr->config->out_dir, rel), NULL;
    }
    if (fd < 0)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s: %s", pr->config->out_dir, rel,
                   g_strerror(errno)), NULL;
    if (gal__fd_read_all(fd, rel, &capped, &data, &len, err)) {
        close(fd);
        return NULL;
    }
    close(fd);
    if (vips_pngload_buffer(data, len, &png, NULL) || !(item = vips_image_copy_memory(png))) {
        gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "contact-sheet item");
        return NULL;
    }
    gal__facts_from_path(pr->config->preset, pr->summary->photos[i].input, gal__photo_number(pr, i),
        pr->run_total,
        &facts, strings);
    facts.caption = r.facts[GAL_ITEM_CAPTION];
    facts.camera = r.facts[GAL_ITEM_CAMERA];
    facts.lens = r.facts[GAL_ITEM_LENS];
    facts.artist = r.facts[GAL_ITEM_ARTIST];
    facts.copyright = r.facts[GAL_ITEM_COPYRIGHT];
    facts.exposure = r.facts[GAL_ITEM_EXPOSURE];
    facts.has_date = gal__exif_date_parse(r.facts[GAL_ITEM_DATE], &facts.date);
    facts.alt = r.facts[GAL_ITEM_ALT] && r.facts[GAL_ITEM_ALT][0] == '='
        ? r.facts[GAL_ITEM_ALT] + 1 : NULL; /* marked by keep_facts (sharded.c) */
    facts.description = r.facts[GAL_ITEM_DESCRIPTION];
    facts.index = gal__gather_index(pr->gather, pr->gather_id[i]);
    if (stage->def->label) {
        g_autofree char *label = stage->def->label(&sc, &facts);

        if (label)
            vips_image_set_string(item, GAL_META_LABEL, label);
    }
    /* What the item links to, as its shard wrote it (a gallery's links). */
    if (pr->summary->photos[i].output && pr->summary->photos[i].width > 0) {
        const gal_photo_result *made = &pr->summary->photos[i];
        const gal_photo_notes *notes = gal_photo_notes_of(made);
        g_autofree char *made_rel = gal__out_rel(pr, made->output);

        /* One file, or several (output.widths, output.formats): each. */
        if (notes->n_files == 0)
            gal__item_set_outputs(item, made_rel, made->width, made->height,
                pr->config->preset->output->format);
        for (int f = 0; f < notes->n_files; f++) {
            const gal_output_file *file = &notes->files[f];
            g_autofree char *file_rel = gal__out_rel(pr, file->path);

            if (f == 0)
                gal__item_set_outputs(item, file_rel, file->width, file->height,
                    gal__format_of_name(file->format));
            else
                gal__item_add_output(item, file_rel, file->width, file->height,
                    gal__format_of_name(file->format));
        }
    }
    return item;
}

typedef struct {
    preset_run *pr;
    const gal_stage_instance *stage;
    gint failed;      /* an item that was checked could not be read */
    gal_error first;  /* why, for the first */
    GMutex lock;
} page_work;

/* The items of todo[from..to), each to its page as it is read. */
static void
load_items(int from, int to, void *data)
{
    page_work *w = data;
    preset_run *pr = w->pr;

    for (int k = from; k < to && !gal__cancelled(pr->engine->cancel); k++) {
        int i = pr->todo[k];
        VipsImage *item = NULL;
        gal_error err = { 0 };

        if (on_pages(pr, i) && !(item = load_item(pr, i, w->stage, &err))) {
            g_mutex_lock(&w->lock);
            if (!w->failed++) {
                gal_error_set_subject(&err, pr->summary->photos[i].input);
                w->first = err;
            }
            g_mutex_unlock(&w->lock);
        }
        gal__gather_done(pr->gather, pr->gather_id[i], item);
    }
}

int
gal__merge_make_pages(preset_run *pr, const gal_run_options *opts, gal_errors *errs)
{
    page_work w = { pr, gather_stage(pr->config->preset), 0, { 0 }, { 0 } };

    pr->n_todo = 0;
    for (int i = 0; i < pr->summary->total; i++)
        if (pr->plans[i].member)
            pr->todo[pr->n_todo++] = i;
    if (pr->n_todo == 0 || !w.stage)
        return 0;
    gal__plan_pages(pr);
    g_mutex_init(&w.lock);
    /* One item a batch: the pages complete in their order as the items
     * come, on the run's workers' number of threads. */
    gal__parallel_for(pr->n_todo, 1, gal__schedule_workers(opts->jobs, pr->n_todo), load_items,
        &w);
    g_mutex_clear(&w.lock);
    if (w.failed) {
        gal__errors_add(errs, &w.first);
        return -1;
    }
    return 0;
}

/* Items of photos no longer on the pages. */
typedef struct {
    GHashTable *keep;
    GPtrArray *drop;
} items_dropping;

static gboolean
item_to_drop(const gal_record *r, void *user)
{
    items_dropping *d = user;

    if (!g_hash_table_contains(d->keep, r->output))
        g_ptr_array_add(d->drop, g_strdup(r->output));
    return TRUE;
}

void
gal__merge_drop_stale_items(preset_run *pr)
{
    g_autoptr(GHashTable) keep = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GPtrArray) drop = g_ptr_array_new_with_free_func(g_free);
    items_dropping d = { keep, drop };

    for (int i = 0; pr->config->has_pages && i < pr->summary->total; i++)
        if (pr->plans[i].member)
            g_hash_table_add(keep, gal__item_rel(pr, i));
    gal__store_each_name(pr->store, 1u << GAL_RECORD_ITEM, item_to_drop, &d);
    for (guint k = 0; k < drop->len; k++) {
        gal_error err = { 0 };
        gal_record r;
        gboolean exists;

        if (!gal__store_get(pr->store, drop->pdata[k], &r))
            continue;
        if (gal__output_intact(pr, r.output, &r, &exists))
            gal__unlink_beneath(pr->claim.fd, pr->config->out_dir, r.output, &err);
        gal__store_remove(pr->store, r.output, &err);
        gal__record_clear(&r);
    }
}
