/* quality.c: the quality search (quality.h). Each try encodes the finished
 * picture into memory at one quality, decodes it and scores it against
 * the picture (perceptual.c); the next try is where the scores so far say
 * the target is crossed (along the line through the two nearest tries on
 * either side, or the last two on one side), so a search takes three to
 * five encodes. The bytes kept are those of the try chosen: the file is
 * never encoded again. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "perceptual.h"
#include "quality.h"

/* Encodes the target's search makes at most; the cap's search, when the
 * target's file is over it, makes at most CAP_ENCODES more. */
#define TARGET_ENCODES 6
#define CAP_ENCODES 7
/* dB a quality step adds, before two tries on one side say better: the
 * bench corpus's JPEGs and WebPs gain 0.1 to 0.3 between 40 and 90. */
#define SLOPE_GUESS 0.2
#define SLOPE_LEAST 0.02
/* Bytes halve about every this many quality steps (JPEG and WebP, 50-90),
 * the cap's first guess. */
#define HALVING_STEPS 20.0

typedef struct {
    int quality;
    double score;
    void *data;
    size_t length;
} try_t;

static void
try_clear(try_t *t)
{
    g_free(t->data);
    *t = (try_t) { 0 };
}

static int
encode_at(const gal_format_def *format, const gal_encode *e, int quality, try_t *out,
    gal_error *err)
{
    gal_encode at = *e;
    VipsTarget *target = vips_target_new_to_memory();
    VipsBlob *blob = NULL;
    int failed;

    at.quality = quality;
    failed = format->save(&at, target) != 0;
    failed = vips_target_end(target) != 0 || failed;
    if (!failed)
        g_object_get(target, "blob", &blob, NULL);
    g_object_unref(target);
    if (failed || !blob) {
        if (blob)
            vips_area_unref(VIPS_AREA(blob));
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "encode");
    }
    {
        size_t length = 0;
        const void *bytes = vips_blob_get(blob, &length);

        *out = (try_t) { quality, -1, g_memdup2(bytes, length), length };
    }
    vips_area_unref(VIPS_AREA(blob));
    return 0;
}

static int
score_try(const gal_percept_ref *ref, try_t *t, gal_error *err)
{
    /* Through a source: the loaders gallop leaves unblocked are the
     * source ones (JPEG XL has no other). */
    VipsSource *source = vips_source_new_from_memory(t->data, t->length);
    g_autoptr(VipsImage) decoded = source ? vips_image_new_from_source(source, "", NULL) : NULL;

    if (source)
        g_object_unref(source);
    if (!decoded)
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "decode");
    return gal__percept_score(ref, decoded, &t->score, NULL, err);
}

/* dB per quality step between two tries (at least SLOPE_LEAST). */
static double
slope_of(const try_t *a, const try_t *b)
{
    return MAX(SLOPE_LEAST, fabs(a->score - b->score) / abs(a->quality - b->quality));
}

/* The lowest quality of the format's range that meets goal->target: into
 * *out (the lowest that met it, or the highest when none does). */
static int
search_target(const gal_format_def *format, const gal_encode *e, const gal_quality_goal *goal,
    const gal_percept_ref *ref, gal_quality_choice *out, try_t *chosen, gal_error *err)
{
    /* The lowest try that met the target and the highest that did not
     * (quality 0: none yet); the one before the last, for a slope. */
    try_t pass = { 0 }, fail = { 0 };
    int before_q = 0;
    double before_score = 0;
    int q = format->auto_first +
        (int) lround((goal->target - GAL_TARGET_STANDARD) / SLOPE_GUESS);

    q = CLAMP(q, format->auto_lowest, format->auto_highest);
    for (;;) {
        try_t t;
        double slope = SLOPE_GUESS;
        int next;

        if (encode_at(format, e, q, &t, err) || score_try(ref, &t, err)) {
            try_clear(&t);
            try_clear(&pass);
            try_clear(&fail);
            return -1;
        }
        out->encodes++;
        if (before_q) {
            try_t b = { before_q, before_score, NULL, 0 };

            slope = slope_of(&b, &t);
        }
        before_q = t.quality;
        before_score = t.score;
        if (t.score >= goal->target) {
            try_clear(&pass);
            pass = t;
        }
        else {
            try_clear(&fail);
            fail = t;
        }
        if (pass.quality && fail.quality) {
            double share;

            if (pass.quality - fail.quality <= 1)
                break;
            share = (goal->target - fail.score) / MAX(1e-9, pass.score - fail.score);
            next = fail.quality + (int) ceil(share * (pass.quality - fail.quality));
            next = CLAMP(next, fail.quality + 1, pass.quality - 1);
        }
        else if (pass.quality) {
            if (pass.quality <= format->auto_lowest)
                break;
            /* Just below where the line crosses the target: a miss there
             * brackets it, and the next try is then its crossing. */
            next = (int) ceil(pass.quality - (pass.score - goal->target) / slope) - 1;
            next = CLAMP(next, format->auto_lowest, pass.quality - 1);
        }
        else {
            if (fail.quality >= format->auto_highest)
                break;
            next = (int) ceil(fail.quality + (goal->target - fail.score) / slope);
            next = CLAMP(next, fail.quality + 1, format->auto_highest);
        }
        if (out->encodes >= TARGET_ENCODES)
            break;
        q = next;
    }
    if (pass.quality) {
        try_clear(&fail);
        *chosen = pass;
        return 0;
    }
    /* Nothing met it: the highest quality, which the last try may be. */
    out->unreachable = true;
    if (fail.quality == format->auto_highest) {
        *chosen = fail;
        return 0;
    }
    try_clear(&fail);
    if (encode_at(format, e, format->auto_highest, chosen, err) ||
        score_try(ref, chosen, err)) {
        try_clear(chosen);
        return -1;
    }
    out->encodes++;
    return 0;
}

