/* schema.h: parameter tables: the typed keys of every stage and section, parsed from
 * located nodes by one parser per type, for user values and defaults alike. */
#ifndef GAL_SCHEMA_H
#define GAL_SCHEMA_H

#include <glib.h>

#include "error.h"
#include "node.h"
#include "template.h"

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

#endif /* GAL_SCHEMA_H */
