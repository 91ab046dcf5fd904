/* presets_arg.c: finding and loading the presets the command line names
 * (shipped, $GALLOP_PRESETS_DIR, files), all their errors shown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The shipped presets: PREFIX/share/gallop/presets of the prefix the
 * binary itself is installed in (found from /proc/self/exe, so a copy
 * installed under a DESTDIR, or moved, finds its own), else the source
 * tree a build-tree binary was made from, else the configured install
 * folder. Found once. */
static const char *
shipped_presets_dir(void)
{
    static char *dir;
    g_autofree char *exe = NULL;

    if (dir)
        return dir;
    exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe) {
        g_autofree char *bin = g_path_get_dirname(exe);
        g_autofree char *beside = g_build_filename(bin, GAL_PRESETS_FROM_BINDIR, NULL);

        if (g_file_test(beside, G_FILE_TEST_IS_DIR))
            return dir = g_canonicalize_filename(beside, NULL);
    }
    if (g_file_test(GAL_PRESETS_DIR, G_FILE_TEST_IS_DIR))
        return dir = g_strdup(GAL_PRESETS_DIR);
    return dir = g_strdup(GAL_INSTALLED_PRESETS_DIR);
}

/* $GALLOP_PRESETS_DIR: folders (separated by ':') searched before the
 * shipped presets, which they add to rather than replace. */
static const char *const *
user_presets_dirs(void)
{
    static char **dirs;
    const char *env = getenv("GALLOP_PRESETS_DIR");

    if (!dirs)
        dirs = env && *env ? g_strsplit(env, G_SEARCHPATH_SEPARATOR_S, -1) : g_new0(char *, 1);
    return (const char *const *) dirs;
}

/* Where presets are found and what "~" is: every preset load uses these. */
gal_load_options
load_options(GPtrArray *overrides, bool follow_symlinks)
{
    gal_load_options opts = { 0 };

    opts.presets_dir = shipped_presets_dir();
    opts.user_presets_dirs = user_presets_dirs();
    opts.home_dir = g_get_home_dir();
    opts.follow_symlinks = follow_symlinks;
    if (overrides) {
        opts.overrides = (const char *const *) overrides->pdata;
        opts.n_overrides = (int) overrides->len;
    }
    return opts;
}

/* Is a command-line argument after the first a preset? A preset file is
 * YAML, a photo or folder never is; a bare word names a shipped preset
 * unless a file or folder of that name is there. */
static gboolean
has_yaml_suffix(const char *arg)
{
    g_autofree char *lower = g_ascii_strdown(arg, -1);

    return g_str_has_suffix(lower, ".yaml") || g_str_has_suffix(lower, ".yml");
}

static gboolean
is_preset_arg(const char *arg)
{
    const char *const *user = user_presets_dirs();
    g_autofree char *shipped = NULL;

    if (has_yaml_suffix(arg))
        return TRUE;
    if (strchr(arg, '/') || g_file_test(arg, G_FILE_TEST_EXISTS))
        return FALSE;
    for (int i = 0; user[i]; i++) {
        g_autofree char *own = g_strdup_printf("%s/%s.yaml", user[i], arg);

        if (*user[i] && g_file_test(own, G_FILE_TEST_IS_REGULAR))
            return TRUE;
    }
    shipped = g_strdup_printf("%s/%s.yaml", shipped_presets_dir(), arg);
    return g_file_test(shipped, G_FILE_TEST_IS_REGULAR);
}

int
load_preset(const char *name, GPtrArray *overrides, bool follow_symlinks, gal_preset **out)
{
    gal_load_options opts = load_options(overrides, follow_symlinks);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    if (gal_preset_load(name, &opts, out, errs) == 0)
        return 0;
    print_errors(errs);
    if (errs->count > 1 || errs->dropped)
        fprintf(stderr, "gallop: %d errors in %s\n", errs->count + errs->dropped, name);
    return -1;
}

/* PRESET... then INPUT... from argv[optind]: the first argument is always
 * a preset. How many presets, or -1 after saying what is wrong. */
int
count_presets(int argc, char **argv, const char *command)
{
    int n = 1;

    while (optind + n < argc && is_preset_arg(argv[optind + n]))
        n++;
    for (int k = optind + n; k < argc; k++)
        if (has_yaml_suffix(argv[k])) {
            fprintf(stderr, "gallop %s: %s looks like a preset after the photos: name every "
                "preset first (gallop %s PRESET... INPUT...)\n", command, argv[k], command);
            return -1;
        }
    return n;
}

/* Every preset's errors are shown before giving up. */
int
load_presets(char **names, int n, GPtrArray *overrides, bool follow_symlinks,
    gal_preset **presets)
{
    int failed = 0;

    g_ptr_array_add(overrides, NULL);
    overrides->len--;
    for (int r = 0; r < n; r++)
        if (load_preset(names[r], overrides, follow_symlinks, &presets[r]))
            failed = -1;
    return failed;
}
