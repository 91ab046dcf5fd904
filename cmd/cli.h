/* cli.h: what the command line's files share (cmd/ only parses
 * arguments, calls the pipeline through gallop.h and prints). */
#ifndef GAL_CLI_H
#define GAL_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#include "gallop.h"

/* Interrupted: 128 + the signal, as a shell reports it (130 for Ctrl-C,
 * 143 for SIGTERM, as a scheduler or `kill` sends it). */
enum { EXIT_ALL_DONE = 0, EXIT_SOME_FAILED = 1, EXIT_USAGE = 2, EXIT_START = 3,
    EXIT_SIGNAL_BASE = 128 };

enum { OPT_CHECK = 256, OPT_PRUNE, OPT_FOLLOW, OPT_REPORT, OPT_LOG, OPT_SHARD, OPT_SHARDS,
    OPT_MEMORY };

/* The --help texts, which gallop(1) prints too (main.c). */
extern const char usage_text[], run_usage_text[], merge_usage_text[], check_usage_text[],
    stages_usage_text[];
/* The long options each command takes, which the completions offer too. */
extern const struct option run_longopts[], merge_longopts[], check_longopts[];

typedef struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
} cli_command;

extern const cli_command cli_commands[];
extern const size_t cli_n_commands;

/* The run's cancel flag, which the library watches, and the first signal
 * that set it (progress.c). */
extern int cancel_flag;
extern volatile sig_atomic_t first_signal;

/* What a run prints as photos finish (progress.c), and how. */
typedef struct {
    gboolean quiet;
    gboolean json;       /* --log json */
    gboolean dry_run;    /* --dry-run or --check: print the plan */
    gboolean check;      /* --check: list only what is stale */
    gboolean live;       /* a progress line on a terminal */
    gboolean line_shown; /* the progress line is on screen */
    gint64 start, last_draw, last_flush;
    int done, total, failed;
    const char *unit;    /* what done/total count: "photos", or "outputs" with several presets */
    const char *pages;   /* what the run's pages are: "gallery pages", "contact sheets", "pages" */
} progress_state;

/* presets_arg.c */
gal_load_options load_options(GPtrArray *overrides, bool follow_symlinks);
int load_preset(const char *name, GPtrArray *overrides, bool follow_symlinks, gal_preset **out);
int count_presets(int argc, char **argv, const char *command);
int load_presets(char **names, int n, GPtrArray *overrides, bool follow_symlinks,
    gal_preset **presets);

/* print.c */
void print_error(const gal_error *err);
int print_errors(const gal_errors *errs);
int print_sheets(const gal_run_summary *s, gboolean quiet);
/* "gallery pages" or "contact sheets" (n == 1: singular). */
const char *pages_noun(const gal_run_summary *s, int n);
void print_orphans(const gal_run_summary *s, gboolean dry_run, gboolean prune);
const char *plural(int n, const char *one, const char *many);
void print_summary(const gal_run_summary *s, gboolean dry_run, gboolean check);
void print_failures(gal_run_summary *const *runs, int n);
int errors_status(const gal_errors *errs, gboolean json);

/* progress.c */
void catch_signals(void);
void clear_line(progress_state *st);
void on_photo(const gal_run_summary *run, const gal_photo_result *photo, int done, int total,
    void *user);

/* args.c */
int parse_jobs(const char *text, int *jobs);
/* --memory SIZE (512M, 2G, 1.5GiB; a bare number is MiB; none: no budget)
 * as bytes (-1: none); -1 after saying what is wrong. */
int parse_memory(const char *text, long long *bytes);
/* --log human|json: *json set; -1 after saying what is wrong. */
int parse_log(const char *text, gboolean *json);
long whole_number(const char *text, long min);
int parse_shard(const char *value, int shards, int *k, int *n, char *source, size_t size);

/* cmd_run.c */
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* cmd_merge.c */
int cmd_merge(int argc, char **argv);

/* cmd_info.c */
int cmd_presets(int argc, char **argv);
int cmd_stages(int argc, char **argv);
int cmd_man(int argc, char **argv);
int cmd_completion(int argc, char **argv);

#endif /* GAL_CLI_H */
