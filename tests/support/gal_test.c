/* gal_test.c: helpers shared by the unit and end-to-end tests. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lcms2.h>

#include "gal_test.h"

void
gal_test_setup(void)
{
    gal_error err = { 0 };

    cr_assert_eq(gal_init("gal_tests", &err), 0, "gal_init: %s", err.msg);
}

void
gal_test_teardown(void)
{
    vips_shutdown();
}

VipsImage *
gal_test_noise(int width, int height, int bands, double sigma, int seed)
{
    VipsImage *planes[4], *joined, *memory;

    cr_assert(bands >= 1 && bands <= 4);
    for (int b = 0; b < bands; b++) {
        VipsImage *gauss;

        cr_assert_eq(vips_gaussnoise(&gauss, width, height, "sigma", sigma, "mean", 128.0,
                         "seed", seed + b, NULL),
            0);
        cr_assert_eq(vips_cast(gauss, &planes[b], VIPS_FORMAT_UCHAR, NULL), 0);
        g_object_unref(gauss);
    }
    cr_assert_eq(vips_bandjoin(planes, &joined, bands, NULL), 0);
    if (bands >= 3)
        joined->Type = VIPS_INTERPRETATION_sRGB;
    memory = vips_image_copy_memory(joined);
    cr_assert_not_null(memory);
    for (int b = 0; b < bands; b++)
        g_object_unref(planes[b]);
    g_object_unref(joined);
    return memory;
}

gal_preset *
gal_test_load_with(const char *yaml, const char *const *overrides, int n, gal_errors *errs)
{
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .overrides = overrides,
        .n_overrides = n };
    g_autofree char *path = g_build_filename(GAL_TEST_TMP, "test.yaml", NULL);
    gal_preset *preset = NULL;

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    if (gal_preset_load_string(yaml, path, &opts, &preset, errs))
        return NULL;
    return preset;
}

gal_preset *
gal_test_load(const char *yaml, gal_errors *errs)
{
    return gal_test_load_with(yaml, NULL, 0, errs);
}

VipsImage *
gal_test_gradient(int width, int height)
{
    VipsImage *xy, *x, *y, *sum, *r, *g, *b, *rgb, *out;
    VipsImage *bands[3];

    cr_assert_eq(vips_xyz(&xy, width, height, NULL), 0);
    cr_assert_eq(vips_extract_band(xy, &x, 0, NULL), 0);
    cr_assert_eq(vips_extract_band(xy, &y, 1, NULL), 0);
    cr_assert_eq(vips_add(x, y, &sum, NULL), 0);
    cr_assert_eq(vips_linear1(x, &r, 255.0 / MAX(1, width - 1), 0, NULL), 0);
    cr_assert_eq(vips_linear1(y, &g, 255.0 / MAX(1, height - 1), 0, NULL), 0);
    cr_assert_eq(vips_linear1(sum, &b, 255.0 / MAX(1, width + height - 2), 0, NULL), 0);
    bands[0] = r;
    bands[1] = g;
    bands[2] = b;
    cr_assert_eq(vips_bandjoin(bands, &rgb, 3, NULL), 0);
    cr_assert_eq(vips_cast_uchar(rgb, &out, NULL), 0);
    vips_image_set_int(out, "gal-test", 1);
    out->Type = VIPS_INTERPRETATION_sRGB;
    g_object_unref(xy);
    g_object_unref(x);
    g_object_unref(y);
    g_object_unref(sum);
    g_object_unref(r);
    g_object_unref(g);
    g_object_unref(b);
    g_object_unref(rgb);
    return out;
}

VipsImage *
gal_test_run_stage(const char *stage, const char *opts_yaml, VipsImage *in)
{
    g_autofree char *yaml = g_strdup_printf("gallop: 1\nstages:\n  - %s: %s\n", stage, opts_yaml);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    const gal_stage_instance *st;
    gal_stage_ctx sc;
    gal_facts facts = { 0 };
    gal_photo photo = { &facts, NULL };
    gal_error err = { 0 };
    VipsImage *out = NULL, *memory;

    cr_assert_not_null(preset, "preset did not load: %s", errs->count ? errs->items[0].msg : "");
    st = &g_array_index(preset->stages, gal_stage_instance, 0);
    sc = gal__stage_ctx(st);
    cr_assert_eq(st->def->build(&sc, &photo, in, &out, &err), 0, "%s: %s", stage, err.msg);
    memory = vips_image_copy_memory(out);
    cr_assert_not_null(memory);
    g_object_unref(out);
    g_object_unref(in);
    gal_preset_free(preset);
    return memory;
}

int
gal_test_diff(VipsImage *a, VipsImage *b, double *max_abs, double *mean_abs)
{
    VipsImage *d, *abs_d;
    int failed;

    if (a->Xsize != b->Xsize || a->Ysize != b->Ysize || a->Bands != b->Bands)
        return -1;
    if (vips_subtract(a, b, &d, NULL))
        return -1;
    failed = vips_abs(d, &abs_d, NULL) || vips_max(abs_d, max_abs, NULL) ||
        vips_avg(abs_d, mean_abs, NULL);
    g_object_unref(d);
    if (!failed)
        g_object_unref(abs_d);
    return failed ? -1 : 0;
}

char *
gal_test_tmpdir(const char *name)
{
    char *dir = g_strdup_printf("%s/%s-%d", GAL_TEST_TMP, name, (int) getpid());

    /* Leftovers from an earlier run with the same pid. */
    if (g_file_test(dir, G_FILE_TEST_EXISTS)) {
        const char *argv[] = { "rm", "-rf", dir, NULL };

        gal_test_spawn(argv, NULL, NULL);
    }
    cr_assert_eq(g_mkdir_with_parents(dir, 0777), 0, "cannot create %s", dir);
    return dir;
}

