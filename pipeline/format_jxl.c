/* format_jxl.c: JPEG XL, with alpha; smaller than JPEG at the quality a
 * JPEG of the same output.quality shows, but few browsers show it, so a
 * gallery offers it as a <source>. libvips writes it through libjxl, which
 * not every libvips is built with: a preset that asks for it fails to load
 * there. Not for contact sheets. */
#include <math.h>

#include "internal.h"
#include "format.h"

/* output.quality (1..100) as libjxl's butteraugli distance, the encoder's
 * own measure of loss: cjxl's mapping, made to follow libjpeg's quality
 * scale (90 is distance 1.0, "visually lossless"; 100 is 0.1). libvips
 * 8.14's Q gives the same distances, but gallop passes the distance
 * itself, so the mapping documented (docs/presets.md, "quality", with
 * the bytes and SSIM measured against JPEG) is gallop's, whichever
 * libvips writes the file. */
double
gal__jxl_distance(int quality)
{
    if (quality >= 30)
        return 0.1 + (100 - quality) * 0.09;
    /* libvips takes up to 15 (cjxl 25): quality 8 and below are 15. */
    return MIN(15.0, 6.4 + pow(2.5, (30 - quality) / 5.0) / 6.25);
}

static int
jxl_save(const gal_encode *e, VipsTarget *target)
{
    return vips_jxlsave_target(e->image, target, "distance", gal__jxl_distance(e->quality),
        "strip", e->meta->strip_all, NULL);
}

const gal_format_def gal_format_jxl = {
    .ext = "jxl", .mime = "image/jxl",
    .saver = "VipsForeignSaveJxlTarget",
    .library = "libjxl", .module = "jxl",
    .alpha = true,
    .auto_first = 85, .auto_lowest = 30, .auto_highest = 100,
    .save = jxl_save,
};
