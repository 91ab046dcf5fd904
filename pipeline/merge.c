/* merge.c: gal_merge_presets (engine.h, docs/scale-out.md): the shards of
 * a sharded run joined into what one run would have left.
 *
 * For each preset: its folder is taken (no shard may still be writing);
 * the parts are read and checked (every shard 1..N done, with this preset
 * and these photos); the photos are collected and planned as the shards
 * did, and each takes its result from its shard's part (merge_results.c);
 * the parts' records join the manifest; the pages are made from the items
 * the shards kept, by the same gathering a run uses, so they are the same
 * files (merge_pages.c); and the manifest is written, after which the
 * parts go. Nothing but reading happens before every check has passed. */
#include <string.h>

#include "engine.h"
#include "shard.h"

static void
parts_clear(parts_found *found)
{
    for (int k = 1; found->parts && k <= found->shards; k++) {
        gal__manifest_free(found->parts[k].manifest);
        gal__part_info_clear(&found->parts[k].info);
    }
    g_free(found->parts);
    *found = (parts_found) { 0 };
}

/* Reading the parts, each on its own, on several threads: a part's
 * records are parsed into a manifest of its own, so nothing is shared but
 * the next part to take. Parsing them was a fifth of a merge. */
typedef struct {
    const char *dir;
    parts_found *found;
    const int *shard_of;    /* the parts to read: their shard numbers */
    int n;
    gint next;              /* atomic */
    int read_first;         /* a part read before the others (-1: none) */
    gal_error **errors;     /* per part to read: NULL, or why it could not be */
} part_reading;

static void
read_part(part_reading *r, int p)
{
    int k = r->shard_of[p];
    g_autofree char *file = gal__part_name(k, r->found->shards);
    shard_part *part = &r->found->parts[k];
    gal_error err = { 0 };

    part->manifest = gal__part_load(r->dir, file, &part->info, NULL, TRUE, &err);
    if (err.code)
        r->errors[p] = g_memdup2(&err, sizeof err);
}

static gpointer
part_reader_thread(gpointer data)
{
    part_reading *r = data;
    int p;

    while ((p = g_atomic_int_add(&r->next, 1)) < r->n)
        if (p != r->read_first)
            read_part(r, p);
    return NULL;
}

/* The photos collected on a thread of their own while the parts are read
 * (the folder's scan was a sixth of a merge, after the parts). With no
 * photos named, they are those the parts say the shards were given: part
 * 1's, as shards_inputs takes them once it has checked that every part
 * says the same (a merge whose parts disagree fails, and then what was
 * collected is dropped). */
typedef struct {
    preset_run *pr;
    const gal_run_options *opts;
    const char *skip_dir;
    GPtrArray *inputs;   /* NULL: opts->inputs, or the preset's input.paths */
    gal_errors *errs;    /* its own: the merge's only once the parts are good */
    GThread *thread;
    int failed;
} early_collect;

/* The photos from `inputs`; NULL: those named (opts->inputs), or the
 * preset's input.paths. Only pages need the photos' size and time (their
 * members are known by them, take_result): without pages the folders'
 * photos are listed by name alone, not looked up (the lookups were half
 * a merge's system time at a million photos). */
static int
collect_from(preset_run *pr, const gal_run_options *opts, GPtrArray *inputs,
    const char *skip_dir, gal_errors *errs)
{
    gboolean look_up = pr->has_pages;

    return inputs ? gal__collect(pr, opts, (const char *const *) inputs->pdata,
                        (int) inputs->len, skip_dir, look_up, errs)
                  : gal__collect(pr, opts, opts->inputs, opts->n_inputs, skip_dir, look_up, errs);
}

static gpointer
collect_thread(gpointer data)
{
    early_collect *c = data;

    c->failed = collect_from(c->pr, c->opts, c->inputs, c->skip_dir, c->errs);
    return NULL;
}

