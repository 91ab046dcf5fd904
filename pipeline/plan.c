/* plan.c: what each preset makes of each photo (engine.h). Names are
 * rendered and checked here, before anything is written: a photo whose
 * name is unusable, collides with another's or would overwrite an input
 * fails alone. */
#include <stdint.h>
#include <string.h>

#include "engine.h"

/* The end of a record's NAME_KEY: the width and format the file is made
 * as, which decide.c compares (output.widths and output.formats are not
 * in the recipe). */
const char *
gal__variant_key_suffix(const preset_run *pr, int v, char *buf, size_t size)
{
    const gal_variant *variant = &pr->variants[v];

    /* One file per photo keeps the key it always had. */
    if (pr->n_variants == 1 && !variant->width)
        return "";
    g_snprintf(buf, size, "\t%d\t%s", variant->width, gal__format_ext(variant->format));
    return buf;
}

/* What the name of the run's photo `number` (from 1) was rendered from. */
static char *
name_key_of(const preset_run *pr, int number, int v)
{
    char buf[64];

    return g_strdup_printf("%s\t%d\t%d%s", gal__template_text(pr->preset->output->name), number,
        pr->run_total, gal__variant_key_suffix(pr, v, buf, sizeof(buf)));
}

char *
gal__name_key(const preset_run *pr, int i, int v)
{
    return name_key_of(pr, gal__photo_number(pr, i), v);
}

/* The key of entries_by_input. */
static char *
input_key(const char *rel_input, const char *name_key)
{
    return g_strconcat(rel_input, "\n", name_key, NULL);
}

static gboolean
name_needs_exif(const gal_output_opts *output)
{
    return gal__template_uses_any(output->name, GAL_FIELD_EXIF);
}

/* A file's identity, so that one file reached by two spellings (a symlinked
 * folder, a hard link) is still recognised as the same file. */
typedef struct {
    dev_t dev;
    ino_t ino;
} file_id;

static int
compare_ids(const void *a, const void *b)
{
    const file_id *x = a, *y = b;

    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* The inputs' identities, sorted: from the scan's own stat when it made
 * one (a million photos are not stat'ed twice). */
static GArray *
input_ids_of(const gal_input *inputs, int n)
{
    GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(file_id), n);

    for (int i = 0; i < n; i++) {
        const gal_input *in = &inputs[i];
        struct stat st;
        file_id id = { in->dev, in->ino };

        if (!in->ino) {
            if (stat(in->path, &st) != 0)
                continue;
            id = (file_id) { st.st_dev, st.st_ino };
        }
        g_array_append_val(ids, id);
    }
    g_array_sort(ids, compare_ids);
    return ids;
}

static void
refuse(gal_photo_result *result, const char *message)
{
    gal_error_set(gal__photo_error(result), GAL_ERR_OUTPUT, NULL, NULL, "%s", message);
    gal_error_set_subject(result->error, result->input);
    result->status = GAL_PHOTO_FAILED;
}

/* Comparing paths is not enough: the output folder may reach an input
 * through a symlink (-o real/ with the photos given as link/). */
static gboolean
is_input_file(GArray *input_ids, const char *path)
{
    struct stat st;
    file_id id;

    if (stat(path, &st) != 0)
        return FALSE;
    id = (file_id) { st.st_dev, st.st_ino };
    return bsearch(&id, input_ids->data, input_ids->len, sizeof id, compare_ids) != NULL;
}

/* Records by photo and what their names were rendered from (a photo has
 * one per variant). */
static GHashTable *
entries_by_input(gal_manifest *m)
{
    GHashTable *by_input = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTableIter it;
    gpointer value;

    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        gal_manifest_entry *e = value;

        if (!e->sheet && !e->item && e->name_key)
            g_hash_table_insert(by_input, input_key(e->input, e->name_key), e);
    }
    return by_input;
}

/* A name template that shows EXIF facts needs each photo's header; the
 * path recorded for an unchanged photo (same size and mtime, same template,
 * place in the run and variant) spares that read on reruns. */
