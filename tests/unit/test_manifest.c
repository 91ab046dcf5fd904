/* The manifest (manifest.c): its file survives any path, reads back what
 * was written, shrugs off damage; the preset digest covers what shapes an
 * output (file contents included) and nothing else. Also the JSON of the
 * report and log events (report.c), checked with a strict parser. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"
#include "gal_test_json.h"
#include "fields.h"
#include "part.h"

TestSuite(manifest, .init = gal_test_setup, .fini = gal_test_teardown);

static const char hash_a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char hash_b[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static gal_manifest_entry *
entry(const char *output, const char *input)
{
    gal_manifest_entry *e = gal__manifest_entry_new();

    e->output = g_strdup(output);
    e->input = g_strdup(input);
    e->tail->in_size = 123456789012LL;
    e->tail->in_mtime_ns = 1700000000123456789LL;
    gal__digest_from_hex(&e->tail->in_digest, hash_a);
    gal__manifest_entry_set_recipe(e, hash_b, "0.1.0");
    e->tail->out_size = 4242;
    e->tail->out_mtime_ns = 1700000001000000000LL;
    gal__digest_from_hex(&e->tail->out_sha256, hash_b);
    e->tail->width = 1080;
    e->tail->height = 1350;
    return e;
}

Test(manifest, reads_back_what_it_wrote_whatever_the_paths)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-roundtrip");
    gal_manifest *m = gal__manifest_new(dir);
    gal_manifest *back;
    gal_error err = { 0 };
    const char *const weird = "a\tb\nc\\d \xea\xb3\xa0\xeb\xa0\xa4.jpg";
    gal_manifest_entry *e = entry(weird, "../in/a\tb\nc\\d.jpg");
    gal_manifest_entry *got;
    g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
    const gal_dep_record *dep;
    char hex[GAL_SHA256_HEX_LEN + 1];

    e->tail->caption = gal__shared_text("two\tlines\nof \xea\xb3\xa0 caption");
    e->tail->caption_source = gal__shared_text("sidecar:/srv/captions/a.txt");
    e->tail->caption_cut = TRUE;
    gal__manifest_add_dep(e, "/srv/captions/a.txt", TRUE, 10, 20, hash_a);
    gal__manifest_add_dep(e, "/srv/captions/none.txt", FALSE, 0, 0, NULL);
    gal__manifest_put(m, e);
    gal__manifest_put(m, entry("sheet-1.jpg", ""));
    gal__manifest_find(m, "sheet-1.jpg")->sheet = TRUE;
    /* Backslashes at a field's end, doubled, and before a 't'. */
    gal__manifest_put(m, entry("end\\", "../in/\\\\\\t\t\\"));
    g_ptr_array_add(keys, g_strdup("output.quality=82"));
    g_ptr_array_add(keys, g_strdup("output.name=\"a\tb\""));
    gal__manifest_put_keys(m, hash_b, keys);
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    gal__manifest_free(m);

    back = gal__manifest_load(dir);
    cr_assert_eq(g_hash_table_size(back->entries), 3);
    got = gal__manifest_find(back, "end\\");
    cr_assert_not_null(got, "the entry whose path ends with a backslash is lost");
    cr_expect_str_eq(got->input, "../in/\\\\\\t\t\\");
    cr_expect_eq(got->tail->width, 1080, "the fields after it are read as they were");
    got = gal__manifest_find(back, weird);
    cr_assert_not_null(got, "the entry with tabs and newlines in its path is lost");
    cr_expect_str_eq(got->input, "../in/a\tb\nc\\d.jpg");
    cr_expect_eq(got->tail->in_size, 123456789012LL);
    cr_expect_eq(got->tail->in_mtime_ns, 1700000000123456789LL);
    cr_expect_str_eq(gal__digest_hex(&got->tail->in_digest, hex), hash_a);
    cr_expect_str_eq(gal__digest_hex(&got->tail->out_sha256, hex), hash_b);
    cr_expect_str_eq(got->tail->preset_digest, hash_b);
    cr_expect_str_eq(got->tail->version, "0.1.0");
    cr_expect_eq(got->tail->out_size, 4242);
    cr_expect_eq(got->tail->width, 1080);
    cr_expect_eq(got->tail->height, 1350);
    cr_expect_not(got->sheet);
    cr_expect_str_eq(got->tail->caption, "two\tlines\nof \xea\xb3\xa0 caption");
    cr_expect_str_eq(got->tail->caption_source, "sidecar:/srv/captions/a.txt");
    cr_expect(got->tail->caption_cut);
    cr_expect_null(gal__manifest_find(back, "sheet-1.jpg")
                       ->tail->caption);
    cr_assert_eq(got->tail->deps->len, 2);
    dep = got->tail->deps->pdata[0];
    cr_expect_str_eq(dep->path, "/srv/captions/a.txt");
    cr_expect(dep->exists);
    cr_expect_str_eq(dep->digest, hash_a);
    dep = got->tail->deps->pdata[1];
    cr_expect_not(dep->exists);
    cr_expect(gal__manifest_find(back, "sheet-1.jpg")->sheet);
    {
        GPtrArray *k = g_hash_table_lookup(back->presets, hash_b);

        cr_assert_not_null(k);
        cr_assert_eq(k->len, 2);
        cr_expect_str_eq(k->pdata[1], "output.name=\"a\tb\"");
    }
    gal__manifest_free(back);
}

/* A record's about is one shared block: its own copy of the strings, read
 * back from the file as written, and shared (not copied) by a copy of the
 * record, each reference let go on its own (ASan: no leak, no double free). */
Test(manifest, about_is_one_shared_block_read_back_as_written)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-about");
    g_autofree char *taken = g_strdup("taken=2014-04-11T11:25:09");
    const char *fields[] = { "camera=NIKON D750", taken, "warning=a \"quoted\"\tline", "x=" };
    gal_manifest *m = gal__manifest_new(dir);
    gal_manifest_entry *e = entry("a.jpg", "../in/a.jpg"), *copy, *got;
    const char *const *in_memory;
    gal_manifest *back;
    gal_error err = { 0 };
    gal_about *shared;
    g_auto(GStrv) read = NULL, read_after = NULL;

    e->about = gal__about_new(fields, G_N_ELEMENTS(fields));
    taken[0] = 'T'; /* the block has its own copy */
    in_memory = gal__about_in_memory(e->about);
    cr_assert_not_null(in_memory);
    cr_assert_str_eq(in_memory[1], "taken=2014-04-11T11:25:09");
    cr_assert_null(in_memory[G_N_ELEMENTS(fields)]);
    copy = gal__manifest_entry_copy(e);
    cr_expect_eq(copy->about, e->about, "a copy of the record shares its about");
    shared = gal__about_ref(e->about);
    gal__manifest_entry_free(copy);
    gal__manifest_put(m, e);
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    gal__manifest_free(m);
    cr_expect_str_eq(gal__about_in_memory(shared)[0], "camera=NIKON D750",
        "a result's reference outlives the record");
    gal__about_unref(shared);

    back = gal__manifest_load(dir);
    got = gal__manifest_find(back, "a.jpg");
    cr_assert_not_null(got);
    cr_assert_not_null(got->about);
    cr_expect_null(gal__about_in_memory(got->about), "an about read is left in its file");
    read = gal__about_fields(got->about);
    cr_assert_not_null(read);
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
        cr_expect_str_eq(read[i], i == 1 ? "taken=2014-04-11T11:25:09" : fields[i]);
    cr_expect_null(read[G_N_ELEMENTS(fields)]);
    shared = gal__about_ref(got->about);
    gal__manifest_free(back);
    read_after = gal__about_fields(shared);
    cr_assert_not_null(read_after, "a result's reference outlives the manifest read");
    cr_expect_str_eq(read_after[0], "camera=NIKON D750");
    gal__about_unref(shared);
    cr_expect_null(gal__about_ref(NULL));
    cr_expect_null(gal__about_fields(NULL));
    gal__about_unref(NULL);
}

/* About lines read from a file stay there: saved again, the manifest is
 * the same text (lines as they were, or, when a field was refused or
 * escaped, written anew without it); the file replaced by another (the
 * run's own save) still gives what was read; changed in place, it gives
 * nothing rather than what is there now. */
Test(manifest, about_lines_stay_in_their_file_and_are_saved_as_they_were)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-about-file");
    g_autofree char *again = g_build_filename(dir, "again", NULL);
    g_autofree char *path = g_build_filename(dir, GAL_MANIFEST_NAME, NULL);
    g_autofree char *path_again = g_build_filename(again, GAL_MANIFEST_NAME, NULL);
    g_autofree char *written = NULL, *damaged = NULL, *saved = NULL;
    const char *escaped[] = { "camera=A\\B", "lens=tab\there" };
    const char *plain[] = { "camera=NIKON D750", "placeholder=data:image/webp;base64,UklGRg==" };
    gal_manifest *m = gal__manifest_new(dir), *back;
    gal_manifest_entry *a = entry("a.jpg", "../in/a.jpg"), *b = entry("b.jpg", "../in/b.jpg");
    gal_manifest_entry *c = entry("c.jpg", "../in/c.jpg");
    gal_about *kept_a, *kept_b;
    gal_error err = { 0 };
    char *line;

    a->about = gal__about_new(escaped, G_N_ELEMENTS(escaped));
    b->about = gal__about_new(plain, G_N_ELEMENTS(plain));
    c->about = gal__about_new(plain, G_N_ELEMENTS(plain));
    gal__manifest_put(m, a);
    gal__manifest_put(m, b);
    gal__manifest_put(m, c);
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    gal__manifest_free(m);
    cr_assert(g_file_get_contents(path, &written, NULL, NULL));
    /* A field the manifest does not keep, in b's line. */
    line = strstr(written, "\tcamera=NIKON D750");
    cr_assert_not_null(line);
    damaged = g_strdup_printf("%.*s\tBad Key=1%s", (int) (line - written), written, line);
    cr_assert(g_file_set_contents(path, damaged, -1, NULL));

    back = gal__manifest_load(dir);
    cr_assert_eq(g_hash_table_size(back->entries), 3);
    kept_a = gal__about_ref(gal__manifest_find(back, "a.jpg")->about);
    kept_b = gal__about_ref(gal__manifest_find(back, "b.jpg")->about);
    {
        g_auto(GStrv) fields_a = gal__about_fields(kept_a);
        g_auto(GStrv) fields_b = gal__about_fields(kept_b);

        cr_assert_not_null(fields_a);
        cr_assert_not_null(fields_b);
        cr_expect_str_eq(fields_a[0], "camera=A\\B");
        cr_expect_str_eq(fields_a[1], "lens=tab\there");
        cr_expect_null(fields_a[2]);
        cr_expect_eq(g_strv_length(fields_b), 2, "the refused field is left out");
        cr_expect_str_eq(fields_b[1], plain[1]);
    }
    g_free(back->dir);
    back->dir = g_strdup(again);
    cr_assert_eq(gal__manifest_save(back, &err), 0, "%s", err.msg);
    cr_assert(g_file_get_contents(path_again, &saved, NULL, NULL));
    cr_expect_str_eq(saved, written, "saved again, the manifest is the text first written");

    /* The file replaced, as a run's save replaces it: what was read stays. */
    cr_assert_eq(rename(path_again, path), 0);
    gal__manifest_free(back);
    {
        g_auto(GStrv) fields_b = gal__about_fields(kept_b);

        cr_assert_not_null(fields_b);
        cr_expect_str_eq(fields_b[0], plain[0]);
    }
    gal__about_unref(kept_a);
    gal__about_unref(kept_b);

    /* Changed in place under the run: nothing, not what is there now (b's
     * line cut after its first field, which looks like a line of one). */
    back = gal__manifest_load(dir);
    kept_b = gal__about_ref(gal__manifest_find(back, "b.jpg")->about);
    cr_assert_eq(truncate(path, (off_t) (strstr(written, "about\tb.jpg") - written) +
                                    (off_t) strlen("about\tb.jpg\tcamera=NIKON D750")),
        0);
    cr_expect_null(gal__about_fields(kept_b), "a line cut short reads as nothing");
    g_free(back->dir);
    back->dir = g_strdup(again);
    cr_assert_eq(gal__manifest_save(back, &err), 0, "%s", err.msg);
    g_free(saved);
    cr_assert(g_file_get_contents(path_again, &saved, NULL, NULL));
    cr_expect_null(strstr(saved, "about\tb.jpg"), "nor is it saved");
    cr_expect_not_null(strstr(saved, "about\ta.jpg"));
    gal__about_unref(kept_b);
    gal__manifest_free(back);

    /* A file whose last line has no newline: that line is whole. */
    cr_assert(g_file_set_contents(path, written, (gssize) strlen(written) - 1, NULL));
    back = gal__manifest_load(dir);
    {
        g_auto(GStrv) fields_c = gal__about_fields(
            gal__manifest_find(back, "c.jpg")->about);

        cr_assert_not_null(fields_c, "the last line, without its newline, is lost");
        cr_expect_str_eq(fields_c[1], plain[1]);
    }
    gal__manifest_free(back);
}

