/* overlay.c: a tinted band and pictures painted onto an opaque 8-bit
 * photo in one lazy operation; see overlay.h. */
#include <string.h>

#include "lazy.h"
#include "overlay.h"

/* The overlay as the operation keeps it: the pictures referenced, and
 * where each lands, clipped. */
typedef struct {
    gal_overlay spec;
    VipsRect band;                              /* full width; empty: none */
    VipsRect placed[GAL_OVERLAY_MAX_PICTURES];  /* each picture's clipped rectangle */
    gboolean premultiplied[GAL_OVERLAY_MAX_PICTURES];
    int keep;                                   /* 255 - band alpha */
    int add[3];                                 /* colour x alpha, + 127 to round */
} overlay_plan;

static void
overlay_plan_free(VipsImage *image, overlay_plan *plan)
{
    (void) image;
    for (int i = 0; i < plan->spec.n_pictures; i++)
        g_object_unref(plan->spec.pictures[i].picture);
    g_free(plan);
}

gboolean
gal__overlay_fits(const VipsImage *in)
{
    return in->BandFmt == VIPS_FORMAT_UCHAR && in->Bands == 3 && in->Coding == VIPS_CODING_NONE;
}

/* x / 255 as (x + 1 + (x >> 8)) >> 8: exact below 65535. */
static void
tint_row(const overlay_plan *plan, const VipsPel *p, VipsPel *q, int width)
{
    const int keep = plan->keep, add0 = plan->add[0], add1 = plan->add[1], add2 = plan->add[2];

    for (int x = 0; x < width; x++) {
        int v0 = p[3 * x] * keep + add0, v1 = p[3 * x + 1] * keep + add1;
        int v2 = p[3 * x + 2] * keep + add2;

        q[3 * x] = (VipsPel) ((v0 + 1 + (v0 >> 8)) >> 8);
        q[3 * x + 1] = (VipsPel) ((v1 + 1 + (v1 >> 8)) >> 8);
        q[3 * x + 2] = (VipsPel) ((v2 + 1 + (v2 >> 8)) >> 8);
    }
}

static void
blend_straight_row(const VipsPel *m, VipsPel *q, int width)
{
    for (int x = 0; x < width; x++, m += 4, q += 3) {
        int a = m[3];

        /* Most of a text's box is clear, and all of its ink is solid. */
        if (a == 0)
            continue;
        for (int b = 0; b < 3; b++)
            q[b] = (VipsPel) ((a * m[b] + (255 - a) * q[b] + 128) / 255);
    }
}

/* vips_composite's "over" for a premultiplied picture, in its steps and
 * in floats (its three-band vector path), then vips_cast's truncation. */
static void
blend_premultiplied_row(const float *m, VipsPel *q, int width)
{
    for (int x = 0; x < width; x++, m += 4, q += 3) {
        float a = m[3] / 255.0f;
        float rest = 1 - a;

        for (int b = 0; b < 3; b++) {
            float v = (m[b] / 255.0f + rest * (q[b] / 255.0f)) * 255.0f;

            q[b] = (VipsPel) (v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

static int
overlay_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop)
{
    VipsRegion *ir = seq;
    const overlay_plan *plan = b;
    const VipsRect *r = &out_region->valid;
    VipsRect band, hit[GAL_OVERLAY_MAX_PICTURES];
    gboolean touched;

    (void) a;
    (void) stop;
    vips_rect_intersectrect(r, &plan->band, &band);
    touched = !vips_rect_isempty(&band);
    for (int i = 0; i < plan->spec.n_pictures; i++) {
        vips_rect_intersectrect(r, &plan->placed[i], &hit[i]);
        touched |= !vips_rect_isempty(&hit[i]);
    }
    if (vips_region_prepare(ir, r))
        return -1;
    /* Most strips: the photo's own pixels, not even copied. */
    if (!touched)
        return vips_region_region(out_region, ir, r, r->left, r->top);
    for (int y = r->top; y < VIPS_RECT_BOTTOM(r); y++) {
        const VipsPel *p = VIPS_REGION_ADDR(ir, r->left, y);
        VipsPel *q = VIPS_REGION_ADDR(out_region, r->left, y);

        if (y >= band.top && y < VIPS_RECT_BOTTOM(&band))
            tint_row(plan, p, q, r->width);
        else
            memcpy(q, p, (size_t) r->width * 3);
    }
    for (int i = 0; i < plan->spec.n_pictures; i++) {
        const gal_overlay_picture *pic = &plan->spec.pictures[i];

        for (int y = hit[i].top; y < VIPS_RECT_BOTTOM(&hit[i]); y++) {
            const VipsPel *m =
                VIPS_IMAGE_ADDR(pic->picture, hit[i].left - pic->x, y - pic->y);
            VipsPel *q = VIPS_REGION_ADDR(out_region, hit[i].left, y);

            if (plan->premultiplied[i])
                blend_premultiplied_row((const float *) m, q, hit[i].width);
            else
                blend_straight_row(m, q, hit[i].width);
        }
    }
    return 0;
}

int
gal__overlay(VipsImage *in, const gal_overlay *overlay, VipsImage **out)
{
    VipsRect all = { 0, 0, in->Xsize, in->Ysize };
    VipsRect area = overlay->area;
    overlay_plan *plan;

    if (!gal__overlay_fits(in)) {
        vips_error("gallop", "%s", "overlays are painted on 8-bit RGB only");
        return -1;
    }
    if (overlay->n_pictures < 0 || overlay->n_pictures > GAL_OVERLAY_MAX_PICTURES) {
        vips_error("gallop", "%s", "too many pictures for one overlay");
        return -1;
    }
    for (int i = 0; i < overlay->n_pictures; i++) {
        const VipsImage *pic = overlay->pictures[i].picture;

        if (pic->Bands != 4 || pic->Coding != VIPS_CODING_NONE ||
            (pic->BandFmt != VIPS_FORMAT_UCHAR && pic->BandFmt != VIPS_FORMAT_FLOAT) ||
            !VIPS_IMAGE_ADDR((VipsImage *) pic, 0, 0)) {
            vips_error("gallop", "%s", "an overlay picture must be RGBA, in memory");
            return -1;
        }
    }
    plan = g_new0(overlay_plan, 1);
    plan->spec = *overlay;
    for (int i = 0; i < overlay->n_pictures; i++)
        g_object_ref(plan->spec.pictures[i].picture);
    if (vips_rect_isempty(&area))
        area = all;
    vips_rect_intersectrect(&area, &all, &area);
    if (overlay->band_height > 0 && overlay->band_alpha > 0) {
        VipsRect band = { 0, overlay->band_top, in->Xsize, overlay->band_height };

        vips_rect_intersectrect(&band, &all, &plan->band);
    }
    plan->keep = 255 - overlay->band_alpha;
    for (int b = 0; b < 3; b++)
        plan->add[b] = overlay->band_rgb[b] * overlay->band_alpha + 127;
    for (int i = 0; i < overlay->n_pictures; i++) {
        const gal_overlay_picture *pic = &overlay->pictures[i];
        VipsRect at = { pic->x, pic->y, pic->picture->Xsize, pic->picture->Ysize };

        vips_rect_intersectrect(&at, &area, &plan->placed[i]);
        plan->premultiplied[i] = pic->picture->BandFmt == VIPS_FORMAT_FLOAT;
    }
    return gal__lazy_op(in, in->Xsize, in->Ysize, vips_start_one, overlay_generate,
        vips_stop_one, plan, G_CALLBACK(overlay_plan_free), out);
}
