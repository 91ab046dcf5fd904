/* Presets that belong to the user (issue 13): the shipped presets carry
 * nobody's identity, a child's text mark replaces its parent's logo, "~"
 * and $HOME name the home folder in file values, a user's folders of
 * presets come before the shipped ones (and may extend them), and the
 * photo size limit fits medium-format cameras. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"

TestSuite(preset_user, .init = gal_test_setup, .fini = gal_test_teardown);

/* A small opaque PNG at `dir`/`name`: a logo to point presets at. */
static char *
write_logo(const char *dir, const char *name)
{
    g_autoptr(VipsImage) logo = gal_test_gradient(40, 20);
    char *path = g_build_filename(dir, name, NULL);

    cr_assert_eq(vips_pngsave(logo, path, NULL), 0, "%s", vips_error_buffer());
    return path;
}

/* Load `yaml` as `dir`/test.yaml with `opts`; the resolved description
 * (gal_preset_describe), or NULL with `errs` filled. */
static char *
describe_loaded(const char *dir, const char *yaml, const gal_load_options *opts,
    gal_errors *errs)
{
    g_autofree char *path = g_build_filename(dir, "test.yaml", NULL);
    gal_preset *preset = NULL;
    char *text;

    if (gal_preset_load_string(yaml, path, opts, &preset, errs))
        return NULL;
    text = gal_preset_describe(preset);
    gal_preset_free(preset);
    return text;
}

static void
expect_loaded(const char *text, const gal_errors *errs)
{
    char line[1024] = "";

    if (errs->count)
        gal_error_format(&errs->items[0], line, sizeof(line));
    cr_assert_not_null(text, "the preset did not load: %s", line);
}

/* ---- shipped presets ---------------------------------------------------------- */

/* No shipped preset names a file (a logo is someone's), and none titles or
 * marks with the trip the fixtures come from. */
Test(preset_user, shipped_presets_carry_nobodys_identity)
{
    static const char *const identity[] = { "jen-loong", "Jen Loong", "Marathon", "Pyongyang" };
    g_autoptr(GError) error = NULL;
    GDir *dir = g_dir_open(GAL_PRESETS_DIR, 0, &error);
    const char *entry;
    int seen = 0;

    cr_assert(dir, "%s", error ? error->message : "?");
    while ((entry = g_dir_read_name(dir))) {
        g_autofree char *path = g_build_filename(GAL_PRESETS_DIR, entry, NULL);
        g_autofree gal_errors *errs = g_new0(gal_errors, 1);
        gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
        g_autofree char *text = NULL;
        g_autofree char *yaml = NULL;
        gal_preset *preset = NULL;

        if (!g_str_has_suffix(entry, ".yaml"))
            continue;
        cr_assert_eq(gal_preset_load(path, &opts, &preset, errs), 0, "%s", entry);
        text = gal_preset_describe(preset);
        cr_assert(g_file_get_contents(path, &yaml, NULL, NULL));
        for (guint i = 0; i < preset->stages->len; i++) {
            const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);

            for (const gal_param *p = st->def->params; p->field; p++)
                if (p->type == GAL_T_PATH)
                    cr_expect_null(*(char **) ((char *) st->opts + p->offset),
                        "%s: %s.%s names a file", entry, st->def->name, p->field);
        }
        for (size_t k = 0; k < G_N_ELEMENTS(identity); k++) {
            cr_expect_null(strstr(text, identity[k]), "%s resolves with \"%s\":\n%s", entry,
                identity[k], text);
            cr_expect_null(strstr(yaml, identity[k]), "%s says \"%s\"", entry, identity[k]);
        }
        gal_preset_free(preset);
        seen++;
    }
    g_dir_close(dir);
    cr_expect_geq(seen, 4);
}

Test(preset_user, max_megapixels_defaults_to_200)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\n", errs);

    cr_assert_not_null(preset);
    /* A 102 MP medium-format photo is not refused. */
    cr_expect_float_eq(preset->input->max_megapixels, 200, 1e-9);
    gal_preset_free(preset);
}

/* ---- a child's mark replaces its parent's ------------------------------------- */

Test(preset_user, a_childs_text_replaces_the_parents_image_mark)
{
    g_autofree char *dir = gal_test_tmpdir("user-mark");
    g_autofree char *logo = write_logo(dir, "logo.png");
    g_autofree char *parent = gal_test_write_preset(dir, "parent.yaml",
        "gallop: 1\nstages:\n  - watermark: { image: logo.png, opacity: 0.3 }\n");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    g_autofree char *text = describe_loaded(dir,
        "gallop: 1\nextends: parent.yaml\nstages:\n  - watermark: { text: \"© me\" }\n", &opts,
        errs);

    expect_loaded(text, errs);
    cr_expect(strstr(text, "image=- text=\"© me\"") != NULL, "%s", text);
    cr_expect(strstr(text, "opacity=0.3") != NULL, "the rest is inherited: %s", text);
}

