/* album.h: an album's album.yaml (title, description, cover, sort, date),
 * read and checked like a preset section, its description's Markdown made
 * safe HTML (libcmark). */
#ifndef GAL_ALBUM_H
#define GAL_ALBUM_H

#include "internal.h"
#include "schema.h"
#include "stage.h"

/* The file an album is described by, in its folder. */
#define GAL_ALBUM_FILE "album.yaml"

/* What an album.yaml says; every field NULL (sort: has_sort FALSE) when
 * not given. */
typedef struct gal_album_file {
    char *path;              /* the file; locations point into it */
    char *title;
    char *description;       /* the Markdown as written */
    char *description_html;  /* the same rendered, raw HTML dropped */
    char *description_text;  /* the same as plain text, on one line */
    char *cover;             /* a photo's file name in the album */
    gal_loc cover_loc;
    gboolean has_sort;
    gal_sort sort;
    char *date;              /* YYYY-MM-DD, a real day */
} gal_album_file;

/* The keys an album.yaml takes, for docs and `gallop stages`-like lists. */
extern const gal_section gal__album_section;

/* Read `dir`/album.yaml, read within `dir`: 0 with *out NULL when there is
 * none; 0 with *out (free it) when it is right; -1 with every error, each
 * located (file:line:col, the key), added to `errs` otherwise. Main thread
 * only (libyaml). */
int gal__album_load(const char *dir, gal_album_file **out, gal_errors *errs);
void gal__album_file_free(gal_album_file *album);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(gal_album_file, gal__album_file_free)

/* Add to `sum` what the pages depend on of the album.yaml files of the
 * folders beneath `root` that `rels` (photos' paths within it, n of them)
 * are in, and of those above them: each one's path and content ("-" when
 * there is none), the folders in a fixed order. An edited album.yaml
 * makes the pages stale. */
void gal__album_digest(GChecksum *sum, const char *const *roots, const char *const *rels,
    int n);

/* CommonMark `markdown` as HTML with raw HTML dropped and links to
 * javascript:, vbscript: and data: (but images) removed: a new string.
 * Thread-safe. */
char *gal__markdown_html(const char *markdown);
/* The text of that HTML (gal__markdown_html's), tags dropped, entities
 * read, white space one space: a new string. Pure. */
char *gal__html_text(const char *html);

#endif /* GAL_ALBUM_H */
