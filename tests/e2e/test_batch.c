/* `gallop run` over awkward batches: broken and oversized photos, outputs
 * that would overwrite inputs or each other, an output folder inside the
 * input folder, a FIFO among the photos. The real binary runs over copies
 * of the fixtures in a per-process temporary folder. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(batch, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 60);

/* A preset that crops (so a truncated photo fails while a stage reads it)
 * and writes nothing but the photos, whatever the shipped presets gain. */
static char *
crop_preset(const char *dir)
{
    return gal_test_write_preset(dir, "crop.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 1080, height: 1350, fit: cover, crop: attention, upscale: true}\n");
}

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"
#define BROKEN_DIR GAL_FIXTURES_DIR "/broken"

/* ---- helpers ----------------------------------------------------------------- */

/* Copy fixtures (paths relative to fixtures/) into `dir`, keeping names. */
static void
copy_fixtures(const char *dir, const char *const *fixtures)
{
    cr_assert_eq(g_mkdir_with_parents(dir, 0777), 0);
    for (int i = 0; fixtures[i]; i++) {
        g_autofree char *from = g_build_filename(GAL_FIXTURES_DIR, fixtures[i], NULL);
        g_autofree char *name = g_path_get_basename(fixtures[i]);
        g_autofree char *to = g_build_filename(dir, name, NULL);

        gal_test_copy_file(from, to);
    }
}

static void
assert_decodes(const char *path, int bands)
{
    g_autoptr(VipsImage) image = gal_test_load_image(path, TRUE);
    double avg;

    /* Pull every pixel: a cut-off file fails here, not at the header. */
    cr_assert_eq(vips_avg(image, &avg, NULL), 0, "%s does not decode: %s", path,
        vips_error_buffer());
    cr_expect_eq(image->Bands, bands, "%s: %d bands", path, image->Bands);
}

/* ---- broken photos in a batch ----------------------------------------------------- */

static const char *const good_fixtures[] = {
    "trip/trip-01.jpg", "trip/trip-02.jpg", "trip/trip-09.png", "trip/trip-18.jpg", NULL,
};
static const char *const broken_fixtures[] = {
    "broken/truncated.jpg", "broken/not-an-image.jpg", "broken/empty.jpg", NULL,
};

/* Run `preset` over good and broken photos together, writing `ext` files:
 * exit 1, the good ones written, each broken one named on its own line. */
static void
check_batch_with_broken_photos(const char *name, const char *preset, const char *ext)
{
    g_autofree char *tmp = gal_test_tmpdir(name);
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in_dir, "-o", out_dir, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) names = NULL;
    int n_good = (int) g_strv_length((char **) good_fixtures);
    int n_broken = (int) g_strv_length((char **) broken_fixtures);
    g_autofree char *summary = g_strdup_printf("%d written, %d failed", n_good, n_broken);

    copy_fixtures(in_dir, good_fixtures);
    copy_fixtures(in_dir, broken_fixtures);
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 1, "stdout:\n%s\nstderr:\n%s", out, err);

    for (int i = 0; good_fixtures[i]; i++) {
        g_autofree char *base = g_path_get_basename(good_fixtures[i]);
        g_autofree char *stem = g_strndup(base, strrchr(base, '.') - base);
        g_autofree char *out_name = g_strdup_printf("%s.%s", stem, ext);
        g_autofree char *out_path = g_build_filename(out_dir, out_name, NULL);
        g_autofree char *in_path = g_build_filename(in_dir, base, NULL);
        g_autofree char *prefix = g_strdup_printf("%s: ", in_path);

        cr_assert(g_file_test(out_path, G_FILE_TEST_IS_REGULAR), "%s missing", out_path);
        /* trip-09 has alpha: PNG keeps it, JPEG flattens it. */
        assert_decodes(out_path,
            strcmp(base, "trip-09.png") == 0 && strcmp(ext, "png") == 0 ? 4 : 3);
        cr_expect_eq(gal_test_count_lines(err, prefix, NULL), 0, "%s reported as failed:\n%s",
            base, err);
    }
    for (int i = 0; broken_fixtures[i]; i++) {
        g_autofree char *base = g_path_get_basename(broken_fixtures[i]);
        g_autofree char *stem = g_strndup(base, strrchr(base, '.') - base);
        g_autofree char *out_name = g_strdup_printf("%s.%s", stem, ext);
        g_autofree char *out_path = g_build_filename(out_dir, out_name, NULL);
        g_autofree char *in_path = g_build_filename(in_dir, base, NULL);
        g_autofree char *prefix = g_strdup_printf("%s: ", in_path);
        g_autofree char *line = NULL;

        cr_expect_not(g_file_test(out_path, G_FILE_TEST_EXISTS), "%s was written", out_path);
        /* Exactly one line starts with the path (the summary's list is
         * indented), and a reason follows it. */
        cr_expect_eq(gal_test_count_lines(err, prefix, &line), 1,
            "%s: not reported once as \"PATH: reason\":\n%s", base, err);
        if (line)
            cr_expect_gt(strlen(line), strlen(prefix) + 3, "no reason: %s", line);
    }
    cr_expect(strstr(err, summary) != NULL, "no summary \"%s\" in:\n%s", summary, err);
    cr_expect_gt(gal_test_count_lines(err, "gallop: ", NULL), 0, "no summary line in:\n%s", err);

    /* Only finished outputs: no temporary left behind by the failures. */
    names = gal_test_list_dir(out_dir);
    cr_expect_eq(names->len, (guint) n_good, "%u files in %s", names->len, out_dir);
    for (guint i = 0; i < names->len; i++)
        cr_expect_not(g_str_has_suffix(names->pdata[i], ".gallop-tmp"), "left behind: %s",
            (char *) names->pdata[i]);
}

