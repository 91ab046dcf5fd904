/* sharded.c: a shard's own steps (engine.h, docs/scale-out.md).
 *
 * Shard K of N builds the products of its own photos (those whose path
 * hashes to K, shard.h) and nothing else. It may run at the same time as
 * the other shards, on other hosts, into the same folder, with no lock
 * between hosts: so it writes only files of its own. Its outputs, as any
 * run's; the items the pages will be made of, kept as small lossless
 * files under .gallop-items/ (the pages themselves need every photo, so
 * the merge makes them); and its part of the manifest, where its records
 * and each photo's result go instead of into the manifest, which only a
 * run that is not sharded, or the merge, writes. A shard tried again reads
 * its part back and finds what it made up to date. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "shard.h"

#define ITEMS_FOLDER ".gallop-items"

/* Parts of another shard count are another sharded run's, not merged
 * yet: finished (its outputs' only records) or still going. Neither may be
 * thrown away, nor mixed with this run's; a Slurm array task resubmitted
 * alone (--array=3 makes it task 1 of 1) lands here too. */
static int
refuse_other_counts(preset_run *pr, const gal_run_options *opts, gal_errors *errs)
{
    g_autoptr(GDir) dir = g_dir_open(pr->out_dir, 0, NULL);
    g_autoptr(GString) names = g_string_new(NULL);
    const char *name;
    int other = 0, found = 0;

    while (dir && (name = g_dir_read_name(dir))) {
        int k, n;

        if (!gal__part_name_parse(name, &k, &n) || n == opts->shards)
            continue;
        if (found++ < 3)
            g_string_append_printf(names, "%s%s", found > 1 ? ", " : "", name);
        other = n;
    }
    if (!found)
        return 0;
    return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
        "%s holds %d part%s of a sharded run of %d shards, not merged (%s%s): merge it "
        "(gallop merge), or remove those parts to start over; this run is shard %d of %d (a "
        "Slurm array task submitted alone is task 1 of 1: give --shard K/N)", pr->out_dir,
        found, found == 1 ? "" : "s", other, names->str, found > 3 ? ", ..." : "", opts->shard,
        opts->shards);
}

int
gal__shard_begin(preset_run *pr, const gal_run_options *opts, gal_errors *errs)
{
    g_autofree char *name = gal__part_name(opts->shard, opts->shards);
    g_autofree char *cwd = g_get_current_dir();
    g_autoptr(GHashTable) earlier = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__part_result_free);
    gal_part_info earlier_info = { 0 };
    gal_error damaged = { 0 };
    GHashTableIter it;
    gpointer key, value;

    pr->shard = opts->shard;
    pr->shards = opts->shards;
    pr->summary->shard = opts->shard;
    pr->summary->shards = opts->shards;
    pr->keep_items = pr->has_pages;
    if (refuse_other_counts(pr, opts, errs))
        return -1;
    /* What an earlier try of this shard recorded counts as made: its
     * records join the manifest's for the decisions. Its results are made
     * again. */
    pr->part = gal__part_load(pr->out_dir, name, &earlier_info, earlier, FALSE, &damaged);
    gal__part_info_clear(&earlier_info);
    /* ...and what it built, its results say (a killed try's too: a photo's
     * result is saved with its records). A damaged part's results are not
     * taken; its records are checked as any. */
    pr->built = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__part_result_free);
    g_hash_table_iter_init(&it, earlier);
    while (!damaged.code && g_hash_table_iter_next(&it, &key, &value))
        if (((gal_part_result *) value)->result.status == GAL_PHOTO_DONE) {
            g_hash_table_iter_steal(&it);
            g_hash_table_insert(pr->built, key, value);
        }
    g_hash_table_iter_init(&it, pr->part->entries);
    while (g_hash_table_iter_next(&it, NULL, &value))
        gal__manifest_put(pr->manifest, gal__manifest_entry_copy(value));
    g_hash_table_iter_init(&it, pr->part->presets);
    while (g_hash_table_iter_next(&it, &value, NULL))
        gal__manifest_put_keys(pr->manifest, value,
            g_hash_table_lookup(pr->part->presets, value));
    for (guint w = 0; w < pr->part->warnings->len; w++)
        g_ptr_array_add(pr->manifest->warnings, g_strdup(pr->part->warnings->pdata[w]));
    g_ptr_array_set_size(pr->part->warnings, 0);

    pr->part_info.shard = opts->shard;
    pr->part_info.shards = opts->shards;
    pr->part_info.version = g_strdup(GAL_VERSION);
    pr->part_info.forced = opts->force;
    pr->part_info.cwd = g_steal_pointer(&cwd);
    pr->part_info.inputs = g_new0(char *, opts->n_inputs + 1);
    for (int p = 0; p < opts->n_inputs; p++)
        pr->part_info.inputs[p] = g_strdup(opts->inputs[p]);
    return 0;
}

