/* sharpen.c: output sharpening (output.sharpen), see sharpen.h: an
 * unsharp mask on luma as one lazy operation (lazy.h). */
#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"
#include "lazy.h"
#include "sharpen.h"

/* Output sharpening: an unsharp mask on luma, made the way vips_sharpen
 * makes it (only detail above a threshold is raised, flat areas are left
 * alone, and what an edge may gain or lose is capped, which bounds its
 * halo), but on 8-bit sRGB directly, one lazy operation: vips_sharpen goes
 * through LabS and a float convolution and, with orc's vector paths off
 * (gal_init, issue 12), cost 127 ms of CPU per 1080x1350 output, almost
 * doubling the 12 MP bench's CPU; this costs a few ms. The luma's detail
 * is added to R, G and B alike, so colours do not fringe. */
#define SHARPEN_RADIUS 2 /* the Gaussian's reach, enough for sigma <= 1 */

/* The strengths, in 8-bit luma steps: the slope on detail above the
 * threshold, and the caps on brightening and darkening. Measured on a
 * photo made small and on a step edge (tests/unit/test_stage_resize.c,
 * docs/presets.md). */
static const struct {
    double slope;
    int brighten, darken;
} sharpen_levels[] = {
    [GAL_SHARPEN_LOW] = { 0.5, 8, 16 },
    [GAL_SHARPEN_STANDARD] = { 1.0, 16, 32 },
    [GAL_SHARPEN_HIGH] = { 1.7, 28, 56 },
};

/* Print: the screen's strengths times these, since ink on paper spreads
 * (matte paper most) and what looks crisp on screen prints soft. Measured
 * in docs/presets.md ("sharpen"). */
static const double print_gain[] = {
    [GAL_MEDIUM_SCREEN] = 1.0,
    [GAL_MEDIUM_MATTE] = 1.6,
    [GAL_MEDIUM_GLOSSY] = 1.3,
};

/* Luma steps of detail below which a pixel is flat: noise, skies. */
#define SHARPEN_THRESHOLD 3

typedef struct {
    int bands;
    guint16 weight[2 * SHARPEN_RADIUS + 1]; /* the Gaussian, summing to 256 */
    gint16 lift[511];                       /* detail d (-255..255) at [d + 255] -> change */
} sharpen_plan;

static void
sharpen_plan_free(VipsImage *image, sharpen_plan *plan)
{
    (void) image;
    g_free(plan);
}

/* A region's scratch rows, kept by each thread between regions (libvips
 * asks for strips or tiles of one size, so they are allocated once). */
typedef struct {
    VipsRegion *in;
    gsize capacity;       /* pixels in each array below */
    guint8 *luma;         /* the padded input's luma, need.width wide */
    guint16 *blurred_cols; /* luma blurred down the columns, x 256 */
    gint16 *detail;       /* one output row: luma minus its blur */
    gint16 *changes;      /* one output row: each byte's change (3 bands) */
} sharpen_seq;

static void *
sharpen_start(VipsImage *out, void *a, void *b)
{
    sharpen_seq *seq = g_new0(sharpen_seq, 1);

    (void) b;
    (void) out;
    if (!(seq->in = vips_region_new(a))) {
        g_free(seq);
        return NULL;
    }
    return seq;
}

static int
sharpen_stop(void *vseq, void *a, void *b)
{
    sharpen_seq *seq = vseq;

    (void) a;
    (void) b;
    VIPS_UNREF(seq->in);
    g_free(seq->luma);
    g_free(seq->blurred_cols);
    g_free(seq->detail);
    g_free(seq->changes);
    g_free(seq);
    return 0;
}

static void
sharpen_seq_reserve(sharpen_seq *seq, gsize pixels)
{
    if (pixels <= seq->capacity)
        return;
    g_free(seq->luma);
    g_free(seq->blurred_cols);
    g_free(seq->detail);
    g_free(seq->changes);
    seq->luma = g_new(guint8, pixels);
    seq->blurred_cols = g_new(guint16, pixels);
    seq->detail = g_new(gint16, pixels);
    seq->changes = g_new(gint16, 3 * pixels + 1); /* + 1: the last pixel's 8-byte store */
    seq->capacity = pixels;
}

/* Bytes plus their changes, 16 at a time in 16 bits, packed back with
 * the saturation that clamps them to 0..255 (the compiler widened the
 * plain loop to 32 bits, a third of sharpening's time). Returns how many
 * it did; the caller does the rest. */