static int
compare_c_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Records are written in the byte order of their outputs (strcmp's),
 * whatever their lengths about the 16 bytes compared first and whatever
 * bytes they hold: names that end, or differ, before, at and after it;
 * and as many as are sorted in two halves on two threads, the names
 * above among them. */
Test(manifest, records_are_written_in_the_byte_order_of_their_names)
{
    static const char *const names[] = { "a", "a/b", "a.jpg", "ab", "abcdefghijklmno",
        "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopa", "abcdefghijklmnoq",
        "abcdefghijklmnoo", "abcdefghijklmnop/x", "DSC_0000000.jpg", "DSC_0000001.jpg",
        "DSC_00000000.jpg", "DSC_0000000.jpg.webp", "Z.jpg", "\xea\xb3\xa0.jpg",
        "\xc3\xa9.jpg", "\x7f.jpg", "~.jpg", "2024/06/01/IMG_0001.jpg",
        "2024/06/01/IMG_0001-1.jpg", "2024/06/01/IMG_0001.jpg.png" };
    g_autofree char *dir = gal_test_tmpdir("manifest-order");
    gal_manifest *m = gal__manifest_new(dir);
    g_autoptr(GPtrArray) want = g_ptr_array_new();
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    g_autoptr(GPtrArray) many = g_ptr_array_new_with_free_func(g_free);
    guint got = 0;

    /* Put in an order of their own (the table's is its own anyway). */
    for (int i = (int) G_N_ELEMENTS(names) - 1; i >= 0; i--) {
        gal__manifest_put(m, entry(names[i], "../in/a.jpg"));
        g_ptr_array_add(want, (gpointer) names[i]);
    }
    for (int i = 0; i < 40000; i++) {
        /* 7919 is prime: every number below 40000 once, scrambled. */
        char *name = g_strdup_printf("abcdefghijklmnop%05d.jpg", (i * 7919) % 40000);

        g_ptr_array_add(many, name);
        gal__manifest_put(m, entry(name, "../in/a.jpg"));
        g_ptr_array_add(want, name);
    }
    g_ptr_array_sort(want, compare_c_strings);
    text = gal__manifest_text(m);
    lines = g_strsplit(text, "\n", -1);
    for (int l = 0; lines[l]; l++) {
        g_auto(GStrv) fields = NULL;

        if (!g_str_has_prefix(lines[l], "output\t"))
            continue;
        fields = g_strsplit(lines[l], "\t", 3);
        cr_assert_lt(got, want->len);
        cr_expect_str_eq(fields[1], want->pdata[got], "record %u", got);
        got++;
    }
    cr_expect_eq(got, want->len);
    gal__manifest_free(m);
}

Test(manifest, damaged_lines_and_foreign_files_read_as_nothing)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-damaged");
    g_autofree char *path = g_build_filename(dir, GAL_MANIFEST_NAME, NULL);
    g_autofree char *good = NULL;
    gal_manifest *m = gal__manifest_new(dir);
    gal_manifest *back;

    gal__manifest_put(m, entry("ok.jpg", "../ok.jpg"));
    good = gal__manifest_text(m);
    gal__manifest_free(m);

    /* A cut line, a bad hash, a non-number: dropped; the good line stays. */
    {
        g_autofree char *text = g_strconcat(good,
            "output\tcut.jpg\t../cut.jpg\t1\n",
            "output\tbadhash.jpg\t../b.jpg\t1\t2\tzz\t", hash_b, "\t0.1.0\t1\t2\t", hash_b,
            "\t3\t4\n",
            "output\tnan.jpg\t../n.jpg\tx\t2\t", hash_a, "\t", hash_b, "\t0.1.0\t1\t2\t", hash_b,
            "\t3\t4\n",
            /* A preset digest that is none, after a record whose is one. */
            "output\tok2.jpg\t../ok2.jpg\t1\t2\t", hash_a, "\t", hash_b, "\t0.1.0\t1\t2\t",
            hash_b, "\t3\t4\n",
            "output\tbadpreset.jpg\t../p.jpg\t1\t2\t", hash_a, "\tg", hash_b + 1,
            "\t0.1.0\t1\t2\t", hash_b, "\t3\t4\n",
            "output\tshortpreset.jpg\t../s.jpg\t1\t2\t", hash_a, "\t", hash_b + 1,
            "\t0.1.0\t1\t2\t", hash_b, "\t3\t4\n",
            "future-kind\twhatever\n", NULL);

        cr_assert(g_file_set_contents(path, text, -1, NULL));
    }
    for (int in_file = 0; in_file < 2; in_file++) {
        back = in_file ? gal__manifest_load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE)
                       : gal__manifest_load(dir);
        cr_expect_eq(g_hash_table_size(back->entries), 2, "tails in the file: %d", in_file);
        cr_expect_not_null(gal__manifest_find(back, "ok.jpg"));
        cr_expect_not_null(gal__manifest_find(back, "ok2.jpg"));
        gal__manifest_free(back);
    }

    cr_assert(g_file_set_contents(path, "gallop-manifest\t3\n", -1, NULL));
    back = gal__manifest_load(dir);
    cr_expect_eq(g_hash_table_size(back->entries), 0, "a newer format is not guessed at");
    gal__manifest_free(back);
}

/* Each manifest whose about lines stay in it holds its file open: past 256
 * of them, the next ones are read into memory instead (a merge of more
 * shards than that), and a file let go makes room again. */
Test(manifest, past_256_open_manifests_about_lines_are_kept_in_memory)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-about-many");
    g_autofree char *text = NULL;
    const char *fields[] = { "camera=NIKON D750" };
    gal_manifest *m = gal__manifest_new(dir), *loaded[300];
    gal_manifest_entry *e = entry("a.jpg", "../in/a.jpg");
    int on_file = 0;

    e->about = gal__about_new(fields, 1);
    gal__manifest_put(m, e);
    text = gal__manifest_text(m);
    gal__manifest_free(m);
    for (int i = 0; i < 300; i++) {
        g_autofree char *name = g_strdup_printf("m-%d.tsv", i);
        g_autofree char *path = g_build_filename(dir, name, NULL);
        gal_manifest_entry *got;
        g_auto(GStrv) read = NULL;

        cr_assert(g_file_set_contents(path, text, -1, NULL));
        loaded[i] = gal__manifest_load_named(dir, name, NULL, NULL, FALSE);
        got = gal__manifest_find(loaded[i], "a.jpg");
        cr_assert_not_null(got);
        on_file += !gal__about_in_memory(got->about);
        read = gal__about_fields(got->about);
        cr_assert_not_null(read, "manifest %d: its about is lost", i);
        cr_expect_str_eq(read[0], "camera=NIKON D750");
    }
    cr_expect_eq(on_file, 256, "%d of 300 manifests' about lines stayed in their files", on_file);
    for (int i = 0; i < 300; i++)
        gal__manifest_free(loaded[i]);
    m = gal__manifest_load_named(dir, "m-0.tsv", NULL, NULL, FALSE);
    cr_expect_null(gal__about_in_memory(
                       gal__manifest_find(m, "a.jpg")->about),
        "the files let go, the next one's about stays in it again");
    gal__manifest_free(m);
}

/* About lines of every shape are taken alike from a file (where plain ones
 * are told without being split, and left there) and from text (split and
 * kept in memory): the same fields for each record, the same lines saved. */
Test(manifest, about_lines_read_alike_from_a_file_and_from_text)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-about-shapes");
    g_autofree char *path = g_build_filename(dir, GAL_MANIFEST_NAME, NULL);
    g_autofree char *records = NULL, *text = NULL, *from_file = NULL, *from_text = NULL;
    static const char *const abouts[] = {
        "about\ta.jpg\tcamera=X\tlens=Y Z\n",
        "about\tb.jpg\tCamera=X\tcamera=ok\n",       /* a key in capitals: left out */
        "about\tc.jpg\t=x\tno_equals\tk-ey=1\n",     /* none kept */
        "about\td.jpg\n",                            /* no field */
        "about\te.jpg\t\n",                          /* an empty one */
        "about\tf.jpg\tcamera=back\\\\slash\tlens=tab\\there\n",  /* escaped */
        "about\tg.jpg\tcamera=cr\r\n",               /* a carriage return */
        "about\tnone.jpg\tcamera=for no record\n",
        "about\th.jpg\tcamera=first\n",
        "about\th.jpg\tcamera=second\n",             /* the last one counts */
        "about\tk.jpg\tcamera=ok\tk-ey=1\n",           /* one kept, one not */
        "about\tl.jpg\tcamera=a\\qb\n",                /* "\q" reads as "q" */
    };
    GString *many = g_string_new("about\ti.jpg");
    GString *all;
    gal_manifest *m = gal__manifest_new(dir), *file, *mem;

    for (const char *name = "abcdefghijkl"; *name; name++) {
        g_autofree char *output = g_strdup_printf("%c.jpg", *name);
        g_autofree char *input = g_strdup_printf("../in/%c.jpg", *name);

        gal__manifest_put(m, entry(output, input));
    }
    records = gal__manifest_text(m);
    gal__manifest_free(m);
    /* i.jpg: 31 fields after the kind and name are more than a line has. */
    for (int f = 0; f < 31; f++)
        g_string_append_printf(many, "\tk%c=%d", 'a' + f % 26, f);
    g_string_append(many, "\nabout\tj.jpg");
    for (int f = 0; f < 30; f++)
        g_string_append_printf(many, "\tk%c=%d", 'a' + f % 26, f);
    g_string_append_c(many, '\n');
    all = g_string_new(records);
    for (size_t a = 0; a < G_N_ELEMENTS(abouts); a++)
        g_string_append(all, abouts[a]);
    g_string_append(all, many->str);
    g_string_free(many, TRUE);
    text = g_string_free(all, FALSE);
    cr_assert(g_file_set_contents(path, text, -1, NULL));

    file = gal__manifest_load(dir);
    mem = gal__manifest_new(dir);
    gal__manifest_parse(mem, text, NULL, NULL);
    cr_assert_eq(g_hash_table_size(file->entries), 12);
    cr_assert_eq(g_hash_table_size(mem->entries), 12);
    for (const char *name = "abcdefghijkl"; *name; name++) {
        g_autofree char *output = g_strdup_printf("%c.jpg", *name);
        gal_manifest_entry *in_file = gal__manifest_find(file, output);
        gal_manifest_entry *in_mem = gal__manifest_find(mem, output);
        g_auto(GStrv) a = gal__about_fields(in_file->about);
        g_auto(GStrv) b = gal__about_fields(in_mem->about);
        g_autofree char *joined_a = a ? g_strjoinv("|", a) : g_strdup("(none)");
        g_autofree char *joined_b = b ? g_strjoinv("|", b) : g_strdup("(none)");

        cr_expect_str_eq(joined_a, joined_b, "%s: from the file %s, from text %s", output,
            joined_a, joined_b);
    }
    {
        gal_manifest_entry *b = gal__manifest_find(file, "b.jpg");
        gal_manifest_entry *h = gal__manifest_find(file, "h.jpg");
        gal_manifest_entry *i = gal__manifest_find(file, "i.jpg");
        gal_manifest_entry *j = gal__manifest_find(file, "j.jpg");
        g_auto(GStrv) fields_b = gal__about_fields(b->about);
        g_auto(GStrv) fields_h = gal__about_fields(h->about);
        g_auto(GStrv) fields_j = gal__about_fields(j->about);

        cr_expect(fields_b && g_strv_length(fields_b) == 1 && !strcmp(fields_b[0], "camera=ok"));
        cr_expect(fields_h && !strcmp(fields_h[0], "camera=second"));
        cr_expect_null(i->about, "a line of too many fields is refused whole");
        cr_expect(fields_j && g_strv_length(fields_j) == 30);
    }
    from_file = gal__manifest_text(file);
    from_text = gal__manifest_text(mem);
    cr_expect_str_eq(from_file, from_text);
    cr_expect_not_null(strstr(from_file, "about\tf.jpg\tcamera=back\\\\slash\tlens=tab\\there\n"));
    cr_expect_not_null(strstr(from_file, "about\tg.jpg\tcamera=cr\\r\n"));
    cr_expect_not_null(strstr(from_file, "about\tl.jpg\tcamera=aqb\n"));
    gal__manifest_free(file);
    gal__manifest_free(mem);
}

