/* gallop.h: the public API of the gallop pipeline library.
 *
 * This header is the manual for cmd/ (and any other front end). It is the
 * only pipeline header a front end includes. The library never prints,
 * never exits and never reads argv or the environment: everything it needs
 * comes in through these functions, everything it has to say goes out
 * through return values, gal_error records and the progress callback.
 *
 * Conventions: functions return 0 on success and -1 on failure (or a
 * pointer / NULL), filling in a caller-owned gal_error or gal_errors.
 * `_free` functions accept NULL. Strings returned as `char *` are owned by
 * the caller and released with g_free() (the library is built on GLib).
 */
#ifndef GALLOP_H
#define GALLOP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GAL_VERSION "0.1.0"

/* Exit-status-like classes of failure. cmd/ maps them to exit codes:
 * USAGE and PRESET give 2, INPUT/STAGE/OUTPUT on a photo give 1,
 * INIT gives 3. */
typedef enum gal_code {
    GAL_OK = 0,
    GAL_ERR_USAGE,    /* bad command-line value or input path */
    GAL_ERR_PRESET,   /* the preset file (or a --set) is wrong */
    GAL_ERR_INPUT,    /* a photo could not be read or is refused */
    GAL_ERR_STAGE,    /* a stage could not process a photo */
    GAL_ERR_OUTPUT,   /* an output could not be written */
    GAL_ERR_INIT,     /* the library could not start */
    GAL_ERR_INTERNAL, /* a bug in gallop */
} gal_code;

/* One error, self-contained: it owns copies of every string so it stays
 * valid after the preset or run that produced it is freed.
 * `file`/`line`/`col` locate the preset entry involved (line 0 = none),
 * `subject` names the photo involved (empty = none), `key` is the preset
 * key path ("resize.width", empty = none). `msg` is the human message
 * without location; gal_error_format() puts it all together. */
typedef struct gal_error {
    gal_code code;
    char file[512];
    int line, col;
    char key[128];
    char subject[512];
    char msg[512];
} gal_error;

/* Errors collected by a load or a run, compiler style: the first
 * GAL_MAX_ERRORS are kept, the number of further ones in `dropped`. */
#define GAL_MAX_ERRORS 20
typedef struct gal_errors {
    int count;
    int dropped;
    gal_error items[GAL_MAX_ERRORS];
} gal_errors;

/* Format an error as one line, compiler style:
 *   "presets/web.yaml:7:32: watermark.opacity: must be ..."
 *   "photos/IMG_1.jpg: watermark (presets/web.yaml:7): image is ..."
 * Writes at most `size` bytes including the NUL; returns `buf`. */
char *gal_error_format(const gal_error *err, char *buf, size_t size);

/* Start libvips and block its untrusted loaders. Call once, on the main
 * thread, before anything else; `argv0` may be NULL. Fails with GAL_ERR_INIT. */
int gal_init(const char *argv0, gal_error *err);

/* Shut libvips down. Call once, after every run has finished. */
void gal_shutdown(void);

/* Set how many photos runs take at once (`jobs` <= 0: one per core), and
 * so how many threads libvips gives each photo: photos x threads is about
 * the number of cores (photo-level parallelism scales better than
 * libvips' threads inside one small photo: bench/). libvips' thread count
 * is process-wide: call this once, on the main thread, before any run
 * (the front end does, from -j); runs never change it. Without it, runs
 * take one photo per core and libvips keeps its own default. */
void gal_set_jobs(int jobs);

/* Version strings, static: "0.1.0" and the libvips version. */
const char *gal_version(void);
const char *gal_libvips_version(void);

/* libvips' vector paths: inner loops it compiles at run time with orc
 * (vips_reducev, which does gallop's Lanczos scaling, and the integer
 * convolutions). An orc older than 0.4.34 can crash a run that builds
 * and drops images on several threads at once (issue 12); gallop then
 * serialises orc's compiling and freeing itself (orclock.c), and only
 * where that cannot be in effect does gal_init() turn the paths off.
 * The C loops then do the same work, slower (bench/RESULTS.md), and
 * round a little differently (trip set, lossless: under 0.1 of 255 on
 * average, 5 at most). */
