/* fonts.c: the font a stage's `font` key names, made ready for text.c's
 * layouts once, in prepare(): a font file beside the preset is checked,
 * named by the family its `name` table gives and handed to libvips once
 * for the process; a family (Pango's "Family Style Size") is checked with
 * fontconfig, which would otherwise draw a family it lacks in another one
 * without a word. */
#include <string.h>
#include <sys/stat.h>

#include <fontconfig/fontconfig.h>
#include <pango/pango.h>

#include "internal.h"
#include "error.h"
#include "fsio.h"
#include "limit.h"
#include "schema.h"
#include "text.h"

/* libvips 8.14 remembers which font files it gave fontconfig in a table
 * keyed by the string the caller passed as "fontfile", which the vips_text
 * operation frees when it is done: the next vips_text with any font file
 * then reads freed memory (AddressSanitizer shows it). So the file goes to
 * vips_text once, here, and that operation is kept for the life of the
 * process, which keeps its key alive; fontconfig keeps the font for the
 * process anyway. Later layouts name the family alone. */
int
gal__font_file_register(const char *path, const char *family, gal_error *err)
{
    VipsOperation *op = vips_operation_new("text");
    g_autofree char *font = g_strdup_printf("%s 12", family);

    g_object_set(op, "text", "Ág", "font", font, "fontfile", path, NULL);
    if (vips_cache_operation_buildp(&op)) {
        vips_object_unref_outputs(VIPS_OBJECT(op));
        g_object_unref(op);
        return gal_error_from_vips(err, GAL_ERR_PRESET, NULL, "font file");
    }
    /* Deliberately never unreferenced: see above. */
    vips_object_unref_outputs(VIPS_OBJECT(op));
    return 0;
}

static guint
be16(const guchar *p)
{
    return (guint) p[0] << 8 | p[1];
}

