/* Watermark placement to the pixel, sizing, opacity, blending, tiling and
 * text, on synthetic photos: a black frame makes every changed pixel show. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "gal_test.h"

TestSuite(stage_watermark, .init = gal_test_setup, .fini = gal_test_teardown);

/* An opaque white logo of w x h, saved as PNG where presets find it. */
static char *
write_logo(int w, int h, gboolean alpha)
{
    g_autofree char *name = g_strdup_printf("logo-%d-%dx%d%s.png", (int) getpid(), w, h,
        alpha ? "a" : "");
    char *path = g_build_filename(GAL_TEST_TMP, name, NULL);
    VipsImage *black, *white, *typed, *with_alpha;

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    cr_assert_eq(vips_black(&black, w, h, "bands", 3, NULL), 0);
    cr_assert_eq(vips_linear1(black, &white, 1, 255, "uchar", TRUE, NULL), 0);
    cr_assert_eq(vips_copy(white, &typed, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    if (alpha) {
        cr_assert_eq(vips_addalpha(typed, &with_alpha, NULL), 0);
        cr_assert_eq(vips_pngsave(with_alpha, path, NULL), 0);
        g_object_unref(with_alpha);
    }
    else
        cr_assert_eq(vips_pngsave(typed, path, NULL), 0);
    g_object_unref(black);
    g_object_unref(white);
    g_object_unref(typed);
    return path;
}

static VipsImage *
black_photo(int w, int h, int bands)
{
    VipsImage *black, *out;

    cr_assert_eq(vips_black(&black, w, h, "bands", bands, NULL), 0);
    cr_assert_eq(vips_copy(black, &out, "interpretation", VIPS_INTERPRETATION_sRGB, "format",
        VIPS_FORMAT_UCHAR, NULL), 0);
    g_object_unref(black);
    if (bands == 4) {
        /* opaque alpha */
        VipsImage *rgb, *with_alpha;

        cr_assert_eq(vips_extract_band(out, &rgb, 0, "n", 3, NULL), 0);
        cr_assert_eq(vips_addalpha(rgb, &with_alpha, NULL), 0);
        g_object_unref(out);
        g_object_unref(rgb);
        out = with_alpha;
    }
    return out;
}

/* The bounding box of pixels that differ from black in band 0. */
static void
changed_box(VipsImage *image, int *left, int *top, int *width, int *height)
{
    g_autoptr(VipsImage) band = NULL;
    g_autoptr(VipsImage) mask = NULL;
    g_autoptr(VipsArrayDouble) background = vips_array_double_newv(1, 0.0);

    cr_assert_eq(vips_extract_band(image, &band, 0, NULL), 0);
    cr_assert_eq(vips_moreeq_const1(band, &mask, 1, NULL), 0);
    cr_assert_eq(vips_find_trim(mask, left, top, width, height, "threshold", 0.5, "background",
        background, NULL), 0);
}

static double
pixel(VipsImage *image, int x, int y, int band)
{
    double *v, result;
    int n;

    cr_assert_eq(vips_getpoint(image, &v, &n, x, y, NULL), 0);
    result = v[band];
    g_free(v);
    return result;
}

static VipsImage *
run(const char *opts, VipsImage *photo)
{
    return gal_test_run_stage("watermark", opts, photo);
}

Test(stage_watermark, every_gravity_places_the_mark_exactly)
{
    g_autofree char *logo = write_logo(100, 50, TRUE);
    static const struct { const char *gravity; int x, y; } cases[] = {
        /* 400x300 photo, short edge 300: size 100/300 = 33.3333%, margin 3% = 9 px */
        { "north-west", 9, 9 }, { "north", 150, 9 }, { "north-east", 291, 9 },
        { "west", 9, 125 }, { "centre", 150, 125 }, { "east", 291, 125 },
        { "south-west", 9, 241 }, { "south", 150, 241 }, { "south-east", 291, 241 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *opts = g_strdup_printf(
            "{image: %s, gravity: %s, size: 100px, margin: 3%%, opacity: 1}", logo,
            cases[i].gravity);
        g_autoptr(VipsImage) out = run(opts, black_photo(400, 300, 3));
        int left, top, width, height;

        changed_box(out, &left, &top, &width, &height);
        cr_expect_eq(left, cases[i].x, "%s: x %d", cases[i].gravity, left);
        cr_expect_eq(top, cases[i].y, "%s: y %d", cases[i].gravity, top);
        cr_expect_eq(width, 100, "%s: width %d", cases[i].gravity, width);
        cr_expect_eq(height, 50, "%s: height %d", cases[i].gravity, height);
        cr_expect_eq(out->Xsize, 400);
        cr_expect_eq(out->Bands, 3);
    }
}

Test(stage_watermark, size_follows_the_short_edge_on_portrait_and_landscape)
{
    g_autofree char *logo = write_logo(200, 100, TRUE);
    g_autofree char *opts = g_strdup_printf("{image: %s, size: 20%%, margin: 0, opacity: 1}", logo);
    g_autoptr(VipsImage) landscape = run(opts, black_photo(600, 400, 3));
    g_autoptr(VipsImage) portrait = run(opts, black_photo(400, 600, 3));
    int l, t, w, h;

    changed_box(landscape, &l, &t, &w, &h);
    cr_expect_eq(w, 80, "20%% of 400 is 80, got %d", w);
    cr_expect_eq(h, 40);
    changed_box(portrait, &l, &t, &w, &h);
    cr_expect_eq(w, 80, "the same on portrait, got %d", w);
}

Test(stage_watermark, size_bounds_clamp_the_relative_size)
{
    g_autofree char *logo = write_logo(200, 100, TRUE);
    g_autofree char *small = g_strdup_printf(
        "{image: %s, size: {relative: 10%%, min: 64, max: 400}, margin: 0, opacity: 1}", logo);
    g_autofree char *large = g_strdup_printf(
        "{image: %s, size: {relative: 50%%, min: 10, max: 120}, margin: 0, opacity: 1}", logo);
    g_autoptr(VipsImage) a = run(small, black_photo(400, 300, 3));
    g_autoptr(VipsImage) b = run(large, black_photo(400, 300, 3));
    int l, t, w, h;

    changed_box(a, &l, &t, &w, &h);
    cr_expect_eq(w, 64, "10%% of 300 = 30, raised to min 64, got %d", w);
    changed_box(b, &l, &t, &w, &h);
    cr_expect_eq(w, 120, "50%% of 300 = 150, lowered to max 120, got %d", w);
}

Test(stage_watermark, a_mark_larger_than_the_photo_is_shrunk_never_cropped)
{
    g_autofree char *logo = write_logo(300, 100, TRUE);
    g_autofree char *opts = g_strdup_printf("{image: %s, size: 900px, margin: 10px, opacity: 1}",
        logo);
    g_autoptr(VipsImage) out = run(opts, black_photo(200, 150, 3));
    int l, t, w, h;

    changed_box(out, &l, &t, &w, &h);
    cr_expect_eq(w, 180, "fits the width less the margins, got %d", w);
    cr_expect_eq(h, 60, "keeps its aspect, got %d", h);
    cr_expect_eq(l, 10);
}

Test(stage_watermark, opacity_is_the_blend_weight)
{
    g_autofree char *logo = write_logo(100, 50, TRUE);
    g_autofree char *opts = g_strdup_printf(
        "{image: %s, size: 100px, margin: 0, gravity: north-west, opacity: 0.4}", logo);
    g_autoptr(VipsImage) out = run(opts, black_photo(400, 300, 3));

    /* white at 40% over black */
    cr_expect_float_eq(pixel(out, 50, 25, 0), 102, 1.01, "got %g", pixel(out, 50, 25, 0));
    cr_expect_eq(pixel(out, 150, 25, 0), 0, "outside the mark stays black");
}

Test(stage_watermark, multiply_over_black_stays_black_and_screen_lightens)
{
    g_autofree char *logo = write_logo(100, 50, TRUE);
    g_autofree char *mul = g_strdup_printf(
        "{image: %s, size: 100px, margin: 0, gravity: north-west, opacity: 1, blend: multiply}",
        logo);
    g_autofree char *scr = g_strdup_printf(
        "{image: %s, size: 100px, margin: 0, gravity: north-west, opacity: 1, blend: screen}",
        logo);
    g_autoptr(VipsImage) a = run(mul, black_photo(400, 300, 3));
    g_autoptr(VipsImage) b = run(scr, black_photo(400, 300, 3));

    cr_expect_eq(pixel(a, 50, 25, 0), 0);
    cr_expect_eq(pixel(b, 50, 25, 0), 255);
}

Test(stage_watermark, keeps_the_photo_alpha)
{
    g_autofree char *logo = write_logo(100, 50, TRUE);
    g_autofree char *opts = g_strdup_printf(
        "{image: %s, size: 100px, margin: 0, gravity: north-west, opacity: 0.4}", logo);
    g_autoptr(VipsImage) out = run(opts, black_photo(400, 300, 4));

    cr_assert_eq(out->Bands, 4);
    cr_expect_float_eq(pixel(out, 50, 25, 0), 102, 1.01);
    cr_expect_eq(pixel(out, 50, 25, 3), 255, "alpha stays opaque");
}

Test(stage_watermark, a_logo_without_alpha_is_opaque)
{
    g_autofree char *logo = write_logo(100, 50, FALSE);
    g_autofree char *opts = g_strdup_printf(
        "{image: %s, size: 100px, margin: 0, gravity: north-west, opacity: 1}", logo);
    g_autoptr(VipsImage) out = run(opts, black_photo(400, 300, 3));

    cr_expect_eq(pixel(out, 50, 25, 0), 255);
}

Test(stage_watermark, tiling_covers_the_whole_photo)
{
    g_autofree char *logo = write_logo(40, 20, TRUE);
    g_autofree char *grid = g_strdup_printf(
        "{image: %s, size: 40px, margin: 20px, opacity: 1, tile: true}", logo);
    g_autofree char *diagonal = g_strdup_printf(
        "{image: %s, size: 40px, margin: 20px, opacity: 1, tile: diagonal}", logo);
    g_autoptr(VipsImage) a = run(grid, black_photo(400, 300, 3));
    g_autoptr(VipsImage) b = run(diagonal, black_photo(400, 300, 3));
    int l, t, w, h;
    double avg;

    changed_box(a, &l, &t, &w, &h);
    cr_expect_lt(l, 20);
    cr_expect_gt(l + w, 380, "copies reach the right edge");
    cr_expect_gt(t + h, 280, "and the bottom");
    /* cells of 60x40 with a 40x20 mark: a third of the area is white */
    cr_assert_eq(vips_avg(a, &avg, NULL), 0);
    cr_expect_float_eq(avg, 255.0 / 3, 12, "grid coverage %g", avg);
    cr_assert_eq(vips_avg(b, &avg, NULL), 0);
    cr_expect_gt(avg, 30, "diagonal copies cover the photo too (%g)", avg);
}

Test(stage_watermark, text_marks_render_markup_literally)
{
    g_autoptr(VipsImage) plain = run("{text: \"x\", size: 200px, margin: 0, opacity: 1}",
        black_photo(400, 300, 3));
    g_autoptr(VipsImage) markup = run(
        "{text: \"<span size='1'>x</span> & <b>\", size: 200px, margin: 0, opacity: 1}",
        black_photo(400, 300, 3));
    int l, t, w, h1, h2;

    /* The same width: the literal text is much smaller per glyph, so its
     * box is much flatter than the single scaled-up x. */
    changed_box(plain, &l, &t, &w, &h1);
    changed_box(markup, &l, &t, &w, &h2);
    cr_expect_gt(h1, 3 * h2, "x: %d rows, literal markup: %d rows", h1, h2);
}

/* A whole caption as a mark: one line far wider than Cairo's largest
 * surface if it were drawn at the usual render size. */
Test(stage_watermark, a_very_long_text_still_renders_to_the_asked_width)
{
    g_autoptr(GString) text = g_string_new(NULL);
    g_autofree char *opts = NULL;
    g_autoptr(VipsImage) marked = NULL;
    int l, t, w, h;

    while (text->len < 600)
        g_string_append(text, "#pyongyang #marathon @koryotours ");
    opts = g_strdup_printf("{text: \"%s\", size: 300px, margin: 0, opacity: 1}", text->str);
    marked = run(opts, black_photo(400, 300, 3));
    changed_box(marked, &l, &t, &w, &h);
    cr_expect(w > 280 && w <= 300, "the mark is %d px wide, asked 300", w);
    cr_expect_gt(h, 0);
}

/* `unit` `n` times. */
static char *
repeat(const char *unit, int n)
{
    GString *s = g_string_new(NULL);

    for (int i = 0; i < n; i++)
        g_string_append(s, unit);
    return g_string_free(s, FALSE);
}

/* A mark is one line: 100 KB of fixed text failed at load with Cairo's
 * "text: invalid value (typically too big)", with no place in the preset. */
Test(stage_watermark, a_text_longer_than_a_mark_is_a_load_error_at_its_key)
{
    g_autofree char *x = repeat("x", 100000);
    g_autofree char *e_acute = repeat("\xc3\xa9", 1001);
    g_autofree char *yaml =
        g_strdup_printf("gallop: 1\nstages:\n  - watermark: {text: \"%s\"}\n", x);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *want = g_strdup_printf(
        "a text of 100000 characters (\"%.60s\xe2\x80\xa6\"), longer than the 1000 this key takes",
        x);

    cr_expect_null(gal_test_load(yaml, errs));
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].code, GAL_ERR_PRESET);
    cr_expect_str_eq(errs->items[0].file, GAL_TEST_TMP "/test.yaml");
    cr_expect_eq(errs->items[0].line, 3);
    cr_expect_eq(errs->items[0].col, 23);
    cr_expect_str_eq(errs->items[0].key, "watermark.text");
    cr_expect_str_eq(errs->items[0].msg, want);

    /* Characters, not bytes: 1001 of them in 2002 bytes. */
    g_free(yaml);
    yaml = g_strdup_printf("gallop: 1\nstages:\n  - watermark:\n      text: '%s'\n", e_acute);
    memset(errs, 0, sizeof(*errs));
    cr_expect_null(gal_test_load(yaml, errs));
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].line, 4);
    cr_expect_eq(errs->items[0].col, 13);
    cr_expect(strstr(errs->items[0].msg, "a text of 1001 characters") != NULL, "%s",
        errs->items[0].msg);
}