static void
collect_begin(early_collect *c, GPtrArray *inputs)
{
    c->inputs = inputs;
    c->errs = g_new0(gal_errors, 1);
    c->thread = g_thread_new("gallop-scan", collect_thread, c);
}

/* Wait for it; its errors join `errs` unless `drop`. FALSE: it never began. */
static gboolean
collect_end(early_collect *c, gboolean drop, gal_errors *errs)
{
    if (!c->thread)
        return FALSE;
    g_thread_join(g_steal_pointer(&c->thread));
    for (int e = 0; !drop && e < c->errs->count; e++)
        gal__errors_add(errs, &c->errs->items[e]);
    if (!drop)
        errs->dropped += c->errs->dropped;
    g_clear_pointer(&c->errs, g_free);
    g_clear_pointer(&c->inputs, g_ptr_array_unref);
    return TRUE;
}

static GPtrArray *part_inputs(const gal_part_info *info, const char *cwd);

static void
load_parts(const char *dir, parts_found *found, GArray *names, int jobs, gal_error **errors,
    early_collect *collect)
{
    g_autofree int *shard_of = g_new(int, MAX(1, names->len));
    part_reading r = { dir, found, shard_of, (int) names->len, 0, -1, errors };
    int workers = gal__schedule_workers(jobs, r.n);
    g_autofree GThread **threads = g_new0(GThread *, MAX(1, workers));

    for (guint p = 0; p < names->len; p++) {
        shard_of[p] = g_array_index(names, int, p * 2);
        if (shard_of[p] == 1)
            r.read_first = (int) p;
    }
    /* Part 1 first, alone, when the photos are to come from it. */
    if (!collect || collect->thread)
        r.read_first = -1;
    if (r.read_first >= 0) {
        const shard_part *first = &found->parts[1];

        read_part(&r, r.read_first);
        if (!errors[r.read_first] && first->manifest && first->info.cwd) {
            g_autofree char *cwd = g_get_current_dir();

            collect_begin(collect, part_inputs(&first->info, cwd));
        }
    }
    for (int t = 1; t < workers; t++)
        threads[t] = g_thread_new("gallop-parts", part_reader_thread, &r);
    part_reader_thread(&r);
    for (int t = 1; t < workers; t++)
        g_thread_join(threads[t]);
}

/* Is `n` one of `counts`? Each other count is named once ("3, 2", not
 * "3, 2, 2": the test was against the part's file name). */
static gboolean
count_seen(GArray *counts, int n)
{
    for (guint c = 0; c < counts->len; c++)
        if (g_array_index(counts, int, c) == n)
            return TRUE;
    return FALSE;
}

/* The parts in the folder: all of one shard count, read and checked
 * against this preset. */
