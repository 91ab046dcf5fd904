/* quality.c: the quality search (quality.h). A try encodes a picture into
 * memory at one quality, decodes it and scores it against the picture
 * (perceptual.c); the next try is where the scores so far say the target
 * is crossed (along the line through the two nearest tries on either side,
 * or the last two on one side).
 *
 * A large picture is searched on a sample of it: twelve 128 px tiles,
 * chosen by their detail (perceptual.c), laid side by side. Its tries cost
 * a seventh of the picture's; the quality they find is then encoded whole
 * and scored whole, and that score decides: when the whole misses the
 * target, the sample's target is raised by what the sample and the whole
 * were seen to differ by, and the search goes on. The bytes kept are those
 * of a whole encode that met the target: the file is never encoded again.
 * The sample's tries are trials (format.h): a format may encode them at a
 * faster setting whose scores follow the whole file's. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "perceptual.h"
#include "quality.h"

/* Encodes the target's search makes at most on the whole picture (and on
 * its sample, when it has one); the cap's search, when the target's file
 * is over it, makes at most CAP_ENCODES more. */
#define TARGET_ENCODES 6
#define SAMPLE_ENCODES 10
#define CAP_ENCODES 7
/* dB a quality step adds, before two tries on one side say better: the
 * bench corpus's JPEGs and WebPs gain 0.1 to 0.3 between 40 and 90. */
#define SLOPE_GUESS 0.2
#define SLOPE_LEAST 0.02
/* Bytes halve about every this many quality steps (JPEG and WebP, 50-90),
 * the cap's first guess. */
#define HALVING_STEPS 20.0
/* The sample: SAMPLE_TILES tiles of SAMPLE_TILE px, SAMPLE_ACROSS to a
 * row; a picture with fewer than SAMPLE_SHARE times its pixels is
 * searched whole. */
#define SAMPLE_TILE 128
#define SAMPLE_TILES 12
#define SAMPLE_ACROSS 4
#define SAMPLE_SHARE 4
/* dB the sample scores above its picture before the picture says, for a
 * format that has not measured its own (format.h: auto_sample_lift; the
 * tiles' edges, which both sides share, make its coarse scales look
 * alike); it differs from photo to photo, so the sample's search stops
 * SAMPLE_SLACK steps from the crossing before the whole has said where it
 * is. */
#define SAMPLE_LIFT 0.7
#define SAMPLE_SLACK 2
/* A whole encode lower than one that met the target is made only when
 * the sample says it saves at least this many steps. */
#define STEPS_WORTH_AN_ENCODE 2

typedef struct {
    int quality;
    double score;
    void *data;
    size_t length;
} try_t;

/* One picture the search tries qualities on (the whole, or its sample):
 * the encode's settings, the picture prepared for comparing, and the
 * qualities tried so far with their scores, in the order tried. */
typedef struct {
    gal_encode e;
    const gal_percept_ref *ref;
    int n_tries;
    int quality[SAMPLE_ENCODES + TARGET_ENCODES];
    double score[SAMPLE_ENCODES + TARGET_ENCODES];
} subject_t;

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

/* Encode `sub` at `quality` and score it, into *t, and note the try. */
static int
try_on(const gal_format_def *format, subject_t *sub, int quality, try_t *t, gal_error *err)
{
    if (encode_at(format, &sub->e, quality, t, err) || score_try(sub->ref, t, err)) {
        try_clear(t);
        return -1;
    }
    sub->quality[sub->n_tries] = quality;
    sub->score[sub->n_tries] = t->score;
    sub->n_tries++;
    return 0;
}

/* The score `sub` was seen to have at `quality`; -1: not tried. */
static double
score_seen(const subject_t *sub, int quality)
{
    for (int i = 0; i < sub->n_tries; i++)
        if (sub->quality[i] == quality)
            return sub->score[i];
    return -1;
}