/* A crop preset: the truncated photo fails while the stage reads it. */
Test(batch, broken_photos_fail_alone_with_a_crop_preset)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-broken-crop-preset");
    g_autofree char *preset = crop_preset(tmp);

    check_batch_with_broken_photos("batch-broken-crop", preset, "jpg");
}

/* A lazy preset: the truncated photo fails inside the encoder, after the
 * temporary output file was opened, so its cleanup is exercised. */
Test(batch, broken_photos_fail_alone_while_encoding)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-broken-encode-preset");
    g_autofree char *preset = gal_test_write_preset(tmp, "small.yaml",
        "gallop: 1\n"
        "stages: [ {resize: {width: 320, height: 320, fit: inside}} ]\n"
        "output: {format: png}\n");

    check_batch_with_broken_photos("batch-broken-encode", preset, "png");
}

/* ---- the pixel limit -------------------------------------------------------------- */

Test(batch, huge_photo_is_refused_from_its_header)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-huge");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    const char *huge = BROKEN_DIR "/huge.png";
    /* 120 MP is under the default 200 (medium format): a tighter limit. */
    const char *argv[] = { GAL_BINARY, "run", crop, huge, "-o", out_dir, "--set",
        "input.max-megapixels=100", NULL };
    g_autofree char *err = NULL;
    g_autofree char *prefix = g_strdup_printf("%s: ", huge);
    g_autofree char *line = NULL;
    gint64 start = g_get_monotonic_time();
    double seconds;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 1, "stderr:\n%s", err);
    seconds = (g_get_monotonic_time() - start) / 1e6;
    cr_assert_eq(gal_test_count_lines(err, prefix, &line), 1, "%s", err);
    cr_expect(strstr(line, "120.0 megapixels") != NULL, "%s", line);
    cr_expect(strstr(line, "limit of 100") != NULL, "%s", line);
    cr_expect(strstr(line, "input.max-megapixels") != NULL, "%s", line);
    /* 120 MP decoded would take far longer than reading a header. */
    cr_expect_lt(seconds, 3.0, "refusing took %.2f s", seconds);
    cr_expect_not(g_file_test(out_dir, G_FILE_TEST_EXISTS), "%s was created", out_dir);
}

/* The default limit, 200 MP, lets a 102 MP medium-format photo (and this
 * 120 MP one) through. */
