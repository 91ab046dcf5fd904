/* manifest_write.c: a manifest's text (manifest.h), records sorted by
 * output, and its saving: written a chunk at a time, atomically, and only
 * when it differs from the file there. manifest.c reads it. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "digest.h"
#include "fsio.h"
#include "manifest.h"

/* Fields are tab-separated; a tab, newline, carriage return or backslash
 * inside one is written as \t, \n, \r or \\. */
void
gal__manifest_append_field(GString *out, const char *text)
{
    const char *p = text ? text : "";

    g_string_append_c(out, '\t');
    /* A run of plain characters at a time: most fields have no escape. */
    for (;;) {
        size_t plain = strcspn(p, "\t\n\r\\");

        g_string_append_len(out, p, (gssize) plain);
        p += plain;
        if (!*p)
            break;
        g_string_append_c(out, '\\');
        g_string_append_c(out, *p == '\t' ? 't' : *p == '\n' ? 'n' : *p == '\r' ? 'r' : '\\');
        p++;
    }
}

/* "\t" and the number in decimal: by hand, as printf's machinery was
 * a tenth of a save (six numbers a record). */
static void
append_int(GString *out, gint64 v)
{
    char digits[24], *at = digits + sizeof(digits);
    guint64 u = v < 0 ? -(guint64) v : (guint64) v;

    do
        *--at = (char) ('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--at = '-';
    *--at = '\t';
    g_string_append_len(out, at, digits + sizeof(digits) - at);
}

/* An entry to sort by its output, with the name's first 16 bytes beside
 * it as two big-endian numbers: most comparisons end there, without
 * reaching into a record elsewhere in memory (sorting a million records
 * by strcmp alone was a twentieth of a merge). Numbers compare as the
 * bytes do, a shorter name padded with zeros as its end does. */
typedef struct {
    guint64 head[2];
    gal_manifest_entry *e;
} sort_slot;

static sort_slot
sort_slot_of(gal_manifest_entry *e)
{
    sort_slot slot = { { 0, 0 }, e };
    const unsigned char *name = (const unsigned char *) e->output;
    int at = 0;

    for (int word = 0; word < 2; word++)
        for (int b = 0; b < 8; b++) {
            slot.head[word] = slot.head[word] << 8 | name[at];
            at += name[at] != 0;
        }
    return slot;
}

static int
compare_slots(gconstpointer a, gconstpointer b)
{
    const sort_slot *x = a, *y = b;

    for (int word = 0; word < 2; word++)
        if (x->head[word] != y->head[word])
            return x->head[word] < y->head[word] ? -1 : 1;
    /* Alike so far: a name that ended there is equal or shorter. */
    if ((x->head[1] & 0xff) == 0)
        return strcmp(x->e->output, y->e->output);
    return strcmp(x->e->output + 16, y->e->output + 16);
}

/* Records sorted in two halves, the second on a thread of its own, and
 * emitted by walking both: sorting a million on one core was a
 * twentieth of a merge, with the other core idle. Fewer are sorted in
 * one run: a thread is not worth it. */
#define SORT_SPLIT_MIN (1 << 14)

typedef struct {
    sort_slot *slots;
    size_t n;
} slot_run;

static gpointer
sort_run_thread(gpointer data)
{
    slot_run *run = data;

    qsort(run->slots, run->n, sizeof *run->slots, compare_slots);
    return NULL;
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Where manifest text goes: kept whole (fd -1), or written to `fd` a
 * chunk at a time, so that a manifest of a million entries is never held
 * whole to be saved. Each chunk is compared with the same bytes of the
 * manifest already there (`before_fd`, -1: none), read alongside, so that
 * a save that changes nothing is told without hashing either file (a
 * SHA-256 of both was a sixth of a merge's time). */
typedef struct {
    GString *buf;
    int fd;
    int before_fd;
    gboolean differs;  /* from the manifest before (or there was none) */
    int write_errno;   /* a write failed */
    char *before;      /* room for a chunk of it */
    gsize before_size;
    /* A manifest of more than a chunk: each full chunk is compared and
     * written on a thread of its own while the next is made (the kernel's
     * copy of a million records' 700 MB was a second of a merge). The
     * fields above but `buf` are then that thread's until it is joined. */
    GThread *writer;
    /* Two chunks in all: the one made, and the one written (`pending`,
     * then `spare` once written). pthread's lock, not GLib's, so that
     * ThreadSanitizer sees it (tests/sanitizers/threads). */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    GString *pending, *spare;
    gboolean done;
} text_sink;

/* Read exactly `len` bytes of `fd` into `data`: FALSE when it has fewer
 * or cannot be read. */
static gboolean
read_exactly(int fd, char *data, gsize len)
{
    while (len > 0) {
        ssize_t n = read(fd, data, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return FALSE;
        data += n;
        len -= (gsize) n;
    }
    return TRUE;
}

static void
sink_compare(text_sink *s, const GString *chunk)
{
    if (s->differs || chunk->len == 0)
        return;
    if (s->before_size < chunk->len) {
        s->before_size = chunk->len;
        s->before = g_realloc(s->before, s->before_size);
    }
    s->differs = !read_exactly(s->before_fd, s->before, chunk->len) ||
        memcmp(s->before, chunk->str, chunk->len) != 0;
}

static void
sink_write(text_sink *s, GString *chunk)
{
    sink_compare(s, chunk);
    if (!s->write_errno && gal__write_all(s->fd, chunk->str, chunk->len) != 0)
        s->write_errno = errno;
    g_string_truncate(chunk, 0);
}

static gpointer
sink_writer_thread(gpointer data)
{
    text_sink *s = data;

    pthread_mutex_lock(&s->lock);
    for (;;) {
        GString *chunk;

        while (!s->pending && !s->done)
            pthread_cond_wait(&s->changed, &s->lock);
        if (!(chunk = g_steal_pointer(&s->pending)))
            break;
        pthread_mutex_unlock(&s->lock);
        sink_write(s, chunk);
        pthread_mutex_lock(&s->lock);
        s->spare = chunk;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Wait for the chunk being written: the writer idle, `spare` back. */
static GString *
sink_take_spare(text_sink *s)
{
    while (!s->spare)
        pthread_cond_wait(&s->changed, &s->lock);
    return g_steal_pointer(&s->spare);
}

/* A full chunk made: to the writer, and the other one to fill. */
static void
sink_flush(text_sink *s)
{
    GString *next;

    if (s->fd < 0 || s->buf->len == 0)
        return;
    if (!s->writer) {
        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->changed, NULL);
        s->spare = g_string_sized_new(s->buf->allocated_len);
        s->writer = g_thread_new("gallop-save", sink_writer_thread, s);
    }
    pthread_mutex_lock(&s->lock);
    next = sink_take_spare(s);
    s->pending = s->buf;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    s->buf = next;
}

/* The last chunk written, the writer (if any) stopped; `buf` freed. */
static void
sink_finish(text_sink *s)
{
    if (!s->writer) {
        if (s->fd >= 0 && s->buf->len)
            sink_write(s, s->buf);
        g_string_free(s->buf, TRUE);
        return;
    }
    pthread_mutex_lock(&s->lock);
    g_string_free(sink_take_spare(s), TRUE);
    s->pending = s->buf;
    s->done = TRUE;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    g_thread_join(s->writer);
    g_string_free(s->spare, TRUE);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
}

/* A record's about line: the fields in memory; or, still in the file they
 * were read from, as they are there (most are) or read anew. */
static void
append_about(GString *out, const gal_manifest_entry *e, GString *line)
{
    const char *const *fields = gal__about_in_memory(e->about);
    g_auto(GStrv) read = NULL;
    const char *verbatim = NULL;

    if (!fields && !(verbatim = gal__about_verbatim(e->about, line)))
        fields = (const char *const *) (read = gal__about_fields(e->about));
    if (!verbatim && (!fields || !fields[0]))
        return;
    g_string_append(out, "about");
    gal__manifest_append_field(out, e->output);
    if (verbatim)
        g_string_append(out, verbatim);
    for (int a = 0; !verbatim && fields[a]; a++)
        gal__manifest_append_field(out, fields[a]);
    g_string_append_c(out, '\n');
}

/* A record's line (and its dependencies'), from its fields. */
static void
append_record(GString *out, const gal_manifest_entry *e)
{
    const gal_record_tail *t = e->tail;
    char hex[GAL_SHA256_HEX_LEN + 1];

    g_string_append(out, e->item ? "item" : e->sheet ? "sheet" : "output");
    gal__manifest_append_field(out, e->output);
    gal__manifest_append_field(out, e->input);
    append_int(out, t->in_size);
    append_int(out, t->in_mtime_ns);
    gal__manifest_append_field(out, gal__digest_hex(&t->in_digest, hex));
    gal__manifest_append_field(out, t->preset_digest);
    gal__manifest_append_field(out, t->version);
    append_int(out, t->out_size);
    append_int(out, t->out_mtime_ns);
    gal__manifest_append_field(out, gal__digest_hex(&t->out_sha256, hex));
    append_int(out, t->width);
    append_int(out, t->height);
    gal__manifest_append_field(out, t->name_key);
    if (t->caption || t->caption_source || e->item) {
        gal__manifest_append_field(out, t->caption);
        gal__manifest_append_field(out, t->caption_source);
        g_string_append(out, t->caption_cut ? "\t1" : "\t0");
    }
    for (int f = 0; e->item && f < GAL_ITEM_FACTS; f++)
        gal__manifest_append_field(out, t->facts ? t->facts[f] : NULL);
    g_string_append_c(out, '\n');
    for (guint d = 0; t->deps && d < t->deps->len; d++) {
        const gal_dep_record *dep = t->deps->pdata[d];

        g_string_append(out, "depends");
        gal__manifest_append_field(out, e->output);
        gal__manifest_append_field(out, dep->path);
        append_int(out, dep->exists ? dep->size : -1);
        append_int(out, dep->mtime_ns);
        gal__manifest_append_field(out, dep->exists ? dep->digest : "-");
        g_string_append_c(out, '\n');
    }
}

static void
emit_entries(gal_manifest *m, text_sink *s)
{
    GString *out = s->buf;
    guint n = g_hash_table_size(m->entries), at = 0;
    g_autofree sort_slot *entries = g_new(sort_slot, MAX(1, n));
    gboolean split = n >= SORT_SPLIT_MIN;
    slot_run runs[2] = { { entries, split ? n / 2 : n }, { entries + n / 2, split ? n - n / 2 : 0 } };
    GThread *sorter;
    size_t a = 0, b = 0;
    g_autoptr(GHashTable) used = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GPtrArray) digests = g_ptr_array_new();
    g_autoptr(GString) about_line = g_string_new(NULL);
    g_autoptr(GString) record_line = g_string_new(NULL);
    const char *last_digest = NULL;
    GHashTableIter it;
    gpointer value;

    g_string_append(out, GAL_MANIFEST_MAGIC "\n");
    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        gal_manifest_entry *e = value;
        const char *digest = gal__record_preset_digest(e);

        entries[at++] = sort_slot_of(e);
        /* The records' digests are shared strings: one a run, nearly always. */
        if (digest != last_digest && !g_hash_table_contains(used, digest)) {
            g_hash_table_add(used, (gpointer) digest);
            g_ptr_array_add(digests, (gpointer) digest);
        }
        last_digest = digest;
    }
    sorter = split ? g_thread_new("gallop-sort", sort_run_thread, &runs[1]) : NULL;
    sort_run_thread(&runs[0]);
    if (sorter)
        g_thread_join(sorter);
    g_ptr_array_sort(digests, compare_strings);
    /* Only the presets some entry still refers to. */
    for (guint i = 0; i < digests->len; i++) {
        GPtrArray *keys = g_hash_table_lookup(m->presets, digests->pdata[i]);

        for (guint k = 0; keys && k < keys->len; k++) {
            g_string_append(out, "preset");
            gal__manifest_append_field(out, digests->pdata[i]);
            gal__manifest_append_field(out, keys->pdata[k]);
            g_string_append_c(out, '\n');
        }
    }
    /* The two runs' records in order: no two have one name. */
    while (a < runs[0].n || b < runs[1].n) {
        gal_manifest_entry *e = b == runs[1].n ||
                (a < runs[0].n && compare_slots(&runs[0].slots[a], &runs[1].slots[b]) < 0)
            ? runs[0].slots[a++].e
            : runs[1].slots[b++].e;

        /* A record left in its file, as it is there (nearly all of a
         * merge's); one whose file no longer holds it, not at all: its
         * photo is made again. */
        if (gal__record_verbatim(e, record_line)) {
            g_string_append_len(out, record_line->str, (gssize) record_line->len);
            g_string_append_c(out, '\n');
        }
        else if (e->lost)
            continue;
        else
            append_record(out, e);
        if (e->about)
            append_about(out, e, about_line);
        if (out->len >= 1 << 20) {
            sink_flush(s);
            out = s->buf;
        }
    }
}

char *
gal__manifest_text(gal_manifest *m)
{
    text_sink s = { .buf = g_string_new(NULL), .fd = -1, .before_fd = -1, .differs = TRUE };

    emit_entries(m, &s);
    return g_string_free(s.buf, FALSE);
}

int
gal__manifest_save(gal_manifest *m, gal_error *err)
{
    return gal__manifest_save_with(m, NULL, TRUE, err);
}

/* The room is made a step at a time, so that a save that comes before it
 * is all made waits for one step at most. */
#define AHEAD_STEP ((gint64) 16 << 20)

struct gal_manifest_ahead {
    gal_atomic file;
    gint64 bytes;
    gint stop;          /* atomic: the save has come */
    GThread *thread;
};

static gpointer
make_room_thread(gpointer data)
{
    struct gal_manifest_ahead *ahead = data;

    /* Room past the end (the file's size stays what is written). A
     * filesystem that cannot (EOPNOTSUPP: some NFS) has the save
     * allocate as it writes, as always. */
    for (gint64 at = 0; at < ahead->bytes && !g_atomic_int_get(&ahead->stop); at += AHEAD_STEP)
        if (fallocate(ahead->file.fd, FALLOC_FL_KEEP_SIZE, (off_t) at,
                (off_t) MIN(AHEAD_STEP, ahead->bytes - at)) != 0)
            break;
    return NULL;
}

void
gal__manifest_save_ahead(gal_manifest *m, gint64 bytes)
{
    struct gal_manifest_ahead *ahead;
    gal_error err = { 0 };
    int dir_fd;

    if (m->ahead || bytes <= 0 ||
        (dir_fd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return;
    ahead = g_new0(struct gal_manifest_ahead, 1);
    if (gal__atomic_begin(dir_fd, m->dir, m->name, NULL, &ahead->file, &err) != 0) {
        close(dir_fd);
        g_free(ahead);
        return;
    }
    close(dir_fd);
    ahead->bytes = bytes;
    ahead->thread = g_thread_new("gallop-room", make_room_thread, ahead);
    m->ahead = ahead;
}

/* The file begun ahead, its room-making stopped; FALSE: none. */
static gboolean
ahead_take(gal_manifest *m, gal_atomic *a)
{
    struct gal_manifest_ahead *ahead = g_steal_pointer(&m->ahead);

    if (!ahead)
        return FALSE;
    g_atomic_int_set(&ahead->stop, 1);
    g_thread_join(ahead->thread);
    *a = ahead->file;
    g_free(ahead);
    return TRUE;
}

void
gal__manifest_ahead_drop(gal_manifest *m)
{
    gal_atomic a;

    if (ahead_take(m, &a))
        gal__atomic_abort(&a);
}

int
gal__manifest_save_with(gal_manifest *m, const char *extra, gboolean durable, gal_error *err)
{
    text_sink s = { .buf = g_string_sized_new(1 << 20), .fd = -1, .before_fd = -1 };
    char last;
    gal_atomic a;
    struct stat st;
    gboolean begun_ahead;
    int dir_fd, failed;

    if (g_mkdir_with_parents(m->dir, 0777) != 0 ||
        (dir_fd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        g_string_free(s.buf, TRUE);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot create folder %s: %s",
            m->dir, g_strerror(errno));
    }
    /* What is there, read alongside to compare (sink_compare). */
    s.before_fd = gal__open_beneath(dir_fd, m->name);
    s.differs = s.before_fd < 0;
    if (g_hash_table_size(m->entries) == 0 && s.before_fd < 0 && !extra) {
        gal__manifest_ahead_drop(m);
        g_string_free(s.buf, TRUE);
        close(dir_fd);
        return 0;
    }
    if (!(begun_ahead = ahead_take(m, &a)) &&
        gal__atomic_begin(dir_fd, m->dir, m->name, NULL, &a, err)) {
        g_string_free(s.buf, TRUE);
        if (s.before_fd >= 0)
            close(s.before_fd);
        close(dir_fd);
        return -1;
    }
    s.fd = a.fd;
    emit_entries(m, &s);
    if (extra)
        g_string_append(s.buf, extra);
    sink_finish(&s);
    g_free(s.before);
    /* The same bytes, and no more of them before. */
    if (!s.differs)
        s.differs = read(s.before_fd, &last, 1) != 0;
    if (s.before_fd >= 0)
        close(s.before_fd);
    close(dir_fd);
    /* The room made ahead and not written goes: the file's size is what
     * was written (FALLOC_FL_KEEP_SIZE), the room past it is cut off. */
    if (begun_ahead && !s.write_errno && fstat(a.fd, &st) == 0 &&
        ftruncate(a.fd, st.st_size) != 0)
        s.write_errno = errno;
    if (s.write_errno) {
        gal__atomic_abort(&a);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s/%s: %s", m->dir,
            m->name, g_strerror(s.write_errno));
    }
    /* A rerun that changed nothing leaves the folder as it was, manifest
     * included: nothing for backups or sync tools to pick up. */
    if (!s.differs) {
        gal__atomic_abort(&a);
        return 0;
    }
    /* Durable: the manifest is what says which outputs are complete. */
    failed = gal__atomic_commit(&a, durable, err);
    return failed;
}
