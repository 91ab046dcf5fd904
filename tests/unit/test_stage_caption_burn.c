/* The caption-burn stage on synthetic photos: where the band goes and how
 * tall it is (line counts are read back from its height), what it records
 * in the job, captions that are empty, invisible, markup, Hangul, emoji or
 * right to left, and photos with alpha. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gal_test.h"

TestSuite(stage_caption_burn, .init = gal_test_setup, .fini = gal_test_teardown);

/* A flat sRGB photo of one grey level (3 bands, or 4 with an opaque alpha). */
static VipsImage *
flat_photo(int width, int height, int level, int bands)
{
    VipsImage *black, *grey, *out;

    cr_assert_eq(vips_black(&black, width, height, "bands", bands, NULL), 0);
    cr_assert_eq(vips_linear1(black, &grey, 1, level, "uchar", TRUE, NULL), 0);
    if (bands == 4) {
        double scale[4] = { 1, 1, 1, 0 }, offset[4] = { level, level, level, 255 };
        VipsImage *alpha;

        g_object_unref(grey);
        cr_assert_eq(vips_linear(black, &alpha, scale, offset, 4, "uchar", TRUE, NULL), 0);
        grey = alpha;
    }
    cr_assert_eq(vips_copy(grey, &out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    g_object_unref(black);
    g_object_unref(grey);
    return out;
}

typedef struct {
    VipsImage *image;         /* in memory */
    /* What the stage left on its image (GAL_META_*). */
    int reserved_top, reserved_bottom;
    gboolean caption_cut;
} burnt;

/* Run caption-burn, configured by `opts` (a flow mapping), over `photo`
 * (borrowed) with `caption` as the photo's caption. */
static burnt
burn(const char *opts, const char *caption, VipsImage *photo)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - caption-burn: %s\n", opts);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    const gal_stage_instance *st;
    gal_stage_ctx sc;
    gal_error err = { 0 };
    VipsImage *out = NULL;
    gal_facts facts = { .caption = caption };
    gal_photo in = { &facts, NULL };
    burnt b = { NULL, 0, 0, FALSE };

    cr_assert_not_null(preset, "preset did not load: %s", errs->count ? errs->items[0].msg : "");
    st = &g_array_index(preset->stages, gal_stage_instance, 0);
    sc = gal__stage_ctx(st);
    cr_assert_eq(st->def->build(&sc, &in, photo, &out, &err), 0, "%s", err.msg);
    b.reserved_top = gal__meta_int(out, GAL_META_RESERVED_TOP);
    b.reserved_bottom = gal__meta_int(out, GAL_META_RESERVED_BOTTOM);
    b.caption_cut = gal__meta_int(out, GAL_META_CAPTION_CUT) != 0;
    b.image = vips_image_copy_memory(out);
    cr_assert_not_null(b.image);
    g_object_unref(out);
    gal_preset_free(preset);
    return b;
}

/* Rows where `a` and `b` differ: first and last (-1 when none). */
static void
changed_rows(VipsImage *a, VipsImage *b, int *first, int *last)
{
    g_autoptr(VipsImage) diff = NULL;
    g_autoptr(VipsImage) absd = NULL;
    g_autoptr(VipsImage) cols = NULL;
    g_autoptr(VipsImage) rows = NULL;
    double *v;
    int n;

    cr_assert_eq(vips_subtract(a, b, &diff, NULL), 0);
    cr_assert_eq(vips_abs(diff, &absd, NULL), 0);
    cr_assert_eq(vips_project(absd, &cols, &rows, NULL), 0);
    *first = *last = -1;
    for (int y = 0; y < rows->Ysize; y++) {
        double sum = 0;

        cr_assert_eq(vips_getpoint(rows, &v, &n, 0, y, NULL), 0);
        for (int i = 0; i < n; i++)
            sum += v[i];
        g_free(v);
        if (sum > 0) {
            if (*first < 0)
                *first = y;
            *last = y;
        }
    }
}

/* Height of the band drawn over a flat photo (0 when none). */
static int
band_height(VipsImage *photo, VipsImage *out)
{
    int first, last;

    changed_rows(photo, out, &first, &last);
    return first < 0 ? 0 : last - first + 1;
}

static const char long_caption[] =
    "That time I ran through the streets of #pyongyang unguided amongst 800 #runners (200 of "
    "whom were foreigners) for the Pyongyang #Marathon. Fascinating warmth and curiosity "
    "amongst the streets, equally as weird to wave and run the whole race as if you're the "
    "oddest thing they have ever seen. Fair to assume first time @Lululemon showed up in "
    "#northkorea too!";

Test(stage_caption_burn, band_sits_on_the_bottom_edge_and_is_reserved)
{
    g_autoptr(VipsImage) photo = flat_photo(600, 800, 255, 3);
    burnt b = burn("{size: 20px, padding: 10px}", "A caption", photo);
    int first, last;

    changed_rows(photo, b.image, &first, &last);
    cr_expect_eq(last, 799, "the band reaches the bottom row");
    cr_expect_eq(b.reserved_bottom, 800 - first, "reserved %d, band from row %d",
        b.reserved_bottom, first);
    cr_expect_eq(b.reserved_top, 0);
    cr_expect_not(b.caption_cut);
    cr_expect_eq(b.image->Bands, 3, "an opaque photo stays opaque");
    cr_expect_eq(b.image->Xsize, 600);
    cr_expect_eq(b.image->Ysize, 800);
    g_object_unref(b.image);

    b = burn("{size: 20px, padding: 10px, gravity: north}", "A caption", photo);
    changed_rows(photo, b.image, &first, &last);
    cr_expect_eq(first, 0);
    cr_expect_eq(b.reserved_top, last + 1);
    cr_expect_eq(b.reserved_bottom, 0);
    g_object_unref(b.image);
}

Test(stage_caption_burn, a_centred_band_sits_in_the_middle_and_reserves_nothing)
{
    g_autoptr(VipsImage) photo = flat_photo(600, 800, 255, 3);
    burnt b = burn("{size: 20px, padding: 10px, gravity: centre}", "A caption", photo);
    int first, last, height;

    changed_rows(photo, b.image, &first, &last);
    height = last - first + 1;
    cr_assert_gt(height, 20, "a band is drawn");
    cr_expect_leq(abs(first - (800 - height) / 2), 1, "band rows %d..%d on 800", first, last);
    cr_expect_eq(b.reserved_top, 0);
    cr_expect_eq(b.reserved_bottom, 0);
    g_object_unref(b.image);
}

Test(stage_caption_burn, a_second_band_stacks_above_the_first)
{
    g_autoptr(VipsImage) photo = flat_photo(600, 800, 255, 3);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\nstages:\n"
                                       "  - caption-burn: {size: 20px, padding: 10px}\n"
                                       "  - caption-burn: {text: \"© {artist}\", size: 20px, "
                                       "padding: 10px, band: \"#ff0000\"}\n",
        errs);
    gal_facts facts = { .caption = "Caption", .artist = "Jen Loong" };
    gal_photo in = { &facts, NULL };
    gal_error err = { 0 };
    VipsImage *current = g_object_ref(photo);
    g_autoptr(VipsImage) memory = NULL;
    int first_band = 0, first, last, reserved;

    cr_assert_not_null(preset);
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        gal_stage_ctx sc = gal__stage_ctx(st);
        VipsImage *next;

        cr_assert_eq(st->def->build(&sc, &in, current, &next, &err), 0, "%s", err.msg);
        g_object_unref(current);
        current = next;
        if (i == 0)
            first_band = gal__meta_int(current, GAL_META_RESERVED_BOTTOM);
    }
    reserved = gal__meta_int(current, GAL_META_RESERVED_BOTTOM);
    memory = vips_image_copy_memory(current);
    g_object_unref(current);
    changed_rows(photo, memory, &first, &last);
    cr_expect_eq(first, 800 - reserved);
    cr_expect_eq(reserved, 2 * first_band, "two one-line bands, one above the other");
    {
        /* The red band is the upper one. */
        double *v;
        int n;

        cr_assert_eq(vips_getpoint(memory, &v, &n, 2, first + 2, NULL), 0);
        cr_expect_eq(v[0], 255);
        cr_expect_eq(v[1], 0);
        g_free(v);
    }
    gal_preset_free(preset);
}

