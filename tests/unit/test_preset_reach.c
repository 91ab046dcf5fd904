/* What a preset can reach (issue 38): a file that is not a preset is
 * refused without a word of it being quoted, whether `extends` names it or
 * the command line does; a preset's output.dir stays beneath its own
 * folder; --set takes values, not control characters or escapes that the
 * shell passed on as they are. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(preset_reach, .init = gal_test_setup, .fini = gal_test_teardown);

#define TEST_YAML GAL_TEST_TMP "/test.yaml"

/* A shadow-like file: every line ends in ':', so YAML reads each one as a
 * key, and every word of it is a secret. */
#define SHADOW                                                                                     \
    "rootsecret:$6$saltsecret$hashsecret:19000:0:99999:7:::\n"                                     \
    "daemonsecret:*:19000:0:99999:7:::\n"                                                          \
    "tokensecret:\n"

/* ---- helpers ---------------------------------------------------------------- */

static char *
write_file(const char *dir, const char *name, const char *text, gssize len)
{
    char *path = g_build_filename(dir, name, NULL);
    g_autofree char *folder = g_path_get_dirname(path);

    cr_assert_eq(g_mkdir_with_parents(folder, 0777), 0);
    cr_assert(g_file_set_contents(path, text, len, NULL), "cannot write %s", path);
    return path;
}

static int
load_file(const char *path, const gal_load_options *given, gal_errors *errs)
{
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    gal_preset *preset = NULL;
    int status = gal_preset_load(path, given ? given : &opts, &preset, errs);

    gal_preset_free(preset);
    return status;
}

/* No error of `errs` holds `word`, formatted or not, outside the paths of
 * the test's files (the checkout's own path may hold any word). */
static void
expect_no_word(const gal_errors *errs, const char *word)
{
    for (int i = 0; i < errs->count; i++) {
        char line[2048];
        g_auto(GStrv) parts = NULL;
        g_autofree char *outside = NULL;

        gal_error_format(&errs->items[i], line, sizeof(line));
        parts = g_strsplit(line, GAL_TEST_TMP, -1);
        outside = g_strjoinv("", parts);
        cr_expect(strstr(outside, word) == NULL, "error %d quotes \"%s\": %s", i, word, line);
    }
}

static void
expect_nothing_of_shadow(const gal_errors *errs)
{
    static const char *const words[] = { "rootsecret", "saltsecret", "hashsecret", "daemonsecret",
        "tokensecret", "19000", "99999" };

    for (size_t i = 0; i < G_N_ELEMENTS(words); i++)
        expect_no_word(errs, words[i]);
}

/* ---- a file that is not a preset ---------------------------------------------- */

Test(preset_reach, extends_of_a_file_that_is_no_preset_is_one_error_that_quotes_nothing)
{
    g_autofree char *dir = gal_test_tmpdir("reach-extends-shadow");
    g_autofree char *shadow = write_file(dir, "shadow", SHADOW, -1);
    g_autofree char *child = write_file(dir, "child.yaml", "gallop: 1\nextends: ./shadow\n", -1);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *want =
        g_strdup_printf("%s is not a gallop preset (its first key is not \"gallop: 1\")", shadow);

    cr_assert_eq(load_file(child, NULL, errs), -1);
    /* Today's main: one "unknown top-level key" error per line of it. */
    cr_assert_eq(errs->count, 1, "%d errors, the first: %s", errs->count, errs->items[0].msg);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, child, 2, 10, "extends", want);
    cr_expect_str_eq(errs->items[0].msg, want);
    expect_nothing_of_shadow(errs);
}

Test(preset_reach, a_file_named_on_the_command_line_that_is_no_preset_quotes_nothing)
{
    g_autofree char *dir = gal_test_tmpdir("reach-command-line-shadow");
    g_autofree char *shadow = write_file(dir, "shadow", SHADOW, -1);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_assert_eq(load_file(shadow, NULL, errs), -1);
    cr_assert_eq(errs->count, 1, "%d errors, the first: %s", errs->count, errs->items[0].msg);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, shadow, 0, 0, "",
        "not a gallop preset (its first key is not \"gallop: 1\")");
    expect_nothing_of_shadow(errs);
}

