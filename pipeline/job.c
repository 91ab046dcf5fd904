/* job.c: one photo from file to outputs, on one worker.
 *
 * The photo is opened once (decode.c: a regular file, its format told
 * from its first bytes); its header gives the format check, pixel limit
 * and EXIF facts, then its own loader decodes it at the size the first
 * stage asks for (shrink-on-load, colour to sRGB, upright). Stages then
 * chain lazy operations onto it, and the encoder pulls the pixels through
 * the whole graph once, in sequential strips. Every image the decoder
 * makes is handed to the photo's watch (cancel.c), which stops the graph
 * when the run is cancelled or the photo's time is up, and every copy to
 * memory goes through the watch's memory budget. When several presets run
 * over the photo (gallop run A.yaml B.yaml ...), it is decoded once at the
 * largest size they need, held in memory, and scaled down to each
 * preset's size from there. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "cancel.h"
#include "captions.h"
#include "decode.h"
#include "digest.h"
#include "exif.h"
#include "metadata.h"
#include "fsio.h"
#include "icc.h"
#include "glance.h"
#include "job.h"
#include "original.h"
#include "overrides.h"
#include "output.h"
#include "preset.h"
#include "heif.h"
#include "raw.h"
#include "resample.h"
#include "stage.h"
#include "template.h"

static VipsFailOn
vips_fail_on(int fail_on)
{
    switch ((gal_fail_on) fail_on) {
    case GAL_FAIL_ON_NONE: return VIPS_FAIL_ON_NONE;
    case GAL_FAIL_ON_TRUNCATED: return VIPS_FAIL_ON_TRUNCATED;
    case GAL_FAIL_ON_ERROR: return VIPS_FAIL_ON_ERROR;
    case GAL_FAIL_ON_WARNING: return VIPS_FAIL_ON_WARNING;
    }
    return VIPS_FAIL_ON_ERROR;
}

/* The photo's header, by its own loader: nothing is decoded until pixels
 * are asked for. */
static int
open_header(const gal_preset *preset, const gal_photo_file *file, VipsImage **out,
    gal_error *err)
{
    if (file->format == GAL_IMAGE_RAW)
        return gal__raw_header(file, out, err);
    if (gal__photo_load(file, vips_fail_on(preset->input->fail_on), 1, out))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot read");
    return 0;
}

/* The pixel limit is the preset's: checked per preset, from the header. */
static int
check_size(const gal_preset *preset, VipsImage *header, gal_error *err)
{
    double megapixels = (double) header->Xsize * header->Ysize / 1e6;

    if (megapixels > preset->input->max_megapixels)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "%d x %d is %.1f megapixels, over the limit of %g (input.max-megapixels)",
            header->Xsize, header->Ysize, megapixels, preset->input->max_megapixels);
    return 0;
}

static void
facts_from_header(VipsImage *header, gal_facts *facts, GStringChunk *strings)
{
    const void *exif;
    size_t len;

    if (vips_image_get_typeof(header, VIPS_META_EXIF_NAME) &&
        vips_image_get_blob(header, VIPS_META_EXIF_NAME, &exif, &len) == 0)
        gal__facts_from_exif(exif, len, facts, strings);
}

void
gal__facts_from_path(const gal_preset *preset, const char *path, int index, int count,
    gal_facts *facts, GStringChunk *strings)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot;

    *facts = (gal_facts) { 0 };
    if (*name) {
        /* A file's path, no slash at its end: its name is what follows the
         * last slash, as g_path_get_basename() gives it, found in place (a
         * plan names a million photos). */
        dot = strrchr(name, '.');
        facts->name = g_string_chunk_insert(strings, name);
        facts->stem = dot && dot != name ? g_string_chunk_insert_len(strings, name, dot - name)
                                         : facts->name;
    }
    else {
        g_autofree char *base = g_path_get_basename(path);

        dot = strrchr(base, '.');
        facts->name = g_string_chunk_insert(strings, base);
        facts->stem = dot && dot != base ? g_string_chunk_insert_len(strings, base, dot - base)
                                         : facts->name;
    }
    facts->ext = gal__format_ext(preset->output->format);
    facts->preset = preset->name;
    facts->index = index;
    facts->count = count;
}

void
gal__facts_set_dir(gal_facts *facts, const char *rel, GStringChunk *strings)
{
    const char *slash = rel ? strrchr(rel, '/') : NULL;
    const char *end = slash;

    /* `rel` is built by the scan, one '/' between names, so its folder
     * needs no more normalising than "." for the top. Found in place as
     * g_path_get_dirname() finds it: up to the slashes before its name. */
    while (end && end > rel && *end == '/')
        end--;
    if (!slash || (end == rel && rel[0] == '.'))
        facts->dir = "";
    else
        facts->dir = g_string_chunk_insert_len(strings, rel, end - rel + 1);
}

int
gal__photo_facts(const gal_preset *preset, const gal_photo_ref *photo, gal_facts *facts,
    GStringChunk *strings, gal_error *err)
{
    g_autoptr(VipsImage) header = NULL;
    gal_photo_file file;
    int failed;

    if (gal__photo_open(photo->path, &file, err))
        return -1;
    failed = open_header(preset, &file, &header, err) || check_size(preset, header, err);
    gal__photo_close(&file);
    if (failed)
        return -1;
    facts_from_header(header, facts, strings);
    if (gal__caption_resolve(preset->captions, photo, header, facts, strings, err))
        return -1;
    return gal__caption_overrides(preset->captions, photo, header, facts, strings, err);
}

/* The photo's alt text and description, for the run report: one line
 * each, so line breaks become spaces ("" alt: the photo is decoration). */
static void
about_overrides(gal_job *job)
{
    const char *fields[] = { "alt_text", job->facts.alt, "description", job->facts.description };

    for (gsize i = 0; i < G_N_ELEMENTS(fields); i += 2) {
        char *line;

        if (!fields[i + 1])
            continue;
        line = g_strconcat(fields[i], "=", fields[i + 1], NULL);
        g_strdelimit(line, "\r\n", ' ');
        g_ptr_array_add(job->about, line);
    }
}

