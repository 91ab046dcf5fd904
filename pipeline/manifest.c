/* manifest.c: what a run remembers in its output folder, so that the next
 * run rebuilds only what changed: the records (each one's own memory and
 * tail: manifest_record.c), and the file read (manifest_write.c writes
 * it). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "digest.h"
#include "fields.h"
#include "fsio.h"
#include "limit.h"
#include "manifest.h"
#include "manifest_record.h"

static void
keys_unref(gpointer p)
{
    g_ptr_array_unref(p);
}

/* The records' table is a set of records keyed by their output (a table
 * of output -> record held the output's pointer twice: 8 bytes a slot, 17
 * MB for a million records in 2^21 slots). */
static guint
record_hash(gconstpointer record)
{
    return g_str_hash(((const gal_manifest_entry *) record)->output);
}

static gboolean
record_equal(gconstpointer a, gconstpointer b)
{
    return strcmp(((const gal_manifest_entry *) a)->output,
               ((const gal_manifest_entry *) b)->output) == 0;
}

gal_manifest *
gal__manifest_new(const char *dir)
{
    gal_manifest *m = g_new0(gal_manifest, 1);

    m->dir = g_canonicalize_filename(dir, NULL);
    m->name = g_strdup(GAL_MANIFEST_NAME);
    m->entries = g_hash_table_new_full(record_hash, record_equal, NULL,
        (GDestroyNotify) gal__manifest_entry_free);
    m->presets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, keys_unref);
    m->shared = g_hash_table_new_full(g_str_hash, g_str_equal,
        (GDestroyNotify) g_ref_string_release, NULL);
    m->warnings = g_ptr_array_new_with_free_func(g_free);
    return m;
}

void
gal__manifest_free(gal_manifest *m)
{
    if (!m)
        return;
    gal__manifest_ahead_drop(m);
    g_hash_table_unref(m->entries);
    g_hash_table_unref(m->presets);
    g_hash_table_unref(m->shared);
    g_ptr_array_unref(m->warnings);
    g_free(m->name);
    g_free(m->dir);
    g_free(m);
}

/* The manifest's shared string for `text`: a new reference. */
static char *
shared_string(gal_manifest *m, const char *text)
{
    char *s;

    text = text ? text : "";
    /* Nearly every record has the same two: hashing 64 hex digits twice a
     * record was a twentieth of a merge. */
    for (int r = 0; r < 2; r++)
        if (m->recent[r] && strcmp(m->recent[r], text) == 0)
            return g_ref_string_acquire(m->recent[r]);
    if (!(s = g_hash_table_lookup(m->shared, text))) {
        s = g_ref_string_new(text);
        g_hash_table_add(m->shared, s);
    }
    m->recent[1] = m->recent[0];
    m->recent[0] = s;
    return g_ref_string_acquire(s);
}

/* `*s` becomes the manifest's shared string of its value. */
static void
share(gal_manifest *m, char **s)
{
    char *shared;

    /* Read from this manifest's file: shared already. */
    if (*s && (*s == m->recent[0] || *s == m->recent[1] ||
                  g_hash_table_lookup(m->shared, *s) == *s))
        return;
    shared = shared_string(m, *s);
    if (*s)
        g_ref_string_release(*s);
    *s = shared;
}

void
gal__manifest_put(gal_manifest *m, gal_manifest_entry *e)
{
    if (e->tail_in_file)
        share(m, gal__record_in_file_preset(e));
    if (e->tail) {
        share(m, &e->tail->preset_digest);
        share(m, &e->tail->version);
    }
    /* The record is its own key: the table stays a set. */
    g_hash_table_add(m->entries, e);
}

gal_manifest_entry *
gal__manifest_find(const gal_manifest *m, const char *output)
{
    const gal_manifest_entry probe = { .output = (char *) output };

    /* GLib hashes the name even when there is nothing to find: a merge's
     * parts, once their records joined the manifest, are asked a million. */
    if (g_hash_table_size(m->entries) == 0)
        return NULL;
    return g_hash_table_lookup(m->entries, &probe);
}

