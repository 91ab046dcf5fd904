/* merge.c: gal_merge_presets (engine.h, docs/scale-out.md): the shards of
 * a sharded run joined into what one run would have left.
 *
 * For each preset: its folder is taken (no shard may still be writing);
 * the parts are opened and checked (every shard 1..N done, with this
 * preset and these photos); the photos are collected and planned as the
 * shards did; the parts' records join the folder's, and each photo takes
 * its result from its shard's part (merge_results.c); the pages are made
 * from the items the shards kept, by the same gathering a run uses, so
 * they are the same files (merge_pages.c); and the records are committed,
 * after which the parts go. Nothing but reading happens before every
 * check has passed. */
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "shard.h"

static void
parts_clear(parts_found *found)
{
    for (int k = 1; found->parts && k <= found->shards; k++) {
        gal__store_close(found->parts[k].store, NULL);
        gal__part_info_clear(&found->parts[k].info);
    }
    g_free(found->parts);
    *found = (parts_found) { 0 };
}

/* Is `n` one of `counts`? Each other count is named once. */
static gboolean
count_seen(GArray *counts, int n)
{
    for (guint c = 0; c < counts->len; c++)
        if (g_array_index(counts, int, c) == n)
            return TRUE;
    return FALSE;
}

/* Part k, opened and checked against this preset and gallop. */
static int
open_part(preset_run *pr, parts_found *found, int k, gal_errors *errs)
{
    shard_part *part = &found->parts[k];
    g_autofree char *file = gal__part_name(k, found->shards);
    gal_error err = { 0 };

    if (!(part->store = gal__store_open(pr->config->out_dir, file, GAL_STORE_READ, pr->warnings,
              &err)) ||
        gal__part_get_info(part->store, &part->info, &err)) {
        gal__errors_add(errs, &err);
        return -1;
    }
    if (part->info.shard != k || part->info.shards != found->shards)
        return gal__errors_push(errs, GAL_ERR_OUTPUT, NULL, NULL,
            "%s/%s: says it is shard %d of %d: the part is damaged; run its shard again",
            pr->config->out_dir, file, part->info.shard, part->info.shards);
    if (strcmp(part->info.version, GAL_VERSION) != 0)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s/%s: shard %d ran gallop %s, this is %s: run the shards and the merge "
            "with one version", pr->config->out_dir, file, k, part->info.version, GAL_VERSION);
    if (strcmp(part->info.recipe, pr->config->preset_digest) != 0) {
        g_autoptr(GPtrArray) theirs = gal__store_recipe(part->store, part->info.recipe);
        g_autofree char *diff = gal__keys_diff(theirs, pr->config->keys);

        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s/%s: shard %d ran preset %s with other values (%s): merge with the preset "
            "and --set values the shards were given", pr->config->out_dir, file, k,
            pr->config->preset->name, diff);
    }
    return 0;
}

/* The parts in the folder: all of one shard count, opened and checked. */
static int
read_parts(preset_run *pr, parts_found *found, gal_errors *errs)
{
    /* The manifest files the claim's sweep listed. */
    GPtrArray *listed = pr->claim.manifest_files;
    g_autoptr(GString) counts = g_string_new(NULL);
    g_autoptr(GArray) shards = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) other_counts = g_array_new(FALSE, FALSE, sizeof(int));
    int failed = 0;

    for (guint at = 0; listed && at < listed->len; at++) {
        int k, n;

        if (!gal__part_name_parse(listed->pdata[at], &k, &n))
            continue;
        g_array_append_val(shards, k);
        if (found->shards && found->shards != n && !count_seen(other_counts, n)) {
            g_array_append_val(other_counts, n);
            g_string_append_printf(counts, ", %d", n);
        }
        found->shards = found->shards ? found->shards : n;
    }
    if (shards->len == 0)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s: no shard's part of the records to merge (gallop run --shard K/N writes "
            "them there; a merge removes them once joined)", pr->config->out_dir);
    if (counts->len)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s: parts of sharded runs of %d%s shards: merge one sharded run at a time "
            "(remove the parts of the other, " GAL_MANIFEST_PREFIX "*-of-N.db)",
            pr->config->out_dir, found->shards, counts->str);
    found->parts = g_new0(shard_part, found->shards + 1);
    for (guint p = 0; p < shards->len; p++)
        failed |= open_part(pr, found, g_array_index(shards, int, p), errs);
    return failed;
}

/* The photos a part's shard was given, as this merge (in `cwd`) names
 * them: as given when it ran here too, else from the folder it ran in
 * (kept relative to the output folder). NULL: none (the preset's
 * input.paths). */