/* What a site shows of the photo, from its header: EXIF facts (GPS only
 * when the preset's metadata policy writes it into the outputs, so the
 * report tells no more than the files do), and the orientation turned
 * upright (1 when none was, or it was invalid). */
static void
about_from_header(gal_job *job, VipsImage *header)
{
    const void *exif;
    size_t len;
    int orientation = 1;

    if (job->about)
        g_ptr_array_set_size(job->about, 0);
    else
        job->about = g_ptr_array_new_with_free_func(g_free);
    if (job->facts.camera)
        g_ptr_array_add(job->about, g_strdup_printf("camera=%s", job->facts.camera));
    if (job->facts.lens)
        g_ptr_array_add(job->about, g_strdup_printf("lens=%s", job->facts.lens));
    if (vips_image_get_typeof(header, VIPS_META_EXIF_NAME) &&
        vips_image_get_blob(header, VIPS_META_EXIF_NAME, &exif, &len) == 0)
        gal__exif_about(exif, len,
            gal__metadata_keeps_gps(job->preset->output->metadata) &&
                !job->preset->output->remove_location,
            job->about);
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION) &&
        vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation) == 0 &&
        (orientation < 1 || orientation > 8))
        orientation = 1;
    g_ptr_array_add(job->about, g_strdup_printf("orientation=%d", orientation));
}

/* An Orientation outside 1..8 is invalid EXIF: show the pixels as stored. */
static gboolean
orientation_valid(VipsImage *header)
{
    int orientation;

    if (!vips_image_get_typeof(header, VIPS_META_ORIENTATION) ||
        vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation))
        return TRUE;
    return orientation >= 1 && orientation <= 8;
}

/* Shrink a streamed image to `width` x `height` (both no larger) with
 * Lanczos 3, as vips_resize would, but without 8.14's slow vips_reduceh
 * (see gal__scale_rows), which was the largest cost of a 12 MP photo after
 * the decoder. Rows, then columns, are reduced as they stream in; only an
 * image that is not 8-bit is held in memory (already shorter) for the
 * quarter turns that reduce its columns. Everything is lazy: a crop later
 * computes only the columns it keeps. */
static int
shrink_streamed(gal_watch *watch, VipsImage *in, int width, int height, VipsImage **out,
    gal_error *err)
{
    g_autoptr(VipsImage) short_rows = NULL;
    g_autoptr(VipsImage) memory = NULL;

    if (gal__scale_rows(in, height, &short_rows))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot scale");
    if (width == in->Xsize || !gal__columns_turn(short_rows))
        return gal__scale_columns(short_rows, width, out)
            ? gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot scale")
            : 0;
    if (!(memory = gal__watch_to_memory(watch, short_rows, "decoding", err)))
        return -1;
    vips_image_remove(memory, VIPS_META_SEQUENTIAL);
    if (gal__scale_columns(memory, width, out))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot scale");
    /* Later steps see a streamed image again, as if from the decoder, and
     * work in strips: vips_shrinkv (a contact-sheet tile) asked for small
     * tiles re-reads its input row by row, and doubled the photo's cost. */
    vips_image_set_int(*out, VIPS_META_SEQUENTIAL, 1);
    return 0;
}

/* Scale to `width` x `height` with Lanczos 3 through vips_resize, alpha
 * premultiplied so transparent pixels do not bleed colour into their
 * neighbours; the result keeps the input's band format. */
static int
scale_alpha_aware(VipsImage *in, int width, int height, VipsImage **out, gal_error *err)
{
    double hscale = (double) width / in->Xsize;
    double vscale = (double) height / in->Ysize;
    g_autoptr(VipsImage) premultiplied = NULL;
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) unpremultiplied = NULL;

    if (in->Xsize == width && in->Ysize == height) {
        *out = g_object_ref(in);
        return 0;
    }
    if (!vips_image_hasalpha(in)) {
        if (vips_resize(in, out, hscale, "vscale", vscale, NULL))
            return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot scale");
        return 0;
    }
    if (vips_premultiply(in, &premultiplied, NULL) ||
        vips_resize(premultiplied, &scaled, hscale, "vscale", vscale, NULL) ||
        vips_unpremultiply(scaled, &unpremultiplied, NULL) ||
        vips_cast(unpremultiplied, out, in->BandFmt, NULL))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot scale");
    return 0;
}

/* The photo decoded straight to `width` x `height` (upright), as
 * vips_thumbnail does, with a deeper shrink-on-load: vips_thumbnail only
 * lets libjpeg shrink while a factor of two is left for its resampler, so
 * a 12 MP photo bound for 1080x1350 (a factor of 2.2) was decoded whole,
 * and that decode is most of the photo's cost. Here the decoder shrinks as
 * far as its output still covers the target, and Lanczos 3 does the rest,
 * as sharp does by default; bench/RESULTS.md ("Quality") gives what that
 * costs against a full decode. The steps: to sRGB through the embedded
 * profile if there is one (vips_thumbnail converts after scaling, which
 * mixes pixels in the photo's own encoding), scale, then turn upright in
 * memory, which the sequential decoder cannot do. A JPEG (no alpha) is scaled rows as
 * they stream, then columns (shrink_streamed); other formats go through
 * vips_resize, alpha-aware. CMYK, and profiles without the table of the
 * intent, are converted by gallop itself (icc.h), also before scaling;
 * what that has to say goes to `warnings`. The loader's image joins the
 * photo's watch: stopping it stops everything read from it. */
/* `in`, in sRGB (or grey, which Display P3 shares), in Display P3 when
 * `space` says so; itself (a new reference) otherwise. */
static int
srgb_to_space(VipsImage *in, gal_out_profile space, VipsImage **out, gal_error *err)
{
    if (space != GAL_PROFILE_DISPLAY_P3 || in->Bands - vips_image_hasalpha(in) < 3) {
        *out = g_object_ref(in);
        return 0;
    }
    if (vips_icc_transform(in, out, "p3", "input_profile", "srgb", "intent",
            VIPS_INTENT_RELATIVE, "depth", in->BandFmt == VIPS_FORMAT_USHORT ? 16 : 8, NULL))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "colour profile");
    return 0;
}

