/* SPDX-License-Identifier: MIT */
/* The bench's child: loads the backend, picks the geometry (the size per input, the timing,
 * the instances, what checks), fills the buffers from the generators' RNG, measures the limits,
 * then times every row and checks its output, and sends each figure to the parent as a line:
 *   S <status> <text>        the plugin host or instance_create refused the backend
 *   I <json>                 the backend's identity and device
 *   G <size> <device timing> <check> <instances> <threads>...   the geometry
 *   P <0|1>                  the cpu backend's threads were placed one per core (1)
 *   B <pid> <fd A> <fd B> <fd output> <offset> | B -   the buffers shared with the CPU peers
 *                            (or not), waiting for the parent's answer
 *   Q <row> <call>           after a timed call: the CPU peers' turn on the same buffers,
 *                            waiting for the parent's answer
 *   H <instance> <copy> <triad>, Y <memcpy>     host limits (GB/s; -1: none)
 *   U <0|1> <api> <kernel>   device copy limits at the start (0) and the end (1)
 *   N <row>                  a row begins
 *   R <row> <reps>           the timed calls a row made (fewer than asked within a budget)
 *   W <row> <gbps> <limit> <kind> <check> [<text>]   a row's figures (limit: the host limit
 *                            of that kind, or with device timing the copy kernel timed right
 *                            after the row, kind copy)
 *   T <row>                  the time budget ran out: this row and the next were not measured
 *   M <small> <default_ns> <scalar_ns> <check> [<text>]  a small tensor's per-call cost
 *   E <text>                 the harness failed (out of memory)
 *   Z                        everything was sent
 * The phase marks tell the parent which backend call a crash or a hang belongs to. Every call
 * is handed guarded buffers and a lent description and checked when it returns, between the
 * timed calls (harness/perf/bench_buffers.h): a row's check says what the first broken call did. */
#include <math.h>   /* isfinite */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* aligned_alloc, qsort */
#include <string.h> /* memcmp, memset */
#include <unistd.h> /* sysconf, _exit, getpid */

#include "bench.h"
#include "bench_buffers.h"
#include "bitcts/bitcts_status.h"
#include "clock.h"
#include "lent_desc.h"
#include "perf_child.h"
#include "ref_ops.h"
#include "rng.h"
#include "sanitize.h"
#include "supervise.h"

#define BENCH_SEED 0x62656E6368ull /* "bench" */
#define BENCH_SMALL_REPS 15
#define BENCH_SMALL_TARGET_S 2e-3 /* seconds one repetition of small calls aims at */
#define BENCH_POISON 0xA5         /* the expected output's bytes outside its elements (padding) */
#define BENCH_MIB (1ull << 20)
#define BENCH_REFERENCE_MAX (64 * BENCH_MIB) /* auto check: the reference up to this size */
#define BENCH_MIN_REPS 3 /* within a budget, a row's timed calls (fewer only when asked) */

typedef struct bench {
    const bitcts_bench_config *cfg;
    const bitcts_backend_spec *spec;
    bitcts_bench_result r; /* the geometry and the rows; figures go to the parent */
    bitcts_backend backend;
    const bitcts_abi_stream_ext *stream;        /* host limits, or NULL */
    int shaped;                                 /* the stream extension has `shaped` */
    const bitcts_abi_device_timing_ext *timing; /* device timing, or NULL */
    void *inst[BITCTS_BENCH_MAX_INSTANCES];
    int place;            /* the built-in cpu backend on a known host: one thread per core */
    bitcts_backend judge; /* the cpu backend, when it checks */
    void *judge_inst;
    bitcts_bench_buffers buf;         /* A, B, the output (guarded) and the expected output */
    unsigned char *a, *b, *out, *ref; /* their data */
    size_t cap_in, cap_out;
    const char *broke;    /* what the first broken call of the row at hand did, or NULL */
    char broke_text[600]; /* ... in words */
    uint32_t b_counts;
    long ref_row;          /* the row whose expected output ref holds, or -1 */
    bitcts_lent_desc lent; /* the description lent to the backend (and the judge) */
    bitcts_rng rng;
    double row_end;    /* within a budget: the row at hand stops repeating at this time */
    uint32_t row_reps; /* the timed calls the row at hand made */
    size_t row;        /* the row at hand */
    double deadline;   /* the rows' end within a budget (cfg->deadline, or later; 0: none) */
    int interleave;    /* host peers run between the timed calls, on these buffers */
} bench;

/* ---- opening: load, instances, identity ---- */

static int refuse(int st, const char *err)
{
    bitcts_supervise_sendf("S %d %s", st, err);
    return -1;
}

/* An instance with threads=N (0: as configured) and, optionally, a variant. */
static int make_instance(bench *x, uint32_t threads, const char *variant, void **inst, char *err,
                         size_t cap)
{
    char text[16];
    char cpus[BITCTS_BENCH_HOST_MAX_CPUS * 5];
    snprintf(text, sizeof text, "%u", threads);
    bitcts_backend_options extra = {0};
    if (threads > 0) {
        extra.keys[extra.count] = "threads";
        extra.values[extra.count++] = text;
    }
    if (x->place && bitcts_bench_host_format_cpus(x->cfg->host, threads, cpus, sizeof cpus) == 0) {
        extra.keys[extra.count] = "cpus";
        extra.values[extra.count++] = cpus;
    }
    if (variant != NULL) {
        extra.keys[extra.count] = "variant";
        extra.values[extra.count++] = variant;
    }
    bitcts_supervise_mark('I', -1);
    const int st = bitcts_backend_instance_with(&x->backend, &extra, inst, err, cap);
    bitcts_supervise_mark('C', -1);
    return st;
}

