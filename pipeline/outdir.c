/* outdir.c: one run at a time per output folder, and what a killed run
 * left behind.
 *
 * Two runs writing into one folder would each save a manifest that lacks
 * the other's outputs, and could rename over each other's files. A run
 * therefore holds an exclusive flock on the folder itself (no lock file to
 * leave behind; the kernel drops the lock when the process dies, even on
 * SIGKILL). Holding it also proves that the hidden temporary files in the
 * folder belong to no live run, so they are removed: a run killed with
 * SIGKILL or by a power cut cannot remove its own. The shards of a sharded
 * run share the folder (each writes files of its own), so they take a
 * shared lock, and leave temporary files to the merge. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "fsio.h"
#include "store.h"
#include "outdir.h"

/* Output files and the manifest are written as ".NAME.XXXXXX.gallop-tmp". */
static gboolean
is_leftover(const char *name)
{
    return name[0] == '.' && g_str_has_suffix(name, GAL_TMP_SUFFIX);
}

/* Is it, in the top folder, a manifest's file that the sweep keeps? */
static gboolean
is_manifest_file(const char *name, int depth)
{
    return depth == 0 && g_str_has_prefix(name, GAL_MANIFEST_PREFIX);
}

/* Depth-first through the folder and its sub-folders (output names may hold
 * folders); symbolic links are not followed, so nothing outside is touched.
 * The top folder's manifest files' names go to `manifests`. */
static int
sweep(int dir_fd, int depth, GPtrArray *manifests)
{
    DIR *dir;
    struct dirent *entry;
    int removed = 0;

    if (depth > 32)
        return 0;
    if ((dir_fd = dup(dir_fd)) < 0)
        return 0;
    if (!(dir = fdopendir(dir_fd))) {
        close(dir_fd);
        return 0;
    }
    while ((entry = readdir(dir))) {
        struct stat st = { 0 };

        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        /* The folder's own listing says what most entries are (as lstat
         * would: a link is a link), so only a leftover's name or a file
         * system that does not say costs a stat: a folder of a million
         * outputs is swept without a million stats. */
        if (entry->d_type == DT_REG && !is_leftover(entry->d_name)) {
            if (is_manifest_file(entry->d_name, depth))
                g_ptr_array_add(manifests, g_strdup(entry->d_name));
            continue;
        }
        if (entry->d_type == DT_DIR)
            st.st_mode = S_IFDIR;
        else if ((entry->d_type != DT_REG && entry->d_type != DT_UNKNOWN) ||
            fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode) && is_leftover(entry->d_name))
            removed += unlinkat(dirfd(dir), entry->d_name, 0) == 0;
        else if (S_ISREG(st.st_mode) && is_manifest_file(entry->d_name, depth))
            g_ptr_array_add(manifests, g_strdup(entry->d_name));
        else if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(dir), entry->d_name,
                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

            if (sub >= 0) {
                removed += sweep(sub, depth + 1, manifests);
                close(sub);
            }
        }
    }
    closedir(dir);
    return removed;
}

/* The folders mkdir -p would make for `dir`, deepest first. */
static GPtrArray *
missing_folders(const char *dir)
{
    GPtrArray *missing = g_ptr_array_new_with_free_func(g_free);
    char *path = g_strdup(dir);

    while (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        char *parent = g_path_get_dirname(path);

        g_ptr_array_add(missing, path);
        if (strcmp(parent, path) == 0) {
            g_free(parent);
            return missing;
        }
        path = parent;
    }
    g_free(path);
    return missing;
}

int
gal__out_dir_claim(const char *dir, gal_claim how, gal_out_dir *claim, gal_error *err)
{
    int fd;

    *claim = (gal_out_dir) { -1, g_canonicalize_filename(dir, NULL), 0, FALSE,
        how != GAL_CLAIM_LOOK ? missing_folders(dir) : g_ptr_array_new_with_free_func(g_free),
        0, NULL };
    if (how == GAL_CLAIM_LOOK) {
        /* A dry run looks at what is there and makes nothing. */
        claim->fd = open(claim->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return 0;
    }
    /* A folder that cannot be made or opened holds nothing to protect; every
     * photo then fails on writing, and says why, as it would without this. */
    if (g_mkdir_with_parents(claim->path, 0777) != 0 ||
        (fd = open(claim->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        claim->open_errno = errno;
        return 0;
    }
    if (flock(fd, (how == GAL_CLAIM_SHARE ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
        int saved = errno;

        close(fd);
        gal__out_dir_release(claim);
        if (saved == EWOULDBLOCK && how == GAL_CLAIM_SHARE)
            return gal_error_set(err, GAL_ERR_USAGE, NULL, NULL,
                "a gallop run that is not a shard (or a merge) is writing to %s; wait for it "
                "to finish, or give another output folder", dir);
        if (saved == EWOULDBLOCK)
            return gal_error_set(err, GAL_ERR_USAGE, NULL, NULL,
                "another gallop run is writing to %s; wait for it to finish, or give another "
                "output folder",
                dir);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot lock the output folder %s: %s",
            dir, g_strerror(saved));
    }
    if (how == GAL_CLAIM_OWN) {
        claim->manifest_files = g_ptr_array_new_with_free_func(g_free);
        claim->leftovers_removed = sweep(fd, 0, claim->manifest_files);
    }
    claim->fd = fd;
    claim->locked = TRUE;
    return 0;
}

void
gal__out_dir_release(gal_out_dir *claim)
{
    if (claim->fd >= 0)
        close(claim->fd); /* drops the flock */
    claim->fd = -1;
    /* A run that wrote nothing leaves no trace: the folders it made for
     * outputs are removed again while empty (rmdir fails on any other). */
    for (guint i = 0; claim->created && i < claim->created->len; i++)
        if (rmdir(claim->created->pdata[i]) != 0)
            break;
    g_clear_pointer(&claim->created, g_ptr_array_unref);
    g_clear_pointer(&claim->manifest_files, g_ptr_array_unref);
    g_clear_pointer(&claim->path, g_free);
}
