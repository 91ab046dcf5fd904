/* fuzz_preset: the preset loader (YAML, extends, --set) on any bytes.
 *
 * The input is a preset as it would be in a file, optionally followed by a
 * line "# --set" (a YAML comment, so seeds stay valid presets) and then one
 * --set argument per line. It loads as presets/fuzz.yaml, with presets/ as
 * the shipped presets' folder, so `extends: instagram-portrait` and the
 * logo next to it resolve, as do fixtures through ../fixtures/. A preset
 * that loads is also described and digested, as `gallop check` and a run
 * do. */
#include <string.h>

#include "fuzz.h"
#include "recipe.h"

#define SET_MARKER "# --set\n"
#define MAX_OVERRIDES 32

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    gal_error err = { 0 };

    (void) argc;
    if (gal_init((*argv)[0], &err)) {
        fprintf(stderr, "fuzz_preset: %s\n", err.msg);
        abort();
    }
    /* One thread: libvips would start workers for the logo otherwise. */
    vips_concurrency_set(1);
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *text = g_strndup((const char *) data, size);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree const char **overrides = g_new0(const char *, MAX_OVERRIDES + 1);
    g_auto(GStrv) lines = NULL;
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .overrides = overrides };
    gal_preset *preset = NULL;
    char *marker = strstr(text, "\n" SET_MARKER);
    int rc;

    if (g_str_has_prefix(text, SET_MARKER))
        marker = text;
    else if (marker)
        marker++;
    if (marker) {
        *marker = '\0';
        lines = g_strsplit(marker + strlen(SET_MARKER), "\n", MAX_OVERRIDES + 1);
        /* The line end of the last line ends it; it adds no empty one. */
        for (int i = 0; lines[i] && i < MAX_OVERRIDES && (lines[i + 1] || *lines[i]); i++)
            overrides[opts.n_overrides++] = lines[i];
    }
    rc = gal_preset_load_string(text, GAL_PRESETS_DIR "/fuzz.yaml", &opts, &preset, errs);
    fuzz_check_errors(rc, errs);
    fuzz_check((rc == 0) == (preset != NULL));
    if (preset) {
        g_autofree char *described = gal_preset_describe(preset);
        g_autoptr(GPtrArray) keys = gal__preset_keys(preset, "/out");
        char digest[65];

        gal__keys_digest(keys, digest);
        fuzz_check(strlen(digest) == 64);
        /* Text in, text out: what `gallop check` prints is UTF-8. */
        fuzz_check(g_utf8_validate(described, -1, NULL) ||
            !g_utf8_validate((const char *) data, (gssize) size, NULL));
        gal_preset_free(preset);
    }
    return 0;
}
