/* The quality search (quality.c, issue 42) and its keys: output.quality
 * auto, output.target (a level or a score), output.max-bytes; the target
 * in the recipe only when the quality is auto, the cap only when set. The
 * search returns the lowest quality that meets the target (one less does
 * not), within its bound of encodes, the same bytes twice; under a cap the
 * highest quality that fits (one more does not). */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "output.h"
#include "perceptual.h"
#include "preset.h"
#include "quality.h"
#include "recipe.h"

#define TEST_YAML GAL_TEST_TMP "/test.yaml"

TestSuite(quality, .init = gal_test_setup, .fini = gal_test_teardown);

static gal_errors *
load_fails(const char *yaml)
{
    gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);

    cr_assert_null(preset, "the preset loaded");
    cr_assert_geq(errs->count, 1);
    return errs;
}

Test(quality, auto_and_the_default_target_load)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n"
                                          "output: {quality: auto}\n");

    cr_expect_eq(preset->output->quality, GAL_QUALITY_AUTO);
    cr_expect_str_eq(preset->output->target, "standard");
    cr_expect_eq(preset->output->target_score, GAL_TARGET_STANDARD);
    cr_expect_eq(preset->output->max_bytes, 0);
    gal_preset_free(preset);
}

Test(quality, a_target_is_a_level_in_any_case_or_a_score)
{
    gal_preset *high = gal_test_load_ok("gallop: 1\n"
                                        "output: {quality: AUTO, target: High}\n");
    gal_preset *small = gal_test_load_ok("gallop: 1\n"
                                         "output: {quality: auto, target: small}\n");
    gal_preset *score = gal_test_load_ok("gallop: 1\n"
                                         "output: {quality: auto, target: 27.5}\n");

    cr_expect_eq(high->output->target_score, GAL_TARGET_HIGH);
    cr_expect_eq(small->output->target_score, GAL_TARGET_SMALL);
    cr_expect_eq(score->output->target_score, 27.5);
    cr_expect_gt(GAL_TARGET_HIGH, GAL_TARGET_STANDARD);
    cr_expect_gt(GAL_TARGET_STANDARD, GAL_TARGET_SMALL);
    gal_preset_free(high);
    gal_preset_free(small);
    gal_preset_free(score);
}

Test(quality, rejects_an_unknown_target_where_it_is)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output:\n"
                                             "  quality: auto\n"
                                             "  target: crisp\n");

    cr_assert_eq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, TEST_YAML, 4, 11, "output.target",
        "expected high, standard, small or a score from 15 to 50 (dB), got \"crisp\"");
}

Test(quality, rejects_a_score_out_of_range)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {quality: auto, target: 70}\n");

    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, TEST_YAML, 2, 33, "output.target",
        "got \"70\"");
}

Test(quality, rejects_a_word_for_quality_other_than_auto)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {quality: best}\n");

    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, TEST_YAML, 2, 19, "output.quality",
        "expected a whole number or auto, got \"best\"");
}

Test(quality, rejects_a_cap_below_a_thousand_bytes)
{
    g_autofree gal_errors *errs = load_fails("gallop: 1\n"
                                             "output: {max-bytes: 500}\n");

    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, TEST_YAML, 2, 21, "output.max-bytes",
        "must be between 1000 and 1e+09, got 500");
}

/* The preset's recipe digest. */
static void
digest_of(const char *yaml, char *hex)
{
    gal_preset *preset = gal_test_load_ok(yaml);
    g_autoptr(GPtrArray) keys = gal__preset_keys(preset, GAL_TEST_TMP);

    gal__keys_digest(keys, hex);
    gal_preset_free(preset);
}

static gboolean
has_line(const char *yaml, const char *prefix)
{
    gal_preset *preset = gal_test_load_ok(yaml);
    g_autoptr(GPtrArray) keys = gal__preset_keys(preset, GAL_TEST_TMP);
    gboolean found = FALSE;

    for (guint i = 0; i < keys->len; i++)
        found |= g_str_has_prefix(keys->pdata[i], prefix);
    gal_preset_free(preset);
    return found;
}

