/* schema_docs.c: the key tables of docs/presets.md, made from the gal_param
 * tables (the same columns as `gallop stages`: key, type, default, range,
 * help). `make schema` writes them into the reference between its marker
 * comments; a unit test compares the two byte for byte. */
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
        g_string_append(out, " | ");
        if (p->type == GAL_T_INT || p->type == GAL_T_DOUBLE || p->type == GAL_T_INTLIST) {
            g_autofree char *range = g_strdup_printf("%.15g..%.15g", p->min, p->max);

            append_code(out, range);
        }
        else if (p->type == GAL_T_LENGTH || p->type == GAL_T_SIZE) {
            g_autofree char *range = g_strdup_printf("0..%gpx or 0..100%%", p->max);

            append_code(out, range);
        }
        else if (p->type == GAL_T_RATIO) {
            g_autofree char *range =
                g_strdup_printf("%g..%g:%g..%g", p->min, p->max, p->min, p->max);

            append_code(out, range);
        }
        else if (p->type == GAL_T_ENUM || p->type == GAL_T_ENUMLIST) {
            g_autofree char *range = g_strjoinv("|", (char **) p->choices);

            append_code(out, range);
        }
        else if (p->type == GAL_T_TEMPLATE && p->max > 0)
            g_string_append_printf(out, "at most %g characters", p->max);
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