static int
decode(const gal_photo_file *file, VipsImage *header, VipsImage *thumb,
    const gal_input_opts *input, int width, int height, gboolean rotate, gal_out_profile space,
    gal_watch *watch, VipsImage **out, GString *warnings, gal_error *err)
{
    VipsFailOn fail_on = vips_fail_on(input->fail_on);
    gboolean has_profile = vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0;
    const void *profile = NULL;
    size_t profile_len = 0;
    gboolean own_colour;
    gboolean swap = rotate && vips_image_get_orientation_swap(header);
    int stored_width = swap ? height : width;
    int stored_height = swap ? width : height;
    int shrink = gal__photo_shrink(file->format, header->Xsize, header->Ysize, stored_width,
        stored_height);
    g_autoptr(VipsImage) loaded = NULL;
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) srgb = NULL;
    g_autoptr(VipsImage) spaced = NULL;
    g_autoptr(VipsImage) memory = NULL;
    VipsImage *current;
    gboolean keep_own;

    if (has_profile &&
        vips_image_get_blob(header, VIPS_META_ICC_NAME, &profile, &profile_len))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "colour profile");
    own_colour = gal__icc_is_ours(header, profile, profile_len);
    /* output.profile keep: an RGB photo's pixels stay in its own space. */
    keep_own = space == GAL_PROFILE_KEEP && has_profile && !own_colour &&
        header->Bands - vips_image_hasalpha(header) >= 3 &&
        gal__icc_is_rgb(profile, profile_len);
    /* A second load of the same descriptor, not the header's image: the
     * shrink-on-load factor comes from the header, and a loader takes it
     * only when it starts. Sharing one VipsSource between the two loads
     * would save only the source's set-up: a header load, source included,
     * costs 0.25 ms of a 12 MP photo's ~150 ms (issue 17, measured). */
    /* A raw is developed (or its preview taken) at the size asked for;
     * libraw's memory counts against the photo's budget. */
    if (file->format == GAL_IMAGE_RAW) {
        if (gal__raw_load(file, input->raw, stored_width, stored_height,
                (gint64) input->max_memory_mb << 20, watch, &loaded, err))
            return -1;
    }
    /* A HEIF's embedded thumbnail, when it covers the size wanted, is
     * decoded instead of the photo (a phone's 12 MP frame costs a second
     * and 126 MiB): the rest goes as for any decode. */
    else if (thumb && gal__thumbnail_covers(thumb->Xsize, thumb->Ysize, header->Xsize,
                          header->Ysize, stored_width, stored_height)) {
        if (gal__photo_load_thumbnail(file, fail_on, &loaded))
            return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot decode the thumbnail");
    }
    /* A HEIF of more than 8 bits, straight to 8 by libheif (heif.h): a
     * third less memory than libvips' loader. */
    else if (file->format == GAL_IMAGE_HEIF && header->BandFmt != VIPS_FORMAT_UCHAR) {
        if (gal__heif_load(file, header, fail_on == VIPS_FAIL_ON_WARNING, &loaded))
            return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot decode");
    }
    else if (gal__photo_load(file, fail_on, shrink, &loaded))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot decode");
    if (!gal__watch_add(watch, loaded))
        return gal__watch_check(watch, err);
    current = loaded;
    /* Into the output's space (sRGB unless output.profile says) before
     * scaling, as sharp does: a photo scaled in its own encoding (a
     * gamma-1.8 profile, CMYK) mixes its pixels in that encoding, and
     * edges come out off-colour once converted (issue 43, docs/presets.md
     * "Colour"). The decoder's own shrink (JPEG DCT scaling) is before
     * this, as it must be. */
    if (own_colour) {
        if (gal__icc_to_srgb(current, profile, profile_len, &srgb, warnings, err) ||
            srgb_to_space(srgb, space, &spaced, err))
            return -1;
        current = spaced;
    }
    else if (keep_own)
        ;
    else if (has_profile) {
        if (vips_icc_transform(current, &srgb,
                space == GAL_PROFILE_DISPLAY_P3 ? "p3" : "srgb", "embedded", TRUE, "intent",
                VIPS_INTENT_RELATIVE, NULL))
            return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "colour profile");
        current = srgb;
    }
    else {
        /* No profile: sRGB, as browsers take it. */
        if (file->format == GAL_IMAGE_JPEG) {
            if (vips_colourspace(current, &srgb,
                    current->Bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB,
                    NULL))
                return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot decode");
            current = srgb;
        }
        if (srgb_to_space(current, space, &spaced, err))
            return -1;
        current = spaced;
    }
    if (file->format == GAL_IMAGE_JPEG) {
        if (shrink_streamed(watch, current, stored_width, stored_height, &scaled, err))
            return -1;
    }
    else if (scale_alpha_aware(current, stored_width, stored_height, &scaled, err))
        return -1;
    current = scaled;
    if (!rotate || vips_image_get_orientation(current) == 1) {
        *out = g_object_ref(current);
        return 0;
    }
    if (!(memory = gal__watch_to_memory(watch, current, "turning upright", err)))
        return -1;
    if (vips_autorot(memory, out, NULL))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot turn upright");
    return 0;
}

/* Stages see 8-bit sRGB, with alpha when the photo has it. */
static int
to_srgb8(VipsImage *in, VipsImage **out, gal_error *err)
{
    g_autoptr(VipsImage) srgb = NULL;

    if (in->Type == VIPS_INTERPRETATION_sRGB && in->BandFmt == VIPS_FORMAT_UCHAR) {
        *out = g_object_ref(in);
        return 0;
    }
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot convert to sRGB");
    if (srgb->BandFmt == VIPS_FORMAT_UCHAR) {
        *out = g_steal_pointer(&srgb);
        return 0;
    }
    if (vips_cast_uchar(srgb, out, NULL))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot convert to 8 bit");
    return 0;
}

/* The size (upright, in pixels) the preset's first stage wants the photo
 * decoded at: what shrink-on-load may aim for. The whole photo when the
 * first stage does not say; without stages, the largest of output.widths
 * (the photo is then the finished picture, and nothing reads it at a
 * larger size). */
