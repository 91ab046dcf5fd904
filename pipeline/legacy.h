/* legacy.h: an output folder an earlier gallop made, carried over. */
#ifndef GAL_LEGACY_H
#define GAL_LEGACY_H

#include "store.h"

/* Read the text manifest (.gallop-manifest.tsv) in the output folder
 * `dir` (canonical, open as `dir_fd`) into the new `store`: its records,
 * their paths relative to the folder, their recipes as gallop writes them
 * now (recipe.c), so that nothing up to date is rebuilt. What does not
 * check is left out, with a line in `warnings`. The caller commits and
 * removes the file. The number of records carried over. */
int gal__legacy_import(gal_store *store, const char *dir, int dir_fd, GPtrArray *warnings);

#endif /* GAL_LEGACY_H */
