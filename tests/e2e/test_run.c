/* `gallop run` over the trip fixtures, end to end: the real binary writes
 * files, and the tests read them back with libvips.
 *
 * Orientation and colour are checked against references built here, from
 * the stored pixels and fixtures/trip/MANIFEST.tsv, with our own EXIF
 * transform table: never against gallop's own loading code. Pixels are
 * compared with a tolerance, never bytes; bytes are compared only where
 * the claim is about bytes (determinism, -j). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gal_test.h"

TestSuite(run, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 60);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"
#define TRIP_COUNT 23

/* Fit inside 320x320 without upscaling, PNG: the geometry stays easy to
 * reproduce by hand, and PNG adds no loss of its own. */
static const char geometry_preset[] =
    "gallop: 1\n"
    "name: geometry\n"
    "stages: [ {resize: {width: 320, height: 320, fit: inside}} ]\n"
    "output: {format: png}\n";
#define GEOMETRY_BOX 320

/* Tolerances for gallop's output against a reference resized by us: the
 * two resamplers differ (gallop shrinks JPEGs on load), so not bit-exact. */
#define MAX_MEAN_DIFF 3.0
/* What a wrong orientation or missing colour management must at least
 * cost, so that the comparisons above can fail. */
#define MIN_WRONG_DIFF 10.0

/* ---- helpers ----------------------------------------------------------------- */

/* The same file names with the same bytes in both folders. */
static void
assert_same_files(const char *dir_a, const char *dir_b, int expected_count)
{
    g_autoptr(GPtrArray) a = gal_test_list_dir(dir_a);
    g_autoptr(GPtrArray) b = gal_test_list_dir(dir_b);

    cr_assert_eq(a->len, (guint) expected_count, "%s has %u files", dir_a, a->len);
    cr_assert_eq(b->len, (guint) expected_count, "%s has %u files", dir_b, b->len);
    for (guint i = 0; i < a->len; i++) {
        g_autofree char *pa = g_build_filename(dir_a, a->pdata[i], NULL);
        g_autofree char *pb = g_build_filename(dir_b, b->pdata[i], NULL);
        g_autofree char *ca = NULL;
        g_autofree char *cb = NULL;
        gsize la, lb;

        cr_assert_str_eq(a->pdata[i], b->pdata[i]);
        ca = gal_test_read_bytes(pa, &la);
        cb = gal_test_read_bytes(pb, &lb);
        cr_expect(la == lb && memcmp(ca, cb, la) == 0, "%s and %s differ (%zu vs %zu bytes)",
            pa, pb, (size_t) la, (size_t) lb);
    }
}

/* One row of fixtures/trip/MANIFEST.tsv. */
typedef struct {
    char file[32];
    int stored_width, stored_height;
    int orientation;
    int display_width, display_height;
    int bands;
    char kind[16];
} trip_photo;

