/* fuzz_expr.c — libFuzzer harness for the map expression parser (host/expr.c): any bytes must give a
 * parse or a "line:col: message" error, within the documented limits, without crashing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clf__expr e;
    int r = clf__expr_parse((const char *)data, size, &e);
    if (r == 0) {
        /* Invariants the code generator relies on: operands precede users, counts within limits. */
        if (e.nnodes > CLF__EX_MAX_NODES || e.nnames > CLF__EX_MAX_NAMES || e.nstmts < 1)
            abort();
        for (int i = 0; i < e.nnodes; i++)
            for (int k = 0; k < 3; k++)
                if (e.node[i].a[k] >= i)
                    abort();
        for (int s = 0; s < e.nstmts; s++)
            if (e.stmt[s].root < 0 || e.stmt[s].root >= e.nnodes || !e.is_output[e.stmt[s].name])
                abort();
    } else if (r == -1) {
        if (!strchr(e.err, ':'))
            abort();
    }
    clf__expr_free(&e);
    return 0;
}
