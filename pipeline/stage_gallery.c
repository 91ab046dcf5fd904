/* Gallery: the run's photos as a static HTML site in the output folder.
 * Every folder of the input folder is an album at a URL made from its path
 * (alps/index.html, then alps/page-2.html ... past per-page; the top album
 * is the home page, index.html), with breadcrumbs up, its album.yaml's
 * title and story (album.c), cards for its sub-albums (cover, title,
 * count, dates), then its photos: justified rows laid out by the contact
 * sheet's own code (gal__sheet_justified), images with their size, a
 * placeholder and dominant colour, and a lightbox whose every photo has a
 * URL of its own (the page's, #its-file-name).
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
typedef enum { DOWNLOAD_NONE, DOWNLOAD_LARGEST, DOWNLOAD_ORIGINAL } gallery_download;
static const char *const gallery_download_names[] = { "none", "largest", "original", NULL };
static const char *const gal_sort_names[] = { "name", "date", "input", "newest", NULL };

typedef struct {
    gal_template *title;
    char *description;
    char *author;
    char *base_url;
    gallery_theme theme;
    gallery_download download;
    int per_page;
    gal_sort sort;
    int row_height;
    gal_template *caption;
} gallery_opts;

static const gal_param gallery_params[] = {
    GAL_PARAM_TEMPLATE(gallery_opts, title,
        "the site's title: the home page's heading, after each album's name in its page "
        "title; a template ({preset}, {count}); the top folder's album.yaml title wins",
        "{preset}"),
    GAL_PARAM_STRING(gallery_opts, description,
        "the site's description: a line under the home page's title and its meta "
        "description; empty for none",
        ""),
    GAL_PARAM_STRING(gallery_opts, author,
        "who made the photos: the pages' author and the footer's credit; empty for none", ""),
    GAL_PARAM_STRING(gallery_opts, base_url,
        "where the site will be published (https://example.org/photos/): each page's "
        "canonical link, Open Graph and Twitter card tags, sitemap.xml and an Atom feed of "
        "the newest albums (feed.xml); empty for none",
        ""),
    GAL_PARAM_ENUM(gallery_opts, theme, gallery_theme, "page colours", "dark"),
    GAL_PARAM_ENUM(gallery_opts, download, gallery_download,
        "what visitors take home: none; largest (each photo's largest file, from the "
        "lightbox, and a zip of each album's, album.zip in its folder, stored as they are); "
        "or original (the same zip, and each photo's original file from the lightbox, "
        "published in its album's originals/ folder under output.metadata, remove-location "
        "and remove-person, its pixels untouched; a photo that is not a JPEG links its "
        "largest file, with a warning)",
        "none"),
    GAL_PARAM_INT(gallery_opts, per_page,
        "photos per page (index.html, page-2.html ...); 0 puts every photo on one page", "200",
        0, 100000),
    GAL_PARAM_ENUM(gallery_opts, sort, gal_sort,
        "photo order in each album: file name, date taken (EXIF DateTimeOriginal; photos "
        "without one last), newest first (undated still last), or the run's own order (full "
        "path); ties by path; sub-albums by name, or by date for date and newest; an album's "
        "album.yaml may choose its own",
        "date"),
    GAL_PARAM_INT(gallery_opts, row_height,
        "target row height on a wide screen, in CSS pixels (rows stretch to fill the width)",
        "260", 60, 1000),
    GAL_PARAM_TEMPLATE(gallery_opts, caption,
        "text under the large view and the images' alt text (the file name when empty; a "
        "photo's own alt text, from its sidecar or IPTC, wins for alt)",
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
 * no caption shows): alt text, caption, EXIF line, file name, date taken
 * (YYYY-MM-DD, empty when unknown), the photo's long description. */
#define LABEL_SEP '\x1f'
enum { LABEL_ALT, LABEL_CAPTION, LABEL_EXIF, LABEL_NAME, LABEL_DATE, LABEL_DESCRIPTION,
    LABEL_FIELDS };

static void
gallery_plan(const gal_stage_ctx *sc, int *per_page, gal_sort *sort)
{
    const gallery_opts *o = sc->opts;

    *per_page = o->per_page;
    *sort = o->sort;
}

/* An album's page `number` as a path beneath the site: its folder's path,
 * then index.html or page-N.html. */
static char *
album_page_path(const char *album, int number)
{
    g_autofree char *file = number == 1 ? g_strdup("index.html")
                                        : g_strdup_printf("page-%d.html", number);

    return album && *album ? g_strdup_printf("%s/%s", album, file) : g_steal_pointer(&file);
}

