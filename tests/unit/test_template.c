/* Name and caption templates: parse errors with their column, literal
 * braces, formats, fallbacks and rendering of missing values. Pure string
 * work: no libvips needed. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(template);

static gal_facts
photo(void)
{
    gal_facts f = { 0 };

    f.name = "IMG_0042.JPG";
    f.stem = "IMG_0042";
    f.ext = "jpg";
    f.preset = "web";
    f.camera = "Apple iPhone 5s";
    f.has_date = TRUE;
    f.date.tm_year = 2024 - 1900;
    f.date.tm_mon = 4;
    f.date.tm_mday = 17;
    f.date.tm_hour = 9;
    f.date.tm_min = 5;
    f.date.tm_sec = 30;
    f.index = 7;
    f.count = 23;
    return f;
}

static char *
render(const char *text, const gal_facts *f)
{
    g_autoptr(GError) error = NULL;
    gal_template *tpl = gal__template_parse(text, &error);
    char *out;

    cr_assert_not_null(tpl, "%s: %s", text, error ? error->message : "");
    out = gal__template_render(tpl, f, FALSE);
    gal__template_free(tpl);
    return out;
}

static void
expect_render(const char *text, const gal_facts *f, const char *want)
{
    g_autofree char *got = render(text, f);

    cr_expect_str_eq(got, want, "%s", text);
}

/* Parse must fail with exactly `message`. */
static void
expect_parse_error(const char *text, const char *message)
{
    g_autoptr(GError) error = NULL;
    gal_template *tpl = gal__template_parse(text, &error);

    cr_expect_null(tpl, "\"%s\" parsed", text);
    gal__template_free(tpl);
    cr_assert_not_null(error, "\"%s\": no error", text);
    cr_expect_str_eq(error->message, message);
}

Test(template, rejects_an_unknown_field_with_did_you_mean_and_column)
{
    expect_parse_error("x-{stme}.{ext}",
        "unknown field \"{stme}\" at column 3 of \"x-{stme}.{ext}\" (did you mean \"{stem}\"?)");
    expect_parse_error("{stem}-{dtae:%Y}",
        "unknown field \"{dtae}\" at column 8 of \"{stem}-{dtae:%Y}\" (did you mean \"{date}\"?)");
}

Test(template, rejects_an_unknown_field_listing_the_fields)
{
    expect_parse_error("{whatever}",
        "unknown field \"{whatever}\" at column 1 of \"{whatever}\"; fields are name, stem, ext, "
        "preset, caption, camera, lens, artist, copyright, exposure, date, year, dir, width, "
        "index, count");
}

Test(template, rejects_an_unclosed_brace)
{
    expect_parse_error("photo-{stem",
        "unclosed \"{\" at column 7 of \"photo-{stem\" (write \"{{\" for a brace)");
}

Test(template, rejects_an_unmatched_closing_brace)
{
    expect_parse_error("photo}.jpg",
        "unmatched \"}\" at column 6 of \"photo}.jpg\" (write \"}}\" for a brace)");
    expect_parse_error("{stem}}.jpg",
        "unmatched \"}\" at column 7 of \"{stem}}.jpg\" (write \"}}\" for a brace)");
}

Test(template, rejects_a_format_on_a_field_that_takes_none)
{
    expect_parse_error("{stem:%Y}",
        "field \"{stem}\" takes no format (only date, width, index and count do), at column 1 of "
        "\"{stem:%Y}\"");
}

Test(template, rejects_a_number_format_that_is_not_a_width)
{
    expect_parse_error("{index:x3}",
        "\"{index:x3}\": a number takes a width such as {index:03}, at column 1 of \"{index:x3}\"");
    expect_parse_error("a{count:}", "\"{count:}\": a number takes a width such as {count:03}, at "
                                    "column 2 of \"a{count:}\"");
    expect_parse_error("{index:123}", "\"{index:123}\": a number takes a width such as "
                                      "{index:03}, at column 1 of \"{index:123}\"");
}

Test(template, doubled_braces_are_literal)
{
    gal_facts f = photo();

    expect_render("{{stem}}", &f, "{stem}");
    expect_render("{{{stem}}}", &f, "{IMG_0042}");
    expect_render("a}}b{{c", &f, "a}b{c");
}

Test(template, renders_plain_fields)
{
    gal_facts f = photo();

    expect_render("{stem}.{ext}", &f, "IMG_0042.jpg");
    expect_render("{name}", &f, "IMG_0042.JPG");
    expect_render("{preset}/{camera}", &f, "web/Apple iPhone 5s");
    expect_render("{ stem }", &f, "IMG_0042");
    expect_render("no fields at all", &f, "no fields at all");
    expect_render("", &f, "");
}

Test(template, renders_a_date_with_a_format)
{
    gal_facts f = photo();

    expect_render("{date:%Y-%m-%d}", &f, "2024-05-17");
    expect_render("{date:%Y/%m}/{stem}", &f, "2024/05/IMG_0042");
    expect_render("{date:%H%M%S}", &f, "090530");
}

