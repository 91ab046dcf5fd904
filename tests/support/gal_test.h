/* gal_test.h: helpers shared by the unit and end-to-end tests. */
#ifndef GAL_TEST_H
#define GAL_TEST_H

#include "internal.h"
#include "cancel.h"
#include "captions.h"
#include "decode.h"
#include "digest.h"
#include "embedded.h"
#include "error.h"
#include "exif.h"
#include "fsio.h"
#include "gather.h"
#include "init.h"
#include "inputs.h"
#include "job.h"
#include "limit.h"
#include "store.h"
#include "node.h"
#include "outdir.h"
#include "output.h"
#include "pngio.h"
#include "preset.h"
#include "recipe.h"
#include "resample.h"
#include "schema.h"
#include "solo.h"
#include "stage.h"
#include "template.h"
#include "text.h"

/* Criterion runs each test in its own process: start libvips per test. */
void gal_test_setup(void);
void gal_test_teardown(void);

/* Load a preset from YAML text, as if from GAL_TEST_TMP/test.yaml (so
 * relative paths resolve there), with the shipped presets available to
 * `extends`. NULL on error, with `errs` filled. */
gal_preset *gal_test_load(const char *yaml, gal_errors *errs);
gal_preset *gal_test_load_with(const char *yaml, const char *const *overrides, int n,
    gal_errors *errs);

/* An asymmetric sRGB test picture: red grows left to right, green top to
 * bottom, blue is a diagonal, so any flip or rotation shows. */
VipsImage *gal_test_gradient(int width, int height);

/* 8-bit Gaussian noise of `bands` bands around 128 (each band its own
 * seed, from `seed` up; values clipped to 0..255), in memory, sRGB from 3
 * bands: every weight of a filter shows in it. */
VipsImage *gal_test_noise(int width, int height, int bands, double sigma, int seed);

/* Run one stage, configured by `opts_yaml` (a flow mapping such as
 * "{width: 100}"), over `in` (ownership taken); returns the result, in
 * memory. Fails the test on any error. */
VipsImage *gal_test_run_stage(const char *stage, const char *opts_yaml, VipsImage *in);

/* Pixel difference of two images of the same size and bands: max and mean
 * absolute difference over all bands. -1 when sizes or bands differ. */
int gal_test_diff(VipsImage *a, VipsImage *b, double *max_abs, double *mean_abs);

/* A fresh, empty folder under GAL_TEST_TMP named after `name` and the pid. */
char *gal_test_tmpdir(const char *name);

/* Run a command; its exit status, with stdout and stderr returned (may be
 * NULL: the child then writes to the test's own). */
int gal_test_spawn(const char *const *argv, char **out, char **err);

/* How a command ran (gal_test_spawn_limited). */
typedef struct gal_test_usage {
    double seconds;       /* wall time, start to exit */
    long max_rss_kib;     /* the child's peak resident set (with any children it waited for) */
    gboolean timed_out;   /* killed at the time limit */
} gal_test_usage;

/* gal_test_spawn, measured and with a hang guard: the child is killed
 * (SIGKILL, status 128 + 9) if it runs longer than `limit_seconds` (0: no
 * limit). `usage` may be NULL. gal_test_spawn is this without a limit. */
int gal_test_spawn_limited(const char *const *argv, double limit_seconds, char **out,
    char **err, gal_test_usage *usage);

/* gal_test_load, which must succeed: the test fails, with the first
 * error, when it does not. */
gal_preset *gal_test_load_ok(const char *yaml);
/* One error in full: its code, place (line 0: none), key, a part of its
 * message, and the compiler-style line gal_error_format() makes of it. */
void gal_test_expect_error(const gal_error *e, gal_code code, const char *file, int line,
    int col, const char *key, const char *msg_part);

/* Write `yaml` to `dir`/`name` and return that path; fails the test if it cannot. */
char *gal_test_write_preset(const char *dir, const char *name, const char *yaml);

/* A run's files in a test folder of its own, `name`: the trip photos
 * `trips` (n of them, by number) copied into `in`, the preset `yaml` at
 * `preset`, outputs to go to `out` and the report to `report`. */
typedef struct {
    char *tmp, *in, *out, *preset, *report;
} gal_test_bench;

gal_test_bench gal_test_bench_new(const char *name, const char *yaml, const int *trips, int n);
void gal_test_bench_clear(gal_test_bench *b);

/* Sorted names of everything in `dir`, hidden files included, except gallop's
 * record database and its log (a g_free'ing array). */
GPtrArray *gal_test_list_dir(const char *dir);

/* The record database at `path` (an output folder's GAL_STORE_NAME) as
 * the text manifest of earlier gallops gave it, one line per row, for
 * tests to look at (values as written, tab-separated, escapes none):
 *   preset DIGEST LINE (each recipe line)
 *   output|sheet|item OUTPUT INPUT IN_SIZE IN_MTIME_NS IN_DIGEST DIGEST VERSION OUT_SIZE
 *     OUT_MTIME_NS OUT_SHA256 WIDTH HEIGHT NAME_KEY CAPTION CAPTION_SOURCE CAPTION_CUT
 *   depends OUTPUT PATH SIZE MTIME_NS DIGEST
 *   about OUTPUT KEY=VALUE...
 * "" when there is none; fails the test when it cannot be read. */
char *gal_test_read_manifest(const char *path);
/* How many records the database at `path` holds now that match the SQL
 * condition `where` ("kind = 'file'"), read beside a run that writes it;
 * 0 when it cannot be read (yet). */
int gal_test_manifest_count(const char *path, const char *where);
/* Run `sql` on the record database at `path` (tampering with it, as a
 * shared folder might); fails the test on an error. */
void gal_test_manifest_exec(const char *path, const char *sql);

/* Lines of `text` (may be NULL) starting with `prefix`; the first, copied, in *first if given. */
int gal_test_count_lines(const char *text, const char *prefix, char **first);

/* The whole file at `path`, its length in *len; fails the test if it cannot be read. */
char *gal_test_read_bytes(const char *path, gsize *len);

/* Copy a file byte for byte, making the destination's folder; fails the
 * test if it cannot. */
void gal_test_copy_file(const char *from, const char *to);

/* Copy fixtures/trip/trip-NN.jpg into `dir` (made if needed), as `as`
 * (NULL: its own name). */
void gal_test_copy_trip(const char *dir, int number, const char *as);

/* Open an image or fail the test; `strict`: sequential, a decoder warning is an error. */
VipsImage *gal_test_load_image(const char *path, gboolean strict);

/* The mean of each of the first three bands over the 4 x 4 block at
 * (x, y) of an 8- or 16-bit image, as 8-bit levels. */
void gal_test_block_mean(VipsImage *image, int x, int y, double rgb[3]);

/* An ICC profile (version 4, RGB) with only a perceptual table (A2B0), as
 * jpegli's XYB JPEGs carry: sRGB sampled into a CLUT, described as
 * "perceptual only". g_malloc'ed, `len` bytes. */
void *gal_test_perceptual_only_profile(gsize *len);
/* ProPhoto RGB (ROMM primaries, D50 white, a pure gamma-1.8 curve), as
 * lcms2 builds it, described as "gamma 1.8 ProPhoto": the encoding in
 * which scaling before converting shows most. g_malloc'ed, `len` bytes. */
void *gal_test_gamma18_profile(gsize *len);
/* Colour difference (CIEDE2000) between two sRGB images of one size:
 * the mean and the largest over all pixels. */
void gal_test_delta_e(VipsImage *a, VipsImage *b, double *mean, double *max);

#endif /* GAL_TEST_H */
