/* captions.c: where a photo's caption comes from (the `captions` section).
 *
 * The sources are tried in the order `captions.sources` gives, and the
 * first one with a non-empty caption wins: a sidecar text file beside the
 * photo, a table (TSV or CSV) named by the preset, an Instagram data export
 * (posts_*.json), then the photo's own metadata: EXIF ImageDescription or
 * UserComment (read by exif.c), XMP dc:description and IPTC
 * Caption-Abstract (read by embedded.c from the blobs libvips keeps).
 *
 * The table and the export are read once, when the preset loads, into hash
 * tables keyed by file name; after that everything here is read-only and
 * shared by the workers. A malformed table or export is a preset error
 * naming its file, line and column. Per photo, only the sidecar is read
 * from disk. The tables are split by table.c and the export is read by
 * json.c; what their cells and values mean is decided here. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "captions.h"
#include "embedded.h"
#include "error.h"
#include "exif.h"
#include "fsio.h"
#include "json.h"
#include "limit.h"
#include "node.h"
#include "schema.h"
#include "table.h"
#include "template.h"

/* Folders named by captions.instagram are searched this deep. */
#define MAX_SCAN_DEPTH 8
/* ... and through this many entries at most: an export of years of posts
 * has thousands, while a preset naming / or /usr would make every load walk
 * the whole disk (a preset is untrusted input). */
#define MAX_SCAN_ENTRIES 100000

typedef enum {
    SRC_SIDECAR,
    SRC_TABLE,
    SRC_INSTAGRAM,
    SRC_METADATA, /* exif, xmp and iptc, in that order */
    SRC_EXIF,
    SRC_XMP,
    SRC_IPTC,
} source_kind;

static const char *const source_names[] = {
    "sidecar", "table", "instagram", "metadata", "exif", "xmp", "iptc", NULL,
};

typedef struct {
    char **sources;
    char *table;
    char **instagram;
} captions_opts;

static const gal_param captions_params[] = {
    GAL_PARAM_STRLIST(captions_opts, sources,
        "where captions come from, first match wins: sidecar (IMG_1.jpg.txt or IMG_1.txt "
        "beside the photo), table, instagram, metadata (exif, then xmp, then iptc; each "
        "can be named alone)",
        "sidecar,table,instagram,metadata"),
    GAL_PARAM_PATH(captions_opts, table,
        "a TSV or CSV file of file names and captions (header row with file and caption "
        "columns, or those two columns first)",
        0),
    GAL_PARAM_PATHLIST(captions_opts, instagram,
        "Instagram data export: posts_*.json files, or folders searched for them; photos "
        "match media[].uri by file name",
        NULL),
    GAL_PARAM_END,
};

const gal_section gal__captions_section = {
    "captions", "where {caption} comes from, for every template", captions_params,
    sizeof(captions_opts),
};

struct gal_captions {
    captions_opts *opts;
    source_kind order[16]; /* metadata expanded into exif, xmp, iptc */
    int n_order;
    GStringChunk *strings;  /* every caption and key below */
    GHashTable *table;      /* folded file name or stem -> caption */
    GHashTable *instagram;  /* folded media file name or stem -> caption */
    GHashTable *instagram_file; /* the same keys -> the posts_N.json it is in */
    GPtrArray *instagram_files; /* every posts_N.json read (interned) */
    gboolean listed[8];     /* by source_kind: named in captions.sources */
    int table_rows, instagram_media;
    /* The table's and export files' size and time as they were read
     * (taken before reading: a file changed during the read looks changed
     * next time): path -> gint64[2]. */
    GHashTable *read_stat;
};

/* ---- small helpers ------------------------------------------------------------- */

/* File names match whatever the Unicode normal form and letter case:
 * IMG_0001.JPG in a folder and IMG_0001.jpg in a table are the same photo. */
static char *
fold(const char *name, gssize len)
{
    g_autofree char *valid = g_utf8_make_valid(name, len);
    g_autofree char *nfc = g_utf8_normalize(valid, -1, G_NORMALIZE_NFC);

    return g_utf8_casefold(nfc ? nfc : valid, -1);
}

