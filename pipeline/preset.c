/* preset.c: YAML preset files into a validated, immutable gal_preset.
 *
 * The only user of libyaml. Its event stream is turned into a gal_node tree
 * that keeps every key's file:line:column; aliases are expanded by copying,
 * within a node budget so an alias bomb fails fast. `extends` parents are
 * loaded the same way and the child merged over them key by key, then the
 * `--set` overrides; only then is the tree checked against the schemas, so
 * every value is validated once, whatever layer it came from. */
#include <string.h>
#include <yaml.h>

#include "internal.h"
#include "captions.h"
#include "error.h"
#include "exif.h"
#include "fsio.h"
#include "limit.h"
#include "node.h"
#include "output.h"
#include "preset.h"
#include "schema.h"
#include "stage.h"
#include "template.h"

/* Alias expansion copies nodes: a preset is a few hundred nodes, so this
 * is generous, and a "billion laughs" document hits it within milliseconds.
 * The file itself is at most gal__limits.preset_bytes (limit.h), read by
 * fsio as a regular file. */
#define MAX_NODES 100000
#define MAX_DEPTH 64
#define MAX_EXTENDS 8

static const char *const top_keys[] = {
    "gallop", "name", "description", "extends", "input", "stages", "output", "captions", NULL,
};

typedef struct {
    GStringChunk *strings; /* file names for locations; moves to the preset */
    const gal_load_options *opts;
    gal_errors *errs;
} load_ctx;

typedef struct {
    yaml_parser_t parser;
    const char *text; /* the document, for locating reader errors */
    size_t len;
    const char *file; /* interned */
    GHashTable *anchors; /* name -> gal_node * (owned) */
    GHashTable *anchor_sizes; /* name -> node count */
    long nodes;               /* read so far, alias copies included */
    long alias_nodes;         /* of which copies made by aliases */
    /* The last quoted scalar read, to explain a syntax error right where it
     * ended: a string whose closing quote is missing runs on to the next
     * quote, and YAML stumbles there, lines after the real mistake. */
    gboolean quoted_seen;
    char quote;               /* '"' or '\'' */
    yaml_mark_t quoted_start, quoted_end;
    gal_errors *errs;
    gboolean failed;
} yaml_ctx;

/* Files a preset names are read within its folder unless the run follows
 * links out of it. */
static gboolean
follow_links(const load_ctx *ctx)
{
    return ctx->opts && ctx->opts->follow_symlinks;
}

/* Entries in a parameter table, for a gal_loc per parameter. */
static size_t
n_params(const gal_param *params)
{
    size_t n = 0;

    while (params[n].field)
        n++;
    return MAX(n, 1);
}

static const char *
intern(load_ctx *ctx, const char *file)
{
    return g_string_chunk_insert_const(ctx->strings, file);
}

static gal_loc
mark_loc(const yaml_ctx *y, yaml_mark_t mark)
{
    /* libyaml marks are 0-based. */
    return (gal_loc) { y->file, (int) mark.line + 1, (int) mark.column + 1 };
}

/* The 1-based number of the last line that has any text before `mark`, which
 * libyaml puts at the start of the line after the last one at the end of
 * the file. */
static int
last_line(yaml_mark_t mark)
{
    return (int) mark.line + (mark.column == 0 && mark.line > 0 ? 0 : 1);
}

/* The first characters of 0-based line `line` of the document. */
static const char *
line_text(const yaml_ctx *y, size_t line)
{
    const char *c = y->text, *end = y->text + y->len;

    for (size_t n = 0; n < line && c < end; c++)
        if (*c == '\n')
            n++;
    return c;
}

/* Syntax errors about quoted strings, said where the mistake is: NULL for
 * the others, which keep libyaml's words and place. */
static char *
quote_problem(const yaml_ctx *y, gal_loc *loc)
{
    const yaml_parser_t *p = &y->parser;
    const char *problem = p->problem ? p->problem : "";

    /* libyaml's scanner met the end of the document inside the string
     * (context_mark is its opening quote, problem_mark the end). */
    if (p->error == YAML_SCANNER_ERROR && p->context &&
        strcmp(p->context, "while scanning a quoted scalar") == 0) {
        *loc = mark_loc(y, p->context_mark);
        if (strstr(problem, "document indicator")) {
            const char *marker = line_text(y, p->problem_mark.line);

            return g_strdup_printf("this quoted string is never closed (found \"%.3s\", which "
                                   "ends a YAML document, at line %d)",
                marker, (int) p->problem_mark.line + 1);
        }
        return g_strdup_printf("this quoted string is never closed (found end of file at line "
                               "%d)",
            last_line(p->problem_mark));
    }
    if (p->error == YAML_SCANNER_ERROR && strstr(problem, "unknown escape character"))
        return g_strdup_printf("%s in a double-quoted string (write \\\\ for a backslash, "
                               "or use single quotes, where \\ is just a backslash)",
            problem);
    /* A string opened on an earlier line that ends on the line where
     * YAML fails: its closing quote is most likely missing, and it took
     * the opening quote of the next string on as its own end. */
    if ((p->error == YAML_SCANNER_ERROR || p->error == YAML_PARSER_ERROR) && y->quoted_seen &&
        y->quoted_start.line < y->quoted_end.line &&
        p->problem_mark.line == y->quoted_end.line) {
        *loc = mark_loc(y, y->quoted_start);
        return g_strdup_printf("this quoted string runs on to line %d, where YAML fails (%s "
                               "at %d:%d): is its closing %c missing?",
            (int) y->quoted_end.line + 1, problem, (int) p->problem_mark.line + 1,
            (int) p->problem_mark.column + 1, y->quote);
    }
    return NULL;
}

