/* jpegmeta.c: an original JPEG published under the metadata policy. Its
 * image data are the photographer's: decoding and encoding them again
 * would lose quality for nothing, so the metadata are replaced segment by
 * segment and the scan is copied as it is. The file comes from anyone:
 * every length is checked against what is there. */
#include <string.h>

#include "internal.h"
#include "error.h"
#include "jpegmeta.h"

#define MARKER_SOI 0xd8
#define MARKER_EOI 0xd9
#define MARKER_SOS 0xda
#define MARKER_APP0 0xe0
#define MARKER_COM 0xfe
#define SEGMENT_MAX 65533 /* a segment's payload: its 16-bit length counts itself */

static const char xmp_header[] = "http://ns.adobe.com/xap/1.0/"; /* and its NUL */

static gboolean
has_prefix(const guchar *payload, size_t len, const char *prefix, size_t prefix_len)
{
    return len >= prefix_len && memcmp(payload, prefix, prefix_len) == 0;
}

/* Segments the output keeps: all but metadata and vendors' application
 * segments. JFIF and Adobe say how to decode the pixels and ICC_PROFILE
 * what colours they are; the rest (EXIF, XMP, IPTC, MPF previews, a
 * maker's notes, comments) is what the policy decides or drops. */
static gboolean
kept(int marker, const guchar *payload, size_t len)
{
    if (marker == MARKER_COM)
        return FALSE;
    if (marker < MARKER_APP0 || marker > MARKER_APP0 + 15)
        return TRUE;
    switch (marker - MARKER_APP0) {
    case 0:
        return has_prefix(payload, len, "JFIF", 5);
    case 2:
        return has_prefix(payload, len, "ICC_PROFILE", 12);
    case 14:
        return has_prefix(payload, len, "Adobe", 5);
    default:
        return FALSE;
    }
}

static int
append_segment(GByteArray *out, int marker, const void *header, size_t header_len,
    const void *payload, size_t len, const char *what, gal_error *err)
{
    guchar head[4] = { 0xff, (guchar) marker, 0, 0 };
    size_t total = header_len + len;

    if (total > SEGMENT_MAX)
        return gal_error_set(err, GAL_ERR_OUTPUT, NULL, NULL,
            "original: the %s is %zu bytes, more than a JPEG segment holds (%d)", what, total,
            SEGMENT_MAX);
    head[2] = (guchar) ((total + 2) >> 8);
    head[3] = (guchar) ((total + 2) & 0xff);
    g_byte_array_append(out, head, 4);
    if (header_len)
        g_byte_array_append(out, header, (guint) header_len);
    g_byte_array_append(out, payload, (guint) len);
    return 0;
}

/* The policy's metadata, where the JPEG's own were: EXIF first, as its
 * standard asks, after a JFIF segment that must open the file. */
static int
append_metadata(GByteArray *out, const gal_jpeg_metadata *meta, gal_error *err)
{
    if (meta->exif &&
        append_segment(out, MARKER_APP0 + 1, NULL, 0, meta->exif, meta->exif_len, "EXIF block",
            err))
        return -1;
    if (meta->xmp) {
        gboolean headed = has_prefix(meta->xmp, meta->xmp_len, xmp_header, sizeof(xmp_header));

        if (append_segment(out, MARKER_APP0 + 1, headed ? NULL : xmp_header,
                headed ? 0 : sizeof(xmp_header), meta->xmp, meta->xmp_len, "XMP packet", err))
            return -1;
    }
    if (meta->iptc &&
        append_segment(out, MARKER_APP0 + 13, NULL, 0, meta->iptc, meta->iptc_len,
            "IPTC block", err))
        return -1;
    return 0;
}

int
gal__jpeg_replace_metadata(const guchar *jpeg, size_t len, const gal_jpeg_metadata *meta,
    GByteArray *out, gal_error *err)
{
    gboolean placed = FALSE;
    size_t at = 2;

    if (len < 2 || jpeg[0] != 0xff || jpeg[1] != MARKER_SOI)
        return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
            "original: not a JPEG (no start of image marker)");
    g_byte_array_append(out, jpeg, 2);
    for (;;) {
        size_t start = at, length;
        int marker;

        if (at >= len || jpeg[at] != 0xff)
            return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
                at >= len ? "original: the JPEG ends before its image data (no start of scan)"
                          : "original: no JPEG marker at byte %zu", at);
        /* A marker may be preceded by any number of fill bytes. */
        while (at < len && jpeg[at] == 0xff)
            at++;
        if (at >= len)
            return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
                "original: the JPEG ends in a marker at byte %zu", start);
        marker = jpeg[at++];
        if (marker == 0x00 || marker == MARKER_SOI || marker == MARKER_EOI)
            return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
                "original: unexpected JPEG marker 0x%02x at byte %zu, before any image data",
                marker, start);
        /* TEM and the restart markers stand alone, without a length. */
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
            guchar alone[2] = { 0xff, (guchar) marker };

            g_byte_array_append(out, alone, 2);
            continue;
        }
        if (len - at < 2)
            return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
                "original: the JPEG segment at byte %zu has no length", start);
        length = (size_t) jpeg[at] << 8 | jpeg[at + 1];
        if (length < 2 || length > len - at)
            return gal_error_set(err, GAL_ERR_INPUT, NULL, NULL,
                "original: the JPEG segment 0x%02x at byte %zu is %zu bytes long, %s", marker,
                start, length, length < 2 ? "shorter than its length" : "past the file's end");
        if (!placed && !(marker == MARKER_APP0 && kept(marker, jpeg + at + 2, length - 2))) {
            if (append_metadata(out, meta, err))
                return -1;
            placed = TRUE;
        }
        if (marker == MARKER_SOS) {
            /* The scan and whatever follows it, as they are. */
            guchar sos[2] = { 0xff, MARKER_SOS };

            g_byte_array_append(out, sos, 2);
            g_byte_array_append(out, jpeg + at, (guint) (len - at));
            return 0;
        }
        if (kept(marker, jpeg + at + 2, length - 2)) {
            guchar head[2] = { 0xff, (guchar) marker };

            g_byte_array_append(out, head, 2);
            g_byte_array_append(out, jpeg + at, (guint) length);
        }
        at += length;
    }
}