/* Records read from a file with their tails left there, and their about
 * lines, are kept in the file's own memory (blocks, not an allocation
 * each): thousands of them, across many blocks, each its own; let go one
 * by one in any order, the others are whole; the about lines a run's
 * results keep outlive every record (ASan: no use after free, no leak). */
Test(manifest, records_read_from_a_file_share_its_memory_and_go_one_by_one)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-file-memory");
    gal_manifest *m = gal__manifest_new(dir), *back;
    gal_error err = { 0 };
    gal_about *kept[3];
    static const int kept_at[3] = { 1, 1001, 4999 };   /* records not removed */
    enum { N = 5000 };

    for (int k = 0; k < N; k++) {
        /* Names of every length, so that records are of many sizes. */
        g_autofree char *output = g_strdup_printf("%0*d.jpg", 1 + k % 40, k);
        g_autofree char *input = g_strdup_printf("../in/%d/%0*d.jpg", k % 7, 1 + k % 23, k);
        g_autofree char *camera = g_strdup_printf("camera=C%d", k);
        const char *about[] = { camera };
        gal_manifest_entry *e = entry(output, input);

        e->about = gal__about_new(about, 1);
        gal__manifest_put(m, e);
    }
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    gal__manifest_free(m);

    back = gal__manifest_load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE);
    cr_assert_eq(g_hash_table_size(back->entries), N);
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < N; k++) {
            g_autofree char *output = g_strdup_printf("%0*d.jpg", 1 + k % 40, k);
            g_autofree char *input = g_strdup_printf("../in/%d/%0*d.jpg", k % 7, 1 + k % 23, k);
            gal_manifest_entry *e = gal__manifest_find(back, output);

            /* The second pass: every third record went after the first. */
            if (pass == 1 && k % 3 == 0) {
                cr_expect_null(e, "%s was removed", output);
                continue;
            }
            cr_assert_not_null(e, "%s", output);
            cr_expect(e->tail_in_file, "%s: its tail is left in the file", output);
            cr_expect_str_eq(e->output, output);
            cr_expect_str_eq(e->input, input);
            if (k % 5 == 0)
                cr_expect_eq(gal__record_tail(e)->out_size, 4242, "%s", output);
            if (pass == 0 && k % 3 == 0)
                gal__manifest_remove(back, output);
        }
    for (int k = 0; k < 3; k++) {
        int at = kept_at[k];
        g_autofree char *output = g_strdup_printf("%0*d.jpg", 1 + at % 40, at);
        gal_manifest_entry *e = gal__manifest_find(back, output);

        cr_assert_not_null(e, "%s", output);
        kept[k] = gal__about_ref(e->about);
    }
    gal__manifest_free(back);
    for (int k = 0; k < 3; k++) {
        g_auto(GStrv) fields = gal__about_fields(kept[k]);
        g_autofree char *camera = g_strdup_printf("camera=C%d", kept_at[k]);

        cr_assert_not_null(fields, "an about line outlives its record");
        cr_expect_str_eq(fields[0], camera);
        gal__about_unref(kept[k]);
    }
}

/* Threads reading one file's lines at once (a rerun decides on several):
 * each its own records' tails, and all of them every about line, in
 * orders that go forward, back and apart, so windows are read and taken
 * from each other while lines are copied out of them. */
typedef struct {
    gal_manifest *m;
    int thread, n;
    gint wrong;     /* atomic */
} reading_together;

enum { READERS = 4 };

static gpointer
read_lines_in_an_order(gpointer data)
{
    reading_together *r = data;

    for (int step = 0; step < r->n; step++) {
        /* Forward, backward, by a stride, and forward from the middle. */
        int k = r->thread == 0 ? step
            : r->thread == 1   ? r->n - 1 - step
            : r->thread == 2   ? (int) (((gint64) step * 7919) % r->n)
                               : (step + r->n / 2) % r->n;
        g_autofree char *output = g_strdup_printf("%06d.jpg", k);
        g_autofree char *camera = g_strdup_printf("camera=C%d-%s", k, k % 2 ? "odd" : "even");
        gal_manifest_entry *e = gal__manifest_find(r->m, output);
        g_auto(GStrv) fields = e ? gal__about_fields(e->about) : NULL;

        if (!fields || !fields[0] || strcmp(fields[0], camera) != 0)
            g_atomic_int_inc(&r->wrong);
        /* A record's tail is its reader's alone, as a photo's is. */
        if (e && k % READERS == r->thread &&
            (gal__record_tail(e)->out_size != 4242 + k || e->lost))
            g_atomic_int_inc(&r->wrong);
    }
    return NULL;
}

Test(manifest, lines_read_on_several_threads_at_once_are_each_their_own)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-threads");
    gal_manifest *m = gal__manifest_new(dir), *back;
    gal_error err = { 0 };
    reading_together r[READERS];
    GThread *threads[READERS];
    enum { N = 20000 };

    for (int k = 0; k < N; k++) {
        g_autofree char *output = g_strdup_printf("%06d.jpg", k);
        g_autofree char *input = g_strdup_printf("../in/%d.jpg", k);
        /* Lines of many lengths, so that they straddle windows. */
        g_autofree char *camera = g_strdup_printf("camera=C%d-%s", k, k % 2 ? "odd" : "even");
        GString *padding = g_string_new("lens=");
        const char *about[2];
        gal_manifest_entry *e = entry(output, input);

        for (int c = 0; c < k % 300; c++)
            g_string_append_c(padding, (char) ('a' + c % 26));
        about[0] = camera;
        about[1] = padding->str;
        e->about = gal__about_new(about, 2);
        e->tail->out_size = 4242 + k;
        gal__manifest_put(m, e);
        g_string_free(padding, TRUE);
    }
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    gal__manifest_free(m);

    back = gal__manifest_load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE);
    cr_assert_eq(g_hash_table_size(back->entries), N);
    for (int t = 0; t < READERS; t++) {
        r[t] = (reading_together) { back, t, N, 0 };
        threads[t] = g_thread_new("reader", read_lines_in_an_order, &r[t]);
    }
    for (int t = 0; t < READERS; t++) {
        g_thread_join(threads[t]);
        cr_expect_eq(r[t].wrong, 0, "reader %d: %d lines read wrong", t, r[t].wrong);
    }
    gal__manifest_free(back);
}

/* A part's records, read by a merge with their tails left in the file
 * (all but the output's and photo's names and the preset), are the records
 * read whole: the same fields when asked, the same text when saved, the
 * lines copied only when writing them anew would give the same bytes. */
