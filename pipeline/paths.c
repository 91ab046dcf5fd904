/* paths.c: paths as the manifest records them (fsio.h, "paths"): made
 * canonical against the working folder, and relative to the output folder,
 * lexically, for every photo of a run; no file is opened here. */
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "fsio.h"

/* g_canonicalize_filename against the working folder, asked of the
 * system directly: GLib's g_get_current_dir stats $PWD and "." to trust
 * $PWD, two path walks per call, which a million-photo plan felt. A
 * relative path of plain names (as a scan of a relative folder finds
 * them) is only joined to it: canonicalising each photo's path, with
 * GLib's GString, was a twelfth of a rerun's CPU. */
static char *
canonical(const char *path, const char *known_cwd)
{
    char asked[PATH_MAX];
    const char *cwd = known_cwd;

    if (g_path_is_absolute(path) || (!cwd && !(cwd = getcwd(asked, sizeof asked))))
        return g_canonicalize_filename(path, NULL);
    if (gal__path_is_beneath(path))
        return g_strconcat(strcmp(cwd, "/") == 0 ? "" : cwd, "/", path, NULL);
    return g_canonicalize_filename(path, cwd);
}

/* Is `path` already what canonical() would make of it: absolute, with no
 * empty, "." or ".." part and no slash at its end? The output folder and
 * the planned outputs are (the plan made them so): one pass over them
 * spares a copy, a canonicalisation and, for a relative path, asking the
 * system for the working folder, a tenth of a rerun's CPU when done for
 * every photo's paths. */
gboolean
gal__path_is_canonical(const char *path)
{
    return path[0] == '/' && (!path[1] || gal__path_is_beneath(path + 1));
}

const char *
gal__path_below(const char *dir, const char *path)
{
    size_t n = strlen(dir);

    if (n == 1 && dir[0] == '/')
        n = 0;
    if (strncmp(path, dir, n) != 0 || path[n] != '/' || !path[n + 1] ||
        !gal__path_is_canonical(dir) || !gal__path_is_canonical(path))
        return NULL;
    return path + n + 1;
}

static char *
relative_path_made(const char *cwd, const char *dir, const char *path)
{
    g_autofree char *from_made = gal__path_is_canonical(dir) ? NULL : canonical(dir, cwd);
    g_autofree char *to_made = gal__path_is_canonical(path) ? NULL : canonical(path, cwd);
    const char *from = from_made ? from_made : dir;
    const char *to = to_made ? to_made : path;
    size_t i = 0, common = 0, ups = 0, rest_len, len;
    const char *rest;
    char *out, *at;

    /* Both are canonical (absolute, no "." or ".." or empty parts): the
     * longest common prefix that ends on a part boundary is shared. No
     * splitting: this runs for every photo of a run, twice. */
    while (from[i] && from[i] == to[i]) {
        if (from[i] == '/')
            common = i;
        i++;
    }
    if ((!from[i] && (!to[i] || to[i] == '/')) || (!to[i] && from[i] == '/'))
        common = i;
    /* A ".." for each part of `from` past it, then the rest of `to`, which
     * starts with a slash (or is empty) and has no empty part. Written
     * once, at its exact size: a merge keeps one per photo. */
    for (const char *p = from + common; *p;) {
        const char *end = strchrnul(++p, '/');

        ups += end > p;
        p = end;
    }
    rest = to + common + (to[common] == '/');
    rest_len = strlen(rest);
    len = (ups ? ups * 3 - 1 : 0) + (ups && rest_len ? 1 : 0) + rest_len;
    if (len == 0)
        return g_strdup(".");
    at = out = g_malloc(len + 1);
    for (size_t u = 0; u < ups; u++) {
        memcpy(at, u ? "/.." : "..", u ? 3 : 2);
        at += u ? 3 : 2;
    }
    if (ups && rest_len)
        *at++ = '/';
    memcpy(at, rest, rest_len + 1);
    return out;
}

/* The folders a thread asked about last, and their paths relative to
 * `dir`: a run asks for each photo's path and its output's (three times a
 * photo in a rerun), photos come folder by folder, and the folder's part
 * was most of the work. */
typedef struct {
    char *cwd, *dir;
    char *folder;   /* up to and with its last slash, as asked */
    char *rel;      /* relative_path_made(cwd, dir, folder); NULL: of no use (below) */
} folder_relative;

/* The photo's folder and its output's, and room for two more. */
#define FOLDERS_KEPT 4

typedef struct {
    folder_relative kept[FOLDERS_KEPT];
    int next;       /* the one to replace */
} folder_relatives_kept;

static void
folder_relative_clear(folder_relative *c)
{
    g_free(c->cwd);
    g_free(c->dir);
    g_free(c->folder);
    g_free(c->rel);
}

static void
folder_relative_free(gpointer data)
{
    folder_relatives_kept *k = data;

    for (int f = 0; f < FOLDERS_KEPT; f++)
        folder_relative_clear(&k->kept[f]);
    g_free(k);
}

static GPrivate folder_relatives = G_PRIVATE_INIT(folder_relative_free);

/* "..", "../..", ...: the path of a folder `dir` is beneath. */
static gboolean
only_ups(const char *rel)
{
    for (;; rel += 3) {
        if (rel[0] != '.' || rel[1] != '.' || (rel[2] && rel[2] != '/'))
            return FALSE;
        if (!rel[2])
            return TRUE;
    }
}

char *
gal__relative_path_from(const char *cwd, const char *dir, const char *path)
{
    const char *name = strrchr(path, '/');
    size_t folder_len;
    folder_relatives_kept *k;
    folder_relative *c = NULL;

    /* A plain name in a folder: its path is the folder's and the name,
     * unless `dir` is the folder or beneath it (the name may then be a
     * part of `dir`'s own). With no working folder known it is asked each
     * time, and so never kept. */
    if (!cwd || !name || !gal__path_is_beneath(name + 1))
        return relative_path_made(cwd, dir, path);
    folder_len = (size_t) (name - path) + 1;
    if (!(k = g_private_get(&folder_relatives))) {
        k = g_new0(folder_relatives_kept, 1);
        g_private_set(&folder_relatives, k);
    }
    for (int f = 0; f < FOLDERS_KEPT && !c; f++) {
        folder_relative *kept = &k->kept[f];

        if (kept->folder && strncmp(kept->folder, path, folder_len) == 0 &&
            !kept->folder[folder_len] && strcmp(kept->dir, dir) == 0 &&
            strcmp(kept->cwd, cwd) == 0)
            c = kept;
    }
    if (!c) {
        c = &k->kept[k->next];
        k->next = (k->next + 1) % FOLDERS_KEPT;
        folder_relative_clear(c);
        c->cwd = g_strdup(cwd);
        c->dir = g_strdup(dir);
        c->folder = g_strndup(path, folder_len);
        c->rel = relative_path_made(cwd, dir, c->folder);
        /* "//" at the start is a root of its own (POSIX leaves it to the
         * system; GLib keeps it): its relative path ends with a slash. */
        if (only_ups(c->rel) || g_str_has_suffix(c->rel, "/"))
            g_clear_pointer(&c->rel, g_free);
    }
    if (!c->rel)
        return relative_path_made(cwd, dir, path);
    if (strcmp(c->rel, ".") == 0)
        return g_strdup(name + 1);
    return g_strconcat(c->rel, "/", name + 1, NULL);
}
