/* exif.h: what libexif reads of a photo (template facts) and the metadata
 * policy outputs are written with. */
#ifndef GAL_EXIF_H
#define GAL_EXIF_H

#include "internal.h"
#include "template.h"

/* Read the facts a template can show from EXIF data (a blob as libvips
 * keeps it under "exif-data"). Strings are allocated into `strings`
 * (freed with it). Never fails: missing data leaves fields NULL. */
/* An EXIF date ("2024:05:01 08:30:00", the time optional) into `tm`,
 * weekday and day of the year included; FALSE when it is not one. */
gboolean gal__exif_date_parse(const char *text, struct tm *tm);

void gal__facts_from_exif(const void *exif, size_t len, gal_facts *facts,
    GStringChunk *strings);

/* What a site shows of a photo, from its EXIF block, appended to `about`
 * as "key=value" strings (g_free each): taken (ISO 8601, DateTimeOriginal
 * with OffsetTimeOriginal when there), f, shutter ("1/250"), iso,
 * focal_mm, and lat, lon, alt (degrees, metres) when `keep_gps`. Keys are
 * left out when the photo does not have them; never fails. */
void gal__exif_about(const void *exif, size_t len, gboolean keep_gps, GPtrArray *about);

/* Does an output.metadata policy write GPS position into outputs? */
gboolean gal__metadata_keeps_gps(char *const *metadata);

/* Check an output.metadata list: `keep` or `strip` alone, or `default`,
 * groups (caption, credits, date, camera, exposure, gps) and EXIF tag
 * names as libexif spells them, in any case. */
int gal__metadata_check(char *const *names, gal_error *err);

/* Is `text` (an EXIF ImageDescription, an XMP or IPTC caption) what a
 * camera writes by itself ("OLYMPUS DIGITAL CAMERA", "SONY DSC", blank)
 * rather than a caption? Such text is never shown nor published. */
gboolean gal__caption_placeholder(const char *text);

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
int gal__metadata_apply(char *const *metadata, const char *software, const gal_credits *credits,
    VipsImage *in, VipsImage **out, gal_meta *meta, gal_error *err);

#endif /* GAL_EXIF_H */