Test(manifest, records_read_alike_with_their_tails_left_in_the_file)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-tails");
    g_autofree char *path = g_build_filename(dir, GAL_MANIFEST_NAME, NULL);
    g_autofree char *text = NULL, *from_text = NULL, *from_file = NULL, *loaded = NULL;
    g_autofree char *replaced = g_build_filename(dir, "replaced", NULL);
    /* Written anew, these lines differ from the file's: read whole. */
    static const char *const rewritten[][2] = {
        { "c.jpg", "aaaaaaaa" },        /* a digest in capitals */
        { "d.jpg", "\t1700000000123456789\t" },   /* a number with a leading zero */
        { "e.jpg", NULL },              /* no name key (13 fields) */
        { "f.jpg", NULL },              /* caption fields, both empty */
        { "g.jpg", NULL },              /* "\q" in its photo's name */
        { "h.jpg", NULL },              /* a carriage return */
        { "i.jpg", NULL },              /* a contact sheet */
        { "l.jpg", NULL },              /* a time past what 64 bits hold */
    };
    gal_manifest *m = gal__manifest_new(dir), *mem, *file;
    GString *all;

    for (const char *name = "abcdefghijkl"; *name; name++) {
        g_autofree char *output = g_strdup_printf("%c.jpg", *name);
        g_autofree char *input = g_strdup_printf("../in/%c.jpg", *name);
        gal_manifest_entry *e = entry(output, input);
        const char *about[] = { "camera=NIKON D750" };

        e->tail->name_key = g_strdup_printf("{stem}.{ext}\t%d\t12", (int) (*name - 'a' + 1));
        e->about = gal__about_new(about, 1);
        if (*name == 'b' || *name == 'k') {
            e->tail->caption = gal__shared_text("Pyongyang #marathon");
            e->tail->caption_source = gal__shared_text("sidecar:a.txt");
            e->tail->caption_cut = *name == 'k';
        }
        e->sheet = *name == 'i';
        gal__manifest_put(m, e);
    }
    gal__manifest_add_dep(gal__manifest_find(m, "j.jpg"), "/t/captions.csv", TRUE,
        10, 20, "row:0123456789abcdef");
    /* A name with an escape ("\t" in the file): read whole. */
    gal__manifest_put(m, entry("tab\there.jpg", "../in/m.jpg"));
    text = gal__manifest_text(m);
    gal__manifest_free(m);
    all = g_string_new(text);
    {
        /* Each line of the rewritten records made so. */
        char *c = strstr(all->str, "output\tc.jpg\t");
        char *d = strstr(all->str, "output\td.jpg\t");

        memcpy(strstr(c, hash_a), "AAAAAAAA", 8);
        g_string_insert(all, strstr(d, rewritten[1][1]) - all->str + 1, "0");
    }
    {
        const char *after[] = { "e.jpg", "f.jpg", "g.jpg", "h.jpg", "l.jpg" };
        const char *with[] = { NULL, "\t\t\t0", NULL, NULL, NULL };

        for (size_t k = 0; k < G_N_ELEMENTS(after); k++) {
            g_autofree char *start = g_strdup_printf("output\t%s\t", after[k]);
            char *line = strstr(all->str, start);
            char *end = strchr(line, '\n');
            gssize at = line - all->str;

            if (k == 0) {       /* the name key dropped: 13 fields */
                char *key = g_strrstr_len(line, end - line, "\t{stem}");

                g_string_erase(all, key - all->str, end - key);
            }
            else if (with[k])
                g_string_insert(all, end - all->str, with[k]);
            else if (k == 2)
                g_string_insert(all, at + (gssize) strlen(start) + strlen("../in/"), "\\q");
            else if (k == 3)
                g_string_insert(all, end - all->str, "\r");
            else {
                char *when = strstr(line, "\t1700000000123456789\t");

                memcpy(when + 1, "9999999999999999999", 19);
            }
        }
    }
    loaded = g_string_free(all, FALSE);
    cr_assert(g_file_set_contents(path, loaded, -1, NULL));

    mem = gal__manifest_new(dir);
    gal__manifest_parse(mem, loaded, NULL, NULL);
    file = gal__manifest_load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE);
    cr_assert_eq(g_hash_table_size(mem->entries), 13);
    cr_assert_eq(g_hash_table_size(file->entries), 13);
    cr_expect_not(gal__manifest_find(file, "tab\there.jpg")
                      ->tail_in_file);
    for (const char *name = "abcdefghijkl"; *name; name++) {
        g_autofree char *output = g_strdup_printf("%c.jpg", *name);
        gal_manifest_entry *e = gal__manifest_find(file, output);
        gboolean whole = strchr("cdefghil", *name) != NULL;

        cr_expect_eq(e->tail_in_file, !whole, "%s: %s", output,
            whole ? "read whole" : "its tail left in the file");
        /* j's dependency is read with it, into its tail. */
        cr_expect_eq(e->tail == NULL, !whole && *name != 'j', "%s", output);
    }
    from_text = gal__manifest_text(mem);
    from_file = gal__manifest_text(file);
    cr_expect_str_eq(from_file, from_text, "the lines copied are the lines written");
    /* Asked, a tail is the record's own, read again from its line. */
    for (const char *name = "abcdefghijkl"; *name; name++) {
        g_autofree char *output = g_strdup_printf("%c.jpg", *name);
        gal_manifest_entry *a = gal__manifest_find(file, output);
        gal_manifest_entry *b = gal__manifest_find(mem, output);
        gal_record_tail *ta = gal__record_tail(a), *tb = gal__record_tail(b);
        char hex_a[65], hex_b[65];

        cr_expect(!a->lost, "%s", output);
        cr_expect_eq(ta->in_size, tb->in_size, "%s", output);
        cr_expect_eq(ta->in_mtime_ns, tb->in_mtime_ns, "%s", output);
        cr_expect_eq(ta->out_mtime_ns, tb->out_mtime_ns, "%s", output);
        cr_expect_eq(ta->width, tb->width, "%s", output);
        cr_expect_str_eq(gal__digest_hex(&ta->in_digest, hex_a),
            gal__digest_hex(&tb->in_digest, hex_b), "%s", output);
        cr_expect_str_eq(ta->preset_digest, tb->preset_digest, "%s", output);
        cr_expect_str_eq(ta->version, tb->version, "%s", output);
        cr_expect_str_eq(ta->name_key ? ta->name_key : "-", tb->name_key ? tb->name_key : "-",
            "%s", output);
        cr_expect_str_eq(ta->caption ? ta->caption : "-", tb->caption ? tb->caption : "-",
            "%s", output);
        cr_expect_eq(ta->caption_cut, tb->caption_cut, "%s", output);
    }
    g_free(from_file);
    from_file = gal__manifest_text(file);
    cr_expect_str_eq(from_file, from_text, "the tails read are written as they were");
    gal__manifest_free(file);

    /* The file replaced (a shard run again renames its new part over it):
     * what was read stays readable. */
    file = gal__manifest_load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE);
    cr_assert(g_file_set_contents(replaced, "gallop-manifest\t2\n", -1, NULL));
    cr_assert_eq(rename(replaced, path), 0);
    g_free(from_file);
    from_file = gal__manifest_text(file);
    cr_expect_str_eq(from_file, from_text);
    cr_expect_eq(gal__record_tail(gal__manifest_find(file, "a.jpg"))->width, 1080);
    gal__manifest_free(file);

    /* Changed in place under the merge: a record whose line is no longer
     * there is lost, not saved (its photo is made again), whether its
     * tail was asked for or not. */
    cr_assert(g_file_set_contents(path, loaded, -1, NULL));
    file = gal__manifest_load_named(dir, GAL_MANIFEST_NAME, NULL, NULL, TRUE);
    {
        FILE *f = fopen(path, "r+");
        long at_a = strstr(loaded, "output\ta.jpg\t") - loaded;
        long at_b = strstr(loaded, "output\tb.jpg\t") - loaded;

        cr_assert_not_null(f);
        fseek(f, at_a, SEEK_SET);
        fputs("outpux", f);
        fseek(f, at_b + (long) strlen("output\t"), SEEK_SET);
        fputs("x", f);
        fclose(f);
    }
    {
        gal_manifest_entry *b = gal__manifest_find(file, "b.jpg");

        cr_expect_eq(gal__record_tail(b)->width, 0, "nothing of a line changed since");
        cr_expect(b->lost);
    }
    g_free(from_file);
    from_file = gal__manifest_text(file);
    cr_expect_null(strstr(from_file, "a.jpg\t../in/a.jpg"), "%s", from_file);
    cr_expect_null(strstr(from_file, "b.jpg\t../in/b.jpg"), "%s", from_file);
    cr_expect_not_null(strstr(from_file, "output\tk.jpg"));
    gal__manifest_free(file);
    gal__manifest_free(mem);
}

/* A run's manifest leaves its records' tails in the file too: a tail read
 * to decide goes back there when nothing changed it, and stays, to be
 * saved as it now is, when something did (an output's time refreshed). */
Test(manifest, a_tail_read_and_left_as_it_was_goes_back_to_its_file)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-tail-forget");
    g_autofree char *written = NULL, *saved = NULL, *line_a = NULL;
    gal_manifest *m = gal__manifest_new(dir);
    gal_manifest_entry *a, *b;
    gal_record_tail as_read;
    gal_error err = { 0 };

    gal__manifest_put(m, entry("a.jpg", "../in/a.jpg"));
    gal__manifest_put(m, entry("b.jpg", "../in/b.jpg"));
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    written = gal__manifest_text(m);
    gal__manifest_free(m);

    m = gal__manifest_load_end(gal__manifest_load_begin(dir));
    a = gal__manifest_find(m, "a.jpg");
    b = gal__manifest_find(m, "b.jpg");
    cr_assert(a && a->tail_in_file && !a->tail);
    as_read = *gal__record_tail(a);
    cr_expect_eq(a->tail->width, 1080);
    gal__record_tail_forget(a, &as_read);
    cr_expect_null(a->tail, "read and left as it was: back in its file");
    as_read = *gal__record_tail(b);
    b->tail->out_mtime_ns = 42;
    gal__record_tail_forget(b, &as_read);
    cr_assert_not_null(b->tail, "changed: kept");
    saved = gal__manifest_text(m);
    cr_expect_not_null(strstr(saved, "\t4242\t42\t"), "saved as it now is: %s", saved);
    line_a = g_strndup(strstr(written, "output\ta.jpg"),
        strchr(strstr(written, "output\ta.jpg"), '\n') - strstr(written, "output\ta.jpg") + 1);
    cr_expect_not_null(strstr(saved, line_a), "the other as it was");
    gal__manifest_free(m);
}

/* The file's identity, to tell a rewrite (a new file renamed over it)
 * from a save that left it alone. */
static ino_t
inode_of(const char *path)
{
    struct stat st;

    cr_assert_eq(stat(path, &st), 0, "%s: %s", path, g_strerror(errno));
    return st.st_ino;
}

Test(manifest, a_save_rewrites_the_file_only_when_its_text_changes)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-save-compare");
    g_autofree char *path = g_build_filename(dir, GAL_MANIFEST_NAME, NULL);
    g_autofree char *text = NULL;
    gal_manifest *m = gal__manifest_new(dir);
    gal_error err = { 0 };
    ino_t before;

    gal__manifest_put(m, entry("a.jpg", "../a.jpg"));
    gal__manifest_put(m, entry("b.jpg", "../b.jpg"));
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    before = inode_of(path);
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_eq(inode_of(path), before, "the same text is not written again");

    /* The same length, one digit changed: written. */
    gal__manifest_find(m, "b.jpg")->tail->width = 1081;
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_neq(inode_of(path), before);
    cr_assert(g_file_get_contents(path, &text, NULL, NULL));
    cr_expect_not_null(strstr(text, "\t1081\t"));
    g_clear_pointer(&text, g_free);

    /* What was there is longer, and the new text its beginning: written. */
    before = inode_of(path);
    gal__manifest_remove(m, "b.jpg");
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_neq(inode_of(path), before);
    cr_assert(g_file_get_contents(path, &text, NULL, NULL));
    cr_expect_null(strstr(text, "b.jpg"));
    gal__manifest_free(m);
}

/* A manifest of many chunks (each written on a thread of its own while the
 * next is made): the file is its text, byte for byte; saved again the
 * same, it is left alone; one record changed in the last chunk, or one
 * fewer at the end, it is written. */
Test(manifest, a_manifest_of_many_chunks_is_saved_whole_and_compared_whole)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-save-chunks");
    g_autofree char *path = g_build_filename(dir, GAL_MANIFEST_NAME, NULL);
    g_autofree char *text = NULL, *file = NULL;
    const char *fields[] = { "camera=NIKON D750", "placeholder=data:image/webp;base64,"
        "UklGRoYAAABXRUJQVlA4IHoAAABwBACdASoQABQAPrVKnkonJCKhsAgA4BaJQBOmUI7gBUPrDadizoGqxQ" };
    gal_manifest *m = gal__manifest_new(dir);
    gal_error err = { 0 };
    gsize len;
    ino_t before;

    for (int i = 0; i < 12000; i++) {
        g_autofree char *output = g_strdup_printf("%05d.jpg", i);
        g_autofree char *input = g_strdup_printf("../in/%05d.jpg", i);
        gal_manifest_entry *e = entry(output, input);

        e->about = gal__about_new(fields, G_N_ELEMENTS(fields));
        gal__manifest_put(m, e);
    }
    text = gal__manifest_text(m);
    cr_assert_gt(strlen(text), 3 << 20, "the test needs a manifest of several 1 MB chunks");
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_assert(g_file_get_contents(path, &file, &len, NULL));
    cr_expect_eq(len, strlen(text));
    cr_expect(strcmp(file, text) == 0, "the file is not the manifest's text");
    before = inode_of(path);
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_eq(inode_of(path), before, "the same text is not written again");

    gal__manifest_find(m, "11998.jpg")->tail->width = 1081;
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_neq(inode_of(path), before, "a change in the last chunk is written");
    before = inode_of(path);
    gal__manifest_remove(m, "11999.jpg");
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_neq(inode_of(path), before, "one record fewer at the end is written");
    g_clear_pointer(&text, g_free);
    g_clear_pointer(&file, g_free);
    text = gal__manifest_text(m);
    cr_assert(g_file_get_contents(path, &file, NULL, NULL));
    cr_expect(strcmp(file, text) == 0, "the file is not the manifest's text");
    gal__manifest_free(m);
}

/* Files in `dir` whose names end in GAL_TMP_SUFFIX: a save's temporary. */
static int
temporaries_in(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const char *name;
    int n = 0;

    while (d && (name = g_dir_read_name(d)))
        n += g_str_has_suffix(name, GAL_TMP_SUFFIX);
    return n;
}

/* A save begun ahead (room made for far more than is written) leaves the
 * manifest's text and no more: the room not written is given back; one
 * that changes nothing leaves the file as it was; one never made leaves
 * no temporary file behind. */
Test(manifest, a_save_begun_ahead_writes_its_text_and_gives_back_the_room_left)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-save-ahead");
    g_autofree char *path = g_build_filename(dir, GAL_MANIFEST_NAME, NULL);
    g_autofree char *text = NULL, *file = NULL;
    gal_manifest *m = gal__manifest_new(dir);
    gal_error err = { 0 };
    struct stat st;
    ino_t before;

    for (int i = 0; i < 2000; i++) {
        g_autofree char *output = g_strdup_printf("%05d.jpg", i);
        g_autofree char *input = g_strdup_printf("../in/%05d.jpg", i);

        gal__manifest_put(m, entry(output, input));
    }
    gal__manifest_save_ahead(m, 64 << 20);
    cr_expect_eq(temporaries_in(dir), 1, "the save's file is begun at once");
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_eq(temporaries_in(dir), 0);
    text = gal__manifest_text(m);
    cr_assert(g_file_get_contents(path, &file, NULL, NULL));
    cr_expect(strcmp(file, text) == 0, "the file is not the manifest's text");
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_eq(st.st_size, (off_t) strlen(text));
    cr_expect_lt((gint64) st.st_blocks * 512, st.st_size + (1 << 20),
        "%" G_GINT64_FORMAT " bytes kept for a file of %" G_GINT64_FORMAT,
        (gint64) st.st_blocks * 512, (gint64) st.st_size);

    /* The same text again: begun ahead, and not written. */
    before = inode_of(path);
    gal__manifest_save_ahead(m, 64 << 20);
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    cr_expect_eq(inode_of(path), before, "the same text is not written again");
    cr_expect_eq(temporaries_in(dir), 0);

    /* Begun, then the manifest let go without a save (a merge that failed). */
    gal__manifest_find(m, "00001.jpg")->tail->width = 1081;
    gal__manifest_save_ahead(m, 1 << 20);
    gal__manifest_free(m);
    cr_expect_eq(temporaries_in(dir), 0, "a save never made leaves no file");
    cr_expect_eq(inode_of(path), before, "nor touches the manifest");
}

