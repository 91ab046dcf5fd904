/* `gallop run` with caption-burn, end to end: the shipped preset over the
 * trip set (every photo gets a band of a few lines, and nothing above the
 * band changes), the same bytes for -j 1 and -j 4, and captions from
 * sidecars, a table, an Instagram export and embedded metadata reaching
 * file names through {caption}. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(caption, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"
#define CAPTIONS_DIR GAL_FIXTURES_DIR "/captions"
#define TRIP_COUNT 23

/* Run gallop; the exit status, with stderr in *err (may be NULL). */
static int
run(const char *const *argv, char **err)
{
    g_autofree char *out = NULL;
    g_autofree char *local_err = NULL;
    int status = gal_test_spawn(argv, &out, &local_err);

    if (err)
        *err = g_steal_pointer(&local_err);
    return status;
}

/* First and last rows where two images of the same size differ (-1: none). */
static void
changed_rows(VipsImage *a, VipsImage *b, int *first, int *last)
{
    g_autoptr(VipsImage) diff = NULL;
    g_autoptr(VipsImage) absd = NULL;
    g_autoptr(VipsImage) cols = NULL;
    g_autoptr(VipsImage) rows = NULL;
    g_autoptr(VipsImage) sums = NULL;
    g_autoptr(VipsImage) memory = NULL;

    cr_assert_eq(vips_subtract(a, b, &diff, NULL), 0);
    cr_assert_eq(vips_abs(diff, &absd, NULL), 0);
    cr_assert_eq(vips_project(absd, &cols, &rows, NULL), 0);
    cr_assert_eq(vips_cast_double(rows, &sums, NULL), 0);
    memory = vips_image_copy_memory(sums);
    *first = *last = -1;
    for (int y = 0; y < memory->Ysize; y++) {
        double sum = 0;

        for (int band = 0; band < memory->Bands; band++)
            sum += ((double *) VIPS_IMAGE_ADDR(memory, 0, y))[band];
        if (sum > 0) {
            if (*first < 0)
                *first = y;
            *last = y;
        }
    }
}

/* Bright pixels (text) in rows [top, bottom] of `image`. */
static int
bright_pixels(VipsImage *image, int top, int bottom)
{
    g_autoptr(VipsImage) rows = NULL;
    g_autoptr(VipsImage) green = NULL;
    g_autoptr(VipsImage) bright = NULL;
    double avg;

    cr_assert_eq(vips_extract_area(image, &rows, 0, top, image->Xsize, bottom - top + 1, NULL), 0);
    cr_assert_eq(vips_extract_band(rows, &green, 1, NULL), 0);
    cr_assert_eq(vips_moreeq_const1(green, &bright, 200, NULL), 0);
    cr_assert_eq(vips_avg(bright, &avg, NULL), 0);
    return (int) (avg / 255 * rows->Xsize * rows->Ysize);
}

