/* Contact sheet: every photo of the run as a labelled thumbnail on proof
 * sheets, in a grid or in justified rows, paginated.
 *
 * The one gathering stage. At its place in the stage list the engine asks
 * tap() for a small tile of the photo as the earlier stages left it (the
 * photo itself goes on unchanged); tiles are kept only until their page is
 * complete, then compose() lays the page out and the engine writes it.
 * The order on the sheet is the `sort` key's, never completion order, so a
 * sheet is the same whatever -j. Labels and titles are plain text drawn by
 * text.c. Not lazy: a tile is copied to memory, being small and needed
 * after its photo's graph is gone. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "error.h"
#include "format.h"
#include "resample.h"
#include "schema.h"
#include "stage.h"
#include "template.h"
#include "text.h"

typedef enum { LAYOUT_GRID, LAYOUT_JUSTIFIED } sheet_layout;
static const char *const sheet_layout_names[] = { "grid", "justified", NULL };
static const char *const gal_sort_names[] = { "name", "date", "input", NULL };

typedef struct {
    char *file;
    int columns;
    int tile;
    gal_ratio aspect;
    bool crop;
    sheet_layout layout;
    int per_page;
    int gap;
    gal_color background;
    gal_template *label;
    gal_template *title;
    gal_sort sort;
} sheet_opts;

static const gal_param sheet_params[] = {
    GAL_PARAM_STRING(sheet_opts, file,
        "sheet file name in the output folder, {page} numbered; the extension picks the "
        "format (jpg, png, webp)",
        "contact-{page}.jpg"),
    GAL_PARAM_INT(sheet_opts, columns, "thumbnails per row (grid), or the sheet's width in "
        "tiles (justified)", "6", 1, 100),
    GAL_PARAM_INT(sheet_opts, tile, "cell width in pixels (grid), or row height (justified)",
        "240", 16, 4000),
    GAL_PARAM_RATIO(sheet_opts, aspect, "cell shape, width:height (grid)", "1:1", 100),
    GAL_PARAM_BOOL(sheet_opts, crop,
        "fill each grid cell and crop (from the centre, or around a photo's own focus point), "
        "instead of fitting inside",
        "false"),
    GAL_PARAM_ENUM(sheet_opts, layout, sheet_layout,
        "grid: equal cells; justified: rows of equal height filling the width, like "
        "Flickr or Google Photos",
        "grid"),
    GAL_PARAM_INT(sheet_opts, per_page, "photos per sheet; 0 puts every photo on one sheet",
        "48", 0, 100000),
    GAL_PARAM_INT(sheet_opts, gap, "pixels between thumbnails and around them", "8", 0, 1000),
    GAL_PARAM_COLOR(sheet_opts, background, "sheet colour", "white"),
    GAL_PARAM_TEMPLATE(sheet_opts, label,
        "text under each thumbnail, a template; empty for none; too long for the cell, its "
        "middle gives way to \u2026, keeping the index and the end of the name",
        "{index}. {name}"),
    GAL_PARAM_TEMPLATE(sheet_opts, title,
        "header line of each sheet, a template ({count} photos...); the page number goes "
        "in the footer",
        NULL),
    GAL_PARAM_ENUM(sheet_opts, sort, gal_sort,
        "sheet order: file name (natural and case-insensitive: IMG_2 before IMG_10, aqua "
        "before Yellow), date taken (EXIF DateTimeOriginal; photos without one last), or the "
        "run's own order (full path); ties by path",
        "name"),
    GAL_PARAM_END,
};

/* ---- layout (pure) ------------------------------------------------------------ */

