/* decode.h: a photo file to a libvips image. The format is told from the
 * file's first bytes by gallop itself, never from its name and never by
 * libvips' sniffing, which offers the file to every loader (blocked ones
 * included, and some hang on hostile input); anything but the formats
 * below is refused before any decoder sees it, and the matching loader is
 * called directly, reading from the one descriptor the file was opened
 * with (nothing can be swapped in between two opens). */
#ifndef GAL_DECODE_H
#define GAL_DECODE_H

#include <sys/stat.h>

#include <glib.h>
#include <vips/vips.h>

#include "gallop.h"

typedef enum gal_image_format {
    GAL_IMAGE_UNKNOWN,
    GAL_IMAGE_JPEG,
    GAL_IMAGE_PNG,
    GAL_IMAGE_WEBP,
    GAL_IMAGE_TIFF,
    GAL_IMAGE_HEIF, /* HEIC and AVIF */
    GAL_IMAGE_GIF,
    GAL_IMAGE_JXL,  /* JPEG XL, bare codestream or in its container */
    GAL_IMAGE_RAW,  /* a camera's raw photo, read by libraw (raw.h) */
    GAL_IMAGE_SVG,  /* only ever for a preset's own logo (gal__logo_load) */
} gal_image_format;

/* "JPEG", "PNG"...: static. */
const char *gal__image_format_name(gal_image_format format);

/* The format `head` (the first `len` bytes of a file) starts like; when
 * it is none gallop reads, *hint (may be NULL) receives words for its kind
 * instead ("gzip-compressed data (an .svgz?)", "text", "data of an unknown
 * kind"; static), which never show its content. A camera's raw photo
 * (GAL_IMAGE_RAW) is told by its own signature, or for the kinds that are
 * TIFFs (NEF, ARW, DNG, PEF...) by their first directory, which needs the
 * first few KiB (GAL_SNIFF_BYTES); *hint then names its kind ("Nikon
 * NEF"). */
#define GAL_SNIFF_BYTES 16384
gal_image_format gal__image_sniff(const guint8 *head, gsize len, const char **hint);

/* A photo file, open: regular (never a FIFO or device, never blocking),
 * of a format gallop reads. */
typedef struct gal_photo_file {
    int fd;
    gal_image_format format;
    struct stat st;
    const char *raw_kind; /* GAL_IMAGE_RAW: "Canon CR2", "DNG"...; static */
} gal_photo_file;

/* Open `path` as a photo. -1 with `err` (GAL_ERR_INPUT, the path left to
 * the error's subject) when it is not a file, cannot be read, or is not
 * a format gallop reads. */
int gal__photo_open(const char *path, gal_photo_file *file, gal_error *err);
void gal__photo_close(gal_photo_file *file);

/* The libvips image of the file, by its own loader, streamed
 * (sequential), decoded per `fail_on`: nothing is decoded until pixels
 * are asked for. `shrink` (1, 2, 4 or 8) asks JPEG and WebP decoders for
 * a smaller image, as libjpeg's DCT scaling gives it; other formats ignore
 * it. A HEIF whose streams code a frame larger than it declares is
 * refused before libheif opens it (heif_frames.h). -1 with the libvips
 * error left set. */
int gal__photo_load(const gal_photo_file *file, VipsFailOn fail_on, int shrink,
    VipsImage **out);

/* A HEIF photo's embedded thumbnail, by its own loader, streamed, as
 * gal__photo_load gives the photo; libvips gives the primary image
 * instead when the file has no thumbnail (told apart by its size); its
 * frames checked as gal__photo_load checks them. -1 with the libvips
 * error left set, also for a photo that is not HEIF. */
int gal__photo_load_thumbnail(const gal_photo_file *file, VipsFailOn fail_on, VipsImage **out);

/* Does a thumbnail of thumb_width x thumb_height serve a photo stored as
 * width x height wherever it is needed at up to need_width x need_height
 * (stored orientation): at least that large, and the photo's shape, to
 * the thumbnail's rounding (a pixel). Pure. */
gboolean gal__thumbnail_covers(int thumb_width, int thumb_height, int width, int height,
    int need_width, int need_height);

/* The largest shrink-on-load factor whose output still covers `width` x
 * `height` (the file's stored orientation) for this format; 1 when the
 * format has none. A raw's is 2 when libraw develops it at half size
 * (raw.c). Pure. */
int gal__photo_shrink(gal_image_format format, int stored_width, int stored_height, int width,
    int height);

/* The memory, in bytes, a photo takes while it is decoded and finished,
 * estimated from its header, so that the run's memory budget (admit.h)
 * can admit it: what its format's decoder allocates for a file stored as
 * width x height with `bands` bands of `band_bytes` bytes, decoded at
 * 1/shrink (decode.c gives each format's factor, measured), plus gallop's
 * own copies of the picture it makes of it, out_width x out_height at
 * 8 bits (held for the placeholder and the encoder, turned upright), plus
 * libvips' buffers for one photo. Pure. */
gint64 gal__photo_memory(gal_image_format format, int width, int height, int bands,
    int band_bytes, int shrink, int out_width, int out_height);

/* A preset's own logo (PNG, JPEG, WebP, GIF, TIFF or SVG), decoded into
 * memory, random access. An SVG is drawn `svg_width` pixels wide (or at
 * its own size, if larger), so every mark scaled from it is a reduction,
 * but to no more than `max_pixels`; a raster logo with more is refused
 * from its header. Photos never reach the SVG loader: gal__photo_open
 * refuses SVG. -1 with `err` (GAL_ERR_PRESET) set. */
int gal__logo_load(const char *path, gint64 max_bytes, gint64 max_pixels, int svg_width,
    VipsImage **out, gal_error *err);

#endif /* GAL_DECODE_H */