Test(stage_caption_burn, line_count_and_ellipsis_read_from_the_band_height)
{
    g_autoptr(VipsImage) photo = flat_photo(600, 2000, 255, 3);
    int height[6], pitch;
    burnt b;

    /* One line: the height every band adds lines to. */
    b = burn("{size: 20px, padding: 10px, max-lines: 1}", "One line", photo);
    height[0] = band_height(photo, b.image);
    g_object_unref(b.image);
    for (int k = 1; k <= 5; k++) {
        g_autofree char *opts =
            g_strdup_printf("{size: 20px, padding: 10px, max-lines: %d}", k);

        b = burn(opts, long_caption, photo);
        height[k] = band_height(photo, b.image);
        cr_expect(b.caption_cut, "%d lines cut the caption", k);
        g_object_unref(b.image);
    }
    cr_expect_eq(height[1], height[0], "a cut one-line caption has a one-line band");
    pitch = height[2] - height[1];
    cr_expect_gt(pitch, 18, "line pitch %d px for 20 px text", pitch);
    cr_expect_lt(pitch, 30);
    for (int k = 2; k <= 5; k++)
        cr_expect_eq(height[k], height[1] + (k - 1) * pitch,
            "max-lines %d: band %d px is %d lines", k, height[k],
            1 + (height[k] - height[1] + pitch / 2) / pitch);

    /* No limit: all of it, more than 5 lines at 600 px, and not cut. */
    b = burn("{size: 20px, padding: 10px, max-lines: 0}", long_caption, photo);
    cr_expect_gt(band_height(photo, b.image), height[5]);
    cr_expect_eq((band_height(photo, b.image) - height[1]) % pitch, 0);
    cr_expect_not(b.caption_cut);
    g_object_unref(b.image);
}

