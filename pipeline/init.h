/* init.h: library start-up helpers that tests reach. */
#ifndef GAL_INIT_H
#define GAL_INIT_H

#include <glib.h>

/* TRUE when `version` ("MAJOR.MINOR.MICRO", optionally followed by
 * ".NANO") is at least major.minor.micro. FALSE for NULL or for anything
 * else that is not such a version. Pure. */
gboolean gal__version_at_least(const char *version, int major, int minor, int micro);

#endif /* GAL_INIT_H */