void
gal__sheet_grid(int n, int slots, const double *aspects, int columns, int tile,
    double cell_ratio, int gap, int label_height, gboolean crop, gal_rect *cells, int *width,
    int *height)
{
    int cell_h = MAX(1, (int) lround(tile * cell_ratio));
    int rows = (MAX(n, slots) + columns - 1) / columns;
    int used_columns = MIN(MAX(n, slots), columns);

    for (int i = 0; i < n; i++) {
        int col = i % columns, row = i / columns;
        int x0 = gap + col * (tile + gap);
        int y0 = gap + row * (cell_h + label_height + gap);
        double aspect = aspects[i]; /* width / height */
        int w = tile, h = cell_h;

        if (!crop) {
            /* fit inside the cell */
            if (aspect >= (double) tile / cell_h)
                h = MAX(1, (int) lround(tile / aspect));
            else
                w = MAX(1, (int) lround(cell_h * aspect));
        }
        /* centred horizontally, sitting on the label */
        cells[i] = (gal_rect) { x0 + (tile - w) / 2, y0 + (cell_h - h), w, h };
    }
    *width = gap + MAX(1, used_columns) * (tile + gap);
    *height = gap + MAX(1, rows) * (cell_h + label_height + gap);
}

void
gal__sheet_justified(int n, const double *aspects, int sheet_width, int row_height, int gap,
    int label_height, gal_rect *cells, int *height)
{
    int y = gap;
    int start = 0;

    while (start < n) {
        double widths = 0;
        int end = start;
        int free_width;
        double scale = 1;
        int x = gap;

        /* Take photos at the target height until the row is full. */
        while (end < n) {
            double w = aspects[end] * row_height;
            int gaps = gap * (end - start + 2);

            if (end > start && widths + w + gaps > sheet_width)
                break;
            widths += w;
            end++;
        }
        free_width = sheet_width - gap * (end - start + 1);
        /* A full row is scaled to fill the width; the last row keeps the
         * target height unless it overflows. */
        if (end < n || widths > free_width)
            scale = free_width / MAX(1.0, widths);
        for (int i = start; i < end; i++) {
            int w = MAX(1, (int) lround(aspects[i] * row_height * scale));
            int h = MAX(1, (int) lround(row_height * scale));

            /* The row's last photo absorbs the rounding, so rows end flush. */
            if (i == end - 1 && (end < n || widths > free_width))
                w = MAX(1, sheet_width - gap - x);
            cells[i] = (gal_rect) { x, y, w, h };
            x += w + gap;
        }
        y += (int) lround(row_height * scale) + label_height + gap;
        start = end;
    }
    *height = MAX(y, 2 * gap + 1);
}

/* The body height of every page of a justified set: that of a full page of
 * `per_page` photos of 4:3, between the square and 3:2 of most sets.
 * Every page is made to fit it (justified_fit), so a set prints and pages
 * alike, as a grid set does. */
#define JUSTIFIED_REFERENCE_ASPECT (4.0 / 3.0)

static int
justified_page_height(int per_page, int sheet_width, int row_height, int gap, int label_height)
{
    g_autofree double *aspects = g_new(double, MAX(1, per_page));
    g_autofree gal_rect *cells = g_new(gal_rect, MAX(1, per_page));
    int height;

    for (int i = 0; i < per_page; i++)
        aspects[i] = JUSTIFIED_REFERENCE_ASPECT;
    gal__sheet_justified(per_page, aspects, sheet_width, row_height, gap, label_height, cells,
        &height);
    return height;
}

/* Justified rows of `n` photos in a body `height` high: at `row_height`
 * if they fit, else at the highest row height below it that fits (lower
 * rows take more photos each: a page of panoramas). A page that needs less
 * (the short last page, portraits) keeps its rows and the rest of the body
 * stays blank. (Higher rows to fill such a page were tried: rows are
 * scaled to fill the width, so the body grows in steps as photos move
 * from row to row, and on the trip set no higher row height filled more.)
 * The body's height: `height`, or more when not even rows of 1 px fit. */
static int
justified_fit(int n, const double *aspects, int sheet_width, int row_height, int gap,
    int label_height, int height, gal_rect *cells)
{
    for (int row = row_height;; row = MIN(row - 1, row * 19 / 20)) {
        int body_h;

        gal__sheet_justified(n, aspects, sheet_width, row, gap, label_height, cells, &body_h);
        if (body_h <= height || row <= 1)
            return MAX(body_h, height);
    }
}