typedef struct gal_vectors {
    const char *orc_version; /* e.g. "0.4.33"; NULL: not found. Static. */
    bool enabled;            /* libvips runs its orc loops */
    const char *reason;      /* why they are on or off, one line. Static. */
} gal_vectors;

/* The decision above, for --version and bug reports. Call after
 * gal_init(). Thread-safe. */
gal_vectors gal_vectors_status(void);

/* ---- presets ------------------------------------------------------------ */

typedef struct gal_preset gal_preset;

typedef struct gal_load_options {
    /* Folder of shipped presets: where a bare name ("instagram-portrait")
     * passed to gal_preset_load or to `extends` is looked up as NAME.yaml.
     * NULL: only paths work. Borrowed. */
    const char *presets_dir;
    /* "KEY=VALUE" overrides (`--set`), applied after `extends`, in order,
     * validated like preset values. Borrowed. */
    const char *const *overrides;
    int n_overrides;
    /* Files the preset names (logos, fonts, caption tables, exports,
     * parents it extends) are read within the folder of the preset that
     * names them: a symbolic link there may not lead out of it, unless
     * this is set (--follow-symlinks). */
    bool follow_symlinks;
    /* Folders searched for a bare name before `presets_dir`, in order
     * (the front end takes them from GALLOP_PRESETS_DIR): a team's own
     * presets, which may `extends` the shipped ones, even one of the same
     * name (a preset never extends itself: the search goes on past it).
     * NULL-terminated; NULL: none. Borrowed. */
    const char *const *user_presets_dirs;
    /* The user's home folder: "~" and "$HOME" (or "${HOME}") at the start
     * of a file or folder value in a preset, or of `extends`, stand for it.
     * NULL: such a value is an error that says HOME is unknown. Borrowed. */
    const char *home_dir;
} gal_load_options;

/* Load and validate a preset: a file path, or the name of a shipped preset.
 * Every error found (up to GAL_MAX_ERRORS) is added to `errs`; on any error
 * returns -1 and *out stays NULL. On success *out is a new preset, owned by
 * the caller and immutable: it may be shared read-only by any number of
 * threads. Not thread-safe itself (libyaml runs on the calling thread). */
int gal_preset_load(const char *path_or_name, const gal_load_options *opts,
    gal_preset **out, gal_errors *errs);

/* The same from YAML text in memory; `virtual_path` names it in errors and
 * is the base for relative paths (its folder). */
int gal_preset_load_string(const char *yaml, const char *virtual_path,
    const gal_load_options *opts, gal_preset **out, gal_errors *errs);

void gal_preset_free(gal_preset *preset);

/* Borrowed strings, valid while the preset lives. */
const char *gal_preset_name(const gal_preset *preset);
const char *gal_preset_description(const gal_preset *preset);
const char *gal_preset_path(const gal_preset *preset);
/* What the preset's many-input stage makes, in words: "gallery page" and
 * "gallery pages" (web pages), "contact sheet" and "contact sheets", or
 * "page" and "pages" without one. Static strings. */
const char *gal_preset_page_noun(const gal_preset *preset, int n);

/* The resolved pipeline (after extends and overrides), one section or stage
 * per line with every effective value. Caller frees with g_free(). */
char *gal_preset_describe(const gal_preset *preset);

/* The presets a bare name finds, in every folder of `opts`
 * (user_presets_dirs, then presets_dir), as "name<TAB>description<TAB>file"
 * lines, sorted by name; of two of one name, the one found first (the
 * other is hidden by it). A preset that fails to load is listed with its
 * first error as the description. Caller frees with g_free(); NULL with
 * `err` set when no folder can be read. */
