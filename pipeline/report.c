/* report.c: the run report and the log events, as JSON (docs/report.md).
 * Written by hand with one escaping helper: the shapes are small and
 * fixed, and a JSON library would be one more dependency for it. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "format.h"
#include "fsio.h"
#include "store.h"
#include "pngio.h"
#include "preset.h"

/* A JSON string, quoted: control characters, quotes and backslashes
 * escaped; text that is not UTF-8 is repaired first, so the output is
 * always valid JSON. NULL gives null. */
static void
json_string(GString *out, const char *text)
{
    g_autofree char *repaired = NULL;
    const char *valid = text;
    size_t ascii = 0;

    if (!text) {
        g_string_append(out, "null");
        return;
    }
    /* Nearly every string (a path, a camera's name) is printable ASCII
     * with nothing to escape: told in one pass, and copied as it is. */
    while ((unsigned char) text[ascii] >= 0x20 && (unsigned char) text[ascii] < 0x80 &&
           text[ascii] != '"' && text[ascii] != '\\')
        ascii++;
    if (!text[ascii]) {
        g_string_append_c(out, '"');
        g_string_append_len(out, text, (gssize) ascii);
        g_string_append_c(out, '"');
        return;
    }
    /* Repaired only when it needs it: a copy of each of a merge's
     * million photos' strings was a seventh of the merge with a report.
     * What comes before `ascii` is ASCII, valid as it is. */
    if (!g_utf8_validate(text + ascii, -1, NULL))
        valid = repaired = g_utf8_make_valid(text, -1);
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *) valid; *p; p++) {
        /* What needs no escape goes in a run at a time. */
        size_t plain = 0;

        while (p[plain] >= 0x20 && p[plain] != '"' && p[plain] != '\\')
            plain++;
        g_string_append_len(out, (const char *) p, (gssize) plain);
        p += plain;
        if (!*p)
            break;
        switch (*p) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\b': g_string_append(out, "\\b"); break;
        case '\f': g_string_append(out, "\\f"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        case '\t': g_string_append(out, "\\t"); break;
        default:
            if (*p < 0x20)
                g_string_append_printf(out, "\\u%04x", *p);
            else
                g_string_append_c(out, (char) *p);
        }
    }
    g_string_append_c(out, '"');
}

/* A whole number below a million, in decimal by hand: what "%.6g" gives
 * for it. FALSE for anything else, -0 too (printf writes it "-0"). */
static gboolean
json_small_integer(GString *out, double v)
{
    char digits[8], *at = digits + sizeof(digits);
    long magnitude;

    if (!(v > -1e6 && v < 1e6) || v != (double) (long) v || (v == 0 && signbit(v)))
        return FALSE;
    magnitude = labs((long) v);
    do
        *--at = (char) ('0' + magnitude % 10);
    while ((magnitude /= 10) != 0);
    if (v < 0)
        *--at = '-';
    g_string_append_len(out, at, digits + sizeof(digits) - at);
    return TRUE;
}

/* A number with JSON's syntax whatever the locale: no NaN or infinity.
 * Six significant digits; a whole one (an ISO, a focal length) without
 * printf's machinery, which took a twentieth of a merge with a report. */
static void
json_number(GString *out, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    if (!isfinite(v))
        v = 0;
    if (!json_small_integer(out, v))
        g_string_append(out, g_ascii_formatd(buf, sizeof(buf), "%.6g", v));
}

/* `name` is one of the report's own keys: plain ASCII, nothing to
 * escape, so it goes in as it is (a report writes thirty a photo). */
static void
key(GString *out, const char *name)
{
    size_t n = strlen(name);
    gboolean first = !out->len || out->str[out->len - 1] == '{' || out->str[out->len - 1] == '[';
    char quoted[64];

    if (n + 4 > sizeof(quoted)) {
        g_string_append(out, first ? "" : ",");
        json_string(out, name);
        g_string_append_c(out, ':');
        return;
    }
    quoted[0] = ',';
    quoted[1] = '"';
    memcpy(quoted + 2, name, n);
    quoted[n + 2] = '"';
    quoted[n + 3] = ':';
    g_string_append_len(out, quoted + first, (gssize) (n + 4 - first));
}

static void
key_string(GString *out, const char *name, const char *value)
{
    key(out, name);
    json_string(out, value);
}

