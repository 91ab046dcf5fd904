/* metadata.c: applies the output.metadata policy, building with libexif
 * the EXIF block each output carries (no GPS or serial numbers by
 * default, Orientation 1, Software, the caption and credits) and its XMP
 * packet. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libexif/exif-data.h>

#include "internal.h"
#include "error.h"
#include "embedded.h"
#include "exif.h"
#include "metadata.h"
#include "xmp.h"

/* ---- the metadata policy -------------------------------------------------------- */

/* output.metadata is `keep`, `strip`, `default`, or a list of EXIF tag names
 * (as libexif names them) and the groups below; `default` may be combined
 * with more names. Lists are allow-lists: a tag nobody named is dropped, so
 * a vendor's MakerNote or a new private tag never slips through. */

typedef struct {
    const char *name;
    const ExifTag *tags;
    int n_tags;
} tag_group;

static const ExifTag caption_tags[] = { EXIF_TAG_IMAGE_DESCRIPTION };
static const ExifTag credits_tags[] = { EXIF_TAG_ARTIST, EXIF_TAG_COPYRIGHT };
static const ExifTag date_tags[] = {
    EXIF_TAG_DATE_TIME, EXIF_TAG_DATE_TIME_ORIGINAL, EXIF_TAG_DATE_TIME_DIGITIZED,
    EXIF_TAG_SUB_SEC_TIME, EXIF_TAG_SUB_SEC_TIME_ORIGINAL, EXIF_TAG_SUB_SEC_TIME_DIGITIZED,
    EXIF_TAG_OFFSET_TIME, EXIF_TAG_OFFSET_TIME_ORIGINAL, EXIF_TAG_OFFSET_TIME_DIGITIZED,
};
static const ExifTag camera_tags[] = {
    EXIF_TAG_MAKE, EXIF_TAG_MODEL, EXIF_TAG_LENS_MAKE, EXIF_TAG_LENS_MODEL,
    EXIF_TAG_LENS_SPECIFICATION,
};
static const ExifTag exposure_tags[] = {
    EXIF_TAG_EXPOSURE_TIME, EXIF_TAG_FNUMBER, EXIF_TAG_EXPOSURE_PROGRAM,
    EXIF_TAG_ISO_SPEED_RATINGS, EXIF_TAG_SENSITIVITY_TYPE, EXIF_TAG_EXPOSURE_BIAS_VALUE,
    EXIF_TAG_METERING_MODE, EXIF_TAG_LIGHT_SOURCE, EXIF_TAG_FLASH, EXIF_TAG_FOCAL_LENGTH,
    EXIF_TAG_FOCAL_LENGTH_IN_35MM_FILM, EXIF_TAG_APERTURE_VALUE, EXIF_TAG_MAX_APERTURE_VALUE,
    EXIF_TAG_SHUTTER_SPEED_VALUE, EXIF_TAG_BRIGHTNESS_VALUE, EXIF_TAG_EXPOSURE_MODE,
    EXIF_TAG_WHITE_BALANCE, EXIF_TAG_DIGITAL_ZOOM_RATIO, EXIF_TAG_SCENE_CAPTURE_TYPE,
    EXIF_TAG_CONTRAST, EXIF_TAG_SATURATION, EXIF_TAG_SHARPNESS,
};
/* Kept whenever any EXIF is written: how to read the pixels, nothing about
 * the photographer. libexif and libvips add most of them anyway. */
static const ExifTag technical_tags[] = {
    EXIF_TAG_X_RESOLUTION, EXIF_TAG_Y_RESOLUTION, EXIF_TAG_RESOLUTION_UNIT,
    EXIF_TAG_YCBCR_POSITIONING, EXIF_TAG_EXIF_VERSION, EXIF_TAG_FLASH_PIX_VERSION,
    EXIF_TAG_COLOR_SPACE, EXIF_TAG_COMPONENTS_CONFIGURATION, EXIF_TAG_PIXEL_X_DIMENSION,
    EXIF_TAG_PIXEL_Y_DIMENSION,
};

#define GROUP(name, tags) { name, tags, G_N_ELEMENTS(tags) }
/* The groups `default` stands for come first. */
static const tag_group groups[] = {
    GROUP("caption", caption_tags),
    GROUP("credits", credits_tags),
    GROUP("date", date_tags),
    GROUP("camera", camera_tags),
    GROUP("exposure", exposure_tags),
};
#define N_DEFAULT_GROUPS 5
#define GPS_GROUP "gps"