static int
yaml_fail(yaml_ctx *y)
{
    gal_loc loc = mark_loc(y, y->parser.problem_mark);
    g_autofree char *quoted = quote_problem(y, &loc);

    if (quoted) {
        if (!y->failed)
            gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL, "YAML syntax error: %s",
                quoted);
        y->failed = TRUE;
        return -1;
    }
    if (y->parser.error == YAML_READER_ERROR) {
        /* Reader errors (bad UTF-8) carry a byte offset, not a mark. */
        loc.line = loc.col = 1;
        for (size_t i = 0; i < y->parser.problem_offset && i < y->len; i++) {
            if (y->text[i] == '\n') {
                loc.line++;
                loc.col = 1;
            }
            else if (((guchar) y->text[i] & 0xc0) != 0x80)
                loc.col++;
        }
    }

    if (!y->failed)
        gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL, "YAML syntax error: %s%s%s",
            y->parser.problem ? y->parser.problem : "unknown problem",
            y->parser.context ? " " : "", y->parser.context ? y->parser.context : "");
    y->failed = TRUE;
    return -1;
}

static long
node_count(const gal_node *node)
{
    long n = 1;

    for (guint i = 0; node->items && i < node->items->len; i++)
        n += node_count(node->items->pdata[i]);
    return n + (node->keys ? node->keys->len : 0);
}

static gal_node *parse_node(yaml_ctx *y, yaml_event_t *event, int depth);

static void
remember_anchor(yaml_ctx *y, const yaml_char_t *anchor, const gal_node *node)
{
    if (!anchor)
        return;
    g_hash_table_insert(y->anchors, g_strdup((const char *) anchor), gal__node_copy(node));
    g_hash_table_insert(y->anchor_sizes, g_strdup((const char *) anchor),
        GINT_TO_POINTER(node_count(node)));
}

/* YAML merge keys: `<<: *defaults` adds the keys the map does not set. */
static void
apply_merge_key(gal_node *map, gal_node *key, gal_node *value, yaml_ctx *y)
{
    GPtrArray *sources = g_ptr_array_new();

    if (value->kind == GAL_NODE_SEQ)
        for (guint i = 0; i < value->items->len; i++)
            g_ptr_array_add(sources, value->items->pdata[i]);
    else
        g_ptr_array_add(sources, value); /* a scalar is refused below */
    for (guint s = 0; s < sources->len; s++) {
        gal_node *src = sources->pdata[s];

        if (src->kind != GAL_NODE_MAP) {
            gal__errors_push(y->errs, GAL_ERR_PRESET, &src->loc, "<<",
                "a merge key takes a mapping or a list of mappings");
            y->failed = TRUE;
            continue;
        }
        for (guint i = 0; i < src->keys->len; i++) {
            const gal_node *k = src->keys->pdata[i];

            if (!gal__node_get(map, k->text))
                gal__node_set(map, gal__node_copy(k), gal__node_copy(src->items->pdata[i]));
        }
    }
    g_ptr_array_free(sources, TRUE);
    gal__node_free(key);
    gal__node_free(value);
}

static gal_node *
parse_collection(yaml_ctx *y, yaml_event_t *start, int depth)
{
    gboolean is_map = start->type == YAML_MAPPING_START_EVENT;
    gal_loc loc = mark_loc(y, start->start_mark);
    gal_node *node = gal__node_new(is_map ? GAL_NODE_MAP : GAL_NODE_SEQ, &loc);
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    GPtrArray *merges = g_ptr_array_new();

    for (;;) {
        yaml_event_t event;
        gal_node *key, *value;

        if (!yaml_parser_parse(&y->parser, &event)) {
            yaml_fail(y);
            break;
        }
        if (event.type == end) {
            yaml_event_delete(&event);
            break;
        }
        key = parse_node(y, &event, depth + 1);
        yaml_event_delete(&event);
        if (!key)
            break;
        if (!is_map) {
            g_ptr_array_add(node->items, key);
            continue;
        }
        if (key->kind != GAL_NODE_SCALAR) {
            gal__errors_push(y->errs, GAL_ERR_PRESET, &key->loc, NULL,
                "a key must be a plain word, got %s",
                key->kind == GAL_NODE_MAP ? "a mapping" : "a list");
            y->failed = TRUE;
        }
        if (!yaml_parser_parse(&y->parser, &event)) {
            gal__node_free(key);
            yaml_fail(y);
            break;
        }
        value = parse_node(y, &event, depth + 1);
        yaml_event_delete(&event);
        if (!value) {
            gal__node_free(key);
            break;
        }
        if (key->kind != GAL_NODE_SCALAR) {
            gal__node_free(key);
            gal__node_free(value);
        }
        else if (strcmp(key->text, "<<") == 0 && !key->is_null) {
            g_ptr_array_add(merges, key);
            g_ptr_array_add(merges, value);
        }
        else if (gal__node_get(node, key->text)) {
            const gal_node *first = gal__node_key(node, key->text);

            gal__errors_push(y->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "duplicate key (first set at line %d)", first->loc.line);
            y->failed = TRUE;
            gal__node_free(key);
            gal__node_free(value);
        }
        else
            gal__node_set(node, key, value);
    }
    /* Explicit keys win over merged ones, wherever `<<` stands. */
    for (guint i = 0; i + 1 < merges->len; i += 2)
        apply_merge_key(node, merges->pdata[i], merges->pdata[i + 1], y);
    g_ptr_array_free(merges, TRUE);
    if (y->failed) {
        gal__node_free(node);
        return NULL;
    }
    return node;
}

