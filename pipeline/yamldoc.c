/* yamldoc.c: YAML text into located nodes (node.h): the only user of
 * libyaml. Every key and value keeps its file:line:column; aliases are
 * expanded by copying, within a node budget, so an alias bomb fails fast;
 * `<<` merge keys are applied. Syntax errors point where the fault starts
 * (an unclosed quote where the string opens) and name the key they are
 * in. */
#include <string.h>
#include <yaml.h>

#include "internal.h"
#include "error.h"
#include "node.h"
#include "yamldoc.h"

/* Alias expansion copies nodes: a preset is a few hundred nodes, so this
 * is generous, and a "billion laughs" document hits it within
 * milliseconds. */
#define MAX_NODES 100000
#define MAX_DEPTH 64
/* Of a key path kept for messages: gal_error's key holds less. */
#define MAX_PATH_BYTES 256

/* A step of the path to the node being read: a key of a mapping or an
 * item of a list. */
typedef struct {
    gsize start;         /* the path's length before this step */
    gal_loc loc;         /* the key, or the item's first character */
    gboolean in_flow;    /* in a {...} or [...], where lines mean nothing */
    gboolean opens_flow; /* its value is a {...} or [...], still open */
} path_step;

typedef struct {
    yaml_parser_t parser;
    const char *text; /* the document, for locating reader errors */
    size_t len;
    /* libyaml checks its input for bad UTF-8 and control characters a
     * whole buffer (16 KiB) ahead of what it parses, so such a fault is met
     * before the key it is in has been read. The document is then read
     * again in two parts, cut at the fault: reads never cross `cut`, and
     * the fault is met where the parser reaches it. */
    size_t pos, cut;
    gboolean cut_at_fault; /* this is the second reading */
    gboolean read_again;   /* a reader fault met ahead: read again, cut at fault */
    size_t fault;
    const char *file;     /* interned */
    GHashTable *anchors;      /* name -> gal_node * (owned) */
    GHashTable *anchor_sizes; /* name -> node count */
    long nodes;               /* read so far, alias copies included */
    long alias_nodes;         /* of which copies made by aliases */
    /* Where the parser is, for messages: "stages[1].caption-burn.text". */
    GString *path;
    GArray *steps; /* path_step, one per key or index in the path */
    /* The last quoted scalar read, to explain a syntax error right where it
     * ended: a string whose closing quote is missing runs on to the next
     * quote, and YAML stumbles there, lines after the real mistake. */
    gboolean quoted_seen;
    char quote;               /* '"' or '\'' */
    yaml_mark_t quoted_start, quoted_end;
    GString *quoted_path;
    gal_errors *errs;
    gboolean failed;
} yaml_ctx;

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

/* The 1-based column of the first character of 1-based line `line` that
 * is not a space or a tab (libyaml counts a tab as one column). */
static int
line_indent(const yaml_ctx *y, int line)
{
    const char *c = line_text(y, line > 0 ? (size_t) line - 1 : 0);
    const char *end = y->text + y->len;
    int col = 1;

    while (c < end && (*c == ' ' || *c == '\t')) {
        c++;
        col++;
    }
    return col;
}

/* ---- where the parser is ----------------------------------------------------- */

/* Step into the value of `key`, or the item `index` of a list (key NULL). */
static void
path_push(yaml_ctx *y, const char *key, guint index, const gal_loc *loc, gboolean in_flow)
{
    path_step step = { y->path->len, *loc, in_flow, FALSE };

    g_array_append_val(y->steps, step);
    if (y->path->len >= MAX_PATH_BYTES)
        return;
    if (key) {
        g_autofree char *shown = gal__excerpt(key, GAL_EXCERPT_CHARS);

        g_string_append_printf(y->path, "%s%s", y->path->len ? "." : "", shown);
    }
    else
        g_string_append_printf(y->path, "[%u]", index);
}

static void
path_pop(yaml_ctx *y)
{
    g_string_truncate(y->path, g_array_index(y->steps, path_step, y->steps->len - 1).start);
    g_array_set_size(y->steps, y->steps->len - 1);
}