static char *
gallery_page_name(const gal_stage_ctx *sc, const gal_page *page)
{
    (void) sc;
    return album_page_path(page->albums ? page->albums[page->album].path : "", page->number);
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
    /* The photo's own alt text (its sidecar, the captions table, IPTC's
     * Alt Text (Accessibility)) first: "" marks it as decoration. */
    append_field(out, facts->alt ? facts->alt : *caption ? caption : facts->name);
    g_string_append_c(out, LABEL_SEP);
    append_field(out, caption);
    g_string_append_c(out, LABEL_SEP);
    append_field(out, exif->str);
    g_string_append_c(out, LABEL_SEP);
    append_field(out, facts->name);
    g_string_append_c(out, LABEL_SEP);
    if (facts->has_date) {
        char day[16];

        if (strftime(day, sizeof(day), "%Y-%m-%d", &facts->date))
            g_string_append(out, day);
    }
    g_string_append_c(out, LABEL_SEP);
    append_field(out, facts->description);
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

/* A path beneath the output folder as a URL relative to a page `up`
 * folders below the top ("../../" for 2025/spain/index.html): each
 * segment percent-encoded, so a file name with '#', '?', '%' or a space
 * links to itself, from file:// and from any sub-path of a server alike. */
static void
url(GString *out, const char *up, const char *rel)
{
    g_auto(GStrv) parts = g_strsplit(rel, "/", -1);

    g_string_append(out, up);
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
    const char *original; /* its published original (beneath the site), or NULL */
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
    /* Borrowed from the item, which outlives the page. */
    if (vips_image_get_typeof(item, GAL_META_ORIGINAL))
        vips_image_get_string(item, GAL_META_ORIGINAL, &p->original);
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
    /* An item made from its photo's record has them as they were made. */
    if (vips_image_get_typeof(item, GAL_META_PLACEHOLDER) &&
        vips_image_get_typeof(item, GAL_META_COLOR)) {
        const char *placeholder = NULL, *color = NULL;

        vips_image_get_string(item, GAL_META_PLACEHOLDER, &placeholder);
        vips_image_get_string(item, GAL_META_COLOR, &color);
        p->placeholder = g_strdup(placeholder);
        g_strlcpy(p->color, color ? color : "", sizeof(p->color));
        return;
    }
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
row_shares(int n, const double *aspects, int width, int row_height, double *share, int *gaps,
    gboolean *first_row)
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
            if (first_row)
                first_row[i] = start == 0;
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
    ".info .desc{max-width:42em;margin:.4em auto;text-align:start}"
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

/* Breadcrumbs, an album's story and its sub-albums' cards. */
static const char album_css[] =
    ".crumbs ol{list-style:none;margin:0 0 8px;padding:0;display:flex;flex-wrap:wrap;"
    "gap:0 6px;font-size:.9rem;color:var(--dim)}"
    ".crumbs li{display:inline-flex;align-items:center;min-height:40px}"
    /* The separator ends the crumb before it: a wrapped trail's line never
     * starts with one. */
    ".crumbs li:not(:last-child)::after{content:\"/\";margin-left:6px}"
    ".crumbs a{color:var(--fg)}"
    ".story{max-width:42em;margin-top:.6em}.story p{margin:.5em 0}.story a{color:inherit}"
    ".story img{max-width:100%;height:auto}"
    "header p.sum{color:var(--dim)}"
    "a.zip{display:inline-block;padding:10px 0;color:var(--fg)}"
    "section.albums{margin:0 0 32px}"
    ".cards{list-style:none;margin:0;padding:0;display:grid;gap:16px;"
    "grid-template-columns:repeat(auto-fill,minmax(240px,1fr))}"
    "@media (max-width:720px){.cards{grid-template-columns:1fr 1fr;gap:10px}}"
    ".cards a{display:block;height:100%;color:var(--fg);text-decoration:none;"
    "border:1px solid var(--line);border-radius:8px;overflow:hidden}"
    ".cards a:focus-visible{outline:3px solid var(--fg);outline-offset:2px}"
    ".cards .cover{display:block;aspect-ratio:3/2;background:var(--c) center/cover no-repeat}"
    ".cards img{display:block;width:100%;height:100%;object-fit:cover}"
    ".cards .t{display:block;padding:10px 12px 0;font-weight:600;line-height:1.3}"
    ".cards .m{display:block;padding:4px 12px 12px;color:var(--dim);font-size:.85rem}"
    /* Each caption and title in its own direction (dir=auto), isolated
     * from the page's, and every paragraph of one. */
    ".cap,.cards .t,h1,.story{unicode-bidi:plaintext}";

/* The lightbox. Without script each photo is a plain link to its file;
 * with it, a <dialog> (focus kept inside, Escape closes, focus returns to
 * the photo) shows it large with its caption, long description, EXIF line and a link to the
 * largest file; arrow keys, the buttons and a swipe go through the page.
 * Each photo has a URL, the page's with #its-id (its file name): opening
 * one pushes it (Back closes), going to the next replaces it, and a page
 * loaded with one opens that photo. */
static const char page_js[] =
    "(function(){"
    "var d=document.getElementById('lb'),im=d.querySelector('.stage img'),"
    "cap=d.querySelector('.cap'),desc=d.querySelector('.desc'),ex=d.querySelector('.exif'),"
    "orig=d.querySelector('.orig'),pos=d.querySelector('.pos'),"
    "links=[].slice.call(document.querySelectorAll('.grid a')),cur=0,back=null,x0=null,"
    "pushed=false,leaving=false;"
    "function find(h){h=h.slice(1);for(var i=0;i<links.length;i++)"
    "if(h&&links[i].parentNode.id===h)return i;return -1;}"
    "function show(i,how){if(!links.length)return;"
    "cur=(i+links.length)%links.length;var a=links[cur],t=a.querySelector('img'),"
    "h='#'+a.parentNode.id;"
    "im.src=a.getAttribute('href');im.alt=t.alt;"
    "im.width=+a.dataset.w;im.height=+a.dataset.h;"
    "cap.textContent=a.dataset.caption||'';cap.hidden=!a.dataset.caption;"
    "desc.textContent=a.dataset.description||'';desc.hidden=!a.dataset.description;"
    "ex.textContent=a.dataset.exif||'';ex.hidden=!a.dataset.exif;"
    "orig.href=a.dataset.orig||a.getAttribute('href');"
    "pos.textContent=(cur+1)+' / '+links.length;"
    "if(how==='push'){history.pushState({lb:1},'',h);pushed=true;}"
    "else if(how!=='keep'&&location.hash!==h)history.replaceState(history.state,'',h);"
    /* The neighbours load while this one is looked at. */
    "[cur+1,cur-1].forEach(function(j){var n=links[(j+links.length)%links.length];"
    "if(n)(new Image()).src=n.getAttribute('href');});}"
    "function open(i,how){back=links[i];show(i,how);if(!d.open)d.showModal();}"
    "links.forEach(function(a,i){a.addEventListener('click',function(e){"
    "if(e.ctrlKey||e.metaKey||e.shiftKey||e.button)return;e.preventDefault();"
    "open(i,d.open?'replace':'push');});});"
    "d.querySelector('.prev').onclick=function(){show(cur-1);};"
    "d.querySelector('.next').onclick=function(){show(cur+1);};"
    "d.querySelector('.close').onclick=function(){d.close();};"
    /* Closed here (not by Back): the photo's URL goes, back to the page's. */
    "d.addEventListener('close',function(){im.removeAttribute('src');if(back)back.focus();"
    "if(find(location.hash)<0)return;"
    "if(pushed){pushed=false;leaving=true;history.back();}"
    "else history.replaceState(null,'',location.pathname+location.search);});"
    /* The Back our own close asked for lands later: it changes nothing. */
    "window.addEventListener('popstate',function(){if(leaving){leaving=false;return;}"
    "var i=find(location.hash);"
    "if(i>=0)open(i,'keep');else if(d.open){pushed=false;d.close();}});"
    "d.addEventListener('keydown',function(e){"
    "if(e.key==='ArrowLeft'){show(cur-1);e.preventDefault();}"
    "else if(e.key==='ArrowRight'){show(cur+1);e.preventDefault();}});"
    "d.addEventListener('click',function(e){if(e.target===d||e.target.classList.contains('stage'))"
    "d.close();});"
    "d.addEventListener('touchstart',function(e){x0=e.touches[0].clientX;},{passive:true});"
    "d.addEventListener('touchend',function(e){if(x0===null)return;"
    "var dx=e.changedTouches[0].clientX-x0;x0=null;"
    "if(Math.abs(dx)>40)show(dx<0?cur+1:cur-1);});"
    "document.querySelectorAll('.grid img,.cards img').forEach(function(t){"
    "function done(){t.parentNode.closest('li,.cover').style.backgroundImage='none';}"
    "if(t.complete&&t.naturalWidth)done();else t.addEventListener('load',done);});"
    "var at=find(location.hash);if(at>=0)open(at,'keep');"
    "})();";

/* ---- the album tree ----------------------------------------------------------------- */

/* One field of an item's label ("" when it has none). */
static char *
label_field(VipsImage *item, int field)
{
    const char *label = NULL;
    g_autofree char *sep = g_strnfill(1, LABEL_SEP);
    g_auto(GStrv) fields = NULL;

    if (!item || !vips_image_get_typeof(item, GAL_META_LABEL) ||
        vips_image_get_string(item, GAL_META_LABEL, &label))
        return g_strdup("");
    fields = g_strsplit(label, sep, LABEL_FIELDS);
    return g_strdup((int) g_strv_length(fields) > field ? fields[field] : "");
}

/* What an album's card and header say of it and everything below it. */
typedef struct {
    int photos;            /* its photos and its sub-albums' */
    char first[11], last[11]; /* YYYY-MM-DD; "" when none has a date */
} album_sum;

static void
album_sum_add(const gal_page *page, int a, album_sum *sum)
{
    const gal_album *album = &page->albums[a];

    for (int i = 0; i < album->n_items; i++) {
        g_autofree char *day = NULL;

        if (!album->items[i])
            continue;
        sum->photos++;
        day = label_field(album->items[i], LABEL_DATE);
        if (strlen(day) != 10)
            continue;
        if (!*sum->first || strcmp(day, sum->first) < 0)
            g_strlcpy(sum->first, day, sizeof(sum->first));
        if (strcmp(day, sum->last) > 0)
            g_strlcpy(sum->last, day, sizeof(sum->last));
    }
    for (int c = 0; c < album->n_children; c++)
        album_sum_add(page, album->children[c], sum);
}

static album_sum
album_summary(const gal_page *page, int a)
{
    album_sum sum = { 0 };

    album_sum_add(page, a, &sum);
    if (page->albums[a].date) {
        /* The album says when it was. */
        g_strlcpy(sum.first, page->albums[a].date, sizeof(sum.first));
        g_strlcpy(sum.last, page->albums[a].date, sizeof(sum.last));
    }
    return sum;
}

static const char *const month_names[] = { "January", "February", "March", "April", "May",
    "June", "July", "August", "September", "October", "November", "December" };

/* "13 April 2014", "13–14 April 2014", "30 March – 2 April 2014",
 * "30 December 2013 – 2 January 2014": the days between two YYYY-MM-DD. */
static void
days(GString *out, const char *first, const char *last)
{
    int y1, m1, d1, y2, m2, d2;

    if (sscanf(first, "%d-%d-%d", &y1, &m1, &d1) != 3 ||
        sscanf(last, "%d-%d-%d", &y2, &m2, &d2) != 3 || m1 < 1 || m1 > 12 || m2 < 1 || m2 > 12)
        return;
    if (y1 != y2)
        g_string_append_printf(out, "%d %s %d – %d %s %d", d1, month_names[m1 - 1], y1, d2,
            month_names[m2 - 1], y2);
    else if (m1 != m2)
        g_string_append_printf(out, "%d %s – %d %s %d", d1, month_names[m1 - 1], d2,
            month_names[m2 - 1], y2);
    else if (d1 != d2)
        g_string_append_printf(out, "%d–%d %s %d", d1, d2, month_names[m2 - 1], y2);
    else
        g_string_append_printf(out, "%d %s %d", d1, month_names[m1 - 1], y1);
}

/* "12 photos · 2 albums · 13 April 2014" */
static void
summary_line(GString *out, const gal_page *page, int a)
{
    album_sum sum = album_summary(page, a);
    int albums = page->albums[a].n_children;

    g_string_append_printf(out, "%d photo%s", sum.photos, sum.photos == 1 ? "" : "s");
    if (albums)
        g_string_append_printf(out, " · %d album%s", albums, albums == 1 ? "" : "s");
    if (*sum.first) {
        g_string_append(out, " · ");
        days(out, sum.first, sum.last);
    }
}

/* The site's title: the top album.yaml's, else the preset's. */
static char *
site_title(const gallery_opts *o, const gal_page *page)
{
    gal_facts facts = { 0 };
    char *title;

    if (page->albums[0].title)
        return g_strdup(page->albums[0].title);
    facts.count = page->count;
    facts.preset = page->preset;
    title = gal__template_render(o->title, &facts, FALSE);
    g_strstrip(title);
    if (!*title) {
        g_free(title);
        title = g_strdup("Photos");
    }
    return title;
}

/* An album's name: its album.yaml's title, else its folder's name (the
 * site's title for the top). A new string. */
static char *
album_name(const gallery_opts *o, const gal_page *page, int a)
{
    const gal_album *album = &page->albums[a];
    const char *slash;

    if (a == 0 || !*album->path)
        return site_title(o, page);
    if (album->title)
        return g_strdup(album->title);
    slash = strrchr(album->path, '/');
    return g_strdup(slash ? slash + 1 : album->path);
}

/* "../../" for a page of album a: back to the top of the site. */
static char *
up_from(const gal_page *page, int a)
{
    const char *path = page->albums[a].path;
    GString *up = g_string_new(NULL);

    for (const char *c = path; *path && c; c = strchr(c + 1, '/'))
        g_string_append(up, "../");
    return g_string_free(up, FALSE);
}

/* The photo an album's card shows: album.yaml's cover, else its first
 * photo, else its first sub-album's cover. NULL: none. */
static VipsImage *
album_cover(const gal_page *page, int a)
{
    const gal_album *album = &page->albums[a];

    for (int i = 0; i < album->n_items && album->cover; i++) {
        g_autofree char *name = label_field(album->items[i], LABEL_NAME);

        if (album->items[i] && strcmp(name, album->cover) == 0)
            return album->items[i];
    }
    for (int i = 0; i < album->n_items; i++)
        if (album->items[i])
            return album->items[i];
    for (int c = 0; c < album->n_children; c++) {
        VipsImage *cover = album_cover(page, album->children[c]);

        if (cover)
            return cover;
    }
    return NULL;
}

/* ---- per page -------------------------------------------------------------------- */

static void
breadcrumbs(GString *out, const gallery_opts *o, const gal_page *page, const char *up)
{
    int chain[256], n = 0;

    /* The home page is the top; its page 2 is not. */
    if (page->album == 0 && page->number == 1)
        return;
    for (int a = page->album; a >= 0 && n < (int) G_N_ELEMENTS(chain);
         a = page->albums[a].parent)
        chain[n++] = a;
    g_string_append(out, "<nav class=\"crumbs\" aria-label=\"Breadcrumb\"><ol>");
    for (int k = n - 1; k >= 0; k--) {
        g_autofree char *name = album_name(o, page, chain[k]);
        g_autofree char *target = album_page_path(page->albums[chain[k]].path, 1);

        if (k == 0 && page->number == 1) {
            g_string_append(out, "<li aria-current=\"page\" dir=\"auto\">");
            html(out, name);
            g_string_append(out, "</li>");
            continue;
        }
        g_string_append(out, "<li><a href=\"");
        url(out, up, target);
        g_string_append(out, "\" dir=\"auto\">");
        html(out, name);
        g_string_append(out, "</a></li>");
    }
    g_string_append(out, "</ol></nav>\n");
}

/* The album's pages, linked from one of them: beside it, in its folder. */
static void
page_nav(GString *out, const gal_page *page)
{
    const char *album = "", *up = "";

    if (page->pages < 2)
        return;
    g_string_append(out, "<nav class=\"pages\" aria-label=\"Pages\">");
    if (page->number > 1) {
        g_autofree char *prev = album_page_path(album, page->number - 1);

        g_string_append(out, "<a rel=\"prev\" href=\"");
        url(out, up, prev);
        g_string_append(out, "\"><span aria-hidden=\"true\">←</span>"
                             "<span class=\"sr\">Previous page</span></a>");
    }
    for (int p = 1; p <= page->pages; p++) {
        g_autofree char *name = album_page_path(album, p);

        if (p == page->number)
            g_string_append_printf(out, "<span aria-current=\"page\">%d</span>", p);
        else {
            g_string_append(out, "<a href=\"");
            url(out, up, name);
            g_string_append_printf(out, "\">%d</a>", p);
        }
    }
    if (page->number < page->pages) {
        g_autofree char *next = album_page_path(album, page->number + 1);

        g_string_append(out, "<a rel=\"next\" href=\"");
        url(out, up, next);
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
srcset(GString *out, const char *up, const photo_info *p, const char *format, gboolean always,
    const char *sizes)
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
        url(out, up, var->rel);
        g_string_append_printf(out, " %dw", var->width);
    }
    g_string_append_printf(out, "\" sizes=\"%s\"", sizes);
}

/* The <source>s of a <picture>: the formats besides the fallback, the
 * newer (smaller) first, as the browser takes the first it can show: the
 * table's last first (formats.def lists them oldest first). */
static gboolean
picture_sources(GString *out, const char *up, const photo_info *p, const char *fallback,
    const char *sizes)
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
        srcset(out, up, p, name, TRUE, sizes);
        g_string_append_c(out, '>');
    }
    return any;
}

