/* part.c: a shard's part of the manifest, its own lines (part.h). */
#include <stdio.h>
#include <string.h>

#include "digest.h"
#include "fsio.h"
#include "part.h"

void
gal__part_info_clear(gal_part_info *info)
{
    g_free(info->version);
    g_free(info->cwd);
    g_strfreev(info->inputs);
    *info = (gal_part_info) { 0 };
}

char *
gal__part_name(int shard, int shards)
{
    return g_strdup_printf(GAL_MANIFEST_PREFIX "%d-of-%d.tsv", shard, shards);
}

gboolean
gal__part_name_parse(const char *name, int *shard, int *shards)
{
    char tail[8];
    int k, n;

    if (!g_str_has_prefix(name, GAL_MANIFEST_PREFIX) ||
        sscanf(name + strlen(GAL_MANIFEST_PREFIX), "%d-of-%d.%7s", &k, &n, tail) != 3 ||
        strcmp(tail, "tsv") != 0 || k < 1 || k > n)
        return FALSE;
    /* Only the spelling gal__part_name gives: no "01-of-4". */
    {
        g_autofree char *canonical = gal__part_name(k, n);

        if (strcmp(canonical, name) != 0)
            return FALSE;
    }
    *shard = k;
    *shards = n;
    return TRUE;
}

static void
append_int(GString *out, gint64 v)
{
    g_string_append_printf(out, "\t%" G_GINT64_FORMAT, v);
}

/* A photo's seconds: the shortest of 15, 16 or 17 digits that reads back
 * as the same double. A time taken in microseconds is a few digits
 * ("0.05295"), which parse_double reads without strtod; all 17 of them
 * ("0.052950000000000004", g_ascii_dtostr) sent every one down strtod's
 * slow road, a fourteenth of a merge's instructions. */
static void
append_double(GString *out, double v)
{
    static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    for (size_t f = 0; f < G_N_ELEMENTS(formats); f++)
        if (g_ascii_strtod(g_ascii_formatd(buf, sizeof(buf), formats[f], v), NULL) == v)
            break;
    g_string_append_c(out, '\t');
    g_string_append(out, buf);
}

void
gal__part_append_header(GString *out, const gal_part_info *info)
{
    g_string_append(out, "shard");
    append_int(out, info->shard);
    append_int(out, info->shards);
    gal__manifest_append_field(out, info->preset_digest);
    gal__manifest_append_field(out, info->version);
    if (info->forced)
        gal__manifest_append_field(out, "forced");
    g_string_append(out, "\ninputs");
    gal__manifest_append_field(out, info->cwd);
    for (int i = 0; info->inputs && info->inputs[i]; i++)
        gal__manifest_append_field(out, info->inputs[i]);
    g_string_append_c(out, '\n');
}

void
gal__part_append_result(GString *out, const char *rel_input, const char *rel_output,
    const char *in_digest, const gal_photo_result *r)
{
    static const gal_error none = { 0 };
    const gal_photo_notes *notes = gal_photo_notes_of(r);
    const gal_error *error = notes->error ? notes->error : &none;
    char sha256[65];

    g_string_append(out, "result");
    gal__manifest_append_field(out, rel_input);
    gal__manifest_append_field(out, rel_output);
    gal__manifest_append_field(out, gal_status_name(r->status));
    gal__manifest_append_field(out, gal_why_name(r->why));
    gal__manifest_append_field(out, notes->why_detail);
    append_int(out, r->width);
    append_int(out, r->height);
    append_int(out, r->bytes);
    gal__manifest_append_field(out, gal_sha256_hex(&r->sha256, sha256));
    gal__manifest_append_field(out, notes->caption);
    gal__manifest_append_field(out, notes->caption_source);
    append_int(out, notes->caption_cut);
    append_double(out, r->seconds);
    append_double(out, r->hash_seconds);
    append_int(out, error->code);
    gal__manifest_append_field(out, error->file);
    append_int(out, error->line);
    append_int(out, error->col);
    gal__manifest_append_field(out, error->key);
    gal__manifest_append_field(out, error->subject);
    gal__manifest_append_field(out, error->msg);
    gal__manifest_append_field(out, in_digest);
    g_string_append_c(out, '\n');
}

