/* fuzz_store: the record database of an output folder (store.c) as any
 * bytes: a CI cache or a shared folder may hold anything under its name.
 * Properties: it opens (what is not usable reads as empty, with a
 * warning), and every record it gives, walked or read by its name, names
 * a path beneath the folder and a photo from it (a damaged file may give
 * another record by name than by walking: SQLite does not find every
 * damage, and gallop's checks are what hold either way). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "fsio.h"
#include "store.h"

static char *scratch;

static void
remove_scratch(void)
{
    const char *names[] = { GAL_STORE_NAME, GAL_STORE_NAME "-wal", GAL_STORE_NAME "-shm",
        GAL_STORE_NAME "-journal" };

    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *path = g_build_filename(scratch, names[i], NULL);

        unlink(path);
    }
    rmdir(scratch);
}

static gboolean
check_record(const gal_record *r, void *store)
{
    gal_record again;

    fuzz_check(gal__path_is_beneath(r->output));
    fuzz_check(r->kind == GAL_RECORD_PAGE || (*r->input && !g_path_is_absolute(r->input)));
    if (gal__store_get(store, r->output, &again)) {
        g_autoptr(GPtrArray) keys = gal__store_recipe(store, again.recipe);

        fuzz_check(gal__path_is_beneath(again.output));
        fuzz_check(again.kind == GAL_RECORD_PAGE ||
            (*again.input && !g_path_is_absolute(again.input)));
        /* Its recipe's lines, when known, are text a reason may show. */
        for (guint k = 0; keys && k < keys->len; k++)
            fuzz_check(g_utf8_validate(keys->pdata[k], -1, NULL));
        gal__record_clear(&again);
    }
    return TRUE;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *path = NULL;
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
    gal_store *store;

    if (!scratch) {
        scratch = g_dir_make_tmp("fuzz-store-XXXXXX", NULL);
        fuzz_check(scratch != NULL);
        atexit(remove_scratch);
    }
    remove_scratch();
    fuzz_check(g_mkdir_with_parents(scratch, 0700) == 0);
    path = g_build_filename(scratch, GAL_STORE_NAME, NULL);
    fuzz_check(g_file_set_contents(path, (const char *) data, (gssize) size, NULL));
    store = gal__store_open(scratch, GAL_STORE_NAME, GAL_STORE_READ, warnings, NULL);
    fuzz_check(store != NULL);
    gal__store_each(store, ~0u, check_record, store);
    gal__store_close(store, NULL);
    if (fuzz_verbose())
        for (guint w = 0; w < warnings->len; w++)
            fprintf(stderr, "%s\n", (char *) warnings->pdata[w]);
    return 0;
}