static GPtrArray *
part_inputs(const preset_run *pr, const gal_part_info *info, const char *cwd)
{
    g_autofree char *their_cwd = g_canonicalize_filename(info->cwd, pr->config->out_dir);
    GPtrArray *inputs;

    if (!info->inputs[0])
        return NULL;
    inputs = g_ptr_array_new_with_free_func(g_free);
    for (int p = 0; info->inputs[p]; p++)
        g_ptr_array_add(inputs, strcmp(cwd, their_cwd) == 0 || g_path_is_absolute(info->inputs[p])
                ? g_strdup(info->inputs[p])
                : g_build_filename(their_cwd, info->inputs[p], NULL));
    return inputs;
}

/* The photos the shards were given: the same for every part. */
static int
shards_inputs(preset_run *pr, const parts_found *found, GPtrArray **inputs, gal_errors *errs)
{
    g_autofree char *cwd = g_get_current_dir();
    g_autoptr(GPtrArray) first_paths = NULL;
    const gal_part_info *first = NULL;

    *inputs = NULL;
    for (int k = 1; k <= found->shards; k++) {
        const gal_part_info *info = &found->parts[k].info;
        g_autoptr(GPtrArray) paths = NULL;
        g_autofree char *their_cwd = NULL;

        if (!found->parts[k].store)
            continue;
        their_cwd = g_canonicalize_filename(info->cwd, pr->config->out_dir);
        paths = g_ptr_array_new_with_free_func(g_free);
        for (int p = 0; info->inputs[p]; p++)
            g_ptr_array_add(paths, g_canonicalize_filename(info->inputs[p], their_cwd));
        if (!first) {
            first = info;
            first_paths = g_steal_pointer(&paths);
            continue;
        }
        if (paths->len != first_paths->len)
            goto differ;
        for (guint i = 0; i < paths->len; i++)
            if (strcmp(paths->pdata[i], first_paths->pdata[i]) != 0)
                goto differ;
        continue;
differ:
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s: shards %d and %d were given different photos (%s%s, and %s%s): every "
            "shard of a run is given the same", pr->config->out_dir, first->shard, info->shard,
            first_paths->len ? (char *) first_paths->pdata[0] : "the preset's input.paths",
            first_paths->len > 1 ? "..." : "",
            paths->len ? (char *) paths->pdata[0] : "the preset's input.paths",
            paths->len > 1 ? "..." : "");
    }
    *inputs = first ? part_inputs(pr, first, cwd) : NULL;
    return 0;
}

/* Shards that did not finish, each with the photos it was to build. */
static int
report_missing(preset_run *pr, const parts_found *found, gal_errors *errs)
{
    int failed = 0;

    for (int k = 1; k <= found->shards; k++) {
        const shard_part *part = &found->parts[k];
        g_autoptr(GString) photos = g_string_new(NULL);
        int n = 0;

        if (part->store && part->info.done)
            continue;
        for (int i = 0; i < pr->summary->total; i++)
            if (gal__shard_of(gal__input_rel(&pr->inputs[i]), found->shards) == k) {
                if (n < 5)
                    g_string_append_printf(photos, "%s%s", n ? ", " : "",
                        pr->inputs[i].path);
                n++;
            }
        if (n > 5)
            g_string_append_printf(photos, " and %d more", n - 5);
        failed = gal__errors_push(errs, GAL_ERR_OUTPUT, NULL, NULL,
            "%s: shard %d of %d %s: its %d photo%s (%s) %s not built; run it again "
            "(--shard %d/%d)", pr->config->out_dir, k, found->shards,
            part->store ? "did not finish" : "has not run (no part)", n, n == 1 ? "" : "s",
            n ? photos->str : "none", n == 1 ? "is" : "are", k, found->shards);
    }
    return failed;
}

/* The parts' records joining the folder's. Two shards' photos may have
 * made the same output when names come from EXIF (which a shard reads only
 * for its own photos; other names each shard plans for every photo): the
 * first record stays, the others go to `clashes`, for resolve_clashes once
 * the plan has said whose the name is. The join gives the records in
 * output order, an output's first part first: the one before is all there
 * is to compare with. */
typedef struct {
    char *output, *input;   /* the last record kept */
    GPtrArray *left_out;    /* (part, output) of the records that clash: char *, part first */
} records_joining;

static gboolean
keep_joined(const char *output, const char *input, int part, void *user)
{
    records_joining *j = user;

    if (g_strcmp0(j->output, output) != 0) {
        g_free(j->output);
        g_free(j->input);
        j->output = g_strdup(output);
        j->input = g_strdup(input);
    }
    else if (strcmp(j->input, input) != 0) {
        g_ptr_array_add(j->left_out, GINT_TO_POINTER(part));
        g_ptr_array_add(j->left_out, g_strdup(output));
        return FALSE;
    }
    return TRUE;
}

