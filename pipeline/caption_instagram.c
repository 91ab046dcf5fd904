/* caption_instagram.c: the source "instagram": the posts_N.json files of an
 * Instagram data export, named by captions.instagram (files, or folders
 * searched for them). prepare() reads them once into a hash table keyed by
 * folded media file name; a photo takes the caption of the first post that
 * shows its name, or its stem. json.c parses; what the values mean is
 * decided here. Each posts file is one every photo's caption depends on, by
 * the post it gives the photo. */
#include <string.h>

#include "internal.h"
#include "caption_source.h"
#include "error.h"
#include "fsio.h"
#include "json.h"
#include "limit.h"

/* Folders named by captions.instagram are searched this deep. */
#define MAX_SCAN_DEPTH 8
/* ... and through this many entries at most: an export of years of posts
 * has thousands, while a preset naming / or /usr would make every load walk
 * the whole disk (a preset is untrusted input). */
#define MAX_SCAN_ENTRIES 100000

typedef struct {
    GStringChunk *strings; /* every caption, key and path below */
    GHashTable *captions;  /* folded media file name or stem -> caption */
    GHashTable *file_of;   /* the same keys -> the gal_caption_file it is in */
    GPtrArray *files;      /* every posts_N.json read (gal_caption_file *), in order */
    int media;
} instagram_state;

static instagram_state *
instagram_state_new(void)
{
    instagram_state *st = g_new0(instagram_state, 1);

    st->strings = g_string_chunk_new(4096);
    st->captions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    st->file_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    st->files = g_ptr_array_new_with_free_func(g_free);
    return st;
}

/* Instagram's export writes each UTF-8 byte of a caption as its own \u00XX
 * escape, so "é" arrives as "Ã©" and an emoji as four Latin-1 letters.
 * A string made only of U+0000..U+00FF whose code points, taken as bytes,
 * are valid UTF-8 with at least one multi-byte sequence is such a string:
 * it is decoded again. Anything else (real Latin-1 text such as "café"
 * written correctly is not valid UTF-8 as bytes) is left as it is. */
char *
gal__mojibake_repair(const char *text)
{
    GString *bytes = g_string_new(NULL);
    gboolean high = FALSE;

    for (const char *c = text; *c; c = g_utf8_next_char(c)) {
        gunichar ch = g_utf8_get_char(c);

        if (ch > 0xff) {
            g_string_free(bytes, TRUE);
            return g_strdup(text);
        }
        high |= ch >= 0x80;
        g_string_append_c(bytes, (char) ch);
    }
    if (!high || !g_utf8_validate(bytes->str, (gssize) bytes->len, NULL)) {
        g_string_free(bytes, TRUE);
        return g_strdup(text);
    }
    return g_string_free(bytes, FALSE);
}

/* A string of the export, mojibake repaired; NULL when there is none. */
static char *
export_string(const gal_json_value *object, const char *key)
{
    const char *raw = gal__json_string(object, key);

    return raw ? gal__mojibake_repair(raw) : NULL;
}

/* "media/posts/201404/17841234_n.jpg" -> captions under that file name. */
static void
add_media(instagram_state *st, const gal_json_value *media, const char *post_title,
    const gal_caption_file *file)
{
    g_autofree char *uri = export_string(media, "uri");
    g_autofree char *title = export_string(media, "title");
    const char *shown = title;
    const char *caption;
    g_autofree char *base = NULL;
    char *key;

    if (!uri)
        uri = export_string(media, "path"); /* older exports: media.json */
    if (!title || !*title) {
        g_free(title);
        shown = title = export_string(media, "caption");
    }
    if (!uri)
        return;
    st->media++;
    /* A post with several photos keeps its caption on the post itself. */
    if (!shown || !*shown)
        shown = post_title;
    if (!shown || !(caption = gal__caption_keep(st->strings, shown)))
        return;
    base = g_path_get_basename(uri);
    key = gal__caption_fold(base);
    /* The first post that shows a file wins: one file, one caption. */
    if (g_hash_table_contains(st->captions, key))
        g_free(key);
    else {
        g_hash_table_insert(st->file_of, g_strdup(key), (gpointer) file);
        g_hash_table_insert(st->captions, key, (gpointer) caption);
    }
}

