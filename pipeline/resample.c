/* resample.c: scaling along one axis (see resample.h). Shrinking 8-bit
 * images is a Lanczos 3 of our own, enlarging a separable, centred
 * Lanczos 3 or Catmull-Rom bicubic (resize.kernel; SSE2 both ways),
 * each one lazy libvips operation per axis (vips_image_generate): libvips
 * 8.14 has no enlarging reducer, its bicubic vips_affine is both slow
 * (about 45 ns a pixel, 16 taps) and half a pixel off centre inside
 * vips_resize, and its reducers are slow or costly to start (see
 * gal__scale_rows). */
#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lazy.h"
#include "resample.h"

/* Fixed-point weights, as libvips' own uchar bicubic keeps them. */
#define WEIGHT_BITS 12
#define WEIGHT_ONE (1 << WEIGHT_BITS)

/* For the loops over taps: inlined where the count is a constant (4 or 6),
 * they are unrolled, about a third fewer instructions than looping. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The most source lines an output line is made of: Lanczos 3's six. */
#define MAX_TAPS 6

/* The source positions and weights of one output row (or column). */
typedef struct {
    int src[MAX_TAPS]; /* source indices, clamped to the edge (extend copy) */
    int weight[MAX_TAPS];
} tap;

/* One axis's enlargement: which source lines make each output line. */
typedef struct {
    VipsImage *in; /* a reference, dropped when the output closes */
    int out_length;
    int n;         /* taps per output line: 4 (Catmull-Rom) or 6 (Lanczos 3) */
    tap *taps;     /* out_length of them */
    /* The alpha band's index, or -1: with alpha, colours are weighted by
     * it (see weigh_by_alpha). */
    int alpha;
#ifdef __SSE2__
    /* Each tap's weights as pairs (0, 1), (2, 3) ..., a pair to a vector,
     * n / 2 per output line, for the SSE2 loops. */
    __m128i *pairs;
#endif
} axis_plan;

static void
axis_plan_free(VipsImage *out, axis_plan *plan)
{
    (void) out;
    g_free(plan->taps);
#ifdef __SSE2__
    g_free(plan->pairs);
#endif
    g_free(plan);
}

static gint64
gcd64(gint64 a, gint64 b)
{
    while (b) {
        gint64 t = a % b;

        a = b;
        b = t;
    }
    return a;
}

static double
lanczos3(double x)
{
    if (x == 0)
        return 1;
    if (x <= -3 || x >= 3)
        return 0;
    return 3 * sin(G_PI * x) * sin(G_PI * x / 3) / (G_PI * G_PI * x * x);
}

/* The weights of the source lines around output line `i`, centred: output
 * line i covers source position (i + 0.5) * in / out - 0.5, and its taps
 * start n / 2 - 1 lines before. Catmull-Rom is libvips' "bicubic"; Lanczos
 * 3 is normalised to add up to one. The fraction is taken exactly, as a
 * ratio of integers reduced first, so the same scale gives the same
 * weights wherever a span of the axis starts (gal__resize_span relies on
 * it: a window scaled alone is the whole photo's window). */
static void
make_tap(gal_kernel kernel, gint64 in_r, gint64 out_r, int in_length, int i, tap *t)
{
    /* position = num / den, with num = (2i + 1) in - out, den = 2 out */
    gint64 num = (2 * (gint64) i + 1) * in_r - out_r;
    gint64 den = 2 * out_r;
    gint64 whole = num >= 0 ? num / den : -((-num + den - 1) / den);
    double f = (double) (num - whole * den) / (double) den;
    int n = kernel == GAL_KERNEL_LANCZOS3 ? 6 : 4;
    double w[MAX_TAPS], total = 0;
    int sum = 0, largest = n / 2 - 1;

    if (kernel == GAL_KERNEL_LANCZOS3) {
        for (int k = 0; k < n; k++)
            total += w[k] = lanczos3(k - 2 - f);
        for (int k = 0; k < n; k++)
            w[k] /= total;
    }
    else {
        w[0] = 0.5 * (-f * f * f + 2 * f * f - f);
        w[1] = 0.5 * (3 * f * f * f - 5 * f * f + 2);
        w[2] = 0.5 * (-3 * f * f * f + 4 * f * f + f);
        w[3] = 0.5 * (f * f * f - f * f);
    }
    for (int k = 0; k < n; k++) {
        gint64 s = whole - (n / 2 - 1) + k;

        t->src[k] = (int) CLAMP(s, 0, in_length - 1);
        t->weight[k] = (int) lround(w[k] * WEIGHT_ONE);
        sum += t->weight[k];
        if (t->weight[k] > t->weight[largest])
            largest = k;
    }
    /* Rounding: the weights add up to one exactly, so flat areas stay flat. */
    t->weight[largest] += WEIGHT_ONE - sum;
}

#ifdef __SSE2__
/* Two taps' weights side by side in 32 bits, repeated across the vector:
 * what _mm_madd_epi16 multiplies an interleaved pair of pixels by. */
static inline __m128i
weight_pair(int w0, int w1)
{
    return _mm_set1_epi32((int) ((guint32) (guint16) w0 | (guint32) (guint16) w1 << 16));
}
#endif

