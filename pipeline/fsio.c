/* fsio.c: safe reads, writes beneath a folder, and the one atomic writer
 * (see fsio.h for the rules). Linux: openat2() pins a checked path so no
 * link can be swapped in after the check; where the kernel lacks it, the
 * same check is made with realpath() and a final O_NOFOLLOW. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "fsio.h"

/* ---- reading ------------------------------------------------------------------- */

static const char *
kind_words(mode_t mode)
{
    if (S_ISDIR(mode))
        return "is a folder, not a file";
    if (S_ISFIFO(mode))
        return "is a FIFO (named pipe), not a file";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "is a device, not a file";
    if (S_ISSOCK(mode))
        return "is a socket, not a file";
    return "is not a regular file";
}

static int
read_error(gal_error *err, const gal_read_rules *rules, const char *path, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

/* "caption sidecar in/a.txt is a FIFO (named pipe), not a file" */
static int
read_error(gal_error *err, const gal_read_rules *rules, const char *path, const char *fmt, ...)
{
    g_autofree char *words = NULL;
    va_list ap;

    va_start(ap, fmt);
    words = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (rules->what && *rules->what)
        return gal_error_set(err, rules->code, NULL, NULL, "%s %s %s", rules->what, path, words);
    if (rules->what)
        return gal_error_set(err, rules->code, NULL, NULL, "%s", words);
    return gal_error_set(err, rules->code, NULL, NULL, "%s %s", path, words);
}

/* Words for a path that could not be opened or resolved. */
static int
open_failed(gal_error *err, const gal_read_rules *rules, const char *path, int saved)
{
    struct stat st;

    if (saved == ELOOP)
        return read_error(err, rules, path, "is a symbolic link loop");
    if (saved == ENOENT && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        return read_error(err, rules, path, "is a symbolic link to nothing (its target is missing)");
    if (saved == ENOENT || saved == ENOTDIR)
        return read_error(err, rules, path, "does not exist");
    if (saved == ENXIO && lstat(path, &st) == 0)
        return read_error(err, rules, path, "%s", kind_words(st.st_mode));
    return read_error(err, rules, path, "cannot be read: %s", g_strerror(saved));
}

static gboolean
inside(const char *root, const char *path)
{
    size_t n = strlen(root);

    if (strcmp(root, "/") == 0)
        return path[0] == '/';
    return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Set once openat2 turned out missing (an old kernel) or refused (a
 * container's seccomp filter): the callers' other ways are taken. */
static gint openat2_unavailable;

/* openat2(dir_fd, path, how): a descriptor, or -1 with errno set; -2 when
 * openat2 is not available here. */
static int
openat2_if_available(int dir_fd, const char *path, const struct open_how *how)
{
    long fd;

    if (g_atomic_int_get(&openat2_unavailable))
        return -2;
    fd = syscall(SYS_openat2, dir_fd, path, how, sizeof(*how));
    if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
        g_atomic_int_set(&openat2_unavailable, 1);
        return -2;
    }
    return (int) fd;
}

/* Open a path known to contain no symbolic link, making sure none is
 * swapped in while it is opened. */
static int
open_resolved(const char *resolved)
{
    struct open_how how = { .flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC,
        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
    int fd = openat2_if_available(AT_FDCWD, resolved, &how);

    return fd != -2 ? fd : open(resolved, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
}

int
gal__path_check(const char *path, const gal_read_rules *rules, gboolean folder_ok, char **real,
    gal_error *err)
{
    g_autofree char *full = g_canonicalize_filename(path, NULL);
    g_autofree char *resolved = NULL;
    struct stat st;

    if (!(resolved = realpath(full, NULL)))
        return open_failed(err, rules, path, errno);
    if (stat(resolved, &st) != 0)
        return open_failed(err, rules, path, errno);
    if (!S_ISREG(st.st_mode) && !(folder_ok && S_ISDIR(st.st_mode)))
        return read_error(err, rules, path, "%s", kind_words(st.st_mode));
    if (rules->within && !rules->follow_links) {
        g_autofree char *root = g_canonicalize_filename(rules->within, NULL);
        g_autofree char *root_real = NULL;

        if (!inside(root, full)) {
            g_free(root);
            root = g_path_get_dirname(full);
        }
        if (!(root_real = realpath(root, NULL)))
            return open_failed(err, rules, path, errno);
        if (!inside(root_real, resolved))
            return read_error(err, rules, path,
                "is reached through a symbolic link that leads out of %s (to %s): not followed "
                "(--follow-symlinks follows it)",
                root, resolved);
    }
    if (real)
        *real = g_steal_pointer(&resolved);
    return 0;
}

int
gal__file_open(const char *path, const gal_read_rules *rules, int *fd_out, struct stat *st_out,
    gal_error *err)
{
    struct stat st;
    int fd, flags;

    *fd_out = -1;
    /* Refuse what is not a file before opening it: opening a device can
     * do things (a tape rewinds), opening a FIFO can wait for a writer. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return read_error(err, rules, path, "%s", kind_words(st.st_mode));
    if (rules->within && !rules->follow_links) {
        /* Checked, then opened by its real path with no link allowed, so
         * none can be swapped in between. */
        g_autofree char *real = NULL;

        if (gal__path_check(path, rules, FALSE, &real, err))
            return -1;
        if ((fd = open_resolved(real)) < 0)
            return open_failed(err, rules, path, errno);
    }
    else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return open_failed(err, rules, path, errno);
    /* What was opened is what counts: it may have changed since stat(). */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int saved = errno;

        close(fd);
        if (!S_ISREG(st.st_mode))
            return read_error(err, rules, path, "%s", kind_words(st.st_mode));
        return read_error(err, rules, path, "cannot be read: %s", g_strerror(saved));
    }
    if (rules->max_bytes > 0 && st.st_size > rules->max_bytes) {
        g_autofree char *size = gal__format_bytes(st.st_size);
        g_autofree char *limit = gal__format_bytes(rules->max_bytes);

        close(fd);
        return read_error(err, rules, path, "is %s, larger than the %s a %s may be", size, limit,
            rules->what && *rules->what ? rules->what : "file");
    }
    /* Reads block as usual from here: it is a regular file. */
    if ((flags = fcntl(fd, F_GETFL)) >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    *fd_out = fd;
    if (st_out)
        *st_out = st;
    return 0;
}

int
gal__fd_read_all(int fd, const char *path, const gal_read_rules *rules, char **data, gsize *len,
    gal_error *err)
{
    GByteArray *bytes = g_byte_array_new();
    guint8 buf[65536];

    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;

            g_byte_array_unref(bytes);
            return read_error(err, rules, path, "cannot be read: %s", g_strerror(saved));
        }
        if (n == 0)
            break;
        g_byte_array_append(bytes, buf, (guint) n);
        /* A file that grows while it is read is held to the limit too. */
        if (rules->max_bytes > 0 && (gint64) bytes->len > rules->max_bytes) {
            g_byte_array_unref(bytes);
            return read_error(err, rules, path, "grew past the limit for a %s while it was read",
                rules->what && *rules->what ? rules->what : "file");
        }
    }
    *len = bytes->len;
    g_byte_array_append(bytes, (const guint8 *) "", 1);
    *data = (char *) g_byte_array_free(bytes, FALSE);
    return 0;
}

int
gal__file_read(const char *path, const gal_read_rules *rules, char **data, gsize *len,
    struct stat *st, gal_error *err)
{
    int fd, failed;

    *data = NULL;
    *len = 0;
    if (gal__file_open(path, rules, &fd, st, err))
        return -1;
    failed = gal__fd_read_all(fd, path, rules, data, len, err);
    close(fd);
    return failed;
}

/* ---- beneath a folder ------------------------------------------------------------ */

gboolean
gal__path_is_beneath(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/')
        return FALSE;
    /* Part by part, in place: every record of a manifest is checked so,
     * and splitting each path into a new array was 2% of a rerun. */
    for (const char *part = rel;;) {
        const char *end = strchrnul(part, '/');
        size_t len = (size_t) (end - part);

        if (len == 0 || (len == 1 && part[0] == '.') ||
            (len == 2 && part[0] == '.' && part[1] == '.'))
            return FALSE;
        if (!*end)
            return TRUE;
        part = end + 1;
    }
}

/* Split "a/b/c.jpg" into "a/b" and "c.jpg" ("" and the name at the top). */
static void
split_rel(const char *rel, char **folder, char **name)
{
    const char *slash = strrchr(rel, '/');

    *folder = slash ? g_strndup(rel, slash - rel) : g_strdup("");
    *name = g_strdup(slash ? slash + 1 : rel);
}

/* The existing folder `rel` beneath `root_fd` in one openat2 call, refusing
 * links and leaving the folder as the walk below does: a rerun stats every
 * output, and an output in {dir}/ three folders down cost the walk eight
 * system calls. -2: openat2 is not available. */
static int
open_folder_beneath(int root_fd, const char *rel)
{
    struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };

    return openat2_if_available(root_fd, rel, &how);
}

/* The folder `rel` beneath `root_fd`, component by component, never
 * through a link: a descriptor, or -1 with errno set and *failed_at (may
 * be NULL) the number of components that were fine. */
static int
walk_beneath(int root_fd, const char *rel, gboolean create, GPtrArray *made, int *failed_at)
{
    g_auto(GStrv) parts = NULL;
    GString *so_far;
    int fd;

    if (failed_at)
        *failed_at = 0;
    /* Only an existing folder is opened in one call: one to make is made
     * a component at a time, and which components were fine is told. */
    if (!create && !failed_at && rel && *rel && (fd = open_folder_beneath(root_fd, rel)) != -2)
        return fd;
    so_far = g_string_new(NULL);
    fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0 || !rel || !*rel) {
        g_string_free(so_far, TRUE);
        return fd;
    }
    parts = g_strsplit(rel, "/", -1);
    for (int i = 0; parts[i]; i++) {
        int next = openat(fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (so_far->len)
            g_string_append_c(so_far, '/');
        g_string_append(so_far, parts[i]);
        if (next < 0 && errno == ENOENT && create) {
            if (mkdirat(fd, parts[i], 0777) == 0) {
                if (made)
                    g_ptr_array_add(made, g_strdup(so_far->str));
            }
            else if (errno != EEXIST) {
                int saved = errno;

                close(fd);
                g_string_free(so_far, TRUE);
                if (failed_at)
                    *failed_at = i;
                errno = saved;
                return -1;
            }
            next = openat(fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0) {
            int saved = errno;

            close(fd);
            g_string_free(so_far, TRUE);
            if (failed_at)
                *failed_at = i;
            errno = saved;
            return -1;
        }
        close(fd);
        fd = next;
    }
    g_string_free(so_far, TRUE);
    return fd;
}

/* Why component `index` of `rel` could not be used as a folder. */
static int
walk_failed(gal_error *err, int root_fd, const char *root_path, const char *rel, int index,
    int saved)
{
    g_auto(GStrv) parts = g_strsplit(rel, "/", -1);
    GString *parent_rel = g_string_new(NULL);
    g_autofree char *shown = NULL;
    struct stat st;
    int parent;

    for (int i = 0; i < index; i++)
        g_string_append_printf(parent_rel, "%s%s", i ? "/" : "", parts[i]);
    shown = g_build_filename(root_path, parent_rel->str, parts[index], NULL);
    parent = walk_beneath(root_fd, parent_rel->str, FALSE, NULL, NULL);
    g_string_free(parent_rel, TRUE);
    if (parent >= 0 && fstatat(parent, parts[index], &st, AT_SYMLINK_NOFOLLOW) == 0) {
        close(parent);
        if (S_ISLNK(st.st_mode))
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL,
                "%s is a symbolic link: gallop never writes through one (remove it, or name "
                "outputs elsewhere)",
                shown);
        if (!S_ISDIR(st.st_mode))
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s is a file, not a folder",
                shown);
    }
    else if (parent >= 0)
        close(parent);
    return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot create folder %s: %s", shown,
        g_strerror(saved));
}

