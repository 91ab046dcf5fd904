/* Text rendering shared by watermarks, captions and labels: text is data,
 * never markup; wrapping, cutting with an ellipsis, highlights, scripts. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(text, .init = gal_test_setup, .fini = gal_test_teardown);

static gal_text_style
style(double size_px)
{
    return (gal_text_style) { "DejaVu Sans", NULL, size_px, { 255, 255, 255, 255, FALSE }, NULL, 0,
        GAL_ALIGN_LEFT, 0 };
}

static VipsImage *
render(const char *text, const gal_text_style *st, gal_text_info *info)
{
    gal_error err = { 0 };
    VipsImage *out = NULL;

    cr_assert_eq(gal__text_render(text, st, &out, info, &err), 0, "%s: %s", text, err.msg);
    return out;
}

/* Sum of alpha: how much ink a rendering has. */
static double
ink(VipsImage *image)
{
    g_autoptr(VipsImage) alpha = NULL;
    double avg;

    cr_assert_eq(vips_extract_band(image, &alpha, 3, NULL), 0);
    cr_assert_eq(vips_avg(alpha, &avg, NULL), 0);
    return avg * image->Xsize * image->Ysize;
}

Test(text, markup_characters_render_literally)
{
    gal_text_style st = style(20);
    gal_text_info info;
    g_autoptr(VipsImage) plain = render("a b", &st, &info);
    g_autoptr(VipsImage) tricky = render("a <span foreground=\"red\">&amp;</span> b", &st, &info);
    g_autoptr(VipsImage) html = render("<a href=\"http://x\">Jen</a> & <b>", &st, &info);

    cr_assert_not_null(tricky);
    cr_assert_not_null(html);
    /* Literal text is much wider than the two letters markup would leave. */
    cr_expect_gt(tricky->Xsize, 8 * plain->Xsize, "%d vs %d", tricky->Xsize, plain->Xsize);
    cr_expect_gt(ink(html), 0);
}

Test(text, blank_text_draws_nothing)
{
    gal_text_style st = style(20);
    gal_text_info info;
    gal_error err = { 0 };
    VipsImage *out = (VipsImage *) 1;

    cr_assert_eq(gal__text_render("  \n ", &st, &out, &info, &err), 0);
    cr_expect_null(out);
    cr_expect_eq(info.lines, 0);
}

Test(text, hangul_and_emoji_have_ink)
{
    gal_text_style st = style(24);
    gal_text_info info;
    g_autoptr(VipsImage) hangul = render("고려식 상차림", &st, &info);
    g_autoptr(VipsImage) emoji = render("🏃", &st, &info);

    cr_expect_gt(ink(hangul), 255.0 * 100, "Hangul has ink");
    cr_expect_gt(ink(emoji), 255.0 * 20, "emoji has ink");
}

Test(text, colour_and_highlight_are_applied)
{
    gal_color blue = { 0, 0, 255, 255, FALSE };
    gal_text_style st = style(40);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;
    g_autoptr(VipsImage) left = NULL;
    g_autoptr(VipsImage) right = NULL;
    g_autoptr(VipsImage) left_stats = NULL;
    g_autoptr(VipsImage) right_stats = NULL;
    double *l, *r;
    int n;

    st.color = (gal_color) { 255, 0, 0, 255, FALSE };
    st.highlight = &blue;
    out = render("MMMM #MMMM", &st, &info);
    /* Brightest red on the left half, brightest blue on the right. */
    cr_assert_eq(vips_extract_area(out, &left, 0, 0, out->Xsize / 3, out->Ysize, NULL), 0);
    cr_assert_eq(vips_extract_area(out, &right, 2 * out->Xsize / 3, 0, out->Xsize / 3,
        out->Ysize, NULL), 0);
    cr_assert_eq(vips_stats(left, &left_stats, NULL), 0);
    cr_assert_eq(vips_stats(right, &right_stats, NULL), 0);
    /* vips_stats: row 1 + b is band b, column 1 its maximum */
    cr_assert_eq(vips_getpoint(left_stats, &l, &n, 1, 1, NULL), 0);
    cr_assert_eq(vips_getpoint(right_stats, &r, &n, 1, 3, NULL), 0);
    cr_expect_eq(l[0], 255, "red text on the left");
    cr_expect_eq(r[0], 255, "blue hashtag on the right");
    g_free(l);
    g_free(r);
}

