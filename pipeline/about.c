/* about.c: what a site shows of a photo (about.h): its "key=value" fields
 * in memory, or where its about line is in the manifest file it was read
 * from, read again when a save or a report asks. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "about.h"
#include "fields.h"

/* A part of a file read: its bytes from `at`, `len` of them. */
typedef struct {
    char *bytes;
    gint64 at;
    gsize len;
    guint64 used;    /* when it was read from last (the file's clock) */
} about_window;

/* Windows a file is read through: a reader going through the file in
 * order keeps to one, and threads reading apart (a rerun's decisions,
 * each thread its own photos) each to their own, instead of taking one
 * window from each other at every line. */
#define ABOUT_WINDOWS 4

/* Memory handed out from blocks, all freed at once: the records and about
 * lines read from a file were each an allocation of their own, a million
 * of each in a merge (malloc's 8 to 16 bytes each, and a free each at the
 * end). Taken only by the file's reader, on its thread. */
typedef struct memory_block {
    struct memory_block *next;
    gsize used, size;       /* `size` bytes follow */
} memory_block;

/* A file's first block, and the largest (a manifest of a few photos
 * takes a page, a million-photo one blocks malloc gives back whole). */
#define BLOCK_FIRST (4096 - sizeof(memory_block))
#define BLOCK_MOST (512 * 1024 - sizeof(memory_block))

static void *
blocks_take(memory_block **blocks, gsize size)
{
    memory_block *b = *blocks;
    char *at;

    /* 8-byte aligned, as malloc's would be for what is kept there
     * (pointers and 64-bit numbers): the header is 24 bytes. */
    size = (size + 7) & ~(gsize) 7;
    if (!b || b->size - b->used < size) {
        gsize room = MAX(b ? MIN(b->size * 2 + sizeof *b, BLOCK_MOST) : BLOCK_FIRST, size);

        b = g_malloc(sizeof *b + room);
        b->next = *blocks;
        b->used = 0;
        b->size = room;
        *blocks = b;
    }
    at = (char *) (b + 1) + b->used;
    b->used += size;
    return memset(at, 0, size);
}

static void
blocks_free(memory_block **blocks)
{
    while (*blocks) {
        memory_block *next = (*blocks)->next;

        g_free(*blocks);
        *blocks = next;
    }
}

/* The manifest file a run's about lines and records' tails stay in (an
 * open descriptor: the file may be replaced by the run's own save, or
 * removed, as a merged part is, while it is still read). */
struct gal_about_file {
    int fd;
    /* The windows below are shared by the threads reading (a rerun decides
     * on several). pthread's, which ThreadSanitizer sees, not GLib's. */
    pthread_mutex_t lock;
    about_window windows[ABOUT_WINDOWS];
    char *spare;     /* bytes a window let go, for the next read */
    guint64 clock;
    gint64 size;     /* as read: a last line without a newline ends there */
    /* The records read from it (gal__about_file_record_memory), freed when
     * the last goes (`records_alive`, plus one while the file is read):
     * a run's results keep its about lines, not its records. */
    memory_block *records;
    gint records_alive;
    /* Its about lines (gal__about_on_file), freed with the file. */
    memory_block *abouts;
};

/* The fields in memory (`file` NULL, NULL-terminated `fields`), or where
 * its line is in the file it was read from. Its own count, not a GLib
 * reference-counted box: a million of them, and the box's header would
 * have made each 48 bytes of memory, not 32. */
struct gal_about {
    gal_about_file *file;
    gint64 line_at;
    gint refs;
    /* The line is plain (no escape, no carriage return) and all its
     * fields were kept when it was read: written back as it is, not
     * parsed again. */
    bool verbatim;
    char *fields[];
};

/* The most of a file read at once for its about lines. */
#define ABOUT_WINDOW (1 << 16)

/* Files whose about lines are still read, at most: each is a descriptor
 * held for the run (a merge of many shards holds one a part). Past it
 * they are read into memory, as before. */
#define ABOUT_FILES_OPEN_MAX 256
static gint about_files_open;

gal_about_file *
gal__about_file_new(int fd)
{
    gal_about_file *f;

    if (g_atomic_int_add(&about_files_open, 1) >= ABOUT_FILES_OPEN_MAX) {
        g_atomic_int_add(&about_files_open, -1);
        return NULL;
    }
    f = g_atomic_rc_box_new0(gal_about_file);
    f->fd = fd;
    f->records_alive = 1;
    pthread_mutex_init(&f->lock, NULL);
    return f;
}