void
gal__shard_select(preset_run *pr, int shard, int shards)
{
    int own = 0;

    pr->run_index = g_new(int, MAX(1, pr->n_inputs));
    for (int f = 0; f < pr->n_inputs; f++)
        if (gal__shard_of(gal__input_rel(&pr->inputs[f]), shards) == shard)
            pr->run_index[own++] = f;
    pr->run_index = g_renew(int, pr->run_index, MAX(1, own));
    pr->summary->total = own;
    pr->summary->elsewhere = pr->n_inputs - own;
}

void
gal__shard_leave_others(preset_run *pr)
{
    /* Their shards plan them the same way, and report them. Their paths
     * go with them: the kept ones move, so the results take them again. */
    pr->inputs = gal__inputs_keep(pr->inputs, pr->n_inputs, pr->run_index, pr->summary->total,
        &pr->summary->paths->inputs);
    pr->n_inputs = pr->summary->total;
    for (int i = 0; i < pr->n_inputs; i++)
        pr->summary->photos[i].input = pr->inputs[i].path;
}

char *
gal__item_rel(const preset_run *pr, int i)
{
    g_autofree char *rel_in = gal__out_rel(pr, pr->summary->photos[i].input);
    g_autofree char *digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, rel_in, -1);

    /* Named by the photo's path, not its content: one file per photo,
     * replaced when the photo changes. */
    return g_strdup_printf(ITEMS_FOLDER "/%.32s.png", digest);
}

/* The facts an item's label may show, as the item's record keeps them. */
static void
keep_facts(gal_manifest_entry *e, const gal_facts *facts, const char *input)
{
    char **facts_kept = gal__manifest_entry_facts(e);

    facts_kept[GAL_ITEM_CAPTION] = g_strdup(facts->caption);
    facts_kept[GAL_ITEM_CAMERA] = g_strdup(facts->camera);
    facts_kept[GAL_ITEM_LENS] = g_strdup(facts->lens);
    facts_kept[GAL_ITEM_ARTIST] = g_strdup(facts->artist);
    facts_kept[GAL_ITEM_COPYRIGHT] = g_strdup(facts->copyright);
    facts_kept[GAL_ITEM_EXPOSURE] = g_strdup(facts->exposure);
    if (facts->has_date)
        facts_kept[GAL_ITEM_DATE] = g_strdup_printf("%04d:%02d:%02d %02d:%02d:%02d",
            facts->date.tm_year + 1900, facts->date.tm_mon + 1, facts->date.tm_mday,
            facts->date.tm_hour, facts->date.tm_min, facts->date.tm_sec);
    facts_kept[GAL_ITEM_SORT_TIME] = g_strdup_printf("%" G_GINT64_FORMAT,
        gal__sort_time(facts, input));
}

int
gal__keep_item(preset_run *pr, int i, const gal_job *job, gal_error *err)
{
    photo_plan *plan = &pr->plans[i];
    g_autofree char *rel = gal__item_rel(pr, i);
    void *png = NULL;
    size_t len = 0;
    gal_manifest_entry *e;
    plan_made *made;
    struct stat st;

    if (!job->gather_item)
        return gal_error_set(err, GAL_ERR_INTERNAL, NULL, NULL, "no contact-sheet item made");
    /* Lossless, so the pages the merge makes are those one run makes;
     * metadata left out: only pixels are needed, and the label's facts go
     * into the record. */
    if (vips_pngsave_buffer(job->gather_item, &png, &len, "compression", 1, "strip", TRUE,
            NULL))
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "contact-sheet item");
    e = gal__manifest_entry_new();
    e->item = TRUE;
    e->output = g_strdup(rel);
    e->input = gal__out_rel(pr, job->input);
    e->tail->in_size = pr->inputs[i].size;
    e->tail->in_mtime_ns = pr->inputs[i].mtime_ns;
    gal__plan_digest(plan, &e->tail->in_digest);
    gal__manifest_entry_set_recipe(e, pr->preset_digest, GAL_VERSION);
    e->tail->out_size = (gint64) len;
    e->tail->width = job->gather_item->Xsize;
    e->tail->height = job->gather_item->Ysize;
    {
        g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);

        g_checksum_update(sum, png, (gssize) len);
        gal__digest_from_hex(&e->tail->out_sha256, g_checksum_get_string(sum));
    }
    if (gal__write_atomic_beneath(pr->claim.fd, pr->out_dir, rel, png, len, FALSE, err)) {
        g_free(png);
        gal__manifest_entry_free(e);
        return -1;
    }
    g_free(png);
    e->tail->out_mtime_ns = gal__stat_beneath(pr->claim.fd, rel, &st) == 0 ? gal__mtime_ns(&st) : 0;
    keep_facts(e, &job->facts, job->input);
    gal__job_record_deps(job, e);
    made = gal__plan_made(&pr->plans[i], pr->n_variants);
    gal__manifest_entry_free(made->item_entry);
    made->item_entry = e;
    return 0;
}

