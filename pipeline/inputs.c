/* inputs.c: the `input` section and the scan that turns files and folders
 * into the sorted list of photos a run processes. Special files (FIFOs,
 * devices, sockets) are listed so the user hears about them, but never
 * opened; the output folder is skipped when it lies inside an input. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static const char *const fail_on_names[] = { "none", "truncated", "error", "warning", NULL };

static const gal_param input_params[] = {
    GAL_PARAM_PATHLIST(gal_input_opts, paths,
        "photos or folders to process when none are given on the command line", NULL),
    GAL_PARAM_STRLIST(gal_input_opts, include,
        "file-name globs taken from folders (case-insensitive; a glob with / matches the "
        "path below the folder)",
        "*.jpg,*.jpeg,*.png,*.webp,*.tif,*.tiff,*.heic,*.heif,*.avif"),
    GAL_PARAM_STRLIST(gal_input_opts, exclude, "globs left out, even when included", NULL),
    GAL_PARAM_BOOL(gal_input_opts, recursive, "descend into sub-folders", "true"),
    GAL_PARAM_ENUM(gal_input_opts, fail_on,
        "how strict decoding is, as libvips names it: none, truncated (only cut-off files "
        "fail), error, warning (anything the decoder complains about fails)",
        "error", fail_on_names),
    GAL_PARAM_DOUBLE(gal_input_opts, max_megapixels,
        "photos larger than this are refused from their header, before decoding", "100",
        0.01, 100000),
    GAL_PARAM_END,
};

const gal_section gal__input_section = {
    "input", "which photos a run takes and how strictly they are decoded", input_params,
    sizeof(gal_input_opts),
};

gboolean
gal__glob_match(const char *pattern, const char *name)
{
    g_autofree char *p = g_utf8_casefold(pattern, -1);
    g_autofree char *n = g_utf8_casefold(name, -1);

    return g_pattern_match_simple(p, n);
}

static gboolean
any_match(char **globs, const char *base, const char *relative)
{
    for (int i = 0; globs && globs[i]; i++)
        if (gal__glob_match(globs[i], strchr(globs[i], '/') ? relative : base))
            return TRUE;
    return FALSE;
}

typedef struct {
    const gal_input_opts *opts;
    GArray *found;       /* gal_input */
    GHashTable *seen;    /* canonical path -> NULL, to de-duplicate */
    GHashTable *dirs;    /* "dev:ino" of folders visited, against loops */
    struct stat skip;    /* the output folder */
    gboolean have_skip;
} scan_ctx;

static void
add_input(scan_ctx *ctx, const char *path, gboolean regular)
{
    g_autofree char *canonical = g_canonicalize_filename(path, NULL);
    gal_input in = { g_strdup(path), regular };

    if (g_hash_table_contains(ctx->seen, canonical)) {
        g_free(in.path);
        return;
    }
    g_hash_table_add(ctx->seen, g_steal_pointer(&canonical));
    g_array_append_val(ctx->found, in);
}

/* A folder's identity, to visit each once even through links. */
static char *
dir_id(const struct stat *st)
{
    return g_strdup_printf("%ju:%ju", (uintmax_t) st->st_dev, (uintmax_t) st->st_ino);
}

static void
scan_dir(scan_ctx *ctx, const char *dir, const char *relative)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *entry;

    if (!d)
        return;
    while ((entry = g_dir_read_name(d)))
        g_ptr_array_add(names, g_strdup(entry));
    g_dir_close(d);

    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autofree char *rel = *relative ? g_build_filename(relative, name, NULL) : g_strdup(name);
        struct stat st;

        /* Hidden files include gallop's own temporaries. */
        if (name[0] == '.' || stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            g_autofree char *id = dir_id(&st);

            if (!ctx->opts->recursive || g_hash_table_contains(ctx->dirs, id))
                continue;
            if (ctx->have_skip && st.st_dev == ctx->skip.st_dev && st.st_ino == ctx->skip.st_ino)
                continue;
            g_hash_table_add(ctx->dirs, g_steal_pointer(&id));
            scan_dir(ctx, path, rel);
            continue;
        }
        if (!any_match(ctx->opts->include, name, rel) || any_match(ctx->opts->exclude, name, rel))
            continue;
        add_input(ctx, path, S_ISREG(st.st_mode));
    }
}

static int
compare_inputs(gconstpointer a, gconstpointer b)
{
    return strcmp(((const gal_input *) a)->path, ((const gal_input *) b)->path);
}

int
gal__inputs_collect(const gal_input_opts *opts, const char *const *paths, int n_paths,
    const char *skip_dir, GArray **out, gal_errors *errs)
{
    scan_ctx ctx = { opts, g_array_new(FALSE, TRUE, sizeof(gal_input)),
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), { 0 }, FALSE };
    int failed = 0;

    ctx.have_skip = skip_dir && stat(skip_dir, &ctx.skip) == 0;
    for (int i = 0; i < n_paths; i++) {
        struct stat st;

        if (stat(paths[i], &st) != 0) {
            gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL, "%s: no such file or folder",
                paths[i]);
            failed = -1;
        }
        else if (S_ISDIR(st.st_mode)) {
            g_hash_table_add(ctx.dirs, dir_id(&st));
            scan_dir(&ctx, paths[i], "");
        }
        else
            add_input(&ctx, paths[i], S_ISREG(st.st_mode));
    }
    g_hash_table_destroy(ctx.seen);
    g_hash_table_destroy(ctx.dirs);
    g_array_sort(ctx.found, compare_inputs);
    if (failed) {
        gal__inputs_free(ctx.found);
        *out = NULL;
        return -1;
    }
    *out = ctx.found;
    return 0;
}

void
gal__inputs_free(GArray *inputs)
{
    if (!inputs)
        return;
    for (guint i = 0; i < inputs->len; i++)
        g_free(g_array_index(inputs, gal_input, i).path);
    g_array_free(inputs, TRUE);
}
