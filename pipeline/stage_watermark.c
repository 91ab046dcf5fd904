/* Watermark: a logo image or a line of text, placed at a gravity point (or
 * tiled across the photo), sized from the photo's short edge, blended.
 *
 * prepare() decodes the logo (or renders fixed text) once, as premultiplied
 * sRGB RGBA with the opacity applied. build() scales it to the photo in
 * hand; each distinct size is made once and kept, in memory, in a cache
 * shared by the workers (the only mutable shared state, behind a lock).
 * Compositing touches only the rectangle under the mark: that region is cut
 * out, blended and inserted back, all lazily. Text that uses per-photo
 * fields ({date}, {artist}...) is rendered per photo. A text mark is one
 * line of at most MARK_MAX_CHARS characters: longer fixed text is a preset
 * error at its key, and a longer per-photo text (a {caption}) is cut.
 *
 * `color: auto` draws the text in one of two inks (INK_LIGHT, INK_DARK),
 * each with a shadow in the other, chosen per photo from the lightness of
 * the pixels the mark will cover. Measuring needs those pixels before the
 * encoder pulls the photo through in sequential strips, so the photo as it
 * is here (already at output size) is held in memory once, through the
 * photo's watch, and both the measure and the rest of the graph read it:
 * the decoder still runs once. */
#include <string.h>

#include "internal.h"
#include "decode.h"
#include "error.h"
#include "limit.h"
#include "overlay.h"
#include "schema.h"
#include "stage.h"
#include "template.h"
#include "text.h"

typedef enum { GRAVITY_CENTRE, GRAVITY_NORTH, GRAVITY_NORTH_EAST, GRAVITY_EAST,
    GRAVITY_SOUTH_EAST, GRAVITY_SOUTH, GRAVITY_SOUTH_WEST, GRAVITY_WEST,
    GRAVITY_NORTH_WEST } mark_gravity;
static const char *const mark_gravity_names[] = { "centre", "north", "north-east", "east",
    "south-east", "south", "south-west", "west", "north-west", NULL };

typedef enum { TILE_OFF, TILE_GRID, TILE_DIAGONAL } mark_tile;
static const char *const mark_tile_names[] = { "false", "true", "diagonal", NULL };

typedef enum { BLEND_OVER, BLEND_MULTIPLY, BLEND_SCREEN, BLEND_OVERLAY, BLEND_SOFT_LIGHT,
    BLEND_DARKEN, BLEND_LIGHTEN } mark_blend;
static const char *const mark_blend_names[] = { "over", "multiply", "screen", "overlay",
    "soft-light", "darken", "lighten", NULL };
static const VipsBlendMode blend_modes[] = { VIPS_BLEND_MODE_OVER, VIPS_BLEND_MODE_MULTIPLY,
    VIPS_BLEND_MODE_SCREEN, VIPS_BLEND_MODE_OVERLAY, VIPS_BLEND_MODE_SOFT_LIGHT,
    VIPS_BLEND_MODE_DARKEN, VIPS_BLEND_MODE_LIGHTEN };

typedef struct {
    char *image;
    gal_template *text;
    char *font;
    gal_color color;
    mark_gravity gravity;
    gal_size size;
    gal_length font_size; /* text marks: 0 = follow `size` */
    bool shadow;          /* text marks: a soft shadow in the contrasting ink */
    bool outline;         /* text marks: an outline in the contrasting ink */
    gal_length margin;
    double opacity;
    mark_tile tile;
    mark_blend blend;
} watermark_opts;

/* A mark is one line drawn across part of the photo: a short credit, or
 * at most a caption. Drawn whole, a longer line would be wider than the
 * largest surface Cairo makes (see TEXT_RENDER_MAX_WIDTH), and unreadable
 * once scaled to the photo anyway. */
#define MARK_MAX_CHARS 1000