Test(preset_reach, a_file_that_is_no_preset_is_refused_before_yaml_can_quote_it)
{
    /* Neither a syntax error ("unknown alias \"*...\"") nor a mapping that
     * is no preset may show a word of it. */
    static const char *const texts[] = {
        "*aliassecret\n",
        "- listsecret\n- another\n",
        "plain scalarsecret\n",
        "\"quoted scalarsecret\n",
        "name: namesecret\ngallop: 1\n",
        "gallopsecret: 1\n",
        "gallop_secret: 1\n",
        "\n# only a comment\n",
        "",
    };
    g_autofree char *dir = gal_test_tmpdir("reach-not-yaml");

    for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
        g_autofree char *name = g_strdup_printf("case-%zu.yaml", i);
        g_autofree char *path = write_file(dir, name, texts[i], -1);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);

        cr_assert_eq(load_file(path, NULL, errs), -1, "%s", texts[i]);
        cr_expect_eq(errs->count, 1, "%s: %d errors, the first: %s", texts[i], errs->count,
            errs->items[0].msg);
        cr_expect(strstr(errs->items[0].msg, "not a gallop preset") != NULL, "%s: %s", texts[i],
            errs->items[0].msg);
        expect_no_word(errs, "secret");
    }
}

Test(preset_reach, a_preset_may_begin_with_comments_a_directive_or_a_document_marker)
{
    static const char *const texts[] = {
        "gallop: 1\n",
        "# web\n\n# more\ngallop: 1\n",
        "\xef\xbb\xbfgallop: 1\n",
        "%YAML 1.1\n---\ngallop: 1\n",
        "--- # a comment\ngallop: 1\n",
        "---\n  gallop: 1\n  name: indented\n",
        "\"gallop\": 1\n",
        "'gallop' : 1\n",
        "gallop:   1   # version\r\nname: crlf\r\n",
        "{gallop: 1, name: flow}\n",
        "--- {gallop: 1}\n",
        "gallop:\n  1\n",
    };
    g_autofree char *dir = gal_test_tmpdir("reach-preset-starts");

    for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
        g_autofree char *name = g_strdup_printf("case-%zu.yaml", i);
        g_autofree char *path = write_file(dir, name, texts[i], -1);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);

        cr_expect_eq(load_file(path, NULL, errs), 0, "%s: %s", texts[i],
            errs->count ? errs->items[0].msg : "");
    }
}