typedef enum { POLICY_STRIP, POLICY_KEEP, POLICY_LIST } policy_kind;

typedef struct {
    policy_kind kind;
    GHashTable *tags;  /* POLICY_LIST: IFD0 and EXIF tags kept (tag + 1) */
    GHashTable *gps;   /* POLICY_LIST: GPS tags kept (tag + 1) */
    gboolean all_gps;  /* POLICY_LIST: the whole GPS IFD */
    gboolean no_camera_raw; /* POLICY_KEEP: Camera Raw's XMP settings dropped */
    gboolean contact;  /* POLICY_LIST: the creator's XMP contact details kept */
} policy;

/* Lightroom's export levels, each standing alone like keep and strip. */
static const char *const levels[] = { "keep", "strip", "all", "all-except-camera-raw",
    "copyright-only", "copyright-contact" };

static gboolean
is_level(const char *name)
{
    for (gsize i = 0; i < G_N_ELEMENTS(levels); i++)
        if (g_ascii_strcasecmp(name, levels[i]) == 0)
            return TRUE;
    return FALSE;
}

static void
policy_clear(policy *p)
{
    g_clear_pointer(&p->tags, g_hash_table_unref);
    g_clear_pointer(&p->gps, g_hash_table_unref);
}

#define TAG_KEY(tag) GUINT_TO_POINTER((guint) (tag) + 1)

static void
add_tags(GHashTable *set, const ExifTag *tags, int n)
{
    for (int i = 0; i < n; i++)
        g_hash_table_add(set, TAG_KEY(tags[i]));
}

static const tag_group *
find_group(const char *name)
{
    for (guint i = 0; i < G_N_ELEMENTS(groups); i++)
        if (g_ascii_strcasecmp(name, groups[i].name) == 0)
            return &groups[i];
    return NULL;
}

/* A tag by its libexif name, in any case. `gps` says whether the name is
 * that of a GPS tag (GPS tags share numbers with other IFDs' tags). */
static gboolean
find_tag(const char *name, ExifTag *tag, gboolean *gps)
{
    for (unsigned i = 0; i < exif_tag_table_count(); i++) {
        const char *n = exif_tag_table_get_name(i);

        if (n && g_ascii_strcasecmp(n, name) == 0) {
            const char *in_gps;

            *tag = exif_tag_table_get_tag(i);
            in_gps = exif_tag_get_name_in_ifd(*tag, EXIF_IFD_GPS);
            *gps = in_gps && strcmp(in_gps, n) == 0;
            return TRUE;
        }
    }
    return FALSE;
}

/* Every name a list may hold, for "did you mean". */
static GPtrArray *
all_names(void)
{
    GPtrArray *names = g_ptr_array_new();

    for (gsize i = 0; i < G_N_ELEMENTS(levels); i++)
        g_ptr_array_add(names, (gpointer) levels[i]);
    g_ptr_array_add(names, (gpointer) "default");
    g_ptr_array_add(names, (gpointer) GPS_GROUP);
    for (guint i = 0; i < G_N_ELEMENTS(groups); i++)
        g_ptr_array_add(names, (gpointer) groups[i].name);
    for (unsigned i = 0; i < exif_tag_table_count(); i++)
        if (exif_tag_table_get_name(i))
            g_ptr_array_add(names, (gpointer) exif_tag_table_get_name(i));
    g_ptr_array_add(names, NULL);
    return names;
}

int
gal__metadata_check(char *const *names, gal_error *err)
{
    int n = names ? (int) g_strv_length((char **) names) : 0;

    for (int i = 0; i < n; i++) {
        const char *name = names[i];
        ExifTag tag;
        gboolean gps;

        if (is_level(name)) {
            if (n > 1)
                return gal_error_set(err, GAL_ERR_PRESET, NULL, "output.metadata",
                    "\"%s\" stands alone: it cannot be combined with other names", name);
            continue;
        }
        if (g_ascii_strcasecmp(name, "default") == 0 || g_ascii_strcasecmp(name, GPS_GROUP) == 0 ||
            find_group(name) || find_tag(name, &tag, &gps))
            continue;
        {
            g_autoptr(GPtrArray) candidates = all_names();
            const char *guess =
                gal__did_you_mean(name, (const char *const *) candidates->pdata);
            g_autofree char *shown = gal__excerpt(name, GAL_EXCERPT_CHARS);

            if (guess)
                return gal_error_set(err, GAL_ERR_PRESET, NULL, "output.metadata",
                    "\"%s\" is not an EXIF tag or group (did you mean \"%s\"?)", shown, guess);
            return gal_error_set(err, GAL_ERR_PRESET, NULL, "output.metadata",
                "\"%s\" is not an EXIF tag or group: use keep, strip, default, the groups "
                "caption, credits, date, camera, exposure, gps, EXIF tag names such as Artist, "
                "or a level: copyright-only, copyright-contact, all-except-camera-raw, all",
                shown);
        }
    }
    return 0;
}