static void
load_size(const gal_preset *preset, int width, int height, int *load_width, int *load_height)
{
    const gal_int_list *widths = &preset->output->widths;

    *load_width = width;
    *load_height = height;
    if (preset->stages->len == 0 && widths->n > 0 && widths->items[0] < width) {
        *load_width = widths->items[0];
        *load_height = MAX(1, (int) lround((double) height * widths->items[0] / width));
    }
    if (preset->stages->len > 0) {
        const gal_stage_instance *first = &g_array_index(preset->stages, gal_stage_instance, 0);
        gal_stage_ctx sc = gal__stage_ctx(first);

        if (first->def->load_size)
            first->def->load_size(&sc, width, height, load_width, load_height);
    }
}

/* The stage offers originals, but only a JPEG's can be published under
 * the metadata policy without decoding it: the page links this photo's
 * largest file instead, and the report says so. */
static void
warn_not_published(gal_job *job, const gal_stage_instance *st)
{
    g_autofree char *line = g_strdup_printf("%s: not a JPEG: its original is not published; "
                                            "the download link is to its largest file",
        st->def->name);
    g_autofree char *all = job->warnings ? g_strconcat(job->warnings, "\n", line, NULL)
                                         : g_strdup(line);

    job->warnings = g_string_chunk_insert(job->strings, all);
}

/* What the stages showed of the photo's caption, from the image they made
 * (GAL_META_*), for the run report. */
static void
take_caption(gal_job *job, VipsImage *image)
{
    const char *shown = NULL;

    job->caption_cut = gal__meta_int(image, GAL_META_CAPTION_CUT) != 0;
    /* The stages' warnings join the decode's (job->warnings). */
    if (vips_image_get_typeof(image, GAL_META_WARNINGS) &&
        vips_image_get_string(image, GAL_META_WARNINGS, &shown) == 0 && *shown) {
        g_autofree char *all = job->warnings ? g_strconcat(job->warnings, "\n", shown, NULL)
                                             : g_strdup(shown);

        job->warnings = g_string_chunk_insert(job->strings, all);
        shown = NULL;
    }
    if (vips_image_get_typeof(image, GAL_META_CAPTION) &&
        vips_image_get_string(image, GAL_META_CAPTION, &shown) == 0) {
        job->caption = g_string_chunk_insert(job->strings, shown);
        job->caption_source = job->facts.caption_source;
    }
}

/* The size of variant v of a finished picture of width x height: its
 * width of output.widths, never above the picture's own (a larger width
 * gives the picture as it is, so a photo's files are known before it is
 * read), the height to the picture's shape. */
static void
variant_size(const gal_job *job, int v, int width, int height, int *w, int *h)
{
    *w = job->variants[v].width ? MIN(job->variants[v].width, width) : width;
    *h = *w == width ? height : MAX(1, (int) lround((double) height * *w / width));
}

/* A line for the run's summary and report, and the photo's record. */
static void
add_warning(gal_job *job, const char *line)
{
    g_autofree char *all = job->warnings ? g_strconcat(job->warnings, "\n", line, NULL)
                                         : g_strdup(line);

    job->warnings = g_string_chunk_insert(job->strings, all);
}

/* What the quality search chose for variant v (output.quality auto,
 * output.max-bytes): a "quality=Q SCORE ENCODES FILE" line of what a site shows
 * of the photo (the report gives each file's), and a warning when the
 * file could not be what the preset asked for. */
static void
note_quality(gal_job *job, int v, const gal_write_info *info)
{
    const gal_output_opts *o = job->preset->output;
    const char *rel = job->variant_rels[v];
    char score[G_ASCII_DTOSTR_BUF_SIZE] = "-";

    if (!info->quality)
        return;
    if (info->score >= 0)
        g_snprintf(score, sizeof score, "%.2f", info->score);
    if (!job->about)
        job->about = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(job->about, g_strdup_printf("quality=%d %s %d %s", info->quality, score,
        info->encodes, rel));
    if (info->over_cap) {
        g_autofree char *line = g_strdup_printf("%s: over output.max-bytes (%d) even at "
            "quality 1", rel, o->max_bytes);

        add_warning(job, line);
    }
    else if (info->below_target && o->quality == GAL_QUALITY_AUTO) {
        g_autofree char *line = g_strdup_printf("%s: output.max-bytes (%d) held it to quality "
            "%d, scoring %s dB, below output.target %s (%.1f dB)", rel, o->max_bytes,
            info->quality, score, o->target, info->target);

        add_warning(job, line);
    }
    else if (info->below_target) {
        g_autofree char *line = g_strdup_printf("%s: output.max-bytes (%d) held it to quality "
            "%d, below output.quality %d", rel, o->max_bytes, info->quality, o->quality);

        add_warning(job, line);
    }
    else if (info->unreachable) {
        g_autofree char *line = g_strdup_printf("%s: even quality %d scores %s dB, below "
            "output.target %s (%.1f dB)", rel, info->quality, score, o->target,
            info->target);

        add_warning(job, line);
    }
}

/* Write variant v of the photo from `image`, already at its size; `memo`
 * is shared by the searches of the photo's files (quality.h). */
static int
write_variant(gal_job *job, int v, VipsImage *image, gal_quality_memo *memo, gal_error *err)
{
    gal_output_opts o = *job->preset->output;
    /* The photo's caption as its sources give it, whatever a band showed
     * of it (a template around it, or cut at max-lines). */
    gal_write_info info = { .preset_name = job->preset->name, .caption = job->facts.caption,
        .facts = &job->facts, .watch = job->watch, .memo = memo };
    struct gal_job_file *file = &job->files[v];

    /* A shallow copy: only the format differs between variants. */
    o.format = job->variants[v].format;
    file->width = image->Xsize;
    file->height = image->Ysize;
    if (gal__output_write_info(&o, image, job->out_dir, job->variant_rels[v], &info, err))
        return -1;
    file->bytes = info.bytes;
    memcpy(file->sha256, info.sha256, sizeof(file->sha256));
    note_quality(job, v, &info);
    return 0;
}

/* Variant v is the same picture in the same format as the earlier
 * variant u (both widths above the picture's own): its bytes are u's, so
 * they are copied rather than encoded again (an AVIF costs far more). */