/* The key path a syntax error at `loc` is in: the path being read, less
 * the keys it is outside of. In block context, a line below a key and
 * indented no deeper than it is not in that key's value, although libyaml
 * may fail there while still reading it: it looks past the end of a plain
 * value to see whether the value goes on. In a {...} or [...] lines mean
 * nothing, so a fault in one is in it. */
static char *
error_path(const yaml_ctx *y, const gal_loc *loc)
{
    guint n = y->steps->len;
    int indent = line_indent(y, loc->line);

    for (; n > 0; n--) {
        const path_step *s = &g_array_index(y->steps, path_step, n - 1);

        if (s->in_flow || s->opens_flow || loc->line <= s->loc.line || indent > s->loc.col)
            break;
    }
    if (n == y->steps->len)
        return g_strdup(y->path->str);
    return g_strndup(y->path->str, g_array_index(y->steps, path_step, n).start);
}

/* ---- syntax errors ------------------------------------------------------------- */

/* Syntax errors about quoted strings, said where the mistake is: NULL for
 * the others, which keep libyaml's words and place. `*earlier` tells
 * whether the string blamed is one read before (the last quoted one), not
 * the one libyaml is reading. */
static char *
quote_problem(const yaml_ctx *y, gal_loc *loc, gboolean *earlier)
{
    const yaml_parser_t *p = &y->parser;
    const char *problem = p->problem ? p->problem : "";

    *earlier = FALSE;
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
        *earlier = TRUE;
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
    gboolean earlier = FALSE;
    g_autofree char *quoted = NULL;
    g_autofree char *path = NULL;

    if (y->failed)
        return -1;
    y->failed = TRUE;
    if (y->parser.error == YAML_READER_ERROR && !y->cut_at_fault &&
        y->parser.problem_offset < y->len) {
        /* Met ahead of the parser: read again, cut there (yaml_ctx). */
        y->read_again = TRUE;
        y->fault = y->parser.problem_offset;
        return -1;
    }
    quoted = quote_problem(y, &loc, &earlier);
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
    path = earlier ? g_strdup(y->quoted_path->str) : error_path(y, &loc);
    if (quoted)
        return gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, path, "YAML syntax error: %s",
            quoted);
    return gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, path, "YAML syntax error: %s%s%s",
        y->parser.problem ? y->parser.problem : "unknown problem",
        y->parser.context ? " " : "", y->parser.context ? y->parser.context : "");
}

static long
node_count(const gal_node *node)
{
    long n = 1;

    for (guint i = 0; node->items && i < node->items->len; i++)
        n += node_count(node->items->pdata[i]);
    return n + (node->keys ? node->keys->len : 0);
}

/* ---- nodes ------------------------------------------------------------------------ */

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
    gboolean is_flow = is_map ? start->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                              : start->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
    gal_loc loc = mark_loc(y, start->start_mark);
    gal_node *node = gal__node_new(is_map ? GAL_NODE_MAP : GAL_NODE_SEQ, &loc);
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    GPtrArray *merges = g_ptr_array_new();

    if (is_flow && y->steps->len > 0)
        g_array_index(y->steps, path_step, y->steps->len - 1).opens_flow = TRUE;
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
        if (!is_map) {
            gal_loc item_loc = mark_loc(y, event.start_mark);
            gal_node *item;

            path_push(y, NULL, node->items->len, &item_loc, is_flow);
            item = parse_node(y, &event, depth + 1);
            path_pop(y);
            yaml_event_delete(&event);
            if (!item)
                break;
            g_ptr_array_add(node->items, item);
            continue;
        }
        key = parse_node(y, &event, depth + 1);
        yaml_event_delete(&event);
        if (!key)
            break;
        if (key->kind != GAL_NODE_SCALAR) {
            gal__errors_push(y->errs, GAL_ERR_PRESET, &key->loc, NULL,
                "a key must be a plain word, got %s",
                key->kind == GAL_NODE_MAP ? "a mapping" : "a list");
            y->failed = TRUE;
        }
        /* The path names the key from here on, while its value is read:
         * a syntax error in the value is in that key. */
        path_push(y, key->kind == GAL_NODE_SCALAR ? key->text : "?", 0, &key->loc, is_flow);
        if (!yaml_parser_parse(&y->parser, &event)) {
            yaml_fail(y);
            path_pop(y);
            gal__node_free(key);
            break;
        }
        value = parse_node(y, &event, depth + 1);
        path_pop(y);
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
            gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, y->path->str,
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
            g_string_assign(y->quoted_path, y->path->str);
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
        gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, y->path->str,
            "the document expands to more than %d nodes, %ld of them copies made by aliases "
            "(an alias bomb?)",
            MAX_NODES, y->alias_nodes);
    else
        gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, y->path->str,
            "the document has more than %d nodes (values, keys, lists and mappings); a preset "
            "needs a few hundred",
            MAX_NODES);
    y->failed = TRUE;
    return NULL;
}

