/* job.c: one photo from file to outputs, on one worker.
 *
 * The photo is opened twice, both cheaply: once for its header (format
 * check, pixel limit, EXIF facts), then through vips_thumbnail at the size
 * the first stage asks for (shrink-on-load, auto-orientation, ICC to sRGB).
 * Stages then chain lazy operations onto it, and the encoder pulls the
 * pixels through the whole graph once, in sequential strips. When several
 * presets run over the photo (gallop run A.yaml B.yaml ...), it is decoded
 * once at the largest size they need, held in memory, and scaled down to
 * each preset's size from there. */
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
    *out = header;
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
gal__photo_facts(const gal_preset *preset, const gal_photo_ref *photo, gal_facts *facts,
    GStringChunk *strings, gal_error *err)
{
    g_autoptr(VipsImage) header = NULL;

    if (open_header(preset, photo->path, &header, err) || check_size(preset, header, err))
        return -1;
    facts_from_header(header, facts, strings);
    return gal__caption_resolve(preset->captions, photo, header, facts, strings, err);
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


/* The largest JPEG shrink-on-load factor (libjpeg's DCT scaling: 1/2, 1/4,
 * 1/8) whose output still covers `width` x `height` (stored orientation).
 * libvips rounds the shrunk size down (a 335-row photo at 1/2 gives 167
 * rows), and covering must hold for that size: one row short would mean
 * enlarging the whole photo by a fraction, shifting every row. */
static int
jpeg_shrink(int stored_width, int stored_height, int width, int height)
{
    for (int shrink = 8; shrink > 1; shrink /= 2)
        if (stored_width / shrink >= width && stored_height / shrink >= height)
            return shrink;
    return 1;
}

/* Shrink a streamed image to `width` x `height` (both no larger) with
 * Lanczos 3, as vips_resize would, but without 8.14's slow vips_reduceh
 * (see gal__scale_rows), which was the largest cost of a 12 MP photo after
 * the decoder. Rows are reduced as they stream in; the (already shorter)
 * result is held in memory for the quarter turns that reduce its columns.
 * Everything after the copy is lazy: a crop later computes only the
 * columns it keeps. */
static int
shrink_streamed(VipsImage *in, int width, int height, VipsImage **out)
{
    g_autoptr(VipsImage) short_rows = NULL;
    g_autoptr(VipsImage) memory = NULL;

    if (gal__scale_rows(in, height, &short_rows))
        return -1;
    if (width == in->Xsize)
        return vips_copy(short_rows, out, NULL);
    if (!(memory = vips_image_copy_memory(short_rows)))
        return -1;
    vips_image_remove(memory, VIPS_META_SEQUENTIAL);
    if (gal__scale_columns(memory, width, out))
        return -1;
    /* Later steps see a streamed image again, as if from the decoder, and
     * work in strips: vips_shrinkv (a contact-sheet tile) asked for small
     * tiles re-reads its input row by row, and doubled the photo's cost. */
    vips_image_set_int(*out, VIPS_META_SEQUENTIAL, 1);
    return 0;
}

/* A JPEG, decoded straight to `width` x `height` (upright): what
 * vips_thumbnail does, with a deeper shrink-on-load. vips_thumbnail only
 * lets libjpeg shrink while a factor of two is left for its resampler, so a
 * 12 MP photo bound for 1080x1350 (a factor of 2.2) is decoded whole, and
 * that decode is most of the photo's cost. Here libjpeg shrinks as far as
 * its output still covers the target, and Lanczos 3 does the rest, as
 * sharp does by default. bench/RESULTS.md ("Quality") gives what that
 * costs against a full decode. The steps are vips_thumbnail's (8.14):
 * scale in the photo's own colour space, then to sRGB through the embedded
 * profile if there is one, then turn upright in memory, which the
 * sequential decoder cannot do. */
static int
decode_jpeg(const char *path, VipsImage *header, VipsFailOn fail_on, int width, int height,
    gboolean rotate, gboolean has_profile, VipsImage **out)
{
    gboolean swap = rotate && vips_image_get_orientation_swap(header);
    int stored_width = swap ? height : width;
    int stored_height = swap ? width : height;
    int shrink = jpeg_shrink(header->Xsize, header->Ysize, stored_width, stored_height);
    g_autoptr(VipsImage) loaded = NULL;
    g_autoptr(VipsImage) space = NULL;
    g_autoptr(VipsImage) scaled = NULL;
    g_autoptr(VipsImage) srgb = NULL;
    g_autoptr(VipsImage) memory = NULL;
    VipsImage *current;

    if (!(loaded = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
              fail_on, "shrink", shrink, NULL)))
        return -1;
    current = loaded;
    if (!has_profile) {
        if (vips_colourspace(current, &space,
                current->Bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB, NULL))
            return -1;
        current = space;
    }
    if (shrink_streamed(current, stored_width, stored_height, &scaled))
        return -1;
    current = scaled;
    if (has_profile) {
        if (vips_icc_transform(current, &srgb, "srgb", "embedded", TRUE, "intent",
                VIPS_INTENT_RELATIVE, NULL))
            return -1;
        current = srgb;
    }
    if (!rotate || vips_image_get_orientation(current) == 1) {
        *out = g_object_ref(current);
        return 0;
    }
    if (!(memory = vips_image_copy_memory(current)))
        return -1;
    return vips_autorot(memory, out, NULL);
}

