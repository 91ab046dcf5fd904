/* decide.c: which products are stale and why (engine.h), from the
 * manifest the previous runs left in the output folder. A photo's output
 * is up to date when its record names the same photo (size and time, else
 * content), preset digest, gallop version and files it depends on, and the
 * file is still what gallop wrote. The pages of a many-input stage are one
 * product over every member's item: up to date when recorded for the same
 * members, in the same state. Both decisions compare files the same way:
 * size and time first, content only when those changed. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

/* An output the incremental decisions compare with its record: `path`
 * relative beneath the output folder `root_fd`, never read through a
 * link. Outputs are recorded by SHA-256 (digest.h). */
typedef struct {
    const char *path;
    int root_fd;
} file_ref;

/* Is the output still the one recorded (size, mtime, else content)? On a
 * content match with a new mtime the record is refreshed, so the next run
 * takes the fast path again. */
static gboolean
same_file(const file_ref *f, gint64 *size, gint64 *mtime_ns, const gal_digest *sha256,
    const struct stat *st)
{
    char hex[65];

    if (st->st_size == *size && gal__mtime_ns(st) == *mtime_ns)
        return TRUE;
    /* A different size is a different file: no need to read it. */
    if (st->st_size != *size || gal__sha256_beneath(f->root_fd, f->path, hex, NULL) ||
        !gal__digest_is(sha256, hex))
        return FALSE;
    *mtime_ns = gal__mtime_ns(st);
    return TRUE;
}

/* Is the photo still the one recorded in `recorded` (size and time, else
 * content)? The photo is hashed at most once for all of its records:
 * `plan` keeps its XXH3 and, once a record of format 1 (a SHA-256) asked
 * for it, its SHA-256, taken in the same read. On a content match the
 * record is refreshed (its time, and a SHA-256 becomes the XXH3), so the
 * next run takes the fast path again and the manifest written next holds
 * XXH3 only. A photo whose record matches by size and time keeps its
 * digest, whatever its kind: reading it just to convert the digest would
 * cost a no-op rerun what a touched one costs. */
static gboolean
same_photo(const char *path, const gal_input *in, photo_plan *plan, int n_variants,
    gint64 *size, gint64 *mtime_ns, gal_digest *recorded)
{
    gboolean legacy = recorded->len == GAL_SHA256_HEX_LEN / 2;
    gboolean have = plan->in_digest_len == GAL_XXH3_HEX_LEN / 2;
    gal_digest mine;

    if (in->size == *size && in->mtime_ns == *mtime_ns)
        return TRUE;
    if (!have || (legacy && !(plan->made && plan->made->in_sha256_v1))) {
        char sha256[GAL_SHA256_HEX_LEN + 1], hex[GAL_SHA256_HEX_LEN + 1];
        /* Here, not above: an error is 1.7 KB to zero, for every photo. */
        gal_error err = { 0 };

        /* Hashed even when the size differs: the new record needs it. */
        if (plan->made)
            g_clear_pointer(&plan->made->in_sha256_v1, g_free);
        if (gal__file_digest(path, NULL, hex, legacy ? sha256 : NULL, NULL, &err)) {
            plan->in_digest_len = 0;
            return FALSE;
        }
        gal__digest_from_hex(&mine, hex);
        gal__plan_set_digest(plan, n_variants, &mine);
        if (legacy)
            gal__plan_made(plan, n_variants)->in_sha256_v1 = g_strdup(sha256);
    }
    gal__plan_digest(plan, &mine);
    if (in->size != *size ||
        (legacy ? !gal__digest_is(recorded, plan->made->in_sha256_v1)
                : recorded->len != mine.len ||
                    memcmp(recorded->bytes, mine.bytes, recorded->len) != 0))
        return FALSE;
    *mtime_ns = in->mtime_ns;
    *recorded = mine;
    return TRUE;
}

gboolean
gal__output_intact(preset_run *pr, const char *rel, gal_record_tail *recorded,
    gboolean *exists)
{
    file_ref f = { rel, pr->claim.fd };
    struct stat st;

    *exists = gal__stat_beneath(pr->claim.fd, rel, &st) == 0;
    return *exists && S_ISREG(st.st_mode) && same_file(&f, &recorded->out_size,
        &recorded->out_mtime_ns, &recorded->out_sha256, &st);
}

/* Is a file an output depends on what it was? Its change, in words, or
 * NULL. Size and time first: only a touched file is read. A captions
 * table or export is compared by the row this photo takes from it, as
 * the preset read it: an edit of other rows changes nothing here, and the
 * record takes the file's new size and time, so the next run is fast
 * again. */