static const gal_param watermark_params[] = {
    GAL_PARAM_PATH(watermark_opts, image,
        "logo image (PNG, WebP or SVG, ideally with alpha), relative to the preset; over a "
        "parent's text mark, replaces it",
        GAL_ALTERNATIVE),
    GAL_PARAM_TEMPLATE_MAX(watermark_opts, text,
        "text to draw instead of an image, a template such as \"© {artist} {date:%Y}\"; one "
        "line of at most " G_STRINGIFY(MARK_MAX_CHARS) " characters (a longer caption in it is "
        "cut); over a parent's image mark, replaces it; a mark whose fields the photo lacks "
        "(no {copyright} in its EXIF) is not drawn, unless they give a fallback ({artist|})",
        NULL, MARK_MAX_CHARS, GAL_ALTERNATIVE),
    GAL_PARAM_STRING(watermark_opts, font,
        "font family and style for text, or a font file relative to the preset",
        "DejaVu Sans Bold"),
    GAL_PARAM_COLOR_AUTO(watermark_opts, color,
        "text colour; auto picks, per photo, white with a dark shadow or near-black with a "
        "light shadow, whichever reads better on the part of the photo under the mark",
        "white"),
    GAL_PARAM_ENUM(watermark_opts, gravity, mark_gravity, "where the mark sits", "south-east"),
    GAL_PARAM_SIZE(watermark_opts, size,
        "mark width as a share of the photo's short edge (same look on portrait and "
        "landscape), or pixels; {relative: 15%, min: 64, max: 400} bounds it",
        "15%", 10000),
    GAL_PARAM_LENGTH(watermark_opts, font_size,
        "text marks: the letters' size, as a share of the photo's short edge or pixels, "
        "instead of the mark's width (size); the mark still keeps inside the photo",
        NULL, 2000),
    GAL_PARAM_BOOL(watermark_opts, shadow,
        "text marks: a soft drop shadow in the contrasting ink (black under light text, white "
        "under dark), so the text reads on any photo",
        "false"),
    GAL_PARAM_BOOL(watermark_opts, outline,
        "text marks: an outline in the contrasting ink, about a sixteenth of the letter size",
        "false"),
    GAL_PARAM_LENGTH(watermark_opts, margin,
        "gap to the photo's edges, as a share of the short edge or pixels; also the gap "
        "between tiles",
        "3%", 2000),
    GAL_PARAM_DOUBLE(watermark_opts, opacity, "0 hides the mark, 1 shows it as it is", "0.5",
        0.0, 1.0),
    GAL_PARAM_ENUM(watermark_opts, tile, mark_tile,
        "true repeats the mark across the photo, diagonal repeats it turned 45 degrees "
        "(for proofs)",
        "false"),
    GAL_PARAM_ENUM(watermark_opts, blend, mark_blend, "how the mark mixes with the photo",
        "over"),
    GAL_PARAM_END,
};

/* The inks of a text mark: the colour given (INK_LIGHT's slot), or, for
 * `color: auto`, one of two chosen per photo. */
typedef enum { INK_LIGHT, INK_DARK, N_INKS } mark_ink;

/* color: auto's inks. The dark one is not pure black, which looks like a
 * hole in a photo; each gets a shadow in the other ink (contrast_ink). */
static const gal_color auto_inks[N_INKS] = { { 255, 255, 255, 255, FALSE },
    { 26, 26, 26, 255, FALSE } };
/* color: auto draws the dark ink when the mean CIE L* (0..100) under the
 * mark is above this. Mid-grey is L* 50, where white and near-black text
 * contrast about equally; the light ink, the usual look of a credit, is
 * kept a little further, since its dark shadow helps it there. */
#define AUTO_DARK_ABOVE_L 60.0

typedef struct {
    /* Per ink: premultiplied float RGBA, opacity applied; NULL for
     * per-photo text. Only INK_LIGHT's slot unless color: auto. */
    VipsImage *master[N_INKS];
    char *family;           /* font family to ask Pango for */
    int render_px;          /* the font size fixed text was rendered at */
    GMutex lock;            /* guards `scaled` and `texts` */
    GHashTable *scaled;     /* width in px * N_INKS + ink -> VipsImage * (memory) */
    /* Per-photo text ("{copyright}"), which most photos of a shoot share:
     * "ink\ntext" -> text_mark, so that a text is drawn and scaled once. */
    GHashTable *texts;
} watermark_shared;

/* One per-photo text's mark: its master (as master[] above), the size it
 * was drawn at, and its scaled copies (width -> VipsImage *, memory). */
typedef struct {
    VipsImage *master;
    int render_px;
    GHashTable *scaled;
} text_mark;

static void
text_mark_free(gpointer data)
{
    text_mark *mark = data;

    g_object_unref(mark->master);
    g_hash_table_destroy(mark->scaled);
    g_free(mark);
}

