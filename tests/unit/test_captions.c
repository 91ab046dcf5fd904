/* Where captions come from: the order of the sources, each source's format
 * (sidecars, TSV and CSV tables, Instagram's export with its mojibake, EXIF,
 * XMP, IPTC), and the errors a broken table or export gives, with the
 * file:line:col of the fault. Photos and sources: fixtures/captions/. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>

#include "gal_test.h"

TestSuite(captions, .init = gal_test_setup, .fini = gal_test_teardown);

#define CAPTIONS_DIR GAL_FIXTURES_DIR "/captions"

static const char all_sources[] = "gallop: 1\n"
                                  "captions:\n"
                                  "  table: " CAPTIONS_DIR "/captions.tsv\n"
                                  "  instagram: " CAPTIONS_DIR "/instagram\n";

/* The first error loading `yaml` gives, formatted; the test fails if it loads. */
static char *
load_error(const char *yaml, gal_error *first)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    char line[2048];

    cr_assert_null(preset, "loaded but should not have:\n%s", yaml);
    cr_assert_gt(errs->count, 0);
    if (first)
        *first = errs->items[0];
    return g_strdup(gal_error_format(&errs->items[0], line, sizeof(line)));
}

typedef struct {
    char caption[1024];
    char source[32];  /* the kind of source */
    char detail[512]; /* the file it was in, for sidecars, tables and exports */
} resolved;

/* The caption of `path` as a run would find it (header, EXIF, sources). */
static resolved
resolve(const gal_preset *preset, const char *path)
{
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_facts facts;
    gal_error err = { 0 };
    resolved r = { "", "", "" };

    gal__facts_from_path(preset, path, 1, 1, &facts, strings);
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        cr_assert_eq(gal__photo_facts(preset, &(gal_photo_ref) { .path = path }, &facts, strings, &err), 0, "%s: %s", path,
            err.msg);
    else
        cr_assert_eq(gal__caption_resolve(preset->captions, &(gal_photo_ref) { .path = path }, NULL, &facts, strings, &err),
            0, "%s: %s", path, err.msg);
    g_strlcpy(r.caption, facts.caption ? facts.caption : "(none)", sizeof(r.caption));
    /* "sidecar:/path/IMG.txt" -> "sidecar"; the path is checked apart. */
    g_strlcpy(r.source, facts.caption_source ? facts.caption_source : "(none)",
        sizeof(r.source));
    r.source[strcspn(r.source, ":")] = '\0';
    g_strlcpy(r.detail, facts.caption_source && strchr(facts.caption_source, ':')
            ? strchr(facts.caption_source, ':') + 1 : "", sizeof(r.detail));
    return r;
}

static void
expect_caption(const gal_preset *preset, const char *file, const char *source,
    const char *caption)
{
    g_autofree char *path = g_build_filename(CAPTIONS_DIR, file, NULL);
    resolved r = resolve(preset, path);

    cr_expect_str_eq(r.source, source, "%s: source %s, expected %s", file, r.source, source);
    cr_expect_str_eq(r.caption, caption, "%s: caption \"%s\"", file, r.caption);
}

/* ---- precedence ----------------------------------------------------------------- */

Test(captions, first_source_with_a_caption_wins)
{
    gal_preset *preset = gal_test_load_ok(all_sources);

    expect_caption(preset, "sidecar-ext.jpg", "sidecar",
        "Sidecar beside the photo, named after it with .txt added");
    expect_caption(preset, "sidecar-stem.jpg", "sidecar",
        "Sidecar named after the stem: café — BOM and CRLF");
    expect_caption(preset, "table.jpg", "table",
        "Table caption with <b>markup</b> & an \"HTML\" <a "
        "href=\"http://example.com/a-b/c?d=e&f=g\">link</a>");
    expect_caption(preset, "insta.jpg", "instagram",
        "Café crème à Pyongyang — 고려식 상차림 #dprk 🏃‍♀️🇰🇵");
    expect_caption(preset, "exif.jpg", "exif", "Caption from EXIF ImageDescription");
    expect_caption(preset, "comment.jpg", "exif", "Caption from EXIF UserComment");
    expect_caption(preset, "xmp.jpg", "xmp", "Caption from XMP — <dc:description> & more");
    expect_caption(preset, "iptc.jpg", "iptc", "Caption from IPTC: Pyongyang, 평양");
    expect_caption(preset, "empty-sidecar.jpg", "exif", "EXIF caption under an empty sidecar");
    expect_caption(preset, "none.jpg", "(none)", "(none)");
    cr_expect_str_eq(resolve(preset, CAPTIONS_DIR "/sidecar-stem.jpg").detail,
        CAPTIONS_DIR "/sidecar-stem.txt", "the sidecar that was read");
    cr_expect_str_eq(resolve(preset, CAPTIONS_DIR "/table.jpg").detail,
        CAPTIONS_DIR "/captions.tsv");
    cr_expect_str_eq(resolve(preset, CAPTIONS_DIR "/insta.jpg").detail,
        CAPTIONS_DIR "/instagram/posts_1.json");
    cr_expect_str_eq(resolve(preset, CAPTIONS_DIR "/exif.jpg").detail, "");
    gal_preset_free(preset);
}

