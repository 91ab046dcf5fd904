/* heif_frames.c: a HEIF's coded frame sizes, checked before decoding
 * (heif_frames.h). The boxes are ISO/IEC 14496-12 (iloc, meta) and
 * 23008-12 (iinf, iprp, ispe); the streams' headers ITU-T H.265 7.3 and
 * AV1 5.5. Only what says a frame's size is read. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <vips/vips.h>

#include "heif_frames.h"
#include "limit.h"

/* ---- bits ----------------------------------------------------------------------------- */

/* A big-endian bit reader over a buffer; a read past its end sets `over`
 * and gives 0, so a caller checks once, after the fields it needs. */
typedef struct {
    const guint8 *data;
    gsize len;
    gsize bit;
    gboolean over;
} bits;

static guint64
read_bits(bits *b, int n)
{
    guint64 value = 0;

    for (int i = 0; i < n; i++) {
        if (b->bit >= b->len * 8) {
            b->over = TRUE;
            return 0;
        }
        value = value << 1 | ((b->data[b->bit / 8] >> (7 - b->bit % 8)) & 1);
        b->bit++;
    }
    return value;
}

static void
skip_bits(bits *b, gsize n)
{
    if (b->bit + n > b->len * 8)
        b->over = TRUE;
    b->bit = MIN(b->bit + n, b->len * 8);
}

/* ue(v), H.265 9.2: up to 32 leading zeros (a value below 2^32 - 1, the
 * largest any syntax element takes); more is no valid stream. */
static guint64
read_ue(bits *b)
{
    int zeros = 0;

    while (!b->over && read_bits(b, 1) == 0)
        if (++zeros > 32) {
            b->over = TRUE;
            return 0;
        }
    return ((guint64) 1 << zeros) - 1 + read_bits(b, zeros);
}

/* ---- HEVC ----------------------------------------------------------------------------- */

int
gal__hevc_sps_size(const guint8 *nal, gsize len, gal_coded_size *out)
{
    /* The SPS fields up to the height take at most 2 + 4 + 12 + 2 + 7 * 12
     * bytes before their exp-Golomb codes: 256 bytes of payload are more
     * than enough, and bound the copy. */
    guint8 rbsp[256];
    gsize n = 0;
    int zeros = 0;
    bits b = { rbsp, 0, 0, FALSE };
    int sub_layers;
    gboolean profile_present[8], level_present[8];

    if (len < 2 || (nal[0] >> 1 & 0x3f) != 33)
        return -1;
    /* Emulation prevention (H.265 7.4.2): a 0x03 after two zero bytes is
     * not payload. */
    for (gsize i = 2; i < len && n < sizeof rbsp; i++) {
        if (zeros >= 2 && nal[i] == 3) {
            zeros = 0;
            continue;
        }
        zeros = nal[i] == 0 ? zeros + 1 : 0;
        rbsp[n++] = nal[i];
    }
    b.len = n;
    skip_bits(&b, 4); /* sps_video_parameter_set_id */
    sub_layers = (int) read_bits(&b, 3);
    skip_bits(&b, 1); /* sps_temporal_id_nesting_flag */
    /* profile_tier_level(1, sps_max_sub_layers_minus1), 7.3.3: the general
     * profile (88 bits) and level (8), then each sub-layer's flags, padded
     * to 8 sub-layers, then what they say is present. */
    skip_bits(&b, 96);
    for (int i = 0; i < sub_layers; i++) {
        profile_present[i] = read_bits(&b, 1);
        level_present[i] = read_bits(&b, 1);
    }
    if (sub_layers > 0)
        skip_bits(&b, 2 * (gsize) (8 - sub_layers));
    for (int i = 0; i < sub_layers; i++)
        skip_bits(&b, (profile_present[i] ? 88 : 0) + (level_present[i] ? 8 : 0));
    read_ue(&b); /* sps_seq_parameter_set_id */
    if (read_ue(&b) == 3) /* chroma_format_idc */
        skip_bits(&b, 1); /* separate_colour_plane_flag */
    out->width = read_ue(&b);
    out->height = read_ue(&b);
    return b.over ? -1 : 0;
}

/* ---- AV1 ------------------------------------------------------------------------------ */