/* How wide a tile is in CSS pixels, as the browser's `sizes` says it: the
 * page's content (the window less 32 px of padding, at most 1400 px less
 * them) less the row's gaps, times the photo's share, in each layout. */
static char *
tile_sizes(double share, int gaps, double share_narrow, int gaps_narrow)
{
    GString *out = g_string_new(NULL);

    g_string_append_printf(out, "(max-width: %dpx) calc((100vw - %dpx) * ", NARROW_BELOW,
        32 + GAP * gaps_narrow);
    css_number(out, share_narrow, 5);
    g_string_append_printf(out, "), (max-width: %dpx) calc((100vw - %dpx) * ", WIDE_WIDTH,
        32 + GAP * gaps);
    css_number(out, share, 5);
    g_string_append(out, "), ");
    g_string_append_printf(out, "%dpx", MAX(1, (int) ceil(share * (WIDE_WIDTH - 32 - GAP * gaps))));
    return g_string_free(out, FALSE);
}

/* An <img> of the photo (in a <picture> when it has other formats). */
static void
image(GString *out, const char *up, const photo_info *p, const char *sizes, gboolean eager,
    const char *alt)
{
    const char *fallback = fallback_format(p);
    const variant *largest, *shown;
    gboolean picture;

    extremes(p, fallback, &largest, &shown);
    picture = picture_sources(out, up, p, fallback, sizes);
    g_string_append(out, "<img src=\"");
    url(out, up, shown->rel);
    g_string_append_c(out, '"');
    srcset(out, up, p, fallback, FALSE, sizes);
    g_string_append_printf(out, " width=\"%d\" height=\"%d\" %s decoding=\"async\" alt=\"",
        shown->width, shown->height,
        eager ? "fetchpriority=\"high\"" : "loading=\"lazy\"");
    html(out, alt);
    g_string_append(out, picture ? "\"></picture>" : "\">");
}

