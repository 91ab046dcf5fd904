/* gather.c: feeding the gathering stage (contact sheets) during a run.
 *
 * At plan time the photos are put in the stage's order (name, date taken or
 * input order; ties by path) and cut into pages; the run then processes
 * photos in that order, so pages complete one after another. Each finished
 * photo hands over its small item (or nothing, if it failed); the worker
 * that completes a page composes and writes it, and its items are freed.
 * Memory is bounded by the pages in flight, not by the number of photos. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "album.h"
#include "captions.h"
#include "fsio.h"
#include "digest.h"
#include "format.h"
#include "gather.h"
#include "job.h"
#include "original.h"
#include "outdir.h"
#include "output.h"
#include "preset.h"
#include "stage.h"
#include "template.h"
#include "zipfile.h"

typedef struct {
    int first, n;       /* positions [first, first + n) in the order */
    int pending;        /* photos not finished yet */
    int album;          /* its album (albums only; else 0) */
    int number;         /* 1-based, within its album */
} page_state;

/* An album while planning: a folder of the input folder with photos, or
 * one above such a folder. */
typedef struct {
    char *path;         /* "" the top */
    char *dir;          /* its folder, to read album.yaml from */
    int parent;         /* -1: the top */
    GArray *children;   /* int, in order once planned */
    gal_album_file *file; /* its album.yaml, NULL: none (or wrong) */
    gal_error error;    /* album.yaml is wrong (code 0: it is not) */
    gal_sort sort;      /* its photos' order */
    gint64 time;        /* its date (album.yaml's, else its earliest photo's) */
    int rank;           /* place in the site's order, the top first */
    int first, n;       /* its own photos' positions */
    int first_page, n_pages;
} album_node;

struct gal_gather {
    const gal_preset *preset;
    const gal_stage_instance *stage;
    int n_photos;
    int *position;      /* photo index -> 0-based position in the order */
    int per_page, n_pages;
    page_state *pages;
    int *page_of;       /* position -> page */
    VipsImage **items;  /* by position; NULL: not in yet, or failed */
    /* Albums (the stage asks for them): every album, the top first; the
     * pages are made once every photo is in. NULL: no albums. */
    GArray *albums;     /* album_node, by rank */
    int pending;        /* photos not finished yet (albums) */
    const gal_out_dir *out_dir; /* borrowed from the run */
    GMutex lock;        /* guards pages[].pending, items, pending and results */
    GArray *results;    /* gal_photo_result of written (or failed) pages */
    GHashTable *kept_zips; /* name -> gal_kept_zip: the zips as last made; NULL: none */
    /* The stage offers originals: each photo's published name (NULL: not
     * a JPEG) and input file, by position. NULL: it does not. */
    char **originals;
    char **sources;
    /* original's name -> its input's digest (GAL_META_SOURCE_DIGEST; ""
     * unknown), for each photo that came in with an item: one that failed
     * has none, and its original is not published. Guarded by lock. */
    GHashTable *source_digests;
    /* How every original is published (the preset's), and its Software
     * line, which the policy borrows. */
    gal_original_policy original_policy;
    char *original_software;
};

typedef struct {
    int photo;
    int rank;           /* its album's place (0 without albums) */
    gal_sort sort;      /* its album's order */
    const char *path;
    gint64 time;        /* date taken, seconds; GAL_SORT_UNDATED: none */
} sort_key;

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

gint64
gal__sort_time(const gal_facts *facts, const char *path)
{
    (void) path;
    if (facts && facts->has_date) {
        g_autoptr(GDateTime) dt = g_date_time_new_utc(facts->date.tm_year + 1900,
            facts->date.tm_mon + 1, facts->date.tm_mday, facts->date.tm_hour,
            facts->date.tm_min, facts->date.tm_sec);

        if (dt)
            return g_date_time_to_unix(dt);
    }
    /* No date taken (or an unreadable photo, which will fail on its own):
     * last, by path. A file's time is no date: a copy or a checkout
     * changes it. */
    return GAL_SORT_UNDATED;
}

