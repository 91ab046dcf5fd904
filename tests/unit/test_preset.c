/* The preset loader: every error class (code, file:line:col, key, message),
 * extends, anchors, --set overrides, schema typing of scalars, describe
 * output and the defaults of every table. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"
#include "limit.h"
#include "recipe.h"

TestSuite(preset, .init = gal_test_setup, .fini = gal_test_teardown);

#define TEST_YAML GAL_TEST_TMP "/test.yaml"

/* ---- helpers ---------------------------------------------------------------- */

/* Load YAML that must fail; returns the errors (free with g_free). */
static gal_errors *
load_fails_with(const char *yaml, const char *const *overrides, int n)
{
    gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load_with(yaml, overrides, n, errs);

    cr_assert_null(preset, "the preset loaded but should not have:\n%s", yaml);
    cr_assert_gt(errs->count, 0, "load failed without an error");
    return errs;
}

static gal_errors *
load_fails(const char *yaml)
{
    return load_fails_with(yaml, NULL, 0);
}

/* Load YAML that must succeed. */
static gal_preset *
load_ok_with(const char *yaml, const char *const *overrides, int n)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load_with(yaml, overrides, n, errs);
    char line[1024] = "";

    if (errs->count)
        gal_error_format(&errs->items[0], line, sizeof(line));
    cr_assert_not_null(preset, "the preset did not load: %s", line);
    cr_assert_eq(errs->count, 0);
    return preset;
}

static gal_preset *
load_ok(const char *yaml)
{
    return load_ok_with(yaml, NULL, 0);
}

static void
expect_error(const gal_error *e, int line, int col, const char *key, const char *msg_part)
{
    gal_test_expect_error(e, GAL_ERR_PRESET, TEST_YAML, line, col, key, msg_part);
}

/* The first error about `file`. */
static const gal_error *
find_error(const gal_errors *errs, const char *file)
{
    for (int i = 0; i < errs->count; i++)
        if (strcmp(errs->items[i].file, file) == 0)
            return &errs->items[i];
    cr_assert_fail("no error names %s", file);
    return NULL;
}

static void
expect_msg(const gal_error *e, const char *part)
{
    cr_expect(strstr(e->msg, part) != NULL, "message \"%s\" lacks \"%s\"", e->msg, part);
}

/* The effective values of stage `i` ("width=1080 height=1350 ..."). */
static char *
stage_values(const gal_preset *preset, guint i)
{
    const gal_stage_instance *st;
    GString *out = g_string_new(" ");

    cr_assert_lt(i, preset->stages->len, "no stage %u", i);
    st = &g_array_index(preset->stages, gal_stage_instance, i);
    gal__schema_describe_values(&st->section, st->opts, out);
    g_string_append_c(out, ' ');
    return g_string_free(out, FALSE);
}

/* `values` (from stage_values) holds "key=value" as a whole word. */
static void
expect_value(const char *values, const char *key_value)
{
    g_autofree char *word = g_strdup_printf(" %s ", key_value);

    cr_expect(strstr(values, word) != NULL, "\"%s\" not in \"%s\"", key_value, values);
}

static char *
write_file(const char *dir, const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);
    g_autofree char *folder = g_path_get_dirname(path);

    cr_assert_eq(g_mkdir_with_parents(folder, 0777), 0);
    cr_assert(g_file_set_contents(path, text, -1, NULL), "cannot write %s", path);
    return path;
}

static int
load_file(const char *path, gal_preset **out, gal_errors *errs)
{
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };

    return gal_preset_load(path, &opts, out, errs);
}

/* ---- 1. unknown keys and names ---------------------------------------------- */

Test(preset, rejects_unknown_key_with_did_you_mean)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize:\n"
                                             "      widht: 1080\n"
                                             "      height: 1350\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 4, 7, "resize.widht", "unknown key (did you mean \"width\"?)");
}

Test(preset, rejects_unknown_key_listing_valid_keys_when_nothing_is_close)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: 10, zoom: 2}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 25, "resize.zoom",
        "unknown key; valid keys are width, height, long-edge, short-edge, megapixels, percent, "
        "fit, crop, upscale, dont-enlarge, kernel, background");
}

Test(preset, rejects_unknown_key_in_a_section)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  qualty: 80\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 3, "output.qualty", "did you mean \"quality\"?");
}

Test(preset, rejects_unknown_top_level_key_with_did_you_mean)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stagse:\n"
                                             "  - resize: {width: 10}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 1, "stagse",
        "unknown top-level key (did you mean \"stages\"?)");
}

Test(preset, rejects_unknown_top_level_key_listing_valid_keys)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "filters: []\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 1, "filters",
        "unknown top-level key; valid keys are gallop, name, description, extends, input, "
        "stages, output");
}

Test(preset, rejects_unknown_stage_with_did_you_mean)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resise: {width: 1080}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 5, "resise", "unknown stage (did you mean \"resize\"?)");
}

Test(preset, rejects_unknown_stage_listing_the_stages)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - teleport: {}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 5, "teleport", "unknown stage; stages are ");
    expect_msg(&errs->items[0], "resize");
}

Test(preset, rejects_a_stage_used_as_a_top_level_key)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "resize:\n"
                                             "  width: 1080\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 1, "resize",
        "stages go in the list under \"stages:\", as \"- resize: {...}\"");
}

Test(preset, rejects_a_stage_that_is_not_a_one_key_mapping)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 5, "stages", "each stage is a one-key mapping");
}

/* A missing "- " makes two stages one item with two keys: the error is at
 * the second key, names it, and each stage is still checked. */
Test(preset, a_stage_item_with_two_stages_names_the_second_and_the_missing_dash)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: 1080}\n"
                                             "    watermark: {text: x, opacity: 2}\n"
                                             "  - resize: {width: 10}\n");

    cr_assert_eq(errs->count, 2);
    expect_error(&errs->items[0], 4, 5, "stages",
        "a second stage, \"watermark\", in the list item of \"resize\" (line 3): each stage is a "
        "list item of its own; is the \"- \" before \"watermark\" missing?");
    cr_expect_str_eq(errs->items[0].msg,
        "a second stage, \"watermark\", in the list item of \"resize\" (line 3): each stage is a "
        "list item of its own; is the \"- \" before \"watermark\" missing?");
    expect_error(&errs->items[1], 4, 35, "watermark.opacity", "must be between 0 and 1, got 2");
}

Test(preset, a_stage_key_written_beside_the_stage_name_says_to_indent_it)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize:\n"
                                             "    width: 1080\n"
                                             "    height: 1350\n");

    cr_assert_eq(errs->count, 2);
    expect_error(&errs->items[0], 4, 5, "stages",
        "a second key, \"width\", in the list item of \"resize\" (line 3): width is a key of "
        "resize; indent it under \"resize:\" or put it in its {...}");
    expect_error(&errs->items[1], 5, 5, "stages", "a second key, \"height\",");
}

Test(preset, a_stage_item_with_an_unknown_second_key_asks_for_the_missing_dash)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: 1080}\n"
                                             "    watermrk: {text: x}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 4, 5, "stages",
        "a second key, \"watermrk\", in the list item of \"resize\" (line 3): each stage is a "
        "one-key mapping; is the \"- \" before \"watermrk\" missing?");
}

/* ---- 2. wrong types --------------------------------------------------------- */

Test(preset, rejects_text_for_an_int)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: wide}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 21, "resize.width", "expected a whole number, got \"wide\"");
}

Test(preset, rejects_a_fraction_for_an_int)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {quality: 85.5}\n");

    expect_error(&errs->items[0], 2, 19, "output.quality",
        "expected a whole number or auto, got \"85.5\"");
}

Test(preset, rejects_a_mapping_for_a_scalar)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: {px: 1}}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 21, "resize.width", "expected an int, got a mapping");
}

Test(preset, rejects_a_list_for_a_scalar)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: 10, fit: [cover]}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 30, "resize.fit", "expected a choice, got a list");
}

Test(preset, rejects_a_mapping_for_a_section)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: fast\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 9, "output", "expected a mapping of keys, got a scalar");
}

Test(preset, rejects_a_mapping_for_the_stage_list)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  resize: {width: 10}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 1, "stages", "expected a list of stages");
    expect_msg(&errs->items[0], "got a mapping");
}

Test(preset, rejects_a_list_in_a_string_list)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "input:\n"
                                             "  include: [\"*.jpg\", [\"*.png\"]]\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 22, "input.include",
        "expected a list of strings, got a list in the list");
}

Test(preset, rejects_a_bool_typo)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize:\n"
                                             "      width: 10\n"
                                             "      upscale: ture\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 5, 16, "resize.upscale", "expected true or false, got \"ture\"");
}

Test(preset, rejects_an_enum_typo_with_did_you_mean)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize:\n"
                                             "      width: 10\n"
                                             "      fit: cvoer\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 5, 12, "resize.fit",
        "expected one of cover, contain, inside, fill, got \"cvoer\" (did you mean \"cover\"?)");
}

Test(preset, rejects_an_enum_value_that_is_nowhere_close)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {format: tiffany}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 18, "output.format", "expected one of jpeg, png, webp");
    expect_msg(&errs->items[0], "got \"tiffany\"");
    cr_expect(strstr(errs->items[0].msg, "did you mean") == NULL, "%s", errs->items[0].msg);
}

Test(preset, accepts_center_and_any_case_for_enums)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "stages:\n"
                                 "  - resize: {width: 9, height: 9, fit: COVER, crop: center}\n");
    g_autofree char *values = stage_values(preset, 0);

    expect_value(values, "fit=cover");
    expect_value(values, "crop=centre");
    gal_preset_free(preset);
}

Test(preset, rejects_a_bad_colour)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize:\n"
                                             "      width: 10\n"
                                             "      background: \"#12345\"\n"
                                             "output:\n"
                                             "  background: rebeccapurple\n");

    cr_assert_eq(errs->count, 2);
    expect_error(&errs->items[0], 5, 19, "resize.background",
        "expected a colour like \"#rrggbb\"");
    expect_msg(&errs->items[0], "got \"#12345\"");
    expect_error(&errs->items[1], 7, 15, "output.background", "got \"rebeccapurple\"");
}

