/* decide.c: which products are stale and why (engine.h), from the
 * records the previous runs left in the output folder (store.h). A photo's output
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
#include "album.h"
#include "overrides.h"
#include "parallel.h"

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

/* Is the photo still the one recorded in `r` (size and time, else
 * content)? The photo is hashed at most once for all of its records: its
 * plan keeps the digest. On a content match the record's time is
 * refreshed, so the next run takes the fast path again. */
static gboolean
same_photo(const char *path, const gal_input *in, photo_plan *plan, gal_record *r)
{
    gal_digest mine;

    if (in->size == r->in_size && in->mtime_ns == r->in_mtime_ns)
        return TRUE;
    if (!plan->has_digest) {
        char hex[GAL_XXH3_HEX_LEN + 1];
        /* Here, not above: an error is 1.7 KB to zero, for every photo. */
        gal_error err = { 0 };

        /* Hashed even when the size differs: the new record needs it. */
        if (gal__file_digest(path, NULL, hex, NULL, NULL, &err))
            return FALSE;
        gal__digest_from_hex(&mine, hex);
        gal__plan_set_digest(plan, &mine);
    }
    gal__plan_digest(plan, &mine);
    if (in->size != r->in_size || r->in_digest.len != mine.len ||
        memcmp(r->in_digest.bytes, mine.bytes, mine.len) != 0)
        return FALSE;
    r->in_mtime_ns = in->mtime_ns;
    return TRUE;
}

gboolean
gal__output_intact(preset_run *pr, const char *rel, gal_record *recorded, gboolean *exists)
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
 * again. `path` is the file's, `dep->path` relative to the output folder. */