static void
add_posts(instagram_state *st, const gal_json_value *posts, const gal_caption_file *file)
{
    for (guint i = 0; i < posts->items->len; i++) {
        const gal_json_value *post = posts->items->pdata[i];
        const gal_json_value *media = gal__json_get(post, "media");
        g_autofree char *title = export_string(post, "title");

        if (media && media->kind == GAL_JV_ARRAY)
            for (guint m = 0; m < media->items->len; m++)
                add_media(st, media->items->pdata[m], title, file);
        else if (post->kind == GAL_JV_OBJECT)
            add_media(st, post, NULL, file); /* a bare media entry */
    }
}

/* `text` (UTF-8, `len` bytes) as the export file `read`: its posts into
 * st->captions, and the file into st->files when it has any. As for the
 * table, the file may be anything: a file that does not
 * begin as JSON's list or object is refused in one line, and the parser's
 * errors name what they met, never quote it. */
static int
instagram_from_text(instagram_state *st, const gal_caption_file *read, const char *text,
    gsize len, gal_errors *errs)
{
    /* The posts point to it: freed here unless the file has some. */
    g_autofree gal_caption_file *file = g_memdup2(read, sizeof(*read));
    g_autoptr(gal_json_value) root = NULL;
    g_autofree char *error = NULL;
    const char *error_at = NULL;
    const char *path = file->path;
    int before = st->media;
    const char *start = text + strspn(text, " \t\r\n");

    if (*start && *start != '[' && *start != '{') {
        gal_loc loc = gal__caption_loc_at(path, text, start);

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.instagram",
            "not an Instagram export: an export's posts_1.json is JSON, beginning with [ or {");
    }
    if (!(root = gal__json_parse(text, len, &error_at, &error))) {
        gal_loc loc = gal__caption_loc_at(path, text, error_at);

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.instagram", "JSON: %s",
            error);
    }
    /* posts_1.json is a list of posts; some exports wrap it in an object
     * ({"ig_posts": [...]}), and media.json keeps {"photos": [...]}. */
    if (root->kind == GAL_JV_ARRAY)
        add_posts(st, root, file);
    else if (root->kind == GAL_JV_OBJECT)
        for (guint i = 0; i < root->items->len; i++) {
            const gal_json_value *v = root->items->pdata[i];

            if (v->kind == GAL_JV_ARRAY)
                add_posts(st, v, file);
        }
    if (st->media == before) {
        gal_loc loc = { path, 1, 1 };

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.instagram",
            "no posts found: expected a list of posts with media[].uri, as posts_1.json of "
            "Instagram's \"Download your information\" has");
    }
    g_ptr_array_add(st->files, g_steal_pointer(&file));
    return 0;
}

static int
load_file(instagram_state *st, const char *path, const gal_loc *from, gal_errors *errs)
{
    gal_caption_file file = { g_string_chunk_insert_const(st->strings, path), 0, 0 };
    g_autofree char *text = NULL;
    gsize len;

    if (!(text = gal__caption_read_text(file.path, gal__limits.export_bytes,
              "captions.instagram", from, &file, &len, errs)))
        return -1;
    return instagram_from_text(st, &file, text, len, errs);
}