Test(preset, parses_every_colour_form)
{
    static const struct { const char *text; gal_color want; } cases[] = {
        { "#ff8000", { 255, 128, 0, 255, FALSE } },
        { "#FF800080", { 255, 128, 0, 128, FALSE } },
        { "#f80", { 255, 136, 0, 255, FALSE } },
        { "#f808", { 255, 136, 0, 136, FALSE } },
        { "White", { 255, 255, 255, 255, FALSE } },
        { "transparent", { 0, 0, 0, 0, FALSE } },
    };
    static const char *const bad[] = { "", "#", "ff8000", "#ff800", "#gg0000",
        "#ff8000801", "red" };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        gal_color c;

        cr_assert_eq(gal__color_parse(cases[i].text, &c), 0, "%s", cases[i].text);
        cr_expect(c.r == cases[i].want.r && c.g == cases[i].want.g && c.b == cases[i].want.b &&
                c.a == cases[i].want.a,
            "%s gave %g,%g,%g,%g", cases[i].text, c.r, c.g, c.b, c.a);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        gal_color c;

        cr_expect_eq(gal__color_parse(bad[i], &c), -1, "\"%s\" should not parse", bad[i]);
    }
}

/* No shipped stage has a LENGTH or PATH key yet: a table of our own. */
typedef struct {
    gal_length size;
} length_opts;

static const gal_param length_params[] = {
    GAL_PARAM_LENGTH(length_opts, size, "a length", "10%", 2000),
    GAL_PARAM_END,
};

static const gal_section length_section = {
    "probe", "lengths", length_params, sizeof(length_opts),
};

typedef struct {
    char *image;
    int margin_px;
} path_opts;

static const gal_param path_params[] = {
    GAL_PARAM_PATH(path_opts, image, "a file", GAL_REQUIRED),
    GAL_PARAM_INT(path_opts, margin_px, "a margin", "24", 0, 2000),
    GAL_PARAM_END,
};

static const gal_section path_section = {
    "probe", "paths", path_params, sizeof(path_opts),
};

/* A mapping as the loader would build it from "{KEY: VALUE}" at line 2 of
 * `file`: the key at column 3, the value at column 10. */
static gal_node *
one_key_map(const char *file, const char *key, const char *value)
{
    gal_loc map_loc = { file, 2, 1 }, key_loc = { file, 2, 3 }, value_loc = { file, 2, 10 };
    gal_node *map = gal__node_new(GAL_NODE_MAP, &map_loc);

    gal__node_set(map, gal__node_new_scalar(key, &key_loc),
        gal__node_new_scalar(value, &value_loc));
    return map;
}

static int
fill_length(const char *text, gal_length *out, gal_errors *errs)
{
    gal_node *map = one_key_map(TEST_YAML, "size", text);
    length_opts *opts = NULL;
    int failed = gal__schema_fill(&length_section, map, (void **) &opts, NULL, errs);

    *out = opts->size;
    gal__schema_free(&length_section, opts);
    gal__node_free(map);
    return failed;
}

Test(preset, parses_lengths_in_pixels_and_percent)
{
    static const struct { const char *text; double value; gboolean relative; } cases[] = {
        { "12", 12, FALSE }, { "12px", 12, FALSE }, { "3.5%", 3.5, TRUE }, { " 40 px ", 40, FALSE },
        { "0", 0, FALSE }, { "100%", 100, TRUE },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_length len;

        cr_assert_eq(fill_length(cases[i].text, &len, errs), 0, "%s: %s", cases[i].text,
            errs->items[0].msg);
        cr_expect_float_eq(len.value, cases[i].value, 1e-9, "%s", cases[i].text);
        cr_expect_eq(len.relative, cases[i].relative, "%s", cases[i].text);
    }
    {
        gal_length len = { 10, TRUE };

        cr_expect_eq(gal__length_px(&len, 1080), 108);
        len = (gal_length) { 24, FALSE };
        cr_expect_eq(gal__length_px(&len, 1080), 24);
    }
}

Test(preset, rejects_a_bad_length)
{
    static const struct { const char *text; const char *msg; } cases[] = {
        { "wide", "expected a length in pixels (24 or 24px) or a percentage (3.5%), got \"wide\"" },
        { "12em", "expected a length in pixels" },
        { "%", "expected a length in pixels" },
        { "150%", "a percentage must be between 0% and 100%, got 150%" },
        { "-1%", "a percentage must be between 0% and 100%" },
        { "5000", "must be between 0 and 2000 px, got 5000" },
        { "-3px", "must be between 0 and 2000 px, got -3px" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_length len;

        cr_assert_eq(fill_length(cases[i].text, &len, errs), -1, "%s parsed", cases[i].text);
        cr_assert_eq(errs->count, 1);
        expect_error(&errs->items[0], 2, 10, "probe.size", cases[i].msg);
    }
}

/* ---- 3. ranges -------------------------------------------------------------- */

Test(preset, rejects_quality_out_of_range)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  quality: 140\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 12, "output.quality", "must be between 1 and 100, got 140");
}

Test(preset, rejects_zero_width)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: 0}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 21, "resize.width", "must be between 1 and 65535, got 0");
}

Test(preset, rejects_zero_max_megapixels)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "input:\n"
                                             "  max-megapixels: 0\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 19, "input.max-megapixels",
        "must be between 0.01 and 100000, got 0");
}

Test(preset, rejects_non_finite_numbers)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "input: {max-megapixels: nan}\n");

    expect_error(&errs->items[0], 2, 25, "input.max-megapixels", "expected a number, got \"nan\"");
}

Test(preset, accepts_range_limits)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "input: {max-megapixels: 0.01}\n"
                                 "output: {quality: 100}\n"
                                 "stages:\n"
                                 "  - resize: {width: 65535, height: 1}\n");

    cr_expect_float_eq(preset->input->max_megapixels, 0.01, 1e-12);
    cr_expect_eq(preset->output->quality, 100);
    gal_preset_free(preset);
}

/* ---- 4. the document itself ------------------------------------------------- */

Test(preset, requires_the_schema_version)
{
    g_autofree gal_errors *errs = load_fails("name: mine\n"
                                             "output: {quality: 80}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 1, 1, "gallop", "missing \"gallop: 1\"");
}

Test(preset, rejects_an_unsupported_schema_version)
{
    g_autofree gal_errors *errs = load_fails("gallop: 2\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 1, 9, "gallop",
        "unsupported schema version \"2\": this gallop reads version 1");
}

Test(preset, rejects_a_top_level_list)
{
    g_autofree gal_errors *errs = load_fails("- gallop: 1\n- resize: {}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 1, 1, "", "a preset is a mapping of keys");
    expect_msg(&errs->items[0], "got a list");
}

Test(preset, rejects_a_top_level_scalar)
{
    g_autofree gal_errors *errs = load_fails("\n  instagram-portrait\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 3, "", "a preset is a mapping of keys");
    expect_msg(&errs->items[0], "got a scalar");
}

Test(preset, reports_yaml_syntax_errors_at_libyamls_mark_plus_one)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  quality: 80\n"
                                             "   format: png\n");

    cr_assert_eq(errs->count, 1);
    /* libyaml's mark for this is line 3, column 9 (0-based). */
    expect_error(&errs->items[0], 4, 10, "output",
        "YAML syntax error: mapping values are not allowed in this context");
}

Test(preset, reports_an_unclosed_flow_list_with_libyamls_context)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "input:\n"
                                             "  include: [\"*.jpg\", \"*.png\"\n"
                                             "output: {}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 4, 1, "input.include",
        "YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence");
}

Test(preset, reports_invalid_utf8_where_it_is)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "name: caf\xff au lait\n");

    cr_assert_eq(errs->count, 1);
    /* libyaml gives a byte offset for these, not a mark. */
    expect_error(&errs->items[0], 2, 10, "name", "YAML syntax error: invalid leading UTF-8 octet");
}

/* One syntax error, exactly: code, place, the key it is in, the whole
 * message. */
static void
expect_syntax_error(const char *yaml, int line, int col, const char *key, const char *msg)
{
    g_autofree gal_errors *errs = load_fails(yaml);

    cr_assert_eq(errs->count, 1, "%s", yaml);
    expect_error(&errs->items[0], line, col, key, msg);
    cr_expect_str_eq(errs->items[0].msg, msg);
}

Test(preset, an_unclosed_quote_is_reported_where_it_opens)
{
    /* The first thing in the file. */
    expect_syntax_error("\"gallop: 1\n"
                        "stages: []\n",
        1, 1, "",
        "YAML syntax error: this quoted string is never closed (found end of file at line 2)");
    /* Block context, single quotes. */
    expect_syntax_error("gallop: 1\n"
                        "name: 'my web preset\n"
                        "stages:\n"
                        "  - resize: {width: 10}\n",
        2, 7, "name",
        "YAML syntax error: this quoted string is never closed (found end of file at line 4)");
    /* Flow context, double quotes; the file ends without a line break. */
    expect_syntax_error("gallop: 1\n"
                        "stages:\n"
                        "  - resize: {width: \"10}\n"
                        "  - watermark: {text: x}",
        3, 21, "stages[0].resize.width",
        "YAML syntax error: this quoted string is never closed (found end of file at line 4)");
    /* Flow context, single quotes, in a list. */
    expect_syntax_error("gallop: 1\n"
                        "input: {include: ['*.jpg]}\n",
        2, 19, "input.include",
        "YAML syntax error: this quoted string is never closed (found end of file at line 2)");
    /* A document marker ends the string too. */
    expect_syntax_error("gallop: 1\n"
                        "description: \"first\n"
                        "---\n"
                        "gallop: 1\n",
        2, 14, "description",
        "YAML syntax error: this quoted string is never closed (found \"---\", which ends a YAML "
        "document, at line 3)");
}

Test(preset, an_unclosed_quote_deep_in_a_long_preset_is_reported_where_it_opens)
{
    GString *yaml = g_string_new("gallop: 1\nstages:\n");

    /* 36 lines of stages, then the mistake on line 39, then 20 more lines. */
    for (int i = 0; i < 36; i++)
        g_string_append(yaml, "  - resize: {width: 1080, height: 1080}\n");
    g_string_append(yaml, "  - watermark:\n"
                          "      text: 'Jen Loong\n");
    for (int i = 0; i < 20; i++)
        g_string_append(yaml, "  - resize: {width: 1080}\n");
    expect_syntax_error(yaml->str, 40, 13, "stages[36].watermark.text",
        "YAML syntax error: this quoted string is never closed (found end of file at line 60)");
    g_string_free(yaml, TRUE);
}

