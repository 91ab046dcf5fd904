/* pngio.h: PNG output with libpng. */
#ifndef GAL_PNGIO_H
#define GAL_PNGIO_H

#include "internal.h"
#include "cancel.h"
#include "metadata.h"

/* Encode an 8-bit image of 1 to 4 bands as PNG to `fd`, with the text
 * chunks (iTXt: Title, Description, Author, Copyright, Software), eXIf and
 * iCCP `meta` asks for. No tIME chunk: the same pixels and metadata give
 * the same bytes. Evaluates `image` (so a libvips kill stops it). Every
 * byte written, in order (libpng never seeks), is also added to `sum`
 * (may be NULL), so the file need not be read back to be hashed. A failed
 * write() sets *write_errno (and returns -1 with `err` untouched). */
int gal__png_write(int fd, VipsImage *image, const gal_meta *meta, gboolean interlace,
    gal_watch *watch, GChecksum *sum, int *write_errno, gal_error *err);


/* "1.6.39" */
const char *gal__libpng_version(void);

#endif /* GAL_PNGIO_H */
