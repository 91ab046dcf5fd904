/* caption_metadata.c: the sources inside the photo: "exif" (ImageDescription
 * or UserComment, read by exif.c with the photo's other facts), "xmp"
 * (dc:description) and "iptc" (Caption-Abstract), read by embedded.c from
 * the blobs libvips keeps; and "metadata", which stands for the three.
 * Nothing is prepared, and no file but the photo is read: the photo's own
 * digest covers what they give. A camera's placeholder ("OLYMPUS DIGITAL
 * CAMERA") is no caption. */
#include "internal.h"
#include "caption_source.h"
#include "embedded.h"
#include "exif.h"

static int
exif_caption(const void *state, const gal_caption_ask *ask, const char **caption,
    const char **file, gal_error *err)
{
    (void) state, (void) file, (void) err;
    if (ask->exif && !gal__caption_placeholder(ask->exif))
        *caption = ask->exif;
    return 0;
}

/* The caption in one of the header's metadata blobs, parsed by `parse`. */
static const char *
from_blob(const gal_caption_ask *ask, const char *field, char *(*parse)(const void *, gsize))
{
    const void *data;
    size_t len;
    g_autofree char *text = NULL;
    const char *caption;

    if (!ask->header || !vips_image_get_typeof(ask->header, field) ||
        vips_image_get_blob(ask->header, field, &data, &len))
        return NULL;
    if (!(text = parse(data, len)))
        return NULL;
    caption = gal__caption_keep(ask->strings, text);
    return caption && !gal__caption_placeholder(caption) ? caption : NULL;
}

static char *
xmp_parse(const void *data, gsize len)
{
    return gal__xmp_description(data, len);
}

static int
xmp_caption(const void *state, const gal_caption_ask *ask, const char **caption,
    const char **file, gal_error *err)
{
    (void) state, (void) file, (void) err;
    *caption = from_blob(ask, VIPS_META_XMP_NAME, xmp_parse);
    return 0;
}

static int
iptc_caption(const void *state, const gal_caption_ask *ask, const char **caption,
    const char **file, gal_error *err)
{
    (void) state, (void) file, (void) err;
    *caption = from_blob(ask, VIPS_META_IPTC_NAME, gal__iptc_caption);
    return 0;
}

const gal_caption_source gal_caption_exif = { .name = "exif", .caption = exif_caption };
const gal_caption_source gal_caption_xmp = { .name = "xmp", .caption = xmp_caption };
const gal_caption_source gal_caption_iptc = { .name = "iptc", .caption = iptc_caption };

static const char *const metadata_members[] = { "exif", "xmp", "iptc", NULL };

const gal_caption_source gal_caption_metadata = {
    .name = "metadata",
    .members = metadata_members,
};