/* With more quotes further down, the unclosed string ends at the next one
 * and YAML fails there: the error still points at where it opened. */
Test(preset, a_string_that_takes_the_next_quote_as_its_end_is_reported_where_it_opens)
{
    expect_syntax_error("gallop: 1\n"
                        "name: \"web\n"
                        "stages:\n"
                        "  - resize: {width: 10}\n"
                        "  - caption-burn: {text: \"{caption}\"}\n",
        2, 7, "name",
        "YAML syntax error: this quoted string runs on to line 5, where YAML fails (did not "
        "find expected key at 5:27): is its closing \" missing?");
    expect_syntax_error("gallop: 1\n"
                        "stages:\n"
                        "  - caption-burn: {text: '{caption}}\n"
                        "  - watermark: {text: 'x'}\n",
        3, 26, "stages[0].caption-burn.text",
        "YAML syntax error: this quoted string runs on to line 4, where YAML fails (did not "
        "find expected ',' or '}' at 4:24): is its closing ' missing?");
    expect_syntax_error("gallop: 1\n"
                        "stages:\n"
                        "  - caption-burn:\n"
                        "      text: \"{caption}\n"
                        "      font: \"DejaVu Serif\"\n",
        4, 13, "stages[0].caption-burn.text",
        "YAML syntax error: this quoted string runs on to line 5, where YAML fails (did not "
        "find expected key at 5:14): is its closing \" missing?");
}

/* A string that spans lines on purpose is no mistake; an error further
 * down keeps libyaml's own place. */
Test(preset, a_multi_line_string_does_not_take_the_blame_for_a_later_error)
{
    expect_syntax_error("gallop: 1\n"
                        "description: \"a long\n"
                        "  description\"\n"
                        "output:\n"
                        "  quality: 80\n"
                        "   format: png\n",
        6, 10, "output", "YAML syntax error: mapping values are not allowed in this context");
}

Test(preset, an_unknown_escape_says_how_to_write_a_backslash)
{
    expect_syntax_error("gallop: 1\n"
                        "stages:\n"
                        "  - watermark: {image: \"C:\\logo.png\"}\n",
        3, 27, "stages[0].watermark.image",
        "YAML syntax error: found unknown escape character in a double-quoted string (write "
        "\\\\ for a backslash, or use single quotes, where \\ is just a backslash)");
}

Test(preset, rejects_a_duplicate_key_at_the_second_one)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  quality: 80\n"
                                             "  format: png\n"
                                             "  quality: 90\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 5, 3, "quality", "duplicate key (first set at line 3)");
}

Test(preset, rejects_a_duplicate_top_level_key)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "name: a\n"
                                             "stages: []\n"
                                             "name: b\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 4, 1, "name", "duplicate key (first set at line 2)");
}

Test(preset, rejects_an_empty_document_for_its_missing_version)
{
    static const char *const empties[] = { "", "# only a comment\n", "---\n", "~\n" };

    for (size_t i = 0; i < G_N_ELEMENTS(empties); i++) {
        g_autofree gal_errors *errs = load_fails(empties[i]);

        cr_assert_eq(errs->count, 1, "\"%s\"", empties[i]);
        expect_error(&errs->items[0], 1, 1, "gallop", "missing \"gallop: 1\"");
    }
}

Test(preset, rejects_a_non_scalar_key)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "? [a, b]\n"
                                             ": 1\n");

    expect_error(&errs->items[0], 2, 3, "", "a key must be a plain word, got a list");
}

Test(preset, rejects_text_keys_given_a_list)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "name: [a, b]\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 7, "name", "expected text, got a list");
}

/* ---- 5. every error in one load --------------------------------------------- */

Test(preset, reports_every_error_in_file_order)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "input:\n"
                                             "  recursiv: true\n"
                                             "stages:\n"
                                             "  - resize:\n"
                                             "      width: 1080\n"
                                             "      fti: cover\n"
                                             "output:\n"
                                             "  qualty: 80\n");

    cr_assert_eq(errs->count, 3);
    cr_expect_eq(errs->dropped, 0);
    expect_error(&errs->items[0], 3, 3, "input.recursiv", "did you mean \"recursive\"?");
    expect_error(&errs->items[1], 7, 7, "resize.fti", "did you mean \"fit\"?");
    expect_error(&errs->items[2], 9, 3, "output.qualty", "did you mean \"quality\"?");
}

Test(preset, reports_top_level_and_stage_errors_together_in_file_order)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: 0}\n"
                                             "  - resise: {}\n"
                                             "output:\n"
                                             "  quality: 0\n"
                                             "colour: red\n");

    cr_assert_eq(errs->count, 4);
    expect_error(&errs->items[0], 3, 21, "resize.width", "must be between 1 and 65535");
    expect_error(&errs->items[1], 4, 5, "resise", "did you mean \"resize\"?");
    expect_error(&errs->items[2], 6, 12, "output.quality", "must be between 1 and 100, got 0");
    expect_error(&errs->items[3], 7, 1, "colour", "unknown top-level key");
}

Test(preset, keeps_the_first_twenty_errors_and_counts_the_rest)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\noutput:\n");
    g_autofree gal_errors *errs = NULL;

    for (int i = 0; i < 25; i++)
        g_string_append_printf(yaml, "  bogus-key-%02d: 1\n", i);
    errs = load_fails(yaml->str);
    cr_assert_eq(errs->count, GAL_MAX_ERRORS);
    cr_expect_eq(errs->dropped, 5);
    expect_error(&errs->items[0], 3, 3, "output.bogus-key-00", "unknown key; valid keys are");
    expect_error(&errs->items[19], 22, 3, "output.bogus-key-19", "unknown key");
}

Test(preset, reports_stage_check_errors_at_the_stage)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {fit: cover, width: 10}\n"
                                             "  - resize: {}\n");

    cr_assert_eq(errs->count, 2);
    expect_error(&errs->items[0], 3, 5, "resize.fit", "cover needs both width and height");
    expect_error(&errs->items[1], 4, 5, "resize", "give a width, a height or both");
}

/* ---- 6. paths --------------------------------------------------------------- */

Test(preset, resolves_output_dir_against_the_preset_folder)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "output: {dir: exports/web}\n");
    g_autofree char *want = g_canonicalize_filename("exports/web", GAL_TEST_TMP);

    cr_expect_str_eq(preset->output->dir, want);
    gal_preset_free(preset);
    /* "../shared" and "/var/tmp/x" are refused: test_preset_reach.c. */
}

Test(preset, resolves_the_default_output_dir_and_set_values_against_the_working_folder)
{
    static const char *const set[] = { "output.dir=from-cli" };
    gal_preset *preset = load_ok("gallop: 1\n");
    g_autofree char *cwd = g_get_current_dir();
    g_autofree char *want_default = g_build_filename(cwd, "out", NULL);
    g_autofree char *want_set = g_build_filename(cwd, "from-cli", NULL);

    cr_expect_str_eq(preset->output->dir, want_default);
    gal_preset_free(preset);
    preset = load_ok_with("gallop: 1\noutput: {dir: exports}\n", set, 1);
    cr_expect_str_eq(preset->output->dir, want_set);
    gal_preset_free(preset);
}

Test(preset, resolves_input_paths_against_the_preset_folder)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "input:\n"
                                 "  paths: [photos, ../more/IMG_1.jpg, /srv/pics]\n");
    g_autofree char *photos = g_build_filename(GAL_TEST_TMP, "photos", NULL);
    g_autofree char *more = g_canonicalize_filename("../more/IMG_1.jpg", GAL_TEST_TMP);

    cr_assert_eq(g_strv_length(preset->input->paths), 3);
    cr_expect_str_eq(preset->input->paths[0], photos);
    cr_expect_str_eq(preset->input->paths[1], more);
    cr_expect_str_eq(preset->input->paths[2], "/srv/pics");
    gal_preset_free(preset);

    /* One path may be written without a list. */
    preset = load_ok("gallop: 1\ninput: {paths: photos}\n");
    cr_assert_eq(g_strv_length(preset->input->paths), 1);
    cr_expect_str_eq(preset->input->paths[0], photos);
    gal_preset_free(preset);
}

Test(preset, rejects_a_missing_file_for_a_path_key)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *dir = gal_test_tmpdir("path-key");
    g_autofree char *preset_file = g_build_filename(dir, "p.yaml", NULL);
    g_autofree char *missing = g_build_filename(dir, "logo.png", NULL);
    gal_node *map = one_key_map(preset_file, "image", "logo.png");
    path_opts *opts = NULL;

    cr_assert_eq(gal__schema_fill(&path_section, map, (void **) &opts, NULL, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, preset_file, 2, 10, "probe.image",
        "file not found: ");
    expect_msg(&errs->items[0], missing);
    gal__schema_free(&path_section, opts);

    /* Once the file exists it resolves against the preset's folder. */
    g_free(write_file(dir, "logo.png", "not really a png"));
    errs->count = 0;
    cr_assert_eq(gal__schema_fill(&path_section, map, (void **) &opts, NULL, errs), 0,
        "%s", errs->items[0].msg);
    cr_expect_str_eq(opts->image, missing);
    cr_expect_eq(opts->margin_px, 24, "defaults are filled in too");
    gal__schema_free(&path_section, opts);
    gal__node_free(map);
}

Test(preset, rejects_a_missing_required_key)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_loc loc = { TEST_YAML, 4, 7 };
    gal_node *map = gal__node_new(GAL_NODE_MAP, &loc);
    path_opts *opts = NULL;

    cr_assert_eq(gal__schema_fill(&path_section, map, (void **) &opts, NULL, errs), -1);
    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 4, 7, "probe", "missing required key \"image\"");
    gal__schema_free(&path_section, opts);
    gal__node_free(map);
}

/* ---- 7. extends ------------------------------------------------------------- */

/* How many stages the shipped instagram-portrait has: the tests below
 * check merging relative to it, whatever stages it gains. */
static guint
portrait_stage_count(void)
{
    gal_preset *parent = load_ok("gallop: 1\nextends: instagram-portrait\n");
    guint n = parent->stages->len;

    gal_preset_free(parent);
    cr_assert_geq(n, 1);
    return n;
}