Test(text, wraps_and_cuts_to_max_lines_with_an_ellipsis)
{
    const char *caption = "That time I ran through the streets of #pyongyang unguided amongst 800 "
                          "#runners (200 of whom were foreigners) for the Pyongyang #Marathon. "
                          "Fascinating warmth and curiosity amongst the streets.";
    gal_text_style st = style(20);
    gal_text_info full, cut;
    g_autoptr(VipsImage) all = NULL;
    g_autoptr(VipsImage) two = NULL;

    st.wrap_px = 300;
    all = render(caption, &st, &full);
    cr_expect_gt(full.lines, 3, "%d lines", full.lines);
    cr_expect_not(full.cut);
    cr_expect_leq(all->Xsize, 300);
    st.max_lines = 2;
    two = render(caption, &st, &cut);
    cr_expect_eq(cut.lines, 2);
    cr_expect(cut.cut);
    cr_expect_lt(two->Ysize, all->Ysize);
    cr_expect_leq(two->Ysize, 2 * cut.line_height + cut.line_height / 2, "height %d, line %d",
        two->Ysize, cut.line_height);
}

Test(text, one_long_word_is_cut_by_characters)
{
    gal_text_style st = style(20);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;

    st.wrap_px = 100;
    st.max_lines = 1;
    out = render("http://www.huffingtonpost.ca/2014/04/23/canadian-runs-north-korean-marathon",
        &st, &info);
    cr_expect_eq(info.lines, 1);
    cr_expect(info.cut);
}

Test(text, reads_the_family_of_a_font_file)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *family =
        gal__font_file_family("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", &error);

    cr_assert_not_null(family, "%s", error ? error->message : "");
    cr_expect_str_eq(family, "DejaVu Sans");
    cr_expect_null(gal__font_file_family(GAL_FIXTURES_DIR "/trip/trip-01.jpg", NULL));
}

/* A font collection whose first-font offset is near 4 GiB: offset + 12
 * wrapped to a small number, passed the bounds check, and the copy of the
 * first font was read from 4 GiB past the file's buffer. A preset can name
 * any file as its font (found reviewing the preset loader's inputs, issue
 * 12). */
Test(text, a_font_collection_offset_past_the_file_is_refused)
{
    static const unsigned char ttc[] = { 't', 't', 'c', 'f', 0, 1, 0, 0, 0, 0, 0, 1,
        0xff, 0xff, 0xff, 0xf8, 0, 0, 0, 0 };
    g_autofree char *dir = gal_test_tmpdir("ttc");
    g_autofree char *path = g_build_filename(dir, "bad.ttc", NULL);
    g_autoptr(GError) error = NULL;

    cr_assert(g_file_set_contents(path, (const char *) ttc, sizeof(ttc), NULL));
    cr_expect_null(gal__font_file_family(path, &error));
    cr_expect(error && strstr(error->message, "is not a TrueType/OpenType font"));
}

/* An @handle keeps its dots (@jen.loong) and a #hashtag its underscores,
 * coloured whole; the dot ending a sentence is not the handle's. */
Test(text, handles_with_dots_and_tags_with_underscores_are_coloured_whole)
{
    g_auto(GStrv) tags = gal__text_tags("Shot by @jen.loong. #tags_with_underscores, "
                                        "@a.b.c_d! #run#wanderlust @x. end #n.k");
    const char *const want[] = { "@jen.loong", "#tags_with_underscores", "@a.b.c_d", "#run",
        "#wanderlust", "@x", "#n", NULL };
    gal_color blue = { 0, 0, 255, 255, FALSE };
    gal_text_style st = style(40);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;
    g_autoptr(VipsImage) right = NULL;
    g_autoptr(VipsImage) right_stats = NULL;
    double *r;
    int n;

    cr_assert_eq(g_strv_length(tags), g_strv_length((char **) want), "%u tags",
        g_strv_length(tags));
    for (int i = 0; want[i]; i++)
        cr_expect_str_eq(tags[i], want[i]);

    /* In pixels: red text, blue tags; the handle's part after its dot is
     * blue, not red. */
    st.color = (gal_color) { 255, 0, 0, 255, FALSE };
    st.highlight = &blue;
    out = render("@MMMM.MMMM", &st, &info);
    cr_assert_eq(vips_extract_area(out, &right, 2 * out->Xsize / 3, 0, out->Xsize / 3,
        out->Ysize, NULL), 0);
    cr_assert_eq(vips_stats(right, &right_stats, NULL), 0);
    /* vips_stats: row 1 + b is band b, column 1 its maximum */
    cr_assert_eq(vips_getpoint(right_stats, &r, &n, 1, 1, NULL), 0);
    cr_expect_eq(r[0], 0, "no red in the handle's end (max red %g)", r[0]);
    g_free(r);
}

/* ---- line breaking, counting, cutting ------------------------------------------------ */

