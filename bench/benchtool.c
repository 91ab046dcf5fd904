/* benchtool: the helpers of the gallop benchmark (bench/run builds it).
 *
 *   benchtool floor [-j N] OUTDIR FILE...
 *       The floor contender: each JPEG decoded with the deepest shrink-on-load
 *       that still covers 1080x1350, cut (or padded) to 1080x1350 in stored
 *       orientation and encoded like the job (Q85, 4:2:0, optimised Huffman,
 *       no metadata). Nothing else: no resampling, no rotation, no overlays.
 *       N photos in flight, one libvips thread each.
 *   benchtool fanout-floor [-j N] OUTDIR FILE...
 *       The fan-out row's floor: each JPEG decoded once, with the deepest
 *       shrink-on-load that still serves the largest of the three outputs,
 *       turned upright and held in memory; then, for each of the three
 *       presets (instagram-portrait, web-large, a 400 px thumbnail), its own
 *       resize (vips_resize, Lanczos 3; a centre crop for the cover) and
 *       encode at its quality. Nothing else: no caption, mark or sheet.
 *   benchtool reference [--shrink N] JOB WATERMARK OUTDIR FILE...
 *       The job (JOB: comma-separated levels, e.g. "resize,watermark,caption")
 *       done from a full-resolution decode (or with the given JPEG shrink),
 *       written losslessly as OUTDIR/STEM.png. The quality reference.
 *       Enlargements (the 1080 px set) are centred bicubic; see enlarge().
 *   benchtool compare [--fit] < PAIRS
 *       PAIRS: lines "A<TAB>B". Decodes both to 8-bit sRGB and prints, per
 *       pair, the mean and max absolute difference, the PSNR, and whether B
 *       carries metadata; then one summary line. --fit scales B to A's size
 *       first (contact sheets drawn with another layout).
 *   benchtool rss OUTFILE CMD [ARG...]
 *       Runs CMD and writes to OUTFILE the peak, sampled every 20 ms, of the
 *       summed proportional set size (PSS) of CMD's whole process tree, in KiB.
 *
 * The job's geometry is spelled out once, in bench/README.md; the constants
 * below follow it. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vips/vips.h>

#define OUT_W 1080
#define OUT_H 1350
#define WM_WIDTH 162 /* 15% of the output width (= of its short edge) */
#define WM_MARGIN 24
#define WM_OPACITY 0.4
#define BAND_H 150
#define CAPTION_PAD 42 /* two lines of 28 px DejaVu Sans (66 px) + 2 x 42 = the 150 px band */
#define CAPTION_FONT "DejaVu Sans 28" /* at 72 dpi: 28 px */

static int
fail(const char *what)
{
    fprintf(stderr, "benchtool: %s: %s\n", what, vips_error_buffer());
    vips_error_clear();
    return -1;
}

static char *
stem_of(const char *path)
{
    char *base = g_path_get_basename(path);
    char *dot = strrchr(base, '.');

    if (dot)
        *dot = '\0';
    return base;
}

/* ---- floor ---------------------------------------------------------------------- */

/* The size of the photo at `path` as displayed (EXIF orientation applied),
 * from its header. */
static int
upright_size(const char *path, int *w, int *h)
{
    VipsImage *header = vips_image_new_from_file(path, NULL);

    if (!header)
        return -1;
    *w = header->Xsize;
    *h = header->Ysize;
    if (vips_image_get_orientation(header) >= 5) { /* displayed turned by 90 degrees */
        *w = header->Ysize;
        *h = header->Xsize;
    }
    g_object_unref(header);
    return 0;
}

typedef struct {
    char **files;
    int n;
    const char *outdir;
    int (*one)(const char *path, const char *outdir);
    int next; /* atomic */
    int failed; /* atomic */
} floor_run;

