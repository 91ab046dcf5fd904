/* Extreme shapes end to end (issue 12): thin strips and huge aspect ratios,
 * as PNG and JPEG, made here in a temporary folder, through the shipped
 * instagram-portrait (cover, attention crop, enlarging) and through the
 * other fits, next to an ordinary photo. Every output has its exact size,
 * and the run stays bounded: a hang guard (not a speed target; those are
 * in bench/) and a ceiling on the child's peak memory. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gal_test.h"

TestSuite(shapes, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

/* Before issue 12 a 1x5000 strip grew by about 270 MB/s and never
 * finished. Generous: every run here takes about a second. */
#define HANG_GUARD_SECONDS 30.0
/* The whole run, photos in flight included; an ordinary run peaks at
 * about 60 MB. Under AddressSanitizer memory costs several times more. */
#if defined(__SANITIZE_ADDRESS__)
#define MAX_RSS_MIB 800
#else
#define MAX_RSS_MIB 200
#endif

typedef struct {
    const char *name;
    int width, height;
} shape;

static const shape shapes[] = {
    { "strip-1x5000.png", 1, 5000 },
    { "strip-5000x1.png", 5000, 1 },
    { "strip-4x1000.png", 4, 1000 },
    { "strip-1000x4.png", 1000, 4 },
    { "tiny-2x3.png", 2, 3 },
    { "dot-1x1.png", 1, 1 },
    { "pano-20000x100.jpg", 20000, 100 },
    { "tower-100x20000.jpg", 100, 20000 },
    { "line-8000x16.jpg", 8000, 16 },
};

/* The ordinary photo among them. */
#define PHOTO "trip-01.jpg"
#define PHOTO_SIZE 640

/* A picture with something to look at for attention and entropy: the test
 * gradient with a noise texture and a saturated patch off centre. */
static void
write_shape(const char *dir, const shape *s)
{
    g_autofree char *path = g_build_filename(dir, s->name, NULL);
    g_autofree char *target =
        g_str_has_suffix(s->name, ".jpg") ? g_strdup_printf("%s[Q=90]", path) : g_strdup(path);
    g_autoptr(VipsImage) gradient = gal_test_gradient(s->width, s->height);
    g_autoptr(VipsImage) noise = NULL;
    g_autoptr(VipsImage) sum = NULL;
    g_autoptr(VipsImage) picture = NULL;
    g_autoptr(VipsImage) srgb = NULL;
    double red[3] = { 255, 0, 40 };

    cr_assert_eq(vips_gaussnoise(&noise, s->width, s->height, "mean", 0.0, "sigma", 20.0, NULL),
        0);
    cr_assert_eq(vips_add(gradient, noise, &sum, NULL), 0);
    cr_assert_eq(vips_cast_uchar(sum, &picture, NULL), 0);
    cr_assert_eq(vips_copy(picture, &srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL), 0);
    {
        g_autoptr(VipsImage) memory = vips_image_copy_memory(srgb);

        cr_assert_not_null(memory);
        cr_assert_eq(vips_draw_rect(memory, red, 3, s->width * 3 / 4, s->height / 5,
                         MAX(1, s->width / 20), MAX(1, s->height / 20), "fill", TRUE, NULL),
            0);
        cr_assert_eq(vips_image_write_to_file(memory, target, NULL), 0, "%s: %s", path,
            vips_error_buffer());
    }
}

/* A folder with every shape and the ordinary photo. */
static char *
make_inputs(const char *tmp)
{
    char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *photo = g_build_filename(in, PHOTO, NULL);
    gsize len;
    g_autofree char *bytes = gal_test_read_bytes(TRIP_DIR "/" PHOTO, &len);

    cr_assert_eq(g_mkdir_with_parents(in, 0777), 0);
    for (size_t i = 0; i < G_N_ELEMENTS(shapes); i++)
        write_shape(in, &shapes[i]);
    cr_assert(g_file_set_contents(photo, bytes, (gssize) len, NULL));
    return in;
}

/* Run gallop with `args` (NULL-terminated, after "run"), guarded and
 * measured; asserts it finished in time, within the memory ceiling, with
 * exit 0. */
static void
run_bounded(const char *const *args)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_autofree char *err = NULL;
    gal_test_usage usage;
    int status;

    g_ptr_array_add(argv, (char *) GAL_BINARY);
    g_ptr_array_add(argv, (char *) "run");
    for (int i = 0; args[i]; i++)
        g_ptr_array_add(argv, (char *) args[i]);
    g_ptr_array_add(argv, NULL);
    status = gal_test_spawn_limited((const char *const *) argv->pdata, HANG_GUARD_SECONDS, NULL,
        &err, &usage);
    cr_log_info("%s: %.2f s, peak RSS %ld MiB", args[0], usage.seconds,
        usage.max_rss_kib / 1024);
    cr_assert_not(usage.timed_out, "gallop was still running after %.0f s (killed)",
        HANG_GUARD_SECONDS);
    cr_assert_eq(status, 0, "exit %d, stderr:\n%s", status, err);
    cr_expect_lt(usage.max_rss_kib, MAX_RSS_MIB * 1024L, "peak RSS %ld MiB, over %d MiB",
        usage.max_rss_kib / 1024, MAX_RSS_MIB);
}

