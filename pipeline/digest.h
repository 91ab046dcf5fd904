/* digest.h: content digests of files: what incremental runs compare
 * when a file's size or time changed. A leaf module. */
#ifndef GAL_DIGEST_H
#define GAL_DIGEST_H

#include <sys/stat.h>

#include <glib.h>

#include "fsio.h"

/* SHA-256 of a file's contents as 64 hex digits into `hex` (65 bytes), its
 * size into *size (may be NULL). The file is opened by `rules` (NULL: any
 * regular file, GAL_ERR_INPUT). */
int gal__file_sha256(const char *path, const gal_read_rules *rules, char *hex, gint64 *size,
    gal_error *err);
/* The same from an open descriptor, read to its end: -1 with errno set. */
int gal__fd_sha256(int fd, char *hex, gint64 *size);
/* The same for the regular file `rel` beneath the folder `root_fd`, no
 * link followed: -1 with errno set. */
int gal__sha256_beneath(int root_fd, const char *rel, char *hex, gint64 *size);

/* A file an output depends on (a caption sidecar, a table) as it is now:
 * *exists when it is a regular file, and then its contents' digest in
 * `hex`, or 64 zeros when it cannot be read within the limit (any later
 * change then counts). */
void gal__dependency_state(const char *path, struct stat *st, gboolean *exists, char *hex);

#endif /* GAL_DIGEST_H */