#define WJ "\xe2\x81\xa0"
#define ZWSP "\xe2\x80\x8b"

Test(text, break_hints_keep_urls_tags_and_korean_words_whole)
{
    g_autofree char *url = gal__text_break_hints("see http://a.b/c-d, ok");
    g_autofree char *tags = gal__text_break_hints("#run#wanderlust @jen_l #북한");
    g_autofree char *korean = gal__text_break_hints("고려식 상차림");
    g_autofree char *email = gal__text_break_hints("jen@example.com #1");

    cr_expect_str_eq(url, "see h" WJ "t" WJ "t" WJ "p" WJ ":" WJ "/" WJ "/" WJ "a" WJ "." WJ
                          "b" WJ "/" WJ "c" WJ "-" WJ "d, ok",
        "the URL ends before the comma");
    cr_expect_str_eq(tags, "#run" ZWSP "#wanderlust @jen_l #" WJ "북" WJ "한",
        "Latin tags need no joiners; tags written together get a break between them");
    cr_expect_str_eq(korean, "고" WJ "려" WJ "식 상" WJ "차" WJ "림");
    cr_expect_str_eq(email, "jen@example.com #1", "an address is not a mention");
}

/* Width of the ink in the rows of `image` from `top` down. */
static int
ink_width(VipsImage *image, int top)
{
    g_autoptr(VipsImage) rows = NULL;
    g_autoptr(VipsImage) alpha = NULL;
    g_autoptr(VipsImage) cols = NULL;
    g_autoptr(VipsImage) rowsum = NULL;
    int left = -1, right = -1;
    double *v;
    int n;

    cr_assert_eq(vips_extract_area(image, &rows, 0, top, image->Xsize, image->Ysize - top,
        NULL), 0);
    cr_assert_eq(vips_extract_band(rows, &alpha, 3, NULL), 0);
    cr_assert_eq(vips_project(alpha, &cols, &rowsum, NULL), 0);
    for (int x = 0; x < cols->Xsize; x++) {
        cr_assert_eq(vips_getpoint(cols, &v, &n, x, 0, NULL), 0);
        if (v[0] > 0) {
            if (left < 0)
                left = x;
            right = x;
        }
        g_free(v);
    }
    return left < 0 ? 0 : right - left + 1;
}

Test(text, a_url_that_fits_a_line_moves_to_the_next_one_whole)
{
    const char *url = "http://www.example.com/2014/04/23/canadian-runs-north-korean";
    g_autofree char *text = g_strdup_printf("Read %s", url);
    gal_text_style st = style(20);
    gal_text_info one, two;
    g_autoptr(VipsImage) alone = render(url, &st, &one);
    g_autoptr(VipsImage) wrapped = NULL;

    st.wrap_px = alone->Xsize + 4;
    wrapped = render(text, &st, &two);
    cr_expect_eq(two.lines, 2);
    /* Without joiners Pango would break after a / or - and leave a short
     * piece of the URL on the second line. */
    cr_expect_geq(ink_width(wrapped, wrapped->Ysize - one.line_height + 2), alone->Xsize - 2,
        "the second line holds the whole URL");
}

Test(text, a_url_longer_than_a_line_breaks_between_characters)
{
    gal_text_style st = style(20);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;

    st.wrap_px = 150;
    out = render("http://www.huffingtonpost.ca/2014/04/23/canadian-runs-north-korean-marathon",
        &st, &info);
    cr_expect_gt(info.lines, 2);
    cr_expect_leq(out->Xsize, 150);
    cr_expect_not(info.cut);
}

Test(text, lines_are_counted_exactly_whatever_the_fonts)
{
    gal_text_style st = style(20);
    gal_text_info info;
    g_autoptr(VipsImage) a = render("Latin line\n고려식 상차림 (Noto CJK is taller)\n🏃 emoji\nend", &st,
        &info);
    g_autoptr(VipsImage) b = NULL;

    cr_expect_eq(info.lines, 4);
    b = render("one\n\nthree, after an empty line", &st, &info);
    cr_expect_eq(info.lines, 3);
}