static int
compare_paths(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* posts_*.json below `dir` (unsorted: the caller sorts them, so the first
 * post of a file is the same on every run). Each entry looked at takes one
 * from *budget; one more than it allows sets it to -1 and stops the walk. */
static void
find_posts(const char *dir, int depth, GPtrArray *found, int *budget)
{
    GDir *d = depth < MAX_SCAN_DEPTH ? g_dir_open(dir, 0, NULL) : NULL;
    const char *entry;

    while (d && *budget >= 0 && (entry = g_dir_read_name(d))) {
        g_autofree char *path = g_build_filename(dir, entry, NULL);

        if (--*budget < 0)
            break;
        if (entry[0] == '.')
            continue;
        if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
            find_posts(path, depth + 1, found, budget);
        else if (gal__glob_match("posts_*.json", entry) &&
            g_file_test(path, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(found, g_steal_pointer(&path));
    }
    if (d)
        g_dir_close(d);
}

static int
instagram_prepare(const char *const *paths, const gal_loc *from, void **state, gal_errors *errs)
{
    instagram_state *st = instagram_state_new();
    int failed = 0;

    *state = st;
    for (int i = 0; paths[i]; i++) {
        g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

        if (g_file_test(paths[i], G_FILE_TEST_IS_DIR)) {
            int budget = MAX_SCAN_ENTRIES;

            find_posts(paths[i], 0, files, &budget);
            g_ptr_array_sort(files, compare_paths);
            if (budget < 0) {
                failed = gal__errors_push(errs, GAL_ERR_PRESET, from, "captions.instagram",
                    "more than %d files and folders in %s: name the export's own folder, or "
                    "its posts_*.json files", MAX_SCAN_ENTRIES, paths[i]);
                continue;
            }
            if (files->len == 0)
                failed = gal__errors_push(errs, GAL_ERR_PRESET, from, "captions.instagram",
                    "no posts_*.json in %s", paths[i]);
        }
        else if (g_file_test(paths[i], G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(files, g_strdup(paths[i]));
        else
            failed = gal__errors_push(errs, GAL_ERR_PRESET, from, "captions.instagram",
                "no such file or folder: %s", paths[i]);
        for (guint f = 0; f < files->len; f++)
            failed |= load_file(st, files->pdata[f], from, errs);
    }
    return failed;
}

/* An export file read from memory adds its posts to those before. */
static int
instagram_from_string(void **state, const char *name, const char *bytes, gsize len,
    gal_errors *errs)
{
    instagram_state *st = *state ? *state : (*state = instagram_state_new());
    gal_caption_file file = { g_string_chunk_insert_const(st->strings, name), 0, 0 };
    g_autofree char *text = NULL;

    if (!(text = gal__caption_copy_text(name, bytes, &len, "captions.instagram", errs)))
        return -1;
    return instagram_from_text(st, &file, text, len, errs);
}

static void
instagram_describe(const void *state, GString *out)
{
    const instagram_state *st = state;

    if (st->files->len)
        g_string_append_printf(out, " (instagram: %d media in %u files)", st->media,
            st->files->len);
}

static int
instagram_caption(const void *state, const gal_caption_ask *ask, const char **caption,
    const char **file, gal_error *err)
{
    const instagram_state *st = state;
    gconstpointer from = NULL;

    (void) err;
    *caption = gal__caption_lookup(st->captions, ask->photo->path, st->file_of, &from);
    *file = from ? ((const gal_caption_file *) from)->path : NULL;
    return 0;
}

static void
instagram_shared_files(const void *state, GPtrArray *files)
{
    const instagram_state *st = state;

    for (guint f = 0; f < st->files->len; f++)
        g_ptr_array_add(files, st->files->pdata[f]);
}

/* The post counts for the file it is in. */
static const char *
instagram_row(const void *state, const gal_caption_file *file, const char *photo)
{
    const instagram_state *st = state;
    gconstpointer from = NULL;
    const char *found = gal__caption_lookup(st->captions, photo, st->file_of, &from);

    /* By path: an export named twice reads a file twice. */
    return found && from && strcmp(((const gal_caption_file *) from)->path, file->path) == 0
        ? found : NULL;
}

static void
instagram_release(void *state)
{
    instagram_state *st = state;

    g_hash_table_unref(st->captions);
    g_hash_table_unref(st->file_of);
    g_ptr_array_unref(st->files);
    g_string_chunk_free(st->strings);
    g_free(st);
}

const gal_caption_source gal_caption_instagram = {
    .name = "instagram",
    .key = "instagram",
    .given = "an Instagram export",
    .prepare = instagram_prepare,
    .from_string = instagram_from_string,
    .describe = instagram_describe,
    .caption = instagram_caption,
    .shared_files = instagram_shared_files,
    .row = instagram_row,
    .release = instagram_release,
};