Test(stage_caption_burn, the_band_never_covers_more_than_half_the_photo)
{
    g_autoptr(VipsImage) photo = flat_photo(300, 200, 255, 3);
    burnt b = burn("{size: 20px, padding: 5px, max-lines: 0}", long_caption, photo);

    cr_expect_leq(band_height(photo, b.image), 100);
    cr_expect(b.caption_cut);
    g_object_unref(b.image);
}

Test(stage_caption_burn, no_caption_no_band)
{
    g_autoptr(VipsImage) photo = flat_photo(400, 300, 128, 3);
    static const char *const nothing[] = { NULL, "", "   \n\t ", "\xe2\x80\x8b\xe2\x81\xa0" };

    for (size_t i = 0; i < G_N_ELEMENTS(nothing); i++) {
        burnt b = burn("{}", nothing[i], photo);

        cr_expect_eq(band_height(photo, b.image), 0, "case %zu draws a band", i);
        cr_expect_eq(b.reserved_bottom, 0);
        cr_expect_not(b.caption_cut);
        g_object_unref(b.image);
    }
}

Test(stage_caption_burn, a_default_in_the_template_stands_in_for_no_caption)
{
    g_autoptr(VipsImage) photo = flat_photo(400, 300, 128, 3);
    burnt b = burn("{text: \"{caption|untitled}\"}", NULL, photo);

    cr_expect_gt(band_height(photo, b.image), 0);
    g_object_unref(b.image);
}

/* Bright pixels in the band of a dark photo: the text's ink. */
static int
ink_pixels(VipsImage *image, int left, int width)
{
    g_autoptr(VipsImage) area = NULL;
    g_autoptr(VipsImage) grey = NULL;
    g_autoptr(VipsImage) bright = NULL;
    double avg;

    cr_assert_eq(vips_extract_area(image, &area, left, 0, width, image->Ysize, NULL), 0);
    cr_assert_eq(vips_extract_band(area, &grey, 1, NULL), 0);
    cr_assert_eq(vips_moreeq_const1(grey, &bright, 128, NULL), 0);
    cr_assert_eq(vips_avg(bright, &avg, NULL), 0);
    return (int) (avg / 255.0 * width * image->Ysize + 0.5);
}

