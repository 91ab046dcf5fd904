/* captions.c: where a photo's caption comes from (the `captions` section).
 *
 * The sources are tried in the order `captions.sources` gives, and the
 * first one with a non-empty caption wins. Each source is a table of
 * functions in a file of its own (caption_source.h), listed in
 * caption_sources.def: a sidecar text file beside the photo, a table (TSV or
 * CSV) and an Instagram data export (posts_*.json) named by the preset, and
 * the photo's own metadata (EXIF, XMP, IPTC). This file does what is the same
 * for every source: the names captions.sources takes and their errors, which
 * sources the section's keys feed, the first caption that wins and where it
 * came from, and what a photo's caption depends on: the files of the photo
 * alone (by content) and the rows of the files every photo shares (by
 * digest).
 *
 * A source's shared files are read once, when the preset loads, and a
 * malformed one is a preset error naming its file, line and column; after
 * that everything here is read-only and shared by the workers. */
#include <string.h>

#include "internal.h"
#include "captions.h"
#include "caption_source.h"
#include "error.h"
#include "schema.h"
#include "xmp.h"

#define GAL_CAPTION_SOURCE(name, file) extern const gal_caption_source gal_caption_##name;
#include "caption_sources.def"
#undef GAL_CAPTION_SOURCE

const gal_caption_source *const gal__caption_sources[] = {
#define GAL_CAPTION_SOURCE(name, file) &gal_caption_##name,
#include "caption_sources.def"
#undef GAL_CAPTION_SOURCE
    NULL,
};

#define N_SOURCES (G_N_ELEMENTS(gal__caption_sources) - 1)

typedef struct {
    char **sources;
    char *table;
    char **instagram;
} captions_opts;

static const gal_param captions_params[] = {
    GAL_PARAM_STRLIST(captions_opts, sources,
        "where captions come from, first match wins: sidecar (IMG_1.jpg.txt or IMG_1.txt "
        "beside the photo), table, instagram, metadata (exif, then xmp, then iptc; each "
        "can be named alone)",
        "sidecar,table,instagram,metadata"),
    GAL_PARAM_PATH(captions_opts, table,
        "a TSV or CSV file of file names and captions (header row with file and caption "
        "columns, or those two columns first)",
        0),
    GAL_PARAM_PATHLIST(captions_opts, instagram,
        "Instagram data export: posts_*.json files, or folders searched for them; photos "
        "match media[].uri by file name",
        NULL),
    GAL_PARAM_END,
};

const gal_section gal__captions_section = {
    "captions", "where {caption} comes from, for every template", captions_params,
    sizeof(captions_opts),
};

struct gal_captions {
    captions_opts *opts;
    GArray *order;           /* of int, indices into gal__caption_sources; groups expanded */
    void *state[N_SOURCES];  /* by index: what the source prepared; NULL: nothing */
};

/* ---- the sources ---------------------------------------------------------------- */

/* The index of a source by name, in any letter case; -1 when none has it. */
static int
source_index(const char *name)
{
    for (int k = 0; gal__caption_sources[k]; k++)
        if (g_ascii_strcasecmp(name, gal__caption_sources[k]->name) == 0)
            return k;
    return -1;
}

static gboolean
in_order(const gal_captions *c, int k)
{
    for (guint i = 0; i < c->order->len; i++)
        if (g_array_index(c->order, int, i) == k)
            return TRUE;
    return FALSE;
}

/* Does the source have what it needs to be asked? One with a key has
 * nothing until its key is set. */
static gboolean
ready(const gal_captions *c, int k)
{
    return !gal__caption_sources[k]->key || c->state[k];
}

/* "exif, xmp and iptc" */
static char *
in_words(const char *const *names)
{
    GString *words = g_string_new(NULL);

    for (int i = 0; names[i]; i++)
        g_string_append_printf(words, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : " and ",
            names[i]);
    return g_string_free(words, FALSE);
}

/* ---- loading the section ------------------------------------------------------- */

static int
param_index(const char *field)
{
    for (int i = 0; captions_params[i].field; i++)
        if (strcmp(captions_params[i].field, field) == 0)
            return i;
    g_assert_not_reached();
}

/* The files the key `field` (a path or a list of paths) names, NULL-ended;
 * NULL when it names none. `one` holds the list of a single path. */
