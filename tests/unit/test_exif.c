/* The metadata policy (metadata.c) and the PNG writer (pngio.c): which EXIF
 * tags each policy keeps, that libvips writes exactly that block, and the
 * PNG text chunks, read back with libexif and libpng. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "gal_test_meta.h"

TestSuite(exif, .init = gal_test_setup, .fini = gal_test_teardown);

#define CAPTION "고려식 상차림 #dprk"
#define COPYRIGHT "© 2014 Jen Loong"
#define SOFTWARE "gallop 0.1.0 (preset test)"

static void
put_ascii(ExifData *ed, ExifMem *mem, ExifIfd ifd, ExifTag tag, const char *text)
{
    ExifEntry *e = exif_entry_new_mem(mem);
    size_t len = strlen(text) + 1;

    e->tag = tag;
    e->format = EXIF_FORMAT_ASCII;
    e->components = len;
    e->size = (unsigned int) len;
    e->data = exif_mem_alloc(mem, (ExifLong) len);
    memcpy(e->data, text, len);
    exif_content_add_entry(ed->ifd[ifd], e);
    exif_entry_unref(e);
}

static void
put_initialized(ExifData *ed, ExifMem *mem, ExifIfd ifd, ExifTag tag)
{
    ExifEntry *e = exif_entry_new_mem(mem);

    e->tag = tag;
    exif_content_add_entry(ed->ifd[ifd], e);
    exif_entry_initialize(e, tag);
    exif_entry_unref(e);
}

/* A camera's EXIF: credits, caption, camera, exposure, and the private
 * parts (GPS, serial numbers, owner), Orientation 6. */