Test(batch, pixel_limit_lets_medium_format_through_by_default)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-huge-allowed");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *out_path = g_build_filename(out_dir, "huge.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", crop, BROKEN_DIR "/huge.png", "-o",
        out_dir, "-q", NULL };
    g_autofree char *err = NULL;
    g_autoptr(VipsImage) image = NULL;

    /* The photo is all black and compresses well: decoding it takes about
     * half a second. */
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "stderr:\n%s", err);
    cr_expect(strstr(err, "megapixels") == NULL, "%s", err);
    image = gal_test_load_image(out_path, FALSE);
    cr_expect_eq(image->Xsize, 1080);
    cr_expect_eq(image->Ysize, 1350);
}

/* ---- output names ------------------------------------------------------------------ */

/* The photo at `path` is still, byte for byte, the fixture it was copied
 * from (`fixture`). */
static void
expect_unchanged(const char *path, const char *fixture)
{
    gsize want_len, got_len;
    g_autofree char *want = gal_test_read_bytes(fixture, &want_len);
    g_autofree char *got = gal_test_read_bytes(path, &got_len);

    cr_expect(want_len == got_len && memcmp(want, got, want_len) == 0, "%s was changed", path);
}

/* Photos written back to the folder they came from, same name and format:
 * refused before anything is written, the inputs untouched. Through a
 * link: the inputs are named through a symlink to their folder, so paths
 * differ. Relative: both folders are named from the working folder
 * ("in"), as the plan looks the outputs up in the folder it opened. */
typedef enum { NAMED_ABSOLUTE, NAMED_THROUGH_LINK, NAMED_RELATIVE } naming;

static void
check_overwrite_refused(const char *name, naming how)
{
    g_autofree char *tmp = gal_test_tmpdir(name);
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *link = g_build_filename(tmp, "link", NULL);
    const char *const photos[] = { "trip/trip-01.jpg", "trip/trip-02.jpg", NULL };
    gboolean through_link = how == NAMED_THROUGH_LINK;
    const char *argv[] = { GAL_BINARY, "run", crop,
        through_link ? link : in_dir, "-o", in_dir, "-q", NULL };
    g_autofree char *script = g_strdup_printf("cd '%s' && exec '%s' run '%s' in -o in -q", tmp,
        GAL_BINARY, crop);
    const char *relative_argv[] = { "/bin/sh", "-c", script, NULL };
    g_autofree char *err = NULL;

    copy_fixtures(in_dir, photos);
    if (through_link)
        cr_assert_eq(symlink(in_dir, link), 0);
    cr_assert_eq(gal_test_spawn(how == NAMED_RELATIVE ? relative_argv : argv, NULL, &err), 1,
        "stderr:\n%s", err);
    for (int i = 0; photos[i]; i++) {
        g_autofree char *fixture = g_build_filename(GAL_FIXTURES_DIR, photos[i], NULL);
        g_autofree char *base = g_path_get_basename(photos[i]);
        g_autofree char *copy = g_build_filename(in_dir, base, NULL);
        g_autofree char *given = g_build_filename(
            how == NAMED_RELATIVE ? "in" : through_link ? link : in_dir, base, NULL);
        g_autofree char *prefix = g_strdup_printf("%s: ", given);
        g_autofree char *line = NULL;

        cr_expect_eq(gal_test_count_lines(err, prefix, &line), 1, "%s", err);
        if (line)
            cr_expect(strstr(line, "would overwrite an input") != NULL, "%s", line);
        expect_unchanged(copy, fixture);
    }
}

Test(batch, output_that_would_overwrite_its_input_is_refused)
{
    check_overwrite_refused("batch-overwrite", NAMED_ABSOLUTE);
}

Test(batch, overwrite_is_refused_with_folders_named_relatively)
{
    check_overwrite_refused("batch-overwrite-relative", NAMED_RELATIVE);
}

Test(batch, overwrite_is_refused_through_a_symlinked_folder)
{
    check_overwrite_refused("batch-overwrite-link", NAMED_THROUGH_LINK);
}

/* Outputs named into a subfolder of the output folder that is the input
 * folder (a symlink): refused, though the output folder itself holds no
 * photo. */
