/* raw.c: camera raw photos through libraw (see raw.h).
 *
 * The file is read into memory from the descriptor decode.c opened (libraw
 * parses by seeking all over it), handed to libraw as a buffer, and every
 * size it declares is checked before anything the size of the photo is
 * allocated. libraw's own handlers print to stderr; here they only note
 * what went wrong, for the photo's error. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libraw/libraw.h>
#include <omp.h>

#include "internal.h"
#include "error.h"
#include "exif.h"
#include "limit.h"
#include "raw.h"
#include "tiff.h"

/* Which way a raw was made into pixels (gal__raw_made_by). */
#define RAW_MADE_BY "gal-raw-made-by"

/* The preview must have the raw's shape to within this (a camera's JPEG
 * is the sensor's crop, a few pixels either way), or it shows another
 * framing than the developed photo would. */
#define RAW_PREVIEW_SHAPE_TOLERANCE 0.02

typedef struct {
    gal_watch *watch;
    gboolean out_of_memory;
    gboolean data_error;
} raw_notes;

/* libraw's defaults print; a library does not. */
static void
note_memory_error(void *data, const char *file, const char *where)
{
    (void) file;
    (void) where;
    ((raw_notes *) data)->out_of_memory = TRUE;
}

static void
note_data_error(void *data, const char *file, const int offset)
{
    (void) file;
    (void) offset;
    ((raw_notes *) data)->data_error = TRUE;
}

/* Between libraw's steps: a nonzero return stops it (the photo's time is
 * up, or the run was cancelled). */
static int
on_progress(void *data, enum LibRaw_progress stage, int iteration, int expected)
{
    (void) stage;
    (void) iteration;
    (void) expected;
    return gal__watch_stopped(((raw_notes *) data)->watch) != GAL_STOP_NONE;
}

/* An open raw: the file's bytes and libraw's parse of them. */
typedef struct {
    libraw_data_t *lr;
    guint8 *bytes;
    gsize len;
    raw_notes notes;
    int flip;      /* the orientation as parsed (developing resets libraw's) */
} raw_file;

static void
raw_file_clear(raw_file *raw)
{
    if (raw->lr)
        libraw_close(raw->lr);
    g_free(raw->bytes);
    *raw = (raw_file) { 0 };
}

/* What libraw said, in the photo's error: its words (which name the
 * problem, never the file's bytes), or what its handlers noted. */
static int
libraw_failed(const gal_photo_file *file, const raw_file *raw, int code, const char *doing,
    gal_error *err)
{
    if (code == LIBRAW_CANCELLED_BY_CALLBACK)
        return gal__watch_check(raw->notes.watch, err) ? -1
                                                        : gal_error_set(err, GAL_ERR_INPUT, NULL,
                                                              NULL, "%s was stopped", doing);
    if (raw->notes.out_of_memory || code == LIBRAW_UNSUFFICIENT_MEMORY)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "cannot %s this %s raw photo: it needs more memory than libraw may take "
            "(input.max-memory-mb)",
            doing, file->raw_kind);
    if (code == LIBRAW_IO_ERROR || code == LIBRAW_DATA_ERROR || raw->notes.data_error)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "cannot %s this %s raw photo: its data ends early or is damaged", doing,
            file->raw_kind);
    return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "cannot %s this %s raw photo: %s",
        doing, file->raw_kind, libraw_strerror(code));
}

/* tiff_layout_broken's finding of a file cut short in its image: said as
 * libraw's own failure to unpack such a file is. */
static const char image_cut_short[] = "its uncompressed image runs past the end of the file";

/* Where the `count` SHORT or LONG values of the entry at `entry` are: in
 * the entry when they fit in its 4 bytes, else where it points. */
static gsize
tiff_values_at(const guchar *bytes, gsize entry, guint32 count, gboolean big)
{
    gboolean shorts = gal__tiff_u16(bytes + entry + 2, big) == 3;

    return (guint64) count * (shorts ? 2 : 4) <= 4 ? entry + 8
                                                   : gal__tiff_u32(bytes + entry + 8, big);
}