Test(manifest, numbers_read_as_strtoll_reads_them)
{
    static const char *const texts[] = { "0", "7", "-0", "-42", "007", "999999999999999999",
        "1234567890123456789", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "9999999999999999999", "-9223372036854775807",
        "1700000000123456789", "0000000000000000001",
        "99999999999999999999", "+5", " 5", "5 ", "", "-", "1e3", "0x10", "12a" };

    for (size_t t = 0; t < G_N_ELEMENTS(texts); t++) {
        char *end;
        gint64 want = g_ascii_strtoll(texts[t], &end, 10), got = -1;
        gboolean ok = gal__manifest_int(texts[t], &got);

        cr_expect_eq(ok, end != texts[t] && !*end, "\"%s\"", texts[t]);
        if (ok)
            cr_expect_eq(got, want, "\"%s\": %" G_GINT64_FORMAT, texts[t], got);
    }
}

Test(manifest, numbers_of_every_size_read_back)
{
    g_autofree char *dir = gal_test_tmpdir("manifest-numbers");
    gal_manifest *m = gal__manifest_new(dir);
    gal_manifest_entry *e = entry("n.jpg", "../n.jpg");
    gal_manifest *back;
    gal_error err = { 0 };

    e->tail->in_size = 0;
    e->tail->in_mtime_ns = -1;
    e->tail->out_size = G_MAXINT64;
    e->tail->out_mtime_ns = G_MININT64;
    gal__manifest_put(m, e);
    cr_assert_eq(gal__manifest_save(m, &err), 0, "%s", err.msg);
    gal__manifest_free(m);
    back = gal__manifest_load(dir);
    e = gal__manifest_find(back, "n.jpg");
    cr_assert_not_null(e);
    cr_expect_eq(e->tail->in_size, 0);
    cr_expect_eq(e->tail->in_mtime_ns, -1);
    cr_expect_eq(e->tail->out_size, G_MAXINT64);
    cr_expect_eq(e->tail->out_mtime_ns, G_MININT64);
    gal__manifest_free(back);
}

/* gal__relative_path_from, freed at the end of the test. */
static GPtrArray *relatives;

static const char *
relative(const char *dir, const char *path)
{
    if (!relatives)
        relatives = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(relatives, gal__relative_path_from(NULL, dir, path));
    return relatives->pdata[relatives->len - 1];
}

static void
free_relatives(void)
{
    g_clear_pointer(&relatives, g_ptr_array_unref);
}

Test(manifest, relative_paths_are_lexical_and_relocatable, .fini = free_relatives)
{
    g_autofree char *a = gal__relative_path_from(NULL, "/srv/site/out", "/srv/photos/2024/a.jpg");
    g_autofree char *b = gal__relative_path_from(NULL, "/srv/site/out", "/srv/site/out/sub/x.jpg");
    g_autofree char *c = gal__relative_path_from(NULL, "/", "/a/b");

    cr_expect_str_eq(a, "../../photos/2024/a.jpg");
    cr_expect_str_eq(b, "sub/x.jpg");
    cr_expect_str_eq(c, "a/b");
    /* A name that only starts like the folder is not inside it. */
    cr_expect_str_eq(relative("/srv/site/out", "/srv/site/outer/x.jpg"), "../outer/x.jpg");
    cr_expect_str_eq(relative("/srv/site/out", "/srv/site/out"), ".");
    cr_expect_str_eq(relative("/srv/site/out", "/srv"), "../..");
    cr_expect_str_eq(relative("/srv/site/out", "/"), "../../..");
    cr_expect_str_eq(relative("/srv/site/out/", "/srv//site/./out/a/../b.jpg"), "b.jpg");
    /* Paths already canonical are taken as they are; any other is made so
     * first: every kind of part that is not. */
    cr_expect_str_eq(relative("/srv/site/out", "/srv/site/out/./a.jpg"), "a.jpg");
    cr_expect_str_eq(relative("/srv/site/out", "/srv/site/out/sub/.."), ".");
    cr_expect_str_eq(relative("/srv/site/out", "/srv/site/out/sub/"), "sub");
    cr_expect_str_eq(relative("/srv/site/out/.", "/srv/site/out/a.jpg"), "a.jpg");
    cr_expect_str_eq(relative("/srv/site/out/..", "/srv/site/out/a.jpg"), "out/a.jpg");
    cr_expect_str_eq(relative("/srv/site/out", "/srv/site/out/.hidden/a.jpg"), ".hidden/a.jpg");
    cr_expect_str_eq(relative("/srv/site/out", "/srv/site/out/..x/.../a.jpg"), "..x/.../a.jpg");
    {
        g_autofree char *cwd = g_get_current_dir();

        g_autofree char *parent = g_path_get_dirname(cwd);
        g_autofree char *below_parent = g_strconcat(strrchr(cwd, '/') + 1, "/photos/a.jpg", NULL);
        g_autofree char *absolute = g_build_filename(cwd, "a.jpg", NULL);

        cr_expect_str_eq(relative(cwd, "photos/./a.jpg"), "photos/a.jpg");
        cr_expect_str_eq(relative("/", "."), cwd + 1);
        /* Plain names are joined to the working folder; the others are
         * canonicalised against it, as any path. */
        cr_expect_str_eq(relative(cwd, "photos/a.jpg"), "photos/a.jpg");
        cr_expect_str_eq(relative(parent, "photos/a.jpg"), below_parent);
        cr_expect_str_eq(relative(cwd, "photos/..a/a.jpg"), "photos/..a/a.jpg");
        cr_expect_str_eq(relative(cwd, "photos//a.jpg"), "photos/a.jpg");
        cr_expect_str_eq(relative(cwd, "photos/"), "photos");
        cr_expect_str_eq(relative(cwd, "../x/a.jpg"), "../x/a.jpg");
        cr_expect_str_eq(relative("/srv/site/out", "a.jpg"), relative("/srv/site/out", absolute));
    }
}

/* gal__fields_split as its contract says it, one field at a time: split
 * at every tab, each field unescaped; -1 past GAL_FIELDS_MAX fields. */
static int
fields_by_hand(const char *line, char ***out)
{
    /* g_strsplit makes nothing of "": it is one empty field. */
    g_auto(GStrv) parts = *line ? g_strsplit(line, "\t", -1) : g_strdupv((char *[]) { "", NULL });
    gboolean escaped = strchr(line, '\\') != NULL;
    int n = (int) g_strv_length(parts);

    if (n > GAL_FIELDS_MAX)
        return -1;
    for (int i = 0; escaped && i < n; i++) {
        GString *plain = g_string_new(NULL);

        for (const char *p = parts[i]; *p; p++) {
            if (*p == '\\' && p[1]) {
                p++;
                g_string_append_c(plain, *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r'
                    : *p);
            }
            else
                g_string_append_c(plain, *p);
        }
        g_free(parts[i]);
        parts[i] = g_string_free(plain, FALSE);
    }
    *out = g_steal_pointer(&parts);
    return n;
}

/* A line is split at its tabs wherever they fall, with escapes at the
 * start, the middle or the end of a field, lines of up to ~170 bytes and
 * of one to 40 fields (more than GAL_FIELDS_MAX: -1): 20,000 of them,
 * against the contract done by hand. */
Test(manifest, lines_split_at_every_tab_wherever_it_falls)
{
    static const char *const pieces[] = { "", "a", "bc", "def", "0123456789abcde",
        "0123456789abcdef", "0123456789abcdef0", "back\\\\slash", "tab\\there", "\\q",
        "end\\", "output", "99aa06d3014798d86001c324468d497f" };
    GRand *rand = g_rand_new_with_seed(2026);

    for (int l = 0; l < 20000; l++) {
        int n_fields = g_rand_int_range(rand, 1, 41);
        GString *line = g_string_new(NULL);
        g_auto(GStrv) expected = NULL;
        char *fields[GAL_FIELDS_MAX + 1];
        char *copy;
        int n, want;

        for (int f = 0; f < n_fields && line->len < 160; f++) {
            g_string_append(line, f ? "\t" : "");
            g_string_append(line, pieces[g_rand_int_range(rand, 0, G_N_ELEMENTS(pieces))]);
        }
        /* A backslash mostly at no place at all. */
        if (g_rand_int_range(rand, 0, 4) && strchr(line->str, '\\'))
            for (char *p = line->str; *p; p++)
                *p = *p == '\\' ? 'x' : *p;
        want = fields_by_hand(line->str, &expected);
        copy = g_strdup(line->str);
        n = gal__fields_split(copy, fields);
        cr_assert_eq(n, want, "\"%s\": %d fields, not %d", line->str, n, want);
        for (int f = 0; f < n; f++)
            cr_assert_str_eq(fields[f], expected[f], "\"%s\", field %d", line->str, f);
        cr_assert(n < 0 || !fields[n], "\"%s\": the list ends", line->str);
        g_free(copy);
        g_string_free(line, TRUE);
    }
    g_rand_free(rand);
}

/* With the working folder given, a thread keeps the last folder's relative
 * path for the next photo in it: what it makes is what is made without
 * (the folder asked for each time), whatever the order of the paths, and
 * wherever the folder asked from is: beneath the photo's folder, the
 * folder itself, above it or beside it. */
Test(manifest, relative_paths_of_a_folders_photos_are_the_same_kept_or_not)
{
    g_autofree char *cwd = g_get_current_dir();
    static const char *const dirs[] = {
        "/srv/site/out", "/srv/site/out/", "/srv/site", "/srv/site/out/sub", "/", "/srv/site/outer",
        "out", ".", "..", "/srv/site/out/..",
    };
    static const char *const paths[] = {
        "/srv/site/out/a.jpg", "/srv/site/out/b.jpg", "/srv/site/out/sub/c.jpg",
        "/srv/site/out/sub/d.jpg", "/srv/site/a.jpg", "/srv/site/out", "/srv/site/outer/x.jpg",
        "/srv/photos/2024/a.jpg", "/srv/photos/2024/b.jpg", "/srv//site/./out/a/../b.jpg",
        "/srv/site/out/sub/..", "/srv/site/out/.hidden", "/srv/site/out/..x/.../a.jpg", "/a.jpg",
        "//a.jpg", "a.jpg", "out/a.jpg", "out/sub/a.jpg", "photos/./a.jpg", "../x/a.jpg",
        "out/", "out/..", "/srv/site/sub", "/srv/site/out/sub/",
    };

    /* Every folder after every other: each path twice in a row, then each
     * two neighbours in turn, twice (a thread keeps a few folders). */
    for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++)
        for (size_t p = 0; p < G_N_ELEMENTS(paths) * 6; p++) {
            size_t n = G_N_ELEMENTS(paths), at = p / 2;
            const char *path = p < 2 * n ? paths[at] : paths[(p / 4 + p % 2) % n];
            g_autofree char *kept = gal__relative_path_from(cwd, dirs[d], path);
            g_autofree char *made = gal__relative_path_from(NULL, dirs[d], path);

            cr_expect_str_eq(kept, made, "%s from %s: %s, not %s", path, dirs[d], kept, made);
        }
    {
        g_autofree char *a = gal__relative_path_from("/", "/srv/site", "out/a.jpg");
        g_autofree char *b = gal__relative_path_from("/srv", "/srv/site", "out/a.jpg");

        cr_expect_str_eq(a, "../../out/a.jpg", "the folder is relative to the working one");
        cr_expect_str_eq(b, "../out/a.jpg", "another working folder, another folder");
    }
}

