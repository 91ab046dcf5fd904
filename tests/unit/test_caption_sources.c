/* The caption sources' table (caption_source.h) and what captions.c does
 * alike for every source: the files a photo's caption depends on, in the
 * order of captions.sources, the rows a table or export gives a photo (the
 * "row:" digests a record keeps), and what `describe` says the preset
 * read. test_captions.c tries each source's format and errors. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>

#include "caption_source.h"
#include "gal_test.h"

TestSuite(caption_sources, .init = gal_test_setup, .fini = gal_test_teardown);

#define CAPTIONS_DIR GAL_FIXTURES_DIR "/captions"

/* ---- the table ------------------------------------------------------------------ */

static const gal_caption_source *
source_named(const char *name)
{
    for (int k = 0; gal__caption_sources[k]; k++)
        if (strcmp(gal__caption_sources[k]->name, name) == 0)
            return gal__caption_sources[k];
    return NULL;
}

static const gal_param *
captions_key(const char *field)
{
    for (const gal_param *p = gal__captions_section.params; p->field; p++)
        if (strcmp(p->field, field) == 0)
            return p;
    return NULL;
}

/* What captions.c takes for granted of every line of caption_sources.def. */
Test(caption_sources, every_source_is_complete)
{
    for (int k = 0; gal__caption_sources[k]; k++) {
        const gal_caption_source *s = gal__caption_sources[k];

        cr_assert_not_null(s->name);
        cr_expect_eq(source_named(s->name), s, "%s: named twice", s->name);
        if (s->members) {
            cr_expect(!s->key && !s->prepare && !s->caption && !s->own_files &&
                    !s->shared_files && !s->release,
                "%s: a group has nothing but its members", s->name);
            for (int m = 0; s->members[m]; m++) {
                const gal_caption_source *member = source_named(s->members[m]);

                cr_expect(member && !member->members, "%s: member %s is no source", s->name,
                    s->members[m]);
            }
            continue;
        }
        cr_expect_not_null(s->caption, "%s: gives no caption", s->name);
        if (s->key) {
            const gal_param *p = captions_key(s->key);

            cr_expect(p && (p->type == GAL_T_PATH || p->type == GAL_T_PATHLIST),
                "%s: captions.%s is not a path or a list of paths", s->name, s->key);
            cr_expect(s->given && s->prepare, "%s: a key feeds prepare", s->name);
        }
        cr_expect(!s->prepare || s->key, "%s: prepared only when its key is set", s->name);
        cr_expect(!(s->prepare || s->from_string) || s->release, "%s: frees its state",
            s->name);
        cr_expect(!s->row || s->shared_files, "%s: a row of which file?", s->name);
    }
}

/* The names messages list come from the table, in its order. */
Test(caption_sources, an_unknown_source_lists_every_name)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\ncaptions: { sources: [lightroom] }\n", errs);

    cr_assert_null(preset);
    cr_assert_eq(errs->count, 1);
    cr_expect_str_eq(errs->items[0].msg,
        "unknown source \"lightroom\"; sources are sidecar, table, instagram, metadata, exif, "
        "xmp, iptc");
}

/* ---- what every source shares ----------------------------------------------------- */

static char *
write_file(const char *dir, const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);

    cr_assert(g_file_set_contents(path, text, -1, NULL), "cannot write %s", path);
    return path;
}

/* The digest a record keeps for what a shared file gives a photo: of its
 * caption there, or of none. Written out here, not taken from captions.c,
 * so that a record written before a change still matches after it. */
static void
expected_row(const char *caption, char *out)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    const char *text = caption ? "row\n" : "no row\n";

    g_checksum_update(sum, (const guchar *) text, -1);
    if (caption)
        g_checksum_update(sum, (const guchar *) caption, -1);
    g_snprintf(out, GAL_CAPTION_ROW_LEN, "row:%.16s", g_checksum_get_string(sum));
}

static void
expect_row(const gal_caption_row *row, const char *path, const char *caption)
{
    char digest[GAL_CAPTION_ROW_LEN];
    struct stat st;

    expected_row(caption, digest);
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_str_eq(row->path, path);
    cr_expect_str_eq(row->digest, digest, "%s: the row of \"%s\"", path,
        caption ? caption : "(none)");
    cr_expect_eq(row->size, st.st_size);
    cr_expect_eq(row->mtime_ns, gal__mtime_ns(&st));
}

/* An export folder of two posts files: one.jpg is in both (the first file
 * wins), two.jpg only in the second. */
