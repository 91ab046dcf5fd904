/* test_raw.c: camera raw photos (raw.c), on DNGs forged with known
 * colours (tests/support/gal_test_raw.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_raw.h"
#include "raw.h"

TestSuite(raw, .init = gal_test_setup, .fini = gal_test_teardown);

/* Open `path` as a photo; it must be taken for a raw. */
static void
open_raw(const char *path, gal_photo_file *file)
{
    gal_error err = { 0 };

    cr_assert_eq(gal__photo_open(path, file, &err), 0, "%s", err.msg);
    cr_assert_eq(file->format, GAL_IMAGE_RAW, "%s sniffed as %s", path,
        gal__image_format_name(file->format));
}

Test(raw, a_forged_dng_is_sniffed_as_a_raw_by_its_first_directory)
{
    gal_test_dng dng = gal_test_dng_default();
    g_autoptr(GBytes) bytes = gal_test_dng_bytes(&dng);
    gsize len;
    const guint8 *data = g_bytes_get_data(bytes, &len);
    const char *kind = NULL;

    cr_expect_eq(gal__image_sniff(data, len, &kind), GAL_IMAGE_RAW);
    cr_expect_str_eq(kind, "DNG");
}

Test(raw, raws_are_told_by_their_signatures_and_a_plain_tiff_is_not_one)
{
    static const guint8 cr2[16] = { 'I', 'I', '*', 0, 16, 0, 0, 0, 'C', 'R', 2, 0 };
    static const guint8 orf[8] = { 'I', 'I', 'R', 'O', 8, 0, 0, 0 };
    static const guint8 rw2[8] = { 'I', 'I', 'U', 0, 8, 0, 0, 0 };
    static const guint8 cr3[16] = { 0, 0, 0, 24, 'f', 't', 'y', 'p', 'c', 'r', 'x', ' ' };
    static const char raf[] = "FUJIFILMCCD-RAW 0201FF383501";
    /* A TIFF whose one directory has one entry (width), no CFA, no
     * sub-images: a TIFF. */
    static const guint8 tiff[26] = { 'I', 'I', '*', 0, 8, 0, 0, 0, 1, 0, 0, 1, 3, 0, 1, 0, 0,
        0, 64, 0 };
    const char *kind = NULL;

    cr_expect_eq(gal__image_sniff(cr2, sizeof(cr2), &kind), GAL_IMAGE_RAW);
    cr_expect_str_eq(kind, "Canon CR2");
    cr_expect_eq(gal__image_sniff(orf, sizeof(orf), &kind), GAL_IMAGE_RAW);
    cr_expect_str_eq(kind, "Olympus ORF");
    cr_expect_eq(gal__image_sniff(rw2, sizeof(rw2), &kind), GAL_IMAGE_RAW);
    cr_expect_str_eq(kind, "Panasonic RW2");
    cr_expect_eq(gal__image_sniff(cr3, sizeof(cr3), &kind), GAL_IMAGE_RAW);
    cr_expect_str_eq(kind, "Canon CR3");
    cr_expect_eq(gal__image_sniff((const guint8 *) raf, sizeof(raf), &kind), GAL_IMAGE_RAW);
    cr_expect_str_eq(kind, "Fujifilm RAF");
    cr_expect_eq(gal__image_sniff(tiff, sizeof(tiff), &kind), GAL_IMAGE_TIFF);
    /* Cut inside the header or the directory: a TIFF, nothing read past the end. */
    for (gsize len = 4; len < sizeof(tiff); len++)
        cr_expect_eq(gal__image_sniff(tiff, len, &kind), GAL_IMAGE_TIFF, "%zu bytes", len);
}

/* A TIFF of one directory, in either byte order: Make (NULL: none), a
 * colour filter array (PhotometricInterpretation 32803) and sub-images
 * (SubIFDs) when asked; no pixels (the sniffer reads only the directory).
 * Its length. */
static gsize
forge_tiff(guint8 out[128], gboolean big, const char *make, gboolean cfa, gboolean sub_images)
{
    guint8 *entry = out + 10;
    guint16 count = 0;

    memset(out, 0, 128);
#define PUT16(p, v) (big ? ((p)[0] = (guint8) ((v) >> 8), (p)[1] = (guint8) (v)) \
                         : ((p)[0] = (guint8) (v), (p)[1] = (guint8) ((v) >> 8)))