static axis_plan *
axis_plan_new(VipsImage *in, int in_length, int out_length, gal_kernel kernel)
{
    axis_plan *plan = g_new0(axis_plan, 1);
    gint64 g = gcd64(in_length, out_length);

    plan->in = in;
    plan->out_length = out_length;
    plan->n = kernel == GAL_KERNEL_LANCZOS3 ? 6 : 4;
    plan->taps = g_new(tap, out_length);
    for (int i = 0; i < out_length; i++)
        make_tap(kernel, in_length / g, out_length / g, in_length, i, &plan->taps[i]);
#ifdef __SSE2__
    plan->pairs = g_new(__m128i, plan->n / 2 * (gsize) out_length);
    for (int i = 0; i < out_length; i++)
        for (int k = 0; k < plan->n / 2; k++)
            plan->pairs[plan->n / 2 * i + k] =
                weight_pair(plan->taps[i].weight[2 * k], plan->taps[i].weight[2 * k + 1]);
#endif
    return plan;
}

static inline VipsPel
clip_pel(int sum)
{
    int v = (sum + WEIGHT_ONE / 2) >> WEIGHT_BITS;

    return (VipsPel) CLAMP(v, 0, 255);
}

#ifdef __SSE2__
/* Rows weighted byte by byte, 16 bytes at a time with SSE2: bytes of rows
 * 2k and 2k + 1 interleaved in 16 bits and weighed in one madd by `pair`[k]
 * (their two weights, repeated), summed, rounded at `bits` and saturated.
 * `taps` is even. Returns how many of the `n` bytes it did (a multiple of
 * 16): the caller does the rest the plain way, with the same sums. */
static ALWAYS_INLINE int
weigh_rows_sse2(const VipsPel *const *rows, int taps, const __m128i *pair, int bits, int n,
    VipsPel *q)
{
    const __m128i zero = _mm_setzero_si128();
    const __m128i half = _mm_set1_epi32(1 << (bits - 1));
    const __m128i shift = _mm_cvtsi32_si128(bits);
    int j = 0;

    for (; j + 16 <= n; j += 16) {
        __m128i sum0 = half, sum1 = half, sum2 = half, sum3 = half;

        for (int k = 0; k < taps; k += 2) {
            __m128i a = _mm_loadu_si128((const __m128i *) (rows[k] + j));
            __m128i b = _mm_loadu_si128((const __m128i *) (rows[k + 1] + j));
            __m128i lo = _mm_unpacklo_epi8(a, b), hi = _mm_unpackhi_epi8(a, b);
            __m128i weight = pair[k / 2];

            sum0 = _mm_add_epi32(sum0, _mm_madd_epi16(_mm_unpacklo_epi8(lo, zero), weight));
            sum1 = _mm_add_epi32(sum1, _mm_madd_epi16(_mm_unpackhi_epi8(lo, zero), weight));
            sum2 = _mm_add_epi32(sum2, _mm_madd_epi16(_mm_unpacklo_epi8(hi, zero), weight));
            sum3 = _mm_add_epi32(sum3, _mm_madd_epi16(_mm_unpackhi_epi8(hi, zero), weight));
        }
        sum0 = _mm_sra_epi32(sum0, shift);
        sum1 = _mm_sra_epi32(sum1, shift);
        sum2 = _mm_sra_epi32(sum2, shift);
        sum3 = _mm_sra_epi32(sum3, shift);
        _mm_storeu_si128((__m128i *) (q + j),
            _mm_packus_epi16(_mm_packs_epi32(sum0, sum1), _mm_packs_epi32(sum2, sum3)));
    }
    return j;
}
#endif

/* With alpha, a pixel is weighted as if premultiplied: the alpha as any
 * band, each colour by weight times alpha, then divided by the new alpha.
 * Weighted straight, the colour a transparent pixel happens to hold (often
 * red, black or a mask's leftovers) would bleed into the edge of the
 * opaque pixels next to it. Where the taps' alphas are equal (inside
 * opaque or evenly faded areas: most pixels) the weights add up to one and
 * both ways give the same pixel, so the straight loops run over every
 * pixel and only those among unequal alphas are weighed again here. */
static inline gboolean
alphas_differ(const VipsPel *const *p, int n, int alpha)
{
    for (int k = 1; k < n; k++)
        if (p[k][alpha] != p[0][alpha])
            return TRUE;
    return FALSE;
}

/* One pixel's colours (not its alpha, at `alpha`, already weighted) from
 * the n source pixels p[] whose alphas differ. Where the weighted alpha is
 * nothing, the pixel is transparent and its colour meaningless: it keeps
 * the straight weighting. In 64 bits: weight x alpha x colour x taps can
 * pass 2^31. */
static void
weigh_by_alpha(const tap *t, const VipsPel *const *p, int n, int bands, int alpha, VipsPel *q)
{
    gint64 wa[MAX_TAPS], sum_a = 0;

    for (int k = 0; k < n; k++)
        sum_a += wa[k] = (gint64) t->weight[k] * p[k][alpha];
    if (sum_a <= 0)
        return;
    for (int b = 0; b < bands; b++) {
        gint64 sum = 0;

        if (b == alpha)
            continue;
        for (int k = 0; k < n; k++)
            sum += wa[k] * p[k][b];
        q[b] = (VipsPel) (sum <= 0 ? 0 : MIN((sum + sum_a / 2) / sum_a, 255));
    }
}