Test(quality, the_target_shapes_the_recipe_only_when_the_quality_is_auto)
{
    char plain[65], with_target[65], automatic[65], auto_high[65], auto_same[65];

    digest_of("gallop: 1\noutput: {quality: 85}\n", plain);
    digest_of("gallop: 1\noutput: {quality: 85, target: high}\n", with_target);
    digest_of("gallop: 1\noutput: {quality: auto}\n", automatic);
    digest_of("gallop: 1\noutput: {quality: auto, target: high}\n", auto_high);
    digest_of("gallop: 1\noutput: {quality: auto, target: standard}\n", auto_same);
    /* An older preset's outputs stay up to date: no new line for it. */
    cr_expect_str_eq(plain, with_target);
    cr_expect(!has_line("gallop: 1\noutput: {quality: 85}\n", "output.target="));
    cr_expect(!has_line("gallop: 1\noutput: {quality: 85}\n", "output.max-bytes="));
    cr_expect_str_neq(plain, automatic);
    cr_expect_str_neq(automatic, auto_high);
    cr_expect_str_eq(automatic, auto_same);
    /* The level by its score too, so a level given another one rebuilds. */
    cr_expect(has_line("gallop: 1\noutput: {quality: auto}\n", "output.target=standard ("));
    cr_expect(has_line("gallop: 1\noutput: {quality: auto}\n", "output.quality=auto"));
}

Test(quality, a_cap_shapes_the_recipe_when_set)
{
    char plain[65], capped[65], other_cap[65];

    digest_of("gallop: 1\noutput: {quality: 85}\n", plain);
    digest_of("gallop: 1\noutput: {quality: 85, max-bytes: 200000}\n", capped);
    digest_of("gallop: 1\noutput: {quality: 85, max-bytes: 300000}\n", other_cap);
    cr_expect_str_neq(plain, capped);
    cr_expect_str_neq(capped, other_cap);
}

/* ---- the search ---------------------------------------------------------------- */

/* A fixture photo (trip-02: a meadow, fine texture) scaled as a stage
 * would (as it is, the JPEG re-encoded at its own quality 85 comes back
 * almost unchanged, a peak in the scores no finished picture has), in
 * memory. */
static VipsImage *
photo_at(double scale)
{
    g_autoptr(VipsImage) loaded = gal_test_load_image(GAL_FIXTURES_DIR "/trip/trip-02.jpg", TRUE);
    g_autoptr(VipsImage) scaled = NULL;
    VipsImage *memory;

    cr_assert_eq(vips_resize(loaded, &scaled, scale, NULL), 0, "%s", vips_error_buffer());
    memory = vips_image_copy_memory(scaled);

    cr_assert_not_null(memory, "%s", vips_error_buffer());
    return memory;
}

static VipsImage *
photo(void)
{
    return photo_at(0.8);
}

static gal_meta no_meta;

static double
score_at(const gal_format_def *format, VipsImage *image, int quality, size_t *length)
{
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    gal_quality_goal goal = { 0, quality, 0 };
    gal_quality_choice choice;
    gal_error err = { 0 };
    g_autoptr(gal_percept_ref) ref = gal__percept_ref_new(image, &err);
    g_autoptr(VipsImage) decoded = NULL;
    double score = -1;

    cr_assert_eq(gal__quality_choose(format, &e, &goal, &choice, &err), 0, "%s", err.msg);
    cr_assert_eq(choice.quality, quality);
    decoded = vips_image_new_from_buffer(choice.data, choice.length, "", NULL);
    cr_assert_not_null(decoded);
    cr_assert_eq(gal__percept_score(ref, decoded, &score, NULL, &err), 0, "%s", err.msg);
    if (length)
        *length = choice.length;
    gal__quality_choice_clear(&choice);
    return score;
}