/* At the limit, even one word of the widest glyphs renders: 1000 three-em
 * dashes are 48000 px at the 16 px a text that long is drawn at, past
 * Cairo's 32767; it is drawn smaller instead. */
Test(stage_watermark, a_mark_of_the_longest_text_and_the_widest_glyphs_renders)
{
    g_autofree char *x = repeat("x", 1000);
    g_autofree char *dashes = repeat("\xe2\xb8\xbb", 1000);
    g_autofree char *opts =
        g_strdup_printf("{text: \"%s\", size: 300px, margin: 0, opacity: 1}", x);
    g_autoptr(VipsImage) marked = run(opts, black_photo(400, 300, 3));
    g_autoptr(VipsImage) dashed = NULL;
    int l, t, w, h;

    changed_box(marked, &l, &t, &w, &h);
    cr_expect(w > 280 && w <= 300, "the mark is %d px wide, asked 300", w);
    g_free(opts);
    opts = g_strdup_printf("{text: \"%s\", size: 300px, margin: 0, opacity: 1}", dashes);
    dashed = run(opts, black_photo(400, 300, 3));
    changed_box(dashed, &l, &t, &w, &h);
    cr_expect(w > 280 && w <= 300, "the mark is %d px wide, asked 300", w);
}

/* A per-photo text is only known per photo: a 100 KB {caption} is cut to a
 * mark's length, drawn, and the photo kept. */
