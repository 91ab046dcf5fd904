/* manifest_record.h: a record made from its manifest line's fields, for
 * the manifest's reader (manifest.c); the rest of a record's functions are
 * manifest.h's. */
#ifndef GAL_MANIFEST_RECORD_H
#define GAL_MANIFEST_RECORD_H

#include "manifest.h"

/* The fields of a record's tail from its line's `f` (n of them), but for
 * its recipe and name key; FALSE (nothing kept) when they are not a
 * record's. `checked`: a preset digest found well formed already (NULL:
 * none), which f[6] need only equal: nearly every record has the one the
 * record before had. */
gboolean gal__record_fields_read(char **f, int n, gal_record_tail *t, const char *checked);
/* Can the record of these fields leave its tail in its file: an `output`
 * line that written anew would be the same bytes (its line must also
 * round-trip its escapes, which the caller knows), valid as
 * gal__record_fields_read would find it? `checked` as there. */
gboolean gal__record_stays_in_file(char **f, int n, const char *checked);
/* A record of the line at `line_at` of `file`, left there but for its
 * names and its preset's digest (`preset_digest`: a shared string, whose
 * reference it takes). */
gal_manifest_entry *gal__record_in_file_new(gal_about_file *file, gint64 line_at,
    const char *output, const char *input, char *preset_digest);
/* A record read whole from its fields and its tail `t` (taken), but for
 * its recipe, which the manifest shares. */
gal_manifest_entry *gal__record_whole_new(char **f, int n, const gal_record_tail *t);
/* Where a record left in its file keeps its preset's digest (to share). */
char **gal__record_in_file_preset(gal_manifest_entry *e);

#endif /* GAL_MANIFEST_RECORD_H */