gboolean
gal__manifest_remove(gal_manifest *m, const char *output)
{
    const gal_manifest_entry probe = { .output = (char *) output };

    return g_hash_table_remove(m->entries, &probe);
}

gboolean
gal__manifest_steal(gal_manifest *m, const char *output)
{
    const gal_manifest_entry probe = { .output = (char *) output };

    return g_hash_table_steal(m->entries, &probe);
}

void
gal__manifest_put_keys(gal_manifest *m, const char *digest, GPtrArray *keys)
{
    if (!g_hash_table_contains(m->presets, digest))
        g_hash_table_insert(m->presets, g_strdup(digest), g_ptr_array_ref(keys));
}

/* What a photo's output took from a captions table or export: "row:" and
 * 16 hex digits (captions.h). */
static gboolean
is_row_digest(const char *text)
{
    if (strlen(text) != 20 || strncmp(text, "row:", 4) != 0)
        return FALSE;
    for (const char *p = text + 4; *p; p++)
        if (!g_ascii_isxdigit(*p))
            return FALSE;
    return TRUE;
}

/* Lines are parsed one at a time, as they are read: a manifest of a
 * million entries is never held whole besides what it says. */
typedef struct {
    gal_manifest *m;
    gal_manifest_line_fn other;
    void *user;
    gboolean records;  /* FALSE: only lines of other kinds are parsed */
    int number;        /* of the line being parsed */
    gboolean foreign;  /* the first line was not the magic: nothing is taken */
    /* The file read, and where the line parsed starts in it; NULL: text
     * given, or too many files open (about lines are then kept in memory). */
    gal_about_file *file;
    gint64 line_at;
    /* The record last put: an about line follows its record's, so this
     * is nearly always the one it is for, found without hashing its name
     * (a million lookups of a merge's parts). Valid while parsing: a
     * record is only freed by another of its name, which becomes this. */
    gal_manifest_entry *last_put;
} line_parser;

/* `plain`: the line would be written back as it is (round_trips). */
static void
parse_entry(line_parser *p, char **f, int n, bool plain)
{
    gal_manifest *m = p->m;
    gal_record_tail t = { 0 };
    gal_manifest_entry *e;
    /* The record before's preset digest was checked when it was put. */
    const char *checked = p->last_put ? gal__record_preset_digest(p->last_put) : NULL;

    if (m->tails_in_file && p->file && plain && gal__record_stays_in_file(f, n, checked)) {
        e = gal__record_in_file_new(p->file, p->line_at, f[1], f[2], shared_string(m, f[6]));
        gal__manifest_put(m, e);
        p->last_put = e;
        return;
    }
    if (!gal__record_fields_read(f, n, &t, checked))
        return;
    e = gal__record_whole_new(f, n, &t);
    e->tail->preset_digest = shared_string(m, f[6]);
    e->tail->version = shared_string(m, f[7]);
    gal__manifest_put(m, e);
    p->last_put = e;
}

/* The record of output `name`, for its about line. */
static gal_manifest_entry *
about_record(const line_parser *p, const char *name)
{
    return p->last_put && strcmp(p->last_put->output, name) == 0
        ? p->last_put
        : gal__manifest_find(p->m, name);
}


/* An output's "key=value" facts for the report: only the fields that
 * look so (about_field_kept). */
static void
parse_about(line_parser *p, char **f, int n)
{
    gal_manifest_entry *e;
    GPtrArray *about;

    if (n < 3 || !(e = about_record(p, f[1])) || e->sheet || e->item)
        return;
    about = g_ptr_array_sized_new(n);
    for (int i = 2; i < n; i++)
        if (gal__about_field_kept(f[i]))
            g_ptr_array_add(about, f[i]);
    gal__about_unref(e->about);
    /* A line from a file comes here only with an escape or a carriage
     * return in it (parse_plain_about takes the others): never copied as
     * it is, since "\x" reads as "x" and is written so. */
    e->about = p->file && about->len
        ? gal__about_on_file(p->file, p->line_at, false)
        : gal__about_new((const char *const *) about->pdata, about->len);
    g_ptr_array_unref(about);
}

