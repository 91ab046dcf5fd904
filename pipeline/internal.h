/* internal.h: what every pipeline source shares: GLib, libvips, the
 * cleanups g_autoptr needs for libvips' types, and gallop.h. Each module
 * has a header of its own for the rest; cmd/ never includes any of them. */
#ifndef GAL_INTERNAL_H
#define GAL_INTERNAL_H

#include <glib.h>
#include <vips/vips.h>

#include "gallop.h"

/* libvips declares g_autoptr cleanups for its types only from 8.16 on. */
#if VIPS_MAJOR_VERSION == 8 && VIPS_MINOR_VERSION < 16
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VipsImage, g_object_unref)
#endif

static inline void
gal__array_double_unref(VipsArrayDouble *array)
{
    vips_area_unref(VIPS_AREA(array));
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VipsArrayDouble, gal__array_double_unref)

static inline void
gal__array_int_unref(VipsArrayInt *array)
{
    vips_area_unref(VIPS_AREA(array));
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VipsArrayInt, gal__array_int_unref)

#define GAL_FREE(p) G_STMT_START { g_free(p); (p) = NULL; } G_STMT_END

#endif /* GAL_INTERNAL_H */