/* Rows: each output row is n source rows weighted, byte by byte. */
static int
rows_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop)
{
    VipsRegion *ir = seq;
    const axis_plan *plan = b;
    const VipsRect *r = &out_region->valid;
    const tap *first = &plan->taps[r->top];
    const tap *last = &plan->taps[r->top + r->height - 1];
    int n = plan->n, bands = plan->in->Bands, alpha = plan->alpha;
    VipsRect need = { r->left, first->src[0], r->width, last->src[n - 1] - first->src[0] + 1 };
    size_t bytes = (size_t) r->width * bands;

    (void) a;
    (void) stop;
    if (vips_region_prepare(ir, &need))
        return -1;
    for (int y = 0; y < r->height; y++) {
        const tap *t = &plan->taps[r->top + y];
        const VipsPel *p[MAX_TAPS];
        VipsPel *q = VIPS_REGION_ADDR(out_region, r->left, r->top + y);
        size_t j = 0;

        for (int k = 0; k < n; k++)
            p[k] = VIPS_REGION_ADDR(ir, r->left, t->src[k]);
#ifdef __SSE2__
        {
            const __m128i *pair = &plan->pairs[n / 2 * (r->top + y)];

            j = (size_t) (n == 4 ? weigh_rows_sse2(p, 4, pair, WEIGHT_BITS, (int) bytes, q)
                                 : weigh_rows_sse2(p, 6, pair, WEIGHT_BITS, (int) bytes, q));
        }
#endif
        for (; j < bytes; j++) {
            int sum = 0;

            for (int k = 0; k < n; k++)
                sum += t->weight[k] * p[k][j];
            q[j] = clip_pel(sum);
        }
        if (alpha < 0)
            continue;
        for (size_t i = 0; i < bytes; i += bands) {
            const VipsPel *at[MAX_TAPS];

            for (int k = 0; k < n; k++)
                at[k] = p[k] + i;
            if (alphas_differ(at, n, alpha))
                weigh_by_alpha(t, at, n, bands, alpha, q + i);
        }
    }
    return 0;
}

/* ---- A thread's state for the column loops ------------------------------- */

/* A thread's region of the input, and room for one row made ready for the
 * SSE2 loops (ready_pairs_rgb). */
typedef struct {
    VipsRegion *ir;
#ifdef __SSE2__
    __m128i *ready;
    int ready_size;
#endif
} row_seq;

static void *
row_seq_start(VipsImage *out, void *a, void *b)
{
    row_seq *seq = g_new0(row_seq, 1);

    (void) out;
    (void) b;
    if (!(seq->ir = vips_region_new(a))) {
        g_free(seq);
        return NULL;
    }
    return seq;
}

static int
row_seq_stop(void *vseq, void *a, void *b)
{
    row_seq *seq = vseq;

    (void) a;
    (void) b;
    VIPS_UNREF(seq->ir);
#ifdef __SSE2__
    g_free(seq->ready);
#endif
    g_free(seq);
    return 0;
}

#ifdef __SSE2__
/* A 3-band row made ready for the column loops: for every pixel k that can
 * start a pair of taps (all but the last of the row's `length`), pixel k
 * and k + 1 interleaved in 16 bits (R0 R1 G0 G1 B0 B1 . .), so that an
 * output pixel is one madd per pair of taps with that pair's two weights
 * (R, G and B summed at once), each source pixel unpacked once however many
 * outputs read it. In seq's scratch, valid until the next call. */
static const __m128i *
ready_pairs_rgb(row_seq *seq, const VipsPel *row, int length)
{
    const __m128i zero = _mm_setzero_si128();
    int k = 0;

    if (seq->ready_size < length) {
        g_free(seq->ready);
        seq->ready = g_new(__m128i, length);
        seq->ready_size = length;
    }
    /* 8 bytes at a time while they are in the row; the last pairs by hand. */
    for (; k * 3 + 8 <= length * 3; k++) {
        __m128i v = _mm_loadl_epi64((const __m128i *) (row + k * 3));

        seq->ready[k] = _mm_unpacklo_epi8(_mm_unpacklo_epi8(v, _mm_srli_si128(v, 3)), zero);
    }
    for (; k + 1 < length; k++) {
        const VipsPel *p = row + k * 3;

        seq->ready[k] = _mm_setr_epi16(p[0], p[3], p[1], p[4], p[2], p[5], 0, 0);
    }
    return seq->ready;
}

/* One row of columns_generate() for 3 bands with SSE2 (every x86-64 has
 * it), from the row made ready (ready_pairs_rgb; `row` holds `length`
 * pixels from source column `row_left`): a madd per pair of taps, then
 * rounded, shifted and saturated as clip_pel() does, so the bytes are the
 * same. The weights fit 16 bits (in 1/4096: Catmull-Rom -304..4096,
 * Lanczos 3 no more). At the edges, where the taps repeat the edge pixel,
 * they are not pairs of neighbours: those pixels are paired by hand. */