static int
read_parts(preset_run *pr, parts_found *found, int jobs, gal_errors *errs,
    early_collect *collect)
{
    /* The manifest files the claim's sweep listed; the folder, if it did not. */
    GPtrArray *listed = pr->claim.manifest_files;
    g_autoptr(GDir) dir = listed ? NULL : g_dir_open(pr->out_dir, 0, NULL);
    guint at = 0;
    g_autoptr(GString) counts = g_string_new(NULL);
    g_autoptr(GArray) names = g_array_new(FALSE, FALSE, sizeof(int) * 2);
    g_autoptr(GArray) other_counts = g_array_new(FALSE, FALSE, sizeof(int));
    g_autofree gal_error **load_errors = NULL;
    const char *name;
    int failed = 0;

    while ((name = listed ? (at < listed->len ? listed->pdata[at++] : NULL)
                          : dir ? g_dir_read_name(dir) : NULL)) {
        int kn[2];

        if (!gal__part_name_parse(name, &kn[0], &kn[1]))
            continue;
        g_array_append_val(names, kn);
        if (found->shards && found->shards != kn[1] && !count_seen(other_counts, kn[1])) {
            g_array_append_val(other_counts, kn[1]);
            g_string_append_printf(counts, ", %d", kn[1]);
        }
        found->shards = found->shards ? found->shards : kn[1];
    }
    if (names->len == 0)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s: no shard's part of the manifest to merge (gallop run --shard K/N writes "
            "them there; a merge removes them once joined)", pr->out_dir);
    if (counts->len)
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s: parts of sharded runs of %d%s shards: merge one sharded run at a time "
            "(remove the parts of the other, .gallop-manifest.*-of-N.tsv)", pr->out_dir,
            found->shards, counts->str);
    found->parts = g_new0(shard_part, found->shards + 1);
    load_errors = g_new0(gal_error *, names->len);
    load_parts(pr->out_dir, found, names, jobs, load_errors, collect);
    /* Checked in the folder's order, as they were when read one by one. */
    for (guint p = 0; p < names->len; p++) {
        int k = g_array_index(names, int, p * 2);
        shard_part *part = &found->parts[k];
        g_autofree char *file = gal__part_name(k, found->shards);

        if (load_errors[p]) {
            gal__errors_add(errs, load_errors[p]);
            g_free(load_errors[p]);
            failed = -1;
            continue;
        }
        if (part->info.shard != k || part->info.shards != found->shards)
            failed = gal__errors_push(errs, GAL_ERR_OUTPUT, NULL, NULL,
                "%s/%s: says it is shard %d of %d: the part is damaged; run its shard again",
                pr->out_dir, file, part->info.shard, part->info.shards);
        else if (strcmp(part->info.version, GAL_VERSION) != 0)
            failed = gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
                "%s/%s: shard %d ran gallop %s, this is %s: run the shards and the merge "
                "with one version", pr->out_dir, file, k, part->info.version, GAL_VERSION);
        else if (strcmp(part->info.preset_digest, pr->preset_digest) != 0) {
            g_autofree char *diff = gal__keys_diff(
                g_hash_table_lookup(part->manifest->presets, part->info.preset_digest), pr->keys);

            failed = gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
                "%s/%s: shard %d ran preset %s with other values (%s): merge with the preset "
                "and --set values the shards were given", pr->out_dir, file, k,
                pr->preset->name, diff);
        }
    }
    return failed;
}

/* The photos the shards were given: the same list, from the same folder,
 * for every part. New strings (relative ones made absolute when the merge
 * runs from another folder), or NULL for none (the preset's input.paths). */
/* The photos a part's shard was given, each made absolute from the
 * folder it ran in: what the shards were given is the same photos when
 * these are, wherever each shard ran from. New array. */
static GPtrArray *
absolute_inputs(const gal_part_info *info)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);

    for (int p = 0; info->inputs[p]; p++)
        g_ptr_array_add(paths, g_canonicalize_filename(info->inputs[p], info->cwd));
    return paths;
}

static gboolean
same_paths(GPtrArray *a, GPtrArray *b)
{
    if (a->len != b->len)
        return FALSE;
    for (guint i = 0; i < a->len; i++)
        if (strcmp(a->pdata[i], b->pdata[i]) != 0)
            return FALSE;
    return TRUE;
}

static int
shards_inputs(preset_run *pr, const parts_found *found, GPtrArray **inputs, gal_errors *errs)
{
    const gal_part_info *first = NULL;
    g_autoptr(GPtrArray) first_paths = NULL;
    g_autofree char *cwd = g_get_current_dir();

    *inputs = NULL;
    for (int k = 1; k <= found->shards; k++) {
        const gal_part_info *info = &found->parts[k].info;
        g_autoptr(GPtrArray) paths = NULL;

        if (!found->parts[k].manifest || !info->cwd)
            continue;
        paths = absolute_inputs(info);
        if (!first) {
            first = info;
            first_paths = g_steal_pointer(&paths);
            continue;
        }
        if (!same_paths(paths, first_paths))
            return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
                "%s: shards %d and %d were given different photos (%s%s, and %s%s): every "
                "shard of a run is given the same", pr->out_dir, first->shard, info->shard,
                first_paths->len ? (char *) first_paths->pdata[0] : "the preset's input.paths",
                first_paths->len > 1 ? "..." : "",
                paths->len ? (char *) paths->pdata[0] : "the preset's input.paths",
                paths->len > 1 ? "..." : "");
    }
    *inputs = first ? part_inputs(first, cwd) : NULL;
    return 0;
}

