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
} gal_out_dir;

/* Open the output folder `dir` for a run. With `lock` (a run that
 * writes): create it if needed and take it: an exclusive lock held until
 * gal__out_dir_release (GAL_ERR_USAGE when another run holds it), then
 * remove the temporary files a killed run left in it. Without (a dry
 * run): open it if it exists. A folder that cannot be created or opened
 * is left to the writes to report (fd -1, open_errno set; returns 0).
 * Release it in any case; release removes folders it made that stayed
 * empty. */
int gal__out_dir_claim(const char *dir, gboolean lock, gal_out_dir *claim, gal_error *err);
void gal__out_dir_release(gal_out_dir *claim);

#endif /* GAL_OUTDIR_H */
