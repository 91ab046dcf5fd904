/* Gallery: the run's photos as a static HTML page (index.html, then
 * page-2.html ... past per-page) in the output folder: justified rows laid
 * out by the contact sheet's own code (gal__sheet_justified), lazy images
 * with their size, a placeholder and dominant colour, and a lightbox.
 *
 * A gathering stage like contact-sheet. tap() keeps the photo as a tiny
 * copy (its placeholder, from the pixels already in memory) labelled with
 * what the page says of it (alt text, caption, EXIF line); the engine adds
 * the files it links to (GAL_META_OUTPUTS: one per variant, widest first).
 * build_text() writes the page: self-contained (inline CSS and JS, no
 * fonts, scripts or requests elsewhere), every link relative, the same
 * bytes for the same photos, and every text the page shows HTML-escaped. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "error.h"
#include "format.h"
#include "glance.h"
#include "schema.h"
#include "stage.h"
#include "template.h"

typedef enum { THEME_DARK, THEME_LIGHT } gallery_theme;
static const char *const gallery_theme_names[] = { "dark", "light", NULL };
static const char *const gal_sort_names[] = { "name", "date", "input", NULL };

typedef struct {
    gal_template *title;
    char *description;
    gallery_theme theme;
    int per_page;
    gal_sort sort;
    int row_height;
    gal_template *caption;
} gallery_opts;

static const gal_param gallery_params[] = {
    GAL_PARAM_TEMPLATE(gallery_opts, title,
        "page title and heading, a template ({preset}, {count})", "{preset}"),
    GAL_PARAM_STRING(gallery_opts, description, "a line under the title; empty for none", ""),
    GAL_PARAM_ENUM(gallery_opts, theme, gallery_theme, "page colours", "dark"),
    GAL_PARAM_INT(gallery_opts, per_page,
        "photos per page (index.html, page-2.html ...); 0 puts every photo on one page", "200",
        0, 100000),
    GAL_PARAM_ENUM(gallery_opts, sort, gal_sort,
        "page order: file name, date taken (EXIF DateTimeOriginal, then file time), or the "
        "run's own order (full path); ties by path",
        "date"),
    GAL_PARAM_INT(gallery_opts, row_height,
        "target row height on a wide screen, in CSS pixels (rows stretch to fill the width)",
        "260", 60, 1000),
    GAL_PARAM_TEMPLATE(gallery_opts, caption,
        "text under the large view and the images' alt text (the file name when empty)",
        "{caption}"),
    GAL_PARAM_END,
};

/* The widths the rows are laid out for, in CSS pixels: a wide screen
 * (the page's max-width) and a phone; the page switches between them at
 * NARROW_BELOW. Gaps are part of the layout and scale with it. */
#define WIDE_WIDTH 1400
#define NARROW_WIDTH 400
#define NARROW_ROW_HEIGHT 130
#define NARROW_BELOW 720
#define GAP 6

/* What the label carries, separated by LABEL_SEP (a unit separator, which
 * no caption shows): alt text, caption, EXIF line, file name. */
#define LABEL_SEP '\x1f'
enum { LABEL_ALT, LABEL_CAPTION, LABEL_EXIF, LABEL_NAME, LABEL_FIELDS };

static void
gallery_plan(const gal_stage_ctx *sc, int *per_page, gal_sort *sort)
{
    const gallery_opts *o = sc->opts;

    *per_page = o->per_page;
    *sort = o->sort;
}

static char *
gallery_page_name(const gal_stage_ctx *sc, int page, int pages)
{
    (void) sc;
    (void) pages;
    return page == 1 ? g_strdup("index.html") : g_strdup_printf("page-%d.html", page);
}

/* ---- per photo ------------------------------------------------------------------ */

/* Only the separator is ours to forbid: a caption holding one is cut there. */
static void
append_field(GString *out, const char *text)
{
    if (text)
        g_string_append_len(out, text, (gssize) strcspn(text, "\x1f"));
}

