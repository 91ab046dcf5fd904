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
    const gal_variant *variant = &pr->config->variants[v];

    /* One file per photo keeps the key it always had. */
    if (pr->config->n_variants == 1 && !variant->width)
        return "";
    g_snprintf(buf, size, "\t%d\t%s", variant->width, gal__format_ext(variant->format));
    return buf;
}

/* What the name of the run's photo `number` (from 1) was rendered from. */
static char *
name_key_of(const preset_run *pr, int number, int v)
{
    char buf[64];

    return g_strdup_printf("%s\t%d\t%d%s", gal__template_text(pr->config->preset->output->name),
        number, pr->run_total, gal__variant_key_suffix(pr, v, buf, sizeof(buf)));
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
    gal_error_set_subject(gal__photo_error(result), result->input);
    result->status = GAL_PHOTO_FAILED;
}

/* What tells a planned output that would replace one of the run's
 * inputs. Comparing paths is not enough: the output folder may reach an
 * input through a symlink (-o real/ with the photos given as link/), or a
 * disk may not tell case apart (DSC_0001.JPG and DSC_0001.jpg on a
 * card). Outputs are written by renaming a finished file over the name,
 * so what an output replaces is its name in its folder: only an output in
 * a folder that holds inputs can replace one, and only those are
 * stat'ed, each compared by identity with the inputs (a million photos'
 * outputs in their own folder need no stat each: that was a fifth of a
 * merge's system time). A link to an input elsewhere is replaced like
 * any file, never written through. Gathered when first needed. */
typedef struct {
    const gal_input *inputs;
    int n_inputs;
    int out_fd;             /* the claimed output folder, or -1 */
    GArray *folder_ids;     /* of the folders holding inputs, sorted */
    GArray *input_ids;      /* of the inputs, sorted */
    int out_holds;          /* the output folder holds inputs: 1, 0, or -1 not known yet */
    char *parent;           /* the last other folder asked about, and its answer */
    gboolean parent_holds;
} input_guard;

static void
input_guard_clear(input_guard *g)
{
    if (g->folder_ids)
        g_array_unref(g->folder_ids);
    if (g->input_ids)
        g_array_unref(g->input_ids);
    g_free(g->parent);
}

/* The identities of the folders the inputs are in, sorted: a stat per
 * folder (the scan gives the photos of a folder one after another), and
 * one per photo that is a link, for its target's. */
static GArray *
input_folder_ids_of(const gal_input *inputs, int n)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(file_id));
    const char *last = NULL;
    size_t last_len = 0;

    for (int i = 0; i < n; i++) {
        const char *path = inputs[i].path, *slash = strrchr(path, '/');
        size_t len = slash ? (size_t) (slash - path) : 0;
        g_autofree char *folder = NULL;
        struct stat st;

        /* A photo that is a link (followed) is its target, which an
         * output in the target's folder would replace. */
        if (inputs[i].via_link) {
            g_autofree char *target = realpath(path, NULL);
            g_autofree char *target_folder = target ? g_path_get_dirname(target) : NULL;

            if (target_folder && stat(target_folder, &st) == 0)
                g_array_append_val(ids, ((file_id) { st.st_dev, st.st_ino }));
        }
        if (last && len == last_len && strncmp(path, last, len) == 0)
            continue;
        last = path;
        last_len = len;
        folder = !slash ? g_strdup(".") : len == 0 ? g_strdup("/") : g_strndup(path, len);
        if (stat(folder, &st) == 0)
            g_array_append_val(ids, ((file_id) { st.st_dev, st.st_ino }));
    }
    g_array_sort(ids, compare_ids);
    return ids;
}

static gboolean
holds_inputs(input_guard *g, const struct stat *folder)
{
    file_id id = { folder->st_dev, folder->st_ino };

    if (!g->folder_ids)
        g->folder_ids = input_folder_ids_of(g->inputs, g->n_inputs);
    return bsearch(&id, g->folder_ids->data, g->folder_ids->len, sizeof id, compare_ids) != NULL;
}

/* May an output named `path` (`below`: its name in the output folder, or
 * NULL when the path does not plainly reach it) be in a folder holding
 * inputs? A folder that cannot be stat'ed holds no output either. */
