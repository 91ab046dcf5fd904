/* Output file names: values from EXIF or the file system are sanitised so
 * that they can never leave the output folder or make a hidden file, and a
 * template that would is refused. Also the input globs. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(output_name);

#define OUT "/srv/out"

static gal_facts
photo(const char *stem)
{
    gal_facts f = { 0 };

    f.name = "IMG_0042.JPG";
    f.stem = stem;
    f.ext = "jpg";
    f.preset = "web";
    f.has_date = TRUE;
    f.date.tm_year = 2024 - 1900;
    f.date.tm_mon = 4;
    f.date.tm_mday = 17;
    f.index = 7;
    f.count = 23;
    return f;
}

/* gal__output_path() for template `text`; NULL with `err` set on error. */
static char *
output_path(const char *text, const gal_facts *f, gal_error *err)
{
    g_autoptr(GError) error = NULL;
    gal_output_opts output = { 0 };
    char *path;

    output.name = gal__template_parse(text, &error);
    cr_assert_not_null(output.name, "%s: %s", text, error ? error->message : "");
    path = gal__output_path(&output, OUT, f, err);
    gal__template_free(output.name);
    return path;
}

static void
expect_path(const char *text, const gal_facts *f, const char *want)
{
    gal_error err = { 0 };
    g_autofree char *path = output_path(text, f, &err);

    cr_assert_not_null(path, "%s: %s", text, err.msg);
    cr_expect_str_eq(path, want, "%s", text);
    cr_expect_eq(err.code, GAL_OK);
}

static void
expect_refused(const char *text, const gal_facts *f, const char *msg_part)
{
    gal_error err = { 0 };
    g_autofree char *path = output_path(text, f, &err);

    cr_expect_null(path, "%s gave %s", text, path);
    cr_expect_eq(err.code, GAL_ERR_OUTPUT, "%s", text);
    cr_expect_str_eq(err.key, "output.name");
    cr_expect(strstr(err.msg, msg_part) != NULL, "\"%s\" lacks \"%s\"", err.msg, msg_part);
}

Test(output_name, joins_the_rendered_name_to_the_folder)
{
    gal_facts f = photo("IMG_0042");

    expect_path("{stem}.{ext}", &f, OUT "/IMG_0042.jpg");
    expect_path("{preset}-{index:03}.{ext}", &f, OUT "/web-007.jpg");
}

Test(output_name, replaces_slashes_in_values)
{
    gal_facts f = photo("a/b");

    expect_path("{stem}.{ext}", &f, OUT "/a_b.jpg");
    f.stem = "a\\b";
    expect_path("{stem}.{ext}", &f, OUT "/a_b.jpg");
    f.stem = "/etc/passwd";
    expect_path("{stem}", &f, OUT "/_etc_passwd");
}

Test(output_name, replaces_control_characters_in_values)
{
    gal_facts f = photo("line\none\ttab\rcr\x7f" "del\x1b[0m");

    expect_path("{stem}.{ext}", &f, OUT "/line_one_tab_cr_del_[0m.jpg");
}

Test(output_name, a_value_cannot_make_a_hidden_file)
{
    gal_facts f = photo(".hidden");

    expect_path("{stem}.{ext}", &f, OUT "/_hidden.jpg");
    expect_path("thumbs/{stem}", &f, OUT "/thumbs/_hidden");
    f.stem = ".";
    expect_path("{stem}", &f, OUT "/_");
    /* Inside a name a dot is just a dot. */
    f.stem = ".x";
    expect_path("v{stem}", &f, OUT "/v.x");
}

Test(output_name, a_value_cannot_climb_out_of_the_folder)
{
    gal_facts f = photo("../../etc/passwd");

    expect_path("{stem}.{ext}", &f, OUT "/_._.._etc_passwd.jpg");
    f.stem = "..";
    expect_path("{stem}", &f, OUT "/_.");
    expect_path("{stem}/{ext}", &f, OUT "/_./jpg");
    f.caption = "../..";
    expect_path("{caption}/{stem}.{ext}", &f, OUT "/_._../_..jpg");
}

Test(output_name, literal_sub_folders_in_the_template_work)
{
    gal_facts f = photo("IMG_0042");

    expect_path("{date:%Y}/{stem}.{ext}", &f, OUT "/2024/IMG_0042.jpg");
    expect_path("{date:%Y}/{date:%m}/{preset}/{stem}.{ext}", &f,
        OUT "/2024/05/web/IMG_0042.jpg");
}

Test(output_name, refuses_a_name_that_renders_empty)
{
    gal_facts f = photo("IMG_0042");

    expect_refused("{camera}", &f, "the name template \"{camera}\" gives an empty name");
}

Test(output_name, refuses_an_absolute_name)
{
    gal_facts f = photo("IMG_0042");

    expect_refused("/tmp/{stem}.{ext}", &f,
        "the name \"/tmp/IMG_0042.jpg\" is absolute (names are relative to the output folder");
}

