/* store.c: the record database of an output folder (store.h), through
 * libsqlite3: opening it as an untrusted file, its records, recipes and a
 * shard's part. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "internal.h"
#include "fsio.h"
#include "limit.h"
#include "store.h"

/* The database's own marks: "Galp" in its header, and the schema's
 * version, which a later gallop raises when the schema changes. */
#define STORE_APPLICATION_ID 0x47616c70
#define STORE_VERSION 1

/* Every object of the schema, created by exactly this text: a database
 * holding anything else (another table, an index, a trigger, a column
 * more or less) is not gallop's. Paths are relative to the output folder;
 * digests are lower-case hex; times are nanoseconds since 1970. No CHECK
 * constraints: SQLite holds a row to them only as it is written, so a
 * file written with PRAGMA ignore_check_constraints, or made by hand,
 * breaks them under this very text; each value is checked as it is read
 * (row_record, row_result) instead. */
static const struct {
    const char *type, *name, *sql;
} schema[] = {
    { "table", "recipe",
        "CREATE TABLE recipe (\n"
        "  digest TEXT PRIMARY KEY NOT NULL, -- SHA-256 of the lines\n"
        "  keys TEXT NOT NULL                -- the preset's key=value lines\n"
        ") WITHOUT ROWID" },
    { "table", "product",
        "CREATE TABLE product (\n"
        "  output TEXT PRIMARY KEY NOT NULL, -- the file, beneath the output folder\n"
        "  kind TEXT NOT NULL,               -- file, page or item\n"
        "  input TEXT NOT NULL,              -- the photo ('' for a page)\n"
        "  in_size INTEGER NOT NULL,\n"
        "  in_mtime_ns INTEGER NOT NULL,\n"
        "  in_digest TEXT NOT NULL,          -- XXH3-128 of the photo; a page: of its members\n"
        "  recipe TEXT NOT NULL,             -- recipe.digest\n"
        "  version TEXT NOT NULL,            -- gallop's\n"
        "  out_size INTEGER NOT NULL,\n"
        "  out_mtime_ns INTEGER NOT NULL,\n"
        "  out_sha256 TEXT NOT NULL,\n"
        "  width INTEGER NOT NULL,\n"
        "  height INTEGER NOT NULL,\n"
        "  name_key TEXT,                    -- what the name was made from\n"
        "  caption TEXT,\n"
        "  caption_source TEXT,\n"
        "  caption_cut INTEGER NOT NULL,\n"
        "  about TEXT,                       -- the report's fields, key=value lines\n"
        "  facts TEXT                        -- an item's label facts, lines\n"
        ") WITHOUT ROWID" },
    { "table", "depend",
        "CREATE TABLE depend (\n"
        "  output TEXT NOT NULL,             -- product.output\n"
        "  path TEXT NOT NULL,               -- a sidecar, a captions table\n"
        "  size INTEGER NOT NULL,            -- -1: it did not exist\n"
        "  mtime_ns INTEGER NOT NULL,\n"
        "  digest TEXT NOT NULL,             -- XXH3-128, or row: and the row's digest\n"
        "  PRIMARY KEY (output, path)\n"
        ") WITHOUT ROWID" },
    { "table", "shard",
        "CREATE TABLE shard (                -- a part's header: one row\n"
        "  k INTEGER NOT NULL,\n"
        "  n INTEGER NOT NULL,\n"
        "  recipe TEXT NOT NULL,\n"
        "  version TEXT NOT NULL,\n"
        "  cwd TEXT NOT NULL,                -- the shard's folder, from the output folder\n"
        "  inputs TEXT NOT NULL,             -- what it was given, lines\n"
        "  forced INTEGER NOT NULL,\n"
        "  done INTEGER NOT NULL,\n"
        "  results INTEGER NOT NULL\n"
        ")" },
    { "table", "result",
        "CREATE TABLE result (               -- a part's photos, as its report gives them\n"
        "  input TEXT PRIMARY KEY NOT NULL,\n"
        "  output TEXT,\n"
        "  status TEXT NOT NULL,\n"
        "  why TEXT NOT NULL,\n"
        "  why_detail TEXT,\n"
        "  width INTEGER NOT NULL,\n"
        "  height INTEGER NOT NULL,\n"
        "  bytes INTEGER NOT NULL,\n"
        "  sha256 TEXT,\n"
        "  caption TEXT,\n"
        "  caption_source TEXT,\n"
        "  caption_cut INTEGER NOT NULL,\n"
        "  seconds REAL NOT NULL,\n"
        "  hash_seconds REAL NOT NULL,\n"
        "  error_code INTEGER NOT NULL,\n"
        "  error_file TEXT,\n"
        "  error_line INTEGER NOT NULL,\n"
        "  error_col INTEGER NOT NULL,\n"
        "  error_key TEXT,\n"
        "  error_subject TEXT,\n"
        "  error_message TEXT,\n"
        "  in_digest TEXT\n"
        ") WITHOUT ROWID" },
};

static const char *const kind_names[] = { "file", "page", "item" };

/* The statements a store prepares once. */
enum {
    ST_GET, ST_GET_DEPS, ST_PUT, ST_PUT_DEP, ST_DEL, ST_DEL_DEPS, ST_EACH, ST_NAMES, ST_COUNT, ST_PUT_RECIPE, ST_RECIPE, ST_PUT_RESULT, ST_N
};

/* A row's kind as a gal_record_kind, NULL when it is none; a walk's rows
 * are those of the kinds in the mask ?1, and those of no kind (bound
 * always, so that the walk refuses them); a walk of all (15) tests none. */
#define KIND_INDEX "CASE kind WHEN 'file' THEN 0 WHEN 'page' THEN 1 WHEN 'item' THEN 2 END"
#define KINDS_WANTED "(?1 = 15 OR ?1 & (1 << coalesce(" KIND_INDEX ", 3)))"

static const char *const statements[ST_N] = {
    [ST_GET] = "SELECT output, " KIND_INDEX ", input, in_size, in_mtime_ns, in_digest, recipe, version, "
               "out_size, out_mtime_ns, out_sha256, width, height, name_key, caption, "
               "caption_source, caption_cut, about, facts FROM product WHERE output = ?1",
    [ST_GET_DEPS] = "SELECT path, size, mtime_ns, digest FROM depend WHERE output = ?1",
    [ST_PUT] = "INSERT OR REPLACE INTO product VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
               "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
    [ST_PUT_DEP] = "INSERT OR REPLACE INTO depend VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_DEL] = "DELETE FROM product WHERE output = ?1",
    [ST_DEL_DEPS] = "DELETE FROM depend WHERE output = ?1",
    [ST_EACH] = "SELECT output, " KIND_INDEX ", input, in_size, in_mtime_ns, in_digest, recipe, version, "
                "out_size, out_mtime_ns, out_sha256, width, height, name_key, caption, "
                "caption_source, caption_cut, about, facts FROM product WHERE " KINDS_WANTED
                " ORDER BY output",
    [ST_NAMES] = "SELECT output, " KIND_INDEX ", input FROM product WHERE " KINDS_WANTED
                 " ORDER BY output",
    [ST_COUNT] = "SELECT count(*) FROM product WHERE ?1 & (1 << " KIND_INDEX ")",
    [ST_PUT_RECIPE] = "INSERT OR IGNORE INTO recipe VALUES (?1, ?2)",
    [ST_RECIPE] = "SELECT keys FROM recipe WHERE digest = ?1",
    [ST_PUT_RESULT] = "INSERT OR REPLACE INTO result VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                      "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
};

struct gal_store {
    sqlite3 *db;
    gal_store_mode mode;
    char *dir, *name;
    /* What it refused, said when it closes into `warnings` (borrowed;
     * NULL: none kept): another store may be adding to that array on
     * another thread meanwhile. */
    GPtrArray *warnings;
    GPtrArray *said;
    gboolean in_transaction;
    gboolean failed;            /* a write failed: nothing more is written */
    /* The database to make at the first write (a run that writes nothing
     * leaves no file, and a folder it made empty, behind); NULL: made. */
    char *create_path;
    GHashTable *refused;        /* outputs whose record was refused, said once */
    gboolean bulk;              /* gal__store_bulk: a rollback journal, not the log */
    /* Work left to what the outermost call asked (in thousands of SQLite
     * instructions): a damaged file can make a walk of a table come back
     * to where it was forever; this ends it. */
    gint64 steps_left;
    int depth;                  /* calls in progress on this thread (the lock is recursive) */
    gboolean refused_walk;      /* a walk ended early: said */
    sqlite3_stmt *st[ST_N];
    GRecMutex lock;           /* recursive: gal__store_each's callbacks may ask too */
};

