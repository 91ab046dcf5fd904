/* Content digests: XXH3-128 for change detection, SHA-256 for outputs
 * and records of manifest format 1, both from one read of a file, and
 * the shapes an untrusted manifest's digest fields may take. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "gal_test.h"

TestSuite(digest, .init = gal_test_setup, .fini = gal_test_teardown);

/* 1 MiB and a few bytes, so that a file takes several reads. */
static guchar *
pattern(gsize len)
{
    guchar *data = g_malloc(len);

    for (gsize i = 0; i < len; i++)
        data[i] = (guchar) (i * 2654435761u >> 13);
    return data;
}

Test(digest, xxh3_is_the_canonical_xxh128_in_32_hex_digits)
{
    char hex[33];

    /* The reference values of xxhsum -H2 (xxHash 0.8). */
    gal__xxh3_hex("", 0, hex);
    cr_expect_str_eq(hex, "99aa06d3014798d86001c324468d497f");
    gal__xxh3_hex("a", 1, hex);
    cr_expect_str_eq(hex, "a96faf705af16834e6c632b61e964e1f");
}

Test(digest, one_read_gives_both_digests_and_the_size)
{
    const gsize len = (1 << 20) + 7;
    g_autofree guchar *data = pattern(len);
    g_autofree char *dir = gal_test_tmpdir("digest-both");
    g_autofree char *path = g_build_filename(dir, "f.bin", NULL);
    g_autofree char *want_sha = g_compute_checksum_for_data(G_CHECKSUM_SHA256, data, len);
    char want_xxh[33], xxh[33], sha[65], only[33];
    gint64 size = 0;
    gal_error err = { 0 };
    int fd;

    gal__xxh3_hex(data, len, want_xxh);
    cr_assert(g_file_set_contents(path, (const char *) data, (gssize) len, NULL));
    fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(gal__fd_digests(fd, xxh, sha, &size), 0);
    close(fd);
    cr_expect_str_eq(xxh, want_xxh);
    cr_expect_str_eq(sha, want_sha);
    cr_expect_eq(size, (gint64) len);

    cr_assert_eq(gal__file_digest(path, NULL, only, NULL, NULL, &err), 0, "%s", err.msg);
    cr_expect_str_eq(only, want_xxh);
    cr_assert_eq(gal__file_sha256(path, NULL, sha, &size, &err), 0, "%s", err.msg);
    cr_expect_str_eq(sha, want_sha);
}

Test(digest, a_missing_file_is_an_input_error_naming_it)
{
    char hex[33];
    gal_error err = { 0 };

    cr_expect_eq(gal__file_digest("/nonexistent/x.jpg", NULL, hex, NULL, NULL, &err), -1);
    cr_expect_eq(err.code, GAL_ERR_INPUT);
    cr_expect(strstr(err.msg, "/nonexistent/x.jpg") != NULL, "%s", err.msg);
}

Test(digest, dependency_state_is_xxh3_and_zeros_when_unreadable)
{
    g_autofree char *dir = gal_test_tmpdir("digest-dep");
    g_autofree char *path = g_build_filename(dir, "a.txt", NULL);
    g_autofree char *gone = g_build_filename(dir, "gone.txt", NULL);
    g_autofree char *want_sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, "caption", -1);
    char want[33], hex[65], sha[65];
    struct stat st;
    gboolean exists;

    cr_assert(g_file_set_contents(path, "caption", -1, NULL));
    gal__xxh3_hex("caption", 7, want);
    gal__dependency_state(path, &st, &exists, hex, sha);
    cr_expect(exists);
    cr_expect_str_eq(hex, want);
    cr_expect_str_eq(sha, want_sha);

    gal__dependency_state(gone, &st, &exists, hex, NULL);
    cr_expect_not(exists);
    cr_expect_str_eq(hex, "00000000000000000000000000000000");
    /* A folder is no file an output depends on. */
    gal__dependency_state(dir, &st, &exists, hex, sha);
    cr_expect_not(exists);
    cr_expect_eq(strlen(sha), 64);
}

