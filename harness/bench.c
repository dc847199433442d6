/* SPDX-License-Identifier: MIT */
/* The benchmark engine: builds the rows (operator x widths x layout), fills the buffers from the
 * generators' RNG, opens the backend through the plugin host, measures the limits with the
 * backend's stream extension, then times every row on every instance. The limit is measured
 * again next to each row: these machines drift by tens of percent within a run. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* aligned_alloc, calloc, qsort */
#include <string.h> /* memcmp, memset */

#include "bench.h"
#include "bitcts/bitcts_status.h"
#include "clock.h"
#include "ref_ops.h"
#include "rng.h"
#include "worker.h"

#define BENCH_SEED 0x62656E6368ull /* "bench" */
#define BENCH_SMALL_CALLS 2000
#define BENCH_SMALL_REPS 15
#define BENCH_POISON 0xA5

#define BENCH_LAYOUT_NAME(name, text) text,
static const char *const layout_names[BITCTS_BENCH_LAYOUTS] = {
    BITCTS_BENCH_LAYOUT_LIST(BENCH_LAYOUT_NAME)};
#undef BENCH_LAYOUT_NAME

const char *bitcts_bench_layout_name(int layout)
{
    return layout >= 0 && layout < BITCTS_BENCH_LAYOUTS ? layout_names[layout] : "?";
}

/* The state of one bench. */
typedef struct bench {
    const bitcts_bench_config *cfg;
    bitcts_bench_result *r;
    bitcts_backend backend;
    const bitcts_abi_stream_ext *stream; /* NULL: the backend has no limit kernels */
    void *inst[BITCTS_BENCH_MAX_INSTANCES];
    int inst_count;
    bitcts_op_desc *descs; /* one per row */
    unsigned char *a, *b, *out, *ref;
    size_t cap_in, cap_out;
    uint32_t b_counts; /* B holds shift counts for this width (0: random bits) */
    bitcts_rng rng;
} bench;

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x;
    const double b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint32_t uint_type(uint32_t bytes)
{
    switch (bytes) {
    case 1: return BITCTS_DT_UINT8;
    case 2: return BITCTS_DT_UINT16;
    case 4: return BITCTS_DT_UINT32;
    default: return BITCTS_DT_UINT64;
    }
}

/* ---- rows and their descriptions ---- */

static void make_tensor(bitcts_tensor_desc *t, uint32_t type, const bitcts_bench_row *row,
                        uint32_t s0, uint32_t s1, int strided)
{
    memset(t, 0, sizeof *t);
    t->data_type = type;
    t->dimension_count = 2;
    t->sizes[0] = row->rows;
    t->sizes[1] = row->cols;
    t->has_strides = (uint32_t)strided;
    t->strides[0] = s0;
    t->strides[1] = s1;
    (void)bitcts_tensor_calc_buffer_size(t, &t->total_tensor_size_in_bytes);
}

/* Rows x cols with cols a power of two near the square root, so transposing is meaningful. */
static void make_shape(uint64_t elements, uint32_t *rows, uint32_t *cols)
{
    uint64_t c = 1;
    while (c * c * 4 <= elements && elements % (c * 2) == 0) {
        c *= 2;
    }
    *cols = (uint32_t)c;
    *rows = (uint32_t)(elements / c);
}

static void make_desc(bitcts_bench_row *row, uint64_t size_bytes, bitcts_op_desc *d)
{
    const uint32_t w = bitcts_dtype_size(row->in_type);
    const uint32_t ow = bitcts_dtype_size(row->out_type);
    make_shape(size_bytes / w, &row->rows, &row->cols);
    memset(d, 0, sizeof *d);
    d->op = row->op;
    d->input_count = bitcts_op_input_count(d->op);
    const int padded = row->layout == BITCTS_BENCH_PADDED;
    make_tensor(&d->output, row->out_type, row, row->cols + 64 / ow, 1, padded);
    make_tensor(&d->inputs[0], row->in_type, row, padded ? row->cols + 64 / w : 1,
                row->layout == BITCTS_BENCH_TRANSPOSED ? row->rows : 1,
                padded || row->layout == BITCTS_BENCH_TRANSPOSED);
    if (d->input_count == 2) {
        make_tensor(&d->inputs[1], row->in_type, row, padded ? row->cols + 64 / w : 0,
                    padded ? 1 : 0, padded || row->layout == BITCTS_BENCH_BCAST);
    }
    const double n = (double)row->rows * row->cols;
    row->useful_bytes = n * w + n * ow;
    if (d->input_count == 2) {
        row->useful_bytes += row->layout == BITCTS_BENCH_BCAST ? w : n * w;
    }
    row->limit = d->input_count == 2 && row->layout != BITCTS_BENCH_BCAST ? "triad" : "copy";
}