/* Albums in the site's order; within one, its own order; ties by path. */
static int
compare_keys(gconstpointer a, gconstpointer b)
{
    const sort_key *x = a, *y = b;
    int c = 0;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    switch (x->sort) {
    case GAL_SORT_NAME: {
        g_autofree char *bx = g_path_get_basename(x->path);
        g_autofree char *by = g_path_get_basename(y->path);

        c = gal__natural_compare(bx, by);
        break;
    }
    case GAL_SORT_DATE:
        c = x->time == y->time ? 0 : x->time < y->time ? -1 : 1;
        break;
    case GAL_SORT_NEWEST:
        /* Newest first, and still undated last. */
        if ((x->time == GAL_SORT_UNDATED) != (y->time == GAL_SORT_UNDATED))
            c = x->time == GAL_SORT_UNDATED ? 1 : -1;
        else
            c = x->time == y->time ? 0 : x->time > y->time ? -1 : 1;
        break;
    case GAL_SORT_INPUT:
        /* The plan's order, which is by path. */
        return x->photo - y->photo;
    }
    return c ? c : strcmp(x->path, y->path);
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

static void
album_node_clear(gpointer data)
{
    album_node *a = data;

    g_free(a->path);
    g_free(a->dir);
    if (a->children)
        g_array_unref(a->children);
    gal__album_file_free(a->file);
}

/* The album at `path`, added with every album above it when new; `dir`
 * is its folder. Returns its index in `nodes`. */
static int
album_add(GArray *nodes, GHashTable *index, const char *path, const char *dir)
{
    gpointer found;
    album_node node = { 0 };
    int parent = -1;
    int at;

    if (g_hash_table_lookup_extended(index, path, NULL, &found))
        return GPOINTER_TO_INT(found);
    if (*path) {
        const char *slash = strrchr(path, '/');
        g_autofree char *above = slash ? g_strndup(path, (gsize) (slash - path)) : g_strdup("");
        g_autofree char *above_dir = g_path_get_dirname(dir);

        parent = album_add(nodes, index, above, above_dir);
    }
    node.path = g_strdup(path);
    node.dir = g_strdup(dir);
    node.parent = parent;
    node.children = g_array_new(FALSE, FALSE, sizeof(int));
    node.time = GAL_SORT_UNDATED;
    at = (int) nodes->len;
    g_array_append_val(nodes, node);
    g_hash_table_insert(index, g_array_index(nodes, album_node, at).path, GINT_TO_POINTER(at));
    if (parent >= 0)
        g_array_append_val(g_array_index(nodes, album_node, parent).children, at);
    return at;
}


static gint64
day_time(const char *date)
{
    int y, m, d;
    g_autoptr(GDateTime) dt = NULL;

    if (!date || sscanf(date, "%d-%d-%d", &y, &m, &d) != 3)
        return GAL_SORT_UNDATED;
    dt = g_date_time_new_utc(y, m, d, 0, 0, 0);
    return dt ? g_date_time_to_unix(dt) : GAL_SORT_UNDATED;
}

/* Sub-albums in their parent's order: by name (natural), or by date. */
static int
compare_children(gconstpointer a, gconstpointer b, gpointer user)
{
    GArray *nodes = user;
    const album_node *x = &g_array_index(nodes, album_node, *(const int *) a);
    const album_node *y = &g_array_index(nodes, album_node, *(const int *) b);
    const album_node *parent = &g_array_index(nodes, album_node, x->parent);
    const char *nx = strrchr(x->path, '/') ? strrchr(x->path, '/') + 1 : x->path;
    const char *ny = strrchr(y->path, '/') ? strrchr(y->path, '/') + 1 : y->path;

    if ((parent->sort == GAL_SORT_DATE || parent->sort == GAL_SORT_NEWEST) &&
        x->time != y->time) {
        if ((x->time == GAL_SORT_UNDATED) != (y->time == GAL_SORT_UNDATED))
            return x->time == GAL_SORT_UNDATED ? 1 : -1;
        return (x->time < y->time) == (parent->sort == GAL_SORT_DATE) ? -1 : 1;
    }
    return gal__natural_compare(nx, ny);
}

static void
album_rank(GArray *nodes, int at, int *rank)
{
    album_node *a = &g_array_index(nodes, album_node, at);

    a->rank = (*rank)++;
    g_array_sort_with_data(a->children, compare_children, nodes);
    for (guint c = 0; c < a->children->len; c++)
        album_rank(nodes, g_array_index(a->children, int, c), rank);
}

/* Every album of the photos and those above them, their album.yaml read
 * (a wrong one is kept as its error), each photo's album index in
 * `photo_album`. */
static GArray *
albums_plan(const char *const *paths, const char *const *albums, int n, gal_sort sort,
    int *photo_album)
{
    GArray *nodes = g_array_new(FALSE, TRUE, sizeof(album_node));
    g_autoptr(GHashTable) index = g_hash_table_new(g_str_hash, g_str_equal);

    g_array_set_clear_func(nodes, album_node_clear);
    for (int i = 0; i < n; i++) {
        /* Its album's folder is its own; those above it, the folders above. */
        g_autofree char *dir = g_path_get_dirname(paths[i]);

        photo_album[i] = album_add(nodes, index, albums[i], dir);
    }
    for (guint a = 0; a < nodes->len; a++) {
        album_node *node = &g_array_index(nodes, album_node, a);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);

        if (gal__album_load(node->dir, &node->file, errs) && errs->count) {
            int more = errs->count - 1 + errs->dropped;

            node->error = errs->items[0];
            /* A page carries one error; the file may have more. */
            if (more)
                g_strlcat(node->error.msg, more == 1 ? " (and 1 more error in this file)"
                                                     : " (and more errors in this file)",
                    sizeof(node->error.msg));
        }
        node->sort = node->file && node->file->has_sort ? node->file->sort : sort;
        if (node->file && node->file->date)
            node->time = day_time(node->file->date);
    }
    return nodes;
}

