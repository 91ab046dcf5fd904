/* yamldoc.h: YAML text into located nodes (libyaml, yamldoc.c). */
#ifndef GAL_YAMLDOC_H
#define GAL_YAMLDOC_H

#include <stddef.h>

#include "node.h"

/* Parse YAML text into a node tree of any kind: NULL with the error added
 * to `errs` when it is not YAML; an empty document is a null scalar.
 * `file` (kept, not copied) names it in locations. A stream of more
 * than one document is an error at the second. */
gal_node *gal__yaml_document(const char *text, size_t len, const char *file, gal_errors *errs);

/* The same for a preset: an empty document is an empty mapping, and
 * anything but a mapping is an error. */
gal_node *gal__yaml_preset(const char *text, size_t len, const char *file, gal_errors *errs);

#endif /* GAL_YAMLDOC_H */