static ALWAYS_INLINE void
columns_rgb_sse2(const axis_plan *plan, int n, const __m128i *ready, const VipsPel *row,
    int row_left, int out_left, int width, VipsPel *q)
{
    const __m128i zero = _mm_setzero_si128();
    const __m128i half = _mm_set1_epi32(WEIGHT_ONE / 2);

    for (int x = 0; x < width; x++) {
        const tap *t = &plan->taps[out_left + x];
        const __m128i *pair = &plan->pairs[n / 2 * (out_left + x)];
        __m128i sum = zero, bytes;

        if (t->src[n - 1] - t->src[0] == n - 1) {
            const __m128i *p = &ready[t->src[0] - row_left];

            for (int k = 0; k < n / 2; k++)
                sum = _mm_add_epi32(sum, _mm_madd_epi16(p[2 * k], pair[k]));
        }
        else
            for (int k = 0; k < n / 2; k++) {
                /* R0 R1 G0 G1 B0 B1 in 16 bits, as ready_pairs_rgb() makes them. */
                const VipsPel *p0 = row + (t->src[2 * k] - row_left) * 3;
                const VipsPel *p1 = row + (t->src[2 * k + 1] - row_left) * 3;

                sum = _mm_add_epi32(sum, _mm_madd_epi16(
                    _mm_setr_epi16(p0[0], p1[0], p0[1], p1[1], p0[2], p1[2], 0, 0), pair[k]));
            }
        sum = _mm_srai_epi32(_mm_add_epi32(sum, half), WEIGHT_BITS);
        bytes = _mm_packus_epi16(_mm_packs_epi32(sum, zero), zero);
        if (x + 1 < width)
            _mm_storeu_si32(q + x * 3, bytes);
        else {
            guint32 rgb = (guint32) _mm_cvtsi128_si32(bytes);

            q[x * 3] = (VipsPel) rgb;
            q[x * 3 + 1] = (VipsPel) (rgb >> 8);
            q[x * 3 + 2] = (VipsPel) (rgb >> 16);
        }
    }
}
#endif

/* The n source pixels of output column `t` in `row`, a row of the input
 * region that starts at source column `row_left`. */
static inline void
tap_pixels(const tap *t, int n, const VipsPel *row, int row_left, int bands, const VipsPel **p)
{
    for (int k = 0; k < n; k++)
        p[k] = row + (t->src[k] - row_left) * bands;
}

/* One output row of `width` columns from output column `out_left`, each
 * band weighted straight; `row` holds `length` pixels from `row_left`. */
static void
weigh_columns(const axis_plan *plan, row_seq *seq, const VipsPel *row, int length,
    int row_left, int out_left, int width, VipsPel *q)
{
    const tap *taps = &plan->taps[out_left];
    int n = plan->n, bands = plan->in->Bands;

#ifdef __SSE2__
    if (bands == 3) {
        const __m128i *ready = ready_pairs_rgb(seq, row, length);

        if (n == 4)
            columns_rgb_sse2(plan, 4, ready, row, row_left, out_left, width, q);
        else
            columns_rgb_sse2(plan, 6, ready, row, row_left, out_left, width, q);
        return;
    }
#else
    (void) seq;
    (void) length;
#endif
    for (int x = 0; x < width; x++, q += bands) {
        const VipsPel *p[MAX_TAPS];

        tap_pixels(&taps[x], n, row, row_left, bands, p);
        for (int b = 0; b < bands; b++) {
            int sum = 0;

            for (int k = 0; k < n; k++)
                sum += taps[x].weight[k] * p[k][b];
            q[b] = clip_pel(sum);
        }
    }
}

/* Columns: each output pixel is n source pixels of its row weighted; with
 * alpha, those among unequal alphas weighed again (alphas_differ), as
 * rows_generate() does. */
static int
columns_generate(VipsRegion *out_region, void *vseq, void *a, void *b, gboolean *stop)
{
    row_seq *seq = vseq;
    VipsRegion *ir = seq->ir;
    const axis_plan *plan = b;
    const VipsRect *r = &out_region->valid;
    const tap *taps = &plan->taps[r->left];
    const tap *last = &taps[r->width - 1];
    int n = plan->n, bands = plan->in->Bands, alpha = plan->alpha;
    VipsRect need = { taps[0].src[0], r->top, last->src[n - 1] - taps[0].src[0] + 1, r->height };

    (void) a;
    (void) stop;
    if (vips_region_prepare(ir, &need))
        return -1;
    for (int y = 0; y < r->height; y++) {
        const VipsPel *row = VIPS_REGION_ADDR(ir, need.left, r->top + y);
        VipsPel *q = VIPS_REGION_ADDR(out_region, r->left, r->top + y);

        weigh_columns(plan, seq, row, need.width, need.left, r->left, r->width, q);
        if (alpha < 0)
            continue;
        for (int x = 0; x < r->width; x++) {
            const VipsPel *p[MAX_TAPS];

            tap_pixels(&taps[x], n, row, need.left, bands, p);
            if (alphas_differ(p, n, alpha))
                weigh_by_alpha(&taps[x], p, n, bands, alpha, q + x * bands);
        }
    }
    return 0;
}

