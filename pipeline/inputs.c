/* inputs.c: the `input` section and the scan that turns files and folders
 * into the sorted list of photos a run processes. Special files (FIFOs,
 * devices, sockets) are listed so the user hears about them, but never
 * opened; the output folder is skipped when it lies inside an input. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "error.h"
#include "fsio.h"
#include "inputs.h"
#include "preset.h"
#include "schema.h"

static const char *const gal_fail_on_names[] = { "none", "truncated", "error", "warning", NULL };

static const gal_param input_params[] = {
    GAL_PARAM_PATHLIST(gal_input_opts, paths,
        "photos or folders to process when none are given on the command line", NULL),
    GAL_PARAM_STRLIST(gal_input_opts, include,
        "file-name globs taken from folders (case-insensitive; a glob with / matches the "
        "path below the folder)",
        "*.jpg,*.jpeg,*.png,*.webp,*.tif,*.tiff,*.heic,*.heif,*.avif"),
    GAL_PARAM_STRLIST(gal_input_opts, exclude, "globs left out, even when included", NULL),
    GAL_PARAM_BOOL(gal_input_opts, recursive, "descend into sub-folders", "true"),
    GAL_PARAM_ENUM(gal_input_opts, fail_on, gal_fail_on,
        "how strict decoding is, as libvips names it: none, truncated (only cut-off files "
        "fail), error, warning (anything the decoder complains about fails)",
        "error"),
    GAL_PARAM_DOUBLE(gal_input_opts, max_megapixels,
        "photos larger than this are refused from their header, before decoding (medium-format "
        "cameras write 102 MP)",
        "200",
        0.01, 100000),
    GAL_PARAM_DOUBLE(gal_input_opts, max_seconds,
        "a photo still being made after this many seconds is stopped and fails (a hostile "
        "or broken file cannot hold up the batch)",
        "60", 0.01, 86400),
    GAL_PARAM_INT(gal_input_opts, max_memory_mb,
        "most memory in MiB a photo's pixels may take at once (decoded, scaled, turned); "
        "one that needs more fails",
        "2048", 16, 1048576),
    GAL_PARAM_END,
};

const gal_section gal__input_section = {
    "input", "which photos a run takes and how strictly they are decoded", input_params,
    sizeof(gal_input_opts),
};

static int
compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
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
    GHashTable *seen;    /* canonical path -> NULL, to de-duplicate: the photos' own */
    GPtrArray *seen_copies; /* ... or these, when a photo's path is not canonical */
    GHashTable *dirs;    /* "dev:ino" of folders visited, against loops */
    struct stat skip;    /* the output folder */
    gboolean have_skip;
    gboolean follow;     /* follow links out of the input folder */
    const char *root;    /* the input folder being scanned, resolved */
    char *root_shared;   /* the same, as its photos share it (a GRefString) */
    GPtrArray *stack;    /* "dev:ino" of the folders being scanned, outermost first */
    char *cwd;           /* once: canonicalising against it asks the system each time */
} scan_ctx;

static void
input_clear(gal_input *in)
{
    if (in->root)
        g_ref_string_release(in->root);
    if (!in->rel_in_path)
        g_free(in->rel);
    g_free(in->path);
    g_free(in->why);
}

/* Take the photo at `path` (ownership taken). */
static void
add_input(scan_ctx *ctx, char *path, const char *rel, gboolean regular, char *why,
    const struct stat *st)
{
    char *canonical;
    size_t path_len = strlen(path), rel_len = rel ? strlen(rel) : 0;
    /* At its exact size: g_build_filename's string has a GString's room,
     * 128 bytes for a path of 60 (64 MB of a million photos' paths); a
     * path made exactly is left as it is. */
    gal_input in = { .path = g_realloc(path, path_len + 1),
        .root = ctx->root_shared ? g_ref_string_acquire(ctx->root_shared) : NULL,
        .regular = regular, .why = why, .dev = st ? st->st_dev : 0, .ino = st ? st->st_ino : 0,
        .size = st ? st->st_size : 0, .mtime_ns = st ? gal__mtime_ns(st) : 0 };

    /* A scanned photo's path ends with its relative path (FOLDER/rel). */
    path = in.path;
    in.rel_in_path = rel && rel_len < path_len && path[path_len - rel_len - 1] == '/' &&
        strcmp(path + path_len - rel_len, rel) == 0;
    in.rel = in.rel_in_path ? in.path + path_len - rel_len
                            : rel ? g_strdup(rel) : g_path_get_basename(path);
    /* The photo's own string is its key when it is canonical already, as
     * every path beneath an absolute input folder is: a copy of each of a
     * million paths was held for the whole scan. */
    canonical = gal__path_is_canonical(path) ? path : g_canonicalize_filename(path, ctx->cwd);
    if (g_hash_table_contains(ctx->seen, canonical)) {
        if (canonical != path)
            g_free(canonical);
        input_clear(&in);
        return;
    }
    if (canonical != path)
        g_ptr_array_add(ctx->seen_copies, canonical);
    g_hash_table_add(ctx->seen, canonical);
    g_array_append_val(ctx->found, in);
}