/* Text is rendered this large and scaled down to the size a photo needs. */
#define TEXT_RENDER_PX 160
/* Cairo refuses surfaces wider than 32767 px. A glyph is at most about an
 * em wide, so a long text (a whole caption) is rendered smaller, keeping its
 * line under this width; it is scaled down to the photo anyway. At
 * MARK_MAX_CHARS that is 16 px; a text of the few glyphs far wider than an
 * em (1000 three-em dashes, U+2E3B, are 48000 px) may still pass Cairo's
 * limit, and is then drawn smaller again, down to TEXT_RENDER_MIN_PX. */
#define TEXT_RENDER_MAX_WIDTH 16000
#define TEXT_RENDER_MIN_PX 4
/* A text mark drawn at a font size under this many pixels gets a warning:
 * below about 10 px, letters blur into one another on a screen. */
#define SMALL_TEXT_PX 10

static int
watermark_check(const gal_stage_ctx *sc, gal_error *err)
{
    const watermark_opts *o = sc->opts;

    if (!o->image == !o->text)
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "watermark",
            "give exactly one of image or text");
    if (o->image && (o->shadow || o->outline))
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc,
            o->shadow ? "watermark.shadow" : "watermark.outline",
            "shadow and outline are for text marks; a logo carries its own");
    if (o->image && o->color.automatic)
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "watermark.color",
            "color: auto picks a text mark's ink; a logo keeps its own colours");
    if (o->image && o->font_size.value > 0)
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "watermark.font-size",
            "font-size sizes text marks; size an image mark with size");
    return 0;
}

/* Premultiplied RGBA float with the opacity applied: the form every size is
 * scaled from and composited in. */
static int
to_master(const gal_stage_ctx *sc, VipsImage *in, VipsImage **out, gal_error *err)
{
    const watermark_opts *o = sc->opts;
    g_autoptr(VipsImage) srgb = NULL;
    g_autoptr(VipsImage) alpha = NULL;
    g_autoptr(VipsImage) premultiplied = NULL;
    g_autoptr(VipsImage) faded = NULL;
    VipsImage *current = in;

    if (vips_colourspace(current, &srgb, VIPS_INTERPRETATION_sRGB, NULL))
        return gal_error_from_vips(err, GAL_ERR_PRESET, &sc->loc, "watermark image");
    current = srgb;
    if (!vips_image_hasalpha(current)) {
        if (vips_addalpha(current, &alpha, NULL))
            return gal_error_from_vips(err, GAL_ERR_PRESET, &sc->loc, "watermark image");
        current = alpha;
    }
    if (vips_premultiply(current, &premultiplied, NULL) ||
        vips_linear1(premultiplied, &faded, o->opacity, 0, NULL))
        return gal_error_from_vips(err, GAL_ERR_PRESET, &sc->loc, "watermark image");
    if (!(*out = vips_image_copy_memory(faded)))
        return gal_error_from_vips(err, GAL_ERR_PRESET, &sc->loc, "watermark image");
    return 0;
}

/* The text's look in one ink: its colour, and whether a shadow and an
 * outline (in the contrasting ink) go under it. */
typedef struct {
    gal_color color;
    bool shadow, outline;
} ink_style;

/* The look of ink `ink`: the colour and keys given, or color: auto's
 * inks, which always have their shadow. */
static ink_style
style_of(const watermark_opts *o, mark_ink ink)
{
    if (o->color.automatic)
        return (ink_style) { auto_inks[ink], true, o->outline };
    return (ink_style) { o->color, o->shadow, o->outline };
}

/* The contrasting ink of a text colour: black under light text, white
 * under dark, for the shadow and the outline. */
static double
contrast_ink(const gal_color *color)
{
    return 0.2126 * color->r + 0.7152 * color->g + 0.0722 * color->b > 128 ? 0 : 255;
}

/* Text (straight RGBA, 8-bit, drawn at `px`) with its shadow and/or outline
 * under it: a layer of the contrasting ink whose alpha is the text's,
 * widened by about px/16 (outline) and/or
 * blurred and moved down-right by px/16 (shadow). The canvas grows to hold
 * them. */