/* An album's date, when album.yaml gives none: its earliest photo's, its
 * sub-albums' included. */
static void
albums_time(GArray *nodes, const sort_key *keys, const int *photo_album, int n)
{
    g_autofree gint64 *earliest = g_new(gint64, nodes->len);

    for (guint a = 0; a < nodes->len; a++)
        earliest[a] = GAL_SORT_UNDATED;
    for (int k = 0; k < n; k++)
        for (int a = photo_album[keys[k].photo]; a >= 0;
             a = g_array_index(nodes, album_node, a).parent)
            earliest[a] = MIN(earliest[a], keys[k].time);
    for (guint a = 0; a < nodes->len; a++) {
        album_node *node = &g_array_index(nodes, album_node, a);

        if (!(node->file && node->file->date))
            node->time = earliest[a];
    }
}

static gboolean
sorts_by_date(gal_sort sort)
{
    return sort == GAL_SORT_DATE || sort == GAL_SORT_NEWEST;
}

/* A name beneath the site for each photo's original that is a JPEG: in
 * its album's folder, originals/ and its own file name (what a visitor
 * expects to keep), made unique for two photos of one name in one album
 * (from two input folders) by a number before the extension, in the
 * album's order, so the same photos give the same names. */
static void
plan_originals(gal_gather *g, const char *const *paths, const int *order)
{
    g_autoptr(GHashTable) taken = g_hash_table_new(g_str_hash, g_str_equal);
    const gal_output_opts *o = g->preset->output;

    /* Published under the preset's policy, as its outputs are (their
     * Software line; no credits of the preset's, which are templates of
     * the photo's facts: the original keeps its own, as the policy lets
     * it). */
    g->original_software = g->preset->name
        ? g_strdup_printf("gallop %s (preset %s)", GAL_VERSION, g->preset->name)
        : g_strdup_printf("gallop %s", GAL_VERSION);
    g->original_policy = (gal_original_policy) {
        .metadata = o->metadata,
        .removes = (o->remove_location ? GAL_REMOVE_LOCATION : 0) |
            (o->remove_person ? GAL_REMOVE_PERSON : 0),
        .software = g->original_software,
    };

    g->originals = g_new0(char *, MAX(1, g->n_photos));
    g->sources = g_new0(char *, MAX(1, g->n_photos));
    g->source_digests = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    for (guint a = 0; a < g->albums->len; a++) {
        const album_node *node = &g_array_index(g->albums, album_node, a);

        for (int p = node->first; p < node->first + node->n; p++) {
            const char *path = paths[order[p]];
            g_autofree char *base = g_path_get_basename(path);
            g_autofree char *folder = *node->path
                ? g_build_filename(node->path, "originals", NULL) : g_strdup("originals");
            char *rel = g_build_filename(folder, base, NULL);
            const char *dot = strrchr(base, '.');
            int k = 2;

            g->sources[p] = g_strdup(path);
            if (!gal__original_file_publishable(path)) {
                g_free(rel);
                continue;
            }
            while (g_hash_table_contains(taken, rel)) {
                g_autofree char *stem = g_strndup(base, dot && dot != base ? (gsize) (dot - base)
                                                                       : strlen(base));
                g_autofree char *numbered = g_strdup_printf("%s-%d%s", stem, k++,
                    dot && dot != base ? dot : "");

                g_free(rel);
                rel = g_build_filename(folder, numbered, NULL);
            }
            g->originals[p] = rel;
            g_hash_table_add(taken, rel);
        }
    }
}