static unsigned char *
camera_exif(unsigned int *len)
{
    ExifMem *mem = exif_mem_new_default();
    ExifData *ed = exif_data_new_mem(mem);
    unsigned char *blob = NULL;
    ExifEntry *orientation;

    exif_data_set_byte_order(ed, EXIF_BYTE_ORDER_MOTOROLA);
    exif_data_set_data_type(ed, EXIF_DATA_TYPE_COMPRESSED);
    put_ascii(ed, mem, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION, CAPTION);
    put_ascii(ed, mem, EXIF_IFD_0, EXIF_TAG_MAKE, "Apple");
    put_ascii(ed, mem, EXIF_IFD_0, EXIF_TAG_MODEL, "iPhone 5s");
    put_ascii(ed, mem, EXIF_IFD_0, EXIF_TAG_ARTIST, "Jen Loong");
    put_ascii(ed, mem, EXIF_IFD_0, EXIF_TAG_COPYRIGHT, COPYRIGHT);
    put_ascii(ed, mem, EXIF_IFD_0, EXIF_TAG_SOFTWARE, "7.1");
    put_initialized(ed, mem, EXIF_IFD_0, EXIF_TAG_ORIENTATION);
    orientation = exif_content_get_entry(ed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    exif_set_short(orientation->data, EXIF_BYTE_ORDER_MOTOROLA, 6);
    put_ascii(ed, mem, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, "2014:04:13 08:00:00");
    put_ascii(ed, mem, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL, "back camera 4.12mm f/2.2");
    put_ascii(ed, mem, EXIF_IFD_EXIF, EXIF_TAG_BODY_SERIAL_NUMBER, "C39KX0XXFFXX");
    put_ascii(ed, mem, EXIF_IFD_EXIF, EXIF_TAG_CAMERA_OWNER_NAME, "Jen's phone");
    put_initialized(ed, mem, EXIF_IFD_EXIF, EXIF_TAG_EXPOSURE_TIME);
    put_initialized(ed, mem, EXIF_IFD_GPS, EXIF_TAG_GPS_VERSION_ID);
    put_ascii(ed, mem, EXIF_IFD_GPS, EXIF_TAG_GPS_LATITUDE_REF, "N");
    exif_data_save_data(ed, &blob, len);
    exif_data_unref(ed);
    exif_mem_unref(mem);
    return blob;
}

/* A JPEG carrying camera_exif(), loaded by libvips as any photo would be,
 * so the image has both "exif-data" and the exif-ifd fields. */
static VipsImage *
photo_with_exif(void)
{
    g_autoptr(VipsImage) gradient = gal_test_gradient(64, 48);
    unsigned int exif_len;
    unsigned char *exif = camera_exif(&exif_len);
    g_autofree unsigned char *jpeg = NULL;
    g_autoptr(GByteArray) spliced = g_byte_array_new();
    unsigned char app1[4] = { 0xff, 0xe1, (unsigned char) ((exif_len + 2) >> 8),
        (unsigned char) ((exif_len + 2) & 0xff) };
    size_t jpeg_len;
    VipsImage *image;

    cr_assert_not_null(exif);
    cr_assert_eq(vips_jpegsave_buffer(gradient, (void **) &jpeg, &jpeg_len, "strip", TRUE, NULL),
        0);
    /* SOI, then our APP1, then the rest of the file. */
    g_byte_array_append(spliced, jpeg, 2);
    g_byte_array_append(spliced, app1, 4);
    g_byte_array_append(spliced, exif, exif_len);
    g_byte_array_append(spliced, jpeg + 2, (guint) (jpeg_len - 2));
    free(exif);
    image = vips_image_new_from_buffer(spliced->data, spliced->len, "", NULL);
    cr_assert_not_null(image, "%s", vips_error_buffer());
    /* Keep the bytes alive for the lazy loader. */
    g_object_set_data_full(G_OBJECT(image), "gal-test-bytes", g_byte_array_ref(spliced),
        (GDestroyNotify) g_byte_array_unref);
    return image;
}

static ExifData *
parse(const void *blob, size_t len)
{
    cr_assert_not_null(blob);
    return exif_data_new_from_data(blob, (unsigned int) len);
}

/* What libvips' JPEG saver makes of the prepared image. */
static ExifData *
saved_exif(VipsImage *prepared, gboolean strip)
{
    g_autofree void *jpeg = NULL;
    size_t len;
    g_autoptr(VipsImage) back = NULL;
    const void *blob;
    size_t blob_len;

    cr_assert_eq(vips_jpegsave_buffer(prepared, &jpeg, &len, "strip", strip, NULL), 0, "%s",
        vips_error_buffer());
    back = vips_image_new_from_buffer(jpeg, len, "", NULL);
    cr_assert_not_null(back);
    if (!vips_image_get_typeof(back, VIPS_META_EXIF_NAME))
        return NULL;
    cr_assert_eq(vips_image_get_blob(back, VIPS_META_EXIF_NAME, &blob, &blob_len), 0);
    return parse(blob, blob_len);
}

static gboolean
has(ExifData *ed, ExifIfd ifd, ExifTag tag)
{
    return exif_content_get_entry(ed->ifd[ifd], tag) != NULL;
}

static void
expect_text(ExifData *ed, ExifIfd ifd, ExifTag tag, const char *want)
{
    g_autofree char *got = gal_test_exif_text(ed, ifd, tag);

    cr_expect_not_null(got, "%s missing", exif_tag_get_name_in_ifd(tag, ifd));
    if (got)
        cr_expect_str_eq(got, want);
}

/* The default policy, checked on an EXIF block. */
static void
expect_default_policy(ExifData *ed)
{
    cr_expect_eq(ed->ifd[EXIF_IFD_GPS]->count, 0, "%u GPS tags survived",
        ed->ifd[EXIF_IFD_GPS]->count);
    cr_expect_not(has(ed, EXIF_IFD_EXIF, EXIF_TAG_BODY_SERIAL_NUMBER));
    cr_expect_not(has(ed, EXIF_IFD_EXIF, EXIF_TAG_CAMERA_OWNER_NAME));
    expect_text(ed, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION, CAPTION);
    expect_text(ed, EXIF_IFD_0, EXIF_TAG_ARTIST, "Jen Loong");
    expect_text(ed, EXIF_IFD_0, EXIF_TAG_COPYRIGHT, COPYRIGHT);
    expect_text(ed, EXIF_IFD_0, EXIF_TAG_MAKE, "Apple");
    expect_text(ed, EXIF_IFD_0, EXIF_TAG_MODEL, "iPhone 5s");
    expect_text(ed, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL, "back camera 4.12mm f/2.2");
    expect_text(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, "2014:04:13 08:00:00");
    cr_expect(has(ed, EXIF_IFD_EXIF, EXIF_TAG_EXPOSURE_TIME));
    expect_text(ed, EXIF_IFD_0, EXIF_TAG_SOFTWARE, SOFTWARE);
    cr_expect_eq(gal_test_exif_short(ed, EXIF_IFD_0, EXIF_TAG_ORIENTATION), 1);
}

static void *
find_gps_field(VipsImage *image, const char *field, GValue *value, void *data)
{
    (void) image;
    (void) value;
    (void) data;
    return g_str_has_prefix(field, "exif-ifd3-") ? (void *) field : NULL;
}

Test(exif, default_policy_drops_gps_and_serials_and_keeps_credits)
{
    g_autoptr(VipsImage) photo = photo_with_exif();
    g_autoptr(VipsImage) prepared = NULL;
    g_autoptr(ExifData) built = NULL;
    g_autoptr(ExifData) saved = NULL;
    char *policy[] = { "default", NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };

    cr_assert(vips_image_get_typeof(photo, "exif-ifd3-GPSLatitudeRef"),
        "the test photo should have GPS fields");
    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, NULL, photo, &prepared, &meta, &err), 0,
        "%s", err.msg);
    cr_expect_not(meta.strip_all);
    built = parse(meta.exif, meta.exif_len);
    expect_default_policy(built);
    cr_expect_null(vips_image_map(prepared, find_gps_field, NULL), "a GPS field is left");
    /* libvips rebuilds EXIF from the image's fields when it saves: what it
     * writes must be the same block, the Hangul caption intact. */
    saved = saved_exif(prepared, FALSE);
    cr_assert_not_null(saved);
    expect_default_policy(saved);
    cr_expect_str_eq(meta.caption, CAPTION);
    cr_expect_str_eq(meta.author, "Jen Loong");
    cr_expect_str_eq(meta.copyright, COPYRIGHT);
    gal__meta_clear(&meta);
}

