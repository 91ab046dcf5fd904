/* The file system rules: regular files only, read within their folder,
 * writes and removals only beneath a folder and never through a link. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(fsio, .init = gal_test_setup, .fini = gal_test_teardown);

static gal_read_rules
rules_for(const char *within, gint64 max_bytes)
{
    return (gal_read_rules) { "caption sidecar", within, FALSE, max_bytes, GAL_ERR_INPUT };
}

static void
write_text(const char *path, const char *text)
{
    cr_assert(g_file_set_contents(path, text, -1, NULL), "cannot write %s", path);
}

/* Read `path` by `rules`: 0 with the text, or -1 with the message. */
static int
read_it(const char *path, const gal_read_rules *rules, char **text, gal_error *err)
{
    gsize len;

    *err = (gal_error) { 0 };
    return gal__file_read(path, rules, text, &len, NULL, err);
}

static void
expect_refused(const char *path, const gal_read_rules *rules, const char *words)
{
    g_autofree char *text = NULL;
    gal_error err;

    cr_expect_eq(read_it(path, rules, &text, &err), -1, "%s was read", path);
    cr_expect_eq(err.code, rules->code);
    cr_expect(strstr(err.msg, path) != NULL, "no path in: %s", err.msg);
    cr_expect(strstr(err.msg, words) != NULL, "no \"%s\" in: %s", words, err.msg);
}

Test(fsio, reads_a_regular_file)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-read");
    g_autofree char *path = g_build_filename(dir, "a.txt", NULL);
    gal_read_rules rules = rules_for(dir, 100);
    g_autofree char *text = NULL;
    gal_error err;

    write_text(path, "Pyongyang");
    cr_assert_eq(read_it(path, &rules, &text, &err), 0, "%s", err.msg);
    cr_expect_str_eq(text, "Pyongyang");
}

Test(fsio, names_every_kind_that_is_not_a_file)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-kinds");
    g_autofree char *fifo = g_build_filename(dir, "fifo.txt", NULL);
    g_autofree char *folder = g_build_filename(dir, "folder.txt", NULL);
    g_autofree char *sock = g_build_filename(dir, "sock.txt", NULL);
    g_autofree char *missing = g_build_filename(dir, "missing.txt", NULL);
    g_autofree char *dangling = g_build_filename(dir, "dangling.txt", NULL);
    g_autofree char *loop_a = g_build_filename(dir, "loop-a.txt", NULL);
    g_autofree char *loop_b = g_build_filename(dir, "loop-b.txt", NULL);
    g_autofree char *zero = g_build_filename(dir, "zero.txt", NULL);
    gal_read_rules rules = rules_for(NULL, 0);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int s = socket(AF_UNIX, SOCK_STREAM, 0);

    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(g_mkdir_with_parents(folder, 0700), 0);
    g_strlcpy(addr.sun_path, sock, sizeof(addr.sun_path));
    cr_assert_eq(bind(s, (struct sockaddr *) &addr, sizeof(addr)), 0, "%s", g_strerror(errno));
    cr_assert_eq(symlink("nowhere.txt", dangling), 0);
    cr_assert_eq(symlink("loop-b.txt", loop_a), 0);
    cr_assert_eq(symlink("loop-a.txt", loop_b), 0);
    cr_assert_eq(symlink("/dev/zero", zero), 0);
    /* A FIFO without a writer would block a plain open: this must return. */
    expect_refused(fifo, &rules, "is a FIFO");
    expect_refused(folder, &rules, "is a folder");
    expect_refused(sock, &rules, "is a socket");
    expect_refused(missing, &rules, "does not exist");
    expect_refused(dangling, &rules, "is a symbolic link to nothing");
    expect_refused(loop_a, &rules, "is a symbolic link loop");
    expect_refused(zero, &rules, "is a device");
    close(s);
}

Test(fsio, refuses_a_file_over_its_limit)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-limit");
    g_autofree char *path = g_build_filename(dir, "big.txt", NULL);
    gal_read_rules rules = rules_for(NULL, 4);

    write_text(path, "12345");
    expect_refused(path, &rules, "is 5 bytes, larger than the 4 bytes a caption sidecar may be");
    rules.max_bytes = 5;
    {
        g_autofree char *text = NULL;
        gal_error err;

        cr_expect_eq(read_it(path, &rules, &text, &err), 0, "%s", err.msg);
    }
}

