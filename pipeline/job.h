/* job.h: one photo on one worker: decoded once, each preset's stages, its
 * outputs written. */
#ifndef GAL_JOB_H
#define GAL_JOB_H

#include "internal.h"
#include "about.h"
#include "admit.h"
#include "cancel.h"
#include "captions.h"
#include "outdir.h"
#include "output.h"
#include "preset.h"

/* One photo on one worker. Created, run and freed on that worker. */
typedef struct gal_job gal_job;

struct gal_job {
    const gal_preset *preset;
    const char *input;         /* borrowed from the plan */
    const char *input_root;    /* the input folder it was found in; NULL: named itself */
    gboolean follow_links;     /* --follow-symlinks */
    const char *output_path;   /* final path, borrowed from the plan */
    const gal_out_dir *out_dir; /* the output folder, open */
    char *output_rel;          /* the output beneath it (owned): the first variant's */
    /* Every file to write (output.widths x output.formats; the first is
     * output_rel, the largest): the variants borrowed from the run, their
     * paths beneath the output folder owned, and what was written of each
     * (files[0] is also out_width, out_height, out_bytes, out_sha256). */
    int n_variants;
    const gal_variant *variants;
    char **variant_rels;
    guint64 write_files;       /* bit v: write variant v (the others are up to date) */
    struct gal_job_file {
        int width, height;
        gint64 bytes;
        char sha256[65];
    } *files;
    gal_facts facts;           /* what templates can show of this photo */
    GStringChunk *strings;     /* owns the facts' strings */
    int out_width, out_height; /* set when the job succeeds */
    int gather_index;          /* 1-based place in a gathering stage's order */
    VipsImage *gather_item;    /* what the gathering stage took of this photo */
    /* For the run report: the caption a stage showed and where it came
     * from ("exif:ImageDescription", a sidecar path...), in `strings`;
     * NULL: none. */
    const char *caption;
    const char *caption_source;
    /* Files the output depends on besides the photo and the preset (a
     * caption sidecar): see gal__job_depend. NULL until the first. */
    GPtrArray *depends;
    gal_watch *watch;          /* the photo's budget and cancel; NULL: none */
    gint64 out_bytes;          /* set when the job succeeds */
    char out_sha256[65];       /* set when the job succeeds, hex */
    /* Make the output file; else only the item for the gathering stage
     * (the output is up to date, or the preset makes no file per photo). */
    gboolean make_output;
    /* Make the item for the gathering stage (its pages, or a shard's kept
     * items, are stale). */
    gboolean make_item;
    /* Run alone after a failure (solo.h): the decode is checked on its
     * own first, so a broken photo is told from a failing stage or encoder. */
    gboolean solo;
    gboolean caption_cut;      /* a caption-burn stage cut the caption to fit */
    /* Warnings about this photo (gal_photo_notes.warnings), one per line,
     * in `strings`; NULL: none. */
    const char *warnings;
    /* The photo's own size, upright (set when it is decoded): whether a
     * resize made it smaller, for output.sharpen. */
    int photo_width, photo_height;
    /* What a site shows of the photo, for the run report: "key=value"
     * strings (exif.h's keys, camera, lens, orientation, and color and
     * placeholder from the finished image), owned; NULL until the header
     * is read. */
    GPtrArray *about;
};

/* job->about as a new shared block (manifest.h: gal__about_unref it); NULL for NULL. */
gal_about *gal__about_from_array(const GPtrArray *about);

/* The format names a report and a gallery give outputs. */

/* GAL_META_OUTPUTS: the files a photo's item stands for, for a gathering
 * stage that links to them (the gallery): one line per variant,
 * "REL\tWIDTH\tHEIGHT\tFORMAT", REL beneath the output folder, widest
 * first. Set by the engine on the item after the stage made it. */
void gal__item_set_outputs(VipsImage *item, const char *rel, int width, int height,
    gal_format format);
/* Add one more variant line to GAL_META_OUTPUTS (another width or format of
 * the same photo), after gal__item_set_outputs. */
void gal__item_add_output(VipsImage *item, const char *rel, int width, int height,
    gal_format format);
/* Add the SHA-256 of the item's file `rel` (as its record keeps it) to
 * GAL_META_DIGESTS, for a stage that offers the file in a zip; an unknown
 * digest adds nothing. */
void gal__item_add_digest(VipsImage *item, const char *rel, const gal_sha256 *sha256);

/* The about key of a photo's label on pages whose items need no pixels
 * (GAL_META_LABEL, escaped: gal__about_value_escape). */
#define GAL_ABOUT_PAGE_LABEL "page_label"
/* ... and its sort time (gather.h: gal__sort_time), in seconds (exec.c). */
#define GAL_ABOUT_PAGE_TIME "page_time"
/* Photo `photo`'s item for a text page (a gallery's) made from what its
 * record keeps (its label, placeholder and colour in `about`), without
 * opening the photo: a 1x1 image with GAL_META_LABEL, GAL_META_PLACEHOLDER
 * and GAL_META_COLOR; the caller adds GAL_META_OUTPUTS. NULL when the
 * record lacks any of them (made by an older gallop, or by a preset whose
 * pages need pixels). */
VipsImage *gal__item_from_about(const gal_about *about);


/* Name, stem, output extension, preset, index and count. */
void gal__facts_from_path(const gal_preset *preset, const char *path, int index, int count,
    gal_facts *facts, GStringChunk *strings);


/* {dir}: the folder of `rel` (a photo's path within its input folder),
 * "" at the top. */
void gal__facts_set_dir(gal_facts *facts, const char *rel, GStringChunk *strings);

/* Add the EXIF facts of a photo, reading its header only. */
int gal__photo_facts(const gal_preset *preset, const gal_photo_ref *photo, gal_facts *facts,
    GStringChunk *strings, gal_error *err);

/* The same for one photo and several presets (one job each, all with the
 * same input path): the header is read once, every preset checks its
 * pixel limit and takes its facts from it, and the photo is decoded once
 * (per input.fail-on) at the largest size any of them needs, upright, as
 * 8-bit sRGB; with several users that decode is held in memory and scaled
 * down to each preset's own size. The jobs then run one after another on
 * the calling thread. errs[k] (clear on entry) receives job k's failure;
 * one job failing does not stop the others.
 *
 * `digest` (may be NULL) with an empty `hex` asks for the photo's content
 * digest (XXH3-128, digest.h): it is taken from the descriptor the photo
 * is then decoded from, before any of it is decoded, so it is the digest
 * of that very file (nothing can be swapped in between) and a photo
 * changed half-way through is seen as changed by the next run. A digest
 * that cannot be taken fails the jobs that make an output file (their
 * record needs it), not those that only make an item.
 *
 * Nothing is decoded before the run's memory budget `admit` (NULL: none)
 * admits the photo, with its estimate from the header (decode.h); the
 * photo's time budget counts from then. *admitted_bytes receives what it
 * was admitted with, or -1 when it was not (it failed before): the caller
 * gives that back (gal__admit_give) once the photo's images are released
 * (gal__watch_end). */
typedef struct gal_photo_digest {
    char hex[65];   /* in: "" to take it, else kept; out: the digest */
    double seconds; /* out: the time it took; 0 when not taken */
} gal_photo_digest;

void gal__photo_run(gal_job *const *jobs, int n, gal_photo_digest *digest, gal_admit *admit,
    gint64 *admitted_bytes, gal_error *errs);

#endif /* GAL_JOB_H */
