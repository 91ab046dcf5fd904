/* Trust at the edges (issue 38), the stages' and captions' part: a
 * watermark logo that is no image is reported at its `image:` value, a
 * font family fontconfig does not have is a preset error with the nearest
 * installed families, a captions table or export that is not what it
 * claims quotes nothing of itself, and a run's seconds count the loading
 * of its captions table. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(fonts_captions_trust, .init = gal_test_setup, .fini = gal_test_teardown,
    .timeout = 120);

/* What a file the preset names could be instead of what it claims: the
 * test's own /etc/passwd-like lines (the real one is not relied on). */
static const char passwd_like[] = "root:x:0:0:root:/root:/bin/bash\n"
                                  "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
                                  "jen:x:1000:1000:Jen Loong,,,:/home/jen:/bin/bash\n"
                                  "sshd:x:110:65534::/run/sshd:/usr/sbin/nologin\n";

/* Nothing of passwd_like in `text`: no field of any of its lines. */
static void
expect_nothing_of_passwd(const char *text)
{
    static const char *const pieces[] = { "root", "daemon", "nologin", "/bin/bash", "Jen Loong",
        "sshd", ":x:", "1000", NULL };

    for (int i = 0; pieces[i]; i++)
        cr_expect_null(strstr(text, pieces[i]), "\"%s\" quoted from the file in: %s", pieces[i],
            text);
}

/* A file `name` holding `bytes` in GAL_TEST_TMP, where gal_test_load's
 * presets live; its path. */
static char *
file_beside_presets(const char *name, const char *bytes, gssize len)
{
    g_autofree char *own = g_strdup_printf("%d-%s", (int) getpid(), name);
    char *path = g_build_filename(GAL_TEST_TMP, own, NULL);

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    cr_assert(g_file_set_contents(path, bytes, len, NULL), "cannot write %s", path);
    return path;
}

/* Load `yaml` (with --set `overrides`), which must fail with exactly one
 * error; that error. */
static gal_error
the_one_error(const char *yaml, const char *const *overrides, int n)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load_with(yaml, overrides, n, errs);
    char line[2048];

    cr_assert_null(preset, "loaded but should not have:\n%s", yaml);
    for (int i = 0; i < errs->count; i++)
        cr_log_info("%s", gal_error_format(&errs->items[i], line, sizeof(line)));
    cr_assert_eq(errs->count, 1, "%d errors", errs->count);
    return errs->items[0];
}

/* ---- a watermark logo that is no image (item 6) ------------------------------------ */

/* The logo is the image key's fault, not the stage name's: prepare()
 * reported it at the `- watermark:` line, one line early in a block
 * mapping, and at the stage's column in a flow one. */
Test(fonts_captions_trust, a_logo_that_is_no_image_is_reported_at_its_image_value)
{
    g_autofree char *logo = file_beside_presets("logo.png", passwd_like, -1);
    g_autofree char *base = g_path_get_basename(logo);
    g_autofree char *block = g_strdup_printf("gallop: 1\n"
                                             "stages:\n"
                                             "  - watermark:\n"
                                             "      opacity: 0.5\n"
                                             "      image: %s\n",
        base);
    g_autofree char *flow =
        g_strdup_printf("gallop: 1\nstages:\n  - watermark: { opacity: 0.5, image: %s }\n", base);
    gal_error e = the_one_error(block, NULL, 0);

    cr_expect_eq(e.code, GAL_ERR_PRESET);
    cr_expect_str_eq(e.key, "watermark.image");
    cr_expect_eq(e.line, 5, "line %d", e.line);
    cr_expect_eq(e.col, 14, "col %d", e.col);
    expect_nothing_of_passwd(e.msg);

    e = the_one_error(flow, NULL, 0);
    cr_expect_str_eq(e.key, "watermark.image");
    cr_expect_eq(e.line, 3, "line %d", e.line);
    cr_expect_eq(e.col, 39, "col %d", e.col);
    expect_nothing_of_passwd(e.msg);
}

/* A font file's errors too are the font value's, not the stage name's. */
Test(fonts_captions_trust, a_font_file_error_is_reported_at_the_font_value)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\n"
                                            "stages:\n"
                                            "  - caption-burn:\n"
                                            "      text: hi\n"
                                            "      font: no-such-font-%d.ttf\n",
        (int) getpid());
    gal_error e = the_one_error(yaml, NULL, 0);

    cr_expect_eq(e.code, GAL_ERR_PRESET);
    cr_expect_str_eq(e.key, "caption-burn.font");
    cr_expect_eq(e.line, 5, "line %d", e.line);
    cr_expect_eq(e.col, 13, "col %d", e.col);
    cr_expect(strstr(e.msg, "font file not found") != NULL, "%s", e.msg);
}