static void
expect_lowest_meeting(const gal_format_def *format, double target, double scale)
{
    g_autoptr(VipsImage) image = photo_at(scale);
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    gal_quality_goal goal = { target, 0, 0 };
    gal_quality_choice choice, again;
    gal_error err = { 0 };

    cr_assert_eq(gal__quality_choose(format, &e, &goal, &choice, &err), 0, "%s", err.msg);
    cr_assert_eq(gal__quality_choose(format, &e, &goal, &again, &err), 0, "%s", err.msg);
    /* Held to the format's own level of the target. */
    cr_expect_eq(choice.target, target + format->auto_shift);
    target = choice.target;
    cr_expect_geq(choice.score, target);
    cr_expect_leq(choice.encodes, 6, "%d encodes", choice.encodes);
    cr_expect(!choice.unreachable && !choice.below_target);
    cr_expect_gt(choice.quality, format->auto_lowest, "the target is within the range");
    /* Its score is the file's, and one quality less misses the target. */
    cr_expect_eq(score_at(format, image, choice.quality, NULL), choice.score);
    cr_expect_lt(score_at(format, image, choice.quality - 1, NULL), target, "quality %d",
        choice.quality - 1);
    /* The same bytes again. */
    cr_assert_eq(again.length, choice.length);
    cr_expect(memcmp(again.data, choice.data, choice.length) == 0);
    gal__quality_choice_clear(&choice);
    gal__quality_choice_clear(&again);
}

Test(quality, jpeg_gets_the_lowest_quality_that_meets_the_target)
{
    expect_lowest_meeting(gal__formats[GAL_FORMAT_JPEG], GAL_TARGET_STANDARD, 0.8);
}

Test(quality, webp_gets_the_lowest_quality_that_meets_the_target)
{
    expect_lowest_meeting(gal__formats[GAL_FORMAT_WEBP], GAL_TARGET_SMALL, 0.8);
}

/* A picture of a megapixel and more is searched on a sample of it: the
 * file chosen still meets the target whole (its score is the whole
 * file's), a little more than the lowest quality that does at most, with
 * the same bytes every time; a smaller one is searched whole. */
Test(quality, a_large_picture_is_searched_on_a_sample_and_checked_whole)
{
    g_autoptr(VipsImage) image = photo_at(1.6);
    g_autoptr(VipsImage) small = photo();
    const gal_format_def *jpeg = gal__formats[GAL_FORMAT_JPEG];
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    gal_quality_goal goal = { GAL_TARGET_STANDARD, 0, 0 };
    gal_quality_choice choice, again;
    gal_error err = { 0 };

    cr_assert_eq(gal__quality_choose(jpeg, &e, &goal, &choice, &err), 0, "%s", err.msg);
    cr_assert_eq(gal__quality_choose(jpeg, &e, &goal, &again, &err), 0, "%s", err.msg);
    cr_expect_gt(choice.sample_encodes, 0);
    cr_expect_leq(choice.encodes, 3, "%d encodes of the whole", choice.encodes);
    cr_expect_geq(choice.score, goal.target);
    cr_expect_eq(score_at(jpeg, image, choice.quality, NULL), choice.score);
    cr_expect_lt(score_at(jpeg, image, choice.quality - 3, NULL), goal.target, "quality %d",
        choice.quality - 3);
    cr_assert_eq(again.length, choice.length);
    cr_expect(memcmp(again.data, choice.data, choice.length) == 0);
    gal__quality_choice_clear(&choice);
    gal__quality_choice_clear(&again);
    e.image = small;
    cr_assert_eq(gal__quality_choose(jpeg, &e, &goal, &choice, &err), 0, "%s", err.msg);
    cr_expect_eq(choice.sample_encodes, 0);
    gal__quality_choice_clear(&choice);
}

/* The bytes `format` chooses for `image` and the default target, sharing
 * `memo` (NULL: none). */
static GBytes *
chosen_bytes(const gal_format_def *format, VipsImage *image, gal_quality_memo *memo)
{
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    gal_quality_goal goal = { GAL_TARGET_STANDARD, 0, 0 };
    gal_quality_choice choice;
    gal_error err = { 0 };
    GBytes *bytes;

    cr_assert_eq(gal__quality_choose_shared(format, &e, &goal, memo, &choice, &err), 0, "%s",
        err.msg);
    bytes = g_bytes_new(choice.data, choice.length);
    gal__quality_choice_clear(&choice);
    return bytes;
}

/* A picture's formats share one preparation of it (and of its sample):
 * a second picture of the same pixels takes it, whatever object holds
 * them, and gets the bytes it would get alone; a picture of the same size
 * but other pixels is prepared anew, and gets its own bytes. */