static char *
stem_of(const char *name)
{
    const char *dot = strrchr(name, '.');

    return dot && dot != name ? g_strndup(name, dot - name) : g_strdup(name);
}

/* The caption for a photo's file name from a table keyed by folded names:
 * the whole name first, then the name without its extension. `also`
 * (may be NULL) is a second table with the same keys: its value for the
 * key that matched goes to *also_out. */
static const char *
lookup(GHashTable *table, const char *path, GHashTable *also, const char **also_out)
{
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *key = fold(base, -1);
    g_autofree char *stem = NULL;
    const char *found;

    if (!table)
        return NULL;
    if (!(found = g_hash_table_lookup(table, key))) {
        stem = stem_of(key);
        found = g_hash_table_lookup(table, stem);
    }
    if (found && also)
        *also_out = g_hash_table_lookup(also, stem ? stem : key);
    return found;
}

/* The text with line ends as \n and surrounding white space removed; NULL
 * when nothing is left. */
static const char *
keep(GStringChunk *strings, const char *text, gssize len)
{
    g_autofree char *copy = len < 0 ? g_strdup(text) : g_strndup(text, len);
    char *to = copy;

    for (const char *from = copy; *from; from++)
        if (*from != '\r')
            *to++ = *from;
        else if (from[1] != '\n')
            *to++ = '\n';
    *to = '\0';
    g_strstrip(copy);
    return *copy ? g_string_chunk_insert(strings, copy) : NULL;
}

/* Locating places in a text, mostly in increasing order (a table's rows):
 * each call counts only the text since the one before, so that locating
 * every row is linear in the table, not quadratic. */
typedef struct {
    const char *file, *text;
    const char *done; /* lines counted up to here */
    const char *line; /* where the line of `done` starts */
    int n;            /* its number, 1-based */
} text_cursor;

static text_cursor
cursor_at_start(const char *file, const char *text)
{
    return (text_cursor) { file, text, text, text, 1 };
}

/* Line and column (1-based, in characters) of `at` within the text. */
static gal_loc
cursor_loc(text_cursor *cur, const char *at)
{
    if (at < cur->done)
        *cur = cursor_at_start(cur->file, cur->text);
    for (; cur->done < at; cur->done++)
        if (*cur->done == '\n') {
            cur->n++;
            cur->line = cur->done + 1;
        }
    return (gal_loc) { cur->file, cur->n, (int) g_utf8_strlen(cur->line, at - cur->line) + 1 };
}

static gal_loc
loc_at(const char *file, const char *text, const char *at)
{
    text_cursor cur = cursor_at_start(file, text);

    return cursor_loc(&cur, at);
}

/* Check that `len` bytes read from `path` (NUL-terminated after them) are
 * UTF-8 text, naming the first byte that is not; drop a leading BOM, in
 * place, from the text and from *len. */
static gboolean
utf8_text(const char *path, char *text, gsize *len, const char *what, gal_errors *errs)
{
    const char *bad;

    if (strlen(text) != *len) {
        gal_loc loc = loc_at(path, text, text + strlen(text));

        gal__errors_push(errs, GAL_ERR_PRESET, &loc, what, "a NUL byte: not a text file");
        return FALSE;
    }
    if (!g_utf8_validate(text, (gssize) *len, &bad)) {
        gal_loc loc = loc_at(path, text, bad);

        /* Its place, not its value: the file may be one the user did not
         * write, and no byte of it is quoted. */
        gal__errors_push(errs, GAL_ERR_PRESET, &loc, what,
            "a byte that is not UTF-8 (save the file as UTF-8)");
        return FALSE;
    }
    if (g_str_has_prefix(text, "\xef\xbb\xbf")) {
        memmove(text, text + 3, *len - 2);
        *len -= 3;
    }
    return TRUE;
}

/* Read a whole UTF-8 text file (a leading BOM dropped) or fail naming the
 * first byte that is not UTF-8. */
