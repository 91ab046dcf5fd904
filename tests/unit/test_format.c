/* The output format table (formats.def, format.h): every entry complete,
 * the lookups over it, and the one hand-written list of formats left,
 * docs/report.schema.json's, kept to it. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "format.h"

TestSuite(format, .init = gal_test_setup, .fini = gal_test_teardown);

Test(format, every_format_says_what_the_generic_code_asks)
{
    cr_assert_null(gal_format_names[GAL_N_FORMATS]);
    for (int f = 0; f < GAL_N_FORMATS; f++) {
        const gal_format_def *def = gal__formats[f];
        const char *name = gal_format_names[f];

        cr_assert_not_null(name);
        cr_expect_str_eq(gal__format_name((gal_format) f), name);
        cr_expect_eq(gal__format_of_name(name), (gal_format) f, "%s", name);
        cr_expect(def->ext && *def->ext && def->ext[0] != '.', "%s: ext", name);
        cr_expect(def->mime && g_str_has_prefix(def->mime, "image/"), "%s: mime", name);
        cr_expect((def->save != NULL) != (def->write != NULL), "%s: one encoder", name);
        cr_expect((def->saver != NULL) == (def->library != NULL), "%s: saver and library", name);
        cr_expect(!def->module || def->saver, "%s: a module without its saver", name);
        /* This libvips (Debian's, with libheif) writes every format. */
        cr_expect_null(gal__format_missing((gal_format) f), "%s", name);
    }
    /* A gallery falls back on a format every browser shows. */
    cr_expect(gal__formats[0]->every_browser);
}

Test(format, is_found_by_name_and_by_extension)
{
    cr_expect_eq(gal__format_of_name("webp"), GAL_FORMAT_WEBP);
    cr_expect_eq(gal__format_of_name("gif"), GAL_FORMAT_JPEG);
    cr_expect_eq(gal__format_of_name(NULL), GAL_FORMAT_JPEG);
    cr_expect_str_eq(gal__format_ext(GAL_FORMAT_JPEG), "jpg");
    cr_expect_eq(gal__format_of_file("out/a.jpg"), GAL_FORMAT_JPEG);
    cr_expect_eq(gal__format_of_file("A.JPEG"), GAL_FORMAT_JPEG);
    cr_expect_eq(gal__format_of_file("a.b.PNG"), GAL_FORMAT_PNG);
    cr_expect_eq(gal__format_of_file("a.avif"), GAL_FORMAT_AVIF);
    cr_expect_eq(gal__format_of_file("a.JXL"), GAL_FORMAT_JXL);
    cr_expect_eq(gal__format_of_name("jxl"), GAL_FORMAT_JXL);
    cr_expect_eq(gal__format_of_file("index.html"), -1);
    cr_expect_eq(gal__format_of_file("a.jpg.txt"), -1);
    cr_expect_eq(gal__format_of_file("noext"), -1);
    cr_expect_eq(gal__format_of_file("a."), -1);
    cr_expect_eq(gal__format_of_file(NULL), -1);
}

/* output.quality as JPEG XL's distance: cjxl's scale, where 90 is
 * "visually lossless" (1.0), decreasing loss all the way up, never beyond
 * what libvips takes (15). */
Test(format, jxl_quality_maps_to_a_distance_that_falls_as_quality_rises)
{
    cr_expect_float_eq(gal__jxl_distance(100), 0.1, 1e-9);
    cr_expect_float_eq(gal__jxl_distance(90), 1.0, 1e-9);
    cr_expect_float_eq(gal__jxl_distance(85), 1.45, 1e-9);
    cr_expect_float_eq(gal__jxl_distance(30), 6.4, 1e-9);
    cr_expect_float_eq(gal__jxl_distance(1), 15.0, 1e-9);
    for (int q = 2; q <= 100; q++)
        cr_expect_leq(gal__jxl_distance(q), gal__jxl_distance(q - 1), "quality %d", q);
    for (int q = 1; q <= 100; q++)
        cr_expect(gal__jxl_distance(q) > 0 && gal__jxl_distance(q) <= 15.0, "quality %d", q);
}

/* The report's schema names every format the report can show: the
 * table's, and html for a gallery page. */
Test(format, the_report_schema_lists_every_format)
{
    g_autofree char *schema = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) want = g_string_new("\"format\": { \"enum\": [");

    cr_assert(g_file_get_contents(GAL_PRESETS_DIR "/../docs/report.schema.json", &schema, NULL,
                  &error),
        "%s", error ? error->message : "?");
    for (int f = 0; f < GAL_N_FORMATS; f++)
        g_string_append_printf(want, "\"%s\", ", gal_format_names[f]);
    g_string_append(want, "\"html\", null] }");
    cr_expect(strstr(schema, want->str) != NULL,
        "docs/report.schema.json does not have the outputs' %s", want->str);
}
