/* preset.c: a preset's node tree (preset_tree.c) into a validated,
 * immutable gal_preset: sections and stages filled from their tables
 * (schema.c), rules across keys checked, files they name checked, and
 * each stage prepared once; plus what the front end shows of presets
 * and stages. */
#include <string.h>

#include "internal.h"
#include "captions.h"
#include "error.h"
#include "format.h"
#include "metadata.h"
#include "fsio.h"
#include "node.h"
#include "output.h"
#include "preset.h"
#include "preset_tree.h"
#include "schema.h"
#include "stage.h"
#include "template.h"

/* Entries in a parameter table, for a gal_loc per parameter. */
static size_t
n_params(const gal_param *params)
{
    size_t n = 0;

    while (params[n].field)
        n++;
    return MAX(n, 1);
}

/* ---- from tree to preset ---------------------------------------------------------- */

static void
stage_instance_clear(gpointer p)
{
    gal_stage_instance *st = p;

    if (st->def && st->def->release && st->shared)
        st->def->release(st->shared);
    gal__schema_free(&st->section, st->opts);
    g_free(st->locs);
}

void
gal_preset_free(gal_preset *preset)
{
    if (!preset)
        return;
    if (preset->stages)
        g_array_free(preset->stages, TRUE);
    gal__schema_free(&gal__input_section, preset->input);
    gal__schema_free(&gal__output_section, preset->output);
    gal__captions_free(preset->captions);
    g_free(preset->path);
    g_free(preset->name);
    g_free(preset->description);
    if (preset->strings)
        g_string_chunk_free(preset->strings);
    g_free(preset);
}

static char *
scalar_or_error(gal_load_ctx *ctx, const gal_node *root, const char *key)
{
    const gal_node *v = gal__node_get(root, key);

    if (!v || (v->kind == GAL_NODE_SCALAR && v->is_null))
        return NULL;
    if (v->kind != GAL_NODE_SCALAR) {
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &v->loc, key, "expected text, got %s",
            v->kind == GAL_NODE_MAP ? "a mapping" : "a list");
        return NULL;
    }
    return g_strdup(v->text);
}

static void
check_top_keys(gal_load_ctx *ctx, const gal_node *root)
{
    for (guint i = 0; i < root->keys->len; i++) {
        const gal_node *key = root->keys->pdata[i];
        const char *guess;

        if (g_strv_contains(gal__preset_top_keys, key->text))
            continue;
        guess = gal__did_you_mean(key->text, gal__preset_top_keys);
        if (!guess && gal__stage_find(key->text))
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "stages go in the list under \"stages:\", as \"- %s: {...}\"", key->text);
        else if (guess)
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "unknown top-level key (did you mean \"%s\"?)", guess);
        else
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, key->text,
                "unknown top-level key; valid keys are gallop, name, description, extends, "
                "input, stages, output, captions");
    }
}

static void
check_version(gal_load_ctx *ctx, const gal_node *root)
{
    const gal_node *v = gal__node_get(root, "gallop");

    if (!v) {
        gal_loc loc = root->loc;

        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &loc, "gallop",
            "missing \"gallop: 1\" (the preset schema version) at the top of the preset");
        return;
    }
    if (v->kind != GAL_NODE_SCALAR || strcmp(v->text, "1") != 0) {
        g_autofree char *shown =
            gal__excerpt(v->kind == GAL_NODE_SCALAR ? v->text : "?", GAL_EXCERPT_CHARS);

        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &v->loc, "gallop",
            "unsupported schema version \"%s\": this gallop reads version 1", shown);
    }
}

static const char **
stage_names(void)
{
    const char **names = g_new0(const char *, 32);
    int n = 0;

    for (int i = 0; gal__stages[i] && n < 31; i++)
        names[n++] = gal__stages[i]->name;
    return names;
}

/* The schema places a key left to its default at the stage's mapping; a
 * stage's errors about such a value belong at the stage itself
 * (gal__stage_key_loc), so those places are cleared. */
