/* manifest.h: the manifest a run keeps in its output folder (format in
 * docs/report.md). */
#ifndef GAL_MANIFEST_H
#define GAL_MANIFEST_H

#include <stdbool.h>
#include <sys/stat.h>

#include <glib.h>

#include "about.h"
#include "digest.h"
#include "error.h"

#define GAL_MANIFEST_NAME ".gallop-manifest.tsv"
/* Every manifest file's name starts so: the manifest and its shards'
 * parts (.gallop-manifest.K-of-N.tsv), never an output. */
#define GAL_MANIFEST_PREFIX ".gallop-manifest."
/* The first line. Format 2 records photos and the files outputs depend on
 * by XXH3-128 (32 hex digits); format 1 did by SHA-256 (64), and is still
 * read: such a record is checked by SHA-256 and rewritten as XXH3 when the
 * file's size or time changed (digest.h, decide.c). */
#define GAL_MANIFEST_MAGIC "gallop-manifest\t2"
#define GAL_MANIFEST_MAGIC_V1 "gallop-manifest\t1"

/* What a contact-sheet item's label may show of its photo, kept with the
 * item (the index and count are known only when the pages are made). */
typedef enum gal_item_fact {
    GAL_ITEM_CAPTION,
    GAL_ITEM_CAMERA,
    GAL_ITEM_LENS,
    GAL_ITEM_ARTIST,
    GAL_ITEM_COPYRIGHT,
    GAL_ITEM_EXPOSURE,
    GAL_ITEM_DATE,           /* "YYYY-MM-DD HH:MM:SS", or "" */
    GAL_ITEM_SORT_TIME,      /* seconds: the date taken, else the file's time */
    GAL_ITEM_FACTS
} gal_item_fact;

typedef struct gal_dep_record {
    char *path;        /* absolute */
    gboolean exists;
    gint64 size, mtime_ns;
    /* The file's content digest (digest.h: XXH3-128, or SHA-256 from a
     * format-1 manifest), or a caption table's "row:..." digest of the
     * photo's row. */
    char digest[65];
} gal_dep_record;

/* What a record says besides its output's and its photo's names:
 * everything a run reads only to decide, to report or to write the record
 * back. Beside its record (`tail` points just past it), in the same
 * allocation; or, for a record read from a file, left there and read
 * again when asked (gal__record_tail). The fields are ordered by size
 * (pointers, then 8-byte, then smaller ones): a million records are held
 * at once, and padding was bytes of each. */
typedef struct gal_record_tail {
    /* The recipe: the preset's digest and gallop's version. Shared
     * (GRefStrings, one per distinct value in a manifest, not one per
     * record: a million records hold a few): set them with
     * gal__manifest_entry_set_recipe, read them, never write into them. */
    char *preset_digest;
    char *version;
    char *name_key;       /* what the name was rendered from (template, index, count) */
    /* What a caption stage showed, and where it came from, for reports of
     * reruns; may be NULL. GRefStrings (gal__shared_text), which the
     * photo's result shares instead of a copy each (a captioned rerun of
     * a million photos held every caption twice). */
    char *caption;
    char *caption_source;
    GPtrArray *deps;      /* gal_dep_record; NULL: none (most photos) */
    /* A contact-sheet item a shard kept for the pages (a small lossless
     * file beneath the folder): its label's facts (GAL_ITEM_FACTS of
     * them, each NULL when none; gal__manifest_entry_facts makes them),
     * NULL for every other record. */
    char **facts;
    gint64 in_size, in_mtime_ns;
    gint64 out_size, out_mtime_ns;
    /* The photo's content digest (digest.h: XXH3-128, or SHA-256 from a
     * format-1 manifest); a contact sheet: of its members. */
    gal_digest in_digest;
    gal_digest out_sha256;
    int width, height;
    bool caption_cut;
} gal_record_tail;