static int
decorate(const ink_style *o, VipsImage *text, int px, VipsImage **out)
{
    int reach = MAX(1, px / 16), pad = 4 * reach;
    double ink = contrast_ink(&o->color);
    g_autoptr(VipsImage) canvas = NULL;
    g_autoptr(VipsImage) alpha = NULL;
    g_autoptr(VipsImage) under_alpha = NULL;
    g_autoptr(VipsImage) ink_rgb = NULL;
    g_autoptr(VipsImage) under = NULL;
    g_autoptr(VipsImage) under_srgb = NULL;
    g_autoptr(VipsImage) mixed = NULL;
    VipsImage *layers[2];

    if (vips_embed(text, &canvas, pad, pad, text->Xsize + 2 * pad, text->Ysize + 2 * pad,
            NULL) ||
        vips_extract_band(canvas, &alpha, 3, NULL))
        return -1;
    under_alpha = g_object_ref(alpha);
    if (o->outline) {
        VipsImage *soft, *wide;

        /* The alpha spread by a blur and made solid again: an outline about
         * `reach` wide with a soft rim (a rank filter's square is blocky). */
        if (vips_gaussblur(under_alpha, &soft, MAX(0.5, reach / 2.0), NULL))
            return -1;
        if (vips_linear1(soft, &wide, 4.0, 0, "uchar", TRUE, NULL)) {
            g_object_unref(soft);
            return -1;
        }
        g_object_unref(soft);
        g_object_unref(under_alpha);
        under_alpha = wide;
    }
    if (o->shadow) {
        VipsImage *soft, *moved, *both;

        if (vips_gaussblur(under_alpha, &soft, reach, NULL))
            return -1;
        if (vips_embed(soft, &moved, reach, reach, soft->Xsize, soft->Ysize, NULL)) {
            g_object_unref(soft);
            return -1;
        }
        g_object_unref(soft);
        /* With an outline too, the shadow falls from the outline. */
        if (o->outline) {
            VipsImage *pair[2] = { under_alpha, moved };

            /* Per pixel, the larger of the two alphas. */
            if (vips_bandrank(pair, &both, 2, "index", 1, NULL)) {
                g_object_unref(moved);
                return -1;
            }
            g_object_unref(moved);
        }
        else
            both = moved;
        g_object_unref(under_alpha);
        under_alpha = both;
    }
    if (vips_black(&ink_rgb, canvas->Xsize, canvas->Ysize, "bands", 3, NULL))
        return -1;
    {
        g_autoptr(VipsImage) lifted = NULL;
        g_autoptr(VipsImage) rgb8 = NULL;
        g_autoptr(VipsImage) alpha8 = NULL;

        if (vips_linear1(ink_rgb, &lifted, 1, ink, NULL) ||
            vips_cast_uchar(lifted, &rgb8, NULL) || vips_cast_uchar(under_alpha, &alpha8, NULL) ||
            vips_bandjoin2(rgb8, alpha8, &under, NULL) ||
            vips_copy(under, &under_srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
            return -1;
    }
    layers[0] = under_srgb;
    layers[1] = canvas;
    if (vips_composite(layers, &mixed, 2, (int[]) { VIPS_BLEND_MODE_OVER }, NULL) ||
        vips_cast_uchar(mixed, out, NULL))
        return -1;
    return 0;
}

/* The mark's text as an image. A per-photo text longer than a mark is
 * cut. Errors (`code`: PRESET in prepare, STAGE per photo) name the key
 * and the stage's place in the preset. */
static int
render_text(const gal_stage_ctx *sc, const watermark_shared *shared, const char *text,
    mark_ink ink, gal_code code, VipsImage **out, int *render_px, gal_error *err)
{
    const ink_style look = style_of(sc->opts, ink);
    const ink_style *o = &look;
    g_autofree char *valid = g_utf8_make_valid(text, -1);
    g_autofree char *line = gal__excerpt(valid, MARK_MAX_CHARS);
    glong chars = MAX(1, g_utf8_strlen(line, -1));
    int px = (int) CLAMP(TEXT_RENDER_MAX_WIDTH / chars, 8, TEXT_RENDER_PX);
    gal_text_info info;

    for (;; px /= 2) {
        gal_text_style style = { shared->family, NULL, px, o->color, NULL, 0, GAL_ALIGN_LEFT,
            0 };
        gal_error attempt = { 0 };

        *render_px = px;
        if (gal__text_render(line, &style, out, &info, &attempt) == 0) {
            VipsImage *decorated;

            if (!*out || !(o->shadow || o->outline))
                return 0;
            if (decorate(o, *out, px, &decorated)) {
                g_clear_object(out);
                return gal_error_from_vips(err, code, &sc->loc, "watermark.text");
            }
            g_object_unref(*out);
            *out = decorated;
            return 0;
        }
        if (px / 2 < TEXT_RENDER_MIN_PX)
            return gal_error_set(err, code, &sc->loc, "watermark.text",
                "cannot draw the text as one line, even at %d px: %s", px, attempt.msg);
    }
}

static void
watermark_release(void *data)
{
    watermark_shared *shared = data;

    if (!shared)
        return;
    for (int i = 0; i < N_INKS; i++)
        VIPS_UNREF(shared->master[i]);
    g_free(shared->family);
    g_mutex_clear(&shared->lock);
    g_hash_table_destroy(shared->scaled);
    g_hash_table_destroy(shared->texts);
    g_free(shared);
}

static gboolean
text_is_fixed(const gal_template *text)
{
    return !gal__template_uses_any(text, GAL_FIELD_PER_PHOTO);
}

/* An SVG logo is drawn this wide (or at its own size, if larger), so that
 * every mark scaled from it is a reduction, which stays sharp. */
#define SVG_RENDER_PX 1200

static int
watermark_prepare(const gal_stage_ctx *sc, void **out, gal_error *err)
{
    const watermark_opts *o = sc->opts;
    watermark_shared *shared = g_new0(watermark_shared, 1);

    g_mutex_init(&shared->lock);
    shared->scaled = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_object_unref);
    shared->texts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, text_mark_free);
    if (o->image) {
        g_autoptr(VipsImage) logo = NULL;
        /* At the image's value, not at the stage's name: a logo that is
         * no image is that line's fault. */
        const gal_loc *at = gal__stage_key_loc(sc, watermark_params, "image");

        if (gal__logo_load(o->image, gal__limits.logo_bytes, gal__limits.logo_pixels,
                SVG_RENDER_PX, &logo, err) ||
            to_master(sc, logo, &shared->master[INK_LIGHT], err)) {
            if (!err->line) {
                err->line = at->line;
                err->col = at->col;
                gal__utf8_copy(err->file, at->file ? at->file : "", sizeof(err->file));
                g_strlcpy(err->key, "watermark.image", sizeof(err->key));
            }
            watermark_release(shared);
            return -1;
        }
    }
    else {
        if (gal__font_prepare(o->font, gal__stage_key_loc(sc, watermark_params, "font"),
                sc->follow_links, "watermark.font", &shared->family, err)) {
            watermark_release(shared);
            return -1;
        }
        if (text_is_fixed(o->text)) {
            gal_facts none = { 0 };
            g_autofree char *text = gal__template_render(o->text, &none, FALSE);

            /* Both of auto's inks, once: a photo picks one. They differ
             * only in colour, so they have the same size. */
            for (int ink = 0; ink < (o->color.automatic ? N_INKS : 1); ink++) {
                g_autoptr(VipsImage) rendered = NULL;

                if (render_text(sc, shared, text, ink, GAL_ERR_PRESET, &rendered,
                        &shared->render_px, err) ||
                    (rendered && to_master(sc, rendered, &shared->master[ink], err))) {
                    watermark_release(shared);
                    return -1;
                }
            }
        }
    }
    *out = shared;
    return 0;
}