static const char *
dependency_change(const gal_captions *captions, const char *photo, gal_dep_record *dep)
{
    char hex[65], sha256[65];
    struct stat st;
    gboolean exists = stat(dep->path, &st) == 0 && S_ISREG(st.st_mode);
    /* A record of format 1 holds the file's SHA-256 (digest.h). */
    gboolean legacy;

    if (g_str_has_prefix(dep->digest, "row:")) {
        gal_caption_row row;

        if (exists && st.st_size == dep->size && gal__mtime_ns(&st) == dep->mtime_ns)
            return NULL;
        if (!gal__caption_row(captions, dep->path, photo, &row))
            return "is no longer read";
        if (strcmp(row.digest, dep->digest) != 0)
            return "changed its row for this photo";
        dep->size = row.size;
        dep->mtime_ns = row.mtime_ns;
        return NULL;
    }

    if (exists != dep->exists)
        return exists ? "appeared" : "is gone";
    if (!exists || (st.st_size == dep->size && gal__mtime_ns(&st) == dep->mtime_ns))
        return NULL;
    if (st.st_size != dep->size)
        return "changed";
    legacy = gal__is_sha256_hex(dep->digest);
    gal__dependency_state(dep->path, &st, &exists, hex, legacy ? sha256 : NULL);
    if (!exists || strcmp(legacy ? sha256 : hex, dep->digest) != 0)
        return "changed";
    dep->mtime_ns = gal__mtime_ns(&st);
    g_strlcpy(dep->digest, hex, sizeof(dep->digest));
    return NULL;
}

void
gal__plan_stat(gal_input *in, const char *path)
{
    struct stat st;

    /* The scan's stat is moments old: a second one per photo was a fifth
     * of a merge's stats. A photo changed after it is stat'ed is the race
     * it always was (the record then holds an older size and time than
     * its digest's, so the next run reads it again), one step earlier. */
    if (in->ino != 0)
        return;
    if (stat(path, &st) != 0) {
        in->size = in->mtime_ns = 0;
        return;
    }
    in->size = st.st_size;
    in->mtime_ns = gal__mtime_ns(&st);
    in->dev = st.st_dev;
    in->ino = st.st_ino;
}

gal_why
gal__decide_record(preset_run *pr, int i, const char *rel, gal_manifest_entry *e, char **detail)
{
    gal_manifest *m = pr->manifest;
    photo_plan *plan = &pr->plans[i];
    const char *input = pr->summary->photos[i].input;
    g_autofree char *rel_in = gal__out_rel(pr, input);
    gal_record_tail *t;
    gboolean exists;

    if (!e)
        return GAL_WHY_NEW;
    if (strcmp(e->input, rel_in) != 0) {
        *detail = g_strdup_printf("it was made from %s", e->input);
        return GAL_WHY_OTHER_INPUT;
    }
    t = gal__record_tail(e);
    if (strcmp(t->version, GAL_VERSION) != 0) {
        *detail = g_strdup_printf("made by gallop %s, this is %s", t->version, GAL_VERSION);
        return GAL_WHY_VERSION_CHANGED;
    }
    if (strcmp(t->preset_digest, pr->preset_digest) != 0) {
        *detail = gal__keys_diff(g_hash_table_lookup(m->presets, t->preset_digest), pr->keys);
        return GAL_WHY_PRESET_CHANGED;
    }
    if (!same_photo(input, &pr->inputs[i], plan, pr->n_variants, &t->in_size, &t->in_mtime_ns,
            &t->in_digest))
        return GAL_WHY_INPUT_CHANGED;
    for (guint d = 0; t->deps && d < t->deps->len; d++) {
        gal_dep_record *dep = t->deps->pdata[d];
        const char *change = dependency_change(pr->preset->captions, input, dep);

        if (change) {
            *detail = g_strdup_printf("%s %s", dep->path, change);
            return GAL_WHY_DEPENDENCY_CHANGED;
        }
    }
    if (!gal__output_intact(pr, rel, t, &exists))
        return exists ? GAL_WHY_OUTPUT_MODIFIED : GAL_WHY_OUTPUT_MISSING;
    gal__plan_set_digest(plan, pr->n_variants, &t->in_digest);
    return GAL_WHY_UP_TO_DATE;
}

void
gal__files_from_records(preset_run *pr, int i)
{
    const gal_photo_notes *notes = gal_photo_notes_of(&pr->summary->photos[i]);

    for (int f = 0; f < notes->n_files; f++) {
        gal_output_file *file = &notes->files[f];
        g_autofree char *rel = gal__out_rel(pr, file->path);
        gal_manifest_entry *e = gal__manifest_find(pr->manifest, rel);
        const gal_record_tail *t;

        if (!e || e->sheet || e->item)
            continue;
        t = gal__record_tail(e);
        file->width = t->width;
        file->height = t->height;
        file->bytes = t->out_size;
        gal__sha256_from_digest(&file->sha256, &t->out_sha256);
    }
}

