/* sharded.c: a shard's own steps (engine.h, docs/scale-out.md).
 *
 * Shard K of N builds the products of its own photos (those whose path
 * hashes to K, shard.h) and nothing else. It may run at the same time as
 * the other shards, on other hosts, into the same folder, with no lock
 * between hosts: so it writes only files of its own. Its outputs, as any
 * run's; the items the pages will be made of, kept as small lossless
 * files under .gallop-items/ (the pages themselves need every photo, so
 * the merge makes them); and its part (store.h), where its records and
 * each photo's result go instead of into the folder's records, which only
 * a run that is not sharded, or the merge, writes. A shard tried again
 * reads its part back and finds what it made up to date. */
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
    g_autoptr(GDir) dir = g_dir_open(pr->config->out_dir, 0, NULL);
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
        "Slurm array task submitted alone is task 1 of 1: give --shard K/N)", pr->config->out_dir,
        found, found == 1 ? "" : "s", other, names->str, found > 3 ? ", ..." : "", opts->shard,
        opts->shards);
}

/* The results of what an earlier try of this shard built (a killed try's
 * too: a photo's result is committed with its records): its photos are
 * up to date now, but were built all the same. */
static void
keep_built(const char *rel_input, const gal_part_result *result, void *built)
{
    if (result->result.status == GAL_PHOTO_DONE)
        g_hash_table_replace(built, g_strdup(rel_input),
            gal__part_result_new(&result->result, result->rel_output, result->in_digest));
}

static int keep_item(preset_run *pr, int i, const gal_job *job, gal_error *err);
static void photo_built(preset_run *pr, int i);
static const record_sink shard_sink, shard_sink_with_items;

int
gal__shard_begin(preset_run *pr, const gal_run_options *opts, gal_errors *errs)
{
    g_autofree char *name = gal__part_name(opts->shard, opts->shards);
    g_autofree char *cwd = g_get_current_dir();
    gal_part_info earlier = { 0 };
    gal_error err = { 0 };

    pr->summary->shard = opts->shard;
    pr->summary->shards = opts->shards;
    if (refuse_other_counts(pr, opts, errs))
        return -1;
    pr->built = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__part_result_free);
    if (opts->dry_run) {
        /* A look at what an earlier try made, if it left a part. */
        g_autofree char *path = g_build_filename(pr->config->out_dir, name, NULL);

        if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
            pr->part =
                gal__store_open(pr->config->out_dir, name, GAL_STORE_READ, pr->warnings, &err);
        return 0;
    }
    /* What an earlier try of this shard recorded counts as made: its
     * records are read before the folder's. A damaged part's results are
     * not taken; its records are checked as any. */
    pr->part = gal__store_open(pr->config->out_dir, name, GAL_STORE_PART, pr->warnings, &err);
    if (!pr->part) {
        gal__errors_add(errs, &err);
        return -1;
    }
    if (gal__part_get_info(pr->part, &earlier, &err) == 0 &&
        gal__part_each_result(pr->part, FALSE, keep_built, pr->built, &err) != 0)
        g_hash_table_remove_all(pr->built);
    gal__part_info_clear(&earlier);

    pr->part_info.shard = opts->shard;
    pr->part_info.shards = opts->shards;
    g_strlcpy(pr->part_info.recipe, pr->config->preset_digest, sizeof(pr->part_info.recipe));
    pr->part_info.version = g_strdup(GAL_VERSION);
    pr->part_info.forced = opts->force;
    /* Relative to the output folder, so that a folder copied with its
     * photos still merges. */
    pr->part_info.cwd = gal__relative_path_from(NULL, pr->config->out_dir, cwd);
    pr->part_info.inputs = g_new0(char *, opts->n_inputs + 1);
    for (int p = 0; p < opts->n_inputs; p++)
        pr->part_info.inputs[p] = g_strdup(opts->inputs[p]);
    /* The shard says it started before it makes anything: killed at any
     * moment after, its part names it as unfinished to the merge. A
     * failure here is reported by the commits after. */
    g_mutex_lock(&pr->record_lock);
    gal__part_put_info(pr->part, &pr->part_info, &err);
    gal__record_recipe(pr);
    gal__record_commit(pr, FALSE);
    g_mutex_unlock(&pr->record_lock);
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
keep_facts(gal_record *r, const gal_facts *facts, const char *input)
{
    char **kept = gal__record_facts(r);

    kept[GAL_ITEM_CAPTION] = g_strdup(facts->caption);
    kept[GAL_ITEM_CAMERA] = g_strdup(facts->camera);
    kept[GAL_ITEM_LENS] = g_strdup(facts->lens);
    kept[GAL_ITEM_ARTIST] = g_strdup(facts->artist);
    kept[GAL_ITEM_COPYRIGHT] = g_strdup(facts->copyright);
    kept[GAL_ITEM_EXPOSURE] = g_strdup(facts->exposure);
    if (facts->has_date)
        kept[GAL_ITEM_DATE] = g_strdup_printf("%04d:%02d:%02d %02d:%02d:%02d",
            facts->date.tm_year + 1900, facts->date.tm_mon + 1, facts->date.tm_mday,
            facts->date.tm_hour, facts->date.tm_min, facts->date.tm_sec);
    kept[GAL_ITEM_SORT_TIME] = g_strdup_printf("%" G_GINT64_FORMAT,
        gal__sort_time(facts, input));
    /* Marked, as a fact left empty reads back as none: an alt text of ""
     * (a decoration) is not the same as none (the caption stands in). */
    kept[GAL_ITEM_ALT] = facts->alt ? g_strconcat("=", facts->alt, NULL) : NULL;
    kept[GAL_ITEM_DESCRIPTION] = g_strdup(facts->description);
}

