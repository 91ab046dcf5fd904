/* text.c: plain text into pixels, for watermarks, captions and labels.
 *
 * Text is laid out by Pango through vips_text, in RGBA so colour emoji keep
 * their colours and font fallback covers Hangul, CJK and the rest; Pango
 * also does the bidi work, so Hebrew and Arabic come out right to left.
 * Text is data, never markup: every piece is escaped here, and the only
 * markup is the colour spans this file writes itself.
 *
 * Line breaking is Pango's (Unicode line breaking, falling back to single
 * characters for a run longer than a line), steered with invisible
 * characters added before layout: word joiners inside URLs, inside
 * #hashtags and @mentions that have break opportunities (Hangul, CJK) and
 * inside Korean words (keep-all), and a zero-width space between tags
 * written together (#run#wanderlust), so lines break between tags first.
 *
 * Lines are counted exactly, without asking Pango: the same text is laid
 * out a second time with LINE_PROBE_PX of extra space between lines, and
 * the block grows by that much per line break. Cutting to `max_lines` is a
 * bounded binary search over word boundaries, ending the last line in "…".
 *
 * Text that could not show in any case is cut before any layout: a 100 KB
 * caption laid out whole is a block taller than Cairo's largest surface
 * (32767 px), which vips_text refuses, and slow. What `max_lines` lines
 * (or `max_height_px`) of `wrap_px` can show is bounded in characters from
 * the narrowest advance a character can have (MIN_ADVANCE_EM). */
#include <string.h>

#include "internal.h"
#include "schema.h"
#include "text.h"

/* Pango sizes are in points; at 72 dpi a point is a pixel. */
#define TEXT_DPI 72

/* Extra space between lines in the counting layout: far more than the
 * one-pixel rounding of ink extents, so the division is exact. */
#define LINE_PROBE_PX 16

/* No character that takes room is narrower than this share of an em: the
 * narrowest letters and spaces of the fonts in use (i, l, the space, the
 * thin space) are a fifth to a third of an em. A line of W px at S px then
 * holds at most W / (MIN_ADVANCE_EM * S) characters; marks and zero-width
 * characters take no room and are not counted. */
#define MIN_ADVANCE_EM 0.2

/* Text cut by that bound keeps about this share of itself when it is laid
 * out (an average character is about half an em wide): where the search
 * for the cut starts. */
#define PRECUT_SHARE 0.4

/* U+2060 WORD JOINER: no line break here. U+200B ZERO WIDTH SPACE: a line
 * may break here. Both are invisible and take no room. */
#define WORD_JOINER "\xe2\x81\xa0"
#define ZERO_WIDTH_SPACE "\xe2\x80\x8b"

/* ---- what the text is made of ------------------------------------------------- */

typedef enum {
    SEG_PLAIN,
    SEG_TAG, /* #hashtag or @mention */
    SEG_URL,
} seg_kind;

typedef struct {
    seg_kind kind;
    const char *start, *end;
} segment;

static gboolean
is_tag_char(gunichar c)
{
    /* Marks: Devanagari, Thai and others spell words with combining signs. */
    return g_unichar_isalnum(c) || c == '_' || g_unichar_ismark(c);
}

static gboolean
is_hangul(gunichar c)
{
    return g_unichar_get_script(c) == G_UNICODE_SCRIPT_HANGUL && g_unichar_isalpha(c);
}

/* Length of a URL starting at `c` (0 if none): http://, https:// or www.,
 * up to white space or a quote or angle bracket, without the punctuation
 * that usually ends the sentence around it. */
static gsize
url_length(const char *text, const char *c)
{
    const char *end;

    if (c > text && g_unichar_isalnum(g_utf8_get_char(g_utf8_prev_char(c))))
        return 0;
    if (g_ascii_strncasecmp(c, "http://", 7) != 0 && g_ascii_strncasecmp(c, "https://", 8) != 0 &&
        g_ascii_strncasecmp(c, "www.", 4) != 0)
        return 0;
    for (end = c; *end && !g_unichar_isspace(g_utf8_get_char(end)) && !strchr("<>\"", *end);
         end = g_utf8_next_char(end))
        ;
    while (end > c && strchr(".,;:!?'", end[-1]))
        end--;
    if (end > c && end[-1] == ')' && !memchr(c, '(', end - c))
        end--;
    /* "http://" alone is not a link. */
    return end - c > 8 ? (gsize) (end - c) : 0;
}

