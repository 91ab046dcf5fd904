/* Several presets in one run (gallop run A.yaml B.yaml C.yaml INPUT): a
 * folder and a manifest per preset, outputs like those of separate runs,
 * reruns up to date per preset, errors that name the preset, refusals of a
 * preset given twice or after the photos, and the report. The real binary
 * runs over copies of fixtures in a per-process folder. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"
#include "gal_test_json.h"

TestSuite(fanout, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"

/* The largest decides the decode size; the others scale down from it.
 * Unsharpened (output.sharpen: none): what is compared is the scaling, and
 * the reference is an unsharpened single-step scale. */
static const char big_yaml[] = "gallop: 1\nname: big\n"
                               "stages: [ {resize: {width: 480, height: 480}} ]\n"
                               "output: {quality: 90, sharpen: none}\n";
static const char crop_yaml[] = "gallop: 1\nname: crop\n"
                                "stages: [ {resize: {width: 200, height: 150, fit: cover}} ]\n"
                                "output: {quality: 90, sharpen: none}\n";
static const char tiny_yaml[] = "gallop: 1\nname: tiny\n"
                                "stages: [ {resize: {width: 96, height: 96}} ]\n"
                                "output: {quality: 90, sharpen: none}\n";

/* Photos 01-05: square, landscape, panorama and portrait, upright and
 * rotated by EXIF (orientations 1, 6, 1, 8, 3). */
#define N_PHOTOS 5
static const char *const names[] = { "big", "crop", "tiny" };

typedef struct {
    char *tmp, *in, *out;
    char *presets[3];
} bench;

static bench
setup_bench(const char *name)
{
    const char *yaml[] = { big_yaml, crop_yaml, tiny_yaml };
    bench b;

    b.tmp = gal_test_tmpdir(name);
    b.in = g_build_filename(b.tmp, "in", NULL);
    b.out = g_build_filename(b.tmp, "out", NULL);
    cr_assert_eq(g_mkdir_with_parents(b.in, 0777), 0);
    for (int p = 0; p < 3; p++) {
        g_autofree char *file = g_strdup_printf("%s.yaml", names[p]);

        b.presets[p] = gal_test_write_preset(b.tmp, file, yaml[p]);
    }
    for (int i = 1; i <= N_PHOTOS; i++)
        gal_test_copy_trip(b.in, i, NULL);
    return b;
}

static void
bench_clear(bench *b)
{
    g_free(b->tmp);
    g_free(b->in);
    g_free(b->out);
    for (int p = 0; p < 3; p++)
        g_free(b->presets[p]);
}

/* gallop run ARGS... (NULL-terminated); exit status, stdout, stderr. */
static int
gallop(const char *const *args, char **out, char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();

    g_ptr_array_add(argv, (gpointer) GAL_BINARY);
    g_ptr_array_add(argv, (gpointer) "run");
    for (int i = 0; args[i]; i++)
        g_ptr_array_add(argv, (gpointer) args[i]);
    g_ptr_array_add(argv, NULL);
    return gal_test_spawn((const char *const *) argv->pdata, out, err);
}

/* The three presets over the photos, into b->out, plus `extra`. */
static int
run_all(const bench *b, const char *extra, char **out, char **err)
{
    const char *args[] = { b->presets[0], b->presets[1], b->presets[2], b->in, "-o", b->out,
        "-j", "2", extra, NULL };

    return gallop(args, out, err);
}

/* The presets' geometry, for the references below. */
static const struct {
    gal_fit fit;
    int width, height;
} geometry[] = { { GAL_FIT_INSIDE, 480, 480 }, { GAL_FIT_COVER, 200, 150 },
    { GAL_FIT_INSIDE, 96, 96 } };

/* What preset `p` makes of a photo at best: the whole photo decoded,
 * turned upright and scaled once, straight to the output size. */