Test(preset_reach, a_preset_of_another_version_is_told_so_not_called_no_preset)
{
    g_autofree char *dir = gal_test_tmpdir("reach-version-2");
    g_autofree char *path = write_file(dir, "v2.yaml", "gallop: 2\nname: next\n", -1);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_assert_eq(load_file(path, NULL, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(
        &errs->items[0], GAL_ERR_PRESET, path, 1, 9, "gallop", "unsupported schema version \"2\"");
}

Test(preset_reach, a_child_preset_without_gallop_first_is_refused_too)
{
    /* It used to inherit gallop: 1 from its parent. */
    g_autofree char *dir = gal_test_tmpdir("reach-child-no-version");
    g_autofree char *child =
        write_file(dir, "child.yaml", "extends: instagram-portrait\nname: mine\n", -1);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_assert_eq(load_file(child, NULL, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, child, 0, 0, "",
        "not a gallop preset (its first key is not \"gallop: 1\")");
}

Test(preset_reach, a_parent_without_gallop_first_is_refused_at_the_extends_line)
{
    g_autofree char *dir = gal_test_tmpdir("reach-parent-no-version");
    g_autofree char *parent =
        write_file(dir, "parent.yaml", "output: { quality: 70 }\ngallop: 1\n", -1);
    g_autofree char *child =
        write_file(dir, "child.yaml", "gallop: 1\nname: c\nextends: parent.yaml\n", -1);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_assert_eq(load_file(child, NULL, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, child, 3, 10, "extends",
        "parent.yaml is not a gallop preset");
    expect_no_word(errs, "quality");
}

Test(preset_reach, text_loaded_from_memory_is_not_held_to_the_first_key)
{
    /* gal_preset_load_string takes text its caller holds (tests, the
     * fuzzer): nothing of it can be read out that the caller lacks. Only
     * files are held to the first key; the version is checked as ever. */
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("name: x\ngallop: 1\n", errs);

    cr_expect_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    gal_preset_free(preset);
}

/* ---- output.dir stays beneath the preset's folder ---------------------------------- */

static gal_errors *
load_fails_with(const char *yaml, const gal_load_options *opts)
{
    gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    cr_assert_neq(gal_preset_load_string(yaml, TEST_YAML, opts, &preset, errs), 0,
        "the preset loaded but should not have:\n%s", yaml);
    cr_assert_null(preset);
    cr_assert_gt(errs->count, 0, "load failed without an error");
    return errs;
}

static gal_preset *
load_ok_with(const char *yaml, const char *path, const gal_load_options *opts)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;
    char line[1024] = "";

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    if (gal_preset_load_string(yaml, path, opts, &preset, errs))
        gal_error_format(&errs->items[0], line, sizeof(line));
    cr_assert_not_null(preset, "the preset did not load: %s", line);
    return preset;
}

Test(preset_reach, output_dir_may_not_leave_the_presets_folder)
{
    static const struct {
        const char *dir, *why;
    } cases[] = {
        { "/etc", "\"/etc\" is an absolute folder" },
        { "/", "\"/\" is an absolute folder" },
        { "//srv/www", "\"//srv/www\" is an absolute folder" },
        { "~/gallery", "\"~/gallery\" is in the home folder" },
        { "~", "\"~\" is in the home folder" },
        { "$HOME/gallery", "\"$HOME/gallery\" is in the home folder" },
        { "${HOME}", "\"${HOME}\" is in the home folder" },
        { "..", "\"..\" has a \"..\" part" },
        { "../shared", "\"../shared\" has a \"..\" part" },
        { "site/../../etc", "\"site/../../etc\" has a \"..\" part" },
        { "site/..", "\"site/..\" has a \"..\" part" },
    };
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .home_dir = "/home/ana" };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *yaml = g_strdup_printf("gallop: 1\noutput: {dir: \"%s\"}\n", cases[i].dir);
        g_autofree gal_errors *errs = load_fails_with(yaml, &opts);

        cr_expect_eq(errs->count, 1, "%s: %d errors", cases[i].dir, errs->count);
        gal_test_expect_error(
            &errs->items[0], GAL_ERR_PRESET, TEST_YAML, 2, 15, "output.dir", cases[i].why);
        cr_expect(strstr(errs->items[0].msg,
                      ": a preset's output folder lies beneath the preset's own folder (a "
                      "folder elsewhere is for the person at the terminal: -o DIR)") != NULL,
            "%s", errs->items[0].msg);
    }
}

Test(preset_reach, output_dir_in_block_style_is_refused_at_its_value)
{
    g_autofree gal_errors *errs =
        load_fails_with("gallop: 1\noutput:\n  quality: 80\n  dir: /etc\n", NULL);

    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, TEST_YAML, 4, 8, "output.dir",
        "\"/etc\" is an absolute folder");
}

Test(preset_reach, output_dir_beneath_the_presets_folder_is_kept)
{
    static const char *const dirs[] = { "site", "site/photos", ".", "./out", "a..b", "...",
        "..hidden", "2024" };

    for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
        g_autofree char *yaml = g_strdup_printf("gallop: 1\noutput: {dir: \"%s\"}\n", dirs[i]);
        gal_preset *preset = load_ok_with(yaml, TEST_YAML, NULL);
        g_autofree char *want = g_canonicalize_filename(dirs[i], GAL_TEST_TMP);

        cr_expect_str_eq(preset->output->dir, want);
        gal_preset_free(preset);
    }
}