/* gal__path_below is gal__relative_path_from for a canonical path beneath a
 * canonical folder, and nothing for any other. */
Test(manifest, path_below_is_the_relative_path_or_nothing, .fini = free_relatives)
{
    static const char *const below[][2] = { { "/srv/out", "/srv/out/a/b.jpg" },
        { "/", "/a" }, { "/srv/out", "/srv/out/..x/.hidden" } };
    static const char *const not_below[][2] = { { "/srv/out", "/srv/outer/x.jpg" },
        { "/srv/out", "/srv/out" }, { "/srv/out", "/srv" }, { "/srv/out", "/srv/out/./a.jpg" },
        { "/srv/out", "/srv/out/a/../b.jpg" }, { "/srv/out", "/srv/out//a.jpg" },
        { "/srv/out/", "/srv/out/a.jpg" }, { "/srv/./out", "/srv/./out/a.jpg" },
        { "/srv/out", "/srv/out/a/" }, { "out", "out/a.jpg" } };

    for (size_t k = 0; k < G_N_ELEMENTS(below); k++) {
        const char *got = gal__path_below(below[k][0], below[k][1]);

        cr_assert_not_null(got, "%s below %s", below[k][1], below[k][0]);
        cr_expect_str_eq(got, relative(below[k][0], below[k][1]));
        cr_expect(got > below[k][1] && got < below[k][1] + strlen(below[k][1]),
            "a pointer into the path, not a copy");
    }
    for (size_t k = 0; k < G_N_ELEMENTS(not_below); k++)
        cr_expect_null(gal__path_below(not_below[k][0], not_below[k][1]), "%s below %s",
            not_below[k][1], not_below[k][0]);
}

/* ---- the preset digest ------------------------------------------------------------ */

static char *
digest_of(const char *yaml, GPtrArray **keys_out)
{
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load(yaml, errs);
    GPtrArray *keys;
    char *hex = g_malloc(65);

    cr_assert_not_null(preset, "%s", errs->count ? errs->items[0].msg : "");
    keys = gal__preset_keys(preset);
    gal__keys_digest(keys, hex);
    if (keys_out)
        *keys_out = keys;
    else
        g_ptr_array_unref(keys);
    gal_preset_free(preset);
    return hex;
}

Test(manifest, digest_follows_what_shapes_outputs_only)
{
    const char *base = "gallop: 1\nstages: [ {resize: {width: 100}} ]\noutput: {quality: 80}\n";
    g_autofree char *d0 = digest_of(base, NULL);
    g_autofree char *same_inputs = digest_of("gallop: 1\nstages: [ {resize: {width: 100}} ]\n"
                                             "output: {quality: 80, dir: elsewhere, "
                                             "name: \"{stem}-x.{ext}\"}\n"
                                             "input: {recursive: false, include: [\"*.png\"]}\n",
        NULL);
    g_autofree char *quality = digest_of("gallop: 1\nstages: [ {resize: {width: 100}} ]\n"
                                         "output: {quality: 81}\n",
        NULL);
    g_autofree char *width = digest_of("gallop: 1\nstages: [ {resize: {width: 101}} ]\n"
                                       "output: {quality: 80}\n",
        NULL);
    g_autofree char *metadata = digest_of("gallop: 1\nstages: [ {resize: {width: 100}} ]\n"
                                          "output: {quality: 80, metadata: keep}\n",
        NULL);

    cr_expect_str_eq(d0, same_inputs, "input selection, dir or name changed the digest");
    cr_expect_str_neq(d0, quality);
    cr_expect_str_neq(d0, width);
    cr_expect_str_neq(d0, metadata);
}

Test(manifest, digest_covers_the_contents_of_files_a_preset_names)
{
    g_autofree char *logo = g_build_filename(GAL_TEST_TMP, "digest-logo.png", NULL);
    g_autoptr(VipsImage) one = gal_test_gradient(16, 16);
    g_autoptr(VipsImage) two = gal_test_gradient(17, 16);
    const char *yaml = "gallop: 1\nstages: [ {watermark: {image: digest-logo.png}} ]\n";
    g_autofree char *first = NULL;
    g_autofree char *second = NULL;
    g_autoptr(GPtrArray) keys = NULL;

    g_mkdir_with_parents(GAL_TEST_TMP, 0777);
    cr_assert_eq(vips_pngsave(one, logo, NULL), 0);
    first = digest_of(yaml, &keys);
    cr_assert_eq(vips_pngsave(two, logo, NULL), 0);
    second = digest_of(yaml, NULL);
    cr_expect_str_neq(first, second, "a changed logo file left the digest alone");
    {
        gboolean found = FALSE;

        for (guint i = 0; i < keys->len; i++)
            found |= g_str_has_prefix(keys->pdata[i], "watermark.image=") &&
                strstr(keys->pdata[i], " sha256:") != NULL;
        cr_expect(found, "no file digest on watermark.image");
    }
}

Test(manifest, keys_diff_names_each_changed_key)
{
    g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) now = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *diff = NULL;
    g_autofree char *unknown = NULL;

    g_ptr_array_add(before, g_strdup("resize.width=1080"));
    g_ptr_array_add(before, g_strdup("output.quality=82"));
    g_ptr_array_add(before, g_strdup("watermark.opacity=0.5"));
    g_ptr_array_add(now, g_strdup("resize.width=1080"));
    g_ptr_array_add(now, g_strdup("output.quality=90"));
    g_ptr_array_add(now, g_strdup("resize#2.width=64"));
    diff = gal__keys_diff(before, now);
    cr_expect_str_eq(diff,
        "output.quality 82 -> 90, resize#2.width 64 (new), watermark.opacity (removed)");
    unknown = gal__keys_diff(NULL, now);
    cr_expect_str_eq(unknown, "earlier values unknown");
}

/* ---- JSON ------------------------------------------------------------------------ */

static gal_json *
parse_ok(const char *text)
{
    g_autofree char *error = NULL;
    gal_json *j = gal_json_parse(text, &error);

    cr_assert_not_null(j, "invalid JSON (%s):\n%s", error, text);
    return j;
}

Test(manifest, the_json_reader_is_strict)
{
    const char *const bad[] = { "{\"a\":1,}", "[1 2]", "{\"a\":01}", "\"\\x\"", "\"a\nb\"",
        "{} x", "[\"\\ud800\"]", "tru", NULL };

    for (int i = 0; bad[i]; i++) {
        g_autofree char *error = NULL;
        gal_json *j = gal_json_parse(bad[i], &error);

        cr_expect_null(j, "accepted: %s", bad[i]);
        gal_json_free(j);
    }
    {
        g_autoptr(gal_json) j = parse_ok(" {\"a\": [1, -2.5e3, \"\\u00e9\\n\"], \"b\": null} ");

        cr_expect_eq(gal_json_number(j, "a.1"), -2500);
        cr_expect_str_eq(gal_json_string(j, "a.2"), "\xc3\xa9\n");
    }
}

/* A report of thousands of photos is written to its file a piece at a
 * time: the file is the text gal_runs_report_json makes, byte for byte,
 * awkward strings and all, and it is valid JSON. */
Test(manifest, a_big_report_is_written_in_pieces_as_made)
{
    g_autofree char *dir = gal_test_tmpdir("report-pieces");
    g_autofree char *path = g_build_filename(dir, "report.json", NULL);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\nname: big\n", errs);
    gal_run_summary summary = { .total = 6000, .preset = "big", .output_dir = "/srv/out" };
    const gal_photo_notes captioned = {
        .caption = "a caption of the trip, #pyongyang @marathon \\ \"quoted\"" };
    const gal_run_summary *runs[] = { &summary };
    g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *text = NULL;
    g_autofree char *written = NULL;
    g_autoptr(gal_json) json = NULL;
    gsize len = 0;
    gal_error err = { 0 };

    cr_assert_not_null(preset);
    summary.photos = g_new0(gal_photo_result, summary.total);
    for (int i = 0; i < summary.total; i++) {
        gal_photo_result *photo = &summary.photos[i];

        g_ptr_array_add(inputs, g_strdup_printf("in/\"%04d\"\t\xea\xb3\xa0\xff.jpg", i));
        photo->input = inputs->pdata[i];
        photo->status = i % 3 ? GAL_PHOTO_PLANNED : GAL_PHOTO_UP_TO_DATE;
        photo->notes = &captioned;
    }
    text = gal_runs_report_json((const gal_preset *const *) &preset, runs, 1);
    cr_assert_gt(strlen(text), 2 << 20, "more than two pieces: %zu bytes", strlen(text));
    cr_assert_eq(gal_runs_report_write((const gal_preset *const *) &preset, runs, 1, path, &err),
        0, "%s", err.msg);
    written = gal_test_read_bytes(path, &len);
    cr_assert_eq(len, strlen(text));
    cr_expect(memcmp(written, text, len) == 0, "the file is not the report's text");
    json = gal_json_parse(written, NULL);
    cr_assert_not_null(json, "the file is not JSON");
    cr_expect_eq(gal_json_number(json, "totals.photos"), 6000);
    cr_expect_str_eq(gal_json_string(json, "photos.5999.input"),
        "in/\"5999\"\t\xea\xb3\xa0\xef\xbf\xbd.jpg");
    g_free(summary.photos);
    gal_preset_free(preset);
}

Test(manifest, events_escape_every_awkward_character)
{
    const gal_run_summary run = { .preset = "web\t\"", .output_dir = "/srv/out" };
    gal_photo_result photo = { 0 };
    g_autofree char *line = NULL;
    g_autoptr(gal_json) j = NULL;
    const char *input = "we\"ird\\pa\tth\n\x01\xff.jpg";

    photo.input = input;
    photo.output = "out/ok.jpg";
    photo.status = GAL_PHOTO_FAILED;
    photo.why = GAL_WHY_INPUT_CHANGED;
    gal_error_set(gal__photo_error(&photo), GAL_ERR_INPUT, NULL, NULL, "cannot read: \"%s\"",
        "x\ty");
    gal_error_set_subject(gal__photo_error(&photo), input);
    photo.seconds = 0.25;
    line = gal_photo_event_json(&run, &photo, 3, 7);
    cr_expect_null(strchr(line, '\n'), "an event spans lines: %s", line);
    j = parse_ok(line);
    cr_expect_str_eq(gal_json_string(j, "event"), "photo");
    cr_expect_eq(gal_json_number(j, "done"), 3);
    cr_expect_eq(gal_json_number(j, "total"), 7);
    cr_expect_str_eq(gal_json_string(j, "status"), "failed");
    cr_expect_str_eq(gal_json_string(j, "reason"), "input-changed");
    /* Invalid UTF-8 is repaired, everything else comes through as it was. */
    cr_expect_str_eq(gal_json_string(j, "input"), "we\"ird\\pa\tth\n\x01\xef\xbf\xbd.jpg");
    cr_expect_str_eq(gal_json_string(j, "error.message"), "cannot read: \"x\ty\"");
    cr_expect_str_eq(gal_json_string(j, "error.code"), "input");
    /* The preset is its run's. */
    cr_expect_str_eq(gal_json_string(j, "preset"), "web\t\"");
    cr_expect_eq(gal_json_number(j, "timings.total_seconds"), 0.25);
    cr_expect_eq(gal_json_get(j, "outputs")->items->len, 0, "a failed photo has no output");
    cr_expect_eq(gal_json_get(j, "caption")->type, GAL_JSON_NULL);
    gal__photo_error_clear(&photo);
    cr_expect_null(photo.notes, "notes holding only the error are freed with it");
}

