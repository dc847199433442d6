/* SPDX-License-Identifier: MIT */
/* `bitcts bench`: GB/s of the CPU backend's operators (useful bytes: inputs read once, a
 * broadcast operand once, the output written once) as the median of N repetitions, for each
 * operator x element width x layout x thread count, next to the limits measured in the same
 * run on the same buffers (NT copy, NT triad, memcpy) and NumPy. Each timed output is checked
 * against the reference on its first repetition: a wrong result is reported WRONG, never as a
 * speed. Also the per-call cost of small in-cache tensors, auto variant vs scalar. */
#include <stdint.h>   /* uint64_t */
#include <stdio.h>    /* printf, fopen */
#include <stdlib.h>   /* aligned_alloc, qsort */
#include <string.h>   /* memcmp, memset */
#include <sys/wait.h> /* waitpid */
#include <unistd.h>   /* fork, execv, pipe, sysconf */

#include "bitcts/bitcts_plugin.h"
#include "bitcts/bitcts_status.h"
#include "tensor_model.h"
#include "cli_util.h"
#include "clock.h"
#include "cmd_bench.h"
#include "cpu_backend.h"
#include "ref_ops.h"

#define BENCH_MAX_THREADS 16
#define BENCH_PYTHON "/usr/bin/python3"
#define BENCH_MAX_REPS 1000
#define BENCH_SMALL_CALLS 2000

static const char bench_usage[] =
    "usage: bitcts bench [--size-mib N] [--reps N] [--threads LIST] [--variant NAME]\n"
    "                    [--ops LIST] [--layouts LIST] [--nt MODE] [--no-numpy] [--json FILE]\n"
    "                    [--quick]\n"
    "\n"
    "Measures the CPU backend on 2-D tensors of N MiB per input (default 64) in the layouts\n"
    "packed, padded (rows padded by 64 bytes), transposed (A's dims swapped) and bcast (B one\n"
    "element), for every operator and element width (BIT_COUNT: UINT8 and UINT32 outputs).\n"
    "GB/s counts useful bytes; the limit is the NT triad (two array inputs) or the NT copy\n"
    "(one), measured in the same run on the same buffers; NumPy (" BENCH_PYTHON ") runs the\n"
    "same shapes single-threaded. Each output is checked against the reference once.\n"
    "  --reps N        timed repetitions, median reported (default 11)\n"
    "  --threads LIST  thread counts, e.g. 1,2 (default 1 and the online processors)\n"
    "  --variant NAME  CPU variant (default auto)\n"
    "  --ops LIST      of and,or,xor,not,count,shl,shr (default all)\n"
    "  --layouts LIST  of packed,padded,transposed,bcast (default all)\n"
    "  --nt MODE       non-temporal stores: auto (outputs >= 8 MiB), always, never\n"
    "  --no-numpy      skip the NumPy column\n"
    "  --json FILE     also write the results as JSON (written whole, then renamed)\n"
    "  --quick         1 MiB tensors and 3 repetitions (a smoke test)\n";

enum { LAY_PACKED, LAY_PADDED, LAY_TRANSPOSED, LAY_BCAST, LAY_COUNT };
static const char *const bench_layouts[LAY_COUNT] = {"packed", "padded", "transposed", "bcast"};

typedef struct bench_opdef {
    const char *name;
    const char *numpy;
    uint32_t op;
} bench_opdef;

static const bench_opdef bench_ops[] = {
    {"and", "bitwise_and", BITCTS_OP_BIT_AND},
    {"or", "bitwise_or", BITCTS_OP_BIT_OR},
    {"xor", "bitwise_xor", BITCTS_OP_BIT_XOR},
    {"not", "invert", BITCTS_OP_BIT_NOT},
    {"count", "bitwise_count", BITCTS_OP_BIT_COUNT},
    {"shl", "left_shift", BITCTS_OP_BIT_SHIFT_LEFT},
    {"shr", "right_shift", BITCTS_OP_BIT_SHIFT_RIGHT},
};
#define BENCH_OPS ((int)(sizeof bench_ops / sizeof bench_ops[0]))

typedef struct bench_opts {
    uint64_t size_bytes;
    uint32_t reps;
    uint32_t threads[BENCH_MAX_THREADS];
    int thread_count;
    const char *json;
    const char *variant;
    const char *nt;
    int numpy;
    unsigned ops_mask;
    unsigned layouts_mask;
} bench_opts;

/* One operator x widths x layout; measured for every thread count. */
typedef struct bench_config {
    int op;
    uint32_t w, ow;
    int layout;
    uint32_t rows, cols;
    bitcts_op_desc desc;
    double useful_bytes;
    double numpy_s; /* < 0: not available */
} bench_config;

typedef struct bench_result {
    int config;
    uint32_t threads;
    double gbps;  /* < 0: no speed (wrong or failed) */
    double limit; /* GB/s of the limit kernel at the same thread count */
    const char *check;
} bench_result;

typedef struct bench_limits {
    double copy, triad;
} bench_limits;

typedef struct bench_small {
    const char *op;
    uint32_t type, out_type, bytes;
    double auto_ns, scalar_ns;
    const char *check;
} bench_small;