/* A folder's identity, to visit each once even through links. */
static char *
dir_id(const struct stat *st)
{
    return g_strdup_printf("%ju:%ju", (uintmax_t) st->st_dev, (uintmax_t) st->st_ino);
}

static gboolean
inside(const char *root, const char *path)
{
    size_t n = strlen(root);

    return strcmp(root, "/") == 0 ||
        (strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0'));
}

static gboolean
on_stack(scan_ctx *ctx, const char *id)
{
    for (guint i = 0; i < ctx->stack->len; i++)
        if (strcmp(ctx->stack->pdata[i], id) == 0)
            return TRUE;
    return FALSE;
}

static void scan_dir(scan_ctx *ctx, const char *dir, const char *relative);

/* A symbolic link met while scanning: followed when it stays inside the
 * input folder (or with --follow-symlinks), never round a loop. What is
 * not followed is listed, so the user hears about it. Returns TRUE when
 * the link was dealt with here (listed or skipped). */
static gboolean
check_link(scan_ctx *ctx, const char *path, const char *name, const char *rel, gboolean *is_dir)
{
    g_autofree char *target = realpath(path, NULL);
    int saved = errno;
    struct stat st;

    if (!target || stat(target, &st) != 0) {
        if (any_match(ctx->opts->include, name, rel) &&
            !any_match(ctx->opts->exclude, name, rel))
            add_input(ctx, g_strdup(path), rel, FALSE,
                g_strdup(!target && saved == ELOOP
                        ? "a symbolic link loop: skipped"
                        : "a symbolic link to nothing (its target is missing): skipped"), NULL);
        return TRUE;
    }
    *is_dir = S_ISDIR(st.st_mode);
    if (*is_dir) {
        g_autofree char *id = dir_id(&st);

        if (on_stack(ctx, id)) {
            add_input(ctx, g_strdup(path), rel, FALSE, g_strdup_printf(
                "a symbolic link loop (it leads back to %s): not followed", target), NULL);
            return TRUE;
        }
    }
    else if (!any_match(ctx->opts->include, name, rel) ||
        any_match(ctx->opts->exclude, name, rel))
        return TRUE;
    if (!ctx->follow && !inside(ctx->root, target)) {
        add_input(ctx, g_strdup(path), rel, FALSE, g_strdup_printf(
            "a symbolic link to %s, outside the input folder: not followed "
            "(--follow-symlinks follows it)", target), NULL);
        return TRUE;
    }
    return FALSE;
}

static void
scan_dir(scan_ctx *ctx, const char *dir, const char *relative)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    gboolean dir_slash = g_str_has_suffix(dir, "/");
    const char *entry;

    if (!d)
        return;
    while ((entry = g_dir_read_name(d)))
        g_ptr_array_add(names, g_strdup(entry));
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);

    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        /* What g_build_filename makes of them, without its GString (a
         * name has no slash, nor has `relative` at its end): only a folder
         * given with a slash at its end needs its rules. */
        g_autofree char *path = dir_slash ? g_build_filename(dir, name, NULL)
                                          : g_strconcat(dir, "/", name, NULL);
        g_autofree char *rel = *relative ? g_strconcat(relative, "/", name, NULL) : g_strdup(name);
        gboolean is_dir = FALSE;
        struct stat st;

        /* Hidden files include gallop's own temporaries and manifest. */
        if (name[0] == '.' || lstat(path, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            if (check_link(ctx, path, name, rel, &is_dir) || stat(path, &st) != 0)
                continue;
        }
        if (S_ISDIR(st.st_mode)) {
            g_autofree char *id = dir_id(&st);

            if (!ctx->opts->recursive || g_hash_table_contains(ctx->dirs, id))
                continue;
            if (ctx->have_skip && st.st_dev == ctx->skip.st_dev && st.st_ino == ctx->skip.st_ino)
                continue;
            g_hash_table_add(ctx->dirs, g_strdup(id));
            g_ptr_array_add(ctx->stack, g_steal_pointer(&id));
            scan_dir(ctx, path, rel);
            g_ptr_array_remove_index(ctx->stack, ctx->stack->len - 1);
            continue;
        }
        if (!any_match(ctx->opts->include, name, rel) || any_match(ctx->opts->exclude, name, rel))
            continue;
        add_input(ctx, g_steal_pointer(&path), rel, S_ISREG(st.st_mode), NULL, &st);
    }
}

