/* preset.h: the loaded preset: its sections and stage instances (struct gal_preset). */
#ifndef GAL_PRESET_H
#define GAL_PRESET_H

#include "internal.h"
#include "captions.h"
#include "format.h"
#include "raw.h"
#include "resample.h"
#include "schema.h"
#include "stage.h"
#include "template.h"

typedef enum gal_fail_on {
    GAL_FAIL_ON_NONE,
    GAL_FAIL_ON_TRUNCATED,
    GAL_FAIL_ON_ERROR,
    GAL_FAIL_ON_WARNING,
} gal_fail_on;

/* input.pairs: which file of a raw + JPEG pair of one shot is read. */
typedef enum gal_pairs {
    GAL_PAIRS_JPEG,
    GAL_PAIRS_RAW,
} gal_pairs;

/* output.quality auto: each file at the lowest quality that meets
 * output.target (quality.c). */
#define GAL_QUALITY_AUTO 0

typedef struct gal_input_opts {
    char **paths;
    char **include;
    char **exclude;
    bool recursive;
    gal_fail_on fail_on;
    double max_megapixels;
    double max_seconds;     /* wall time per photo */
    int max_memory_mb;      /* pixels held in memory per photo */
    gal_raw_mode raw;       /* how a camera's raw photo becomes pixels */
    gal_pairs pairs;        /* which of a raw + JPEG pair is read */
} gal_input_opts;

/* The colour space outputs are in, and the profile they embed
 * (output.profile). */
typedef enum gal_out_profile {
    GAL_PROFILE_SRGB,       /* sRGB, no profile embedded (the web's default) */
    GAL_PROFILE_DISPLAY_P3, /* Display P3, its profile embedded */
    GAL_PROFILE_KEEP,       /* an RGB photo's own space and profile; else sRGB */
} gal_out_profile;

typedef struct gal_output_opts {
    /* After the last resize, when it made the photo smaller: amount is a
     * gal_sharpen, medium a gal_medium. */
    gal_sharpening sharpen;
    int ppi;                /* pixels per inch: print sharpening, the files' resolution */
    char *dir;
    gal_template *name;
    gal_format format;
    /* Each photo's finished picture in each of these widths (px, largest
     * first once loaded) and each of these formats; none: one file, as the
     * stages leave it, in `format`. See gal__output_variants. */
    gal_int_list widths;
    gal_int_list formats;   /* gal_format values */
    int quality;            /* 1..100, or GAL_QUALITY_AUTO: the target decides */
    /* output.target as given (a level's name or a score) and as a score
     * (dB, perceptual.h), used when quality is auto. */
    char *target;
    double target_score;
    int max_bytes;          /* each file at most this many bytes; 0: no cap */
    bool progressive;
    gal_subsampling subsampling;
    char **metadata;        /* keep, strip, default, or EXIF tag names and groups */
    gal_color background;   /* alpha is flattened onto it for a format without */
    gal_out_profile profile; /* the space pixels are decoded into, and written in */
    bool remove_location;   /* under any metadata level: GPS and places */
    bool remove_person;     /* under any metadata level: people shown, face regions */
    /* FALSE: no file per photo; each photo only gives its tile to the
     * gathering stage, which the preset must have (checked at load). */
    bool photos;
    /* The credits written into every output (EXIF Artist and Copyright,
     * XMP dc:creator and dc:rights); NULL: the photo's own, if any. */
    gal_template *artist;
    gal_template *copyright;
} gal_output_opts;

extern const gal_section gal__input_section;
extern const gal_section gal__output_section;

typedef struct gal_stage_instance {
    const gal_stage_def *def;
    gal_section section; /* def's params viewed as a section */
    void *opts;
    void *shared;
    gal_loc loc;
    gal_loc *locs; /* per param: where its value was given (gal_stage_ctx.locs) */
} gal_stage_instance;

/* The context a stage instance's functions get. */
static inline gal_stage_ctx
gal__stage_ctx(const gal_stage_instance *st)
{
    return (gal_stage_ctx) { st->opts, st->shared, st->loc, FALSE, st->locs };
}

struct gal_preset {
    char *path;          /* the file loaded (or the virtual path) */
    char *name;
    char *description;
    GStringChunk *strings; /* interned file names for every gal_loc */
    gal_input_opts *input;
    gal_output_opts *output;
    GArray *stages;      /* gal_stage_instance */
    gal_captions *captions; /* where {caption} comes from */
    /* How long gal_preset_load took (reading, extends, the captions
     * table, prepare()), in seconds: part of every run of it (run.c). */
    double load_seconds;
};

/* Does any template of the preset (a stage's or output.name) show {field}? */
gboolean gal__preset_uses_field(const gal_preset *preset, const char *field);

/* Has the preset a gathering stage (contact-sheet)? */
gboolean gal__preset_has_gather(const gal_preset *preset);

#endif /* GAL_PRESET_H */