/* ---- documents -------------------------------------------------------------------- */

/* libyaml's read handler: the text, in reads that never cross y->cut. */
static int
read_text(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
    yaml_ctx *y = data;
    size_t end = y->pos < y->cut ? y->cut : y->len;
    size_t n = MIN(size, end - y->pos);

    memcpy(buffer, y->text + y->pos, n);
    y->pos += n;
    *size_read = n;
    return 1;
}

/* One reading of the text, cut at `cut` (yaml_ctx): the root node, NULL
 * for an empty document; y->failed when it is not YAML (the error added,
 * or y->read_again set). */
static gal_node *
read_document(yaml_ctx *y)
{
    gal_node *root = NULL;
    gboolean done = FALSE;

    while (!done && !y->failed) {
        yaml_event_t event;

        if (!yaml_parser_parse(&y->parser, &event)) {
            yaml_fail(y);
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
            root = parse_node(y, &event, 0);
            break;
        default:
            break;
        }
        yaml_event_delete(&event);
    }
    if (y->failed) {
        gal__node_free(root);
        return NULL;
    }
    return root;
}

/* Parse YAML text into a node tree of any kind: NULL with the error added
 * when it is not YAML; an empty document is a null scalar. */
gal_node *
gal__yaml_document(const char *text, size_t len, const char *file, gal_errors *errs)
{
    size_t cut = len;
    gboolean cut_at_fault = FALSE, failed;
    g_autofree gal_errors *found = g_new0(gal_errors, 1);
    gal_node *root;

    for (;;) {
        yaml_ctx y = { 0 };

        memset(found, 0, sizeof(*found));

        yaml_parser_initialize(&y.parser);
        yaml_parser_set_input(&y.parser, read_text, &y);
        y.text = text;
        y.len = len;
        y.cut = cut;
        y.cut_at_fault = cut_at_fault;
        y.file = file;
        /* Errors wait for the last reading (only the second is kept). */
        y.errs = found;
        y.anchors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
            (GDestroyNotify) gal__node_free);
        y.anchor_sizes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        y.path = g_string_new(NULL);
        y.steps = g_array_new(FALSE, FALSE, sizeof(path_step));
        y.quoted_path = g_string_new(NULL);

        root = read_document(&y);
        failed = y.failed;

        yaml_parser_delete(&y.parser);
        g_hash_table_destroy(y.anchors);
        g_hash_table_destroy(y.anchor_sizes);
        g_string_free(y.path, TRUE);
        g_array_free(y.steps, TRUE);
        g_string_free(y.quoted_path, TRUE);
        if (!y.read_again)
            break;
        /* The first reading stopped at the fault, its first error. */
        cut = y.fault;
        cut_at_fault = TRUE;
    }
    for (int i = 0; i < found->count; i++)
        gal__errors_add(errs, &found->items[i]);
    if (errs)
        errs->dropped += found->dropped;
    if (failed)
        return NULL;
    if (!root) {
        gal_loc loc = { file, 1, 1 };

        root = gal__node_new_scalar("", &loc);
        root->is_null = TRUE;
    }
    return root;
}

/* Parse a preset document; an empty one is an empty map. */
gal_node *
gal__yaml_preset(const char *text, size_t len, const char *file, gal_errors *errs)
{
    gal_node *root = gal__yaml_document(text, len, file, errs);

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