gal_gather *
gal__gather_new(const gal_preset *preset, const char *const *paths, const char *const *albums,
    const gint64 *times, int n, const gal_out_dir *out_dir, int *order)
{
    const gal_stage_instance *stage = NULL;
    gal_gather *g;
    g_autofree sort_key *keys = NULL;
    g_autofree int *photo_album = NULL;
    GArray *nodes = NULL;
    gboolean need_times;
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
    g->items = g_new0(VipsImage *, MAX(1, n));
    g->results = g_array_new(FALSE, TRUE, sizeof(gal_photo_result));
    g_mutex_init(&g->lock);
    sc = gal__stage_ctx(stage);
    stage->def->gather_plan(&sc, &g->per_page, &sort);
    if (g->per_page <= 0)
        g->per_page = MAX(1, n);

    photo_album = g_new0(int, MAX(1, n));
    need_times = sorts_by_date(sort);
    if (stage->def->albums && albums) {
        nodes = albums_plan(paths, albums, n, sort, photo_album);
        for (guint a = 0; a < nodes->len; a++)
            need_times |= sorts_by_date(g_array_index(nodes, album_node, a).sort);
    }
    keys = g_new0(sort_key, MAX(1, n));
    for (int i = 0; i < n; i++) {
        keys[i] = (sort_key) { i, 0, sort, paths[i], GAL_SORT_UNDATED };
        if (need_times)
            keys[i].time = times && times[i] != GAL_SORT_TIME_UNKNOWN ? times[i]
                                                                     : date_of(preset, paths[i]);
    }
    if (nodes) {
        int rank = 0;

        albums_time(nodes, keys, photo_album, n);
        album_rank(nodes, 0, &rank);
        for (int i = 0; i < n; i++) {
            const album_node *node = &g_array_index(nodes, album_node, photo_album[i]);

            keys[i].rank = node->rank;
            keys[i].sort = node->sort;
        }
    }
    qsort(keys, n, sizeof(sort_key), compare_keys);
    for (int p = 0; p < n; p++) {
        order[p] = keys[p].photo;
        g->position[keys[p].photo] = p;
    }

    g->page_of = g_new0(int, MAX(1, n));
    if (nodes) {
        /* Albums by rank, each with its photos' positions and pages: at
         * least one (an album of sub-albums only has a page of cards). */
        g_autofree album_node *by_rank = g_new(album_node, nodes->len);
        g_autofree int *rank_of = g_new(int, nodes->len);
        int pages = 0, at = 0;

        for (guint a = 0; a < nodes->len; a++) {
            album_node *node = &g_array_index(nodes, album_node, a);

            rank_of[a] = node->rank;
        }
        for (guint a = 0; a < nodes->len; a++) {
            album_node *node = &g_array_index(nodes, album_node, a);

            node->parent = node->parent >= 0 ? rank_of[node->parent] : -1;
            for (guint c = 0; c < node->children->len; c++)
                g_array_index(node->children, int, c) = rank_of[g_array_index(node->children,
                    int, c)];
            by_rank[node->rank] = *node;
        }
        /* The nodes move to their rank; the array no longer owns them. */
        g_array_set_clear_func(nodes, NULL);
        memcpy(nodes->data, by_rank, sizeof(album_node) * nodes->len);
        g_array_set_clear_func(nodes, album_node_clear);
        for (guint a = 0; a < nodes->len; a++) {
            album_node *node = &g_array_index(nodes, album_node, a);

            node->first = at;
            while (at < n && keys[at].rank == (int) a)
                at++;
            node->n = at - node->first;
            node->first_page = pages;
            node->n_pages = MAX(1, (node->n + g->per_page - 1) / g->per_page);
            pages += node->n_pages;
        }
        g->pages = g_new0(page_state, pages);
        for (guint a = 0; a < nodes->len; a++) {
            const album_node *node = &g_array_index(nodes, album_node, a);

            for (int q = 0; q < node->n_pages; q++) {
                page_state *page = &g->pages[g->n_pages++];

                page->first = node->first + q * g->per_page;
                page->n = MIN(g->per_page, node->n - q * g->per_page);
                page->album = (int) a;
                page->number = q + 1;
                for (int p = page->first; p < page->first + page->n; p++)
                    g->page_of[p] = g->n_pages - 1;
            }
        }
        g->albums = nodes;
        g->pending = n;
        if (stage->def->originals && stage->def->originals(&sc))
            plan_originals(g, paths, order);
    }
    else {
        g->pages = g_new0(page_state, MAX(1, n));
        for (int p = 0; p < n; p++) {
            page_state *page = g->n_pages ? &g->pages[g->n_pages - 1] : NULL;

            if (!page || page->n == g->per_page) {
                page = &g->pages[g->n_pages++];
                page->first = p;
                page->number = g->n_pages;
            }
            page->n++;
            g->page_of[p] = g->n_pages - 1;
        }
    }
    for (int p = 0; p < g->n_pages; p++)
        g->pages[p].pending = g->pages[p].n;
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

/* The albums as the stage sees them (gal_album), each over its nodes'
 * strings and the gather's items: valid while the gather is. */
static gal_album *
albums_view(gal_gather *g, int **children)
{
    GArray *nodes = g->albums;
    gal_album *view = g_new0(gal_album, nodes->len);
    int n_children = 0;

    for (guint a = 0; a < nodes->len; a++)
        n_children += (int) g_array_index(nodes, album_node, a).children->len;
    *children = g_new0(int, MAX(1, n_children));
    n_children = 0;
    for (guint a = 0; a < nodes->len; a++) {
        const album_node *node = &g_array_index(nodes, album_node, a);
        const gal_album_file *file = node->file;
        gal_album *v = &view[a];

        v->path = node->path;
        if (file) {
            v->title = file->title;
            v->description = file->description_html;
            v->summary = file->description_text;
            v->cover = file->cover;
            v->cover_loc = file->cover_loc;
            v->date = file->date;
        }
        v->parent = node->parent;
        if (node->children->len > 0) /* an album without sub-albums has no array yet */
            memcpy(*children + n_children, node->children->data,
                sizeof(int) * node->children->len);
        v->children = *children + n_children;
        v->n_children = (int) node->children->len;
        n_children += v->n_children;
        v->items = g->items + node->first;
        v->n_items = node->n;
        if (g->originals) {
            v->originals = (const char *const *) g->originals + node->first;
            v->sources = (const char *const *) g->sources + node->first;
        }
        v->pages = node->n_pages;
        v->error = node->error.code ? &node->error : NULL;
    }
    return view;
}

/* Write a text file of the site (a page, a feed) as `name`, unless
 * the file there holds these bytes already: a page the change does not
 * touch keeps its time and inode (a sync by time, a CDN, a browser's
 * cache see nothing new). `result` says which: DONE, or UP_TO_DATE, with
 * the bytes' size and SHA-256 either way. */
static int
write_text_if_changed(gal_gather *g, const char *name, const GString *text,
    gal_photo_result *result, gal_error *err)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    char there[65];
    gint64 size = -1;

    g_checksum_update(sum, (const guchar *) text->str, (gssize) text->len);
    gal__sha256_from_hex(&result->sha256, g_checksum_get_string(sum));
    result->bytes = (long long) text->len;
    if (gal__sha256_beneath(g->out_dir->fd, name, there, &size) == 0 &&
        size == (gint64) text->len && strcmp(there, g_checksum_get_string(sum)) == 0) {
        result->status = GAL_PHOTO_UP_TO_DATE;
        result->why = GAL_WHY_UP_TO_DATE;
        return 0;
    }
    if (gal__write_atomic_beneath(g->out_dir->fd, g->out_dir->path, name, text->str, text->len,
            FALSE, err))
        return -1;
    result->status = GAL_PHOTO_DONE;
    return 0;
}

