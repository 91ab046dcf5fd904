/* preset_tree.c: the effective preset as one node tree: a preset file,
 * the parents it `extends` (read the same way, the child merged over them
 * key by key, stages by name), then the `--set` overrides. Only then is
 * the tree checked against the schemas (preset.c), so every value is
 * validated once, whatever layer it came from. Files are read by fsio as
 * regular files within the size limit. */
#include <string.h>

#include "internal.h"
#include "error.h"
#include "fsio.h"
#include "limit.h"
#include "node.h"
#include "preset_tree.h"
#include "schema.h"
#include "stage.h"
#include "yamldoc.h"

#define MAX_EXTENDS 8

const char *const gal__preset_top_keys[] = {
    "gallop", "name", "description", "extends", "input", "stages", "output", "captions", NULL,
};

gboolean
gal__load_follow_links(const gal_load_ctx *ctx)
{
    return ctx->opts && ctx->opts->follow_symlinks;
}

const char *
gal__load_intern(gal_load_ctx *ctx, const char *file)
{
    return g_string_chunk_insert_const(ctx->strings, file);
}

/* ---- extends ------------------------------------------------------------------ */

/* The folders a bare name is looked up in, in order: the user's, then the
 * shipped ones. A new array of borrowed strings. */
static GPtrArray *
preset_dirs(const gal_load_options *opts)
{
    GPtrArray *dirs = g_ptr_array_new();

    for (int i = 0; opts && opts->user_presets_dirs && opts->user_presets_dirs[i]; i++)
        if (*opts->user_presets_dirs[i])
            g_ptr_array_add(dirs, (gpointer) opts->user_presets_dirs[i]);
    if (opts && opts->presets_dir)
        g_ptr_array_add(dirs, (gpointer) opts->presets_dir);
    return dirs;
}

char *
gal__find_preset(const gal_load_options *opts, const char *name, const char *skip)
{
    g_autoptr(GPtrArray) dirs = preset_dirs(opts);
    g_autofree char *skipped = skip ? g_canonicalize_filename(skip, NULL) : NULL;

    for (guint i = 0; i < dirs->len; i++) {
        g_autofree char *path = g_strdup_printf("%s/%s.yaml", (char *) dirs->pdata[i], name);
        g_autofree char *real = g_canonicalize_filename(path, NULL);

        if (!g_file_test(path, G_FILE_TEST_EXISTS) || (skipped && strcmp(real, skipped) == 0))
            continue;
        return g_steal_pointer(&path);
    }
    return NULL;
}

gboolean
gal__looks_like_path(const char *ref)
{
    return strchr(ref, '/') || g_str_has_suffix(ref, ".yaml") || g_str_has_suffix(ref, ".yml");
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Every name a bare name may be, once each, sorted. */
static char **
preset_names(const gal_load_options *opts)
{
    g_autoptr(GPtrArray) dirs = preset_dirs(opts);
    GPtrArray *names = g_ptr_array_new();

    for (guint d = 0; d < dirs->len; d++) {
        GDir *dir = g_dir_open(dirs->pdata[d], 0, NULL);
        const char *entry;

        while (dir && (entry = g_dir_read_name(dir))) {
            g_autofree char *name = NULL;

            if (!g_str_has_suffix(entry, ".yaml"))
                continue;
            name = g_strndup(entry, strlen(entry) - 5);
            if (!g_ptr_array_find_with_equal_func(names, name, g_str_equal, NULL))
                g_ptr_array_add(names, g_steal_pointer(&name));
        }
        if (dir)
            g_dir_close(dir);
    }
    g_ptr_array_sort(names, compare_strings); /* directory order varies */
    g_ptr_array_add(names, NULL);
    return (char **) g_ptr_array_free(names, FALSE);
}

int
gal__unknown_preset(gal_errors *errs, gal_code code, const gal_loc *loc, const char *key,
    const char *ref, const gal_load_options *opts)
{
    g_auto(GStrv) names = preset_names(opts);
    const char *guess = gal__did_you_mean(ref, (const char *const *) names);
    g_autofree char *list = g_strjoinv(", ", names);
    g_autofree char *shown = gal__excerpt(ref, GAL_EXCERPT_CHARS);

    if (guess)
        return gal__errors_push(errs, code, loc, key,
            "no preset file or shipped preset named \"%s\" (did you mean \"%s\"?)", shown,
            guess);
    return gal__errors_push(errs, code, loc, key,
        "no preset file or shipped preset named \"%s\"; shipped presets are: %s", shown,
        *list ? list : "(none found)");
}

/* ---- ~ and $HOME ------------------------------------------------------------ */

/* How long the "~" (or "$HOME", "${HOME}") at the start of `text` is, when
 * it stands for the home folder: followed by '/' or nothing. 0: it does
 * not start so ("~user" and "$HOMEDIR" are not the home folder). */
static size_t
home_prefix(const char *text)
{
    static const char *const prefixes[] = { "${HOME}", "$HOME", "~" };

    for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++) {
        size_t n = strlen(prefixes[i]);

        if (strncmp(text, prefixes[i], n) == 0 && (text[n] == '/' || text[n] == '\0'))
            return n;
    }
    return 0;
}

