/* cancel.h: stopping work: a run's cancel (Ctrl-C, SIGTERM) and each
 * photo's budget of time and memory. A leaf module: it knows libvips
 * images and gal_error, nothing else of gallop.
 *
 * libvips stops an evaluation when any image it reads from has its kill
 * flag set. So a photo's watch holds the images its decoder made: when
 * the run is cancelled or the photo's time is up, the run's main thread
 * (gal__cancel_poll) sets their kill flag, and every evaluation of that
 * photo's graph (a stage's copy to memory, the encoder) stops within a
 * few tiles, whichever thread runs it. Memory is held to the budget
 * where it is taken: gal__watch_to_memory is the only way a photo's
 * pixels are copied to memory, and it refuses what would not fit. */
#ifndef GAL_CANCEL_H
#define GAL_CANCEL_H

#include <glib.h>
#include <vips/vips.h>

#include "gallop.h"

typedef struct gal_cancel gal_cancel; /* one per run */
typedef struct gal_watch gal_watch;   /* one per photo (or page) in flight */

/* Why a watch stopped its work. */
typedef enum gal_stop {
    GAL_STOP_NONE,
    GAL_STOP_CANCEL,  /* the run was cancelled */
    GAL_STOP_TIMEOUT, /* the photo's time budget ran out */
} gal_stop;

/* The run's cancel; `flag` (may be NULL) is read atomically: the front end
 * sets it, from a signal handler. */
gal_cancel *gal__cancel_new(const int *flag);
void gal__cancel_free(gal_cancel *cancel);

/* Has the front end asked the run to stop? `cancel` may be NULL. */
gboolean gal__cancelled(const gal_cancel *cancel);

/* Main thread, every few tens of milliseconds while workers run: stop
 * the work of every watch that is cancelled or past its time. */
void gal__cancel_poll(gal_cancel *cancel);

/* A photo starts: `seconds` of wall time (0: no limit) and `memory_bytes`
 * for the images it holds in memory at once (0: no limit). Thread-safe.
 * `cancel` may be NULL (the watch then only keeps the memory budget). */
gal_watch *gal__watch_begin(gal_cancel *cancel, double seconds, gint64 memory_bytes);

/* Make `image` (typically a decoder's output) stop with the watch: a
 * reference is held until gal__watch_end. FALSE, with nothing added, when
 * the watch has stopped already. `watch` may be NULL (TRUE, nothing held). */
gboolean gal__watch_add(gal_watch *watch, VipsImage *image);

/* Why the watch stopped its photo, if it did. `watch` may be NULL. */
gal_stop gal__watch_stopped(const gal_watch *watch);

/* Has the run of the watch's photo been cancelled? `watch` may be NULL
 * (FALSE). Thread-safe. */
gboolean gal__watch_cancelled(const gal_watch *watch);

/* The photo waits for something outside it (the run's memory budget,
 * admit.h): its time is not counted until gal__watch_resume, which
 * starts its whole time budget again from then. NULL: nothing. */
void gal__watch_pause(gal_watch *watch);
void gal__watch_resume(gal_watch *watch);

/* Set `err` to say why the photo was stopped (-1), or return 0 when it
 * was not. */
int gal__watch_check(const gal_watch *watch, gal_error *err);

/* `image` evaluated into memory, within the photo's memory budget: a new
 * image, or NULL with `err` set (over budget, stopped, or the libvips
 * failure). `what` names the step in messages. */
VipsImage *gal__watch_to_memory(gal_watch *watch, VipsImage *image, const char *what,
    gal_error *err);

/* The photo is done: its images are released. Accepts NULL. */
void gal__watch_end(gal_watch *watch);

#endif /* GAL_CANCEL_H */
