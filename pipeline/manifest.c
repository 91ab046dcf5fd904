/* manifest.c: what a run remembers in its output folder, so that the next
 * run rebuilds only what changed: the records, and the file read
 * (manifest_write.c writes it). */
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

/* ---- the manifest file ------------------------------------------------------------ */

static void
dep_free(gpointer p)
{
    gal_dep_record *d = p;

    g_free(d->path);
    g_free(d);
}

/* A record and its tail, allocated together (strings may follow). */
typedef struct {
    gal_manifest_entry head;
    gal_record_tail tail;
} record_block;

/* A record whose tail stays in its file (tail_in_file), its output and
 * input after it: about 120 bytes of a merge's million records, not 280. */
typedef struct {
    gal_manifest_entry head;
    gal_about_file *file;
    gint64 line_at;
    char *preset_digest;    /* shared, as a tail's */
} record_in_file;

gal_manifest_entry *
gal__manifest_entry_new(void)
{
    record_block *b = g_new0(record_block, 1);

    b->head.tail = &b->tail;
    return &b->head;
}

static void
ref_string_clear(char **s)
{
    if (*s)
        g_ref_string_release(g_steal_pointer(s));
}

void
gal__manifest_entry_set_recipe(gal_manifest_entry *e, const char *preset_digest,
    const char *version)
{
    ref_string_clear(&e->tail->preset_digest);
    ref_string_clear(&e->tail->version);
    e->tail->preset_digest = g_ref_string_new(preset_digest ? preset_digest : "");
    e->tail->version = g_ref_string_new(version ? version : "");
}

char **
gal__manifest_entry_facts(gal_manifest_entry *e)
{
    if (!e->tail->facts)
        e->tail->facts = g_new0(char *, GAL_ITEM_FACTS + 1);
    return e->tail->facts;
}

/* What a tail holds, let go (not the tail itself). */
static void
tail_clear(gal_record_tail *t)
{
    ref_string_clear(&t->preset_digest);
    ref_string_clear(&t->version);
    gal__shared_text_unref(t->caption);
    gal__shared_text_unref(t->caption_source);
    for (int f = 0; t->facts && f < GAL_ITEM_FACTS; f++)
        g_free(t->facts[f]);
    g_free(t->facts);
    if (t->deps)
        g_ptr_array_unref(t->deps);
}

/* The tail of a record left in its file, read: one block with its name
 * key, of one size when the key fits in TAIL_KEY_ROOM (nearly always). A
 * tail let go is kept for its thread's next read: a rerun reads and lets
 * go a million, and a malloc and a free for each showed in its time. */
#define TAIL_KEY_ROOM 128

static GPrivate spare_tail = G_PRIVATE_INIT(g_free);

static gal_record_tail *
tail_block_new(size_t key_size)
{
    gal_record_tail *t;

    if (key_size > TAIL_KEY_ROOM)
        return g_malloc0(sizeof(*t) + key_size);
    if ((t = g_private_get(&spare_tail))) {
        g_private_set(&spare_tail, NULL);
        memset(t, 0, sizeof(*t));
        return t;
    }
    return g_malloc0(sizeof(*t) + TAIL_KEY_ROOM);
}

static void
tail_block_free(gal_record_tail *t)
{
    tail_clear(t);
    if ((!t->name_key || strlen(t->name_key) < TAIL_KEY_ROOM) && !g_private_get(&spare_tail))
        g_private_set(&spare_tail, t);
    else
        g_free(t);
}

void
gal__manifest_entry_free(gal_manifest_entry *e)
{
    if (!e)
        return;
    gal__about_unref(e->about);
    if (e->tail_in_file) {
        record_in_file *r = (record_in_file *) e;

        if (e->tail)
            tail_block_free(e->tail);
        gal__about_file_unref(r->file);
        ref_string_clear(&r->preset_digest);
        g_free(r);
        return;
    }
    if (!e->strings_inline) {
        g_free(e->output);
        g_free(e->input);
        g_free(e->tail->name_key);
    }
    tail_clear(e->tail);
    g_free(e);
}

