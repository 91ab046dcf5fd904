/* Caption burn: the photo's caption (or any template) drawn onto it, in a
 * translucent band along the bottom or top edge, wrapped to the photo's
 * width and cut to max-lines with "…".
 *
 * prepare() resolves the font (a family, or a font file beside the preset,
 * registered once for the process) and lays out one line, so fontconfig
 * and Pango start once, on the main thread. build() renders the caption (small, in memory, via text.c) and
 * the band behind it, then blends only the band's rows, lazily, so the
 * full-size photo is never held in memory: on an opaque 8-bit photo in one
 * operation (overlay.h), on others with the rows cut out, composited and
 * inserted back. It records the rows it covered in the job
 * (reserved_top / reserved_bottom) so later overlays keep out of them, and
 * whether the caption was cut. No caption: no band. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "error.h"
#include "overlay.h"
#include "schema.h"
#include "stage.h"
#include "template.h"
#include "text.h"

typedef enum { GRAVITY_SOUTH, GRAVITY_NORTH, GRAVITY_CENTRE } burn_gravity;
static const char *const burn_gravity_names[] = { "south", "north", "centre", NULL };
static const char *const gal_align_names[] = { "left", "centre", "right", NULL };

typedef struct {
    gal_template *text;
    char *font;
    gal_length size;
    gal_color color;
    gal_color hashtag_color;
    gal_color band;
    burn_gravity gravity;
    int max_lines;
    gal_align align;
    gal_length padding;
} caption_burn_opts;


static const gal_param caption_burn_params[] = {
    GAL_PARAM_TEMPLATE(caption_burn_opts, text,
        "what to write, a template such as \"{caption}\" or \"{caption} ({date:%Y})\"; "
        "{caption} is the photo's caption, from the sources the captions section lists",
        "{caption}"),
    GAL_PARAM_STRING(caption_burn_opts, font,
        "font family and style, or a font file relative to the preset; scripts the font "
        "lacks (Hangul, emoji...) come from other installed fonts",
        "DejaVu Sans"),
    GAL_PARAM_LENGTH(caption_burn_opts, size,
        "text size: a share of the photo's height, or pixels", "3%", 1000),
    GAL_PARAM_COLOR(caption_burn_opts, color, "text colour", "white"),
    GAL_PARAM_COLOR(caption_burn_opts, hashtag_color,
        "colour of #hashtags and @mentions (unset: the text colour)", NULL),
    GAL_PARAM_COLOR(caption_burn_opts, band,
        "colour of the band behind the text, with alpha for a see-through band; none "
        "draws no band, only a soft shadow under the text",
        "#000000a0"),
    GAL_PARAM_ENUM(caption_burn_opts, gravity, burn_gravity,
        "where the band sits: along the bottom or top edge, or across the middle of the rows "
        "other bands left free",
        "south"),
    GAL_PARAM_INT(caption_burn_opts, max_lines,
        "most lines drawn; a longer caption is cut after a word and ends in \"…\" (0: no "
        "limit but the band's: half the photo)",
        "4", 0, 100),
    GAL_PARAM_ENUM(caption_burn_opts, align, gal_align,
        "how lines line up; for right-to-left captions (Hebrew, Arabic) left and right "
        "swap, so left is the side their lines start from",
        "left"),
    GAL_PARAM_LENGTH(caption_burn_opts, padding,
        "space around the text inside the band: a share of the photo's short edge, or "
        "pixels",
        "2.5%", 2000),
    GAL_PARAM_END,
};

typedef struct {
    char *family;    /* font family and style to ask Pango for */
} caption_burn_shared;

/* Text smaller than this is unreadable, and Pango's layout of it is slow
 * for nothing. */
#define MIN_SIZE_PX 6

static void
caption_burn_release(void *p)
{
    caption_burn_shared *shared = p;

    if (!shared)
        return;
    g_free(shared->family);
    g_free(shared);
}

static int
caption_burn_prepare(const gal_stage_ctx *sc, void **out, gal_error *err)
{
    const caption_burn_opts *o = sc->opts;
    caption_burn_shared *shared = g_new0(caption_burn_shared, 1);
    gal_text_style style = { NULL, NULL, 20, { 255, 255, 255, 255, FALSE }, NULL, 0, GAL_ALIGN_LEFT,
        0 };
    g_autoptr(VipsImage) probe = NULL;
    gal_text_info info;

    if (gal__font_prepare(o->font, gal__stage_key_loc(sc, caption_burn_params, "font"),
            sc->follow_links, "caption-burn.font", &shared->family, err)) {
        caption_burn_release(shared);
        return -1;
    }
    /* One layout now starts fontconfig and Pango here, once, instead of in
     * the first photo of every worker. */
    style.font = shared->family;
    if (gal__text_render("Ág", &style, &probe, &info, err)) {
        caption_burn_release(shared);
        return -1;
    }
    *out = shared;
    return 0;
}

