/* overrides.c: a photo's own overrides (overrides.h). The sidecar is read
 * when the photo is, on its worker (libyaml keeps no global state: each
 * parse is its own), parsed into located nodes by yamldoc.c as a preset
 * is, and checked key by key against one table, which the captions
 * table's columns go through too: an error names the file, line, column
 * and key. A bad sidecar fails its photo alone, as a caption sidecar that
 * is not UTF-8 does; the batch goes on. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "overrides.h"
#include "album.h"
#include "caption_source.h"
#include "fsio.h"
#include "limit.h"
#include "schema.h"
#include "yamldoc.h"

typedef int (*override_parse)(const gal_node *value, const char *key, GStringChunk *strings,
    gal_overrides *out, gal_error *err);

static int parse_focus(const gal_node *value, const char *key, GStringChunk *strings,
    gal_overrides *out, gal_error *err);
static int parse_watermark(const gal_node *value, const char *key, GStringChunk *strings,
    gal_overrides *out, gal_error *err);
static int parse_text(const gal_node *value, const char *key, GStringChunk *strings,
    gal_overrides *out, gal_error *err);

/* The keys, in the order messages list them. */
static const struct {
    const char *key;
    override_parse parse;
} override_keys[] = {
    { "focus", parse_focus },
    { "watermark", parse_watermark },
    { "caption", parse_text },
    { "alt", parse_text },
    { "description", parse_text },
};

static const char *const key_names[] = { "focus", "watermark", "caption", "alt", "description",
    NULL };

/* The table already has a caption column of its own. */
const char *const gal__override_columns[GAL_OVERRIDE_COLUMNS + 1] = { "focus", "watermark", "alt",
    "description", NULL };

/* "a list", "a mapping": what a value is, when it is not what a key takes. */
static const char *
kind_words(const gal_node *n)
{
    return n->kind == GAL_NODE_SEQ ? "a list" : n->kind == GAL_NODE_MAP ? "a mapping" : "a value";
}

/* One coordinate of a focus point, 0..1. */
static int
focus_term(const char *text, const gal_loc *at, const char *key, double *out, gal_error *err)
{
    g_autofree char *quoted = gal__excerpt(text, GAL_EXCERPT_CHARS);
    char *end;

    *out = g_ascii_strtod(text, &end);
    if (end == text || *end || !isfinite(*out))
        return gal_error_set(err, GAL_ERR_INPUT, at, key,
            "expected a number from 0 to 1 (a fraction of the width or height), got \"%s\"",
            quoted);
    if (*out < 0 || *out > 1)
        return gal_error_set(err, GAL_ERR_INPUT, at, key,
            "must be between 0 and 1 (a fraction of the width or height, from the top left), "
            "got %s",
            quoted);
    return 0;
}

/* [x, y]: a list of two, or in a table's cell the two as text ("0.3 0.6",
 * "0.3,0.6", "[0.3, 0.6]"). */
static int
parse_focus(const gal_node *value, const char *key, GStringChunk *strings, gal_overrides *out,
    gal_error *err)
{
    const char *terms[2];
    gal_loc locs[2];
    g_auto(GStrv) words = NULL;
    guint n = 0;

    (void) strings;
    if (value->kind == GAL_NODE_SEQ) {
        n = value->items->len;
        for (guint i = 0; i < MIN(n, 2); i++) {
            const gal_node *item = value->items->pdata[i];

            if (item->kind != GAL_NODE_SCALAR)
                return gal_error_set(err, GAL_ERR_INPUT, &item->loc, key,
                    "expected a number from 0 to 1, got %s", kind_words(item));
            terms[i] = item->text;
            locs[i] = item->loc;
        }
    }
    else if (value->kind == GAL_NODE_SCALAR) {
        g_autofree char *inner = g_strdup(value->text);

        g_strdelimit(inner, "[],\t", ' ');
        words = g_strsplit(g_strstrip(inner), " ", -1);
        for (guint i = 0; words[i]; i++) {
            if (!*words[i])
                continue;
            if (n < 2) {
                terms[n] = words[i];
                locs[n] = value->loc;
            }
            n++;
        }
    }
    if (n != 2)
        return gal_error_set(err, GAL_ERR_INPUT, &value->loc, key,
            "expected [x, y], the point to keep in a crop as fractions of the width and height "
            "from the top left (0.5 is the middle), got %s%s",
            value->kind == GAL_NODE_MAP ? "a mapping" : "",
            value->kind == GAL_NODE_MAP ? "" : n == 1 ? "one number" : n == 0 ? "nothing"
                                                                           : "more than two");
    if (focus_term(terms[0], &locs[0], key, &out->focus_x, err) ||
        focus_term(terms[1], &locs[1], key, &out->focus_y, err))
        return -1;
    out->has_focus = TRUE;
    return 0;
}

