/* schema_json.c: the JSON Schema (draft 2020-12) of a preset, made from the
 * same gal_param tables the loader reads, for editors and for the tests
 * that check presets/gallop.schema.json is up to date.
 *
 * The schema sees a preset as an editor does: YAML 1.2 turned into JSON,
 * where `82` is a number and `"82"` a string, while gallop reads every
 * scalar as text and lets the key's type decide. So each type accepts both
 * forms: numbers and their text, booleans and yes/no/on/off, any scalar
 * where gallop wants text. Null resets a key to its default wherever
 * gallop allows it. A merge key (`<<`) is taken as a key whose value is the
 * merged mapping (or a list of them), as editors that do not apply merges
 * see it. What only gallop can tell (files that exist, rules between keys
 * such as the watermark's image or text, the range of a quoted decimal
 * number) the schema leaves to `gallop check`. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "captions.h"
#include "preset.h"
#include "schema.h"
#include "stage.h"
#include "template.h"

/* ---- a small JSON tree, written in a fixed layout ----------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jkind;

typedef struct jv {
    jkind kind;
    gboolean boolean;
    double number;
    char *string;
    GPtrArray *keys;  /* OBJECT: char * */
    GPtrArray *items; /* ARRAY items, OBJECT values: jv * */
} jv;

static void
j_free(gpointer p)
{
    jv *v = p;

    if (!v)
        return;
    g_free(v->string);
    if (v->keys)
        g_ptr_array_free(v->keys, TRUE);
    if (v->items)
        g_ptr_array_free(v->items, TRUE);
    g_free(v);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(jv, j_free)

static jv *
j_new(jkind kind)
{
    jv *v = g_new0(jv, 1);

    v->kind = kind;
    if (kind == J_ARRAY || kind == J_OBJECT)
        v->items = g_ptr_array_new_with_free_func(j_free);
    if (kind == J_OBJECT)
        v->keys = g_ptr_array_new_with_free_func(g_free);
    return v;
}

static jv *
j_str(const char *text)
{
    jv *v = j_new(J_STRING);

    v->string = g_strdup(text);
    return v;
}

static jv *
j_num(double number)
{
    jv *v = j_new(J_NUMBER);

    v->number = number;
    return v;
}

static jv *
j_bool(gboolean b)
{
    jv *v = j_new(J_BOOL);

    v->boolean = b;
    return v;
}

/* Adds `value` (owned) under `key`, replacing none: keys are set once. */
static jv *
j_set(jv *object, const char *key, jv *value)
{
    g_ptr_array_add(object->keys, g_strdup(key));
    g_ptr_array_add(object->items, value);
    return object;
}

static jv *
j_push(jv *array, jv *value)
{
    g_ptr_array_add(array->items, value);
    return array;
}

/* {"type": "null"}, {"type": "string"}... */
static jv *
j_type(const char *type)
{
    return j_set(j_new(J_OBJECT), "type", j_str(type));
}

/* {"type": [a, b, ...]} from a NULL-terminated list. */
static jv *
j_types(const char *const *types)
{
    jv *list = j_new(J_ARRAY);

    for (int i = 0; types[i]; i++)
        j_push(list, j_str(types[i]));
    return j_set(j_new(J_OBJECT), "type", list);
}

static jv *
j_ref(const char *def)
{
    g_autofree char *ref = g_strdup_printf("#/$defs/%s", def);

    return j_set(j_new(J_OBJECT), "$ref", j_str(ref));
}

/* {"anyOf": [a, b]} or with a third (NULL for none). */
static jv *
j_any_of(jv *a, jv *b, jv *c)
{
    jv *list = j_push(j_push(j_new(J_ARRAY), a), b);

    if (c)
        j_push(list, c);
    return j_set(j_new(J_OBJECT), "anyOf", list);
}

/* {"required": [keys...]} from a NULL-terminated list. ajv's strict mode
 * wants each key defined beside it, so "properties" names them too (their
 * schemas are where the keys are). */
static jv *
j_required(const char *const *keys)
{
    jv *list = j_new(J_ARRAY);
    jv *props = j_new(J_OBJECT);

    for (int i = 0; keys[i]; i++) {
        j_push(list, j_str(keys[i]));
        j_set(props, keys[i], j_bool(TRUE));
    }
    return j_set(j_set(j_new(J_OBJECT), "required", list), "properties", props);
}

/* For "if": a merge key may bring what is missing. */
static jv *
has_merge_key(void)
{
    return j_required((const char *const[]) { "<<", NULL });
}

static jv *
j_pattern(const char *pattern)
{
    return j_set(j_type("string"), "pattern", j_str(pattern));
}

/* The shortest text that reads back as the same double. */
static void
append_number(GString *out, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    if (v == floor(v) && fabs(v) < 1e15) {
        g_string_append_printf(out, "%.0f", v);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        char format[8];

        g_snprintf(format, sizeof(format), "%%.%dg", digits);
        g_ascii_formatd(buf, sizeof(buf), format, v);
        if (g_ascii_strtod(buf, NULL) == v)
            break;
    }
    g_string_append(out, buf);
}

static void
append_string(GString *out, const char *text)
{
    g_string_append_c(out, '"');
    for (const char *c = text; *c; c++) {
        switch (*c) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\t': g_string_append(out, "\\t"); break;
        default:
            if ((guchar) *c < 0x20)
                g_string_append_printf(out, "\\u%04x", (guchar) *c);
            else
                g_string_append_c(out, *c); /* UTF-8 stays as it is */
        }
    }
    g_string_append_c(out, '"');
}

