/* The YAML a preset is read from (yamldoc.c), at its edges: the budget of
 * the expanded document in bytes (an alias of a long string), a "billion
 * laughs" blamed on the anchor that grows, a second document refused, and
 * syntax errors that name the key they are in. Every error is asserted
 * whole: code, file:line:col, key and message. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "limit.h"
#include "yamldoc.h"

TestSuite(preset_yaml_limits, .init = gal_test_setup, .fini = gal_test_teardown);

#define TEST_YAML GAL_TEST_TMP "/test.yaml"

/* ---- helpers ---------------------------------------------------------------- */

/* Exactly one error, in full, and the compiler-style line made of it. */
static void
expect_only(const gal_errors *errs, const char *file, int line, int col, const char *key,
    const char *msg)
{
    char formatted[2048];
    g_autofree char *want = NULL;

    cr_assert_eq(errs->count, 1, "%d errors, the first: %s", errs->count,
        errs->count ? errs->items[0].msg : "");
    cr_expect_eq(errs->items[0].code, GAL_ERR_PRESET);
    cr_expect_str_eq(errs->items[0].file, file);
    cr_expect_eq(errs->items[0].line, line, "line %d, want %d (%s)", errs->items[0].line, line,
        errs->items[0].msg);
    cr_expect_eq(errs->items[0].col, col, "col %d, want %d (%s)", errs->items[0].col, col,
        errs->items[0].msg);
    cr_expect_str_eq(errs->items[0].key, key);
    cr_expect_str_eq(errs->items[0].msg, msg);
    gal_error_format(&errs->items[0], formatted, sizeof(formatted));
    want = g_strdup_printf("%s:%d:%d: %s%s%s", file, line, col, key, *key ? ": " : "", msg);
    cr_expect_str_eq(formatted, want);
}

/* Load YAML text that must fail, as TEST_YAML. */
static gal_errors *
fails(const char *yaml)
{
    gal_errors *errs = g_new0(gal_errors, 1);

    cr_assert_null(gal_test_load(yaml, errs), "loaded, but should not have:\n%s", yaml);
    return errs;
}

static void
loads(const char *yaml)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);

    cr_expect_not_null(preset, "did not load (%s):\n%s", errs->count ? errs->items[0].msg : "",
        yaml);
    gal_preset_free(preset);
}

/* Write `len` bytes (NULs and all) to a file and load it, which must fail;
 * its path is returned in *path. */
static gal_errors *
file_fails(const char *bytes, size_t len, char **path)
{
    g_autofree char *dir = gal_test_tmpdir("yaml-limits");
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    *path = g_build_filename(dir, "preset.yaml", NULL);
    cr_assert(g_file_set_contents(*path, bytes, (gssize) len, NULL));
    cr_assert_eq(gal_preset_load(*path, &opts, &preset, errs), -1);
    cr_assert_null(preset);
    return errs;
}

/* ---- the expanded document's bytes ------------------------------------------ */

/* The preset: a 900 KB string under an anchor, aliased 5,000 times
 * (4.5 GB expanded). It is refused at the alias whose copy would take the
 * text past the budget, the 4th (900,022 bytes written, +900,000 a copy,
 * over 4 MiB at the 4th): none of the copies after it is made, which is
 * why this takes milliseconds and a few MB. */
Test(preset_yaml_limits, an_alias_of_a_long_string_is_refused_at_the_alias_that_crosses_the_budget)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\nname: &s \"");
    g_autofree char *path = NULL;
    g_autofree gal_errors *errs = NULL;
    size_t at = yaml->len;

    cr_assert_eq(gal__limits.preset_expanded_bytes, 4 << 20);
    g_string_set_size(yaml, at + 900000);
    memset(yaml->str + at, 'x', 900000);
    g_string_append(yaml, "\"\ndescription: [*s");
    for (int i = 1; i < 5000; i++)
        g_string_append(yaml, ", *s");
    g_string_append(yaml, "]\n");
    cr_assert_lt(yaml->len, gal__limits.preset_bytes, "the file itself is within its limit");

    errs = file_fails(yaml->str, yaml->len, &path);
    /* "description: [" is 14 characters: the aliases start at columns
     * 15, 19, 23 and 27. */
    expect_only(errs, path, 3, 27, "description[3]",
        "*s copies 878.9 KiB (anchored at line 2): with it the document expands to more than "
        "4 MiB of text, 3.4 MiB of it copies made by aliases (an alias bomb?)");
    cr_expect_null(strstr(errs->items[0].msg, "xxxx"), "the string is not quoted");
}