/* Was the record `e` made as variant v (its width and format)? The
 * recipe leaves output.widths and output.formats out, so that a width
 * added makes only its own files; a record holds what it was made as at
 * the end of its NAME_KEY. */
static gboolean
same_variant(const preset_run *pr, int v, gal_manifest_entry *e)
{
    char buf[64];
    const char *want = gal__variant_key_suffix(pr, v, buf, sizeof(buf));
    const char *key = gal__record_tail(e)->name_key;
    int tabs = 0;

    if (!key)
        key = "";
    for (const char *c = key; *c; c++)
        tabs += *c == '\t';
    /* "TEMPLATE\tINDEX\tCOUNT", then the variant's two fields if any. */
    if (!*want)
        return tabs == 2;
    return tabs == 4 && g_str_has_suffix(key, want);
}

/* Are photo i's outputs up to date (each of its variants a product with
 * its own record)? plans[i].stale_files gets those that are not; why,
 * for the first of them, with details in *detail. The others are left as
 * they are when the photo is built again. */
static gal_why
decide_output(preset_run *pr, int i, char **detail)
{
    gal_photo_result *result = &pr->summary->photos[i];
    gal_manifest_entry *e = NULL;
    gal_why first = GAL_WHY_UP_TO_DATE;
    /* The records whose tails are read from their file for this, let go
     * again after (a rerun of a million photos held them all); past 64
     * files a photo (stale_files' bits), kept. */
    enum { READ_MAX = 64 };
    gal_manifest_entry *read_now[READ_MAX];
    gal_record_tail as_read[READ_MAX];
    int n_read = 0;

    pr->plans[i].stale_files = 0;
    for (int v = 0; v < pr->n_variants; v++) {
        g_autofree char *rel_out = gal__out_rel(pr, gal__output_of(pr, i, v));
        gal_manifest_entry *ev = gal__manifest_find(pr->manifest, rel_out);
        char *why_detail = NULL;
        gal_why why;

        if (ev && ev->tail_in_file && !ev->tail && n_read < READ_MAX) {
            as_read[n_read] = *gal__record_tail(ev);
            read_now[n_read++] = ev;
        }
        why = gal__decide_record(pr, i, rel_out, ev && !ev->sheet && !ev->item ? ev : NULL,
            &why_detail);

        if (why == GAL_WHY_UP_TO_DATE && !same_variant(pr, v, ev)) {
            why = GAL_WHY_PRESET_CHANGED;
            why_detail = g_strdup_printf("%s was made at another width or in another format "
                                         "(output.widths, output.formats)",
                rel_out);
        }
        if (why == GAL_WHY_UP_TO_DATE) {
            if (v == 0)
                e = ev;
            continue;
        }
        pr->plans[i].stale_files |= G_GUINT64_CONSTANT(1) << v;
        if (first != GAL_WHY_UP_TO_DATE) {
            g_free(why_detail);
            continue;
        }
        first = why;
        /* Say which file, when there are several. */
        if (pr->n_variants > 1 && !why_detail &&
            (why == GAL_WHY_NEW || why == GAL_WHY_OUTPUT_MISSING || why == GAL_WHY_OUTPUT_MODIFIED))
            why_detail = g_strdup(rel_out);
        *detail = why_detail;
    }
    /* The figures of the files that stay, for the report; those built
     * replace theirs. */
    gal__files_from_records(pr, i);
    if (first == GAL_WHY_UP_TO_DATE) {
        const gal_record_tail *t = gal__record_tail(e);

        result->width = t->width;
        result->height = t->height;
        result->bytes = t->out_size;
        gal__sha256_from_digest(&result->sha256, &t->out_sha256);
        /* The report of a rerun still tells what each photo shows. */
        if (t->caption || t->caption_source || t->caption_cut) {
            gal_photo_notes *notes = gal__photo_notes(result);

            notes->caption = gal__shared_text_ref(t->caption);
            notes->caption_source = gal__shared_text_ref(t->caption_source);
            notes->caption_cut = t->caption_cut;
        }
        result->about = gal__about_ref(e->about);
    }
    for (int k = 0; k < n_read; k++)
        gal__record_tail_forget(read_now[k], &as_read[k]);
    return first;
}