static char *
read_utf8(const char *path, gsize max, const char *what, gsize *len_out, gal_errors *errs,
    const gal_loc *from)
{
    /* The path is already real (gal__schema_check_files), or was found in
     * a folder the preset named: within it. */
    g_autofree char *folder = g_path_get_dirname(path);
    gal_read_rules rules = { NULL, folder, FALSE, (gint64) max, GAL_ERR_PRESET };
    g_autofree char *text = NULL;
    gal_error err = { 0 };
    gsize len;

    if (gal__file_read(path, &rules, &text, &len, NULL, &err)) {
        gal__errors_push(errs, GAL_ERR_PRESET, from, what, "%s", err.msg);
        return NULL;
    }
    if (!utf8_text(path, text, &len, what, errs))
        return NULL;
    *len_out = len;
    return g_steal_pointer(&text);
}

/* The same for bytes in memory, as if read from a file named `name`. */
static char *
copy_utf8(const char *name, const char *bytes, gsize len, const char *what, gsize *len_out,
    gal_errors *errs)
{
    g_autofree char *text = g_malloc(len + 1);

    if (len)
        memcpy(text, bytes, len);
    text[len] = '\0';
    if (!utf8_text(name, text, &len, what, errs))
        return NULL;
    *len_out = len;
    return g_steal_pointer(&text);
}

/* ---- the captions table -------------------------------------------------------- */

/* `text` (UTF-8) as the table `path`: rows into c->table.
 *
 * The path is the preset's, the file may be anything (a preset from
 * elsewhere may name /etc/passwd): no error quotes a cell. A file whose
 * first row is neither a header with file and caption columns nor a file
 * name and a caption is not a captions table, and is refused in one line;
 * once it is one, each row's error names its place and what it lacks. */
static int
table_from_text(gal_captions *c, const char *path, const char *text, gal_errors *errs)
{
    static const char *const file_names[] = { "file", "filename", "file name", NULL };
    static const char *const caption_names[] = { "caption", NULL };
    g_autoptr(GArray) rows = NULL;
    g_autoptr(GHashTable) first_line = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int file_col = 0, caption_col = 1, first = 0, failed = 0;
    gboolean csv = gal__table_is_csv(path, text);
    const char *bad = NULL, *why = NULL;
    text_cursor rows_at = cursor_at_start(path, text);

    if (!(rows = gal__table_split(text, csv, &bad, &why))) {
        gal_loc loc = loc_at(path, text, bad);

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table", "%s", why);
    }
    if (rows->len > 0) {
        const gal_table_row *head = &g_array_index(rows, gal_table_row, 0);
        int f = gal__table_column(head, file_names), k = gal__table_column(head, caption_names);

        if (f >= 0 && k >= 0) {
            file_col = f;
            caption_col = k;
            first = 1;
        }
        else if (f >= 0 || k >= 0) {
            gal_loc loc = loc_at(path, text, head->start);

            return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                "the header row names a %s column but no %s column", f >= 0 ? "file" : "caption",
                f >= 0 ? "caption" : "file");
        }
        else {
            const gal_table_row *r = head;

            for (guint i = 1; i < rows->len && gal__table_row_blank(r); i++)
                r = &g_array_index(rows, gal_table_row, i);
            if (!gal__table_row_blank(r) && r->cells->len < 2) {
                gal_loc loc = loc_at(path, text, r->start);

                return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                    "not a captions table: its first row is neither a header naming file and "
                    "caption columns nor a file name and a caption separated by a %s",
                    csv ? "comma" : "tab");
            }
        }
    }
    c->table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = first; i < rows->len; i++) {
        const gal_table_row *r = &g_array_index(rows, gal_table_row, i);
        gal_loc loc = cursor_loc(&rows_at, r->start);
        g_autofree char *name = NULL;
        g_autofree char *key = NULL;
        const char *caption;
        gpointer seen;

        if (gal__table_row_blank(r))
            continue;
        if ((int) r->cells->len <= MAX(file_col, caption_col)) {
            failed = gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                "expected a file name and a caption %s, got %u cell%s",
                csv ? "separated by a comma" : "separated by a tab", r->cells->len,
                r->cells->len == 1 ? "" : "s");
            continue;
        }
        name = g_strstrip(g_strdup(r->cells->pdata[file_col]));
        if (!*name) {
            failed = gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                "the file name is empty");
            continue;
        }
        /* Photos are matched by file name, wherever they are. */
        if (strchr(name, '/')) {
            char *base = g_path_get_basename(name);

            g_free(name);
            name = base;
        }
        key = fold(name, -1);
        if ((seen = g_hash_table_lookup(first_line, key))) {
            failed = gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                "this file name is listed twice (first at line %d)", GPOINTER_TO_INT(seen));
            continue;
        }
        g_hash_table_insert(first_line, g_strdup(key), GINT_TO_POINTER(loc.line));
        c->table_rows++;
        if ((caption = keep(c->strings, r->cells->pdata[caption_col], -1)))
            g_hash_table_insert(c->table, g_steal_pointer(&key), (gpointer) caption);
    }
    return failed;
}

