/* shard.c: the partition of a sharded run (shard.h). */
#include <stdint.h>

#include "shard.h"

/* FNV-1a, 64 bits: simple, fast on short strings, and fixed forever
 * (unlike GLib's string hash, which may change between versions, or a
 * seeded hash): a shard index must mean the same photos next year. */
static uint64_t
fnv1a64(const char *text)
{
    uint64_t h = 0xcbf29ce484222325u;

    for (const unsigned char *p = (const unsigned char *) text; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3u;
    }
    return h;
}

/* Lamping and Veach's jump consistent hash ("A Fast, Minimal Memory,
 * Consistent Hash Algorithm", 2014): the bucket a key ends in as buckets
 * are added one by one, each taking a fair share from the others. */
static int
jump_hash(uint64_t key, int buckets)
{
    int64_t bucket = -1, next = 0;

    while (next < buckets) {
        bucket = next;
        key = key * 2862933555777941757u + 1;
        next = (int64_t) ((double) (bucket + 1) * ((double) (1ll << 31) / (double) ((key >> 33) + 1)));
    }
    return (int) bucket;
}

int
gal__shard_of(const char *rel, int n)
{
    return n <= 1 ? 1 : jump_hash(fnv1a64(rel), n) + 1;
}