/* The tile's colour and placeholder, as style declarations. */
static void
placeholder_style(GString *out, const photo_info *p)
{
    g_string_append_printf(out, "--c:%s", p->color);
    if (p->placeholder) {
        g_string_append(out, ";background-image:url(");
        html(out, p->placeholder);
        g_string_append_c(out, ')');
    }
}

static void
photo_entry(GString *out, const char *up, const photo_info *p, double share, int gaps,
    double share_narrow, int gaps_narrow, gboolean eager)
{
    const char *fallback = p->variants->len ? fallback_format(p) : NULL;
    const variant *largest = NULL, *shown = NULL;
    g_autofree char *id = g_uri_escape_string(p->label[LABEL_NAME], NULL, TRUE);
    g_autofree char *sizes = NULL;

    if (fallback)
        extremes(p, fallback, &largest, &shown);
    g_string_append(out, "<li");
    if (*id) {
        /* The photo's address on the page: #its-file-name. */
        g_string_append(out, " id=\"");
        html(out, id);
        g_string_append_c(out, '"');
    }
    g_string_append(out, " style=\"--f:");
    css_number(out, share, 5);
    g_string_append_printf(out, ";--k:%d;--fn:", gaps);
    css_number(out, share_narrow, 5);
    g_string_append_printf(out, ";--kn:%d;--a:", gaps_narrow);
    if (largest)
        g_string_append_printf(out, "%d/%d", largest->width, largest->height);
    else
        css_number(out, p->aspect, 5);
    g_string_append_c(out, ';');
    placeholder_style(out, p);
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
    url(out, up, largest->rel);
    g_string_append_printf(out, "\" data-w=\"%d\" data-h=\"%d\"", largest->width,
        largest->height);
    if (p->original) {
        /* download: original: the lightbox's link takes this file home. */
        g_string_append(out, " data-orig=\"");
        url(out, up, p->original);
        g_string_append_c(out, '"');
    }
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
    /* The photo's long description (its sidecar, IPTC's Extended
     * Description), shown under the caption in the lightbox. */
    if (*p->label[LABEL_DESCRIPTION]) {
        g_string_append(out, " data-description=\"");
        html(out, p->label[LABEL_DESCRIPTION]);
        g_string_append_c(out, '"');
    }
    g_string_append(out, ">");
    sizes = tile_sizes(share, gaps, share_narrow, gaps_narrow);
    image(out, up, p, sizes, eager, p->label[LABEL_ALT]);
    g_string_append(out, "</a></li>\n");
}