/* Where the tag starting at `c` (its '#' or '@', then a tag character)
 * ends. An @handle may hold dots between its characters (@jen.loong, as
 * Instagram allows), but a dot that ends the sentence after it is not
 * part of it; a #hashtag never holds one. */
static const char *
tag_end_of(const char *c)
{
    gboolean handle = *c == '@';
    const char *end = g_utf8_next_char(c);

    for (;;) {
        while (*end && is_tag_char(g_utf8_get_char(end)))
            end = g_utf8_next_char(end);
        if (handle && *end == '.' && end[1] && is_tag_char(g_utf8_get_char(end + 1)))
            end++;
        else
            return end;
    }
}

/* Split `text` into plain runs, tags and URLs. A tag starts with # or @
 * followed by a tag character, at the start of a word or right after
 * another tag (#run#wanderlust is two tags, as Instagram reads it). */
static GArray *
segments(const char *text)
{
    GArray *segs = g_array_new(FALSE, FALSE, sizeof(segment));
    const char *run = text, *c = text, *tag_end = NULL;

    while (*c) {
        gunichar ch = g_utf8_get_char(c);
        const char *next = g_utf8_next_char(c);
        gsize url = url_length(text, c);
        segment seg = { SEG_PLAIN, NULL, NULL };

        if (url) {
            seg = (segment) { SEG_URL, c, c + url };
        }
        else if ((ch == '#' || ch == '@') && *next && is_tag_char(g_utf8_get_char(next)) &&
            (c == text || c == tag_end || !is_tag_char(g_utf8_get_char(g_utf8_prev_char(c))))) {
            const char *end = tag_end_of(c);

            seg = (segment) { SEG_TAG, c, end };
            tag_end = end;
        }
        if (seg.start) {
            if (c > run)
                g_array_append_val(segs, ((segment) { SEG_PLAIN, run, c }));
            g_array_append_val(segs, seg);
            run = c = seg.end;
            continue;
        }
        c = next;
    }
    if (c > run)
        g_array_append_val(segs, ((segment) { SEG_PLAIN, run, c }));
    return segs;
}

/* The text of one segment with word joiners where no line may break. */
static void
append_joined(GString *out, const segment *seg)
{
    gunichar prev = 0;

    for (const char *c = seg->start; c < seg->end; c = g_utf8_next_char(c)) {
        gunichar ch = g_utf8_get_char(c);
        gboolean join = FALSE;

        if (prev) {
            switch (seg->kind) {
            case SEG_URL: join = TRUE; break;
            case SEG_TAG: join = prev >= 0x80 || ch >= 0x80; break;
            case SEG_PLAIN: join = is_hangul(prev) && is_hangul(ch); break;
            }
        }
        if (join)
            g_string_append(out, WORD_JOINER);
        g_string_append_unichar(out, ch);
        prev = ch;
    }
}

static void
append_span(GString *markup, const gal_color *color, const char *text)
{
    g_autofree char *escaped = g_markup_escape_text(text, -1);

    if (!color) {
        g_string_append(markup, escaped);
        return;
    }
    g_string_append_printf(markup, "<span foreground=\"#%02x%02x%02x\">%s</span>", (int) color->r,
        (int) color->g, (int) color->b, escaped);
}

/* Escaped markup for `text`; with `colour`, in the style's colour with
 * #hashtags and @mentions in its highlight. Without, plain (for counting:
 * colours do not change the layout). */
static char *
build_markup(const char *text, const gal_text_style *style, gboolean colour)
{
    g_autoptr(GArray) segs = segments(text);
    GString *markup = g_string_new(NULL);

    for (guint i = 0; i < segs->len; i++) {
        const segment *seg = &g_array_index(segs, segment, i);
        const gal_color *color = !colour ? NULL
            : seg->kind == SEG_TAG && style->highlight ? style->highlight
                                                       : &style->color;
        g_autoptr(GString) piece = g_string_new(NULL);

        append_joined(piece, seg);
        if (seg->kind == SEG_TAG && i + 1 < segs->len &&
            g_array_index(segs, segment, i + 1).kind == SEG_TAG &&
            g_array_index(segs, segment, i + 1).start == seg->end)
            g_string_append(piece, ZERO_WIDTH_SPACE);
        append_span(markup, color, piece->str);
    }
    return g_string_free(markup, FALSE);
}

