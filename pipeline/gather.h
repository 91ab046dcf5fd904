/* gather.h: the pages of a preset's many-input stage (contact sheets) made as their
 * items arrive. */
#ifndef GAL_GATHER_H
#define GAL_GATHER_H

#include "internal.h"
#include "outdir.h"
#include "preset.h"

typedef struct gal_gather gal_gather;

/* Plan the preset's gathering stage over `n` photos (ids 0..n-1, `paths`
 * borrowed): fills `order` with the ids in the stage's order, which is the
 * order to process them in. NULL (and `order` untouched) when the preset
 * has no gathering stage. `albums` (may be NULL) is each photo's folder
 * within its input folder ("" for none): when the stage makes pages per
 * album, every folder is an album (and those above it too, up to the
 * top), its album.yaml read here (main thread), photos are ordered album
 * by album (the top first, then each album's sub-albums in turn) and
 * each album has pages of its own, made once every photo is in.
 * Sorting by date takes each photo's time from
 * `times` (may be NULL), or where it holds GAL_SORT_TIME_UNKNOWN, from
 * its header. */
gal_gather *gal__gather_new(const gal_preset *preset, const char *const *paths,
    const char *const *albums, const gint64 *times, int n, const gal_out_dir *out_dir,
    int *order);

/* What a photo is sorted by for `sort: date`: its date taken (facts), in
 * seconds, else GAL_SORT_UNDATED. */
gint64 gal__sort_time(const gal_facts *facts, const char *path);

/* File names the way people sort them (contact-sheet `sort: name`):
 * without regard to case (`aqua` before `Yellow`) and numbers by value
 * (IMG_2 before IMG_10, 007 with 7). Names equal that way are ordered by
 * their bytes, so the order is total. strcmp-like result. Pure. */
int gal__natural_compare(const char *a, const char *b);
#define GAL_SORT_TIME_UNKNOWN G_MININT64
/* gal__sort_time of a photo without a date taken: after every date. */
#define GAL_SORT_UNDATED G_MAXINT64
/* 1-based place of photo `id` in the order; 0 without a gather. */
int gal__gather_index(const gal_gather *g, int id);
/* Photo `id` finished: its item (ownership taken), or NULL when it failed.
 * Thread-safe; the call that completes a page composes and writes it. */
void gal__gather_done(gal_gather *g, int id, VipsImage *item);
/* The names of the pages it plans, relative to the output folder, in
 * page order (new strings), for a dry run to list them. */
GPtrArray *gal__gather_page_names(gal_gather *g);
/* What a zip of the site (a gallery's album.zip) was when last made, as
 * its record keeps it: what it held (its about line zip_contents: the
 * SHA-256 of its entries, their files' SHA-256, its date and the zip
 * maker) and the file it was written as. */
typedef struct gal_kept_zip {
    char contents[65];
    gint64 size, mtime_ns;
    gal_sha256 sha256;
} gal_kept_zip;
#define GAL_ABOUT_ZIP_CONTENTS "zip_contents"
/* The site's zips as last made: name beneath the output folder ->
 * gal_kept_zip (the table taken). A zip that holds the same and is as
 * written is then left as it is, its files not read; the others are made.
 * Call before any item arrives. */
void gal__gather_keep_zips(gal_gather *g, GHashTable *kept);
/* Free, returning the pages' results (gal_photo_result, page order). */
GArray *gal__gather_free(gal_gather *g);

#endif /* GAL_GATHER_H */
