/* job.c's pure part: the size a photo shared by several presets is
 * decoded at. */
#include <criterion/criterion.h>

#include "gal_test.h"

Test(job, one_preset_decodes_at_its_own_size_even_when_upscaling)
{
    int w, h;

    gal__shared_decode_size(512, 640, (int[]) { 1080 }, (int[]) { 1350 }, 1, &w, &h);
    cr_expect_eq(w, 1080);
    cr_expect_eq(h, 1350);
}

Test(job, several_presets_decode_at_the_largest_size_any_needs)
{
    int w, h;

    /* web-large (2048 inside), instagram cover (1800x1350 before its
     * crop), a 400 px thumbnail, on a 4032x3024 photo */
    gal__shared_decode_size(4032, 3024, (int[]) { 1800, 2048, 400 },
        (int[]) { 1350, 1536, 300 }, 3, &w, &h);
    cr_expect_eq(w, 2048);
    cr_expect_eq(h, 1536);
}

Test(job, several_presets_never_decode_larger_than_the_photo)
{
    int w, h;

    /* One preset upscales a small photo: the others must not scale down
     * from an enlarged copy, so the photo is decoded whole. */
    gal__shared_decode_size(512, 640, (int[]) { 1080, 320 }, (int[]) { 1350, 400 }, 2, &w, &h);
    cr_expect_eq(w, 512);
    cr_expect_eq(h, 640);
}