/* The shadow that stands in for a band: the text's alpha, blurred and
 * strengthened (thin strokes blur to little), in black, as RGBA, with the
 * offset from the text's corner to the shadow's. */
static int
make_shadow(VipsImage *text, double size_px, VipsImage **out, int *dx, int *dy)
{
    double sigma = MAX(1.0, size_px / 16.0);
    int margin = (int) ceil(3 * sigma);
    int nudge = MAX(1, (int) lround(size_px / 24.0));
    g_autoptr(VipsImage) alpha = NULL;
    g_autoptr(VipsImage) padded = NULL;
    g_autoptr(VipsImage) blurred = NULL;
    g_autoptr(VipsImage) strong = NULL;
    g_autoptr(VipsImage) dark = NULL;
    g_autoptr(VipsImage) joined = NULL;
    VipsImage *parts[2];

    if (vips_extract_band(text, &alpha, 3, NULL) ||
        vips_embed(alpha, &padded, margin, margin, text->Xsize + 2 * margin,
            text->Ysize + 2 * margin, NULL) ||
        vips_gaussblur(padded, &blurred, sigma, NULL) ||
        vips_linear1(blurred, &strong, 1.8, 0, "uchar", TRUE, NULL) ||
        vips_black(&dark, padded->Xsize, padded->Ysize, "bands", 3, NULL))
        return -1;
    parts[0] = dark;
    parts[1] = strong;
    if (vips_bandjoin(parts, &joined, 2, NULL) ||
        vips_copy(joined, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
        return -1;
    *dx = nudge - margin;
    *dy = nudge - margin;
    return 0;
}

/* Opaque photos (almost all): straight-alpha RGBA `overlay` blended onto
 * `under` at (x, y), over that rectangle only, with integer arithmetic:
 * vips_ifthenelse's blend is rgb * a + under * (1 - a). */
static int
blend_over(VipsImage *under, VipsImage *overlay, int x, int y, VipsImage **out)
{
    VipsRect area = { x, y, overlay->Xsize, overlay->Ysize };
    VipsRect all = { 0, 0, under->Xsize, under->Ysize };
    g_autoptr(VipsImage) clipped = NULL;
    g_autoptr(VipsImage) rgb = NULL;
    g_autoptr(VipsImage) alpha = NULL;
    g_autoptr(VipsImage) below = NULL;
    g_autoptr(VipsImage) mixed = NULL;

    vips_rect_intersectrect(&area, &all, &area);
    if (vips_rect_isempty(&area)) {
        *out = g_object_ref(under);
        return 0;
    }
    if (vips_extract_area(overlay, &clipped, area.left - x, area.top - y, area.width,
            area.height, NULL) ||
        vips_extract_band(clipped, &rgb, 0, "n", 3, NULL) ||
        vips_extract_band(clipped, &alpha, 3, NULL) ||
        vips_extract_area(under, &below, area.left, area.top, area.width, area.height, NULL) ||
        vips_ifthenelse(alpha, rgb, below, &mixed, "blend", TRUE, NULL))
        return -1;
    return vips_insert(under, mixed, out, area.left, area.top, NULL);
}

/* The band's rows of an opaque photo that is not 8-bit (8-bit ones take
 * paint_overlay): band colour, shadow, text. */
static int
paint_opaque(const caption_burn_opts *o, VipsImage *strip, VipsImage *text, int x, int y,
    double size_px, VipsImage **out)
{
    double alpha = o->band.a / 255.0;
    double scale[3] = { 1 - alpha, 1 - alpha, 1 - alpha };
    double offset[3] = { o->band.r * alpha, o->band.g * alpha, o->band.b * alpha };
    g_autoptr(VipsImage) banded = NULL;
    g_autoptr(VipsImage) shadow = NULL;
    g_autoptr(VipsImage) shaded = NULL;
    VipsImage *current = strip;
    int dx, dy;

    if (o->band.a > 0) {
        if (vips_linear(strip, &banded, scale, offset, 3, "uchar", TRUE, NULL))
            return -1;
        current = banded;
    }
    else {
        if (make_shadow(text, size_px, &shadow, &dx, &dy) ||
            blend_over(current, shadow, x + dx, y + dy, &shaded))
            return -1;
        current = shaded;
    }
    return blend_over(current, text, x, y, out);
}

/* Photos with alpha: the band is drawn as an RGBA image and composited,
 * so that a see-through band over a transparent corner stays see-through. */
static int
paint_alpha(const caption_burn_opts *o, VipsImage *strip, VipsImage *text, int x, int y,
    double size_px, VipsImage **out)
{
    double ink[4] = { o->band.r, o->band.g, o->band.b, o->band.a };
    double zero[4] = { 0, 0, 0, 0 };
    int modes[3] = { VIPS_BLEND_MODE_OVER, VIPS_BLEND_MODE_OVER, VIPS_BLEND_MODE_OVER };
    g_autoptr(VipsImage) black = NULL;
    g_autoptr(VipsImage) fill = NULL;
    g_autoptr(VipsImage) band = NULL;
    g_autoptr(VipsImage) shadow = NULL;
    VipsImage *layers[4];
    int xs[3], ys[3], n = 0, dx, dy, failed;
    VipsArrayInt *xa, *ya;

    if (vips_black(&black, strip->Xsize, strip->Ysize, NULL) ||
        vips_linear(black, &fill, zero, ink, 4, "uchar", TRUE, NULL) ||
        vips_copy(fill, &band, "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
        return -1;
    layers[n++] = strip;
    xs[n - 1] = ys[n - 1] = 0;
    layers[n++] = band;
    if (o->band.a == 0) {
        if (make_shadow(text, size_px, &shadow, &dx, &dy))
            return -1;
        xs[n - 1] = x + dx;
        ys[n - 1] = y + dy;
        layers[n++] = shadow;
    }
    xs[n - 1] = x;
    ys[n - 1] = y;
    layers[n++] = text;
    xa = vips_array_int_new(xs, n - 1);
    ya = vips_array_int_new(ys, n - 1);
    failed = vips_composite(layers, out, n, modes, "x", xa, "y", ya, NULL);
    vips_area_unref(VIPS_AREA(xa));
    vips_area_unref(VIPS_AREA(ya));
    return failed;
}

/* An opaque 8-bit photo (almost all) with the band painted over rows
 * [y, y + height), the text `text_y` rows down in them, in one operation
 * (overlay.h); the same pixels as paint_opaque's. */
static int
paint_overlay(const caption_burn_opts *o, VipsImage *in, VipsImage *text, int x, int y,
    int height, int text_y, double size_px, VipsImage **out)
{
    gal_overlay overlay = {
        .band_top = y,
        .band_height = height,
        .band_rgb = { (int) lround(o->band.r), (int) lround(o->band.g), (int) lround(o->band.b) },
        .band_alpha = (int) lround(o->band.a),
        .area = { 0, y, in->Xsize, height },
    };
    g_autoptr(VipsImage) shadow = NULL;
    g_autoptr(VipsImage) shadow_pixels = NULL;
    int dx, dy;

    if (o->band.a == 0) {
        if (make_shadow(text, size_px, &shadow, &dx, &dy) ||
            !(shadow_pixels = vips_image_copy_memory(shadow)))
            return -1;
        overlay.pictures[overlay.n_pictures++] =
            (gal_overlay_picture) { shadow_pixels, x + dx, y + text_y + dy };
    }
    overlay.pictures[overlay.n_pictures++] = (gal_overlay_picture) { text, x, y + text_y };
    return gal__overlay(in, &overlay, out);
}

/* Paint rows [y, y + height) of `in`, the text `text_y` rows down in them,
 * and put them back: every other row passes through untouched, and nothing
 * is evaluated here. */
static int
paint_rows(const caption_burn_opts *o, VipsImage *in, VipsImage *text, int x, int y,
    int height, int text_y, double size_px, VipsImage **out)
{
    g_autoptr(VipsImage) strip = NULL;
    g_autoptr(VipsImage) painted = NULL;
    g_autoptr(VipsImage) cast = NULL;
    VipsImage *current;

    if (gal__overlay_fits(in))
        return paint_overlay(o, in, text, x, y, height, text_y, size_px, out);
    if (vips_extract_area(in, &strip, 0, y, in->Xsize, height, NULL))
        return -1;
    if (in->Bands == 3 ? paint_opaque(o, strip, text, x, text_y, size_px, &painted)
                       : paint_alpha(o, strip, text, x, text_y, size_px, &painted))
        return -1;
    current = painted;
    if (current->BandFmt != in->BandFmt) {
        if (vips_cast(current, &cast, in->BandFmt, NULL))
            return -1;
        current = cast;
    }
    return vips_insert(in, current, out, 0, y, NULL);
}

static int
caption_burn_build(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in,
    VipsImage **out, gal_error *err)
{
    const caption_burn_opts *o = sc->opts;
    const caption_burn_shared *shared = sc->shared;
    g_autofree char *text = gal__template_render(o->text, photo->facts, FALSE);
    int width = in->Xsize, height = in->Ysize;
    int reserved_top = gal__meta_int(in, GAL_META_RESERVED_TOP);
    int reserved_bottom = gal__meta_int(in, GAL_META_RESERVED_BOTTOM);
    int pad = MAX(0, gal__length_px(&o->padding, MIN(width, height)));
    double size_px = MAX(MIN_SIZE_PX, o->size.relative ? o->size.value * height / 100.0
                                                       : o->size.value);
    /* The band takes at most half of the rows no earlier band took. */
    int free_rows = height - reserved_top - reserved_bottom;
    int max_text_height = free_rows / 2 - 2 * pad;
    gal_text_style style = { shared->family, NULL, size_px, o->color,
        o->hashtag_color.a > 0 ? &o->hashtag_color : NULL, width - 2 * pad, o->align,
        o->max_lines };
    g_autoptr(VipsImage) block = NULL;
    gal_text_info info;
    gboolean shows_caption = gal__template_uses(o->text, "caption");
    int align, x, y, text_y, band_height;

    if (style.wrap_px < size_px || max_text_height < size_px) {
        /* Too small a photo (or too much padding) for even one line. */
        if (vips_copy(in, out, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "caption band");
        if (shows_caption && *text)
            vips_image_set_int(*out, GAL_META_CAPTION_CUT, 1);
        return 0;
    }
    if (gal__text_render_bounded(text, &style, max_text_height, &block, &info, err)) {
        err->line = sc->loc.line;
        err->col = sc->loc.col;
        if (sc->loc.file)
            gal__utf8_copy(err->file, sc->loc.file, sizeof(err->file));
        return -1;
    }
    if (!block) {
        *out = g_object_ref(in); /* no caption: no band */
        return 0;
    }

    /* Pango lines up right-to-left text from the right for "left"; the
     * block follows, so the whole caption sits on the side it starts. */
    align = o->align;
    if (info.rtl && align != GAL_ALIGN_CENTRE)
        align = align == GAL_ALIGN_LEFT ? GAL_ALIGN_RIGHT : GAL_ALIGN_LEFT;
    x = align == GAL_ALIGN_LEFT ? pad
        : align == GAL_ALIGN_RIGHT ? width - pad - block->Xsize
                                   : (width - block->Xsize) / 2;
    x = CLAMP(x, 0, MAX(0, width - block->Xsize));
    /* The band follows the font's line grid, not the ink: every one-line
     * caption gets the same band, descenders or not. A glyph that reaches
     * out of the grid (a tall script, an emoji) makes room for itself. */
    text_y = pad + info.ink_top;
    band_height = 2 * pad + info.box_height;
    if (text_y < 0) {
        band_height -= text_y;
        text_y = 0;
    }
    band_height = MAX(band_height, text_y + block->Ysize + 1);
    band_height = MIN(band_height, free_rows);
    y = o->gravity == GRAVITY_SOUTH ? height - reserved_bottom - band_height
        : o->gravity == GRAVITY_NORTH ? reserved_top
                                      : reserved_top + (free_rows - band_height) / 2;

    if (paint_rows(o, in, block, x, y, band_height, text_y, size_px, out))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "caption band");
    /* Only an edge band narrows the rows later overlays may use. */
    if (o->gravity == GRAVITY_SOUTH)
        vips_image_set_int(*out, GAL_META_RESERVED_BOTTOM, reserved_bottom + band_height);
    else if (o->gravity == GRAVITY_NORTH)
        vips_image_set_int(*out, GAL_META_RESERVED_TOP, reserved_top + band_height);
    /* For the run report: what the photo shows of its caption. */
    if (shows_caption) {
        vips_image_set_string(*out, GAL_META_CAPTION, text);
        if (info.cut)
            vips_image_set_int(*out, GAL_META_CAPTION_CUT, 1);
    }
    return 0;
}

const gal_stage_def gal_stage_caption_burn = {
    .name = "caption-burn",
    .summary = "draw the photo's caption in a band along the bottom or top edge",
    .params = caption_burn_params,
    .opts_size = sizeof(caption_burn_opts),
    .kind = GAL_STAGE_MAP,
    .prepare = caption_burn_prepare,
    .release = caption_burn_release,
    .build = caption_burn_build,
};