Test(stage_watermark, a_100_kb_caption_in_a_mark_is_cut_not_an_error)
{
    g_autofree char *caption = repeat("Ran the #pyongyang marathon with 800 #runners. ", 2200);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(
        "gallop: 1\nstages:\n  - watermark: {text: \"{caption}\", size: 300px, margin: 0, "
        "opacity: 1}\n",
        errs);
    const gal_stage_instance *st;
    gal_stage_ctx sc;
    gal_facts facts = { 0 };
    gal_photo in = { &facts, NULL };
    gal_error err = { 0 };
    g_autoptr(VipsImage) photo = black_photo(400, 300, 3);
    g_autoptr(VipsImage) out = NULL;
    g_autoptr(VipsImage) memory = NULL;
    int l, t, w, h;

    cr_assert_not_null(preset);
    cr_assert_gt(strlen(caption), 100000);
    st = &g_array_index(preset->stages, gal_stage_instance, 0);
    sc = gal__stage_ctx(st);
    facts.caption = caption;
    cr_assert_eq(st->def->build(&sc, &in, photo, &out, &err), 0, "%s", err.msg);
    memory = vips_image_copy_memory(out);
    changed_box(memory, &l, &t, &w, &h);
    cr_expect(w > 280 && w <= 300, "the mark is %d px wide, asked 300", w);
    gal_preset_free(preset);
}