/* A shard: is photo i's kept item up to date? */
static gboolean
item_current(preset_run *pr, int i)
{
    g_autofree char *rel = gal__item_rel(pr, i);
    gal_manifest_entry *e = gal__manifest_find(pr->manifest, rel);
    g_autofree char *detail = NULL;

    return gal__decide_record(pr, i, rel, e && e->item ? e : NULL, &detail) ==
        GAL_WHY_UP_TO_DATE;
}

/* The members by their photos' digests. `v1`: each by the SHA-256 a
 * record of format 1 was checked with, where there was one, to recognise
 * the record of pages made by a gallop that recorded photos by SHA-256. */
static void
members_by_content(preset_run *pr, gboolean v1, char *hex)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);

    hex[0] = '\0';
    for (int i = 0; i < pr->summary->total; i++) {
        g_autofree char *rel = NULL;
        char digest[GAL_SHA256_HEX_LEN + 1];

        if (!pr->plans[i].member)
            continue;
        if (!pr->plans[i].in_digest_len)
            return;
        rel = gal__out_rel(pr, pr->summary->photos[i].input);
        g_checksum_update(sum, (const guchar *) rel, -1);
        g_checksum_update(sum, (const guchar *) "\t", 1);
        g_checksum_update(sum,
            (const guchar *) (v1 && pr->plans[i].made && pr->plans[i].made->in_sha256_v1
                    ? pr->plans[i].made->in_sha256_v1
                    : gal__plan_digest_hex(&pr->plans[i], digest)),
            -1);
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
}

/* stat() a file into a members digest, by its path relative to the output
 * folder (as the photos are): "-" when it does not exist. */
static void
digest_stat(preset_run *pr, GChecksum *sum, const char *label, const char *path)
{
    g_autofree char *rel = gal__out_rel(pr, path);
    g_autofree char *line = NULL;
    struct stat st;

    if (stat(path, &st) == 0)
        line = g_strdup_printf("\t%s %s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, label, rel,
            (gint64) st.st_size, gal__mtime_ns(&st));
    else
        line = g_strdup_printf("\t%s %s -", label, rel);
    g_checksum_update(sum, (const guchar *) line, -1);
}

/* The members of a sheets-only run (output.photos false) by what stat()
 * says: each photo's path, size and time as planned and, when the preset
 * shows a caption, those of the files it may come from (a sidecar). There
 * are no per-photo records holding content hashes to compare with, and
 * hashing every photo on each rerun would cost a good part of what a quick
 * proof saves; a photo only touched, or checked out again, makes the
 * sheets again. Its first line keeps it from ever equalling a
 * members_digest. */
static void
members_by_stat(preset_run *pr, char *hex)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    gboolean captions = gal__preset_uses_field(pr->preset, "caption");

    g_checksum_update(sum, (const guchar *) "members by stat\n", -1);
    for (int i = 0; i < pr->summary->total; i++) {
        const photo_plan *plan = &pr->plans[i];
        g_autofree char *rel = NULL;
        g_autofree char *line = NULL;

        if (!plan->member)
            continue;
        rel = gal__out_rel(pr, pr->summary->photos[i].input);
        line = g_strdup_printf("%s\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT, rel,
            pr->inputs[i].size, pr->inputs[i].mtime_ns);
        g_checksum_update(sum, (const guchar *) line, -1);
        if (captions) {
            g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

            gal__caption_files(pr->preset->captions, pr->summary->photos[i].input, files);
            for (guint d = 0; d < files->len; d++)
                digest_stat(pr, sum, "caption", files->pdata[d]);
        }
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
}

void
gal__members_identity(preset_run *pr, char *hex)
{
    if (pr->members_by_content)
        members_by_content(pr, FALSE, hex);
    else
        members_by_stat(pr, hex);
}

gboolean
gal__pages_current(preset_run *pr, const char *members)
{
    gal_manifest *m = pr->manifest;
    GHashTableIter it;
    gpointer value;
    int found = 0;
    char v1[65] = "";

    if (!members[0])
        return FALSE;
    /* Photos whose record of format 1 was checked by SHA-256 this run
     * (they were touched) are recorded by XXH3 from now on, which changes
     * the members' identity, not the members: the pages' record is
     * recognised by the identity the SHA-256 digests give, and takes the
     * new one. */
    if (pr->members_by_content) {
        members_by_content(pr, TRUE, v1);
        if (strcmp(v1, members) == 0)
            v1[0] = '\0';
    }
    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        gal_manifest_entry *e = value;
        gboolean exists;

        gal_record_tail *t;

        if (!e->sheet)
            continue;
        t = gal__record_tail(e);
        if (v1[0] && gal__digest_is(&t->in_digest, v1))
            gal__digest_from_hex(&t->in_digest, members);
        if (!gal__digest_is(&t->in_digest, members) ||
            strcmp(t->preset_digest, pr->preset_digest) != 0 ||
            strcmp(t->version, GAL_VERSION) != 0)
            continue;
        if (!gal__output_intact(pr, e->output, gal__record_tail(e), &exists))
            return FALSE;
        found++;
    }
    return found > 0;
}

