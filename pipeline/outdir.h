/* outdir.h: one run at a time per output folder, and what a killed run left. */
#ifndef GAL_OUTDIR_H
#define GAL_OUTDIR_H

#include <glib.h>

#include "error.h"

typedef struct gal_out_dir {
    int fd;                /* the folder, open; every write goes beneath it; -1: none */
    char *path;            /* the folder, canonical */
    int open_errno;        /* why fd is -1 (0: a dry run found no folder) */
    gboolean locked;       /* fd holds the run's lock */
    GPtrArray *created;    /* folders made for the run, deepest first */
    int leftovers_removed; /* temporary files of a killed run, removed */
    /* GAL_CLAIM_OWN: the names of the folder's manifest files (not in its
     * sub-folders: GAL_MANIFEST_PREFIX, the manifest and the shards'
     * parts) as the sweep found them: a merge finds its parts without
     * listing a folder of a million outputs again. NULL: not swept. */
    GPtrArray *manifest_files;
} gal_out_dir;

/* How a run holds its output folder. */
typedef enum gal_claim {
    GAL_CLAIM_LOOK,  /* a dry run: open it if it exists; no lock */
    GAL_CLAIM_SHARE, /* a shard: a shared lock, so that shards run side by side on this
                      * host while no plain run or merge does; another shard's
                      * temporary files may be in flight, so none are removed */
    GAL_CLAIM_OWN,   /* a run or merge: an exclusive lock, then the temporary files a
                      * killed run left are removed */
} gal_claim;

/* Open the output folder `dir` for a run, creating it unless only
 * looking, and lock it as `how` says until gal__out_dir_release
 * (GAL_ERR_USAGE when a lock is in the way). A folder that cannot be
 * created or opened is left to the writes to report (fd -1, open_errno
 * set; returns 0). Release it in any case; release removes folders it
 * made that stayed empty. Locks are flock(2)s: they keep runs on one host
 * apart; shards on several hosts rely on writing only files of their own
 * (docs/scale-out.md). */
int gal__out_dir_claim(const char *dir, gal_claim how, gal_out_dir *claim, gal_error *err);
void gal__out_dir_release(gal_out_dir *claim);

#endif /* GAL_OUTDIR_H */
