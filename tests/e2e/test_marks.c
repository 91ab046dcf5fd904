/* Text marks that cannot be read (issue 13): `size` is a width, so a long
 * text made that wide is drawn tiny; the photo's result says so. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(marks, .init = gal_test_setup, .fini = gal_test_teardown);

/* trip-01 (640x640) made 400 px wide, with a text mark `size` wide; stderr. */
static char *
run(const char *tmp, const char *name, const char *text, const char *size)
{
    g_autofree char *yaml = g_strdup_printf(
        "gallop: 1\noutput: { format: png, name: \"{stem}.png\" }\nstages:\n"
        "  - resize: { width: 400 }\n  - watermark: { text: \"%s\", size: %s }\n",
        text, size);
    g_autofree char *file = g_strdup_printf("%s.yaml", name);
    g_autofree char *preset = gal_test_write_preset(tmp, file, yaml);
    g_autofree char *in = g_build_filename(GAL_FIXTURES_DIR, "trip", "trip-01.jpg", NULL);
    g_autofree char *out = g_build_filename(tmp, name, NULL);
    const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out, "-q", NULL };
    char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
    return err;
}

Test(marks, a_text_mark_drawn_too_small_to_read_is_a_warning_for_the_photo)
{
    g_autofree char *tmp = gal_test_tmpdir("marks-small");
    /* 30 px wide for a 26-character credit: letters of about 2 px. */
    g_autofree char *small = run(tmp, "small", "(c) 2024 Jen Loong, Studio", "30");
    /* 60% of 400 px: about 20 px letters. */
    g_autofree char *fine = run(tmp, "fine", "(c) Jen Loong", "60%");

    cr_expect(strstr(small, "gallop: warning: ") && strstr(small, "trip-01.jpg: watermark (") &&
            strstr(small, "too small to read"),
        "a warning naming the photo and the stage: %s", small);
    cr_expect_null(strstr(fine, "warning"), "a readable mark: no warning: %s", fine);
}