static void read_extensions(bench *x)
{
    const bitcts_plugin_table *t = x->backend.table;
    x->stream = t->get_extension != NULL ? t->get_extension(BITCTS_ABI_EXT_STREAM) : NULL;
    if (x->stream != NULL && (x->stream->struct_size < offsetof(bitcts_abi_stream_ext, shaped) ||
                              x->stream->copy == NULL || x->stream->triad == NULL)) {
        x->stream = NULL; /* malformed: measured without limits rather than trusted */
    }
    /* `shaped` came later: read only where the extension's struct_size covers it. */
    x->shaped = x->stream != NULL &&
                x->stream->struct_size >=
                    offsetof(bitcts_abi_stream_ext, shaped) + sizeof x->stream->shaped &&
                x->stream->shaped != NULL;
    x->timing = t->get_extension != NULL ? t->get_extension(BITCTS_ABI_EXT_DEVICE_TIMING) : NULL;
    if (x->timing != NULL && (x->timing->struct_size < sizeof *x->timing ||
                              x->timing->time_execute == NULL || x->timing->time_copy == NULL)) {
        x->timing = NULL;
    }
}

static void send_identity(bench *x)
{
    json_t *id = bitcts_backend_identity_json(&x->backend);
    json_object_set_new(id, "device", bitcts_backend_device_json(&x->backend, x->inst[0]));
    const char *variants = x->backend.table->instance_info != NULL
                               ? x->backend.table->instance_info(x->inst[0], "variants")
                               : NULL;
    char clean[BITCTS_BACKEND_TEXT] = "";
    bitcts_sanitize_string(variants, 4096, clean, sizeof clean);
    json_object_set_new(json_object_get(id, "info"), "variants", json_string(clean));
    char *text = id != NULL ? json_dumps(id, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(id);
    if (text != NULL) {
        const size_t len = strlen(text) + 3;
        char *line = malloc(len);
        if (line != NULL) {
            snprintf(line, len, "I %s", text);
            bitcts_supervise_send(line);
            free(line);
        }
        free(text);
    }
}

/* Whether to place the threads: the built-in cpu backend, with the host read. Its calls run on
 * this thread (worker 0), which goes to the first core; worker i to core i (the cpus option). */
static void choose_placement(bench *x)
{
    const bitcts_bench_host *h = x->cfg->host;
    x->place = h != NULL && h->cores > 0 && x->spec->builtin && strcmp(x->spec->name, "cpu") == 0;
    if (x->place && bitcts_bench_host_pin(h->cpus[0]) != 0) {
        x->place = 0;
    }
    bitcts_supervise_sendf("P %d", x->place);
}

/* Instances: the configured thread counts; by default 1 and the physical cores (one thread per
 * core; the online processors when the host is unknown) for a backend with the stream extension
 * (a CPU backend), one instance as configured for others. */
static int bench_open(bench *x)
{
    char err[1024];
    bitcts_supervise_mark('L', -1);
    int st = bitcts_backend_load(x->spec, &x->backend, err, sizeof err);
    if (st != BITCTS_OK) {
        return refuse(st, err);
    }
    bitcts_supervise_mark('Q', -1);
    read_extensions(x);
    const bitcts_bench_config *cfg = x->cfg;
    x->r.instances = cfg->thread_count > 0 ? cfg->thread_count : 1;
    for (int i = 0; i < cfg->thread_count; ++i) {
        x->r.threads[i] = cfg->threads[i];
    }
    choose_placement(x);
    if (cfg->thread_count == 0 && x->stream != NULL) {
        const long n = cfg->host != NULL ? (long)cfg->host->cores : sysconf(_SC_NPROCESSORS_ONLN);
        x->r.threads[0] = 1;
        x->r.instances = n > 1 ? 2 : 1;
        x->r.threads[1] = n > 256 ? 256u : (uint32_t)n;
    }
    for (int i = 0; i < x->r.instances; ++i) {
        if ((st = make_instance(x, x->r.threads[i], NULL, &x->inst[i], err, sizeof err)) != 0) {
            return refuse(st, err);
        }
    }
    bitcts_supervise_mark('Q', -1);
    if ((st = bitcts_backend_query(&x->backend, x->inst[0], err, sizeof err)) != BITCTS_OK) {
        return refuse(st, err);
    }
    send_identity(x);
    bitcts_supervise_mark('C', -1);
    return 0;
}

/* ---- the geometry ---- */

/* GB/s of `bytes` copied on the device (2 streams), the median of reps; -1 when the backend
 * cannot. */
static double device_copy(bench *x, uint64_t bytes, uint32_t method, uint32_t reps)
{
    uint64_t ns[BITCTS_BENCH_MAX_REPS + 1];
    double t[BITCTS_BENCH_MAX_REPS];
    bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_TIME_COPY);
    const int32_t st = x->timing->time_copy(x->inst[0], bytes, method, reps + 1, ns);
    bitcts_supervise_mark('C', -1);
    for (uint32_t k = 0; k < reps; ++k) {
        t[k] = 1e-9 * (double)ns[k + 1];
    }
    const double m = st == BITCTS_ABI_OK ? bitcts__bench_median(t, reps) : 0;
    return m > 0 ? 2.0 * (double)bytes / m / 1e9 : -1;
}

/* A size per input from the device: 1 GiB where the device holds 16 times that; less on a
 * smaller device; 32 MiB on a slow one (a CPU driving the API, like lavapipe). */