/* A font file given with --set is the user's own path, relative to the
 * working folder as every other --set path is (it was looked for beside
 * the preset). */
Test(fonts_captions_trust, a_font_file_given_with_set_is_relative_to_the_working_folder)
{
    g_autofree char *dir = gal_test_tmpdir("set-font");
    g_autofree char *fonts = g_build_filename(dir, "fonts", NULL);
    g_autofree char *name = g_strdup_printf("fonts/brand-%d.ttf", (int) getpid());
    g_autofree char *copy = g_build_filename(dir, name, NULL);
    g_autofree char *set = g_strdup_printf("caption-burn.font=%s", name);
    const char *overrides[] = { set };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset;
    char line[2048] = "";

    cr_assert_eq(g_mkdir_with_parents(fonts, 0777), 0);
    gal_test_copy_file("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", copy);
    cr_assert_eq(chdir(dir), 0);
    preset = gal_test_load_with("gallop: 1\nstages:\n  - caption-burn: { text: hi }\n",
        overrides, 1, errs);
    if (!preset && errs->count)
        gal_error_format(&errs->items[0], line, sizeof(line));
    cr_expect_not_null(preset, "%s", line);
    gal_preset_free(preset);
}

/* ---- a font family fontconfig lacks (item 4) ------------------------------------------ */

/* Fontconfig draws a family it does not have in another one, silently:
 * "DejaVu Snas" came out as DejaVu Sans, "Helvetica" as whatever is there.
 * Each is a preset error at the font value, with the nearest installed
 * families (the CI has fonts-dejavu-core, fonts-noto-cjk and
 * fonts-noto-color-emoji). */
Test(fonts_captions_trust, a_font_family_that_is_not_installed_names_the_nearest_ones)
{
    gal_error e = the_one_error("gallop: 1\n"
                                "stages:\n"
                                "  - caption-burn:\n"
                                "      text: hi\n"
                                "      font: DejaVu Snas\n",
        NULL, 0);

    cr_expect_eq(e.code, GAL_ERR_PRESET);
    cr_expect_str_eq(e.key, "caption-burn.font");
    cr_expect_eq(e.line, 5, "line %d", e.line);
    cr_expect_eq(e.col, 13, "col %d", e.col);
    cr_expect(strstr(e.msg, "no installed font family \"DejaVu Snas\" (did you mean \"DejaVu "
                            "Sans\"") == e.msg,
        "%s", e.msg);

    /* Style and size after the family are Pango's: only the family is
     * looked for. */
    e = the_one_error("gallop: 1\nstages:\n  - watermark: { text: x, font: \"Noto Sans CJK KRR "
                      "Bold 12\" }\n",
        NULL, 0);
    cr_expect_str_eq(e.key, "watermark.font");
    cr_expect_eq(e.line, 3, "line %d", e.line);
    cr_expect_eq(e.col, 33, "col %d", e.col);
    cr_expect(strstr(e.msg, "no installed font family \"Noto Sans CJK KRR\" (did you mean "
                            "\"Noto Sans CJK KR\"") == e.msg,
        "%s", e.msg);

    /* Up to three, nearest first (ties in name order); in a list, each
     * family's nearest comes first. */
    e = the_one_error("gallop: 1\nstages:\n  - caption-burn: { font: Noto Sans CJK }\n", NULL, 0);
    cr_expect_str_eq(e.msg, "no installed font family \"Noto Sans CJK\" (did you mean \"Noto Sans "
                            "CJK HK\", \"Noto Sans CJK JP\" or \"Noto Sans CJK KR\"?)");
    e = the_one_error("gallop: 1\nstages:\n  - caption-burn: { font: \"DejaVu Snas, Noto Sans CJK "
                      "KRR\" }\n",
        NULL, 0);
    cr_expect(strstr(e.msg, "no installed font family in \"DejaVu Snas, Noto Sans CJK KRR\" (did "
                            "you mean \"DejaVu Sans\", \"Noto Sans CJK KR\"")
            == e.msg,
        "%s", e.msg);
}

/* Nothing near: the message says what fontconfig would draw instead. A
 * list of families is a fallback: it fails only when none is there. */
