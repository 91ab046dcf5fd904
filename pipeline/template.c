/* template.c: "{stem}-{date:%Y-%m-%d}.{ext}" and "{artist|Unknown}".
 * A template is parsed once at load time (unknown fields are preset errors)
 * and rendered per photo from a gal_facts. "{{" and "}}" are literal
 * braces. Values substituted into file names are sanitised here, so that a
 * caption or EXIF string can never add a folder level or a hidden file. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "error.h"
#include "template.h"

typedef enum {
    PART_TEXT,
    PART_FIELD,
} part_kind;

typedef struct {
    part_kind kind;
    char *text;     /* TEXT: literal; FIELD: field name */
    char *format;   /* FIELD: after ':' (NULL = default) */
    char *fallback; /* FIELD: after '|' (NULL = empty) */
    /* FIELD: found once at parse time; a million names are rendered. */
    const gal_field *field;
    gboolean is_dir; /* FIELD: {dir}, a path of folders */
} part;

struct gal_template {
    char *source;
    GArray *parts; /* part */
};

#define TEXT_FIELD(n, flags) { #n, flags, GAL_FIELD_NO_FORMAT, offsetof(gal_facts, n) }
#define PHOTO GAL_FIELD_PER_PHOTO
#define EXIF (GAL_FIELD_EXIF | GAL_FIELD_PER_PHOTO)

const gal_field gal__template_fields[] = {
    TEXT_FIELD(name, PHOTO),
    TEXT_FIELD(stem, PHOTO),
    TEXT_FIELD(ext, PHOTO), /* a run has one format, but a sheet may have another */
    TEXT_FIELD(preset, 0),
    TEXT_FIELD(caption, EXIF),
    TEXT_FIELD(camera, EXIF),
    TEXT_FIELD(lens, EXIF),
    TEXT_FIELD(artist, EXIF),
    TEXT_FIELD(copyright, EXIF),
    TEXT_FIELD(exposure, EXIF),
    { "date", EXIF, GAL_FIELD_STRFTIME, -1 },
    /* "© {year} {artist}": the year taken, as {date:%Y} */
    { "year", EXIF, GAL_FIELD_NO_FORMAT, -1 },
    TEXT_FIELD(dir, PHOTO),
    /* Differs between the files of a photo, not between photos. */
    { "width", 0, GAL_FIELD_WIDTH, -1 },
    { "index", PHOTO, GAL_FIELD_WIDTH, -1 },
    { "count", PHOTO, GAL_FIELD_WIDTH, -1 },
    { NULL, 0, GAL_FIELD_NO_FORMAT, -1 },
};

#undef TEXT_FIELD
#undef PHOTO
#undef EXIF

static const gal_field *
find_field(const char *name)
{
    for (const gal_field *f = gal__template_fields; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

/* The names, NULL-terminated, for messages: a new array of borrowed
 * strings. */
static const char **
field_names(void)
{
    GPtrArray *names = g_ptr_array_new();

    for (const gal_field *f = gal__template_fields; f->name; f++)
        g_ptr_array_add(names, (gpointer) f->name);
    g_ptr_array_add(names, NULL);
    return (const char **) g_ptr_array_free(names, FALSE);
}

static void
part_clear(gpointer p)
{
    part *pt = p;

    g_free(pt->text);
    g_free(pt->format);
    g_free(pt->fallback);
}

void
gal__template_free(gal_template *tpl)
{
    if (!tpl)
        return;
    g_free(tpl->source);
    g_array_free(tpl->parts, TRUE);
    g_free(tpl);
}

const char *
gal__template_text(const gal_template *tpl)
{
    return tpl->source;
}

gboolean
gal__template_uses_any(const gal_template *tpl, unsigned flags)
{
    for (guint i = 0; i < tpl->parts->len; i++) {
        const part *pt = &g_array_index(tpl->parts, part, i);

        if (pt->kind == PART_FIELD && (find_field(pt->text)->flags & flags))
            return TRUE;
    }
    return FALSE;
}

gboolean
gal__template_uses(const gal_template *tpl, const char *name)
{
    for (guint i = 0; i < tpl->parts->len; i++) {
        const part *pt = &g_array_index(tpl->parts, part, i);

        if (pt->kind == PART_FIELD && strcmp(pt->text, name) == 0)
            return TRUE;
    }
    return FALSE;
}

/* The column of `at` in `text`, counted in characters from 1, as an
 * editor shows it. */
static long
column_of(const char *text, const char *at)
{
    long column = 1;

    for (const char *c = text; c < at; c++)
        column += ((guchar) *c & 0xc0) != 0x80;
    return column;
}

/* "date, index and count": the fields that take a format. */
static char *
formatted_fields(void)
{
    GString *out = g_string_new(NULL);
    int n = 0, total = 0;

    for (const gal_field *f = gal__template_fields; f->name; f++)
        total += f->format != GAL_FIELD_NO_FORMAT;
    for (const gal_field *f = gal__template_fields; f->name; f++)
        if (f->format != GAL_FIELD_NO_FORMAT) {
            if (n++)
                g_string_append(out, n == total ? " and " : ", ");
            g_string_append(out, f->name);
        }
    return g_string_free(out, FALSE);
}

/* Messages quote the template (which may be a whole caption) and its
 * parts only so far. */
static char *
shown(const char *text)
{
    return gal__excerpt(text, GAL_EXCERPT_CHARS);
}

static int
field_error(GError **error, const char *text, const char *field, long column)
{
    g_autofree const char **names = field_names();
    const char *guess = gal__did_you_mean(field, names);
    g_autofree char *list = g_strjoinv(", ", (char **) names);
    g_autofree char *field_shown = shown(field);
    g_autofree char *text_shown = shown(text);

    if (guess)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
            "unknown field \"{%s}\" at column %ld of \"%s\" (did you mean \"{%s}\"?)",
            field_shown, column, text_shown, guess);
    else
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
            "unknown field \"{%s}\" at column %ld of \"%s\"; fields are %s", field_shown,
            column, text_shown, list);
    return -1;
}

