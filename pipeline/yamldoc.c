/* yamldoc.c: YAML text into located nodes (node.h): the only user of
 * libyaml. Every key and value keeps its file:line:column; aliases are
 * expanded by copying, within a budget of nodes and of bytes, so an alias
 * bomb fails fast, at the anchor that grows or the alias that copies too
 * much; `<<` merge keys are applied. A stream of more than one document is
 * refused. Syntax errors point where the fault starts (an unclosed quote
 * where the string opens) and name the key they are in. */
#include <string.h>
#include <yaml.h>

#include "internal.h"
#include "error.h"
#include "limit.h"
#include "node.h"
#include "yamldoc.h"

/* Alias expansion copies nodes: a preset is a few hundred nodes, so this
 * is generous, and a "billion laughs" document hits it within
 * milliseconds. The bytes the copies make have their own budget
 * (gal__limits.preset_expanded_bytes): one alias of a long string is one
 * node but may copy most of a megabyte. */
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

/* An anchored mapping or list being read: the one to blame when aliases
 * in it make the document too big. */
typedef struct {
    char *name;
    gal_loc loc;
    char *path;
} open_anchor;

/* What an anchor names, and what each alias of it copies. */
typedef struct {
    gal_node *node;
    long nodes;
    gint64 bytes;
    int line;
} anchor_def;

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
    GHashTable *anchors;  /* name -> anchor_def * (owned) */
    long nodes;           /* read so far, alias copies included */
    long alias_nodes;     /* of which copies made by aliases */
    gint64 bytes;         /* of key and value text, alias copies included */
    gint64 alias_bytes;   /* of which copies made by aliases */
    /* Where the parser is, for messages: "stages[1].caption-burn.text". */
    GString *path;
    GArray *steps;        /* path_step, one per key or index in the path */
    GArray *open_anchors; /* open_anchor, outermost first */
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

/* ---- the budget ------------------------------------------------------------------ */

/* The nodes and the bytes of text in `node` and below. */
static void
node_size(const gal_node *node, long *nodes, gint64 *bytes)
{
    *nodes += 1;
    if (node->text)
        *bytes += (gint64) strlen(node->text);
    for (guint i = 0; node->items && i < node->items->len; i++)
        node_size(node->items->pdata[i], nodes, bytes);
    for (guint i = 0; node->keys && i < node->keys->len; i++)
        node_size(node->keys->pdata[i], nodes, bytes);
}

static gboolean
over_budget(const yaml_ctx *y)
{
    return y->nodes > MAX_NODES || y->bytes > gal__limits.preset_expanded_bytes;
}

/* The document grew past its budget at `loc`, where the parser read a
 * node, or copied the anchor `def` for the alias `*alias`. The error goes
 * where a person can fix it: an anchored mapping or list that grows
 * through its own aliases (a "billion laughs") at its anchor, since the
 * alias that happens to cross the limit is one of thousands; an alias of
 * a long value outside any anchor where it stands. */
static void
refuse_too_big(yaml_ctx *y, const gal_loc *loc, const char *alias, const anchor_def *def)
{
    gboolean by_nodes = y->nodes > MAX_NODES;
    const open_anchor *grows = y->open_anchors->len > 0
        ? &g_array_index(y->open_anchors, open_anchor, y->open_anchors->len - 1)
        : NULL;
    g_autofree char *limit = NULL, *copied = NULL, *copies = NULL;
    g_autofree char *name = NULL, *size = NULL;

    y->failed = TRUE;
    if (by_nodes) {
        limit = g_strdup_printf("%d nodes", MAX_NODES);
        copies = g_strdup_printf("%ld of them", y->alias_nodes);
    }
    else {
        copied = gal__format_bytes(y->alias_bytes);
        limit = g_strdup_printf("%d MiB of text", (int) (gal__limits.preset_expanded_bytes >> 20));
        copies = g_strdup_printf("%s of it", copied);
    }
    if (!alias && y->alias_nodes == 0) {
        /* Nothing copied: a long list is no bomb. */
        if (by_nodes)
            gal__errors_push(y->errs, GAL_ERR_PRESET, loc, y->path->str,
                "the document has more than %s (values, keys, lists and mappings); a "
                "preset needs a few hundred",
                limit);
        else
            gal__errors_push(y->errs, GAL_ERR_PRESET, loc, y->path->str,
                "the document holds more than %s; a preset needs a few KiB", limit);
        return;
    }
    if (!alias) {
        gal__errors_push(y->errs, GAL_ERR_PRESET, loc, y->path->str,
            "the document expands to more than %s, %s copies made by aliases (an alias "
            "bomb?)",
            limit, copies);
        return;
    }
    name = gal__excerpt(alias, GAL_EXCERPT_CHARS);
    if (grows) {
        g_autofree char *grows_name = gal__excerpt(grows->name, GAL_EXCERPT_CHARS);

        gal__errors_push(y->errs, GAL_ERR_PRESET, &grows->loc, grows->path,
            "&%s grows through its aliases until the document expands to more than %s, %s "
            "copies made by aliases (an alias bomb?); *%s at line %d, column %d is the copy "
            "that crosses the limit",
            grows_name, limit, copies, name, loc->line, loc->col);
        return;
    }
    size = by_nodes ? g_strdup_printf("%ld nodes", def->nodes) : gal__format_bytes(def->bytes);
    gal__errors_push(y->errs, GAL_ERR_PRESET, loc, y->path->str,
        "*%s copies %s (anchored at line %d): with it the document expands to more than %s, "
        "%s copies made by aliases (an alias bomb?)",
        name, size, def->line, limit, copies);
}

