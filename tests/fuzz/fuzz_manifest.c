/* fuzz_manifest: carrying over the text manifest an earlier gallop left in
 * an output folder (.gallop-manifest.tsv, legacy.c) on any bytes.
 * Properties: whatever the text, every record it gives is one the record
 * database reads back as it was put (nothing refused on the way back),
 * and putting what was read back changes nothing; no more records than it
 * put (two lines of one output are one record). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "legacy.h"

/* A folder of its own for the file read, removed at exit. */
static char *scratch;

static void
remove_scratch(void)
{
    g_autofree char *path = g_build_filename(scratch, GAL_LEGACY_MANIFEST_NAME, NULL);

    unlink(path);
    rmdir(scratch);
}

/* Each record read back, put again into `again`. */
static gboolean
put_again(const gal_record *r, void *again)
{
    fuzz_check(gal__store_put(again, r, NULL) == 0);
    return TRUE;
}

/* The records of a store as text, one line each, for comparing two. */
static gboolean
describe(const gal_record *r, void *out)
{
    char in[65], sha[65];

    g_string_append_printf(out, "%s|%d|%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%s|%s|%s|%d|%s|%u\n",
        r->output, (int) r->kind, r->input, r->in_size, r->in_mtime_ns,
        gal__digest_hex(&r->in_digest, in), r->recipe, gal__digest_hex(&r->out_sha256, sha),
        r->width, r->caption ? r->caption : "-", r->deps ? r->deps->len : 0);
    return TRUE;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *path = NULL;
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) again_warnings = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GString) once = g_string_new(NULL);
    g_autoptr(GString) twice = g_string_new(NULL);
    gal_store *store, *again;
    int dir_fd, kept;

    if (!scratch) {
        scratch = g_dir_make_tmp("fuzz-manifest-XXXXXX", NULL);
        fuzz_check(scratch != NULL);
        atexit(remove_scratch);
    }
    path = g_build_filename(scratch, GAL_LEGACY_MANIFEST_NAME, NULL);
    fuzz_check(g_file_set_contents(path, (const char *) data, (gssize) size, NULL));
    /* No database in the folder: a look gives an empty one in memory. */
    store = gal__store_open(scratch, GAL_STORE_NAME, GAL_STORE_READ, warnings, NULL);
    again = gal__store_open(scratch, GAL_STORE_NAME, GAL_STORE_READ, again_warnings, NULL);
    fuzz_check(store && again);
    dir_fd = open(scratch, O_RDONLY | O_DIRECTORY);
    kept = gal__legacy_import(store, scratch, dir_fd, warnings);
    close(dir_fd);
    /* Two lines of one output: the later replaces the earlier. */
    fuzz_check(gal__store_count(store, ~0u) <= kept);
    gal__store_each(store, ~0u, describe, once);
    gal__store_each(store, ~0u, put_again, again);
    gal__store_each(again, ~0u, describe, twice);
    fuzz_check(strcmp(once->str, twice->str) == 0);
    gal__store_close(store, NULL);
    gal__store_close(again, NULL);
    /* Nothing put was refused when read back (said as the stores close). */
    for (guint w = 0; w < warnings->len; w++)
        fuzz_check(!strstr(warnings->pdata[w], "refused"));
    fuzz_check(again_warnings->len == 0);
    return 0;
}