Test(preset, extends_a_shipped_preset_key_by_key)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "extends: instagram-portrait\n"
                                 "output:\n"
                                 "  quality: 70\n");
    g_autofree char *values = stage_values(preset, 0);

    cr_expect_eq(preset->output->quality, 70);
    cr_expect_eq(preset->output->format, GAL_FORMAT_JPEG);
    cr_expect_eq(preset->output->subsampling, GAL_SUBSAMPLING_420, "inherited from the parent");
    cr_assert_eq(preset->stages->len, portrait_stage_count());
    expect_value(values, "width=1080");
    expect_value(values, "height=1350");
    expect_value(values, "fit=cover");
    expect_value(values, "crop=attention");
    expect_value(values, "upscale=true");
    gal_preset_free(preset);
}

Test(preset, extends_merges_stage_keys_by_stage_name)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "extends: instagram-portrait\n"
                                 "stages:\n"
                                 "  - resize: {height: 1080}\n");
    g_autofree char *values = stage_values(preset, 0);

    cr_assert_eq(preset->stages->len, portrait_stage_count(),
        "the child's resize refines the parent's");
    expect_value(values, "width=1080");
    expect_value(values, "height=1080");
    expect_value(values, "fit=cover");
    expect_value(values, "crop=attention");
    gal_preset_free(preset);
}

Test(preset, extends_removes_a_stage_set_to_off)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "extends: instagram-portrait\n"
                                 "stages:\n"
                                 "  - resize: off\n");

    cr_expect_eq(preset->stages->len, portrait_stage_count() - 1);
    for (guint i = 0; i < preset->stages->len; i++)
        cr_expect_str_neq(g_array_index(preset->stages, gal_stage_instance, i).def->name,
            "resize");
    cr_expect_eq(preset->output->quality, 88, "the rest is still inherited");
    gal_preset_free(preset);
}

Test(preset, extends_resets_a_key_set_to_null)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "extends: instagram-portrait\n"
                                 "output:\n"
                                 "  quality: ~\n"
                                 "  subsampling: null\n"
                                 "stages:\n"
                                 "  - resize: {crop: ~}\n");
    g_autofree char *values = stage_values(preset, 0);

    cr_expect_eq(preset->output->quality, 85, "back to the table default, not the parent's 88");
    cr_expect_eq(preset->output->subsampling, GAL_SUBSAMPLING_AUTO);
    expect_value(values, "crop=centre");
    expect_value(values, "fit=cover");
    gal_preset_free(preset);
}

Test(preset, extends_does_not_inherit_name_or_description)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "extends: instagram-portrait\n");

    cr_expect_str_eq(gal_preset_name(preset), "test", "named after the file");
    cr_expect_str_eq(gal_preset_description(preset), "");
    cr_expect_str_eq(gal_preset_path(preset), TEST_YAML);
    gal_preset_free(preset);

    preset = load_ok("gallop: 1\nextends: instagram-portrait\nname: mine\ndescription: my posts\n");
    cr_expect_str_eq(gal_preset_name(preset), "mine");
    cr_expect_str_eq(gal_preset_description(preset), "my posts");
    gal_preset_free(preset);
}

Test(preset, extends_appends_new_stages_after_the_parents)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "extends: web-large\n"
                                 "stages:\n"
                                 "  - resize: {width: 1024}\n"
                                 "  - resize: {width: 512}\n");
    g_autofree char *first = stage_values(preset, 0);
    g_autofree char *second = stage_values(preset, 1);

    cr_assert_eq(preset->stages->len, 2);
    expect_value(first, "width=1024");
    expect_value(first, "height=2048");
    expect_value(second, "width=512");
    expect_value(second, "height=-");
    gal_preset_free(preset);
}

Test(preset, extends_matches_the_kth_stage_of_a_name_even_after_an_off)
{
    g_autofree char *dir = gal_test_tmpdir("extends-kth");
    g_autofree char *parent = write_file(dir, "parent.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 2000}\n"
        "  - resize: {width: 1000}\n");
    g_autofree char *child = write_file(dir, "child.yaml",
        "gallop: 1\n"
        "extends: parent.yaml\n"
        "stages:\n"
        "  - resize: off\n"
        "  - resize: {height: 500}\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;
    g_autofree char *values = NULL;

    (void) parent;
    cr_assert_eq(load_file(child, &preset, errs), 0, "%s", errs->items[0].msg);
    cr_assert_eq(preset->stages->len, 1, "the first resize is off, the second refined");
    values = stage_values(preset, 0);
    expect_value(values, "width=1000");
    expect_value(values, "height=500");
    gal_preset_free(preset);
}

Test(preset, extends_a_relative_path_from_the_childs_folder)
{
    g_autofree char *dir = gal_test_tmpdir("extends-path");
    g_autofree char *parent = write_file(dir, "base/parent.yaml",
        "gallop: 1\n"
        "name: parent\n"
        "output: {dir: exports, quality: 60}\n"
        "stages:\n"
        "  - resize: {width: 800}\n");
    g_autofree char *child = write_file(dir, "child.yaml",
        "gallop: 1\n"
        "extends: base/parent.yaml\n"
        "output: {format: png}\n");
    g_autofree char *exports = g_build_filename(dir, "base", "exports", NULL);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    (void) parent;
    cr_assert_eq(load_file(child, &preset, errs), 0, "%s", errs->items[0].msg);
    cr_expect_str_eq(gal_preset_name(preset), "child");
    cr_expect_eq(preset->output->quality, 60);
    cr_expect_eq(preset->output->format, GAL_FORMAT_PNG);
    cr_expect_str_eq(preset->output->dir, exports, "a parent's paths resolve from its folder");
    cr_expect_eq(preset->stages->len, 1);
    gal_preset_free(preset);
}

Test(preset, rejects_an_unknown_extends_name_with_did_you_mean)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "extends: instagram-portriat\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 10, "extends",
        "no preset file or shipped preset named \"instagram-portriat\" (did you mean "
        "\"instagram-portrait\"?)");
}

Test(preset, rejects_an_unknown_extends_name_listing_shipped_presets)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "extends: wedding\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 10, "extends", "shipped presets are: ");
    expect_msg(&errs->items[0], "instagram-portrait, instagram-square");
    expect_msg(&errs->items[0], "web-large");
    cr_expect(strstr(errs->items[0].msg, "instagram") < strstr(errs->items[0].msg, "web-large"),
        "sorted by name: %s", errs->items[0].msg);
}

Test(preset, rejects_a_missing_extends_file)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "extends: ./nowhere/base.yaml\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 10, "extends", "\"./nowhere/base.yaml\"");
}

Test(preset, rejects_extends_that_is_not_text)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "extends: [web-large, instagram-portrait]\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 10, "extends", "expected a preset name or path, got a list");
}

Test(preset, rejects_an_extends_loop_without_hanging)
{
    g_autofree char *dir = gal_test_tmpdir("extends-loop");
    g_autofree char *a = write_file(dir, "a.yaml", "gallop: 1\nextends: b.yaml\n");
    g_autofree char *b = write_file(dir, "b.yaml", "gallop: 1\nextends: a.yaml\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    cr_assert_eq(load_file(a, &preset, errs), -1);
    cr_assert_null(preset);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, b, 2, 10, "extends",
        "extends loops back to ");
    expect_msg(&errs->items[0], a);
}

Test(preset, rejects_a_preset_that_extends_itself)
{
    g_autofree char *dir = gal_test_tmpdir("extends-self");
    g_autofree char *a = write_file(dir, "a.yaml", "gallop: 1\nname: a\nextends: ./a.yaml\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    cr_assert_eq(load_file(a, &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, a, 3, 10, "extends",
        "extends loops back to");
}

Test(preset, names_the_parent_file_and_line_for_errors_in_the_parent)
{
    g_autofree char *dir = gal_test_tmpdir("extends-error");
    g_autofree char *parent = write_file(dir, "parent.yaml",
        "gallop: 1\n"
        "output:\n"
        "  quality: 140\n");
    g_autofree char *child = write_file(dir, "child.yaml",
        "gallop: 1\n"
        "extends: parent.yaml\n"
        "stages:\n"
        "  - resize: {width: 0}\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    cr_assert_eq(load_file(child, &preset, errs), -1);
    cr_assert_eq(errs->count, 2);
    gal_test_expect_error(find_error(errs, child), GAL_ERR_PRESET, child, 4, 21, "resize.width",
        "must be between 1 and 65535");
    gal_test_expect_error(find_error(errs, parent), GAL_ERR_PRESET, parent, 3, 12, "output.quality",
        "must be between 1 and 100, got 140");
}

Test(preset, names_the_parent_file_for_yaml_errors_in_the_parent)
{
    g_autofree char *dir = gal_test_tmpdir("extends-syntax");
    g_autofree char *parent = write_file(dir, "parent.yaml", "gallop: 1\n  bad: indent\n");
    g_autofree char *child = write_file(dir, "child.yaml", "gallop: 1\nextends: parent.yaml\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    cr_assert_eq(load_file(child, &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, parent, 2, 6, "", "YAML syntax error");
}

Test(preset, loads_a_shipped_preset_by_name)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;
    g_autofree char *values = NULL;

    cr_assert_eq(load_file("instagram-square", &preset, errs), 0, "%s", errs->items[0].msg);
    values = stage_values(preset, 0);
    expect_value(values, "width=1080");
    expect_value(values, "height=1080");
    expect_value(values, "crop=attention");
    gal_preset_free(preset);
}

Test(preset, rejects_an_unknown_preset_name_as_a_usage_error)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    cr_assert_eq(load_file("web-larg", &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].code, GAL_ERR_USAGE);
    expect_msg(&errs->items[0], "did you mean \"web-large\"?");

    memset(errs, 0, sizeof(*errs));
    cr_assert_eq(load_file("./no/such/preset.yaml", &preset, errs), -1);
    cr_expect_eq(errs->items[0].code, GAL_ERR_USAGE);
    expect_msg(&errs->items[0], "./no/such/preset.yaml: no such preset file");
}

/* ---- 8. anchors and aliases ------------------------------------------------- */

Test(preset, expands_anchors_and_aliases)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "input:\n"
                                 "  include: &globs [\"*.png\", \"*.gif\"]\n"
                                 "  exclude: *globs\n");

    cr_assert_eq(g_strv_length(preset->input->include), 2);
    cr_expect_str_eq(preset->input->include[1], "*.gif");
    cr_assert_eq(g_strv_length(preset->input->exclude), 2);
    cr_expect_str_eq(preset->input->exclude[0], "*.png");
    gal_preset_free(preset);
}

