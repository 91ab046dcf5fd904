/* fuzz_iptc: the IPTC-IIM reader (Caption-Abstract, raw or inside
 * Photoshop's 8BIM resources) on any bytes, as a photo's IPTC blob. A
 * caption it finds is UTF-8 text. */
#include "captions.h"
#include "embedded.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autofree char *caption = gal__iptc_caption(data, size);

    gsize out_len = 0, again_len = 0;
    g_autofree guint8 *out = gal__iptc_without_location(data, size, &out_len);

    fuzz_check(!caption || g_utf8_validate(caption, -1, NULL));
    if (out) {
        g_autofree char *kept = gal__iptc_caption(out, out_len);
        g_autofree guint8 *again = gal__iptc_without_location(out, out_len, &again_len);

        /* The caption stays, and nothing more goes the second time. */
        fuzz_check(!caption || (kept && strcmp(caption, kept) == 0));
        fuzz_check(again && again_len == out_len && memcmp(again, out, out_len) == 0);
    }
    if (fuzz_verbose())
        fprintf(stderr, "  caption: %s\n", caption ? caption : "(none)");
    return 0;
}