/* The sub-albums' cards: cover, title, count and dates, each a link to
 * the album. The first row's covers load first. */
static void
album_cards(GString *out, const gallery_opts *o, const gal_page *page, const char *up)
{
    const gal_album *album = &page->albums[page->album];

    if (album->n_children == 0 || page->number != 1)
        return;
    g_string_append(out, "<section class=\"albums\" aria-labelledby=\"albums-h\">"
                         "<h2 id=\"albums-h\">Albums</h2>\n<ul class=\"cards\">\n");
    for (int c = 0; c < album->n_children; c++) {
        int a = album->children[c];
        g_autofree char *name = album_name(o, page, a);
        /* A sub-album's folder is in this one's: linked from here. */
        g_autofree char *target = album_page_path(page->albums[a].path + strlen(album->path) +
            (*album->path ? 1 : 0), 1);
        VipsImage *cover = album_cover(page, a);

        g_string_append(out, "<li><a href=\"");
        url(out, "", target);
        g_string_append(out, "\">");
        if (cover) {
            photo_info p = { 0 };

            photo_info_from_item(cover, &p);
            g_string_append(out, "<span class=\"cover\" style=\"");
            placeholder_style(out, &p);
            g_string_append(out, "\">");
            if (p.variants->len)
                /* Two columns on a phone; a wide screen's columns are
                 * 240 px at least, about 270 on a 1400 px page. */
                image(out, up, &p, "(max-width: 720px) calc((100vw - 42px) / 2), 360px", c < 3,
                    "");
            g_string_append(out, "</span>");
            photo_info_clear(&p);
        }
        g_string_append(out, "<span class=\"t\" dir=\"auto\">");
        html(out, name);
        g_string_append(out, "</span><span class=\"m\">");
        {
            GString *line = g_string_new(NULL);

            summary_line(line, page, a);
            html(out, line->str);
            g_string_free(line, TRUE);
        }
        g_string_append(out, "</span></a></li>\n");
    }
    g_string_append(out, "</ul></section>\n");
}

/* What a page says of itself to search engines and link previews: the
 * album's story as text, else (the home page) the site's description. */
static const char *
meta_description(const gallery_opts *o, const gal_page *page)
{
    const gal_album *album = &page->albums[page->album];

    if (album->summary && page->number == 1)
        return album->summary;
    return page->album == 0 && *o->description ? o->description : NULL;
}

/* Where a page of an album is once published: the album's folder for its
 * first page (a server serves its index.html), else the page's file. */
static char *
published_path(const char *album, int number)
{
    if (number == 1)
        return *album ? g_strdup_printf("%s/", album) : g_strdup("");
    return album_page_path(album, number);
}

/* `rel` beneath the site as an absolute URL, escaped for an attribute or
 * XML text. */
static void
absolute(GString *out, const gallery_opts *o, const char *rel)
{
    html(out, o->base_url);
    url(out, "", rel);
}

/* With base-url: the page's canonical address, its Open Graph and Twitter
 * card (title, description, the album's cover at its largest, the
 * address) and the site's feed. */
static void
published(GString *out, const gallery_opts *o, const gal_page *page, const char *site,
    const char *name, const char *up)
{
    const gal_album *album = &page->albums[page->album];
    g_autofree char *self = published_path(album->path, page->number);
    const char *description = meta_description(o, page);
    VipsImage *cover = album_cover(page, page->album);

    g_string_append(out, "<link rel=\"canonical\" href=\"");
    absolute(out, o, self);
    g_string_append(out, "\">\n<link rel=\"alternate\" type=\"application/atom+xml\" title=\"");
    html(out, site);
    g_string_append(out, "\" href=\"");
    url(out, up, "feed.xml");
    g_string_append(out, "\">\n<meta property=\"og:type\" content=\"website\">\n"
                         "<meta property=\"og:site_name\" content=\"");
    html(out, site);
    g_string_append(out, "\">\n<meta property=\"og:title\" content=\"");
    html(out, name);
    g_string_append(out, "\">\n<meta property=\"og:url\" content=\"");
    absolute(out, o, self);
    g_string_append(out, "\">\n");
    if (description) {
        g_string_append(out, "<meta property=\"og:description\" content=\"");
        html(out, description);
        g_string_append(out, "\">\n");
    }
    if (cover) {
        photo_info p = { 0 };

        photo_info_from_item(cover, &p);
        if (p.variants->len) {
            const variant *largest, *smallest;

            extremes(&p, fallback_format(&p), &largest, &smallest);
            g_string_append(out, "<meta property=\"og:image\" content=\"");
            absolute(out, o, largest->rel);
            g_string_append_printf(out, "\">\n<meta property=\"og:image:width\" content=\"%d\">\n"
                                        "<meta property=\"og:image:height\" content=\"%d\">\n"
                                        "<meta property=\"og:image:alt\" content=\"",
                largest->width, largest->height);
            html(out, p.label[LABEL_ALT]);
            g_string_append(out, "\">\n");
        }
        photo_info_clear(&p);
    }
    g_string_append_printf(out, "<meta name=\"twitter:card\" content=\"%s\">\n",
        cover ? "summary_large_image" : "summary");
}