/* ---- options ------------------------------------------------------------------- */

/* The cell's height over its width. */
static double
cell_ratio(const sheet_opts *o)
{
    return (double) o->aspect.h / o->aspect.w;
}

static gboolean
has_label(const gal_template *tpl)
{
    return tpl && *gal__template_text(tpl);
}

/* Label text height: a tenth of the tile, readable from 16 px tiles up. */
static double
label_px(const sheet_opts *o)
{
    return MAX(9.0, o->tile / 11.0);
}

static int
label_rows(const sheet_opts *o)
{
    return has_label(o->label) ? (int) lround(label_px(o) * 1.6) : 0;
}

/* The extensions a sheet may have: ".jpg, .png or .webp". New string. */
static char *
sheet_extensions(void)
{
    GString *list = g_string_new(NULL);
    int n = 0, last = -1;

    for (int f = 0; f < GAL_N_FORMATS; f++)
        if (gal__formats[f]->sheets)
            last = f;
    for (int f = 0; f < GAL_N_FORMATS; f++) {
        if (!gal__formats[f]->sheets)
            continue;
        if (n++)
            g_string_append(list, f == last ? " or " : ", ");
        g_string_append_printf(list, ".%s", gal__formats[f]->ext);
    }
    return g_string_free(list, FALSE);
}

static int
sheet_check(const gal_stage_ctx *sc, gal_error *err)
{
    const sheet_opts *o = sc->opts;
    int format = gal__format_of_file(o->file);
    /* Messages quote the user's values only so far. */
    g_autofree char *file = gal__excerpt(o->file, GAL_EXCERPT_CHARS);

    if (!strstr(o->file, "{page}") && o->per_page > 0)
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "contact-sheet.file",
            "\"%s\" has no {page}, but sheets hold %d photos each (per-page: 0 for one sheet)",
            file, o->per_page);
    if (strchr(o->file, '/') || o->file[0] == '.')
        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "contact-sheet.file",
            "\"%s\": a sheet is a plain file name in the output folder", file);
    if (format < 0 || !gal__formats[format]->sheets) {
        g_autofree char *exts = sheet_extensions();

        return gal_error_set(err, GAL_ERR_PRESET, &sc->loc, "contact-sheet.file",
            "\"%s\": end the name in %s to choose the format", file, exts);
    }
    return 0;
}

static void
sheet_plan(const gal_stage_ctx *sc, int *per_page, gal_sort *sort)
{
    const sheet_opts *o = sc->opts;

    *per_page = o->per_page;
    *sort = o->sort;
}

static char *
sheet_page_name(const gal_stage_ctx *sc, const gal_page *page)
{
    const sheet_opts *o = sc->opts;
    g_autofree char *number = g_strdup_printf("%0*d",
        page->pages >= 100 ? 3 : page->pages >= 10 ? 2 : 1, page->number);
    g_auto(GStrv) parts = g_strsplit(o->file, "{page}", -1);

    return g_strjoinv(number, parts);
}

/* ---- per photo: the tile ---------------------------------------------------------- */

static char *
sheet_label(const gal_stage_ctx *sc, const gal_facts *facts)
{
    const sheet_opts *o = sc->opts;

    return has_label(o->label) ? gal__template_render(o->label, facts, FALSE) : NULL;
}

/* `in` (the photo in memory) fitted into `w` x `h`, or covering it and cut
 * to it from the centre (`crop`), as vips_thumbnail_image would, or around
 * the photo's own focus point when `facts` has one (overrides.h); a photo
 * smaller than that is enlarged by it, the rest shrunk by gal__shrink (its
 * 8.14 vips_shrinkh/v are plain C: the tile cost about 12% of the 1080 px
 * bench). */
