/* Hostile inputs: files nobody on the project wrote, arranged by an
 * attacker or an unlucky user. Each case asserts that the run ends, the
 * good photos are written, the bad one has its own specific reason, and
 * nothing outside the folders gallop may touch is written, read or
 * deleted. Runs have a hang guard, so a hang fails the test instead of
 * stopping the suite. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gal_test.h"
#include "gal_test_json.h"

/* Seconds a run may take before the test calls it a hang. */
#define HANG_GUARD 120

static const char plain_preset[] = "gallop: 1\n"
                                   "stages:\n"
                                   "  - resize: {width: 96, height: 96, fit: inside}\n"
                                   "  - caption-burn: {size: 8%}\n";

/* gallop ARGS... under a hang guard: its exit status (137 when killed). */
static int
run(const char *const *args, char **out, char **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();

    g_ptr_array_add(argv, GAL_BINARY);
    for (int i = 0; args[i]; i++)
        g_ptr_array_add(argv, (gpointer) args[i]);
    g_ptr_array_add(argv, NULL);
    return gal_test_spawn_limited((const char *const *) argv->pdata, HANG_GUARD, out, err, NULL);
}

static gboolean
exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static char *
sha256_of(const char *path)
{
    gsize len;
    g_autofree char *bytes = gal_test_read_bytes(path, &len);

    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *) bytes, len);
}

/* ---- writes and deletes stay beneath the output folder -------------------------------- */

Test(hostile, prune_refuses_manifest_entries_outside_the_output_folder)
{
    g_autofree char *tmp = gal_test_tmpdir("hostile-prune");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *victim = g_build_filename(tmp, "victim.txt", NULL);
    g_autofree char *victim_abs = g_build_filename(tmp, "victim-abs.txt", NULL);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", plain_preset);
    g_autofree char *photo = g_build_filename(in, "trip-01.jpg", NULL);
    g_autofree char *err = NULL;
    g_autofree char *sha = NULL;
    g_autofree char *sha_abs = NULL;
    g_autofree char *tampered = NULL;
    const char *first_run[] = { "run", preset, in, "-o", out, "-q", NULL };
    const char *prune[] = { "run", preset, in, "-o", out, "--prune", NULL };

    gal_test_copy_trip(in, 1, NULL);
    cr_assert(g_file_set_contents(victim, "keep", -1, NULL));
    cr_assert(g_file_set_contents(victim_abs, "keep too", -1, NULL));
    cr_assert_eq(run(first_run, NULL, NULL), 0);
    /* Records that would have matched the victims exactly: photo gone,
     * file unchanged since "written"; the real record's recipe, so only
     * the path is wrong. */
    sha = sha256_of(victim);
    sha_abs = sha256_of(victim_abs);
    tampered = g_strdup_printf(
        "INSERT INTO product SELECT '../victim.txt', kind, '../gone.jpg', 1, 1, in_digest, "
        "recipe, version, 4, 0, '%s', 1, 1, NULL, NULL, NULL, 0, NULL, NULL FROM product "
        "WHERE kind = 'file';"
        "INSERT INTO product SELECT '%s', kind, '../gone2.jpg', 1, 1, in_digest, recipe, "
        "version, 8, 0, '%s', 1, 1, NULL, NULL, NULL, 0, NULL, NULL FROM product "
        "WHERE kind = 'file' AND output = 'trip-01.jpg';",
        sha, victim_abs, sha_abs);
    gal_test_manifest_exec(manifest, tampered);
    cr_expect_eq(run(prune, NULL, &err), 0, "%s", err);
    cr_expect(exists(victim), "--prune deleted %s", victim);
    cr_expect(exists(victim_abs), "--prune deleted %s", victim_abs);
    cr_expect(strstr(err, "record \"../victim.txt\" refused: not a relative path beneath the "
                          "output folder") != NULL, "%s", err);
    cr_expect(strstr(err, "refused") && strstr(err, "victim-abs.txt"), "%s", err);
    cr_expect(exists(photo));
}