/* ---- nodes ------------------------------------------------------------------------ */

static gal_node *parse_node(yaml_ctx *y, yaml_event_t *event, int depth);

static void
anchor_def_free(gpointer p)
{
    anchor_def *def = p;

    gal__node_free(def->node);
    g_free(def);
}

static void
remember_anchor(yaml_ctx *y, const yaml_char_t *anchor, const gal_node *node)
{
    anchor_def *def;

    if (!anchor)
        return;
    def = g_new0(anchor_def, 1);
    def->node = gal__node_copy(node);
    def->line = node->loc.line;
    node_size(node, &def->nodes, &def->bytes);
    g_hash_table_insert(y->anchors, g_strdup((const char *) anchor), def);
}

/* Add `key` and `value` to `map`, whose keys are in `seen`. */
static void
add_key(gal_node *map, GHashTable *seen, gal_node *key, gal_node *value)
{
    g_ptr_array_add(map->keys, key);
    g_ptr_array_add(map->items, value);
    g_hash_table_insert(seen, key->text, key);
}

/* YAML merge keys: `<<: *defaults` adds the keys the map does not set. */
static void
apply_merge_key(gal_node *map, GHashTable *seen, gal_node *key, gal_node *value, yaml_ctx *y)
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

            if (!g_hash_table_contains(seen, k->text))
                add_key(map, seen, gal__node_copy(k), gal__node_copy(src->items->pdata[i]));
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
    /* The keys so far, by text: a mapping may have tens of thousands, and
     * a search of the list for each would take seconds. */
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

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
        else if (g_hash_table_contains(seen, key->text)) {
            const gal_node *first = g_hash_table_lookup(seen, key->text);

            gal__errors_push(y->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "duplicate key (first set at line %d)", first->loc.line);
            y->failed = TRUE;
            gal__node_free(key);
            gal__node_free(value);
        }
        else
            add_key(node, seen, key, value);
    }
    /* Explicit keys win over merged ones, wherever `<<` stands. */
    for (guint i = 0; i + 1 < merges->len; i += 2)
        apply_merge_key(node, seen, merges->pdata[i], merges->pdata[i + 1], y);
    g_ptr_array_free(merges, TRUE);
    if (y->failed) {
        gal__node_free(node);
        return NULL;
    }
    return node;
}

/* A collection under an anchor is open while it is read: aliases in it
 * that make the document too big are blamed on it (refuse_too_big). */
static gal_node *
parse_anchored_collection(yaml_ctx *y, yaml_event_t *start, const yaml_char_t *anchor,
    int depth)
{
    open_anchor open;
    gal_node *node;

    if (!anchor)
        return parse_collection(y, start, depth);
    open.name = g_strdup((const char *) anchor);
    open.loc = mark_loc(y, start->start_mark);
    open.path = g_strdup(y->path->str);
    g_array_append_val(y->open_anchors, open);
    node = parse_collection(y, start, depth);
    g_array_set_size(y->open_anchors, y->open_anchors->len - 1);
    g_free(open.name);
    g_free(open.path);
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
    if (++y->nodes > MAX_NODES) {
        refuse_too_big(y, &loc, NULL, NULL);
        return NULL;
    }

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
        y->bytes += (gint64) event->data.scalar.length;
        if (over_budget(y)) {
            refuse_too_big(y, &loc, NULL, NULL);
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
        node = parse_anchored_collection(y, event, anchor, depth);
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = event->data.mapping_start.anchor;
        node = parse_anchored_collection(y, event, anchor, depth);
        break;
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *) event->data.alias.anchor;
        const anchor_def *def = g_hash_table_lookup(y->anchors, name);

        if (!def) {
            g_autofree char *shown = gal__excerpt(name, GAL_EXCERPT_CHARS);

            gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL, "unknown alias \"*%s\"", shown);
            y->failed = TRUE;
            return NULL;
        }
        /* Counted before the copy is made: a refused copy costs nothing. */
        y->nodes += def->nodes;
        y->alias_nodes += def->nodes;
        y->bytes += def->bytes;
        y->alias_bytes += def->bytes;
        if (over_budget(y)) {
            refuse_too_big(y, &loc, name, def);
            return NULL;
        }
        node = gal__node_copy(def->node);
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
    int documents = 0;

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
        case YAML_DOCUMENT_START_EVENT:
            /* What is written is what runs: a second document would be
             * ignored, however it came there (two files joined, a
             * stray "---"). "..." ending the first one is fine. */
            if (++documents > 1) {
                gal_loc loc = mark_loc(y, event.start_mark);

                gal__errors_push(y->errs, GAL_ERR_PRESET, &loc, NULL,
                    "a preset is one YAML document; a second one starts here (gallop "
                    "would read only the first)");
                y->failed = TRUE;
            }
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
        y.anchors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, anchor_def_free);
        y.path = g_string_new(NULL);
        y.steps = g_array_new(FALSE, FALSE, sizeof(path_step));
        y.open_anchors = g_array_new(FALSE, FALSE, sizeof(open_anchor));
        y.quoted_path = g_string_new(NULL);

        root = read_document(&y);
        failed = y.failed;

        yaml_parser_delete(&y.parser);
        g_hash_table_destroy(y.anchors);
        g_string_free(y.path, TRUE);
        g_array_free(y.steps, TRUE);
        g_array_free(y.open_anchors, TRUE);
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