Test(fsio, follows_links_only_within_the_folder)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-within");
    g_autofree char *tree = g_build_filename(dir, "tree", NULL);
    g_autofree char *inner = g_build_filename(tree, "real.txt", NULL);
    g_autofree char *secret = g_build_filename(dir, "secret.txt", NULL);
    g_autofree char *to_inner = g_build_filename(tree, "a.txt", NULL);
    g_autofree char *to_inner_abs = g_build_filename(tree, "b.txt", NULL);
    g_autofree char *to_secret = g_build_filename(tree, "c.txt", NULL);
    g_autofree char *to_passwd = g_build_filename(tree, "d.txt", NULL);
    gal_read_rules rules = rules_for(tree, 0);
    g_autofree char *text = NULL;
    gal_error err;

    cr_assert_eq(g_mkdir_with_parents(tree, 0700), 0);
    write_text(inner, "inside");
    write_text(secret, "outside");
    cr_assert_eq(symlink("real.txt", to_inner), 0);
    cr_assert_eq(symlink(inner, to_inner_abs), 0);
    cr_assert_eq(symlink("../secret.txt", to_secret), 0);
    cr_assert_eq(symlink("/etc/passwd", to_passwd), 0);

    cr_expect_eq(read_it(to_inner, &rules, &text, &err), 0, "%s", err.msg);
    g_clear_pointer(&text, g_free);
    cr_expect_eq(read_it(to_inner_abs, &rules, &text, &err), 0, "%s", err.msg);
    g_clear_pointer(&text, g_free);
    expect_refused(to_secret, &rules, "symbolic link that leads out of");
    expect_refused(to_passwd, &rules, "(--follow-symlinks follows it)");
    rules.follow_links = TRUE;
    cr_expect_eq(read_it(to_secret, &rules, &text, &err), 0, "%s", err.msg);
    cr_expect_str_eq(text, "outside");
}

Test(fsio, tells_paths_beneath_a_folder)
{
    cr_expect(gal__path_is_beneath("a.jpg"));
    cr_expect(gal__path_is_beneath("sub/dir/a.jpg"));
    cr_expect_not(gal__path_is_beneath(""));
    cr_expect_not(gal__path_is_beneath("/etc/passwd"));
    cr_expect_not(gal__path_is_beneath("../victim.txt"));
    cr_expect_not(gal__path_is_beneath("sub/../../victim.txt"));
    cr_expect_not(gal__path_is_beneath("./a.jpg"));
    cr_expect_not(gal__path_is_beneath("sub//a.jpg"));
    cr_expect_not(gal__path_is_beneath("sub/"));
    cr_expect_not(gal__path_is_beneath("sub/."));
    cr_expect_not(gal__path_is_beneath("sub/.."));
    cr_expect_not(gal__path_is_beneath(".."));
    cr_expect_not(gal__path_is_beneath("."));
    cr_expect(gal__path_is_beneath(".hidden/..x/...")); /* names, not "." or ".." */
}

static int
open_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    cr_assert_geq(fd, 0, "cannot open %s", path);
    return fd;
}

Test(fsio, writes_atomically_beneath_a_folder_making_folders)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-write");
    g_autofree char *written = g_build_filename(dir, "a", "b", "c.txt", NULL);
    g_autoptr(GPtrArray) names = NULL;
    g_autofree char *text = NULL;
    gal_error err = { 0 };
    int root = open_dir(dir);

    cr_assert_eq(gal__write_atomic_beneath(root, dir, "a/b/c.txt", "42", 2, TRUE, &err), 0,
        "%s", err.msg);
    text = gal_test_read_bytes(written, NULL);
    cr_expect_str_eq(text, "42");
    names = gal_test_list_dir(dir);
    cr_expect_eq(names->len, 1, "only the folder a");
    close(root);
}