static gal_node *
parse_node(yaml_ctx *y, yaml_event_t *event, int depth)
{
    gal_loc loc = mark_loc(y, event->start_mark);
    gal_node *node = NULL;
    const yaml_char_t *anchor = NULL;

    if (depth > MAX_DEPTH) {
        gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL, "nested deeper than %d levels",
            MAX_DEPTH);
        y->failed = TRUE;
        return NULL;
    }
    if (++y->nodes > MAX_NODES)
        goto too_big;

    switch (event->type) {
    case YAML_SCALAR_EVENT: {
        const char *text = (const char *) event->data.scalar.value;

        /* "\0" in a quoted scalar: C strings would cut the value there
         * silently ("{stem}\0../x" would read as "{stem}"). */
        if (strlen(text) != event->data.scalar.length) {
            gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL,
                "a NUL character (\\0) in a value: gallop cannot keep it, and cutting the "
                "value there would change its meaning");
            y->failed = TRUE;
            return NULL;
        }

        node = gal__node_new_scalar(text, &loc);
        if (event->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
            event->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
            y->quoted_seen = TRUE;
            y->quote = event->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ? '\'' : '"';
            y->quoted_start = event->start_mark;
            y->quoted_end = event->end_mark;
        }
        node->is_null = event->data.scalar.plain_implicit &&
            event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
            (!*text || strcmp(text, "~") == 0 || g_ascii_strcasecmp(text, "null") == 0);
        anchor = event->data.scalar.anchor;
        break;
    }
    case YAML_SEQUENCE_START_EVENT:
        anchor = event->data.sequence_start.anchor;
        node = parse_collection(y, event, depth);
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = event->data.mapping_start.anchor;
        node = parse_collection(y, event, depth);
        break;
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *) event->data.alias.anchor;
        const gal_node *target = g_hash_table_lookup(y->anchors, name);

        if (!target) {
            g_autofree char *shown = gal__excerpt(name, GAL_EXCERPT_CHARS);

            gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL, "unknown alias \"*%s\"", shown);
            y->failed = TRUE;
            return NULL;
        }
        y->nodes += GPOINTER_TO_INT(g_hash_table_lookup(y->anchor_sizes, name));
        y->alias_nodes += GPOINTER_TO_INT(g_hash_table_lookup(y->anchor_sizes, name));
        if (y->nodes > MAX_NODES)
            goto too_big;
        node = gal__node_copy(target);
        break;
    }
    default:
        gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL, "unexpected YAML event");
        y->failed = TRUE;
        return NULL;
    }
    if (node)
        remember_anchor(y, anchor, node);
    return node;

too_big:
    /* Blame aliases only when they made copies: a long list is no bomb. */
    if (y->alias_nodes > 0)
        gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL,
            "the document expands to more than %d nodes, %ld of them copies made by aliases "
            "(an alias bomb?)",
            MAX_NODES, y->alias_nodes);
    else
        gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL,
            "the document has more than %d nodes (values, keys, lists and mappings); a preset "
            "needs a few hundred",
            MAX_NODES);
    y->failed = TRUE;
    return NULL;
}

/* Parse YAML text into a node tree of any kind: NULL with the error added
 * when it is not YAML; an empty document is a null scalar. */
static gal_node *
parse_document(const char *text, size_t len, const char *file, gal_errors *errs)
{
    yaml_ctx y = { 0 };
    gal_node *root = NULL;
    gboolean done = FALSE;

    yaml_parser_initialize(&y.parser);
    yaml_parser_set_input_string(&y.parser, (const unsigned char *) text, len);
    y.text = text;
    y.len = len;
    y.file = file;
    y.errs = errs;
    y.anchors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__node_free);
    y.anchor_sizes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

    while (!done && !y.failed) {
        yaml_event_t event;

        if (!yaml_parser_parse(&y.parser, &event)) {
            yaml_fail(&y);
            break;
        }
        switch (event.type) {
        case YAML_STREAM_END_EVENT:
            done = TRUE;
            break;
        case YAML_DOCUMENT_END_EVENT:
            done = TRUE; /* only the first document counts */
            break;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
        case YAML_ALIAS_EVENT:
            root = parse_node(&y, &event, 0);
            break;
        default:
            break;
        }
        yaml_event_delete(&event);
    }
    yaml_parser_delete(&y.parser);
    g_hash_table_destroy(y.anchors);
    g_hash_table_destroy(y.anchor_sizes);
    if (y.failed) {
        gal__node_free(root);
        return NULL;
    }
    if (!root) {
        gal_loc loc = { file, 1, 1 };

        root = gal__node_new_scalar("", &loc);
        root->is_null = TRUE;
    }
    return root;
}

/* Parse a preset document; an empty one is an empty map. */
static gal_node *
parse_yaml(const char *text, size_t len, const char *file, gal_errors *errs)
{
    gal_node *root = parse_document(text, len, file, errs);

    if (!root)
        return NULL;
    if (root->kind == GAL_NODE_SCALAR && root->is_null) {
        gal_loc loc = { file, 1, 1 };

        gal__node_free(root);
        return gal__node_new(GAL_NODE_MAP, &loc);
    }
    if (root->kind != GAL_NODE_MAP) {
        gal__errors_push(errs, GAL_ERR_PRESET, &root->loc, NULL,
            "a preset is a mapping of keys (gallop, stages, output...), got %s",
            root->kind == GAL_NODE_SEQ ? "a list" : "a scalar");
        gal__node_free(root);
        return NULL;
    }
    return root;
}

/* ---- extends ------------------------------------------------------------------ */

static char *
shipped_path(const char *presets_dir, const char *name)
{
    if (!presets_dir)
        return NULL;
    return g_strdup_printf("%s/%s.yaml", presets_dir, name);
}