int
gal__expand_home(gal_load_ctx *ctx, gal_node *value, const char *key)
{
    const char *home = ctx->opts ? ctx->opts->home_dir : NULL;
    size_t n;
    char *expanded;

    if (value->kind == GAL_NODE_SEQ) {
        int failed = 0;

        for (guint i = 0; i < value->items->len; i++)
            failed |= gal__expand_home(ctx, value->items->pdata[i], key);
        return failed;
    }
    if (value->kind != GAL_NODE_SCALAR || value->is_null || !(n = home_prefix(value->text)))
        return 0;
    if (!home || !*home) {
        g_autofree char *shown = gal__excerpt(value->text, GAL_EXCERPT_CHARS);

        return gal__errors_push(ctx->errs, GAL_ERR_PRESET, &value->loc, key,
            "\"%s\" starts with the home folder, which is not known here (HOME is not set); "
            "give the whole path", shown);
    }
    /* "~" alone is the folder itself; "~/x" is x in it. */
    expanded = g_strconcat(home, value->text + n, NULL);
    g_free(value->text);
    value->text = expanded;
    return 0;
}

/* ---- where a preset may write ------------------------------------------------ */

/* Does the folder `dir` (a relative path) have a ".." part? */
static gboolean
goes_up(const char *dir)
{
    for (const char *part = dir;; part++) {
        const char *end = strchrnul(part, '/');

        if (end - part == 2 && part[0] == '.' && part[1] == '.')
            return TRUE;
        if (!*end)
            return FALSE;
        part = end;
    }
}

int
gal__check_output_dir(gal_load_ctx *ctx, const gal_node *root)
{
    const gal_node *output = root->kind == GAL_NODE_MAP ? gal__node_get(root, "output") : NULL;
    const gal_node *dir =
        output && output->kind == GAL_NODE_MAP ? gal__node_get(output, "dir") : NULL;
    const char *why = NULL;
    g_autofree char *shown = NULL;
    g_autofree char *path = NULL;
    g_autofree char *existing = NULL;
    g_autofree char *folder = NULL;
    gal_read_rules rules = { NULL, NULL, gal__load_follow_links(ctx), 0, GAL_ERR_PRESET };
    gal_error err = { 0 };

    /* A --set value (no line) is typed at the terminal, as -o is; the
     * schema reports a value that is no text. */
    if (!dir || dir->kind != GAL_NODE_SCALAR || dir->is_null || dir->loc.line <= 0 ||
        !dir->loc.file)
        return 0;
    if (g_path_is_absolute(dir->text))
        why = "is an absolute folder";
    else if (home_prefix(dir->text))
        why = "is in the home folder";
    else if (goes_up(dir->text))
        why = "has a \"..\" part";
    if (why) {
        shown = gal__excerpt(dir->text, GAL_EXCERPT_CHARS);
        return gal__errors_push(ctx->errs, GAL_ERR_PRESET, &dir->loc, "output.dir",
            "\"%s\" %s: a preset's output folder lies beneath the preset's own folder (a "
            "folder elsewhere is for the person at the terminal: -o DIR)",
            shown, why);
    }
    /* Written as it should be, but a symbolic link on the way (one a
     * shared checkout brings along, "out -> /etc") may still lead out:
     * the part of the folder that exists already is checked as a file
     * the preset names is. A link made after the load is not seen. */
    path = gal__path_beside(dir->loc.file, dir->text);
    folder = g_path_get_dirname(dir->loc.file);
    rules.within = folder;
    existing = g_strdup(path);
    while (!g_file_test(existing, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK) &&
        strcmp(existing, "/") != 0) {
        char *parent = g_path_get_dirname(existing);

        g_free(existing);
        existing = parent;
    }
    if (gal__path_check(existing, &rules, TRUE, NULL, &err) == 0)
        return 0;
    return gal__errors_push(ctx->errs, GAL_ERR_PRESET, &dir->loc, "output.dir", "%s", err.msg);
}

