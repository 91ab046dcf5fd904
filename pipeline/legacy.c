/* legacy.c: an output folder made by an earlier gallop, whose records are
 * a text manifest (.gallop-manifest.tsv, format 2), carried over into the
 * record database on the first run, so that what was up to date stays so
 * (legacy.h). The text is as untrusted as the database: every line is
 * checked as the database's rows are, and what does not check is left
 * out (those outputs are rebuilt). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "digest.h"
#include "fsio.h"
#include "legacy.h"
#include "limit.h"
#include "recipe.h"

#define LEGACY_MAGIC "gallop-manifest\t2"
/* More fields than any line has (an item's 25). */
#define FIELDS_MAX 32

/* Split a line at tabs, in place, undoing the escapes gallop wrote
 * ("\t", "\n", "\r", "\\"): the number of fields, -1 when more than
 * FIELDS_MAX. */
static int
split_fields(char *line, char **fields)
{
    int n = 0;
    char *to = line;

    fields[n++] = line;
    for (char *c = line; *c; c++) {
        if (*c == '\t') {
            *to++ = '\0';
            if (n == FIELDS_MAX)
                return -1;
            fields[n++] = to;
        }
        else if (*c == '\\' && c[1]) {
            c++;
            *to++ = *c == 't' ? '\t' : *c == 'n' ? '\n' : *c == 'r' ? '\r' : *c;
        }
        else
            *to++ = *c;
    }
    *to = '\0';
    return n;
}

static gboolean
int_field(const char *text, gint64 min, gint64 max, gint64 *v)
{
    char *end;

    if (!*text)
        return FALSE;
    errno = 0;
    *v = g_ascii_strtoll(text, &end, 10);
    return !*end && errno == 0 && *v >= min && *v <= max;
}

/* What the reading has made so far. */
typedef struct {
    gal_store *store;
    const char *dir;
    GHashTable *recipes;     /* old digest -> new digest (a recipe line's paths portable) */
    gal_record record;       /* the record being read (its depends and about lines follow) */
    gboolean have_record;
    int kept, refused;
} importing;

/* The record read is done: into the store. */
static void
flush(importing *im)
{
    const char *mapped;

    if (!im->have_record)
        return;
    im->have_record = FALSE;
    if ((mapped = g_hash_table_lookup(im->recipes, im->record.recipe)))
        g_strlcpy(im->record.recipe, mapped, sizeof(im->record.recipe));
    if (!gal__record_valid(&im->record))
        im->refused++;
    else if (gal__store_put(im->store, &im->record, NULL) == 0)
        im->kept++;
    gal__record_clear(&im->record);
}

/* An "output", "sheet" or "item" line (docs/report.md of gallop 0.1:
 * KIND OUTPUT INPUT IN_SIZE IN_MTIME_NS IN_DIGEST DIGEST VERSION OUT_SIZE
 * OUT_MTIME_NS OUT_SHA256 WIDTH HEIGHT [NAME_KEY [CAPTION CAPTION_SOURCE
 * CAPTION_CUT [facts...]]]). */
static gboolean
read_record(importing *im, char **f, int n)
{
    gal_record *r = &im->record;
    gint64 v[7] = { 0 };
    gboolean page = strcmp(f[0], "sheet") == 0, item = strcmp(f[0], "item") == 0;

    /* Its paths and text are checked as a whole record (flush). */
    if (n < 13 || !int_field(f[3], 0, G_MAXINT64, &v[0]) ||
        !int_field(f[4], G_MININT64, G_MAXINT64, &v[1]) ||
        !(page ? (!*f[5] || gal__is_sha256_hex(f[5])) : strlen(f[5]) == GAL_XXH3_HEX_LEN &&
                                                             gal__is_content_digest(f[5])) ||
        !gal__is_sha256_hex(f[6]) || !*f[7] ||
        !int_field(f[8], 0, G_MAXINT64, &v[2]) ||
        !int_field(f[9], G_MININT64, G_MAXINT64, &v[3]) || !gal__is_sha256_hex(f[10]) ||
        !int_field(f[11], 0, G_MAXINT, &v[4]) || !int_field(f[12], 0, G_MAXINT, &v[5]) ||
        (n > 14 && (n < 17 || !int_field(f[16], 0, 1, &v[6]))) || (item && n != 25) ||
        (!item && n != 13 && n != 14 && n != 17))
        return FALSE;
    *r = (gal_record) { .kind = page ? GAL_RECORD_PAGE : item ? GAL_RECORD_ITEM : GAL_RECORD_FILE };
    r->output = g_strdup(f[1]);
    r->input = g_strdup(f[2]);
    r->in_size = v[0];
    r->in_mtime_ns = v[1];
    gal__digest_from_hex(&r->in_digest, f[5]);
    g_strlcpy(r->recipe, f[6], sizeof(r->recipe));
    r->version = g_strdup(f[7]);
    r->out_size = v[2];
    r->out_mtime_ns = v[3];
    gal__digest_from_hex(&r->out_sha256, f[10]);
    r->width = (int) v[4];
    r->height = (int) v[5];
    if (n > 13)
        r->name_key = g_strdup(f[13]);
    if (n > 14) {
        r->caption = *f[14] ? g_strdup(f[14]) : NULL;
        r->caption_source = *f[15] ? g_strdup(f[15]) : NULL;
        r->caption_cut = v[6] != 0;
    }
    for (int k = 0; item && k < GAL_ITEM_FACTS; k++)
        gal__record_facts(r)[k] = *f[17 + k] ? g_strdup(f[17 + k]) : NULL;
    im->have_record = TRUE;
    return TRUE;
}

/* A "depends" line: OUTPUT PATH SIZE MTIME_NS DIGEST, after its record.
 * The path was absolute: relative to the folder now. */
