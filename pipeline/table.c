/* table.c: TSV and CSV text into rows of cells (see table.h). */
#include <string.h>

#include "table.h"

static void
row_clear(gpointer p)
{
    gal_table_row *r = p;

    g_ptr_array_unref(r->cells);
}

static GArray *
rows_new(void)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(gal_table_row));

    g_array_set_clear_func(rows, row_clear);
    return rows;
}

gboolean
gal__table_is_csv(const char *name, const char *text)
{
    return g_str_has_suffix(name, ".csv") || g_str_has_suffix(name, ".CSV") ||
        (!g_str_has_suffix(name, ".tsv") && !g_str_has_suffix(name, ".TSV") &&
            !memchr(text, '\t', strcspn(text, "\n")));
}

/* TSV: a caption with a line break goes in a CSV or a sidecar. */
static GArray *
split_tsv(const char *text)
{
    GArray *rows = rows_new();
    const char *line = text;

    while (*line) {
        const char *end = strchr(line, '\n');
        gsize n = end ? (gsize) (end - line) : strlen(line);
        g_autofree char *copy = g_strndup(line, n);
        gal_table_row r = { g_ptr_array_new_with_free_func(g_free), line };
        g_auto(GStrv) cells = NULL;

        if (n && copy[n - 1] == '\r')
            copy[n - 1] = '\0';
        cells = g_strsplit(copy, "\t", -1);
        for (int i = 0; cells[i]; i++)
            g_ptr_array_add(r.cells, g_strdup(cells[i]));
        g_array_append_val(rows, r);
        line = end ? end + 1 : line + n;
    }
    return rows;
}

static GArray *
csv_fail(GArray *rows, gal_table_row *r, GString *cell, const char *at, const char *message,
    const char **bad, const char **why)
{
    *bad = at;
    *why = message;
    g_string_free(cell, TRUE);
    g_ptr_array_unref(r->cells);
    g_array_free(rows, TRUE);
    return NULL;
}

static GArray *
split_csv(const char *text, const char **bad, const char **why)
{
    GArray *rows = rows_new();
    const char *c = text;

    while (*c) {
        gal_table_row r = { g_ptr_array_new_with_free_func(g_free), c };

        for (;;) {
            GString *cell = g_string_new(NULL);

            if (*c == '"') {
                const char *open = c++;

                for (;;) {
                    if (!*c)
                        return csv_fail(rows, &r, cell, open, "this quoted cell is never closed",
                            bad, why);
                    if (*c == '"' && c[1] == '"') {
                        g_string_append_c(cell, '"');
                        c += 2;
                    }
                    else if (*c == '"') {
                        c++;
                        break;
                    }
                    else
                        g_string_append_c(cell, *c++);
                }
                if (*c && *c != ',' && *c != '\n' && !(*c == '\r' && c[1] == '\n'))
                    return csv_fail(rows, &r, cell, c,
                        "text after a closing quote (write \"\" for a quote inside a cell)", bad,
                        why);
            }
            else
                while (*c && *c != ',' && *c != '\n' && !(*c == '\r' && c[1] == '\n'))
                    g_string_append_c(cell, *c++);
            g_ptr_array_add(r.cells, g_string_free(cell, FALSE));
            if (*c == ',') {
                c++;
                continue;
            }
            if (*c == '\r')
                c++;
            if (*c == '\n')
                c++;
            break;
        }
        g_array_append_val(rows, r);
    }
    return rows;
}

GArray *
gal__table_split(const char *text, gboolean csv, const char **bad, const char **why)
{
    return csv ? split_csv(text, bad, why) : split_tsv(text);
}

gboolean
gal__table_row_blank(const gal_table_row *r)
{
    for (guint i = 0; i < r->cells->len; i++) {
        g_autofree char *cell = g_strstrip(g_strdup(r->cells->pdata[i]));

        if (*cell)
            return FALSE;
    }
    return TRUE;
}

int
gal__table_column(const gal_table_row *r, const char *const *names)
{
    for (guint i = 0; i < r->cells->len; i++) {
        g_autofree char *cell = g_strstrip(g_strdup(r->cells->pdata[i]));

        for (int n = 0; names[n]; n++)
            if (g_ascii_strcasecmp(cell, names[n]) == 0)
                return (int) i;
    }
    return -1;
}