int
gal_test_spawn(const char *const *argv, char **out, char **err)
{
    return gal_test_spawn_limited(argv, 0, out, err, NULL);
}

/* A temporary file for a child's output, or -1 when the output is not
 * wanted (the child then inherits the test's). */
static int
capture_open(char **want, char **path)
{
    g_autoptr(GError) error = NULL;
    int fd;

    *path = NULL;
    if (!want)
        return -1;
    fd = g_file_open_tmp("gal-test-XXXXXX", path, &error);
    cr_assert_geq(fd, 0, "cannot make a temporary file: %s", error ? error->message : "");
    return fd;
}

static void
capture_close(int fd, char *path, char **want)
{
    if (fd < 0)
        return;
    close(fd);
    cr_assert(g_file_get_contents(path, want, NULL, NULL), "cannot read %s", path);
    g_unlink(path);
    g_free(path);
}

int
gal_test_spawn_limited(const char *const *argv, double limit_seconds, char **out, char **err,
    gal_test_usage *usage)
{
    g_autoptr(GError) error = NULL;
    gal_test_usage measured = { 0 };
    char *out_path, *err_path;
    int out_fd = capture_open(out, &out_path);
    int err_fd = capture_open(err, &err_path);
    gint64 start = g_get_monotonic_time();
    struct rusage ru;
    GPid pid;
    int status = 0;
    pid_t done;

    /* Output goes to files rather than pipes, so nothing has to read them
     * while the child runs; wait4 gives its resource use, which
     * g_spawn_sync does not. */
    if (!g_spawn_async_with_pipes_and_fds(NULL, argv, NULL,
            G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, -1, out_fd, err_fd,
            NULL, NULL, 0, &pid, NULL, NULL, NULL, &error))
        cr_assert_fail("cannot run %s: %s", argv[0], error->message);
    while ((done = wait4(pid, &status, WNOHANG, &ru)) == 0) {
        if (limit_seconds > 0 &&
            g_get_monotonic_time() - start > (gint64) (limit_seconds * G_USEC_PER_SEC) &&
            !measured.timed_out) {
            kill(pid, SIGKILL);
            measured.timed_out = TRUE;
        }
        g_usleep(2000);
    }
    cr_assert_eq(done, pid, "wait4 %s: %s", argv[0], g_strerror(errno));
    g_spawn_close_pid(pid);
    measured.seconds = (g_get_monotonic_time() - start) / 1e6;
    measured.max_rss_kib = ru.ru_maxrss;
    capture_close(out_fd, out_path, out);
    capture_close(err_fd, err_path, err);
    if (usage)
        *usage = measured;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

char *
gal_test_write_preset(const char *dir, const char *name, const char *yaml)
{
    char *path = g_build_filename(dir, name, NULL);

    cr_assert(g_file_set_contents(path, yaml, -1, NULL), "cannot write %s", path);
    return path;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
gal_test_list_dir(const char *dir)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;

    cr_assert_not_null(d, "cannot list %s", dir);
    /* The records every run keeps in its output folder are not outputs:
     * the database, and the log SQLite keeps beside it while it is open
     * (or after a run was killed, for the next one to take up). */
    while ((name = g_dir_read_name(d)))
        if (!g_str_has_prefix(name, GAL_STORE_NAME))
            g_ptr_array_add(names, g_strdup(name));
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);
    return names;
}