/* ---- records ---------------------------------------------------------------------- */

void
gal__record_clear(gal_record *r)
{
    g_free(r->output);
    g_free(r->input);
    g_free(r->version);
    g_free(r->name_key);
    g_free(r->caption);
    g_free(r->caption_source);
    gal__about_unref(r->about);
    if (r->facts)
        for (int f = 0; f < GAL_ITEM_FACTS; f++)
            g_free(r->facts[f]);
    g_free(r->facts);
    if (r->deps)
        g_ptr_array_unref(r->deps);
    *r = (gal_record) { 0 };
}

static void
dep_free(gpointer p)
{
    gal_dep_record *d = p;

    g_free(d->path);
    g_free(d);
}

void
gal__record_add_dep(gal_record *r, const char *path, gboolean exists, gint64 size,
    gint64 mtime_ns, const char *digest)
{
    gal_dep_record *d = g_new0(gal_dep_record, 1);

    d->path = g_strdup(path);
    d->exists = exists;
    d->size = exists ? size : -1;
    d->mtime_ns = exists ? mtime_ns : 0;
    g_strlcpy(d->digest, exists && digest ? digest : "", sizeof(d->digest));
    if (!r->deps)
        r->deps = g_ptr_array_new_with_free_func(dep_free);
    g_ptr_array_add(r->deps, d);
}

char **
gal__record_facts(gal_record *r)
{
    if (!r->facts)
        r->facts = g_new0(char *, GAL_ITEM_FACTS);
    return r->facts;
}

void
gal__record_copy(gal_record *to, const gal_record *from)
{
    *to = *from;
    to->output = g_strdup(from->output);
    to->input = g_strdup(from->input);
    to->version = g_strdup(from->version);
    to->name_key = g_strdup(from->name_key);
    to->caption = g_strdup(from->caption);
    to->caption_source = g_strdup(from->caption_source);
    to->about = gal__about_ref(from->about);
    to->facts = NULL;
    for (int f = 0; from->facts && f < GAL_ITEM_FACTS; f++)
        gal__record_facts(to)[f] = g_strdup(from->facts[f]);
    to->deps = NULL;
    for (guint d = 0; from->deps && d < from->deps->len; d++) {
        const gal_dep_record *dep = from->deps->pdata[d];

        gal__record_add_dep(to, dep->path, dep->exists, dep->size, dep->mtime_ns, dep->digest);
    }
}

/* ---- opening ------------------------------------------------------------------------ */

static void
warn(gal_store *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void
warn(gal_store *s, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    if (!s->warnings)
        return;
    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (!s->said)
        s->said = g_ptr_array_new();
    g_ptr_array_add(s->said, g_strdup_printf("%s/%s: %s", s->dir, s->name, msg));
}

/* `path` as a URI SQLite opens (RFC 3986: what is not unreserved is
 * %-escaped), with `query`. New string. */
static char *
file_uri(const char *path, const char *query)
{
    g_autofree char *escaped = g_uri_escape_string(path, "/", FALSE);

    return g_strconcat("file:", escaped, query ? "?" : "", query ? query : "", NULL);
}

static int
out_of_steps(void *store)
{
    gal_store *s = store;

    return --s->steps_left <= 0;
}

/* The limits and switches SQLite's guidance for untrusted database
 * files asks for (https://www.sqlite.org/security.html). Only gallop's
 * own statements run on the connection, so the limits are those of its
 * largest value (a recipe's lines) and statement. */
static void
harden(sqlite3 *db)
{
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 14);
    sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 64);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 16);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 2);
    sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 4096);
    sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 64);
    sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 32);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
}

static int
exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* One integer a statement gives (a pragma's): -1 when it gives none. */
static gint64
query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    gint64 v = -1;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) == SQLITE_INTEGER)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Is the database's schema exactly gallop's? NULL when it is; else why
 * not, in words (static). A database with no object at all is "empty". */
static const char *
schema_problem(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    const char *problem = NULL;
    guint seen = 0;

    if (sqlite3_prepare_v2(db, "SELECT type, name, sql FROM sqlite_schema", -1, &st, NULL) !=
        SQLITE_OK)
        return "its schema cannot be read";
    while (!problem && sqlite3_step(st) == SQLITE_ROW) {
        const char *type = (const char *) sqlite3_column_text(st, 0);
        const char *name = (const char *) sqlite3_column_text(st, 1);
        const char *sql = (const char *) sqlite3_column_text(st, 2);
        gboolean ours = FALSE;

        for (size_t i = 0; i < G_N_ELEMENTS(schema) && type && name && sql; i++)
            if (strcmp(type, schema[i].type) == 0 && strcmp(name, schema[i].name) == 0 &&
                strcmp(sql, schema[i].sql) == 0)
                ours = TRUE;
        if (!ours)
            problem = "it holds tables or indexes gallop does not make";
        seen++;
    }
    if (!problem && sqlite3_errcode(db) != SQLITE_OK && sqlite3_errcode(db) != SQLITE_DONE &&
        sqlite3_errcode(db) != SQLITE_ROW)
        problem = "its schema cannot be read";
    sqlite3_finalize(st);
    if (!problem && seen == 0)
        return "empty";
    if (!problem && seen != G_N_ELEMENTS(schema))
        problem = "it lacks tables gallop makes";
    return problem;
}

static int
create_schema(sqlite3 *db)
{
    g_autofree char *marks = g_strdup_printf("PRAGMA application_id = %d; "
                                             "PRAGMA user_version = %d",
        STORE_APPLICATION_ID, STORE_VERSION);

    if (exec(db, "BEGIN IMMEDIATE") != SQLITE_OK)
        return -1;
    for (size_t i = 0; i < G_N_ELEMENTS(schema); i++)
        if (exec(db, schema[i].sql) != SQLITE_OK) {
            exec(db, "ROLLBACK");
            return -1;
        }
    if (exec(db, marks) != SQLITE_OK || exec(db, "COMMIT") != SQLITE_OK) {
        exec(db, "ROLLBACK");
        return -1;
    }
    return 0;
}

/* Why the open database is not usable, in words (a new string), or NULL.
 * An empty one is given gallop's schema when it may be written. */
static char *
check_database(gal_store *s)
{
    const char *problem;
    gint64 id, version;

    /* The first read of the file: a file that is no database fails here. */
    if ((problem = schema_problem(s->db)) && strcmp(problem, "empty") == 0) {
        if (s->mode == GAL_STORE_WRITE || s->mode == GAL_STORE_PART)
            return create_schema(s->db) ? g_strdup_printf("cannot be created: %s",
                                              sqlite3_errmsg(s->db))
                                        : NULL;
        return NULL; /* a look at an empty file: no records */
    }
    if (problem && sqlite3_errcode(s->db) != SQLITE_OK && sqlite3_errcode(s->db) != SQLITE_DONE)
        return g_strdup_printf("cannot be read as a database (%s)", sqlite3_errmsg(s->db));
    id = query_int(s->db, "PRAGMA application_id");
    version = query_int(s->db, "PRAGMA user_version");
    if (id != STORE_APPLICATION_ID)
        return g_strdup("not a gallop database");
    if (version != STORE_VERSION)
        return g_strdup_printf("written by another gallop (format %" G_GINT64_FORMAT
                               ", this one reads %d)",
            version, STORE_VERSION);
    if (problem)
        return g_strdup_printf("not gallop's schema: %s", problem);
    return NULL;
}

/* The files SQLite keeps beside a database. */
static const char *const sidecars[] = { "-wal", "-shm", "-journal" };

/* Remove the database `name` beneath the folder and the files beside it
 * (a damaged one, replaced): only as names in the folder, never through a
 * link. */
static void
remove_database(int dir_fd, const char *name)
{
    unlinkat(dir_fd, name, 0);
    for (size_t i = 0; i < G_N_ELEMENTS(sidecars); i++) {
        g_autofree char *side = g_strconcat(name, sidecars[i], NULL);

        unlinkat(dir_fd, side, 0);
    }
}

/* What is at `name` in the folder, when it is not a regular file that
 * SQLite may open (a link would have it read or write elsewhere): in
 * words, or NULL. */
static const char *
not_a_file(int dir_fd, const char *name, gint64 *size)
{
    struct stat st;

    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? NULL : "cannot be looked at";
    *size = st.st_size;
    if (S_ISLNK(st.st_mode))
        return "a symbolic link, not a file";
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    return NULL;
}

