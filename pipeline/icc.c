/* icc.c: colour conversion with lcms2 (see icc.h). The transform is made
 * once per photo, on the worker, and applied per region by a lazy libvips
 * operation (vips_image_generate), so the conversion streams with the rest
 * of the photo's graph. */
#include <lcms2.h>

#include "icc.h"
#include "error.h"

/* In order of preference: Photoshop's default first (with black-point
 * compensation), then whatever table the profile has. */
static const struct {
    cmsUInt32Number intent;
    const char *name;
} intents[] = {
    { INTENT_RELATIVE_COLORIMETRIC, "relative colorimetric" },
    { INTENT_PERCEPTUAL, "perceptual" },
    { INTENT_SATURATION, "saturation" },
    { INTENT_ABSOLUTE_COLORIMETRIC, "absolute colorimetric" },
};

/* One conversion: lcms2's context (whose error handler writes into `log`)
 * and the transform, shared read-only by the threads of one photo. */
typedef struct {
    cmsContext ctx;
    cmsHTRANSFORM xform;
    int extra; /* alpha: 0 or 1 band after the colour ones */
    GString *log;
} icc_op;

static void
icc_op_free(icc_op *op)
{
    if (op->xform)
        cmsDeleteTransform(op->xform);
    if (op->ctx)
        cmsDeleteContext(op->ctx);
    g_string_free(op->log, TRUE);
    g_free(op);
}

static void
icc_op_close(VipsImage *image, icc_op *op)
{
    (void) image;
    icc_op_free(op);
}

/* lcms2 reports through a per-context handler; its words go to the op's log
 * (only while the transform is made, on one thread). */
static void
log_error(cmsContext ctx, cmsUInt32Number code, const char *text)
{
    GString *log = cmsGetContextUserData(ctx);

    (void) code;
    if (log)
        g_string_append_printf(log, "%s%s", log->len ? "; " : "", text);
}

/* The lcms2 pixel type and channel count of a profile's colour space; 0 for
 * the ones gallop does not convert itself. */
static cmsUInt32Number
pixel_type(cmsColorSpaceSignature space, int *channels)
{
    switch (space) {
    case cmsSigCmykData: *channels = 4; return PT_CMYK;
    case cmsSigRgbData: *channels = 3; return PT_RGB;
    case cmsSigGrayData: *channels = 1; return PT_GRAY;
    default: *channels = 0; return 0;
    }
}

/* Whether the pixels of `in` fit a profile of `channels` colour channels:
 * that many bands, or one more for alpha, of 8 or 16 bits. */
static gboolean
pixels_fit(VipsImage *in, int channels)
{
    return channels > 0 && in->Coding == VIPS_CODING_NONE &&
        (in->BandFmt == VIPS_FORMAT_UCHAR || in->BandFmt == VIPS_FORMAT_USHORT) &&
        (in->Bands == channels || in->Bands == channels + 1);
}

gboolean
gal__icc_is_ours(VipsImage *in, const void *profile, size_t len)
{
    cmsContext ctx;
    cmsHPROFILE p;
    int channels = 0;
    gboolean ours = FALSE;

    if (!profile)
        return in->Type == VIPS_INTERPRETATION_CMYK && pixels_fit(in, 4);
    /* A context of its own: without a handler, lcms2 says nothing. */
    if (!(ctx = cmsCreateContext(NULL, NULL)))
        return FALSE;
    if ((p = cmsOpenProfileFromMemTHR(ctx, profile, (cmsUInt32Number) len))) {
        cmsColorSpaceSignature space = cmsGetColorSpace(p);

        pixel_type(space, &channels);
        if (pixels_fit(in, channels))
            ours = space == cmsSigCmykData ||
                !cmsIsIntentSupported(p, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT);
        cmsCloseProfile(p);
    }
    cmsDeleteContext(ctx);
    return ours;
}

static int
icc_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop)
{
    VipsRegion *ir = seq;
    const icc_op *op = b;
    const VipsRect *r = &out_region->valid;

    (void) a;
    (void) stop;
    if (vips_region_prepare(ir, r))
        return -1;
    for (int y = 0; y < r->height; y++)
        cmsDoTransform(op->xform, VIPS_REGION_ADDR(ir, r->left, r->top + y),
            VIPS_REGION_ADDR(out_region, r->left, r->top + y), (cmsUInt32Number) r->width);
    return 0;
}

/* The profile's description, for messages ("U.S. Web Coated (SWOP) v2"). */
static char *
describe(cmsHPROFILE p)
{
    char text[200] = "";

    cmsGetProfileInfoASCII(p, cmsInfoDescription, "en", "US", text, sizeof(text));
    return g_strdup(text[0] ? text : "embedded");
}