/* Two spaces per level, one member or item per line. */
static void
j_write(GString *out, const jv *v, int depth)
{
    switch (v->kind) {
    case J_NULL: g_string_append(out, "null"); return;
    case J_BOOL: g_string_append(out, v->boolean ? "true" : "false"); return;
    case J_NUMBER: append_number(out, v->number); return;
    case J_STRING: append_string(out, v->string); return;
    case J_ARRAY:
    case J_OBJECT:
        break;
    }
    if (v->items->len == 0) {
        g_string_append(out, v->kind == J_ARRAY ? "[]" : "{}");
        return;
    }
    g_string_append(out, v->kind == J_ARRAY ? "[\n" : "{\n");
    for (guint i = 0; i < v->items->len; i++) {
        g_string_append_printf(out, "%*s", 2 * (depth + 1), "");
        if (v->kind == J_OBJECT) {
            append_string(out, v->keys->pdata[i]);
            g_string_append(out, ": ");
        }
        j_write(out, v->items->pdata[i], depth + 1);
        g_string_append(out, i + 1 < v->items->len ? ",\n" : "\n");
    }
    g_string_append_printf(out, "%*s%c", 2 * depth, "", v->kind == J_ARRAY ? ']' : '}');
}

/* ---- regular expressions (ECMA-262, as JSON Schema has them) ------------------ */

/* What C's isspace() and GLib's g_strstrip() skip. */
#define WS "[ \\t\\n\\v\\f\\r]"
/* A decimal or hexadecimal number as strtod() reads it. */
#define NUMBER \
    "[+-]?(([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?" \
    "|0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?)"

/* `word` in any case: "[Oo][Ff][Ff]". */
static void
append_any_case(GString *out, const char *word)
{
    for (const char *c = word; *c; c++) {
        if (g_ascii_isalpha(*c))
            g_string_append_printf(out, "[%c%c]", g_ascii_toupper(*c), g_ascii_tolower(*c));
        else if (strchr("^$\\.*+?()[]{}|/", *c))
            g_string_append_printf(out, "\\%c", *c);
        else
            g_string_append_c(out, *c);
    }
}

/* "^(a|b|c)$" with each word in any case. */
static char *
any_case_words(const char *const *words)
{
    GString *out = g_string_new("^(");

    for (int i = 0; words[i]; i++) {
        if (i)
            g_string_append_c(out, '|');
        append_any_case(out, words[i]);
    }
    g_string_append(out, ")$");
    return g_string_free(out, FALSE);
}

/* The numbers of `lo`..`hi`, two texts of equal length, as a regular
 * expression of digits. */
