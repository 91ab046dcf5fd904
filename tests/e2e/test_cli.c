/* The gallop command: help, version, and exit statuses for usage errors. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

Test(cli, version_names_gallop_and_libvips)
{
    const char *argv[] = { GAL_BINARY, "--version", NULL };
    g_autofree char *out = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, NULL), 0);
    cr_expect(g_str_has_prefix(out, "gallop " GAL_VERSION " (libvips 8."), "%s", out);
}

Test(cli, version_says_whether_vector_paths_are_on)
{
    const char *argv[] = { GAL_BINARY, "--version", NULL };
    g_autofree char *out = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, NULL), 0);
    cr_expect(g_regex_match_simple("^orc [^ ]+: vector paths (on|off) \\(.+\\)$", out,
                  G_REGEX_MULTILINE, 0),
        "%s", out);
}

Test(cli, unknown_command_is_a_usage_error)
{
    const char *argv[] = { GAL_BINARY, "frobnicate", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 2);
    cr_expect(strstr(err, "unknown command \"frobnicate\"") != NULL, "%s", err);
}

Test(cli, run_help_lists_the_contract_options)
{
    const char *argv[] = { GAL_BINARY, "run", "--help", NULL };
    g_autofree char *out = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, NULL), 0);
    for (const char *opt = "-o\0-j\0--set\0--dry-run\0--force\0"; *opt; opt += strlen(opt) + 1)
        cr_expect(strstr(out, opt) != NULL, "run --help lacks %s", opt);
}