Test(preset, applies_merge_keys_with_explicit_keys_winning)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "stages:\n"
                                 "  - resize: &square {width: 800, height: 800, fit: cover}\n"
                                 "  - resize:\n"
                                 "      width: 400\n"
                                 "      <<: *square\n"
                                 "      crop: entropy\n");
    g_autofree char *first = stage_values(preset, 0);
    g_autofree char *second = stage_values(preset, 1);

    expect_value(first, "width=800");
    expect_value(first, "crop=centre");
    expect_value(second, "width=400");
    expect_value(second, "height=800");
    expect_value(second, "fit=cover");
    expect_value(second, "crop=entropy");
    gal_preset_free(preset);
}

Test(preset, rejects_an_unknown_alias)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "name: *nope\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 7, "", "unknown alias \"*nope\"");
}

Test(preset, rejects_a_merge_key_that_is_not_a_mapping)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  <<: fast\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 7, "<<", "a merge key takes a mapping or a list of mappings");
}

Test(preset, rejects_an_alias_bomb_quickly)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\n");
    g_autofree gal_errors *errs = NULL;
    gint64 start;
    double seconds;

    /* Billion laughs: nine levels of ten aliases, 10^9 nodes if expanded. */
    g_string_append(yaml, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int level = 1; level < 9; level++) {
        g_string_append_printf(yaml, "l%d: &l%d [", level, level);
        for (int i = 0; i < 10; i++)
            g_string_append_printf(yaml, "%s*l%d", i ? ", " : "", level - 1);
        g_string_append(yaml, "]\n");
    }
    start = g_get_monotonic_time();
    errs = load_fails(yaml->str);
    seconds = (g_get_monotonic_time() - start) / 1e6;
    cr_expect_lt(seconds, 2.0, "took %.2f s", seconds);
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].code, GAL_ERR_PRESET);
    cr_expect_str_eq(errs->items[0].file, TEST_YAML);
    cr_expect_gt(errs->items[0].line, 1);
    expect_msg(&errs->items[0], "expands to more than 100000 nodes");
}

/* A document with no alias is long, not a bomb: the message says so. */
Test(preset, a_long_document_without_aliases_is_not_called_an_alias_bomb)
{
    GString *yaml = g_string_new("gallop: 1\ninput: {include: [a");
    g_autofree gal_errors *errs = NULL;

    /* Root, gallop, 1, input, its map, include, the list: 7 nodes; the
     * 99994th item is the 100001st node, at 19 + 3 * 99993. */
    for (int i = 1; i < 100100; i++)
        g_string_append(yaml, ", a");
    g_string_append(yaml, "]}\n");
    cr_assert_lt(yaml->len, gal__limits.preset_bytes);
    errs = load_fails(yaml->str);
    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 299998, "input.include[99993]",
        "the document has more than 100000 nodes (values, keys, lists and mappings); a preset "
        "needs a few hundred");
    cr_expect_null(strstr(errs->items[0].msg, "alias"));
    g_string_free(yaml, TRUE);
}

Test(preset, a_bomb_is_blamed_on_its_aliases_with_their_count)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\n");
    g_autofree gal_errors *errs = NULL;

    /* Ten levels of ten: l4 would be 111111 nodes; its 8th alias passes
     * the limit, and l4 is the anchor to change. */
    g_string_append(yaml, "l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
    for (int level = 1; level < 10; level++) {
        g_string_append_printf(yaml, "l%d: &l%d [", level, level);
        for (int i = 0; i < 10; i++)
            g_string_append_printf(yaml, "%s*l%d", i ? ", " : "", level - 1);
        g_string_append(yaml, "]\n");
    }
    errs = load_fails(yaml->str);
    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 6, 5, "l4",
        "&l4 grows through its aliases until the document expands to more than 100000 nodes, "
        "101218 of them copies made by aliases (an alias bomb?); *l3 at line 6, column 45 is "
        "the copy that crosses the limit");
}

/* A 5 MiB preset is refused before it is parsed, by its size, naming it. */
Test(preset, refuses_a_preset_larger_than_the_size_limit)
{
    size_t fill = 5 * 1024 * 1024;
    g_autofree char *big = g_strnfill(fill, 'x');
    g_autofree char *yaml = g_strdup_printf("gallop: 1\ndescription: %s\n", big);
    g_autofree char *dir = gal_test_tmpdir("preset-size");
    g_autofree char *path = write_file(dir, "big.yaml", yaml);
    g_autofree char *child = write_file(dir, "child.yaml", "gallop: 1\nextends: big.yaml\n");
    g_autofree char *want = g_strdup_printf(
        "preset is 5.0 MiB (%zu bytes), larger than the 1 MiB limit", strlen(yaml));
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    gint64 start = g_get_monotonic_time();

    /* Not load_fails(): its message would quote all 5 MiB. */
    cr_assert_null(preset, "a 5 MiB preset loaded");
    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 0, 0, "", want);
    cr_expect_str_eq(errs->items[0].msg, want);

    memset(errs, 0, sizeof(*errs));
    cr_assert_eq(load_file(path, &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, path, 0, 0, "", want);
    cr_expect_lt(g_get_monotonic_time() - start, 2000000, "refused fast");

    /* A parent too: the error names the parent. */
    memset(errs, 0, sizeof(*errs));
    cr_assert_eq(load_file(child, &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, path, 0, 0, "", want);
}

Test(preset, accepts_a_preset_of_exactly_the_size_limit)
{
    const char *head = "gallop: 1\ndescription: ";
    size_t fill = gal__limits.preset_bytes - strlen(head) - 1;
    g_autofree char *big = g_strnfill(fill, 'x');
    g_autofree char *yaml = g_strdup_printf("%s%s\n", head, big);
    gal_preset *preset;

    cr_assert_eq(strlen(yaml), gal__limits.preset_bytes);
    preset = load_ok(yaml);
    cr_expect_eq(strlen(gal_preset_description(preset)), fill);
    gal_preset_free(preset);
}

Test(preset, rejects_deep_nesting)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\ninput:\n  include: ");
    g_autofree gal_errors *errs = NULL;

    for (int i = 0; i < 200; i++)
        g_string_append_c(yaml, '[');
    for (int i = 0; i < 200; i++)
        g_string_append_c(yaml, ']');
    g_string_append_c(yaml, '\n');
    errs = load_fails(yaml->str);
    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 75, "", "nested deeper than 64 levels");
}

/* ---- 9. scalars are typed by the schema ------------------------------------- */

Test(preset, keeps_text_values_as_written)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "name: 1.10\n"
                                 "description: no\n"
                                 "output:\n"
                                 "  name: \"{stem}.{ext}\"\n");

    cr_expect_str_eq(gal_preset_name(preset), "1.10");
    cr_expect_str_eq(gal_preset_description(preset), "no");
    cr_expect_str_eq(gal__template_text(preset->output->name), "{stem}.{ext}");
    gal_preset_free(preset);

    preset = load_ok("gallop: 1\nname: 007\ndescription: 2024-05-17\n");
    cr_expect_str_eq(gal_preset_name(preset), "007");
    cr_expect_str_eq(gal_preset_description(preset), "2024-05-17");
    gal_preset_free(preset);
}

Test(preset, treats_a_quoted_null_as_text)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "name: \"null\"\n"
                                 "description: '~'\n");

    cr_expect_str_eq(gal_preset_name(preset), "null");
    cr_expect_str_eq(gal_preset_description(preset), "~");
    gal_preset_free(preset);

    preset = load_ok("gallop: 1\nname: null\ndescription: ~\n");
    cr_expect_str_eq(gal_preset_name(preset), "test", "a plain null is no name");
    cr_expect_str_eq(gal_preset_description(preset), "");
    gal_preset_free(preset);
}

Test(preset, accepts_quoted_numbers_and_booleans)
{
    gal_preset *preset = load_ok("gallop: \"1\"\n"
                                 "output: {quality: \"90\", progressive: \"no\"}\n"
                                 "stages:\n"
                                 "  - resize: {width: \"1080\", upscale: 'yes'}\n");
    g_autofree char *values = stage_values(preset, 0);

    cr_expect_eq(preset->output->quality, 90);
    cr_expect_eq(preset->output->progressive, FALSE);
    expect_value(values, "width=1080");
    expect_value(values, "upscale=true");
    gal_preset_free(preset);
}

Test(preset, reports_template_errors_at_the_value)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  name: \"{stme}.{ext}\"\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 9, "output.name",
        "unknown field \"{stme}\" at column 1 of \"{stme}.{ext}\" (did you mean \"{stem}\"?)");
}

/* ---- output.photos ---------------------------------------------------------- */

Test(preset, rejects_photos_false_without_a_contact_sheet)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - resize: {width: 240}\n"
                                             "output:\n"
                                             "  quality: 80\n"
                                             "  photos: false\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 6, 11, "output.photos",
        "false needs a contact-sheet stage: without one nothing would be written");
}

Test(preset, rejects_photos_false_set_on_a_preset_without_a_contact_sheet)
{
    static const char *const set[] = { "output.photos=false" };
    g_autofree gal_errors *errs =
        load_fails_with("gallop: 1\nstages: [ {resize: {width: 240}} ]\n", set, 1);

    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, "--set output.photos=false", 0, 0,
        "output.photos", "false needs a contact-sheet stage");
}

Test(preset, photos_false_with_a_contact_sheet_loads_and_photos_default_to_true)
{
    gal_preset *sheets = load_ok("gallop: 1\n"
                                 "stages:\n"
                                 "  - resize: {width: 240}\n"
                                 "  - contact-sheet: {tile: 120}\n"
                                 "output: {photos: false}\n");
    gal_preset *plain = load_ok("gallop: 1\nstages: [ {resize: {width: 240}} ]\n");

    cr_expect_not(sheets->output->photos);
    cr_expect(plain->output->photos);
    gal_preset_free(sheets);
    gal_preset_free(plain);
}

Test(preset, a_misspelt_contact_sheet_is_reported_once_not_again_as_photos_false)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "stages:\n"
                                             "  - contact-shet: {tile: 120}\n"
                                             "output: {photos: false}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 5, "contact-shet",
        "unknown stage (did you mean \"contact-sheet\"?)");
}

/* ---- 10. --set -------------------------------------------------------------- */

static const char portrait[] = "gallop: 1\n"
                               "stages:\n"
                               "  - resize: {width: 1080, height: 1350, fit: cover}\n"
                               "output: {quality: 70}\n";

