/* The preset reference (docs/presets.md) and the editor schema
 * (presets/gallop.schema.json) are written by hand from the gal_param
 * tables: these tests fail when a section or stage, a key, a choice or a
 * help string is added or changed in a table and not in both files. The
 * reference gives each section and stage a "## `NAME`" heading. Also loads
 * every shipped preset and checks its editor modeline. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(schema_docs, .init = gal_test_setup, .fini = gal_test_teardown);

#define SCHEMA_PATH GAL_PRESETS_DIR "/gallop.schema.json"
#define DOCS_PATH GAL_PRESETS_DIR "/../docs/presets.md"

static char *
read_text(const char *path)
{
    g_autoptr(GError) error = NULL;
    char *text = NULL;

    cr_assert(g_file_get_contents(path, &text, NULL, &error), "cannot read %s: %s", path,
        error ? error->message : "?");
    return text;
}

/* The input, output and captions sections, then every registered stage, viewed alike. */
static GArray *
all_sections(void)
{
    GArray *sections = g_array_new(FALSE, FALSE, sizeof(gal_section));

    g_array_append_val(sections, gal__input_section);
    g_array_append_val(sections, gal__output_section);
    g_array_append_val(sections, gal__captions_section);
    for (int i = 0; gal__stages[i]; i++) {
        const gal_stage_def *def = gal__stages[i];
        gal_section sec = { def->name, def->summary, def->params, def->opts_size };

        g_array_append_val(sections, sec);
    }
    return sections;
}

/* `file` names the text in the failure message; `what` says what is missing. */
static void
expect_contains(const char *text, const char *file, const char *what, const char *needle)
{
    cr_expect(strstr(text, needle) != NULL, "%s: %s is missing (looked for %s)", file, what,
        needle);
}

Test(schema_docs, every_key_and_choice_is_in_the_schema_and_the_docs)
{
    g_autofree char *schema = read_text(SCHEMA_PATH);
    g_autofree char *docs = read_text(DOCS_PATH);
    g_autoptr(GArray) sections = all_sections();

    for (guint s = 0; s < sections->len; s++) {
        const gal_section *sec = &g_array_index(sections, gal_section, s);
        g_autofree char *section_heading = g_strdup_printf("## `%s`", sec->name);
        g_autofree char *section_json = g_strdup_printf("\"%s\"", sec->name);

        expect_contains(docs, "docs/presets.md", "the section heading", section_heading);
        expect_contains(schema, "gallop.schema.json", "the section or stage name", section_json);
        for (const gal_param *p = sec->params; p->field; p++) {
            g_autofree char *key = gal__param_key(p);
            g_autofree char *in_json = g_strdup_printf("\"%s\"", key);
            g_autofree char *in_docs = g_strdup_printf("`%s`", key);
            g_autofree char *what = g_strdup_printf("key %s.%s", sec->name, key);

            expect_contains(schema, "gallop.schema.json", what, in_json);
            expect_contains(docs, "docs/presets.md", what, in_docs);
            for (int c = 0; p->choices && p->choices[c]; c++) {
                g_autofree char *choice = g_strdup_printf("\"%s\"", p->choices[c]);
                g_autofree char *choice_what =
                    g_strdup_printf("choice %s of %s.%s", p->choices[c], sec->name, key);

                expect_contains(schema, "gallop.schema.json", choice_what, choice);
            }
        }
    }
}

Test(schema_docs, help_strings_are_copied_verbatim)
{
    /* The help strings are the user documentation (`gallop stages`); the
     * schema's descriptions and the reference tables repeat them word for
     * word, so editors show what the command line shows. */
    g_autofree char *schema = read_text(SCHEMA_PATH);
    g_autofree char *docs = read_text(DOCS_PATH);
    g_autoptr(GArray) sections = all_sections();
    char utf8_bytes[129];

    /* JSON keeps UTF-8 (©) as it is; only quotes and backslashes escape. */
    for (int i = 0; i < 128; i++)
        utf8_bytes[i] = (char) (0x80 + i);
    utf8_bytes[128] = '\0';
    for (guint s = 0; s < sections->len; s++) {
        const gal_section *sec = &g_array_index(sections, gal_section, s);

        for (const gal_param *p = sec->params; p->field; p++) {
            g_autofree char *key = gal__param_key(p);
            g_autofree char *what = g_strdup_printf("the help of %s.%s", sec->name, key);
            g_autofree char *escaped = g_strescape(p->help, utf8_bytes);
            g_autofree char *in_json = g_strdup_printf("\"description\": \"%s\"", escaped);

            expect_contains(schema, "gallop.schema.json", what, in_json);
            expect_contains(docs, "docs/presets.md", what, p->help);
        }
    }
}

Test(schema_docs, every_shipped_preset_loads)
{
    g_autoptr(GError) error = NULL;
    GDir *dir = g_dir_open(GAL_PRESETS_DIR, 0, &error);
    const char *entry;
    int loaded = 0;

    cr_assert(dir, "cannot open %s: %s", GAL_PRESETS_DIR, error ? error->message : "?");
    while ((entry = g_dir_read_name(dir))) {
        g_autofree char *path = NULL;
        g_autofree char *text = NULL;
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
        gal_preset *preset = NULL;
        char line[2048] = "";

        if (!g_str_has_suffix(entry, ".yaml"))
            continue;
        path = g_build_filename(GAL_PRESETS_DIR, entry, NULL);
        if (gal_preset_load(path, &opts, &preset, errs) != 0 && errs->count > 0)
            gal_error_format(&errs->items[0], line, sizeof(line));
        cr_expect_not_null(preset, "%s does not load: %s", entry, line);
        gal_preset_free(preset);

        /* Editors validate the shipped presets against the schema beside them. */
        text = read_text(path);
        cr_expect(g_str_has_prefix(text, "# yaml-language-server: $schema=gallop.schema.json\n"),
            "%s does not start with the yaml-language-server modeline", entry);
        loaded++;
    }
    g_dir_close(dir);
    cr_expect_gt(loaded, 0, "no presets found in %s", GAL_PRESETS_DIR);
}
