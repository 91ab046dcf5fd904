/* quality-grain: does the score at which a photo reaches one butteraugli
 * distance move with its grain? (issue 42; docs/quality.md, "A target that
 * moves with the grain"; bench/quality-grain.sh runs it).
 *
 *   quality-grain walk FMT QLO QHI DIST -- FINISHED.png...
 *   quality-grain at FMT -- FINISHED.png Q [FINISHED.png Q]...
 *   quality-grain grain -- FINISHED.png...
 *
 * walk: for each finished picture, one `grain` line (Immerkaer's noise
 * sigma of its L*, whole and the median and 10th percentile of its 32 px
 * tiles; the local sd in MS-SSIM's first window, root mean square and its
 * tiles' median), then one line per quality QLO, QLO+2 .. QHI: bytes and gallop's
 * score; butteraugli's 3-norm (libjxl 0.7) is computed from quality 85 (or
 * the grid's nearest) up or down only until DIST is bracketed, as it costs
 * about 0.7 s a comparison ("-" where not computed). at: butteraugli at the
 * qualities given. grain: the grain lines alone. bench/quality-grain.sh builds it (against build/'s
 * pipeline library, with perceptual.c at -O2) and runs it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jxl/butteraugli.h>
#include "perceptual.h"

static VipsBlob *
encode(VipsImage *im, const char *fmt, int q)
{
    VipsTarget *t = vips_target_new_to_memory();
    VipsBlob *b = NULL;

    if (fmt[0] == 'j')
        vips_jpegsave_target(im, t, "Q", q, "subsample_mode", VIPS_FOREIGN_SUBSAMPLE_ON,
            "optimize_coding", TRUE, "strip", TRUE, NULL);
    else
        vips_webpsave_target(im, t, "Q", q, "strip", TRUE, NULL);
    vips_target_end(t);
    g_object_get(t, "blob", &b, NULL);
    g_object_unref(t);
    return b;
}

/* Immerkaer (1996): sigma = sqrt(pi/2) / (6 (W-2)(H-2)) sum |I * N|, N the
 * difference of two Laplacians, over the rectangle x0..x1, y0..y1. */
static double
immerkaer(const float *l, int width, int x0, int y0, int x1, int y1)
{
    double sum = 0;

    for (int y = y0 + 1; y < y1 - 1; y++)
        for (int x = x0 + 1; x < x1 - 1; x++) {
            const float *p = l + (size_t) y * width + x;
            double v = p[-width - 1] - 2 * p[-width] + p[-width + 1] - 2 * p[-1] + 4 * p[0] -
                2 * p[1] + p[width - 1] - 2 * p[width] + p[width + 1];
            sum += fabs(v);
        }
    return sqrt(M_PI / 2) * sum / (6.0 * (x1 - x0 - 2) * (y1 - y0 - 2));
}

/* The local standard deviation of `l` in the first MS-SSIM scale's window
 * (11-tap Gaussian of sigma 1.5, the valid region), (w - 10) x (h - 10):
 * the fine-scale contrast energy the metric's reference already holds. */
static float *
local_sd(const float *l, int w, int h)
{
    double g[11], sum = 0;
    int ow = w - 10, oh = h - 10;
    float *m = g_new(float, (size_t) ow * h), *q = g_new(float, (size_t) ow * h);
    float *sd = g_new(float, (size_t) ow * oh);

    for (int i = 0; i < 11; i++)
        sum += g[i] = exp(-(i - 5) * (i - 5) / (2 * 1.5 * 1.5));
    for (int i = 0; i < 11; i++)
        g[i] /= sum;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < ow; x++) {
            double a = 0, b = 0;
            for (int i = 0; i < 11; i++) {
                double v = l[(size_t) y * w + x + i];
                a += g[i] * v;
                b += g[i] * v * v;
            }
            m[(size_t) y * ow + x] = (float) a;
            q[(size_t) y * ow + x] = (float) b;
        }
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            double a = 0, b = 0;
            for (int i = 0; i < 11; i++) {
                a += g[i] * m[(size_t) (y + i) * ow + x];
                b += g[i] * q[(size_t) (y + i) * ow + x];
            }
            sd[(size_t) y * ow + x] = (float) sqrt(fmax(0.0, b - a * a));
        }
    g_free(m);
    g_free(q);
    return sd;
}

