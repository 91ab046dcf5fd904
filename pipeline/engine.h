/* engine.h: the run engine's own types, shared by its parts and nothing
 * else (docs/architecture.md draws them):
 *
 *   plan.c    what each preset makes of each photo: names, collisions,
 *             and the products: the photo's output file, and its item for
 *             the preset's many-input stage (a contact sheet's tile)
 *   decide.c  which products are up to date, against the manifest, and so
 *             which photos are opened, for which products
 *   exec.c    the workers: each photo decoded once for every product of
 *             every preset it feeds; pages made as their items complete
 *   record.c  the manifest records of what was made; orphans, --prune
 *   sharded.c a shard's own steps (--shard K/N): other shards' photos left
 *             to them, items kept for the pages, its part of the manifest
 *   merge.c   gal_merge_presets: the shards' parts read and joined
 *   merge_pages.c  the merge's pages, made from the items the shards kept
 *   run.c     gal_run_presets: those steps in order, and the summary
 *
 * A run is planned on the calling thread, so what gets written never
 * depends on scheduling; workers then take photos by an atomic index and
 * each writes only its own result slots. */
#ifndef GAL_ENGINE_H
#define GAL_ENGINE_H

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "captions.h"
#include "digest.h"
#include "fsio.h"
#include "gather.h"
#include "inputs.h"
#include "job.h"
#include "outdir.h"
#include "output.h"
#include "preset.h"
#include "recipe.h"
#include "solo.h"
#include "store.h"

/* What one preset makes of one photo, and what its worker adds. */
typedef struct photo_plan {
    /* The photo's size and time as planned are its input's
     * (gal__plan_stat), not copies here. */
    guint64 stale_files;       /* its variant v is stale: bit v (output.widths x formats) */
    /* Its content digest (XXH3-128, digest.h), once known: read and set
     * with gal__plan_digest and gal__plan_set_digest. */
    bool has_digest;
    guint8 in_xxh3[GAL_XXH3_HEX_LEN / 2];
    /* Flags as bytes, not gbooleans: a run holds a plan per photo and
     * preset, a million of them in a big one. */
    bool member;               /* taken into the run: neither refused nor ignored */
    bool has_output;           /* it has an output file of its own (output.photos) */
    bool build_output;         /* ... which is stale: built by this run */
    bool build_item;           /* its item is needed: the pages it is on are stale */
    bool item_from_record;     /* ... and made from its record, not by opening the photo */
    bool started;              /* a worker took it */
} photo_plan;

typedef struct engine engine;
typedef struct preset_run preset_run;

/* What a run keeps of a photo besides its records (sink.c): nothing, when
 * it makes the pages itself; a shard keeps each photo's contact-sheet item
 * for the merge, and its result (sharded.c). Finishing a photo goes
 * through this, and so knows nothing of shards. */
typedef struct record_sink {
    /* Keep photo i's item (`job` made it) for pages another process makes;
     * NULL: the pages are made here. -1 with `err` set. */
    int (*keep_item)(preset_run *pr, int i, const gal_job *job, gal_error *err);
    /* Photo i was built (under pr->record_lock, before its commit); NULL:
     * nothing more to keep. */
    void (*photo_built)(preset_run *pr, int i);
} record_sink;

extern const record_sink gal__run_sink;

/* A shard keeps its members' items for the pages (which the merge makes)
 * instead of making pages. */
#define gal__keeps_items(pr) ((pr)->config->sink->keep_item != NULL)

/* What one preset's run is asked to do, fixed before it begins
 * (gal__engine_begin) and only read after: the steps of the run share it
 * as it is, on every thread. */
typedef struct run_config {
    const gal_preset *preset;
    /* What each photo makes: n_variants files (output.widths x
     * output.formats; one without them), the first the largest. */
    gal_variant *variants;
    int n_variants;
    /* The pages of the preset's many-input stage (contact sheets): one
     * product, whose inputs are every member's item. */
    gboolean has_pages;
    gboolean members_by_content; /* members known by content (else by size and time) */
    /* The pages are text that needs no pixels of an up-to-date photo but
     * what its record keeps (a gallery's, job.h: gal__item_from_about):
     * such a photo is not opened to make them again. */
    gboolean items_from_records;
    char *out_dir;
    /* The working folder when the run began, canonical; NULL: unknown.
     * gallop never changes folder during a run, and asking the system
     * for it twice a photo was two system calls of a rerun's seven. */
    char *cwd;
    gboolean follow_links; /* --follow-symlinks */
    char preset_digest[65];
    GPtrArray *keys;       /* the effective preset's key lines */
    int shard, shards;     /* a sharded run: shard `shard` of `shards`; 0: not sharded */
    const record_sink *sink;   /* gal__run_sink, or a shard's */
} run_config;