/* A TIFF-based raw's IFDs (the first chain, with its sub-IFDs and EXIF
 * IFD) as the file lays them out: every IFD and every entry's data inside
 * the file. libraw 0.20 reads a tag's data without checking that it is
 * there and then indexes with what it did not read: fuzz_raw crashed it
 * (parse_tiff_ifd) with a DNG whose CFAPattern pointed past the end.
 * And an uncompressed image's strips inside the file: libraw checks for
 * the end of the file between rows only, so a packed raw (an ORF, a NEF)
 * cut within its last row came out with a stripe of noise, not refused.
 * A file that breaks this is damaged, whatever reads it; NULL: laid out
 * right (or not a TIFF layout: libraw's own formats). */
static const char *
tiff_layout_broken(const guchar *bytes, gsize len)
{
    /* Bytes per value of TIFF types 1..13 (IFD: 13). */
    static const guint8 type_bytes[14] = { 0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4 };
    gboolean big;
    guint32 pending[64];
    int n_pending = 0, n_walked = 0;

    if (len < 8 || !((bytes[0] == 'I' && bytes[1] == 'I') || (bytes[0] == 'M' && bytes[1] == 'M')))
        return NULL;
    big = bytes[0] == 'M';
    pending[n_pending++] = gal__tiff_u32(bytes + 4, big);
    while (n_pending > 0) {
        guint32 ifd = pending[--n_pending];
        guint32 entries, compression = 0, strips;
        gsize offsets_at = 0, counts_at = 0;

        /* No camera writes more; a loop of IFDs ends here too. */
        if (++n_walked > 64)
            return "more than 64 IFDs";
        if ((guint64) ifd + 2 > len)
            return "an IFD lies past the end of the file";
        entries = gal__tiff_u16(bytes + ifd, big);
        if ((guint64) ifd + 2 + 12 * (guint64) entries + 4 > len)
            return "an IFD's entries run past the end of the file";
        for (guint32 e = 0; e < entries; e++) {
            gsize at = ifd + 2 + 12 * (gsize) e;
            guint32 tag = gal__tiff_u16(bytes + at, big), type = gal__tiff_u16(bytes + at + 2, big);
            guint32 count = gal__tiff_u32(bytes + at + 4, big);
            guint32 value = gal__tiff_u32(bytes + at + 8, big); /* or its offset */
            guint64 size = type < G_N_ELEMENTS(type_bytes) ? (guint64) type_bytes[type] * count
                                                           : 0;

            if (size > 4 && (guint64) value + size > len)
                return "a tag's data lies past the end of the file";
            if (tag == 259 && type == 3)
                compression = gal__tiff_u16(bytes + at + 8, big);
            /* StripOffsets and StripByteCounts, SHORT or LONG. */
            if ((tag == 273 || tag == 279) && (type == 3 || type == 4))
                *(tag == 273 ? &offsets_at : &counts_at) = at;
            /* SubIFDs and the EXIF IFD: walked as well (one offset each,
             * or the first of the SubIFDs' list). */
            if ((tag == 330 || tag == 34665) && count >= 1 && (type == 4 || type == 13) &&
                n_pending < (int) G_N_ELEMENTS(pending)) {
                pending[n_pending++] = count == 1 ? value : gal__tiff_u32(bytes + value, big);
            }
        }
        strips = offsets_at ? gal__tiff_u32(bytes + offsets_at + 4, big) : 0;
        if (compression == 1 && counts_at && strips == gal__tiff_u32(bytes + counts_at + 4, big)) {
            gsize offsets = tiff_values_at(bytes, offsets_at, strips, big);
            gsize counts = tiff_values_at(bytes, counts_at, strips, big);
            gboolean short_offsets = gal__tiff_u16(bytes + offsets_at + 2, big) == 3;
            gboolean short_counts = gal__tiff_u16(bytes + counts_at + 2, big) == 3;

            for (guint32 i = 0; i < strips; i++) {
                guint64 offset = short_offsets ? gal__tiff_u16(bytes + offsets + 2 * i, big)
                                               : gal__tiff_u32(bytes + offsets + 4 * i, big);
                guint64 length = short_counts ? gal__tiff_u16(bytes + counts + 2 * i, big)
                                              : gal__tiff_u32(bytes + counts + 4 * i, big);

                if (offset + length > len)
                    return image_cut_short;
            }
        }
        {
            guint32 next = gal__tiff_u32(bytes + ifd + 2 + 12 * (gsize) entries, big);

            if (next != 0 && n_pending < (int) G_N_ELEMENTS(pending))
                pending[n_pending++] = next;
        }
    }
    return NULL;
}