/* The budget is the expanded text, keys included: a document of exactly
 * 4 MiB is read, one byte more is not. */
Test(preset_yaml_limits, the_budget_counts_every_byte_of_keys_and_values)
{
    const gint64 budget = gal__limits.preset_expanded_bytes;
    const size_t n = 800000;

    for (int over = 0; over <= 1; over++) {
        /* "pad" + P, "s" + n, "l", then four copies of n: 5n + P + 5. */
        size_t pad = (size_t) (budget - 5 * (gint64) n - 5) + (size_t) over;
        g_autoptr(GString) yaml = g_string_new("pad: ");
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_node *root;
        size_t at;

        at = yaml->len;
        g_string_set_size(yaml, at + pad);
        memset(yaml->str + at, 'p', pad);
        g_string_append(yaml, "\ns: &s ");
        at = yaml->len;
        g_string_set_size(yaml, at + n);
        memset(yaml->str + at, 'x', n);
        g_string_append(yaml, "\nl: [*s, *s, *s, *s]\n");

        root = gal__yaml_document(yaml->str, yaml->len, "budget.yaml", errs);
        if (!over) {
            cr_expect_not_null(root, "%s", errs->count ? errs->items[0].msg : "");
            cr_expect_eq(errs->count, 0);
            gal__node_free(root);
            continue;
        }
        cr_expect_null(root);
        expect_only(errs, "budget.yaml", 3, 17, "l[3]",
            "*s copies 781.2 KiB (anchored at line 2): with it the document expands to more "
            "than 4 MiB of text, 3.1 MiB of it copies made by aliases (an alias bomb?)");
    }
}

/* ---- a billion laughs, at the anchor that grows ------------------------------ */

/* Ten levels of ten aliases: &l4 would be 111,111 nodes, so the node
 * budget runs out inside it. The one to change is &l4 (or the aliases it
 * holds), not its 8th alias. */
Test(preset_yaml_limits, a_billion_laughs_is_reported_at_the_anchor_that_grows)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\ncaptions:\n");
    g_autofree gal_errors *errs = NULL;

    g_string_append(yaml, "  l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
    for (int level = 1; level < 10; level++) {
        g_string_append_printf(yaml, "  l%d: &l%d [", level, level);
        for (int i = 0; i < 10; i++)
            g_string_append_printf(yaml, "%s*l%d", i ? ", " : "", level - 1);
        g_string_append(yaml, "]\n");
    }
    errs = fails(yaml->str);
    expect_only(errs, TEST_YAML, 7, 7, "captions.l4",
        "&l4 grows through its aliases until the document expands to more than 100000 nodes, "
        "101218 of them copies made by aliases (an alias bomb?); *l3 at line 7, column 47 is "
        "the copy that crosses the limit");
}

/* The same with long strings: few nodes (about 67,000), but each level
 * forty times the bytes of the one before; &l3 passes 4 MiB at its second
 * alias. */
Test(preset_yaml_limits, a_billion_laughs_of_long_strings_is_reported_at_the_anchor_that_grows)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\nl0: &l0 \"");
    g_autofree gal_errors *errs = NULL;

    for (int i = 0; i < 1000; i++)
        g_string_append_c(yaml, 'x');
    g_string_append(yaml, "\"\n");
    for (int level = 1; level <= 3; level++) {
        g_string_append_printf(yaml, "l%d: &l%d [", level, level);
        for (int i = 0; i < 40; i++)
            g_string_append_printf(yaml, "%s*l%d", i ? "," : "", level - 1);
        g_string_append(yaml, "]\n");
    }
    errs = fails(yaml->str);
    /* "l3: &l3 [" then "*l2," a copy: the second starts at column 14. */
    expect_only(errs, TEST_YAML, 5, 5, "l3",
        "&l3 grows through its aliases until the document expands to more than 4 MiB of text, "
        "4.6 MiB of it copies made by aliases (an alias bomb?); *l2 at line 5, column 14 is the "
        "copy that crosses the limit");
    cr_expect_null(strstr(errs->items[0].msg, "xxxx"));
}

