/* preset_tree.h: a preset file, its `extends` parents and the `--set`
 * overrides merged into one node tree (preset_tree.c), for preset.c. */
#ifndef GAL_PRESET_TREE_H
#define GAL_PRESET_TREE_H

#include <glib.h>

#include "error.h"
#include "node.h"

/* What one load of a preset carries. */
typedef struct gal_load_ctx {
    GStringChunk *strings; /* file names for locations; moves to the preset */
    const gal_load_options *opts;
    gal_errors *errs;
} gal_load_ctx;

/* The keys a preset may have at its top. */
extern const char *const gal__preset_top_keys[];

/* --follow-symlinks, for files the preset names. */
gboolean gal__load_follow_links(const gal_load_ctx *ctx);
/* `file` kept for the preset's lifetime (locations point into it). */
const char *gal__load_intern(gal_load_ctx *ctx, const char *file);

/* The preset at `path` (a regular file within the size limit) with its
 * parents merged under it; NULL with the errors added. `from` (may be
 * NULL) is the `extends` key that named it; `chain` the canonical paths
 * being loaded, against loops. */
gal_node *gal__preset_tree_load(gal_load_ctx *ctx, const char *path, const gal_loc *from,
    GPtrArray *chain);
/* The same from text in memory, `path` naming it. */
gal_node *gal__preset_tree_text(gal_load_ctx *ctx, const char *text, size_t len,
    const char *path, GPtrArray *chain);
/* Apply one --set KEY=VALUE to the tree; errors are added. */
void gal__preset_override(gal_load_ctx *ctx, gal_node *root, const char *arg);

/* A preset's output.dir stays beneath the folder of the preset file that
 * sets it: a relative path with no ".." part, not "~" or "$HOME", and no
 * symbolic link on the way out of that folder (unless --follow-symlinks).
 * A --set value (it has no line) is the user's own, like -o. Checked on
 * the tree before "~" is expanded; -1 with the error added at the value. */
int gal__check_output_dir(gal_load_ctx *ctx, const gal_node *root);

/* The preset a bare name means: NAME.yaml in the first folder of
 * opts->user_presets_dirs, then opts->presets_dir, that has one, passing
 * over the file `skip` (may be NULL: the preset that names it, so that a
 * preset may extend one of its own name further down). NULL: none. */
char *gal__find_preset(const gal_load_options *opts, const char *name, const char *skip);
/* Does an `extends` value name a file rather than a shipped preset? */
gboolean gal__looks_like_path(const char *ref);
/* "no preset file or shipped preset named ..." with a suggestion from
 * every folder of `opts`; -1. */
int gal__unknown_preset(gal_errors *errs, gal_code code, const gal_loc *loc, const char *key,
    const char *ref, const gal_load_options *opts);
/* A scalar file or folder value that starts with "~", "$HOME" or
 * "${HOME}" (then "/" or nothing) gets the home folder in their place;
 * -1 with the error added, at the value (`key` names it), when the home
 * folder is not known. Other values are left alone. */
int gal__expand_home(gal_load_ctx *ctx, gal_node *value, const char *key);

#endif /* GAL_PRESET_TREE_H */