static int
floor_one(const char *path, const char *outdir)
{
    g_autofree char *stem = stem_of(path);
    g_autofree char *out = g_strdup_printf("%s/%s.jpg", outdir, stem);
    VipsImage *in = NULL, *cut = NULL;
    int w, h, shrink, ret = -1;

    if (upright_size(path, &w, &h))
        return fail(path);
    /* deepest JPEG shrink that leaves the photo covering the box */
    for (shrink = 8; shrink > 1; shrink /= 2)
        if (w / shrink >= OUT_W && h / shrink >= OUT_H)
            break;
    if (!(in = vips_image_new_from_file(path, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL,
              NULL)) ||
        vips_gravity(in, &cut, VIPS_COMPASS_DIRECTION_CENTRE, OUT_W, OUT_H, NULL) ||
        vips_jpegsave(cut, out, "Q", 85, "subsample_mode", VIPS_FOREIGN_SUBSAMPLE_ON,
            "optimize_coding", TRUE, "strip", TRUE, NULL))
        fail(path);
    else
        ret = 0;
    VIPS_UNREF(cut);
    VIPS_UNREF(in);
    return ret;
}

static void *
floor_worker(void *data)
{
    floor_run *run = data;
    int i;

    while ((i = g_atomic_int_add(&run->next, 1)) < run->n)
        if (run->one(run->files[i], run->outdir))
            g_atomic_int_inc(&run->failed);
    vips_thread_shutdown();
    return NULL;
}

static int fanout_one(const char *path, const char *outdir);

/* `floor` and `fanout-floor`: `one` makes one photo's files. */
static int
cmd_floor(int argc, char **argv, int (*one)(const char *, const char *))
{
    floor_run run = { .one = one };
    int jobs = 2;
    GThread **threads;

    if (argc > 2 && strcmp(argv[0], "-j") == 0) {
        jobs = MAX(1, atoi(argv[1]));
        argc -= 2;
        argv += 2;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: benchtool floor|fanout-floor [-j N] OUTDIR FILE...\n");
        return 2;
    }
    run.outdir = argv[0];
    run.files = argv + 1;
    run.n = argc - 1;
    if (!g_getenv("VIPS_CONCURRENCY"))
        vips_concurrency_set(1); /* photo-level parallelism only */
    threads = g_new(GThread *, jobs);
    for (int t = 0; t < jobs; t++)
        threads[t] = g_thread_new("floor", floor_worker, &run);
    for (int t = 0; t < jobs; t++)
        g_thread_join(threads[t]);
    g_free(threads);
    return run.failed ? 1 : 0;
}

/* ---- fan-out floor ------------------------------------------------------------------ */

/* The three presets of bench/run's fan-out row, as far as the floor
 * needs them: the box, cover (fill it and cut) or inside (fit it), the
 * JPEG quality, progressive or not. */
static const struct fanout_target {
    const char *suffix;
    int width, height;
    gboolean cover;
    int quality;
    gboolean progressive;
} fanout_targets[] = {
    { "instagram", OUT_W, OUT_H, TRUE, 88, FALSE },
    { "web", 2048, 2048, FALSE, 82, TRUE },
    { "thumb", 400, 400, FALSE, 80, FALSE },
};

/* The scale that makes a w x h picture fill (cover) or fit (inside) the
 * target's box, never enlarging a fit. */
static double
fanout_scale(const struct fanout_target *t, int w, int h)
{
    double sx = (double) t->width / w, sy = (double) t->height / h;

    return t->cover ? MAX(sx, sy) : MIN(1.0, MIN(sx, sy));
}