static int
read_manifest(trip_photo *photos, int max)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    int n = 0;

    cr_assert(g_file_get_contents(TRIP_DIR "/MANIFEST.tsv", &text, NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    cr_assert(g_str_has_prefix(lines[0], "file\tstored_width\tstored_height\torientation\t"
                                         "display_width\tdisplay_height\tbands\tkind\t"),
        "unexpected MANIFEST header: %s", lines[0]);
    for (int i = 1; lines[i] && *lines[i]; i++) {
        g_auto(GStrv) cols = g_strsplit(lines[i], "\t", -1);
        trip_photo *p = &photos[n];

        cr_assert_lt(n, max);
        cr_assert_geq(g_strv_length(cols), 8, "short MANIFEST row: %s", lines[i]);
        g_strlcpy(p->file, cols[0], sizeof(p->file));
        p->stored_width = atoi(cols[1]);
        p->stored_height = atoi(cols[2]);
        p->orientation = atoi(cols[3]);
        p->display_width = atoi(cols[4]);
        p->display_height = atoi(cols[5]);
        p->bands = atoi(cols[6]);
        g_strlcpy(p->kind, cols[7], sizeof(p->kind));
        n++;
    }
    return n;
}

static char *
stem_of(const char *file)
{
    char *stem = g_strdup(file);
    char *dot = strrchr(stem, '.');

    if (dot)
        *dot = '\0';
    return stem;
}

/* How EXIF Orientation maps stored pixels to the upright picture, derived
 * from the definitions (stored W x H, pixel (x, y)):
 *   1 as stored; 2 mirror left-right; 3 turned 180; 4 mirror top-bottom;
 *   5 transpose, (x, y) -> (y, x): rot90 clockwise gives (H-1-y, x), then a
 *     horizontal flip (the width is now H) gives (y, x);
 *   6 turned 90 clockwise;
 *   7 transverse, (x, y) -> (H-1-y, W-1-x): rot90 clockwise gives (H-1-y, x),
 *     then a vertical flip (the height is now W) gives (H-1-y, W-1-x);
 *   8 turned 270 clockwise (90 anticlockwise).
 * Anything else (the invalid 9) is shown as stored. Rotate first, then flip. */
typedef enum { NO_FLIP, FLIP_H, FLIP_V } flip_kind;

static const struct {
    VipsAngle angle;
    flip_kind flip;
} exif_transform[] = {
    [1] = { VIPS_ANGLE_D0, NO_FLIP },
    [2] = { VIPS_ANGLE_D0, FLIP_H },
    [3] = { VIPS_ANGLE_D180, NO_FLIP },
    [4] = { VIPS_ANGLE_D0, FLIP_V },
    [5] = { VIPS_ANGLE_D90, FLIP_H },
    [6] = { VIPS_ANGLE_D90, NO_FLIP },
    [7] = { VIPS_ANGLE_D90, FLIP_V },
    [8] = { VIPS_ANGLE_D270, NO_FLIP },
};

static VipsImage *
apply_orientation(VipsImage *in, int orientation)
{
    g_autoptr(VipsImage) rotated = NULL;
    VipsImage *out = NULL;

    if (orientation < 1 || orientation > 8)
        return g_object_ref(in);
    cr_assert_eq(vips_rot(in, &rotated, exif_transform[orientation].angle, NULL), 0);
    switch (exif_transform[orientation].flip) {
    case NO_FLIP: return g_steal_pointer(&rotated);
    case FLIP_H: cr_assert_eq(vips_flip(rotated, &out, VIPS_DIRECTION_HORIZONTAL, NULL), 0); break;
    case FLIP_V: cr_assert_eq(vips_flip(rotated, &out, VIPS_DIRECTION_VERTICAL, NULL), 0); break;
    }
    return out;
}

/* The stored pixels, decoded with no rotation, in sRGB: a Display-P3 photo
 * converted through its embedded profile when `manage_colour`, gray
 * expanded to three bands. */
static VipsImage *
stored_srgb(const char *path, gboolean manage_colour)
{
    g_autoptr(VipsImage) stored = gal_test_load_image(path, FALSE);
    g_autoptr(VipsImage) managed = NULL;
    VipsImage *image = stored, *out;

    if (manage_colour && vips_image_get_typeof(stored, VIPS_META_ICC_NAME)) {
        cr_assert_eq(vips_icc_transform(stored, &managed, "srgb", "embedded", TRUE, NULL), 0,
            "%s: %s", path, vips_error_buffer());
        image = managed;
    }
    if (image->Bands < 3) {
        cr_assert_eq(vips_colourspace(image, &out, VIPS_INTERPRETATION_sRGB, NULL), 0);
        return out;
    }
    return g_object_ref(image);
}

/* Scale to exactly width x height as gallop's resize would, leaving any
 * orientation tag alone: the reference is already upright. */
static VipsImage *
scale_to(VipsImage *in, int width, int height)
{
    VipsImage *out;

    cr_assert_eq(vips_thumbnail_image(in, &out, width, "height", height, "size",
                     VIPS_SIZE_FORCE, "no_rotate", TRUE, NULL),
        0, "%s", vips_error_buffer());
    return out;
}

/* The size "fit inside box, never enlarge" gives, by hand. */
static void
inside_size(int width, int height, int box, int *out_width, int *out_height)
{
    double s = MIN(1.0, MIN((double) box / width, (double) box / height));

    *out_width = MAX(1, (int) lround(width * s));
    *out_height = MAX(1, (int) lround(height * s));
}

/* Run the geometry preset over `input` (a file or folder) into `out_dir`,
 * with `extra` (may be NULL) as a --set; asserts exit 0. */
static void
run_geometry(const char *tmp, const char *input, const char *out_dir, const char *extra)
{
    g_autofree char *preset = gal_test_write_preset(tmp, "geometry.yaml", geometry_preset);
    const char *argv[] = { GAL_BINARY, "run", preset, input, "-o", out_dir, "-q",
        extra ? "--set" : NULL, extra, NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "gallop run failed:\n%s", err);
}

/* ---- the shipped preset over the whole trip ------------------------------------ */

Test(run, instagram_portrait_writes_every_trip_photo_at_1080x1350)
{
    g_autofree char *tmp = gal_test_tmpdir("run-portrait");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    const char *argv[] = { GAL_BINARY, "run", "instagram-portrait", TRIP_DIR, "-o", out_dir,
        NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) names = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "stderr:\n%s", err);
    names = gal_test_list_dir(out_dir);
    /* The posts, and the preset's contact sheet (sorting first). */
    cr_assert_eq(names->len, TRIP_COUNT + 1, "%u files in %s", names->len, out_dir);
    cr_expect_str_eq(names->pdata[0], "contact-1.jpg");
    cr_expect_eq(gal_test_count_lines(out, "sheet  ", NULL), 1, "%s", out);
    for (int i = 0; i < TRIP_COUNT; i++) {
        g_autofree char *expected = g_strdup_printf("trip-%02d.jpg", i + 1);
        g_autofree char *path = g_build_filename(out_dir, expected, NULL);
        g_autoptr(VipsImage) image = NULL;
        const char *loader = NULL;

        cr_assert_str_eq(names->pdata[i + 1], expected);
        image = gal_test_load_image(path, FALSE);
        cr_expect_eq(image->Xsize, 1080, "%s: width %d", expected, image->Xsize);
        cr_expect_eq(image->Ysize, 1350, "%s: height %d", expected, image->Ysize);
        cr_expect_eq(image->Bands, 3, "%s: %d bands", expected, image->Bands);
        cr_expect_eq(image->Type, VIPS_INTERPRETATION_sRGB, "%s: interpretation %d", expected,
            image->Type);
        cr_expect_eq(vips_image_get_string(image, VIPS_META_LOADER, &loader), 0);
        cr_expect_str_eq(loader, "jpegload", "%s", expected);
    }
    /* One "wrote" line per photo on stdout. */
    cr_expect_eq(gal_test_count_lines(out, "wrote  ", NULL), TRIP_COUNT, "%s", out);
    cr_expect(strstr(err, "23 written, 0 failed") != NULL, "summary: %s", err);
}

