/* admit.c: the run's memory budget (admit.h). */
#include "admit.h"

struct gal_admit {
    GMutex lock;
    GCond changed;
    gint64 budget;  /* bytes; <= 0: none */
    gint64 in_use;  /* the estimates of the photos in flight */
    int running;    /* photos in flight */
    /* Photos are admitted in the order they asked: only the first of the
     * waiting may start, so a large photo waiting for room is not passed
     * again and again by small ones. Each waiter is a ticket, the address
     * of its own stack frame. */
    GQueue waiting;
};

gal_admit *
gal__admit_new(gint64 budget_bytes)
{
    gal_admit *admit = g_new0(gal_admit, 1);

    g_mutex_init(&admit->lock);
    g_cond_init(&admit->changed);
    admit->budget = budget_bytes;
    return admit;
}

void
gal__admit_free(gal_admit *admit)
{
    if (!admit)
        return;
    g_mutex_clear(&admit->lock);
    g_cond_clear(&admit->changed);
    g_free(admit);
}

gboolean
gal__admit_fits(gint64 budget, gint64 in_use, int running, gint64 bytes)
{
    return budget <= 0 || running == 0 || in_use + MAX(0, bytes) <= budget;
}

static void
admit_locked(gal_admit *admit, gint64 bytes)
{
    admit->in_use += MAX(0, bytes);
    admit->running++;
}

gboolean
gal__admit_try(gal_admit *admit, gint64 bytes)
{
    gboolean admitted;

    if (!admit)
        return TRUE;
    g_mutex_lock(&admit->lock);
    admitted = g_queue_is_empty(&admit->waiting) &&
        gal__admit_fits(admit->budget, admit->in_use, admit->running, bytes);
    if (admitted)
        admit_locked(admit, bytes);
    g_mutex_unlock(&admit->lock);
    return admitted;
}

void
gal__admit_take(gal_admit *admit, gint64 bytes, const gal_watch *watch)
{
    int ticket;

    if (!admit)
        return;
    g_mutex_lock(&admit->lock);
    g_queue_push_tail(&admit->waiting, &ticket);
    /* A cancel is seen within 50 ms: the run's main thread sets the flag,
     * it does not wake this wait. A cancelled photo is let through out of
     * turn: its work stops at once. */
    while (!(g_queue_peek_head(&admit->waiting) == &ticket &&
               gal__admit_fits(admit->budget, admit->in_use, admit->running, bytes)) &&
        !gal__watch_cancelled(watch))
        g_cond_wait_until(&admit->changed, &admit->lock, g_get_monotonic_time() + 50000);
    g_queue_remove(&admit->waiting, &ticket);
    admit_locked(admit, bytes);
    g_cond_broadcast(&admit->changed);
    g_mutex_unlock(&admit->lock);
}

void
gal__admit_give(gal_admit *admit, gint64 bytes)
{
    if (!admit)
        return;
    g_mutex_lock(&admit->lock);
    admit->in_use -= MAX(0, bytes);
    admit->running--;
    g_cond_broadcast(&admit->changed);
    g_mutex_unlock(&admit->lock);
}
