/* limit.h: every bound gallop puts on what it reads, in one place, as
 * libspng keeps its limits in one context. Presets, sidecars, tables,
 * exports and manifests come from elsewhere (shared presets, CI
 * checkouts), so each is read against a limit here; docs/report.md
 * ("Limits") lists them with the errors a user sees. A leaf module. */
#ifndef GAL_LIMIT_H
#define GAL_LIMIT_H

#include <glib.h>

typedef struct gal_limits {
    /* Files, in bytes. A caption is a few hundred characters (Instagram
     * allows 2,200): a much larger sidecar is not a caption. */
    gint64 preset_bytes;
    /* A preset as parsed, its aliases copied out: the bytes of its keys
     * and values. The file limit bounds what is written, this what it
     * expands to (an alias of a long string copies it). */
    gint64 preset_expanded_bytes;
    gint64 sidecar_bytes;
    gint64 table_bytes;
    gint64 export_bytes;     /* one posts_N.json of an Instagram export */
    gint64 font_bytes;
    gint64 logo_bytes;       /* a watermark image */
    gint64 manifest_bytes;
    /* A logo is decoded whole and kept as float RGBA, 16 bytes a pixel:
     * a raster logo with more pixels is refused, an SVG drawn no larger. */
    gint64 logo_pixels;
    /* Files an output depends on are hashed on every rerun: larger ones
     * count as changed rather than being read. */
    gint64 dependency_bytes;
    /* A contact-sheet item a shard kept (a thumbnail, lossless): read back
     * by the merge, which checks it against its record first. */
    gint64 item_bytes;
    /* A camera's raw photo is read whole into memory for libraw (the
     * largest, a 150 MP medium-format file, is some 300 MB), and its
     * sensor may have at most this many photosites: more is a hostile
     * header, refused before libraw allocates for it. */
    gint64 raw_bytes;
    double raw_pixels;
    /* A HEIF's meta box (its items, their properties and places) is read
     * whole to check its frames' sizes before decoding (heif_frames.h): a
     * phone's grid of 48 tiles has a few KiB. */
    gint64 heif_meta_bytes;
} gal_limits;

extern const gal_limits gal__limits;

#endif /* GAL_LIMIT_H */
