/* schedule.c: the orc version check behind gal_init()'s choice of
 * libvips' vector paths (issue 12), and that choice itself. */
#include <criterion/criterion.h>

#include "gal_test.h"

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

Test(schedule_init, vector_paths_are_off_unless_orc_is_thread_safe)
{
    gal_vectors v = gal_vectors_status();

    cr_assert_not_null(v.reason);
    cr_expect_eq(v.enabled, (bool) vips_vector_isenabled());
    if (!safe(v.orc_version))
        cr_expect(!v.enabled, "orc %s, vectors on", v.orc_version ? v.orc_version : "unknown");
}