static int
compare_inputs(gconstpointer a, gconstpointer b)
{
    return strcmp(((const gal_input *) a)->path, ((const gal_input *) b)->path);
}

int
gal__inputs_collect(const gal_input_opts *opts, const char *const *paths, int n_paths,
    const char *skip_dir, gboolean follow_symlinks, gal_input **out, int *n_out,
    gal_errors *errs)
{
    scan_ctx ctx = { opts, g_array_new(FALSE, TRUE, sizeof(gal_input)),
        g_hash_table_new(g_str_hash, g_str_equal), g_ptr_array_new_with_free_func(g_free),
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), { 0 }, FALSE,
        follow_symlinks, NULL, NULL, g_ptr_array_new_with_free_func(g_free), g_get_current_dir() };
    int failed = 0;

    ctx.have_skip = skip_dir && stat(skip_dir, &ctx.skip) == 0;
    for (int i = 0; i < n_paths; i++) {
        struct stat st;

        if (stat(paths[i], &st) != 0) {
            int saved = errno;

            /* A link that leads nowhere is one bad input among the others:
             * it fails, and the rest are built. A path that is not there at
             * all is a mistake on the command line. */
            if (lstat(paths[i], &st) == 0 && S_ISLNK(st.st_mode)) {
                gal_input in = { .path = g_strdup(paths[i]),
                    .why = g_strdup(saved == ELOOP ? "a symbolic link loop"
                                                   : "a symbolic link to nothing (its target is missing)"),
                    .refused = TRUE, .rel = g_path_get_basename(paths[i]) };

                g_array_append_val(ctx.found, in);
                continue;
            }
            gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL, "%s: no such file or folder",
                paths[i]);
            failed = -1;
        }
        else if (S_ISDIR(st.st_mode)) {
            /* Named on the command line: followed even when a link. */
            g_autofree char *root = realpath(paths[i], NULL);

            ctx.root = root ? root : paths[i];
            ctx.root_shared = g_ref_string_new(ctx.root);
            g_hash_table_add(ctx.dirs, dir_id(&st));
            g_ptr_array_add(ctx.stack, dir_id(&st));
            scan_dir(&ctx, paths[i], "");
            g_ptr_array_set_size(ctx.stack, 0);
            ctx.root = NULL;
            g_clear_pointer(&ctx.root_shared, g_ref_string_release);
        }
        else
            add_input(&ctx, g_strdup(paths[i]), NULL, S_ISREG(st.st_mode), NULL, &st);
    }
    g_hash_table_destroy(ctx.seen);
    g_ptr_array_unref(ctx.seen_copies);
    g_hash_table_destroy(ctx.dirs);
    g_ptr_array_unref(ctx.stack);
    g_free(ctx.cwd);
    g_array_sort(ctx.found, compare_inputs);
    if (failed) {
        for (guint i = 0; i < ctx.found->len; i++)
            input_clear(&g_array_index(ctx.found, gal_input, i));
        g_array_free(ctx.found, TRUE);
        *out = NULL;
        *n_out = 0;
        return -1;
    }
    /* Exactly as long as the list: the array grew by doubling, and a
     * million photos left 54 MB of room unused for the whole run. */
    *n_out = (int) ctx.found->len;
    *out = g_new(gal_input, MAX(1, ctx.found->len));
    memcpy(*out, ctx.found->data, sizeof(gal_input) * ctx.found->len);
    g_array_free(ctx.found, TRUE);
    return 0;
}

void
gal__inputs_free(gal_input *inputs, int n)
{
    for (int i = 0; inputs && i < n; i++)
        input_clear(&inputs[i]);
    g_free(inputs);
}

gal_input *
gal__inputs_keep(gal_input *inputs, int n, const int *keep, int n_keep)
{
    int next = 0;

    for (int i = 0; i < n; i++) {
        if (next < n_keep && keep[next] == i)
            inputs[next++] = inputs[i];
        else
            input_clear(&inputs[i]);
    }
    return g_renew(gal_input, inputs, MAX(1, n_keep));
}
