/* about.h: what a site shows of a photo ("key=value" each: a record's
 * `about`, gal_photo_result.about), shared by a record and the results
 * that report it (reference-counted, immutable once made, one allocation:
 * a rerun of many photos holds one each). */
#ifndef GAL_ABOUT_H
#define GAL_ABOUT_H

#include <glib.h>

typedef struct gal_about gal_about;

/* From `n` fields (copied); those that are not "key=value" with a key
 * of lower-case letters and '_' are left out (a record is untrusted). */
gal_about *gal__about_new(const char *const *fields, gsize n);
gal_about *gal__about_ref(gal_about *about);   /* NULL stays NULL */
void gal__about_unref(gal_about *about);       /* NULL: nothing */
/* Its fields: a new NULL-terminated array (g_strfreev); NULL for NULL. */
char **gal__about_fields(const gal_about *about);
/* The value of field `key` (a pointer into `about`), or NULL. */
const char *gal__about_get(const gal_about *about, const char *key);
/* A value that may hold control characters (a line break, a separator),
 * as a record's text may hold it ('\\' as two, each control character as
 * \xHH), and back. New strings. */
char *gal__about_value_escape(const char *value);
char *gal__about_value_unescape(const char *line);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(gal_about, gal__about_unref)

#endif /* GAL_ABOUT_H */