/* The photos a part's shard was given, as this merge (in `cwd`) names
 * them; NULL: none (the preset's input.paths). */
static GPtrArray *
part_inputs(const gal_part_info *info, const char *cwd)
{
    GPtrArray *inputs;

    if (!info->inputs[0])
        return NULL;
    inputs = g_ptr_array_new_with_free_func(g_free);
    for (int p = 0; info->inputs[p]; p++)
        g_ptr_array_add(inputs, strcmp(cwd, info->cwd) == 0 || g_path_is_absolute(info->inputs[p])
                ? g_strdup(info->inputs[p])
                : g_build_filename(info->cwd, info->inputs[p], NULL));
    return inputs;
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

        if (part->manifest && part->info.done)
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
            "(--shard %d/%d)", pr->out_dir, k, found->shards,
            part->manifest ? "did not finish" : "has not run (no part)", n, n == 1 ? "" : "s",
            n ? photos->str : "none", n == 1 ? "is" : "are", k, found->shards);
    }
    return failed;
}

/* The parts' records join the manifest's. Two shards' photos may have
 * made the same output (a name from EXIF, which a shard reads only for
 * its own photos): the first record stays, the others go to `clashes`,
 * for resolve_clashes once the plan has said whose the name is. */
static void
join_records(preset_run *pr, parts_found *found, GPtrArray *clashes)
{
    for (int k = 1; k <= found->shards; k++) {
        gal_manifest *part = found->parts[k].manifest;
        GHashTableIter it;
        gpointer key, value;

        g_hash_table_iter_init(&it, part->presets);
        while (g_hash_table_iter_next(&it, &key, &value))
            gal__manifest_put_keys(pr->manifest, key, value);
        g_hash_table_iter_init(&it, part->entries);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
            gal_manifest_entry *e = value, *before;

            g_hash_table_iter_steal(&it);
            /* An earlier part's record, not one the manifest had. */
            before = gal__manifest_find(pr->manifest, e->output);
            if (before && before->from_part && strcmp(before->input, e->input) != 0) {
                g_ptr_array_add(clashes, e);
                continue;
            }
            e->from_part = TRUE;
            gal__manifest_put(pr->manifest, e);
        }
        /* Stealing leaves the part's table its size (20 bytes a record,
         * 33 MB for a million): emptied, it shrinks. */
        g_hash_table_remove_all(part->entries);
        for (guint w = 0; w < part->warnings->len; w++)
            g_ptr_array_add(pr->manifest->warnings, g_strdup(part->warnings->pdata[w]));
    }
}

/* join_records on a thread of its own, beside the plan. */
typedef struct {
    preset_run *pr;
    parts_found *found;
    GPtrArray *clashes;
} records_joining;