static const char *
dependency_change(const gal_captions *captions, const char *photo, const char *path,
    gal_dep_record *dep)
{
    char hex[65];
    struct stat st;
    gboolean exists = stat(path, &st) == 0 && S_ISREG(st.st_mode);

    if (g_str_has_prefix(dep->digest, "row:")) {
        gal_caption_row row;

        if (exists && st.st_size == dep->size && gal__mtime_ns(&st) == dep->mtime_ns)
            return NULL;
        if (!gal__caption_row(captions, path, photo, &row))
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
    gal__dependency_state(path, &st, &exists, hex, NULL);
    if (!exists || strcmp(hex, dep->digest) != 0)
        return "changed";
    dep->mtime_ns = gal__mtime_ns(&st);
    return NULL;
}

/* Does the record list the photo's own sidecar? Every output recorded
 * since photos have one lists both its names, there or not (job.c). */
static gboolean
lists_sidecar(const gal_record *r)
{
    for (guint d = 0; r->deps && d < r->deps->len; d++)
        if (g_str_has_suffix(((const gal_dep_record *) r->deps->pdata[d])->path, ".yaml"))
            return TRUE;
    return FALSE;
}

/* The photo's sidecar, when it has one (a new string), else NULL. */
static char *
sidecar_of(const char *photo)
{
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    struct stat st;

    gal__overrides_files(photo, names);
    for (guint i = 0; i < names->len; i++)
        if (lstat(names->pdata[i], &st) == 0)
            return g_strdup(names->pdata[i]);
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
gal__decide_record(preset_run *pr, int i, const char *rel, gal_record *r, char **detail,
    gboolean *refreshed)
{
    photo_plan *plan = &pr->plans[i];
    const char *input = pr->summary->photos[i].input;
    g_autofree char *rel_in = gal__out_rel(pr, input);
    gint64 in_mtime, out_mtime;
    gboolean exists;

    if (!r)
        return GAL_WHY_NEW;
    if (strcmp(r->input, rel_in) != 0) {
        *detail = g_strdup_printf("it was made from %s", r->input);
        return GAL_WHY_OTHER_INPUT;
    }
    if (strcmp(r->version, GAL_VERSION) != 0) {
        *detail = g_strdup_printf("made by gallop %s, this is %s", r->version, GAL_VERSION);
        return GAL_WHY_VERSION_CHANGED;
    }
    if (strcmp(r->recipe, pr->config->preset_digest) != 0) {
        g_autoptr(GPtrArray) before = gal__store_recipe(pr->store, r->recipe);

        if (!before && pr->part)
            before = gal__store_recipe(pr->part, r->recipe);
        *detail = gal__keys_diff(before, pr->config->keys);
        return GAL_WHY_PRESET_CHANGED;
    }
    in_mtime = r->in_mtime_ns;
    out_mtime = r->out_mtime_ns;
    if (!same_photo(input, &pr->inputs[i], plan, r))
        return GAL_WHY_INPUT_CHANGED;
    for (guint d = 0; r->deps && d < r->deps->len; d++) {
        gal_dep_record *dep = r->deps->pdata[d];
        g_autofree char *path = g_canonicalize_filename(dep->path, pr->config->out_dir);
        gint64 size = dep->size, mtime = dep->mtime_ns;
        const char *change = dependency_change(pr->config->preset->captions, input, path, dep);

        if (change) {
            *detail = g_strdup_printf("%s %s", dep->path, change);
            return GAL_WHY_DEPENDENCY_CHANGED;
        }
        *refreshed |= size != dep->size || mtime != dep->mtime_ns;
    }
    /* Recorded before photos had sidecars of their own: one there now is
     * new to the output (stat'ed only for such records). */
    if (!lists_sidecar(r)) {
        g_autofree char *sidecar = sidecar_of(input);

        if (sidecar) {
            g_autofree char *rel_sidecar = gal__out_rel(pr, sidecar);

            *detail = g_strdup_printf("%s appeared", rel_sidecar);
            return GAL_WHY_DEPENDENCY_CHANGED;
        }
    }
    if (!gal__output_intact(pr, rel, r, &exists))
        return exists ? GAL_WHY_OUTPUT_MODIFIED : GAL_WHY_OUTPUT_MISSING;
    *refreshed |= in_mtime != r->in_mtime_ns || out_mtime != r->out_mtime_ns;
    gal__plan_set_digest(plan, &r->in_digest);
    return GAL_WHY_UP_TO_DATE;
}

void
gal__files_from_records(preset_run *pr, int i)
{
    const gal_photo_notes *notes = gal_photo_notes_of(&pr->summary->photos[i]);

    for (int f = 0; f < notes->n_files; f++) {
        gal_output_file *file = &notes->files[f];
        g_autofree char *rel = gal__out_rel(pr, file->path);
        gal_record r;

        if (!gal__record_find(pr, rel, &r))
            continue;
        if (r.kind == GAL_RECORD_FILE) {
            file->width = r.width;
            file->height = r.height;
            file->bytes = r.out_size;
            gal__sha256_from_digest(&file->sha256, &r.out_sha256);
        }
        gal__record_clear(&r);
    }
}

/* Was the record `r` made as variant v (its width and format)? The
 * recipe leaves output.widths and output.formats out, so that a width
 * added makes only its own files; a record holds what it was made as at
 * the end of its name key. */
static gboolean
same_variant(const preset_run *pr, int v, const gal_record *r)
{
    char buf[64];
    const char *want = gal__variant_key_suffix(pr, v, buf, sizeof(buf));
    const char *key = r->name_key ? r->name_key : "";
    int tabs = 0;

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
 * they are when the photo is built again. Records found the same by
 * content are kept refreshed, unless in a dry run (which writes nothing). */
static gal_why
decide_output(preset_run *pr, int i, const gal_run_options *opts, char **detail)
{
    gal_photo_result *result = &pr->summary->photos[i];
    gal_why first = GAL_WHY_UP_TO_DATE;
    gal_record kept = { 0 }; /* the first file's record, while it is up to date */

    pr->plans[i].stale_files = 0;
    for (int v = 0; v < pr->config->n_variants; v++) {
        g_autofree char *rel_out = gal__out_rel(pr, gal__output_of(pr, i, v));
        gal_record r;
        gboolean found = gal__record_find(pr, rel_out, &r), refreshed = FALSE;
        char *why_detail = NULL;
        gal_why why = gal__decide_record(pr, i, rel_out,
            found && r.kind == GAL_RECORD_FILE ? &r : NULL, &why_detail, &refreshed);

        if (why == GAL_WHY_UP_TO_DATE && !same_variant(pr, v, &r)) {
            why = GAL_WHY_PRESET_CHANGED;
            why_detail = g_strdup_printf("%s was made at another width or in another format "
                                         "(output.widths, output.formats)",
                rel_out);
        }
        if (why == GAL_WHY_UP_TO_DATE) {
            if (refreshed && !opts->dry_run)
                gal__record_keep(pr, &r);
            if (v == 0)
                kept = r;
            else
                gal__record_clear(&r);
            continue;
        }
        if (found)
            gal__record_clear(&r);
        pr->plans[i].stale_files |= G_GUINT64_CONSTANT(1) << v;
        if (first != GAL_WHY_UP_TO_DATE) {
            g_free(why_detail);
            continue;
        }
        first = why;
        /* Say which file, when there are several. */
        if (pr->config->n_variants > 1 && !why_detail &&
            (why == GAL_WHY_NEW || why == GAL_WHY_OUTPUT_MISSING || why == GAL_WHY_OUTPUT_MODIFIED))
            why_detail = g_strdup(rel_out);
        *detail = why_detail;
    }
    /* The figures of the files that stay, for the report; those built
     * replace theirs. */
    gal__files_from_records(pr, i);
    if (first == GAL_WHY_UP_TO_DATE) {
        result->width = kept.width;
        result->height = kept.height;
        result->bytes = kept.out_size;
        gal__sha256_from_digest(&result->sha256, &kept.out_sha256);
        /* The report of a rerun still tells what each photo shows. */
        if (kept.caption || kept.caption_source || kept.caption_cut) {
            gal_photo_notes *notes = gal__photo_notes(result);

            notes->caption = gal__shared_text(kept.caption);
            notes->caption_source = gal__shared_text(kept.caption_source);
            notes->caption_cut = kept.caption_cut;
        }
        /* The pages' items may be made from it (items_from_records). */
        if (!opts->lean_results || pr->config->items_from_records)
            result->about = gal__about_ref(kept.about);
    }
    gal__record_clear(&kept);
    return first;
}

/* A shard: is photo i's kept item up to date? */
static gboolean
item_current(preset_run *pr, int i, gboolean look)
{
    g_autofree char *rel = gal__item_rel(pr, i);
    g_autofree char *detail = NULL;
    gal_record r;
    gboolean found = gal__record_find(pr, rel, &r), refreshed = FALSE;
    gboolean current = gal__decide_record(pr, i, rel, found && r.kind == GAL_RECORD_ITEM ? &r : NULL,
                           &detail, &refreshed) == GAL_WHY_UP_TO_DATE;

    if (current && refreshed && !look)
        gal__record_keep(pr, &r);
    if (found)
        gal__record_clear(&r);
    return current;
}

/* The members by their photos' digests. */
static void
members_by_content(preset_run *pr, char *hex)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);

    hex[0] = '\0';
    for (int i = 0; i < pr->summary->total; i++) {
        g_autofree char *rel = NULL;
        char digest[GAL_SHA256_HEX_LEN + 1];

        if (!pr->plans[i].member)
            continue;
        if (!pr->plans[i].has_digest)
            return;
        rel = gal__out_rel(pr, pr->summary->photos[i].input);
        g_checksum_update(sum, (const guchar *) rel, -1);
        g_checksum_update(sum, (const guchar *) "\t", 1);
        g_checksum_update(sum, (const guchar *) gal__plan_digest_hex(&pr->plans[i], digest), -1);
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
    gboolean captions = gal__preset_uses_field(pr->config->preset, "caption");

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

            gal__caption_files(pr->config->preset->captions, pr->summary->photos[i].input, files);
            for (guint d = 0; d < files->len; d++)
                digest_stat(pr, sum, "caption", files->pdata[d]);
        }
        {
            /* Its own sidecar: alt text, a crop's focus, no watermark. */
            g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

            gal__overrides_files(pr->summary->photos[i].input, files);
            for (guint d = 0; d < files->len; d++)
                digest_stat(pr, sum, "overrides", files->pdata[d]);
        }
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
}

/* Pages per album (a gallery) depend on their album.yaml files too. */
static void
album_files(preset_run *pr, char *hex)
{
    gboolean albums = FALSE;
    g_autoptr(GChecksum) sum = NULL;
    g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) rels = g_ptr_array_new();

    for (guint s = 0; s < pr->config->preset->stages->len; s++)
        albums |= g_array_index(pr->config->preset->stages, gal_stage_instance, s).def->albums;
    if (!albums || !hex[0])
        return;
    for (int i = 0; i < pr->summary->total; i++) {
        const gal_input *in = &pr->inputs[i];

        if (!pr->plans[i].member)
            continue;
        /* The input folder: the photo's path before its path within it. */
        g_ptr_array_add(roots, in->rel_at > 0 ? g_strndup(in->path, in->rel_at - 1)
                                              : g_strdup("."));
        g_ptr_array_add(rels, (gpointer) gal__input_rel(in));
    }
    sum = g_checksum_new(G_CHECKSUM_SHA256);
    g_checksum_update(sum, (const guchar *) hex, -1);
    gal__album_digest(sum, (const char *const *) roots->pdata, (const char *const *) rels->pdata,
        (int) rels->len);
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
}

