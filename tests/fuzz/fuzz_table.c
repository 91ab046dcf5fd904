/* fuzz_table: a captions table (captions.table) on any bytes, read as a
 * TSV, as a CSV and by the first line's look (no extension), each into a
 * fresh captions section, as the preset loader reads the file. */
#include "captions.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = { "captions.tsv", "captions.csv", "captions" };

    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        g_autoptr(GString) described = g_string_new(NULL);
        gal_captions *c = NULL;
        int rc;

        fuzz_check(gal__captions_load(NULL, FALSE, &c, errs) == 0);
        rc = gal__captions_from_string(c, "table", names[i], (const char *) data, size, errs);
        fuzz_check_errors(rc, errs);
        gal__captions_describe(c, described);
        gal__captions_free(c);
    }
    return 0;
}
