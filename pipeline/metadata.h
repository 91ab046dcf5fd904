/* metadata.h: the output.metadata policy and the metadata an output is
 * written with (its EXIF block, built with libexif, and XMP packet). */
#ifndef GAL_METADATA_H
#define GAL_METADATA_H

#include "internal.h"
#include "error.h"

/* Does an output.metadata policy write GPS position into outputs? */
gboolean gal__metadata_keeps_gps(char *const *metadata);

/* Check an output.metadata list: `keep` or `strip` alone, or `default`,
 * groups (caption, credits, date, camera, exposure, gps) and EXIF tag
 * names as libexif spells them, in any case. */
int gal__metadata_check(char *const *names, gal_error *err);

/* What the preset says an output carries besides the photo's own metadata:
 * its caption (resolved from the caption sources) and the credits
 * (output.artist, output.copyright, rendered for the photo). NULL: none,
 * the photo's own stays (as output.metadata allows). UTF-8. */
typedef struct gal_credits {
    const char *caption;
    const char *artist;
    const char *copyright;
} gal_credits;

/* Does an output.metadata list publish the photo's caption (keep, default,
 * caption, ImageDescription)? */
gboolean gal__metadata_keeps_caption(char *const *metadata);

/* output.remove-location and output.remove-person, under any level
 * (gal__metadata_apply's `removes`): GPS, places (EXIF, XMP, IPTC); people
 * shown and face regions (XMP). */
#define GAL_REMOVE_LOCATION 0x1u
#define GAL_REMOVE_PERSON 0x2u

/* What an output carries besides its pixels. Strings are NULL when the
 * policy drops them. */
typedef struct gal_meta {
    gboolean strip_all;  /* no metadata at all (`strip`) */
    gboolean keep_icc;   /* `keep`: the colour profile too */
    void *exif;          /* the EXIF block, "Exif\0\0" header first */
    size_t exif_len;
    char *caption;       /* PNG Title and Description */
    char *author;        /* PNG Author (EXIF Artist) */
    char *copyright;
    char *software;      /* "gallop VERSION (preset NAME)" */
    char *xmp;           /* an XMP packet (dc:description, creator, rights), or NULL */
} gal_meta;

void gal__meta_clear(gal_meta *meta);

/* Apply an output.metadata policy to the finished image `in`, which still
 * carries the photo's metadata as libvips read it. *out is a copy whose
 * metadata fields the JPEG, WebP and AVIF savers (strip off) turn into
 * exactly the EXIF in `meta`: GPS and serial numbers dropped by default,
 * Orientation 1 (the pixels are upright), Software = `software`, no
 * thumbnail, no IPTC or ICC unless `keep`, and no XMP of the photo's
 * unless `keep`. `credits` (may be NULL): the caption becomes EXIF
 * ImageDescription and XMP dc:description where the policy keeps the
 * caption; the artist and copyright become EXIF Artist and Copyright and
 * XMP dc:creator and dc:rights under any policy but `strip`. A camera's
 * placeholder ImageDescription is dropped. */
int gal__metadata_apply(char *const *metadata, unsigned removes, const char *software,
    const gal_credits *credits, VipsImage *in, VipsImage **out, gal_meta *meta, gal_error *err);

/* Does the policy keep all the photo's metadata as they are (keep, all)? */
gboolean gal__metadata_keeps_everything(char *const *metadata);

/* Put `orientation` (1-8) back into `meta`'s EXIF block, which
 * gal__metadata_apply made for upright pixels: a file published as it is
 * (an original) is still stored as the camera stored it. No EXIF block, or
 * no such orientation: nothing. */
void gal__meta_set_orientation(gal_meta *meta, int orientation);

#endif /* GAL_METADATA_H */