static int
decode(const char *path, VipsImage *header, int fail_on, int width, int height,
    gboolean rotate, gboolean has_profile, VipsImage **out)
{
    VipsFailOn vips_fail = vips_fail_on(fail_on);
    const char *loader = vips_foreign_find_load(path);

    if (loader && vips_isprefix("VipsForeignLoadJpeg", loader))
        return decode_jpeg(path, header, vips_fail, width, height, rotate, has_profile, out);

    /* An export profile makes thumbnail go through the profile connection
     * space: worth it only when there is an embedded profile to import. */
    if (has_profile)
        return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_FORCE,
            "no_rotate", !rotate, "fail_on", vips_fail, "export_profile", "srgb", NULL);
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_FORCE,
        "no_rotate", !rotate, "fail_on", vips_fail, NULL);
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
 * first stage does not say. */
static void
load_size(const gal_preset *preset, int width, int height, int *load_width, int *load_height)
{
    *load_width = width;
    *load_height = height;
    if (preset->stages->len > 0) {
        const gal_stage_instance *first = &g_array_index(preset->stages, gal_stage_instance, 0);
        gal_stage_ctx sc = { first->opts, first->shared, first->loc };

        if (first->def->load_size)
            first->def->load_size(&sc, width, height, load_width, load_height);
    }
}

/* Scale the shared decode to one preset's load size, the way vips_thumbnail
 * would have from the file: the same kernel (lanczos3), alpha premultiplied
 * so transparent pixels do not bleed colour into their neighbours. */
static int
resample(VipsImage *in, int width, int height, VipsImage **out, gal_error *err)
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
        vips_cast_uchar(unpremultiplied, out, NULL))
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot scale");
    return 0;
}

/* Run the preset's stages on `image` (a new reference, taken) and write
 * the output. */