Test(text, cut_text_is_a_word_prefix_and_an_ellipsis)
{
    const char *caption = "Get ready for the gram spam! Safely landed back from #northkorea after "
                          "a week unplugged. No phones allowed on the race, but started and "
                          "ended the 27th Myanggae Prize Marathon with a full stadium.";
    gal_text_style st = style(20);
    gal_text_info info, probe_info;
    g_autoptr(VipsImage) cut = NULL;
    g_auto(GStrv) words = g_strsplit(caption, " ", -1);
    gboolean matched = FALSE;

    st.wrap_px = 260;
    st.max_lines = 3;
    cut = render(caption, &st, &info);
    cr_assert(info.cut);
    cr_expect_eq(info.lines, 3);
    /* Rendering is deterministic: some prefix of whole words plus "…"
     * must give exactly the same pixels, and it must be the longest that
     * fits. */
    for (int n = g_strv_length(words) - 1; n > 0 && !matched; n--) {
        char *cut_at = words[n];
        g_autofree char *head = NULL;
        g_autofree char *candidate = NULL;
        g_autoptr(VipsImage) probe = NULL;
        gal_text_style plain = st;
        double max_abs, mean_abs;

        words[n] = NULL; /* join the first n words, then put the word back */
        head = g_strjoinv(" ", words);
        words[n] = cut_at;
        candidate = g_strconcat(head, "…", NULL);
        plain.max_lines = 0;
        probe = render(candidate, &plain, &probe_info);
        if (probe_info.lines > 3)
            continue;
        matched = gal_test_diff(probe, cut, &max_abs, &mean_abs) == 0 && max_abs == 0;
        cr_expect(matched, "the longest prefix that fits (\"%s\") is not what was drawn",
            candidate);
        break;
    }
}

Test(text, a_height_bound_cuts_like_max_lines)
{
    const char *caption = "That time I ran through the streets of #pyongyang unguided amongst 800 "
                          "#runners (200 of whom were foreigners) for the Pyongyang #Marathon.";
    gal_text_style st = style(20);
    gal_text_info info;
    gal_error err = { 0 };
    g_autoptr(VipsImage) out = NULL;
    VipsImage *none = (VipsImage *) 1;

    st.wrap_px = 200;
    cr_assert_eq(gal__text_render_bounded(caption, &st, 60, &out, &info, &err), 0, "%s", err.msg);
    cr_expect_leq(out->Ysize, 60);
    cr_expect(info.cut);
    cr_expect_eq(info.lines, 2);
    /* Not even "…" fits: nothing is drawn, and that is not an error. */
    cr_assert_eq(gal__text_render_bounded(caption, &st, 3, &none, &info, &err), 0);
    cr_expect_null(none);
    cr_expect(info.cut);
}

Test(text, invisible_control_and_broken_text_never_fails)
{
    gal_text_style st = style(20);
    gal_text_info info;
    gal_error err = { 0 };
    VipsImage *out = (VipsImage *) 1;
    g_autoptr(VipsImage) repaired = NULL;
    g_autoptr(VipsImage) controls = NULL;

    cr_assert_eq(gal__text_render(ZWSP WJ "\xe2\x80\x8d\t\r\n", &st, &out, &info, &err), 0);
    cr_expect_null(out, "zero-width characters alone draw nothing");
    repaired = render("caf\xe9 \xff\xfe ok", &st, &info);
    cr_expect_eq(info.lines, 1);
    controls = render("a\x01\x1b[31mb\x7f\r\nc", &st, &info);
    cr_expect_eq(info.lines, 2, "\\r\\n is one line break; other controls are dropped");
}

Test(text, right_to_left_text_is_detected_and_aligned_from_the_right)
{
    gal_text_style st = style(24);
    gal_text_info info;
    g_autoptr(VipsImage) hebrew = NULL;

    cr_expect(gal__text_is_rtl("#תגית שלום hello"));
    cr_expect(gal__text_is_rtl("  2014 مرحبا"));
    cr_expect_not(gal__text_is_rtl("hello שלום"));
    cr_expect_not(gal__text_is_rtl("고려식 #dprk"));
    cr_expect_not(gal__text_is_rtl("🏃 123"));
    st.wrap_px = 300;
    hebrew = render("שלום עולם! זה כיתוב ארוך בעברית עם מספר 2014 ועוד מילים", &st, &info);
    cr_expect(info.rtl);
    cr_expect_gt(info.lines, 1);
    cr_expect_gt(ink(hebrew), 255.0 * 200);
}

/* `unit` repeated to at least `bytes` bytes. */
static char *
repeat(const char *unit, gsize bytes)
{
    GString *s = g_string_new(NULL);

    while (s->len < bytes)
        g_string_append(s, unit);
    return g_string_free(s, FALSE);
}

static VipsImage *
render_bounded(const char *text, const gal_text_style *st, int max_height, gal_text_info *info)
{
    /* Messages quote the start of the text only: these are 100 KB. */
    gal_error err = { 0 };
    VipsImage *out = NULL;

    cr_assert_eq(gal__text_render_bounded(text, st, max_height, &out, info, &err), 0,
        "%.60s...: %s", text, err.msg);
    cr_assert_not_null(out);
    return out;
}

