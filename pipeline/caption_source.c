/* caption_source.c: what the caption sources share: matching file names,
 * keeping a caption's text, locating a place in a file for an error, and
 * reading a shared file (a table, an export) as UTF-8 text. */
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "caption_source.h"
#include "error.h"
#include "fsio.h"

char *
gal__caption_fold(const char *name)
{
    g_autofree char *valid = g_utf8_make_valid(name, -1);
    g_autofree char *nfc = g_utf8_normalize(valid, -1, G_NORMALIZE_NFC);

    return g_utf8_casefold(nfc ? nfc : valid, -1);
}

char *
gal__caption_stem(const char *name)
{
    const char *dot = strrchr(name, '.');

    return dot && dot != name ? g_strndup(name, dot - name) : g_strdup(name);
}

const char *
gal__caption_lookup(GHashTable *table, const char *path, GHashTable *also, gconstpointer *also_out)
{
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *key = gal__caption_fold(base);
    g_autofree char *stem = NULL;
    const char *found;

    if (!table)
        return NULL;
    if (!(found = g_hash_table_lookup(table, key))) {
        stem = gal__caption_stem(key);
        found = g_hash_table_lookup(table, stem);
    }
    if (found && also)
        *also_out = g_hash_table_lookup(also, stem ? stem : key);
    return found;
}

const char *
gal__caption_keep(GStringChunk *strings, const char *text)
{
    g_autofree char *copy = g_strdup(text);
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

/* ---- places in a text ------------------------------------------------------------ */

gal_caption_cursor
gal__caption_cursor(const char *file, const char *text)
{
    return (gal_caption_cursor) { file, text, text, text, 1 };
}

gal_loc
gal__caption_cursor_loc(gal_caption_cursor *cur, const char *at)
{
    if (at < cur->done)
        *cur = gal__caption_cursor(cur->file, cur->text);
    for (; cur->done < at; cur->done++)
        if (*cur->done == '\n') {
            cur->n++;
            cur->line = cur->done + 1;
        }
    return (gal_loc) { cur->file, cur->n, (int) g_utf8_strlen(cur->line, at - cur->line) + 1 };
}

gal_loc
gal__caption_loc_at(const char *file, const char *text, const char *at)
{
    gal_caption_cursor cur = gal__caption_cursor(file, text);

    return gal__caption_cursor_loc(&cur, at);
}

/* ---- shared files as text ---------------------------------------------------------- */

/* Check that `len` bytes read from `path` (NUL-terminated after them) are
 * UTF-8 text, naming the first byte that is not; drop a leading BOM, in
 * place, from the text and from *len. */
static gboolean
utf8_text(const char *path, char *text, gsize *len, const char *what, gal_errors *errs)
{
    const char *bad;

    if (strlen(text) != *len) {
        gal_loc loc = gal__caption_loc_at(path, text, text + strlen(text));

        gal__errors_push(errs, GAL_ERR_PRESET, &loc, what, "a NUL byte: not a text file");
        return FALSE;
    }
    if (!g_utf8_validate(text, (gssize) *len, &bad)) {
        gal_loc loc = gal__caption_loc_at(path, text, bad);

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

char *
gal__caption_read_text(const char *path, gsize max, const char *what, const gal_loc *from,
    gal_caption_file *noted, gsize *len_out, gal_errors *errs)
{
    /* The path is already real (gal__schema_check_files), or was found in
     * a folder the preset named: within it. */
    g_autofree char *folder = g_path_get_dirname(path);
    gal_read_rules rules = { NULL, folder, FALSE, (gint64) max, GAL_ERR_PRESET };
    g_autofree char *text = NULL;
    gal_error err = { 0 };
    struct stat sb;
    gsize len;

    noted->size = noted->mtime_ns = 0;
    if (stat(path, &sb) == 0) {
        noted->size = sb.st_size;
        noted->mtime_ns = gal__mtime_ns(&sb);
    }
    if (gal__file_read(path, &rules, &text, &len, NULL, &err)) {
        gal__errors_push(errs, GAL_ERR_PRESET, from, what, "%s", err.msg);
        return NULL;
    }
    if (!utf8_text(path, text, &len, what, errs))
        return NULL;
    *len_out = len;
    return g_steal_pointer(&text);
}

char *
gal__caption_copy_text(const char *name, const char *bytes, gsize *len, const char *what,
    gal_errors *errs)
{
    g_autofree char *text = g_malloc(*len + 1);

    if (*len)
        memcpy(text, bytes, *len);
    text[*len] = '\0';
    if (!utf8_text(name, text, len, what, errs))
        return NULL;
    return g_steal_pointer(&text);
}
