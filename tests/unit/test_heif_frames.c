/* test_heif_frames.c: the frame sizes a HEIF's streams code, read from an HEVC SPS and an AV1
 * sequence header (heif_frames.c), on bytes written bit by bit here and on files libheif
 * encoded; and the check of a file's frames against its declared sizes (issue 41). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"
#include "gal_test_heif.h"
#include "heif_frames.h"

TestSuite(heif_frames, .init = gal_test_setup, .fini = gal_test_teardown, .timeout = 120);

/* ---- writing bits --------------------------------------------------------------------- */

typedef struct {
    guint8 bytes[512];
    gsize bit;
} bit_writer;

static void
put_bits(bit_writer *w, guint64 value, int n)
{
    for (int i = n - 1; i >= 0; i--, w->bit++)
        if (value >> i & 1)
            w->bytes[w->bit / 8] |= (guint8) (0x80 >> (w->bit % 8));
}

/* ue(v), H.265 9.2. */
static void
put_ue(bit_writer *w, guint64 value)
{
    int bits = 0;

    while ((value + 1) >> (bits + 1))
        bits++;
    put_bits(w, 0, bits);
    put_bits(w, value + 1, bits + 1);
}

/* The bytes written so far, the last one's spare bits set to the RBSP stop bit and zeros. */
static gsize
finish(bit_writer *w)
{
    put_bits(w, 1, 1);
    return (w->bit + 7) / 8;
}

/* An SPS NAL unit as an encoder writes it: a 0x03 put after every two zero bytes that come
 * before a byte of 0 to 3 (H.265 7.4.2), into `out`; its length. */
static gsize
with_emulation_prevention(const guint8 *rbsp, gsize len, guint8 *out)
{
    gsize n = 0;
    int zeros = 0;

    out[n++] = 33 << 1; /* nal_unit_type SPS, layer 0 */
    out[n++] = 1;       /* temporal id + 1 */
    for (gsize i = 0; i < len; i++) {
        if (zeros == 2 && rbsp[i] <= 3) {
            out[n++] = 3;
            zeros = 0;
        }
        out[n++] = rbsp[i];
        zeros = rbsp[i] == 0 ? zeros + 1 : 0;
    }
    return n;
}

static gboolean
has_emulation_prevention(const guint8 *nal, gsize len)
{
    for (gsize i = 2; i + 2 < len; i++)
        if (nal[i] == 0 && nal[i + 1] == 0 && nal[i + 2] == 3)
            return TRUE;
    return FALSE;
}

/* An SPS's payload up to a little past its size (the rest is not read): `sub_layers` extra
 * temporal layers, each with its profile and level; the general profile's compatibility
 * flags `compatible` (0 makes long runs of zero bytes). */
static gsize
write_sps(guint8 *nal, guint64 width, guint64 height, int sub_layers, guint32 compatible)
{
    bit_writer w = { { 0 }, 0 };

    put_bits(&w, 0, 4);          /* sps_video_parameter_set_id */
    put_bits(&w, (guint64) sub_layers, 3);
    put_bits(&w, 1, 1);          /* sps_temporal_id_nesting_flag */
    put_bits(&w, 1, 8);          /* profile space, tier, general_profile_idc 1 (Main) */
    put_bits(&w, compatible, 32);
    put_bits(&w, compatible ? 0xb : 0, 4); /* progressive, interlaced, non-packed, frame-only */
    put_bits(&w, compatible ? 0x11111111111 : 0, 44); /* constraint flags */
    put_bits(&w, 90, 8);         /* general_level_idc */
    for (int i = 0; i < sub_layers; i++)
        put_bits(&w, 3, 2);      /* sub-layer profile and level present */
    if (sub_layers > 0)
        put_bits(&w, 0, 2 * (8 - sub_layers));
    for (int i = 0; i < sub_layers; i++) {
        put_bits(&w, 1, 8);
        put_bits(&w, compatible, 32);
        put_bits(&w, 0, 48);
        put_bits(&w, 90, 8);
    }
    put_ue(&w, 0);               /* sps_seq_parameter_set_id */
    put_ue(&w, 1);               /* chroma_format_idc: 4:2:0 */
    put_ue(&w, width);
    put_ue(&w, height);
    put_bits(&w, 1, 1);          /* conformance_window_flag */
    for (int i = 0; i < 4; i++)
        put_ue(&w, 2);
    return with_emulation_prevention(w.bytes, finish(&w), nal);
}