char *gal_presets_list(const gal_load_options *opts, gal_error *err);

/* The schema of one stage or section ("resize", "output", ...) or, for
 * NULL, of all of them: key, type, default, range, help. Caller frees with
 * g_free(); NULL with `err` set (and a "did you mean") for an unknown
 * name. */
char *gal_stages_describe(const char *name, gal_error *err);

/* The same keys as a Markdown table (key, type, default, range, help) for
 * one stage or section, or, for NULL, every one under a "## `NAME`"
 * heading: the key tables of docs/presets.md. Caller frees with
 * gal_free(); NULL with `err` set for an unknown name. */
char *gal_stages_markdown(const char *name, gal_error *err);

/* The same keys for the man page, gallop(1): a roff ".SS" per section and
 * stage, a ".TP" per key (key, type, default, range, then its help).
 * Caller frees with g_free(). Never fails; thread-safe. */
char *gal_stages_man(void);

/* Every key a preset may set, as --set takes it ("output.quality",
 * "resize.width"), one a line: what shells complete after --set. Caller
 * frees with g_free(). Never fails; thread-safe. */
char *gal_preset_keys(void);

/* `text` for roff, to print as written: backslashes, minus signs and a
 * '.' or '\'' starting a line escaped. Caller frees with g_free(). */
char *gal_roff_escape(const char *text);

/* The JSON Schema (draft 2020-12) of a preset, made from the same tables:
 * every section and stage with its keys' types, defaults, choices, ranges
 * and help, as editors see YAML (numbers, booleans, null). It accepts every
 * preset gallop accepts; what only loading can tell (files, rules between
 * keys) it leaves to `gallop check`. presets/gallop.schema.json is this
 * text. Caller frees with gal_free(). Never fails; thread-safe. */
char *gal_json_schema(void);

/* ---- runs --------------------------------------------------------------- */

typedef enum gal_photo_status {
    GAL_PHOTO_DONE,    /* output written; with output.photos false (no file per
                        * photo), its contact-sheet tile taken */
    GAL_PHOTO_FAILED,  /* error set; no output written for it */
    GAL_PHOTO_IGNORED, /* not a regular file (FIFO, device...): never opened */
    GAL_PHOTO_PLANNED, /* dry run: would be built */
    GAL_PHOTO_UP_TO_DATE, /* its output is current: not rebuilt */
    GAL_PHOTO_CANCELLED,  /* the run was cancelled first: nothing written for it */
} gal_photo_status;

/* "done", "failed", "ignored", "planned", "up-to-date", "cancelled":
 * static. */
const char *gal_status_name(gal_photo_status status);

/* Why a photo is built, or not: the incremental-rebuild decision, made from
 * the manifest the previous runs left in the output folder. */
typedef enum gal_why {
    GAL_WHY_NONE,               /* no decision (refused or ignored photo) */
    GAL_WHY_UP_TO_DATE,         /* photo, files, preset and output unchanged */
    GAL_WHY_NEW,                /* no record of this output */
    GAL_WHY_FORCED,             /* --force */
    GAL_WHY_OTHER_INPUT,        /* the output was made from another photo */
    GAL_WHY_INPUT_CHANGED,      /* the photo's contents changed */
    GAL_WHY_DEPENDENCY_CHANGED, /* a file a stage read for it changed */
    GAL_WHY_PRESET_CHANGED,     /* an effective preset value (or a file it names) */
    GAL_WHY_VERSION_CHANGED,    /* made by another gallop version */
    GAL_WHY_OUTPUT_MISSING,     /* recorded, but the file is gone */
    GAL_WHY_OUTPUT_MODIFIED,    /* the file is not what gallop wrote */
    GAL_WHY_SHEET,              /* up to date, but read for a contact sheet that is not */
} gal_why;

/* "up-to-date", "new", "input-changed", ...: static. */
const char *gal_why_name(gal_why why);

