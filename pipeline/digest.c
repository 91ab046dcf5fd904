/* digest.c: content digests (XXH3-128 and SHA-256, see digest.h) of
 * files, read through fsio. A leaf module, and the one file that uses
 * libxxhash. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The state's layout, so that it can live on the stack: nothing to
 * allocate, nothing to fail. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "digest.h"
#include "error.h"
#include "limit.h"

static gboolean
is_hex(const char *text, gsize len)
{
    if (strlen(text) != len)
        return FALSE;
    for (const char *p = text; *p; p++)
        if (!g_ascii_isxdigit(*p))
            return FALSE;
    return TRUE;
}

/* A hex digit's value plus one, by the byte: 0 for anything else. A
 * table: a record's two digests and a part result's two are read on
 * every line, and comparisons per digit were 5% of a merge's
 * instructions (g_ascii_xdigit_value() per digit had been 6% of a
 * rerun's). */
#define HEX_DIGITS_1(c, v) [c] = (v) + 1
static const guint8 nibble_1[256] = {
    HEX_DIGITS_1('0', 0), HEX_DIGITS_1('1', 1), HEX_DIGITS_1('2', 2), HEX_DIGITS_1('3', 3),
    HEX_DIGITS_1('4', 4), HEX_DIGITS_1('5', 5), HEX_DIGITS_1('6', 6), HEX_DIGITS_1('7', 7),
    HEX_DIGITS_1('8', 8), HEX_DIGITS_1('9', 9), HEX_DIGITS_1('a', 10), HEX_DIGITS_1('b', 11),
    HEX_DIGITS_1('c', 12), HEX_DIGITS_1('d', 13), HEX_DIGITS_1('e', 14), HEX_DIGITS_1('f', 15),
    HEX_DIGITS_1('A', 10), HEX_DIGITS_1('B', 11), HEX_DIGITS_1('C', 12), HEX_DIGITS_1('D', 13),
    HEX_DIGITS_1('E', 14), HEX_DIGITS_1('F', 15),
};

void
gal__digest_from_hex(gal_digest *d, const char *hex)
{
    gsize n = hex ? strlen(hex) : 0;
    gal_digest made = { 0 };

    *d = made;
    if (n != GAL_XXH3_HEX_LEN && n != GAL_SHA256_HEX_LEN)
        return;
    for (gsize i = 0; i < n / 2; i++) {
        int high = nibble_1[(guint8) hex[2 * i]], low = nibble_1[(guint8) hex[2 * i + 1]];

        if (!high || !low)
            return;
        made.bytes[i] = (guint8) ((high - 1) << 4 | (low - 1));
    }
    made.len = (guint8) (n / 2);
    *d = made;
}

char *
gal__digest_hex(const gal_digest *d, char *hex)
{
    static const char digits[] = "0123456789abcdef";

    for (int i = 0; i < d->len; i++) {
        hex[2 * i] = digits[d->bytes[i] >> 4];
        hex[2 * i + 1] = digits[d->bytes[i] & 15];
    }
    hex[2 * d->len] = '\0';
    return hex;
}

void
gal__sha256_from_digest(gal_sha256 *out, const gal_digest *d)
{
    *out = (gal_sha256) { .known = d->len == sizeof(out->bytes) };
    if (out->known)
        memcpy(out->bytes, d->bytes, sizeof(out->bytes));
}

void
gal__sha256_from_hex(gal_sha256 *out, const char *hex)
{
    gal_digest d;

    gal__digest_from_hex(&d, hex);
    gal__sha256_from_digest(out, &d);
}

gboolean
gal__sha256_same(const gal_sha256 *a, const gal_sha256 *b)
{
    return a->known == b->known &&
        (!a->known || memcmp(a->bytes, b->bytes, sizeof(a->bytes)) == 0);
}

void
gal__digest_from_sha256(gal_digest *out, const gal_sha256 *sha256)
{
    *out = (gal_digest) { .len = sha256->known ? sizeof(sha256->bytes) : 0 };
    if (sha256->known)
        memcpy(out->bytes, sha256->bytes, sizeof(sha256->bytes));
}

const char *
gal_sha256_hex(const gal_sha256 *digest, char hex[65])
{
    gal_digest d;

    if (!digest->known)
        return NULL;
    gal__digest_from_sha256(&d, digest);
    return gal__digest_hex(&d, hex);
}

gboolean
gal__digest_is(const gal_digest *d, const char *hex)
{
    gal_digest other;

    gal__digest_from_hex(&other, hex);
    return other.len == d->len && memcmp(other.bytes, d->bytes, d->len) == 0 &&
        (d->len > 0 || !hex || !*hex);
}

gboolean
gal__is_content_digest(const char *text)
{
    return is_hex(text, GAL_XXH3_HEX_LEN) || is_hex(text, GAL_SHA256_HEX_LEN);
}