typedef struct bench_ctx {
    bench_opts opt;
    const bitcts_plugin_table *table;
    const bitcts_abi_stream_ext *stream;
    void *inst[BENCH_MAX_THREADS];
    unsigned char *a, *b, *out, *ref;
    size_t cap_in, cap_out;
    uint32_t b_counts; /* B holds shift counts for this width (0: random bits) */
    bench_config *configs;
    int config_count;
    bench_result *results;
    int result_count;
    bench_limits limits[BENCH_MAX_THREADS];
    double memcpy_gbps;
    bench_small small[6];
    int small_count;
    char numpy_version[32];
    char numpy_note[200];
    int failures;
} bench_ctx;

static int bench_cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x;
    const double b = *(const double *)y;
    return (a > b) - (a < b);
}

static double bench_median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint32_t bench_uint_type(uint32_t w)
{
    return w == 1 ? BITCTS_DT_UINT8 : w == 2 ? BITCTS_DT_UINT16 : w == 4 ? BITCTS_DT_UINT32
                                                                          : BITCTS_DT_UINT64;
}

/* ---- options ---- */

static int bench_parse_names(const char *cmd, const char *text, const char *const *names,
                             int count, unsigned *mask)
{
    *mask = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int i = 0; i < count; i++)
            if (strcmp(t, names[i]) == 0)
                found = i;
        if (found < 0)
            return bitcts_cli_error("bench", "%s: unknown name '%s'", cmd, t);
        *mask |= 1u << found;
    }
    return *mask ? 0 : bitcts_cli_error("bench", "%s: empty list", cmd);
}

static int bench_parse_value(bench_opts *o, const char *name, const char *v, int *explicit_set)
{
    uint64_t n = 0;
    if (strcmp(name, "--size-mib") == 0) {
        if (bitcts_cli_parse_u64(v, &n) != 0 || n < 1 || n > 65536)
            return bitcts_cli_error("bench", "--size-mib: '%s' is not a size from 1 to 65536", v);
        o->size_bytes = n << 20;
        *explicit_set |= 1;
    } else if (strcmp(name, "--reps") == 0) {
        if (bitcts_cli_parse_u64(v, &n) != 0 || n < 1 || n > BENCH_MAX_REPS)
            return bitcts_cli_error("bench", "--reps: '%s' is not a count from 1 to %d", v,
                                    BENCH_MAX_REPS);
        o->reps = (uint32_t)n;
        *explicit_set |= 2;
    } else if (strcmp(name, "--threads") == 0) {
        o->thread_count = bitcts_cli_parse_u32_list(v, o->threads, BENCH_MAX_THREADS);
        for (int i = 0; i < o->thread_count; i++)
            if (o->threads[i] < 1 || o->threads[i] > 256)
                o->thread_count = -1;
        if (o->thread_count < 1)
            return bitcts_cli_error("bench", "--threads: '%s' is not a list of 1-256", v);
    } else if (strcmp(name, "--json") == 0) {
        o->json = v;
    } else if (strcmp(name, "--variant") == 0) {
        o->variant = v;
    } else if (strcmp(name, "--nt") == 0) {
        o->nt = v;
    } else if (strcmp(name, "--ops") == 0) {
        const char *names[BENCH_OPS];
        for (int i = 0; i < BENCH_OPS; i++)
            names[i] = bench_ops[i].name;
        return bench_parse_names("--ops", v, names, BENCH_OPS, &o->ops_mask);
    } else {
        return bench_parse_names("--layouts", v, bench_layouts, LAY_COUNT, &o->layouts_mask);
    }
    return 0;
}

/* Returns -1 to go on, or an exit code. */
static int bench_parse(int argc, char **argv, bench_opts *o)
{
    static const char *const valued[] = {"--size-mib", "--reps", "--threads", "--json",
                                         "--variant",  "--nt",   "--ops",     "--layouts"};
    int quick = 0;
    int explicit_set = 0; /* bit 0: --size-mib given, bit 1: --reps given */
    memset(o, 0, sizeof *o);
    o->size_bytes = 64u << 20;
    o->reps = 11;
    o->variant = "auto";
    o->nt = "auto";
    o->numpy = 1;
    o->ops_mask = (1u << BENCH_OPS) - 1;
    o->layouts_mask = (1u << LAY_COUNT) - 1;
    for (int i = 1; i < argc; i++) {
        int handled = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !handled; k++) {
            const char *v = NULL;
            const int r = bitcts_cli_option(argc, argv, &i, valued[k], &v);
            if (r < 0)
                return bitcts_cli_error("bench", "%s needs a value", valued[k]);
            if (r > 0) {
                handled = 1;
                const int rc = bench_parse_value(o, valued[k], v, &explicit_set);
                if (rc)
                    return rc;
            }
        }
        if (handled)
            continue;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(bench_usage, stdout);
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--no-numpy") == 0) {
            o->numpy = 0;
        } else {
            return bitcts_cli_error("bench", "unknown argument '%s' (see --help)", argv[i]);
        }
    }
    if (quick && !(explicit_set & 1))
        o->size_bytes = 1u << 20;
    if (quick && !(explicit_set & 2))
        o->reps = 3;
    if (o->thread_count == 0) {
        const long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads[o->thread_count++] = 1;
        if (n > 1)
            o->threads[o->thread_count++] = n > 256 ? 256u : (uint32_t)n;
    }
    return -1;
}

/* ---- configurations ---- */

