/* Gallery pages: what tap() keeps of a photo, and the HTML of a page made
 * from synthetic items: escaping of every text, links, sizes, srcset over
 * several widths, rows as the contact sheet lays them out, navigation,
 * same bytes for the same items. The page in a browser: tests/gallery. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"
#include "glance.h"
#include "job.h"
#include "zipfile.h"

TestSuite(stage_gallery, .init = gal_test_setup, .fini = gal_test_teardown);

static gal_preset *
gallery_preset(const char *opts)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - gallery: %s\n", opts);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);

    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    return preset;
}

/* Items as the engine hands them to the page: tap()'s, with the files the
 * photo stands for. `caption` may be NULL. */
static VipsImage *
item(const gal_stage_instance *st, int width, int height, const char *name, const char *caption,
    const char *variants)
{
    gal_stage_ctx sc = gal__stage_ctx(st);
    gal_error err = { 0 };
    g_autoptr(VipsImage) photo = gal_test_gradient(width, height);
    gal_facts facts = { .name = name, .caption = caption, .camera = "Apple iPhone 5s",
        .exposure = "1/640 s f/2.2 ISO 32" };
    gal_photo in = { &facts, NULL };
    VipsImage *out = NULL;

    cr_assert_eq(st->def->tap(&sc, &in, photo, &out, &err), 0, "%s", err.msg);
    if (variants)
        vips_image_set_string(out, GAL_META_OUTPUTS, variants);
    else
        gal__item_set_outputs(out, name, width, height, GAL_FORMAT_JPEG);
    return out;
}

static char *
page_text(const gal_stage_instance *st, VipsImage **items, int n, const gal_page *page)
{
    gal_stage_ctx sc = gal__stage_ctx(st);
    gal_error err = { 0 };
    GString *text = NULL;

    cr_assert_not_null(st->def->build_text);
    cr_assert_eq(st->def->build_text(&sc, items, n, page, &text, &err), 0, "%s", err.msg);
    return g_string_free(text, FALSE);
}

