/* gal_test_raw.h: small raws forged byte by byte, with known colours, so
 * a test checks what developing makes of a raw, not only that a file
 * appears; and hostile ones (sizes no camera makes, offsets past the end,
 * cut files), for the RAW path's refusals and its fuzz seeds. */
#ifndef GAL_TEST_RAW_H
#define GAL_TEST_RAW_H

#include <glib.h>
#include <vips/vips.h>

/* Which file a forged raw is (gal_test_dng_bytes). The makers' formats
 * are in gal_test_raw_makers.c; each is laid out as its cameras write it,
 * as far as libraw needs to read it: no maker notes; the preview only
 * where CR2 and RAF put it. */
typedef enum gal_test_raw_layout {
    GAL_TEST_RAW_DNG,  /* a DNG, or with maker_raw an uncompressed NEF, ARW or PEF */
    GAL_TEST_RAW_CR2,  /* Canon: lossless JPEG in slices, as Canon's cameras write it */
    GAL_TEST_RAW_RW2,  /* Panasonic: uncompressed, 12 bits in 16 */
    GAL_TEST_RAW_ORF,  /* Olympus: uncompressed, 12 bits packed */
    GAL_TEST_RAW_RAF,  /* Fujifilm (Bayer): uncompressed, beside a JPEG with the EXIF */
} gal_test_raw_layout;

/* A DNG of `width` x `height` photosites (both even) in an RGGB Bayer
 * mosaic, 16 bits each, white at 65535, black at 0. Its colour matrix
 * makes the camera's RGB linear sRGB, its as-shot white (1, 1, 1), so a
 * developed pixel is `patches` through sRGB's curve. */
typedef struct gal_test_dng {
    int width, height;
    /* Linear RGB, 0..1, of the four quarters: top left, top right,
     * bottom left, bottom right. */
    double patches[4][3];
    int orientation;         /* EXIF Orientation in the raw's directory; 0: none */
    const char *make, *model, *lens;
    const char *taken;       /* DateTimeOriginal; NULL: none */
    double exposure_seconds, f_number, focal_mm;
    int iso;
    /* An embedded preview, JPEG-compressed (a sub-image, as cameras and
     * Adobe's converter write it); NULL: none. */
    const void *preview_jpeg;
    gsize preview_len;
    int preview_width, preview_height;
    /* Hostile: the size the directory claims (0: the true one), the
     * pixels' offset moved this far past the end of the file (0: where
     * they are), the file cut to this many bytes (0: whole; the only
     * one the makers' layouts take). */
    guint32 claimed_width, claimed_height;
    guint32 pixels_past_end;
    gsize cut_to;
    /* A maker's raw rather than a DNG: the same TIFF without DNG's tags
     * (version, colour matrix, white balance, levels), laid out as an
     * uncompressed NEF, ARW or PEF is; libraw then takes the levels and
     * the colour matrix from its own table of cameras, by make and model,
     * and the white balance from the matrix (daylight). */
    gboolean maker_raw;
    /* The photosite values of patches' 0 and 1 (both 0: 0 and 65535). */
    guint16 black, white;
    gal_test_raw_layout layout;
} gal_test_dng;

/* The raw's bytes, in its `layout`. */
GBytes *gal_test_dng_bytes(const gal_test_dng *dng);
/* The makers' layouts (gal_test_raw_makers.c). */
GBytes *gal_test_cr2_bytes(const gal_test_dng *raw);
GBytes *gal_test_rw2_bytes(const gal_test_dng *raw);
GBytes *gal_test_orf_bytes(const gal_test_dng *raw);
GBytes *gal_test_raf_bytes(const gal_test_dng *raw);

/* The photosite at (x, y): an RGGB mosaic of the four quarters' patches,
 * from `black` to `white`. */
guint16 gal_test_raw_photosite(const gal_test_dng *raw, int x, int y);

/* Written to `dir`/`name`: its path (g_free). */
char *gal_test_dng_write(const char *dir, const char *name, const gal_test_dng *dng);

/* A plain test DNG: 64 x 48, quarters red, green, blue and 18% grey,
 * with a Nikon-like camera, lens, date and exposure. */
gal_test_dng gal_test_dng_default(void);

/* What libraw's tables say of a camera, read from a raw of it (a raw
 * without DNG's tags takes its levels and colour matrix from there, by
 * make and model, and its white balance from the matrix: daylight). */
typedef struct gal_test_raw_camera {
    double black, white;
    double gain[3];       /* the white balance's multipliers, the least 1 */
    double to_srgb[3][3]; /* the camera's RGB (balanced) to linear sRGB */
} gal_test_raw_camera;

gal_test_raw_camera gal_test_raw_camera_of(const char *path);

/* Set `raw`'s levels to the camera's and its patches to the photosites
 * the camera records of `targets` (linear sRGB): developed with its
 * matrix and balance, each quarter comes out as its target. */
void gal_test_raw_aim(gal_test_dng *raw, const gal_test_raw_camera *camera,
    const double targets[4][3]);

/* A JPEG of `width` x `height` in one sRGB colour (0..255 a band), with
 * no metadata: a raw's preview. */
GBytes *gal_test_raw_preview_jpeg(int width, int height, const double ink[3]);

/* Each quarter's centre of `image`, developed from `raw` (a 4 x 4 block),
 * is its patch (linear sRGB) through sRGB's curve, each band within
 * `tolerance` of 255; `what` names the image in a failure. */
void gal_test_raw_expect_quarters(VipsImage *image, const gal_test_dng *raw, double tolerance,
    const char *what);

/* The same for a makers' raw aimed at `targets` (gal_test_raw_aim), within
 * 8 levels: not closer, because without the as-shot balance of a real
 * file's maker notes libraw develops red and blue a few levels off its
 * table's daylight balance. And what a wrong matrix, level or Bayer phase
 * would break by far: red, green and blue lead the other channels by 60
 * levels or more, and the fourth, grey, stays grey within 12. */
void gal_test_raw_expect_aimed(VipsImage *image, const double targets[4][3], const char *what);

/* sRGB's curve: linear 0..1 to 0..255. */
double gal_test_srgb8(double linear);

#endif /* GAL_TEST_RAW_H */
