/* fuzz_overrides: a photo's own sidecar (IMG_1.yaml, overrides.h) on any
 * bytes, as the worker reads it. Either it fails with a message that names
 * its place, or what it sets is in range: a focus point within the photo,
 * text that is UTF-8. */
#include "fuzz.h"
#include "overrides.h"

static gboolean
text_ok(const char *text)
{
    return !text || g_utf8_validate(text, -1, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_overrides o = GAL_OVERRIDES_NONE;
    gal_error err = { 0 };
    int rc = gal__overrides_from_text("IMG_1.yaml", (const char *) data, size, strings, &o,
        &err);

    if (rc != 0) {
        fuzz_check(rc == -1);
        fuzz_check(g_str_has_prefix(err.msg, "IMG_1.yaml:"));
        if (fuzz_verbose())
            fprintf(stderr, "  error: %s\n", err.msg);
        return 0;
    }
    fuzz_check(!o.has_focus ||
        (o.focus_x >= 0 && o.focus_x <= 1 && o.focus_y >= 0 && o.focus_y <= 1));
    fuzz_check(o.watermark >= -1 && o.watermark <= 1);
    fuzz_check(text_ok(o.caption) && text_ok(o.alt) && text_ok(o.description));
    if (fuzz_verbose())
        fprintf(stderr, "  focus %d %g %g watermark %d alt %s\n", o.has_focus, o.focus_x,
            o.focus_y, o.watermark, o.alt ? o.alt : "(none)");
    return 0;
}