Test(preset_user, a_childs_image_replaces_the_parents_text_mark)
{
    g_autofree char *dir = gal_test_tmpdir("user-mark-back");
    g_autofree char *logo = write_logo(dir, "logo.png");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    g_autofree char *text = describe_loaded(dir,
        "gallop: 1\nextends: instagram-portrait\nstages:\n  - watermark: { image: logo.png }\n",
        &opts, errs);
    g_autofree char *want = g_strdup_printf("image=%s text=-", logo);

    expect_loaded(text, errs);
    cr_expect(strstr(text, want) != NULL, "%s", text);
    cr_expect(strstr(text, "size=30%") != NULL, "the rest is inherited: %s", text);
}

Test(preset_user, a_childs_image_drops_the_parents_text_styling)
{
    g_autofree char *dir = gal_test_tmpdir("user-mark-style");
    g_autofree char *logo = write_logo(dir, "logo.png");
    g_autofree char *parent = gal_test_write_preset(dir, "parent.yaml",
        "gallop: 1\nstages:\n  - watermark: { text: \"© me\", color: auto, font: Serif, "
        "font-size: 20px, outline: true, shadow: true, opacity: 0.3 }\n");
    /* A --set path is the command line's: relative to where gallop runs. */
    g_autofree char *set_image = g_strdup_printf("watermark.image=%s", logo);
    const char *set[] = { set_image, NULL };
    gal_load_options child_opts = { .presets_dir = GAL_PRESETS_DIR };
    gal_load_options set_opts = { .presets_dir = GAL_PRESETS_DIR, .overrides = set,
        .n_overrides = 1 };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree gal_errors *set_errs = g_new0(gal_errors, 1);
    /* color: auto, font-size, shadow and outline are refused on a logo:
     * coming from the parent's text mark, they go with it. */
    g_autofree char *child = describe_loaded(dir,
        "gallop: 1\nextends: parent.yaml\nstages:\n  - watermark: { image: logo.png }\n",
        &child_opts, errs);
    g_autofree char *by_set = describe_loaded(dir, "gallop: 1\nextends: parent.yaml\n",
        &set_opts, set_errs);

    expect_loaded(child, errs);
    expect_loaded(by_set, set_errs);
    for (int i = 0; i < 2; i++) {
        const char *text = i ? by_set : child;

        cr_expect(strstr(text, "color=#ffffffff") && strstr(text, "shadow=false") &&
                strstr(text, "outline=false") && strstr(text, "font-size=0px") &&
                strstr(text, "font=\"DejaVu Sans Bold\""),
            "the text styling stayed: %s", text);
        cr_expect(strstr(text, "opacity=0.3") != NULL, "the rest is inherited: %s", text);
    }
}

Test(preset_user, set_text_replaces_the_presets_image_mark)
{
    g_autofree char *dir = gal_test_tmpdir("user-mark-set");
    g_autofree char *logo = write_logo(dir, "logo.png");
    const char *set[] = { "watermark.text=© us", NULL };
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .overrides = set,
        .n_overrides = 1 };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *text = describe_loaded(dir,
        "gallop: 1\nstages:\n  - watermark: { image: logo.png }\n", &opts, errs);

    expect_loaded(text, errs);
    cr_expect(strstr(text, "image=- text=\"© us\"") != NULL, "%s", text);
}

Test(preset_user, both_marks_in_one_preset_are_still_an_error)
{
    g_autofree char *dir = gal_test_tmpdir("user-mark-both");
    g_autofree char *logo = write_logo(dir, "logo.png");
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *text = describe_loaded(dir,
        "gallop: 1\nstages:\n  - watermark: { image: logo.png, text: hi }\n", &opts, errs);

    cr_assert_null(text);
    cr_expect(strstr(errs->items[0].msg, "exactly one of image or text") != NULL, "%s",
        errs->items[0].msg);
}

/* ---- ~ and $HOME -------------------------------------------------------------- */

