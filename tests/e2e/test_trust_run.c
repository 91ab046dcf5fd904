/* Trust at the edges (issue 38), end to end: `gallop check` and `gallop
 * run` refuse a font family fontconfig lacks with the same line, before
 * any photo is opened. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(trust_run, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

Test(trust_run, check_and_run_refuse_a_font_family_that_is_not_installed_alike)
{
    g_autofree char *dir = gal_test_tmpdir("trust-font");
    g_autofree char *out_dir = g_build_filename(dir, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(dir, "trip.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: { width: 200 }\n"
        "  - caption-burn:\n"
        "      font: DejaVu Snas Bold\n");
    g_autofree char *want = g_strdup_printf("%s:5:13: caption-burn.font: no installed font family "
                                            "\"DejaVu Snas\" (did you mean \"DejaVu Sans\"?)\n",
        preset);
    const char *check_argv[] = { GAL_BINARY, "check", preset, NULL };
    const char *run_argv[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-01.jpg", "-o", out_dir,
        NULL };
    g_autofree char *check_out = NULL;
    g_autofree char *check_err = NULL;
    g_autofree char *run_out = NULL;
    g_autofree char *run_err = NULL;

    cr_expect_eq(gal_test_spawn(check_argv, &check_out, &check_err), 2, "%s", check_err);
    cr_expect_eq(gal_test_spawn(run_argv, &run_out, &run_err), 2, "%s", run_err);
    cr_expect_str_eq(check_err, want);
    cr_expect_str_eq(run_err, want);
    cr_expect_not(g_file_test(out_dir, G_FILE_TEST_EXISTS), "the run made %s", out_dir);
}
