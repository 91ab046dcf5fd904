/* What a preset can reach, through the built gallop (issue 38): a preset
 * whose output.dir leaves its folder is refused with exit status 2 before
 * anything is written; a file that is not a preset is refused in one line
 * that quotes nothing of it. The folders written to are all temporary:
 * these tests may run as root, and never name a system folder. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

TestSuite(reach);

/* Names in `dir`, one a line (the manifest left out); "" when it is missing. */
static char *
listing(const char *dir)
{
    g_autoptr(GPtrArray) names = NULL;

    if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
        return g_strdup("");
    names = gal_test_list_dir(dir);
    g_ptr_array_add(names, NULL);
    return g_strjoinv("\n", (char **) names->pdata);
}

Test(reach, a_preset_whose_output_dir_leaves_its_folder_writes_nothing)
{
    g_autofree char *base = gal_test_tmpdir("e2e-reach-dir");
    g_autofree char *presets = g_build_filename(base, "presets", NULL);
    g_autofree char *elsewhere = g_build_filename(base, "elsewhere", NULL);
    g_autofree char *linked = g_build_filename(base, "linked", NULL);
    g_autofree char *link = g_build_filename(presets, "out", NULL);
    g_autofree char *absolute_yaml =
        g_strdup_printf("gallop: 1\noutput: { dir: \"%s\" }\n", elsewhere);
    const struct {
        const char *name, *yaml, *words;
    } cases[] = {
        { "absolute.yaml", absolute_yaml, "is an absolute folder" },
        { "up.yaml", "gallop: 1\noutput: { dir: ../elsewhere }\n", "has a \"..\" part" },
        { "home.yaml", "gallop: 1\noutput: { dir: ~/elsewhere }\n", "is in the home folder" },
        { "link.yaml", "gallop: 1\noutput: { dir: out/web }\n",
            "is reached through a symbolic link that leads out of" },
    };
    g_autofree char *before = NULL;

    cr_assert_eq(g_mkdir_with_parents(presets, 0777), 0);
    cr_assert_eq(g_mkdir_with_parents(linked, 0777), 0);
    cr_assert_eq(symlink(linked, link), 0);
    g_setenv("HOME", base, TRUE);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        g_free(gal_test_write_preset(presets, cases[i].name, cases[i].yaml));
    before = listing(presets);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *preset = g_build_filename(presets, cases[i].name, NULL);
        g_autofree char *where = g_strdup_printf("%s:2:", preset);
        const char *run_argv[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-01.jpg", "-q", NULL };
        const char *check_argv[] = { GAL_BINARY, "check", preset, NULL };
        g_autofree char *err = NULL;
        g_autofree char *check_err = NULL;
        g_autofree char *after = NULL;
        g_autofree char *in_elsewhere = NULL;
        g_autofree char *in_linked = NULL;

        /* Main planned BASE/elsewhere/trip-01.jpg and wrote it. */
        cr_expect_eq(gal_test_spawn(run_argv, NULL, &err), 2, "%s: %s", cases[i].name, err);
        cr_expect(strstr(err, where) && strstr(err, "output.dir: ") && strstr(err, cases[i].words),
            "%s: %s", cases[i].name, err);
        /* A link is refused as for any file a preset names (--follow-symlinks). */
        if (!strstr(cases[i].words, "symbolic link"))
            cr_expect(strstr(err, "-o DIR") != NULL, "%s: %s", cases[i].name, err);
        cr_expect_eq(
            gal_test_spawn(check_argv, NULL, &check_err), 2, "%s: %s", cases[i].name, check_err);
        cr_expect(strstr(check_err, cases[i].words) != NULL, "%s", check_err);
        cr_expect_not(g_file_test(elsewhere, G_FILE_TEST_EXISTS), "%s: %s was made", cases[i].name,
            elsewhere);
        in_linked = listing(linked);
        cr_expect_str_empty(
            in_linked, "%s: written through the link: %s", cases[i].name, in_linked);
        after = listing(presets);
        cr_expect_str_eq(after, before, "%s: the preset's folder changed", cases[i].name);
        in_elsewhere = listing(elsewhere);
        cr_expect_str_empty(in_elsewhere);
    }
}

