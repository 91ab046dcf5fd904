/* bigarray.h: arrays of one element per photo, which at a million photos
 * are tens to hundreds of megabytes, allocated so that the kernel backs
 * them with huge pages where it can. A leaf module. */
#ifndef GAL_BIGARRAY_H
#define GAL_BIGARRAY_H

#include <glib.h>

/* `n` elements of `size` bytes, zeroed, freed with g_free, as g_new0. */
gpointer gal__big_array_new0(gsize n, gsize size);

#endif