Test(preset, set_changes_a_stage_value)
{
    static const char *const set[] = { "resize.width=2048" };
    gal_preset *preset = load_ok_with(portrait, set, 1);
    g_autofree char *values = stage_values(preset, 0);

    expect_value(values, "width=2048");
    expect_value(values, "height=1350");
    gal_preset_free(preset);
}

Test(preset, set_changes_a_section_value_and_applies_in_order)
{
    static const char *const set[] = { "output.quality=50", "output.format=png",
        "output.quality=60" };
    gal_preset *preset = load_ok_with(portrait, set, 3);

    cr_expect_eq(preset->output->quality, 60);
    cr_expect_eq(preset->output->format, GAL_FORMAT_PNG);
    gal_preset_free(preset);
}

Test(preset, set_applies_after_extends)
{
    static const char *const set[] = { "resize.crop=entropy", "name=1.10" };
    gal_preset *preset = load_ok_with("gallop: 1\nextends: instagram-portrait\n", set, 2);
    g_autofree char *values = stage_values(preset, 0);

    expect_value(values, "crop=entropy");
    expect_value(values, "width=1080");
    cr_expect_str_eq(gal_preset_name(preset), "1.10");
    gal_preset_free(preset);
}

Test(preset, set_reports_range_errors_against_the_argument)
{
    static const char *const set[] = { "output.quality=140" };
    g_autofree gal_errors *errs = load_fails_with(portrait, set, 1);
    g_autofree gal_errors *from_file = load_fails("gallop: 1\noutput: {quality: 140}\n");

    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, "--set output.quality=140", 0, 0,
        "output.quality", "must be between 1 and 100, got 140");
    cr_expect_str_eq(errs->items[0].msg, from_file->items[0].msg, "the same message as a file");
}

Test(preset, set_rejects_an_unknown_name_with_did_you_mean)
{
    static const char *const set[] = { "resise.width=1", "outptu.quality=1" };
    g_autofree gal_errors *errs = load_fails_with(portrait, set, 2);

    cr_assert_eq(errs->count, 2);
    gal_test_expect_error(&errs->items[0], GAL_ERR_USAGE, "--set resise.width=1", 0, 0, "resise.width",
        "\"resise\" is neither a top-level key nor a stage (did you mean \"resize\"?)");
    gal_test_expect_error(&errs->items[1], GAL_ERR_USAGE, "--set outptu.quality=1", 0, 0,
        "outptu.quality", "(did you mean \"output\"?)");
}

Test(preset, set_rejects_a_name_that_is_neither_key_nor_stage)
{
    static const char *const set[] = { "nosuch.key=1" };
    g_autofree gal_errors *errs = load_fails_with(portrait, set, 1);

    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_USAGE, "--set nosuch.key=1", 0, 0, "nosuch.key",
        "\"nosuch\" is neither a top-level key nor a stage");
    cr_expect(strstr(errs->items[0].msg, "did you mean") == NULL, "%s", errs->items[0].msg);
}

Test(preset, set_rejects_an_unknown_key_of_a_section_with_did_you_mean)
{
    static const char *const set[] = { "output.qualty=80" };
    g_autofree gal_errors *errs = load_fails_with(portrait, set, 1);

    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, "--set output.qualty=80", 0, 0,
        "output.qualty", "unknown key (did you mean \"quality\"?)");
}

Test(preset, set_rejects_a_stage_the_preset_lacks)
{
    static const char *const set[] = { "resize.width=1" };
    g_autofree gal_errors *errs = load_fails_with("gallop: 1\n", set, 1);

    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_USAGE, "--set resize.width=1", 0, 0, "resize.width",
        "the preset has no resize stage to set");
}

Test(preset, set_without_equals_is_a_usage_error)
{
    static const char *const set[] = { "foo", "=5" };
    g_autofree gal_errors *errs = load_fails_with(portrait, set, 2);

    cr_assert_eq(errs->count, 2);
    gal_test_expect_error(&errs->items[0], GAL_ERR_USAGE, "--set foo", 0, 0, "",
        "expected KEY=VALUE, such as resize.width=2048");
    gal_test_expect_error(&errs->items[1], GAL_ERR_USAGE, "--set =5", 0, 0, "", "expected KEY=VALUE");
}

Test(preset, set_rejects_whole_stages_and_extends)
{
    static const char *const set[] = { "resize=1", "stages=[]", "extends=web-large" };
    g_autofree gal_errors *errs = load_fails_with(portrait, set, 3);

    cr_assert_eq(errs->count, 3);
    gal_test_expect_error(&errs->items[0], GAL_ERR_USAGE, "--set resize=1", 0, 0, "resize",
        "name a key of the stage, such as resize.width");
    gal_test_expect_error(&errs->items[1], GAL_ERR_USAGE, "--set stages=[]", 0, 0, "stages",
        "cannot be set from the command line");
    gal_test_expect_error(&errs->items[2], GAL_ERR_USAGE, "--set extends=web-large", 0, 0, "extends",
        "cannot be set from the command line");
}

Test(preset, set_on_a_stage_gallop_does_not_know_does_not_crash)
{
    static const char *const set[] = { "resise=1" };
    g_autofree gal_errors *errs = load_fails_with("gallop: 1\n"
                                                  "stages:\n"
                                                  "  - resise: {width: 10}\n",
        set, 1);

    cr_assert_eq(errs->count, 2);
    gal_test_expect_error(&errs->items[0], GAL_ERR_USAGE, "--set resise=1", 0, 0, "resise",
        "name a key of the stage, such as resise.KEY");
    expect_error(&errs->items[1], 3, 5, "resise", "unknown stage (did you mean \"resize\"?)");
}

Test(preset, set_takes_a_list)
{
    static const char *const globs[] = { "input.include=[*.png]" };
    static const char *const two[] = { "input.include=[*.png, *.JPG ]" };
    static const char *const yaml[] = { "input.exclude=[\"*-small.*\", \"*.tmp\"]" };
    gal_preset *preset = load_ok_with(portrait, globs, 1);

    cr_assert_eq(g_strv_length(preset->input->include), 1);
    cr_expect_str_eq(preset->input->include[0], "*.png");
    gal_preset_free(preset);

    preset = load_ok_with(portrait, two, 1);
    cr_assert_eq(g_strv_length(preset->input->include), 2);
    cr_expect_str_eq(preset->input->include[0], "*.png");
    cr_expect_str_eq(preset->input->include[1], "*.JPG");
    gal_preset_free(preset);

    preset = load_ok_with(portrait, yaml, 1);
    cr_assert_eq(g_strv_length(preset->input->exclude), 2);
    cr_expect_str_eq(preset->input->exclude[0], "*-small.*");
    gal_preset_free(preset);
}

Test(preset, set_empty_or_null_resets_to_the_default)
{
    static const char *const empty[] = { "output.quality=" };
    static const char *const tilde[] = { "output.quality=~" };
    gal_preset *preset = load_ok_with(portrait, empty, 1);

    cr_expect_eq(preset->output->quality, 85);
    gal_preset_free(preset);
    preset = load_ok_with(portrait, tilde, 1);
    cr_expect_eq(preset->output->quality, 85);
    gal_preset_free(preset);
}

Test(preset, set_takes_braces_as_text_for_templates)
{
    static const char *const set[] = { "output.name={stem}", "description={a: b}" };
    gal_preset *preset = load_ok_with(portrait, set, 2);

    cr_expect_str_eq(gal__template_text(preset->output->name), "{stem}");
    cr_expect_str_eq(gal_preset_description(preset), "{a: b}");
    gal_preset_free(preset);
}

/* ---- 11, 12. describe ------------------------------------------------------- */

Test(preset, describe_shows_one_line_per_stage_with_every_value)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "extends: instagram-portrait\n"
                                 "name: posts\n"
                                 "stages:\n"
                                 "  - resize: {upscale: false}\n");
    g_autofree char *text = gal_preset_describe(preset);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    guint resize_lines = 0, stage_lines = 0;

    for (int i = 0; lines[i]; i++) {
        if (g_ascii_isdigit(lines[i][0]) && strstr(lines[i], ". "))
            stage_lines++;
        if (g_str_has_prefix(lines[i], "1. resize")) {
            resize_lines++;
            cr_expect(strstr(lines[i], "width=1080 height=1350 long-edge=- short-edge=- "
                                       "megapixels=- percent=- fit=cover crop=attention "
                                       "upscale=false dont-enlarge=true kernel=lanczos3 "
                                       "background=#000000ff") !=
                    NULL,
                "%s", lines[i]);
        }
    }
    cr_expect_eq(resize_lines, 1, "%s", text);
    cr_expect_eq(stage_lines, portrait_stage_count(), "one line per stage:\n%s", text);
    cr_expect(g_str_has_prefix(text, "preset  posts (" TEST_YAML ")"), "%s", text);
    cr_expect(strstr(text, "\noutput  dir=") != NULL, "%s", text);
    cr_expect(strstr(text, " quality=88 ") != NULL, "%s", text);
    cr_expect(strstr(text, " subsampling=4:2:0 ") != NULL, "%s", text);
    cr_expect(strstr(text, "\ninput   paths=[] include=[") != NULL, "%s", text);
    gal_preset_free(preset);
}

Test(preset, describe_says_when_there_are_no_stages)
{
    gal_preset *preset = load_ok("gallop: 1\n");
    g_autofree char *text = gal_preset_describe(preset);

    cr_expect(strstr(text, "(no stages:") != NULL, "%s", text);
    gal_preset_free(preset);
}

static void
expect_section_described(const char *text, const gal_section *sec)
{
    g_autofree char *head = g_strdup_printf("%s: %s\n", sec->name, sec->summary);

    cr_expect(strstr(text, head) != NULL, "no \"%s\" heading", sec->name);
    for (const gal_param *p = sec->params; p->field; p++) {
        g_autofree char *key = gal__param_key(p);
        g_autofree char *row = g_strdup_printf("\n  %s ", key);

        cr_expect(strstr(text, row) != NULL, "%s.%s is not described", sec->name, key);
        cr_expect(strstr(text, p->help) != NULL, "%s.%s: no help", sec->name, key);
    }
}

Test(preset, stages_describe_lists_every_section_stage_and_key)
{
    gal_error err = { 0 };
    g_autofree char *text = gal_stages_describe(NULL, &err);

    cr_assert_not_null(text, "%s", err.msg);
    expect_section_described(text, &gal__input_section);
    expect_section_described(text, &gal__output_section);
    for (int i = 0; gal__stages[i]; i++) {
        gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
            gal__stages[i]->params, gal__stages[i]->opts_size };

        expect_section_described(text, &sec);
    }
    cr_expect(strstr(text, "1..65535") != NULL, "ranges are shown: %s", text);
    cr_expect(strstr(text, "cover|contain|inside|fill") != NULL, "choices are shown");
}