/* `key` of stage `stage` is one of its alternatives (GAL_ALTERNATIVE):
 * remove the others from `map`, the stage's keys as a parent or the
 * preset so far set them, and the keys only another alternative uses
 * (gal_stage_def.alternative_keys). */
static void
drop_alternatives(const char *stage, gal_node *map, const char *key)
{
    const gal_stage_def *def = gal__stage_find(stage);
    const gal_param *chosen = NULL;

    for (const gal_param *p = def ? def->params : NULL; p && p->field; p++) {
        g_autofree char *k = gal__param_key(p);

        if (strcmp(k, key) == 0)
            chosen = p;
    }
    if (!chosen || !(chosen->flags & GAL_ALTERNATIVE))
        return;
    for (const gal_param *p = def->params; p->field; p++)
        if (p != chosen && (p->flags & GAL_ALTERNATIVE)) {
            g_autofree char *k = gal__param_key(p);

            gal__node_remove(map, k);
        }
    if (def->alternative_keys && strcmp(def->alternative_keys[0], key) != 0)
        for (int i = 1; def->alternative_keys[i]; i++)
            gal__node_remove(map, def->alternative_keys[i]);
}

/* "stages" merge by stage name: the k-th `watermark` of the child refines
 * the k-th `watermark` of the parent in place; `- watermark: off` drops it;
 * new stages are appended in the child's order. */
static void
merge_stages(gal_node *base, gal_node *over)
{
    /* Dropped stages leave base only at the end, so that they still count
     * when later items find "the k-th watermark" of the parent. */
    g_autoptr(GPtrArray) dropped = g_ptr_array_new();

    for (guint i = 0; i < over->items->len; i++) {
        gal_node *item = over->items->pdata[i];
        const gal_node *name;
        gal_node *value;
        int nth = 0, seen = 0;
        gal_node *target = NULL;

        if (item->kind != GAL_NODE_MAP || item->keys->len != 1) {
            g_ptr_array_add(base->items, gal__node_copy(item)); /* validated later */
            continue;
        }
        name = item->keys->pdata[0];
        value = item->items->pdata[0];
        for (guint j = 0; j < i; j++) {
            const gal_node *prev = over->items->pdata[j];

            if (prev->kind == GAL_NODE_MAP && prev->keys->len == 1 &&
                strcmp(((gal_node *) prev->keys->pdata[0])->text, name->text) == 0)
                nth++;
        }
        for (guint j = 0; j < base->items->len; j++) {
            gal_node *cand = base->items->pdata[j];

            if (cand->kind == GAL_NODE_MAP && cand->keys->len == 1 &&
                strcmp(((gal_node *) cand->keys->pdata[0])->text, name->text) == 0 &&
                seen++ == nth) {
                target = cand;
                break;
            }
        }
        if (!target) {
            g_ptr_array_add(base->items, gal__node_copy(item));
            continue;
        }
        if (value->kind == GAL_NODE_SCALAR && !value->is_null &&
            (g_ascii_strcasecmp(value->text, "off") == 0 ||
                g_ascii_strcasecmp(value->text, "false") == 0)) {
            g_ptr_array_add(dropped, target);
            continue;
        }
        if (value->kind == GAL_NODE_MAP &&
            ((gal_node *) target->items->pdata[0])->kind == GAL_NODE_MAP) {
            /* A child's `text:` replaces its parent's `image:` mark. */
            for (guint k = 0; k < value->keys->len; k++)
                drop_alternatives(name->text, target->items->pdata[0],
                    ((gal_node *) value->keys->pdata[k])->text);
            gal__node_merge(target->items->pdata[0], gal__node_copy(value));
        }
        else if (!(value->kind == GAL_NODE_SCALAR && value->is_null))
            gal__node_set(target, gal__node_copy(name), gal__node_copy(value));
    }
    for (guint i = 0; i < dropped->len; i++)
        g_ptr_array_remove(base->items, dropped->pdata[i]);
}