static gboolean
in_a_folder_of_inputs(input_guard *g, const char *below, const char *path)
{
    const char *slash;
    struct stat st;

    if (below && !strchr(below, '/') && g->out_fd >= 0) {
        if (g->out_holds < 0)
            g->out_holds = fstat(g->out_fd, &st) != 0 || holds_inputs(g, &st);
        return g->out_holds;
    }
    slash = strrchr(path, '/');
    if (!slash)
        return stat(".", &st) != 0 || holds_inputs(g, &st);
    if (!g->parent || strlen(g->parent) != (size_t) (slash - path) ||
        strncmp(g->parent, path, slash - path) != 0) {
        g_free(g->parent);
        g->parent = g_strndup(path, slash - path);
        g->parent_holds = stat(*g->parent ? g->parent : "/", &st) == 0 && holds_inputs(g, &st);
    }
    return g->parent_holds;
}

static gboolean
is_input_file(input_guard *g, const char *below, const char *path)
{
    struct stat st;
    file_id id;

    if (!in_a_folder_of_inputs(g, below, path))
        return FALSE;
    if ((below && g->out_fd >= 0 ? fstatat(g->out_fd, below, &st, 0) : stat(path, &st)) != 0)
        return FALSE;
    if (!g->input_ids)
        g->input_ids = input_ids_of(g->inputs, g->n_inputs);
    id = (file_id) { st.st_dev, st.st_ino };
    return bsearch(&id, g->input_ids->data, g->input_ids->len, sizeof id, compare_ids) != NULL;
}

/* The output folder as the plan's paths spell it, and what tells two
 * paths apart: two spellings of one file (out/a.jpg, out/x/../a.jpg) are
 * one path when canonical. */
typedef struct {
    char *prefix;          /* gal__output_prefix(out_dir): a rendered path is it + its name */
    size_t prefix_len;
    /* prefix + a name with no empty, "." or ".." part is, canonical,
     * canon_prefix + the name: canonicalising takes out only such parts,
     * and those of the prefix go the same way whatever follows them. */
    char *canon_prefix;    /* ends in '/' */
    size_t canon_prefix_len;
    char *cwd;             /* what a relative path is canonicalised against */
    /* The prefix reaches the claimed folder (engine.h, pr->claim) by no
     * ".." or "." (which a link before it would send elsewhere): a path
     * of it and a name is the name in that folder. */
    gboolean prefix_is_folder;
} out_paths;

static void
out_paths_init(out_paths *where, const char *out_dir)
{
    g_autofree char *sample = NULL;

    where->cwd = g_get_current_dir();
    where->prefix = gal__output_prefix(out_dir);
    where->prefix_len = strlen(where->prefix);
    sample = g_strconcat(where->prefix, "x", NULL);
    where->canon_prefix = gal__path_is_canonical(sample) ? g_strdup(sample)
                                                         : g_canonicalize_filename(sample, where->cwd);
    where->canon_prefix_len = strlen(where->canon_prefix) - 1;
    where->canon_prefix[where->canon_prefix_len] = '\0'; /* the "x" */
    {
        g_autofree char *folder = g_strndup(where->prefix, where->prefix_len - 1);

        where->prefix_is_folder = where->prefix_len > 1 &&
            where->prefix[where->prefix_len - 1] == '/' &&
            (gal__path_is_canonical(folder) || gal__path_is_beneath(folder));
    }
}

static void
out_paths_clear(out_paths *where)
{
    g_free(where->cwd);
    g_free(where->prefix);
    g_free(where->canon_prefix);
}

/* What `path` is known by in the table of claimed outputs: its canonical
 * form, less canon_prefix when it starts with it. A path made of the
 * prefix and a plain name (as every rendered path is) is known by that
 * name, a pointer into the path itself: no copy, no canonicalising, and
 * a short key to hash. Another is canonicalised (its copy kept in
 * `copies`). Two paths get one key exactly when they have one canonical
 * form: a key cut after canon_prefix (which ends in '/') is never a whole
 * path kept as it is, as that starts with '/' and not with canon_prefix;
 * a cut key starting with '/' means "//" at the path's start, so a
 * canon_prefix of "/", with which every path starts. */