/* ---- HEVC ----------------------------------------------------------------------------- */

Test(heif_frames, reads_an_sps_without_emulation_prevention)
{
    guint8 nal[600];
    gsize len = write_sps(nal, 4032, 3024, 0, 0x70707070);
    gal_coded_size size = { 0, 0 };

    cr_assert(!has_emulation_prevention(nal, len), "the case needs an SPS without 0x000003");
    cr_assert_eq(gal__hevc_sps_size(nal, len, &size), 0);
    cr_expect_eq(size.width, 4032);
    cr_expect_eq(size.height, 3024);
}

/* All-zero flags make runs of zero bytes, so the encoder put 0x03s in: read as payload, they
 * would shift every field after them. */
Test(heif_frames, reads_an_sps_past_its_emulation_prevention_bytes)
{
    guint8 nal[600];
    gsize len = write_sps(nal, 18761, 21760, 0, 0);
    gal_coded_size size = { 0, 0 };

    cr_assert(has_emulation_prevention(nal, len));
    cr_assert_eq(gal__hevc_sps_size(nal, len, &size), 0);
    cr_expect_eq(size.width, 18761);
    cr_expect_eq(size.height, 21760);
}

/* Temporal sub-layers each carry a profile and level in the SPS, before the size. */
Test(heif_frames, reads_an_sps_of_several_temporal_layers)
{
    guint8 nal[600];
    gal_coded_size size = { 0, 0 };

    for (int layers = 1; layers <= 6; layers++) {
        gsize len = write_sps(nal, 512 + (guint64) layers, 64 * (guint64) layers, layers,
            layers % 2 ? 0 : 0x70707070);

        cr_assert_eq(gal__hevc_sps_size(nal, len, &size), 0, "%d layers", layers);
        cr_expect_eq(size.width, 512 + (guint64) layers, "%d layers", layers);
        cr_expect_eq(size.height, 64 * (guint64) layers, "%d layers", layers);
    }
}

Test(heif_frames, refuses_an_sps_cut_short_and_a_unit_that_is_no_sps)
{
    guint8 nal[600];
    gsize len = write_sps(nal, 4032, 3024, 0, 0x70707070);
    gal_coded_size size;

    /* 2 + 1 + 12 bytes: the profile and level, no size yet. */
    cr_expect_eq(gal__hevc_sps_size(nal, 15, &size), -1);
    cr_expect_eq(gal__hevc_sps_size(nal, 1, &size), -1);
    nal[0] = 34 << 1; /* a PPS */
    cr_expect_eq(gal__hevc_sps_size(nal, len, &size), -1);
}

/* The bytes of the first box of `type` in a file's bytes (its payload, after the header). */
static const guint8 *
payload_of(const guint8 *file, gsize len, const char *type, gsize *payload_len)
{
    for (gsize at = 4; at + 4 <= len; at++)
        if (memcmp(file + at, type, 4) == 0) {
            gsize size = (gsize) file[at - 4] << 24 | file[at - 3] << 16 | file[at - 2] << 8 |
                file[at - 1];

            cr_assert(size >= 8 && at - 4 + size <= len);
            *payload_len = size - 8;
            return file + at + 4;
        }
    cr_assert_fail("no %s box", type);
    return NULL;
}

