/* fuzz.h: what every fuzz target shares.
 *
 * A target is one fuzz_<name>.c defining LLVMFuzzerTestOneInput (and, when
 * it needs libvips, LLVMFuzzerInitialize). The clang build (GAL_FUZZ=ON,
 * `make fuzz`) links it with libFuzzer; every other build links it with
 * replay.c, which runs each file of tests/fuzz/corpus/<name>/ through it
 * once as a ctest test. A target never reads or writes files of its own,
 * returns 0, and aborts (fuzz_check) when a property of the parser fails:
 * that is a finding, like a crash. */
#ifndef GAL_FUZZ_H
#define GAL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property every input must keep; abort (a finding) when it does not. */
#define fuzz_check(cond)                                                                    \
    G_STMT_START                                                                            \
    {                                                                                       \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: fuzz_check failed: %s\n", __FILE__, __LINE__, #cond);   \
            abort();                                                                        \
        }                                                                                   \
    }                                                                                       \
    G_STMT_END

/* FUZZ_VERBOSE=1 in the environment: targets print what they found, to
 * see what a seed exercises (replay it with build/tests/fuzz/fuzz_NAME). */
static inline gboolean
fuzz_verbose(void)
{
    static int verbose = -1;

    if (verbose < 0)
        verbose = g_getenv("FUZZ_VERBOSE") != NULL;
    return verbose;
}

/* Errors a load reported: -1 comes with at least one, 0 with none; each
 * has a message and formats as one line, and a line comes with a column. */
static inline void
fuzz_check_errors(int rc, const gal_errors *errs)
{
    char line[2048];

    fuzz_check((rc != 0) == (errs->count + errs->dropped > 0));
    for (int i = 0; i < errs->count; i++) {
        const gal_error *e = &errs->items[i];

        fuzz_check(e->msg[0] != '\0');
        fuzz_check(e->line <= 0 || e->col >= 1);
        gal_error_format(e, line, sizeof(line));
        if (fuzz_verbose())
            fprintf(stderr, "  error: %s\n", line);
    }
    if (fuzz_verbose() && rc == 0)
        fprintf(stderr, "  loaded\n");
}

#endif /* GAL_FUZZ_H */