int
gal_test_count_lines(const char *text, const char *prefix, char **first)
{
    g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
    int n = 0;

    for (int i = 0; lines[i]; i++)
        if (g_str_has_prefix(lines[i], prefix)) {
            if (first && n == 0)
                *first = g_strdup(lines[i]);
            n++;
        }
    return n;
}

char *
gal_test_read_bytes(const char *path, gsize *len)
{
    char *bytes = NULL;

    cr_assert(g_file_get_contents(path, &bytes, len, NULL), "cannot read %s", path);
    return bytes;
}

void
gal_test_copy_file(const char *from, const char *to)
{
    g_autofree char *dir = g_path_get_dirname(to);
    gsize len;
    g_autofree char *bytes = gal_test_read_bytes(from, &len);

    cr_assert_eq(g_mkdir_with_parents(dir, 0777), 0, "cannot create %s", dir);
    cr_assert(g_file_set_contents(to, bytes, (gssize) len, NULL), "cannot write %s", to);
}

void
gal_test_copy_trip(const char *dir, int number, const char *as)
{
    g_autofree char *name = g_strdup_printf("trip-%02d.jpg", number);
    g_autofree char *from = g_build_filename(GAL_FIXTURES_DIR, "trip", name, NULL);
    g_autofree char *to = g_build_filename(dir, as ? as : name, NULL);

    gal_test_copy_file(from, to);
}

VipsImage *
gal_test_load_image(const char *path, gboolean strict)
{
    VipsImage *image = strict
        ? vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
              VIPS_FAIL_ON_WARNING, NULL)
        : vips_image_new_from_file(path, NULL);

    cr_assert_not_null(image, "cannot read %s: %s", path, vips_error_buffer());
    return image;
}

void
gal_test_block_mean(VipsImage *image, int x, int y, double rgb[3])
{
    g_autoptr(VipsImage) block = NULL;
    /* A sequential image (a preview, a strict load) is read once, into
     * memory, then anywhere. */
    g_autoptr(VipsImage) memory = vips_image_copy_memory(image);
    double scale = image->BandFmt == VIPS_FORMAT_USHORT ? 257.0 : 1.0;

    cr_assert_not_null(memory, "%s", vips_error_buffer());
    cr_assert_eq(vips_extract_area(memory, &block, x, y, 4, 4, NULL), 0);
    for (int b = 0; b < 3; b++) {
        g_autoptr(VipsImage) band = NULL;
        double mean;

        cr_assert_eq(vips_extract_band(block, &band, b, NULL), 0);
        cr_assert_eq(vips_avg(band, &mean, NULL), 0);
        rgb[b] = mean / scale;
    }
}

/* An RGB profile with only a perceptual table (A2B0), as jpegli's XYB
 * JPEGs carry: made from sRGB, sampled into a CLUT, version 4. */
static cmsInt32Number
sample_srgb(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo)
{
    cmsDoTransform((cmsHTRANSFORM) cargo, in, out, 1);
    return TRUE;
}