int
gal__dir_open_beneath(int root_fd, const char *root_path, const char *rel, gboolean create,
    GPtrArray *made, gal_error *err)
{
    int failed_at, fd;

    if (rel && *rel && !gal__path_is_beneath(rel))
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL,
            "\"%s\" is not a folder beneath %s", rel, root_path);
    if ((fd = walk_beneath(root_fd, rel, create, made, &failed_at)) >= 0)
        return fd;
    if (!rel || !*rel)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot open %s: %s", root_path,
            g_strerror(errno));
    return walk_failed(err, root_fd, root_path, rel, failed_at, errno);
}

int
gal__stat_beneath(int root_fd, const char *rel, struct stat *st)
{
    g_autofree char *folder = NULL;
    g_autofree char *name = NULL;
    int dir, result, saved;

    if (!gal__path_is_beneath(rel)) {
        errno = EINVAL;
        return -1;
    }
    /* A name in the folder itself (every output of most presets): no
     * folder to walk, so no descriptor to duplicate and close, two system
     * calls of a rerun's five per photo. */
    if (!strchr(rel, '/'))
        return fstatat(root_fd, rel, st, AT_SYMLINK_NOFOLLOW);
    split_rel(rel, &folder, &name);
    if ((dir = walk_beneath(root_fd, folder, FALSE, NULL, NULL)) < 0)
        return -1;
    result = fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW);
    saved = errno;
    close(dir);
    errno = saved;
    return result;
}

