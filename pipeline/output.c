/* output.c: the `output` section, output file names, and the encoder.
 * Every output is written to a hidden temporary file in its final folder
 * and renamed into place only when complete, so an interrupted run never
 * leaves a half-written file under a final name. Encoders get no
 * timestamps, so the same input and preset give the same bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "cancel.h"
#include "digest.h"
#include "error.h"
#include "format.h"
#include "metadata.h"
#include "fsio.h"
#include "outdir.h"
#include "output.h"
#include "preset.h"
#include "quality.h"
#include "schema.h"
#include "template.h"

static const char *const gal_subsampling_names[] = { "auto", "4:2:0", "4:4:4", NULL };
static const char *const gal_sharpen_names[] = { "none", "low", "standard", "high", NULL };
static const char *const gal_out_profile_names[] = { "srgb", "display-p3", "keep", NULL };

static const gal_param output_params[] = {
    GAL_PARAM_DIR(gal_output_opts, dir,
        "output folder, beneath the preset's folder (a relative path without ..); the "
        "default, --set output.dir and -o are relative to the working folder, and may be "
        "anywhere",
        "out"),
    GAL_PARAM_TEMPLATE(gal_output_opts, name,
        "file name template: {stem} {ext} {dir} {width} {index} {count} {preset} "
        "{date:%Y-%m-%d} {camera} {artist} ...; may contain sub-folders, never ..; "
        "{dir} is the photo's folder within the input folder (so albums keep their folders); "
        "the default is {dir}/{stem}-{width}.{ext} when widths are given",
        "{dir}/{stem}.{ext}"),
    GAL_PARAM_ENUM(gal_output_opts, format, gal_format,
        "encoder (avif only where libvips has libheif, jxl where it has libjxl)", "jpeg"),
    GAL_PARAM_INTLIST(gal_output_opts, widths,
        "write each photo's finished picture (after every stage) in each of these widths, "
        "each scaled down from one decode; a width above the picture's own gives the picture "
        "at its own width (never enlarged); the name needs {width} when there are several",
        NULL, 1, 20000),
    GAL_PARAM_ENUMLIST(gal_output_opts, formats, gal_format,
        "write each width in each of these formats (for <picture>), instead of format alone; "
        "the name needs {ext} when there are several",
        NULL),
    GAL_PARAM_INT_AUTO(gal_output_opts, quality,
        "encoder quality, 1 (smallest) to 100 (best), or auto: each file (each width and "
        "format) at the lowest quality whose look meets output.target",
        "85", 1, 100),
    GAL_PARAM_STRING(gal_output_opts, target,
        "with quality auto, how close to the finished picture each file must look: high, "
        "standard or small, or a score in dB from 15 to 50 (MS-SSIM on lightness, "
        "docs/quality.md; higher is closer)",
        "standard"),
    GAL_PARAM_INT(gal_output_opts, max_bytes,
        "each file at most this many bytes: the highest quality under it, with a warning "
        "when that is below the target (or below quality); unset: no cap",
        NULL, 1000, 1000000000),
    GAL_PARAM_BOOL(gal_output_opts, progressive, "progressive (interlaced) JPEG and PNG",
        "false"),
    GAL_PARAM_ENUM(gal_output_opts, subsampling, gal_subsampling,
        "JPEG chroma subsampling: auto and 4:2:0 halve the colour resolution at every "
        "quality; 4:4:4 keeps it, for about 40% more bytes (docs/presets.md)",
        "auto"),
    GAL_PARAM_STRLIST(gal_output_opts, metadata,
        "what outputs keep of the photo's metadata: default (credits, caption, date, camera, "
        "exposure; no GPS or serial numbers), Lightroom's levels copyright-only, "
        "copyright-contact, all-except-camera-raw and all (= keep), strip (none), or a list "
        "of EXIF tag names and groups (caption, credits, date, camera, exposure, gps)",
        "default"),
    GAL_PARAM_BOOL(gal_output_opts, remove_location,
        "under any metadata level, leave out where the photo was taken: EXIF GPS, XMP GPS and "
        "places (city, state, country, IPTC locations), IPTC-IIM places (Lightroom's "
        "\"Remove Location Info\")",
        "false"),
    GAL_PARAM_BOOL(gal_output_opts, remove_person,
        "under any metadata level, leave out who is shown: XMP people (IPTC PersonInImage), "
        "face and image regions (MWG, Microsoft, IPTC) (Lightroom's \"Remove Person Info\")",
        "false"),
    GAL_PARAM_COLOR(gal_output_opts, background,
        "colour transparent pixels are flattened onto for formats without alpha (JPEG)",
        "white"),
    GAL_PARAM_ENUM(gal_output_opts, profile, gal_out_profile,
        "colour space of the outputs: srgb (no profile embedded: what browsers assume), "
        "display-p3 (wide gamut for P3 screens, its profile embedded) or keep (an RGB photo's "
        "own space and profile, such as Adobe RGB; others sRGB)",
        "srgb"),
    GAL_PARAM_SHARPENING(gal_output_opts, sharpen, gal_sharpen,
        "output sharpening, applied after the last resize (before overlays) when it made the "
        "photo smaller, never to an enlargement: none, low, standard or high for screens, or "
        "{for: screen|matte|glossy, amount: low|standard|high}: matte and glossy sharpen for "
        "print at output.ppi (docs/presets.md gives the measured amounts)",
        "standard"),
    GAL_PARAM_INT(gal_output_opts, ppi,
        "pixels per inch the photo is printed at: the radius of print sharpening, and the "
        "resolution written into every file",
        "300", 72, 2400),
    GAL_PARAM_BOOL(gal_output_opts, photos,
        "false writes no file per photo, only what gathering stages (contact-sheet) make: "
        "quick proofs",
        "true"),
    GAL_PARAM_TEMPLATE(gal_output_opts, artist,
        "the photographer written into every output (EXIF Artist, XMP dc:creator): a name, "
        "or a template such as \"{artist|Jen Loong}\"; left out for a photo that lacks a "
        "field it shows without a fallback; unset: the photo's own (output.metadata credits)",
        NULL),
    GAL_PARAM_TEMPLATE(gal_output_opts, copyright,
        "the copyright notice written into every output (EXIF Copyright, XMP dc:rights), "
        "e.g. \"© {year} {artist}\", where {artist} is output.artist when set; left out "
        "like artist; unset: the photo's own",
        NULL),
    GAL_PARAM_END,
};

/* output.target's named levels, in dB (perceptual.h): docs/quality.md
 * says how they were chosen on the bench corpus. */
