/* error.c: gal_error records, compiler-style formatting, and the
 * "did you mean" suggestion used for misspelt keys and names. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "error.h"

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, three bytes */

/* Where to cut `text` so that what is kept is at most `max_bytes` long
 * and at most `max_chars` characters (-1: no count): the length in bytes
 * of the longest such prefix that ends between two characters. Nothing
 * here needs valid UTF-8: a character starts at every byte that is not a
 * continuation byte (10xxxxxx), so a stray continuation byte stays with
 * the character before it and no sequence is ever split. *cut says
 * whether anything was left out. */
static size_t
cut_point(const char *text, size_t max_bytes, long max_chars, gboolean *cut)
{
    size_t end = 0;
    long chars = 0;

    *cut = FALSE;
    for (size_t i = 0;; i++) {
        gboolean starts = text[i] == '\0' || ((guchar) text[i] & 0xc0) != 0x80;

        if (starts) {
            if (i > max_bytes || (max_chars >= 0 && chars > max_chars)) {
                *cut = TRUE;
                return end;
            }
            end = i;
            if (text[i] == '\0')
                return end;
            chars++;
        }
    }
}

char *
gal__utf8_copy(char *dst, const char *src, size_t size)
{
    gboolean cut;
    size_t n;

    if (size == 0)
        return dst;
    n = cut_point(src, size - 1, -1, &cut);
    /* No room for the ellipsis as well: cut again, shorter. */
    if (cut && size > sizeof(ELLIPSIS))
        n = cut_point(src, size - sizeof(ELLIPSIS), -1, &cut);
    memcpy(dst, src, n);
    if (cut && size > sizeof(ELLIPSIS)) {
        memcpy(dst + n, ELLIPSIS, sizeof(ELLIPSIS)); /* with its NUL */
        return dst;
    }
    dst[n] = '\0';
    return dst;
}

char *
gal__excerpt(const char *text, int max_chars)
{
    gboolean cut;
    size_t n = cut_point(text, G_MAXSIZE - 1, max_chars, &cut);
    char *out = g_malloc(n + (cut ? sizeof(ELLIPSIS) : 1));

    memcpy(out, text, n);
    if (cut)
        memcpy(out + n, ELLIPSIS, sizeof(ELLIPSIS));
    else
        out[n] = '\0';
    return out;
}

static void
fill_location(gal_error *err, const gal_loc *loc, const char *key)
{
    if (loc && loc->file) {
        gal__utf8_copy(err->file, loc->file, sizeof(err->file));
        err->line = loc->line;
        err->col = loc->col;
    }
    if (key)
        gal__utf8_copy(err->key, key, sizeof(err->key));
}

/* A message into a fixed field, cut at a character boundary if long. */
static void fill_message(gal_error *err, const char *fmt, va_list ap) G_GNUC_PRINTF(2, 0);

static void
fill_message(gal_error *err, const char *fmt, va_list ap)
{
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);

    gal__utf8_copy(err->msg, msg, sizeof(err->msg));
}

int
gal_error_set(gal_error *err, gal_code code, const gal_loc *loc,
    const char *key, const char *fmt, ...)
{
    va_list ap;

    if (!err || err->code != GAL_OK)
        return -1;
    err->code = code;
    fill_location(err, loc, key);
    va_start(ap, fmt);
    fill_message(err, fmt, ap);
    va_end(ap);
    return -1;
}

int
gal_error_from_vips(gal_error *err, gal_code code, const gal_loc *loc,
    const char *what)
{
    /* libvips' buffer is shared by every thread: copy it, then clear it
     * so the next failure elsewhere does not repeat this message (solo.h
     * says how a photo's own text is had). */
    g_autofree char *raw = vips_error_buffer_copy();
    g_auto(GStrv) lines = g_strsplit(raw, "\n", -1);
    GString *joined = g_string_new(NULL);
    g_autofree char *flat = NULL;
    int said = 0;

    /* libvips ends each message with a newline, and a retried step may
     * say the same thing twice: one line, each message once. A loader's
     * reads past the end ("source: bad seek to N", as libheif probes a
     * file cut short) come before the loader's own reason, which says it
     * better: they are kept only when nothing else is said. */
    for (int i = 0; lines[i]; i++)
        said += *g_strstrip(lines[i]) && !g_str_has_prefix(lines[i], "source: bad seek");
    for (int i = 0; lines[i]; i++) {
        gboolean seen = FALSE;

        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(lines[j], lines[i]) == 0;
        if (said && g_str_has_prefix(lines[i], "source: bad seek"))
            seen = TRUE;
        if (*lines[i] && !seen)
            g_string_append_printf(joined, "%s%s", joined->len ? " " : "", lines[i]);
    }
    flat = g_string_free(joined, FALSE);
    if (!*flat)
        return gal_error_set(err, code, loc, NULL, "%s failed", what);
    return gal_error_set(err, code, loc, NULL, "%s: %s", what, flat);
}

void
gal_error_set_subject(gal_error *err, const char *subject)
{
    if (err && subject && !err->subject[0])
        gal__utf8_copy(err->subject, subject, sizeof(err->subject));
}

void
gal__errors_add(gal_errors *errs, const gal_error *err)
{
    if (!errs)
        return;
    if (errs->count < GAL_MAX_ERRORS)
        errs->items[errs->count++] = *err;
    else
        errs->dropped++;
}

