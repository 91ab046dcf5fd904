/* internal.h: shared by the pipeline sources and the tests; never included by cmd/.
 *
 * Holds the preset node tree (YAML parsed into located nodes), the schema
 * types that turn nodes into typed option structs, the stage descriptor
 * every stage_*.c fills in, and the per-photo job.
 */
#ifndef GAL_INTERNAL_H
#define GAL_INTERNAL_H

#include <glib.h>
#include <vips/vips.h>

#include "gallop.h"
#include "error.h"
#include "cancel.h"
#include "fsio.h"

/* libvips declares g_autoptr cleanups for its types only from 8.16 on. */
#if VIPS_MAJOR_VERSION == 8 && VIPS_MINOR_VERSION < 16
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VipsImage, g_object_unref)
#endif

static inline void
gal__array_double_unref(VipsArrayDouble *array)
{
    vips_area_unref(VIPS_AREA(array));
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VipsArrayDouble, gal__array_double_unref)

static inline void
gal__array_int_unref(VipsArrayInt *array)
{
    vips_area_unref(VIPS_AREA(array));
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VipsArrayInt, gal__array_int_unref)

#define GAL_FREE(p) G_STMT_START { g_free(p); (p) = NULL; } G_STMT_END

/* ---- preset node tree ---------------------------------------------------- */

typedef enum gal_node_kind {
    GAL_NODE_SCALAR,
    GAL_NODE_MAP,
    GAL_NODE_SEQ,
} gal_node_kind;

/* A YAML node with its location. Scalars keep their text untyped: the
 * schema decides what they mean. `is_null` marks a plain `~`, `null` or
 * empty scalar, which resets a key to its default when merging. */
typedef struct gal_node {
    gal_node_kind kind;
    gal_loc loc;
    char *text;          /* SCALAR */
    gboolean is_null;    /* SCALAR */
    GPtrArray *keys;     /* MAP: gal_node * scalars (key text and location) */
    GPtrArray *items;    /* MAP values / SEQ items: gal_node * */
} gal_node;

gal_node *gal__node_new(gal_node_kind kind, const gal_loc *loc);
gal_node *gal__node_new_scalar(const char *text, const gal_loc *loc);
void gal__node_free(gal_node *node);
gal_node *gal__node_copy(const gal_node *node);
/* MAP helpers: the value for `key` (NULL if absent); set replaces or appends
 * and takes ownership of `key_node` and `value`. */
gal_node *gal__node_get(const gal_node *map, const char *key);
const gal_node *gal__node_key(const gal_node *map, const char *key);
void gal__node_set(gal_node *map, gal_node *key_node, gal_node *value);
void gal__node_remove(gal_node *map, const char *key);
/* Merge `over` into `base` key by key (maps recursively; anything else is
 * replaced; a null scalar removes the key). Takes ownership of `over`. */
void gal__node_merge(gal_node *base, gal_node *over);

/* ---- schema --------------------------------------------------------------- */

typedef enum gal_type {
    GAL_T_BOOL,     /* gboolean */
    GAL_T_INT,      /* int */
    GAL_T_DOUBLE,   /* double */
    GAL_T_STRING,   /* char * */
    GAL_T_PATH,     /* char *: an existing file, resolved against the preset */
    GAL_T_DIR,      /* char *: a folder (need not exist), resolved likewise */
    GAL_T_ENUM,     /* int: index into `choices` */
    GAL_T_COLOR,    /* gal_color */
    GAL_T_LENGTH,   /* gal_length: "12", "12px" or "3.5%" */
    GAL_T_SIZE,     /* gal_size: a length, or {relative: 15%, min: 64, max: 400} */
    GAL_T_STRLIST,  /* char ** (NULL-terminated): a list, or one scalar */
    GAL_T_PATHLIST, /* char **: list of folders/files resolved against the preset */
    GAL_T_TEMPLATE, /* gal_template *: text with {fields}, checked at load */
} gal_type;

typedef struct gal_color {
    double r, g, b, a; /* 0..255 each */
} gal_color;

typedef struct gal_length {
    double value;
    gboolean relative; /* TRUE: `value` is a percentage */
} gal_length;

/* A length with pixel bounds: `relative` clamped to [min_px, max_px]
 * (0 = no bound). */
typedef struct gal_size {
    gal_length length;
    int min_px, max_px;
} gal_size;

#define GAL_REQUIRED 0x1u /* the key must be given */

/* One key of a stage or section. The preset key is the C field name with
 * '_' written as '-' (field `max_lines` is key `max-lines`). `def` is the
 * default written as preset text and parsed by the same code as user
 * values; NULL means "unset" (zero / NULL field). */