static int
copy_variant(gal_job *job, int u, int v, gal_error *err)
{
    static const gal_read_rules rules = { "", NULL, FALSE, 0, GAL_ERR_OUTPUT };
    g_autofree char *data = NULL;
    gsize len = 0;
    int fd = gal__open_beneath(job->out_dir->fd, job->variant_rels[u]);
    int failed;

    if (fd < 0)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot read %s/%s: %s",
            job->out_dir->path, job->variant_rels[u], g_strerror(errno));
    failed = gal__fd_read_all(fd, job->variant_rels[u], &rules, &data, &len, err);
    close(fd);
    if (failed || gal__write_atomic_beneath(job->out_dir->fd, job->out_dir->path,
                      job->variant_rels[v], data, len, FALSE, err))
        return -1;
    /* From the bytes: u may be a file this run left as it was. */
    job->files[v].width = job->files[u].width;
    job->files[v].height = job->files[u].height;
    job->files[v].bytes = (gint64) len;
    {
        g_autofree char *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
            (const guchar *) data, len);

        g_strlcpy(job->files[v].sha256, hex, sizeof(job->files[v].sha256));
    }
    return 0;
}

/* The finished picture `image` (after every stage) written in each
 * variant: each width of output.widths, never above the picture's own
 * (a larger width gives the picture as it is, so the files a photo makes
 * are known before it is read), in each format. The largest is scaled
 * from the lazy graph as it streams; with more than one file it is then
 * held in memory (already at the largest width, never the whole photo
 * when a width is smaller) and the others scaled down from it, so the
 * photo is decoded once, not once per file. */
static int
write_variants(gal_job *job, VipsImage *image, gal_error *err)
{
    g_autoptr(VipsImage) largest = NULL;
    /* A picture's formats at one size are searched on one preparation. */
    g_autoptr(gal_quality_memo) memo = gal__quality_memo_new();
    int width = image->Xsize, height = image->Ysize;

    for (int v = 0; v < job->n_variants; v++) {
        int w, h;
        g_autoptr(VipsImage) scaled = NULL;
        int same = -1;

        variant_size(job, v, width, height, &w, &h);
        if (!(job->write_files & (G_GUINT64_CONSTANT(1) << v))) {
            /* Up to date: left as it is, but the largest is still made
             * for the others, and the size is known for a copy. */
            if (!largest && scale_alpha_aware(image, w, h, &largest, err))
                return -1;
            if (v == 0 && job->n_variants > 1) {
                VipsImage *memory = gal__watch_to_memory(job->watch, largest, "decoding", err);

                g_object_unref(largest);
                if (!(largest = memory))
                    return -1;
            }
            job->files[v].width = w;
            job->files[v].height = h;
            continue;
        }
        for (int u = 0; u < v && same < 0; u++)
            if (job->files[u].width == w && job->files[u].height == h &&
                job->variants[u].format == job->variants[v].format)
                same = u;
        if (same >= 0) {
            if (copy_variant(job, same, v, err))
                return -1;
            continue;
        }

        if (!largest) {
            /* Variant 0 is the largest (widths are sorted). */
            if (scale_alpha_aware(image, w, h, &scaled, err))
                return -1;
            if (job->n_variants > 1) {
                largest = gal__watch_to_memory(job->watch, scaled, "decoding", err);
                if (!largest)
                    return -1;
                g_clear_object(&scaled);
                scaled = g_object_ref(largest);
            }
            else
                largest = g_object_ref(scaled);
        }
        else if (scale_alpha_aware(largest, w, h, &scaled, err))
            return -1;
        if (write_variant(job, v, scaled, memo, err))
            return -1;
    }
    return 0;
}

/* The index of the preset's last resize stage; -1: none. */
static int
last_resize(const gal_preset *preset)
{
    int last = -1;

    for (guint i = 0; i < preset->stages->len; i++)
        if (strcmp(g_array_index(preset->stages, gal_stage_instance, i).def->name, "resize") == 0)
            last = (int) i;
    return last;
}

/* output.sharpen after the last resize, before the overlays that follow
 * (text and logos are drawn sharp already): only when the photo came out
 * smaller than it is, judged on the axis scaled least (a cover crop keeps
 * one axis whole). An enlargement is never sharpened: it would sharpen the
 * interpolation. */
static int
sharpen_after_resize(const gal_job *job, VipsImage *image, VipsImage **out, gal_error *err)
{
    double scale = MAX((double) image->Xsize / MAX(1, job->photo_width),
        (double) image->Ysize / MAX(1, job->photo_height));

    const gal_output_opts *o = job->preset->output;

    if (o->sharpen.amount == GAL_SHARPEN_NONE || scale >= 1 || !job->photo_width) {
        *out = g_object_ref(image);
        return 0;
    }
    if (gal__sharpen(image, (gal_sharpen) o->sharpen.amount, (gal_medium) o->sharpen.medium,
            o->ppi, out))
        return gal_error_from_vips(err, GAL_ERR_STAGE, NULL, "output.sharpen");
    return 0;
}

gal_about *
gal__about_from_array(const GPtrArray *about)
{
    return about ? gal__about_new((const char *const *) about->pdata, about->len) : NULL;
}

void
gal__item_set_outputs(VipsImage *item, const char *rel, int width, int height,
    gal_format format)
{
    g_autofree char *line = NULL;

    if (!item || !rel)
        return;
    line = g_strdup_printf("%s\t%d\t%d\t%s", rel, width, height, gal__format_name(format));
    vips_image_set_string(item, GAL_META_OUTPUTS, line);
}

void
gal__item_add_output(VipsImage *item, const char *rel, int width, int height,
    gal_format format)
{
    const char *before = NULL;
    g_autofree char *lines = NULL;

    if (!item || !rel)
        return;
    if (!vips_image_get_typeof(item, GAL_META_OUTPUTS) ||
        vips_image_get_string(item, GAL_META_OUTPUTS, &before)) {
        gal__item_set_outputs(item, rel, width, height, format);
        return;
    }
    lines = g_strdup_printf("%s\n%s\t%d\t%d\t%s", before, rel, width, height,
        gal__format_name(format));
    vips_image_set_string(item, GAL_META_OUTPUTS, lines);
}