/* An about line without an escape, read from a file (nearly all are):
 * what parse_about takes from it, told without splitting and unescaping
 * each field, which was a tenth of loading a manifest. FALSE: not such a
 * line, for parse_line. */
static gboolean
parse_plain_about(line_parser *p, char *line)
{
    gal_manifest_entry *e;
    char *tab, *name = line + strlen("about\t");
    bool all_kept = true;
    int n = 2, kept = 0;

    if (!p->file || strncmp(line, "about\t", strlen("about\t")) != 0 || strchr(line, '\\') ||
        strchr(line, '\r'))
        return FALSE;
    if (!(tab = strchr(name, '\t')))
        return TRUE;
    *tab = '\0';
    for (const char *field = tab + 1;; field = tab + 1) {
        /* As split_line refuses a line of too many fields. */
        if (++n > GAL_FIELDS_MAX)
            return TRUE;
        if (gal__about_field_kept(field))
            kept++;
        else
            all_kept = false;
        if (!(tab = strchr(field, '\t')))
            break;
    }
    if (!(e = about_record(p, name)) || e->sheet || e->item)
        return TRUE;
    gal__about_unref(e->about);
    e->about = kept ? gal__about_on_file(p->file, p->line_at, all_kept) : gal__about_new(NULL, 0);
    return TRUE;
}

static void
parse_dep(gal_manifest *m, char **f, int n)
{
    gal_manifest_entry *e;
    gint64 size, mtime;

    if (n != 6 || !(e = gal__manifest_find(m, f[1])) ||
        !gal__manifest_int(f[3], &size) || !gal__manifest_int(f[4], &mtime) ||
        (size >= 0 && !gal__is_content_digest(f[5]) && !is_row_digest(f[5])))
        return;
    gal__manifest_add_dep(e, f[2], size >= 0, size, mtime, size >= 0 ? f[5] : NULL);
}

/* Add a warning about line `line` of the manifest. */
static void
warn(gal_manifest *m, int line, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static void
warn(gal_manifest *m, int line, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_ptr_array_add(m->warnings, line > 0
            ? g_strdup_printf("%s/%s:%d: %s", m->dir, m->name, line, msg)
            : g_strdup_printf("%s/%s: %s", m->dir, m->name, msg));
}


/* Is `line` one of the manifest's own kinds (told before it is split)? */
static gboolean
is_record_line(const char *line)
{
    static const char *const kinds[] = { "output\t", "sheet\t", "item\t", "depends\t",
        "about\t", "preset\t" };

    for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++)
        if (strncmp(line, kinds[k], strlen(kinds[k])) == 0)
            return TRUE;
    return FALSE;
}

/* Would `line` be written back as it is, once split and unescaped? Its
 * escapes are those gallop writes (a name key's tabs are "\t"): "\q"
 * reads as "q" and is written so; a carriage return is dropped. */
static gboolean
round_trips(const char *line)
{
    /* One pass: a million lines were two. */
    for (const char *p = line + strcspn(line, "\\\r"); *p; p += 2 + strcspn(p + 2, "\\\r"))
        if (*p == '\r' || !p[1] || !strchr("tnr\\", p[1]))
            return FALSE;
    return TRUE;
}