static char *
gallery_label(const gal_stage_ctx *sc, const gal_facts *facts)
{
    const gallery_opts *o = sc->opts;
    g_autofree char *caption = gal__template_render(o->caption, facts, FALSE);
    GString *exif = g_string_new(NULL);
    GString *out = g_string_new(NULL);

    g_strstrip(caption);
    /* The EXIF line under the large view: camera, lens, exposure, date. */
    if (facts->camera)
        g_string_append(exif, facts->camera);
    if (facts->lens)
        g_string_append_printf(exif, "%s%s", exif->len ? " · " : "", facts->lens);
    if (facts->exposure)
        g_string_append_printf(exif, "%s%s", exif->len ? " · " : "", facts->exposure);
    if (facts->has_date) {
        char date[64];

        if (strftime(date, sizeof(date), "%Y-%m-%d %H:%M", &facts->date))
            g_string_append_printf(exif, "%s%s", exif->len ? " · " : "", date);
    }
    append_field(out, *caption ? caption : facts->name);
    g_string_append_c(out, LABEL_SEP);
    append_field(out, caption);
    g_string_append_c(out, LABEL_SEP);
    append_field(out, exif->str);
    g_string_append_c(out, LABEL_SEP);
    append_field(out, facts->name);
    g_string_free(exif, TRUE);
    return g_string_free(out, FALSE);
}

/* The item: the photo as its tiny placeholder copy, which is all the page
 * needs of its pixels, from the image already in memory. */
static int
gallery_tap(const gal_stage_ctx *sc, const gal_photo *photo, VipsImage *in, VipsImage **item,
    gal_error *err)
{
    g_autofree char *label = NULL;

    if (gal__glance_thumb(in, item))
        return gal_error_from_vips(err, GAL_ERR_STAGE, &sc->loc, "placeholder");
    label = gallery_label(sc, photo->facts);
    vips_image_set_string(*item, GAL_META_LABEL, label);
    return 0;
}

/* ---- per page -------------------------------------------------------------------- */

/* Text as HTML content or attribute value: every character that could end
 * one or start markup is escaped. */
static void
html(GString *out, const char *text)
{
    g_autofree char *valid = g_utf8_make_valid(text ? text : "", -1);

    for (const char *p = valid; *p; p++)
        switch (*p) {
        case '&': g_string_append(out, "&amp;"); break;
        case '<': g_string_append(out, "&lt;"); break;
        case '>': g_string_append(out, "&gt;"); break;
        case '"': g_string_append(out, "&quot;"); break;
        case '\'': g_string_append(out, "&#39;"); break;
        default:
            /* Control characters (but tab and newline) are not allowed in HTML text. */
            if ((unsigned char) *p < 0x20 && *p != '\t' && *p != '\n')
                g_string_append_c(out, ' ');
            else
                g_string_append_c(out, *p);
        }
}

/* A path beneath the output folder as a relative URL: each segment
 * percent-encoded, so a file name with '#', '?', '%' or a space links to
 * itself, from file:// and from any sub-path of a server alike. */
static void
url(GString *out, const char *rel)
{
    g_auto(GStrv) parts = g_strsplit(rel, "/", -1);

    for (int i = 0; parts[i]; i++) {
        g_autofree char *escaped = g_uri_escape_string(parts[i], NULL, TRUE);

        if (i)
            g_string_append_c(out, '/');
        html(out, escaped);
    }
}

/* A number for CSS: fixed decimals whatever the locale, trailing zeros
 * dropped. */
static void
css_number(GString *out, double v, int decimals)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    char format[8];
    char *end;

    g_snprintf(format, sizeof(format), "%%.%df", decimals);
    g_ascii_formatd(buf, sizeof(buf), format, v);
    end = buf + strlen(buf);
    if (strchr(buf, '.')) {
        while (end[-1] == '0')
            *--end = '\0';
        if (end[-1] == '.')
            *--end = '\0';
    }
    g_string_append(out, buf);
}

typedef struct {
    char *rel;
    int width, height;
    char *format;
} variant;

typedef struct {
    char **label;       /* LABEL_FIELDS strings */
    GArray *variants;   /* variant, widest first */
    double aspect;
    char color[8];
    char *placeholder;  /* data URI, or NULL */
} photo_info;

static void
variant_clear(gpointer data)
{
    variant *v = data;

    g_free(v->rel);
    g_free(v->format);
}

