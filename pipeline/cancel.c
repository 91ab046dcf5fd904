/* cancel.c: a run's cancel and each photo's budget (see cancel.h). */
#include "cancel.h"
#include "error.h"

struct gal_cancel {
    const int *flag;    /* the front end's; read atomically; may be NULL */
    GMutex lock;        /* guards `watches` */
    GPtrArray *watches; /* gal_watch *, in flight */
};

struct gal_watch {
    gal_cancel *cancel; /* may be NULL */
    gint64 start_us, deadline_us; /* monotonic; deadline 0: none */
    double seconds;
    gint64 memory_bytes;          /* 0: no limit */
    GMutex lock;                  /* guards `images` and `stopped` */
    GPtrArray *images;            /* VipsImage *, referenced */
    gal_stop stopped;
};

gal_cancel *
gal__cancel_new(const int *flag)
{
    gal_cancel *cancel = g_new0(gal_cancel, 1);

    cancel->flag = flag;
    g_mutex_init(&cancel->lock);
    cancel->watches = g_ptr_array_new();
    return cancel;
}

void
gal__cancel_free(gal_cancel *cancel)
{
    if (!cancel)
        return;
    g_mutex_clear(&cancel->lock);
    g_ptr_array_unref(cancel->watches);
    g_free(cancel);
}

gboolean
gal__cancelled(const gal_cancel *cancel)
{
    return cancel && cancel->flag && g_atomic_int_get(cancel->flag) != 0;
}

/* Under the watch's lock: stop it, and kill what it holds. libvips clears
 * an image's kill flag when an evaluation notices it, so the flag is set
 * again on every poll while the photo is still in flight. */
static void
stop_locked(gal_watch *watch, gal_stop why)
{
    if (watch->stopped == GAL_STOP_NONE)
        watch->stopped = why;
    for (guint i = 0; i < watch->images->len; i++)
        vips_image_set_kill(watch->images->pdata[i], TRUE);
}

void
gal__cancel_poll(gal_cancel *cancel)
{
    gboolean cancelled = gal__cancelled(cancel);
    gint64 now = g_get_monotonic_time();

    g_mutex_lock(&cancel->lock);
    for (guint i = 0; i < cancel->watches->len; i++) {
        gal_watch *watch = cancel->watches->pdata[i];

        g_mutex_lock(&watch->lock);
        if (cancelled)
            stop_locked(watch, GAL_STOP_CANCEL);
        else if (watch->deadline_us && now >= watch->deadline_us)
            stop_locked(watch, GAL_STOP_TIMEOUT);
        else if (watch->stopped)
            stop_locked(watch, watch->stopped);
        g_mutex_unlock(&watch->lock);
    }
    g_mutex_unlock(&cancel->lock);
}

gal_watch *
gal__watch_begin(gal_cancel *cancel, double seconds, gint64 memory_bytes)
{
    gal_watch *watch = g_new0(gal_watch, 1);

    watch->cancel = cancel;
    watch->start_us = g_get_monotonic_time();
    watch->seconds = seconds;
    watch->deadline_us = seconds > 0 ? watch->start_us + (gint64) (seconds * G_USEC_PER_SEC) : 0;
    watch->memory_bytes = memory_bytes;
    g_mutex_init(&watch->lock);
    watch->images = g_ptr_array_new_with_free_func(g_object_unref);
    if (gal__cancelled(cancel))
        watch->stopped = GAL_STOP_CANCEL;
    if (cancel) {
        g_mutex_lock(&cancel->lock);
        g_ptr_array_add(cancel->watches, watch);
        g_mutex_unlock(&cancel->lock);
    }
    return watch;
}

gboolean
gal__watch_cancelled(const gal_watch *watch)
{
    return watch && gal__cancelled(watch->cancel);
}

void
gal__watch_pause(gal_watch *watch)
{
    if (!watch)
        return;
    g_mutex_lock(&watch->lock);
    watch->deadline_us = 0;
    g_mutex_unlock(&watch->lock);
}

void
gal__watch_resume(gal_watch *watch)
{
    if (!watch)
        return;
    g_mutex_lock(&watch->lock);
    watch->start_us = g_get_monotonic_time();
    watch->deadline_us = watch->seconds > 0
        ? watch->start_us + (gint64) (watch->seconds * G_USEC_PER_SEC)
        : 0;
    g_mutex_unlock(&watch->lock);
}