#define PUT32(p, v) (big ? (PUT16(p, (v) >> 16), PUT16((p) + 2, (v) & 0xffff)) \
                         : (PUT16(p, (v) & 0xffff), PUT16((p) + 2, (v) >> 16)))
    memcpy(out, big ? "MM\0*" : "II*\0", 4);
    PUT32(out + 4, 8u);
    if (cfa) {
        PUT16(entry, 262);
        PUT16(entry + 2, 3);
        PUT32(entry + 4, 1u);
        PUT16(entry + 8, 32803);
        entry += 12, count++;
    }
    if (make) {
        PUT16(entry, 271);
        PUT16(entry + 2, 2);
        PUT32(entry + 4, (guint32) strlen(make) + 1);
        PUT32(entry + 8, 80u);
        memcpy(out + 80, make, MIN(strlen(make), 40));
        entry += 12, count++;
    }
    if (sub_images) {
        PUT16(entry, 330);
        PUT16(entry + 2, 4);
        PUT32(entry + 4, 1u);
        PUT32(entry + 8, 64u);
        entry += 12, count++;
    }
    PUT16(out + 8, count);
#undef PUT16
#undef PUT32
    return 128;
}

Test(raw, the_raws_that_are_tiffs_are_told_by_their_makers_name)
{
    static const struct {
        const char *make;
        gboolean cfa, sub_images;
        const char *kind; /* NULL: a plain TIFF */
    } cases[] = {
        { "NIKON CORPORATION", TRUE, FALSE, "Nikon NEF" },
        { "NIKON CORPORATION", FALSE, TRUE, "Nikon NEF" }, /* the raw in a sub-image */
        { "SONY", FALSE, TRUE, "Sony ARW" },
        { "PENTAX Corporation", TRUE, FALSE, "Pentax PEF" },
        { "RICOH IMAGING COMPANY, LTD.", FALSE, TRUE, "Pentax PEF" },
        { "Canon", FALSE, TRUE, "Canon CR2" },
        { "SAMSUNG", TRUE, FALSE, "Samsung SRW" },
        { "Acme Scanners", TRUE, FALSE, "camera raw" }, /* a CFA under an unknown name */
        { NULL, TRUE, FALSE, "camera raw" },
        { "Acme Scanners", FALSE, TRUE, NULL },  /* pages of a scan */
        { "NIKON CORPORATION", FALSE, FALSE, NULL }, /* a camera's own TIFF */
    };
    guint8 tiff[128];

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
        for (int big = 0; big < 2; big++) {
            gsize len = forge_tiff(tiff, big, cases[i].make, cases[i].cfa, cases[i].sub_images);
            const char *kind = NULL;
            gal_image_format format = gal__image_sniff(tiff, len, &kind);

            if (!cases[i].kind) {
                cr_expect_eq(format, GAL_IMAGE_TIFF, "case %zu, %s", i, big ? "MM" : "II");
                continue;
            }
            cr_expect_eq(format, GAL_IMAGE_RAW, "case %zu, %s", i, big ? "MM" : "II");
            cr_expect_str_eq(kind ? kind : "(none)", cases[i].kind, "case %zu", i);
        }
}

Test(raw, every_olympus_signature_is_an_orf)
{
    static const char *const heads[] = { "IIRO\x08\0\0\0", "IIRS\x08\0\0\0",
        "MMOR\0\0\0\x08" };
    const char *kind = NULL;

    for (gsize i = 0; i < G_N_ELEMENTS(heads); i++) {
        cr_expect_eq(gal__image_sniff((const guint8 *) heads[i], 8, &kind), GAL_IMAGE_RAW,
            "%zu", i);
        cr_expect_str_eq(kind, "Olympus ORF");
    }
}

Test(raw, the_header_has_the_size_date_camera_lens_exposure_and_orientation)
{
    g_autofree char *dir = gal_test_tmpdir("raw-header");
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_photo_file file;
    gal_error err = { 0 };
    gal_facts facts = { 0 };
    const void *exif;
    size_t len;

    dng.orientation = 6;
    path = gal_test_dng_write(dir, "IMG_0001.DNG", &dng);
    open_raw(path, &file);
    cr_assert_eq(gal__raw_header(&file, &header, &err), 0, "%s", err.msg);
    gal__photo_close(&file);
    cr_expect_eq(header->Xsize, 64);
    cr_expect_eq(header->Ysize, 48);
    cr_expect_eq(vips_image_get_orientation(header), 6);
    cr_assert_eq(vips_image_get_blob(header, VIPS_META_EXIF_NAME, &exif, &len), 0);
    gal__facts_from_exif(exif, len, &facts, strings);
    cr_assert(facts.has_date);
    cr_expect_eq(facts.date.tm_year, 124);
    cr_expect_eq(facts.date.tm_mon, 4);
    cr_expect_eq(facts.date.tm_mday, 1);
    cr_expect_eq(facts.date.tm_hour, 8);
    cr_expect_eq(facts.date.tm_min, 30);
    cr_assert_not_null(facts.camera);
    cr_expect(strstr(facts.camera, "D750") != NULL, "%s", facts.camera);
    cr_assert_not_null(facts.lens);
    cr_expect_str_eq(facts.lens, "AF-S NIKKOR 24-120mm f/4G ED VR");
    cr_assert_not_null(facts.exposure);
    cr_expect_str_eq(facts.exposure, "1/250 s f/5.6 ISO 200");
}