Test(stage_watermark, text_uses_the_photo_facts)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(
        "gallop: 1\nstages:\n  - watermark: {text: \"{artist|nobody}\", size: 100px, opacity: 1}\n",
        errs);
    const gal_stage_instance *st;
    gal_stage_ctx sc;
    gal_facts facts = { 0 };
    gal_photo in = { &facts, NULL };
    gal_error err = { 0 };
    g_autoptr(VipsImage) photo = black_photo(400, 300, 3);
    g_autoptr(VipsImage) with_artist = NULL;
    g_autoptr(VipsImage) without = NULL;
    g_autoptr(VipsImage) a = NULL;
    g_autoptr(VipsImage) b = NULL;
    double diff_max, diff_mean;

    cr_assert_not_null(preset);
    st = &g_array_index(preset->stages, gal_stage_instance, 0);
    sc = gal__stage_ctx(st);
    facts.artist = "Jen Loong";
    cr_assert_eq(st->def->build(&sc, &in, photo, &with_artist, &err), 0, "%s", err.msg);
    facts.artist = NULL;
    cr_assert_eq(st->def->build(&sc, &in, photo, &without, &err), 0, "%s", err.msg);
    a = vips_image_copy_memory(with_artist);
    b = vips_image_copy_memory(without);
    cr_assert_eq(gal_test_diff(a, b, &diff_max, &diff_mean), 0);
    cr_expect_gt(diff_max, 100, "different names draw different text");
    gal_preset_free(preset);
}