/* The enlargement of `in` (8-bit) along one axis to `length`, lazily. */
static int
enlarge_axis(VipsImage *in, gboolean rows, int length, gal_kernel kernel, VipsImage **out)
{
    axis_plan *plan;

    if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE) {
        vips_error("gallop", "enlarging needs 8-bit pixels");
        return -1;
    }
    plan = axis_plan_new(in, rows ? in->Ysize : in->Xsize, length, kernel);
    plan->alpha = vips_image_hasalpha(in) ? in->Bands - 1 : -1;
    if (rows)
        return gal__lazy_op(in, in->Xsize, length, vips_start_one, rows_generate, vips_stop_one, plan,
            G_CALLBACK(axis_plan_free), out);
    return gal__lazy_op(in, length, in->Ysize, row_seq_start, columns_generate, row_seq_stop, plan,
        G_CALLBACK(axis_plan_free), out);
}

int
gal__enlarge_rows(VipsImage *in, int height, VipsImage **out)
{
    return enlarge_axis(in, TRUE, height, GAL_KERNEL_CATMULL_ROM, out);
}

int
gal__enlarge_columns(VipsImage *in, int width, VipsImage **out)
{
    return enlarge_axis(in, FALSE, width, GAL_KERNEL_CATMULL_ROM, out);
}

/* ---- Shrinking: Lanczos 3 ------------------------------------------------ */

/* libvips 8.14's vips_reduceh is plain C, and reducing columns with its
 * vectorised vips_reducev through two quarter turns needed the image in
 * memory and asked for regions a few columns wide: about 18 ms of CPU for
 * a 12 MP photo's 1080x1350 output, against 8 ms here, each row reduced as
 * it comes (SSE2 for three bands). Rows are reduced a few source rows at a
 * time, as vips_reducev does, without its orc programs to compile for
 * every image. */
#define REDUCE_BITS 14
#define REDUCE_ONE (1 << REDUCE_BITS)

typedef struct {
    VipsImage *in;   /* a reference, dropped when the output closes */
    int taps;        /* source pixels per output pixel, contiguous */
    int *first;      /* each output pixel's first source pixel */
    gint16 *weights; /* taps per output pixel, adding up to REDUCE_ONE */
#ifdef __SSE2__
    /* The same weights for the SSE2 loops, a pair (k, k + 1) to a vector,
     * repeated four times (reduce_row_rgb_sse2: R, G, B; weigh_rows_sse2:
     * the bytes of two rows); NULL when taps is odd (an axis shorter than
     * the kernel). */
    __m128i *pairs;
#endif
} reduce_plan;

static void
reduce_plan_free(VipsImage *out, reduce_plan *plan)
{
    (void) out;
    g_free(plan->first);
    g_free(plan->weights);
#ifdef __SSE2__
    g_free(plan->pairs);
#endif
    g_free(plan);
}

/* Output pixel i covers source position (i + 0.5) * in / out - 0.5, as in
 * make_tap(), taken exactly from the reduced ratio so that a span of the
 * axis shrunk alone is the whole axis's span (gal__resize_span). The
 * kernel is stretched by the scale, so every source pixel counts; pixels
 * past an edge repeat the edge's (their weight goes to it). Each output
 * reads `taps` pixels from first[i], the window moved inside the row at
 * the edges. */
static reduce_plan *
reduce_plan_new(VipsImage *in, int in_length, int out_length)
{
    reduce_plan *plan = g_new0(reduce_plan, 1);
    gint64 g = gcd64(in_length, out_length);
    gint64 in_r = in_length / g, out_r = out_length / g;
    double scale = (double) in_length / out_length;
    int reach = (int) ceil(3 * scale), n = 2 * reach + 2;
    /* Per output: each candidate's source pixel and weight. */
    int *src = g_new(int, (gsize) out_length * n);
    double *w = g_new(double, (gsize) out_length * n);
    int taps = 1;

    for (int i = 0; i < out_length; i++) {
        gint64 num = (2 * (gint64) i + 1) * in_r - out_r;
        gint64 den = 2 * out_r;
        gint64 whole = num >= 0 ? num / den : -((-num + den - 1) / den);
        double f = (double) (num - whole * den) / (double) den;
        int lo = G_MAXINT, hi = -1;

        /* Source pixel whole + k sits k - f from the centre. f repeats
         * every out_r outputs (whole moves on by in_r): the weights are
         * worked out once for each (sin is most of a plan's cost). */
        if (i < out_r) {
            double total = 0;

            for (int k = 0; k < n; k++)
                total += w[i * n + k] = lanczos3((k - reach - f) / scale);
            for (int k = 0; k < n; k++)
                w[i * n + k] /= total;
        }
        else
            memcpy(&w[(gsize) i * n], &w[(gsize) (i % out_r) * n], n * sizeof(double));
        for (int k = 0; k < n; k++) {
            int j = i * n + k;

            src[j] = (int) CLAMP(whole + k - reach, 0, in_length - 1);
            if (w[j] != 0) {
                lo = MIN(lo, src[j]);
                hi = MAX(hi, src[j]);
            }
        }
        taps = MAX(taps, hi - lo + 1);
    }
    /* An even count, for the pairs of the SSE2 loop. */
    plan->in = in;
    plan->taps = MIN(taps + (taps & 1), in_length);
    plan->first = g_new(int, out_length);
    plan->weights = g_new0(gint16, (gsize) out_length * plan->taps);
    for (int i = 0; i < out_length; i++) {
        gint16 *wi = &plan->weights[(gsize) i * plan->taps];
        int lo = G_MAXINT, sum = 0, largest = 0;

        for (int k = 0; k < n; k++)
            if (w[i * n + k] != 0)
                lo = MIN(lo, src[i * n + k]);
        plan->first[i] = MIN(lo, in_length - plan->taps);
        for (int k = 0; k < n; k++)
            if (w[i * n + k] != 0) {
                int at = src[i * n + k] - plan->first[i];

                wi[at] = (gint16) (wi[at] + (int) lround(w[i * n + k] * REDUCE_ONE));
            }
        for (int k = 0; k < plan->taps; k++) {
            sum += wi[k];
            if (wi[k] > wi[largest])
                largest = k;
        }
        /* Rounding: the weights add up to one exactly, so flat areas stay flat. */
        wi[largest] = (gint16) (wi[largest] + REDUCE_ONE - sum);
    }
#ifdef __SSE2__
    if (!(plan->taps & 1)) {
        int pairs = plan->taps / 2;

        plan->pairs = g_new(__m128i, (gsize) out_length * pairs);
        for (int i = 0; i < out_length; i++)
            for (int k = 0; k < pairs; k++) {
                const gint16 *wi = &plan->weights[(gsize) i * plan->taps + 2 * k];

                plan->pairs[(gsize) i * pairs + k] = weight_pair(wi[0], wi[1]);
            }
    }
#endif
    g_free(src);
    g_free(w);
    return plan;
}

