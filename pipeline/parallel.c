/* parallel.c: the engine's one fork-join (parallel.h): the loops that
 * decide photos, look up a folder's entries or make a merge's pages share
 * it, rather than each starting and joining threads of its own. */
#include "internal.h"
#include "parallel.h"

typedef struct {
    int n, batch;
    gal_range_fn fn;
    void *user;
    gint next;      /* atomic: the first item of the next batch */
} loop;

static void
take_batches(loop *l)
{
    int from;

    while ((from = g_atomic_int_add(&l->next, l->batch)) < l->n)
        l->fn(from, MIN(from + l->batch, l->n), l->user);
}

static gpointer
helper(gpointer data)
{
    take_batches(data);
    /* libvips asks threads it did not create to release its per-thread
     * buffers before they exit (nothing, when the loop used none). */
    vips_thread_shutdown();
    return NULL;
}

void
gal__parallel_for(int n, int batch, int threads, gal_range_fn fn, void *user)
{
    loop l = { n, MAX(batch, 1), fn, user, 0 };
    int batches = (n + l.batch - 1) / l.batch;
    int helpers = CLAMP(MIN(threads, batches) - 1, 0, 64);
    GThread *started[64];

    for (int t = 0; t < helpers; t++)
        started[t] = g_thread_new("gallop-loop", helper, &l);
    take_batches(&l);
    for (int t = 0; t < helpers; t++)
        g_thread_join(started[t]);
}