/* Mark photo i for opening. */
static void
take(preset_run *pr, int i)
{
    pr->todo[pr->n_todo++] = i;
}

/* Is photo i's output up to date? Only its own plan, result and records
 * are written (and the files it depends on read), so photos are decided
 * on several threads. */
static void
decide_photo(preset_run *pr, const gal_run_options *opts, int i)
{
    photo_plan *plan = &pr->plans[i];
    gal_photo_result *result = &pr->summary->photos[i];
    char *detail = NULL;

    gal__plan_stat(&pr->inputs[i], result->input);
    if (!plan->has_output)
        return;
    result->why = opts->force ? GAL_WHY_FORCED : decide_output(pr, i, &detail);
    if (opts->force)
        plan->stale_files = ~G_GUINT64_CONSTANT(0);
    if (detail)
        gal__photo_notes(result)->why_detail = detail;
    plan->build_output = result->why != GAL_WHY_UP_TO_DATE;
    if (!plan->build_output)
        result->status = GAL_PHOTO_UP_TO_DATE;
}

/* Deciding is a stat of each photo's output at least, and a read of every
 * photo whose time changed (a fresh checkout in CI: all of them): on one
 * thread it was most of a rerun's wall time. */
typedef struct {
    preset_run *pr;
    const gal_run_options *opts;
    const int *members;
    int n;
    gint next;   /* atomic: the next member to take, DECIDE_BATCH at a time */
} deciding;

#define DECIDE_BATCH 16

static gpointer
decide_thread(gpointer data)
{
    deciding *d = data;
    int from;

    while ((from = g_atomic_int_add(&d->next, DECIDE_BATCH)) < d->n)
        for (int k = from; k < MIN(from + DECIDE_BATCH, d->n); k++)
            decide_photo(d->pr, d->opts, d->members[k]);
    return NULL;
}

void
gal__decide(preset_run *pr, const gal_run_options *opts)
{
    gal_run_summary *summary = pr->summary;
    g_autofree int *members = g_memdup2(pr->todo, sizeof(int) * MAX(1, pr->n_todo));
    int n = pr->n_todo;
    gboolean any_output = FALSE, pages_stale = FALSE;
    deciding d = { pr, opts, members, n, 0 };
    int workers = gal__schedule_workers(opts->jobs, (n + DECIDE_BATCH - 1) / DECIDE_BATCH);
    g_autofree GThread **threads = g_new0(GThread *, workers);

    pr->n_todo = 0;
    for (int t = 1; t < workers; t++)
        threads[t] = g_thread_new("gallop-decide", decide_thread, &d);
    decide_thread(&d);
    for (int t = 1; t < workers; t++)
        g_thread_join(threads[t]);
    for (int k = 0; k < n; k++)
        any_output |= pr->plans[members[k]].build_output;
    if (pr->keep_items) {
        /* A shard: its members' items, each a product of its own. */
        for (int k = 0; k < n; k++) {
            photo_plan *plan = &pr->plans[members[k]];

            plan->build_item = opts->force || plan->build_output ||
                !item_current(pr, members[k]);
            summary->sheets_stale |= plan->build_item;
        }
    }
    else if (pr->has_pages && n > 0) {
        gal__members_identity(pr, pr->members);
        pages_stale = opts->force || any_output || !gal__pages_current(pr, pr->members);
        summary->sheets_stale = pages_stale;
    }
    for (int k = 0; k < n; k++) {
        int i = members[k];
        photo_plan *plan = &pr->plans[i];
        gal_photo_result *result = &summary->photos[i];

        if (!pr->keep_items)
            plan->build_item = pages_stale;
        if (plan->build_output)
            take(pr, i);
        else if (plan->has_output) {
            /* Up to date itself, but read for the pages: a dry run only
             * says the pages are stale. */
            if (plan->build_item && !opts->dry_run) {
                result->why = GAL_WHY_SHEET;
                take(pr, i);
            }
        }
        else if (plan->build_item) {
            /* No file of its own: the photo is there for its item. */
            result->why = opts->force ? GAL_WHY_FORCED : GAL_WHY_SHEET;
            take(pr, i);
        }
        else {
            result->status = GAL_PHOTO_UP_TO_DATE;
            result->why = GAL_WHY_UP_TO_DATE;
        }
    }
}
