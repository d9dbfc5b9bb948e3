/* test_map.c — clf_map: 38 expressions against a C reference (f32, f64, mixed), random sizes and offsets,
 * aliasing, and every error path (with the outputs left unchanged). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "internal.h"
#include "map.h"
#include "testutil.h"

/* Reference formulas. v = {x, y, z, w} per element (x, y, z in [-1, 1), w in [0.1, 2.1)); a, b are
 * scalars; o[0], o[1] are the outputs in statement order. */
#define R(id, body)                                                                              \
    static void id(const double *v, double a, double b, double *o)                               \
    {                                                                                            \
        double x = v[0], y = v[1], z = v[2], w = v[3];                                           \
        (void)x, (void)y, (void)z, (void)w, (void)a, (void)b;                                    \
        body;                                                                                    \
    }
static double relu(double t) { return t > 0 ? t : 0; }
static double sigm(double t) { return 1 / (1 + exp(-t)); }
static double gelu(double t) { return 0.5 * t * (1 + erf(t / sqrt(2.0))); }

R(r_copy, o[0] = x)
R(r_add, o[0] = x + y)
R(r_sub_mul, o[0] = x - y * z)
R(r_div, o[0] = x * y / w)
R(r_neg, o[0] = -x)
R(r_axpb, o[0] = a * x + b)
R(r_relu_axpb, o[0] = relu(a * x + b))
R(r_relu_vec, o[0] = relu(x * y + z))
R(r_abs, o[0] = fabs(x))
R(r_min, o[0] = fmin(x, y))
R(r_maxmin, o[0] = fmax(x, y) - fmin(y, z))
R(r_exp, o[0] = exp(x))
R(r_log, o[0] = log(w))
R(r_sqrt, o[0] = sqrt(w))
R(r_rsqrt, o[0] = 1 / sqrt(w))
R(r_tanh, o[0] = tanh(x * 2))
R(r_sigmoid, o[0] = sigm(x))
R(r_gelu, o[0] = gelu(x))
R(r_pow, o[0] = pow(w, y))
R(r_fma, o[0] = x * y + z)
R(r_clamp, o[0] = fmin(fmax(x, -0.5), 0.5))
R(r_where, o[0] = x > y ? x : y)
R(r_logic, o[0] = (x > 0 && y < 0) ? z : -z)
R(r_not, o[0] = (!(x >= y) || z == 0) ? 1 : 2)
R(r_floor, o[0] = floor(x * 4) + ceil(y * 8))
R(r_literals, o[0] = 1.5e-1 * x + 2 * y - .25)
R(r_diffsq, o[0] = (x + y) * (x - y) / (w + 1))
R(r_cube, o[0] = x * x * x + 3 * x * x * y + 3 * x * y * y + y * y * y)
R(r_where0, o[0] = x != y ? x - y : 0)
R(r_mix, o[0] = sigm(a * x) * tanh(b * y) + relu(-z))
R(r_two, o[0] = x + a; o[1] = o[0] * o[0])
R(r_chain, o[0] = x * y; o[1] = o[0] + z)
R(r_inplace, o[0] = x * 2 + y)
R(r_gauss, o[0] = exp(-x * x / 2) / sqrt(2 * 3.14159265))
R(r_spaces, o[0] = x + y)
R(r_negneg, o[0] = -(-(-x)))
R(r_leftassoc, o[0] = x - y - z / w / 2)
R(r_biglit, o[0] = x > 0 ? 1e300 : 0.0 * 1e-300 + x)

typedef struct mcase {
    const char *expr;
    void (*ref)(const double *, double, double, double *);
} mcase;