static void
forget_default_locs(gal_stage_instance *st, const gal_node *value)
{
    for (const gal_param *p = st->def->params; p->field; p++) {
        g_autofree char *key = gal__param_key(p);
        const gal_node *given =
            value && value->kind == GAL_NODE_MAP ? gal__node_get(value, key) : NULL;

        if (!given || (given->kind == GAL_NODE_SCALAR && given->is_null))
            st->locs[p - st->def->params] = (gal_loc) { 0 };
    }
}

/* One stage: `name` (a key of a stages item) configured by `value`. */
static void
load_stage(gal_load_ctx *ctx, gal_preset *preset, const gal_node *name, const gal_node *value)
{
    gal_stage_instance st = { 0 };
    gboolean filled;

    st.def = gal__stage_find(name->text);
    if (!st.def) {
        g_autofree const char **names = stage_names();
        g_autofree char *list = g_strjoinv(", ", (char **) names);
        const char *guess = gal__did_you_mean(name->text, names);

        if (guess)
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &name->loc, name->text,
                "unknown stage (did you mean \"%s\"?)", guess);
        else
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &name->loc, name->text,
                "unknown stage; stages are %s", list);
        return;
    }
    /* The engine feeds one gathering stage per preset (one item per
     * photo): a second would take the first one's items. */
    if (st.def->kind == GAL_STAGE_GATHER && gal__preset_has_gather(preset)) {
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, &name->loc, name->text,
            "a preset has one gathering stage (contact-sheet or gallery), and this one has "
            "one already: run a second preset for the other (gallop run A.yaml B.yaml ...)");
        return;
    }
    st.section = (gal_section) { st.def->name, st.def->summary, st.def->params,
        st.def->opts_size };
    st.loc = name->loc;
    st.locs = g_new0(gal_loc, n_params(st.def->params));
    filled = gal__schema_fill(&st.section, value, &st.opts, st.locs, ctx->errs) == 0 &&
        gal__schema_check_files(&st.section, st.opts, st.locs, gal__load_follow_links(ctx),
            ctx->errs) == 0;
    forget_default_locs(&st, value);
    if (filled && st.def->check) {
        gal_stage_ctx sc = { st.opts, NULL, st.loc, FALSE, st.locs };
        gal_error err = { 0 };

        if (st.def->check(&sc, &err)) {
            if (!err.key[0])
                gal__utf8_copy(err.key, st.def->name, sizeof(err.key));
            gal__errors_add(ctx->errs, &err);
        }
    }
    g_array_append_val(preset->stages, st);
}

/* Is `key` one of the keys of the stage named `stage`? */
static gboolean
stage_has_key(const char *stage, const char *key)
{
    const gal_stage_def *def = gal__stage_find(stage);

    for (const gal_param *p = def ? def->params : NULL; p && p->field; p++) {
        g_autofree char *k = gal__param_key(p);

        if (strcmp(k, key) == 0)
            return TRUE;
    }
    return FALSE;
}

/* A stages item with more than one key: each one after the first is an
 * error at that key, saying what was most likely meant. A stage name is a
 * stage that lost its "- " (each is then checked as a stage, so that its
 * own errors show too); a key of the first stage was meant inside it. */
static void
load_crowded_item(gal_load_ctx *ctx, gal_preset *preset, const gal_node *item)
{
    const gal_node *first = item->keys->pdata[0];
    g_autofree char *first_shown = gal__excerpt(first->text, GAL_EXCERPT_CHARS);
    gboolean all_stages = gal__stage_find(first->text) != NULL;

    for (guint i = 1; i < item->keys->len; i++) {
        const gal_node *key = item->keys->pdata[i];
        g_autofree char *shown = gal__excerpt(key->text, GAL_EXCERPT_CHARS);

        if (gal__stage_find(key->text))
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, "stages",
                "a second stage, \"%s\", in the list item of \"%s\" (line %d): each stage is "
                "a list item of its own; is the \"- \" before \"%s\" missing?",
                shown, first_shown, first->loc.line, shown);
        else if (stage_has_key(first->text, key->text))
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, "stages",
                "a second key, \"%s\", in the list item of \"%s\" (line %d): %s is a key of "
                "%s; indent it under \"%s:\" or put it in its {...}",
                shown, first_shown, first->loc.line, shown, first_shown, first_shown);
        else
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &key->loc, "stages",
                "a second key, \"%s\", in the list item of \"%s\" (line %d): each stage is "
                "a one-key mapping; is the \"- \" before \"%s\" missing?",
                shown, first_shown, first->loc.line, shown);
        all_stages &= gal__stage_find(key->text) != NULL;
    }
    if (all_stages)
        for (guint i = 0; i < item->keys->len; i++)
            load_stage(ctx, preset, item->keys->pdata[i], item->items->pdata[i]);
}