/* One preset's part of a run: its photos' plans, its pages, its records
 * and summary, as the run goes. */
struct preset_run {
    engine *engine;
    const run_config *config;  /* what it is asked to do */
    gal_run_summary *summary;
    gal_input *inputs;     /* in summary order, n_inputs of them */
    int n_inputs;
    /* The photos of the whole run, and which of them photo i is (its
     * {index}, and its names' keys, count in the whole run). A shard
     * plans and reports only its own photos (run_index), though it names
     * every photo to find clashes: holding a result and a plan for each
     * of the others was half of a shard's memory at a million photos.
     * Until its plan is made, its `inputs` are all the run's; after, its
     * own. run_index NULL: photo i is the run's photo i. */
    int run_total;
    int *run_index;
    photo_plan *plans;     /* per photo */
    /* Planned output paths: outputs[i * n_variants + v] is photo i's file
     * of variant v, NULL if none (the photo makes no file, or all its
     * names were refused). */
    char **outputs;
    char members[65];      /* the identity of those inputs, as planned */
    int *todo;             /* photos to open, in order */
    int n_todo;
    gal_gather *gather;    /* the pages being made, or NULL */
    gint64 *sort_times;    /* per photo, for `sort: date`, when known (the merge); or NULL */
    int *gather_id;        /* photo index -> place in the pages' order */
    gal_out_dir claim;     /* the output folder, locked for this run */
    /* The folder's records (store.h): read to decide, written as photos
     * finish; a shard only reads them (a snapshot of the last merge's). */
    gal_store *store;
    gal_part_info part_info;
    /* What earlier tries of this shard built (its part's results, read
     * as it begins): rel input -> gal_part_result. Such a photo is up to
     * date now, but was built all the same: the merge reports it so, as
     * one run would. */
    GHashTable *built;
    /* What the stores refused, for the summary's warnings. */
    GPtrArray *warnings;
    /* Workers record a photo's products together (its records, a shard's
     * item and result) and commit them: a killed run keeps every photo it
     * committed. */
    GMutex record_lock;
    /* A sharded run's part, where its records and results go (and what an
     * earlier try of the shard made is read from); NULL: not sharded. */
    gal_store *part;
};

/* What every preset of a run shares: the workers, the photos they take,
 * progress, cancel. */
struct engine {
    preset_run **runs;     /* one per preset */
    int n_runs;
    gint64 start;          /* monotonic, microseconds */
    /* The photos to open, in order: todo[k * n_runs + r] is the photo's
     * index in run r, or -1 when run r has nothing to make of it. */
    int *todo;
    int n_todo;
    gint next;             /* atomic: next position in todo */
    gint finished;         /* atomic: outputs finished, for progress */
    int total;             /* outputs in the run: every preset's photos */
    GMutex progress_lock;
    gal_progress_fn progress;
    void *user;
    gal_cancel *cancel;
    gal_solo *solo;        /* failed photos run again alone, for their reasons */
    gal_admit *admit;      /* the run's memory budget, while the workers run */
    GMutex wait_lock;      /* guards live; wait_cond signals a worker's exit */
    GCond wait_cond;
    int live;
};

/* Photo i's place in the whole run, from 1 (its {index}). */
static inline int
gal__photo_number(const preset_run *pr, int i)
{
    return (pr->run_index ? pr->run_index[i] : i) + 1;
}

/* `path` (a photo's, or a file beneath the output folder) relative to the
 * output folder, as records name it. New string. */
static inline char *
gal__out_rel(const preset_run *pr, const char *path)
{
    return gal__relative_path_from(pr->config->cwd, pr->config->out_dir, path);
}

/* Photo i's planned path of variant v, or NULL. */
static inline const char *
gal__output_of(const preset_run *pr, int i, int v)
{
    return pr->outputs[i * pr->config->n_variants + v];
}

/* run.c */
/* Set up `e` for the `n` presets: prs[r] (zeroed, n of them) is preset r's
 * part, out[r] gets its new summary; the presets and the options are
 * checked. -1 with `errs` filled. End with gal__engine_end in any case. */
int gal__engine_begin(engine *e, preset_run *prs, const gal_preset *const *presets, int n,
    const gal_run_options *opts, gal_run_summary **out, gal_errors *errs);
/* Times, memory, and everything freed but the summaries. */
void gal__engine_end(engine *e);
/* A preset's photos collected from `paths` (none: its input.paths), not
 * from inside `skip_dir`; its plans made room for. `look_up` FALSE: the
 * photos in folders are listed by name and type alone (gal_scan_options
 * list_only). -1 with `errs` filled. */