static char *
recorded_output(preset_run *pr, GHashTable *by_input, int number, int v, const char *input)
{
    g_autofree char *rel = gal__relative_path(pr->out_dir, input);
    g_autofree char *name_key = name_key_of(pr, number, v);
    g_autofree char *key = input_key(rel, name_key);
    gal_manifest_entry *e = g_hash_table_lookup(by_input, key);
    struct stat st;

    if (!e || stat(input, &st) != 0 || st.st_size != e->in_size ||
        gal__mtime_ns(&st) != e->in_mtime_ns)
        return NULL;
    return g_build_filename(pr->out_dir, e->output, NULL);
}

/* The run's photo `number`'s path for variant v: recorded, or rendered
 * from its facts (with its EXIF ones when the name shows them, read into
 * `facts` once). NULL with `result` failed, or the photo left to its
 * shard (`*skip`: another shard's, `elsewhere`). */
static char *
variant_path(preset_run *pr, GHashTable *by_input, int number, gboolean elsewhere, int v,
    gal_photo_result *result, gal_facts *facts, gboolean *facts_read, GStringChunk *strings,
    gboolean *skip)
{
    const gal_preset *preset = pr->preset;
    const gal_input *in = &pr->inputs[number - 1];
    gboolean needs_exif = by_input != NULL;
    /* On the stack: a result's error is allocated only for a photo that
     * fails (a million-photo plan would otherwise hold a kilobyte and a
     * half of empty error per photo). */
    gal_error err = { 0 };
    char *path;

    *skip = FALSE;
    facts->width = pr->variants[v].width;
    facts->ext = gal__format_ext(pr->variants[v].format);
    if (needs_exif && (path = recorded_output(pr, by_input, number, v, in->path)))
        return path; /* the photo is as it was when this name was rendered from it */
    if (needs_exif && elsewhere) {
        /* A shard reads no header of another shard's photo: its name
         * from EXIF is left to that shard, and a clash between two
         * shards' photos to the merge. */
        *skip = TRUE;
        return NULL;
    }
    if (needs_exif && !*facts_read) {
        if (gal__photo_facts(preset, &(gal_photo_ref) { in->path, in->root, pr->follow_links },
                facts, strings, &err)) {
            *gal__photo_error(result) = err;
            return NULL;
        }
        *facts_read = TRUE;
    }
    if (!(path = gal__output_path(preset->output, pr->out_dir, facts, &err)))
        *gal__photo_error(result) = err;
    return path;
}

/* What naming every photo of a run shares. */
typedef struct {
    /* Output path -> the photo that has it. A key is the plan's own
     * string of the path (pr->outputs) when that is canonical, as it is
     * unless output.name climbs out with ".."; only the others are
     * copies, kept in `canonical_copies`: a million photos' paths were
     * each copied here. */
    GHashTable *claimed;
    GPtrArray *canonical_copies;
    GArray *input_ids;
    char *cwd;
    GHashTable *by_input;  /* a name shows EXIF facts: the records by photo */
    /* A photo's scratch, emptied for each: its facts' strings, its paths
     * and their canonical spellings. */
    GStringChunk *strings;
    GPtrArray *paths, *canonical;
} naming;

/* The run's photo f's names, one per variant, into n->paths and
 * n->canonical, each checked: FALSE when it has none, refused (`result`
 * failed) or, with *skip, another shard's (`elsewhere`) whose name its
 * shard gives. */