static void bench_tensor(bitcts_tensor_desc *t, uint32_t type, const bench_config *c,
                         uint32_t s0, uint32_t s1, int strided)
{
    memset(t, 0, sizeof *t);
    t->data_type = type;
    t->dimension_count = 2;
    t->sizes[0] = c->rows;
    t->sizes[1] = c->cols;
    t->has_strides = (uint32_t)strided;
    t->strides[0] = s0;
    t->strides[1] = s1;
    uint64_t bytes = 0;
    (void)bitcts_tensor_calc_buffer_size(t, &bytes);
    t->total_tensor_size_in_bytes = bytes;
}

/* Rows x cols with cols a power of two near the square root, so transposing is meaningful. */
static void bench_shape(uint64_t elements, uint32_t *rows, uint32_t *cols)
{
    uint64_t c = 1;
    while (c * c * 4 <= elements && elements % (c * 2) == 0)
        c *= 2;
    *cols = (uint32_t)c;
    *rows = (uint32_t)(elements / c);
}

static void bench_make_desc(bench_config *c, uint64_t size_bytes)
{
    bench_shape(size_bytes / c->w, &c->rows, &c->cols);
    bitcts_op_desc *d = &c->desc;
    memset(d, 0, sizeof *d);
    d->op = bench_ops[c->op].op;
    d->input_count = bitcts_op_input_count(d->op);
    const uint32_t tin = bench_uint_type(c->w);
    const uint32_t pad_in = 64 / c->w;
    const uint32_t pad_out = 64 / c->ow;
    const int padded = c->layout == LAY_PADDED;
    bench_tensor(&d->output, bench_uint_type(c->ow), c, c->cols + pad_out, 1, padded);
    bench_tensor(&d->inputs[0], tin, c, padded ? c->cols + pad_in : 1,
                 c->layout == LAY_TRANSPOSED ? c->rows : 1,
                 padded || c->layout == LAY_TRANSPOSED);
    if (d->input_count == 2)
        bench_tensor(&d->inputs[1], tin, c, padded ? c->cols + pad_in : 0, padded ? 1 : 0,
                     padded || c->layout == LAY_BCAST);
    const double n = (double)c->rows * c->cols;
    c->useful_bytes = n * c->w + n * c->ow;
    if (d->input_count == 2)
        c->useful_bytes += c->layout == LAY_BCAST ? c->w : n * c->w;
}

static int bench_build_configs(bench_ctx *ctx)
{
    ctx->configs = calloc((size_t)BENCH_OPS * 8 * LAY_COUNT, sizeof *ctx->configs);
    if (!ctx->configs)
        return -1;
    for (int op = 0; op < BENCH_OPS; op++) {
        if (!(ctx->opt.ops_mask & (1u << op)))
            continue;
        const int count = bench_ops[op].op == BITCTS_OP_BIT_COUNT;
        for (uint32_t w = 1; w <= 8; w *= 2) {
            for (int o = 0; o < (count ? 2 : 1); o++) {
                for (int lay = 0; lay < LAY_COUNT; lay++) {
                    if (!(ctx->opt.layouts_mask & (1u << lay)) ||
                        (lay == LAY_BCAST && bitcts_op_input_count(bench_ops[op].op) != 2))
                        continue;
                    bench_config *c = &ctx->configs[ctx->config_count++];
                    c->op = op;
                    c->w = w;
                    c->ow = count ? (o ? 4u : 1u) : w;
                    c->layout = lay;
                    c->numpy_s = -1;
                    bench_make_desc(c, ctx->opt.size_bytes);
                }
            }
        }
    }
    return 0;
}

/* ---- buffers, instances, limits ---- */

