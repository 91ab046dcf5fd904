/* The scan of the paths given into the list of photos: each photo once
 * (the first path that reaches it kept), sorted by path, with paths as the
 * folder was given, links, globs and the skipped output folder. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"
#include "shard.h"

TestSuite(inputs, .init = gal_test_setup, .fini = gal_test_teardown);

static void
touch(const char *path)
{
    g_autofree char *dir = g_path_get_dirname(path);

    cr_assert_eq(g_mkdir_with_parents(dir, 0755), 0, "cannot make %s", dir);
    cr_assert(g_file_set_contents(path, "x", 1, NULL), "cannot write %s", path);
}

static void
link_to(const char *target, const char *path)
{
    cr_assert_eq(symlink(target, path), 0, "cannot link %s", path);
}

/* In a fresh folder, made the current one (each test is its own process):
 *   d/x.jpg d/X.JPG d/a-b.jpg d/a/y.jpg d/sub/z.jpg d/sub/deep/w.jpg
 *   d/.hidden.jpg d/note.txt d10/q.jpg other/o.jpg
 *   d/to-other -> ../other, d/sub-link -> sub, d/dangling.jpg -> nothing */
static void
make_tree(void)
{
    g_autofree char *dir = gal_test_tmpdir("inputs");
    const char *files[] = { "d/x.jpg", "d/X.JPG", "d/a-b.jpg", "d/a/y.jpg", "d/sub/z.jpg",
        "d/sub/deep/w.jpg", "d/.hidden.jpg", "d/note.txt", "d10/q.jpg", "other/o.jpg" };

    cr_assert_eq(chdir(dir), 0);
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
        touch(files[i]);
    link_to("../other", "d/to-other");
    link_to("sub", "d/sub-link");
    link_to("missing.jpg", "d/dangling.jpg");
}

typedef struct {
    gal_input *list;
    int n;
    GStringChunk *paths; /* where the photos' paths are */
    /* The files listed as skipped by kind (hidden, video, unknown, a raw
     * not read, a pair's other half), kept apart from `list`: "path kind"
     * a line, in the scan's order. */
    GString *skipped;
} scan;

static void
scan_free(scan *s)
{
    if (s->skipped)
        g_string_free(s->skipped, TRUE);
    gal__inputs_free(s->list, s->n);
    g_string_chunk_free(s->paths);
}

static scan
collect_as(const char *yaml, const char *const *paths, int n_paths, const gal_scan_options *how)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    scan s = { .paths = g_string_chunk_new(256) };

    cr_assert_not_null(preset, "the preset did not load:\n%s", yaml);
    cr_assert_eq(gal__inputs_collect(preset->input, paths, n_paths, how, s.paths,
                     &s.list, &s.n, errs),
        0, "the scan failed");
    gal_preset_free(preset);
    /* Links not followed and special files stay in `list`, as ever. */
    s.skipped = g_string_new(NULL);
    for (int i = 0, kept = 0; i < s.n; i++) {
        gal_input in = s.list[i];

        if (in.skip == GAL_SKIP_NONE || in.skip == GAL_SKIP_LINK || in.skip == GAL_SKIP_SPECIAL)
            s.list[kept++] = in;
        else {
            g_string_append_printf(s.skipped, "%s %s\n", in.path, gal__skip_kind_name(in.skip));
            if (in.root)
                g_ref_string_release(in.root);
        }
        if (i == s.n - 1)
            s.n = kept;
    }
    return s;
}

/* The scan with `jobs` threads looking entries up (0: one a core). */
static scan
collect_on(const char *yaml, const char *const *paths, int n_paths, const char *skip,
    gboolean follow, int jobs)
{
    gal_scan_options how = { skip, follow, jobs, 0, 0, FALSE, NULL };

    return collect_as(yaml, paths, n_paths, &how);
}

static scan
collect_with(const char *yaml, const char *const *paths, int n_paths, const char *skip,
    gboolean follow)
{
    return collect_on(yaml, paths, n_paths, skip, follow, 0);
}

static scan
collect(const char *const *paths, int n_paths)
{
    return collect_with("gallop: 1\n", paths, n_paths, NULL, FALSE);
}

/* The paths of the list, one a line, in its order. */
static char *
listed(const scan *s)
{
    GString *text = g_string_new(NULL);

    for (int i = 0; i < s->n; i++)
        g_string_append_printf(text, "%s\n", s->list[i].path);
    return g_string_free(text, FALSE);
}