/* Is `path` in one of the folders bare names are looked up in (the
 * shipped presets, or the user's own)? */
static gboolean
is_shipped(const gal_load_ctx *ctx, const char *path)
{
    g_autoptr(GPtrArray) dirs = preset_dirs(ctx->opts);
    g_autofree char *folder = g_path_get_dirname(path);
    g_autofree char *real = g_canonicalize_filename(folder, NULL);

    for (guint i = 0; i < dirs->len; i++) {
        g_autofree char *dir = g_canonicalize_filename(dirs->pdata[i], NULL);

        if (strcmp(dir, real) == 0)
            return TRUE;
    }
    return FALSE;
}

/* A preset larger than gal__limits.preset_bytes is refused before it is
 * parsed: -1 with the error added, naming the file. */
static int
check_size(gal_load_ctx *ctx, const char *file, goffset bytes)
{
    gal_loc loc = { gal__load_intern(ctx, file), 0, 0 };

    if (bytes <= gal__limits.preset_bytes)
        return 0;
    return gal__errors_push(ctx->errs, GAL_ERR_PRESET, &loc, NULL,
        "preset is %.1f MiB (%" G_GINT64_FORMAT " bytes), larger than the %d MiB limit",
        bytes / 1048576.0, (gint64) bytes, (int) (gal__limits.preset_bytes >> 20));
}