/* Where the next try on `sub` goes for `target`: 0 with *next set; or 1
 * when its tries have found it, with *found the lowest quality seen to
 * meet it (0: none does, and the range's highest was tried), once it is
 * at most `close` steps above the highest below it seen to miss. Qualities
 * between the lowest that met it and the highest below that which did
 * not are tried, on the line through them; before there are both, along
 * the last two tries' slope, just past the crossing so that a miss
 * brackets it. */
static int
next_quality(const gal_format_def *format, const subject_t *sub, double target, int start,
    int close, int *next, int *found)
{
    int pass = 0, fail = 0;
    double pass_score = 0, fail_score = 0, slope = SLOPE_GUESS;
    int n = sub->n_tries;

    for (int i = 0; i < n; i++)
        if (sub->score[i] >= target && (!pass || sub->quality[i] < pass)) {
            pass = sub->quality[i];
            pass_score = sub->score[i];
        }
    for (int i = 0; i < n; i++)
        if (sub->score[i] < target && sub->quality[i] > fail && (!pass || sub->quality[i] < pass)) {
            fail = sub->quality[i];
            fail_score = sub->score[i];
        }
    if (n >= 2 && sub->quality[n - 1] != sub->quality[n - 2])
        slope = MAX(SLOPE_LEAST, fabs(sub->score[n - 1] - sub->score[n - 2]) /
                                     abs(sub->quality[n - 1] - sub->quality[n - 2]));
    *found = 0;
    if (n == 0)
        *next = start;
    else if (pass && fail) {
        double share = (target - fail_score) / MAX(1e-9, pass_score - fail_score);

        if (pass - fail <= close) {
            *found = pass;
            return 1;
        }
        *next = fail + (int) ceil(share * (pass - fail));
        *next = CLAMP(*next, fail + 1, pass - 1);
    }
    else if (pass) {
        if (pass <= format->auto_lowest) {
            *found = pass;
            return 1;
        }
        *next = (int) ceil(pass - (pass_score - target) / slope) - 1;
        *next = CLAMP(*next, format->auto_lowest, pass - 1);
    }
    else {
        if (fail >= format->auto_highest)
            return 1;
        *next = (int) ceil(fail + (target - fail_score) / slope);
        *next = CLAMP(*next, fail + 1, format->auto_highest);
    }
    return 0;
}

/* Search `sub` for `target` until its tries find it (`close`:
 * next_quality) or it has made `most` tries: the lowest quality seen to meet it into *found (0: none
 * did). With `keep`, the bytes of that try are kept there. */
static int
search_on(const gal_format_def *format, subject_t *sub, double target, int start, int close,
    int most, int *found, try_t *keep, int *made, gal_error *err)
{
    int next;

    while (!next_quality(format, sub, target, start, close, &next, found) &&
        sub->n_tries < most) {
        try_t t;

        if (try_on(format, sub, next, &t, err))
            return -1;
        (*made)++;
        if (keep && t.score >= target && (!keep->quality || t.quality < keep->quality)) {
            try_clear(keep);
            *keep = t;
        }
        else
            try_clear(&t);
    }
    if (!*found && keep && keep->quality)
        *found = keep->quality;
    else if (!*found) {
        /* Out of tries: the lowest that met it, if any did. */
        for (int i = 0; i < sub->n_tries; i++)
            if (sub->score[i] >= target && (!*found || sub->quality[i] < *found))
                *found = sub->quality[i];
    }
    return 0;
}

/* The sample of `picture` (in memory) into *out: SAMPLE_TILES tiles
 * chosen by perceptual.c, side by side, in memory; NULL when the picture
 * is too small to be worth sampling. 0, or -1 with `err` set. */