/* Remember the size and time of a shared caption file about to be read. */
static void
note_read(gal_captions *c, const char *path)
{
    gint64 *st = g_new0(gint64, 2);
    struct stat sb;

    if (stat(path, &sb) == 0) {
        st[0] = sb.st_size;
        st[1] = gal__mtime_ns(&sb);
    }
    if (!c->read_stat)
        c->read_stat = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(c->read_stat, g_strdup(path), st);
}

static int
load_table(gal_captions *c, const char *path, const gal_loc *from, gal_errors *errs)
{
    g_autofree char *text = NULL;
    gsize len;

    note_read(c, path);
    if (!(text = read_utf8(path, gal__limits.table_bytes, "captions.table", &len, errs, from)))
        return -1;
    return table_from_text(c, path, text, errs);
}

int
gal__captions_table_from_string(gal_captions *c, const char *name, const char *bytes, gsize len,
    gal_errors *errs)
{
    g_autofree char *text = NULL;

    if (c->table)
        g_hash_table_unref(g_steal_pointer(&c->table));
    c->table_rows = 0;
    if (!(text = copy_utf8(name, bytes, len, "captions.table", &len, errs)))
        return -1;
    return table_from_text(c, name, text, errs);
}

/* ---- the Instagram export ------------------------------------------------------ */

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
add_media(gal_captions *c, const gal_json_value *media, const char *post_title, const char *file)
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
    c->instagram_media++;
    /* A post with several photos keeps its caption on the post itself. */
    if (!shown || !*shown)
        shown = post_title;
    if (!shown || !(caption = keep(c->strings, shown, -1)))
        return;
    base = g_path_get_basename(uri);
    key = fold(base, -1);
    /* The first post that shows a file wins: one file, one caption. */
    if (g_hash_table_contains(c->instagram, key))
        g_free(key);
    else {
        g_hash_table_insert(c->instagram_file, g_strdup(key), (gpointer) file);
        g_hash_table_insert(c->instagram, key, (gpointer) caption);
    }
}

static void
add_posts(gal_captions *c, const gal_json_value *posts, const char *file)
{
    for (guint i = 0; i < posts->items->len; i++) {
        const gal_json_value *post = posts->items->pdata[i];
        const gal_json_value *media = gal__json_get(post, "media");
        g_autofree char *title = export_string(post, "title");

        if (media && media->kind == GAL_JV_ARRAY)
            for (guint m = 0; m < media->items->len; m++)
                add_media(c, media->items->pdata[m], title, file);
        else if (post->kind == GAL_JV_OBJECT)
            add_media(c, post, NULL, file); /* a bare media entry */
    }
}

/* `text` (UTF-8, `len` bytes) as the export file `path`: its posts into
 * c->instagram. As for the table, the file may be anything: a file that
 * does not begin as JSON's list or object is refused in one line, and the
 * parser's errors name what they met, never quote it. */