static void
record_free(gpointer p)
{
    gal__record_clear(p);
    g_free(p);
}

static int
join_records(preset_run *pr, parts_found *found, GPtrArray *clashes, gal_errors *errs)
{
    g_autoptr(GPtrArray) left_out = g_ptr_array_new();
    g_autofree gal_store **stores = g_new0(gal_store *, found->shards);
    records_joining j = { NULL, NULL, left_out };
    gal_error err = { 0 };
    int n = 0, failed;

    for (int k = 1; k <= found->shards; k++)
        if (found->parts[k].store)
            stores[n++] = found->parts[k].store;
    failed = gal__store_join(pr->store, stores, n,
        gal__plan_reads_records(pr) ? keep_joined : NULL, &j, &err);
    g_free(j.output);
    g_free(j.input);
    if (failed)
        return gal__errors_add(errs, &err), -1;
    for (guint c = 0; c + 1 < left_out->len; c += 2) {
        gal_record *clash = g_new0(gal_record, 1);
        g_autofree char *output = left_out->pdata[c + 1];

        if (gal__store_get(stores[GPOINTER_TO_INT(left_out->pdata[c])], output, clash))
            g_ptr_array_add(clashes, clash);
        else
            g_free(clash);
    }
    return 0;
}

/* An output two shards' photos both wrote is the photo's the plan gave
 * it to (the first in input order, as in one run; the other is refused),
 * if the file is still that photo's; if the other shard renamed its file
 * over it last, the photo fails, and its record goes, so the next run
 * makes it again. */
static void
resolve_clashes(preset_run *pr, GPtrArray *clashes)
{
    g_autoptr(GHashTable) owners = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) photos = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

    if (clashes->len == 0)
        return;
    for (int i = 0; i < pr->summary->total; i++) {
        for (int v = 0;
             pr->plans[i].member && gal__output_of(pr, i, v) && v < pr->config->n_variants; v++)
            g_hash_table_insert(owners, gal__out_rel(pr, gal__output_of(pr, i, v)),
                GINT_TO_POINTER(i + 1));
        g_hash_table_insert(photos, gal__out_rel(pr, pr->summary->photos[i].input),
            (gpointer) pr->summary->photos[i].input);
    }
    for (guint c = 0; c < clashes->len; c++) {
        gal_record *other = clashes->pdata[c];
        int i = GPOINTER_TO_INT(g_hash_table_lookup(owners, other->output)) - 1;
        gal_record kept;
        gal_record *owner_record = &kept, *rival = other;
        gal_photo_result *result;
        g_autofree char *rel_in = NULL;
        gboolean exists;

        if (i < 0 || !gal__store_get(pr->store, other->output, &kept))
            continue;
        result = &pr->summary->photos[i];
        rel_in = gal__out_rel(pr, result->input);
        /* The clashing record is the owner's: it takes the place, and the
         * file must be the one it describes. */
        if (strcmp(other->input, rel_in) == 0) {
            gal__record_keep(pr, other);
            owner_record = other;
            rival = &kept;
        }
        if (!gal__output_intact(pr, owner_record->output, owner_record, &exists)) {
            gal_error err = { 0 };

            result->status = GAL_PHOTO_FAILED;
            gal_error_set(gal__photo_error(result), GAL_ERR_OUTPUT, NULL, NULL,
                "its output %s was replaced by that of %s, another shard's photo that makes "
                "the same name (put {index} in output.name?); run again to make it",
                owner_record->output, g_hash_table_contains(photos, rival->input)
                    ? (const char *) g_hash_table_lookup(photos, rival->input)
                    : rival->input);
            gal_error_set_subject(gal__photo_error(result), result->input);
            gal__store_remove(pr->store, owner_record->output, &err);
        }
        gal__record_clear(&kept);
    }
}

static void
remove_parts(preset_run *pr, const parts_found *found)
{
    for (int k = 1; k <= found->shards; k++) {
        g_autofree char *name = gal__part_name(k, found->shards);
        gal_error err = { 0 };

        if (found->parts[k].store)
            gal__unlink_beneath(pr->claim.fd, pr->config->out_dir, name, &err);
    }
}

