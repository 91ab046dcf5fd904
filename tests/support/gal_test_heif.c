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

void
gal_test_write_heic_turned(const char *path, VipsImage *photo, int bits, int orientation)
{
    static const enum heif_channel channels[] = { heif_channel_R, heif_channel_G,
        heif_channel_B };
    VipsImage *memory = vips_image_copy_memory(photo);
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
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
    g_object_unref(memory);
}
