/* exif.c: reads the facts templates show (date, camera, lens, artist,
 * copyright, exposure, caption) and what a site shows of a photo from the
 * EXIF block libvips already holds for it, so no second read of the file.
 * libexif's other user is metadata.c, which writes outputs' blocks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libexif/exif-data.h>

#include "internal.h"
#include "error.h"
#include "exif.h"
#include "template.h"

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

gboolean
gal__exif_date_parse(const char *text, struct tm *tm)
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

gboolean
gal__caption_placeholder(const char *text)
{
    /* What cameras and phone software are known to write into
     * ImageDescription by themselves, whatever the photo shows. */
    static const char *const placeholders[] = {
        "SONY DSC", "SAMSUNG CAMERA PICTURES", "Exif_JPEG_PICTURE", "LEAD Technologies Inc. V1.01",
        "default", "DCIM", "Image", "Picture", NULL,
    };
    g_autofree char *trimmed = g_strstrip(g_strdup(text ? text : ""));
    g_auto(GStrv) words = NULL;
    int n;

    if (!*trimmed)
        return TRUE; /* blank or space padding */
    for (int i = 0; placeholders[i]; i++)
        if (g_ascii_strcasecmp(trimmed, placeholders[i]) == 0)
            return TRUE;
    /* "OLYMPUS DIGITAL CAMERA", "KONICA MINOLTA DIGITAL CAMERA", "DIGITAL
     * CAMERA": a maker's name in capitals, then DIGITAL CAMERA. A caption
     * that merely ends so ("My first digital camera") is mixed case or
     * longer. */
    if (!g_str_has_suffix(trimmed, "DIGITAL CAMERA"))
        return FALSE;
    words = g_strsplit(trimmed, " ", -1);
    n = (int) g_strv_length(words);
    for (int i = 0; i < n; i++)
        for (const char *c = words[i]; *c; c++)
            if (g_ascii_islower(*c))
                return FALSE;
    return n <= 5;
}

const void *
gal__exif_app1_form(const void *exif, size_t *len, unsigned char **copy)
{
    static const unsigned char header[6] = { 'E', 'x', 'i', 'f', 0, 0 };

    *copy = NULL;
    if (memcmp(exif, header, sizeof(header)) == 0)
        return exif;
    *copy = g_malloc(*len + sizeof(header));
    memcpy(*copy, header, sizeof(header));
    memcpy(*copy + sizeof(header), exif, *len);
    *len += sizeof(header);
    return *copy;
}

/* A photo's EXIF block, to read from; NULL when there is none. */
static ExifData *
exif_read(const void *exif, size_t len)
{
    g_autofree unsigned char *copy = NULL;

    if (!exif || len < 8)
        return NULL;
    exif = gal__exif_app1_form(exif, &len, &copy);
    return exif_data_new_from_data(exif, (unsigned int) MIN(len, (size_t) G_MAXUINT));
}

void
gal__facts_from_exif(const void *exif, size_t len, gal_facts *facts, GStringChunk *strings)
{
    g_autoptr(ExifData) ed = exif_read(exif, len);
    const char *make, *model;
    const char *dates[3];

    if (!ed)
        return;

    facts->caption = ascii_value(ed, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION, strings);
    /* "OLYMPUS DIGITAL CAMERA" is no caption: a UserComment may be one. */
    if (facts->caption && gal__caption_placeholder(facts->caption))
        facts->caption = NULL;
    if (!facts->caption)
        facts->caption = user_comment(ed, strings);
    if (facts->caption && gal__caption_placeholder(facts->caption))
        facts->caption = NULL;
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
        facts->has_date = gal__exif_date_parse(dates[i], &facts->date);
}

/* ---- the facts a site shows (the run report's per-photo fields) ----------------- */

static gboolean
rational_in(ExifData *ed, ExifIfd ifd, ExifTag tag, int index, double *out)
{
    ExifEntry *e = find(ed, ifd, tag);
    ExifRational r;

    if (!e || e->format != EXIF_FORMAT_RATIONAL || e->size < 8u * (unsigned) (index + 1))
        return FALSE;
    r = exif_get_rational(e->data + 8 * index, exif_data_get_byte_order(ed));
    if (r.denominator == 0)
        return FALSE;
    *out = (double) r.numerator / r.denominator;
    return TRUE;
}

static void
add_about(GPtrArray *about, const char *key, const char *value)
{
    if (value && *value)
        g_ptr_array_add(about, g_strdup_printf("%s=%s", key, value));
}

