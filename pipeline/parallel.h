/* parallel.h: the engine's one fork-join (a leaf module). */
#ifndef GAL_PARALLEL_H
#define GAL_PARALLEL_H

#include <glib.h>

/* Called for items [from, to) of a loop, on any of its threads. */
typedef void (*gal_range_fn)(int from, int to, void *user);

/* Run `fn` over items 0..n-1, `batch` at a time, on `threads` threads:
 * the calling one and threads - 1 started for the loop, which end with
 * it (a thread that used libvips releases its buffers first). Items are
 * taken in order by whichever thread is free; `fn` must touch only what
 * its items own. Fewer than two batches run on the calling thread alone. */
void gal__parallel_for(int n, int batch, int threads, gal_range_fn fn, void *user);

#endif /* GAL_PARALLEL_H */
