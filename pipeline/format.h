/* format.h: the output format descriptor every format_*.c fills in, and the
 * format table (formats.def). */
#ifndef GAL_FORMAT_H
#define GAL_FORMAT_H

#include <stdbool.h>

#include "internal.h"
#include "cancel.h"
#include "error.h"
#include "metadata.h"

/* A format is its index in formats.def. */
typedef enum gal_format {
#define GAL_FORMAT(up, low) GAL_FORMAT_##up,
#include "formats.def"
#undef GAL_FORMAT
    GAL_N_FORMATS /* not a format: how many there are */
} gal_format;

/* Their names ("jpeg", "png", ...) in formats.def's order, NULL-terminated:
 * output.format's choices (GAL_PARAM_ENUM). */
extern const char *const gal_format_names[];

typedef enum gal_subsampling {
    GAL_SUBSAMPLING_AUTO,
    GAL_SUBSAMPLING_420,
    GAL_SUBSAMPLING_444,
} gal_subsampling;

/* One file to encode, as a format's encoder gets it: the finished picture,
 * its metadata fields as output.metadata left them (what a libvips saver
 * writes), and that metadata as gallop's own writers take it. */
typedef struct gal_encode {
    VipsImage *image;
    const gal_meta *meta;        /* strip_all: nothing besides pixels */
    int quality;                 /* output.quality, 1..100 */
    bool progressive;            /* output.progressive: interlaced */
    gal_subsampling subsampling; /* output.subsampling */
    bool trial;                  /* only to be scored, never written (quality.c: a try on a
                                  * large picture's sample): the format may take a faster
                                  * setting whose scores follow the written file's better */
} gal_encode;

/* An output format. Each format_<name>.c defines one, gal_format_<name>;
 * the generic code (output.c, preset.c, report.c, gather.c, init.c, the
 * gallery and contact-sheet stages) asks the table and never names one. */
typedef struct gal_format_def {
    const char *ext;      /* the extension {ext} gives, without the dot */
    const char *ext_also; /* another extension that means the format ("jpeg"); NULL: none */
    const char *mime;     /* a gallery <source>'s type */
    /* For a format not every libvips writes: the class of the libvips
     * operation `save` calls (libvips blocks and unblocks by class) and the
     * library libvips needs for it. A preset that asks for the format fails
     * to load where the class is missing; gal_init leaves the class open
     * should libvips count it as untrusted. NULL: every libvips writes it. */
    const char *saver;
    const char *library;
    /* The libvips module (vips-<module>.so) that holds the saver where
     * libvips is built with modules; gal_init opens it. NULL: none. */
    const char *module;
    bool alpha;         /* keeps transparency; false: flattened onto output.background */
    bool every_browser; /* every browser shows it, old ones too: a gallery's <img> */
    bool sheets;        /* a contact sheet may be written in it (its file name's extension) */
    /* output.quality auto (quality.c): the qualities its search may
     * choose, lowest..highest on the encoder's own scale, and where it
     * starts for the standard target (the median quality that target
     * takes on the bench corpus; other targets start as far off as the
     * usual dB per quality step says); 0: the format has no quality
     * (lossless) and is written as it is. */
    int auto_first, auto_lowest, auto_highest;
    /* dB the format's files are held to against output.target's score:
     * each level means "as good as this format's own quality 85 at its
     * worst on the bench's 1080 px corpus" (docs/quality.md), and the
     * metric scores a format that smooths fine texture (WebP) lower at the
     * same look and size. 0 for most. */
    double auto_shift;
    /* dB a large picture's sample (quality.c), encoded as a trial, is
     * taken to score above the picture until a whole encode says how much
     * it does for this photo: about the median on the bench's 1080 px
     * corpus (docs/quality.md). 0: not measured, quality.c's guess. */
    double auto_sample_lift;
    /* A large picture's first whole encode that meets the target is kept,
     * where quality.c would otherwise try a lower one the sample says will
     * do: for a format whose whole encode costs many times its metric. */
    bool auto_keep_first_pass;
    /* The encoder, one of two. save: through libvips into `target`, 0 or
     * -1 with libvips' error; the metadata is what `image` carries.
     * write: a writer of gallop's own, straight into the file `fd`, with
     * pngio.h's contract (every byte added to `sum`, a failed write() in
     * *write_errno). */
    int (*save)(const gal_encode *e, VipsTarget *target);
    int (*write)(const gal_encode *e, int fd, gal_watch *watch, GChecksum *sum, int *write_errno,
        gal_error *err);
} gal_format_def;

/* The table, indexed by gal_format. */
extern const gal_format_def *const gal__formats[];

/* Its name as a preset gives it ("jpeg"); static. */
const char *gal__format_name(gal_format format);
/* The extension {ext} gives ("jpg"); static. */
const char *gal__format_ext(gal_format format);
/* The format a name from gal__format_name stands for; JPEG for any other. */
gal_format gal__format_of_name(const char *name);
/* The format a file's extension (after the last '.' of `path`, in any
 * case) names, or -1. */
int gal__format_of_file(const char *path);
/* The library this libvips lacks to write `format`, or NULL when it
 * writes it. */
const char *gal__format_missing(gal_format format);

/* output.quality (1..100) as JPEG XL's butteraugli distance (format_jxl.c):
 * 0.1 at 100, 1.0 at 90, 1.45 at 85, up to 15 at 1. Pure. */
double gal__jxl_distance(int quality);

#endif /* GAL_FORMAT_H */