Test(quality, a_memo_serves_the_same_pixels_and_no_others)
{
    g_autoptr(VipsImage) image = photo_at(1.6);
    g_autoptr(VipsImage) twin = vips_image_new_from_memory_copy(VIPS_IMAGE_ADDR(image, 0, 0),
        VIPS_IMAGE_SIZEOF_IMAGE(image), image->Xsize, image->Ysize, image->Bands,
        image->BandFmt);
    g_autoptr(VipsImage) flipped = NULL;
    g_autoptr(VipsImage) mirror = NULL;
    g_autoptr(gal_quality_memo) memo = gal__quality_memo_new();
    const gal_format_def *jpeg = gal__formats[GAL_FORMAT_JPEG];
    const gal_format_def *webp = gal__formats[GAL_FORMAT_WEBP];
    g_autoptr(GBytes) jpeg_alone = chosen_bytes(jpeg, image, NULL);
    g_autoptr(GBytes) webp_alone = NULL;
    g_autoptr(GBytes) jpeg_shared = NULL;
    g_autoptr(GBytes) webp_shared = NULL;
    g_autoptr(GBytes) mirror_alone = NULL;
    g_autoptr(GBytes) mirror_shared = NULL;

    cr_assert_not_null(twin, "%s", vips_error_buffer());
    twin->Type = image->Type;
    cr_assert_eq(vips_flip(image, &flipped, VIPS_DIRECTION_HORIZONTAL, NULL), 0);
    cr_assert_not_null(mirror = vips_image_copy_memory(flipped));
    /* The twin has the pixels without the metadata, which the file keeps. */
    webp_alone = chosen_bytes(webp, twin, NULL);
    jpeg_shared = chosen_bytes(jpeg, image, memo);
    webp_shared = chosen_bytes(webp, twin, memo);
    cr_expect_eq(gal__quality_memo_prepared(memo), 1);
    cr_expect(g_bytes_equal(jpeg_shared, jpeg_alone));
    cr_expect(g_bytes_equal(webp_shared, webp_alone));
    mirror_alone = chosen_bytes(jpeg, mirror, NULL);
    mirror_shared = chosen_bytes(jpeg, mirror, memo);
    cr_expect_eq(gal__quality_memo_prepared(memo), 2);
    cr_expect(g_bytes_equal(mirror_shared, mirror_alone));
}

/* The bytes `format` saves `e` as. */
static GBytes *
saved(const gal_format_def *format, const gal_encode *e)
{
    VipsTarget *target = vips_target_new_to_memory();
    VipsBlob *blob = NULL;
    GBytes *bytes;
    size_t length = 0;
    const void *data;

    cr_assert_eq(format->save(e, target), 0, "%s", vips_error_buffer());
    cr_assert_eq(vips_target_end(target), 0);
    g_object_get(target, "blob", &blob, NULL);
    g_object_unref(target);
    cr_assert_not_null(blob);
    data = vips_blob_get(blob, &length);
    bytes = g_bytes_new(data, length);
    vips_area_unref(VIPS_AREA(blob));
    return bytes;
}

/* A WebP trial (a try on a large picture's sample, only scored) is a
 * faster encode than the file's, whose bytes stay libvips' own at its
 * default settings. */
Test(quality, a_webp_trial_is_a_faster_encode_and_the_file_is_as_libvips_writes_it)
{
    g_autoptr(VipsImage) image = photo_at(0.3);
    const gal_format_def *webp = gal__formats[GAL_FORMAT_WEBP];
    gal_meta strip = { .strip_all = true };
    gal_encode file = { image, &strip, 80, false, GAL_SUBSAMPLING_AUTO, false };
    gal_encode trial = file;
    g_autoptr(GBytes) file_bytes = saved(webp, &file);
    g_autoptr(GBytes) trial_bytes = NULL;
    void *plain = NULL;
    size_t plain_length = 0;

    trial.trial = true;
    trial_bytes = saved(webp, &trial);
    cr_assert_eq(vips_webpsave_buffer(image, &plain, &plain_length, "Q", 80, "strip", TRUE,
                     NULL), 0, "%s", vips_error_buffer());
    cr_expect_eq(g_bytes_get_size(file_bytes), plain_length);
    cr_expect(g_bytes_get_size(file_bytes) == plain_length &&
        memcmp(g_bytes_get_data(file_bytes, NULL), plain, plain_length) == 0);
    cr_expect_not(g_bytes_equal(file_bytes, trial_bytes), "the trial was encoded as the file");
    g_free(plain);
}