static int
sample_of(VipsImage *picture, const gal_percept_ref *ref, VipsImage **out, gal_error *err)
{
    int x[SAMPLE_TILES], y[SAMPLE_TILES], n;
    VipsImage *tiles[SAMPLE_TILES] = { 0 };
    g_autoptr(VipsImage) joined = NULL;
    int failed = 0;

    *out = NULL;
    if ((double) picture->Xsize * picture->Ysize <
        (double) SAMPLE_SHARE * SAMPLE_TILES * SAMPLE_TILE * SAMPLE_TILE)
        return 0;
    if ((n = gal__percept_pick_tiles(ref, SAMPLE_TILE, SAMPLE_TILES, x, y)) < SAMPLE_TILES)
        return 0;
    for (int k = 0; k < n && !failed; k++)
        failed = vips_crop(picture, &tiles[k], x[k], y[k], SAMPLE_TILE, SAMPLE_TILE, NULL);
    if (!failed)
        failed = vips_arrayjoin(tiles, &joined, n, "across", SAMPLE_ACROSS, NULL) ||
            !(*out = vips_image_copy_memory(joined));
    for (int k = 0; k < n; k++)
        if (tiles[k])
            g_object_unref(tiles[k]);
    return failed ? gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "sample") : 0;
}

struct gal_quality_memo {
    VipsImage *picture;          /* whose pixels `ref` was made of; NULL: none yet */
    gal_percept_ref *ref;
    bool sampled;                /* the sample was made (NULL: the picture has none) */
    VipsImage *sample;
    gal_percept_ref *sample_ref;
    int prepared;                /* pictures prepared so far */
};

