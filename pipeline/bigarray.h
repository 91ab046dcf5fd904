/* bigarray.h: arrays of one element per photo, which at a million photos
 * are tens to hundreds of megabytes, allocated so that the kernel backs
 * them with huge pages where it can. A leaf module. */
#ifndef GAL_BIGARRAY_H
#define GAL_BIGARRAY_H

#include <glib.h>

/* `n` elements of `size` bytes, zeroed, freed with g_free, as g_new0. */
gpointer gal__big_array_new0(gsize n, gsize size);

/* An array grown one element at a time, whose count is not known ahead:
 * each growth is a big array (so no copy is made in small pages), and
 * room left over at the end is never written, so it costs no memory. */
typedef struct {
    guint8 *data;
    gsize len;        /* elements in it */
    gsize room;       /* elements it has room for */
    gsize element;    /* bytes an element */
} gal_big_vector;

void gal__big_vector_init(gal_big_vector *v, gsize element);
/* Room for one more at the end: `element` zeroed bytes, now counted. */
gpointer gal__big_vector_push(gal_big_vector *v);
/* The elements (never NULL), the caller's to g_free; `v` is empty after. */
gpointer gal__big_vector_steal(gal_big_vector *v, gsize *len);

#endif
