/* text.h: plain text drawn with Pango through libvips (text.c), and the fonts a
 * stage names (fonts.c). */
#ifndef GAL_TEXT_H
#define GAL_TEXT_H

#include "internal.h"
#include "schema.h"

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

/* `text` with the invisible characters gal__text_render adds to steer line
 * breaks: word joiners inside URLs, non-Latin tags and Korean words, a
 * zero-width space between tags written together. For tests. */
char *gal__text_break_hints(const char *text);

/* The #hashtags and @mentions of `text`, in order, as a highlight colours
 * them: "#tags_with_underscores" and "@handles.with.dots" whole, without a
 * dot that ends the sentence. A new NULL-terminated array (g_strfreev). */
char **gal__text_tags(const char *text);

/* Does `text` start right to left (its first strong character)? */
gboolean gal__text_is_rtl(const char *text);

/* ---- fonts.c ---- */

/* The family name stored in a TrueType/OpenType font file. */
char *gal__font_file_family(const char *path, GError **error);

/* Make a font file's fonts available to every later layout, by family,
 * for the rest of the process. Call it once per file, in prepare(), and
 * leave gal_text_style.font_file NULL: libvips 8.14 reads freed memory
 * when vips_text is given a font file a second time (see fonts.c). */
int gal__font_file_register(const char *path, const char *family, gal_error *err);

/* A stage's `font` key, ready for layouts: a family and style ("DejaVu
 * Sans Bold") is taken as it is; a font file (a path, or a name ending in
 * .ttf, .otf or .ttc), relative to the folder of the preset file `loc`
 * names (a --set value, line 0: the working folder), is checked (a
 * regular file within the font limit, reached within the preset's folder
 * unless `follow_links`), registered once, and named by its family.
 * *family is new. Errors, at `loc` (where the font was given, else the
 * stage's place) under `key`, are GAL_ERR_PRESET. For prepare(), on the
 * main thread. */
int gal__font_prepare(const char *font, const gal_loc *loc, gboolean follow_links,
    const char *key, char **family, gal_error *err);

#endif /* GAL_TEXT_H */
