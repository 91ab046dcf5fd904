/* overrides.h: what one photo asks for itself (overrides.c), from the YAML
 * sidecar beside it (IMG_1.jpg.yaml, else IMG_1.yaml) or its row of the
 * captions table: a point to keep in a crop, no watermark, its own
 * caption, alt text and a long description. The keys and their checks are
 * one table, for the sidecar and the table's columns alike. */
#ifndef GAL_OVERRIDES_H
#define GAL_OVERRIDES_H

#include "internal.h"
#include "captions.h"
#include "error.h"
#include "node.h"

/* Each field unset unless the photo's file or row said it. */
typedef struct gal_overrides {
    gboolean has_focus;
    double focus_x, focus_y;   /* 0..1 of the width and height, the photo upright */
    int watermark;             /* -1: not said; 0: none on this photo; 1: as the preset says */
    const char *caption;       /* replaces the caption captions.sources found */
    const char *alt;           /* the gallery's alt text */
    const char *description;   /* a long description, for the report */
} gal_overrides;

#define GAL_OVERRIDES_NONE ((gal_overrides) { .watermark = -1 })

/* The captions table's columns that hold overrides, by their header
 * names (NULL-ended): "focus", "watermark", "alt", "description". */
#define GAL_OVERRIDE_COLUMNS 4
extern const char *const gal__override_columns[GAL_OVERRIDE_COLUMNS + 1];

/* Both names the photo's sidecar may have, in the order tried, appended
 * to `paths` (new strings), whether they exist or not: an output depends
 * on both. The stem's name is left out when it is an album's album.yaml. */
void gal__overrides_files(const char *photo, GPtrArray *paths);

/* Read the photo's sidecar into *out (left as it is when there is none),
 * within photo->root as a caption sidecar is; *file (may be NULL) is set
 * to its path, in `strings`. A sidecar that cannot be read or says
 * anything but the keys above, each as its type, fails the photo with
 * the place in it: "IMG_1.yaml:3:8", key "focus". Thread-safe. */
int gal__overrides_sidecar(const gal_photo_ref *photo, GStringChunk *strings,
    gal_overrides *out, const char **file, gal_error *err);

/* The same from YAML text in memory, as if read from a file named `name`
 * (kept: it names the error's place). */
int gal__overrides_from_text(const char *name, const char *text, gsize len,
    GStringChunk *strings, gal_overrides *out, gal_error *err);

/* One override from a cell of the table: `column` one of
 * gal__override_columns, `text` its cell (a focus as "0.3 0.6",
 * "0.3,0.6" or "[0.3, 0.6]"), `at` its place. An empty cell says nothing. */
int gal__override_cell(const char *column, const char *text, const gal_loc *at,
    GStringChunk *strings, gal_overrides *out, gal_error *err);

/* `over` on top of `base`: each field `over` sets replaces base's. */
void gal__overrides_merge(gal_overrides *base, const gal_overrides *over);

/* A digest line of what is set ("focus=0.3,0.6\nwatermark=0\n..."), for
 * a table row's digest: a new string, NULL when nothing is set. */
char *gal__overrides_text(const gal_overrides *o);

#endif /* GAL_OVERRIDES_H */