int
gal__open_beneath(int root_fd, const char *rel)
{
    g_autofree char *folder = NULL;
    g_autofree char *name = NULL;
    struct stat st;
    int dir, fd, saved;

    if (!gal__path_is_beneath(rel)) {
        errno = EINVAL;
        return -1;
    }
    split_rel(rel, &folder, &name);
    if ((dir = walk_beneath(root_fd, folder, FALSE, NULL, NULL)) < 0)
        return -1;
    fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    saved = errno;
    close(dir);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    errno = saved;
    return fd;
}

int
gal__unlink_beneath(int root_fd, const char *root_path, const char *rel, gal_error *err)
{
    g_autofree char *folder = NULL;
    g_autofree char *name = NULL;
    g_autofree char *shown = NULL;
    int dir;

    if (!gal__path_is_beneath(rel))
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL,
            "\"%s\" is not a path beneath %s: not removed", rel, root_path);
    shown = g_build_filename(root_path, rel, NULL);
    split_rel(rel, &folder, &name);
    if ((dir = walk_beneath(root_fd, folder, FALSE, NULL, NULL)) < 0)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot remove %s: %s", shown,
            g_strerror(errno));
    if (unlinkat(dir, name, 0) != 0) {
        int saved = errno;

        close(dir);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot remove %s: %s", shown,
            g_strerror(saved));
    }
    close(dir);
    /* Folders the output alone kept, up to the root: rmdir fails on the
     * first that holds anything else, and that ends the walk. */
    while (*folder) {
        char *slash = strrchr(folder, '/');
        g_autofree char *last = g_strdup(slash ? slash + 1 : folder);
        int parent;

        if (slash)
            *slash = '\0';
        else
            *folder = '\0';
        if ((parent = walk_beneath(root_fd, folder, FALSE, NULL, NULL)) < 0)
            break;
        if (unlinkat(parent, last, AT_REMOVEDIR) != 0) {
            close(parent);
            break;
        }
        close(parent);
    }
    return 0;
}