static int
parse_field(const char *text, const char *open, const char *close, part *pt,
    GError **error)
{
    g_autofree char *inner = g_strndup(open + 1, close - open - 1);
    char *bar = strchr(inner, '|');
    char *colon;
    const gal_field *field;

    if (bar) {
        *bar = '\0';
        pt->fallback = g_strdup(bar + 1);
    }
    colon = strchr(inner, ':');
    if (colon) {
        *colon = '\0';
        pt->format = g_strdup(colon + 1);
    }
    g_strstrip(inner);
    if (!(field = find_field(inner)))
        return field_error(error, text, inner, column_of(text, open));
    if (pt->format && field->format == GAL_FIELD_NO_FORMAT) {
        g_autofree char *text_shown = shown(text);
        g_autofree char *formatted = formatted_fields();

        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
            "field \"{%s}\" takes no format (only %s do), at column %ld of \"%s\"", inner,
            formatted, column_of(text, open), text_shown);
        return -1;
    }
    if (pt->format && field->format == GAL_FIELD_WIDTH) {
        /* {index:03}: a zero-padded width, nothing else. */
        const char *f = pt->format;

        if (!*f || strspn(f, "0123456789") != strlen(f) || strlen(f) > 2) {
            g_autofree char *format_shown = shown(f);
            g_autofree char *text_shown = shown(text);

            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "\"{%s:%s}\": a number takes a width such as {%s:03}, at column %ld of \"%s\"",
                inner, format_shown, inner, column_of(text, open), text_shown);
            return -1;
        }
    }
    pt->kind = PART_FIELD;
    pt->text = g_strdup(inner);
    pt->field = field;
    pt->is_dir = strcmp(inner, "dir") == 0;
    return 0;
}

gal_template *
gal__template_parse(const char *text, GError **error)
{
    gal_template *tpl = g_new0(gal_template, 1);
    GString *literal = g_string_new(NULL);
    const char *c = text;

    tpl->source = g_strdup(text);
    tpl->parts = g_array_new(FALSE, TRUE, sizeof(part));
    g_array_set_clear_func(tpl->parts, part_clear);

    while (*c) {
        if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
            g_string_append_c(literal, c[0]);
            c += 2;
        }
        else if (*c == '{') {
            const char *close = strchr(c, '}');
            part pt = { 0 };

            if (!close) {
                g_autofree char *text_shown = shown(text);

                g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "unclosed \"{\" at column %ld of \"%s\" (write \"{{\" for a brace)",
                    column_of(text, c), text_shown);
                goto fail;
            }
            if (parse_field(text, c, close, &pt, error)) {
                part_clear(&pt);
                goto fail;
            }
            if (literal->len) {
                part lit = { PART_TEXT, g_strdup(literal->str), NULL, NULL, NULL, FALSE };

                g_array_append_val(tpl->parts, lit);
                g_string_truncate(literal, 0);
            }
            g_array_append_val(tpl->parts, pt);
            c = close + 1;
        }
        else if (*c == '}') {
            g_autofree char *text_shown = shown(text);

            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "unmatched \"}\" at column %ld of \"%s\" (write \"}}\" for a brace)",
                column_of(text, c), text_shown);
            goto fail;
        }
        else
            g_string_append_c(literal, *c++);
    }
    if (literal->len) {
        part lit = { PART_TEXT, g_strdup(literal->str), NULL, NULL, NULL, FALSE };

        g_array_append_val(tpl->parts, lit);
    }
    g_string_free(literal, TRUE);
    return tpl;

fail:
    g_string_free(literal, TRUE);
    gal__template_free(tpl);
    return NULL;
}

/* Room for any value field_value() formats: a date (strftime's limit)
 * or a number. */
#define VALUE_BUF 256

/* The value of one field, or NULL when the photo does not have it:
 * the facts' own string, or formatted into `buf` (VALUE_BUF bytes). */
