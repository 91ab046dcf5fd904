/* schema_docs.c: the key tables of docs/presets.md, made from the gal_param
 * tables (the same columns as `gallop stages`: key, type, default, range,
 * help). `make schema` writes them into the reference between its marker
 * comments; a unit test compares the two byte for byte. The same tables
 * give the man page's key lists and the keys shells complete after --set. */
#include <string.h>

#include "internal.h"
#include "captions.h"
#include "preset.h"
#include "schema.h"
#include "stage.h"

/* Text for a Markdown table cell: a '|' would end the cell. */
static void
append_cell(GString *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (*c == '|')
            g_string_append_c(out, '\\');
        g_string_append_c(out, *c);
    }
}

static void
append_code(GString *out, const char *text)
{
    g_string_append_c(out, '`');
    append_cell(out, text);
    g_string_append_c(out, '`');
}

/* What a key takes, beyond its type ("1..100", "jpeg|png|webp|avif"), or
 * NULL. */
static char *
range_text(const gal_param *p)
{
    if (p->type == GAL_T_INT || p->type == GAL_T_DOUBLE || p->type == GAL_T_INTLIST)
        return g_strdup_printf("%.15g..%.15g%s", p->min, p->max,
            (p->flags & GAL_AUTO) ? "|auto" : "");
    if (p->type == GAL_T_LENGTH || p->type == GAL_T_SIZE)
        return g_strdup_printf("0..%gpx or 0..100%%", p->max);
    if (p->type == GAL_T_RATIO)
        return g_strdup_printf("%g..%g:%g..%g", p->min, p->max, p->min, p->max);
    if (p->type == GAL_T_ENUM || p->type == GAL_T_ENUMLIST)
        return g_strjoinv("|", (char **) p->choices);
    if (p->type == GAL_T_SHARPENING) {
        g_autofree char *amounts = g_strjoinv("|", (char **) p->choices);
        g_autofree char *media = g_strjoinv("|", (char **) gal__media);

        return g_strdup_printf("%s, or {for: %s, amount: ...}", amounts, media);
    }
    if (p->type == GAL_T_COLOR && (p->flags & GAL_AUTO))
        return g_strdup("colour|auto");
    if (p->type == GAL_T_TEMPLATE && p->max > 0)
        return g_strdup_printf("at most %g characters", p->max);
    return NULL;
}

static void
append_table(GString *out, const gal_section *sec)
{
    g_string_append(out, "| key | type | default | range | help |\n|---|---|---|---|---|\n");
    for (const gal_param *p = sec->params; p->field; p++) {
        g_autofree char *key = gal__param_key(p);

        g_string_append(out, "| ");
        append_code(out, key);
        g_string_append_printf(out, " | %s | ", gal__type_name(p->type));
        if (p->flags & GAL_REQUIRED)
            g_string_append(out, "(required)");
        else if (p->def)
            append_code(out, p->def);
        else
            g_string_append(out, "(unset)");
        g_autofree char *range = range_text(p);

        g_string_append(out, " | ");
        if (range && p->type == GAL_T_TEMPLATE)
            g_string_append(out, range);
        else if (range)
            append_code(out, range);
        g_string_append(out, " | ");
        append_cell(out, p->help);
        g_string_append(out, " |\n");
    }
}

char *
gal_stages_markdown(const char *name, gal_error *err)
{
    const gal_section *sections[] = { &gal__input_section, &gal__output_section,
        &gal__captions_section };
    GString *out = g_string_new(NULL);

    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
        if (!name || strcmp(name, sections[i]->name) == 0) {
            if (!name)
                g_string_append_printf(out, "%s## `%s`\n\n", out->len ? "\n" : "",
                    sections[i]->name);
            append_table(out, sections[i]);
        }
    for (int i = 0; gal__stages[i]; i++)
        if (!name || strcmp(name, gal__stages[i]->name) == 0) {
            gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
                gal__stages[i]->params, gal__stages[i]->opts_size };

            if (!name)
                g_string_append_printf(out, "\n## `%s`\n\n", sec.name);
            append_table(out, &sec);
        }
    if (out->len == 0) {
        g_string_free(out, TRUE);
        /* The same "did you mean" as `gallop stages NAME`. */
        g_free(gal_stages_describe(name, err));
        return NULL;
    }
    return g_string_free(out, FALSE);
}

/* Every section, then every stage, as a section view of its table. */
static GArray *
all_sections(void)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(gal_section));

    g_array_append_val(all, gal__input_section);
    g_array_append_val(all, gal__output_section);
    g_array_append_val(all, gal__captions_section);
    for (int i = 0; gal__stages[i]; i++) {
        gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
            gal__stages[i]->params, gal__stages[i]->opts_size };

        g_array_append_val(all, sec);
    }
    return all;
}

static void
roff_escape(GString *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        /* A line starting with '.' or '\'' would be a request. */
        if ((*c == '.' || *c == '\'') && (c == text || c[-1] == '\n'))
            g_string_append(out, "\\&");
        if (*c == '\\')
            g_string_append(out, "\\e");
        else if (*c == '-')
            g_string_append(out, "\\-"); /* a minus, as typed: options copy-paste */
        else
            g_string_append_c(out, *c);
    }
}

char *
gal_roff_escape(const char *text)
{
    GString *out = g_string_new(NULL);

    roff_escape(out, text);
    return g_string_free(out, FALSE);
}

char *
gal_stages_man(void)
{
    g_autoptr(GArray) all = all_sections();
    GString *out = g_string_new(NULL);

    for (guint i = 0; i < all->len; i++) {
        const gal_section *sec = &g_array_index(all, gal_section, i);

        g_string_append(out, ".SS ");
        roff_escape(out, sec->name);
        g_string_append_c(out, '\n');
        roff_escape(out, sec->summary);
        g_string_append_c(out, '\n');
        for (const gal_param *p = sec->params; p->field; p++) {
            g_autofree char *key = gal__param_key(p);
            g_autofree char *range = range_text(p);

            g_string_append(out, ".TP\n\\fB");
            roff_escape(out, key);
            g_string_append(out, "\\fR \\fI");
            roff_escape(out, gal__type_name(p->type));
            g_string_append(out, "\\fR");
            if (p->flags & GAL_REQUIRED)
                g_string_append(out, " (required)");
            else if (p->def) {
                g_auto(GStrv) items = g_strsplit(p->def, ",", -1);

                /* A list may break after each comma (\:), or a long one
                 * (input.include) overflows the page. */
                g_string_append(out, " = ");
                for (int k = 0; items[k]; k++) {
                    if (k > 0)
                        g_string_append(out, ",\\:");
                    roff_escape(out, items[k]);
                }
            }
            if (range) {
                g_string_append(out, " [");
                roff_escape(out, range);
                g_string_append_c(out, ']');
            }
            g_string_append_c(out, '\n');
            roff_escape(out, p->help);
            g_string_append_c(out, '\n');
        }
    }
    return g_string_free(out, FALSE);
}

char *
gal_preset_keys(void)
{
    g_autoptr(GArray) all = all_sections();
    GString *out = g_string_new(NULL);

    for (guint i = 0; i < all->len; i++) {
        const gal_section *sec = &g_array_index(all, gal_section, i);

        for (const gal_param *p = sec->params; p->field; p++) {
            g_autofree char *key = gal__param_key(p);

            g_string_append_printf(out, "%s.%s\n", sec->name, key);
        }
    }
    return g_string_free(out, FALSE);
}
