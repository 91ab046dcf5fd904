/* yaml2json FILE: the first YAML document of FILE as JSON on stdout, the way
 * an editor's YAML 1.2 reader sees it, for ajv to check against
 * presets/gallop.schema.json (tests/schema/check).
 *
 * Plain scalars are typed by the YAML 1.2 core schema: null (~, null, empty),
 * booleans (true, false), integers (12, 0x1f, 0o17) and floats (1.5, 1e3);
 * quoted ones and everything else are strings. JSON has no infinity or NaN,
 * so .inf and .nan stay strings. Aliases are copies of their anchor, and a
 * merge key (<<) stays an ordinary key: YAML 1.2 has no merge keys, which is
 * what the schema allows for. Independent of gallop's own reader on
 * purpose: it is the other side of the comparison. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <glib.h>

static gboolean
matches(const char *pattern, const char *text)
{
    regex_t re;
    int status;

    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        abort();
    status = regexec(&re, text, 0, NULL, 0);
    regfree(&re);
    return status == 0;
}

static void
append_string(GString *out, const char *text, size_t len)
{
    g_string_append_c(out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) text[i];

        if (c == '"' || c == '\\')
            g_string_append_printf(out, "\\%c", c);
        else if (c < 0x20)
            g_string_append_printf(out, "\\u%04x", c);
        else
            g_string_append_c(out, (char) c);
    }
    g_string_append_c(out, '"');
}

static void
append_number(GString *out, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    if (v == floor(v) && fabs(v) < 1e15)
        g_string_append_printf(out, "%.0f", v);
    else
        g_string_append(out, g_ascii_dtostr(buf, sizeof(buf), v));
}

/* A plain scalar, typed by the YAML 1.2 core schema. */
static void
append_plain(GString *out, const char *text, size_t len)
{
    if (matches("^(|~|null|Null|NULL)$", text))
        g_string_append(out, "null");
    else if (matches("^(true|True|TRUE|false|False|FALSE)$", text))
        g_string_append(out, text[0] == 't' || text[0] == 'T' ? "true" : "false");
    else if (matches("^[-+]?[0-9]+$", text))
        append_number(out, g_ascii_strtod(text, NULL));
    else if (matches("^0o[0-7]+$", text))
        append_number(out, (double) g_ascii_strtoull(text + 2, NULL, 8));
    else if (matches("^0x[0-9a-fA-F]+$", text))
        append_number(out, (double) g_ascii_strtoull(text + 2, NULL, 16));
    else if (matches("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$", text) &&
        isfinite(g_ascii_strtod(text, NULL)))
        append_number(out, g_ascii_strtod(text, NULL));
    else
        append_string(out, text, len);
}

static void
append_node(GString *out, yaml_document_t *doc, yaml_node_t *node, int depth)
{
    if (depth > 64) {
        fprintf(stderr, "yaml2json: nested too deep\n");
        exit(2);
    }
    switch (node->type) {
    case YAML_SCALAR_NODE: {
        const char *text = (const char *) node->data.scalar.value;
        size_t len = node->data.scalar.length;

        /* libyaml's loader tags every untagged scalar as a string: only the
         * style tells a plain one. */
        if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            append_plain(out, text, len);
        else
            append_string(out, text, len);
        break;
    }
    case YAML_SEQUENCE_NODE: {
        yaml_node_item_t *item;

        g_string_append_c(out, '[');
        for (item = node->data.sequence.items.start; item < node->data.sequence.items.top;
             item++) {
            if (item != node->data.sequence.items.start)
                g_string_append_c(out, ',');
            append_node(out, doc, yaml_document_get_node(doc, *item), depth + 1);
        }
        g_string_append_c(out, ']');
        break;
    }
    case YAML_MAPPING_NODE: {
        yaml_node_pair_t *pair;

        g_string_append_c(out, '{');
        for (pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top;
             pair++) {
            yaml_node_t *key = yaml_document_get_node(doc, pair->key);

            if (pair != node->data.mapping.pairs.start)
                g_string_append_c(out, ',');
            if (key->type != YAML_SCALAR_NODE) {
                fprintf(stderr, "yaml2json: a key that is not a scalar\n");
                exit(2);
            }
            append_string(out, (const char *) key->data.scalar.value,
                key->data.scalar.length);
            g_string_append_c(out, ':');
            append_node(out, doc, yaml_document_get_node(doc, pair->value), depth + 1);
        }
        g_string_append_c(out, '}');
        break;
    }
    default:
        g_string_append(out, "null");
    }
}

int
main(int argc, char **argv)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root;
    FILE *in;
    GString *out = g_string_new(NULL);

    if (argc != 2 || !(in = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: yaml2json FILE\n");
        return 2;
    }
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, in);
    if (!yaml_parser_load(&parser, &doc)) {
        fprintf(stderr, "yaml2json: %s: %s at %zu:%zu\n", argv[1],
            parser.problem ? parser.problem : "not YAML", parser.problem_mark.line + 1,
            parser.problem_mark.column + 1);
        return 1;
    }
    root = yaml_document_get_root_node(&doc);
    if (root)
        append_node(out, &doc, root, 0);
    else
        g_string_append(out, "null");
    g_string_append_c(out, '\n');
    fputs(out->str, stdout);
    g_string_free(out, TRUE);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(in);
    return 0;
}