Test(exif, keep_policy_keeps_gps_but_still_writes_orientation_1)
{
    g_autoptr(VipsImage) photo = photo_with_exif();
    g_autoptr(VipsImage) prepared = NULL;
    g_autoptr(ExifData) saved = NULL;
    char *policy[] = { "keep", NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, NULL, photo, &prepared, &meta, &err), 0);
    saved = saved_exif(prepared, FALSE);
    cr_assert_not_null(saved);
    expect_text(saved, EXIF_IFD_GPS, EXIF_TAG_GPS_LATITUDE_REF, "N");
    expect_text(saved, EXIF_IFD_EXIF, EXIF_TAG_BODY_SERIAL_NUMBER, "C39KX0XXFFXX");
    cr_expect_eq(gal_test_exif_short(saved, EXIF_IFD_0, EXIF_TAG_ORIENTATION), 1);
    expect_text(saved, EXIF_IFD_0, EXIF_TAG_SOFTWARE, SOFTWARE);
    gal__meta_clear(&meta);
}

Test(exif, a_list_keeps_only_what_it_names)
{
    g_autoptr(VipsImage) photo = photo_with_exif();
    g_autoptr(VipsImage) prepared = NULL;
    g_autoptr(ExifData) saved = NULL;
    char *policy[] = { "credits", "gpslatituderef", NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, NULL, photo, &prepared, &meta, &err), 0);
    saved = saved_exif(prepared, FALSE);
    cr_assert_not_null(saved);
    expect_text(saved, EXIF_IFD_0, EXIF_TAG_ARTIST, "Jen Loong");
    expect_text(saved, EXIF_IFD_0, EXIF_TAG_COPYRIGHT, COPYRIGHT);
    expect_text(saved, EXIF_IFD_GPS, EXIF_TAG_GPS_LATITUDE_REF, "N");
    cr_expect_not(has(saved, EXIF_IFD_GPS, EXIF_TAG_GPS_VERSION_ID));
    cr_expect_not(has(saved, EXIF_IFD_0, EXIF_TAG_MAKE));
    cr_expect_not(has(saved, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION));
    cr_expect_not(has(saved, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL));
    cr_expect_null(meta.caption, "no caption for PNG text when the list drops it");
    gal__meta_clear(&meta);
}

