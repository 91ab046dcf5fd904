/* output.c: the `output` section, output file names, and the encoder.
 * Every output is written to a hidden temporary file in its final folder
 * and renamed into place only when complete, so an interrupted run never
 * leaves a half-written file under a final name. Encoders get no
 * timestamps, so the same input and preset give the same bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static const char *const format_names[] = { "jpeg", "png", "webp", "avif", NULL };
static const char *const subsampling_names[] = { "auto", "4:2:0", "4:4:4", NULL };

static const gal_param output_params[] = {
    GAL_PARAM_DIR(gal_output_opts, dir,
        "output folder (relative to the preset's folder; the default and -o are relative to "
        "the working folder)",
        "out"),
    GAL_PARAM_TEMPLATE(gal_output_opts, name,
        "file name template: {stem} {ext} {index} {count} {preset} {date:%Y-%m-%d} "
        "{camera} {artist} ...; may contain sub-folders, never ..",
        "{stem}.{ext}"),
    GAL_PARAM_ENUM(gal_output_opts, format, "encoder (avif only where libvips has libheif)",
        "jpeg", format_names),
    GAL_PARAM_INT(gal_output_opts, quality, "encoder quality, 1 (smallest) to 100 (best)",
        "85", 1, 100),
    GAL_PARAM_BOOL(gal_output_opts, progressive, "progressive (interlaced) JPEG and PNG",
        "false"),
    GAL_PARAM_ENUM(gal_output_opts, subsampling,
        "JPEG chroma subsampling; auto is 4:2:0 below quality 90, 4:4:4 from 90",
        "auto", subsampling_names),
    GAL_PARAM_BOOL(gal_output_opts, strip,
        "remove metadata (EXIF, XMP, IPTC, ICC) from outputs", "true"),
    GAL_PARAM_COLOR(gal_output_opts, background,
        "colour transparent pixels are flattened onto for formats without alpha (JPEG)",
        "white"),
    GAL_PARAM_END,
};

const gal_section gal__output_section = {
    "output", "where outputs go, how they are named and encoded", output_params,
    sizeof(gal_output_opts),
};

const char *
gal__format_ext(gal_format format)
{
    static const char *const ext[] = { "jpg", "png", "webp", "avif" };

    return ext[format];
}

char *
gal__output_path(const gal_output_opts *output, const char *dir, const gal_facts *facts,
    gal_error *err)
{
    g_autofree char *name = gal__template_render(output->name, facts, TRUE);
    g_auto(GStrv) parts = NULL;

    if (!*name)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
                   "the name template \"%s\" gives an empty name",
                   gal__template_text(output->name)),
               NULL;
    if (g_path_is_absolute(name))
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
                   "the name \"%s\" is absolute (names are relative to the output folder; is "
                   "a field at its start empty?)",
                   name),
               NULL;
    parts = g_strsplit(name, "/", -1);
    for (int i = 0; parts[i]; i++) {
        if (strcmp(parts[i], "..") == 0 || strcmp(parts[i], ".") == 0 || !*parts[i])
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
                       "the name \"%s\" would land outside the output folder or has an empty "
                       "part", name),
                   NULL;
        /* 255 bytes is the usual limit; the temporary name adds 20. */
        if (strlen(parts[i]) > 230)
            return gal_error_set(err, GAL_ERR_OUTPUT, NULL, "output.name",
                       "a part of the name \"%.40s...\" is longer than 230 bytes", name),
                   NULL;
    }
    return g_build_filename(dir, name, NULL);
}

static int
save(const gal_output_opts *o, VipsImage *image, VipsTarget *target)
{
    VipsForeignSubsample subsample = o->subsampling == GAL_SUBSAMPLING_420 ? VIPS_FOREIGN_SUBSAMPLE_ON
        : o->subsampling == GAL_SUBSAMPLING_444                            ? VIPS_FOREIGN_SUBSAMPLE_OFF
                                                                           : VIPS_FOREIGN_SUBSAMPLE_AUTO;

    switch ((gal_format) o->format) {
    case GAL_FORMAT_JPEG:
        return vips_jpegsave_target(image, target, "Q", o->quality, "interlace", o->progressive,
            "subsample_mode", subsample, "optimize_coding", TRUE, "strip", o->strip, NULL);
    case GAL_FORMAT_PNG:
        return vips_pngsave_target(image, target, "interlace", o->progressive, "strip", o->strip,
            NULL);
    case GAL_FORMAT_WEBP:
        return vips_webpsave_target(image, target, "Q", o->quality, "strip", o->strip, NULL);
    case GAL_FORMAT_AVIF:
        return vips_heifsave_target(image, target, "Q", o->quality, "compression",
            VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "strip", o->strip, NULL);
    }
    return -1;
}

int
gal__output_write(const gal_output_opts *o, VipsImage *image, const char *path, gal_error *err)
{
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *tmp = g_strdup_printf("%s/.%s.XXXXXX.gallop-tmp", dir, base);
    g_autoptr(VipsImage) flat = NULL;
    VipsTarget *target;
    int fd, failed;

    if (g_mkdir_with_parents(dir, 0777) != 0)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot create folder %s: %s",
            dir, g_strerror(errno));
    /* g_mkstemp_full, unlike mkstemp, creates the file with this mode less
     * the umask, so outputs are ordinary files without touching the umask,
     * which is per process: changing it here would race with the other
     * workers creating files and folders. */
    if ((fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0666)) < 0)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write in %s: %s", dir,
            g_strerror(errno));
    if (o->format == GAL_FORMAT_JPEG && vips_image_hasalpha(image)) {
        double bg[3] = { o->background.r, o->background.g, o->background.b };
        g_autoptr(VipsArrayDouble) background = vips_array_double_new(bg, 3);

        if (vips_flatten(image, &flat, "background", background, NULL)) {
            close(fd);
            unlink(tmp);
            return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "flatten");
        }
        image = flat;
    }

    target = vips_target_new_to_descriptor(fd);
    failed = !target || save(o, image, target);
    if (target)
        failed |= vips_target_end(target) != 0;
    VIPS_UNREF(target);
    if (close(fd) != 0 && !failed) {
        unlink(tmp);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot write %s: %s", path,
            g_strerror(errno));
    }
    if (failed) {
        unlink(tmp);
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "encode");
    }
    if (rename(tmp, path) != 0) {
        int saved = errno;

        unlink(tmp);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "cannot rename into %s: %s",
            path, g_strerror(saved));
    }
    return 0;
}
