/* gallop's side of the schema corpus (tests/schema/presets/): every preset
 * in ok/ loads, and every preset in bad/ is refused with the error its
 * "# refused: TEXT" line quotes. The ctest `schema` (tests/schema/check)
 * runs ajv over the same files against presets/gallop.schema.json, so the
 * schema and gallop are compared both ways. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(schema_corpus, .init = gal_test_setup, .fini = gal_test_teardown);

#define CORPUS_DIR GAL_PRESETS_DIR "/../tests/schema/presets"

static int
compare_paths(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The *.yaml files of a corpus folder, sorted. */
static GPtrArray *
corpus(const char *folder)
{
    g_autofree char *dir_path = g_build_filename(CORPUS_DIR, folder, NULL);
    GDir *dir = g_dir_open(dir_path, 0, NULL);
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    const char *entry;

    cr_assert_not_null(dir, "cannot open %s", dir_path);
    while ((entry = g_dir_read_name(dir)))
        if (g_str_has_suffix(entry, ".yaml"))
            g_ptr_array_add(paths, g_build_filename(dir_path, entry, NULL));
    g_dir_close(dir);
    g_ptr_array_sort(paths, compare_paths);
    return paths;
}

/* Load with the shipped presets to extend. */
static int
load(const char *path, gal_errors *errs)
{
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    gal_preset *preset = NULL;
    int status = gal_preset_load(path, &opts, &preset, errs);

    gal_preset_free(preset);
    return status;
}

Test(schema_corpus, gallop_loads_every_accepted_preset)
{
    g_autoptr(GPtrArray) paths = corpus("ok");

    cr_expect_gt(paths->len, 100, "the accepted corpus is nearly empty");
    for (guint i = 0; i < paths->len; i++) {
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        char line[2048] = "";

        if (load(paths->pdata[i], errs) != 0 && errs->count > 0)
            gal_error_format(&errs->items[0], line, sizeof(line));
        cr_expect_eq(errs->count, 0, "%s is refused: %s", (char *) paths->pdata[i], line);
    }
}

Test(schema_corpus, gallop_refuses_every_refused_preset_for_its_reason)
{
    g_autoptr(GPtrArray) paths = corpus("bad");

    cr_expect_gt(paths->len, 30, "the refused corpus is nearly empty");
    for (guint i = 0; i < paths->len; i++) {
        const char *path = paths->pdata[i];
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        g_autofree char *text = NULL;
        g_autofree char *reason = NULL;
        const char *marker;
        gboolean found = FALSE;

        cr_assert(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
        marker = strstr(text, "# refused: ");
        cr_assert_not_null(marker, "%s has no \"# refused: TEXT\" line", path);
        reason = g_strndup(marker + 11, strcspn(marker + 11, "\n"));
        cr_expect_neq(load(path, errs), 0, "%s loads", path);
        for (int e = 0; e < errs->count; e++) {
            char line[2048];

            found |= strstr(gal_error_format(&errs->items[e], line, sizeof(line)), reason) !=
                NULL;
        }
        if (!found) {
            char line[2048] = "(no error)";

            if (errs->count > 0)
                gal_error_format(&errs->items[0], line, sizeof(line));
            cr_expect(found, "%s: no error says \"%s\"; the first is: %s", path, reason, line);
        }
    }
}