int
gal__errors_push(gal_errors *errs, gal_code code, const gal_loc *loc,
    const char *key, const char *fmt, ...)
{
    gal_error err = { 0 };
    va_list ap;

    err.code = code;
    fill_location(&err, loc, key);
    va_start(ap, fmt);
    fill_message(&err, fmt, ap);
    va_end(ap);
    gal__errors_add(errs, &err);
    return -1;
}

/* Plain spaces: g_format_size puts a no-break space between number and
 * unit, which grep and logs trip on. */
char *
gal__format_bytes(gint64 n)
{
    static const char *const units[] = { "KiB", "MiB", "GiB" };
    double v = (double) n;
    int u = -1;

    if (n < 1024)
        return g_strdup_printf("%" G_GINT64_FORMAT " bytes", n);
    while (v >= 1024 && u < 2) {
        v /= 1024;
        u++;
    }
    if (v == (gint64) v)
        return g_strdup_printf("%" G_GINT64_FORMAT " %s", (gint64) v, units[u]);
    return g_strdup_printf("%.1f %s", v, units[u]);
}

char *
gal_error_format(const gal_error *err, char *buf, size_t size)
{
    GString *s = g_string_new(NULL);

    if (err->subject[0]) {
        /* photo errors: "IMG_1.jpg: resize (web.yaml:7): message" */
        g_string_append_printf(s, "%s: ", err->subject);
        if (err->key[0])
            g_string_append(s, err->key);
        if (err->file[0] && err->line > 0)
            g_string_append_printf(s, "%s(%s:%d)", err->key[0] ? " " : "",
                err->file, err->line);
        if (err->key[0] || (err->file[0] && err->line > 0))
            g_string_append(s, ": ");
    }
    else {
        /* preset errors: "web.yaml:7:32: watermark.opacity: message" */
        if (err->file[0]) {
            g_string_append(s, err->file);
            if (err->line > 0)
                g_string_append_printf(s, ":%d:%d", err->line, err->col);
            g_string_append(s, ": ");
        }
        if (err->key[0])
            g_string_append_printf(s, "%s: ", err->key);
    }
    g_string_append(s, err->msg);
    gal__utf8_copy(buf, s->str, size);
    g_string_free(s, TRUE);
    return buf;
}

/* Edit distance with adjacent transpositions counted as one edit
 * ("widht" is one typo away from "width", not two), case-insensitive;
 * small strings only (keys and names). */
static int
edit_distance(const char *a, const char *b)
{
    int la = (int) strlen(a), lb = (int) strlen(b);
    /* Three rows: the one before last is needed for transpositions. */
    g_autofree int *rows = g_new(int, 3 * (lb + 1));
    int *prev2 = rows, *prev = rows + lb + 1, *row = rows + 2 * (lb + 1);

    for (int j = 0; j <= lb; j++)
        prev[j] = j;
    for (int i = 1; i <= la; i++) {
        char ca = g_ascii_tolower(a[i - 1]);
        int *t;

        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            char cb = g_ascii_tolower(b[j - 1]);
            int cost = ca == cb ? 0 : 1;

            row[j] = MIN(MIN(prev[j] + 1, row[j - 1] + 1), prev[j - 1] + cost);
            if (i > 1 && j > 1 && ca == g_ascii_tolower(b[j - 2]) &&
                g_ascii_tolower(a[i - 2]) == cb)
                row[j] = MIN(row[j], prev2[j - 2] + 1);
        }
        t = prev2;
        prev2 = prev;
        prev = row;
        row = t;
    }
    return prev[lb];
}

const char *
gal__did_you_mean(const char *word, const char *const *candidates)
{
    const char *best = NULL;
    int best_distance = G_MAXINT;
    /* Allow about one typo per three letters, and always one. */
    int limit = MAX(1, (int) strlen(word) / 3);

    for (int i = 0; candidates && candidates[i]; i++) {
        int d = edit_distance(word, candidates[i]);

        if (d < best_distance) {
            best_distance = d;
            best = candidates[i];
        }
    }
    return best_distance <= limit ? best : NULL;
}

gal_error *
gal__photo_error(gal_photo_result *result)
{
    gal_photo_notes *notes = gal__photo_notes(result);

    if (!notes->error)
        notes->error = g_new0(gal_error, 1);
    return notes->error;
}

void
gal__photo_error_clear(gal_photo_result *result)
{
    gal_photo_notes *notes = (gal_photo_notes *) result->notes;

    if (!notes)
        return;
    g_clear_pointer(&notes->error, g_free);
    if (gal__photo_notes_empty(notes))
        g_clear_pointer((gal_photo_notes **) &result->notes, g_free);
}

gboolean
gal__photo_notes_empty(const gal_photo_notes *notes)
{
    return !notes->error && !notes->why_detail && !notes->caption && !notes->caption_source &&
        !notes->files && !notes->warnings && !notes->caption_cut && !notes->skipped &&
        !notes->album;
}

gal_photo_notes *
gal__photo_notes(gal_photo_result *result)
{
    if (!result->notes)
        result->notes = g_new0(gal_photo_notes, 1);
    /* The library's own: the public pointer is const for its callers. */
    return (gal_photo_notes *) result->notes;
}

const gal_photo_notes *
gal_photo_notes_of(const gal_photo_result *photo)
{
    static const gal_photo_notes none = { 0 };

    return photo->notes ? photo->notes : &none;
}
