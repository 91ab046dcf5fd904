/* album.yaml: read and checked like a preset section (located errors,
 * unknown keys by name), the description's Markdown made safe HTML. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "album.h"

TestSuite(album, .init = gal_test_setup, .fini = gal_test_teardown);

/* A folder holding an album.yaml of `yaml` (NULL: none). */
static char *
album_dir(const char *name, const char *yaml)
{
    char *dir = gal_test_tmpdir(name);

    if (yaml) {
        g_autofree char *path = g_build_filename(dir, "album.yaml", NULL);

        cr_assert(g_file_set_contents(path, yaml, -1, NULL));
    }
    return dir;
}

Test(album, a_folder_without_album_yaml_is_just_its_folder)
{
    g_autofree char *dir = album_dir("none", NULL);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_album_file *album = (gal_album_file *) 1;

    cr_expect_eq(gal__album_load(dir, &album, errs), 0);
    cr_expect_null(album);
    cr_expect_eq(errs->count, 0);
}

Test(album, every_key_is_read)
{
    g_autofree char *dir = album_dir("keys", "title: Race day\n"
                                              "description: |\n"
                                              "  The *Mangyongdae Prize* marathon.\n"
                                              "cover: trip-04.jpg\n"
                                              "sort: newest\n"
                                              "date: 2014-04-13\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autoptr(gal_album_file) album = NULL;

    cr_assert_eq(gal__album_load(dir, &album, errs), 0, "%s", errs->items[0].msg);
    cr_assert_not_null(album);
    cr_expect_str_eq(album->title, "Race day");
    cr_expect_str_eq(album->description_html, "<p>The <em>Mangyongdae Prize</em> marathon.</p>\n");
    cr_expect_str_eq(album->cover, "trip-04.jpg");
    cr_expect_eq(album->cover_loc.line, 4);
    cr_expect_eq(album->cover_loc.col, 8);
    cr_expect(album->has_sort);
    cr_expect_eq(album->sort, GAL_SORT_NEWEST);
    cr_expect_str_eq(album->date, "2014-04-13");
}

Test(album, errors_are_located_and_all_reported)
{
    g_autofree char *dir = album_dir("errors", "titel: x\n"
                                                "sort: oldest\n"
                                                "date: 2014-02-30\n"
                                                "cover: photos/a.jpg\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autoptr(gal_album_file) album = NULL;
    g_autofree char *file = g_build_filename(dir, "album.yaml", NULL);

    cr_expect_eq(gal__album_load(dir, &album, errs), -1);
    cr_expect_null(album);
    cr_assert_eq(errs->count, 4);
    for (int i = 0; i < 4; i++)
        cr_expect_str_eq(errs->items[i].file, file);
    cr_expect_eq(errs->items[0].line, 1);
    cr_expect_eq(errs->items[0].col, 1);
    cr_expect(strstr(errs->items[0].msg, "did you mean \"title\"") != NULL, "%s",
        errs->items[0].msg);
    cr_expect_eq(errs->items[1].line, 2);
    cr_expect_eq(errs->items[1].col, 7);
    cr_expect_str_eq(errs->items[1].key, "album.sort");
    cr_expect_eq(errs->items[2].line, 3);
    cr_expect_eq(errs->items[2].col, 7);
    cr_expect(strstr(errs->items[2].msg, "YYYY-MM-DD") != NULL, "%s", errs->items[2].msg);
    cr_expect_eq(errs->items[3].line, 4);
    cr_expect_str_eq(errs->items[3].key, "album.cover");
}

Test(album, not_a_mapping_and_not_yaml_are_errors)
{
    g_autofree char *list = album_dir("list", "- a\n- b\n");
    g_autofree char *broken = album_dir("broken", "title: [x\n");
    g_autofree char *empty = album_dir("empty", "");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree gal_errors *more = g_new0(gal_errors, 1);
    g_autofree gal_errors *none = g_new0(gal_errors, 1);
    g_autoptr(gal_album_file) a = NULL;
    g_autoptr(gal_album_file) b = NULL;
    g_autoptr(gal_album_file) c = NULL;

    cr_expect_eq(gal__album_load(list, &a, errs), -1);
    cr_assert_eq(errs->count, 1);
    cr_expect(strstr(errs->items[0].msg, "mapping") != NULL, "%s", errs->items[0].msg);
    cr_expect_eq(gal__album_load(broken, &b, more), -1);
    cr_assert_eq(more->count, 1);
    cr_expect_gt(more->items[0].line, 0);
    cr_expect_eq(gal__album_load(empty, &c, none), 0, "an empty album.yaml says nothing");
    cr_expect_not_null(c);
    cr_expect_null(c->title);
}

Test(album, markdown_drops_raw_html_and_unsafe_links)
{
    g_autofree char *html = gal__markdown_html(
        "**Race** <script>alert(1)</script> [a](javascript:alert(2)) "
        "<img src=x onerror=alert(3)>\n\n<div onclick=\"alert(4)\">block</div>\n");

    cr_expect_not_null(strstr(html, "<strong>Race</strong>"), "%s", html);
    cr_expect_null(strstr(html, "<script"), "%s", html);
    cr_expect_null(strstr(html, "javascript:"), "%s", html);
    cr_expect_null(strstr(html, "<img"), "%s", html);
    cr_expect_null(strstr(html, "onclick"), "%s", html);
    cr_expect_null(strstr(html, "<div"), "%s", html);
}

Test(album, a_story_as_text_keeps_words_apart_only_between_blocks)
{
    g_autofree char *html = gal__markdown_html("The **race**, *13 April* & <b>more</b>.\n\n"
                                               "- one\n- two\n");
    g_autofree char *text = gal__html_text(html);

    cr_expect_str_eq(text, "The race, 13 April & more. one two");
}
