/* quality.h: the encoder quality a file is written at when the preset asks
 * for a look rather than a number (output.quality: auto, output.target)
 * or caps its size (output.max-bytes). */
#ifndef GAL_QUALITY_H
#define GAL_QUALITY_H

#include "internal.h"
#include "error.h"
#include "format.h"

/* output.target's levels, dB (perceptual.h): docs/quality.md says how
 * they were chosen on the bench corpus. */
#define GAL_TARGET_HIGH 28.0
#define GAL_TARGET_STANDARD 25.0
#define GAL_TARGET_SMALL 23.0

/* What the searches of one picture's files share (its formats at one
 * size): the picture prepared for scoring, and its sample with its own
 * preparation, made by the first search and taken by the next when its
 * picture has the same pixels, byte for byte (they are made from the
 * pixels alone, so a file's bytes are the same with or without it). It
 * holds one picture's at a time: a picture of other pixels replaces them.
 * One photo's, used on one thread. */
typedef struct gal_quality_memo gal_quality_memo;

gal_quality_memo *gal__quality_memo_new(void);
void gal__quality_memo_free(gal_quality_memo *memo);   /* NULL: nothing */
/* How many pictures it has prepared so far (one for all the files of one
 * picture). */
int gal__quality_memo_prepared(const gal_quality_memo *memo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gal_quality_memo, gal__quality_memo_free)

/* What the file must be: at least `target` (dB, perceptual.h's score;
 * 0: no target, the file is encoded at `quality`) and at most `max_bytes`
 * (0: no cap). */
typedef struct gal_quality_goal {
    double target;
    int quality;      /* without a target: the quality asked for, 1..100 */
    gint64 max_bytes;
} gal_quality_goal;

/* The encode chosen, and how it was chosen. */
typedef struct gal_quality_choice {
    int quality;         /* the encoder's, 1..100 */
    double score;        /* dB against the picture; < 0: not measured (no target) */
    double target;       /* dB the file was held to: the goal's, moved by the format's
                          * auto_shift; 0: no target */
    int encodes;         /* how many encodes of the whole picture the choice took, this one
                          * included */
    int sample_encodes;  /* how many of the picture's sample (quality.c: a large picture's
                          * search tries its qualities on a sample first) */
    bool below_target;   /* max_bytes forced it below the target, or below `quality` */
    bool over_cap;       /* even quality 1 is over max_bytes: this is quality 1 */
    bool unreachable;    /* even the format's highest quality misses the target: this is it */
    void *data;          /* the file's bytes (g_free) */
    size_t length;
} gal_quality_choice;

/* Choose the quality of `e->image` (in memory: it is encoded several
 * times) in `format` for `goal`: the lowest quality of the format's
 * search range whose decoded picture scores at least the target, at most
 * a few encodes (the first at the format's starting point, then along
 * the measured scores); then, when that is over the cap, the highest
 * quality under it. Only the pixels and the goal decide, so the same
 * picture gives the same bytes on any thread, run or shard. A large
 * picture's qualities are tried on a sample of it, and each quality the
 * sample finds is encoded and scored whole; `out->score` is always the
 * whole file's. 0 with `out`
 * filled (gal__quality_choice_clear), or -1 with `err` set. */
int gal__quality_choose(const gal_format_def *format, const gal_encode *e,
    const gal_quality_goal *goal, gal_quality_choice *out, gal_error *err);
/* The same, with the picture's preparation taken from and left in `memo`
 * (borrowed; NULL: none), for the next file of the same picture. */
int gal__quality_choose_shared(const gal_format_def *format, const gal_encode *e,
    const gal_quality_goal *goal, gal_quality_memo *shared, gal_quality_choice *out,
    gal_error *err);
void gal__quality_choice_clear(gal_quality_choice *choice);

#endif /* GAL_QUALITY_H */