static const struct {
    const char *name;
    double score;
} target_levels[] = {
    { "high", GAL_TARGET_HIGH },
    { "standard", GAL_TARGET_STANDARD },
    { "small", GAL_TARGET_SMALL },
};

int
gal__output_target_score(const char *text, double *score)
{
    char *end = NULL;
    double value;

    for (size_t i = 0; i < G_N_ELEMENTS(target_levels); i++)
        if (g_ascii_strcasecmp(text, target_levels[i].name) == 0) {
            *score = target_levels[i].score;
            return 0;
        }
    value = g_ascii_strtod(text, &end);
    if (end == text || *end || !(value >= 15 && value <= 50))
        return -1;
    *score = value;
    return 0;
}

const gal_section gal__output_section = {
    "output", "where outputs go, how they are named and encoded", output_params,
    sizeof(gal_output_opts),
};

static int
compare_desc(gconstpointer a, gconstpointer b)
{
    return *(const int *) b - *(const int *) a;
}

void
gal__output_sort_widths(gal_output_opts *o)
{
    if (o->widths.n > 1)
        qsort(o->widths.items, (size_t) o->widths.n, sizeof(int), compare_desc);
}

gal_variant *
gal__output_variants(const gal_output_opts *o, int *n)
{
    int n_widths = MAX(1, o->widths.n), n_formats = MAX(1, o->formats.n);
    gal_variant *v = g_new0(gal_variant, n_widths * n_formats);

    for (int w = 0; w < n_widths; w++)
        for (int f = 0; f < n_formats; f++)
            v[w * n_formats + f] = (gal_variant) {
                o->widths.n ? o->widths.items[w] : 0,
                o->formats.n ? (gal_format) o->formats.items[f] : o->format,
            };
    *n = n_widths * n_formats;
    return v;
}

/* Is the rendered `name` usable beneath the output folder? 0, or -1 with
 * `err` saying why. Part by part in place, and the name quoted only in
 * a message: this runs for every file of every photo. */