static uint64_t device_size(bench *x)
{
    const double probe = device_copy(x, 16 * BENCH_MIB, BITCTS_ABI_COPY_API, 3);
    if (probe > 0 && probe < 200) {
        return 32 * BENCH_MIB;
    }
    const char *text = x->backend.table->instance_info != NULL
                           ? x->backend.table->instance_info(x->inst[0], "device_memory_mib")
                           : NULL;
    char *end = NULL;
    const unsigned long long mib = text != NULL ? strtoull(text, &end, 10) : 0;
    uint64_t size = 1024 * BENCH_MIB;
    if (mib == 0) {
        return 512 * BENCH_MIB;
    }
    while (size > 64 * BENCH_MIB && size / BENCH_MIB * 16 > mib) {
        size /= 2;
    }
    return size;
}

static void choose_geometry(bench *x)
{
    const bitcts_bench_config *cfg = x->cfg;
    x->r.device_timing = x->timing != NULL;
    if (cfg->size_bytes > 0) {
        x->r.size_bytes = cfg->size_bytes;
    } else if (cfg->quick) { /* a device's smoke test: 64 KiB (lavapipe runs it on the CPU) */
        x->r.size_bytes = x->timing != NULL ? BENCH_MIB / 16 : BENCH_MIB;
    } else {
        /* A CPU backend (stream extension): 4 x the host's LLC (harness/perf/bench_host.h). */
        const int llc = x->stream != NULL && cfg->host != NULL;
        x->r.size_bytes = x->timing != NULL ? device_size(x)
                          : llc             ? bitcts_bench_host_size(cfg->host)
                                            : 64 * BENCH_MIB;
    }
    const int is_cpu = x->spec->builtin && strcmp(x->spec->name, "cpu") == 0;
    x->r.check = cfg->check;
    if (x->r.check == BITCTS_BENCH_CHECK_AUTO) {
        x->r.check = is_cpu || x->r.size_bytes <= BENCH_REFERENCE_MAX ? BITCTS_BENCH_CHECK_REFERENCE
                                                                      : BITCTS_BENCH_CHECK_CPU;
    }
    char line[512];
    int used = snprintf(line, sizeof line, "G %llu %d %d %d", (unsigned long long)x->r.size_bytes,
                        x->r.device_timing, x->r.check, x->r.instances);
    for (int i = 0; i < x->r.instances && used < (int)sizeof line; ++i) {
        used += snprintf(line + used, sizeof line - (size_t)used, " %u", x->r.threads[i]);
    }
    bitcts_supervise_send(line);
}

/* ---- buffers ---- */

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
    x->ref_row = -1;
}

/* Host peers timed between the backend's calls: the buffers become shared memory files the
 * parent hands its peers ("B <pid> <fd A> <fd B> <fd output> <offset>", answered once they
 * mapped them), and each timed call is followed by "Q <row> <call>", answered once the peers
 * ran the row once each. "B -": the buffers could not be shared (the peers then run after the
 * backend on arrays of their own, as device peers do). With the peers inside the bench's
 * time, the budget's share for peers after it goes to the rows. */
/* Asks the parent (bitcts_supervise_ask) for as long as the parent may take to answer, and a
 * little less than the harness's deadline of phase C: its answer, or -1. */
static int64_t ask_parent(const bench *x, const char *line)
{
    return bitcts_supervise_ask(line, 1.8 * bitcts__bench_answer_s(x->cfg));
}

static void share_with_peers(bench *x)
{
    if (x->timing != NULL || bitcts__bench_host_peers(x->cfg, 0) == 0) {
        return;
    }
    int fds[3];
    if (bitcts_bench_buffers_share(&x->buf, fds) != 0) {
        bitcts_supervise_send("B -");
        return;
    }
    char line[128];
    snprintf(line, sizeof line, "B %ld %d %d %d %u", (long)getpid(), fds[0], fds[1], fds[2],
             BITCTS_GUARD_BEFORE);
    /* The files stay open for the parent to open them (/proc/<pid>/fd/<fd>) while this asks.
     * Answered 1: the parent's peers have the buffers; 0: they run after the backend. */
    x->interleave = ask_parent(x, line) == 1;
    if (x->interleave) {
        x->deadline = bitcts__bench_rows_deadline(x->cfg, x->deadline);
    }
}

/* After timed call k of the row at hand: the peers' turn on the same buffers (a parent that does
 * not answer in time ends the interleaving). */
static void peers_turn(bench *x, uint32_t k)
{
    char line[64];
    snprintf(line, sizeof line, "Q %zu %u", x->row, k);
    if (ask_parent(x, line) != 1) {
        x->interleave = 0; /* no answer in time, or a refused turn: the peers stop here */
    }
}

static int alloc_buffers(bench *x)
{
    uint64_t in = 0, out = 0;
    bitcts__bench_caps(&x->r, &in, &out);
    x->cap_in = ((size_t)in + 4095) & ~(size_t)4095;
    x->cap_out = ((size_t)out + 4095) & ~(size_t)4095;
    char err[512];
    if (bitcts_bench_buffers_map(&x->buf, x->cap_in, x->cap_out, BENCH_SEED, err, sizeof err) !=
        0) {
        bitcts_supervise_sendf("E %s", err);
        return -1;
    }
    share_with_peers(x);
    x->a = x->buf.a;
    x->b = x->buf.b;
    x->out = x->buf.out;
    x->ref = x->buf.ref;
    bitcts_rng_init(&x->rng, BENCH_SEED, "bench");
    fill_random(x, x->a, x->cap_in);
    memset(x->out, BENCH_POISON, x->cap_out);
    memset(x->ref, BENCH_POISON, x->cap_out);
    x->b_counts = 1; /* forces the first fill */
    fill_b(x, 0);
    return 0;
}

