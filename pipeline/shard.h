/* shard.h: which shard of a sharded run (--shard K/N) a photo belongs to. */
#ifndef GAL_SHARD_H
#define GAL_SHARD_H

#include <glib.h>

/* The shard (1..n) of the photo at `rel`, its path within its input
 * folder: a pure function of the path, so shard K means the same photos
 * on every host and every retry. A jump consistent hash of the path's
 * FNV-1a: photos added later do not move the others, and going from n
 * to n + 1 shards moves only the 1 / (n + 1) of them the new shard takes. */
int gal__shard_of(const char *rel, int n);

#endif /* GAL_SHARD_H */