static int
instagram_from_text(gal_captions *c, const char *path, const char *text, gsize len,
    gal_errors *errs)
{
    g_autoptr(gal_json_value) root = NULL;
    g_autofree char *error = NULL;
    const char *error_at = NULL;
    int before = c->instagram_media;
    const char *interned = g_string_chunk_insert_const(c->strings, path);
    const char *start = text + strspn(text, " \t\r\n");

    if (*start && *start != '[' && *start != '{') {
        gal_loc loc = loc_at(path, text, start);

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.instagram",
            "not an Instagram export: an export's posts_1.json is JSON, beginning with [ or {");
    }
    if (!(root = gal__json_parse(text, len, &error_at, &error))) {
        gal_loc loc = loc_at(path, text, error_at);

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.instagram", "JSON: %s",
            error);
    }
    /* posts_1.json is a list of posts; some exports wrap it in an object
     * ({"ig_posts": [...]}), and media.json keeps {"photos": [...]}. */
    if (root->kind == GAL_JV_ARRAY)
        add_posts(c, root, interned);
    else if (root->kind == GAL_JV_OBJECT)
        for (guint i = 0; i < root->items->len; i++) {
            const gal_json_value *v = root->items->pdata[i];

            if (v->kind == GAL_JV_ARRAY)
                add_posts(c, v, interned);
        }
    if (c->instagram_media == before) {
        gal_loc loc = { path, 1, 1 };

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.instagram",
            "no posts found: expected a list of posts with media[].uri, as posts_1.json of "
            "Instagram's \"Download your information\" has");
    }
    g_ptr_array_add(c->instagram_files, (gpointer) interned);
    return 0;
}

