/* fsio.h: how gallop touches the file system. A leaf module: it knows
 * files and folders, gal_error and nothing else of gallop.
 *
 * Reading. Every file gallop reads besides a photo's pixels (presets,
 * caption sidecars, tables, exports, fonts, logos, the manifest, files
 * hashed for incremental runs) is opened once, without blocking, checked
 * to be a regular file no larger than its limit, and read *within its
 * folder*: symbolic links met on the way may not lead out of that folder
 * unless the run follows links (--follow-symlinks). A FIFO, a device, a
 * folder or a link loop gets words that say so, never "not found".
 *
 * Writing. Every file gallop writes goes through one atomic writer: a
 * hidden temporary file in the final folder, renamed over the final name
 * when complete, so a reader sees the old file or the whole new one.
 * Beneath an output folder every component of a path is made or opened
 * relative to the folder, never through a symbolic link, and names are
 * relative, normalised paths: nothing outside the folder is written,
 * renamed over or deleted.
 */
#ifndef GAL_FSIO_H
#define GAL_FSIO_H

#include <sys/stat.h>

#include <glib.h>

#include "gallop.h"

/* How to open a file for reading. */
typedef struct gal_read_rules {
    /* What the file is, for messages: "caption sidecar", "preset"...
     * ("caption sidecar in/a.txt is a FIFO..."); NULL: the path alone
     * ("in/a.txt is a FIFO..."); "": neither, when the error's subject
     * names the file already ("is a FIFO..."). */
    const char *what;
    /* The folder the file is read within (its path must lie beneath it
     * as written); links met below it must stay inside it. NULL: no
     * confinement (a path the user named on the command line). */
    const char *within;
    gboolean follow_links; /* links may lead anywhere (--follow-symlinks) */
    gint64 max_bytes;      /* larger files are refused; 0: no limit */
    gal_code code;         /* the error class to report failures as */
} gal_read_rules;

/* Open `path` for reading by `rules`: *fd (close it) and *st (may be
 * NULL) on success; -1 with `err` naming the path and what is wrong with
 * it otherwise. Never blocks on a FIFO or a device. */
int gal__file_open(const char *path, const gal_read_rules *rules, int *fd, struct stat *st,
    gal_error *err);

/* Check `path` by `rules` without opening it: it exists, is a regular
 * file (or, with `folder_ok`, a folder), and following its links stays
 * within rules->within. *real (may be NULL) receives its real path, which
 * holds no link, so later opens meet none. -1 with `err` set. */
int gal__path_check(const char *path, const gal_read_rules *rules, gboolean folder_ok,
    char **real, gal_error *err);

/* The whole file, NUL-terminated (the NUL is not counted in *len), by the
 * same rules. *data is freed with g_free. `st` may be NULL. */
int gal__file_read(const char *path, const gal_read_rules *rules, char **data, gsize *len,
    struct stat *st, gal_error *err);

/* The same, read from an open descriptor (which is not closed). */
int gal__fd_read_all(int fd, const char *path, const gal_read_rules *rules, char **data,
    gsize *len, gal_error *err);

/* ---- beneath a folder ------------------------------------------------------------ */

/* Is `rel` a relative, normalised path that stays beneath a folder: not
 * empty, no leading '/', no "." or ".." or empty component, no NUL? */
gboolean gal__path_is_beneath(const char *rel);

/* Open the folder `rel` beneath the open folder `root_fd` (NULL or "" is
 * the root itself, duplicated), making missing components when `create`
 * is set. Components that are symbolic links are refused. Returns a new
 * descriptor, or -1 with `err` naming `root_path`/`rel`. When `made` is
 * not NULL, the folders this call created are appended to it (relative
 * paths, deepest last). */
int gal__dir_open_beneath(int root_fd, const char *root_path, const char *rel, gboolean create,
    GPtrArray *made, gal_error *err);

/* fstatat of `rel` beneath `root_fd`, no link followed at any component:
 * 0, or -1 with errno set (ENOENT when any component is missing, ELOOP
 * or ENOTDIR when one is a link). */