Test(captions, the_preset_sets_the_order)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n"
                                 "captions:\n"
                                 "  sources: [metadata, instagram, table, sidecar]\n"
                                 "  table: " CAPTIONS_DIR "/captions.tsv\n"
                                 "  instagram: " CAPTIONS_DIR "/instagram/posts_1.json\n");

    expect_caption(preset, "sidecar-ext.jpg", "exif", "EXIF caption of sidecar-ext");
    expect_caption(preset, "none.jpg", "(none)", "(none)");
    gal_preset_free(preset);

    preset = gal_test_load_ok("gallop: 1\n"
                     "captions:\n"
                     "  sources: [instagram, table]\n"
                     "  table: " CAPTIONS_DIR "/captions.tsv\n"
                     "  instagram: " CAPTIONS_DIR "/instagram/posts_1.json\n");
    expect_caption(preset, "sidecar-ext.jpg", "instagram", "Instagram caption of sidecar-ext");
    expect_caption(preset, "table.jpg", "instagram", "Instagram caption of table");
    expect_caption(preset, "sidecar-stem.jpg", "table", "Table caption of sidecar-stem");
    /* Not listed: never looked at. */
    expect_caption(preset, "exif.jpg", "(none)", "(none)");
    gal_preset_free(preset);

    preset = gal_test_load_ok("gallop: 1\ncaptions: { sources: [xmp, exif] }\n");
    expect_caption(preset, "iptc.jpg", "(none)", "(none)");
    expect_caption(preset, "xmp.jpg", "xmp", "Caption from XMP — <dc:description> & more");
    gal_preset_free(preset);

    preset = gal_test_load_ok("gallop: 1\ncaptions: { sources: [] }\n");
    expect_caption(preset, "exif.jpg", "(none)", "(none)");
    gal_preset_free(preset);
}

Test(captions, caption_template_field_uses_the_resolved_caption)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n"
                                 "captions: { table: " CAPTIONS_DIR "/captions.tsv }\n"
                                 "output: { name: \"{caption|untitled}.{ext}\" }\n");
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_facts facts;
    gal_error err = { 0 };
    g_autofree char *path = NULL;

    gal__facts_from_path(preset, CAPTIONS_DIR "/sidecar-stem.jpg", 1, 1, &facts, strings);
    cr_assert_eq(gal__photo_facts(preset, &(gal_photo_ref) { .path = CAPTIONS_DIR "/sidecar-stem.jpg" }, &facts, strings,
        &err), 0, "%s", err.msg);
    path = gal__output_path(preset->output, "/out", &facts, &err);
    cr_expect_str_eq(path, "/out/Sidecar named after the stem: café — BOM and CRLF.jpg");
    gal_preset_free(preset);
}

/* ---- tables ----------------------------------------------------------------------- */

Test(captions, table_rows_match_by_name_stem_and_any_case)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n"
                                 "captions: { sources: [table], table: " CAPTIONS_DIR
                                 "/captions.tsv }\n");
    resolved r;

    r = resolve(preset, "/nowhere/IMG_0042.JPG");
    cr_expect_str_eq(r.caption, "Matched by stem: the table gives no extension");
    r = resolve(preset, "/nowhere/upper.jpg");
    cr_expect_str_eq(r.caption, "Letter case does not matter");
    r = resolve(preset, "/elsewhere/deep.jpg");
    cr_expect_str_eq(r.caption, "Only the file name counts");
    r = resolve(preset, "/nowhere/blank.jpg");
    cr_expect_str_eq(r.source, "(none)", "an empty cell is no caption");
    gal_preset_free(preset);
}