/* Read the file and let libraw parse it: its sizes and metadata, nothing
 * unpacked. `memory_bytes` (0: libraw's default) bounds what libraw may
 * allocate for the raw data. */
static int
raw_open(const gal_photo_file *file, gint64 memory_bytes, gal_watch *watch, raw_file *raw,
    gal_error *err)
{
    gint64 size = file->st.st_size;
    const char *broken;
    gsize got = 0;
    int code;

    *raw = (raw_file) { 0 };
    raw->notes.watch = watch;
    if (size > gal__limits.raw_bytes)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "is %.0f MB, more than a %s raw photo can be (%.0f MB at most)", size / 1e6,
            file->raw_kind, gal__limits.raw_bytes / 1e6);
    raw->bytes = g_malloc(MAX(1, size));
    while (got < (gsize) size) {
        ssize_t n = pread(file->fd, raw->bytes + got, (gsize) size - got, (off_t) got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;

            raw_file_clear(raw);
            return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "cannot be read: %s",
                g_strerror(saved));
        }
        if (n == 0)
            break;
        got += (gsize) n;
    }
    raw->len = got;
    if ((broken = tiff_layout_broken(raw->bytes, raw->len))) {
        if (broken == image_cut_short)
            gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
                "cannot unpack this %s raw photo: its data ends early or is damaged",
                file->raw_kind);
        else
            gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
                "cannot read this %s raw photo: it is damaged (%s)", file->raw_kind, broken);
        raw_file_clear(raw);
        return -1;
    }
    raw->lr = libraw_init(LIBRAW_OPTIONS_NONE);
    if (!raw->lr) {
        raw_file_clear(raw);
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "cannot start libraw");
    }
    libraw_set_memerror_handler(raw->lr, note_memory_error, &raw->notes);
    libraw_set_dataerror_handler(raw->lr, note_data_error, &raw->notes);
    libraw_set_progress_handler(raw->lr, on_progress, &raw->notes);
    if (memory_bytes > 0)
        raw->lr->params.max_raw_memory_mb = (unsigned) MAX(1, memory_bytes >> 20);
    if ((code = libraw_open_buffer(raw->lr, raw->bytes, raw->len)) != LIBRAW_SUCCESS) {
        libraw_failed(file, raw, code, "read", err);
        raw_file_clear(raw);
        return -1;
    }
    if (raw->lr->sizes.width < 1 || raw->lr->sizes.height < 1 || raw->lr->sizes.raw_width < 1 ||
        raw->lr->sizes.raw_height < 1 ||
        (double) raw->lr->sizes.raw_width * raw->lr->sizes.raw_height > gal__limits.raw_pixels) {
        gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "this %s raw photo declares a sensor of %d x %d pixels, which no camera makes "
            "(up to %.0f megapixels are read)",
            file->raw_kind, raw->lr->sizes.raw_width, raw->lr->sizes.raw_height,
            gal__limits.raw_pixels / 1e6);
        raw_file_clear(raw);
        return -1;
    }
    /* Half a bit a photosite is less than any camera's compression makes
     * (lossless JPEG keeps at least one bit, lossy raws several): a file
     * smaller than that claims a sensor its data cannot fill, and libraw
     * would allocate for the sensor before reading the data. */
    if ((double) raw->lr->sizes.raw_width * raw->lr->sizes.raw_height / 16 > (double) raw->len) {
        gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "this %s raw photo declares a sensor of %d x %d pixels, but the file is only %.0f KB: "
            "it cannot hold them (cut short, or a damaged header)",
            file->raw_kind, raw->lr->sizes.raw_width, raw->lr->sizes.raw_height, raw->len / 1e3);
        raw_file_clear(raw);
        return -1;
    }
    raw->flip = raw->lr->sizes.flip;
    return 0;
}

