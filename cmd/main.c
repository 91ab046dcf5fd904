/* gallop: the command line. Parses arguments, calls the pipeline through
 * gallop.h, prints, and chooses the exit status:
 *   0 every photo done, 1 some photos failed (the rest were written),
 *   2 usage or preset error (nothing written), 3 gallop could not start. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "gallop.h"

enum { EXIT_ALL_DONE = 0, EXIT_SOME_FAILED = 1, EXIT_USAGE = 2, EXIT_START = 3 };

static const char usage_text[] =
    "usage: gallop COMMAND [ARGS]\n"
    "\n"
    "Batch image pipeline for photo galleries: one YAML preset says what to make.\n"
    "\n"
    "commands:\n"
    "  run PRESET [INPUT...]   process photos (files and/or folders) with a preset\n"
    "  check PRESET            validate a preset and print the resolved pipeline\n"
    "  presets                 list the shipped presets\n"
    "  stages [NAME]           the keys of each stage and section: type, default, range, help\n"
    "\n"
    "PRESET is a preset file or the name of a shipped preset (see `gallop presets`).\n"
    "`gallop run --help` for run options. --version prints versions.\n";

static const char run_usage_text[] =
    "usage: gallop run PRESET [INPUT...] [options]\n"
    "\n"
    "Runs PRESET over INPUT: files, and folders scanned for the preset's input.include\n"
    "globs. Without INPUT, the preset's input.paths are used.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR     write outputs to DIR (default: the preset's output.dir)\n"
    "  -j, --jobs N         photos in flight (default: number of cores)\n"
    "  --set KEY=VALUE      override a preset value, e.g. --set resize.width=2048;\n"
    "                       repeatable; validated like the preset\n"
    "  -n, --dry-run        print what would be built, write nothing\n"
    "  --force              rebuild every output (every run rebuilds all photos until\n"
    "                       incremental runs land; accepted now so scripts keep working)\n"
    "  -q, --quiet          print only errors and the summary line\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 all photos done; 1 some failed (the others are written);\n"
    "2 usage or preset error; 3 gallop could not start.\n";

static const char check_usage_text[] =
    "usage: gallop check PRESET [--set KEY=VALUE]...\n"
    "\n"
    "Validates PRESET without touching any photo and prints the resolved pipeline\n"
    "(after extends and --set), one stage per line with every effective value.\n";

/* Shipped presets: $GALLOP_PRESETS_DIR, else the source tree this binary was
 * built from, else the installed copy. */
static const char *
presets_dir(void)
{
    const char *env = getenv("GALLOP_PRESETS_DIR");

    if (env && *env)
        return env;
    if (g_file_test(GAL_PRESETS_DIR, G_FILE_TEST_IS_DIR))
        return GAL_PRESETS_DIR;
    return GAL_INSTALLED_PRESETS_DIR;
}

static void
print_error(const gal_error *err)
{
    char line[2048];

    fprintf(stderr, "%s\n", gal_error_format(err, line, sizeof(line)));
}

static int
print_errors(const gal_errors *errs)
{
    gboolean usage_or_preset = FALSE;

    for (int i = 0; i < errs->count; i++) {
        print_error(&errs->items[i]);
        if (errs->items[i].code == GAL_ERR_USAGE || errs->items[i].code == GAL_ERR_PRESET)
            usage_or_preset = TRUE;
    }
    if (errs->dropped)
        fprintf(stderr, "gallop: ... and %d more errors\n", errs->dropped);
    return usage_or_preset || errs->count == 0 ? EXIT_USAGE : EXIT_SOME_FAILED;
}

static int
load_preset(const char *name, GPtrArray *overrides, gal_preset **out)
{
    gal_load_options opts = { presets_dir(), (const char *const *) overrides->pdata,
        (int) overrides->len };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);

    if (gal_preset_load(name, &opts, out, errs) == 0)
        return 0;
    print_errors(errs);
    if (errs->count > 1 || errs->dropped)
        fprintf(stderr, "gallop: %d errors in %s\n", errs->count + errs->dropped, name);
    return -1;
}

