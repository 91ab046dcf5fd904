/* admit.h: the run's memory budget (--memory). A worker that has taken a
 * photo asks to be admitted with the memory the photo's decode is
 * estimated to take (job.h, from its header); photos are admitted in the
 * order they asked, each when the photos in flight leave room for it, so
 * that together they never need more than the budget, whatever the mix of
 * formats and sizes and however many workers there are. A photo that
 * needs more than the whole budget is admitted alone, once nothing else
 * is in flight: the budget is never below what the largest photo needs.
 * A leaf module. */
#ifndef GAL_ADMIT_H
#define GAL_ADMIT_H

#include <glib.h>

#include "cancel.h"

typedef struct gal_admit gal_admit; /* one per run */

/* A budget of `budget_bytes` (<= 0: none; everything is admitted at
 * once). */
gal_admit *gal__admit_new(gint64 budget_bytes);
void gal__admit_free(gal_admit *admit);

/* Whether a photo needing `bytes` may start beside `running` photos that
 * hold `in_use` bytes of a budget of `budget` bytes (<= 0: none): when it
 * fits, or when it runs alone. Pure. */
gboolean gal__admit_fits(gint64 budget, gint64 in_use, int running, gint64 bytes);

/* Admit a photo needing `bytes` at once if it fits and nobody asked
 * before it: TRUE (give the bytes back with gal__admit_give), else FALSE
 * and nothing held. Thread-safe. `admit` may be NULL (TRUE). */
gboolean gal__admit_try(gal_admit *admit, gint64 bytes);

/* Wait until a photo needing `bytes` is admitted, in turn. A cancelled
 * run admits it at once (its `watch` stops its work anyway).
 * Give the bytes back with gal__admit_give. Thread-safe. `admit` may be
 * NULL (nothing waits), `watch` too. */
void gal__admit_take(gal_admit *admit, gint64 bytes, const gal_watch *watch);

/* The photo admitted with `bytes` is done. Thread-safe; NULL: nothing. */
void gal__admit_give(gal_admit *admit, gint64 bytes);

#endif /* GAL_ADMIT_H */