Test(digest, manifest_digest_fields_are_32_or_64_hex_digits)
{
    cr_expect(gal__is_content_digest("99aa06d3014798d86001c324468d497f"));
    cr_expect(gal__is_content_digest(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    cr_expect(gal__is_content_digest("99AA06D3014798D86001C324468D497F"));
    cr_expect_not(gal__is_content_digest(""));
    cr_expect_not(gal__is_content_digest("99aa06d3014798d86001c324468d497"));
    cr_expect_not(gal__is_content_digest("99aa06d3014798d86001c324468d497f0"));
    cr_expect_not(gal__is_content_digest("99aa06d3014798d86001c324468d497g"));
    cr_expect_not(gal__is_content_digest("../../../../../../etc/passwd....."));
    cr_expect(gal__is_sha256_hex(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    cr_expect_not(gal__is_sha256_hex("99aa06d3014798d86001c324468d497f"));
}

/* A record holds its digests as bytes (16 or 32), and writes them back as
 * the hex it read, in lower case; anything else is no digest. */
Test(digest, held_as_bytes_and_written_back_as_hex)
{
    static const char *const good[] = { "99aa06d3014798d86001c324468d497f",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" };
    char hex[GAL_SHA256_HEX_LEN + 1];
    gal_digest d;

    for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
        gal__digest_from_hex(&d, good[i]);
        cr_expect_eq(d.len, strlen(good[i]) / 2);
        cr_expect_str_eq(gal__digest_hex(&d, hex), good[i]);
        cr_expect(gal__digest_is(&d, good[i]));
    }
    gal__digest_from_hex(&d, "99AA06D3014798D86001C324468D497F");
    cr_expect_str_eq(gal__digest_hex(&d, hex), "99aa06d3014798d86001c324468d497f");
    cr_expect(gal__digest_is(&d, "99aa06d3014798d86001c324468d497f"));
    cr_expect_not(gal__digest_is(&d, "99aa06d3014798d86001c324468d4970"));
    cr_expect_not(gal__digest_is(&d, ""));
    for (const char *const *bad = (const char *const[]) { "", "99aa06d3014798d86001c324468d497",
             "99aa06d3014798d86001c324468d497g", "row:0123456789abcdef", NULL };
         *bad; bad++) {
        gal__digest_from_hex(&d, *bad);
        cr_expect_eq(d.len, 0, "%s", *bad);
        cr_expect_str_eq(gal__digest_hex(&d, hex), "");
        cr_expect(gal__digest_is(&d, ""));
        cr_expect(gal__digest_is(&d, NULL));
    }
}

/* A result's SHA-256 is held as its bytes and given back as the same hex;
 * what is not a SHA-256 (none, an XXH3, a stray character) is not known,
 * and two are the same only digit for digit. */
Test(digest, a_results_sha256_round_trips_its_hex)
{
    static const char hex[] = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855";
    g_autofree char *lower = g_ascii_strdown(hex, -1);
    const char *not_sha256[] = { NULL, "", "e3b0c44298fc1c149afbf4c8996fb924",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85g",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855a" };
    gal_sha256 d, other;
    gal_digest record;
    char out[65];

    gal__sha256_from_hex(&d, hex);
    cr_assert(d.known);
    cr_expect_str_eq(gal_sha256_hex(&d, out), lower);
    gal__digest_from_hex(&record, lower);
    gal__sha256_from_digest(&other, &record);
    cr_expect(gal__sha256_same(&d, &other), "the record's digest is not the same");
    other.bytes[31] ^= 1;
    cr_expect_not(gal__sha256_same(&d, &other), "one bit apart, the same");
    for (gsize k = 0; k < G_N_ELEMENTS(not_sha256); k++) {
        gal__sha256_from_hex(&other, not_sha256[k]);
        cr_expect_not(other.known, "%s is taken for a SHA-256", not_sha256[k]);
        cr_expect_null(gal_sha256_hex(&other, out));
        cr_expect_not(gal__sha256_same(&d, &other));
    }
    gal__sha256_from_hex(&d, NULL);
    cr_expect(gal__sha256_same(&d, &other), "two not known are not the same");
}
