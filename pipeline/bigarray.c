/* bigarray.c: see bigarray.h.
 *
 * A large calloc is a fresh mapping of its own, whose pages are zero and
 * are only faulted in, a 4 KiB page at a time, as they are first written.
 * At a million photos the per-photo arrays (results, plans, inputs) are
 * 250 MB: 60,000 faults, each a trap, a page zeroed and a page-table
 * entry, and, in a virtual machine, often a fault in the host too (on the
 * 2-core VM of bench/scale, first writes to fresh memory ran at 3-4 ms a
 * MB with 4 KiB pages and 0.1 ms with 2 MiB ones). Asking for huge pages
 * where the kernel's transparent huge pages are on "madvise" (Debian's
 * default) takes one fault per 2 MiB, and fewer TLB misses after, when
 * the arrays are read in other orders than written. It is only advice: a
 * kernel without them, or with them off, gives small pages as before. */
#include <sys/mman.h>

#include "bigarray.h"

/* Below this, no 2 MiB-aligned stretch is worth asking for (and calloc
 * may take the memory from its heap, already faulted in). */
#define HUGE_PAGE (2u << 20)
#define WORTH_ADVISING (2 * HUGE_PAGE)

gpointer
gal__big_array_new0(gsize n, gsize size)
{
    gpointer array = g_malloc0_n(n, size);
    gsize bytes = n * size;   /* g_malloc0_n aborted on overflow */
    guintptr from = ((guintptr) array + HUGE_PAGE - 1) & ~(guintptr) (HUGE_PAGE - 1);
    guintptr to = ((guintptr) array + bytes) & ~(guintptr) (HUGE_PAGE - 1);

#ifdef MADV_HUGEPAGE
    /* Only the whole huge pages inside: the advice covers pages, and
     * the ends share theirs with whatever lies beside the array. */
    if (bytes >= WORTH_ADVISING && to > from)
        (void) madvise((void *) from, to - from, MADV_HUGEPAGE);
#endif
    return array;
}
