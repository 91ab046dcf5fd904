/* orc_churn: the hazard of issue 12 without the rest of a run. Threads
 * build and drop, as fast as they can, the libvips operations that
 * compile orc programs when its vector paths are on (vips_reducev, as in
 * gallop's Lanczos scaling, and vips_gaussblur, as in a caption's
 * shadow). gal_init() decides the paths, as in gallop; the run must end.
 *
 *   orc_churn [THREADS [ROUNDS]]
 *
 * With an orc older than 0.4.34 and without gallop's lock around orc's
 * code memory (pipeline/orclock.c), this crashed within seconds (a
 * segfault, or an abort from a double free in liborc's orc_code_free).
 * Exit status 0 when every thread finished, 1 on a libvips error, 2 when
 * the vector paths are off (nothing would be tested). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include <vips/vector.h> /* after vips.h, which it needs */

typedef struct churn {
    int rounds;
    int failed; /* atomic */
} churn;

/* One round: a few operations built on a small image, then dropped. They
 * are never evaluated: orc compiles when an operation is built and frees
 * when it is finalised, which is all the hazard needs. */
static int
churn_round(int i)
{
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) shrunk = NULL;
    g_autoptr(VipsImage) blurred = NULL;

    return vips_black(&black, 48 + i % 17, 64 + i % 29, "bands", 3, NULL) ||
        vips_reducev(black, &shrunk, 1.5 + i % 7, "kernel", VIPS_KERNEL_LANCZOS3, NULL) ||
        (i % 16 == 0 && vips_gaussblur(black, &blurred, 1.0 + i % 3, NULL));
}

static gpointer
churn_thread(gpointer data)
{
    churn *c = data;

    for (int i = 0; i < c->rounds && !g_atomic_int_get(&c->failed); i++)
        if (churn_round(i))
            g_atomic_int_set(&c->failed, 1);
    vips_thread_shutdown();
    return NULL;
}

int
main(int argc, char **argv)
{
    gal_error err = { 0 };
    churn c = { .rounds = 5000 };
    int threads = 4;
    int arg = 1;
    GThread *pool[64];
    gal_vectors v;
    gint64 start;

    /* CLAMP and MAX evaluate their arguments more than once. */
    if (arg < argc)
        threads = atoi(argv[arg++]);
    if (arg < argc)
        c.rounds = atoi(argv[arg++]);
    threads = CLAMP(threads, 1, (int) G_N_ELEMENTS(pool));
    c.rounds = MAX(1, c.rounds);
    if (gal_init(argv[0], &err)) {
        fprintf(stderr, "orc_churn: %s\n", err.msg);
        return 1;
    }
    v = gal_vectors_status();
    printf("orc_churn: orc %s, vector paths %s; %d threads x %d rounds\n",
        v.orc_version ? v.orc_version : "unknown", vips_vector_isenabled() ? "on" : "off",
        threads, c.rounds);
    fflush(stdout);
    if (!vips_vector_isenabled()) {
        fprintf(stderr, "orc_churn: vector paths off (%s): nothing to test\n", v.reason);
        return 2;
    }

    start = g_get_monotonic_time();
    for (int t = 0; t < threads; t++)
        pool[t] = g_thread_new("churn", churn_thread, &c);
    for (int t = 0; t < threads; t++)
        g_thread_join(pool[t]);
    if (c.failed) {
        fprintf(stderr, "orc_churn: %s\n", vips_error_buffer());
        return 1;
    }
    printf("orc_churn: %d reducev operations built and dropped in %.1f s\n",
        threads * c.rounds, (g_get_monotonic_time() - start) / 1e6);
    gal_shutdown();
    return 0;
}
