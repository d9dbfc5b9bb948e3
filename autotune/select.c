/* select.c — which configuration the ops use for a family, precision and shape bucket: the tuning
 * database, then shipped defaults, then the family's heuristic. */
#include "family.h"

#include <string.h>

clf_status clf__config_select(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                              clf__config *out, const char **origin)
{
    if (!ctx || !f || !out)
        return clf__fail(CLF_ERR_INVALID_ARG, "config select: NULL argument");
    memset(out, 0, sizeof *out);
    f->default_config(&ctx->info, dt, bucket, out);
    if (origin)
        *origin = "default";
    return CLF_SUCCESS;
}