static void
policy_init(policy *p, char *const *names)
{
    *p = (policy) { POLICY_LIST, g_hash_table_new(NULL, NULL), g_hash_table_new(NULL, NULL),
        FALSE, FALSE, FALSE };
    if (!names || !names[0]) {
        /* An empty list keeps nothing of the photo's own. */
        return;
    }
    if (g_ascii_strcasecmp(names[0], "keep") == 0 || g_ascii_strcasecmp(names[0], "all") == 0) {
        p->kind = POLICY_KEEP;
        return;
    }
    if (g_ascii_strcasecmp(names[0], "all-except-camera-raw") == 0) {
        p->kind = POLICY_KEEP;
        p->no_camera_raw = TRUE;
        return;
    }
    /* Lightroom's "Copyright Only" and "Copyright & Contact Info". */
    if (g_ascii_strcasecmp(names[0], "copyright-only") == 0 ||
        g_ascii_strcasecmp(names[0], "copyright-contact") == 0) {
        g_hash_table_add(p->tags, TAG_KEY(EXIF_TAG_COPYRIGHT));
        if (g_ascii_strcasecmp(names[0], "copyright-contact") == 0) {
            g_hash_table_add(p->tags, TAG_KEY(EXIF_TAG_ARTIST));
            p->contact = TRUE;
        }
        return;
    }
    if (g_ascii_strcasecmp(names[0], "strip") == 0) {
        p->kind = POLICY_STRIP;
        return;
    }
    for (int i = 0; names[i]; i++) {
        const tag_group *group;
        ExifTag tag;
        gboolean gps;

        if (g_ascii_strcasecmp(names[i], "default") == 0)
            for (int g = 0; g < N_DEFAULT_GROUPS; g++)
                add_tags(p->tags, groups[g].tags, groups[g].n_tags);
        else if (g_ascii_strcasecmp(names[i], GPS_GROUP) == 0)
            p->all_gps = TRUE;
        else if ((group = find_group(names[i])))
            add_tags(p->tags, group->tags, group->n_tags);
        else if (find_tag(names[i], &tag, &gps))
            g_hash_table_add(gps ? p->gps : p->tags, TAG_KEY(tag));
    }
}

static gboolean
policy_keeps(const policy *p, ExifIfd ifd, ExifTag tag)
{
    switch (ifd) {
    case EXIF_IFD_0:
    case EXIF_IFD_EXIF:
        if (p->kind == POLICY_KEEP)
            return TRUE;
        for (guint i = 0; i < G_N_ELEMENTS(technical_tags); i++)
            if (technical_tags[i] == tag)
                return TRUE;
        return g_hash_table_contains(p->tags, TAG_KEY(tag));
    case EXIF_IFD_GPS:
        return p->kind == POLICY_KEEP || p->all_gps || g_hash_table_contains(p->gps, TAG_KEY(tag));
    case EXIF_IFD_INTEROPERABILITY:
        return p->kind == POLICY_KEEP;
    default:
        /* IFD1 describes the embedded thumbnail, which shows the photo as it
         * was before any crop: never kept. */
        return FALSE;
    }
}

gboolean
gal__metadata_keeps_caption(char *const *metadata)
{
    policy p;
    gboolean keeps;

    policy_init(&p, metadata);
    keeps = p.kind != POLICY_STRIP && policy_keeps(&p, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION);
    policy_clear(&p);
    return keeps;
}

/* ---- building the EXIF block ------------------------------------------------------ */

