/* format_png.c: PNG, lossless (output.quality means nothing to it), with
 * alpha, which every browser shows. Written by pngio.c rather than libvips,
 * for the text chunks (caption, credits) libvips 8.14 does not write. */
#include "internal.h"
#include "format.h"
#include "pngio.h"

static int
png_write(const gal_encode *e, int fd, gal_watch *watch, GChecksum *sum, int *write_errno,
    gal_error *err)
{
    return gal__png_write(fd, e->image, e->meta, e->progressive, watch, sum, write_errno, err);
}

const gal_format_def gal_format_png = {
    .ext = "png", .mime = "image/png",
    .alpha = true, .every_browser = true, .sheets = true,
    .write = png_write,
};
