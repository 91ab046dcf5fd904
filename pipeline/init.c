/* init.c: starting and stopping the library, and what it says of itself
 * (versions, whether libvips' vector paths are on). */
#include <dlfcn.h>
#include <string.h>

#include <gmodule.h>

#include "internal.h"
#include "error.h"
#include "format.h"
#include "init.h"
#include "orclock.h"
#include "xmp.h"

#include <vips/vector.h> /* after vips.h, which it needs */

/* libvips logs warnings (a tile it could not decode, a bad ICC profile)
 * to stderr; the library never prints, and every failure that matters
 * reaches the caller as a gal_error for its photo. */
static void
drop_log(const char *domain, GLogLevelFlags level, const char *message, gpointer user)
{
    (void) domain;
    (void) level;
    (void) message;
    (void) user;
}

/* The first orc whose compiled-code allocator is thread-safe (see
 * gal_init). */
#define ORC_SAFE_MAJOR 0
#define ORC_SAFE_MINOR 4
#define ORC_SAFE_MICRO 34

/* One decimal version component: digits only, at most 6 of them (no
 * overflow). Returns the character after it, or NULL when there is none. */
static const char *
version_component(const char *p, int *value)
{
    int n = 0;

    *value = 0;
    for (; g_ascii_isdigit(*p) && n < 7; p++, n++)
        *value = *value * 10 + (*p - '0');
    return n == 0 || n > 6 ? NULL : p;
}

gboolean
gal__version_at_least(const char *version, int major, int minor, int micro)
{
    int have[3];
    const int want[3] = { major, minor, micro };
    const char *p = version;

    if (!p)
        return FALSE;
    for (int i = 0; i < 3; i++) {
        if (!(p = version_component(p, &have[i])))
            return FALSE;
        if (i < 2 && *p++ != '.')
            return FALSE;
    }
    /* "0.4.33.1" (a nano version: orc's development snapshots) counts as
     * 0.4.33; anything else after the micro version is not a version. */
    if (*p == '.') {
        int nano;

        if (!(p = version_component(p + 1, &nano)))
            return FALSE;
    }
    if (*p != '\0')
        return FALSE;
    for (int i = 0; i < 3; i++)
        if (have[i] != want[i])
            return have[i] > want[i];
    return TRUE;
}

/* The version of the orc libvips runs, as orc reports it (a static
 * string), or NULL when no orc is loaded or it predates
 * orc_version_string() (0.4.25). liborc is a dependency of libvips, so it
 * is already in the process: look it up rather than link it. */
static const char *
orc_version(void)
{
    const char *(*version_fn)(void);
    void *sym = dlsym(RTLD_DEFAULT, "orc_version_string");

    G_STATIC_ASSERT(sizeof(sym) == sizeof(version_fn));
    if (!sym)
        return NULL;
    /* POSIX guarantees that dlsym's result converts to a function
     * pointer; ISO C has no such conversion, so copy the bits. */
    memcpy(&version_fn, &sym, sizeof(version_fn));
    return version_fn();
}

static gboolean
orc_is_thread_safe(const char *version)
{
    return gal__version_at_least(version, ORC_SAFE_MAJOR, ORC_SAFE_MINOR, ORC_SAFE_MICRO);
}

/* libvips loads every module in its modules folder as it starts: on
 * Debian ImageMagick, JPEG XL, OpenSlide and Poppler besides libheif,
 * which took 40 ms, more than half of an incremental run of 1,000
 * unchanged photos (issue 17). gallop reads only what decode.c sniffs and
 * writes only the formats of formats.def; of the modules' formats that is
 * HEIF and AVIF alone (the others' loaders are untrusted, and blocked
 * below, anyway). So libvips is started with a prefix that has no modules
 * folder, VIPSHOME being the only way to say so, and the modules the
 * output formats name (gal_format_def.module: the HEIF one) are opened
 * from beside the libvips library itself. */
#define NO_MODULES_PREFIX "/nonexistent/gallop-loads-its-own-libvips-modules"