/* An album's newest day (YYYY-MM-DD), for the feed; "" when undated. */
static int
compare_newest(gconstpointer a, gconstpointer b, gpointer user)
{
    const gal_page *site = user;
    album_sum x = album_summary(site, *(const int *) a);
    album_sum y = album_summary(site, *(const int *) b);
    int c = strcmp(y.last, x.last);

    return c ? c : strcmp(site->albums[*(const int *) a].path, site->albums[*(const int *) b].path);
}

#define FEED_ENTRIES 20

/* The SHA-256 (hex) the item's record keeps of its file `rel`
 * (GAL_META_DIGESTS), or NULL. New string. */
static char *
item_digest(VipsImage *item, const char *rel)
{
    const char *lines = NULL;
    size_t len = strlen(rel);
    g_auto(GStrv) split = NULL;

    if (!item || !vips_image_get_typeof(item, GAL_META_DIGESTS) ||
        vips_image_get_string(item, GAL_META_DIGESTS, &lines))
        return NULL;
    split = g_strsplit(lines, "\n", -1);
    for (int k = 0; split[k]; k++)
        if (strncmp(split[k], rel, len) == 0 && split[k][len] == '\t')
            return g_strdup(split[k] + len + 1);
    return NULL;
}

/* download: largest: album.zip in the album's folder, its own photos'
 * largest files every browser shows, by their file names, dated by the
 * newest of them (not by album.yaml or a sub-album: the zip changes only
 * with what it holds), so that the same files give the same bytes.
 * Described, not made: the engine makes it when what it holds
 * (`contents`: the entries, their files' SHA-256 as recorded, the date)
 * changed, so an album.yaml edited reads no photo. */
static void
album_zip(const gal_page *site, int a, GArray *zips)
{
    const gal_album *album = &site->albums[a];
    g_autoptr(GHashTable) taken = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    gal_page own = *site;
    gal_album alone = *album;
    album_sum summary = { 0 };
    gal_site_zip zip = { 0 };
    gboolean known = TRUE;
    int y, m, d;

    if (album->n_items == 0)
        return;
    /* Its own photos' days only. */
    alone.n_children = 0;
    own.albums = &alone;
    album_sum_add(&own, 0, &summary);
    zip.mtime = 946684800; /* 2000-01-01: zip's DOS dates start in 1980 */
    if (*summary.last && sscanf(summary.last, "%d-%d-%d", &y, &m, &d) == 3) {
        g_autoptr(GDateTime) dt = g_date_time_new_utc(y, m, d, 12, 0, 0);

        if (dt)
            zip.mtime = g_date_time_to_unix(dt);
    }
    zip.name = *album->path ? g_strdup_printf("%s/album.zip", album->path)
                            : g_strdup("album.zip");
    zip.paths = g_ptr_array_new_with_free_func(g_free);
    zip.entries = g_ptr_array_new_with_free_func(g_free);
    g_checksum_update(sum, (const guchar *) "album.zip 1\n", -1);
    {
        g_autofree char *date = g_strdup_printf("%" G_GINT64_FORMAT "\n", zip.mtime);

        g_checksum_update(sum, (const guchar *) date, -1);
    }
    for (int i = 0; i < album->n_items; i++) {
        photo_info p = { 0 };

        if (!album->items[i])
            continue;
        photo_info_from_item(album->items[i], &p);
        if (p.variants->len) {
            const variant *largest, *smallest;
            g_autofree char *base = NULL;
            g_autofree char *digest = NULL;

            extremes(&p, fallback_format(&p), &largest, &smallest);
            base = g_path_get_basename(largest->rel);
            /* Two files of one name (from two folders): the second by its path. */
            if (g_hash_table_contains(taken, base)) {
                g_free(base);
                base = g_strdelimit(g_strdup(largest->rel), "/", '_');
            }
            digest = item_digest(album->items[i], largest->rel);
            known &= digest != NULL;
            if (digest) {
                g_autofree char *line = g_strdup_printf("%s\t%s\t%s\n", base, largest->rel,
                    digest);

                g_checksum_update(sum, (const guchar *) line, -1);
            }
            g_ptr_array_add(zip.paths, g_strdup(largest->rel));
            g_hash_table_add(taken, base);
            g_ptr_array_add(zip.entries, g_steal_pointer(&base));
        }
        photo_info_clear(&p);
    }
    g_strlcpy(zip.contents, known ? g_checksum_get_string(sum) : "", sizeof(zip.contents));
    g_array_append_val(zips, zip);
}

/* download: original: the engine planned a name for each photo's original
 * it can publish (gal_album.originals); each is a product of the site. */
static void
album_originals(const gal_album *album, GArray *zips)
{
    for (int i = 0; album->originals && i < album->n_items; i++) {
        gal_site_zip original = { 0 };

        if (!album->originals[i])
            continue;
        original.name = g_strdup(album->originals[i]);
        original.source = g_strdup(album->sources[i]);
        g_array_append_val(zips, original);
    }
}

static int
gallery_site_zips(const gal_stage_ctx *sc, const gal_page *site, GArray *zips, gal_error *err)
{
    const gallery_opts *o = sc->opts;

    (void) err;
    if (o->download != DOWNLOAD_NONE)
        for (int a = 0; a < site->n_albums; a++)
            album_zip(site, a, zips);
    if (o->download == DOWNLOAD_ORIGINAL)
        for (int a = 0; a < site->n_albums; a++)
            album_originals(&site->albums[a], zips);
    return 0;
}

static gboolean
gallery_originals(const gal_stage_ctx *sc)
{
    const gallery_opts *o = sc->opts;

    return o->download == DOWNLOAD_ORIGINAL;
}

/* With base-url: sitemap.xml (every page) and feed.xml (an Atom feed of
 * the newest albums, each dated by its newest photo or its album.yaml). */