/* x265, through libheif, codes a 201x121 picture as whole 8-pixel blocks, cropped back. */
Test(heif_frames, reads_the_sps_libheifs_encoder_wrote)
{
    g_autofree char *dir = gal_test_tmpdir("heif-frames-sps");
    g_autofree char *path = g_build_filename(dir, "a.heic", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(201, 121);
    g_autofree char *file = NULL;
    const guint8 *hvcc;
    gsize len, hvcc_len, at = 23;
    int sps = 0;

    gal_test_write_heic_turned(path, picture, 8, 1);
    file = gal_test_read_bytes(path, &len);
    hvcc = payload_of((const guint8 *) file, len, "hvcC", &hvcc_len);
    cr_assert(hvcc_len > 23);
    for (int array = 0; array < hvcc[22]; array++) {
        int count = hvcc[at + 1] << 8 | hvcc[at + 2];

        at += 3;
        for (int k = 0; k < count; k++) {
            gsize nal_len = (gsize) (hvcc[at] << 8 | hvcc[at + 1]);
            gal_coded_size size;

            at += 2;
            cr_assert_leq(at + nal_len, hvcc_len);
            if ((hvcc[at] >> 1 & 0x3f) == 33) {
                cr_assert_eq(gal__hevc_sps_size(hvcc + at, nal_len, &size), 0);
                cr_expect_eq(size.width, 208);
                cr_expect_eq(size.height, 128);
                sps++;
            }
            at += nal_len;
        }
    }
    cr_expect_eq(sps, 1);
}

/* ---- AV1 ------------------------------------------------------------------------------ */

/* A still picture's sequence header, reduced (AV1 5.5.1): profile, still, reduced, level,
 * the bits of each size, the sizes less 1. */
Test(heif_frames, reads_a_reduced_av1_sequence_header)
{
    bit_writer w = { { 0 }, 0 };
    gal_coded_size size = { 0, 0 };
    gsize len;

    put_bits(&w, 0, 3);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 1);
    put_bits(&w, 12, 5);
    put_bits(&w, 15, 4);
    put_bits(&w, 14, 4);
    put_bits(&w, 18761 - 1, 16);
    put_bits(&w, 8191 - 1, 15);
    len = finish(&w);
    cr_assert_eq(gal__av1_sequence_size(w.bytes, len, &size), 0);
    cr_expect_eq(size.width, 18761);
    cr_expect_eq(size.height, 8191);
    cr_expect_eq(gal__av1_sequence_size(w.bytes, 3, &size), -1);
}

/* A full header: timing and decoder model information, two operating points, each with its
 * own parameters and display delay, all before the size. */
Test(heif_frames, reads_an_av1_sequence_header_with_timing_and_operating_points)
{
    bit_writer w = { { 0 }, 0 };
    gal_coded_size size = { 0, 0 };

    put_bits(&w, 0, 3);
    put_bits(&w, 0, 1);
    put_bits(&w, 0, 1);
    put_bits(&w, 1, 1);          /* timing_info_present_flag */
    put_bits(&w, 1001, 32);
    put_bits(&w, 60000, 32);
    put_bits(&w, 1, 1);          /* equal_picture_interval */
    put_ue(&w, 4);               /* uvlc: num_ticks_per_picture_minus_1, as ue(v) */
    put_bits(&w, 1, 1);          /* decoder_model_info_present_flag */
    put_bits(&w, 9, 5);          /* buffer_delay_length_minus_1: 10-bit delays */
    put_bits(&w, 1, 32);
    put_bits(&w, 0, 5);
    put_bits(&w, 0, 5);
    put_bits(&w, 1, 1);          /* initial_display_delay_present_flag */
    put_bits(&w, 1, 5);          /* two operating points */
    for (int i = 0; i < 2; i++) {
        put_bits(&w, 0x103, 12);
        put_bits(&w, 9, 5);      /* seq_level_idx over 7: a tier bit */
        put_bits(&w, 1, 1);
        put_bits(&w, 1, 1);      /* decoder_model_present_for_this_op */
        put_bits(&w, 300, 10);
        put_bits(&w, 200, 10);
        put_bits(&w, 0, 1);
        put_bits(&w, 1, 1);      /* initial_display_delay_present_for_this_op */
        put_bits(&w, 3, 4);
    }
    put_bits(&w, 11, 4);
    put_bits(&w, 11, 4);
    put_bits(&w, 4032 - 1, 12);
    put_bits(&w, 3024 - 1, 12);
    cr_assert_eq(gal__av1_sequence_size(w.bytes, finish(&w), &size), 0);
    cr_expect_eq(size.width, 4032);
    cr_expect_eq(size.height, 3024);
}

/* ---- a file's frames against its declared sizes --------------------------------------- */

static int
check_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    int failed;

    cr_assert(fd >= 0 && fstat(fd, &st) == 0, "%s", path);
    vips_error_clear();
    failed = gal__heif_frames_check(fd, st.st_size);
    close(fd);
    return failed;
}