gal_manifest_entry *
gal__manifest_entry_copy(const gal_manifest_entry *e)
{
    gal_manifest_entry *c = gal__manifest_entry_new();
    gal_record_tail *tail = c->tail;

    *tail = *gal__record_tail((gal_manifest_entry *) e);
    *c = *e;
    c->tail = tail;
    c->strings_inline = false;
    c->tail_in_file = false;
    c->tail->deps = NULL;
    c->tail->facts = NULL;
    c->output = g_strdup(e->output);
    c->input = g_strdup(e->input);
    if (tail->preset_digest)
        g_ref_string_acquire(tail->preset_digest);
    if (tail->version)
        g_ref_string_acquire(tail->version);
    c->tail->name_key = g_strdup(e->tail->name_key);
    c->tail->caption = gal__shared_text_ref(e->tail->caption);
    c->tail->caption_source = gal__shared_text_ref(e->tail->caption_source);
    c->about = gal__about_ref(e->about);
    for (int f = 0; e->tail->facts && f < GAL_ITEM_FACTS; f++)
        gal__manifest_entry_facts(c)[f] = g_strdup(e->tail->facts[f]);
    for (guint d = 0; e->tail->deps && d < e->tail->deps->len; d++) {
        const gal_dep_record *dep = e->tail->deps->pdata[d];

        gal__manifest_add_dep(c, dep->path, dep->exists, dep->size, dep->mtime_ns,
            dep->digest);
    }
    return c;
}

void
gal__manifest_add_dep(gal_manifest_entry *e, const char *path, gboolean exists, gint64 size,
    gint64 mtime_ns, const char *digest)
{
    gal_dep_record *d = g_new0(gal_dep_record, 1);
    gal_record_tail *t = gal__record_tail(e);

    d->path = g_strdup(path);
    d->exists = exists;
    d->size = size;
    d->mtime_ns = mtime_ns;
    g_strlcpy(d->digest, digest ? digest : "", sizeof(d->digest));
    if (!t->deps)
        t->deps = g_ptr_array_new_with_free_func(dep_free);
    g_ptr_array_add(t->deps, d);
}

static void
keys_unref(gpointer p)
{
    g_ptr_array_unref(p);
}

gal_manifest *
gal__manifest_new(const char *dir)
{
    gal_manifest *m = g_new0(gal_manifest, 1);

    m->dir = g_canonicalize_filename(dir, NULL);
    m->name = g_strdup(GAL_MANIFEST_NAME);
    m->entries = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
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

    ref_string_clear(s);
    *s = shared;
}

void
gal__manifest_put(gal_manifest *m, gal_manifest_entry *e)
{
    if (e->tail_in_file)
        share(m, &((record_in_file *) e)->preset_digest);
    if (e->tail) {
        share(m, &e->tail->preset_digest);
        share(m, &e->tail->version);
    }
    g_hash_table_replace(m->entries, e->output, e);
}

void
gal__manifest_put_keys(gal_manifest *m, const char *digest, GPtrArray *keys)
{
    if (!g_hash_table_contains(m->presets, digest))
        g_hash_table_insert(m->presets, g_strdup(digest), g_ptr_array_ref(keys));
}

gboolean
gal__manifest_int(const char *text, gint64 *v)
{
    const char *p = text + (*text == '-');
    guint64 u = 0;
    char *end;
    int n = 0;

    /* Plain digits, as gallop writes them, read here (19 of them, as
     * every time in nanoseconds since 2001 has, while they fit: 19 digits
     * cannot overflow 64 unsigned bits); anything else (signs, spaces,
     * more digits, what does not fit) as g_ascii_strtoll reads it, so that
     * what is accepted does not change. */
    for (; p[n] >= '0' && p[n] <= '9' && n < 19; n++)
        u = u * 10 + (guint64) (p[n] - '0');
    if (n > 0 && !p[n] && u <= (guint64) G_MAXINT64) {
        *v = *text == '-' ? -(gint64) u : (gint64) u;
        return TRUE;
    }
    *v = g_ascii_strtoll(text, &end, 10);
    return end != text && !*end;
}

static gint64
parse_int(const char *text, gboolean *ok)
{
    gint64 v;

    if (!gal__manifest_int(text, &v))
        *ok = FALSE;
    return v;
}

static gboolean
is_hex64(const char *text)
{
    if (strlen(text) != 64)
        return FALSE;
    for (const char *p = text; *p; p++)
        if (!g_ascii_isxdigit(*p))
            return FALSE;
    return TRUE;
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
} line_parser;

/* The fields of a record's tail from its line's `f` (n of them), but for
 * its recipe and name key; FALSE when they are not a record's. */