static void
load_stages(gal_load_ctx *ctx, gal_preset *preset, const gal_node *root)
{
    const gal_node *stages = gal__node_get(root, "stages");

    if (!stages || (stages->kind == GAL_NODE_SCALAR && stages->is_null))
        return;
    if (stages->kind != GAL_NODE_SEQ) {
        const gal_node *key = gal__node_key(root, "stages");
        /* A mapping written below its key starts at its own first key, a
         * line further: the mistake is on the key's line, where a list was
         * due. */
        const gal_loc *loc = key && key->loc.file == stages->loc.file && key->loc.line > 0 &&
                key->loc.line < stages->loc.line
            ? &key->loc
            : &stages->loc;

        gal__errors_push(ctx->errs, GAL_ERR_PRESET, loc, "stages",
            "expected a list of stages (\"- resize: {...}\"), got %s",
            stages->kind == GAL_NODE_MAP ? "a mapping" : "a scalar");
        return;
    }
    for (guint i = 0; i < stages->items->len; i++) {
        const gal_node *item = stages->items->pdata[i];

        if (item->kind == GAL_NODE_MAP && item->keys->len > 1)
            load_crowded_item(ctx, preset, item);
        else if (item->kind != GAL_NODE_MAP || item->keys->len != 1)
            gal__errors_push(ctx->errs, GAL_ERR_PRESET, &item->loc, "stages",
                "each stage is a one-key mapping such as \"- resize: {width: 1080}\"");
        else
            load_stage(ctx, preset, item->keys->pdata[0], item->items->pdata[0]);
    }
}

/* Where the value of `field` came from, given the locs gal__schema_fill
 * recorded (one per param, in table order). */
static const gal_loc *
param_loc(const gal_section *sec, const gal_loc *locs, const char *field)
{
    for (const gal_param *p = sec->params; p->field; p++)
        if (strcmp(p->field, field) == 0)
            return &locs[p - sec->params];
    g_assert_not_reached();
}

