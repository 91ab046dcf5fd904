/* text.c: plain text into pixels, for watermarks, captions and labels.
 *
 * Text is laid out by Pango through vips_text, in RGBA so colour emoji keep
 * their colours and font fallback covers Hangul, CJK and the rest. Text is
 * data, never markup: every piece is escaped here, and the only markup is
 * the colour spans this file writes itself. Cutting to `max_lines` is a
 * bounded search over word boundaries, ending the last line in an ellipsis. */
#include <string.h>

#include "internal.h"

/* Pango sizes are in points; at 72 dpi a point is a pixel. */
#define TEXT_DPI 72

static void
append_span(GString *markup, const gal_color *color, const char *text, gssize len)
{
    g_autofree char *escaped = g_markup_escape_text(text, len);

    g_string_append_printf(markup, "<span foreground=\"#%02x%02x%02x\">%s</span>", (int) color->r,
        (int) color->g, (int) color->b, escaped);
}

static gboolean
is_tag_char(gunichar c)
{
    return g_unichar_isalnum(c) || c == '_';
}

/* Escaped markup for `text`, with #hashtags and @mentions in `highlight`. */
static char *
build_markup(const char *text, const gal_text_style *style)
{
    GString *markup = g_string_new(NULL);
    const char *run = text, *c = text;

    while (*c) {
        gunichar ch = g_utf8_get_char(c);
        const char *next = g_utf8_next_char(c);

        if (style->highlight && (ch == '#' || ch == '@') && *next &&
            is_tag_char(g_utf8_get_char(next)) &&
            (c == text || !is_tag_char(g_utf8_get_char(g_utf8_prev_char(c))))) {
            const char *end = next;

            while (*end && is_tag_char(g_utf8_get_char(end)))
                end = g_utf8_next_char(end);
            if (c > run)
                append_span(markup, &style->color, run, c - run);
            append_span(markup, style->highlight, c, end - c);
            run = c = end;
            continue;
        }
        c = next;
    }
    if (c > run)
        append_span(markup, &style->color, run, c - run);
    return g_string_free(markup, FALSE);
}

static int
render_markup(const char *markup, const gal_text_style *style, const char *font,
    VipsImage **out)
{
    VipsAlign align = style->align == GAL_ALIGN_CENTRE ? VIPS_ALIGN_CENTRE
        : style->align == GAL_ALIGN_RIGHT              ? VIPS_ALIGN_HIGH
                                                       : VIPS_ALIGN_LOW;

    if (style->wrap_px > 0)
        return vips_text(out, markup, "font", font, "fontfile", style->font_file, "dpi", TEXT_DPI,
            "rgba", TRUE, "width", style->wrap_px, "wrap", VIPS_TEXT_WRAP_WORD_CHAR, "align",
            align, NULL);
    return vips_text(out, markup, "font", font, "fontfile", style->font_file, "dpi", TEXT_DPI,
        "rgba", TRUE, "align", align, NULL);
}

/* Lines in a rendered block, from the height of one line of the same font. */
static int
count_lines(int height, int line_height)
{
    return MAX(1, (height + line_height / 2) / line_height);
}

/* The longest prefix of `text`, cut at a word boundary, that fits in
 * `max_lines` with "…" appended. log2(words) renders at most. */
static char *
fit_lines(const char *text, const gal_text_style *style, const char *font, int line_height,
    VipsImage **out, GError **error)
{
    g_autoptr(GArray) cuts = g_array_new(FALSE, FALSE, sizeof(gsize));
    gsize lo = 0, hi;
    VipsImage *best = NULL;
    char *best_text = NULL;

    /* Candidate cut points: before each space (word boundaries). */
    for (const char *c = text; *c; c = g_utf8_next_char(c))
        if (c > text && g_unichar_isspace(g_utf8_get_char(c)) &&
            !g_unichar_isspace(g_utf8_get_char(g_utf8_prev_char(c)))) {
            gsize at = c - text;

            g_array_append_val(cuts, at);
        }
    if (cuts->len == 0) {
        /* One long word: cut by characters instead. */
        for (const char *c = g_utf8_next_char(text); *c; c = g_utf8_next_char(c)) {
            gsize at = c - text;

            g_array_append_val(cuts, at);
        }
    }
    hi = cuts->len;
    /* Invariant: cuts[< lo] fit (or lo == 0), cuts[>= hi] do not. */
    while (lo < hi) {
        gsize mid = (lo + hi) / 2;
        gsize at = g_array_index(cuts, gsize, mid);
        g_autofree char *head = g_strndup(text, at);
        g_autofree char *candidate = g_strconcat(g_strchomp(head), "…", NULL);
        g_autofree char *markup = build_markup(candidate, style);
        VipsImage *image;

        if (render_markup(markup, style, font, &image)) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "text layout failed");
            VIPS_UNREF(best);
            g_free(best_text);
            return NULL;
        }
        if (count_lines(image->Ysize, line_height) <= style->max_lines) {
            VIPS_UNREF(best);
            g_free(best_text);
            best = image;
            best_text = g_steal_pointer(&candidate);
            lo = mid + 1;
        }
        else {
            g_object_unref(image);
            hi = mid;
        }
    }
    if (!best) {
        /* Not even the first word fits: the ellipsis alone. */
        g_autofree char *markup = build_markup("…", style);

        if (render_markup(markup, style, font, &best)) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "text layout failed");
            return NULL;
        }
        best_text = g_strdup("…");
    }
    *out = best;
    return best_text;
}

