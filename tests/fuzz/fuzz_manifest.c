/* fuzz_manifest: the manifest reader (.gallop-manifest.tsv, written by an
 * earlier run into the output folder) on any bytes. Properties: the text
 * written back from what was read reads back to the same text, so a
 * damaged manifest settles after one run instead of changing every run;
 * and read from a file (where about lines stay, and plain ones are told
 * without being split) it is the same text as read from memory, also with
 * the records' tails left in the file (a merge's parts), both as their
 * lines are copied and once every tail has been read back. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "manifest.h"

/* A folder of its own for the file read, removed at exit. */
static char *scratch;

static void
remove_scratch(void)
{
    g_autofree char *path = g_build_filename(scratch, GAL_MANIFEST_NAME, NULL);

    unlink(path);
    rmdir(scratch);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The loader refuses a manifest with a NUL; up to one is a superset. */
    g_autofree char *text = g_strndup((const char *) data, size);
    gal_manifest *m = gal__manifest_new("/out");
    gal_manifest *again = gal__manifest_new("/out");
    gal_manifest *loaded;
    g_autofree char *once = NULL;
    g_autofree char *twice = NULL;
    g_autofree char *path = NULL;
    g_autofree char *from_file = NULL;
    g_autofree char *tails_copied = NULL;
    g_autofree char *tails_read = NULL;
    GHashTableIter it;
    gpointer value;

    if (!scratch) {
        scratch = g_dir_make_tmp("fuzz-manifest-XXXXXX", NULL);
        fuzz_check(scratch != NULL);
        atexit(remove_scratch);
    }
    path = g_build_filename(scratch, GAL_MANIFEST_NAME, NULL);
    gal__manifest_parse(m, text, NULL, NULL);
    once = gal__manifest_text(m);
    fuzz_check(g_file_set_contents(path, text, -1, NULL));
    loaded = gal__manifest_load(scratch);
    from_file = gal__manifest_text(loaded);
    gal__manifest_free(loaded);
    fuzz_check(strcmp(once, from_file) == 0);
    loaded = gal__manifest_load_named(scratch, GAL_MANIFEST_NAME, NULL, NULL, TRUE);
    tails_copied = gal__manifest_text(loaded);
    g_hash_table_iter_init(&it, loaded->entries);
    while (g_hash_table_iter_next(&it, NULL, &value))
        gal__record_tail(value);
    tails_read = gal__manifest_text(loaded);
    gal__manifest_free(loaded);
    fuzz_check(strcmp(once, tails_copied) == 0);
    fuzz_check(strcmp(once, tails_read) == 0);
    gal__manifest_parse(again, once, NULL, NULL);
    twice = gal__manifest_text(again);
    fuzz_check(strcmp(once, twice) == 0);
    /* What it wrote is what it reads back: nothing refused the second time. */
    fuzz_check(again->warnings->len == 0);
    gal__manifest_free(m);
    gal__manifest_free(again);
    return 0;
}
