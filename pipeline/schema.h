/* schema.h: parameter tables: the typed keys of every stage and section, parsed from
 * located nodes by one parser per type, for user values and defaults alike. */
#ifndef GAL_SCHEMA_H
#define GAL_SCHEMA_H

#include <stdbool.h>

#include <glib.h>

#include "error.h"
#include "node.h"
#include "template.h"

typedef enum gal_type {
    GAL_T_BOOL,     /* bool (not gboolean, which is an int to _Generic) */
    GAL_T_INT,      /* int */
    GAL_T_DOUBLE,   /* double */
    GAL_T_STRING,   /* char * */
    GAL_T_PATH,     /* char *: an existing file, resolved against the preset */
    GAL_T_DIR,      /* char *: a folder (need not exist), resolved likewise */
    GAL_T_ENUM,     /* an enum type the size of int: index into `choices` */
    GAL_T_COLOR,    /* gal_color */
    GAL_T_LENGTH,   /* gal_length: "12", "12px" or "3.5%" */
    GAL_T_SIZE,     /* gal_size: a length, or {relative: 15%, min: 64, max: 400} */
    GAL_T_STRLIST,  /* char ** (NULL-terminated): a list, or one scalar */
    GAL_T_PATHLIST, /* char **: list of folders/files resolved against the preset */
    GAL_T_TEMPLATE, /* gal_template *: text with {fields}, checked at load */
    GAL_T_RATIO,    /* gal_ratio: "W:H", each 1..max */
    GAL_T_INTLIST,  /* gal_int_list: whole numbers, each in min..max, none twice */
    GAL_T_ENUMLIST, /* gal_int_list: indices into `choices`, none twice */
    GAL_T_SHARPENING, /* gal_sharpening: a choice, or {for: medium, amount: choice} */
} gal_type;

typedef struct gal_color {
    double r, g, b, a; /* 0..255 each */
    /* The word `auto` (keys with GAL_AUTO): the stage picks the colour per
     * photo, and r, g, b, a mean nothing. */
    gboolean automatic;
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

/* A list of whole numbers or of choices (their indices), in the order
 * given; `items` is NULL when `n` is 0. At most GAL_LIST_MAX items. */
typedef struct gal_int_list {
    int n;
    int *items;
} gal_int_list;

#define GAL_LIST_MAX 16

/* Sharpening for a medium: `amount` indexes the key's `choices`, `medium`
 * gal__media (screen, matte, glossy). A scalar is an amount for screen. */
typedef struct gal_sharpening {
    int amount;
    int medium;
} gal_sharpening;

/* What output sharpening is for: 0 is screen. */
extern const char *const gal__media[];

/* A shape, width to height: "3:2" is { 3, 2 }. Both are at least 1. */
typedef struct gal_ratio {
    int w, h;
} gal_ratio;

#define GAL_REQUIRED 0x1u /* the key must be given */
/* One of a stage's alternatives (watermark image or text): a preset that
 * sets one over a parent (extends) or a --set drops the others the parent
 * set, so a child's `text:` replaces its parent's `image:`. */
#define GAL_ALTERNATIVE 0x2u
/* A colour key that also takes `auto` (gal_color.automatic); a whole-number
 * key that takes it too, kept as 0 (below its range). */
#define GAL_AUTO 0x4u

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
    double min, max;             /* INT, DOUBLE, LENGTH(px), RATIO (each term):
                                  * inclusive range; TEMPLATE: most characters
                                  * (0: any) */
    const char *const *choices;  /* ENUM: NULL-terminated names */
    unsigned flags;
} gal_param;

/* Each GAL_PARAM_* macro checks at compile time that the field has the C
 * type its parser writes through the offset: a GAL_PARAM_INT over a double,
 * or a GAL_PARAM_ENUM over an int or over another enum, fails to compile
 * with a message naming the field. C11 allows a static assertion inside a
 * struct, and the struct inside sizeof, so the check is an expression that
 * adds 0 to the offset. */
#define GAL_FIELD_CHECK_(ok, msg) \
    (0 * sizeof(struct { _Static_assert(ok, msg); int gal_checked_; }))