static int
tile_shrink(VipsImage *in, int w, int h, gboolean crop, const gal_facts *facts, VipsImage **out)
{
    double scale = crop ? MAX((double) w / in->Xsize, (double) h / in->Ysize)
                        : MIN((double) w / in->Xsize, (double) h / in->Ysize);
    int scaled_w = MAX(1, (int) lround(in->Xsize * scale));
    int scaled_h = MAX(1, (int) lround(in->Ysize * scale));
    gboolean focused = crop && facts && facts->has_focus;
    gboolean grows = scaled_w > in->Xsize || scaled_h > in->Ysize;
    g_autoptr(VipsImage) scaled = NULL;

    if (grows && !focused)
        return vips_thumbnail_image(in, out, w, "height", h, "crop",
            crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
    if (crop) {
        scaled_w = MAX(scaled_w, w);
        scaled_h = MAX(scaled_h, h);
    }
    if (grows ? vips_resize(in, &scaled, (double) scaled_w / in->Xsize, "vscale",
                    (double) scaled_h / in->Ysize, NULL)
              : gal__shrink(in, scaled_w, scaled_h, &scaled))
        return -1;
    if (!crop) {
        *out = g_object_ref(scaled);
        return 0;
    }
    if (focused && scaled->Xsize >= w && scaled->Ysize >= h) {
        /* The window centred on the point, as near as the edges allow. */
        int left = CLAMP((int) floor(facts->focus_x * scaled->Xsize - w / 2.0), 0,
            scaled->Xsize - w);
        int top = CLAMP((int) floor(facts->focus_y * scaled->Ysize - h / 2.0), 0,
            scaled->Ysize - h);

        return vips_extract_area(scaled, out, left, top, w, h, NULL);
    }
    return vips_gravity(scaled, out, VIPS_COMPASS_DIRECTION_CENTRE, w, h, NULL);
}

/* The photo made small, for its place on the sheet, with its label text
 * attached as metadata (GAL_META_LABEL) for compose. Sized for the largest it
 * can be drawn: the grid cell, or the justified row height with room for
 * rows that stretch to fill the width. */
static int
sheet_tap(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in, VipsImage **item,
    gal_error *err)
{
    const sheet_opts *o = sc->opts;
    g_autoptr(VipsImage) small = NULL;
    g_autoptr(VipsImage) flat = NULL;
    VipsImage *current;
    int w, h;

    if (o->layout == LAYOUT_GRID) {
        w = o->tile;
        h = MAX(1, (int) lround(o->tile * cell_ratio(o)));
    }
    else {
        h = (int) lround(o->tile * 1.5);
        w = 100000;
    }
    /* Flattened first: the same as shrinking premultiplied, then
     * flattening, and the shrink then needs no care for alpha. */
    current = in;
    if (vips_image_hasalpha(current)) {
        double bg[3] = { o->background.r, o->background.g, o->background.b };
        g_autoptr(VipsArrayDouble) background = vips_array_double_new(bg, 3);

        if (vips_flatten(current, &flat, "background", background, NULL))
            return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "flatten");
        current = flat;
    }
    if (tile_shrink(current, w, h, o->crop && o->layout == LAYOUT_GRID, photo->facts, &small))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "thumbnail");
    current = small;
    if (!(*item = vips_image_copy_memory(current)))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "thumbnail");
    {
        g_autofree char *label = sheet_label(sc, photo->facts);

        if (label)
            vips_image_set_string(*item, GAL_META_LABEL, label);
    }
    return 0;
}

/* ---- per page: the sheet ------------------------------------------------------------ */

/* Black or white, whichever reads better on the background. */
static gal_color
ink_for(const gal_color *background)
{
    double luma = 0.2126 * background->r + 0.7152 * background->g + 0.0722 * background->b;

    return luma > 128 ? (gal_color) { 30, 30, 30, 255, FALSE }
                      : (gal_color) { 235, 235, 235, 255, FALSE };
}

/* What a page is made of: the background and small layers in memory
 * (tiles, labels, title, footer), each 8-bit sRGB, RGB or RGBA with
 * straight alpha, at a place on the page. */
typedef struct {
    GPtrArray *images; /* VipsImage *, owned, in memory */
    GArray *xs, *ys;   /* int */
    gal_color background;
} layers;