static void
photo_info_clear(photo_info *p)
{
    g_strfreev(p->label);
    if (p->variants)
        g_array_unref(p->variants);
    g_free(p->placeholder);
}

static int
compare_widest(gconstpointer a, gconstpointer b)
{
    const variant *x = a, *y = b;

    return y->width != x->width ? y->width - x->width : strcmp(x->rel, y->rel);
}

static void
photo_info_from_item(VipsImage *item, photo_info *p)
{
    const char *label = NULL, *outputs = NULL;
    g_auto(GStrv) lines = NULL;
    g_autofree char *sep = g_strnfill(1, LABEL_SEP);
    int fields;

    if (vips_image_get_typeof(item, GAL_META_LABEL))
        vips_image_get_string(item, GAL_META_LABEL, &label);
    p->label = g_strsplit(label ? label : "", sep, LABEL_FIELDS);
    fields = (int) g_strv_length(p->label);
    if (fields < LABEL_FIELDS) {
        p->label = g_renew(char *, p->label, LABEL_FIELDS + 1);
        for (int i = fields; i <= LABEL_FIELDS; i++)
            p->label[i] = i < LABEL_FIELDS ? g_strdup("") : NULL;
    }
    p->variants = g_array_new(FALSE, TRUE, sizeof(variant));
    g_array_set_clear_func(p->variants, variant_clear);
    if (vips_image_get_typeof(item, GAL_META_OUTPUTS))
        vips_image_get_string(item, GAL_META_OUTPUTS, &outputs);
    lines = g_strsplit(outputs ? outputs : "", "\n", -1);
    for (int i = 0; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], "\t", 4);
        variant v;

        if (g_strv_length(f) != 4 || !*f[0])
            continue;
        v.rel = g_strdup(f[0]);
        v.width = atoi(f[1]);
        v.height = atoi(f[2]);
        v.format = g_strdup(f[3]);
        if (v.width <= 0 || v.height <= 0) {
            variant_clear(&v);
            continue;
        }
        g_array_append_val(p->variants, v);
    }
    g_array_sort(p->variants, compare_widest);
    p->aspect = p->variants->len
        ? (double) g_array_index(p->variants, variant, 0).width /
            g_array_index(p->variants, variant, 0).height
        : (double) item->Xsize / item->Ysize;
    gal__glance_color(item, p->color);
    p->placeholder = gal__glance_placeholder(item);
    if (!p->placeholder)
        vips_error_clear(); /* the page does without; the colour stays */
}

/* Each photo's share of its row, for one layout: the fraction of the
 * row's width (less its gaps) it takes, and how many gaps its row has.
 * Photos of a full row add up to the whole row; the last row keeps the
 * target height, as on a contact sheet. Fractions are rounded down, so a
 * row never adds up to more than the line and wraps where it was laid. */
static void
row_shares(int n, const double *aspects, int width, int row_height, double *share, int *gaps)
{
    g_autofree gal_rect *cells = g_new(gal_rect, MAX(1, n));
    int height;

    gal__sheet_justified(n, aspects, width + 2 * GAP, row_height, GAP, 0, cells, &height);
    for (int start = 0; start < n;) {
        int end = start;
        double used = 0;

        while (end < n && cells[end].y == cells[start].y)
            used += cells[end++].w;
        for (int i = start; i < end; i++) {
            /* A full row fills the line; the last may fall short of it. */
            double line = end < n ? used : MAX(used, (double) width - GAP * (end - start - 1));

            share[i] = floor((double) cells[i].w / line * 1e5) / 1e5;
            gaps[i] = end - start - 1;
        }
        start = end;
    }
}

