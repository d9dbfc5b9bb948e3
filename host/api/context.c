/* context.c (api) — the public end of a context's life, which needs layers above the runtime: the
 * profile report at destruction reads the roofline op's stored figures. A destructor measures nothing
 * and writes nothing: with no stored roofline the report leaves the roofline columns out. */
#include "roofline.h"

void clf_context_destroy(clf_context *ctx)
{
    if (!ctx) return;
    if (ctx->profile) {
        clFinish(ctx->queue);
        clf_roofline roof;
        clf__quiet_begin();
        int have = clf__roofline_stored(ctx, &roof);
        clf__quiet_end();
        clf__profile_print(ctx, stderr, have ? &roof : NULL);
    }
    clf__context_free(ctx);
}

clf_status clf_profile_report(clf_context *ctx, FILE *out)
{
    if (!ctx || !out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_profile_report: ctx and out must be non-NULL");
    if (!ctx->profile) return clf__profile_print(ctx, out, NULL);
    /* The stored roofline, or a quick calibration stored for next time (launches it makes are not
     * profiled). Without one the table still prints. */
    clf_roofline roof;
    clf__quiet_begin();
    int have = clf_roofline_get(ctx, 1, 0, &roof) == CLF_SUCCESS;
    clf__quiet_end();
    return clf__profile_print(ctx, out, have ? &roof : NULL);
}