static int
open_connection(gal_store *s, const char *path)
{
    g_autofree char *uri = NULL;
    int flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW |
        SQLITE_OPEN_EXRESCODE;

    switch (s->mode) {
    case GAL_STORE_READ: {
        g_autofree char *wal = g_strconcat(path, "-wal", NULL);

        /* Nothing is written there while it is read, as a rule (a shard
         * reads what the last merge left): no lock to take, no journal to
         * look at; unless a writer left its log beside it (it runs, or was
         * killed), which holds what it committed last. */
        uri = file_uri(path, g_file_test(wal, G_FILE_TEST_EXISTS) ? "mode=ro"
                                                                  : "mode=ro&immutable=1");
        flags |= SQLITE_OPEN_READONLY;
        break;
    }
    default:
        uri = file_uri(path, NULL);
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    }
    if (sqlite3_open_v2(uri, &s->db, flags, NULL) != SQLITE_OK)
        return -1;
    harden(s->db);
    sqlite3_progress_handler(s->db, 1000, out_of_steps, s);
    s->steps_left = G_MAXINT64;
    sqlite3_busy_timeout(s->db, 10000);
    exec(s->db, "PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0");
    /* The pages a writer changes stay in its cache until they are
     * committed (a merge's million records: 64 MiB at most); a reader goes
     * through the records in order, page after page, and a merge holds
     * every part open at once (a hundred), so a small cache each. */
    exec(s->db, s->mode == GAL_STORE_WRITE ? "PRAGMA cache_size = -65536"
                                           : "PRAGMA cache_size = -2048");
    if (s->mode == GAL_STORE_WRITE || s->mode == GAL_STORE_PART) {
        /* Photos are recorded as they finish, a commit each: appended to
         * the write-ahead log, synced at checkpoints, so a killed run
         * keeps every photo it committed. */
        if (exec(s->db, s->bulk ? "PRAGMA journal_mode = TRUNCATE"
                                : "PRAGMA journal_mode = WAL") != SQLITE_OK)
            return -1;
        exec(s->db, "PRAGMA synchronous = NORMAL");
    }
    return 0;
}

static void
close_connection(gal_store *s)
{
    for (int i = 0; i < ST_N; i++)
        g_clear_pointer(&s->st[i], sqlite3_finalize);
    sqlite3_close(s->db);
    s->db = NULL;
}

/* An empty store in memory, for a look at a folder without one. */
static int
open_memory(gal_store *s)
{
    if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        return -1;
    harden(s->db);
    return create_schema(s->db);
}

/* Why the file `name` in the folder cannot be opened as it is (a link
 * would have SQLite read or write elsewhere, and so would a link in place
 * of its journal): in words, or NULL. *exists says whether it is there. */
static char *
file_problem(int dir_fd, const char *name, gboolean *exists)
{
    gint64 size = 0;
    const char *kind = not_a_file(dir_fd, name, &size);

    *exists = faccessat(dir_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
    for (size_t i = 0; !kind && i < G_N_ELEMENTS(sidecars); i++) {
        g_autofree char *side = g_strconcat(name, sidecars[i], NULL);
        gint64 ignored;

        if (not_a_file(dir_fd, side, &ignored))
            kind = "its journal is a link or a special file";
    }
    if (kind)
        return g_strdup(kind);
    if (size > gal__limits.manifest_bytes)
        return g_strdup_printf("larger than the %" G_GINT64_FORMAT " MiB limit",
            gal__limits.manifest_bytes >> 20);
    return NULL;
}

gal_store *
gal__store_open(const char *dir, const char *name, gal_store_mode mode, GPtrArray *warnings,
    gal_error *err)
{
    static gsize configured;
    gal_store *s = g_new0(gal_store, 1);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *problem = NULL;
    gboolean writes = mode == GAL_STORE_WRITE || mode == GAL_STORE_PART;
    /* A merge reading a shard's part: what is not one cannot be taken. */
    gboolean reading_part = mode != GAL_STORE_PART && strstr(name, "-of-") != NULL;
    gboolean exists = FALSE;
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    /* SQLite counts every allocation under a global mutex unless told
     * not to, before its first use: a merge's million records are tens of
     * millions of allocations, and nothing here reads the count. */
    if (g_once_init_enter(&configured)) {
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        g_once_init_leave(&configured, 1);
    }
    s->mode = mode;
    s->dir = g_strdup(dir);
    s->name = g_strdup(name);
    s->warnings = warnings;
    g_rec_mutex_init(&s->lock);
    /* A folder that cannot be opened holds no records; its writes fail
     * and say why. */
    if (dir_fd >= 0)
        problem = file_problem(dir_fd, name, &exists);
    else if (reading_part)
        problem = g_strdup_printf("its folder cannot be opened (%s)", g_strerror(errno));
    if (!problem && !exists && !reading_part) {
        /* Nothing there to look at; made at the first write. */
        if (writes)
            s->create_path = g_steal_pointer(&path);
        goto in_memory;
    }
    if (!problem && open_connection(s, path) != 0)
        problem = g_strdup_printf("cannot be opened (%s)",
            s->db ? sqlite3_errmsg(s->db) : "out of memory");
    if (!problem)
        problem = check_database(s);
    /* A merge holds a hundred parts open and reads each in order, once:
     * a few pages each (2 MiB each held 200 MB at a million photos). */
    if (!problem && reading_part)
        exec(s->db, "PRAGMA cache_size = -256");
    if (!problem)
        goto done;
    if (s->db)
        close_connection(s);
    if (reading_part) {
        gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s: %s: the part is damaged; run its "
            "shard again", path, problem);
        goto failed;
    }
    warn(s, "%s: ignored, every output is checked again", problem);
    if (!writes)
        goto in_memory;
    g_clear_pointer(&problem, g_free);
    /* Replaced by a new one: the first write would fail on it. */
    if (dir_fd >= 0)
        remove_database(dir_fd, name);
    if (dir_fd < 0 || open_connection(s, path) != 0 || (problem = check_database(s))) {
        gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s: cannot be made: %s", path,
            problem ? problem : s->db ? sqlite3_errmsg(s->db) : g_strerror(errno));
        goto failed;
    }
    goto done;
in_memory:
    if (s->db)
        close_connection(s);
    if (open_memory(s) != 0) {
        gal_error_set(err, GAL_ERR_INTERNAL, NULL, NULL, "%s: in memory: %s", path,
            s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto failed;
    }
done:
    if (dir_fd >= 0)
        close(dir_fd);
    return s;
failed:
    if (dir_fd >= 0)
        close(dir_fd);
    gal__store_close(s, NULL);
    return NULL;
}

/* Take the store for a call; the outermost one sets how much work it may
 * take: a record's lookup a little, a walk of the records about what the
 * file's size allows, so a walk a damaged file would make endless ends.
 * Measured: a walk of a part takes a thousand SQLite instructions per 35 KB
 * of its file, the join of a hundred thousand records 500 of them; a walk
 * may take a hundred times that. */
static void
lock(gal_store *s, gboolean walk)
{
    g_rec_mutex_lock(&s->lock);
    if (s->depth++ == 0) {
        g_autofree char *path = g_build_filename(s->dir, s->name, NULL);
        g_autofree char *wal = g_strconcat(path, "-wal", NULL);
        struct stat st;
        gint64 bytes = 0;

        if (walk && stat(path, &st) == 0)
            bytes += st.st_size;
        if (walk && stat(wal, &st) == 0)
            bytes += st.st_size;
        s->steps_left = 500 + bytes / 256;
    }
}

static void
unlock(gal_store *s)
{
    s->depth--;
    g_rec_mutex_unlock(&s->lock);
}

static int
store_failed(gal_store *s, const char *what, gal_error *err)
{
    s->failed = TRUE;
    return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s: %s: %s", s->dir, s->name,
        what, sqlite3_errmsg(s->db));
}

/* Commit what is pending (the caller holds the lock). */
static int
commit_locked(gal_store *s, gboolean durable, gal_error *err)
{
    if (!s->in_transaction)
        return 0;
    s->in_transaction = FALSE;
    if (durable)
        exec(s->db, "PRAGMA synchronous = FULL");
    if (exec(s->db, "COMMIT") != SQLITE_OK) {
        exec(s->db, "ROLLBACK");
        return store_failed(s, "cannot be written", err);
    }
    if (durable)
        exec(s->db, "PRAGMA synchronous = NORMAL");
    return 0;
}