void
gal__shard_built(preset_run *pr, int i)
{
    const gal_photo_result *result = &pr->summary->photos[i];
    g_autofree char *rel_out = gal__output_of(pr, i, 0)
        ? gal__out_rel(pr, gal__output_of(pr, i, 0)) : NULL;
    char digest[GAL_SHA256_HEX_LEN + 1];

    g_hash_table_replace(pr->built, gal__out_rel(pr, result->input),
        gal__part_result_new(result, rel_out,
            gal__plan_digest_hex(&pr->plans[i], digest)));
}

/* Photo i's result as the part gives it: an earlier try's, when that try
 * built the output which is up to date now (the same file, by its
 * SHA-256), else this run's. */
static const gal_photo_result *
result_to_save(const preset_run *pr, int i, const char *rel_in, const char *rel_out)
{
    const gal_photo_result *result = &pr->summary->photos[i];
    const gal_part_result *earlier;

    if (result->status != GAL_PHOTO_UP_TO_DATE ||
        !(earlier = g_hash_table_lookup(pr->built, rel_in)) ||
        g_strcmp0(earlier->rel_output, rel_out) != 0 ||
        !gal__sha256_same(&earlier->result.sha256, &result->sha256))
        return result;
    return &earlier->result;
}

int
gal__part_save(preset_run *pr, gboolean finished, gal_error *err)
{
    g_autoptr(GString) extra = g_string_new(NULL);
    int results = 0;

    g_strlcpy(pr->part_info.preset_digest, pr->preset_digest,
        sizeof(pr->part_info.preset_digest));
    gal__part_append_header(extra, &pr->part_info);
    if (!finished) {
        /* Not done: the results of what was built so far, so that the
         * shard tried again still knows it built them. */
        GHashTableIter it;
        gpointer key, value;

        g_hash_table_iter_init(&it, pr->built);
        while (g_hash_table_iter_next(&it, &key, &value)) {
            const gal_part_result *built = value;

            gal__part_append_result(extra, key, built->rel_output, built->in_digest,
                &built->result);
        }
    }
    for (int i = 0; finished && i < pr->summary->total; i++) {
        g_autofree char *rel_in = NULL;
        g_autofree char *rel_out = NULL;
        char digest[GAL_SHA256_HEX_LEN + 1];

        rel_in = gal__out_rel(pr, pr->summary->photos[i].input);
        rel_out = gal__output_of(pr, i, 0)
            ? gal__out_rel(pr, gal__output_of(pr, i, 0)) : NULL;
        gal__part_append_result(extra, rel_in, rel_out,
            gal__plan_digest_hex(&pr->plans[i], digest),
            result_to_save(pr, i, rel_in, rel_out));
        results++;
    }
    if (finished)
        gal__part_append_done(extra, results);
    /* Durable once finished: the merge trusts a part that says "done". */
    return gal__manifest_save_with(pr->part, extra->str, finished, err);
}

void
gal__shard_conclude(preset_run *pr, const gal_run_options *opts)
{
    gal_run_summary *summary = pr->summary;

    if (opts->dry_run)
        return;
    /* Up-to-date products are the shard's too: its part says so, so the
     * merge has every record of the shard's photos in one place. */
    for (int i = 0; i < summary->total; i++) {
        const photo_plan *plan = &pr->plans[i];
        g_autofree char *item = NULL;
        gal_manifest_entry *e;

        if (!plan->member)
            continue;
        /* A photo built again may have left some of its files as they
         * were (output.widths): their records too. */
        for (int v = 0; gal__output_of(pr, i, 0) && v < pr->n_variants &&
             (summary->photos[i].status == GAL_PHOTO_UP_TO_DATE ||
                 summary->photos[i].status == GAL_PHOTO_DONE);
             v++) {
            g_autofree char *rel = gal__out_rel(pr, gal__output_of(pr, i, v));

            if ((e = gal__manifest_find(pr->manifest, rel)) &&
                !gal__manifest_find(pr->part, rel))
                gal__manifest_put(pr->part, gal__manifest_entry_copy(e));
        }
        item = gal__item_rel(pr, i);
        if (pr->keep_items && !plan->build_item &&
            (e = gal__manifest_find(pr->manifest, item)) &&
            !gal__manifest_find(pr->part, item))
            gal__manifest_put(pr->part, gal__manifest_entry_copy(e));
    }
    gal__manifest_put_keys(pr->part, pr->preset_digest, pr->keys);
    gal__part_save(pr, !summary->interrupted, &summary->manifest_error);
}
