/* cmd_merge.c: `gallop merge`, joining a sharded run's parts. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int
cmd_merge(int argc, char **argv)
{
    g_autoptr(GPtrArray) overrides = g_ptr_array_new();
    gal_run_options opts = { 0 };
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_run_summary **summaries = NULL;
    gal_preset **presets = NULL;
    const char *report = NULL;
    gboolean quiet = FALSE, json = FALSE;
    int c, status = EXIT_USAGE, n_presets = 0;

    while ((c = getopt_long(argc, argv, "o:j:qh", merge_longopts, NULL)) != -1)
        switch (c) {
        case 'o': opts.output_dir = optarg; break;
        case 'j':
            if (parse_jobs(optarg, &opts.jobs))
                return EXIT_USAGE;
            break;
        case 's': g_ptr_array_add(overrides, optarg); break;
        case 'q': quiet = TRUE; break;
        case OPT_FOLLOW: opts.follow_symlinks = true; break;
        case OPT_REPORT: report = optarg; break;
        case OPT_LOG:
            if (parse_log(optarg, &json))
                return EXIT_USAGE;
            break;
        case 'h': fputs(merge_usage_text, stdout); return EXIT_ALL_DONE;
        default: fputs(merge_usage_text, stderr); return EXIT_USAGE;
        }
    if (optind >= argc) {
        fprintf(stderr, "gallop merge: name the presets the shards ran\n\n%s",
            merge_usage_text);
        return EXIT_USAGE;
    }
    if ((n_presets = count_presets(argc, argv, "merge")) < 0)
        return EXIT_USAGE;
    presets = g_new0(gal_preset *, n_presets);
    summaries = g_new0(gal_run_summary *, n_presets);
    if (load_presets(argv + optind, n_presets, overrides, opts.follow_symlinks, presets))
        goto out;
    opts.inputs = (const char *const *) argv + optind + n_presets;
    opts.n_inputs = argc - optind - n_presets;
    opts.cancel = &cancel_flag;
    gal_set_jobs(opts.jobs);
    catch_signals();
    /* Only the report lists what a site shows of each photo. */
    opts.lean_results = report == NULL;
    if (gal_merge_presets((const gal_preset *const *) presets, n_presets, &opts, summaries,
            errs)) {
        status = errors_status(errs, json);
        goto out;
    }
    status = EXIT_ALL_DONE;
    for (int r = 0; r < n_presets; r++) {
        gal_run_summary *summary = summaries[r];

        if (print_sheets(summary, quiet))
            status = EXIT_SOME_FAILED;
        print_orphans(summary, FALSE, FALSE);
        for (int w = 0; summary->warnings && summary->warnings[w] && !json; w++)
            fprintf(stderr, "gallop: warning: %s\n", summary->warnings[w]);
        if (summary->manifest_error.code) {
            print_error(&summary->manifest_error);
            status = EXIT_SOME_FAILED;
        }
        if (json) {
            g_autofree char *line = gal_summary_event_json(summary);

            fprintf(stderr, "%s\n", line);
        }
        else
            fprintf(stderr, "gallop: %s: merged: %d photos: %d done, %d failed, %d skipped, "
                "%d up to date; %d %s made; in %.2f s\n", summary->preset,
                summary->total, summary->done, summary->failed, summary->ignored,
                summary->up_to_date, summary->n_sheets,
                pages_noun(summary, summary->n_sheets), summary->seconds);
        if (summary->failed)
            status = MAX(status, EXIT_SOME_FAILED);
        if (summary->interrupted)
            status = EXIT_SIGNAL_BASE + (first_signal ? first_signal : SIGINT);
    }
    if (!json)
        print_failures(summaries, n_presets);
    if (report) {
        gal_error err = { 0 };

        if (gal_runs_report_write((const gal_preset *const *) presets,
                (const gal_run_summary *const *) summaries, n_presets, report, &err)) {
            print_error(&err);
            status = MAX(status, EXIT_SOME_FAILED);
        }
    }
out:
    for (int r = 0; r < n_presets; r++) {
        gal_run_summary_free(summaries ? summaries[r] : NULL);
        gal_preset_free(presets ? presets[r] : NULL);
    }
    g_free(summaries);
    g_free(presets);
    return status;
}