static void
about_file_clear(gpointer p)
{
    gal_about_file *f = p;

    close(f->fd);
    pthread_mutex_destroy(&f->lock);
    for (int w = 0; w < ABOUT_WINDOWS; w++)
        g_free(f->windows[w].bytes);
    g_free(f->spare);
    blocks_free(&f->records);
    blocks_free(&f->abouts);
    g_atomic_int_add(&about_files_open, -1);
}

void
gal__about_file_unref(gal_about_file *f)
{
    if (f)
        g_atomic_rc_box_release_full(f, about_file_clear);
}

void
gal__about_file_read_to(gal_about_file *f, gint64 size)
{
    f->size = size;
    gal__about_file_record_gone(f);
}

void *
gal__about_file_record_memory(gal_about_file *f, gsize size)
{
    g_atomic_int_inc(&f->records_alive);
    return blocks_take(&f->records, size);
}

void
gal__about_file_record_gone(gal_about_file *f)
{
    if (g_atomic_int_dec_and_test(&f->records_alive))
        blocks_free(&f->records);
}

gal_about *
gal__about_new(const char *const *fields, gsize n)
{
    gsize bytes = sizeof(gal_about) + (n + 1) * sizeof(char *);
    gal_about *about;
    char *at;

    for (gsize i = 0; i < n; i++)
        bytes += strlen(fields[i]) + 1;
    about = g_malloc0(bytes);
    about->refs = 1;
    at = (char *) (about->fields + n + 1);
    for (gsize i = 0; i < n; i++) {
        size_t len = strlen(fields[i]) + 1;

        about->fields[i] = memcpy(at, fields[i], len);
        at += len;
    }
    about->fields[n] = NULL;
    return about;
}

/* The about line at `line_at` of `file`, left there: a million photos'
 * lines were 0.5 KB of memory each, and most runs never read them again
 * (a dry run, a run that writes no report and leaves the manifest). */
gal_about *
gal__about_on_file(gal_about_file *file, gint64 line_at, bool verbatim)
{
    gal_about *about = blocks_take(&file->abouts, sizeof *about);

    about->refs = 1;
    about->file = g_atomic_rc_box_acquire(file);
    about->line_at = line_at;
    about->verbatim = verbatim;
    return about;
}

gal_about *
gal__about_ref(gal_about *about)
{
    if (about)
        g_atomic_int_inc(&about->refs);
    return about;
}

void
gal__about_unref(gal_about *about)
{
    if (!about || !g_atomic_int_dec_and_test(&about->refs))
        return;
    /* One on a file is in its memory, freed with it. */
    if (about->file)
        gal__about_file_unref(about->file);
    else
        g_free(about);
}

const char *const *
gal__about_in_memory(const gal_about *about)
{
    return about && !about->file ? (const char *const *) about->fields : NULL;
}

/* The window to read `at` through: the one holding it; else one whose
 * reader goes on past its end (`near`: read a large window); else one not
 * used yet, or the one used longest ago. */
static about_window *
window_for(gal_about_file *f, gint64 at, gboolean *near)
{
    about_window *pick = NULL;

    *near = TRUE;
    for (int w = 0; w < ABOUT_WINDOWS; w++) {
        about_window *win = &f->windows[w];
        gint64 end = win->at + (gint64) win->len;

        if (win->bytes && at >= win->at && at < end)
            return win;
        if (win->bytes && at >= end && at <= end + ABOUT_WINDOW)
            pick = win;
    }
    if (pick)
        return pick;
    *near = FALSE;
    for (int w = 0; w < ABOUT_WINDOWS; w++) {
        about_window *win = &f->windows[w];

        if (!win->bytes)
            return win;
        if (!pick || win->used < pick->used)
            pick = win;
    }
    return pick;
}

/* Read the line at `at` (without its newline) into `line`. Lines are
 * asked for mostly in the file's order (a manifest is saved, and a report
 * written, in output order; a rerun decides its photos in order, a few
 * threads apart), so the file is read a window at a time, large when the
 * next line is near the last, small when it jumps. The lock is not held
 * while a window is read from the file: a rerun's threads waited on each
 * other's reads (a tenth of deciding), so each reads into bytes of its own
 * and puts them in a window after, unless another thread's read has
 * brought the line meanwhile. */
