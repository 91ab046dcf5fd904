/* about.c: what a site shows of a photo (about.h): its fields one after
 * another in one block, each ended by a NUL. */
#include <string.h>

#include "internal.h"
#include "about.h"

struct gal_about {
    gint refs;
    guint n;          /* fields */
    char text[];      /* n fields, each NUL-terminated */
};

static gboolean
field_kept(const char *field)
{
    const char *key_end = field;

    while ((*key_end >= 'a' && *key_end <= 'z') || *key_end == '_')
        key_end++;
    return key_end != field && *key_end == '=';
}

gal_about *
gal__about_new(const char *const *fields, gsize n)
{
    gsize bytes = 0;
    gal_about *about;
    char *at;

    for (gsize i = 0; i < n; i++)
        if (fields[i] && field_kept(fields[i]))
            bytes += strlen(fields[i]) + 1;
    about = g_malloc(sizeof *about + bytes);
    about->refs = 1;
    about->n = 0;
    at = about->text;
    for (gsize i = 0; i < n; i++)
        if (fields[i] && field_kept(fields[i])) {
            at = g_stpcpy(at, fields[i]) + 1;
            about->n++;
        }
    return about;
}

gal_about *
gal__about_ref(gal_about *about)
{
    if (about)
        g_atomic_int_inc(&about->refs);
    return about;
}

void
gal__about_unref(gal_about *about)
{
    if (about && g_atomic_int_dec_and_test(&about->refs))
        g_free(about);
}

char **
gal__about_fields(const gal_about *about)
{
    char **fields;
    const char *at;

    if (!about)
        return NULL;
    fields = g_new(char *, about->n + 1);
    at = about->text;
    for (guint i = 0; i < about->n; i++) {
        fields[i] = g_strdup(at);
        at += strlen(at) + 1;
    }
    fields[about->n] = NULL;
    return fields;
}

const char *
gal__about_get(const gal_about *about, const char *key)
{
    const char *at;
    size_t len = strlen(key);

    if (!about)
        return NULL;
    at = about->text;
    for (guint i = 0; i < about->n; i++) {
        if (strncmp(at, key, len) == 0 && at[len] == '=')
            return at + len + 1;
        at += strlen(at) + 1;
    }
    return NULL;
}

char *
gal__about_value_escape(const char *value)
{
    GString *out = g_string_sized_new(strlen(value) + 8);

    /* A record's text holds no control character (store.c). */
    for (const char *c = value; *c; c++)
        if (*c == '\\')
            g_string_append(out, "\\\\");
        else if ((guchar) *c < 0x20)
            g_string_append_printf(out, "\\x%02x", (guchar) *c);
        else
            g_string_append_c(out, *c);
    return g_string_free(out, FALSE);
}

char *
gal__about_value_unescape(const char *line)
{
    GString *out = g_string_sized_new(strlen(line));

    for (const char *c = line; *c; c++) {
        if (c[0] == '\\' && c[1] == '\\') {
            g_string_append_c(out, '\\');
            c++;
        }
        else if (c[0] == '\\' && c[1] == 'x' && g_ascii_isxdigit(c[2]) && g_ascii_isxdigit(c[3])) {
            g_string_append_c(out, (char) (g_ascii_xdigit_value(c[2]) * 16 +
                g_ascii_xdigit_value(c[3])));
            c += 3;
        }
        else
            g_string_append_c(out, *c);
    }
    return g_string_free(out, FALSE);
}

char **
gal_photo_about(const gal_photo_result *photo)
{
    return gal__about_fields(photo->about);
}
