/* heif_frames.h: the frames a HEIF file (HEIC, AVIF) codes, their sizes
 * read from the streams' own headers (an HEVC sequence parameter set, an
 * AV1 sequence header) and checked against the sizes the file declares
 * (each image item's `ispe`), before any decoder sees the file. libde265
 * and dav1d allocate the frame a stream codes, whatever the file says: a
 * 1.5 KB HEIC that declared 64x48 and coded 18761x21760 took 2.4 GB in
 * libde265 before gallop could compare the sizes (issue 41), and libheif
 * 1.15 has no limits of its own (they came in 1.19). A leaf module: plain
 * bytes and reads of the photo's descriptor, no codec library. */
#ifndef GAL_HEIF_FRAMES_H
#define GAL_HEIF_FRAMES_H

#include <glib.h>

/* A coded frame's size in luma samples, as the decoder allocates it,
 * before any cropping. */
typedef struct gal_coded_size {
    guint64 width;
    guint64 height;
} gal_coded_size;

/* The coded size an HEVC SPS NAL unit (`nal`, `len` bytes from its
 * two-byte NAL header on, emulation-prevention bytes as they are in the
 * stream) declares: pic_width_in_luma_samples and pic_height_in_luma_samples
 * (ITU-T H.265 7.3.2.2.1). -1 when it is no SPS or ends before them. Pure. */
int gal__hevc_sps_size(const guint8 *nal, gsize len, gal_coded_size *out);

/* The largest frame an AV1 sequence header OBU's payload (`payload`, `len`
 * bytes, after the OBU header and size) allows: max_frame_width_minus_1 + 1
 * by max_frame_height_minus_1 + 1 (AV1 5.5.1); every frame of the sequence
 * is at most this. -1 when it ends before them. Pure. */
int gal__av1_sequence_size(const guint8 *payload, gsize len, gal_coded_size *out);

/* Check every coded image item of the HEIF file open at `fd` (`size`
 * bytes): each frame its stream codes, by every SPS or sequence header in
 * its decoder configuration (hvcC, av1C) and in its data, is at most its
 * declared size (ispe) rounded up to whole 64-pixel blocks. -1 with the
 * libvips error set ("its HEVC stream codes a 18761x21760 frame, larger
 * than the 64x48 it declares") when one is larger, or when the file's
 * boxes cannot be read far enough to tell (libheif would refuse such a
 * file too). Reads with pread: the descriptor's offset is left alone.
 * Thread-safe. */
int gal__heif_frames_check(int fd, gint64 size);

#endif /* GAL_HEIF_FRAMES_H */