void
gal__part_append_done(GString *out, int n_results)
{
    g_string_append(out, "done");
    append_int(out, n_results);
    g_string_append_c(out, '\n');
}

gal_part_result *
gal__part_result_new(const gal_photo_result *r, const char *rel_output, const char *in_digest)
{
    gal_part_result *copy = g_new0(gal_part_result, 1);
    const gal_photo_notes *notes = gal_photo_notes_of(r);

    copy->result = *r;
    copy->result.input = copy->result.output = NULL;
    copy->result.notes = r->notes ? &copy->notes : NULL;
    copy->notes.why_detail = g_strdup(notes->why_detail);
    copy->notes.caption = g_strdup(notes->caption);
    copy->notes.caption_source = g_strdup(notes->caption_source);
    copy->notes.caption_cut = notes->caption_cut;
    copy->notes.error = notes->error ? g_memdup2(notes->error, sizeof(*notes->error)) : NULL;
    /* Not kept in a part (files, warnings): the records hold them. */
    copy->result.about = NULL;
    copy->rel_output = g_strdup(rel_output);
    g_strlcpy(copy->in_digest, in_digest ? in_digest : "", sizeof(copy->in_digest));
    return copy;
}

void
gal__part_result_free(gal_part_result *r)
{
    if (!r)
        return;
    g_free((char *) r->notes.why_detail);
    g_free((char *) r->notes.caption);
    g_free((char *) r->notes.caption_source);
    g_free(r->notes.error);
    g_free(r->rel_output);
    g_free(r);
}

static gboolean
parse_int(const char *text, gint64 min, gint64 max, gint64 *v)
{
    return gal__manifest_int(text, v) && *v >= min && *v <= max;
}

/* A plain decimal ("12", "0.05295") of at most 15 significant digits and
 * 22 after the point, as strtod reads it: its digits, a whole number
 * below 2^53, and the power of ten, exact as doubles too, make one
 * correctly rounded division (Clinger's fast path). FALSE: another shape,
 * for strtod. */
static gboolean
plain_decimal(const char *text, double *v)
{
    static const double tens[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
        1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    guint64 digits = 0;
    int significant = 0, after = -1;
    const char *p = text;

    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            if ((digits || *p != '0') && ++significant > 15)
                return FALSE;
            digits = digits * 10 + (guint64) (*p - '0');
            after += after >= 0;
        }
        else if (*p == '.' && after < 0 && p > text && p[1] >= '0' && p[1] <= '9')
            after = 0;
        else
            break;
    }
    if (p == text || *p || after >= (int) G_N_ELEMENTS(tens))
        return FALSE;
    *v = (double) digits / tens[MAX(after, 0)];
    return TRUE;
}

static gboolean
parse_double(const char *text, double *v)
{
    char *end;

    if (!plain_decimal(text, v)) {
        *v = g_ascii_strtod(text, &end);
        if (end == text || *end)
            return FALSE;
    }
    return *v >= 0 && *v < 1e12;
}

static gboolean
parse_status(const char *name, gal_photo_status *status)
{
    for (int s = GAL_PHOTO_DONE; s <= GAL_PHOTO_CANCELLED; s++)
        if (strcmp(gal_status_name((gal_photo_status) s), name) == 0) {
            *status = (gal_photo_status) s;
            return TRUE;
        }
    return FALSE;
}

static gboolean
parse_why(const char *name, gal_why *why)
{
    for (int w = GAL_WHY_NONE; w <= GAL_WHY_SHEET; w++)
        if (strcmp(gal_why_name((gal_why) w), name) == 0) {
            *why = (gal_why) w;
            return TRUE;
        }
    return FALSE;
}

static gboolean
is_sha256(const char *text)
{
    return !*text || gal__is_sha256_hex(text);
}

/* A "result" line's values that are not strings. */
typedef struct {
    gal_photo_status status;
    gal_why why;
    gint64 width, height, bytes, cut, code, line, col;
    double seconds, hash_seconds;
} result_values;

