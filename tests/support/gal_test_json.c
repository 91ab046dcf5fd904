/* gal_test_json.c: a strict little JSON reader (RFC 8259) for checking the
 * reports and log events gallop writes. It rejects anything a real parser
 * would: trailing commas, bad escapes, control characters in strings,
 * leading zeros, invalid UTF-8, text after the value. */
#include <string.h>

#include "gal_test_json.h"

typedef struct {
    const char *p, *end;
    char error[128];
    int depth;
} reader;

static void
json_free(gal_json *j)
{
    if (!j)
        return;
    g_free(j->string);
    if (j->items)
        g_ptr_array_unref(j->items);
    if (j->keys)
        g_ptr_array_unref(j->keys);
    g_free(j);
}

void
gal_json_free(gal_json *j)
{
    json_free(j);
}

static gal_json *
fail(reader *r, const char *what)
{
    if (!r->error[0])
        g_snprintf(r->error, sizeof(r->error), "%s at byte %ld", what, (long) (r->end - r->p));
    return NULL;
}

static void
skip_ws(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static gal_json *parse_value(reader *r);

static int
hex4(const char *p)
{
    int v = 0;

    for (int i = 0; i < 4; i++) {
        int c = p[i];

        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    return v;
}

static char *
parse_string_raw(reader *r)
{
    GString *s = g_string_new(NULL);

    r->p++; /* the opening quote */
    while (r->p < r->end && *r->p != '"') {
        unsigned char c = (unsigned char) *r->p;

        if (c < 0x20) {
            g_string_free(s, TRUE);
            fail(r, "control character in a string");
            return NULL;
        }
        if (c != '\\') {
            g_string_append_c(s, (char) c);
            r->p++;
            continue;
        }
        if (r->p + 1 >= r->end) {
            g_string_free(s, TRUE);
            fail(r, "cut escape");
            return NULL;
        }
        switch (r->p[1]) {
        case '"': g_string_append_c(s, '"'); break;
        case '\\': g_string_append_c(s, '\\'); break;
        case '/': g_string_append_c(s, '/'); break;
        case 'b': g_string_append_c(s, '\b'); break;
        case 'f': g_string_append_c(s, '\f'); break;
        case 'n': g_string_append_c(s, '\n'); break;
        case 'r': g_string_append_c(s, '\r'); break;
        case 't': g_string_append_c(s, '\t'); break;
        case 'u': {
            int v = r->end - r->p >= 6 ? hex4(r->p + 2) : -1;

            if (v < 0 || (v >= 0xd800 && v <= 0xdfff)) {
                g_string_free(s, TRUE);
                fail(r, "bad \\u escape");
                return NULL;
            }
            g_string_append_unichar(s, (gunichar) v);
            r->p += 4;
            break;
        }
        default:
            g_string_free(s, TRUE);
            fail(r, "bad escape");
            return NULL;
        }
        r->p += 2;
    }
    if (r->p >= r->end) {
        g_string_free(s, TRUE);
        fail(r, "unterminated string");
        return NULL;
    }
    r->p++;
    if (!g_utf8_validate(s->str, (gssize) s->len, NULL)) {
        g_string_free(s, TRUE);
        fail(r, "invalid UTF-8 in a string");
        return NULL;
    }
    return g_string_free(s, FALSE);
}

static gal_json *
parse_number(reader *r)
{
    const char *start = r->p;
    gal_json *j;

    if (r->p < r->end && *r->p == '-')
        r->p++;
    if (r->p >= r->end || !g_ascii_isdigit(*r->p))
        return fail(r, "bad number");
    if (*r->p == '0' && r->p + 1 < r->end && g_ascii_isdigit(r->p[1]))
        return fail(r, "leading zero");
    while (r->p < r->end && g_ascii_isdigit(*r->p))
        r->p++;
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (r->p >= r->end || !g_ascii_isdigit(*r->p))
            return fail(r, "bad fraction");
        while (r->p < r->end && g_ascii_isdigit(*r->p))
            r->p++;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (r->p >= r->end || !g_ascii_isdigit(*r->p))
            return fail(r, "bad exponent");
        while (r->p < r->end && g_ascii_isdigit(*r->p))
            r->p++;
    }
    j = g_new0(gal_json, 1);
    j->type = GAL_JSON_NUMBER;
    {
        g_autofree char *text = g_strndup(start, r->p - start);

        j->number = g_ascii_strtod(text, NULL);
    }
    return j;
}

static gboolean
literal(reader *r, const char *word)
{
    size_t n = strlen(word);

    if ((size_t) (r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return FALSE;
    r->p += n;
    return TRUE;
}

static gal_json *
parse_container(reader *r, gboolean object)
{
    gal_json *j = g_new0(gal_json, 1);

    j->type = object ? GAL_JSON_OBJECT : GAL_JSON_ARRAY;
    j->items = g_ptr_array_new_with_free_func((GDestroyNotify) json_free);
    if (object)
        j->keys = g_ptr_array_new_with_free_func(g_free);
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == (object ? '}' : ']')) {
        r->p++;
        return j;
    }
    for (;;) {
        gal_json *value;

        skip_ws(r);
        if (object) {
            char *k;

            if (r->p >= r->end || *r->p != '"' || !(k = parse_string_raw(r))) {
                json_free(j);
                return fail(r, "expected a key");
            }
            g_ptr_array_add(j->keys, k);
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':') {
                json_free(j);
                return fail(r, "expected ':'");
            }
            r->p++;
        }
        if (!(value = parse_value(r))) {
            json_free(j);
            return NULL;
        }
        g_ptr_array_add(j->items, value);
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == (object ? '}' : ']')) {
            r->p++;
            return j;
        }
        json_free(j);
        return fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static gal_json *
parse_value(reader *r)
{
    gal_json *j;

    if (++r->depth > 64)
        return fail(r, "nested too deep");
    skip_ws(r);
    if (r->p >= r->end)
        return fail(r, "unexpected end");
    switch (*r->p) {
    case '{': j = parse_container(r, TRUE); break;
    case '[': j = parse_container(r, FALSE); break;
    case '"': {
        char *s = parse_string_raw(r);

        if (!s)
            return NULL;
        j = g_new0(gal_json, 1);
        j->type = GAL_JSON_STRING;
        j->string = s;
        break;
    }
    case 't':
    case 'f':
    case 'n':
        j = g_new0(gal_json, 1);
        if (literal(r, "true")) {
            j->type = GAL_JSON_BOOL;
            j->boolean = TRUE;
        }
        else if (literal(r, "false"))
            j->type = GAL_JSON_BOOL;
        else if (literal(r, "null"))
            j->type = GAL_JSON_NULL;
        else {
            g_free(j);
            return fail(r, "bad literal");
        }
        break;
    default: j = parse_number(r);
    }
    r->depth--;
    return j;
}

gal_json *
gal_json_parse(const char *text, char **error)
{
    reader r = { text, text + strlen(text), "", 0 };
    gal_json *j = parse_value(&r);

    if (j) {
        skip_ws(&r);
        if (r.p != r.end) {
            json_free(j);
            j = fail(&r, "text after the value");
        }
    }
    if (!j && error)
        *error = g_strdup(r.error);
    return j;
}

const gal_json *
gal_json_get(const gal_json *j, const char *path)
{
    g_auto(GStrv) parts = g_strsplit(path, ".", -1);

    for (int i = 0; parts[i] && j; i++) {
        const char *part = parts[i];

        if (g_ascii_isdigit(part[0])) {
            guint n = (guint) g_ascii_strtoull(part, NULL, 10);

            j = j->type == GAL_JSON_ARRAY && n < j->items->len ? j->items->pdata[n] : NULL;
            continue;
        }
        if (j->type != GAL_JSON_OBJECT)
            return NULL;
        {
            const gal_json *found = NULL;

            for (guint k = 0; k < j->keys->len; k++)
                if (strcmp(j->keys->pdata[k], part) == 0)
                    found = j->items->pdata[k];
            j = found;
        }
    }
    return j;
}

const char *
gal_json_string(const gal_json *j, const char *path)
{
    const gal_json *v = gal_json_get(j, path);

    return v && v->type == GAL_JSON_STRING ? v->string : NULL;
}

double
gal_json_number(const gal_json *j, const char *path)
{
    const gal_json *v = gal_json_get(j, path);

    return v && v->type == GAL_JSON_NUMBER ? v->number : -1;
}