static uint64_t bench_rng = 0x62656E6368ull;
static uint64_t bench_random(void)
{
    uint64_t z = (bench_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void bench_fill_random(unsigned char *p, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        const uint64_t v = bench_random();
        memcpy(p + i, &v, 8);
    }
}

/* B as shift counts below the width (w > 0) or random bits (w == 0). */
static void bench_fill_b(bench_ctx *ctx, uint32_t counts_width)
{
    if (ctx->b_counts == counts_width)
        return;
    bench_fill_random(ctx->b, ctx->cap_in);
    if (counts_width)
        for (size_t i = 0; i + counts_width <= ctx->cap_in; i += counts_width)
            bitcts_ref_store(ctx->b + i, counts_width, ctx->b[i] % (8 * counts_width));
    ctx->b_counts = counts_width;
}

static int bench_alloc(bench_ctx *ctx)
{
    for (int i = 0; i < ctx->config_count; i++) {
        const bitcts_op_desc *d = &ctx->configs[i].desc;
        for (uint32_t k = 0; k < d->input_count; k++)
            if (d->inputs[k].total_tensor_size_in_bytes > ctx->cap_in)
                ctx->cap_in = (size_t)d->inputs[k].total_tensor_size_in_bytes;
        if (d->output.total_tensor_size_in_bytes > ctx->cap_out)
            ctx->cap_out = (size_t)d->output.total_tensor_size_in_bytes;
    }
    if (ctx->cap_in < ctx->opt.size_bytes)
        ctx->cap_in = (size_t)ctx->opt.size_bytes;
    if (ctx->cap_out < ctx->opt.size_bytes)
        ctx->cap_out = (size_t)ctx->opt.size_bytes;
    ctx->cap_in = (ctx->cap_in + 4095) & ~(size_t)4095;
    ctx->cap_out = (ctx->cap_out + 4095) & ~(size_t)4095;
    ctx->a = aligned_alloc(4096, ctx->cap_in);
    ctx->b = aligned_alloc(4096, ctx->cap_in);
    ctx->out = aligned_alloc(4096, ctx->cap_out);
    ctx->ref = aligned_alloc(4096, ctx->cap_out);
    if (!ctx->a || !ctx->b || !ctx->out || !ctx->ref)
        return -1;
    bench_fill_random(ctx->a, ctx->cap_in);
    memset(ctx->out, 0xA5, ctx->cap_out);
    memset(ctx->ref, 0xA5, ctx->cap_out);
    ctx->b_counts = 1; /* forces the first fill */
    bench_fill_b(ctx, 0);
    return 0;
}

static void *bench_instance(const bench_ctx *ctx, const char *variant, uint32_t threads)
{
    char t[16];
    snprintf(t, sizeof t, "%u", threads);
    const char *keys[3] = {"variant", "threads", "nt"};
    const char *values[3] = {variant, t, ctx->opt.nt};
    const bitcts_abi_create_info info = {sizeof info, 3, keys, values};
    void *inst = NULL;
    if (ctx->table->instance_create(&info, &inst) != BITCTS_ABI_OK || !inst) {
        char err[256];
        (void)bitcts_cpu_check_options(&info, err, sizeof err);
        bitcts_cli_error("bench", "cpu backend refused variant=%s threads=%u nt=%s: %s",
                         variant, threads, ctx->opt.nt, err);
        return NULL;
    }
    return inst;
}

/* GB/s of the NT copy (triad == 0: 2 streams) or NT triad (3 streams) on ctx's buffers with
 * instance ti, as the median of reps after one warm-up. */
static double bench_limit(bench_ctx *ctx, int ti, int triad)
{
    const uint64_t size = ctx->opt.size_bytes;
    double *t = calloc(ctx->opt.reps, sizeof *t);
    if (!t)
        return 0;
    for (uint32_t r = 0; r <= ctx->opt.reps; r++) {
        const double t0 = bitcts_clock_now();
        if (triad)
            (void)ctx->stream->triad(ctx->inst[ti], ctx->out, ctx->a, ctx->b, size / 8);
        else
            (void)ctx->stream->copy(ctx->inst[ti], ctx->out, ctx->a, size);
        if (r > 0)
            t[r - 1] = bitcts_clock_now() - t0;
    }
    const double gbps = (triad ? 3.0 : 2.0) * (double)size / bench_median(t, ctx->opt.reps) / 1e9;
    free(t);
    return gbps;
}

static void bench_measure_limits(bench_ctx *ctx)
{
    for (int ti = 0; ti < ctx->opt.thread_count; ti++) {
        ctx->limits[ti].copy = bench_limit(ctx, ti, 0);
        ctx->limits[ti].triad = bench_limit(ctx, ti, 1);
    }
    double *t = calloc(ctx->opt.reps, sizeof *t);
    for (uint32_t r = 0; t && r < ctx->opt.reps; r++) {
        const double t0 = bitcts_clock_now();
        memcpy(ctx->out, ctx->a, (size_t)ctx->opt.size_bytes);
        t[r] = bitcts_clock_now() - t0;
    }
    ctx->memcpy_gbps =
        t ? 2.0 * (double)ctx->opt.size_bytes / bench_median(t, ctx->opt.reps) / 1e9 : 0;
    free(t);
}

/* ---- one measurement ---- */

static void bench_to_abi(const bitcts_tensor_desc *d, bitcts_abi_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->struct_size = sizeof *t;
    t->data_type = d->data_type;
    t->dimension_count = d->dimension_count;
    t->sizes = d->sizes;
    t->strides = d->has_strides ? d->strides : NULL;
    t->total_tensor_size_in_bytes = d->total_tensor_size_in_bytes;
}

/* Creates the operator on inst, or NULL (with a message). */
static void *bench_create_op(const bench_ctx *ctx, void *inst, const bitcts_op_desc *d)
{
    bitcts_abi_tensor in[2];
    bitcts_abi_tensor out;
    for (uint32_t k = 0; k < d->input_count; k++)
        bench_to_abi(&d->inputs[k], &in[k]);
    bench_to_abi(&d->output, &out);
    const bitcts_abi_operator_desc od = {sizeof od, d->op, d->input_count, 0, in, &out};
    void *op = NULL;
    if (ctx->table->operator_create(inst, &od, &op) != BITCTS_ABI_OK) {
        fprintf(stderr, "bitcts bench: operator_create failed: %s\n",
                ctx->table->instance_last_error(inst));
        return NULL;
    }
    return op;
}

/* Median seconds of reps executions; the first output is compared with ctx->ref. */
static const char *bench_time(bench_ctx *ctx, void *inst, const bitcts_op_desc *d,
                              uint32_t reps, double *seconds)
{
    void *op = bench_create_op(ctx, inst, d);
    if (!op)
        return "ERROR";
    const size_t out_bytes = (size_t)d->output.total_tensor_size_in_bytes;
    memset(ctx->out, 0xA5, out_bytes);
    const void *inputs[2] = {ctx->a, ctx->b};
    double *t = calloc(reps, sizeof *t);
    const char *check = t ? "ok" : "ERROR";
    for (uint32_t r = 0; t && r < reps; r++) {
        const double t0 = bitcts_clock_now();
        const int32_t rc = ctx->table->operator_execute(inst, op, inputs, ctx->out);
        t[r] = bitcts_clock_now() - t0;
        if (rc != BITCTS_ABI_OK) {
            check = "ERROR";
            break;
        }
        if (r == 0 && memcmp(ctx->out, ctx->ref, out_bytes) != 0) {
            check = "WRONG";
            break;
        }
    }
    *seconds = strcmp(check, "ok") == 0 ? bench_median(t, reps) : -1;
    free(t);
    ctx->table->operator_destroy(inst, op);
    return check;
}

static void bench_run_config(bench_ctx *ctx, int ci)
{
    bench_config *c = &ctx->configs[ci];
    const int shift = bitcts_op_is_shift(c->desc.op);
    bench_fill_b(ctx, shift ? c->w : 0);
    const size_t out_bytes = (size_t)c->desc.output.total_tensor_size_in_bytes;
    memset(ctx->ref, 0xA5, out_bytes);
    const void *inputs[2] = {ctx->a, ctx->b};
    const int ref_ok = bitcts_ref_execute(&c->desc, inputs, ctx->ref,
                                          BITCTS_SHIFT_POLICY_SATURATE) == BITCTS_OK;
    const int two = c->desc.input_count == 2 && c->layout != LAY_BCAST;
    for (int ti = 0; ti < ctx->opt.thread_count; ti++) {
        bench_result *r = &ctx->results[ctx->result_count++];
        double s = -1;
        r->config = ci;
        r->threads = ctx->opt.threads[ti];
        r->check = ref_ok ? bench_time(ctx, ctx->inst[ti], &c->desc, ctx->opt.reps, &s)
                          : "REF-ERROR";
        r->gbps = s > 0 ? c->useful_bytes / s / 1e9 : -1;
        r->limit = bench_limit(ctx, ti, two); /* next to the op: this VM drifts */
        if (strcmp(r->check, "ok") != 0)
            ctx->failures++;
    }
}

/* ---- NumPy ---- */

static const char bench_numpy_script[] =
    "import sys, time\n"
    "try:\n"
    "    import numpy as np\n"
    "except Exception as e:\n"
    "    print('ERROR', e, flush=True); sys.exit(0)\n"
    "print('VERSION', np.__version__, flush=True)\n"
    "reps = int(sys.argv[1])\n"
    "T = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}\n"
    "for spec in sys.argv[2:]:\n"
    "    i, op, w, ow, lay, r, c = spec.split(':')\n"
    "    w, ow, r, c = int(w), int(ow), int(r), int(c)\n"
    "    f = getattr(np, op, None)\n"
    "    if f is None or (op == 'bitwise_count' and ow != 1):\n"
    "        print('RESULT', i, 'na', flush=True); continue\n"
    "    t = T[w]\n"
    "    if lay == 'padded':\n"
    "        a = np.full((r, c + 64 // w), 90, t)[:, :c]\n"
    "        b = np.full((r, c + 64 // w), 3, t)[:, :c]\n"
    "        o = np.zeros((r, c + 64 // ow), T[ow])[:, :c]\n"
    "    else:\n"
    "        a = np.full((c, r), 90, t).T if lay == 'transposed' else np.full((r, c), 90, t)\n"
    "        b = np.array(3, t) if lay == 'bcast' else np.full((r, c), 3, t)\n"
    "        o = np.zeros((r, c), T[ow])\n"
    "    args = (a,) if op in ('invert', 'bitwise_count') else (a, b)\n"
    "    ts = []\n"
    "    for k in range(reps):\n"
    "        t0 = time.perf_counter(); f(*args, out=o); ts.append(time.perf_counter() - t0)\n"
    "    ts.sort()\n"
    "    m = ts[len(ts) // 2] if len(ts) % 2 else (ts[len(ts) // 2 - 1] + ts[len(ts) // 2]) / 2\n"
    "    print('RESULT', i, '%.9f' % m, flush=True)\n"
    "    del a, b, o\n";

static void bench_numpy_line(bench_ctx *ctx, const char *line)
{
    int index = -1;
    char value[64];
    if (strncmp(line, "VERSION ", 8) == 0) {
        snprintf(ctx->numpy_version, sizeof ctx->numpy_version, "%.*s",
                 (int)strcspn(line + 8, "\n"), line + 8);
    } else if (strncmp(line, "ERROR ", 6) == 0) {
        snprintf(ctx->numpy_note, sizeof ctx->numpy_note, "numpy unavailable: %.*s",
                 (int)strcspn(line + 6, "\n"), line + 6);
    } else if (sscanf(line, "RESULT %d %63s", &index, value) == 2 && index >= 0 &&
               index < ctx->config_count) {
        ctx->configs[index].numpy_s = strcmp(value, "na") == 0 ? -1 : strtod(value, NULL);
    }
}

static void bench_numpy(bench_ctx *ctx)
{
    char reps[16];
    snprintf(reps, sizeof reps, "%u", ctx->opt.reps);
    char **args = calloc((size_t)ctx->config_count + 5, sizeof *args);
    char *specs = calloc((size_t)ctx->config_count, 96);
    if (!args || !specs) {
        free(args);
        free(specs);
        return;
    }
    args[0] = "python3";
    args[1] = "-c";
    args[2] = (char *)bench_numpy_script;
    args[3] = reps;
    for (int i = 0; i < ctx->config_count; i++) {
        const bench_config *c = &ctx->configs[i];
        char *s = specs + (size_t)i * 96;
        snprintf(s, 96, "%d:%s:%u:%u:%s:%u:%u", i, bench_ops[c->op].numpy, c->w, c->ow,
                 bench_layouts[c->layout], c->rows, c->cols);
        args[4 + i] = s;
    }
    int fd[2];
    pid_t pid = -1;
    if (pipe(fd) == 0 && (pid = fork()) == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(BENCH_PYTHON, args);
        _exit(127);
    }
    if (pid > 0) {
        close(fd[1]);
        FILE *f = fdopen(fd[0], "r");
        char line[512];
        while (f && fgets(line, sizeof line, f))
            bench_numpy_line(ctx, line);
        if (f)
            fclose(f);
        int status = 0;
        waitpid(pid, &status, 0);
    }
    if (!ctx->numpy_version[0] && !ctx->numpy_note[0])
        snprintf(ctx->numpy_note, sizeof ctx->numpy_note, "%s could not be run", BENCH_PYTHON);
    free(args);
    free(specs);
}

/* ---- small tensors: per-call cost ---- */

static double bench_small_ns(bench_ctx *ctx, void *inst, const bitcts_op_desc *d,
                             const char **check)
{
    void *op = bench_create_op(ctx, inst, d);
    if (!op) {
        *check = "ERROR";
        return -1;
    }
    const void *inputs[2] = {ctx->a, ctx->b};
    memset(ctx->out, 0xA5, (size_t)d->output.total_tensor_size_in_bytes);
    (void)ctx->table->operator_execute(inst, op, inputs, ctx->out);
    if (memcmp(ctx->out, ctx->ref, (size_t)d->output.total_tensor_size_in_bytes) != 0)
        *check = "WRONG";
    double t[15];
    for (int r = 0; r < 15; r++) {
        const double t0 = bitcts_clock_now();
        for (int k = 0; k < BENCH_SMALL_CALLS; k++)
            (void)ctx->table->operator_execute(inst, op, inputs, ctx->out);
        t[r] = (bitcts_clock_now() - t0) / BENCH_SMALL_CALLS * 1e9;
    }
    ctx->table->operator_destroy(inst, op);
    return bench_median(t, 15);
}

static void bench_small_all(bench_ctx *ctx)
{
    static const struct {
        const char *op;
        uint32_t opcode, type, out_type, bytes;
    } cases[6] = {
        {"xor", BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 64},
        {"xor", BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4096},
        {"not", BITCTS_OP_BIT_NOT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 4096},
        {"count", BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, BITCTS_DT_UINT8, 4096},
        {"shl", BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 4096},
        {"xor", BITCTS_OP_BIT_XOR, BITCTS_DT_UINT64, BITCTS_DT_UINT64, 16384},
    };
    void *scalar = bench_instance(ctx, "scalar", 1);
    void *fast = ctx->inst[ctx->opt.thread_count - 1];
    bench_fill_b(ctx, 2);
    for (int i = 0; scalar && i < 6; i++) {
        bench_small *s = &ctx->small[ctx->small_count++];
        bitcts_op_desc d;
        memset(&d, 0, sizeof d);
        d.op = cases[i].opcode;
        d.input_count = bitcts_op_input_count(d.op);
        const uint32_t n = cases[i].bytes / bitcts_dtype_size(cases[i].type);
        bitcts_tensor_make_packed(cases[i].type, 1, &n, &d.inputs[0]);
        bitcts_tensor_make_packed(cases[i].type, 1, &n, &d.inputs[1]);
        bitcts_tensor_make_packed(cases[i].out_type, 1, &n, &d.output);
        memset(ctx->ref, 0xA5, (size_t)d.output.total_tensor_size_in_bytes);
        const void *inputs[2] = {ctx->a, ctx->b};
        (void)bitcts_ref_execute(&d, inputs, ctx->ref, BITCTS_SHIFT_POLICY_SATURATE);
        *s = (bench_small){cases[i].op, cases[i].type, cases[i].out_type, cases[i].bytes, 0, 0,
                           "ok"};
        s->auto_ns = bench_small_ns(ctx, fast, &d, &s->check);
        s->scalar_ns = bench_small_ns(ctx, scalar, &d, &s->check);
        if (strcmp(s->check, "ok") != 0)
            ctx->failures++;
    }
    if (scalar)
        ctx->table->instance_destroy(scalar);
}

/* ---- output ---- */

static void bench_print(const bench_ctx *ctx)
{
    printf("\nlimits at start, GB/s (in+out), median of %u:", ctx->opt.reps);
    for (int ti = 0; ti < ctx->opt.thread_count; ti++)
        printf("  %u thread%s: NT copy %.1f, NT triad %.1f;", ctx->opt.threads[ti],
               ctx->opt.threads[ti] > 1 ? "s" : "", ctx->limits[ti].copy, ctx->limits[ti].triad);
    printf("  memcpy (1 thread) %.1f\n\n", ctx->memcpy_gbps);
    printf("limit: NT triad (A and B arrays) or NT copy (one array input), re-measured next to\n"
           "each row with the same threads; numpy: single-threaded, same shapes and layout\n\n");
    printf("%-6s %-7s %-7s %-10s %3s %7s %6s %6s %7s %6s  %s\n", "op", "in", "out", "layout",
           "thr", "GB/s", "limit", "%lim", "numpy", "x np", "check");
    for (int i = 0; i < ctx->result_count; i++) {
        const bench_result *r = &ctx->results[i];
        const bench_config *c = &ctx->configs[r->config];
        const double np = c->numpy_s > 0 ? c->useful_bytes / c->numpy_s / 1e9 : -1;
        printf("%-6s %-7s %-7s %-10s %3u ", bench_ops[c->op].name,
               bitcts_dtype_name(bench_uint_type(c->w)), bitcts_dtype_name(bench_uint_type(c->ow)),
               bench_layouts[c->layout], r->threads);
        if (r->gbps > 0)
            printf("%7.1f %6.1f %5.0f%% ", r->gbps, r->limit, 100.0 * r->gbps / r->limit);
        else
            printf("%7s %6.1f %6s ", "-", r->limit, "-");
        if (np > 0 && r->gbps > 0)
            printf("%7.1f %6.2f  %s\n", np, r->gbps / np, r->check);
        else
            printf("%7s %6s  %s\n", "n/a", "n/a", r->check);
    }
    if (ctx->numpy_note[0])
        printf("note: numpy column n/a: %s\n", ctx->numpy_note);
    else
        printf("note: numpy %s; n/a where numpy has no such operation (bitwise_count before 2.0, "
               "or a UINT32 count)\n",
               ctx->numpy_version);
    printf("\nsmall tensors in cache, ns per call (auto with %u threads vs scalar, 1 thread):\n",
           ctx->opt.threads[ctx->opt.thread_count - 1]);
    for (int i = 0; i < ctx->small_count; i++) {
        const bench_small *s = &ctx->small[i];
        printf("  %-5s %-6s -> %-6s %6u B: auto %8.0f ns, scalar %8.0f ns  %s\n", s->op,
               bitcts_dtype_name(s->type), bitcts_dtype_name(s->out_type), s->bytes, s->auto_ns,
               s->scalar_ns, s->check);
    }
}

static void bench_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void bench_json_machine(FILE *f, const bench_ctx *ctx)
{
    void *inst = ctx->inst[0];
    fprintf(f, "{\n  \"machine\": {\"cpus\": %ld, \"features\": ", sysconf(_SC_NPROCESSORS_ONLN));
    bench_json_string(f, ctx->table->instance_info(inst, "features"));
    fprintf(f, ", \"variant\": ");
    bench_json_string(f, ctx->table->instance_info(inst, "variant"));
    fprintf(f, ", \"variants\": ");
    bench_json_string(f, ctx->table->instance_info(inst, "variants"));
    fprintf(f, ", \"threads\": [");
    for (int ti = 0; ti < ctx->opt.thread_count; ti++)
        fprintf(f, "%s%u", ti ? ", " : "", ctx->opt.threads[ti]);
    fprintf(f, "], \"numpy\": ");
    if (ctx->numpy_version[0])
        bench_json_string(f, ctx->numpy_version);
    else
        fprintf(f, "null");
    fprintf(f, ", \"numpy_note\": ");
    bench_json_string(f, ctx->numpy_note);
    fprintf(f, "},\n  \"size_bytes\": %llu, \"reps\": %u, \"memcpy_gbps\": %.3f,\n",
            (unsigned long long)ctx->opt.size_bytes, ctx->opt.reps, ctx->memcpy_gbps);
    fprintf(f, "  \"limits\": [");
    for (int ti = 0; ti < ctx->opt.thread_count; ti++)
        fprintf(f, "%s{\"threads\": %u, \"nt_copy_gbps\": %.3f, \"nt_triad_gbps\": %.3f}",
                ti ? ", " : "", ctx->opt.threads[ti], ctx->limits[ti].copy,
                ctx->limits[ti].triad);
    fprintf(f, "],\n");
}

static void bench_json_results(FILE *f, const bench_ctx *ctx)
{
    fprintf(f, "  \"results\": [\n");
    for (int i = 0; i < ctx->result_count; i++) {
        const bench_result *r = &ctx->results[i];
        const bench_config *c = &ctx->configs[r->config];
        const int two = c->desc.input_count == 2 && c->layout != LAY_BCAST;
        fprintf(f, "    {\"op\": \"%s\", \"in_type\": \"%s\", \"out_type\": \"%s\", "
                   "\"layout\": \"%s\", \"rows\": %u, \"cols\": %u, \"threads\": %u, "
                   "\"useful_bytes\": %.0f, \"check\": \"%s\", \"limit\": \"%s\", "
                   "\"limit_gbps\": %.3f, ",
                bitcts_op_name(c->desc.op), bitcts_dtype_name(bench_uint_type(c->w)),
                bitcts_dtype_name(bench_uint_type(c->ow)), bench_layouts[c->layout], c->rows,
                c->cols, r->threads, c->useful_bytes, r->check, two ? "nt_triad" : "nt_copy",
                r->limit);
        if (r->gbps > 0)
            fprintf(f, "\"gbps\": %.3f, \"ratio_limit\": %.4f, ", r->gbps, r->gbps / r->limit);
        else
            fprintf(f, "\"gbps\": null, \"ratio_limit\": null, ");
        if (c->numpy_s > 0 && r->gbps > 0) {
            const double np = c->useful_bytes / c->numpy_s / 1e9;
            fprintf(f, "\"numpy_gbps\": %.3f, \"ratio_numpy\": %.4f}", np, r->gbps / np);
        } else {
            fprintf(f, "\"numpy_gbps\": null, \"ratio_numpy\": null}");
        }
        fprintf(f, "%s\n", i + 1 < ctx->result_count ? "," : "");
    }
    fprintf(f, "  ],\n  \"small\": [");
    for (int i = 0; i < ctx->small_count; i++) {
        const bench_small *s = &ctx->small[i];
        fprintf(f, "%s\n    {\"op\": \"%s\", \"in_type\": \"%s\", \"out_type\": \"%s\", "
                   "\"bytes\": %u, \"auto_ns\": %.1f, \"scalar_ns\": %.1f, \"check\": \"%s\"}",
                i ? "," : "", s->op, bitcts_dtype_name(s->type), bitcts_dtype_name(s->out_type),
                s->bytes, s->auto_ns, s->scalar_ns, s->check);
    }
    fprintf(f, "\n  ]\n}\n");
}

static int bench_write_json(const bench_ctx *ctx)
{
    char tmp[4200];
    if (strlen(ctx->opt.json) > 4000)
        return bitcts_cli_error("bench", "--json path is too long");
    snprintf(tmp, sizeof tmp, "%s.tmp", ctx->opt.json);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return bitcts_cli_error("bench", "cannot write %s", tmp);
    bench_json_machine(f, ctx);
    bench_json_results(f, ctx);
    if (fclose(f) != 0 || rename(tmp, ctx->opt.json) != 0) {
        remove(tmp);
        return bitcts_cli_error("bench", "cannot write %s", ctx->opt.json);
    }
    return 0;
}

/* ---- the command ---- */

static int bench_setup(bench_ctx *ctx)
{
    bitcts_plugin_negotiation n = {sizeof n, BITCTS_ABI_VERSION_1_0, BITCTS_ABI_VERSION_1_0, 0,
                                   NULL, NULL};
    if (bitcts_cpu_negotiate(&n) != BITCTS_ABI_OK)
        return bitcts_cli_error("bench", "the cpu backend did not negotiate ABI 1.0");
    ctx->table = n.table;
    ctx->stream = ctx->table->get_extension(BITCTS_ABI_EXT_STREAM);
    if (!ctx->stream)
        return bitcts_cli_error("bench", "the cpu backend lacks %s", BITCTS_ABI_EXT_STREAM);
    for (int ti = 0; ti < ctx->opt.thread_count; ti++)
        if (!(ctx->inst[ti] = bench_instance(ctx, ctx->opt.variant, ctx->opt.threads[ti])))
            return BITCTS_EXIT_USAGE;
    if (bench_build_configs(ctx) != 0)
        return bitcts_cli_error("bench", "out of memory");
    ctx->results = calloc((size_t)ctx->config_count * ctx->opt.thread_count + 1,
                          sizeof *ctx->results);
    if (!ctx->results || bench_alloc(ctx) != 0)
        return bitcts_cli_error("bench", "cannot allocate %llu MiB of buffers",
                                (unsigned long long)((2 * ctx->cap_in + 2 * ctx->cap_out) >> 20));
    return 0;
}

static void bench_teardown(bench_ctx *ctx)
{
    for (int ti = 0; ti < BENCH_MAX_THREADS; ti++)
        if (ctx->inst[ti])
            ctx->table->instance_destroy(ctx->inst[ti]);
    free(ctx->a);
    free(ctx->b);
    free(ctx->out);
    free(ctx->ref);
    free(ctx->configs);
    free(ctx->results);
}

int bitcts_cmd_bench(int argc, char **argv)
{
    bench_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    int rc = bench_parse(argc, argv, &ctx.opt);
    if (rc >= 0)
        return rc;
    rc = bench_setup(&ctx);
    if (rc == 0) {
        printf("bitcts bench: variant %s (%s), features %s, %llu MiB per input, %u reps\n",
               ctx.table->instance_info(ctx.inst[0], "variant"),
               ctx.table->instance_info(ctx.inst[0], "variants"),
               ctx.table->instance_info(ctx.inst[0], "features"),
               (unsigned long long)(ctx.opt.size_bytes >> 20), ctx.opt.reps);
        fflush(stdout);
        bench_measure_limits(&ctx);
        for (int i = 0; i < ctx.config_count; i++)
            bench_run_config(&ctx, i);
        bench_small_all(&ctx);
        if (ctx.opt.numpy)
            bench_numpy(&ctx);
        else
            snprintf(ctx.numpy_note, sizeof ctx.numpy_note, "--no-numpy");
        bench_print(&ctx);
        rc = ctx.opt.json ? bench_write_json(&ctx) : 0;
        if (rc == 0 && ctx.failures)
            rc = BITCTS_EXIT_FAILURES;
    }
    bench_teardown(&ctx);
    return rc;
}