static void
add_about_number(GPtrArray *about, const char *key, double value, const char *format)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    g_ptr_array_add(about, g_strdup_printf("%s=%s", key,
        g_ascii_formatd(buf, sizeof(buf), format, value)));
}

/* "+02:00" or "-05:30", the form EXIF 2.31 gives OffsetTimeOriginal. */
static gboolean
offset_valid(const char *offset)
{
    return offset && strlen(offset) == 6 && (offset[0] == '+' || offset[0] == '-') &&
        g_ascii_isdigit(offset[1]) && g_ascii_isdigit(offset[2]) && offset[3] == ':' &&
        g_ascii_isdigit(offset[4]) && g_ascii_isdigit(offset[5]);
}

/* GPS degrees, minutes and seconds with their N/S or E/W reference, signed. */
static gboolean
gps_degrees(ExifData *ed, ExifTag tag, ExifTag ref_tag, char negative, double *out,
    GStringChunk *strings)
{
    double d, m = 0, s = 0;
    const char *ref = ascii_value(ed, EXIF_IFD_GPS, ref_tag, strings);

    if (!rational_in(ed, EXIF_IFD_GPS, tag, 0, &d))
        return FALSE;
    rational_in(ed, EXIF_IFD_GPS, tag, 1, &m);
    rational_in(ed, EXIF_IFD_GPS, tag, 2, &s);
    *out = d + m / 60 + s / 3600;
    if (ref && g_ascii_toupper(ref[0]) == negative)
        *out = -*out;
    return *out >= -180 && *out <= 180;
}

void
gal__exif_about(const void *exif, size_t len, gboolean keep_gps, GPtrArray *about)
{
    g_autoptr(ExifData) ed = exif_read(exif, len);
    g_autoptr(GStringChunk) strings = NULL;
    const char *date, *offset;
    ExifEntry *e;
    struct tm tm;
    double v;

    if (!ed)
        return;
    strings = g_string_chunk_new(128);

    /* ISO 8601; the zone only when the camera recorded it, since a bare
     * EXIF time is local time somewhere unknown. */
    date = ascii_value(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, strings);
    offset = ascii_value(ed, EXIF_IFD_EXIF, EXIF_TAG_OFFSET_TIME_ORIGINAL, strings);
    if (gal__exif_date_parse(date, &tm)) {
        g_autofree char *iso = g_strdup_printf("%04d-%02d-%02dT%02d:%02d:%02d%s",
            tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
            offset_valid(offset) ? offset : "");

        add_about(about, "taken", iso);
    }
    if (rational_in(ed, EXIF_IFD_EXIF, EXIF_TAG_FNUMBER, 0, &v) && v > 0)
        add_about_number(about, "f", v, "%.3g");
    if (rational_in(ed, EXIF_IFD_EXIF, EXIF_TAG_EXPOSURE_TIME, 0, &v) && v > 0) {
        g_autofree char *shutter = v < 1 ? g_strdup_printf("1/%.0f", 1.0 / v)
                                         : g_strdup_printf("%g", v);

        add_about(about, "shutter", shutter);
    }
    e = find(ed, EXIF_IFD_EXIF, EXIF_TAG_ISO_SPEED_RATINGS);
    if (e && e->format == EXIF_FORMAT_SHORT && e->size >= 2)
        add_about_number(about, "iso", exif_get_short(e->data, exif_data_get_byte_order(ed)),
            "%.0f");
    if (rational_in(ed, EXIF_IFD_EXIF, EXIF_TAG_FOCAL_LENGTH, 0, &v) && v > 0)
        add_about_number(about, "focal_mm", v, "%.3g");
    if (keep_gps) {
        double lat, lon;

        if (gps_degrees(ed, EXIF_TAG_GPS_LATITUDE, EXIF_TAG_GPS_LATITUDE_REF, 'S', &lat, strings) &&
            gps_degrees(ed, EXIF_TAG_GPS_LONGITUDE, EXIF_TAG_GPS_LONGITUDE_REF, 'W', &lon,
                strings) &&
            lat >= -90 && lat <= 90) {
            add_about_number(about, "lat", lat, "%.7f");
            add_about_number(about, "lon", lon, "%.7f");
            if (rational_in(ed, EXIF_IFD_GPS, EXIF_TAG_GPS_ALTITUDE, 0, &v)) {
                ExifEntry *ref = find(ed, EXIF_IFD_GPS, EXIF_TAG_GPS_ALTITUDE_REF);

                /* AltitudeRef 1: below sea level. */
                if (ref && ref->size >= 1 && ref->data && ref->data[0] == 1)
                    v = -v;
                add_about_number(about, "alt", v, "%.1f");
            }
        }
    }
}

