/* inputs.c: the `input` section and the scan that turns files and folders
 * into the sorted list of photos a run processes. Special files (FIFOs,
 * devices, sockets) are listed so the user hears about them, but never
 * opened; the output folder is skipped when it lies inside an input. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "album.h"
#include "error.h"
#include "fsio.h"
#include "inputs.h"
#include "parallel.h"
#include "preset.h"
#include "schema.h"
#include "shard.h"

static const char *const gal_fail_on_names[] = { "none", "truncated", "error", "warning", NULL };
static const char *const gal_raw_mode_names[] = { "preview", "develop", NULL };
static const char *const gal_pairs_names[] = { "jpeg", "raw", NULL };

static const gal_param input_params[] = {
    GAL_PARAM_PATHLIST(gal_input_opts, paths,
        "photos or folders to process when none are given on the command line", NULL),
    GAL_PARAM_STRLIST(gal_input_opts, include,
        "file-name globs taken from folders (case-insensitive; a glob with / matches the "
        "path below the folder)",
        "*.jpg,*.jpeg,*.png,*.webp,*.tif,*.tiff,*.heic,*.heif,*.avif,*.jxl,*.gif,"
        "*.cr2,*.cr3,*.nef,*.arw,*.dng,*.raf,*.orf,*.rw2,*.pef"),
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
    GAL_PARAM_ENUM(gal_input_opts, raw, gal_raw_mode,
        "how a camera's raw photo (CR2, CR3, NEF, ARW, DNG, RAF, ORF, RW2, PEF) becomes "
        "pixels: preview (the JPEG the camera embedded, when it is large enough for every "
        "file the photo makes, else developed) or develop (always demosaiced with the "
        "camera's white balance and colour matrix, to sRGB in 16 bits)",
        "preview"),
    GAL_PARAM_ENUM(gal_input_opts, pairs, gal_pairs,
        "a raw and a JPEG (or HEIC) of one shot, side by side with one name (IMG_0001.CR2, "
        "IMG_0001.JPG), are one photo: jpeg reads the JPEG, raw the raw; the other is "
        "listed as skipped",
        "jpeg"),
    GAL_PARAM_END,
};

const gal_section gal__input_section = {
    "input", "which photos a run takes and how strictly they are decoded", input_params,
    sizeof(gal_input_opts),
};

const char *
gal__skip_kind_name(gal_skip_kind kind)
{
    static const char *const names[] = {
        [GAL_SKIP_NONE] = NULL,
        [GAL_SKIP_SPECIAL] = "special",
        [GAL_SKIP_LINK] = "link",
        [GAL_SKIP_HIDDEN] = "hidden",
        [GAL_SKIP_VIDEO] = "video",
        [GAL_SKIP_RAW] = "raw-unsupported",
        [GAL_SKIP_UNKNOWN] = "unknown",
        [GAL_SKIP_PAIR] = "pair",
    };

    return (unsigned) kind < G_N_ELEMENTS(names) ? names[kind] : NULL;
}

/* Is the name's extension (after its last dot, any case) one of `exts`? */
static gboolean
has_ext(const char *name, const char *const *exts)
{
    const char *dot = strrchr(name, '.');

    if (!dot || dot == name)
        return FALSE;
    for (int i = 0; exts[i]; i++)
        if (g_ascii_strcasecmp(dot + 1, exts[i]) == 0)
            return TRUE;
    return FALSE;
}

/* Names, not contents: a skipped file is never opened. */
static const char *const video_exts[] = { "mp4", "mov", "m4v", "avi", "mkv", "mts", "m2ts",
    "3gp", "webm", "mpg", "mpeg", "wmv", "lrv", "insv", "mp3", "m4a", "wav", "aac", NULL };
/* Raw kinds, read or not: what a raw + JPEG pair is told by, and what a
 * raw is when input.include does not take it. */
static const char *const raw_exts[] = { "cr2", "cr3", "nef", "arw", "dng", "raf", "orf", "rw2",
    "pef", "crw", "mrw", "nrw", "srw", "x3f", "3fr", "fff", "iiq", "rwl", "mos", "erf", "kdc",
    "dcr", "sr2", "srf", "mef", "gpr", "raw", NULL };
static const char *const processed_exts[] = { "jpg", "jpeg", "heic", "heif", "hif", NULL };

/* Why a file input.include does not take is skipped, and its kind. */
static const char *
skip_reason(const char *name, gal_skip_kind *kind)
{
    if (has_ext(name, video_exts)) {
        *kind = GAL_SKIP_VIDEO;
        return "a video or sound clip, by its name: skipped";
    }
    if (has_ext(name, raw_exts)) {
        *kind = GAL_SKIP_RAW;
        return "a camera raw photo of a kind input.include does not take: skipped";
    }
    *kind = GAL_SKIP_UNKNOWN;
    return "not a photo input.include takes: skipped";
}

