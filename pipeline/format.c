/* format.c: the output format table, expanded from formats.def, and the
 * lookups over it. */
#include <string.h>

#include "internal.h"
#include "format.h"

#define GAL_FORMAT(up, low) extern const gal_format_def gal_format_##low;
#include "formats.def"
#undef GAL_FORMAT

const gal_format_def *const gal__formats[] = {
#define GAL_FORMAT(up, low) &gal_format_##low,
#include "formats.def"
#undef GAL_FORMAT
};

const char *const gal_format_names[] = {
#define GAL_FORMAT(up, low) #low,
#include "formats.def"
#undef GAL_FORMAT
    NULL,
};

const char *
gal__format_name(gal_format format)
{
    return gal_format_names[format];
}

const char *
gal__format_ext(gal_format format)
{
    return gal__formats[format]->ext;
}

gal_format
gal__format_of_name(const char *name)
{
    for (int f = 0; name && f < GAL_N_FORMATS; f++)
        if (strcmp(name, gal_format_names[f]) == 0)
            return (gal_format) f;
    return GAL_FORMAT_JPEG;
}

int
gal__format_of_file(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;

    for (int f = 0; dot && f < GAL_N_FORMATS; f++) {
        const gal_format_def *def = gal__formats[f];

        if (g_ascii_strcasecmp(dot + 1, def->ext) == 0 ||
            (def->ext_also && g_ascii_strcasecmp(dot + 1, def->ext_also) == 0))
            return f;
    }
    return -1;
}

const char *
gal__format_missing(gal_format format)
{
    const gal_format_def *def = gal__formats[format];

    return def->saver && !vips_type_find("VipsOperation", def->saver) ? def->library : NULL;
}
