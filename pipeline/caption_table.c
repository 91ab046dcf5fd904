/* caption_table.c: the source "table": a TSV or CSV file of file names and
 * captions, named by captions.table. prepare() reads it once into a hash
 * table keyed by folded file name; a photo takes the row of its name, or
 * of its stem. table.c splits the rows; what their cells mean is decided
 * here. The table is a file every photo's caption depends on, by its row. */
#include <string.h>

#include "internal.h"
#include "caption_source.h"
#include "error.h"
#include "limit.h"
#include "table.h"

typedef struct {
    GStringChunk *strings; /* every caption and key below */
    GHashTable *table;     /* folded file name or stem -> caption; NULL until one is read */
    int rows;
    gal_caption_file file; /* the file read; path NULL when read from memory */
} table_state;

static table_state *
table_state_new(void)
{
    table_state *st = g_new0(table_state, 1);

    st->strings = g_string_chunk_new(4096);
    return st;
}

/* `text` (UTF-8) as the table `path`: rows into st->table.
 *
 * The path is the preset's, the file may be anything (a preset from
 * elsewhere may name /etc/passwd): no error quotes a cell. A file whose
 * first row is neither a header with file and caption columns nor a file
 * name and a caption is not a captions table, and is refused in one line;
 * once it is one, each row's error names its place and what it lacks. */
static int
table_from_text(table_state *st, const char *path, const char *text, gal_errors *errs)
{
    static const char *const file_names[] = { "file", "filename", "file name", NULL };
    static const char *const caption_names[] = { "caption", NULL };
    g_autoptr(GArray) rows = NULL;
    g_autoptr(GHashTable) first_line = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int file_col = 0, caption_col = 1, first = 0, failed = 0;
    gboolean csv = gal__table_is_csv(path, text);
    const char *bad = NULL, *why = NULL;
    gal_caption_cursor rows_at = gal__caption_cursor(path, text);

    if (!(rows = gal__table_split(text, csv, &bad, &why))) {
        gal_loc loc = gal__caption_loc_at(path, text, bad);

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
            gal_loc loc = gal__caption_loc_at(path, text, head->start);

            return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                "the header row names a %s column but no %s column", f >= 0 ? "file" : "caption",
                f >= 0 ? "caption" : "file");
        }
        else {
            const gal_table_row *r = head;

            for (guint i = 1; i < rows->len && gal__table_row_blank(r); i++)
                r = &g_array_index(rows, gal_table_row, i);
            if (!gal__table_row_blank(r) && r->cells->len < 2) {
                gal_loc loc = gal__caption_loc_at(path, text, r->start);

                return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                    "not a captions table: its first row is neither a header naming file and "
                    "caption columns nor a file name and a caption separated by a %s",
                    csv ? "comma" : "tab");
            }
        }
    }
    st->table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = first; i < rows->len; i++) {
        const gal_table_row *r = &g_array_index(rows, gal_table_row, i);
        gal_loc loc = gal__caption_cursor_loc(&rows_at, r->start);
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
        key = gal__caption_fold(name);
        if ((seen = g_hash_table_lookup(first_line, key))) {
            failed = gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table",
                "this file name is listed twice (first at line %d)", GPOINTER_TO_INT(seen));
            continue;
        }
        g_hash_table_insert(first_line, g_strdup(key), GINT_TO_POINTER(loc.line));
        st->rows++;
        if ((caption = gal__caption_keep(st->strings, r->cells->pdata[caption_col])))
            g_hash_table_insert(st->table, g_steal_pointer(&key), (gpointer) caption);
    }
    return failed;
}

static int
table_prepare(const char *const *files, const gal_loc *at, void **state, gal_errors *errs)
{
    table_state *st = table_state_new();
    g_autofree char *text = NULL;
    gsize len;

    *state = st;
    st->file.path = g_string_chunk_insert_const(st->strings, files[0]);
    if (!(text = gal__caption_read_text(st->file.path, gal__limits.table_bytes, "captions.table",
              at, &st->file, &len, errs)))
        return -1;
    return table_from_text(st, st->file.path, text, errs);
}

/* A table read from memory replaces the one before. */
static int
table_from_string(void **state, const char *name, const char *bytes, gsize len,
    gal_errors *errs)
{
    table_state *st = *state ? *state : (*state = table_state_new());
    g_autofree char *text = NULL;

    if (st->table)
        g_hash_table_unref(g_steal_pointer(&st->table));
    st->rows = 0;
    if (!(text = gal__caption_copy_text(name, bytes, &len, "captions.table", errs)))
        return -1;
    return table_from_text(st, name, text, errs);
}

static void
table_describe(const void *state, GString *out)
{
    const table_state *st = state;

    if (st->table)
        g_string_append_printf(out, " (table: %d rows)", st->rows);
}

static int
table_caption(const void *state, const gal_caption_ask *ask, const char **caption,
    const char **file, gal_error *err)
{
    const table_state *st = state;

    (void) err;
    *caption = gal__caption_lookup(st->table, ask->photo->path, NULL, NULL);
    *file = st->file.path;
    return 0;
}

static void
table_shared_files(const void *state, GPtrArray *files)
{
    const table_state *st = state;

    if (st->file.path)
        g_ptr_array_add(files, (gpointer) &st->file);
}

static const char *
table_row(const void *state, const gal_caption_file *file, const char *photo)
{
    const table_state *st = state;

    (void) file;
    return gal__caption_lookup(st->table, photo, NULL, NULL);
}

static void
table_release(void *state)
{
    table_state *st = state;

    if (st->table)
        g_hash_table_unref(st->table);
    g_string_chunk_free(st->strings);
    g_free(st);
}

const gal_caption_source gal_caption_table = {
    .name = "table",
    .key = "table",
    .given = "a table",
    .prepare = table_prepare,
    .from_string = table_from_string,
    .describe = table_describe,
    .caption = table_caption,
    .shared_files = table_shared_files,
    .row = table_row,
    .release = table_release,
};
