/* captions.h: where {caption} comes from: sidecars, a table, an Instagram export,
 * the photo's own metadata, each a caption source (caption_source.h). */
#ifndef GAL_CAPTIONS_H
#define GAL_CAPTIONS_H

#include "internal.h"
#include "node.h"
#include "schema.h"
#include "template.h"

/* The `captions` section, loaded: its options plus the table and Instagram
 * export it names, read once into memory. Immutable after load. */
typedef struct gal_captions gal_captions;

extern const gal_section gal__captions_section;


/* A photo as the run found it. Sidecars beside it are read within `root`
 * (the input folder it was found in; NULL: its own folder): links there
 * may not lead out of it unless `follow_links`. */
typedef struct gal_photo_ref {
    const char *path;
    const char *root;
    gboolean follow_links;
} gal_photo_ref;

/* Fill the section from the preset's `captions` mapping (NULL: defaults),
 * check it and read the table and export it names (within the preset's
 * folder unless `follow_links`). Every error goes to
 * `errs`, with the table's or export's own file:line:col where the fault is
 * in them; returns -1 if there was any. *out is set either way (free it
 * with gal__captions_free). Main thread only. */
int gal__captions_load(const gal_node *map, gboolean follow_links, gal_captions **out,
    gal_errors *errs);
void gal__captions_free(gal_captions *captions);
/* "sources=[...] table=... instagram=[...]" and what was read. */
void gal__captions_describe(const gal_captions *captions, GString *out);
/* The section's options, to describe or digest with gal__captions_section. */
const void *gal__captions_options(const gal_captions *captions);

/* Set facts->caption, and facts->caption_source to where it came from
 * ("sidecar:PATH", "table:PATH", "instagram:PATH", "exif", "xmp" or "iptc",
 * in `strings` or static), from the first source that has a caption for
 * the photo at `path`; both NULL when none has. On entry facts->caption
 * holds the EXIF caption; `header` (may be NULL) is the photo opened by
 * libvips, for its XMP and IPTC blobs. Fails, for this photo only, when its
 * sidecar is not UTF-8 text. Thread-safe. */
int gal__caption_resolve(const gal_captions *captions, const gal_photo_ref *photo,
    VipsImage *header, gal_facts *facts, GStringChunk *strings, gal_error *err);

/* What the photo asks for itself (overrides.h) into `facts`: alt text,
 * description and a focus point from its XMP (IPTC's Alt Text
 * (Accessibility), Extended Description; MWG regions), then from its row
 * of the captions table, then from its own sidecar (IMG_1.jpg.yaml, else
 * IMG_1.yaml), each over the one before; a sidecar's caption replaces the
 * one gal__caption_resolve found (caption_source "sidecar:PATH"). After
 * gal__caption_resolve. Fails, for this photo only, when its sidecar
 * cannot be read or is wrong (the message names its file:line:col and
 * key). Thread-safe. */
int gal__caption_overrides(const gal_captions *captions, const gal_photo_ref *photo,
    VipsImage *header, gal_facts *facts, GStringChunk *strings, gal_error *err);

/* Does a source every photo shares give overrides (a table with override
 * cells)? Then each photo's row of it shapes the photo, caption shown or not. */
gboolean gal__captions_give_overrides(const gal_captions *captions);

/* Add to `paths` (a g_free'ing array of paths, each once) every file
 * outside the photo at `photo` that its caption could come from, source by
 * source in the order of captions.sources: both sidecar names (there or
 * not), the table, the export's files. An output that shows {caption}
 * depends on them. */
void gal__caption_files(const gal_captions *captions, const char *photo, GPtrArray *paths);

/* The files of this photo alone in gal__caption_files (its sidecars). */
void gal__caption_own_files(const gal_captions *captions, const char *photo, GPtrArray *paths);

/* A file every photo's caption may come from (the table, a posts_N.json of
 * the export), and what it gives one photo: an output that shows
 * {caption} depends on that, not on the whole file, so editing one row
 * rebuilds only the photos whose row changed. */
#define GAL_CAPTION_ROW_LEN 24
typedef struct gal_caption_row {
    const char *path;          /* borrowed from the captions */
    gint64 size, mtime_ns;     /* the file's, as read when the preset loaded */
    char digest[GAL_CAPTION_ROW_LEN]; /* "row:" + 16 hex digits, of its caption or of none */
} gal_caption_row;
/* The rows of every such file for the photo at `photo`, appended to
 * `rows` (of gal_caption_row). */
void gal__caption_rows(const gal_captions *captions, const char *photo, GArray *rows);
/* The row of one file for the photo; FALSE when `file` is not one the
 * captions read (another table now). */
gboolean gal__caption_row(const gal_captions *captions, const char *file, const char *photo,
    gal_caption_row *row);

/* Instagram's mojibake undone (caption_instagram.c), for tests: a new
 * string. */
char *gal__mojibake_repair(const char *text);

/* Read one file of the source named `source` ("table", "instagram") from
 * `len` bytes in memory (any bytes: they are checked as the file's would
 * be), as if from a file named `name` (for errors and, for a table, its
 * extension). A table replaces any earlier one; an export's posts are
 * added. Errors go to `errs`, with `name`:line:col; returns -1 if there
 * was any. For `c` from gal__captions_load; main thread only. For tests
 * and fuzz targets. */
int gal__captions_from_string(gal_captions *c, const char *source, const char *name,
    const char *bytes, gsize len, gal_errors *errs);

#endif /* GAL_CAPTIONS_H */
