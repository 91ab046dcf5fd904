/* registry.c: the stage table, expanded from stages.def. */
#include <string.h>

#include "internal.h"
#include "stage.h"

#define GAL_STAGE(n) extern const gal_stage_def gal_stage_##n;
#include "stages.def"
#undef GAL_STAGE

const gal_stage_def *const gal__stages[] = {
#define GAL_STAGE(n) &gal_stage_##n,
#include "stages.def"
#undef GAL_STAGE
    NULL,
};

const gal_stage_def *
gal__stage_find(const char *name)
{
    for (int i = 0; gal__stages[i]; i++)
        if (strcmp(gal__stages[i]->name, name) == 0)
            return gal__stages[i];
    return NULL;
}