static const char *
field_value(const part *pt, const gal_facts *f, char *buf)
{
    const char *name = pt->field->name;
    const char *s;

    if (pt->field->facts_offset >= 0) {
        s = *(const char *const *) ((const char *) f + pt->field->facts_offset);
        return s && *s ? s : NULL;
    }
    if (strcmp(name, "date") == 0) {
        if (!f->has_date)
            return NULL;
        /* The format is the preset's own text: strftime copies unknown
         * conversions and never reads beyond `date`. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        if (strftime(buf, VALUE_BUF, pt->format ? pt->format : "%Y-%m-%d", &f->date) == 0)
            return NULL;
#pragma GCC diagnostic pop
        return buf;
    }
    if (strcmp(name, "year") == 0) {
        if (!f->has_date)
            return NULL;
        g_snprintf(buf, VALUE_BUF, "%d", f->date.tm_year + 1900);
        return buf;
    }
    if (strcmp(name, "width") == 0) {
        if (f->width <= 0)
            return NULL;
        g_snprintf(buf, VALUE_BUF, "%0*d", pt->format ? atoi(pt->format) : 0, f->width);
        return buf;
    }
    /* {index} or {count} */
    g_snprintf(buf, VALUE_BUF, "%0*d", pt->format ? atoi(pt->format) : 0,
        strcmp(name, "index") == 0 ? f->index : f->count);
    return buf;
}

/* Is `u` a byte a file-name component cannot take as it is? */
static inline gboolean
unsafe_byte(guchar u)
{
    return u < 0x20 || u == 0x7f || u == '/' || u == '\\';
}

/* Make the `len` bytes of `value` (NUL-terminated when len < 0) safe as
 * (part of) one file-name component. Most values are printable ASCII
 * with nothing to replace: appended whole, with no copy. */
static void
append_sanitized_len(GString *out, const char *value, gssize len)
{
    size_t n = len < 0 ? strlen(value) : (size_t) len, plain = 0;
    gsize start = out->len;

    /* Printable ASCII, 0x20 to 0x7e, in one comparison. */
    while (plain < n && (guchar) (value[plain] - 0x20) < 0x5f && value[plain] != '/' &&
           value[plain] != '\\')
        plain++;
    if (plain == n)
        g_string_append_len(out, value, (gssize) n);
    else {
        g_autofree char *valid = g_utf8_make_valid(value, (gssize) n);

        for (const char *c = valid; *c; c++)
            g_string_append_c(out, unsafe_byte((guchar) *c) ? '_' : *c);
    }
    /* A value must not make a hidden file or a ".." component. */
    if (out->len > start && out->str[start] == '.' && (start == 0 || out->str[start - 1] == '/'))
        out->str[start] = '_';
}

/* {dir} is a path of folders: each one is made safe on its own, and the
 * slashes between them stay. */
static void
append_sanitized_dir(GString *out, const char *value)
{
    for (const char *folder = value;; folder++) {
        const char *slash = strchrnul(folder, '/');

        if (folder != value)
            g_string_append_c(out, '/');
        append_sanitized_len(out, folder, slash - folder);
        if (!*slash)
            break;
        folder = slash;
    }
}

void
gal__template_render_append(const gal_template *tpl, const gal_facts *facts,
    gboolean sanitize, GString *out)
{
    gboolean skip_slash = FALSE;
    char buf[VALUE_BUF];

    for (guint i = 0; i < tpl->parts->len; i++) {
        const part *pt = &g_array_index(tpl->parts, part, i);
        const char *value;

        if (pt->kind == PART_TEXT) {
            /* "{dir}/{stem}" at the input folder's top is "{stem}", not
             * "/{stem}". */
            g_string_append(out, pt->text + (skip_slash && pt->text[0] == '/'));
            skip_slash = FALSE;
            continue;
        }
        value = field_value(pt, facts, buf);
        if (!value && pt->fallback)
            value = pt->fallback;
        skip_slash = !value && pt->is_dir;
        if (!value)
            continue;
        if (sanitize && pt->is_dir)
            append_sanitized_dir(out, value);
        else if (sanitize)
            append_sanitized_len(out, value, -1);
        else
            g_string_append(out, value);
    }
}

char *
gal__template_render(const gal_template *tpl, const gal_facts *facts, gboolean sanitize)
{
    GString *out = g_string_new(NULL);

    gal__template_render_append(tpl, facts, sanitize, out);
    return g_string_free(out, FALSE);
}

char *
gal__template_render_whole(const gal_template *tpl, const gal_facts *facts)
{
    for (guint i = 0; i < tpl->parts->len; i++) {
        const part *pt = &g_array_index(tpl->parts, part, i);
        char buf[VALUE_BUF];

        if (pt->kind == PART_FIELD && !pt->fallback && !field_value(pt, facts, buf))
            return NULL;
    }
    return gal__template_render(tpl, facts, FALSE);
}
