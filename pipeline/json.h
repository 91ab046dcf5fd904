/* json.h: a small, strict JSON reader (RFC 8259) into a tree of values.
 *
 * Strict: no trailing commas, comments, leading zeros, unknown escapes,
 * control characters in strings or lone surrogates; text after the value is
 * an error. Nesting is bounded (GAL_JSON_MAX_DEPTH), so no input can
 * exhaust the stack. Numbers are checked but not converted. A leaf module:
 * it knows nothing of captions or presets, and callers place its errors in
 * their own files (caption_instagram.c reads Instagram's export with it).
 * Pure functions, safe from any thread. */
#ifndef GAL_JSON_H
#define GAL_JSON_H

#include <glib.h>

#define GAL_JSON_MAX_DEPTH 64

typedef enum gal_json_kind {
    GAL_JV_NULL,
    GAL_JV_BOOL,
    GAL_JV_NUMBER,
    GAL_JV_STRING,
    GAL_JV_ARRAY,
    GAL_JV_OBJECT,
} gal_json_kind;

/* One value. Everything below it is owned by it. */
typedef struct gal_json_value {
    gal_json_kind kind;
    char *str;        /* STRING: UTF-8, escapes decoded (a \u0000 is dropped) */
    GPtrArray *keys;  /* OBJECT: char *, in document order, parallel to items */
    GPtrArray *items; /* ARRAY items, OBJECT values: gal_json_value * */
} gal_json_value;

/* Parse one whole document: `len` bytes of UTF-8 text (need not end in a
 * NUL; a NUL byte is an error). Any bytes are safe to give it, but strings
 * are only UTF-8 when the text is: check it first. Returns a new tree for
 * gal__json_free, or NULL with *error_at pointing at the fault within
 * `text` and *error a new string saying what is wrong ("unexpected ']'"),
 * for the caller to put after its own file:line:col. */
gal_json_value *gal__json_parse(const char *text, gsize len, const char **error_at,
    char **error);

/* Accepts NULL. */
void gal__json_free(gal_json_value *value);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gal_json_value, gal__json_free)

/* The value of `key` in an object (the first, if repeated); NULL when
 * `object` is NULL, not an object, or has no such key. Borrowed. */
const gal_json_value *gal__json_get(const gal_json_value *object, const char *key);

/* The same when it is a string; NULL otherwise. Borrowed. */
const char *gal__json_string(const gal_json_value *object, const char *key);

#endif /* GAL_JSON_H */