/* `over` (taken) is over goal->max_bytes: the highest quality below it
 * that is not, into *chosen; quality 1 when none is. */
static int
search_cap(const gal_format_def *format, const gal_encode *e, const gal_quality_goal *goal,
    try_t over, gal_quality_choice *out, try_t *chosen, gal_error *err)
{
    try_t under = { 0 };
    int made = 0;

    while (made < CAP_ENCODES && over.quality > 1 &&
        !(under.quality && over.quality - under.quality <= 1)) {
        int next;
        try_t t;

        if (under.quality) {
            /* Bytes grow about exponentially with quality. */
            double share = log((double) goal->max_bytes / under.length) /
                log((double) over.length / under.length);

            next = under.quality + (int) floor(share * (over.quality - under.quality));
            next = CLAMP(next, under.quality + 1, over.quality - 1);
        }
        else {
            next = (int) floor(over.quality -
                HALVING_STEPS * log2((double) over.length / goal->max_bytes));
            next = CLAMP(next, 1, over.quality - 1);
        }
        if (encode_at(format, e, next, &t, err)) {
            try_clear(&under);
            try_clear(&over);
            return -1;
        }
        made++;
        if ((gint64) t.length <= goal->max_bytes) {
            try_clear(&under);
            under = t;
        }
        else {
            try_clear(&over);
            over = t;
        }
    }
    out->encodes += made;
    if (under.quality) {
        try_clear(&over);
        *chosen = under;
        return 0;
    }
    if (over.quality > 1) {
        try_clear(&over);
        if (encode_at(format, e, 1, &over, err))
            return -1;
        out->encodes++;
    }
    if ((gint64) over.length > goal->max_bytes)
        out->over_cap = true;
    *chosen = over;
    return 0;
}

int
gal__quality_choose(const gal_format_def *format, const gal_encode *e,
    const gal_quality_goal *goal, gal_quality_choice *out, gal_error *err)
{
    g_autoptr(gal_percept_ref) ref = NULL;
    try_t chosen = { 0 };

    memset(out, 0, sizeof *out);
    if (goal->target > 0) {
        if (!(ref = gal__percept_ref_new(e->image, err)) ||
            search_target(format, e, goal, ref, out, &chosen, err))
            return -1;
    }
    else {
        if (encode_at(format, e, goal->quality, &chosen, err))
            return -1;
        out->encodes++;
    }
    if (goal->max_bytes > 0 && (gint64) chosen.length > goal->max_bytes) {
        try_t over = chosen;

        chosen = (try_t) { 0 };
        if (search_cap(format, e, goal, over, out, &chosen, err))
            return -1;
        out->below_target = true;
        if (ref) {
            if (score_try(ref, &chosen, err)) {
                try_clear(&chosen);
                return -1;
            }
            /* A file the cap lowered may still meet the target when the
             * target's search stopped above its lowest passing quality. */
            out->below_target = chosen.score < goal->target;
        }
    }
    out->quality = chosen.quality;
    out->score = chosen.score;
    out->data = chosen.data;
    out->length = chosen.length;
    return 0;
}

void
gal__quality_choice_clear(gal_quality_choice *choice)
{
    g_free(choice->data);
    memset(choice, 0, sizeof *choice);
}
