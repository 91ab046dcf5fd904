/* recipe.h: an output's recipe: the effective preset's key lines, their
 * digest, and how two recipes differ. */
#ifndef GAL_RECIPE_H
#define GAL_RECIPE_H

#include "preset.h"

/* The effective preset as "key=value" lines (stages, then output; keys
 * that only choose inputs or output locations left out): what an output
 * depends on. A file the preset names is given by its content
 * ("watermark.image=sha256:..."), a captions table or export by its path
 * relative to the output folder `out_dir` (canonical), so that the lines
 * stay the same when the whole tree moves. New array of new strings. */
GPtrArray *gal__preset_keys(const gal_preset *preset, const char *out_dir);
/* A recipe line as an older gallop wrote it (a file by its absolute path,
 * then its SHA-256), as gal__preset_keys writes it now: how an output
 * folder made before is carried over. New string. */
char *gal__recipe_line_portable(const char *line, const char *out_dir);
/* SHA-256 of the lines, hex into `hex` (65 bytes). */
void gal__keys_digest(GPtrArray *keys, char *hex);
/* "output.quality 82 -> 90, resize.width 1080 -> 2048"; `before` may be
 * NULL (unknown). New string. */
char *gal__keys_diff(GPtrArray *before, GPtrArray *now);

#endif /* GAL_RECIPE_H */