/* A page's or site file's result (taken), as the workers finish them. */
static void
add_result(gal_gather *g, gal_photo_result *result)
{
    g_mutex_lock(&g->lock);
    g_array_append_val(g->results, *result);
    g_mutex_unlock(&g->lock);
}

/* Compose and write page `p` (its photos all finished). Not under the lock:
 * only the worker that completed the page gets here. `albums`: the albums'
 * view, with albums. */
static void
write_page(gal_gather *g, int p, const gal_album *albums)
{
    page_state *page = &g->pages[p];
    const gal_stage_instance *stage = g->stage;
    gal_stage_ctx sc = gal__stage_ctx(stage);
    gal_page info = { page->number, albums ? albums[page->album].pages : g->n_pages, g->n_photos,
        g->preset->name, albums, albums ? (int) g->albums->len : 0, page->album, NULL };
    g_autofree VipsImage **present = g_new0(VipsImage *, MAX(1, page->n));
    g_autofree char *name = stage->def->page_name(&sc, &info);
    gal_photo_result result = { 0 };
    gal_write_info written = { .preset_name = g->preset->name };
    g_autoptr(VipsImage) sheet = NULL;
    gal_output_opts output = *g->preset->output;
    int format = gal__format_of_file(name);
    int n = 0, failed;

    /* A photo that failed leaves no hole: the rest close up. */
    for (int i = 0; i < page->n; i++)
        if (g->items[page->first + i])
            present[n++] = g->items[page->first + i];
    /* Every photo of the page failed: no sheet of nothing (an album's
     * page of sub-albums has cards to show). */
    if (n == 0 && !(albums && page->number == 1 && albums[page->album].n_children > 0))
        return;
    result.output = g_build_filename(g->out_dir->path, name, NULL);
    result.input = g_strdup(stage->def->name);
    if (albums && albums[page->album].error) {
        /* A wrong album.yaml: its pages are not made, and say why, as a
         * preset error reads (file:line:col: key: message), for editors. */
        *gal__photo_error(&result) = *albums[page->album].error;
        result.status = GAL_PHOTO_FAILED;
        goto done;
    }
    /* The page's extension chose its format (the stage checked it). */
    output.format = format >= 0 ? (gal_format) format : GAL_FORMAT_JPEG;
    if (stage->def->build_text) {
        GString *text = NULL;

        failed = stage->def->build_text(&sc, present, n, &info, &text, gal__photo_error(&result)) ||
            write_text_if_changed(g, name, text, &result, gal__photo_error(&result));
        if (text)
            g_string_free(text, TRUE);
        if (failed) {
            result.status = GAL_PHOTO_FAILED;
            gal_error_set_subject(gal__photo_error(&result), result.output);
        }
        else
            gal__photo_error_clear(&result);
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
    /* Without albums no other page needs this one's items. */
    for (int i = 0; i < page->n && !albums; i++)
        VIPS_UNREF(g->items[page->first + i]);
    add_result(g, &result);
}

/* The whole site as one page, for what the stage makes over it: the
 * top album's first, with every album and the output folder. */
static gal_page
site_page(const gal_gather *g, const gal_album *albums)
{
    return (gal_page) { 1, albums[0].pages, g->n_photos, g->preset->name, albums,
        (int) g->albums->len, 0, g->out_dir->path };
}

/* What the stage makes over the site could not be described (its error
 * in `failed`): one failed result in the stage's name, taken. */
static void
site_failed(gal_gather *g, gal_photo_result *failed)
{
    const gal_stage_def *def = g->stage->def;

    failed->output = g_build_filename(g->out_dir->path, def->name, NULL);
    failed->input = g_strdup(def->name);
    failed->status = GAL_PHOTO_FAILED;
    add_result(g, failed);
}

/* The files the stage makes over the whole site (a sitemap, a feed): each
 * written and recorded as a page is. */
static void
write_site_files(gal_gather *g, const gal_album *albums)
{
    const gal_stage_instance *stage = g->stage;
    gal_stage_ctx sc = gal__stage_ctx(stage);
    gal_page site = site_page(g, albums);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) texts = g_ptr_array_new();
    gal_photo_result failed = { 0 };

    if (!stage->def->site_files)
        return;
    if (stage->def->site_files(&sc, &site, names, texts, gal__photo_error(&failed))) {
        site_failed(g, &failed);
    }
    else
        gal__photo_error_clear(&failed);
    for (guint f = 0; f < names->len; f++) {
        GString *text = texts->pdata[f];
        gal_photo_result result = { 0 };

        result.output = g_build_filename(g->out_dir->path, names->pdata[f], NULL);
        result.input = g_strdup(stage->def->name);
        if (write_text_if_changed(g, names->pdata[f], text, &result,
                gal__photo_error(&result))) {
            result.status = GAL_PHOTO_FAILED;
            gal_error_set_subject(gal__photo_error(&result), result.output);
        }
        else
            gal__photo_error_clear(&result);
        g_string_free(text, TRUE);
        add_result(g, &result);
    }
}

