/* recipe.h: an output's recipe: the effective preset's key lines, their
 * digest, and how two recipes differ. */
#ifndef GAL_RECIPE_H
#define GAL_RECIPE_H

#include "preset.h"

/* The effective preset as "key=value" lines (stages, then output; keys
 * that only choose inputs or output locations left out), the value of a
 * `file` key followed by the SHA-256 of the file: what an output depends
 * on. New array of new strings. */
GPtrArray *gal__preset_keys(const gal_preset *preset);
/* SHA-256 of the lines, hex into `hex` (65 bytes). */
void gal__keys_digest(GPtrArray *keys, char *hex);
/* "output.quality 82 -> 90, resize.width 1080 -> 2048"; `before` may be
 * NULL (unknown). New string. */
char *gal__keys_diff(GPtrArray *before, GPtrArray *now);

#endif /* GAL_RECIPE_H */