static gboolean
parse_tail(char **f, int n, gal_record_tail *t)
{
    gboolean ok = TRUE;
    gboolean item = strcmp(f[0], "item") == 0;

    if ((item ? n != 17 + GAL_ITEM_FACTS : (n != 13 && n != 14 && n != 17)) || !*f[1] ||
        !is_hex64(f[6]))
        return FALSE;
    /* A digest that does not read is none: the photo's may be missing,
     * the output's is SHA-256. */
    gal__digest_from_hex(&t->in_digest, f[5]);
    gal__digest_from_hex(&t->out_sha256, f[10]);
    if ((*f[5] && !t->in_digest.len) || t->out_sha256.len != GAL_SHA256_HEX_LEN / 2)
        return FALSE;
    t->in_size = parse_int(f[3], &ok);
    t->in_mtime_ns = parse_int(f[4], &ok);
    t->out_size = parse_int(f[8], &ok);
    t->out_mtime_ns = parse_int(f[9], &ok);
    t->width = (int) parse_int(f[11], &ok);
    t->height = (int) parse_int(f[12], &ok);
    if (ok && n >= 17) {
        t->caption = *f[14] ? gal__shared_text(f[14]) : NULL;
        t->caption_source = *f[15] ? gal__shared_text(f[15]) : NULL;
        t->caption_cut = strcmp(f[16], "1") == 0;
    }
    return ok;
}

/* A record of the line at p->line_at of p->file left there but for its
 * names and preset (tail_in_file). */
static gal_manifest_entry *
record_in_file_new(gal_manifest *m, const line_parser *p, const char *output,
    const char *input, const char *preset_digest)
{
    size_t output_size = strlen(output) + 1, input_size = strlen(input) + 1;
    record_in_file *r = g_malloc0(sizeof(*r) + output_size + input_size);
    char *at = (char *) (r + 1);

    r->head.tail_in_file = true;
    r->head.output = memcpy(at, output, output_size);
    r->head.input = memcpy(at + output_size, input, input_size);
    r->file = gal__about_file_ref(p->file);
    r->line_at = p->line_at;
    r->preset_digest = shared_string(m, preset_digest);
    return &r->head;
}

/* Is `text` a number as gallop writes it (append_int: no sign but '-', no
 * leading zero), of at most `digits` digits (19: and at most G_MAXINT64)? */
static gboolean
canonical_int(const char *text, size_t digits)
{
    size_t n;

    text += *text == '-';
    n = strspn(text, "0123456789");
    return n > 0 && n <= digits && !text[n] && (text[0] != '0' || (n == 1 && text[-1] != '-')) &&
        (n < 19 || strcmp(text, "9223372036854775807") <= 0);
}

static gboolean
lower_hex(const char *text)
{
    return text[strspn(text, "0123456789abcdef")] == '\0';
}

/* Would a plain record line of `n` fields `f` be written back as it is
 * (manifest_write.c)? Its numbers and digests spelled as gallop spells
 * them, its caption fields there only with a caption. Only such a line is
 * copied instead of written anew. */
static gboolean
canonical_record(char **f, int n)
{
    static const int numbers[] = { 3, 4, 8, 9 }, pixels[] = { 11, 12 };

    if (n != 14 && !(n == 17 && (*f[14] || *f[15]) &&
                       (strcmp(f[16], "0") == 0 || strcmp(f[16], "1") == 0)))
        return FALSE;
    for (size_t k = 0; k < G_N_ELEMENTS(numbers); k++)
        if (!canonical_int(f[numbers[k]], 19))
            return FALSE;
    /* An int: nine digits always fit. */
    for (size_t k = 0; k < G_N_ELEMENTS(pixels); k++)
        if (!canonical_int(f[pixels[k]], 9))
            return FALSE;
    return lower_hex(f[5]) && lower_hex(f[10]);
}