gboolean
gal__is_sha256_hex(const char *text)
{
    return is_hex(text, GAL_SHA256_HEX_LEN);
}

/* The canonical (big-endian) form, so the digits are those of xxhsum -H2. */
static void
xxh128_to_hex(XXH128_hash_t hash, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    XXH128_canonical_t canonical;

    XXH128_canonicalFromHash(&canonical, hash);
    for (int i = 0; i < 16; i++) {
        hex[2 * i] = digits[canonical.digest[i] >> 4];
        hex[2 * i + 1] = digits[canonical.digest[i] & 15];
    }
    hex[GAL_XXH3_HEX_LEN] = '\0';
}

void
gal__xxh3_hex(const void *data, gsize len, char *hex)
{
    xxh128_to_hex(XXH3_128bits(data, len), hex);
}

int
gal__fd_digests(int fd, char *xxh3, char *sha256, gint64 *size)
{
    XXH3_state_t state;
    g_autoptr(GChecksum) sum = sha256 ? g_checksum_new(G_CHECKSUM_SHA256) : NULL;
    /* 256 KiB: a 4 MB photo in 16 reads; on the heap, as workers' stacks
     * are libvips-sized. */
    enum { CHUNK = 1 << 18 };
    g_autofree unsigned char *buf = g_malloc(CHUNK);
    gint64 total = 0;

    XXH3_128bits_reset(&state);
    for (;;) {
        ssize_t n = read(fd, buf, CHUNK);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        if (xxh3)
            XXH3_128bits_update(&state, buf, (size_t) n);
        if (sum)
            g_checksum_update(sum, buf, (gsize) n);
        total += n;
    }
    if (xxh3)
        xxh128_to_hex(XXH3_128bits_digest(&state), xxh3);
    if (sum)
        g_strlcpy(sha256, g_checksum_get_string(sum), GAL_SHA256_HEX_LEN + 1);
    if (size)
        *size = total;
    return 0;
}

int
gal__fd_sha256(int fd, char *hex, gint64 *size)
{
    return gal__fd_digests(fd, NULL, hex, size);
}

static const gal_read_rules plain = { NULL, NULL, FALSE, 0, GAL_ERR_INPUT };

int
gal__file_digest(const char *path, const gal_read_rules *rules, char *hex, char *sha256,
    gint64 *size, gal_error *err)
{
    int fd, failed;

    if (gal__file_open(path, rules ? rules : &plain, &fd, NULL, err))
        return -1;
    failed = gal__fd_digests(fd, hex, sha256, size);
    if (failed)
        gal_error_set(err, (rules ? rules : &plain)->code, NULL, NULL, "cannot read %s: %s",
            path, g_strerror(errno));
    close(fd);
    return failed;
}

int
gal__file_sha256(const char *path, const gal_read_rules *rules, char *hex, gint64 *size,
    gal_error *err)
{
    int fd, failed;

    if (gal__file_open(path, rules ? rules : &plain, &fd, NULL, err))
        return -1;
    failed = gal__fd_sha256(fd, hex, size);
    if (failed)
        gal_error_set(err, (rules ? rules : &plain)->code, NULL, NULL, "cannot read %s: %s",
            path, g_strerror(errno));
    close(fd);
    return failed;
}

int
gal__sha256_beneath(int root_fd, const char *rel, char *hex, gint64 *size)
{
    int fd = gal__open_beneath(root_fd, rel);
    int failed;

    if (fd < 0)
        return -1;
    failed = gal__fd_sha256(fd, hex, size);
    close(fd);
    return failed;
}

/* Files an output depends on (caption sidecars, tables, exports) are
 * named by paths the manifest keeps, which may have been tampered with:
 * each is hashed only when it is a regular file within the limit. */
static const gal_read_rules dependency_rules = { "file an output depends on", NULL, TRUE, 0,
    GAL_ERR_INPUT };

static void
zeros(char *hex, gsize len)
{
    if (!hex)
        return;
    memset(hex, '0', len);
    hex[len] = '\0';
}

void
gal__dependency_state(const char *path, struct stat *st, gboolean *exists, char *hex,
    char *sha256)
{
    gal_read_rules rules = dependency_rules;
    gal_error err = { 0 };
    int fd;

    *exists = stat(path, st) == 0 && S_ISREG(st->st_mode);
    zeros(hex, GAL_XXH3_HEX_LEN);
    zeros(sha256, GAL_SHA256_HEX_LEN);
    if (!*exists)
        return;
    rules.max_bytes = gal__limits.dependency_bytes;
    if (gal__file_open(path, &rules, &fd, NULL, &err))
        return;
    if (gal__fd_digests(fd, hex, sha256, NULL) != 0) {
        zeros(hex, GAL_XXH3_HEX_LEN);
        zeros(sha256, GAL_SHA256_HEX_LEN);
    }
    close(fd);
}