static gboolean
looks_like_path(const char *ref)
{
    return strchr(ref, '/') || g_str_has_suffix(ref, ".yaml") || g_str_has_suffix(ref, ".yml");
}

static int compare_strings(gconstpointer a, gconstpointer b);

static char **
shipped_names(const char *presets_dir)
{
    GPtrArray *names = g_ptr_array_new();
    GDir *dir = presets_dir ? g_dir_open(presets_dir, 0, NULL) : NULL;
    const char *entry;

    while (dir && (entry = g_dir_read_name(dir)))
        if (g_str_has_suffix(entry, ".yaml"))
            g_ptr_array_add(names, g_strndup(entry, strlen(entry) - 5));
    if (dir)
        g_dir_close(dir);
    g_ptr_array_sort(names, compare_strings); /* directory order varies */
    g_ptr_array_add(names, NULL);
    return (char **) g_ptr_array_free(names, FALSE);
}

static int
unknown_preset(gal_errors *errs, gal_code code, const gal_loc *loc, const char *key,
    const char *ref, const char *presets_dir)
{
    g_auto(GStrv) names = shipped_names(presets_dir);
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
            ((gal_node *) target->items->pdata[0])->kind == GAL_NODE_MAP)
            gal__node_merge(target->items->pdata[0], gal__node_copy(value));
        else if (!(value->kind == GAL_NODE_SCALAR && value->is_null))
            gal__node_set(target, gal__node_copy(name), gal__node_copy(value));
    }
    for (guint i = 0; i < dropped->len; i++)
        g_ptr_array_remove(base->items, dropped->pdata[i]);
}

static gal_node *load_tree(load_ctx *ctx, const char *path, const gal_loc *from,
    GPtrArray *chain);

/* Is `path` one of the shipped presets? */
static gboolean
is_shipped(const load_ctx *ctx, const char *path)
{
    g_autofree char *dir = NULL;
    g_autofree char *shipped = NULL;
    g_autofree char *folder = g_path_get_dirname(path);

    if (!ctx->opts || !ctx->opts->presets_dir)
        return FALSE;
    dir = g_canonicalize_filename(ctx->opts->presets_dir, NULL);
    shipped = g_canonicalize_filename(folder, NULL);
    return strcmp(dir, shipped) == 0;
}

/* A preset larger than gal__limits.preset_bytes is refused before it is
 * parsed: -1 with the error added, naming the file. */
static int
check_size(load_ctx *ctx, const char *file, goffset bytes)
{
    gal_loc loc = { intern(ctx, file), 0, 0 };

    if (bytes <= gal__limits.preset_bytes)
        return 0;
    return gal__errors_push(ctx->errs, GAL_ERR_PRESET, &loc, NULL,
        "preset is %.1f MiB (%" G_GINT64_FORMAT " bytes), larger than the %d MiB limit",
        bytes / 1048576.0, (gint64) bytes, (int) (gal__limits.preset_bytes >> 20));
}

static gal_node *
tree_from_text(load_ctx *ctx, const char *text, size_t len, const char *file,
    GPtrArray *chain)
{
    gal_node *root;
    gal_node *ext, *parent;
    g_autofree char *parent_path = NULL;
    gal_node *parent_stages, *child_stages;

    if (check_size(ctx, file, (goffset) len))
        return NULL;
    root = parse_yaml(text, len, intern(ctx, file), ctx->errs);
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
    if (looks_like_path(ext->text))
        parent_path = gal__path_beside(file, ext->text);
    else
        parent_path = shipped_path(ctx->opts ? ctx->opts->presets_dir : NULL, ext->text);
    if (!parent_path || !g_file_test(parent_path, G_FILE_TEST_EXISTS)) {
        unknown_preset(ctx->errs, GAL_ERR_PRESET, &ext->loc, "extends", ext->text,
            ctx->opts ? ctx->opts->presets_dir : NULL);
        gal__node_free(root);
        return NULL;
    }
    parent = load_tree(ctx, parent_path, &ext->loc, chain);
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

static gal_node *
load_tree(load_ctx *ctx, const char *path, const gal_loc *from, GPtrArray *chain)
{
    g_autofree char *text = NULL;
    g_autofree char *real = g_canonicalize_filename(path, NULL);
    g_autofree char *within = NULL;
    gal_read_rules rules = { "preset", NULL, follow_links(ctx), 0, GAL_ERR_USAGE };
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
    g_ptr_array_add(chain, g_strdup(real));
    root = tree_from_text(ctx, text, len, path, chain);
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

/* A --set value is YAML ("[a, b]", "~", "\"quoted\""), except that a
 * mapping is set key by key (output.quality=80), so a value that reads as
 * one ("{stem}", "a: b") is text. Text that is not YAML is taken as it is,
 * and "[...]" as a comma-separated list: globs such as [*.png] are not YAML
 * (a '*' starts an alias). */
static gal_node *
override_value(const char *text, const char *file, const gal_loc *loc)
{
    g_autofree gal_errors *local = g_new0(gal_errors, 1);
    gal_node *value = parse_document(text, strlen(text), file, local);
    size_t n = strlen(text);

    if (value && value->kind != GAL_NODE_MAP)
        return value;
    gal__node_free(value);
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

static void
apply_override(load_ctx *ctx, gal_node *root, const char *arg)
{
    const char *eq = strchr(arg, '=');
    g_autofree char *key = NULL;
    g_auto(GStrv) path = NULL;
    g_autofree char *label = g_strdup_printf("--set %s", arg);
    const char *file = intern(ctx, label);
    gal_loc loc = { file, 0, 0 };
    gal_node *value, *map = root;
    char **keys;
    int n;

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
    value = override_value(eq + 1, file, &loc);
    strip_lines(value);
    value->loc = loc;

    if (g_strv_contains(top_keys, path[0])) {
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

                for (int i = 0; top_keys[i]; i++)
                    g_ptr_array_add(names, (char *) top_keys[i]);
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
    else
        gal__node_set(map, gal__node_new_scalar(keys[n - 1], &loc), value);
}

/* ---- from tree to preset ---------------------------------------------------------- */

static void
stage_instance_clear(gpointer p)
{
    gal_stage_instance *st = p;

    if (st->def && st->def->release && st->shared)
        st->def->release(st->shared);
    gal__schema_free(&st->section, st->opts);
}

void
gal_preset_free(gal_preset *preset)
{
    if (!preset)
        return;
    if (preset->stages)
        g_array_free(preset->stages, TRUE);
    gal__schema_free(&gal__input_section, preset->input);
    gal__schema_free(&gal__output_section, preset->output);
    gal__captions_free(preset->captions);
    g_free(preset->path);
    g_free(preset->name);
    g_free(preset->description);
    if (preset->strings)
        g_string_chunk_free(preset->strings);
    g_free(preset);
}

static char *
scalar_or_error(load_ctx *ctx, const gal_node *root, const char *key)
{
    const gal_node *v = gal__node_get(root, key);

    if (!v || (v->kind == GAL_NODE_SCALAR && v->is_null))
        return NULL;
    if (v->kind != GAL_NODE_SCALAR) {
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &v->loc, key, "expected text, got %s",
            v->kind == GAL_NODE_MAP ? "a mapping" : "a list");
        return NULL;
    }
    return g_strdup(v->text);
}

static void
check_top_keys(load_ctx *ctx, const gal_node *root)
{
    for (guint i = 0; i < root->keys->len; i++) {
        const gal_node *key = root->keys->pdata[i];
        const char *guess;

        if (g_strv_contains(top_keys, key->text))
            continue;
        guess = gal__did_you_mean(key->text, top_keys);
        if (!guess && gal__stage_find(key->text))
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "stages go in the list under \"stages:\", as \"- %s: {...}\"", key->text);
        else if (guess)
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "unknown top-level key (did you mean \"%s\"?)", guess);
        else
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "unknown top-level key; valid keys are gallop, name, description, extends, "
                "input, stages, output, captions");
    }
}