Test(fsio, never_writes_through_a_link)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-nolink");
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *elsewhere = g_build_filename(dir, "elsewhere", NULL);
    g_autofree char *link = g_build_filename(out, "sub", NULL);
    g_autofree char *victim = g_build_filename(elsewhere, "x.jpg", NULL);
    g_autofree char *final_link = g_build_filename(out, "y.jpg", NULL);
    g_autofree char *target = g_build_filename(elsewhere, "y.jpg", NULL);
    gal_error err = { 0 };
    struct stat st;
    int root;

    cr_assert_eq(g_mkdir_with_parents(out, 0700), 0);
    cr_assert_eq(g_mkdir_with_parents(elsewhere, 0700), 0);
    cr_assert_eq(symlink(elsewhere, link), 0);
    write_text(target, "keep me");
    cr_assert_eq(symlink(target, final_link), 0);
    root = open_dir(out);

    cr_expect_eq(gal__write_atomic_beneath(root, out, "sub/x.jpg", "x", 1, FALSE, &err), -1);
    cr_expect(strstr(err.msg, "sub is a symbolic link: gallop never writes through one") != NULL,
        "%s", err.msg);
    cr_expect_neq(stat(victim, &st), 0, "written through the link");
    /* A link in the final name's place is replaced, its target untouched. */
    err = (gal_error) { 0 };
    cr_expect_eq(gal__write_atomic_beneath(root, out, "y.jpg", "new", 3, FALSE, &err), 0,
        "%s", err.msg);
    {
        g_autofree char *kept = gal_test_read_bytes(target, NULL);

        cr_expect_str_eq(kept, "keep me");
    }
    cr_expect_eq(lstat(final_link, &st), 0);
    cr_expect(S_ISREG(st.st_mode));
    err = (gal_error) { 0 };
    cr_expect_eq(gal__write_atomic_beneath(root, out, "../escape.jpg", "x", 1, FALSE, &err), -1);
    cr_expect(strstr(err.msg, "is not a path beneath") != NULL, "%s", err.msg);
    close(root);
}

Test(fsio, an_abandoned_write_leaves_nothing)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-abort");
    g_autoptr(GPtrArray) names = NULL;
    gal_error err = { 0 };
    gal_atomic a;
    int root = open_dir(dir);

    cr_assert_eq(gal__atomic_begin(root, dir, "a.jpg", NULL, &a, &err), 0, "%s", err.msg);
    cr_assert_eq(gal__write_all(a.fd, "half", 4), 0);
    gal__atomic_abort(&a);
    names = gal_test_list_dir(dir);
    cr_expect_eq(names->len, 0, "left: %s", names->len ? (char *) names->pdata[0] : "");
    close(root);
}

Test(fsio, removes_beneath_and_prunes_empty_folders)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-unlink");
    g_autofree char *kept = g_build_filename(dir, "a", "keep.txt", NULL);
    g_autofree char *outside = g_build_filename(dir, "..", "fsio-unlink-outside.txt", NULL);
    g_autoptr(GPtrArray) names = NULL;
    gal_error err = { 0 };
    struct stat st;
    int root = open_dir(dir);

    write_text(outside, "stays");
    cr_assert_eq(gal__write_atomic_beneath(root, dir, "a/b/c.txt", "1", 1, FALSE, &err), 0);
    cr_assert_eq(gal__write_atomic_beneath(root, dir, "a/keep.txt", "1", 1, FALSE, &err), 0);
    cr_expect_eq(gal__unlink_beneath(root, dir, "a/b/c.txt", &err), 0, "%s", err.msg);
    cr_expect_eq(stat(kept, &st), 0, "a/keep.txt removed");
    names = gal_test_list_dir(dir);
    cr_expect_eq(names->len, 1);
    cr_expect_eq(gal__unlink_beneath(root, dir, "../fsio-unlink-outside.txt", &err), -1);
    cr_expect_eq(stat(outside, &st), 0, "removed outside the folder");
    unlink(outside);
    close(root);
}

/* A file beneath the output folder is stat'ed and opened only through
 * folders, never through a link in any part of its path, nor outside. */
