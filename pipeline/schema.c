/* schema.c: typed options from located nodes, driven by gal_param tables.
 * One parser per type serves user values and the defaults written in the
 * tables alike, so `gallop stages` shows exactly what the loader applies. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "error.h"
#include "fsio.h"
#include "node.h"
#include "schema.h"
#include "template.h"

const char *const gal__bool_words[] = { "true", "yes", "on", "false", "no", "off", NULL };
const char *const gal__choice_aliases[][2] = { { "center", "centre" }, { NULL, NULL } };

static const struct {
    const char *name;
    gal_color color;
} named_colors[] = {
    { "black", { 0, 0, 0, 255, FALSE } },
    { "white", { 255, 255, 255, 255, FALSE } },
    { "transparent", { 0, 0, 0, 0, FALSE } },
    { "none", { 0, 0, 0, 0, FALSE } }, /* "band: none" reads better than transparent */
};

const char *
gal__color_name(size_t i)
{
    return i < G_N_ELEMENTS(named_colors) ? named_colors[i].name : NULL;
}

char *
gal__param_key(const gal_param *param)
{
    return g_strdelimit(g_strdup(param->field), "_", '-');
}

const char *
gal__type_name(gal_type type)
{
    switch (type) {
    case GAL_T_BOOL: return "bool";
    case GAL_T_INT: return "int";
    case GAL_T_DOUBLE: return "number";
    case GAL_T_STRING: return "string";
    case GAL_T_PATH: return "file";
    case GAL_T_DIR: return "folder";
    case GAL_T_ENUM: return "choice";
    case GAL_T_COLOR: return "colour";
    case GAL_T_LENGTH: return "length";
    case GAL_T_SIZE: return "size";
    case GAL_T_STRLIST: return "list";
    case GAL_T_PATHLIST: return "paths";
    case GAL_T_TEMPLATE: return "template";
    case GAL_T_RATIO: return "ratio";
    case GAL_T_INTLIST: return "int list";
    case GAL_T_ENUMLIST: return "choices";
    case GAL_T_SHARPENING: return "sharpening";
    }
    return "?";
}

static const char *
kind_name(const gal_node *node)
{
    switch (node->kind) {
    case GAL_NODE_MAP: return "a mapping";
    case GAL_NODE_SEQ: return "a list";
    default: return "a scalar";
    }
}

/* The key path for errors: "resize.width". */
static char *
key_path(const gal_section *sec, const gal_param *param)
{
    g_autofree char *key = gal__param_key(param);

    return sec->name ? g_strdup_printf("%s.%s", sec->name, key) : g_steal_pointer(&key);
}

static int
value_error(gal_error *err, const gal_section *sec, const gal_param *param,
    const gal_node *value, const char *fmt, ...) G_GNUC_PRINTF(5, 6);

static int
value_error(gal_error *err, const gal_section *sec, const gal_param *param,
    const gal_node *value, const char *fmt, ...)
{
    g_autofree char *path = key_path(sec, param);
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return gal_error_set(err, GAL_ERR_PRESET, &value->loc, path, "%s", msg);
}

static gboolean
parse_int(const char *text, long long *out)
{
    char *end;

    errno = 0;
    *out = strtoll(text, &end, 10);
    return errno == 0 && end != text && *end == '\0';
}

static gboolean
parse_double(const char *text, double *out)
{
    char *end;

    errno = 0;
    *out = g_ascii_strtod(text, &end);
    return errno == 0 && end != text && *end == '\0' && isfinite(*out);
}

static int
hex_digit(char c)
{
    return g_ascii_isxdigit(c) ? g_ascii_xdigit_value(c) : -1;
}

int
gal__color_parse(const char *text, gal_color *out)
{
    size_t n = strlen(text);
    int digits[8];

    for (size_t i = 0; i < G_N_ELEMENTS(named_colors); i++)
        if (g_ascii_strcasecmp(text, named_colors[i].name) == 0) {
            *out = named_colors[i].color;
            return 0;
        }
    if (text[0] != '#' || !(n == 4 || n == 5 || n == 7 || n == 9))
        return -1;
    for (size_t i = 1; i < n; i++)
        if ((digits[i - 1] = hex_digit(text[i])) < 0)
            return -1;
    if (n <= 5) {
        /* #rgb(a): each digit doubled, as in CSS */
        double c[4] = { 0, 0, 0, 255 };

        for (size_t i = 0; i < n - 1; i++)
            c[i] = digits[i] * 17;
        *out = (gal_color) { c[0], c[1], c[2], c[3], FALSE };
    }
    else {
        double c[4] = { 0, 0, 0, 255 };

        for (size_t i = 0; i < (n - 1) / 2; i++)
            c[i] = digits[2 * i] * 16 + digits[2 * i + 1];
        *out = (gal_color) { c[0], c[1], c[2], c[3], FALSE };
    }
    return 0;
}