char *
gal__text_break_hints(const char *text)
{
    g_autoptr(GArray) segs = segments(text);
    GString *out = g_string_new(NULL);

    for (guint i = 0; i < segs->len; i++) {
        const segment *seg = &g_array_index(segs, segment, i);

        append_joined(out, seg);
        if (seg->kind == SEG_TAG && i + 1 < segs->len &&
            g_array_index(segs, segment, i + 1).kind == SEG_TAG &&
            g_array_index(segs, segment, i + 1).start == seg->end)
            g_string_append(out, ZERO_WIDTH_SPACE);
    }
    return g_string_free(out, FALSE);
}

gboolean
gal__text_is_rtl(const char *text)
{
    /* The first strong character decides, as Pango decides a paragraph's
     * direction (Unicode bidi rules P2 and P3, by script). */
    for (const char *c = text; *c; c = g_utf8_next_char(c)) {
        gunichar ch = g_utf8_get_char(c);

        if (!g_unichar_isalpha(ch))
            continue;
        switch (g_unichar_get_script(ch)) {
        case G_UNICODE_SCRIPT_ARABIC:
        case G_UNICODE_SCRIPT_HEBREW:
        case G_UNICODE_SCRIPT_SYRIAC:
        case G_UNICODE_SCRIPT_THAANA:
        case G_UNICODE_SCRIPT_NKO:
        case G_UNICODE_SCRIPT_SAMARITAN:
        case G_UNICODE_SCRIPT_MANDAIC:
        case G_UNICODE_SCRIPT_ADLAM:
            return TRUE;
        case G_UNICODE_SCRIPT_COMMON:
        case G_UNICODE_SCRIPT_INHERITED:
            continue;
        default:
            return FALSE;
        }
    }
    return FALSE;
}

/* Line ends as \n, tabs as spaces, other control characters dropped, then
 * trimmed. Invalid UTF-8 has been repaired before. */
static char *
normalise(const char *valid)
{
    GString *out = g_string_new(NULL);

    for (const char *c = valid; *c; c = g_utf8_next_char(c)) {
        gunichar ch = g_utf8_get_char(c);

        if (ch == '\r') {
            if (c[1] != '\n')
                g_string_append_c(out, '\n');
        }
        else if (ch == 0x2028 || ch == 0x2029)
            g_string_append_c(out, '\n');
        else if (ch == '\t')
            g_string_append_c(out, ' ');
        else if (ch == '\n' || !g_unichar_iscntrl(ch))
            g_string_append_unichar(out, ch);
    }
    g_strstrip(out->str);
    /* g_strstrip trims ASCII white space only; Unicode spaces stay, and
     * visible() below decides whether anything is left to draw. */
    return g_string_free(out, FALSE);
}

/* Anything that leaves ink: not white space, not zero-width. */
static gboolean
visible(const char *text)
{
    for (const char *c = text; *c; c = g_utf8_next_char(c)) {
        gunichar ch = g_utf8_get_char(c);

        if (!g_unichar_isspace(ch) && !g_unichar_iszerowidth(ch))
            return TRUE;
    }
    return FALSE;
}

/* ---- layout ------------------------------------------------------------------- */

static int
render_markup(const char *markup, const gal_text_style *style, const char *font,
    gboolean rgba, int spacing, VipsImage **out)
{
    VipsAlign align = style->align == GAL_ALIGN_CENTRE ? VIPS_ALIGN_CENTRE
        : style->align == GAL_ALIGN_RIGHT              ? VIPS_ALIGN_HIGH
                                                       : VIPS_ALIGN_LOW;

    if (style->wrap_px > 0)
        return vips_text(out, markup, "font", font, "fontfile", style->font_file, "dpi", TEXT_DPI,
            "rgba", rgba, "width", style->wrap_px, "wrap", VIPS_TEXT_WRAP_WORD_CHAR, "align",
            align, "spacing", spacing, NULL);
    return vips_text(out, markup, "font", font, "fontfile", style->font_file, "dpi", TEXT_DPI,
        "rgba", rgba, "align", align, "spacing", spacing, NULL);
}

