/* record.c: what a run remembers of what it made (engine.h): each
 * output's record, kept as soon as the output is written and committed
 * with its photo (so a killed run keeps it), the pages' records after the
 * run, and outputs no photo makes any more (listed; removed with --prune,
 * only beneath the output folder and only when unchanged since gallop
 * wrote them). */
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

/* The records of a photo whose outputs were just written: one per
 * variant, each a product of its own (so --check, --prune and the next
 * run's decisions know every file), sharing what they are made from. */
void
gal__record_output(preset_run *pr, int i, const gal_job *job)
{
    g_autoptr(gal_about) about = about_with_warnings(job);
    gal_record r;
    struct stat st;

    gal__record_photo(pr, i, job, GAL_RECORD_FILE, &r);
    r.caption = g_strdup(job->caption);
    r.caption_source = g_strdup(job->caption_source);
    r.caption_cut = job->caption_cut;
    for (int v = 0; v < pr->config->n_variants; v++) {
        /* A file left up to date keeps its record. */
        if (!(job->write_files & (G_GUINT64_CONSTANT(1) << v)))
            continue;
        g_free(r.output);
        r.output = g_strdup(job->variant_rels[v]);
        /* What a site shows of the photo: on its first file's record only. */
        r.about = v == 0 ? about : NULL;
        r.out_size = job->files[v].bytes;
        r.out_mtime_ns = gal__stat_beneath(pr->claim.fd, r.output, &st) == 0
            ? gal__mtime_ns(&st) : 0;
        gal__digest_from_hex(&r.out_sha256, job->files[v].sha256);
        r.width = job->files[v].width;
        r.height = job->files[v].height;
        g_free(r.name_key);
        r.name_key = gal__name_key(pr, i, v);
        gal__record_keep(pr, &r);
    }
    r.about = NULL;
    gal__record_clear(&r);
}