static const gal_input *
find(const scan *s, const char *path)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->list[i].path, path) == 0)
            return &s->list[i];
    return NULL;
}

#define EXPECT_LISTED(s, expected)                                                             \
    do {                                                                                       \
        g_autofree char *got_ = listed(&(s));                                                  \
        cr_expect_str_eq(got_, expected);                                                      \
    } while (0)

/* All of d, in path order: "a-b.jpg" before "a/y.jpg" ('-' sorts before
 * '/'), though the scan meets the folder a first. */
#define ALL_OF_D(prefix)                                                                       \
    prefix "X.JPG\n" prefix "a-b.jpg\n" prefix "a/y.jpg\n" prefix "dangling.jpg\n" prefix     \
           "sub/deep/w.jpg\n" prefix "sub/z.jpg\n" prefix "to-other\n" prefix "x.jpg\n"

Test(inputs, a_folder_alone_in_path_order_with_its_facts)
{
    const char *paths[] = { "d" };
    scan s;
    const gal_input *x;
    struct stat st;

    make_tree();
    s = collect(paths, 1);
    EXPECT_LISTED(s, ALL_OF_D("d/"));
    x = find(&s, "d/sub/z.jpg");
    cr_assert_not_null(x);
    cr_expect_str_eq(gal__input_rel(x), "sub/z.jpg");
    cr_expect_eq(gal__input_rel(x), x->path + strlen("d/"), "the end of its path");
    cr_expect(x->regular);
    cr_expect_null(gal__input_why(x));
    cr_assert_eq(stat("d/sub/z.jpg", &st), 0);
    cr_expect_eq(x->dev, st.st_dev);
    cr_expect_eq(x->ino, st.st_ino);
    cr_expect_eq(x->size, 1);
    cr_expect_eq(x->mtime_ns, gal__mtime_ns(&st));
    cr_expect_not_null(x->root);
    cr_expect_not_null(strstr(gal__input_why(find(&s, "d/dangling.jpg")), "a symbolic link to nothing"));
    cr_expect_not_null(strstr(gal__input_why(find(&s, "d/to-other")), "outside the input folder"));
    scan_free(&s);
}

Test(inputs, a_folder_given_with_slashes_at_its_end)
{
    const char *paths[] = { "d//" };
    scan s;

    make_tree();
    s = collect(paths, 1);
    /* As g_build_filename joins them: one slash. */
    EXPECT_LISTED(s, ALL_OF_D("d/"));
    cr_expect_str_eq(gal__input_rel(find(&s, "d/a/y.jpg")), "a/y.jpg");
    scan_free(&s);
}

Test(inputs, the_same_folder_twice_lists_each_photo_once_as_first_named)
{
    const char *paths[] = { "./d/", "d" };
    scan s;

    make_tree();
    s = collect(paths, 2);
    EXPECT_LISTED(s, ALL_OF_D("./d/"));
    scan_free(&s);
}

Test(inputs, a_photo_named_and_in_a_folder_is_listed_once_as_first_named)
{
    const char *file_first[] = { "d/./x.jpg", "d" };
    const char *folder_first[] = { "d", "d/sub/../x.jpg" };
    scan s;

    make_tree();
    s = collect(file_first, 2);
    cr_expect_not_null(find(&s, "d/./x.jpg"));
    cr_expect_null(find(&s, "d/x.jpg"), "listed twice");
    cr_expect_eq(s.n, 8);
    cr_expect_str_eq(gal__input_rel(find(&s, "d/./x.jpg")), "x.jpg");
    scan_free(&s);

    s = collect(folder_first, 2);
    cr_expect_not_null(find(&s, "d/x.jpg"));
    cr_expect_null(find(&s, "d/sub/../x.jpg"), "listed twice");
    cr_expect_eq(s.n, 8);
    scan_free(&s);
}

Test(inputs, a_folder_inside_another_given_adds_nothing_twice)
{
    const char *paths[] = { "d", "./d/sub", "d10" };
    scan s;

    make_tree();
    s = collect(paths, 3);
    /* ./d/sub/z.jpg is d/sub/z.jpg, taken from d first. d10 only starts
     * like d: its photo is its own. */
    EXPECT_LISTED(s, ALL_OF_D("d/") "d10/q.jpg\n");
    scan_free(&s);
}