/* ---- orientation ---------------------------------------------------------------- */

Test(run, every_exif_orientation_matches_a_hand_made_reference)
{
    g_autofree char *tmp = gal_test_tmpdir("run-orientation");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    trip_photo photos[64];
    int n = read_manifest(photos, G_N_ELEMENTS(photos));
    int unturned_checked = 0;

    cr_assert_eq(n, TRIP_COUNT);
    run_geometry(tmp, TRIP_DIR, out_dir, NULL);

    for (int i = 0; i < n; i++) {
        const trip_photo *p = &photos[i];
        g_autofree char *in_path = g_build_filename(TRIP_DIR, p->file, NULL);
        g_autofree char *stem = stem_of(p->file);
        g_autofree char *out_name = g_strdup_printf("%s.png", stem);
        g_autofree char *out_path = g_build_filename(out_dir, out_name, NULL);
        g_autoptr(VipsImage) got = gal_test_load_image(out_path, FALSE);
        g_autoptr(VipsImage) stored = stored_srgb(in_path, TRUE);
        g_autoptr(VipsImage) upright = apply_orientation(stored, p->orientation);
        g_autoptr(VipsImage) reference = NULL;
        int width, height;
        double max_abs, mean_abs;

        /* Our table must agree with the manifest about the shape. */
        cr_assert_eq(upright->Xsize, p->display_width, "%s: table gives width %d", p->file,
            upright->Xsize);
        cr_assert_eq(upright->Ysize, p->display_height, "%s: table gives height %d", p->file,
            upright->Ysize);

        inside_size(p->display_width, p->display_height, GEOMETRY_BOX, &width, &height);
        cr_expect_eq(got->Xsize, width, "%s: output %dx%d, expected %dx%d", p->file,
            got->Xsize, got->Ysize, width, height);
        cr_expect_eq(got->Ysize, height, "%s: output %dx%d, expected %dx%d", p->file,
            got->Xsize, got->Ysize, width, height);
        cr_expect_eq(got->Bands, p->bands == 4 ? 4 : 3, "%s: %d bands", p->file, got->Bands);
        if (got->Xsize != width || got->Ysize != height)
            continue;

        reference = scale_to(upright, width, height);
        cr_assert_eq(gal_test_diff(got, reference, &max_abs, &mean_abs), 0,
            "%s: cannot compare (%d bands vs %d)", p->file, got->Bands, reference->Bands);
        cr_expect_leq(mean_abs, MAX_MEAN_DIFF,
            "%s (orientation %d): mean abs diff %.2f from the upright reference", p->file,
            p->orientation, mean_abs);

        /* Every wrong transform must fail, or this test could not: the
         * stored, unturned pixels (1) for orientations 2..8, and any other
         * orientation giving the same shape. A different shape fails on
         * the size alone. */
        for (int wrong = 1; wrong <= 8; wrong++) {
            g_autoptr(VipsImage) turned = NULL;
            g_autoptr(VipsImage) small = NULL;
            int effective = p->orientation >= 1 && p->orientation <= 8 ? p->orientation : 1;

            if (wrong == effective)
                continue;
            turned = apply_orientation(stored, wrong);
            if (turned->Xsize != upright->Xsize || turned->Ysize != upright->Ysize)
                continue;
            small = scale_to(turned, width, height);
            cr_assert_eq(gal_test_diff(got, small, &max_abs, &mean_abs), 0);
            cr_expect_gt(mean_abs, MIN_WRONG_DIFF,
                "%s (orientation %d): only %.2f from the pixels turned as orientation %d",
                p->file, p->orientation, mean_abs, wrong);
            if (wrong == 1)
                unturned_checked++;
        }
    }
    /* Among orientations 2..8, 04 05 07 08 12 16 keep their shape (02 11
     * 15 17 18 change it). */
    cr_expect_eq(unturned_checked, 6, "stored pixels compared for %d photos", unturned_checked);
}