/* Every operator x input width (x BIT_COUNT's two output types) x layout x instance. */
static int build_rows(bench *x)
{
    const bitcts_bench_config *cfg = x->cfg;
    const size_t cap = (size_t)BITCTS_OP_COUNT * 8 * BITCTS_BENCH_LAYOUTS * x->inst_count;
    x->r->rows = calloc(cap, sizeof *x->r->rows);
    x->descs = calloc(cap, sizeof *x->descs);
    if (x->r->rows == NULL || x->descs == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (uint32_t o = 0; o < BITCTS_OP_COUNT; ++o) {
        const uint32_t op = bitcts_op_all[o];
        const int count = op == BITCTS_OP_BIT_COUNT;
        for (uint32_t w = 1; (cfg->ops_mask & (1u << o)) != 0 && w <= 8; w *= 2) {
            for (int k = 0; k < (count ? 2 : 1); ++k) {
                for (int lay = 0; lay < BITCTS_BENCH_LAYOUTS; ++lay) {
                    if ((cfg->layouts_mask & (1u << lay)) == 0 ||
                        (lay == BITCTS_BENCH_BCAST && bitcts_op_input_count(op) != 2)) {
                        continue;
                    }
                    for (int i = 0; i < x->inst_count; ++i) {
                        const size_t n = x->r->row_count++;
                        bitcts_bench_row *row = &x->r->rows[n];
                        row->op = op;
                        row->in_type = uint_type(w);
                        row->out_type =
                            count ? (k ? BITCTS_DT_UINT32 : BITCTS_DT_UINT8) : uint_type(w);
                        row->layout = lay;
                        row->threads = cfg->thread_count > 0 ? cfg->threads[i] : 0;
                        row->numpy_gbps = -1;
                        make_desc(row, cfg->size_bytes, &x->descs[n]);
                    }
                }
            }
        }
    }
    return BITCTS_OK;
}

/* ---- buffers and instances ---- */

static void fill_random(bench *x, unsigned char *p, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        const uint64_t v = bitcts_rng_next(&x->rng);
        memcpy(p + i, &v, 8);
    }
}

/* B as shift counts below the width (counts_width > 0) or random bits (0). */
static void fill_b(bench *x, uint32_t counts_width)
{
    if (x->b_counts == counts_width) {
        return;
    }
    fill_random(x, x->b, x->cap_in);
    for (size_t i = 0; counts_width > 0 && i + counts_width <= x->cap_in; i += counts_width) {
        bitcts_ref_store(x->b + i, counts_width, x->b[i] % (8 * counts_width));
    }
    x->b_counts = counts_width;
}

