/* fuzz_xmp: the XMP reader (dc:description) on any bytes, as a photo's
 * XMP blob. A caption it finds is UTF-8 text. The editor (xmp.c) on the
 * same bytes: what it removes is never the caption, and a packet it made
 * reads back (its contact details too). What a gallery takes of it per
 * photo (alt text, description, a focus point) is text and a point within
 * the photo. */
#include "captions.h"
#include "embedded.h"
#include "fuzz.h"
#include "xmp.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *caption = gal__xmp_description((const char *) data, size);

    gsize edited_len = 0;
    g_autofree char *edited = gal__xmp_without((const char *) data, size,
        GAL_XMP_CAMERA_RAW | GAL_XMP_LOCATION | GAL_XMP_PERSON, &edited_len);
    g_autoptr(GPtrArray) contact = g_ptr_array_new_with_free_func(g_free);

    gal_xmp_overrides own;

    fuzz_check(!caption || g_utf8_validate(caption, -1, NULL));
    /* A photo's alt text, description and focus point: text, and a point
     * within the photo. */
    gal__xmp_overrides((const char *) data, size, &own);
    fuzz_check(!own.alt || g_utf8_validate(own.alt, -1, NULL));
    fuzz_check(!own.description || g_utf8_validate(own.description, -1, NULL));
    fuzz_check(!own.has_focus || (own.focus_x >= 0 && own.focus_x <= 1 && own.focus_y >= 0 &&
        own.focus_y <= 1));
    gal__xmp_overrides_clear(&own);
    gal__xmp_contact((const char *) data, size, contact);
    fuzz_check(contact->len % 2 == 0);
    if (edited) {
        gsize again_len = 0;
        g_autofree char *again = gal__xmp_without(edited, edited_len, GAL_XMP_LOCATION,
            &again_len);
        g_autofree char *kept = gal__xmp_description(edited, edited_len);

        fuzz_check(again != NULL);
        /* The caption stays where both readers read the packet. */
        fuzz_check(!caption || !kept || strcmp(caption, kept) == 0);
    }
    if (fuzz_verbose())
        fprintf(stderr, "  caption: %s\n", caption ? caption : "(none)");
    return 0;
}
