/* orclock.h: whether gallop's lock around orc's code memory is in effect
 * (orclock.c says why it exists). */
#ifndef GAL_ORCLOCK_H
#define GAL_ORCLOCK_H

#include <glib.h>

/* TRUE when libvips' calls to orc_program_compile() and
 * orc_program_free() come to gallop's locked versions, so that the
 * vector paths are safe whatever orc the process runs. */
gboolean gal__orc_lock_active(void);

#endif /* GAL_ORCLOCK_H */