typedef struct {
    gboolean quiet;
} progress_state;

static void
on_photo(const gal_photo_result *photo, int done, int total, void *user)
{
    const progress_state *state = user;

    (void) done;
    (void) total;
    switch (photo->status) {
    case GAL_PHOTO_FAILED:
    case GAL_PHOTO_IGNORED:
        print_error(&photo->error);
        break;
    case GAL_PHOTO_PLANNED:
        printf("build  %s -> %s\n", photo->input, photo->output);
        break;
    case GAL_PHOTO_DONE:
        if (!state->quiet)
            printf("wrote  %s (%dx%d)\n", photo->output, photo->width, photo->height);
        break;
    }
    fflush(stdout);
}

static int
parse_jobs(const char *text, int *jobs)
{
    char *end;
    long v = strtol(text, &end, 10);

    if (*text == '\0' || *end != '\0' || v < 1 || v > 1024) {
        fprintf(stderr, "gallop: -j takes a number of photos from 1 to 1024, got \"%s\"\n",
            text);
        return -1;
    }
    *jobs = (int) v;
    return 0;
}

/* Contact sheets: one line each, and failures like a photo's. */
static int
print_sheets(const gal_run_summary *s, gboolean quiet)
{
    int failed = 0;

    for (int i = 0; i < s->n_sheets; i++) {
        const gal_photo_result *sheet = &s->sheets[i];

        if (sheet->status == GAL_PHOTO_DONE) {
            if (!quiet)
                printf("sheet  %s (%dx%d)\n", sheet->output, sheet->width, sheet->height);
        }
        else {
            print_error(&sheet->error);
            failed++;
        }
    }
    return failed;
}

static void
print_summary(const gal_run_summary *s, const char *preset_name, gboolean dry_run)
{
    if (dry_run) {
        fprintf(stderr, "gallop: %s: %d photos, %d would be built, %d refused, %d skipped\n",
            preset_name, s->total, s->planned, s->failed, s->ignored);
        return;
    }
    fprintf(stderr, "gallop: %s: %d photos: %d written, %d failed, %d skipped", preset_name,
        s->total, s->done, s->failed, s->ignored);
    if (s->n_sheets)
        fprintf(stderr, "; %d contact sheet%s", s->n_sheets, s->n_sheets == 1 ? "" : "s");
    fprintf(stderr, "; in %.2f s\n", s->seconds);
    if (s->failed) {
        fprintf(stderr, "failed:\n");
        for (int i = 0; i < s->total; i++)
            if (s->photos[i].status == GAL_PHOTO_FAILED) {
                char line[2048];

                fprintf(stderr, "  %s\n", gal_error_format(&s->photos[i].error, line,
                    sizeof(line)));
            }
    }
}

static int
cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "jobs", required_argument, NULL, 'j' },
        { "set", required_argument, NULL, 's' },
        { "dry-run", no_argument, NULL, 'n' },
        { "force", no_argument, NULL, 'f' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    g_autoptr(GPtrArray) overrides = g_ptr_array_new();
    gal_run_options opts = { 0 };
    progress_state state = { FALSE };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_run_summary *summary = NULL;
    gal_preset *preset = NULL;
    int c, status;

    while ((c = getopt_long(argc, argv, "o:j:nqh", longopts, NULL)) != -1)
        switch (c) {
        case 'o': opts.output_dir = optarg; break;
        case 'j':
            if (parse_jobs(optarg, &opts.jobs))
                return EXIT_USAGE;
            break;
        case 's': g_ptr_array_add(overrides, optarg); break;
        case 'n': opts.dry_run = true; break;
        case 'f': opts.force = TRUE; break;
        case 'q': state.quiet = TRUE; break;
        case 'h': fputs(run_usage_text, stdout); return EXIT_ALL_DONE;
        default: fputs(run_usage_text, stderr); return EXIT_USAGE;
        }
    if (optind >= argc) {
        fprintf(stderr, "gallop run: name a preset\n\n%s", run_usage_text);
        return EXIT_USAGE;
    }
    g_ptr_array_add(overrides, NULL);
    overrides->len--;
    if (load_preset(argv[optind], overrides, &preset))
        return EXIT_USAGE;

    opts.inputs = (const char *const *) argv + optind + 1;
    opts.n_inputs = argc - optind - 1;
    opts.progress = on_photo;
    opts.user = &state;
    if (gal_run(preset, &opts, &summary, errs)) {
        status = print_errors(errs);
        gal_run_summary_free(summary);
        gal_preset_free(preset);
        return status;
    }
    status = print_sheets(summary, state.quiet) ? EXIT_SOME_FAILED : EXIT_ALL_DONE;
    print_summary(summary, gal_preset_name(preset), opts.dry_run);
    if (summary->failed)
        status = EXIT_SOME_FAILED;
    gal_run_summary_free(summary);
    gal_preset_free(preset);
    return status;
}