Test(heif_frames, passes_honest_heics_and_refuses_one_coding_more_than_it_declares)
{
    g_autofree char *dir = gal_test_tmpdir("heif-frames-check");
    g_autofree char *honest = g_build_filename(dir, "honest.heic", NULL);
    g_autofree char *grid = g_build_filename(dir, "grid.heic", NULL);
    g_autofree char *lying = g_build_filename(dir, "lying.heic", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(640, 400);

    gal_test_write_heic(honest, picture, picture, 160);
    cr_expect_eq(check_file(honest), 0, "%s", vips_error_buffer());
    gal_test_write_heic_grid(grid, picture, 256, 10);
    cr_expect_eq(check_file(grid), 0, "%s", vips_error_buffer());
    /* 640 is 10 blocks of 64: 704 would be one too many, 641 rounds up to 704. */
    gal_test_write_heic_declaring(lying, picture, 8, 577, 400);
    cr_expect_eq(check_file(lying), 0, "%s", vips_error_buffer());
    gal_test_rewrite_ispe(lying, 0, 576, 400);
    cr_assert_eq(check_file(lying), -1);
    cr_expect(strstr(vips_error_buffer(),
        "its HEVC stream codes a 640x400 frame, larger than the 576x400 it declares"), "%s",
        vips_error_buffer());
}

/* dav1d allocates the frame an AV1 sequence header allows, as libde265 an SPS's. */
Test(heif_frames, refuses_an_avif_coding_more_than_it_declares)
{
    g_autofree char *dir = gal_test_tmpdir("heif-frames-avif");
    g_autofree char *path = g_build_filename(dir, "lying.avif", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(640, 400);

    cr_assert_eq(vips_heifsave(picture, path, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                     "Q", 60, "effort", 0, NULL),
        0, "%s", vips_error_buffer());
    cr_expect_eq(check_file(path), 0, "%s", vips_error_buffer());
    gal_test_rewrite_ispe(path, 0, 64, 48);
    cr_assert_eq(check_file(path), -1);
    cr_expect(strstr(vips_error_buffer(),
        "its AV1 stream codes a 640x400 frame, larger than the 64x48 it declares"), "%s",
        vips_error_buffer());
}

/* A grid's tiles each fit their own declared size, but code far more than the whole photo
 * declares: the run admitted the photo by that (a tile over a megapixel in a 64x48 photo). */
Test(heif_frames, refuses_a_grid_whose_tiles_code_more_than_the_photo_it_declares)
{
    g_autofree char *dir = gal_test_tmpdir("heif-frames-grid");
    g_autofree char *path = g_build_filename(dir, "grid.heic", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(1200, 1100);

    gal_test_write_heic_grid(path, picture, 1100, 8);
    cr_expect_eq(check_file(path), 0, "%s", vips_error_buffer());
    gal_test_rewrite_ispe(path, 0, 64, 48);
    cr_assert_eq(check_file(path), -1);
    cr_expect(strstr(vips_error_buffer(),
        "its HEVC stream codes a 1104x1104 frame, larger than the 64x48 photo it declares"),
        "%s", vips_error_buffer());
}

static guint32
get32(const guint8 *p)
{
    return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

static void
set32(guint8 *p, guint32 v)
{
    p[0] = (guint8) (v >> 24), p[1] = (guint8) (v >> 16), p[2] = (guint8) (v >> 8);
    p[3] = (guint8) v;
}

/* The SPS NAL unit in the hvcC of a HEIC's bytes. */
static GBytes *
sps_of(const guint8 *file, gsize len)
{
    gsize hvcc_len, at = 23;
    const guint8 *hvcc = payload_of(file, len, "hvcC", &hvcc_len);

    for (int array = 0; array < hvcc[22]; array++) {
        int count = hvcc[at + 1] << 8 | hvcc[at + 2];

        at += 3;
        for (int k = 0; k < count; k++) {
            gsize nal_len = (gsize) (hvcc[at] << 8 | hvcc[at + 1]);

            if ((hvcc[at + 2] >> 1 & 0x3f) == 33)
                return g_bytes_new(hvcc + at + 2, nal_len);
            at += 2 + nal_len;
        }
    }
    cr_assert_fail("no SPS");
    return NULL;
}

/* libde265 takes an SPS wherever the stream has one: a file whose decoder configuration
 * (hvcC) is honest, but whose image data starts with an SPS of a larger frame, is refused
 * too. The SPS comes from a HEIC of 1280x800; it goes first in the item's data, as a NAL unit
 * with its 4-byte size, the item's extent and the mdat box grown to hold it (libheif writes
 * one item, iloc version 0 with 4-byte offsets, lengths and base offset, the mdat last). */
Test(heif_frames, refuses_a_larger_frame_coded_in_the_items_data)
{
    g_autofree char *dir = gal_test_tmpdir("heif-frames-data");
    g_autofree char *path = g_build_filename(dir, "a.heic", NULL);
    g_autofree char *donor = g_build_filename(dir, "larger.heic", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(640, 400);
    g_autoptr(VipsImage) larger = gal_test_gradient(1280, 800);
    g_autoptr(GBytes) sps = NULL;
    g_autoptr(GByteArray) forged = g_byte_array_new();
    g_autofree char *file = NULL;
    g_autofree char *donor_file = NULL;
    g_autoptr(GError) error = NULL;
    const guint8 *iloc, *sps_bytes;
    gsize len, donor_len, iloc_len, sps_len;
    guint32 base, mdat_at;
    guint8 size[4];

    gal_test_write_heic_turned(path, picture, 8, 1);
    gal_test_write_heic_turned(donor, larger, 8, 1);
    cr_expect_eq(check_file(path), 0, "%s", vips_error_buffer());
    file = gal_test_read_bytes(path, &len);
    donor_file = gal_test_read_bytes(donor, &donor_len);
    sps = sps_of((const guint8 *) donor_file, donor_len);
    sps_bytes = g_bytes_get_data(sps, &sps_len);

    iloc = payload_of((const guint8 *) file, len, "iloc", &iloc_len);
    /* Version and flags, the field sizes, one item (id, data reference), its base offset,
     * one extent (offset, length). */
    cr_assert(iloc_len >= 26 && iloc[0] == 0 && iloc[4] == 0x44 && iloc[5] >> 4 == 4);
    cr_assert(iloc[6] == 0 && iloc[7] == 1 && iloc[16] == 0 && iloc[17] == 1, "one item");
    base = get32(iloc + 12) + get32(iloc + 18);
    mdat_at = (guint32) ((const guint8 *) payload_of((const guint8 *) file, len, "mdat",
                             &iloc_len) - (const guint8 *) file) - 8;
    cr_assert(base > mdat_at && base <= len);
    set32((guint8 *) file + (iloc - (const guint8 *) file) + 22,
        get32(iloc + 22) + 4 + (guint32) sps_len);
    set32((guint8 *) file + mdat_at, get32((const guint8 *) file + mdat_at) + 4 +
        (guint32) sps_len);
    set32(size, (guint32) sps_len);
    g_byte_array_append(forged, (const guint8 *) file, base);
    g_byte_array_append(forged, size, 4);
    g_byte_array_append(forged, sps_bytes, (guint) sps_len);
    g_byte_array_append(forged, (const guint8 *) file + base, (guint) (len - base));
    cr_assert(g_file_set_contents(path, (const char *) forged->data, forged->len, &error));

    cr_assert_eq(check_file(path), -1);
    cr_expect(strstr(vips_error_buffer(),
        "its HEVC stream codes a 1280x800 frame, larger than the 640x400 it declares"), "%s",
        vips_error_buffer());
}

/* A thumbnail is decoded by its own load (decode.c, gal__photo_load_thumbnail) wherever it
 * covers the output: one that codes more than it declares is refused as the photo would be. */
Test(heif_frames, refuses_a_thumbnail_coding_more_than_it_declares)
{
    g_autofree char *dir = gal_test_tmpdir("heif-frames-thumb");
    g_autofree char *path = g_build_filename(dir, "thumb.heic", NULL);
    g_autoptr(VipsImage) picture = gal_test_gradient(640, 400);

    gal_test_write_heic(path, picture, picture, 320);
    cr_expect_eq(check_file(path), 0, "%s", vips_error_buffer());
    gal_test_rewrite_ispe(path, 1, 16, 10);
    cr_assert_eq(check_file(path), -1);
    cr_expect(strstr(vips_error_buffer(),
        "its HEVC stream codes a 320x200 frame, larger than the 16x10 it declares"), "%s",
        vips_error_buffer());
}
