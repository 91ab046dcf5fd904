/* format_webp.c: WebP, with alpha; smaller than JPEG, but not every
 * browser shows it, so a gallery offers it as a <source>. */
#include "internal.h"
#include "format.h"

static int
webp_save(const gal_encode *e, VipsTarget *target)
{
    return vips_webpsave_target(e->image, target, "Q", e->quality, "strip", e->meta->strip_all,
        NULL);
}

const gal_format_def gal_format_webp = {
    .ext = "webp", .mime = "image/webp",
    .alpha = true, .sheets = true,
    /* Its quality 85 scores 2-4 dB below JPEG's on the same photo (its
     * encoder smooths grain): its worst on the bench's 1080 px corpus is
     * 21.1 dB, JPEG's 24.9 (docs/quality.md).
     * Below 60 its scores plateau on smooth pictures while their edges
     * turn blocky (bench: a petal at 30 scored 21.2 dB), so the search
     * stops there. */
    .auto_first = 78, .auto_lowest = 60, .auto_highest = 100, .auto_shift = -3.8,
    .save = webp_save,
};