Test(fonts_captions_trust, a_font_family_with_nothing_near_says_what_would_be_drawn)
{
    gal_error e = the_one_error(
        "gallop: 1\nstages:\n  - caption-burn: { font: Qzxq Grotesk Bold }\n", NULL, 0);

    cr_expect_str_eq(e.key, "caption-burn.font");
    cr_expect_eq(e.line, 3, "line %d", e.line);
    cr_expect(strstr(e.msg, "no installed font family \"Qzxq Grotesk\": it would be drawn in \"")
            == e.msg,
        "%s", e.msg);
    e = the_one_error("gallop: 1\nstages:\n  - caption-burn: { font: Q }\n", NULL, 0);
    cr_expect(strstr(e.msg, "no installed font family \"Q\": it would be drawn in \"") == e.msg,
        "%s", e.msg);
    e = the_one_error(
        "gallop: 1\nstages:\n  - caption-burn: { font: \"Qzxq Grotesk, Wqxz Antiqua\" }\n", NULL,
        0);
    cr_expect(strstr(e.msg, "no installed font family in \"Qzxq Grotesk, Wqxz Antiqua\": ")
            == e.msg,
        "%s", e.msg);
}

/* A family of 800 KB is quoted as an excerpt and not compared with every
 * installed family (an edit distance costs the product of the lengths:
 * that took 2.7 s here; it takes 0.1 s). */
Test(fonts_captions_trust, a_huge_font_family_is_refused_quickly_and_quoted_in_part)
{
    GString *yaml = g_string_new("gallop: 1\nstages:\n  - caption-burn: { font: \"");
    gint64 start;
    gal_error e;

    for (int i = 0; i < 400000; i++)
        g_string_append(yaml, "Qz");
    g_string_append(yaml, "\" }\n");
    start = g_get_monotonic_time();
    e = the_one_error(yaml->str, NULL, 0);
    cr_expect_lt(g_get_monotonic_time() - start, 2 * G_USEC_PER_SEC, "took %.1f s",
        (g_get_monotonic_time() - start) / 1e6);
    cr_expect_str_eq(e.key, "caption-burn.font");
    cr_expect(strstr(e.msg, "QzQz\xe2\x80\xa6\": it would be drawn in \"") != NULL, "%s", e.msg);
    g_string_free(yaml, TRUE);
}

/* What Pango reads as a family with a style and size, generic families,
 * fontconfig's own spelling rules (no case, no blanks) and a list with one
 * installed family all load as before. */
Test(fonts_captions_trust, installed_generic_and_listed_families_load)
{
    static const char *const fonts[] = { "DejaVu Sans Bold 12", "Noto Sans CJK KR, Bold",
        "DejaVu Sans Mono Oblique", "dejavusans", "sans-serif Italic", "Serif", "monospace 10",
        "Bold 12", "Qzxq Grotesk, DejaVu Serif", "Noto Color Emoji", NULL };

    for (int i = 0; fonts[i]; i++) {
        g_autofree char *yaml = g_strdup_printf(
            "gallop: 1\nstages:\n  - caption-burn: { font: \"%s\" }\n"
            "  - watermark: { text: x, font: \"%s\" }\n",
            fonts[i], fonts[i]);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_preset *preset = gal_test_load(yaml, errs);
        char line[2048] = "";

        if (!preset && errs->count)
            gal_error_format(&errs->items[0], line, sizeof(line));
        cr_expect_not_null(preset, "%s: %s", fonts[i], line);
        gal_preset_free(preset);
    }
}

/* A --set font is checked as the preset's is, and its error names the
 * --set argument. */
Test(fonts_captions_trust, a_font_family_given_with_set_is_checked_too)
{
    const char *overrides[] = { "caption-burn.font=DejaVu Snas" };
    gal_error e = the_one_error("gallop: 1\nstages:\n  - caption-burn: { text: hi }\n",
        overrides, 1);

    cr_expect_str_eq(e.file, "--set caption-burn.font=DejaVu Snas");
    cr_expect_eq(e.line, 0);
    cr_expect_str_eq(e.key, "caption-burn.font");
    cr_expect(strstr(e.msg, "(did you mean \"DejaVu Sans\"") != NULL, "%s", e.msg);
}

/* The default is what the preset says when it says nothing (`gallop
 * check` prints font="DejaVu Sans"), so it is checked as well: without
 * it, at the stage. Fontconfig is pointed at a configuration with no
 * fonts (the test runs in a process of its own). */
