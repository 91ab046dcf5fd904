/* store.h: what gallop remembers in an output folder, an SQLite database
 * (the only user of libsqlite3; the schema is docs/report.md's "The record
 * database"): one row per product (a photo's output file, a page, a
 * shard's kept item) with its recipe, what it was made from and the
 * figures the report gives, and each preset's recipe lines. A shard's
 * part is a database of the same schema with its shard, the photos and
 * folders it was given and each photo's result filled in.
 *
 * The file comes from elsewhere as often as not (a CI cache, a shared
 * folder), so it is opened as SQLite's guidance for untrusted databases
 * says: defensive mode, no trusted schema, no triggers or views, small
 * limits, its schema checked to be exactly gallop's, and every value read
 * checked again (paths beneath the folder, digests, numbers). A database
 * that fails any of that is no record at all: outputs are checked again
 * and rebuilt, with a warning; nothing is deleted but the file itself,
 * which the next write replaces.
 *
 * Paths are relative to the output folder; recipe lines name files by
 * content (recipe.c), so a folder moved or copied with its photos keeps
 * every record. Any thread may use a store: it holds a lock of its own
 * around each call. */
#ifndef GAL_STORE_H
#define GAL_STORE_H

#include <stdbool.h>

#include <glib.h>

#include "internal.h"
#include "about.h"
#include "digest.h"
#include "error.h"

#define GAL_MANIFEST_PREFIX ".gallop-manifest."
#define GAL_STORE_NAME GAL_MANIFEST_PREFIX "db"
/* The text manifest gallop wrote before (format 2), read once into a new
 * store and then removed. */
#define GAL_LEGACY_MANIFEST_NAME GAL_MANIFEST_PREFIX "tsv"

/* A caption or its source in a result (a GRefString): a new one of
 * `text`, or one let go; NULL stays NULL. */
static inline char *
gal__shared_text(const char *text)
{
    return text ? g_ref_string_new(text) : NULL;
}

static inline void
gal__shared_text_unref(const char *text)
{
    if (text)
        g_ref_string_release((char *) text);
}

typedef enum gal_record_kind {
    GAL_RECORD_FILE,  /* a photo's output file */
    GAL_RECORD_PAGE,  /* a page of a many-input stage (a contact sheet, a gallery page) */
    GAL_RECORD_ITEM,  /* a contact-sheet tile a shard kept for the merge */
} gal_record_kind;

/* What a contact-sheet item's label may show of its photo, kept with the
 * item (the index and count are known only when the pages are made). */
typedef enum gal_item_fact {
    GAL_ITEM_CAPTION,
    GAL_ITEM_CAMERA,
    GAL_ITEM_LENS,
    GAL_ITEM_ARTIST,
    GAL_ITEM_COPYRIGHT,
    GAL_ITEM_EXPOSURE,
    GAL_ITEM_DATE,           /* "YYYY:MM:DD HH:MM:SS", or NULL */
    GAL_ITEM_SORT_TIME,      /* seconds: the date taken, else the file's time */
    GAL_ITEM_ALT,            /* "=" and the photo's own alt text ("=" alone: a decoration) */
    GAL_ITEM_DESCRIPTION,    /* its long description (overrides.h) */
    GAL_ITEM_FACTS
} gal_item_fact;

/* A file an output depends on (a caption sidecar, a captions table). */
typedef struct gal_dep_record {
    char *path;              /* relative to the output folder */
    bool exists;
    gint64 size, mtime_ns;
    /* Its content digest (digest.h), or a caption table's "row:..."
     * digest of the row the photo takes; "" when it does not exist. */
    char digest[65];
} gal_dep_record;

