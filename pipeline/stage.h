/* stage.h: the stage descriptor every stage_*.c fills in, what a stage sees of
 * a photo, and the stage registry (stages.def). */
#ifndef GAL_STAGE_H
#define GAL_STAGE_H

#include <string.h>

#include "internal.h"
#include "cancel.h"
#include "schema.h"
#include "template.h"

typedef enum gal_stage_kind {
    GAL_STAGE_MAP,    /* one photo in, one photo out */
    GAL_STAGE_GATHER, /* many in, one out (contact sheets) */
} gal_stage_kind;

/* The order a gathering stage wants photos in; ties by path. By date:
 * the date taken, photos without one last; newest: the same, newest
 * first (undated still last). */
typedef enum gal_sort {
    GAL_SORT_NAME,
    GAL_SORT_DATE,
    GAL_SORT_INPUT,
    GAL_SORT_NEWEST,
} gal_sort;

/* An album of a stage that makes pages per album (gal_stage_def.albums):
 * a folder of the input folder, its photos and its sub-albums, with what
 * its album.yaml says (album.c). Built by gather.c; read-only to stages. */
typedef struct gal_album {
    const char *path;        /* within the input folder: "" the top, "2025/spain" */
    const char *title;       /* album.yaml's, or NULL: the stage names it */
    const char *description; /* album.yaml's Markdown as safe HTML, or NULL */
    const char *summary;     /* the same as plain text (a feed's, a card's meta), or NULL */
    const char *cover;       /* album.yaml's: a photo's file name, or NULL */
    gal_loc cover_loc;       /* where album.yaml gave it */
    const char *date;        /* album.yaml's, YYYY-MM-DD, or NULL */
    int parent;              /* index in the albums; -1: the top */
    const int *children;     /* the sub-albums' indices, in order */
    int n_children;
    VipsImage *const *items; /* its own photos' items in order; NULL: failed */
    int n_items;
    /* With gal_stage_def.originals: its own photos' originals as the site
     * publishes them, as the items (beneath the site, new for each run;
     * NULL: not a JPEG, not published), and their input files. NULL
     * otherwise. Known from the plan: a dry run has them. */
    const char *const *originals;
    const char *const *sources;
    int pages;               /* pages of its own (at least 1) */
    const gal_error *error;  /* album.yaml is wrong: its pages fail with it */
} gal_album;

/* One page of a gathering stage's output. */
typedef struct gal_page {
    int number, pages; /* 1-based, within the album when there are albums */
    int count;         /* photos in the run */
    const char *preset;
    /* Pages per album (gal_stage_def.albums): every album, the top first,
     * and this page's. NULL, 0: no albums. */
    const gal_album *albums;
    int n_albums;
    int album;
    /* site_files only: the output folder, where the photos' files are. */
    const char *site_dir;
} gal_page;

/* A zip the site offers (a gallery's album.zip): the files it stores as
 * they are, described, not made. The engine (gather.c) makes it only when
 * what it holds differs from what it held when last made. Or, with
 * `source`, a photo's original the site offers, published under the
 * preset's metadata policy (original.h), made only when the input file,
 * the policy or gallop changed. */
typedef struct gal_site_zip {
    char *name;          /* beneath the site */
    char *source;        /* an original: its input file (paths, entries NULL); else NULL */
    GPtrArray *paths;    /* char *: the files, beneath the site (site_dir) */
    GPtrArray *entries;  /* char *: their names in the zip */
    gint64 mtime;        /* every entry's date, seconds */
    /* SHA-256 (hex) of what it holds: each entry's name, file and the
     * file's SHA-256, and the date; "" when a file's digest is not known
     * (it is then made every time). */
    char contents[65];
} gal_site_zip;

static inline void
gal__site_zip_clear(gal_site_zip *zip)
{
    g_free(zip->name);
    g_free(zip->source);
    if (zip->paths)
        g_ptr_array_unref(zip->paths);
    if (zip->entries)
        g_ptr_array_unref(zip->entries);
}

