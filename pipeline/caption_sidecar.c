/* caption_sidecar.c: the source "sidecar": a UTF-8 text file beside the
 * photo, IMG_0001.jpg.txt, else IMG_0001.txt. Nothing is prepared; each
 * photo's sidecar is read when its caption is asked for, and both names
 * are files its caption depends on, whether they exist or not. */
#include <errno.h>
#include <sys/stat.h>

#include "internal.h"
#include "caption_source.h"
#include "error.h"
#include "fsio.h"
#include "limit.h"

/* Both names a sidecar of `photo` may have, new strings, in the order
 * they are tried. */
static void
sidecar_names(const char *photo, char **with_ext, char **without)
{
    g_autofree char *dir = g_path_get_dirname(photo);
    g_autofree char *base = g_path_get_basename(photo);
    g_autofree char *stem = gal__caption_stem(base);
    g_autofree char *stem_txt = g_strconcat(stem, ".txt", NULL);

    *with_ext = g_strconcat(photo, ".txt", NULL);
    *without = g_build_filename(dir, stem_txt, NULL);
}

/* A name that is there but is no file (a FIFO, a folder, a link out of
 * the input folder, something too large to be a caption) fails the photo
 * with words that say so: reading it could block the run, or put another
 * file's text on the photo. */
static int
sidecar_caption(const void *state, const gal_caption_ask *ask, const char **caption,
    const char **file, gal_error *err)
{
    const gal_photo_ref *photo = ask->photo;
    g_autofree char *dir = g_path_get_dirname(photo->path);
    g_autofree char *with_ext = NULL;
    g_autofree char *without = NULL;
    const char *candidates[2];
    gal_read_rules rules = { "caption sidecar", photo->root ? photo->root : dir,
        photo->follow_links, gal__limits.sidecar_bytes, GAL_ERR_INPUT };

    (void) state;
    sidecar_names(photo->path, &with_ext, &without);
    candidates[0] = with_ext;
    candidates[1] = without;
    for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
        const char *path = candidates[i];
        g_autofree char *text = NULL;
        const char *bad;
        struct stat st;
        gsize n;

        if (lstat(path, &st) != 0 && errno == ENOENT)
            continue;
        if (gal__file_read(path, &rules, &text, &n, NULL, err)) {
            g_strlcpy(err->key, "captions", sizeof(err->key));
            return -1;
        }
        /* A NUL byte is not valid here either. */
        if (!g_utf8_validate(text, n, &bad)) {
            gal_loc loc = gal__caption_loc_at(path, text, bad);

            return gal_error_set(err, GAL_ERR_INPUT, NULL, "captions",
                "caption sidecar %s:%d:%d is not UTF-8 text (byte 0x%02x); save it as UTF-8",
                path, loc.line, loc.col, (guchar) *bad);
        }
        *caption = gal__caption_keep(ask->strings,
            g_str_has_prefix(text, "\xef\xbb\xbf") ? text + 3 : text);
        if (*caption) {
            *file = g_string_chunk_insert(ask->strings, path);
            return 0;
        }
    }
    return 0;
}

/* Both names, whether or not they exist: a sidecar that appears later
 * changes the caption too. */
static void
sidecar_files(const void *state, const char *photo, GPtrArray *paths)
{
    char *with_ext, *without;

    (void) state;
    sidecar_names(photo, &with_ext, &without);
    g_ptr_array_add(paths, with_ext);
    g_ptr_array_add(paths, without);
}

const gal_caption_source gal_caption_sidecar = {
    .name = "sidecar",
    .caption = sidecar_caption,
    .own_files = sidecar_files,
};