Test(template, renders_a_date_in_the_default_format)
{
    gal_facts f = photo();

    expect_render("{date}", &f, "2024-05-17");
}

Test(template, renders_index_and_count_zero_padded)
{
    gal_facts f = photo();

    expect_render("{index:03}", &f, "007");
    expect_render("{index}", &f, "7");
    expect_render("{index:3}-of-{count:04}", &f, "007-of-0023");
    f.index = 1234;
    expect_render("{index:03}", &f, "1234"); /* a width never truncates */
}

Test(template, uses_the_fallback_for_a_missing_value)
{
    gal_facts f = photo();

    expect_render("{artist|Unknown}", &f, "Unknown");
    f.artist = "";
    expect_render("{artist|Unknown}", &f, "Unknown"); /* empty counts as missing */
    f.artist = "Ann";
    expect_render("{artist|Unknown}", &f, "Ann");
    f.has_date = FALSE;
    expect_render("{date:%Y|undated}/{stem}", &f, "undated/IMG_0042");
}

Test(template, renders_a_missing_value_as_empty)
{
    gal_facts f = photo();

    expect_render("{stem}-{lens}-{copyright}.{ext}", &f, "IMG_0042--.jpg");
    f.has_date = FALSE;
    expect_render("[{date}]", &f, "[]");
    expect_render("{caption|}", &f, "");
}

Test(template, renders_values_as_they_are_without_sanitising)
{
    gal_facts f = photo();
    g_autoptr(GError) error = NULL;
    gal_template *tpl = gal__template_parse("{caption}", &error);
    g_autofree char *raw = NULL;
    g_autofree char *safe = NULL;

    f.caption = "Sunset / Lisbon";
    raw = gal__template_render(tpl, &f, FALSE);
    safe = gal__template_render(tpl, &f, TRUE);
    cr_expect_str_eq(raw, "Sunset / Lisbon", "captions burnt into the photo keep their text");
    cr_expect_str_eq(safe, "Sunset _ Lisbon");
    gal__template_free(tpl);
}

Test(template, keeps_its_source_text)
{
    gal_template *tpl = gal__template_parse("{stem}-{{x}}", NULL);

    cr_assert_not_null(tpl);
    cr_expect_str_eq(gal__template_text(tpl), "{stem}-{{x}}");
    gal__template_free(tpl);
}

Test(template, tells_which_fields_it_uses)
{
    gal_template *tpl = gal__template_parse("{stem}-{date:%Y}-{artist|x}-{{index}}", NULL);

    cr_assert_not_null(tpl);
    cr_expect(gal__template_uses(tpl, "stem"));
    cr_expect(gal__template_uses(tpl, "date"), "a field with a format");
    cr_expect(gal__template_uses(tpl, "artist"), "a field with a fallback");
    cr_expect_not(gal__template_uses(tpl, "index"), "{{index}} is literal text");
    cr_expect_not(gal__template_uses(tpl, "ext"));
    cr_expect_not(gal__template_uses(tpl, "st"));
    gal__template_free(tpl);
}

/* One list of fields says what each is: the engine asks which need EXIF
 * (output names), the watermark which texts are the same for every photo. */
Test(template, fields_say_what_they_need)
{
    static const struct { const char *text; gboolean exif, per_photo; } cases[] = {
        { "© {preset} 2024", FALSE, FALSE },
        { "{stem}.{ext}", FALSE, TRUE },
        { "{index:03} of {count}", FALSE, TRUE },
        { "{date:%Y}", TRUE, TRUE },
        { "{caption|}", TRUE, TRUE },
        { "{{camera}}", FALSE, FALSE },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        gal_template *tpl = gal__template_parse(cases[i].text, NULL);

        cr_assert_not_null(tpl, "%s", cases[i].text);
        cr_expect_eq(gal__template_uses_any(tpl, GAL_FIELD_EXIF), cases[i].exif, "%s",
            cases[i].text);
        cr_expect_eq(gal__template_uses_any(tpl, GAL_FIELD_PER_PHOTO), cases[i].per_photo,
            "%s", cases[i].text);
        gal__template_free(tpl);
    }
    /* Every listed field parses, and only those with a format take one. */
    for (const gal_field *f = gal__template_fields; f->name; f++) {
        g_autofree char *plain = g_strdup_printf("{%s}", f->name);
        g_autofree char *formatted = g_strdup_printf("{%s:%s}", f->name,
            f->format == GAL_FIELD_STRFTIME ? "%Y" : "03");
        gal_template *a = gal__template_parse(plain, NULL);
        gal_template *b = gal__template_parse(formatted, NULL);

        cr_expect_not_null(a, "%s", plain);
        cr_expect_eq(b != NULL, f->format != GAL_FIELD_NO_FORMAT, "%s", formatted);
        gal__template_free(a);
        gal__template_free(b);
    }
}