Test(fonts_captions_trust, the_default_font_is_checked_and_reported_at_the_stage)
{
    g_autofree char *conf = file_beside_presets("no-fonts.conf",
        "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n"
        "<fontconfig></fontconfig>\n",
        -1);
    gal_error e;

    cr_assert_eq(setenv("FONTCONFIG_FILE", conf, 1), 0);
    e = the_one_error("gallop: 1\nstages:\n  - caption-burn: { text: hi }\n", NULL, 0);
    cr_expect_str_eq(e.key, "caption-burn.font");
    cr_expect_eq(e.line, 3, "line %d", e.line);
    cr_expect_eq(e.col, 5, "col %d", e.col);
    cr_expect_str_eq(e.msg, "no installed font family \"DejaVu Sans\": fontconfig finds no font "
                            "at all");
}

/* ---- a captions table or export that is not what it claims (item 2) ------------------- */

/* Every error loading `yaml`, formatted, one per line; the load must fail. */
static char *
all_errors(const char *yaml, int *count)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    GString *all = g_string_new(NULL);
    char line[2048];

    cr_assert_null(preset, "loaded but should not have:\n%s", yaml);
    for (int i = 0; i < errs->count; i++)
        g_string_append_printf(all, "%s\n", gal_error_format(&errs->items[i], line, sizeof(line)));
    *count = errs->count + errs->dropped;
    return g_string_free(all, FALSE);
}

/* passwd-like lines named as a table were reported line by line ("expected
 * a file name and a caption ..., got 1 cell" for each): a file whose first
 * row is no table's is refused in one line, whatever its name says, and
 * nothing of it is quoted. */
Test(fonts_captions_trust, a_table_that_is_no_table_is_refused_in_one_line_quoting_nothing)
{
    static const char *const names[] = { "captions.tsv", "captions.csv", "captions.txt", NULL };

    for (int i = 0; names[i]; i++) {
        g_autofree char *table = file_beside_presets(names[i], passwd_like, -1);
        g_autofree char *yaml = g_strdup_printf("gallop: 1\ncaptions: {table: %s}\n", table);
        gal_error e = the_one_error(yaml, NULL, 0);
        char line[2048];

        cr_expect_eq(e.code, GAL_ERR_PRESET);
        cr_expect_str_eq(e.key, "captions.table");
        cr_expect_str_eq(e.file, table);
        cr_expect_eq(e.line, 1, "%s: line %d", names[i], e.line);
        cr_expect_eq(e.col, 1, "%s: col %d", names[i], e.col);
        cr_expect(strstr(e.msg, "not a captions table: ") == e.msg, "%s", e.msg);
        expect_nothing_of_passwd(gal_error_format(&e, line, sizeof(line)));
    }
}

/* Once a file is a table (its header says so), its rows' errors name
 * their place and what they lack: not a cell, not a file name listed
 * twice, not a byte that is not UTF-8. */
Test(fonts_captions_trust, a_tables_row_errors_quote_none_of_its_cells)
{
    g_autofree char *body = g_strdup_printf("file\tcaption\n%s", passwd_like);
    g_autofree char *rows = file_beside_presets("rows.tsv", body, -1);
    g_autofree char *twice = file_beside_presets("twice.tsv",
        "file\tcaption\nroot:x:0:0.jpg\tone\nROOT:X:0:0.JPG\ttwo\n", -1);
    g_autofree char *latin1 = file_beside_presets("latin1.tsv", "a.jpg\tok\nb.jpg\tcaf\xe9\n", -1);
    g_autofree char *yaml = NULL;
    g_autofree char *errors = NULL;
    gal_error e;
    int count;

    yaml = g_strdup_printf("gallop: 1\ncaptions: {table: %s}\n", rows);
    errors = all_errors(yaml, &count);
    cr_expect_eq(count, 4, "%s", errors);
    cr_expect(strstr(errors, ":2:1: captions.table: expected a file name and a caption separated "
                             "by a tab, got 1 cell") != NULL,
        "%s", errors);
    expect_nothing_of_passwd(errors);

    g_free(yaml);
    yaml = g_strdup_printf("gallop: 1\ncaptions: {table: %s}\n", twice);
    e = the_one_error(yaml, NULL, 0);
    cr_expect_eq(e.line, 3);
    cr_expect_str_eq(e.msg, "this file name is listed twice (first at line 2)");

    g_free(yaml);
    yaml = g_strdup_printf("gallop: 1\ncaptions: {table: %s}\n", latin1);
    e = the_one_error(yaml, NULL, 0);
    cr_expect_eq(e.line, 2);
    cr_expect_eq(e.col, 10);
    cr_expect_str_eq(e.msg, "a byte that is not UTF-8 (save the file as UTF-8)");
}