/* Laid out whole, 100 KB is a block taller than Cairo's largest surface,
 * which vips_text refuses ("invalid value (typically too big)"): what
 * cannot show is cut first, and the result is the same as for a text that
 * was never that long. */
Test(text, a_100_kb_text_is_cut_to_max_lines_like_a_short_one, .timeout = 30)
{
    g_autofree char *huge = repeat("That time I ran through the streets of #pyongyang with 800 "
                                   "#runners for the #Marathon. ",
        100 * 1024);
    /* 300 characters: below the bound (4 lines of 600 px at 20 px hold
     * at most 600), so laid out whole, and still six lines or so. */
    g_autofree char *head = g_utf8_substring(huge, 0, 300);
    gal_text_style st = style(20);
    gal_text_info info, head_info;
    g_autoptr(VipsImage) out = NULL;
    g_autoptr(VipsImage) short_out = NULL;
    gint64 start = g_get_monotonic_time();
    double seconds, max_abs, mean_abs;

    st.wrap_px = 600;
    st.max_lines = 4;
    out = render_bounded(huge, &st, 0, &info);
    seconds = (g_get_monotonic_time() - start) / 1e6;
    cr_expect_lt(seconds, 2.0, "took %.2f s", seconds);
    cr_expect(info.cut);
    cr_expect_eq(info.lines, 4);
    cr_expect_leq(out->Xsize, 600);
    short_out = render(head, &st, &head_info);
    cr_expect(head_info.cut);
    cr_assert_eq(gal_test_diff(out, short_out, &max_abs, &mean_abs), 0, "sizes differ");
    cr_expect_eq(max_abs, 0, "the long text is not drawn as its start is");
}

Test(text, one_100_kb_word_is_cut_by_characters, .timeout = 30)
{
    g_autofree char *word = repeat("x", 100 * 1024);
    gal_text_style st = style(20);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;

    st.wrap_px = 300;
    st.max_lines = 2;
    out = render_bounded(word, &st, 0, &info);
    cr_expect(info.cut);
    cr_expect_eq(info.lines, 2);
    cr_expect_leq(out->Xsize, 300);
}

Test(text, fifty_thousand_lines_are_cut_to_max_lines, .timeout = 30)
{
    g_autofree char *lines = repeat("a line\n", 100 * 1024);
    gal_text_style st = style(20);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;

    st.wrap_px = 300;
    st.max_lines = 3;
    out = render_bounded(lines, &st, 0, &info);
    cr_expect(info.cut);
    cr_expect_eq(info.lines, 3);
}

/* caption-burn's case: no line limit, only the height of half a photo. */
Test(text, a_100_kb_text_is_cut_to_a_height_bound, .timeout = 30)
{
    g_autofree char *huge = repeat("Fascinating warmth and curiosity amongst the streets. ",
        100 * 1024);
    gal_text_style st = style(20);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;

    st.wrap_px = 500;
    out = render_bounded(huge, &st, 400, &info);
    cr_expect(info.cut);
    cr_expect_leq(out->Ysize, 400);
    cr_expect_gt(info.lines, 10, "%d lines in 400 px", info.lines);
}

/* A font's line grid is worked out once per size and kept: a caption laid
 * out again after another size gets the grid of its own size, and the same
 * pixels and layout as the first time. */
Test(text, the_line_grid_kept_for_a_size_is_that_sizes)
{
    gal_text_style small = style(20), large = style(40);
    gal_text_info first, other, again;
    g_autoptr(VipsImage) a = NULL;
    g_autoptr(VipsImage) b = NULL;
    g_autoptr(VipsImage) c = NULL;
    double max_abs, mean_abs;

    small.wrap_px = large.wrap_px = 300;
    a = render("A caption long enough to wrap onto a second line, or a third", &small, &first);
    b = render("A caption long enough to wrap onto a second line, or a third", &large, &other);
    c = render("A caption long enough to wrap onto a second line, or a third", &small, &again);
    cr_expect_gt(other.line_height, first.line_height, "40 px lines (%d) taller than 20 px (%d)",
        other.line_height, first.line_height);
    cr_expect_gt(other.line_pitch, first.line_pitch);
    cr_expect_eq(again.line_height, first.line_height);
    cr_expect_eq(again.line_pitch, first.line_pitch);
    cr_expect_eq(again.box_height, first.box_height);
    cr_expect_eq(again.ink_top, first.ink_top);
    cr_expect_eq(again.lines, first.lines);
    cr_assert_eq(gal_test_diff(a, c, &max_abs, &mean_abs), 0, "the two layouts differ in size");
    cr_expect_eq(max_abs, 0);
}