/* What `zip` holds, with the maker that lays it out: its about line's
 * value. NULL: not known (a file's digest is not), made every time. */
static char *
zip_contents(const gal_site_zip *zip)
{
    g_autofree char *text = NULL;

    if (!*zip->contents)
        return NULL;
    text = g_strdup_printf("%s\t%s", zip->contents, gal__zip_maker());
    return g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
}

/* Is the zip there as it was made, holding what it held then? Its size
 * and time: the zip is not read. */
static gboolean
zip_kept(gal_gather *g, const gal_site_zip *zip, const char *contents,
    gal_photo_result *result)
{
    const gal_kept_zip *kept = g->kept_zips && contents
        ? g_hash_table_lookup(g->kept_zips, zip->name) : NULL;
    struct stat st;

    if (!kept || strcmp(kept->contents, contents) != 0 ||
        gal__stat_beneath(g->out_dir->fd, zip->name, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size != kept->size || gal__mtime_ns(&st) != kept->mtime_ns)
        return FALSE;
    result->status = GAL_PHOTO_UP_TO_DATE;
    result->why = GAL_WHY_UP_TO_DATE;
    result->bytes = kept->size;
    result->sha256 = kept->sha256;
    return TRUE;
}

/* Make the zip, streamed into a temporary file beside it (an album of
 * any size takes one photo's memory), which replaces the zip there only
 * when its bytes differ: the same bytes (a zip an older gallop made)
 * keep their time and inode. */
static int
make_zip(gal_gather *g, const gal_site_zip *zip, gal_photo_result *result, gal_error *err)
{
    g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
    gal_atomic a;
    char made[65], there[65];
    gint64 size = 0, there_size = -1;

    for (guint f = 0; f < zip->paths->len; f++)
        g_ptr_array_add(paths, g_build_filename(g->out_dir->path, zip->paths->pdata[f], NULL));
    if (gal__atomic_begin(g->out_dir->fd, g->out_dir->path, zip->name, NULL, &a, err))
        return -1;
    if (gal__zip_stored(g->out_dir->path, (const char *const *) paths->pdata,
            (const char *const *) zip->entries->pdata, (int) paths->len, zip->mtime, a.fd, made,
            &size, err)) {
        gal__atomic_abort(&a);
        return -1;
    }
    gal__sha256_from_hex(&result->sha256, made);
    result->bytes = size;
    if (gal__sha256_beneath(g->out_dir->fd, zip->name, there, &there_size) == 0 &&
        there_size == size && strcmp(there, made) == 0) {
        gal__atomic_abort(&a);
        result->status = GAL_PHOTO_UP_TO_DATE;
        result->why = GAL_WHY_UP_TO_DATE;
        return 0;
    }
    if (gal__atomic_commit(&a, FALSE, err))
        return -1;
    result->status = GAL_PHOTO_DONE;
    return 0;
}

/* What an original is made from: its input's content (the digest its
 * photo's plan holds: a tree moved or checked out again keeps it) and the
 * policy. "" when the digest is not known (its plan has none): made
 * every time. */
static void
original_contents(const gal_gather *g, gal_site_zip *zip)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    g_autofree char *head = NULL;
    const char *digest = g_hash_table_lookup(g->source_digests, zip->name);
    const gal_original_policy *policy = &g->original_policy;

    *zip->contents = '\0';
    if (!digest || !*digest)
        return;
    head = g_strdup_printf("original 2\n%s\n%s\n%u\n", digest, policy->software,
        policy->removes);
    g_checksum_update(sum, (const guchar *) head, -1);
    for (int k = 0; policy->metadata && policy->metadata[k]; k++) {
        g_checksum_update(sum, (const guchar *) policy->metadata[k], -1);
        g_checksum_update(sum, (const guchar *) "\n", 1);
    }
    g_strlcpy(zip->contents, g_checksum_get_string(sum), sizeof(zip->contents));
}

