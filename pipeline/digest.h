/* digest.h: content digests of files: what incremental runs compare
 * when a file's size or time changed. A leaf module.
 *
 * Two kinds, told apart by their length:
 * - XXH3-128, 32 hex digits: what a photo and a file an output depends
 *   on (a caption sidecar, a table) are recorded by. Change detection
 *   needs no cryptographic strength (the manifest is untrusted anyway and
 *   is only ever compared with files gallop reads itself), and XXH3 runs
 *   at memory speed where SHA-256 took ~8% of a run's CPU.
 * - SHA-256, 64 hex digits: every output (its readers check integrity
 *   with standard tools: docs/report.md), and records of inputs written
 *   before XXH3 (manifest format 1), still checked as such. */
#ifndef GAL_DIGEST_H
#define GAL_DIGEST_H

#include <sys/stat.h>

#include <glib.h>

#include "fsio.h"

#define GAL_XXH3_HEX_LEN 32
#define GAL_SHA256_HEX_LEN 64

/* Is `text` a content digest as recorded: 32 (XXH3-128) or 64 (SHA-256)
 * hex digits? For fields of untrusted manifests. */
gboolean gal__is_content_digest(const char *text);
/* Is `text` 64 hex digits (a SHA-256)? */
gboolean gal__is_sha256_hex(const char *text);

/* A digest as a manifest record holds it: its bytes, 16 (XXH3-128) or 32
 * (SHA-256), or none (len 0). The hex form is the manifest file's; held
 * as hex (65 bytes each), a record's two digests took 130 of its 280
 * bytes, and a merge holds a million records. */
typedef struct gal_digest {
    guint8 len;
    guint8 bytes[32];
} gal_digest;

/* From 32 or 64 hex digits, either case; anything else (as "") is none. */
void gal__digest_from_hex(gal_digest *d, const char *hex);
/* Its hex form (lower case) into `hex` (65 bytes): "" when none. Returns
 * `hex`. */
char *gal__digest_hex(const gal_digest *d, char *hex);
/* Is it the digest `hex` spells (NULL and "" spell none)? */
gboolean gal__digest_is(const gal_digest *d, const char *hex);

/* A SHA-256 as a result reports it, from a digest (a record's: known
 * when it is a SHA-256) or from 64 hex digits (anything else: not
 * known). */
void gal__sha256_from_digest(gal_sha256 *out, const gal_digest *d);
/* The other way: a record's digest from a result's SHA-256 (none when
 * not known). */
void gal__digest_from_sha256(gal_digest *out, const gal_sha256 *sha256);
void gal__sha256_from_hex(gal_sha256 *out, const char *hex);
/* The same SHA-256 (or both not known)? */
gboolean gal__sha256_same(const gal_sha256 *a, const gal_sha256 *b);

/* XXH3-128 of `len` bytes as 32 hex digits into `hex` (33 bytes). */
void gal__xxh3_hex(const void *data, gsize len, char *hex);

/* A file's contents, read once to its end from `fd`: their XXH3-128
 * into `xxh3` (33 bytes; NULL: not taken), their SHA-256 into `sha256`
 * (65 bytes; NULL: not taken) and their size into *size (may be NULL).
 * -1 with errno set. */
int gal__fd_digests(int fd, char *xxh3, char *sha256, gint64 *size);

/* The file's content digest (XXH3-128, 32 hex digits) into `hex` (at
 * least 33 bytes) and, when `sha256` is not NULL, its SHA-256 from the
 * same read; its size into *size (may be NULL). The file is opened by
 * `rules` (NULL: any regular file, GAL_ERR_INPUT). */
int gal__file_digest(const char *path, const gal_read_rules *rules, char *hex, char *sha256,
    gint64 *size, gal_error *err);

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
 * *exists when it is a regular file, and then its contents' digest
 * (XXH3-128) in `hex`, or 32 zeros when it cannot be read within the
 * limit (any later change then counts). When `sha256` is not NULL it
 * receives the SHA-256 from the same read (64 zeros likewise), to check a
 * record of format 1. */
void gal__dependency_state(const char *path, struct stat *st, gboolean *exists, char *hex,
    char *sha256);

#endif /* GAL_DIGEST_H */
