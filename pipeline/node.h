/* node.h: a preset as YAML parsed into located nodes (preset.c builds them, schema.c reads them). */
#ifndef GAL_NODE_H
#define GAL_NODE_H

#include <glib.h>

#include "error.h"

typedef enum gal_node_kind {
    GAL_NODE_SCALAR,
    GAL_NODE_MAP,
    GAL_NODE_SEQ,
} gal_node_kind;

/* A YAML node with its location. Scalars keep their text untyped: the
 * schema decides what they mean. `is_null` marks a plain `~`, `null` or
 * empty scalar, which resets a key to its default when merging. */
typedef struct gal_node {
    gal_node_kind kind;
    gal_loc loc;
    char *text;          /* SCALAR */
    gboolean is_null;    /* SCALAR */
    GPtrArray *keys;     /* MAP: gal_node * scalars (key text and location) */
    GPtrArray *items;    /* MAP values / SEQ items: gal_node * */
} gal_node;

gal_node *gal__node_new(gal_node_kind kind, const gal_loc *loc);
gal_node *gal__node_new_scalar(const char *text, const gal_loc *loc);
void gal__node_free(gal_node *node);
gal_node *gal__node_copy(const gal_node *node);
/* MAP helpers: the value for `key` (NULL if absent); set replaces or appends
 * and takes ownership of `key_node` and `value`. */
gal_node *gal__node_get(const gal_node *map, const char *key);
const gal_node *gal__node_key(const gal_node *map, const char *key);
void gal__node_set(gal_node *map, gal_node *key_node, gal_node *value);
void gal__node_remove(gal_node *map, const char *key);
/* Merge `over` into `base` key by key (maps recursively; anything else is
 * replaced; a null scalar removes the key). Takes ownership of `over`. */
void gal__node_merge(gal_node *base, gal_node *over);

#endif /* GAL_NODE_H */