/* Publish the original: its input read whole, its metadata replaced
 * (original.c) into a temporary file that replaces the one there only
 * when the bytes differ, as a zip's does. */
static int
make_original(gal_gather *g, const gal_site_zip *zip, gal_photo_result *result,
    gal_error *err)
{
    g_autofree char *jpeg = NULL;
    g_autofree char *made = NULL;
    g_autoptr(GByteArray) out = g_byte_array_new();
    g_autoptr(GError) error = NULL;
    gal_atomic a;
    char there[65];
    gint64 there_size = -1;
    gsize len = 0;

    if (!g_file_get_contents(zip->source, &jpeg, &len, &error))
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "%s", error->message);
    if (gal__original_publish((const guchar *) jpeg, len, &g->original_policy, out, err)) {
        gal_error_set_subject(err, zip->source);
        return -1;
    }
    made = g_compute_checksum_for_data(G_CHECKSUM_SHA256, out->data, out->len);
    gal__sha256_from_hex(&result->sha256, made);
    result->bytes = out->len;
    if (gal__sha256_beneath(g->out_dir->fd, zip->name, there, &there_size) == 0 &&
        there_size == (gint64) out->len && strcmp(there, made) == 0) {
        result->status = GAL_PHOTO_UP_TO_DATE;
        result->why = GAL_WHY_UP_TO_DATE;
        return 0;
    }
    if (gal__atomic_begin(g->out_dir->fd, g->out_dir->path, zip->name, NULL, &a, err))
        return -1;
    if (gal__write_all(a.fd, out->data, out->len)) {
        gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s: %s", a.display, g_strerror(errno));
        gal__atomic_abort(&a);
        return -1;
    }
    if (gal__atomic_commit(&a, FALSE, err))
        return -1;
    result->status = GAL_PHOTO_DONE;
    return 0;
}

/* An album's zip: left as it is when it holds the same files, else made
 * from them (read from the output folder) and written, each a product
 * recorded with what it holds; an original the same way, from its input. */
static void
write_zip(gal_gather *g, gal_site_zip *zip)
{
    g_autofree char *contents = NULL;
    gal_photo_result result = { 0 };

    /* Every photo of the album failed: no zip of nothing; the photo of an
     * original failed: not on the page, not published. */
    if (!zip->source && zip->paths->len == 0)
        return;
    if (zip->source && !g_hash_table_contains(g->source_digests, zip->name))
        return;
    if (zip->source)
        original_contents(g, zip);
    contents = zip_contents(zip);
    result.output = g_build_filename(g->out_dir->path, zip->name, NULL);
    result.input = g_strdup(g->stage->def->name);
    if (contents) {
        g_autofree char *line = g_strconcat(GAL_ABOUT_ZIP_CONTENTS "=", contents, NULL);
        const char *lines[] = { line };

        result.about = gal__about_new(lines, 1);
    }
    if (!zip_kept(g, zip, contents, &result)) {
        if (zip->source ? make_original(g, zip, &result, gal__photo_error(&result))
                        : make_zip(g, zip, &result, gal__photo_error(&result))) {
            result.status = GAL_PHOTO_FAILED;
            gal_error_set_subject(gal__photo_error(&result), result.output);
        }
        else
            gal__photo_error_clear(&result);
    }
    add_result(g, &result);
}

/* The zips the stage offers (a gallery's album.zip), each made when it
 * holds other files than it did. */