static inline VipsPel
reduce_clip(int sum)
{
    int v = (sum + REDUCE_ONE / 2) >> REDUCE_BITS;

    return (VipsPel) CLAMP(v, 0, 255);
}

/* Output pixel x of a row, any bands, plainly. */
static inline void
reduce_pixel(const reduce_plan *plan, int x, const VipsPel *p, int bands, VipsPel *q)
{
    const gint16 *w = &plan->weights[(gsize) x * plan->taps];

    for (int b = 0; b < bands; b++) {
        int sum = 0;

        for (int k = 0; k < plan->taps; k++)
            sum += w[k] * p[k * bands + b];
        q[b] = reduce_clip(sum);
    }
}

#ifdef __SSE2__
/* One row of 3-band output with SSE2, from the row made ready
 * (ready_pairs_rgb), at `pairs` pairs of taps: inlined for each common
 * count, so the loop over them unrolls; two sums, so the madds do not wait
 * on each other. The sums are reduce_pixel()'s. Each pixel is written as 4
 * bytes (the fourth overwritten by the next), all but the last. */
static inline __attribute__((always_inline)) void
reduce_pairs_rgb(const reduce_plan *plan, const __m128i *ready, int row_left, int out_left,
    int width, VipsPel *q, const int pairs)
{
    const __m128i zero = _mm_setzero_si128();
    const __m128i half = _mm_set1_epi32(REDUCE_ONE / 2);

    for (int x = 0; x < width; x++) {
        const __m128i *pair = &plan->pairs[(gsize) (out_left + x) * pairs];
        const __m128i *p = &ready[plan->first[out_left + x] - row_left];
        __m128i even = _mm_madd_epi16(p[0], pair[0]);
        __m128i odd = zero, sum, bytes;

        for (int j = 1; j < pairs; j++) {
            if (j & 1)
                odd = _mm_add_epi32(odd, _mm_madd_epi16(p[2 * j], pair[j]));
            else
                even = _mm_add_epi32(even, _mm_madd_epi16(p[2 * j], pair[j]));
        }
        sum = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(even, odd), half), REDUCE_BITS);
        bytes = _mm_packus_epi16(_mm_packs_epi32(sum, zero), zero);
        if (x + 1 < width)
            _mm_storeu_si32(q + x * 3, bytes);
        else {
            guint32 rgb = (guint32) _mm_cvtsi128_si32(bytes);

            q[x * 3] = (VipsPel) rgb;
            q[x * 3 + 1] = (VipsPel) (rgb >> 8);
            q[x * 3 + 2] = (VipsPel) (rgb >> 16);
        }
    }
}

/* `row` holds `length` pixels from source column `row_left`. */
static void
reduce_row_rgb_sse2(const reduce_plan *plan, row_seq *seq, const VipsPel *row, int length,
    int row_left, int out_left, int width, VipsPel *q)
{
    const __m128i *ready = ready_pairs_rgb(seq, row, length);

    /* 12 MP photos to 1080 px: 4 or 5 pairs; contact-sheet tiles: more. */
    switch (plan->taps / 2) {
    case 3:
        reduce_pairs_rgb(plan, ready, row_left, out_left, width, q, 3);
        break;
    case 4:
        reduce_pairs_rgb(plan, ready, row_left, out_left, width, q, 4);
        break;
    case 5:
        reduce_pairs_rgb(plan, ready, row_left, out_left, width, q, 5);
        break;
    case 6:
        reduce_pairs_rgb(plan, ready, row_left, out_left, width, q, 6);
        break;
    default:
        reduce_pairs_rgb(plan, ready, row_left, out_left, width, q, plan->taps / 2);
    }
}
#endif