static const mcase cases[] = {
    {"o = x", r_copy},
    {"o = x + y", r_add},
    {"o = x - y*z", r_sub_mul},
    {"o = x * y / w", r_div},
    {"o = -x", r_neg},
    {"o = a*x + b", r_axpb},
    {"o = relu(a*x + b)", r_relu_axpb},
    {"o = relu(x*y + z)", r_relu_vec},
    {"o = abs(x)", r_abs},
    {"o = min(x, y)", r_min},
    {"o = max(x, y) - min(y, z)", r_maxmin},
    {"o = exp(x)", r_exp},
    {"o = log(w)", r_log},
    {"o = sqrt(w)", r_sqrt},
    {"o = rsqrt(w)", r_rsqrt},
    {"o = tanh(x*2)", r_tanh},
    {"o = sigmoid(x)", r_sigmoid},
    {"o = gelu(x)", r_gelu},
    {"o = pow(w, y)", r_pow},
    {"o = fma(x, y, z)", r_fma},
    {"o = clamp(x, -0.5, 0.5)", r_clamp},
    {"o = where(x > y, x, y)", r_where},
    {"o = x > 0 && y < 0 ? z : -z", r_logic},
    {"o = !(x >= y) || z == 0 ? 1 : 2", r_not},
    {"o = floor(x*4) + ceil(y*8)", r_floor},
    {"o = 1.5e-1*x + 2E+0*y - .25", r_literals},
    {"o = (x + y) * (x - y) / (w + 1)", r_diffsq},
    {"o = x*x*x + 3*x*x*y + 3*x*y*y + y*y*y", r_cube},
    {"o = where(x != y, x - y, 0)", r_where0},
    {"o = sigmoid(a*x) * tanh(b*y) + relu(-z)", r_mix},
    {"o = x + a; p = o * o", r_two},
    {"o = x*y; p = o + z;", r_chain},
    {"x = x*2 + y", r_inplace},
    {"o = exp(-x*x/2) / sqrt(2*3.14159265)", r_gauss},
    {"\n  o =\tx\n +  y ;\n", r_spaces},
    {"o = -(-(-x))", r_negneg},
    {"o = x - y - z / w / 2", r_leftassoc},
    {"o = x > 0 ? 1e300 : 0.0 * 1e-300 + x", r_biglit},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static const double SA = 0.75, SB = -0.25;

static double gen(int k, uint64_t *rng)
{
    double r = clf_test_rand(rng);
    return k == 3 ? 1.1 + r : r;  /* w stays positive for log, sqrt and pow */
}

/* Runs one case with n elements on ctx; dt[k] is the storage type of x, y, z, w and of the outputs.
 * Every buffer gets its own random offset and a guard region after, both checked unchanged. */
static void run_case(clf_context *ctx, const mcase *c, size_t n, clf_dtype in_dt, clf_dtype out_dt, uint64_t *rng)
{
    clf__expr e;
    ck_assert_int_eq(clf__expr_parse(c->expr, strlen(c->expr), &e), 0);
    clf_map_arg args[CLF__EX_MAX_NAMES];
    cl_mem mem[CLF__EX_MAX_NAMES] = {0};
    double *host[CLF__EX_MAX_NAMES] = {0};
    size_t off[CLF__EX_MAX_NAMES], total[CLF__EX_MAX_NAMES];
    int nargs = 0;
    for (int k = 0; k < e.nnames; k++) {
        const char *nm = e.name[k];
        clf_map_arg *a = &args[nargs++];
        memset(a, 0, sizeof *a);
        a->name = nm;
        if (!strcmp(nm, "a") || !strcmp(nm, "b")) {
            a->kind = CLF_ARG_SCALAR;
            a->value = nm[0] == 'a' ? SA : SB;
            continue;
        }
        int in = strchr("xyzw", nm[0]) != NULL;
        clf_dtype dt = in ? in_dt : out_dt;
        size_t es = clf__dtype_size(dt);
        off[k] = (size_t)((clf_test_rand(rng) + 1) * 9);  /* 0..17 */
        total[k] = off[k] + n + 5;
        host[k] = malloc(total[k] * sizeof(double));
        void *raw = malloc(total[k] * es);
        ck_assert(host[k] && raw);
        int var = in ? (int)(strchr("xyzw", nm[0]) - "xyzw") : 0;
        for (size_t i = 0; i < total[k]; i++) {
            double v = gen(var, rng);
            if (dt == CLF_F32) ((float *)raw)[i] = (float)v, host[k][i] = (float)v;
            else ((double *)raw)[i] = v, host[k][i] = v;
        }
        mem[k] = clf_test_buffer(ctx, total[k] * es, raw);
        free(raw);
        a->kind = CLF_ARG_BUFFER;
        a->dtype = dt;
        a->buffer = mem[k];
        a->offset = off[k];
    }
    cl_event ev = NULL;
    clf_status s = clf_map(ctx, c->expr, n, args, (size_t)nargs, &ev);
    ck_assert_msg(s == CLF_SUCCESS, "%s (n=%zu): %s", c->expr, n, clf_last_error());
    ck_assert_ptr_nonnull(ev);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    int xk = -1, yk = -1, zk = -1, wk = -1;
    for (int k = 0; k < e.nnames; k++) {
        if (!strcmp(e.name[k], "x")) xk = k;
        if (!strcmp(e.name[k], "y")) yk = k;
        if (!strcmp(e.name[k], "z")) zk = k;
        if (!strcmp(e.name[k], "w")) wk = k;
    }
    int ks[4] = {xk, yk, zk, wk};
    double tol = (in_dt == CLF_F64 && out_dt == CLF_F64) ? 1e-12 : 2e-5;
    for (int st = 0; st < e.nstmts; st++) {
        int k = e.stmt[st].name;
        clf_dtype dt = args[k].dtype;
        size_t es = clf__dtype_size(dt);
        void *raw = malloc(total[k] * es);
        clf_test_read(ctx, mem[k], total[k] * es, raw);
        for (size_t i = 0; i < total[k]; i++) {
            double got = dt == CLF_F32 ? ((float *)raw)[i] : ((double *)raw)[i];
            double want = host[k][i];
            if (i >= off[k] && i < off[k] + n) {
                double v[4] = {0}, o[2];
                for (int j = 0; j < 4; j++)
                    if (ks[j] >= 0) v[j] = host[ks[j]][off[ks[j]] + i - off[k]];
                c->ref(v, SA, SB, o);
                want = dt == CLF_F32 ? (double)(float)o[st] : o[st];  /* as stored (1e300 -> inf) */
                ck_assert_msg(got == want || fabs(got - want) <= tol * (1 + fabs(want)),
                              "%s [%s] n=%zu off=%zu: element %zu is %.9g, expected %.9g", c->expr,
                              clf__dtype_name(in_dt), n, off[k], i - off[k], got, want);
            } else {
                ck_assert_msg(got == want, "%s n=%zu: element %zu outside the range changed", c->expr, n, i);
            }
        }
        free(raw);
    }
    for (int k = 0; k < e.nnames; k++) {
        if (mem[k]) clReleaseMemObject(mem[k]);
        free(host[k]);
    }
    clf__expr_free(&e);
}

static const size_t sizes[] = {1, 2, 3, 5, 15, 16, 17, 31, 33, 100, 1000, 4097, 65537, 250001, 1000000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Case _i on every device: f32 at one or two sizes, f64 (where offered) on every third case. */
START_TEST(expressions)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nc, 0);
    uint64_t rng = 0x1234567ull + (uint64_t)_i * 7919;
    for (int d = 0; d < nc; d++) {
        size_t n1 = sizes[(size_t)_i % NSIZES], n2 = sizes[(size_t)(_i * 7 + 3) % NSIZES];
        run_case(ctxs[d], &cases[_i], n1, CLF_F32, CLF_F32, &rng);
        if (_i % 2 == 0)  /* a second size on every other case, for the suite's compile time */
            run_case(ctxs[d], &cases[_i], n2, CLF_F32, CLF_F32, &rng);
        /* f64 on every third case keeps the suite's compile time (PoCL: ~1 s a program) in bounds. */
        if (clf_context_device(ctxs[d])->fp64 && _i % 3 == 0)
            run_case(ctxs[d], &cases[_i], sizes[(size_t)(_i * 5 + 1) % NSIZES], CLF_F64, CLF_F64, &rng);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* fp32 gelu over [-12, 12] and at 0, +-inf and NaN, against 0.5 x erfc(-x / sqrt 2) in double (1 + erf cancels
 * below about -3 even in double): within 3e-5 of the value plus 1.2e-7 |x|, which the 1 + erf form meets (its error
 * is absolute, about |x| times fp32's epsilon) and the erfc form that CPU devices build meets on its own (its error
 * is relative); a wrong branch or coefficient misses it by orders of magnitude. */
START_TEST(gelu_over_its_range)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    size_t n = 48004;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    ck_assert(x && y);
    for (size_t i = 0; i < n - 4; i++)
        x[i] = (float)(-12.0 + 24.0 * (double)i / (double)(n - 5));
    x[n - 4] = 0.0f, x[n - 3] = INFINITY, x[n - 2] = -INFINITY, x[n - 1] = NAN;
    for (int d = 0; d < nc; d++) {
        cl_mem mx = clf_test_buffer(ctxs[d], n * sizeof *x, x), my = clf_test_buffer(ctxs[d], n * sizeof *y, NULL);
        clf_map_arg args[2] = {{.name = "x", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = mx},
                               {.name = "y", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = my}};
        ck_assert_int_eq(clf_map(ctxs[d], "y = gelu(x)", n, args, 2, NULL), CLF_SUCCESS);
        clf_test_read(ctxs[d], my, n * sizeof *y, y);
        for (size_t i = 0; i < n - 3; i++) {
            double want = 0.5 * x[i] * erfc(-x[i] / sqrt(2.0));
            ck_assert_msg(fabs(y[i] - want) <= 3e-5 * fabs(want) + 1.2e-7 * fabs(x[i]), "%s: gelu(%.9g) = %.9g, expected %.9g",
                          clf_context_device(ctxs[d])->name, x[i], y[i], want);
        }
        ck_assert(y[n - 3] == INFINITY && isnan(y[n - 1]));
        clReleaseMemObject(mx);
        clReleaseMemObject(my);
    }
    clf_test_contexts_free(ctxs, nc);
    free(x);
    free(y);
}
END_TEST

/* One program, every small size and head/tail combination; and mixed storage types. */
START_TEST(all_small_sizes_and_mixed)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 99;
    for (int d = 0; d < nc; d++) {
        for (size_t n = 1; n <= 40; n++)
            run_case(ctxs[d], &cases[6], n, CLF_F32, CLF_F32, &rng);
        if (clf_context_device(ctxs[d])->fp64) {
            run_case(ctxs[d], &cases[2], 1001, CLF_F32, CLF_F64, &rng);
            run_case(ctxs[d], &cases[2], 1001, CLF_F64, CLF_F32, &rng);
        }
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Other configurations than the selected one (CLFORGE_MAP_CONFIG): vector widths, work per item and
 * group sizes, each with unaligned offsets and sizes that leave a head and a tail. */
START_TEST(configurations)
{
    static const char *cfgs[] = {"VW=1 EPT=1 WG=32", "VW=2 EPT=8 WG=64", "VW=16 EPT=2 WG=128", "VW=4 EPT=4 WG=256"};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 7;
    for (int d = 0; d < nc; d++)
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
            setenv("CLFORGE_MAP_CONFIG", cfgs[c], 1);
            run_case(ctxs[d], &cases[22], 37, CLF_F32, CLF_F32, &rng);
            run_case(ctxs[d], &cases[22], 70001, CLF_F32, CLF_F32, &rng);
        }
    unsetenv("CLFORGE_MAP_CONFIG");
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* ---- errors: each leaves the output untouched and enqueues nothing ------------------------- */
typedef struct ecase { const char *expr; int status; const char *msg; } ecase;
static const ecase parse_errors[] = {
    {"o = exp(x", CLF_ERR_PARSE, "1:10: expected ')' after argument list"},
    {"o = (x + y", CLF_ERR_PARSE, "1:11: expected ')' to close '('"},
    {"o = x +", CLF_ERR_PARSE, "1:8: expected a number, a name or '('"},
    {"o = foo(x)", CLF_ERR_PARSE, "1:5: unknown function 'foo'"},
    {"o = max(x)", CLF_ERR_PARSE, "1:5: function 'max' takes 2 arguments, got 1"},
    {"o = fma(x, y)", CLF_ERR_PARSE, "function 'fma' takes 3 arguments, got 2"},
    {"o = x; o = y", CLF_ERR_PARSE, "1:8: output 'o' is assigned twice"},
    {"o = x $ y", CLF_ERR_PARSE, "1:7: unexpected character '$'"},
    {"o = (x < y) * 2", CLF_ERR_PARSE, "1:13: operand of '*' must be a number"},
    {"o = x ? y : 1", CLF_ERR_PARSE, "condition of '?:' must be a condition"},
    {"o = x > y ? 1", CLF_ERR_PARSE, "expected ':' in '?:'"},
    {"o = where(x, y, 1)", CLF_ERR_PARSE, "argument 1 of 'where' must be a condition"},
    {"o x", CLF_ERR_PARSE, "1:3: expected '=' after output name 'o'"},
    {"", CLF_ERR_PARSE, "1:1: empty expression"},
    {"  \n ", CLF_ERR_PARSE, "1:1: empty expression"},
    {"o = 1e400", CLF_ERR_PARSE, "out of range"},
    {"o = 1e+", CLF_ERR_PARSE, "expected digits in the exponent"},
    {"o = 2x", CLF_ERR_PARSE, "after number"},
    {"o = x < y < 1", CLF_ERR_PARSE, "cannot be chained"},
    {"o = x;;", CLF_ERR_PARSE, "1:7: expected an output name"},
    {"o = x y", CLF_ERR_PARSE, "1:7: expected ';' or end of expression"},
    {"o = x\n  + )", CLF_ERR_PARSE, "2:5: expected a number"},
    {"exp = x", CLF_ERR_PARSE, "'exp' is a function"},
    {"o = relu", CLF_ERR_PARSE, "'relu' is a function: expected '('"},
    {"o = !x", CLF_ERR_PARSE, "operand of '!' must be a condition"},
    {"o = x > y", CLF_ERR_PARSE, "value assigned to 'o' must be a number"},
};

typedef struct efix {
    clf_context *ctx;
    cl_mem o, x, y, small;
    float before[64];
} efix;

static void efix_init(efix *f, clf_context *ctx)
{
    uint64_t rng = 5;
    f->ctx = ctx;
    clf_test_rand_f32(f->before, 64, &rng);
    f->o = clf_test_buffer(ctx, sizeof f->before, f->before);
    f->x = clf_test_buffer(ctx, sizeof f->before, f->before);
    f->y = clf_test_buffer(ctx, sizeof f->before, f->before);
    f->small = clf_test_buffer(ctx, 16 * sizeof(float), f->before);
}

static void efix_free(efix *f)
{
    clReleaseMemObject(f->o), clReleaseMemObject(f->x), clReleaseMemObject(f->y), clReleaseMemObject(f->small);
}

/* Expects status and message, then checks that o, x and y still hold what they held. */
static void expect_fail(efix *f, const char *expr, size_t n, const clf_map_arg *args, size_t nargs, int status,
                        const char *msg)
{
    cl_event ev = (cl_event)1;
    clf_status s = clf_map(f->ctx, expr, n, args, nargs, &ev);
    ck_assert_msg((int)s == status, "'%s': got %s (%s), expected %s", expr ? expr : "(null)", clf_status_name(s),
                  clf_last_error(), clf_status_name(status));
    ck_assert_msg(strstr(clf_last_error(), msg) != NULL, "'%s': message '%s' lacks '%s'", expr ? expr : "(null)",
                  clf_last_error(), msg);
    ck_assert_ptr_null(ev);
    ck_assert_int_eq(clf_finish(f->ctx), CLF_SUCCESS);
    float now[64];
    cl_mem bufs[3] = {f->o, f->x, f->y};
    for (int b = 0; b < 3; b++) {
        clf_test_read(f->ctx, bufs[b], sizeof now, now);
        ck_assert_msg(memcmp(now, f->before, sizeof now) == 0, "'%s' changed a buffer", expr ? expr : "(null)");
    }
}

#define BUF(nm, m, o) {.name = nm, .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = m, .offset = o}

START_TEST(errors)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    for (int d = 0; d < nc; d++) {
        efix f;
        efix_init(&f, ctxs[d]);
        clf_map_arg std[3] = {BUF("o", f.o, 0), BUF("x", f.x, 0), BUF("y", f.y, 0)};
        for (size_t i = 0; i < sizeof parse_errors / sizeof parse_errors[0]; i++)
            expect_fail(&f, parse_errors[i].expr, 64, std, 3, parse_errors[i].status, parse_errors[i].msg);

        /* Limits: deep nesting, long text, many operations, many names; none may crash. */
        size_t big = 200000;
        char *t = malloc(big + 64);
        strcpy(t, "o = ");
        memset(t + 4, '(', 5000), strcpy(t + 5004, "x");
        expect_fail(&f, t, 64, std, 3, CLF_ERR_PARSE, "nested too deeply (limit 64");
        strcpy(t, "o = "), memset(t + 4, '-', 5000), strcpy(t + 5004, "x");
        expect_fail(&f, t, 64, std, 3, CLF_ERR_PARSE, "nested too deeply");
        strcpy(t, "o = x"), memset(t + 5, ' ', big), strcpy(t + 5 + big, "+ y");
        expect_fail(&f, t, 64, std, 3, CLF_ERR_PARSE, "too long");
        strcpy(t, "o = x");
        for (int k = 0; k < 5000; k++) strcat(t + 4 * k, "+y*x");
        expect_fail(&f, t, 64, std, 3, CLF_ERR_PARSE, "too large (limit 4096");
        strcpy(t, "o = x");
        for (int k = 0; k < 40; k++) sprintf(t + strlen(t), "+v%d", k);
        expect_fail(&f, t, 64, std, 3, CLF_ERR_PARSE, "too many names (limit 32)");
        free(t);

        /* Binding. */
        expect_fail(&f, "o = x + q", 64, std, 2, CLF_ERR_INVALID_ARG, "no argument for 'q'");
        expect_fail(&f, "o = x", 64, std, 3, CLF_ERR_INVALID_ARG, "'y' is not used");
        expect_fail(&f, "o = x + y", 65, std, 3, CLF_ERR_INVALID_ARG, "needs 260 bytes");
        clf_map_arg off[3] = {BUF("o", f.o, 0), BUF("x", f.x, 1), BUF("y", f.y, 0)};
        expect_fail(&f, "o = x + y", 64, off, 3, CLF_ERR_INVALID_ARG, "x: needs");
        clf_map_arg sm[3] = {BUF("o", f.o, 0), BUF("x", f.small, 0), BUF("y", f.y, 0)};
        expect_fail(&f, "o = x + y", 17, sm, 3, CLF_ERR_INVALID_ARG, "x: needs 68 bytes");
        clf_map_arg sc[2] = {{.name = "a", .kind = CLF_ARG_SCALAR, .value = 1}, BUF("x", f.x, 0)};
        expect_fail(&f, "a = x", 64, sc, 2, CLF_ERR_INVALID_ARG, "output 'a' is a scalar");
        clf_map_arg dup[3] = {BUF("o", f.o, 0), BUF("x", f.x, 0), BUF("x", f.y, 0)};
        expect_fail(&f, "o = x", 64, dup, 3, CLF_ERR_INVALID_ARG, "'x' is given twice");
        clf_map_arg h[2] = {BUF("o", f.o, 0), {.name = "x", .kind = CLF_ARG_BUFFER, .dtype = (clf_dtype)9, .buffer = f.x}};
        expect_fail(&f, "o = x", 64, h, 2, CLF_ERR_UNSUPPORTED, "unknown storage type 9");
        clf_map_arg h2[2] = {BUF("o", f.o, 0), {.name = "x", .kind = CLF_ARG_BUFFER, .dtype = CLF_F16, .buffer = f.small}};
        expect_fail(&f, "o = x", 33, h2, 2, CLF_ERR_INVALID_ARG, "x: needs 66 bytes");
        clf_map_arg h3[2] = {{.name = "o", .kind = CLF_ARG_BUFFER, .dtype = CLF_BF16, .buffer = f.x, .offset = 1},
                             BUF("x", f.x, 0)};
        expect_fail(&f, "o = x", 8, h3, 2, CLF_ERR_INVALID_ARG, "partially overlaps input 'x'");
        clf_map_arg bad[2] = {BUF("o", f.o, 0), {.name = "x", .kind = (clf_arg_kind)7, .buffer = f.x}};
        expect_fail(&f, "o = x", 64, bad, 2, CLF_ERR_INVALID_ARG, "unknown kind");
        clf_map_arg noname[2] = {BUF("o", f.o, 0), BUF(NULL, f.x, 0)};
        expect_fail(&f, "o = x", 64, noname, 2, CLF_ERR_INVALID_ARG, "has no name");
        expect_fail(&f, "o = x", 64, NULL, 2, CLF_ERR_INVALID_ARG, "args is NULL");
        expect_fail(&f, NULL, 64, std, 2, CLF_ERR_INVALID_ARG, "must be non-NULL");
        clf_map_arg nobuf[2] = {BUF("o", f.o, 0), BUF("x", NULL, 0)};
        expect_fail(&f, "o = x", 64, nobuf, 2, CLF_ERR_INVALID_ARG, "x: buffer is NULL");

        /* Aliasing: partial overlap and overlapping outputs are rejected. */
        clf_map_arg part[2] = {BUF("o", f.x, 0), BUF("x", f.x, 3)};
        expect_fail(&f, "o = x * 2", 32, part, 2, CLF_ERR_INVALID_ARG, "partially overlaps input 'x'");
        clf_map_arg outs[3] = {BUF("o", f.x, 0), BUF("p", f.x, 10), BUF("x", f.y, 0)};
        expect_fail(&f, "o = x; p = x", 32, outs, 3, CLF_ERR_INVALID_ARG, "outputs 'o' and 'p' overlap");
        cl_buffer_region reg = {16 * sizeof(float), 32 * sizeof(float)};
        cl_int err;
        cl_mem sub = clCreateSubBuffer(f.x, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
        if (sub) {  /* sub-buffer origins must be aligned to the device's base alignment; skip if not */
            clf_map_arg subp[2] = {BUF("o", sub, 0), BUF("x", f.x, 0)};
            expect_fail(&f, "o = x * 2", 32, subp, 2, CLF_ERR_INVALID_ARG, "partially overlaps");
            clReleaseMemObject(sub);
        }

        /* Same buffer, disjoint ranges: fine. n = 0: fine, with an event. */
        clf_map_arg dis[2] = {BUF("o", f.o, 32), BUF("x", f.o, 0)};
        ck_assert_int_eq(clf_map(f.ctx, "o = x * 2", 32, dis, 2, NULL), CLF_SUCCESS);
        float now[64];
        clf_test_read(f.ctx, f.o, sizeof now, now);
        for (int i = 0; i < 32; i++) ck_assert(now[32 + i] == 2 * f.before[i] && now[i] == f.before[i]);
        cl_event ev = NULL;
        ck_assert_int_eq(clf_map(f.ctx, "o = x * 2", 0, std, 2, &ev), CLF_SUCCESS);
        ck_assert_ptr_nonnull(ev);
        ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
        efix_free(&f);
    }
    ck_assert_int_eq(clf_map(NULL, "o = x", 1, NULL, 0, NULL), CLF_ERR_INVALID_ARG);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Random text from the grammar's alphabet: always a status, never a crash. */
START_TEST(random_text)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    efix f;
    efix_init(&f, ctxs[0]);
    clf_map_arg std[3] = {BUF("o", f.o, 0), BUF("x", f.x, 0), BUF("y", f.y, 0)};
    static const char *atoms[] = {"o", "x", "y", "=", "+", "*", "(", ")", ",", ";", "?", ":", "<", "&&", "!", "relu",
                                  "max", "1", "2.5e3", " ", "\n", "-", "where", ".", "e", "\x01"};
    uint64_t rng = 42;
    char text[256];
    for (int it = 0; it < 3000; it++) {
        text[0] = 0;
        int len = (int)((clf_test_rand(&rng) + 1) * 12);
        for (int k = 0; k < len; k++)
            strcat(text, atoms[(int)((clf_test_rand(&rng) + 1) / 2 * (sizeof atoms / sizeof atoms[0]))]);
        clf__expr e;
        int r = clf__expr_parse(text, strlen(text), &e);
        ck_assert(r == 0 || (r == -1 && strchr(e.err, ':') != NULL));
        clf__expr_free(&e);
    }
    /* A few that parse must also pass binding and run (or fail with a clear status). */
    clf_status s = clf_map(f.ctx, "o = x; p = o", 64, std, 3, NULL);
    ck_assert_int_eq(s, CLF_ERR_INVALID_ARG);
    efix_free(&f);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* ---- 16-bit storage ----------------------------------------------------------------------------------
 * References: rounding to nearest even from a double (exact for every float), decoding to a double. */
static uint16_t ref_f16(double d)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    if (isnan(d)) return sign | 0x7e00;
    if (a >= 65520.0) return sign | 0x7c00;  /* half way between 65504 and 2^16 and above: inf */
    if (a < ldexp(1, -14)) return sign | (uint16_t)rint(a * ldexp(1, 24));  /* subnormal: units of 2^-24 */
    int e;
    frexp(a, &e);                      /* a = m * 2^e, m in [0.5, 1) */
    double q = rint(ldexp(a, 11 - e)); /* 11 significant bits, in [1024, 2048] */
    if (q == 2048) q = 1024, e++;
    return sign | (uint16_t)(((e + 14) << 10) | ((int)q - 1024));
}

static uint16_t ref_bf16(double d)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    if (isnan(d)) return sign | 0x7fc0;
    if (a >= ldexp(2 - 1.0 / 256, 127)) return sign | 0x7f80;
    if (a < ldexp(1, -126)) return sign | (uint16_t)rint(a * ldexp(1, 133));
    int e;
    frexp(a, &e);
    double q = rint(ldexp(a, 8 - e));  /* 8 significant bits, in [128, 256] */
    if (q == 256) q = 128, e++;
    return sign | (uint16_t)(((e + 126) << 7) | ((int)q - 128));
}

static double dec_f16(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

static double dec_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static int is_nan16(uint16_t h, clf_dtype dt)
{
    return dt == CLF_F16 ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff) : (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}

static double dec(clf_dtype dt, const void *p, size_t i)
{
    switch (dt) {
    case CLF_F16: return dec_f16(((const uint16_t *)p)[i]);
    case CLF_BF16: return dec_bf16(((const uint16_t *)p)[i]);
    case CLF_F32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

/* Runs expr (inputs x, optionally z, scalar s; output y) over n elements whose x storage is xin (with
 * element offsets xo, yo), and checks y bit for bit against ref(x, z) rounded to y's type: NaN only as
 * NaN. Elements of y outside the range must keep their pattern. */
static void run_half(clf_context *ctx, const char *expr, clf_dtype xt, const void *xin, clf_dtype yt, clf_dtype zt,
                     size_t n, size_t xo, size_t yo, double sv, double (*ref)(double x, double z, double s))
{
    size_t xs = clf__dtype_size(xt), ys = clf__dtype_size(yt), zs = clf__dtype_size(zt), ny = yo + n + 3;
    unsigned char *xb = calloc(xo + n, xs), *yb = malloc(ny * ys), *got = malloc(ny * ys), *zb = malloc(n * zs);
    ck_assert(xb && yb && got && zb);
    memcpy(xb + xo * xs, xin, n * xs);
    for (size_t i = 0; i < ny * ys; i++) yb[i] = (unsigned char)(i * 37 + 11);
    uint64_t rng = 77;
    for (size_t i = 0; i < n; i++) {
        double z = clf_test_rand(&rng);
        if (zt == CLF_F64) ((double *)zb)[i] = z;
        else ((float *)zb)[i] = (float)z;
    }
    cl_mem xm = clf_test_buffer(ctx, (xo + n) * xs, xb), ym = clf_test_buffer(ctx, ny * ys, yb);
    cl_mem zm = clf_test_buffer(ctx, n * zs, zb);
    clf_map_arg args[4] = {{.name = "y", .kind = CLF_ARG_BUFFER, .dtype = yt, .buffer = ym, .offset = yo},
                           {.name = "x", .kind = CLF_ARG_BUFFER, .dtype = xt, .buffer = xm, .offset = xo},
                           {.name = "z", .kind = CLF_ARG_BUFFER, .dtype = zt, .buffer = zm},
                           {.name = "s", .kind = CLF_ARG_SCALAR, .value = sv}};
    size_t na = strstr(expr, "s") ? 4 : strstr(expr, "z") ? 3 : 2;
    if (na == 4 && !strstr(expr, "z")) args[2] = args[3], na = 3;
    clf_status st = clf_map(ctx, expr, n, args, na, NULL);
    ck_assert_msg(st == CLF_SUCCESS, "%s: %s", expr, clf_last_error());
    clf_test_read(ctx, ym, ny * ys, got);
    for (size_t i = 0; i < ny; i++) {
        if (i < yo || i >= yo + n) {
            ck_assert_msg(!memcmp(got + i * ys, yb + i * ys, ys), "%s: y[%zu] outside the range changed", expr, i);
            continue;
        }
        double x = dec(xt, xb, xo + i - yo), z = dec(zt, zb, i - yo), want = ref(x, z, sv);
        if (yt == CLF_F16 || yt == CLF_BF16) {
            uint16_t g = ((uint16_t *)got)[i], w = yt == CLF_F16 ? ref_f16(want) : ref_bf16(want);
            ck_assert_msg(g == w || (is_nan16(w, yt) && is_nan16(g, yt)),
                          "%s %s->%s n=%zu: element %zu (x = %a) is 0x%04x, expected 0x%04x", expr,
                          clf__dtype_name(xt), clf__dtype_name(yt), n, i - yo, x, g, w);
        } else {
            double g = dec(yt, got, i);
            ck_assert_msg(g == want || (isnan(g) && isnan(want)), "%s %s->%s: element %zu (x = %a) is %a, expected %a",
                          expr, clf__dtype_name(xt), clf__dtype_name(yt), i - yo, x, g, want);
        }
    }
    clReleaseMemObject(xm), clReleaseMemObject(ym), clReleaseMemObject(zm);
    free(xb), free(yb), free(got), free(zb);
}

static double f_x(double x, double z, double s) { return x; }
static double f_xs(double x, double z, double s) { return (float)(x * (float)s); }
static double f_xz64(double x, double z, double s) { return x + z; }

/* fp32 inputs that exercise every rounding case of both 16-bit formats: ties (even and odd), just above and
 * below them, overflow to inf, f16 and bf16 subnormals, float subnormals, zeros, inf, NaN; then random bits. */
static size_t special_floats(float *out, size_t cap, uint64_t *rng)
{
    static const float fixed[] = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.996f, 65520.0f, -65520.0f, 65536.0f,
                                  1e-8f, 2.98023224e-8f, 5.96046448e-8f, 8.94069672e-8f, 6.097555e-5f, 6.1035156e-5f,
                                  3.4028235e38f, 1.1754944e-38f, 1e-45f, 3e-39f, 1.0009766f, 1.0029297f, 0.33333334f};
    size_t n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) out[n++] = fixed[i];
    const uint32_t bits[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f7fffffu,
                             0x7f7f8000u, 0x7f7f7fffu, 0x3f808000u, 0x3f818000u, 0x3f80c000u, 0x00008000u, 0x00018000u};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) memcpy(&out[n++], &bits[i], 4);
    while (n + 6 <= cap && n < cap / 2) {  /* f16 ties: odd multiples of half an f16 unit, and neighbours */
        uint16_t h = (uint16_t)(clf_test_rand_u64(rng) & 0x7bff);
        double lo = dec_f16(h), hi = dec_f16((uint16_t)(h + 1)), mid = (lo + hi) / 2;
        float m = (float)mid;
        out[n++] = m, out[n++] = -m, out[n++] = nextafterf(m, 0), out[n++] = nextafterf(m, INFINITY);
        uint32_t u = (uint32_t)clf_test_rand_u64(rng);
        u = (u & 0xffff0000u) | 0x8000u;  /* bf16 ties */
        memcpy(&out[n++], &u, 4);
        u = (uint32_t)clf_test_rand_u64(rng);
        memcpy(&out[n++], &u, 4);
    }
    while (n < cap) {
        uint32_t u = (uint32_t)clf_test_rand_u64(rng);
        memcpy(&out[n++], &u, 4);
    }
    return n;
}

/* Every 16-bit pattern widened; fp32 specials and random bits narrowed; 16 <-> 16; through the scalar and
 * every vector width (CLFORGE_MAP_CONFIG), with offsets that leave heads and tails. */
START_TEST(half_conversions_exact)
{
    static const char *cfgs[] = {NULL, "VW=1 EPT=1 WG=64", "VW=2 EPT=2 WG=32", "VW=8 EPT=1 WG=64",
                                 "VW=16 EPT=2 WG=128"};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    size_t nf = 100003;
    float *fl = malloc(nf * sizeof(float));
    uint16_t *all = malloc(65536 * 2);
    ck_assert(fl && all);
    for (size_t i = 0; i < 65536; i++) all[i] = (uint16_t)i;
    for (int d = 0; d < nc; d++)
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
            if (cfgs[c]) setenv("CLFORGE_MAP_CONFIG", cfgs[c], 1);
            else unsetenv("CLFORGE_MAP_CONFIG");
            uint64_t rng = 1000 + c;
            special_floats(fl, nf, &rng);
            size_t o1 = c, o2 = (c * 3) % 5;
            run_half(ctxs[d], "y = x", CLF_F16, all, CLF_F32, CLF_F32, 65536, o1, o2, 0, f_x);
            run_half(ctxs[d], "y = x", CLF_BF16, all, CLF_F32, CLF_F32, 65536, o2, o1, 0, f_x);
            run_half(ctxs[d], "y = x", CLF_F16, all, CLF_BF16, CLF_F32, 65536, o1, o1, 0, f_x);
            run_half(ctxs[d], "y = x", CLF_BF16, all, CLF_F16, CLF_F32, 65536, o2, o2, 0, f_x);
            run_half(ctxs[d], "y = x", CLF_F32, fl, CLF_F16, CLF_F32, nf, o1, o2, 0, f_x);
            run_half(ctxs[d], "y = x", CLF_F32, fl, CLF_BF16, CLF_F32, nf, o2, o1, 0, f_x);
        }
    unsetenv("CLFORGE_MAP_CONFIG");
    clf_test_contexts_free(ctxs, nc);
    free(fl), free(all);
}
END_TEST