gboolean
gal__watch_add(gal_watch *watch, VipsImage *image)
{
    gboolean ok;

    if (!watch)
        return TRUE;
    g_mutex_lock(&watch->lock);
    ok = watch->stopped == GAL_STOP_NONE;
    if (ok)
        g_ptr_array_add(watch->images, g_object_ref(image));
    g_mutex_unlock(&watch->lock);
    return ok;
}

gal_stop
gal__watch_stopped(const gal_watch *watch)
{
    gal_stop stopped;

    if (!watch)
        return GAL_STOP_NONE;
    g_mutex_lock((GMutex *) &watch->lock);
    stopped = watch->stopped;
    g_mutex_unlock((GMutex *) &watch->lock);
    return stopped;
}

int
gal__watch_check(const gal_watch *watch, gal_error *err)
{
    switch (gal__watch_stopped(watch)) {
    case GAL_STOP_NONE:
        return 0;
    case GAL_STOP_CANCEL:
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "cancelled");
    case GAL_STOP_TIMEOUT:
        break;
    }
    return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
        "stopped after %.2f s: a photo may take at most %g s (input.max-seconds)",
        (g_get_monotonic_time() - watch->start_us) / (double) G_USEC_PER_SEC, watch->seconds);
}

/* "512 MiB" */
static char *
mib(gint64 bytes)
{
    return g_strdup_printf("%.0f MiB", (double) bytes / (1 << 20));
}

static void
free_pixels(VipsImage *image, void *pixels)
{
    (void) image;
    g_free(pixels);
}

/* vips_image_copy_memory without its zero fill: vips_tracked_malloc
 * clears every byte, which the copy then writes (1.4% of the 1080 px
 * bench job's CPU for the photo held for its contact-sheet tile). */
static VipsImage *
copy_to_memory(VipsImage *image)
{
    size_t bytes = VIPS_IMAGE_SIZEOF_IMAGE(image);
    void *pixels = g_try_malloc(bytes);
    VipsImage *memory;

    if (!pixels) {
        vips_error("gallop", "out of memory: %zu bytes for a %d x %d image", bytes,
            image->Xsize, image->Ysize);
        return NULL;
    }
    memory = vips_image_new_from_memory(pixels, bytes, image->Xsize, image->Ysize,
        image->Bands, image->BandFmt);
    if (!memory) {
        g_free(pixels);
        return NULL;
    }
    g_signal_connect(memory, "postclose", G_CALLBACK(free_pixels), pixels);
    /* Header and metadata come with the pixels, as with copy_memory. */
    if (vips_image_write(image, memory)) {
        g_object_unref(memory);
        return NULL;
    }
    return memory;
}

VipsImage *
gal__watch_to_memory(gal_watch *watch, VipsImage *image, const char *what, gal_error *err)
{
    gint64 bytes = (gint64) VIPS_IMAGE_SIZEOF_IMAGE(image);
    VipsImage *strips = NULL;
    VipsImage *memory;

    if (gal__watch_check(watch, err))
        return NULL;
    if (watch && watch->memory_bytes > 0 && bytes > watch->memory_bytes) {
        g_autofree char *need = mib(bytes);
        g_autofree char *have = mib(watch->memory_bytes);

        gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "%s needs %s in memory (%d x %d), more than the %s a photo may use "
            "(input.max-memory-mb)",
            what, need, image->Xsize, image->Ysize, have);
        return NULL;
    }
    /* Evaluated in full-width strips: the caption's vips_insert and the
     * mark's composite ask for 128x128 tiles, and every operation before
     * them (the reducers, sharpening) then redoes each tile's edges. Strips
     * cost 4-5% less CPU on both bench corpora (issue 17). */
    if (vips_copy(image, &strips, NULL))
        memory = NULL;
    else {
        strips->dhint = VIPS_DEMAND_STYLE_FATSTRIP;
        memory = copy_to_memory(strips);
        g_object_unref(strips);
    }
    if (!memory) {
        if (gal__watch_check(watch, err) == 0) {
            g_autofree char *failed = g_strdup_printf("%s failed", what);

            gal_error_from_vips(err, GAL_ERR_INPUT, NULL, failed);
        }
        vips_error_clear();
        return NULL;
    }
    return memory;
}

void
gal__watch_end(gal_watch *watch)
{
    if (!watch)
        return;
    if (watch->cancel) {
        g_mutex_lock(&watch->cancel->lock);
        g_ptr_array_remove_fast(watch->cancel->watches, watch);
        g_mutex_unlock(&watch->cancel->lock);
    }
    g_ptr_array_unref(watch->images);
    g_mutex_clear(&watch->lock);
    g_free(watch);
}