int
gal__store_close(gal_store *s, gal_error *err)
{
    int failed = 0;

    if (!s)
        return 0;
    if (s->db) {
        lock(s, FALSE);
        failed = commit_locked(s, s->mode == GAL_STORE_PART, err);
        unlock(s);
        for (int i = 0; i < ST_N; i++)
            g_clear_pointer(&s->st[i], sqlite3_finalize);
        /* A part is left as one file, the log folded in, for the merge to
         * read without taking a lock (GAL_STORE_READ). */
        if (s->mode == GAL_STORE_PART && !s->failed)
            exec(s->db, "PRAGMA journal_mode = DELETE");
        if (sqlite3_close(s->db) != SQLITE_OK && !failed)
            failed = gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s: cannot be closed: %s",
                s->dir, s->name, sqlite3_errmsg(s->db));
    }
    g_rec_mutex_clear(&s->lock);
    for (guint w = 0; s->said && w < s->said->len; w++)
        g_ptr_array_add(s->warnings, s->said->pdata[w]);
    if (s->said)
        g_ptr_array_free(s->said, TRUE);
    g_free(s->create_path);
    if (s->refused)
        g_hash_table_unref(s->refused);
    g_free(s->dir);
    g_free(s->name);
    g_free(s);
    return failed;
}

/* Statement `which`, prepared once, reset and its bindings cleared. */
static sqlite3_stmt *
statement(gal_store *s, int which)
{
    if (!s->st[which] &&
        sqlite3_prepare_v3(s->db, statements[which], -1, SQLITE_PREPARE_PERSISTENT,
            &s->st[which], NULL) != SQLITE_OK)
        return NULL;
    sqlite3_reset(s->st[which]);
    sqlite3_clear_bindings(s->st[which]);
    return s->st[which];
}

/* The database made at its first write, in place of the empty one in
 * memory (the caller holds the lock). */
static int
create_locked(gal_store *s, gal_error *err)
{
    g_autofree char *path = g_steal_pointer(&s->create_path);
    g_autofree char *problem = NULL;

    close_connection(s);
    if (open_connection(s, path) != 0 || (problem = check_database(s))) {
        gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s: cannot be made: %s", path,
            problem ? problem : s->db ? sqlite3_errmsg(s->db) : "out of memory");
        s->failed = TRUE;
        if (s->db)
            close_connection(s);
        open_memory(s);
        return -1;
    }
    return 0;
}

/* Begin a transaction unless one is pending (the caller holds the lock). */
static int
begin_locked(gal_store *s, gal_error *err)
{
    if (s->failed)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s: not written after an "
            "earlier failure", s->dir, s->name);
    if (s->in_transaction)
        return 0;
    if (s->create_path && create_locked(s, err))
        return -1;
    if (exec(s->db, "BEGIN IMMEDIATE") != SQLITE_OK)
        return store_failed(s, "cannot be written", err);
    s->in_transaction = TRUE;
    return 0;
}

int
gal__store_commit(gal_store *s, gboolean durable, gal_error *err)
{
    int failed;

    lock(s, FALSE);
    failed = commit_locked(s, durable, err);
    unlock(s);
    return failed;
}

/* Lines joined with '\n' (NULL: none; NULL items are empty lines), each
 * with its own newlines and backslashes escaped ("\\n", "\\\\"): a
 * caption in an item's facts may hold several lines. New string. */
static char *
join_lines(const char *const *lines, int n)
{
    GString *out;

    if (!lines)
        return NULL;
    out = g_string_new(NULL);
    for (int i = 0; n < 0 ? lines[i] != NULL : i < n; i++) {
        if (i)
            g_string_append_c(out, '\n');
        for (const char *c = lines[i] ? lines[i] : ""; *c; c++)
            if (*c == '\n')
                g_string_append(out, "\\n");
            else if (*c == '\\')
                g_string_append(out, "\\\\");
            else
                g_string_append_c(out, *c);
    }
    return g_string_free(out, FALSE);
}

/* join_lines undone: the lines, unescaped (a new array). */
static char **
split_lines(const char *text)
{
    char **lines = g_strsplit(text, "\n", -1);

    for (int i = 0; lines[i]; i++) {
        char *to = lines[i];

        for (const char *c = lines[i]; *c; c++)
            if (*c == '\\' && c[1] == 'n')
                *to++ = '\n', c++;
            else if (*c == '\\' && c[1] == '\\')
                *to++ = '\\', c++;
            else
                *to++ = *c;
        *to = '\0';
    }
    return lines;
}

void
gal__store_rollback(gal_store *s)
{
    lock(s, FALSE);
    if (s->in_transaction)
        exec(s->db, "ROLLBACK");
    s->in_transaction = FALSE;
    unlock(s);
}

/* ---- reading a record -------------------------------------------------------------- */

static const char *
column_text(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_TEXT ? (const char *) sqlite3_column_text(st, c)
                                                     : NULL;
}

static gboolean
column_int(sqlite3_stmt *st, int c, gint64 min, gint64 max, gint64 *v)
{
    if (sqlite3_column_type(st, c) != SQLITE_INTEGER)
        return FALSE;
    *v = sqlite3_column_int64(st, c);
    return *v >= min && *v <= max;
}

/* Valid UTF-8 with no control character but tab (a caption's text may
 * hold none, a name key holds tabs): what a report may print. */
static gboolean
plain_text(const char *text)
{
    if (!g_utf8_validate(text, -1, NULL))
        return FALSE;
    for (const char *c = text; *c; c++)
        if ((guchar) *c < 0x20 && *c != '\t' && *c != '\n')
            return FALSE;
    return TRUE;
}

static gboolean
optional_text(sqlite3_stmt *st, int c, char **out)
{
    const char *text = column_text(st, c);

    if (sqlite3_column_type(st, c) != SQLITE_NULL && (!text || !plain_text(text)))
        return FALSE;
    *out = g_strdup(text);
    return TRUE;
}

/* A record's path: relative, beneath the folder, none of gallop's own
 * files. */
static gboolean
path_ok(const char *rel)
{
    return rel && gal__path_is_beneath(rel) && !g_str_has_suffix(rel, GAL_TMP_SUFFIX) &&
        !g_str_has_prefix(rel, GAL_MANIFEST_PREFIX);
}

/* An input as recorded: relative to the output folder, where ".." may
 * lead up from it; no NUL, no empty name. */
static gboolean
input_ok(const char *rel, gal_record_kind kind)
{
    if (!rel || !plain_text(rel) || strchr(rel, '\n') || strchr(rel, '\t'))
        return FALSE;
    return kind == GAL_RECORD_PAGE ? *rel == '\0' : *rel != '\0' && !g_path_is_absolute(rel);
}

static gboolean
digest_column(sqlite3_stmt *st, int c, gal_digest *d, gboolean sha256_only)
{
    const char *hex = column_text(st, c);

    if (!hex)
        return FALSE;
    if (!*hex) {
        d->len = 0;
        return TRUE;
    }
    if (sha256_only ? !gal__is_sha256_hex(hex) : !gal__is_content_digest(hex))
        return FALSE;
    gal__digest_from_hex(d, hex);
    return TRUE;
}

static gboolean
lines_column(sqlite3_stmt *st, int c, char ***out)
{
    const char *text = column_text(st, c);

    *out = NULL;
    if (sqlite3_column_type(st, c) == SQLITE_NULL)
        return TRUE;
    if (!text || !plain_text(text))
        return FALSE;
    *out = split_lines(text);
    return TRUE;
}

/* A row of the product table into `r`: FALSE (and `r` cleared) when a
 * value does not check, with `why` the column. `whole`: its about and
 * facts too (else left NULL, unread). */