/* Computing in fp32 and fp64 with half storage: x*s (one rounding in fp32, one to the 16-bit type) and, with
 * an f64 buffer in the map, x + z in double rounded once to f16/bf16 (not through a float). */
START_TEST(half_compute_exact)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    size_t n = 40009;
    uint16_t *h = malloc(n * 2);
    ck_assert(h);
    uint64_t rng = 31;
    for (size_t i = 0; i < n; i++) h[i] = (uint16_t)clf_test_rand_u64(&rng);
    for (int d = 0; d < nc; d++) {
        run_half(ctxs[d], "y = x * s", CLF_F16, h, CLF_BF16, CLF_F32, n, 3, 1, 0.3, f_xs);
        run_half(ctxs[d], "y = x * s", CLF_BF16, h, CLF_F16, CLF_F32, n, 0, 5, -1.7, f_xs);
        run_half(ctxs[d], "y = x * s", CLF_F16, h, CLF_F16, CLF_F32, n, 2, 2, 1e3, f_xs);
        if (clf_context_device(ctxs[d])->fp64) {
            run_half(ctxs[d], "y = x + z", CLF_F16, h, CLF_BF16, CLF_F64, n, 1, 0, 0, f_xz64);
            run_half(ctxs[d], "y = x + z", CLF_BF16, h, CLF_F16, CLF_F64, n, 0, 3, 0, f_xz64);
            run_half(ctxs[d], "y = x + z", CLF_F16, h, CLF_F16, CLF_F64, n, 4, 4, 0, f_xz64);
        }
    }
    clf_test_contexts_free(ctxs, nc);
    free(h);
}
END_TEST

