/* perceptual.c: MS-SSIM (Wang, Simoncelli and Bovik, "Multi-scale
 * structural similarity for image quality assessment", 2003) computed as
 * the paper and its reference code do (11-tap Gaussian window of sigma
 * 1.5 over the valid region, five scales weighted 0.0448 0.2856 0.3001
 * 0.2363 0.1333, contrast-structure at every scale and luminance at the
 * coarsest), on CIE L* (0..1) so that an error in the shadows counts as
 * the eye sees it, with each coarser scale made by averaging linear light
 * 2x2 (as an eye further away sees it). A plain loop over memory, one
 * thread, sums in a fixed order: the same pixels give the same score on
 * every run, which the quality search's same-bytes promise rests on. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "perceptual.h"

#define N_SCALES_MAX 5
#define TAPS 11                 /* the window: 2 * 5 + 1 */
#define EDGE (TAPS - 1)         /* what the valid region loses of each side's length */
#define SMALLEST 16             /* px: a scale this short on a side is not made */

static const double scale_weights[N_SCALES_MAX] = { 0.0448, 0.2856, 0.3001, 0.2363, 0.1333 };
static const double C1 = 0.01 * 0.01; /* (K1 L)^2 with L = 1, the range of L* / 100 */
static const double C2 = 0.03 * 0.03;

/* The loops over pixels are compiled twice, for AVX2 (eight lanes) and for
 * SSE2 (four), and the loader picks (target_clones); they vectorise on
 * their own or take eight lanes at a time by hand. Each output is the same
 * operations in the same order in either, and in the scalar tails, without
 * fused multiply-adds (the avx2 target does not enable FMA), so the scores
 * are the same bit for bit on either kind of processor. The 32-byte type
 * is loaded and stored by memcpy in place and never passed to or returned
 * from a function (its ABI differs with AVX). Where the compiler lacks
 * target_clones or the machine is not x86-64, one plain version. */
typedef float wide __attribute__((vector_size(8 * sizeof(float))));
#define WIDE 8
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GAL_THREAD_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define GAL_THREAD_SANITIZER 1
#endif
/* Not under ThreadSanitizer: the clones' resolvers run while the dynamic
 * linker relocates the program, before its runtime is up, and crash in
 * its instrumentation (tests/sanitizers/threads). */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(GAL_THREAD_SANITIZER)
#if __has_attribute(target_clones)
#define SIMD_TARGETS __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef SIMD_TARGETS
#define SIMD_TARGETS
#endif

typedef struct {
    int width, height;
    float *lightness;   /* width x height, L* / 100 */
    float *mean;        /* (width - EDGE) x (height - EDGE), windowed */
    float *square;      /* the same size: the window's mean of lightness squared */
} ref_scale;

/* What a comparison works in, kept with the reference and used again by
 * each: a block this size is mapped afresh by the allocator every time
 * (glibc's threshold is 4 MiB, cmd/main.c), and the kernel's page faults
 * and zeroing took a fifth of a search's CPU time. */
typedef struct {
    guchar *pixels;              /* width x height x 3: the picture as 8-bit sRGB or grey */
    float *planes[N_SCALES_MAX]; /* each scale's luminance, then its lightness in place */
} workspace;

struct gal_percept_ref {
    int width, height, n_scales;
    ref_scale scales[N_SCALES_MAX];
    float gauss[TAPS];
    float linear[256];            /* sRGB code to linear light */
    workspace work;               /* a comparison's, one at a time */
};