Test(caption, the_shipped_preset_captions_every_trip_photo)
{
    g_autofree char *dir = gal_test_tmpdir("caption-trip");
    g_autofree char *with_dir = g_build_filename(dir, "with", NULL);
    g_autofree char *without_dir = g_build_filename(dir, "without", NULL);
    /* PNG, no logo and no contact sheet: only the caption differs between
     * the two runs. */
    g_autofree char *with = gal_test_write_preset(dir, "with.yaml",
        "gallop: 1\nextends: instagram-portrait\n"
        "stages: [watermark: off, contact-sheet: off]\noutput: {format: png}\n");
    g_autofree char *without = gal_test_write_preset(dir, "without.yaml",
        "gallop: 1\nextends: instagram-portrait\n"
        "stages: [caption-burn: off, watermark: off, contact-sheet: off]\n"
        "output: {format: png}\n");
    const char *argv_with[] = { GAL_BINARY, "run", with, TRIP_DIR, "-o", with_dir, "-q", NULL };
    const char *argv_without[] = { GAL_BINARY, "run", without, TRIP_DIR, "-o", without_dir, "-q",
        NULL };
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) names = NULL;
    int heights[TRIP_COUNT], smallest = 10000, tallest = 0;

    cr_assert_eq(run(argv_with, &err), 0, "%s", err);
    cr_assert_eq(run(argv_without, NULL), 0);
    names = gal_test_list_dir(with_dir);
    cr_assert_eq(names->len, TRIP_COUNT);
    for (guint i = 0; i < names->len; i++) {
        g_autofree char *a_path = g_build_filename(with_dir, names->pdata[i], NULL);
        g_autofree char *b_path = g_build_filename(without_dir, names->pdata[i], NULL);
        g_autoptr(VipsImage) a_file = gal_test_load_image(a_path, TRUE);
        g_autoptr(VipsImage) b_file = gal_test_load_image(b_path, TRUE);
        /* Read more than once below: decode each once, into memory. */
        g_autoptr(VipsImage) a = vips_image_copy_memory(a_file);
        g_autoptr(VipsImage) b = vips_image_copy_memory(b_file);
        int first, last;

        cr_assert_not_null(a);
        cr_assert_not_null(b);
        cr_assert_eq(a->Xsize, 1080);
        cr_assert_eq(a->Ysize, 1350);
        changed_rows(a, b, &first, &last);
        cr_expect_geq(first, 0, "%s has no caption band", (char *) names->pdata[i]);
        cr_expect_eq(last, 1349, "%s: the band ends on the bottom row", (char *) names->pdata[i]);
        heights[i] = last - first + 1;
        cr_expect_gt(bright_pixels(a, first, last), 500, "%s: the band has text",
            (char *) names->pdata[i]);
        smallest = MIN(smallest, heights[i]);
        tallest = MAX(tallest, heights[i]);
    }
    /* max-lines 4 at 2.8% of 1350 px: bands of one to four lines, on the
     * font's line grid, so the line count can be read from the height:
     * trip-19 (Hangul) has the shortest caption, trip-23 the longest. */
    cr_expect_eq(heights[18], smallest, "trip-19's Hangul caption fits one line");
    cr_expect_eq(heights[22], tallest, "trip-23, the longest caption, is cut to the most lines");
    cr_assert_gt(tallest, smallest);
    cr_expect_eq((tallest - smallest) % 3, 0, "one to four lines: %d to %d rows", smallest,
        tallest);
    for (int i = 0; i < TRIP_COUNT; i++)
        cr_expect_eq((heights[i] - smallest) % ((tallest - smallest) / 3), 0,
            "trip-%02d: a band of %d rows is not a whole number of lines", i + 1, heights[i]);
}

Test(caption, captioned_outputs_are_the_same_bytes_for_any_jobs)
{
    g_autofree char *dir = gal_test_tmpdir("caption-jobs");
    g_autofree char *one = g_build_filename(dir, "one", NULL);
    g_autofree char *four = g_build_filename(dir, "four", NULL);
    const char *argv_one[] = { GAL_BINARY, "run", "instagram-portrait", TRIP_DIR, "-o", one,
        "-j", "1", "-q", NULL };
    const char *argv_four[] = { GAL_BINARY, "run", "instagram-portrait", TRIP_DIR, "-o", four,
        "-j", "4", "-q", NULL };
    g_autoptr(GPtrArray) names = NULL;
    g_autoptr(GPtrArray) names_four = NULL;

    cr_assert_eq(run(argv_one, NULL), 0);
    cr_assert_eq(run(argv_four, NULL), 0);
    names = gal_test_list_dir(one);
    names_four = gal_test_list_dir(four);
    cr_assert_geq(names->len, TRIP_COUNT, "the photos (and the preset's contact sheet)");
    cr_assert_eq(names_four->len, names->len);
    for (guint i = 0; i < names->len; i++) {
        g_autofree char *a = g_build_filename(one, names->pdata[i], NULL);
        g_autofree char *b = g_build_filename(four, names->pdata[i], NULL);
        gsize la, lb;
        g_autofree char *ca = gal_test_read_bytes(a, &la);
        g_autofree char *cb = gal_test_read_bytes(b, &lb);

        cr_expect(la == lb && memcmp(ca, cb, la) == 0, "%s differs between -j 1 and -j 4",
            (char *) names->pdata[i]);
    }
}

