/* decode.c: photo files to libvips images (see decode.h). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "error.h"
#include "fsio.h"
#include "heif_frames.h"
#include "tiff.h"

const char *
gal__image_format_name(gal_image_format format)
{
    static const char *const names[] = {
        [GAL_IMAGE_UNKNOWN] = "unknown",
        [GAL_IMAGE_JPEG] = "JPEG",
        [GAL_IMAGE_PNG] = "PNG",
        [GAL_IMAGE_WEBP] = "WebP",
        [GAL_IMAGE_TIFF] = "TIFF",
        [GAL_IMAGE_HEIF] = "HEIF/AVIF",
        [GAL_IMAGE_GIF] = "GIF",
        [GAL_IMAGE_JXL] = "JPEG XL",
        [GAL_IMAGE_RAW] = "camera RAW",
        [GAL_IMAGE_SVG] = "SVG",
    };

    return (unsigned) format < G_N_ELEMENTS(names) ? names[format] : "unknown";
}

static gboolean
starts(const guint8 *head, gsize len, gsize at, const char *bytes, gsize n)
{
    return len >= at + n && memcmp(head + at, bytes, n) == 0;
}

/* ISO base media files (HEIF, AVIF) name their kind in the `ftyp` box:
 * the major brand, then compatible brands. */
static gboolean
heif_brand(const guint8 *head, gsize len)
{
    static const char *const brands[] = { "heic", "heix", "hevc", "hevx", "heim", "heis",
        "hevm", "hevs", "mif1", "msf1", "avif", "avis", NULL };
    guint32 box;

    if (!starts(head, len, 4, "ftyp", 4))
        return FALSE;
    box = (guint32) head[0] << 24 | (guint32) head[1] << 16 | (guint32) head[2] << 8 | head[3];
    for (gsize at = 8; at + 4 <= MIN(len, (gsize) box); at += at == 8 ? 8 : 4)
        for (int b = 0; brands[b]; b++)
            if (memcmp(head + at, brands[b], 4) == 0)
                return TRUE;
    return FALSE;
}

static gboolean
looks_like_markup(const guint8 *head, gsize len)
{
    gsize i = 0;

    if (starts(head, len, 0, "\xef\xbb\xbf", 3))
        i = 3;
    while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    return i < len && head[i] == '<';
}

/* Is the start of a file text: UTF-8 (ASCII included) with no control
 * character but tab, line ends and form feed? Only the first 64 bytes are
 * looked at; a character cut by that end, or by a short read, counts. */
static gboolean
looks_like_text(const guint8 *head, gsize len)
{
    const gchar *end;
    gsize n = MIN(len, 64);

    if (!g_utf8_validate((const gchar *) head, (gssize) n, &end)) {
        const guint8 *rest = (const guint8 *) end;
        gsize left = n - (gsize) (rest - head);
        gsize want = rest[0] >= 0xf0 ? 4 : rest[0] >= 0xe0 ? 3 : rest[0] >= 0xc2 ? 2 : 0;

        /* The end of the window inside a character: a lead byte that wants
         * more bytes than are left, then only continuation bytes. */
        if (n < 64 || want == 0 || left >= want)
            return FALSE;
        for (gsize i = 1; i < left; i++)
            if ((rest[i] & 0xc0) != 0x80)
                return FALSE;
        n -= left;
    }
    for (gsize i = 0; i < n; i++)
        if ((head[i] < 0x20 && !strchr("\t\n\r\f", head[i])) || head[i] == 0x7f)
            return FALSE;
    return TRUE;
}

/* What a file nothing reads is, from its first bytes, in words that name
 * its kind and never show its content (a text file's bytes spell it out:
 * "72 6f 6f 74" is "root"). Only what its signature says for certain;
 * NULL when nothing does. */
