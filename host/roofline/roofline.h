/* roofline.h — the roofline op's internals for the layers above it. */
#ifndef CLFORGE_ROOFLINE_H
#define CLFORGE_ROOFLINE_H

#include "internal.h"

/* The roofline stored for ctx's device (memo or tuning database; a quick one will do), measuring
 * nothing: 1 when there is one. Sets no error message. */
int clf__roofline_stored(clf_context *ctx, clf_roofline *out);

#endif