Test(exif, strip_policy_writes_nothing)
{
    g_autoptr(VipsImage) photo = photo_with_exif();
    g_autoptr(VipsImage) prepared = NULL;
    g_autoptr(ExifData) saved = NULL;
    char *policy[] = { "strip", NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, NULL, photo, &prepared, &meta, &err), 0);
    cr_assert(meta.strip_all);
    cr_expect_null(meta.exif);
    saved = saved_exif(prepared, TRUE);
    cr_expect_null(saved, "a stripped JPEG has EXIF");
}

Test(exif, a_photo_without_exif_gets_orientation_and_software)
{
    g_autoptr(VipsImage) photo = gal_test_gradient(32, 32);
    g_autoptr(VipsImage) prepared = NULL;
    g_autoptr(ExifData) saved = NULL;
    char *policy[] = { "default", NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, NULL, photo, &prepared, &meta, &err), 0);
    saved = saved_exif(prepared, FALSE);
    cr_assert_not_null(saved);
    expect_text(saved, EXIF_IFD_0, EXIF_TAG_SOFTWARE, SOFTWARE);
    cr_expect_eq(gal_test_exif_short(saved, EXIF_IFD_0, EXIF_TAG_ORIENTATION), 1);
    cr_expect_not(has(saved, EXIF_IFD_0, EXIF_TAG_ARTIST));
    gal__meta_clear(&meta);
}

/* ---- captions and credits in the file (issue 13) --------------------------------- */

#define SIDECAR_CAPTION "평양 마라톤 — a caption from a sidecar, not the camera"

/* The XMP packet libvips' saver `saver` writes for the prepared image, read
 * back by libvips' own loader; NULL when there is none. */
static char *
saved_xmp(VipsImage *prepared, const char *suffix)
{
    g_autofree void *buf = NULL;
    size_t len;
    g_autoptr(VipsImage) back = NULL;
    const void *blob;
    size_t blob_len;

    cr_assert_eq(vips_image_write_to_buffer(prepared, suffix, &buf, &len, NULL), 0, "%s",
        vips_error_buffer());
    back = vips_image_new_from_buffer(buf, len, "", NULL);
    cr_assert_not_null(back);
    if (!vips_image_get_typeof(back, VIPS_META_XMP_NAME))
        return NULL;
    cr_assert_eq(vips_image_get_blob(back, VIPS_META_XMP_NAME, &blob, &blob_len), 0);
    return g_strndup(blob, blob_len);
}

/* A photo whose ImageDescription is `description` and nothing else. */
static VipsImage *
photo_described(const char *description)
{
    g_autoptr(VipsImage) gradient = gal_test_gradient(32, 24);
    ExifMem *mem = exif_mem_new_default();
    ExifData *ed = exif_data_new_mem(mem);
    unsigned char *blob = NULL;
    unsigned int len = 0;
    VipsImage *photo = NULL;

    exif_data_set_byte_order(ed, EXIF_BYTE_ORDER_INTEL);
    exif_data_set_data_type(ed, EXIF_DATA_TYPE_COMPRESSED);
    put_ascii(ed, mem, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION, description);
    exif_data_save_data(ed, &blob, &len);
    cr_assert_eq(vips_copy(gradient, &photo, NULL), 0);
    vips_image_set_blob_copy(photo, VIPS_META_EXIF_NAME, blob, len);
    free(blob);
    exif_data_unref(ed);
    exif_mem_unref(mem);
    return photo;
}

/* A caption from another source (a sidecar) is written as ImageDescription
 * in UTF-8 and as XMP dc:description, by the JPEG and WebP savers alike. */