static gboolean
name_photo(preset_run *pr, naming *n, int f, gboolean elsewhere, gal_photo_result *result,
    gboolean *skip)
{
    const gal_input *in = &pr->inputs[f];
    gboolean facts_read = FALSE, refused = FALSE;
    gal_facts facts;

    g_string_chunk_clear(n->strings);
    g_ptr_array_set_size(n->paths, 0);
    g_ptr_array_set_size(n->canonical, 0);
    gal__facts_from_path(pr->preset, in->path, f + 1, pr->run_total, &facts, n->strings);
    gal__facts_set_dir(&facts, in->rel, n->strings);
    *skip = FALSE;
    /* Every file the photo makes (output.widths x output.formats) is
     * named and checked; one that cannot be made fails the photo. */
    for (int v = 0; v < pr->n_variants && !*skip && !refused; v++) {
        char *path = variant_path(pr, n->by_input, f + 1, elsewhere, v, result, &facts,
            &facts_read, n->strings, skip);
        const char *owner;
        char *canon;

        if (!path) {
            refused = !*skip;
            break;
        }
        g_ptr_array_add(n->paths, path);
        canon = gal__path_is_canonical(path) ? g_strdup(path)
                                             : g_canonicalize_filename(path, n->cwd);
        g_ptr_array_add(n->canonical, canon);
        /* An output named like an input is that input's file: its
         * identity tells, whatever the spelling. Another shard's photo
         * is checked by that shard. */
        if (!elsewhere && is_input_file(n->input_ids, path)) {
            g_autofree char *msg = g_strdup_printf("its output %s would overwrite an input",
                path);

            refuse(result, msg);
            refused = TRUE;
        }
        else if ((owner = g_hash_table_lookup(n->claimed, canon))) {
            g_autofree char *msg = g_strdup_printf("its output %s is already the output of "
                "%s (put {dir}, {index} or {ext} in output.name?)", path, owner);

            refuse(result, msg);
            refused = TRUE;
        }
        /* Two variants of one photo with one name: the preset's
         * checks keep {width} and {ext} in the name, but a fallback
         * such as {width|x} could still merge them. */
        for (guint k = 0; !refused && k + 1 < n->canonical->len; k++)
            if (strcmp(n->canonical->pdata[k], canon) == 0) {
                g_autofree char *msg = g_strdup_printf("two of its outputs are both named %s",
                    path);

                refuse(result, msg);
                refused = TRUE;
            }
    }
    if (refused && result->status != GAL_PHOTO_FAILED) {
        gal_error_set_subject(result->error, result->input);
        result->status = GAL_PHOTO_FAILED;
    }
    return !*skip && !refused;
}

/* The names photo f was given (n->paths) become its own: claimed for
 * `owner`, each path handed to `keep`. */
static void
claim_names(naming *n, const char *owner, char **keep)
{
    for (guint v = 0; v < n->canonical->len; v++) {
        char *path = g_steal_pointer(&n->paths->pdata[v]);
        char *key = path;

        keep[v] = path;
        if (strcmp(n->canonical->pdata[v], path) != 0) {
            key = g_steal_pointer(&n->canonical->pdata[v]);
            g_ptr_array_add(n->canonical_copies, key);
        }
        g_hash_table_insert(n->claimed, key, (gpointer) owner);
    }
}

/* Decide each photo's output path; photos whose path is unusable fail
 * here, before anything is written. A shard names the other shards'
 * photos too, for the clashes one run would find, but keeps nothing of
 * them. */