/* One product as recorded. Strings are owned (gal__record_clear). */
typedef struct gal_record {
    gal_record_kind kind;
    char *output;            /* beneath the output folder */
    char *input;             /* the photo, relative to the output folder; "" for a page */
    gint64 in_size, in_mtime_ns;
    gal_digest in_digest;    /* the photo's; a page's: its members' identity */
    char recipe[65];         /* the preset's digest (recipe.c) */
    char *version;           /* gallop's */
    gint64 out_size, out_mtime_ns;
    gal_digest out_sha256;
    int width, height;
    char *name_key;          /* what the name was rendered from (plan.c) */
    char *caption, *caption_source; /* what a caption stage showed; NULL: none */
    bool caption_cut;
    gal_about *about;        /* what the report says of the photo; NULL: none */
    char **facts;            /* an item's: GAL_ITEM_FACTS, each NULL when none; NULL otherwise */
    GPtrArray *deps;         /* gal_dep_record *; NULL: none */
} gal_record;

void gal__record_clear(gal_record *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(gal_record, gal__record_clear)
/* A deep copy into `to` (cleared first by the caller). */
void gal__record_copy(gal_record *to, const gal_record *from);
void gal__record_add_dep(gal_record *r, const char *path, gboolean exists, gint64 size,
    gint64 mtime_ns, const char *digest);
/* Its facts, made (all NULL) when it has none yet. */
char **gal__record_facts(gal_record *r);
/* Would the record be read back as it is put? Its paths beneath or from
 * the folder, its text valid UTF-8 without control characters (as every
 * record read is checked: a record from an untrusted source is checked so
 * before it is put). */
gboolean gal__record_valid(const gal_record *r);

typedef struct gal_store gal_store;

typedef enum gal_store_mode {
    /* Read what is there, never write (a dry run, --check, a shard reading
     * what the last merge left, a merge reading a part): a missing
     * database is an empty one in memory (a text manifest is read into
     * it). Read as it was last closed, with no lock taken and no file made
     * beside it, so that shards on several hosts may read it at once;
     * unless a writer left a log beside it (it runs, or was killed), whose
     * commits count too. */
    GAL_STORE_READ,
    /* Read and write: created when missing (a text manifest carried
     * over), replaced when unusable. One writer at a time: the output
     * folder's claim (outdir.h) sees to that. */
    GAL_STORE_WRITE,
    /* A shard's own part: read and written by that shard alone, on
     * whatever host; no shared memory, no lock another host must see. */
    GAL_STORE_PART,
} gal_store_mode;

/* Open the database `name` in the output folder `dir` (canonical). Never
 * fails for the folder's own database: what cannot be used is read as
 * empty, with a line in `warnings` ("DIR/NAME: ..."; each added when the
 * store closes, so stores on several threads may share the array); the
 * first write replaces it. A part that cannot be opened or is not a part: NULL with
 * `err` set (GAL_STORE_PART is created when missing). */
gal_store *gal__store_open(const char *dir, const char *name, gal_store_mode mode,
    GPtrArray *warnings, gal_error *err);
/* Commit what is pending and close; -1 with `err` when the last commit
 * failed. NULL: nothing. */
int gal__store_close(gal_store *s, gal_error *err);

/* The record of `output`: TRUE with `out` filled (clear it), FALSE when
 * there is none (or it could not be read: a warning says so). */
gboolean gal__store_get(gal_store *s, const char *output, gal_record *out);
/* Add or replace a record, inside the transaction pending (one is begun
 * when none is): -1 with `err` when it could not be written. */
int gal__store_put(gal_store *s, const gal_record *r, gal_error *err);
int gal__store_remove(gal_store *s, const char *output, gal_error *err);
/* End the pending transaction: what was put is on disk (for a part's
 * last commit, `durable`: synced). -1 with `err`. */
int gal__store_commit(gal_store *s, gboolean durable, gal_error *err);
/* Forget what is pending (an interrupted merge changes nothing). */
void gal__store_rollback(gal_store *s);

/* Each record of the kinds in `kinds` (a mask of 1 << gal_record_kind),
 * in output order, as it is read (valid during the call), without its
 * about, facts and depend rows (gal__store_get reads a record whole);
 * `fn` returns FALSE to stop. It may read the store, not change it (collect what to
 * change, then change it). Records whose values do not check are passed
 * by, with a warning. */
typedef gboolean (*gal_record_fn)(const gal_record *r, void *user);
void gal__store_each(gal_store *s, unsigned kinds, gal_record_fn fn, void *user);
/* The same with only each record's kind, output and input filled in (all
 * that is read: a walk of a million records for the orphan check). */
void gal__store_each_name(gal_store *s, unsigned kinds, gal_record_fn fn, void *user);
/* What follows is one large transaction by the folder's only writer (a
 * merge): the database is written once, through a rollback journal, not
 * first to the write-ahead log and then again at its checkpoint. The next
 * writer's open returns to the log. */
void gal__store_bulk(gal_store *s);
/* Records of output files: the number of them. */
gint64 gal__store_count(gal_store *s, unsigned kinds);

/* Copy every record of the `n` stores `parts` (a sharded run's) into
 * `s`, in the pending transaction, as they are, their depend rows and
 * recipes too: what a merge joins. The records come in output order, as
 * sort -m joins sorted files, an output's first part first. A record whose
 * output is not beneath the folder is left out, with a warning; `keep`
 * (may be NULL) is asked for each of the others (its output, its input,
 * the index of its part) and leaves it out when it returns FALSE. -1 with
 * `err` when `s` could not be written. */
typedef gboolean (*gal_record_keep_fn)(const char *output, const char *input, int part,
    void *user);
int gal__store_join(gal_store *s, gal_store *const *parts, int n, gal_record_keep_fn keep,
    void *user, gal_error *err);

/* A preset's recipe lines by their digest: remembered (once), and found
 * again (NULL: not known; a new array). */
int gal__store_put_recipe(gal_store *s, const char *digest, GPtrArray *keys, gal_error *err);
GPtrArray *gal__store_recipe(gal_store *s, const char *digest);

/* ---- a shard's part ---------------------------------------------------------------- */

/* Who wrote a part, and with what. */
typedef struct gal_part_info {
    int shard, shards;
    char recipe[65];       /* the preset's digest */
    char *version;         /* gallop's */
    /* The shard's working folder, relative to the output folder, so that
     * a folder moved with its photos still merges; the photos and folders
     * it was given, as given (empty: the preset's input.paths). */
    char *cwd;
    char **inputs;
    bool forced;           /* run with --force: the merge makes the pages again too */
    bool done;             /* the shard finished */
    int n_results;         /* the results it says it has, once done */
} gal_part_info;

void gal__part_info_clear(gal_part_info *info);

/* ".gallop-manifest.K-of-N.db". New string. */
char *gal__part_name(int shard, int shards);
/* Is `name` a part's file name (as gal__part_name spells it)? */
gboolean gal__part_name_parse(const char *name, int *shard, int *shards);

/* Write the part's header (and `done`); read it back: -1 with `err`
 * naming the part when it has none or a damaged one. */
int gal__part_put_info(gal_store *s, const gal_part_info *info, gal_error *err);
int gal__part_get_info(gal_store *s, gal_part_info *info, gal_error *err);

/* A photo's result as a part keeps it. */
typedef struct gal_part_result {
    gal_photo_result result;   /* input and output NULL; strings owned */
    gal_photo_notes notes;     /* result.notes, when it has any */
    char *rel_output;          /* NULL: none */
    char in_digest[65];        /* the photo's digest; "": not taken */
} gal_part_result;

gal_part_result *gal__part_result_new(const gal_photo_result *r, const char *rel_output,
    const char *in_digest);
void gal__part_result_free(gal_part_result *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gal_part_result, gal__part_result_free)

/* Add or replace photo `rel_input`'s result (relative to the folder). */
int gal__part_put_result(gal_store *s, const char *rel_input, const gal_part_result *result,
    gal_error *err);
/* Each result, in the photos' order: `take` is given the photo and its
 * result (`with_about`: its about, from its output's record), valid during
 * the call only. -1 with `err` when a row is damaged. */
typedef void (*gal_part_result_fn)(const char *rel_input, const gal_part_result *result,
    void *user);
int gal__part_each_result(gal_store *s, gboolean with_about, gal_part_result_fn take,
    void *user, gal_error *err);

#endif /* GAL_STORE_H */