/* The export the same: a file that does not begin as JSON is refused in
 * one line (it was "JSON: unexpected 'r'", the first letter of root), and
 * the JSON reader's errors name what they met. */
Test(fonts_captions_trust, an_export_that_is_no_json_is_refused_quoting_nothing)
{
    static const struct {
        const char *bytes, *msg;
        int line, col;
    } cases[] = {
        { passwd_like,
            "not an Instagram export: an export's posts_1.json is JSON, beginning with [ or {", 1,
            1 },
        { "\n  root:x:0:0:root:/root:/bin/bash\n",
            "not an Instagram export: an export's posts_1.json is JSON, beginning with [ or {", 2,
            3 },
        { "[root:x:0:0]", "JSON: unexpected letter", 1, 2 },
        { "[\"root\", :x]", "JSON: unexpected colon", 1, 10 },
        { "[\"ro\\qot\"]", "JSON: an unknown escape after a backslash", 1, 5 },
        { "[\"\\udc00t\"]", "JSON: a \\u escape of a lone surrogate", 1, 3 },
        { "[\xc3\xa9t\xc3\xa9]", "JSON: unexpected non-ASCII text", 1, 2 },
        { "[\x01]", "JSON: unexpected control character", 1, 2 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *name = g_strdup_printf("posts_%zu.json", i + 1);
        g_autofree char *path = file_beside_presets(name, cases[i].bytes, -1);
        g_autofree char *yaml = g_strdup_printf("gallop: 1\ncaptions: {instagram: %s}\n", path);
        gal_error e = the_one_error(yaml, NULL, 0);

        cr_expect_str_eq(e.key, "captions.instagram", "case %zu", i);
        cr_expect_str_eq(e.msg, cases[i].msg, "case %zu", i);
        cr_expect_eq(e.line, cases[i].line, "case %zu: line %d", i, e.line);
        cr_expect_eq(e.col, cases[i].col, "case %zu: col %d", i, e.col);
    }
}

/* ---- a run's seconds count loading its captions table (item 7) ----------------------- */

/* The clock started after the presets were loaded: a run over a 500,000-row
 * table said "in 0.03 s" after 1.3 s. Loading is part of the run now, so
 * its seconds are at least what loading took as the test measures it
 * around gal_preset_load (the load's own clock runs inside that span, and
 * the run adds its own time, far more than the span's edges). */
Test(fonts_captions_trust, a_runs_seconds_count_loading_its_captions_table)
{
    g_autofree char *dir = gal_test_tmpdir("load-clock");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *table = g_build_filename(dir, "captions.tsv", NULL);
    g_autofree char *path = gal_test_write_preset(dir, "big.yaml",
        "gallop: 1\ncaptions: {table: captions.tsv}\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    GString *tsv = g_string_new("file\tcaption\n");
    gal_load_options load = { .presets_dir = GAL_PRESETS_DIR };
    const char *inputs[] = { in };
    gal_run_options opts = { .inputs = inputs, .n_inputs = 1, .output_dir = out };
    gal_run_summary *summary = NULL;
    gal_preset *preset = NULL;
    const gal_preset *presets[1];
    gint64 before, after;

    for (int i = 0; i < 200000; i++)
        g_string_append_printf(tsv, "IMG_%06d.jpg\tCaption %d of the set, #tag @who\n", i, i);
    cr_assert(g_file_set_contents(table, tsv->str, (gssize) tsv->len, NULL));
    g_string_free(tsv, TRUE);
    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);

    before = g_get_monotonic_time();
    cr_assert_eq(gal_preset_load(path, &load, &preset, errs), 0, "%s",
        errs->count ? errs->items[0].msg : "");
    after = g_get_monotonic_time();
    presets[0] = preset;
    cr_assert_eq(gal_run_presets(presets, 1, &opts, &summary, errs), 0);
    cr_expect_geq(summary->seconds, (after - before) / 1e6,
        "the run says %.3f s; loading its table took %.3f s", summary->seconds,
        (after - before) / 1e6);
    cr_log_info("load %.3f s, run %.3f s in all", (after - before) / 1e6, summary->seconds);
    gal_run_summary_free(summary);
    gal_preset_free(preset);
}
