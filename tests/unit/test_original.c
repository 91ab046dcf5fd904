/* A photo's original as a gallery publishes it (original.c): under a
 * policy that drops GPS, serial numbers and the photo's XMP, read back by
 * exiftool (libimage-exiftool-perl); the pixels and the scan as they were,
 * the Orientation as stored; a policy that keeps everything copies it. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_meta.h"
#include "original.h"

TestSuite(original, .init = gal_test_setup, .fini = gal_test_teardown);

/* trip-02.jpg (GPS, Orientation 6: stored landscape) with a camera's
 * serial number and an XMP creator and location, as a camera and an
 * editor leave them. */
static char *
camera_original(const char *dir)
{
    char *path = g_build_filename(dir, "camera.jpg", NULL);
    const char *argv[] = { "exiftool", "-q", "-overwrite_original", "-SerialNumber=SN-4242",
        "-XMP-dc:Creator=Ri Son-hui", "-XMP-photoshop:City=Pyongyang", path, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    gal_test_copy_trip(dir, 2, "camera.jpg");
    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "exiftool: %s", err);
    return path;
}

static char *
publish(const char *dir, const char *from, char *const *metadata, unsigned removes,
    gsize *in_len, guchar **in, GByteArray *out)
{
    const gal_credits credits = { NULL, "Jen Loong", NULL };
    const gal_original_policy policy = { metadata, removes, "gallop test", &credits };
    gal_error err = { 0 };
    char *path = g_build_filename(dir, "published.jpg", NULL);

    *in = (guchar *) gal_test_read_bytes(from, in_len);
    cr_assert_eq(gal__original_publish(*in, *in_len, &policy, out, &err), 0, "%s", err.msg);
    cr_assert(g_file_set_contents(path, (const char *) out->data, out->len, NULL));
    return path;
}

