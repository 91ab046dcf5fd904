/* output.h: output names and the encoder. */
#ifndef GAL_OUTPUT_H
#define GAL_OUTPUT_H

#include "internal.h"
#include "cancel.h"
#include "outdir.h"
#include "preset.h"
#include "quality.h"

/* output.name when output.widths is given and the name is not. */
#define GAL_DEFAULT_WIDTHS_NAME "{dir}/{stem}-{width}.{ext}"

/* One file a photo makes: its finished picture at a width, in a format. */
typedef struct gal_variant {
    int width;         /* px; 0: the finished picture as it is (no output.widths) */
    gal_format format;
} gal_variant;

/* The files each photo makes, in order: every width of output.widths
 * (largest first), each in every format of output.formats (in their
 * order); without widths one variant of width 0, without formats
 * output.format. The first is the largest, the one the others are scaled
 * from. New array of *n. */
gal_variant *gal__output_variants(const gal_output_opts *output, int *n);
/* Put output.widths largest first (once, when the preset is loaded). */
void gal__output_sort_widths(gal_output_opts *output);

/* output.target's score: a level's name (any case) or a number from 15 to
 * 50, into *score; -1 for anything else. */
int gal__output_target_score(const char *text, double *score);

/* Output file name for a photo: the rendered name template, checked to stay
 * inside `dir`. Returns a new path or NULL with `err` set. */
char *gal__output_path(const gal_output_opts *output, const char *dir,
    const gal_facts *facts, gal_error *err);
/* What every output path beneath `dir` starts with: `dir` as
 * g_build_filename joins it to a name ("out/" for "out" and for "out/",
 * "/" for "/"). New string. */
char *gal__output_prefix(const char *dir);
/* gal__output_path() for the folder whose gal__output_prefix() is
 * `prefix`, the name rendered into `name`, a buffer the caller keeps from
 * photo to photo (a plan names a million): the same path, built by one
 * copy of each. */
char *gal__output_path_after(const gal_output_opts *output, const char *prefix,
    const gal_facts *facts, GString *name, gal_error *err);

/* What an output's writer knows of its photo: the preset name for
 * Software, the caption for PNG text, the run's cancel; the written file's
 * size and SHA-256 come back. */
typedef struct gal_write_info {
    const char *preset_name;   /* NULL: Software is "gallop VERSION" */
    const char *caption;       /* the photo's caption, for its metadata; NULL: none */
    const gal_facts *facts;    /* what output.artist and .copyright show; NULL: none */
    gal_watch *watch;          /* the photo's; NULL: cannot be stopped */
    gal_quality_memo *memo;    /* the photo's, shared by its files' quality searches; NULL:
                                * none (quality.h) */
    gint64 bytes;              /* out */
    char sha256[65];           /* out, hex */
    /* out, when the quality was searched for (output.quality auto or
     * output.max-bytes; 0 otherwise): the quality chosen, its score (dB;
     * < 0: not measured), and whether the cap forced it below the target
     * (or below output.quality), or could not be met at all. */
    int quality;
    double score;
    double target;             /* out: dB it was held to (the format's level of the target) */
    int encodes;               /* out: how many the search made */
    bool below_target;
    bool over_cap;
    bool unreachable;
} gal_write_info;

/* Encode `image` to `rel` beneath the output folder `dir` atomically
 * (a temporary file beside it, then a rename), folders made beneath the
 * folder as needed, never through a link. `info` may be NULL. */
int gal__output_write_info(const gal_output_opts *output, VipsImage *image,
    const gal_out_dir *dir, const char *rel, gal_write_info *info, gal_error *err);

#endif /* GAL_OUTPUT_H */