static int
add_layer(layers *l, VipsImage *image, int x, int y)
{
    VipsImage *memory = vips_image_copy_memory(image);

    g_object_unref(image);
    if (!memory)
        return -1;
    g_ptr_array_add(l->images, memory);
    g_array_append_val(l->xs, x);
    g_array_append_val(l->ys, y);
    return 0;
}

static void
layers_free(layers *l)
{
    if (!l)
        return;
    g_ptr_array_free(l->images, TRUE);
    g_array_free(l->xs, TRUE);
    g_array_free(l->ys, TRUE);
    g_free(l);
}

/* Paint one layer's part of `r` into the output region. Later layers go
 * over earlier ones, as in a stack. */
static void
paint_layer(VipsRegion *region, const VipsRect *r, VipsImage *layer, int lx, int ly)
{
    VipsRect place = { lx, ly, layer->Xsize, layer->Ysize };
    VipsRect hit;
    int bands = layer->Bands;

    vips_rect_intersectrect(r, &place, &hit);
    for (int y = hit.top; y < VIPS_RECT_BOTTOM(&hit); y++) {
        const VipsPel *p = VIPS_IMAGE_ADDR(layer, hit.left - lx, y - ly);
        VipsPel *q = VIPS_REGION_ADDR(region, hit.left, y);

        if (bands == 3) {
            memcpy(q, p, (size_t) hit.width * 3);
            continue;
        }
        for (int x = 0; x < hit.width; x++, p += bands, q += 3) {
            int a = p[bands - 1];

            for (int b = 0; b < 3; b++) {
                int src = bands == 2 ? p[0] : p[b];

                q[b] = (VipsPel) ((src * a + q[b] * (255 - a) + 127) / 255);
            }
        }
    }
}

/* The page, made strip by strip as the encoder asks for it: each strip
 * touches only the layers that cross it. The page is never held whole,
 * nor is a composite kept open over hundreds of inputs, whose buffers
 * would grow with the photo count. */
static int
paint_strip(VipsRegion *region, void *seq, void *a, void *b, gboolean *stop)
{
    const layers *l = a;
    const VipsRect *r = &region->valid;
    VipsPel fill[3] = { l->background.r, l->background.g, l->background.b };

    (void) seq;
    (void) b;
    (void) stop;
    for (int y = r->top; y < VIPS_RECT_BOTTOM(r); y++) {
        VipsPel *q = VIPS_REGION_ADDR(region, r->left, y);

        for (int x = 0; x < r->width; x++, q += 3)
            memcpy(q, fill, 3);
    }
    for (guint i = 0; i < l->images->len; i++) {
        VipsImage *layer = l->images->pdata[i];
        int lx = g_array_index(l->xs, int, i), ly = g_array_index(l->ys, int, i);
        VipsRect place = { lx, ly, layer->Xsize, layer->Ysize };

        if (vips_rect_overlapsrect(r, &place))
            paint_layer(region, r, layer, lx, ly);
    }
    return 0;
}

static void
free_layers_on_close(VipsImage *image, void *l)
{
    (void) image;
    layers_free(l);
}

/* A lazy RGB image of width x height painted from `l`, which it takes. */
static VipsImage *
page_image(layers *l, int width, int height)
{
    VipsImage *out = vips_image_new();

    vips_image_init_fields(out, width, height, 3, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
        VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    g_signal_connect(out, "postclose", G_CALLBACK(free_layers_on_close), l);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
        vips_image_generate(out, NULL, paint_strip, NULL, l, NULL)) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}

/* Text of at most `max_width`, one line, ellipsised; NULL for none. */
static int
text_layer(const sheet_opts *o, const char *text, double size, int max_width, gboolean bold,
    VipsImage **out, gal_error *err)
{
    gal_color ink = ink_for(&o->background);
    gal_text_style style = { bold ? "DejaVu Sans Bold" : "DejaVu Sans", NULL, size, ink, NULL,
        max_width, GAL_ALIGN_LEFT, 1 };
    gal_text_info info;

    return gal__text_render(text, &style, out, &info, err);
}

