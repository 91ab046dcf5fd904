/* caption_table.c: the source "table": a TSV or CSV file of file names and
 * captions, named by captions.table. prepare() reads it once into a hash
 * table keyed by folded file name; a photo takes the row of its name, or
 * of its stem. table.c splits the rows; what their cells mean is decided
 * here. A header row may name override columns too (focus, watermark, alt,
 * description: overrides.h), checked as a photo's sidecar is. The table is
 * a file every photo's caption depends on, by its row. */
#include <string.h>

#include "internal.h"
#include "caption_source.h"
#include "error.h"
#include "limit.h"
#include "table.h"

typedef struct {
    GStringChunk *strings; /* every caption and key below */
    GHashTable *table;     /* folded file name or stem -> caption; NULL until one is read */
    /* folded file name -> its overrides (gal_overrides *), and the text
     * its row's digest is of when it has any (caption and overrides) */
    GHashTable *overrides, *row_text;
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

/* The row's override cells (the header's columns[k], -1: none) into a new
 * gal_overrides; NULL when the row sets none. Errors name the row's line
 * (table.c copies cells out of the text, so their columns are not known). */
static gal_overrides *
row_overrides(table_state *st, const gal_table_row *r, const int *columns, const gal_loc *at,
    gal_errors *errs, int *failed)
{
    gal_overrides found = GAL_OVERRIDES_NONE;
    g_autofree char *text = NULL;

    for (int k = 0; gal__override_columns[k]; k++) {
        gal_error err = { 0 };

        if (columns[k] < 0 || columns[k] >= (int) r->cells->len)
            continue;
        if (gal__override_cell(gal__override_columns[k], r->cells->pdata[columns[k]], at,
                st->strings, &found, &err))
            *failed = gal__errors_push(errs, GAL_ERR_PRESET, at, "captions.table", "%s: %s",
                err.key, err.msg);
    }
    if (!(text = gal__overrides_text(&found)))
        return NULL;
    return g_memdup2(&found, sizeof(found));
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
    int override_col[GAL_OVERRIDE_COLUMNS];

    if (!(rows = gal__table_split(text, csv, &bad, &why))) {
        gal_loc loc = gal__caption_loc_at(path, text, bad);

        return gal__errors_push(errs, GAL_ERR_PRESET, &loc, "captions.table", "%s", why);
    }
    if (rows->len > 0) {
        const gal_table_row *head = &g_array_index(rows, gal_table_row, 0);
        int f = gal__table_column(head, file_names), k = gal__table_column(head, caption_names);

        for (int c = 0; gal__override_columns[c]; c++) {
            const char *names[] = { gal__override_columns[c], NULL };

            override_col[c] = f >= 0 && k >= 0 ? gal__table_column(head, names) : -1;
        }
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
    else
        for (int c = 0; gal__override_columns[c]; c++)
            override_col[c] = -1;
    st->table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    st->overrides = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    st->row_text = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = first; i < rows->len; i++) {
        const gal_table_row *r = &g_array_index(rows, gal_table_row, i);
        gal_loc loc = gal__caption_cursor_loc(&rows_at, r->start);
        g_autofree char *name = NULL;
        g_autofree char *key = NULL;
        const char *caption;
        gpointer seen;
        gal_overrides *overrides;

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
        caption = gal__caption_keep(st->strings, r->cells->pdata[caption_col]);
        if ((overrides = row_overrides(st, r, override_col, &loc, errs, &failed))) {
            g_autofree char *digested = gal__overrides_text(overrides);
            g_autofree char *row = g_strconcat(caption ? caption : "", "\x1f", digested, NULL);

            g_hash_table_insert(st->row_text, g_strdup(key),
                g_string_chunk_insert(st->strings, row));
            g_hash_table_insert(st->overrides, g_strdup(key), overrides);
        }
        if (caption)
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
    if (st->overrides)
        g_hash_table_unref(g_steal_pointer(&st->overrides));
    if (st->row_text)
        g_hash_table_unref(g_steal_pointer(&st->row_text));
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

/* A row's caption; with override cells, those too (a row of a caption
 * alone is digested as before they were read). */
static const char *
table_row(const void *state, const gal_caption_file *file, const char *photo)
{
    const table_state *st = state;
    const char *row = st->row_text ? gal__caption_lookup(st->row_text, photo, NULL, NULL) : NULL;

    (void) file;
    return row ? row : gal__caption_lookup(st->table, photo, NULL, NULL);
}

static void
table_overrides(const void *state, const char *photo, gal_overrides *out)
{
    const table_state *st = state;
    const gal_overrides *found = st->overrides
        ? (const gal_overrides *) gal__caption_lookup(st->overrides, photo, NULL, NULL)
        : NULL;

    if (found)
        gal__overrides_merge(out, found);
}

static gboolean
table_has_overrides(const void *state)
{
    const table_state *st = state;

    return st->overrides && g_hash_table_size(st->overrides) > 0;
}

static void
table_release(void *state)
{
    table_state *st = state;

    if (st->table)
        g_hash_table_unref(st->table);
    if (st->overrides)
        g_hash_table_unref(st->overrides);
    if (st->row_text)
        g_hash_table_unref(st->row_text);
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
    .overrides = table_overrides,
    .has_overrides = table_has_overrides,
    .release = table_release,
};