static double
srgb_to_linear(double v)
{
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static void
fill_tables(gal_percept_ref *ref)
{
    double sum = 0;

    for (int i = 0; i < TAPS; i++) {
        double d = i - TAPS / 2;

        sum += ref->gauss[i] = (float) exp(-d * d / (2 * 1.5 * 1.5));
    }
    for (int i = 0; i < TAPS; i++)
        ref->gauss[i] = (float) (ref->gauss[i] / sum);
    for (int i = 0; i < 256; i++)
        ref->linear[i] = (float) srgb_to_linear(i / 255.0);
}

/* The picture's pixels as 8-bit sRGB (3 bands) or grey (1), without
 * alpha, into `pixels` (width x height x 3). */
static int
pixels_into(VipsImage *image, guchar *pixels, int *bands, gal_error *err)
{
    g_autoptr(VipsImage) opaque = NULL;
    g_autoptr(VipsImage) eight = NULL;
    g_autoptr(VipsImage) memory = NULL;
    VipsImage *at = image;

    if (vips_image_hasalpha(at)) {
        if (vips_extract_band(at, &opaque, 0, "n", at->Bands - 1, NULL))
            return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "compare");
        at = opaque;
    }
    if (at->BandFmt != VIPS_FORMAT_UCHAR || (at->Bands != 1 && at->Bands != 3)) {
        if (vips_colourspace(at, &eight, at->Bands < 3 ? VIPS_INTERPRETATION_B_W
                    : VIPS_INTERPRETATION_sRGB, NULL))
            return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "compare");
        at = eight;
        if (at->BandFmt != VIPS_FORMAT_UCHAR || (at->Bands != 1 && at->Bands != 3))
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL,
                "compare: cannot read a %d-band picture as sRGB", at->Bands);
    }
    if (!(memory = vips_image_new_from_memory(pixels, VIPS_IMAGE_SIZEOF_IMAGE(at), at->Xsize,
              at->Ysize, at->Bands, VIPS_FORMAT_UCHAR)))
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "compare");
    /* Made on this thread, straight into the block: the picture is an
     * encode being decoded, small work for which a thread pool's handoffs
     * (vips_image_write) cost more than they save. */
    {
        VipsRect all = { 0, 0, at->Xsize, at->Ysize };
        VipsRegion *from = vips_region_new(at);
        VipsRegion *to = vips_region_new(memory);
        int failed = vips_region_image(to, &all) ||
            vips_region_prepare_to(from, to, &all, 0, 0);

        g_object_unref(from);
        g_object_unref(to);
        if (failed)
            return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "compare");
    }
    *bands = at->Bands;
    return 0;
}

/* Linear luminance of n pixels of `bands` (1 or 3) 8-bit sRGB values each,
 * by the table `linear` (its own function for the AVX2 clone, which takes
 * half the instructions). */
SIMD_TARGETS static void
luminance_row(const float *restrict linear, const guchar *restrict px, int bands,
    float *restrict y, size_t n)
{
    if (bands == 1)
        for (size_t i = 0; i < n; i++)
            y[i] = linear[px[i]];
    else
        for (size_t i = 0; i < n; i++)
            y[i] = 0.2126f * linear[px[3 * i]] + 0.7152f * linear[px[3 * i + 1]] +
                0.0722f * linear[px[3 * i + 2]];
}

/* The next scale's luminance: each 2x2 block averaged (light adds up). */
static void
halve(const float *y, int width, int height, float *out)
{
    int w = width / 2, h = height / 2;

    for (int r = 0; r < h; r++) {
        const float *a = y + (size_t) 2 * r * width, *b = a + width;

        for (int c = 0; c < w; c++)
            out[(size_t) r * w + c] = 0.25f * (a[2 * c] + a[2 * c + 1] + b[2 * c] + b[2 * c + 1]);
    }
}

/* How many scales a picture of width x height has: each at least
 * SMALLEST px a side (0: too small for a window at all). */
static int
scales_for(int width, int height)
{
    int n = 0;

    while (n < N_SCALES_MAX && MIN(width, height) >= SMALLEST) {
        n++;
        width /= 2;
        height /= 2;
    }
    return n;
}

/* Four lanes of floats (GCC's and clang's vector extension: SSE2 on
 * x86-64, NEON on arm64, plain code elsewhere), read four at a time into
 * the sums of sum_of; each lane's sums are in a fixed order, so the scores
 * stay the same on every run. */
typedef float lanes __attribute__((vector_size(4 * sizeof(float))));
#define LANES 4

static inline lanes
lanes_at(const float *p)
{
    lanes v;

    memcpy(&v, p, sizeof v);
    return v;
}

/* Eight lanes of 32-bit integers: the floats' bits, and comparisons. */
typedef gint32 wide_int __attribute__((vector_size(8 * sizeof(gint32))));

/* Where `mask` is set, `yes`, else `no`: into *out (by pointers, see above). */
static inline void
wide_select(const wide_int *mask, const wide *yes, const wide *no, wide *out)
{
    wide_int a, b;

    memcpy(&a, yes, sizeof a);
    memcpy(&b, no, sizeof b);
    a = (a & *mask) | (b & ~*mask);
    memcpy(out, &a, sizeof a);
}

/* CIE L* / 100 of eight luminances (clamped to 0..1), computed rather than
 * looked up so that it vectorises (a table's reads do not, and they were a
 * third of a comparison): the cube root first guessed from the float's
 * bits (its exponent divided by three, within 7%), then two of Halley's
 * steps, each of which cubes the error, to float precision. */
