/* zipfile.c: the one user of libarchive. A gallery's per-album download is
 * a zip of its photos' largest files, stored (photos are compressed
 * already: deflating them again costs time for nothing), streamed into a
 * file (the caller's atomic writer's), so an album of any size takes one
 * photo's memory, and hashed on the way. */
#include <errno.h>

#include <archive.h>
#include <archive_entry.h>

#include "internal.h"
#include "error.h"
#include "fsio.h"
#include "zipfile.h"

/* Where the archive's bytes go: the file, and its SHA-256 and size. */
typedef struct {
    int fd;
    GChecksum *sum;
    gint64 size;
} sink;

static la_ssize_t
append(struct archive *a, void *user, const void *buf, size_t len)
{
    sink *to = user;

    if (gal__write_all(to->fd, buf, len) != 0) {
        archive_set_error(a, errno, "%s", g_strerror(errno));
        return -1;
    }
    g_checksum_update(to->sum, buf, (gssize) len);
    to->size += (gint64) len;
    return (la_ssize_t) len;
}

static int
archive_error(gal_error *err, struct archive *a, const char *what)
{
    return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "zip: %s: %s", what,
        archive_error_string(a) ? archive_error_string(a) : "failed");
}

int
gal__zip_stored(const char *within, const char *const *paths, const char *const *names, int n,
    gint64 mtime, int fd, char sha256[65], gint64 *size, gal_error *err)
{
    struct archive *a = archive_write_new();
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    sink out = { fd, sum, 0 };
    gal_read_rules rules = { "photo", within, FALSE, 0, GAL_ERR_OUTPUT };
    int failed = 0;

    if (archive_write_set_format_zip(a) != ARCHIVE_OK ||
        archive_write_set_options(a, "zip:compression=store") != ARCHIVE_OK ||
        /* No padding to a block: the archive ends where its data does. */
        archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK ||
        archive_write_open(a, &out, NULL, append, NULL) != ARCHIVE_OK) {
        failed = archive_error(err, a, "open");
        archive_write_free(a);
        return failed;
    }
    for (int i = 0; i < n && !failed; i++) {
        g_autofree char *data = NULL;
        struct archive_entry *entry;
        gsize len;

        if (gal__file_read(paths[i], &rules, &data, &len, NULL, err)) {
            failed = -1;
            break;
        }
        entry = archive_entry_new();
        archive_entry_set_pathname(entry, names[i]);
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_perm(entry, 0644);
        archive_entry_set_size(entry, (la_int64_t) len);
        archive_entry_set_mtime(entry, (time_t) mtime, 0);
        if (archive_write_header(a, entry) != ARCHIVE_OK ||
            archive_write_data(a, data, len) != (la_ssize_t) len)
            failed = archive_error(err, a, names[i]);
        archive_entry_free(entry);
    }
    if (archive_write_close(a) != ARCHIVE_OK && !failed)
        failed = archive_error(err, a, "close");
    archive_write_free(a);
    if (!failed) {
        g_strlcpy(sha256, g_checksum_get_string(sum), 65);
        *size = out.size;
    }
    return failed;
}

const char *
gal__zip_maker(void)
{
    return archive_version_string();
}