/* Photos' own texts are drawn once per text and kept (issue 17): each
 * photo still gets its own text, on both inks of color: auto, and a
 * photo with the first text again gets the same pixels as before. */
Test(stage_watermark, photos_own_texts_are_kept_apart_when_drawn_once)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\nstages:\n  - watermark: {text: \"{artist}\", "
                                       "size: 100px, opacity: 1, color: auto}\n",
        errs);
    const char *artists[] = { "Jen Loong", "Kim Ri", "Jen Loong", "Kim Ri" };
    const int grey[] = { 0, 0, 255, 255 }; /* dark photos take the light ink, light the dark */
    VipsImage *drawn[4];
    const gal_stage_instance *st;
    gal_stage_ctx sc;
    double diff_max, diff_mean;

    cr_assert_not_null(preset);
    st = &g_array_index(preset->stages, gal_stage_instance, 0);
    sc = gal__stage_ctx(st);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 4; i++) {
            gal_facts facts = { 0 };
            gal_photo in = { &facts, NULL };
            gal_error err = { 0 };
            g_autoptr(VipsImage) black = black_photo(400, 300, 3);
            g_autoptr(VipsImage) photo = NULL;
            g_autoptr(VipsImage) out = NULL;
            VipsImage *memory;

            cr_assert_eq(vips_linear1(black, &photo, 1, grey[i], "uchar", TRUE, NULL), 0);
            facts.artist = artists[i];
            cr_assert_eq(st->def->build(&sc, &in, photo, &out, &err), 0, "%s", err.msg);
            memory = vips_image_copy_memory(out);
            cr_assert_not_null(memory);
            if (round == 0)
                drawn[i] = memory;
            else {
                cr_assert_eq(gal_test_diff(memory, drawn[i], &diff_max, &diff_mean), 0);
                cr_expect_eq(diff_max, 0, "%s on %d, drawn again: up to %g apart", artists[i],
                    grey[i], diff_max);
                g_object_unref(memory);
            }
        }
    /* Same ink, different names: different marks. */
    for (int i = 0; i < 4; i += 2) {
        cr_assert_eq(gal_test_diff(drawn[i], drawn[i + 1], &diff_max, &diff_mean), 0);
        cr_expect_gt(diff_max, 100, "%s and %s drew the same mark", artists[i], artists[i + 1]);
    }
    for (int i = 0; i < 4; i++)
        g_object_unref(drawn[i]);
    gal_preset_free(preset);
}

