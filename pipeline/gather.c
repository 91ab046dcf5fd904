/* gather.c: feeding the gathering stage (contact sheets) during a run.
 *
 * At plan time the photos are put in the stage's order (name, date taken or
 * input order; ties by path) and cut into pages; the run then processes
 * photos in that order, so pages complete one after another. Each finished
 * photo hands over its small item (or nothing, if it failed); the worker
 * that completes a page composes and writes it, and its items are freed.
 * Memory is bounded by the pages in flight, not by the number of photos. */
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "captions.h"
#include "fsio.h"
#include "digest.h"
#include "format.h"
#include "gather.h"
#include "job.h"
#include "outdir.h"
#include "output.h"
#include "preset.h"
#include "stage.h"
#include "template.h"

typedef struct {
    int first, n;       /* positions [first, first + n) in the order */
    int pending;        /* photos not finished yet */
    VipsImage **items;  /* by position within the page; NULL = failed */
} page_state;

struct gal_gather {
    const gal_preset *preset;
    const gal_stage_instance *stage;
    int n_photos;
    int *position;      /* photo index -> 0-based position in the order */
    int per_page, n_pages;
    page_state *pages;
    int *page_of;       /* position -> page */
    /* Pages per album (the stage asks for it): each page's album, every
     * album in order and its first page (1-based). NULL: no albums. */
    char **page_album;
    char **albums;
    int *album_first;
    int n_albums;
    const gal_out_dir *out_dir; /* borrowed from the run */
    GMutex lock;        /* guards pages[].items/pending and results */
    GArray *results;    /* gal_photo_result of written (or failed) pages */
};

typedef struct {
    int photo;
    const char *album;  /* "" without albums */
    const char *path;
    gboolean has_date;
    gint64 time;        /* date taken, else file time, seconds */
} sort_key;

static int
compare_by_date(gconstpointer a, gconstpointer b)
{
    const sort_key *x = a, *y = b;
    int album = strcmp(x->album, y->album);

    if (album)
        return album;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return strcmp(x->path, y->path);
}

int
gal__natural_compare(const char *a, const char *b)
{
    g_autofree char *fa = g_utf8_casefold(a, -1);
    g_autofree char *fb = g_utf8_casefold(b, -1);
    const char *p = fa, *q = fb;

    while (*p && *q) {
        if (g_ascii_isdigit(*p) && g_ascii_isdigit(*q)) {
            /* Numbers by value: the longer run of significant digits is
             * larger, else the first digit that differs decides. */
            const char *pe, *qe;
            size_t pl, ql;

            while (*p == '0' && g_ascii_isdigit(p[1]))
                p++;
            while (*q == '0' && g_ascii_isdigit(q[1]))
                q++;
            for (pe = p; g_ascii_isdigit(*pe); pe++)
                ;
            for (qe = q; g_ascii_isdigit(*qe); qe++)
                ;
            pl = (size_t) (pe - p);
            ql = (size_t) (qe - q);
            if (pl != ql)
                return pl < ql ? -1 : 1;
            for (; p < pe; p++, q++)
                if (*p != *q)
                    return *p < *q ? -1 : 1;
            continue;
        }
        if (*p != *q)
            return (guchar) *p < (guchar) *q ? -1 : 1;
        p++;
        q++;
    }
    if (*p || *q)
        return *p ? 1 : -1;
    /* Equal but for case or leading zeros: still a fixed order. */
    return strcmp(a, b);
}

static int
compare_by_name(gconstpointer a, gconstpointer b)
{
    const sort_key *x = a, *y = b;
    g_autofree char *bx = g_path_get_basename(x->path);
    g_autofree char *by = g_path_get_basename(y->path);
    int c = strcmp(x->album, y->album);

    if (c)
        return c;
    c = gal__natural_compare(bx, by);

    return c ? c : strcmp(x->path, y->path);
}

gint64
gal__sort_time(const gal_facts *facts, const char *path)
{
    struct stat st;

    if (facts && facts->has_date) {
        g_autoptr(GDateTime) dt = g_date_time_new_utc(facts->date.tm_year + 1900,
            facts->date.tm_mon + 1, facts->date.tm_mday, facts->date.tm_hour,
            facts->date.tm_min, facts->date.tm_sec);

        if (dt)
            return g_date_time_to_unix(dt);
    }
    /* No date taken (or an unreadable photo, which will fail on its own):
     * the file's time keeps the order stable. */
    return stat(path, &st) == 0 ? (gint64) st.st_mtime : G_MAXINT64;
}

/* The run's own order (by path), albums kept together. */
static int
compare_by_album(gconstpointer a, gconstpointer b)
{
    const sort_key *x = a, *y = b;
    int c = strcmp(x->album, y->album);

    return c ? c : x->photo - y->photo;
}