static const char *
claim_key(const out_paths *where, const char *path, GPtrArray *copies)
{
    char *canon;

    if (strncmp(path, where->prefix, where->prefix_len) == 0 &&
        gal__path_is_beneath(path + where->prefix_len))
        return path + where->prefix_len;
    canon = gal__path_is_canonical(path) ? g_strdup(path) : g_canonicalize_filename(path, where->cwd);
    g_ptr_array_add(copies, canon);
    if (strncmp(canon, where->canon_prefix, where->canon_prefix_len) == 0)
        return canon + where->canon_prefix_len;
    return canon;
}

/* What a record says of the name it was given: its output, and the
 * photo's size and time then. */
typedef struct {
    char *output;
    gint64 in_size, in_mtime_ns;
} named_output;

static void
named_output_free(gpointer p)
{
    named_output *n = p;

    g_free(n->output);
    g_free(n);
}

static gboolean
add_named(const gal_record *r, void *by_input)
{
    named_output *n;

    if (!r->name_key)
        return TRUE;
    n = g_new0(named_output, 1);
    n->output = g_strdup(r->output);
    n->in_size = r->in_size;
    n->in_mtime_ns = r->in_mtime_ns;
    g_hash_table_insert(by_input, input_key(r->input, r->name_key), n);
    return TRUE;
}

/* Records by photo and what their names were rendered from (a photo has
 * one per variant). */
static GHashTable *
records_by_input(preset_run *pr)
{
    GHashTable *by_input = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        named_output_free);

    gal__store_each(pr->store, 1u << GAL_RECORD_FILE, add_named, by_input);
    if (pr->part)
        gal__store_each(pr->part, 1u << GAL_RECORD_FILE, add_named, by_input);
    return by_input;
}

/* A name template that shows EXIF facts needs each photo's header; the
 * path recorded for an unchanged photo (same size and mtime, same template,
 * place in the run and variant) spares that read on reruns. */
static char *
recorded_output(preset_run *pr, const out_paths *where, GHashTable *by_input, int number,
    int v, const char *input)
{
    g_autofree char *rel = gal__out_rel(pr, input);
    g_autofree char *name_key = name_key_of(pr, number, v);
    g_autofree char *key = input_key(rel, name_key);
    const named_output *n = g_hash_table_lookup(by_input, key);
    struct stat st;

    if (!n || stat(input, &st) != 0 || st.st_size != n->in_size ||
        gal__mtime_ns(&st) != n->in_mtime_ns)
        return NULL;
    /* As g_build_filename joins them, for a name with no empty, "." or
     * ".." part (the store's are so when read). */
    return g_strconcat(where->prefix, n->output, NULL);
}

/* The run's photo `number`'s path for variant v: recorded, or rendered
 * from its facts (with its EXIF ones when the name shows them, read into
 * `facts` once) into `name`, the buffer every name is rendered in. NULL
 * with `result` failed, or the photo left to its shard (`*skip`: another
 * shard's, `elsewhere`). `err` is the caller's, empty, and left so: an
 * error is 1.7 KB, which zeroed for every name was a fifth of a merge's
 * planning. */
static char *
variant_path(preset_run *pr, const out_paths *where, GHashTable *by_input, int number,
    gboolean elsewhere, int v, gal_photo_result *result, gal_facts *facts,
    gboolean *facts_read, GStringChunk *strings, GString *name, gboolean *skip, gal_error *err)
{
    const gal_preset *preset = pr->config->preset;
    const gal_input *in = &pr->inputs[number - 1];
    gboolean needs_exif = by_input != NULL;
    char *path;

    *skip = FALSE;
    facts->width = pr->config->variants[v].width;
    facts->ext = gal__format_ext(pr->config->variants[v].format);
    if (needs_exif && (path = recorded_output(pr, where, by_input, number, v, in->path)))
        return path; /* the photo is as it was when this name was rendered from it */
    if (needs_exif && elsewhere) {
        /* A shard reads no header of another shard's photo: its name
         * from EXIF is left to that shard, and a clash between two
         * shards' photos to the merge. */
        *skip = TRUE;
        return NULL;
    }
    if (needs_exif && !*facts_read) {
        gal_photo_ref ref = { in->path, in->root, pr->config->follow_links };

        if (gal__photo_facts(preset, &ref, facts, strings, err)) {
            *gal__photo_error(result) = *err;
            *err = (gal_error) { 0 };
            return NULL;
        }
        *facts_read = TRUE;
    }
    if (!(path = gal__output_path_after(preset->output, where->prefix, facts, name, err))) {
        *gal__photo_error(result) = *err;
        *err = (gal_error) { 0 };
    }
    return path;
}