static gboolean
is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Does `text` begin as a gallop preset: is its first key `gallop`, after
 * comments, blank lines, a byte order mark, `%YAML`/`%TAG` directives and
 * `---`? Told from the raw text, before it is parsed: a file that is no
 * preset (`extends: /etc/shadow`, a stray file named on the command line)
 * never reaches the parser, whose errors would quote it ("unknown
 * top-level key" at each of its "word:" lines, an unknown alias...). The
 * key's value is left to check_version (preset.c): "gallop: 2" is a
 * preset, of a version this gallop does not read. */
static gboolean
begins_as_preset(const char *text, size_t len)
{
    const char *c = text, *end = text + len, *start;

    if (len >= 3 && memcmp(c, "\xef\xbb\xbf", 3) == 0)
        c += 3;
    start = c;
    for (;;) {
        while (c < end && is_blank(*c))
            c++;
        /* A comment, or a directive (at the start of a line). */
        if (c < end && (*c == '#' || (*c == '%' && (c == start || c[-1] == '\n')))) {
            while (c < end && *c != '\n')
                c++;
            continue;
        }
        /* "---" starts the document; what follows on its line may be the
         * first key. */
        if (end - c >= 3 && memcmp(c, "---", 3) == 0 && (end - c == 3 || is_blank(c[3]))) {
            c += 3;
            continue;
        }
        break;
    }
    /* A flow mapping, "{gallop: 1, ...}", is a preset too. */
    if (c < end && *c == '{')
        for (c++; c < end && is_blank(*c); c++)
            ;
    if (end - c >= 8 && (memcmp(c, "\"gallop\"", 8) == 0 || memcmp(c, "'gallop'", 8) == 0))
        c += 8;
    else if (end - c >= 6 && memcmp(c, "gallop", 6) == 0)
        c += 6;
    else
        return FALSE;
    while (c < end && (*c == ' ' || *c == '\t'))
        c++;
    return c < end && *c == ':' && (c + 1 == end || is_blank(c[1]));
}

gal_node *
gal__preset_tree_text(gal_load_ctx *ctx, const char *text, size_t len, const char *file,
    GPtrArray *chain)
{
    gal_node *root;
    gal_node *ext, *parent;
    g_autofree char *parent_path = NULL;
    gal_node *parent_stages, *child_stages;

    if (check_size(ctx, file, (goffset) len))
        return NULL;
    root = gal__yaml_preset(text, len, gal__load_intern(ctx, file), ctx->errs);
    if (!root)
        return NULL;
    ext = gal__node_get(root, "extends");
    if (!ext || (ext->kind == GAL_NODE_SCALAR && ext->is_null)) {
        gal__node_remove(root, "extends");
        return root;
    }
    if (ext->kind != GAL_NODE_SCALAR) {
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &ext->loc, "extends",
            "expected a preset name or path, got %s",
            ext->kind == GAL_NODE_MAP ? "a mapping" : "a list");
        gal__node_free(root);
        return NULL;
    }
    if (gal__expand_home(ctx, ext, "extends")) {
        gal__node_free(root);
        return NULL;
    }
    if (gal__looks_like_path(ext->text))
        parent_path = gal__path_beside(file, ext->text);
    else
        /* A team's instagram-portrait.yaml may extend the shipped one. */
        parent_path = gal__find_preset(ctx->opts, ext->text, file);
    if (!parent_path || !g_file_test(parent_path, G_FILE_TEST_EXISTS)) {
        gal__unknown_preset(ctx->errs, GAL_ERR_PRESET, &ext->loc, "extends", ext->text,
            ctx->opts);
        gal__node_free(root);
        return NULL;
    }
    parent = gal__preset_tree_load(ctx, parent_path, &ext->loc, chain);
    if (!parent) {
        gal__node_free(root);
        return NULL;
    }
    /* A preset's name and description are its own, never inherited. */
    gal__node_remove(parent, "name");
    gal__node_remove(parent, "description");
    gal__node_remove(root, "extends");

    parent_stages = gal__node_get(parent, "stages");
    child_stages = gal__node_get(root, "stages");
    if (parent_stages && child_stages && parent_stages->kind == GAL_NODE_SEQ &&
        child_stages->kind == GAL_NODE_SEQ) {
        merge_stages(parent_stages, child_stages);
        gal__node_remove(root, "stages");
    }
    gal__node_merge(parent, root);
    return parent;
}

gal_node *
gal__preset_tree_load(gal_load_ctx *ctx, const char *path, const gal_loc *from,
    GPtrArray *chain)
{
    g_autofree char *text = NULL;
    g_autofree char *real = g_canonicalize_filename(path, NULL);
    g_autofree char *within = NULL;
    gal_read_rules rules = { "preset", NULL, gal__load_follow_links(ctx), 0, GAL_ERR_USAGE };
    gal_error err = { 0 };
    GStatBuf st;
    gsize len;
    gal_node *root;

    for (guint i = 0; i < chain->len; i++)
        if (strcmp(chain->pdata[i], real) == 0) {
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, from, "extends",
                "extends loops back to %s", path);
            return NULL;
        }
    if (chain->len >= MAX_EXTENDS) {
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, from, "extends",
            "more than %d levels of extends", MAX_EXTENDS);
        return NULL;
    }
    /* Refused before it is read: a shared preset may be anything. */
    if (g_stat(path, &st) == 0 && check_size(ctx, path, (goffset) st.st_size))
        return NULL;
    /* A parent named beside its child is read within the child's folder
     * (a link there may not lead out); the file named on the command line
     * and the shipped presets are the user's own. */
    if (from && from->file && from->line > 0 && !is_shipped(ctx, path)) {
        g_autofree char *dir = g_path_get_dirname(from->file);

        within = g_canonicalize_filename(dir, NULL);
        rules.code = GAL_ERR_PRESET;
    }
    rules.within = within;
    rules.max_bytes = gal__limits.preset_bytes;
    if (gal__file_read(path, &rules, &text, &len, NULL, &err)) {
        gal__errors_push(ctx->errs, rules.code, from, from ? "extends" : NULL, "%s", err.msg);
        return NULL;
    }
    /* One line that quotes nothing of it: the file may be anyone's. */
    if (!begins_as_preset(text, len)) {
        gal_loc whole = { gal__load_intern(ctx, path), 0, 0 };

        if (from)
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, from, "extends",
                "%s is not a gallop preset (its first key is not \"gallop: 1\")", path);
        else
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &whole, NULL,
                "not a gallop preset (its first key is not \"gallop: 1\")");
        return NULL;
    }
    g_ptr_array_add(chain, g_strdup(real));
    root = gal__preset_tree_text(ctx, text, len, path, chain);
    g_free(g_ptr_array_steal_index(chain, chain->len - 1));
    return root;
}

