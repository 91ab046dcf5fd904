/* gal_test_heif.c: forged HEIC files (gal_test_heif.h). */
#include <string.h>

#include <criterion/criterion.h>
#include <libheif/heif.h>

#include "gal_test_heif.h"

static void
expect_ok(struct heif_error e, const char *what)
{
    cr_assert_eq(e.code, heif_error_Ok, "%s: %s", what, e.message);
}

/* An 8-bit 3-band image as a libheif image (interleaved RGB). */
static struct heif_image *
heif_from_vips(VipsImage *in)
{
    VipsImage *memory = vips_image_copy_memory(in);
    struct heif_image *image = NULL;
    size_t row = (size_t) in->Xsize * 3;
    guint8 *plane;
    int stride;

    cr_assert_not_null(memory, "%s", vips_error_buffer());
    cr_assert_eq(memory->Bands, 3);
    cr_assert_eq(memory->BandFmt, VIPS_FORMAT_UCHAR);
    expect_ok(heif_image_create(memory->Xsize, memory->Ysize, heif_colorspace_RGB,
                  heif_chroma_interleaved_RGB, &image),
        "heif_image_create");
    expect_ok(heif_image_add_plane(image, heif_channel_interleaved, memory->Xsize,
                  memory->Ysize, 8),
        "heif_image_add_plane");
    plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < memory->Ysize; y++)
        memcpy(plane + (size_t) y * stride, VIPS_IMAGE_ADDR(memory, 0, y), row);
    g_object_unref(memory);
    return image;
}

void
gal_test_write_heic(const char *path, VipsImage *photo, VipsImage *thumb, int thumb_box)
{
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = heif_from_vips(photo);
    struct heif_image_handle *handle = NULL;

    expect_ok(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder),
        "no HEVC encoder");
    expect_ok(heif_encoder_set_lossy_quality(encoder, 90), "quality");
    expect_ok(heif_context_encode_image(ctx, image, encoder, NULL, &handle), "encode");
    if (thumb) {
        struct heif_image *small = heif_from_vips(thumb);
        struct heif_image_handle *thumb_handle = NULL;

        expect_ok(heif_context_encode_thumbnail(ctx, small, handle, encoder, NULL, thumb_box,
                      &thumb_handle),
            "encode the thumbnail");
        heif_image_handle_release(thumb_handle);
        heif_image_release(small);
    }
    expect_ok(heif_context_write_to_file(ctx, path), path);
    heif_image_handle_release(handle);
    heif_image_release(image);
    heif_encoder_release(encoder);
    heif_context_free(ctx);
}

/* An 8-bit 3-band image as a libheif image of planar RGB at `bits` (8 or
 * 10), each level scaled to the nearest of the deeper range. */
static struct heif_image *
heif_planar_from_vips(VipsImage *in, int bits)
{
    static const enum heif_channel channels[] = { heif_channel_R, heif_channel_G,
        heif_channel_B };
    VipsImage *memory = vips_image_copy_memory(in);
    struct heif_image *image = NULL;
    int top = (1 << bits) - 1;

    cr_assert_not_null(memory, "%s", vips_error_buffer());
    cr_assert(memory->Bands == 3 && memory->BandFmt == VIPS_FORMAT_UCHAR);
    expect_ok(heif_image_create(memory->Xsize, memory->Ysize, heif_colorspace_RGB,
                  heif_chroma_444, &image),
        "heif_image_create");
    for (int b = 0; b < 3; b++) {
        guint8 *plane;
        int stride;

        expect_ok(heif_image_add_plane(image, channels[b], memory->Xsize, memory->Ysize, bits),
            "heif_image_add_plane");
        plane = heif_image_get_plane(image, channels[b], &stride);
        for (int y = 0; y < memory->Ysize; y++)
            for (int x = 0; x < memory->Xsize; x++) {
                int v = VIPS_IMAGE_ADDR(memory, x, y)[b];

                if (bits == 8)
                    plane[(size_t) y * stride + x] = (guint8) v;
                else
                    ((guint16 *) (plane + (size_t) y * stride))[x] =
                        (guint16) ((v * top + 127) / 255);
            }
    }
    g_object_unref(memory);
    return image;
}

void
gal_test_write_heic_turned(const char *path, VipsImage *photo, int bits, int orientation)
{
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    struct heif_image *image = heif_planar_from_vips(photo, bits);

    options->image_orientation = (enum heif_orientation) orientation;
    expect_ok(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder),
        "no HEVC encoder");
    expect_ok(heif_encoder_set_lossy_quality(encoder, 90), "quality");
    expect_ok(heif_context_encode_image(ctx, image, encoder, options, NULL), "encode");
    expect_ok(heif_context_write_to_file(ctx, path), path);
    heif_encoding_options_free(options);
    heif_image_release(image);
    heif_encoder_release(encoder);
    heif_context_free(ctx);
}

