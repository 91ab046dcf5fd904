/* Per-photo arrays come zeroed, and a large one asks the kernel for huge
 * pages over the whole 2 MiB pages inside it (bigarray.c says why). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "bigarray.h"

TestSuite(bigarray);

static gboolean
all_zero(const guint8 *bytes, gsize len)
{
    for (gsize i = 0; i < len; i++)
        if (bytes[i])
            return FALSE;
    return TRUE;
}

Test(bigarray, small_and_large_arrays_come_zeroed)
{
    gsize counts[] = { 1, 1000, 1000000 };

    for (guint c = 0; c < G_N_ELEMENTS(counts); c++) {
        guint8 *array = gal__big_array_new0(counts[c], 24);

        cr_assert_not_null(array);
        cr_expect(all_zero(array, counts[c] * 24), "%zu elements not zeroed", counts[c]);
        /* Every byte is the caller's. */
        memset(array, 0xab, counts[c] * 24);
        g_free(array);
    }
}

/* The VmFlags of the mapping that holds `at`, from /proc/self/smaps;
 * NULL when there is no such file. */
static char *
vm_flags_at(gconstpointer at)
{
    g_autofree char *smaps = NULL;
    g_auto(GStrv) lines = NULL;
    gboolean inside = FALSE;

    if (!g_file_get_contents("/proc/self/smaps", &smaps, NULL, NULL))
        return NULL;
    lines = g_strsplit(smaps, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        unsigned long from, to;

        if (sscanf(lines[i], "%lx-%lx ", &from, &to) == 2 && strchr(lines[i], '-') &&
            g_ascii_isxdigit(lines[i][0]))
            inside = (guintptr) at >= from && (guintptr) at < to;
        else if (inside && g_str_has_prefix(lines[i], "VmFlags:"))
            return g_strdup(lines[i]);
    }
    return NULL;
}

/* Transparent huge pages on "always" or "madvise": the advice is taken. */
static gboolean
huge_pages_can_be_advised(void)
{
    g_autofree char *mode = NULL;

    return g_file_get_contents("/sys/kernel/mm/transparent_hugepage/enabled", &mode, NULL,
               NULL) && !strstr(mode, "[never]");
}

Test(bigarray, a_large_array_is_advised_huge_pages)
{
    gsize bytes = 64u << 20;
    guint8 *array = gal__big_array_new0(bytes / 8, 8);
    /* A byte in its middle: a whole huge page surely lies around it. */
    g_autofree char *flags = vm_flags_at(array + bytes / 2);
    g_autofree char *small_flags = NULL;
    guint8 *small = gal__big_array_new0(100, 8);

    if (!huge_pages_can_be_advised() || !flags) {
        g_free(array);
        g_free(small);
        cr_skip_test("no transparent huge pages to advise on this kernel");
    }
    cr_expect(strstr(flags, " hg") != NULL, "64 MiB array not advised: %s", flags);
    /* A small one lies in memory shared with other allocations: left as it is. */
    small_flags = vm_flags_at(small);
    cr_expect(small_flags == NULL || strstr(small_flags, " hg") == NULL,
        "800 bytes advised: %s", small_flags);
    g_free(array);
    g_free(small);
}

/* Pushed one at a time past many growths (the last ones advised), every
 * element is where it was put, zeroed but for what was written. */
Test(bigarray, a_vector_keeps_every_element_through_its_growths)
{
    typedef struct {
        gsize index;
        char name[16];
    } element;
    gal_big_vector v;
    element *all;
    gsize n = 0, want = 300000;

    gal__big_vector_init(&v, sizeof(element));
    for (gsize i = 0; i < want; i++) {
        element *e = gal__big_vector_push(&v);

        cr_assert(all_zero((const guint8 *) e, sizeof *e), "slot %zu not zeroed", i);
        e->index = i;
        g_snprintf(e->name, sizeof e->name, "p%zu", i);
    }
    all = gal__big_vector_steal(&v, &n);
    cr_assert_eq(n, want);
    cr_expect_eq(v.len, 0, "the vector is empty after its elements are taken");
    for (gsize i = 0; i < n; i++) {
        char name[16];

        g_snprintf(name, sizeof name, "p%zu", i);
        cr_assert_eq(all[i].index, i, "element %zu moved", i);
        cr_assert_str_eq(all[i].name, name);
    }
    g_free(all);
    /* Nothing pushed: an empty array to free all the same. */
    all = gal__big_vector_steal(&v, &n);
    cr_expect_eq(n, 0);
    cr_expect_not_null(all);
    g_free(all);
}