int
gal__length_px(const gal_length *len, int reference)
{
    if (len->relative)
        return (int) lround(len->value * reference / 100.0);
    return (int) lround(len->value);
}

/* Relative paths resolve against the folder of the preset file the value
 * came from; a value given with --set (no line) against the working
 * folder. */
static char *
resolve_path(const gal_node *value)
{
    if (value->loc.line == 0 || !value->loc.file)
        return g_canonicalize_filename(value->text, NULL);
    return gal__path_beside(value->loc.file, value->text);
}

char *
gal__path_beside(const char *file, const char *path)
{
    g_autofree char *dir = g_path_get_dirname(file);
    /* The preset may itself be named by a relative path. */
    g_autofree char *base = g_canonicalize_filename(dir, NULL);

    return g_canonicalize_filename(path, base);
}

static int
parse_list(const gal_section *sec, const gal_param *param, const gal_node *value,
    gboolean paths, char ***out, gal_error *err)
{
    /* On error the strings go with the array; on success, a strv is stolen. */
    GPtrArray *items = g_ptr_array_new_with_free_func(g_free);

    if (value->kind == GAL_NODE_MAP) {
        g_ptr_array_free(items, TRUE);
        return value_error(err, sec, param, value, "expected a list, got a mapping");
    }
    if (value->kind == GAL_NODE_SCALAR) {
        if (!value->is_null)
            g_ptr_array_add(items, paths ? resolve_path(value) : g_strdup(value->text));
    }
    else
        for (guint i = 0; i < value->items->len; i++) {
            const gal_node *item = value->items->pdata[i];

            if (item->kind != GAL_NODE_SCALAR) {
                g_ptr_array_free(items, TRUE);
                return value_error(err, sec, param, item,
                    "expected a list of strings, got %s in the list", kind_name(item));
            }
            g_ptr_array_add(items, paths ? resolve_path(item) : g_strdup(item->text));
        }
    g_ptr_array_add(items, NULL);
    g_strfreev(*out);
    *out = (char **) g_ptr_array_free(items, FALSE);
    return 0;
}

static int
parse_enum(const gal_section *sec, const gal_param *param, const gal_node *value,
    int *out, gal_error *err)
{
    const char *text = value->text;
    g_autofree char *list = NULL;
    g_autofree char *shown = gal__excerpt(value->text, GAL_EXCERPT_CHARS);
    const char *guess;

    /* Both spellings of centre are common in presets. */
    for (int i = 0; gal__choice_aliases[i][0]; i++)
        if (g_ascii_strcasecmp(text, gal__choice_aliases[i][0]) == 0)
            text = gal__choice_aliases[i][1];
    for (int i = 0; param->choices[i]; i++)
        if (g_ascii_strcasecmp(text, param->choices[i]) == 0) {
            *out = i;
            return 0;
        }
    list = g_strjoinv(", ", (char **) param->choices);
    guess = gal__did_you_mean(text, param->choices);
    if (guess)
        return value_error(err, sec, param, value,
            "expected one of %s, got \"%s\" (did you mean \"%s\"?)", list, shown, guess);
    return value_error(err, sec, param, value, "expected one of %s, got \"%s\"", list, shown);
}

static int
parse_length(const gal_section *sec, const gal_param *param, const gal_node *value,
    gal_length *out, gal_error *err)
{
    g_autofree char *text = g_strstrip(g_strdup(value->text));
    g_autofree char *shown = gal__excerpt(value->text, GAL_EXCERPT_CHARS);
    size_t n = strlen(text);
    gal_length len = { 0 };

    if (n > 1 && text[n - 1] == '%') {
        text[n - 1] = '\0';
        len.relative = TRUE;
    }
    else if (n > 2 && g_str_has_suffix(text, "px"))
        text[n - 2] = '\0';
    g_strchomp(text);
    if (!parse_double(text, &len.value))
        return value_error(err, sec, param, value,
            "expected a length in pixels (24 or 24px) or a percentage (3.5%%), got \"%s\"",
            shown);
    if (len.relative && (len.value < 0 || len.value > 100))
        return value_error(err, sec, param, value,
            "a percentage must be between 0%% and 100%%, got %s", shown);
    if (!len.relative && (len.value < param->min || len.value > param->max))
        return value_error(err, sec, param, value,
            "must be between %g and %g px, got %s", param->min, param->max, shown);
    *out = len;
    return 0;
}