/* The lines of `text`, whose layout is `height` rows of ink: one more
 * alpha-only layout, with LINE_PROBE_PX more between lines. Ink extents
 * start at the first line's ink and end at the last line's, so the
 * difference is exactly LINE_PROBE_PX per line break, whatever fonts each
 * line uses. */
static int
count_lines(const char *text, const gal_text_style *style, const char *font, int height,
    int *lines)
{
    g_autofree char *markup = build_markup(text, style, FALSE);
    g_autoptr(VipsImage) spaced = NULL;

    if (render_markup(markup, style, font, FALSE, LINE_PROBE_PX, &spaced))
        return -1;
    *lines = 1 + (spaced->Ysize - height + LINE_PROBE_PX / 2) / LINE_PROBE_PX;
    return 0;
}

/* Lines and height of `text` as it would be drawn: two alpha-only
 * layouts. */
static int
measure(const char *text, const gal_text_style *style, const char *font, int *lines,
    int *height)
{
    g_autofree char *markup = build_markup(text, style, FALSE);
    g_autoptr(VipsImage) tight = NULL;

    if (render_markup(markup, style, font, FALSE, 0, &tight))
        return -1;
    *height = tight->Ysize;
    return count_lines(text, style, font, *height, lines);
}

/* What the text has to fit in, and the font's line grid. */
typedef struct {
    const gal_text_style *style;
    const char *font; /* "Family Style 12" */
    int max_height_px;
    int line_height;  /* ink of "Ág": one line's box */
    int line_pitch;   /* from one line to the next */
} bounds;

/* The font's line grid: one line's box (from the top of an accented
 * capital to the bottom of a descender), the pitch from one line to the
 * next, and where the box's ink starts in a layout. A pure function of the
 * font, its size and file, and two layouts that every caption would
 * otherwise repeat (a caption that fits takes two more): kept for the
 * process (a run has a few sizes), under a lock, since captions are
 * laid out on every worker. Past MAX_GRIDS sizes, new ones are not kept. */
typedef struct {
    int height, pitch, top;
} line_grid;

#define MAX_GRIDS 64

static GMutex grids_lock;
static GHashTable *grids; /* "font\nfile" -> line_grid */

static int
line_grid_of(const gal_text_style *style, const char *font, line_grid *grid)
{
    g_autofree char *key =
        g_strconcat(font, "\n", style->font_file ? style->font_file : "", NULL);
    g_autoptr(VipsImage) line = NULL;
    g_autoptr(VipsImage) two_lines = NULL;
    const line_grid *known;
    gboolean found = FALSE;

    g_mutex_lock(&grids_lock);
    if (grids && (known = g_hash_table_lookup(grids, key))) {
        *grid = *known;
        found = TRUE;
    }
    g_mutex_unlock(&grids_lock);
    if (found)
        return 0;
    if (render_markup("Ág", style, font, FALSE, 0, &line) ||
        render_markup("Ág\nÁg", style, font, FALSE, 0, &two_lines))
        return -1;
    *grid = (line_grid) { line->Ysize, two_lines->Ysize - line->Ysize, line->Yoffset };
    g_mutex_lock(&grids_lock);
    if (!grids)
        grids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    if (g_hash_table_size(grids) < MAX_GRIDS)
        g_hash_table_replace(grids, g_steal_pointer(&key), g_memdup2(grid, sizeof *grid));
    g_mutex_unlock(&grids_lock);
    return 0;
}

/* The block's height on the line grid, or its ink if that is taller. */
static int
box_height(const bounds *b, int lines, int ink_height)
{
    return MAX(ink_height, b->line_height + (lines - 1) * b->line_pitch);
}

static gboolean
fits(const bounds *b, int lines, int height)
{
    return (b->style->max_lines <= 0 || lines <= b->style->max_lines) &&
        (b->max_height_px <= 0 || box_height(b, lines, height) <= b->max_height_px);
}

/* A cut between two characters that draw as one (a base and its accent,
 * the parts of an emoji sequence) would break the drawing. */
static gboolean
cuttable_before(const char *c)
{
    gunichar ch = g_utf8_get_char(c);
    gunichar prev = g_utf8_get_char(g_utf8_prev_char(c));

    return !g_unichar_ismark(ch) && ch != 0x200d && prev != 0x200d && ch != 0xfe0e &&
        ch != 0xfe0f && !(ch >= 0x1f3fb && ch <= 0x1f3ff) && !(ch >= 0xe0020 && ch <= 0xe007f);
}