/* uvlc(), AV1 4.10.3. */
static void
skip_uvlc(bits *b)
{
    int zeros = 0;

    while (!b->over && read_bits(b, 1) == 0)
        zeros++;
    if (zeros < 32)
        skip_bits(b, (gsize) zeros);
}

int
gal__av1_sequence_size(const guint8 *payload, gsize len, gal_coded_size *out)
{
    bits b = { payload, len, 0, FALSE };
    int width_bits, height_bits;

    skip_bits(&b, 3); /* seq_profile */
    skip_bits(&b, 1); /* still_picture */
    if (read_bits(&b, 1)) /* reduced_still_picture_header */
        skip_bits(&b, 5);
    else {
        gboolean decoder_model = FALSE, display_delay;
        int delay_bits = 0, points;

        if (read_bits(&b, 1)) { /* timing_info_present_flag */
            skip_bits(&b, 64);
            if (read_bits(&b, 1)) /* equal_picture_interval */
                skip_uvlc(&b);
            decoder_model = read_bits(&b, 1);
            if (decoder_model) {
                delay_bits = (int) read_bits(&b, 5) + 1;
                skip_bits(&b, 32 + 5 + 5);
            }
        }
        display_delay = read_bits(&b, 1);
        points = (int) read_bits(&b, 5) + 1;
        for (int i = 0; i < points && !b.over; i++) {
            skip_bits(&b, 12); /* operating_point_idc */
            if (read_bits(&b, 5) > 7) /* seq_level_idx */
                skip_bits(&b, 1);
            if (decoder_model && read_bits(&b, 1))
                skip_bits(&b, 2 * (gsize) delay_bits + 1);
            if (display_delay && read_bits(&b, 1))
                skip_bits(&b, 4);
        }
    }
    width_bits = (int) read_bits(&b, 4) + 1;
    height_bits = (int) read_bits(&b, 4) + 1;
    out->width = read_bits(&b, width_bits) + 1;
    out->height = read_bits(&b, height_bits) + 1;
    return b.over ? -1 : 0;
}

/* ---- an item's bytes ------------------------------------------------------------------ */

/* Where an item's data lies: extents in the file, or in the meta box's
 * idat (construction method 1), read in order as one stream. */
typedef struct {
    guint64 offset;
    guint64 length;
} extent;

typedef struct {
    int fd;
    const guint8 *memory; /* the idat's payload, or NULL: extents in the file */
    gsize memory_len;
    GArray *extents;      /* of extent */
    guint64 length;       /* all extents' */
    /* The stream is walked forward a NAL unit or OBU at a time, and only
     * their headers are read: in blocks, so that a file of many small
     * units costs few reads, and a small one, so that a photo's few large
     * slices are not read whole. */
    guint8 block[4096];
    guint64 block_at;
    gsize block_len;
} item_data;

/* `n` bytes at `at` of the extents, straight from the file or idat. */
static int
read_extents(item_data *item, guint64 at, guint8 *to, gsize n)
{
    guint64 start = 0;

    for (guint i = 0; i < item->extents->len && n > 0; i++) {
        const extent *e = &g_array_index(item->extents, extent, i);

        if (at < start + e->length) {
            guint64 from = e->offset + (at - start);
            gsize take = (gsize) MIN((guint64) n, start + e->length - at);

            if (item->memory) {
                if (from > item->memory_len || take > item->memory_len - from)
                    return -1;
                memcpy(to, item->memory + from, take);
            }
            else
                for (gsize done = 0; done < take;) {
                    ssize_t got = pread(item->fd, to + done, take - done,
                        (off_t) (from + done));

                    if (got < 0 && errno == EINTR)
                        continue;
                    if (got <= 0)
                        return -1;
                    done += (gsize) got;
                }
            to += take;
            at += take;
            n -= take;
        }
        start += e->length;
    }
    return n == 0 ? 0 : -1;
}

/* Up to `n` bytes at `at` of the item (fewer at its end); -1 when the
 * file is shorter than its extents say. */
static gssize
item_read(item_data *item, guint64 at, guint8 *to, gsize n)
{
    n = (gsize) MIN((guint64) n, at < item->length ? item->length - at : 0);
    if (n == 0)
        return 0;
    if (n > sizeof item->block)
        return -1;
    if (at < item->block_at || at + n > item->block_at + item->block_len) {
        item->block_at = at;
        item->block_len = (gsize) MIN((guint64) sizeof item->block, item->length - at);
        if (read_extents(item, at, item->block, item->block_len)) {
            item->block_len = 0;
            return -1;
        }
    }
    memcpy(to, item->block + (at - item->block_at), n);
    return (gssize) n;
}

