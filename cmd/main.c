/* gallop: the command line. Parses arguments, calls the pipeline through
 * gallop.h, prints, and chooses the exit status:
 *   0 every photo done, 1 some photos failed (the rest were written),
 *   2 usage or preset error (nothing written), 3 gallop could not start.
 * This file: the help texts, the options and commands tables, and main();
 * each command is in a cmd_*.c of its own. */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__ /* defined by the headers above */
#include <malloc.h>
#endif

#include "cli.h"

const char usage_text[] =
    "usage: gallop COMMAND [ARGS]\n"
    "\n"
    "Batch image pipeline for photo galleries: one YAML preset says what to make.\n"
    "\n"
    "commands:\n"
    "  run PRESET... [INPUT...]\n"
    "                          process photos (files and/or folders) with one or more presets\n"
    "  merge PRESET... -o DIR  join the shards of a sharded run (run --shard K/N) into one\n"
    "                          run's result: manifest, contact sheets, report\n"
    "  check PRESET            validate a preset and print the resolved pipeline\n"
    "  presets [-v]            list the presets: those in $GALLOP_PRESETS_DIR (folders\n"
    "                          separated by ':'), then the shipped ones (-v: their files)\n"
    "  stages [NAME]           the keys of each stage and section: type, default, range, help\n"
    "                          (--markdown: as tables; --json-schema: a preset's JSON Schema)\n"
    "  man                     this manual, gallop(1), as roff (man -l <(gallop man))\n"
    "  completion bash|zsh     a completion script: commands, options, presets, --set keys\n"
    "\n"
    "PRESET is a preset file or the name of a shipped preset (see `gallop presets`).\n"
    "`gallop run --help` for run options. --version prints versions.\n";

const char run_usage_text[] =
    "usage: gallop run PRESET... [INPUT...] [options]\n"
    "\n"
    "Runs PRESET over INPUT: files, and folders scanned for the preset's input.include\n"
    "globs. Without INPUT, the preset's input.paths are used. Photos whose output is\n"
    "up to date (same photo, preset and gallop, output untouched; see the manifest\n"
    "in the output folder) are skipped.\n"
    "\n"
    "Several presets (gallop run web-large thumbs.yaml insta.yaml ~/trip -o site) run\n"
    "in one pass: each photo is decoded once, at the largest size any of them needs,\n"
    "and each preset writes to its own folder DIR/NAME (NAME: the preset's name), with\n"
    "its own manifest, so reruns, --dry-run, --check and --prune work per preset.\n"
    "Presets come first: the first argument is one, and so is each following one\n"
    "ending in .yaml or .yml, or naming a shipped preset (when no file or folder of\n"
    "that name exists); the rest are photos.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR     write outputs to DIR (default: the preset's output.dir);\n"
    "                       with several presets, to DIR/NAME for each\n"
    "  -j, --jobs N         photos in flight (default: number of cores)\n"
    "  --memory SIZE        memory for the photos in flight together (default 160M):\n"
    "                       each starts when its decode, estimated from its header,\n"
    "                       fits beside the others; one larger than SIZE runs alone.\n"
    "                       512M, 2G (a bare number is MiB), or none\n"
    "  --set KEY=VALUE      override a preset value, e.g. --set resize.width=2048;\n"
    "                       repeatable; validated like the preset\n"
    "  -n, --dry-run        print what would be built or skipped and why; write nothing\n"
    "  --check              write nothing; exit 1 listing outputs that are missing or\n"
    "                       stale, 0 when every output is up to date\n"
    "  --force              rebuild every output, up to date or not\n"
    "  --prune              remove outputs whose photo no longer exists (only files the\n"
    "                       manifest lists, and only if unchanged since written)\n"
    "  --follow-symlinks    follow symbolic links that lead out of an input folder\n"
    "  --report FILE.json   write a JSON report of the run (see docs/report.md)\n"
    "  --log human|json     json: one JSON object per event on stderr\n"
    "  -q, --quiet          print only errors and the summary line\n"
    "  --shard K/N          build only shard K of N (a fixed hash of each photo's path\n"
    "                       within its folder); shards may run at once, on several\n"
    "                       hosts, into one folder; then `gallop merge` joins them\n"
    "  --shard auto         K/N from the scheduler: a Slurm array, a Kubernetes Indexed\n"
    "                       Job (N from --shards or GALLOP_SHARDS), GitLab's parallel:\n"
    "  --shards N           the number of shards, for --shard auto where the\n"
    "                       environment does not say (a Kubernetes Indexed Job)\n"
    "  -h, --help           this help\n"
    "\n"
    "Ctrl-C (or SIGTERM) stops taking photos, abandons those in flight, records what\n"
    "was written and exits 130 (143 for SIGTERM); a second signal exits at once.\n"
    "\n"
    "exit status: 0 all photos done; 1 some failed (the others are written), or with\n"
    "--check, something is not up to date; 2 usage or preset error; 3 gallop could not\n"
    "start; 130 interrupted by Ctrl-C, 143 by SIGTERM.\n";