Test(stage_caption_burn, markup_characters_are_drawn_literally)
{
    g_autoptr(VipsImage) photo = flat_photo(800, 600, 0, 3);
    burnt plain = burn("{size: 24px}", "a b", photo);
    burnt markup = burn("{size: 24px}", "a <span foreground=\"red\">&amp;</span> <b>b</b> "
                                        "<a href=\"http://x\">x</a>", photo);
    burnt stray = burn("{size: 24px}", "< & > &bogus; </span>", photo);

    cr_expect_gt(ink_pixels(markup.image, 0, 800), 6 * ink_pixels(plain.image, 0, 800),
        "the tags are drawn, not obeyed");
    cr_expect_gt(ink_pixels(stray.image, 0, 800), 0);
    g_object_unref(plain.image);
    g_object_unref(markup.image);
    g_object_unref(stray.image);
}

Test(stage_caption_burn, hangul_and_emoji_only_captions_have_ink)
{
    g_autoptr(VipsImage) photo = flat_photo(640, 640, 0, 3);
    burnt hangul = burn("{band: none}", "고려식 상차림", photo);
    burnt emoji = burn("{band: none}", "🏃‍♀️🇰🇵☕", photo);

    cr_expect_gt(ink_pixels(hangul.image, 0, 640), 300, "Hangul has ink");
    cr_expect_gt(band_height(photo, emoji.image), 0, "an emoji-only caption is drawn");
    cr_expect_gt(emoji.reserved_bottom, 0);
    g_object_unref(hangul.image);
    g_object_unref(emoji.image);
}

Test(stage_caption_burn, right_to_left_captions_start_on_the_right)
{
    g_autoptr(VipsImage) photo = flat_photo(800, 400, 0, 3);
    burnt hebrew = burn("{size: 24px, band: none}", "שלום עולם", photo);
    burnt latin = burn("{size: 24px, band: none}", "Hello world", photo);
    burnt right = burn("{size: 24px, band: none, align: right}", "שלום עולם", photo);

    cr_expect_gt(ink_pixels(hebrew.image, 400, 400), 0);
    cr_expect_eq(ink_pixels(hebrew.image, 0, 400), 0, "left is where Hebrew starts: the right");
    cr_expect_eq(ink_pixels(latin.image, 400, 400), 0);
    cr_expect_eq(ink_pixels(right.image, 400, 400), 0, "and right is the other side");
    g_object_unref(hebrew.image);
    g_object_unref(latin.image);
    g_object_unref(right.image);
}

Test(stage_caption_burn, band_colour_and_text_colour_are_applied)
{
    g_autoptr(VipsImage) photo = flat_photo(400, 300, 255, 3);
    burnt b = burn("{size: 20px, padding: 8px, band: \"#000000\", color: \"#ff0000\"}", "MMMM",
        photo);
    double *v;
    int n, first, last;

    changed_rows(photo, b.image, &first, &last);
    cr_assert_eq(vips_getpoint(b.image, &v, &n, 1, first + 1, NULL), 0);
    cr_expect_eq(v[0] + v[1] + v[2], 0, "opaque black band");
    g_free(v);
    {
        /* Pure red ink somewhere in the band. */
        g_autoptr(VipsImage) band = NULL;
        g_autoptr(VipsImage) red = NULL;
        double max;

        cr_assert_eq(vips_extract_area(b.image, &band, 0, first, 400, last - first + 1, NULL), 0);
        cr_assert_eq(vips_extract_band(band, &red, 0, NULL), 0);
        cr_assert_eq(vips_max(red, &max, NULL), 0);
        cr_expect_eq(max, 255);
    }
    g_object_unref(b.image);
}

Test(stage_caption_burn, photos_with_alpha_keep_it)
{
    g_autoptr(VipsImage) photo = flat_photo(400, 300, 255, 4);
    burnt b = burn("{size: 20px}", "With alpha", photo);

    cr_expect_eq(b.image->Bands, 4);
    cr_expect_gt(band_height(photo, b.image), 0);
    g_object_unref(b.image);
}