/* `plain`: the line would be written back as it is (round_trips). */
static void
parse_entry(line_parser *p, char **f, int n, bool plain)
{
    gal_manifest *m = p->m;
    gal_record_tail t = { 0 };
    gal_manifest_entry *e;
    gboolean item = strcmp(f[0], "item") == 0, sheet = strcmp(f[0], "sheet") == 0;

    /* A record whose tail stays in its file is checked as parse_tail
     * checks it, without reading what it would keep: its numbers are plain
     * digits that fit (canonical_record). Its names without an escape, so
     * that what is there can be checked against them as it is
     * (gal__record_verbatim). */
    if (m->tails_in_file && p->file && plain && !item && !sheet && canonical_record(f, n) &&
        *f[1] && !f[1][strcspn(f[1], "\t\n\r\\")] && !f[2][strcspn(f[2], "\t\n\r\\")] &&
        is_hex64(f[6]) && (!*f[5] || gal__is_content_digest(f[5])) && is_hex64(f[10])) {
        gal__manifest_put(m, record_in_file_new(m, p, f[1], f[2], f[6]));
        return;
    }
    if (!parse_tail(f, n, &t)) {
        tail_clear(&t);
        return;
    }
    {
        const char *name_key = n > 13 && *f[13] ? f[13] : NULL;
        size_t output_size = strlen(f[1]) + 1, input_size = strlen(f[2]) + 1;
        size_t key_size = name_key ? strlen(name_key) + 1 : 0;
        /* The record, its tail and their three strings in one allocation. */
        record_block *b = g_malloc0(sizeof(*b) + output_size + input_size + key_size);
        char *at = (char *) (b + 1);

        e = &b->head;
        e->tail = &b->tail;
        *e->tail = t;
        e->strings_inline = true;
        e->output = memcpy(at, f[1], output_size);
        e->input = memcpy(at += output_size, f[2], input_size);
        e->tail->name_key = name_key ? memcpy(at + input_size, name_key, key_size) : NULL;
    }
    e->sheet = sheet;
    e->item = item;
    e->tail->preset_digest = shared_string(m, f[6]);
    e->tail->version = shared_string(m, f[7]);
    for (int k = 0; item && k < GAL_ITEM_FACTS; k++)
        gal__manifest_entry_facts(e)[k] = *f[17 + k] ? g_strdup(f[17 + k]) : NULL;
    gal__manifest_put(m, e);
}

static void
line_free(gpointer line)
{
    g_string_free(line, TRUE);
}

/* Each thread's line read for a tail, kept for the next (a rerun reads a
 * million). */
static GPrivate tail_line = G_PRIVATE_INIT(line_free);

gal_record_tail *
gal__record_tail_read(gal_manifest_entry *e)
{
    record_in_file *r = (record_in_file *) e;
    GString *line = g_private_get(&tail_line);
    char *fields[GAL_FIELDS_MAX + 1];
    gal_record_tail t = { 0 };
    int n;

    g_return_val_if_fail(e->tail_in_file, e->tail);
    if (!line)
        g_private_set(&tail_line, line = g_string_sized_new(1024));
    /* The line as it was read: a part replaced since is still read through
     * the descriptor kept; one changed in place may no longer say it. */
    if (gal__about_file_line(r->file, r->line_at, line) &&
        (n = gal__fields_split(line->str, fields)) >= 13 && strcmp(fields[0], "output") == 0 &&
        strcmp(fields[1], e->output) == 0 && strcmp(fields[2], e->input) == 0 &&
        strcmp(fields[6], r->preset_digest) == 0 && parse_tail(fields, n, &t)) {
        const char *name_key = n > 13 && *fields[13] ? fields[13] : NULL;
        size_t key_size = name_key ? strlen(name_key) + 1 : 0;

        e->tail = tail_block_new(key_size);
        *e->tail = t;
        e->tail->name_key = name_key ? memcpy(e->tail + 1, name_key, key_size) : NULL;
        e->tail->version = g_ref_string_new(fields[7]);
    }
    else {
        tail_clear(&t);
        e->tail = tail_block_new(0);
        e->tail->version = g_ref_string_new("");
        e->lost = true;
    }
    e->tail->preset_digest = g_ref_string_acquire(r->preset_digest);
    return e->tail;
}

gboolean
gal__record_verbatim(gal_manifest_entry *e, GString *line)
{
    record_in_file *r = (record_in_file *) e;
    size_t output_len = strlen(e->output), input_len = strlen(e->input);
    const char *at = line->str;

    if (!e->tail_in_file || e->tail)
        return FALSE;
    /* Its names checked: the file may have been changed in place. */
    if (gal__about_file_line(r->file, r->line_at, line) &&
        g_str_has_prefix(at = line->str, "output\t") &&
        strncmp(at += strlen("output\t"), e->output, output_len) == 0 &&
        at[output_len] == '\t' &&
        strncmp(at += output_len + 1, e->input, input_len) == 0 && at[input_len] == '\t')
        return TRUE;
    e->lost = true;
    return FALSE;
}

/* Does `t` say all that `as_read` said? Its pointers the same, its
 * dependencies none (a check may have changed theirs). */