/* The cpu backend as the judge of large outputs: loaded in this process with its defaults. */
static int open_judge(bench *x)
{
    if (x->r.check != BITCTS_BENCH_CHECK_CPU) {
        return 0;
    }
    char err[1024];
    bitcts_backend_spec spec;
    int st = bitcts_backend_resolve("cpu", NULL, &spec, err, sizeof err);
    if (st == BITCTS_OK) {
        st = bitcts_backend_load(&spec, &x->judge, err, sizeof err);
    }
    if (st == BITCTS_OK) {
        st = bitcts_backend_instance(&x->judge, &x->judge_inst, err, sizeof err);
    }
    if (st != BITCTS_OK) {
        bitcts_supervise_sendf("E the cpu backend cannot check the outputs: %s", err);
        return -1;
    }
    return 0;
}

/* ---- checks after every call ---- */

/* After a backend call: its guards, its inputs and (for executions) its output, then the
 * description it was lent. The row at hand keeps the first finding; an input that changed makes
 * the expected output stale. Returns 1 when the call broke something. */
static int after_call(bench *x, const char *call, int output)
{
    char why[600];
    const char *word = bitcts_bench_buffers_check(&x->buf, call, output, why, sizeof why);
    if (word == NULL && bitcts_lent_desc_changed(&x->lent, call, why, sizeof why)) {
        word = BITCTS_BENCH_CHECK_DESC;
    }
    if (word != NULL && x->broke == NULL) {
        x->broke = word;
        snprintf(x->broke_text, sizeof x->broke_text, "%s", why);
    }
    if (word != NULL && strcmp(word, BITCTS_BENCH_CHECK_INPUT) == 0) {
        x->ref_row = -1;
    }
    return word != NULL;
}

/* ---- limits ---- */

/* What a host limit streams: the copy (2 streams of the size per input), the triad (3), or the
 * shaped stream (src_bytes read, dst_bytes written: a row whose output has another width). */
typedef struct host_stream {
    const char *kind; /* "copy", "triad" or "shaped", as the rows' limit names them */
    uint64_t dst_bytes, src_bytes;
} host_stream;

static host_stream stream_of(const bench *x, const char *kind, const bitcts_bench_row *row)
{
    const uint64_t size = x->r.size_bytes;
    if (strcmp(kind, "shaped") == 0 && row != NULL && x->shaped) {
        /* The row's own bytes, whole 64-byte units of each side (a count's rows x cols). */
        const uint64_t n = (uint64_t)row->rows * row->cols;
        const uint64_t w = bitcts_dtype_size(row->in_type), ow = bitcts_dtype_size(row->out_type);
        const uint64_t small = n * (w < ow ? w : ow) / 64u * 64u;
        return (host_stream){"shaped", w < ow ? small * (ow / w) : small,
                             w < ow ? small : small * (w / ow)};
    }
    if (strcmp(kind, "triad") == 0) {
        return (host_stream){"triad", size, 2 * size};
    }
    return (host_stream){"copy", size, size};
}

/* GB/s of a stream on the buffers with instance i, the median of reps, after one warm-up when
 * `warm` (next to a row, the row's calls warmed the same buffers and threads); -1 when the
 * backend has no stream extension. */
static double host_limit(bench *x, int i, const host_stream *hs, uint32_t reps, int warm)
{
    if (x->stream == NULL) {
        return -1;
    }
    const uint64_t size = x->r.size_bytes;
    const int triad = strcmp(hs->kind, "triad") == 0, shaped = strcmp(hs->kind, "shaped") == 0;
    double t[BITCTS_BENCH_MAX_REPS];
    int32_t rc = BITCTS_ABI_OK;
    bitcts_bench_buffers_arm(&x->buf, 0);
    bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_STREAM);
    for (uint32_t k = warm ? 0 : 1; k <= reps && rc == BITCTS_ABI_OK; ++k) {
        const double t0 = bitcts_clock_now();
        rc = triad    ? x->stream->triad(x->inst[i], x->out, x->a, x->b, size / 8)
             : shaped ? x->stream->shaped(x->inst[i], x->out, hs->dst_bytes, x->a, hs->src_bytes)
                      : x->stream->copy(x->inst[i], x->out, x->a, size);
        if (k > 0) {
            t[k - 1] = bitcts_clock_now() - t0;
        }
    }
    bitcts_supervise_mark('C', -1);
    char what[64];
    snprintf(what, sizeof what, "the stream extension's %s", hs->kind);
    (void)after_call(x, what, 0);
    const double bytes = (double)(hs->dst_bytes + hs->src_bytes);
    return rc == BITCTS_ABI_OK ? bytes / bitcts__bench_median(t, reps) / 1e9 : -1;
}

static void measure_host_limits(bench *x)
{
    const host_stream copy_stream = stream_of(x, "copy", NULL);
    const host_stream triad_stream = stream_of(x, "triad", NULL);
    for (int i = 0; i < x->r.instances; ++i) {
        const double copy = host_limit(x, i, &copy_stream, x->cfg->reps, 1);
        const double triad = host_limit(x, i, &triad_stream, x->cfg->reps, 1);
        bitcts_supervise_sendf("H %d %.6g %.6g", i, copy, triad);
    }
    double t[BITCTS_BENCH_MAX_REPS];
    for (uint32_t k = 0; k < x->cfg->reps; ++k) {
        const double t0 = bitcts_clock_now();
        memcpy(x->out, x->a, (size_t)x->r.size_bytes);
        t[k] = bitcts_clock_now() - t0;
    }
    bitcts_supervise_sendf("Y %.6g", 2.0 * (double)x->r.size_bytes /
                                         bitcts__bench_median(t, x->cfg->reps) / 1e9);
}

