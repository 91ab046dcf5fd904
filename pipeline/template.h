/* template.h: text with {fields} (names, captions, labels) and the per-photo facts
 * it is rendered from. */
#ifndef GAL_TEMPLATE_H
#define GAL_TEMPLATE_H

#include <time.h>

#include <glib.h>

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

/* What a field is, for those that must know which fields a template uses. */
typedef enum gal_field_flags {
    /* From the photo's metadata (EXIF; {caption} also from its other
     * sources): showing it needs the photo's header read. */
    GAL_FIELD_EXIF = 1u << 0,
    /* Differs between the photos of a run ({preset} does not). */
    GAL_FIELD_PER_PHOTO = 1u << 1,
} gal_field_flags;

/* What may follow a field's name after ':'. */
typedef enum gal_field_format {
    GAL_FIELD_NO_FORMAT,
    GAL_FIELD_STRFTIME, /* {date:%Y}: anything, for strftime */
    GAL_FIELD_WIDTH,    /* {index:03}: one or two digits, a zero-padded width */
} gal_field_format;

typedef struct gal_field {
    const char *name;
    unsigned flags; /* gal_field_flags */
    gal_field_format format;
    int facts_offset; /* of its string in gal_facts; -1: date, index, count */
} gal_field;

/* Every field a template may use, in the order messages list them; the
 * last has a NULL name. The one list: the parser, the renderer, the
 * engine (which fields need EXIF), stages (which texts are fixed) and the
 * JSON Schema all read it. */
extern const gal_field gal__template_fields[];

/* Does the template use any field with one of `flags`? */
gboolean gal__template_uses_any(const gal_template *tpl, unsigned flags);

/* Per-photo facts a template can show. Strings may be NULL (missing). */
typedef struct gal_facts {
    const char *name;      /* file name with extension */
    const char *stem;      /* file name without extension */
    const char *ext;       /* output extension: jpg, png ... (gal_format_def.ext) */
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
    /* The photo's folder within the input folder it was found in ("" at
     * its top, or for a photo named itself; no leading or trailing '/'):
     * {dir}, so that albums keep their folders. */
    const char *dir;
    int width;             /* the output.widths width being named; 0: none */
    /* What the photo asks for itself besides its caption (overrides.h):
     * alt text ("": the photo is decoration) and a long description, NULL
     * when none; a point a crop keeps (fractions of the width and height,
     * upright); and no watermark. */
    const char *alt;
    const char *description;
    gboolean has_focus;
    double focus_x, focus_y;
    gboolean no_watermark;
} gal_facts;

/* Render; `sanitize` makes every substituted value safe as one file-name
 * component ('/', '\\', control characters and leading dots replaced). */
char *gal__template_render(const gal_template *tpl, const gal_facts *facts,
    gboolean sanitize);
/* The same, appended to `out`: a buffer kept from photo to photo spares
 * an allocation per name. */
void gal__template_render_append(const gal_template *tpl, const gal_facts *facts,
    gboolean sanitize, GString *out);

/* Render unsanitised, or NULL when a field the template shows without a
 * fallback is missing for this photo: a credit ("© {year} {artist}") is
 * shown whole or not at all; "{artist|}" makes a field optional. */
char *gal__template_render_whole(const gal_template *tpl, const gal_facts *facts);

#endif /* GAL_TEMPLATE_H */