typedef struct gal_rect {
    int x, y, w, h;
} gal_rect;

/* Contact-sheet layouts (pure): where each of `n` photos of the given
 * aspects (width / height) goes. Grid: `columns` cells of `tile` x
 * tile*cell_ratio plus `label_height`, photos fitted inside (or filling
 * with `crop`); the sheet is sized for `slots` cells (at least n), so the
 * short last page of a set is as large as the others. Justified: rows `row_height` high scaled to fill
 * `sheet_width`, the last row left at the target height. */
void gal__sheet_grid(int n, int slots, const double *aspects, int columns, int tile,
    double cell_ratio, int gap, int label_height, gboolean crop, gal_rect *cells, int *width,
    int *height);
/* A contact-sheet label made to fit `max_width` pixels in one line at
 * `size` px: whole, or cut in the middle with "…", keeping the index at
 * its start and the end of the file name. A new string; NULL with `err`
 * set when the text cannot be laid out, or when not even "…" fits. */
char *gal__sheet_label_fit(const char *label, double size, int max_width,
    const gal_color *background, gal_error *err);
void gal__sheet_justified(int n, const double *aspects, int sheet_width, int row_height, int gap,
    int label_height, gal_rect *cells, int *height);

/* What a stage sees of itself: its options, its prepared shared data (both
 * immutable after load) and where in the preset it was configured. */
/* What a stage sees of the photo in hand; read-only. Facts a stage leaves
 * for later ones (a band's rows) or for the engine (the caption it
 * showed) travel on the image it makes, as GAL_META_* fields: stages share
 * no state. */
typedef struct gal_photo {
    const gal_facts *facts; /* what templates can show ({index}: its place in a sheet) */
    gal_watch *watch;       /* its budget: copies to memory go through it */
} gal_photo;

/* Rows at the top and bottom of the image that a band took (caption-burn
 * at an edge): later overlays keep out of them. */
#define GAL_META_RESERVED_TOP "gal-reserved-top"
#define GAL_META_RESERVED_BOTTOM "gal-reserved-bottom"
/* The caption a stage showed, and 1 when it cut it (max-lines, no room). */
#define GAL_META_CAPTION "gal-caption"
#define GAL_META_CAPTION_CUT "gal-caption-cut"
/* A contact-sheet tile's label. */
#define GAL_META_LABEL "gal-label"
/* What a stage wants the user told about this photo although its output is
 * made (a mark too small to read), one line each: the engine adds them to
 * the photo's result (gal_photo_result.warnings). */
#define GAL_META_WARNINGS "gal-warnings"
/* The files an item stands for (job.h: gal__item_set_outputs). */
#define GAL_META_OUTPUTS "gal-outputs"
/* The SHA-256 of those files, as their records keep them, one line per file
 * known: "REL\tSHA256" (job.h: gal__item_add_digest). */
#define GAL_META_DIGESTS "gal-digests"
/* An item made from its photo's record, not its pixels (job.h:
 * gal__item_from_about): the placeholder and colour a page shows, as
 * gal__glance_placeholder and gal__glance_color gave them. */
#define GAL_META_PLACEHOLDER "gal-placeholder"
/* The photo's original as the site publishes it (gal_album.originals),
 * set on its item by the engine (gather.c); none: not published. */
#define GAL_META_ORIGINAL "gal-original"
/* The content digest of the photo's input file (hex, as its plan holds
 * it; the engine sets it on every item): what its published original is
 * made from, wherever the tree has moved. */
#define GAL_META_SOURCE_DIGEST "gal-source-digest"
#define GAL_META_COLOR "gal-color"

/* An int field of the image, 0 when it has none. */
static inline int
gal__meta_int(VipsImage *image, const char *field)
{
    int value;

    if (!vips_image_get_typeof(image, field) || vips_image_get_int(image, field, &value))
        return 0;
    return value;
}