static void
check_output(gal_load_ctx *ctx, gal_output_opts *out, const gal_loc *locs)
{
    /* Every field filled in: what remains wrong is the template's own text. */
    gal_facts sample = { "x", "x", "x", "x", "x", "x", "x", "x", "x", "x", TRUE,
        { .tm_year = 114, .tm_mon = 3, .tm_mday = 13 }, 1, 1, NULL, "x", 1, "x", "x", TRUE, 0.5,
        0.5, FALSE };
    g_autofree char *path = NULL;
    gal_error err = { 0 };

    const gal_loc *name_loc = param_loc(&gal__output_section, locs, "name");

    if (gal__output_target_score(out->target, &out->target_score))
        gal__errors_push(ctx->errs, GAL_ERR_PRESET,
            param_loc(&gal__output_section, locs, "target"), "output.target",
            "expected high, standard, small or a score from 15 to 50 (dB), got \"%s\"",
            out->target);
    /* Not every libvips writes every format (AVIF needs libheif with an AV1
     * encoder). */
    for (gal_format f = 0; f < GAL_N_FORMATS; f++) {
        gboolean used = out->format == f && !out->formats.n;
        const char *missing;

        for (int i = 0; i < out->formats.n; i++)
            used |= out->formats.items[i] == (int) f;
        /* Asked only of a format in use: a unit test may load a preset
         * without starting libvips. */
        if (used && (missing = gal__format_missing(f)))
            gal__errors_push(ctx->errs, GAL_ERR_PRESET,
                param_loc(&gal__output_section, locs, out->formats.n ? "formats" : "format"),
                out->formats.n ? "output.formats" : "output.format",
                "%s needs a libvips built with %s, and this one is not", gal__format_name(f),
                missing);
    }
    /* Every variant of a photo needs a name of its own, and {width} means
     * nothing without widths. */
    if (out->widths.n > 1 && !gal__template_uses(out->name, "width"))
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, name_loc, "output.name",
            "\"%s\" has no {width}, so the %d widths of output.widths would share one name "
            "(the default with widths is \"%s\")",
            gal__template_text(out->name), out->widths.n, GAL_DEFAULT_WIDTHS_NAME);
    if (out->widths.n == 0 && gal__template_uses(out->name, "width"))
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, name_loc, "output.name",
            "{width} is the width of output.widths the file is made at, and output.widths is "
            "not given");
    if (out->formats.n > 1 && !gal__template_uses(out->name, "ext"))
        gal__errors_push(ctx->errs, GAL_ERR_PRESET, name_loc, "output.name",
            "\"%s\" has no {ext}, so the %d formats of output.formats would share one name",
            gal__template_text(out->name), out->formats.n);
    /* A literal ".." or leading "/" fails for every photo: say so now. */
    if (!(path = gal__output_path(out, "/", &sample, &err))) {
        g_autofree char *shown = gal__excerpt(gal__template_text(out->name), GAL_EXCERPT_CHARS);

        gal__errors_push(ctx->errs, GAL_ERR_PRESET, param_loc(&gal__output_section, locs, "name"),
            "output.name", "\"%s\" is not a usable name template: %s", shown, err.msg);
    }
    if (out->profile != GAL_PROFILE_SRGB && out->metadata && out->metadata[0] &&
        !out->metadata[1] && g_ascii_strcasecmp(out->metadata[0], "strip") == 0)
        gal__errors_push(ctx->errs, GAL_ERR_PRESET,
            param_loc(&gal__output_section, locs, "profile"), "output.profile",
            "%s pixels need their profile, which metadata: strip leaves out; use profile: "
            "srgb, or another metadata level",
            out->profile == GAL_PROFILE_KEEP ? "the photo's own" : "Display P3");
    err = (gal_error) { 0 };
    if (gal__metadata_check(out->metadata, &err))
        gal__errors_push(ctx->errs, GAL_ERR_PRESET,
            param_loc(&gal__output_section, locs, "metadata"), "output.metadata", "%s", err.msg);
}

gboolean
gal__preset_has_gather(const gal_preset *preset)
{
    for (guint i = 0; i < preset->stages->len; i++)
        if (g_array_index(preset->stages, gal_stage_instance, i).def->kind == GAL_STAGE_GATHER)
            return TRUE;
    return FALSE;
}

/* `photos: false` leaves the gathering stage as the only thing a run
 * writes: without one, every run would read each photo and write nothing. */
static void
check_photos_gathered(gal_load_ctx *ctx, const gal_preset *preset, const gal_loc *locs)
{
    if (preset->output->photos || gal__preset_has_gather(preset))
        return;
    gal__errors_push(ctx->errs, GAL_ERR_PRESET, param_loc(&gal__output_section, locs, "photos"),
        "output.photos",
        "false needs a contact-sheet stage: without one nothing would be written");
}

/* output.profile keep leaves each photo in its own space: a sheet of
 * several would mix them under one profile. */
static void
check_profile_gathered(gal_load_ctx *ctx, const gal_preset *preset, const gal_loc *locs)
{
    gboolean sheets = FALSE;

    for (guint i = 0; i < preset->stages->len; i++)
        sheets |= g_array_index(preset->stages, gal_stage_instance, i).def->build_many != NULL;
    if (preset->output->profile != GAL_PROFILE_KEEP || !sheets)
        return;
    gal__errors_push(ctx->errs, GAL_ERR_PRESET, param_loc(&gal__output_section, locs, "profile"),
        "output.profile",
        "keep leaves each photo in its own colour space, which a contact sheet cannot mix; "
        "use srgb or display-p3");
}

