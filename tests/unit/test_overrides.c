/* A photo's own overrides (overrides.h): its YAML sidecar's keys and their
 * located errors, the captions table's override columns, what a photo's
 * XMP says (IPTC alt text and description, MWG focus and face regions),
 * and the order they win in (sidecar, table, XMP). test_overrides in e2e
 * runs them through gallop. */
#include <criterion/criterion.h>
#include <string.h>

#include "caption_source.h"
#include "gal_test.h"
#include "overrides.h"
#include "xmp.h"

TestSuite(overrides, .init = gal_test_setup, .fini = gal_test_teardown);

static int
from_text(const char *yaml, gal_overrides *o, GStringChunk *strings, gal_error *err)
{
    *o = GAL_OVERRIDES_NONE;
    return gal__overrides_from_text("IMG_1.yaml", yaml, strlen(yaml), strings, o, err);
}

Test(overrides, a_sidecar_sets_every_key)
{
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_overrides o;
    gal_error err = { 0 };

    cr_assert_eq(from_text("focus: [0.25, 0.75]\nwatermark: off\ncaption: \"Mine\"\n"
                           "alt: A red door in snow\ndescription: |\n  Two lines\n  of it\n",
                     &o, strings, &err),
        0, "%s", err.msg);
    cr_expect(o.has_focus);
    cr_expect_float_eq(o.focus_x, 0.25, 1e-12);
    cr_expect_float_eq(o.focus_y, 0.75, 1e-12);
    cr_expect_eq(o.watermark, 0);
    cr_expect_str_eq(o.caption, "Mine");
    cr_expect_str_eq(o.alt, "A red door in snow");
    cr_expect_str_eq(o.description, "Two lines\nof it");
}

Test(overrides, an_empty_sidecar_or_value_says_what_it_says)
{
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    gal_overrides o;
    gal_error err = { 0 };

    cr_assert_eq(from_text("", &o, strings, &err), 0);
    cr_expect(!o.has_focus && o.watermark == -1 && !o.caption && !o.alt && !o.description);
    /* An empty alt marks decoration; an empty caption hides the caption. */
    cr_assert_eq(from_text("alt: \"\"\ncaption: \"\"\nwatermark: yes\n", &o, strings, &err), 0);
    cr_expect_str_eq(o.alt, "");
    cr_expect_str_eq(o.caption, "");
    cr_expect_eq(o.watermark, 1);
}

/* Each error names the sidecar's line and column and the key, as a
 * compiler would: the photo's own error puts the photo's name first. */
Test(overrides, a_wrong_sidecar_names_its_place_and_key)
{
    static const struct {
        const char *yaml, *msg;
    } cases[] = {
        { "caption: x\nfocus: [0.5, 1.5]\n", "IMG_1.yaml:2:14: focus: must be between 0 and 1" },
        { "focus: [0.5]\n", "IMG_1.yaml:1:8: focus: expected [x, y]" },
        { "focus: [0.5, 0.5, 0.5]\n", "IMG_1.yaml:1:8: focus: expected [x, y]" },
        { "focus: [x, 0.5]\n", "IMG_1.yaml:1:9: focus: expected a number from 0 to 1" },
        { "focus: {x: 1}\n", "IMG_1.yaml:1:8: focus: expected [x, y]" },
        { "watermark: maybe\n", "IMG_1.yaml:1:12: watermark: expected true or false" },
        { "alt: [x]\n", "IMG_1.yaml:1:6: alt: expected text, got a list" },
        { "\nfocas: [0.5, 0.5]\n", "IMG_1.yaml:2:1: unknown key \"focas\" (did you mean \"focus\"?)" },
        { "- a\n", "IMG_1.yaml:1:1: a photo's sidecar is a mapping of keys" },
        { "focus: [0.5\n", "IMG_1.yaml:2:1: " },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
        gal_overrides o;
        gal_error err = { 0 };

        cr_expect_eq(from_text(cases[i].yaml, &o, strings, &err), -1, "%s", cases[i].yaml);
        cr_expect_eq(err.code, GAL_ERR_INPUT, "%s", cases[i].yaml);
        cr_expect(g_str_has_prefix(err.msg, cases[i].msg), "%s: got \"%s\"", cases[i].yaml,
            err.msg);
    }
}