static int
check_name(const gal_output_opts *output, const char *name, gal_error *err)
{
    if (!*name) {
        g_autofree char *template_shown =
            gal__excerpt(gal__template_text(output->name), GAL_EXCERPT_CHARS);

        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
            "the name template \"%s\" gives an empty name", template_shown);
    }
    if (g_path_is_absolute(name)) {
        /* A field such as {caption} can make the name long: quote its start. */
        g_autofree char *shown = gal__excerpt(name, GAL_EXCERPT_CHARS);

        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
            "the name \"%s\" is absolute (names are relative to the output folder; is "
            "a field at its start empty?)",
            shown);
    }
    for (const char *part = name;; part++) {
        const char *end = strchrnul(part, '/');
        size_t len = (size_t) (end - part);

        if (len == 0 || (len == 1 && part[0] == '.') ||
            (len == 2 && part[0] == '.' && part[1] == '.')) {
            g_autofree char *shown = gal__excerpt(name, GAL_EXCERPT_CHARS);

            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
                "the name \"%s\" would land outside the output folder or has an empty "
                "part", shown);
        }
        /* Field values cannot start a hidden name (template.c), but an
         * empty field before literal text can: "{caption}.{ext}" gives
         * ".jpg" for a photo without a caption. */
        if (part[0] == '.')
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
                "the name template \"%s\" gives the hidden name \"%s\" for this photo "
                "(an empty field? give it a fallback, e.g. {caption|untitled})",
                gal__template_text(output->name), name);
        /* 255 bytes is the usual limit; the temporary name adds 20. */
        if (len > 230) {
            g_autofree char *whole_part = g_strndup(part, len);
            g_autofree char *part_shown = gal__excerpt(whole_part, 40);

            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
                "a part of the name, \"%s\", is longer than 230 bytes", part_shown);
        }
        if (!*end)
            return 0;
        part = end;
    }
}

char *
gal__output_prefix(const char *dir)
{
    /* g_build_filename joins `dir` the same way to every name with no
     * empty part and no slash at either end: what it puts before "x" it
     * puts before any such name. */
    char *built = g_build_filename(dir, "x", NULL);

    built[strlen(built) - 1] = '\0';
    return built;
}

char *
gal__output_path_after(const gal_output_opts *output, const char *prefix,
    const gal_facts *facts, GString *name, gal_error *err)
{
    size_t prefix_len = strlen(prefix);
    char *path;

    g_string_truncate(name, 0);
    gal__template_render_append(output->name, facts, TRUE, name);
    if (check_name(output, name->str, err))
        return NULL;
    /* Exact size: the plan keeps one per photo. */
    path = g_malloc(prefix_len + name->len + 1);
    memcpy(path, prefix, prefix_len);
    memcpy(path + prefix_len, name->str, name->len + 1);
    return path;
}

char *
gal__output_path(const gal_output_opts *output, const char *dir, const gal_facts *facts,
    gal_error *err)
{
    g_autofree char *prefix = gal__output_prefix(dir);
    g_autoptr(GString) name = g_string_new(NULL);

    return gal__output_path_after(output, prefix, facts, name, err);
}

/* The temporary file as a libvips target. Writing through our own calls
 * keeps the system's reason for a failed write (a full disk), which
 * libvips would only pass on as text. The bytes are hashed (SHA-256, the
 * report's digest) as they go by, which costs far less than reading the
 * file back; a saver that reads or seeks (libvips' TIFF and some others
 * may, to patch a header) ends that, and the file is then read back. */
typedef struct {
    int fd;
    int saved_errno;  /* from the first failed write, 0 otherwise */
    GChecksum *sum;   /* of the bytes written, in order */
    gboolean reread;  /* the saver read or seeked: `sum` is not the file's */
} fd_sink;

static gint64
sink_write(VipsTargetCustom *target, const void *data, gint64 length, gpointer user)
{
    fd_sink *sink = user;
    const char *p = data;
    gint64 left = length;

    (void) target;
    if (!sink->reread)
        g_checksum_update(sink->sum, data, (gssize) length);
    while (left > 0) {
        ssize_t n = write(sink->fd, p, (size_t) left);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!sink->saved_errno)
                sink->saved_errno = n < 0 ? errno : EIO;
            return -1;
        }
        p += n;
        left -= n;
    }
    return length;
}

static gint64
sink_read(VipsTargetCustom *target, void *buffer, gint64 length, gpointer user)
{
    (void) target;
    ((fd_sink *) user)->reread = TRUE;
    return read(((fd_sink *) user)->fd, buffer, (size_t) length);
}