static inline void
lightness8(const float *in, float *out)
{
    const float e = 216.0f / 24389.0f, k = 24389.0f / 27.0f / 100.0f;
    const wide zero = { 0 }, one = zero + 1.0f, least = zero + e;
    wide y, at, x, cube, curve, line;
    wide_int mask, bits;

    memcpy(&y, in, sizeof y);
    mask = y < zero;
    wide_select(&mask, &zero, &y, &y);
    mask = y > one;
    wide_select(&mask, &one, &y, &y);
    mask = y > least;
    wide_select(&mask, &y, &least, &at);
    memcpy(&bits, &at, sizeof bits);
    bits = __builtin_convertvector(__builtin_convertvector(bits, wide) * (1.0f / 3.0f),
               wide_int) + 709921077;
    memcpy(&x, &bits, sizeof x);
    for (int step = 0; step < 2; step++) {
        cube = x * x * x;
        x = x * (cube + 2.0f * at) / (2.0f * cube + at);
    }
    curve = 1.16f * x - 0.16f;
    line = k * y;
    wide_select(&mask, &curve, &line, &y);
    memcpy(out, &y, sizeof y);
}

/* The lightness of n luminances (`out` may be `y`); the last few go
 * through the same lanes (padded), so a pixel's lightness does not depend
 * on where it is. */
SIMD_TARGETS static void
lightness_row(const float *y, float *out, size_t n)
{
    size_t i = 0;

    for (; i + WIDE <= n; i += WIDE)
        lightness8(y + i, out + i);
    if (i < n) {
        float last[WIDE] = { 0 };

        memcpy(last, y + i, sizeof(float) * (n - i));
        lightness8(last, last);
        memcpy(out + i, last, sizeof(float) * (n - i));
    }
}

/* Each scale's lightness of `image` (the reference's size) into the
 * reference's working planes: the luminance of each scale is halved into
 * the next, then made its lightness in place. */
static int
lightness_planes(const gal_percept_ref *ref, VipsImage *image, gal_error *err)
{
    const workspace *work = &ref->work;
    int width = ref->width, height = ref->height, bands = 0;

    if (pixels_into(image, work->pixels, &bands, err))
        return -1;
    luminance_row(ref->linear, work->pixels, bands, work->planes[0],
        (size_t) width * height);
    for (int s = 0; s < ref->n_scales; s++) {
        if (s + 1 < ref->n_scales)
            halve(work->planes[s], width, height, work->planes[s + 1]);
        lightness_row(work->planes[s], work->planes[s], (size_t) width * height);
        width /= 2;
        height /= 2;
    }
    return 0;
}

/* One row of the window: dst[c] = sum over t of gauss[t] * src[c + t],
 * for c < n. The window is symmetric, so each pair of taps the same
 * distance from the centre shares one multiply. */
SIMD_TARGETS static void
window_row(const float *restrict gauss, const float *restrict src, float *restrict dst, int n)
{
    int c = 0;

    for (; c + WIDE <= n; c += WIDE) {
        wide sum, a, b;

        memcpy(&a, src + c + TAPS / 2, sizeof a);
        sum = gauss[TAPS / 2] * a;
        for (int t = 0; t < TAPS / 2; t++) {
            memcpy(&a, src + c + t, sizeof a);
            memcpy(&b, src + c + TAPS - 1 - t, sizeof b);
            sum += gauss[t] * (a + b);
        }
        memcpy(dst + c, &sum, sizeof sum);
    }
    for (; c < n; c++) {
        float sum = gauss[TAPS / 2] * src[c + TAPS / 2];

        for (int t = 0; t < TAPS / 2; t++)
            sum += gauss[t] * (src[c + t] + src[c + TAPS - 1 - t]);
        dst[c] = sum;
    }
}

/* The same down the last TAPS rows of a ring of them: dst[c] = sum over t
 * of gauss[t] * rows[(first + t) % TAPS][c]. */