/* An output's SHA-256: its 32 bytes (as hex, 65 bytes were a third of a
 * result), `known` false when none was taken (the output not made). */
typedef struct gal_sha256 {
    unsigned char bytes[32];
    bool known;
} gal_sha256;

/* Its 64 hex digits (lower case) into `hex`; NULL when not known.
 * Returns `hex` otherwise. */
const char *gal_sha256_hex(const gal_sha256 *digest, char hex[65]);

/* One file of a photo's, when its preset makes several (output.widths,
 * output.formats). */
typedef struct gal_output_file {
    const char *path;    /* as `output` is given; owned by the run summary */
    const char *format;  /* its name in output.format ("jpeg", formats.def); static */
    int width, height;   /* pixels, when DONE or UP_TO_DATE (0 otherwise) */
    long long bytes;     /* when DONE or UP_TO_DATE */
    gal_sha256 sha256;   /* when DONE or UP_TO_DATE */
    bool written;        /* this run wrote it (a DONE photo may leave some files as they
                          * were, up to date) */
} gal_output_file;

/* What only some photos' results have: a failure, a reason's detail, a
 * caption, several files, warnings. A result holds it by a pointer,
 * NULL when it has none of it, as most of a rerun's or a merge's million
 * do (inline, it was 56 of a result's 200 bytes). Read it with
 * gal_photo_notes_of. Owned by the run summary. */
typedef struct gal_photo_notes {
    /* Why, when FAILED or IGNORED; NULL otherwise (a pointer, not a
     * gal_error of 1.7 KB). */
    gal_error *error;
    const char *why_detail;  /* e.g. "output.quality 82 -> 90"; NULL: none */
    const char *caption;        /* set by a caption stage; NULL: none */
    /* Where the caption came from: "sidecar:PATH", "table:PATH",
     * "instagram:PATH" (the posts_N.json), "exif", "xmp" or "iptc"; NULL:
     * none (no caption stage, or no source had a caption). */
    const char *caption_source;
    /* Every file the photo makes when its preset makes several (each
     * width of output.widths in each format of output.formats), the
     * largest first: files[0] is the result's `output` (and its width,
     * height, bytes and sha256 are the result's). 0 and NULL when the
     * preset makes one file per photo. */
    gal_output_file *files;
    /* What the user should know about this photo's output although it was
     * written (a colour profile converted with another intent than asked
     * for, a watermark too small to read), one per line; NULL: none. Only
     * the run that built the output has them. */
    const char *warnings;
    /* IGNORED: what kind of file was skipped: "special" (FIFO, device,
     * socket), "link" (not followed), "hidden", "video", "raw-unsupported",
     * "unknown", "pair" (the half of a raw + JPEG pair input.pairs leaves);
     * static; NULL otherwise. */
    const char *skipped;
    /* The album it is on (a gallery's: its folder within its input
     * folder, "" the top); NULL: its preset makes no albums. */
    const char *album;
    int n_files;             /* of `files` above */
    bool caption_cut;        /* a caption stage cut it (max-lines, or no room) */
} gal_photo_notes;

typedef struct gal_photo_result {
    /* Pointers first, then 8-byte numbers, then the rest: a run holds a
     * result per photo and preset, a million in a merge of a big archive.
     * Its preset's name and output folder are its run summary's. */
    const char *input;  /* path as found; owned by the run summary */
    const char *output; /* final output path, NULL if none (always, with output.photos false) */
    const gal_photo_notes *notes; /* NULL: none; see gal_photo_notes_of */
    /* What a site shows of the photo, "key=value" each (docs/report.md:
     * taken, camera, lens, f, shutter, iso, focal_mm, orientation, lat,
     * lon, alt, color, placeholder); NULL: not known (not built, or
     * recorded by an older gallop). Opaque, owned by the summary: read
     * it with gal_photo_about. */
    struct gal_about *about;
    double seconds;     /* wall time spent on this photo */
    double hash_seconds;     /* part of `seconds` spent hashing the photo */
    long long bytes;         /* output size, when DONE or UP_TO_DATE */
    gal_photo_status status;
    gal_why why;             /* why it was (or would be) built, or not */
    int width, height;  /* output size when DONE */
    gal_sha256 sha256;       /* the output's, when DONE or UP_TO_DATE */
} gal_photo_result;