static gboolean
row_record(sqlite3_stmt *st, gal_record *r, gboolean whole, const char **why)
{
    gint64 v[8];
    const char *recipe = column_text(st, 6);
    g_auto(GStrv) about = NULL;
    g_auto(GStrv) facts = NULL;

    *r = (gal_record) { 0 };
    if (!column_int(st, 1, 0, GAL_RECORD_ITEM, &v[7]) && (*why = "kind"))
        return FALSE;
    r->kind = (gal_record_kind) v[7];
    r->output = g_strdup(column_text(st, 0));
    r->input = g_strdup(column_text(st, 2));
    if (!path_ok(r->output) && (*why = "output"))
        goto bad;
    if (!input_ok(r->input, r->kind) && (*why = "input"))
        goto bad;
    if (!(column_int(st, 3, 0, G_MAXINT64, &v[0]) && column_int(st, 4, G_MININT64, G_MAXINT64,
              &v[1])) &&
        (*why = "in_size"))
        goto bad;
    if (!digest_column(st, 5, &r->in_digest, r->kind == GAL_RECORD_PAGE) && (*why = "in_digest"))
        goto bad;
    if (!(recipe && gal__is_sha256_hex(recipe)) && (*why = "recipe"))
        goto bad;
    g_strlcpy(r->recipe, recipe, sizeof(r->recipe));
    if (!optional_text(st, 7, &r->version) || !r->version || strlen(r->version) > 32) {
        *why = "version";
        goto bad;
    }
    if (!(column_int(st, 8, 0, G_MAXINT64, &v[2]) &&
            column_int(st, 9, G_MININT64, G_MAXINT64, &v[3])) &&
        (*why = "out_size"))
        goto bad;
    if (!digest_column(st, 10, &r->out_sha256, TRUE) && (*why = "out_sha256"))
        goto bad;
    if (!(column_int(st, 11, 0, G_MAXINT, &v[4]) && column_int(st, 12, 0, G_MAXINT, &v[5]) &&
            column_int(st, 16, 0, 1, &v[6])) &&
        (*why = "width"))
        goto bad;
    if (!(optional_text(st, 13, &r->name_key) && optional_text(st, 14, &r->caption) &&
            optional_text(st, 15, &r->caption_source)) &&
        (*why = "caption"))
        goto bad;
    if (whole && !(lines_column(st, 17, &about) && lines_column(st, 18, &facts)) &&
        (*why = "about"))
        goto bad;
    r->in_size = v[0];
    r->in_mtime_ns = v[1];
    r->out_size = v[2];
    r->out_mtime_ns = v[3];
    r->width = (int) v[4];
    r->height = (int) v[5];
    r->caption_cut = v[6] != 0;
    if (about)
        r->about = gal__about_new((const char *const *) about, g_strv_length(about));
    if (facts && r->kind == GAL_RECORD_ITEM) {
        /* One line per fact, "" for none. */
        for (int f = 0; f < GAL_ITEM_FACTS && facts[f]; f++)
            if (*facts[f])
                gal__record_facts(r)[f] = g_strdup(facts[f]);
        gal__record_facts(r);
    }
    return TRUE;
bad:
    gal__record_clear(r);
    return FALSE;
}

gboolean
gal__record_valid(const gal_record *r)
{
    const char *const texts[] = { r->version, r->name_key, r->caption, r->caption_source };
    g_auto(GStrv) about = gal__about_fields(r->about);

    if (!path_ok(r->output) || !input_ok(r->input, r->kind) || !r->version ||
        strlen(r->version) > 32)
        return FALSE;
    for (size_t t = 0; t < G_N_ELEMENTS(texts); t++)
        if (texts[t] && !plain_text(texts[t]))
            return FALSE;
    for (int a = 0; about && about[a]; a++)
        if (!plain_text(about[a]))
            return FALSE;
    for (int f = 0; r->facts && f < GAL_ITEM_FACTS; f++)
        if (r->facts[f] && !plain_text(r->facts[f]))
            return FALSE;
    for (guint d = 0; r->deps && d < r->deps->len; d++) {
        const gal_dep_record *dep = r->deps->pdata[d];

        if (!*dep->path || !plain_text(dep->path) || g_path_is_absolute(dep->path))
            return FALSE;
    }
    return TRUE;
}

/* The record's files it depends on (the caller holds the lock). */
static gboolean
read_deps(gal_store *s, gal_record *r)
{
    sqlite3_stmt *st = statement(s, ST_GET_DEPS);
    int rc;

    if (!st)
        return FALSE;
    sqlite3_bind_text(st, 1, r->output, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *path = column_text(st, 0), *digest = column_text(st, 3);

        /* A photo's output depends on a few files (sidecars, a table's
         * row); thousands are a damaged file's. */
        if (r->deps && r->deps->len >= 1024)
            return FALSE;
        gint64 size, mtime;

        /* A file a preset or a photo named: relative to the folder, ".."
         * allowed; a digest as recorded, or "row:" and 16 hex digits. */
        if (!path || !*path || !plain_text(path) || g_path_is_absolute(path) ||
            !column_int(st, 1, -1, G_MAXINT64, &size) ||
            !column_int(st, 2, G_MININT64, G_MAXINT64, &mtime) || !digest ||
            (size >= 0 && !gal__is_content_digest(digest) &&
                !(strlen(digest) == 20 && g_str_has_prefix(digest, "row:"))))
            return FALSE;
        gal__record_add_dep(r, path, size >= 0, size, mtime, digest);
    }
    return rc == SQLITE_DONE;
}

/* A walk of the records ended before their end: the file is damaged
 * (a walk that would not end, stopped by its budget), said once. */
static void
walk_ended(gal_store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_errcode(s->db);

    if (rc != SQLITE_DONE && rc != SQLITE_ROW && rc != SQLITE_OK && !s->refused_walk) {
        s->refused_walk = TRUE;
        warn(s, "its records could not be read to their end (%s): the rest are checked "
                "again", sqlite3_errstr(rc));
    }
    sqlite3_reset(st);
}

/* A record read is refused: said once per output. */
static void
refuse(gal_store *s, const char *output, const char *why)
{
    /* A path is shown whole unless it is longer than any a folder holds. */
    g_autofree char *shown = gal__excerpt(output ? output : "", 4 * GAL_EXCERPT_CHARS);

    if (!s->refused)
        s->refused = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (!g_hash_table_add(s->refused, g_strdup(output ? output : "")))
        return;
    if (why && strcmp(why, "output") == 0)
        warn(s, "record \"%s\" refused: not a relative path beneath the output folder", shown);
    else
        warn(s, "record \"%s\" refused: its %s does not check", shown, why ? why : "row");
}

gboolean
gal__store_get(gal_store *s, const char *output, gal_record *out)
{
    sqlite3_stmt *st;
    const char *why = NULL;
    gboolean found = FALSE;

    *out = (gal_record) { 0 };
    lock(s, FALSE);
    if ((st = statement(s, ST_GET))) {
        sqlite3_bind_text(st, 1, output, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            found = row_record(st, out, TRUE, &why);
            if (found && !read_deps(s, out)) {
                gal__record_clear(out);
                found = FALSE;
                why = "depend rows";
            }
            if (!found)
                refuse(s, output, why);
        }
        sqlite3_reset(st);
    }
    unlock(s);
    return found;
}

static void
bind_text_or_null(sqlite3_stmt *st, int c, const char *text)
{
    if (text)
        sqlite3_bind_text(st, c, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, c);
}

static gboolean
step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    return rc == SQLITE_DONE;
}

int
gal__store_put(gal_store *s, const gal_record *r, gal_error *err)
{
    sqlite3_stmt *st;
    char in_hex[65], out_hex[65];
    g_auto(GStrv) about_fields = gal__about_fields(r->about);
    g_autofree char *about = join_lines((const char *const *) about_fields, -1);
    g_autofree char *facts = r->facts ? join_lines((const char *const *) r->facts,
                                            GAL_ITEM_FACTS)
                                      : NULL;

    lock(s, FALSE);
    if (begin_locked(s, err)) {
        unlock(s);
        return -1;
    }
    if (!(st = statement(s, ST_DEL_DEPS)))
        goto failed;
    sqlite3_bind_text(st, 1, r->output, -1, SQLITE_STATIC);
    if (!step_done(st) || !(st = statement(s, ST_PUT)))
        goto failed;
    sqlite3_bind_text(st, 1, r->output, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, kind_names[r->kind], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->input ? r->input : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, r->in_size);
    sqlite3_bind_int64(st, 5, r->in_mtime_ns);
    sqlite3_bind_text(st, 6, gal__digest_hex(&r->in_digest, in_hex), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, r->recipe, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, r->version ? r->version : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, r->out_size);
    sqlite3_bind_int64(st, 10, r->out_mtime_ns);
    sqlite3_bind_text(st, 11, gal__digest_hex(&r->out_sha256, out_hex), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 12, r->width);
    sqlite3_bind_int(st, 13, r->height);
    bind_text_or_null(st, 14, r->name_key);
    bind_text_or_null(st, 15, r->caption);
    bind_text_or_null(st, 16, r->caption_source);
    sqlite3_bind_int(st, 17, r->caption_cut);
    bind_text_or_null(st, 18, about);
    bind_text_or_null(st, 19, facts);
    if (!step_done(st))
        goto failed;
    for (guint d = 0; r->deps && d < r->deps->len; d++) {
        const gal_dep_record *dep = r->deps->pdata[d];

        if (!(st = statement(s, ST_PUT_DEP)))
            goto failed;
        sqlite3_bind_text(st, 1, r->output, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, dep->path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, dep->exists ? dep->size : -1);
        sqlite3_bind_int64(st, 4, dep->exists ? dep->mtime_ns : 0);
        sqlite3_bind_text(st, 5, dep->exists ? dep->digest : "", -1, SQLITE_STATIC);
        if (!step_done(st))
            goto failed;
    }
    unlock(s);
    return 0;
failed:
    store_failed(s, "cannot be written", err);
    unlock(s);
    return -1;
}