static gboolean
tail_same(const gal_record_tail *t, const gal_record_tail *as_read)
{
    return !t->deps && !t->facts && t->preset_digest == as_read->preset_digest &&
        t->version == as_read->version && t->name_key == as_read->name_key &&
        t->caption == as_read->caption && t->caption_source == as_read->caption_source &&
        t->in_size == as_read->in_size && t->in_mtime_ns == as_read->in_mtime_ns &&
        t->out_size == as_read->out_size && t->out_mtime_ns == as_read->out_mtime_ns &&
        memcmp(&t->in_digest, &as_read->in_digest, sizeof(t->in_digest)) == 0 &&
        memcmp(&t->out_sha256, &as_read->out_sha256, sizeof(t->out_sha256)) == 0 &&
        t->width == as_read->width && t->height == as_read->height &&
        t->caption_cut == as_read->caption_cut;
}

void
gal__record_tail_forget(gal_manifest_entry *e, const gal_record_tail *as_read)
{
    if (!e->tail_in_file || !e->tail || e->lost || !tail_same(e->tail, as_read))
        return;
    tail_block_free(g_steal_pointer(&e->tail));
}

const char *
gal__record_preset_digest(const gal_manifest_entry *e)
{
    return e->tail_in_file ? ((const record_in_file *) e)->preset_digest
                           : e->tail->preset_digest;
}


/* An output's "key=value" facts for the report: only the fields that
 * look so (about_field_kept). */
static void
parse_about(line_parser *p, char **f, int n)
{
    gal_manifest_entry *e;
    GPtrArray *about;

    if (n < 3 || !(e = g_hash_table_lookup(p->m->entries, f[1])) || e->sheet || e->item)
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
    if (!(e = g_hash_table_lookup(p->m->entries, name)) || e->sheet || e->item)
        return TRUE;
    gal__about_unref(e->about);
    e->about = kept ? gal__about_on_file(p->file, p->line_at, all_kept) : gal__about_new(NULL, 0);
    return TRUE;
}

static void
parse_dep(gal_manifest *m, char **f, int n)
{
    gal_manifest_entry *e;
    gboolean ok = TRUE;
    gint64 size, mtime;

    if (n != 6 || !(e = g_hash_table_lookup(m->entries, f[1])))
        return;
    size = parse_int(f[3], &ok);
    mtime = parse_int(f[4], &ok);
    if (!ok || (size >= 0 && !gal__is_content_digest(f[5]) && !is_row_digest(f[5])))
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

        if (n != 3 || !is_hex64(f[1]))
            return;
        if (!(keys = g_hash_table_lookup(m->presets, f[1]))) {
            keys = g_ptr_array_new_with_free_func(g_free);
            g_hash_table_insert(m->presets, g_strdup(f[1]), keys);
        }
        g_ptr_array_add(keys, g_strdup(f[2]));
    }
    else if (p->other)
        p->other(f, n, p->number, p->user);
}

void
gal__manifest_parse(gal_manifest *m, const char *text, gal_manifest_line_fn other, void *user)
{
    line_parser p = { m, other, user, TRUE, 0, FALSE, NULL, 0 };
    GString *line = g_string_sized_new(1024);

    for (const char *at = text; *at && !p.foreign;) {
        const char *end = strchr(at, '\n');
        gsize len = end ? (gsize) (end - at) : strlen(at);

        g_string_truncate(line, 0);
        g_string_append_len(line, at, (gssize) len);
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
    gboolean records)
{
    line_parser p = { m, other, user, records, 0, FALSE, NULL, 0 };
    gint64 limit = gal__limits.manifest_bytes, total = 0;
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
    chunk = g_malloc(CHUNK);
    if (records)
        p.file = gal__about_file_new(fd);
    while (!problem && !p.foreign) {
        ssize_t n = read(fd, chunk, CHUNK);
        const char *at = chunk, *end;
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
            g_string_append_len(pending, at, end - at);
            parse_line(&p, pending->str);
            g_string_truncate(pending, 0);
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
    gal_manifest_line_fn other, void *user, gboolean records, gboolean tails_in_file);

/* A run's or a merge's manifest, its records' tails left in the file (a
 * rerun decides each record once, then lets its tail go again). */
static gpointer
load_on_thread(gpointer dir)
{
    return load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE, TRUE);
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
    gboolean records, gboolean tails_in_file)
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
    read_manifest(m, dir_fd, other, user, records);
    close(dir_fd);
    return m;
}

gal_manifest *
gal__manifest_load_named(const char *dir, const char *name, gal_manifest_line_fn other,
    void *user, gboolean tails_in_file)
{
    return load_named(dir, name, other, user, TRUE, tails_in_file);
}

void
gal__manifest_read_others(const char *dir, const char *name, gal_manifest_line_fn other,
    void *user)
{
    gal__manifest_free(load_named(dir, name, other, user, FALSE, FALSE));
}