Test(inputs, a_photo_named_twice_is_listed_once)
{
    const char *paths[] = { "d/x.jpg", "other", "./d/x.jpg", "d/X.JPG" };
    scan s;

    make_tree();
    s = collect(paths, 4);
    EXPECT_LISTED(s, "d/X.JPG\nd/x.jpg\nother/o.jpg\n");
    cr_expect_str_eq(gal__input_rel(find(&s, "d/x.jpg")), "x.jpg");
    scan_free(&s);
}

Test(inputs, a_link_to_nothing_named_twice_fails_twice)
{
    const char *paths[] = { "d/dangling.jpg", "d/dangling.jpg", "d" };
    scan s;
    int refused = 0;

    make_tree();
    s = collect(paths, 3);
    for (int i = 0; i < s.n; i++)
        refused += s.list[i].refused;
    /* Named: refused, each time; found in d: listed, not taken. */
    cr_expect_eq(refused, 2);
    cr_expect_eq(s.n, 10);
    scan_free(&s);
}

Test(inputs, links_inside_followed_once_and_outside_with_follow_symlinks)
{
    const char *paths[] = { "d" };
    scan s;

    make_tree();
    s = collect_with("gallop: 1\n", paths, 1, NULL, TRUE);
    /* sub-link leads to sub, scanned already under its own name. */
    cr_expect_null(find(&s, "d/sub-link/z.jpg"));
    cr_expect_not_null(find(&s, "d/sub/z.jpg"));
    cr_expect_not_null(find(&s, "d/to-other/o.jpg"));
    cr_expect_str_eq(gal__input_rel(find(&s, "d/to-other/o.jpg")), "to-other/o.jpg");
    cr_expect_null(find(&s, "d/to-other"));
    scan_free(&s);
}

Test(inputs, a_folder_given_as_a_link_is_followed)
{
    const char *paths[] = { "dlink/" };
    scan s;

    make_tree();
    link_to("d", "dlink");
    s = collect(paths, 1);
    EXPECT_LISTED(s, ALL_OF_D("dlink/"));
    scan_free(&s);
}

Test(inputs, globs_fold_case_and_characters_outside_ascii)
{
    const char *paths[] = { "g" };
    scan s;

    make_tree();
    touch("g/a.jpg");
    touch("g/b.JpG");
    touch("g/c.jpeg");
    touch("g/d.jpg.txt");
    touch("g/jpg");
    touch("g/\xc3\xa9t\xc3\xa9.JPG");                  /* été.JPG */
    touch("g/f.ti\xef\xac\x80");                        /* f.tiﬀ: the ligature folds to "ff" */
    touch("g/sub/k.jpg");
    touch("g/sub/deep/m.png");
    s = collect_with("gallop: 1\n"
                     "input:\n"
                     "  include: ['*.JPG', '*.tiff', 'sub/*/*.png']\n"
                     "  exclude: ['*k.jpg']\n",
        paths, 1, NULL, FALSE);
    EXPECT_LISTED(s, "g/a.jpg\ng/b.JpG\ng/f.ti\xef\xac\x80\ng/sub/deep/m.png\n"
                     "g/\xc3\xa9t\xc3\xa9.JPG\n");
    scan_free(&s);
}

Test(inputs, the_output_folder_inside_is_skipped)
{
    const char *paths[] = { "d" };
    scan s;

    make_tree();
    s = collect_with("gallop: 1\n", paths, 1, "d/sub", FALSE);
    cr_expect_null(find(&s, "d/sub/z.jpg"));
    cr_expect_null(find(&s, "d/sub/deep/w.jpg"));
    cr_expect_not_null(find(&s, "d/a/y.jpg"));
    scan_free(&s);
}

Test(inputs, folders_deeper_than_the_scan_holds_open)
{
    GString *deep = g_string_new("t");
    const char *paths[] = { "t" };
    g_autofree char *photo = NULL;
    scan s;

    make_tree();
    /* Past the folders the scan keeps open, it reads them by path. */
    for (int i = 0; i < 80; i++)
        g_string_append(deep, "/f");
    photo = g_strconcat(deep->str, "/p.jpg", NULL);
    touch(photo);
    g_string_free(deep, TRUE);
    s = collect(paths, 1);
    cr_assert_eq(s.n, 1);
    cr_expect_str_eq(s.list[0].path, photo);
    cr_expect_str_eq(gal__input_rel(&s.list[0]), photo + 2);
    cr_expect_eq(s.list[0].size, 1);
    scan_free(&s);
}

/* A folder's entries are looked up on several threads, a chunk at a
 * time: the list is the one a single thread makes, whatever falls at a
 * chunk's edge (a folder, a link, a special file, a file the globs leave
 * out, a hidden one). */