Test(exif, the_caption_travels_as_image_description_and_xmp_description)
{
    static const char *const savers[] = { ".jpg", ".webp" };
    g_autoptr(VipsImage) photo = gal_test_gradient(32, 24);
    g_autoptr(VipsImage) prepared = NULL;
    char *policy[] = { "default", NULL };
    gal_credits credits = { SIDECAR_CAPTION, NULL, NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, &credits, photo, &prepared, &meta, &err),
        0, "%s", err.msg);
    for (size_t i = 0; i < G_N_ELEMENTS(savers); i++) {
        g_autofree void *buf = NULL;
        size_t len;
        g_autoptr(VipsImage) back = NULL;
        const void *blob;
        size_t blob_len;
        g_autoptr(ExifData) saved = NULL;
        g_autofree char *xmp = saved_xmp(prepared, savers[i]);

        cr_assert_eq(vips_image_write_to_buffer(prepared, savers[i], &buf, &len, NULL), 0);
        back = vips_image_new_from_buffer(buf, len, "", NULL);
        cr_assert_eq(vips_image_get_blob(back, VIPS_META_EXIF_NAME, &blob, &blob_len), 0,
            "%s: no EXIF", savers[i]);
        saved = exif_data_new_from_data(blob, (unsigned int) blob_len);
        expect_text(saved, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION, SIDECAR_CAPTION);
        cr_assert_not_null(xmp, "%s: no XMP", savers[i]);
        cr_expect(strstr(xmp, "<dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">"
                              SIDECAR_CAPTION "</rdf:li>") != NULL, "%s: %s", savers[i], xmp);
    }
    cr_expect_str_eq(meta.caption, SIDECAR_CAPTION);
    gal__meta_clear(&meta);
}

/* output.metadata decides: a list without the caption publishes none. */
Test(exif, the_caption_stays_out_when_the_policy_drops_it)
{
    g_autoptr(VipsImage) photo = gal_test_gradient(32, 24);
    g_autoptr(VipsImage) prepared = NULL;
    g_autoptr(ExifData) saved = NULL;
    char *policy[] = { "date", "camera", NULL };
    gal_credits credits = { SIDECAR_CAPTION, NULL, NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };
    g_autofree char *xmp = NULL;

    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, &credits, photo, &prepared, &meta, &err),
        0);
    saved = saved_exif(prepared, FALSE);
    cr_assert_not_null(saved);
    cr_expect_not(has(saved, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION));
    xmp = saved_xmp(prepared, ".jpg");
    cr_expect(!xmp || !strstr(xmp, "dc:description"), "%s", xmp);
    cr_expect_null(meta.caption);
    gal__meta_clear(&meta);
}

/* output.artist and output.copyright (rendered by the caller) replace the
 * photo's own credits, in EXIF and XMP, also under a list that keeps no
 * credits of the photo's: they are the preset's. */
Test(exif, the_presets_credits_set_artist_copyright_creator_and_rights)
{
    static const char *const policies[][3] = { { "default", NULL, NULL },
        { "date", NULL, NULL } };

    for (size_t i = 0; i < G_N_ELEMENTS(policies); i++) {
        g_autoptr(VipsImage) photo = photo_with_exif();
        g_autoptr(VipsImage) prepared = NULL;
        g_autoptr(ExifData) saved = NULL;
        g_autofree char *xmp = NULL;
        gal_credits credits = { NULL, "Kim Ŏ-jin", "© 2014 Kim Ŏ-jin" };
        gal_meta meta = { 0 };
        gal_error err = { 0 };

        cr_assert_eq(gal__metadata_apply((char **) policies[i], 0, SOFTWARE, &credits, photo,
                         &prepared, &meta, &err), 0, "%s", err.msg);
        saved = saved_exif(prepared, FALSE);
        cr_assert_not_null(saved);
        expect_text(saved, EXIF_IFD_0, EXIF_TAG_ARTIST, "Kim Ŏ-jin");
        expect_text(saved, EXIF_IFD_0, EXIF_TAG_COPYRIGHT, "© 2014 Kim Ŏ-jin");
        xmp = saved_xmp(prepared, ".jpg");
        cr_assert_not_null(xmp);
        cr_expect(strstr(xmp, "<dc:creator><rdf:Seq><rdf:li>Kim Ŏ-jin</rdf:li>") != NULL,
            "%s", xmp);
        cr_expect(strstr(xmp, "<dc:rights><rdf:Alt><rdf:li xml:lang=\"x-default\">© 2014 Kim "
                              "Ŏ-jin</rdf:li>") != NULL, "%s", xmp);
        gal__meta_clear(&meta);
    }
}

