/* The run's memory budget (--memory, admit.h): a budget smaller than any
 * photo still makes every photo (each runs alone), at any -j; a size that
 * is not one is refused before anything runs. The real binary runs over
 * copies of fixtures in a per-process folder. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(memory, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

Test(memory, a_budget_below_every_photo_still_makes_every_photo)
{
    g_autofree char *tmp = gal_test_tmpdir("memory-small");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 200, height: 200, fit: inside}} ]\n");
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-j", "4", "--memory",
        "1M", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) names = NULL;

    g_autofree char *png = g_build_filename(in, "trip-09.png", NULL);

    for (int k = 1; k <= 8; k++)
        gal_test_copy_trip(in, k, NULL);
    /* A PNG among the JPEGs: another decoder, another estimate. */
    gal_test_copy_file(GAL_FIXTURES_DIR "/trip/trip-09.png", png);
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "%s\n%s", out, err);
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 9, "%s", out);
    names = gal_test_list_dir(out_dir);
    cr_expect_eq(names->len, 9, "%u files", names->len);
}

Test(memory, a_size_that_is_not_one_is_refused)
{
    static const char *const bad[] = { "0", "lots", "12T", "-5M", "10k" };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        const char *argv[] = { GAL_BINARY, "run", "web-large", ".", "--memory", bad[i], NULL };
        g_autofree char *err = NULL;

        cr_expect_eq(gal_test_spawn(argv, NULL, &err), 2, "--memory %s", bad[i]);
        cr_expect(strstr(err, "--memory takes a size") != NULL, "%s", err);
    }
}