/* Make op->xform from `profile` to sRGB for pixels like `in`; -1 with err. */
static int
make_transform(icc_op *op, VipsImage *in, const void *profile, size_t len, GString *warnings,
    gal_error *err)
{
    cmsHPROFILE src = cmsOpenProfileFromMemTHR(op->ctx, profile, (cmsUInt32Number) len);
    cmsHPROFILE srgb = NULL;
    cmsUInt32Number type, in_format, out_format, flags;
    int channels, extra, bytes = in->BandFmt == VIPS_FORMAT_USHORT ? 2 : 1;
    size_t chosen = G_N_ELEMENTS(intents);
    g_autofree char *name = NULL;

    if (!src)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "colour profile cannot be read%s%s",
            op->log->len ? ": " : "", op->log->str);
    name = describe(src);
    type = pixel_type(cmsGetColorSpace(src), &channels);
    if (!pixels_fit(in, channels)) {
        cmsCloseProfile(src);
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "colour profile \"%s\" does not fit the pixels (%d bands)", name, in->Bands);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(intents) && chosen == G_N_ELEMENTS(intents); i++)
        if (cmsIsIntentSupported(src, intents[i].intent, LCMS_USED_AS_INPUT))
            chosen = i;
    if (chosen == G_N_ELEMENTS(intents)) {
        cmsCloseProfile(src);
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "colour profile \"%s\" has no table to convert its colours with", name);
    }
    if (chosen != 0)
        g_string_append_printf(warnings,
            "%scolour profile \"%s\" has no %s table; converted with its %s one",
            warnings->len ? "\n" : "", name, intents[0].name, intents[chosen].name);
    extra = op->extra = in->Bands - channels;
    in_format = COLORSPACE_SH(type) | CHANNELS_SH(channels) | BYTES_SH(bytes) | EXTRA_SH(extra);
    out_format = extra ? TYPE_RGBA_8 : TYPE_RGB_8;
    /* NOCACHE: the one-pixel cache is what would make sharing the
     * transform between threads unsafe. */
    flags = cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE | (extra ? cmsFLAGS_COPY_ALPHA : 0);
    srgb = cmsCreate_sRGBProfileTHR(op->ctx);
    op->xform = cmsCreateTransformTHR(op->ctx, src, in_format, srgb, out_format,
        intents[chosen].intent, flags);
    cmsCloseProfile(srgb);
    cmsCloseProfile(src);
    if (!op->xform)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "colour profile \"%s\" cannot convert to sRGB%s%s", name, op->log->len ? ": " : "",
            op->log->str);
    return 0;
}

int
gal__icc_to_srgb(VipsImage *in, const void *profile, size_t len, VipsImage **out,
    GString *warnings, gal_error *err)
{
    VipsBlob *builtin = NULL;
    VipsBlob *srgb = NULL;
    VipsImage *image;
    icc_op *op = g_new0(icc_op, 1);
    size_t srgb_len;
    const void *srgb_data;

    op->log = g_string_new(NULL);
    if (!profile) {
        if (vips_profile_load("cmyk", &builtin, NULL)) {
            icc_op_free(op);
            return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "CMYK profile");
        }
        profile = vips_blob_get(builtin, &len);
    }
    if (!(op->ctx = cmsCreateContext(NULL, op->log))) {
        icc_op_free(op);
        vips_area_unref(VIPS_AREA(builtin));
        return gal_error_set(err, GAL_ERR_INTERNAL, NULL, NULL, "lcms2: no context");
    }
    cmsSetLogErrorHandlerTHR(op->ctx, log_error);
    if (make_transform(op, in, profile, len, warnings, err)) {
        icc_op_free(op);
        vips_area_unref(VIPS_AREA(builtin));
        return -1;
    }
    if (builtin)
        vips_area_unref(VIPS_AREA(builtin));
    if (op->log->len)
        g_string_append_printf(warnings, "%scolour profile: %s", warnings->len ? "\n" : "",
            op->log->str);
    g_string_truncate(op->log, 0);

    image = vips_image_new();
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)) {
        g_object_unref(image);
        icc_op_free(op);
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "colour profile");
    }
    image->Bands = 3 + op->extra;
    image->BandFmt = VIPS_FORMAT_UCHAR;
    image->Type = VIPS_INTERPRETATION_sRGB;
    /* The pixels are sRGB now: they carry sRGB's profile, not the source's. */
    if (vips_profile_load("srgb", &srgb, NULL) == 0) {
        srgb_data = vips_blob_get(srgb, &srgb_len);
        vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, srgb_data, srgb_len);
        vips_area_unref(VIPS_AREA(srgb));
    }
    else {
        vips_error_clear();
        vips_image_remove(image, VIPS_META_ICC_NAME);
    }
    g_object_ref(in);
    vips_object_local(image, in);
    g_signal_connect(image, "close", G_CALLBACK(icc_op_close), op);
    if (vips_image_generate(image, vips_start_one, icc_generate, vips_stop_one, in, op)) {
        g_object_unref(image);
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "colour profile");
    }
    *out = image;
    return 0;
}

gboolean
gal__icc_is_rgb(const void *profile, size_t len)
{
    cmsContext ctx;
    cmsHPROFILE p;
    gboolean rgb = FALSE;

    if (!profile || len == 0 || len > G_MAXUINT32 || !(ctx = cmsCreateContext(NULL, NULL)))
        return FALSE;
    /* A context of its own: without a handler, lcms2 says nothing. */
    if ((p = cmsOpenProfileFromMemTHR(ctx, profile, (cmsUInt32Number) len))) {
        rgb = cmsGetColorSpace(p) == cmsSigRgbData;
        cmsCloseProfile(p);
    }
    cmsDeleteContext(ctx);
    return rgb;
}
