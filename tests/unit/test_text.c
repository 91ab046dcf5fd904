/* Text rendering shared by watermarks, captions and labels: text is data,
 * never markup; wrapping, cutting with an ellipsis, highlights, scripts. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(text, .init = gal_test_setup, .fini = gal_test_teardown);

static gal_text_style
style(double size_px)
{
    return (gal_text_style) { "DejaVu Sans", NULL, size_px, { 255, 255, 255, 255 }, NULL, 0,
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
    gal_color blue = { 0, 0, 255, 255 };
    gal_text_style st = style(40);
    gal_text_info info;
    g_autoptr(VipsImage) out = NULL;
    g_autoptr(VipsImage) left = NULL;
    g_autoptr(VipsImage) right = NULL;
    g_autoptr(VipsImage) left_stats = NULL;
    g_autoptr(VipsImage) right_stats = NULL;
    double *l, *r;
    int n;

    st.color = (gal_color) { 255, 0, 0, 255 };
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