/* relu(a*x + b) all in f16 and all in bf16 (the tuning problem's shape), within one rounding of fp32. */
START_TEST(half_relu_axpb)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    clf_dtype types[2] = {CLF_F16, CLF_BF16};
    for (int d = 0; d < nc; d++)
        for (int t = 0; t < 2; t++) {
            size_t n = 70001 + (size_t)t;
            uint16_t *hb[4];
            cl_mem m[4];
            uint64_t rng = 5 + (uint64_t)t;
            for (int k = 0; k < 4; k++) {
                hb[k] = malloc(n * 2);
                for (size_t i = 0; i < n; i++) {
                    double v = clf_test_rand(&rng);
                    hb[k][i] = types[t] == CLF_F16 ? ref_f16(v) : ref_bf16(v);
                }
                m[k] = clf_test_buffer(ctxs[d], n * 2, hb[k]);
            }
            clf_map_arg args[4];
            const char *names[4] = {"y", "a", "x", "b"};
            for (int k = 0; k < 4; k++)
                args[k] = (clf_map_arg){.name = names[k], .kind = CLF_ARG_BUFFER, .dtype = types[t], .buffer = m[k]};
            ck_assert_int_eq(clf_map(ctxs[d], "y = relu(a*x + b)", n, args, 4, NULL), CLF_SUCCESS);
            clf_test_read(ctxs[d], m[0], n * 2, hb[0]);
            double ulp = types[t] == CLF_F16 ? 1.0 / 1024 : 1.0 / 128;
            for (size_t i = 0; i < n; i++) {
                double (*dc)(uint16_t) = types[t] == CLF_F16 ? dec_f16 : dec_bf16;
                double want = fmax(dc(hb[1][i]) * dc(hb[2][i]) + dc(hb[3][i]), 0), got = dc(hb[0][i]);
                ck_assert_msg(fabs(got - want) <= ulp * fabs(want) + 1e-7, "%s: y[%zu] = %g, expected %g",
                              clf__dtype_name(types[t]), i, got, want);
            }
            for (int k = 0; k < 4; k++) clReleaseMemObject(m[k]), free(hb[k]);
        }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Which precision key a map is tuned under (a 16-bit buffer and no f64: f16, casts included), and the
 * f16 key's heuristic: VW=4 EPT=1 WG=256 on GPUs (8-byte 16-bit accesses), twice f32's width on CPUs. */