static VipsImage *
reference(int p, int photo)
{
    g_autofree char *file = g_strdup_printf("%s/trip-%02d.jpg", TRIP_DIR, photo);
    g_autoptr(VipsImage) in = gal_test_load_image(file, FALSE);
    g_autoptr(VipsImage) upright = NULL;
    g_autoptr(VipsImage) scaled = NULL;
    VipsImage *out = NULL;
    gal_resize_plan plan;

    cr_assert_eq(vips_autorot(in, &upright, NULL), 0);
    gal__resize_plan(geometry[p].fit, geometry[p].width, geometry[p].height, FALSE,
        upright->Xsize, upright->Ysize, &plan);
    cr_assert_eq(vips_resize(upright, &scaled, (double) plan.width / upright->Xsize, "vscale",
                     (double) plan.height / upright->Ysize, NULL), 0);
    if (plan.crop_width)
        cr_assert_eq(vips_extract_area(scaled, &out, (scaled->Xsize - plan.crop_width) / 2,
                         (scaled->Ysize - plan.crop_height) / 2, plan.crop_width,
                         plan.crop_height, NULL), 0);
    else
        out = g_object_ref(scaled);
    return out;
}

/* Peak signal-to-noise ratio of `a` against `ref`, in dB (same size). */
static double
psnr(VipsImage *a, VipsImage *ref)
{
    g_autoptr(VipsImage) d = NULL;
    g_autoptr(VipsImage) sq = NULL;
    double mse;

    cr_assert_eq(vips_subtract(a, ref, &d, NULL), 0);
    cr_assert_eq(vips_multiply(d, d, &sq, NULL), 0);
    cr_assert_eq(vips_avg(sq, &mse, NULL), 0);
    return mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : 99;
}

static char *
output_of(const char *dir, const char *preset, int photo)
{
    g_autofree char *file = g_strdup_printf("trip-%02d.jpg", photo);

    return g_build_filename(dir, preset, file, NULL);
}

