/* The command line's presets folders (issue 13): GALLOP_PRESETS_DIR adds a
 * team's folders in front of the shipped presets instead of replacing
 * them, and HOME is what "~" means in a preset. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

TestSuite(presets_env);

Test(presets_env, a_team_folder_adds_to_the_shipped_presets)
{
    g_autofree char *team = gal_test_tmpdir("env-team");
    g_autofree char *other = gal_test_tmpdir("env-team-2");
    g_autofree char *out_dir = g_build_filename(team, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(team, "team-posts.yaml",
        "gallop: 1\ndescription: the team's posts\nextends: instagram-portrait\n"
        "output: { quality: 70 }\n");
    g_autofree char *second = gal_test_write_preset(other, "team-square.yaml",
        "gallop: 1\ndescription: the team's squares\nextends: instagram-square\n");
    g_autofree char *dirs = g_strjoin(":", team, other, NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *written = g_build_filename(out_dir, "trip-01.jpg", NULL);
    const char *list_argv[] = { GAL_BINARY, "presets", NULL };
    const char *run_argv[] = { GAL_BINARY, "run", "team-posts", TRIP_DIR "/trip-01.jpg", "-o",
        out_dir, "-q", NULL };
    const char *shipped_argv[] = { GAL_BINARY, "check", "web-large", NULL };

    g_setenv("GALLOP_PRESETS_DIR", dirs, TRUE);
    cr_assert_eq(gal_test_spawn(list_argv, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "team-posts") && strstr(out, "the team's posts"), "%s", out);
    cr_expect(strstr(out, "team-square") != NULL, "the second folder too: %s", out);
    cr_expect(strstr(out, "instagram-portrait") != NULL, "the shipped ones stay: %s", out);
    cr_expect(strstr(out, "web-large") != NULL, "%s", out);
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);

    /* A bare name finds the team's preset, which extends a shipped one. */
    cr_assert_eq(gal_test_spawn(run_argv, &out, &err), 0, "%s", err);
    cr_expect(g_file_test(written, G_FILE_TEST_IS_REGULAR));
    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(gal_test_spawn(shipped_argv, &out, &err), 0, "%s", err);
}

Test(presets_env, home_is_what_a_tilde_in_a_preset_means)
{
    g_autofree char *home = gal_test_tmpdir("env-home");
    g_autofree char *downloads = g_build_filename(home, "Downloads", NULL);
    g_autofree char *photo = g_build_filename(downloads, "trip-01.jpg", NULL);
    g_autofree char *elsewhere = gal_test_tmpdir("env-home-preset");
    g_autofree char *preset = gal_test_write_preset(elsewhere, "mine.yaml",
        "gallop: 1\ninput: { paths: [~/Downloads] }\nstages:\n  - resize: { width: 100 }\n");
    g_autofree char *written = g_build_filename(home, "gallery", "trip-01.jpg", NULL);
    g_autofree char *bytes = NULL;
    gsize len;
    g_autofree char *err = NULL;
    /* The output folder is the terminal's to choose (a preset's output.dir
     * stays beneath its own folder: test_reach.c). */
    const char *argv[] = { GAL_BINARY, "run", preset, "-q", "--set", "output.dir=~/gallery",
        NULL };

    g_mkdir_with_parents(downloads, 0777);
    cr_assert(g_file_get_contents(TRIP_DIR "/trip-01.jpg", &bytes, &len, NULL));
    cr_assert(g_file_set_contents(photo, bytes, (gssize) len, NULL));
    g_setenv("HOME", home, TRUE);
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    cr_expect(g_file_test(written, G_FILE_TEST_IS_REGULAR), "%s is missing", written);
}