/* Is the "result" line (f[0] is "result") well formed? Its values into
 * `v` (a photo's seconds are read without strtod: plain_decimal). Nothing
 * is allocated: a merge checks every part's results before it keeps any. */
static gboolean
result_check(char **f, int n, result_values *v)
{
    return n == 23 && (!*f[22] || gal__is_content_digest(f[22])) && *f[1] &&
        parse_status(f[3], &v->status) && parse_why(f[4], &v->why) &&
        parse_int(f[6], 0, G_MAXINT, &v->width) && parse_int(f[7], 0, G_MAXINT, &v->height) &&
        parse_int(f[8], 0, G_MAXINT64, &v->bytes) && is_sha256(f[9]) &&
        parse_int(f[12], 0, 1, &v->cut) &&
        parse_double(f[13], &v->seconds) && parse_double(f[14], &v->hash_seconds) &&
        parse_int(f[15], GAL_OK, GAL_ERR_INTERNAL, &v->code) &&
        parse_int(f[17], 0, G_MAXINT, &v->line) && parse_int(f[18], 0, G_MAXINT, &v->col) &&
        (!*f[2] || gal__path_is_beneath(f[2]));
}

/* One "result" line, checked (f[0] is "result"), into `out`, its strings
 * borrowed from the line (valid while it is), its error, if any, in
 * `error`. */
static gboolean
result_borrow(char **f, int n, gal_part_result *out, gal_error *error)
{
    gal_photo_result *r = &out->result;
    result_values v;

    if (!result_check(f, n, &v))
        return FALSE;
    *out = (gal_part_result) { 0 };
    r->status = v.status;
    r->why = v.why;
    r->seconds = v.seconds;
    r->hash_seconds = v.hash_seconds;
    out->rel_output = *f[2] ? f[2] : NULL;
    /* Both are checked: 64 hex digits or none (a copy of the exact
     * length; g_strlcpy went a character at a time). */
    memcpy(out->in_digest, f[22], strlen(f[22]) + 1);
    out->notes.why_detail = *f[5] ? f[5] : NULL;
    r->width = (int) v.width;
    r->height = (int) v.height;
    r->bytes = v.bytes;
    gal__sha256_from_hex(&r->sha256, f[9]);
    out->notes.caption = *f[10] ? f[10] : NULL;
    out->notes.caption_source = *f[11] ? f[11] : NULL;
    out->notes.caption_cut = v.cut != 0;
    if (v.code != GAL_OK) {
        *error = (gal_error) { .code = (gal_code) v.code, .line = (int) v.line,
            .col = (int) v.col };
        gal__utf8_copy(error->file, f[16], sizeof(error->file));
        gal__utf8_copy(error->key, f[19], sizeof(error->key));
        gal__utf8_copy(error->subject, f[20], sizeof(error->subject));
        gal__utf8_copy(error->msg, f[21], sizeof(error->msg));
        out->notes.error = error;
    }
    if (!gal__photo_notes_empty(&out->notes))
        r->notes = &out->notes;
    return TRUE;
}

/* Reading a part: its lines of other kinds, as the manifest parser meets
 * them. The first fault is kept, with its line. */
typedef struct {
    gal_part_info *info;
    gal_part_result_fn take; /* NULL: each result is checked and counted, not kept */
    void *user;
    int n_results;        /* result lines read */
    gboolean header;
    int fault_line;
    const char *fault;
} part_reader;

static void
fault(part_reader *r, int line, const char *what)
{
    if (!r->fault) {
        r->fault = what;
        r->fault_line = line;
    }
}

static gboolean
is_digest(const char *text)
{
    return strlen(text) == 64 && is_sha256(text);
}

