/* recipe.c: what an output is made by: the effective preset as
 * "key=value" lines (its recipe), their digest, and the difference
 * between two recipes in words, for the reasons a rerun gives. */
#include <string.h>

#include "internal.h"
#include "captions.h"
#include "digest.h"
#include "format.h"
#include "preset.h"
#include "recipe.h"
#include "schema.h"

/* Keys that choose which photos run or where outputs go, not what an output
 * looks like: a change to them alone rebuilds nothing. `widths` and
 * `formats` say which files a photo makes; each file's record holds the
 * width and format it was made as (decide.c), so a width added makes only
 * its own files. `photos` only says
 * whether per-photo files are written at all; left out, a preset's digest
 * stays what it was before the key existed, and switching photos back on
 * finds the files an earlier run wrote up to date. `target` shapes a file
 * only when the quality is auto, and `max-bytes` only when set: left out
 * otherwise, a preset's digest stays what it was before they existed. */
static gboolean
digest_skips(const gal_section *sec, const gal_param *p, const void *opts)
{
    if (sec == &gal__input_section)
        return TRUE;
    if (sec != &gal__output_section)
        return FALSE;
    if (strcmp(p->field, "target") == 0)
        return ((const gal_output_opts *) opts)->quality != GAL_QUALITY_AUTO;
    if (strcmp(p->field, "max_bytes") == 0)
        return ((const gal_output_opts *) opts)->max_bytes == 0;
    return strcmp(p->field, "dir") == 0 || strcmp(p->field, "name") == 0 ||
        strcmp(p->field, "photos") == 0 || strcmp(p->field, "widths") == 0 ||
        strcmp(p->field, "formats") == 0;
}

/* Keys added once outputs had records (issue 43): left out of the recipe
 * while at their default, so a preset that does not use one keeps its
 * digest, and its outputs stay up to date. Section (stage) name, field. */
static const char *const later_keys[][2] = {
    { "resize", "long_edge" },
    { "resize", "short_edge" },
    { "resize", "megapixels" },
    { "resize", "percent" },
    { "resize", "dont_enlarge" },
    { "resize", "kernel" },
    { "output", "profile" },
    { "output", "remove_location" },
    { "output", "remove_person" },
    { "output", "ppi" },
};

static gboolean
later_key_at_default(const gal_section *single, const void *opts)
{
    const gal_param *p = &single->params[0];
    g_autofree gal_errors *errs = NULL;
    g_autoptr(GString) now = NULL;
    g_autoptr(GString) def = NULL;
    void *defaults = NULL;
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(later_keys); i++)
        if (strcmp(later_keys[i][0], single->name) == 0 && strcmp(later_keys[i][1], p->field) == 0)
            break;
    if (i == G_N_ELEMENTS(later_keys))
        return FALSE;
    errs = g_new0(gal_errors, 1);
    if (gal__schema_fill(single, NULL, &defaults, NULL, errs))
        return FALSE;
    now = g_string_new(NULL);
    def = g_string_new(NULL);
    gal__schema_describe_values(single, opts, now);
    gal__schema_describe_values(single, defaults, def);
    gal__schema_free(single, defaults);
    return strcmp(now->str, def->str) == 0;
}

/* The paths a path-valued key holds (borrowed; NULL-terminated in
 * `one` for a single path). */
static const char *const *
path_values(const gal_param *p, const void *opts, const char *one[2])
{
    if (p->type == GAL_T_PATH) {
        one[0] = *(char *const *) ((const char *) opts + p->offset);
        one[1] = NULL;
        return one;
    }
    return *(const char *const *const *) ((const char *) opts + p->offset);
}

/* A file a preset names, as its recipe line says it, so that a tree
 * moved or copied elsewhere keeps its records: a logo by its content
 * alone ("sha256:..."; a renamed copy of it makes the same pictures); a
 * captions table or export by its path relative to the output folder,
 * since each photo's row of it is recorded apart (job.c, decide.c). */