static const char page_css[] =
    "*{box-sizing:border-box}"
    "html{-webkit-text-size-adjust:100%}"
    "body{margin:0;background:var(--bg);color:var(--fg);"
    "font:16px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,\"DejaVu Sans\",sans-serif}"
    ".dark{--bg:#111214;--fg:#ececec;--dim:#a9abb0;--line:#2a2c30;--lb:#0b0b0d}"
    ".light{--bg:#f7f6f3;--fg:#1d1d1f;--dim:#55565a;--line:#dddbd6;--lb:#f7f6f3}"
    "header,main,nav.pages,footer{max-width:1400px;margin:0 auto;padding:0 16px}"
    "header{padding-top:40px;padding-bottom:24px}"
    "h1{margin:0;font-size:clamp(1.6rem,4vw,2.6rem);font-weight:600;letter-spacing:-.01em}"
    "header p{margin:.4em 0 0;color:var(--dim);max-width:60em}"
    ".grid{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:6px}"
    ".grid li{width:calc((100% - var(--k)*6px)*var(--f));aspect-ratio:var(--a);"
    "background:var(--c) center/cover no-repeat;overflow:hidden;position:relative}"
    "@media (max-width:720px){.grid li{width:calc((100% - var(--kn)*6px)*var(--fn))}"
    "header{padding-top:24px}}"
    ".grid a,.grid picture{display:block;width:100%;height:100%}"
    ".grid a:focus-visible{outline:3px solid var(--fg);outline-offset:-3px}"
    ".grid img{display:block;width:100%;height:100%;object-fit:cover;"
    "transition:opacity .4s,transform .4s}"
    ".grid a:hover img{transform:scale(1.03)}"
    "nav.albums ul{list-style:none;margin:16px 0 0;padding:0;display:flex;flex-wrap:wrap;"
    "gap:8px}"
    "nav.albums a{display:inline-flex;align-items:center;min-height:44px;padding:0 14px;"
    "border:1px solid var(--line);border-radius:22px;color:var(--fg);text-decoration:none}"
    "nav.albums a[aria-current]{background:var(--fg);color:var(--bg)}"
    "h2{margin:0 0 12px;font-size:1.25rem;font-weight:600}"
    "nav.pages{display:flex;flex-wrap:wrap;gap:8px;justify-content:center;padding-top:32px}"
    "nav.pages>a,nav.pages>span{min-width:44px;min-height:44px;display:inline-flex;"
    "align-items:center;justify-content:center;padding:0 12px;border:1px solid var(--line);"
    "border-radius:6px;color:var(--fg);text-decoration:none}"
    "nav.pages>[aria-current]{background:var(--fg);color:var(--bg)}"
    "footer{padding-top:32px;padding-bottom:40px;color:var(--dim);font-size:.85rem}"
    "dialog{position:fixed;inset:0;width:100%;height:100%;max-width:none;max-height:none;"
    "margin:0;padding:0;border:0;background:var(--lb);color:var(--fg)}"
    "dialog::backdrop{background:transparent}"
    "dialog[open]{display:flex;flex-direction:column}"
    ".stage{flex:1;min-height:0;display:flex;align-items:center;justify-content:center;"
    "padding:56px 64px 8px;touch-action:pan-y pinch-zoom}"
    ".stage img{max-width:100%;max-height:100%;object-fit:contain;"
    "box-shadow:0 10px 40px rgba(0,0,0,.35)}"
    ".info{padding:10px 64px 20px;text-align:center;max-width:70em;margin:0 auto}"
    ".info p{margin:.2em 0}"
    ".info .exif,.info .meta{color:var(--dim);font-size:.85rem}"
    ".info a{color:inherit}"
    "dialog button{position:absolute;width:48px;height:48px;border:0;border-radius:50%;"
    "background:transparent;color:var(--fg);font-size:28px;line-height:1;cursor:pointer}"
    "dialog button:hover,dialog button:focus-visible{background:var(--line)}"
    "dialog button:focus-visible{outline:2px solid var(--fg)}"
    ".close{top:8px;right:8px}"
    ".prev{left:8px;top:calc(50% - 24px)}"
    ".next{right:8px;top:calc(50% - 24px)}"
    "@media (max-width:720px){.stage{padding:56px 4px 4px}.info{padding:8px 16px 16px}"
    ".prev,.next{top:auto;bottom:8px}}"
    ".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
    "@media (prefers-reduced-motion:reduce){.grid img{transition:none}"
    ".grid a:hover img{transform:none}}";

/* The lightbox. Without script each photo is a plain link to its file;
 * with it, a <dialog> (focus kept inside, Escape closes, focus returns to
 * the photo) shows it large with its caption, EXIF line and a link to the
 * largest file; arrow keys, the buttons and a swipe go through the page. */
