/* heif.h: a HEIF photo (HEIC, AVIF) decoded by libheif, called here and
 * nowhere else, straight to 8-bit RGB. libvips 8.14's loader asks libheif
 * for interleaved RGB, 16 bits a sample above 8 bits, which libheif makes
 * in several steps beside the decoder's own planes: a 12 MP 10-bit frame
 * peaked at 251 MiB in a run through it (8 bits: 148). Planar RGB is
 * fewer steps, and gallop interleaves it at 8 bits itself: 162 MiB (8
 * bits: 129). Every picture gallop makes is 8 bits a channel (stages see
 * 8-bit sRGB), so nothing an output keeps is lost. The header, the
 * embedded thumbnail and the output encoders stay libvips'. */
#ifndef GAL_HEIF_H
#define GAL_HEIF_H

#include <glib.h>
#include <vips/vips.h>

#include "gallop.h"
#include "decode.h"

/* The primary image of the HEIF `file`, decoded whole into memory by
 * libheif as 8-bit sRGB (RGBA with alpha; 10 and 12 bits rounded to the
 * nearest level), turned by the file's own transformations (irot, imir)
 * as libvips' loader turns it. It carries `header`'s metadata (libvips'
 * header of the file: EXIF, ICC profile, XMP), and must have its size.
 * `strict`: libheif's strict decoding (input.fail-on warning). -1 with
 * the libvips error set (libheif's message). Thread-safe. */
int gal__heif_load(const gal_photo_file *file, VipsImage *header, gboolean strict,
    VipsImage **out);

#endif /* GAL_HEIF_H */