Test(captions, csv_tables_quote_commas_quotes_and_line_breaks)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n"
                                 "captions: { sources: [table], table: " CAPTIONS_DIR
                                 "/captions.csv }\n");

    expect_caption(preset, "table.jpg", "table", "Comma, \"quotes\" and\na line break");
    cr_expect_str_eq(resolve(preset, "/x/csv-only.jpg").caption, "Plain CSV caption");
    gal_preset_free(preset);
}

static char *
write_file(const char *dir, const char *name, const char *bytes, gssize len)
{
    char *path = g_build_filename(dir, name, NULL);

    cr_assert(g_file_set_contents(path, bytes, len, NULL), "cannot write %s", path);
    return path;
}

/* Load a preset naming `file` as its table; the first error, formatted. */
static char *
table_error(const char *name, const char *bytes, gssize len, gal_error *first)
{
    g_autofree char *dir = gal_test_tmpdir("table");
    g_autofree char *path = write_file(dir, name, bytes, len);
    g_autofree char *yaml = g_strdup_printf("gallop: 1\ncaptions: {table: %s}\n", path);

    return load_error(yaml, first);
}

Test(captions, table_errors_name_the_table_line_and_column)
{
    gal_error e;
    g_autofree char *dup = table_error("t.tsv", "file\tcaption\na.jpg\tone\n\nA.JPG\ttwo\n", -1, &e);
    g_autofree char *short_row = NULL;
    g_autofree char *quote = NULL;
    g_autofree char *junk = NULL;
    g_autofree char *latin1 = NULL;
    g_autofree char *half_header = NULL;

    cr_expect(strstr(dup, "t.tsv:4:1: captions.table: this file name is listed twice (first at "
                          "line 2)"),
        "%s", dup);
    short_row = table_error("t.tsv", "a.jpg\tone\nb.jpg\n", -1, NULL);
    cr_expect(strstr(short_row, "t.tsv:2:1: captions.table: expected a file name and a caption "
                                "separated by a tab, got 1 cell"),
        "%s", short_row);
    quote = table_error("t.csv", "file,caption\na.jpg,\"never closed\n", -1, NULL);
    cr_expect(strstr(quote, "t.csv:2:7: captions.table: this quoted cell is never closed"), "%s",
        quote);
    junk = table_error("t.csv", "a.jpg,\"quoted\"x\n", -1, NULL);
    cr_expect(strstr(junk, "t.csv:1:15: captions.table: text after a closing quote"), "%s", junk);
    latin1 = table_error("t.tsv", "a.jpg\tok\nb.jpg\tcaf\xe9\n", -1, NULL);
    cr_expect(strstr(latin1, "t.tsv:2:10: captions.table: a byte that is not UTF-8"), "%s",
        latin1);
    half_header = table_error("t.tsv", "file\ttext\na.jpg\tone\n", -1, NULL);
    cr_expect(strstr(half_header, "t.tsv:1:1: captions.table: the header row names a file "
                                  "column but no caption column"),
        "%s", half_header);
}

/* Rows are located for their errors as the table is read, not each from the
 * top of the file: 20,000 rows took 7 s of CPU to load (found while writing
 * the fuzz targets, issue 12), 50,000 would take about 45. */
Test(captions, a_long_table_loads_in_linear_time)
{
    GString *tsv = g_string_new("file\tcaption\n");
    g_autofree char *msg = NULL;
    gint64 start;

    for (int i = 1; i <= 50000; i++)
        g_string_append_printf(tsv, "IMG_%05d.jpg\tCaption %d of the set, a line of text\n", i, i);
    g_string_append(tsv, "img_00007.JPG\tagain\n");
    start = g_get_monotonic_time();
    msg = table_error("long.tsv", tsv->str, (gssize) tsv->len, NULL);
    cr_expect(strstr(msg, "long.tsv:50002:1: captions.table: this file name is listed twice "
                          "(first at line 8)"),
        "%s", msg);
    cr_expect_lt(g_get_monotonic_time() - start, 10 * G_USEC_PER_SEC, "took %.1f s",
        (g_get_monotonic_time() - start) / 1e6);
    g_string_free(tsv, TRUE);
}

