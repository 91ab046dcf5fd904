/* job.c: one photo from file to output, on one worker.
 *
 * The photo is opened twice, both cheaply: once for its header (format
 * check, pixel limit, EXIF facts), then through vips_thumbnail at the size
 * the first stage asks for (shrink-on-load, auto-orientation, ICC to sRGB).
 * Stages then chain lazy operations onto it, and the encoder pulls the
 * pixels through the whole graph once, in sequential strips. */
#include <string.h>

#include "internal.h"

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

/* Header only: nothing is decoded until pixels are asked for. */
static int
open_header(const gal_preset *preset, const char *path, VipsImage **out, gal_error *err)
{
    const char *loader = vips_foreign_find_load(path);
    double megapixels;
    VipsImage *header;

    if (!loader) {
        vips_error_clear();
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "not an image gallop can read (unknown or blocked format, or empty file)");
    }
    header = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
        vips_fail_on(preset->input->fail_on), NULL);
    if (!header)
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot read");
    megapixels = (double) header->Xsize * header->Ysize / 1e6;
    if (megapixels > preset->input->max_megapixels) {
        gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "%d x %d is %.1f megapixels, over the limit of %g (input.max-megapixels)",
            header->Xsize, header->Ysize, megapixels, preset->input->max_megapixels);
        g_object_unref(header);
        return -1;
    }
    *out = header;
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
    g_autofree char *name = g_path_get_basename(path);
    g_autofree char *stem = g_strdup(name);
    char *dot = strrchr(stem, '.');

    if (dot && dot != stem)
        *dot = '\0';
    *facts = (gal_facts) { 0 };
    facts->name = g_string_chunk_insert(strings, name);
    facts->stem = g_string_chunk_insert(strings, stem);
    facts->ext = gal__format_ext(preset->output->format);
    facts->preset = preset->name;
    facts->index = index;
    facts->count = count;
}

int
gal__photo_facts(const gal_preset *preset, const char *path, gal_facts *facts,
    GStringChunk *strings, gal_error *err)
{
    g_autoptr(VipsImage) header = NULL;

    if (open_header(preset, path, &header, err))
        return -1;
    facts_from_header(header, facts, strings);
    return gal__caption_resolve(preset->captions, path, header, facts, strings, err);
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

static int
decode(const gal_preset *preset, const char *path, int width, int height, gboolean rotate,
    gboolean has_profile, VipsImage **out)
{
    VipsFailOn fail_on = vips_fail_on(preset->input->fail_on);

    /* An export profile makes thumbnail go through the profile connection
     * space: worth it only when there is an embedded profile to import. */
    if (has_profile)
        return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_FORCE,
            "no_rotate", !rotate, "fail_on", fail_on, "export_profile", "srgb", NULL);
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_FORCE,
        "no_rotate", !rotate, "fail_on", fail_on, NULL);
}

int
gal__photo_open(const gal_preset *preset, const char *path, gal_facts *facts,
    GStringChunk *strings, VipsImage **out, gal_error *err)
{
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) decoded = NULL;
    g_autoptr(VipsImage) srgb = NULL;
    gboolean rotate;
    int width, height, load_width, load_height;
    VipsImage *image;

    if (open_header(preset, path, &header, err))
        return -1;
    if (facts) {
        facts_from_header(header, facts, strings);
        if (gal__caption_resolve(preset->captions, path, header, facts, strings, err))
            return -1;
    }

    rotate = orientation_valid(header);
    width = header->Xsize;
    height = header->Ysize;
    if (rotate && vips_image_get_orientation_swap(header)) {
        width = header->Ysize;
        height = header->Xsize;
    }
    load_width = width;
    load_height = height;
    if (preset->stages->len > 0) {
        const gal_stage_instance *first = &g_array_index(preset->stages, gal_stage_instance, 0);
        gal_stage_ctx sc = { first->opts, first->shared, first->loc };

        if (first->def->load_size)
            first->def->load_size(&sc, width, height, &load_width, &load_height);
    }

    /* vips_thumbnail decodes at the smallest size that still leaves a real
     * resampling step (JPEG DCT scaling, WebP scaled decode), turns the
     * photo upright and imports any embedded ICC profile, exporting sRGB. */
    if (decode(preset, path, load_width, load_height, rotate,
            vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0, &decoded))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot decode");
    image = decoded;

    /* Stages see 8-bit sRGB, with alpha when the photo has it. */
    if (image->Type != VIPS_INTERPRETATION_sRGB || image->BandFmt != VIPS_FORMAT_UCHAR) {
        if (vips_colourspace(image, &srgb, VIPS_INTERPRETATION_sRGB, NULL))
            return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot convert to sRGB");
        image = srgb;
        if (image->BandFmt != VIPS_FORMAT_UCHAR) {
            VipsImage *cast;

            if (vips_cast_uchar(image, &cast, NULL))
                return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot convert to 8 bit");
            *out = cast;
            return 0;
        }
    }
    *out = g_object_ref(image);
    return 0;
}

int
gal__job_run(gal_job *job, gal_error *err)
{
    const gal_preset *preset = job->preset;
    g_autoptr(VipsImage) image = NULL;

    if (gal__photo_open(preset, job->input, &job->facts, job->strings, &image, err))
        return -1;
    /* Whichever template shows the caption (a band, a text watermark, the
     * file name), the output changes when a file it may come from does. */
    if (gal__preset_uses_field(preset, "caption"))
        gal__caption_depend(preset->captions, job);
    for (guint i = 0; i < preset->stages->len; i++) {
        const gal_stage_instance *st = &g_array_index(preset->stages, gal_stage_instance, i);
        gal_stage_ctx sc = { st->opts, st->shared, st->loc };
        VipsImage *next = NULL;

        if (st->def->kind == GAL_STAGE_GATHER) {
            /* The tile must not cost a second pass through the decoder:
             * hold the (already shrunk) photo in memory, and let both the
             * tile and the rest of the stages read it from there. */
            VipsImage *memory = vips_image_copy_memory(image);

            if (!memory)
                return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot decode");
            g_object_unref(image);
            image = memory;
            VIPS_UNREF(job->gather_item);
            if (st->def->tap(&sc, job, image, &job->gather_item, err)) {
                if (!err->key[0])
                    g_strlcpy(err->key, st->def->name, sizeof(err->key));
                return -1;
            }
            /* An up-to-date photo is only opened for its contact-sheet
             * tile: its own output stays as it is. */
            if (job->tap_only)
                return 0;
            continue;
        }
        if (st->def->build(&sc, job, image, &next, err)) {
            if (!err->key[0])
                g_strlcpy(err->key, st->def->name, sizeof(err->key));
            return -1;
        }
        g_object_unref(image);
        image = next;
    }
    if (job->tap_only)
        return 0;
    {
        gal_write_info info = { preset->name, job->caption, job->cancel, 0, "" };

        job->out_width = image->Xsize;
        job->out_height = image->Ysize;
        if (gal__output_write_info(preset->output, image, job->output_path, &info, err))
            return -1;
        job->out_bytes = info.bytes;
        memcpy(job->out_sha256, info.sha256, sizeof(job->out_sha256));
    }
    return 0;
}

void
gal__job_depend(gal_job *job, const char *path)
{
    if (!job->depends)
        job->depends = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < job->depends->len; i++)
        if (strcmp(job->depends->pdata[i], path) == 0)
            return;
    g_ptr_array_add(job->depends, g_strdup(path));
}
