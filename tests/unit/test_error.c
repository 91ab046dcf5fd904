/* gal_error fields and quoted excerpts are cut between characters, never
 * inside one, and end in "…" when they are cut; messages that quote user
 * text quote only its start. */
#include <criterion/criterion.h>
#include <string.h>

#include <vips/vips.h>

#include "gal_test.h"
#include "solo.h"

TestSuite(error);

#define ELLIPSIS "\xe2\x80\xa6"

/* Valid UTF-8, at most `size` bytes with the NUL. */
static void
expect_whole_characters(const char *s, size_t size)
{
    cr_expect(g_utf8_validate(s, -1, NULL), "cut inside a character: \"%s\"", s);
    cr_expect_lt(strlen(s), size, "%zu bytes do not fit %zu", strlen(s), size);
}

Test(error, copy_cuts_before_a_character_that_does_not_fit)
{
    char buf[8];

    /* "aaa" + "é" (2 bytes) + "…" (3) + NUL is 9: the é goes, whole. */
    gal__utf8_copy(buf, "aaa\xc3\xa9" "bbbb", sizeof(buf));
    cr_expect_str_eq(buf, "aaa" ELLIPSIS);
    /* Every cut point through a three-byte and a four-byte character. */
    for (size_t size = 1; size <= 16; size++) {
        char small[16];

        gal__utf8_copy(small, "ab\xe6\x97\xa5\xf0\x9f\x8c\x8f" "cd\xe6\x9c\xac", size);
        expect_whole_characters(small, size);
    }
}

Test(error, copy_keeps_text_that_fits_unchanged)
{
    char buf[16];

    gal__utf8_copy(buf, "caf\xc3\xa9", sizeof(buf));
    cr_expect_str_eq(buf, "caf\xc3\xa9");
    /* Exactly full: no ellipsis. */
    gal__utf8_copy(buf, "0123456789abcde", sizeof(buf));
    cr_expect_str_eq(buf, "0123456789abcde");
    /* Too small for the ellipsis: cut without one, still whole characters. */
    gal__utf8_copy(buf, "\xc3\xa9\xc3\xa9\xc3\xa9", 4);
    cr_expect_str_eq(buf, "\xc3\xa9");
}

Test(error, excerpt_counts_characters_not_bytes)
{
    g_autofree char *short_text = gal__excerpt("\xe6\x97\xa5\xe6\x9c\xac", 2);
    g_autofree char *cut = gal__excerpt("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 2);
    g_autofree char *emoji = gal__excerpt("\xf0\x9f\x8c\x8f\xf0\x9f\x8c\x8f\xf0\x9f\x8c\x8f", 1);
    /* A stray continuation byte and a truncated sequence: never split further. */
    g_autofree char *broken = gal__excerpt("a\x80\x80" "b\xe6\x97", 2);

    cr_expect_str_eq(short_text, "\xe6\x97\xa5\xe6\x9c\xac");
    cr_expect_str_eq(cut, "\xe6\x97\xa5\xe6\x9c\xac" ELLIPSIS);
    cr_expect_str_eq(emoji, "\xf0\x9f\x8c\x8f" ELLIPSIS);
    cr_expect_str_eq(broken, "a\x80\x80" "b" ELLIPSIS);
}

/* 510 bytes of "a", then a run of "日" (3 bytes each): whatever the field
 * size, the cut falls inside a character unless it is made with care. */
static char *
long_text(void)
{
    g_autofree char *ascii = g_strnfill(510, 'a');
    GString *s = g_string_new(ascii);

    for (int i = 0; i < 300; i++)
        g_string_append(s, "\xe6\x97\xa5");
    return g_string_free(s, FALSE);
}

Test(error, every_field_of_an_error_is_cut_between_characters)
{
    g_autofree char *text = long_text();
    gal_loc loc = { text, 3, 7 };
    gal_error err = { 0 };
    char line[700];

    gal_error_set(&err, GAL_ERR_PRESET, &loc, text + 490, "%s", text);
    gal_error_set_subject(&err, text + 1);
    expect_whole_characters(err.msg, sizeof(err.msg));
    expect_whole_characters(err.file, sizeof(err.file));
    expect_whole_characters(err.key, sizeof(err.key));
    expect_whole_characters(err.subject, sizeof(err.subject));
    cr_expect(g_str_has_suffix(err.msg, ELLIPSIS), "%s", err.msg);
    cr_expect(g_str_has_suffix(err.key, ELLIPSIS), "%s", err.key);
    gal_error_format(&err, line, sizeof(line));
    expect_whole_characters(line, sizeof(line));
    cr_expect(g_str_has_suffix(line, ELLIPSIS));
}

Test(error, errors_pushed_to_a_list_are_cut_the_same_way)
{
    g_autofree char *text = long_text();
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    gal__errors_push(errs, GAL_ERR_PRESET, NULL, text + 400, "quoted: %s", text + 2);
    cr_assert_eq(errs->count, 1);
    expect_whole_characters(errs->items[0].msg, sizeof(errs->items[0].msg));
    expect_whole_characters(errs->items[0].key, sizeof(errs->items[0].key));
    cr_expect(g_str_has_prefix(errs->items[0].msg, "quoted: aaa"));
}

Test(error, output_names_quote_a_long_part_by_whole_characters)
{
    GString *caption = g_string_new("\xc3\xa9");
    g_autoptr(GError) error = NULL;
    gal_output_opts output = { 0 };
    gal_facts facts = { 0 };
    gal_error err = { 0 };
    g_autofree char *path = NULL;

    /* 1 + 120 * 2 bytes of "é" after an "x": the part is too long. */
    for (int i = 0; i < 120; i++)
        g_string_append(caption, "x\xc3\xa9");
    facts.caption = caption->str;
    facts.ext = "jpg";
    output.name = gal__template_parse("{caption}.{ext}", &error);
    cr_assert_not_null(output.name);
    path = gal__output_path(&output, "/out", &facts, &err);
    cr_assert_null(path);
    cr_expect(g_utf8_validate(err.msg, -1, NULL), "%s", err.msg);
    /* 40 characters of the part, then "…", inside the quotes. */
    cr_expect(strstr(err.msg, "\"\xc3\xa9x\xc3\xa9x") != NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "x\xc3\xa9x" ELLIPSIS "\", is longer than 230 bytes") != NULL,
        "%s", err.msg);
    gal__template_free(output.name);
    g_string_free(caption, TRUE);
}