int
gal__store_remove(gal_store *s, const char *output, gal_error *err)
{
    int failed = 0;

    lock(s, FALSE);
    if (begin_locked(s, err))
        failed = -1;
    for (int which = ST_DEL; !failed && which <= ST_DEL_DEPS; which++) {
        sqlite3_stmt *st = statement(s, which);

        if (!st)
            failed = store_failed(s, "cannot be written", err);
        else {
            sqlite3_bind_text(st, 1, output, -1, SQLITE_STATIC);
            if (!step_done(st))
                failed = store_failed(s, "cannot be written", err);
        }
    }
    unlock(s);
    return failed;
}

/* Each row of `st` (bound), as records without their about, facts and
 * depend rows, to `fn`, as they are read (the caller holds the lock). */
static void
each_row(gal_store *s, sqlite3_stmt *st, gal_record_fn fn, void *user)
{
    const char *why;
    gal_record r;

    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!row_record(st, &r, FALSE, &why)) {
            refuse(s, column_text(st, 0), why);
            continue;
        }
        if (!fn(&r, user)) {
            gal__record_clear(&r);
            sqlite3_reset(st);
            return;
        }
        gal__record_clear(&r);
    }
    walk_ended(s, st);
}

void
gal__store_each(gal_store *s, unsigned kinds, gal_record_fn fn, void *user)
{
    sqlite3_stmt *st;

    lock(s, TRUE);
    if ((st = statement(s, ST_EACH))) {
        sqlite3_bind_int(st, 1, (int) (kinds & 7) | 8);
        each_row(s, st, fn, user);
    }
    unlock(s);
}

void
gal__store_each_name(gal_store *s, unsigned kinds, gal_record_fn fn, void *user)
{
    sqlite3_stmt *st;

    lock(s, TRUE);
    if ((st = statement(s, ST_NAMES))) {
        sqlite3_bind_int(st, 1, (int) (kinds & 7) | 8);
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *output = column_text(st, 0);
            gal_record r = { 0 };
            gint64 k = -1;

            column_int(st, 1, 0, GAL_RECORD_ITEM, &k);
            r.kind = (gal_record_kind) k;
            r.output = (char *) output;
            r.input = (char *) column_text(st, 2);
            if (k < 0 || !path_ok(r.output) || !input_ok(r.input, r.kind)) {
                refuse(s, output, k < 0 ? "kind" : !path_ok(output) ? "output" : "input");
                continue;
            }
            if (!fn(&r, user)) {
                sqlite3_reset(st);
                unlock(s);
                return;
            }
        }
        walk_ended(s, st);
    }
    unlock(s);
}

void
gal__store_bulk(gal_store *s)
{
    lock(s, FALSE);
    s->bulk = s->mode == GAL_STORE_WRITE;
    /* A database made at the first write is made so (open_connection). */
    if (s->bulk && !s->in_transaction && !s->create_path)
        exec(s->db, "PRAGMA journal_mode = TRUNCATE");
    unlock(s);
}

gint64
gal__store_count(gal_store *s, unsigned kinds)
{
    sqlite3_stmt *st;
    gint64 n = 0;

    lock(s, TRUE);
    if ((st = statement(s, ST_COUNT))) {
        sqlite3_bind_int(st, 1, (int) (kinds & 7));
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
    }
    unlock(s);
    return n;
}

/* One statement on a connection, prepared for the join. */
static sqlite3_stmt *
prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        g_clear_pointer(&st, sqlite3_finalize);
    return st;
}

/* The parts being joined: each one's rows in output order, the parts with
 * a row left in a heap by that row's output (then by part, so that the
 * first part's record of an output comes first). */
typedef struct {
    sqlite3_stmt **rows;    /* per part: its product rows, stepped to the current one */
    const char **outputs;   /* per part: its current row's output */
    int *heap, n;           /* parts with a current row */
} part_cursors;

static int
cursor_cmp(const part_cursors *c, int a, int b)
{
    int by_output = strcmp(c->outputs[a], c->outputs[b]);

    return by_output ? by_output : a - b;
}

static void
heap_down(part_cursors *c, int at)
{
    for (;;) {
        int least = at, l = 2 * at + 1, r = l + 1, swap;

        if (l < c->n && cursor_cmp(c, c->heap[l], c->heap[least]) < 0)
            least = l;
        if (r < c->n && cursor_cmp(c, c->heap[r], c->heap[least]) < 0)
            least = r;
        if (least == at)
            return;
        swap = c->heap[at];
        c->heap[at] = c->heap[least];
        c->heap[least] = swap;
        at = least;
    }
}

/* Step part p to its next row whose output is text; FALSE at its end. */
static gboolean
cursor_step(part_cursors *c, int p)
{
    while (sqlite3_step(c->rows[p]) == SQLITE_ROW)
        if ((c->outputs[p] = column_text(c->rows[p], 0)))
            return TRUE;
    return FALSE;
}

/* The first n values of `row` bound to `put` as they are: their text is
 * the row's, not copied, and `put` is stepped before `row` moves on. */
static void
copy_row(sqlite3_stmt *put, sqlite3_stmt *row, int n)
{
    for (int col = 0; col < n; col++)
        switch (sqlite3_column_type(row, col)) {
        case SQLITE_INTEGER:
            sqlite3_bind_int64(put, col + 1, sqlite3_column_int64(row, col));
            break;
        case SQLITE_TEXT:
            sqlite3_bind_text(put, col + 1, (const char *) sqlite3_column_text(row, col),
                sqlite3_column_bytes(row, col), SQLITE_STATIC);
            break;
        default:
            sqlite3_bind_value(put, col + 1, sqlite3_column_value(row, col));
        }
}

int
gal__store_join(gal_store *s, gal_store *const *parts, int n, gal_record_keep_fn keep,
    void *user, gal_error *err)
{
    g_autofree sqlite3_stmt **rows = g_new0(sqlite3_stmt *, MAX(n, 1));
    g_autofree const char **outputs = g_new0(const char *, MAX(n, 1));
    g_autofree int *heap = g_new0(int, MAX(n, 1));
    part_cursors c = { rows, outputs, heap, 0 };
    sqlite3_stmt *put, *put_dep = NULL, *del_deps = NULL, *put_recipe = NULL;
    g_autoptr(GHashTable) left_out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        NULL);
    gboolean had_deps;
    int failed = 0;

    lock(s, TRUE);
    if (begin_locked(s, err)) {
        unlock(s);
        return -1;
    }
    /* Records a rerun of the merge replaces had depend rows of their own:
     * only then are they removed record by record. */
    had_deps = query_int(s->db, "SELECT EXISTS (SELECT 1 FROM depend)") == 1;
    put = statement(s, ST_PUT);
    put_dep = prepare(s->db, statements[ST_PUT_DEP]);
    del_deps = prepare(s->db, statements[ST_DEL_DEPS]);
    put_recipe = prepare(s->db, statements[ST_PUT_RECIPE]);
    if (!put || !put_dep || !del_deps || !put_recipe)
        failed = store_failed(s, "cannot be joined", err);
    for (int p = 0; !failed && p < n; p++) {
        lock(parts[p], TRUE);
        if (!(c.rows[p] = prepare(parts[p]->db, "SELECT * FROM product ORDER BY output")))
            failed = store_failed(s, "cannot be joined", err);
        else if (cursor_step(&c, p))
            c.heap[c.n++] = p;
    }
    for (int at = c.n / 2 - 1; at >= 0; at--)
        heap_down(&c, at);
    /* The parts' records in output order, as sort -m would join them:
     * each new record goes at the end of the table's tree, none among
     * others. Values are copied as they are: each is checked when it is
     * read (row_record); here only what the join itself needs. */
    while (!failed && c.n > 0) {
        int p = c.heap[0];
        sqlite3_stmt *row = c.rows[p];
        const char *output = c.outputs[p];
        const char *input = column_text(row, 2);

        if (!path_ok(output) || !input)
            refuse(parts[p], output, "output");
        else if (keep && !keep(output, input, p, user))
            g_hash_table_add(left_out, g_strdup_printf("%d\t%s", p, output));
        else {
            if (had_deps) {
                sqlite3_bind_text(del_deps, 1, output, -1, SQLITE_TRANSIENT);
                if (!step_done(del_deps))
                    failed = store_failed(s, "cannot be written", err);
            }
            copy_row(put, row, 19);
            if (!failed && !step_done(put))
                failed = store_failed(s, "cannot be written", err);
        }
        if (!cursor_step(&c, p))
            c.heap[0] = c.heap[--c.n];
        heap_down(&c, 0);
    }
    /* Each part's depend rows (but those of records left out) and recipes. */
    for (int p = 0; !failed && p < n; p++) {
        sqlite3_stmt *deps = prepare(parts[p]->db, "SELECT * FROM depend");
        sqlite3_stmt *recipes = prepare(parts[p]->db, "SELECT digest, keys FROM recipe");

        while (deps && !failed && sqlite3_step(deps) == SQLITE_ROW) {
            g_autofree char *key = g_hash_table_size(left_out)
                ? g_strdup_printf("%d\t%s", p, column_text(deps, 0)) : NULL;

            if (key && g_hash_table_contains(left_out, key))
                continue;
            copy_row(put_dep, deps, 5);
            if (!step_done(put_dep))
                failed = store_failed(s, "cannot be written", err);
        }
        while (recipes && !failed && sqlite3_step(recipes) == SQLITE_ROW) {
            const char *digest = column_text(recipes, 0), *lines = column_text(recipes, 1);

            if (!digest || !gal__is_sha256_hex(digest) || !lines || !plain_text(lines))
                continue;
            sqlite3_bind_value(put_recipe, 1, sqlite3_column_value(recipes, 0));
            sqlite3_bind_value(put_recipe, 2, sqlite3_column_value(recipes, 1));
            if (!step_done(put_recipe))
                failed = store_failed(s, "cannot be written", err);
        }
        if (!deps || !recipes)
            failed = store_failed(s, "cannot be joined", err);
        sqlite3_finalize(deps);
        sqlite3_finalize(recipes);
    }
    for (int p = 0; p < n; p++) {
        sqlite3_finalize(c.rows[p]);
        unlock(parts[p]);
    }
    if (put) {
        sqlite3_reset(put);
        sqlite3_clear_bindings(put); /* the parts' text, gone with them */
    }
    sqlite3_finalize(put_dep);
    sqlite3_finalize(del_deps);
    sqlite3_finalize(put_recipe);
    unlock(s);
    return failed;
}