static gint64
sink_seek(VipsTargetCustom *target, gint64 offset, int whence, gpointer user)
{
    (void) target;
    ((fd_sink *) user)->reread = TRUE;
    return lseek(((fd_sink *) user)->fd, offset, whence);
}

/* Encode at the quality the search chooses (quality.c: output.quality
 * auto, output.max-bytes) into `sink`: the picture is held in memory once
 * for the search's encodes, and the bytes written are those of the
 * encode chosen. */
static int
encode_searched(const gal_output_opts *o, const gal_format_def *format, gal_encode *how,
    gal_write_info *info, fd_sink *sink, int *write_errno, gal_error *err)
{
    g_autoptr(VipsImage) memory = gal__watch_to_memory(info->watch, how->image,
        "the quality search", err);
    gal_quality_goal goal = { o->quality == GAL_QUALITY_AUTO ? o->target_score : 0, o->quality,
        o->max_bytes };
    gal_quality_choice choice;
    int failed = 0;

    if (!memory)
        return -1;
    how->image = memory;
    if (gal__quality_choose_shared(format, how, &goal, info->memo, &choice, err))
        return -1;
    if (sink_write(NULL, choice.data, (gint64) choice.length, sink) < 0) {
        *write_errno = sink->saved_errno;
        failed = -1;
    }
    info->quality = choice.quality;
    info->score = choice.score;
    info->target = choice.target;
    info->encodes = choice.encodes;
    info->below_target = choice.below_target;
    info->over_cap = choice.over_cap;
    info->unreachable = choice.unreachable;
    gal__quality_choice_clear(&choice);
    return failed;
}

/* Encode into the open temporary file `fd`. The metadata policy is applied
 * to a copy of the image; the evaluation is registered with the run's
 * cancel, which can stop it half-way. The SHA-256 of what was written
 * goes into `sum`; *reread is set when it is not the file's (the saver
 * seeked). A failed write to the file leaves its errno in *write_errno;
 * anything else (a photo that turns out broken while it is decoded, an
 * encoder limit) is in `err`. */