/* One line, without its newline (modified: split in place). */
static void
parse_line(line_parser *p, char *line)
{
    gal_manifest *m = p->m;
    char *fields[GAL_FIELDS_MAX + 1];
    char **f = fields;
    bool plain;
    int n;

    if (++p->number == 1) {
        /* Format 1 differs only in its digests' kind (digest.h). */
        p->foreign = strcmp(line, GAL_MANIFEST_MAGIC) != 0 &&
            strcmp(line, GAL_MANIFEST_MAGIC_V1) != 0;
        return;
    }
    if (p->foreign || !*line || (!p->records && is_record_line(line)) ||
        parse_plain_about(p, line))
        return;
    plain = m->tails_in_file && p->file && round_trips(line);
    if ((n = gal__fields_split(line, fields)) < 1)
        return;
    if (strcmp(f[0], "output") == 0 || strcmp(f[0], "sheet") == 0 ||
        strcmp(f[0], "item") == 0) {
        /* The manifest is untrusted (a CI cache, a shared folder): what
         * it names as an output is only ever used beneath the output
         * folder, so anything else is refused here, before --prune or
         * a rebuild could act on it. */
        if (n > 1 && (!gal__path_is_beneath(f[1]) || g_str_has_suffix(f[1], GAL_TMP_SUFFIX) ||
                         g_str_has_prefix(f[1], GAL_MANIFEST_PREFIX)))
            warn(m, p->number, "entry \"%s\" refused: not a relative path beneath the output "
                "folder", f[1]);
        else
            parse_entry(p, f, n, plain);
    }
    else if (strcmp(f[0], "depends") == 0)
        parse_dep(m, f, n);
    else if (strcmp(f[0], "about") == 0)
        parse_about(p, f, n);
    else if (strcmp(f[0], "preset") == 0) {
        GPtrArray *keys;

        if (n != 3 || !gal__is_sha256_hex(f[1]))
            return;
        if (!(keys = g_hash_table_lookup(m->presets, f[1]))) {
            keys = g_ptr_array_new_with_free_func(g_free);
            g_hash_table_insert(m->presets, g_strdup(f[1]), keys);
        }
        g_ptr_array_add(keys, g_strdup(f[2]));
    }
    else if (p->other)
        p->other(f, n, p->number, p->line_at, p->user);
}

void
gal__manifest_parse(gal_manifest *m, const char *text, gal_manifest_line_fn other, void *user)
{
    line_parser p = { m, other, user, TRUE, 0, FALSE, NULL, 0, NULL };
    GString *line = g_string_sized_new(1024);

    for (const char *at = text; *at && !p.foreign;) {
        const char *end = strchr(at, '\n');
        gsize len = end ? (gsize) (end - at) : strlen(at);

        g_string_truncate(line, 0);
        g_string_append_len(line, at, (gssize) len);
        p.line_at = at - text;
        parse_line(&p, line->str);
        at = end ? end + 1 : at + len;
    }
    g_string_free(line, TRUE);
}

/* Forget what a manifest said (it turned out unusable part way). */
static void
manifest_clear(gal_manifest *m)
{
    g_hash_table_remove_all(m->entries);
    g_hash_table_remove_all(m->presets);
    g_hash_table_remove_all(m->shared);
    m->recent[0] = m->recent[1] = NULL;
}

/* Read and parse the manifest file beneath the output folder `dir_fd`, a
 * megabyte at a time: never through a link, never more than the limit.
 * A file that cannot be used is as if empty, with a warning saying why. */