static int
add_changes_sse2(const VipsPel *p, const gint16 *changes, int n, VipsPel *q)
{
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    int i = 0;

    for (; i + 16 <= n; i += 16) {
        __m128i bytes = _mm_loadu_si128((const __m128i *) (p + i));
        __m128i low = _mm_add_epi16(_mm_unpacklo_epi8(bytes, zero),
            _mm_loadu_si128((const __m128i *) (changes + i)));
        __m128i high = _mm_add_epi16(_mm_unpackhi_epi8(bytes, zero),
            _mm_loadu_si128((const __m128i *) (changes + i + 8)));

        _mm_storeu_si128((__m128i *) (q + i), _mm_packus_epi16(low, high));
    }
    return i;
#else
    (void) p;
    (void) changes;
    (void) n;
    (void) q;
    return 0;
#endif
}

/* The column blur and the row blur are written so that the compiler
 * vectorises them (no table look-ups or branches inside), into scratch
 * rows kept per thread, and the final add is SSE2's: a 1080x1350 output
 * went from 9.7 to 7.0 ms of CPU (Release build), then a fifth less,
 * with the same pixels. */
static int
sharpen_generate(VipsRegion *out_region, void *vseq, void *a, void *b, gboolean *stop)
{
    sharpen_seq *seq = vseq;
    const sharpen_plan *plan = b;
    const VipsRect *r = &out_region->valid;
    /* The input is padded by the radius on every side (see gal__sharpen):
     * output (x, y) is input (x + R, y + R). */
    VipsRect need = { r->left, r->top, r->width + 2 * SHARPEN_RADIUS,
        r->height + 2 * SHARPEN_RADIUS };
    const int nw = need.width, bands = plan->bands, w = r->width;
    const guint16 w0 = plan->weight[0], w1 = plan->weight[1], w2 = plan->weight[2],
                  w3 = plan->weight[3], w4 = plan->weight[4];
    guint8 *luma;
    guint16 *cols;
    gint16 *detail, *changes;

    G_STATIC_ASSERT(SHARPEN_RADIUS == 2);
    (void) a;
    (void) stop;
    if (vips_region_prepare(seq->in, &need))
        return -1;
    sharpen_seq_reserve(seq, (gsize) nw * need.height);
    luma = seq->luma;
    cols = seq->blurred_cols;
    detail = seq->detail;
    changes = seq->changes;
    for (int y = 0; y < need.height; y++) {
        const VipsPel *p = VIPS_REGION_ADDR(seq->in, need.left, need.top + y);
        guint8 *row = &luma[y * nw];

        /* Rec. 709 weights on the (gamma) values, in 1/256. */
        for (int x = 0; x < nw; x++)
            row[x] = (guint8) ((54 * p[x * bands] + 183 * p[x * bands + 1] +
                                   19 * p[x * bands + 2] + 128) >> 8);
    }
    /* Down the columns: at most 255 x 256, which fits 16 bits. */
    for (int y = 0; y < r->height; y++) {
        const guint8 *l = &luma[y * nw];
        guint16 *c = &cols[y * nw];

        for (int x = 0; x < nw; x++)
            c[x] = (guint16) (w0 * l[x] + w1 * l[x + nw] + w2 * l[x + 2 * nw] +
                w3 * l[x + 3 * nw] + w4 * l[x + 4 * nw]);
    }
    for (int y = 0; y < r->height; y++) {
        const guint16 *c = &cols[y * nw];
        const guint8 *centre = &luma[(y + SHARPEN_RADIUS) * nw + SHARPEN_RADIUS];
        const VipsPel *p =
            VIPS_REGION_ADDR(seq->in, need.left + SHARPEN_RADIUS, need.top + SHARPEN_RADIUS + y);
        VipsPel *q = VIPS_REGION_ADDR(out_region, r->left, r->top + y);

        /* Along the row, then the detail: the pixel's luma minus its
         * blur, -255..255. */
        for (int x = 0; x < w; x++) {
            guint32 sum = (guint32) w0 * c[x] + (guint32) w1 * c[x + 1] +
                (guint32) w2 * c[x + 2] + (guint32) w3 * c[x + 3] + (guint32) w4 * c[x + 4];

            detail[x] = (gint16) (centre[x] - (gint16) ((sum + (1u << 15)) >> 16));
        }
        if (bands == 3) {
            /* Each pixel's change, repeated for its R, G and B (one 8-byte
             * store of four copies, the fourth overwritten by the next
             * pixel's), then added to the row's bytes. */
            for (int x = 0; x < w; x++) {
                guint64 four = (guint16) plan->lift[detail[x] + 255] * G_GUINT64_CONSTANT(0x0001000100010001);

                memcpy(&changes[3 * x], &four, sizeof four);
            }
            for (int i = add_changes_sse2(p, changes, 3 * w, q); i < 3 * w; i++) {
                int v = p[i] + changes[i];

                q[i] = (VipsPel) (v < 0 ? 0 : v > 255 ? 255 : v);
            }
            continue;
        }
        for (int x = 0; x < w; x++, p += bands, q += bands) {
            int lift = plan->lift[detail[x] + 255];

            for (int k = 0; k < 3; k++)
                q[k] = (VipsPel) CLAMP(p[k] + lift, 0, 255);
            for (int k = 3; k < bands; k++)
                q[k] = p[k];
        }
    }
    return 0;
}