/* Folders more than this deep below an input folder are read by their
 * whole path and closed at once, as every folder was: an open folder is a
 * descriptor held until its sub-folders are done. */
#define SCAN_MAX_OPEN_DIRS 64

/* One glob of `include` or `exclude`, looked at once per scan rather than
 * per file: a million photos were a million folds of each glob. */
typedef struct {
    const char *glob;
    gboolean below;   /* has a slash: matched against the path below the folder */
    char *tail;       /* "*" and a plain ASCII tail ("*.jpg"): the tail in lower case */
    size_t tail_len;
} glob_rule;

typedef struct {
    glob_rule *rules;
    int n;
} glob_set;

static void
glob_set_init(glob_set *set, char **globs)
{
    set->n = globs ? (int) g_strv_length(globs) : 0;
    set->rules = g_new0(glob_rule, MAX(1, set->n));
    for (int i = 0; i < set->n; i++) {
        glob_rule *rule = &set->rules[i];
        const char *g = globs[i];

        rule->glob = g;
        rule->below = strchr(g, '/') != NULL;
        if (g[0] == '*' && g[1] && !strpbrk(g + 1, "*?") && g_str_is_ascii(g)) {
            rule->tail = g_ascii_strdown(g + 1, -1);
            rule->tail_len = strlen(rule->tail);
        }
    }
}

static void
glob_set_clear(glob_set *set)
{
    for (int i = 0; i < set->n; i++)
        g_free(set->rules[i].tail);
    g_free(set->rules);
}

/* gal__glob_match's answer. An ASCII text (nearly every photo's name) is
 * matched against "*TAIL" by its end: what gal__glob_match's fold and
 * g_pattern_match_simple make of it. Any other text is folded as UTF-8
 * there, where a character outside ASCII can fold to ASCII ones ("ﬀ" to
 * "ff"), so it goes there. */
static gboolean
rule_matches(const glob_rule *rule, const char *text)
{
    if (rule->tail) {
        size_t len = 0;

        for (; text[len]; len++)
            if ((unsigned char) text[len] >= 0x80)
                return gal__glob_match(rule->glob, text);
        return len >= rule->tail_len &&
            g_ascii_strcasecmp(text + len - rule->tail_len, rule->tail) == 0;
    }
    return gal__glob_match(rule->glob, text);
}

static gboolean
any_match(const glob_set *set, const char *base, const char *relative)
{
    for (int i = 0; i < set->n; i++)
        if (rule_matches(&set->rules[i], set->rules[i].below ? relative : base))
            return TRUE;
    return FALSE;
}

typedef struct {
    const gal_input_opts *opts;
    glob_set include, exclude;
    GArray *found;       /* gal_input */
    GHashTable *seen;    /* canonical path -> NULL, to de-duplicate: the photos' own */
    GPtrArray *seen_copies; /* ... or these, when a photo's path is not canonical */
    /* For the path given being taken: may an earlier one have taken the
     * same photos (look each up in `seen`), may a later one (put each in
     * it)? Neither, for a folder given alone: within one, every path is
     * new, and the set was a tenth of a plan's instructions. */
    gboolean check_seen, record_seen;
    GHashTable *dirs;    /* "dev:ino" of folders visited, against loops */
    struct stat skip;    /* the output folder */
    gboolean have_skip;
    gboolean follow;     /* follow links out of the input folder */
    const char *root;    /* the input folder being scanned, resolved */
    char *root_shared;   /* the same, as its photos share it (a GRefString) */
    GPtrArray *stack;    /* "dev:ino" of the folders being scanned, outermost first */
    char *cwd;           /* once: canonicalising against it asks the system each time */
    /* The path of the folder being scanned, then of each of its entries in
     * turn: built in place, one name at a time, and copied only for a photo
     * taken (two strings were made and freed for every entry). */
    GString *path;
    size_t rel_at;       /* where the path below the input folder starts in `path` */
    gboolean via_link;   /* the next photo taken is a link's target (gal_input.via_link) */
    GStringChunk *arena; /* where the photos' paths go */
    int lookup_helpers;  /* threads besides the scan's own that look entries up */
    int shard, shards;   /* a shard's scan (gal_scan_options) */
    gboolean list_only;  /* no photo looked up (gal_scan_options) */
    gal_skip_kind next_skip; /* the kind of the next file listed with a why */
    GHashTable *reads;   /* canonical paths of gal_scan_options.reads */
} scan_ctx;

/* A folder's entries are looked up (lstat) ahead of the scan, a chunk of
 * them at a time, by the scan's thread and helpers: a lookup per photo
 * was three quarters of a scan, and a second core halves it. The scan then
 * goes through the entries in order as before, with what was found.
 * Only the entries whose answer the scan needs are looked up (see
 * entry_need): a shard of 100 at a million photos looked up a hundred
 * times the photos it takes. */
