/* table.h: TSV and CSV text split into rows of cells.
 *
 * TSV: a row per line, cells split at tabs, no quoting. CSV as RFC 4180
 * has it: cells in double quotes may hold commas, line breaks and "" for a
 * quote. Lines end in \n or \r\n. A leaf module: what the cells mean is the
 * caller's business (caption_table.c reads caption tables with it). Input is
 * NUL-terminated text; the caller checks that it is UTF-8. Pure functions,
 * safe from any thread. */
#ifndef GAL_TABLE_H
#define GAL_TABLE_H

#include <glib.h>

/* One row: its cells (char *, owned by the row), and where the row starts
 * in the text it came from (borrowed: valid while that text is). */
typedef struct gal_table_row {
    GPtrArray *cells;
    const char *start;
} gal_table_row;

/* Is the file `name`, holding `text`, CSV? By its extension (.csv or .tsv,
 * either case); without one of those, a tab in the first line makes it TSV. */
gboolean gal__table_is_csv(const char *name, const char *text);

/* Split `text` into rows (TSV or CSV). Returns a new array of gal_table_row
 * that frees its rows' cells when freed (g_array_unref). TSV never fails.
 * A CSV quoting error gives NULL, *bad pointing at the fault within `text`
 * and *why a static message ("this quoted cell is never closed"). */
GArray *gal__table_split(const char *text, gboolean csv, const char **bad, const char **why);

/* Is every cell of the row empty or white space? */
gboolean gal__table_row_blank(const gal_table_row *row);

/* The index of the first cell that, trimmed, is one of `names`
 * (NULL-terminated) in any ASCII case; -1 when none is. */
int gal__table_column(const gal_table_row *row, const char *const *names);

#endif /* GAL_TABLE_H */
