/* cmd_info.c: the commands that describe gallop rather than run it:
 * `presets`, `stages`, `man` (gallop(1)) and `completion`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int
cmd_presets(int argc, char **argv)
{
    /* -v: the file each name finds, to see which of two of a name wins. */
    gboolean verbose = argc >= 2 && (strcmp(argv[1], "-v") == 0 ||
                                        strcmp(argv[1], "--verbose") == 0);
    gal_error err = { 0 };
    gal_load_options opts = load_options(NULL, false);
    g_autofree char *list = gal_presets_list(&opts, &err);
    g_auto(GStrv) lines = NULL;

    if (!list) {
        print_error(&err);
        return EXIT_USAGE;
    }
    lines = g_strsplit(list, "\n", -1);
    for (int i = 0; lines[i] && *lines[i]; i++) {
        g_auto(GStrv) cols = g_strsplit(lines[i], "\t", 3);

        if (verbose)
            printf("%-22s %s\n%-22s (%s)\n", cols[0], cols[1] ? cols[1] : "", "",
                cols[1] && cols[2] ? cols[2] : "");
        else
            printf("%-22s %s\n", cols[0], cols[1] ? cols[1] : "");
    }
    return EXIT_ALL_DONE;
}

int
cmd_stages(int argc, char **argv)
{
    gal_error err = { 0 };
    g_autofree char *text = NULL;
    gboolean markdown = argc >= 2 && strcmp(argv[1], "--markdown") == 0;
    gboolean json = argc >= 2 && strcmp(argv[1], "--json-schema") == 0;
    const char *name;

    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(stages_usage_text, stdout);
        return EXIT_ALL_DONE;
    }
    if (markdown || json) {
        argc--;
        argv++;
    }
    if (argc > 2 || (json && argc > 1) || (argc == 2 && argv[1][0] == '-')) {
        fputs(stages_usage_text, stderr);
        return EXIT_USAGE;
    }
    name = argc == 2 ? argv[1] : NULL;
    if (json) {
        text = gal_json_schema();
        fputs(text, stdout);
        return EXIT_ALL_DONE;
    }
    if (!(text = markdown ? gal_stages_markdown(name, &err) : gal_stages_describe(name, &err))) {
        print_error(&err);
        return EXIT_USAGE;
    }
    fputs(text, stdout);
    return EXIT_ALL_DONE;
}

/* ---- man page and completion --------------------------------------------------- */

/* A usage text as a roff block printed as written. */
static void
print_roff_verbatim(const char *text)
{
    g_autofree char *escaped = gal_roff_escape(text);

    printf(".nf\n%s%s.fi\n", escaped, g_str_has_suffix(escaped, "\n") ? "" : "\n");
}

/* gallop(1), from the very texts --help prints and the parameter tables
 * `gallop stages` prints: `make install` generates and installs it. */