/* ---- --set ------------------------------------------------------------------------ */

static void
strip_lines(gal_node *node)
{
    /* --set values have no line: paths in them resolve against the working
     * folder, and errors name the argument instead of a line. */
    node->loc.line = node->loc.col = 0;
    for (guint i = 0; node->items && i < node->items->len; i++)
        strip_lines(node->items->pdata[i]);
    for (guint i = 0; node->keys && i < node->keys->len; i++)
        strip_lines(node->keys->pdata[i]);
}

static gal_node *
find_stage_value(gal_node *root, const char *name, gal_node **item_out)
{
    gal_node *stages = gal__node_get(root, "stages");

    for (guint i = 0; stages && stages->kind == GAL_NODE_SEQ && i < stages->items->len; i++) {
        gal_node *item = stages->items->pdata[i];

        if (item->kind == GAL_NODE_MAP && item->keys->len == 1 &&
            strcmp(((gal_node *) item->keys->pdata[0])->text, name) == 0) {
            *item_out = item;
            return item->items->pdata[0];
        }
    }
    return NULL;
}

/* The first control character (C0, DEL, or C1 written in UTF-8) of
 * `text`, as a code point; 0 when there is none. */
static gunichar
control_char(const char *text)
{
    for (const guchar *c = (const guchar *) text; *c; c++) {
        if (*c < 0x20 || *c == 0x7f)
            return *c;
        if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
            return c[1];
    }
    return 0;
}

static gunichar
control_in_node(const gal_node *node)
{
    gunichar found = node->kind == GAL_NODE_SCALAR && node->text ? control_char(node->text) : 0;

    for (guint i = 0; !found && node->items && i < node->items->len; i++)
        found = control_in_node(node->items->pdata[i]);
    return found;
}

/* The first backslash of `text` (a --set value, as YAML reads it) that is
 * not inside a quoted scalar; NULL when there is none. A quote starts a
 * scalar only where one may start: at the start, or after '[', '{' or ','
 * (and spaces); "Ana's" is plain text. */
static const char *
unquoted_backslash(const char *text)
{
    gboolean may_start = TRUE;
    char quote = 0;

    for (const char *c = text; *c; c++) {
        if (quote == '"' && *c == '\\' && c[1])
            c++;
        else if (quote == '\'' && *c == '\'' && c[1] == '\'')
            c++;
        else if (quote && *c == quote)
            quote = 0;
        else if (quote)
            continue;
        else if (*c == '\\')
            return c;
        else if (may_start && (*c == '"' || *c == '\''))
            quote = *c;
        else if (*c != ' ')
            may_start = *c == '[' || *c == '{' || *c == ',';
    }
    return NULL;
}

/* "a control character (U+0009) in WHERE ...", the words for a --set
 * argument or value that holds one; -1. */
static int
control_error(
    gal_load_ctx *ctx, const gal_loc *loc, const char *key, const char *where, gunichar ch)
{
    return gal__errors_push(ctx->errs, GAL_ERR_USAGE, loc, key,
        "a control character (U+%04X) in %s: --set takes text, not control characters",
        (unsigned) ch, where);
}