Test(caption, every_source_reaches_caption_in_file_names)
{
    g_autofree char *dir = gal_test_tmpdir("caption-sources");
    g_autofree char *out_dir = g_build_filename(dir, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(dir, "sources.yaml",
        "gallop: 1\n"
        "captions:\n"
        "  table: " CAPTIONS_DIR "/captions.tsv\n"
        "  instagram: " CAPTIONS_DIR "/instagram\n"
        "stages:\n"
        "  - caption-burn: {size: 6px, padding: 1px}\n"
        "output: {name: \"{stem}={caption|none}.{ext}\", format: png}\n");
    const char *argv[] = { GAL_BINARY, "run", preset, CAPTIONS_DIR, "-o", out_dir, NULL };
    static const char *const expected[] = {
        "comment=Caption from EXIF UserComment.png",
        "empty-sidecar=EXIF caption under an empty sidecar.png",
        "exif=Caption from EXIF ImageDescription.png",
        "insta=Café crème à Pyongyang — 고려식 상차림 #dprk 🏃‍♀️🇰🇵.png",
        "iptc=Caption from IPTC: Pyongyang, 평양.png",
        "none=none.png",
        "sidecar-ext=Sidecar beside the photo, named after it with .txt added.png",
        "sidecar-stem=Sidecar named after the stem: café — BOM and CRLF.png",
        "table=Table caption with <b>markup<_b> & an \"HTML\" <a "
        "href=\"http:__example.com_a-b_c?d=e&f=g\">link<_a>.png",
        "xmp=Caption from XMP — <dc:description> & more.png",
    };
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) names = NULL;

    /* bad-sidecar.jpg fails (its sidecar is Latin-1); every other photo is written. */
    cr_assert_eq(run(argv, &err), 1, "%s", err);
    cr_expect(strstr(err, "bad-sidecar.jpg: captions: caption sidecar ") != NULL, "%s", err);
    cr_expect(strstr(err, "bad-sidecar.jpg.txt:1:24 is not UTF-8 text (byte 0xe9)") != NULL, "%s",
        err);
    names = gal_test_list_dir(out_dir);
    cr_assert_eq(names->len, G_N_ELEMENTS(expected));
    for (guint i = 0; i < names->len; i++)
        cr_expect_str_eq(names->pdata[i], expected[i]);
}

Test(caption, html_in_a_caption_is_drawn_as_text)
{
    /* Caption 01 with the HTML link that came with it in the trip's data. */
    g_autofree char *dir = gal_test_tmpdir("caption-html");
    g_autofree char *out_dir = g_build_filename(dir, "out", NULL);
    g_autofree char *table = g_build_filename(dir, "captions.tsv", NULL);
    g_autofree char *preset = NULL;
    const char *argv[] = { GAL_BINARY, "run", NULL, TRIP_DIR "/trip-01.jpg", "-o", NULL, "-q",
        NULL };
    g_autofree char *err = NULL;
    g_autofree char *out_path = g_build_filename(out_dir, "trip-01.png", NULL);
    g_autoptr(VipsImage) out = NULL;

    cr_assert(g_file_set_contents(table,
        "file\tcaption\ntrip-01.jpg\tA #northkorea #wedding photo -- mandatory. <a "
        "href=\"http://www.huffingtonpost.ca/2014/04/23/"
        "canadian-runs-north-korean-marathon_n_5200828.html?utm_hp_ref=canada-british-columbia\" "
        "target=\"_blank\">Canadian Jen Loong</a> ran the 2014 Pyongyang Marathon & <b>more</b>\n",
        -1, NULL));
    preset = gal_test_write_preset(dir, "html.yaml",
        "gallop: 1\nextends: instagram-portrait\n"
        "captions: {table: captions.tsv}\n"
        "stages: [caption-burn: {max-lines: 0}, watermark: off, contact-sheet: off]\n"
        "output: {format: png}\n");
    argv[2] = preset;
    argv[5] = out_dir;
    cr_assert_eq(run(argv, &err), 0, "%s", err);
    out = gal_test_load_image(out_path, TRUE);
    cr_expect_eq(out->Ysize, 1350);
}

/* A 100 KB caption from a table failed the photo ("caption-burn: text
 * layout: text: invalid value (typically too big) ..."): it is cut after
 * max-lines and the photo written, as is a 100 KB text in the preset. */