static const char page_js[] =
    "(function(){"
    "var d=document.getElementById('lb'),im=d.querySelector('.stage img'),"
    "cap=d.querySelector('.cap'),ex=d.querySelector('.exif'),"
    "orig=d.querySelector('.orig'),pos=d.querySelector('.pos'),"
    "links=[].slice.call(document.querySelectorAll('.grid a')),cur=0,back=null,x0=null;"
    "function show(i){cur=(i+links.length)%links.length;var a=links[cur],t=a.querySelector('img');"
    "im.src=a.getAttribute('href');im.alt=t.alt;"
    "im.width=+a.dataset.w;im.height=+a.dataset.h;"
    "cap.textContent=a.dataset.caption||'';cap.hidden=!a.dataset.caption;"
    "ex.textContent=a.dataset.exif||'';ex.hidden=!a.dataset.exif;"
    "orig.href=a.getAttribute('href');"
    "pos.textContent=(cur+1)+' / '+links.length;"
    /* The neighbours load while this one is looked at. */
    "[cur+1,cur-1].forEach(function(j){var n=links[(j+links.length)%links.length];"
    "if(n)(new Image()).src=n.getAttribute('href');});}"
    "links.forEach(function(a,i){a.addEventListener('click',function(e){"
    "if(e.ctrlKey||e.metaKey||e.shiftKey||e.button)return;e.preventDefault();"
    "back=a;show(i);if(!d.open)d.showModal();});});"
    "d.querySelector('.prev').onclick=function(){show(cur-1);};"
    "d.querySelector('.next').onclick=function(){show(cur+1);};"
    "d.querySelector('.close').onclick=function(){d.close();};"
    "d.addEventListener('close',function(){im.removeAttribute('src');if(back)back.focus();});"
    "d.addEventListener('keydown',function(e){"
    "if(e.key==='ArrowLeft'){show(cur-1);e.preventDefault();}"
    "else if(e.key==='ArrowRight'){show(cur+1);e.preventDefault();}});"
    "d.addEventListener('click',function(e){if(e.target===d||e.target.classList.contains('stage'))"
    "d.close();});"
    "d.addEventListener('touchstart',function(e){x0=e.touches[0].clientX;},{passive:true});"
    "d.addEventListener('touchend',function(e){if(x0===null)return;"
    "var dx=e.changedTouches[0].clientX-x0;x0=null;"
    "if(Math.abs(dx)>40)show(dx<0?cur+1:cur-1);});"
    "document.querySelectorAll('.grid img').forEach(function(t){"
    "function done(){t.closest('li').style.backgroundImage='none';}"
    "if(t.complete&&t.naturalWidth)done();else t.addEventListener('load',done);});"
    "})();";

/* An album's name as shown: its folder, "Photos" for the top level. */
static const char *
album_title(const char *album)
{
    return album && *album ? album : "Photos";
}

/* The albums, each a link to its first page, when there are several. */
static void
album_nav(GString *out, const gal_stage_ctx *sc, const gal_page *page)
{
    if (page->n_albums < 2)
        return;
    g_string_append(out, "<nav class=\"albums\" aria-label=\"Albums\"><ul>");
    for (int a = 0; a < page->n_albums; a++) {
        g_autofree char *name = gallery_page_name(sc, page->album_first[a], page->pages);
        gboolean current = page->album && strcmp(page->albums[a], page->album) == 0;

        g_string_append(out, "<li><a href=\"");
        url(out, name);
        g_string_append_c(out, '"');
        if (current)
            g_string_append(out, " aria-current=\"true\"");
        g_string_append_c(out, '>');
        html(out, album_title(page->albums[a]));
        g_string_append(out, "</a></li>");
    }
    g_string_append(out, "</ul></nav>\n");
}

