/* node.c: the located node tree a preset is parsed into, and the key-by-key
 * merge that `extends` and `--set` are built on. No YAML here: preset.c
 * makes the nodes, schema.c reads them. */
#include <string.h>

#include "internal.h"
#include "error.h"
#include "node.h"

static void
node_free_ptr(gpointer p)
{
    gal__node_free(p);
}

gal_node *
gal__node_new(gal_node_kind kind, const gal_loc *loc)
{
    gal_node *node = g_new0(gal_node, 1);

    node->kind = kind;
    if (loc)
        node->loc = *loc;
    if (kind != GAL_NODE_SCALAR)
        node->items = g_ptr_array_new_with_free_func(node_free_ptr);
    if (kind == GAL_NODE_MAP)
        node->keys = g_ptr_array_new_with_free_func(node_free_ptr);
    return node;
}

gal_node *
gal__node_new_scalar(const char *text, const gal_loc *loc)
{
    gal_node *node = gal__node_new(GAL_NODE_SCALAR, loc);

    node->text = g_strdup(text);
    return node;
}

void
gal__node_free(gal_node *node)
{
    if (!node)
        return;
    g_free(node->text);
    if (node->items)
        g_ptr_array_free(node->items, TRUE);
    if (node->keys)
        g_ptr_array_free(node->keys, TRUE);
    g_free(node);
}

gal_node *
gal__node_copy(const gal_node *node)
{
    gal_node *copy = gal__node_new(node->kind, &node->loc);

    copy->text = g_strdup(node->text);
    copy->is_null = node->is_null;
    for (guint i = 0; node->items && i < node->items->len; i++)
        g_ptr_array_add(copy->items, gal__node_copy(node->items->pdata[i]));
    for (guint i = 0; node->keys && i < node->keys->len; i++)
        g_ptr_array_add(copy->keys, gal__node_copy(node->keys->pdata[i]));
    return copy;
}

static int
map_find(const gal_node *map, const char *key)
{
    if (!map || map->kind != GAL_NODE_MAP)
        return -1;
    for (guint i = 0; i < map->keys->len; i++) {
        const gal_node *k = map->keys->pdata[i];

        if (strcmp(k->text, key) == 0)
            return (int) i;
    }
    return -1;
}

gal_node *
gal__node_get(const gal_node *map, const char *key)
{
    int i = map_find(map, key);

    return i < 0 ? NULL : map->items->pdata[i];
}

const gal_node *
gal__node_key(const gal_node *map, const char *key)
{
    int i = map_find(map, key);

    return i < 0 ? NULL : map->keys->pdata[i];
}

void
gal__node_set(gal_node *map, gal_node *key_node, gal_node *value)
{
    int i = map_find(map, key_node->text);

    if (i < 0) {
        g_ptr_array_add(map->keys, key_node);
        g_ptr_array_add(map->items, value);
        return;
    }
    gal__node_free(map->keys->pdata[i]);
    gal__node_free(map->items->pdata[i]);
    map->keys->pdata[i] = key_node;
    map->items->pdata[i] = value;
}

void
gal__node_remove(gal_node *map, const char *key)
{
    int i = map_find(map, key);

    if (i < 0)
        return;
    g_ptr_array_remove_index(map->keys, i);
    g_ptr_array_remove_index(map->items, i);
}

void
gal__node_merge(gal_node *base, gal_node *over)
{
    g_assert(base->kind == GAL_NODE_MAP && over->kind == GAL_NODE_MAP);

    while (over->keys->len > 0) {
        gal_node *key = g_ptr_array_steal_index(over->keys, 0);
        gal_node *value = g_ptr_array_steal_index(over->items, 0);
        gal_node *old = gal__node_get(base, key->text);

        if (value->kind == GAL_NODE_SCALAR && value->is_null) {
            /* `key: ~` in a child resets what the parent set. */
            gal__node_remove(base, key->text);
            gal__node_free(key);
            gal__node_free(value);
        }
        else if (old && old->kind == GAL_NODE_MAP && value->kind == GAL_NODE_MAP) {
            gal__node_merge(old, value);
            gal__node_free(key);
        }
        else
            gal__node_set(base, key, value);
    }
    gal__node_free(over);
}