static int alloc_buffers(bench *x)
{
    x->cap_in = (size_t)x->cfg->size_bytes;
    x->cap_out = (size_t)x->cfg->size_bytes;
    for (size_t i = 0; i < x->r->row_count; ++i) {
        const bitcts_op_desc *d = &x->descs[i];
        for (uint32_t k = 0; k < d->input_count; ++k) {
            const size_t bytes = (size_t)d->inputs[k].total_tensor_size_in_bytes;
            x->cap_in = bytes > x->cap_in ? bytes : x->cap_in;
        }
        const size_t bytes = (size_t)d->output.total_tensor_size_in_bytes;
        x->cap_out = bytes > x->cap_out ? bytes : x->cap_out;
    }
    x->cap_in = (x->cap_in + 4095) & ~(size_t)4095;
    x->cap_out = (x->cap_out + 4095) & ~(size_t)4095;
    x->a = aligned_alloc(4096, x->cap_in);
    x->b = aligned_alloc(4096, x->cap_in);
    x->out = aligned_alloc(4096, x->cap_out);
    x->ref = aligned_alloc(4096, x->cap_out);
    if (x->a == NULL || x->b == NULL || x->out == NULL || x->ref == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    bitcts_rng_init(&x->rng, BENCH_SEED, "bench");
    fill_random(x, x->a, x->cap_in);
    memset(x->out, BENCH_POISON, x->cap_out);
    memset(x->ref, BENCH_POISON, x->cap_out);
    x->b_counts = 1; /* forces the first fill */
    fill_b(x, 0);
    return BITCTS_OK;
}

/* An instance with threads=N (threads 0: as configured) and, optionally, a variant. */
static int make_instance(bench *x, uint32_t threads, const char *variant, void **inst, char *err,
                         size_t cap)
{
    char text[16];
    snprintf(text, sizeof text, "%u", threads);
    bitcts_backend_options extra = {0};
    if (threads > 0) {
        extra.keys[extra.count] = "threads";
        extra.values[extra.count++] = text;
    }
    if (variant != NULL) {
        extra.keys[extra.count] = "variant";
        extra.values[extra.count++] = variant;
    }
    return bitcts_backend_instance_with(&x->backend, &extra, inst, err, cap);
}

static void read_identity(bench *x)
{
    const bitcts_plugin_table *t = x->backend.table;
    const char *keys[3] = {"variant", "variants", "features"};
    char *dst[3] = {x->r->variant, x->r->variants, x->r->features};
    const size_t caps[3] = {sizeof x->r->variant, sizeof x->r->variants, sizeof x->r->features};
    for (int i = 0; i < 3; ++i) {
        const char *v = t->instance_info != NULL ? t->instance_info(x->inst[0], keys[i]) : NULL;
        snprintf(dst[i], caps[i], "%s", v != NULL ? v : "");
    }
    snprintf(x->r->backend, sizeof x->r->backend, "%s (%s, %s)",
             bitcts_plugin_host_name(x->backend.host), bitcts_plugin_host_vendor(x->backend.host),
             bitcts_plugin_host_version(x->backend.host));
}

/* ---- limits ---- */

/* GB/s of the copy (2 streams) or triad (3 streams) on the buffers with instance i, the median
 * of reps after one warm-up; -1 when the backend has no stream extension. */
static double measure_limit(bench *x, int i, int triad)
{
    if (x->stream == NULL) {
        return -1;
    }
    const uint64_t size = x->cfg->size_bytes;
    const uint32_t reps = x->cfg->reps;
    double *t = calloc(reps, sizeof *t);
    if (t == NULL) {
        return -1;
    }
    int32_t rc = BITCTS_ABI_OK;
    for (uint32_t k = 0; k <= reps && rc == BITCTS_ABI_OK; ++k) {
        const double t0 = bitcts_clock_now();
        rc = triad ? x->stream->triad(x->inst[i], x->out, x->a, x->b, size / 8)
                   : x->stream->copy(x->inst[i], x->out, x->a, size);
        if (k > 0) {
            t[k - 1] = bitcts_clock_now() - t0;
        }
    }
    const double gbps =
        rc == BITCTS_ABI_OK ? (triad ? 3.0 : 2.0) * (double)size / median(t, reps) / 1e9 : -1;
    free(t);
    return gbps;
}

static void measure_limits(bench *x)
{
    for (int i = 0; i < x->inst_count; ++i) {
        x->r->copy_gbps[i] = measure_limit(x, i, 0);
        x->r->triad_gbps[i] = measure_limit(x, i, 1);
    }
    const uint32_t reps = x->cfg->reps;
    double *t = calloc(reps, sizeof *t);
    for (uint32_t k = 0; t != NULL && k < reps; ++k) {
        const double t0 = bitcts_clock_now();
        memcpy(x->out, x->a, (size_t)x->cfg->size_bytes);
        t[k] = bitcts_clock_now() - t0;
    }
    x->r->memcpy_gbps = t != NULL ? 2.0 * (double)x->cfg->size_bytes / median(t, reps) / 1e9 : -1;
    free(t);
}

/* ---- timing ---- */

static void *create_op(bench *x, void *inst, const bitcts_op_desc *d)
{
    bitcts_abi_tensor tensors[3];
    bitcts_abi_operator_desc od;
    bitcts_worker_abi_desc(d, tensors, &od);
    void *op = NULL;
    return x->backend.table->operator_create(inst, &od, &op) == BITCTS_ABI_OK ? op : NULL;
}

/* Median seconds of reps executions; the first output is compared with x->ref. */
static const char *time_op(bench *x, void *inst, const bitcts_op_desc *d, double *seconds)
{
    const bitcts_plugin_table *t = x->backend.table;
    void *op = create_op(x, inst, d);
    if (op == NULL) {
        return "ERROR";
    }
    const uint32_t reps = x->cfg->reps;
    const size_t out_bytes = (size_t)d->output.total_tensor_size_in_bytes;
    memset(x->out, BENCH_POISON, out_bytes);
    const void *inputs[2] = {x->a, x->b};
    double *times = calloc(reps, sizeof *times);
    const char *check = times != NULL ? "ok" : "ERROR";
    for (uint32_t k = 0; times != NULL && k < reps; ++k) {
        const double t0 = bitcts_clock_now();
        const int32_t rc = t->operator_execute(inst, op, inputs, x->out);
        times[k] = bitcts_clock_now() - t0;
        if (rc != BITCTS_ABI_OK) {
            check = "ERROR";
            break;
        }
        if (k == 0 && memcmp(x->out, x->ref, out_bytes) != 0) {
            check = "WRONG";
            break;
        }
    }
    *seconds = strcmp(check, "ok") == 0 ? median(times, reps) : -1;
    free(times);
    t->operator_destroy(inst, op);
    return check;
}

static void run_row(bench *x, size_t n)
{
    bitcts_bench_row *row = &x->r->rows[n];
    const bitcts_op_desc *d = &x->descs[n];
    const int i = (int)(n % (size_t)x->inst_count);
    fill_b(x, bitcts_op_is_shift(d->op) ? bitcts_dtype_size(row->in_type) : 0);
    memset(x->ref, BENCH_POISON, (size_t)d->output.total_tensor_size_in_bytes);
    const void *inputs[2] = {x->a, x->b};
    double seconds = -1;
    row->check = "REF-ERROR";
    if (bitcts_ref_execute(d, inputs, x->ref, BITCTS_SHIFT_POLICY_SATURATE) == BITCTS_OK) {
        row->check = time_op(x, x->inst[i], d, &seconds);
    }
    row->gbps = seconds > 0 ? row->useful_bytes / seconds / 1e9 : -1;
    row->limit_gbps = measure_limit(x, i, strcmp(row->limit, "triad") == 0);
    x->r->failures += strcmp(row->check, "ok") != 0;
}

/* ---- small tensors: the per-call cost ---- */

static double small_ns(bench *x, void *inst, const bitcts_op_desc *d, const char **check)
{
    const bitcts_plugin_table *t = x->backend.table;
    void *op = create_op(x, inst, d);
    if (op == NULL) {
        *check = "ERROR";
        return -1;
    }
    const void *inputs[2] = {x->a, x->b};
    const size_t bytes = (size_t)d->output.total_tensor_size_in_bytes;
    memset(x->out, BENCH_POISON, bytes);
    if (t->operator_execute(inst, op, inputs, x->out) != BITCTS_ABI_OK) {
        *check = "ERROR";
    } else if (memcmp(x->out, x->ref, bytes) != 0) {
        *check = "WRONG";
    }
    double times[BENCH_SMALL_REPS];
    for (int k = 0; k < BENCH_SMALL_REPS; ++k) {
        const double t0 = bitcts_clock_now();
        for (int c = 0; c < BENCH_SMALL_CALLS; ++c) {
            (void)t->operator_execute(inst, op, inputs, x->out);
        }
        times[k] = (bitcts_clock_now() - t0) / BENCH_SMALL_CALLS * 1e9;
    }
    t->operator_destroy(inst, op);
    return median(times, BENCH_SMALL_REPS);
}

static void run_small(bench *x)
{
    static const struct {
        uint32_t op, type, out_type, bytes;
    } cases[BITCTS_BENCH_SMALL] = {
        {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 64},
        {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4096},
        {BITCTS_OP_BIT_NOT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 4096},
        {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, BITCTS_DT_UINT8, 4096},
        {BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 4096},
        {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT64, BITCTS_DT_UINT64, 16384},
    };
    void *scalar = NULL;
    char err[512];
    if (strstr(x->r->variants, "scalar") != NULL) {
        (void)make_instance(x, 1, "scalar", &scalar, err, sizeof err);
    }
    fill_b(x, 2);
    for (int i = 0; i < BITCTS_BENCH_SMALL; ++i) {
        bitcts_bench_small *s = &x->r->small[x->r->small_count++];
        bitcts_op_desc d;
        memset(&d, 0, sizeof d);
        d.op = cases[i].op;
        d.input_count = bitcts_op_input_count(d.op);
        const uint32_t n = cases[i].bytes / bitcts_dtype_size(cases[i].type);
        bitcts_tensor_make_packed(cases[i].type, 1, &n, &d.inputs[0]);
        bitcts_tensor_make_packed(cases[i].type, 1, &n, &d.inputs[1]);
        bitcts_tensor_make_packed(cases[i].out_type, 1, &n, &d.output);
        memset(x->ref, BENCH_POISON, (size_t)d.output.total_tensor_size_in_bytes);
        const void *inputs[2] = {x->a, x->b};
        (void)bitcts_ref_execute(&d, inputs, x->ref, BITCTS_SHIFT_POLICY_SATURATE);
        *s = (bitcts_bench_small){.op = cases[i].op,
                                  .in_type = cases[i].type,
                                  .out_type = cases[i].out_type,
                                  .bytes = cases[i].bytes,
                                  .scalar_ns = -1,
                                  .check = "ok"};
        s->default_ns = small_ns(x, x->inst[x->inst_count - 1], &d, &s->check);
        if (scalar != NULL) {
            s->scalar_ns = small_ns(x, scalar, &d, &s->check);
        }
        x->r->failures += strcmp(s->check, "ok") != 0;
    }
    if (scalar != NULL) {
        x->backend.table->instance_destroy(scalar);
    }
}

/* ---- the whole ---- */

static int bench_open(bench *x, char *err, size_t cap)
{
    int st = bitcts_backend_open(x->cfg->backend_spec, &x->cfg->options, &x->backend, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    const bitcts_plugin_table *t = x->backend.table;
    x->stream = t->get_extension != NULL ? t->get_extension(BITCTS_ABI_EXT_STREAM) : NULL;
    if (x->stream != NULL && (x->stream->struct_size < sizeof *x->stream ||
                              x->stream->copy == NULL || x->stream->triad == NULL)) {
        x->stream = NULL; /* malformed: measured without limits rather than trusted */
    }
    x->inst_count = x->cfg->thread_count > 0 ? x->cfg->thread_count : 1;
    for (int i = 0; st == BITCTS_OK && i < x->inst_count; ++i) {
        st = make_instance(x, x->cfg->thread_count > 0 ? x->cfg->threads[i] : 0, NULL, &x->inst[i],
                           err, cap);
    }
    return st;
}

int bitcts_bench_run(const bitcts_bench_config *cfg, bitcts_bench_result *out, char *err,
                     size_t cap)
{
    memset(out, 0, sizeof *out);
    bench x;
    memset(&x, 0, sizeof x);
    x.cfg = cfg;
    x.r = out;
    int st = bench_open(&x, err, cap);
    if (st == BITCTS_OK) {
        read_identity(&x);
        st = build_rows(&x);
    }
    if (st == BITCTS_OK && (st = alloc_buffers(&x)) != BITCTS_OK) {
        snprintf(err, cap, "cannot allocate %llu MiB of buffers",
                 (unsigned long long)((2 * x.cap_in + 2 * x.cap_out) >> 20));
    }
    if (st == BITCTS_OK) {
        measure_limits(&x);
        for (size_t n = 0; n < out->row_count; ++n) {
            run_row(&x, n);
        }
        run_small(&x);
        if (cfg->numpy) {
            bitcts__bench_numpy(cfg, out);
        } else {
            snprintf(out->numpy_note, sizeof out->numpy_note, "not run (--no-numpy)");
        }
    }
    for (int i = 0; i < x.inst_count; ++i) {
        if (x.inst[i] != NULL) {
            x.backend.table->instance_destroy(x.inst[i]);
        }
    }
    bitcts_backend_close(&x.backend);
    free(x.descs);
    free(x.a);
    free(x.b);
    free(x.out);
    free(x.ref);
    return st;
}

void bitcts_bench_result_free(bitcts_bench_result *r)
{
    if (r != NULL) {
        free(r->rows);
        r->rows = NULL;
        r->row_count = 0;
    }
}

/* ---- JSON ---- */

static json_t *number_or_null(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

static json_t *row_json(const bitcts_bench_row *row)
{
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:f, s:s, s:s}", "op", bitcts_op_name(row->op),
        "in_type", bitcts_dtype_name(row->in_type), "out_type", bitcts_dtype_name(row->out_type),
        "layout", bitcts_bench_layout_name(row->layout), "rows", (json_int_t)row->rows, "cols",
        (json_int_t)row->cols, "threads", (json_int_t)row->threads, "useful_bytes",
        row->useful_bytes, "check", row->check, "limit", row->limit);
    const int speed = row->gbps > 0;
    json_object_set_new(o, "limit_gbps", number_or_null(row->limit_gbps));
    json_object_set_new(o, "gbps", number_or_null(speed ? row->gbps : -1));
    json_object_set_new(
        o, "ratio_limit",
        number_or_null(speed && row->limit_gbps > 0 ? row->gbps / row->limit_gbps : -1));
    json_object_set_new(o, "numpy_gbps", number_or_null(row->numpy_gbps));
    json_object_set_new(
        o, "ratio_numpy",
        number_or_null(speed && row->numpy_gbps > 0 ? row->gbps / row->numpy_gbps : -1));
    return o;
}

json_t *bitcts_bench_json(const bitcts_bench_config *cfg, const bitcts_bench_result *r)
{
    json_t *limits = json_array();
    const int instances = cfg->thread_count > 0 ? cfg->thread_count : 1;
    for (int i = 0; i < instances; ++i) {
        json_t *l = json_pack("{s:I}", "threads",
                              (json_int_t)(cfg->thread_count > 0 ? cfg->threads[i] : 0));
        json_object_set_new(l, "copy_gbps", number_or_null(r->copy_gbps[i]));
        json_object_set_new(l, "triad_gbps", number_or_null(r->triad_gbps[i]));
        json_array_append_new(limits, l);
    }
    json_t *rows = json_array();
    for (size_t i = 0; i < r->row_count; ++i) {
        json_array_append_new(rows, row_json(&r->rows[i]));
    }
    json_t *small = json_array();
    for (size_t i = 0; i < r->small_count; ++i) {
        const bitcts_bench_small *s = &r->small[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:f, s:s}", "op", bitcts_op_name(s->op),
                              "in_type", bitcts_dtype_name(s->in_type), "out_type",
                              bitcts_dtype_name(s->out_type), "bytes", (json_int_t)s->bytes,
                              "default_ns", s->default_ns, "check", s->check);
        json_object_set_new(o, "scalar_ns", number_or_null(s->scalar_ns));
        json_array_append_new(small, o);
    }
    json_t *machine =
        json_pack("{s:s, s:s, s:s, s:s, s:s}", "backend", r->backend, "variant", r->variant,
                  "variants", r->variants, "features", r->features, "numpy_note", r->numpy_note);
    json_object_set_new(machine, "numpy",
                        r->numpy_version[0] ? json_string(r->numpy_version) : json_null());
    json_t *o = json_pack("{s:o, s:I, s:I, s:o, s:o, s:o}", "machine", machine, "size_bytes",
                          (json_int_t)cfg->size_bytes, "reps", (json_int_t)cfg->reps, "limits",
                          limits, "results", rows, "small", small);
    json_object_set_new(o, "memcpy_gbps", number_or_null(r->memcpy_gbps));
    return o;
}