int
gal__sharpen(VipsImage *in, gal_sharpen level, gal_medium medium, int ppi, VipsImage **out)
{
    int long_edge = MAX(in->Xsize, in->Ysize);
    /* The radius grows with the output: 0.6 px up to 1000 px on the long
     * edge (a phone screen shows each pixel), 1 px from 4000 px on. In
     * print, with the pixels per inch: a dot of ink blurs about 1/300
     * inch, so 1 px at 300 ppi and above, 0.6 px at 180 ppi and below
     * (the kernel reaches 2 px, which holds a sigma of 1). */
    double sigma = medium == GAL_MEDIUM_SCREEN
        ? CLAMP(0.6 + (long_edge - 1000) * 0.4 / 3000.0, 0.6, 1.0)
        : CLAMP(ppi / 300.0, 0.6, 1.0);
    double gain = (unsigned) medium < G_N_ELEMENTS(print_gain) ? print_gain[medium] : 1.0;
    double g[2 * SHARPEN_RADIUS + 1], total = 0;
    g_autoptr(VipsImage) padded = NULL;
    sharpen_plan *plan;
    int sum = 0;

    if (level == GAL_SHARPEN_NONE || (unsigned) level >= G_N_ELEMENTS(sharpen_levels) ||
        in->BandFmt != VIPS_FORMAT_UCHAR || in->Bands < 3 || in->Coding != VIPS_CODING_NONE)
        return vips_copy(in, out, NULL);
    plan = g_new0(sharpen_plan, 1);
    plan->bands = in->Bands;
    for (int k = -SHARPEN_RADIUS; k <= SHARPEN_RADIUS; k++)
        total += g[k + SHARPEN_RADIUS] = exp(-k * k / (2 * sigma * sigma));
    for (int k = 0; k <= 2 * SHARPEN_RADIUS; k++)
        sum += plan->weight[k] = (guint16) lround(256 * g[k] / total);
    plan->weight[SHARPEN_RADIUS] = (guint16) (plan->weight[SHARPEN_RADIUS] + 256 - sum);
    for (int d = -255; d <= 255; d++) {
        double lift = 0;

        if (d > SHARPEN_THRESHOLD)
            lift = MIN(gain * sharpen_levels[level].slope * (d - SHARPEN_THRESHOLD),
                gain * sharpen_levels[level].brighten);
        else if (d < -SHARPEN_THRESHOLD)
            lift = MAX(gain * sharpen_levels[level].slope * (d + SHARPEN_THRESHOLD),
                -gain * sharpen_levels[level].darken);
        plan->lift[d + 255] = (gint16) lround(lift);
    }
    /* Edges repeat, so the border is sharpened like the rest. */
    if (vips_embed(in, &padded, SHARPEN_RADIUS, SHARPEN_RADIUS, in->Xsize + 2 * SHARPEN_RADIUS,
            in->Ysize + 2 * SHARPEN_RADIUS, "extend", VIPS_EXTEND_COPY, NULL)) {
        g_free(plan);
        return -1;
    }
    return gal__lazy_op(padded, in->Xsize, in->Ysize, sharpen_start, sharpen_generate, sharpen_stop,
        plan, G_CALLBACK(sharpen_plan_free), out);
}