static void
read_manifest(gal_manifest *m, int dir_fd, gal_manifest_line_fn other, void *user,
    gboolean records, gint64 from, int from_line)
{
    line_parser p = { m, other, user, records, MAX(from_line, 1) - 1, FALSE, NULL, from, NULL };
    gint64 limit = gal__limits.manifest_bytes, total = from;
    GString *pending = g_string_sized_new(1 << 16);
    enum { CHUNK = 1 << 20 };
    g_autofree char *chunk = NULL;
    const char *problem = NULL;
    struct stat st;
    int fd;

    if ((fd = gal__open_beneath(dir_fd, m->name)) < 0) {
        if (errno != ENOENT && gal__stat_beneath(dir_fd, m->name, &st) == 0)
            warn(m, 0, "%s: ignored, every output is checked again",
                S_ISLNK(st.st_mode) ? "a symbolic link, not a file" : "not a regular file");
        g_string_free(pending, TRUE);
        return;
    }
    if (fstat(fd, &st) == 0 && st.st_size > limit) {
        warn(m, 0, "larger than the %" G_GINT64_FORMAT " MiB limit: ignored", limit >> 20);
        close(fd);
        g_string_free(pending, TRUE);
        return;
    }
    if (from > 0 && lseek(fd, from, SEEK_SET) != from) {
        warn(m, 0, "cannot be read from byte %" G_GINT64_FORMAT ": ignored", from);
        close(fd);
        g_string_free(pending, TRUE);
        return;
    }
    chunk = g_malloc(CHUNK);
    if (records)
        p.file = gal__about_file_new(fd);
    while (!problem && !p.foreign) {
        ssize_t n = read(fd, chunk, CHUNK);
        char *at = chunk, *end;
        gint64 chunk_at = total;

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            problem = "cannot be read";
        else if ((total += n) > limit)
            problem = "grew past the limit while it was read";
        else if (memchr(chunk, '\0', (size_t) n))
            problem = "holds a NUL byte";
        if (problem || n <= 0)
            break;
        /* Whole lines are parsed from the chunk; the part of a line it
         * ends with waits in `pending` for the next. */
        while (!p.foreign && (end = memchr(at, '\n', (size_t) (chunk + n - at)))) {
            /* A line whole in the chunk is parsed where it is (split in
             * place, as nothing reads it again): copying each line first
             * was a second pass over a merge's gigabyte of parts. */
            if (pending->len) {
                g_string_append_len(pending, at, end - at);
                parse_line(&p, pending->str);
                g_string_truncate(pending, 0);
            }
            else {
                *end = '\0';
                parse_line(&p, at);
            }
            at = end + 1;
            p.line_at = chunk_at + (at - chunk);
        }
        g_string_append_len(pending, at, chunk + n - at);
    }
    if (!problem && !p.foreign && pending->len)
        parse_line(&p, pending->str);
    /* The descriptor stays open while an about line read refers to it. */
    if (p.file) {
        gal__about_file_read_to(p.file, total);
        gal__about_file_unref(p.file);
    }
    else
        close(fd);
    g_string_free(pending, TRUE);
    if (problem) {
        manifest_clear(m);
        warn(m, 0, "%s: ignored", problem);
    }
}

gal_manifest *
gal__manifest_load(const char *dir)
{
    return gal__manifest_load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, FALSE);
}

static gal_manifest *load_named(const char *dir, const char *name,
    gal_manifest_line_fn other, void *user, gboolean records, gboolean tails_in_file,
    gint64 from, int from_line);

/* A run's or a merge's manifest, its records' tails left in the file (a
 * rerun decides each record once, then lets its tail go again). */
static gpointer
load_on_thread(gpointer dir)
{
    return load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE, TRUE, 0, 1);
}

GThread *
gal__manifest_load_begin(const char *dir)
{
    return g_thread_new("gallop-manifest", load_on_thread, (gpointer) dir);
}

gal_manifest *
gal__manifest_load_end(GThread *loading)
{
    return g_thread_join(loading);
}

static gal_manifest *
load_named(const char *dir, const char *name, gal_manifest_line_fn other, void *user,
    gboolean records, gboolean tails_in_file, gint64 from, int from_line)
{
    gal_manifest *m = gal__manifest_new(dir);
    int dir_fd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    m->tails_in_file = tails_in_file;
    g_free(m->name);
    m->name = g_strdup(name);
    /* Missing, unreadable or from another format: as if empty, so every
     * output is rebuilt; never an error. */
    if (dir_fd < 0)
        return m;
    read_manifest(m, dir_fd, other, user, records, from, from_line);
    close(dir_fd);
    return m;
}

gal_manifest *
gal__manifest_load_named(const char *dir, const char *name, gal_manifest_line_fn other,
    void *user, gboolean tails_in_file)
{
    return load_named(dir, name, other, user, TRUE, tails_in_file, 0, 1);
}

void
gal__manifest_read_others(const char *dir, const char *name, gint64 from, int from_line,
    gal_manifest_line_fn other, void *user)
{
    gal__manifest_free(load_named(dir, name, other, user, FALSE, FALSE, from, from_line));
}