/* One preset's merge. */
static int
merge_one(preset_run *pr, const gal_run_options *opts, const char *skip_dir, gal_errors *errs)
{
    gal_run_summary *summary = pr->summary;
    parts_found found = { 0 };
    g_autoptr(GPtrArray) inputs = NULL;
    g_autoptr(GHashTable) new_sheets = NULL;
    g_autoptr(GPtrArray) clashes = g_ptr_array_new_with_free_func(record_free);
    gboolean look_up = pr->config->has_pages;

    if (!g_file_test(pr->config->out_dir, G_FILE_TEST_IS_DIR))
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s: no such folder: nothing to merge", pr->config->out_dir);
    /* No shard may still be writing (on this host; on others, the
     * scheduler's dependency says so), and no other run or merge. */
    if (gal__claim(pr, GAL_CLAIM_OWN, errs))
        return -1;
    if (read_parts(pr, &found, errs) ||
        (opts->n_inputs == 0 && shards_inputs(pr, &found, &inputs, errs)))
        goto fail;
    /* Only pages need the photos' size and time (their members are known
     * by them): without pages the folders' photos are listed by name
     * alone, not looked up. */
    if ((inputs ? gal__collect(pr, opts, (const char *const *) inputs->pdata, (int) inputs->len,
                      skip_dir, look_up, errs)
                : gal__collect(pr, opts, opts->inputs, opts->n_inputs, skip_dir, look_up, errs)) ||
        report_missing(pr, &found, errs) || gal__open_records(pr, GAL_STORE_WRITE, errs))
        goto fail;
    gal__store_bulk(pr->store);
    /* Names as the shards planned them: a name from EXIF comes from the
     * parts' records, which join first; otherwise the photos take their
     * results first, from the parts, and nothing is joined before every
     * photo has its result. Written in one transaction, which a merge that
     * fails or is stopped leaves uncommitted. */
    if (gal__plan_reads_records(pr) && join_records(pr, &found, clashes, errs))
        goto fail;
    gal__plan_photos(pr);
    if (gal__merge_take_results(pr, &found, opts->lean_results, errs) ||
        (!gal__plan_reads_records(pr) && join_records(pr, &found, clashes, errs)))
        goto fail;
    resolve_clashes(pr, clashes);
    if (pr->config->has_pages) {
        if (gal__merge_check_items(pr, found.shards, errs))
            goto fail;
        gal__members_identity(pr, pr->members);
        summary->sheets_stale = !gal__pages_current(pr, pr->members);
        /* Shards run with --force make the pages again, as one run would. */
        for (int k = 1; k <= found.shards; k++)
            summary->sheets_stale |= found.parts[k].info.forced;
        if (summary->sheets_stale && gal__merge_make_pages(pr, opts, errs))
            goto fail;
    }
    if (pr->gather) {
        GArray *sheets = gal__gather_free(g_steal_pointer(&pr->gather));

        summary->n_sheets = (int) sheets->len;
        summary->sheets = (gal_photo_result *) g_array_free(sheets, FALSE);
    }
    summary->interrupted = gal__cancelled(pr->engine->cancel);
    if (summary->interrupted) {
        /* The parts stay, and the folder's records are as they were: run
         * the merge again. */
        gal__store_rollback(pr->store);
        goto done;
    }
    if (summary->n_sheets > 0) {
        new_sheets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        gal__record_pages(pr, new_sheets);
    }
    gal__record_recipe(pr);
    gal__merge_drop_stale_items(pr);
    gal__find_orphans(pr, opts, new_sheets);
    gal__record_commit(pr, TRUE);
    if (!summary->manifest_error.code)
        remove_parts(pr, &found);
    summary->leftovers_removed = pr->claim.leftovers_removed;
done:
    parts_clear(&found);
    gal__count(summary);
    return 0;
fail:
    if (pr->store)
        gal__store_rollback(pr->store);
    parts_clear(&found);
    return -1;
}

int
gal_merge_presets(const gal_preset *const *presets, int n, const gal_run_options *opts,
    gal_run_summary **out, gal_errors *errs)
{
    g_autofree preset_run *prs = g_new0(preset_run, MAX(1, n));
    gal_run_options merge_opts = *opts;
    engine run = { 0 };
    int status;

    merge_opts.shard = merge_opts.shards = 0;
    merge_opts.prune = FALSE;
    merge_opts.dry_run = FALSE;
    status = gal__engine_begin(&run, prs, presets, n, &merge_opts, out, errs);
    for (int r = 0; r < n && status == 0; r++) {
        g_autofree char *skip = n > 1 ? g_path_get_dirname(prs[r].config->out_dir) : NULL;

        status = merge_one(&prs[r], &merge_opts, skip ? skip : prs[r].config->out_dir, errs);
    }
    gal__engine_end(&run);
    return status;
}