void
gal__item_add_digest(VipsImage *item, const char *rel, const gal_sha256 *sha256)
{
    const char *before = NULL;
    g_autofree char *lines = NULL;
    char hex[65];

    if (!item || !rel || !gal_sha256_hex(sha256, hex))
        return;
    if (vips_image_get_typeof(item, GAL_META_DIGESTS))
        vips_image_get_string(item, GAL_META_DIGESTS, &before);
    lines = before && *before ? g_strdup_printf("%s\n%s\t%s", before, rel, hex)
                              : g_strdup_printf("%s\t%s", rel, hex);
    vips_image_set_string(item, GAL_META_DIGESTS, lines);
}

VipsImage *
gal__item_from_about(const gal_about *about)
{
    static const guint8 black[3] = { 0, 0, 0 };
    const char *label = gal__about_get(about, GAL_ABOUT_PAGE_LABEL);
    const char *placeholder = gal__about_get(about, "placeholder");
    const char *color = gal__about_get(about, "color");
    g_autofree char *text = NULL;
    VipsImage *item;

    if (!label || !placeholder || !color)
        return NULL;
    if (!(item = vips_image_new_from_memory_copy(black, sizeof(black), 1, 1, 3,
              VIPS_FORMAT_UCHAR)))
        return NULL;
    text = gal__about_value_unescape(label);
    vips_image_set_string(item, GAL_META_LABEL, text);
    vips_image_set_string(item, GAL_META_PLACEHOLDER, placeholder);
    vips_image_set_string(item, GAL_META_COLOR, color);
    return item;
}

/* The item's label into the photo's record, when the page needs nothing
 * else of the photo's pixels than the placeholder and colour the record
 * keeps: a text page (a gallery's) from the preset's last stage, which
 * taps the finished picture itself. The pages can then be made again
 * (an album.yaml edited) without opening the photo. */
static void
take_page_label(gal_job *job, const gal_stage_instance *st, guint at)
{
    const char *label = NULL;
    g_autofree char *escaped = NULL;

    if (!job->about || !st->def->build_text || at + 1 != job->preset->stages->len ||
        !vips_image_get_typeof(job->gather_item, GAL_META_LABEL) ||
        vips_image_get_string(job->gather_item, GAL_META_LABEL, &label))
        return;
    escaped = gal__about_value_escape(label);
    g_ptr_array_add(job->about, g_strconcat(GAL_ABOUT_PAGE_LABEL "=", escaped, NULL));
}

/* The caption goes into the report (as alt text) whether or not a stage
 * showed it; the output's own metadata keeps only what a stage showed. */
static void
take_unshown_caption(gal_job *job)
{
    if (!job->caption && job->facts.caption) {
        job->caption = job->facts.caption;
        job->caption_source = job->facts.caption_source;
    }
}

/* The finished image's placeholder and dominant colour, into job->about.
 * `image` is in memory: the encoder then reads the same pixels. */
static int
take_glance(gal_job *job, VipsImage *image, gal_error *err)
{
    g_autoptr(VipsImage) thumb = NULL;
    g_autofree char *placeholder = NULL;
    char color[8];

    if (!job->about)
        return 0;
    if (gal__glance_thumb(image, &thumb) || !(placeholder = gal__glance_placeholder(thumb)))
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "placeholder");
    gal__glance_color(thumb, color);
    g_ptr_array_add(job->about, g_strdup_printf("color=%s", color));
    g_ptr_array_add(job->about, g_strdup_printf("placeholder=%s", placeholder));
    return 0;
}

/* What the photo's item links to (a gallery's srcset): every file of the
 * photo, largest first, for a finished picture of width x height (each
 * width of output.widths as write_variants makes it, never above it). */
static void
item_outputs(gal_job *job, int width, int height)
{
    /* No file of its own (output.photos false): nothing to link to. */
    if (!job->variants || !job->variant_rels) {
        gal__item_set_outputs(job->gather_item, job->output_rel, width, height,
            job->preset->output->format);
        return;
    }
    for (int v = 0; v < job->n_variants; v++) {
        int w, h;

        variant_size(job, v, width, height, &w, &h);
        if (v == 0)
            gal__item_set_outputs(job->gather_item, job->variant_rels[v], w, h,
                job->variants[v].format);
        else
            gal__item_add_output(job->gather_item, job->variant_rels[v], w, h,
                job->variants[v].format);
    }
}

/* Run the preset's stages on `image` (a new reference, taken) and write
 * the output. */
