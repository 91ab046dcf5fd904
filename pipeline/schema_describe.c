/* schema_describe.c: the values a section holds, and the section itself,
 * as text (schema.h): a preset's resolved values for `gallop check` and for
 * the recipe its outputs' digests are made from, and the table of keys for
 * `gallop stages`. The values are written as schema.c reads them back. */
#include <string.h>

#include "internal.h"
#include "schema.h"
#include "template.h"

static void
append_quoted(GString *out, const char *text)
{
    gboolean plain = *text != '\0';

    for (const char *c = text; *c; c++)
        if (!g_ascii_isalnum(*c) && !strchr("._/-+%", *c) && !((guchar) *c & 0x80))
            plain = FALSE;
    if (plain) {
        g_string_append(out, text);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\')
            g_string_append_c(out, '\\');
        g_string_append_c(out, *c);
    }
    g_string_append_c(out, '"');
}

static void
append_value(GString *out, const gal_param *p, const void *opts)
{
    switch (p->type) {
    case GAL_T_BOOL:
        g_string_append(out, *GAL_PARAM_FIELD(opts, p, bool) ? "true" : "false");
        break;
    case GAL_T_INT:
        if ((p->flags & GAL_AUTO) && *GAL_PARAM_FIELD(opts, p, int) == 0)
            g_string_append(out, "auto");
        else if (!p->def && *GAL_PARAM_FIELD(opts, p, int) == 0)
            g_string_append(out, "-");
        else
            g_string_append_printf(out, "%d", *GAL_PARAM_FIELD(opts, p, int));
        break;
    case GAL_T_DOUBLE:
        if (!p->def && *GAL_PARAM_FIELD(opts, p, double) == 0)
            g_string_append(out, "-");
        else
            g_string_append_printf(out, "%g", *GAL_PARAM_FIELD(opts, p, double));
        break;
    case GAL_T_STRING:
    case GAL_T_PATH:
    case GAL_T_DIR: {
        const char *s = *GAL_PARAM_FIELD(opts, p, char *);

        if (s)
            append_quoted(out, s);
        else
            g_string_append(out, "-");
        break;
    }
    case GAL_T_ENUM:
        g_string_append(out, p->choices[*GAL_PARAM_FIELD(opts, p, int)]);
        break;
    case GAL_T_COLOR: {
        const gal_color *c = GAL_PARAM_FIELD(opts, p, gal_color);

        if (c->automatic) {
            g_string_append(out, "auto");
            break;
        }
        g_string_append_printf(out, "#%02x%02x%02x%02x", (int) c->r, (int) c->g, (int) c->b,
            (int) c->a);
        break;
    }
    case GAL_T_LENGTH: {
        const gal_length *l = GAL_PARAM_FIELD(opts, p, gal_length);

        g_string_append_printf(out, "%g%s", l->value, l->relative ? "%" : "px");
        break;
    }
    case GAL_T_SIZE: {
        const gal_size *z = GAL_PARAM_FIELD(opts, p, gal_size);

        g_string_append_printf(out, "%g%s", z->length.value, z->length.relative ? "%" : "px");
        if (z->min_px || z->max_px)
            g_string_append_printf(out, "[min %d, max %d]", z->min_px, z->max_px);
        break;
    }
    case GAL_T_SHARPENING: {
        const gal_sharpening *s = GAL_PARAM_FIELD(opts, p, gal_sharpening);

        /* For screen, the word alone: what the key said before it took a
         * medium, so recipes of then stay the same. */
        if (s->medium == 0)
            g_string_append(out, p->choices[s->amount]);
        else
            g_string_append_printf(out, "{for: %s, amount: %s}", gal__media[s->medium],
                p->choices[s->amount]);
        break;
    }
    case GAL_T_STRLIST:
    case GAL_T_PATHLIST: {
        char **list = *GAL_PARAM_FIELD(opts, p, char **);

        g_string_append_c(out, '[');
        for (int i = 0; list && list[i]; i++) {
            if (i)
                g_string_append(out, ", ");
            append_quoted(out, list[i]);
        }
        g_string_append_c(out, ']');
        break;
    }
    case GAL_T_INTLIST:
    case GAL_T_ENUMLIST: {
        const gal_int_list *list = GAL_PARAM_FIELD(opts, p, gal_int_list);

        g_string_append_c(out, '[');
        for (int i = 0; i < list->n; i++) {
            if (i)
                g_string_append(out, ", ");
            if (p->type == GAL_T_INTLIST)
                g_string_append_printf(out, "%d", list->items[i]);
            else
                g_string_append(out, p->choices[list->items[i]]);
        }
        g_string_append_c(out, ']');
        break;
    }
    case GAL_T_TEMPLATE: {
        const gal_template *t = *GAL_PARAM_FIELD(opts, p, gal_template *);

        if (t)
            append_quoted(out, gal__template_text(t));
        else
            g_string_append(out, "-");
        break;
    }
    case GAL_T_RATIO: {
        const gal_ratio *r = GAL_PARAM_FIELD(opts, p, gal_ratio);

        g_string_append_printf(out, "%d:%d", r->w, r->h);
        break;
    }
    }
}

void
gal__schema_describe_values(const gal_section *sec, const void *opts, GString *out)
{
    for (const gal_param *p = sec->params; p->field; p++) {
        g_autofree char *key = gal__param_key(p);

        g_string_append_printf(out, "%s%s=", p == sec->params ? "" : " ", key);
        append_value(out, p, opts);
    }
}

void
gal__schema_describe_params(const gal_section *sec, GString *out)
{
    g_string_append_printf(out, "%s: %s\n", sec->name, sec->summary);
    for (const gal_param *p = sec->params; p->field; p++) {
        g_autofree char *key = gal__param_key(p);
        g_autofree char *range = NULL;

        if (p->type == GAL_T_INT || p->type == GAL_T_DOUBLE || p->type == GAL_T_INTLIST)
            range = g_strdup_printf("%.15g..%.15g%s", p->min, p->max,
                (p->flags & GAL_AUTO) ? "|auto" : "");
        else if (p->type == GAL_T_LENGTH || p->type == GAL_T_SIZE)
            range = g_strdup_printf("0..%gpx or 0..100%%", p->max);
        else if (p->type == GAL_T_RATIO)
            range = g_strdup_printf("%g..%g:%g..%g", p->min, p->max, p->min, p->max);
        else if (p->type == GAL_T_TEMPLATE && p->max > 0)
            range = g_strdup_printf("at most %g characters", p->max);
        else if (p->type == GAL_T_ENUM || p->type == GAL_T_ENUMLIST)
            range = g_strjoinv("|", (char **) p->choices);
        else if (p->type == GAL_T_COLOR && (p->flags & GAL_AUTO))
            range = g_strdup("colour|auto");
        else if (p->type == GAL_T_SHARPENING) {
            g_autofree char *amounts = g_strjoinv("|", (char **) p->choices);

            range = g_strdup_printf("%s; for: screen|matte|glossy", amounts);
        }
        else
            range = g_strdup("");
        g_string_append_printf(out, "  %-14s %-9s %-22s %-26s %s\n", key,
            gal__type_name(p->type),
            (p->flags & GAL_REQUIRED) ? "(required)" : p->def ? p->def : "(unset)", range,
            p->help);
    }
}
