/* embedded.h: captions embedded in a photo's metadata blobs, parsed from
 * bytes alone (no file, no libvips): the sources "xmp" and "iptc" of
 * caption_metadata.c, and fuzz targets of their own. */
#ifndef GAL_EMBEDDED_H
#define GAL_EMBEDDED_H

#include <glib.h>

/* XMP: the x-default entry of dc:description (else its first). A new
 * string, or NULL when there is none or the packet is not XML. */
char *gal__xmp_description(const char *xmp, gsize len);
/* IPTC-IIM Caption-Abstract (2:120), from a bare IIM block or a Photoshop
 * APP13 resource block. A new string (UTF-8), or NULL. */
char *gal__iptc_caption(const void *data, gsize len);

/* The IPTC-IIM block (bare, or Photoshop APP13 resources as libvips keeps
 * it) without the datasets that say where the photo was taken: 2:26 and
 * 2:27 (content location), 2:90 City, 2:92 Sub-location, 2:95
 * Province/State, 2:100 and 2:101 Country. A new block (g_malloc) of
 * *out_len bytes; NULL when the block is damaged (the caller then writes
 * none of it). */
void *gal__iptc_without_location(const void *data, gsize len, gsize *out_len);

#endif
