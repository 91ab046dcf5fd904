/* exif.c: the only user of libexif. Reads the facts templates show (date,
 * camera, lens, artist, copyright, exposure, caption) from the EXIF block
 * libvips already holds for a photo, so no second read of the file. */
#include <stdio.h>
#include <string.h>

#include <libexif/exif-data.h>

#include "internal.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ExifData, exif_data_unref)

static ExifEntry *
find(ExifData *ed, ExifIfd ifd, ExifTag tag)
{
    return exif_content_get_entry(ed->ifd[ifd], tag);
}

/* ASCII entries are often UTF-8 in practice (phones, exiftool): take the
 * bytes as they are, trimmed, and repair anything that is not UTF-8. */
static const char *
ascii_value(ExifData *ed, ExifIfd ifd, ExifTag tag, GStringChunk *strings)
{
    ExifEntry *e = find(ed, ifd, tag);
    g_autofree char *raw = NULL;
    g_autofree char *valid = NULL;

    if (!e || !e->data || e->size == 0 || e->format != EXIF_FORMAT_ASCII)
        return NULL;
    raw = g_strndup((const char *) e->data, e->size);
    valid = g_utf8_make_valid(raw, -1);
    g_strstrip(valid);
    return *valid ? g_string_chunk_insert(strings, valid) : NULL;
}

/* UserComment: 8 bytes naming the character code, then the text. */
static const char *
user_comment(ExifData *ed, GStringChunk *strings)
{
    ExifEntry *e = find(ed, EXIF_IFD_EXIF, EXIF_TAG_USER_COMMENT);
    g_autofree char *text = NULL;

    if (!e || !e->data || e->size <= 8)
        return NULL;
    if (memcmp(e->data, "ASCII\0\0\0", 8) == 0 || memcmp(e->data, "\0\0\0\0\0\0\0\0", 8) == 0)
        text = g_utf8_make_valid((const char *) e->data + 8, (gssize) strnlen(
            (const char *) e->data + 8, e->size - 8));
    else if (memcmp(e->data, "UNICODE\0", 8) == 0) {
        ExifByteOrder order = exif_data_get_byte_order(ed);

        text = g_convert((const char *) e->data + 8, (gssize) (e->size - 8), "UTF-8",
            order == EXIF_BYTE_ORDER_MOTOROLA ? "UTF-16BE" : "UTF-16LE", NULL, NULL, NULL);
    }
    if (!text)
        return NULL;
    g_strstrip(text);
    return *text ? g_string_chunk_insert(strings, text) : NULL;
}

static gboolean
rational_value(ExifData *ed, ExifTag tag, double *out, ExifRational *raw)
{
    ExifEntry *e = find(ed, EXIF_IFD_EXIF, tag);

    if (!e || e->format != EXIF_FORMAT_RATIONAL || e->size < 8)
        return FALSE;
    *raw = exif_get_rational(e->data, exif_data_get_byte_order(ed));
    if (raw->denominator == 0)
        return FALSE;
    *out = (double) raw->numerator / raw->denominator;
    return TRUE;
}

static const char *
exposure(ExifData *ed, GStringChunk *strings)
{
    GString *s = g_string_new(NULL);
    ExifRational r;
    double v;
    ExifEntry *iso = find(ed, EXIF_IFD_EXIF, EXIF_TAG_ISO_SPEED_RATINGS);
    const char *result;

    if (rational_value(ed, EXIF_TAG_EXPOSURE_TIME, &v, &r) && v > 0) {
        if (v < 1)
            g_string_append_printf(s, "1/%.0f s", 1.0 / v);
        else
            g_string_append_printf(s, "%g s", v);
    }
    if (rational_value(ed, EXIF_TAG_FNUMBER, &v, &r) && v > 0)
        g_string_append_printf(s, "%sf/%g", s->len ? " " : "", v);
    if (iso && iso->format == EXIF_FORMAT_SHORT && iso->size >= 2)
        g_string_append_printf(s, "%sISO %u", s->len ? " " : "",
            exif_get_short(iso->data, exif_data_get_byte_order(ed)));
    result = s->len ? g_string_chunk_insert(strings, s->str) : NULL;
    g_string_free(s, TRUE);
    return result;
}

static gboolean
parse_date(const char *text, struct tm *tm)
{
    int y, mo, d, h = 0, mi = 0, sec = 0;

    if (!text || sscanf(text, "%d:%d:%d %d:%d:%d", &y, &mo, &d, &h, &mi, &sec) < 3)
        return FALSE;
    if (y < 1800 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return FALSE;
    *tm = (struct tm) { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
        .tm_min = mi, .tm_sec = sec };
    /* Fill in the weekday and day of the year, for %a and %j. */
    {
        g_autoptr(GDateTime) dt = g_date_time_new_utc(y, mo, d, h, mi, sec);

        if (!dt)
            return FALSE;
        tm->tm_wday = g_date_time_get_day_of_week(dt) % 7;
        tm->tm_yday = g_date_time_get_day_of_year(dt) - 1;
    }
    return TRUE;
}

void
gal__facts_from_exif(const void *exif, size_t len, gal_facts *facts, GStringChunk *strings)
{
    static const unsigned char header[6] = { 'E', 'x', 'i', 'f', 0, 0 };
    g_autofree unsigned char *with_header = NULL;
    g_autoptr(ExifData) ed = NULL;
    const char *make, *model;
    const char *dates[3];

    if (!exif || len < 8)
        return;
    /* libexif wants the JPEG APP1 form; PNG and WebP keep bare TIFF data. */
    if (memcmp(exif, header, sizeof(header)) != 0) {
        with_header = g_malloc(len + sizeof(header));
        memcpy(with_header, header, sizeof(header));
        memcpy(with_header + sizeof(header), exif, len);
        exif = with_header;
        len += sizeof(header);
    }
    if (!(ed = exif_data_new_from_data(exif, (unsigned int) len)))
        return;

    facts->caption = ascii_value(ed, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION, strings);
    if (!facts->caption)
        facts->caption = user_comment(ed, strings);
    make = ascii_value(ed, EXIF_IFD_0, EXIF_TAG_MAKE, strings);
    model = ascii_value(ed, EXIF_IFD_0, EXIF_TAG_MODEL, strings);
    if (make && model && g_ascii_strncasecmp(model, make, strlen(make)) != 0) {
        g_autofree char *camera = g_strdup_printf("%s %s", make, model);

        facts->camera = g_string_chunk_insert(strings, camera);
    }
    else
        facts->camera = model ? model : make;
    facts->lens = ascii_value(ed, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL, strings);
    facts->artist = ascii_value(ed, EXIF_IFD_0, EXIF_TAG_ARTIST, strings);
    facts->copyright = ascii_value(ed, EXIF_IFD_0, EXIF_TAG_COPYRIGHT, strings);
    facts->exposure = exposure(ed, strings);

    dates[0] = ascii_value(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, strings);
    dates[1] = ascii_value(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_DIGITIZED, strings);
    dates[2] = ascii_value(ed, EXIF_IFD_0, EXIF_TAG_DATE_TIME, strings);
    for (int i = 0; i < 3 && !facts->has_date; i++)
        facts->has_date = parse_date(dates[i], &facts->date);
}