static gint64
date_of(const gal_preset *preset, const char *path)
{
    g_autoptr(GStringChunk) strings = g_string_chunk_new(128);
    gal_facts facts = { 0 };
    gal_error err = { 0 };
    gal_photo_ref photo = { path, NULL, FALSE };

    if (gal__photo_facts(preset, &photo, &facts, strings, &err) != 0)
        facts.has_date = FALSE;
    return gal__sort_time(&facts, path);
}

gal_gather *
gal__gather_new(const gal_preset *preset, const char *const *paths, const char *const *albums,
    const gint64 *times, int n, const gal_out_dir *out_dir, int *order)
{
    const gal_stage_instance *stage = NULL;
    gal_gather *g;
    g_autofree sort_key *keys = NULL;
    gal_sort sort;
    gal_stage_ctx sc;

    for (guint i = 0; i < preset->stages->len && !stage; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);

        if (st->def->kind == GAL_STAGE_GATHER)
            stage = st;
    }
    if (!stage)
        return NULL;

    g = g_new0(gal_gather, 1);
    g->preset = preset;
    g->stage = stage;
    g->n_photos = n;
    g->out_dir = out_dir;
    g->position = g_new0(int, MAX(1, n));
    g->results = g_array_new(FALSE, TRUE, sizeof(gal_photo_result));
    g_mutex_init(&g->lock);
    sc = gal__stage_ctx(stage);
    stage->def->gather_plan(&sc, &g->per_page, &sort);

    if (!stage->def->albums)
        albums = NULL;
    keys = g_new0(sort_key, MAX(1, n));
    for (int i = 0; i < n; i++) {
        keys[i] = (sort_key) { i, albums ? albums[i] : "", paths[i], FALSE, 0 };
        if (sort == GAL_SORT_DATE)
            keys[i].time = times && times[i] != GAL_SORT_TIME_UNKNOWN ? times[i]
                                                                     : date_of(preset, paths[i]);
    }
    /* GAL_SORT_INPUT keeps the plan's order, which is already by path;
     * albums keep their photos together in any order. */
    if (sort == GAL_SORT_DATE)
        qsort(keys, n, sizeof(sort_key), compare_by_date);
    else if (sort == GAL_SORT_NAME)
        qsort(keys, n, sizeof(sort_key), compare_by_name);
    else if (albums)
        qsort(keys, n, sizeof(sort_key), compare_by_album);
    for (int p = 0; p < n; p++) {
        order[p] = keys[p].photo;
        g->position[keys[p].photo] = p;
    }

    if (g->per_page <= 0)
        g->per_page = MAX(1, n);
    /* A page ends at per_page photos, and, with albums, where its album
     * does: each album's photos start a page of their own. */
    g->pages = g_new0(page_state, MAX(1, n));
    g->page_of = g_new0(int, MAX(1, n));
    if (albums) {
        g->page_album = g_new0(char *, MAX(1, n) + 1);
        g->albums = g_new0(char *, MAX(1, n) + 1);
        g->album_first = g_new0(int, MAX(1, n));
    }
    for (int p = 0; p < n; p++) {
        const char *album = keys[p].album;
        gboolean new_album = p == 0 || strcmp(album, keys[p - 1].album) != 0;
        page_state *page = g->n_pages ? &g->pages[g->n_pages - 1] : NULL;

        if (!page || page->n == g->per_page || (albums && new_album)) {
            page = &g->pages[g->n_pages++];
            page->first = p;
            if (albums)
                g->page_album[g->n_pages - 1] = g_strdup(album);
        }
        if (albums && new_album) {
            g->albums[g->n_albums] = g_strdup(album);
            g->album_first[g->n_albums++] = g->n_pages;
        }
        page->n++;
        g->page_of[p] = g->n_pages - 1;
    }
    for (int p = 0; p < g->n_pages; p++) {
        g->pages[p].pending = g->pages[p].n;
        g->pages[p].items = g_new0(VipsImage *, g->pages[p].n);
    }
    return g;
}

int
gal__gather_index(const gal_gather *g, int photo)
{
    return g ? g->position[photo] + 1 : 0;
}

/* A sheet is made from many photos but inherits the fields of the first
 * tile, so without this it would carry one photo's caption, camera, date
 * and GPS as if they were its own. The output policy then adds only what
 * gallop writes on every output (Software). */
static void
strip_photo_metadata(VipsImage *sheet)
{
    static const char *const photo_fields[] = {
        VIPS_META_EXIF_NAME, VIPS_META_XMP_NAME, VIPS_META_IPTC_NAME, "jpeg-thumbnail-data",
    };
    g_auto(GStrv) fields = vips_image_get_fields(sheet);

    for (size_t i = 0; i < G_N_ELEMENTS(photo_fields); i++)
        vips_image_remove(sheet, photo_fields[i]);
    /* libvips mirrors every EXIF tag as an exif-* field; the encoder would
     * rebuild EXIF from them. */
    for (int i = 0; fields[i]; i++)
        if (g_str_has_prefix(fields[i], "exif-"))
            vips_image_remove(sheet, fields[i]);
}