Test(output_name, refuses_dot_dot_and_empty_parts)
{
    gal_facts f = photo("IMG_0042");

    expect_refused("../{stem}.{ext}", &f, "would land outside the output folder");
    expect_refused("{stem}/../../{ext}", &f, "would land outside the output folder");
    expect_refused("./{stem}", &f, "would land outside the output folder or has an empty part");
    expect_refused("a//{stem}", &f, "has an empty part");
    expect_refused("{stem}/", &f, "has an empty part");
    /* A missing value must not silently drop a folder level either. */
    expect_refused("{lens}/{stem}", &f, "absolute");
    expect_refused("x/{lens}/{stem}", &f, "has an empty part");
}

Test(output_name, refuses_a_part_longer_than_230_bytes)
{
    /* 230 + the temporary name's 20 bytes stays under the usual 255. */
    g_autofree char *longest = g_strnfill(226, 'a');
    g_autofree char *too_long = g_strnfill(227, 'a');
    gal_facts f = photo("IMG_0042");
    g_autofree char *want = g_strdup_printf(OUT "/%s.jpg", longest);

    f.caption = longest;
    expect_path("{caption}.{ext}", &f, want);
    f.caption = too_long;
    expect_refused("{caption}.{ext}", &f, "is longer than 230 bytes");
}

Test(output_name, repairs_invalid_utf8_in_values)
{
    gal_facts f = photo("caf\xe9-\xff\xfe");
    gal_error err = { 0 };
    g_autofree char *path = output_path("{stem}.{ext}", &f, &err);

    cr_assert_not_null(path, "%s", err.msg);
    cr_expect(g_utf8_validate(path, -1, NULL), "not UTF-8: %s", path);
    cr_expect_str_eq(path, OUT "/caf\xef\xbf\xbd-\xef\xbf\xbd\xef\xbf\xbd.jpg");
    /* Valid UTF-8 is left alone. */
    f.stem = "Ch\xc3\xa2teau \xe6\x97\xa5\xe6\x9c\xac";
    g_free(path);
    path = output_path("{stem}.{ext}", &f, &err);
    cr_expect_str_eq(path, OUT "/Ch\xc3\xa2teau \xe6\x97\xa5\xe6\x9c\xac.jpg");
}

Test(output_name, glob_match_ignores_case)
{
    cr_expect(gal__glob_match("*.JPG", "a.jpg"));
    cr_expect(gal__glob_match("*.jpg", "IMG_0042.JPG"));
    cr_expect(gal__glob_match("img_????.jpeg", "IMG_0042.JPEG"));
    cr_expect(gal__glob_match("\xc3\x89t\xc3\xa9*", "\xc3\xa9T\xc3\x89 2024.png"),
        "non-ASCII letters fold too");
    cr_expect_not(gal__glob_match("*.jpg", "a.png"));
    cr_expect_not(gal__glob_match("*.jpg", "a.jpg.txt"));
    cr_expect_not(gal__glob_match("img_????.jpg", "img_42.jpg"));
    /* An ASCII pattern against a name that is not, and a name too long for
     * the short way: the same answers. */
    cr_expect(gal__glob_match("*.JPG", "\xc3\xa9t\xc3\xa9.jpg"));
    {
        char long_name[400];

        memset(long_name, 'A', sizeof long_name - 5);
        strcpy(long_name + sizeof long_name - 5, ".JPG");
        cr_expect(gal__glob_match("a*.jpg", long_name));
        cr_expect_not(gal__glob_match("b*.jpg", long_name));
    }
}

Test(output_name, dir_keeps_albums_and_vanishes_at_the_top)
{
    gal_facts f = photo("IMG_0001");

    /* At the input folder's top: no folder, and no leading '/'. */
    f.dir = "";
    expect_path("{dir}/{stem}.{ext}", &f, OUT "/IMG_0001.jpg");
    f.dir = NULL;
    expect_path("{dir}/{stem}.{ext}", &f, OUT "/IMG_0001.jpg");
    f.dir = "2024/alps";
    expect_path("{dir}/{stem}.{ext}", &f, OUT "/2024/alps/IMG_0001.jpg");
    expect_path("{preset}/{dir}/{stem}.{ext}", &f, OUT "/web/2024/alps/IMG_0001.jpg");
    /* Each folder is made safe on its own; the slashes between stay. */
    f.dir = ".hidden/a\\b";
    expect_path("{dir}/{stem}.{ext}", &f, OUT "/_hidden/a_b/IMG_0001.jpg");
    /* A fallback stands for an empty {dir}. */
    f.dir = "";
    expect_path("{dir|top}/{stem}.{ext}", &f, OUT "/top/IMG_0001.jpg");
}

