/* progress.c: Ctrl-C and SIGTERM, and what a run prints as photos
 * finish (a line each, the live progress line, --log json events). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* ---- signals ------------------------------------------------------------------ */

/* The run's cancel flag. The handler only stores into it (an atomic store
 * is async-signal-safe); the library watches it. */
int cancel_flag;
static volatile sig_atomic_t signals_seen;
volatile sig_atomic_t first_signal;

static void
on_signal(int sig)
{
    static const char again[] = "\ngallop: interrupted again: stopping now\n";

    if (signals_seen++ == 0) {
        first_signal = sig;
        __atomic_store_n(&cancel_flag, 1, __ATOMIC_SEQ_CST);
        return;
    }
    /* Outputs only get their final name once complete, so stopping here
     * leaves no half-written file under a final name (at most hidden
     * .gallop-tmp files). */
    if (write(STDERR_FILENO, again, sizeof(again) - 1) < 0) {
        /* nothing more to do */
    }
    _exit(EXIT_SIGNAL_BASE + sig);
}

void
catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* ---- progress ------------------------------------------------------------------ */

#define FLUSH_INTERVAL_US (G_USEC_PER_SEC / 10)

void
clear_line(progress_state *st)
{
    if (st->line_shown) {
        fputs("\r\033[K", stderr);
        st->line_shown = FALSE;
    }
}

static void
draw_line(progress_state *st, gboolean force)
{
    gint64 now = g_get_monotonic_time();
    double elapsed = (now - st->start) / 1e6;
    double rate = elapsed > 0 ? st->done / elapsed : 0;

    if (!st->live || (!force && now - st->last_draw < 100000))
        return;
    st->last_draw = now;
    fprintf(stderr, "\r\033[K%d/%d %s", st->done, st->total, st->unit);
    if (rate > 0) {
        int eta = (int) ((st->total - st->done) / rate + 0.5);

        fprintf(stderr, ", %.1f/s, ETA %d:%02d", rate, eta / 60, eta % 60);
    }
    if (st->failed)
        fprintf(stderr, ", %d failed", st->failed);
    fflush(stderr);
    st->line_shown = TRUE;
}

static void
print_why(const gal_photo_result *photo)
{
    const char *detail = gal_photo_notes_of(photo)->why_detail;

    printf(" (%s", gal_why_name(photo->why));
    if (detail)
        printf(": %s", detail);
    printf(")\n");
}

void
on_photo(const gal_run_summary *run, const gal_photo_result *photo, int done, int total,
    void *user)
{
    progress_state *st = user;
    const gal_photo_notes *notes = gal_photo_notes_of(photo);

    st->done = done;
    st->total = total;
    if (photo->status == GAL_PHOTO_FAILED)
        st->failed++;
    if (st->json) {
        g_autofree char *line = gal_photo_event_json(run, photo, done, total);

        fflush(stdout);
        fprintf(stderr, "%s\n", line);
    }
    clear_line(st);
    switch (photo->status) {
    case GAL_PHOTO_FAILED:
    case GAL_PHOTO_IGNORED:
        if (!st->json) {
            fflush(stdout);
            print_error(notes->error);
        }
        break;
    /* A photo without an output (output.photos false) only gives its
     * contact-sheet tile; the sheets get their own lines. */
    case GAL_PHOTO_PLANNED:
        /* A quiet dry run says only its summary (--check lists what is
         * stale: that list is its answer). */
        if (st->quiet && !st->check)
            break;
        if (!photo->output) {
            /* --check: the "stale  contact sheets" (gallery pages) line says it all. */
            if (!st->check) {
                printf("read   %s for the %s", photo->input, st->pages);
                print_why(photo);
            }
            break;
        }
        printf("%s %s -> %s", st->check ? "stale " : "build ", photo->input, photo->output);
        print_why(photo);
        break;
    case GAL_PHOTO_UP_TO_DATE:
        if (st->quiet)
            break;
        if (st->dry_run && !st->check && photo->output)
            printf("skip   %s -> %s (up to date)\n", photo->input, photo->output);
        else if (st->dry_run && !st->check)
            printf("skip   %s (its %s are up to date)\n", photo->input, st->pages);
        break;
    case GAL_PHOTO_DONE:
        /* A caption cut short is the photographer's to know, photo by
         * photo: the rest of it is in the file's metadata, not on it. */
        if (!st->quiet && photo->output && notes->n_files == 0)
            printf("wrote  %s (%dx%d)%s\n", photo->output, photo->width, photo->height,
                notes->caption_cut ? "; caption cut at caption-burn.max-lines (or the band's "
                                     "room)" : "");
        /* Only the files written (a photo made again leaves its up-to-date
         * files as they are); the first of them notes a cut caption. */
        for (int f = 0, first = 1; !st->quiet && f < notes->n_files; f++) {
            if (!notes->files[f].written)
                continue;
            printf("wrote  %s (%dx%d)%s\n", notes->files[f].path, notes->files[f].width,
                notes->files[f].height,
                first && notes->caption_cut ? "; caption cut at caption-burn.max-lines (or the "
                                              "band's room)" : "");
            first = 0;
        }
        /* Even when quiet: the output was written, but not as asked. */
        if (notes->warnings && !st->json) {
            g_auto(GStrv) lines = g_strsplit(notes->warnings, "\n", -1);

            fflush(stdout);
            for (int w = 0; lines[w]; w++)
                fprintf(stderr, "gallop: warning: %s: %s\n", photo->input, lines[w]);
        }
        break;
    case GAL_PHOTO_CANCELLED:
        break;
    }
    /* stdout is flushed before anything goes to stderr (above), so the
     * two read in order as one stream, and otherwise at most ten times a
     * second and at the end: a flush a photo was a write a photo, a
     * million of them in a dry run of a large set. */
    if (done == total || g_get_monotonic_time() - st->last_flush >= FLUSH_INTERVAL_US) {
        fflush(stdout);
        st->last_flush = g_get_monotonic_time();
    }
    draw_line(st, done == total);
}