/* Compose and write page `p` (its photos all finished). Not under the lock:
 * only the worker that completed the page gets here. */
static void
write_page(gal_gather *g, int p)
{
    page_state *page = &g->pages[p];
    const gal_stage_instance *stage = g->stage;
    gal_stage_ctx sc = gal__stage_ctx(stage);
    gal_page info = { p + 1, g->n_pages, g->n_photos, g->preset->name,
        g->page_album ? g->page_album[p] : NULL, g->n_albums,
        (const char *const *) g->albums, g->album_first };
    g_autofree VipsImage **present = g_new0(VipsImage *, MAX(1, page->n));
    g_autofree char *name = stage->def->page_name(&sc, p + 1, g->n_pages);
    gal_photo_result result = { 0 };
    gal_write_info written = { .preset_name = g->preset->name };
    g_autoptr(VipsImage) sheet = NULL;
    gal_output_opts output = *g->preset->output;
    int format = gal__format_of_file(name);
    int n = 0, failed;

    /* A photo that failed leaves no hole: the rest close up. */
    for (int i = 0; i < page->n; i++)
        if (page->items[i])
            present[n++] = page->items[i];
    if (n == 0)
        return; /* every photo of the page failed: no sheet of nothing */
    result.output = g_build_filename(g->out_dir->path, name, NULL);
    result.input = g_strdup(stage->def->name);
    /* The page's extension chose its format (the stage checked it). */
    output.format = format >= 0 ? (gal_format) format : GAL_FORMAT_JPEG;
    if (stage->def->build_text) {
        GString *text = NULL;

        failed = stage->def->build_text(&sc, present, n, &info, &text, gal__photo_error(&result)) ||
            gal__write_atomic_beneath(g->out_dir->fd, g->out_dir->path, name, text->str, text->len,
                FALSE, gal__photo_error(&result));
        if (text)
            g_string_free(text, TRUE);
        if (failed) {
            result.status = GAL_PHOTO_FAILED;
            gal_error_set_subject(gal__photo_error(&result), result.output);
        }
        else {
            gal__photo_error_clear(&result);
            result.status = GAL_PHOTO_DONE;
        }
        goto done;
    }
    failed = stage->def->build_many(&sc, present, n, &info, &sheet, gal__photo_error(&result));
    if (!failed) {
        strip_photo_metadata(sheet);
        failed = gal__output_write_info(&output, sheet, g->out_dir, name, &written,
            gal__photo_error(&result));
    }
    if (failed) {
        result.status = GAL_PHOTO_FAILED;
        gal_error_set_subject(gal__photo_error(&result), result.output);
    }
    else {
        gal__photo_error_clear(&result);
        result.status = GAL_PHOTO_DONE;
        result.width = sheet->Xsize;
        result.height = sheet->Ysize;
        /* As written: the record need not read the page back. */
        result.bytes = written.bytes;
        gal__sha256_from_hex(&result.sha256, written.sha256);
    }
done:
    for (int i = 0; i < page->n; i++)
        VIPS_UNREF(page->items[i]);
    g_mutex_lock(&g->lock);
    g_array_append_val(g->results, result);
    g_mutex_unlock(&g->lock);
}

void
gal__gather_done(gal_gather *g, int photo, VipsImage *item)
{
    int position, p;
    gboolean complete;

    if (!g)
        return;
    position = g->position[photo];
    p = g->page_of[position];
    g_mutex_lock(&g->lock);
    g->pages[p].items[position - g->pages[p].first] = item; /* ownership taken */
    complete = --g->pages[p].pending == 0;
    g_mutex_unlock(&g->lock);
    if (complete)
        write_page(g, p);
}

static int
compare_results(gconstpointer a, gconstpointer b)
{
    return strcmp(((const gal_photo_result *) a)->output, ((const gal_photo_result *) b)->output);
}

GArray *
gal__gather_free(gal_gather *g)
{
    GArray *results;

    if (!g)
        return NULL;
    for (int p = 0; p < g->n_pages; p++) {
        for (int i = 0; i < g->pages[p].n; i++)
            VIPS_UNREF(g->pages[p].items[i]);
        g_free(g->pages[p].items);
    }
    g_free(g->pages);
    g_free(g->page_of);
    g_strfreev(g->page_album);
    g_strfreev(g->albums);
    g_free(g->album_first);
    g_free(g->position);
    g_mutex_clear(&g->lock);
    results = g->results;
    /* Pages finish in any order; report them in page order. */
    g_array_sort(results, compare_results);
    g_free(g);
    return results;
}