Test(fanout, each_preset_writes_its_own_folder_like_a_run_of_it_alone)
{
    bench b = setup_bench("fanout-folders");
    g_autofree char *sep = g_build_filename(b.tmp, "separate", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(run_all(&b, NULL, &out, &err), 0, "%s", err);
    for (int p = 0; p < 3; p++) {
        g_autofree char *dir = g_build_filename(sep, names[p], NULL);
        g_autofree char *line = g_strdup_printf("gallop: %s: 5 photos: 5 written", names[p]);
        g_autofree char *serr = NULL;
        const char *args[] = { b.presets[p], b.in, "-o", dir, NULL };

        cr_expect(strstr(err, line) != NULL, "no \"%s\" in:\n%s", line, err);
        cr_assert_eq(gallop(args, NULL, &serr), 0, "%s", serr);
        for (int i = 1; i <= N_PHOTOS; i++) {
            g_autofree char *mine = output_of(b.out, names[p], i);
            g_autofree char *alone = output_of(sep, names[p], i);
            g_autoptr(VipsImage) a = gal_test_load_image(mine, FALSE);
            g_autoptr(VipsImage) s = gal_test_load_image(alone, FALSE);
            g_autoptr(VipsImage) ref = reference(p, i);
            double max_abs, mean_abs;

            cr_assert_eq(gal_test_diff(a, s, &max_abs, &mean_abs), 0,
                "%s: %dx%d, alone %dx%d", mine, a->Xsize, a->Ysize, s->Xsize, s->Ysize);
            if (p == 0) {
                /* The largest preset is decoded exactly as alone. */
                cr_expect_eq(max_abs, 0, "%s: max abs diff %.0f", mine, max_abs);
                continue;
            }
            /* The others are scaled from that decode, where alone they
             * are decoded with libjpeg's DCT shrink as deep as still
             * covers their size: the same picture, a few levels apart at
             * these small sizes (up to 5.3 on trip-03, all grass blades
             * a pixel wide)... */
            cr_expect_leq(mean_abs, 6.0, "%s: mean abs diff %.3f", mine, mean_abs);
            /* ...and no softer: as close to a single-step scale of the
             * whole photo as the run alone is, within half a dB. */
            cr_expect_geq(psnr(a, ref), psnr(s, ref) - 0.5, "%s: PSNR %.2f dB, alone %.2f dB",
                mine, psnr(a, ref), psnr(s, ref));
        }
    }
    bench_clear(&b);
}

Test(fanout, a_rerun_is_up_to_date_in_every_preset_and_in_a_run_of_one)
{
    bench b = setup_bench("fanout-rerun");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *err2 = NULL;
    g_autofree char *err3 = NULL;
    g_autofree char *out4 = NULL;
    g_autofree char *crop_dir = g_build_filename(b.out, "crop", NULL);
    g_autofree char *gone = output_of(b.out, "tiny", 2);

    cr_assert_eq(run_all(&b, NULL, NULL, NULL), 0);
    cr_assert_eq(run_all(&b, NULL, &out, &err), 0, "%s", err);
    for (int p = 0; p < 3; p++) {
        g_autofree char *line = g_strdup_printf("gallop: %s: 5 photos: 0 written, 0 failed, "
            "0 skipped, 5 up to date", names[p]);
        g_autofree char *manifest = g_build_filename(b.out, names[p], GAL_STORE_NAME, NULL);

        cr_expect(strstr(err, line) != NULL, "no \"%s\" in:\n%s", line, err);
        cr_expect(g_file_test(manifest, G_FILE_TEST_IS_REGULAR), "%s missing", manifest);
    }
    cr_expect_eq(run_all(&b, "--check", NULL, &err2), 0, "%s", err2);
    /* The folder of one preset is what a run of that preset alone makes. */
    {
        const char *args[] = { b.presets[1], b.in, "-o", crop_dir, NULL };

        cr_expect_eq(gallop(args, NULL, &err3), 0, "%s", err3);
        cr_expect(strstr(err3, "0 written, 0 failed, 0 skipped, 5 up to date") != NULL, "%s",
            err3);
    }
    /* A dry run gives each preset's reasons: only tiny lost an output. */
    cr_assert_eq(unlink(gone), 0);
    cr_expect_eq(run_all(&b, "--dry-run", &out4, NULL), 0);
    cr_expect_eq(gal_test_count_lines(out4, "build ", NULL), 1, "%s", out4);
    cr_expect(strstr(out4, "/tiny/trip-02.jpg (output-missing)") != NULL, "%s", out4);
    bench_clear(&b);
}

Test(fanout, an_error_in_one_preset_names_it_and_the_others_finish)
{
    bench b = setup_bench("fanout-error");
    /* 640x640 is 0.41 MP: over this preset's limit; 640x512 and smaller pass. */
    g_autofree char *strict = gal_test_write_preset(b.tmp, "strict.yaml",
        "gallop: 1\nname: strict\ninput: {max-megapixels: 0.4}\n"
        "stages: [ {resize: {width: 100}} ]\n");
    const char *args[] = { b.presets[0], strict, b.presets[2], b.in, "-o", b.out, NULL };
    g_autofree char *err = NULL;
    g_autofree char *first = NULL;
    g_autofree char *prefix = g_strdup_printf("%s/trip-01.jpg (preset strict): ", b.in);

    cr_assert_eq(gallop(args, NULL, &err), 1, "%s", err);
    cr_expect_geq(gal_test_count_lines(err, prefix, &first), 1, "no \"%s\" in:\n%s", prefix,
        err);
    cr_expect(first && strstr(first, "max-megapixels"), "%s", first);
    cr_expect(strstr(err, "gallop: strict: 5 photos: 3 written, 2 failed") != NULL, "%s", err);
    for (int i = 1; i <= N_PHOTOS; i++) {
        g_autofree char *big = output_of(b.out, "big", i);
        g_autofree char *tiny = output_of(b.out, "tiny", i);

        cr_expect(g_file_test(big, G_FILE_TEST_IS_REGULAR), "%s missing", big);
        cr_expect(g_file_test(tiny, G_FILE_TEST_IS_REGULAR), "%s missing", tiny);
    }
    bench_clear(&b);
}

Test(fanout, a_preset_given_twice_is_refused_before_anything_is_written)
{
    bench b = setup_bench("fanout-twice");
    g_autofree char *other = gal_test_write_preset(b.tmp, "other.yaml", big_yaml);
    const char *twice[] = { b.presets[0], b.presets[1], b.presets[0], b.in, "-o", b.out, NULL };
    const char *same_name[] = { b.presets[0], other, b.in, "-o", b.out, NULL };
    g_autofree char *err = NULL;
    g_autofree char *err2 = NULL;

    cr_expect_eq(gallop(twice, NULL, &err), 2);
    cr_expect(strstr(err, "is given twice") != NULL, "%s", err);
    cr_expect_eq(gallop(same_name, NULL, &err2), 2);
    cr_expect(strstr(err2, "are both named \"big\"") != NULL, "%s", err2);
    cr_expect(!g_file_test(b.out, G_FILE_TEST_EXISTS), "%s was created", b.out);
    bench_clear(&b);
}

Test(fanout, presets_come_before_the_photos)
{
    bench b = setup_bench("fanout-order");
    const char *args[] = { b.presets[0], b.in, b.presets[1], "-o", b.out, NULL };
    g_autofree char *err = NULL;

    cr_expect_eq(gallop(args, NULL, &err), 2);
    cr_expect(strstr(err, "looks like a preset after the photos") != NULL, "%s", err);
    cr_expect(!g_file_test(b.out, G_FILE_TEST_EXISTS), "%s was created", b.out);
    bench_clear(&b);
}

Test(fanout, the_report_and_log_name_the_preset_of_each_output)
{
    bench b = setup_bench("fanout-report");
    g_autofree char *report_path = g_build_filename(b.tmp, "report.json", NULL);
    const char *args[] = { b.presets[0], b.presets[1], b.presets[2], b.in, "-o", b.out,
        "--report", report_path, "--log", "json", NULL };
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autoptr(gal_json) report = NULL;
    g_autofree char *error = NULL;
    const gal_json *photos;
    int per_preset[3] = { 0 };

    cr_assert_eq(gallop(args, NULL, &err), 0, "%s", err);
    cr_assert(g_file_get_contents(report_path, &text, NULL, NULL));
    report = gal_json_parse(text, &error);
    cr_assert(report, "%s", error);
    cr_expect_eq(gal_json_get(report, "preset")->type, GAL_JSON_NULL);
    cr_expect_eq(gal_json_number(report, "totals.photos"), 3 * N_PHOTOS);
    cr_expect_eq(gal_json_number(report, "totals.done"), 3 * N_PHOTOS);
    cr_expect_str_eq(gal_json_string(report, "presets.1.name"), "crop");
    cr_expect_eq(gal_json_number(report, "presets.1.totals.done"), N_PHOTOS);
    photos = gal_json_get(report, "photos");
    cr_assert_eq(photos->items->len, 3 * N_PHOTOS);
    for (guint i = 0; i < photos->items->len; i++) {
        const gal_json *p = photos->items->pdata[i];
        const char *preset = gal_json_string(p, "preset");
        const char *path = gal_json_string(p, "outputs.0.path");
        g_autofree char *folder = NULL;

        cr_assert(preset && path);
        cr_expect_str_eq(gal_json_string(p, "outputs.0.preset"), preset);
        folder = g_strdup_printf("/%s/", preset);
        cr_expect(strstr(path, folder) != NULL, "%s is not in the %s folder", path, preset);
        for (int q = 0; q < 3; q++)
            per_preset[q] += strcmp(preset, names[q]) == 0;
    }
    for (int q = 0; q < 3; q++)
        cr_expect_eq(per_preset[q], N_PHOTOS, "%s: %d photos", names[q], per_preset[q]);
    /* Log events: one per output, counted over every preset. */
    cr_expect_eq(gal_test_count_lines(err, "{\"event\":\"photo\"", NULL), 3 * N_PHOTOS, "%s",
        err);
    cr_expect(strstr(err, "\"total\":15,\"input\":") != NULL, "%s", err);
    cr_expect(strstr(err, "\"preset\":\"tiny\"") != NULL, "%s", err);
    bench_clear(&b);
}