Test(batch, overwrite_is_refused_through_a_linked_subfolder)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-overwrite-subfolder");
    g_autofree char *preset = gal_test_write_preset(tmp, "sub.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 200, height: 200}\n"
        "output: {name: \"sub/{stem}.{ext}\"}\n");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *sub = g_build_filename(out_dir, "sub", NULL);
    g_autofree char *copy = g_build_filename(in_dir, "trip-01.jpg", NULL);
    g_autofree char *fixture = g_build_filename(TRIP_DIR, "trip-01.jpg", NULL);
    const char *const photos[] = { "trip/trip-01.jpg", NULL };
    const char *argv[] = { GAL_BINARY, "run", preset, in_dir, "-o", out_dir, "-q", NULL };
    g_autofree char *err = NULL;

    copy_fixtures(in_dir, photos);
    cr_assert_eq(g_mkdir_with_parents(out_dir, 0777), 0);
    cr_assert_eq(symlink(in_dir, sub), 0);
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 1, "stderr:\n%s", err);
    cr_expect(strstr(err, "would overwrite an input") != NULL, "%s", err);
    expect_unchanged(copy, fixture);
}

/* A photo that is a link to a file in the output folder is that file: an
 * output of the same name there would replace it, so it is refused, the
 * file untouched. Named itself, and found in a folder (--follow-symlinks:
 * the link leads out of its folder). */
static void
check_link_into_output_refused(const char *name, gboolean named)
{
    g_autofree char *tmp = gal_test_tmpdir(name);
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *link = g_build_filename(in_dir, "trip-01.jpg", NULL);
    g_autofree char *real = g_build_filename(out_dir, "trip-01.jpg", NULL);
    g_autofree char *fixture = g_build_filename(TRIP_DIR, "trip-01.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", crop, named ? link : in_dir, "-o", out_dir, "-q",
        "--follow-symlinks", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(g_mkdir_with_parents(in_dir, 0777), 0);
    cr_assert_eq(g_mkdir_with_parents(out_dir, 0777), 0);
    gal_test_copy_file(fixture, real);
    cr_assert_eq(symlink(real, link), 0);
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 1, "stderr:\n%s", err);
    cr_expect(strstr(err, "would overwrite an input") != NULL, "%s", err);
    expect_unchanged(real, fixture);
}

Test(batch, a_photo_linked_from_the_output_folder_is_not_replaced_named)
{
    check_link_into_output_refused("batch-link-into-output-named", TRUE);
}

Test(batch, a_photo_linked_from_the_output_folder_is_not_replaced_scanned)
{
    check_link_into_output_refused("batch-link-into-output-scanned", FALSE);
}

/* A symlink in the output folder to a photo elsewhere is not that photo's
 * name: the output replaces the link (renamed over it, never written
 * through), and the photo is as it was. */
Test(batch, output_replaces_a_link_to_an_input_never_the_input)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-output-link");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *copy = g_build_filename(in_dir, "trip-01.jpg", NULL);
    g_autofree char *out_path = g_build_filename(out_dir, "trip-01.jpg", NULL);
    g_autofree char *fixture = g_build_filename(TRIP_DIR, "trip-01.jpg", NULL);
    const char *const photos[] = { "trip/trip-01.jpg", NULL };
    const char *argv[] = { GAL_BINARY, "run", crop, in_dir, "-o", out_dir, "-q", NULL };
    g_autofree char *err = NULL;
    struct stat st;

    copy_fixtures(in_dir, photos);
    cr_assert_eq(g_mkdir_with_parents(out_dir, 0777), 0);
    cr_assert_eq(symlink(copy, out_path), 0);
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "stderr:\n%s", err);
    cr_assert_eq(lstat(out_path, &st), 0);
    cr_expect(S_ISREG(st.st_mode), "%s is still a link", out_path);
    expect_unchanged(copy, fixture);
}

/* stdout and stderr as one stream (2>&1, a CI log): photos' lines come
 * before a later photo's error, though stdout is not flushed after every
 * photo (at most ten times a second). One tiny photo at a time, in input
 * order: a and b, made within milliseconds, then the broken c. */
