/* error.h: locations in presets and the error records every module fills
 * in (gal_error itself is public, in gallop.h). A leaf module. */
#ifndef GAL_ERROR_H
#define GAL_ERROR_H

#include <glib.h>

#include "gallop.h"

/* A place in a preset. `file` is borrowed from the node tree or preset that
 * owns it (interned there); line and col are 1-based; line 0 = no line
 * (e.g. a --set argument, where `file` holds the whole argument). */
typedef struct gal_loc {
    const char *file;
    int line, col;
} gal_loc;

/* Set `err` unless it is already set (the first error wins). Always
 * returns -1 so that failing is one line. `loc` and `key` may be NULL. */
int gal_error_set(gal_error *err, gal_code code, const gal_loc *loc,
    const char *key, const char *fmt, ...) G_GNUC_PRINTF(5, 6);

/* The same, taking the message from libvips' (shared, global) error buffer,
 * which is then cleared: call it right after the failing vips call.
 * `what` prefixes the libvips message ("resize: ..."). */
int gal_error_from_vips(gal_error *err, gal_code code, const gal_loc *loc,
    const char *what);

/* The error of a photo's result, made (clear) when it has none yet. */
gal_error *gal__photo_error(gal_photo_result *result);
/* Do the notes hold nothing at all? */
gboolean gal__photo_notes_empty(const gal_photo_notes *notes);
/* No error after all: the result's is freed (and its notes, when they
 * held nothing else). */
void gal__photo_error_clear(gal_photo_result *result);
/* The notes of a photo's result, made (empty) when it has none yet. */
gal_photo_notes *gal__photo_notes(gal_photo_result *result);

/* Name the photo an error is about (first subject wins). */
void gal_error_set_subject(gal_error *err, const char *subject);

/* Append a copy of `err` to `errs` (or count it as dropped). */
void gal__errors_add(gal_errors *errs, const gal_error *err);

/* Add an error to a list in one call; returns -1. */
int gal__errors_push(gal_errors *errs, gal_code code, const gal_loc *loc,
    const char *key, const char *fmt, ...) G_GNUC_PRINTF(5, 6);

/* Copy `src` into `dst` (`size` bytes, NUL included), cut between two
 * characters, never inside one, and ending in "…" when it does not fit
 * whole. Every fixed-size field of a gal_error is filled through it.
 * Returns `dst`. */
char *gal__utf8_copy(char *dst, const char *src, size_t size);

/* At most `max_chars` characters of `text`, ending in "…" when cut, for
 * quoting user text (a value, a name, a caption) in a message. Caller
 * frees. Text need not be valid UTF-8; a sequence is never split. */
char *gal__excerpt(const char *text, int max_chars);

/* A size for a message: "512 bytes", "64 KiB", "1.5 MiB". Caller frees. */
char *gal__format_bytes(gint64 n);

/* How much of a user's text a message quotes. */
#define GAL_EXCERPT_CHARS 60

/* The closest of `candidates` (NULL-terminated) to `word` by edit distance,
 * or NULL when none is close enough to suggest. */
const char *gal__did_you_mean(const char *word, const char *const *candidates);

#endif /* GAL_ERROR_H */
