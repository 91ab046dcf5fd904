/* report.c: the run report and the log events, as JSON (docs/report.md).
 * Written by hand with one escaping helper: the shapes are small and
 * fixed, and a JSON library would be one more dependency for it. */
#include <math.h>
#include <string.h>

#include "internal.h"

/* A JSON string, quoted: control characters, quotes and backslashes
 * escaped; text that is not UTF-8 is repaired first, so the output is
 * always valid JSON. NULL gives null. */
static void
json_string(GString *out, const char *text)
{
    g_autofree char *valid = NULL;

    if (!text) {
        g_string_append(out, "null");
        return;
    }
    valid = g_utf8_make_valid(text, -1);
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *) valid; *p; p++)
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
    g_string_append_c(out, '"');
}

/* A number with JSON's syntax whatever the locale: no NaN or infinity. */
static void
json_number(GString *out, double v)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    if (!isfinite(v))
        v = 0;
    g_string_append(out, g_ascii_formatd(buf, sizeof(buf), "%.6g", v));
}

static void
key(GString *out, const char *name)
{
    if (out->len && out->str[out->len - 1] != '{' && out->str[out->len - 1] != '[')
        g_string_append_c(out, ',');
    json_string(out, name);
    g_string_append_c(out, ':');
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
    key(out, name);
    g_string_append_printf(out, "%lld", value);
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
status_name(gal_photo_status status)
{
    switch (status) {
    case GAL_PHOTO_DONE: return "done";
    case GAL_PHOTO_FAILED: return "failed";
    case GAL_PHOTO_IGNORED: return "ignored";
    case GAL_PHOTO_PLANNED: return "planned";
    case GAL_PHOTO_UP_TO_DATE: return "up-to-date";
    case GAL_PHOTO_CANCELLED: return "cancelled";
    }
    return "unknown";
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

    if (err->code == GAL_OK) {
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

/* The fields a photo has in the report and in its log event. */
static void
photo_fields(GString *out, const gal_photo_result *p)
{
    gboolean has_output = p->output &&
        (p->status == GAL_PHOTO_DONE || p->status == GAL_PHOTO_UP_TO_DATE);

    key_string(out, "input", p->input);
    key_string(out, "status", status_name(p->status));
    key_string(out, "reason", p->why == GAL_WHY_NONE ? NULL : gal_why_name(p->why));
    key_string(out, "reason_detail", p->why_detail);
    key(out, "outputs");
    g_string_append_c(out, '[');
    if (has_output) {
        g_string_append_c(out, '{');
        key_string(out, "path", p->output);
        key_int(out, "width", p->width);
        key_int(out, "height", p->height);
        key_int(out, "bytes", p->bytes);
        key_string(out, "sha256", p->sha256[0] ? p->sha256 : NULL);
        g_string_append_c(out, '}');
    }
    g_string_append_c(out, ']');
    key_string(out, "planned_output", has_output ? NULL : p->output);
    key_string(out, "caption", p->caption);
    key_string(out, "caption_source", p->caption_source);
    key_bool(out, "caption_cut", p->caption_cut);
    key(out, "error");
    error_object(out, &p->error);
    key(out, "timings");
    g_string_append_c(out, '{');
    key_number(out, "total_seconds", p->seconds);
    key_number(out, "hash_seconds", p->hash_seconds);
    g_string_append_c(out, '}');
}

static void
totals(GString *out, const gal_run_summary *s)
{
    key_int(out, "photos", s->total);
    key_int(out, "done", s->done);
    key_int(out, "up_to_date", s->up_to_date);
    key_int(out, "failed", s->failed);
    key_int(out, "ignored", s->ignored);
    key_int(out, "planned", s->planned);
    key_int(out, "cancelled", s->cancelled);
    key_int(out, "sheets", s->n_sheets);
    key_int(out, "orphans", s->n_orphans);
}

char *
gal_run_report_json(const gal_preset *preset, const gal_run_summary *s)
{
    GString *out = g_string_new("{");

    key_int(out, "gallop_report", 1);
    key(out, "versions");
    g_string_append_c(out, '{');
    key_string(out, "gallop", GAL_VERSION);
    key_string(out, "libvips", vips_version_string());
    key_string(out, "libpng", gal__libpng_version());
    g_string_append_c(out, '}');
    key(out, "preset");
    g_string_append_c(out, '{');
    key_string(out, "name", preset->name);
    key_string(out, "path", preset->path);
    g_string_append_c(out, '}');
    key_string(out, "output_dir", s->output_dir);
    key_bool(out, "interrupted", s->interrupted);
    key_bool(out, "sheets_stale", s->sheets_stale);
    key_number(out, "elapsed_seconds", s->seconds);
    key_int(out, "peak_memory_bytes", s->peak_rss_bytes);
    key(out, "totals");
    g_string_append_c(out, '{');
    totals(out, s);
    g_string_append_c(out, '}');
    key(out, "photos");
    g_string_append_c(out, '[');
    for (int i = 0; i < s->total; i++) {
        if (i)
            g_string_append_c(out, ',');
        g_string_append(out, "\n  {");
        photo_fields(out, &s->photos[i]);
        g_string_append_c(out, '}');
    }
    g_string_append(out, "\n]");
    key(out, "sheets");
    g_string_append_c(out, '[');
    for (int i = 0; i < s->n_sheets; i++) {
        if (i)
            g_string_append_c(out, ',');
        g_string_append(out, "\n  {");
        photo_fields(out, &s->sheets[i]);
        g_string_append_c(out, '}');
    }
    g_string_append(out, "\n]");
    key(out, "orphans");
    g_string_append_c(out, '[');
    for (int i = 0; i < s->n_orphans; i++) {
        if (i)
            g_string_append_c(out, ',');
        g_string_append(out, "\n  {");
        key_string(out, "path", s->orphans[i].output);
        key_string(out, "input", s->orphans[i].input);
        key_bool(out, "renamed", s->orphans[i].renamed);
        key_bool(out, "removed", s->orphans[i].removed);
        key(out, "error");
        error_object(out, &s->orphans[i].error);
        g_string_append_c(out, '}');
    }
    g_string_append(out, "\n]");
    key(out, "manifest_error");
    error_object(out, &s->manifest_error);
    g_string_append(out, "}\n");
    return g_string_free(out, FALSE);
}

int
gal_run_report_write(const gal_preset *preset, const gal_run_summary *summary, const char *path,
    gal_error *err)
{
    g_autofree char *text = gal_run_report_json(preset, summary);

    return gal__write_atomic(path, text, strlen(text), err);
}

char *
gal_photo_event_json(const gal_photo_result *photo, int done, int total)
{
    GString *out = g_string_new("{");

    key_string(out, "event", "photo");
    key_int(out, "done", done);
    key_int(out, "total", total);
    photo_fields(out, photo);
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
    totals(out, s);
    key_bool(out, "interrupted", s->interrupted);
    key_number(out, "elapsed_seconds", s->seconds);
    key_int(out, "peak_memory_bytes", s->peak_rss_bytes);
    g_string_append_c(out, '}');
    return g_string_free(out, FALSE);
}