static const char *
file_kind(const guint8 *head, gsize len)
{
    static const struct {
        gsize at;
        const char *bytes;
        gsize n;
        const char *kind;
    } signatures[] = {
        { 0, "\x1f\x8b", 2, "gzip-compressed data (an .svgz?)" },
        { 0, "%PDF", 4, "a PDF document" },
        { 0, "%!PS", 4, "a PostScript document" },
        { 0, "\177ELF", 4, "an executable program" },
        { 0, "#!", 2, "a script" },
        { 0, "PK\x03\x04", 4, "a ZIP archive" },
        { 0, "PK\x05\x06", 4, "a ZIP archive" },
        { 0, "7z\xbc\xaf\x27\x1c", 6, "a 7-Zip archive" },
        { 0, "Rar!\x1a\x07", 6, "a RAR archive" },
        { 0, "\3757zXZ\0", 6, "xz-compressed data" },
        { 0, "\x28\xb5\x2f\xfd", 4, "zstd-compressed data" },
        { 257, "ustar", 5, "a tar archive" },
        { 0, "SQLite format 3", 16, "an SQLite database" },
        { 0, "8BPS", 4, "a Photoshop document (PSD)" },
        { 0, "OggS", 4, "an Ogg audio or video file" },
        { 0, "ID3", 3, "an MP3 audio file" },
        { 0, "fLaC", 4, "a FLAC audio file" },
        { 0, "\x1a\x45\xdf\xa3", 4, "a Matroska or WebM video" },
        { 4, "ftyp", 4, "an ISO media file that is no HEIF or AVIF image (a video?)" },
        { 0, "RIFF", 4, "a RIFF file that is no WebP image, such as WAV or AVI" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(signatures); i++)
        if (starts(head, len, signatures[i].at, signatures[i].bytes, signatures[i].n))
            return signatures[i].kind;
    /* "BM" then the size, then two reserved fields, zero: text that starts
     * with "BM" has no zero bytes. */
    if (starts(head, len, 0, "BM", 2) && starts(head, len, 6, "\0\0\0\0", 4))
        return "a BMP image";
    if (starts(head, len, 0, "BZh", 3) && len > 3 && head[3] >= '1' && head[3] <= '9')
        return "bzip2-compressed data";
    if (starts(head, len, 0, "MZ", 2) && len >= 64 && !looks_like_text(head, len))
        return "a Windows program";
    return NULL;
}

/* Which camera's raw a TIFF is, from its first directory (within `head`):
 * a DNG says so (DNGVersion); the others are a colour filter array or
 * linear raw data in that directory, or sub-images (the raw, beside the
 * preview the directory holds) under a raw-writing maker's name. NULL: a
 * TIFF like any other (a camera's own TIFF has no sub-images). */
static const char *
tiff_raw_kind(const guint8 *head, gsize len)
{
    static const struct {
        const char *make;
        const char *kind;
    } makers[] = {
        { "NIKON", "Nikon NEF" }, { "SONY", "Sony ARW" }, { "PENTAX", "Pentax PEF" },
        { "RICOH", "Pentax PEF" }, { "Canon", "Canon CR2" }, { "SAMSUNG", "Samsung SRW" },
        { "LEICA", "Leica raw" }, { "Leica", "Leica raw" }, { "Hasselblad", "Hasselblad raw" },
        { "Phase One", "Phase One raw" }, { "Mamiya", "Mamiya raw" }, { "Leaf", "Leaf raw" },
        { "KODAK", "Kodak raw" }, { "Kodak", "Kodak raw" }, { "EPSON", "Epson raw" },
        { "OLYMPUS", "Olympus ORF" }, { "FUJIFILM", "Fujifilm raw" },
        { "Panasonic", "Panasonic RW2" },
    };
    gboolean big = head[0] == 'M';
    guint32 ifd, count;
    gboolean cfa = FALSE, sub_images = FALSE;
    char make[16] = "";

    if (len < 8)
        return NULL;
    ifd = gal__tiff_u32(head + 4, big);
    if (ifd < 8 || (gsize) ifd + 2 > len)
        return NULL;
    count = gal__tiff_u16(head + ifd, big);
    for (guint32 i = 0; i < count && (gsize) ifd + 2 + 12 * (i + 1) <= len; i++) {
        const guint8 *entry = head + ifd + 2 + 12 * i;
        guint32 tag = gal__tiff_u16(entry, big), type = gal__tiff_u16(entry + 2, big);
        guint32 n = gal__tiff_u32(entry + 4, big);

        if (tag == 0xc612) /* DNGVersion */
            return "DNG";
        if (tag == 262 && type == 3) { /* PhotometricInterpretation: CFA, LinearRaw */
            guint32 photometric = gal__tiff_u16(entry + 8, big);

            cfa = cfa || photometric == 32803 || photometric == 34892;
        }
        if (tag == 330) /* SubIFDs */
            sub_images = TRUE;
        if (tag == 271 && type == 2 && n > 1) { /* Make, ASCII */
            guint32 at = n <= 4 ? (guint32) (entry + 8 - head) : gal__tiff_u32(entry + 8, big);
            gsize take = MIN(n, sizeof(make) - 1);

            if ((gsize) at + take <= len) {
                memcpy(make, head + at, take);
                make[take] = '\0';
            }
        }
    }
    if (!cfa && !sub_images)
        return NULL;
    for (gsize i = 0; i < G_N_ELEMENTS(makers); i++)
        if (g_str_has_prefix(make, makers[i].make))
            return makers[i].kind;
    return cfa ? "camera raw" : NULL;
}

/* A camera's raw photo by its signature: its kind, or NULL. */
static const char *
raw_kind(const guint8 *head, gsize len)
{
    if (starts(head, len, 0, "II*\0", 4) && starts(head, len, 8, "CR\2\0", 4))
        return "Canon CR2";
    if (starts(head, len, 4, "ftypcrx ", 8))
        return "Canon CR3";
    if (starts(head, len, 0, "FUJIFILMCCD-RAW", 15))
        return "Fujifilm RAF";
    if (starts(head, len, 0, "IIRO", 4) || starts(head, len, 0, "IIRS", 4) ||
        starts(head, len, 0, "MMOR", 4))
        return "Olympus ORF";
    if (starts(head, len, 0, "IIU\0", 4))
        return "Panasonic RW2";
    if (starts(head, len, 0, "II*\0", 4) || starts(head, len, 0, "MM\0*", 4))
        return tiff_raw_kind(head, len);
    return NULL;
}

gal_image_format
gal__image_sniff(const guint8 *head, gsize len, const char **hint)
{
    const char *none = NULL;

    if (!hint)
        hint = &none;
    *hint = NULL;
    if ((*hint = raw_kind(head, len)))
        return GAL_IMAGE_RAW;
    if (starts(head, len, 0, "\xff\xd8\xff", 3))
        return GAL_IMAGE_JPEG;
    if (starts(head, len, 0, "\x89PNG\r\n\x1a\n", 8))
        return GAL_IMAGE_PNG;
    if (starts(head, len, 0, "RIFF", 4) && starts(head, len, 8, "WEBP", 4))
        return GAL_IMAGE_WEBP;
    if (starts(head, len, 0, "II*\0", 4) || starts(head, len, 0, "MM\0*", 4) ||
        starts(head, len, 0, "II+\0", 4) || starts(head, len, 0, "MM\0+", 4))
        return GAL_IMAGE_TIFF;
    if (heif_brand(head, len))
        return GAL_IMAGE_HEIF;
    if (starts(head, len, 0, "GIF87a", 6) || starts(head, len, 0, "GIF89a", 6))
        return GAL_IMAGE_GIF;
    if (starts(head, len, 0, "\xff\x0a", 2) ||
        starts(head, len, 0, "\0\0\0\x0cJXL \r\n\x87\n", 12))
        return GAL_IMAGE_JXL;
    if (len == 0)
        *hint = "an empty file";
    else if ((*hint = file_kind(head, len)))
        ;
    else if (looks_like_markup(head, len))
        *hint = "text markup (SVG, HTML or XML)";
    else if (looks_like_text(head, len))
        *hint = "text";
    else
        *hint = "data of an unknown kind";
    return GAL_IMAGE_UNKNOWN;
}

int
gal__photo_open(const char *path, gal_photo_file *file, gal_error *err)
{
    /* The error's subject is the photo: the message needs no path. */
    static const gal_read_rules rules = { "", NULL, TRUE, 0, GAL_ERR_INPUT };
    g_autofree guint8 *head = g_malloc(GAL_SNIFF_BYTES);
    const char *hint;
    ssize_t n;

    *file = (gal_photo_file) { -1, GAL_IMAGE_UNKNOWN, { 0 }, NULL };
    if (gal__file_open(path, &rules, &file->fd, &file->st, err))
        return -1;
    while ((n = pread(file->fd, head, GAL_SNIFF_BYTES, 0)) < 0 && errno == EINTR)
        ;
    if (n < 0) {
        int saved = errno;

        gal__photo_close(file);
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "cannot be read: %s",
            g_strerror(saved));
    }
    file->format = gal__image_sniff(head, (gsize) n, &hint);
    if (file->format == GAL_IMAGE_RAW)
        file->raw_kind = hint;
    if (file->format == GAL_IMAGE_UNKNOWN) {
        gal__photo_close(file);
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "not a photo gallop reads: it is %s (gallop reads JPEG, PNG, WebP, TIFF, "
            "HEIF/AVIF, GIF, JPEG XL and camera RAW)",
            hint);
    }
    return 0;
}