static void
append_digits_range(GString *out, const char *lo, const char *hi)
{
    size_t n = strlen(lo);
    gboolean lo_rest_zero = strspn(lo + 1, "0") == n - 1;
    gboolean hi_rest_nine = strspn(hi + 1, "9") == n - 1;

    if (n == 1) {
        if (lo[0] == hi[0])
            g_string_append_c(out, lo[0]);
        else
            g_string_append_printf(out, "[%c-%c]", lo[0], hi[0]);
        return;
    }
    if (lo[0] == hi[0]) {
        g_string_append_c(out, lo[0]);
        append_digits_range(out, lo + 1, hi + 1);
        return;
    }
    if (lo_rest_zero && hi_rest_nine) {
        g_string_append_printf(out, "[%c-%c][0-9]{%zu}", lo[0], hi[0], n - 1);
        return;
    }
    {
        g_autofree char *nines = g_strnfill(n - 1, '9');
        g_autofree char *zeros = g_strnfill(n - 1, '0');
        char first = lo[0], last = hi[0];

        g_string_append(out, "(");
        if (lo_rest_zero)
            first--; /* the whole decade of lo[0] goes in the middle part */
        else {
            g_string_append_c(out, lo[0]);
            append_digits_range(out, lo + 1, nines);
            g_string_append_c(out, '|');
        }
        if (hi_rest_nine)
            last++;
        if (first + 1 <= last - 1)
            g_string_append_printf(out, "[%c-%c][0-9]{%zu}|", first + 1, last - 1, n - 1);
        if (!hi_rest_nine) {
            g_string_append_c(out, hi[0]);
            append_digits_range(out, zeros, hi + 1);
        }
        else
            g_string_truncate(out, out->len - 1); /* the trailing '|' */
        g_string_append(out, ")");
    }
}

/* Whole numbers from lo to hi (both >= 0), written without leading zeros,
 * as an alternation. */
static void
append_int_range(GString *out, long long lo, long long hi)
{
    gboolean first = TRUE;

    g_string_append(out, "(");
    /* Numbers of 1, 2, 3... digits in turn: [10^(d-1), 10^d - 1]; hi is
     * at most 1e15 (whole_number_pattern), so nothing overflows. */
    for (long long low = 0, high = 9;; low = high + 1, high = high * 10 + 9) {
        long long start = MAX(low, lo), end = MIN(high, hi);
        char a[24], b[24];

        if (start <= end) {
            g_snprintf(a, sizeof(a), "%lld", start);
            g_snprintf(b, sizeof(b), "%lld", end);
            if (!first)
                g_string_append_c(out, '|');
            append_digits_range(out, a, b);
            first = FALSE;
        }
        if (high >= hi)
            break;
    }
    g_string_append(out, ")");
}

/* A whole number as strtoll() reads it (spaces first, a sign, leading
 * zeros), within [min, max] when both are whole and min >= 0. */
static char *
whole_number_pattern(double min, double max)
{
    GString *out = g_string_new("^" WS "*");

    if (min < 0 || min != floor(min) || max != floor(max) || max > 1e15) {
        g_string_append(out, "[+-]?[0-9]+$");
        return g_string_free(out, FALSE);
    }
    g_string_append(out, "(\\+?0*");
    append_int_range(out, (long long) min, (long long) max);
    if (min == 0)
        g_string_append(out, "|-0+");
    g_string_append(out, ")$");
    return g_string_free(out, FALSE);
}

/* A template: literal text, "{{" and "}}", and the fields of
 * gal__template_fields with their formats and a fallback after '|'. */
static char *
template_pattern(void)
{
    GString *out = g_string_new("^([^\\{\\}]|\\{\\{|\\}\\}|\\{" WS "*(");

    for (const gal_field *f = gal__template_fields; f->name; f++) {
        if (f != gal__template_fields)
            g_string_append_c(out, '|');
        g_string_append_printf(out, "%s" WS "*", f->name);
        if (f->format == GAL_FIELD_STRFTIME)
            g_string_append(out, "(:[^|\\}]*)?");
        else if (f->format == GAL_FIELD_WIDTH)
            g_string_append(out, "(:[0-9]{1,2})?");
    }
    g_string_append(out, ")(\\|[^\\}]*)?\\})*$");
    return g_string_free(out, FALSE);
}