static int
gallery_site_files(const gal_stage_ctx *sc, const gal_page *site, GPtrArray *names,
    GPtrArray *texts, gal_error *err)
{
    const gallery_opts *o = sc->opts;
    GString *map, *feed;
    g_autofree char *title = NULL;
    g_autoptr(GArray) entries = g_array_new(FALSE, FALSE, sizeof(int));
    char newest[11] = "";

    (void) err;
    if (!*o->base_url)
        return 0;
    map = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for (int a = 0; a < site->n_albums; a++)
        for (int number = 1; number <= site->albums[a].pages; number++) {
            g_autofree char *path = published_path(site->albums[a].path, number);

            g_string_append(map, "<url><loc>");
            absolute(map, o, path);
            g_string_append(map, "</loc></url>\n");
        }
    g_string_append(map, "</urlset>\n");
    g_ptr_array_add(names, g_strdup("sitemap.xml"));
    g_ptr_array_add(texts, map);

    /* The albums, newest first; the top only when it is the only one. */
    for (int a = site->n_albums > 1 ? 1 : 0; a < site->n_albums; a++)
        g_array_append_val(entries, a);
    g_array_sort_with_data(entries, compare_newest, (gpointer) site);
    if (entries->len > FEED_ENTRIES)
        g_array_set_size(entries, FEED_ENTRIES);
    if (entries->len)
        g_strlcpy(newest, album_summary(site, g_array_index(entries, int, 0)).last,
            sizeof(newest));
    title = site_title(o, site);
    feed = g_string_new("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                        "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>");
    html(feed, title);
    g_string_append(feed, "</title>\n");
    if (*o->description) {
        g_string_append(feed, "<subtitle>");
        html(feed, o->description);
        g_string_append(feed, "</subtitle>\n");
    }
    g_string_append(feed, "<link rel=\"alternate\" href=\"");
    absolute(feed, o, "");
    g_string_append(feed, "\"/>\n<link rel=\"self\" href=\"");
    absolute(feed, o, "feed.xml");
    g_string_append(feed, "\"/>\n<id>");
    absolute(feed, o, "");
    /* No clock: the same photos give the same bytes. */
    g_string_append_printf(feed, "</id>\n<updated>%sT00:00:00Z</updated>\n<author><name>",
        *newest ? newest : "1970-01-01");
    html(feed, *o->author ? o->author : title);
    g_string_append(feed, "</name></author>\n<generator>gallop</generator>\n");
    for (guint e = 0; e < entries->len; e++) {
        int a = g_array_index(entries, int, e);
        album_sum sum = album_summary(site, a);
        g_autofree char *name = album_name(o, site, a);
        g_autofree char *path = published_path(site->albums[a].path, 1);
        GString *line = g_string_new(NULL);

        g_string_append(feed, "<entry>\n<title>");
        html(feed, name);
        g_string_append(feed, "</title>\n<link rel=\"alternate\" href=\"");
        absolute(feed, o, path);
        g_string_append(feed, "\"/>\n<id>");
        absolute(feed, o, path);
        g_string_append_printf(feed, "</id>\n<updated>%sT00:00:00Z</updated>\n<summary>",
            *sum.last ? sum.last : "1970-01-01");
        summary_line(line, site, a);
        if (site->albums[a].summary)
            g_string_append_printf(line, ". %s", site->albums[a].summary);
        html(feed, line->str);
        g_string_free(line, TRUE);
        g_string_append(feed, "</summary>\n</entry>\n");
    }
    g_string_append(feed, "</feed>\n");
    g_ptr_array_add(names, g_strdup("feed.xml"));
    g_ptr_array_add(texts, feed);
    return 0;
}

/* A page without the album tree (a stage test): one album of its items. */
static void
lone_album(gal_album *album, VipsImage **in, int n, const gal_page *page, gal_page *with)
{
    *album = (gal_album) { .path = "", .parent = -1, .items = in, .n_items = n,
        .pages = page->pages };
    *with = *page;
    with->albums = album;
    with->n_albums = 1;
    with->album = 0;
}

/* A wrong album.yaml cover: no photo of the album has that name. */
static int
check_cover(const gal_stage_ctx *sc, const gal_page *page, gal_error *err)
{
    const gal_album *album = &page->albums[page->album];

    if (!album->cover)
        return 0;
    for (int i = 0; i < album->n_items; i++) {
        g_autofree char *name = label_field(album->items[i], LABEL_NAME);

        if (strcmp(name, album->cover) == 0)
            return 0;
    }
    (void) sc;
    return gal_error_set(err, GAL_ERR_INPUT, &album->cover_loc, "album.cover",
        "no photo of this album is named \"%s\"", album->cover);
}

static int
gallery_build_text(const gal_stage_ctx *sc, VipsImage **in, int n, const gal_page *page_in,
    GString **text, gal_error *err)
{
    const gallery_opts *o = sc->opts;
    g_autofree photo_info *photos = g_new0(photo_info, MAX(1, n));
    g_autofree double *aspects = g_new(double, MAX(1, n));
    g_autofree double *share = g_new0(double, MAX(1, n));
    g_autofree double *share_narrow = g_new0(double, MAX(1, n));
    g_autofree int *gaps = g_new0(int, MAX(1, n));
    g_autofree int *gaps_narrow = g_new0(int, MAX(1, n));
    g_autofree gboolean *first_row = g_new0(gboolean, MAX(1, n));
    g_autofree char *site = NULL;
    g_autofree char *name = NULL;
    g_autofree char *up = NULL;
    gal_album lone;
    gal_page with_album;
    const gal_page *page = page_in;
    const gal_album *album;
    gboolean top, cards;
    GString *out;

    if (!page->albums) {
        lone_album(&lone, in, n, page_in, &with_album);
        page = &with_album;
    }
    album = &page->albums[page->album];
    if (check_cover(sc, page, err))
        return -1;
    top = page->album == 0;
    cards = album->n_children > 0 && page->number == 1;
    site = site_title(o, page);
    name = album_name(o, page, page->album);
    up = up_from(page, page->album);
    out = g_string_sized_new(4096 + 1024 * (gsize) n);

    for (int i = 0; i < n; i++) {
        photo_info_from_item(in[i], &photos[i]);
        aspects[i] = photos[i].aspect;
    }
    /* One layout, the contact sheet's, at two widths. */
    row_shares(n, aspects, WIDE_WIDTH, o->row_height, share, gaps, first_row);
    row_shares(n, aspects, NARROW_WIDTH, NARROW_ROW_HEIGHT, share_narrow, gaps_narrow, NULL);

    g_string_append(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                         "<meta name=\"generator\" content=\"gallop\">\n"
                         /* No icon: a browser would ask the server's root for one. */
                         "<link rel=\"icon\" href=\"data:,\">\n<title>");
    /* "Spain · page 2 of 3 · Travels": the album, where in it, the site. */
    html(out, name);
    if (page->pages > 1)
        g_string_append_printf(out, " · page %d of %d", page->number, page->pages);
    if (!top) {
        g_string_append(out, " · ");
        html(out, site);
    }
    g_string_append(out, "</title>\n");
    if (meta_description(o, page)) {
        g_string_append(out, "<meta name=\"description\" content=\"");
        html(out, meta_description(o, page));
        g_string_append(out, "\">\n");
    }
    if (*o->author) {
        g_string_append(out, "<meta name=\"author\" content=\"");
        html(out, o->author);
        g_string_append(out, "\">\n");
    }
    if (*o->base_url)
        published(out, o, page, site, name, up);
    g_string_append_printf(out, "<meta name=\"color-scheme\" content=\"%s\">\n",
        o->theme == THEME_DARK ? "dark" : "light");
    g_string_append_printf(out, "<style>%s%s</style>\n</head>\n<body class=\"%s\">\n", page_css,
        album_css, o->theme == THEME_DARK ? "dark" : "light");
    g_string_append(out, "<header>\n");
    breadcrumbs(out, o, page, up);
    g_string_append(out, "<h1 dir=\"auto\">");
    html(out, name);
    g_string_append(out, "</h1>\n");
    if (album->description && page->number == 1) {
        /* album.yaml's Markdown, made safe HTML when it was read. */
        g_string_append(out, "<div class=\"story\" dir=\"auto\">");
        g_string_append(out, album->description);
        g_string_append(out, "</div>\n");
    }
    else if (top && *o->description && page->number == 1) {
        g_string_append(out, "<p>");
        html(out, o->description);
        g_string_append(out, "</p>\n");
    }
    {
        GString *line = g_string_new(NULL);

        summary_line(line, page, page->album);
        if (page->pages > 1)
            g_string_append_printf(line, " · page %d of %d", page->number, page->pages);
        g_string_append(out, "<p class=\"sum\">");
        html(out, line->str);
        g_string_append(out, "</p>\n");
        g_string_free(line, TRUE);
    }
    if (o->download != DOWNLOAD_NONE && album->n_items > 0 && page->number == 1) {
        /* The album's own photos, each at its largest, in one file. */
        const char *slash = strrchr(album->path, '/');
        const char *folder = *album->path ? (slash ? slash + 1 : album->path) : "photos";
        g_autofree char *zip_name = g_strdup_printf("%s.zip", folder);

        g_string_append(out, "<p><a class=\"zip\" href=\"album.zip\" download=\"");
        html(out, zip_name);
        /* Its own photos only: its sub-albums have zips of their own. */
        g_string_append_printf(out, "\">Download the album's %s%d photo%s (zip)</a></p>\n",
            album->n_children ? "own " : "", album->n_items, album->n_items == 1 ? "" : "s");
    }
    g_string_append(out, "</header>\n<main>\n");
    album_cards(out, o, page, up);
    if (n > 0) {
        if (cards)
            g_string_append(out, "<h2>Photos</h2>\n");
        g_string_append(out, "<ul class=\"grid\">\n");
        for (int i = 0; i < n; i++)
            /* The first row is in view at once: it loads first, and the
             * rest as they come near (below the cards, all of them). */
            photo_entry(out, up, &photos[i], share[i], gaps[i], share_narrow[i], gaps_narrow[i],
                first_row[i] && !cards);
        g_string_append(out, "</ul>\n");
    }
    g_string_append(out, "</main>\n");
    page_nav(out, page);
    g_string_append(out, "<footer>");
    if (*o->author) {
        g_string_append(out, "Photos © ");
        html(out, o->author);
        g_string_append(out, " · ");
    }
    g_string_append(out, "Made with gallop</footer>\n");
    g_string_append_printf(out,
        "<dialog id=\"lb\" aria-label=\"Photo viewer\">\n"
        "<div class=\"stage\"><img alt=\"\"></div>\n"
        "<div class=\"info\" aria-live=\"polite\"><p class=\"cap\" dir=\"auto\"></p>"
        "<p class=\"desc\" dir=\"auto\"></p><p class=\"exif\"></p>"
        "<p class=\"meta\"><span class=\"pos\"></span> · "
        "<a class=\"orig\" href=\"#\"%s>%s</a></p></div>\n"
        "<button type=\"button\" class=\"close\" aria-label=\"Close\">×</button>\n"
        "<button type=\"button\" class=\"prev\" aria-label=\"Previous photo\">‹</button>\n"
        "<button type=\"button\" class=\"next\" aria-label=\"Next photo\">›</button>\n"
        "</dialog>\n",
        /* download: the link takes the file home rather than shows it. */
        o->download != DOWNLOAD_NONE ? " download" : "",
        o->download != DOWNLOAD_NONE ? "Download" : "Full size");
    g_string_append_printf(out, "<script>%s</script>\n</body>\n</html>\n", page_js);

    for (int i = 0; i < n; i++)
        photo_info_clear(&photos[i]);
    *text = out;
    return 0;
}

/* base-url: an absolute http(s) URL of a folder. */
static int
gallery_check(const gal_stage_ctx *sc, gal_error *err)
{
    const gallery_opts *o = sc->opts;
    const char *b = o->base_url;

    if (!*b)
        return 0;
    if (!(g_str_has_prefix(b, "https://") || g_str_has_prefix(b, "http://")) ||
        !g_str_has_suffix(b, "/") || strpbrk(b, " \t\n\"<>'`") || !g_uri_is_valid(b,
            G_URI_FLAGS_NONE, NULL))
        return gal_error_set(err, GAL_ERR_PRESET,
            gal__stage_key_loc(sc, gallery_params, "base_url"), "gallery.base-url",
            "expected the site's address as http(s)://host/folder/ (ending in '/'), got \"%s\"",
            b);
    return 0;
}

const gal_stage_def gal_stage_gallery = {
    .name = "gallery",
    .summary = "a static HTML site of the run: an album per folder (album.yaml), justified "
               "rows, a lightbox with a link per photo",
    .params = gallery_params,
    .opts_size = sizeof(gallery_opts),
    .kind = GAL_STAGE_GATHER,
    .check = gallery_check,
    .gather_plan = gallery_plan,
    .page_name = gallery_page_name,
    .tap = gallery_tap,
    .label = gallery_label,
    .build_text = gallery_build_text,
    .site_files = gallery_site_files,
    .site_zips = gallery_site_zips,
    .originals = gallery_originals,
    .albums = TRUE,
};