static void
instagram_tables(gal_captions *c)
{
    if (!c->instagram)
        c->instagram = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (!c->instagram_file)
        c->instagram_file = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

static int
load_instagram_file(gal_captions *c, const char *path, const gal_loc *from, gal_errors *errs)
{
    g_autofree char *text = NULL;
    gsize len;

    note_read(c, path);
    if (!(text = read_utf8(path, gal__limits.export_bytes, "captions.instagram", &len, errs,
              from)))
        return -1;
    return instagram_from_text(c, path, text, len, errs);
}

int
gal__captions_instagram_from_string(gal_captions *c, const char *name, const char *bytes,
    gsize len, gal_errors *errs)
{
    g_autofree char *text = NULL;

    instagram_tables(c);
    if (!(text = copy_utf8(name, bytes, len, "captions.instagram", &len, errs)))
        return -1;
    return instagram_from_text(c, name, text, len, errs);
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
load_instagram(gal_captions *c, char **paths, const gal_loc *from, gal_errors *errs)
{
    int failed = 0;

    instagram_tables(c);
    for (int i = 0; paths && paths[i]; i++) {
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
            failed |= load_instagram_file(c, files->pdata[f], from, errs);
    }
    return failed;
}

/* ---- loading the section ------------------------------------------------------- */

static const gal_loc *
param_loc(const gal_loc *locs, const char *field)
{
    for (int i = 0; captions_params[i].field; i++)
        if (strcmp(captions_params[i].field, field) == 0)
            return &locs[i];
    g_assert_not_reached();
}

static int
check_sources(gal_captions *c, const gal_loc *loc, gal_errors *errs)
{
    gboolean seen[G_N_ELEMENTS(source_names)] = { FALSE };
    int failed = 0;

    for (int i = 0; c->opts->sources && c->opts->sources[i]; i++) {
        const char *name = c->opts->sources[i];
        int kind = -1;

        for (int k = 0; source_names[k]; k++)
            if (g_ascii_strcasecmp(name, source_names[k]) == 0)
                kind = k;
        if (kind < 0) {
            const char *guess = gal__did_you_mean(name, source_names);
            g_autofree char *list = g_strjoinv(", ", (char **) source_names);

            failed = gal__errors_push(errs, GAL_ERR_PRESET, loc, "captions.sources",
                "unknown source \"%s\"%s%s%s; sources are %s", name,
                guess ? " (did you mean \"" : "", guess ? guess : "", guess ? "\"?)" : "", list);
            continue;
        }
        if (seen[kind]) {
            failed = gal__errors_push(errs, GAL_ERR_PRESET, loc, "captions.sources",
                "\"%s\" is listed twice", name);
            continue;
        }
        seen[kind] = TRUE;
        c->listed[kind] = TRUE;
        if (kind == SRC_METADATA) {
            c->order[c->n_order++] = SRC_EXIF;
            c->order[c->n_order++] = SRC_XMP;
            c->order[c->n_order++] = SRC_IPTC;
        }
        else
            c->order[c->n_order++] = kind;
    }
    if (seen[SRC_METADATA] && (seen[SRC_EXIF] || seen[SRC_XMP] || seen[SRC_IPTC]))
        failed = gal__errors_push(errs, GAL_ERR_PRESET, loc, "captions.sources",
            "metadata already stands for exif, xmp and iptc: name it, or them, not both");
    return failed;
}

int
gal__captions_load(const gal_node *map, gboolean follow_links, gal_captions **out,
    gal_errors *errs)
{
    gal_captions *c = g_new0(gal_captions, 1);
    g_autofree gal_loc *locs = g_new0(gal_loc, G_N_ELEMENTS(captions_params));
    int failed;

    *out = c;
    c->strings = g_string_chunk_new(4096);
    c->instagram_files = g_ptr_array_new();
    if (gal__schema_fill(&gal__captions_section, map, (void **) &c->opts, locs, errs) ||
        gal__schema_check_files(&gal__captions_section, c->opts, locs, follow_links, errs))
        return -1;
    failed = check_sources(c, param_loc(locs, "sources"), errs);
    if (c->opts->table && !c->listed[SRC_TABLE])
        failed = gal__errors_push(errs, GAL_ERR_PRESET, param_loc(locs, "table"),
            "captions.table", "a table is given but \"table\" is not in captions.sources");
    if (c->opts->instagram && c->opts->instagram[0] && !c->listed[SRC_INSTAGRAM])
        failed = gal__errors_push(errs, GAL_ERR_PRESET, param_loc(locs, "instagram"),
            "captions.instagram",
            "an Instagram export is given but \"instagram\" is not in captions.sources");
    if (c->opts->table)
        failed |= load_table(c, c->opts->table, param_loc(locs, "table"), errs);
    if (c->opts->instagram && c->opts->instagram[0])
        failed |= load_instagram(c, c->opts->instagram, param_loc(locs, "instagram"), errs);
    return failed ? -1 : 0;
}

void
gal__captions_free(gal_captions *c)
{
    if (!c)
        return;
    gal__schema_free(&gal__captions_section, c->opts);
    if (c->table)
        g_hash_table_unref(c->table);
    if (c->instagram)
        g_hash_table_unref(c->instagram);
    if (c->instagram_file)
        g_hash_table_unref(c->instagram_file);
    if (c->read_stat)
        g_hash_table_unref(c->read_stat);
    g_ptr_array_unref(c->instagram_files);
    g_string_chunk_free(c->strings);
    g_free(c);
}

void
gal__captions_describe(const gal_captions *c, GString *out)
{
    gal__schema_describe_values(&gal__captions_section, c->opts, out);
    if (c->table)
        g_string_append_printf(out, " (table: %d rows)", c->table_rows);
    if (c->instagram && c->instagram_files->len)
        g_string_append_printf(out, " (instagram: %d media in %u files)", c->instagram_media,
            c->instagram_files->len);
}

const void *
gal__captions_options(const gal_captions *c)
{
    return c->opts;
}

/* ---- per photo ----------------------------------------------------------------- */

/* IMG_0001.jpg.txt, else IMG_0001.txt. A name that is there but is no
 * file (a FIFO, a folder, a link out of the input folder, something too
 * large to be a caption) fails the photo with words that say so: reading
 * it could block the run, or put another file's text on the photo. */
static int
read_sidecar(const gal_photo_ref *photo, GStringChunk *strings, const char **caption,
    const char **source, gal_error *err)
{
    g_autofree char *dir = g_path_get_dirname(photo->path);
    g_autofree char *base = g_path_get_basename(photo->path);
    g_autofree char *stem = stem_of(base);
    g_autofree char *stem_txt = g_strconcat(stem, ".txt", NULL);
    g_autofree char *with_ext = g_strconcat(photo->path, ".txt", NULL);
    g_autofree char *without = g_build_filename(dir, stem_txt, NULL);
    const char *candidates[] = { with_ext, without };
    gal_read_rules rules = { "caption sidecar", photo->root ? photo->root : dir,
        photo->follow_links, gal__limits.sidecar_bytes, GAL_ERR_INPUT };

    *caption = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
        const char *path = candidates[i];
        g_autofree char *text = NULL;
        const char *bad;
        struct stat st;
        gsize n;

        if (lstat(path, &st) != 0 && errno == ENOENT)
            continue;
        if (gal__file_read(path, &rules, &text, &n, NULL, err)) {
            g_strlcpy(err->key, "captions", sizeof(err->key));
            return -1;
        }
        /* A NUL byte is not valid here either. */
        if (!g_utf8_validate(text, n, &bad)) {
            gal_loc loc = loc_at(path, text, bad);

            return gal_error_set(err, GAL_ERR_INPUT, NULL, "captions",
                "caption sidecar %s:%d:%d is not UTF-8 text (byte 0x%02x); save it as UTF-8",
                path, loc.line, loc.col, (guchar) *bad);
        }
        *caption = keep(strings, g_str_has_prefix(text, "\xef\xbb\xbf") ? text + 3 : text, -1);
        if (*caption) {
            g_autofree char *label = g_strconcat("sidecar:", path, NULL);

            *source = g_string_chunk_insert(strings, label);
            return 0;
        }
    }
    return 0;
}

static const char *
from_blob(VipsImage *header, const char *field, source_kind kind, GStringChunk *strings)
{
    const void *data;
    size_t len;
    g_autofree char *text = NULL;

    if (!header || !vips_image_get_typeof(header, field) ||
        vips_image_get_blob(header, field, &data, &len))
        return NULL;
    text = kind == SRC_XMP ? gal__xmp_description(data, len) : gal__iptc_caption(data, len);
    if (!text)
        return NULL;
    return keep(strings, text, -1);
}

int
gal__caption_resolve(const gal_captions *c, const gal_photo_ref *photo, VipsImage *header,
    gal_facts *facts, GStringChunk *strings, gal_error *err)
{
    const char *path = photo->path;

    const char *exif = facts->caption;

    facts->caption = NULL;
    facts->caption_source = NULL;
    if (exif && gal__caption_placeholder(exif))
        exif = NULL;
    for (int i = 0; c && i < c->n_order; i++) {
        const char *caption = NULL;
        const char *source = source_names[c->order[i]];
        const char *file = NULL;

        switch (c->order[i]) {
        case SRC_SIDECAR:
            if (read_sidecar(photo, strings, &caption, &source, err))
                return -1;
            break;
        case SRC_TABLE:
            caption = lookup(c->table, path, NULL, NULL);
            file = c->opts->table;
            break;
        case SRC_INSTAGRAM:
            caption = lookup(c->instagram, path, c->instagram_file, &file);
            break;
        case SRC_EXIF: caption = exif; break;
        case SRC_XMP:
        case SRC_IPTC:
            caption = from_blob(header, c->order[i] == SRC_XMP ? VIPS_META_XMP_NAME
                    : VIPS_META_IPTC_NAME, c->order[i], strings);
            if (caption && gal__caption_placeholder(caption))
                caption = NULL;
            break;
        case SRC_METADATA: break; /* expanded at load */
        }
        if (caption) {
            facts->caption = caption;
            if (file) {
                g_autofree char *label = g_strconcat(source, ":", file, NULL);

                source = g_string_chunk_insert(strings, label);
            }
            facts->caption_source = source;
            return 0;
        }
    }
    return 0;
}

/* Add `path` to `paths` unless it is there. */
static void
add_once(GPtrArray *paths, const char *path)
{
    for (guint i = 0; i < paths->len; i++)
        if (strcmp(paths->pdata[i], path) == 0)
            return;
    g_ptr_array_add(paths, g_strdup(path));
}

/* What a shared file gives one photo, as a short digest: of its caption
 * there, or of none. 64 bits tell an edit from no edit; the manifest
 * repeats it on every output's line, so it is kept short. */
static void
row_digest(const char *caption, char *out)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);

    if (caption) {
        g_checksum_update(sum, (const guchar *) "row\n", 4);
        g_checksum_update(sum, (const guchar *) caption, -1);
    }
    else
        g_checksum_update(sum, (const guchar *) "no row\n", 7);
    g_snprintf(out, GAL_CAPTION_ROW_LEN, "row:%.16s", g_checksum_get_string(sum));
}

