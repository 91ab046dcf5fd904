/* zipfile.h: a zip archive of files stored as they are (libarchive,
 * zipfile.c). */
#ifndef GAL_ZIPFILE_H
#define GAL_ZIPFILE_H

#include <glib.h>

#include "gallop.h"

/* Write to `fd` a zip of `n` files: the file at `paths[i]` (read within
 * the folder `within`, no link followed out of it, one at a time) as
 * `names[i]`, each stored, not compressed (photos are compressed already),
 * and dated `mtime` (seconds), so the same files give the same bytes; the
 * bytes' SHA-256 (hex) into `sha256` and their number into *size. -1 with
 * `err` naming the file that could not be read, or the archive. */
int gal__zip_stored(const char *within, const char *const *paths, const char *const *names,
    int n, gint64 mtime, int fd, char sha256[65], gint64 *size, gal_error *err);

/* The library that makes the zips and its version ("libarchive 3.6.2"):
 * another may lay the same files out otherwise. Static. */
const char *gal__zip_maker(void);

#endif /* GAL_ZIPFILE_H */