static ExifData *
exif_parse(ExifMem *mem, const void *exif, size_t len)
{
    g_autofree unsigned char *copy = NULL;
    ExifData *ed = exif_data_new_mem(mem);

    if (exif && len >= 8) {
        exif = gal__exif_app1_form(exif, &len, &copy);
        exif_data_load_data(ed, exif, (unsigned int) MIN(len, (size_t) G_MAXUINT));
    }
    else {
        exif_data_set_data_type(ed, EXIF_DATA_TYPE_COMPRESSED);
        exif_data_set_byte_order(ed, EXIF_BYTE_ORDER_INTEL);
    }
    return ed;
}

typedef struct {
    const policy *p;
    ExifIfd ifd;
    GPtrArray *doomed;
} prune_ctx;

static void
mark_entry(ExifEntry *e, void *data)
{
    prune_ctx *ctx = data;

    if (!policy_keeps(ctx->p, ctx->ifd, e->tag))
        g_ptr_array_add(ctx->doomed, e);
}

static void
prune(ExifData *ed, const policy *p)
{
    for (int ifd = 0; ifd < EXIF_IFD_COUNT; ifd++) {
        g_autoptr(GPtrArray) doomed = g_ptr_array_new();
        prune_ctx ctx = { p, (ExifIfd) ifd, doomed };

        exif_content_foreach_entry(ed->ifd[ifd], mark_entry, &ctx);
        for (guint i = 0; i < doomed->len; i++)
            exif_content_remove_entry(ed->ifd[ifd], doomed->pdata[i]);
    }
}

/* Replace or add an ASCII entry in IFD0. */
static void
set_ascii(ExifData *ed, ExifMem *mem, ExifTag tag, const char *text)
{
    ExifEntry *old = exif_content_get_entry(ed->ifd[EXIF_IFD_0], tag);
    ExifEntry *e;
    size_t len = strlen(text) + 1;

    if (old)
        exif_content_remove_entry(ed->ifd[EXIF_IFD_0], old);
    e = exif_entry_new_mem(mem);
    e->tag = tag;
    e->format = EXIF_FORMAT_ASCII;
    e->components = len;
    e->size = (unsigned int) len;
    e->data = exif_mem_alloc(mem, (ExifLong) len);
    memcpy(e->data, text, len);
    exif_content_add_entry(ed->ifd[EXIF_IFD_0], e);
    exif_entry_unref(e);
}

/* XResolution and YResolution (inches) from the image's, in pixels per
 * mm: output.ppi. */
static void
set_resolution(ExifData *ed, ExifMem *mem, double per_mm)
{
    static const ExifTag tags[] = { EXIF_TAG_X_RESOLUTION, EXIF_TAG_Y_RESOLUTION,
        EXIF_TAG_RESOLUTION_UNIT };
    ExifRational dpi = { (ExifLong) lround(per_mm * 25.4), 1 };

    if (per_mm <= 0)
        return;
    for (gsize i = 0; i < G_N_ELEMENTS(tags); i++) {
        ExifEntry *e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], tags[i]);

        if (!e) {
            e = exif_entry_new_mem(mem);
            e->tag = tags[i];
            exif_content_add_entry(ed->ifd[EXIF_IFD_0], e);
            exif_entry_initialize(e, tags[i]);
            exif_entry_unref(e);
        }
        if (tags[i] == EXIF_TAG_RESOLUTION_UNIT && e->format == EXIF_FORMAT_SHORT && e->size >= 2)
            exif_set_short(e->data, exif_data_get_byte_order(ed), 2); /* inches */
        else if (e->format == EXIF_FORMAT_RATIONAL && e->size >= 8)
            exif_set_rational(e->data, exif_data_get_byte_order(ed), dpi);
    }
}

static void
set_orientation_1(ExifData *ed, ExifMem *mem)
{
    ExifEntry *e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);

    if (!e) {
        e = exif_entry_new_mem(mem);
        e->tag = EXIF_TAG_ORIENTATION;
        exif_content_add_entry(ed->ifd[EXIF_IFD_0], e);
        exif_entry_initialize(e, EXIF_TAG_ORIENTATION);
        exif_entry_unref(e);
    }
    if (e->format == EXIF_FORMAT_SHORT && e->size >= 2)
        exif_set_short(e->data, exif_data_get_byte_order(ed), 1);
}