Test(inputs, a_large_folder_lists_alike_looked_up_on_one_thread_or_several)
{
    const char *paths[] = { "big" };
    g_autofree char *one_text = NULL, *many_text = NULL;
    scan one, many;
    int photos = 0;

    make_tree();
    for (int k = 0; k < 5000; k++) {
        g_autofree char *name = g_strdup_printf("big/%05d%s", k,
            k % 997 == 0 ? "" : k % 13 == 0 ? ".txt" : ".jpg");

        if (k % 997 == 0) {
            /* A folder, around every chunk's edge too (2048, 4096). */
            g_autofree char *inner = g_strdup_printf("%s/in.jpg", name);

            touch(inner);
            photos++;
        }
        else if (k % 1001 == 0 || k == 2047 || k == 2048 || k == 4095)
            link_to(k % 2 ? "../other/o.jpg" : "00001.jpg", name);
        else
            touch(name);
        photos += k % 997 != 0 && k % 13 != 0;
    }
    cr_assert_eq(mkfifo("big/02049.jpg.fifo.jpg", 0600), 0);
    touch("big/.hidden.jpg");
    one = collect_on("gallop: 1\ninput: {exclude: ['*.txt']}\n", paths, 1, NULL, FALSE, 1);
    many = collect_on("gallop: 1\ninput: {exclude: ['*.txt']}\n", paths, 1, NULL, FALSE, 4);
    one_text = listed(&one);
    many_text = listed(&many);
    /* The photos (links among them), the folders' own and the special
     * file (listed, to be refused); not the hidden file nor the .txt. */
    cr_expect_geq(one.n, photos, "%d listed of %d photos", one.n, photos);
    cr_expect_leq(one.n, photos + 8, "%d listed of %d photos", one.n, photos);
    cr_expect_str_eq(many_text, one_text);
    for (int i = 0; i < MIN(one.n, many.n); i++) {
        cr_expect_eq(many.list[i].size, one.list[i].size, "%s", one.list[i].path);
        cr_expect_eq(many.list[i].mtime_ns, one.list[i].mtime_ns, "%s", one.list[i].path);
        cr_expect_eq(many.list[i].regular, one.list[i].regular, "%s", one.list[i].path);
        cr_expect_eq(many.list[i].ino, one.list[i].ino, "%s", one.list[i].path);
        cr_expect_eq(many.list[i].has_why, one.list[i].has_why, "%s", one.list[i].path);
    }
    cr_assert_not_null(find(&many, "big/02049.jpg.fifo.jpg"), "the FIFO is listed");
    cr_expect_not(find(&many, "big/02049.jpg.fifo.jpg")->regular);
    cr_expect_null(find(&many, "big/.hidden.jpg"));
    cr_expect_null(find(&many, "big/00013.txt"));
    scan_free(&one);
    scan_free(&many);
}

/* A shard keeps its own photos once planned: their paths move to a new
 * block, whole, each relative path still the end of its path; the others'
 * go with the old block. */
Test(inputs, the_photos_kept_take_their_paths_along)
{
    const char *paths[] = { "d" };
    g_autoptr(GArray) keep = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) before_rel = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) before_why = g_ptr_array_new_with_free_func(g_free);
    GStringChunk *old;
    int whys = 0;
    scan s;

    make_tree();
    s = collect(paths, 1);
    old = s.paths;
    cr_assert_geq(s.n, 7);
    /* Every other photo, and each one listed with why it was not taken
     * (its reason follows its path). */
    for (int i = 0; i < s.n; i++)
        if (i % 2 || gal__input_why(&s.list[i]))
            g_array_append_val(keep, i);
    for (guint k = 0; k < keep->len; k++) {
        const gal_input *in = &s.list[g_array_index(keep, int, k)];

        g_ptr_array_add(before, g_strdup(in->path));
        g_ptr_array_add(before_rel, g_strdup(gal__input_rel(in)));
        g_ptr_array_add(before_why, g_strdup(gal__input_why(in)));
        whys += gal__input_why(in) != NULL;
    }
    cr_assert_geq(whys, 2, "the tree has links not followed");
    s.list = gal__inputs_keep(s.list, s.n, (const int *) keep->data, (int) keep->len, &s.paths);
    s.n = (int) keep->len;
    cr_expect_neq(s.paths, old, "the kept paths are in a new block");
    for (int k = 0; k < s.n; k++) {
        const gal_input *in = &s.list[k];

        cr_expect_str_eq(in->path, before->pdata[k]);
        cr_expect_str_eq(gal__input_rel(in), before_rel->pdata[k]);
        if (before_why->pdata[k])
            cr_expect_str_eq(gal__input_why(in), before_why->pdata[k], "%s", in->path);
        else
            cr_expect_null(gal__input_why(in), "%s", in->path);
    }
    scan_free(&s);
}