gboolean
gal__caption_row(const gal_captions *c, const char *file, const char *photo,
    gal_caption_row *row)
{
    gpointer key = NULL, value = NULL;
    const gint64 *st;
    const char *caption = NULL;

    if (!c || !c->read_stat || !g_hash_table_lookup_extended(c->read_stat, file, &key, &value))
        return FALSE;
    st = value;
    if (c->opts->table && strcmp(file, c->opts->table) == 0)
        caption = lookup(c->table, photo, NULL, NULL);
    else {
        const char *from = NULL;
        const char *found = lookup(c->instagram, photo, c->instagram_file, &from);

        /* The post counts for the file it is in. */
        caption = found && from && strcmp(from, file) == 0 ? found : NULL;
    }
    row->path = key;
    row->size = st[0];
    row->mtime_ns = st[1];
    row_digest(caption, row->digest);
    return TRUE;
}

void
gal__caption_rows(const gal_captions *c, const char *photo, GArray *rows)
{
    for (int i = 0; c && i < c->n_order; i++) {
        gal_caption_row row;

        if (c->order[i] == SRC_TABLE && c->opts->table &&
            gal__caption_row(c, c->opts->table, photo, &row))
            g_array_append_val(rows, row);
        for (guint f = 0; c->order[i] == SRC_INSTAGRAM && f < c->instagram_files->len; f++)
            if (gal__caption_row(c, c->instagram_files->pdata[f], photo, &row))
                g_array_append_val(rows, row);
    }
}