static void
load_module(const char *name)
{
    const char *(*in_libvips)(void) = vips_version_string;
    void *address;
    Dl_info where;
    g_autofree char *library_dir = NULL;
    g_autofree char *path = NULL;
    GModule *module;

    /* A function's address as data: see orc_version. */
    G_STATIC_ASSERT(sizeof(address) == sizeof(in_libvips));
    memcpy(&address, &in_libvips, sizeof(address));
    if (!dladdr(address, &where) || !where.dli_fname)
        return;
    library_dir = g_path_get_dirname(where.dli_fname);
    path = g_strdup_printf("%s/vips-modules-%d.%d/vips-%s.so", library_dir,
        VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION, name);
    /* Not there: the library is built in, or missing (presets that ask
     * for the format then say so, see preset.c). */
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        return;
    /* Opening it registers its operations; it stays for the process. */
    if ((module = g_module_open(path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL)))
        g_module_make_resident(module);
}

int
gal_init(const char *argv0, gal_error *err)
{
    g_autofree char *vipshome = g_strdup(g_getenv("VIPSHOME"));
    int failed;

    g_setenv("VIPSHOME", NO_MODULES_PREFIX, TRUE);
    failed = VIPS_INIT(argv0 ? argv0 : "gallop");
    if (vipshome)
        g_setenv("VIPSHOME", vipshome, TRUE);
    else
        g_unsetenv("VIPSHOME");
    if (failed)
        return gal_error_from_vips(err, GAL_ERR_INIT, NULL, "libvips failed to start");
    gal__xmp_init();
    for (int f = 0; f < GAL_N_FORMATS; f++)
        if (gal__formats[f]->module)
            load_module(gal__formats[f]->module);
    /* orc before 0.4.34 frees compiled programs without a lock, and
     * takes a chunk of code memory under its lock but splits it after,
     * so two workers dropping (or one building) a resize at once can
     * corrupt orc's list of code chunks and crash in liborc (issue 12).
     * gallop's own lock around libvips' two ways into that memory
     * (orclock.c) makes the vector paths safe; were it not in effect,
     * an old orc (or one we cannot identify) gets the C loops: slower
     * (1.5x the CPU) but safe. This must come before any operation is
     * built: libvips picks the path then. */
    if (!orc_is_thread_safe(orc_version()) && !gal__orc_lock_active())
        vips_vector_set_enabled(FALSE);
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
        drop_log, NULL);
    /* Photos come from anywhere: keep to the well-fuzzed loaders. Photos
     * never reach libvips' choice of loader (decode.c picks each one from
     * the file's first bytes and refuses SVG), so the SVG loader, which
     * libvips counts as untrusted, is left open for the one caller that
     * needs it: a preset's own logo (gal__logo_load). */
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoadSvg", FALSE);
    /* JPEG XL photos reach only the source loader, through decode.c: libvips
     * counts libjxl's loader as untrusted because it is young, but libjxl
     * itself is fuzzed continuously (OSS-Fuzz), and the photo's time and
     * memory budgets hold for it as for every decoder. */
    vips_operation_block_set("VipsForeignLoadJxlSource", FALSE);
    /* The savers of the output formats write gallop's own pixels, not a
     * file from outside: open, should libvips count one as untrusted. */
    for (int f = 0; f < GAL_N_FORMATS; f++)
        if (gal__formats[f]->saver)
            vips_operation_block_set(gal__formats[f]->saver, FALSE);
    /* Every photo is different, so cached operations would only pile up
     * memory in proportion to the batch. */
    vips_cache_set_max(0);
    return 0;
}

void
gal_shutdown(void)
{
    vips_shutdown();
}

const char *
gal_version(void)
{
    return GAL_VERSION;
}

const char *
gal_libvips_version(void)
{
    return vips_version_string();
}

gal_vectors
gal_vectors_status(void)
{
    gal_vectors v = { .orc_version = orc_version(), .enabled = vips_vector_isenabled() };

    if (orc_is_thread_safe(v.orc_version))
        v.reason = v.enabled ? "orc 0.4.34 or newer" : "turned off by VIPS_NOVECTOR";
    else if (!gal__orc_lock_active())
        v.reason = v.orc_version ? "orc older than 0.4.34 can crash a multi-threaded run"
                                 : "orc not found or too old to say its version";
    else
        v.reason = v.enabled ? "orc older than 0.4.34, its code memory locked by gallop"
                             : "turned off by VIPS_NOVECTOR";
    return v;
}

void
gal_set_jobs(int jobs)
{
    int cores = MAX(1, (int) g_get_num_processors());
    int photos = jobs > 0 ? jobs : cores;

    vips_concurrency_set(MAX(1, cores / photos));
}
