/* The record database of an output folder (store.c): records kept as they
 * were put, made only at the first write, and read as an untrusted file:
 * a foreign or damaged database, a record naming a path outside the
 * folder, a link in its place or its journal's, are each no record, with
 * a warning naming the file, and never followed. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(store, .init = gal_test_setup, .fini = gal_test_teardown);

static gal_record
sample(const char *output)
{
    gal_record r = { .kind = GAL_RECORD_FILE };

    r.output = g_strdup(output);
    r.input = g_strdup("../in/trip-01.jpg");
    r.in_size = 37699;
    r.in_mtime_ns = 1796556887464836973;
    gal__digest_from_hex(&r.in_digest, "0b2e9f41bf17e2ccf6cb463cf2a173f0");
    g_strlcpy(r.recipe, "68ff33a772ce794c1bf4799f9a8a85d41a9579ab9c1aa533276b09ca6760dd23",
        sizeof(r.recipe));
    r.version = g_strdup("0.1.0");
    r.out_size = 146184;
    r.out_mtime_ns = 1796557320251457079;
    gal__digest_from_hex(&r.out_sha256,
        "fac16190dd9901b9572a3392a1261fb336668341947b1ec46492ebb4f0604df1");
    r.width = 1080;
    r.height = 1350;
    r.name_key = g_strdup("{dir}/{stem}.{ext}\t1\t23");
    r.caption = g_strdup("two lines,\nand a back\\slash");
    r.caption_source = g_strdup("exif");
    r.caption_cut = TRUE;
    r.about = gal__about_new((const char *const[]) { "camera=Apple iPhone 5s",
                                 "warning=a line\nand another" },
        2);
    gal__record_add_dep(&r, "../in/trip-01.jpg.txt", FALSE, 0, 0, NULL);
    gal__record_add_dep(&r, "../captions.tsv", TRUE, 120, 5, "row:0123456789abcdef");
    return r;
}

static gal_store *
open_store(const char *dir, gal_store_mode mode, GPtrArray *warnings)
{
    gal_error err = { 0 };
    gal_store *s = gal__store_open(dir, GAL_STORE_NAME, mode, warnings, &err);

    cr_assert_not_null(s, "%s", err.msg);
    return s;
}

/* Put one sample record into a new store in `dir`, and close it. */
static void
store_sample(const char *dir)
{
    gal_store *s = open_store(dir, GAL_STORE_WRITE, NULL);
    gal_record r = sample("trip-01.jpg");
    gal_error err = { 0 };

    cr_assert_eq(gal__store_put(s, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(gal__store_close(s, &err), 0, "%s", err.msg);
    gal__record_clear(&r);
}

static void
exec_sql(const char *dir, const char *sql)
{
    g_autofree char *path = g_build_filename(dir, GAL_STORE_NAME, NULL);

    gal_test_manifest_exec(path, sql);
}

/* Does any warning hold `words`? */
static gboolean
warned(GPtrArray *warnings, const char *words)
{
    for (guint i = 0; i < warnings->len; i++)
        if (strstr(warnings->pdata[i], words))
            return TRUE;
    return FALSE;
}

Test(store, a_record_reads_back_as_it_was_put)
{
    g_autofree char *dir = gal_test_tmpdir("store-roundtrip");
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
    gal_record want = sample("trip-01.jpg"), got;
    gal_store *s;
    char hex[65];

    store_sample(dir);
    s = open_store(dir, GAL_STORE_READ, warnings);
    cr_assert(gal__store_get(s, "trip-01.jpg", &got));
    cr_expect_str_eq(got.input, want.input);
    cr_expect_eq(got.in_size, want.in_size);
    cr_expect_eq(got.in_mtime_ns, want.in_mtime_ns);
    cr_expect_str_eq(gal__digest_hex(&got.in_digest, hex), "0b2e9f41bf17e2ccf6cb463cf2a173f0");
    cr_expect_str_eq(got.recipe, want.recipe);
    cr_expect_eq(got.out_mtime_ns, want.out_mtime_ns);
    cr_expect_eq(got.width, 1080);
    cr_expect_str_eq(got.name_key, want.name_key);
    cr_expect_str_eq(got.caption, want.caption);
    cr_expect(got.caption_cut);
    cr_assert_not_null(got.about);
    {
        g_auto(GStrv) fields = gal__about_fields(got.about);

        cr_expect_str_eq(fields[1], "warning=a line\nand another");
    }
    cr_assert_not_null(got.deps);
    cr_assert_eq(got.deps->len, 2);
    {
        const gal_dep_record *table = got.deps->pdata[0];
        const gal_dep_record *sidecar = got.deps->pdata[1];

        cr_expect_str_eq(table->path, "../captions.tsv");
        cr_expect_str_eq(table->digest, "row:0123456789abcdef");
        cr_expect_not(sidecar->exists);
    }
    gal__record_clear(&got);
    cr_expect_not(gal__store_get(s, "trip-02.jpg", &got), "a record made up");
    gal__store_close(s, NULL);
    cr_expect_eq(warnings->len, 0);
    gal__record_clear(&want);
}

Test(store, nothing_is_made_before_the_first_write)
{
    g_autofree char *dir = gal_test_tmpdir("store-lazy");
    g_autofree char *path = g_build_filename(dir, GAL_STORE_NAME, NULL);
    gal_store *s = open_store(dir, GAL_STORE_WRITE, NULL);
    gal_record r = sample("trip-01.jpg");
    g_autoptr(GPtrArray) keys = g_ptr_array_new();

    g_ptr_array_add(keys, "resize.width=100");
    cr_expect_eq(gal__store_put_recipe(s, r.recipe, keys, NULL), 0);
    cr_expect_eq(gal__store_commit(s, FALSE, NULL), 0);
    cr_expect_not(g_file_test(path, G_FILE_TEST_EXISTS), "made for no record");
    cr_expect_eq(gal__store_put(s, &r, NULL), 0);
    cr_expect(g_file_test(path, G_FILE_TEST_EXISTS), "not made at the first record");
    gal__store_close(s, NULL);
    gal__record_clear(&r);
}

Test(store, a_record_naming_a_path_outside_the_folder_is_refused)
{
    g_autofree char *dir = gal_test_tmpdir("store-outside");
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
    const char *bad[] = { "../victim.txt", "/etc/passwd", "a/../../b", ".gallop-manifest.db",
        ".x.gallop-tmp", "" };
    gal_store *s;
    gal_record r;
    int seen = 0;

    store_sample(dir);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *sql = g_strdup_printf(
            "INSERT INTO product SELECT '%s', kind, input, in_size, in_mtime_ns, in_digest, "
            "recipe, version, out_size, out_mtime_ns, out_sha256, width, height, name_key, "
            "caption, caption_source, caption_cut, about, facts FROM product WHERE output = "
            "'trip-01.jpg'",
            bad[i]);

        exec_sql(dir, sql);
    }
    s = open_store(dir, GAL_STORE_READ, warnings);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        cr_expect_not(gal__store_get(s, bad[i], &r), "%s taken", bad[i]);
    /* Said once per record, however often it is read; said when the store
     * closes. */
    gal__store_get(s, "../victim.txt", &r);
    cr_expect_eq(warnings->len, 0, "said before the store closed");
    gal__store_close(s, NULL);
    cr_expect(warned(warnings, "record \"../victim.txt\" refused: not a relative path beneath "
                               "the output folder"));
    cr_expect(warned(warnings, "/" GAL_STORE_NAME ": record \"/etc/passwd\" refused"));
    for (guint w = 0; w < warnings->len; w++)
        seen += strstr(warnings->pdata[w], "\"../victim.txt\"") != NULL;
    cr_expect_eq(seen, 1);
}

Test(store, values_that_do_not_check_are_no_record)
{
    g_autofree char *dir = gal_test_tmpdir("store-values");
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
    const char *edits[] = { "UPDATE product SET kind = 'script'",
        "UPDATE product SET in_digest = 'not a digest'", "UPDATE product SET width = -4",
        "UPDATE product SET version = x'00'", "UPDATE product SET input = '/etc/shadow'",
        "UPDATE product SET caption = 'a' || char(27) || '[31m'",
        "UPDATE depend SET path = '/etc/passwd' WHERE path = '../captions.tsv'" };

    for (size_t i = 0; i < G_N_ELEMENTS(edits); i++) {
        g_autofree char *sub = g_strdup_printf("%s/%zu", dir, i);
        gal_store *s;
        gal_record r;

        cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
        store_sample(sub);
        exec_sql(sub, edits[i]);
        s = open_store(sub, GAL_STORE_READ, warnings);
        cr_expect_not(gal__store_get(s, "trip-01.jpg", &r), "taken after %s", edits[i]);
        gal__store_close(s, NULL);
        cr_expect(warned(warnings, "record \"trip-01.jpg\" refused"), "%s", edits[i]);
        g_ptr_array_set_size(warnings, 0);
    }
}

/* Another program's database, one with a trigger or a view gallop does
 * not make, a text file, an empty file: read as no record, replaced at
 * the first write. */
Test(store, a_foreign_or_damaged_database_is_no_record_and_is_replaced)
{
    g_autofree char *dir = gal_test_tmpdir("store-foreign");
    const char *setups[] = {
        "CREATE TABLE product (output TEXT); INSERT INTO product VALUES ('../x')",
        "CREATE VIEW v AS SELECT 1",
        "CREATE TRIGGER t AFTER INSERT ON product BEGIN DELETE FROM recipe; END",
        "PRAGMA application_id = 1",
        "PRAGMA user_version = 99",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(setups) + 2; i++) {
        g_autofree char *sub = g_strdup_printf("%s/%zu", dir, i);
        g_autofree char *path = g_build_filename(sub, GAL_STORE_NAME, NULL);
        g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
        gal_record r = sample("trip-02.jpg"), got;
        gal_store *s;

        cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
        if (i == 0)
            gal_test_manifest_exec(path, setups[0]);
        else if (i < G_N_ELEMENTS(setups)) {
            store_sample(sub);
            exec_sql(sub, setups[i]);
        }
        else
            cr_assert(g_file_set_contents(path, i == G_N_ELEMENTS(setups) ? "root:x:0:0\n" : "",
                -1, NULL));
        s = open_store(sub, GAL_STORE_WRITE, warnings);
        cr_expect_not(gal__store_get(s, "trip-01.jpg", &got), "setup %zu: a record kept", i);
        cr_expect_eq(gal__store_put(s, &r, NULL), 0);
        cr_expect_eq(gal__store_close(s, NULL), 0);
        if (i <= G_N_ELEMENTS(setups)) {
            cr_expect(warned(warnings, "ignored, every output is checked again"),
                "setup %zu: no warning", i);
            cr_expect(warnings->len == 0 || !strstr(warnings->pdata[0], "root:"),
                "the file's content quoted");
        }
        g_ptr_array_set_size(warnings, 0);
        s = open_store(sub, GAL_STORE_READ, warnings);
        cr_expect(gal__store_get(s, "trip-02.jpg", &got), "setup %zu: not replaced", i);
        gal__record_clear(&got);
        cr_expect_eq(warnings->len, 0, "setup %zu: %s", i,
            warnings->len ? (char *) warnings->pdata[0] : "");
        gal__store_close(s, NULL);
        gal__record_clear(&r);
    }
}

/* A link where the database or its log would be is never followed: the
 * store reads as empty, and its first write replaces the link itself. */
Test(store, a_link_in_its_place_or_its_logs_is_not_followed)
{
    g_autofree char *dir = gal_test_tmpdir("store-link");
    g_autofree char *victim = g_build_filename(dir, "victim", NULL);
    const char *names[] = { GAL_STORE_NAME, GAL_STORE_NAME "-wal", GAL_STORE_NAME "-journal" };

    cr_assert(g_file_set_contents(victim, "keep", -1, NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *sub = g_strdup_printf("%s/%zu", dir, i);
        g_autofree char *link = g_build_filename(sub, names[i], NULL);
        g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *kept = NULL;
        gal_record r = sample("trip-01.jpg");
        gal_store *s;
        struct stat st;

        cr_assert_eq(g_mkdir_with_parents(sub, 0777), 0);
        if (i > 0)
            store_sample(sub);
        cr_assert_eq(symlink(victim, link), 0);
        s = open_store(sub, GAL_STORE_WRITE, warnings);
        cr_expect_eq(gal__store_put(s, &r, NULL), 0);
        cr_expect_eq(gal__store_close(s, NULL), 0);
        cr_expect(warned(warnings, i == 0 ? "a symbolic link, not a file" : "its journal is a link"),
            "%s: no warning", names[i]);
        cr_assert(g_file_get_contents(victim, &kept, NULL, NULL));
        cr_expect_str_eq(kept, "keep", "written through %s", names[i]);
        cr_expect(lstat(link, &st) != 0 || !S_ISLNK(st.st_mode), "%s is still a link", names[i]);
        gal__record_clear(&r);
    }
}

static gboolean
add_name(const gal_record *r, void *out)
{
    g_string_append_printf(out, "%s ", r->output);
    return TRUE;
}

Test(store, records_are_given_in_output_order_by_kind)
{
    g_autofree char *dir = gal_test_tmpdir("store-each");
    gal_store *s = open_store(dir, GAL_STORE_WRITE, NULL);
    const char *outputs[] = { "b.jpg", "a.jpg", "sub/c.jpg", "contact-1.jpg" };
    g_autoptr(GString) seen = g_string_new(NULL);

    for (size_t i = 0; i < G_N_ELEMENTS(outputs); i++) {
        gal_record r = sample(outputs[i]);

        if (i == 3) {
            r.kind = GAL_RECORD_PAGE;
            g_free(r.input);
            r.input = g_strdup("");
            gal__digest_from_hex(&r.in_digest,
                "61dacc6f6a9b8d8e0c6e35aeb50de83c7b8b2b2d9cbe9bf4e378f930db274670");
        }
        cr_assert_eq(gal__store_put(s, &r, NULL), 0);
        gal__record_clear(&r);
    }
    cr_expect_eq(gal__store_count(s, 1u << GAL_RECORD_FILE), 3);
    cr_expect_eq(gal__store_count(s, ~0u), 4);
    gal__store_each(s, 1u << GAL_RECORD_FILE, add_name, seen);
    cr_expect_str_eq(seen->str, "a.jpg b.jpg sub/c.jpg ");
    gal__store_close(s, NULL);
}

static void
take_result(const char *input, const gal_part_result *r, void *taken)
{
    cr_expect_str_eq(input, "../in/trip-01.jpg");
    cr_expect_str_eq(r->rel_output, "trip-01.jpg");
    cr_expect_eq(r->result.width, 9);
    cr_expect(r->result.seconds == 0.05295);
    (*(int *) taken)++;
}

Test(store, a_part_keeps_its_header_and_results)
{
    g_autofree char *dir = gal_test_tmpdir("store-part");
    g_autofree char *name = gal__part_name(2, 3);
    gal_error err = { 0 };
    gal_store *s = gal__store_open(dir, name, GAL_STORE_PART, NULL, &err);
    gal_part_info info = { .shard = 2, .shards = 3, .cwd = g_strdup(".."), .done = TRUE,
        .n_results = 1 };
    gal_part_info back = { 0 };
    gal_photo_result result = { .status = GAL_PHOTO_DONE, .why = GAL_WHY_NEW, .width = 9,
        .height = 7, .bytes = 99, .seconds = 0.05295 };
    g_autoptr(gal_part_result) kept = gal__part_result_new(&result, "trip-01.jpg",
        "0b2e9f41bf17e2ccf6cb463cf2a173f0");
    int k, n, taken = 0;

    cr_assert_not_null(s, "%s", err.msg);
    cr_expect(gal__part_name_parse(name, &k, &n) && k == 2 && n == 3);
    cr_expect_not(gal__part_name_parse(".gallop-manifest.02-of-3.db", &k, &n));
    cr_expect_not(gal__part_name_parse(".gallop-manifest.2-of-3.db-wal", &k, &n));
    g_strlcpy(info.recipe, "68ff33a772ce794c1bf4799f9a8a85d41a9579ab9c1aa533276b09ca6760dd23",
        sizeof(info.recipe));
    info.version = g_strdup("0.1.0");
    info.inputs = g_strdupv((char *[]) { "photos", "more photos", NULL });
    cr_assert_eq(gal__part_put_info(s, &info, &err), 0, "%s", err.msg);
    cr_assert_eq(gal__part_put_result(s, "../in/trip-01.jpg", kept, &err), 0, "%s", err.msg);
    cr_assert_eq(gal__store_close(s, &err), 0, "%s", err.msg);

    s = gal__store_open(dir, name, GAL_STORE_READ, NULL, &err);
    cr_assert_not_null(s, "%s", err.msg);
    cr_assert_eq(gal__part_get_info(s, &back, &err), 0, "%s", err.msg);
    cr_expect_eq(back.shard, 2);
    cr_expect_str_eq(back.cwd, "..");
    cr_expect_str_eq(back.inputs[1], "more photos");
    cr_expect(back.done);
    cr_expect_eq(gal__part_each_result(s, FALSE, take_result, &taken, &err), 0, "%s", err.msg);
    cr_expect_eq(taken, 1);
    gal__part_info_clear(&back);
    gal__store_close(s, NULL);
    gal__part_info_clear(&info);

    /* Not a part at all: damaged, named. */
    {
        g_autofree char *path = g_build_filename(dir, name, NULL);

        cr_assert(g_file_set_contents(path, "not a part\n", -1, NULL));
        err = (gal_error) { 0 };
        cr_expect_null(gal__store_open(dir, name, GAL_STORE_READ, NULL, &err));
        cr_expect(strstr(err.msg, name) && strstr(err.msg, "the part is damaged; run its shard "
                                                           "again"),
            "%s", err.msg);
    }
}

/* Leaves out part 1's record of b.jpg (another part has one). */
static gboolean
keep_first(const char *output, const char *input, int part, void *user)
{
    (void) input;
    (*(int *) user)++;
    return !(part == 1 && strcmp(output, "b.jpg") == 0);
}

/* A merge's join: the parts' records into the folder's, each with its
 * depend rows and its recipe, in output order whichever part holds them;
 * an output two parts hold is the first part's unless `keep` says
 * otherwise, and a record left out leaves its depend rows behind. */
Test(store, parts_join_in_output_order_with_their_depend_rows)
{
    g_autofree char *dir = gal_test_tmpdir("store-join");
    const char *held[3][3] = { { "c.jpg", "a.jpg", NULL }, { "b.jpg", "e.jpg", NULL },
        { "d.jpg", "b.jpg", "sub/f.jpg" } };
    gal_store *parts[3];
    gal_store *s;
    g_autoptr(GString) seen = g_string_new(NULL);
    gal_error err = { 0 };
    int asked = 0;
    gal_record r;

    for (int p = 0; p < 3; p++) {
        g_autofree char *name = gal__part_name(p + 1, 3);

        parts[p] = gal__store_open(dir, name, GAL_STORE_PART, NULL, &err);
        cr_assert_not_null(parts[p], "%s", err.msg);
        for (int k = 0; k < 3 && held[p][k]; k++) {
            gal_record rec = sample(held[p][k]);

            rec.width = 100 * (p + 1);
            if (p == 1)
                gal__record_add_dep(&rec, "../extra.txt", TRUE, 1, 1,
                    "0123456789abcdef0123456789abcdef");
            cr_assert_eq(gal__store_put(parts[p], &rec, &err), 0, "%s", err.msg);
            gal__record_clear(&rec);
        }
        cr_assert_eq(gal__store_close(parts[p], &err), 0, "%s", err.msg);
        parts[p] = gal__store_open(dir, name, GAL_STORE_READ, NULL, &err);
        cr_assert_not_null(parts[p], "%s", err.msg);
    }
    s = open_store(dir, GAL_STORE_WRITE, NULL);
    cr_assert_eq(gal__store_join(s, parts, 3, keep_first, &asked, &err), 0, "%s", err.msg);
    cr_assert_eq(gal__store_commit(s, TRUE, &err), 0, "%s", err.msg);
    cr_expect_eq(asked, 7, "keep asked of %d records, not 7", asked);
    gal__store_each(s, ~0u, add_name, seen);
    cr_expect_str_eq(seen->str, "a.jpg b.jpg c.jpg d.jpg e.jpg sub/f.jpg ");
    /* b.jpg: part 1's was left out, so part 3's (width 300) is the one. */
    cr_assert(gal__store_get(s, "b.jpg", &r));
    cr_expect_eq(r.width, 300);
    cr_expect(r.deps && r.deps->len == 2, "b.jpg has %u depend rows, not its own 2",
        r.deps ? r.deps->len : 0);
    gal__record_clear(&r);
    cr_assert(gal__store_get(s, "sub/f.jpg", &r));
    cr_expect(r.deps && r.deps->len == 2);
    {
        g_auto(GStrv) about = gal__about_fields(r.about);

        cr_expect(about && about[0] && strcmp(about[0], "camera=Apple iPhone 5s") == 0);
    }
    gal__record_clear(&r);
    cr_expect_eq(gal__store_count(s, ~0u), 6);
    for (int p = 0; p < 3; p++)
        gal__store_close(parts[p], NULL);
    cr_assert_eq(gal__store_close(s, &err), 0, "%s", err.msg);
}
