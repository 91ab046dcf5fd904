/* perceptual.h: how alike two pictures look: MS-SSIM (Wang, Simoncelli and
 * Bovik, 2003) on CIE lightness, each scale made by averaging light, given
 * in decibels. docs/quality.md says what the numbers mean and why this
 * metric. */
#ifndef GAL_PERCEPTUAL_H
#define GAL_PERCEPTUAL_H

#include <vips/vips.h>

#include "error.h"

/* The score of two identical pictures: -10 log10(1 - MS-SSIM) is infinite
 * there, and anything above this is invisible. */
#define GAL_PERCEPT_PERFECT 60.0

/* A picture prepared once to be compared with many others (the encodes of
 * a quality search): its lightness at every scale and the local means and
 * variances of it that every comparison needs, and the working memory of a
 * comparison, kept for the next (about 8 bytes a pixel more). Its
 * preparation is immutable once made; a comparison writes in the working
 * memory, so one thread compares against it at a time (a photo's search). */
typedef struct gal_percept_ref gal_percept_ref;

/* Prepare `image` (sRGB or grey, 8 or 16 bits, any alpha is left out; read
 * whole, so best already in memory). NULL with `err` set when libvips
 * cannot convert it. */
gal_percept_ref *gal__percept_ref_new(VipsImage *image, gal_error *err);
void gal__percept_ref_free(gal_percept_ref *ref);   /* NULL: nothing */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gal_percept_ref, gal__percept_ref_free)

/* How alike `image` (the same size as the reference) looks to it:
 * -10 log10(1 - MS-SSIM), 0 (nothing alike) to GAL_PERCEPT_PERFECT
 * (identical), into *score; *ms_ssim (may be NULL) gets MS-SSIM itself,
 * 0..1. The same pixels always give the same score, bit for bit (one
 * thread, a fixed order of sums). 0, or -1 with `err` set. */
int gal__percept_score(const gal_percept_ref *ref, VipsImage *image, double *score,
    double *ms_ssim, gal_error *err);

/* Each scale's mean SSIM of `image` against the reference (scales[0] is
 * the full size), for checking against another implementation of SSIM;
 * returns how many scales there are (at most 5), or -1 with `err` set. */
int gal__percept_scales(const gal_percept_ref *ref, VipsImage *image, double scales[5],
    gal_error *err);

/* Where to sample the reference for a cheaper look at it: `n` tiles of
 * `tile` px (each at a multiple of `tile` from the top-left corner), the
 * picture's tiles ranked by how much their lightness varies and taken at
 * evenly spaced ranks, so that flat sky and fine texture are sampled as
 * often as the picture has them. Into x[] and y[] in rank order; returns
 * how many there are (fewer than n when the picture has fewer tiles). */
int gal__percept_pick_tiles(const gal_percept_ref *ref, int tile, int n, int *x, int *y);

#endif /* GAL_PERCEPTUAL_H */