static int
job_finish(gal_job *job, VipsImage *source, gal_error *err)
{
    const gal_preset *preset = job->preset;
    g_autoptr(VipsImage) image = source;
    gal_photo photo = { &job->facts, job->watch };
    int sharpen_after = last_resize(preset);
    gboolean in_memory = FALSE;

    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        gal_stage_ctx sc = gal__stage_ctx(st);
        VipsImage *next = NULL;

        if (st->def->kind == GAL_STAGE_GATHER && !job->make_item)
            continue;
        if (st->def->kind == GAL_STAGE_GATHER) {
            /* The tile must not cost a second pass through the decoder:
             * hold the (already shrunk) photo in memory, and let both the
             * tile and the rest of the stages read it from there. */
            VipsImage *memory = gal__watch_to_memory(job->watch, image, "decoding", err);

            if (!memory)
                return -1;
            g_object_unref(image);
            image = memory;
            in_memory = TRUE;
            gal_facts on_sheet = job->facts;
            gal_photo tile = { &on_sheet, job->watch };

            /* The label's {index} is the photo's place on the sheets. */
            on_sheet.index = job->gather_index;
            VIPS_UNREF(job->gather_item);
            if (st->def->tap(&sc, &tile, image, &job->gather_item, err)) {
                if (!err->key[0])
                    g_strlcpy(err->key, st->def->name, sizeof(err->key));
                return -1;
            }
            if (st->def->originals && st->def->originals(&sc) &&
                !gal__original_file_publishable(job->input))
                warn_not_published(job, st);
            /* What the item links to; the sizes are final when no
             * stage follows (they are set again once written). */
            item_outputs(job, image->Xsize, image->Ysize);
            take_page_label(job, st, i);
            /* An up-to-date photo is only opened for its contact-sheet
             * tile: its own output stays as it is. */
            if (!job->make_output) {
                take_caption(job, image);
                take_unshown_caption(job);
                return 0;
            }
            continue;
        }
        in_memory = FALSE;
        if (st->def->build(&sc, &photo, image, &next, err)) {
            if (!err->key[0])
                g_strlcpy(err->key, st->def->name, sizeof(err->key));
            return -1;
        }
        g_object_unref(image);
        image = next;
        if ((int) i == sharpen_after) {
            if (sharpen_after_resize(job, image, &next, err)) {
                g_strlcpy(err->key, "output.sharpen", sizeof(err->key));
                return -1;
            }
            g_object_unref(image);
            image = next;
        }
    }
    take_caption(job, image);
    if (!job->make_output) {
        take_unshown_caption(job);
        return 0;
    }
    if (job->about) {
        /* The placeholder is made from the finished pixels: held in
         * memory once, so that it and the encoder read the same pixels
         * and the graph runs once. */
        if (!in_memory) {
            VipsImage *memory = gal__watch_to_memory(job->watch, image, "placeholder", err);

            if (!memory)
                return -1;
            g_object_unref(image);
            image = memory;
        }
        if (take_glance(job, image, err))
            return -1;
    }
    if (write_variants(job, image, err))
        return -1;
    /* Variant 0's figures, when it was written (else the records'). */
    job->out_width = job->files[0].width;
    job->out_height = job->files[0].height;
    job->out_bytes = job->files[0].bytes;
    memcpy(job->out_sha256, job->files[0].sha256, sizeof(job->out_sha256));
    item_outputs(job, job->files[0].width, job->files[0].height);
    take_unshown_caption(job);
    return 0;
}

void
gal__shared_decode_size(int width, int height, const int *load_w, const int *load_h, int n,
    int *decode_w, int *decode_h)
{
    *decode_w = n > 0 ? load_w[0] : width;
    *decode_h = n > 0 ? load_h[0] : height;
    if (n < 2)
        return;
    for (int k = 1; k < n; k++) {
        *decode_w = MAX(*decode_w, load_w[k]);
        *decode_h = MAX(*decode_h, load_h[k]);
    }
    *decode_w = MIN(*decode_w, width);
    *decode_h = MIN(*decode_h, height);
}

/* Decode once for the jobs in `group` (those whose preset has this
 * input.fail-on; failed[] marks the others) and finish each of them. */
static void
run_group(const gal_photo_file *file, gal_job *const *jobs, int n, const gboolean *in_group,
    VipsImage *header, VipsImage *thumb, gal_error *errs)
{
    g_autofree int *load_w = g_new0(int, n);
    g_autofree int *load_h = g_new0(int, n);
    g_autoptr(VipsImage) decoded = NULL;
    g_autoptr(VipsImage) shared = NULL;
    gboolean rotate = orientation_valid(header);
    int width = header->Xsize, height = header->Ysize;
    int decode_w = 0, decode_h = 0, users = 0;
    const gal_input_opts *input = NULL;
    gal_out_profile space = GAL_PROFILE_SRGB;
    gal_error group_err = { 0 };
    g_autoptr(GString) warnings = g_string_new(NULL);

    if (rotate && vips_image_get_orientation_swap(header)) {
        width = header->Ysize;
        height = header->Xsize;
    }
    for (int k = 0; k < n; k++) {
        if (!in_group[k])
            continue;
        load_size(jobs[k]->preset, width, height, &load_w[users], &load_h[users]);
        input = jobs[k]->preset->input;
        space = jobs[k]->preset->output->profile;
        users++;
    }
    gal__shared_decode_size(width, height, load_w, load_h, users, &decode_w, &decode_h);

    if (decode(file, header, thumb, input, decode_w, decode_h, rotate, space, jobs[0]->watch,
            &decoded, warnings, &group_err) == 0 &&
        to_srgb8(decoded, &shared, &group_err) == 0 && (users > 1 || jobs[0]->solo)) {
        /* Shared by several graphs: held in memory once, already shrunk,
         * rather than decoded again for each. Solo, after a failure: the
         * whole decode first, so that its failure is the input's. */
        VipsImage *memory = gal__watch_to_memory(jobs[0]->watch, shared, "decoding", &group_err);

        g_object_unref(shared);
        shared = memory;
    }

    for (int k = 0, user = 0; k < n; k++) {
        VipsImage *source = NULL;

        if (!in_group[k])
            continue;
        jobs[k]->photo_width = width;
        jobs[k]->photo_height = height;
        if (warnings->len)
            jobs[k]->warnings = g_string_chunk_insert(jobs[k]->strings, warnings->str);
        if (group_err.code)
            errs[k] = group_err;
        else if (scale_alpha_aware(shared, load_w[user], load_h[user], &source, &errs[k]) == 0)
            job_finish(jobs[k], source, &errs[k]);
        user++;
    }
}

/* What the photo is estimated to take in memory (decode.h) for the jobs
 * not failed yet: decoded as run_group will decode it, at the largest
 * size they need, from its thumbnail `thumb` (may be NULL) when that
 * covers it. */
static gint64
photo_memory(const gal_photo_file *file, gal_job *const *jobs, int n, const gboolean *handled,
    VipsImage *header, VipsImage *thumb)
{
    gboolean swap = orientation_valid(header) && vips_image_get_orientation_swap(header);
    int width = swap ? header->Ysize : header->Xsize;
    int height = swap ? header->Xsize : header->Ysize;
    int decode_w = 0, decode_h = 0, stored_w, stored_h, shrink;

    for (int k = 0; k < n; k++) {
        int w, h;

        if (handled[k])
            continue;
        load_size(jobs[k]->preset, width, height, &w, &h);
        decode_w = MAX(decode_w, MIN(w, width));
        decode_h = MAX(decode_h, MIN(h, height));
    }
    stored_w = swap ? decode_h : decode_w;
    stored_h = swap ? decode_w : decode_h;
    if (thumb && gal__thumbnail_covers(thumb->Xsize, thumb->Ysize, header->Xsize, header->Ysize,
                     stored_w, stored_h))
        return gal__photo_memory(file->format, thumb->Xsize, thumb->Ysize, thumb->Bands,
            (int) vips_format_sizeof(thumb->BandFmt), 1, decode_w, decode_h);
    shrink = gal__photo_shrink(file->format, header->Xsize, header->Ysize, stored_w, stored_h);
    return gal__photo_memory(file->format, header->Xsize, header->Ysize, header->Bands,
        (int) vips_format_sizeof(header->BandFmt), shrink, decode_w, decode_h);
}