static gal_preset *
preset_from_tree(gal_load_ctx *ctx, gal_node *root, const char *path)
{
    gal_preset *preset = g_new0(gal_preset, 1);
    g_autofree gal_loc *output_locs = NULL;
    int errors_before = ctx->errs->count + ctx->errs->dropped;
    int errors_before_stages;
    int n_output_params = 0;

    while (gal__output_section.params[n_output_params].field)
        n_output_params++;
    output_locs = g_new0(gal_loc, n_output_params);

    preset->path = g_strdup(path);
    preset->stages = g_array_new(FALSE, TRUE, sizeof(gal_stage_instance));
    g_array_set_clear_func(preset->stages, stage_instance_clear);

    check_top_keys(ctx, root);
    check_version(ctx, root);
    preset->name = scalar_or_error(ctx, root, "name");
    if (!preset->name) {
        g_autofree char *base = g_path_get_basename(path);
        char *dot = strrchr(base, '.');

        if (dot && dot != base)
            *dot = '\0';
        preset->name = g_strdup(base);
    }
    preset->description = scalar_or_error(ctx, root, "description");
    if (!preset->description)
        preset->description = g_strdup("");
    gal__schema_fill(&gal__input_section, gal__node_get(root, "input"),
        (void **) &preset->input, NULL, ctx->errs);
    if (gal__schema_fill(&gal__output_section, gal__node_get(root, "output"),
            (void **) &preset->output, output_locs, ctx->errs) == 0) {
        const gal_node *output = gal__node_get(root, "output");
        const gal_node *name = output && output->kind == GAL_NODE_MAP
            ? gal__node_get(output, "name") : NULL;

        gal__output_sort_widths(preset->output);
        /* Several widths need several names: the default gets {width}. */
        if (preset->output->widths.n > 0 && (!name || (name->kind == GAL_NODE_SCALAR &&
                                                           name->is_null))) {
            gal__template_free(preset->output->name);
            preset->output->name = gal__template_parse(GAL_DEFAULT_WIDTHS_NAME, NULL);
        }
        check_output(ctx, preset->output, output_locs);
    }
    gal__captions_load(gal__node_get(root, "captions"), gal__load_follow_links(ctx), &preset->captions,
        ctx->errs);
    errors_before_stages = ctx->errs->count + ctx->errs->dropped;
    load_stages(ctx, preset, root);
    /* After a stage error (an unknown stage may be the misspelt sheet)
     * this would only repeat it. */
    if (preset->output && ctx->errs->count + ctx->errs->dropped == errors_before_stages) {
        check_photos_gathered(ctx, preset, output_locs);
        check_profile_gathered(ctx, preset, output_locs);
    }

    if (ctx->errs->count + ctx->errs->dropped > errors_before)
        return preset; /* the caller frees it */

    /* Only a valid preset gets prepared: prepare() may be costly. */
    for (guint i = 0; i < preset->stages->len; i++) {
        gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        gal_stage_ctx sc = { st->opts, NULL, st->loc, gal__load_follow_links(ctx), st->locs };
        gal_error err = { 0 };

        if (st->def->prepare && st->def->prepare(&sc, &st->shared, &err)) {
            if (!err.key[0])
                gal__utf8_copy(err.key, st->def->name, sizeof(err.key));
            gal__errors_add(ctx->errs, &err);
        }
    }
    return preset;
}

static gboolean
error_after(int rank_a, const gal_error *a, int rank_b, const gal_error *b)
{
    if (rank_a != rank_b)
        return rank_a > rank_b;
    return a->line > b->line || (a->line == b->line && a->col > b->col);
}

/* The checks run section by section, not line by line: report their errors
 * in file order, as a compiler does. Errors in different files (a parent,
 * a --set) keep the order in which their files first appear. A stable
 * insertion sort over errs->items[from..count), at most GAL_MAX_ERRORS. */
static void
sort_errors(gal_errors *errs, int from)
{
    int rank[GAL_MAX_ERRORS];

    for (int i = from; i < errs->count; i++) {
        rank[i] = i;
        for (int j = from; j < i; j++)
            if (strcmp(errs->items[j].file, errs->items[i].file) == 0) {
                rank[i] = rank[j];
                break;
            }
    }
    for (int i = from + 1; i < errs->count; i++) {
        gal_error e = errs->items[i];
        int r = rank[i], j = i;

        for (; j > from && error_after(rank[j - 1], &errs->items[j - 1], r, &e); j--) {
            errs->items[j] = errs->items[j - 1];
            rank[j] = rank[j - 1];
        }
        errs->items[j] = e;
        rank[j] = r;
    }
}