/* One term of a ratio: decimal digits only, from param->min to ->max. */
static gboolean
ratio_term(const gal_param *param, const char *text, int *out)
{
    long long v;

    if (!*text || strspn(text, "0123456789") != strlen(text) || !parse_int(text, &v) ||
        v < param->min || v > param->max)
        return FALSE;
    *out = (int) v;
    return TRUE;
}

/* "3:2": width and height, each a whole number from min to max; spaces
 * around the terms are allowed. */
static int
parse_ratio(const gal_section *sec, const gal_param *param, const gal_node *value,
    gal_ratio *out, gal_error *err)
{
    g_autofree char *shown = gal__excerpt(value->text, GAL_EXCERPT_CHARS);
    g_auto(GStrv) terms = g_strsplit(value->text, ":", -1);
    gal_ratio ratio;

    if (g_strv_length(terms) != 2 || !ratio_term(param, g_strstrip(terms[0]), &ratio.w) ||
        !ratio_term(param, g_strstrip(terms[1]), &ratio.h))
        return value_error(err, sec, param, value,
            "expected width:height such as 1:1, 4:5 or 3:2, each from %g to %g, got \"%s\"",
            param->min, param->max, shown);
    *out = ratio;
    return 0;
}

int
gal__size_px(const gal_size *size, int reference)
{
    int px = gal__length_px(&size->length, reference);

    if (size->min_px > 0)
        px = MAX(px, size->min_px);
    if (size->max_px > 0)
        px = MIN(px, size->max_px);
    return px;
}

/* `15%`, `120px`, or `{relative: 15%, min: 64, max: 400}`. */
static int
parse_size(const gal_section *sec, const gal_param *param, const gal_node *value,
    gal_size *out, gal_error *err)
{
    gal_size size = { 0 };
    gboolean have_length = FALSE;

    if (value->kind == GAL_NODE_SCALAR) {
        if (parse_length(sec, param, value, &size.length, err))
            return -1;
        *out = size;
        return 0;
    }
    if (value->kind != GAL_NODE_MAP)
        return value_error(err, sec, param, value,
            "expected a length (15%%, 120px) or {relative: 15%%, min: 64, max: 400}, got a list");
    for (guint i = 0; i < value->keys->len; i++) {
        const gal_node *key = value->keys->pdata[i];
        const gal_node *v = value->items->pdata[i];
        g_autofree char *shown = gal__excerpt(
            v->kind == GAL_NODE_SCALAR ? v->text : "a collection", GAL_EXCERPT_CHARS);
        g_autofree char *key_shown = gal__excerpt(key->text, GAL_EXCERPT_CHARS);
        long long px;

        if (strcmp(key->text, "relative") == 0) {
            if (v->kind != GAL_NODE_SCALAR || parse_length(sec, param, v, &size.length, err))
                return v->kind != GAL_NODE_SCALAR
                    ? value_error(err, sec, param, v, "relative: expected a length such as 15%%")
                    : -1;
            have_length = TRUE;
        }
        else if (strcmp(key->text, "min") == 0 || strcmp(key->text, "max") == 0) {
            if (v->kind != GAL_NODE_SCALAR || !parse_int(v->text, &px) || px < 0 ||
                px > param->max)
                return value_error(err, sec, param, v,
                    "%s: expected whole pixels between 0 and %g, got \"%s\"", key->text,
                    param->max, shown);
            *(key->text[1] == 'i' ? &size.min_px : &size.max_px) = (int) px;
        }
        else
            return value_error(err, sec, param, key,
                "unknown key \"%s\" in a size; sizes take relative, min and max", key_shown);
    }
    if (!have_length)
        return value_error(err, sec, param, value, "a size mapping needs relative: (e.g. 15%%)");
    if (size.min_px && size.max_px && size.min_px > size.max_px)
        return value_error(err, sec, param, value, "min (%d) is larger than max (%d)",
            size.min_px, size.max_px);
    *out = size;
    return 0;
}