Test(stage_gallery, the_item_is_the_placeholder_and_the_label_what_the_page_says)
{
    gal_preset *preset = gallery_preset("{}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    g_autoptr(VipsImage) with = item(st, 640, 480, "a.jpg", "Sunset", NULL);
    g_autoptr(VipsImage) without = item(st, 300, 600, "b.jpg", NULL, NULL);
    const char *label;

    cr_expect_eq(with->Xsize, GAL_GLANCE_WIDTH);
    cr_expect_eq(with->Ysize, 12);
    cr_expect_eq(with->Bands, 3);
    cr_assert_eq(vips_image_get_string(with, GAL_META_LABEL, &label), 0);
    cr_expect(g_str_has_prefix(label, "Sunset\x1fSunset\x1f" "Apple iPhone 5s"), "%s", label);
    cr_assert_eq(vips_image_get_string(without, GAL_META_LABEL, &label), 0);
    /* No caption: the file name is the alt text, and no caption is shown. */
    cr_expect(g_str_has_prefix(label, "b.jpg\x1f\x1f"), "%s", label);
    gal_preset_free(preset);
}

Test(stage_gallery, every_text_is_escaped)
{
    gal_preset *preset = gallery_preset(
        "{title: \"<b>Trip</b> & co\", description: \"\\\"quoted\\\" <i>\"}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    VipsImage *items[1];
    gal_page page = { .number = 1, .pages = 1, .count = 1, .preset = "test" };
    g_autofree char *html = NULL;

    items[0] = item(st, 400, 300, "x\"><script>.jpg",
        "<script>alert(1)</script><img src=x onerror=alert(2)> 'a' & \"b\"", NULL);
    html = page_text(st, items, 1, &page);
    cr_expect_null(strstr(html, "<script>alert"), "a caption became markup:\n%s", html);
    cr_expect_null(strstr(html, "<img src=x"));
    cr_expect_null(strstr(html, "<b>Trip"));
    cr_expect_null(strstr(html, "<i>"));
    cr_expect_not_null(strstr(html, "&lt;b&gt;Trip&lt;/b&gt; &amp; co"));
    cr_expect_not_null(strstr(html,
        "alt=\"&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; "
        "&#39;a&#39; &amp; &quot;b&quot;\""));
    /* The file name is a URL segment: escaped as one. */
    cr_expect_not_null(strstr(html, "href=\"x%22%3E%3Cscript%3E.jpg\""), "%s", html);
    /* One script: the page's own. */
    {
        int scripts = 0;

        for (const char *p = html; (p = strstr(p, "<script")); p++)
            scripts++;
        cr_expect_eq(scripts, 1, "%d scripts", scripts);
    }
    g_object_unref(items[0]);
    gal_preset_free(preset);
}

Test(stage_gallery, images_have_their_size_and_a_placeholder_and_the_first_row_loads_first)
{
    gal_preset *preset = gallery_preset("{}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    VipsImage *items[2];
    gal_page page = { .number = 1, .pages = 1, .count = 2, .preset = "test" };
    g_autofree char *html = NULL;

    items[0] = item(st, 640, 480, "a b#1.jpg", "A", NULL);
    items[1] = item(st, 480, 640, "c.jpg", "C", NULL);
    html = page_text(st, items, 2, &page);
    /* One row: in view at once, so asked for first, not lazily. */
    cr_expect_not_null(strstr(html, "<img src=\"a%20b%231.jpg\" width=\"640\" height=\"480\" "
                                    "fetchpriority=\"high\""), "%s", html);
    cr_expect_not_null(strstr(html, "width=\"480\" height=\"640\" fetchpriority=\"high\""));
    cr_expect_null(strstr(html, "loading=\"lazy\""));
    cr_expect_not_null(strstr(html, "background-image:url(data:image/webp;base64,"));
    cr_expect_not_null(strstr(html, "--a:640/480;--c:#"));
    /* One width: no srcset. */
    cr_expect_null(strstr(html, "srcset"));
    /* Nothing from elsewhere: no URL with a scheme but data:. */
    cr_expect_null(strstr(html, "http:"));
    cr_expect_null(strstr(html, "https:"));
    cr_expect_null(strstr(html, "src=\"/"));
    for (int i = 0; i < 2; i++)
        g_object_unref(items[i]);
    gal_preset_free(preset);
}

Test(stage_gallery, several_widths_give_srcset_and_sizes_and_link_the_largest)
{
    gal_preset *preset = gallery_preset("{}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    VipsImage *items[1];
    gal_page page = { .number = 1, .pages = 1, .count = 1, .preset = "test" };
    g_autofree char *html = NULL;

    items[0] = item(st, 1600, 1200, "a.jpg", NULL,
        "a-800.jpg\t800\t600\tjpeg\na-1600.jpg\t1600\t1200\tjpeg\na-400.jpg\t400\t300\tjpeg");
    html = page_text(st, items, 1, &page);
    cr_expect_not_null(strstr(html, "<a href=\"a-1600.jpg\" data-w=\"1600\" data-h=\"1200\""),
        "%s", html);
    cr_expect_not_null(strstr(html, "<img src=\"a-400.jpg\" srcset=\"a-1600.jpg 1600w, "
                                    "a-800.jpg 800w, a-400.jpg 400w\" sizes=\"(max-width: 720px) "));
    cr_expect_not_null(strstr(html, "width=\"400\" height=\"300\""));
    g_object_unref(items[0]);
    gal_preset_free(preset);
}

/* A photo narrower than two of the widths has two files of its own width
 * (byte copies): a srcset names each width once. */
Test(stage_gallery, a_srcset_names_each_width_once)
{
    gal_preset *preset = gallery_preset("{}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    VipsImage *items[1];
    gal_page page = { .number = 1, .pages = 1, .count = 1, .preset = "test" };
    g_autofree char *html = NULL;

    items[0] = item(st, 512, 384, "a.jpg", NULL,
        "a-1600.jpg\t512\t384\tjpeg\na-800.jpg\t512\t384\tjpeg\na-400.jpg\t400\t300\tjpeg");
    html = page_text(st, items, 1, &page);
    cr_expect_not_null(strstr(html, "srcset=\"a-1600.jpg 512w, a-400.jpg 400w\""), "%s", html);
    cr_expect_null(strstr(html, "a-800.jpg 512w"), "%s", html);
    g_object_unref(items[0]);
    gal_preset_free(preset);
}

Test(stage_gallery, several_formats_give_a_picture_with_sources)
{
    gal_preset *preset = gallery_preset("{}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    VipsImage *items[1];
    gal_page page = { .number = 1, .pages = 1, .count = 1, .preset = "test" };
    g_autofree char *html = NULL;

    items[0] = item(st, 800, 600, "a.jpg", NULL, NULL);
    /* As the engine adds them, one per width and format. */
    vips_image_set_string(items[0], GAL_META_OUTPUTS, "a-800.avif\t800\t600\tavif");
    gal__item_add_output(items[0], "a-800.jpg", 800, 600, GAL_FORMAT_JPEG);
    gal__item_add_output(items[0], "a-400.avif", 400, 300, GAL_FORMAT_AVIF);
    gal__item_add_output(items[0], "a-400.jpg", 400, 300, GAL_FORMAT_JPEG);
    gal__item_add_output(items[0], "a-400.webp", 400, 300, GAL_FORMAT_WEBP);
    html = page_text(st, items, 1, &page);
    /* The link and the <img> are JPEG, which every browser shows. */
    cr_expect_not_null(strstr(html, "<a href=\"a-800.jpg\" data-w=\"800\""), "%s", html);
    cr_expect_not_null(strstr(html, "<picture><source type=\"image/avif\" srcset=\"a-800.avif "
                                    "800w, a-400.avif 400w\" sizes=\""), "%s", html);
    cr_expect_not_null(strstr(html, "<source type=\"image/webp\" srcset=\"a-400.webp 400w\""));
    cr_expect_not_null(strstr(html, "<img src=\"a-400.jpg\" srcset=\"a-800.jpg 800w, a-400.jpg "
                                    "400w\""));
    cr_expect_not_null(strstr(html, "</picture></a>"));
    g_object_unref(items[0]);
    gal_preset_free(preset);
}

/* The rows are the contact sheet's: each photo's share of its row is its
 * width in gal__sheet_justified's layout over the row's. */
Test(stage_gallery, rows_are_the_contact_sheets_justified_rows)
{
    static const int sizes[6][2] = { { 600, 400 }, { 600, 400 }, { 300, 400 }, { 400, 400 },
        { 600, 400 }, { 300, 400 } };
    gal_preset *preset = gallery_preset("{row-height: 300}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    VipsImage *items[6];
    double aspects[6];
    gal_rect cells[6];
    gal_page page = { .number = 1, .pages = 1, .count = 6, .preset = "test" };
    g_autofree char *html = NULL;
    int height;
    double used = 0;
    int first_row = 0;

    for (int i = 0; i < 6; i++) {
        g_autofree char *name = g_strdup_printf("p%d.jpg", i);

        items[i] = item(st, sizes[i][0], sizes[i][1], name, NULL, NULL);
        aspects[i] = (double) sizes[i][0] / sizes[i][1];
    }
    html = page_text(st, items, 6, &page);
    gal__sheet_justified(6, aspects, 1400 + 2 * 6, 300, 6, 0, cells, &height);
    while (first_row < 6 && cells[first_row].y == cells[0].y)
        used += cells[first_row++].w;
    cr_assert_lt(first_row, 6, "the layout has more than one row");
    {
        const char *p = html;

        for (int i = 0; i < first_row; i++) {
            double share;
            int gaps;

            cr_assert_not_null(p = strstr(p, " style=\"--f:"));
            p += strlen(" style=\"--f:");
            share = g_ascii_strtod(p, NULL);
            cr_assert_not_null(strstr(p, ";--k:"));
            gaps = atoi(strstr(p, ";--k:") + 5);
            /* Five decimals, rounded down, so a row never overflows its line. */
            cr_expect_leq(share, cells[i].w / used, "photo %d", i);
            cr_expect_gt(share, cells[i].w / used - 1e-5, "photo %d: %g", i, share);
            cr_expect_eq(gaps, first_row - 1);
        }
    }
    /* The first row is asked for first, the rest lazily. */
    {
        int high = 0, lazy = 0;

        for (const char *p = html; (p = strstr(p, "fetchpriority=\"high\"")); p++)
            high++;
        for (const char *p = html; (p = strstr(p, "loading=\"lazy\"")); p++)
            lazy++;
        cr_expect_eq(high, first_row);
        cr_expect_eq(lazy, 6 - first_row);
    }
    for (int i = 0; i < 6; i++)
        g_object_unref(items[i]);
    gal_preset_free(preset);
}

Test(stage_gallery, pages_link_to_each_other_and_bytes_do_not_change)
{
    gal_preset *preset = gallery_preset("{per-page: 1}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    VipsImage *items[1];
    gal_page page = { .number = 2, .pages = 3, .count = 3, .preset = "test" };
    g_autofree char *first = NULL;
    g_autofree char *again = NULL;
    gal_page one = { .number = 1, .pages = 3 }, three = { .number = 3, .pages = 3 };
    g_autofree char *name1 = st->def->page_name(&sc, &one);
    g_autofree char *name3 = st->def->page_name(&sc, &three);

    cr_expect_str_eq(name1, "index.html");
    cr_expect_str_eq(name3, "page-3.html");
    items[0] = item(st, 400, 300, "a.jpg", "A", NULL);
    first = page_text(st, items, 1, &page);
    again = page_text(st, items, 1, &page);
    cr_expect_str_eq(first, again);
    cr_expect_not_null(strstr(first, "<a rel=\"prev\" href=\"index.html\">"));
    cr_expect_not_null(strstr(first, "<span aria-current=\"page\">2</span>"));
    cr_expect_not_null(strstr(first, "<a rel=\"next\" href=\"page-3.html\">"));
    g_object_unref(items[0]);
    gal_preset_free(preset);
}

Test(stage_gallery, a_preset_has_one_gathering_stage)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\n"
                                       "stages:\n"
                                       "  - contact-sheet: {}\n"
                                       "  - gallery: {}\n",
        errs);

    cr_expect_null(preset);
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].code, GAL_ERR_PRESET);
    cr_expect_eq(errs->items[0].line, 4);
    cr_expect_eq(errs->items[0].col, 5);
    cr_expect(strstr(errs->items[0].msg, "one gathering stage") != NULL, "%s",
        errs->items[0].msg);
    gal_preset_free(preset);
}

/* An item with a date taken, for the albums' dates. */
static VipsImage *
dated_item(const gal_stage_instance *st, const char *rel, int day)
{
    gal_stage_ctx sc = gal__stage_ctx(st);
    gal_error err = { 0 };
    g_autoptr(VipsImage) photo = gal_test_gradient(300, 200);
    g_autofree char *name = g_path_get_basename(rel);
    gal_facts facts = { .name = name, .has_date = TRUE,
        .date = { .tm_year = 114, .tm_mon = 3, .tm_mday = day, .tm_hour = 9 } };
    gal_photo in = { &facts, NULL };
    VipsImage *out = NULL;

    cr_assert_eq(st->def->tap(&sc, &in, photo, &out, &err), 0, "%s", err.msg);
    gal__item_set_outputs(out, rel, 300, 200, GAL_FORMAT_JPEG);
    return out;
}

/* The top with one photo; "2025" with none; "2025/spain" with two over
 * two pages, titled by its album.yaml. */
typedef struct {
    VipsImage *items[3];
    int top_children[1], year_children[1];
    gal_album albums[3];
} tree;

static void
tree_init(tree *t, const gal_stage_instance *st)
{
    t->items[0] = dated_item(st, "top.jpg", 2);
    t->items[1] = dated_item(st, "2025/spain/a.jpg", 13);
    t->items[2] = dated_item(st, "2025/spain/b.jpg", 14);
    t->top_children[0] = 1;
    t->year_children[0] = 2;
    t->albums[0] = (gal_album) { .path = "", .parent = -1, .children = t->top_children,
        .n_children = 1, .items = t->items, .n_items = 1, .pages = 1 };
    t->albums[1] = (gal_album) { .path = "2025", .parent = 0, .children = t->year_children,
        .n_children = 1, .pages = 1 };
    t->albums[2] = (gal_album) { .path = "2025/spain", .title = "<i>Spain</i> & \u05e9\u05dc\u05d5\u05dd",
        .description = "<p>The <em>story</em></p>", .parent = 1, .items = t->items + 1,
        .n_items = 2, .pages = 2 };
}

static void
tree_clear(tree *t)
{
    for (int i = 0; i < 3; i++)
        g_object_unref(t->items[i]);
}

Test(stage_gallery, albums_have_stable_urls_from_their_folders_and_breadcrumbs)
{
    gal_preset *preset = gallery_preset("{title: Travels, per-page: 1}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    tree t;
    gal_page page = { .number = 2, .pages = 2, .count = 3, .preset = "test", .n_albums = 3,
        .album = 2 };
    g_autofree char *name = NULL;
    g_autofree char *html = NULL;

    tree_init(&t, st);
    page.albums = t.albums;
    name = st->def->page_name(&sc, &page);
    cr_expect_str_eq(name, "2025/spain/page-2.html");
    html = page_text(st, t.items + 2, 1, &page);
    /* The album's name, where in it, the site; escaped. */
    cr_expect_not_null(strstr(html, "<title>&lt;i&gt;Spain&lt;/i&gt; &amp; \u05e9\u05dc\u05d5\u05dd"
                                    " · page 2 of 2 · Travels</title>"), "%s", html);
    /* Breadcrumbs up to the top, links relative to the album's folder. */
    cr_expect_not_null(strstr(html, "<nav class=\"crumbs\" aria-label=\"Breadcrumb\"><ol>"
                                    "<li><a href=\"../../index.html\" dir=\"auto\">Travels</a></li>"
                                    "<li><a href=\"../../2025/index.html\" dir=\"auto\">2025</a></li>"
                                    "<li><a href=\"../../2025/spain/index.html\" dir=\"auto\">"
                                    "&lt;i&gt;Spain"),
        "%s", html);
    cr_expect_not_null(strstr(html, "<a rel=\"prev\" href=\"index.html\">"));
    cr_expect_not_null(strstr(html, "href=\"../../2025/spain/b.jpg\""), "%s", html);
    cr_expect_not_null(strstr(html, "<li id=\"b.jpg\""), "the photo's own address");
    /* The story is on its first page only. */
    cr_expect_null(strstr(html, "The <em>story</em>"));
    cr_expect_not_null(strstr(html, "2 photos · 13–14 April 2014 · page 2 of 2"));
    tree_clear(&t);
    gal_preset_free(preset);
}

Test(stage_gallery, an_album_page_shows_its_sub_albums_as_cards_with_a_cover)
{
    gal_preset *preset = gallery_preset("{title: Travels}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    tree t;
    gal_page page = { .number = 1, .pages = 1, .count = 3, .preset = "test", .n_albums = 3,
        .album = 0 };
    gal_page year = page;
    g_autofree char *name = NULL;
    g_autofree char *html = NULL;
    g_autofree char *year_html = NULL;

    tree_init(&t, st);
    page.albums = year.albums = t.albums;
    year.album = 1;
    name = st->def->page_name(&sc, &page);
    cr_expect_str_eq(name, "index.html", "the top album is the home page");
    html = page_text(st, t.items, 1, &page);
    cr_expect_not_null(strstr(html, "<title>Travels</title>"), "%s", html);
    cr_expect_null(strstr(html, "class=\"crumbs\""), "no breadcrumbs at the top");
    /* Titles and captions take their own direction, isolated. */
    cr_expect_not_null(strstr(html, "<h1 dir=\"auto\">Travels</h1>"));
    cr_expect_not_null(strstr(html, "<p class=\"cap\" dir=\"auto\"></p>"));
    cr_expect_not_null(strstr(html, "<p class=\"sum\">3 photos · 1 album · 2–14 April 2014</p>"),
        "%s", html);
    /* The card: a link to the album, its cover (its first sub-album's
     * first photo), its title, count and dates. */
    cr_expect_not_null(strstr(html, "<li><a href=\"2025/index.html\"><span class=\"cover\""));
    cr_expect_not_null(strstr(html, "<img src=\"2025/spain/a.jpg\""), "%s", html);
    cr_expect_not_null(strstr(html, "<span class=\"t\" dir=\"auto\">2025</span><span class=\"m\">2 photos · "
                                    "1 album · 13–14 April 2014</span>"), "%s", html);
    /* Below the cards the photos load lazily. */
    cr_expect_not_null(strstr(html, "<h2>Photos</h2>"));
    cr_expect_not_null(strstr(html, "alt=\"top.jpg\""));
    year_html = page_text(st, NULL, 0, &year);
    cr_expect_not_null(strstr(year_html, "<li><a href=\"spain/index.html\">"),
        "%s", year_html);
    cr_expect_not_null(strstr(year_html, "<img src=\"../2025/spain/a.jpg\""));
    cr_expect_null(strstr(year_html, "class=\"grid\""), "no photos of its own, no grid");
    tree_clear(&t);
    gal_preset_free(preset);
}

Test(stage_gallery, an_album_story_is_its_own_html_and_a_wrong_cover_is_an_error)
{
    gal_preset *preset = gallery_preset("{}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    tree t;
    gal_page page = { .number = 1, .pages = 2, .count = 3, .preset = "test", .n_albums = 3,
        .album = 2 };
    g_autofree char *html = NULL;
    gal_error err = { 0 };
    GString *text = NULL;

    tree_init(&t, st);
    page.albums = t.albums;
    html = page_text(st, t.items + 1, 1, &page);
    cr_expect_not_null(strstr(html, "<div class=\"story\" dir=\"auto\"><p>The <em>story</em></p></div>"));
    t.albums[2].cover = "nope.jpg";
    t.albums[2].cover_loc = (gal_loc) { "in/2025/spain/album.yaml", 3, 8 };
    cr_expect_eq(st->def->build_text(&sc, t.items + 1, 1, &page, &text, &err), -1);
    cr_expect_null(text);
    cr_expect_str_eq(err.file, "in/2025/spain/album.yaml");
    cr_expect_eq(err.line, 3);
    cr_expect_eq(err.col, 8);
    cr_expect(strstr(err.msg, "no photo of this album is named \"nope.jpg\"") != NULL, "%s",
        err.msg);
    tree_clear(&t);
    gal_preset_free(preset);
}

Test(stage_gallery, base_url_is_checked_and_gives_canonical_links)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *bad = gal_test_load("gallop: 1\nstages:\n  - gallery: {base-url: example.org}\n",
        errs);
    gal_preset *preset = gallery_preset("{base-url: \"https://example.org/photos/\"}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    tree t;
    gal_page page = { .number = 2, .pages = 2, .count = 3, .preset = "test", .n_albums = 3,
        .album = 2 };
    g_autofree char *html = NULL;

    cr_expect_null(bad);
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].line, 3);
    cr_expect(strstr(errs->items[0].msg, "http(s)://") != NULL, "%s", errs->items[0].msg);
    tree_init(&t, st);
    page.albums = t.albums;
    html = page_text(st, t.items + 2, 1, &page);
    cr_expect_not_null(strstr(html,
        "<link rel=\"canonical\" href=\"https://example.org/photos/2025/spain/page-2.html\">"));
    cr_expect_not_null(strstr(html, "<meta property=\"og:url\" "
                                    "content=\"https://example.org/photos/2025/spain/page-2.html\">"));
    tree_clear(&t);
    gal_preset_free(preset);
}

/* With base-url: link previews per page, a sitemap of every page and an
 * Atom feed of the albums, newest first, everything escaped. */
Test(stage_gallery, base_url_gives_previews_a_sitemap_and_a_feed)
{
    gal_preset *preset = gallery_preset(
        "{title: \"A & B\", author: \"<Jen>\", base-url: \"https://example.org/p/\"}");
    gal_preset *without = gallery_preset("{}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    const gal_stage_instance *plain = &g_array_index(without->stages, gal_stage_instance, 0);
    gal_stage_ctx sc = gal__stage_ctx(st);
    gal_stage_ctx plain_sc = gal__stage_ctx(plain);
    tree t;
    gal_page site = { .number = 1, .pages = 1, .count = 3, .preset = "test", .n_albums = 3 };
    gal_page spain;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) texts = g_ptr_array_new();
    g_autoptr(GPtrArray) none = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *html = NULL;
    gal_error err = { 0 };
    const char *map, *feed;

    tree_init(&t, st);
    t.albums[2].summary = "The story";
    site.albums = t.albums;
    spain = site;
    spain.album = 2;
    spain.pages = 2;
    html = page_text(st, t.items + 1, 1, &spain);
    cr_expect_not_null(strstr(html, "<link rel=\"canonical\" href=\"https://example.org/p/2025/spain/\">"),
        "%s", html);
    cr_expect_not_null(strstr(html, "<link rel=\"alternate\" type=\"application/atom+xml\" "
                                    "title=\"A &amp; B\" href=\"../../feed.xml\">"));
    cr_expect_not_null(strstr(html, "<meta property=\"og:title\" content=\"&lt;i&gt;Spain"));
    cr_expect_not_null(strstr(html, "<meta property=\"og:description\" content=\"The story\">"));
    cr_expect_not_null(strstr(html, "<meta name=\"description\" content=\"The story\">"));
    cr_expect_not_null(strstr(html,
        "<meta property=\"og:image\" content=\"https://example.org/p/2025/spain/a.jpg\">"));
    cr_expect_not_null(strstr(html, "<meta name=\"twitter:card\" content=\"summary_large_image\">"));

    cr_assert_eq(st->def->site_files(&sc, &site, names, texts, &err), 0, "%s", err.msg);
    cr_assert_eq(names->len, 2);
    cr_expect_str_eq(names->pdata[0], "sitemap.xml");
    cr_expect_str_eq(names->pdata[1], "feed.xml");
    map = ((GString *) texts->pdata[0])->str;
    feed = ((GString *) texts->pdata[1])->str;
    /* Every page: the top, 2025, and spain's two. */
    cr_expect_not_null(strstr(map, "<url><loc>https://example.org/p/</loc></url>\n"
                                   "<url><loc>https://example.org/p/2025/</loc></url>\n"
                                   "<url><loc>https://example.org/p/2025/spain/</loc></url>\n"
                                   "<url><loc>https://example.org/p/2025/spain/page-2.html</loc>"),
        "%s", map);
    cr_expect_not_null(strstr(feed, "<title>A &amp; B</title>"), "%s", feed);
    cr_expect_not_null(strstr(feed, "<author><name>&lt;Jen&gt;</name></author>"));
    /* No clock: the newest photo's day. */
    cr_expect_not_null(strstr(feed, "<updated>2014-04-14T00:00:00Z</updated>"));
    cr_expect_not_null(strstr(feed, "<id>https://example.org/p/2025/</id>"));
    cr_expect_not_null(strstr(feed, "<summary>2 photos · 13–14 April 2014. The story</summary>"),
        "%s", feed);
    for (guint f = 0; f < texts->len; f++)
        g_string_free(texts->pdata[f], TRUE);
    g_ptr_array_set_size(texts, 0);

    /* Without base-url: neither, and no preview tags. */
    cr_assert_eq(plain->def->site_files(&plain_sc, &site, none, texts, &err), 0);
    cr_expect_eq(none->len, 0);
    g_free(html);
    html = page_text(plain, t.items + 1, 1, &spain);
    cr_expect_null(strstr(html, "property=\"og:"));
    cr_expect_null(strstr(html, "canonical"));
    tree_clear(&t);
    gal_preset_free(preset);
    gal_preset_free(without);
}

/* Whether `text` occurs in the bytes (which hold NULs). */
static gboolean
bytes_hold(const GString *bytes, const char *text)
{
    size_t n = strlen(text);

    for (gsize i = 0; i + n <= bytes->len; i++)
        if (memcmp(bytes->str + i, text, n) == 0)
            return TRUE;
    return FALSE;
}

/* The zips the stage describes for `site` (gal_site_zip), cleared with
 * the array. */
static GArray *
site_zips(const gal_stage_instance *st, const gal_page *site)
{
    gal_stage_ctx sc = gal__stage_ctx(st);
    GArray *zips = g_array_new(FALSE, TRUE, sizeof(gal_site_zip));
    gal_error err = { 0 };

    g_array_set_clear_func(zips, (GDestroyNotify) gal__site_zip_clear);
    cr_assert_eq(st->def->site_zips(&sc, site, zips, &err), 0, "%s", err.msg);
    return zips;
}

/* download: largest: the lightbox's link takes the file home, and each
 * album with photos of its own gets album.zip of their largest files,
 * stored, with a link to it; the zip is described by what it holds (each
 * entry, its file and the file's SHA-256 as recorded), which nothing else
 * of the album changes. */
Test(stage_gallery, download_largest_gives_a_link_per_photo_and_a_zip_per_album)
{
    gal_preset *preset = gallery_preset("{download: largest}");
    const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, 0);
    g_autofree char *dir = gal_test_tmpdir("gallery-zip");
    g_autofree char *spain = g_build_filename(dir, "2025", "spain", NULL);
    tree t;
    gal_page site = { .number = 1, .pages = 1, .count = 3, .preset = "test", .n_albums = 3 };
    gal_page page;
    g_autofree char *html = NULL;
    g_autoptr(GArray) unknown = NULL;
    g_autoptr(GArray) known = NULL;
    g_autoptr(GArray) retitled = NULL;
    g_autoptr(GArray) changed = NULL;
    const gal_site_zip *zip;
    gal_sha256 a = { .known = TRUE }, b = { .known = TRUE };

    cr_assert_eq(g_mkdir_with_parents(spain, 0755), 0);
    tree_init(&t, st);
    site.albums = t.albums;
    site.site_dir = dir;
    page = site;
    page.album = 2;
    page.pages = 2;
    html = page_text(st, t.items + 1, 1, &page);
    cr_expect_not_null(strstr(html, "<a class=\"zip\" href=\"album.zip\" download=\"spain.zip\">"
                                    "Download the album's 2 photos (zip)</a>"), "%s", html);
    cr_expect_not_null(strstr(html, "<a class=\"orig\" href=\"#\" download>Download</a>"));

    /* The top and spain have photos of their own; 2025 has none. Without
     * the files' digests what they hold is not known. */
    unknown = site_zips(st, &site);
    cr_assert_eq(unknown->len, 2);
    zip = &g_array_index(unknown, gal_site_zip, 1);
    cr_expect_str_eq(g_array_index(unknown, gal_site_zip, 0).name, "album.zip");
    cr_expect_str_eq(zip->name, "2025/spain/album.zip");
    cr_assert_eq(zip->paths->len, 2);
    cr_expect_str_eq(zip->paths->pdata[0], "2025/spain/a.jpg");
    cr_expect_str_eq(zip->entries->pdata[1], "b.jpg");
    cr_expect_str_eq(zip->contents, "");

    memset(a.bytes, 0xaa, sizeof(a.bytes));
    memset(b.bytes, 0xbb, sizeof(b.bytes));
    gal__item_add_digest(t.items[0], "top.jpg", &a);
    gal__item_add_digest(t.items[1], "2025/spain/a.jpg", &a);
    gal__item_add_digest(t.items[2], "2025/spain/b.jpg", &a);
    known = site_zips(st, &site);
    cr_expect_eq(strlen(g_array_index(known, gal_site_zip, 1).contents), 64);
    /* A new title (album.yaml) holds the same files. */
    t.albums[2].title = "Spain again";
    retitled = site_zips(st, &site);
    cr_expect_str_eq(g_array_index(retitled, gal_site_zip, 1).contents,
        g_array_index(known, gal_site_zip, 1).contents);
    /* A photo made again differently: its album's zip only. */
    g_object_unref(t.items[2]);
    t.items[2] = dated_item(st, "2025/spain/b.jpg", 14);
    gal__item_add_digest(t.items[2], "2025/spain/b.jpg", &b);
    changed = site_zips(st, &site);
    cr_expect_str_neq(g_array_index(changed, gal_site_zip, 1).contents,
        g_array_index(known, gal_site_zip, 1).contents);
    cr_expect_str_eq(g_array_index(changed, gal_site_zip, 0).contents,
        g_array_index(known, gal_site_zip, 0).contents);
    tree_clear(&t);
    gal_preset_free(preset);
}

/* The zip at `path` of the files `paths` as `entries`, its bytes read back. */
static char *
zip_of(const char *dir, const char *path, const char *const *paths, const char *const *entries,
    gsize *len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    char sha256[65];
    gint64 size = -1;
    gal_error err = { 0 };
    char *bytes = NULL;

    cr_assert_geq(fd, 0);
    cr_assert_eq(gal__zip_stored(dir, paths, entries, 2, 1397390400, fd, sha256, &size, &err),
        0, "%s", err.msg);
    close(fd);
    cr_assert(g_file_get_contents(path, &bytes, len, NULL));
    cr_expect_eq(size, (gint64) *len, "the size it gives is the file's");
    {
        g_autofree char *want = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
            (const guchar *) bytes, *len);

        cr_expect_str_eq(sha256, want, "the SHA-256 it gives is the file's");
    }
    return bytes;
}

/* The zip itself: stored (photos are compressed already), each entry by
 * its name, the same files giving the same bytes. */
Test(stage_gallery, a_zip_stores_its_files_as_they_are)
{
    g_autofree char *dir = gal_test_tmpdir("gallery-zip-bytes");
    g_autofree char *pa = g_build_filename(dir, "a.jpg", NULL);
    g_autofree char *pb = g_build_filename(dir, "b.jpg", NULL);
    g_autofree char *one = g_build_filename(dir, "one.zip", NULL);
    g_autofree char *two = g_build_filename(dir, "two.zip", NULL);
    const char *paths[] = { pa, pb }, *entries[] = { "one.jpg", "two.jpg" };
    g_autofree char *zip = NULL;
    g_autofree char *again = NULL;
    gsize len, again_len;
    GString view;

    cr_assert(g_file_set_contents(pa, "the bytes of a", -1, NULL));
    cr_assert(g_file_set_contents(pb, "the bytes of b", -1, NULL));
    zip = zip_of(dir, one, paths, entries, &len);
    view = (GString) { zip, len, len };
    /* A local file header: stored (method 0), then its name and bytes. */
    cr_assert_gt(len, 30);
    cr_expect_eq(memcmp(zip, "PK\x03\x04", 4), 0);
    cr_expect_eq(zip[8] | zip[9] << 8, 0, "stored, not deflated");
    cr_expect(bytes_hold(&view, "the bytes of a"), "the file's bytes are in it");
    cr_expect(bytes_hold(&view, "the bytes of b"));
    cr_expect(bytes_hold(&view, "two.jpg"), "its entry's name");
    again = zip_of(dir, two, paths, entries, &again_len);
    cr_expect(len == again_len && memcmp(zip, again, len) == 0);
}