void *
gal_test_perceptual_only_profile(gsize *len)
{
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsHPROFILE lab = cmsCreateLab4Profile(NULL);
    cmsHTRANSFORM to_lab = cmsCreateTransform(srgb, TYPE_RGB_16, lab, TYPE_Lab_16,
        INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
    cmsHPROFILE p = cmsCreateProfilePlaceholder(NULL);
    cmsPipeline *lut = cmsPipelineAlloc(NULL, 3, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, 33, 3, 3, NULL);
    cmsMLU *desc = cmsMLUalloc(NULL, 1);
    cmsUInt32Number n;
    void *mem;

    cr_assert(to_lab && p && lut && clut);
    cr_assert(cmsStageSampleCLut16bit(clut, sample_srgb, to_lab, 0));
    /* lutAtoBType wants curves either side of the table: identities. */
    cmsPipelineInsertStage(lut, cmsAT_BEGIN, cmsStageAllocToneCurves(NULL, 3, NULL));
    cmsPipelineInsertStage(lut, cmsAT_END, clut);
    cmsPipelineInsertStage(lut, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
    cmsSetProfileVersion(p, 4.3);
    cmsSetDeviceClass(p, cmsSigDisplayClass);
    cmsSetColorSpace(p, cmsSigRgbData);
    cmsSetPCS(p, cmsSigLabData);
    cmsMLUsetASCII(desc, "en", "US", "perceptual only");
    cr_assert(cmsWriteTag(p, cmsSigProfileDescriptionTag, desc));
    cr_assert(cmsWriteTag(p, cmsSigMediaWhitePointTag, cmsD50_XYZ()));
    cr_assert(cmsWriteTag(p, cmsSigAToB0Tag, lut));
    cr_assert(cmsSaveProfileToMem(p, NULL, &n));
    mem = g_malloc(n);
    cr_assert(cmsSaveProfileToMem(p, mem, &n));
    *len = n;
    cmsMLUfree(desc);
    cmsPipelineFree(lut);
    cmsCloseProfile(p);
    cmsDeleteTransform(to_lab);
    cmsCloseProfile(lab);
    cmsCloseProfile(srgb);
    return mem;
}

void *
gal_test_gamma18_profile(gsize *len)
{
    cmsCIExyY d50 = { 0.3457, 0.3585, 1.0 };
    cmsCIExyYTRIPLE romm = { { 0.7347, 0.2653, 1.0 }, { 0.1596, 0.8404, 1.0 },
        { 0.0366, 0.0001, 1.0 } };
    cmsToneCurve *curve = cmsBuildGamma(NULL, 1.8);
    cmsToneCurve *curves[3] = { curve, curve, curve };
    cmsHPROFILE p = cmsCreateRGBProfile(&d50, &romm, curves);
    cmsMLU *desc = cmsMLUalloc(NULL, 1);
    cmsUInt32Number n;
    void *mem;

    cr_assert(curve && p && desc);
    cmsMLUsetASCII(desc, "en", "US", "gamma 1.8 ProPhoto");
    cr_assert(cmsWriteTag(p, cmsSigProfileDescriptionTag, desc));
    cr_assert(cmsSaveProfileToMem(p, NULL, &n));
    mem = g_malloc(n);
    cr_assert(cmsSaveProfileToMem(p, mem, &n));
    *len = n;
    cmsMLUfree(desc);
    cmsFreeToneCurve(curve);
    cmsCloseProfile(p);
    return mem;
}

void
gal_test_delta_e(VipsImage *a, VipsImage *b, double *mean, double *max)
{
    VipsImage *la, *lb, *de;

    cr_assert_eq(a->Xsize, b->Xsize);
    cr_assert_eq(a->Ysize, b->Ysize);
    cr_assert_eq(vips_colourspace(a, &la, VIPS_INTERPRETATION_LAB, "source_space",
                     VIPS_INTERPRETATION_sRGB, NULL),
        0);
    cr_assert_eq(vips_colourspace(b, &lb, VIPS_INTERPRETATION_LAB, "source_space",
                     VIPS_INTERPRETATION_sRGB, NULL),
        0);
    cr_assert_eq(vips_dE00(la, lb, &de, NULL), 0);
    cr_assert_eq(vips_avg(de, mean, NULL), 0);
    cr_assert_eq(vips_max(de, max, NULL), 0);
    g_object_unref(la);
    g_object_unref(lb);
    g_object_unref(de);
}

/* A value as the text manifest wrote it: tabs, line ends and backslashes
 * escaped. */
static void
append_escaped(GString *out, const char *text)
{
    for (const char *c = text; *c; c++)
        switch (*c) {
        case '\t': g_string_append(out, "\\t"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        case '\\': g_string_append(out, "\\\\"); break;
        default: g_string_append_c(out, *c);
        }
}

static void
append_column(GString *out, sqlite3_stmt *st, int c)
{
    g_string_append_c(out, '\t');
    if (sqlite3_column_type(st, c) != SQLITE_NULL)
        append_escaped(out, (const char *) sqlite3_column_text(st, c));
}

char *
gal_test_read_manifest(const char *path)
{
    GString *out = g_string_new(NULL);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    g_autofree char *uri = NULL;

    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return g_string_free(out, FALSE);
    uri = g_strconcat("file:", path, "?mode=ro", NULL);
    cr_assert_eq(sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
        SQLITE_OK, "%s: %s", path, sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT digest, keys FROM recipe ORDER BY digest", -1,
                     &st, NULL),
        SQLITE_OK, "%s: %s", path, sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW) {
        g_auto(GStrv) lines = g_strsplit((const char *) sqlite3_column_text(st, 1), "\n", -1);

        for (int i = 0; lines[i]; i++)
            g_string_append_printf(out, "preset\t%s\t%s\n", sqlite3_column_text(st, 0), lines[i]);
    }
    sqlite3_finalize(st);
    cr_assert_eq(sqlite3_prepare_v2(db,
                     "SELECT CASE kind WHEN 'file' THEN 'output' WHEN 'page' THEN 'sheet' "
                     "ELSE kind END, output, input, in_size, in_mtime_ns, in_digest, recipe, "
                     "version, out_size, out_mtime_ns, out_sha256, width, height, name_key, "
                     "caption, caption_source, caption_cut, about FROM product ORDER BY output",
                     -1, &st, NULL),
        SQLITE_OK, "%s: %s", path, sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW) {
        sqlite3_stmt *deps = NULL;

        g_string_append(out, (const char *) sqlite3_column_text(st, 0));
        for (int c = 1; c <= 16; c++)
            append_column(out, st, c);
        g_string_append_c(out, '\n');
        cr_assert_eq(sqlite3_prepare_v2(db, "SELECT output, path, size, mtime_ns, digest FROM "
                                            "depend WHERE output = ?1 ORDER BY path",
                         -1, &deps, NULL),
            SQLITE_OK);
        sqlite3_bind_text(deps, 1, (const char *) sqlite3_column_text(st, 1), -1,
            SQLITE_TRANSIENT);
        while (sqlite3_step(deps) == SQLITE_ROW) {
            g_string_append(out, "depends");
            for (int c = 0; c < 5; c++)
                append_column(out, deps, c);
            g_string_append_c(out, '\n');
        }
        sqlite3_finalize(deps);
        if (sqlite3_column_type(st, 17) != SQLITE_NULL) {
            g_auto(GStrv) fields = g_strsplit((const char *) sqlite3_column_text(st, 17), "\n", -1);

            g_string_append_printf(out, "about\t%s", sqlite3_column_text(st, 1));
            for (int f = 0; fields[f]; f++) {
                g_string_append_c(out, '\t');
                append_escaped(out, fields[f]);
            }
            g_string_append_c(out, '\n');
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return g_string_free(out, FALSE);
}

int
gal_test_manifest_count(const char *path, const char *where)
{
    g_autofree char *uri = g_strconcat("file:", path, "?mode=ro", NULL);
    g_autofree char *sql = g_strdup_printf("SELECT count(*) FROM product WHERE %s", where);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int n = 0;

    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

void
gal_test_manifest_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    char *msg = NULL;

    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK, "%s", path);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s: %s", path, sql,
        msg ? msg : "");
    sqlite3_close(db);
}

gal_preset *
gal_test_load_ok(const char *yaml)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    char line[1024] = "";

    if (!preset && errs->count)
        gal_error_format(&errs->items[0], line, sizeof(line));
    cr_assert_not_null(preset, "preset did not load: %s", line);
    return preset;
}

void
gal_test_expect_error(const gal_error *e, gal_code code, const char *file, int line, int col,
    const char *key, const char *msg_part)
{
    char formatted[2048];
    g_autofree char *want = NULL;

    cr_expect_eq(e->code, code, "code %d, want %d (%s)", e->code, code, e->msg);
    cr_expect_str_eq(e->file, file);
    cr_expect_eq(e->line, line, "line %d, want %d (%s)", e->line, line, e->msg);
    cr_expect_eq(e->col, col, "col %d, want %d (%s)", e->col, col, e->msg);
    cr_expect_str_eq(e->key, key);
    cr_expect(strstr(e->msg, msg_part) != NULL, "message \"%s\" lacks \"%s\"", e->msg,
        msg_part);
    gal_error_format(e, formatted, sizeof(formatted));
    if (line > 0)
        want = g_strdup_printf("%s:%d:%d: %s%s%s", file, line, col, key, *key ? ": " : "",
            e->msg);
    else
        want = g_strdup_printf("%s: %s%s%s", file, key, *key ? ": " : "", e->msg);
    cr_expect_str_eq(formatted, want);
}

gal_test_bench
gal_test_bench_new(const char *name, const char *yaml, const int *trips, int n)
{
    gal_test_bench b;

    b.tmp = gal_test_tmpdir(name);
    b.in = g_build_filename(b.tmp, "in", NULL);
    b.out = g_build_filename(b.tmp, "out", NULL);
    b.report = g_build_filename(b.tmp, "report.json", NULL);
    b.preset = gal_test_write_preset(b.tmp, "p.yaml", yaml);
    cr_assert_eq(g_mkdir_with_parents(b.in, 0777), 0);
    for (int i = 0; i < n; i++)
        gal_test_copy_trip(b.in, trips[i], NULL);
    return b;
}

void
gal_test_bench_clear(gal_test_bench *b)
{
    g_free(b->tmp);
    g_free(b->in);
    g_free(b->out);
    g_free(b->preset);
    g_free(b->report);
}