typedef struct gal_param {
    const char *field;
    gal_type type;
    size_t offset;
    const char *help;
    const char *def;
    double min, max;             /* INT, DOUBLE, LENGTH(px): inclusive range;
                                  * TEMPLATE: most characters (0: any) */
    const char *const *choices;  /* ENUM: NULL-terminated names */
    unsigned flags;
} gal_param;

#define GAL_PARAM_(type_, st, f, help_, def_, min_, max_, choices_, flags_) \
    { #f, type_, G_STRUCT_OFFSET(st, f), help_, def_, min_, max_, choices_, flags_ }
#define GAL_PARAM_BOOL(st, f, help, def) \
    GAL_PARAM_(GAL_T_BOOL, st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_INT(st, f, help, def, min, max) \
    GAL_PARAM_(GAL_T_INT, st, f, help, def, min, max, NULL, 0)
#define GAL_PARAM_DOUBLE(st, f, help, def, min, max) \
    GAL_PARAM_(GAL_T_DOUBLE, st, f, help, def, min, max, NULL, 0)
#define GAL_PARAM_STRING(st, f, help, def) \
    GAL_PARAM_(GAL_T_STRING, st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_PATH(st, f, help, flags) \
    GAL_PARAM_(GAL_T_PATH, st, f, help, NULL, 0, 0, NULL, flags)
#define GAL_PARAM_DIR(st, f, help, def) \
    GAL_PARAM_(GAL_T_DIR, st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_ENUM(st, f, help, def, choices) \
    GAL_PARAM_(GAL_T_ENUM, st, f, help, def, 0, 0, choices, 0)
#define GAL_PARAM_COLOR(st, f, help, def) \
    GAL_PARAM_(GAL_T_COLOR, st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_LENGTH(st, f, help, def, max_px) \
    GAL_PARAM_(GAL_T_LENGTH, st, f, help, def, 0, max_px, NULL, 0)
#define GAL_PARAM_SIZE(st, f, help, def, max_px) \
    GAL_PARAM_(GAL_T_SIZE, st, f, help, def, 0, max_px, NULL, 0)
#define GAL_PARAM_STRLIST(st, f, help, def) \
    GAL_PARAM_(GAL_T_STRLIST, st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_PATHLIST(st, f, help, def) \
    GAL_PARAM_(GAL_T_PATHLIST, st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_TEMPLATE(st, f, help, def) \
    GAL_PARAM_(GAL_T_TEMPLATE, st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_TEMPLATE_MAX(st, f, help, def, max_chars) \
    GAL_PARAM_(GAL_T_TEMPLATE, st, f, help, def, 0, max_chars, NULL, 0)
#define GAL_PARAM_END { NULL, 0, 0, NULL, NULL, 0, 0, NULL, 0 }

/* A table of params plus the struct it fills: a stage's options, or a
 * top-level section such as `output`. */
typedef struct gal_section {
    const char *name;
    const char *summary;
    const gal_param *params;
    size_t opts_size;
} gal_section;

/* Fill a new options struct from `map` (may be NULL: all defaults).
 * `where` prefixes key paths in errors ("resize", "output"). Every error is
 * added to `errs`; returns -1 if there was any. `locs` (may be NULL)
 * receives a gal_loc per param, where its value came from. */
int gal__schema_fill(const gal_section *sec, const gal_node *map,
    void **opts_out, gal_loc *locs, gal_errors *errs);
void gal__schema_free(const gal_section *sec, void *opts);
/* Check every file a section's file and path-list values name (PATH,
 * PATHLIST; `locs` from gal__schema_fill): each exists, is a regular file
 * (a folder too in a list), and is reached within the folder of the
 * preset that set it (links there may not lead out unless
 * `follow_links`). Each value is replaced by its real path, so later
 * reads meet no link. Errors, at the value's location, go to `errs`;
 * returns -1 if there was any. */
int gal__schema_check_files(const gal_section *sec, void *opts, const gal_loc *locs,
    gboolean follow_links, gal_errors *errs);
/* Parse one scalar or list node into one field (used by fill). */
int gal__schema_parse_value(const gal_section *sec, const gal_param *param,
    const gal_node *value, void *opts, gal_error *err);
/* "width=1080 height=1350 fit=cover ..." */
void gal__schema_describe_values(const gal_section *sec, const void *opts,
    GString *out);
/* The table for `gallop stages`: key, type, default, range, help. */
void gal__schema_describe_params(const gal_section *sec, GString *out);
/* "max-lines" for field "max_lines"; returns a new string. */
char *gal__param_key(const gal_param *param);
const char *gal__type_name(gal_type type);

/* `path` resolved against the folder of the preset file `file` (which may
 * itself be relative to the working folder); absolute paths stay as they
 * are. Returns a new canonical path. */
char *gal__path_beside(const char *file, const char *path);

int gal__color_parse(const char *text, gal_color *out);
/* A length against a reference size in pixels (percent of `reference`). */
int gal__length_px(const gal_length *len, int reference);
/* The same, clamped to the size's bounds. */
int gal__size_px(const gal_size *size, int reference);

/* ---- templates ------------------------------------------------------------ */

/* "{stem}-{date:%Y-%m-%d}.{ext}", "{artist|Unknown}": literal text and
 * fields, parsed once at load time, rendered per photo. */
typedef struct gal_template gal_template;

/* Parse; an unknown field or a bad brace is an error naming the column
 * within the text. */
gal_template *gal__template_parse(const char *text, GError **error);
void gal__template_free(gal_template *tpl);
const char *gal__template_text(const gal_template *tpl);
/* Does the template use field `name`? */
gboolean gal__template_uses(const gal_template *tpl, const char *name);

/* Per-photo facts a template can show. Strings may be NULL (missing). */
typedef struct gal_facts {
    const char *name;      /* file name with extension */
    const char *stem;      /* file name without extension */
    const char *ext;       /* output extension: jpg, png, webp, avif */
    const char *preset;    /* preset name */
    const char *caption;
    const char *camera;    /* "Apple iPhone 5s" */
    const char *lens;
    const char *artist;
    const char *copyright;
    const char *exposure;  /* "1/250 s f/5.6 ISO 100" */
    gboolean has_date;
    struct tm date;        /* DateTimeOriginal, when has_date */
    int index;             /* 1-based position in the sorted input list */
    int count;             /* number of photos in the run */
    const char *caption_source; /* static: which source gave `caption` (captions.c) */
} gal_facts;

/* Render; `sanitize` makes every substituted value safe as one file-name
 * component ('/', '\\', control characters and leading dots replaced). */
char *gal__template_render(const gal_template *tpl, const gal_facts *facts,
    gboolean sanitize);

/* ---- text ------------------------------------------------------------------ */

typedef enum gal_align {
    GAL_ALIGN_LEFT,
    GAL_ALIGN_CENTRE,
    GAL_ALIGN_RIGHT,
} gal_align;

/* How to draw a piece of plain text. Strings are borrowed. */
typedef struct gal_text_style {
    const char *font;           /* Pango family and style: "DejaVu Sans Bold" */
    const char *font_file;      /* a font file to load first, or NULL */
    double size_px;
    gal_color color;            /* alpha fades the whole text */
    const gal_color *highlight; /* colour of #hashtags and @mentions, or NULL */
    int wrap_px;                /* wrap at word boundaries to this width; 0: one line */
    gal_align align;
    int max_lines;              /* 0: no limit; else cut, ending in an ellipsis */
} gal_text_style;

typedef struct gal_text_info {
    int lines;       /* lines drawn */
    int line_height; /* pixels per line in this font (the ink of "Ág") */
    int line_pitch;  /* pixels from one line to the next in this font */
    /* The block on the line grid: line_height + (lines - 1) * line_pitch
     * (or the ink's height, if taller: a taller script in a line), and
     * where the ink starts below that box's top (negative: above it).
     * Lay text out by these, and one-line captions get the same band
     * whether or not they have descenders. */
    int box_height;
    int ink_top;
    gboolean cut;    /* TRUE when max_lines (or max_height_px) cut the text */
    gboolean rtl;    /* the text starts right to left (Hebrew, Arabic...): Pango swaps
                      * left and right alignment for it */
} gal_text_info;

/* Render plain text (never markup: <, & and <span> come out literally) as
 * 8-bit sRGB RGBA with straight alpha, in memory, cropped to its ink.
 * Invalid UTF-8 is repaired; line ends become \n, tabs spaces, other
 * control characters are dropped. Text with nothing visible, or where not
 * even "…" fits max_height_px, gives *out == NULL and returns 0. With
 * max_lines (or a height bound), what those lines could not show in any
 * case is dropped before layout, so a 100 KB text costs about what a short
 * one does. Renders a few layouts (about 2 log2(words) more when it has
 * to cut); fonts are
 * loaded once per process by libvips, which also runs one layout at a
 * time. Thread-safe. */
int gal__text_render(const char *text, const gal_text_style *style, VipsImage **out,
    gal_text_info *info, gal_error *err);

/* The same, also cut (like max_lines) so that the block is at most
 * `max_height_px` tall; 0 means no limit. */
int gal__text_render_bounded(const char *text, const gal_text_style *style, int max_height_px,
    VipsImage **out, gal_text_info *info, gal_error *err);

/* The family name stored in a TrueType/OpenType font file. */
char *gal__font_file_family(const char *path, GError **error);

/* Make a font file's fonts available to every later layout, by family,
 * for the rest of the process. Call it once per file, in prepare(), and
 * leave gal_text_style.font_file NULL: libvips 8.14 reads freed memory
 * when vips_text is given a font file a second time (see text.c). */
int gal__font_file_register(const char *path, const char *family, gal_error *err);

/* `text` with the invisible characters gal__text_render adds to steer line
 * breaks: word joiners inside URLs, non-Latin tags and Korean words, a
 * zero-width space between tags written together. For tests. */
char *gal__text_break_hints(const char *text);

/* Does `text` start right to left (its first strong character)? */
gboolean gal__text_is_rtl(const char *text);

/* ---- photo facts (libexif) ------------------------------------------------- */

/* Read the facts a template can show from EXIF data (a blob as libvips
 * keeps it under "exif-data"). Strings are allocated into `strings`
 * (freed with it). Never fails: missing data leaves fields NULL. */
void gal__facts_from_exif(const void *exif, size_t len, gal_facts *facts,
    GStringChunk *strings);

/* ---- metadata policy (libexif, exif.c) -------------------------------------- */

/* Check an output.metadata list: `keep` or `strip` alone, or `default`,
 * groups (caption, credits, date, camera, exposure, gps) and EXIF tag
 * names as libexif spells them, in any case. */
int gal__metadata_check(char *const *names, gal_error *err);

/* What an output carries besides its pixels. Strings are NULL when the
 * policy drops them. */
typedef struct gal_meta {
    gboolean strip_all;  /* no metadata at all (`strip`) */
    gboolean keep_icc;   /* `keep`: the colour profile too */
    void *exif;          /* the EXIF block, "Exif\0\0" header first */
    size_t exif_len;
    char *caption;       /* PNG Title and Description */
    char *author;        /* PNG Author (EXIF Artist) */
    char *copyright;
    char *software;      /* "gallop VERSION (preset NAME)" */
} gal_meta;

void gal__meta_clear(gal_meta *meta);

/* Apply an output.metadata policy to the finished image `in`, which still
 * carries the photo's metadata as libvips read it. *out is a copy whose
 * metadata fields the JPEG, WebP and AVIF savers (strip off) turn into
 * exactly the EXIF in `meta`: GPS and serial numbers dropped by default,
 * Orientation 1 (the pixels are upright), Software = `software`, no
 * thumbnail, and no XMP, IPTC or ICC unless `keep`. `caption` (may be NULL)
 * overrides the EXIF ImageDescription for PNG text. */
int gal__metadata_apply(char *const *metadata, const char *software, const char *caption,
    VipsImage *in, VipsImage **out, gal_meta *meta, gal_error *err);

/* ---- PNG (libpng, pngio.c) -------------------------------------------------- */

/* Encode an 8-bit image of 1 to 4 bands as PNG to `fd`, with the text
 * chunks (iTXt: Title, Description, Author, Copyright, Software), eXIf and
 * iCCP `meta` asks for. No tIME chunk: the same pixels and metadata give
 * the same bytes. Evaluates `image` (so a libvips kill stops it). A failed
 * write() sets *write_errno (and returns -1 with `err` untouched). */
int gal__png_write(int fd, VipsImage *image, const gal_meta *meta, gboolean interlace,
    gal_watch *watch, int *write_errno, gal_error *err);

/* ---- captions (captions.c) ------------------------------------------------- */

/* The `captions` section, loaded: its options plus the table and Instagram
 * export it names, read once into memory. Immutable after load. */
typedef struct gal_captions gal_captions;

extern const gal_section gal__captions_section;

/* Does any template of the preset (a stage's or output.name) show {field}? */
gboolean gal__preset_uses_field(const gal_preset *preset, const char *field);

/* Has the preset a gathering stage (contact-sheet)? */
gboolean gal__preset_has_gather(const gal_preset *preset);

/* ---- the output folder --------------------------------------------------------- */

typedef struct gal_out_dir {
    int fd;                /* the folder, open; every write goes beneath it; -1: none */
    char *path;            /* the folder, canonical */
    int open_errno;        /* why fd is -1 (0: a dry run found no folder) */
    gboolean locked;       /* fd holds the run's lock */
    GPtrArray *created;    /* folders made for the run, deepest first */
    int leftovers_removed; /* temporary files of a killed run, removed */
} gal_out_dir;

/* Open the output folder `dir` for a run. With `lock` (a run that
 * writes): create it if needed and take it: an exclusive lock held until
 * gal__out_dir_release (GAL_ERR_USAGE when another run holds it), then
 * remove the temporary files a killed run left in it. Without (a dry
 * run): open it if it exists. A folder that cannot be created or opened
 * is left to the writes to report (fd -1, open_errno set; returns 0).
 * Release it in any case; release removes folders it made that stayed
 * empty. */
int gal__out_dir_claim(const char *dir, gboolean lock, gal_out_dir *claim, gal_error *err);
void gal__out_dir_release(gal_out_dir *claim);

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

/* Add to `paths` (a g_free'ing array of paths, each once) every file
 * outside the photo at `photo` that its caption could come from: both
 * sidecar names (there or not), the table, the export's files. An output
 * that shows {caption} depends on them. */
void gal__caption_files(const gal_captions *captions, const char *photo, GPtrArray *paths);

/* Pieces of the above, for tests. Each returns a new string or NULL. */
char *gal__mojibake_repair(const char *text);
char *gal__xmp_description(const char *xmp, gsize len);
char *gal__iptc_caption(const void *data, gsize len);

/* ---- stages ----------------------------------------------------------------- */

typedef enum gal_stage_kind {
    GAL_STAGE_MAP,    /* one photo in, one photo out */
    GAL_STAGE_GATHER, /* many in, one out (contact sheets) */
} gal_stage_kind;

typedef struct gal_job gal_job;

/* The order a gathering stage wants photos in; ties by path. */
typedef enum gal_sort {
    GAL_SORT_NAME,
    GAL_SORT_DATE,
    GAL_SORT_INPUT,
} gal_sort;

/* One page of a gathering stage's output. */
typedef struct gal_page {
    int number, pages; /* 1-based */
    int count;         /* photos in the run */
    const char *preset;
} gal_page;

typedef struct gal_rect {
    int x, y, w, h;
} gal_rect;

/* Contact-sheet layouts (pure): where each of `n` photos of the given
 * aspects (width / height) goes. Grid: `columns` cells of `tile` x
 * tile*cell_ratio plus `label_height`, photos fitted inside (or filling
 * with `crop`). Justified: rows `row_height` high scaled to fill
 * `sheet_width`, the last row left at the target height. */
void gal__sheet_grid(int n, const double *aspects, int columns, int tile, double cell_ratio,
    int gap, int label_height, gboolean crop, gal_rect *cells, int *width, int *height);
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

/* An int field of the image, 0 when it has none. */
int gal__meta_int(VipsImage *image, const char *field);

typedef struct gal_stage_ctx {
    const void *opts;
    const void *shared;
    gal_loc loc;
    /* prepare() only: files the stage names (a font) may be reached
     * through links out of the preset's folder (--follow-symlinks). */
    gboolean follow_links;
} gal_stage_ctx;


/* A stage's `font` key, ready for layouts: a family and style ("DejaVu
 * Sans Bold") is taken as it is; a font file (a path, or a name ending in
 * .ttf, .otf or .ttc), relative to the preset's folder, is checked (a
 * regular file within the font limit, reached within the preset's folder
 * unless sc->follow_links), registered once, and named by its family.
 * *family is new. Errors, at the stage's location under `key`, are
 * GAL_ERR_PRESET. For prepare(), on the main thread. */
int gal__font_prepare(const char *font, const gal_stage_ctx *sc, const char *key,
    char **family, gal_error *err);

typedef struct gal_stage_def {
    const char *name;        /* preset key */
    const char *summary;     /* one line for `gallop stages` */
    const gal_param *params; /* schema, ends with GAL_PARAM_END */
    size_t opts_size;
    gal_stage_kind kind;
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
     * page from its items, in order. page_name: the page's file name. */
    void (*gather_plan)(const gal_stage_ctx *sc, int *per_page, gal_sort *sort);
    int (*tap)(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in, VipsImage **item,
        gal_error *err);
    int (*build_many)(const gal_stage_ctx *sc, VipsImage **in, int n, const gal_page *page,
        VipsImage **out, gal_error *err);
    char *(*page_name)(const gal_stage_ctx *sc, int page, int pages);
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

/* Lanczos 3 scaling along one axis with libvips' vectorised reducer
 * (stage_resize.c): rows to `height`, or columns to `width` through quarter
 * turns (`in` in memory, without the sequential mark). New image in *out;
 * -1 with the libvips error set. */
int gal__scale_rows(VipsImage *in, int height, VipsImage **out);
int gal__scale_columns(VipsImage *in, int width, VipsImage **out);

/* The registered stages, in stages.def order, NULL-terminated. */
extern const gal_stage_def *const gal__stages[];
const gal_stage_def *gal__stage_find(const char *name);

/* ---- the loaded preset ------------------------------------------------------- */

typedef enum gal_format {
    GAL_FORMAT_JPEG,
    GAL_FORMAT_PNG,
    GAL_FORMAT_WEBP,
    GAL_FORMAT_AVIF,
} gal_format;

typedef enum gal_fail_on {
    GAL_FAIL_ON_NONE,
    GAL_FAIL_ON_TRUNCATED,
    GAL_FAIL_ON_ERROR,
    GAL_FAIL_ON_WARNING,
} gal_fail_on;

typedef struct gal_input_opts {
    char **paths;
    char **include;
    char **exclude;
    gboolean recursive;
    int fail_on;            /* gal_fail_on */
    double max_megapixels;
    double max_seconds;     /* wall time per photo */
    int max_memory_mb;      /* pixels held in memory per photo */
} gal_input_opts;

typedef enum gal_subsampling {
    GAL_SUBSAMPLING_AUTO,
    GAL_SUBSAMPLING_420,
    GAL_SUBSAMPLING_444,
} gal_subsampling;

typedef struct gal_output_opts {
    char *dir;
    gal_template *name;
    int format;             /* gal_format */
    int quality;            /* 1..100 */
    gboolean progressive;
    int subsampling;        /* gal_subsampling */
    char **metadata;        /* keep, strip, default, or EXIF tag names and groups */
    gal_color background;   /* alpha is flattened onto it for JPEG */
    /* FALSE: no file per photo; each photo only gives its tile to the
     * gathering stage, which the preset must have (checked at load). */
    gboolean photos;
} gal_output_opts;

extern const gal_section gal__input_section;
extern const gal_section gal__output_section;

typedef struct gal_stage_instance {
    const gal_stage_def *def;
    gal_section section; /* def's params viewed as a section */
    void *opts;
    void *shared;
    gal_loc loc;
} gal_stage_instance;

/* The context a stage instance's functions get. */
static inline gal_stage_ctx
gal__stage_ctx(const gal_stage_instance *st)
{
    return (gal_stage_ctx) { st->opts, st->shared, st->loc, FALSE };
}

struct gal_preset {
    char *path;          /* the file loaded (or the virtual path) */
    char *name;
    char *description;
    GStringChunk *strings; /* interned file names for every gal_loc */
    gal_input_opts *input;
    gal_output_opts *output;
    GArray *stages;      /* gal_stage_instance */
    gal_captions *captions; /* where {caption} comes from */
};

/* File names in the extends chain are interned here. */
const char *gal__preset_intern(gal_preset *preset, const char *file);

/* Extension for a format ("jpg", "png", "webp", "avif"). */
const char *gal__format_ext(gal_format format);

/* ---- inputs --------------------------------------------------------------------- */

typedef struct gal_input {
    char *path;       /* as given or found */
    char *root;       /* the input folder it was found in (real path); NULL: named itself */
    gboolean regular; /* FALSE: a FIFO, device or socket: never opened */
    char *why;        /* not NULL: listed but not taken (a link not followed), and why */
    gboolean refused; /* named itself and unusable (a link to nothing): a failure, not a skip */
} gal_input;

/* Expand files and folders into a sorted, de-duplicated list of photos,
 * applying the include/exclude globs to folder contents (files named
 * explicitly are taken as given). Skips `skip_dir` (the output folder)
 * when it lies inside an input folder. A missing path is an error. */
int gal__inputs_collect(const gal_input_opts *opts, const char *const *paths,
    int n_paths, const char *skip_dir, gboolean follow_symlinks, GArray **out,
    gal_errors *errs);
void gal__inputs_free(GArray *inputs);
/* Case-insensitive glob match on a file name: '*' and '?' only. */
gboolean gal__glob_match(const char *pattern, const char *name);

/* ---- jobs ------------------------------------------------------------------------ */

/* One photo on one worker. Created, run and freed on that worker. */
struct gal_job {
    const gal_preset *preset;
    const char *input;         /* borrowed from the plan */
    const char *input_root;    /* the input folder it was found in; NULL: named itself */
    gboolean follow_links;     /* --follow-symlinks */
    const char *output_path;   /* final path, borrowed from the plan */
    const gal_out_dir *out_dir; /* the output folder, open */
    char *output_rel;          /* the output beneath it (owned) */
    gal_facts facts;           /* what templates can show of this photo */
    GStringChunk *strings;     /* owns the facts' strings */
    int out_width, out_height; /* set when the job succeeds */
    int gather_index;          /* 1-based place in a gathering stage's order */
    VipsImage *gather_item;    /* what the gathering stage took of this photo */
    /* For the run report: the caption a stage showed and where it came
     * from ("exif:ImageDescription", a sidecar path...), in `strings`;
     * NULL: none. */
    const char *caption;
    const char *caption_source;
    /* Files the output depends on besides the photo and the preset (a
     * caption sidecar): see gal__job_depend. NULL until the first. */
    GPtrArray *depends;
    gal_watch *watch;          /* the photo's budget and cancel; NULL: none */
    gint64 out_bytes;          /* set when the job succeeds */
    char out_sha256[65];       /* set when the job succeeds, hex */
    /* Make the output file; else only the item for the gathering stage
     * (the output is up to date, or the preset makes no file per photo). */
    gboolean make_output;
    /* Run alone after a failure (solo.h): the decode is checked on its
     * own first, so a broken photo is told from a failing stage or encoder. */
    gboolean solo;
    gboolean caption_cut;      /* a caption-burn stage cut the caption to fit */
};

/* ---- gathering (gather.c) ----------------------------------------------------- */

typedef struct gal_gather gal_gather;

/* Plan the preset's gathering stage over `n` photos (ids 0..n-1, `paths`
 * borrowed): fills `order` with the ids in the stage's order, which is the
 * order to process them in. NULL (and `order` untouched) when the preset
 * has no gathering stage. Reads headers when sorting by date. */
gal_gather *gal__gather_new(const gal_preset *preset, const char *const *paths, int n,
    const gal_out_dir *out_dir, int *order);
/* 1-based place of photo `id` in the order; 0 without a gather. */
int gal__gather_index(const gal_gather *g, int id);
/* Photo `id` finished: its item (ownership taken), or NULL when it failed.
 * Thread-safe; the call that completes a page composes and writes it. */
void gal__gather_done(gal_gather *g, int id, VipsImage *item);
/* Free, returning the pages' results (gal_photo_result, page order). */
GArray *gal__gather_free(gal_gather *g);

/* Name, stem, output extension, preset, index and count. */
void gal__facts_from_path(const gal_preset *preset, const char *path, int index, int count,
    gal_facts *facts, GStringChunk *strings);

/* Add the EXIF facts of a photo, reading its header only. */
int gal__photo_facts(const gal_preset *preset, const gal_photo_ref *photo, gal_facts *facts,
    GStringChunk *strings, gal_error *err);

/* Decode, run every stage and write one photo. Fills `err` (which must be
 * clear on entry) on failure and leaves no file behind. */
int gal__job_run(gal_job *job, gal_error *err);

/* The same for one photo and several presets (one job each, all with the
 * same input path): the header is read once, every preset checks its
 * pixel limit and takes its facts from it, and the photo is decoded once
 * (per input.fail-on) at the largest size any of them needs, upright, as
 * 8-bit sRGB; with several users that decode is held in memory and scaled
 * down to each preset's own size. The jobs then run one after another on
 * the calling thread. errs[k] (clear on entry) receives job k's failure;
 * one job failing does not stop the others. */
void gal__photo_run(gal_job *const *jobs, int n, gal_error *errs);

/* The size to decode a photo of `width` x `height` (upright) at for `n`
 * presets that want it at load_w[k] x load_h[k]. One preset: its size, as
 * a run of it alone decodes (upscaling included). Several: the largest
 * width and height any of them wants, but never more than the photo has,
 * so a preset that upscales does it from the whole photo and none scales
 * down from an enlarged copy. Pure. */
void gal__shared_decode_size(int width, int height, const int *load_w, const int *load_h, int n,
    int *decode_w, int *decode_h);

/* Output file name for a photo: the rendered name template, checked to stay
 * inside `dir`. Returns a new path or NULL with `err` set. */
char *gal__output_path(const gal_output_opts *output, const char *dir,
    const gal_facts *facts, gal_error *err);

/* What an output's writer knows of its photo: the preset name for
 * Software, the caption for PNG text, the run's cancel; the written file's
 * size and SHA-256 come back. */
typedef struct gal_write_info {
    const char *preset_name;   /* NULL: Software is "gallop VERSION" */
    const char *caption;       /* NULL: the EXIF ImageDescription */
    gal_watch *watch;          /* the photo's; NULL: cannot be stopped */
    gint64 bytes;              /* out */
    char sha256[65];           /* out, hex */
} gal_write_info;

/* Encode `image` to `rel` beneath the output folder `dir` atomically
 * (a temporary file beside it, then a rename), folders made beneath the
 * folder as needed, never through a link. `info` may be NULL. */
int gal__output_write_info(const gal_output_opts *output, VipsImage *image,
    const gal_out_dir *dir, const char *rel, gal_write_info *info, gal_error *err);

/* ---- files and digests (manifest.c) ------------------------------------------------ */

/* SHA-256 of a file's contents as 64 hex digits into `hex` (65 bytes), its
 * size into *size (may be NULL). The file is opened by `rules` (NULL: any
 * regular file, GAL_ERR_INPUT). */
int gal__file_sha256(const char *path, const gal_read_rules *rules, char *hex, gint64 *size,
    gal_error *err);
/* The same from an open descriptor, read to its end: -1 with errno set. */
int gal__fd_sha256(int fd, char *hex, gint64 *size);
/* The same for the regular file `rel` beneath the folder `root_fd`, no
 * link followed: -1 with errno set. */
int gal__sha256_beneath(int root_fd, const char *rel, char *hex, gint64 *size);

/* "1.6.39" */
const char *gal__libpng_version(void);

/* `path` relative to the folder `dir` ("../photos/a.jpg"), lexically. */
char *gal__relative_path(const char *dir, const char *path);

struct stat;
gint64 gal__mtime_ns(const struct stat *st);

/* ---- the manifest (manifest.c, format in docs/report.md) ----------------------------- */

/* The effective preset as "key=value" lines (stages, then output; keys
 * that only choose inputs or output locations left out), the value of a
 * `file` key followed by the SHA-256 of the file: what an output depends
 * on. New array of new strings. */
GPtrArray *gal__preset_keys(const gal_preset *preset);
/* SHA-256 of the lines, hex into `hex` (65 bytes). */
void gal__keys_digest(GPtrArray *keys, char *hex);
/* "output.quality 82 -> 90, resize.width 1080 -> 2048"; `before` may be
 * NULL (unknown). New string. */
char *gal__keys_diff(GPtrArray *before, GPtrArray *now);

#define GAL_MANIFEST_NAME ".gallop-manifest.tsv"

typedef struct gal_dep_record {
    char *path;        /* absolute */
    gboolean exists;
    gint64 size, mtime_ns;
    char sha256[65];
} gal_dep_record;

/* One output, as written. Paths are relative to the output folder. */
typedef struct gal_manifest_entry {
    char *output;
    char *input;          /* "" for a contact sheet */
    gint64 in_size, in_mtime_ns;
    char in_sha256[65];   /* a contact sheet: digest of its members */
    char preset_digest[65];
    char *version;        /* gallop's */
    gint64 out_size, out_mtime_ns;
    char out_sha256[65];
    int width, height;
    char *name_key;       /* what the name was rendered from (template, index, count) */
    char *caption;        /* what a caption stage showed, for reports of reruns; may be NULL */
    char *caption_source;
    gboolean caption_cut;
    GPtrArray *deps;      /* gal_dep_record */
    gboolean sheet;
} gal_manifest_entry;

typedef struct gal_manifest {
    char *dir;            /* the output folder, canonical */
    GHashTable *entries;  /* output -> gal_manifest_entry (owned) */
    GHashTable *presets;  /* digest -> GPtrArray of "key=value" */
    GPtrArray *warnings;  /* lines refused and why ("DIR/.gallop-manifest.tsv:12: ...") */
} gal_manifest;

gal_manifest *gal__manifest_new(const char *dir);
/* Never fails: a missing, unreadable or foreign manifest reads as empty.
 * Entries that name anything but a relative path beneath the folder are
 * dropped, each with a line in `warnings`. */
gal_manifest *gal__manifest_load(const char *dir);
/* Add the entries of manifest text to `m` (as load does). */
void gal__manifest_parse(gal_manifest *m, const char *text);
void gal__manifest_free(gal_manifest *m);
/* The file's text, entries sorted by output. New string. */
char *gal__manifest_text(gal_manifest *m);
/* Write it atomically into the folder. */
int gal__manifest_save(gal_manifest *m, gal_error *err);
gal_manifest_entry *gal__manifest_entry_new(void);
void gal__manifest_entry_free(gal_manifest_entry *e);
/* Add or replace (ownership taken). */
void gal__manifest_put(gal_manifest *m, gal_manifest_entry *e);
/* Remember the key lines of a digest (a reference is taken). */
void gal__manifest_put_keys(gal_manifest *m, const char *digest, GPtrArray *keys);
void gal__manifest_add_dep(gal_manifest_entry *e, const char *path, gboolean exists,
    gint64 size, gint64 mtime_ns, const char *sha256);

/* Threads budget: photos in flight for `jobs` (<= 0: cores), and libvips
 * threads per photo. */
int gal__schedule_workers(int jobs, int n_photos, int *vips_threads);

/* TRUE when `version` ("MAJOR.MINOR.MICRO", optionally followed by
 * ".NANO") is at least major.minor.micro. FALSE for NULL or for anything
 * else that is not such a version. Pure. */
gboolean gal__version_at_least(const char *version, int major, int minor, int micro);

#endif /* GAL_INTERNAL_H */
