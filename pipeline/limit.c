/* limit.c: the values of limit.h. Each is generous for real photo sets
 * and small enough that a hostile file fails fast instead of filling
 * memory or blocking a run. */
#include "limit.h"

const gal_limits gal__limits = {
    .preset_bytes = 1 << 20,
    /* Four times what a file may hold: a preset at the file limit may
     * still alias its values three times over, and a real one (a few KiB
     * with a few anchored stage settings) is nowhere near. Checked before
     * each copy, so a refused document holds at most this much. */
    .preset_expanded_bytes = 4 << 20,
    .sidecar_bytes = 64 << 10,
    .table_bytes = 64 << 20,
    .export_bytes = 256 << 20,
    .font_bytes = 64 << 20,
    .logo_bytes = 64 << 20,
    .manifest_bytes = (gint64) 2 << 30,
    .logo_pixels = 4096 * 4096,
    .dependency_bytes = 256 << 20,
    .item_bytes = 64 << 20,
    .raw_bytes = (gint64) 1 << 30,
    .raw_pixels = 500e6,
    .heif_meta_bytes = 16 << 20,
};