static void
check_version(load_ctx *ctx, const gal_node *root)
{
    const gal_node *v = gal__node_get(root, "gallop");

    if (!v) {
        gal_loc loc = root->loc;

        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &loc, "gallop",
            "missing \"gallop: 1\" (the preset schema version) at the top of the preset");
        return;
    }
    if (v->kind != GAL_NODE_SCALAR || strcmp(v->text, "1") != 0) {
        g_autofree char *shown =
            gal__excerpt(v->kind == GAL_NODE_SCALAR ? v->text : "?", GAL_EXCERPT_CHARS);

        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &v->loc, "gallop",
            "unsupported schema version \"%s\": this gallop reads version 1", shown);
    }
}

static const char **
stage_names(void)
{
    const char **names = g_new0(const char *, 32);
    int n = 0;

    for (int i = 0; gal__stages[i] && n < 31; i++)
        names[n++] = gal__stages[i]->name;
    return names;
}

/* One stage: `name` (a key of a stages item) configured by `value`. */
static void
load_stage(load_ctx *ctx, gal_preset *preset, const gal_node *name, const gal_node *value)
{
    gal_stage_instance st = { 0 };
    g_autofree gal_loc *locs = NULL;

    st.def = gal__stage_find(name->text);
    if (!st.def) {
        g_autofree const char **names = stage_names();
        g_autofree char *list = g_strjoinv(", ", (char **) names);
        const char *guess = gal__did_you_mean(name->text, names);

        if (guess)
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &name->loc, name->text,
                "unknown stage (did you mean \"%s\"?)", guess);
        else
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &name->loc, name->text,
                "unknown stage; stages are %s", list);
        return;
    }
    st.section = (gal_section) { st.def->name, st.def->summary, st.def->params,
        st.def->opts_size };
    st.loc = name->loc;
    locs = g_new0(gal_loc, n_params(st.def->params));
    if (gal__schema_fill(&st.section, value, &st.opts, locs, ctx->errs) == 0 &&
        gal__schema_check_files(&st.section, st.opts, locs, follow_links(ctx), ctx->errs) == 0 &&
        st.def->check) {
        gal_stage_ctx sc = { st.opts, NULL, st.loc, FALSE };
        gal_error err = { 0 };

        if (st.def->check(&sc, &err)) {
            if (!err.key[0])
                gal__utf8_copy(err.key, st.def->name, sizeof(err.key));
            gal__errors_add(ctx->errs, &err);
        }
    }
    g_array_append_val(preset->stages, st);
}

/* Is `key` one of the keys of the stage named `stage`? */
static gboolean
stage_has_key(const char *stage, const char *key)
{
    const gal_stage_def *def = gal__stage_find(stage);

    for (const gal_param *p = def ? def->params : NULL; p && p->field; p++) {
        g_autofree char *k = gal__param_key(p);

        if (strcmp(k, key) == 0)
            return TRUE;
    }
    return FALSE;
}

/* A stages item with more than one key: each one after the first is an
 * error at that key, saying what was most likely meant. A stage name is a
 * stage that lost its "- " (each is then checked as a stage, so that its
 * own errors show too); a key of the first stage was meant inside it. */