static int
parse_watermark(const gal_node *value, const char *key, GStringChunk *strings,
    gal_overrides *out, gal_error *err)
{
    g_autofree char *quoted = NULL;

    (void) strings;
    for (int i = 0; value->kind == GAL_NODE_SCALAR && gal__bool_words[i]; i++)
        if (g_ascii_strcasecmp(value->text, gal__bool_words[i]) == 0) {
            /* The first three words are true. */
            out->watermark = i < 3;
            return 0;
        }
    if (value->kind != GAL_NODE_SCALAR)
        return gal_error_set(err, GAL_ERR_INPUT, &value->loc, key,
            "expected true or false, got %s", kind_words(value));
    quoted = gal__excerpt(value->text, GAL_EXCERPT_CHARS);
    return gal_error_set(err, GAL_ERR_INPUT, &value->loc, key,
        "expected true or false (false: no watermark on this photo), got \"%s\"", quoted);
}

/* caption, alt or description: text. An empty caption hides the caption
 * the sources found, an empty alt marks the photo as decoration
 * (alt=""); an empty description says nothing. */
static int
parse_text(const gal_node *value, const char *key, GStringChunk *strings, gal_overrides *out,
    gal_error *err)
{
    const char *text;

    if (value->kind != GAL_NODE_SCALAR)
        return gal_error_set(err, GAL_ERR_INPUT, &value->loc, key, "expected text, got %s",
            kind_words(value));
    text = gal__caption_keep(strings, value->is_null ? "" : value->text);
    if (strcmp(key, "caption") == 0)
        out->caption = text ? text : "";
    else if (strcmp(key, "alt") == 0)
        out->alt = text ? text : "";
    else
        out->description = text;
    return 0;
}

static int
parse_key(const char *key, const gal_node *value, GStringChunk *strings, gal_overrides *out,
    gal_error *err)
{
    for (gsize k = 0; k < G_N_ELEMENTS(override_keys); k++)
        if (strcmp(key, override_keys[k].key) == 0)
            return override_keys[k].parse(value, override_keys[k].key, strings, out, err);
    g_assert_not_reached();
}

/* The error at its place, written as a compiler would ("IMG_1.yaml:3:8:
 * focus: ..."), in the message: the photo's error names the photo first. */
static int
located(gal_error *err)
{
    g_autofree char *msg = g_strdup_printf("%s:%d:%d: %s%s%s", err->file, err->line, err->col,
        err->key, err->key[0] ? ": " : "", err->msg);

    gal__utf8_copy(err->msg, msg, sizeof(err->msg));
    err->file[0] = err->key[0] = '\0';
    err->line = err->col = 0;
    return -1;
}

int
gal__overrides_from_text(const char *name, const char *text, gsize len, GStringChunk *strings,
    gal_overrides *out, gal_error *err)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_node *root = gal__yaml_document(text, len, name, errs);
    gal_overrides found = GAL_OVERRIDES_NONE;
    int failed = 0;

    if (!root) {
        *err = errs->items[0];
        err->code = GAL_ERR_INPUT;
        return located(err);
    }
    if (root->kind == GAL_NODE_SCALAR && root->is_null) {
        gal__node_free(root);
        return 0;
    }
    if (root->kind != GAL_NODE_MAP) {
        gal_error_set(err, GAL_ERR_INPUT, &root->loc, NULL,
            "a photo's sidecar is a mapping of keys (focus, watermark, caption, alt, "
            "description), got %s",
            kind_words(root));
        gal__node_free(root);
        return located(err);
    }
    for (guint i = 0; !failed && i < root->keys->len; i++) {
        const gal_node *key = root->keys->pdata[i];
        const char *guess;

        if (g_strv_contains(key_names, key->text)) {
            failed = parse_key(key->text, root->items->pdata[i], strings, &found, err);
            continue;
        }
        guess = gal__did_you_mean(key->text, key_names);
        {
            g_autofree char *quoted = gal__excerpt(key->text, GAL_EXCERPT_CHARS);

            failed = gal_error_set(err, GAL_ERR_INPUT, &key->loc, NULL,
                "unknown key \"%s\"%s%s%s; a photo's sidecar takes focus, watermark, caption, "
                "alt and description",
                quoted, guess ? " (did you mean \"" : "", guess ? guess : "",
                guess ? "\"?)" : "");
        }
    }
    gal__node_free(root);
    if (failed)
        return located(err);
    gal__overrides_merge(out, &found);
    return 0;
}