/* What a camera writes by itself is no caption: not published. */
Test(exif, a_cameras_placeholder_description_is_not_published)
{
    static const char *const placeholders[] = { "OLYMPUS DIGITAL CAMERA",
        "KONICA MINOLTA DIGITAL CAMERA", "SONY DSC", "                               ",
        "SONY DSC        " };

    for (size_t i = 0; i < G_N_ELEMENTS(placeholders); i++) {
        g_autoptr(VipsImage) photo = photo_described(placeholders[i]);
        g_autoptr(VipsImage) prepared = NULL;
        g_autoptr(ExifData) saved = NULL;
        g_autofree char *xmp = NULL;
        char *policy[] = { "default", NULL };
        gal_meta meta = { 0 };
        gal_error err = { 0 };

        cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, NULL, photo, &prepared, &meta, &err),
            0);
        saved = saved_exif(prepared, FALSE);
        cr_assert_not_null(saved);
        cr_expect_not(has(saved, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION), "\"%s\" published",
            placeholders[i]);
        cr_expect_null(meta.caption, "\"%s\"", placeholders[i]);
        xmp = saved_xmp(prepared, ".jpg");
        cr_expect(!xmp || !strstr(xmp, "dc:description"), "%s", xmp);
        gal__meta_clear(&meta);
    }
}

Test(exif, placeholders_are_told_from_captions)
{
    cr_expect(gal__caption_placeholder("OLYMPUS DIGITAL CAMERA"));
    cr_expect(gal__caption_placeholder("  KONICA MINOLTA DIGITAL CAMERA  "));
    cr_expect(gal__caption_placeholder("SONY DSC"));
    cr_expect(gal__caption_placeholder("    "));
    cr_expect(gal__caption_placeholder(""));
    cr_expect_not(gal__caption_placeholder("My first DIGITAL CAMERA"));
    cr_expect_not(gal__caption_placeholder("Sony DSC-RX100 on the summit"));
    cr_expect_not(gal__caption_placeholder("고려식 상차림"));
}

/* ---- checking the names -------------------------------------------------------- */

static void
expect_check(const char *const *names, const char *msg_part)
{
    gal_error err = { 0 };
    int rc = gal__metadata_check((char *const *) names, &err);

    if (!msg_part) {
        cr_expect_eq(rc, 0, "%s: %s", names[0], err.msg);
        return;
    }
    cr_expect_eq(rc, -1, "%s accepted", names[0]);
    cr_expect_eq(err.code, GAL_ERR_PRESET);
    cr_expect(strstr(err.msg, msg_part) != NULL, "\"%s\" not in: %s", msg_part, err.msg);
}

Test(exif, check_takes_keywords_groups_and_tag_names)
{
    const char *const ok1[] = { "default", NULL };
    const char *const ok2[] = { "KEEP", NULL };
    const char *const ok3[] = { "default", "gps", "BodySerialNumber", "artist", NULL };
    const char *const bad1[] = { "GPSLattitude", NULL };
    const char *const bad2[] = { "keep", "Artist", NULL };
    const char *const bad3[] = { "xyzzy-plugh", NULL };

    expect_check(ok1, NULL);
    expect_check(ok2, NULL);
    expect_check(ok3, NULL);
    expect_check(bad1, "did you mean \"GPSLatitude\"?");
    expect_check(bad2, "\"keep\" stands alone");
    expect_check(bad3, "use keep, strip, default, the groups");
}

/* A long name is quoted by its first characters, whole: the advice after
 * it is kept. */
Test(exif, check_quotes_a_long_name_by_its_start)
{
    GString *name = g_string_new(NULL);
    const char *names[] = { NULL, NULL };
    gal_error err = { 0 };

    for (int i = 0; i < 400; i++)
        g_string_append(name, "\xe6\x97\xa5");
    names[0] = name->str;
    cr_assert_eq(gal__metadata_check((char *const *) names, &err), -1);
    cr_expect(g_utf8_validate(err.msg, -1, NULL));
    cr_expect(strstr(err.msg, "\xe6\x97\xa5\xe2\x80\xa6\" is not an EXIF tag or group: use keep") !=
            NULL,
        "%s", err.msg);
    cr_expect(g_str_has_suffix(err.msg, "all-except-camera-raw, all"), "%s", err.msg);
    g_string_free(name, TRUE);
}

Test(exif, a_bad_name_is_a_preset_error_at_its_line)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\n"
                                       "output:\n"
                                       "  metadata: [credits, Artsit]\n",
        errs);

    cr_assert_null(preset);
    cr_assert_eq(errs->count, 1);
    cr_expect_eq(errs->items[0].code, GAL_ERR_PRESET);
    cr_expect_str_eq(errs->items[0].key, "output.metadata");
    cr_expect_eq(errs->items[0].line, 3);
    cr_expect_eq(errs->items[0].col, 13);
    cr_expect(strstr(errs->items[0].msg, "did you mean \"Artist\"?") != NULL, "%s",
        errs->items[0].msg);
}