void
gal__photo_close(gal_photo_file *file)
{
    if (file->fd >= 0)
        close(file->fd);
    file->fd = -1;
}

int
gal__photo_shrink(gal_image_format format, int stored_width, int stored_height, int width,
    int height)
{
    /* libjpeg's DCT scaling; libwebp scales while decoding too, but may
     * round a size up or down, so WebP keeps a pixel in hand. libvips
     * rounds a JPEG's shrunk size down (335 rows at 1/2 give 167), and
     * covering must hold for that size: one row short would mean
     * enlarging the whole photo by a fraction, shifting every row. */
    int margin = format == GAL_IMAGE_WEBP ? 1 : 0;

    /* libraw develops at half size (each 2 x 2 block of photosites a
     * pixel) when that covers the output (raw.c). */
    if (format == GAL_IMAGE_RAW)
        return width * 2 <= stored_width && height * 2 <= stored_height ? 2 : 1;
    if (format != GAL_IMAGE_JPEG && format != GAL_IMAGE_WEBP)
        return 1;
    for (int shrink = 8; shrink > 1; shrink /= 2)
        if (stored_width / shrink >= width + margin && stored_height / shrink >= height + margin)
            return shrink;
    return 1;
}

gint64
gal__photo_memory(gal_image_format format, int width, int height, int bands, int band_bytes,
    int shrink, int out_width, int out_height)
{
    /* Bytes per byte of the decoded frame (pixels x bands x band_bytes)
     * that each decoder allocates at its peak, from gallop's peak RSS
     * decoding one 12 MP photo, less a run's own (docs/presets.md,
     * "memory"). JPEG, PNG and TIFF stream their rows, so the frame is an
     * upper bound; libheif decodes the whole frame, as YCbCr planes, then
     * converts it: at 8 bits to interleaved RGB, which libvips copies (10.5
     * bytes a pixel), above 8 bits to planar RGB of 16 bits, which heif.c
     * interleaves at 8 (10.5 bytes a pixel, libvips' header saying 2 a
     * band); libjxl keeps its own planes beside libvips' frame (7 a
     * pixel); libwebp and giflib decode whole frames, four bands, GIF
     * keeping the previous frame too. */
    double factor;
    double frame;
    double copies = 2.0 * MAX(0, out_width) * MAX(0, out_height) * MAX(3, MIN(bands, 4));

    switch (format) {
    case GAL_IMAGE_HEIF: factor = band_bytes > 1 ? 1.75 : 3.5; break;
    case GAL_IMAGE_JXL: factor = 2.5; break;
    case GAL_IMAGE_WEBP: factor = 4.0 / MAX(1, bands); break;
    case GAL_IMAGE_GIF: factor = 8.0 / MAX(1, bands); break;
    default: factor = 1.0; break;
    }
    shrink = MAX(1, shrink);
    frame = (double) MAX(0, width) / shrink * MAX(0, height) / shrink * MAX(1, bands) *
        MAX(1, band_bytes);
    /* A raw peaks while libraw develops it: the sensor's data, libraw's
     * working image and the developed copy (raw.c). A run's peak RSS, less
     * its own, on forged DNGs of 6, 12 and 24 MP: 16.3-18.1 bytes a
     * photosite developed whole, 5.5-5.7 at half size (docs/presets.md,
     * raw), counted here as 19 and 6. libraw's memory is freed before
     * gallop's copies are made, beside the developed frame: the larger of
     * the two counts. Taking the preview costs less (1.5 a photosite at
     * 24 MP to 1600 px), but which is known only once libraw has looked. */
    if (format == GAL_IMAGE_RAW) {
        double develop = (double) MAX(0, width) * MAX(0, height) * (shrink >= 2 ? 6.0 : 19.0);

        return (gint64) MAX(develop, frame + copies) + (8 << 20);
    }
    /* libvips' per-photo buffers: its threads' regions and line caches. */
    return (gint64) (frame * factor + copies) + (8 << 20);
}