static const char *const *
key_files(const gal_captions *c, const char *field, const char *one[2])
{
    const gal_param *p = &captions_params[param_index(field)];
    const char *const *files;

    if (p->type == GAL_T_PATH) {
        one[0] = G_STRUCT_MEMBER(char *, c->opts, p->offset);
        one[1] = NULL;
        files = one;
    }
    else {
        g_assert(p->type == GAL_T_PATHLIST);
        files = (const char *const *) G_STRUCT_MEMBER(char **, c->opts, p->offset);
    }
    return files && files[0] ? files : NULL;
}

/* The names in captions.sources, each a source once, into c->order. */
static int
check_sources(gal_captions *c, const gal_loc *loc, gal_errors *errs)
{
    const char *names[N_SOURCES + 1];
    gboolean seen[N_SOURCES] = { FALSE };
    int failed = 0;

    for (size_t k = 0; k <= N_SOURCES; k++)
        names[k] = gal__caption_sources[k] ? gal__caption_sources[k]->name : NULL;
    for (int i = 0; c->opts->sources && c->opts->sources[i]; i++) {
        const char *name = c->opts->sources[i];
        int k = source_index(name);
        const char *const *members;

        if (k < 0) {
            const char *guess = gal__did_you_mean(name, names);
            g_autofree char *list = g_strjoinv(", ", (char **) names);

            failed = gal__errors_push(errs, GAL_ERR_PRESET, loc, "captions.sources",
                "unknown source \"%s\"%s%s%s; sources are %s", name,
                guess ? " (did you mean \"" : "", guess ? guess : "", guess ? "\"?)" : "", list);
            continue;
        }
        if (seen[k]) {
            failed = gal__errors_push(errs, GAL_ERR_PRESET, loc, "captions.sources",
                "\"%s\" is listed twice", name);
            continue;
        }
        seen[k] = TRUE;
        if (!(members = gal__caption_sources[k]->members))
            g_array_append_val(c->order, k);
        for (int m = 0; members && members[m]; m++) {
            int member = source_index(members[m]);

            g_array_append_val(c->order, member);
        }
    }
    /* A group named with one of its members would try that one twice. */
    for (size_t k = 0; k < N_SOURCES; k++) {
        const char *const *members = gal__caption_sources[k]->members;
        gboolean both = FALSE;

        for (int m = 0; seen[k] && members && members[m]; m++)
            both |= seen[source_index(members[m])];
        if (both) {
            g_autofree char *words = in_words(members);

            failed = gal__errors_push(errs, GAL_ERR_PRESET, loc, "captions.sources",
                "%s already stands for %s: name it, or them, not both", names[k], words);
        }
    }
    return failed;
}

/* Each source whose key is set reads its files; a key set for a source
 * that is not listed is an error (and its files are read all the same,
 * for their errors). */
static int
prepare_sources(gal_captions *c, const gal_loc *locs, gal_errors *errs)
{
    int failed = 0;

    for (int k = 0; gal__caption_sources[k]; k++) {
        const gal_caption_source *s = gal__caption_sources[k];
        const char *one[2];
        g_autofree char *key = NULL;

        if (!s->key || !key_files(c, s->key, one) || in_order(c, k))
            continue;
        key = g_strdelimit(g_strconcat("captions.", s->key, NULL), "_", '-');
        failed = gal__errors_push(errs, GAL_ERR_PRESET, &locs[param_index(s->key)], key,
            "%s is given but \"%s\" is not in captions.sources", s->given, s->name);
    }
    for (int k = 0; gal__caption_sources[k]; k++) {
        const gal_caption_source *s = gal__caption_sources[k];
        const char *one[2];
        const char *const *files = s->key ? key_files(c, s->key, one) : NULL;

        if (files && s->prepare)
            failed |= s->prepare(files, &locs[param_index(s->key)], &c->state[k], errs);
    }
    return failed;
}