static int
job_finish(gal_job *job, VipsImage *source, gal_error *err)
{
    const gal_preset *preset = job->preset;
    g_autoptr(VipsImage) image = source;

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
        if (gal__output_write_info(preset->output, image, job->out_dir, job->output_rel, &info,
                err))
            return -1;
        job->out_bytes = info.bytes;
        memcpy(job->out_sha256, info.sha256, sizeof(job->out_sha256));
    }
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
run_group(gal_job *const *jobs, int n, const gboolean *in_group, VipsImage *header,
    gal_error *errs)
{
    g_autofree int *load_w = g_new0(int, n);
    g_autofree int *load_h = g_new0(int, n);
    g_autoptr(VipsImage) decoded = NULL;
    g_autoptr(VipsImage) shared = NULL;
    gboolean rotate = orientation_valid(header);
    int width = header->Xsize, height = header->Ysize;
    int decode_w = 0, decode_h = 0, users = 0, fail_on = 0;
    gal_error group_err = { 0 };

    if (rotate && vips_image_get_orientation_swap(header)) {
        width = header->Ysize;
        height = header->Xsize;
    }
    for (int k = 0; k < n; k++) {
        if (!in_group[k])
            continue;
        load_size(jobs[k]->preset, width, height, &load_w[users], &load_h[users]);
        fail_on = jobs[k]->preset->input->fail_on;
        users++;
    }
    gal__shared_decode_size(width, height, load_w, load_h, users, &decode_w, &decode_h);

    /* vips_thumbnail decodes at the smallest size that still leaves a real
     * resampling step (JPEG DCT scaling, WebP scaled decode), turns the
     * photo upright and imports any embedded ICC profile, exporting sRGB. */
    if (decode(jobs[0]->input, header, fail_on, decode_w, decode_h, rotate,
            vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0, &decoded))
        gal_error_from_vips(&group_err, GAL_ERR_INPUT, NULL, "cannot decode");
    else if (to_srgb8(decoded, &shared, &group_err) == 0 && users > 1) {
        /* Shared by several graphs: held in memory once, already shrunk,
         * rather than decoded again for each. */
        VipsImage *memory = vips_image_copy_memory(shared);

        g_object_unref(shared);
        shared = memory;
        if (!shared)
            gal_error_from_vips(&group_err, GAL_ERR_INPUT, NULL, "cannot decode");
    }

    for (int k = 0, user = 0; k < n; k++) {
        VipsImage *source = NULL;

        if (!in_group[k])
            continue;
        if (group_err.code)
            errs[k] = group_err;
        else if (resample(shared, load_w[user], load_h[user], &source, &errs[k]) == 0)
            job_finish(jobs[k], source, &errs[k]);
        user++;
    }
}

void
gal__photo_run(gal_job *const *jobs, int n, gal_error *errs)
{
    g_autoptr(VipsImage) header = NULL;
    g_autofree gboolean *handled = g_new0(gboolean, MAX(1, n));
    g_autofree gboolean *in_group = g_new0(gboolean, MAX(1, n));
    gal_error header_err = { 0 };

    if (n == 0)
        return;
    if (open_header(jobs[0]->preset, jobs[0]->input, &header, &header_err)) {
        for (int k = 0; k < n; k++)
            errs[k] = header_err;
        return;
    }
    for (int k = 0; k < n; k++) {
        const gal_preset *preset = jobs[k]->preset;

        if (check_size(preset, header, &errs[k]))
            continue;
        facts_from_header(header, &jobs[k]->facts, jobs[k]->strings);
        gal_photo_ref photo = { jobs[k]->input, jobs[k]->input_root, jobs[k]->follow_links };

        if (gal__caption_resolve(preset->captions, &photo, header, &jobs[k]->facts,
                jobs[k]->strings, &errs[k]))
            continue;
        /* Whichever template shows the caption (a band, a text watermark,
         * the file name), the output changes when a file it may come from
         * does. */
        if (gal__preset_uses_field(preset, "caption"))
            gal__caption_depend(preset->captions, jobs[k]);
    }
    for (int k = 0; k < n; k++)
        handled[k] = errs[k].code != GAL_OK;
    /* Presets that decode with the same strictness (input.fail-on) share
     * one decode; another strictness needs a decode of its own. */
    for (int k = 0; k < n; k++) {
        if (handled[k])
            continue;
        for (int j = 0; j < n; j++)
            in_group[j] = !handled[j] &&
                jobs[j]->preset->input->fail_on == jobs[k]->preset->input->fail_on;
        run_group(jobs, n, in_group, header, errs);
        for (int j = 0; j < n; j++)
            handled[j] = handled[j] || in_group[j];
    }
}

int
gal__job_run(gal_job *job, gal_error *err)
{
    gal__photo_run(&job, 1, err);
    return err->code != GAL_OK ? -1 : 0;
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