/* ---- one document ----------------------------------------------------------------- */

Test(preset_yaml_limits, a_second_document_is_refused_where_it_starts)
{
    g_autofree gal_errors *errs = fails("gallop: 1\n"
                                        "name: first\n"
                                        "---\n"
                                        "gallop: 1\n"
                                        "name: second\n");

    expect_only(errs, TEST_YAML, 3, 1, "",
        "a preset is one YAML document; a second one starts here (gallop would read only the "
        "first)");
}

Test(preset_yaml_limits, a_second_document_after_an_end_marker_or_empty_is_refused_too)
{
    g_autofree gal_errors *after_end = fails("gallop: 1\n"
                                             "...\n"
                                             "---\n"
                                             "name: second\n");
    g_autofree gal_errors *empty = fails("---\n"
                                         "gallop: 1\n"
                                         "---\n");

    expect_only(after_end, TEST_YAML, 3, 1, "",
        "a preset is one YAML document; a second one starts here (gallop would read only the "
        "first)");
    expect_only(empty, TEST_YAML, 3, 1, "",
        "a preset is one YAML document; a second one starts here (gallop would read only the "
        "first)");
}

Test(preset_yaml_limits, one_document_with_its_markers_loads)
{
    loads("---\ngallop: 1\n");
    loads("gallop: 1\n...\n");
    loads("%YAML 1.1\n---\ngallop: 1\n...\n");
    loads("# a comment\n---\ngallop: 1\n...\n# another\n");
}

/* ---- errors at the key to change ------------------------------------------------- */

/* A mapping written below `stages:` starts at its first key, a line
 * further: the mistake is at `stages:`. */
Test(preset_yaml_limits, stages_given_as_a_mapping_is_reported_at_its_key)
{
    g_autofree gal_errors *block = fails("gallop: 1\n"
                                         "stages:\n"
                                         "  resize: {width: 10}\n");
    g_autofree gal_errors *flow = fails("gallop: 1\n"
                                        "stages: {resize: {width: 10}}\n");

    expect_only(block, TEST_YAML, 2, 1, "stages",
        "expected a list of stages (\"- resize: {...}\"), got a mapping");
    expect_only(flow, TEST_YAML, 2, 9, "stages",
        "expected a list of stages (\"- resize: {...}\"), got a mapping");
}

/* A NUL byte in the file: libyaml meets it a buffer ahead of the parser,
 * before `name` is read; the key is still named. */
Test(preset_yaml_limits, a_nul_byte_names_the_key_it_is_in)
{
    static const char yaml[] = "gallop: 1\n"
                               "output:\n"
                               "  format: jpeg\n"
                               "  name: \"a\0b.jpg\"\n";
    g_autofree char *path = NULL;
    g_autofree gal_errors *errs = file_fails(yaml, sizeof(yaml) - 1, &path);

    expect_only(errs, path, 4, 11, "output.name",
        "YAML syntax error: control characters are not allowed");
}

Test(preset_yaml_limits, invalid_utf8_names_the_key_it_is_in)
{
    g_autofree gal_errors *errs = fails("gallop: 1\n"
                                        "stages:\n"
                                        "  - resize: {width: 10}\n"
                                        "  - caption-burn:\n"
                                        "      text: \"caf\xff\"\n"
                                        "      size: 3%\n");

    expect_only(errs, TEST_YAML, 5, 17, "stages[1].caption-burn.text",
        "YAML syntax error: invalid leading UTF-8 octet");
}

/* A fault at the start of a line is in the mapping around it, not in the
 * value of the key above (which libyaml was still reading, to see whether
 * it goes on). */
