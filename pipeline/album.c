/* album.c: album.yaml, beside an album's photos. Read within the album's
 * folder like any input besides pixels (fsio.c), parsed into located nodes
 * (yamldoc.c) and filled by the schema's own parsers, so its errors read
 * as a preset's do: file, line, column and key, unknown keys by name. The
 * description is Markdown, rendered once here by libcmark, which by
 * default drops raw HTML and unsafe links. */
#include <string.h>

#include <cmark.h>

#include "album.h"
#include "fsio.h"
#include "limit.h"
#include "yamldoc.h"

typedef struct {
    char *title;
    char *description;
    char *cover;
    gal_sort sort;
    char *date;
} album_opts;

static const char *const gal_sort_names[] = { "name", "date", "input", "newest", NULL };

static const gal_param album_params[] = {
    GAL_PARAM_STRING(album_opts, title, "the album's name (its folder's name when not given)",
        NULL),
    GAL_PARAM_STRING(album_opts, description,
        "text under the title, Markdown (CommonMark); raw HTML is dropped", NULL),
    GAL_PARAM_STRING(album_opts, cover,
        "the file name of the photo on the album's card (its first photo when not given)", NULL),
    GAL_PARAM_ENUM(album_opts, sort, gal_sort,
        "the order of the album's photos (the gallery's sort when not given)", "date"),
    GAL_PARAM_STRING(album_opts, date,
        "the album's date, YYYY-MM-DD, shown on its card and used to order albums (its photos' "
        "dates when not given)",
        NULL),
    GAL_PARAM_END,
};

const gal_section gal__album_section = {
    "album", "an album's album.yaml", album_params, sizeof(album_opts),
};

char *
gal__markdown_html(const char *markdown)
{
    /* CMARK_OPT_DEFAULT is safe since cmark 0.29: raw HTML becomes a
     * comment, javascript: and like links empty. Named, so a reader need
     * not know that. */
    char *html = cmark_markdown_to_html(markdown, strlen(markdown),
        CMARK_OPT_DEFAULT | CMARK_OPT_SAFE | CMARK_OPT_VALIDATE_UTF8);
    char *copy = g_strdup(html);

    cmark_get_default_mem_allocator()->free(html);
    return copy;
}

static gboolean
block_tag(const char *tag)
{
    static const char *const blocks[] = { "p", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4",
        "h5", "h6", "blockquote", "pre", "hr", "div", "table", "tr", "td", "th" };
    size_t n;

    if (*tag == '/')
        tag++;
    n = strspn(tag, "abcdefghijklmnopqrstuvwxyz0123456789");
    for (size_t b = 0; b < G_N_ELEMENTS(blocks); b++)
        if (strlen(blocks[b]) == n && strncmp(tag, blocks[b], n) == 0)
            return TRUE;
    return FALSE;
}

char *
gal__html_text(const char *html)
{
    static const char *const entities[][2] = { { "&amp;", "&" }, { "&lt;", "<" },
        { "&gt;", ">" }, { "&quot;", "\"" }, { "&#39;", "'" } };
    GString *out = g_string_new(NULL);
    gboolean in_tag = FALSE, space = FALSE;

    for (const char *p = html; *p; p++) {
        if (in_tag) {
            in_tag = *p != '>';
            continue;
        }
        if (*p == '<') {
            /* A block's tag separates words; an inline one (<em>, <a>,
             * the comment raw HTML left) does not. */
            in_tag = TRUE;
            space |= out->len > 0 && block_tag(p + 1);
            continue;
        }
        if (g_ascii_isspace(*p)) {
            space = out->len > 0;
            continue;
        }
        if (space)
            g_string_append_c(out, ' ');
        space = FALSE;
        if (*p == '&') {
            size_t e = 0;

            while (e < G_N_ELEMENTS(entities) && !g_str_has_prefix(p, entities[e][0]))
                e++;
            if (e < G_N_ELEMENTS(entities)) {
                g_string_append(out, entities[e][1]);
                p += strlen(entities[e][0]) - 1;
                continue;
            }
        }
        g_string_append_c(out, *p);
    }
    return g_string_free(out, FALSE);
}

void
gal__album_file_free(gal_album_file *album)
{
    if (!album)
        return;
    g_free(album->path);
    g_free(album->title);
    g_free(album->description);
    g_free(album->description_html);
    g_free(album->description_text);
    g_free(album->cover);
    g_free(album->date);
    g_free(album);
}

static gboolean
valid_date(const char *text)
{
    int y, m, d;
    char end;

    if (strlen(text) != 10 || sscanf(text, "%4d-%2d-%2d%c", &y, &m, &d, &end) != 3 ||
        text[4] != '-' || text[7] != '-')
        return FALSE;
    return g_date_valid_dmy((GDateDay) d, (GDateMonth) m, (GDateYear) y) && y >= 1000;
}

/* A value's place in the file: the value node, else the mapping's. */
static const gal_loc *
value_loc(const gal_node *map, const char *key)
{
    const gal_node *value = gal__node_get(map, key);

    return value ? &value->loc : &map->loc;
}