/* "~/logo.png" in the file and folder values of one section or stage
 * (`map`, as the tree has it after extends and --set). */
static void
expand_home_in(gal_load_ctx *ctx, const char *where, const gal_param *params, gal_node *map)
{
    if (!map || map->kind != GAL_NODE_MAP)
        return;
    for (const gal_param *p = params; p->field; p++) {
        g_autofree char *key = NULL;
        g_autofree char *path = NULL;
        gal_node *value;

        if (p->type != GAL_T_PATH && p->type != GAL_T_DIR && p->type != GAL_T_PATHLIST)
            continue;
        key = gal__param_key(p);
        if (!(value = gal__node_get(map, key)))
            continue;
        path = g_strdup_printf("%s.%s", where, key);
        gal__expand_home(ctx, value, path);
    }
}

/* The docs' own "input: {paths: [~/Downloads]}" names the user's folder,
 * as a shell would read it. Only keys whose type is a file or folder are
 * expanded: a caption's "~" is text. */
static void
expand_home_paths(gal_load_ctx *ctx, gal_node *root)
{
    const gal_section *sections[] = { &gal__input_section, &gal__output_section,
        &gal__captions_section };
    gal_node *stages = gal__node_get(root, "stages");

    if (root->kind != GAL_NODE_MAP)
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
        expand_home_in(ctx, sections[i]->name, sections[i]->params,
            gal__node_get(root, sections[i]->name));
    for (guint i = 0; stages && stages->kind == GAL_NODE_SEQ && i < stages->items->len; i++) {
        gal_node *item = stages->items->pdata[i];
        const gal_stage_def *def;

        if (item->kind != GAL_NODE_MAP || item->keys->len != 1)
            continue;
        def = gal__stage_find(((gal_node *) item->keys->pdata[0])->text);
        if (def)
            expand_home_in(ctx, def->name, def->params, item->items->pdata[0]);
    }
}

static int
load_common(gal_load_ctx *ctx, gal_node *root, const char *path, gint64 began,
    gal_preset **out)
{
    gal_preset *preset;
    int errors_before = ctx->errs->count + ctx->errs->dropped;
    int first_error = ctx->errs->count;

    for (int i = 0; ctx->opts && i < ctx->opts->n_overrides; i++)
        gal__preset_override(ctx, root, ctx->opts->overrides[i]);
    gal__check_output_dir(ctx, root);
    expand_home_paths(ctx, root);
    preset = preset_from_tree(ctx, root, path);
    gal__node_free(root);
    preset->strings = ctx->strings;
    ctx->strings = NULL;
    if (ctx->errs->count + ctx->errs->dropped > errors_before) {
        sort_errors(ctx->errs, first_error);
        gal_preset_free(preset);
        return -1;
    }
    preset->load_seconds = (g_get_monotonic_time() - began) / 1e6;
    *out = preset;
    return 0;
}

int
gal_preset_load_string(const char *yaml, const char *virtual_path,
    const gal_load_options *opts, gal_preset **out, gal_errors *errs)
{
    gint64 began = g_get_monotonic_time();
    gal_load_ctx ctx = { g_string_chunk_new(1024), opts, errs };
    g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(g_free);
    gal_node *root;

    *out = NULL;
    g_ptr_array_add(chain, g_canonicalize_filename(virtual_path, NULL));
    root = gal__preset_tree_text(&ctx, yaml, strlen(yaml), virtual_path, chain);
    if (!root) {
        g_string_chunk_free(ctx.strings);
        return -1;
    }
    return load_common(&ctx, root, virtual_path, began, out);
}

