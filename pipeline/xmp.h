/* xmp.h: a photo's XMP packet edited for an output (libxml2; xmp.c is the
 * one file that uses it): the properties an output.metadata level or
 * output.remove-location / remove-person leaves out, removed, and the
 * creator's contact details read. From bytes alone, untrusted. */
#ifndef GAL_XMP_H
#define GAL_XMP_H

#include <glib.h>

/* Kinds of properties gal__xmp_without() removes. */
#define GAL_XMP_CAMERA_RAW 0x1u /* Camera Raw's develop settings (crs:) */
#define GAL_XMP_LOCATION 0x2u   /* exif:GPS*, city, state, country, IPTC locations */
#define GAL_XMP_PERSON 0x4u     /* people shown, face and image regions (MWG, Microsoft, IPTC) */

/* The packet `xmp` (`len` bytes) without the properties of the kinds in
 * `drop`, as elements or attributes, in any prefix: a new string, its
 * length in *out_len. NULL when the packet is not XML, is larger than
 * GAL_XMP_MAX_BYTES, or would read another caption once edited: the caller
 * writes none of it rather than a packet it could not clean. No entity is
 * expanded and nothing is fetched. */
char *gal__xmp_without(const char *xmp, gsize len, unsigned drop, gsize *out_len);

/* Iptc4xmpCore:CreatorContactInfo's fields (CiEmailWork, CiUrlWork,
 * CiTelWork, CiAdrExtadr, CiAdrCity, CiAdrRegion, CiAdrPcode, CiAdrCtry)
 * that the packet has, appended to `fields` as name, value, name, value
 * (new strings). */
void gal__xmp_contact(const char *xmp, gsize len, GPtrArray *fields);

/* What a photo's XMP says that a gallery uses per photo: IPTC's "Alt Text
 * (Accessibility)" and "Extended Description" (Iptc4xmpCore:
 * AltTextAccessibility, ExtDescrAccessibility; x-default, else the first
 * language), and a point to keep in a crop, from the MWG regions
 * (mwg-rs:Regions): the centre of the first Focus region, else of the box
 * around every Face region, as fractions of the width and height (regions
 * in normalized units only, as MWG writes them). */
typedef struct gal_xmp_overrides {
    char *alt, *description; /* new strings; NULL: none */
    gboolean has_focus;
    double focus_x, focus_y; /* 0..1 */
} gal_xmp_overrides;

/* Fill *out (cleared first) from the packet; nothing when it is not XML. */
void gal__xmp_overrides(const char *xmp, gsize len, gal_xmp_overrides *out);
void gal__xmp_overrides_clear(gal_xmp_overrides *out);

/* libxml2's global set-up, once, on the main thread before any worker
 * (gal_init). */
void gal__xmp_init(void);

/* The largest packet read: JPEG's extended XMP may span many segments. */
#define GAL_XMP_MAX_BYTES (4 * 1024 * 1024)

#endif