/* "W:H", each term from min to max, spaces around the terms allowed. */
static char *
ratio_pattern(double min, double max)
{
    GString *term = g_string_new(WS "*0*");
    g_autofree char *t = NULL;

    append_int_range(term, (long long) MAX(min, 1), (long long) max);
    g_string_append(term, WS "*");
    t = g_string_free(term, FALSE);
    return g_strdup_printf("^%s:%s$", t, t);
}

/* ---- the schema ------------------------------------------------------------ */

static const char *const any_scalar[] = { "string", "number", "boolean", NULL };
static const char *const number_or_boolean[] = { "number", "boolean", NULL };
static const char *const any_scalar_or_null[] = { "string", "number", "boolean", "null",
    NULL };

/* The shared definitions every key refers to. */
static void
add_type_defs(jv *defs)
{
    g_autofree char *bools = any_case_words(gal__bool_words);
    g_autofree char *whole = whole_number_pattern(-1, 0);
    g_autofree char *off = any_case_words((const char *const[]) { "off", "false", NULL });
    GString *colour = g_string_new("^(#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|"
                                   "[0-9A-Fa-f]{8})");
    g_autofree char *colour_pattern = NULL;
    g_autofree char *fields = NULL;
    GString *field_list = g_string_new(NULL);

    for (size_t i = 0; gal__color_name(i); i++) {
        g_string_append_c(colour, '|');
        append_any_case(colour, gal__color_name(i));
    }
    g_string_append(colour, ")$");
    colour_pattern = g_string_free(colour, FALSE);
    for (const gal_field *f = gal__template_fields; f->name; f++)
        g_string_append_printf(field_list, "%s{%s}", f == gal__template_fields ? "" : " ",
            f->name);
    fields = g_string_free(field_list, FALSE);

    j_set(defs, "bool",
        j_set(j_any_of(j_type("boolean"), j_pattern(bools), NULL), "description",
            j_str("true or false; yes/no and on/off too, in any case")));
    j_set(defs, "whole-number-text",
        j_set(j_pattern(whole), "description",
            j_str("a whole number written as text, such as \"82\"")));
    j_set(defs, "number-text",
        j_set(j_pattern("^" WS "*" NUMBER "$"), "description",
            j_str("a number written as text, such as \"0.5\"")));
    j_set(defs, "text",
        j_set(j_types(any_scalar), "description",
            j_str("text; a number or a boolean is read as its text")));
    j_set(defs, "list",
        j_set(j_any_of(j_ref("text"),
                  j_set(j_type("array"), "items", j_types(any_scalar_or_null)), NULL),
            "description", j_str("a list of texts, or one text for a list of one")));
    j_set(defs, "colour",
        j_set(j_pattern(colour_pattern), "description",
            j_str("#rgb, #rgba, #rrggbb or #rrggbbaa (hex digits, alpha last), or black, "
                  "white, transparent or none")));
    {
        g_autofree char *automatic = any_case_words((const char *const[]) { "auto", NULL });

        j_set(defs, "colour-or-auto",
            j_set(j_any_of(j_ref("colour"), j_pattern(automatic), NULL), "description",
                j_str("a colour, or auto: the stage picks one per photo")));
    }
    j_set(defs, "length-text",
        j_set(j_pattern("^" WS "*" NUMBER WS "*(%|px)?" WS "*$"), "description",
            j_str("a length in pixels (\"24\" or \"24px\") or a percentage (\"3.5%\", 0 to "
                  "100); each key sets its own pixel maximum")));
    {
        g_autofree char *template = template_pattern();
        g_autofree char *help = g_strdup_printf(
            "text with {fields}: %s; {field|default} when the photo lacks it, {date:FORMAT} "
            "(strftime), {index:03}; {{ and }} are literal braces",
            fields);

        j_set(defs, "template",
            j_set(j_any_of(j_pattern(template), j_types(number_or_boolean),
                      NULL),
                "description", j_str(help)));
    }
    j_set(defs, "off",
        j_set(j_any_of(j_set(j_new(J_OBJECT), "const", j_bool(FALSE)), j_pattern(off), NULL),
            "description",
            j_str("in a preset that extends another: drop the inherited stage of this "
                  "name")));
}

