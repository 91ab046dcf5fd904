/* fuzz_instagram: an Instagram export file (captions.instagram,
 * posts_1.json) on any bytes, as the preset loader reads it; and the JSON
 * reader alone on the same bytes, unchecked, since it must be safe on
 * anything. */
#include "captions.h"
#include "fuzz.h"
#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autoptr(GString) described = g_string_new(NULL);
    g_autoptr(gal_json_value) root = NULL;
    g_autofree char *error = NULL;
    const char *error_at = NULL;
    gal_captions *c = NULL;
    int rc;

    fuzz_check(gal__captions_load(NULL, FALSE, &c, errs) == 0);
    rc = gal__captions_from_string(c, "instagram", "posts_1.json", (const char *) data, size, errs);
    fuzz_check_errors(rc, errs);
    gal__captions_describe(c, described);
    gal__captions_free(c);

    root = gal__json_parse((const char *) data, size, &error_at, &error);
    fuzz_check(root || (error && error_at >= (const char *) data &&
                           error_at <= (const char *) data + size));
    return 0;
}