int
gal__captions_load(const gal_node *map, gboolean follow_links, gal_captions **out,
    gal_errors *errs)
{
    gal_captions *c = g_new0(gal_captions, 1);
    g_autofree gal_loc *locs = g_new0(gal_loc, G_N_ELEMENTS(captions_params));
    int failed;

    *out = c;
    c->order = g_array_new(FALSE, FALSE, sizeof(int));
    if (gal__schema_fill(&gal__captions_section, map, (void **) &c->opts, locs, errs) ||
        gal__schema_check_files(&gal__captions_section, c->opts, locs, follow_links, errs))
        return -1;
    failed = check_sources(c, &locs[param_index("sources")], errs);
    failed |= prepare_sources(c, locs, errs);
    return failed ? -1 : 0;
}

int
gal__captions_from_string(gal_captions *c, const char *source, const char *name,
    const char *bytes, gsize len, gal_errors *errs)
{
    int k = source_index(source);

    g_assert(k >= 0 && gal__caption_sources[k]->from_string);
    return gal__caption_sources[k]->from_string(&c->state[k], name, bytes, len, errs);
}

void
gal__captions_free(gal_captions *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < N_SOURCES; k++)
        if (c->state[k])
            gal__caption_sources[k]->release(c->state[k]);
    gal__schema_free(&gal__captions_section, c->opts);
    g_array_unref(c->order);
    g_free(c);
}

void
gal__captions_describe(const gal_captions *c, GString *out)
{
    gal__schema_describe_values(&gal__captions_section, c->opts, out);
    for (size_t k = 0; k < N_SOURCES; k++)
        if (c->state[k] && gal__caption_sources[k]->describe)
            gal__caption_sources[k]->describe(c->state[k], out);
}

const void *
gal__captions_options(const gal_captions *c)
{
    return c->opts;
}

/* ---- per photo ----------------------------------------------------------------- */

int
gal__caption_resolve(const gal_captions *c, const gal_photo_ref *photo, VipsImage *header,
    gal_facts *facts, GStringChunk *strings, gal_error *err)
{
    gal_caption_ask ask = { photo, header, facts->caption, strings };

    facts->caption = NULL;
    facts->caption_source = NULL;
    for (guint i = 0; c && i < c->order->len; i++) {
        int k = g_array_index(c->order, int, i);
        const gal_caption_source *s = gal__caption_sources[k];
        const char *caption = NULL, *file = NULL;

        if (!s->caption || !ready(c, k))
            continue;
        if (s->caption(c->state[k], &ask, &caption, &file, err))
            return -1;
        if (caption) {
            g_autofree char *label = file ? g_strconcat(s->name, ":", file, NULL) : NULL;

            facts->caption = caption;
            facts->caption_source = label ? g_string_chunk_insert(strings, label) : s->name;
            return 0;
        }
    }
    return 0;
}

int
gal__caption_overrides(const gal_captions *c, const gal_photo_ref *photo, VipsImage *header,
    gal_facts *facts, GStringChunk *strings, gal_error *err)
{
    gal_overrides found = GAL_OVERRIDES_NONE;
    const char *sidecar = NULL;
    const void *xmp;
    size_t len;

    /* The photo's XMP first; the table's row on top of it; the photo's own
     * sidecar last, over both. */
    if (header && vips_image_get_typeof(header, VIPS_META_XMP_NAME) &&
        !vips_image_get_blob(header, VIPS_META_XMP_NAME, &xmp, &len)) {
        gal_xmp_overrides x;

        gal__xmp_overrides(xmp, len, &x);
        found.alt = x.alt ? gal__caption_keep(strings, x.alt) : NULL;
        found.description = x.description ? gal__caption_keep(strings, x.description) : NULL;
        found.has_focus = x.has_focus;
        found.focus_x = x.focus_x;
        found.focus_y = x.focus_y;
        gal__xmp_overrides_clear(&x);
    }
    for (guint i = 0; c && i < c->order->len; i++) {
        int k = g_array_index(c->order, int, i);

        if (gal__caption_sources[k]->overrides && ready(c, k))
            gal__caption_sources[k]->overrides(c->state[k], photo->path, &found);
    }
    if (gal__overrides_sidecar(photo, strings, &found, &sidecar, err))
        return -1;
    facts->alt = found.alt;
    facts->description = found.description;
    facts->has_focus = found.has_focus;
    facts->focus_x = found.focus_x;
    facts->focus_y = found.focus_y;
    facts->no_watermark = found.watermark == 0;
    if (found.caption) {
        g_autofree char *label = g_strconcat("sidecar:", sidecar, NULL);

        facts->caption = *found.caption ? found.caption : NULL;
        facts->caption_source = g_string_chunk_insert(strings, label);
    }
    return 0;
}