Test(preset, stages_describe_one_name)
{
    gal_error err = { 0 };
    g_autofree char *text = gal_stages_describe("resize", &err);

    cr_assert_not_null(text, "%s", err.msg);
    cr_expect(g_str_has_prefix(text, "resize: "), "%s", text);
    cr_expect(strstr(text, "output:") == NULL, "%s", text);
    g_free(text);
    text = gal_stages_describe("output", &err);
    cr_assert_not_null(text, "%s", err.msg);
    cr_expect(g_str_has_prefix(text, "output: "), "%s", text);
    cr_expect(strstr(text, "\n  quality ") != NULL, "%s", text);
}

Test(preset, stages_describe_rejects_an_unknown_name_with_did_you_mean)
{
    gal_error err = { 0 };

    cr_assert_null(gal_stages_describe("resise", &err));
    cr_expect_eq(err.code, GAL_ERR_USAGE);
    cr_expect_str_eq(err.msg, "no stage or section named \"resise\" (did you mean \"resize\"?)");

    memset(&err, 0, sizeof(err));
    cr_assert_null(gal_stages_describe("outptu", &err));
    cr_expect_str_eq(err.msg, "no stage or section named \"outptu\" (did you mean \"output\"?)");

    memset(&err, 0, sizeof(err));
    cr_assert_null(gal_stages_describe("teleport", &err));
    cr_expect_str_eq(err.msg, "no stage or section named \"teleport\"");
}

/* ---- 13. defaults ----------------------------------------------------------- */

Test(preset, every_default_in_every_table_parses)
{
    const gal_section *sections[] = { &gal__input_section, &gal__output_section };

    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++) {
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        void *opts = NULL;

        cr_expect_eq(gal__schema_fill(sections[i], NULL, &opts, NULL, errs), 0, "%s: %s",
            sections[i]->name, errs->items[0].msg);
        gal__schema_free(sections[i], opts);
    }
    for (int i = 0; gal__stages[i]; i++) {
        gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
            gal__stages[i]->params, gal__stages[i]->opts_size };
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        void *opts = NULL;

        cr_expect_eq(gal__schema_fill(&sec, NULL, &opts, NULL, errs), 0, "%s: %s", sec.name,
            errs->items[0].msg);
        gal__schema_free(&sec, opts);
    }
}

Test(preset, loads_the_version_line_alone_with_defaults)
{
    gal_preset *preset = load_ok("gallop: 1\n");

    cr_expect_eq(preset->stages->len, 0);
    cr_expect_str_eq(gal_preset_name(preset), "test");
    cr_expect_eq(preset->output->quality, 85);
    cr_expect_eq(preset->output->format, GAL_FORMAT_JPEG);
    cr_expect_str_eq(preset->output->metadata[0], "default");
    cr_expect_null(preset->output->metadata[1]);
    cr_expect_str_eq(gal__template_text(preset->output->name), "{dir}/{stem}.{ext}");
    cr_expect_eq(preset->output->widths.n, 0);
    cr_expect_eq(preset->output->formats.n, 0);
    cr_expect_eq(preset->input->recursive, TRUE);
    cr_expect_eq(preset->input->fail_on, GAL_FAIL_ON_ERROR);
    cr_expect_null(preset->input->paths);
    cr_expect(g_strv_contains((const char *const *) preset->input->include, "*.jpg"));
    gal_preset_free(preset);
}

Test(preset, loads_every_section_and_stage_given_empty)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "name:\n"
                                 "input: {}\n"
                                 "output: {}\n"
                                 "stages:\n"
                                 "  - resize: {width: 1}\n");
    g_autofree char *values = stage_values(preset, 0);

    expect_value(values, "fit=inside");
    expect_value(values, "crop=centre");
    expect_value(values, "upscale=false");
    cr_expect_eq(preset->output->quality, 85);
    gal_preset_free(preset);

    preset = load_ok("gallop: 1\ninput:\noutput: ~\nstages: []\n");
    cr_expect_eq(preset->stages->len, 0);
    gal_preset_free(preset);
}

/* ---- did you mean ----------------------------------------------------------- */

Test(preset, did_you_mean_counts_a_swap_as_one_typo)
{
    static const char *const keys[] = { "width", "height", "fit", "crop", "upscale", NULL };

    cr_expect_str_eq(gal__did_you_mean("widht", keys), "width");
    cr_expect_str_eq(gal__did_you_mean("WIDTH", keys), "width");
    cr_expect_str_eq(gal__did_you_mean("fti", keys), "fit");
    cr_expect_str_eq(gal__did_you_mean("hieght", keys), "height");
    cr_expect_str_eq(gal__did_you_mean("upscal", keys), "upscale");
    cr_expect_null(gal__did_you_mean("zoom", keys));
    cr_expect_null(gal__did_you_mean("", keys));
    cr_expect_null(gal__did_you_mean("width", NULL));
}

/* ---- error records ---------------------------------------------------------- */

Test(preset, formats_photo_errors_with_the_preset_entry)
{
    gal_error err = { 0 };
    gal_loc loc = { "presets/web.yaml", 7, 5 };
    char buf[1024];

    cr_assert_eq(gal_error_set(&err, GAL_ERR_STAGE, &loc, "resize", "image is %s", "tiny"), -1);
    gal_error_set_subject(&err, "photos/IMG_1.jpg");
    cr_expect_str_eq(gal_error_format(&err, buf, sizeof(buf)),
        "photos/IMG_1.jpg: resize (presets/web.yaml:7): image is tiny");

    memset(&err, 0, sizeof(err));
    gal_error_set(&err, GAL_ERR_OUTPUT, NULL, NULL, "disk full");
    gal_error_set_subject(&err, "photos/IMG_2.jpg");
    cr_expect_str_eq(gal_error_format(&err, buf, sizeof(buf)), "photos/IMG_2.jpg: disk full");

    memset(&err, 0, sizeof(err));
    gal_error_set(&err, GAL_ERR_USAGE, NULL, NULL, "no inputs");
    cr_expect_str_eq(gal_error_format(&err, buf, sizeof(buf)), "no inputs");
    cr_expect_str_eq(gal_error_format(&err, buf, 4), "no ", "truncated to the buffer");
}

Test(preset, keeps_the_first_error_and_subject)
{
    gal_error err = { 0 };
    gal_loc loc = { "a.yaml", 2, 3 };

    gal_error_set(&err, GAL_ERR_PRESET, &loc, "output.quality", "first");
    cr_assert_eq(gal_error_set(&err, GAL_ERR_INTERNAL, NULL, "x", "second"), -1);
    gal_error_set_subject(&err, "one.jpg");
    gal_error_set_subject(&err, "two.jpg");
    cr_expect_eq(err.code, GAL_ERR_PRESET);
    cr_expect_str_eq(err.msg, "first");
    cr_expect_str_eq(err.key, "output.quality");
    cr_expect_eq(err.line, 2);
    cr_expect_str_eq(err.subject, "one.jpg");
    cr_expect_eq(gal_error_set(NULL, GAL_ERR_PRESET, NULL, NULL, "ignored"), -1);
}

/* A value is quoted by its first characters, never cut inside one: a
 * caption pasted where a number belongs does not fill the message. */
Test(preset, quotes_a_long_value_by_its_first_whole_characters)
{
    GString *yaml = g_string_new("gallop: 1\noutput:\n  quality: \"");
    g_autofree gal_errors *errs = NULL;
    GString *want = g_string_new("expected a whole number or auto, got \"");

    for (int i = 0; i < 300; i++)
        g_string_append(yaml, "\xe6\x97\xa5");
    g_string_append(yaml, "\"\n");
    for (int i = 0; i < GAL_EXCERPT_CHARS; i++)
        g_string_append(want, "\xe6\x97\xa5");
    g_string_append(want, "\xe2\x80\xa6\"");
    errs = load_fails(yaml->str);
    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 12, "output.quality", want->str);
    cr_expect_str_eq(errs->items[0].msg, want->str);
    g_string_free(yaml, TRUE);
    g_string_free(want, TRUE);
}

Test(preset, a_preset_named_by_a_relative_path_resolves_its_paths_beside_itself)
{
    g_autofree char *dir = gal_test_tmpdir("preset-relative");
    g_autofree char *sub = g_build_filename(dir, "sub", NULL);
    g_autofree char *base = g_build_filename(sub, "base.yaml", NULL);
    g_autofree char *child = g_build_filename(dir, "child.yaml", NULL);
    g_autofree char *want = g_build_filename(sub, "outx", NULL);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
    cr_assert(g_file_set_contents(base, "gallop: 1\noutput: {dir: outx}\n", -1, NULL));
    cr_assert(g_file_set_contents(child, "gallop: 1\nextends: sub/base.yaml\n", -1, NULL));
    cr_assert_eq(chdir(dir), 0);
    cr_assert_eq(load_file("child.yaml", &preset, errs), 0, "%s", errs->items[0].msg);
    cr_expect_str_eq(preset->output->dir, want);
    gal_preset_free(preset);
    cr_assert_eq(chdir(sub), 0);
    cr_assert_eq(load_file("base.yaml", &preset, errs), 0, "%s", errs->items[0].msg);
    cr_expect_str_eq(preset->output->dir, want);
    gal_preset_free(preset);
}

/* "{stem}\0../x" must not quietly become "{stem}". */
Test(preset, refuses_a_nul_inside_a_value)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\noutput: {name: \"{stem}\\0../x\"}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 16, "output.name", "a NUL character (\\0) in a value");
}

/* A preset is read as a regular file: a FIFO in its place does not block. */
Test(preset, a_preset_that_is_no_file_is_named_as_such)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *dir = gal_test_tmpdir("preset-fifo");
    g_autofree char *fifo = g_build_filename(dir, "p.yaml", NULL);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    gal_preset *preset = NULL;

    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(gal_preset_load(fifo, &opts, &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].code, GAL_ERR_USAGE);
    cr_expect(strstr(errs->items[0].msg, "p.yaml is a FIFO (named pipe), not a file") != NULL,
        "%s", errs->items[0].msg);
}

