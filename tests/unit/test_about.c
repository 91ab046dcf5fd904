/* What a record keeps of a photo for a site (about.h): a field by its
 * key, and a value with control characters (a gallery's page label) kept
 * as a record's text may hold it. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "about.h"

TestSuite(about, .init = gal_test_setup, .fini = gal_test_teardown);

Test(about, a_field_is_found_by_its_whole_key)
{
    const char *fields[] = { "color=#102030", "placeholder_x=no", "placeholder=data:1" };
    g_autoptr(gal_about) about = gal__about_new(fields, G_N_ELEMENTS(fields));

    cr_expect_str_eq(gal__about_get(about, "color"), "#102030");
    cr_expect_str_eq(gal__about_get(about, "placeholder"), "data:1");
    cr_expect_null(gal__about_get(about, "place"));
    cr_expect_null(gal__about_get(NULL, "color"));
}

Test(about, a_value_with_control_characters_goes_through_escaped_and_back)
{
    static const char value[] = "alt\x1f" "two\nlines \\x41 \\ \t tab\x1f" "מרתון\x1f";
    g_autofree char *escaped = gal__about_value_escape(value);
    g_autofree char *back = gal__about_value_unescape(escaped);

    for (const char *c = escaped; *c; c++)
        cr_expect((guchar) *c >= 0x20, "a control character left at %d", (int) (c - escaped));
    cr_expect_str_eq(back, value);
}