int gal__collect(preset_run *pr, const gal_run_options *opts, const char *const *paths,
    int n_paths, const char *skip_dir, gboolean look_up, gal_errors *errs);
/* Its folder's records opened as `mode` says (an earlier gallop's text
 * manifest carried over when the folder has no database yet). -1 with
 * `errs` filled. */
int gal__open_records(preset_run *pr, gal_store_mode mode, gal_errors *errs);
/* Its output folder claimed as `how` says (outdir.h). */
int gal__claim(preset_run *pr, gal_claim how, gal_errors *errs);
/* The summary's counts from its photos' statuses. */
void gal__count(gal_run_summary *summary);
/* The photo's content digest as its plan holds it (len 0: none yet). */
static inline void
gal__plan_digest(const photo_plan *plan, gal_digest *out)
{
    out->len = plan->has_digest ? sizeof(plan->in_xxh3) : 0;
    if (plan->has_digest)
        memcpy(out->bytes, plan->in_xxh3, sizeof(plan->in_xxh3));
}

/* The same in hex (lower case) into `hex` (65 bytes): "" when none. */
static inline char *
gal__plan_digest_hex(const photo_plan *plan, char *hex)
{
    gal_digest d;

    gal__plan_digest(plan, &d);
    return gal__digest_hex(&d, hex);
}

/* Set it: an XXH3-128 (anything else: none). */
static inline void
gal__plan_set_digest(photo_plan *plan, const gal_digest *d)
{
    plan->has_digest = d->len == sizeof(plan->in_xxh3);
    if (plan->has_digest)
        memcpy(plan->in_xxh3, d->bytes, sizeof(plan->in_xxh3));
}

/* The record of the product at `rel` (beneath the output folder): a
 * shard's part first (what an earlier try made), then the folder's. TRUE
 * with `out` filled (clear it). */
static inline gboolean
gal__record_find(preset_run *pr, const char *rel, gal_record *out)
{
    return (pr->part && gal__store_get(pr->part, rel, out)) || gal__store_get(pr->store, rel, out);
}

/* What variant v of a photo is, as the end of its record's NAME_KEY
 * ("\t1600\twebp"; "" with one file per photo and no widths). Static. */
const char *gal__variant_key_suffix(const preset_run *pr, int v, char *buf, size_t size);

/* plan.c: each member's output path (refusing photos whose name is
 * unusable, collides or would overwrite an input); todo lists the
 * members. */
void gal__plan_photos(preset_run *pr);
/* Does gal__plan_photos read the records? Only for names from EXIF,
 * each taken from its record while the photo is as it was. */
gboolean gal__plan_reads_records(const preset_run *pr);
/* Put todo in the pages' order (so pages complete one after another) and
 * start the pages (pr->gather). */
void gal__plan_pages(preset_run *pr);
/* What the name of photo i's variant v was rendered from: the template,
 * and the fields that do not come from the photo. New string. */
char *gal__name_key(const preset_run *pr, int i, int v);

/* decide.c: which products are stale and why; todo becomes the photos to
 * open, each with build_output / build_item set. */
void gal__decide(preset_run *pr, const gal_run_options *opts);
/* The identity of the pages' inputs, every member, as they are now
 * (by content when pr->config->members_by_content, else by size and time); ""
 * when a member's content is not known. */
void gal__members_identity(preset_run *pr, char *hex);
/* Is the output `rel` beneath the output folder what gallop `recorded`
 * (and a regular file)? *exists says whether there is anything there;
 * errno is ENOENT when not. A content match refreshes its out_mtime_ns. */
gboolean gal__output_intact(preset_run *pr, const char *rel, gal_record *recorded,
    gboolean *exists);

/* result->files of photo i from the records of its outputs (when its
 * preset makes several files per photo), for a photo up to date or one a
 * merge took from its shard. */
void gal__files_from_records(preset_run *pr, int i);
/* Are the pages recorded for exactly these `members` (an identity), and
 * intact? */
gboolean gal__pages_current(preset_run *pr, const char *members);
/* The photo `in` (at `path`) as planned, its size and time: as the scan
 * found it, or as it is now when the scan did not stat it. */
void gal__plan_stat(gal_input *in, const char *path);
/* Is the record `r` of photo i's product at `rel` (beneath the output
 * folder) up to date? Why not, with details in *detail. What was found
 * the same by content is refreshed in `r` (its times), and *refreshed set. */
gal_why gal__decide_record(preset_run *pr, int i, const char *rel, gal_record *r,
    char **detail, gboolean *refreshed);

/* Photos in flight for `jobs` (<= 0: one per core), at most n_photos
 * (libvips' threads per photo are set once for the process, gal_set_jobs);
 * also the threads that read parts and decide photos. Inline: the engine's
 * files below exec.c use it too. */