static void
page_nav(GString *out, const gal_stage_ctx *sc, const gal_page *page)
{
    if (page->pages < 2)
        return;
    g_string_append(out, "<nav class=\"pages\" aria-label=\"Pages\">");
    if (page->number > 1) {
        g_autofree char *prev = gallery_page_name(sc, page->number - 1, page->pages);

        g_string_append(out, "<a rel=\"prev\" href=\"");
        url(out, prev);
        g_string_append(out, "\"><span aria-hidden=\"true\">←</span>"
                             "<span class=\"sr\">Previous page</span></a>");
    }
    for (int p = 1; p <= page->pages; p++) {
        g_autofree char *name = gallery_page_name(sc, p, page->pages);

        if (p == page->number)
            g_string_append_printf(out, "<span aria-current=\"page\">%d</span>", p);
        else {
            g_string_append(out, "<a href=\"");
            url(out, name);
            g_string_append_printf(out, "\">%d</a>", p);
        }
    }
    if (page->number < page->pages) {
        g_autofree char *next = gallery_page_name(sc, page->number + 1, page->pages);

        g_string_append(out, "<a rel=\"next\" href=\"");
        url(out, next);
        g_string_append(out, "\"><span aria-hidden=\"true\">→</span>"
                             "<span class=\"sr\">Next page</span></a>");
    }
    g_string_append(out, "</nav>\n");
}

/* The first format of the table every browser shows (JPEG, else PNG),
 * else whatever the widest file is. The others (AVIF, WebP) become
 * <source>s before it. */
static const char *
fallback_format(const photo_info *p)
{
    for (int f = 0; f < GAL_N_FORMATS; f++) {
        if (!gal__formats[f]->every_browser)
            continue;
        for (guint v = 0; v < p->variants->len; v++)
            if (strcmp(g_array_index(p->variants, variant, v).format, gal_format_names[f]) == 0)
                return gal_format_names[f];
    }
    return g_array_index(p->variants, variant, 0).format;
}

/* The widest and the narrowest file of `format`. */
static void
extremes(const photo_info *p, const char *format, const variant **widest,
    const variant **narrowest)
{
    *widest = *narrowest = NULL;
    for (guint v = 0; v < p->variants->len; v++) {
        const variant *var = &g_array_index(p->variants, variant, v);

        if (strcmp(var->format, format) != 0)
            continue;
        if (!*widest)
            *widest = var; /* variants are widest first */
        *narrowest = var;
    }
}

/* Whether an earlier file of variant v's format has its width: a photo
 * narrower than two of output.widths has two files of its own width (a
 * srcset may not name one width twice). */
static gboolean
same_width_before(const photo_info *p, guint v)
{
    const variant *var = &g_array_index(p->variants, variant, v);

    for (guint u = 0; u < v; u++) {
        const variant *before = &g_array_index(p->variants, variant, u);

        if (before->width == var->width && strcmp(before->format, var->format) == 0)
            return TRUE;
    }
    return FALSE;
}

/* srcset and sizes over the files of one format, when there are several
 * (or always, for a <source>): the browser picks the smallest file that
 * covers the tile at the screen's density. */
static void
srcset(GString *out, const photo_info *p, const char *format, gboolean always, double share,
    double share_narrow)
{
    guint n = 0;
    gboolean first = TRUE;

    for (guint v = 0; v < p->variants->len; v++)
        n += strcmp(g_array_index(p->variants, variant, v).format, format) == 0 &&
            !same_width_before(p, v);
    if (n < 2 && !always)
        return;
    g_string_append(out, " srcset=\"");
    for (guint v = 0; v < p->variants->len; v++) {
        const variant *var = &g_array_index(p->variants, variant, v);

        if (strcmp(var->format, format) != 0 || same_width_before(p, v))
            continue;
        if (!first)
            g_string_append(out, ", ");
        first = FALSE;
        url(out, var->rel);
        g_string_append_printf(out, " %dw", var->width);
    }
    g_string_append_printf(out, "\" sizes=\"(max-width: %dpx) %dvw, %dpx\"", NARROW_BELOW,
        MAX(1, (int) ceil(share_narrow * 100)), MAX(1, (int) ceil(share * WIDE_WIDTH)));
}

/* The <source>s of a <picture>: the formats besides the fallback, the
 * newer (smaller) first, as the browser takes the first it can show: the
 * table's last first (formats.def lists them oldest first). */
