/* tiff.h: a TIFF's 16- and 32-bit values in its byte order, for the few
 * places that walk a TIFF's directories before any library reads the
 * file (decode.c's sniffing, raw.c's layout check). The caller has
 * checked that the bytes are there. */
#ifndef GAL_TIFF_H
#define GAL_TIFF_H

#include <glib.h>

static inline guint32
gal__tiff_u16(const guint8 *p, gboolean big)
{
    return big ? (guint32) p[0] << 8 | p[1] : (guint32) p[1] << 8 | p[0];
}

static inline guint32
gal__tiff_u32(const guint8 *p, gboolean big)
{
    return big ? (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3]
               : (guint32) p[3] << 24 | (guint32) p[2] << 16 | (guint32) p[1] << 8 | p[0];
}

#endif