/* A result's notes: never NULL (all empty when it has none). */
const gal_photo_notes *gal_photo_notes_of(const gal_photo_result *photo);

/* What a site shows of the photo (`about` above): a new NULL-terminated
 * array of "key=value" (g_strfreev), as recorded when the photo was up
 * to date; NULL when not known. */
char **gal_photo_about(const gal_photo_result *photo);

/* An output the manifest lists whose photo no longer exists, or no longer
 * makes it (`renamed`: its output is now another file). */
typedef struct gal_orphan {
    const char *output; /* the file */
    const char *input;  /* the photo it was made from */
    bool renamed;       /* the photo exists, but now makes another output */
    bool not_made;      /* the photo is in the run, but makes no file of its own now
                         * (output.photos is false) */
    bool removed;       /* --prune removed it (never in a dry run) */
    gal_error error;    /* why --prune left it, e.g. changed since written */
} gal_orphan;

typedef struct gal_run_summary {
    int total, done, failed, ignored, planned;
    /* Wall time of the run, from the user's side: the loading of its
     * presets (gal_preset_load's own time, with the captions table read
     * and the stages prepared: a 500,000-row table takes a second) and
     * then the run itself. A preset run twice counts its load in each. */
    double seconds;
    gal_photo_result *photos; /* `total` entries, in input order */
    /* Files made from the whole run (contact sheets, gallery pages), in
     * page order: `input` names the stage, `output` the file; DONE or
     * FAILED, or UP_TO_DATE: the pages as recorded when none is remade. */
    int n_sheets;
    gal_photo_result *sheets;
    int up_to_date, cancelled;
    bool interrupted;          /* gal_run_options.cancel was set during the run */
    int n_orphans;             /* outputs whose photo is gone or renamed (--prune) */
    gal_orphan *orphans;
    bool sheets_stale;         /* contact sheets missing or out of date (rebuilt unless a dry run) */
    gal_error manifest_error;  /* the manifest could not be written (code 0: it was) */
    long long peak_rss_bytes;  /* the process's peak resident memory so far */
    const char *output_dir;    /* the output folder, absolute; owned by the summary */
    int leftovers_removed;     /* temporary files of a killed earlier run, removed */
    const char *preset;        /* the preset's name; owned by the summary */
    /* output.photos is false: nothing is written per photo, only contact
     * sheets. `done` then counts photos whose tile was taken for a sheet,
     * and `sheets_stale` is the whole decision: when false, every photo
     * is UP_TO_DATE and none was read. */
    bool sheets_only;
    /* The many-input stage's pages are web pages (a gallery's), not
     * pictures (contact sheets): what to call them. */
    bool pages_are_html;
    /* What the run refused to act on but did not fail for, one line each
     * (NULL-terminated, owned by the summary), e.g. a manifest entry
     * naming a path outside the output folder. */
    char **warnings;
    /* A sharded run (gal_run_options.shard): which shard, of how many, and
     * how many photos it left to the others: `photos` lists only its own
     * (`total` of them), as each shard's report does; a million-photo
     * run's shards would each hold and list every photo. 0: not
     * sharded. */
    int shard, shards;
    int elsewhere;
    /* Where the photos' paths are (each result's `input` and `output`),
     * a block for many rather than an allocation each. Opaque. */
    struct gal_path_arena *paths;
} gal_run_summary;