static gboolean
picture_sources(GString *out, const photo_info *p, const char *fallback, double share,
    double share_narrow)
{
    gboolean any = FALSE;

    for (int f = GAL_N_FORMATS - 1; f >= 0; f--) {
        const char *name = gal_format_names[f];
        const variant *widest, *narrowest;

        if (strcmp(name, fallback) == 0)
            continue;
        extremes(p, name, &widest, &narrowest);
        if (!widest)
            continue;
        if (!any)
            g_string_append(out, "<picture>");
        any = TRUE;
        g_string_append_printf(out, "<source type=\"%s\"", gal__formats[f]->mime);
        srcset(out, p, name, TRUE, share, share_narrow);
        g_string_append_c(out, '>');
    }
    return any;
}

static void
photo_entry(GString *out, const photo_info *p, double share, int gaps, double share_narrow,
    int gaps_narrow)
{
    const char *fallback = p->variants->len ? fallback_format(p) : NULL;
    const variant *largest = NULL, *shown = NULL;
    gboolean picture;

    if (fallback)
        extremes(p, fallback, &largest, &shown);
    g_string_append(out, "<li style=\"--f:");
    css_number(out, share, 5);
    g_string_append_printf(out, ";--k:%d;--fn:", gaps);
    css_number(out, share_narrow, 5);
    g_string_append_printf(out, ";--kn:%d;--a:", gaps_narrow);
    if (largest)
        g_string_append_printf(out, "%d/%d", largest->width, largest->height);
    else
        css_number(out, p->aspect, 5);
    g_string_append_printf(out, ";--c:%s", p->color);
    if (p->placeholder) {
        g_string_append(out, ";background-image:url(");
        html(out, p->placeholder);
        g_string_append_c(out, ')');
    }
    g_string_append(out, "\">");
    if (!largest) {
        /* No file to show (output.photos false): the placeholder alone. */
        g_string_append(out, "<span role=\"img\" aria-label=\"");
        html(out, p->label[LABEL_ALT]);
        g_string_append(out, "\"></span></li>\n");
        return;
    }
    /* The link is to the largest file every browser shows. */
    g_string_append(out, "<a href=\"");
    url(out, largest->rel);
    g_string_append_printf(out, "\" data-w=\"%d\" data-h=\"%d\"", largest->width,
        largest->height);
    if (*p->label[LABEL_CAPTION]) {
        g_string_append(out, " data-caption=\"");
        html(out, p->label[LABEL_CAPTION]);
        g_string_append_c(out, '"');
    }
    if (*p->label[LABEL_EXIF]) {
        g_string_append(out, " data-exif=\"");
        html(out, p->label[LABEL_EXIF]);
        g_string_append_c(out, '"');
    }
    g_string_append(out, ">");
    picture = picture_sources(out, p, fallback, share, share_narrow);
    g_string_append(out, "<img src=\"");
    url(out, shown->rel);
    g_string_append_c(out, '"');
    srcset(out, p, fallback, FALSE, share, share_narrow);
    g_string_append_printf(out, " width=\"%d\" height=\"%d\" loading=\"lazy\" "
                                "decoding=\"async\" alt=\"",
        shown->width, shown->height);
    html(out, p->label[LABEL_ALT]);
    g_string_append(out, picture ? "\"></picture></a></li>\n" : "\"></a></li>\n");
}