/* The longest prefix of `text`, cut at a word boundary (or, when not even
 * the first word fits, between characters of it), that fits with "…"
 * appended. The search starts from `guess` (an index into the word
 * boundaries: where the cut would fall if every line held as much text),
 * gallops away from it until it has seen one candidate that fits and one
 * that does not, then bisects between them: a guess a word or two off
 * costs two to four measurements, a bad one at most 2 log2(words). Returns
 * NULL with *failed set when layout fails, NULL alone when not even "…"
 * fits; *lines and *height describe the result. */
static char *
fit_text(const char *text, const bounds *b, double keep_fraction, gboolean *failed, int *lines,
    int *height)
{
    g_autoptr(GArray) cuts = g_array_new(FALSE, FALSE, sizeof(gsize));
    char *best = NULL;
    gsize first_word_end = strlen(text);

    *failed = FALSE;
    /* Word boundaries: before each run of white space. */
    for (const char *c = text; *c; c = g_utf8_next_char(c))
        if (c > text && g_unichar_isspace(g_utf8_get_char(c)) &&
            !g_unichar_isspace(g_utf8_get_char(g_utf8_prev_char(c)))) {
            gsize at = c - text;

            if (cuts->len == 0)
                first_word_end = at;
            g_array_append_val(cuts, at);
        }
    for (int pass = 0; pass < 2 && !best; pass++) {
        /* Invariant: cuts[< lo] fit, cuts[>= hi] do not. */
        gssize lo = 0, hi, probe, step = 1;
        gboolean seen_fit = FALSE, seen_miss = FALSE;
        gsize span = strlen(text);

        if (pass == 1) {
            /* Not even the first word fits: cut inside it. */
            g_array_set_size(cuts, 0);
            for (const char *c = g_utf8_next_char(text); (gsize) (c - text) < first_word_end;
                 c = g_utf8_next_char(c))
                if (cuttable_before(c)) {
                    gsize at = c - text;

                    g_array_append_val(cuts, at);
                }
            span = first_word_end;
        }
        hi = (gssize) cuts->len;
        /* The first cut at or past that share of the text. */
        for (probe = 0; probe < hi - 1; probe++)
            if (g_array_index(cuts, gsize, probe) >= keep_fraction * span)
                break;
        while (lo < hi) {
            g_autofree char *head = NULL;
            g_autofree char *candidate = NULL;
            int l, h;

            probe = seen_fit && seen_miss ? lo + (hi - lo) / 2 : CLAMP(probe, lo, hi - 1);
            head = g_strndup(text, g_array_index(cuts, gsize, probe));
            candidate = g_strconcat(g_strchomp(head), "…", NULL);
            if (measure(candidate, b->style, b->font, &l, &h)) {
                *failed = TRUE;
                g_free(best);
                return NULL;
            }
            if (fits(b, l, h)) {
                g_free(best);
                best = g_steal_pointer(&candidate);
                *lines = l;
                *height = h;
                lo = probe + 1;
                probe += step;
                seen_fit = TRUE;
            }
            else {
                hi = probe;
                probe -= step;
                seen_miss = TRUE;
            }
            step *= 2;
        }
    }
    if (!best) {
        int l, h;

        if (measure("…", b->style, b->font, &l, &h)) {
            *failed = TRUE;
            return NULL;
        }
        if (fits(b, l, h)) {
            best = g_strdup("…");
            *lines = l;
            *height = h;
        }
    }
    return best;
}

/* The most lines the block may have: max_lines, and what max_height_px
 * holds on the font's line grid; 0 for no bound. */
static int
lines_bound(const bounds *b)
{
    int lines = b->style->max_lines > 0 ? b->style->max_lines : 0;

    if (b->max_height_px > 0 && b->line_pitch > 0) {
        int by_height = MAX(1, (b->max_height_px - b->line_height) / b->line_pitch + 1);

        lines = lines > 0 ? MIN(lines, by_height) : by_height;
    }
    return lines;
}

/* How many bytes of `text` could possibly be shown: it is cut where even
 * the narrowest characters would have filled every line allowed, each
 * line break ending a line. Returns strlen(text) when all of it could. */