/* A shard's scan lists what the whole scan lists, in the same order, and
 * looks up only what it takes: its own photos have their facts, another
 * shard's plain files none (ino 0), while links and folders are looked up
 * whoever's they are (what they lead to is not known from their name). A
 * scan that lists only (a merge's) looks up no plain file. */
Test(inputs, a_shards_scan_lists_alike_and_looks_up_only_its_own)
{
    const char *paths[] = { "big" };
    const char *yaml = "gallop: 1\ninput: {exclude: ['*.txt']}\n";
    scan whole;
    int shards = 3;

    make_tree();
    for (int k = 0; k < 3000; k++) {
        g_autofree char *name = g_strdup_printf("big/%s%05d%s", k % 7 == 0 ? "in/" : "", k,
            k % 11 == 0 ? ".txt" : ".jpg");

        if (k % 500 == 1)
            link_to("../other/o.jpg", name);
        else
            touch(name);
    }
    whole = collect_on(yaml, paths, 1, NULL, FALSE, 2);
    cr_assert_gt(whole.n, 2000);
    /* Shard 0 of none: a merge's list_only scan, whose every plain file is
     * another's. */
    for (int shard = 0; shard <= shards; shard++) {
        gal_scan_options how = { NULL, FALSE, 2, shard, shard ? shards : 0, shard == 0, NULL };
        scan part = collect_as(yaml, paths, 1, &how);
        g_autofree char *part_text = listed(&part), *whole_text = listed(&whole);
        int own = 0, unknown = 0;

        cr_expect_str_eq(part_text, whole_text, "shard %d", shard);
        for (int i = 0; i < MIN(part.n, whole.n); i++) {
            const gal_input *got = &part.list[i], *all = &whole.list[i];
            gboolean mine = shard && gal__shard_of(gal__input_rel(all), shards) == shard;
            gboolean link = g_file_test(all->path, G_FILE_TEST_IS_SYMLINK);

            cr_expect_eq(got->regular, all->regular, "%s", all->path);
            cr_expect_eq(got->has_why, all->has_why, "%s", all->path);
            cr_expect_str_eq(gal__input_rel(got), gal__input_rel(all));
            if (mine || link) {
                cr_expect_eq(got->ino, all->ino, "%s (shard %d)", all->path, shard);
                cr_expect_eq(got->size, all->size, "%s (shard %d)", all->path, shard);
                cr_expect_eq(got->mtime_ns, all->mtime_ns, "%s (shard %d)", all->path, shard);
                own += mine;
            }
            else {
                cr_expect_eq(got->ino, 0, "%s is shard %d's: not looked up by shard %d",
                    all->path, gal__shard_of(gal__input_rel(all), shards), shard);
                unknown++;
            }
        }
        /* Each shard takes about a third, folders' photos among them. */
        if (shard)
            cr_expect_gt(own, whole.n / 5, "shard %d takes %d of %d", shard, own, whole.n);
        else
            cr_expect_eq(own, 0);
        cr_expect_gt(unknown, whole.n / 2, "shard %d leaves %d of %d", shard, unknown, whole.n);
        scan_free(&part);
    }
    scan_free(&whole);
}

/* ---- nothing skipped in silence; a raw + JPEG pair is one photo ---------------------- */