/* A part's results, read again when a merge takes them: the same as when
 * the part was checked, with no record kept; a part that changed in
 * between is refused. */
static void
count_kinds(char **fields, int n, int line, gint64 offset, void *user)
{
    GHashTable *kinds = user;

    (void) n;
    (void) line;
    (void) offset;
    g_hash_table_replace(kinds, g_strdup(fields[0]),
        GINT_TO_POINTER(GPOINTER_TO_INT(g_hash_table_lookup(kinds, fields[0])) + 1));
}

static void
write_part(const char *dir, const char *name, int n_results, gboolean done,
    gboolean one_photo)
{
    gal_manifest *m = gal__manifest_new(dir);
    g_autoptr(GString) extra = g_string_new(NULL);
    char *inputs[] = { "in", NULL };
    gal_part_info info = { .shard = 1, .shards = 2, .version = "0.1.0", .cwd = "/srv",
        .inputs = inputs };
    gal_error err = { 0 };

    g_strlcpy(info.preset_digest, hash_b, sizeof(info.preset_digest));
    g_free(m->name);
    m->name = g_strdup(name);
    gal__manifest_put(m, entry("a.jpg", "../in/a.jpg"));
    gal__manifest_add_dep(gal__manifest_find(m, "a.jpg"), "/srv/a.txt", TRUE, 1, 2,
        hash_a);
    gal__part_append_header(extra, &info);
    for (int r = 0; r < n_results; r++) {
        g_autofree char *rel = g_strdup_printf("../in/%c.jpg", one_photo ? 'a' : 'a' + r);
        gal_photo_result result = { .status = GAL_PHOTO_DONE, .why = GAL_WHY_NEW, .width = 10 };

        gal__part_append_result(extra, rel, r == 0 ? "a.jpg" : NULL, "", &result);
    }
    if (done)
        gal__part_append_done(extra, n_results);
    cr_assert_eq(gal__manifest_save_with(m, extra->str, FALSE, &err), 0, "%s", err.msg);
    gal__manifest_free(m);
}

/* A gal_part_result_fn: each result copied into the table `user`. */
static gboolean
keep_copy(const char *rel_input, const gal_part_result *result, void *user)
{
    return g_hash_table_insert(user, g_strdup(rel_input),
        gal__part_result_new(&result->result, result->rel_output, result->in_digest));
}

Test(manifest, a_parts_results_are_read_again_alone_and_the_same)
{
    g_autofree char *dir = gal_test_tmpdir("part-results");
    g_autofree char *name = gal__part_name(1, 2);
    g_autoptr(GHashTable) kinds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) results = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__part_result_free);
    gal_part_info info = { 0 };
    gal_error err = { 0 };
    gal_manifest *part;
    const gal_part_result *got;

    write_part(dir, name, 2, TRUE, FALSE);
    /* Checked without keeping the results... */
    part = gal__part_load(dir, name, &info, NULL, FALSE, &err);
    cr_assert_eq(err.code, GAL_OK, "%s", err.msg);
    cr_expect(info.done);
    cr_expect_eq(info.n_results, 2);
    cr_expect_eq(g_hash_table_size(part->entries), 1);
    gal__manifest_free(part);
    /* ...the other lines alone: no record's line reaches the reader... */
    gal__manifest_read_others(dir, name, 0, 1, count_kinds, kinds);
    cr_expect_eq(GPOINTER_TO_INT(g_hash_table_lookup(kinds, "result")), 2);
    cr_expect_eq(GPOINTER_TO_INT(g_hash_table_lookup(kinds, "done")), 1);
    cr_expect_null(g_hash_table_lookup(kinds, "output"));
    cr_expect_null(g_hash_table_lookup(kinds, "depends"));
    cr_expect_null(g_hash_table_lookup(kinds, "preset"));
    /* ...and the results, when taken. */
    cr_assert_eq(gal__part_read_results(dir, name, &info, keep_copy, results, &err), 0, "%s",
        err.msg);
    cr_expect_eq(g_hash_table_size(results), 2);
    got = g_hash_table_lookup(results, "../in/a.jpg");
    cr_assert_not_null(got);
    cr_expect_str_eq(got->rel_output, "a.jpg");
    cr_expect_eq(got->result.width, 10);
    /* They are read from the part's "shard" line on, after its records. */
    cr_expect_gt(info.results_at, 0);
    cr_expect_gt(info.results_line, 2);
    /* A part whose records grew meanwhile, so that its results moved, is
     * refused... */
    {
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autofree char *text = NULL;
        g_autofree char *longer = NULL;
        char *second;

        cr_assert(g_file_get_contents(path, &text, NULL, NULL));
        second = strchr(text, '\n') + 1;
        longer = g_strdup_printf("%.*s%.*s%s", (int) (second - text), text,
            (int) (strchr(second, '\n') + 1 - second), second, second);
        cr_assert(g_file_set_contents(path, longer, -1, NULL));
        g_hash_table_remove_all(results);
        cr_expect_eq(gal__part_read_results(dir, name, &info, keep_copy, results, &err), -1);
        cr_expect(strstr(err.msg, "changed while the merge read it") != NULL, "%s", err.msg);
        err = (gal_error) { 0 };
    }
    /* ...as is one cut short. */
    g_hash_table_remove_all(results);
    write_part(dir, name, 1, FALSE, FALSE);
    cr_expect_eq(gal__part_read_results(dir, name, &info, keep_copy, results, &err), -1);
    cr_expect_eq(err.code, GAL_ERR_OUTPUT);
    cr_expect(strstr(err.msg, "changed while the merge read it") != NULL, "%s", err.msg);
    gal__part_info_clear(&info);
}

/* Two results for one photo: the part is damaged, whichever way it is
 * read. */
Test(manifest, a_part_with_two_results_for_one_photo_is_damaged)
{
    g_autofree char *dir = gal_test_tmpdir("part-twice");
    g_autofree char *name = gal__part_name(1, 2);
    g_autoptr(GHashTable) results = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__part_result_free);
    gal_part_info info = { 0 }, checked = { 0 };
    gal_error err = { 0 };

    write_part(dir, name, 2, TRUE, TRUE);
    gal__manifest_free(gal__part_load(dir, name, &checked, NULL, FALSE, &err));
    cr_assert_eq(err.code, GAL_OK, "only checked and counted: %s", err.msg);
    gal__manifest_free(gal__part_load(dir, name, &info, results, FALSE, &err));
    cr_expect_eq(err.code, GAL_ERR_OUTPUT);
    cr_expect(strstr(err.msg, "a second result for one photo") != NULL, "%s", err.msg);
    err = (gal_error) { 0 };
    g_hash_table_remove_all(results);
    cr_expect_eq(gal__part_read_results(dir, name, &checked, keep_copy, results, &err), -1);
    cr_expect(strstr(err.msg, ":7: a second result for one photo") != NULL, "%s", err.msg);
    gal__part_info_clear(&info);
    gal__part_info_clear(&checked);
}

/* A result's seconds are told well formed without being read when a merge
 * only checks its parts: exactly the texts it accepts when it reads
 * them. */
Test(manifest, a_results_seconds_are_checked_as_they_are_read)
{
    static const struct {
        const char *seconds;
        gboolean ok;
    } cases[] = {
        { "0.25", TRUE }, { "12", TRUE }, { "0", TRUE }, { "1.5e-05", TRUE }, { "1.", TRUE },
        { ".5", TRUE }, { "0x10", TRUE }, { "99999999999.5", TRUE },
        { "00000000000000000001.5", TRUE }, { "999999999999.99999999", FALSE },
        { "1000000000000", FALSE }, { "1e12", FALSE }, { "-0.5", FALSE }, { "nan", FALSE },
        { "inf", FALSE }, { "", FALSE }, { "12a", FALSE }, { "1.2.3", FALSE }, { " 1", TRUE },
    };
    g_autofree char *dir = gal_test_tmpdir("part-seconds");
    g_autofree char *name = gal__part_name(1, 2);
    g_autofree char *path = g_build_filename(dir, name, NULL);

    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        g_autoptr(GHashTable) results = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
            (GDestroyNotify) gal__part_result_free);
        g_autoptr(GString) text = g_string_new(NULL);
        g_autofree char *written = NULL;
        g_auto(GStrv) lines = NULL;
        gal_part_info checked = { 0 }, read = { 0 };
        gal_error check_err = { 0 }, read_err = { 0 };

        write_part(dir, name, 1, TRUE, FALSE);
        cr_assert(g_file_get_contents(path, &written, NULL, NULL));
        lines = g_strsplit(written, "\n", -1);
        for (int l = 0; lines[l]; l++) {
            if (g_str_has_prefix(lines[l], "result\t")) {
                g_auto(GStrv) f = g_strsplit(lines[l], "\t", -1);

                cr_assert_eq(g_strv_length(f), 23);
                g_free(f[13]);
                f[13] = g_strdup(cases[c].seconds);
                g_free(lines[l]);
                lines[l] = g_strjoinv("\t", f);
            }
            g_string_append(text, lines[l]);
            if (lines[l + 1])
                g_string_append_c(text, '\n');
        }
        cr_assert(g_file_set_contents(path, text->str, (gssize) text->len, NULL));
        /* Checked only, as a merge first reads every part... */
        gal__manifest_free(gal__part_load(dir, name, &checked, NULL, FALSE, &check_err));
        /* ...and read, as it takes them. */
        gal__manifest_free(gal__part_load(dir, name, &read, results, FALSE, &read_err));
        cr_expect_eq(check_err.code == GAL_OK, cases[c].ok, "\"%s\" checked: %s",
            cases[c].seconds, check_err.msg);
        cr_expect_eq(read_err.code == GAL_OK, cases[c].ok, "\"%s\" read: %s", cases[c].seconds,
            read_err.msg);
        gal__part_info_clear(&checked);
        gal__part_info_clear(&read);
    }
}

/* A part's seconds are read as the double its shard measured, whatever it
 * is (written in the fewest digits that give it back: a time taken in
 * microseconds is a few), and any decimal written there is read as strtod
 * reads it, however many digits it has. */
Test(manifest, a_results_seconds_read_back_as_the_same_double)
{
    static const char *const decimals[] = {
        "0", "0.0", "12", "1.5", "0.05295", "00000000000000000001.5", "99999999999.9999",
        "0.000000000000000000001", "0.0000000000000000000001", "0.00000000000000000000001",
        "0.1234567890123456", "0.30000000000000004", "7.000000000000001", "1.", ".5",
        "0.052950000000000004", "1.5e-05", "4.94065645841247e-324", "999999999999.9",
        "0.000146899999999999", "8.999999999999999", "0.123456789012345",
    };
    enum { N_DOUBLES = 3000 };
    int n = N_DOUBLES + (int) G_N_ELEMENTS(decimals);
    g_autofree char *dir = gal_test_tmpdir("part-doubles");
    g_autofree char *name = gal__part_name(1, 1);
    g_autofree double *wrote = g_new(double, n);
    g_autoptr(GString) text = g_string_new(NULL);
    g_autoptr(GHashTable) results = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gal__part_result_free);
    char *inputs[] = { "in", NULL };
    gal_part_info info = { .shard = 1, .shards = 1, .version = "0.1.0", .cwd = "/srv",
        .inputs = inputs }, read = { 0 };
    gal_error err = { 0 };
    GRand *rand = g_rand_new_with_seed(16);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    char *at;

    g_strlcpy(info.preset_digest, hash_b, sizeof(info.preset_digest));
    g_string_append(text, GAL_MANIFEST_MAGIC "\n");
    gal__part_append_header(text, &info);
    for (int r = 0; r < n; r++) {
        g_autofree char *rel = g_strdup_printf("../in/%05d.jpg", r);
        gal_photo_result result = { .status = GAL_PHOTO_DONE, .why = GAL_WHY_NEW };

        /* Times as a clock in microseconds gives them, then any double. */
        if (r < N_DOUBLES / 2)
            result.seconds = g_rand_int_range(rand, 0, 100000000) / 1e6;
        else if (r < N_DOUBLES)
            result.seconds = g_rand_double(rand) * pow(10, g_rand_int_range(rand, -20, 12));
        else
            result.seconds = 123456789 + r;  /* its text replaced below */
        wrote[r] = r < N_DOUBLES ? result.seconds : g_ascii_strtod(decimals[r - N_DOUBLES], NULL);
        gal__part_append_result(text, rel, NULL, "", &result);
    }
    gal__part_append_done(text, n);
    for (int d = 0; d < (int) G_N_ELEMENTS(decimals); d++) {
        g_autofree char *placeholder = g_strdup_printf("\t%d\t", 123456789 + N_DOUBLES + d);
        g_autofree char *decimal = g_strdup_printf("\t%s\t", decimals[d]);
        gssize start;

        cr_assert_not_null(at = strstr(text->str, placeholder), "%s", placeholder);
        start = at - text->str;
        g_string_erase(text, start, (gssize) strlen(placeholder));
        g_string_insert(text, start, decimal);
    }
    cr_expect_not_null(strstr(text->str, "\t0.05295\t"), "a time is written in few digits");
    cr_assert(g_file_set_contents(path, text->str, (gssize) text->len, NULL));
    gal__manifest_free(gal__part_load(dir, name, &read, results, FALSE, &err));
    cr_assert_eq(err.code, GAL_OK, "%s", err.msg);
    cr_assert_eq(g_hash_table_size(results), n);
    for (int r = 0; r < n; r++) {
        g_autofree char *rel = g_strdup_printf("../in/%05d.jpg", r);
        const gal_part_result *got = g_hash_table_lookup(results, rel);

        cr_assert_not_null(got, "%s", rel);
        cr_expect(got->result.seconds == wrote[r], "%s: read %.17g, wrote %.17g (%s)", rel,
            got->result.seconds, wrote[r], r < N_DOUBLES ? "a double" : decimals[r - N_DOUBLES]);
    }
    gal__part_info_clear(&read);
    g_rand_free(rand);
}