gboolean
gal__plan_reads_records(const preset_run *pr)
{
    return pr->config->preset->output->photos && name_needs_exif(pr->config->preset->output);
}

/* Photos whose facts' strings are kept at most before they are let go. */
#define STRINGS_KEPT 64

/* Does the preset make pages per album (a gallery)? */
static gboolean
makes_albums(const gal_preset *preset)
{
    for (guint s = 0; s < preset->stages->len; s++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, s);

        if (st->def->kind == GAL_STAGE_GATHER && st->def->albums)
            return TRUE;
    }
    return FALSE;
}

/* Photo i's album, for the report: its folder within its input folder
 * ("" the top), as the pages make it; one shared string per album. */
static void
note_album(gal_photo_result *result, const gal_input *in, GHashTable *albums)
{
    const char *rel = gal__input_rel(in);
    g_autofree char *dir = rel ? g_path_get_dirname(rel) : g_strdup(".");
    char *album = g_hash_table_lookup(albums, strcmp(dir, ".") != 0 ? dir : "");

    if (!album) {
        album = gal__shared_text(strcmp(dir, ".") != 0 ? dir : "");
        g_hash_table_insert(albums, album, album);
    }
    gal__photo_notes(result)->album = g_ref_string_acquire(album);
}

/* Decide each photo's output path; photos whose path is unusable fail
 * here, before anything is written. */