int
cmd_man(int argc, char **argv)
{
    g_autofree char *keys = gal_stages_man();

    (void) argv;
    if (argc > 1) {
        fputs("usage: gallop man   (the manual page, as roff: man -l <(gallop man))\n", stderr);
        return EXIT_USAGE;
    }
    printf(".TH GALLOP 1 \"\" \"gallop %s\" \"User Commands\"\n", gal_version());
    /* Ragged right: lists of globs and key paths leave a justified line
     * too few places to stretch. */
    printf(".ad l\n");
    printf(".SH NAME\ngallop \\- batch image pipeline for photo galleries\n");
    printf(".SH SYNOPSIS\n.B gallop\n.I COMMAND\n[\n.I ARGS\n]\n");
    printf(".SH DESCRIPTION\n");
    print_roff_verbatim(usage_text);
    printf(".SH RUN\n");
    print_roff_verbatim(run_usage_text);
    printf(".SH MERGE\n");
    print_roff_verbatim(merge_usage_text);
    printf(".SH CHECK\n");
    print_roff_verbatim(check_usage_text);
    printf(".SH STAGES\n");
    print_roff_verbatim(stages_usage_text);
    printf(".SH PRESET KEYS\n"
           "A preset is a YAML file: its sections and stages take these keys (key, type, "
           "= default, [range]); \\fB\\-\\-set\\fR \\fISECTION.KEY=VALUE\\fR overrides any "
           "of them.\n%s", keys);
    printf(".SH ENVIRONMENT\n"
           ".TP\n.B GALLOP_PRESETS_DIR\n"
           "Folders of presets, separated by ':', searched for a preset name before the "
           "shipped presets (which stay): a team's own presets, which may extend the shipped "
           "ones.\n"
           ".TP\n.B HOME\n"
           "What \\(ti and $HOME at the start of a file or folder value in a preset stand "
           "for.\n"
           ".TP\n.B SLURM_ARRAY_TASK_ID\\fR, \\fBJOB_COMPLETION_INDEX\\fR, "
           "\\fBCI_NODE_INDEX\\fR, \\fBGALLOP_SHARDS\n"
           "Which shard \\fB\\-\\-shard auto\\fR is.\n");
    printf(".SH FILES\n"
           ".TP\n.I PREFIX/share/gallop/presets\n"
           "The shipped presets, found from the gallop binary (PREFIX/bin/gallop), and their "
           "JSON Schema, gallop.schema.json, for editors.\n");
    printf(".SH SEE ALSO\n"
           "The preset reference, docs/presets.md, and the run report, docs/report.md, in "
           "gallop's sources.\n");
    return EXIT_ALL_DONE;
}

/* Long options as a shell word list: "--output --jobs ...". */
static char *
option_words(const struct option *options)
{
    GString *out = g_string_new(NULL);

    for (const struct option *o = options; o->name; o++)
        g_string_append_printf(out, "%s--%s", out->len ? " " : "", o->name);
    return g_string_free(out, FALSE);
}

static char *
command_words(void)
{
    GString *out = g_string_new(NULL);

    for (size_t i = 0; i < cli_n_commands; i++)
        g_string_append_printf(out, "%s%s", out->len ? " " : "", cli_commands[i].name);
    return g_string_free(out, FALSE);
}

/* The stage and section names `gallop stages NAME` takes. */
static char *
stage_words(void)
{
    g_autofree char *keys = gal_preset_keys();
    g_auto(GStrv) lines = g_strsplit(keys, "\n", -1);
    GString *out = g_string_new(NULL);
    const char *last = "";

    for (int i = 0; lines[i] && *lines[i]; i++) {
        char *dot = strchr(lines[i], '.');

        *dot = '\0';
        if (strcmp(lines[i], last) != 0)
            g_string_append_printf(out, "%s%s", out->len ? " " : "", lines[i]);
        last = lines[i];
    }
    return g_string_free(out, FALSE);
}

static const char bash_completion[] =
    "# bash completion for gallop(1): made by `gallop completion bash` from its own\n"
    "# tables (commands, options, --set keys); preset names come from `gallop presets`,\n"
    "# so GALLOP_PRESETS_DIR's are offered too.\n"
    "_gallop_presets()\n"
    "{\n"
    "    \"${COMP_WORDS[0]}\" presets 2>/dev/null | while read -r name _; do\n"
    "        [[ -n $name ]] && printf '%%s\\n' \"$name\"\n"
    "    done\n"
    "}\n"
    "\n"
    "_gallop()\n"
    "{\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "    local commands='%s --help --version'\n"
    "    local set_keys='%s'\n"
    "    COMPREPLY=()\n"
    "    if (( COMP_CWORD == 1 )); then\n"
    "        COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
    "        return\n"
    "    fi\n"
    "    case $prev in\n"
    "    --set)\n"
    "        compopt -o nospace 2>/dev/null\n"
    "        COMPREPLY=($(compgen -W \"$set_keys\" -S = -- \"$cur\"))\n"
    "        return ;;\n"
    "    -o|--output) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
    "    --report) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
    "    --log) COMPREPLY=($(compgen -W 'human json' -- \"$cur\")); return ;;\n"
    "    -j|--jobs|--shards|--memory) return ;;\n"
    "    --shard) COMPREPLY=($(compgen -W 'auto' -- \"$cur\")); return ;;\n"
    "    esac\n"
    "    local options=\n"
    "    case ${COMP_WORDS[1]} in\n"
    "    run) options='%s' ;;\n"
    "    merge) options='%s' ;;\n"
    "    check) options='%s' ;;\n"
    "    presets) COMPREPLY=($(compgen -W '-v' -- \"$cur\")); return ;;\n"
    "    stages) COMPREPLY=($(compgen -W '--markdown --json-schema %s' -- \"$cur\")); return ;;\n"
    "    completion) COMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\")); return ;;\n"
    "    *) return ;;\n"
    "    esac\n"
    "    if [[ $cur == -* ]]; then\n"
    "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
    "    else\n"
    "        COMPREPLY=($(compgen -W \"$(_gallop_presets)\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
    "    fi\n"
    "}\n"
    "complete -o filenames -F _gallop gallop\n";