static void
key_int(GString *out, const char *name, long long value)
{
    /* In decimal by hand: printf's machinery for each of a million
     * photos' numbers was a twentieth of a merge with a report. */
    char digits[24], *at = digits + sizeof(digits);
    unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long) value
                                             : (unsigned long long) value;

    key(out, name);
    do
        *--at = (char) ('0' + magnitude % 10);
    while ((magnitude /= 10) != 0);
    if (value < 0)
        *--at = '-';
    g_string_append_len(out, at, digits + sizeof(digits) - at);
}

static void
key_number(GString *out, const char *name, double value)
{
    key(out, name);
    json_number(out, value);
}

static void
key_bool(GString *out, const char *name, gboolean value)
{
    key(out, name);
    g_string_append(out, value ? "true" : "false");
}

static const char *
code_name(gal_code code)
{
    switch (code) {
    case GAL_OK: return "ok";
    case GAL_ERR_USAGE: return "usage";
    case GAL_ERR_PRESET: return "preset";
    case GAL_ERR_INPUT: return "input";
    case GAL_ERR_STAGE: return "stage";
    case GAL_ERR_OUTPUT: return "output";
    case GAL_ERR_INIT: return "init";
    case GAL_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}

static void
error_object(GString *out, const gal_error *err)
{
    char line[2048];

    if (!err || err->code == GAL_OK) {
        g_string_append(out, "null");
        return;
    }
    g_string_append_c(out, '{');
    key_string(out, "code", code_name(err->code));
    key_string(out, "key", err->key[0] ? err->key : NULL);
    key_string(out, "message", err->msg);
    key_string(out, "text", gal_error_format(err, line, sizeof(line)));
    g_string_append_c(out, '}');
}

/* ---- what a site shows of a photo (gal_photo_result.about) ---------------------- */

/* The fields of a "key=value" list a report shows, each NULL when
 * absent (the first of a name counts), found in one pass: looked up a
 * name at a time, each of a million photos' lists was scanned fourteen
 * times. */
typedef struct {
    const char *taken, *camera, *lens, *f, *shutter, *iso, *focal_mm, *orientation, *lat, *lon,
        *alt, *color, *placeholder, *alt_text, *description;
} about_view;

static void
about_view_of(const char *const *about, about_view *view)
{
#define ABOUT_NAME(field) { #field, sizeof(#field) - 1, offsetof(about_view, field) }
    static const struct {
        const char *name;
        size_t len, at;
    } names[] = {
        ABOUT_NAME(taken), ABOUT_NAME(camera), ABOUT_NAME(lens), ABOUT_NAME(f),
        ABOUT_NAME(shutter), ABOUT_NAME(iso), ABOUT_NAME(focal_mm), ABOUT_NAME(orientation),
        ABOUT_NAME(lat), ABOUT_NAME(lon), ABOUT_NAME(alt), ABOUT_NAME(color),
        ABOUT_NAME(placeholder), ABOUT_NAME(alt_text), ABOUT_NAME(description),
    };
#undef ABOUT_NAME

    *view = (about_view) { 0 };
    for (int i = 0; about && about[i]; i++) {
        const char *eq = strchr(about[i], '=');
        size_t len = eq ? (size_t) (eq - about[i]) : 0;

        for (size_t k = 0; eq && k < G_N_ELEMENTS(names); k++) {
            const char **slot = (const char **) ((char *) view + names[k].at);

            if (names[k].len == len && memcmp(about[i], names[k].name, len) == 0) {
                if (!*slot)
                    *slot = eq + 1;
                break;
            }
        }
    }
}

/* A number, or null: the list may come from a manifest, which is not
 * trusted to hold numbers where numbers belong. */
static void
key_about_number(GString *out, const char *name, const char *text)
{
    char *end;
    double v = text ? g_ascii_strtod(text, &end) : 0;

    key(out, name);
    if (text && *text && !*end && isfinite(v))
        json_number(out, v);
    else
        g_string_append(out, "null");
}

static gboolean
is_color(const char *text)
{
    if (!text || strlen(text) != 7 || text[0] != '#')
        return FALSE;
    for (int i = 1; i < 7; i++)
        if (!g_ascii_isxdigit(text[i]))
            return FALSE;
    return TRUE;
}

/* A placeholder is only ever a WebP data URI of base64 characters, so a
 * page may put it in src="..." as it is. */
static gboolean
is_placeholder(const char *text)
{
    static const char prefix[] = "data:image/webp;base64,";

    return text && g_str_has_prefix(text, prefix) &&
        strspn(text + sizeof(prefix) - 1,
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") ==
        strlen(text + sizeof(prefix) - 1);
}

static void
about_fields(GString *out, const char *const *about)
{
    about_view v;

    about_view_of(about, &v);
    key_string(out, "alt_text", v.alt_text);
    key_string(out, "description", v.description);
    key_string(out, "taken", v.taken);
    key_string(out, "camera", v.camera);
    key_string(out, "lens", v.lens);
    key(out, "exposure");
    g_string_append_c(out, '{');
    key_about_number(out, "f", v.f);
    key_string(out, "shutter", v.shutter);
    key_about_number(out, "iso", v.iso);
    key_about_number(out, "focal_mm", v.focal_mm);
    g_string_append_c(out, '}');
    key_about_number(out, "orientation", v.orientation);
    key(out, "gps");
    if (v.lat && v.lon) {
        g_string_append_c(out, '{');
        key_about_number(out, "lat", v.lat);
        key_about_number(out, "lon", v.lon);
        key_about_number(out, "alt", v.alt);
        g_string_append_c(out, '}');
    }
    else
        g_string_append(out, "null");
    key_string(out, "color", is_color(v.color) ? v.color : NULL);
    key_string(out, "placeholder", is_placeholder(v.placeholder) ? v.placeholder : NULL);
}

/* The output's format, from its extension (as gallop chose it). */
static const char *
format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    int format = gal__format_of_file(path);

    if (format >= 0)
        return gal__format_name(format);
    if (dot && g_ascii_strcasecmp(dot, ".html") == 0)
        return "html";
    return NULL;
}

/* `path` relative to `dir` (both absolute), with '/'; NULL when it is not
 * beneath it. */
static char *
relative_to(const char *dir, const char *path)
{
    size_t len = dir ? strlen(dir) : 0;

    if (!dir || !path || strncmp(path, dir, len) != 0 || path[len] != '/')
        return NULL;
    return g_strdup(path + len + 1);
}

/* Is `path` the output folder's file `rel` (the folder ends before it)? */
static gboolean
path_is(const char *path, const char *rel)
{
    size_t len = strlen(path), rel_len = strlen(rel);

    return len > rel_len && path[len - rel_len - 1] == '/' &&
        strcmp(path + len - rel_len, rel) == 0;
}

/* The quality the search chose for the file at `path`, its score and how
 * many encodes it took (the photo's "quality=Q SCORE ENCODES FILE" lines,
 * FILE relative to the output folder, job.c: output.quality auto,
 * output.max-bytes), or nulls when its quality was the preset's. */
static void
key_quality(GString *out, const char *const *about, const char *path)
{
    for (int a = 0; about && about[a] && path; a++) {
        const char *line = about[a], *score, *count;
        char *end;
        long quality, encodes;

        if (!g_str_has_prefix(line, "quality="))
            continue;
        quality = strtol(line + strlen("quality="), &end, 10);
        if (*end != ' ' || quality < 1 || quality > 100)
            continue;
        score = end + 1;
        if (!(count = strchr(score, ' ')))
            continue;
        encodes = strtol(count + 1, &end, 10);
        if (*end != ' ' || encodes < 1 || !path_is(path, end + 1))
            continue;
        key_int(out, "quality", quality);
        {
            g_autofree char *score_text = g_strndup(score, (gsize) (count - score));

            key_about_number(out, "score", score_text);
        }
        key_int(out, "encodes", encodes);
        return;
    }
    key(out, "quality");
    g_string_append(out, "null");
    key(out, "score");
    g_string_append(out, "null");
    key(out, "encodes");
    g_string_append(out, "null");
}

/* The fields a photo has in the report and in its log event; its run's
 * output folder makes each output's rel_path. */
static void
photo_fields(GString *out, const gal_run_summary *run, const gal_photo_result *p)
{
    const char *output_dir = run->output_dir;
    const gal_photo_notes *notes = gal_photo_notes_of(p);
    char hex[65];
    g_auto(GStrv) about_copy = gal__about_fields(p->about);
    const char *const *about = (const char *const *) about_copy;
    gboolean has_output = p->output &&
        (p->status == GAL_PHOTO_DONE || p->status == GAL_PHOTO_UP_TO_DATE);

    key_string(out, "input", p->input);
    key_string(out, "preset", run->preset);
    key_string(out, "status", gal_status_name(p->status));
    key_string(out, "reason", p->why == GAL_WHY_NONE ? NULL : gal_why_name(p->why));
    key_string(out, "reason_detail", notes->why_detail);
    key(out, "outputs");
    g_string_append_c(out, '[');
    /* Several files per photo (output.widths, output.formats): each one. */
    for (int f = 0; has_output && f < notes->n_files; f++) {
        const gal_output_file *file = &notes->files[f];
        g_autofree char *rel = relative_to(output_dir, file->path);

        g_string_append(out, f ? ",{" : "{");
        key_string(out, "path", file->path);
        key_string(out, "rel_path", rel);
        key_string(out, "preset", run->preset);
        key_string(out, "format", file->format);
        key_int(out, "width", file->width);
        key_int(out, "height", file->height);
        key_int(out, "bytes", file->bytes);
        key_string(out, "sha256", gal_sha256_hex(&file->sha256, hex));
        key_quality(out, about, file->path);
        g_string_append_c(out, '}');
    }
    if (has_output && notes->n_files == 0) {
        g_string_append_c(out, '{');
        g_autofree char *rel = relative_to(output_dir, p->output);

        key_string(out, "path", p->output);
        key_string(out, "rel_path", rel);
        key_string(out, "format", format_of(p->output));
        key_string(out, "preset", run->preset);
        key_int(out, "width", p->width);
        key_int(out, "height", p->height);
        key_int(out, "bytes", p->bytes);
        key_string(out, "sha256", gal_sha256_hex(&p->sha256, hex));
        key_quality(out, about, p->output);
        g_string_append_c(out, '}');
    }
    g_string_append_c(out, ']');
    key_string(out, "planned_output", has_output ? NULL : p->output);
    key_string(out, "caption", notes->caption);
    key_string(out, "caption_source", notes->caption_source);
    key_bool(out, "caption_cut", notes->caption_cut);
    key_string(out, "skipped", notes->skipped);
    key_string(out, "album", notes->album);
    key(out, "warnings");
    g_string_append_c(out, '[');
    if (notes->warnings) {
        g_auto(GStrv) lines = g_strsplit(notes->warnings, "\n", -1);

        for (int w = 0; lines[w]; w++) {
            if (w)
                g_string_append_c(out, ',');
            json_string(out, lines[w]);
        }
    }
    else {
        /* Not made in this run (up to date, or by a shard): the warnings
         * its record kept (record.c). */
        int n = 0;

        const char *const *fields = about;

        for (int a = 0; fields && fields[a]; a++)
            if (g_str_has_prefix(fields[a], "warning=")) {
                if (n++)
                    g_string_append_c(out, ',');
                json_string(out, fields[a] + strlen("warning="));
            }
    }
    g_string_append_c(out, ']');
    about_fields(out, about);
    key(out, "error");
    error_object(out, notes->error);
    key(out, "timings");
    g_string_append_c(out, '{');
    key_number(out, "total_seconds", p->seconds);
    key_number(out, "hash_seconds", p->hash_seconds);
    g_string_append_c(out, '}');
}

/* The kinds of skipped file (gal_photo_notes.skipped), in the order the
 * report counts them. */
static const char *const skip_kinds[] = { "video", "raw-unsupported", "unknown", "hidden",
    "pair", "link", "special" };

typedef struct {
    int total, done, up_to_date, failed, ignored, planned, cancelled, elsewhere, sheets, orphans;
    int captions_cut; /* photos written whose caption a band cut short */
    int skipped[G_N_ELEMENTS(skip_kinds)]; /* ignored, by kind */
} counts;

static void
add_counts(counts *c, const gal_run_summary *s)
{
    /* Every photo the run was given; a shard lists only its own. */
    c->total += s->total + s->elsewhere;
    c->done += s->done;
    c->up_to_date += s->up_to_date;
    c->failed += s->failed;
    c->ignored += s->ignored;
    c->planned += s->planned;
    c->cancelled += s->cancelled;
    c->elsewhere += s->elsewhere;
    c->sheets += s->n_sheets;
    c->orphans += s->n_orphans;
    for (int i = 0; i < s->total; i++)
        c->captions_cut += s->photos[i].status == GAL_PHOTO_DONE &&
            gal_photo_notes_of(&s->photos[i])->caption_cut;
    /* Counted: a million results are not read again to find none. */
    for (int i = 0; s->ignored > 0 && i < s->total; i++) {
        const char *kind = gal_photo_notes_of(&s->photos[i])->skipped;

        for (gsize k = 0; kind && k < G_N_ELEMENTS(skip_kinds); k++)
            c->skipped[k] += strcmp(kind, skip_kinds[k]) == 0;
    }
}

static void
totals(GString *out, const counts *c)
{
    key_int(out, "photos", c->total);
    key_int(out, "done", c->done);
    key_int(out, "up_to_date", c->up_to_date);
    key_int(out, "failed", c->failed);
    key_int(out, "ignored", c->ignored);
    key_int(out, "planned", c->planned);
    key_int(out, "cancelled", c->cancelled);
    key_int(out, "elsewhere", c->elsewhere);
    key_int(out, "sheets", c->sheets);
    key_int(out, "orphans", c->orphans);
    key_int(out, "captions_cut", c->captions_cut);
    key(out, "skipped");
    g_string_append_c(out, '{');
    for (gsize k = 0; k < G_N_ELEMENTS(skip_kinds); k++)
        key_int(out, skip_kinds[k], c->skipped[k]);
    g_string_append_c(out, '}');
}

static void
summary_totals(GString *out, const gal_run_summary *s)
{
    counts c = { 0 };

    add_counts(&c, s);
    totals(out, &c);
}

/* Open a list, or go on with it: entries of every preset's summary share
 * one list. */
static void
list_item(GString *out, gboolean *first)
{
    if (!*first)
        g_string_append_c(out, ',');
    *first = FALSE;
    g_string_append(out, "\n  {");
}

/* Where a report goes as it is made: its file, a piece at a time, so
 * that a million photos' report (0.7 GB) is never held whole. */
typedef struct {
    gal_atomic file;
    int failed;            /* errno of the first write that failed; 0: none */
} report_file;

/* Pieces of at least this size go to the file. */
#define REPORT_PIECE (1 << 20)

/* All of `out` but its last character (which key() and list_item() look
 * at) to `to`, when it holds a piece's worth; nothing without a file. */
static void
flush_piece(GString *out, report_file *to, gboolean all)
{
    gsize keep = all ? 0 : 1;

    if (!to || (!all && out->len < REPORT_PIECE) || out->len <= keep)
        return;
    if (!to->failed && gal__write_all(to->file.fd, out->str, out->len - keep) != 0)
        to->failed = errno ? errno : EIO;
    g_string_erase(out, 0, (gssize) (out->len - keep));
}

static char *
report_json(const gal_preset *const *presets, const gal_run_summary *const *runs, int n,
    report_file *to)
{
    GString *out = g_string_new("{");
    counts all = { 0 };
    gboolean interrupted = FALSE, sheets_stale = FALSE, first;
    const gal_error *manifest_error = NULL;
    double seconds = 0;
    long long peak = 0;
    g_autofree char *parent = NULL;

    for (int r = 0; r < n; r++) {
        add_counts(&all, runs[r]);
        interrupted = interrupted || runs[r]->interrupted;
        sheets_stale = sheets_stale || runs[r]->sheets_stale;
        if (!manifest_error && runs[r]->manifest_error.code)
            manifest_error = &runs[r]->manifest_error;
        seconds = MAX(seconds, runs[r]->seconds);
        peak = MAX(peak, runs[r]->peak_rss_bytes);
    }
    key_int(out, "gallop_report", 1);
    key(out, "versions");
    g_string_append_c(out, '{');
    key_string(out, "gallop", GAL_VERSION);
    key_string(out, "libvips", vips_version_string());
    key_string(out, "libpng", gal__libpng_version());
    g_string_append_c(out, '}');
    /* One preset: its name and file, its folder. Several: null, and the
     * folder that holds theirs; "presets" has each one's. */
    key(out, "preset");
    if (n == 1) {
        g_string_append_c(out, '{');
        key_string(out, "name", presets[0]->name);
        key_string(out, "path", presets[0]->path);
        g_string_append_c(out, '}');
    }
    else
        g_string_append(out, "null");
    if (n > 1 && runs[0]->output_dir)
        parent = g_path_get_dirname(runs[0]->output_dir);
    key_string(out, "output_dir", n == 1 ? runs[0]->output_dir : parent);
    key(out, "presets");
    g_string_append_c(out, '[');
    first = TRUE;
    for (int r = 0; r < n; r++) {
        list_item(out, &first);
        key_string(out, "name", presets[r]->name);
        key_string(out, "path", presets[r]->path);
        key_string(out, "output_dir", runs[r]->output_dir);
        key_bool(out, "interrupted", runs[r]->interrupted);
        key_bool(out, "sheets_stale", runs[r]->sheets_stale);
        key(out, "shard");
        if (runs[r]->shards) {
            g_string_append_c(out, '{');
            key_int(out, "index", runs[r]->shard);
            key_int(out, "count", runs[r]->shards);
            g_string_append_c(out, '}');
        }
        else
            g_string_append(out, "null");
        key(out, "totals");
        g_string_append_c(out, '{');
        summary_totals(out, runs[r]);
        g_string_append_c(out, '}');
        key(out, "manifest_error");
        error_object(out, &runs[r]->manifest_error);
        key(out, "warnings");
        g_string_append_c(out, '[');
        for (int w = 0; runs[r]->warnings && runs[r]->warnings[w]; w++) {
            if (w)
                g_string_append_c(out, ',');
            json_string(out, runs[r]->warnings[w]);
        }
        g_string_append_c(out, ']');
        g_string_append_c(out, '}');
    }
    g_string_append(out, "\n]");
    key_bool(out, "interrupted", interrupted);
    key_bool(out, "sheets_stale", sheets_stale);
    key_number(out, "elapsed_seconds", seconds);
    key_int(out, "peak_memory_bytes", peak);
    key(out, "totals");
    g_string_append_c(out, '{');
    totals(out, &all);
    g_string_append_c(out, '}');
    key(out, "photos");
    g_string_append_c(out, '[');
    first = TRUE;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < runs[r]->total; i++) {
            list_item(out, &first);
            photo_fields(out, runs[r], &runs[r]->photos[i]);
            g_string_append_c(out, '}');
            flush_piece(out, to, FALSE);
        }
    g_string_append(out, "\n]");
    key(out, "sheets");
    g_string_append_c(out, '[');
    first = TRUE;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < runs[r]->n_sheets; i++) {
            list_item(out, &first);
            photo_fields(out, runs[r], &runs[r]->sheets[i]);
            g_string_append_c(out, '}');
        }
    g_string_append(out, "\n]");
    key(out, "orphans");
    g_string_append_c(out, '[');
    first = TRUE;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < runs[r]->n_orphans; i++) {
            const gal_orphan *o = &runs[r]->orphans[i];

            list_item(out, &first);
            key_string(out, "path", o->output);
            key_string(out, "preset", runs[r]->preset);
            key_string(out, "input", o->input);
            key_bool(out, "renamed", o->renamed);
            key_bool(out, "not_made", o->not_made);
            key_bool(out, "removed", o->removed);
            key(out, "error");
            error_object(out, &o->error);
            g_string_append_c(out, '}');
        }
    g_string_append(out, "\n]");
    key(out, "manifest_error");
    if (manifest_error)
        error_object(out, manifest_error);
    else
        g_string_append(out, "null");
    g_string_append(out, "}\n");
    flush_piece(out, to, TRUE);
    return g_string_free(out, FALSE);
}