void
gal__plan_photos(preset_run *pr)
{
    const gal_preset *preset = pr->config->preset;
    gal_run_summary *summary = pr->summary;
    const gal_input *inputs = pr->inputs;
    /* Output path -> the photo that has it, keyed by claim_key(): for
     * every rendered path a pointer into the plan's own string of it
     * (pr->outputs); only the others' keys are copies, kept in
     * `key_copies`. The photo is its index in `inputs` plus 1, not its
     * path: a GHashTable keeps values that fit in 32 bits in 4 bytes a
     * slot (8 MB of a million photos' plan). */
    g_autoptr(GHashTable) claimed = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GPtrArray) key_copies = g_ptr_array_new_with_free_func(g_free);
    input_guard guard = { inputs, pr->n_inputs, pr->claim.fd, NULL, NULL, -1, NULL, FALSE };
    out_paths where;
    gboolean needs_exif = gal__plan_reads_records(pr);
    g_autoptr(GHashTable) by_input = needs_exif ? records_by_input(pr) : NULL;
    /* The photos' facts' strings: a few dozen bytes each, unless the
     * header was read. Emptied after such a photo and every
     * STRINGS_KEPT photos, not for each: emptying frees its block, which
     * the next photo would allocate again. */
    g_autoptr(GStringChunk) strings = g_string_chunk_new(4096);
    g_autoptr(GString) name = g_string_new(NULL);
    /* The photo's paths (until the plan takes them) and their keys. The
     * run's own photos' are in the summary's arena at once (the keys
     * point into them), others' are allocations of their own, freed. */
    g_autofree char **paths = g_new0(char *, pr->config->n_variants);
    g_autofree const char **keys = g_new0(const char *, pr->config->n_variants);
    GStringChunk *arena = summary->paths->outputs;
    gboolean paths_owned = TRUE;
    int n_paths = 0;
    gboolean facts_were_read = FALSE;
    /* A shard names the other shards' photos too, for the clashes one run
     * would find, but keeps nothing of them: their names are claimed
     * until the plan is made. */
    g_autoptr(GPtrArray) others_names = g_ptr_array_new_with_free_func(g_free);
    int next_own = 0;
    /* A name's error, before it is the photo's: a result's error is
     * allocated only for a photo that fails (a million-photo plan would
     * otherwise hold a kilobyte and a half of empty error per photo). */
    gal_error name_err = { 0 };
    /* Each album's string, shared by its photos' results; NULL: no albums. */
    g_autoptr(GHashTable) albums = makes_albums(preset)
        ? g_hash_table_new_full(g_str_hash, g_str_equal, (GDestroyNotify) g_ref_string_release,
              NULL)
        : NULL;

    out_paths_init(&where, pr->config->out_dir);
    /* Every photo of the run, f; a shard's own are its photo i too. */
    for (int f = 0; f < pr->run_total; f++) {
        const gal_input *in = &inputs[f];
        gboolean elsewhere = pr->run_index &&
            (next_own >= summary->total || pr->run_index[next_own] != f);
        int i = elsewhere ? -1 : pr->run_index ? next_own++ : f;
        gal_photo_result others_result = { .input = in->path };
        gal_photo_result *result = elsewhere ? &others_result : &summary->photos[i];
        gboolean facts_read = FALSE, skip = FALSE, refused = FALSE;
        gal_facts facts;

        if (f % STRINGS_KEPT == 0 || facts_were_read) {
            g_string_chunk_clear(strings);
            facts_were_read = FALSE;
        }
        /* A refused photo's paths, which the plan did not take. */
        for (int k = 0; k < n_paths && paths_owned; k++)
            g_clear_pointer(&paths[k], g_free);
        n_paths = 0;
        paths_owned = elsewhere;

        /* The input's own string, in the summary's arena: a million
         * photos' paths, once. */
        result->input = in->path;
        if ((in->has_why || !in->regular) && elsewhere)
            continue;
        if (in->has_why || !in->regular) {
            gal_error_set(gal__photo_error(result), GAL_ERR_INPUT, NULL, NULL, "%s", in->has_why
                ? gal__input_why(in)
                : "not a regular file (FIFO, device or socket): skipped, never opened");
            gal_error_set_subject(gal__photo_error(result), result->input);
            result->status = in->refused ? GAL_PHOTO_FAILED : GAL_PHOTO_IGNORED;
            if (!in->refused)
                gal__photo_notes(result)->skipped =
                    gal__skip_kind_name(in->skip ? in->skip : GAL_SKIP_SPECIAL);
            continue;
        }
        if (!preset->output->photos) {
            /* No file of its own (output.photos false): no name to render,
             * so none to collide or to overwrite an input; the photo is
             * there for its item, and the pages' names were checked when
             * the preset loaded. */
            if (elsewhere)
                continue;
            pr->plans[i].member = TRUE;
            pr->todo[pr->n_todo++] = i;
            if (albums)
                note_album(result, in, albums);
            continue;
        }
        gal__facts_from_path(preset, in->path, f + 1, pr->run_total, &facts, strings);
        gal__facts_set_dir(&facts, gal__input_rel(in), strings);
        /* Every file the photo makes (output.widths x output.formats) is
         * named and checked; one that cannot be made fails the photo. */
        for (int v = 0; v < pr->config->n_variants && !skip && !refused; v++) {
            char *path = variant_path(pr, &where, by_input, f + 1, elsewhere, v, result, &facts,
                &facts_read, strings, name, &skip, &name_err);
            const char *key;
            guint owner;

            if (!path) {
                refused = !skip;
                break;
            }
            if (!paths_owned) {
                char *owned = path;

                path = g_string_chunk_insert(arena, owned);
                g_free(owned);
            }
            paths[n_paths] = path;
            key = keys[n_paths++] = claim_key(&where, path, key_copies);
            /* An output named like an input is that input's file: its
             * identity tells, whatever the spelling. Another shard's photo
             * is checked by that shard. */
            if (!elsewhere && is_input_file(&guard,
                    where.prefix_is_folder && strncmp(path, where.prefix, where.prefix_len) == 0
                        ? path + where.prefix_len : NULL, path)) {
                g_autofree char *msg = g_strdup_printf("its output %s would overwrite an input",
                    path);

                refuse(result, msg);
                refused = TRUE;
            }
            else if ((owner = GPOINTER_TO_UINT(g_hash_table_lookup(claimed, key)))) {
                g_autofree char *msg = g_strdup_printf("its output %s is already the output of "
                    "%s (put {dir}, {index} or {ext} in output.name?)", path,
                    inputs[owner - 1].path);

                refuse(result, msg);
                refused = TRUE;
            }
            /* Two variants of one photo with one name: the preset's
             * checks keep {width} and {ext} in the name, but a fallback
             * such as {width|x} could still merge them. */
            for (int k = 0; !refused && k + 1 < n_paths; k++)
                if (strcmp(keys[k], key) == 0) {
                    g_autofree char *msg = g_strdup_printf("two of its outputs are both named %s",
                        path);

                    refuse(result, msg);
                    refused = TRUE;
                }
        }
        facts_were_read = facts_read;
        /* Another shard's photo refused: its shard says why. */
        gal__photo_error_clear(&others_result);
        if (skip || (refused && elsewhere))
            continue;
        if (refused) {
            if (result->status != GAL_PHOTO_FAILED) {
                gal_error_set_subject(gal__photo_error(result), result->input);
                result->status = GAL_PHOTO_FAILED;
            }
            continue;
        }
        for (int v = 0; v < n_paths; v++) {
            if (elsewhere)
                g_ptr_array_add(others_names, g_steal_pointer(&paths[v]));
            else
                pr->outputs[i * pr->config->n_variants + v] = g_steal_pointer(&paths[v]);
            g_hash_table_insert(claimed, (gpointer) keys[v], GUINT_TO_POINTER(f + 1));
        }
        n_paths = 0;
        if (elsewhere)
            continue;
        pr->plans[i].member = TRUE;
        pr->plans[i].has_output = TRUE;
        /* The plan's own string, in the summary's arena as the input's. */
        result->output = pr->outputs[i * pr->config->n_variants];
        if (pr->config->n_variants > 1) {
            gal_photo_notes *notes = gal__photo_notes(result);

            notes->n_files = pr->config->n_variants;
            notes->files = g_new0(gal_output_file, pr->config->n_variants);
            for (int v = 0; v < pr->config->n_variants; v++) {
                notes->files[v].path = g_strdup(pr->outputs[i * pr->config->n_variants + v]);
                notes->files[v].format = gal__format_name(pr->config->variants[v].format);
            }
        }
        if (albums)
            note_album(result, in, albums);
        pr->todo[pr->n_todo++] = i;
    }
    for (int k = 0; k < n_paths && paths_owned; k++)
        g_free(paths[k]);
    out_paths_clear(&where);
    input_guard_clear(&guard);
}