Test(batch, lines_and_errors_keep_their_order_in_one_stream)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-one-stream");
    g_autofree char *preset = gal_test_write_preset(tmp, "tiny.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 16, height: 16}\n");
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *a = g_build_filename(in_dir, "a.jpg", NULL);
    g_autofree char *b = g_build_filename(in_dir, "b.jpg", NULL);
    g_autofree char *c = g_build_filename(in_dir, "c.jpg", NULL);
    g_autofree char *script = g_strdup_printf("exec '%s' run '%s' '%s' -o '%s' -j 1 2>&1",
        GAL_BINARY, preset, in_dir, out_dir);
    const char *argv[] = { "/bin/sh", "-c", script, NULL };
    g_autofree char *out = NULL;
    const char *wrote_b, *error_c;

    cr_assert_eq(g_mkdir_with_parents(in_dir, 0777), 0);
    gal_test_copy_file(GAL_FIXTURES_DIR "/captions/none.jpg", a);
    gal_test_copy_file(GAL_FIXTURES_DIR "/captions/none.jpg", b);
    gal_test_copy_file(BROKEN_DIR "/not-an-image.jpg", c);
    cr_assert_eq(gal_test_spawn(argv, &out, NULL), 1, "%s", out);
    wrote_b = strstr(out, "b.jpg (");
    error_c = strstr(out, "c.jpg: ");
    cr_assert(strstr(out, "a.jpg (") && wrote_b && error_c, "%s", out);
    cr_expect(strstr(out, "a.jpg (") < wrote_b && wrote_b < error_c, "%s", out);
}

/* A ".." in the template itself fails every photo: it is a preset error,
 * reported before anything is opened or written. */
Test(batch, name_template_with_dotdot_is_refused)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-dotdot");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *escaped = g_build_filename(tmp, "trip-01.jpg", NULL);
    const char *argv[] = { GAL_BINARY, "run", crop, TRIP_DIR "/trip-01.jpg",
        "-o", out_dir, "--set", "output.name=../{stem}.jpg", "-q", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 2, "stderr:\n%s", err);
    cr_expect_gt(gal_test_count_lines(err, "--set output.name=../{stem}.jpg: output.name: ", NULL),
        0, "%s", err);
    cr_expect(strstr(err, "\"../{stem}.jpg\" is not a usable name template") != NULL &&
            strstr(err, "outside the output folder") != NULL,
        "%s", err);
    cr_expect_not(g_file_test(escaped, G_FILE_TEST_EXISTS), "%s was written", escaped);
    cr_expect_not(g_file_test(out_dir, G_FILE_TEST_EXISTS), "%s was created", out_dir);
}

Test(batch, two_photos_with_one_output_name_fail_the_second)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-collision");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *a_jpg = g_build_filename(in_dir, "a.jpg", NULL);
    g_autofree char *a_png = g_build_filename(in_dir, "a.png", NULL);
    g_autofree char *a_out = g_build_filename(out_dir, "a.jpg", NULL);
    g_autofree char *prefix = g_strdup_printf("%s: ", a_png);
    const char *argv[] = { GAL_BINARY, "run", crop, in_dir, "-o", out_dir, "-q",
        NULL };
    g_autofree char *err = NULL;
    g_autofree char *line = NULL;
    g_autoptr(GPtrArray) names = NULL;

    cr_assert_eq(g_mkdir_with_parents(in_dir, 0777), 0);
    gal_test_copy_file(TRIP_DIR "/trip-01.jpg", a_jpg);
    gal_test_copy_file(TRIP_DIR "/trip-09.png", a_png);
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 1, "stderr:\n%s", err);
    cr_assert_eq(gal_test_count_lines(err, prefix, &line), 1, "%s", err);
    cr_expect(strstr(line, a_jpg) != NULL, "does not name the first photo: %s", line);
    assert_decodes(a_out, 3);
    names = gal_test_list_dir(out_dir);
    cr_expect_eq(names->len, 1);
}

/* The output folder given relative, through "..", with a trailing slash:
 * its photos' paths are the folder's canonical path and their names, and
 * two photos of one name still collide, the first in input order keeping
 * it, whatever the spelling. */