static const char zsh_completion[] =
    "#compdef gallop\n"
    "# zsh completion for gallop(1): made by `gallop completion zsh` from its own\n"
    "# tables (commands, options, --set keys); preset names come from `gallop presets`,\n"
    "# so GALLOP_PRESETS_DIR's are offered too.\n"
    "_gallop_presets() {\n"
    "    local -a names\n"
    "    names=(${(f)\"$(${words[1]} presets 2>/dev/null | awk '{print $1}')\"})\n"
    "    compadd -a names\n"
    "}\n"
    "\n"
    "_gallop() {\n"
    "    local -a commands set_keys options\n"
    "    commands=(%s)\n"
    "    set_keys=(%s)\n"
    "    if (( CURRENT == 2 )); then\n"
    "        compadd -a commands; compadd -- --help --version\n"
    "        return\n"
    "    fi\n"
    "    case ${words[CURRENT-1]} in\n"
    "    --set) compadd -S = -a set_keys; return ;;\n"
    "    -o|--output) _files -/; return ;;\n"
    "    --report) _files; return ;;\n"
    "    --log) compadd human json; return ;;\n"
    "    -j|--jobs|--shards|--memory) return ;;\n"
    "    --shard) compadd auto; return ;;\n"
    "    esac\n"
    "    case ${words[2]} in\n"
    "    run) options=(%s) ;;\n"
    "    merge) options=(%s) ;;\n"
    "    check) options=(%s) ;;\n"
    "    presets) compadd -- -v; return ;;\n"
    "    stages) compadd -- --markdown --json-schema %s; return ;;\n"
    "    completion) compadd bash zsh; return ;;\n"
    "    *) return ;;\n"
    "    esac\n"
    "    if [[ $PREFIX == -* ]]; then\n"
    "        compadd -a options\n"
    "    else\n"
    "        _gallop_presets; _files\n"
    "    fi\n"
    "}\n"
    "\n"
    "_gallop \"$@\"\n";

/* A completion script for bash or zsh, generated from the command table,
 * the options getopt takes and the parameter tables: `make install`
 * installs them where the shells look. */
int
cmd_completion(int argc, char **argv)
{
    g_autofree char *cmds = command_words();
    g_autofree char *keys = gal_preset_keys();
    g_autofree char *run = option_words(run_longopts);
    g_autofree char *merge = option_words(merge_longopts);
    g_autofree char *check = option_words(check_longopts);
    g_autofree char *stages = stage_words();
    g_auto(GStrv) key_lines = NULL;
    g_autofree char *key_words = NULL;

    if (argc != 2 || (strcmp(argv[1], "bash") != 0 && strcmp(argv[1], "zsh") != 0)) {
        fputs("usage: gallop completion bash|zsh   (a completion script for the shell)\n",
            stderr);
        return EXIT_USAGE;
    }
    g_strchomp(keys);
    key_lines = g_strsplit(keys, "\n", -1);
    key_words = g_strjoinv(" ", key_lines);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (strcmp(argv[1], "bash") == 0)
        printf(bash_completion, cmds, key_words, run, merge, check, stages);
    else
        printf(zsh_completion, cmds, key_words, run, merge, check, stages);
#pragma GCC diagnostic pop
    return EXIT_ALL_DONE;
}