void
gal_test_rewrite_ispe(const char *path, int nth, int declared_width, int declared_height)
{
    g_autofree char *bytes = NULL;
    g_autoptr(GError) error = NULL;
    gsize len = 0;
    int rewritten = 0, seen = 0;

    cr_assert(g_file_get_contents(path, &bytes, &len, &error), "%s", error->message);
    /* An ispe box: size 20, type, version and flags, width, height (ISO/IEC 23008-12
     * 6.5.3). */
    for (gsize at = 4; at + 16 <= len && !rewritten; at++) {
        guint8 *box = (guint8 *) bytes + at - 4;

        if (memcmp(box + 4, "ispe", 4) != 0 || box[3] != 20 || seen++ < nth)
            continue;
        for (int i = 0; i < 4; i++) {
            box[12 + i] = (guint8) ((guint32) declared_width >> (24 - 8 * i));
            box[16 + i] = (guint8) ((guint32) declared_height >> (24 - 8 * i));
        }
        rewritten++;
    }
    cr_assert_eq(rewritten, 1, "no ispe box %d in %s", nth, path);
    cr_assert(g_file_set_contents(path, bytes, (gssize) len, &error), "%s", error->message);
}

void
gal_test_write_heic_declaring(const char *path, VipsImage *photo, int bits,
    int declared_width, int declared_height)
{
    gal_test_write_heic_turned(path, photo, bits, 1);
    gal_test_rewrite_ispe(path, 0, declared_width, declared_height);
}

/* ---- grid HEICs ------------------------------------------------------------------------
 * Phones store a photo as a grid of tiles: each tile an HEVC image item of its own, hidden,
 * and a 'grid' item, the primary, whose payload (an ImageGrid) says how many rows and
 * columns of them make the picture and its size, the right and bottom tiles cropped to it
 * (ISO/IEC 23008-12, 6.6.2.3). libheif 1.15 cannot write one: each tile is encoded by
 * libheif into a file of its own, and its coded data and decoder configuration (hvcC) are
 * taken from there into a file written here, box by box (ISO/IEC 14496-12). */

static void
put16(GByteArray *out, guint v)
{
    guint8 b[] = { (guint8) (v >> 8), (guint8) v };

    g_byte_array_append(out, b, sizeof b);
}

static void
put32(GByteArray *out, guint32 v)
{
    guint8 b[] = { (guint8) (v >> 24), (guint8) (v >> 16), (guint8) (v >> 8), (guint8) v };

    g_byte_array_append(out, b, sizeof b);
}

static void
put_type(GByteArray *out, const char *type)
{
    g_byte_array_append(out, (const guint8 *) type, 4);
}

/* A box's header with its size left 0 (box_end sets it); a full box's version and flags
 * follow when `version` is 0 or more. Returns where the box starts. */
static guint
box_begin(GByteArray *out, const char *type, int version, guint32 flags)
{
    guint start = out->len;

    put32(out, 0);
    put_type(out, type);
    if (version >= 0)
        put32(out, (guint32) version << 24 | flags);
    return start;
}

static void
box_end(GByteArray *out, guint start)
{
    guint32 size = out->len - start;

    out->data[start] = (guint8) (size >> 24);
    out->data[start + 1] = (guint8) (size >> 16);
    out->data[start + 2] = (guint8) (size >> 8);
    out->data[start + 3] = (guint8) size;
}

/* The box of `type` among the boxes in `data` (one level, 32-bit sizes as libheif writes
 * them): its whole bytes, header included; FALSE when there is none. */
static gboolean
find_box(const guint8 *data, gsize len, const char *type, const guint8 **box, gsize *box_len)
{
    for (gsize at = 0; at + 8 <= len;) {
        gsize size = (gsize) data[at] << 24 | data[at + 1] << 16 | data[at + 2] << 8 |
            data[at + 3];

        cr_assert(size >= 8 && at + size <= len, "a box of %zu bytes at %zu of %zu", size, at,
            len);
        if (memcmp(data + at + 4, type, 4) == 0) {
            *box = data + at;
            *box_len = size;
            return TRUE;
        }
        at += size;
    }
    return FALSE;
}

static struct heif_error
write_to_bytes(struct heif_context *ctx, const void *data, size_t size, void *userdata)
{
    (void) ctx;
    g_byte_array_append(userdata, data, (guint) size);
    return (struct heif_error) { heif_error_Ok, heif_suberror_Unspecified, "" };
}

/* One tile, encoded by libheif as a HEIC of its own: the tile's decoder configuration
 * (its hvcC box, whole), its colour box (colr, whole; empty if none) and its coded data
 * (the file's mdat holds that alone). */
