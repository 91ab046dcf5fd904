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

/* ---- errors at the key to change ------------------------------------------------- */

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
