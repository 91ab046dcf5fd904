/* raw.h: a camera's raw photo (CR2, CR3, NEF, ARW, DNG, RAF, ORF, RW2,
 * PEF...) through libraw, the only file that calls it. decode.c tells a
 * raw by its own bytes first; libraw only ever sees a file gallop took for
 * one. What libraw reads of the maker's directories (date, camera, lens,
 * exposure, orientation) becomes an EXIF block like a JPEG's (exif.h), so
 * everything after the decoder reads a raw as it reads any photo. */
#ifndef GAL_RAW_H
#define GAL_RAW_H

#include <glib.h>
#include <vips/vips.h>

#include "gallop.h"
#include "cancel.h"
#include "decode.h"

/* input.raw: how a raw photo becomes pixels. */
typedef enum gal_raw_mode {
    /* The JPEG the camera embedded, when it covers every size the photo is
     * made at (and has the raw's shape); developed otherwise. */
    GAL_RAW_PREVIEW,
    /* Always developed: demosaiced with the camera's white balance and
     * colour matrix to sRGB, 16 bits a channel. */
    GAL_RAW_DEVELOP,
} gal_raw_mode;

/* The raw photo `file`'s header: an image without pixels, the size it
 * develops to as stored (before its orientation), with its EXIF block and
 * orientation, as a JPEG loader's header has them. Nothing is unpacked.
 * -1 with `err` (GAL_ERR_INPUT, saying what is wrong; the caller names the
 * file) when libraw cannot read it or it declares absurd dimensions. */
int gal__raw_header(const gal_photo_file *file, VipsImage **out, gal_error *err);

/* The raw photo's pixels, in memory, covering `width` x `height` (as
 * stored), per `mode`: the embedded JPEG at the smallest size that covers
 * them (8-bit sRGB), or developed (16-bit sRGB, at half size when that
 * still covers them). Developing is refused before anything is allocated
 * when it would need more than `memory_bytes` (0: no limit); it stops
 * when `watch` does (may be NULL). The image carries the header's EXIF
 * block and orientation. -1 with `err` set. Thread-safe. */
int gal__raw_load(const gal_photo_file *file, gal_raw_mode mode, int width, int height,
    gint64 memory_bytes, gal_watch *watch, VipsImage **out, gal_error *err);

/* How a raw of `file` was made into pixels the last time: "preview" or
 * "develop" on the image gal__raw_load made (NULL for any other image). */
const char *gal__raw_made_by(VipsImage *image);

#endif /* GAL_RAW_H */
