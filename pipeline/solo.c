/* solo.c: one photo at a time when its errors must be its own (solo.h). */
#include <vips/vips.h>

#include "solo.h"

struct gal_solo {
    GMutex lock;
    GCond changed;
    int inside;       /* photos in flight alongside each other */
    gboolean solo;    /* a photo runs alone */
    int waiting_solo; /* photos waiting to run alone: new ones wait behind them */
    guint log_handler;
};

gal_solo *
gal__solo_new(void)
{
    gal_solo *solo = g_new0(gal_solo, 1);

    g_mutex_init(&solo->lock);
    g_cond_init(&solo->changed);
    return solo;
}

void
gal__solo_free(gal_solo *solo)
{
    if (!solo)
        return;
    g_mutex_clear(&solo->lock);
    g_cond_clear(&solo->changed);
    g_free(solo);
}

void
gal__solo_enter(gal_solo *solo)
{
    g_mutex_lock(&solo->lock);
    while (solo->solo || solo->waiting_solo > 0)
        g_cond_wait(&solo->changed, &solo->lock);
    solo->inside++;
    g_mutex_unlock(&solo->lock);
}

void
gal__solo_leave(gal_solo *solo)
{
    g_mutex_lock(&solo->lock);
    solo->inside--;
    g_cond_broadcast(&solo->changed);
    g_mutex_unlock(&solo->lock);
}

/* libvips' tile cache warns "error in tile X x Y" for each tile it was
 * making when the decoder failed: which tiles, and how many, depend on its
 * threads' timing, so a photo's reason would differ from run to run (a
 * truncated JPEG gave one tile or two). The decoder's own words say why. */
#define TILE_ERROR_PREFIX "error in tile "

/* While a photo runs alone, libvips' warnings are this photo's reasons:
 * they join the error buffer (gal_init otherwise drops them, as the
 * library never prints). */
static void
keep_warning(const char *domain, GLogLevelFlags level, const char *message, gpointer user)
{
    (void) domain;
    (void) level;
    (void) user;
    if (!g_str_has_prefix(message, TILE_ERROR_PREFIX))
        vips_error(NULL, "%s", message);
}

void
gal__solo_begin(gal_solo *solo)
{
    g_mutex_lock(&solo->lock);
    solo->waiting_solo++;
    while (solo->solo || solo->inside > 0)
        g_cond_wait(&solo->changed, &solo->lock);
    solo->waiting_solo--;
    solo->solo = TRUE;
    g_mutex_unlock(&solo->lock);
    vips_error_clear();
    /* The newest handler for a domain is the one GLib calls. */
    solo->log_handler = g_log_set_handler("VIPS",
        G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, keep_warning, NULL);
}

void
gal__solo_end(gal_solo *solo)
{
    g_log_remove_handler("VIPS", solo->log_handler);
    vips_error_clear();
    g_mutex_lock(&solo->lock);
    solo->solo = FALSE;
    g_cond_broadcast(&solo->changed);
    g_mutex_unlock(&solo->lock);
}