Test(fsio, stats_and_opens_beneath_never_through_a_link)
{
    g_autofree char *dir = gal_test_tmpdir("fsio-stat-beneath");
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *deep = g_build_filename(out, "real", "sub", NULL);
    g_autofree char *photo = g_build_filename(deep, "a.jpg", NULL);
    g_autofree char *elsewhere = g_build_filename(dir, "elsewhere", "sub", NULL);
    g_autofree char *outside = g_build_filename(elsewhere, "a.jpg", NULL);
    g_autofree char *file = g_build_filename(out, "f", NULL);
    static const char *const refused[] = { "lnk/sub/a.jpg", "real/up/real/sub/a.jpg",
        "ext/sub/a.jpg", "real/lnk/a.jpg", "f/a.jpg", "missing/sub/a.jpg", "real/sub/b.jpg",
        "real/sub/link.jpg" };
    g_autofree char *lnk = g_build_filename(out, "lnk", NULL);
    g_autofree char *up = g_build_filename(out, "real", "up", NULL);
    g_autofree char *real_lnk = g_build_filename(out, "real", "lnk", NULL);
    g_autofree char *ext = g_build_filename(out, "ext", NULL);
    g_autofree char *ext_target = g_build_filename(dir, "elsewhere", NULL);
    g_autofree char *photo_link = g_build_filename(deep, "link.jpg", NULL);
    struct stat st;
    int root, fd;

    cr_assert_eq(g_mkdir_with_parents(deep, 0700), 0);
    cr_assert_eq(g_mkdir_with_parents(elsewhere, 0700), 0);
    write_text(photo, "inside");
    write_text(outside, "outside");
    write_text(file, "a file, not a folder");
    cr_assert_eq(symlink("real", lnk), 0);
    cr_assert_eq(symlink("..", up), 0);
    cr_assert_eq(symlink("sub", real_lnk), 0);
    cr_assert_eq(symlink(ext_target, ext), 0);
    cr_assert_eq(symlink("a.jpg", photo_link), 0);
    cr_assert((root = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);

    cr_expect_eq(gal__stat_beneath(root, "real/sub/a.jpg", &st), 0, "%s", g_strerror(errno));
    cr_expect_eq(st.st_size, 6);
    fd = gal__open_beneath(root, "real/sub/a.jpg");
    cr_expect_geq(fd, 0, "%s", g_strerror(errno));
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
        gboolean link_itself = strcmp(refused[i], "real/sub/link.jpg") == 0;

        /* A link as the last part is stat'ed as the link, not followed. */
        if (link_itself)
            cr_expect(gal__stat_beneath(root, refused[i], &st) == 0 && S_ISLNK(st.st_mode),
                "%s", refused[i]);
        else
            cr_expect_eq(gal__stat_beneath(root, refused[i], &st), -1, "stat %s", refused[i]);
        fd = gal__open_beneath(root, refused[i]);
        cr_expect_eq(fd, -1, "open %s", refused[i]);
        if (fd >= 0)
            close(fd);
    }
    errno = 0;
    cr_expect_eq(gal__stat_beneath(root, "missing/sub/a.jpg", &st), -1);
    cr_expect_eq(errno, ENOENT, "%s", g_strerror(errno));
    close(root);
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* A merge finds the shards' parts among the manifest files the claim's
 * sweep listed: the folder's own (not a sub-folder's), files only (no
 * link), no other hidden file, and the killed run's temporary files
 * removed rather than listed. */
Test(fsio, a_claim_lists_the_folders_own_manifest_files_as_it_sweeps)
{
    g_autofree char *tmp = gal_test_tmpdir("fsio-manifests");
    const char *files[] = { ".gallop-manifest.db", ".gallop-manifest.2-of-3.db",
        ".trip-01.jpg.Ab12Cd.gallop-tmp", "sub/.gallop-manifest.1-of-3.db", "photo.jpg",
        ".thumbs/a.jpg", ".DS_Store", ".gallop-manifest.db.Zz99Yy.gallop-tmp" };
    g_autofree char *sub = g_build_filename(tmp, "sub", NULL);
    g_autofree char *thumbs = g_build_filename(tmp, ".thumbs", NULL);
    g_autofree char *link = g_build_filename(tmp, ".gallop-manifest.3-of-3.db", NULL);
    gal_out_dir claim;
    gal_error err = { 0 };

    cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
    cr_assert_eq(g_mkdir_with_parents(thumbs, 0777), 0);
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *path = g_build_filename(tmp, files[i], NULL);

        write_text(path, "x");
    }
    cr_assert_eq(symlink("/etc/passwd", link), 0);

    cr_assert_eq(gal__out_dir_claim(tmp, GAL_CLAIM_OWN, &claim, &err), 0, "%s", err.msg);
    cr_assert_not_null(claim.manifest_files);
    g_ptr_array_sort(claim.manifest_files, compare_names);
    cr_expect_eq(claim.leftovers_removed, 2);
    cr_expect_eq(claim.manifest_files->len, 2, "%u names", claim.manifest_files->len);
    if (claim.manifest_files->len == 2) {
        cr_expect_str_eq(claim.manifest_files->pdata[0], ".gallop-manifest.2-of-3.db");
        cr_expect_str_eq(claim.manifest_files->pdata[1], ".gallop-manifest.db");
    }
    gal__out_dir_release(&claim);

    /* A shard neither sweeps nor lists. */
    cr_assert_eq(gal__out_dir_claim(tmp, GAL_CLAIM_SHARE, &claim, &err), 0, "%s", err.msg);
    cr_expect_null(claim.manifest_files);
    gal__out_dir_release(&claim);
}
