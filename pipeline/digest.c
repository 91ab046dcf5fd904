/* digest.c: content digests (SHA-256) of files, read through fsio. A
 * leaf module. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "error.h"
#include "limit.h"

int
gal__fd_sha256(int fd, char *hex, gint64 *size)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    unsigned char buf[65536];
    gint64 total = 0;

    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        g_checksum_update(sum, buf, (gsize) n);
        total += n;
    }
    g_strlcpy(hex, g_checksum_get_string(sum), 65);
    if (size)
        *size = total;
    return 0;
}

int
gal__file_sha256(const char *path, const gal_read_rules *rules, char *hex, gint64 *size,
    gal_error *err)
{
    static const gal_read_rules plain = { NULL, NULL, FALSE, 0, GAL_ERR_INPUT };
    int fd, failed;

    if (gal__file_open(path, rules ? rules : &plain, &fd, NULL, err))
        return -1;
    failed = gal__fd_sha256(fd, hex, size);
    if (failed)
        gal_error_set(err, (rules ? rules : &plain)->code, NULL, NULL, "cannot read %s: %s",
            path, g_strerror(errno));
    close(fd);
    return failed;
}

int
gal__sha256_beneath(int root_fd, const char *rel, char *hex, gint64 *size)
{
    int fd = gal__open_beneath(root_fd, rel);
    int failed;

    if (fd < 0)
        return -1;
    failed = gal__fd_sha256(fd, hex, size);
    close(fd);
    return failed;
}

/* Files an output depends on (caption sidecars, tables, exports) are
 * named by paths the manifest keeps, which may have been tampered with:
 * each is hashed only when it is a regular file within the limit. */
static const gal_read_rules dependency_rules = { "file an output depends on", NULL, TRUE, 0,
    GAL_ERR_INPUT };

void
gal__dependency_state(const char *path, struct stat *st, gboolean *exists, char *hex)
{
    gal_read_rules rules = dependency_rules;
    gal_error err = { 0 };
    int fd;

    *exists = stat(path, st) == 0 && S_ISREG(st->st_mode);
    memset(hex, '0', 64);
    hex[64] = '\0';
    if (!*exists)
        return;
    rules.max_bytes = gal__limits.dependency_bytes;
    if (gal__file_open(path, &rules, &fd, NULL, &err))
        return;
    if (gal__fd_sha256(fd, hex, NULL) != 0) {
        memset(hex, '0', 64);
        hex[64] = '\0';
    }
    close(fd);
}