static guint32
be32(const guchar *p)
{
    return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

/* The family name in an OpenType/TrueType file's `name` table (Windows
 * Unicode record preferred), so a preset can name a font file and Pango
 * can still be asked for it by family. */
char *
gal__font_file_family(const char *path, GError **error)
{
    static const gal_read_rules rules = { "font file", NULL, TRUE, 0, GAL_ERR_PRESET };
    gal_read_rules capped = rules;
    g_autofree guchar *data = NULL;
    gal_error err = { 0 };
    gsize len;
    guint tables;
    const guchar *name = NULL;
    gsize name_len = 0;
    char *mac = NULL;

    capped.max_bytes = gal__limits.font_bytes;
    if (gal__file_read(path, &capped, (char **) &data, &len, NULL, &err)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s", err.msg);
        return NULL;
    }
    /* A collection (.ttc): use its first font. */
    if (len >= 16 && memcmp(data, "ttcf", 4) == 0) {
        guint32 first = be32(data + 12);

        /* Not first + 12 > len: that wraps for an offset near 4 GiB. */
        if (first > len || len - first < 12)
            goto bad;
        memmove(data, data + first, len - first);
        len -= first;
    }
    if (len < 12)
        goto bad;
    tables = be16(data + 4);
    for (guint i = 0; i < tables && 12 + 16 * (i + 1) <= len; i++) {
        const guchar *rec = data + 12 + 16 * i;

        if (memcmp(rec, "name", 4) == 0) {
            guint32 off = be32(rec + 8), size = be32(rec + 12);

            if (off > len || size > len - off)
                goto bad;
            name = data + off;
            name_len = size;
        }
    }
    if (!name || name_len < 6)
        goto bad;
    {
        guint count = be16(name + 2), strings = be16(name + 4);

        for (guint i = 0; i < count && 6 + 12 * (i + 1) <= name_len; i++) {
            const guchar *rec = name + 6 + 12 * i;
            guint platform = be16(rec), name_id = be16(rec + 6);
            guint length = be16(rec + 8), offset = be16(rec + 10);

            if (name_id != 1 || strings + offset + length > name_len)
                continue;
            if (platform == 3 || platform == 0) {
                char *family = g_convert((const char *) name + strings + offset, length,
                    "UTF-8", "UTF-16BE", NULL, NULL, NULL);

                if (family) {
                    g_free(mac);
                    return family;
                }
            }
            else if (platform == 1 && !mac)
                mac = g_convert((const char *) name + strings + offset, length, "UTF-8",
                    "MACINTOSH", NULL, NULL, NULL);
        }
    }
    if (mac)
        return mac;
bad:
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s is not a TrueType/OpenType font (no family name found)", path);
    return NULL;
}

static gboolean
looks_like_font_file(const char *font)
{
    static const char *const suffixes[] = { ".ttf", ".otf", ".ttc", NULL };

    if (strchr(font, '/'))
        return TRUE;
    for (int i = 0; suffixes[i]; i++)
        if (g_str_has_suffix(font, suffixes[i]) ||
            (strlen(font) > 4 && g_ascii_strcasecmp(font + strlen(font) - 4, suffixes[i]) == 0))
            return TRUE;
    return FALSE;
}

/* Names fontconfig resolves to some installed font by design: asking for
 * one never silently gets another. */
static const char *const generic_families[] = {
    "sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy",
    "emoji", "math", NULL,
};

static gboolean
is_generic_family(const char *family)
{
    for (int i = 0; generic_families[i]; i++)
        if (g_ascii_strcasecmp(family, generic_families[i]) == 0)
            return TRUE;
    return FALSE;
}

/* Family names as fontconfig compares them: without case and blanks
 * ("DejaVuSans" is "DejaVu Sans"). */
static gboolean
same_family(const char *a, const char *b)
{
    for (;; a++, b++) {
        while (*a == ' ')
            a++;
        while (*b == ' ')
            b++;
        if (g_ascii_tolower(*a) != g_ascii_tolower(*b))
            return FALSE;
        if (!*a)
            return TRUE;
    }
}

/* The family fontconfig would draw `family` in (the best match, as Pango
 * asks for it), and whether that font is of `family` itself: one of its
 * family names equals it, compared as fontconfig compares families
 * (without case and blanks). A family fontconfig does not have comes back
 * as some other installed one, silently. *drawn is new, or NULL when
 * nothing matches at all. */
static gboolean
family_installed(const char *family, char **drawn)
{
    FcPattern *pattern = FcPatternCreate();
    FcPattern *match;
    FcResult result;
    FcChar8 *name;
    gboolean found = FALSE;

    *drawn = NULL;
    FcPatternAddString(pattern, FC_FAMILY, (const FcChar8 *) family);
    FcConfigSubstitute(NULL, pattern, FcMatchPattern);
    FcDefaultSubstitute(pattern);
    match = FcFontMatch(NULL, pattern, &result);
    FcPatternDestroy(pattern);
    if (!match)
        return FALSE;
    for (int i = 0; !found && FcPatternGetString(match, FC_FAMILY, i, &name) == FcResultMatch; i++)
        found = same_family((const char *) name, family);
    if (FcPatternGetString(match, FC_FAMILY, 0, &name) == FcResultMatch)
        *drawn = g_strdup((const char *) name);
    FcPatternDestroy(match);
    return found;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Every family name of every installed font, each once, sorted: what a
 * misspelt family is compared with. Only asked for on an error. */
static GPtrArray *
installed_families(void)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    FcPattern *all = FcPatternCreate();
    FcObjectSet *family_only = FcObjectSetBuild(FC_FAMILY, NULL);
    FcFontSet *fonts = FcFontList(NULL, all, family_only);
    FcChar8 *name;

    for (int f = 0; fonts && f < fonts->nfont; f++)
        for (int i = 0; FcPatternGetString(fonts->fonts[f], FC_FAMILY, i, &name) == FcResultMatch;
             i++) {
            char *folded = g_utf8_casefold((const char *) name, -1);

            if (g_hash_table_add(seen, folded))
                g_ptr_array_add(names, g_strdup((const char *) name));
        }
    if (fonts)
        FcFontSetDestroy(fonts);
    FcObjectSetDestroy(family_only);
    FcPatternDestroy(all);
    g_ptr_array_sort(names, compare_names);
    return names;
}

#define MAX_FAMILY_GUESSES 3
/* No family name is longer than this many bytes; a longer value is not
 * compared with every installed family (edit distances cost the product
 * of the lengths: an 800 KB value took seconds). */
#define MAX_FAMILY_BYTES 200

/* " (did you mean "A", "B" or "C"?)": the installed families nearest to
 * those of `wanted`, nearest first, each within gal__did_you_mean's reach;
 * "" when none is near. */
static char *
family_guesses(char **wanted)
{
    g_autoptr(GPtrArray) names = installed_families();
    /* Borrowed from `names`, NULL-terminated; each guess leaves it in
     * turn, so the next call finds the next nearest. */
    g_autoptr(GPtrArray) left = g_ptr_array_copy(names, NULL, NULL);
    GString *out = g_string_new(NULL);
    const char *guesses[MAX_FAMILY_GUESSES];
    int n = 0;

    /* The copy takes the free function too: these are not its to free. */
    g_ptr_array_set_free_func(left, NULL);
    g_ptr_array_add(left, NULL);
    /* Round by round, each family's next nearest, so that every family
     * of a list gets its own. */
    for (int before = -1; n > before && n < MAX_FAMILY_GUESSES;) {
        before = n;
        for (int w = 0; wanted[w] && n < MAX_FAMILY_GUESSES; w++) {
            const char *guess = strlen(wanted[w]) > MAX_FAMILY_BYTES ? NULL
                : gal__did_you_mean(wanted[w], (const char *const *) left->pdata);

            if (guess) {
                guesses[n++] = guess;
                g_ptr_array_remove(left, (gpointer) guess);
            }
        }
    }
    for (int i = 0; i < n; i++)
        g_string_append_printf(out, "%s\"%s\"",
            i == 0 ? " (did you mean " : i == n - 1 ? " or " : ", ", guesses[i]);
    if (n)
        g_string_append(out, "?)");
    return g_string_free(out, FALSE);
}

/* Is there a font for `font` (Pango's "Family, Other Family Style Size"),
 * as it is written? Fontconfig never says no: a family it does not have is
 * drawn in another one, silently, so a misspelt "DejaVu Snas" would pass
 * for "DejaVu Sans" everywhere but in the pictures. A list of families is
 * a fallback the preset wrote: one of them installed is enough. Generic
 * families are always there. One match per family, once per preset load;
 * the installed families are listed only for the error. */
static int
check_families(const char *font, const gal_loc *loc, const char *key, gal_error *err)
{
    PangoFontDescription *desc = pango_font_description_from_string(font);
    g_auto(GStrv) families = g_strsplit(
        pango_font_description_get_family(desc) ? pango_font_description_get_family(desc) : "",
        ",", -1);
    g_autoptr(GPtrArray) wanted = g_ptr_array_new();
    g_autofree char *drawn = NULL;
    g_autofree char *guesses = NULL;
    g_autofree char *list = NULL;
    g_autofree char *shown = NULL;
    const char *among;

    pango_font_description_free(desc);
    for (int i = 0; families[i]; i++) {
        char *family = g_strstrip(families[i]);
        g_autofree char *instead = NULL;

        if (!*family)
            continue;
        if (is_generic_family(family) || family_installed(family, &instead))
            return 0;
        if (!drawn)
            drawn = g_steal_pointer(&instead);
        g_ptr_array_add(wanted, family);
    }
    /* Only a style and size ("Bold 12"): Pango's default family. */
    if (wanted->len == 0)
        return 0;
    among = wanted->len > 1 ? "in " : "";
    g_ptr_array_add(wanted, NULL);
    guesses = family_guesses((char **) wanted->pdata);
    list = g_strjoinv(", ", (char **) wanted->pdata);
    shown = gal__excerpt(list, GAL_EXCERPT_CHARS);
    if (*guesses)
        return gal_error_set(err, GAL_ERR_PRESET, loc, key,
            "no installed font family %s\"%s\"%s", among, shown, guesses);
    if (!drawn)
        return gal_error_set(err, GAL_ERR_PRESET, loc, key,
            "no installed font family %s\"%s\": fontconfig finds no font at all", among, shown);
    return gal_error_set(err, GAL_ERR_PRESET, loc, key,
        "no installed font family %s\"%s\": it would be drawn in \"%s\" instead; name an "
        "installed family (fc-list : family lists them), a generic one (sans, serif, "
        "monospace) or a font file beside the preset",
        among, shown, drawn);
}

int
gal__font_prepare(const char *font, const gal_loc *loc, gboolean follow_links, const char *key,
    char **family, gal_error *err)
{
    g_autofree char *file = NULL;
    g_autofree char *real = NULL;
    g_autofree char *within = NULL;
    g_autoptr(GError) error = NULL;
    gal_read_rules rules = { "font file", NULL, follow_links, gal__limits.font_bytes,
        GAL_ERR_PRESET };
    gal_error checked = { 0 };
    struct stat st;

    *family = NULL;
    if (!looks_like_font_file(font)) {
        if (check_families(font, loc, key, err))
            return -1;
        *family = g_strdup(font);
        return 0;
    }
    /* Like every path in a preset, relative to the folder of the preset
     * file it is written in; a --set value (no line) is the user's own,
     * relative to the working folder. */
    file = loc->file && loc->line > 0 ? gal__path_beside(loc->file, font)
                                      : g_canonicalize_filename(font, NULL);
    if (lstat(file, &st) != 0)
        return gal_error_set(err, GAL_ERR_PRESET, loc, key, "font file not found: %s",
            file);
    if (loc->file && loc->line > 0) {
        g_autofree char *dir = g_path_get_dirname(loc->file);

        within = g_canonicalize_filename(dir, NULL);
    }
    rules.within = within;
    if (gal__path_check(file, &rules, FALSE, &real, &checked))
        return gal_error_set(err, GAL_ERR_PRESET, loc, key, "%s", checked.msg);
    if (!(*family = gal__font_file_family(real, &error)))
        return gal_error_set(err, GAL_ERR_PRESET, loc, key, "%s", error->message);
    /* Given to libvips once, here: a font file passed to vips_text again
     * and again reads freed memory in 8.14 (see gal__font_file_register).
     * Layouts then ask for the family. */
    if (gal__font_file_register(real, *family, err)) {
        g_clear_pointer(family, g_free);
        return -1;
    }
    return 0;
}

