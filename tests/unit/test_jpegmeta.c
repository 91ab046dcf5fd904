/* An original JPEG's metadata replaced segment by segment (jpegmeta.c):
 * the scan untouched, the pixels the same, what the policy drops gone,
 * and a hostile file refused with where it is broken, never read past. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test.h"
#include "gal_test_meta.h"
#include "jpegmeta.h"

TestSuite(jpegmeta, .init = gal_test_setup, .fini = gal_test_teardown);

static void
segment(GByteArray *out, int marker, const char *payload, size_t len)
{
    guchar head[4] = { 0xff, (guchar) marker, (guchar) ((len + 2) >> 8),
        (guchar) ((len + 2) & 0xff) };

    g_byte_array_append(out, head, 4);
    g_byte_array_append(out, (const guchar *) payload, (guint) len);
}

/* trip-02.jpg (EXIF with GPS, Orientation 6) with what cameras and
 * editors add after its own segments' start: XMP, MPF, IPTC, a comment,
 * a maker's APP5 and an ICC profile (the one segment of them kept). */
static GByteArray *
loaded_trip(void)
{
    gsize len;
    g_autofree guchar *trip = (guchar *) gal_test_read_bytes(GAL_FIXTURES_DIR
        "/trip/trip-02.jpg", &len);
    GByteArray *out = g_byte_array_new();
    static const char xmp[] = "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>creator</x:xmpmeta>";
    static const char mpf[] = "MPF\0II*\0preview";
    static const char iptc[] = "Photoshop 3.0\08BIM\x04\x04\0\0\0\0\0\0";
    static const char icc[] = "ICC_PROFILE\0\x01\x01not really a profile";
    static const char com[] = "a comment with a name";
    static const char maker[] = "MAKER serial 1234";

    g_byte_array_append(out, trip, 2);
    segment(out, 0xe1, xmp, sizeof(xmp) - 1);
    segment(out, 0xe2, mpf, sizeof(mpf) - 1);
    segment(out, 0xed, iptc, sizeof(iptc) - 1);
    segment(out, 0xfe, com, sizeof(com) - 1);
    segment(out, 0xe5, maker, sizeof(maker) - 1);
    segment(out, 0xe2, icc, sizeof(icc) - 1);
    g_byte_array_append(out, trip + 2, (guint) len - 2);
    return out;
}

static gboolean
contains(const GByteArray *bytes, size_t end, const char *needle)
{
    size_t n = strlen(needle);

    for (size_t i = 0; i + n <= end; i++)
        if (memcmp(bytes->data + i, needle, n) == 0)
            return TRUE;
    return FALSE;
}

Test(jpegmeta, replaces_the_metadata_and_copies_the_scan_as_it_is)
{
    g_autoptr(GByteArray) in = loaded_trip();
    g_autoptr(GByteArray) out = g_byte_array_new();
    static const char exif[] = "Exif\0\0II*\0new exif";
    static const char xmp[] = "<x:xmpmeta>ours</x:xmpmeta>";
    gal_jpeg_metadata meta = { exif, sizeof(exif) - 1, xmp, sizeof(xmp) - 1, NULL, 0 };
    gal_error err = { 0 };
    size_t in_scan, out_scan;
    g_autoptr(VipsImage) before = NULL;
    g_autoptr(VipsImage) after = NULL;
    double max_abs, mean_abs;

    cr_assert_eq(gal__jpeg_replace_metadata(in->data, in->len, &meta, out, &err), 0, "%s",
        err.msg);
    in_scan = gal_test_jpeg_scan_start(in->data, in->len);
    out_scan = gal_test_jpeg_scan_start(out->data, out->len);
    cr_assert_eq(in->len - in_scan, out->len - out_scan);
    cr_expect(memcmp(in->data + in_scan, out->data + out_scan, in->len - in_scan) == 0,
        "the scan is copied byte for byte");
    /* Ours right after SOI, EXIF first. */
    cr_expect(memcmp(out->data + 2, "\xff\xe1", 2) == 0);
    cr_expect(memcmp(out->data + 6, exif, sizeof(exif) - 1) == 0);
    cr_expect(contains(out, out_scan, "http://ns.adobe.com/xap/1.0/"));
    cr_expect(contains(out, out_scan, "ours"));
    cr_expect(contains(out, out_scan, "ICC_PROFILE"), "the colour profile stays");
    cr_expect(!contains(out, out_scan, "creator"), "the photo's XMP is gone");
    cr_expect(!contains(out, out_scan, "MPF"), "the preview images are gone");
    cr_expect(!contains(out, out_scan, "Photoshop"), "IPTC is gone");
    cr_expect(!contains(out, out_scan, "a comment"), "the comment is gone");
    cr_expect(!contains(out, out_scan, "serial"), "the maker's segment is gone");
    cr_expect(!contains(out, out_scan, "iPhone"), "the photo's EXIF is gone");

    before = vips_image_new_from_buffer(in->data, in->len, "", NULL);
    after = vips_image_new_from_buffer(out->data, out->len, "", NULL);
    cr_assert(before && after);
    cr_assert_eq(gal_test_diff(before, after, &max_abs, &mean_abs), 0);
    cr_expect_eq(max_abs, 0.0, "the same pixels");
}

