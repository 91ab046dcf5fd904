/* exif.h: what libexif reads of a photo: the facts templates show and
 * what a site shows (metadata.h writes outputs' metadata). */
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

/* Is `text` (an EXIF ImageDescription, an XMP or IPTC caption) what a
 * camera writes by itself ("OLYMPUS DIGITAL CAMERA", "SONY DSC", blank)
 * rather than a caption? Such text is never shown nor published. */
gboolean gal__caption_placeholder(const char *text);

/* libexif wants the JPEG APP1 form ("Exif\0\0" first); PNG and WebP keep
 * bare TIFF data. The bytes to give it: `exif` itself, or a copy with the
 * header in front, left in *copy for the caller to free. `*len` is at
 * least 6. */
const void *gal__exif_app1_form(const void *exif, size_t *len, unsigned char **copy);

/* What gallop knows of a photo that has no EXIF block of its own (a
 * camera's raw photo: libraw reads its maker's directories), to give it
 * one as a JPEG has. Strings may be NULL or empty, numbers 0: left out. */
typedef struct gal_exif_fields {
    const char *make;
    const char *model;
    const char *lens;
    const char *taken;       /* DateTimeOriginal, "2024:05:01 08:30:00" */
    const char *artist;
    const char *description;
    double exposure_seconds;
    double f_number;
    double iso;
    double focal_mm;
    int orientation;         /* 1..8; 0: left out */
} gal_exif_fields;

/* An EXIF block (the APP1 form libvips keeps under "exif-data") holding
 * `fields`: new memory (g_free), its size in *len; NULL when libexif could
 * not write one. */
unsigned char *gal__exif_build(const gal_exif_fields *fields, size_t *len);

#endif /* GAL_EXIF_H */