#define LOOKUP_CHUNK 2048
/* Fewer entries than this are looked up by the scan's thread alone: a
 * helper costs a thread's start. */
#define LOOKUP_SHARED 256
#define LOOKUP_BATCH 32

/* What the scan needs of a folder's entry, from its name and the type
 * the folder's listing gives (d_type). */
typedef enum {
    ENTRY_LOOK_UP,   /* its lstat: a folder, a link, a photo taken, or a type not given */
    ENTRY_PASS,      /* a file no glob takes: nothing */
    ENTRY_ELSEWHERE, /* a file another shard takes: listed, not looked up */
    ENTRY_SKIP,      /* a file no glob takes: listed as skipped, unless gallop reads it */
} entry_need;

typedef struct {
    int fd;
    const char *const *names;
    const guint8 *need;  /* per entry: entry_need */
    struct stat *st;
    int *error;          /* per entry looked up: 0, or why its lstat failed */
    int n;
} lookahead;

static void
look_up_entries(int from, int to, void *data)
{
    lookahead *la = data;

    for (int k = from; k < to; k++)
        if (la->need[k] == ENTRY_LOOK_UP)
            la->error[k] = fstatat(la->fd, la->names[k], &la->st[k], AT_SYMLINK_NOFOLLOW) == 0
                ? 0
                : errno;
}

/* Look up those of the `n` entries `names` of the folder `la->fd` that
 * `need` it (`wanted` of them), into `la`. */
static void
look_ahead(lookahead *la, const char *const *names, const guint8 *need, int n, int wanted,
    int helpers)
{
    la->names = names;
    la->need = need;
    la->n = n;
    gal__parallel_for(n, LOOKUP_BATCH, wanted >= LOOKUP_SHARED ? MIN(helpers, 8) + 1 : 1,
        look_up_entries, la);
}

gal_path_arena *
gal__path_arena_new(void)
{
    gal_path_arena *arena = g_new(gal_path_arena, 1);

    /* Blocks of 1 MiB, some 16,000 paths each (GStringChunk gives a path
     * longer than a block one of its own). */
    arena->inputs = g_string_chunk_new(1 << 20);
    arena->outputs = g_string_chunk_new(1 << 20);
    return arena;
}

void
gal__path_arena_free(gal_path_arena *arena)
{
    if (!arena)
        return;
    g_string_chunk_free(arena->inputs);
    g_string_chunk_free(arena->outputs);
    g_free(arena);
}

/* A photo's own string of `text` (`len` bytes), in the arena. */
static char *
own_path(const scan_ctx *ctx, const char *text, size_t len)
{
    return g_string_chunk_insert_len(ctx->arena, text, (gssize) len);
}

/* A path and, after its NUL, why it was not taken (gal__input_why), as
 * one string of `chunk`'s. */
static char *
path_with_why(GStringChunk *chunk, const char *path, const char *why)
{
    size_t path_size = strlen(path) + 1, why_len = strlen(why);
    g_autofree char *both = g_malloc(path_size + why_len + 1);

    memcpy(both, path, path_size);
    memcpy(both + path_size, why, why_len + 1);
    return g_string_chunk_insert_len(chunk, both, (gssize) (path_size + why_len));
}

static void
input_clear(gal_input *in)
{
    if (in->root)
        g_ref_string_release(in->root);
}

/* Where the name of the file named `path` starts in it (no file's path
 * ends with a slash). */
static guint32
name_at(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? (guint32) (slash + 1 - path) : 0;
}

/* Take the photo at `path` (a string in the scan's arena), or list it
 * with `why` it is not taken (freed here; `path` is then copied into the
 * arena with it, and may be any string).
 * `scanned`: found in the folder being scanned, so its path within it is
 * the end of `path`; otherwise named itself. */
static void
add_input(scan_ctx *ctx, char *path, gboolean scanned, gboolean regular, char *why,
    const struct stat *st)
{
    char *canonical;
    gal_input in = { .path = why ? path_with_why(ctx->arena, path, why) : path,
        .root = ctx->root_shared ? g_ref_string_acquire(ctx->root_shared) : NULL,
        .regular = regular, .has_why = why != NULL, .dev = st ? st->st_dev : 0,
        .ino = st ? st->st_ino : 0, .size = st ? st->st_size : 0,
        .mtime_ns = st ? gal__mtime_ns(st) : 0 };

    g_free(why);
    path = in.path;

    in.via_link = ctx->via_link;
    ctx->via_link = FALSE;
    in.skip = in.has_why ? ctx->next_skip : GAL_SKIP_NONE;
    ctx->next_skip = GAL_SKIP_NONE;
    in.rel_at = scanned ? (guint32) ctx->rel_at : name_at(path);
    /* The photo's own string is its key when it is canonical already, as
     * every path beneath an absolute input folder is: a copy of each of a
     * million paths was held for the whole scan. */
    if (ctx->check_seen || ctx->record_seen) {
        canonical = gal__path_is_canonical(path) ? path : g_canonicalize_filename(path, ctx->cwd);
        if (ctx->check_seen && g_hash_table_contains(ctx->seen, canonical)) {
            if (canonical != path)
                g_free(canonical);
            input_clear(&in);
            return;
        }
        if (!ctx->record_seen) {
            if (canonical != path)
                g_free(canonical);
        }
        else {
            if (canonical != path)
                g_ptr_array_add(ctx->seen_copies, canonical);
            g_hash_table_add(ctx->seen, canonical);
        }
    }
    g_array_append_val(ctx->found, in);
}