/* ---- colour ----------------------------------------------------------------------- */

static const trip_photo *
find_kind(const trip_photo *photos, int n, const char *kind)
{
    for (int i = 0; i < n; i++)
        if (strcmp(photos[i].kind, kind) == 0)
            return &photos[i];
    cr_assert_fail("no %s photo in the manifest", kind);
    return NULL;
}

Test(run, display_p3_photo_is_converted_to_srgb)
{
    g_autofree char *tmp = gal_test_tmpdir("run-p3");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    trip_photo photos[64];
    int n = read_manifest(photos, G_N_ELEMENTS(photos));
    const trip_photo *p = find_kind(photos, n, "jpeg-p3");
    g_autofree char *in_path = g_build_filename(TRIP_DIR, p->file, NULL);
    g_autofree char *stem = stem_of(p->file);
    g_autofree char *out_name = g_strdup_printf("%s.png", stem);
    g_autofree char *out_path = g_build_filename(out_dir, out_name, NULL);
    g_autoptr(VipsImage) got = NULL;
    g_autoptr(VipsImage) managed = NULL;
    g_autoptr(VipsImage) unmanaged = NULL;
    g_autoptr(VipsImage) managed_small = NULL;
    g_autoptr(VipsImage) unmanaged_small = NULL;
    double max_abs, to_managed, to_unmanaged, apart;

    cr_assert_eq(p->orientation, 1, "the P3 fixture is expected upright");
    run_geometry(tmp, in_path, out_dir, NULL);
    got = gal_test_load_image(out_path, FALSE);
    managed = stored_srgb(in_path, TRUE);
    unmanaged = stored_srgb(in_path, FALSE);
    cr_assert(vips_image_get_typeof(unmanaged, VIPS_META_ICC_NAME),
        "%s has no embedded profile", p->file);
    managed_small = scale_to(managed, got->Xsize, got->Ysize);
    unmanaged_small = scale_to(unmanaged, got->Xsize, got->Ysize);

    cr_assert_eq(got->Bands, 3);
    cr_assert_eq(gal_test_diff(got, managed_small, &max_abs, &to_managed), 0);
    cr_assert_eq(gal_test_diff(got, unmanaged_small, &max_abs, &to_unmanaged), 0);
    cr_assert_eq(gal_test_diff(managed_small, unmanaged_small, &max_abs, &apart), 0);
    /* The two references must be told apart, or the test proves nothing. */
    cr_assert_gt(apart, 2 * MAX_MEAN_DIFF, "P3 and sRGB references only %.2f apart", apart);
    cr_expect_leq(to_managed, MAX_MEAN_DIFF, "mean abs diff %.2f from the sRGB reference",
        to_managed);
    cr_expect_gt(to_unmanaged, 2 * to_managed + 1,
        "output is as close to the unmanaged pixels (%.2f) as to sRGB (%.2f)", to_unmanaged,
        to_managed);
}