Test(overrides, a_sidecar_is_found_by_either_name_and_fails_its_photo)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-sidecar");
    g_autofree char *photo = g_build_filename(dir, "IMG_1.jpg", NULL);
    g_autofree char *with_ext = g_build_filename(dir, "IMG_1.jpg.yaml", NULL);
    g_autofree char *stem = g_build_filename(dir, "IMG_1.yaml", NULL);
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    gal_photo_ref ref = { photo, dir, FALSE };
    gal_overrides o = GAL_OVERRIDES_NONE;
    const char *file = NULL;
    gal_error err = { 0 };

    gal__overrides_files(photo, names);
    cr_assert_eq(names->len, 2);
    cr_expect_str_eq(names->pdata[0], with_ext);
    cr_expect_str_eq(names->pdata[1], stem);
    cr_assert_eq(gal__overrides_sidecar(&ref, strings, &o, &file, &err), 0, "none is nothing");
    cr_expect_null(file);
    cr_assert(g_file_set_contents(stem, "alt: from the stem\n", -1, NULL));
    cr_assert_eq(gal__overrides_sidecar(&ref, strings, &o, &file, &err), 0, "%s", err.msg);
    cr_expect_str_eq(o.alt, "from the stem");
    cr_expect_str_eq(file, stem);
    /* IMG_1.jpg.yaml first, as IMG_1.jpg.txt is for a caption. */
    cr_assert(g_file_set_contents(with_ext, "watermark: false\nalt: [bad]\n", -1, NULL));
    cr_expect_eq(gal__overrides_sidecar(&ref, strings, &o, &file, &err), -1);
    cr_expect(strstr(err.msg, "IMG_1.jpg.yaml:2:6: alt: expected text"), "%s", err.msg);
}

Test(overrides, the_album_file_is_no_photo_sidecar)
{
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

    gal__overrides_files("/p/album.jpg", names);
    cr_assert_eq(names->len, 1, "album.yaml is the folder's");
    cr_expect_str_eq(names->pdata[0], "/p/album.jpg.yaml");
}

/* ---- the captions table's columns -------------------------------------------- */

Test(overrides, table_columns_are_checked_as_a_sidecar_is)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
#define ROWS \
    "file\tcaption\tfocus\twatermark\talt\tdescription\n" \
    "a.jpg\tA\t0.1 0.9\tno\tAlt of a\tLong a\n" \
    "b.jpg\tB\t[0.5, 0.5]\t\t\t\n"
    static const char table[] = ROWS "c.jpg\tC\t0.5 2\tperhaps\t\t\n";
    static const char table_ok[] = ROWS;
    static const char good[] = "file,caption,focus,alt\na.jpg,A,\"0.2,0.3\",Alt\n";
    gal_captions *c = NULL;
    gal_facts facts = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__captions_load(NULL, FALSE, &c, errs), 0);
    cr_assert_eq(gal__captions_from_string(c, "table", "t.tsv", table, strlen(table), errs), -1);
    cr_assert_eq(errs->count, 2);
    gal_test_expect_error(&errs->items[0], GAL_ERR_PRESET, "t.tsv", 4, 1, "captions.table",
        "focus: must be between 0 and 1");
    gal_test_expect_error(&errs->items[1], GAL_ERR_PRESET, "t.tsv", 4, 1, "captions.table",
        "watermark: expected true or false");
    errs->count = 0;
    cr_assert_eq(gal__captions_from_string(c, "table", "t.tsv", table_ok, strlen(table_ok), errs),
        0, "%s", errs->items[0].msg);
    cr_assert_eq(gal__caption_overrides(c, &(gal_photo_ref) { .path = "/p/a.jpg" }, NULL, &facts,
                     strings, &err), 0);
    cr_expect(facts.has_focus && facts.focus_x == 0.1 && facts.focus_y == 0.9);
    cr_expect(facts.no_watermark);
    cr_expect_str_eq(facts.alt, "Alt of a");
    cr_expect_str_eq(facts.description, "Long a");
    facts = (gal_facts) { 0 };
    cr_assert_eq(gal__caption_overrides(c, &(gal_photo_ref) { .path = "/p/b.jpg" }, NULL, &facts,
                     strings, &err), 0);
    cr_expect(facts.has_focus && facts.focus_x == 0.5 && !facts.no_watermark && !facts.alt);
    cr_assert_eq(gal__captions_from_string(c, "table", "t.csv", good, strlen(good), errs), 0);
    cr_assert_eq(gal__caption_overrides(c, &(gal_photo_ref) { .path = "/p/a.jpg" }, NULL, &facts,
                     strings, &err), 0);
    cr_expect(facts.focus_x == 0.2 && facts.focus_y == 0.3);
    gal__captions_free(c);
}