static gpointer
join_thread(gpointer data)
{
    records_joining *j = data;

    join_records(j->pr, j->found, j->clashes);
    return NULL;
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
        for (int v = 0; pr->plans[i].member && gal__output_of(pr, i, v) && v < pr->n_variants;
             v++)
            g_hash_table_insert(owners, gal__out_rel(pr, gal__output_of(pr, i, v)),
                GINT_TO_POINTER(i + 1));
        g_hash_table_insert(photos, gal__out_rel(pr, pr->summary->photos[i].input),
            (gpointer) pr->summary->photos[i].input);
    }
    for (guint c = 0; c < clashes->len; c++) {
        gal_manifest_entry *other = clashes->pdata[c];
        int i = GPOINTER_TO_INT(g_hash_table_lookup(owners, other->output)) - 1;
        gal_manifest_entry *e = gal__manifest_find(pr->manifest, other->output);
        gal_photo_result *result;
        g_autofree char *rel_in = NULL;
        gboolean exists;

        if (i < 0 || !e)
            continue;
        result = &pr->summary->photos[i];
        rel_in = gal__out_rel(pr, result->input);
        if (strcmp(other->input, rel_in) == 0) {
            /* The clashing record is the owner's: it takes the place. */
            g_ptr_array_index(clashes, c) = e;
            gal__manifest_steal(pr->manifest, e->output);
            gal__manifest_put(pr->manifest, other);
            other = e;
            e = gal__manifest_find(pr->manifest, other->output);
        }
        if (gal__output_intact(pr, e->output, gal__record_tail(e), &exists))
            continue;
        result->status = GAL_PHOTO_FAILED;
        gal_error_set(gal__photo_error(result), GAL_ERR_OUTPUT, NULL, NULL,
            "its output %s was replaced by that of %s, another shard's photo that makes the "
            "same name (put {index} in output.name?); run again to make it",
            e->output, g_hash_table_contains(photos, other->input)
                ? (const char *) g_hash_table_lookup(photos, other->input)
                : other->input);
        gal_error_set_subject(gal__photo_error(result), result->input);
        gal__manifest_remove(pr->manifest, e->output);
    }
}

/* The orphan check on a thread of its own, beside the save. */
typedef struct {
    preset_run *pr;
    const gal_run_options *opts;
    GHashTable *sheets;
} orphans_finding;

static gpointer
orphans_thread(gpointer data)
{
    orphans_finding *f = data;

    gal__find_orphans(f->pr, f->opts, f->sheets);
    return NULL;
}

