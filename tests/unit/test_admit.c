/* The run's memory budget (admit.c) and the estimates it admits photos by
 * (decode.c): given estimates and a budget, which photos run together.
 * No timing: gal__admit_try answers at once. */
#include <criterion/criterion.h>

#include "gal_test.h"
#include "admit.h"
#include "decode.h"

TestSuite(admit, .init = gal_test_setup, .fini = gal_test_teardown);

#define MIB(n) ((gint64) (n) << 20)

Test(admit, photos_run_together_while_their_estimates_fit_the_budget)
{
    gal_admit *admit = gal__admit_new(MIB(300));

    /* 100 + 150 fit in 300; a third of 100 waits for room. */
    cr_expect(gal__admit_try(admit, MIB(100)));
    cr_expect(gal__admit_try(admit, MIB(150)));
    cr_expect_not(gal__admit_try(admit, MIB(100)));
    cr_expect(gal__admit_try(admit, MIB(50)), "exactly the budget fits");
    cr_expect_not(gal__admit_try(admit, 1));
    /* The first leaves: the third runs beside the other two. */
    gal__admit_give(admit, MIB(100));
    cr_expect(gal__admit_try(admit, MIB(100)));
    gal__admit_give(admit, MIB(150));
    gal__admit_give(admit, MIB(50));
    gal__admit_give(admit, MIB(100));
    gal__admit_free(admit);
}

Test(admit, a_photo_larger_than_the_budget_runs_alone)
{
    gal_admit *admit = gal__admit_new(MIB(160));

    cr_expect(gal__admit_try(admit, MIB(20)));
    /* 270 MB (a 10-bit HEIC) never fits: it waits until nothing runs. */
    cr_expect_not(gal__admit_try(admit, MIB(270)));
    gal__admit_give(admit, MIB(20));
    cr_expect(gal__admit_try(admit, MIB(270)), "alone, it runs");
    /* Nothing starts beside it, however small. */
    cr_expect_not(gal__admit_try(admit, MIB(1)));
    gal__admit_give(admit, MIB(270));
    cr_expect(gal__admit_try(admit, MIB(1)));
    gal__admit_give(admit, MIB(1));
    gal__admit_free(admit);
}

Test(admit, without_a_budget_everything_runs_at_once)
{
    gal_admit *admit = gal__admit_new(-1);

    for (int k = 0; k < 8; k++)
        cr_expect(gal__admit_try(admit, MIB(1000)));
    cr_expect(gal__admit_try(NULL, MIB(1000)));
    gal__admit_free(admit);
}

Test(admit, fits_is_the_rule)
{
    cr_expect(gal__admit_fits(MIB(100), 0, 0, MIB(500)), "alone");
    cr_expect(gal__admit_fits(MIB(100), MIB(40), 1, MIB(60)));
    cr_expect_not(gal__admit_fits(MIB(100), MIB(40), 1, MIB(61)));
    cr_expect(gal__admit_fits(0, MIB(900), 5, MIB(900)), "no budget");
}

/* A phone's photos at the default budget and -j 2: the estimates of two
 * 12 MP HEICs, 8- or 10-bit, do not fit together, so one decodes at a
 * time; a 12 MP JPEG shrunk on load fits beside one. */
Test(admit, the_default_budget_runs_one_phone_heic_at_a_time)
{
    gint64 heic8 = gal__photo_memory(GAL_IMAGE_HEIF, 4032, 3024, 3, 1, 1, 1080, 810);
    gint64 heic10 = gal__photo_memory(GAL_IMAGE_HEIF, 4032, 3024, 3, 2, 1, 1080, 810);
    gint64 jpeg = gal__photo_memory(GAL_IMAGE_JPEG, 4032, 3024, 3, 1, 2, 1080, 810);
    gal_admit *admit = gal__admit_new(GAL_DEFAULT_MEMORY_BYTES);

    cr_expect(gal__admit_try(admit, heic8));
    cr_expect_not(gal__admit_try(admit, heic8));
    cr_expect_not(gal__admit_try(admit, heic10));
    cr_expect(gal__admit_try(admit, jpeg));
    gal__admit_give(admit, jpeg);
    gal__admit_give(admit, heic8);
    cr_expect(gal__admit_try(admit, heic10));
    cr_expect_not(gal__admit_try(admit, heic10));
    cr_expect_not(gal__admit_try(admit, heic8));
    cr_expect(gal__admit_try(admit, jpeg));
    gal__admit_give(admit, jpeg);
    gal__admit_give(admit, heic10);
    gal__admit_free(admit);
}