const char *const gal__media[] = { "screen", "matte", "glossy", NULL };

/* A sharpening amount for screen, or {for: medium, amount: amount}; an
 * amount left out of the mapping is the key's default's. */
static int
parse_sharpening(const gal_section *sec, const gal_param *param, const gal_node *value,
    gal_sharpening *out, gal_error *err)
{
    gal_param medium = *param;
    gal_sharpening s = { 0, 0 };

    medium.choices = gal__media;
    if (value->kind == GAL_NODE_SCALAR) {
        if (parse_enum(sec, param, value, &s.amount, err))
            return -1;
        *out = s;
        return 0;
    }
    if (value->kind != GAL_NODE_MAP)
        return value_error(err, sec, param, value,
            "expected an amount (none, low, standard, high) or {for: screen|matte|glossy, "
            "amount: ...}, got a list");
    s.amount = -1;
    for (guint i = 0; i < value->keys->len; i++) {
        const gal_node *key = value->keys->pdata[i];
        const gal_node *v = value->items->pdata[i];
        g_autofree char *key_shown = gal__excerpt(key->text, GAL_EXCERPT_CHARS);

        if (strcmp(key->text, "for") != 0 && strcmp(key->text, "amount") != 0)
            return value_error(err, sec, param, key,
                "unknown key \"%s\" in sharpening; it takes for and amount", key_shown);
        if (v->kind != GAL_NODE_SCALAR)
            return value_error(err, sec, param, v, "%s: expected a choice, got %s", key->text,
                kind_name(v));
        if (key->text[0] == 'f' ? parse_enum(sec, &medium, v, &s.medium, err)
                                : parse_enum(sec, param, v, &s.amount, err))
            return -1;
    }
    if (s.amount < 0)
        s.amount = out->amount; /* the default's, filled in first */
    *out = s;
    return 0;
}

/* A list of whole numbers or choices: each item parsed as the one-value
 * key would be (same ranges, same messages, at the item's place). */
static int
parse_int_list(const gal_section *sec, const gal_param *param, const gal_node *value,
    gal_int_list *out, gal_error *err)
{
    gal_param one = *param;
    g_autofree int *items = g_new0(int, GAL_LIST_MAX);
    int n = 0;

    one.type = param->type == GAL_T_INTLIST ? GAL_T_INT : GAL_T_ENUM;
    one.offset = 0;
    if (value->kind == GAL_NODE_MAP)
        return value_error(err, sec, param, value, "expected a list, got a mapping");
    for (guint i = 0; value->kind == GAL_NODE_SCALAR ? i < (value->is_null ? 0u : 1u)
                                                      : i < value->items->len;
         i++) {
        const gal_node *item = value->kind == GAL_NODE_SCALAR ? value : value->items->pdata[i];
        int v = 0;

        if (n == GAL_LIST_MAX)
            return value_error(err, sec, param, item, "more than %d items", GAL_LIST_MAX);
        if (gal__schema_parse_value(sec, &one, item, &v, err))
            return -1;
        for (int k = 0; k < n; k++)
            if (items[k] == v)
                return value_error(err, sec, param, item, "\"%s\" is in the list twice",
                    item->text);
        items[n++] = v;
    }
    g_free(out->items);
    out->n = n;
    out->items = n ? g_steal_pointer(&items) : NULL;
    return 0;
}

