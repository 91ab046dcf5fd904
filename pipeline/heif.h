/* heif.h: a HEIF photo (HEIC, AVIF) of more than 8 bits decoded by
 * libheif, called here and nowhere else, straight to 8-bit RGB. libvips
 * 8.14's loader asks libheif for interleaved RGB of 16 bits a sample,
 * which libheif makes in several steps beside the decoder's own planes:
 * a run over one 12 MP 10-bit phone HEIC peaked at 251 MiB through it.
 * Planar RGB is fewer steps, and gallop interleaves it at 8 bits itself:
 * 162 MiB. Every picture gallop makes is 8 bits a channel (stages see
 * 8-bit sRGB), so nothing an output keeps is lost. An 8-bit HEIC decodes
 * to the same pixels either way, but stays with libvips' loader: one
 * alone took 129 MiB this way against 148, yet over the bench's phone set
 * at -j 2 the peaks were alike (144-166 MiB against 145-149), libvips'
 * the steadier. The header, the embedded thumbnail and the encoders stay
 * libvips'. */
#ifndef GAL_HEIF_H
#define GAL_HEIF_H

#include <glib.h>
#include <vips/vips.h>

#include "gallop.h"
#include "decode.h"

/* The primary image of the HEIF `file` (of any depth), decoded whole
 * into memory by libheif as 8-bit sRGB (RGBA with alpha; 10 and 12 bits
 * rounded to the nearest level), turned by the file's own transformations (irot, imir)
 * as libvips' loader turns it. It carries `header`'s metadata (libvips'
 * header of the file: EXIF, ICC profile, XMP), and must have its size.
 * `strict`: libheif's strict decoding (input.fail-on warning). -1 with
 * the libvips error set (libheif's message, or heif_frames.h's when a
 * stream codes a frame larger than declared). Thread-safe. */
int gal__heif_load(const gal_photo_file *file, VipsImage *header, gboolean strict,
    VipsImage **out);

#endif /* GAL_HEIF_H */