Test(preset_reach, output_dir_typed_at_the_terminal_may_be_anywhere)
{
    /* --set is the person at the terminal, as -o is; it also replaces the
     * preset's own value, which is then not checked. */
    static const char *const set[] = { "output.dir=/var/tmp/gallop-out" };
    static const char *const home_set[] = { "output.dir=~/gallery" };
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .overrides = set, .n_overrides = 1 };
    gal_preset *preset = load_ok_with("gallop: 1\noutput: {dir: /etc}\n", TEST_YAML, &opts);

    cr_expect_str_eq(preset->output->dir, "/var/tmp/gallop-out");
    gal_preset_free(preset);
    opts.overrides = home_set;
    opts.home_dir = "/home/ana";
    preset = load_ok_with("gallop: 1\n", TEST_YAML, &opts);
    cr_expect_str_eq(preset->output->dir, "/home/ana/gallery");
    gal_preset_free(preset);
}

Test(preset_reach, a_parents_output_dir_stays_beneath_the_parents_folder)
{
    g_autofree char *dir = gal_test_tmpdir("reach-parent-dir");
    g_autofree char *parent =
        write_file(dir, "base/parent.yaml", "gallop: 1\noutput: {dir: site}\n", -1);
    g_autofree char *bad =
        write_file(dir, "base/bad.yaml", "gallop: 1\noutput:\n  dir: /etc\n", -1);
    g_autofree char *child =
        write_file(dir, "child.yaml", "gallop: 1\nextends: base/parent.yaml\n", -1);
    g_autofree char *bad_child =
        write_file(dir, "bad-child.yaml", "gallop: 1\nextends: base/bad.yaml\n", -1);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;
    g_autofree char *want = g_build_filename(dir, "base", "site", NULL);

    cr_assert_eq(gal_preset_load(child, &opts, &preset, errs), 0, "%s",
        errs->count ? errs->items[0].msg : "");
    cr_expect_str_eq(preset->output->dir, want);
    gal_preset_free(preset);
    cr_assert_eq(gal_preset_load(bad_child, &opts, &preset, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(
        &errs->items[0], GAL_ERR_PRESET, bad, 3, 8, "output.dir", "\"/etc\" is an absolute folder");
}

Test(preset_reach, output_dir_through_a_link_out_of_the_presets_folder_is_refused)
{
    g_autofree char *dir = gal_test_tmpdir("reach-dir-link");
    g_autofree char *elsewhere = gal_test_tmpdir("reach-dir-link-elsewhere");
    g_autofree char *inner = g_build_filename(dir, "inner", NULL);
    g_autofree char *out_link = g_build_filename(dir, "out", NULL);
    g_autofree char *in_link = g_build_filename(dir, "in", NULL);
    g_autofree char *bad = write_file(dir, "bad.yaml", "gallop: 1\noutput: {dir: out/web}\n", -1);
    g_autofree char *good = write_file(dir, "good.yaml", "gallop: 1\noutput: {dir: in/web}\n", -1);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    g_autofree char *want = g_strdup_printf("%s is reached through a symbolic link that leads "
                                            "out of %s (to %s)",
        out_link, dir, elsewhere);

    cr_assert_eq(g_mkdir_with_parents(inner, 0777), 0);
    cr_assert_eq(symlink(elsewhere, out_link), 0);
    cr_assert_eq(symlink("inner", in_link), 0);
    cr_assert_eq(load_file(bad, &opts, errs), -1);
    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, bad, 2, 15, "output.dir", want);
    errs->count = 0;
    cr_expect_eq(load_file(good, &opts, errs), 0, "%s", errs->count ? errs->items[0].msg : "");
    opts.follow_symlinks = true;
    cr_expect_eq(load_file(bad, &opts, errs), 0, "%s", errs->count ? errs->items[0].msg : "");
}

Test(preset_reach, no_other_key_names_a_file_outside_the_output_folder)
{
    /* What else a preset names for writing: output.name (checked for every
     * photo, and at load with sample fields) and contact-sheet.file (a
     * plain name); the gallery's pages have names of their own. These
     * held before issue 38 too. */
    static const struct {
        const char *yaml, *key, *words;
        int line, col;
    } cases[] = {
        { "gallop: 1\noutput: {name: \"../{stem}.{ext}\"}\n", "output.name",
            "outside the output folder", 2, 16 },
        { "gallop: 1\noutput: {name: \"{dir}/../../{stem}.{ext}\"}\n", "output.name",
            "outside the output folder", 2, 16 },
        { "gallop: 1\noutput: {name: \"/etc/{stem}.{ext}\"}\n", "output.name", "is absolute", 2,
            16 },
        { "gallop: 1\nstages:\n  - contact-sheet: {file: \"../sheet-{page}.jpg\"}\n",
            "contact-sheet.file", "a sheet is a plain file name in the output folder", 3, 5 },
        { "gallop: 1\nstages:\n  - contact-sheet: {file: \"/etc/sheet-{page}.jpg\"}\n",
            "contact-sheet.file", "a sheet is a plain file name in the output folder", 3, 5 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gal_errors *errs = load_fails_with(cases[i].yaml, NULL);

        gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, TEST_YAML, cases[i].line, cases[i].col,
            cases[i].key, cases[i].words);
    }
}

/* ---- an input that is not an image names its kind, not its bytes ------------------- */

TestSuite(input_kind, .init = gal_test_setup, .fini = gal_test_teardown);

static const char *
kind_of(const void *bytes, gsize len)
{
    const char *hint = NULL;

    cr_assert_eq(gal__image_sniff(bytes, len, &hint), GAL_IMAGE_UNKNOWN);
    cr_assert_not_null(hint, "no words for %zu bytes", len);
    return hint;
}

Test(input_kind, a_file_nothing_reads_is_named_by_its_kind)
{
    /* 69 bytes: the 64 looked at end inside the three bytes of "日". */
    static const char cut[] = "Ça va, naïve café: text long enough to end in the character 日本";
    static const guint8 elf[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    static const guint8 zip[] = { 'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0 };
    static const guint8 bmp[] = { 'B', 'M', 0x36, 0x10, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0 };
    static const guint8 binary[] = { 0, 1, 2, 3, 4, 5, 6, 7, 'g', 'a', 'r', 'b', 'a', 'g', 'e' };
    guint8 program[128] = { 'M', 'Z', 0x90, 0, 3, 0, 0, 0, 4, 0 };

    cr_assert_gt(strlen(cut), 64);
    cr_expect_str_eq(kind_of("root:x:0:0:root:/root:/bin/bash\n", 32), "text");
    cr_expect_str_eq(kind_of("just some text, no image here\n", 30), "text");
    cr_expect_str_eq(kind_of(cut, strlen(cut)), "text");
    cr_expect_str_eq(kind_of("line\tone\r\nline two\f\n", 20), "text");
    cr_expect_str_eq(kind_of("BMW notes: no zero bytes\n", 25), "text");
    cr_expect_str_eq(kind_of("text with an \x1b[31mescape\n", 26), "data of an unknown kind");
    cr_expect_str_eq(kind_of("\xc3\x28 invalid UTF-8 text\n", 22), "data of an unknown kind");
    cr_expect_str_eq(kind_of(binary, sizeof(binary)), "data of an unknown kind");
    cr_expect_str_eq(kind_of(elf, sizeof(elf)), "an executable program");
    cr_expect_str_eq(kind_of(program, sizeof(program)), "a Windows program");
    cr_expect_str_eq(kind_of(zip, sizeof(zip)), "a ZIP archive");
    cr_expect_str_eq(kind_of(bmp, sizeof(bmp)), "a BMP image");
    cr_expect_str_eq(kind_of("#!/bin/sh\necho hi\n", 18), "a script");
    /* JPEG XL is read now: its two signatures are a photo's, not a kind. */
    cr_expect_eq(gal__image_sniff((const guint8 *) "\xff\x0a\xfa\x12", 4, NULL), GAL_IMAGE_JXL);
    cr_expect_eq(gal__image_sniff((const guint8 *) "\0\0\0\x0cJXL \r\n\x87\n\0\0", 14, NULL),
        GAL_IMAGE_JXL);
    cr_expect_str_eq(kind_of("BZh91AY&SY", 10), "bzip2-compressed data");
    cr_expect_str_eq(kind_of("", 0), "an empty file");
}

Test(input_kind, a_photo_that_is_text_is_refused_without_its_bytes)
{
    g_autofree char *dir = gal_test_tmpdir("reach-input-text");
    g_autofree char *path =
        write_file(dir, "trip-01.jpg", "rootsecret:x:0:0:root:/root:/bin/bash\n", -1);
    gal_photo_file file;
    gal_error err = { 0 };

    cr_assert_eq(gal__photo_open(path, &file, &err), -1);
    cr_expect_eq(err.code, GAL_ERR_INPUT);
    cr_expect_str_eq(err.msg,
        "not a photo gallop reads: it is text (gallop reads JPEG, PNG, "
        "WebP, TIFF, HEIF/AVIF, GIF, JPEG XL and camera RAW)");
    /* Main: "it starts with bytes 72 6f 6f 74 73 65 63 72", which spells it. */
    cr_expect(strstr(err.msg, "72 6f") == NULL && strstr(err.msg, "secret") == NULL, "%s", err.msg);
}

/* ---- --set takes values, not control characters ------------------------------------ */

/* Load "gallop: 1\n" with one --set; NULL on error, with `errs` filled. */
static gal_preset *
load_set(const char *set, gal_errors *errs)
{
    const char *const overrides[] = { set };
    gal_load_options opts = {
        .presets_dir = GAL_PRESETS_DIR, .overrides = overrides, .n_overrides = 1
    };
    gal_preset *preset = NULL;

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    if (gal_preset_load_string("gallop: 1\n", TEST_YAML, &opts, &preset, errs))
        return NULL;
    return preset;
}

/* The one error of a refused --set: usage, named by the argument and the key. */
static void
expect_set_refused(const char *set, const char *label, const char *key, const char *msg_part)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *file = g_strdup_printf("--set %s", label ? label : set);

    cr_expect_null(load_set(set, errs), "%s loaded", set);
    cr_assert_eq(errs->count, 1, "%s: %d errors", set, errs->count);
    gal_test_expect_error(&errs->items[0], GAL_ERR_USAGE, file, 0, 0, key, msg_part);
}

Test(preset_reach, set_a_nul_in_double_quotes_gives_the_presets_own_words)
{
    /* Main took the text as it is when YAML refused it, quotes and
     * backslash included, and wrote a file named "trip-01\0.jpg". */
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\noutput: {name: \"{stem}\\0.{ext}\"}\n", errs);
    const char *preset_words;

    cr_assert_null(preset);
    cr_assert_eq(errs->count, 1);
    preset_words = errs->items[0].msg;
    cr_assert(strstr(preset_words, "a NUL character (\\0) in a value") != NULL, "%s", preset_words);
    expect_set_refused("output.name=\"{stem}\\0.{ext}\"", NULL, "output.name", preset_words);
    expect_set_refused("name=\"a\\0b\"", NULL, "name", preset_words);
    expect_set_refused("name=\"a\\x00b\"", NULL, "name", preset_words);
    expect_set_refused("caption-burn.text=\"\\u0000\"", NULL, "caption-burn.text", "");
}

Test(preset_reach, set_refuses_control_characters_typed_or_escaped)
{
    static const struct {
        const char *set, *label, *key, *words;
    } cases[] = {
        { "name=a\tb", "name=a\u2409b", "name", "(U+0009) in the argument" },
        { "name=line\nnext", "name=line\u240anext", "name", "(U+000A) in the argument" },
        { "output.name={stem}\x1b[31m.{ext}", "output.name={stem}\u241b[31m.{ext}", "output.name",
            "(U+001B) in the argument" },
        { "name=a\x7f", "name=a\u2421", "name", "(U+007F) in the argument" },
        { "name=a\xc2\x85z", "name=a\ufffdz", "name", "(U+0085) in the argument" },
        { "na\x01me=x", "na\u2401me=x", "", "(U+0001) in the argument" },
        { "name=\"a\\tb\"", NULL, "name", "(U+0009) in a value" },
        { "name=\"a\\nb\"", NULL, "name", "(U+000A) in a value" },
        { "name=\"\\e[31m\"", NULL, "name", "(U+001B) in a value" },
        { "name=\"\\x7f\"", NULL, "name", "(U+007F) in a value" },
        { "name=\"\\N\"", NULL, "name", "(U+0085) in a value" },
        { "input.include=[\"a\\rb\", \"*.png\"]", NULL, "input.include", "(U+000D) in a value" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        expect_set_refused(cases[i].set, cases[i].label, cases[i].key, cases[i].words);
    expect_set_refused("name=a\tb", "name=a\u2409b", "name",
        "a control character (U+0009) in the argument: --set takes text, not control "
        "characters");
}

Test(preset_reach, set_refuses_a_backslash_that_would_stay_one)
{
    static const struct {
        const char *set, *key, *shown;
    } cases[] = {
        { "output.name={stem}\\0.{ext}", "output.name", "\"\\0\" would be kept as a backslash" },
        { "name=a\\0b", "name", "\"\\0\" would be kept as a backslash" },
        { "name=a\\tb", "name", "\"\\t\" would be kept as a backslash" },
        { "output.dir=C:\\photos", "output.dir", "\"\\p\" would be kept as a backslash" },
        { "input.include=[a\\b, *.png]", "input.include", "\"\\b\" would be kept as a backslash" },
        { "name=\"quoted\" and \\n", "name", "\"\\n\" would be kept as a backslash" },
        { "name=trailing\\", "name", "\"\\\" would be kept as a backslash" },
        { "name=a\\é", "name", "\"\\é\" would be kept as a backslash" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        expect_set_refused(cases[i].set, NULL, cases[i].key, cases[i].shown);
    expect_set_refused("name=a\\0b", NULL, "name",
        "\"\\0\" would be kept as a backslash, not read as an escape (only a value in double "
        "quotes has escapes); to keep a backslash, quote the value ('a\\b' or \"a\\\\b\")");
    /* An escape YAML does not know, in double quotes: YAML's words. */
    expect_set_refused("name=\"a\\qb\"", NULL, "name", "unknown escape character");
}

Test(preset_reach, set_keeps_legitimate_values)
{
    static const struct {
        const char *set, *name;
    } names[] = {
        { "name=quoted", "quoted" },
        { "name=\"quoted text\"", "quoted text" },
        { "name=Ça va — ✓ 日本", "Ça va — ✓ 日本" },
        { "name=Ana's trip", "Ana's trip" },
        { "name='a\\b'", "a\\b" },
        { "name=\"a\\\\b\"", "a\\b" },
        { "name=\"\\u00e9t\\u00e9 \\\"ok\\\"\"", "été \"ok\"" },
        { "name=[a, 'b\\c']", NULL },
    };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset;

    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        errs->count = 0;
        preset = load_set(names[i].set, errs);
        if (!names[i].name) {
            /* A list is no name: the schema's error, not a backslash's. */
            cr_expect_null(preset);
            cr_expect(errs->count > 0 && strstr(errs->items[0].msg, "backslash") == NULL, "%s",
                errs->count ? errs->items[0].msg : "");
            continue;
        }
        cr_assert_not_null(preset, "%s: %s", names[i].set, errs->count ? errs->items[0].msg : "");
        cr_expect_str_eq(gal_preset_name(preset), names[i].name);
        gal_preset_free(preset);
    }
    preset = load_set("output.name={stem}-web.{ext}", errs);
    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    cr_expect_str_eq(gal__template_text(preset->output->name), "{stem}-web.{ext}");
    gal_preset_free(preset);
    preset = load_set("input.include=[*.png, *.jpg]", errs);
    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    cr_expect_str_eq(preset->input->include[0], "*.png");
    cr_expect_str_eq(preset->input->include[1], "*.jpg");
    gal_preset_free(preset);
    preset = load_set("output.dir=/var/tmp/gallop photos", errs);
    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    cr_expect_str_eq(preset->output->dir, "/var/tmp/gallop photos");
    gal_preset_free(preset);
}