/* `master` scaled to `width` pixels wide, in memory. */
static VipsImage *
scale_master(VipsImage *master, int width)
{
    VipsImage *scaled = NULL, *memory;

    if (vips_resize(master, &scaled, (double) width / master->Xsize, NULL))
        return NULL;
    memory = vips_image_copy_memory(scaled);
    g_object_unref(scaled);
    return memory;
}

/* Batches of one shape (Instagram posts) need one size; `inside` resizes of
 * mixed shapes need one per short edge. Past this many sizes, new ones are
 * made per photo rather than kept, so memory stays bounded. */
#define MAX_CACHED_SIZES 32

/* `master` at `width`, from `sizes` (width or width and ink -> VipsImage *,
 * under shared->lock; NULL: no cache) when another photo needed that size
 * under `key`, else scaled and kept there. */
static VipsImage *
cached_scale(watermark_shared *shared, GHashTable *sizes, gpointer key, VipsImage *master,
    int width)
{
    VipsImage *mark;

    if (!sizes)
        return scale_master(master, width);
    g_mutex_lock(&shared->lock);
    mark = g_hash_table_lookup(sizes, key);
    if (mark)
        g_object_ref(mark);
    else if ((mark = scale_master(master, width)) &&
        g_hash_table_size(sizes) < MAX_CACHED_SIZES)
        g_hash_table_insert(sizes, key, g_object_ref(mark));
    g_mutex_unlock(&shared->lock);
    return mark;
}