static void
append_path_value(GString *line, gboolean by_path, const char *path, const char *out_dir)
{
    char hex[65];
    gal_error err = { 0 };

    if (by_path) {
        g_autofree char *rel = gal__relative_path_from(NULL, out_dir, path);

        g_string_append(line, rel);
    }
    else if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        g_string_append(line, "missing");
    else if (gal__file_sha256(path, NULL, hex, NULL, &err) == 0)
        g_string_append_printf(line, "sha256:%s", hex);
    else
        g_string_append(line, "sha256:unreadable");
}

static void
add_section_keys(GPtrArray *keys, const gal_section *sec, const char *prefix, const void *opts,
    const char *out_dir)
{
    for (const gal_param *p = sec->params; p->field; p++) {
        gal_param one[2] = { *p, GAL_PARAM_END };
        gal_section single = { sec->name, sec->summary, one, sec->opts_size };
        GString *line;

        if (digest_skips(sec, p, opts) || later_key_at_default(&single, opts))
            continue;
        line = g_string_new(prefix);
        g_string_append_c(line, '.');
        if (p->type == GAL_T_PATH || p->type == GAL_T_PATHLIST) {
            const char *single_path[2];
            const char *const *paths = path_values(p, opts, single_path);
            g_autofree char *key = gal__param_key(p);

            g_string_append_printf(line, "%s=", key);
            if (p->type == GAL_T_PATHLIST)
                g_string_append_c(line, '[');
            for (int i = 0; paths && paths[i]; i++) {
                if (i)
                    g_string_append(line, ", ");
                append_path_value(line, sec == &gal__captions_section, paths[i], out_dir);
            }
            if (p->type == GAL_T_PATHLIST)
                g_string_append_c(line, ']');
            else if (!paths || !paths[0])
                g_string_append_c(line, '-');
        }
        else
            gal__schema_describe_values(&single, opts, line);
        /* A level by its score too, and each format's level of it: a
         * level given another score rebuilds. */
        if (sec == &gal__output_section && strcmp(p->field, "target") == 0) {
            g_string_append_printf(line, " (%g dB)",
                ((const gal_output_opts *) opts)->target_score);
            for (int f = 0; f < GAL_N_FORMATS; f++)
                if (gal__formats[f]->auto_shift != 0)
                    g_string_append_printf(line, " %s %+g", gal__formats[f]->ext,
                        gal__formats[f]->auto_shift);
        }
        g_ptr_array_add(keys, g_string_free(line, FALSE));
    }
}

GPtrArray *
gal__preset_keys(const gal_preset *preset, const char *out_dir)
{
    GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        int n = GPOINTER_TO_INT(g_hash_table_lookup(seen, st->def->name)) + 1;
        g_autofree char *prefix =
            n == 1 ? g_strdup(st->def->name) : g_strdup_printf("%s#%d", st->def->name, n);

        g_hash_table_insert(seen, (gpointer) st->def->name, GINT_TO_POINTER(n));
        add_section_keys(keys, &st->section, prefix, st->opts, out_dir);
    }
    add_section_keys(keys, &gal__output_section, "output", preset->output, out_dir);
    /* Where captions come from matters only to a preset that shows one,
     * or whose table holds overrides (sink.c then records each photo's
     * row of it). */
    if (gal__preset_uses_field(preset, "caption") ||
        gal__captions_give_overrides(preset->captions))
        add_section_keys(keys, &gal__captions_section, "captions",
            gal__captions_options(preset->captions), out_dir);
    /* How a raw becomes pixels: only when not the default, so that every
     * preset's digest stays what it was before raws were read (it then
     * rebuilds every photo of the preset, not only its raws). */
    if (preset->input->raw != GAL_RAW_PREVIEW)
        g_ptr_array_add(keys, g_strdup("input.raw=develop"));
    /* Another libvips resamples, encodes and lays out text differently. */
    g_ptr_array_add(keys, g_strdup_printf("libvips=%s", vips_version_string()));
    return keys;
}

void
gal__keys_digest(GPtrArray *keys, char *hex)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);

    for (guint i = 0; i < keys->len; i++) {
        g_checksum_update(sum, keys->pdata[i], -1);
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
}