Test(preset_yaml_limits, a_fault_at_the_start_of_a_line_names_the_mapping_it_is_in)
{
    g_autofree gal_errors *control = fails("gallop: 1\n"
                                           "output:\n"
                                           "  format: jpeg\n"
                                           "  \x01name: x\n");
    g_autofree gal_errors *tab = fails("gallop: 1\n"
                                       "output:\n"
                                       "  format: jpeg\n"
                                       "\tname: x\n");

    expect_only(control, TEST_YAML, 4, 3, "output",
        "YAML syntax error: control characters are not allowed");
    expect_only(tab, TEST_YAML, 4, 1, "output",
        "YAML syntax error: found a tab character that violates indentation while scanning a "
        "plain scalar");
}

Test(preset_yaml_limits, an_unclosed_quote_names_the_key_it_opens)
{
    g_autofree gal_errors *errs = fails("gallop: 1\n"
                                        "stages:\n"
                                        "  - resize: {width: 10}\n"
                                        "  - caption-burn:\n"
                                        "      text: \"{caption}\n"
                                        "      size: 3%\n");

    expect_only(errs, TEST_YAML, 5, 13, "stages[1].caption-burn.text",
        "YAML syntax error: this quoted string is never closed (found end of file at line 6)");
}

/* libyaml checks the bytes of its buffer before it parses them: bad UTF-8
 * on line 5 used to be reported before the tab on line 4. The first fault
 * in the file is the one reported. */
Test(preset_yaml_limits, the_first_fault_in_the_file_is_the_one_reported)
{
    g_autofree gal_errors *errs = fails("gallop: 1\n"
                                        "output:\n"
                                        "  format: jpeg\n"
                                        "\tquality: 80\n"
                                        "  name: \"a\xff.jpg\"\n");

    expect_only(errs, TEST_YAML, 4, 1, "output",
        "YAML syntax error: found a tab character that violates indentation while scanning a "
        "plain scalar");
}

/* Far into a long preset, past libyaml's first buffer (16 KiB). */
Test(preset_yaml_limits, a_nul_byte_deep_in_a_long_preset_names_its_key)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\nstages:\n");
    g_autofree char *path = NULL;
    g_autofree gal_errors *errs = NULL;

    for (int i = 0; i < 600; i++)
        g_string_append(yaml, "  - resize: {width: 1080, height: 1080}\n");
    g_string_append(yaml, "  - watermark:\n      text: \"Jen");
    g_string_append_c(yaml, '\0');
    g_string_append(yaml, "Loong\"\n");
    cr_assert_gt(yaml->len, 20000);
    errs = file_fails(yaml->str, yaml->len, &path);
    expect_only(errs, path, 604, 17, "stages[600].watermark.text",
        "YAML syntax error: control characters are not allowed");
}

/* Keys are told apart by a table, not by searching the list for each one
 * (a 49,000-key mapping took 10 s): a duplicate among many is still found,
 * and a merge still adds only what is missing. */
Test(preset_yaml_limits, a_duplicate_among_many_keys_is_found)
{
    g_autoptr(GString) yaml = g_string_new("gallop: 1\ncaptions:\n");
    g_autofree gal_errors *errs = NULL;

    for (int i = 0; i < 40000; i++)
        g_string_append_printf(yaml, "  k%d: 1\n", i);
    g_string_append(yaml, "  k17: 2\n");
    errs = fails(yaml->str);
    expect_only(errs, TEST_YAML, 40003, 3, "k17", "duplicate key (first set at line 20)");
}

Test(preset_yaml_limits, a_merge_adds_only_the_keys_not_set)
{
    static const char yaml[] = "a: &a {x: 1, y: 2}\n"
                               "b: {y: 3, <<: [*a, {x: 4, z: 5}]}\n";
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_node *root = gal__yaml_document(yaml, sizeof(yaml) - 1, "m.yaml", errs);
    gal_node *b;

    cr_assert_not_null(root);
    b = gal__node_get(root, "b");
    cr_assert_not_null(b);
    cr_expect_eq(b->keys->len, 3);
    cr_expect_str_eq(gal__node_get(b, "y")->text, "3");
    cr_expect_str_eq(gal__node_get(b, "x")->text, "1");
    cr_expect_str_eq(gal__node_get(b, "z")->text, "5");
    gal__node_free(root);
}