/* {"type": "number"/"integer", "minimum", "maximum"} */
static jv *
j_range(const char *type, double min, double max)
{
    return j_set(j_set(j_type(type), "minimum", j_num(min)), "maximum", j_num(max));
}

static jv *
length_schema(double max_px)
{
    return j_any_of(j_range("number", 0, max_px), j_ref("length-text"), NULL);
}

/* The value a key takes, null aside. */
static jv *
value_schema(const gal_param *p)
{
    switch (p->type) {
    case GAL_T_BOOL:
        return j_ref("bool");
    case GAL_T_INT: {
        g_autofree char *text = whole_number_pattern(p->min, p->max);
        g_autofree char *automatic = any_case_words((const char *const[]) { "auto", NULL });

        if (p->flags & GAL_AUTO)
            return j_any_of(j_range("integer", p->min, p->max), j_pattern(text),
                j_pattern(automatic));
        return j_any_of(j_range("integer", p->min, p->max), j_pattern(text), NULL);
    }
    case GAL_T_DOUBLE:
        return j_any_of(j_range("number", p->min, p->max), j_ref("number-text"), NULL);
    case GAL_T_STRING:
    case GAL_T_PATH:
        return j_ref("text");
    case GAL_T_DIR:
        /* A preset's output folder lies beneath its own folder
         * (gal__check_output_dir); links on the way only gallop can tell. */
        return j_set(j_ref("text"), "not",
            j_pattern("^(/|~(/|$)|\\$HOME(/|$)|\\$\\{HOME\\}(/|$))|(^|/)\\.\\.(/|$)"));
    case GAL_T_ENUM: {
        jv *names = j_new(J_ARRAY);
        GPtrArray *words = g_ptr_array_new();
        g_autofree char *pattern = NULL;

        for (int i = 0; p->choices[i]; i++) {
            j_push(names, j_str(p->choices[i]));
            g_ptr_array_add(words, (gpointer) p->choices[i]);
            /* YAML reads these as booleans, and gallop as their text. */
            if (strcmp(p->choices[i], "true") == 0 || strcmp(p->choices[i], "false") == 0)
                j_push(names, j_bool(strcmp(p->choices[i], "true") == 0));
        }
        for (int a = 0; gal__choice_aliases[a][0]; a++)
            if (g_strv_contains((const char *const *) p->choices, gal__choice_aliases[a][1])) {
                j_push(names, j_str(gal__choice_aliases[a][0]));
                g_ptr_array_add(words, (gpointer) gal__choice_aliases[a][0]);
            }
        g_ptr_array_add(words, NULL);
        pattern = any_case_words((const char *const *) words->pdata);
        g_ptr_array_free(words, TRUE);
        /* The list for completion, the pattern for any case. */
        return j_any_of(j_set(j_new(J_OBJECT), "enum", names), j_pattern(pattern), NULL);
    }
    case GAL_T_COLOR:
        return j_ref((p->flags & GAL_AUTO) ? "colour-or-auto" : "colour");
    case GAL_T_LENGTH:
        return length_schema(p->max);
    case GAL_T_SIZE: {
        jv *props = j_new(J_OBJECT);
        g_autofree char *px = whole_number_pattern(0, p->max);
        jv *map;

        j_set(props, "relative",
            j_set(length_schema(p->max), "description",
                j_str("the length: a share of the reference, or pixels")));
        j_set(props, "min",
            j_set(j_any_of(j_range("integer", 0, p->max), j_pattern(px), NULL),
                "description", j_str("fewest pixels (0: no bound)")));
        j_set(props, "max",
            j_set(j_any_of(j_range("integer", 0, p->max), j_pattern(px), NULL),
                "description", j_str("most pixels (0: no bound)")));
        j_set(props, "<<",
            j_set(j_types((const char *const[]) { "object", "array", NULL }), "description",
                j_str("YAML merge key")));
        map = j_set(j_type("object"), "properties", props);
        j_set(map, "additionalProperties", j_bool(FALSE));
        j_set(map, "if",
            has_merge_key());
        j_set(map, "else", j_required((const char *const[]) { "relative", NULL }));
        return j_any_of(length_schema(p->max), map, NULL);
    }
    case GAL_T_SHARPENING: {
        /* An amount (for screen), or {for: medium, amount: amount}. */
        gal_param amount = *p;
        gal_param medium = *p;
        jv *props = j_new(J_OBJECT);
        jv *map;

        amount.type = medium.type = GAL_T_ENUM;
        medium.choices = gal__media;
        j_set(props, "for",
            j_set(value_schema(&medium), "description",
                j_str("the medium: screen, or print on matte or glossy paper at output.ppi")));
        j_set(props, "amount",
            j_set(value_schema(&amount), "description", j_str("how much")));
        j_set(props, "<<",
            j_set(j_types((const char *const[]) { "object", "array", NULL }), "description",
                j_str("YAML merge key")));
        map = j_set(j_type("object"), "properties", props);
        j_set(map, "additionalProperties", j_bool(FALSE));
        return j_any_of(value_schema(&amount), map, NULL);
    }
    case GAL_T_STRLIST:
    case GAL_T_PATHLIST:
        return j_ref("list");
    case GAL_T_INTLIST:
    case GAL_T_ENUMLIST: {
        /* A list of what the one-value key takes, or one such value. */
        gal_param one = *p;
        jv *list = j_type("array");

        one.type = p->type == GAL_T_INTLIST ? GAL_T_INT : GAL_T_ENUM;
        j_set(list, "items", value_schema(&one));
        j_set(list, "maxItems", j_num(GAL_LIST_MAX));
        j_set(list, "uniqueItems", j_bool(TRUE));
        return j_any_of(list, value_schema(&one), NULL);
    }
    case GAL_T_TEMPLATE:
        if (p->max > 0) {
            g_autofree char *template = template_pattern();

            return j_any_of(j_set(j_pattern(template), "maxLength", j_num(p->max)),
                j_types(number_or_boolean), NULL);
        }
        return j_ref("template");
    case GAL_T_RATIO: {
        g_autofree char *pattern = ratio_pattern(p->min, p->max);

        return j_set(j_pattern(pattern), "description",
            j_str("width:height, such as 1:1, 4:5 or 3:2"));
    }
    }
    g_assert_not_reached();
}