/* "output.quality=82" -> "output.quality" (the key) and "82". */
static void
split_key(const char *line, char **key, const char **value)
{
    const char *eq = strchr(line, '=');

    *key = eq ? g_strndup(line, eq - line) : g_strdup(line);
    *value = eq ? eq + 1 : "";
}

char *
gal__keys_diff(GPtrArray *before, GPtrArray *now)
{
    g_autoptr(GHashTable) old = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) cur = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GString *out = g_string_new(NULL);

    for (guint i = 0; before && i < before->len; i++) {
        char *key;
        const char *value;

        split_key(before->pdata[i], &key, &value);
        g_hash_table_insert(old, key, (gpointer) value);
    }
    for (guint i = 0; i < now->len; i++) {
        char *key;
        const char *value, *was;

        split_key(now->pdata[i], &key, &value);
        g_hash_table_insert(cur, key, (gpointer) value);
        if (!before)
            continue;
        if (!g_hash_table_lookup_extended(old, key, NULL, (gpointer *) &was))
            g_string_append_printf(out, "%s%s %s (new)", out->len ? ", " : "", key, value);
        else if (strcmp(was, value) != 0)
            g_string_append_printf(out, "%s%s %s -> %s", out->len ? ", " : "", key, was, value);
    }
    for (guint i = 0; before && i < before->len; i++) {
        g_autofree char *key = NULL;
        const char *value;

        split_key(before->pdata[i], &key, &value);
        if (!g_hash_table_contains(cur, key))
            g_string_append_printf(out, "%s%s (removed)", out->len ? ", " : "", key);
    }
    if (!before)
        g_string_append(out, "earlier values unknown");
    return g_string_free(out, FALSE);
}

/* One path of an old recipe line's value, quoted or not, from `*at`:
 * NULL when there is none there. New string; *at moves past it. */
static char *
old_path(const char **at)
{
    const char *c = *at;
    GString *path;

    if (*c != '"') {
        size_t n = strcspn(c, " ,]");

        *at = c + n;
        return n ? g_strndup(c, n) : NULL;
    }
    path = g_string_new(NULL);
    for (c++; *c && *c != '"'; c++)
        g_string_append_c(path, *c == '\\' && c[1] ? *++c : *c);
    *at = *c ? c + 1 : c;
    return g_string_free(path, FALSE);
}

char *
gal__recipe_line_portable(const char *line, const char *out_dir)
{
    const char *eq = strchr(line, '=');
    const char *value = eq ? eq + 1 : NULL;
    gboolean captions = FALSE;
    GString *out;

    /* The captions section's files (a table, exports) by their paths. */
    for (const gal_param *p = gal__captions_section.params; eq && p->field; p++) {
        g_autofree char *key = gal__param_key(p);
        g_autofree char *full = g_strconcat("captions.", key, NULL);

        if ((p->type == GAL_T_PATH || p->type == GAL_T_PATHLIST) &&
            strlen(full) == (size_t) (eq - line) && strncmp(line, full, eq - line) == 0)
            captions = TRUE;
    }

    /* Paths were written whole: an absolute one, as the preset resolved it. */
    if (!value || !(value[0] == '/' || g_str_has_prefix(value, "\"/") ||
                      (captions && value[0] == '[')))
        return g_strdup(line);
    out = g_string_new_len(line, value - line);
    if (!captions) {
        /* "PATH sha256:X": the digest alone. */
        const char *digest = strstr(value, " sha256:");

        g_string_append(out, digest ? digest + 1 : "missing");
        return g_string_free(out, FALSE);
    }
    if (*value == '[')
        g_string_append_c(out, '[');
    for (const char *at = value + (*value == '['); *at && *at != ']';) {
        g_autofree char *path = old_path(&at);
        g_autofree char *rel = path ? gal__relative_path_from(NULL, out_dir, path) : NULL;

        if (rel)
            g_string_append(out, rel);
        if (g_str_has_prefix(at, ", ")) {
            g_string_append(out, ", ");
            at += 2;
        }
        else if (*at != ']')
            break;
    }
    if (*value == '[')
        g_string_append_c(out, ']');
    return g_string_free(out, FALSE);
}
