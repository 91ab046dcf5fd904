/* format_avif.c: AVIF (AV1 in HEIF), with alpha; smaller still than WebP,
 * offered first by a gallery. libvips writes it through libheif, which not
 * every libvips is built with: a preset that asks for it fails to load
 * there. Not for contact sheets. */
#include "internal.h"
#include "format.h"

static int
avif_save(const gal_encode *e, VipsTarget *target)
{
    return vips_heifsave_target(e->image, target, "Q", e->quality, "compression",
        VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "strip", e->meta->strip_all, NULL);
}

const gal_format_def gal_format_avif = {
    .ext = "avif", .mime = "image/avif",
    .saver = "VipsForeignSaveHeifTarget",
    .library = "libheif", .module = "heif",
    .alpha = true,
    .auto_first = 65, .auto_lowest = 20, .auto_highest = 95,
    .save = avif_save,
};