int
gal__schema_parse_value(const gal_section *sec, const gal_param *param,
    const gal_node *value, void *opts, gal_error *err)
{
    const char *text = value->text;
    g_autofree char *shown = NULL;

    if (param->type == GAL_T_STRLIST || param->type == GAL_T_PATHLIST)
        return parse_list(sec, param, value, param->type == GAL_T_PATHLIST,
            GAL_PARAM_FIELD(opts, param, char **), err);
    if (param->type == GAL_T_INTLIST || param->type == GAL_T_ENUMLIST)
        return parse_int_list(sec, param, value, GAL_PARAM_FIELD(opts, param, gal_int_list), err);
    if (param->type == GAL_T_SIZE)
        return parse_size(sec, param, value, GAL_PARAM_FIELD(opts, param, gal_size), err);
    if (param->type == GAL_T_SHARPENING)
        return parse_sharpening(sec, param, value, GAL_PARAM_FIELD(opts, param, gal_sharpening),
            err);
    if (value->kind != GAL_NODE_SCALAR) {
        const char *type = gal__type_name(param->type);

        return value_error(err, sec, param, value, "expected %s %s, got %s",
            strchr("aeiou", type[0]) ? "an" : "a", type, kind_name(value));
    }
    /* Messages quote a value only so far: it may be a whole caption. */
    shown = gal__excerpt(text, GAL_EXCERPT_CHARS);

    switch (param->type) {
    case GAL_T_BOOL:
        for (int i = 0; gal__bool_words[i]; i++)
            if (g_ascii_strcasecmp(text, gal__bool_words[i]) == 0) {
                *GAL_PARAM_FIELD(opts, param, bool) = i < 3; /* the first three say yes */
                return 0;
            }
        return value_error(err, sec, param, value, "expected true or false, got \"%s\"", shown);
    case GAL_T_INT: {
        long long v;

        if ((param->flags & GAL_AUTO) && g_ascii_strcasecmp(text, "auto") == 0) {
            *GAL_PARAM_FIELD(opts, param, int) = 0;
            return 0;
        }
        if (!parse_int(text, &v))
            return value_error(err, sec, param, value, "expected a whole number%s, got \"%s\"",
                (param->flags & GAL_AUTO) ? " or auto" : "", shown);
        if (v < param->min || v > param->max)
            return value_error(err, sec, param, value, "must be between %g and %g, got %lld",
                param->min, param->max, v);
        *GAL_PARAM_FIELD(opts, param, int) = (int) v;
        return 0;
    }
    case GAL_T_DOUBLE: {
        double v;

        if (!parse_double(text, &v))
            return value_error(err, sec, param, value, "expected a number, got \"%s\"", shown);
        if (v < param->min || v > param->max)
            return value_error(err, sec, param, value, "must be between %g and %g, got %s",
                param->min, param->max, shown);
        *GAL_PARAM_FIELD(opts, param, double) = v;
        return 0;
    }
    case GAL_T_STRING:
        g_free(*GAL_PARAM_FIELD(opts, param, char *));
        *GAL_PARAM_FIELD(opts, param, char *) = g_strdup(text);
        return 0;
    case GAL_T_PATH:
    case GAL_T_DIR: {
        g_autofree char *path = resolve_path(value);

        if (param->type == GAL_T_PATH) {
            static const gal_read_rules any = { NULL, NULL, TRUE, 0, GAL_ERR_PRESET };
            gal_error kind = { 0 };
            struct stat st;

            if (lstat(path, &st) != 0)
                return value_error(err, sec, param, value, "file not found: %s", path);
            /* A FIFO, a folder, a link to nothing: said in those words. */
            if (gal__path_check(path, &any, FALSE, NULL, &kind))
                return value_error(err, sec, param, value, "%s", kind.msg);
        }
        g_free(*GAL_PARAM_FIELD(opts, param, char *));
        *GAL_PARAM_FIELD(opts, param, char *) = g_steal_pointer(&path);
        return 0;
    }
    case GAL_T_ENUM:
        return parse_enum(sec, param, value, GAL_PARAM_FIELD(opts, param, int), err);
    case GAL_T_COLOR:
        if ((param->flags & GAL_AUTO) && g_ascii_strcasecmp(text, "auto") == 0) {
            *GAL_PARAM_FIELD(opts, param, gal_color) = (gal_color) { .a = 255, .automatic = TRUE };
            return 0;
        }
        if (gal__color_parse(text, GAL_PARAM_FIELD(opts, param, gal_color)))
            return value_error(err, sec, param, value,
                "expected a colour like \"#rrggbb\", \"#rrggbbaa\", \"#rgb\", white, "
                "black%s, got \"%s\"",
                (param->flags & GAL_AUTO) ? ", transparent or auto" : " or transparent", shown);
        return 0;
    case GAL_T_LENGTH:
        return parse_length(sec, param, value, GAL_PARAM_FIELD(opts, param, gal_length), err);
    case GAL_T_TEMPLATE: {
        g_autoptr(GError) error = NULL;
        gal_template *tpl;
        long chars = 0;

        /* Characters, as a reader counts them; a --set value need not be
         * valid UTF-8, so lead bytes are counted rather than decoded. */
        for (const char *c = text; param->max > 0 && *c; c++)
            chars += ((guchar) *c & 0xc0) != 0x80;
        if (chars > param->max)
            return value_error(err, sec, param, value,
                "a text of %ld characters (\"%s\"), longer than the %g this key takes", chars,
                shown, param->max);
        tpl = gal__template_parse(text, &error);
        if (!tpl)
            return value_error(err, sec, param, value, "%s", error->message);
        gal__template_free(*GAL_PARAM_FIELD(opts, param, gal_template *));
        *GAL_PARAM_FIELD(opts, param, gal_template *) = tpl;
        return 0;
    }
    case GAL_T_RATIO:
        return parse_ratio(sec, param, value, GAL_PARAM_FIELD(opts, param, gal_ratio), err);
    case GAL_T_STRLIST:
    case GAL_T_PATHLIST:
    case GAL_T_INTLIST:
    case GAL_T_ENUMLIST:
    case GAL_T_SIZE:
    case GAL_T_SHARPENING:
        break; /* handled above */
    }
    return value_error(err, sec, param, value, "internal error: unknown type");
}

