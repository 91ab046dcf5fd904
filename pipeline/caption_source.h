/* caption_source.h: a caption source (a sidecar, a table, an export, a part of
 * the photo's metadata) as a table of functions, as a stage is one; and what
 * the sources share.
 *
 * A source is one file, caption_<file>.c, defining `const gal_caption_source
 * gal_caption_<name>`, and one line in caption_sources.def. captions.c does
 * the rest for every source alike: the names captions.sources takes and their
 * errors, the order, the first caption wins, which sources its keys feed, what
 * a photo's caption depends on, and the rows a record keeps. */
#ifndef GAL_CAPTION_SOURCE_H
#define GAL_CAPTION_SOURCE_H

#include "internal.h"
#include "captions.h"
#include "error.h"
#include "overrides.h"

/* What a source is asked about one photo. */
typedef struct gal_caption_ask {
    const gal_photo_ref *photo;
    VipsImage *header;     /* the photo opened by libvips, for its blobs; may be NULL */
    const char *exif;      /* its EXIF caption as exif.c read it; may be NULL */
    GStringChunk *strings; /* for what is made for this photo */
} gal_caption_ask;

/* A file every photo's caption may come from (a table, a posts_N.json),
 * with its size and time taken before it was read: a file changed during
 * the read looks changed next time. The path is the source's. */
typedef struct gal_caption_file {
    const char *path;
    gint64 size, mtime_ns;
} gal_caption_file;

/* A source: its name, the key that feeds it, and functions, each optional
 * (release is needed by a source that makes a state). A source with a key
 * is prepared when the key is set, and gives nothing while it is not; one
 * without is asked with state NULL. Everything but prepare, from_string
 * and release runs on any worker at once: the state is read-only. */
typedef struct gal_caption_source {
    const char *name; /* in captions.sources, and what caption_source starts with */
    /* A name standing for other sources, tried in this order (NULL-ended);
     * such a group has no functions. */
    const char *const *members;
    /* The field of the `captions` section (a path or a list of paths) that
     * names the source's files, and the value in words, for "a table is
     * given but ...". */
    const char *key;
    const char *given;

    /* Read `files` (NULL-ended: the key's value, set at `at`) once, on the
     * main thread. *state is set even on failure (release frees it).
     * Errors go to `errs`; -1 if there was any. */
    int (*prepare)(const char *const *files, const gal_loc *at, void **state, gal_errors *errs);
    /* The same for one file's bytes in memory, as if read from `name`
     * (tests, fuzz targets); *state may be NULL on entry. */
    int (*from_string)(void **state, const char *name, const char *bytes, gsize len,
        gal_errors *errs);
    /* What was read, after the section's values: " (table: 7 rows)". */
    void (*describe)(const void *state, GString *out);

    /* The caption the source has for the photo (NULL: none) and the file it
     * is in, if it names one: caption_source is then "NAME:FILE", else
     * "NAME". Both borrowed from `state` or `ask->strings`. Fails for this
     * photo alone. */
    int (*caption)(const void *state, const gal_caption_ask *ask, const char **caption,
        const char **file, gal_error *err);
    /* Append (new strings) the files of this photo alone that its caption
     * could come from, whether they exist or not. */
    void (*own_files)(const void *state, const char *photo, GPtrArray *paths);
    /* Append the files every photo shares that prepare read (each a
     * borrowed const gal_caption_file *), in the order read; and the
     * caption one of them gives `photo` (NULL: none), for its row. */
    void (*shared_files)(const void *state, GPtrArray *files);
    const char *(*row)(const void *state, const gal_caption_file *file, const char *photo);
    /* Merge into *out the overrides (overrides.h) the source has for
     * `photo` besides its caption: a table's override columns. */
    void (*overrides)(const void *state, const char *photo, gal_overrides *out);
    /* Does it hold any (a table with override cells)? */
    gboolean (*has_overrides)(const void *state);
    void (*release)(void *state);
} gal_caption_source;

/* Every source, from caption_sources.def; NULL-ended. */
extern const gal_caption_source *const gal__caption_sources[];

/* ---- what the sources share (caption_source.c) ---------------------------------------- */

/* A file name folded for matching: whatever its Unicode normal form and
 * letter case, IMG_0001.JPG and IMG_0001.jpg are the same photo. */
char *gal__caption_fold(const char *name);
/* The name without its extension. */
char *gal__caption_stem(const char *name);
/* The value for a photo's file name in a table keyed by folded names: the
 * whole name first, then its stem. `also` (may be NULL) has the same keys:
 * its value for the key that matched goes to *also_out. */
const char *gal__caption_lookup(GHashTable *table, const char *path, GHashTable *also,
    gconstpointer *also_out);
/* `text` with line ends as \n and surrounding white space removed, in
 * `strings`; NULL when nothing is left. */
const char *gal__caption_keep(GStringChunk *strings, const char *text);

/* Locating places in a text mostly in increasing order (a table's rows):
 * each call counts only the text since the one before, so that locating
 * every row is linear in the table, not quadratic. */
typedef struct gal_caption_cursor {
    const char *file, *text;
    const char *done; /* lines counted up to here */
    const char *line; /* where the line of `done` starts */
    int n;            /* its number, 1-based */
} gal_caption_cursor;

gal_caption_cursor gal__caption_cursor(const char *file, const char *text);
/* Line and column (1-based, in characters) of `at` within the text. */
gal_loc gal__caption_cursor_loc(gal_caption_cursor *cur, const char *at);
gal_loc gal__caption_loc_at(const char *file, const char *text, const char *at);

/* A whole shared file (found by the preset, so within its folder) as
 * UTF-8 text, a leading BOM dropped, its size and time noted in *noted
 * first; at most `max` bytes. NULL with an error for `what` (its key, at
 * `from`, or at the first byte that is not UTF-8) in `errs`. */
char *gal__caption_read_text(const char *path, gsize max, const char *what,
    const gal_loc *from, gal_caption_file *noted, gsize *len, gal_errors *errs);
/* The same for bytes in memory, as if read from a file named `name`. */
char *gal__caption_copy_text(const char *name, const char *bytes, gsize *len, const char *what,
    gal_errors *errs);

#endif /* GAL_CAPTION_SOURCE_H */