Test(stage_caption_burn, tiny_photos_get_no_band_and_no_error)
{
    g_autoptr(VipsImage) photo = flat_photo(16, 12, 255, 3);
    burnt b = burn("{size: 20px}", long_caption, photo);

    cr_expect_eq(band_height(photo, b.image), 0);
    cr_expect(b.caption_cut, "the caption could not be shown: that is a cut");
    g_object_unref(b.image);
}

/* long_caption repeated to 100 KB. */
static char *
huge_caption(void)
{
    GString *s = g_string_new(NULL);

    while (s->len < 100 * 1024) {
        g_string_append(s, long_caption);
        g_string_append_c(s, ' ');
    }
    return g_string_free(s, FALSE);
}

/* A 100 KB caption (a table's, a sidecar's) or text in the preset: laid
 * out whole it would be taller than Cairo's largest surface, and failed
 * every photo ("text layout: text: invalid value"). It is cut after
 * max-lines, as a short one is, and quickly. */
Test(stage_caption_burn, a_100_kb_caption_is_cut_after_max_lines, .timeout = 60)
{
    g_autoptr(VipsImage) photo = flat_photo(800, 1000, 255, 3);
    g_autofree char *huge = huge_caption();
    g_autofree char *literal = g_strdup_printf(
        "{text: \"%s\", size: 20px, padding: 10px, max-lines: 3}", huge);
    const char *opts = "{size: 20px, padding: 10px, max-lines: 3}";
    burnt b = burn(opts, long_caption, photo);
    int three_lines = band_height(photo, b.image);
    gint64 start = g_get_monotonic_time();

    cr_expect(b.caption_cut);
    g_object_unref(b.image);
    b = burn(opts, huge, photo);
    cr_expect_lt(g_get_monotonic_time() - start, 3000000, "a 100 KB caption takes seconds");
    cr_expect_eq(band_height(photo, b.image), three_lines);
    cr_expect(b.caption_cut);
    g_object_unref(b.image);

    b = burn(literal, NULL, photo);
    cr_expect_eq(band_height(photo, b.image), three_lines);
    g_object_unref(b.image);

    /* No line limit: half the photo at most, as for any long caption. */
    b = burn("{size: 20px, padding: 10px, max-lines: 0}", huge, photo);
    cr_expect_leq(band_height(photo, b.image), 500);
    cr_expect_gt(band_height(photo, b.image), 400);
    cr_expect(b.caption_cut);
    g_object_unref(b.image);
}

Test(stage_caption_burn, a_font_file_beside_the_preset)
{
    g_autoptr(VipsImage) photo = flat_photo(400, 300, 0, 3);
    burnt b = burn("{font: /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf}", "Bold",
        photo);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_expect_gt(band_height(photo, b.image), 0);
    g_object_unref(b.image);
    cr_expect_null(gal_test_load("gallop: 1\nstages:\n  - caption-burn: {font: missing.ttf}\n",
        errs));
    cr_assert_eq(errs->count, 1);
    cr_expect(strstr(errs->items[0].msg, "font file not found") != NULL, "%s",
        errs->items[0].msg);
    cr_expect_str_eq(errs->items[0].key, "caption-burn.font");
}

/* A font file is read within the preset's folder, as every file it names:
 * a link there to a file elsewhere is refused (gal_test_load reads
 * presets as if from GAL_TEST_TMP). */
Test(stage_caption_burn, a_font_link_out_of_the_presets_folder_is_refused)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *name = g_strdup_printf("linked-%d.ttf", (int) getpid());
    g_autofree char *link = g_build_filename(GAL_TEST_TMP, name, NULL);
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\nstages:\n  - caption-burn: {font: %s}\n", name);

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    unlink(link);
    cr_assert_eq(symlink("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", link), 0);
    cr_expect_null(gal_test_load(yaml, errs));
    cr_assert_eq(errs->count, 1);
    cr_expect_str_eq(errs->items[0].key, "caption-burn.font");
    cr_expect(strstr(errs->items[0].msg, "is reached through a symbolic link that leads out of")
            != NULL, "%s", errs->items[0].msg);
    unlink(link);
}

