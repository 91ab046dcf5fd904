/* names.c: the words reports, logs and manifest parts use for a photo's
 * status and for why it was built (gallop.h). */
#include <glib.h>

#include "gallop.h"

const char *
gal_status_name(gal_photo_status status)
{
    switch (status) {
    case GAL_PHOTO_DONE: return "done";
    case GAL_PHOTO_FAILED: return "failed";
    case GAL_PHOTO_IGNORED: return "ignored";
    case GAL_PHOTO_PLANNED: return "planned";
    case GAL_PHOTO_UP_TO_DATE: return "up-to-date";
    case GAL_PHOTO_CANCELLED: return "cancelled";
    }
    return "unknown";
}

const char *
gal_why_name(gal_why why)
{
    static const char *const names[] = {
        [GAL_WHY_NONE] = "none",
        [GAL_WHY_UP_TO_DATE] = "up-to-date",
        [GAL_WHY_NEW] = "new",
        [GAL_WHY_FORCED] = "forced",
        [GAL_WHY_OTHER_INPUT] = "other-input",
        [GAL_WHY_INPUT_CHANGED] = "input-changed",
        [GAL_WHY_DEPENDENCY_CHANGED] = "dependency-changed",
        [GAL_WHY_PRESET_CHANGED] = "preset-changed",
        [GAL_WHY_VERSION_CHANGED] = "version-changed",
        [GAL_WHY_OUTPUT_MISSING] = "output-missing",
        [GAL_WHY_OUTPUT_MODIFIED] = "output-modified",
        [GAL_WHY_SHEET] = "contact-sheet",
    };

    return (unsigned) why < G_N_ELEMENTS(names) ? names[why] : "none";
}