static int
reduce_columns_generate(VipsRegion *out_region, void *vseq, void *a, void *b, gboolean *stop)
{
    row_seq *seq = vseq;
    const reduce_plan *plan = b;
    const VipsRect *r = &out_region->valid;
    int bands = plan->in->Bands;
    int left = plan->first[r->left];
    VipsRect need = { left, r->top, plan->first[r->left + r->width - 1] + plan->taps - left,
        r->height };

    (void) a;
    (void) stop;
    if (vips_region_prepare(seq->ir, &need))
        return -1;
    for (int y = 0; y < r->height; y++) {
        const VipsPel *row = VIPS_REGION_ADDR(seq->ir, left, r->top + y);
        VipsPel *q = VIPS_REGION_ADDR(out_region, r->left, r->top + y);

#ifdef __SSE2__
        if (bands == 3 && plan->pairs) {
            reduce_row_rgb_sse2(plan, seq, row, need.width, left, r->left, r->width, q);
            continue;
        }
#endif
        for (int x = 0; x < r->width; x++)
            reduce_pixel(plan, r->left + x, row + (plan->first[r->left + x] - left) * bands,
                bands, q + x * bands);
    }
    return 0;
}

/* Rows: each output row is `taps` source rows weighted, byte by byte
 * (weigh_rows_sse2). The sums are reduce_pixel()'s. */
static void
reduce_bytes(const reduce_plan *plan, int y, const VipsPel *const *rows, int n, VipsPel *q)
{
    const gint16 *w = &plan->weights[(gsize) y * plan->taps];
    int j = 0;

#ifdef __SSE2__
    if (plan->pairs)
        j = weigh_rows_sse2(rows, plan->taps, &plan->pairs[(gsize) y * (plan->taps / 2)],
            REDUCE_BITS, n, q);
#endif
    for (; j < n; j++) {
        int sum = 0;

        for (int k = 0; k < plan->taps; k++)
            sum += w[k] * rows[k][j];
        q[j] = reduce_clip(sum);
    }
}

static int
reduce_rows_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop)
{
    VipsRegion *ir = seq;
    const reduce_plan *plan = b;
    const VipsRect *r = &out_region->valid;
    int top = plan->first[r->top];
    VipsRect need = { r->left, top, r->width,
        plan->first[r->top + r->height - 1] + plan->taps - top };
    int n = r->width * plan->in->Bands;
    const VipsPel **rows = g_newa(const VipsPel *, plan->taps);

    (void) a;
    (void) stop;
    if (vips_region_prepare(ir, &need))
        return -1;
    for (int y = 0; y < r->height; y++) {
        int first = plan->first[r->top + y];

        for (int k = 0; k < plan->taps; k++)
            rows[k] = VIPS_REGION_ADDR(ir, r->left, first + k);
        reduce_bytes(plan, r->top + y, rows, n, VIPS_REGION_ADDR(out_region, r->left, r->top + y));
    }
    return 0;
}

/* Shrink 8-bit `in` to `length` rows (or columns), lazily: rows a few
 * source rows at a time as they stream, columns row by row. */
static int
reduce_axis(VipsImage *in, gboolean rows, int length, VipsImage **out)
{
    reduce_plan *plan = reduce_plan_new(in, rows ? in->Ysize : in->Xsize, length);

    if (rows)
        return gal__lazy_op(in, in->Xsize, length, vips_start_one, reduce_rows_generate,
            vips_stop_one, plan, G_CALLBACK(reduce_plan_free), out);
    return gal__lazy_op(in, length, in->Ysize, row_seq_start, reduce_columns_generate, row_seq_stop,
        plan, G_CALLBACK(reduce_plan_free), out);
}

/* Lanczos 3 along one axis. 8-bit images, the pipeline's, shrink with
 * gallop's own reducer (reduce_axis): libvips 8.14's vips_reduceh is plain
 * C, vips_reducev compiles orc programs for every image it makes (about 1.7
 * ms of CPU each, per photo and per contact-sheet tile), and its columns
 * went through two quarter turns. Other formats keep vips_reducev, columns
 * through the turns (gal__scale_columns). Growing is the bicubic above. */
int
gal__scale_rows(VipsImage *in, int height, VipsImage **out)
{
    if (height == in->Ysize)
        return vips_copy(in, out, NULL);
    if (height > in->Ysize)
        return gal__enlarge_rows(in, height, out);
    if (!gal__columns_turn(in))
        return reduce_axis(in, TRUE, height, out);
    return vips_reducev(in, out, (double) in->Ysize / height, "kernel", VIPS_KERNEL_LANCZOS3,
        NULL);
}

gboolean
gal__columns_turn(const VipsImage *in)
{
    return in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE;
}

/* The columns' counterpart of gal__scale_rows(). 8-bit pixels shrink row
 * by row (reduce_columns) and grow likewise. Other formats shrink through
 * quarter turns, which read whole columns: `in` must then allow random
 * access (be in memory) and not carry the decoder's "sequential" mark,
 * which would make every operation after it ask for one-row strips:
 * through the turn, column after column, many times slower than tiles. */
