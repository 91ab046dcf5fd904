/* Starting the library (init.c): of libvips' modules only the HEIF one
 * (AVIF out, HEIC and AVIF in) and the JPEG XL one (in and out) are
 * opened, the others (ImageMagick, OpenSlide, Poppler) not at all, which
 * saved 40 ms a run (issue 17); and
 * the environment is left as it was. */
#include <dlfcn.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gal_test.h"

/* Whether libvips ships `name` as a module beside itself: only then is
 * leaving it out a choice gallop made. */
static gboolean
module_exists(const char *name)
{
    const char *(*in_libvips)(void) = vips_version_string;
    void *address;
    Dl_info where;
    g_autofree char *dir = NULL;
    g_autofree char *path = NULL;

    memcpy(&address, &in_libvips, sizeof(address));
    cr_assert(dladdr(address, &where) && where.dli_fname);
    dir = g_path_get_dirname(where.dli_fname);
    path = g_strdup_printf("%s/vips-modules-%d.%d/vips-%s.so", dir, VIPS_MAJOR_VERSION,
        VIPS_MINOR_VERSION, name);
    return g_file_test(path, G_FILE_TEST_IS_REGULAR);
}

Test(init, libvips_modules_other_than_heif_and_jxl_are_not_opened)
{
    static const struct {
        const char *module, *operation;
    } unused[] = {
        { "magick", "magickload" },
        { "openslide", "openslideload" },
        { "poppler", "pdfload" },
    };
    g_autofree char *vipshome = g_strdup(g_getenv("VIPSHOME"));
    gal_error err = { 0 };
    int checked = 0;

    cr_assert_eq(gal_init("gal_tests", &err), 0, "%s", err.msg);
    if (module_exists("heif"))
        cr_expect(vips_type_find("VipsOperation", "heifsave"), "the HEIF module was not opened");
    if (module_exists("jxl"))
        cr_expect(vips_type_find("VipsOperation", "jxlload_source"),
            "the JPEG XL module was not opened");
    for (size_t i = 0; i < G_N_ELEMENTS(unused); i++)
        if (module_exists(unused[i].module)) {
            cr_expect_not(vips_type_find("VipsOperation", unused[i].operation),
                "libvips' %s module was opened", unused[i].module);
            checked++;
        }
    /* On Debian's libvips, which the tests run on, all three are modules. */
    cr_expect_gt(checked, 0, "no libvips module to leave out: is libvips built with modules?");
    cr_expect_str_eq(g_getenv("VIPSHOME") ? g_getenv("VIPSHOME") : "(unset)",
        vipshome ? vipshome : "(unset)", "VIPSHOME changed");
    vips_shutdown();
}