static gsize
could_show(const char *text, const bounds *b)
{
    int max_lines = lines_bound(b);
    double per_line = b->style->wrap_px > 0
        ? MAX(1.0, b->style->wrap_px / (MIN_ADVANCE_EM * b->style->size_px))
        : G_MAXDOUBLE;
    double in_line = 0;
    int lines = 1;
    const char *c;

    if (max_lines <= 0)
        return strlen(text);
    for (c = text; *c; c = g_utf8_next_char(c)) {
        gunichar ch = g_utf8_get_char(c);

        if (ch == '\n') {
            if (++lines > max_lines)
                break;
            in_line = 0;
        }
        else if (!g_unichar_iszerowidth(ch) && !g_unichar_ismark(ch) && ++in_line > per_line) {
            if (++lines > max_lines)
                break;
            in_line = 1;
        }
    }
    return c - text;
}

int
gal__text_render(const char *text, const gal_text_style *style, VipsImage **out,
    gal_text_info *info, gal_error *err)
{
    return gal__text_render_bounded(text, style, 0, out, info, err);
}

int
gal__text_render_bounded(const char *text, const gal_text_style *style, int max_height_px,
    VipsImage **out, gal_text_info *info, gal_error *err)
{
    g_autofree char *font = g_strdup_printf("%s %g", style->font, style->size_px);
    bounds b = { style, font, max_height_px, 0, 0 };
    g_autofree char *valid = g_utf8_make_valid(text, -1);
    g_autofree char *clean = normalise(valid);
    g_autofree char *kept = NULL;
    g_autofree char *markup = NULL;
    g_autoptr(VipsImage) block = NULL;
    g_autoptr(VipsImage) faded = NULL;
    VipsImage *result;
    gboolean precut;
    gsize shown;
    int lines = 0, height = 0;
    line_grid grid;

    *info = (gal_text_info) { 0 };
    *out = NULL;
    if (!visible(clean))
        return 0; /* nothing to draw */
    info->rtl = gal__text_is_rtl(clean);
    if (line_grid_of(style, font, &grid))
        return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text layout");
    info->line_height = b.line_height = grid.height;
    info->line_pitch = b.line_pitch = grid.pitch;
    /* What cannot show goes before any layout; then the whole of what is
     * left is not laid out either, since it is surely cut. */
    shown = could_show(clean, &b);
    precut = clean[shown] != '\0';
    clean[shown] = '\0';
    if (!precut) {
        /* Most captions fit whole: drawn as they will be shown, their
         * drawing's ink is the height, and one more layout the lines (a
         * layout's ink does not depend on its colours). */
        markup = build_markup(clean, style, TRUE);
        if (render_markup(markup, style, font, TRUE, 0, &block) ||
            count_lines(clean, style, font, block->Ysize, &lines))
            return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text layout");
        height = block->Ysize;
    }
    if (!precut && fits(&b, lines, height))
        kept = g_steal_pointer(&clean);
    else {
        gboolean failed;
        /* About this share of the text fits, taking its last line as half
         * full: where the search for the cut starts. */
        double share = precut ? PRECUT_SHARE
                              : MIN(style->max_lines > 0 ? style->max_lines / (lines - 0.5) : 1.0,
                                    max_height_px > 0 ? (double) max_height_px / height : 1.0);

        info->cut = TRUE;
        g_clear_object(&block);
        g_clear_pointer(&markup, g_free);
        kept = fit_text(clean, &b, share, &failed, &lines, &height);
        if (failed)
            return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text layout");
        if (!kept)
            return 0; /* not even "…" fits in max_height_px */
    }
    info->lines = lines;
    if (!block) {
        markup = build_markup(kept, style, TRUE);
        if (render_markup(markup, style, font, TRUE, 0, &block))
            return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "text layout");
    }
    /* vips_text keeps where its ink starts in the layout as the offset. */
    info->ink_top = block->Yoffset - grid.top;
    info->box_height = box_height(&b, lines, block->Ysize);
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

char **
gal__text_tags(const char *text)
{
    g_autoptr(GArray) segs = segments(text);
    GPtrArray *tags = g_ptr_array_new();

    for (guint i = 0; i < segs->len; i++) {
        const segment *seg = &g_array_index(segs, segment, i);

        if (seg->kind == SEG_TAG)
            g_ptr_array_add(tags, g_strndup(seg->start, seg->end - seg->start));
    }
    g_ptr_array_add(tags, NULL);
    return (char **) g_ptr_array_free(tags, FALSE);
}