static gboolean
about_file_read_line(gal_about_file *f, gint64 at, GString *line)
{
    gboolean found = FALSE, near;
    char *read_into = NULL;     /* bytes read outside the lock */

    g_string_truncate(line, 0);
    pthread_mutex_lock(&f->lock);
    for (;;) {
        about_window *win = window_for(f, at, &near);
        gint64 end = win->at + (gint64) win->len;
        gsize size = near || line->len ? ABOUT_WINDOW : ABOUT_WINDOW / 16;
        ssize_t n;

        win->used = ++f->clock;
        if (win->bytes && at >= win->at && at < end) {
            const char *from = win->bytes + (at - win->at);
            const char *nl = memchr(from, '\n', (gsize) (end - at));

            g_string_append_len(line, from, nl ? nl - from : end - at);
            if (nl) {
                found = TRUE;
                break;
            }
            at = end;   /* a line longer than the window: read on */
            continue;
        }
        if (!read_into)
            read_into = g_steal_pointer(&f->spare);
        pthread_mutex_unlock(&f->lock);
        if (!read_into)
            read_into = g_malloc(ABOUT_WINDOW);
        do
            n = pread(f->fd, read_into, size, at);
        while (n < 0 && errno == EINTR);
        pthread_mutex_lock(&f->lock);
        if (n <= 0) {
            /* The end of the file: the last line may have no newline,
             * where the file ended when it was read (not cut since). */
            found = n == 0 && line->len > 0 && at == f->size;
            break;
        }
        /* The window for it now (another thread's read may have given
         * one): these bytes go in it, and its old ones are the next read's. */
        win = window_for(f, at, &near);
        if (win->bytes && at >= win->at && at < win->at + (gint64) win->len)
            continue;
        {
            char *old = win->bytes;

            win->bytes = read_into;
            read_into = old;
        }
        win->at = at;
        win->len = (gsize) n;
    }
    /* Kept: a reader alone goes through the file with two buffers, not
     * one allocated (and given back to the system) for every read. */
    if (!f->spare)
        f->spare = g_steal_pointer(&read_into);
    pthread_mutex_unlock(&f->lock);
    g_free(read_into);
    return found;
}

gal_about_file *
gal__about_file_ref(gal_about_file *f)
{
    return g_atomic_rc_box_acquire(f);
}

gboolean
gal__about_file_line(gal_about_file *f, gint64 at, GString *line)
{
    return about_file_read_line(f, at, line);
}

/* Is this an about line's field the manifest keeps ("key=value", a key of
 * lower-case letters and _)? The report types each value again, so nothing
 * here reaches it as is. Only the key is looked at, so the field may run on
 * into the rest of its line (parse_plain_about's are not cut out). */
gboolean
gal__about_field_kept(const char *field)
{
    const char *key_end = field;

    while ((*key_end >= 'a' && *key_end <= 'z') || *key_end == '_')
        key_end++;
    return key_end != field && *key_end == '=';
}

char **
gal__about_fields(const gal_about *about)
{
    g_autoptr(GString) line = NULL;
    char *fields[GAL_FIELDS_MAX + 1];
    GPtrArray *kept;
    int n;

    if (!about)
        return NULL;
    if (!about->file)
        return g_strdupv((char **) about->fields);
    line = g_string_sized_new(1024);
    /* The file changed under the run (it is not the run's to change):
     * what it says there now is as untrusted as on loading, or nothing. */
    if (!about_file_read_line(about->file, about->line_at, line) ||
        !g_str_has_prefix(line->str, "about\t") || (n = gal__fields_split(line->str, fields)) < 3)
        return NULL;
    kept = g_ptr_array_sized_new((guint) n);
    for (int i = 2; i < n; i++)
        if (gal__about_field_kept(fields[i]))
            g_ptr_array_add(kept, g_strdup(fields[i]));
    g_ptr_array_add(kept, NULL);
    return (char **) g_ptr_array_free(kept, FALSE);
}

char **
gal_photo_about(const gal_photo_result *photo)
{
    return gal__about_fields(photo->about);
}

const char *
gal__about_verbatim(const gal_about *about, GString *line)
{
    const char *tab;

    if (!about || !about->file || !about->verbatim ||
        !about_file_read_line(about->file, about->line_at, line) ||
        !g_str_has_prefix(line->str, "about\t") ||
        !(tab = strchr(line->str + strlen("about\t"), '\t')))
        return NULL;
    return tab;
}