int
gal_preset_load(const char *path_or_name, const gal_load_options *opts, gal_preset **out,
    gal_errors *errs)
{
    gint64 began = g_get_monotonic_time();
    gal_load_ctx ctx = { g_string_chunk_new(1024), opts, errs };
    g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *path = NULL;
    gal_node *root;

    *out = NULL;
    /* Whatever is there under that name is the preset the user means; if
     * it is no file (a FIFO, a folder), reading it says so. */
    if (g_file_test(path_or_name, G_FILE_TEST_EXISTS) || gal__looks_like_path(path_or_name))
        path = g_strdup(path_or_name);
    else
        path = gal__find_preset(opts, path_or_name, NULL);
    if (!path || !g_file_test(path, G_FILE_TEST_EXISTS)) {
        if (path && gal__looks_like_path(path_or_name))
            gal__errors_push(errs, GAL_ERR_USAGE, NULL, NULL, "%s: no such preset file",
                path_or_name);
        else
            gal__unknown_preset(errs, GAL_ERR_USAGE, NULL, NULL, path_or_name, opts);
        g_string_chunk_free(ctx.strings);
        return -1;
    }
    root = gal__preset_tree_load(&ctx, path, NULL, chain);
    if (!root) {
        g_string_chunk_free(ctx.strings);
        return -1;
    }
    return load_common(&ctx, root, path, began, out);
}

const char *
gal_preset_name(const gal_preset *preset)
{
    return preset->name;
}

const char *
gal_preset_page_noun(const gal_preset *preset, int n)
{
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_def *def = g_array_index(preset->stages, gal_stage_instance, i).def;

        if (def->kind != GAL_STAGE_GATHER)
            continue;
        if (def->build_text)
            return n == 1 ? "gallery page" : "gallery pages";
        return n == 1 ? "contact sheet" : "contact sheets";
    }
    return n == 1 ? "page" : "pages";
}

const char *
gal_preset_description(const gal_preset *preset)
{
    return preset->description;
}

const char *
gal_preset_path(const gal_preset *preset)
{
    return preset->path;
}

static gboolean
section_uses_field(const gal_section *sec, const void *opts, const char *field)
{
    for (const gal_param *p = sec->params; p->field; p++) {
        const gal_template *tpl;

        if (p->type != GAL_T_TEMPLATE)
            continue;
        tpl = *(gal_template *const *) ((const char *) opts + p->offset);
        if (tpl && gal__template_uses(tpl, field))
            return TRUE;
    }
    return FALSE;
}

gboolean
gal__preset_uses_field(const gal_preset *preset, const char *field)
{
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);

        if (section_uses_field(&st->section, st->opts, field))
            return TRUE;
    }
    /* output.name is never rendered when no file is written per photo. */
    if (!preset->output->photos)
        return FALSE;
    /* The caption travels in each output's metadata, as the policy allows:
     * the output changes with it, as with a band that shows it. */
    if (strcmp(field, "caption") == 0 && gal__metadata_keeps_caption(preset->output->metadata))
        return TRUE;
    return section_uses_field(&gal__output_section, preset->output, field);
}

char *
gal_preset_describe(const gal_preset *preset)
{
    GString *out = g_string_new(NULL);

    g_string_append_printf(out, "preset  %s (%s)%s%s\n", preset->name, preset->path,
        *preset->description ? ": " : "", preset->description);
    g_string_append(out, "input   ");
    gal__schema_describe_values(&gal__input_section, preset->input, out);
    g_string_append_c(out, '\n');
    g_string_append(out, "captions ");
    gal__captions_describe(preset->captions, out);
    g_string_append_c(out, '\n');
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);

        g_string_append_printf(out, "%u. %-13s ", i + 1, st->def->name);
        gal__schema_describe_values(&st->section, st->opts, out);
        g_string_append_c(out, '\n');
    }
    if (preset->stages->len == 0)
        g_string_append(out, "(no stages: photos are auto-oriented, made sRGB and re-encoded)\n");
    g_string_append(out, "output  ");
    gal__schema_describe_values(&gal__output_section, preset->output, out);
    g_string_append_c(out, '\n');
    return g_string_free(out, FALSE);
}

/* Paths by file name: the list is sorted by preset name, whichever folder
 * each came from. */
static int
compare_basenames(gconstpointer a, gconstpointer b)
{
    const char *pa = *(const char *const *) a, *pb = *(const char *const *) b;
    const char *sa = strrchr(pa, '/'), *sb = strrchr(pb, '/');

    return strcmp(sa ? sa + 1 : pa, sb ? sb + 1 : pb);
}