/* Called once per photo as it finishes, never concurrently with itself
 * (the library serialises calls): from the calling thread for photos
 * refused by the plan or up to date (first), from a worker thread for the
 * others. Not called for photos a cancel kept from starting. `run` is
 * the summary of the photo's preset, still being filled: its `preset`
 * and `output_dir` are final, its counts and photos not yet. `done`
 * counts finished photos so far out of `total`. */
typedef void (*gal_progress_fn)(const gal_run_summary *run, const gal_photo_result *photo,
    int done, int total, void *user);

/* The default memory budget of a run (gal_run_options.memory_bytes):
 * one 12 MP 8-bit phone HEIC (about 140 MB to decode) and small photos
 * beside it, so a run over a phone's photos at -j 2 peaks at about
 * 150 MiB, gallop's own 33 included (bench/RESULTS.md, "Phone set"); a
 * 10-bit one needs more alone, and runs alone. */
#define GAL_DEFAULT_MEMORY_BYTES (160LL << 20)

typedef struct gal_run_options {
    /* Files and/or folders; NULL/0: the preset's input.paths. Borrowed. */
    const char *const *inputs;
    int n_inputs;
    const char *output_dir; /* overrides output.dir; NULL: the preset's */
    int jobs;               /* photos in flight; <= 0: number of cores */
    /* The run's memory budget, in bytes, for the photos in flight at once
     * (--memory): each is admitted into the workers by what its decode is
     * estimated to take, from its header (format, size, bit depth,
     * shrink-on-load), in turn, when those in flight leave room; one that
     * needs more than the whole budget runs alone. 0: the default,
     * GAL_DEFAULT_MEMORY_BYTES; < 0: none (photos start as workers free
     * up). */
    long long memory_bytes;
    bool dry_run;           /* plan and report, write nothing */
    bool force;             /* rebuild every output, up to date or not */
    gal_progress_fn progress;
    void *user;
    /* Remove outputs the manifest lists whose photo no longer exists or now
     * makes another file (only those, and only when unchanged since written). */
    bool prune;
    /* Follow symbolic links that lead out of an input folder (links inside
     * it are always followed). */
    bool follow_symlinks;
    /* Cancel: when the int this points to becomes non-zero (set it with an
     * atomic store, e.g. from a signal handler: the library only reads it),
     * the run takes no new photo, stops the ones in flight (their temporary
     * files are removed), writes the manifest for what finished and
     * returns with `interrupted` set. NULL: cannot be cancelled. */
    int *cancel;
    /* Shard `shard` of `shards` (1 <= shard <= shards; 0: not sharded):
     * only the photos of this shard are built (a photo's shard is a fixed
     * hash of its path within its input folder), and what the shard made
     * is recorded in a part of the records of its own
     * (.gallop-manifest.K-of-N.db) instead of the folder's, so shards may
     * run at once into one folder, on several hosts. Products made from
     * every photo (contact sheets) are not made: each shard keeps its
     * photos' items for them, and gal_merge_presets makes them and joins
     * the parts. --prune is left to a run that is not sharded. */
    int shard, shards;
    /* Leave `about` out of the results of photos not built by this
     * process (up to date, or built by a shard): what a site shows of a
     * photo is read back from the records only for a report that lists it
     * (a few hundred bytes a photo; a million-photo rerun or merge without
     * a report holds none). */
    bool lean_results;
} gal_run_options;