/* The default as the JSON an editor would insert. */
static jv *
default_value(const gal_param *p)
{
    switch (p->type) {
    case GAL_T_BOOL:
        return j_bool(g_strv_contains(gal__bool_words, p->def) &&
            (g_ascii_strcasecmp(p->def, "true") == 0 || g_ascii_strcasecmp(p->def, "yes") == 0 ||
                g_ascii_strcasecmp(p->def, "on") == 0));
    case GAL_T_INT:
    case GAL_T_DOUBLE:
        return j_num(g_ascii_strtod(p->def, NULL));
    case GAL_T_STRLIST:
    case GAL_T_PATHLIST: {
        g_auto(GStrv) items = g_strsplit(p->def, ",", -1);
        jv *list = j_new(J_ARRAY);

        for (int i = 0; items[i]; i++)
            j_push(list, j_str(items[i]));
        return list;
    }
    case GAL_T_INTLIST:
    case GAL_T_ENUMLIST: {
        g_auto(GStrv) items = g_strsplit(p->def, ",", -1);
        jv *list = j_new(J_ARRAY);

        for (int i = 0; items[i]; i++)
            j_push(list, p->type == GAL_T_INTLIST ? j_num(g_ascii_strtod(items[i], NULL))
                                                  : j_str(items[i]));
        return list;
    }
    default:
        return j_str(p->def);
    }
}

/* $defs/NAME: the mapping of a section's or stage's keys. Required keys
 * are asked for where the mapping is used (see section_value), so that a
 * preset extending another may leave them to its parent. */