Test(raw, developing_gives_the_patches_colours_at_full_and_half_size)
{
    g_autofree char *dir = gal_test_tmpdir("raw-develop");
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *path = gal_test_dng_write(dir, "patches.dng", &dng);
    g_autoptr(VipsImage) full = NULL;
    g_autoptr(VipsImage) half = NULL;
    gal_photo_file file;
    gal_error err = { 0 };

    open_raw(path, &file);
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_DEVELOP, 64, 48, 0, NULL, &full, &err), 0, "%s",
        err.msg);
    cr_expect_str_eq(gal__raw_made_by(full), "develop");
    cr_expect_eq(full->Xsize, 64);
    cr_expect_eq(full->Ysize, 48);
    cr_expect_eq(full->BandFmt, VIPS_FORMAT_USHORT);
    cr_expect_eq(full->Bands, 3);
    gal_test_raw_expect_quarters(full, &dng, 3, "full");
    /* Half the size or less: each 2 x 2 block of photosites a pixel. */
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_DEVELOP, 32, 24, 0, NULL, &half, &err), 0, "%s",
        err.msg);
    gal__photo_close(&file);
    cr_expect_eq(half->Xsize, 32);
    cr_expect_eq(half->Ysize, 24);
    gal_test_raw_expect_quarters(half, &dng, 3, "half");
}

Test(raw, the_preview_is_taken_when_it_covers_the_size_asked_for_else_developed)
{
    g_autofree char *dir = gal_test_tmpdir("raw-preview");
    gal_test_dng dng = gal_test_dng_default();
    g_autoptr(GBytes) jpeg = gal_test_raw_preview_jpeg(64, 48, (double[]) { 200, 30, 200 });
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) small = NULL;
    g_autoptr(VipsImage) larger = NULL;
    g_autoptr(VipsImage) developed = NULL;
    gal_photo_file file;
    gal_error err = { 0 };
    double rgb[3];

    dng.width = 128;
    dng.height = 96;
    dng.preview_jpeg = g_bytes_get_data(jpeg, &dng.preview_len);
    dng.preview_width = 64;
    dng.preview_height = 48;
    path = gal_test_dng_write(dir, "preview.dng", &dng);
    open_raw(path, &file);
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_PREVIEW, 60, 45, 0, NULL, &small, &err), 0, "%s",
        err.msg);
    cr_expect_str_eq(gal__raw_made_by(small), "preview");
    cr_expect_eq(small->Xsize, 64);
    gal_test_block_mean(small, 30, 20, rgb);
    cr_expect(fabs(rgb[0] - 200) < 6 && fabs(rgb[1] - 30) < 6 && fabs(rgb[2] - 200) < 6,
        "the preview's magenta: %.0f %.0f %.0f", rgb[0], rgb[1], rgb[2]);
    /* Larger than the preview: developed. */
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_PREVIEW, 100, 75, 0, NULL, &larger, &err), 0, "%s",
        err.msg);
    cr_expect_str_eq(gal__raw_made_by(larger), "develop");
    gal_test_raw_expect_quarters(larger, &dng, 3, "larger");
    /* input.raw: develop never takes the preview. */
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_DEVELOP, 60, 45, 0, NULL, &developed, &err), 0, "%s",
        err.msg);
    gal__photo_close(&file);
    cr_expect_str_eq(gal__raw_made_by(developed), "develop");
    gal_test_raw_expect_quarters(developed, &dng, 3, "developed");
}