/* One loader call on `source`; the first argument list is the format's. */
static int
load(gal_image_format format, VipsSource *source, VipsAccess access, VipsFailOn fail_on,
    int shrink, double svg_scale, VipsImage **out)
{
    switch (format) {
    case GAL_IMAGE_JPEG:
        return vips_jpegload_source(source, out, "access", access, "fail_on", fail_on, "shrink",
            shrink, NULL);
    case GAL_IMAGE_WEBP:
        return vips_webpload_source(source, out, "access", access, "fail_on", fail_on, "scale",
            1.0 / shrink, NULL);
    case GAL_IMAGE_PNG:
        return vips_pngload_source(source, out, "access", access, "fail_on", fail_on, NULL);
    case GAL_IMAGE_TIFF:
        return vips_tiffload_source(source, out, "access", access, "fail_on", fail_on, NULL);
    case GAL_IMAGE_HEIF:
        return vips_heifload_source(source, out, "access", access, "fail_on", fail_on, NULL);
    case GAL_IMAGE_GIF:
        return vips_gifload_source(source, out, "access", access, "fail_on", fail_on, NULL);
    case GAL_IMAGE_JXL:
        return vips_jxlload_source(source, out, "access", access, "fail_on", fail_on, NULL);
    case GAL_IMAGE_SVG:
        return vips_svgload_source(source, out, "access", access, "fail_on", fail_on, "scale",
            svg_scale, NULL);
    case GAL_IMAGE_RAW: /* raw.c reads these, never a libvips loader */
    case GAL_IMAGE_UNKNOWN:
        break;
    }
    vips_error("gallop", "no loader for this format");
    return -1;
}

