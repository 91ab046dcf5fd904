/* plan.c: what each preset makes of each photo (engine.h). Names are
 * rendered and checked here, before anything is written: a photo whose
 * name is unusable, collides with another's or would overwrite an input
 * fails alone. */
#include <stdint.h>
#include <string.h>

#include "engine.h"

/* What an output's name was rendered from: the template, and the fields
 * that do not come from the photo. */
char *
gal__name_key(const preset_run *pr, int i)
{
    return g_strdup_printf("%s\t%d\t%d", gal__template_text(pr->preset->output->name), i + 1,
        pr->summary->total);
}

static gboolean
name_needs_exif(const gal_output_opts *output)
{
    return gal__template_uses_any(output->name, GAL_FIELD_EXIF);
}

/* A file's identity, so that one file reached by two spellings (a symlinked
 * folder, a hard link) is still recognised as the same file. */
static char *
file_id(const struct stat *st)
{
    return g_strdup_printf("%ju:%ju", (uintmax_t) st->st_dev, (uintmax_t) st->st_ino);
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
is_input_file(GHashTable *input_ids, const char *path)
{
    g_autofree char *id = NULL;
    struct stat st;

    if (stat(path, &st) != 0)
        return FALSE;
    id = file_id(&st);
    return g_hash_table_contains(input_ids, id);
}

static GHashTable *
entries_by_input(gal_manifest *m)
{
    GHashTable *by_input = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTableIter it;
    gpointer value;

    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        gal_manifest_entry *e = value;

        if (!e->sheet && e->name_key)
            g_hash_table_insert(by_input, e->input, e);
    }
    return by_input;
}

/* A name template that shows EXIF facts needs each photo's header; the
 * path recorded for an unchanged photo (same size and mtime, same template
 * and place in the run) spares that read on reruns. */
static char *
recorded_output(preset_run *pr, GHashTable *by_input, int i, const char *input)
{
    g_autofree char *rel = gal__relative_path(pr->out_dir, input);
    g_autofree char *key = NULL;
    gal_manifest_entry *e = g_hash_table_lookup(by_input, rel);
    struct stat st;

    if (!e || stat(input, &st) != 0 || st.st_size != e->in_size ||
        gal__mtime_ns(&st) != e->in_mtime_ns)
        return NULL;
    key = gal__name_key(pr, i);
    if (strcmp(key, e->name_key) != 0)
        return NULL;
    return g_build_filename(pr->out_dir, e->output, NULL);
}

/* Decide each photo's output path; photos whose path is unusable fail
 * here, before anything is written. */
void
gal__plan_photos(preset_run *pr)
{
    const gal_preset *preset = pr->preset;
    gal_run_summary *summary = pr->summary;
    GArray *inputs = pr->inputs;
    g_autoptr(GHashTable) claimed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) input_paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) input_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean needs_exif = preset->output->photos && name_needs_exif(preset->output);
    g_autoptr(GHashTable) by_input = needs_exif ? entries_by_input(pr->manifest) : NULL;

    for (guint i = 0; i < inputs->len; i++) {
        const char *input = g_array_index(inputs, gal_input, i).path;
        struct stat st;

        g_hash_table_add(input_paths, g_canonicalize_filename(input, NULL));
        if (stat(input, &st) == 0)
            g_hash_table_add(input_ids, file_id(&st));
    }

    for (int i = 0; i < summary->total; i++) {
        const gal_input *in = &g_array_index(inputs, gal_input, i);
        gal_photo_result *result = &summary->photos[i];
        g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
        gal_facts facts;
        g_autofree char *path = NULL;
        g_autofree char *canonical = NULL;
        const char *owner;

        result->input = g_strdup(in->path);
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
        gal__facts_from_path(preset, in->path, i + 1, summary->total, &facts, strings);
        if (needs_exif && (path = recorded_output(pr, by_input, i, in->path)))
            ; /* the photo is as it was when this name was rendered from it */
        else if (needs_exif && pr->plans[i].elsewhere)
            /* A shard reads no header of another shard's photo: its name
             * from EXIF is left to that shard, and a clash between two
             * shards' photos to the merge. */
            continue;
        else if (needs_exif &&
            gal__photo_facts(preset, &(gal_photo_ref) { in->path, in->root, pr->follow_links },
                &facts, strings, gal__photo_error(result))) {
            gal_error_set_subject(result->error, result->input);
            result->status = GAL_PHOTO_FAILED;
            continue;
        }
        if (!path &&
            !(path = gal__output_path(preset->output, pr->out_dir, &facts,
                  gal__photo_error(result)))) {
            gal_error_set_subject(result->error, result->input);
            result->status = GAL_PHOTO_FAILED;
            continue;
        }
        canonical = g_canonicalize_filename(path, NULL);
        if (g_hash_table_contains(input_paths, canonical) || is_input_file(input_ids, path)) {
            g_autofree char *msg = g_strdup_printf("its output %s would overwrite an input", path);

            refuse(result, msg);
            continue;
        }
        if ((owner = g_hash_table_lookup(claimed, canonical))) {
            g_autofree char *msg = g_strdup_printf("its output %s is already the output of %s "
                "(put {index} or {ext} in output.name?)", path, owner);

            refuse(result, msg);
            continue;
        }
        g_hash_table_insert(claimed, g_strdup(canonical), (gpointer) result->input);
        pr->plans[i].member = TRUE;
        pr->plans[i].has_output = TRUE;
        pr->outputs[i] = g_steal_pointer(&path);
        result->output = g_strdup(pr->outputs[i]);
        pr->todo[pr->n_todo++] = i;
    }
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
        const char *rel = g_array_index(pr->inputs, gal_input, members[k]).rel;
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