/* One output, as written. Paths are relative to the output folder. */
typedef struct gal_manifest_entry {
    char *output;
    char *input;          /* "" for a contact sheet */
    /* What a site shows of the photo ("key=value", the run report's
     * fields: taken, camera, placeholder...), for reports of reruns;
     * NULL: none recorded. */
    gal_about *about;
    gal_record_tail *tail;
    /* Flags as bits of one byte, set as the record is read or made; the
     * two a run writes later have bytes of their own (which fit in the
     * record's padding), so that the orphan check may mark records while
     * a save reads them (merge.c). */
    bool sheet : 1;
    bool item : 1;            /* a kept contact-sheet item (facts above) */
    /* `output`, `input` and the tail's `name_key` are in the
     * record's own allocation, after the tail (a record read from a
     * file): freed with it, never alone, never replaced. Three
     * allocations fewer a record, 48 bytes of each of a merge's million. */
    bool strings_inline : 1;
    /* Scratch of a merge (merge.c): the record came from one of its parts,
     * not from the manifest there before. */
    bool from_part : 1;
    /* Its tail was left in the file it was read from (a merge's part, a
     * run's manifest): `tail` is NULL until gal__record_tail reads it (and
     * again once gal__record_tail_forget lets it go); saved, the record's
     * line is copied as it is meanwhile. */
    bool tail_in_file : 1;
    /* Scratch of the orphan check (record.c), which sets it for every
     * record before it reads it: who makes the output in this run. A set
     * of a million records beside them was 40 MB at a merge's end. */
    unsigned char made_by;
    /* Its tail could not be read again (its file was changed in place):
     * the record is not saved, and its photo is made again next time. */
    bool lost;
} gal_manifest_entry;

/* The flags in one word after the four pointers, as before. */
G_STATIC_ASSERT(sizeof(gal_manifest_entry) <= 5 * sizeof(void *));

typedef struct gal_manifest {
    char *dir;            /* the output folder, canonical */
    /* Its records' tails stay in its file (a merge's parts and a run's
     * manifest: a merge reads a few of them, a run each once to decide,
     * and a save copies the lines of the others as they are). */
    bool tails_in_file;
    char *name;           /* its file name in the folder (GAL_MANIFEST_NAME, or a part's) */
    /* Its records (owned), a set keyed by each one's output: look one up
     * with gal__manifest_find; iterated, key and value are the record. */
    GHashTable *entries;
    GHashTable *presets;  /* digest -> GPtrArray of "key=value" */
    GHashTable *shared;   /* the records' recipe strings, one GRefString per value */
    char *recent[2];      /* the two of them asked for last (borrowed from `shared`) */
    GPtrArray *warnings;  /* lines refused and why ("DIR/.gallop-manifest.tsv:12: ...") */
    /* Its next save's file, begun ahead (gal__manifest_save_ahead); NULL: none. */
    struct gal_manifest_ahead *ahead;
} gal_manifest;

/* Called for each line of a kind the manifest does not hold (a part's
 * shard, inputs, results, done), in order: its `n` unescaped fields, the
 * kind first (valid during the call only), its line number and where it
 * starts (the byte offset in the file or text). */
typedef void (*gal_manifest_line_fn)(char **fields, int n, int line, gint64 offset,
    void *user);

/* A caption or its source, shared by a record and a result (a GRefString):
 * a new one of `text`, another reference, or one let go; NULL stays NULL. */
static inline char *
gal__shared_text(const char *text)
{
    return text ? g_ref_string_new(text) : NULL;
}

static inline char *
gal__shared_text_ref(char *text)
{
    return text ? g_ref_string_acquire(text) : NULL;
}

static inline void
gal__shared_text_unref(const char *text)
{
    if (text)
        g_ref_string_release((char *) text);
}

gal_manifest *gal__manifest_new(const char *dir);
/* Never fails: a missing, unreadable or foreign manifest reads as empty.
 * Entries that name anything but a relative path beneath the folder are
 * dropped, each with a line in `warnings`. */
gal_manifest *gal__manifest_load(const char *dir);
/* gal__manifest_load on a thread of its own, while the caller does
 * something else (collects the photos: in a rerun of a large set the two
 * take about as long), with its records' tails left in the file
 * (tails_in_file); `dir` must stay until gal__manifest_load_end, which
 * waits for it and gives the manifest. */
GThread *gal__manifest_load_begin(const char *dir);
gal_manifest *gal__manifest_load_end(GThread *loading);
/* The same for the manifest file `name` in the folder (a part), with
 * `other` (may be NULL) called for the lines of other kinds;
 * `tails_in_file`: its records' tails stay in the file (tails_in_file
 * above). */
gal_manifest *gal__manifest_load_named(const char *dir, const char *name,
    gal_manifest_line_fn other, void *user, gboolean tails_in_file);
/* Only `other`'s lines of the manifest file `name` in the folder (a
 * part's results, read when they are needed): its records are skipped,
 * not kept. Read from the byte offset `from`, the start of line
 * `from_line` (0 and 1: the whole file, its first line checked as a
 * manifest's); a file that cannot be read calls `other` for none. */
