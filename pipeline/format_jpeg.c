/* format_jpeg.c: JPEG, which every browser shows. No alpha: transparent
 * pixels are flattened onto output.background. libvips' saver, with
 * Huffman tables optimised for each file (smaller, same pixels). */
#include "internal.h"
#include "format.h"

static int
jpeg_save(const gal_encode *e, VipsTarget *target)
{
    /* auto is 4:2:0 at every quality: libvips' auto switches to 4:4:4 from
     * quality 90, which made a file 89% larger going from 85 to 90 where
     * 4:2:0 grows 36% (docs/presets.md, "subsampling"). 4:4:4 only when
     * asked. */
    VipsForeignSubsample subsample = e->subsampling == GAL_SUBSAMPLING_444
        ? VIPS_FOREIGN_SUBSAMPLE_OFF
        : VIPS_FOREIGN_SUBSAMPLE_ON;
    return vips_jpegsave_target(e->image, target, "Q", e->quality, "interlace", e->progressive,
        "subsample_mode", subsample, "optimize_coding", TRUE, "strip", e->meta->strip_all, NULL);
}

const gal_format_def gal_format_jpeg = {
    .ext = "jpg", .ext_also = "jpeg", .mime = "image/jpeg",
    .every_browser = true, .sheets = true,
    .auto_first = 80, .auto_lowest = 30, .auto_highest = 95,
    /* Its sample scores 0.6 dB above the whole at the target (the median
     * on the bench's 1080 px corpus; 0.4-1.2 from photo to photo). */
    .auto_sample_lift = 0.6,
    .save = jpeg_save,
};