static char *
two_file_export(char **first, char **second)
{
    char *dir = gal_test_tmpdir("export");

    *first = write_file(dir, "posts_1.json",
        "[{\"media\": [{\"uri\": \"m/one.jpg\", \"title\": \"first file\"}]}]");
    *second = write_file(dir, "posts_2.json",
        "[{\"media\": [{\"uri\": \"m/one.jpg\", \"title\": \"second file\"}, "
        "{\"uri\": \"m/two.jpg\", \"title\": \"only here\"}]}]");
    return dir;
}

Test(caption_sources, a_captions_files_follow_the_order_of_the_sources)
{
    g_autofree char *first = NULL;
    g_autofree char *second = NULL;
    g_autofree char *dir = two_file_export(&first, &second);
    g_autofree char *yaml = g_strdup_printf("gallop: 1\n"
                                            "captions:\n"
                                            "  sources: [instagram, metadata, sidecar, table]\n"
                                            "  table: " CAPTIONS_DIR "/captions.tsv\n"
                                            "  instagram: %s\n",
        dir);
    gal_preset *preset = gal_test_load_ok(yaml);
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) own = g_ptr_array_new_with_free_func(g_free);

    gal__caption_files(preset->captions, "/photos/IMG_1.jpg", files);
    cr_assert_eq(files->len, 5);
    cr_expect_str_eq(files->pdata[0], first);
    cr_expect_str_eq(files->pdata[1], second);
    cr_expect_str_eq(files->pdata[2], "/photos/IMG_1.jpg.txt");
    cr_expect_str_eq(files->pdata[3], "/photos/IMG_1.txt");
    cr_expect_str_eq(files->pdata[4], CAPTIONS_DIR "/captions.tsv");
    /* Added once each, to what is there. */
    gal__caption_files(preset->captions, "/photos/IMG_1.jpg", files);
    cr_expect_eq(files->len, 5);
    gal__caption_own_files(preset->captions, "/photos/IMG_1.jpg", own);
    cr_assert_eq(own->len, 2, "a photo's own files: its sidecars");
    cr_expect_str_eq(own->pdata[0], "/photos/IMG_1.jpg.txt");
    cr_expect_str_eq(own->pdata[1], "/photos/IMG_1.txt");
    gal_preset_free(preset);
}

Test(caption_sources, a_photos_metadata_is_no_file_of_its_caption)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\ncaptions: { sources: [metadata] }\n");
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(gal_caption_row));

    gal__caption_files(preset->captions, "/photos/IMG_1.jpg", files);
    gal__caption_own_files(preset->captions, "/photos/IMG_1.jpg", files);
    gal__caption_rows(preset->captions, "/photos/IMG_1.jpg", rows);
    cr_expect_eq(files->len, 0);
    cr_expect_eq(rows->len, 0);
    gal_preset_free(preset);
}

Test(caption_sources, a_table_and_an_export_give_each_photo_its_row)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n"
                                 "captions:\n"
                                 "  sources: [sidecar, table, instagram]\n"
                                 "  table: " CAPTIONS_DIR "/captions.tsv\n"
                                 "  instagram: " CAPTIONS_DIR "/instagram\n");
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(gal_caption_row));
    const char *posts = CAPTIONS_DIR "/instagram/posts_1.json";
    gal_caption_row row;

    /* Rows for a photo both give a caption, whichever one wins. */
    gal__caption_rows(preset->captions, "/anywhere/table.jpg", rows);
    cr_assert_eq(rows->len, 2);
    expect_row(&g_array_index(rows, gal_caption_row, 0), CAPTIONS_DIR "/captions.tsv",
        "Table caption with <b>markup</b> & an \"HTML\" <a "
        "href=\"http://example.com/a-b/c?d=e&f=g\">link</a>");
    expect_row(&g_array_index(rows, gal_caption_row, 1), posts, "Instagram caption of table");
    /* ... and for one that neither has: the digest of no row. */
    g_array_set_size(rows, 0);
    gal__caption_rows(preset->captions, "/anywhere/none.jpg", rows);
    cr_assert_eq(rows->len, 2);
    expect_row(&g_array_index(rows, gal_caption_row, 0), CAPTIONS_DIR "/captions.tsv", NULL);
    expect_row(&g_array_index(rows, gal_caption_row, 1), posts, NULL);
    /* One file's row, as an incremental run asks for it again. */
    cr_assert(gal__caption_row(preset->captions, posts, "/x/IMG_0042.jpg", &row));
    expect_row(&row, posts, NULL);
    cr_assert(gal__caption_row(preset->captions, CAPTIONS_DIR "/captions.tsv", "/x/IMG_0042.jpg",
        &row));
    expect_row(&row, CAPTIONS_DIR "/captions.tsv", "Matched by stem: the table gives no extension");
    cr_expect_not(gal__caption_row(preset->captions, CAPTIONS_DIR "/captions.csv", "/x/a.jpg",
                      &row), "a file the preset did not read");
    cr_expect_not(gal__caption_row(NULL, posts, "/x/a.jpg", &row), "no captions");
    gal_preset_free(preset);
}