Test(raw, developing_over_the_memory_budget_is_refused_before_unpacking)
{
    g_autofree char *dir = gal_test_tmpdir("raw-budget");
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *path = gal_test_dng_write(dir, "patches.dng", &dng);
    g_autoptr(VipsImage) image = NULL;
    gal_photo_file file;
    gal_error err = { 0 };

    open_raw(path, &file);
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_DEVELOP, 64, 48, 4096, NULL, &image, &err), -1);
    gal__photo_close(&file);
    cr_expect_eq(err.code, GAL_ERR_INPUT);
    cr_expect(strstr(err.msg, "input.max-memory-mb") != NULL, "%s", err.msg);
}

Test(raw, input_raw_develop_joins_the_recipe_and_the_default_leaves_it_as_it_was)
{
    gal_preset *plain = gal_test_load_ok("gallop: 1\n");
    gal_preset *preview = gal_test_load_ok("gallop: 1\ninput: {raw: preview}\n");
    gal_preset *develop = gal_test_load_ok("gallop: 1\ninput: {raw: develop}\n");
    g_autoptr(GPtrArray) plain_keys = gal__preset_keys(plain, GAL_TEST_TMP);
    g_autoptr(GPtrArray) preview_keys = gal__preset_keys(preview, GAL_TEST_TMP);
    g_autoptr(GPtrArray) develop_keys = gal__preset_keys(develop, GAL_TEST_TMP);
    g_autofree char *diff = gal__keys_diff(plain_keys, develop_keys);
    char plain_hex[65], preview_hex[65], develop_hex[65];

    gal__keys_digest(plain_keys, plain_hex);
    gal__keys_digest(preview_keys, preview_hex);
    gal__keys_digest(develop_keys, develop_hex);
    cr_expect_str_eq(plain_hex, preview_hex);
    cr_expect_str_neq(plain_hex, develop_hex);
    cr_expect(strstr(diff, "input.raw") != NULL, "%s", diff);
    gal_preset_free(plain);
    gal_preset_free(preview);
    gal_preset_free(develop);
}

Test(raw, input_raw_takes_preview_or_develop_and_names_a_wrong_value_where_it_is)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\ninput:\n  raw: bake\n", errs);

    cr_assert_null(preset);
    cr_assert_geq(errs->count, 1);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, GAL_TEST_TMP "/test.yaml", 3, 8,
        "input.raw", "preview, develop");
}

Test(raw, the_default_include_takes_raws_gifs_and_every_kind_named)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n");
    static const char *const globs[] = { "*.gif", "*.cr2", "*.cr3", "*.nef", "*.arw", "*.dng",
        "*.raf", "*.orf", "*.rw2", "*.pef" };

    for (size_t i = 0; i < G_N_ELEMENTS(globs); i++)
        cr_expect(g_strv_contains((const char *const *) preset->input->include, globs[i]),
            "%s is not in the default input.include", globs[i]);
    gal_preset_free(preset);
}

Test(raw, a_photo_past_its_time_is_not_developed)
{
    g_autofree char *dir = gal_test_tmpdir("raw-time");
    gal_test_dng dng = gal_test_dng_default();
    g_autofree char *path = gal_test_dng_write(dir, "patches.dng", &dng);
    g_autoptr(VipsImage) image = NULL;
    gal_cancel *cancel = gal__cancel_new(NULL);
    gal_watch *watch = gal__watch_begin(cancel, 0.001, 0);
    gal_photo_file file;
    gal_error err = { 0 };

    g_usleep(5000);
    gal__cancel_poll(cancel);
    cr_assert_eq(gal__watch_stopped(watch), GAL_STOP_TIMEOUT);
    open_raw(path, &file);
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_DEVELOP, 64, 48, 0, watch, &image, &err), -1);
    gal__photo_close(&file);
    cr_expect_eq(err.code, GAL_ERR_INPUT);
    cr_expect(strstr(err.msg, "(input.max-seconds)") != NULL, "%s", err.msg);
    gal__watch_end(watch);
    gal__cancel_free(cancel);
}