/* A --set value is YAML ("[a, b]", "~", "\"quoted\""), except that a
 * mapping is set key by key (output.quality=80), so a value that reads as
 * one ("{stem}", "a: b") is text. Text that is not YAML is taken as it is,
 * and "[...]" as a comma-separated list: globs such as [*.png] are not YAML
 * (a '*' starts an alias). A shell passes a backslash on as it is, so one
 * outside YAML's double quotes, where it would stay a backslash
 * ({stem}\0.{ext}), is refused rather than kept: it was meant as an
 * escape; so is a value whose escapes YAML refuses ("a\0b": the preset's
 * own words for it), and a control character that an escape makes.
 * NULL with the error added. */
static gal_node *
override_value(gal_load_ctx *ctx, const char *text, const char *file, const gal_loc *loc,
    const char *key)
{
    g_autofree gal_errors *local = g_new0(gal_errors, 1);
    gal_node *value = gal__yaml_document(text, strlen(text), file, local);
    size_t n = strlen(text);
    const char *unquoted = unquoted_backslash(text);
    const char *backslash = unquoted ? unquoted : strchr(text, '\\');
    size_t shown;
    gunichar ch;

    if (value && value->kind != GAL_NODE_MAP && (ch = control_in_node(value))) {
        gal__node_free(value);
        control_error(ctx, loc, key, "a value", ch);
        return NULL;
    }
    if (value && value->kind != GAL_NODE_MAP && !unquoted)
        return value;
    gal__node_free(value);
    /* From here the text is kept as it is, and so would a backslash be. */
    if (backslash && !unquoted && local->count > 0) {
        /* In double quotes, where YAML refused the escape: its words. */
        gal__errors_push(ctx->errs, GAL_ERR_USAGE, loc, key, "%s", local->items[0].msg);
        return NULL;
    }
    if (backslash) {
        /* The backslash and the whole character after it. */
        shown = backslash[1] ? (size_t) (g_utf8_next_char(backslash + 1) - backslash) : 1;
        gal__errors_push(ctx->errs, GAL_ERR_USAGE, loc, key,
            "\"%.*s\" would be kept as a backslash, not read as an escape (only a value in "
            "double quotes has escapes); to keep a backslash, quote the value ('a\\b' or "
            "\"a\\\\b\")",
            (int) shown, backslash);
        return NULL;
    }
    if (n >= 2 && text[0] == '[' && text[n - 1] == ']') {
        g_autofree char *inner = g_strndup(text + 1, n - 2);
        g_auto(GStrv) items = g_strsplit(inner, ",", -1);

        value = gal__node_new(GAL_NODE_SEQ, loc);
        for (int i = 0; items[i]; i++) {
            g_strstrip(items[i]);
            if (*items[i])
                g_ptr_array_add(value->items, gal__node_new_scalar(items[i], loc));
        }
        return value;
    }
    return gal__node_new_scalar(text, loc);
}

/* `arg` as it may be shown: each control character as its picture
 * (U+2400 + code, U+2421 for DEL), a C1 one as U+FFFD. */
static char *
visible(const char *arg)
{
    GString *out = g_string_new(NULL);

    for (const guchar *c = (const guchar *) arg; *c; c++) {
        if (*c < 0x20)
            g_string_append_unichar(out, 0x2400 + *c);
        else if (*c == 0x7f)
            g_string_append_unichar(out, 0x2421);
        else if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
            g_string_append_unichar(out, 0xfffd);
            c++;
        }
        else
            g_string_append_c(out, (char) *c);
    }
    return g_string_free(out, FALSE);
}

