/* original.h: a photo's original file as a gallery publishes it, under
 * the metadata policy (original.c). */
#ifndef GAL_ORIGINAL_H
#define GAL_ORIGINAL_H

#include <glib.h>

#include "gallop.h"
#include "metadata.h"

/* The policy an original is published under: output.metadata, its
 * remove-location and remove-person (GAL_REMOVE_*), the Software line and
 * the preset's credits (may be NULL), as the photo's outputs have them. */
typedef struct gal_original_policy {
    char *const *metadata;
    unsigned removes;
    const char *software;
    const gal_credits *credits;
} gal_original_policy;

/* Can an original of this format be published under a policy without
 * decoding it? JPEG only (its metadata are segments before the image
 * data); another format is linked by its largest output instead. */
gboolean gal__original_publishable(const guchar *head, size_t len);
/* The same of a file, from its first bytes; FALSE when it cannot be read. */
gboolean gal__original_file_publishable(const char *path);

/* Append to `out` the JPEG `jpeg` as published under `policy`: the same
 * bytes when the policy keeps everything; else its image data as they are
 * (the same pixels, the scan byte for byte, the colour profile kept) with
 * the metadata the policy leaves (gal__metadata_apply, of the file's
 * header alone) in place of its own, its Orientation as stored. -1 with
 * `err` for a file that is not a whole JPEG (GAL_ERR_INPUT) or metadata
 * that do not fit. */
int gal__original_publish(const guchar *jpeg, size_t len, const gal_original_policy *policy,
    GByteArray *out, gal_error *err);

#endif /* GAL_ORIGINAL_H */
