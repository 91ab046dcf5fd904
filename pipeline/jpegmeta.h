/* jpegmeta.h: a JPEG's metadata replaced without touching its image data
 * (jpegmeta.c), for publishing an original under the metadata policy. */
#ifndef GAL_JPEGMETA_H
#define GAL_JPEGMETA_H

#include <glib.h>

#include "gallop.h"

/* The metadata to put in the place of the JPEG's own; a NULL blob puts
 * none of that kind. */
typedef struct gal_jpeg_metadata {
    const void *exif;  /* an EXIF block, "Exif\0\0" first (gal_meta.exif) */
    size_t exif_len;
    const void *xmp;   /* an XMP packet, with or without the APP1 namespace header */
    size_t xmp_len;
    const void *iptc;  /* a Photoshop APP13 payload, "Photoshop 3.0\0" first */
    size_t iptc_len;
} gal_jpeg_metadata;

/* Append to `out` the JPEG `jpeg` with its metadata replaced by `meta`:
 * every segment up to the start of scan is kept as it is (quantisation
 * and Huffman tables, frame header, restart interval, the JFIF and Adobe
 * segments, the ICC profile) except EXIF, XMP (extended XMP too), IPTC,
 * comments and any other application segment (MPF's preview images, a
 * camera maker's), which are dropped; everything from the start of scan
 * on is copied byte for byte. The file is not trusted: -1 with `err`
 * (GAL_ERR_INPUT, naming the offset) when it is not a JPEG, a segment's
 * length is short or runs past the end, or no scan starts; `out` then
 * holds a part of the output. */
int gal__jpeg_replace_metadata(const guchar *jpeg, size_t len, const gal_jpeg_metadata *meta,
    GByteArray *out, gal_error *err);

#endif /* GAL_JPEGMETA_H */