static void
remove_parts(preset_run *pr, const parts_found *found)
{
    for (int k = 1; k <= found->shards; k++) {
        g_autofree char *name = gal__part_name(k, found->shards);
        gal_error err = { 0 };

        if (found->parts[k].manifest)
            gal__unlink_beneath(pr->claim.fd, pr->out_dir, name, &err);
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
    g_autoptr(GPtrArray) clashes = g_ptr_array_new_with_free_func(
        (GDestroyNotify) gal__manifest_entry_free);
    gal_run_options merge_opts = *opts;
    early_collect collect = { pr, opts, skip_dir, NULL, NULL, NULL, 0 };
    GThread *loading;
    int failed;

    merge_opts.prune = FALSE;
    merge_opts.dry_run = FALSE;
    if (!g_file_test(pr->out_dir, G_FILE_TEST_IS_DIR))
        return gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL,
            "%s: no such folder: nothing to merge", pr->out_dir);
    /* No shard may still be writing (on this host; on others, the
     * scheduler's dependency says so), and no other run or merge. */
    if (gal__claim(pr, GAL_CLAIM_OWN, errs))
        return -1;
    /* The manifest there (a merge's again, or runs' before) is read while
     * the parts are and the photos collected. */
    loading = gal__manifest_load_begin(pr->out_dir);
    if (opts->n_inputs > 0)
        collect_begin(&collect, NULL);
    failed = read_parts(pr, &found, opts->jobs, errs, &collect) ||
        (opts->n_inputs == 0 && shards_inputs(pr, &found, &inputs, errs));
    if (collect_end(&collect, failed, errs))
        failed = failed || collect.failed;
    else if (!failed)
        /* `inputs` only when no photo is named (shards_inputs). */
        failed = collect_from(pr, opts, inputs, skip_dir, errs);
    if (!failed)
        failed = report_missing(pr, &found, errs);
    pr->manifest = gal__manifest_load_end(loading);
    if (failed) {
        parts_clear(&found);
        return -1;
    }
    pr->shards = found.shards;
    /* The merged manifest is about the parts' records (each part's lines
     * up to its results), so room for it is made while the plan and the
     * results are taken (gal__manifest_save_ahead). */
    {
        gint64 records_bytes = 0;

        for (int k = 1; k <= found.shards; k++)
            records_bytes += found.parts[k].info.results_at;
        gal__manifest_save_ahead(pr->manifest, records_bytes);
    }
    /* Names as the shards planned them (the parts' records spare the
     * headers a name from EXIF would need: then the records join first).
     * Otherwise the two are apart (the plan writes the photos' results
     * and plans, the joining the manifest and the parts), and were a
     * sixth of a merge one after the other. */
    if (gal__plan_reads_manifest(pr)) {
        join_records(pr, &found, clashes);
        gal__plan_photos(pr);
    }
    else {
        records_joining joining = { pr, &found, clashes };
        GThread *joiner = g_thread_new("gallop-join", join_thread, &joining);

        gal__plan_photos(pr);
        g_thread_join(joiner);
    }
    if (gal__merge_take_results(pr, &found, opts->jobs, errs)) {
        parts_clear(&found);
        return -1;
    }
    resolve_clashes(pr, clashes);
    if (pr->has_pages && gal__merge_check_items(pr, found.shards, errs)) {
        parts_clear(&found);
        return -1;
    }
    if (pr->has_pages) {
        gal__members_identity(pr, pr->members);
        summary->sheets_stale = !gal__pages_current(pr, pr->members);
        /* Shards run with --force make the pages again, as one run would. */
        for (int k = 1; k <= found.shards; k++)
            summary->sheets_stale |= found.parts[k].info.forced;
        if (summary->sheets_stale && gal__merge_make_pages(pr, &merge_opts, errs)) {
            parts_clear(&found);
            return -1;
        }
    }
    if (pr->gather) {
        GArray *sheets = gal__gather_free(g_steal_pointer(&pr->gather));

        summary->n_sheets = (int) sheets->len;
        summary->sheets = (gal_photo_result *) g_array_free(sheets, FALSE);
    }
    summary->interrupted = gal__cancelled(pr->engine->cancel);
    if (summary->interrupted) {
        /* The parts stay, and so does the manifest: run the merge again. */
        parts_clear(&found);
        gal__count(summary);
        return 0;
    }
    if (summary->n_sheets > 0) {
        new_sheets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        gal__record_pages(pr, new_sheets);
    }
    gal__manifest_put_keys(pr->manifest, pr->preset_digest, pr->keys);
    gal__merge_drop_stale_items(pr);
    /* A merge does not prune (merge_opts), so the orphan check only reads
     * the records, and marks them in a byte of their own that the save
     * does not read: the two run side by side (the save waits on its
     * writer about half its time; the check, one after the other, was a
     * tenth of a merge). The plans it reads go after it. */
    {
        orphans_finding finding = { pr, &merge_opts, new_sheets };
        GThread *finder = g_thread_new("gallop-orphans", orphans_thread, &finding);

        if (gal__manifest_save(pr->manifest, &summary->manifest_error) == 0)
            remove_parts(pr, &found);
        g_thread_join(finder);
    }
    gal__drop_plans(pr);
    summary->leftovers_removed = pr->claim.leftovers_removed;
    g_ptr_array_add(pr->manifest->warnings, NULL);
    summary->warnings = g_strdupv((char **) pr->manifest->warnings->pdata);
    g_ptr_array_set_size(pr->manifest->warnings, pr->manifest->warnings->len - 1);
    parts_clear(&found);
    gal__count(summary);
    return 0;
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
    status = gal__engine_begin(&run, prs, presets, n, &merge_opts, out, errs);
    for (int r = 0; r < n && status == 0; r++) {
        g_autofree char *skip = n > 1 ? g_path_get_dirname(prs[r].out_dir) : NULL;

        status = merge_one(&prs[r], &merge_opts, skip ? skip : prs[r].out_dir, errs);
    }
    gal__engine_end(&run);
    return status;
}