/* ---- PNG --------------------------------------------------------------------------- */

static char *
write_png(VipsImage *image, const gal_meta *meta, gboolean interlace, const char *name)
{
    g_autofree char *dir = gal_test_tmpdir("exif-png");
    char *path = g_build_filename(dir, name, NULL);
    gal_error err = { 0 };
    int write_errno = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    cr_assert_geq(fd, 0);
    cr_assert_eq(gal__png_write(fd, image, meta, interlace, NULL, NULL, &write_errno, &err), 0, "%s",
        err.msg);
    close(fd);
    return path;
}

Test(exif, png_carries_text_chunks_and_exif_but_no_time)
{
    g_autoptr(VipsImage) photo = photo_with_exif();
    g_autoptr(VipsImage) prepared = NULL;
    char *policy[] = { "default", NULL };
    gal_meta meta = { 0 };
    gal_error err = { 0 };
    g_autofree char *path = NULL;
    g_autoptr(GHashTable) text = NULL;
    g_autoptr(ExifData) ed = NULL;
    g_autoptr(VipsImage) back = NULL;
    double max_abs, mean_abs;

    cr_assert_eq(gal__metadata_apply(policy, 0, SOFTWARE, NULL, photo, &prepared, &meta, &err), 0);
    path = write_png(prepared, &meta, FALSE, "meta.png");
    text = gal_test_png_text(path);
    cr_expect_str_eq(g_hash_table_lookup(text, "Title"), CAPTION);
    cr_expect_str_eq(g_hash_table_lookup(text, "Description"), CAPTION);
    cr_expect_str_eq(g_hash_table_lookup(text, "Author"), "Jen Loong");
    cr_expect_str_eq(g_hash_table_lookup(text, "Copyright"), COPYRIGHT);
    cr_expect_str_eq(g_hash_table_lookup(text, "Software"), SOFTWARE);
    cr_expect(gal_test_png_has_chunk(path, "iTXt"));
    cr_expect_not(gal_test_png_has_chunk(path, "tIME"), "a timestamp makes outputs differ");
    cr_expect(gal_test_png_has_chunk(path, "eXIf"));
    ed = gal_test_exif(path);
    cr_assert_not_null(ed);
    cr_expect_eq(ed->ifd[EXIF_IFD_GPS]->count, 0);
    expect_text(ed, EXIF_IFD_0, EXIF_TAG_ARTIST, "Jen Loong");
    /* The pixels are the photo's, losslessly. */
    back = gal_test_load_image(path, FALSE);
    cr_assert_eq(gal_test_diff(back, photo, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0);
    gal__meta_clear(&meta);
}

Test(exif, png_writer_handles_every_band_count_and_interlace)
{
    for (int bands = 1; bands <= 4; bands++) {
        g_autoptr(VipsImage) gradient = gal_test_gradient(37, 23);
        g_autoptr(VipsImage) image = NULL;
        g_autoptr(VipsImage) back = NULL;
        g_autofree char *name = g_strdup_printf("bands-%d.png", bands);
        g_autofree char *path = NULL;
        gal_meta strip = { .strip_all = TRUE };
        double max_abs, mean_abs;

        if (bands == 4) {
            cr_assert_eq(vips_bandjoin_const1(gradient, &image, 200, NULL), 0);
        }
        else
            cr_assert_eq(vips_extract_band(gradient, &image, 0, "n", bands, NULL), 0);
        path = write_png(image, &strip, bands % 2 == 0, name);
        back = gal_test_load_image(path, FALSE);
        cr_expect_eq(back->Bands, bands);
        cr_assert_eq(gal_test_diff(back, image, &max_abs, &mean_abs), 0);
        cr_expect_eq(max_abs, 0, "%d bands: max diff %g", bands, max_abs);
        cr_expect_not(gal_test_png_has_chunk(path, "tEXt") || gal_test_png_has_chunk(path, "iTXt")
                || gal_test_png_has_chunk(path, "eXIf"),
            "strip wrote metadata");
    }
}