Test(run, grayscale_photo_becomes_three_band_srgb)
{
    g_autofree char *tmp = gal_test_tmpdir("run-gray");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    trip_photo photos[64];
    int n = read_manifest(photos, G_N_ELEMENTS(photos));
    const trip_photo *p = find_kind(photos, n, "jpeg-gray");
    g_autofree char *in_path = g_build_filename(TRIP_DIR, p->file, NULL);
    g_autofree char *stem = stem_of(p->file);
    g_autofree char *png_name = g_strdup_printf("%s.png", stem);
    g_autofree char *jpg_name = g_strdup_printf("%s.jpg", stem);
    g_autofree char *png_path = g_build_filename(out_dir, png_name, NULL);
    g_autofree char *jpg_path = g_build_filename(out_dir, jpg_name, NULL);
    g_autoptr(VipsImage) stored = gal_test_load_image(in_path, FALSE);
    g_autoptr(VipsImage) png = NULL;
    g_autoptr(VipsImage) jpg = NULL;

    cr_assert_eq(stored->Bands, 1, "the gray fixture has %d bands", stored->Bands);
    run_geometry(tmp, in_path, out_dir, NULL);
    run_geometry(tmp, in_path, out_dir, "output.format=jpeg");
    png = gal_test_load_image(png_path, FALSE);
    jpg = gal_test_load_image(jpg_path, FALSE);
    cr_expect_eq(png->Bands, 3, "png: %d bands", png->Bands);
    cr_expect_eq(png->Type, VIPS_INTERPRETATION_sRGB, "png: interpretation %d", png->Type);
    cr_expect_eq(jpg->Bands, 3, "jpeg: %d bands", jpg->Bands);
    cr_expect_eq(jpg->Type, VIPS_INTERPRETATION_sRGB, "jpeg: interpretation %d", jpg->Type);
}