Test(caption, a_100_kb_caption_is_cut_and_the_photo_written)
{
    g_autofree char *dir = gal_test_tmpdir("caption-huge");
    g_autofree char *out_dir = g_build_filename(dir, "out", NULL);
    g_autofree char *table = g_build_filename(dir, "captions.tsv", NULL);
    g_autoptr(GString) caption = g_string_new(NULL);
    g_autoptr(GString) rows = g_string_new("file\tcaption\n");
    g_autofree char *preset = NULL;
    g_autofree char *literal = NULL;
    const char *argv[] = { GAL_BINARY, "run", NULL, TRIP_DIR "/trip-01.jpg", "-o", NULL, "-q",
        NULL };
    g_autofree char *err = NULL;
    g_autofree char *out_path = g_build_filename(out_dir, "trip-01.png", NULL);
    g_autoptr(VipsImage) loaded = NULL;
    g_autoptr(VipsImage) out = NULL;

    while (caption->len < 100 * 1024)
        g_string_append(caption, "Ran the #pyongyang marathon with 800 #runners, 200 of them "
                                 "foreigners; a long caption pasted whole. ");
    g_string_append_printf(rows, "trip-01.jpg\t%s\n", caption->str);
    cr_assert(g_file_set_contents(table, rows->str, -1, NULL));
    /* The table's caption at the bottom, the same text written in the preset at the top. */
    literal = g_strdup_printf("gallop: 1\nextends: instagram-portrait\n"
                              "captions: {table: captions.tsv}\n"
                              "stages: [caption-burn: {max-lines: 3}, watermark: off, "
                              "contact-sheet: off, caption-burn: {text: \"%s\", gravity: north, "
                              "max-lines: 2}]\n"
                              "output: {format: png}\n",
        caption->str);
    preset = gal_test_write_preset(dir, "huge.yaml", literal);
    argv[2] = preset;
    argv[5] = out_dir;
    cr_assert_eq(run(argv, &err), 0, "%.300s", err);
    /* Read more than once below: decode it once, into memory. */
    loaded = gal_test_load_image(out_path, TRUE);
    out = vips_image_copy_memory(loaded);
    cr_assert_not_null(out);
    cr_expect_eq(out->Xsize, 1080);
    cr_expect_eq(out->Ysize, 1350);
    /* Text at the top and at the bottom, none in the middle. */
    cr_expect_gt(bright_pixels(out, 0, 100), 100);
    cr_expect_gt(bright_pixels(out, 1250, 1349), 100);
}

Test(caption, check_shows_where_captions_come_from)
{
    g_autofree char *dir = gal_test_tmpdir("caption-check");
    g_autofree char *preset = gal_test_write_preset(dir, "check.yaml",
        "gallop: 1\ncaptions: {table: " CAPTIONS_DIR "/captions.tsv, instagram: " CAPTIONS_DIR
        "/instagram}\nstages: [caption-burn: {}]\n");
    const char *argv[] = { GAL_BINARY, "check", preset, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "%s", err);
    cr_expect(strstr(out, "\ncaptions sources=[sidecar, table, instagram, metadata] table=") !=
            NULL,
        "%s", out);
    cr_expect(strstr(out, "(table: 7 rows) (instagram: 7 media in 1 files)") != NULL, "%s", out);
    cr_expect(strstr(out, "1. caption-burn  text=\"{caption}\"") != NULL, "%s", out);
}

/* A caption cut at max-lines is said per photo (its "wrote" line) and
 * counted in the summary line and the JSON summary event. */
Test(caption, a_cut_caption_is_said_per_photo_and_counted_in_the_summary)
{
    g_autofree char *tmp = gal_test_tmpdir("caption-cut-log");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *json_dir = g_build_filename(tmp, "json", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "cut.yaml",
        "gallop: 1\nstages:\n  - resize: { width: 320 }\n"
        "  - caption-burn: { size: 16px, max-lines: 1 }\n");
    static const char *const names[] = { "long-1", "long-2", "short" };
    static const char *const captions[] = {
        "A caption far too long for one line of a small photo, so the band cuts it short",
        "Another caption far too long for one line of a small photo, cut as well #cut",
        "Short" };
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-j", "1", NULL };
    const char *json_argv[] = { GAL_BINARY, "run", preset, in, "-o", json_dir, "--log", "json",
        NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *bytes = NULL;
    gsize len;

    g_mkdir_with_parents(in, 0777);
    cr_assert(g_file_get_contents(TRIP_DIR "/trip-01.jpg", &bytes, &len, NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *photo = g_strdup_printf("%s/%s.jpg", in, names[i]);
        g_autofree char *sidecar = g_strdup_printf("%s/%s.txt", in, names[i]);

        cr_assert(g_file_set_contents(photo, bytes, (gssize) len, NULL));
        cr_assert(g_file_set_contents(sidecar, captions[i], -1, NULL));
    }
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "%s", err);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *line = g_strdup_printf("wrote  %s/%s.jpg (", out_dir, names[i]);
        const char *at = strstr(out, line);
        g_autofree char *rest = at ? g_strndup(at, strcspn(at, "\n")) : NULL;

        cr_assert_not_null(at, "no line for %s in:\n%s", names[i], out);
        if (i < 2)
            cr_expect(strstr(rest, "caption cut at caption-burn.max-lines") != NULL, "%s", rest);
        else
            cr_expect_null(strstr(rest, "caption cut"), "%s", rest);
    }
    cr_expect(strstr(err, "; 2 captions cut at caption-burn.max-lines") != NULL, "%s", err);

    g_clear_pointer(&out, g_free);
    g_clear_pointer(&err, g_free);
    cr_assert_eq(gal_test_spawn(json_argv, &out, &err), 0, "%s", err);
    cr_expect(strstr(err, "\"captions_cut\":2") != NULL, "%s", err);
}