static void
load_crowded_item(load_ctx *ctx, gal_preset *preset, const gal_node *item)
{
    const gal_node *first = item->keys->pdata[0];
    g_autofree char *first_shown = gal__excerpt(first->text, GAL_EXCERPT_CHARS);
    gboolean all_stages = gal__stage_find(first->text) != NULL;

    for (guint i = 1; i < item->keys->len; i++) {
        const gal_node *key = item->keys->pdata[i];
        g_autofree char *shown = gal__excerpt(key->text, GAL_EXCERPT_CHARS);

        if (gal__stage_find(key->text))
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, "stages",
                "a second stage, \"%s\", in the list item of \"%s\" (line %d): each stage is "
                "a list item of its own; is the \"- \" before \"%s\" missing?",
                shown, first_shown, first->loc.line, shown);
        else if (stage_has_key(first->text, key->text))
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, "stages",
                "a second key, \"%s\", in the list item of \"%s\" (line %d): %s is a key of "
                "%s; indent it under \"%s:\" or put it in its {...}",
                shown, first_shown, first->loc.line, shown, first_shown, first_shown);
        else
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, "stages",
                "a second key, \"%s\", in the list item of \"%s\" (line %d): each stage is "
                "a one-key mapping; is the \"- \" before \"%s\" missing?",
                shown, first_shown, first->loc.line, shown);
        all_stages &= gal__stage_find(key->text) != NULL;
    }
    if (all_stages)
        for (guint i = 0; i < item->keys->len; i++)
            load_stage(ctx, preset, item->keys->pdata[i], item->items->pdata[i]);
}

static void
load_stages(load_ctx *ctx, gal_preset *preset, const gal_node *root)
{
    const gal_node *stages = gal__node_get(root, "stages");

    if (!stages || (stages->kind == GAL_NODE_SCALAR && stages->is_null))
        return;
    if (stages->kind != GAL_NODE_SEQ) {
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &stages->loc, "stages",
            "expected a list of stages (\"- resize: {...}\"), got %s",
            stages->kind == GAL_NODE_MAP ? "a mapping" : "a scalar");
        return;
    }
    for (guint i = 0; i < stages->items->len; i++) {
        const gal_node *item = stages->items->pdata[i];

        if (item->kind == GAL_NODE_MAP && item->keys->len > 1)
            load_crowded_item(ctx, preset, item);
        else if (item->kind != GAL_NODE_MAP || item->keys->len != 1)
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &item->loc, "stages",
                "each stage is a one-key mapping such as \"- resize: {width: 1080}\"");
        else
            load_stage(ctx, preset, item->keys->pdata[0], item->items->pdata[0]);
    }
}

/* Where the value of `field` came from, given the locs gal__schema_fill
 * recorded (one per param, in table order). */
static const gal_loc *
param_loc(const gal_section *sec, const gal_loc *locs, const char *field)
{
    for (const gal_param *p = sec->params; p->field; p++)
        if (strcmp(p->field, field) == 0)
            return &locs[p - sec->params];
    g_assert_not_reached();
}

static void
check_output(load_ctx *ctx, const gal_output_opts *out, const gal_loc *locs)
{
    /* Every field filled in: what remains wrong is the template's own text. */
    gal_facts sample = { "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", TRUE,
        { .tm_year = 114, .tm_mon = 3, .tm_mday = 13 }, 1, 1, NULL };
    g_autofree char *path = NULL;
    gal_error err = { 0 };

    /* AVIF needs libheif with an AV1 encoder, which not every libvips has. */
    if (out->format == GAL_FORMAT_AVIF && !vips_type_find("VipsOperation", "heifsave"))
        gal__errors_push(ctx->errs, GAL_ERR_PRESET,
            param_loc(&gal__output_section, locs, "format"), "output.format",
            "avif needs a libvips built with libheif, and this one is not");
    /* A literal ".." or leading "/" fails for every photo: say so now. */
    if (!(path = gal__output_path(out, "/", &sample, &err))) {
        g_autofree char *shown = gal__excerpt(gal__template_text(out->name), GAL_EXCERPT_CHARS);

        gal__errors_push(ctx->errs, GAL_ERR_PRESET, param_loc(&gal__output_section, locs, "name"),
            "output.name", "\"%s\" is not a usable name template: %s", shown, err.msg);
    }
    err = (gal_error) { 0 };
    if (gal__metadata_check(out->metadata, &err))
        gal__errors_push(ctx->errs, GAL_ERR_PRESET,
            param_loc(&gal__output_section, locs, "metadata"), "output.metadata", "%s", err.msg);
}

gboolean
gal__preset_has_gather(const gal_preset *preset)
{
    for (guint i = 0; i < preset->stages->len; i++)
        if (g_array_index(preset->stages, gal_stage_instance, i).def->kind == GAL_STAGE_GATHER)
            return TRUE;
    return FALSE;
}

/* `photos: false` leaves the gathering stage as the only thing a run
 * writes: without one, every run would read each photo and write nothing. */
static void
check_photos_gathered(load_ctx *ctx, const gal_preset *preset, const gal_loc *locs)
{
    if (preset->output->photos || gal__preset_has_gather(preset))
        return;
    gal__errors_push(ctx->errs, GAL_ERR_PRESET, param_loc(&gal__output_section, locs, "photos"),
        "output.photos",
        "false needs a contact-sheet stage: without one nothing would be written");
}