int
gal__photo_load(const gal_photo_file *file, VipsFailOn fail_on, int shrink, VipsImage **out)
{
    /* A source of its own each time (libvips duplicates the descriptor);
     * loads from one file happen one after another, never interleaved. */
    VipsSource *source;
    int failed;

    /* A HEIF's frames are checked against its declared sizes before
     * libheif opens it, here where every libvips load of a photo passes
     * (its header, its decode; heif.c checks its own): libde265 and dav1d
     * allocate the frame a stream codes, and a hostile stream codes one
     * far larger than the header that admitted the photo (issue 41). */
    if (file->format == GAL_IMAGE_HEIF && gal__heif_frames_check(file->fd, file->st.st_size))
        return -1;
    if (!(source = vips_source_new_from_descriptor(file->fd)))
        return -1;
    failed = load(file->format, source, VIPS_ACCESS_SEQUENTIAL, fail_on, MAX(1, shrink), 1.0,
        out);
    g_object_unref(source);
    return failed;
}

int
gal__photo_load_thumbnail(const gal_photo_file *file, VipsFailOn fail_on, VipsImage **out)
{
    VipsSource *source;
    int failed;

    *out = NULL;
    if (file->format != GAL_IMAGE_HEIF) {
        vips_error("gallop", "only HEIF photos carry a thumbnail gallop reads");
        return -1;
    }
    if (gal__heif_frames_check(file->fd, file->st.st_size) ||
        !(source = vips_source_new_from_descriptor(file->fd)))
        return -1;
    failed = vips_heifload_source(source, out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
        fail_on, "thumbnail", TRUE, NULL);
    g_object_unref(source);
    return failed;
}