/* A large picture's WebP: searched on the sample (in trials), and its first
 * whole encode that meets the target is kept (a whole WebP encode costs
 * what the rest of a photo's work does): this photo's first one does. */
Test(quality, a_large_webp_keeps_its_first_whole_encode_that_meets_the_target)
{
    g_autoptr(VipsImage) image = photo_at(1.6);
    const gal_format_def *webp = gal__formats[GAL_FORMAT_WEBP];
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    gal_quality_goal goal = { GAL_TARGET_STANDARD, 0, 0 };
    gal_quality_choice choice;
    gal_error err = { 0 };

    cr_assert_eq(gal__quality_choose(webp, &e, &goal, &choice, &err), 0, "%s", err.msg);
    cr_expect_gt(choice.sample_encodes, 0);
    cr_expect_geq(choice.score, choice.target);
    cr_expect_eq(choice.encodes, 1, "%d encodes of the whole", choice.encodes);
    cr_expect_eq(score_at(webp, image, choice.quality, NULL), choice.score);
    gal__quality_choice_clear(&choice);
}

/* AVIF (libheif and libaom, on several threads) too: the same bytes twice.
 * A smaller picture: each AV1 encode costs far more. */
Test(quality, avif_gets_the_lowest_quality_that_meets_the_target, .timeout = 120)
{
    if (gal__format_missing(GAL_FORMAT_AVIF))
        cr_skip_test("this libvips writes no AVIF");
    expect_lowest_meeting(gal__formats[GAL_FORMAT_AVIF], GAL_TARGET_STANDARD, 0.4);
}

Test(quality, a_target_out_of_reach_gets_the_highest_quality)
{
    g_autoptr(VipsImage) image = photo();
    const gal_format_def *jpeg = gal__formats[GAL_FORMAT_JPEG];
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    gal_quality_goal goal = { 49.0, 0, 0 };
    gal_quality_choice choice;
    gal_error err = { 0 };

    cr_assert_eq(gal__quality_choose(jpeg, &e, &goal, &choice, &err), 0, "%s", err.msg);
    cr_expect(choice.unreachable);
    cr_expect_eq(choice.quality, jpeg->auto_highest);
    cr_expect_lt(choice.score, 49.0);
    gal__quality_choice_clear(&choice);
}

Test(quality, a_cap_gets_the_highest_quality_under_it)
{
    g_autoptr(VipsImage) image = photo();
    const gal_format_def *jpeg = gal__formats[GAL_FORMAT_JPEG];
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    size_t at_target = 0, above = 0;
    gal_quality_goal goal = { GAL_TARGET_HIGH, 0, 0 };
    gal_quality_choice choice;
    gal_error err = { 0 };

    cr_assert_eq(gal__quality_choose(jpeg, &e, &goal, &choice, &err), 0, "%s", err.msg);
    at_target = choice.length;
    gal__quality_choice_clear(&choice);
    goal.max_bytes = (gint64) (at_target * 2 / 3);
    cr_assert_eq(gal__quality_choose(jpeg, &e, &goal, &choice, &err), 0, "%s", err.msg);
    cr_expect_leq(choice.length, (size_t) goal.max_bytes);
    cr_expect(choice.below_target);
    cr_expect_lt(choice.score, GAL_TARGET_HIGH);
    cr_expect_geq(choice.score, 0);
    score_at(jpeg, image, choice.quality + 1, &above);
    cr_expect_gt(above, (size_t) goal.max_bytes, "quality %d: %zu bytes", choice.quality + 1,
        above);
    gal__quality_choice_clear(&choice);
}

Test(quality, a_cap_below_quality_one_says_so)
{
    g_autoptr(VipsImage) image = photo();
    gal_encode e = { image, &no_meta, 0, false, GAL_SUBSAMPLING_AUTO, false };
    gal_quality_goal goal = { 0, 85, 1000 };
    gal_quality_choice choice;
    gal_error err = { 0 };

    cr_assert_eq(gal__quality_choose(gal__formats[GAL_FORMAT_JPEG], &e, &goal, &choice, &err),
        0, "%s", err.msg);
    cr_expect(choice.over_cap);
    cr_expect_eq(choice.quality, 1);
    cr_expect_gt(choice.length, 1000);
    gal__quality_choice_clear(&choice);
}