/* ---- the atomic writer ------------------------------------------------------------ */

int
gal__write_all(int fd, const void *data, gsize len)
{
    const char *p = data;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        p += n;
        len -= (gsize) n;
    }
    return 0;
}

/* Open a new temporary file beside `name` in `dir_fd`. */
static int
open_temporary(int dir_fd, const char *name, char **tmp)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd;

        *tmp = g_strdup_printf(".%s.%06x%s", name, g_random_int() & 0xffffff, GAL_TMP_SUFFIX);
        /* The mode less the umask, as for any new file; O_EXCL and
         * O_NOFOLLOW: never an existing file, never through a link. */
        fd = openat(dir_fd, *tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
        g_free(*tmp);
        *tmp = NULL;
    }
    errno = EEXIST;
    return -1;
}

static int
atomic_begin_in(int dir_fd, const char *name, const char *display, gal_atomic *a, gal_error *err)
{
    *a = (gal_atomic) { dir_fd, -1, g_strdup(name), NULL, g_strdup(display) };
    if ((a->fd = open_temporary(dir_fd, name, &a->tmp)) < 0) {
        int saved = errno;

        gal__atomic_abort(a);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s: %s", display,
            g_strerror(saved));
    }
    return 0;
}

int
gal__atomic_begin(int root_fd, const char *root_path, const char *rel, GPtrArray *made,
    gal_atomic *a, gal_error *err)
{
    g_autofree char *folder = NULL;
    g_autofree char *name = NULL;
    g_autofree char *display = NULL;
    int dir;

    *a = (gal_atomic) { -1, -1, NULL, NULL, NULL };
    if (!gal__path_is_beneath(rel))
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL,
            "\"%s\" is not a path beneath %s: not written", rel, root_path);
    display = g_build_filename(root_path, rel, NULL);
    split_rel(rel, &folder, &name);
    if ((dir = gal__dir_open_beneath(root_fd, root_path, folder, TRUE, made, err)) < 0)
        return -1;
    return atomic_begin_in(dir, name, display, a, err);
}