void
gal__record_pages(preset_run *pr, GHashTable *written)
{
    char members[65];

    if (!pr->config->members_by_content) {
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
        gal_record r = { .kind = GAL_RECORD_PAGE };
        gint64 bytes = sheet->bytes;
        struct stat st;
        char hex[65];

        /* Found up to date: recorded as it is, and no orphan. A page made
         * again the same (gather.c leaves its file alone) is recorded for
         * the members it is made of now. */
        if (sheet->status == GAL_PHOTO_UP_TO_DATE && !pr->summary->sheets_stale) {
            g_hash_table_add(written, g_steal_pointer(&rel));
            continue;
        }
        /* Not made this time (a wrong album.yaml): the page the run still
         * means to make is no orphan, so --prune keeps the last one made;
         * its record, for other members, keeps the pages stale. */
        if (sheet->status == GAL_PHOTO_FAILED) {
            g_hash_table_add(written, g_steal_pointer(&rel));
            continue;
        }
        /* A page's digest was taken as it was made (gather.c); one made
         * without (a text page by an older path) is read back. */
        if ((sheet->status != GAL_PHOTO_DONE && sheet->status != GAL_PHOTO_UP_TO_DATE) ||
            (!sheet->sha256.known &&
                gal__sha256_beneath(pr->claim.fd, rel, hex, &bytes)) ||
            gal__stat_beneath(pr->claim.fd, rel, &st) != 0)
            continue;
        sheet->bytes = bytes;
        if (!sheet->sha256.known)
            gal__sha256_from_hex(&sheet->sha256, hex);
        r.output = g_steal_pointer(&rel);
        r.input = g_strdup("");
        gal__digest_from_hex(&r.in_digest, members);
        g_strlcpy(r.recipe, pr->config->preset_digest, sizeof(r.recipe));
        r.version = g_strdup(GAL_VERSION);
        r.out_size = sheet->bytes;
        r.out_mtime_ns = gal__mtime_ns(&st);
        gal__digest_from_sha256(&r.out_sha256, &sheet->sha256);
        r.width = sheet->width;
        r.height = sheet->height;
        /* What a zip holds (gather.c): the next run leaves it be for it. */
        r.about = gal__about_ref(sheet->about);
        g_hash_table_add(written, g_strdup(r.output));
        gal__record_keep(pr, &r);
        gal__record_clear(&r);
    }
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

/* Every file this run's photos make (relative to the output folder, a
 * pointer into its planned path where it can be) -> its photo's index + 1. */
static GHashTable *
files_made(const preset_run *pr, GPtrArray *owned)
{
    GHashTable *made = g_hash_table_new(g_str_hash, g_str_equal);

    for (int i = 0; i < pr->summary->total; i++)
        for (int v = 0; makes_files(pr, i) && v < pr->config->n_variants; v++) {
            const char *out = gal__output_of(pr, i, v);
            const char *below = out ? gal__path_below(pr->config->out_dir, out) : NULL;

            if (!out)
                continue;
            if (!below) {
                below = gal__out_rel(pr, out);
                g_ptr_array_add(owned, (char *) below);
            }
            g_hash_table_insert(made, (char *) below, GINT_TO_POINTER(i + 1));
        }
    return made;
}

/* Looking for orphans: the records no photo of this run makes. */
typedef struct {
    preset_run *pr;
    GHashTable *made;       /* files_made */
    GHashTable *sheets;     /* pages made now (NULL: the pages were not made) */
    GHashTable *members;    /* sheets only: photos of the run, which make no file now */
    GHashTable *now;        /* photos_making_files, made when first needed */
    GArray *orphans;        /* gal_orphan */
} orphans_finding;

static gboolean
find_orphan(const gal_record *r, void *user)
{
    orphans_finding *f = user;
    preset_run *pr = f->pr;
    g_autofree char *input = NULL;
    gal_orphan o = { 0 };
    struct stat st;

    if (r->kind == GAL_RECORD_ITEM)
        return TRUE; /* the merge keeps the items of the photos it has */
    if (r->kind == GAL_RECORD_PAGE) {
        if (!f->sheets || g_hash_table_contains(f->sheets, r->output))
            return TRUE;
    }
    else {
        int i = GPOINTER_TO_INT(g_hash_table_lookup(f->made, r->output)) - 1;
        g_autofree char *rel_in = i >= 0 ? gal__out_rel(pr, pr->summary->photos[i].input) : NULL;
        /* Is the record's photo one that makes files in this run? Its own
         * file says yes; another photo's file there leaves it to the
         * lstat below (a photo of the run was there when scanned, so the
         * answer is the same). */
        gboolean its_own = rel_in && strcmp(rel_in, r->input) == 0;
        gboolean photo_here = its_own;

        if (i < 0) {
            if (!f->now)
                f->now = photos_making_files(pr);
            photo_here = g_hash_table_contains(f->now, r->input);
        }
        o.renamed = photo_here && i < 0;
        o.not_made = g_hash_table_contains(f->members, r->input);
        if (!o.renamed && !o.not_made && photo_here)
            return TRUE;
        input = g_canonicalize_filename(r->input, pr->config->out_dir);
        if (!o.renamed && !o.not_made && (lstat(input, &st) == 0 || errno != ENOENT))
            return TRUE;
    }
    o.output = g_build_filename(pr->config->out_dir, r->output, NULL);
    o.input = g_strdup(r->kind != GAL_RECORD_PAGE ? input
                       : pr->summary->pages_are_html ? "(gallery page)" : "(contact sheet)");
    g_array_append_val(f->orphans, o);
    return TRUE;
}

/* Outputs whose photo is gone (and, after new contact sheets, old sheets
 * not made again): listed, and removed with --prune. */
void
gal__find_orphans(preset_run *pr, const gal_run_options *opts, GHashTable *sheets)
{
    g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) made = files_made(pr, owned);
    g_autoptr(GHashTable) members = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    orphans_finding f = { pr, made, sheets, members, NULL,
        g_array_new(FALSE, TRUE, sizeof(gal_orphan)) };

    for (int i = 0; i < pr->summary->total; i++)
        if (pr->plans[i].member && !pr->plans[i].has_output)
            g_hash_table_add(members, gal__out_rel(pr, pr->summary->photos[i].input));
    gal__store_each_name(pr->store, ~0u, find_orphan, &f);
    g_clear_pointer(&f.now, g_hash_table_unref);
    for (guint k = 0; opts->prune && !opts->dry_run && k < f.orphans->len; k++) {
        gal_orphan *o = &g_array_index(f.orphans, gal_orphan, k);
        const char *rel = gal__path_below(pr->config->out_dir, o->output);
        gal_record r;
        gboolean exists;

        /* Only ever beneath the output folder (the records' names were
         * checked when read), never through a link, and only what gallop
         * wrote, unchanged. */
        if (!rel || !gal__store_get(pr->store, rel, &r))
            continue;
        if (gal__output_intact(pr, rel, &r, &exists))
            o->removed =
                gal__unlink_beneath(pr->claim.fd, pr->config->out_dir, rel, &o->error) == 0;
        else if (!exists && errno == ENOENT)
            o->removed = TRUE; /* gone already: only the record goes */
        else
            gal_error_set(&o->error, GAL_ERR_OUTPUT, NULL, NULL,
                "%s changed since gallop wrote it: not removed", o->output);
        if (o->removed) {
            gal_error err = { 0 };

            gal__store_remove(pr->store, rel, &err);
            gal__record_failed(pr, &err);
        }
        gal__record_clear(&r);
    }
    pr->summary->n_orphans = (int) f.orphans->len;
    pr->summary->orphans = (gal_orphan *) g_array_free(f.orphans, FALSE);
}