static void measure_device_limits(bench *x, int end)
{
    const double api = device_copy(x, x->r.size_bytes, BITCTS_ABI_COPY_API, x->cfg->reps);
    const double kernel = device_copy(x, x->r.size_bytes, BITCTS_ABI_COPY_KERNEL, x->cfg->reps);
    bitcts_supervise_sendf("U %d %.6g %.6g", end, api, kernel);
}

/* ---- rows ---- */

/* The element strides of a 2-D tensor (its own, or packed). */
static void strides_of(const bitcts_tensor_desc *t, uint32_t out[2])
{
    out[0] = t->has_strides ? t->strides[0] : t->sizes[1];
    out[1] = t->has_strides ? t->strides[1] : 1;
}

/* Rows [r0, r0 + h) of tensor t as a tensor of its own (same strides), and their first byte. */
static uint64_t band_tensor(const bitcts_tensor_desc *t, uint32_t r0, uint32_t h,
                            bitcts_tensor_desc *band)
{
    uint32_t s[2];
    strides_of(t, s);
    *band = *t;
    band->sizes[0] = h;
    band->has_strides = 1;
    band->strides[0] = s[0];
    band->strides[1] = s[1];
    (void)bitcts_tensor_calc_buffer_size(band, &band->total_tensor_size_in_bytes);
    return (uint64_t)r0 * s[0] * bitcts_dtype_size(t->data_type);
}

/* A large row's sample: BITCTS_BENCH_SAMPLE_BANDS bands of rows spread over its output, about
 * 1/64 of it, or no sample (count 0) up to BENCH_REFERENCE_MAX bytes per input and when the cpu
 * backend checks (it computes whole outputs fast). */
static void choose_sample(const bench *x, const bitcts_op_desc *d, bitcts_bench_sample *s,
                          uint32_t *h)
{
    const uint32_t rows = d->output.sizes[0];
    s->count = 0;
    if (x->r.size_bytes <= BENCH_REFERENCE_MAX || x->r.check != BITCTS_BENCH_CHECK_REFERENCE ||
        d->output.dimension_count != 2 || rows < BITCTS_BENCH_SAMPLE_BANDS) {
        return;
    }
    uint32_t o[2];
    strides_of(&d->output, o);
    const uint64_t pitch = (uint64_t)o[0] * bitcts_dtype_size(d->output.data_type);
    *h = rows / (BITCTS_BENCH_SAMPLE_BANDS * 64) > 0 ? rows / (BITCTS_BENCH_SAMPLE_BANDS * 64) : 1;
    for (uint32_t k = 0; k < BITCTS_BENCH_SAMPLE_BANDS; ++k) {
        const uint32_t r0 = (uint32_t)((uint64_t)(rows - *h) * k / (BITCTS_BENCH_SAMPLE_BANDS - 1));
        s->start[k] = r0 * pitch;
        s->len[k] = *h * pitch;
    }
    s->count = BITCTS_BENCH_SAMPLE_BANDS;
}

/* The reference's output of the sample's bands into ref. */
static int reference_bands(bench *x, const bitcts_op_desc *d, const bitcts_bench_sample *s,
                           uint32_t h)
{
    uint32_t o[2];
    strides_of(&d->output, o);
    const uint64_t pitch = (uint64_t)o[0] * bitcts_dtype_size(d->output.data_type);
    int st = BITCTS_OK;
    for (uint32_t k = 0; k < s->count && st == BITCTS_OK; ++k) {
        const uint32_t r0 = (uint32_t)(s->start[k] / pitch);
        bitcts_op_desc band = *d;
        const uint64_t out_at = band_tensor(&d->output, r0, h, &band.output);
        const uint64_t a_at = band_tensor(&d->inputs[0], r0, h, &band.inputs[0]);
        const uint64_t b_at =
            d->input_count == 2 ? band_tensor(&d->inputs[1], r0, h, &band.inputs[1]) : 0;
        const void *inputs[2] = {x->a + a_at, x->b + b_at};
        st = bitcts_ref_execute(&band, inputs, x->ref + out_at, BITCTS_SHIFT_POLICY_SATURATE);
    }
    return st;
}

/* The expected output of row n into ref (the whole of it, or the bands of its sample, which
 * the buffers take), unless ref holds the same operation already (the rows of one shape on
 * several instances). */