Test(caption_sources, a_post_counts_for_the_export_file_it_is_in)
{
    g_autofree char *first = NULL;
    g_autofree char *second = NULL;
    g_autofree char *dir = two_file_export(&first, &second);
    g_autofree char *yaml = g_strdup_printf("gallop: 1\ncaptions: { instagram: %s }\n", dir);
    gal_preset *preset = gal_test_load_ok(yaml);
    g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(gal_caption_row));

    gal__caption_rows(preset->captions, "/p/one.jpg", rows);
    cr_assert_eq(rows->len, 2);
    expect_row(&g_array_index(rows, gal_caption_row, 0), first, "first file");
    expect_row(&g_array_index(rows, gal_caption_row, 1), second, NULL);
    g_array_set_size(rows, 0);
    gal__caption_rows(preset->captions, "/p/two.jpg", rows);
    cr_assert_eq(rows->len, 2);
    expect_row(&g_array_index(rows, gal_caption_row, 0), first, NULL);
    expect_row(&g_array_index(rows, gal_caption_row, 1), second, "only here");
    gal_preset_free(preset);
}

Test(caption_sources, describe_says_what_was_read)
{
    gal_preset *preset = gal_test_load_ok("gallop: 1\n"
                                 "captions:\n"
                                 "  table: " CAPTIONS_DIR "/captions.tsv\n"
                                 "  instagram: " CAPTIONS_DIR "/instagram\n");
    g_autoptr(GString) out = g_string_new(NULL);

    gal__captions_describe(preset->captions, out);
    cr_expect(g_str_has_suffix(out->str, " (table: 7 rows) (instagram: 7 media in 1 files)"), "%s",
        out->str);
    cr_expect(g_str_has_prefix(out->str, "sources=[sidecar, table, instagram, metadata]"), "%s",
        out->str);
    gal_preset_free(preset);
}

/* The fuzz targets' way in: bytes in memory, read as a table (which
 * replaces the one before) or an export file (whose posts are added). */
Test(caption_sources, tables_and_exports_read_from_memory)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    g_autoptr(GString) out = g_string_new(NULL);
    g_autoptr(GStringChunk) strings = g_string_chunk_new(256);
    static const char table[] = "a.jpg\tfrom the table\nb.jpg\tsecond\n";
    static const char posts[] = "[{\"media\": [{\"uri\": \"x/c.jpg\", \"title\": \"posted\"}]}]";
    gal_captions *c = NULL;
    gal_facts facts = { 0 };
    gal_error err = { 0 };

    cr_assert_eq(gal__captions_load(NULL, FALSE, &c, errs), 0);
    cr_assert_eq(gal__captions_from_string(c, "table", "t.tsv", table, strlen(table), errs), 0);
    cr_assert_eq(gal__captions_from_string(c, "table", "t.tsv", "one cell\n", 9, errs), -1);
    cr_assert_eq(gal__captions_from_string(c, "table", "t.tsv", table, strlen(table), errs), 0);
    cr_assert_eq(gal__captions_from_string(c, "instagram", "posts_1.json", posts, strlen(posts), errs),
        0);
    cr_assert_eq(gal__captions_from_string(c, "instagram", "posts_2.json", posts, strlen(posts), errs),
        0);
    gal__captions_describe(c, out);
    cr_expect(g_str_has_suffix(out->str, " (table: 2 rows) (instagram: 2 media in 2 files)"), "%s",
        out->str);
    cr_assert_eq(gal__caption_resolve(c, &(gal_photo_ref) { .path = "/p/c.jpg" }, NULL, &facts,
                     strings, &err), 0);
    cr_expect_str_eq(facts.caption, "posted");
    cr_expect_str_eq(facts.caption_source, "instagram:posts_1.json");
    cr_assert_eq(gal__caption_resolve(c, &(gal_photo_ref) { .path = "/p/b.jpg" }, NULL, &facts,
                     strings, &err), 0);
    cr_expect_str_eq(facts.caption, "second");
    cr_expect_str_eq(facts.caption_source, "table", "read from memory: no file to name");
    gal__captions_free(c);
}