/* The output of input `name` in `dir` (its stem plus `ext`) decodes in full
 * and is `width` x `height`. */
static void
expect_output(const char *dir, const char *name, const char *ext, int width, int height)
{
    g_autofree char *stem = g_strndup(name, strrchr(name, '.') - name);
    g_autofree char *file = g_strconcat(stem, ext, NULL);
    g_autofree char *path = g_build_filename(dir, file, NULL);
    g_autoptr(VipsImage) image = gal_test_load_image(path, TRUE);
    double avg;

    cr_expect_eq(vips_avg(image, &avg, NULL), 0, "%s does not decode", path);
    cr_expect(image->Xsize == width && image->Ysize == height, "%s: %dx%d, expected %dx%d", path,
        image->Xsize, image->Ysize, width, height);
}

Test(shapes, instagram_portrait_makes_every_shape_exactly_1080x1350)
{
    g_autofree char *tmp = gal_test_tmpdir("shapes-portrait");
    g_autofree char *in = make_inputs(tmp);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *sheet = g_build_filename(out, "contact-1.jpg", NULL);
    const char *args[] = { "instagram-portrait", in, "-o", out, "-q", NULL };
    g_autoptr(GPtrArray) names = NULL;

    run_bounded(args);
    for (size_t i = 0; i < G_N_ELEMENTS(shapes); i++)
        expect_output(out, shapes[i].name, ".jpg", 1080, 1350);
    expect_output(out, PHOTO, ".jpg", 1080, 1350);
    names = gal_test_list_dir(out);
    cr_expect_eq(names->len, G_N_ELEMENTS(shapes) + 2, "%u files in %s", names->len, out);
    cr_expect(g_file_test(sheet, G_FILE_TEST_IS_REGULAR), "no contact sheet");
}

/* `gallop run A B C D INPUT`: each preset in its own folder. */
static const char *const fit_presets[][2] = {
    { "entropy", "stages: [ {resize: {width: 1080, height: 1350, fit: cover, crop: entropy, "
                 "upscale: true}} ]" },
    { "fill", "stages: [ {resize: {width: 1080, height: 1350, fit: fill, upscale: true}} ]" },
    { "contain", "stages: [ {resize: {width: 1080, height: 1350, fit: contain, upscale: true}} ]" },
    { "inside", "stages: [ {resize: {width: 1080, height: 1080, fit: inside}} ]" },
};

/* Fit inside a square box without enlarging, by hand. */
static void
inside_size(int width, int height, int box, int *out_width, int *out_height)
{
    double s = MIN(1.0, MIN((double) box / width, (double) box / height));

    *out_width = MAX(1, (int) lround(width * s));
    *out_height = MAX(1, (int) lround(height * s));
}

Test(shapes, every_fit_of_every_shape_has_its_exact_size)
{
    g_autofree char *tmp = gal_test_tmpdir("shapes-fits");
    g_autofree char *in = make_inputs(tmp);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);

    for (size_t p = 0; p < G_N_ELEMENTS(fit_presets); p++) {
        g_autofree char *file = g_strdup_printf("%s.yaml", fit_presets[p][0]);
        g_autofree char *yaml = g_strdup_printf(
            "gallop: 1\nname: %s\n%s\noutput: {format: jpeg}\n", fit_presets[p][0],
            fit_presets[p][1]);

        g_ptr_array_add(args, gal_test_write_preset(tmp, file, yaml));
    }
    g_ptr_array_add(args, g_strdup(in));
    g_ptr_array_add(args, g_strdup("-o"));
    g_ptr_array_add(args, g_strdup(out));
    g_ptr_array_add(args, g_strdup("-q"));
    g_ptr_array_add(args, NULL);
    run_bounded((const char *const *) args->pdata);
    for (size_t p = 0; p < G_N_ELEMENTS(fit_presets); p++) {
        g_autofree char *dir = g_build_filename(out, fit_presets[p][0], NULL);
        gboolean inside = strcmp(fit_presets[p][0], "inside") == 0;

        for (size_t i = 0; i <= G_N_ELEMENTS(shapes); i++) {
            const char *name = i < G_N_ELEMENTS(shapes) ? shapes[i].name : PHOTO;
            int in_w = i < G_N_ELEMENTS(shapes) ? shapes[i].width : PHOTO_SIZE;
            int in_h = i < G_N_ELEMENTS(shapes) ? shapes[i].height : PHOTO_SIZE;
            int w = 1080, h = 1350;

            if (inside)
                inside_size(in_w, in_h, 1080, &w, &h);
            expect_output(dir, name, ".jpg", w, h);
        }
    }
}