static jv *
section_def(const gal_section *sec)
{
    jv *def = j_set(j_new(J_OBJECT), "description", j_str(sec->summary));
    jv *props = j_new(J_OBJECT);
    g_autofree char *self = g_strdup_printf("#/$defs/%s", sec->name);

    j_set(def, "type", j_str("object"));
    for (const gal_param *p = sec->params; p->field; p++) {
        g_autofree char *key = gal__param_key(p);
        jv *prop = j_set(j_new(J_OBJECT), "description", j_str(p->help));

        if (p->def && !(p->flags & GAL_REQUIRED))
            j_set(prop, "default", default_value(p));
        /* Null (or no value) keeps the default. */
        j_set(prop, "anyOf", j_push(j_push(j_new(J_ARRAY), value_schema(p)), j_type("null")));
        j_set(props, key, prop);
    }
    j_set(props, "<<",
        j_set(j_any_of(j_set(j_new(J_OBJECT), "$ref", j_str(self)),
                  j_set(j_type("array"), "items", j_set(j_new(J_OBJECT), "$ref", j_str(self))),
                  NULL),
            "description",
            j_str("YAML merge key: `<<: *anchor` adds the keys of the anchored mapping (or of "
                  "each in a list) that this mapping does not set")));
    j_set(def, "properties", props);
    j_set(def, "additionalProperties", j_bool(FALSE));
    return def;
}

/* A section or stage as a preset sets it: its mapping, or null for the
 * defaults (or the parent's settings); with `refining`, in a preset that
 * extends another, also off, and its required keys may come from the
 * parent. */
static jv *
section_value(const gal_section *sec, gboolean refining)
{
    jv *map = j_ref(sec->name);
    g_autoptr(GPtrArray) required = g_ptr_array_new_with_free_func(g_free);

    for (const gal_param *p = sec->params; p->field; p++)
        if (p->flags & GAL_REQUIRED)
            g_ptr_array_add(required, gal__param_key(p));
    if (refining || required->len == 0)
        return j_any_of(map, j_type("null"), refining ? j_ref("off") : NULL);
    /* Its required keys must be there, or come from a merge key: so no
     * null (all defaults) either. */
    g_ptr_array_add(required, NULL);
    j_set(map, "if", has_merge_key());
    j_set(map, "else", j_required((const char *const *) required->pdata));
    return map;
}

/* The input, output and captions sections, then every stage. */
static GArray *
all_sections(void)
{
    GArray *sections = g_array_new(FALSE, FALSE, sizeof(gal_section));

    g_array_append_val(sections, gal__input_section);
    g_array_append_val(sections, gal__output_section);
    g_array_append_val(sections, gal__captions_section);
    for (int i = 0; gal__stages[i]; i++) {
        gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
            gal__stages[i]->params, gal__stages[i]->opts_size };

        g_array_append_val(sections, sec);
    }
    return sections;
}

/* $defs/stage and $defs/stage-refining: a stages item, a mapping with one
 * key, the stage's name. */
static jv *
stage_item(gboolean refining)
{
    jv *item = j_set(j_new(J_OBJECT), "description",
        j_str(refining ? "one stage: a mapping with a single key, the stage name; in a preset "
                         "that extends another, it refines the parent's stage of that name "
                         "(null: unchanged; off: dropped) or is added"
                       : "one stage: a mapping with a single key, the stage name"));
    jv *props = j_new(J_OBJECT);

    j_set(item, "type", j_str("object"));
    for (int i = 0; gal__stages[i]; i++) {
        gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
            gal__stages[i]->params, gal__stages[i]->opts_size };

        j_set(props, sec.name, j_set(section_value(&sec, refining), "description",
                                   j_str(sec.summary)));
    }
    j_set(props, "<<",
        j_set(j_types((const char *const[]) { "object", "array", NULL }), "description",
            j_str("YAML merge key")));
    j_set(item, "properties", props);
    j_set(item, "additionalProperties", j_bool(FALSE));
    j_set(item, "minProperties", j_num(1));
    /* A merge key may bring the stage name, or be outweighed by it. */
    j_set(item, "if", has_merge_key());
    j_set(item, "else", j_set(j_new(J_OBJECT), "maxProperties", j_num(1)));
    return item;
}