Test(original, the_default_policy_drops_gps_serial_and_xmp_and_keeps_pixels_scan_and_orientation)
{
    g_autofree char *dir = gal_test_tmpdir("original-default");
    g_autofree char *from = NULL;
    g_autofree char *to = NULL;
    g_autofree guchar *in = NULL;
    g_autoptr(GByteArray) out = g_byte_array_new();
    char *defaults[] = { "default", NULL };
    g_autoptr(VipsImage) before = NULL;
    g_autoptr(VipsImage) after = NULL;
    double max_abs, mean_abs;
    gsize in_len;
    size_t in_scan, out_scan;

    gal_test_need_exiftool();
    from = camera_original(dir);
    {
        g_autofree char *serial = gal_test_exiftool_tag(from, "SerialNumber");
        g_autofree char *gps = gal_test_exiftool_tag(from, "GPSLatitude");

        cr_assert_str_eq(serial, "SN-4242", "the input has what the test needs");
        cr_assert(*gps);
    }
    to = publish(dir, from, defaults, GAL_REMOVE_LOCATION | GAL_REMOVE_PERSON, &in_len, &in,
        out);

    in_scan = gal_test_jpeg_scan_start(in, in_len);
    out_scan = gal_test_jpeg_scan_start(out->data, out->len);
    cr_assert_eq(in_len - in_scan, out->len - out_scan);
    cr_expect(memcmp(in + in_scan, out->data + out_scan, in_len - in_scan) == 0,
        "the image data byte for byte");
    before = vips_image_new_from_file(from, "autorotate", FALSE, NULL);
    after = vips_image_new_from_file(to, "autorotate", FALSE, NULL);
    cr_assert(before && after);
    cr_assert_eq(gal_test_diff(before, after, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0.0, "the same pixels");

    for (int t = 0; t < 5; t++) {
        static const char *const gone[] = { "GPSLatitude", "GPSPosition", "SerialNumber",
            "XMP-photoshop:City", "XMP-photoshop:*" };
        g_autofree char *got = gal_test_exiftool_tag(to, gone[t]);

        cr_expect_str_empty(got, "%s is gone, is \"%s\"", gone[t], got);
    }
    {
        g_autofree char *orientation = gal_test_exiftool_tag(to, "Orientation#");
        g_autofree char *model = gal_test_exiftool_tag(to, "Model");
        g_autofree char *date = gal_test_exiftool_tag(to, "DateTimeOriginal");
        g_autofree char *artist = gal_test_exiftool_tag(to, "Artist");
        g_autofree char *xmp_creator = gal_test_exiftool_tag(to, "XMP-dc:Creator");

        cr_expect_str_eq(orientation, "6", "stored as the camera stored it");
        cr_expect_str_eq(model, "iPhone 5s", "the camera stays under the default policy");
        cr_expect_str_eq(date, "2014:04:09 09:47:12");
        cr_expect_str_eq(artist, "Jen Loong");
        g_autofree char *warning = gal_test_exiftool_tag(to, "Warning");

        /* The preset's credits, not the photo's own XMP. */
        cr_expect_str_eq(xmp_creator, "Jen Loong");
        cr_expect_str_empty(warning, "exiftool finds nothing wrong: %s", warning);
    }
}

Test(original, strip_leaves_no_exif_and_keeps_the_orientation_out_of_it)
{
    g_autofree char *dir = gal_test_tmpdir("original-strip");
    g_autofree char *from = NULL;
    g_autofree char *to = NULL;
    g_autofree guchar *in = NULL;
    g_autoptr(GByteArray) out = g_byte_array_new();
    char *strip[] = { "strip", NULL };
    gsize in_len;

    gal_test_need_exiftool();
    from = camera_original(dir);
    to = publish(dir, from, strip, 0, &in_len, &in, out);
    {
        g_autofree char *model = gal_test_exiftool_tag(to, "Model");
        g_autofree char *creator = gal_test_exiftool_tag(to, "XMP-dc:Creator");

        cr_expect_str_empty(model);
        cr_expect_str_empty(creator);
    }
}

Test(original, a_policy_that_keeps_everything_copies_the_file)
{
    g_autofree char *dir = gal_test_tmpdir("original-all");
    g_autofree char *from = NULL;
    g_autofree guchar *in = NULL;
    g_autoptr(GByteArray) out = g_byte_array_new();
    char *all[] = { "all", NULL };
    gsize in_len;

    gal_test_need_exiftool();
    from = camera_original(dir);
    g_free(publish(dir, from, all, 0, &in_len, &in, out));
    cr_assert_eq(out->len, in_len);
    cr_expect(memcmp(out->data, in, in_len) == 0, "byte for byte");
}

Test(original, keep_with_remove_location_drops_only_the_location)
{
    g_autofree char *dir = gal_test_tmpdir("original-keep");
    g_autofree char *from = NULL;
    g_autofree char *to = NULL;
    g_autofree guchar *in = NULL;
    g_autoptr(GByteArray) out = g_byte_array_new();
    char *keep[] = { "keep", NULL };
    gsize in_len;

    gal_test_need_exiftool();
    from = camera_original(dir);
    to = publish(dir, from, keep, GAL_REMOVE_LOCATION, &in_len, &in, out);
    {
        g_autofree char *gps = gal_test_exiftool_tag(to, "GPSLatitude");
        g_autofree char *city = gal_test_exiftool_tag(to, "XMP-photoshop:City");
        g_autofree char *creator = gal_test_exiftool_tag(to, "XMP-dc:Creator");
        g_autofree char *serial = gal_test_exiftool_tag(to, "SerialNumber");
        g_autofree char *orientation = gal_test_exiftool_tag(to, "Orientation#");

        cr_expect_str_empty(gps);
        cr_expect_str_empty(city);
        cr_expect_str_eq(creator, "Ri Son-hui", "the photo's own XMP, without the place");
        cr_expect_str_eq(serial, "SN-4242");
        cr_expect_str_eq(orientation, "6");
    }
}

Test(original, a_png_is_not_published_as_an_original)
{
    gsize len;
    g_autofree guchar *png = (guchar *) gal_test_read_bytes(GAL_FIXTURES_DIR
        "/trip/trip-09.png", &len);
    g_autoptr(GByteArray) out = g_byte_array_new();
    char *defaults[] = { "default", NULL };
    const gal_original_policy policy = { defaults, 0, "gallop test", NULL };
    gal_error err = { 0 };

    cr_expect(!gal__original_publishable(png, len));
    cr_expect_eq(gal__original_publish(png, len, &policy, out, &err), -1);
    cr_expect_eq(err.code, GAL_ERR_INPUT);
}