int gal__stat_beneath(int root_fd, const char *rel, struct stat *st);

/* Open the regular file `rel` beneath `root_fd` for reading, no link
 * followed: a descriptor, or -1 with errno set. */
int gal__open_beneath(int root_fd, const char *rel);

/* Remove the file `rel` beneath `root_fd` (no link followed on the way; a
 * final component that is a link is removed as a link), then every folder
 * above it that became empty, up to the root. -1 with `err` on failure. */
int gal__unlink_beneath(int root_fd, const char *root_path, const char *rel, gal_error *err);

/* ---- the atomic writer ------------------------------------------------------------ */

/* Temporary files end in this until renamed, and are hidden (a leading
 * dot), so a crashed run's leftovers are recognised and swept. */
#define GAL_TMP_SUFFIX ".gallop-tmp"

typedef struct gal_atomic {
    int dir_fd;        /* the folder the file goes in (owned) */
    int fd;            /* the temporary file, open for writing */
    char *name;        /* final name in dir_fd */
    char *tmp;         /* temporary name in dir_fd */
    char *display;     /* the final path, for messages */
} gal_atomic;

/* Begin writing `rel` beneath the open folder `root_fd` (`root_path` is
 * its path, for messages): missing folders are made component by
 * component, never through a link; a temporary file is opened beside the
 * final name. `made` as in gal__dir_open_beneath. -1 with `err` set. */
int gal__atomic_begin(int root_fd, const char *root_path, const char *rel, GPtrArray *made,
    gal_atomic *a, gal_error *err);

/* Finish: flush to disk first when `durable` (the file and then its
 * folder, for files whose loss would lose track of others, such as the
 * manifest), close, and rename over the final name. On any failure the
 * temporary file is removed and `err` names the final path. */
int gal__atomic_commit(gal_atomic *a, gboolean durable, gal_error *err);

/* Give up: remove the temporary file. Safe after a commit (does nothing). */
void gal__atomic_abort(gal_atomic *a);

/* Write a whole buffer atomically (begin, write, commit). */
int gal__write_atomic_beneath(int root_fd, const char *root_path, const char *rel,
    const void *data, gsize len, gboolean durable, gal_error *err);

/* The same for a path the user named (--report FILE): its folder is
 * opened as named, links and all; the file itself is replaced, never
 * written through. */
int gal__write_atomic(const char *path, const void *data, gsize len, gboolean durable,
    gal_error *err);
/* Begin writing such a path a piece at a time (gal__write_all to a->fd,
 * then gal__atomic_commit, or gal__atomic_abort). -1 with `err` set. */
int gal__atomic_begin_path(const char *path, gal_atomic *a, gal_error *err);

/* write() all of `data`, retrying on EINTR: 0, or -1 with errno set. */
int gal__write_all(int fd, const void *data, gsize len);

/* ---- paths ------------------------------------------------------------------ */
/* (paths.c: no file is opened for these.) */

/* `path` relative to the folder `dir` ("../photos/a.jpg"), lexically; a
 * relative one of either against the working folder `cwd` (absolute,
 * canonical), known as a run knows it (it never changes folder, engine.h:
 * gal__out_rel), so that the system is not asked for each of a million
 * photos' paths. NULL: ask. */
char *gal__relative_path_from(const char *cwd, const char *dir, const char *path);
/* What gal__relative_path_from makes of a `path` beneath `dir` when both are
 * canonical (as the planned outputs and the output folder are), without
 * making it: a pointer to its end in `path`. NULL otherwise. */
const char *gal__path_below(const char *dir, const char *path);
/* Is `path` as g_canonicalize_filename would make it: absolute, with no
 * empty, "." or ".." part and no slash at its end? One pass, no copy. */
gboolean gal__path_is_canonical(const char *path);

gint64 gal__mtime_ns(const struct stat *st);

/* Case-insensitive glob match on a file name: '*' and '?' only. */
gboolean gal__glob_match(const char *pattern, const char *name);

#endif /* GAL_FSIO_H */
