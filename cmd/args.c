/* args.c: option values: -j, --memory, --log, and --shard K/N or auto (from a
 * scheduler's environment). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int
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

int
parse_memory(const char *text, long long *bytes)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {
        { "", 1 << 20 }, { "k", 1 << 10 }, { "kb", 1 << 10 }, { "kib", 1 << 10 },
        { "m", 1 << 20 }, { "mb", 1 << 20 }, { "mib", 1 << 20 },
        { "g", 1 << 30 }, { "gb", 1 << 30 }, { "gib", 1 << 30 },
    };
    char *end;
    double v;

    if (g_ascii_strcasecmp(text, "none") == 0) {
        *bytes = -1;
        return 0;
    }
    v = g_ascii_strtod(text, &end);
    if (end != text && g_ascii_isdigit(*text))
        for (size_t u = 0; u < G_N_ELEMENTS(units); u++)
            if (g_ascii_strcasecmp(end, units[u].unit) == 0 && v * units[u].scale >= 1 << 20 &&
                v * units[u].scale <= 1099511627776.0) {
                *bytes = (long long) (v * units[u].scale);
                return 0;
            }
    fprintf(stderr, "gallop: --memory takes a size from 1M to 1024G (512M, 2G; a bare number "
        "is MiB) or none, got \"%s\"\n", text);
    return -1;
}

int
parse_log(const char *text, gboolean *json)
{
    if (strcmp(text, "json") != 0 && strcmp(text, "human") != 0) {
        fprintf(stderr, "gallop: --log takes human or json, got \"%s\"\n", text);
        return -1;
    }
    *json = strcmp(text, "json") == 0;
    return 0;
}

/* ---- shards ------------------------------------------------------------------ */

/* A whole number of at least `min` from `text`; -1 when it is not one. */
long
whole_number(const char *text, long min)
{
    char *end;
    long v;

    if (!text || !g_ascii_isdigit(*text))
        return -1;
    v = strtol(text, &end, 10);
    return *end || v < min || v > 1000000 ? -1 : v;
}

/* An environment variable that is set and not empty, or NULL. */
static const char *
env(const char *name)
{
    const char *value = getenv(name);

    return value && *value ? value : NULL;
}

/* K and N from a scheduler's environment (--shard auto); `source` says
 * which, for the user. `shards` is --shards (0: not given). */
static int
shard_from_env(int shards, int *k, int *n, char *source, size_t size)
{
    const char *slurm = env("SLURM_ARRAY_TASK_ID");
    const char *indexed = env("JOB_COMPLETION_INDEX");
    const char *gitlab = env("CI_NODE_INDEX");

    if (slurm) {
        /* An array --array=0-15:4 has ids 0, 4, 8, 12: shard (id - min) /
         * step + 1 of count. An uneven list (--array=1,5,9 gives step 1)
         * has ids that do not fit, and is refused. */
        long id = whole_number(slurm, 0), min = whole_number(env("SLURM_ARRAY_TASK_MIN"), 0);
        long count = whole_number(env("SLURM_ARRAY_TASK_COUNT"), 1);
        long step = env("SLURM_ARRAY_TASK_STEP") ? whole_number(env("SLURM_ARRAY_TASK_STEP"), 1)
                                                 : 1;

        if (id < 0 || min < 0 || count < 1 || step < 1 || id < min || (id - min) % step ||
            (id - min) / step >= count) {
            fprintf(stderr, "gallop run: --shard auto: SLURM_ARRAY_TASK_ID=%s with "
                "SLURM_ARRAY_TASK_MIN=%s, SLURM_ARRAY_TASK_COUNT=%s and SLURM_ARRAY_TASK_STEP=%s "
                "is not one of evenly spaced tasks (submit an array of evenly spaced ids, "
                "e.g. --array=0-7, or give --shard K/N)\n", slurm,
                env("SLURM_ARRAY_TASK_MIN") ? env("SLURM_ARRAY_TASK_MIN") : "(unset)",
                env("SLURM_ARRAY_TASK_COUNT") ? env("SLURM_ARRAY_TASK_COUNT") : "(unset)",
                env("SLURM_ARRAY_TASK_STEP") ? env("SLURM_ARRAY_TASK_STEP") : "(unset)");
            return -1;
        }
        *k = (int) ((id - min) / step + 1);
        *n = (int) count;
        snprintf(source, size, "Slurm array task %ld", id);
    }
    else if (indexed) {
        long index = whole_number(indexed, 0);
        long total = shards > 0 ? shards : whole_number(env("GALLOP_SHARDS"), 1);

        if (index < 0) {
            fprintf(stderr, "gallop run: --shard auto: JOB_COMPLETION_INDEX=%s is not a "
                "number\n", indexed);
            return -1;
        }
        if (total < 1) {
            fprintf(stderr, "gallop run: --shard auto: a Kubernetes Indexed Job "
                "(JOB_COMPLETION_INDEX=%s) does not say how many shards there are: give "
                "--shards N or set GALLOP_SHARDS to the Job's completions%s\n", indexed,
                env("GALLOP_SHARDS") ? " (GALLOP_SHARDS is not a number)" : "");
            return -1;
        }
        if (index >= total) {
            fprintf(stderr, "gallop run: --shard auto: JOB_COMPLETION_INDEX=%s, but there are "
                "%ld shards (indexes 0 to %ld)\n", indexed, total, total - 1);
            return -1;
        }
        *k = (int) index + 1;
        *n = (int) total;
        snprintf(source, size, "Kubernetes completion index %ld", index);
    }
    else if (gitlab) {
        long index = whole_number(gitlab, 1), total = whole_number(env("CI_NODE_TOTAL"), 1);

        if (index < 1 || total < 1 || index > total) {
            fprintf(stderr, "gallop run: --shard auto: CI_NODE_INDEX=%s with CI_NODE_TOTAL=%s "
                "is not a job of a `parallel:` set\n", gitlab,
                env("CI_NODE_TOTAL") ? env("CI_NODE_TOTAL") : "(unset)");
            return -1;
        }
        *k = (int) index;
        *n = (int) total;
        snprintf(source, size, "GitLab parallel job %ld", index);
    }
    else {
        fprintf(stderr, "gallop run: --shard auto: no scheduler says which shard this is "
            "(none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, CI_NODE_INDEX is set): give "
            "--shard K/N\n");
        return -1;
    }
    if (shards > 0 && shards != *n) {
        fprintf(stderr, "gallop run: --shards %d, but the %s is one of %d\n", shards, source,
            *n);
        return -1;
    }
    return 0;
}

/* --shard K/N or auto (with --shards). */
int
parse_shard(const char *value, int shards, int *k, int *n, char *source, size_t size)
{
    g_auto(GStrv) parts = NULL;
    long kk, nn;

    if (strcmp(value, "auto") == 0)
        return shard_from_env(shards, k, n, source, size);
    parts = g_strsplit(value, "/", -1);
    kk = g_strv_length(parts) == 2 ? whole_number(parts[0], 1) : -1;
    nn = g_strv_length(parts) == 2 ? whole_number(parts[1], 1) : -1;
    if (kk < 1 || nn < 1 || kk > nn) {
        fprintf(stderr, "gallop run: --shard takes K/N (shard K of N, 1 <= K <= N, e.g. "
            "--shard 2/8) or auto, got \"%s\"\n", value);
        return -1;
    }
    if (shards > 0 && shards != nn) {
        fprintf(stderr, "gallop run: --shard %s and --shards %d disagree\n", value, shards);
        return -1;
    }
    *k = (int) kk;
    *n = (int) nn;
    snprintf(source, size, "--shard %s", value);
    return 0;
}