Test(raw, a_preview_of_another_shape_is_not_taken)
{
    g_autofree char *dir = gal_test_tmpdir("raw-preview-shape");
    gal_test_dng dng = gal_test_dng_default();
    g_autoptr(GBytes) jpeg = gal_test_raw_preview_jpeg(96, 96, (double[]) { 200, 30, 200 });
    g_autofree char *path = NULL;
    g_autoptr(VipsImage) image = NULL;
    gal_photo_file file;
    gal_error err = { 0 };

    /* A square crop of a 4:3 sensor: it covers 60 x 45, but shows less. */
    dng.preview_jpeg = g_bytes_get_data(jpeg, &dng.preview_len);
    dng.preview_width = 96;
    dng.preview_height = 96;
    path = gal_test_dng_write(dir, "square-preview.dng", &dng);
    open_raw(path, &file);
    cr_assert_eq(gal__raw_load(&file, GAL_RAW_PREVIEW, 60, 45, 0, NULL, &image, &err), 0, "%s",
        err.msg);
    gal__photo_close(&file);
    cr_expect_str_eq(gal__raw_made_by(image), "develop");
    gal_test_raw_expect_quarters(image, &dng, 3, "image");
}

/* Uncompressed raws of three makers' cameras, forged as their TIFFs are
 * laid out (no DNG tags): libraw knows each camera by make and model and
 * takes its levels and colour matrix from its own table. Each quarter's
 * photosites are what that camera's matrix and daylight balance make of
 * a chosen colour, so developing gives about that colour back: each
 * quarter's own channel leads by far and the grey stays grey (a wrong
 * matrix, level or Bayer phase breaks that), each band within 8 levels.
 * Not closer: without an as-shot balance (a real file's maker notes,
 * not forged here) libraw develops red and blue a few percent darker
 * than its table's daylight balance predicts (measured: up to 5 levels
 * off here). Real files of these cameras (compressed, with maker notes)
 * are not available offline. */
Test(raw, maker_raws_nef_arw_pef_develop_to_the_colours_their_camera_matrix_gives)
{
    static const struct {
        const char *make, *model, *name, *kind;
        guint16 white; /* photosite level written for 1.0 */
    } cameras[] = {
        { "NIKON CORPORATION", "NIKON D750", "IMG_0001.NEF", "Nikon NEF", 15520 },
        { "SONY", "ILCE-7M3", "IMG_0002.ARW", "Sony ARW", 16383 },
        { "PENTAX", "PENTAX K-1", "IMG_0003.PEF", "Pentax PEF", 16383 },
    };
    /* Linear sRGB: red, green, blue, 18% grey. */
    static const double targets[4][3] = { { 0.45, 0.08, 0.06 }, { 0.07, 0.35, 0.08 },
        { 0.06, 0.08, 0.45 }, { 0.18, 0.18, 0.18 } };
    g_autofree char *dir = gal_test_tmpdir("raw-makers");

    for (gsize i = 0; i < G_N_ELEMENTS(cameras); i++) {
        gal_test_dng raw = gal_test_dng_default();
        g_autofree char *path = NULL;
        g_autoptr(VipsImage) header = NULL;
        g_autoptr(VipsImage) developed = NULL;
        g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
        gal_facts facts = { 0 };
        gal_photo_file file;
        gal_error err = { 0 };
        gal_test_raw_camera camera;
        const void *exif;
        size_t len;

        raw.maker_raw = TRUE;
        raw.make = cameras[i].make;
        raw.model = cameras[i].model;
        raw.white = cameras[i].white;
        /* libraw's levels for this camera first, then the photosites. */
        path = gal_test_dng_write(dir, cameras[i].name, &raw);
        camera = gal_test_raw_camera_of(path);
        gal_test_raw_aim(&raw, &camera, targets);
        g_free(path);
        path = gal_test_dng_write(dir, cameras[i].name, &raw);

        open_raw(path, &file);
        cr_expect_str_eq(file.raw_kind, cameras[i].kind);
        cr_assert_eq(gal__raw_header(&file, &header, &err), 0, "%s", err.msg);
        cr_expect_eq(header->Xsize, 64);
        cr_expect_eq(header->Ysize, 48);
        cr_assert_eq(vips_image_get_blob(header, VIPS_META_EXIF_NAME, &exif, &len), 0);
        gal__facts_from_exif(exif, len, &facts, strings);
        cr_expect(facts.camera && strstr(facts.camera, strchr(cameras[i].model, ' ')
                                                ? strchr(cameras[i].model, ' ') + 1
                                                : cameras[i].model),
            "%s: camera %s", cameras[i].model, facts.camera);
        cr_assert_eq(gal__raw_load(&file, GAL_RAW_DEVELOP, 64, 48, 0, NULL, &developed, &err),
            0, "%s: %s", cameras[i].model, err.msg);
        gal__photo_close(&file);
        cr_assert_eq(developed->Xsize, 64);
        cr_assert_eq(developed->Ysize, 48);
        gal_test_raw_expect_aimed(developed, targets, cameras[i].model);
    }
}