const char merge_usage_text[] =
    "usage: gallop merge PRESET... [INPUT...] -o DIR [options]\n"
    "\n"
    "Joins what the shards of a sharded run (gallop run ... --shard K/N) left in DIR:\n"
    "checks that every shard finished (exit 1 naming the shards and photos that did not),\n"
    "joins their parts of the manifest into one, makes the contact sheets from the items\n"
    "the shards kept, and reports as one run over every photo would. Give the presets\n"
    "(and --set values) the shards were given; the photos are those the shards were\n"
    "given, unless INPUT names them. Afterwards `gallop run ... --check` is 0.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR     the shards' output folder (default: the preset's output.dir)\n"
    "  -j, --jobs N         parts and items read at once (default: number of cores)\n"
    "  --set KEY=VALUE      override a preset value, as the shards did\n"
    "  --follow-symlinks    as the shards did\n"
    "  --report FILE.json   write the JSON report of the whole run (docs/report.md)\n"
    "  --log human|json     json: the errors and summary as JSON lines on stderr\n"
    "  -q, --quiet          print only errors and the summary line\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 merged, every photo done; 1 a shard or photo is missing, or some\n"
    "photos failed (listed); 2 usage or preset error.\n";

const char check_usage_text[] =
    "usage: gallop check PRESET [--set KEY=VALUE]...\n"
    "\n"
    "Validates PRESET without touching any photo and prints the resolved pipeline\n"
    "(after extends and --set), one stage per line with every effective value.\n";

const char stages_usage_text[] =
    "usage: gallop stages [NAME]\n"
    "       gallop stages --markdown [NAME]\n"
    "       gallop stages --json-schema\n"
    "\n"
    "The keys of each stage and section (or of NAME): type, default, range and help;\n"
    "--markdown prints them as the tables of docs/presets.md, --json-schema as the\n"
    "JSON Schema of a preset (presets/gallop.schema.json).\n";

/* ---- options ------------------------------------------------------------------ */

/* The long options of each command: getopt reads them, and so does
 * `gallop completion`, so the shells complete what the commands take. */

const struct option run_longopts[] = {
    { "output", required_argument, NULL, 'o' },
    { "jobs", required_argument, NULL, 'j' },
    { "memory", required_argument, NULL, OPT_MEMORY },
    { "set", required_argument, NULL, 's' },
    { "dry-run", no_argument, NULL, 'n' },
    { "force", no_argument, NULL, 'f' },
    { "quiet", no_argument, NULL, 'q' },
    { "check", no_argument, NULL, OPT_CHECK },
    { "prune", no_argument, NULL, OPT_PRUNE },
    { "follow-symlinks", no_argument, NULL, OPT_FOLLOW },
    { "report", required_argument, NULL, OPT_REPORT },
    { "log", required_argument, NULL, OPT_LOG },
    { "shard", required_argument, NULL, OPT_SHARD },
    { "shards", required_argument, NULL, OPT_SHARDS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

const struct option merge_longopts[] = {
    { "output", required_argument, NULL, 'o' },
    { "jobs", required_argument, NULL, 'j' },
    { "set", required_argument, NULL, 's' },
    { "quiet", no_argument, NULL, 'q' },
    { "follow-symlinks", no_argument, NULL, OPT_FOLLOW },
    { "report", required_argument, NULL, OPT_REPORT },
    { "log", required_argument, NULL, OPT_LOG },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

const struct option check_longopts[] = {
    { "set", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* The commands: main() runs them from this table, and `gallop completion`
 * offers their names. */
const cli_command cli_commands[] = {
    { "run", cmd_run }, { "merge", cmd_merge }, { "check", cmd_check },
    { "presets", cmd_presets }, { "stages", cmd_stages }, { "man", cmd_man },
    { "completion", cmd_completion },
};
const size_t cli_n_commands = G_N_ELEMENTS(cli_commands);

/* glibc gives each thread an arena of its own: bench/ measured 13% less
 * wall time on the 1080 px set with two arenas in all. Blocks of 4 MiB and
 * more (a decoder's planes and frames) are mapped on their own, so each goes
 * back to the system when freed: kept in the arenas (the threshold was 32
 * MiB), one HEIC's freed libheif planes stayed as holes the next photo's
 * could not fill. Ten runs over the phone set's 10-bit HEICs at -j 2 peaked
 * at 159-205 MiB (median 164) with 32, 151-159 (152) with 4; a 12 MP JPEG
 * set encoded whole, 144-157 against 116-124. At 2 MiB the 1080 px set
 * took 10% more CPU (bench/RESULTS.md, "Phone set", 2026-12-06 21:20). */
static void
tune_allocator(void)
{
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 2);
    mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
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
    tune_allocator();
    if (gal_init(argv[0], &err)) {
        print_error(&err);
        return EXIT_START;
    }
    if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0) {
        gal_vectors vectors = gal_vectors_status();

        printf("gallop %s (libvips %s)\n", gal_version(), gal_libvips_version());
        printf("orc %s: vector paths %s (%s)\n",
            vectors.orc_version ? vectors.orc_version : "unknown",
            vectors.enabled ? "on" : "off", vectors.reason);
        status = EXIT_ALL_DONE;
    }
    else {
        status = -1;
        for (size_t i = 0; i < cli_n_commands; i++)
            if (strcmp(command, cli_commands[i].name) == 0)
                status = cli_commands[i].fn(argc - 1, argv + 1);
        if (status < 0) {
            fprintf(stderr, "gallop: unknown command \"%s\"\n\n%s", command, usage_text);
            status = EXIT_USAGE;
        }
    }
    gal_shutdown();
    return status;
}
