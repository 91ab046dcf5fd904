/* quality-butteraugli: gallop's score beside butteraugli's distance
 * (libjxl 0.7's C API; one unit is one just-noticeable difference by its
 * construction), for docs/quality.md's cross-check of the levels:
 *
 *   quality-butteraugli FMT Q... -- FINISHED.png...
 *
 * prints photo, format, quality, bytes, gallop's score (dB), butteraugli's max
 * distance and its 3-norm. Built by hand, as quality-curves.c, adding
 * $(pkg-config --cflags --libs libjxl). About a second a comparison. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jxl/butteraugli.h>
#include "perceptual.h"
static VipsBlob *enc(VipsImage *im, const char *fmt, int q) {
    VipsTarget *t = vips_target_new_to_memory(); VipsBlob *b = NULL;
    if (fmt[0] == 'j') vips_jpegsave_target(im, t, "Q", q, "subsample_mode", VIPS_FOREIGN_SUBSAMPLE_ON, "optimize_coding", TRUE, "strip", TRUE, NULL);
    else vips_webpsave_target(im, t, "Q", q, "strip", TRUE, NULL);
    vips_target_end(t); g_object_get(t, "blob", &b, NULL); g_object_unref(t); return b;
}
int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0])) return 1;
    int qs[32], nq = 0, a = 2; const char *fmt = argv[1];
    for (; strcmp(argv[a], "--"); a++) qs[nq++] = atoi(argv[a]);
    JxlButteraugliApi *api = JxlButteraugliApiCreate(NULL);
    JxlPixelFormat pf = { 3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0 };
    gal_error err = { 0 };
    for (a++; a < argc; a++) {
        VipsImage *f = vips_image_new_from_file(argv[a], NULL), *im = vips_image_copy_memory(f);
        size_t n0; void *p0 = vips_image_write_to_memory(im, &n0);
        gal_percept_ref *ref = gal__percept_ref_new(im, &err);
        for (int i = 0; i < nq; i++) {
            VipsBlob *b = enc(im, fmt, qs[i]); size_t n; const void *d = vips_blob_get(b, &n);
            VipsImage *x = vips_image_new_from_buffer(d, n, "", NULL), *m = vips_image_copy_memory(x);
            size_t n1; void *p1 = vips_image_write_to_memory(m, &n1);
            double s; gal__percept_score(ref, m, &s, NULL, &err);
            JxlButteraugliResult *r = JxlButteraugliCompute(api, im->Xsize, im->Ysize, &pf, p0, n0, &pf, p1, n1);
            printf("%s\t%s\t%d\t%zu\t%.4f\t%.4f\t%.4f\n", strrchr(argv[a], '/') + 1, fmt, qs[i], n, s,
                JxlButteraugliResultGetMaxDistance(r), JxlButteraugliResultGetDistance(r, 3));
            fflush(stdout);
            JxlButteraugliResultDestroy(r); g_free(p1); g_object_unref(m); g_object_unref(x); vips_area_unref(VIPS_AREA(b));
        }
        g_free(p0); gal__percept_ref_free(ref); g_object_unref(im); g_object_unref(f);
    }
    return 0;
}