/* A row's digest covers its override cells, so editing one rebuilds its
 * photo; a row with none digests as the caption alone always did. */
static void
row_digest(const char *dir, const char *text, const char *photo, char *digest)
{
    g_autofree char *path = g_build_filename(dir, "captions.tsv", NULL);
    g_autofree char *yaml = g_strdup_printf("gallop: 1\ncaptions: { table: %s }\n", path);
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(gal_caption_row));
    gal_preset *preset;

    cr_assert(g_file_set_contents(path, text, -1, NULL));
    preset = gal_test_load_ok(yaml);
    gal__caption_rows(preset->captions, photo, rows);
    cr_assert_eq(rows->len, 1);
    g_strlcpy(digest, g_array_index(rows, gal_caption_row, 0).digest, GAL_CAPTION_ROW_LEN);
    gal_preset_free(preset);
}

Test(overrides, a_rows_digest_covers_its_override_cells)
{
    g_autofree char *dir = gal_test_tmpdir("overrides-rows");
    char plain[GAL_CAPTION_ROW_LEN], empty[GAL_CAPTION_ROW_LEN], alt[GAL_CAPTION_ROW_LEN],
        alt2[GAL_CAPTION_ROW_LEN], other[GAL_CAPTION_ROW_LEN];

    row_digest(dir, "file\tcaption\na.jpg\tA\nb.jpg\tB\n", "/p/a.jpg", plain);
    row_digest(dir, "file\tcaption\talt\na.jpg\tA\t\nb.jpg\tB\tx\n", "/p/a.jpg", empty);
    row_digest(dir, "file\tcaption\talt\na.jpg\tA\tOne\nb.jpg\tB\tx\n", "/p/a.jpg", alt);
    row_digest(dir, "file\tcaption\talt\na.jpg\tA\tTwo\nb.jpg\tB\tx\n", "/p/a.jpg", alt2);
    row_digest(dir, "file\tcaption\talt\na.jpg\tA\tTwo\nb.jpg\tB\ty\n", "/p/a.jpg", other);
    cr_expect_str_eq(plain, empty, "no override cells: the caption's digest as before");
    cr_expect_str_neq(plain, alt);
    cr_expect_str_neq(alt, alt2, "an edited alt cell changes the row");
    cr_expect_str_eq(alt2, other, "another photo's cell does not");
}

/* ---- XMP ------------------------------------------------------------------------ */