static int
by_value(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void
grain(const char *name, VipsImage *im)
{
    VipsImage *lab, *l;
    size_t n;
    float *p;
    int w = im->Xsize, h = im->Ysize, nt = 0;
    double *tiles = g_new(double, (w / 32 + 1) * (h / 32 + 1));

    vips_colourspace(im, &lab, VIPS_INTERPRETATION_LAB, NULL);
    vips_extract_band(lab, &l, 0, NULL);
    p = vips_image_write_to_memory(l, &n);
    for (int y = 0; y + 32 <= h; y += 32)
        for (int x = 0; x + 32 <= w; x += 32)
            tiles[nt++] = immerkaer(p, w, x, y, x + 32, y + 32);
    qsort(tiles, nt, sizeof *tiles, by_value);
    printf("grain\t%s\t%.4f\t%.4f\t%.4f", name, immerkaer(p, w, 0, 0, w, h), tiles[nt / 2],
        tiles[nt / 10]);
    /* The contrast energy: its root mean square, and its tiles' median. */
    float *sd = local_sd(p, w, h);
    int ow = w - 10, oh = h - 10;
    double all = 0;
    for (size_t i = 0; i < (size_t) ow * oh; i++)
        all += (double) sd[i] * sd[i];
    nt = 0;
    for (int y = 0; y + 32 <= oh; y += 32)
        for (int x = 0; x + 32 <= ow; x += 32) {
            double t = 0;
            for (int yy = y; yy < y + 32; yy++)
                for (int xx = x; xx < x + 32; xx++)
                    t += sd[(size_t) yy * ow + xx];
            tiles[nt++] = t / (32 * 32);
        }
    qsort(tiles, nt, sizeof *tiles, by_value);
    printf("\t%.4f\t%.4f\n", sqrt(all / ((double) ow * oh)), tiles[nt / 2]);
    g_free(sd);
    g_free(tiles);
    g_free(p);
    g_object_unref(l);
    g_object_unref(lab);
}

typedef struct {
    JxlButteraugliApi *api;
    void *pixels;
    size_t size;
    gal_percept_ref *ref;
    VipsImage *im;
} photo;

/* bytes, score and (when `ba` is set) butteraugli's 3-norm at quality q */
static void
measure(photo *ph, const char *fmt, int q, size_t *bytes, double *score, double *ba)
{
    JxlPixelFormat pf = { 3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0 };
    gal_error err = { 0 };
    VipsBlob *b = encode(ph->im, fmt, q);
    const void *d = vips_blob_get(b, bytes);
    VipsImage *x = vips_image_new_from_buffer(d, *bytes, "", NULL), *m = vips_image_copy_memory(x);

    gal__percept_score(ph->ref, m, score, NULL, &err);
    if (ba) {
        size_t n1;
        void *p1 = vips_image_write_to_memory(m, &n1);
        JxlButteraugliResult *r = JxlButteraugliCompute(ph->api, ph->im->Xsize, ph->im->Ysize,
            &pf, ph->pixels, ph->size, &pf, p1, n1);
        *ba = JxlButteraugliResultGetDistance(r, 3);
        JxlButteraugliResultDestroy(r);
        g_free(p1);
    }
    g_object_unref(m);
    g_object_unref(x);
    vips_area_unref(VIPS_AREA(b));
}

static int
photo_open(photo *ph, const char *path)
{
    gal_error err = { 0 };
    VipsImage *f = vips_image_new_from_file(path, NULL), *flat = NULL, *rgb = NULL;

    if (!f)
        return -1;
    /* butteraugli reads three bands: a grey picture is compared as sRGB */
    if (vips_image_hasalpha(f))
        vips_flatten(f, &flat, NULL);
    else
        flat = g_object_ref(f);
    vips_colourspace(flat, &rgb, VIPS_INTERPRETATION_sRGB, NULL);
    ph->im = vips_image_copy_memory(rgb);
    g_object_unref(rgb);
    g_object_unref(flat);
    g_object_unref(f);
    ph->pixels = vips_image_write_to_memory(ph->im, &ph->size);
    ph->ref = gal__percept_ref_new(ph->im, &err);
    return ph->ref ? 0 : -1;
}

static void
photo_close(photo *ph)
{
    g_free(ph->pixels);
    gal__percept_ref_free(ph->ref);
    g_object_unref(ph->im);
}

int
main(int argc, char **argv)
{
    JxlButteraugliApi *api;
    const char *fmt;
    int a;

    if (VIPS_INIT(argv[0]) || argc < 4)
        return 1;
    api = JxlButteraugliApiCreate(NULL);
    fmt = argv[2];
    if (!strcmp(argv[1], "grain")) {
        for (a = 3; a < argc; a++) {
            photo ph = { .api = api };
            const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];

            if (photo_open(&ph, argv[a]))
                return 1;
            grain(name, ph.im);
            photo_close(&ph);
        }
        return 0;
    }
    if (!strcmp(argv[1], "at")) {
        for (a = 4; a + 1 < argc; a += 2) {
            photo ph = { .api = api };
            size_t bytes;
            double s, ba;
            const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];

            if (photo_open(&ph, argv[a]))
                return 1;
            measure(&ph, fmt, atoi(argv[a + 1]), &bytes, &s, &ba);
            printf("at\t%s\t%s\t%d\t%zu\t%.4f\t%.4f\n", name, fmt, atoi(argv[a + 1]), bytes, s, ba);
            fflush(stdout);
            photo_close(&ph);
        }
        return 0;
    }
    int qlo = atoi(argv[3]), qhi = atoi(argv[4]);
    double dist = atof(argv[5]);
    int nq = (qhi - qlo) / 2 + 1;
    for (a = 7; a < argc; a++) {
        photo ph = { .api = api };
        size_t bytes[64];
        double s[64], ba[64];
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        int start = 0;

        if (photo_open(&ph, argv[a]))
            return 1;
        grain(name, ph.im);
        for (int i = 0; i < nq; i++) {
            ba[i] = -1;
            measure(&ph, fmt, qlo + 2 * i, &bytes[i], &s[i], NULL);
            if (abs(qlo + 2 * i - 85) < abs(qlo + 2 * start - 85))
                start = i;
        }
        /* Walk from 85 until DIST lies between two measured qualities. */
        measure(&ph, fmt, qlo + 2 * start, &bytes[start], &s[start], &ba[start]);
        int step = ba[start] > dist ? 1 : -1;
        for (int i = start + step; i >= 0 && i < nq; i += step) {
            measure(&ph, fmt, qlo + 2 * i, &bytes[i], &s[i], &ba[i]);
            if ((ba[i] > dist) != (ba[i - step] > dist))
                break;
        }
        for (int i = 0; i < nq; i++) {
            printf("q\t%s\t%s\t%d\t%zu\t%.4f\t", name, fmt, qlo + 2 * i, bytes[i], s[i]);
            if (ba[i] < 0)
                printf("-\n");
            else
                printf("%.4f\n", ba[i]);
        }
        fflush(stdout);
        photo_close(&ph);
    }
    JxlButteraugliApiDestroy(api);
    return 0;
}