/* One entry of `format` with `components` values, its bytes copied. */
static void
put(ExifData *ed, ExifIfd ifd, ExifTag tag, ExifFormat format, unsigned long components,
    const void *bytes, unsigned int size)
{
    ExifMem *mem = exif_mem_new_default();
    ExifEntry *e = exif_entry_new_mem(mem);
    void *data = exif_mem_alloc(mem, size);

    if (e && data) {
        memcpy(data, bytes, size);
        e->data = data;
        e->size = size;
        e->tag = tag;
        e->format = format;
        e->components = components;
        exif_content_add_entry(ed->ifd[ifd], e);
    }
    else
        exif_mem_free(mem, data);
    if (e)
        exif_entry_unref(e);
    exif_mem_unref(mem);
}

static void
put_ascii(ExifData *ed, ExifIfd ifd, ExifTag tag, const char *text)
{
    g_autofree char *trimmed = NULL;

    if (!text || !*text)
        return;
    trimmed = g_strstrip(g_strdup(text));
    if (*trimmed)
        put(ed, ifd, tag, EXIF_FORMAT_ASCII, strlen(trimmed) + 1, trimmed,
            (unsigned int) strlen(trimmed) + 1);
}

/* A positive value as a rational: exposures below a second as 1/n when
 * that is what they are, the rest to a thousandth. */
static void
put_rational(ExifData *ed, ExifTag tag, double value)
{
    unsigned char bytes[8];
    ExifRational r;

    /* A raw's numbers are whatever its maker's directories say: only
     * those a rational of 32-bit parts holds are written. */
    if (!(value >= 1e-6 && value <= 1e6))
        return;
    r = (ExifRational) { (ExifLong) (value * 1000 + 0.5), 1000 };
    if (value < 1 && fabs(1 / value - floor(1 / value + 0.5)) < 0.01)
        r = (ExifRational) { 1, (ExifLong) floor(1 / value + 0.5) };
    exif_set_rational(bytes, EXIF_BYTE_ORDER_INTEL, r);
    put(ed, EXIF_IFD_EXIF, tag, EXIF_FORMAT_RATIONAL, 1, bytes, sizeof(bytes));
}

static void
put_short(ExifData *ed, ExifIfd ifd, ExifTag tag, double value)
{
    unsigned char bytes[2];

    if (!(value > 0) || value > 65535)
        return;
    exif_set_short(bytes, EXIF_BYTE_ORDER_INTEL, (ExifShort) (value + 0.5));
    put(ed, ifd, tag, EXIF_FORMAT_SHORT, 1, bytes, sizeof(bytes));
}

unsigned char *
gal__exif_build(const gal_exif_fields *fields, size_t *len)
{
    g_autoptr(ExifData) ed = exif_data_new();
    unsigned char *saved = NULL, *out;
    unsigned int size = 0;

    if (!ed)
        return NULL;
    exif_data_set_byte_order(ed, EXIF_BYTE_ORDER_INTEL);
    exif_data_set_data_type(ed, EXIF_DATA_TYPE_COMPRESSED);
    put_ascii(ed, EXIF_IFD_0, EXIF_TAG_MAKE, fields->make);
    put_ascii(ed, EXIF_IFD_0, EXIF_TAG_MODEL, fields->model);
    put_ascii(ed, EXIF_IFD_0, EXIF_TAG_ARTIST, fields->artist);
    put_ascii(ed, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION, fields->description);
    put_short(ed, EXIF_IFD_0, EXIF_TAG_ORIENTATION, fields->orientation);
    put_ascii(ed, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, fields->taken);
    put_ascii(ed, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL, fields->lens);
    put_rational(ed, EXIF_TAG_EXPOSURE_TIME, fields->exposure_seconds);
    put_rational(ed, EXIF_TAG_FNUMBER, fields->f_number);
    put_rational(ed, EXIF_TAG_FOCAL_LENGTH, fields->focal_mm);
    put_short(ed, EXIF_IFD_EXIF, EXIF_TAG_ISO_SPEED_RATINGS, fields->iso);
    exif_data_save_data(ed, &saved, &size);
    if (!saved)
        return NULL;
    /* libexif's memory is malloc's; the caller's is GLib's. */
    out = g_memdup2(saved, size);
    free(saved);
    *len = size;
    return out;
}
