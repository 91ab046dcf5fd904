/* replay.c: main() for a fuzz target built without libFuzzer (gcc, every
 * normal build): each file named, and each file in each folder named (in
 * name order), goes through LLVMFuzzerTestOneInput once. ctest runs every
 * target over its corpus this way, so the seeds and every finding kept
 * there are regression tests; it also replays a reproducer:
 *   build/tests/fuzz/fuzz_table build-fuzz/fuzz-findings/table/crash-...
 * Each input is copied to a buffer of exactly its size, as libFuzzer does,
 * so that AddressSanitizer sees a read past its end. */
#include <string.h>

#include "fuzz.h"

/* Only targets that need libvips define it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int
run_file(const char *path)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *contents = NULL;
    gsize len;
    uint8_t *exact;

    if (!g_file_get_contents(path, &contents, &len, &error)) {
        fprintf(stderr, "replay: %s\n", error->message);
        return -1;
    }
    exact = malloc(len);
    if (len)
        memcpy(exact, contents, len);
    if (fuzz_verbose())
        fprintf(stderr, "%s:\n", path);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

int
main(int argc, char **argv)
{
    int runs = 0, failed = 0;

    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

        if (g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            GDir *dir = g_dir_open(argv[i], 0, NULL);
            const char *entry;

            while (dir && (entry = g_dir_read_name(dir)))
                g_ptr_array_add(files, g_build_filename(argv[i], entry, NULL));
            if (dir)
                g_dir_close(dir);
            g_ptr_array_sort(files, compare_names);
        }
        else
            g_ptr_array_add(files, g_strdup(argv[i]));
        for (guint f = 0; f < files->len; f++) {
            const char *path = files->pdata[f];

            if (g_file_test(path, G_FILE_TEST_IS_DIR))
                continue;
            if (run_file(path))
                failed++;
            else
                runs++;
        }
    }
    printf("%s: %d input%s replayed\n", argv[0], runs, runs == 1 ? "" : "s");
    /* No input at all is a wrong path, not a pass. */
    return failed || runs == 0 ? 1 : 0;
}