SIMD_TARGETS static void
window_column(const float *restrict gauss, float *const *rows, int first, float *restrict dst,
    int n)
{
    const float *at[TAPS];
    int c = 0;

    for (int t = 0; t < TAPS; t++)
        at[t] = rows[(first + t) % TAPS];
    for (; c + WIDE <= n; c += WIDE) {
        wide sum, a, b;

        memcpy(&a, at[TAPS / 2] + c, sizeof a);
        sum = gauss[TAPS / 2] * a;
        for (int t = 0; t < TAPS / 2; t++) {
            memcpy(&a, at[t] + c, sizeof a);
            memcpy(&b, at[TAPS - 1 - t] + c, sizeof b);
            sum += gauss[t] * (a + b);
        }
        memcpy(dst + c, &sum, sizeof sum);
    }
    for (; c < n; c++) {
        float sum = gauss[TAPS / 2] * at[TAPS / 2][c];

        for (int t = 0; t < TAPS / 2; t++)
            sum += gauss[t] * (at[t][c] + at[TAPS - 1 - t][c]);
        dst[c] = sum;
    }
}

/* The Gaussian window over a plane's valid region, one output row at a
 * time: each row of the plane is windowed across once, into a ring of the
 * last TAPS rows, and each output row down that ring, so the work stays
 * in the cache and nothing of the plane's size is allocated. `n` windows
 * at once: of in[k], or of in[k] * other[k] where other[k] is given;
 * emit(row, out, data) gets each output row of all n. */
typedef void (*window_emit)(int row, float *const *out, int width, void *data);

#define WINDOWS_MAX 3

static void
window(const gal_percept_ref *ref, int width, int height, int n, const float *const *in,
    const float *const *other, window_emit emit, void *data)
{
    int ow = width - EDGE, oh = height - EDGE;
    g_autofree float *block = g_new(float, (size_t) n * (TAPS + 1) * ow + width);
    float *ring[WINDOWS_MAX][TAPS], *out[WINDOWS_MAX];
    float *product = block + (size_t) n * (TAPS + 1) * ow;

    for (int k = 0; k < n; k++) {
        for (int t = 0; t < TAPS; t++)
            ring[k][t] = block + ((size_t) k * (TAPS + 1) + t) * ow;
        out[k] = block + ((size_t) k * (TAPS + 1) + TAPS) * ow;
    }
    for (int r = 0; r < height; r++) {
        for (int k = 0; k < n; k++) {
            const float *src = in[k] + (size_t) r * width;

            if (other[k]) {
                const float *o = other[k] + (size_t) r * width;

                for (int c = 0; c < width; c++)
                    product[c] = src[c] * o[c];
                src = product;
            }
            window_row(ref->gauss, src, ring[k][r % TAPS], ow);
        }
        if (r >= EDGE) {
            for (int k = 0; k < n; k++)
                window_column(ref->gauss, ring[k], (r - EDGE) % TAPS, out[k], ow);
            emit(r - EDGE, out, ow, data);
        }
    }
    (void) oh;
}

/* Sum of n floats in double, in a fixed order (four running sums, the
 * vector's lanes, added at the end). */