static gal_preset *
preset_from_tree(load_ctx *ctx, gal_node *root, const char *path)
{
    gal_preset *preset = g_new0(gal_preset, 1);
    g_autofree gal_loc *output_locs = NULL;
    int errors_before = ctx->errs->count + ctx->errs->dropped;
    int errors_before_stages;
    int n_output_params = 0;

    while (gal__output_section.params[n_output_params].field)
        n_output_params++;
    output_locs = g_new0(gal_loc, n_output_params);

    preset->path = g_strdup(path);
    preset->stages = g_array_new(FALSE, TRUE, sizeof(gal_stage_instance));
    g_array_set_clear_func(preset->stages, stage_instance_clear);

    check_top_keys(ctx, root);
    check_version(ctx, root);
    preset->name = scalar_or_error(ctx, root, "name");
    if (!preset->name) {
        g_autofree char *base = g_path_get_basename(path);
        char *dot = strrchr(base, '.');

        if (dot && dot != base)
            *dot = '\0';
        preset->name = g_strdup(base);
    }
    preset->description = scalar_or_error(ctx, root, "description");
    if (!preset->description)
        preset->description = g_strdup("");
    gal__schema_fill(&gal__input_section, gal__node_get(root, "input"),
        (void **) &preset->input, NULL, ctx->errs);
    if (gal__schema_fill(&gal__output_section, gal__node_get(root, "output"),
            (void **) &preset->output, output_locs, ctx->errs) == 0)
        check_output(ctx, preset->output, output_locs);
    gal__captions_load(gal__node_get(root, "captions"), follow_links(ctx), &preset->captions,
        ctx->errs);
    errors_before_stages = ctx->errs->count + ctx->errs->dropped;
    load_stages(ctx, preset, root);
    /* After a stage error (an unknown stage may be the misspelt sheet)
     * this would only repeat it. */
    if (preset->output && ctx->errs->count + ctx->errs->dropped == errors_before_stages)
        check_photos_gathered(ctx, preset, output_locs);

    if (ctx->errs->count + ctx->errs->dropped > errors_before)
        return preset; /* the caller frees it */

    /* Only a valid preset gets prepared: prepare() may be costly. */
    for (guint i = 0; i < preset->stages->len; i++) {
        gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        gal_stage_ctx sc = { st->opts, NULL, st->loc, follow_links(ctx) };
        gal_error err = { 0 };

        if (st->def->prepare && st->def->prepare(&sc, &st->shared, &err)) {
            if (!err.key[0])
                gal__utf8_copy(err.key, st->def->name, sizeof(err.key));
            gal__errors_add(ctx->errs, &err);
        }
    }
    return preset;
}

static gboolean
error_after(int rank_a, const gal_error *a, int rank_b, const gal_error *b)
{
    if (rank_a != rank_b)
        return rank_a > rank_b;
    return a->line > b->line || (a->line == b->line && a->col > b->col);
}

/* The checks run section by section, not line by line: report their errors
 * in file order, as a compiler does. Errors in different files (a parent,
 * a --set) keep the order in which their files first appear. A stable
 * insertion sort over errs->items[from..count), at most GAL_MAX_ERRORS. */
static void
sort_errors(gal_errors *errs, int from)
{
    int rank[GAL_MAX_ERRORS];

    for (int i = from; i < errs->count; i++) {
        rank[i] = i;
        for (int j = from; j < i; j++)
            if (strcmp(errs->items[j].file, errs->items[i].file) == 0) {
                rank[i] = rank[j];
                break;
            }
    }
    for (int i = from + 1; i < errs->count; i++) {
        gal_error e = errs->items[i];
        int r = rank[i], j = i;

        for (; j > from && error_after(rank[j - 1], &errs->items[j - 1], r, &e); j--) {
            errs->items[j] = errs->items[j - 1];
            rank[j] = rank[j - 1];
        }
        errs->items[j] = e;
        rank[j] = r;
    }
}

static int
load_common(load_ctx *ctx, gal_node *root, const char *path, gal_preset **out)
{
    gal_preset *preset;
    int errors_before = ctx->errs->count + ctx->errs->dropped;
    int first_error = ctx->errs->count;

    for (int i = 0; ctx->opts && i < ctx->opts->n_overrides; i++)
        apply_override(ctx, root, ctx->opts->overrides[i]);
    preset = preset_from_tree(ctx, root, path);
    gal__node_free(root);
    preset->strings = ctx->strings;
    ctx->strings = NULL;
    if (ctx->errs->count + ctx->errs->dropped > errors_before) {
        sort_errors(ctx->errs, first_error);
        gal_preset_free(preset);
        return -1;
    }
    *out = preset;
    return 0;
}

int
gal_preset_load_string(const char *yaml, const char *virtual_path,
    const gal_load_options *opts, gal_preset **out, gal_errors *errs)
{
    load_ctx ctx = { g_string_chunk_new(1024), opts, errs };
    g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(g_free);
    gal_node *root;

    *out = NULL;
    g_ptr_array_add(chain, g_canonicalize_filename(virtual_path, NULL));
    root = tree_from_text(&ctx, yaml, strlen(yaml), virtual_path, chain);
    if (!root) {
        g_string_chunk_free(ctx.strings);
        return -1;
    }
    return load_common(&ctx, root, virtual_path, out);
}

int
gal_preset_load(const char *path_or_name, const gal_load_options *opts, gal_preset **out,
    gal_errors *errs)
{
    load_ctx ctx = { g_string_chunk_new(1024), opts, errs };
    g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *path = NULL;
    gal_node *root;

    *out = NULL;
    /* Whatever is there under that name is the preset the user means; if
     * it is no file (a FIFO, a folder), reading it says so. */
    if (g_file_test(path_or_name, G_FILE_TEST_EXISTS) || looks_like_path(path_or_name))
        path = g_strdup(path_or_name);
    else
        path = shipped_path(opts ? opts->presets_dir : NULL, path_or_name);
    if (!path || !g_file_test(path, G_FILE_TEST_EXISTS)) {
        if (path && looks_like_path(path_or_name))
            gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL, "%s: no such preset file",
                path_or_name);
        else
            unknown_preset(errs, GAL_ERR_USAGE, NULL, NULL, path_or_name,
                opts ? opts->presets_dir : NULL);
        g_string_chunk_free(ctx.strings);
        return -1;
    }
    root = load_tree(&ctx, path, NULL, chain);
    if (!root) {
        g_string_chunk_free(ctx.strings);
        return -1;
    }
    return load_common(&ctx, root, path, out);
}

