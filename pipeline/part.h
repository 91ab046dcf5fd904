/* part.h: a shard's part of the manifest (docs/scale-out.md): the records
 * of what one shard of a sharded run made, with each of its photos'
 * results, written by the shard and joined by gallop merge. A part is a
 * manifest file (.gallop-manifest.K-of-N.tsv) with three more kinds of
 * line: who wrote it, one result per photo, and "done" when the shard
 * finished. */
#ifndef GAL_PART_H
#define GAL_PART_H

#include "internal.h"
#include "manifest.h"

/* Who wrote a part, and with what. */
typedef struct gal_part_info {
    int shard, shards;
    char preset_digest[65];
    char *version;       /* gallop's */
    char *cwd;           /* the shard's working folder, absolute */
    char **inputs;       /* the photos and folders it was given, as given; may be empty */
    gboolean forced;     /* run with --force: the merge makes the pages again too */
    int n_results;       /* from the "done" line */
    gboolean done;       /* the shard finished (its last line) */
    /* Where its "shard" line starts (the byte, the line), after its
     * records: a merge reads its results again from there, not through
     * the records' three quarters of the file. */
    gint64 results_at;
    int results_line;
} gal_part_info;

void gal__part_info_clear(gal_part_info *info);

/* ".gallop-manifest.K-of-N.tsv". New string. */
char *gal__part_name(int shard, int shards);
/* Is `name` a part's file name? Which shard, of how many? */
gboolean gal__part_name_parse(const char *name, int *shard, int *shards);

/* The lines a part has beyond a manifest's, in order: the header... */
void gal__part_append_header(GString *out, const gal_part_info *info);
/* ...one result per photo of the shard: `rel_input` (the photo, relative
 * to the output folder, as the manifest names it), `rel_output` (NULL:
 * none), `in_digest` (the photo's digest, "" when not taken)... */
void gal__part_append_result(GString *out, const char *rel_input, const char *rel_output,
    const char *in_digest, const gal_photo_result *result);
/* ...and, once the shard finished, "done" with the number of results. */
void gal__part_append_done(GString *out, int n_results);

/* A photo's result as a part records it. */
typedef struct gal_part_result {
    /* input and output NULL; strings owned (borrowed from the line in
     * what a gal_part_result_fn is given) */
    gal_photo_result result;
    gal_photo_notes notes;   /* result.notes, when it has any */
    char *rel_output;        /* NULL: none */
    char in_digest[65];      /* the photo's digest; "": not taken */
} gal_part_result;

/* A copy of `r` (its strings and error too) as a part records it. New. */
gal_part_result *gal__part_result_new(const gal_photo_result *r, const char *rel_output,
    const char *in_digest);
void gal__part_result_free(gal_part_result *r);

/* Read the part `name` in `dir`: its records (the manifest returned),
 * its header into `info` and its results into `results` (rel input ->
 * gal_part_result, owned), or, with `results` NULL, only check and count
 * them. `err` is set, naming the line, when the part is damaged (a photo
 * with two results is); a part cut short before "done" is not damaged,
 * only not done. `tails_in_file`: its records' tails stay in the file
 * (a merge's parts, manifest.h). */
gal_manifest *gal__part_load(const char *dir, const char *name, gal_part_info *info,
    GHashTable *results, gboolean tails_in_file, gal_error *err);
/* Given each result of a part as it is read: the photo (relative to the
 * output folder) and its result, both valid during the call only. FALSE:
 * the photo had a result already (the part is damaged). */
typedef gboolean (*gal_part_result_fn)(const char *rel_input, const gal_part_result *result,
    void *user);
/* Read only the results of a part gal__part_load has `checked` (done),
 * each given to `take` in the part's order; -1 with `err` set when the
 * part is damaged or is no longer the part checked. */
int gal__part_read_results(const char *dir, const char *name, const gal_part_info *checked,
    gal_part_result_fn take, void *user, gal_error *err);

#endif /* GAL_PART_H */
