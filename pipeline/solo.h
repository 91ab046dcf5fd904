/* solo.h: each photo's error is its own.
 *
 * libvips keeps one error buffer for the whole process, and reports some
 * reasons only as GLib warnings (libpng's "IHDR: CRC error"), so with
 * several photos in flight the text of a failure cannot be told apart from
 * another photo's, and may be missing altogether. A failed photo is
 * therefore run again *solo*: gal__solo_begin waits until no other photo
 * is in flight and keeps new ones out, clears the buffer and routes
 * libvips' warnings into it; whatever the buffer holds until gal__solo_end
 * is this photo's alone. Photos that succeed never wait; a failed one
 * costs a second run, which also retries what only failed by chance.
 * A leaf module. */
#ifndef GAL_SOLO_H
#define GAL_SOLO_H

#include <glib.h>

typedef struct gal_solo gal_solo; /* one per run */

gal_solo *gal__solo_new(void);
void gal__solo_free(gal_solo *solo);

/* A photo starts and ends, alongside others: waits while one runs solo. */
void gal__solo_enter(gal_solo *solo);
void gal__solo_leave(gal_solo *solo);

/* A photo runs alone (call it outside enter/leave): waits until every
 * other photo has left; libvips' error buffer is cleared and its
 * warnings go into it until gal__solo_end. */
void gal__solo_begin(gal_solo *solo);
void gal__solo_end(gal_solo *solo);

#endif /* GAL_SOLO_H */