Test(run, png_alpha_is_kept_in_png_and_flattened_in_jpeg)
{
    g_autofree char *tmp = gal_test_tmpdir("run-alpha");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    trip_photo photos[64];
    int n = read_manifest(photos, G_N_ELEMENTS(photos));
    const trip_photo *p = find_kind(photos, n, "png-alpha");
    g_autofree char *in_path = g_build_filename(TRIP_DIR, p->file, NULL);
    g_autofree char *stem = stem_of(p->file);
    g_autofree char *png_name = g_strdup_printf("%s.png", stem);
    g_autofree char *jpg_name = g_strdup_printf("%s.jpg", stem);
    g_autofree char *png_path = g_build_filename(out_dir, png_name, NULL);
    g_autofree char *jpg_path = g_build_filename(out_dir, jpg_name, NULL);
    g_autoptr(VipsImage) png = NULL;
    g_autoptr(VipsImage) jpg = NULL;
    g_autoptr(VipsImage) alpha = NULL;
    double min_alpha;

    run_geometry(tmp, in_path, out_dir, "output.format=png");
    run_geometry(tmp, in_path, out_dir, "output.format=jpeg");
    png = gal_test_load_image(png_path, FALSE);
    jpg = gal_test_load_image(jpg_path, FALSE);
    cr_assert_eq(png->Bands, 4, "png: %d bands", png->Bands);
    /* The transparent corners survived, not just a fourth band. */
    cr_assert_eq(vips_extract_band(png, &alpha, 3, NULL), 0);
    cr_assert_eq(vips_min(alpha, &min_alpha, NULL), 0);
    cr_expect_lt(min_alpha, 128, "png: alpha never below %g", min_alpha);
    cr_expect_eq(jpg->Bands, 3, "jpeg: %d bands", jpg->Bands);
}

/* ---- determinism ------------------------------------------------------------------ */

Test(run, one_job_and_four_jobs_write_the_same_bytes)
{
    g_autofree char *tmp = gal_test_tmpdir("run-jobs");
    g_autofree char *one = g_build_filename(tmp, "j1", NULL);
    g_autofree char *four = g_build_filename(tmp, "j4", NULL);
    const char *argv1[] = { GAL_BINARY, "run", "instagram-portrait", TRIP_DIR, "-o", one, "-j",
        "1", "-q", NULL };
    const char *argv4[] = { GAL_BINARY, "run", "instagram-portrait", TRIP_DIR, "-o", four, "-j",
        "4", "-q", NULL };
    g_autofree char *err1 = NULL;
    g_autofree char *err4 = NULL;

    cr_assert_eq(gal_test_spawn(argv1, NULL, &err1), 0, "-j 1:\n%s", err1);
    cr_assert_eq(gal_test_spawn(argv4, NULL, &err4), 0, "-j 4:\n%s", err4);
    assert_same_files(one, four, TRIP_COUNT + 1); /* the contact sheet too */
}

Test(run, the_same_job_twice_writes_the_same_bytes)
{
    g_autofree char *tmp = gal_test_tmpdir("run-twice");
    /* JPEG (progressive, from a shipped preset) and PNG: either could
     * carry a timestamp. */
    g_autofree char *jpeg_a = g_build_filename(tmp, "jpeg-a", NULL);
    g_autofree char *jpeg_b = g_build_filename(tmp, "jpeg-b", NULL);
    g_autofree char *png_a = g_build_filename(tmp, "png-a", NULL);
    g_autofree char *png_b = g_build_filename(tmp, "png-b", NULL);
    const char *const *runs[] = {
        (const char *[]) { GAL_BINARY, "run", "web-large", TRIP_DIR, "-o", jpeg_a, "-q", NULL },
        (const char *[]) { GAL_BINARY, "run", "web-large", TRIP_DIR, "-o", jpeg_b, "-q", NULL },
    };
    g_autofree char *err = NULL;

    for (guint i = 0; i < G_N_ELEMENTS(runs); i++) {
        GAL_FREE(err);
        cr_assert_eq(gal_test_spawn(runs[i], NULL, &err), 0, "%s", err);
    }
    run_geometry(tmp, TRIP_DIR, png_a, NULL);
    run_geometry(tmp, TRIP_DIR, png_b, NULL);
    assert_same_files(jpeg_a, jpeg_b, TRIP_COUNT);
    assert_same_files(png_a, png_b, TRIP_COUNT);
}