static gboolean
add_page_name(const gal_record *r, void *user)
{
    g_ptr_array_add(user, g_strdup(r->output));
    return TRUE;
}

/* The site's zips as their records say they were made (gather.h), so that
 * those holding the same files are not made again. New table. */
static GHashTable *
kept_zips(preset_run *pr)
{
    GHashTable *kept = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

    /* The page records are few (a page or two an album): each read whole. */
    gal__store_each(pr->store, 1u << GAL_RECORD_PAGE, add_page_name, names);
    for (guint k = 0; k < names->len; k++) {
        const char *contents;
        gal_record r;

        if (!gal__record_find(pr, names->pdata[k], &r))
            continue;
        contents = gal__about_get(r.about, GAL_ABOUT_ZIP_CONTENTS);
        if (contents && gal__is_sha256_hex(contents) && strcmp(r.version, GAL_VERSION) == 0) {
            gal_kept_zip *zip = g_new0(gal_kept_zip, 1);

            g_strlcpy(zip->contents, contents, sizeof(zip->contents));
            zip->size = r.out_size;
            zip->mtime_ns = r.out_mtime_ns;
            gal__sha256_from_digest(&zip->sha256, &r.out_sha256);
            g_hash_table_insert(kept, g_strdup(r.output), zip);
        }
        gal__record_clear(&r);
    }
    return kept;
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
        const char *rel = gal__input_rel(&pr->inputs[members[k]]);
        g_autofree char *dir = rel ? g_path_get_dirname(rel) : NULL;

        paths[k] = pr->summary->photos[members[k]].input;
        /* The album: the photo's folder within its input folder. */
        albums[k] = g_strdup(dir && strcmp(dir, ".") != 0 ? dir : "");
        if (times)
            times[k] = pr->sort_times[members[k]];
    }
    pr->gather = gal__gather_new(pr->config->preset, paths, (const char *const *) albums, times,
        pr->n_todo, &pr->claim, order);
    if (!pr->gather)
        return;
    gal__gather_keep_zips(pr->gather, kept_zips(pr));
    pr->gather_id = g_new0(int, pr->summary->total);
    for (int k = 0; k < pr->n_todo; k++) {
        pr->gather_id[members[k]] = k;
        pr->todo[k] = members[order[k]];
    }
}