Test(stage_watermark, keeps_out_of_rows_a_caption_band_reserved)
{
    g_autofree char *logo = write_logo(100, 50, TRUE);
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - watermark: {image: %s, "
                                            "size: 100px, margin: 10px, opacity: 1}\n",
        logo);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    const gal_stage_instance *st;
    gal_stage_ctx sc;
    gal_facts facts = { 0 };
    gal_photo in = { &facts, NULL };
    gal_error err = { 0 };
    g_autoptr(VipsImage) photo = black_photo(400, 300, 3);
    g_autoptr(VipsImage) banded = NULL;
    g_autoptr(VipsImage) out = NULL;
    g_autoptr(VipsImage) memory = NULL;
    int l, t, w, h;

    cr_assert_not_null(preset);
    st = &g_array_index(preset->stages, gal_stage_instance, 0);
    sc = gal__stage_ctx(st);
    /* As caption-burn leaves its image after a band along the bottom. */
    cr_assert_eq(vips_copy(photo, &banded, NULL), 0);
    vips_image_set_int(banded, GAL_META_RESERVED_BOTTOM, 80);
    cr_assert_eq(st->def->build(&sc, &in, banded, &out, &err), 0, "%s", err.msg);
    memory = vips_image_copy_memory(out);
    changed_box(memory, &l, &t, &w, &h);
    cr_expect_eq(t + h, 300 - 80 - 10, "bottom edge %d sits above the band and margin", t + h);
    gal_preset_free(preset);
}

Test(stage_watermark, needs_exactly_one_of_image_or_text)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_expect_null(gal_test_load("gallop: 1\nstages:\n  - watermark: {opacity: 0.5}\n", errs));
    cr_assert_eq(errs->count, 1);
    cr_expect(strstr(errs->items[0].msg, "exactly one of image or text") != NULL, "%s",
        errs->items[0].msg);
    cr_expect_eq(errs->items[0].line, 3);
}

Test(stage_watermark, a_missing_logo_or_font_file_is_a_load_error)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    cr_expect_null(gal_test_load(
        "gallop: 1\nstages:\n  - watermark:\n      image: nope.png\n      opacity: 2\n", errs));
    cr_assert_eq(errs->count, 2, "both errors are reported");
    cr_expect(strstr(errs->items[0].msg, "file not found") != NULL, "%s", errs->items[0].msg);
    cr_expect_eq(errs->items[0].line, 4);
    cr_expect_eq(errs->items[0].col, 14);
    cr_expect_str_eq(errs->items[1].key, "watermark.opacity");
    memset(errs, 0, sizeof(*errs));
    cr_expect_null(gal_test_load(
        "gallop: 1\nstages:\n  - watermark: {text: hi, font: fonts/none.ttf}\n", errs));
    cr_assert_eq(errs->count, 1);
    cr_expect(strstr(errs->items[0].msg, "font file not found") != NULL, "%s",
        errs->items[0].msg);
}

/* A preset is untrusted input, and a logo is decoded whole as float RGBA:
 * fixtures/broken/huge.png (117 KB, 12000x10000) took 16 s and 1.9 GB to
 * load as a logo. It is refused from its header now (issue 12). */
Test(stage_watermark, a_logo_with_too_many_pixels_is_refused_from_its_header)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gint64 start = g_get_monotonic_time();

    cr_expect_null(gal_test_load("gallop: 1\nstages:\n  - watermark: {image: " GAL_FIXTURES_DIR
                                 "/broken/huge.png}\n",
        errs));
    cr_assert_eq(errs->count, 1);
    cr_expect_str_eq(errs->items[0].key, "watermark.image");
    cr_expect(strstr(errs->items[0].msg, "huge.png is 12000x10000 pixels (120.0 megapixels); a "
                                         "logo may have up to 16.8: scale it down") != NULL,
        "%s", errs->items[0].msg);
    cr_expect_lt(g_get_monotonic_time() - start, 5 * G_USEC_PER_SEC, "only the header is read");
}

/* An SVG says how large it is and is drawn to a scale: one declaring
 * 16000x16000 was drawn at that size (38 s, 5.2 GB); now at most as large
 * as a raster logo may be. */
