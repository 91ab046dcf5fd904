/* quality-curves: how score and bytes grow with quality, per photo, for
 * docs/quality.md's calibration of the target's levels (issue 42):
 *
 *   quality-curves FMT QLO QHI QSTEP TILE NTILES FINISHED.png...
 *
 * FMT j (JPEG as gallop writes it: 4:2:0, optimised Huffman tables) or w
 * (WebP). For each finished picture (bench/quality's PNGs) and each quality
 * QLO..QHI step QSTEP it prints: photo, format, quality, bytes, the whole
 * file's score (gallop's metric), and the same for a sample of NTILES tiles of
 * TILE px ranked by grey deviation (a centred grid; 0 tiles: none), with the
 * sample's bytes. Built by hand against a build's library:
 *   cc -std=gnu11 -O2 -Ipipeline -o quality-curves bench/quality-curves.c \
 *     build-bench/pipeline/libgal_pipeline.a $(pkg-config --cflags --libs vips) -lm
 * bench/quality-levels.py reads its output. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "perceptual.h"

static VipsBlob *
enc(VipsImage *im, const char *fmt, int q)
{
    VipsTarget *t = vips_target_new_to_memory();
    VipsBlob *b = NULL;
    int f;
    if (fmt[0] == 'j')
        f = vips_jpegsave_target(im, t, "Q", q, "subsample_mode", VIPS_FOREIGN_SUBSAMPLE_ON,
            "optimize_coding", TRUE, "strip", TRUE, NULL);
    else
        f = vips_webpsave_target(im, t, "Q", q, "strip", TRUE, NULL);
    if (f || vips_target_end(t)) { fprintf(stderr, "%s\n", vips_error_buffer()); exit(1); }
    g_object_get(t, "blob", &b, NULL);
    g_object_unref(t);
    return b;
}

static VipsImage *
dec(VipsBlob *b)
{
    size_t n; const void *d = vips_blob_get(b, &n);
    VipsImage *x = vips_image_new_from_buffer(d, n, "", NULL);
    VipsImage *m = vips_image_copy_memory(x);
    g_object_unref(x);
    return m;
}

typedef struct { int x, y; double v; } tile;
static int cmpt(const void *a, const void *b) { double d = ((const tile *) a)->v - ((const tile *) b)->v; return d < 0 ? -1 : d > 0; }

/* mosaic of n tiles of size ts chosen by stratified grey stddev */
static VipsImage *
mosaic(VipsImage *im, int ts, int n)
{
    int cx = im->Xsize / ts, cy = im->Ysize / ts, nc = cx * cy;
    tile *t = g_new(tile, nc);
    int cols = (int) ceil(sqrt(n)), rows = (n + cols - 1) / cols;
    VipsImage *grey; vips_colourspace(im, &grey, VIPS_INTERPRETATION_B_W, NULL);
    for (int j = 0; j < cy; j++) for (int i = 0; i < cx; i++) {
        VipsImage *c; double sd;
        int ox = (im->Xsize - cx * ts) / 2 / 16 * 16, oy = (im->Ysize - cy * ts) / 2 / 16 * 16;
        t[j * cx + i].x = ox + i * ts; t[j * cx + i].y = oy + j * ts;
        vips_crop(grey, &c, t[j*cx+i].x, t[j*cx+i].y, ts, ts, NULL);
        vips_deviate(c, &sd, NULL); g_object_unref(c);
        t[j * cx + i].v = sd;
    }
    qsort(t, nc, sizeof *t, cmpt);
    VipsImage **parts = g_new(VipsImage *, rows * cols);
    for (int k = 0; k < rows * cols; k++) {
        int pick = k < n ? (int) ((k + 0.5) * nc / n) : 0;
        vips_crop(im, &parts[k], t[pick].x, t[pick].y, ts, ts, NULL);
    }
    VipsImage *out, *mem;
    vips_arrayjoin(parts, &out, rows * cols, "across", cols, NULL);
    mem = vips_image_copy_memory(out);
    g_object_unref(out); g_object_unref(grey);
    for (int k = 0; k < rows * cols; k++) g_object_unref(parts[k]);
    g_free(parts); g_free(t);
    return mem;
}

int
main(int argc, char **argv)
{
    gal_error err = { 0 };
    if (VIPS_INIT(argv[0])) return 1;
    const char *fmt = argv[1];
    int lo = atoi(argv[2]), hi = atoi(argv[3]), st = atoi(argv[4]), ts = atoi(argv[5]), nt = atoi(argv[6]);
    for (int a = 7; a < argc; a++) {
        VipsImage *f = vips_image_new_from_file(argv[a], NULL);
        VipsImage *im = vips_image_copy_memory(f);
        VipsImage *mo = nt ? mosaic(im, ts, nt) : NULL;
        gal_percept_ref *ref = gal__percept_ref_new(im, &err);
        gal_percept_ref *mref = mo ? gal__percept_ref_new(mo, &err) : NULL;
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        for (int q = lo; q <= hi; q += st) {
            VipsBlob *b = enc(im, fmt, q);
            size_t n; vips_blob_get(b, &n);
            VipsImage *d = dec(b);
            double s, ms = -1;
            gal__percept_score(ref, d, &s, NULL, &err);
            size_t mn = 0;
            if (mo) {
                VipsBlob *mb = enc(mo, fmt, q);
                vips_blob_get(mb, &mn);
                VipsImage *md = dec(mb);
                gal__percept_score(mref, md, &ms, NULL, &err);
                g_object_unref(md); vips_area_unref(VIPS_AREA(mb));
            }
            printf("%s\t%s\t%d\t%zu\t%.4f\t%.4f\t%zu\n", base, fmt, q, n, s, ms, mn);
            fflush(stdout);
            g_object_unref(d); vips_area_unref(VIPS_AREA(b));
        }
        gal__percept_ref_free(ref); if (mref) gal__percept_ref_free(mref);
        g_object_unref(im); g_object_unref(f); if (mo) g_object_unref(mo);
    }
    return 0;
}