#define GAL_FIELD_IS_(st, f, ctype) _Generic(((st *) 0)->f, ctype: 1, default: 0)
/* An enum field: of that very enum type (two enum types are never
 * compatible), the size of int (the parser stores an int through the
 * offset) and not compatible with int, which an enum with a negative value
 * would be, letting a plain int field pass for it. */
#define GAL_FIELD_IS_ENUM_(st, f, etype) \
    (GAL_FIELD_IS_(st, f, etype) && sizeof(etype) == sizeof(int) && \
        !GAL_FIELD_IS_(st, f, int))

#define GAL_PARAM_(type_, ok_, macro_, st, f, help_, def_, min_, max_, choices_, flags_) \
    { #f, type_, \
        G_STRUCT_OFFSET(st, f) + GAL_FIELD_CHECK_(ok_, \
            macro_ "(" #st ", " #f "): the field's C type does not fit this macro"), \
        help_, def_, min_, max_, choices_, flags_ }
#define GAL_PARAM_BOOL(st, f, help, def) \
    GAL_PARAM_(GAL_T_BOOL, GAL_FIELD_IS_(st, f, bool), "GAL_PARAM_BOOL", st, f, help, def, \
        0, 0, NULL, 0)
#define GAL_PARAM_INT(st, f, help, def, min, max) \
    GAL_PARAM_(GAL_T_INT, GAL_FIELD_IS_(st, f, int), "GAL_PARAM_INT", st, f, help, def, \
        min, max, NULL, 0)
/* A whole number, or `auto` (kept as 0: `min` must be above it). */
#define GAL_PARAM_INT_AUTO(st, f, help, def, min, max) \
    GAL_PARAM_(GAL_T_INT, GAL_FIELD_IS_(st, f, int), "GAL_PARAM_INT_AUTO", st, f, help, def, \
        min, max, NULL, GAL_AUTO)
#define GAL_PARAM_DOUBLE(st, f, help, def, min, max) \
    GAL_PARAM_(GAL_T_DOUBLE, GAL_FIELD_IS_(st, f, double), "GAL_PARAM_DOUBLE", st, f, help, \
        def, min, max, NULL, 0)
#define GAL_PARAM_STRING(st, f, help, def) \
    GAL_PARAM_(GAL_T_STRING, GAL_FIELD_IS_(st, f, char *), "GAL_PARAM_STRING", st, f, help, \
        def, 0, 0, NULL, 0)
#define GAL_PARAM_PATH(st, f, help, flags) \
    GAL_PARAM_(GAL_T_PATH, GAL_FIELD_IS_(st, f, char *), "GAL_PARAM_PATH", st, f, help, NULL, \
        0, 0, NULL, flags)
#define GAL_PARAM_DIR(st, f, help, def) \
    GAL_PARAM_(GAL_T_DIR, GAL_FIELD_IS_(st, f, char *), "GAL_PARAM_DIR", st, f, help, def, \
        0, 0, NULL, 0)
/* An enum key: the field is of enum type `etype`, whose names, in the
 * order of its values, are the array `etype##_names` (NULL-terminated). */
#define GAL_PARAM_ENUM(st, f, etype, help, def) \
    GAL_PARAM_(GAL_T_ENUM, GAL_FIELD_IS_ENUM_(st, f, etype), "GAL_PARAM_ENUM", st, f, help, \
        def, 0, 0, etype##_names, 0)
#define GAL_PARAM_COLOR(st, f, help, def) \
    GAL_PARAM_(GAL_T_COLOR, GAL_FIELD_IS_(st, f, gal_color), "GAL_PARAM_COLOR", st, f, help, \
        def, 0, 0, NULL, 0)
/* A colour, or `auto`: the stage chooses per photo (gal_color.automatic). */
#define GAL_PARAM_COLOR_AUTO(st, f, help, def) \
    GAL_PARAM_(GAL_T_COLOR, GAL_FIELD_IS_(st, f, gal_color), "GAL_PARAM_COLOR_AUTO", st, f, \
        help, def, 0, 0, NULL, GAL_AUTO)
#define GAL_PARAM_LENGTH(st, f, help, def, max_px) \
    GAL_PARAM_(GAL_T_LENGTH, GAL_FIELD_IS_(st, f, gal_length), "GAL_PARAM_LENGTH", st, f, \
        help, def, 0, max_px, NULL, 0)
#define GAL_PARAM_SIZE(st, f, help, def, max_px) \
    GAL_PARAM_(GAL_T_SIZE, GAL_FIELD_IS_(st, f, gal_size), "GAL_PARAM_SIZE", st, f, help, \
        def, 0, max_px, NULL, 0)
#define GAL_PARAM_STRLIST(st, f, help, def) \
    GAL_PARAM_(GAL_T_STRLIST, GAL_FIELD_IS_(st, f, char **), "GAL_PARAM_STRLIST", st, f, \
        help, def, 0, 0, NULL, 0)
#define GAL_PARAM_PATHLIST(st, f, help, def) \
    GAL_PARAM_(GAL_T_PATHLIST, GAL_FIELD_IS_(st, f, char **), "GAL_PARAM_PATHLIST", st, f, \
        help, def, 0, 0, NULL, 0)
#define GAL_PARAM_TEMPLATE(st, f, help, def) \
    GAL_PARAM_(GAL_T_TEMPLATE, GAL_FIELD_IS_(st, f, gal_template *), "GAL_PARAM_TEMPLATE", \
        st, f, help, def, 0, 0, NULL, 0)
#define GAL_PARAM_TEMPLATE_MAX(st, f, help, def, max_chars, flags) \
    GAL_PARAM_(GAL_T_TEMPLATE, GAL_FIELD_IS_(st, f, gal_template *), \
        "GAL_PARAM_TEMPLATE_MAX", st, f, help, def, 0, max_chars, NULL, flags)
/* "W:H", each term a whole number from 1 to `max`. */
#define GAL_PARAM_RATIO(st, f, help, def, max) \
    GAL_PARAM_(GAL_T_RATIO, GAL_FIELD_IS_(st, f, gal_ratio), "GAL_PARAM_RATIO", st, f, help, \
        def, 1, max, NULL, 0)
/* A list of whole numbers, each from `min` to `max`; a scalar is a list of
 * one. The default is written "a,b,c" (NULL: empty). */
#define GAL_PARAM_INTLIST(st, f, help, def, min, max) \
    GAL_PARAM_(GAL_T_INTLIST, GAL_FIELD_IS_(st, f, gal_int_list), "GAL_PARAM_INTLIST", st, f, \
        help, def, min, max, NULL, 0)
/* A list of names from `etype##_names` (as GAL_PARAM_ENUM), kept as their
 * indices. */
#define GAL_PARAM_ENUMLIST(st, f, etype, help, def) \
    GAL_PARAM_(GAL_T_ENUMLIST, GAL_FIELD_IS_(st, f, gal_int_list), "GAL_PARAM_ENUMLIST", st, \
        f, help, def, 0, 0, etype##_names, 0)
/* Sharpening: one of `etype##_names` (for screen), or {for: screen|matte|
 * glossy, amount: one of them}. */
#define GAL_PARAM_SHARPENING(st, f, etype, help, def) \
    GAL_PARAM_(GAL_T_SHARPENING, GAL_FIELD_IS_(st, f, gal_sharpening), \
        "GAL_PARAM_SHARPENING", st, f, help, def, 0, 0, etype##_names, 0)
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
/* The field of `opts` (a section's options struct) that `param` describes,
 * as a pointer to `type`. */
#define GAL_PARAM_FIELD(opts, param, type) ((type *) ((char *) (opts) + (param)->offset))

/* Parse one scalar or list node into one field (used by fill). */
int gal__schema_parse_value(const gal_section *sec, const gal_param *param,
    const gal_node *value, void *opts, gal_error *err);
/* "width=1080 height=1350 fit=cover ..." (schema_describe.c, as the two below) */
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
/* The i-th colour name ("black", "white"...) in any case; NULL past the
 * last. */
const char *gal__color_name(size_t i);
/* What a BOOL key takes, in any case: true, yes, on, then false, no, off. */
extern const char *const gal__bool_words[];
/* Another spelling an ENUM key takes for one of its choices, {"center",
 * "centre"}, when that choice is among its own; ends with {NULL, NULL}. */
extern const char *const gal__choice_aliases[][2];
/* A length against a reference size in pixels (percent of `reference`). */
int gal__length_px(const gal_length *len, int reference);
/* The same, clamped to the size's bounds. */
int gal__size_px(const gal_size *size, int reference);

#endif /* GAL_SCHEMA_H */