const char *
gal__preset_intern(gal_preset *preset, const char *file)
{
    return g_string_chunk_insert_const(preset->strings, file);
}

const char *
gal_preset_name(const gal_preset *preset)
{
    return preset->name;
}

const char *
gal_preset_description(const gal_preset *preset)
{
    return preset->description;
}

const char *
gal_preset_path(const gal_preset *preset)
{
    return preset->path;
}

static gboolean
section_uses_field(const gal_section *sec, const void *opts, const char *field)
{
    for (const gal_param *p = sec->params; p->field; p++) {
        const gal_template *tpl;

        if (p->type != GAL_T_TEMPLATE)
            continue;
        tpl = *(gal_template *const *) ((const char *) opts + p->offset);
        if (tpl && gal__template_uses(tpl, field))
            return TRUE;
    }
    return FALSE;
}

gboolean
gal__preset_uses_field(const gal_preset *preset, const char *field)
{
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);

        if (section_uses_field(&st->section, st->opts, field))
            return TRUE;
    }
    /* output.name is never rendered when no file is written per photo. */
    return preset->output->photos &&
        section_uses_field(&gal__output_section, preset->output, field);
}

char *
gal_preset_describe(const gal_preset *preset)
{
    GString *out = g_string_new(NULL);

    g_string_append_printf(out, "preset  %s (%s)%s%s\n", preset->name, preset->path,
        *preset->description ? ": " : "", preset->description);
    g_string_append(out, "input   ");
    gal__schema_describe_values(&gal__input_section, preset->input, out);
    g_string_append_c(out, '\n');
    g_string_append(out, "captions ");
    gal__captions_describe(preset->captions, out);
    g_string_append_c(out, '\n');
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);

        g_string_append_printf(out, "%u. %-13s ", i + 1, st->def->name);
        gal__schema_describe_values(&st->section, st->opts, out);
        g_string_append_c(out, '\n');
    }
    if (preset->stages->len == 0)
        g_string_append(out, "(no stages: photos are auto-oriented, made sRGB and re-encoded)\n");
    g_string_append(out, "output  ");
    gal__schema_describe_values(&gal__output_section, preset->output, out);
    g_string_append_c(out, '\n');
    return g_string_free(out, FALSE);
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

char *
gal_presets_list(const char *presets_dir, gal_error *err)
{
    g_autoptr(GError) error = NULL;
    GDir *dir = g_dir_open(presets_dir, 0, &error);
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    GString *out;
    const char *entry;

    if (!dir) {
        gal_error_set(err, GAL_ERR_USAGE, NULL, NULL, "cannot read presets folder %s: %s",
            presets_dir, error->message);
        return NULL;
    }
    while ((entry = g_dir_read_name(dir)))
        if (g_str_has_suffix(entry, ".yaml"))
            g_ptr_array_add(files, g_strdup(entry));
    g_dir_close(dir);
    g_ptr_array_sort(files, compare_strings);

    out = g_string_new(NULL);
    for (guint i = 0; i < files->len; i++) {
        g_autofree char *path = g_build_filename(presets_dir, files->pdata[i], NULL);
        gal_load_options opts = { .presets_dir = presets_dir };
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_preset *preset = NULL;
        g_autofree char *name = g_strndup(files->pdata[i], strlen(files->pdata[i]) - 5);

        if (gal_preset_load(path, &opts, &preset, errs) == 0) {
            g_string_append_printf(out, "%s\t%s\n", name, preset->description);
            gal_preset_free(preset);
        }
        else {
            char line[1024];

            g_string_append_printf(out, "%s\t(broken: %s)\n", name,
                gal_error_format(&errs->items[0], line, sizeof(line)));
        }
    }
    return g_string_free(out, FALSE);
}

char *
gal_stages_describe(const char *name, gal_error *err)
{
    const gal_section *sections[] = { &gal__input_section, &gal__output_section,
        &gal__captions_section };
    GString *out = g_string_new(NULL);
    gboolean found = FALSE;

    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
        if (!name || strcmp(name, sections[i]->name) == 0) {
            gal__schema_describe_params(sections[i], out);
            found = TRUE;
        }
    for (int i = 0; gal__stages[i]; i++)
        if (!name || strcmp(name, gal__stages[i]->name) == 0) {
            gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
                gal__stages[i]->params, gal__stages[i]->opts_size };

            if (out->len)
                g_string_append_c(out, '\n');
            gal__schema_describe_params(&sec, out);
            found = TRUE;
        }
    if (!found) {
        g_autofree const char **names = stage_names();
        const char *guess = gal__did_you_mean(name, names);
        g_autofree char *shown = gal__excerpt(name, GAL_EXCERPT_CHARS);

        for (size_t i = 0; !guess && i < G_N_ELEMENTS(sections); i++)
            if (gal__did_you_mean(name, (const char *const[]) { sections[i]->name, NULL }))
                guess = sections[i]->name;

        gal_error_set(err, GAL_ERR_USAGE, NULL, NULL, "no stage or section named \"%s\"%s%s%s",
            shown, guess ? " (did you mean \"" : "", guess ? guess : "", guess ? "\"?)" : "");
        g_string_free(out, TRUE);
        return NULL;
    }
    return g_string_free(out, FALSE);
}
