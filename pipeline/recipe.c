/* recipe.c: what an output is made by: the effective preset as
 * "key=value" lines (its recipe), their digest, and the difference
 * between two recipes in words, for the reasons a rerun gives. */
#include <string.h>

#include "internal.h"
#include "captions.h"
#include "digest.h"
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
 * finds the files an earlier run wrote up to date. */
static gboolean
digest_skips(const gal_section *sec, const gal_param *p)
{
    if (sec == &gal__input_section)
        return TRUE;
    return sec == &gal__output_section &&
        (strcmp(p->field, "dir") == 0 || strcmp(p->field, "name") == 0 ||
            strcmp(p->field, "photos") == 0 || strcmp(p->field, "widths") == 0 ||
            strcmp(p->field, "formats") == 0);
}

/* Append a "sha256:..." of every regular file the value names. */
static void
append_file_digests(GString *line, const gal_param *p, const void *opts)
{
    const char *one[2] = { NULL, NULL };
    const char *const *paths = NULL;

    if (p->type == GAL_T_PATH) {
        one[0] = *(char *const *) ((const char *) opts + p->offset);
        paths = one;
    }
    else if (p->type == GAL_T_PATHLIST)
        paths = *(const char *const *const *) ((const char *) opts + p->offset);
    for (int i = 0; paths && paths[i]; i++) {
        char hex[65];
        gal_error err = { 0 };

        if (!g_file_test(paths[i], G_FILE_TEST_IS_REGULAR))
            continue;
        if (gal__file_sha256(paths[i], NULL, hex, NULL, &err) == 0)
            g_string_append_printf(line, " sha256:%s", hex);
        else
            g_string_append(line, " sha256:unreadable");
    }
}

static void
add_section_keys(GPtrArray *keys, const gal_section *sec, const char *prefix, const void *opts)
{
    for (const gal_param *p = sec->params; p->field; p++) {
        gal_param one[2] = { *p, GAL_PARAM_END };
        gal_section single = { sec->name, sec->summary, one, sec->opts_size };
        GString *line;

        if (digest_skips(sec, p))
            continue;
        line = g_string_new(prefix);
        g_string_append_c(line, '.');
        gal__schema_describe_values(&single, opts, line);
        /* A captions table or export counts per photo, by the row each
         * photo takes from it (job.c, decide.c): its content here would
         * make every photo stale when one row changes. */
        if (sec != &gal__captions_section)
            append_file_digests(line, p, opts);
        g_ptr_array_add(keys, g_string_free(line, FALSE));
    }
}

GPtrArray *
gal__preset_keys(const gal_preset *preset)
{
    GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        int n = GPOINTER_TO_INT(g_hash_table_lookup(seen, st->def->name)) + 1;
        g_autofree char *prefix =
            n == 1 ? g_strdup(st->def->name) : g_strdup_printf("%s#%d", st->def->name, n);

        g_hash_table_insert(seen, (gpointer) st->def->name, GINT_TO_POINTER(n));
        add_section_keys(keys, &st->section, prefix, st->opts);
    }
    add_section_keys(keys, &gal__output_section, "output", preset->output);
    /* Where captions come from matters only to a preset that shows one. */
    if (gal__preset_uses_field(preset, "caption"))
        add_section_keys(keys, &gal__captions_section, "captions",
            gal__captions_options(preset->captions));
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
