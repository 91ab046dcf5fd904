/* manifest_record.c: a manifest's record (manifest.h): its memory, and
 * its tail (what it says besides its names), read from its line's fields,
 * or left in the file it was read from and read again when asked. The
 * manifest (manifest.c) holds the records and reads the file's lines. */
#include <string.h>

#include "internal.h"
#include "digest.h"
#include "fields.h"
#include "manifest.h"
#include "manifest_record.h"

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
        gal_about_file *file = r->file;

        if (e->tail)
            tail_block_free(e->tail);
        ref_string_clear(&r->preset_digest);
        /* Its memory is its file's (and may go now): the file last. */
        gal__about_file_record_gone(file);
        gal__about_file_unref(file);
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

/* A preset's digest: `checked`, or 64 hex digits. */
static gboolean
preset_digest_ok(const char *digest, const char *checked)
{
    return (checked && strcmp(digest, checked) == 0) || gal__is_sha256_hex(digest);
}

gboolean
gal__record_fields_read(char **f, int n, gal_record_tail *t, const char *checked)
{
    gboolean ok = TRUE;
    gboolean item = strcmp(f[0], "item") == 0;

    if ((item ? n != 17 + GAL_ITEM_FACTS : (n != 13 && n != 14 && n != 17)) || !*f[1] ||
        !preset_digest_ok(f[6], checked))
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

gal_manifest_entry *
gal__record_in_file_new(gal_about_file *file, gint64 line_at, const char *output,
    const char *input, char *preset_digest)
{
    size_t output_size = strlen(output) + 1, input_size = strlen(input) + 1;
    record_in_file *r = gal__about_file_record_memory(file,
        sizeof(*r) + output_size + input_size);
    char *at = (char *) (r + 1);

    r->head.tail_in_file = true;
    r->head.output = memcpy(at, output, output_size);
    r->head.input = memcpy(at + output_size, input, input_size);
    r->file = gal__about_file_ref(file);
    r->line_at = line_at;
    r->preset_digest = preset_digest;
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

gboolean
gal__record_stays_in_file(char **f, int n, const char *checked)
{
    /* Checked as gal__record_fields_read checks it, without reading what
     * it would keep: its numbers are plain digits that fit
     * (canonical_record). Its names without an escape, so that what is
     * there can be checked against them as it is (gal__record_verbatim). */
    return strcmp(f[0], "output") == 0 && canonical_record(f, n) && *f[1] &&
        !f[1][strcspn(f[1], "\t\n\r\\")] && !f[2][strcspn(f[2], "\t\n\r\\")] &&
        preset_digest_ok(f[6], checked) && (!*f[5] || gal__is_content_digest(f[5])) &&
        gal__is_sha256_hex(f[10]);
}

gal_manifest_entry *
gal__record_whole_new(char **f, int n, const gal_record_tail *t)
{
    gboolean item = strcmp(f[0], "item") == 0;
    const char *name_key = n > 13 && *f[13] ? f[13] : NULL;
    size_t output_size = strlen(f[1]) + 1, input_size = strlen(f[2]) + 1;
    size_t key_size = name_key ? strlen(name_key) + 1 : 0;
    /* The record, its tail and their three strings in one allocation. */
    record_block *b = g_malloc0(sizeof(*b) + output_size + input_size + key_size);
    char *at = (char *) (b + 1);
    gal_manifest_entry *e = &b->head;

    e->tail = &b->tail;
    *e->tail = *t;
    e->strings_inline = true;
    e->output = memcpy(at, f[1], output_size);
    e->input = memcpy(at += output_size, f[2], input_size);
    e->tail->name_key = name_key ? memcpy(at + input_size, name_key, key_size) : NULL;
    e->sheet = strcmp(f[0], "sheet") == 0;
    e->item = item;
    for (int k = 0; item && k < GAL_ITEM_FACTS; k++)
        gal__manifest_entry_facts(e)[k] = *f[17 + k] ? g_strdup(f[17 + k]) : NULL;
    return e;
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
        strcmp(fields[6], r->preset_digest) == 0 &&
        gal__record_fields_read(fields, n, &t, r->preset_digest)) {
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

char **
gal__record_in_file_preset(gal_manifest_entry *e)
{
    return &((record_in_file *) e)->preset_digest;
}