/* The mark in `ink` at `width`. */
static VipsImage *
scaled_mark(watermark_shared *shared, mark_ink ink, int width)
{
    return cached_scale(shared, shared->scaled, GINT_TO_POINTER(width * N_INKS + ink),
        shared->master[ink], width);
}

/* Past this many texts a photo's own text is drawn for it alone, so that
 * a shoot with a credit per photo keeps memory bounded. */
#define MAX_CACHED_TEXTS 32

/* Photo text `text` in `ink` as a master (see to_master), and the size it
 * was drawn at: drawn once, and taken from the cache for every other photo
 * with the same text. A new reference in *master, NULL when the text draws
 * nothing; *sizes is the text's cache of scaled copies for cached_scale
 * (entries live as long as the stage), NULL when it is not kept. */
static int
text_master(const gal_stage_ctx *sc, watermark_shared *shared, const char *text, mark_ink ink,
    VipsImage **master, int *render_px, GHashTable **sizes, gal_error *err)
{
    g_autofree char *key = g_strdup_printf("%d\n%s", ink, text);
    g_autoptr(VipsImage) rendered = NULL;
    const text_mark *known;

    *master = NULL;
    *sizes = NULL;
    g_mutex_lock(&shared->lock);
    if ((known = g_hash_table_lookup(shared->texts, key))) {
        *master = g_object_ref(known->master);
        *render_px = known->render_px;
        *sizes = known->scaled;
    }
    g_mutex_unlock(&shared->lock);
    if (known)
        return 0;
    /* Drawn outside the lock: other photos' workers go on meanwhile. */
    if (render_text(sc, shared, text, ink, GAL_ERR_STAGE, &rendered, render_px, err))
        return -1;
    if (!rendered)
        return 0;
    if (to_master(sc, rendered, master, err))
        return -1;
    g_mutex_lock(&shared->lock);
    if (!g_hash_table_contains(shared->texts, key) &&
        g_hash_table_size(shared->texts) < MAX_CACHED_TEXTS) {
        text_mark *mark = g_new0(text_mark, 1);

        mark->master = g_object_ref(*master);
        mark->render_px = *render_px;
        mark->scaled = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_object_unref);
        *sizes = mark->scaled;
        g_hash_table_insert(shared->texts, g_steal_pointer(&key), mark);
    }
    g_mutex_unlock(&shared->lock);
    return 0;
}

static void
place(int gravity, int area_w, int area_top, int area_h, int w, int h, int margin, int *x,
    int *y)
{
    static const int column[] = { 1, 1, 2, 2, 2, 1, 0, 0, 0 }; /* 0 west, 1 centre, 2 east */
    static const int row[] = { 1, 0, 0, 1, 2, 2, 2, 1, 0 };    /* 0 north, 1 middle, 2 south */

    *x = column[gravity] == 0 ? margin : column[gravity] == 2 ? area_w - w - margin
                                                              : (area_w - w) / 2;
    *y = area_top + (row[gravity] == 0 ? margin : row[gravity] == 2 ? area_h - h - margin
                                                                     : (area_h - h) / 2);
}

/* Blend a premultiplied `mark` over `base` (8-bit sRGB, alpha or not),
 * keeping the base's bands and format. */
static int
blend(const watermark_opts *o, VipsImage *base, VipsImage *mark, VipsImage **out)
{
    g_autoptr(VipsImage) base_pre = NULL;
    g_autoptr(VipsImage) mixed = NULL;
    g_autoptr(VipsImage) straight = NULL;
    g_autoptr(VipsImage) bands = NULL;
    VipsImage *current;

    /* Without alpha the base is opaque, and premultiplied equals straight. */
    if (vips_image_hasalpha(base)) {
        if (vips_premultiply(base, &base_pre, NULL))
            return -1;
        base = base_pre;
    }
    if (vips_composite2(base, mark, &mixed, blend_modes[o->blend], "premultiplied", TRUE,
            "compositing_space", VIPS_INTERPRETATION_sRGB, NULL))
        return -1;
    current = mixed;
    if (base_pre) {
        if (vips_unpremultiply(current, &straight, NULL))
            return -1;
        current = straight;
    }
    else {
        if (vips_extract_band(current, &bands, 0, "n", 3, NULL))
            return -1;
        current = bands;
    }
    return vips_cast_uchar(current, out, NULL);
}