/* ---- boxes ---------------------------------------------------------------------------- */

static guint64
be(const guint8 *p, int n)
{
    guint64 v = 0;

    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* A box inside a buffer: its type and payload. */
typedef struct {
    char type[5];
    const guint8 *payload;
    gsize len;
} box;

/* A box's size and header length, from its first `have` bytes at `head`
 * and the `left` bytes from its start to the end of what holds it (a box
 * of size 0 runs to there); FALSE when they do not say or it does not
 * fit. */
static gboolean
box_extent(const guint8 *head, guint64 have, guint64 left, guint64 *size, guint64 *header)
{
    if (have < 8)
        return FALSE;
    *size = be(head, 4);
    *header = 8;
    if (*size == 1) {
        if (have < 16)
            return FALSE;
        *size = be(head + 8, 8);
        *header = 16;
    }
    else if (*size == 0)
        *size = left;
    return *size >= *header && *size <= left;
}

/* The box at *at of `data` (`len` bytes), *at moved past it; FALSE at the
 * end or when it does not fit (a damaged box ends the list). */
static gboolean
next_box(const guint8 *data, gsize len, gsize *at, box *out)
{
    guint64 size, header;

    if (*at > len || !box_extent(data + *at, len - *at, len - *at, &size, &header))
        return FALSE;
    memcpy(out->type, data + *at + 4, 4);
    out->type[4] = '\0';
    out->payload = data + *at + header;
    out->len = (gsize) (size - header);
    *at += (gsize) size;
    return TRUE;
}

/* An item of the file (iinf): its id and type, and, from iloc and ipma,
 * where its data lies and its properties' payloads. */
typedef struct {
    guint32 id;
    char type[5];
    const guint8 *ispe, *config; /* payloads of its ispe and hvcC or av1C, or NULL */
    gsize ispe_len, config_len;
    GArray *extents;
    int construction;
} item;

typedef struct {
    int fd;
    gint64 size;
    GArray *items;             /* of item */
    /* An item's index in `items` + 1, by its id: a hostile meta box may
     * list items by the hundred thousand, each named again in iloc and
     * ipma. */
    GHashTable *by_id;
    guint32 primary;
    const guint8 *idat;
    gsize idat_len;
    GPtrArray *properties;     /* ipco's boxes, as box *, from index 1 */
} heif_meta;

static item *
find_item(heif_meta *meta, guint32 id)
{
    guint index = GPOINTER_TO_UINT(g_hash_table_lookup(meta->by_id, GUINT_TO_POINTER(id)));

    return index ? &g_array_index(meta->items, item, index - 1) : NULL;
}

static int
damaged(const char *what)
{
    vips_error("heif", "its boxes are damaged (%s)", what);
    return -1;
}

static int
read_iinf(heif_meta *meta, const guint8 *p, gsize len)
{
    gsize at = len >= 4 && p[0] == 0 ? 6 : 8;
    box infe;

    if (len < at)
        return damaged("iinf");
    while (next_box(p, len, &at, &infe)) {
        item it = { 0 }, *same;
        int version = infe.len > 0 ? infe.payload[0] : 0;
        gsize id_bytes = version == 3 ? 4 : 2;

        /* Versions 0 and 1 name no item type: nothing gallop decodes. */
        if (strcmp(infe.type, "infe") || version < 2)
            continue;
        if (infe.len < 4 + id_bytes + 2 + 4)
            return damaged("infe");
        it.id = (guint32) be(infe.payload + 4, (int) id_bytes);
        memcpy(it.type, infe.payload + 4 + id_bytes + 2, 4);
        /* One item an id: iloc and ipma name items by it. Of two infe
         * boxes with one id, a decoder may take either: a coded type wins,
         * so that the frames are checked whichever it takes. */
        if ((same = find_item(meta, it.id))) {
            if (!strcmp(it.type, "hvc1") || !strcmp(it.type, "av01"))
                memcpy(same->type, it.type, sizeof it.type);
            continue;
        }
        it.extents = g_array_new(FALSE, FALSE, sizeof(extent));
        g_array_append_val(meta->items, it);
        g_hash_table_insert(meta->by_id, GUINT_TO_POINTER(it.id),
            GUINT_TO_POINTER(meta->items->len));
    }
    return 0;
}

static int
read_iloc(heif_meta *meta, const guint8 *p, gsize len)
{
    int version, offset_size, length_size, base_size, index_size;
    guint64 count;
    gsize at;

    if (len < 8)
        return damaged("iloc");
    version = p[0];
    offset_size = p[4] >> 4, length_size = p[4] & 15;
    base_size = p[5] >> 4, index_size = version >= 1 ? p[5] & 15 : 0;
    if (version > 2 || offset_size % 4 || offset_size > 8 || length_size % 4 ||
        length_size > 8 || base_size % 4 || base_size > 8 || index_size % 4 || index_size > 8)
        return damaged("iloc");
    count = version < 2 ? be(p + 6, 2) : len >= 10 ? be(p + 6, 4) : 0;
    at = version < 2 ? 8 : 10;
    for (guint64 i = 0; i < count; i++) {
        gsize id_bytes = version < 2 ? 2 : 4;
        guint32 id;
        int construction = 0;
        guint64 base, extents;
        item *it;

        if (len - at < id_bytes + (version >= 1 ? 2 : 0) + 2 + (gsize) base_size + 2 ||
            at > len)
            return damaged("iloc");
        id = (guint32) be(p + at, (int) id_bytes);
        at += id_bytes;
        if (version >= 1) {
            construction = p[at + 1] & 15;
            at += 2;
        }
        at += 2; /* data_reference_index */
        base = be(p + at, base_size);
        at += (gsize) base_size;
        extents = be(p + at, 2);
        at += 2;
        it = find_item(meta, id);
        for (guint64 e = 0; e < extents; e++) {
            extent x;

            if (len - at < (gsize) (index_size + offset_size + length_size) || at > len)
                return damaged("iloc");
            at += (gsize) index_size;
            x.offset = base + be(p + at, offset_size);
            at += (gsize) offset_size;
            x.length = be(p + at, length_size);
            at += (gsize) length_size;
            if (it)
                g_array_append_val(it->extents, x);
        }
        if (it)
            it->construction = construction;
    }
    return 0;
}

static int
read_iprp(heif_meta *meta, const guint8 *p, gsize len)
{
    gsize at = 0;
    box b;

    while (next_box(p, len, &at, &b)) {
        if (!strcmp(b.type, "ipco")) {
            gsize in = 0;
            box property;

            while (next_box(b.payload, b.len, &in, &property))
                g_ptr_array_add(meta->properties, g_memdup2(&property, sizeof property));
        }
        else if (!strcmp(b.type, "ipma")) {
            int version = b.len >= 4 ? b.payload[0] : 0;
            gboolean wide = b.len >= 4 && (b.payload[3] & 1);
            guint64 entries = b.len >= 8 ? be(b.payload + 4, 4) : 0;
            gsize in = 8;

            for (guint64 i = 0; i < entries; i++) {
                gsize id_bytes = version < 1 ? 2 : 4;
                guint32 id;
                int n;
                item *it;

                if (in > b.len || b.len - in < id_bytes + 1)
                    return damaged("ipma");
                id = (guint32) be(b.payload + in, (int) id_bytes);
                n = b.payload[in + id_bytes];
                in += id_bytes + 1;
                if (b.len - in < (gsize) n * (wide ? 2 : 1))
                    return damaged("ipma");
                it = find_item(meta, id);
                for (int k = 0; k < n; k++, in += wide ? 2 : 1) {
                    guint index = wide ? (guint) be(b.payload + in, 2) & 0x7fff
                                       : b.payload[in] & 0x7fu;
                    const box *property;

                    if (!it || index == 0 || index > meta->properties->len)
                        continue;
                    property = g_ptr_array_index(meta->properties, index - 1);
                    /* The first of each, as libheif takes it. */
                    if (!strcmp(property->type, "ispe") && !it->ispe) {
                        it->ispe = property->payload;
                        it->ispe_len = property->len;
                    }
                    else if ((!strcmp(property->type, "hvcC") ||
                                 !strcmp(property->type, "av1C")) &&
                        !it->config) {
                        it->config = property->payload;
                        it->config_len = property->len;
                    }
                }
            }
        }
    }
    return 0;
}

/* ---- the check ------------------------------------------------------------------------ */

/* The frames HEVC and AV1 code are whole blocks: an HEVC picture is a
 * multiple of its minimum coding block (8 to 64 pixels), cropped back to
 * the picture by its conformance window; an AV1 frame is the picture
 * itself. 64 is the largest such block, so a stream of the declared
 * picture never codes more than the declared size rounded up to it. */
#define BLOCK 64
#define ROUND_UP(v) (((guint64) (v) + BLOCK - 1) / BLOCK * BLOCK)

/* A frame of any size up to this many pixels costs a decoder a few MiB,
 * within what a photo's memory estimate keeps for libvips' buffers
 * (decode.c, 8 MiB): a grid's tiles may each be larger than a small photo
 * (a 300x200 picture in one 512x512 tile). */
#define SMALL_FRAME (1024 * 1024)

typedef struct {
    guint32 width, height;             /* the item's declared size */
    guint32 photo_width, photo_height; /* the primary item's; 0: it declares none */
    const char *codec;
} frame_bound;

/* Each coded frame is checked twice: against its own item's declared
 * size, which is what libheif and libvips take the frame to be, and by its
 * area against the photo's (the primary item's, a grid's whole picture),
 * which is what the run's memory budget admitted the photo for (decode.c,
 * gal__photo_memory): a tile, a thumbnail or an alpha plane that declares
 * itself large in a small photo would otherwise decode beyond it. */
static int
check_frame(const frame_bound *bound, const gal_coded_size *coded)
{
    guint64 pixels = coded->width * coded->height;
    guint64 photo = ROUND_UP(bound->photo_width) * ROUND_UP(bound->photo_height);

    /* Either way round: libheif 1.15 writes the ispe of a photo it stores
     * turned (irot) as the turned size, the frame's transposed (seen in
     * its HEICs of EXIF orientations 5-8); the area, what memory goes by,
     * is the same. */
    gboolean fits = coded->width <= ROUND_UP(bound->width) &&
        coded->height <= ROUND_UP(bound->height);
    gboolean fits_turned = coded->width <= ROUND_UP(bound->height) &&
        coded->height <= ROUND_UP(bound->width);

    if (!fits && !fits_turned) {
        vips_error("heif", "its %s stream codes a %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT
            " frame, larger than the %ux%u it declares", bound->codec, coded->width,
            coded->height, bound->width, bound->height);
        return -1;
    }
    if (bound->photo_width && pixels > photo && pixels > SMALL_FRAME) {
        vips_error("heif", "its %s stream codes a %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT
            " frame, larger than the %ux%u photo it declares", bound->codec, coded->width,
            coded->height, bound->photo_width, bound->photo_height);
        return -1;
    }
    return 0;
}

/* An HEVC NAL unit of `len` bytes at `nal` (up to 256 of them given): an
 * SPS is checked, anything else passes. */
static int
check_hevc_nal(const frame_bound *bound, const guint8 *nal, gsize given, gsize len)
{
    gal_coded_size coded;

    if (given < 2 || (nal[0] >> 1 & 0x3f) != 33)
        return 0;
    if (gal__hevc_sps_size(nal, given, &coded)) {
        vips_error("heif", "its HEVC stream has a sequence parameter set cut short "
            "(%" G_GSIZE_FORMAT " bytes)", len);
        return -1;
    }
    return check_frame(bound, &coded);
}

/* The sequence headers of an AV1 OBU stream, `data`; the OBU header is
 * 5.3.1: type in bits 6-3, an extension byte, a LEB128 size. */
static int
check_av1_obus(const frame_bound *bound, item_data *data)
{
    for (guint64 at = 0; at < data->length;) {
        guint8 head[10], payload[256];
        gssize got = item_read(data, at, head, sizeof head);
        gsize header;
        guint64 size = 0;
        gal_coded_size coded;

        if (got < 1)
            return got < 0 ? damaged("item data") : 0;
        header = 1 + (head[0] >> 2 & 1);
        if (head[0] >> 1 & 1) {
            int i = 0;

            for (; i < 8 && header + (gsize) i < (gsize) got; i++) {
                size |= (guint64) (head[header + (gsize) i] & 0x7f) << (7 * i);
                if (!(head[header + (gsize) i] & 0x80))
                    break;
            }
            if (i == 8 || header + (gsize) i >= (gsize) got)
                return 0; /* cut short: the decoder stops here too */
            header += (gsize) i + 1;
        }
        else
            size = data->length - at - MIN(header, data->length - at);
        if ((head[0] >> 3 & 15) == 1) { /* OBU_SEQUENCE_HEADER */
            got = item_read(data, at + header, payload, (gsize) MIN(size, sizeof payload));
            if (got < 0)
                return damaged("item data");
            if (gal__av1_sequence_size(payload, (gsize) got, &coded)) {
                vips_error("heif", "its AV1 stream has a sequence header cut short");
                return -1;
            }
            if (check_frame(bound, &coded))
                return -1;
        }
        if (size > data->length)
            break;
        at += header + size;
    }
    return 0;
}

/* Every NAL unit of an HEVC item's data: each a `length_size`-byte size
 * and the unit (ISO/IEC 14496-15 4.3.2). */
static int
check_hevc_data(const frame_bound *bound, item_data *data, int length_size)
{
    for (guint64 at = 0; at < data->length;) {
        guint8 nal[256], size_bytes[4];
        guint64 len;
        gssize got;

        if (item_read(data, at, size_bytes, (gsize) length_size) != length_size)
            return 0; /* cut short: libheif refuses it before decoding */
        len = be(size_bytes, length_size);
        got = item_read(data, at + (guint64) length_size, nal, (gsize) MIN(len, sizeof nal));
        if (got < 0)
            return damaged("item data");
        if (check_hevc_nal(bound, nal, (gsize) got, (gsize) len))
            return -1;
        at += (guint64) length_size + len;
    }
    return 0;
}

static int
check_item(heif_meta *meta, const item *it, const item *primary)
{
    frame_bound bound = { 0, 0, 0, 0, it->type[0] == 'h' ? "HEVC" : "AV1" };
    item_data *data;
    int length_size = 4, failed = 0;

    if (!it->config)
        return 0; /* libheif refuses it: no decoder configuration */
    if (!it->ispe || it->ispe_len < 12) {
        vips_error("heif", "its image item %u declares no size (ispe)", it->id);
        return -1;
    }
    bound.width = (guint32) be(it->ispe + 4, 4);
    bound.height = (guint32) be(it->ispe + 8, 4);
    if (primary && primary->ispe && primary->ispe_len >= 12) {
        bound.photo_width = (guint32) be(primary->ispe + 4, 4);
        bound.photo_height = (guint32) be(primary->ispe + 8, 4);
    }
    /* The decoder configuration's own parameter sets, then the data's. */
    if (it->type[0] == 'h') {
        const guint8 *p = it->config;
        gsize len = it->config_len, at = 23;

        if (len < 23)
            return damaged("hvcC");
        length_size = (p[21] & 3) + 1;
        for (int array = 0, arrays = p[22]; array < arrays; array++) {
            guint count;

            if (len - at < 3 || at > len)
                return damaged("hvcC");
            count = (guint) be(p + at + 1, 2);
            at += 3;
            for (guint k = 0; k < count; k++) {
                gsize nal_len;

                if (len - at < 2 || at > len)
                    return damaged("hvcC");
                nal_len = (gsize) be(p + at, 2);
                at += 2;
                if (len - at < nal_len)
                    return damaged("hvcC");
                if (check_hevc_nal(&bound, p + at, MIN(nal_len, 256), nal_len))
                    return -1;
                at += nal_len;
            }
        }
    }
    data = g_new0(item_data, 1);
    data->fd = meta->fd;
    data->extents = g_array_new(FALSE, FALSE, sizeof(extent));
    if (it->type[0] == 'a' && it->config_len > 4) {
        /* av1C's configOBUs: a sequence header OBU, as in the data. */
        extent whole = { 4, it->config_len - 4 };

        data->memory = it->config;
        data->memory_len = it->config_len;
        g_array_append_val(data->extents, whole);
        data->length = whole.length;
        failed = check_av1_obus(&bound, data);
        g_array_set_size(data->extents, 0);
        data->block_at = data->block_len = 0;
    }
    data->memory = it->construction == 1 ? meta->idat : NULL;
    data->memory_len = it->construction == 1 ? meta->idat_len : 0;
    data->length = 0;
    /* Construction method 2 (another item's data) libheif 1.15 does not
     * read: nothing is decoded from it. */
    for (guint i = 0; !failed && it->construction <= 1 && i < it->extents->len; i++) {
        extent e = g_array_index(it->extents, extent, i);
        guint64 limit = it->construction == 1 ? meta->idat_len : (guint64) meta->size;

        /* A length of 0 is the rest of the file (ISO/IEC 14496-12 8.11.3). */
        if (e.length == 0 && e.offset < limit)
            e.length = limit - e.offset;
        /* Data past the end of the file: libheif reads an item's data
         * whole before decoding it, fails ("Unexpected end of file"), and
         * says so better than a check could. */
        if (e.offset > limit || e.length > limit - e.offset) {
            g_array_set_size(data->extents, 0);
            data->length = 0;
            break;
        }
        g_array_append_val(data->extents, e);
        data->length += e.length;
    }
    if (!failed)
        failed = it->type[0] == 'h' ? check_hevc_data(&bound, data, length_size)
                                    : check_av1_obus(&bound, data);
    g_array_unref(data->extents);
    g_free(data);
    return failed;
}

/* The meta box's payload (after its version and flags) of the file, into
 * a new buffer; NULL with the error set. */
static guint8 *
read_meta(int fd, gint64 size, gsize *len)
{
    guint64 at = 0;

    while (at + 8 <= (guint64) size) {
        guint8 head[16];
        guint64 box_size, header;
        ssize_t got = pread(fd, head, sizeof head, (off_t) at);
        guint8 *payload;

        if (got < 8 || !box_extent(head, (guint64) got, (guint64) size - at, &box_size, &header))
            break;
        if (memcmp(head + 4, "meta", 4)) {
            at += box_size;
            continue;
        }
        if (box_size - header < 4 || box_size - header > (guint64) gal__limits.heif_meta_bytes) {
            vips_error("heif", "its meta box is %" G_GUINT64_FORMAT " bytes, over the limit "
                "of %" G_GINT64_FORMAT, box_size, gal__limits.heif_meta_bytes);
            return NULL;
        }
        *len = (gsize) (box_size - header - 4);
        payload = g_malloc(*len + 1);
        if (pread(fd, payload, *len, (off_t) (at + header + 4)) != (ssize_t) *len) {
            g_free(payload);
            break;
        }
        return payload;
    }
    damaged("no meta box");
    return NULL;
}

static void
item_clear(gpointer data)
{
    g_array_unref(((item *) data)->extents);
}

int
gal__heif_frames_check(int fd, gint64 size)
{
    g_autofree guint8 *payload = NULL;
    gsize len = 0, at = 0;
    heif_meta meta = { .fd = fd, .size = size };
    box b;
    int failed = 0;

    if (!(payload = read_meta(fd, size, &len)))
        return -1;
    meta.items = g_array_new(FALSE, TRUE, sizeof(item));
    g_array_set_clear_func(meta.items, item_clear);
    meta.by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
    meta.properties = g_ptr_array_new_with_free_func(g_free);
    /* iinf first: iloc and ipma name items it lists. */
    while (!failed && next_box(payload, len, &at, &b))
        if (!strcmp(b.type, "iinf"))
            failed = read_iinf(&meta, b.payload, b.len);
        else if (!strcmp(b.type, "pitm") && b.len >= 6 &&
            b.len >= (b.payload[0] == 0 ? 6u : 8u))
            meta.primary = (guint32) be(b.payload + 4, b.payload[0] == 0 ? 2 : 4);
        else if (!strcmp(b.type, "idat")) {
            meta.idat = b.payload;
            meta.idat_len = b.len;
        }
    for (at = 0; !failed && next_box(payload, len, &at, &b);)
        if (!strcmp(b.type, "iloc"))
            failed = read_iloc(&meta, b.payload, b.len);
        else if (!strcmp(b.type, "iprp"))
            failed = read_iprp(&meta, b.payload, b.len);
    for (guint i = 0; !failed && i < meta.items->len; i++) {
        const item *it = &g_array_index(meta.items, item, i);

        if (!strcmp(it->type, "hvc1") || !strcmp(it->type, "av01"))
            failed = check_item(&meta, it, find_item(&meta, meta.primary));
    }
    g_ptr_array_unref(meta.properties);
    g_hash_table_unref(meta.by_id);
    g_array_unref(meta.items);
    return failed ? -1 : 0;
}