static void
read_line(char **f, int n, int line, gint64 offset, void *user)
{
    part_reader *r = user;
    gal_part_info *info = r->info;
    gint64 k, shards;

    if (info->done)
        fault(r, line, "a line after \"done\"");
    else if (strcmp(f[0], "shard") == 0) {
        if (r->header || (n != 5 && (n != 6 || strcmp(f[5], "forced") != 0)) ||
            !parse_int(f[1], 1, G_MAXINT, &k) ||
            !parse_int(f[2], k, G_MAXINT, &shards) || !is_digest(f[3]))
            fault(r, line, "a bad \"shard\" line");
        else {
            r->header = TRUE;
            info->results_at = offset;
            info->results_line = line;
            info->shard = (int) k;
            info->shards = (int) shards;
            g_strlcpy(info->preset_digest, f[3], sizeof(info->preset_digest));
            info->version = g_strdup(f[4]);
            info->forced = n == 6;
        }
    }
    else if (strcmp(f[0], "inputs") == 0) {
        if (!r->header || info->cwd || n < 2 || !g_path_is_absolute(f[1]))
            fault(r, line, "a bad \"inputs\" line");
        else {
            info->cwd = g_strdup(f[1]);
            info->inputs = g_new0(char *, n - 1);
            for (int p = 2; p < n; p++)
                info->inputs[p - 2] = g_strdup(f[p]);
        }
    }
    else if (strcmp(f[0], "result") == 0) {
        gal_part_result result;
        gal_error error;
        result_values checked;

        if (!r->header || !(r->take ? result_borrow(f, n, &result, &error)
                                    : result_check(f, n, &checked)))
            fault(r, line, "a bad \"result\" line");
        else {
            r->n_results++;
            if (r->take && !r->take(f[1], &result, r->user))
                fault(r, line, "a second result for one photo");
        }
    }
    else if (strcmp(f[0], "done") == 0) {
        gint64 count;

        if (!r->header || n != 2 || !parse_int(f[1], 0, G_MAXINT, &count) ||
            count != r->n_results)
            fault(r, line, "a bad \"done\" line");
        else {
            info->n_results = (int) count;
            info->done = TRUE;
        }
    }
}

static int
part_damaged(const part_reader *r, const char *dir, const char *name, gal_error *err)
{
    if (r->fault_line)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s:%d: %s: the part is "
            "damaged; run its shard again", dir, name, r->fault_line, r->fault);
    return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "%s/%s: %s: the part is damaged; "
        "run its shard again", dir, name, r->fault);
}

/* A result kept in the table `results` (rel input -> gal_part_result):
 * FALSE when the photo has one already. */
static gboolean
keep_result(const char *rel_input, const gal_part_result *result, void *results)
{
    return g_hash_table_insert(results, g_strdup(rel_input),
        gal__part_result_new(&result->result, result->rel_output, result->in_digest));
}

gal_manifest *
gal__part_load(const char *dir, const char *name, gal_part_info *info, GHashTable *results,
    gboolean tails_in_file, gal_error *err)
{
    part_reader r = { info, results ? keep_result : NULL, results, 0, FALSE, 0, NULL };
    gal_manifest *part;

    *info = (gal_part_info) { 0 };
    part = gal__manifest_load_named(dir, name, read_line, &r, tails_in_file);
    if (!r.fault && (!r.header || !info->cwd))
        fault(&r, 0, "no \"shard\" and \"inputs\" lines");
    if (r.fault)
        part_damaged(&r, part->dir, part->name, err);
    return part;
}

int
gal__part_read_results(const char *dir, const char *name, const gal_part_info *checked,
    gal_part_result_fn take, void *user, gal_error *err)
{
    gal_part_info info = { 0 };
    part_reader r = { &info, take, user, 0, FALSE, 0, NULL };
    int failed = 0;

    gal__manifest_read_others(dir, name, checked->results_at, checked->results_line, read_line,
        &r);
    /* The part was checked a moment ago: read again, it must say the same. */
    if (!r.fault && (!r.header || !info.done || info.shard != checked->shard ||
                        info.shards != checked->shards || info.n_results != checked->n_results ||
                        info.results_at != checked->results_at))
        fault(&r, 0, "changed while the merge read it");
    if (r.fault)
        failed = part_damaged(&r, dir, name, err);
    gal__part_info_clear(&info);
    return failed;
}