static int
tiled(const gal_stage_ctx *sc, VipsImage *in, VipsImage *mark, int gap, VipsImage **out)
{
    const watermark_opts *o = sc->opts;
    g_autoptr(VipsImage) turned = NULL;
    g_autoptr(VipsImage) cell = NULL;
    g_autoptr(VipsImage) sheet = NULL;
    g_autoptr(VipsImage) cover = NULL;
    VipsImage *unit = mark;

    if (o->tile == TILE_DIAGONAL) {
        if (vips_rotate(mark, &turned, -45, NULL))
            return -1;
        unit = turned;
    }
    /* Transparent (premultiplied zero) gaps around each copy. */
    if (vips_embed(unit, &cell, gap / 2, gap / 2, unit->Xsize + gap, unit->Ysize + gap, NULL) ||
        vips_replicate(cell, &sheet, in->Xsize / cell->Xsize + 1, in->Ysize / cell->Ysize + 1,
            NULL) ||
        vips_extract_area(sheet, &cover, 0, 0, in->Xsize, in->Ysize, NULL))
        return -1;
    return blend(o, in, cover, out);
}

/* Mean CIE L* (0..100) of the `w` x `h` area at x, y of `image`, which is
 * in memory: a reduction, which a sequential graph could not give before
 * the encoder has read the rows. */
static int
mean_lightness(VipsImage *image, int x, int y, int w, int h, double *out)
{
    g_autoptr(VipsImage) area = NULL;
    g_autoptr(VipsImage) lab = NULL;
    g_autoptr(VipsImage) lightness = NULL;

    if (vips_extract_area(image, &area, x, y, w, h, NULL) ||
        vips_colourspace(area, &lab, VIPS_INTERPRETATION_LAB, NULL) ||
        vips_extract_band(lab, &lightness, 0, NULL) ||
        vips_avg(lightness, out, NULL))
        return -1;
    return 0;
}