/* ---- the Instagram export ------------------------------------------------------------ */

Test(captions, instagram_export_decodes_to_the_right_text)
{
    gal_preset *preset = gal_test_load_ok(all_sources);
    resolved r;

    expect_caption(preset, "insta.jpg", "instagram",
        "Caf\xc3\xa9 cr\xc3\xa8me \xc3\xa0 Pyongyang \xe2\x80\x94 "
        "\xea\xb3\xa0\xeb\xa0\xa4\xec\x8b\x9d \xec\x83\x81\xec\xb0\xa8\xeb\xa6\xbc #dprk "
        "\xf0\x9f\x8f\x83\xe2\x80\x8d\xe2\x99\x80\xef\xb8\x8f\xf0\x9f\x87\xb0\xf0\x9f\x87\xb5");
    /* A post of two photos keeps its caption on the post. */
    r = resolve(preset, "/export/media/posts/201404/carousel-2.jpg");
    cr_expect_str_eq(r.caption, "Two photos, one caption: naïve “quotes” and ☕");
    /* Written correctly: left as it is; a surrogate pair is one character. */
    r = resolve(preset, "/x/latin.jpg");
    cr_expect_str_eq(r.caption, "café 🌏 1.5e3 \"quoted\" \\ back/slash\ttab");
    cr_expect_str_eq(resolve(preset, "/x/untitled.jpg").source, "(none)");
    gal_preset_free(preset);
}

Test(captions, mojibake_is_repaired_only_when_it_is_mojibake)
{
    g_autofree char *accent = gal__mojibake_repair("Caf\xc3\x83\xc2\xa9");     /* "CafÃ©" */
    g_autofree char *latin = gal__mojibake_repair("caf\xc3\xa9");              /* "café" */
    g_autofree char *ascii = gal__mojibake_repair("plain");
    g_autofree char *wide = gal__mojibake_repair("\xc3\x83\xc2\xa9 \xea\xb3\xa0"); /* with Hangul */

    cr_expect_str_eq(accent, "Café");
    cr_expect_str_eq(latin, "café", "real Latin-1 letters are not UTF-8 as bytes");
    cr_expect_str_eq(ascii, "plain");
    cr_expect_str_eq(wide, "\xc3\x83\xc2\xa9 \xea\xb3\xa0", "not mojibake: has a wide character");
}

static char *
json_error(const char *json)
{
    g_autofree char *dir = gal_test_tmpdir("json");
    g_autofree char *path = write_file(dir, "posts_1.json", json, -1);
    g_autofree char *yaml = g_strdup_printf("gallop: 1\ncaptions: {instagram: %s}\n", path);

    return load_error(yaml, NULL);
}

