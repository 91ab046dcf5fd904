/* The partition of sharded runs: fixed, balanced, and stable as photos are
 * added or shards are added. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "shard.h"

/* Pinned values: the partition is a promise to users (shard 3 of a Slurm
 * array means the same photos after an upgrade), so any change to the
 * hash must show up here, not in a production job. */
Test(shard, fixed_values)
{
    static const struct {
        const char *rel;
        int of2, of4, of1000;
    } pinned[] = {
        { "IMG_0001.jpg", 1, 4, 424 },
        { "2024/05/IMG_0002.jpg", 2, 2, 626 },
        { "Pyongyang-marathon-01.jpg", 2, 2, 248 },
        { "a", 2, 3, 164 },
    };

    for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
        cr_expect_eq(gal__shard_of(pinned[i].rel, 1), 1);
        cr_expect_eq(gal__shard_of(pinned[i].rel, 2), pinned[i].of2, "%s", pinned[i].rel);
        cr_expect_eq(gal__shard_of(pinned[i].rel, 4), pinned[i].of4, "%s", pinned[i].rel);
        cr_expect_eq(gal__shard_of(pinned[i].rel, 1000), pinned[i].of1000, "%s", pinned[i].rel);
    }
}

Test(shard, balanced)
{
    enum { PHOTOS = 100000, SHARDS = 8 };
    int counts[SHARDS + 1] = { 0 };
    char name[64];

    for (int i = 0; i < PHOTOS; i++) {
        int k;

        snprintf(name, sizeof(name), "trip/day%02d/IMG_%05d.jpg", i % 30, i);
        k = gal__shard_of(name, SHARDS);
        cr_assert(k >= 1 && k <= SHARDS, "shard %d of %d", k, SHARDS);
        counts[k]++;
    }
    /* A fair share each, within 3% (the binomial spread is about 1%). */
    for (int k = 1; k <= SHARDS; k++)
        cr_expect(counts[k] > PHOTOS / SHARDS * 0.97 && counts[k] < PHOTOS / SHARDS * 1.03,
            "shard %d has %d of %d photos", k, counts[k], PHOTOS);
}

/* From n to n + 1 shards, a photo either stays or moves to the new shard;
 * about 1 / (n + 1) of them move. */
Test(shard, growing_moves_few)
{
    enum { PHOTOS = 20000 };
    char name[64];

    for (int n = 1; n < 12; n++) {
        int moved = 0;

        for (int i = 0; i < PHOTOS; i++) {
            int before, after;

            snprintf(name, sizeof(name), "IMG_%05d.JPG", i);
            before = gal__shard_of(name, n);
            after = gal__shard_of(name, n + 1);
            if (before != after) {
                cr_assert_eq(after, n + 1, "%s moved from %d to %d, not to the new shard", name,
                    before, after);
                moved++;
            }
        }
        cr_expect(moved > PHOTOS / (n + 1) * 0.9 && moved < PHOTOS / (n + 1) * 1.1,
            "%d to %d shards moved %d of %d photos", n, n + 1, moved, PHOTOS);
    }
}