void
gal__atomic_abort(gal_atomic *a)
{
    if (a->fd >= 0)
        close(a->fd);
    if (a->tmp && a->dir_fd >= 0)
        unlinkat(a->dir_fd, a->tmp, 0);
    if (a->dir_fd >= 0)
        close(a->dir_fd);
    g_free(a->name);
    g_free(a->tmp);
    g_free(a->display);
    *a = (gal_atomic) { -1, -1, NULL, NULL, NULL };
}

int
gal__atomic_commit(gal_atomic *a, gboolean durable, gal_error *err)
{
    int failed = 0, saved = 0;

    if (durable && fsync(a->fd) != 0) {
        failed = -1;
        saved = errno;
    }
    /* Some file systems (NFS, quotas) only report a full disk at close. */
    if (close(a->fd) != 0 && !failed) {
        failed = -1;
        saved = errno;
    }
    a->fd = -1;
    if (!failed && renameat(a->dir_fd, a->tmp, a->dir_fd, a->name) != 0) {
        failed = -1;
        saved = errno;
    }
    if (failed) {
        gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s: %s", a->display,
            g_strerror(saved));
        gal__atomic_abort(a);
        return -1;
    }
    /* The rename itself reaches the disk with the folder. */
    if (durable)
        fsync(a->dir_fd);
    g_free(a->tmp);
    a->tmp = NULL;
    gal__atomic_abort(a);
    return 0;
}

static int
write_whole(gal_atomic *a, const void *data, gsize len, gboolean durable, gal_error *err)
{
    if (gal__write_all(a->fd, data, len) != 0) {
        int saved = errno;

        gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s: %s", a->display,
            g_strerror(saved));
        gal__atomic_abort(a);
        return -1;
    }
    return gal__atomic_commit(a, durable, err);
}

int
gal__write_atomic_beneath(int root_fd, const char *root_path, const char *rel, const void *data,
    gsize len, gboolean durable, gal_error *err)
{
    gal_atomic a;

    if (gal__atomic_begin(root_fd, root_path, rel, NULL, &a, err))
        return -1;
    return write_whole(&a, data, len, durable, err);
}

int
gal__atomic_begin_path(const char *path, gal_atomic *a, gal_error *err)
{
    g_autofree char *folder = g_path_get_dirname(path);
    g_autofree char *name = g_path_get_basename(path);
    int dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    *a = (gal_atomic) { -1, -1, NULL, NULL, NULL };
    if (dir < 0)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s: %s", path,
            g_strerror(errno));
    return atomic_begin_in(dir, name, path, a, err);
}

int
gal__write_atomic(const char *path, const void *data, gsize len, gboolean durable,
    gal_error *err)
{
    gal_atomic a;

    if (gal__atomic_begin_path(path, &a, err))
        return -1;
    return write_whole(&a, data, len, durable, err);
}

gint64
gal__mtime_ns(const struct stat *st)
{
    return (gint64) st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* `text` in lower case into `buf` when it is ASCII and fits: what
 * g_utf8_casefold makes of ASCII. FALSE otherwise. */
static gboolean
ascii_lower(const char *text, char *buf, size_t size)
{
    size_t i = 0;

    for (; text[i]; i++) {
        if ((unsigned char) text[i] >= 0x80 || i + 1 >= size)
            return FALSE;
        buf[i] = g_ascii_tolower(text[i]);
    }
    buf[i] = '\0';
    return TRUE;
}

gboolean
gal__glob_match(const char *pattern, const char *name)
{
    char pattern_lower[256], name_lower[256];
    g_autofree char *p = NULL;
    g_autofree char *n = NULL;

    /* ASCII names (nearly all photos') are folded on the stack: two
     * casefolds allocated per photo and glob were 7% of a rerun. */
    if (ascii_lower(pattern, pattern_lower, sizeof pattern_lower) &&
        ascii_lower(name, name_lower, sizeof name_lower))
        return g_pattern_match_simple(pattern_lower, name_lower);
    p = g_utf8_casefold(pattern, -1);
    n = g_utf8_casefold(name, -1);
    return g_pattern_match_simple(p, n);
}