static inline int
gal__schedule_workers(int jobs, int n_photos)
{
    int workers = jobs > 0 ? jobs : MAX(1, (int) g_get_num_processors());

    return CLAMP(workers, 1, MAX(1, n_photos));
}

/* exec.c: run the workers over e->todo, watching the cancel. */
void gal__exec(engine *e, const gal_run_options *opts);
/* A progress call, serialised. */
void gal__report(preset_run *pr, const gal_photo_result *photo);

/* sink.c: where the run's records go */
/* Keep `r` where this run's records go (a shard's part, else the
 * folder's store), in the pending transaction; a failure is the
 * summary's manifest_error (the first). */
void gal__record_keep(preset_run *pr, const gal_record *r);
/* End the pending transaction: what was kept is on disk. */
void gal__record_commit(preset_run *pr, gboolean durable);
/* The preset's recipe lines, kept beside its records (once). */
void gal__record_recipe(preset_run *pr);
/* `err` (code 0: none), a failure to keep records: the summary's
 * manifest_error, when it is the first. */
void gal__record_failed(preset_run *pr, const gal_error *err);
/* A new record of `kind` of what photo i's `job` was made from: the
 * photo, the recipe, gallop's version and the files it depended on
 * (clear it). */
void gal__record_photo(const preset_run *pr, int i, const gal_job *job, gal_record_kind kind,
    gal_record *r);
/* The records of the files an output depends on, as `job` read them,
 * into `r`. */
void gal__record_deps(const preset_run *pr, const gal_job *job, gal_record *r);

/* record.c */
/* The records of photo i, whose outputs `job` just wrote (a record per
 * file written), kept; under pr->record_lock. */
void gal__record_output(preset_run *pr, int i, const gal_job *job);
/* Records of the pages written; `written` gets their names. */
void gal__record_pages(preset_run *pr, GHashTable *written);
/* Outputs the store lists that no photo makes any more (and old pages
 * not made again, given `pages`): listed, and removed with --prune. */
void gal__find_orphans(preset_run *pr, const gal_run_options *opts, GHashTable *pages);

/* merge.c, merge_results.c: the shards' parts as a merge read them. */
typedef struct {
    gal_store *store;       /* NULL: no part for this shard */
    gal_part_info info;
} shard_part;

typedef struct {
    int shards;
    shard_part *parts;      /* [1..shards] */
} parts_found;

/* merge_results.c: each photo's result, from its shard's part (with what
 * a site shows of it unless `lean`: gal_run_options.lean_results). -1 naming
 * each part that could not be taken, and each photo that its shard's
 * part lacks. */
int gal__merge_take_results(preset_run *pr, const parts_found *found, gboolean lean,
    gal_errors *errs);

/* merge_pages.c: the pages of a merge, from the items its shards kept. */
/* Every photo going on the pages (the plan's, `shards` of them) has its
 * item, as recorded: -1 naming each that has not, before any page is
 * made. The photos' sort times come from the items' records. */
int gal__merge_check_items(preset_run *pr, int shards, gal_errors *errs);
/* The pages, from the kept items, by the run's own gathering, on
 * opts->jobs threads. */
int gal__merge_make_pages(preset_run *pr, const gal_run_options *opts, gal_errors *errs);
/* Items of photos that are gone (or no longer on the pages) go, with
 * their records; the others stay for the next sharded run. */
void gal__merge_drop_stale_items(preset_run *pr);

/* sharded.c */
/* Where a shard's records go: its part, with its members' items for the
 * pages when it `keeps_items`. */
const record_sink *gal__shard_sink(gboolean keeps_items);
/* Which of the run's photos (pr->inputs, just collected) are shard
 * `shard`'s own: pr->run_index, and the summary's count of them and of
 * the others. */
void gal__shard_select(preset_run *pr, int shard, int shards);
/* Start shard opts->shard of opts->shards: open its part (what an earlier
 * try of it made), which says the shard started. Before the photos are
 * planned. -1 with `errs` filled when the folder holds another sharded
 * run's parts, not merged. */
int gal__shard_begin(preset_run *pr, const gal_run_options *opts, gal_errors *errs);
/* After the plan: the other shards' photos, named to find clashes, are
 * let go; pr->inputs becomes the shard's own. */
void gal__shard_leave_others(preset_run *pr);
/* Where photo i's item is kept, beneath the output folder. New string. */
char *gal__item_rel(const preset_run *pr, int i);
/* The end of a shard: records of its up-to-date products copied into the
 * part, every photo's result and, unless the run was interrupted, done. */
void gal__shard_conclude(preset_run *pr, const gal_run_options *opts);

#endif /* GAL_ENGINE_H */