void
gal__caption_sidecars(const gal_captions *c, const char *photo, GPtrArray *paths)
{
    for (int i = 0; c && i < c->n_order; i++)
        if (c->order[i] == SRC_SIDECAR) {
            /* Both names, whether or not they exist: a sidecar that
             * appears later changes the caption too. */
            g_autofree char *dir = g_path_get_dirname(photo);
            g_autofree char *base = g_path_get_basename(photo);
            g_autofree char *stem = stem_of(base);
            g_autofree char *with_ext = g_strconcat(photo, ".txt", NULL);
            g_autofree char *stem_txt = g_strconcat(stem, ".txt", NULL);
            g_autofree char *without = g_build_filename(dir, stem_txt, NULL);

            add_once(paths, with_ext);
            add_once(paths, without);
        }
}

void
gal__caption_files(const gal_captions *c, const char *photo, GPtrArray *paths)
{
    for (int i = 0; c && i < c->n_order; i++)
        switch (c->order[i]) {
        case SRC_SIDECAR: {
            /* Both names, whether or not they exist: a sidecar that
             * appears later changes the caption too. */
            g_autofree char *dir = g_path_get_dirname(photo);
            g_autofree char *base = g_path_get_basename(photo);
            g_autofree char *stem = stem_of(base);
            g_autofree char *with_ext = g_strconcat(photo, ".txt", NULL);
            g_autofree char *stem_txt = g_strconcat(stem, ".txt", NULL);
            g_autofree char *without = g_build_filename(dir, stem_txt, NULL);

            add_once(paths, with_ext);
            add_once(paths, without);
            break;
        }
        case SRC_TABLE:
            if (c->opts->table)
                add_once(paths, c->opts->table);
            break;
        case SRC_INSTAGRAM:
            for (guint f = 0; f < c->instagram_files->len; f++)
                add_once(paths, c->instagram_files->pdata[f]);
            break;
        default:
            break; /* inside the photo: covered by the photo's own digest */
        }
}