static gboolean
read_dep(importing *im, char **f, int n)
{
    gint64 size, mtime;
    g_autofree char *rel = NULL;

    if (n != 6 || !im->have_record || strcmp(f[1], im->record.output) != 0 || !*f[2] ||
        !int_field(f[3], -1, G_MAXINT64, &size) || !int_field(f[4], G_MININT64, G_MAXINT64, &mtime) ||
        (size >= 0 && !(strlen(f[5]) == GAL_XXH3_HEX_LEN && gal__is_content_digest(f[5])) &&
            !(strlen(f[5]) == 20 && g_str_has_prefix(f[5], "row:"))))
        return FALSE;
    rel = gal__relative_path_from(NULL, im->dir, f[2]);
    gal__record_add_dep(&im->record, rel, size >= 0, size, mtime, f[5]);
    return TRUE;
}

/* An "about" line: OUTPUT KEY=VALUE..., after its record. */
static gboolean
read_about(importing *im, char **f, int n)
{
    if (n < 2 || !im->have_record || strcmp(f[1], im->record.output) != 0 ||
        im->record.kind != GAL_RECORD_FILE)
        return FALSE;
    gal__about_unref(im->record.about);
    im->record.about = gal__about_new((const char *const *) f + 2, (gsize) (n - 2));
    return TRUE;
}

/* The "preset" lines (DIGEST KEY=VALUE), which come first: each recipe's
 * lines made portable, under their new digest. */
static void
put_recipes(importing *im, GHashTable *lines)
{
    GHashTableIter it;
    gpointer digest, keys;

    g_hash_table_iter_init(&it, lines);
    while (g_hash_table_iter_next(&it, &digest, &keys)) {
        GPtrArray *old = keys;
        g_autoptr(GPtrArray) portable = g_ptr_array_new_with_free_func(g_free);
        char fresh[65];

        for (guint k = 0; k < old->len; k++)
            g_ptr_array_add(portable, gal__recipe_line_portable(old->pdata[k], im->dir));
        gal__keys_digest(portable, fresh);
        gal__store_put_recipe(im->store, fresh, portable, NULL);
        g_hash_table_insert(im->recipes, g_strdup(digest), g_strdup(fresh));
    }
}

int
gal__legacy_import(gal_store *store, const char *dir, int dir_fd, GPtrArray *warnings)
{
    int fd = gal__open_beneath(dir_fd, GAL_LEGACY_MANIFEST_NAME);
    g_autoptr(GHashTable) recipe_lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) g_ptr_array_unref);
    importing im = { .store = store, .dir = dir,
        .recipes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free) };
    g_autofree char *line = NULL;
    size_t size = 0;
    gboolean recipes_done = FALSE;
    gint64 total = 0;
    ssize_t len;
    int number = 0;
    struct stat st;
    FILE *file;

    if (fd < 0) {
        g_hash_table_unref(im.recipes);
        return 0;
    }
    if (fstat(fd, &st) != 0 || st.st_size > gal__limits.manifest_bytes || !(file = fdopen(fd, "r"))) {
        g_ptr_array_add(warnings, g_strdup_printf("%s/%s: cannot be read, or larger than the "
            "limit: not carried over, every output is checked again", dir,
            GAL_LEGACY_MANIFEST_NAME));
        close(fd);
        g_hash_table_unref(im.recipes);
        return 0;
    }
    while ((len = getline(&line, &size, file)) > 0 && (total += len) <= gal__limits.manifest_bytes) {
        char *f[FIELDS_MAX];
        int n;

        number++;
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (number == 1 && strcmp(line, LEGACY_MAGIC) != 0) {
            g_ptr_array_add(warnings, g_strdup_printf("%s/%s: not a manifest this gallop "
                "carries over (format 2): every output is checked again", dir,
                GAL_LEGACY_MANIFEST_NAME));
            break;
        }
        /* A NUL inside: the line is not text. */
        if (number == 1 || (size_t) len != strlen(line) || (n = split_fields(line, f)) < 2)
            continue;
        if (strcmp(f[0], "preset") == 0) {
            GPtrArray *keys;

            if (n != 3 || !gal__is_sha256_hex(f[1]) || recipes_done)
                continue;
            if (!(keys = g_hash_table_lookup(recipe_lines, f[1]))) {
                keys = g_ptr_array_new_with_free_func(g_free);
                g_hash_table_insert(recipe_lines, g_strdup(f[1]), keys);
            }
            g_ptr_array_add(keys, g_strdup(f[2]));
            continue;
        }
        if (!recipes_done) {
            put_recipes(&im, recipe_lines);
            recipes_done = TRUE;
        }
        if (strcmp(f[0], "depends") == 0) {
            if (!read_dep(&im, f, n))
                im.refused++;
        }
        else if (strcmp(f[0], "about") == 0) {
            if (!read_about(&im, f, n))
                im.refused++;
        }
        else if (strcmp(f[0], "output") == 0 || strcmp(f[0], "sheet") == 0 ||
            strcmp(f[0], "item") == 0) {
            flush(&im);
            if (!read_record(&im, f, n)) {
                gal__record_clear(&im.record);
                im.refused++;
            }
        }
    }
    if (!recipes_done)
        put_recipes(&im, recipe_lines);
    flush(&im);
    fclose(file);
    if (im.refused)
        g_ptr_array_add(warnings, g_strdup_printf("%s/%s: %d line%s not carried over (not as "
            "gallop writes them): those outputs are checked again", dir,
            GAL_LEGACY_MANIFEST_NAME, im.refused, im.refused == 1 ? "" : "s"));
    g_hash_table_unref(im.recipes);
    return im.kept;
}