int
gal__scale_columns(VipsImage *in, int width, VipsImage **out)
{
    g_autoptr(VipsImage) turned = NULL;
    g_autoptr(VipsImage) scaled = NULL;

    if (width == in->Xsize)
        return vips_copy(in, out, NULL);
    if (width > in->Xsize)
        return gal__enlarge_columns(in, width, out);
    if (!gal__columns_turn(in))
        return reduce_axis(in, FALSE, width, out);
    return vips_rot(in, &turned, VIPS_ANGLE_D90, NULL) ||
        vips_reducev(turned, &scaled, (double) turned->Ysize / width, "kernel",
            VIPS_KERNEL_LANCZOS3, NULL) ||
        vips_rot(scaled, out, VIPS_ANGLE_D270, NULL);
}

/* Rows averaged two by two (the last alone when odd), lazily: one
 * _mm_avg_epu8 per 16 bytes, (a + b + 1) / 2 as the plain loop. */
static int
halve_rows_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop)
{
    VipsRegion *ir = seq;
    const VipsImage *in = a;
    const VipsRect *r = &out_region->valid;
    VipsRect need = { r->left, 2 * r->top, r->width,
        MIN(2 * (r->top + r->height), in->Ysize) - 2 * r->top };
    int n = r->width * in->Bands;

    (void) b;
    (void) stop;
    if (vips_region_prepare(ir, &need))
        return -1;
    for (int y = 0; y < r->height; y++) {
        int y0 = 2 * (r->top + y), y1 = MIN(y0 + 1, in->Ysize - 1);
        const VipsPel *p0 = VIPS_REGION_ADDR(ir, r->left, y0);
        const VipsPel *p1 = VIPS_REGION_ADDR(ir, r->left, y1);
        VipsPel *q = VIPS_REGION_ADDR(out_region, r->left, r->top + y);
        int j = 0;

#ifdef __SSE2__
        for (; j + 16 <= n; j += 16)
            _mm_storeu_si128((__m128i *) (q + j),
                _mm_avg_epu8(_mm_loadu_si128((const __m128i *) (p0 + j)),
                    _mm_loadu_si128((const __m128i *) (p1 + j))));
#endif
        for (; j < n; j++)
            q[j] = (VipsPel) ((p0[j] + p1[j] + 1) >> 1);
    }
    return 0;
}

/* `in` (8-bit) with half as many rows, rounded up. */
static int
halve_rows(VipsImage *in, VipsImage **out)
{
    return gal__lazy_op(in, in->Xsize, (in->Ysize + 1) / 2, vips_start_one, halve_rows_generate,
        vips_stop_one, NULL, NULL, out);
}

/* Both axes, Lanczos 3, rows first (gal__scale_rows, gal__scale_columns).
 * vips_thumbnail_image would shrink by a whole factor first with 8.14's
 * vips_shrinkh/v, plain C loops that cost a contact-sheet tile about 4 ms
 * of CPU per 1080x1350 photo, a tenth of the 1080 px bench. */
int
gal__shrink(VipsImage *in, int width, int height, VipsImage **out)
{
    g_autoptr(VipsImage) unmarked = NULL;
    g_autoptr(VipsImage) halved = NULL;
    g_autoptr(VipsImage) rows = NULL;
    g_autoptr(VipsImage) rows_memory = NULL;
    g_autoptr(VipsImage) both = NULL;
    VipsImage *source;

    if (width > in->Xsize || height > in->Ysize) {
        vips_error("gallop", "shrinking cannot enlarge");
        return -1;
    }
    /* Read in tiles, not one-row strips (see for_columns in stage_resize.c). */
    if (vips_copy(in, &unmarked, NULL))
        return -1;
    vips_image_remove(unmarked, VIPS_META_SEQUENTIAL);
    source = unmarked;
    /* A quarter of the rows or fewer (a contact-sheet tile): halved
     * first, which halves the reducer's kernel (34 rows for a 1350-row
     * photo made 250 rows), as vips_thumbnail shrinks by whole factors
     * while twice the scale is left. */
    if (height * 4 <= in->Ysize && !gal__columns_turn(unmarked)) {
        if (halve_rows(unmarked, &halved))
            return -1;
        source = halved;
    }
    if (gal__scale_rows(source, height, &rows))
        return -1;
    if (gal__columns_turn(rows)) {
        if (!(rows_memory = vips_image_copy_memory(rows)))
            return -1;
        vips_image_remove(rows_memory, VIPS_META_SEQUENTIAL);
    }
    if (gal__scale_columns(rows_memory ? rows_memory : rows, width, &both))
        return -1;
    /* Rounding in vips_reducev: a line more or less, at the end. */
    return vips_gravity(both, out, VIPS_COMPASS_DIRECTION_CENTRE, width, height, "extend",
        VIPS_EXTEND_COPY, NULL);
}

int
gal__scale_rows_with(VipsImage *in, int height, gal_kernel enlarge, VipsImage **out)
{
    if (height > in->Ysize)
        return enlarge_axis(in, TRUE, height, enlarge, out);
    return gal__scale_rows(in, height, out);
}

int
gal__scale_columns_with(VipsImage *in, int width, gal_kernel enlarge, VipsImage **out)
{
    if (width > in->Xsize)
        return enlarge_axis(in, FALSE, width, enlarge, out);
    return gal__scale_columns(in, width, out);
}
