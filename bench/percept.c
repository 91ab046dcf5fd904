/* percept: gallop's perceptual metric (pipeline/perceptual.c) on pairs of
 * files, for the bench: `percept REF DIST...` prints, per DIST, its score
 * (dB), its MS-SSIM, each scale's mean SSIM and the seconds one comparison
 * took, tab-separated. bench/quality checks the scales against
 * scikit-image's SSIM. */
#include <stdio.h>

#include "perceptual.h"

int
main(int argc, char **argv)
{
    VipsImage *ref_image;
    gal_percept_ref *ref;
    gal_error err = { 0 };

    if (VIPS_INIT(argv[0]) || argc < 3) {
        fprintf(stderr, "usage: percept REF DIST...\n");
        return 2;
    }
    if (!(ref_image = vips_image_new_from_file(argv[1], "access", VIPS_ACCESS_RANDOM, NULL)) ||
        !(ref = gal__percept_ref_new(ref_image, &err))) {
        fprintf(stderr, "percept: %s: %s%s\n", argv[1], err.msg, vips_error_buffer());
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        VipsImage *image = vips_image_new_from_file(argv[i], "access", VIPS_ACCESS_RANDOM, NULL);
        VipsImage *memory = image ? vips_image_copy_memory(image) : NULL;
        double score, ms_ssim, scales[5];
        GTimer *timer;
        int n;

        if (!memory) {
            fprintf(stderr, "percept: %s: %s\n", argv[i], vips_error_buffer());
            return 1;
        }
        timer = g_timer_new();
        if (gal__percept_score(ref, memory, &score, &ms_ssim, &err)) {
            fprintf(stderr, "percept: %s: %s\n", argv[i], err.msg);
            return 1;
        }
        printf("%s\t%.4f\t%.6f\t%.4f", argv[i], score, ms_ssim, g_timer_elapsed(timer, NULL));
        n = gal__percept_scales(ref, memory, scales, &err);
        for (int s = 0; s < n; s++)
            printf("\t%.6f", scales[s]);
        printf("\n");
        g_timer_destroy(timer);
        g_object_unref(memory);
        g_object_unref(image);
    }
    gal__percept_ref_free(ref);
    g_object_unref(ref_image);
    return 0;
}
