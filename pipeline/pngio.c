/* pngio.c: the only user of libpng. Writes PNG outputs, so that they can
 * carry text chunks (iTXt) that libvips 8.14 does not write: the pixels are
 * evaluated through libvips into memory, then encoded here with the
 * metadata the policy kept. libpng reports errors by longjmp; the one
 * setjmp lives in encode(), which owns no g_auto locals (their cleanup
 * would not run on a longjmp). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

#include "internal.h"
#include "cancel.h"
#include "error.h"
#include "metadata.h"
#include "pngio.h"

typedef struct {
    int fd;
    GChecksum *sum;   /* of the bytes written; NULL: none */
    int saved_errno;  /* from a failed write(), 0 otherwise */
    char msg[256];    /* libpng's message, for gal_error */
} png_sink;

static void
on_error(png_structp png, png_const_charp msg)
{
    png_sink *sink = png_get_error_ptr(png);

    g_strlcpy(sink->msg, msg, sizeof(sink->msg));
    png_longjmp(png, 1);
}

static void
on_warning(png_structp png, png_const_charp msg)
{
    (void) png;
    (void) msg;
}

static void
on_write(png_structp png, png_bytep data, size_t len)
{
    png_sink *sink = png_get_io_ptr(png);

    if (sink->sum)
        g_checksum_update(sink->sum, data, len);
    while (len > 0) {
        ssize_t n = write(sink->fd, data, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            sink->saved_errno = n < 0 ? errno : EIO;
            png_error(png, "write failed");
        }
        data += n;
        len -= (size_t) n;
    }
}

static void
on_flush(png_structp png)
{
    (void) png;
}

typedef struct {
    int width, height, bands;
    gboolean interlace;
    png_bytep *rows;
    png_text *text;
    int n_text;
    const gal_meta *meta;
    const void *icc;
    size_t icc_len;
    png_uint_32 pixels_per_metre; /* output.ppi (0: none) */
    gal_watch *watch;
} png_job;

/* All of libpng's work, under one setjmp. */
static int
encode(png_structp png, png_infop info, const png_job *j)
{
    static const int color_types[] = { PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
        PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA };
    int passes;

    if (setjmp(png_jmpbuf(png)))
        return -1;
    png_set_IHDR(png, info, (png_uint_32) j->width, (png_uint_32) j->height, 8,
        color_types[j->bands - 1], j->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
        PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* zlib level 6 is libvips' default for pngsave too. */
    png_set_compression_level(png, 6);
    if (j->n_text)
        png_set_text(png, info, j->text, j->n_text);
    /* eXIf holds bare TIFF data, without JPEG's "Exif\0\0". */
    if (j->meta && j->meta->exif && j->meta->exif_len > 6)
        png_set_eXIf_1(png, info, (png_uint_32) (j->meta->exif_len - 6),
            (png_bytep) j->meta->exif + 6);
    if (j->pixels_per_metre)
        png_set_pHYs(png, info, j->pixels_per_metre, j->pixels_per_metre, PNG_RESOLUTION_METER);
    if (j->icc)
        png_set_iCCP(png, info, "icc", PNG_COMPRESSION_TYPE_BASE, j->icc,
            (png_uint_32) j->icc_len);
    png_write_info(png, info);
    passes = j->interlace ? png_set_interlace_handling(png) : 1;
    /* Row by row, so that a cancelled run stops a big PNG half-way. */
    for (int pass = 0; pass < passes; pass++)
        for (int y = 0; y < j->height; y++) {
            if (gal__watch_stopped(j->watch))
                return -1;
            png_write_row(png, j->rows[y]);
        }
    /* NULL: every chunk was written before IDAT (libpng would repeat eXIf). */
    png_write_end(png, NULL);
    return 0;
}

static void
add_text(png_text *text, int *n, const char *key, const char *value)
{
    if (!value || !*value)
        return;
    text[*n] = (png_text) { 0 };
    text[*n].compression = PNG_ITXT_COMPRESSION_NONE;
    text[*n].key = (png_charp) key;
    text[*n].text = (png_charp) value;
    text[*n].lang = (png_charp) "";
    text[*n].lang_key = (png_charp) "";
    (*n)++;
}

int
gal__png_write(int fd, VipsImage *image, const gal_meta *meta, gboolean interlace,
    gal_watch *watch, GChecksum *sum, int *write_errno, gal_error *err)
{
    png_sink sink = { fd, sum, 0, "" };
    png_text text[6];
    png_job j = { image->Xsize, image->Ysize, image->Bands, interlace, NULL, text, 0, meta,
        NULL, 0, 0, watch };
    g_autofree png_bytep *rows = NULL;
    g_autoptr(VipsImage) pixels = NULL;
    png_structp png;
    png_infop info;
    int failed;

    if (image->BandFmt != VIPS_FORMAT_UCHAR || image->Bands < 1 || image->Bands > 4)
        return gal_error_set(err, GAL_ERR_INTERNAL, NULL, NULL,
            "PNG output needs 8-bit pixels with 1 to 4 bands, got %d bands of format %d",
            image->Bands, image->BandFmt);
    /* Evaluates the whole pipeline: decode, stages, and into memory,
     * within the photo's memory budget. */
    if (!(pixels = gal__watch_to_memory(watch, image, "the PNG encoder", err)))
        return -1;
    rows = g_new(png_bytep, image->Ysize);
    for (int y = 0; y < image->Ysize; y++)
        rows[y] = VIPS_IMAGE_ADDR(pixels, 0, y);
    j.rows = rows;
    if (image->Xres > 0 && image->Xres < 1e6)
        j.pixels_per_metre = (png_uint_32) lround(image->Xres * 1000);

    if (meta && !meta->strip_all) {
        add_text(text, &j.n_text, "Title", meta->caption);
        add_text(text, &j.n_text, "Description", meta->caption);
        add_text(text, &j.n_text, "Author", meta->author);
        add_text(text, &j.n_text, "Copyright", meta->copyright);
        add_text(text, &j.n_text, "Software", meta->software);
        /* Where XMP lives in a PNG (XMP specification part 3, 1.1.5). */
        add_text(text, &j.n_text, "XML:com.adobe.xmp", meta->xmp);
        if (meta->keep_icc && vips_image_get_typeof(image, VIPS_META_ICC_NAME) &&
            vips_image_get_blob(image, VIPS_META_ICC_NAME, &j.icc, &j.icc_len))
            j.icc = NULL;
    }

    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning);
    if (!png)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "libpng could not start");
    info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "libpng could not start");
    }
    png_set_write_fn(png, &sink, on_write, on_flush);
    failed = encode(png, info, &j);
    png_destroy_write_struct(&png, &info);
    if (failed && sink.saved_errno) {
        *write_errno = sink.saved_errno;
        return -1;
    }
    if (failed && gal__watch_stopped(watch))
        return gal__watch_check(watch, err);
    if (failed)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL, "PNG encoder: %s", sink.msg);
    return 0;
}

const char *
gal__libpng_version(void)
{
    return png_get_libpng_ver(NULL);
}