/* libraw's orientation (dcraw's `flip`) as EXIF's Orientation. */
static int
exif_orientation(int flip)
{
    static const int orientations[8] = { 1, 2, 4, 3, 5, 8, 6, 7 };

    return flip >= 0 && flip < 8 ? orientations[flip] : 1;
}

/* The raw's developed size as stored (before its orientation). */
static void
developed_size(const libraw_data_t *lr, int *width, int *height)
{
    double aspect = lr->sizes.pixel_aspect;

    *width = lr->sizes.width;
    *height = lr->sizes.height;
    /* Pixels that are not square are stretched as libraw does. */
    if (aspect > 0.1 && aspect < 10 && fabs(aspect - 1) > 0.001) {
        if (aspect < 1)
            *height = (int) lround(*height / aspect);
        else
            *width = (int) lround(*width * aspect);
    }
}

/* The header's facts, as EXIF, and the orientation, onto `image`. */
static void
set_metadata(const raw_file *raw, VipsImage *image)
{
    const libraw_data_t *lr = raw->lr;
    char make[sizeof(lr->idata.make) + 1], model[sizeof(lr->idata.model) + 1];
    char lens[sizeof(lr->lens.Lens) + 1], artist[sizeof(lr->other.artist) + 1];
    char desc[sizeof(lr->other.desc) + 1];
    char taken[32] = "";
    gal_exif_fields fields = { 0 };
    unsigned char *exif;
    size_t len = 0;

    /* libraw's strings fill their arrays; each is copied with an end. */
    g_strlcpy(make, lr->idata.make, sizeof(make));
    g_strlcpy(model, lr->idata.model, sizeof(model));
    g_strlcpy(lens, lr->lens.Lens[0] ? lr->lens.Lens : lr->lens.makernotes.Lens, sizeof(lens));
    g_strlcpy(artist, lr->other.artist, sizeof(artist));
    g_strlcpy(desc, lr->other.desc, sizeof(desc));
    /* libraw turned the EXIF date into a time as local time: back again. */
    if (lr->other.timestamp > 0) {
        struct tm tm;
        time_t t = lr->other.timestamp;

        if (localtime_r(&t, &tm))
            strftime(taken, sizeof(taken), "%Y:%m:%d %H:%M:%S", &tm);
    }
    fields = (gal_exif_fields) { .make = make, .model = model, .lens = lens, .taken = taken,
        .artist = artist, .description = desc, .exposure_seconds = lr->other.shutter,
        .f_number = lr->other.aperture, .iso = lr->other.iso_speed,
        .focal_mm = lr->other.focal_len,
        .orientation = exif_orientation(raw->flip) };
    if ((exif = gal__exif_build(&fields, &len))) {
        vips_image_set_blob_copy(image, VIPS_META_EXIF_NAME, exif, len);
        g_free(exif);
    }
    vips_image_set_int(image, VIPS_META_ORIENTATION, fields.orientation);
}

int
gal__raw_header(const gal_photo_file *file, VipsImage **out, gal_error *err)
{
    raw_file raw;
    VipsImage *header;
    int width, height;

    if (raw_open(file, 0, NULL, &raw, err))
        return -1;
    developed_size(raw.lr, &width, &height);
    /* Only fields: a header is never read from. */
    header = vips_image_new();
    vips_image_init_fields(header, width, height, raw.lr->idata.colors == 1 ? 1 : 3,
        VIPS_FORMAT_USHORT, VIPS_CODING_NONE,
        raw.lr->idata.colors == 1 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_RGB16, 1.0,
        1.0);
    set_metadata(&raw, header);
    raw_file_clear(&raw);
    *out = header;
    return 0;
}

/* The embedded JPEG, to be decoded as small as still covers `width` x
 * `height`, in sRGB; NULL (and no error) when there is none that covers
 * them in the raw's shape. It streams from a copy of its own bytes (a few
 * MB), freed with the image: neither the raw's bytes nor a whole decoded
 * preview are held while the photo is made. */