Test(jpegmeta, an_iptc_block_given_is_put_in_and_none_gives_none)
{
    gsize len;
    g_autofree guchar *trip = (guchar *) gal_test_read_bytes(GAL_FIXTURES_DIR
        "/trip/trip-01.jpg", &len);
    g_autoptr(GByteArray) out = g_byte_array_new();
    static const char iptc[] = "Photoshop 3.0\08BIM kept";
    gal_jpeg_metadata meta = { NULL, 0, NULL, 0, iptc, sizeof(iptc) - 1 };
    gal_error err = { 0 };

    cr_assert_eq(gal__jpeg_replace_metadata(trip, len, &meta, out, &err), 0);
    cr_expect(contains(out, out->len, "8BIM kept"));
    cr_expect(!contains(out, out->len, "Exif"), "no EXIF asked for, none there");
}

Test(jpegmeta, a_block_larger_than_a_segment_is_refused)
{
    gsize len;
    g_autofree guchar *trip = (guchar *) gal_test_read_bytes(GAL_FIXTURES_DIR
        "/trip/trip-01.jpg", &len);
    g_autoptr(GByteArray) out = g_byte_array_new();
    g_autofree char *huge = g_malloc0(70000);
    gal_jpeg_metadata meta = { huge, 70000, NULL, 0, NULL, 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__jpeg_replace_metadata(trip, len, &meta, out, &err), -1);
    cr_expect(strstr(err.msg, "EXIF block is 70000 bytes"), "%s", err.msg);
}

static void
expect_refused(const guchar *jpeg, size_t len, const char *why)
{
    g_autoptr(GByteArray) out = g_byte_array_new();
    gal_jpeg_metadata meta = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__jpeg_replace_metadata(jpeg, len, &meta, out, &err), -1, "%s", why);
    cr_expect_eq(err.code, GAL_ERR_INPUT);
    cr_expect(strstr(err.msg, why), "%s: %s", why, err.msg);
}

Test(jpegmeta, a_broken_file_is_refused_with_where_it_breaks)
{
    static const guchar png[] = { 0x89, 'P', 'N', 'G' };
    static const guchar no_sos[] = { 0xff, 0xd8, 0xff, 0xdb, 0x00, 0x04, 1, 2, 0xff, 0xd9 };
    static const guchar past_end[] = { 0xff, 0xd8, 0xff, 0xe1, 0x40, 0x00, 'E', 'x' };
    static const guchar short_length[] = { 0xff, 0xd8, 0xff, 0xe1, 0x00, 0x01, 0xff, 0xda };
    static const guchar no_length[] = { 0xff, 0xd8, 0xff, 0xe1, 0x00 };
    static const guchar garbage[] = { 0xff, 0xd8, 0x12, 0x34 };
    static const guchar ends_at_fill[] = { 0xff, 0xd8, 0xff, 0xff, 0xff };
    static const guchar only_headers[] = { 0xff, 0xd8, 0xff, 0xdb, 0x00, 0x04, 1, 2 };

    expect_refused(png, sizeof(png), "not a JPEG");
    expect_refused(png, 0, "not a JPEG");
    expect_refused(no_sos, sizeof(no_sos), "unexpected JPEG marker 0xd9 at byte 8");
    expect_refused(past_end, sizeof(past_end), "at byte 2 is 16384 bytes long, past");
    expect_refused(short_length, sizeof(short_length), "shorter than its length");
    expect_refused(no_length, sizeof(no_length), "at byte 2 has no length");
    expect_refused(garbage, sizeof(garbage), "no JPEG marker at byte 2");
    expect_refused(ends_at_fill, sizeof(ends_at_fill), "ends in a marker at byte 2");
    expect_refused(only_headers, sizeof(only_headers), "no start of scan");
}

/* Every cut of a real file and every byte of its headers changed: each
 * either gives a file or an error, reading nothing outside the input
 * (the sanitizers' builds watch). */
Test(jpegmeta, every_cut_and_every_header_byte_changed_fails_cleanly)
{
    g_autoptr(GByteArray) in = loaded_trip();
    size_t scan = gal_test_jpeg_scan_start(in->data, in->len);
    static const guchar values[] = { 0x00, 0x01, 0x7f, 0xd8, 0xd9, 0xda, 0xfe, 0xff };

    for (size_t cut = 0; cut <= scan + 8; cut++) {
        g_autofree guchar *part = g_memdup2(in->data, cut);
        g_autoptr(GByteArray) out = g_byte_array_new();
        gal_jpeg_metadata meta = { 0 };
        gal_error err = { 0 };
        int rc = gal__jpeg_replace_metadata(part, cut, &meta, out, &err);

        cr_assert(rc == 0 || (rc == -1 && *err.msg), "cut at %zu", cut);
        cr_assert(rc == -1 || cut > scan, "a file cut at %zu, before its scan, accepted", cut);
    }
    for (size_t at = 0; at < scan + 4; at++)
        for (size_t v = 0; v < G_N_ELEMENTS(values); v++) {
            g_autofree guchar *bent = g_memdup2(in->data, in->len);
            g_autoptr(GByteArray) out = g_byte_array_new();
            gal_jpeg_metadata meta = { 0 };
            gal_error err = { 0 };
            int rc;

            bent[at] = values[v];
            rc = gal__jpeg_replace_metadata(bent, in->len, &meta, out, &err);
            cr_assert(rc == 0 || (rc == -1 && *err.msg), "byte %zu set to %d", at,
                values[v]);
            cr_assert(out->len <= in->len + 4 * 65536, "byte %zu: no runaway output", at);
        }
}