/* A HEIF photo's embedded thumbnail, its header only, or NULL: none, or
 * it cannot be read (the photo itself is decoded then). */
static VipsImage *
thumbnail_header(const gal_photo_file *file, const gal_preset *preset, VipsImage *header)
{
    VipsImage *thumb = NULL;

    if (file->format != GAL_IMAGE_HEIF)
        return NULL;
    if (gal__photo_load_thumbnail(file, vips_fail_on(preset->input->fail_on), &thumb)) {
        vips_error_clear();
        return NULL;
    }
    /* libvips gives the photo itself when there is no thumbnail. */
    if (thumb->Xsize >= header->Xsize || thumb->Ysize >= header->Ysize)
        g_clear_object(&thumb);
    return thumb;
}

/* The photo's digest, from the start of its open descriptor, which is
 * left at the start again for the loaders. */
static int
take_digest(const gal_photo_file *file, gal_photo_digest *digest, gal_error *err)
{
    gint64 start = g_get_monotonic_time();
    int failed = gal__fd_digests(file->fd, digest->hex, NULL, NULL) != 0 ||
        lseek(file->fd, 0, SEEK_SET) != 0;

    digest->seconds = (g_get_monotonic_time() - start) / 1e6;
    if (failed) {
        digest->hex[0] = '\0';
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "cannot be read: %s",
            g_strerror(errno));
    }
    return 0;
}

void
gal__photo_run(gal_job *const *jobs, int n, gal_photo_digest *digest, gal_admit *admit,
    gint64 *admitted_bytes, gal_error *errs)
{
    gboolean to_decode = FALSE;
    g_autoptr(VipsImage) header = NULL;
    g_autofree gboolean *handled = g_new0(gboolean, MAX(1, n));
    g_autofree gboolean *in_group = g_new0(gboolean, MAX(1, n));
    g_autoptr(VipsImage) thumb = NULL;
    gal_error header_err = { 0 };
    gal_photo_file file;

    *admitted_bytes = -1;
    if (n == 0)
        return;
    if (gal__photo_open(jobs[0]->input, &file, &header_err)) {
        for (int k = 0; k < n; k++)
            errs[k] = header_err;
        return;
    }
    if (digest && !digest->hex[0]) {
        gal_error digest_err = { 0 };

        if (take_digest(&file, digest, &digest_err))
            for (int k = 0; k < n; k++)
                if (jobs[k]->make_output)
                    errs[k] = digest_err;
    }
    if (open_header(jobs[0]->preset, &file, &header, &header_err)) {
        gal__photo_close(&file);
        for (int k = 0; k < n; k++)
            if (!errs[k].code)
                errs[k] = header_err;
        return;
    }
    for (int k = 0; k < n; k++) {
        const gal_preset *preset = jobs[k]->preset;
        gal_photo_ref photo = { jobs[k]->input, jobs[k]->input_root, jobs[k]->follow_links };

        if (errs[k].code || check_size(preset, header, &errs[k]))
            continue;
        facts_from_header(header, &jobs[k]->facts, jobs[k]->strings);
        about_from_header(jobs[k], header);
        if (gal__caption_resolve(preset->captions, &photo, header, &jobs[k]->facts,
                jobs[k]->strings, &errs[k]) ||
            gal__caption_overrides(preset->captions, &photo, header, &jobs[k]->facts,
                jobs[k]->strings, &errs[k]))
            continue;
        about_overrides(jobs[k]);
        if (!jobs[k]->depends)
            jobs[k]->depends = g_ptr_array_new_with_free_func(g_free);
        /* The photo's own sidecar may change anything of it (a crop, the
         * watermark, the caption, its alt text): every output depends on
         * both its names, there or not. */
        gal__overrides_files(jobs[k]->input, jobs[k]->depends);
        /* Whichever template shows the caption (a band, a text watermark,
         * the file name), the output changes when a file it may come from
         * does. */
        if (gal__preset_uses_field(preset, "caption"))
            gal__caption_own_files(preset->captions, jobs[k]->input, jobs[k]->depends);
    }
    for (int k = 0; k < n; k++) {
        handled[k] = errs[k].code != GAL_OK;
        to_decode |= !handled[k];
    }
    /* Nothing is decoded before the run's memory budget admits the photo;
     * its time counts from then. */
    if (to_decode) {
        thumb = thumbnail_header(&file, jobs[0]->preset, header);
        *admitted_bytes = photo_memory(&file, jobs, n, handled, header, thumb);
        gal__watch_pause(jobs[0]->watch);
        gal__admit_take(admit, *admitted_bytes, jobs[0]->watch);
        gal__watch_resume(jobs[0]->watch);
    }
    /* Presets that decode with the same strictness (input.fail-on), into
     * the same space (output.profile) and, for a raw, the same way
     * (input.raw) and budget share one decode; another needs a decode of
     * its own. */
    for (int k = 0; k < n; k++) {
        const gal_input_opts *input = jobs[k]->preset->input;

        if (handled[k])
            continue;
        for (int j = 0; j < n; j++)
            in_group[j] = !handled[j] && jobs[j]->preset->input->fail_on == input->fail_on &&
                jobs[j]->preset->output->profile == jobs[k]->preset->output->profile &&
                (file.format != GAL_IMAGE_RAW || (jobs[j]->preset->input->raw == input->raw &&
                    jobs[j]->preset->input->max_memory_mb == input->max_memory_mb));
        run_group(&file, jobs, n, in_group, header, thumb, errs);
        for (int j = 0; j < n; j++)
            handled[j] = handled[j] || in_group[j];
    }
    gal__photo_close(&file);
}

