/* about.c: what a site shows of a photo (about.h). */
#include <string.h>

#include "internal.h"
#include "about.h"

struct gal_about {
    gint refs;
    char **fields;
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
    gal_about *about = g_new0(gal_about, 1);
    GPtrArray *kept = g_ptr_array_sized_new((guint) n + 1);

    for (gsize i = 0; i < n; i++)
        if (fields[i] && field_kept(fields[i]))
            g_ptr_array_add(kept, g_strdup(fields[i]));
    g_ptr_array_add(kept, NULL);
    about->refs = 1;
    about->fields = (char **) g_ptr_array_free(kept, FALSE);
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
    if (!about || !g_atomic_int_dec_and_test(&about->refs))
        return;
    g_strfreev(about->fields);
    g_free(about);
}

const char *const *
gal__about_fields(const gal_about *about)
{
    return about ? (const char *const *) about->fields : NULL;
}

char **
gal_photo_about(const gal_photo_result *photo)
{
    return g_strdupv((char **) gal__about_fields(photo->about));
}