char *
gal_runs_report_json(const gal_preset *const *presets, const gal_run_summary *const *runs, int n)
{
    return report_json(presets, runs, n, NULL);
}

int
gal_runs_report_write(const gal_preset *const *presets, const gal_run_summary *const *runs,
    int n, const char *path, gal_error *err)
{
    report_file to = { 0 };

    if (gal__atomic_begin_path(path, &to.file, err))
        return -1;
    g_free(report_json(presets, runs, n, &to));
    if (to.failed) {
        gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s: %s", path,
            g_strerror(to.failed));
        gal__atomic_abort(&to.file);
        return -1;
    }
    return gal__atomic_commit(&to.file, FALSE, err);
}

char *
gal_photo_event_json(const gal_run_summary *run, const gal_photo_result *photo, int done,
    int total)
{
    GString *out = g_string_new("{");

    key_string(out, "event", "photo");
    key_int(out, "done", done);
    key_int(out, "total", total);
    photo_fields(out, run, photo);
    g_string_append_c(out, '}');
    return g_string_free(out, FALSE);
}

char *
gal_error_event_json(const gal_error *err)
{
    GString *out = g_string_new("{");

    key_string(out, "event", "error");
    key(out, "error");
    error_object(out, err);
    g_string_append_c(out, '}');
    return g_string_free(out, FALSE);
}

char *
gal_summary_event_json(const gal_run_summary *s)
{
    GString *out = g_string_new("{");

    key_string(out, "event", "summary");
    key_string(out, "preset", s->preset);
    summary_totals(out, s);
    key_bool(out, "interrupted", s->interrupted);
    key_number(out, "elapsed_seconds", s->seconds);
    key_int(out, "peak_memory_bytes", s->peak_rss_bytes);
    g_string_append_c(out, '}');
    return g_string_free(out, FALSE);
}