Test(output_name, width_is_the_variant_width)
{
    gal_facts f = photo("IMG_0001");

    f.width = 800;
    expect_path("{stem}-{width}.{ext}", &f, OUT "/IMG_0001-800.jpg");
    expect_path("{width:05}/{stem}.{ext}", &f, OUT "/00800/IMG_0001.jpg");
    f.width = 0;
    expect_path("{stem}-{width|full}.{ext}", &f, OUT "/IMG_0001-full.jpg");
}

/* The plan joins each name to the folder's prefix, worked out once: the
 * same path g_build_filename gives, however the folder is spelled (a
 * trailing slash, doubled slashes, relative, "..", the root). */
Test(output_name, the_folder_is_joined_as_g_build_filename_joins_it)
{
    static const char *const dirs[] = { "/srv/out", "/srv/out/", "/srv//out//", "out", "out/",
        "../out", "a/../out/.", "/", "//srv", ".", "" };
    static const char *const templates[] = { "{stem}.{ext}", "{date:%Y}/{stem}.{ext}",
        "{dir}/{stem}-{index}.{ext}" };
    gal_facts f = photo("IMG_0042");

    f.dir = "2024/may";
    for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++)
        for (size_t t = 0; t < G_N_ELEMENTS(templates); t++) {
            g_autoptr(GError) error = NULL;
            gal_output_opts output = { 0 };
            gal_error err = { 0 };
            g_autofree char *name = NULL;
            g_autofree char *want = NULL;
            g_autofree char *path = NULL;

            output.name = gal__template_parse(templates[t], &error);
            name = gal__template_render(output.name, &f, TRUE);
            want = g_build_filename(dirs[d], name, NULL);
            path = gal__output_path(&output, dirs[d], &f, &err);
            cr_expect_str_eq(path, want, "\"%s\" in \"%s\"", templates[t], dirs[d]);
            gal__template_free(output.name);
        }
}

/* One buffer serves every photo's name: a short name after a long one, or
 * after a refused one, is that name alone. */
Test(output_name, a_reused_name_buffer_holds_one_name)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) name = g_string_new(NULL);
    g_autofree char *prefix = gal__output_prefix(OUT "/");
    gal_output_opts output = { 0 };
    gal_facts f = photo("IMG_0042");
    gal_error err = { 0 };
    char *path;

    cr_expect_str_eq(prefix, OUT "/");
    output.name = gal__template_parse("{caption|untitled}/{stem}.{ext}", &error);
    f.caption = "a long caption for the first photo";
    path = gal__output_path_after(&output, prefix, &f, name, &err);
    cr_expect_str_eq(path, OUT "/a long caption for the first photo/IMG_0042.jpg");
    g_free(path);
    f.caption = "..";
    f.stem = "";
    path = gal__output_path_after(&output, prefix, &f, name, &err);
    cr_expect_null(path, "gave %s", path);
    cr_expect(strstr(err.msg, "hidden name \"_./.jpg\"") != NULL, "%s", err.msg);
    f.caption = NULL;
    f.stem = "b";
    path = gal__output_path_after(&output, prefix, &f, name, &err);
    cr_expect_str_eq(path, OUT "/untitled/b.jpg");
    g_free(path);
    gal__template_free(output.name);
}

/* {name}, {stem} and {dir} are found in the photo's path in place: what
 * g_path_get_basename and g_path_get_dirname give, however it is spelled. */
Test(output_name, name_stem_and_dir_are_the_basename_and_dirname)
{
    static const char *const paths[] = { "/p/in/IMG_1.JPG", "IMG_2.jpg", "a/b.c.d", "a/.hidden",
        "a/noext", "a/b/", "", "/", "x//y.jpg" };
    static const char *const rels[] = { "a.jpg", "x/a.jpg", "x/y/a.jpg", "./a.jpg", "/a.jpg",
        "x//a.jpg", "x/./a.jpg" };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\nname: web\n", errs);
    g_autoptr(GStringChunk) strings = g_string_chunk_new(64);
    gal_facts f;

    cr_assert_not_null(preset);
    for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
        g_autofree char *name = g_path_get_basename(paths[i]);
        g_autofree char *stem = g_strdup(name);
        char *dot = strrchr(stem, '.');

        if (dot && dot != stem)
            *dot = '\0';
        gal__facts_from_path(preset, paths[i], 3, 9, &f, strings);
        cr_expect_str_eq(f.name, name, "%s", paths[i]);
        cr_expect_str_eq(f.stem, stem, "%s", paths[i]);
        cr_expect_eq(f.index, 3);
        cr_expect_eq(f.count, 9);
    }
    gal__facts_set_dir(&f, NULL, strings);
    cr_expect_str_eq(f.dir, "");
    for (size_t i = 0; i < G_N_ELEMENTS(rels); i++) {
        g_autofree char *dir = g_path_get_dirname(rels[i]);

        gal__facts_set_dir(&f, rels[i], strings);
        cr_expect_str_eq(f.dir, strcmp(dir, ".") == 0 ? "" : dir, "%s", rels[i]);
    }
    gal_preset_free(preset);
}