Test(error, template_errors_quote_the_start_and_count_columns_in_characters)
{
    GString *text = g_string_new("\xc2\xa9 {artst} ");
    g_autoptr(GError) error = NULL;
    gal_template *tpl;

    for (int i = 0; i < 200; i++)
        g_string_append(text, "\xe6\x97\xa5");
    tpl = gal__template_parse(text->str, &error);
    cr_assert_null(tpl);
    /* "©" is one character: the brace is the third. */
    cr_expect(strstr(error->message, "at column 3 of") != NULL, "%s", error->message);
    cr_expect(g_utf8_validate(error->message, -1, NULL));
    cr_expect(strstr(error->message, ELLIPSIS "\" (did you mean \"{artist}\"?)") != NULL, "%s",
        error->message);
    g_string_free(text, TRUE);
}

/* A photo run alone has libvips' warnings as its reasons, but not the tile
 * cache's "error in tile X x Y", whose count follows its threads' timing
 * (a truncated JPEG's reason differed between runs). */
Test(error, a_photo_alone_keeps_warnings_but_not_which_tiles_failed, .init = gal_test_setup,
    .fini = gal_test_teardown)
{
    gal_solo *solo = gal__solo_new();
    gal_error err = { 0 };

    gal__solo_begin(solo);
    vips_error("VipsJpeg", "%s", "Premature end of input file");
    g_log("VIPS", G_LOG_LEVEL_WARNING, "error in tile %d x %d", 0, 80);
    g_log("VIPS", G_LOG_LEVEL_WARNING, "%s", "read gave 2 warnings");
    g_log("VIPS", G_LOG_LEVEL_WARNING, "error in tile %d x %d", 0, 88);
    gal_error_from_vips(&err, GAL_ERR_INPUT, NULL, "decoding");
    gal__solo_end(solo);
    gal__solo_free(solo);
    cr_expect_str_eq(err.msg,
        "decoding: VipsJpeg: Premature end of input file read gave 2 warnings");
}

/* libheif's reads past the end of a HEIC cut short reach libvips' buffer
 * before libheif's reason: the reason alone is said; a bad seek alone
 * still is. */
Test(error, a_loaders_bad_seeks_give_way_to_its_reason, .init = gal_test_setup,
    .fini = gal_test_teardown)
{
    gal_error err = { 0 }, alone = { 0 };

    vips_error_clear();
    vips_error("source", "bad seek to %d", 18090);
    vips_error("source", "bad seek to %d", 17264);
    vips_error("heif", "%s", "Invalid input: Unexpected end of file");
    gal_error_from_vips(&err, GAL_ERR_INPUT, NULL, "cannot read");
    cr_expect_str_eq(err.msg, "cannot read: heif: Invalid input: Unexpected end of file");
    vips_error("source", "bad seek to %d", 12);
    gal_error_from_vips(&alone, GAL_ERR_INPUT, NULL, "cannot read");
    cr_expect_str_eq(alone.msg, "cannot read: source: bad seek to 12");
}