static void
memo_clear(gal_quality_memo *memo)
{
    VIPS_UNREF(memo->picture);
    g_clear_pointer(&memo->ref, gal__percept_ref_free);
    VIPS_UNREF(memo->sample);
    g_clear_pointer(&memo->sample_ref, gal__percept_ref_free);
    memo->sampled = false;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(gal_quality_memo, memo_clear)

gal_quality_memo *
gal__quality_memo_new(void)
{
    return g_new0(gal_quality_memo, 1);
}

void
gal__quality_memo_free(gal_quality_memo *memo)
{
    if (!memo)
        return;
    memo_clear(memo);
    g_free(memo);
}

int
gal__quality_memo_prepared(const gal_quality_memo *memo)
{
    return memo->prepared;
}

/* Whether two pictures in memory are the same pixels read the same way:
 * what the preparation is made of (perceptual.c converts by the
 * interpretation; alpha is left out there but compared here, as a JPEG's
 * flattened picture differs from a WebP's). */
static bool
same_pixels(VipsImage *a, VipsImage *b)
{
    if (a == b)
        return true;
    if (a->Xsize != b->Xsize || a->Ysize != b->Ysize || a->Bands != b->Bands ||
        a->BandFmt != b->BandFmt || a->Type != b->Type || vips_image_wio_input(a) ||
        vips_image_wio_input(b))
        return false;
    return memcmp(VIPS_IMAGE_ADDR(a, 0, 0), VIPS_IMAGE_ADDR(b, 0, 0),
               VIPS_IMAGE_SIZEOF_IMAGE(a)) == 0;
}

/* `picture` (in memory) prepared for scoring into memo->ref: the memo's
 * own when it holds the same pixels, made (and the memo's others let go)
 * when not. */
static int
memo_prepare(gal_quality_memo *memo, VipsImage *picture, gal_error *err)
{
    if (memo->picture && same_pixels(memo->picture, picture))
        return 0;
    memo_clear(memo);
    if (!(memo->ref = gal__percept_ref_new(picture, err)))
        return -1;
    memo->picture = g_object_ref(picture);
    memo->prepared++;
    return 0;
}

/* The prepared picture's sample and its preparation, made once. */
static int
memo_sample(gal_quality_memo *memo, gal_error *err)
{
    if (memo->sampled)
        return 0;
    if (sample_of(memo->picture, memo->ref, &memo->sample, err))
        return -1;
    if (memo->sample && !(memo->sample_ref = gal__percept_ref_new(memo->sample, err))) {
        VIPS_UNREF(memo->sample);
        return -1;
    }
    memo->sampled = true;
    return 0;
}

/* The lowest quality of the format's range that meets goal->target, on
 * the sample of the picture when it has one and checked whole: into
 * *chosen (the lowest seen to meet it, or the highest when none does).
 * The memo holds the picture prepared. */
static int
search_target(const gal_format_def *format, const gal_encode *e, const gal_quality_goal *goal,
    gal_quality_memo *memo, gal_quality_choice *out, try_t *chosen, gal_error *err)
{
    subject_t whole = { *e, memo->ref, 0, { 0 }, { 0 } };
    subject_t sample;
    int start = format->auto_first + (int) lround(
        (goal->target - format->auto_shift - GAL_TARGET_STANDARD) / SLOPE_GUESS);
    int found = 0, highest_missed = 0;
    double lift = format->auto_sample_lift ? format->auto_sample_lift : SAMPLE_LIFT;

    start = CLAMP(start, format->auto_lowest, format->auto_highest);
    if (memo_sample(memo, err))
        return -1;
    if (!memo->sample) {
        /* Small enough to search whole: the tries are the files. */
        if (search_on(format, &whole, goal->target, start, 1, TARGET_ENCODES, &found, chosen,
                &out->encodes, err))
            return -1;
        if (found)
            return 0;
    }
    else {
        sample = (subject_t) { *e, memo->sample_ref, 0, { 0 }, { 0 } };
        sample.e.image = memo->sample;
        sample.e.trial = true;
        while (whole.n_tries < TARGET_ENCODES) {
            int on_sample = 0;
            double sample_score;
            try_t t;

            if (search_on(format, &sample, goal->target + lift, start,
                    whole.n_tries ? 1 : SAMPLE_SLACK, SAMPLE_ENCODES, &on_sample, NULL,
                    &out->sample_encodes, err))
                return -1;
            if (!on_sample)
                on_sample = format->auto_highest;
            /* Between the whole's highest miss and its lowest pass. */
            on_sample = MAX(on_sample, highest_missed + 1);
            if (chosen->quality && on_sample > chosen->quality - STEPS_WORTH_AN_ENCODE)
                break;
            if (try_on(format, &whole, on_sample, &t, err)) {
                try_clear(chosen);
                return -1;
            }
            out->encodes++;
            if ((sample_score = score_seen(&sample, on_sample)) < 0) {
                try_t again;

                if (try_on(format, &sample, on_sample, &again, err)) {
                    try_clear(&t);
                    try_clear(chosen);
                    return -1;
                }
                out->sample_encodes++;
                sample_score = again.score;
                try_clear(&again);
            }
            /* What the sample and the whole differ by, here. */
            lift = sample_score - t.score;
            if (t.score >= goal->target) {
                try_clear(chosen);
                *chosen = t;
                if (format->auto_keep_first_pass)
                    break;
            }
            else {
                highest_missed = MAX(highest_missed, t.quality);
                try_clear(&t);
                if (highest_missed >= format->auto_highest)
                    break;
            }
        }
        if (chosen->quality)
            return 0;
    }
    /* Nothing met it within the encodes allowed: the highest quality (a
     * miss's bytes are not kept, so it is encoded again if it was tried),
     * unreachable unless it meets it. */
    try_clear(chosen);
    if (encode_at(format, e, format->auto_highest, chosen, err) ||
        score_try(memo->ref, chosen, err)) {
        try_clear(chosen);
        return -1;
    }
    out->encodes++;
    out->unreachable = chosen->score < goal->target;
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
    return gal__quality_choose_shared(format, e, goal, NULL, out, err);
}

int
gal__quality_choose_shared(const gal_format_def *format, const gal_encode *e,
    const gal_quality_goal *goal, gal_quality_memo *shared, gal_quality_choice *out,
    gal_error *err)
{
    g_auto(gal_quality_memo) own = { 0 };
    gal_quality_memo *memo = shared ? shared : &own;
    try_t chosen = { 0 };
    gal_quality_goal held = *goal;

    memset(out, 0, sizeof *out);
    /* The format's own level of the target (format.h: auto_shift). */
    if (goal->target > 0) {
        held.target = goal->target + format->auto_shift;
        out->target = held.target;
        goal = &held;
    }
    if (goal->target > 0) {
        if (memo_prepare(memo, e->image, err) ||
            search_target(format, e, goal, memo, out, &chosen, err))
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
        if (goal->target > 0) {
            if (score_try(memo->ref, &chosen, err)) {
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