static int
encode(const gal_output_opts *o, gal_write_info *info, VipsImage *image, int fd,
    GChecksum *sum, gboolean *reread, int *write_errno, gal_error *err)
{
    g_autofree char *software = info->preset_name
        ? g_strdup_printf("gallop %s (preset %s)", GAL_VERSION, info->preset_name)
        : g_strdup_printf("gallop %s", GAL_VERSION);
    g_autoptr(VipsImage) ready = NULL;
    g_autoptr(VipsImage) resolved = NULL;
    gal_meta meta = { 0 };
    fd_sink sink = { fd, 0, sum, FALSE };
    const gal_facts none = { 0 };
    gal_facts facts = info->facts ? *info->facts : none;
    g_autofree char *artist = o->artist ? gal__template_render_whole(o->artist, &facts) : NULL;
    g_autofree char *copyright = NULL;
    gal_credits credits = { info->caption, NULL, NULL };
    const gal_format_def *format = gal__formats[o->format];
    gal_encode how = { NULL, &meta, o->quality, o->progressive, o->subsampling, false };
    int failed;

    /* "© {year} {artist}" names the preset's artist, when it gives one. */
    if (artist && *artist)
        facts.artist = artist;
    copyright = o->copyright ? gal__template_render_whole(o->copyright, &facts) : NULL;
    credits.artist = artist && *artist ? artist : NULL;
    credits.copyright = copyright && *copyright ? copyright : NULL;
    /* output.ppi is the file's resolution (libvips keeps pixels per mm),
     * which the EXIF block says too. */
    if (vips_copy(image, &resolved, "xres", o->ppi / 25.4, "yres", o->ppi / 25.4, NULL))
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "resolution");
    if (gal__metadata_apply(o->metadata,
            (o->remove_location ? GAL_REMOVE_LOCATION : 0) |
                (o->remove_person ? GAL_REMOVE_PERSON : 0),
            software, &credits, resolved, &ready, &meta, err))
        return -1;
    /* The pixels are in the profile's space (job.c decoded them there):
     * it travels with them under every metadata level (strip is refused
     * with it at load). */
    if (o->profile != GAL_PROFILE_SRGB && vips_image_get_typeof(image, VIPS_META_ICC_NAME)) {
        const void *icc;
        size_t icc_len;

        if (vips_image_get_blob(image, VIPS_META_ICC_NAME, &icc, &icc_len) == 0) {
            vips_image_set_blob_copy(ready, VIPS_META_ICC_NAME, icc, icc_len);
            meta.keep_icc = TRUE;
        }
    }
    else if (o->profile == GAL_PROFILE_DISPLAY_P3) {
        /* A contact sheet is made on a canvas of its own, without the
         * tiles' profile; its pixels are Display P3 all the same. */
        VipsBlob *p3 = NULL;
        const void *icc;
        size_t icc_len;

        if (vips_profile_load("p3", &p3, NULL)) {
            gal__meta_clear(&meta);
            return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "colour profile");
        }
        icc = vips_blob_get(p3, &icc_len);
        vips_image_set_blob_copy(ready, VIPS_META_ICC_NAME, icc, icc_len);
        vips_area_unref(VIPS_AREA(p3));
        meta.keep_icc = TRUE;
    }
    /* The encoder's own image stops with the photo too (a sheet page has
     * no decoder of its own). */
    if (!gal__watch_add(info->watch, ready)) {
        gal__meta_clear(&meta);
        return gal__watch_check(info->watch, err);
    }
    how.image = ready;
    if (format->auto_first > 0 && (o->quality == GAL_QUALITY_AUTO || o->max_bytes > 0))
        failed = encode_searched(o, format, &how, info, &sink, write_errno, err);
    else if (format->write)
        failed = format->write(&how, fd, info->watch, sum, write_errno, err);
    else {
        VipsTargetCustom *target = vips_target_custom_new();

        g_signal_connect(target, "write", G_CALLBACK(sink_write), &sink);
        g_signal_connect(target, "read", G_CALLBACK(sink_read), &sink);
        g_signal_connect(target, "seek", G_CALLBACK(sink_seek), &sink);
        failed = format->save(&how, VIPS_TARGET(target));
        failed |= vips_target_end(VIPS_TARGET(target)) != 0;
        g_object_unref(target);
        *reread = sink.reread;
        if (sink.saved_errno) {
            *write_errno = sink.saved_errno;
            vips_error_clear();
        }
        else if (failed)
            gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "encode");
    }
    gal__meta_clear(&meta);
    return failed ? -1 : 0;
}

int
gal__output_write_info(const gal_output_opts *o, VipsImage *image, const gal_out_dir *dir,
    const char *rel, gal_write_info *info, gal_error *err)
{
    g_autoptr(VipsImage) flat = NULL;
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    gal_write_info none = { 0 };
    gal_atomic out;
    gboolean reread = FALSE;
    int failed, write_errno = 0;

    if (!info)
        info = &none;
    if (dir->fd < 0)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot create folder %s: %s",
            dir->path, g_strerror(dir->open_errno));
    if (!gal__formats[o->format]->alpha && vips_image_hasalpha(image)) {
        double bg[3] = { o->background.r, o->background.g, o->background.b };
        g_autoptr(VipsArrayDouble) background = vips_array_double_new(bg, 3);

        if (vips_flatten(image, &flat, "background", background, NULL))
            return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "flatten");
        image = flat;
    }
    /* Folders are made beneath the output folder, never through a link. */
    if (gal__atomic_begin(dir->fd, dir->path, rel, NULL, &out, err))
        return -1;
    failed = encode(o, info, image, out.fd, sum, &reread, &write_errno, err);
    /* The digest of what was written, as it was written; from the file
     * itself when the saver went back in it. */
    if (!failed && !reread) {
        struct stat st;

        g_strlcpy(info->sha256, g_checksum_get_string(sum), sizeof(info->sha256));
        if (fstat(out.fd, &st) != 0) {
            write_errno = errno;
            failed = -1;
        }
        else
            info->bytes = st.st_size;
    }
    else if (!failed && (lseek(out.fd, 0, SEEK_SET) != 0 ||
                            gal__fd_sha256(out.fd, info->sha256, &info->bytes) != 0)) {
        write_errno = errno;
        failed = -1;
    }
    if (failed) {
        gal__atomic_abort(&out);
        /* Name the file: "cannot write out/a.jpg: No space left on device". */
        if (write_errno)
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s/%s: %s",
                dir->path, rel, g_strerror(write_errno));
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "encode failed");
    }
    return gal__atomic_commit(&out, FALSE, err);
}