static int
fanout_one(const char *path, const char *outdir)
{
    g_autofree char *stem = stem_of(path);
    VipsImage *in = NULL, *decoded = NULL, *upright = NULL, *memory = NULL;
    int w, h, shrink, ret = 0;

    if (upright_size(path, &w, &h))
        return fail(path);
    /* The deepest JPEG shrink after which every output is still a
     * reduction of the decoded picture (or the picture itself). */
    for (shrink = 8; shrink > 1; shrink /= 2) {
        gboolean serves_all = TRUE;

        for (size_t i = 0; i < G_N_ELEMENTS(fanout_targets); i++) {
            double scale = fanout_scale(&fanout_targets[i], w, h);

            if (scale * w > w / shrink || scale * h > h / shrink)
                serves_all = FALSE;
        }
        if (serves_all)
            break;
    }
    /* Decoded in order into memory, then turned there: a quarter turn
     * reads columns, which a sequential decoder cannot give. */
    if (!(in = vips_image_new_from_file(path, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL,
              NULL)) ||
        !(decoded = vips_image_copy_memory(in)) || vips_autorot(decoded, &upright, NULL) ||
        !(memory = vips_image_copy_memory(upright))) {
        VIPS_UNREF(upright);
        VIPS_UNREF(decoded);
        VIPS_UNREF(in);
        return fail(path);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(fanout_targets) && !ret; i++) {
        const struct fanout_target *t = &fanout_targets[i];
        g_autofree char *out = g_strdup_printf("%s/%s-%s.jpg", outdir, stem, t->suffix);
        double scale = fanout_scale(t, memory->Xsize, memory->Ysize);
        VipsImage *scaled = NULL, *cut = NULL;

        if (vips_resize(memory, &scaled, scale, "kernel", VIPS_KERNEL_LANCZOS3, NULL) ||
            (t->cover ? vips_gravity(scaled, &cut, VIPS_COMPASS_DIRECTION_CENTRE, t->width,
                            t->height, NULL)
                      : vips_copy(scaled, &cut, NULL)) ||
            vips_jpegsave(cut, out, "Q", t->quality, "interlace", t->progressive,
                "optimize_coding", TRUE, "strip", TRUE, NULL))
            ret = fail(path);
        VIPS_UNREF(cut);
        VIPS_UNREF(scaled);
    }
    g_object_unref(memory);
    g_object_unref(upright);
    g_object_unref(decoded);
    g_object_unref(in);
    return ret;
}

/* ---- reference -------------------------------------------------------------------- */

/* EXIF ImageDescription (IFD0 tag 0x010e), read from the raw EXIF block:
 * libvips's own string for it is cut at 256 bytes and carries a suffix. */
static char *
caption_of(VipsImage *image)
{
    const unsigned char *b;
    size_t len;
    gboolean le;
    unsigned ifd, n;

#define U16(o) (le ? b[o] | b[(o) + 1] << 8 : b[o] << 8 | b[(o) + 1])
#define U32(o) (le ? U16(o) | (unsigned) U16((o) + 2) << 16 : (unsigned) U16(o) << 16 | U16((o) + 2))
    if (!vips_image_get_typeof(image, VIPS_META_EXIF_NAME) ||
        vips_image_get_blob(image, VIPS_META_EXIF_NAME, (const void **) &b, &len))
        return g_strdup("");
    if (len > 6 && memcmp(b, "Exif\0\0", 6) == 0) {
        b += 6;
        len -= 6;
    }
    if (len < 8)
        return g_strdup("");
    le = b[0] == 'I';
    ifd = U32(4);
    if (ifd + 2 > len)
        return g_strdup("");
    n = U16(ifd);
    for (unsigned i = 0; i < n && ifd + 2 + i * 12 + 12 <= len; i++) {
        unsigned e = ifd + 2 + i * 12, count = U32(e + 4), at = count <= 4 ? e + 8 : U32(e + 8);

        if (U16(e) == 0x010e && at + count <= len)
            return g_strndup((const char *) b + at, count); /* stops at the NUL */
    }
    return g_strdup("");
#undef U16
#undef U32
}

/* A layer, straight (not premultiplied) RGBA, composited over `*image` at x, y. */
static int
over(VipsImage **image, VipsImage *layer, int x, int y)
{
    VipsImage *out;

    if (vips_composite2(*image, layer, &out, VIPS_BLEND_MODE_OVER, "x", x, "y", y, NULL))
        return -1;
    g_object_unref(*image);
    *image = out;
    return 0;
}