Test(stage_watermark, an_svg_logo_declaring_a_huge_size_is_drawn_within_the_logo_limit)
{
    g_autofree char *name = g_strdup_printf("huge-%d.svg", (int) getpid());
    g_autofree char *logo = g_build_filename(GAL_TEST_TMP, name, NULL);
    g_autofree char *opts = NULL;
    g_autoptr(VipsImage) out = NULL;
    gint64 start = g_get_monotonic_time();
    int l, t, w, h;

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    cr_assert(g_file_set_contents(logo,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"16000\" height=\"16000\">"
        "<rect width=\"16000\" height=\"16000\" fill=\"#ffffff\"/></svg>",
        -1, NULL));
    opts = g_strdup_printf("{image: %s, size: 200px, margin: 0, opacity: 1}", logo);
    out = run(opts, black_photo(400, 300, 3));
    changed_box(out, &l, &t, &w, &h);
    cr_expect_eq(w, 200, "the mark is 200 px wide, got %d", w);
    cr_expect_lt(g_get_monotonic_time() - start, 20 * G_USEC_PER_SEC, "took %.1f s",
        (g_get_monotonic_time() - start) / 1e6);
}

Test(stage_watermark, a_font_file_is_used_by_its_family)
{
    g_autoptr(VipsImage) out = run(
        "{text: \"Jen\", font: /usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf, size: 100px, "
        "opacity: 1}",
        black_photo(400, 300, 3));
    int l, t, w, h;

    changed_box(out, &l, &t, &w, &h);
    cr_expect_geq(w, 95, "drawn, %d px wide", w);
}

Test(stage_watermark, an_svg_logo_is_drawn_at_the_marks_size_not_enlarged)
{
    /* A hairline half a unit wide: drawn at the mark's size (x3 here) it
     * covers whole pixels; a 100 px raster enlarged x3 would smear it to
     * about half intensity. */
    g_autofree char *name = g_strdup_printf("logo-%d.svg", (int) getpid());
    g_autofree char *logo = g_build_filename(GAL_TEST_TMP, name, NULL);
    g_autofree char *opts = NULL;
    g_autoptr(VipsImage) out = NULL;
    double brightest = 0;
    int l, t, w, h;

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    cr_assert(g_file_set_contents(logo,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"50\">"
        "<rect x=\"0\" y=\"0\" width=\"100\" height=\"50\" fill=\"#202020\"/>"
        "<rect x=\"50\" y=\"0\" width=\"0.5\" height=\"50\" fill=\"#ffffff\"/></svg>",
        -1, NULL));
    opts = g_strdup_printf("{image: %s, size: 300px, margin: 0, gravity: north-west, "
                           "opacity: 1}", logo);
    out = run(opts, black_photo(600, 400, 3));
    changed_box(out, &l, &t, &w, &h);
    cr_expect_eq(w, 300, "the mark is 300 px wide, got %d", w);
    cr_expect_eq(h, 150, "and keeps its shape, got %d", h);
    for (int x = 140; x < 160; x++)
        brightest = MAX(brightest, pixel(out, x, 75, 0));
    cr_expect_geq(brightest, 240, "the hairline stays sharp: brightest %g", brightest);
}

Test(stage_watermark, svg_photos_stay_blocked_after_an_svg_logo_loads)
{
    g_autofree char *name = g_strdup_printf("photo-%d.svg", (int) getpid());
    g_autofree char *path = g_build_filename(GAL_TEST_TMP, name, NULL);
    g_autofree char *opts = NULL;
    g_autoptr(VipsImage) out = NULL;
    gal_photo_file photo;
    gal_error err = { 0 };

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    cr_assert(g_file_set_contents(path,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"20\">"
        "<rect width=\"40\" height=\"20\" fill=\"#ffffff\"/></svg>",
        -1, NULL));
    opts = g_strdup_printf("{image: %s, size: 50px, opacity: 1}", path);
    out = run(opts, black_photo(200, 100, 3));
    cr_assert_not_null(out, "an SVG logo loads");
    /* Photos are opened by decode.c, which tells SVG apart and refuses it. */
    cr_expect_eq(gal__photo_open(path, &photo, &err), -1, "but an SVG photo is still refused");
    cr_expect(strstr(err.msg, "text markup (SVG, HTML or XML)") != NULL, "%s", err.msg);
    gal__photo_close(&photo);
}