Test(preset_user, tilde_and_home_name_the_home_folder_in_file_values)
{
    g_autofree char *home = gal_test_tmpdir("user-home");
    g_autofree char *logo = write_logo(home, "logo.png");
    g_autofree char *photos = g_build_filename(home, "Downloads", NULL);
    g_autofree char *elsewhere = gal_test_tmpdir("user-home-preset");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .home_dir = home };
    const char *const images[] = { "~/logo.png", "$HOME/logo.png", "${HOME}/logo.png" };

    g_mkdir_with_parents(photos, 0777);
    /* Not output.dir: a preset writes beneath its own folder (test_preset_reach.c). */
    for (size_t i = 0; i < G_N_ELEMENTS(images); i++) {
        g_autofree char *yaml = g_strdup_printf("gallop: 1\n"
                                                "input: { paths: [~/Downloads] }\n"
                                                "stages:\n"
                                                "  - watermark: { image: \"%s\" }\n"
                                                "  - caption-burn: { text: \"~/not/a/path\" }\n",
            images[i]);
        g_autofree char *text = describe_loaded(elsewhere, yaml, &opts, errs);
        g_autofree char *want_logo = g_strdup_printf("image=%s ", logo);
        g_autofree char *want_input = g_strdup_printf("paths=[%s]", photos);

        expect_loaded(text, errs);
        cr_expect(strstr(text, want_logo) != NULL, "%s: %s", images[i], text);
        cr_expect(strstr(text, want_input) != NULL, "%s", text);
        cr_expect(strstr(text, "text=\"~/not/a/path\"") != NULL, "text is text: %s", text);
    }
}

Test(preset_user, tilde_in_extends_names_the_home_folder)
{
    g_autofree char *home = gal_test_tmpdir("user-home-extends");
    g_autofree char *base = gal_test_write_preset(home, "base.yaml",
        "gallop: 1\noutput: { quality: 61 }\n");
    g_autofree char *elsewhere = gal_test_tmpdir("user-home-extends-child");
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .home_dir = home };
    g_autofree char *text = describe_loaded(elsewhere, "gallop: 1\nextends: ~/base.yaml\n",
        &opts, errs);

    expect_loaded(text, errs);
    cr_expect(strstr(text, "quality=61") != NULL, "%s", text);
}

Test(preset_user, tilde_without_a_home_folder_is_an_error_at_the_value)
{
    g_autofree char *dir = gal_test_tmpdir("user-nohome");
    g_autofree char *path = g_build_filename(dir, "test.yaml", NULL);
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autofree char *text = describe_loaded(dir,
        "gallop: 1\nstages:\n  - watermark: { image: ~/logo.png }\n", &opts, errs);

    cr_assert_null(text);
    cr_expect_eq(errs->items[0].code, GAL_ERR_PRESET);
    cr_expect_str_eq(errs->items[0].file, path);
    cr_expect_eq(errs->items[0].line, 3);
    cr_expect_eq(errs->items[0].col, 25);
    cr_expect_str_eq(errs->items[0].key, "watermark.image");
    cr_expect(strstr(errs->items[0].msg, "HOME is not set") != NULL, "%s", errs->items[0].msg);
}

/* ---- the user's presets folders ------------------------------------------------- */

Test(preset_user, a_users_folder_comes_first_and_may_extend_the_shipped_presets)
{
    g_autofree char *team = gal_test_tmpdir("user-team");
    g_autofree char *own = gal_test_write_preset(team, "team-posts.yaml",
        "gallop: 1\ndescription: the team's posts\nextends: instagram-portrait\n"
        "output: { quality: 77 }\n");
    /* Same name as a shipped one: it hides it, and extends it. */
    g_autofree char *same = gal_test_write_preset(team, "instagram-square.yaml",
        "gallop: 1\ndescription: our square\nextends: instagram-square\n"
        "output: { quality: 66 }\n");
    const char *const user_dirs[] = { team, NULL };
    gal_load_options opts = { .presets_dir = GAL_PRESETS_DIR, .user_presets_dirs = user_dirs };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = NULL;
    g_autofree char *text = NULL;
    gal_error err = { 0 };
    g_autofree char *list = NULL;

    cr_assert_eq(gal_preset_load("team-posts", &opts, &preset, errs), 0);
    text = gal_preset_describe(preset);
    cr_expect(strstr(text, "quality=77") != NULL, "%s", text);
    cr_expect(strstr(text, "crop=attention") != NULL, "from the shipped parent: %s", text);
    gal_preset_free(preset);
    g_clear_pointer(&text, g_free);

    cr_assert_eq(gal_preset_load("instagram-square", &opts, &preset, errs), 0);
    text = gal_preset_describe(preset);
    cr_expect_str_eq(gal_preset_description(preset), "our square");
    cr_expect(strstr(text, "quality=66") != NULL, "%s", text);
    cr_expect(strstr(text, "height=1080") != NULL, "the shipped square under it: %s", text);
    gal_preset_free(preset);

    /* The shipped ones are all still there. */
    cr_assert_eq(gal_preset_load("web-large", &opts, &preset, errs), 0);
    gal_preset_free(preset);

    list = gal_presets_list(&opts, &err);
    cr_assert_not_null(list, "%s", err.msg);
    cr_expect(strstr(list, "team-posts\tthe team's posts\t") != NULL, "%s", list);
    cr_expect(strstr(list, "instagram-square\tour square\t") != NULL, "%s", list);
    cr_expect(strstr(list, "web-large\t") != NULL, "%s", list);
    cr_expect(strstr(list, "instagram-portrait\t") != NULL, "%s", list);
}