Test(stage_caption_burn, keys_are_checked_at_load)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_expect_null(gal_test_load("gallop: 1\nstages:\n"
                                 "  - caption-burn: {text: \"{captoin}\", gravity: east, "
                                 "max-lines: -1, band: grey}\n",
        errs));
    cr_expect_eq(errs->count, 4);
    cr_expect(strstr(errs->items[0].msg, "did you mean \"{caption}\"") != NULL, "%s",
        errs->items[0].msg);
}

/* What the photo shows of its caption travels on the image (for the run
 * report); the files the caption could come from are the engine's to
 * record, from the captions section. */
Test(stage_caption_burn, the_image_carries_the_caption_shown_and_its_cut)
{
    g_autoptr(VipsImage) photo = flat_photo(600, 400, 128, 3);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\n"
                                       "captions: {table: " GAL_FIXTURES_DIR "/captions/captions.tsv}\n"
                                       "stages:\n"
                                       "  - caption-burn: {max-lines: 1}\n"
                                       "  - caption-burn: {text: \"© {artist}\", gravity: north}\n",
        errs);
    gal_facts facts = { .caption = long_caption, .caption_source = "table:/t.tsv",
        .artist = "Jen Loong" };
    gal_photo in = { &facts, NULL };
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    gal_error err = { 0 };
    VipsImage *current = g_object_ref(photo);
    const char *shown = NULL;

    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        gal_stage_ctx sc = gal__stage_ctx(st);
        VipsImage *next;

        cr_assert_eq(st->def->build(&sc, &in, current, &next, &err), 0, "%s", err.msg);
        g_object_unref(current);
        current = next;
    }
    /* The credit line is not the caption: the first stage's record stands. */
    cr_assert_eq(vips_image_get_string(current, GAL_META_CAPTION, &shown), 0);
    cr_expect_str_eq(shown, long_caption);
    cr_expect_eq(gal__meta_int(current, GAL_META_CAPTION_CUT), 1);
    g_object_unref(current);
    gal__caption_files(preset->captions, "/photos/IMG_1.jpg", files);
    cr_expect_eq(files->len, 3, "two sidecar names and the table");
    cr_expect_str_eq(files->pdata[0], "/photos/IMG_1.jpg.txt");
    cr_expect_str_eq(files->pdata[1], "/photos/IMG_1.txt");
    cr_expect_str_eq(files->pdata[2], GAL_FIXTURES_DIR "/captions/captions.tsv");
    gal_preset_free(preset);
}

/* The band colour is laid over the photo at its alpha, rounded to the
 * nearest level: (photo x (255 - a) + colour x a) / 255. Read in the band's
 * bottom-right corner, away from the text. */
Test(stage_caption_burn, the_band_tints_the_photo_at_its_alpha)
{
    static const struct {
        int level;
        const char *band;
        int expected[3];
    } cases[] = {
        { 200, "\"#00000080\"", { 100, 100, 100 } }, /* 200 x 127 / 255 = 99.6 */
        { 100, "\"#ff000080\"", { 178, 50, 50 } },   /* 45340 / 255 = 177.8; 12700 / 255 = 49.8 */
        { 255, "\"#204060ff\"", { 32, 64, 96 } },    /* opaque: the colour itself */
        { 37, "\"#ffffff01\"", { 38, 38, 38 } },     /* 37 x 254 + 255 = 9653 / 255 = 37.9 */
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(VipsImage) photo = flat_photo(600, 400, cases[i].level, 3);
        g_autofree char *opts =
            g_strdup_printf("{size: 20px, padding: 10px, band: %s}", cases[i].band);
        burnt b = burn(opts, "A caption", photo);
        const VipsPel *p = VIPS_IMAGE_ADDR(b.image, 598, 398);

        for (int k = 0; k < 3; k++)
            cr_expect_eq(p[k], cases[i].expected[k], "level %d under %s: band %d is %d, not %d",
                cases[i].level, cases[i].band, k, p[k], cases[i].expected[k]);
        g_object_unref(b.image);
    }
}