/* Characters at the start of `label` that are its index ("3. ", "12 - "):
 * digits, then punctuation and spaces. 0 when it does not start with one. */
static glong
index_chars(const char *label)
{
    glong n = 0;
    const char *p = label;

    if (!g_ascii_isdigit(*p))
        return 0;
    while (g_ascii_isdigit(*p) || g_ascii_ispunct(*p) || *p == ' ') {
        p++;
        n++;
    }
    return n;
}

/* A photo's label in one line of at most `max_width`: whole if it fits,
 * else with its middle given up to "…", so both the index and the end of
 * the file name stay ("3. storm-ro…ated.jpg", never "3.…"): the end tells
 * photos of a camera's numbered run apart. The text in *text (may be
 * NULL), its rendering in *out (NULL when there is nothing to draw). */
static int
fit_label(const char *label, double size, int max_width, const gal_color *background,
    char **text, VipsImage **out, gal_error *err)
{
    gal_text_style style = { "DejaVu Sans", NULL, size, ink_for(background), NULL, 0,
        GAL_ALIGN_LEFT, 0 };
    gal_text_info info;
    glong n = g_utf8_strlen(label, -1), index = index_chars(label), keep;

    if (text)
        *text = NULL;
    if (gal__text_render(label, &style, out, &info, err))
        return -1;
    if (!*out || (*out)->Xsize <= max_width) {
        if (text)
            *text = g_strdup(label);
        return 0;
    }
    /* Start from the share of characters that would fit at their average
     * width, then give up one more until the line fits. */
    keep = MIN(n - 1, (glong) (n * (double) max_width / (*out)->Xsize));
    g_clear_object(out);
    for (; keep > 0; keep--) {
        glong head = MIN(keep, MAX((keep + 1) / 2, index));
        const char *tail = g_utf8_offset_to_pointer(label, n - (keep - head));
        g_autofree char *start = g_utf8_substring(label, 0, head);
        g_autofree char *cut = g_strconcat(start, "…", tail, NULL);

        if (gal__text_render(cut, &style, out, &info, err))
            return -1;
        if (!*out || (*out)->Xsize <= max_width) {
            if (text)
                *text = g_steal_pointer(&cut);
            return 0;
        }
        g_clear_object(out);
    }
    return 0;
}

char *
gal__sheet_label_fit(const char *label, double size, int max_width, const gal_color *background,
    gal_error *err)
{
    g_autoptr(VipsImage) image = NULL;
    char *text;

    if (fit_label(label, size, max_width, background, &text, &image, err))
        return NULL;
    return text;
}