/* The entry of the folder being scanned that `ctx->path` names, as a photo's
 * own string. */
static char *
entry_path(const scan_ctx *ctx)
{
    return own_path(ctx, ctx->path->str, ctx->path->len);
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

/* A symbolic link met while scanning (its path is `ctx->path`): followed
 * when it stays inside the input folder (or with --follow-symlinks), never
 * round a loop. What is not followed is listed, so the user hears about
 * it. Returns TRUE when the link was dealt with here (listed or skipped). */
static gboolean
check_link(scan_ctx *ctx, const char *name, const char *rel, gboolean *is_dir)
{
    const char *path = ctx->path->str;
    g_autofree char *target = realpath(path, NULL);
    int saved = errno;
    struct stat st;

    if (!target || stat(target, &st) != 0) {
        ctx->next_skip = GAL_SKIP_LINK;
        if (any_match(&ctx->include, name, rel) && !any_match(&ctx->exclude, name, rel))
            add_input(ctx, ctx->path->str, TRUE, FALSE,
                g_strdup(!target && saved == ELOOP
                        ? "a symbolic link loop: skipped"
                        : "a symbolic link to nothing (its target is missing): skipped"), NULL);
        return TRUE;
    }
    *is_dir = S_ISDIR(st.st_mode);
    if (*is_dir) {
        g_autofree char *id = dir_id(&st);

        if (on_stack(ctx, id)) {
            ctx->next_skip = GAL_SKIP_LINK;
            add_input(ctx, ctx->path->str, TRUE, FALSE, g_strdup_printf(
                "a symbolic link loop (it leads back to %s): not followed", target), NULL);
            return TRUE;
        }
    }
    else if (!any_match(&ctx->include, name, rel) || any_match(&ctx->exclude, name, rel))
        return TRUE;
    if (!ctx->follow && !inside(ctx->root, target)) {
        ctx->next_skip = GAL_SKIP_LINK;
        add_input(ctx, ctx->path->str, TRUE, FALSE, g_strdup_printf(
            "a symbolic link to %s, outside the input folder: not followed "
            "(--follow-symlinks follows it)", target), NULL);
        return TRUE;
    }
    return FALSE;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Point `ctx->path` at the entry `name` of the folder it named (`dir_len`
 * long); its path below the input folder. */
static const char *
path_to_entry(scan_ctx *ctx, size_t dir_len, const char *name)
{
    g_string_truncate(ctx->path, dir_len);
    g_string_append_c(ctx->path, '/');
    g_string_append(ctx->path, name);
    return ctx->path->str + ctx->rel_at;
}

/* Is the file `rel` (below the input folder) one this scan reports when
 * skipped: not in a list-only scan, and in a sharded one only the shard
 * its path falls to, as a photo's would. */
static gboolean
skip_is_ours(const scan_ctx *ctx, const char *rel)
{
    if (ctx->list_only)
        return FALSE;
    return ctx->shards == 0 || gal__shard_of(rel, ctx->shards) == ctx->shard;
}

/* Does some photo in the folder (its `n` sorted `names`) take the file
 * `name` as its sidecar: a caption, IMG_1.jpg.txt or IMG_1.txt, or its
 * overrides, IMG_1.jpg.yaml or IMG_1.yaml? */
static gboolean
is_sidecar(const scan_ctx *ctx, const char *const *names, guint n, const char *name)
{
    size_t len = strlen(name);
    size_t ext = 0;
    g_autofree char *photo = NULL;
    guint lo = 0, hi = n;

    if (len > 4 && g_ascii_strcasecmp(name + len - 4, ".txt") == 0)
        ext = 4;
    else if (len > 5 && g_ascii_strcasecmp(name + len - 5, ".yaml") == 0)
        ext = 5;
    if (!ext)
        return FALSE;
    len -= ext;
    photo = g_strndup(name, len);
    /* The first name not before `photo`: the photo itself, or one with its
     * stem ("IMG_1" then "IMG_1.jpg"). */
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;

        if (strcmp(names[mid], photo) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && g_str_has_prefix(names[lo], photo); lo++) {
        const char *rest = names[lo] + len;

        if ((*rest == '\0' || (*rest == '.' && !strchr(rest + 1, '.'))) &&
            any_match(&ctx->include, names[lo], names[lo]) &&
            !any_match(&ctx->exclude, names[lo], names[lo]))
            return TRUE;
    }
    return FALSE;
}

/* List the file `ctx->path` names, which no glob takes, as skipped: unless
 * it is a sidecar of a photo beside it, an album's album.yaml, or a file
 * the preset reads. */
static void
add_skipped(scan_ctx *ctx, const char *const *names, guint n, const char *name)
{
    gal_skip_kind kind;
    const char *why;

    /* An album's description is gallop's own, read by the gallery stage. */
    if (is_sidecar(ctx, names, n, name) || strcmp(name, GAL_ALBUM_FILE) == 0)
        return;
    if (ctx->reads && g_hash_table_size(ctx->reads) > 0) {
        g_autofree char *canonical = g_canonicalize_filename(ctx->path->str, ctx->cwd);

        if (g_hash_table_contains(ctx->reads, canonical))
            return;
    }
    why = skip_reason(name, &kind);
    ctx->next_skip = kind;
    add_input(ctx, entry_path(ctx), TRUE, TRUE, g_strdup(why), NULL);
}

/* What the scan needs of the entry `name` of type `type` (the listing's
 * d_type; DT_UNKNOWN where the file system does not say). */
static entry_need
need_of(scan_ctx *ctx, size_t dir_len, const char *name, unsigned char type)
{
    const char *rel;

    if (type != DT_REG)
        return ENTRY_LOOK_UP;
    rel = path_to_entry(ctx, dir_len, name);
    if (any_match(&ctx->exclude, name, rel))
        return ENTRY_PASS;
    if (!any_match(&ctx->include, name, rel))
        return skip_is_ours(ctx, rel) ? ENTRY_SKIP : ENTRY_PASS;
    if (ctx->list_only || (ctx->shards > 0 && gal__shard_of(rel, ctx->shards) != ctx->shard))
        return ENTRY_ELSEWHERE;
    return ENTRY_LOOK_UP;
}

/* The folder `ctx->path` names, reached as `name` in the open folder
 * `parent_fd` (AT_FDCWD: `name` is the whole path; -1: by its whole path
 * alone). Each entry is looked up by its name in the open folder, not by
 * its whole path: the kernel's walk of a long path for every file was a
 * fifth of the scan. Links are followed to the folder as opening the path
 * follows them. */
static void
scan_dir(scan_ctx *ctx, int parent_fd, const char *name, int depth)
{
    size_t dir_len = ctx->path->len;
    int fd = parent_fd != -1 && depth < SCAN_MAX_OPEN_DIRS
        ? openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        : -1;
    DIR *d = fd >= 0 ? fdopendir(fd) : opendir(ctx->path->str);
    /* The names one after another, each with its NUL and after its type
     * (names[i][-1]): one string for the folder, not one allocation per
     * name. */
    g_autoptr(GString) text = g_string_new(NULL);
    g_autoptr(GArray) starts = g_array_new(FALSE, FALSE, sizeof(size_t));
    g_autofree const char **names = NULL;
    struct dirent *entry;
    int at_fd;
    lookahead ahead = { 0 };
    g_autofree struct stat *ahead_st = NULL;
    g_autofree int *ahead_error = NULL;
    g_autofree guint8 *need = NULL;
    g_autoptr(GPtrArray) hidden = g_ptr_array_new_with_free_func(g_free);

    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((entry = readdir(d))) {
        /* Hidden files are listed as skipped, but for "." and "..", and
         * gallop's own temporaries and records (".gallop-..."). */
        if (entry->d_name[0] == '.') {
            if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0 &&
                !g_str_has_prefix(entry->d_name, ".gallop"))
                g_ptr_array_add(hidden, g_strdup(entry->d_name));
            continue;
        }
        g_string_append_c(text, (char) entry->d_type);
        g_array_append_val(starts, text->len);
        g_string_append_len(text, entry->d_name, (gssize) strlen(entry->d_name) + 1);
    }
    names = g_new(const char *, MAX(1, starts->len));
    for (guint i = 0; i < starts->len; i++)
        names[i] = text->str + g_array_index(starts, size_t, i);
    qsort(names, starts->len, sizeof *names, compare_names);
    for (guint i = 0; i < hidden->len; i++) {
        const char *rel = path_to_entry(ctx, dir_len, hidden->pdata[i]);

        if (!skip_is_ours(ctx, rel))
            continue;
        ctx->next_skip = GAL_SKIP_HIDDEN;
        add_input(ctx, entry_path(ctx), TRUE, TRUE,
            g_strdup("hidden (its name starts with a dot): skipped"), NULL);
    }
    /* Read by its path: nothing held open while its sub-folders are read. */
    if (fd < 0)
        g_clear_pointer(&d, closedir);
    at_fd = d ? dirfd(d) : AT_FDCWD;
    if (starts->len > 0) {
        guint room = MIN(starts->len, LOOKUP_CHUNK);

        need = g_new(guint8, room);
        /* A folder read by its path is looked up entry by entry, below. */
        if (d) {
            ahead.fd = at_fd;
            ahead.st = ahead_st = g_new(struct stat, room);
            ahead.error = ahead_error = g_new(int, room);
        }
    }

    for (guint i = 0; i < starts->len; i++) {
        const char *rel;
        const char *at_name;
        gboolean is_dir = FALSE, link;
        struct stat st;

        if (i % LOOKUP_CHUNK == 0) {
            int n = (int) MIN(starts->len - i, LOOKUP_CHUNK), wanted = 0;

            for (int k = 0; k < n; k++) {
                need[k] = (guint8) need_of(ctx, dir_len, names[i + k],
                    (unsigned char) names[i + k][-1]);
                wanted += need[k] == ENTRY_LOOK_UP;
            }
            if (d)
                look_ahead(&ahead, names + i, need, n, wanted, ctx->lookup_helpers);
        }
        rel = path_to_entry(ctx, dir_len, names[i]);
        if (need[i % LOOKUP_CHUNK] == ENTRY_PASS)
            continue;
        if (need[i % LOOKUP_CHUNK] == ENTRY_ELSEWHERE) {
            add_input(ctx, entry_path(ctx), TRUE, TRUE, NULL, NULL);
            continue;
        }
        if (need[i % LOOKUP_CHUNK] == ENTRY_SKIP) {
            add_skipped(ctx, names, starts->len, names[i]);
            continue;
        }
        at_name = d ? names[i] : ctx->path->str;
        if (d) {
            if (ahead.error[i % LOOKUP_CHUNK] != 0)
                continue;
            st = ahead.st[i % LOOKUP_CHUNK];
        }
        else if (fstatat(at_fd, at_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        link = S_ISLNK(st.st_mode);
        if (link) {
            if (check_link(ctx, names[i], rel, &is_dir) || fstatat(at_fd, at_name, &st, 0) != 0)
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
            scan_dir(ctx, d ? at_fd : -1, names[i], depth + 1);
            g_ptr_array_remove_index(ctx->stack, ctx->stack->len - 1);
            continue;
        }
        /* A plain file's name passed the globs in need_of already. */
        if (names[i][-1] != DT_REG &&
            (!any_match(&ctx->include, names[i], rel) || any_match(&ctx->exclude, names[i], rel))) {
            if (S_ISREG(st.st_mode) && !any_match(&ctx->exclude, names[i], rel) &&
                skip_is_ours(ctx, rel))
                add_skipped(ctx, names, starts->len, names[i]);
            continue;
        }
        ctx->via_link = link;
        add_input(ctx, entry_path(ctx), TRUE, S_ISREG(st.st_mode), NULL, &st);
    }
    g_string_truncate(ctx->path, dir_len);
    if (d)
        closedir(d);
}

/* The input folder `dir`'s photos' paths are its first `n` characters, a
 * slash and their path within it (n being returned), as g_build_filename
 * joins them: a slash at the end of `dir` is not doubled, and a `dir` of
 * slashes alone is kept whole ("//" and "a.jpg" are "//a.jpg"). */
static size_t
folder_base_len(const char *dir)
{
    size_t len = strlen(dir), kept = len;

    if (len == 0 || dir[len - 1] != '/')
        return len;
    while (kept > 0 && dir[kept - 1] == '/')
        kept--;
    return kept > 0 ? kept : len - 1;
}

/* The photos a path given may add, by their canonical paths (the key of
 * `seen`), lexically: the path itself when a file, or `under` followed by
 * a path within it when a folder. Which it is does not matter here. */
typedef struct {
    char *self;
    char *under; /* ends with a slash */
} input_reach;

static void
input_reach_init(input_reach *reach, const char *path, const char *cwd)
{
    g_autofree char *child = g_strdup_printf("%.*s/x", (int) folder_base_len(path), path);
    char *canonical_child = g_canonicalize_filename(child, cwd);

    reach->self = g_canonicalize_filename(path, cwd);
    /* A name (no ".", ".." or empty part) is kept as it is, at the end:
     * what precedes it starts every photo's canonical path. */
    canonical_child[strlen(canonical_child) - 1] = '\0';
    reach->under = canonical_child;
}

/* Can two paths given add a photo of the same canonical path? */
static gboolean
may_share(const input_reach *a, const input_reach *b)
{
    return g_str_has_prefix(a->under, b->under) || g_str_has_prefix(b->under, a->under) ||
        g_str_has_prefix(a->self, b->under) || g_str_has_prefix(b->self, a->under) ||
        strcmp(a->self, b->self) == 0;
}

/* Past this many paths given, each is looked up in `seen` and put in it
 * rather than compared with every other (a shell's `*.jpg` can be
 * thousands of files; each file is one look-up). */
#define MAX_PATHS_COMPARED 256

/* Whether the photos of each path given must be looked up in `seen`
 * (check[i]) and put in it (record[i]). */
static void
plan_dedup(const char *const *paths, int n_paths, const char *cwd, gboolean *check,
    gboolean *record)
{
    input_reach *reach;

    if (n_paths > MAX_PATHS_COMPARED) {
        for (int i = 0; i < n_paths; i++)
            check[i] = record[i] = TRUE;
        return;
    }
    reach = g_new(input_reach, MAX(1, n_paths));
    for (int i = 0; i < n_paths; i++) {
        input_reach_init(&reach[i], paths[i], cwd);
        check[i] = record[i] = FALSE;
    }
    for (int i = 0; i < n_paths; i++)
        for (int j = i + 1; j < n_paths; j++)
            if (may_share(&reach[i], &reach[j]))
                record[i] = check[j] = TRUE;
    for (int i = 0; i < n_paths; i++) {
        g_free(reach[i].self);
        g_free(reach[i].under);
    }
    g_free(reach);
}

/* Scan the input folder `dir` as named. */
static void
scan_input_dir(scan_ctx *ctx, const char *dir)
{
    size_t len = folder_base_len(dir);

    g_string_assign(ctx->path, "");
    g_string_append_len(ctx->path, dir, (gssize) len);
    ctx->rel_at = len + 1;
    scan_dir(ctx, AT_FDCWD, dir, 0);
}

static int
compare_inputs(gconstpointer a, gconstpointer b)
{
    return strcmp(((const gal_input *) a)->path, ((const gal_input *) b)->path);
}

/* Sorted by path, as a stable sort leaves equal paths. A folder's scan
 * comes out in that order already when no name of a folder is the start
 * of a longer name ("a/x" sorts after "a-b"): then one look is enough. */
static void
sort_inputs(gal_input *found, gsize n)
{
    for (gsize i = 1; i < n; i++)
        if (compare_inputs(&found[i - 1], &found[i]) > 0) {
            qsort(found, n, sizeof *found, compare_inputs);
            return;
        }
}

/* A photo's path without its extension, folded, as the key its raw +
 * JPEG pair shares (IMG_0001.CR2, IMG_0001.JPG); NULL: none. */
static char *
shot_key(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');

    if (!dot || dot == path || (slash && dot <= slash + 1))
        return NULL;
    return g_ascii_strdown(path, dot - path);
}

/* A raw and a JPEG (or HEIC) of one shot, side by side with one name, are
 * one photo: the half input.pairs does not read is listed as skipped,
 * naming the one read, so that the two never make two photos, nor collide
 * on one output name. Looked for only when the scan found a raw. */
static void
pair_inputs(const gal_input_opts *opts, gal_input *found, gsize n, GStringChunk *arena)
{
    g_autoptr(GHashTable) raws = NULL;
    g_autoptr(GHashTable) processed = NULL;

    for (gsize i = 0; i < n; i++) {
        char *key;

        if (found[i].has_why || !found[i].regular || !has_ext(found[i].path, raw_exts) ||
            !(key = shot_key(found[i].path)))
            continue;
        if (!raws)
            raws = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_hash_table_insert(raws, key, &found[i]);
    }
    if (!raws)
        return;
    processed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (gsize i = 0; i < n; i++) {
        g_autofree char *key = NULL;
        gal_input *raw;

        if (found[i].has_why || !found[i].regular || !has_ext(found[i].path, processed_exts) ||
            !(key = shot_key(found[i].path)) || !(raw = g_hash_table_lookup(raws, key)))
            continue;
        g_hash_table_insert(processed, g_steal_pointer(&key), &found[i]);
    }
    for (gsize i = 0; i < n; i++) {
        gal_input *in = &found[i], *read;
        g_autofree char *key = NULL;
        g_autofree char *why = NULL;
        const char *read_name;
        gboolean is_raw = has_ext(in->path, raw_exts);

        if (in->has_why || !in->regular || !(key = shot_key(in->path)))
            continue;
        if (is_raw && opts->pairs == GAL_PAIRS_JPEG && (read = g_hash_table_lookup(processed, key)))
            read_name = read->path + name_at(read->path);
        else if (!is_raw && opts->pairs == GAL_PAIRS_RAW &&
            has_ext(in->path, processed_exts) && (read = g_hash_table_lookup(raws, key)))
            read_name = read->path + name_at(read->path);
        else
            continue;
        why = g_strdup_printf("the %s of the same shot as %s, which is read instead "
                              "(input.pairs: %s): skipped",
            is_raw ? "raw" : "JPEG", read_name, opts->pairs == GAL_PAIRS_JPEG ? "jpeg" : "raw");
        in->path = path_with_why(arena, in->path, why);
        in->has_why = TRUE;
        in->skip = GAL_SKIP_PAIR;
    }
}

int
gal__inputs_collect(const gal_input_opts *opts, const char *const *paths, int n_paths,
    const gal_scan_options *scan, GStringChunk *arena, gal_input **out, int *n_out,
    gal_errors *errs)
{
    scan_ctx ctx = { .opts = opts, .arena = arena,
        .seen = g_hash_table_new(g_str_hash, g_str_equal),
        .seen_copies = g_ptr_array_new_with_free_func(g_free),
        .dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .follow = scan->follow_symlinks, .stack = g_ptr_array_new_with_free_func(g_free),
        .cwd = g_get_current_dir(), .path = g_string_new(NULL),
        .lookup_helpers = (scan->jobs > 0 ? scan->jobs : (int) g_get_num_processors()) - 1,
        .shard = scan->shard, .shards = scan->shards, .list_only = scan->list_only };
    g_autofree gboolean *check = g_new(gboolean, MAX(1, n_paths));
    g_autofree gboolean *record = g_new(gboolean, MAX(1, n_paths));
    gal_input *found;
    gsize n_found;
    int failed = 0;

    plan_dedup(paths, n_paths, ctx.cwd, check, record);
    ctx.reads = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (int i = 0; scan->reads && scan->reads[i]; i++)
        g_hash_table_add(ctx.reads, g_canonicalize_filename(scan->reads[i], ctx.cwd));
    glob_set_init(&ctx.include, opts->include);
    glob_set_init(&ctx.exclude, opts->exclude);
    ctx.have_skip = scan->skip_dir && stat(scan->skip_dir, &ctx.skip) == 0;
    ctx.found = g_array_new(FALSE, FALSE, sizeof(gal_input));
    for (int i = 0; i < n_paths; i++) {
        struct stat st;
        /* The path's own stat, then its target's when it is a link: one
         * system call for a file (a shell's `*.jpg` can be thousands). */
        gboolean there = lstat(paths[i], &st) == 0;
        gboolean is_link = there && S_ISLNK(st.st_mode);

        if (is_link)
            there = stat(paths[i], &st) == 0;
        ctx.check_seen = check[i];
        ctx.record_seen = record[i];
        if (!there) {
            int saved = errno;

            /* A link that leads nowhere is one bad input among the others:
             * it fails, and the rest are built. A path that is not there at
             * all is a mistake on the command line. */
            if (is_link) {
                gal_input in = { .path = path_with_why(ctx.arena, paths[i],
                                     saved == ELOOP ? "a symbolic link loop"
                                                    : "a symbolic link to nothing (its target is missing)"),
                    .has_why = TRUE, .refused = TRUE };

                in.rel_at = name_at(in.path);

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
            scan_input_dir(&ctx, paths[i]);
            g_ptr_array_set_size(ctx.stack, 0);
            ctx.root = NULL;
            g_clear_pointer(&ctx.root_shared, g_ref_string_release);
        }
        else {
            ctx.via_link = is_link;
            add_input(&ctx, own_path(&ctx, paths[i], strlen(paths[i])), FALSE,
                S_ISREG(st.st_mode), NULL, &st);
        }
    }
    g_hash_table_destroy(ctx.seen);
    g_ptr_array_unref(ctx.seen_copies);
    g_hash_table_destroy(ctx.dirs);
    g_hash_table_destroy(ctx.reads);
    g_ptr_array_unref(ctx.stack);
    g_free(ctx.cwd);
    g_string_free(ctx.path, TRUE);
    glob_set_clear(&ctx.include);
    glob_set_clear(&ctx.exclude);
    n_found = ctx.found->len;
    found = (gal_input *) g_array_free(ctx.found, FALSE);
    sort_inputs(found, n_found);
    pair_inputs(opts, found, n_found, arena);
    if (failed) {
        for (gsize i = 0; i < n_found; i++)
            input_clear(&found[i]);
        g_free(found);
        *out = NULL;
        *n_out = 0;
        return -1;
    }
    *n_out = (int) n_found;
    *out = found;
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
gal__inputs_keep(gal_input *inputs, int n, const int *keep, int n_keep, GStringChunk **arena)
{
    GStringChunk *kept = g_string_chunk_new(1 << 20);
    int next = 0;

    for (int i = 0; i < n; i++) {
        gal_input *in = &inputs[i];
        char *path;

        if (!(next < n_keep && keep[next] == i)) {
            input_clear(in);
            continue;
        }
        path = in->has_why ? path_with_why(kept, in->path, gal__input_why(in))
                           : g_string_chunk_insert(kept, in->path);
        in->path = path;
        inputs[next++] = *in;
    }
    g_string_chunk_free(*arena);
    *arena = kept;
    return g_renew(gal_input, inputs, MAX(1, n_keep));
}