/* Add `line` to the image's GAL_META_WARNINGS. The image must be the
 * stage's own (a copy), never an operation's output that libvips' cache
 * may hand to another caller. */
static inline void
gal__meta_warn(VipsImage *image, const char *line)
{
    const char *before = NULL;
    char *all;

    if (vips_image_get_typeof(image, GAL_META_WARNINGS))
        vips_image_get_string(image, GAL_META_WARNINGS, &before);
    all = before && *before ? g_strconcat(before, "\n", line, NULL) : g_strdup(line);
    vips_image_set_string(image, GAL_META_WARNINGS, all);
    g_free(all);
}

typedef struct gal_stage_ctx {
    const void *opts;
    const void *shared;
    gal_loc loc;
    /* prepare() only: files the stage names (a font) may be reached
     * through links out of the preset's folder (--follow-symlinks). */
    gboolean follow_links;
    /* check() and prepare(): where each key of the stage's params table
     * was given (its value's place, line 0 for a --set value; no file:
     * not given, the default), one per param in table order; NULL: not
     * known. Read it through gal__stage_key_loc. */
    const gal_loc *locs;
} gal_stage_ctx;

/* Where the stage's key `field` (its params table's field name) was given,
 * for errors about that value: the value's file, line and column (a --set
 * value: its argument, line 0), or the stage's own place when the key was
 * not given (its default) or is not known. Borrowed from `sc`. */
static inline const gal_loc *
gal__stage_key_loc(const gal_stage_ctx *sc, const gal_param *params, const char *field)
{
    for (const gal_param *p = params; sc->locs && p->field; p++)
        if (strcmp(p->field, field) == 0)
            return sc->locs[p - params].file ? &sc->locs[p - params] : &sc->loc;
    return &sc->loc;
}


typedef struct gal_stage_def {
    const char *name;        /* preset key */
    const char *summary;     /* one line for `gallop stages` */
    const gal_param *params; /* schema, ends with GAL_PARAM_END */
    size_t opts_size;
    gal_stage_kind kind;
    /* Keys that only one of the GAL_ALTERNATIVE keys uses (a text mark's
     * font and colour): that alternative's key first, then them, NULL
     * last. A preset choosing another alternative over a parent's (extends,
     * --set) drops them with it. Optional. */
    const char *const *alternative_keys;
    /* Rules that involve several keys; optional. */
    int (*check)(const gal_stage_ctx *sc, gal_error *err);
    /* Costly per-preset work, once, on the main thread; optional. */
    int (*prepare)(const gal_stage_ctx *sc, void **shared, gal_error *err);
    void (*release)(void *shared);
    /* When this stage comes first: the size (oriented, in pixels) the photo
     * should be decoded at, so loaders can shrink on load. Optional. */
    void (*load_size)(const gal_stage_ctx *sc, int width, int height,
        int *load_width, int *load_height);
    int (*build)(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in,
        VipsImage **out, gal_error *err);
    /* GATHER stages. gather_plan: photos per page (0: one page) and order.
     * tap: this photo's item (small, in memory) from the image as the
     * earlier stages left it; the photo goes on unchanged. build_many: one
     * page from its items, in order. page_name: the page's file name
     * (number, pages and album of `page`; no items). */
    void (*gather_plan)(const gal_stage_ctx *sc, int *per_page, gal_sort *sort);
    int (*tap)(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in, VipsImage **item,
        gal_error *err);
    /* The text tap() attaches to an item (GAL_META_LABEL), from the
     * photo's facts alone: the merge of a sharded run labels the items the
     * shards kept with it. NULL: none. */
    char *(*label)(const gal_stage_ctx *sc, const gal_facts *facts);
    int (*build_many)(const gal_stage_ctx *sc, VipsImage **in, int n, const gal_page *page,
        VipsImage **out, gal_error *err);
    char *(*page_name)(const gal_stage_ctx *sc, const gal_page *page);
    /* Instead of build_many, for pages that are text (the gallery's
     * HTML): the page's bytes, written as they are (*text a new GString). */
    int (*build_text)(const gal_stage_ctx *sc, VipsImage **in, int n, const gal_page *page,
        GString **text, gal_error *err);
    /* With albums: files made once over the whole site besides its pages
     * (a gallery's sitemap and feed), each a name appended to `names`
     * (char *, new) and its bytes to `texts` (GString *, new), from the
     * site (`site`: the top album's first page, every album). Optional. */
    int (*site_files)(const gal_stage_ctx *sc, const gal_page *site, GPtrArray *names,
        GPtrArray *texts, gal_error *err);
    /* With albums: the zips the site offers, each appended to `zips`
     * (gal_site_zip, new), from the site as site_files has it. An album's
     * zip is listed even when none of its items is in (a dry run's plan
     * has none), with no files then. Optional. */
    int (*site_zips)(const gal_stage_ctx *sc, const gal_page *site, GArray *zips,
        gal_error *err);
    /* With albums: does the stage offer its photos' originals (it then
     * lists them with its zips, by gal_album.originals)? Optional. */
    gboolean (*originals)(const gal_stage_ctx *sc);
    /* Pages per album: each folder of the input folder an album with
     * pages of its own (gal_page.albums), its album.yaml read; pages are
     * made once every photo is in (a page shows its sub-albums' covers). */
    gboolean albums;
} gal_stage_def;

