/* schedule.c: the orc version check behind gal_init()'s choice of
 * libvips' vector paths (issue 12), and that choice itself. */
#include <criterion/criterion.h>

#include "gal_test.h"
#include "orclock.h"

#include <vips/vector.h> /* after vips.h, which it needs */

static gboolean
safe(const char *version)
{
    return gal__version_at_least(version, 0, 4, 34);
}

Test(schedule, orc_version_compares_by_number_not_by_text)
{
    cr_expect(!safe("0.4.33"), "Debian 12's orc has the race");
    cr_expect(safe("0.4.34"), "the first fixed release");
    cr_expect(!safe("0.4.4"), "4 < 34, though \"4\" > \"34\" as text");
    cr_expect(safe("0.4.40"));
    cr_expect(safe("0.5.0"));
    cr_expect(safe("1.0.0"));
    cr_expect(!safe("0.3.99"));
}

Test(schedule, orc_nano_versions_count_as_their_release)
{
    cr_expect(!safe("0.4.33.1"), "a snapshot after 0.4.33 is not 0.4.34");
    cr_expect(safe("0.4.34.1"));
}

Test(schedule, orc_versions_that_do_not_parse_are_not_safe)
{
    const char *garbage[] = { NULL, "", "garbage", "0.4", "1.0", "0.4.", "0.4.34.", ".4.34",
        "0..34", " 0.4.34", "0.4.34 ", "0.4.34rc1", "0.4.34-1", "v0.4.34", "-0.4.34",
        "0.4.x", "9999999.0.0" };

    for (size_t i = 0; i < G_N_ELEMENTS(garbage); i++)
        cr_expect(!safe(garbage[i]), "\"%s\" taken for a version", garbage[i]);
}

TestSuite(schedule_init, .init = gal_test_setup, .fini = gal_test_teardown);

Test(schedule_init, vector_paths_are_on_when_orc_is_safe_or_locked)
{
    gal_vectors v = gal_vectors_status();

    cr_assert_not_null(v.reason);
    cr_expect_eq(v.enabled, (bool) vips_vector_isenabled());
    /* The test binaries link the pipeline as gallop does, so the lock of
     * orclock.c must be what libvips' orc calls reach. */
    cr_expect(gal__orc_lock_active(), "libvips' orc calls do not reach gallop's lock");
    if (!safe(v.orc_version) && !gal__orc_lock_active())
        cr_expect(!v.enabled, "orc %s, vectors on", v.orc_version ? v.orc_version : "unknown");
    if (!getenv("VIPS_NOVECTOR") && (safe(v.orc_version) || gal__orc_lock_active()))
        cr_expect(v.enabled, "vector paths off (%s)", v.reason);
}

/* What the lock is for: workers building and dropping vectorised
 * operations at once. Measured with orc 0.4.33 and the lock taken out,
 * this crashed inside liborc in 2 runs of 5; `make stress` (orc_churn)
 * runs 12 times as many rounds, which crashed every time. */
static gpointer
build_and_drop_reducers(gpointer data)
{
    int *failed = data;

    for (int i = 0; i < 400; i++) {
        g_autoptr(VipsImage) black = NULL;
        g_autoptr(VipsImage) shrunk = NULL;

        if (vips_black(&black, 32 + i % 13, 40 + i % 11, "bands", 3, NULL) ||
            vips_reducev(black, &shrunk, 1.5 + i % 5, "kernel", VIPS_KERNEL_LANCZOS3, NULL))
            g_atomic_int_set(failed, 1);
    }
    vips_thread_shutdown();
    return NULL;
}

Test(schedule_init, vectorised_operations_built_and_dropped_on_four_threads)
{
    GThread *threads[4];
    int failed = 0;

    for (size_t t = 0; t < G_N_ELEMENTS(threads); t++)
        threads[t] = g_thread_new("reducers", build_and_drop_reducers, &failed);
    for (size_t t = 0; t < G_N_ELEMENTS(threads); t++)
        g_thread_join(threads[t]);
    cr_expect_eq(failed, 0, "%s", vips_error_buffer());
}