int
gal__text_render(const char *text, const gal_text_style *style, VipsImage **out,
    gal_text_info *info, gal_error *err)
{
    g_autofree char *font = g_strdup_printf("%s %g", style->font, style->size_px);
    g_autofree char *valid = g_utf8_make_valid(text, -1);
    g_autofree char *markup = NULL;
    g_autoptr(VipsImage) line = NULL;
    g_autoptr(VipsImage) block = NULL;
    g_autoptr(VipsImage) faded = NULL;
    VipsImage *result;
    int lines;

    *info = (gal_text_info) { 0 };
    g_strstrip(valid);
    if (!*valid) {
        *out = NULL; /* nothing to draw */
        return 0;
    }
    /* The height of one line in this font, for counting lines. Mixed
     * scripts may make some lines taller; rounding absorbs that. */
    if (render_markup("Ág", style, font, &line))
        return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text layout");
    markup = build_markup(valid, style);
    if (render_markup(markup, style, font, &block))
        return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text layout");
    lines = count_lines(block->Ysize, line->Ysize);
    if (style->max_lines > 0 && lines > style->max_lines) {
        g_autoptr(GError) error = NULL;
        VipsImage *cut = NULL;
        g_autofree char *kept = fit_lines(valid, style, font, line->Ysize, &cut, &error);

        if (!kept)
            return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text layout");
        g_object_unref(block);
        block = cut;
        lines = count_lines(block->Ysize, line->Ysize);
        info->cut = TRUE;
    }
    info->lines = lines;
    info->line_height = line->Ysize;
    result = block;
    if (style->color.a < 255) {
        double scale[4] = { 1, 1, 1, style->color.a / 255.0 };
        double zero[4] = { 0, 0, 0, 0 };

        if (vips_linear(block, &faded, scale, zero, 4, "uchar", TRUE, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text opacity");
        result = faded;
    }
    *out = vips_image_copy_memory(result);
    if (!*out)
        return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text");
    return 0;
}

/* ---- font files ---------------------------------------------------------------- */

static guint
be16(const guchar *p)
{
    return (guint) p[0] << 8 | p[1];
}

static guint32
be32(const guchar *p)
{
    return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

/* The family name in an OpenType/TrueType file's `name` table (Windows
 * Unicode record preferred), so a preset can name a font file and Pango
 * can still be asked for it by family. */
char *
gal__font_file_family(const char *path, GError **error)
{
    g_autofree guchar *data = NULL;
    gsize len;
    guint tables;
    const guchar *name = NULL;
    gsize name_len = 0;
    char *mac = NULL;

    if (!g_file_get_contents(path, (char **) &data, &len, error))
        return NULL;
    /* A collection (.ttc): use its first font. */
    if (len >= 16 && memcmp(data, "ttcf", 4) == 0) {
        guint32 first = be32(data + 12);

        if (first + 12 > len)
            goto bad;
        memmove(data, data + first, len - first);
        len -= first;
    }
    if (len < 12)
        goto bad;
    tables = be16(data + 4);
    for (guint i = 0; i < tables && 12 + 16 * (i + 1) <= len; i++) {
        const guchar *rec = data + 12 + 16 * i;

        if (memcmp(rec, "name", 4) == 0) {
            guint32 off = be32(rec + 8), size = be32(rec + 12);

            if (off > len || size > len - off)
                goto bad;
            name = data + off;
            name_len = size;
        }
    }
    if (!name || name_len < 6)
        goto bad;
    {
        guint count = be16(name + 2), strings = be16(name + 4);

        for (guint i = 0; i < count && 6 + 12 * (i + 1) <= name_len; i++) {
            const guchar *rec = name + 6 + 12 * i;
            guint platform = be16(rec), name_id = be16(rec + 6);
            guint length = be16(rec + 8), offset = be16(rec + 10);

            if (name_id != 1 || strings + offset + length > name_len)
                continue;
            if (platform == 3 || platform == 0) {
                char *family = g_convert((const char *) name + strings + offset, length,
                    "UTF-8", "UTF-16BE", NULL, NULL, NULL);

                if (family) {
                    g_free(mac);
                    return family;
                }
            }
            else if (platform == 1 && !mac)
                mac = g_convert((const char *) name + strings + offset, length, "UTF-8",
                    "MACINTOSH", NULL, NULL, NULL);
        }
    }
    if (mac)
        return mac;
bad:
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s is not a TrueType/OpenType font (no family name found)", path);
    return NULL;
}