/* The text of an ASCII entry, made valid UTF-8, or NULL. */
static char *
entry_text(ExifData *ed, ExifIfd ifd, ExifTag tag)
{
    ExifEntry *e = exif_content_get_entry(ed->ifd[ifd], tag);
    g_autofree char *raw = NULL;
    char *valid;

    if (!e || !e->data || !e->size || e->format != EXIF_FORMAT_ASCII)
        return NULL;
    raw = g_strndup((const char *) e->data, e->size);
    valid = g_strstrip(g_utf8_make_valid(raw, -1));
    if (!*valid)
        GAL_FREE(valid);
    return valid;
}

/* libvips rebuilds the EXIF block it writes from the image's "exif-ifdN-Name"
 * fields (libvips/foreign/exif.c, vips__exif_update, checked against 8.14):
 * an entry of "exif-data" with no field is deleted, a field with no entry is
 * added, and a string entry whose field reads differently is rewritten from
 * the field as plain ASCII (which would turn a Hangul caption into "?").
 * So the fields must describe exactly the block we made, as libvips itself
 * renders it (its text format changes between versions: 8.14 cuts a field
 * at 255 bytes, later ones do not). No public call reads an EXIF block into
 * fields, but every loader does: the block goes into a JPEG of one pixel,
 * and libvips' JPEG loader reads its header, fields and all. */

/* A one-pixel JPEG without metadata, made once: the frame the block is
 * put into. */
static GBytes *
one_pixel_jpeg(void)
{
    static gsize made;
    static GBytes *jpeg;

    if (g_once_init_enter(&made)) {
        g_autoptr(VipsImage) black = NULL;
        void *buf = NULL;
        size_t len = 0;

        if (vips_black(&black, 1, 1, NULL) == 0 &&
            vips_jpegsave_buffer(black, &buf, &len, "strip", TRUE, NULL) == 0)
            jpeg = g_bytes_new_take(buf, len);
        g_once_init_leave(&made, 1);
    }
    return jpeg;
}

static void *
collect_exif_field(VipsImage *image, const char *field, GValue *value, void *data)
{
    (void) image;
    (void) value;
    if (g_str_has_prefix(field, "exif-ifd"))
        g_ptr_array_add(data, g_strdup(field));
    return NULL;
}

/* `block` is in the APP1 form ("Exif\0\0" first). */
static int
exif_fields_from_block(VipsImage *image, const void *block, size_t len)
{
    g_autoptr(GPtrArray) ours = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) parsed = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(VipsImage) probe = NULL;
    g_autoptr(GByteArray) framed = NULL;
    GBytes *frame = one_pixel_jpeg();
    const guint8 *jpeg;
    gsize jpeg_len;
    guint8 app1[4] = { 0xff, 0xe1, 0, 0 };

    /* An APP1 segment holds at most 65533 bytes (libvips' savers refuse
     * more too). */
    if (!frame || len > 65533) {
        vips_error("gallop", "EXIF block of %zu bytes", len);
        return -1;
    }
    jpeg = g_bytes_get_data(frame, &jpeg_len);
    app1[2] = (guint8) ((len + 2) >> 8);
    app1[3] = (guint8) ((len + 2) & 0xff);
    framed = g_byte_array_sized_new((guint) (jpeg_len + len + 4));
    g_byte_array_append(framed, jpeg, 2); /* SOI */
    g_byte_array_append(framed, app1, sizeof(app1));
    g_byte_array_append(framed, block, (guint) len);
    g_byte_array_append(framed, jpeg + 2, (guint) (jpeg_len - 2));
    if (!(probe = vips_image_new_from_buffer(framed->data, framed->len, "", NULL)))
        return -1;
    vips_image_map(image, collect_exif_field, ours);
    for (guint i = 0; i < ours->len; i++)
        vips_image_remove(image, ours->pdata[i]);
    vips_image_map(probe, collect_exif_field, parsed);
    for (guint i = 0; i < parsed->len; i++) {
        GValue value = G_VALUE_INIT;

        if (vips_image_get(probe, parsed->pdata[i], &value))
            return -1;
        vips_image_set(image, parsed->pdata[i], &value);
        g_value_unset(&value);
    }
    vips_image_set_blob_copy(image, VIPS_META_EXIF_NAME, block, len);
    /* The resolution and orientation are ours already, and the photo's
     * thumbnail must not come back. */
    vips_image_remove(image, "jpeg-thumbnail-data");
    vips_image_set_int(image, VIPS_META_ORIENTATION, 1);
    return 0;
}