static const char *expected(bench *x, size_t n)
{
    const bitcts_op_desc *d = &x->r.descs[n];
    bitcts_bench_sample sample;
    uint32_t h = 0;
    choose_sample(x, d, &sample, &h);
    bitcts_bench_buffers_sample(&x->buf, &sample);
    if (x->ref_row >= 0 && memcmp(&x->r.descs[x->ref_row], d, sizeof *d) == 0) {
        return NULL;
    }
    x->ref_row = -1;
    const void *inputs[2] = {x->a, x->b};
    bitcts_bench_buffers_expected_writable(&x->buf, 1);
    if (sample.count == 0) {
        memset(x->ref, BENCH_POISON, (size_t)d->output.total_tensor_size_in_bytes);
    }
    for (uint32_t k = 0; k < sample.count; ++k) { /* the rest of ref is never compared */
        memset(x->ref + sample.start[k], BENCH_POISON, (size_t)sample.len[k]);
    }
    int32_t st = BITCTS_ABI_OK;
    if (sample.count > 0) {
        st = reference_bands(x, d, &sample, h) == BITCTS_OK ? BITCTS_ABI_OK
                                                            : BITCTS_ABI_E_INVALID_ARGUMENT;
    } else if (x->r.check == BITCTS_BENCH_CHECK_REFERENCE) {
        st = bitcts_ref_execute(d, inputs, x->ref, BITCTS_SHIFT_POLICY_SATURATE) == BITCTS_OK
                 ? BITCTS_ABI_OK
                 : BITCTS_ABI_E_INVALID_ARGUMENT;
    } else {
        const bitcts_abi_operator_desc *od = bitcts_lent_desc_lend(&x->lent, d, n);
        void *op = NULL;
        const bitcts_plugin_table *t = x->judge.table;
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_REFERENCE_BACKEND);
        st = od != NULL ? t->operator_create(x->judge_inst, od, &op) : BITCTS_ABI_E_OUT_OF_MEMORY;
        if (st == BITCTS_ABI_OK) {
            st = t->operator_execute(x->judge_inst, op, inputs, x->ref);
            t->operator_destroy(x->judge_inst, op);
        }
        bitcts_supervise_mark('C', -1);
    }
    bitcts_bench_buffers_expected_writable(&x->buf, 0);
    if (st != BITCTS_ABI_OK) {
        return "REF-ERROR";
    }
    x->ref_row = (long)n;
    return NULL;
}

/* The backend's status as a row's check: not supported at create is "n/a", else an error. */
static const char *status_check(int32_t st, int at_create)
{
    return st == BITCTS_ABI_E_NOT_SUPPORTED && at_create ? "n/a" : "ERROR";
}

/* Median seconds of reps executions timed with the host's clock (each writes the same output).
 * Between two timed calls, outside the timed region: the output poisoned and the guards armed
 * before, every check after (harness/perf/bench_buffers.h); the first broken call ends the row. */
static int32_t time_host(bench *x, void *inst, void *op, double *seconds)
{
    const bitcts_plugin_table *t = x->backend.table;
    const void *inputs[2] = {x->a, x->b};
    const uint32_t reps = x->cfg->reps;
    const uint32_t least = reps < BENCH_MIN_REPS ? reps : BENCH_MIN_REPS;
    double times[BITCTS_BENCH_MAX_REPS];
    int32_t rc = BITCTS_ABI_OK;
    uint32_t k = 0;
    for (; k < reps && rc == BITCTS_ABI_OK && x->broke == NULL; ++k) {
        if (k >= least && x->row_end > 0 && bitcts_clock_now() > x->row_end) {
            break; /* the row's share of the budget is spent */
        }
        bitcts_bench_buffers_arm(&x->buf, 1);
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_EXECUTE);
        const double t0 = bitcts_clock_now();
        rc = t->operator_execute(inst, op, inputs, x->out);
        times[k] = bitcts_clock_now() - t0;
        bitcts_supervise_mark('C', -1);
        char call[64];
        snprintf(call, sizeof call, "operator_execute (timed call %u of %u)", k + 1, reps);
        if (rc == BITCTS_ABI_OK) {
            (void)after_call(x, call, 1);
        }
        if (rc == BITCTS_ABI_OK && x->broke == NULL && x->interleave) {
            peers_turn(x, k);
        }
    }
    x->row_reps = k;
    *seconds =
        rc == BITCTS_ABI_OK && x->broke == NULL && k > 0 ? bitcts__bench_median(times, k) : -1;
    return rc;
}

/* Median device seconds of reps executions (one more runs first and is dropped). They run in
 * one call on the device's buffers, so what can be checked is what the call leaves on the
 * host: the guards, the inputs and the output of its last execution, after it. */
static int32_t time_device(bench *x, void *inst, void *op, double *seconds)
{
    uint64_t ns[BITCTS_BENCH_MAX_REPS + 1];
    double times[BITCTS_BENCH_MAX_REPS];
    const void *inputs[2] = {x->a, x->b};
    bitcts_bench_buffers_arm(&x->buf, 1);
    bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_TIME_EXECUTE);
    const int32_t rc = x->timing->time_execute(inst, op, inputs, x->out, x->cfg->reps + 1, ns);
    bitcts_supervise_mark('C', -1);
    char call[64];
    snprintf(call, sizeof call, "time_execute (%u executions)", x->cfg->reps + 1);
    if (rc == BITCTS_ABI_OK) {
        (void)after_call(x, call, 1);
    }
    for (uint32_t k = 0; k < x->cfg->reps; ++k) {
        times[k] = 1e-9 * (double)ns[k + 1];
    }
    x->row_reps = x->cfg->reps;
    *seconds =
        rc == BITCTS_ABI_OK && x->broke == NULL ? bitcts__bench_median(times, x->cfg->reps) : -1;
    return rc;
}

static void send_row(size_t n, double gbps, double limit, const char *kind, const char *check,
                     const char *text)
{
    bitcts_supervise_sendf("W %zu %.6g %.6g %s %s%s%s", n, gbps, limit, kind, check,
                           text[0] != '\0' ? " " : "", text);
}

/* Creates, times and destroys row n's operator on its placed buffers; the check word (or NULL
 * when a call broke something: x->broke). */