/* A file a preset names: "is a FIFO", "is reached through a symbolic link
 * that leads out of ...", or its real path. */
static int
check_file(const gal_section *sec, const gal_param *p, char **value, const gal_loc *loc,
    gboolean follow_links, gal_errors *errs)
{
    g_autofree char *key = key_path(sec, p);
    g_autofree char *within = NULL;
    g_autofree char *real = NULL;
    gal_error err = { 0 };
    gal_read_rules rules = { NULL, NULL, follow_links, 0, GAL_ERR_PRESET };

    /* A --set value (no line) is the user's own: relative to the working
     * folder, links followed. */
    if (loc->file && loc->line > 0) {
        g_autofree char *dir = g_path_get_dirname(loc->file);

        within = g_canonicalize_filename(dir, NULL);
    }
    rules.within = within;
    /* A list may name what is not there yet (an export folder): its
     * reader says so in its own words. */
    if (p->type == GAL_T_PATHLIST && lstat(*value, &(struct stat) { 0 }) != 0)
        return 0;
    if (gal__path_check(*value, &rules, p->type == GAL_T_PATHLIST, &real, &err)) {
        err.line = loc->line;
        err.col = loc->col;
        if (loc->file)
            gal__utf8_copy(err.file, loc->file, sizeof(err.file));
        gal__utf8_copy(err.key, key, sizeof(err.key));
        gal__errors_add(errs, &err);
        return -1;
    }
    g_free(*value);
    *value = g_steal_pointer(&real);
    return 0;
}

int
gal__schema_check_files(const gal_section *sec, void *opts, const gal_loc *locs,
    gboolean follow_links, gal_errors *errs)
{
    int failed = 0;

    for (const gal_param *p = sec->params; p->field; p++) {
        const gal_loc *loc = &locs[p - sec->params];

        if (p->type == GAL_T_PATH && *GAL_PARAM_FIELD(opts, p, char *))
            failed |= check_file(sec, p, GAL_PARAM_FIELD(opts, p, char *), loc, follow_links, errs);
        else if (p->type == GAL_T_PATHLIST)
            for (char **v = *GAL_PARAM_FIELD(opts, p, char **); v && *v; v++)
                failed |= check_file(sec, p, v, loc, follow_links, errs);
    }
    return failed;
}

static const gal_param *
find_param(const gal_section *sec, const char *key)
{
    for (const gal_param *p = sec->params; p->field; p++) {
        g_autofree char *k = gal__param_key(p);

        if (strcmp(k, key) == 0)
            return p;
    }
    return NULL;
}

static char **
param_keys(const gal_section *sec)
{
    GPtrArray *keys = g_ptr_array_new();

    for (const gal_param *p = sec->params; p->field; p++)
        g_ptr_array_add(keys, gal__param_key(p));
    g_ptr_array_add(keys, NULL);
    return (char **) g_ptr_array_free(keys, FALSE);
}