void
gal__preset_override(gal_load_ctx *ctx, gal_node *root, const char *arg)
{
    const char *eq = strchr(arg, '=');
    g_autofree char *key = NULL;
    g_auto(GStrv) path = NULL;
    g_autofree char *arg_shown = visible(arg);
    g_autofree char *label = g_strdup_printf("--set %s", arg_shown);
    const char *file = gal__load_intern(ctx, label);
    gal_loc loc = { file, 0, 0 };
    gal_node *value, *map = root;
    char **keys;
    gunichar ch;
    int n;

    /* A tab, a line end or an escape character typed into an argument is
     * no value anyone means (and would reach file names or the terminal). */
    if ((ch = control_char(arg))) {
        g_autofree char *typed_key = eq ? g_strndup(arg, eq - arg) : NULL;

        control_error(ctx, &loc,
            typed_key && *typed_key && !control_char(typed_key) ? typed_key : NULL,
            "the argument", ch);
        return;
    }
    if (!eq || eq == arg) {
        gal__errors_push(ctx->errs, GAL_ERR_USAGE, &loc, NULL,
            "expected KEY=VALUE, such as resize.width=2048");
        return;
    }
    key = g_strndup(arg, eq - arg);
    path = g_strsplit(key, ".", -1);
    keys = path;
    n = (int) g_strv_length(path);
    /* An empty value (or ~) means "back to the default". */
    if (!(value = override_value(ctx, eq + 1, file, &loc, key)))
        return;
    strip_lines(value);
    value->loc = loc;

    if (g_strv_contains(gal__preset_top_keys, path[0])) {
        if (strcmp(path[0], "stages") == 0 || strcmp(path[0], "extends") == 0) {
            gal__errors_push(ctx->errs, GAL_ERR_USAGE, &loc, key,
                "cannot be set from the command line; set a stage's key as STAGE.KEY");
            gal__node_free(value);
            return;
        }
    }
    else {
        gal_node *item = NULL;
        gal_node *stage = find_stage_value(root, path[0], &item);

        if (!item) {
            const gal_stage_def *def = gal__stage_find(path[0]);

            if (def)
                gal__errors_push(ctx->errs, GAL_ERR_USAGE, &loc, key,
                    "the preset has no %s stage to set", path[0]);
            else {
                GPtrArray *names = g_ptr_array_new();
                g_autofree char *shown = gal__excerpt(path[0], GAL_EXCERPT_CHARS);
                const char *guess;

                for (int i = 0; gal__preset_top_keys[i]; i++)
                    g_ptr_array_add(names, (char *) gal__preset_top_keys[i]);
                for (int i = 0; gal__stages[i]; i++)
                    g_ptr_array_add(names, (char *) gal__stages[i]->name);
                g_ptr_array_add(names, NULL);
                guess = gal__did_you_mean(path[0], (const char *const *) names->pdata);
                gal__errors_push(ctx->errs, GAL_ERR_USAGE, &loc, key,
                    "\"%s\" is neither a top-level key nor a stage%s%s%s", shown,
                    guess ? " (did you mean \"" : "", guess ? guess : "", guess ? "\"?)" : "");
                g_ptr_array_free(names, TRUE);
            }
            gal__node_free(value);
            return;
        }
        if (stage->kind != GAL_NODE_MAP) {
            gal_node *empty = gal__node_new(GAL_NODE_MAP, &stage->loc);

            gal__node_set(item, gal__node_copy(item->keys->pdata[0]), empty);
            stage = empty;
        }
        if (n == 1) {
            /* The preset's stage may be one gallop does not know (an error
             * of its own later), or one without keys. */
            const gal_stage_def *def = gal__stage_find(path[0]);
            g_autofree char *example = def && def->params[0].field
                ? gal__param_key(&def->params[0]) : g_strdup("KEY");

            gal__errors_push(ctx->errs, GAL_ERR_USAGE, &loc, key,
                "name a key of the stage, such as %s.%s", path[0], example);
            gal__node_free(value);
            return;
        }
        map = stage;
        keys++;
        n--;
    }
    /* Walk (creating) the maps down to the last key. */
    for (int i = 0; i < n - 1; i++) {
        gal_node *next = gal__node_get(map, keys[i]);

        if (!next || next->kind != GAL_NODE_MAP) {
            next = gal__node_new(GAL_NODE_MAP, &loc);
            gal__node_set(map, gal__node_new_scalar(keys[i], &loc), next);
        }
        map = next;
    }
    if (value->kind == GAL_NODE_SCALAR && value->is_null) {
        gal__node_remove(map, keys[n - 1]);
        gal__node_free(value);
    }
    else {
        /* --set watermark.text=... replaces the preset's image mark. */
        if (keys != path && n == 1)
            drop_alternatives(path[0], map, keys[0]);
        gal__node_set(map, gal__node_new_scalar(keys[n - 1], &loc), value);
    }
}