/* Resize geometry, shared by stage_resize.c and its tests. */
typedef enum gal_fit {
    GAL_FIT_COVER,
    GAL_FIT_CONTAIN,
    GAL_FIT_INSIDE,
    GAL_FIT_FILL,
} gal_fit;

typedef enum gal_crop {
    GAL_CROP_CENTRE,
    GAL_CROP_ENTROPY,
    GAL_CROP_ATTENTION,
} gal_crop;

/* Scale to width x height, then crop to crop_* (if non-zero, cover) or pad
 * to canvas_* (if non-zero, contain). For cover, width x height is the
 * whole photo scaled, which for a thin strip is far beyond what libvips can
 * make (a 1x5000 strip covering 1080x1350 is 1080 x 5400000): it only gives
 * the scale and the coordinates the crop window is placed in, and only the
 * window is ever made (see gal__resize_span). */
typedef struct gal_resize_plan {
    gint64 width, height;
    int crop_width, crop_height;
    int canvas_width, canvas_height;
} gal_resize_plan;

/* `width`/`height` 0 = not given. Pure: no image involved. */
void gal__resize_plan(gal_fit fit, int width, int height, gboolean upscale, int in_width,
    int in_height, gal_resize_plan *plan);

/* One axis of a cover crop, mapped back to the source. The photo, `length`
 * pixels long on this axis, scaled to `scaled_length` keeps the pixels
 * [keep_start, keep_start + keep_length) of that. *span says which source
 * pixels to read, [start, start + length) (inside the source, at least one),
 * what to scale them to (`scaled`), and where the kept pixels then start
 * (`offset`, with offset + keep_length <= scaled). The read reaches past
 * the kept pixels by the Lanczos 3 kernel's reach, so the kept pixels are
 * those of the whole photo scaled; and it starts on a source pixel that
 * falls on a whole scaled pixel whenever that costs little, so they are
 * exactly those, not shifted by a fraction (otherwise by at most half a
 * pixel). Pure. */
typedef struct gal_resize_span {
    int start, length;
    int scaled;
    int offset;
} gal_resize_span;

void gal__resize_span(int length, gint64 scaled_length, gint64 keep_start, int keep_length,
    gal_resize_span *span);


/* The registered stages, in stages.def order, NULL-terminated. */
extern const gal_stage_def *const gal__stages[];
const gal_stage_def *gal__stage_find(const char *name);

#endif /* GAL_STAGE_H */
