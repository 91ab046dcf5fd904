/* bigarray.c: see bigarray.h.
 *
 * Fresh memory is faulted in a page at a time as it is first written. At
 * a million photos the per-photo arrays (results, plans, inputs) are
 * 250 MB: 60,000 faults of 4 KiB pages, each a trap, a page zeroed and a
 * page-table entry, and, in a virtual machine, often a fault in the host
 * too (on the 2-core VM of bench/scale, first writes to fresh memory ran
 * at 3-4 ms a MB in 4 KiB pages and 0.1 ms in 2 MiB ones). Asking for
 * huge pages where the kernel's transparent huge pages are on "madvise"
 * (Debian's default) takes one fault per 2 MiB, and fewer TLB misses
 * after, when the arrays are read in other orders than written. It is
 * only advice: a kernel without them, or with them off, gives small
 * pages as before. */
#include <string.h>
#include <sys/mman.h>

#include "bigarray.h"

#define HUGE_PAGE ((gsize) 2 << 20)
/* Below this, no stretch of whole huge pages is worth asking for. */
#define WORTH_ADVISING (2 * HUGE_PAGE)

/* `bytes` not zeroed, the whole huge pages inside (when it is large
 * enough to hold any worth it) advised before any is written: the advice
 * covers pages, and the ends share theirs with whatever lies beside.
 * Whether malloc maps the memory afresh or reuses its own (it keeps
 * blocks up to 32 MB once it has freed one as large), no page of it is
 * written here, so none is faulted in small before. */
static gpointer
advised_alloc(gsize bytes)
{
    gpointer p = g_malloc(bytes);
    guintptr from = ((guintptr) p + HUGE_PAGE - 1) & ~(guintptr) (HUGE_PAGE - 1);
    guintptr to = ((guintptr) p + bytes) & ~(guintptr) (HUGE_PAGE - 1);

#ifdef MADV_HUGEPAGE
    if (bytes >= WORTH_ADVISING && to > from)
        (void) madvise((void *) from, to - from, MADV_HUGEPAGE);
#endif
    return p;
}

gpointer
gal__big_array_new0(gsize n, gsize size)
{
    gsize bytes;

    if (size && n > G_MAXSIZE / size)
        g_error("gallop: an array of %" G_GSIZE_FORMAT " elements of %" G_GSIZE_FORMAT
                " bytes overflows", n, size);
    bytes = MAX(n * size, 1);
    return memset(advised_alloc(bytes), 0, bytes);
}

void
gal__big_vector_init(gal_big_vector *v, gsize element)
{
    *v = (gal_big_vector) { NULL, 0, 0, element };
}

gpointer
gal__big_vector_push(gal_big_vector *v)
{
    guint8 *slot;

    if (v->len == v->room) {
        gsize room = MAX(v->room * 2, 1024);
        guint8 *data;

        if (room > G_MAXSIZE / v->element)
            g_error("gallop: a list of %" G_GSIZE_FORMAT " elements overflows", room);
        data = advised_alloc(room * v->element);
        if (v->len)
            memcpy(data, v->data, v->len * v->element);
        g_free(v->data);
        v->data = data;
        v->room = room;
    }
    slot = v->data + v->len++ * v->element;
    return memset(slot, 0, v->element);
}

gpointer
gal__big_vector_steal(gal_big_vector *v, gsize *len)
{
    gpointer data = v->data ? v->data : g_malloc(MAX(v->element, 1));

    *len = v->len;
    gal__big_vector_init(v, v->element);
    return data;
}