static const char *measure_row(bench *x, size_t n, void *inst, double *seconds, char *why,
                               size_t cap)
{
    const bitcts_plugin_table *t = x->backend.table;
    const bitcts_abi_operator_desc *od = bitcts_lent_desc_lend(&x->lent, &x->r.descs[n], n);
    void *op = NULL;
    bitcts_bench_buffers_arm(&x->buf, 0);
    bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_CREATE);
    int32_t st = od != NULL ? t->operator_create(inst, od, &op) : BITCTS_ABI_E_OUT_OF_MEMORY;
    bitcts_supervise_mark('C', -1);
    const int at_create = st != BITCTS_ABI_OK;
    (void)after_call(x, "operator_create", 0);
    if (st == BITCTS_ABI_OK && x->broke == NULL) {
        st =
            x->timing != NULL ? time_device(x, inst, op, seconds) : time_host(x, inst, op, seconds);
    }
    if (st != BITCTS_ABI_OK) {
        bitcts_backend_last_error(&x->backend, inst, why, cap);
    }
    if (op != NULL) {
        bitcts_bench_buffers_arm(&x->buf, 0);
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_DESTROY);
        t->operator_destroy(inst, op);
        bitcts_supervise_mark('C', -1);
        (void)after_call(x, "operator_destroy", 0);
    }
    return st != BITCTS_ABI_OK ? status_check(st, at_create) : "ok";
}

static void run_row(bench *x, size_t n)
{
    const bitcts_bench_row *row = &x->r.rows[n];
    const bitcts_op_desc *d = &x->r.descs[n];
    void *inst = x->inst[n % (size_t)x->r.instances];
    char why[sizeof x->broke_text] = "";
    x->row = n;
    bitcts_supervise_sendf("N %zu", n);
    fill_b(x, bitcts_op_is_shift(d->op) ? bitcts_dtype_size(row->in_type) : 0);
    const char *check = expected(x, n);
    double seconds = -1;
    if (check == NULL && bitcts_bench_buffers_place(&x->buf, d) != 0) {
        check = "ERROR";
        snprintf(why, sizeof why, "the harness could not place the row's buffers");
    } else if (check == NULL) {
        check = measure_row(x, n, inst, &seconds, why, sizeof why);
    }
    (void)bitcts_bench_buffers_place(&x->buf, NULL); /* the fills and the stream: whole */
    bitcts_bench_buffers_sample(&x->buf, NULL);
    /* With device timing, the copy kernel right after the row: the device's state (its clocks)
     * when the row ran, so a drift during the run does not pass for the backend's speed. */
    const uint32_t reps = x->row_reps > 0 ? x->row_reps : x->cfg->reps;
    const host_stream hs = stream_of(x, row->limit, row);
    const double limit =
        x->timing != NULL
            ? device_copy(x, x->r.size_bytes, BITCTS_ABI_COPY_KERNEL, x->cfg->reps)
            : host_limit(x, (int)(n % (size_t)x->r.instances), &hs, reps, x->row_reps == 0);
    if (x->broke != NULL) {
        check = x->broke;
        snprintf(why, sizeof why, "%s", x->broke_text);
        x->broke = NULL;
    }
    const double gbps =
        seconds > 0 && strcmp(check, "ok") == 0 ? row->useful_bytes / seconds / 1e9 : -1;
    bitcts_supervise_sendf("R %zu %u", n, x->row_reps);
    send_row(n, gbps, limit, x->timing != NULL ? "copy" : hs.kind, check, why);
}

/* Within a budget: whether row n may start (else "T n" is sent), and when it stops repeating:
 * an even share of the time left over the rows left, half of it for the row's own calls (the
 * limit next to it repeats as often). */
static int row_may_start(bench *x, size_t n)
{
    x->row_reps = 0;
    x->row_end = 0;
    if (x->deadline <= 0) {
        return 1;
    }
    const double now = bitcts_clock_now();
    if (now >= x->deadline) {
        bitcts_supervise_sendf("T %zu", n);
        return 0;
    }
    x->row_end = now + 0.5 * (x->deadline - now) / (double)(x->r.row_count - n);
    return 1;
}

/* ---- small tensors: the per-call cost ---- */

/* Median ns per call over batches of back-to-back calls (one call is too short to time alone).
 * The first call and every batch are checked after they return (a batch: the guards, inputs
 * and description after its last call, and that call's output). */
static double small_batches(bench *x, void *inst, void *op, double one)
{
    const bitcts_plugin_table *t = x->backend.table;
    const void *inputs[2] = {x->a, x->b};
    const double want = BENCH_SMALL_TARGET_S / (one > 1e-9 ? one : 1e-9);
    const int calls = want < 1 ? 1 : want > 2000 ? 2000 : (int)want;
    double times[BENCH_SMALL_REPS];
    char call[96];
    snprintf(call, sizeof call, "operator_execute (a batch of %d calls: the last one's output)",
             calls);
    for (int k = 0; k < BENCH_SMALL_REPS; ++k) {
        bitcts_bench_buffers_arm(&x->buf, 1);
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_EXECUTE);
        const double t0 = bitcts_clock_now();
        for (int c = 0; c < calls; ++c) {
            (void)t->operator_execute(inst, op, inputs, x->out);
        }
        times[k] = (bitcts_clock_now() - t0) / calls * 1e9;
        bitcts_supervise_mark('C', -1);
        if (after_call(x, call, 1)) {
            return -1;
        }
    }
    return bitcts__bench_median(times, BENCH_SMALL_REPS);
}