/* Run presets over photos: each photo is read and decoded once, at the
 * largest size any preset needs, and every preset's stages start from
 * that decode (scaled down to the preset's own size). `out` is an array
 * of `n` the caller provides; on return out[r] is preset r's summary, a
 * new one owned by the caller (also on -1). Photos run in parallel;
 * progress calls come for each output (photo and preset, `run->preset`
 * says which), with `done` and `total` counting outputs over all presets.
 *
 * Returns 0 when the run happened (some photos may have failed: see the
 * summaries, e.g. an output folder that cannot be created, or two photos
 * wanting the same output name), -1 with `errs` filled when it could not
 * start (no inputs, an input path that does not exist, two presets of one
 * name), in which case no output file was written.
 *
 * Incremental: the records in the output folder (its manifest, an SQLite
 * database: docs/report.md) say which outputs are up to date; those
 * photos are not processed, and the others carry the reason in `why`.
 * Unless `dry_run`, each photo's records are committed as it finishes,
 * also up to a cancel; `summary->manifest_error` says if that failed. With output.photos false, the contact sheets are the only
 * outputs and one decision covers every photo (`summary->sheets_only`).
 *
 * One preset writes into `output_dir` (else its output.dir). Several write
 * into a folder each, OUTPUT/NAME (NAME: the preset's name), with a
 * manifest each, so reruns, dry runs, --check and --prune work per preset,
 * and a later run of one of them alone into OUTPUT/NAME finds its outputs
 * up to date; each collects the photos with its own input section. A
 * photo's failure in one preset does not stop the others; with several
 * presets its error names the preset: "PHOTO (preset NAME): ...".
 *
 * Thread-safe with respect to other runs, as long as they write to
 * different output folders (each keeps its manifest; a second run into a
 * folder another run holds is refused). */
int gal_run_presets(const gal_preset *const *presets, int n, const gal_run_options *opts,
    gal_run_summary **out, gal_errors *errs);

void gal_run_summary_free(gal_run_summary *summary);

/* Join the shards of a sharded run (gal_run_options.shard) in the output
 * folder of each preset (as gal_run_presets would choose it): every shard
 * 1..N must have finished (its part says "done") with the presets and
 * photos given here, and every photo must be in its shard's part;
 * otherwise -1, with an error per missing shard naming its photos, and
 * nothing changed. Then the parts become the manifest, the contact sheets
 * are made from the items the shards kept (byte for byte what one run
 * makes), outputs no photo makes are listed as orphans, and out[r] is
 * preset r's summary as one run over every photo would have it (each
 * photo's result is its shard's; `seconds` is the merge's). The parts are
 * removed once the manifest is written; the items stay, for the next
 * sharded run.
 *
 * `opts`: inputs (NULL/0: those the shards were given, found from their
 * working folder), output_dir, jobs (parts and items read at once), follow_symlinks,
 * cancel; the rest is ignored. A cancelled merge changes nothing and may
 * be run again. */
int gal_merge_presets(const gal_preset *const *presets, int n, const gal_run_options *opts,
    gal_run_summary **out, gal_errors *errs);

/* ---- reports (docs/report.md) --------------------------------------------- */

/* The report of a gal_run_presets run as JSON text (schema in
 * docs/report.md): versions, totals, every photo and contact sheet with
 * its outputs, timings and peak memory. "photos", "sheets" and "orphans"
 * hold every preset's, each with its "preset"; "presets" lists each
 * preset's name, file, folder and totals; "totals" adds them up;
 * "preset" is the one preset, or null when there are several. Borrowed
 * arguments; the caller frees the text with g_free(). */
char *gal_runs_report_json(const gal_preset *const *presets,
    const gal_run_summary *const *summaries, int n);
int gal_runs_report_write(const gal_preset *const *presets,
    const gal_run_summary *const *summaries, int n, const char *path, gal_error *err);

/* One event as a single line of JSON (no newline), for `--log json`:
 * {"event":"photo","status":"done",...} for a photo result as the
 * progress callback gets it, with `done` and `total`. Caller frees. */
char *gal_photo_event_json(const gal_run_summary *run, const gal_photo_result *photo,
    int done, int total);

/* {"event":"error",...} for an error outside any photo. Caller frees. */
char *gal_error_event_json(const gal_error *err);

/* {"event":"summary",...}: the totals of a finished run. Caller frees. */
char *gal_summary_event_json(const gal_run_summary *summary);

#ifdef __cplusplus
}
#endif

#endif /* GALLOP_H */