static VipsImage *
preview(raw_file *raw, int width, int height, int raw_width, int raw_height, gboolean *unpacked)
{
    libraw_thumbnail_t *thumb = &raw->lr->thumbnail;
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) loaded = NULL;
    VipsImage *srgb = NULL;
    GBytes *jpeg;
    int shrink = 1;

    /* The parse knows the preview's size (its JPEG has the last word): one
     * too small is not unpacked. */
    *unpacked = FALSE;
    if (thumb->twidth > 0 && thumb->theight > 0 && MAX(thumb->twidth, thumb->theight) <
            MAX(width, height))
        return NULL;
    *unpacked = TRUE;
    if (libraw_unpack_thumb(raw->lr) != LIBRAW_SUCCESS || thumb->tformat != LIBRAW_THUMBNAIL_JPEG ||
        !thumb->thumb || thumb->tlength < 4)
        return NULL;
    /* Sniffed as any photo is: a JPEG, or nothing. */
    if (gal__image_sniff((const guint8 *) thumb->thumb, thumb->tlength, NULL) != GAL_IMAGE_JPEG)
        return NULL;
    if (vips_jpegload_buffer(thumb->thumb, thumb->tlength, &header, "fail_on",
            VIPS_FAIL_ON_ERROR, NULL)) {
        vips_error_clear();
        return NULL;
    }
    if (header->Xsize < width || header->Ysize < height ||
        fabs((double) header->Xsize / header->Ysize / ((double) raw_width / raw_height) - 1) >
            RAW_PREVIEW_SHAPE_TOLERANCE)
        return NULL;
    shrink = gal__photo_shrink(GAL_IMAGE_JPEG, header->Xsize, header->Ysize, width, height);
    jpeg = g_bytes_new(thumb->thumb, thumb->tlength);
    if (vips_jpegload_buffer((void *) g_bytes_get_data(jpeg, NULL), g_bytes_get_size(jpeg),
            &loaded, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
            VIPS_FAIL_ON_ERROR, NULL)) {
        g_bytes_unref(jpeg);
        vips_error_clear();
        return NULL;
    }
    g_signal_connect_swapped(loaded, "postclose", G_CALLBACK(g_bytes_unref), jpeg);
    /* A camera set to Adobe RGB embeds its JPEG so. */
    if (!vips_image_get_typeof(loaded, VIPS_META_ICC_NAME))
        return g_steal_pointer(&loaded);
    if (vips_icc_transform(loaded, &srgb, "srgb", "embedded", TRUE, "intent",
            VIPS_INTENT_RELATIVE, NULL)) {
        vips_error_clear();
        return NULL;
    }
    return srgb;
}

static void
free_processed(VipsImage *image, libraw_processed_image_t *processed)
{
    (void) image;
    libraw_dcraw_clear_mem(processed);
}

/* Demosaic with the camera's white balance and colour matrix into sRGB,
 * 16 bits a channel; at half size (each 2x2 block of the sensor one
 * pixel, no interpolation) when that covers `width` x `height`. */