void
gal__members_identity(preset_run *pr, char *hex)
{
    if (pr->config->members_by_content)
        members_by_content(pr, hex);
    else
        members_by_stat(pr, hex);
    album_files(pr, hex);
}

static int
compare_rel(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static guint
gather_index(const gal_preset *preset)
{
    for (guint s = 0; s < preset->stages->len; s++)
        if (g_array_index(preset->stages, gal_stage_instance, s).def->kind == GAL_STAGE_GATHER)
            return s;
    return 0;
}

/* Looking for pages recorded for some members. */
typedef struct {
    preset_run *pr;
    const char *members;
    int found;
    gboolean broken;   /* one of them is not as recorded */
    GArray *outputs;   /* found_page: the pages found */
} pages_looking;

typedef struct {
    char *rel;         /* relative to the output folder */
    gint64 bytes;
    gal_sha256 sha256;
} found_page;

static void
found_page_clear(gpointer data)
{
    g_free(((found_page *) data)->rel);
}

static gboolean
page_matches(const gal_record *r, void *user)
{
    pages_looking *p = user;
    gal_record copy;
    gboolean exists, intact;

    if (!gal__digest_is(&r->in_digest, p->members) ||
        strcmp(r->recipe, p->pr->config->preset_digest) != 0 || strcmp(r->version, GAL_VERSION) != 0)
        return TRUE;
    gal__record_copy(&copy, r);
    intact = gal__output_intact(p->pr, copy.output, &copy, &exists);
    gal__record_clear(&copy);
    if (!intact) {
        p->broken = TRUE;
        return FALSE;
    }
    p->found++;
    if (p->outputs) {
        found_page page = { .rel = g_strdup(r->output), .bytes = r->out_size };

        gal__sha256_from_digest(&page.sha256, &r->out_sha256);
        g_array_append_val(p->outputs, page);
    }
    return TRUE;
}

/* The pages up to date, as results: the report lists every page of the
 * run, remade or not. */
static void
pages_up_to_date(preset_run *pr, GArray *outputs)
{
    gal_run_summary *summary = pr->summary;

    g_array_sort(outputs, compare_rel);
    summary->sheets = g_new0(gal_photo_result, MAX(1, outputs->len));
    for (guint k = 0; k < outputs->len; k++) {
        const found_page *found = &g_array_index(outputs, found_page, k);
        gal_photo_result *page = &summary->sheets[summary->n_sheets++];

        page->output = g_build_filename(pr->config->out_dir, found->rel, NULL);
        page->bytes = found->bytes;
        page->sha256 = found->sha256;
        page->input = g_strdup(g_array_index(pr->config->preset->stages, gal_stage_instance,
            gather_index(pr->config->preset)).def->name);
        page->status = GAL_PHOTO_UP_TO_DATE;
        page->why = GAL_WHY_UP_TO_DATE;
    }
}

gboolean
gal__pages_current(preset_run *pr, const char *members)
{
    pages_looking p = { pr, members, 0, FALSE, NULL };

    if (!members[0])
        return FALSE;
    gal__store_each(pr->store, 1u << GAL_RECORD_PAGE, page_matches, &p);
    return p.found > 0 && !p.broken;
}

/* The pages found up to date, listed as the run's (a second look at the
 * page records: there are few). */
static void
list_current_pages(preset_run *pr)
{
    g_autoptr(GArray) outputs = g_array_new(FALSE, TRUE, sizeof(found_page));
    pages_looking p = { pr, pr->members, 0, FALSE, outputs };

    g_array_set_clear_func(outputs, found_page_clear);
    gal__store_each(pr->store, 1u << GAL_RECORD_PAGE, page_matches, &p);
    if (p.found > 0 && !p.broken && !pr->summary->sheets)
        pages_up_to_date(pr, outputs);
}

/* Does the photo's record keep all a text page shows of it (its label,
 * placeholder and colour, and its files' sizes)? */
static gboolean
page_in_record(const gal_photo_result *result)
{
    const gal_photo_notes *notes = gal_photo_notes_of(result);

    for (int f = 0; f < notes->n_files; f++)
        if (notes->files[f].width <= 0 || notes->files[f].height <= 0)
            return FALSE;
    return result->about && result->width > 0 && result->height > 0 &&
        gal__about_get(result->about, GAL_ABOUT_PAGE_LABEL) &&
        gal__about_get(result->about, "placeholder") && gal__about_get(result->about, "color");
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
    result->why = opts->force ? GAL_WHY_FORCED : decide_output(pr, i, opts, &detail);
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
 * thread it was most of a rerun's wall time. Each photo's decision writes
 * only its own plan, result and records. */
typedef struct {
    preset_run *pr;
    const gal_run_options *opts;
    const int *members;
} deciding;

#define DECIDE_BATCH 16

static void
decide_range(int from, int to, void *user)
{
    deciding *d = user;

    for (int k = from; k < to; k++)
        decide_photo(d->pr, d->opts, d->members[k]);
}

void
gal__decide(preset_run *pr, const gal_run_options *opts)
{
    gal_run_summary *summary = pr->summary;
    g_autofree int *members = g_memdup2(pr->todo, sizeof(int) * MAX(1, pr->n_todo));
    int n = pr->n_todo;
    gboolean any_output = FALSE, pages_stale = FALSE;
    deciding d = { pr, opts, members };

    pr->n_todo = 0;
    gal__parallel_for(n, DECIDE_BATCH, gal__schedule_workers(opts->jobs, n), decide_range, &d);
    for (int k = 0; k < n; k++)
        any_output |= pr->plans[members[k]].build_output;
    if (gal__keeps_items(pr)) {
        /* A shard: its members' items, each a product of its own. */
        for (int k = 0; k < n; k++) {
            photo_plan *plan = &pr->plans[members[k]];

            plan->build_item = opts->force || plan->build_output ||
                !item_current(pr, members[k], opts->dry_run);
            summary->sheets_stale |= plan->build_item;
        }
    }
    else if (pr->config->has_pages && n > 0) {
        gal__members_identity(pr, pr->members);
        pages_stale = opts->force || any_output || !gal__pages_current(pr, pr->members);
        summary->sheets_stale = pages_stale;
        if (!pages_stale)
            list_current_pages(pr);
    }
    for (int k = 0; k < n; k++) {
        int i = members[k];
        photo_plan *plan = &pr->plans[i];
        gal_photo_result *result = &summary->photos[i];

        if (!gal__keeps_items(pr))
            plan->build_item = pages_stale;
        if (plan->build_output)
            take(pr, i);
        else if (plan->has_output) {
            /* Up to date itself, but read for the pages: a dry run only
             * says the pages are stale. */
            if (plan->build_item && !opts->dry_run) {
                /* Its record keeps all its page shows: taken for the
                 * pages' plan, not opened (run.c). */
                plan->item_from_record = pr->config->items_from_records &&
                    page_in_record(result);
                if (!plan->item_from_record)
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
    /* The records refreshed on the way (found the same by content). */
    if (!opts->dry_run)
        gal__record_commit(pr, FALSE);
}