Test(inputs, every_file_not_taken_is_listed_with_its_kind_but_sidecars_and_what_is_read)
{
    g_autofree char *dir = gal_test_tmpdir("inputs-skipped");
    const char *files[] = { "f/a.jpg", "f/a.txt", "f/b.png", "f/b.png.txt", "f/note.txt",
        "f/clip.MOV", "f/old.x3f", "f/a.xmp", "f/.DS_Store", "f/.cache/c.jpg", "f/run.log",
        "f/captions.tsv", "f/.gallop-manifest.db", "f/anim.gif", "f/album.yaml" };
    const char *const paths[] = { "f" };
    g_autofree char *reads_path = NULL;
    const char *reads[2] = { NULL, NULL };
    gal_scan_options how = { NULL, FALSE, 1, 0, 0, FALSE, reads };
    scan s;

    cr_assert_eq(chdir(dir), 0);
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
        touch(files[i]);
    reads_path = g_build_filename(dir, "f/captions.tsv", NULL);
    reads[0] = reads_path;
    s = collect_as("gallop: 1\ninput: {exclude: ['*.log']}\n", paths, 1, &how);
    {
        g_autofree char *photos = listed(&s);

        cr_expect_str_eq(photos, "f/a.jpg\nf/anim.gif\nf/b.png\n");
    }
    /* Sorted by path: the sidecars a.txt and b.png.txt, the captions table
     * and gallop's own files (its records, the album's album.yaml) are not
     * there, nor the excluded run.log. */
    cr_expect_str_eq(s.skipped->str,
        "f/.DS_Store hidden\n"
        "f/.cache hidden\n"
        "f/a.xmp unknown\n"
        "f/clip.MOV video\n"
        "f/note.txt unknown\n"
        "f/old.x3f raw-unsupported\n");
    scan_free(&s);
}

Test(inputs, a_raw_and_a_jpeg_of_one_shot_are_one_photo_as_input_pairs_says)
{
    g_autofree char *dir = gal_test_tmpdir("inputs-pairs");
    const char *files[] = { "p/IMG_0001.CR2", "p/IMG_0001.JPG", "p/IMG_0002.NEF",
        "p/IMG_0003.jpg", "p/img_0004.dng", "p/IMG_0004.HEIC", "q/IMG_0001.CR2" };
    const char *const paths[] = { "p", "q" };
    scan jpeg, raw;

    cr_assert_eq(chdir(dir), 0);
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
        touch(files[i]);
    jpeg = collect_with("gallop: 1\n", paths, 2, NULL, FALSE);
    raw = collect_with("gallop: 1\ninput: {pairs: raw}\n", paths, 2, NULL, FALSE);
    {
        g_autofree char *jpeg_photos = listed(&jpeg);
        g_autofree char *raw_photos = listed(&raw);

        /* Another folder's raw of the same name is another shot. */
        cr_expect_str_eq(jpeg_photos,
            "p/IMG_0001.JPG\np/IMG_0002.NEF\np/IMG_0003.jpg\np/IMG_0004.HEIC\nq/IMG_0001.CR2\n");
        cr_expect_str_eq(raw_photos,
            "p/IMG_0001.CR2\np/IMG_0002.NEF\np/IMG_0003.jpg\np/img_0004.dng\nq/IMG_0001.CR2\n");
    }
    cr_expect_str_eq(jpeg.skipped->str, "p/IMG_0001.CR2 pair\np/img_0004.dng pair\n");
    cr_expect_str_eq(raw.skipped->str, "p/IMG_0001.JPG pair\np/IMG_0004.HEIC pair\n");
    for (int i = 0; i < jpeg.n; i++)
        cr_expect(!jpeg.list[i].has_why, "%s", jpeg.list[i].path);
    scan_free(&jpeg);
    scan_free(&raw);
}

Test(inputs, each_skipped_file_is_listed_by_one_shard_as_photos_are)
{
    g_autofree char *dir = gal_test_tmpdir("inputs-skipped-shards");
    const char *const paths[] = { "s" };
    g_autoptr(GString) both = g_string_new(NULL);
    g_autofree char *whole = NULL;
    int total = 0;

    cr_assert_eq(chdir(dir), 0);
    for (int i = 0; i < 12; i++) {
        g_autofree char *clip = g_strdup_printf("s/clip-%02d.mp4", i);
        g_autofree char *photo = g_strdup_printf("s/photo-%02d.jpg", i);

        touch(clip);
        touch(photo);
    }
    {
        scan all = collect(paths, 1);

        whole = g_strdup(all.skipped->str);
        scan_free(&all);
    }
    for (int shard = 1; shard <= 3; shard++) {
        gal_scan_options how = { NULL, FALSE, 1, shard, 3, FALSE, NULL };
        scan s = collect_as("gallop: 1\n", paths, 1, &how);

        g_string_append(both, s.skipped->str);
        total += gal_test_count_lines(s.skipped->str, "s/clip-", NULL);
        scan_free(&s);
    }
    cr_expect_eq(total, 12, "each clip listed by exactly one shard:\n%s", both->str);
    cr_expect_eq(gal_test_count_lines(whole, "s/clip-", NULL), 12);
}