Test(hostile, outputs_are_never_written_through_a_link_in_the_output_folder)
{
    g_autofree char *tmp = gal_test_tmpdir("hostile-outlink");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *elsewhere = g_build_filename(tmp, "elsewhere", NULL);
    g_autofree char *link = g_build_filename(out, "sub", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\noutput: {name: \"sub/{stem}.{ext}\"}\n");
    g_autofree char *err = NULL;
    g_autoptr(GPtrArray) left = NULL;
    const char *args[] = { "run", preset, in, "-o", out, NULL };

    gal_test_copy_trip(in, 1, NULL);
    cr_assert_eq(g_mkdir_with_parents(out, 0777), 0);
    cr_assert_eq(g_mkdir_with_parents(elsewhere, 0777), 0);
    cr_assert_eq(symlink(elsewhere, link), 0);
    cr_expect_eq(run(args, NULL, &err), 1, "%s", err);
    cr_expect(strstr(err, "out/sub is a symbolic link: gallop never writes through one") != NULL,
        "%s", err);
    left = gal_test_list_dir(elsewhere);
    cr_expect_eq(left->len, 0, "written through the link: %s",
        left->len ? (char *) left->pdata[0] : "");
}

Test(hostile, a_name_that_renders_hidden_is_the_photos_error)
{
    g_autofree char *tmp = gal_test_tmpdir("hostile-hidden");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\ncaptions: {sources: [sidecar]}\noutput: {name: \"{caption}.{ext}\"}\n");
    g_autofree char *sidecar = g_build_filename(in, "with.txt", NULL);
    g_autofree char *written = g_build_filename(out, "Kim.jpg", NULL);
    g_autofree char *hidden = g_build_filename(out, ".jpg", NULL);
    g_autofree char *err = NULL;
    const char *args[] = { "run", preset, in, "-o", out, NULL };

    gal_test_copy_trip(in, 1, "with.jpg");
    gal_test_copy_trip(in, 2, "without.jpg");
    cr_assert(g_file_set_contents(sidecar, "Kim", -1, NULL));
    cr_expect_eq(run(args, NULL, &err), 1, "%s", err);
    cr_expect(exists(written), "%s", err);
    cr_expect_not(exists(hidden), "a hidden .jpg was written");
    cr_expect(strstr(err, "without.jpg: output.name: the name template \"{caption}.{ext}\" "
                          "gives the hidden name \".jpg\"") != NULL, "%s", err);
}

/* ---- auxiliary files are regular files, read within their folder ----------------------- */

Test(hostile, sidecars_that_are_no_files_fail_their_photo_alone)
{
    g_autofree char *tmp = gal_test_tmpdir("hostile-sidecars");
    g_autofree char *in = g_build_filename(tmp, "in", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *report = g_build_filename(tmp, "report.json", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", plain_preset);
    g_autofree char *fifo = g_build_filename(in, "fifo.jpg.txt", NULL);
    g_autofree char *zero = g_build_filename(in, "zero.txt", NULL);
    g_autofree char *passwd = g_build_filename(in, "passwd.jpg.txt", NULL);
    g_autofree char *manifest = g_build_filename(out, GAL_STORE_NAME, NULL);
    g_autofree char *good_out = g_build_filename(out, "good.jpg", NULL);
    g_autofree char *err = NULL;
    g_autofree char *json = NULL;
    g_autofree char *recorded = NULL;
    const char *args[] = { "run", preset, in, "-o", out, "--report", report, NULL };

    gal_test_copy_trip(in, 1, "good.jpg");
    gal_test_copy_trip(in, 2, "fifo.jpg");
    gal_test_copy_trip(in, 3, "zero.jpg");
    gal_test_copy_trip(in, 4, "passwd.jpg");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(symlink("/dev/zero", zero), 0);
    cr_assert_eq(symlink("/etc/passwd", passwd), 0);
    cr_expect_eq(run(args, NULL, &err), 1, "%s", err);
    cr_expect(exists(good_out), "%s", err);
    cr_expect(strstr(err, "fifo.jpg: captions: caption sidecar") &&
            strstr(err, "fifo.jpg.txt is a FIFO (named pipe), not a file"), "%s", err);
    cr_expect(strstr(err, "zero.txt is a device, not a file") != NULL, "%s", err);
    cr_expect(strstr(err, "passwd.jpg.txt is reached through a symbolic link that leads out of")
            != NULL, "%s", err);
    json = gal_test_read_bytes(report, NULL);
    recorded = gal_test_read_manifest(manifest);
    cr_expect(strstr(json, "root:") == NULL, "/etc/passwd in the report");
    cr_expect(strstr(recorded, "root:") == NULL, "/etc/passwd in the manifest");
}

/* ---- photos: truncated, mislabelled, not images at all, special files ----------------- */

#define CORPUS_SCRIPT GAL_FIXTURES_DIR "/../tests/hostile/make-corpus.sh"

/* The photo entries of a report, by file name: "status" and the error. */
typedef struct {
    char status[32];
    char code[32];
    char message[1024];
} photo_outcome;

static GHashTable *
outcomes(const char *report)
{
    g_autofree char *text = gal_test_read_bytes(report, NULL);
    g_autofree char *error = NULL;
    g_autoptr(gal_json) j = gal_json_parse(text, &error);
    const gal_json *photos;
    GHashTable *by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

    cr_assert_not_null(j, "%s: %s", report, error);
    photos = gal_json_get(j, "photos");
    cr_assert_not_null(photos);
    for (guint i = 0; i < photos->items->len; i++) {
        const gal_json *p = photos->items->pdata[i];
        photo_outcome *o = g_new0(photo_outcome, 1);
        const char *code = gal_json_string(p, "error.code");
        const char *message = gal_json_string(p, "error.message");

        g_strlcpy(o->status, gal_json_string(p, "status"), sizeof(o->status));
        g_strlcpy(o->code, code ? code : "", sizeof(o->code));
        g_strlcpy(o->message, message ? message : "", sizeof(o->message));
        g_hash_table_insert(by_name, g_path_get_basename(gal_json_string(p, "input")), o);
    }
    return by_name;
}

Test(hostile, every_broken_file_fails_alone_with_its_own_reason, .timeout = 240)
{
    g_autofree char *tmp = gal_test_tmpdir("hostile-corpus");
    g_autofree char *photos = g_build_filename(tmp, "photos", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml",
        "gallop: 1\ninput: {include: [\"*\"]}\nstages:\n"
        "  - resize: {width: 120, height: 120, fit: inside}\n");
    const char *make[] = { CORPUS_SCRIPT, photos, NULL };
    /* The reasons must not depend on what else was in flight. */
    const char *jobs[] = { "1", "2" };
    GHashTable *seen[2] = { NULL, NULL };
    /* `own`: words of this photo's decoder, which no other reason may hold. */
    static const struct {
        const char *name, *status, *code, *words, *own;
    } expect[] = {
        { "whole-jpg.jpg", "done", "", "", NULL },
        { "whole-png.png", "done", "", "", NULL },
        { "whole-webp.webp", "done", "", "", NULL },
        { "whole-tif.tif", "done", "", "", NULL },
        { "whole-avif.avif", "done", "", "", NULL },
        { "whole-gif.gif", "done", "", "", NULL },
        { "png-named.jpg", "done", "", "", NULL },
        { "jpg-named.png", "done", "", "", NULL },
        { "truncated-jpg.jpg", "failed", "input", "Premature end of input file", "VipsJpeg" },
        { "truncated-png.png", "failed", "input", "libpng read error", "libpng" },
        { "truncated-webp.webp", "failed", "input", "unable to parse image", "webp:" },
        { "truncated-tif.tif", "failed", "input", "TIFF directory", "TIFFReadDirectory" },
        { "truncated-avif.avif", "failed", "input", "Unexpected end of file", "heif:" },
        { "header-only.jpg", "failed", "input", "Premature end of input file", "VipsJpeg" },
        { "svgz-named.jpg", "failed", "input", "it is gzip-compressed data (an .svgz?)", NULL },
        { "svg-named.png", "failed", "input", "it is text markup (SVG, HTML or XML)", NULL },
        { "pdf-named.jpg", "failed", "input", "it is a PDF document", NULL },
        { "text-named.webp", "failed", "input", "it is text (gallop reads", NULL },
        { "garbage.jpg", "failed", "input", "it is data of an unknown kind (gallop reads", NULL },
        { "empty.jpg", "failed", "input", "it is an empty file", NULL },
        { "whole.dng", "done", "", "", NULL },
        { "bad-preview.dng", "done", "", "", NULL },
        { "truncated.dng", "failed", "input",
            "cannot unpack this DNG raw photo: its data ends early or is damaged", NULL },
        { "bad-offset.dng", "failed", "input",
            "cannot unpack this DNG raw photo: its data ends early or is damaged", NULL },
        { "huge-dimensions.dng", "failed", "input",
            "declares a sensor of 60000 x 60000 pixels, which no camera makes", NULL },
        { "huge-but-possible.dng", "failed", "input",
            "declares a sensor of 16000 x 12000 pixels, but the file is only 7 KB", NULL },
        { "garbage-cr2.cr2", "failed", "input", "cannot read this Canon CR2 raw photo: ", NULL },
        { "garbage-cr3.cr3", "failed", "input", "cannot read this Canon CR3 raw photo: ", NULL },
        { "garbage-orf.orf", "failed", "input", "cannot read this Olympus ORF raw photo: ",
            NULL },
        { "garbage-raf.raf", "failed", "input", "cannot read this Fujifilm RAF raw photo: ",
            NULL },
        { "garbage-rw2.rw2", "failed", "input", "cannot read this Panasonic RW2 raw photo: ",
            NULL },
        { "fifo.jpg", "ignored", "input", "not a regular file", NULL },
        { "dangling.jpg", "ignored", "input", "a symbolic link to nothing", NULL },
        { "loop-a.jpg", "ignored", "input", "a symbolic link loop", NULL },
        { "zero.jpg", "ignored", "input", "outside the input folder: not followed", NULL },
    };
    static const char *const owned[] = { "VipsJpeg", "libpng", "webp:", "TIFFReadDirectory",
        "heif:" };

    cr_assert_eq(gal_test_spawn(make, NULL, NULL), 0, "cannot make the corpus");
    for (int k = 0; k < 2; k++) {
        g_autofree char *out = g_strdup_printf("%s/out-j%s", tmp, jobs[k]);
        g_autofree char *report = g_strdup_printf("%s/report-j%s.json", tmp, jobs[k]);
        g_autofree char *err = NULL;
        const char *args[] = { "run", preset, photos, "-o", out, "-j", jobs[k], "--report",
            report, "-q", NULL };

        cr_expect_eq(run(args, NULL, &err), 1, "-j %s: %s", jobs[k], err);
        seen[k] = outcomes(report);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(expect); i++) {
        const photo_outcome *o = g_hash_table_lookup(seen[1], expect[i].name);
        const photo_outcome *alone = g_hash_table_lookup(seen[0], expect[i].name);

        cr_assert_not_null(o, "%s is not in the report", expect[i].name);
        cr_assert_not_null(alone);
        cr_expect_str_eq(o->status, expect[i].status, "%s: %s (%s)", expect[i].name, o->status,
            o->message);
        cr_expect_str_eq(o->code, expect[i].code, "%s: code %s (%s)", expect[i].name, o->code,
            o->message);
        cr_expect(strstr(o->message, expect[i].words) != NULL, "%s: \"%s\" not in \"%s\"",
            expect[i].name, expect[i].words, o->message);
        cr_expect_str_eq(o->message, alone->message, "%s: -j 2 and -j 1 give other reasons",
            expect[i].name);
        for (size_t w = 0; w < G_N_ELEMENTS(owned); w++)
            if (strstr(o->message, owned[w]) &&
                !(expect[i].own && strcmp(expect[i].own, owned[w]) == 0))
                cr_expect_fail("%s: another photo's words \"%s\" in \"%s\"", expect[i].name,
                    owned[w], o->message);
    }
    g_hash_table_unref(seen[0]);
    g_hash_table_unref(seen[1]);
}

Test(hostile, a_link_to_nothing_named_on_the_command_line_is_one_bad_input)
{
    g_autofree char *tmp = gal_test_tmpdir("hostile-argv-link");
    g_autofree char *good = g_build_filename(tmp, "trip-01.jpg", NULL);
    g_autofree char *dangling = g_build_filename(tmp, "dangling.jpg", NULL);
    g_autofree char *loop = g_build_filename(tmp, "loop.jpg", NULL);
    g_autofree char *out = g_build_filename(tmp, "out", NULL);
    g_autofree char *written = g_build_filename(out, "trip-01.jpg", NULL);
    g_autofree char *preset = gal_test_write_preset(tmp, "p.yaml", plain_preset);
    g_autofree char *err = NULL;
    const char *args[] = { "run", preset, dangling, loop, good, "-o", out, NULL };

    gal_test_copy_trip(tmp, 1, NULL);
    cr_assert_eq(symlink("nowhere.jpg", dangling), 0);
    cr_assert_eq(symlink("loop.jpg", loop), 0);
    cr_expect_eq(run(args, NULL, &err), 1, "%s", err);
    cr_expect(exists(written), "%s", err);
    cr_expect(strstr(err, "dangling.jpg: a symbolic link to nothing") != NULL, "%s", err);
    cr_expect(strstr(err, "loop.jpg: a symbolic link loop") != NULL, "%s", err);
}
