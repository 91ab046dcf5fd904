/* cmd_run.c: `gallop run` and `gallop check`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int
cmd_run(int argc, char **argv)
{
    g_autoptr(GPtrArray) overrides = g_ptr_array_new();
    gal_run_options opts = { 0 };
    const char *shard = NULL;
    long shards = 0;
    char shard_source[128] = "";
    progress_state state = { 0 };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_run_summary **summaries = NULL;
    gal_preset **presets = NULL;
    const char *report = NULL;
    gboolean check = FALSE;
    int c, status = EXIT_USAGE, n_presets = 0;

    while ((c = getopt_long(argc, argv, "o:j:nqh", run_longopts, NULL)) != -1)
        switch (c) {
        case 'o': opts.output_dir = optarg; break;
        case 'j':
            if (parse_jobs(optarg, &opts.jobs))
                return EXIT_USAGE;
            break;
        case OPT_MEMORY:
            if (parse_memory(optarg, &opts.memory_bytes))
                return EXIT_USAGE;
            break;
        case 's': g_ptr_array_add(overrides, optarg); break;
        case 'n': opts.dry_run = true; break;
        case 'f': opts.force = true; break;
        case 'q': state.quiet = TRUE; break;
        case OPT_CHECK: check = TRUE; break;
        case OPT_PRUNE: opts.prune = true; break;
        case OPT_FOLLOW: opts.follow_symlinks = true; break;
        case OPT_REPORT: report = optarg; break;
        case OPT_LOG:
            if (parse_log(optarg, &state.json))
                return EXIT_USAGE;
            break;
        case OPT_SHARD: shard = optarg; break;
        case OPT_SHARDS:
            if ((shards = whole_number(optarg, 1)) < 1) {
                fprintf(stderr, "gallop run: --shards takes a number of shards (1 or more), "
                    "got \"%s\"\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': fputs(run_usage_text, stdout); return EXIT_ALL_DONE;
        default: fputs(run_usage_text, stderr); return EXIT_USAGE;
        }
    if (optind >= argc) {
        fprintf(stderr, "gallop run: name a preset\n\n%s", run_usage_text);
        return EXIT_USAGE;
    }
    if (shards && !shard) {
        fprintf(stderr, "gallop run: --shards goes with --shard auto\n");
        return EXIT_USAGE;
    }
    if (shard && parse_shard(shard, (int) shards, &opts.shard, &opts.shards, shard_source,
                     sizeof(shard_source)))
        return EXIT_USAGE;
    if (shard && opts.prune) {
        fprintf(stderr, "gallop run: --prune removes outputs no photo makes, which no shard "
            "can tell alone: prune with a run that is not sharded, after the merge\n");
        return EXIT_USAGE;
    }
    if (shard && !state.quiet && !state.json)
        fprintf(stderr, "gallop: shard %d of %d (%s)\n", opts.shard, opts.shards, shard_source);
    if (check && (opts.force || opts.prune)) {
        fprintf(stderr, "gallop run: --check changes nothing, so it takes neither --force nor "
            "--prune\n");
        return EXIT_USAGE;
    }
    if ((n_presets = count_presets(argc, argv, "run")) < 0)
        return EXIT_USAGE;
    presets = g_new0(gal_preset *, n_presets);
    summaries = g_new0(gal_run_summary *, n_presets);
    if (load_presets(argv + optind, n_presets, overrides, opts.follow_symlinks, presets))
        goto out;

    if (check)
        opts.dry_run = true;
    state.check = check;
    state.dry_run = opts.dry_run;
    state.live = !state.quiet && !state.json && !opts.dry_run && isatty(STDERR_FILENO);
    state.start = g_get_monotonic_time();
    state.unit = n_presets > 1 ? "outputs" : "photos";
    state.pages = gal_preset_page_noun(presets[0], 2);
    for (int r = 1; r < n_presets; r++)
        if (strcmp(gal_preset_page_noun(presets[r], 2), state.pages) != 0)
            state.pages = "pages";
    opts.inputs = (const char *const *) argv + optind + n_presets;
    opts.n_inputs = argc - optind - n_presets;
    opts.progress = on_photo;
    opts.user = &state;
    /* Only the report lists what a site shows of each photo. */
    opts.lean_results = report == NULL;
    opts.cancel = &cancel_flag;
    gal_set_jobs(opts.jobs);
    catch_signals();
    if (gal_run_presets((const gal_preset *const *) presets, n_presets, &opts, summaries,
            errs)) {
        status = errors_status(errs, state.json);
        goto out;
    }
    clear_line(&state);
    status = EXIT_ALL_DONE;
    for (int r = 0; r < n_presets; r++) {
        gal_run_summary *summary = summaries[r];

        if (print_sheets(summary, state.quiet))
            status = EXIT_SOME_FAILED;
        if (opts.dry_run && summary->sheets_stale)
            printf("%s %s%s%s (%s)\n", check ? "stale " : (summary->pages_are_html ? "build "
                                                                                  : "sheet "),
                n_presets > 1 ? summary->preset : "", n_presets > 1 ? " " : "",
                pages_noun(summary, 2),
                summary->pages_are_html
                    ? "a photo, a caption or an album.yaml changed, or a page is missing or "
                      "modified"
                    : "a photo changed, or a sheet is missing or modified");
        print_orphans(summary, opts.dry_run, opts.prune);
        if (summary->leftovers_removed && !state.json)
            fprintf(stderr, "gallop: removed %d temporary %s left in %s by a run that was "
                "killed\n", summary->leftovers_removed,
                plural(summary->leftovers_removed, "file", "files"), summary->output_dir);
        for (int w = 0; summary->warnings && summary->warnings[w] && !state.json; w++)
            fprintf(stderr, "gallop: warning: %s\n", summary->warnings[w]);
        if (summary->manifest_error.code) {
            print_error(&summary->manifest_error);
            status = EXIT_SOME_FAILED;
        }
    }
    for (int r = 0; r < n_presets; r++) {
        if (state.json) {
            g_autofree char *line = gal_summary_event_json(summaries[r]);

            fprintf(stderr, "%s\n", line);
        }
        else
            print_summary(summaries[r], opts.dry_run, check);
    }
    if (!state.json && !opts.dry_run)
        print_failures(summaries, n_presets);
    if (report) {
        gal_error err = { 0 };

        if (gal_runs_report_write((const gal_preset *const *) presets,
                (const gal_run_summary *const *) summaries, n_presets, report, &err)) {
            print_error(&err);
            status = EXIT_SOME_FAILED;
        }
    }
    for (int r = 0; r < n_presets; r++) {
        const gal_run_summary *summary = summaries[r];

        if (summary->failed)
            status = MAX(status, EXIT_SOME_FAILED);
        if (check && (summary->planned || summary->n_orphans || summary->sheets_stale))
            status = MAX(status, EXIT_SOME_FAILED);
    }
    for (int r = 0; r < n_presets; r++)
        if (summaries[r]->interrupted)
            status = EXIT_SIGNAL_BASE + (first_signal ? first_signal : SIGINT);
out:
    for (int r = 0; r < n_presets; r++) {
        gal_run_summary_free(summaries ? summaries[r] : NULL);
        gal_preset_free(presets ? presets[r] : NULL);
    }
    g_free(summaries);
    g_free(presets);
    return status;
}

int
cmd_check(int argc, char **argv)
{
    g_autoptr(GPtrArray) overrides = g_ptr_array_new();
    gal_preset *preset = NULL;
    g_autofree char *text = NULL;
    int c;

    while ((c = getopt_long(argc, argv, "h", check_longopts, NULL)) != -1)
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
    if (load_preset(argv[optind], overrides, false, &preset))
        return EXIT_USAGE;
    text = gal_preset_describe(preset);
    fputs(text, stdout);
    gal_preset_free(preset);
    return EXIT_ALL_DONE;
}
