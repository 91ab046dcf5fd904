/* json.c: a small, strict JSON reader (see json.h). Recursive descent over
 * a pointer and an end, never past `end`; the first error wins. */
#include <stdarg.h>
#include <string.h>

#include "json.h"

typedef struct {
    const char *text, *p, *end;
    const char *error_at; /* first error, or NULL */
    char *error;
} reader;

void
gal__json_free(gal_json_value *v)
{
    if (!v)
        return;
    g_free(v->str);
    if (v->keys)
        g_ptr_array_unref(v->keys);
    if (v->items)
        g_ptr_array_unref(v->items);
    g_free(v);
}

static void
free_value(gpointer p)
{
    gal__json_free(p);
}

const gal_json_value *
gal__json_get(const gal_json_value *object, const char *key)
{
    if (!object || object->kind != GAL_JV_OBJECT)
        return NULL;
    for (guint i = 0; i < object->keys->len; i++)
        if (strcmp(object->keys->pdata[i], key) == 0)
            return object->items->pdata[i];
    return NULL;
}

const char *
gal__json_string(const gal_json_value *object, const char *key)
{
    const gal_json_value *v = gal__json_get(object, key);

    return v && v->kind == GAL_JV_STRING ? v->str : NULL;
}

static gal_json_value *fail(reader *r, const char *at, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

static gal_json_value *
fail(reader *r, const char *at, const char *fmt, ...)
{
    va_list ap;

    if (r->error_at)
        return NULL;
    va_start(ap, fmt);
    r->error = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    r->error_at = at;
    return NULL;
}

/* 1-based line of `at`, for "the list opened at line 3". */
static int
line_of(const reader *r, const char *at)
{
    int line = 1;

    for (const char *c = r->text; c < at; c++)
        line += *c == '\n';
    return line;
}

static void
skip_space(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n'))
        r->p++;
}

static int
hex4(const char *p, const char *end)
{
    int v = 0;

    if (end - p < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        if (!g_ascii_isxdigit(p[i]))
            return -1;
        v = v * 16 + g_ascii_xdigit_value(p[i]);
    }
    return v;
}

static char *
read_string(reader *r)
{
    const char *open = r->p++;
    g_autoptr(GString) out = g_string_new(NULL);

    for (;;) {
        const char *c = r->p;

        if (c >= r->end) {
            fail(r, open, "this string is never closed");
            return NULL;
        }
        if (*c == '"') {
            r->p++;
            break;
        }
        if ((guchar) *c < 0x20) {
            fail(r, c, "a control character inside a string (write \\n for a line break)");
            return NULL;
        }
        if (*c != '\\') {
            g_string_append_c(out, *c);
            r->p++;
            continue;
        }
        r->p += 2;
        switch (c + 1 < r->end ? c[1] : '\0') {
        case '"': g_string_append_c(out, '"'); break;
        case '\\': g_string_append_c(out, '\\'); break;
        case '/': g_string_append_c(out, '/'); break;
        case 'b': g_string_append_c(out, '\b'); break;
        case 'f': g_string_append_c(out, '\f'); break;
        case 'n': g_string_append_c(out, '\n'); break;
        case 'r': g_string_append_c(out, '\r'); break;
        case 't': g_string_append_c(out, '\t'); break;
        case 'u': {
            int u = hex4(r->p, r->end);

            if (u < 0) {
                fail(r, c, "\\u takes four hex digits");
                return NULL;
            }
            r->p += 4;
            if (u >= 0xd800 && u <= 0xdbff) {
                int low = r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u'
                    ? hex4(r->p + 2, r->end)
                    : -1;

                if (low < 0xdc00 || low > 0xdfff) {
                    fail(r, c, "a \\u escape of a lone surrogate");
                    return NULL;
                }
                r->p += 6;
                u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
            }
            else if (u >= 0xdc00 && u <= 0xdfff) {
                fail(r, c, "a \\u escape of a lone surrogate");
                return NULL;
            }
            /* U+0000 cannot be in a C string: it is dropped. */
            if (u)
                g_string_append_unichar(out, (gunichar) u);
            break;
        }
        default:
            fail(r, c, "an unknown escape after a backslash");
            return NULL;
        }
    }
    return g_string_free(g_steal_pointer(&out), FALSE);
}

static gboolean
read_number(reader *r)
{
    const char *c = r->p;

    if (c < r->end && *c == '-')
        c++;
    if (c < r->end && *c == '0')
        c++;
    else if (c < r->end && *c >= '1' && *c <= '9')
        while (c < r->end && g_ascii_isdigit(*c))
            c++;
    else
        return FALSE;
    if (c < r->end && *c == '.') {
        if (++c >= r->end || !g_ascii_isdigit(*c))
            return FALSE;
        while (c < r->end && g_ascii_isdigit(*c))
            c++;
    }
    if (c < r->end && (*c == 'e' || *c == 'E')) {
        c++;
        if (c < r->end && (*c == '+' || *c == '-'))
            c++;
        if (c >= r->end || !g_ascii_isdigit(*c))
            return FALSE;
        while (c < r->end && g_ascii_isdigit(*c))
            c++;
    }
    r->p = c;
    return TRUE;
}

/* What a byte that cannot start a value is, named: the text may be a
 * file the user did not write (a preset from elsewhere naming
 * /etc/passwd as its export), and an error quotes none of it. (Digits
 * and '-' start a number.) */
static const char *
kind_of(char c)
{
    switch (c) {
    case ']': return "closing bracket";
    case '}': return "closing brace";
    case ',': return "comma";
    case ':': return "colon";
    default: break;
    }
    if ((guchar) c >= 0x80)
        return "non-ASCII text";
    if (g_ascii_isalpha(c))
        return "letter";
    if (g_ascii_iscntrl(c))
        return "control character";
    return "punctuation";
}

static gal_json_value *
read_value(reader *r, int depth)
{
    g_autoptr(gal_json_value) v = g_new0(gal_json_value, 1);
    const char *at;

    skip_space(r);
    at = r->p;
    if (at >= r->end)
        return fail(r, at, "unexpected end of file");
    if (depth > GAL_JSON_MAX_DEPTH)
        return fail(r, at, "nested deeper than %d levels", GAL_JSON_MAX_DEPTH);

    switch (*at) {
    case '{':
    case '[': {
        gboolean object = *at == '{';
        char close = object ? '}' : ']';

        v->kind = object ? GAL_JV_OBJECT : GAL_JV_ARRAY;
        v->items = g_ptr_array_new_with_free_func(free_value);
        if (object)
            v->keys = g_ptr_array_new_with_free_func(g_free);
        r->p++;
        skip_space(r);
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return g_steal_pointer(&v);
        }
        for (;;) {
            gal_json_value *item;

            if (object) {
                char *key;

                skip_space(r);
                if (r->p >= r->end || *r->p != '"')
                    return fail(r, r->p, "expected a \"key\" in the object opened at line %d",
                        line_of(r, at));
                if (!(key = read_string(r)))
                    return NULL;
                g_ptr_array_add(v->keys, key);
                skip_space(r);
                if (r->p >= r->end || *r->p != ':')
                    return fail(r, r->p, "expected ':' after the key");
                r->p++;
            }
            if (!(item = read_value(r, depth + 1)))
                return NULL;
            g_ptr_array_add(v->items, item);
            skip_space(r);
            if (r->p < r->end && *r->p == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->end && *r->p == close) {
                r->p++;
                return g_steal_pointer(&v);
            }
            return fail(r, r->p, "expected ',' or '%c' (the %s opened at line %d)", close,
                object ? "object" : "list", line_of(r, at));
        }
    }
    case '"':
        v->kind = GAL_JV_STRING;
        if (!(v->str = read_string(r)))
            return NULL;
        return g_steal_pointer(&v);
    case 't':
    case 'f':
    case 'n': {
        static const char *const words[] = { "true", "false", "null" };

        for (int i = 0; i < 3; i++) {
            size_t n = strlen(words[i]);

            if ((size_t) (r->end - at) >= n && strncmp(at, words[i], n) == 0 &&
                (at + n == r->end || !g_ascii_isalnum(at[n]))) {
                v->kind = i == 2 ? GAL_JV_NULL : GAL_JV_BOOL;
                r->p += n;
                return g_steal_pointer(&v);
            }
        }
        break;
    }
    default:
        if (*at == '-' || g_ascii_isdigit(*at)) {
            if (!read_number(r))
                return fail(r, at, "not a JSON number");
            v->kind = GAL_JV_NUMBER;
            return g_steal_pointer(&v);
        }
        break;
    }
    return fail(r, at, "unexpected %s", kind_of(*at));
}

gal_json_value *
gal__json_parse(const char *text, gsize len, const char **error_at, char **error)
{
    reader r = { text, text, text + len, NULL, NULL };
    gal_json_value *root = read_value(&r, 0);

    if (root) {
        skip_space(&r);
        if (r.p < r.end) {
            fail(&r, r.p, "more text after the end of the document");
            gal__json_free(g_steal_pointer(&root));
        }
    }
    if (!root) {
        *error_at = r.error_at;
        *error = r.error;
    }
    return root;
}
