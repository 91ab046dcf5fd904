/* fuzz_xmp: the XMP reader (dc:description) on any bytes, as a photo's
 * XMP blob. A caption it finds is UTF-8 text. */
#include "captions.h"
#include "embedded.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *caption = gal__xmp_description((const char *) data, size);

    fuzz_check(!caption || g_utf8_validate(caption, -1, NULL));
    if (fuzz_verbose())
        fprintf(stderr, "  caption: %s\n", caption ? caption : "(none)");
    return 0;
}