/* ---- XMP -------------------------------------------------------------------------- */

/* The packet outputs carry the caption and credits in: what Lightroom,
 * Photo Mechanic and the web read first. dc:description and dc:rights are
 * language alternatives (x-default), dc:creator an ordered list. */
static char *
xmp_packet(const char *description, const char *creator, const char *rights,
    const GPtrArray *contact)
{
    gboolean has_contact = contact && contact->len > 0;
    GString *x;

    if (!description && !creator && !rights && !has_contact)
        return NULL;
    x = g_string_new(NULL);
    g_string_append(x,
        "<?xpacket begin=\"\xef\xbb\xbf\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
        "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
        " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
        "  <rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"");
    if (has_contact)
        g_string_append(x, " xmlns:Iptc4xmpCore=\"http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/\"");
    g_string_append(x, ">\n");
    if (description) {
        g_autofree char *escaped = g_markup_escape_text(description, -1);

        g_string_append_printf(x,
            "   <dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">%s</rdf:li></rdf:Alt>"
            "</dc:description>\n", escaped);
    }
    if (creator) {
        g_autofree char *escaped = g_markup_escape_text(creator, -1);

        g_string_append_printf(x,
            "   <dc:creator><rdf:Seq><rdf:li>%s</rdf:li></rdf:Seq></dc:creator>\n", escaped);
    }
    if (rights) {
        g_autofree char *escaped = g_markup_escape_text(rights, -1);

        g_string_append_printf(x,
            "   <dc:rights><rdf:Alt><rdf:li xml:lang=\"x-default\">%s</rdf:li></rdf:Alt>"
            "</dc:rights>\n", escaped);
    }
    if (has_contact) {
        /* copyright-contact: the creator's contact details, as the photo
         * had them (a struct, Lightroom's "Contact Info"). */
        g_string_append(x, "   <Iptc4xmpCore:CreatorContactInfo rdf:parseType=\"Resource\">\n");
        for (guint i = 0; i + 1 < contact->len; i += 2) {
            g_autofree char *escaped = g_markup_escape_text(contact->pdata[i + 1], -1);

            g_string_append_printf(x, "    <Iptc4xmpCore:%s>%s</Iptc4xmpCore:%s>\n",
                (const char *) contact->pdata[i], escaped, (const char *) contact->pdata[i]);
        }
        g_string_append(x, "   </Iptc4xmpCore:CreatorContactInfo>\n");
    }
    g_string_append(x, "  </rdf:Description>\n </rdf:RDF>\n</x:xmpmeta>\n"
                       "<?xpacket end=\"w\"?>");
    return g_string_free(x, FALSE);
}

/* A caption goes into the EXIF and XMP blocks, each of which a JPEG keeps
 * in one APP1 segment of at most 64 KB: a longer one (a pasted essay) is
 * cut there, at a character, with an ellipsis. */
#define META_CAPTION_MAX_BYTES 16000

static char *
caption_for_metadata(const char *caption)
{
    g_autofree char *valid = g_utf8_make_valid(caption, -1);
    const char *end;

    if (strlen(valid) <= META_CAPTION_MAX_BYTES)
        return g_steal_pointer(&valid);
    end = g_utf8_find_prev_char(valid, valid + META_CAPTION_MAX_BYTES);
    return g_strdup_printf("%.*s…", (int) (end - valid), valid);
}

void
gal__meta_clear(gal_meta *meta)
{
    GAL_FREE(meta->exif);
    meta->exif_len = 0;
    GAL_FREE(meta->caption);
    GAL_FREE(meta->author);
    GAL_FREE(meta->copyright);
    GAL_FREE(meta->software);
    GAL_FREE(meta->xmp);
    meta->strip_all = FALSE;
    meta->keep_icc = FALSE;
}

/* The photo's own XMP or IPTC block `field` of `image`, as `edit` makes
 * it (NULL: removed whole, when it could not be read). */
static void
edit_blob(VipsImage *image, const char *field, unsigned drop)
{
    const void *data;
    size_t len;
    gsize out_len = 0;
    g_autofree void *edited = NULL;

    if (!vips_image_get_typeof(image, field) || vips_image_get_blob(image, field, &data, &len)) {
        vips_image_remove(image, field);
        return;
    }
    edited = strcmp(field, VIPS_META_XMP_NAME) == 0
        ? (void *) gal__xmp_without(data, len, drop, &out_len)
        : gal__iptc_without_location(data, len, &out_len);
    if (edited)
        vips_image_set_blob_copy(image, field, edited, out_len);
    else
        vips_image_remove(image, field);
}

int
gal__metadata_apply(char *const *metadata, unsigned removes, const char *software,
    const gal_credits *credits, VipsImage *in, VipsImage **out, gal_meta *meta, gal_error *err)
{
    g_autoptr(GPtrArray) contact = g_ptr_array_new_with_free_func(g_free);
    const gal_credits none = { 0 };
    g_autofree char *caption = NULL;
    gboolean photo_xmp;
    g_autoptr(VipsImage) copy = NULL;
    policy p;
    const void *exif = NULL;
    size_t len = 0;
    ExifMem *mem;
    ExifData *ed;
    unsigned char *saved = NULL;
    unsigned int saved_len = 0;

    *meta = (gal_meta) { 0 };
    if (vips_copy(in, &copy, NULL))
        return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "metadata");
    policy_init(&p, metadata);

    /* The embedded thumbnail shows the photo before any crop or
     * watermark, under every policy. */
    vips_image_remove(copy, "jpeg-thumbnail-data");
    if (p.kind == POLICY_STRIP) {
        meta->strip_all = TRUE;
        policy_clear(&p);
        *out = g_steal_pointer(&copy);
        return 0;
    }
    if (!credits)
        credits = &none;
    /* `keep` keeps the photo's own XMP (without what the level or
     * output.remove-* leave out); otherwise ours replaces it. */
    if (p.kind == POLICY_KEEP) {
        unsigned drop = (p.no_camera_raw ? GAL_XMP_CAMERA_RAW : 0) |
            (removes & GAL_REMOVE_LOCATION ? GAL_XMP_LOCATION : 0) |
            (removes & GAL_REMOVE_PERSON ? GAL_XMP_PERSON : 0);

        if (drop && vips_image_get_typeof(copy, VIPS_META_XMP_NAME))
            edit_blob(copy, VIPS_META_XMP_NAME, drop);
        if ((removes & GAL_REMOVE_LOCATION) && vips_image_get_typeof(copy, VIPS_META_IPTC_NAME))
            edit_blob(copy, VIPS_META_IPTC_NAME, 0);
    }
    if (p.contact && vips_image_get_typeof(copy, VIPS_META_XMP_NAME)) {
        const void *xmp;
        size_t xmp_len;

        if (vips_image_get_blob(copy, VIPS_META_XMP_NAME, &xmp, &xmp_len) == 0)
            gal__xmp_contact(xmp, xmp_len, contact);
    }
    photo_xmp = p.kind == POLICY_KEEP && vips_image_get_typeof(copy, VIPS_META_XMP_NAME);
    if (p.kind != POLICY_KEEP) {
        vips_image_remove(copy, VIPS_META_XMP_NAME);
        vips_image_remove(copy, VIPS_META_IPTC_NAME);
        vips_image_remove(copy, VIPS_META_ICC_NAME);
    }
    meta->keep_icc = p.kind == POLICY_KEEP;

    if (vips_image_get_typeof(copy, VIPS_META_EXIF_NAME) &&
        vips_image_get_blob(copy, VIPS_META_EXIF_NAME, &exif, &len))
        exif = NULL;
    mem = exif_mem_new_default();
    ed = exif_parse(mem, exif, len);
    prune(ed, &p);
    /* Under any level: the whole GPS directory. */
    while ((removes & GAL_REMOVE_LOCATION) && ed->ifd[EXIF_IFD_GPS]->count > 0)
        exif_content_remove_entry(ed->ifd[EXIF_IFD_GPS], ed->ifd[EXIF_IFD_GPS]->entries[0]);
    if (ed->data) {
        exif_mem_free(mem, ed->data);
        ed->data = NULL;
        ed->size = 0;
    }
    set_orientation_1(ed, mem);
    set_resolution(ed, mem, in->Xres);
    set_ascii(ed, mem, EXIF_TAG_SOFTWARE, software);

    /* The caption travels in the file, where the policy keeps captions; a
     * camera's "OLYMPUS DIGITAL CAMERA" is not published as one. */
    if (policy_keeps(&p, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION)) {
        ExifEntry *entry = exif_content_get_entry(ed->ifd[EXIF_IFD_0],
            EXIF_TAG_IMAGE_DESCRIPTION);
        g_autofree char *own = entry_text(ed, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION);

        if (credits->caption && !gal__caption_placeholder(credits->caption)) {
            caption = caption_for_metadata(credits->caption);
            set_ascii(ed, mem, EXIF_TAG_IMAGE_DESCRIPTION, caption);
        }
        else if (entry && gal__caption_placeholder(own)) /* NULL own: blank padding */
            exif_content_remove_entry(ed->ifd[EXIF_IFD_0], entry);
    }
    /* The preset's credits are its own, not the photo's: every policy but
     * strip (which has returned) writes them. */
    if (credits->artist)
        set_ascii(ed, mem, EXIF_TAG_ARTIST, credits->artist);
    if (credits->copyright)
        set_ascii(ed, mem, EXIF_TAG_COPYRIGHT, credits->copyright);

    meta->caption = entry_text(ed, EXIF_IFD_0, EXIF_TAG_IMAGE_DESCRIPTION);
    meta->author = entry_text(ed, EXIF_IFD_0, EXIF_TAG_ARTIST);
    meta->copyright = entry_text(ed, EXIF_IFD_0, EXIF_TAG_COPYRIGHT);
    meta->software = g_strdup(software);
    if (!photo_xmp)
        meta->xmp = xmp_packet(meta->caption, meta->author, meta->copyright, contact);
    if (meta->xmp)
        vips_image_set_blob_copy(copy, VIPS_META_XMP_NAME, meta->xmp, strlen(meta->xmp));

    exif_data_save_data(ed, &saved, &saved_len);
    if (saved && saved_len > 6) {
        /* Saved with the "Exif\0\0" header JPEG wants. */
        meta->exif = g_memdup2(saved, saved_len);
        meta->exif_len = saved_len;
        if (exif_fields_from_block(copy, saved, saved_len)) {
            exif_mem_free(mem, saved);
            exif_data_unref(ed);
            exif_mem_unref(mem);
            policy_clear(&p);
            gal__meta_clear(meta);
            return gal_error_from_vips(err, GAL_ERR_OUTPUT, NULL, "metadata");
        }
    }
    else
        vips_image_remove(copy, VIPS_META_EXIF_NAME);
    exif_mem_free(mem, saved);
    exif_data_unref(ed);
    exif_mem_unref(mem);
    policy_clear(&p);
    *out = g_steal_pointer(&copy);
    return 0;
}