void gal__manifest_read_others(const char *dir, const char *name, gint64 from, int from_line,
    gal_manifest_line_fn other, void *user);
/* Add the entries of manifest text to `m` (as load does). */
void gal__manifest_parse(gal_manifest *m, const char *text, gal_manifest_line_fn other,
    void *user);
void gal__manifest_free(gal_manifest *m);
/* The file's text, entries sorted by output. New string. */
char *gal__manifest_text(gal_manifest *m);
/* Write it atomically into the folder, as m->name. */
int gal__manifest_save(gal_manifest *m, gal_error *err);
/* Begin the next save's file now, and make room in it for about `bytes`
 * on a thread of its own, while the caller goes on to what comes before
 * the save (a merge: the plan and the results). On a tmpfs the room is
 * pages of memory allocated to the file; the writer's first writes to
 * fresh pages were most of a 1M merge's save, and this is where a core
 * is idle. Only a head start: the save writes what it writes, and
 * gives back what room is left; without a save (an error, an interrupted
 * merge), gal__manifest_free removes the file. Nothing happens when the
 * file cannot be begun: the save tries again and says why. */
void gal__manifest_save_ahead(gal_manifest *m, gint64 bytes);
/* Called by gal__manifest_free: a save begun ahead and not made, undone. */
void gal__manifest_ahead_drop(gal_manifest *m);
/* The same with `extra` (lines of other kinds, may be NULL) after the
 * entries; `durable`: fsync'd before the rename. */
int gal__manifest_save_with(gal_manifest *m, const char *extra, gboolean durable,
    gal_error *err);
/* Fields of one line of other lines, escaped as the manifest's are:
 * "\t" + field for each. */
void gal__manifest_append_field(GString *out, const char *text);
/* Read `text`, all of it, as a decimal number (as g_ascii_strtoll
 * does, plain digits without its machinery): FALSE when it is not one. */
gboolean gal__manifest_int(const char *text, gint64 *v);
gal_manifest_entry *gal__manifest_entry_new(void);
/* Its tail, read from its file first when it was left there (another
 * thread may read other records' tails meanwhile, not this one's). */
gal_record_tail *gal__record_tail_read(gal_manifest_entry *e);

static inline gal_record_tail *
gal__record_tail(gal_manifest_entry *e)
{
    return e->tail ? e->tail : gal__record_tail_read(e);
}

/* A record whose tail is still in its file: its line there, as it is, into
 * `line`. FALSE for any other record (written from its fields), or when
 * the file no longer holds the line (the record is then lost). */
gboolean gal__record_verbatim(gal_manifest_entry *e, GString *line);
/* Its tail, read (gal__record_tail) and saved as `as_read` was, let go
 * again when nothing changed it: the record back to its line in the file.
 * Not for a record whose tail was there before the read. */
void gal__record_tail_forget(gal_manifest_entry *e, const gal_record_tail *as_read);
/* Its preset's digest, which a record left in its file also keeps. */
const char *gal__record_preset_digest(const gal_manifest_entry *e);
gal_manifest_entry *gal__manifest_entry_copy(const gal_manifest_entry *e);
/* Set the record's recipe (copies of both). */
void gal__manifest_entry_set_recipe(gal_manifest_entry *e, const char *preset_digest,
    const char *version);
/* The record's facts, made (all NULL) if it has none yet. */
char **gal__manifest_entry_facts(gal_manifest_entry *e);
void gal__manifest_entry_free(gal_manifest_entry *e);
/* Add or replace (ownership taken). The record's recipe strings become
 * the manifest's shared ones. */
void gal__manifest_put(gal_manifest *m, gal_manifest_entry *e);
/* The record of `output` (relative to the output folder); NULL: none. */
gal_manifest_entry *gal__manifest_find(const gal_manifest *m, const char *output);
/* Remove (and free) or steal (not free) the record of `output`; FALSE:
 * there was none. */
gboolean gal__manifest_remove(gal_manifest *m, const char *output);
gboolean gal__manifest_steal(gal_manifest *m, const char *output);
/* Remember the key lines of a digest (a reference is taken). */
void gal__manifest_put_keys(gal_manifest *m, const char *digest, GPtrArray *keys);
void gal__manifest_add_dep(gal_manifest_entry *e, const char *path, gboolean exists,
    gint64 size, gint64 mtime_ns, const char *digest);

#endif /* GAL_MANIFEST_H */