/* Both names, in the order tried: IMG_1.jpg.yaml, IMG_1.yaml (unless that
 * is the folder's album.yaml). */
static void
sidecar_names(const char *photo, char **with_ext, char **without)
{
    g_autofree char *dir = g_path_get_dirname(photo);
    g_autofree char *base = g_path_get_basename(photo);
    g_autofree char *stem = gal__caption_stem(base);
    g_autofree char *stem_yaml = g_strconcat(stem, ".yaml", NULL);

    *with_ext = g_strconcat(photo, ".yaml", NULL);
    *without = strcmp(stem_yaml, GAL_ALBUM_FILE) == 0 ? NULL
                                                      : g_build_filename(dir, stem_yaml, NULL);
}

void
gal__overrides_files(const char *photo, GPtrArray *paths)
{
    char *with_ext, *without;

    sidecar_names(photo, &with_ext, &without);
    g_ptr_array_add(paths, with_ext);
    if (without)
        g_ptr_array_add(paths, without);
}

int
gal__overrides_sidecar(const gal_photo_ref *photo, GStringChunk *strings, gal_overrides *out,
    const char **file, gal_error *err)
{
    g_autofree char *dir = g_path_get_dirname(photo->path);
    g_autofree char *with_ext = NULL;
    g_autofree char *without = NULL;
    const char *candidates[2];
    gal_read_rules rules = { "photo's sidecar", photo->root ? photo->root : dir,
        photo->follow_links, gal__limits.sidecar_bytes, GAL_ERR_INPUT };

    sidecar_names(photo->path, &with_ext, &without);
    candidates[0] = with_ext;
    candidates[1] = without;
    for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
        g_autofree char *text = NULL;
        const char *path = candidates[i];
        struct stat st;
        gsize n;

        if (!path || (lstat(path, &st) != 0 && errno == ENOENT))
            continue;
        if (gal__file_read(path, &rules, &text, &n, NULL, err))
            return -1;
        path = g_string_chunk_insert(strings, path);
        if (file)
            *file = path;
        return gal__overrides_from_text(path, text, n, strings, out, err);
    }
    return 0;
}

int
gal__override_cell(const char *column, const char *text, const gal_loc *at,
    GStringChunk *strings, gal_overrides *out, gal_error *err)
{
    g_autofree char *trimmed = g_strstrip(g_strdup(text ? text : ""));
    gal_node cell = { .kind = GAL_NODE_SCALAR, .loc = *at, .text = trimmed };

    if (!*trimmed)
        return 0;
    return parse_key(column, &cell, strings, out, err);
}

void
gal__overrides_merge(gal_overrides *base, const gal_overrides *over)
{
    if (over->has_focus) {
        base->has_focus = TRUE;
        base->focus_x = over->focus_x;
        base->focus_y = over->focus_y;
    }
    if (over->watermark >= 0)
        base->watermark = over->watermark;
    if (over->caption)
        base->caption = over->caption;
    if (over->alt)
        base->alt = over->alt;
    if (over->description)
        base->description = over->description;
}

char *
gal__overrides_text(const gal_overrides *o)
{
    GString *out = g_string_new(NULL);

    if (o->has_focus)
        g_string_append_printf(out, "focus=%.17g,%.17g\n", o->focus_x, o->focus_y);
    if (o->watermark >= 0)
        g_string_append_printf(out, "watermark=%d\n", o->watermark);
    if (o->alt)
        g_string_append_printf(out, "alt=%s\n", o->alt);
    if (o->description)
        g_string_append_printf(out, "description=%s\n", o->description);
    if (!out->len) {
        g_string_free(out, TRUE);
        return NULL;
    }
    return g_string_free(out, FALSE);
}
