/* fuzz_template: the name template parser (output.name, caption and
 * watermark texts) on any text, then rendering with awkward facts (slashes,
 * dot-dot, control characters, missing fields) and the output path checks.
 * Property: a name that passes the checks stays inside the output folder. */
#include <string.h>

#include "fuzz.h"
#include "output.h"
#include "template.h"

static const gal_facts awkward = {
    .name = "../.hidden/IMG_0001.JPG",
    .stem = "..",
    .ext = "jpg",
    .preset = "web/../large",
    .caption = "A caption / with slashes,\na line break, \x01 and ../..",
    .camera = "Apple\\iPhone 5s",
    .lens = NULL,
    .artist = "",
    .copyright = ".\x7f",
    .exposure = "1/250 s f/5.6 ISO 100",
    .has_date = TRUE,
    .date = { .tm_year = 114, .tm_mon = 3, .tm_mday = 13, .tm_hour = 23, .tm_min = 59 },
    .index = 7,
    .count = 480,
};

static const gal_facts missing = { .ext = "png" };

static void
render(const gal_template *tpl, const gal_facts *facts)
{
    g_autofree char *plain = gal__template_render(tpl, facts, FALSE);
    g_autofree char *safe = gal__template_render(tpl, facts, TRUE);
    gal_output_opts output = { .name = (gal_template *) tpl };
    gal_error err = { 0 };
    g_autofree char *path = gal__output_path(&output, "/out", facts, &err);

    fuzz_check(plain && safe);
    fuzz_check(path || err.msg[0]);
    if (path) {
        g_autofree char *canonical = g_canonicalize_filename(path, "/");

        fuzz_check(g_str_has_prefix(canonical, "/out/"));
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *text = g_strndup((const char *) data, size);
    g_autoptr(GError) error = NULL;
    gal_template *tpl = gal__template_parse(text, &error);

    fuzz_check(!tpl == !!error);
    if (!tpl)
        return 0;
    fuzz_check(strcmp(gal__template_text(tpl), text) == 0);
    gal__template_uses(tpl, "caption");
    render(tpl, &awkward);
    render(tpl, &missing);
    gal__template_free(tpl);
    return 0;
}