gboolean
gal__thumbnail_covers(int thumb_width, int thumb_height, int width, int height, int need_width,
    int need_height)
{
    double shape_height = (double) thumb_width * height / MAX(1, width);

    return thumb_width >= need_width && thumb_height >= need_height &&
        fabs(thumb_height - shape_height) <= 1.0 && thumb_width < width;
}

/* An SVG's own size, from its header (nothing drawn yet). */
static int
svg_size(VipsSource *source, int *width, int *height)
{
    VipsImage *header = NULL;

    if (load(GAL_IMAGE_SVG, source, VIPS_ACCESS_RANDOM, VIPS_FAIL_ON_ERROR, 1, 1.0, &header))
        return -1;
    *width = header->Xsize;
    *height = header->Ysize;
    g_object_unref(header);
    return 0;
}

int
gal__logo_load(const char *path, gint64 max_bytes, gint64 max_pixels, int svg_width,
    VipsImage **out, gal_error *err)
{
    gal_read_rules rules = { NULL, NULL, TRUE, max_bytes, GAL_ERR_PRESET };
    g_autoptr(GBytes) bytes = NULL;
    VipsSource *source = NULL;
    VipsImage *image = NULL;
    gal_image_format format;
    const char *hint;
    char *data;
    gsize len;
    double scale = 1.0;
    int failed;

    /* Held in memory: a logo is small, and an SVG is read twice. */
    if (gal__file_read(path, &rules, &data, &len, NULL, err))
        return -1;
    bytes = g_bytes_new_take(data, len);
    format = gal__image_sniff((const guint8 *) data, len, &hint);
    if (format == GAL_IMAGE_RAW) {
        format = GAL_IMAGE_UNKNOWN;
        hint = "a camera's raw photo";
    }
    if (format == GAL_IMAGE_UNKNOWN && (g_str_has_suffix(path, ".svg") ||
                                           g_str_has_suffix(path, ".SVG") ||
                                           g_str_has_suffix(path, ".svgz") || (hint &&
                                           g_str_has_prefix(hint, "text markup"))))
        format = GAL_IMAGE_SVG;
    if (format == GAL_IMAGE_UNKNOWN)
        return gal_error_set(err, GAL_ERR_PRESET, NULL, NULL,
            "%s is not an image gallop reads as a logo (PNG, JPEG, WebP, GIF, TIFF or SVG)%s%s",
            path, hint ? ": it is " : "", hint ? hint : "");
    source = vips_source_new_from_memory(data, len);
    if (format == GAL_IMAGE_SVG) {
        int width, height;

        if (svg_size(source, &width, &height) == 0) {
            scale = MAX(1.0, (double) svg_width / MAX(1, width));
            /* Both sides stay within what a cairo surface can hold, and
             * the whole within max_pixels. */
            scale = MIN(scale, 16000.0 / MAX(1, MAX(width, height)));
            scale = MIN(scale, sqrt((double) max_pixels / MAX(1, width) / MAX(1, height)));
        }
    }
    failed = load(format, source, VIPS_ACCESS_RANDOM, VIPS_FAIL_ON_ERROR, 1, scale, &image);
    g_object_unref(source);
    if (failed)
        return gal_error_from_vips(err, GAL_ERR_PRESET, NULL, path);
    /* Only the header is read so far: a raster logo larger than the limit
     * is refused before it is decoded (a 117 KB PNG can declare 120
     * megapixels, 1.9 GB once a watermark's master is made of it). */
    if (format != GAL_IMAGE_SVG && (double) image->Xsize * image->Ysize > (double) max_pixels) {
        gal_error_set(err, GAL_ERR_PRESET, NULL, NULL,
            "%s is %dx%d pixels (%.1f megapixels); a logo may have up to %.1f: scale it down",
            path, image->Xsize, image->Ysize, (double) image->Xsize * image->Ysize / 1e6,
            max_pixels / 1e6);
        g_object_unref(image);
        return -1;
    }
    /* Decoded now, while the bytes are here; the copy keeps no source. */
    *out = vips_image_copy_memory(image);
    g_object_unref(image);
    if (!*out)
        return gal_error_from_vips(err, GAL_ERR_PRESET, NULL, path);
    return 0;
}