static int
watermark_build(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in,
    VipsImage **out, gal_error *err)
{
    const watermark_opts *o = sc->opts;
    watermark_shared *shared = (watermark_shared *) sc->shared;
    int short_edge = MIN(in->Xsize, in->Ysize);
    int margin = gal__length_px(&o->margin, short_edge);
    /* Bands an earlier stage drew (a caption) are not covered. */
    int top = gal__meta_int(in, GAL_META_RESERVED_TOP);
    int area_h = in->Ysize - top - gal__meta_int(in, GAL_META_RESERVED_BOTTOM);
    g_autofree char *text = NULL;
    g_autoptr(VipsImage) held = NULL;
    g_autoptr(VipsImage) per_photo = NULL;
    g_autoptr(VipsImage) mark = NULL;
    g_autoptr(VipsImage) region = NULL;
    g_autoptr(VipsImage) mixed = NULL;
    g_autoptr(VipsImage) placed = NULL;
    VipsImage *master = shared->master[INK_LIGHT];
    GHashTable *text_sizes = NULL; /* the photo's text's scaled copies, when kept */
    int render_px = shared->render_px;
    double aspect;
    int width, height, x, y;

    if (photo->facts && photo->facts->no_watermark) {
        /* The photo's sidecar (or its row of the captions table) said
         * watermark: false. */
        *out = g_object_ref(in);
        return 0;
    }
    if (!master && o->text) {
        /* Text with per-photo fields: this photo's own rendering (or the
         * one of an earlier photo with the same text). A credit is drawn
         * whole or not at all: "© {artist}" without an artist would be a
         * stray sign over someone's photo. */
        text = gal__template_render_whole(o->text, photo->facts);
        if (text && text_master(sc, shared, text, INK_LIGHT, &per_photo, &render_px,
                        &text_sizes, err))
            return -1;
        master = per_photo;
    }
    if (!master || o->opacity == 0) {
        *out = g_object_ref(in); /* empty text, or nothing to see */
        return 0;
    }

    /* Size from the photo as it is now; never larger than the free area,
     * and never cropped: shrink to fit instead. */
    aspect = (double) master->Ysize / master->Xsize;
    if (o->text && o->font_size.value > 0 && render_px > 0)
        /* Letters of font-size px: the rendering scaled by font / render. */
        width = (int) lround(master->Xsize * gal__length_px(&o->font_size, short_edge) /
            (double) render_px);
    else
        width = gal__size_px(&o->size, short_edge);
    width = MIN(width, in->Xsize - 2 * margin);
    width = MIN(width, (int) ((area_h - 2 * margin) / aspect));
    if (width < 1) {
        *out = g_object_ref(in); /* no room at all: a 1 px sliver helps nobody */
        return 0;
    }
    if (per_photo)
        mark = cached_scale(shared, text_sizes, GINT_TO_POINTER(width), per_photo, width);
    else
        mark = scaled_mark(shared, INK_LIGHT, width);
    if (!mark)
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
    height = mark->Ysize;
    place(o->gravity, in->Xsize, top, area_h, mark->Xsize, height, margin, &x, &y);

    if (o->color.automatic) {
        /* The ink from the pixels under the mark (the whole photo under
         * tiles), read from memory: see the top of the file. */
        double lightness;

        if (!(held = gal__watch_to_memory(photo->watch, in, "watermark (color: auto)", err)))
            return -1;
        in = held;
        if (o->tile != TILE_OFF ? mean_lightness(in, 0, 0, in->Xsize, in->Ysize, &lightness)
                                : mean_lightness(in, x, y, mark->Xsize, height, &lightness))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "color: auto");
        if (lightness > AUTO_DARK_ABOVE_L) {
            g_clear_object(&mark);
            if (per_photo) {
                g_clear_object(&per_photo);
                if (text_master(sc, shared, text, INK_DARK, &per_photo, &render_px,
                        &text_sizes, err))
                    return -1;
                if (!per_photo)
                    return gal_error_set(err, GAL_ERR_STAGE, &sc->loc, "watermark.text",
                        "the text drew nothing in the dark ink");
                master = per_photo;
                mark = cached_scale(shared, text_sizes, GINT_TO_POINTER(width), per_photo,
                    width);
            }
            else {
                master = shared->master[INK_DARK];
                mark = scaled_mark(shared, INK_DARK, width);
            }
            if (!mark)
                return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "scale");
        }
    }

    if (o->tile != TILE_OFF) {
        if (tiled(sc, in, mark, MAX(margin, 1), out))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "tile");
        return 0;
    }
    if (blend_modes[o->blend] == VIPS_BLEND_MODE_OVER && gal__overlay_fits(in) &&
        mark->BandFmt == VIPS_FORMAT_FLOAT) {
        /* Most photos and marks: one operation, the same pixels. */
        gal_overlay overlay = { .pictures = { { mark, x, y } }, .n_pictures = 1 };

        if (gal__overlay(in, &overlay, out))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "blend");
    }
    else if (vips_extract_area(in, &region, x, y, mark->Xsize, mark->Ysize, NULL) ||
        blend(o, region, mark, &mixed) ||
        vips_insert(in, mixed, &placed, x, y, NULL) ||
        vips_copy(placed, out, NULL))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "blend");
    /* `size` is a width: a long text made that wide can end up too small
     * to read, which the user would only see by looking at every photo. */
    if (o->text && render_px > 0) {
        double drawn_px = render_px * (double) mark->Xsize / master->Xsize;

        if (drawn_px < SMALL_TEXT_PX) {
            g_autofree char *line = g_strdup_printf(
                "watermark (%s:%d): its text is drawn at %.1f px, too small to read (under %d "
                "px): make `size` larger or the text shorter",
                sc->loc.file ? sc->loc.file : "preset", sc->loc.line, drawn_px, SMALL_TEXT_PX);

            gal__meta_warn(*out, line);
        }
    }
    return 0;
}

const gal_stage_def gal_stage_watermark = {
    .name = "watermark",
    .summary = "overlay a logo or text at a gravity point, or tiled",
    .params = watermark_params,
    .opts_size = sizeof(watermark_opts),
    .kind = GAL_STAGE_MAP,
    /* A child's logo over a parent's text mark leaves no text styling. */
    .alternative_keys = (const char *const[]) { "text", "font", "color", "font-size", "shadow",
        "outline", NULL },
    .check = watermark_check,
    .prepare = watermark_prepare,
    .release = watermark_release,
    .build = watermark_build,
};