typedef struct {
    GByteArray *hvcc;
    GByteArray *colr;
    GByteArray *data;
} coded_tile;

static coded_tile
encode_tile(VipsImage *tile, int bits)
{
    static const struct heif_writer writer = { .writer_api_version = 1,
        .write = write_to_bytes };
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = heif_planar_from_vips(tile, bits);
    g_autoptr(GByteArray) file = g_byte_array_new();
    coded_tile coded = { g_byte_array_new(), g_byte_array_new(), g_byte_array_new() };
    const guint8 *meta, *iprp, *ipco, *box, *mdat;
    gsize meta_len, iprp_len, ipco_len, box_len, mdat_len;

    expect_ok(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder),
        "no HEVC encoder");
    expect_ok(heif_encoder_set_lossy_quality(encoder, 90), "quality");
    expect_ok(heif_context_encode_image(ctx, image, encoder, NULL, NULL), "encode a tile");
    expect_ok(heif_context_write(ctx, (struct heif_writer *) &writer, file), "write a tile");
    heif_image_release(image);
    heif_encoder_release(encoder);
    heif_context_free(ctx);

    /* meta is a full box: its boxes start after its version and flags. */
    cr_assert(find_box(file->data, file->len, "meta", &meta, &meta_len));
    cr_assert(find_box(meta + 12, meta_len - 12, "iprp", &iprp, &iprp_len));
    cr_assert(find_box(iprp + 8, iprp_len - 8, "ipco", &ipco, &ipco_len));
    cr_assert(find_box(ipco + 8, ipco_len - 8, "hvcC", &box, &box_len));
    g_byte_array_append(coded.hvcc, box, (guint) box_len);
    if (find_box(ipco + 8, ipco_len - 8, "colr", &box, &box_len))
        g_byte_array_append(coded.colr, box, (guint) box_len);
    cr_assert(find_box(file->data, file->len, "mdat", &mdat, &mdat_len));
    g_byte_array_append(coded.data, mdat + 8, (guint) mdat_len - 8);
    return coded;
}

/* The meta box of a grid of `n` tiles (item 1 the grid, items 2.. the tiles in rows), its
 * items' data in the mdat whose payload starts at `mdat_at` in the file: first the
 * ImageGrid of `grid_len` bytes, then each tile's coded data. */
static GByteArray *
grid_meta(const coded_tile *tiles, int n, int tile, int width, int height, guint32 mdat_at,
    guint grid_len)
{
    GByteArray *out = g_byte_array_new();
    gboolean colr = tiles[0].colr->len > 0;
    /* Property indices in ipco, from 1: the grid's ispe, the tiles' ispe, colr, hvcCs. */
    int first_hvcc = colr ? 4 : 3;
    guint meta = box_begin(out, "meta", 0, 0), at;
    guint32 offset = mdat_at + grid_len;

    cr_assert(first_hvcc + n - 1 <= 127, "too many tiles for a small ipma");
    at = box_begin(out, "hdlr", 0, 0);
    put32(out, 0);
    put_type(out, "pict");
    put32(out, 0), put32(out, 0), put32(out, 0);
    g_byte_array_append(out, (const guint8 *) "", 1);
    box_end(out, at);

    at = box_begin(out, "pitm", 0, 0);
    put16(out, 1);
    box_end(out, at);

    at = box_begin(out, "iinf", 0, 0);
    put16(out, (guint) n + 1);
    for (int i = 0; i <= n; i++) {
        /* Flag 1: a hidden item, not a picture of its own. */
        guint infe = box_begin(out, "infe", 2, i == 0 ? 0 : 1);

        put16(out, (guint) i + 1);
        put16(out, 0);
        put_type(out, i == 0 ? "grid" : "hvc1");
        g_byte_array_append(out, (const guint8 *) "", 1);
        box_end(out, infe);
    }
    box_end(out, at);

    /* The grid is derived from its tiles ('dimg'), in rows from the top left. */
    at = box_begin(out, "iref", 0, 0);
    {
        guint dimg = box_begin(out, "dimg", -1, 0);

        put16(out, 1);
        put16(out, (guint) n);
        for (int i = 0; i < n; i++)
            put16(out, (guint) i + 2);
        box_end(out, dimg);
    }
    box_end(out, at);

    at = box_begin(out, "iprp", -1, 0);
    {
        guint ipco = box_begin(out, "ipco", -1, 0), ispe, ipma;

        ispe = box_begin(out, "ispe", 0, 0);
        put32(out, (guint32) width), put32(out, (guint32) height);
        box_end(out, ispe);
        ispe = box_begin(out, "ispe", 0, 0);
        put32(out, (guint32) tile), put32(out, (guint32) tile);
        box_end(out, ispe);
        if (colr)
            g_byte_array_append(out, tiles[0].colr->data, tiles[0].colr->len);
        for (int i = 0; i < n; i++)
            g_byte_array_append(out, tiles[i].hvcc->data, tiles[i].hvcc->len);
        box_end(out, ipco);

        /* Each association a byte: bit 7 says the reader must understand the property. */
        ipma = box_begin(out, "ipma", 0, 0);
        put32(out, (guint32) n + 1);
        put16(out, 1);
        g_byte_array_append(out, (const guint8[]) { colr ? 2 : 1, 1, 3 }, colr ? 3 : 2);
        for (int i = 0; i < n; i++) {
            put16(out, (guint) i + 2);
            g_byte_array_append(out,
                (const guint8[]) { colr ? 3 : 2, (guint8) (0x80 | (first_hvcc + i)), 2, 3 },
                colr ? 4 : 3);
        }
        box_end(out, ipma);
    }
    box_end(out, at);

    /* Version 0: 32-bit offsets and lengths, one extent an item, in this file. */
    at = box_begin(out, "iloc", 0, 0);
    g_byte_array_append(out, (const guint8[]) { 0x44, 0x00 }, 2);
    put16(out, (guint) n + 1);
    for (int i = 0; i <= n; i++) {
        put16(out, (guint) i + 1);
        put16(out, 0);
        put16(out, 1);
        put32(out, i == 0 ? mdat_at : offset);
        put32(out, i == 0 ? grid_len : tiles[i - 1].data->len);
        if (i > 0)
            offset += tiles[i - 1].data->len;
    }
    box_end(out, at);
    box_end(out, meta);
    return out;
}

