/* gal_test_meta.c: reading outputs' metadata back, independently of the
 * code that wrote it: EXIF with libexif, PNG chunks with libpng. */
#include <criterion/criterion.h>
#include <png.h>
#include <string.h>

#include "gal_test_meta.h"

ExifData *
gal_test_exif(const char *path)
{
    g_autoptr(VipsImage) image = vips_image_new_from_file(path, NULL);
    static const unsigned char header[6] = { 'E', 'x', 'i', 'f', 0, 0 };
    g_autofree unsigned char *with_header = NULL;
    const void *blob;
    size_t len;

    cr_assert_not_null(image, "cannot read %s: %s", path, vips_error_buffer());
    if (!vips_image_get_typeof(image, VIPS_META_EXIF_NAME))
        return NULL;
    cr_assert_eq(vips_image_get_blob(image, VIPS_META_EXIF_NAME, &blob, &len), 0);
    if (len < 6 || memcmp(blob, header, 6) != 0) {
        with_header = g_malloc(len + 6);
        memcpy(with_header, header, 6);
        memcpy(with_header + 6, blob, len);
        blob = with_header;
        len += 6;
    }
    return exif_data_new_from_data(blob, (unsigned int) len);
}

char *
gal_test_exif_text(ExifData *ed, ExifIfd ifd, ExifTag tag)
{
    ExifEntry *e = exif_content_get_entry(ed->ifd[ifd], tag);

    if (!e || e->format != EXIF_FORMAT_ASCII || !e->data)
        return NULL;
    return g_strndup((const char *) e->data, e->size);
}

int
gal_test_exif_short(ExifData *ed, ExifIfd ifd, ExifTag tag)
{
    ExifEntry *e = exif_content_get_entry(ed->ifd[ifd], tag);

    if (!e || e->format != EXIF_FORMAT_SHORT || e->size < 2)
        return -1;
    return exif_get_short(e->data, exif_data_get_byte_order(ed));
}

/* The setjmp of the read, with nothing to clean up on a longjmp. */
static int
read_png(png_structp png, png_infop info, FILE *f)
{
    if (setjmp(png_jmpbuf(png)))
        return -1;
    png_init_io(png, f);
    png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    return 0;
}

GHashTable *
gal_test_png_text(const char *path)
{
    GHashTable *result = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    FILE *f = fopen(path, "rb");
    png_structp png;
    png_infop info;
    png_textp text = NULL;
    int n = 0;

    cr_assert_not_null(f, "cannot open %s", path);
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    info = png_create_info_struct(png);
    cr_assert_eq(read_png(png, info, f), 0, "libpng cannot read %s", path);
    fclose(f);
    png_get_text(png, info, &text, &n);
    for (int i = 0; i < n; i++)
        g_hash_table_insert(result, g_strdup(text[i].key),
            g_strndup(text[i].text, text[i].compression >= PNG_ITXT_COMPRESSION_NONE
                    ? text[i].itxt_length : text[i].text_length));
    png_destroy_read_struct(&png, &info, NULL);
    return result;
}

gboolean
gal_test_png_has_chunk(const char *path, const char *name)
{
    gsize len;
    g_autofree char *bytes = gal_test_read_bytes(path, &len);

    /* Chunks follow the 8-byte signature: length, name, data, CRC. */
    for (gsize at = 8; at + 8 <= len;) {
        guint32 n = ((guint32) (guchar) bytes[at] << 24) | ((guint32) (guchar) bytes[at + 1] << 16) |
            ((guint32) (guchar) bytes[at + 2] << 8) | (guint32) (guchar) bytes[at + 3];

        if (memcmp(bytes + at + 4, name, 4) == 0)
            return TRUE;
        at += 12 + (gsize) n;
    }
    return FALSE;
}

void
gal_test_need_exiftool(void)
{
    g_autofree char *path = g_find_program_in_path("exiftool");

    if (!path)
        cr_skip_test("exiftool is not installed (apt-get install libimage-exiftool-perl)");
}

char *
gal_test_exiftool_tag(const char *file, const char *tag)
{
    g_autofree char *arg = g_strdup_printf("-%s", tag);
    const char *argv[] = { "exiftool", "-s3", "-charset", "exif=utf8", arg, file, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    cr_assert_eq(gal_test_spawn(argv, &out, &err), 0, "exiftool: %s", err);
    g_strchomp(out);
    return g_steal_pointer(&out);
}

size_t
gal_test_jpeg_scan_start(const guchar *jpeg, size_t len)
{
    size_t at = 2;

    while (at + 4 <= len && jpeg[at] == 0xff && jpeg[at + 1] != 0xda)
        at += 2 + ((size_t) jpeg[at + 2] << 8 | jpeg[at + 3]);
    cr_assert(at + 4 <= len, "no start of scan");
    return at;
}
