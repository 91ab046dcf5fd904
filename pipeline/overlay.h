/* overlay.h: what the caption and watermark stages paint onto an opaque
 * 8-bit photo, as one lazy operation: a band of rows tinted with a colour,
 * and small pictures (the text, its shadow, a mark) laid over it. Rows
 * and strips it does not touch pass through without a copy.
 *
 * It does in one operation what an extract_area, a tint, an extract_band
 * or two, an ifthenelse or composite and an insert per picture did, with
 * the same arithmetic, so the pixels are the same: building those cost
 * about 1.5 ms a photo (vips_insert alone works out its background ink by
 * running a small pipeline), a tenth of the 1080 px bench job's CPU. */
#ifndef GAL_OVERLAY_H
#define GAL_OVERLAY_H

#include <vips/vips.h>

#define GAL_OVERLAY_MAX_PICTURES 4

/* A picture laid over the photo with its top left corner at (x, y),
 * clipped to the overlay's area. Its pixels decide how it blends:
 * - 8-bit RGBA, straight alpha: out = (a x picture + (255 - a) x photo
 *   + 128) / 255, as vips_ifthenelse's blend;
 * - float RGBA, premultiplied, 0..255: over, as vips_composite's (in
 *   floats, truncated to 8 bits as vips_cast does).
 * It must be in memory (vips_image_copy_memory, vips_text). */
typedef struct {
    VipsImage *picture;
    int x, y;
} gal_overlay_picture;

typedef struct {
    /* Rows [band_top, band_top + band_height) tinted: out = (photo x
     * (255 - alpha) + colour x alpha) / 255, rounded; no band when
     * band_height or band_alpha is 0. */
    int band_top, band_height;
    int band_rgb[3], band_alpha; /* 0..255 */
    /* Pictures are clipped to this rectangle of the photo (a band keeps
     * its text's shadow inside it); empty: the whole photo. */
    VipsRect area;
    gal_overlay_picture pictures[GAL_OVERLAY_MAX_PICTURES]; /* laid in this order */
    int n_pictures;
} gal_overlay;

/* Whether gal__overlay() paints on `in`: 8-bit, three bands (no alpha),
 * not coded. Other photos take libvips' operations. */
gboolean gal__overlay_fits(const VipsImage *in);

/* `in` with `overlay` painted on it, lazily; the overlay is copied and its
 * pictures referenced. Returns 0 with the new image in *out, or -1 with the
 * libvips error set (a photo or a picture it cannot paint). */
int gal__overlay(VipsImage *in, const gal_overlay *overlay, VipsImage **out);

#endif /* GAL_OVERLAY_H */