static jv *
stages_value(const char *item_def)
{
    return j_any_of(j_set(j_type("array"), "items", j_ref(item_def)), j_type("null"), NULL);
}

char *
gal_json_schema(void)
{
    g_autoptr(jv) root = j_new(J_OBJECT);
    g_autoptr(GArray) sections = all_sections();
    jv *props = j_new(J_OBJECT);
    jv *defs = j_new(J_OBJECT);
    jv *cond, *then, *otherwise;
    GString *out = g_string_new(NULL);

    j_set(root, "$schema", j_str("https://json-schema.org/draft/2020-12/schema"));
    j_set(root, "title", j_str("gallop preset"));
    j_set(root, "description",
        j_str("A gallop preset: which photos to take, the stages to run on each, and how to "
              "write the results. Made by `gallop stages --json-schema` from the tables "
              "`gallop stages` prints; reference: docs/presets.md."));
    j_set(root, "type", j_str("object"));

    j_set(props, "gallop",
        j_set(j_set(j_new(J_OBJECT), "description",
                  j_str("the preset schema version; this gallop reads version 1 (required, "
                        "as the first key of a preset file)")),
            "enum", j_push(j_push(j_new(J_ARRAY), j_num(1)), j_str("1"))));
    j_set(props, "name",
        j_set(j_types(any_scalar_or_null), "description",
            j_str("the preset's name, shown in messages and by {preset} (default: the file "
                  "name without .yaml); never inherited")));
    j_set(props, "description",
        j_set(j_types(any_scalar_or_null), "description",
            j_str("one line shown by `gallop presets`; never inherited")));
    j_set(props, "extends",
        j_set(j_types(any_scalar_or_null), "description",
            j_str("a shipped preset's name, or a path (with a / or ending in .yaml/.yml) "
                  "relative to this file's folder; this preset is merged over it key by key")));
    for (guint i = 0; i < 3; i++) {
        const gal_section *sec = &g_array_index(sections, gal_section, i);

        j_set(props, sec->name,
            j_set(section_value(sec, FALSE), "description", j_str(sec->summary)));
    }
    j_set(props, "stages",
        j_set(j_new(J_OBJECT), "description",
            j_str("the stages each photo goes through, in order; in a preset that extends "
                  "another, stages merge by name (the n-th resize refines the parent's n-th "
                  "resize)")));
    j_set(props, "<<",
        j_set(j_types((const char *const[]) { "object", "array", NULL }), "description",
            j_str("YAML merge key")));
    j_set(root, "properties", props);
    j_set(root, "additionalProperties", j_bool(FALSE));

    /* Every preset file has gallop: 1 (its first key: only gallop can tell
     * the order). In one that extends another (or takes keys from a merge
     * key), stages refine the parent's. */
    j_set(root, "required", j_push(j_new(J_ARRAY), j_str("gallop")));
    cond = j_any_of(
        j_set(j_set(j_new(J_OBJECT), "required", j_push(j_new(J_ARRAY), j_str("extends"))),
            "properties",
            j_set(j_new(J_OBJECT), "extends", j_types(any_scalar))),
        has_merge_key(), NULL);
    then = j_set(j_new(J_OBJECT), "properties",
        j_set(j_new(J_OBJECT), "stages", stages_value("stage-refining")));
    otherwise = j_set(
        j_new(J_OBJECT), "properties", j_set(j_new(J_OBJECT), "stages", stages_value("stage")));
    j_set(root, "if", cond);
    j_set(root, "then", then);
    j_set(root, "else", otherwise);

    add_type_defs(defs);
    for (guint i = 0; i < sections->len; i++) {
        const gal_section *sec = &g_array_index(sections, gal_section, i);

        j_set(defs, sec->name, section_def(sec));
    }
    j_set(defs, "stage", stage_item(FALSE));
    j_set(defs, "stage-refining", stage_item(TRUE));
    j_set(root, "$defs", defs);

    j_write(out, root, 0);
    g_string_append_c(out, '\n');
    return g_string_free(out, FALSE);
}