int
gal__store_put_recipe(gal_store *s, const char *digest, GPtrArray *keys, gal_error *err)
{
    g_autofree char *lines = join_lines((const char *const *) keys->pdata, (int) keys->len);
    sqlite3_stmt *st;
    int failed = 0;

    lock(s, FALSE);
    if (s->create_path)
        ; /* no record yet, none to explain: no file made for it */
    else if (begin_locked(s, err))
        failed = -1;
    else if (!(st = statement(s, ST_PUT_RECIPE)))
        failed = store_failed(s, "cannot be written", err);
    else {
        sqlite3_bind_text(st, 1, digest, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, lines, -1, SQLITE_STATIC);
        if (!step_done(st))
            failed = store_failed(s, "cannot be written", err);
    }
    unlock(s);
    return failed;
}

GPtrArray *
gal__store_recipe(gal_store *s, const char *digest)
{
    GPtrArray *keys = NULL;
    sqlite3_stmt *st;

    lock(s, FALSE);
    if ((st = statement(s, ST_RECIPE))) {
        sqlite3_bind_text(st, 1, digest, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            const char *text = column_text(st, 0);

            if (text && plain_text(text)) {
                g_auto(GStrv) lines = split_lines(text);

                keys = g_ptr_array_new_with_free_func(g_free);
                for (int i = 0; lines[i]; i++)
                    g_ptr_array_add(keys, g_strdup(lines[i]));
            }
        }
        sqlite3_reset(st);
    }
    unlock(s);
    return keys;
}

/* ---- a shard's part ---------------------------------------------------------------- */

void
gal__part_info_clear(gal_part_info *info)
{
    g_free(info->version);
    g_free(info->cwd);
    g_strfreev(info->inputs);
    *info = (gal_part_info) { 0 };
}

char *
gal__part_name(int shard, int shards)
{
    return g_strdup_printf(GAL_MANIFEST_PREFIX "%d-of-%d.db", shard, shards);
}

gboolean
gal__part_name_parse(const char *name, int *shard, int *shards)
{
    g_autofree char *canonical = NULL;
    int k, n;
    char tail[4];

    if (!g_str_has_prefix(name, GAL_MANIFEST_PREFIX) ||
        sscanf(name + strlen(GAL_MANIFEST_PREFIX), "%d-of-%d.%3s", &k, &n, tail) != 3 ||
        k < 1 || k > n)
        return FALSE;
    /* Only the spelling gal__part_name gives: no "01-of-4", no journal. */
    canonical = gal__part_name(k, n);
    if (strcmp(canonical, name) != 0)
        return FALSE;
    *shard = k;
    *shards = n;
    return TRUE;
}

int
gal__part_put_info(gal_store *s, const gal_part_info *info, gal_error *err)
{
    g_autofree char *inputs = join_lines((const char *const *) info->inputs, -1);
    sqlite3_stmt *st = NULL;
    int failed = 0;

    lock(s, FALSE);
    if (begin_locked(s, err))
        failed = -1;
    else if (exec(s->db, "DELETE FROM shard") != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, "INSERT INTO shard VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            -1, &st, NULL) != SQLITE_OK)
        failed = store_failed(s, "cannot be written", err);
    else {
        sqlite3_bind_int(st, 1, info->shard);
        sqlite3_bind_int(st, 2, info->shards);
        sqlite3_bind_text(st, 3, info->recipe, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, info->version ? info->version : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, info->cwd ? info->cwd : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, inputs ? inputs : "", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 7, info->forced);
        sqlite3_bind_int(st, 8, info->done);
        sqlite3_bind_int(st, 9, info->n_results);
        if (!step_done(st))
            failed = store_failed(s, "cannot be written", err);
    }
    sqlite3_finalize(st);
    unlock(s);
    return failed;
}

static int
part_damaged(gal_store *s, const char *what, gal_error *err)
{
    return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s: %s: the part is damaged; run "
        "its shard again", s->dir, s->name, what);
}

