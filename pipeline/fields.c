/* fields.c: a manifest line's fields (fields.h), split at its tabs and
 * unescaped, as manifest_write.c escapes them. */
#include <stdbool.h>
#include <string.h>

#include "fields.h"

/* Undo gal__manifest_append_field's escapes, in place (the text only
 * shrinks). */
static void
unescape_in_place(char *text)
{
    /* Most fields have no backslash: left as they are. */
    char *out = strchr(text, '\\');

    if (!out)
        return;
    for (const char *p = out; *p; p++) {
        if (*p != '\\' || !p[1]) {
            *out++ = *p;
            continue;
        }
        p++;
        *out++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
    }
    *out = '\0';
}

int
gal__fields_split(char *line, char **fields)
{
    /* Nearly every line has no escape: told once for the whole line,
     * before it is split, not field by field. */
    bool escaped = strchr(line, '\\') != NULL;
    int n = 0;

    for (char *p = line;; p++) {
        char *tab = strchr(p, '\t');

        if (n == GAL_FIELDS_MAX)
            return -1;
        fields[n++] = p;
        if (!tab)
            break;
        *tab = '\0';
        p = tab;
    }
    fields[n] = NULL;
    for (int i = 0; i < n && escaped; i++)
        unescape_in_place(fields[i]);
    return n;
}