Test(captions, broken_exports_are_preset_errors_with_their_line_and_column)
{
    static const struct {
        const char *json, *expect;
    } cases[] = {
        { "[\n  {\"media\": [ {\"uri\": \"a.jpg\", \"title\": \"x\"}, ]}\n]",
            "posts_1.json:2:47: captions.instagram: JSON: unexpected closing bracket" },
        { "[{\"media\": [{\"uri\": \"a.jpg\", \"title\": \"open\n", 
            "posts_1.json:1:44: captions.instagram: JSON: a control character inside a string" },
        { "[{\"media\": [{\"uri\": \"a.jpg\", \"title\": \"open", 
            "posts_1.json:1:39: captions.instagram: JSON: this string is never closed" },
        { "[{\"title\": \"\\x41\"}]",
            "posts_1.json:1:13: captions.instagram: JSON: an unknown escape after a backslash" },
        { "[{\"title\": \"\\ud83d alone\"}]",
            "posts_1.json:1:13: captions.instagram: JSON: a \\u escape of a lone surrogate" },
        { "[{\"media\": []}] trailing", 
            "posts_1.json:1:17: captions.instagram: JSON: more text after the end of the document" },
        { "[{\"media\" []}]", "posts_1.json:1:11: captions.instagram: JSON: expected ':' after the key" },
        { "[01]", "posts_1.json:1:3: captions.instagram: JSON: expected ',' or ']'" },
        { "[tru]", "posts_1.json:1:2: captions.instagram: JSON: unexpected letter" },
        { "{\"posts\": 3}", "posts_1.json:1:1: captions.instagram: no posts found" },
        { "", "posts_1.json:1:1: captions.instagram: JSON: unexpected end of file" },
        { "[\"caf\xe9\"]", "posts_1.json:1:6: captions.instagram: a byte that is not UTF-8" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *msg = json_error(cases[i].json);

        cr_expect(strstr(msg, cases[i].expect), "case %zu: got %s\nexpected %s", i, msg,
            cases[i].expect);
    }
}

Test(captions, json_nesting_is_bounded)
{
    GString *deep = g_string_new(NULL);
    g_autofree char *msg = NULL;

    for (int i = 0; i < 100000; i++)
        g_string_append_c(deep, '[');
    msg = json_error(deep->str);
    cr_expect(strstr(msg, "posts_1.json:1:66: captions.instagram: JSON: nested deeper than 64 "
                          "levels"),
        "%s", msg);
    g_string_free(deep, TRUE);
}

Test(captions, an_export_folder_is_searched_for_posts_files)
{
    g_autofree char *dir = gal_test_tmpdir("export");
    g_autofree char *content = g_build_filename(dir, "your_instagram_activity", "content", NULL);
    g_autofree char *a = NULL;
    g_autofree char *b = NULL;
    g_autofree char *yaml = NULL;
    gal_preset *preset;

    cr_assert_eq(g_mkdir_with_parents(content, 0777), 0);
    a = write_file(content, "posts_1.json", "[{\"media\": [{\"uri\": \"m/one.jpg\", \"title\": "
        "\"first file\"}]}]", -1);
    b = write_file(content, "posts_2.json", "[{\"media\": [{\"uri\": \"m/one.jpg\", \"title\": "
        "\"second file\"}, {\"uri\": \"m/two.jpg\", \"title\": \"only here\"}]}]", -1);
    yaml = g_strdup_printf("gallop: 1\ncaptions: {instagram: %s}\n", dir);
    preset = gal_test_load_ok(yaml);
    cr_expect_str_eq(resolve(preset, "/p/one.jpg").caption, "first file",
        "files are read in name order; the first caption of a file wins");
    cr_expect_str_eq(resolve(preset, "/p/two.jpg").caption, "only here");
    gal_preset_free(preset);
}

/* ---- configuration errors -------------------------------------------------------------- */

Test(captions, sources_are_checked_by_name)
{
    gal_error e;
    g_autofree char *typo = load_error("gallop: 1\ncaptions:\n  sources: [sidecar, tabel]\n", &e);
    g_autofree char *twice = NULL;
    g_autofree char *both = NULL;
    g_autofree char *unused = NULL;
    g_autofree char *missing = NULL;

    cr_expect(strstr(typo, "captions.sources: unknown source \"tabel\" (did you mean \"table\"?)"),
        "%s", typo);
    cr_expect_eq(e.line, 3);
    cr_expect_eq(e.col, 12);
    twice = load_error("gallop: 1\ncaptions: {sources: [exif, EXIF]}\n", NULL);
    cr_expect(strstr(twice, "\"EXIF\" is listed twice"), "%s", twice);
    both = load_error("gallop: 1\ncaptions: {sources: [metadata, xmp]}\n", NULL);
    cr_expect(strstr(both, "metadata already stands for exif, xmp and iptc"), "%s", both);
    unused = load_error("gallop: 1\ncaptions: {sources: [sidecar], table: " CAPTIONS_DIR
                        "/captions.tsv}\n", &e);
    cr_expect(strstr(unused, "a table is given but \"table\" is not in captions.sources"), "%s",
        unused);
    cr_expect_eq(e.line, 2);
    missing = load_error("gallop: 1\ncaptions: {instagram: no-such-export}\n", NULL);
    cr_expect(strstr(missing, "captions.instagram: no such file or folder:"), "%s", missing);
}

Test(captions, a_sidecar_that_is_not_utf8_fails_its_photo_only)
{
    gal_preset *preset = gal_test_load_ok(all_sources);
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_facts facts;
    gal_error err = { 0 };
    char line[2048];

    gal__facts_from_path(preset, CAPTIONS_DIR "/bad-sidecar.jpg", 1, 1, &facts, strings);
    cr_assert_eq(gal__photo_facts(preset, &(gal_photo_ref) { .path = CAPTIONS_DIR "/bad-sidecar.jpg" }, &facts, strings,
                     &err), -1);
    cr_expect_eq(err.code, GAL_ERR_INPUT);
    gal_error_format(&err, line, sizeof(line));
    cr_expect(strstr(line, "bad-sidecar.jpg.txt:1:24 is not UTF-8 text (byte 0xe9); save it as "
                           "UTF-8"),
        "%s", line);
    gal_preset_free(preset);
}

/* The error a photo's caption sources give it, or "" when they give none. */
static char *
resolve_error(const char *path, const char *root, gboolean follow)
{
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_preset *preset = gal_test_load_ok("gallop: 1\n");
    gal_photo_ref photo = { path, root, follow };
    gal_facts facts = { 0 };
    gal_error err = { 0 };

    gal__caption_resolve(preset->captions, &photo, NULL, &facts, strings, &err);
    gal_preset_free(preset);
    return g_strdup(err.msg);
}

Test(captions, a_fifo_named_like_a_sidecar_is_never_read)
{
    g_autofree char *dir = gal_test_tmpdir("fifo");
    g_autofree char *photo = g_build_filename(dir, "p.jpg", NULL);
    g_autofree char *fifo = g_build_filename(dir, "p.jpg.txt", NULL);
    g_autofree char *stem = g_build_filename(dir, "p.txt", NULL);
    g_autofree char *msg = NULL;

    cr_assert_eq(mkfifo(fifo, 0600), 0);
    g_file_set_contents(stem, "from the stem sidecar", -1, NULL);
    msg = resolve_error(photo, dir, FALSE); /* would block forever on reading the FIFO */
    cr_expect(strstr(msg, "caption sidecar") && strstr(msg, "p.jpg.txt is a FIFO (named pipe)"),
        "%s", msg);
}

Test(captions, sidecars_of_the_wrong_kind_are_named_as_such)
{
    g_autofree char *dir = gal_test_tmpdir("sidecar-kinds");
    g_autofree char *album = g_build_filename(dir, "album", NULL);
    g_autofree char *secret = g_build_filename(dir, "secret.txt", NULL);
    struct {
        const char *photo, *make, *words;
    } cases[] = {
        { "folder.jpg", "folder", "is a folder" },
        { "zero.jpg", "/dev/zero", "is a device" },
        { "loop.jpg", "loop", "is a symbolic link loop" },
        { "out.jpg", "../secret.txt", "leads out of" },
        { "passwd.jpg", "/etc/passwd", "(--follow-symlinks follows it)" },
        { "big.jpg", "big", "larger than the 64 KiB a caption sidecar may be" },
    };

    cr_assert_eq(g_mkdir_with_parents(album, 0700), 0);
    g_file_set_contents(secret, "a secret", -1, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *photo = g_build_filename(album, cases[i].photo, NULL);
        g_autofree char *sidecar = g_strconcat(photo, ".txt", NULL);
        g_autofree char *msg = NULL;

        if (strcmp(cases[i].make, "folder") == 0)
            cr_assert_eq(g_mkdir_with_parents(sidecar, 0700), 0);
        else if (strcmp(cases[i].make, "loop") == 0)
            cr_assert_eq(symlink(cases[i].photo, sidecar), 0); /* "loop.jpg.txt" -> "loop.jpg" */
        else if (strcmp(cases[i].make, "big") == 0) {
            g_autofree char *text = g_strnfill(65 * 1024, 'a');

            g_file_set_contents(sidecar, text, -1, NULL);
        }
        else
            cr_assert_eq(symlink(cases[i].make, sidecar), 0);
        if (strcmp(cases[i].make, "loop") == 0)
            cr_assert_eq(symlink("loop.jpg.txt", photo), 0);
        msg = resolve_error(photo, album, FALSE);
        cr_expect(strstr(msg, cases[i].words) != NULL, "%s: \"%s\" not in: %s", cases[i].photo,
            cases[i].words, msg);
        cr_expect(strstr(msg, "root:") == NULL, "%s: the file's text leaked: %s", cases[i].photo,
            msg);
    }
    /* --follow-symlinks reads a sidecar linked from elsewhere. */
    {
        g_autofree char *photo = g_build_filename(album, "out.jpg", NULL);
        g_autofree char *msg = resolve_error(photo, album, TRUE);

        cr_expect_str_eq(msg, "");
    }
}

/* ---- embedded metadata ------------------------------------------------------------------- */

Test(captions, xmp_description_in_any_prefix_or_as_an_attribute)
{
    static const char alt[] =
        "<?xpacket begin='\xef\xbb\xbf' id='W5M0MpCehiHzreSzNTczkc9d'?>"
        "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
        "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
        "<rdf:Description rdf:about='' xmlns:purl='http://purl.org/dc/elements/1.1/'>"
        "<purl:description><rdf:Alt><rdf:li xml:lang='fr'>En fran&#231;ais</rdf:li>"
        "<rdf:li xml:lang='x-default'>Default &amp; first</rdf:li></rdf:Alt>"
        "</purl:description></rdf:Description></rdf:RDF></x:xmpmeta>"
        "<?xpacket end='w'?>\n      \n\0\0";
    static const char attr[] =
        "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
        "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
        "<rdf:Description xmlns:dc='http://purl.org/dc/elements/1.1/' "
        "dc:description='As an attribute'/></rdf:RDF></x:xmpmeta>";
    static const char other_ns[] =
        "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
        "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
        "<rdf:Description xmlns:dc='http://example.com/not-dublin-core/'>"
        "<dc:description>not Dublin Core</dc:description></rdf:Description></rdf:RDF>"
        "</x:xmpmeta>";
    g_autofree char *a = gal__xmp_description(alt, sizeof(alt) - 1);
    g_autofree char *b = gal__xmp_description(attr, sizeof(attr) - 1);
    g_autofree char *c = gal__xmp_description(other_ns, sizeof(other_ns) - 1);
    g_autofree char *d = gal__xmp_description("<broken", 7);

    cr_expect_str_eq(a, "Default & first");
    cr_expect_str_eq(b, "As an attribute");
    cr_expect_null(c);
    cr_expect_null(d);
}

/* XML allows text in CDATA sections; GMarkup hands them elsewhere unless
 * told to treat them as text (found writing the XMP fuzz seeds, issue 12). */
Test(captions, xmp_description_keeps_text_in_cdata_sections)
{
    static const char cdata[] =
        "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
        "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
        "<rdf:Description xmlns:dc='http://purl.org/dc/elements/1.1/'><dc:description>"
        "<rdf:Alt><rdf:li xml:lang='x-default'>Fish &amp; <![CDATA[<chips> & peas]]>!</rdf:li>"
        "</rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>";
    g_autofree char *caption = gal__xmp_description(cdata, sizeof(cdata) - 1);

    cr_expect_str_eq(caption, "Fish & <chips> & peas!");
}

Test(captions, iptc_caption_raw_or_in_photoshop_resources)
{
    /* 1:90 absent, so not declared UTF-8: these bytes are Windows-1252. */
    static const unsigned char raw[] = { 0x1c, 0x02, 0x78, 0x00, 0x05, 'c', 'a', 'f', 0xe9, '!' };
    static const unsigned char psd[] = { 'P', 'h', 'o', 't', 'o', 's', 'h', 'o', 'p', ' ', '3',
        '.', '0', 0, '8', 'B', 'I', 'M', 0x04, 0x04, 0, 0, 0, 0, 0, 14, 0x1c, 0x01, 0x5a, 0x00,
        0x03, 0x1b, '%', 'G', 0x1c, 0x02, 0x78, 0x00, 0x01, 'x', 0 };
    static const unsigned char truncated[] = { 0x1c, 0x02, 0x78, 0x00, 0x50, 'a' };
    g_autofree char *a = gal__iptc_caption(raw, sizeof(raw));
    g_autofree char *b = gal__iptc_caption(psd, sizeof(psd));
    g_autofree char *c = gal__iptc_caption(truncated, sizeof(truncated));

    cr_expect_str_eq(a, "café!");
    cr_expect_str_eq(b, "x");
    cr_expect_null(c, "a dataset longer than the block is ignored, not read past");
}