gboolean
gal__metadata_keeps_everything(char *const *metadata)
{
    policy p;
    gboolean everything;

    policy_init(&p, metadata);
    everything = p.kind == POLICY_KEEP && !p.no_camera_raw;
    policy_clear(&p);
    return everything;
}

void
gal__meta_set_orientation(gal_meta *meta, int orientation)
{
    ExifMem *mem;
    ExifData *ed;
    ExifEntry *e;
    unsigned char *saved = NULL;
    unsigned int saved_len = 0;

    if (!meta->exif || orientation < 1 || orientation > 8)
        return;
    mem = exif_mem_new_default();
    ed = exif_parse(mem, meta->exif, meta->exif_len);
    e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (e && e->format == EXIF_FORMAT_SHORT && e->size >= 2) {
        exif_set_short(e->data, exif_data_get_byte_order(ed), (ExifShort) orientation);
        exif_data_save_data(ed, &saved, &saved_len);
        if (saved && saved_len > 6) {
            g_free(meta->exif);
            meta->exif = g_memdup2(saved, saved_len);
            meta->exif_len = saved_len;
        }
        exif_mem_free(mem, saved);
    }
    exif_data_unref(ed);
    exif_mem_unref(mem);
}

gboolean
gal__metadata_keeps_gps(char *const *metadata)
{
    policy p;
    gboolean keeps;

    policy_init(&p, metadata);
    keeps = p.kind != POLICY_STRIP && policy_keeps(&p, EXIF_IFD_GPS, EXIF_TAG_GPS_LATITUDE) &&
        policy_keeps(&p, EXIF_IFD_GPS, EXIF_TAG_GPS_LONGITUDE);
    policy_clear(&p);
    return keeps;
}
