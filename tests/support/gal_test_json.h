/* gal_test_json.h: a strict little JSON reader for tests (reports, log events). */
#ifndef GAL_TEST_JSON_H
#define GAL_TEST_JSON_H

#include <glib.h>

typedef enum {
    GAL_JSON_NULL,
    GAL_JSON_BOOL,
    GAL_JSON_NUMBER,
    GAL_JSON_STRING,
    GAL_JSON_ARRAY,
    GAL_JSON_OBJECT,
} gal_json_type;

typedef struct gal_json {
    gal_json_type type;
    gboolean boolean;
    double number;
    char *string;
    GPtrArray *items; /* ARRAY items, OBJECT values */
    GPtrArray *keys;  /* OBJECT keys, parallel to items */
} gal_json;

/* Parse one JSON text; NULL with *error (new string) when it is not valid. */
gal_json *gal_json_parse(const char *text, char **error);
void gal_json_free(gal_json *j);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gal_json, gal_json_free)

/* A value by dotted path: "totals.done", "photos.3.outputs.0.sha256"; NULL
 * when missing. */
const gal_json *gal_json_get(const gal_json *j, const char *path);
/* The string there, or NULL; the number there, or -1. */
const char *gal_json_string(const gal_json *j, const char *path);
double gal_json_number(const gal_json *j, const char *path);

#endif /* GAL_TEST_JSON_H */