static void
write_site_zips(gal_gather *g, const gal_album *albums)
{
    const gal_stage_instance *stage = g->stage;
    gal_stage_ctx sc = gal__stage_ctx(stage);
    gal_page site = site_page(g, albums);
    g_autoptr(GArray) zips = g_array_new(FALSE, TRUE, sizeof(gal_site_zip));
    gal_photo_result failed = { 0 };

    if (!stage->def->site_zips)
        return;
    g_array_set_clear_func(zips, (GDestroyNotify) gal__site_zip_clear);
    if (stage->def->site_zips(&sc, &site, zips, gal__photo_error(&failed))) {
        site_failed(g, &failed);
        return;
    }
    gal__photo_error_clear(&failed);
    for (guint z = 0; z < zips->len; z++)
        write_zip(g, &g_array_index(zips, gal_site_zip, z));
}

/* With albums, every page once every photo is in: an album's cards show
 * its sub-albums' covers and dates. */
static void
write_every_page(gal_gather *g)
{
    g_autofree int *children = NULL;
    g_autofree gal_album *albums = albums_view(g, &children);

    for (int p = 0; p < g->n_pages; p++)
        write_page(g, p, albums);
    write_site_files(g, albums);
    write_site_zips(g, albums);
}

void
gal__gather_keep_zips(gal_gather *g, GHashTable *kept)
{
    if (g->kept_zips)
        g_hash_table_unref(g->kept_zips);
    g->kept_zips = kept;
}

/* The names of the files the stage makes over the site besides its pages
 * (sitemap, feed, zips), from the plan alone: no item is in. */
static void
site_file_names(gal_gather *g, const gal_album *albums, GPtrArray *names)
{
    const gal_stage_instance *stage = g->stage;
    gal_stage_ctx sc = gal__stage_ctx(stage);
    gal_page site = site_page(g, albums);
    g_autoptr(GPtrArray) texts = g_ptr_array_new();
    g_autoptr(GArray) zips = g_array_new(FALSE, TRUE, sizeof(gal_site_zip));
    gal_error err = { 0 };

    g_array_set_clear_func(zips, (GDestroyNotify) gal__site_zip_clear);
    if (stage->def->site_files && stage->def->site_files(&sc, &site, names, texts, &err) == 0)
        for (guint f = 0; f < texts->len; f++)
            g_string_free(texts->pdata[f], TRUE);
    if (stage->def->site_zips && stage->def->site_zips(&sc, &site, zips, &err) == 0)
        for (guint z = 0; z < zips->len; z++)
            g_ptr_array_add(names, g_strdup(g_array_index(zips, gal_site_zip, z).name));
}

GPtrArray *
gal__gather_page_names(gal_gather *g)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    g_autofree int *children = NULL;
    g_autofree gal_album *albums = g->albums ? albums_view(g, &children) : NULL;
    gal_stage_ctx sc = gal__stage_ctx(g->stage);

    for (int p = 0; p < g->n_pages; p++) {
        const page_state *page = &g->pages[p];
        gal_page info = { page->number, albums ? albums[page->album].pages : g->n_pages,
            g->n_photos, g->preset->name, albums, albums ? (int) g->albums->len : 0,
            page->album, NULL };

        g_ptr_array_add(names, g->stage->def->page_name(&sc, &info));
    }
    if (albums)
        site_file_names(g, albums, names);
    return names;
}

void
gal__gather_done(gal_gather *g, int photo, VipsImage *item)
{
    int position, p;
    gboolean complete, all;

    if (!g)
        return;
    position = g->position[photo];
    p = g->page_of[position];
    if (item && g->originals && g->originals[position])
        vips_image_set_string(item, GAL_META_ORIGINAL, g->originals[position]);
    g_mutex_lock(&g->lock);
    if (item && g->originals && g->originals[position]) {
        const char *digest = "";

        if (vips_image_get_typeof(item, GAL_META_SOURCE_DIGEST))
            vips_image_get_string(item, GAL_META_SOURCE_DIGEST, &digest);
        g_hash_table_replace(g->source_digests, g->originals[position], g_strdup(digest));
    }
    g->items[position] = item; /* ownership taken */
    complete = --g->pages[p].pending == 0;
    all = g->albums && --g->pending == 0;
    g_mutex_unlock(&g->lock);
    if (g->albums) {
        if (all)
            write_every_page(g);
    }
    else if (complete)
        write_page(g, p, NULL);
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
    for (int i = 0; i < g->n_photos; i++)
        VIPS_UNREF(g->items[i]);
    g_free(g->items);
    g_free(g->pages);
    g_free(g->page_of);
    if (g->albums)
        g_array_unref(g->albums);
    if (g->kept_zips)
        g_hash_table_unref(g->kept_zips);
    for (int p = 0; g->originals && p < g->n_photos; p++) {
        g_free(g->originals[p]);
        g_free(g->sources[p]);
    }
    if (g->source_digests)
        g_hash_table_unref(g->source_digests);
    g_free(g->original_software);
    g_free(g->originals);
    g_free(g->sources);
    g_free(g->position);
    g_mutex_clear(&g->lock);
    results = g->results;
    /* Pages finish in any order; report them in page order. */
    g_array_sort(results, compare_results);
    g_free(g);
    return results;
}