/* A result keeps what few photos have (a caption, a failure, a reason's
 * detail) behind `notes`, and a photo that has none of it has no notes
 * block at all: a merge or a rerun holds a million results. Both, built
 * and up to date. */
Test(manifest, a_result_has_notes_only_when_it_has_something_to_note)
{
    g_autofree char *dir = gal_test_tmpdir("notes");
    g_autofree char *in = g_build_filename(dir, "in", NULL);
    g_autofree char *out = g_build_filename(dir, "out", NULL);
    g_autofree char *sidecar = g_build_filename(in, "a.jpg.txt", NULL);
    g_autofree gal_errors *errs = g_new0(gal_errors, 1);
    gal_preset *preset = gal_test_load("gallop: 1\n"
                                       "name: notes\n"
                                       "captions: {sources: [sidecar]}\n"
                                       "stages:\n"
                                       "  - resize: {width: 64, height: 64}\n"
                                       "  - caption-burn: {size: 6px, padding: 1px}\n"
                                       "output: {format: png}\n",
        errs);
    const char *inputs[] = { in };

    cr_assert_not_null(preset);
    gal_test_copy_trip(in, 1, "a.jpg");
    gal_test_copy_trip(in, 2, "b.jpg");
    cr_assert(g_file_set_contents(sidecar, "a #pyongyang caption", -1, NULL));
    for (int pass = 0; pass < 2; pass++) {
        gal_run_options opts = { .inputs = inputs, .n_inputs = 1, .output_dir = out, .jobs = 2,
            .dry_run = pass == 1 };
        gal_run_summary *summary = NULL;
        const gal_preset *presets[] = { preset };

        cr_assert_eq(gal_run_presets(presets, 1, &opts, &summary, errs), 0);
        cr_assert_eq(summary->total, 2);
        for (int i = 0; i < 2; i++) {
            const gal_photo_result *photo = &summary->photos[i];
            gboolean captioned = g_str_has_suffix(photo->input, "a.jpg");

            cr_expect_eq(photo->status, pass ? GAL_PHOTO_UP_TO_DATE : GAL_PHOTO_DONE,
                "pass %d: %s is %s", pass, photo->input, gal_status_name(photo->status));
            if (captioned) {
                cr_assert_not_null(photo->notes, "pass %d: %s has no notes", pass, photo->input);
                cr_expect_str_eq(photo->notes->caption, "a #pyongyang caption");
                cr_expect_null(photo->notes->error);
            }
            else {
                cr_expect_null(photo->notes, "pass %d: %s has notes with nothing in them", pass,
                    photo->input);
                cr_expect_null(gal_photo_notes_of(photo)->caption);
                cr_expect_eq(gal_photo_notes_of(photo)->n_files, 0);
            }
        }
        gal_run_summary_free(summary);
    }
    gal_preset_free(preset);
}

/* The records' table is a set: each record is its own key (a table of
 * output -> record held every output's pointer twice, 17 MB at a
 * million), found, replaced, removed and stolen by its output. */
Test(manifest, records_are_their_own_keys_found_by_output)
{
    g_autofree char *dir = gal_test_tmpdir("record-set");
    gal_manifest *m = gal__manifest_new(dir);
    gal_manifest_entry *a = entry("a.jpg", "../in/a.jpg"), *b = entry("b.jpg", "../in/b.jpg");
    gal_manifest_entry *again = entry("a.jpg", "../in/again.jpg");
    g_autofree char *name = g_strdup("b.jpg");
    GHashTableIter it;
    gpointer key, value;

    gal__manifest_put(m, a);
    gal__manifest_put(m, b);
    cr_expect_eq(gal__manifest_find(m, "a.jpg"), a);
    cr_expect_eq(gal__manifest_find(m, name), b, "found by another string of its output");
    cr_expect_null(gal__manifest_find(m, "c.jpg"));
    gal__manifest_put(m, again); /* a is freed: replaced */
    cr_expect_eq(g_hash_table_size(m->entries), 2);
    cr_expect_eq(gal__manifest_find(m, "a.jpg"), again);
    g_hash_table_iter_init(&it, m->entries);
    while (g_hash_table_iter_next(&it, &key, &value))
        cr_expect_eq(key, value, "a record is not its own key: %s", (char *) key);
    cr_expect(gal__manifest_steal(m, "b.jpg"));
    cr_expect_not(gal__manifest_steal(m, "b.jpg"));
    cr_expect_null(gal__manifest_find(m, "b.jpg"));
    gal__manifest_entry_free(b);
    cr_expect(gal__manifest_remove(m, "a.jpg"));
    cr_expect_not(gal__manifest_remove(m, "a.jpg"));
    cr_expect_eq(g_hash_table_size(m->entries), 0);
    gal__manifest_free(m);
}

/* A report's numbers are "%.6g", whole ones written by hand: the same
 * text as printf's for each, whole or not, either side of a million. */
Test(manifest, report_numbers_are_printfs_six_digits)
{
    const gal_run_summary run = { .preset = "web", .output_dir = "/srv/out" };
    const double values[] = { 0, -0.0, 1, 8, 100, 35, 999999, -999999, 1000000, 1234567,
        -1000000, 0.5, 5.6, 0.0123456789, 123456.5, 999999.5, 1e-7, 2.5e9, -42, 1e15 };

    for (gsize k = 0; k < G_N_ELEMENTS(values); k++) {
        gal_photo_result photo = { .input = "a.jpg", .status = GAL_PHOTO_DONE,
            .seconds = values[k] };
        g_autofree char *line = gal_photo_event_json(&run, &photo, 1, 1);
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_autofree char *want = g_strdup_printf("\"total_seconds\":%s,",
            g_ascii_formatd(buf, sizeof(buf), "%.6g", values[k]));

        cr_expect_not_null(strstr(line, want), "%g: %s not in %s", values[k], want, line);
    }
}

/* What a site shows of a photo, from its about list: the first of each
 * name, numbers only where they are numbers, a placeholder only as a
 * base64 WebP data URI; names that merely start alike are not taken. */
Test(manifest, report_takes_each_about_field_by_its_whole_name)
{
    const gal_run_summary run = { .preset = "web", .output_dir = "/srv/out" };
    const char *fields[] = { "camera=A", "camera=B", "f=5.6", "focal=9", "focal_mm=35", "iso=abc",
        "lat=1.5", "lon=2", "orientation=6", "junk", "=v", "color=#12abEF",
        "placeholder=data:image/webp;base64,AAAA+/==", "lens=" };
    const char *bad[] = { "lat=1", "placeholder=data:image/webp;base64,\"><script>",
        "color=#12abEG" };
    gal_photo_result photo = { .input = "a.jpg", .status = GAL_PHOTO_UP_TO_DATE };
    g_autofree char *line = NULL;
    g_autofree char *bad_line = NULL;
    g_autoptr(gal_json) j = NULL;
    g_autoptr(gal_json) b = NULL;

    photo.about = gal__about_new(fields, G_N_ELEMENTS(fields));
    line = gal_photo_event_json(&run, &photo, 1, 1);
    gal__about_unref(photo.about);
    j = parse_ok(line);
    cr_expect_str_eq(gal_json_string(j, "camera"), "A");
    cr_expect_str_eq(gal_json_string(j, "lens"), "");
    cr_expect_eq(gal_json_number(j, "exposure.f"), 5.6);
    cr_expect_eq(gal_json_number(j, "exposure.focal_mm"), 35);
    cr_expect_eq(gal_json_get(j, "exposure.iso")->type, GAL_JSON_NULL);
    cr_expect_eq(gal_json_get(j, "exposure.shutter")->type, GAL_JSON_NULL);
    cr_expect_eq(gal_json_number(j, "orientation"), 6);
    cr_expect_eq(gal_json_number(j, "gps.lat"), 1.5);
    cr_expect_eq(gal_json_number(j, "gps.lon"), 2);
    cr_expect_eq(gal_json_get(j, "gps.alt")->type, GAL_JSON_NULL);
    cr_expect_str_eq(gal_json_string(j, "color"), "#12abEF");
    cr_expect_str_eq(gal_json_string(j, "placeholder"), "data:image/webp;base64,AAAA+/==");
    photo.about = gal__about_new(bad, G_N_ELEMENTS(bad));
    bad_line = gal_photo_event_json(&run, &photo, 1, 1);
    gal__about_unref(photo.about);
    b = parse_ok(bad_line);
    cr_expect_eq(gal_json_get(b, "gps")->type, GAL_JSON_NULL, "a latitude without longitude");
    cr_expect_eq(gal_json_get(b, "placeholder")->type, GAL_JSON_NULL);
    cr_expect_eq(gal_json_get(b, "color")->type, GAL_JSON_NULL);
}

/* A string in the report: plain ASCII as it is, UTF-8 as it is, anything
 * else repaired, wherever the first odd byte is. */
Test(manifest, report_strings_are_valid_utf8_wherever_the_odd_byte_is)
{
    const gal_run_summary run = { .preset = "web", .output_dir = "/srv/out" };
    const char *cases[][2] = {
        { "plain.jpg", "plain.jpg" },
        { "", "" },
        { "\xea\xb3\xa0\xeb\xa0\xa4.jpg", "\xea\xb3\xa0\xeb\xa0\xa4.jpg" },
        { "abc\xff.jpg", "abc\xef\xbf\xbd.jpg" },
        { "\xff", "\xef\xbf\xbd" },
        { "a\"b\xea\xb3", "a\"b\xef\xbf\xbd\xef\xbf\xbd" }, /* a replacement a byte */
        { "tab\there \xc3\xa9", "tab\there \xc3\xa9" },
    };

    for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
        gal_photo_result photo = { .input = cases[k][0], .status = GAL_PHOTO_PLANNED };
        g_autofree char *line = gal_photo_event_json(&run, &photo, 1, 1);
        g_autoptr(gal_json) j = parse_ok(line);

        cr_expect(g_utf8_validate(line, -1, NULL), "case %zu: not UTF-8: %s", k, line);
        cr_expect_str_eq(gal_json_string(j, "input"), cases[k][1], "case %zu", k);
    }
}