static int
gallery_build_text(const gal_stage_ctx *sc, VipsImage **in, int n, const gal_page *page,
    GString **text, gal_error *err)
{
    const gallery_opts *o = sc->opts;
    g_autofree photo_info *photos = g_new0(photo_info, MAX(1, n));
    g_autofree double *aspects = g_new(double, MAX(1, n));
    g_autofree double *share = g_new0(double, MAX(1, n));
    g_autofree double *share_narrow = g_new0(double, MAX(1, n));
    g_autofree int *gaps = g_new0(int, MAX(1, n));
    g_autofree int *gaps_narrow = g_new0(int, MAX(1, n));
    g_autofree char *title = NULL;
    gal_facts facts = { 0 };
    GString *out = g_string_sized_new(4096 + 1024 * (gsize) n);

    (void) err;
    for (int i = 0; i < n; i++) {
        photo_info_from_item(in[i], &photos[i]);
        aspects[i] = photos[i].aspect;
    }
    /* One layout, the contact sheet's, at two widths. */
    row_shares(n, aspects, WIDE_WIDTH, o->row_height, share, gaps);
    row_shares(n, aspects, NARROW_WIDTH, NARROW_ROW_HEIGHT, share_narrow, gaps_narrow);

    facts.count = page->count;
    facts.preset = page->preset;
    title = gal__template_render(o->title, &facts, FALSE);
    g_strstrip(title);

    g_string_append(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                         "<meta name=\"generator\" content=\"gallop\">\n"
                         /* No icon: a browser would ask the server's root for one. */
                         "<link rel=\"icon\" href=\"data:,\">\n<title>");
    html(out, *title ? title : "Photos");
    if (page->pages > 1)
        g_string_append_printf(out, " (%d/%d)", page->number, page->pages);
    g_string_append(out, "</title>\n");
    if (*o->description) {
        g_string_append(out, "<meta name=\"description\" content=\"");
        html(out, o->description);
        g_string_append(out, "\">\n");
    }
    g_string_append_printf(out, "<meta name=\"color-scheme\" content=\"%s\">\n",
        o->theme == THEME_DARK ? "dark" : "light");
    g_string_append_printf(out, "<style>%s</style>\n</head>\n<body class=\"%s\">\n", page_css,
        o->theme == THEME_DARK ? "dark" : "light");
    g_string_append(out, "<header>\n<h1>");
    html(out, *title ? title : "Photos");
    g_string_append(out, "</h1>\n");
    if (*o->description) {
        g_string_append(out, "<p>");
        html(out, o->description);
        g_string_append(out, "</p>\n");
    }
    g_string_append_printf(out, "<p>%d photo%s", page->count, page->count == 1 ? "" : "s");
    if (page->pages > 1)
        g_string_append_printf(out, " · page %d of %d", page->number, page->pages);
    g_string_append(out, "</p>\n");
    album_nav(out, sc, page);
    g_string_append(out, "</header>\n<main>\n");
    if (page->n_albums > 1) {
        g_string_append(out, "<h2>");
        html(out, album_title(page->album));
        g_string_append(out, "</h2>\n");
    }
    g_string_append(out, "<ul class=\"grid\">\n");
    for (int i = 0; i < n; i++)
        photo_entry(out, &photos[i], share[i], gaps[i], share_narrow[i], gaps_narrow[i]);
    g_string_append(out, "</ul>\n</main>\n");
    page_nav(out, sc, page);
    g_string_append(out, "<footer>Made with gallop</footer>\n");
    g_string_append(out,
        "<dialog id=\"lb\" aria-label=\"Photo viewer\">\n"
        "<div class=\"stage\"><img alt=\"\"></div>\n"
        "<div class=\"info\" aria-live=\"polite\"><p class=\"cap\"></p><p class=\"exif\"></p>"
        "<p class=\"meta\"><span class=\"pos\"></span> · "
        "<a class=\"orig\" href=\"#\">Full size</a></p></div>\n"
        "<button type=\"button\" class=\"close\" aria-label=\"Close\">×</button>\n"
        "<button type=\"button\" class=\"prev\" aria-label=\"Previous photo\">‹</button>\n"
        "<button type=\"button\" class=\"next\" aria-label=\"Next photo\">›</button>\n"
        "</dialog>\n");
    g_string_append_printf(out, "<script>%s</script>\n</body>\n</html>\n", page_js);

    for (int i = 0; i < n; i++)
        photo_info_clear(&photos[i]);
    *text = out;
    return 0;
}

const gal_stage_def gal_stage_gallery = {
    .name = "gallery",
    .summary = "a static HTML gallery of the run: justified rows, lazy images, a lightbox",
    .params = gallery_params,
    .opts_size = sizeof(gallery_opts),
    .kind = GAL_STAGE_GATHER,
    .gather_plan = gallery_plan,
    .page_name = gallery_page_name,
    .tap = gallery_tap,
    .label = gallery_label,
    .build_text = gallery_build_text,
    .albums = TRUE,
};
