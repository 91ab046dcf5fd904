/* inputs.h: the `input` section's scan: files and folders into the sorted list of
 * photos a run takes. */
#ifndef GAL_INPUTS_H
#define GAL_INPUTS_H

#include <sys/types.h>

#include "preset.h"

/* What a file listed but not taken is (gal_input.skip), so that the
 * summary and the report count and name skipped files by kind: nothing in
 * an input folder is left out in silence but what the user excluded, the
 * sidecars gallop reads, and gallop's own files. */
typedef enum gal_skip_kind {
    GAL_SKIP_NONE,    /* taken (or, with `refused`, a failure) */
    GAL_SKIP_SPECIAL, /* a FIFO, device or socket */
    GAL_SKIP_LINK,    /* a symbolic link not followed */
    GAL_SKIP_HIDDEN,  /* a file or folder whose name starts with a dot */
    GAL_SKIP_VIDEO,   /* a video or sound clip, by its name */
    GAL_SKIP_RAW,     /* a raw photo of a kind gallop does not read */
    GAL_SKIP_UNKNOWN, /* anything else input.include does not take */
    GAL_SKIP_PAIR,    /* one half of a raw + JPEG pair: the other is read (input.pairs) */
} gal_skip_kind;

/* "special", "link", "hidden", "video", "raw-unsupported", "unknown",
 * "pair"; NULL for GAL_SKIP_NONE. Static. */
const char *gal__skip_kind_name(gal_skip_kind kind);

typedef struct gal_input {
    char *path;       /* as given or found */
    char *root;       /* the input folder it was found in (real path); NULL: named itself */
    dev_t dev;        /* its identity from the scan's stat; ino 0: not known */
    ino_t ino;
    /* Its size and time from the same stat, so that nothing stats the
     * photo again before it is opened (ino 0: not known). Once planned
     * (gal__plan_stat), the photo's as planned: 0 when it was not there. */
    gint64 size, mtime_ns;
    /* Where in `path` its path within its input folder starts (a file named
     * itself: its name), gal__input_rel: the end of `path`, not a string of
     * its own, as `root` is shared by every photo of its folder (a
     * GRefString); a million photos' paths, folders and relative paths were
     * three strings each. */
    guint32 rel_at;
    /* The flags as bits of one byte, after the other fields: 64 bytes a
     * photo, not 80 with a gboolean each (nor 96 with each padded to 8). */
    bool regular : 1; /* FALSE: a FIFO, device or socket: never opened */
    bool refused : 1; /* named itself and unusable (a link to nothing): a failure, not a skip */
    /* `path` is a symbolic link, followed: its photo's own name is the
     * link's target, in the target's folder (plan.c's check that no output
     * replaces a photo looks there too). */
    bool via_link : 1;
    /* Listed but not taken (a link not followed): why, gal__input_why. The
     * reason follows the path in its arena (rare: a pointer in every
     * photo's input was 8 of its 64 bytes). */
    bool has_why : 1;
    unsigned skip : 3; /* gal_skip_kind, with has_why (or a file not regular) */
} gal_input;

/* Why the photo was listed but not taken (a link not followed); NULL:
 * taken. */
static inline const char *
gal__input_why(const gal_input *in)
{
    return in->has_why ? in->path + strlen(in->path) + 1 : NULL;
}

/* The photo's path within its input folder; a file named itself: its name.
 * The same wherever the folder is mounted or checked out: what --shard
 * partitions by. */
static inline const char *
gal__input_rel(const gal_input *in)
{
    return in->path + in->rel_at;
}

/* A run's photos' paths in blocks of memory, not an allocation each
 * (malloc's own 16 to 24 bytes a path, and two million frees for a
 * million photos): the inputs' (every photo the scan found; a shard keeps
 * its own once planned, gal__inputs_keep) and the planned outputs' (the
 * run's own photos'). The run's summary owns it (gal_run_summary.paths),
 * as its results point into it. */
struct gal_path_arena {
    GStringChunk *inputs;
    GStringChunk *outputs;
};
typedef struct gal_path_arena gal_path_arena;

gal_path_arena *gal__path_arena_new(void);
void gal__path_arena_free(gal_path_arena *arena);

/* How gal__inputs_collect scans. */
typedef struct {
    const char *skip_dir;     /* the output folder, or NULL */
    gboolean follow_symlinks; /* follow links out of the input folders */
    int jobs;                 /* threads looking entries up (0: one a core) */
    /* A shard's scan: shard `shard` of `shards` (0: not sharded). Another
     * shard's photo found in a folder is listed without a stat (ino 0):
     * its size and time are its own shard's to read. */
    int shard, shards;
    /* TRUE: every photo found in a folder is listed so, none looked up (a
     * merge without pages, which reads no photo's size or time). */
    gboolean list_only;
    /* Files the preset reads besides photos (a captions table, an
     * Instagram export's files; NULL-terminated, may be NULL): met in an
     * input folder, they are not reported as skipped. */
    const char *const *reads;
} gal_scan_options;

/* Expand files and folders into a sorted, de-duplicated list of photos,
 * applying the include/exclude globs to folder contents (files named
 * explicitly are taken as given). Skips `scan->skip_dir` (the output
 * folder) when it lies inside an input folder. Every other file of a
 * folder that is no photo taken, no caption sidecar beside one, no file
 * of `scan->reads` and not excluded by the user is listed with why it is
 * skipped and its kind (gal_input.skip; not in a list-only scan), and so
 * is the half of a raw + JPEG pair of one shot that input.pairs leaves.
 * A missing path is an error. The
 * list is a new array of *n_out photos (a big vector's, bigarray.h: the
 * room it did not fill at the end is never written, so costs nothing). */
int gal__inputs_collect(const gal_input_opts *opts, const char *const *paths,
    int n_paths, const gal_scan_options *scan, GStringChunk *arena,
    gal_input **out, int *n_out, gal_errors *errs);
/* The photos' paths are in the arena given to gal__inputs_collect, never
 * freed here. */
void gal__inputs_free(gal_input *inputs, int n);
/* The inputs at the places `keep` names (n_keep of them, ascending), in
 * that order; the others freed. The list, shrunk (`inputs` is gone). The
 * kept paths move to a new `arena`; the old one, with the others' paths,
 * is freed. */
gal_input *gal__inputs_keep(gal_input *inputs, int n, const int *keep, int n_keep,
    GStringChunk **arena);

#endif /* GAL_INPUTS_H */