START_TEST(half_key)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    for (int d = 0; d < nc; d++) {
        cl_mem a = clf_test_buffer(ctxs[d], 64 * 8, NULL), b = clf_test_buffer(ctxs[d], 64 * 8, NULL);
        struct { clf_dtype y, x; clf_dtype key; } k[] = {{CLF_BF16, CLF_F32, CLF_F16}, {CLF_F32, CLF_F16, CLF_F16},
                                                         {CLF_F16, CLF_BF16, CLF_F16}, {CLF_F32, CLF_F32, CLF_F32}};
        for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
            clf_map_arg args[2] = {{.name = "y", .kind = CLF_ARG_BUFFER, .dtype = k[i].y, .buffer = a},
                                   {.name = "x", .kind = CLF_ARG_BUFFER, .dtype = k[i].x, .buffer = b}};
            map_plan pl;
            ck_assert_int_eq(clf__map_plan_make(ctxs[d], "y = x", 64, args, 2, &pl), CLF_SUCCESS);
            ck_assert_int_eq(clf__map_key(&pl), k[i].key);
            clf__map_plan_free(&pl);
        }
        clf_device_info dev = *clf_context_device(ctxs[d]);
        clf__config c;
        dev.type = CL_DEVICE_TYPE_GPU, dev.max_work_group = 1024;
        clf__family_map.default_config(&dev, CLF_F16, "default", &c);
        ck_assert(c.v[CLF__P_VW] == 4 && c.v[CLF__P_EPT] == 1 && c.v[CLF__P_WG] == 256);
        clf__family_map.default_config(&dev, CLF_F32, "default", &c);
        ck_assert(c.v[CLF__P_VW] == 4 && c.v[CLF__P_EPT] == 2);
        dev.type = CL_DEVICE_TYPE_CPU;
        clf__family_map.default_config(&dev, CLF_F16, "default", &c);
        ck_assert(c.v[CLF__P_VW] == 16 && c.v[CLF__P_EPT] == 1);
        clReleaseMemObject(a), clReleaseMemObject(b);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("map");
    TCase *tc = clf_test_tcase("expressions");
    tcase_add_loop_test(tc, expressions, 0, NCASES);
    tcase_add_test(tc, all_small_sizes_and_mixed);
    tcase_add_test(tc, configurations);
    tcase_add_test(tc, gelu_over_its_range);
    suite_add_tcase(s, tc);
    TCase *th = clf_test_tcase("half");
    tcase_add_test(th, half_conversions_exact);
    tcase_add_test(th, half_compute_exact);
    tcase_add_test(th, half_relu_axpb);
    tcase_add_test(th, half_key);
    suite_add_tcase(s, th);
    TCase *te = clf_test_tcase("errors");
    tcase_add_test(te, errors);
    tcase_add_test(te, random_text);
    suite_add_tcase(s, te);
    return clf_test_run(s);
}