void
gal__plan_photos(preset_run *pr)
{
    const gal_preset *preset = pr->preset;
    gal_run_summary *summary = pr->summary;
    gboolean needs_exif = preset->output->photos && name_needs_exif(preset->output);
    naming n = { g_hash_table_new(g_str_hash, g_str_equal),
        g_ptr_array_new_with_free_func(g_free), input_ids_of(pr->inputs, pr->n_inputs),
        g_get_current_dir(), needs_exif ? entries_by_input(pr->manifest) : NULL,
        g_string_chunk_new(256), g_ptr_array_new_with_free_func(g_free),
        g_ptr_array_new_with_free_func(g_free) };
    /* The other shards' photos' names, claimed until the plan is made. */
    g_autoptr(GPtrArray) others_names = g_ptr_array_new_with_free_func(g_free);
    int next_own = 0;

    /* Every photo of the run, f; a shard's own are its photo i too. */
    for (int f = 0; f < pr->run_total; f++) {
        const gal_input *in = &pr->inputs[f];
        gboolean elsewhere = pr->run_index &&
            (next_own >= summary->total || pr->run_index[next_own] != f);
        int i = elsewhere ? -1 : pr->run_index ? next_own++ : f;
        gboolean skip;

        if (elsewhere) {
            gal_photo_result refused = { .input = in->path };

            if (!in->why && in->regular && preset->output->photos &&
                name_photo(pr, &n, f, TRUE, &refused, &skip)) {
                guint at = others_names->len;

                g_ptr_array_set_size(others_names, at + n.paths->len);
                claim_names(&n, in->path, (char **) &others_names->pdata[at]);
            }
            g_free(refused.error);
            continue;
        }

        gal_photo_result *result = &summary->photos[i];

        /* The input's own string (the summary takes it at the end of the
         * run, gal__engine_end): a million photos' paths, once. */
        result->input = in->path;
        if (in->why || !in->regular) {
            gal_error_set(gal__photo_error(result), GAL_ERR_INPUT, NULL, NULL, "%s", in->why ? in->why
                : "not a regular file (FIFO, device or socket): skipped, never opened");
            gal_error_set_subject(result->error, result->input);
            result->status = in->refused ? GAL_PHOTO_FAILED : GAL_PHOTO_IGNORED;
            continue;
        }
        if (!preset->output->photos) {
            /* No file of its own (output.photos false): no name to render,
             * so none to collide or to overwrite an input; the photo is
             * there for its item, and the pages' names were checked when
             * the preset loaded. */
            pr->plans[i].member = TRUE;
            pr->todo[pr->n_todo++] = i;
            continue;
        }
        if (!name_photo(pr, &n, f, FALSE, result, &skip))
            continue;
        claim_names(&n, result->input, &pr->outputs[i * pr->n_variants]);
        pr->plans[i].member = TRUE;
        pr->plans[i].has_output = TRUE;
        /* The plan's own string, as the input's path (gal__engine_end). */
        result->output = pr->outputs[i * pr->n_variants];
        if (pr->n_variants > 1) {
            result->n_files = pr->n_variants;
            result->files = g_new0(gal_output_file, pr->n_variants);
            for (int v = 0; v < pr->n_variants; v++) {
                result->files[v].path = g_strdup(pr->outputs[i * pr->n_variants + v]);
                result->files[v].format = gal__format_name(pr->variants[v].format);
            }
        }
        pr->todo[pr->n_todo++] = i;
    }
    g_hash_table_destroy(n.claimed);
    g_ptr_array_unref(n.canonical_copies);
    g_array_unref(n.input_ids);
    g_free(n.cwd);
    if (n.by_input)
        g_hash_table_destroy(n.by_input);
    g_string_chunk_free(n.strings);
    g_ptr_array_unref(n.paths);
    g_ptr_array_unref(n.canonical);
}

void
gal__plan_pages(preset_run *pr)
{
    g_autofree const char **paths = g_new0(const char *, pr->n_todo);
    g_auto(GStrv) albums = g_new0(char *, pr->n_todo + 1);
    g_autofree int *order = g_new0(int, pr->n_todo);
    g_autofree int *members = g_memdup2(pr->todo, sizeof(int) * pr->n_todo);
    g_autofree gint64 *times = pr->sort_times ? g_new(gint64, pr->n_todo) : NULL;

    for (int k = 0; k < pr->n_todo; k++) {
        const char *rel = pr->inputs[members[k]].rel;
        g_autofree char *dir = rel ? g_path_get_dirname(rel) : NULL;

        paths[k] = pr->summary->photos[members[k]].input;
        /* The album: the photo's folder within its input folder. */
        albums[k] = g_strdup(dir && strcmp(dir, ".") != 0 ? dir : "");
        if (times)
            times[k] = pr->sort_times[members[k]];
    }
    pr->gather = gal__gather_new(pr->preset, paths, (const char *const *) albums, times,
        pr->n_todo, &pr->claim, order);
    if (!pr->gather)
        return;
    pr->gather_id = g_new0(int, pr->summary->total);
    for (int k = 0; k < pr->n_todo; k++) {
        pr->gather_id[members[k]] = k;
        pr->todo[k] = members[order[k]];
    }
}