/* As exiftool writes it: elements, parseType Resource. */
static const char exiftool_xmp[] =
    "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
    "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
    "<rdf:Description rdf:about='' xmlns:Iptc4xmpCore='http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/'>"
    "<Iptc4xmpCore:AltTextAccessibility><rdf:Alt><rdf:li xml:lang='de'>Eine Tür</rdf:li>"
    "<rdf:li xml:lang='x-default'> A red door </rdf:li></rdf:Alt></Iptc4xmpCore:AltTextAccessibility>"
    "<Iptc4xmpCore:ExtDescrAccessibility><rdf:Alt><rdf:li xml:lang='fr'>Longue</rdf:li></rdf:Alt>"
    "</Iptc4xmpCore:ExtDescrAccessibility></rdf:Description>"
    "<rdf:Description rdf:about='' xmlns:mwg-rs='http://www.metadataworkinggroup.com/schemas/regions/'"
    " xmlns:stArea='http://ns.adobe.com/xmp/sType/Area#'>"
    "<mwg-rs:Regions rdf:parseType='Resource'><mwg-rs:RegionList><rdf:Bag>"
    "<rdf:li rdf:parseType='Resource'><mwg-rs:Area rdf:parseType='Resource'><stArea:x>0.7</stArea:x>"
    "<stArea:y>0.3</stArea:y><stArea:w>0.2</stArea:w><stArea:h>0.2</stArea:h>"
    "<stArea:unit>normalized</stArea:unit></mwg-rs:Area><mwg-rs:Type>Face</mwg-rs:Type></rdf:li>"
    "<rdf:li rdf:parseType='Resource'><mwg-rs:Area rdf:parseType='Resource'><stArea:x>0.25</stArea:x>"
    "<stArea:y>0.5</stArea:y><stArea:unit>normalized</stArea:unit></mwg-rs:Area>"
    "<mwg-rs:Type>Focus</mwg-rs:Type></rdf:li>"
    "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>";

/* As Lightroom writes regions: attributes on rdf:Description; two faces. */
static const char attribute_xmp[] =
    "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
    "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
    "<rdf:Description rdf:about='' xmlns:mwg-rs='http://www.metadataworkinggroup.com/schemas/regions/'"
    " xmlns:stArea='http://ns.adobe.com/xmp/sType/Area#'><mwg-rs:Regions rdf:parseType='Resource'>"
    "<mwg-rs:RegionList><rdf:Bag>"
    "<rdf:li><rdf:Description mwg-rs:Type='Face'><mwg-rs:Area stArea:x='0.2' stArea:y='0.4' "
    "stArea:w='0.1' stArea:h='0.2' stArea:unit='normalized'/></rdf:Description></rdf:li>"
    "<rdf:li><rdf:Description mwg-rs:Type='Face'><mwg-rs:Area stArea:x='0.4' stArea:y='0.6' "
    "stArea:w='0.1' stArea:h='0.2' stArea:unit='normalized'/></rdf:Description></rdf:li>"
    "<rdf:li><rdf:Description mwg-rs:Type='Face'><mwg-rs:Area stArea:x='40' stArea:y='60' "
    "stArea:unit='pixel'/></rdf:Description></rdf:li>"
    "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>";

Test(overrides, xmp_gives_alt_text_description_and_a_focus_region)
{
    gal_xmp_overrides x;

    gal__xmp_overrides(exiftool_xmp, strlen(exiftool_xmp), &x);
    cr_expect_str_eq(x.alt, "A red door", "x-default, trimmed");
    cr_expect_str_eq(x.description, "Longue", "no x-default: the first");
    cr_expect(x.has_focus);
    cr_expect_float_eq(x.focus_x, 0.25, 1e-12, "the Focus region wins over a face");
    cr_expect_float_eq(x.focus_y, 0.5, 1e-12);
    gal__xmp_overrides_clear(&x);
}

Test(overrides, xmp_faces_give_the_centre_of_the_box_around_them)
{
    gal_xmp_overrides x;

    gal__xmp_overrides(attribute_xmp, strlen(attribute_xmp), &x);
    cr_expect_null(x.alt);
    cr_expect(x.has_focus);
    /* Faces span x 0.15..0.45 and y 0.3..0.7; the pixel one is left out. */
    cr_expect_float_eq(x.focus_x, 0.3, 1e-9);
    cr_expect_float_eq(x.focus_y, 0.5, 1e-9);
    gal__xmp_overrides_clear(&x);
    gal__xmp_overrides("not xml", 7, &x);
    cr_expect(!x.has_focus && !x.alt && !x.description);
}
