/* format_webp.c: WebP, with alpha; smaller than JPEG, but not every
 * browser shows it, so a gallery offers it as a <source>. */
#include "internal.h"
#include "format.h"

/* libvips' default effort for a file; a trial on a sample at effort 2,
 * which costs a third as much there and, measured on the bench's 1080 px
 * corpus, follows the whole file's score better than effort 4 does
 * (differences from the whole at the target: spread 0.52 dB against 1.28;
 * from effort 3 up the encoder's choices on the sample's 128 px tiles
 * stray from the whole's). */
#define FILE_EFFORT 4
#define TRIAL_EFFORT 2

static int
webp_save(const gal_encode *e, VipsTarget *target)
{
    return vips_webpsave_target(e->image, target, "Q", e->quality, "strip", e->meta->strip_all,
        "effort", e->trial ? TRIAL_EFFORT : FILE_EFFORT, NULL);
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
    /* Its trials on the sample score 0.3 dB above the whole at the
     * target (median; spread 0.5). Its first whole encode that meets
     * the target is kept (one costs what the rest of a photo's work
     * does), so the lift is a little under the median: the first whole
     * lands closer, and a miss costs a second one (0.2: 1.3 whole encodes
     * a file and fewer bytes than before on both bench corpora; 0.3-0.5:
     * 1.2, and up to 3.6% more bytes on the 12 MP one). */
    .auto_sample_lift = 0.2, .auto_keep_first_pass = true,
    .save = webp_save,
};