void
gal_test_write_heic_grid(const char *path, VipsImage *photo, int tile, int bits)
{
    int columns = (photo->Xsize + tile - 1) / tile;
    int rows = (photo->Ysize + tile - 1) / tile;
    int n = columns * rows;
    coded_tile *tiles = g_new0(coded_tile, n);
    g_autoptr(GByteArray) file = g_byte_array_new();
    g_autoptr(GByteArray) meta = NULL;
    g_autoptr(GError) error = NULL;
    /* ImageGrid: version 0, flags 0 (16-bit sizes), rows - 1, columns - 1, the size. */
    guint8 grid[] = { 0, 0, (guint8) (rows - 1), (guint8) (columns - 1),
        (guint8) (photo->Xsize >> 8), (guint8) photo->Xsize, (guint8) (photo->Ysize >> 8),
        (guint8) photo->Ysize };
    guint ftyp, mdat, meta_len;

    cr_assert(rows <= 256 && columns <= 256 && photo->Xsize < 65536 && photo->Ysize < 65536);
    for (int i = 0; i < n; i++) {
        int left = i % columns * tile, top = i / columns * tile;
        VipsImage *part = NULL, *whole = NULL;

        /* The right and bottom tiles are whole tiles, their edge repeated past the photo. */
        cr_assert_eq(vips_extract_area(photo, &part, left, top,
                         MIN(tile, photo->Xsize - left), MIN(tile, photo->Ysize - top), NULL),
            0);
        cr_assert_eq(vips_embed(part, &whole, 0, 0, tile, tile, "extend", VIPS_EXTEND_COPY,
                         NULL),
            0);
        tiles[i] = encode_tile(whole, bits);
        g_object_unref(part);
        g_object_unref(whole);
    }

    ftyp = box_begin(file, "ftyp", -1, 0);
    put_type(file, "heic"), put32(file, 0), put_type(file, "mif1"), put_type(file, "heic");
    box_end(file, ftyp);
    /* The meta box's size does not depend on the offsets in it: made once to learn where
     * the mdat's payload starts, then with them. */
    meta = grid_meta(tiles, n, tile, photo->Xsize, photo->Ysize, 0, sizeof grid);
    meta_len = meta->len;
    g_byte_array_unref(meta);
    meta = grid_meta(tiles, n, tile, photo->Xsize, photo->Ysize, file->len + meta_len + 8,
        sizeof grid);
    g_byte_array_append(file, meta->data, meta->len);
    mdat = box_begin(file, "mdat", -1, 0);
    g_byte_array_append(file, grid, sizeof grid);
    for (int i = 0; i < n; i++) {
        g_byte_array_append(file, tiles[i].data->data, tiles[i].data->len);
        g_byte_array_unref(tiles[i].hvcc);
        g_byte_array_unref(tiles[i].colr);
        g_byte_array_unref(tiles[i].data);
    }
    box_end(file, mdat);
    g_free(tiles);
    cr_assert(g_file_set_contents(path, (const char *) file->data, file->len, &error), "%s: %s",
        path, error ? error->message : "");
}
