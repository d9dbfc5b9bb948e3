/* main.c — the smallest real use of clforge: C = A*B for 2x2 matrices on the default device. */
#include <clforge/clforge.h>
#include <stdio.h>

int main(void)
{
    clf_context *ctx;
    if (clf_context_create(NULL, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "consumer: %s\n", clf_last_error());
        return 1;
    }
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    float c[4] = {0};
    cl_int err;
    cl_context cl = clf_context_cl(ctx);
    cl_mem da = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, (void *)a, &err);
    cl_mem db = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, (void *)b, &err);
    cl_mem dc = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof c, c, &err);
    clf_status s = clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, 2, 2, 2, 1.0f, da, 0, 2, db, 0, 2, 0.0f,
                             dc, 0, 2, NULL);
    if (s == CLF_SUCCESS)
        err = clEnqueueReadBuffer(clf_context_queue(ctx), dc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
    int ok = s == CLF_SUCCESS && err == CL_SUCCESS && c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50;
    printf("clforge %s on %s: C = [%g %g; %g %g] %s\n", clf_version(), clf_context_device(ctx)->name, c[0], c[1], c[2],
           c[3], ok ? "ok" : "WRONG");
    if (s != CLF_SUCCESS) fprintf(stderr, "consumer: %s\n", clf_last_error());
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clf_context_destroy(ctx);
    return ok ? 0 : 1;
}