/* ---- presets and planning --------------------------------------------------------- */

Test(run, preset_errors_are_all_reported_and_nothing_is_created)
{
    g_autofree char *tmp = gal_test_tmpdir("run-bad-preset");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    /* Two mistakes on line 3: width 0 (column 21), an unknown fit (29). */
    g_autofree char *preset = gal_test_write_preset(tmp, "bad.yaml",
        "gallop: 1\n"
        "stages:\n"
        "  - resize: {width: 0, fit: sideways}\n"
        "output: {format: jpeg}\n");
    const char *argv[] = { GAL_BINARY, "run", preset, TRIP_DIR, "-o", out_dir, NULL };
    g_autofree char *err = NULL;
    g_autofree char *at_width = g_strdup_printf("%s:3:21: ", preset);
    g_autofree char *at_fit = g_strdup_printf("%s:3:29: ", preset);

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 2, "stderr:\n%s", err);
    cr_expect_eq(gal_test_count_lines(err, at_width, NULL), 1, "no %s line in:\n%s", at_width,
        err);
    cr_expect_eq(gal_test_count_lines(err, at_fit, NULL), 1, "no %s line in:\n%s", at_fit, err);
    cr_expect(strstr(err, "width") && strstr(err, "sideways"), "%s", err);
    cr_expect_not(g_file_test(out_dir, G_FILE_TEST_EXISTS), "%s was created", out_dir);
}

Test(run, unknown_preset_name_suggests_the_closest)
{
    g_autofree char *tmp = gal_test_tmpdir("run-unknown-preset");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    const char *argv[] = { GAL_BINARY, "run", "instagram-portrat", TRIP_DIR, "-o", out_dir,
        NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 2, "stderr:\n%s", err);
    cr_expect(strstr(err, "did you mean \"instagram-portrait\"") != NULL, "%s", err);
    cr_expect_not(g_file_test(out_dir, G_FILE_TEST_EXISTS));
}

Test(run, check_prints_the_resolved_pipeline)
{
    const char *argv[] = { GAL_BINARY, "check", "instagram-portrait", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "stderr:\n%s", err);
    cr_expect(strstr(out, "resize") != NULL, "%s", out);
    cr_expect(strstr(out, "width=1080") != NULL, "%s", out);
    cr_expect(strstr(out, "height=1350") != NULL, "%s", out);
}

Test(run, missing_input_folder_is_a_usage_error)
{
    g_autofree char *tmp = gal_test_tmpdir("run-missing-input");
    g_autofree char *missing = g_build_filename(tmp, "nonexistent/", NULL);
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    const char *argv[] = { GAL_BINARY, "run", "instagram-portrait", missing, "-o", out_dir,
        NULL };
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 2, "stderr:\n%s", err);
    cr_expect(strstr(err, missing) != NULL, "the message does not name %s:\n%s", missing, err);
    cr_expect_not(g_file_test(out_dir, G_FILE_TEST_EXISTS));
}

Test(run, dry_run_plans_every_photo_and_writes_nothing)
{
    g_autofree char *tmp = gal_test_tmpdir("run-dry");
    g_autofree char *out_dir = g_build_filename(tmp, "out", NULL);
    const char *argv[] = { GAL_BINARY, "run", "instagram-portrait", TRIP_DIR, "-o", out_dir,
        "--dry-run", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "stderr:\n%s", err);
    cr_expect_not(g_file_test(out_dir, G_FILE_TEST_EXISTS), "%s was created", out_dir);
    cr_expect_eq(gal_test_count_lines(out, "build ", NULL), TRIP_COUNT, "%s", out);
    for (int i = 1; i <= TRIP_COUNT; i++) {
        g_autofree char *name = g_strdup_printf("trip-%02d.", i);

        cr_expect(strstr(out, name) != NULL, "no build line for %s", name);
    }
}