static int
develop(const gal_photo_file *file, raw_file *raw, int width, int height, gint64 memory_bytes,
    VipsImage **out, gal_error *err)
{
    libraw_data_t *lr = raw->lr;
    libraw_output_params_t *params = &lr->params;
    gboolean half = width * 2 <= lr->sizes.width && height * 2 <= lr->sizes.height;
    double pixels = (double) lr->sizes.width * lr->sizes.height / (half ? 4 : 1);
    /* The raw data (2 bytes a photosite), libraw's working image (4
     * channels of 16 bits) and the developed copy (3 of 16 bits). */
    double need = (double) lr->sizes.raw_width * lr->sizes.raw_height * 2 + pixels * (8 + 6);
    libraw_processed_image_t *processed;
    VipsImage *image;
    int code;

    if (memory_bytes > 0 && need > (double) memory_bytes)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "developing this %s raw photo (%d x %d) needs %.0f MiB, more than the %.0f MiB a "
            "photo may use (input.max-memory-mb)",
            file->raw_kind, lr->sizes.width, lr->sizes.height, need / 1048576.0,
            memory_bytes / 1048576.0);
    params->half_size = half;
    params->use_camera_wb = 1;
    params->use_camera_matrix = 1;
    params->output_color = 1; /* sRGB */
    params->output_bps = 16;
    /* sRGB's curve, as dcraw's -g 2.4 12.92. */
    params->gamm[0] = 1 / 2.4;
    params->gamm[1] = 12.92;
    /* What the camera exposed, not stretched to the brightest pixels. */
    params->no_auto_bright = 1;
    /* Turned upright later, with every other photo (job.c). */
    params->user_flip = 0;
    /* PPG, darktable's default: a third of AHD's time on a 24 MP sensor
     * (2.3 s against 7.0 s, libraw 0.20), and only ever at full size:
     * an output half the sensor's size or less is made from half_size. */
    params->user_qual = 2;
    if ((code = libraw_unpack(lr)) != LIBRAW_SUCCESS)
        return libraw_failed(file, raw, code, "unpack", err);
    /* Unpacked, libraw reads the file no more: its bytes (48 MB of a
     * 24 MP sensor) need not be held while it develops. */
    libraw_recycle_datastream(lr);
    g_clear_pointer(&raw->bytes, g_free);
    /* Debian's libraw demosaics with OpenMP, on every core by default:
     * on this worker it gets the threads a photo's libvips graph gets
     * (gal_set_jobs: workers x threads is about the cores), not as many
     * again per photo in flight. The setting is the calling thread's. */
    omp_set_num_threads(MAX(1, vips_concurrency_get()));
    if ((code = libraw_dcraw_process(lr)) != LIBRAW_SUCCESS)
        return libraw_failed(file, raw, code, "develop", err);
    if (!(processed = libraw_dcraw_make_mem_image(lr, &code)))
        return libraw_failed(file, raw, code, "develop", err);
    if (processed->type != LIBRAW_IMAGE_BITMAP || processed->bits != 16 ||
        (processed->colors != 1 && processed->colors != 3)) {
        libraw_dcraw_clear_mem(processed);
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "cannot develop this %s raw photo: libraw made no 16-bit RGB image of it",
            file->raw_kind);
    }
    /* The developed pixels are libraw's memory, freed with the image. */
    image = vips_image_new_from_memory(processed->data, processed->data_size, processed->width,
        processed->height, processed->colors, VIPS_FORMAT_USHORT);
    if (!image) {
        libraw_dcraw_clear_mem(processed);
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "cannot develop");
    }
    g_signal_connect(image, "postclose", G_CALLBACK(free_processed), processed);
    image->Type = processed->colors == 1 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_RGB16;
    *out = image;
    return 0;
}

int
gal__raw_load(const gal_photo_file *file, gal_raw_mode mode, int width, int height,
    gint64 memory_bytes, gal_watch *watch, VipsImage **out, gal_error *err)
{
    raw_file raw;
    VipsImage *image = NULL;
    int raw_width, raw_height;
    gboolean unpacked = FALSE;

    if (raw_open(file, memory_bytes, watch, &raw, err))
        return -1;
    developed_size(raw.lr, &raw_width, &raw_height);
    if (mode == GAL_RAW_PREVIEW &&
        (image = preview(&raw, width, height, raw_width, raw_height, &unpacked)))
        vips_image_set_string(image, RAW_MADE_BY, "preview");
    /* libraw 0.20 may refuse to unpack after a preview it unpacked ("Out
     * of order call"): developing then starts from a fresh parse. */
    else if ((unpacked && (raw_file_clear(&raw), raw_open(file, memory_bytes, watch, &raw, err))) ||
        gal__watch_check(watch, err) ||
        develop(file, &raw, width, height, memory_bytes, &image, err)) {
        raw_file_clear(&raw);
        return -1;
    }
    else
        vips_image_set_string(image, RAW_MADE_BY, "develop");
    set_metadata(&raw, image);
    raw_file_clear(&raw);
    *out = image;
    return 0;
}

const char *
gal__raw_made_by(VipsImage *image)
{
    const char *made_by = NULL;

    if (!image || !vips_image_get_typeof(image, RAW_MADE_BY) ||
        vips_image_get_string(image, RAW_MADE_BY, &made_by))
        return NULL;
    return made_by;
}