Test(batch, a_collision_is_found_whatever_the_output_folder_spelling)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-collision-spelling");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *sub = g_build_filename(tmp, "sub", NULL);
    g_autofree char *first_dir = g_build_filename(tmp, "in", "a", NULL);
    g_autofree char *second_dir = g_build_filename(tmp, "in", "b", NULL);
    g_autofree char *first = g_build_filename(first_dir, "p.jpg", NULL);
    g_autofree char *second = g_build_filename(second_dir, "p.jpg", NULL);
    g_autofree char *out_p = g_build_filename(tmp, "out", "p.jpg", NULL);
    g_autofree char *want = g_strdup_printf("in/b/p.jpg: its output %s is already the output "
        "of in/a/p.jpg", out_p);
    const char *argv[] = { GAL_BINARY, "run", crop, "in", "-o", "sub/../out/", "--set",
        "output.name={stem}.{ext}", "-q", NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
    cr_assert_eq(g_mkdir_with_parents(first_dir, 0777), 0);
    cr_assert_eq(g_mkdir_with_parents(second_dir, 0777), 0);
    gal_test_copy_file(TRIP_DIR "/trip-01.jpg", first);
    gal_test_copy_file(TRIP_DIR "/trip-14.jpg", second);
    /* Relative paths, as a user types them (this test's own process). */
    cr_assert_eq(chdir(tmp), 0);
    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 1, "stderr:\n%s", err);
    cr_expect_eq(gal_test_count_lines(err, want, NULL), 1, "%s", err);
    assert_decodes(out_p, 3);
}

/* ---- what the scan takes ---------------------------------------------------------- */

Test(batch, output_folder_inside_the_input_is_not_scanned)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-nested-out");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(in_dir, "out", NULL);
    const char *const photos[] = { "trip/trip-01.jpg", "trip/trip-09.png", "trip/trip-14.jpg",
        NULL };
    /* --force: the second round rebuilds rather than finding all up to date. */
    const char *argv[] = { GAL_BINARY, "run", crop, in_dir, "-o", out_dir, "--force", NULL };

    copy_fixtures(in_dir, photos);
    for (int round = 1; round <= 2; round++) {
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        g_autoptr(GPtrArray) names = NULL;

        cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "run %d:\n%s", round, err);
        cr_expect(strstr(err, ": 3 photos: 3 written") != NULL, "run %d: %s", round, err);
        cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), 3, "run %d:\n%s", round, out);
        names = gal_test_list_dir(out_dir);
        cr_expect_eq(names->len, 3, "run %d: %u files in %s", round, names->len, out_dir);
    }
}

Test(batch, fifo_is_skipped_without_being_opened)
{
    g_autofree char *tmp = gal_test_tmpdir("batch-fifo");
    g_autofree char *crop = crop_preset(tmp);
    g_autofree char *in_dir = g_build_filename(tmp, "in", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    g_autofree char *fifo = g_build_filename(in_dir, "pipe.jpg", NULL);
    g_autofree char *prefix = g_strdup_printf("%s: ", fifo);
    const char *const photos[] = { "trip/trip-01.jpg", "trip/trip-02.jpg", NULL };
    /* Opening the FIFO would block forever (nobody writes to it): timeout
     * turns a hang into exit status 124 instead of a stuck test. */
    const char *argv[] = { "timeout", "20", GAL_BINARY, "run", crop, in_dir,
        "-o", out_dir, "-q", NULL };
    g_autofree char *err = NULL;
    g_autofree char *line = NULL;
    g_autoptr(GPtrArray) names = NULL;
    int status;

    copy_fixtures(in_dir, photos);
    cr_assert_eq(mkfifo(fifo, 0666), 0, "mkfifo %s", fifo);
    status = gal_test_spawn(argv, NULL, &err);
    cr_assert_neq(status, 124, "gallop hung on the FIFO");
    /* Skipped, not failed: every photo there is was written. */
    cr_assert_eq(status, 0, "stderr:\n%s", err);
    cr_assert_eq(gal_test_count_lines(err, prefix, &line), 1, "%s", err);
    cr_expect(strstr(line, "not a regular file") != NULL, "%s", line);
    cr_expect(strstr(err, "2 written, 0 failed, 1 skipped") != NULL, "%s", err);
    names = gal_test_list_dir(out_dir);
    cr_assert_eq(names->len, 2, "%u files in %s", names->len, out_dir);
    cr_expect_str_eq(names->pdata[0], "trip-01.jpg");
    cr_expect_str_eq(names->pdata[1], "trip-02.jpg");
}