gboolean
gal__captions_give_overrides(const gal_captions *c)
{
    for (guint i = 0; c && i < c->order->len; i++) {
        int k = g_array_index(c->order, int, i);

        if (gal__caption_sources[k]->has_overrides && ready(c, k) &&
            gal__caption_sources[k]->has_overrides(c->state[k]))
            return TRUE;
    }
    return FALSE;
}

/* Add `path` to `paths` unless it is there. */
static void
add_once(GPtrArray *paths, const char *path)
{
    for (guint i = 0; i < paths->len; i++)
        if (strcmp(paths->pdata[i], path) == 0)
            return;
    g_ptr_array_add(paths, g_strdup(path));
}

/* The shared files the source at `k` read (borrowed gal_caption_file *). */
static GPtrArray *
shared_files(const gal_captions *c, int k)
{
    GPtrArray *files = g_ptr_array_new();

    if (c->state[k] && gal__caption_sources[k]->shared_files)
        gal__caption_sources[k]->shared_files(c->state[k], files);
    return files;
}

/* The files of the photo alone, then those every photo shares, of the
 * source at `k`, each added once. */
static void
add_files(const gal_captions *c, int k, const char *photo, gboolean shared, GPtrArray *paths)
{
    const gal_caption_source *s = gal__caption_sources[k];
    g_autoptr(GPtrArray) own = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) files = shared ? shared_files(c, k) : NULL;

    if (s->own_files && ready(c, k))
        s->own_files(c->state[k], photo, own);
    for (guint i = 0; i < own->len; i++)
        add_once(paths, own->pdata[i]);
    for (guint f = 0; files && f < files->len; f++)
        add_once(paths, ((const gal_caption_file *) files->pdata[f])->path);
}

void
gal__caption_own_files(const gal_captions *c, const char *photo, GPtrArray *paths)
{
    for (guint i = 0; c && i < c->order->len; i++)
        add_files(c, g_array_index(c->order, int, i), photo, FALSE, paths);
}

void
gal__caption_files(const gal_captions *c, const char *photo, GPtrArray *paths)
{
    for (guint i = 0; c && i < c->order->len; i++)
        add_files(c, g_array_index(c->order, int, i), photo, TRUE, paths);
}

/* What a shared file gives one photo, as a short digest: of its caption
 * there, or of none. 64 bits tell an edit from no edit; every output's
 * record repeats it, so it is kept short. */
static void
set_row(const gal_caption_source *s, const void *state, const gal_caption_file *file,
    const char *photo, gal_caption_row *row)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    const char *caption = s->row ? s->row(state, file, photo) : NULL;

    if (caption) {
        g_checksum_update(sum, (const guchar *) "row\n", 4);
        g_checksum_update(sum, (const guchar *) caption, -1);
    }
    else
        g_checksum_update(sum, (const guchar *) "no row\n", 7);
    row->path = file->path;
    row->size = file->size;
    row->mtime_ns = file->mtime_ns;
    g_snprintf(row->digest, GAL_CAPTION_ROW_LEN, "row:%.16s", g_checksum_get_string(sum));
}

gboolean
gal__caption_row(const gal_captions *c, const char *file, const char *photo,
    gal_caption_row *row)
{
    for (int k = 0; c && gal__caption_sources[k]; k++) {
        g_autoptr(GPtrArray) files = shared_files(c, k);

        for (guint f = 0; f < files->len; f++)
            if (strcmp(((const gal_caption_file *) files->pdata[f])->path, file) == 0) {
                set_row(gal__caption_sources[k], c->state[k], files->pdata[f], photo, row);
                return TRUE;
            }
    }
    return FALSE;
}

void
gal__caption_rows(const gal_captions *c, const char *photo, GArray *rows)
{
    for (guint i = 0; c && i < c->order->len; i++) {
        int k = g_array_index(c->order, int, i);
        g_autoptr(GPtrArray) files = shared_files(c, k);

        for (guint f = 0; f < files->len; f++) {
            gal_caption_row row;

            set_row(gal__caption_sources[k], c->state[k], files->pdata[f], photo, &row);
            g_array_append_val(rows, row);
        }
    }
}
