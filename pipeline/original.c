/* original.c: a photo's original, published by a gallery for visitors to
 * take home, carries only what the metadata policy lets its outputs
 * carry: an original keeps GPS, names and serial numbers a camera wrote.
 * Its metadata are made as an output's are, from the file's header alone
 * (no pixel is decoded), and put in its place losslessly (jpegmeta.c). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "error.h"
#include "jpegmeta.h"
#include "original.h"

gboolean
gal__original_publishable(const guchar *head, size_t len)
{
    return len >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff;
}

gboolean
gal__original_file_publishable(const char *path)
{
    guchar head[3];
    ssize_t got;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return FALSE;
    got = read(fd, head, sizeof(head));
    close(fd);
    return got > 0 && gal__original_publishable(head, (size_t) got);
}

/* A blob the policy's image carries, or NULL. */
static const void *
blob(VipsImage *image, const char *field, size_t *len)
{
    const void *data = NULL;

    *len = 0;
    if (!vips_image_get_typeof(image, field) || vips_image_get_blob(image, field, &data, len))
        return NULL;
    return data;
}

int
gal__original_publish(const guchar *jpeg, size_t len, const gal_original_policy *policy,
    GByteArray *out, gal_error *err)
{
    g_autoptr(VipsImage) header = NULL;
    g_autoptr(VipsImage) published = NULL;
    gal_meta meta = { 0 };
    gal_jpeg_metadata put = { 0 };
    int orientation = 1;
    int failed;

    if (!gal__original_publishable(jpeg, len))
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL, "original: not a JPEG");
    if (policy->removes == 0 && gal__metadata_keeps_everything(policy->metadata)) {
        g_byte_array_append(out, jpeg, (guint) len);
        return 0;
    }
    /* The header only: libvips reads no pixel until asked. */
    header = vips_image_new_from_buffer(jpeg, len, "", "access", VIPS_ACCESS_SEQUENTIAL,
        NULL);
    if (!header)
        return gal_error_from_vips(err, GAL_ERR_INPUT, NULL, "original");
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION))
        vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation);
    if (gal__metadata_apply(policy->metadata, policy->removes, policy->software,
            policy->credits, header, &published, &meta, err))
        return -1;
    /* Outputs are upright; an original's pixels are as the camera stored them. */
    gal__meta_set_orientation(&meta, orientation);
    if (!meta.strip_all) {
        put.exif = meta.exif;
        put.exif_len = meta.exif_len;
        put.xmp = blob(published, VIPS_META_XMP_NAME, &put.xmp_len);
        put.iptc = blob(published, VIPS_META_IPTC_NAME, &put.iptc_len);
    }
    failed = gal__jpeg_replace_metadata(jpeg, len, &put, out, err);
    gal__meta_clear(&meta);
    return failed;
}