/* Keep the item `job` made of photo i (a small lossless file) and its
 * record. */
static int
keep_item(preset_run *pr, int i, const gal_job *job, gal_error *err)
{
    g_autofree char *rel = gal__item_rel(pr, i);
    gal_record r = { .kind = GAL_RECORD_ITEM };
    void *png = NULL;
    size_t len = 0;
    struct stat st;

    if (!job->gather_item)
        return gal_error_set(err, GAL_ERR_INTERNAL, NULL, NULL, "no contact-sheet item made");
    /* Lossless, so the pages the merge makes are those one run makes;
     * metadata left out: only pixels are needed, and the label's facts go
     * into the record. */
    if (vips_pngsave_buffer(job->gather_item, &png, &len, "compression", 1, "strip", TRUE,
            NULL))
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "contact-sheet item");
    if (gal__write_atomic_beneath(pr->claim.fd, pr->config->out_dir, rel, png, len, FALSE, err)) {
        g_free(png);
        return -1;
    }
    gal__record_photo(pr, i, job, GAL_RECORD_ITEM, &r);
    r.output = g_strdup(rel);
    r.out_size = (gint64) len;
    r.width = job->gather_item->Xsize;
    r.height = job->gather_item->Ysize;
    {
        g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);

        g_checksum_update(sum, png, (gssize) len);
        gal__digest_from_hex(&r.out_sha256, g_checksum_get_string(sum));
    }
    g_free(png);
    r.out_mtime_ns = gal__stat_beneath(pr->claim.fd, rel, &st) == 0 ? gal__mtime_ns(&st) : 0;
    keep_facts(&r, &job->facts, job->input);
    gal__record_keep(pr, &r);
    gal__record_clear(&r);
    return 0;
}

/* Photo i's result as the part keeps it. */
static gal_part_result *
part_result(const preset_run *pr, int i, const gal_photo_result *result)
{
    g_autofree char *rel_out = gal__output_of(pr, i, 0)
        ? gal__out_rel(pr, gal__output_of(pr, i, 0)) : NULL;
    char digest[GAL_SHA256_HEX_LEN + 1];

    return gal__part_result_new(result, rel_out, gal__plan_digest_hex(&pr->plans[i], digest));
}

/* Photo i was built: its result into the part (committed with its
 * records, so that a retry after a kill finds it). Not kept in pr->built:
 * only a photo up to date looks there. */
static void
photo_built(preset_run *pr, int i)
{
    g_autofree char *rel_in = gal__out_rel(pr, pr->summary->photos[i].input);
    g_autoptr(gal_part_result) built = part_result(pr, i, &pr->summary->photos[i]);
    gal_error err = { 0 };

    gal__part_put_result(pr->part, rel_in, built, &err);
    gal__record_failed(pr, &err);
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

/* Copy the folder's record of `rel` into the part, unless the part has
 * one. */
static void
copy_record(preset_run *pr, const char *rel)
{
    gal_record r;

    if (gal__store_get(pr->part, rel, &r)) {
        gal__record_clear(&r);
        return;
    }
    if (gal__store_get(pr->store, rel, &r)) {
        gal__record_keep(pr, &r);
        gal__record_clear(&r);
    }
}

void
gal__shard_conclude(preset_run *pr, const gal_run_options *opts)
{
    gal_run_summary *summary = pr->summary;
    gal_error err = { 0 };
    int results = 0;

    if (opts->dry_run)
        return;
    /* Up-to-date products are the shard's too: its part says so, so the
     * merge has every record of the shard's photos in one place. */
    for (int i = 0; i < summary->total; i++) {
        const photo_plan *plan = &pr->plans[i];
        gal_photo_status status = summary->photos[i].status;

        if (!plan->member)
            continue;
        /* A photo built again may have left some of its files as they
         * were (output.widths): their records too. */
        for (int v = 0; gal__output_of(pr, i, 0) && v < pr->config->n_variants &&
             (status == GAL_PHOTO_UP_TO_DATE || status == GAL_PHOTO_DONE);
             v++) {
            g_autofree char *rel = gal__out_rel(pr, gal__output_of(pr, i, v));

            copy_record(pr, rel);
        }
        if (gal__keeps_items(pr) && !plan->build_item) {
            g_autofree char *item = gal__item_rel(pr, i);

            copy_record(pr, item);
        }
    }
    /* Every photo's result, and "done": the merge trusts a part that says
     * so, so it is on disk first. */
    for (int i = 0; !summary->interrupted && i < summary->total; i++) {
        g_autofree char *rel_in = gal__out_rel(pr, summary->photos[i].input);
        g_autofree char *rel_out = gal__output_of(pr, i, 0)
            ? gal__out_rel(pr, gal__output_of(pr, i, 0)) : NULL;
        g_autoptr(gal_part_result) saved = part_result(pr, i,
            result_to_save(pr, i, rel_in, rel_out));

        if (gal__part_put_result(pr->part, rel_in, saved, &err))
            break;
        results++;
    }
    pr->part_info.done = !summary->interrupted && !err.code;
    pr->part_info.n_results = results;
    gal__part_put_info(pr->part, &pr->part_info, &err);
    gal__record_failed(pr, &err);
    gal__record_recipe(pr);
    gal__record_commit(pr, TRUE);
}

/* A shard keeps each photo's result, and its item when the preset has pages. */
static const record_sink shard_sink = { NULL, photo_built };
static const record_sink shard_sink_with_items = { keep_item, photo_built };

const record_sink *
gal__shard_sink(gboolean keeps_items)
{
    return keeps_items ? &shard_sink_with_items : &shard_sink;
}
