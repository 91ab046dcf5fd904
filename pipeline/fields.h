/* fields.h: a manifest line's fields (manifest.h, docs/report.md), read
 * back: the manifest's records and about lines (manifest.c, about.c) and a
 * part's other lines (part.c) are tab-separated, each field escaped by
 * gal__manifest_append_field. */
#ifndef GAL_FIELDS_H
#define GAL_FIELDS_H

/* The most fields a line of any kind has (a part's result has 23). */
#define GAL_FIELDS_MAX 32

/* Split `line` (modified) into at most GAL_FIELDS_MAX unescaped fields,
 * which point into it; NULL-terminated (`fields` has room for
 * GAL_FIELDS_MAX + 1). The number of fields, or -1 when there are more. */
int gal__fields_split(char *line, char **fields);

#endif /* GAL_FIELDS_H */