static double small_ns(bench *x, void *inst, const bitcts_op_desc *d, const char **check)
{
    const bitcts_plugin_table *t = x->backend.table;
    const bitcts_abi_operator_desc *od = bitcts_lent_desc_lend(&x->lent, d, 0);
    void *op = NULL;
    bitcts_bench_buffers_arm(&x->buf, 0);
    bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_CREATE);
    const int32_t st = od != NULL ? t->operator_create(inst, od, &op) : BITCTS_ABI_E_OUT_OF_MEMORY;
    bitcts_supervise_mark('C', -1);
    (void)after_call(x, "operator_create", 0);
    if (st != BITCTS_ABI_OK) {
        *check = status_check(st, 1);
        return -1;
    }
    double ns = -1;
    if (x->broke == NULL) {
        const void *inputs[2] = {x->a, x->b};
        bitcts_bench_buffers_arm(&x->buf, 1);
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_EXECUTE);
        const double t0 = bitcts_clock_now();
        const int32_t rc = t->operator_execute(inst, op, inputs, x->out);
        const double one = bitcts_clock_now() - t0;
        bitcts_supervise_mark('C', -1);
        if (rc != BITCTS_ABI_OK) {
            *check = "ERROR";
        } else if (!after_call(x, "operator_execute (the first call)", 1)) {
            ns = small_batches(x, inst, op, one);
        }
    }
    bitcts_bench_buffers_arm(&x->buf, 0);
    bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_DESTROY);
    t->operator_destroy(inst, op);
    bitcts_supervise_mark('C', -1);
    (void)after_call(x, "operator_destroy", 0);
    return ns;
}

static void run_small(bench *x)
{
    const bitcts__bench_small_case *cases = bitcts__bench_small_cases;
    void *scalar = NULL;
    char err[512];
    const char *variants = x->backend.table->instance_info != NULL
                               ? x->backend.table->instance_info(x->inst[0], "variants")
                               : NULL;
    if (variants != NULL && strstr(variants, "scalar") != NULL) {
        (void)make_instance(x, 1, "scalar", &scalar, err, sizeof err);
    }
    fill_b(x, 2);
    for (int i = 0; i < BITCTS_BENCH_SMALL; ++i) {
        if ((x->cfg->ops_mask & (1u << bitcts_op_index(cases[i].op))) == 0) {
            continue;
        }
        bitcts_op_desc d;
        memset(&d, 0, sizeof d);
        d.op = cases[i].op;
        d.input_count = bitcts_op_input_count(d.op);
        const uint32_t n = cases[i].bytes / bitcts_dtype_size(cases[i].type);
        bitcts_tensor_make_packed(cases[i].type, 1, &n, &d.inputs[0]);
        bitcts_tensor_make_packed(cases[i].type, 1, &n, &d.inputs[1]);
        bitcts_tensor_make_packed(cases[i].out_type, 1, &n, &d.output);
        bitcts_bench_buffers_expected_writable(&x->buf, 1);
        memset(x->ref, BENCH_POISON, (size_t)d.output.total_tensor_size_in_bytes);
        const void *inputs[2] = {x->a, x->b};
        (void)bitcts_ref_execute(&d, inputs, x->ref, BITCTS_SHIFT_POLICY_SATURATE);
        bitcts_bench_buffers_expected_writable(&x->buf, 0);
        x->ref_row = -1;
        const char *check = "ok";
        double default_ns = -1, scalar_ns = -1;
        if (bitcts_bench_buffers_place(&x->buf, &d) == 0) {
            default_ns = small_ns(x, x->inst[x->r.instances - 1], &d, &check);
            scalar_ns = scalar != NULL ? small_ns(x, scalar, &d, &check) : -1;
        }
        (void)bitcts_bench_buffers_place(&x->buf, NULL); /* whole again for the next fill */
        const char *text = x->broke != NULL ? x->broke_text : "";
        check = x->broke != NULL ? x->broke : check;
        x->broke = NULL;
        bitcts_supervise_sendf("M %d %.6g %.6g %s%s%s", i, default_ns, scalar_ns, check,
                               text[0] != '\0' ? " " : "", text);
    }
    if (scalar != NULL) {
        bitcts_supervise_mark('D', -1);
        x->backend.table->instance_destroy(scalar);
        bitcts_supervise_mark('C', -1);
    }
}

/* ---- the child ---- */

static void bench_close(bench *x)
{
    bitcts_supervise_mark('D', -1);
    for (int i = 0; i < x->r.instances; ++i) {
        if (x->inst[i] != NULL) {
            x->backend.table->instance_destroy(x->inst[i]);
        }
    }
    bitcts_backend_shutdown(&x->backend);
    if (x->judge_inst != NULL) {
        x->judge.table->instance_destroy(x->judge_inst);
    }
    bitcts_backend_shutdown(&x->judge);
}

static void bench_measure(bench *x)
{
    choose_geometry(x);
    if (bitcts__bench_build_rows(x->cfg, &x->r) != BITCTS_OK) {
        bitcts_supervise_send("E out of memory");
        return;
    }
    if (alloc_buffers(x) != 0 || open_judge(x) != 0) {
        return;
    }
    if (x->timing != NULL) {
        measure_device_limits(x, 0);
    } else {
        measure_host_limits(x);
    }
    for (size_t n = 0; n < x->r.row_count && row_may_start(x, n); ++n) {
        run_row(x, n);
    }
    if (x->timing != NULL) {
        measure_device_limits(x, 1);
    }
    run_small(x);
    bitcts_supervise_send("Z");
}

void bitcts__bench_child_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status)
{
    const bitcts__perf_job *job = arg;
    bitcts_supervise_child_start(chan, nonce, status);
    bench x = {.cfg = job->cfg, .spec = job->spec, .ref_row = -1};
    x.deadline = x.cfg->deadline;
    if (bench_open(&x) == 0) {
        bench_measure(&x);
    }
    if (x.backend.table != NULL) {
        bench_close(&x);
    }
    bitcts_bench_buffers_free(&x.buf);
    bitcts_lent_desc_free(&x.lent);
    bitcts_supervise_mark('X', -1);
    _exit(0);
}