SIMD_TARGETS static double
sum_of(const float *restrict v, int n)
{
    typedef double doubles __attribute__((vector_size(4 * sizeof(double))));
    doubles lane = { 0, 0, 0, 0 };
    int c = 0;

    for (; c + LANES <= n; c += LANES)
        lane += __builtin_convertvector(lanes_at(v + c), doubles);
    for (; c < n; c++)
        lane[0] += v[c];
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

void
gal__percept_ref_free(gal_percept_ref *ref)
{
    if (!ref)
        return;
    for (int s = 0; s < ref->n_scales; s++) {
        g_free(ref->scales[s].lightness);
        g_free(ref->scales[s].mean);
        g_free(ref->scales[s].square);
    }
    g_free(ref->work.pixels);
    g_free(ref->work.planes[0]);
    g_free(ref);
}

/* The reference's windowed rows, kept (window_emit). */
static void
keep_rows(int row, float *const *out, int width, void *data)
{
    ref_scale *sc = data;

    memcpy(sc->mean + (size_t) row * width, out[0], sizeof(float) * width);
    memcpy(sc->square + (size_t) row * width, out[1], sizeof(float) * width);
}

gal_percept_ref *
gal__percept_ref_new(VipsImage *image, gal_error *err)
{
    g_autoptr(gal_percept_ref) ref = g_new0(gal_percept_ref, 1);
    size_t pixels, all = 0;
    int width, height;

    fill_tables(ref);
    ref->width = image->Xsize;
    ref->height = image->Ysize;
    pixels = (size_t) ref->width * ref->height;
    /* A picture too small for one window is compared whole, as one. */
    ref->n_scales = MAX(1, scales_for(ref->width, ref->height));
    for (int s = 0; s < ref->n_scales; s++)
        all += (size_t) (ref->width >> s) * (ref->height >> s);
    ref->work.pixels = g_new(guchar, 3 * pixels);
    ref->work.planes[0] = g_new(float, all);
    for (int s = 1; s < ref->n_scales; s++)
        ref->work.planes[s] = ref->work.planes[s - 1] +
            (size_t) (ref->width >> (s - 1)) * (ref->height >> (s - 1));
    if (lightness_planes(ref, image, err))
        return NULL;
    width = ref->width;
    height = ref->height;
    for (int s = 0; s < ref->n_scales; s++) {
        ref_scale *sc = &ref->scales[s];

        sc->width = width;
        sc->height = height;
        sc->lightness = g_memdup2(ref->work.planes[s], sizeof(float) * width * height);
        if (width >= SMALLEST && height >= SMALLEST) {
            size_t n = (size_t) (width - EDGE) * (height - EDGE);
            const float *in[2] = { sc->lightness, sc->lightness };
            const float *other[2] = { NULL, sc->lightness };

            sc->mean = g_new(float, n);
            sc->square = g_new(float, n);
            window(ref, width, height, 2, in, other, keep_rows, sc);
        }
        width /= 2;
        height /= 2;
    }
    return g_steal_pointer(&ref);
}

/* A comparison's running sums over one scale (window_emit). */
typedef struct {
    const ref_scale *sc;
    float *ssim_row, *cs_row;
    double ssim, cs;
} scale_sums;

SIMD_TARGETS static void
add_rows(int row, float *const *out, int width, void *data)
{
    scale_sums *sums = data;
    const float *restrict rx = sums->sc->mean + (size_t) row * width;
    const float *restrict rxx = sums->sc->square + (size_t) row * width;
    const float *restrict my_row = out[0], *restrict yy = out[1], *restrict xy = out[2];
    float *restrict ssim = sums->ssim_row, *restrict cs = sums->cs_row;
    const float c1 = (float) C1, c2 = (float) C2;
    int c = 0;

    /* Each term the same way for both pictures: a picture against itself
     * scores exactly 1. */
    for (; c + WIDE <= width; c += WIDE) {
        wide mx, my, sx, sy, sxy, vx, vy, cov, l, k;

        memcpy(&mx, rx + c, sizeof mx);
        memcpy(&my, my_row + c, sizeof my);
        memcpy(&sx, rxx + c, sizeof sx);
        memcpy(&sy, yy + c, sizeof sy);
        memcpy(&sxy, xy + c, sizeof sxy);
        vx = sx - mx * mx;
        vy = sy - my * my;
        cov = sxy - mx * my;
        l = (2 * mx * my + c1) / (mx * mx + my * my + c1);
        k = (2 * cov + c2) / (vx + vy + c2);
        l = l * k;
        memcpy(ssim + c, &l, sizeof l);
        memcpy(cs + c, &k, sizeof k);
    }
    for (; c < width; c++) {
        float mx = rx[c], my = my_row[c];
        float vx = rxx[c] - mx * mx, vy = yy[c] - my * my, cov = xy[c] - mx * my;
        float l = (2 * mx * my + c1) / (mx * mx + my * my + c1);
        float k = (2 * cov + c2) / (vx + vy + c2);

        ssim[c] = l * k;
        cs[c] = k;
    }
    sums->ssim += sum_of(ssim, width);
    sums->cs += sum_of(cs, width);
}

/* One scale's means of SSIM and of its contrast-structure term over the
 * valid region; a picture too small for a window is one window (its whole,
 * uniformly weighted). */
static void
compare_scale(const gal_percept_ref *ref, const ref_scale *sc, const float *y, double *ssim,
    double *cs)
{
    double sum_ssim = 0, sum_cs = 0;
    size_t n;

    if (!sc->mean) {
        double mx = 0, my = 0, xx = 0, yy = 0, xy = 0, l, c;

        n = (size_t) sc->width * sc->height;
        for (size_t i = 0; i < n; i++) {
            double a = sc->lightness[i], b = y[i];

            mx += a;
            my += b;
            xx += a * a;
            yy += b * b;
            xy += a * b;
        }
        mx /= n;
        my /= n;
        l = (2 * mx * my + C1) / (mx * mx + my * my + C1);
        c = (2 * (xy / n - mx * my) + C2) / (xx / n - mx * mx + yy / n - my * my + C2);
        *ssim = l * c;
        *cs = c;
        return;
    }
    {
        int ow = sc->width - EDGE;
        g_autofree float *terms = g_new(float, (size_t) 2 * ow);
        scale_sums sums = { sc, terms, terms + ow, 0, 0 };
        const float *in[3] = { y, y, y };
        const float *other[3] = { NULL, y, sc->lightness };

        window(ref, sc->width, sc->height, 3, in, other, add_rows, &sums);
        sum_ssim = sums.ssim;
        sum_cs = sums.cs;
        n = (size_t) ow * (sc->height - EDGE);
    }
    *ssim = sum_ssim / n;
    *cs = sum_cs / n;
}

/* Every scale's SSIM and contrast-structure means of `image`. */
static int
compare(const gal_percept_ref *ref, VipsImage *image, double *ssim, double *cs, gal_error *err)
{
    if (image->Xsize != ref->width || image->Ysize != ref->height)
        return gal_error_set(err, GAL_ERR_INTERNAL, NULL, NULL,
            "compare: a %dx%d picture against a %dx%d one", image->Xsize, image->Ysize,
            ref->width, ref->height);
    if (lightness_planes(ref, image, err))
        return -1;
    for (int s = 0; s < ref->n_scales; s++)
        compare_scale(ref, &ref->scales[s], ref->work.planes[s], &ssim[s], &cs[s]);
    return 0;
}

int
gal__percept_score(const gal_percept_ref *ref, VipsImage *image, double *score,
    double *ms_ssim, gal_error *err)
{
    double ssim[N_SCALES_MAX], cs[N_SCALES_MAX], weights = 0, product = 1;
    int m = ref->n_scales;

    if (compare(ref, image, ssim, cs, err))
        return -1;
    /* A picture with fewer scales weighs those it has as the paper's
     * weights do, scaled to add up to one. */
    for (int s = 0; s < m; s++)
        weights += scale_weights[s];
    for (int s = 0; s < m; s++) {
        /* A negative correlation is as unlike as none (the usual clamp,
         * without which a fractional power is undefined). */
        double term = MAX(0.0, s == m - 1 ? ssim[s] : cs[s]);

        product *= pow(term, scale_weights[s] / weights);
    }
    if (ms_ssim)
        *ms_ssim = product;
    *score = product >= 1.0 ? GAL_PERCEPT_PERFECT
                            : MIN(GAL_PERCEPT_PERFECT, -10.0 * log10(1.0 - product));
    return 0;
}

int
gal__percept_scales(const gal_percept_ref *ref, VipsImage *image, double scales[5],
    gal_error *err)
{
    double cs[N_SCALES_MAX];

    if (compare(ref, image, scales, cs, err))
        return -1;
    return ref->n_scales;
}

typedef struct {
    int x, y;
    double spread;
} ranked_tile;

static int
by_spread(const void *a, const void *b)
{
    const ranked_tile *p = a, *q = b;

    /* Ties by position: the same picture, the same tiles. */
    if (p->spread != q->spread)
        return p->spread < q->spread ? -1 : 1;
    return p->y != q->y ? (p->y < q->y ? -1 : 1) : (p->x > q->x) - (p->x < q->x);
}

int
gal__percept_pick_tiles(const gal_percept_ref *ref, int tile, int n, int *x, int *y)
{
    const ref_scale *full = &ref->scales[0];
    int across = full->width / tile, down = full->height / tile, count = across * down;
    g_autofree ranked_tile *tiles = NULL;

    if (tile <= 0 || n <= 0 || count <= 0)
        return 0;
    tiles = g_new(ranked_tile, count);
    for (int j = 0; j < down; j++)
        for (int i = 0; i < across; i++) {
            double sum = 0, squares = 0;

            for (int r = j * tile; r < (j + 1) * tile; r++) {
                const float *row = full->lightness + (size_t) r * full->width + i * tile;

                for (int c = 0; c < tile; c++) {
                    sum += row[c];
                    squares += (double) row[c] * row[c];
                }
            }
            sum /= (double) tile * tile;
            tiles[j * across + i] = (ranked_tile) { i * tile, j * tile,
                squares / ((double) tile * tile) - sum * sum };
        }
    qsort(tiles, count, sizeof *tiles, by_spread);
    n = MIN(n, count);
    for (int k = 0; k < n; k++) {
        const ranked_tile *t = &tiles[(int) (((double) k + 0.5) * count / n)];

        x[k] = t->x;
        y[k] = t->y;
    }
    return n;
}