static int
solid_rgba(int w, int h, double r, double g, double b, double a, VipsImage **out)
{
    double ink[4] = { r, g, b, a };
    VipsImage *black, *rgba;
    int ret;

    if (vips_black(&black, w, h, "bands", 4, NULL))
        return -1;
    ret = vips_linear(black, &rgba, (double[]) { 1, 1, 1, 1 }, ink, 4, "uchar", TRUE, NULL);
    g_object_unref(black);
    if (ret)
        return -1;
    ret = vips_copy(rgba, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(rgba);
    return ret;
}

/* The caption as white RGBA text, wrapped to the band's width. */
static int
caption_layer(const char *caption, VipsImage **out)
{
    g_autofree char *escaped = g_markup_escape_text(caption, -1);
    VipsImage *mask = NULL, *white = NULL, *joined = NULL;
    int ret = -1;

    if (!*caption) {
        *out = NULL;
        return 0;
    }
    if (!vips_text(&mask, escaped, "font", CAPTION_FONT, "width", OUT_W - 2 * CAPTION_PAD, "dpi",
            72, "wrap", VIPS_TEXT_WRAP_WORD, NULL) &&
        !solid_rgba(mask->Xsize, mask->Ysize, 255, 255, 255, 0, &white) &&
        !vips_extract_band(white, &joined, 0, "n", 3, NULL)) {
        VipsImage *rgba;

        if (!vips_bandjoin2(joined, mask, &rgba, NULL)) {
            ret = vips_copy(rgba, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
            g_object_unref(rgba);
        }
    }
    VIPS_UNREF(joined);
    VIPS_UNREF(white);
    VIPS_UNREF(mask);
    return ret;
}

static VipsImage *
prepare_watermark(const char *path)
{
    VipsImage *logo, *pre = NULL, *small = NULL, *faded = NULL, *straight = NULL, *out = NULL;

    if (!(logo = vips_image_new_from_file(path, NULL)))
        return NULL;
    if (!vips_premultiply(logo, &pre, NULL) &&
        !vips_resize(pre, &small, (double) WM_WIDTH / logo->Xsize, "kernel",
            VIPS_KERNEL_LANCZOS3, NULL) &&
        !vips_linear1(small, &faded, WM_OPACITY, 0, NULL) &&
        !vips_unpremultiply(faded, &straight, NULL))
        vips_cast(straight, &out, VIPS_FORMAT_UCHAR, NULL);
    VIPS_UNREF(straight);
    VIPS_UNREF(faded);
    VIPS_UNREF(small);
    VIPS_UNREF(pre);
    g_object_unref(logo);
    return out;
}

static gboolean
has_level(const char *job, const char *level)
{
    g_auto(GStrv) words = g_strsplit_set(job, ", ", -1);

    for (char **w = words; *w; w++)
        if (strcmp(*w, level) == 0)
            return TRUE;
    return FALSE;
}

/* Scaled by `scale`, centred (pixel centres at (i + 0.5) * scale - 0.5).
 * Shrinking is vips_resize's Lanczos 3. libvips 8.14's vips_resize enlarges
 * half an output pixel off centre (a one-pixel dot lands between pixels
 * 2i+1 and 2i+2 instead of on 2i+0.5 at 2x), which on a textured photo
 * costs 15 dB of PSNR against any centred enlargement; the reference
 * enlarges with a bicubic (Catmull-Rom) vips_affine, offset to be centred. */
static int
enlarge(VipsImage *in, double scale, VipsImage **out)
{
    VipsInterpolate *bicubic;
    VipsArrayInt *area;
    int ret;

    if (scale <= 1)
        return vips_resize(in, out, scale, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
    bicubic = vips_interpolate_new("bicubic");
    area = vips_array_int_newv(4, 0, 0, (int) lround(in->Xsize * scale),
        (int) lround(in->Ysize * scale));
    ret = vips_affine(in, out, scale, 0, 0, scale, "interpolate", bicubic, "odx",
        (scale - 1) / 2, "ody", (scale - 1) / 2, "oarea", area, "extend", VIPS_EXTEND_COPY, NULL);
    vips_area_unref(VIPS_AREA(area));
    g_object_unref(bicubic);
    return ret;
}

static int
reference_one(const char *path, const char *job, int shrink, VipsImage *mark, const char *outdir)
{
    g_autofree char *stem = stem_of(path);
    g_autofree char *out = g_strdup_printf("%s/%s.png", outdir, stem);
    g_autofree char *caption = NULL;
    VipsImage *in, *up = NULL, *scaled = NULL, *image = NULL;
    gboolean caption_on = has_level(job, "caption");
    double scale;
    int ret = -1;

    if (!(in = shrink > 1 ? vips_image_new_from_file(path, "shrink", shrink, NULL)
                          : vips_image_new_from_file(path, NULL)))
        return fail(path);
    caption = caption_of(in);
    if (vips_autorot(in, &up, NULL))
        goto out;
    scale = MAX((double) OUT_W / up->Xsize, (double) OUT_H / up->Ysize);
    if (enlarge(up, scale, &scaled) ||
        vips_extract_area(scaled, &image, (scaled->Xsize - OUT_W) / 2,
            (scaled->Ysize - OUT_H) / 2, OUT_W, OUT_H, NULL))
        goto out;
    if (caption_on) {
        VipsImage *band = NULL, *text = NULL;
        int bad = solid_rgba(OUT_W, BAND_H, 0, 0, 0, 128, &band) ||
            over(&image, band, 0, OUT_H - BAND_H) || caption_layer(caption, &text) ||
            (text && over(&image, text, CAPTION_PAD, OUT_H - BAND_H + (BAND_H - text->Ysize) / 2));

        VIPS_UNREF(band);
        VIPS_UNREF(text);
        if (bad)
            goto out;
    }
    if (mark && has_level(job, "watermark") &&
        over(&image, mark, OUT_W - WM_MARGIN - mark->Xsize,
            OUT_H - (caption_on ? BAND_H : 0) - WM_MARGIN - mark->Ysize))
        goto out;
    if (image->Bands == 4) {
        VipsImage *flat;

        if (vips_flatten(image, &flat, NULL))
            goto out;
        g_object_unref(image);
        image = flat;
    }
    {
        VipsImage *u8;

        if (vips_cast(image, &u8, VIPS_FORMAT_UCHAR, NULL))
            goto out;
        g_object_unref(image);
        image = u8;
    }
    if (vips_pngsave(image, out, "compression", 1, "strip", TRUE, NULL))
        goto out;
    ret = 0;
out:
    if (ret)
        fail(path);
    VIPS_UNREF(image);
    VIPS_UNREF(scaled);
    VIPS_UNREF(up);
    g_object_unref(in);
    return ret;
}

static int
cmd_reference(int argc, char **argv)
{
    int shrink = 1, failed = 0;
    VipsImage *mark = NULL;

    if (argc > 2 && strcmp(argv[0], "--shrink") == 0) {
        shrink = atoi(argv[1]);
        argc -= 2;
        argv += 2;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: benchtool reference [--shrink N] JOB WATERMARK OUTDIR FILE...\n");
        return 2;
    }
    if (has_level(argv[0], "watermark") && !(mark = prepare_watermark(argv[1]))) {
        fail(argv[1]);
        return 1;
    }
    for (int i = 3; i < argc; i++)
        failed |= reference_one(argv[i], argv[0], shrink, mark, argv[2]) != 0;
    VIPS_UNREF(mark);
    return failed;
}

/* ---- compare -------------------------------------------------------------------- */

static VipsImage *
load_srgb8(const char *path)
{
    VipsImage *in, *t = NULL, *out = NULL;

    if (!(in = vips_image_new_from_file(path, NULL)))
        return NULL;
    if (vips_image_hasalpha(in)) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        int bad = vips_flatten(in, &t, "background", white, NULL);

        vips_area_unref(VIPS_AREA(white));
        if (bad)
            goto done;
        g_object_unref(in);
        in = t;
        t = NULL;
    }
    if (vips_colourspace(in, &t, VIPS_INTERPRETATION_sRGB, NULL) ||
        vips_cast(t, &out, VIPS_FORMAT_UCHAR, NULL))
        out = NULL;
done:
    VIPS_UNREF(t);
    g_object_unref(in);
    return out;
}

static gboolean
has_metadata(const char *path)
{
    VipsImage *in = vips_image_new_from_file(path, NULL);
    gboolean any;

    if (!in)
        return FALSE;
    any = vips_image_get_typeof(in, VIPS_META_EXIF_NAME) ||
        vips_image_get_typeof(in, VIPS_META_XMP_NAME) ||
        vips_image_get_typeof(in, VIPS_META_IPTC_NAME) ||
        vips_image_get_typeof(in, VIPS_META_ICC_NAME);
    g_object_unref(in);
    return any;
}

static int
compare_pair(const char *a_path, const char *b_path, gboolean fit, double *mad, double *maxd,
    double *psnr)
{
    VipsImage *a = load_srgb8(a_path), *b = load_srgb8(b_path), *bb = NULL;
    VipsImage *d = NULL, *ad = NULL, *sq = NULL;
    int ret = -1;
    double mse;

    if (!a || !b)
        goto out;
    if (a->Xsize != b->Xsize || a->Ysize != b->Ysize || a->Bands != b->Bands) {
        if (!fit || a->Bands != b->Bands) {
            vips_error("compare", "%s is %dx%d, %s is %dx%d", a_path, a->Xsize, a->Ysize, b_path,
                b->Xsize, b->Ysize);
            goto out;
        }
        if (vips_resize(b, &bb, (double) a->Xsize / b->Xsize, "vscale",
                (double) a->Ysize / b->Ysize, NULL))
            goto out;
        g_object_unref(b);
        b = bb;
        bb = NULL;
        if (b->Xsize != a->Xsize || b->Ysize != a->Ysize) {
            VipsImage *c;

            if (vips_gravity(b, &c, VIPS_COMPASS_DIRECTION_CENTRE, a->Xsize, a->Ysize, NULL))
                goto out;
            g_object_unref(b);
            b = c;
        }
    }
    if (vips_subtract(a, b, &d, NULL) || vips_abs(d, &ad, NULL) || vips_avg(ad, mad, NULL) ||
        vips_max(ad, maxd, NULL) || vips_multiply(d, d, &sq, NULL) || vips_avg(sq, &mse, NULL))
        goto out;
    *psnr = mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : 99;
    ret = 0;
out:
    VIPS_UNREF(sq);
    VIPS_UNREF(ad);
    VIPS_UNREF(d);
    VIPS_UNREF(bb);
    VIPS_UNREF(b);
    VIPS_UNREF(a);
    return ret;
}

static int
cmd_compare(int argc, char **argv)
{
    gboolean fit = argc > 0 && strcmp(argv[0], "--fit") == 0;
    char line[8192];
    int n = 0, bad = 0, with_meta = 0;
    double sum_mad = 0, max_mad = 0, min_psnr = 1e9, sum_psnr = 0;

    while (fgets(line, sizeof line, stdin)) {
        char *tab = strchr(line, '\t');
        double mad, maxd, psnr;
        gboolean meta;

        line[strcspn(line, "\r\n")] = '\0';
        if (!tab)
            continue;
        *tab = '\0';
        if (compare_pair(line, tab + 1, fit, &mad, &maxd, &psnr)) {
            fail("compare");
            bad++;
            continue;
        }
        meta = has_metadata(tab + 1);
        printf("pair\t%s\t%.3f\t%.0f\t%.2f\t%s\n", tab + 1, mad, maxd, psnr,
            meta ? "metadata" : "-");
        n++;
        with_meta += meta;
        sum_mad += mad;
        max_mad = MAX(max_mad, mad);
        min_psnr = MIN(min_psnr, psnr);
        sum_psnr += psnr;
    }
    /* summary: pairs, unreadable or mis-sized pairs, mean and worst mean-abs-diff,
     * mean and worst PSNR, outputs that still carry metadata */
    printf("summary\t%d\t%d\t%.3f\t%.3f\t%.2f\t%.2f\t%d\n", n, bad, n ? sum_mad / n : 0, max_mad,
        n ? sum_psnr / n : 0, n ? min_psnr : 0, with_meta);
    return bad ? 1 : 0;
}

/* ---- rss -------------------------------------------------------------------------- */

/* Sum of Pss over pid and its descendants, in KiB. */
static long
tree_pss(pid_t root)
{
    DIR *proc = opendir("/proc");
    struct dirent *e;
    GHashTable *parent = g_hash_table_new(NULL, NULL);
    GArray *pids = g_array_new(FALSE, FALSE, sizeof(int));
    long total = 0;

    while (proc && (e = readdir(proc))) {
        char path[64], buf[512];
        FILE *f;
        int pid = atoi(e->d_name), ppid;
        char *close_paren;

        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        if (!(f = fopen(path, "r")))
            continue;
        if (fgets(buf, sizeof buf, f) && (close_paren = strrchr(buf, ')')) &&
            sscanf(close_paren + 2, "%*c %d", &ppid) == 1) {
            g_hash_table_insert(parent, GINT_TO_POINTER(pid), GINT_TO_POINTER(ppid));
            g_array_append_val(pids, pid);
        }
        fclose(f);
    }
    if (proc)
        closedir(proc);
    for (guint i = 0; i < pids->len; i++) {
        int pid = g_array_index(pids, int, i), p = pid;
        char path[64], buf[256];
        FILE *f;

        for (int depth = 0; p > 1 && p != root && depth < 64; depth++)
            p = GPOINTER_TO_INT(g_hash_table_lookup(parent, GINT_TO_POINTER(p)));
        if (p != root)
            continue;
        snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
        if (!(f = fopen(path, "r")))
            continue;
        while (fgets(buf, sizeof buf, f)) {
            long kb;

            if (sscanf(buf, "Pss: %ld kB", &kb) == 1)
                total += kb;
        }
        fclose(f);
    }
    g_array_free(pids, TRUE);
    g_hash_table_destroy(parent);
    return total;
}

static int
cmd_rss(int argc, char **argv)
{
    pid_t child;
    int status = 0;
    long peak = 0;
    FILE *out;

    if (argc < 2) {
        fprintf(stderr, "usage: benchtool rss OUTFILE CMD [ARG...]\n");
        return 2;
    }
    if ((child = fork()) == 0) {
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    for (;;) {
        pid_t done = waitpid(child, &status, WNOHANG);
        struct timespec nap = { 0, 20 * 1000 * 1000 };

        if (done == child)
            break;
        peak = MAX(peak, tree_pss(child));
        nanosleep(&nap, NULL);
    }
    if (!(out = fopen(argv[0], "w")))
        return 2;
    fprintf(out, "%ld\n", peak);
    fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int
main(int argc, char **argv)
{
    int ret;

    if (argc < 2) {
        fprintf(stderr, "usage: benchtool floor|fanout-floor|reference|compare|rss ...\n");
        return 2;
    }
    if (strcmp(argv[1], "rss") == 0)
        return cmd_rss(argc - 2, argv + 2); /* no libvips in the sampler */
    if (VIPS_INIT(argv[0]))
        vips_error_exit(NULL);
    if (strcmp(argv[1], "floor") == 0)
        ret = cmd_floor(argc - 2, argv + 2, floor_one);
    else if (strcmp(argv[1], "fanout-floor") == 0)
        ret = cmd_floor(argc - 2, argv + 2, fanout_one);
    else if (strcmp(argv[1], "reference") == 0)
        ret = cmd_reference(argc - 2, argv + 2);
    else if (strcmp(argv[1], "compare") == 0)
        ret = cmd_compare(argc - 2, argv + 2);
    else {
        fprintf(stderr, "benchtool: unknown command %s\n", argv[1]);
        ret = 2;
    }
    vips_shutdown();
    return ret;
}