static int
cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "set", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    g_autoptr(GPtrArray) overrides = g_ptr_array_new();
    gal_preset *preset = NULL;
    g_autofree char *text = NULL;
    int c;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
        switch (c) {
        case 's': g_ptr_array_add(overrides, optarg); break;
        case 'h': fputs(check_usage_text, stdout); return EXIT_ALL_DONE;
        default: fputs(check_usage_text, stderr); return EXIT_USAGE;
        }
    if (optind != argc - 1) {
        fputs(check_usage_text, stderr);
        return EXIT_USAGE;
    }
    g_ptr_array_add(overrides, NULL);
    overrides->len--;
    if (load_preset(argv[optind], overrides, &preset))
        return EXIT_USAGE;
    text = gal_preset_describe(preset);
    fputs(text, stdout);
    gal_preset_free(preset);
    return EXIT_ALL_DONE;
}

static int
cmd_presets(void)
{
    gal_error err = { 0 };
    g_autofree char *list = gal_presets_list(presets_dir(), &err);
    g_auto(GStrv) lines = NULL;

    if (!list) {
        print_error(&err);
        return EXIT_USAGE;
    }
    lines = g_strsplit(list, "\n", -1);
    for (int i = 0; lines[i] && *lines[i]; i++) {
        g_auto(GStrv) cols = g_strsplit(lines[i], "\t", 2);

        printf("%-22s %s\n", cols[0], cols[1] ? cols[1] : "");
    }
    return EXIT_ALL_DONE;
}

static int
cmd_stages(int argc, char **argv)
{
    gal_error err = { 0 };
    g_autofree char *text = NULL;

    if (argc > 2) {
        fputs("usage: gallop stages [NAME]\n", stderr);
        return EXIT_USAGE;
    }
    if (!(text = gal_stages_describe(argc == 2 ? argv[1] : NULL, &err))) {
        print_error(&err);
        return EXIT_USAGE;
    }
    fputs(text, stdout);
    return EXIT_ALL_DONE;
}

int
main(int argc, char **argv)
{
    gal_error err = { 0 };
    const char *command = argc > 1 ? argv[1] : NULL;
    int status;

    if (!command) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
        strcmp(command, "help") == 0) {
        fputs(usage_text, stdout);
        return EXIT_ALL_DONE;
    }
    if (gal_init(argv[0], &err)) {
        print_error(&err);
        return EXIT_START;
    }
    if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0) {
        printf("gallop %s (libvips %s)\n", gal_version(), gal_libvips_version());
        status = EXIT_ALL_DONE;
    }
    else if (strcmp(command, "run") == 0)
        status = cmd_run(argc - 1, argv + 1);
    else if (strcmp(command, "check") == 0)
        status = cmd_check(argc - 1, argv + 1);
    else if (strcmp(command, "presets") == 0)
        status = cmd_presets();
    else if (strcmp(command, "stages") == 0)
        status = cmd_stages(argc - 1, argv + 1);
    else {
        fprintf(stderr, "gallop: unknown command \"%s\"\n\n%s", command, usage_text);
        status = EXIT_USAGE;
    }
    gal_shutdown();
    return status;
}
