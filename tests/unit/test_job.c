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

/* A HEIC's thumbnail serves a photo when it is at least the size wanted
 * and the photo's shape, to its rounding (decode.c). */
Test(job, a_thumbnail_covers_only_what_it_can_give_unenlarged)
{
    /* An iPhone's 320 x 240 of 4032 x 3024. */
    cr_expect(gal__thumbnail_covers(320, 240, 4032, 3024, 240, 180));
    cr_expect(gal__thumbnail_covers(320, 240, 4032, 3024, 320, 240));
    cr_expect_not(gal__thumbnail_covers(320, 240, 4032, 3024, 321, 241));
    cr_expect_not(gal__thumbnail_covers(320, 240, 4032, 3024, 1080, 810));
    /* Rounding: 4000 x 2250 (16:9) at 320 x 180, and x 181. */
    cr_expect(gal__thumbnail_covers(320, 180, 4000, 2250, 200, 112));
    cr_expect(gal__thumbnail_covers(320, 181, 4000, 2250, 200, 112));
    /* Another shape (a square thumbnail of a 4:3 photo). */
    cr_expect_not(gal__thumbnail_covers(320, 320, 4032, 3024, 100, 75));
    /* Not smaller than the photo: nothing to gain. */
    cr_expect_not(gal__thumbnail_covers(4032, 3024, 4032, 3024, 100, 75));
}