static int
sheet_build_many(const gal_stage_ctx *sc, VipsImage **in, int n, const gal_page *page,
    VipsImage **out, gal_error *err)
{
    const sheet_opts *o = sc->opts;
    g_autofree double *aspects = g_new(double, MAX(1, n));
    g_autofree gal_rect *cells = g_new(gal_rect, MAX(1, n));
    int label_h = label_rows(o);
    double title_size = MAX(12.0, o->tile / 7.0);
    double footer_size = MAX(9.0, o->tile / 12.0);
    int header_h = 0, footer_h = (int) lround(footer_size * 2);
    int body_w, body_h;
    g_autoptr(VipsImage) title = NULL;
    g_autoptr(VipsImage) footer = NULL;
    layers *l = g_new0(layers, 1);

    l->images = g_ptr_array_new_with_free_func(g_object_unref);
    l->xs = g_array_new(FALSE, FALSE, sizeof(int));
    l->ys = g_array_new(FALSE, FALSE, sizeof(int));
    l->background = o->background;
    for (int i = 0; i < n; i++)
        aspects[i] = (double) in[i]->Xsize / in[i]->Ysize;
    /* Every page of a set has the size of a full one: a short last page
     * is laid out in the same grid, its empty cells left blank; justified
     * pages fit the height of a full page (justified_page_height). */
    if (o->layout == LAYOUT_GRID)
        gal__sheet_grid(n, page->pages > 1 ? MAX(n, o->per_page) : n, aspects, o->columns,
            o->tile, cell_ratio(o), o->gap, label_h, o->crop, cells, &body_w, &body_h);
    else if (page->pages > 1) {
        body_w = o->gap + o->columns * (o->tile + o->gap);
        body_h = justified_fit(n, aspects, body_w, o->tile, o->gap, label_h,
            justified_page_height(o->per_page, body_w, o->tile, o->gap, label_h), cells);
    }
    else {
        body_w = o->gap + o->columns * (o->tile + o->gap);
        gal__sheet_justified(n, aspects, body_w, o->tile, o->gap, label_h, cells, &body_h);
    }

    if (o->title) {
        gal_facts facts = { 0 };
        g_autofree char *text = NULL;

        facts.count = page->count;
        facts.preset = page->preset;
        text = gal__template_render(o->title, &facts, FALSE);
        if (text_layer(o, text, title_size, body_w - 2 * o->gap, TRUE, &title, err))
            goto fail;
        if (title)
            header_h = (int) lround(title_size * 2.2);
    }
    {
        g_autofree char *text = g_strdup_printf("%d / %d", page->number, page->pages);

        if (text_layer(o, text, footer_size, body_w - 2 * o->gap, FALSE, &footer, err))
            goto fail;
    }
    if (title && add_layer(l, g_object_ref(title), o->gap,
                     (header_h - title->Ysize) / 2 + o->gap / 2))
        goto vips_fail;
    for (int i = 0; i < n; i++) {
        VipsImage *photo = in[i];
        const char *label = NULL;

        if (photo->Xsize != cells[i].w || photo->Ysize != cells[i].h) {
            VipsImage *fitted;

            if (vips_resize(photo, &fitted, (double) cells[i].w / photo->Xsize, "vscale",
                    (double) cells[i].h / photo->Ysize, NULL))
                goto vips_fail;
            photo = fitted;
        }
        else
            g_object_ref(photo);
        if (add_layer(l, photo, cells[i].x, header_h + cells[i].y))
            goto vips_fail;
        if (label_h && vips_image_get_typeof(in[i], GAL_META_LABEL) &&
            vips_image_get_string(in[i], GAL_META_LABEL, &label) == 0 && *label) {
            VipsImage *text = NULL;
            int width = o->layout == LAYOUT_GRID ? o->tile : cells[i].w;
            int x = o->layout == LAYOUT_GRID
                ? cells[i].x - (o->tile - cells[i].w) / 2 : cells[i].x;

            if (fit_label(label, label_px(o), width, &o->background, NULL, &text, err))
                goto fail;
            if (text &&
                add_layer(l, text, o->layout == LAYOUT_GRID ? x + (width - text->Xsize) / 2 : x,
                    header_h + cells[i].y + cells[i].h + (label_h - text->Ysize) / 2))
                goto vips_fail;
        }
    }
    if (footer && add_layer(l, g_object_ref(footer), (body_w - footer->Xsize) / 2,
                      header_h + body_h + (footer_h - footer->Ysize) / 2 - o->gap / 2))
        goto vips_fail;

    if (!(*out = page_image(g_steal_pointer(&l), body_w, header_h + body_h + footer_h)))
        goto vips_fail;
    return 0;

vips_fail:
    gal_error_from_vips(err, GAL_ERR_OUTPUT, &sc->loc, "contact sheet");
fail:
    layers_free(l);
    return -1;
}

const gal_stage_def gal_stage_contact_sheet = {
    .name = "contact-sheet",
    .summary = "proof sheets of the whole run: labelled thumbnails in a grid or justified rows",
    .params = sheet_params,
    .opts_size = sizeof(sheet_opts),
    .kind = GAL_STAGE_GATHER,
    .check = sheet_check,
    .gather_plan = sheet_plan,
    .page_name = sheet_page_name,
    .tap = sheet_tap,
    .label = sheet_label,
    .build_many = sheet_build_many,
};