/* The estimates follow what the decoders allocate, measured (gallop's
 * peak RSS for one 12 MP photo, less the run's own 33 MB): never below
 * it, and not far above. */
Test(admit, estimates_cover_the_measured_decodes)
{
    static const struct {
        gal_image_format format;
        int bands, band_bytes, shrink, out_w, out_h;
        double measured_mb;
    } cases[] = {
        { GAL_IMAGE_HEIF, 3, 1, 1, 1080, 810, 128 },  /* 8-bit HEIC to 1080 px */
        { GAL_IMAGE_HEIF, 3, 2, 1, 1080, 810, 128 },  /* 10-bit (heif.c) */
        { GAL_IMAGE_HEIF, 3, 1, 1, 4032, 3024, 188 }, /* 8-bit, whole */
        { GAL_IMAGE_HEIF, 3, 2, 1, 4032, 3024, 128 }, /* 10-bit, whole (heif.c) */
        { GAL_IMAGE_JPEG, 3, 1, 2, 1080, 810, 11 },   /* JPEG, shrink-on-load 2 */
        { GAL_IMAGE_JPEG, 3, 1, 1, 4032, 3024, 80 },  /* JPEG, whole */
        { GAL_IMAGE_PNG, 3, 1, 1, 1080, 810, 23 },    /* PNG to 1080 px */
        { GAL_IMAGE_PNG, 3, 1, 1, 4032, 3024, 80 },   /* PNG, whole */
        { GAL_IMAGE_JXL, 3, 1, 1, 1080, 810, 89 },    /* JPEG XL to 1080 px */
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        double mb = gal__photo_memory(cases[i].format, 4032, 3024, cases[i].bands,
                        cases[i].band_bytes, cases[i].shrink, cases[i].out_w,
                        cases[i].out_h) / 1048576.0;

        cr_expect_geq(mb, cases[i].measured_mb, "case %zu: %.0f MB estimated", i, mb);
        cr_expect_leq(mb, cases[i].measured_mb * 1.6 + 16, "case %zu: %.0f MB estimated", i, mb);
    }
}

/* A raw's estimate against the peak RSS of a run developing one (less the
 * run's own 35 MiB), measured on forged DNGs: developed whole to its own
 * size, or at half size (libraw's half_size, decode.c's shrink of 2) to
 * 1600 px; never below the measure, and not far above. */
Test(admit, raw_estimates_cover_the_measured_develops)
{
    static const struct {
        int width, height, out_w, out_h;
        double measured_mb;
    } cases[] = {
        { 6000, 4000, 6000, 4000, 373 }, /* 24 MP, whole */
        { 6000, 4000, 1600, 1067, 127 }, /* at half size */
        { 4000, 3000, 4000, 3000, 210 }, /* 12 MP, whole */
        { 4000, 3000, 1600, 1200, 67 },  /* at half size */
        { 3000, 2000, 3000, 2000, 104 }, /* 6 MP, whole */
        { 3000, 2000, 1600, 1067, 104 }, /* 1600 px is over half: whole */
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        int shrink = gal__photo_shrink(GAL_IMAGE_RAW, cases[i].width, cases[i].height,
            cases[i].out_w, cases[i].out_h);
        double mb = gal__photo_memory(GAL_IMAGE_RAW, cases[i].width, cases[i].height, 3, 2,
                        shrink, cases[i].out_w, cases[i].out_h) / 1048576.0;

        cr_expect_eq(shrink, cases[i].out_w * 2 <= cases[i].width ? 2 : 1, "case %zu", i);
        cr_expect_geq(mb, cases[i].measured_mb, "case %zu: %.0f MB estimated", i, mb);
        cr_expect_leq(mb, cases[i].measured_mb * 1.3 + 16, "case %zu: %.0f MB estimated", i, mb);
    }
}