/* A parent named beside its child is read within the child's folder. */
Test(preset, extends_does_not_follow_a_link_out_of_the_presets_folder)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *dir = gal_test_tmpdir("preset-extends-link");
    g_autofree char *team = g_build_filename(dir, "team", NULL);
    g_autofree char *secret = g_build_filename(dir, "secret.yaml", NULL);
    g_autofree char *link = g_build_filename(team, "base.yaml", NULL);
    g_autofree char *child = g_build_filename(team, "child.yaml", NULL);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    gal_preset *preset = NULL;

    cr_assert_eq(g_mkdir_with_parents(team, 0700), 0);
    cr_assert(g_file_set_contents(secret, "gallop: 1\n", -1, NULL));
    cr_assert_eq(symlink("../secret.yaml", link), 0);
    cr_assert(g_file_set_contents(child, "gallop: 1\nextends: base.yaml\n", -1, NULL));
    cr_assert_eq(gal_preset_load(child, &opts, &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, child, 2, 10, "extends",
        "is reached through a symbolic link that leads out of");
    opts.follow_symlinks = true;
    errs->count = 0;
    cr_expect_eq(gal_preset_load(child, &opts, &preset, errs), 0, "%s",
        errs->count ? errs->items[0].msg : "");
    gal_preset_free(preset);
}

/* ---- output.widths and output.formats ------------------------------------------- */

Test(preset, widths_are_sorted_largest_first_and_name_the_files_by_default)
{
    gal_preset *preset = load_ok("gallop: 1\n"
                                 "output: {widths: [400, 1600, 800], formats: [webp, jpeg]}\n");
    int n = 0;
    g_autofree gal_variant *v = gal__output_variants(preset->output, &n);

    cr_assert_eq(preset->output->widths.n, 3);
    cr_expect_eq(preset->output->widths.items[0], 1600);
    cr_expect_eq(preset->output->widths.items[2], 400);
    cr_expect_str_eq(gal__template_text(preset->output->name), "{dir}/{stem}-{width}.{ext}");
    cr_assert_eq(n, 6);
    cr_expect_eq(v[0].width, 1600);
    cr_expect_eq(v[0].format, GAL_FORMAT_WEBP);
    cr_expect_eq(v[1].width, 1600);
    cr_expect_eq(v[1].format, GAL_FORMAT_JPEG);
    cr_expect_eq(v[5].width, 400);
    cr_expect_eq(v[5].format, GAL_FORMAT_JPEG);
    gal_preset_free(preset);
}

Test(preset, without_widths_a_photo_makes_one_file_in_the_format)
{
    gal_preset *preset = load_ok("gallop: 1\noutput: {format: png}\n");
    int n = 0;
    g_autofree gal_variant *v = gal__output_variants(preset->output, &n);

    cr_assert_eq(n, 1);
    cr_expect_eq(v[0].width, 0);
    cr_expect_eq(v[0].format, GAL_FORMAT_PNG);
    gal_preset_free(preset);
}

Test(preset, several_widths_need_width_in_the_name)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  name: \"{stem}.{ext}\"\n"
                                             "  widths: [800, 400]\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 3, 9, "output.name", "has no {width}, so the 2 widths");
}

Test(preset, width_in_the_name_needs_widths)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {name: \"{stem}-{width}.{ext}\"}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 16, "output.name", "output.widths is not given");
}

Test(preset, several_formats_need_ext_in_the_name)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {name: \"{stem}.jpg\", formats: [webp, jpeg]}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 16, "output.name", "has no {ext}, so the 2 formats");
}

Test(preset, widths_and_formats_are_checked_item_by_item)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  widths: [800, 0, 800]\n"
                                             "  formats: [webp, gif]\n");

    cr_assert_eq(errs->count, 2);
    expect_error(&errs->items[0], 3, 17, "output.widths", "must be between 1 and 20000, got 0");
    expect_error(&errs->items[1], 4, 19, "output.formats", "gif");
}

Test(preset, a_width_given_twice_is_refused)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {widths: [800, 800]}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 24, "output.widths", "\"800\" is in the list twice");
}

Test(preset, a_profile_that_must_be_embedded_refuses_metadata_strip)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {metadata: strip, profile: display-p3}\n");
    g_autofree gal_errors *keep = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  metadata: STRIP\n"
                                             "  profile: keep\n");
    gal_preset *srgb = load_ok("gallop: 1\noutput: {metadata: strip, profile: srgb}\n");
    gal_preset *p3 = load_ok("gallop: 1\noutput: {metadata: default, profile: display-p3}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 36, "output.profile",
        "Display P3 pixels need their profile, which metadata: strip leaves out");
    cr_assert_eq(keep->count, 1);
    expect_error(&keep->items[0], 4, 12, "output.profile", "the photo's own pixels need");
    cr_expect_eq(p3->output->profile, GAL_PROFILE_DISPLAY_P3);
    {
        /* In the recipe (so a change rebuilds), and out of it at the default. */
        g_autoptr(GPtrArray) p3_keys = gal__preset_keys(p3, GAL_TEST_TMP);
        g_autoptr(GPtrArray) srgb_keys = gal__preset_keys(srgb, GAL_TEST_TMP);
        gboolean in_p3 = FALSE, in_srgb = FALSE;

        for (guint i = 0; i < p3_keys->len; i++)
            in_p3 |= strcmp(p3_keys->pdata[i], "output.profile=display-p3") == 0;
        for (guint i = 0; i < srgb_keys->len; i++)
            in_srgb |= g_str_has_prefix(srgb_keys->pdata[i], "output.profile=");
        cr_expect(in_p3, "output.profile=display-p3 is in the recipe");
        cr_expect(!in_srgb, "srgb, the default, is not");
    }
    gal_preset_free(srgb);
    gal_preset_free(p3);
}

Test(preset, metadata_levels_stand_alone_and_remove_keys_are_in_the_recipe)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {metadata: [copyright-only, gps]}\n");
    gal_preset *level = load_ok("gallop: 1\n"
                                "output: {metadata: All-Except-Camera-Raw, remove-person: true}\n");
    g_autoptr(GPtrArray) keys = gal__preset_keys(level, GAL_TEST_TMP);
    gboolean person = FALSE, location = FALSE;

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 20, "output.metadata",
        "\"copyright-only\" stands alone: it cannot be combined with other names");
    for (guint i = 0; i < keys->len; i++) {
        person |= strcmp(keys->pdata[i], "output.remove-person=true") == 0;
        location |= g_str_has_prefix(keys->pdata[i], "output.remove-location=");
    }
    cr_expect(person, "remove-person, given, is in the recipe");
    cr_expect(!location, "remove-location, at its default, is not");
    gal_preset_free(level);
}

Test(preset, sharpen_takes_a_medium_and_an_amount_or_a_word_for_screen)
{
    gal_preset *word = load_ok("gallop: 1\noutput: {sharpen: high}\n");
    gal_preset *matte = load_ok("gallop: 1\noutput: {sharpen: {for: matte, amount: low}, "
                                "ppi: 240}\n");
    gal_preset *glossy = load_ok("gallop: 1\noutput:\n  sharpen:\n    for: Glossy\n");
    g_autofree gal_errors *bad_key = load_fails("gallop: 1\n"
                                                "output: {sharpen: {for: matte, radius: 2}}\n");
    g_autofree gal_errors *bad_medium = load_fails("gallop: 1\n"
                                                   "output: {sharpen: {for: canvas}}\n");
    g_autofree gal_errors *bad_ppi = load_fails("gallop: 1\noutput: {ppi: 20}\n");
    g_autoptr(GPtrArray) word_keys = gal__preset_keys(word, GAL_TEST_TMP);
    g_autoptr(GPtrArray) matte_keys = gal__preset_keys(matte, GAL_TEST_TMP);
    gboolean word_line = FALSE, matte_line = FALSE, ppi_line = FALSE;

    cr_expect_eq(word->output->sharpen.amount, GAL_SHARPEN_HIGH);
    cr_expect_eq(word->output->sharpen.medium, GAL_MEDIUM_SCREEN);
    cr_expect_eq(matte->output->sharpen.amount, GAL_SHARPEN_LOW);
    cr_expect_eq(matte->output->sharpen.medium, GAL_MEDIUM_MATTE);
    cr_expect_eq(matte->output->ppi, 240);
    /* The amount left out is the default's. */
    cr_expect_eq(glossy->output->sharpen.amount, GAL_SHARPEN_STANDARD);
    cr_expect_eq(glossy->output->sharpen.medium, GAL_MEDIUM_GLOSSY);
    cr_expect_eq(glossy->output->ppi, 300);
    cr_assert_eq(bad_key->count, 1);
    expect_error(&bad_key->items[0], 2, 32, "output.sharpen",
        "unknown key \"radius\" in sharpening; it takes for and amount");
    cr_assert_eq(bad_medium->count, 1);
    expect_error(&bad_medium->items[0], 2, 25, "output.sharpen",
        "expected one of screen, matte, glossy, got \"canvas\"");
    cr_assert_eq(bad_ppi->count, 1);
    expect_error(&bad_ppi->items[0], 2, 15, "output.ppi", "must be between 72 and 2400");
    /* A word for screen keeps the recipe line it always had. */
    for (guint i = 0; i < word_keys->len; i++) {
        word_line |= strcmp(word_keys->pdata[i], "output.sharpen=high") == 0;
        ppi_line |= g_str_has_prefix(word_keys->pdata[i], "output.ppi=");
    }
    for (guint i = 0; i < matte_keys->len; i++)
        matte_line |= strcmp(matte_keys->pdata[i], "output.sharpen={for: matte, amount: low}") == 0;
    cr_expect(word_line && matte_line && !ppi_line, "recipe lines");
    gal_preset_free(word);
    gal_preset_free(matte);
    gal_preset_free(glossy);
}

Test(preset, profile_keep_refuses_a_contact_sheet_of_mixed_spaces)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {profile: keep}\n"
                                             "stages:\n"
                                             "  - contact-sheet: {columns: 3}\n");
    gal_preset *p3 = load_ok("gallop: 1\n"
                             "output: {profile: display-p3}\n"
                             "stages:\n"
                             "  - contact-sheet: {columns: 3}\n");

    cr_assert_eq(errs->count, 1);
    expect_error(&errs->items[0], 2, 19, "output.profile",
        "keep leaves each photo in its own colour space, which a contact sheet cannot mix");
    gal_preset_free(p3);
}