char *
gal_presets_list(const gal_load_options *opts, gal_error *err)
{
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    const char *dirs[64];
    g_autofree char *unreadable = NULL;
    int n_dirs = 0, readable = 0;
    GString *out;

    for (int i = 0; opts->user_presets_dirs && opts->user_presets_dirs[i] && n_dirs < 63; i++)
        if (*opts->user_presets_dirs[i])
            dirs[n_dirs++] = opts->user_presets_dirs[i];
    if (opts->presets_dir)
        dirs[n_dirs++] = opts->presets_dir;
    for (int d = 0; d < n_dirs; d++) {
        g_autoptr(GError) error = NULL;
        GDir *dir = g_dir_open(dirs[d], 0, &error);
        const char *entry;

        if (!dir) {
            /* One folder that cannot be read hides no other. */
            if (!unreadable)
                unreadable = g_strdup_printf("cannot read presets folder %s: %s", dirs[d],
                    error->message);
            continue;
        }
        readable++;
        while ((entry = g_dir_read_name(dir)))
            if (g_str_has_suffix(entry, ".yaml") && !g_hash_table_contains(seen, entry)) {
                g_hash_table_add(seen, g_strdup(entry));
                g_ptr_array_add(files, g_build_filename(dirs[d], entry, NULL));
            }
        g_dir_close(dir);
    }
    if (!readable)
        return gal_error_set(err, GAL_ERR_USAGE, NULL, NULL, "%s",
                   unreadable ? unreadable : "no presets folder"),
               NULL;
    g_ptr_array_sort(files, compare_basenames);

    out = g_string_new(NULL);
    for (guint i = 0; i < files->len; i++) {
        const char *path = files->pdata[i];
        g_autofree char *base = g_path_get_basename(path);
        g_autofree char *name = g_strndup(base, strlen(base) - 5);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_load_options load = *opts;
        gal_preset *preset = NULL;

        load.overrides = NULL;
        load.n_overrides = 0;
        if (gal_preset_load(path, &load, &preset, errs) == 0) {
            g_string_append_printf(out, "%s\t%s\t%s\n", name, preset->description, path);
            gal_preset_free(preset);
        }
        else {
            char line[1024];

            g_string_append_printf(out, "%s\t(broken: %s)\t%s\n", name,
                gal_error_format(&errs->items[0], line, sizeof(line)), path);
        }
    }
    return g_string_free(out, FALSE);
}

char *
gal_stages_describe(const char *name, gal_error *err)
{
    const gal_section *sections[] = { &gal__input_section, &gal__output_section,
        &gal__captions_section };
    GString *out = g_string_new(NULL);
    gboolean found = FALSE;

    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
        if (!name || strcmp(name, sections[i]->name) == 0) {
            gal__schema_describe_params(sections[i], out);
            found = TRUE;
        }
    for (int i = 0; gal__stages[i]; i++)
        if (!name || strcmp(name, gal__stages[i]->name) == 0) {
            gal_section sec = { gal__stages[i]->name, gal__stages[i]->summary,
                gal__stages[i]->params, gal__stages[i]->opts_size };

            if (out->len)
                g_string_append_c(out, '\n');
            gal__schema_describe_params(&sec, out);
            found = TRUE;
        }
    if (!found) {
        g_autofree const char **names = stage_names();
        const char *guess = gal__did_you_mean(name, names);
        g_autofree char *shown = gal__excerpt(name, GAL_EXCERPT_CHARS);

        for (size_t i = 0; !guess && i < G_N_ELEMENTS(sections); i++)
            if (gal__did_you_mean(name, (const char *const[]) { sections[i]->name, NULL }))
                guess = sections[i]->name;

        gal_error_set(err, GAL_ERR_USAGE, NULL, NULL, "no stage or section named \"%s\"%s%s%s",
            shown, guess ? " (did you mean \"" : "", guess ? guess : "", guess ? "\"?)" : "");
        g_string_free(out, TRUE);
        return NULL;
    }
    return g_string_free(out, FALSE);
}