Test(reach, an_output_folder_typed_at_the_terminal_may_be_anywhere)
{
    g_autofree char *base = gal_test_tmpdir("e2e-reach-terminal");
    g_autofree char *presets = g_build_filename(base, "presets", NULL);
    g_autofree char *elsewhere = g_build_filename(base, "elsewhere", NULL);
    g_autofree char *preset = NULL;
    g_autofree char *set = g_strdup_printf("output.dir=%s", elsewhere);
    g_autofree char *written = g_build_filename(elsewhere, "trip-01.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", NULL, TRIP_DIR "/trip-01.jpg", "-q", "--set", set,
        NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(g_mkdir_with_parents(presets, 0777), 0);
    preset =
        gal_test_write_preset(presets, "p.yaml", "gallop: 1\nstages:\n  - resize: { width: 64 }\n");
    argv[2] = preset;
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    cr_expect(g_file_test(written, G_FILE_TEST_IS_REGULAR), "%s is missing", written);
}

/* Every line of it ends in ':', as /etc/shadow's do: YAML reads each one
 * as a key. */
#define SECRET                                                                                     \
    "rootsecret:$6$saltsecret$hashsecret:19000:0:99999:7:::\n"                                     \
    "tokensecret:\n"

Test(reach, a_file_that_is_no_preset_is_one_line_that_quotes_nothing)
{
    g_autofree char *base = gal_test_tmpdir("e2e-reach-secret");
    g_autofree char *secret = gal_test_write_preset(base, "shadow", SECRET);
    g_autofree char *child =
        gal_test_write_preset(base, "child.yaml", "gallop: 1\nextends: ./shadow\n");
    g_autofree char *out = g_build_filename(base, "out", NULL);
    g_autofree char *child_says = g_strdup_printf("%s:2:10: extends: %s is not a gallop preset "
                                                  "(its first key is not \"gallop: 1\")\n",
        child, secret);
    g_autofree char *secret_says =
        g_strdup_printf("%s: not a gallop preset (its first key is not \"gallop: 1\")\n", secret);
    const struct {
        const char *const *argv;
        const char *says;
    } cases[] = {
        { (const char *const[]) { GAL_BINARY, "check", child, NULL }, child_says },
        { (const char *const[]) {
              GAL_BINARY, "run", child, TRIP_DIR "/trip-01.jpg", "-o", out, NULL },
            child_says },
        { (const char *const[]) { GAL_BINARY, "check", secret, NULL }, secret_says },
        { (const char *const[]) {
              GAL_BINARY, "run", secret, TRIP_DIR "/trip-01.jpg", "-o", out, NULL },
            secret_says },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *stdout_text = NULL;
        g_autofree char *err = NULL;

        cr_expect_eq(gal_test_spawn(cases[i].argv, &stdout_text, &err), 2, "%s %s: %s",
            cases[i].argv[1], cases[i].argv[2], err);
        /* Main: one "unknown top-level key" line per line of the file. */
        cr_expect_str_eq(err, cases[i].says);
        cr_expect(strstr(stdout_text, "secret") == NULL, "%s", stdout_text);
        cr_expect_not(g_file_test(out, G_FILE_TEST_EXISTS), "%s was made", out);
    }
}

Test(reach, a_set_value_with_an_escape_or_a_control_character_writes_nothing)
{
    g_autofree char *base = gal_test_tmpdir("e2e-reach-set");
    g_autofree char *out = g_build_filename(base, "out", NULL);
    g_autofree char *preset =
        gal_test_write_preset(base, "p.yaml", "gallop: 1\nstages:\n  - resize: { width: 64 }\n");
    const struct {
        const char *set, *words;
    } cases[] = {
        /* Main wrote out/"trip-01\0.jpg", quotes and backslash in the name. */
        { "output.name=\"{stem}\\0.{ext}\"", "output.name: a NUL character (\\0) in a value" },
        /* Main wrote out/trip-01\0.jpg. */
        { "output.name={stem}\\0.{ext}", "output.name: \"\\0\" would be kept as a backslash" },
        { "output.name=\"{stem}\\n.{ext}\"", "output.name: a control character (U+000A)" },
        { "output.name={stem}\t.{ext}", "output.name: a control character (U+0009)" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const char *argv[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-01.jpg", "-o", out, "-q",
            "--set", cases[i].set, NULL };
        g_autofree char *err = NULL;
        g_autofree char *written = NULL;

        cr_expect_eq(gal_test_spawn(argv, NULL, &err), 2, "%s: %s", cases[i].set, err);
        cr_expect(strstr(err, cases[i].words) != NULL, "%s: %s", cases[i].set, err);
        /* One line: the --set, its key and why. */
        cr_expect(
            g_str_has_prefix(err, "--set output.name=") && strchr(err, '\n') == strrchr(err, '\n'),
            "%s: %s", cases[i].set, err);
        written = listing(out);
        cr_expect_str_empty(written, "%s: wrote %s", cases[i].set, written);
    }
}