int
gal__part_get_info(gal_store *s, gal_part_info *info, gal_error *err)
{
    sqlite3_stmt *st = NULL;
    gint64 k, n, forced, done, results;
    const char *recipe, *version, *cwd, *inputs;
    int failed = 0;

    *info = (gal_part_info) { 0 };
    lock(s, TRUE);
    if (sqlite3_prepare_v2(s->db, "SELECT k, n, recipe, version, cwd, inputs, forced, done, "
                                  "results, (SELECT count(*) FROM shard), "
                                  "(SELECT count(*) FROM result) FROM shard",
            -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW)
        failed = part_damaged(s, "it has no shard row", err);
    else if (!column_int(st, 0, 1, G_MAXINT, &k) || !column_int(st, 1, k, G_MAXINT, &n) ||
        !(recipe = column_text(st, 2)) || !gal__is_sha256_hex(recipe) ||
        !(version = column_text(st, 3)) || !plain_text(version) ||
        !(cwd = column_text(st, 4)) || !plain_text(cwd) || g_path_is_absolute(cwd) ||
        !(inputs = column_text(st, 5)) || !plain_text(inputs) ||
        !column_int(st, 6, 0, 1, &forced) || !column_int(st, 7, 0, 1, &done) ||
        !column_int(st, 8, 0, G_MAXINT, &results) || sqlite3_column_int64(st, 9) != 1 ||
        (done && sqlite3_column_int64(st, 10) != results))
        failed = part_damaged(s, "a bad shard row", err);
    else {
        info->shard = (int) k;
        info->shards = (int) n;
        g_strlcpy(info->recipe, recipe, sizeof(info->recipe));
        info->version = g_strdup(version);
        info->cwd = g_strdup(cwd);
        info->inputs = *inputs ? split_lines(inputs) : g_new0(char *, 1);
        info->forced = forced != 0;
        info->done = done != 0;
        info->n_results = (int) results;
    }
    sqlite3_finalize(st);
    unlock(s);
    return failed;
}

gal_part_result *
gal__part_result_new(const gal_photo_result *r, const char *rel_output, const char *in_digest)
{
    gal_part_result *copy = g_new0(gal_part_result, 1);
    const gal_photo_notes *notes = gal_photo_notes_of(r);

    copy->result = *r;
    copy->result.input = copy->result.output = NULL;
    copy->result.notes = r->notes ? &copy->notes : NULL;
    copy->notes.why_detail = g_strdup(notes->why_detail);
    copy->notes.caption = g_strdup(notes->caption);
    copy->notes.caption_source = g_strdup(notes->caption_source);
    copy->notes.caption_cut = notes->caption_cut;
    copy->notes.error = notes->error ? g_memdup2(notes->error, sizeof(*notes->error)) : NULL;
    /* Not kept in a part (files, warnings): the records hold them. */
    copy->result.about = NULL;
    copy->rel_output = g_strdup(rel_output);
    g_strlcpy(copy->in_digest, in_digest ? in_digest : "", sizeof(copy->in_digest));
    return copy;
}

void
gal__part_result_free(gal_part_result *r)
{
    if (!r)
        return;
    g_free((char *) r->notes.why_detail);
    g_free((char *) r->notes.caption);
    g_free((char *) r->notes.caption_source);
    g_free(r->notes.error);
    g_free(r->rel_output);
    g_free(r);
}

static const char *
empty_null(const char *text)
{
    return text && *text ? text : NULL;
}

int
gal__part_put_result(gal_store *s, const char *rel_input, const gal_part_result *result,
    gal_error *err)
{
    static const gal_error none = { 0 };
    const gal_photo_result *r = &result->result;
    const gal_photo_notes *notes = gal_photo_notes_of(r);
    const gal_error *error = notes->error ? notes->error : &none;
    sqlite3_stmt *st;
    char sha256[65];

    lock(s, FALSE);
    if (begin_locked(s, err)) {
        unlock(s);
        return -1;
    }
    if (!(st = statement(s, ST_PUT_RESULT)))
        goto failed;
    sqlite3_bind_text(st, 1, rel_input, -1, SQLITE_STATIC);
    bind_text_or_null(st, 2, result->rel_output);
    sqlite3_bind_text(st, 3, gal_status_name(r->status), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, gal_why_name(r->why), -1, SQLITE_STATIC);
    bind_text_or_null(st, 5, notes->why_detail);
    sqlite3_bind_int(st, 6, r->width);
    sqlite3_bind_int(st, 7, r->height);
    sqlite3_bind_int64(st, 8, r->bytes);
    bind_text_or_null(st, 9, gal_sha256_hex(&r->sha256, sha256));
    bind_text_or_null(st, 10, notes->caption);
    bind_text_or_null(st, 11, notes->caption_source);
    sqlite3_bind_int(st, 12, notes->caption_cut);
    sqlite3_bind_double(st, 13, r->seconds);
    sqlite3_bind_double(st, 14, r->hash_seconds);
    sqlite3_bind_int(st, 15, error->code);
    bind_text_or_null(st, 16, empty_null(error->file));
    sqlite3_bind_int(st, 17, error->line);
    sqlite3_bind_int(st, 18, error->col);
    bind_text_or_null(st, 19, empty_null(error->key));
    bind_text_or_null(st, 20, empty_null(error->subject));
    bind_text_or_null(st, 21, empty_null(error->msg));
    bind_text_or_null(st, 22, empty_null(result->in_digest));
    if (!step_done(st))
        goto failed;
    unlock(s);
    return 0;
failed:
    store_failed(s, "cannot be written", err);
    unlock(s);
    return -1;
}

static gboolean
parse_status(const char *name, gal_photo_status *status)
{
    for (int v = GAL_PHOTO_DONE; name && v <= GAL_PHOTO_CANCELLED; v++)
        if (strcmp(gal_status_name((gal_photo_status) v), name) == 0) {
            *status = (gal_photo_status) v;
            return TRUE;
        }
    return FALSE;
}

static gboolean
parse_why(const char *name, gal_why *why)
{
    for (int v = GAL_WHY_NONE; name && v <= GAL_WHY_SHEET; v++)
        if (strcmp(gal_why_name((gal_why) v), name) == 0) {
            *why = (gal_why) v;
            return TRUE;
        }
    return FALSE;
}

/* A row of the result table into `out` (its strings borrowed from the
 * row), its error in `error`: FALSE when a value does not check. */
static gboolean
row_result(sqlite3_stmt *st, gal_part_result *out, gal_error *error)
{
    gal_photo_result *r = &out->result;
    const char *sha256 = column_text(st, 8), *digest = column_text(st, 21);
    g_auto(GStrv) about = NULL;
    gint64 v[7];
    char *text[8] = { 0 };
    gboolean ok;

    *out = (gal_part_result) { 0 };
    ok = parse_status(column_text(st, 2), &r->status) && parse_why(column_text(st, 3), &r->why) &&
        column_int(st, 5, 0, G_MAXINT, &v[0]) && column_int(st, 6, 0, G_MAXINT, &v[1]) &&
        column_int(st, 7, 0, G_MAXINT64, &v[2]) && column_int(st, 11, 0, 1, &v[3]) &&
        column_int(st, 14, GAL_OK, GAL_ERR_INTERNAL, &v[4]) &&
        column_int(st, 16, 0, G_MAXINT, &v[5]) && column_int(st, 17, 0, G_MAXINT, &v[6]) &&
        sqlite3_column_type(st, 12) == SQLITE_FLOAT && sqlite3_column_type(st, 13) == SQLITE_FLOAT &&
        (!sha256 || gal__is_sha256_hex(sha256)) && (!digest || gal__is_content_digest(digest)) &&
        optional_text(st, 1, &text[0]) && (!text[0] || path_ok(text[0])) &&
        optional_text(st, 4, &text[1]) && optional_text(st, 9, &text[2]) &&
        optional_text(st, 10, &text[3]) && optional_text(st, 15, &text[4]) &&
        optional_text(st, 18, &text[5]) && optional_text(st, 19, &text[6]) &&
        optional_text(st, 20, &text[7]);
    r->seconds = sqlite3_column_double(st, 12);
    r->hash_seconds = sqlite3_column_double(st, 13);
    ok = ok && r->seconds >= 0 && r->seconds < 1e12 && r->hash_seconds >= 0 &&
        r->hash_seconds < 1e12;
    if (!ok) {
        for (size_t i = 0; i < G_N_ELEMENTS(text); i++)
            g_free(text[i]);
        return FALSE;
    }
    out->rel_output = text[0];
    out->notes.why_detail = text[1];
    out->notes.caption = text[2];
    out->notes.caption_source = text[3];
    out->notes.caption_cut = v[3] != 0;
    r->width = (int) v[0];
    r->height = (int) v[1];
    r->bytes = v[2];
    gal__sha256_from_hex(&r->sha256, sha256 ? sha256 : "");
    g_strlcpy(out->in_digest, digest ? digest : "", sizeof(out->in_digest));
    if (v[4] != GAL_OK) {
        *error = (gal_error) { .code = (gal_code) v[4], .line = (int) v[5], .col = (int) v[6] };
        gal__utf8_copy(error->file, text[4] ? text[4] : "", sizeof(error->file));
        gal__utf8_copy(error->key, text[5] ? text[5] : "", sizeof(error->key));
        gal__utf8_copy(error->subject, text[6] ? text[6] : "", sizeof(error->subject));
        gal__utf8_copy(error->msg, text[7] ? text[7] : "", sizeof(error->msg));
        out->notes.error = error;
    }
    for (int i = 4; i < 8; i++)
        g_free(text[i]);
    if (!gal__photo_notes_empty(&out->notes))
        r->notes = &out->notes;
    if (lines_column(st, 22, &about) && about)
        r->about = gal__about_new((const char *const *) about, g_strv_length(about));
    return TRUE;
}

int
gal__part_each_result(gal_store *s, gboolean with_about, gal_part_result_fn take, void *user,
    gal_error *err)
{
    sqlite3_stmt *st = NULL;
    int failed = 0, rc;

    lock(s, TRUE);
    /* With its output's about when asked (a merge's report gives it):
     * read here, by the table's key, not record by record. */
    if (sqlite3_prepare_v2(s->db, with_about ? "SELECT r.*, p.about FROM result r LEFT JOIN "
                                               "product p ON p.output = r.output ORDER BY r.input"
                                             : "SELECT *, NULL FROM result ORDER BY input",
            -1, &st, NULL) != SQLITE_OK)
        failed = part_damaged(s, "its results cannot be read", err);
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *input = column_text(st, 0);
        gal_part_result result;
        gal_error error;

        if (!input || !input_ok(input, GAL_RECORD_FILE) || !row_result(st, &result, &error)) {
            g_autofree char *shown = gal__excerpt(input ? input : "", GAL_EXCERPT_CHARS);
            g_autofree char *what = g_strdup_printf("a bad result row (%s)", shown);

            failed = part_damaged(s, what, err);
            break;
        }
        take(input, &result, user);
        gal__about_unref(result.result.about);
        g_free(result.rel_output);
        g_free((char *) result.notes.why_detail);
        g_free((char *) result.notes.caption);
        g_free((char *) result.notes.caption_source);
    }
    if (!failed && rc != SQLITE_DONE)
        failed = part_damaged(s, sqlite3_errmsg(s->db), err);
    sqlite3_finalize(st);
    unlock(s);
    return failed;
}
