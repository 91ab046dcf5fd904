/* Captions and credits travel in the file (issue 13), end to end: what
 * `gallop run` writes, read back by exiftool (libimage-exiftool-perl, an
 * independent reader; the tests skip without it) and by libexif. */
#include <criterion/criterion.h>
#include <string.h>

#include "gal_test_meta.h"

TestSuite(metadata, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

#define TRIP_DIR GAL_FIXTURES_DIR "/trip"
#define CAPTIONS_DIR GAL_FIXTURES_DIR "/captions"

/* exiftool's reading of one tag ("XMP-dc:Description"), as text; "" when
 * the file has none. */

static void
expect_tag(const char *file, const char *tag, const char *want)
{
    g_autofree char *got = gal_test_exiftool_tag(file, tag);

    cr_expect_str_eq(got, want, "%s of %s", tag, file);
}

/* A photo with a sidecar caption, under a preset that names the
 * photographer: the caption and the credits are in the JPEG and the WebP,
 * as EXIF and XMP, in UTF-8. */
Test(metadata, caption_and_credits_are_written_as_exif_and_xmp)
{
    static const char *const formats[][2] = { { "jpeg", "jpg" }, { "webp", "webp" },
        { "png", "png" } };
    g_autofree char *tmp = gal_test_tmpdir("metadata-credits");
    g_autofree char *photo = g_build_filename(tmp, "summit.jpg", NULL);
    g_autofree char *sidecar = g_build_filename(tmp, "summit.txt", NULL);
    g_autofree char *bytes = NULL;
    gsize len;
    g_autofree char *preset = gal_test_write_preset(tmp, "credits.yaml",
        "gallop: 1\n"
        "output: { artist: \"Kim Ŏ-jin\", copyright: \"© {year} {artist}\" }\n"
        "stages:\n  - resize: { width: 160 }\n");

    gal_test_need_exiftool();
    cr_assert(g_file_get_contents(TRIP_DIR "/trip-03.jpg", &bytes, &len, NULL));
    cr_assert(g_file_set_contents(photo, bytes, (gssize) len, NULL));
    cr_assert(g_file_set_contents(sidecar, "백두산 정상에서 #summit @jen.loong\n", -1, NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        g_autofree char *out_dir = g_build_filename(tmp, formats[i][0], NULL);
        g_autofree char *format = g_strdup_printf("output.format=%s", formats[i][0]);
        g_autofree char *name = g_strdup_printf("summit.%s", formats[i][1]);
        g_autofree char *written = g_build_filename(out_dir, name, NULL);
        const char *argv[] = { GAL_BINARY, "run", preset, photo, "-o", out_dir, "--set", format,
            "-q", NULL };
        g_autofree char *err = NULL;

        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s", err);
        expect_tag(written, "XMP-dc:Description", "백두산 정상에서 #summit @jen.loong");
        expect_tag(written, "XMP-dc:Creator", "Kim Ŏ-jin");
        expect_tag(written, "XMP-dc:Rights", "© 2014 Kim Ŏ-jin");
        expect_tag(written, "EXIF:ImageDescription", "백두산 정상에서 #summit @jen.loong");
        expect_tag(written, "EXIF:Artist", "Kim Ŏ-jin");
        expect_tag(written, "EXIF:Copyright", "© 2014 Kim Ŏ-jin");
    }
}

/* output.metadata decides: strip writes none of it, and a list without the
 * caption group keeps the credits but not the caption. */
Test(metadata, the_policy_decides_what_is_published)
{
    g_autofree char *tmp = gal_test_tmpdir("metadata-policy");
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\noutput: { copyright: \"© {year} {artist}\" }\n"
        "stages:\n  - resize: { width: 160 }\n");
    g_autofree char *stripped = g_build_filename(tmp, "strip", "trip-03.jpg", NULL);
    g_autofree char *listed = g_build_filename(tmp, "list", "trip-03.jpg", NULL);
    g_autofree char *strip_dir = g_build_filename(tmp, "strip", NULL);
    g_autofree char *list_dir = g_build_filename(tmp, "list", NULL);
    const char *strip_argv[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-03.jpg", "-o",
        strip_dir, "--set", "output.metadata=strip", "-q", NULL };
    const char *list_argv[] = { GAL_BINARY, "run", preset, TRIP_DIR "/trip-03.jpg", "-o",
        list_dir, "--set", "output.metadata=[credits, date]", "-q", NULL };
    g_autofree char *err = NULL;

    gal_test_need_exiftool();
    cr_assert_eq(gal_test_spawn(strip_argv, NULL, &err), 0, "%s", err);
    expect_tag(stripped, "XMP-dc:Description", "");
    expect_tag(stripped, "EXIF:Copyright", "");
    g_clear_pointer(&err, g_free);
    cr_assert_eq(gal_test_spawn(list_argv, NULL, &err), 0, "%s", err);
    expect_tag(listed, "EXIF:ImageDescription", "");
    expect_tag(listed, "XMP-dc:Description", "");
    /* The photo's own artist (Jen Loong), in the preset's notice. */
    expect_tag(listed, "EXIF:Copyright", "© 2014 Jen Loong");
    expect_tag(listed, "XMP-dc:Rights", "© 2014 Jen Loong");
}

/* "OLYMPUS DIGITAL CAMERA" in ImageDescription is the camera's, not a
 * caption: no band shows it, and the output does not carry it. */
Test(metadata, camera_boilerplate_is_neither_burned_nor_published)
{
    static const char *const boilerplate[] = { "OLYMPUS DIGITAL CAMERA",
        "KONICA MINOLTA DIGITAL CAMERA", "SONY DSC", "          " };
    g_autofree char *tmp = gal_test_tmpdir("metadata-boilerplate");
    g_autofree char *preset = gal_test_write_preset(tmp, "band.yaml",
        "gallop: 1\nstages:\n  - resize: { width: 320 }\n"
        "  - caption-burn: { size: 6% }\n");
    g_autofree char *plain = gal_test_write_preset(tmp, "plain.yaml",
        "gallop: 1\nstages:\n  - resize: { width: 320 }\n");

    gal_test_need_exiftool();
    for (size_t i = 0; i < G_N_ELEMENTS(boilerplate); i++) {
        g_autofree char *dir = g_strdup_printf("%s/%zu", tmp, i);
        g_autofree char *photo = g_build_filename(dir, "camera.jpg", NULL);
        g_autofree char *set = g_strdup_printf("-ImageDescription=%s", boilerplate[i]);
        const char *exif_argv[] = { "exiftool", "-q", "-overwrite_original", "-all=", set, photo,
            NULL };
        g_autofree char *band_dir = g_build_filename(dir, "band", NULL);
        g_autofree char *plain_dir = g_build_filename(dir, "plain", NULL);
        g_autofree char *band_out = g_build_filename(band_dir, "camera.png", NULL);
        g_autofree char *plain_out = g_build_filename(plain_dir, "camera.png", NULL);
        const char *band_argv[] = { GAL_BINARY, "run", preset, photo, "-o", band_dir,
            "--set", "output.format=png", "-q", NULL };
        const char *plain_argv[] = { GAL_BINARY, "run", plain, photo, "-o", plain_dir,
            "--set", "output.format=png", "-q", NULL };
        g_autofree char *bytes = NULL;
        gsize len;
        g_autofree char *err = NULL;
        g_autoptr(VipsImage) band = NULL;
        g_autoptr(VipsImage) none = NULL;
        double max_abs, mean_abs;

        g_mkdir_with_parents(dir, 0777);
        cr_assert(g_file_get_contents(TRIP_DIR "/trip-03.jpg", &bytes, &len, NULL));
        cr_assert(g_file_set_contents(photo, bytes, (gssize) len, NULL));
        cr_assert_eq(gal_test_spawn(exif_argv, NULL, &err), 0, "%s", err);
        g_clear_pointer(&err, g_free);
        cr_assert_eq(gal_test_spawn(band_argv, NULL, &err), 0, "%s", err);
        g_clear_pointer(&err, g_free);
        cr_assert_eq(gal_test_spawn(plain_argv, NULL, &err), 0, "%s", err);
        /* No band: the same pixels as without a caption stage. */
        band = gal_test_load_image(band_out, FALSE);
        none = gal_test_load_image(plain_out, FALSE);
        cr_assert_eq(gal_test_diff(band, none, &max_abs, &mean_abs), 0);
        cr_expect_eq(max_abs, 0, "\"%s\" was burned", boilerplate[i]);
        expect_tag(plain_out, "EXIF:ImageDescription", "");
        expect_tag(plain_out, "PNG:Description", "");
        expect_tag(plain_out, "XMP-dc:Description", "");
    }
}

/* Lightroom's levels and its Remove Location / Remove Person Info (issue
 * 43), on a photo exiftool gave Camera Raw settings, places, a person, a
 * face region, contact details and IPTC places besides its EXIF GPS. */
Test(metadata, lightroom_levels_and_remove_location_and_person)
{
    static const struct {
        const char *keys;
        const char *present[8];
        const char *absent[12];
    } cases[] = {
        { "metadata: all",
            { "XMP-crs:Exposure2012", "XMP-photoshop:City", "XMP-iptcExt:PersonInImage",
                "XMP-mwg-rs:RegionName", "IPTC:City", "GPS:GPSLatitude", "IPTC:Caption-Abstract",
                NULL },
            { NULL } },
        { "metadata: all-except-camera-raw",
            { "XMP-photoshop:City", "XMP-iptcExt:PersonInImage", "XMP-dc:Description",
                "GPS:GPSLatitude", NULL },
            { "XMP-crs:Exposure2012", NULL } },
        { "metadata: all, remove-location: true",
            { "XMP-iptcExt:PersonInImage", "XMP-crs:Exposure2012", "IPTC:Caption-Abstract",
                "XMP-iptcCore:CreatorCity", NULL },
            { "GPS:GPSLatitude", "XMP-photoshop:City", "XMP-iptcCore:Location", "IPTC:City",
                "IPTC:Country-PrimaryLocationName", "XMP-exif:GPSLatitude", NULL } },
        { "metadata: all-except-camera-raw, remove-person: true",
            { "XMP-photoshop:City", "XMP-dc:Description", "GPS:GPSLatitude", NULL },
            { "XMP-iptcExt:PersonInImage", "XMP-mwg-rs:RegionName", "XMP-mwg-rs:RegionType",
                "XMP-crs:Exposure2012", NULL } },
        { "metadata: copyright-only",
            { "EXIF:Copyright", "XMP-dc:Rights", NULL },
            { "EXIF:Artist", "EXIF:Make", "EXIF:ImageDescription", "GPS:GPSLatitude",
                "XMP-dc:Creator", "XMP-dc:Description", "XMP-iptcCore:CreatorWorkEmail",
                "IPTC:Caption-Abstract", NULL } },
        { "metadata: copyright-contact",
            { "EXIF:Copyright", "EXIF:Artist", "XMP-dc:Creator", "XMP-dc:Rights",
                "XMP-iptcCore:CreatorWorkEmail", "XMP-iptcCore:CreatorCity", NULL },
            { "EXIF:Make", "EXIF:ImageDescription", "GPS:GPSLatitude", "XMP-photoshop:City",
                "XMP-iptcExt:PersonInImage", NULL } },
        { "metadata: default, remove-location: true",
            { "EXIF:Make", "EXIF:ImageDescription", NULL },
            { "GPS:GPSLatitude", NULL } },
        { "metadata: [default, gps], remove-location: true",
            { "EXIF:Make", NULL },
            { "GPS:GPSLatitude", "GPS:GPSLongitude", NULL } },
    };
    g_autofree char *tmp = gal_test_tmpdir("metadata-levels");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *photo = g_build_filename(in, "race.jpg", NULL);
    const char *tag_argv[] = { "exiftool", "-q", "-o", photo, "-XMP-crs:Exposure2012=+0.50",
        "-XMP-photoshop:City=Pyongyang", "-XMP-iptcCore:Location=Kim Il-sung Stadium",
        "-XMP-exif:GPSLatitude=39.03", "-XMP-iptcExt:PersonInImage=Jen Loong",
        "-IPTC:City=Pyongyang", "-IPTC:Country-PrimaryLocationName=North Korea",
        "-IPTC:Caption-Abstract=race day", "-XMP-dc:Description=race day",
        "-XMP-iptcCore:CreatorWorkEmail=jen@example.com", "-XMP-iptcCore:CreatorCity=Singapore",
        "-RegionName=Jen", "-RegionType=Face", "-RegionAreaX=0.5", "-RegionAreaY=0.5",
        "-RegionAreaW=0.2", "-RegionAreaH=0.2", "-RegionAreaUnit=normalized",
        TRIP_DIR "/trip-01.jpg", NULL };
    g_autofree char *tag_err = NULL;

    gal_test_need_exiftool();
    g_mkdir_with_parents(in, 0777);
    cr_assert_eq(gal_test_spawn(tag_argv, NULL, &tag_err), 0, "exiftool: %s", tag_err);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *name = g_strdup_printf("level-%zu.yaml", i);
        g_autofree char *yaml = g_strdup_printf("gallop: 1\noutput: { %s }\n", cases[i].keys);
        g_autofree char *preset = gal_test_write_preset(tmp, name, yaml);
        g_autofree char *out_dir = g_strdup_printf("%s/out-%zu", tmp, i);
        g_autofree char *written = g_build_filename(out_dir, "race.jpg", NULL);
        const char *argv[] = { GAL_BINARY, "run", preset, in, "-o", out_dir, "-q", NULL };
        g_autofree char *err = NULL;

        cr_assert_eq(gal_test_spawn(argv, NULL, &err), 0, "%s: %s", cases[i].keys, err);
        for (size_t t = 0; cases[i].present[t]; t++) {
            g_autofree char *got = gal_test_exiftool_tag(written, cases[i].present[t]);

            cr_expect(*got, "%s: %s is missing", cases[i].keys, cases[i].present[t]);
        }
        for (size_t t = 0; cases[i].absent[t]; t++) {
            g_autofree char *got = gal_test_exiftool_tag(written, cases[i].absent[t]);

            cr_expect_str_eq(got, "", "%s: %s is there", cases[i].keys, cases[i].absent[t]);
        }
    }
}