int
gal__album_load(const char *dir, gal_album_file **out, gal_errors *errs)
{
    g_autofree char *path = g_build_filename(dir, GAL_ALBUM_FILE, NULL);
    gal_read_rules rules = { GAL_ALBUM_FILE, dir, FALSE, 0, GAL_ERR_INPUT };
    g_autofree char *text = NULL;
    g_autoptr(gal_album_file) album = NULL;
    album_opts *opts = NULL;
    gal_node *root;
    gal_error err = { 0 };
    gsize len;
    struct stat st;
    int failed;

    *out = NULL;
    if (g_lstat(path, &st) != 0)
        return 0; /* no album.yaml: the album is its folder */
    rules.max_bytes = gal__limits.preset_bytes;
    if (gal__file_read(path, &rules, &text, &len, NULL, &err)) {
        gal__errors_add(errs, &err);
        return -1;
    }
    album = g_new0(gal_album_file, 1);
    album->path = g_steal_pointer(&path);
    root = gal__yaml_document(text, len, album->path, errs);
    if (!root)
        return -1;
    if (root->kind == GAL_NODE_SCALAR && root->is_null) {
        /* An empty album.yaml says nothing. */
        gal__node_free(root);
        root = gal__node_new(GAL_NODE_MAP, &(gal_loc) { album->path, 1, 1 });
    }
    if (root->kind != GAL_NODE_MAP) {
        gal__errors_push(errs, GAL_ERR_INPUT, &root->loc, NULL,
            "an album.yaml is a mapping of keys (title, description, cover, sort, date), got %s",
            root->kind == GAL_NODE_SEQ ? "a list" : "a scalar");
        gal__node_free(root);
        return -1;
    }
    failed = gal__schema_fill(&gal__album_section, root, (void **) &opts, NULL, errs);
    if (opts->date && !valid_date(opts->date))
        failed = gal__errors_push(errs, GAL_ERR_INPUT, value_loc(root, "date"), "album.date",
            "expected a day as YYYY-MM-DD, got \"%s\"", opts->date);
    if (opts->cover && (!*opts->cover || strchr(opts->cover, '/')))
        failed = gal__errors_push(errs, GAL_ERR_INPUT, value_loc(root, "cover"), "album.cover",
            "expected the file name of a photo in this folder, got \"%s\"", opts->cover);
    if (!failed) {
        album->title = opts->title && *opts->title ? g_strdup(opts->title) : NULL;
        album->description = opts->description && *opts->description
            ? g_strdup(opts->description) : NULL;
        if (album->description) {
            album->description_html = gal__markdown_html(album->description);
            album->description_text = gal__html_text(album->description_html);
        }
        album->cover = g_strdup(opts->cover);
        album->cover_loc = *value_loc(root, "cover");
        album->has_sort = gal__node_get(root, "sort") != NULL;
        album->sort = opts->sort;
        album->date = g_strdup(opts->date);
        *out = g_steal_pointer(&album);
    }
    gal__schema_free(&gal__album_section, opts);
    gal__node_free(root);
    return failed ? -1 : 0;
}

static int
compare_paths(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

void
gal__album_digest(GChecksum *sum, const char *const *roots, const char *const *rels, int n)
{
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GPtrArray) dirs = g_ptr_array_new();

    for (int i = 0; i < n; i++) {
        g_autofree char *folder = g_path_get_dirname(rels[i]);

        /* The photo's folder and every one above it, up to the input folder. */
        for (;;) {
            gboolean top = strcmp(folder, ".") == 0;
            char *dir = top ? g_strdup(roots[i]) : g_build_filename(roots[i], folder, NULL);
            char *above;

            if (g_hash_table_contains(seen, dir)) {
                g_free(dir);
                break;
            }
            g_hash_table_add(seen, dir);
            g_ptr_array_add(dirs, dir);
            if (top)
                break;
            above = g_path_get_dirname(folder);
            g_free(folder);
            folder = above;
        }
    }
    g_ptr_array_sort(dirs, compare_paths);
    for (guint d = 0; d < dirs->len; d++) {
        g_autofree char *path = g_build_filename(dirs->pdata[d], GAL_ALBUM_FILE, NULL);
        gal_read_rules rules = { GAL_ALBUM_FILE, dirs->pdata[d], FALSE,
            gal__limits.preset_bytes, GAL_ERR_INPUT };
        g_autofree char *text = NULL;
        gsize len = 0;
        gal_error err = { 0 };
        struct stat st;

        g_checksum_update(sum, (const guchar *) "album ", -1);
        g_checksum_update(sum, (const guchar *) path, -1);
        if (g_lstat(path, &st) != 0)
            g_checksum_update(sum, (const guchar *) " -", -1);
        else if (gal__file_read(path, &rules, &text, &len, NULL, &err) == 0) {
            g_autofree char *digest = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
                (const guchar *) text, len);

            g_checksum_update(sum, (const guchar *) " ", 1);
            g_checksum_update(sum, (const guchar *) digest, -1);
        }
        else /* unreadable: the pages will say so; stale until it is read */
            g_checksum_update(sum, (const guchar *) " unreadable", -1);
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
}