/* Defaults are preset text; a list default is written "a,b,c". */
static gal_node *
default_node(const gal_param *p)
{
    gal_node *node;
    g_auto(GStrv) items = NULL;

    if (p->type != GAL_T_STRLIST && p->type != GAL_T_PATHLIST && p->type != GAL_T_INTLIST &&
        p->type != GAL_T_ENUMLIST)
        return gal__node_new_scalar(p->def, NULL);
    node = gal__node_new(GAL_NODE_SEQ, NULL);
    items = g_strsplit(p->def, ",", -1);
    for (int i = 0; items[i]; i++)
        g_ptr_array_add(node->items, gal__node_new_scalar(items[i], NULL));
    return node;
}

int
gal__schema_fill(const gal_section *sec, const gal_node *map, void **opts_out,
    gal_loc *locs, gal_errors *errs)
{
    void *opts = g_malloc0(sec->opts_size);
    int failed = 0;
    int i = 0;

    /* Defaults first, through the same parser as user values. */
    for (const gal_param *p = sec->params; p->field; p++, i++) {
        if (locs)
            locs[i] = map ? map->loc : (gal_loc) { 0 };
        if (p->def) {
            gal_node *def = default_node(p);
            gal_error err = { 0 };

            /* A default that does not parse is a bug in the table: the unit
             * test that loads every stage's defaults catches it. */
            if (gal__schema_parse_value(sec, p, def, opts, &err)) {
                gal__errors_add(errs, &err);
                failed = -1;
            }
            gal__node_free(def);
        }
    }

    if (map && map->kind != GAL_NODE_MAP && !(map->kind == GAL_NODE_SCALAR && map->is_null)) {
        gal__errors_push(errs, GAL_ERR_PRESET, &map->loc, sec->name,
            "expected a mapping of keys, got %s", kind_name(map));
        *opts_out = opts;
        return -1;
    }

    for (guint k = 0; map && map->kind == GAL_NODE_MAP && k < map->keys->len; k++) {
        const gal_node *key = map->keys->pdata[k];
        const gal_node *value = map->items->pdata[k];
        const gal_param *p = find_param(sec, key->text);
        gal_error err = { 0 };

        if (!p) {
            g_auto(GStrv) keys = param_keys(sec);
            g_autofree char *list = g_strjoinv(", ", keys);
            g_autofree char *path = sec->name ? g_strdup_printf("%s.%s", sec->name, key->text)
                                              : g_strdup(key->text);
            const char *guess = gal__did_you_mean(key->text, (const char *const *) keys);

            if (guess)
                gal__errors_push(errs, GAL_ERR_PRESET, &key->loc, path,
                    "unknown key (did you mean \"%s\"?)", guess);
            else
                gal__errors_push(errs, GAL_ERR_PRESET, &key->loc, path,
                    "unknown key; valid keys are %s", list);
            failed = -1;
            continue;
        }
        /* `key: ~` keeps the default, as it does under extends and --set;
         * an empty list is written []. */
        if (value->kind == GAL_NODE_SCALAR && value->is_null)
            continue;
        if (gal__schema_parse_value(sec, p, value, opts, &err)) {
            gal__errors_add(errs, &err);
            failed = -1;
        }
        else if (locs)
            locs[p - sec->params] = value->loc;
    }

    for (const gal_param *p = sec->params; p->field; p++)
        if (p->flags & GAL_REQUIRED) {
            g_autofree char *key = gal__param_key(p);

            if (map && map->kind == GAL_NODE_MAP && gal__node_get(map, key))
                continue;
            gal__errors_push(errs, GAL_ERR_PRESET, map ? &map->loc : NULL, sec->name,
                "missing required key \"%s\"", key);
            failed = -1;
        }

    *opts_out = opts;
    return failed;
}

void
gal__schema_free(const gal_section *sec, void *opts)
{
    if (!opts)
        return;
    for (const gal_param *p = sec->params; p->field; p++)
        switch (p->type) {
        case GAL_T_STRING:
        case GAL_T_PATH:
        case GAL_T_DIR:
            g_free(*GAL_PARAM_FIELD(opts, p, char *));
            break;
        case GAL_T_STRLIST:
        case GAL_T_PATHLIST:
            g_strfreev(*GAL_PARAM_FIELD(opts, p, char **));
            break;
        case GAL_T_INTLIST:
        case GAL_T_ENUMLIST:
            g_free(GAL_PARAM_FIELD(opts, p, gal_int_list)->items);
            break;
        case GAL_T_TEMPLATE:
            gal__template_free(*GAL_PARAM_FIELD(opts, p, gal_template *));
            break;
        default:
            break;
        }
    g_free(opts);
}
