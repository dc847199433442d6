/* SPDX-License-Identifier: MIT */
/* The benchmark's shared parts: the names, the rows (operator x widths x layout x instance and
 * their tensor descriptions, built the same way by the parent and the child), and the JSON of a
 * result with its ratios. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, qsort */
#include <string.h> /* memset */

#include "bench.h"
#include "bitcts/bitcts_status.h"

#define BENCH_LAYOUT_NAME(name, text) text,
static const char *const layout_names[BITCTS_BENCH_LAYOUTS] = {
    BITCTS_BENCH_LAYOUT_LIST(BENCH_LAYOUT_NAME)};
#undef BENCH_LAYOUT_NAME
#define BENCH_CHECK_NAME(name, text) text,
static const char *const check_names[BITCTS_BENCH_CHECKS] = {
    BITCTS_BENCH_CHECK_LIST(BENCH_CHECK_NAME)};
#undef BENCH_CHECK_NAME
#define BENCH_PEER_NAME(name, text, title, device) text,
static const char *const peer_names[BITCTS_BENCH_PEERS] = {BITCTS_BENCH_PEER_LIST(BENCH_PEER_NAME)};
#undef BENCH_PEER_NAME
#define BENCH_PEER_TITLE(name, text, title, device) title,
static const char *const peer_titles[BITCTS_BENCH_PEERS] = {
    BITCTS_BENCH_PEER_LIST(BENCH_PEER_TITLE)};
#undef BENCH_PEER_TITLE
#define BENCH_PEER_DEVICE(name, text, title, device) device,
static const int peer_devices[BITCTS_BENCH_PEERS] = {BITCTS_BENCH_PEER_LIST(BENCH_PEER_DEVICE)};
#undef BENCH_PEER_DEVICE

const char *bitcts_bench_layout_name(int layout)
{
    return layout >= 0 && layout < BITCTS_BENCH_LAYOUTS ? layout_names[layout] : "?";
}

const char *bitcts_bench_check_name(int check)
{
    return check >= 0 && check < BITCTS_BENCH_CHECKS ? check_names[check] : "?";
}

const char *bitcts_bench_peer_name(int peer)
{
    return peer >= 0 && peer < BITCTS_BENCH_PEERS ? peer_names[peer] : "?";
}

const char *bitcts_bench_peer_title(int peer)
{
    return peer >= 0 && peer < BITCTS_BENCH_PEERS ? peer_titles[peer] : "?";
}

int bitcts_bench_peer_is_device(int peer)
{
    return peer >= 0 && peer < BITCTS_BENCH_PEERS ? peer_devices[peer] : 0;
}

const bitcts__bench_small_case bitcts__bench_small_cases[BITCTS_BENCH_SMALL] = {
    {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 64},
    {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4096},
    {BITCTS_OP_BIT_NOT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 4096},
    {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, BITCTS_DT_UINT8, 4096},
    {BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 4096},
    {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT64, BITCTS_DT_UINT64, 16384},
};

/* ---- rows and their descriptions ---- */

static uint32_t uint_type(uint32_t bytes)
{
    switch (bytes) {
    case 1: return BITCTS_DT_UINT8;
    case 2: return BITCTS_DT_UINT16;
    case 4: return BITCTS_DT_UINT32;
    default: return BITCTS_DT_UINT64;
    }
}

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

const char *const bitcts_bench_limit_kinds[BITCTS_BENCH_LIMIT_KINDS] = {"copy", "triad", "shaped"};

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
    row->limit = d->input_count == 2 && row->layout != BITCTS_BENCH_BCAST ? "triad"
                 : ow != w                                                ? "shaped"
                                                                          : "copy";
}

static void init_row(bitcts_bench_row *row)
{
    row->gbps = row->limit_gbps = row->limit2_gbps = -1;
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        row->peer_gbps[p] = -1;
    }
    row->check = "-";
}

/* Every operator x input width (x BIT_COUNT's two output types) x layout x instance. */
int bitcts__bench_build_rows(const bitcts_bench_config *cfg, bitcts_bench_result *r)
{
    const size_t cap = (size_t)BITCTS_OP_COUNT * 8 * BITCTS_BENCH_LAYOUTS * (size_t)r->instances;
    r->rows = calloc(cap, sizeof *r->rows);
    r->descs = calloc(cap, sizeof *r->descs);
    if (r->rows == NULL || r->descs == NULL) {
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
                    for (int i = 0; i < r->instances; ++i) {
                        const size_t n = r->row_count++;
                        bitcts_bench_row *row = &r->rows[n];
                        init_row(row);
                        row->op = op;
                        row->in_type = uint_type(w);
                        row->out_type =
                            count ? (k ? BITCTS_DT_UINT32 : BITCTS_DT_UINT8) : uint_type(w);
                        row->layout = lay;
                        row->threads = r->threads[i];
                        make_desc(row, r->size_bytes, &r->descs[n]);
                    }
                }
            }
        }
    }
    return BITCTS_OK;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x;
    const double b = *(const double *)y;
    return (a > b) - (a < b);
}

double bitcts__bench_median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bitcts__bench_caps(const bitcts_bench_result *r, uint64_t *in, uint64_t *out)
{
    *in = *out = r->size_bytes;
    for (size_t i = 0; i < r->row_count; ++i) {
        const bitcts_op_desc *d = &r->descs[i];
        for (uint32_t k = 0; k < d->input_count; ++k) {
            const uint64_t bytes = d->inputs[k].total_tensor_size_in_bytes;
            *in = bytes > *in ? bytes : *in;
        }
        const uint64_t bytes = d->output.total_tensor_size_in_bytes;
        *out = bytes > *out ? bytes : *out;
    }
}

int bitcts_bench_drifted(const bitcts_bench_result *r)
{
    return r->kcopy_min_gbps > 0 && r->kcopy_max_gbps > 0 &&
           r->kcopy_min_gbps < 0.9 * r->kcopy_max_gbps;
}

void bitcts_bench_result_free(bitcts_bench_result *r)
{
    if (r != NULL) {
        free(r->rows);
        free(r->descs);
        json_decref(r->backend);
        r->rows = NULL;
        r->descs = NULL;
        r->backend = NULL;
        r->row_count = 0;
    }
}

double bitcts_bench_torch_strided_not(const bitcts_bench_result *r, const bitcts_bench_row *row)
{
    const int peer = r->device_timing ? BITCTS_BENCH_PEER_TORCH_CUDA : BITCTS_BENCH_PEER_TORCH_CPU;
    if (row->layout != BITCTS_BENCH_TRANSPOSED) {
        return -1;
    }
    for (size_t i = 0; i < r->row_count; ++i) {
        const bitcts_bench_row *n = &r->rows[i];
        if (n->op == BITCTS_OP_BIT_NOT && n->layout == BITCTS_BENCH_TRANSPOSED &&
            n->in_type == row->in_type && n->peer_gbps[peer] > 0) {
            return n->peer_gbps[peer];
        }
    }
    return -1;
}

const char *bitcts_bench_row_name(const bitcts_bench_row *row, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s %s->%s %s %u thr", bitcts_op_name(row->op),
             bitcts_dtype_name(row->in_type), bitcts_dtype_name(row->out_type),
             bitcts_bench_layout_name(row->layout), row->threads);
    return buf;
}

/* ---- the limits' spread ---- */

static int cmp_gbps(const void *x, const void *y)
{
    const double a = *(const double *)x;
    const double b = *(const double *)y;
    return (a > b) - (a < b);
}

size_t bitcts_bench_limit_spread(const bitcts_bench_result *r, int instance, const char *kind,
                                 double out[3])
{
    const size_t per = r->instances > 0 ? (size_t)r->instances : 1;
    double *v = calloc(r->row_count / per + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = (size_t)instance; v != NULL && i < r->row_count; i += per) {
        const bitcts_bench_row *row = &r->rows[i];
        if (row->limit_gbps > 0 && row->limit != NULL && strcmp(row->limit, kind) == 0) {
            v[n++] = row->limit_gbps;
        }
    }
    if (n > 0) {
        qsort(v, n, sizeof *v, cmp_gbps);
        out[0] = v[0];
        out[1] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        out[2] = v[n - 1];
    }
    free(v);
    return n;
}

int bitcts_bench_over_limit(const bitcts_bench_result *r, const bitcts_bench_row *row, char *why,
                            size_t cap)
{
    why[0] = '\0';
    if (r->device_timing || row->gbps <= 0 || row->limit_gbps <= 0 ||
        row->gbps <= BITCTS_BENCH_OVER_LIMIT * row->limit_gbps) {
        return 0;
    }
    const int triad = strcmp(row->limit, "triad") == 0;
    /* A shaped limit streams the row's own bytes (whole 64-byte units of them). */
    const double limit_bytes = strcmp(row->limit, "shaped") == 0
                                   ? row->useful_bytes
                                   : (triad ? 3.0 : 2.0) * (double)r->size_bytes;
    const double mib = 1024.0 * 1024.0;
    if (row->useful_bytes < 0.9 * limit_bytes) {
        snprintf(why, cap,
                 "the row moves %.0f MiB, its limit (%s of %.0f MiB per array) %.0f MiB: fewer "
                 "bytes, a larger share of them in cache",
                 row->useful_bytes / mib, row->limit, (double)r->size_bytes / mib,
                 limit_bytes / mib);
        return 1;
    }
    const size_t per = r->instances > 0 ? (size_t)r->instances : 1;
    const size_t index = (size_t)(row - r->rows);
    double spread[3] = {-1, -1, -1};
    (void)bitcts_bench_limit_spread(r, (int)(index % per), row->limit, spread);
    snprintf(why, cap,
             "same bytes as its limit; the %s next to it ran at %.1f GB/s, the median over this "
             "instance's rows %.1f (%.1f-%.1f): the row and its limit met different bandwidth "
             "(a shared or noisy host); against the median it is at %.2f",
             row->limit, row->limit_gbps, spread[1], spread[0], spread[2],
             spread[1] > 0 ? row->gbps / spread[1] : 0.0);
    return 1;
}

/* ---- JSON ---- */

static json_t *number_or_null(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

static json_t *ratio(double a, double b)
{
    return a > 0 && b > 0 ? json_real(a / b) : json_null();
}

static json_t *row_json(const bitcts_bench_result *r, const bitcts_bench_row *row)
{
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:f, s:s, s:s}", "op", bitcts_op_name(row->op),
        "in_type", bitcts_dtype_name(row->in_type), "out_type", bitcts_dtype_name(row->out_type),
        "layout", bitcts_bench_layout_name(row->layout), "rows", (json_int_t)row->rows, "cols",
        (json_int_t)row->cols, "threads", (json_int_t)row->threads, "useful_bytes",
        row->useful_bytes, "check", row->check, "limit", row->limit);
    if (o == NULL) {
        return NULL;
    }
    const double gbps = row->gbps > 0 ? row->gbps : -1;
    json_object_set_new(o, "note", row->note[0] != '\0' ? json_string(row->note) : json_null());
    json_object_set_new(o, "reps", json_integer(row->reps));
    json_object_set_new(o, "measured", json_boolean(!row->out_of_time && row->reps > 0));
    json_object_set_new(o, "gbps", number_or_null(gbps));
    json_object_set_new(o, "limit_gbps", number_or_null(row->limit_gbps));
    json_object_set_new(o, "ratio_limit", ratio(gbps, row->limit_gbps));
    if (r->device_timing) {
        json_object_set_new(o, "copy_kernel_gbps", number_or_null(row->limit2_gbps));
        json_object_set_new(o, "ratio_copy_kernel", ratio(gbps, row->limit2_gbps));
    }
    json_t *peers = json_object();
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        if (r->peers[p].asked) {
            json_object_set_new(peers, bitcts_bench_peer_name(p),
                                json_pack("{s:o, s:o}", "gbps", number_or_null(row->peer_gbps[p]),
                                          "ratio", ratio(gbps, row->peer_gbps[p])));
        }
    }
    json_object_set_new(o, "peers", peers);
    if (!r->device_timing) {
        char why[400];
        const int over = bitcts_bench_over_limit(r, row, why, sizeof why);
        json_object_set_new(o, "over_limit", json_boolean(over));
        json_object_set_new(o, "over_limit_why", over ? json_string(why) : json_null());
    }
    if (row->layout == BITCTS_BENCH_TRANSPOSED) {
        const double torch_not = bitcts_bench_torch_strided_not(r, row);
        json_object_set_new(o, "torch_strided_not_gbps", number_or_null(torch_not));
        json_object_set_new(o, "ratio_torch_strided_not", ratio(gbps, torch_not));
    }
    return o;
}

/* The CPUs an instance's threads were placed on, or null when they were not placed. */
static json_t *placement_json(const bitcts_bench_result *r, uint32_t threads)
{
    if (!r->placed || threads > r->host.cores) {
        return json_null();
    }
    json_t *a = json_array();
    for (uint32_t k = 0; k < threads; ++k) {
        json_array_append_new(a, json_integer(r->host.cpus[k]));
    }
    return a;
}

/* {"copy": {min, median, max, rows}, "triad": ...} of the limits next to an instance's rows. */
static json_t *spread_json(const bitcts_bench_result *r, int instance)
{
    json_t *o = json_object();
    const char *const *kinds = bitcts_bench_limit_kinds;
    for (int k = 0; k < BITCTS_BENCH_LIMIT_KINDS; ++k) {
        double v[3] = {-1, -1, -1};
        const size_t n = bitcts_bench_limit_spread(r, instance, kinds[k], v);
        json_object_set_new(o, kinds[k],
                            n == 0
                                ? json_null()
                                : json_pack("{s:f, s:f, s:f, s:I}", "min_gbps", v[0], "median_gbps",
                                            v[1], "max_gbps", v[2], "rows", (json_int_t)n));
    }
    return o;
}

/* The host as the bench read it: the LLC that sized the tensors and the cores it placed on. */
static json_t *host_json(const bitcts_bench_result *r)
{
    const bitcts_bench_host *h = &r->host;
    json_t *cpus = json_array();
    for (uint32_t k = 0; k < h->cores; ++k) {
        json_array_append_new(cpus, json_integer(h->cpus[k]));
    }
    return json_pack(
        "{s:I, s:I, s:I, s:I, s:s, s:I, s:I, s:o, s:s, s:b, s:I, s:b}", "llc_bytes",
        (json_int_t)h->llc_bytes, "llc_level", (json_int_t)h->llc_level, "llc_instances",
        (json_int_t)h->llc_count, "llc_total_bytes", (json_int_t)(h->llc_bytes * h->llc_count),
        "llc_source", h->llc_from_sysfs ? "sysfs" : "fallback", "online_cpus",
        (json_int_t)h->online, "cores", (json_int_t)h->cores, "core_cpus", cpus, "topology_source",
        h->topology_from_sysfs ? "sysfs" : "fallback", "placed", r->placed, "mem_available_bytes",
        (json_int_t)h->mem_available, "size_capped_by_memory", r->size_capped);
}

static json_t *limits_json(const bitcts_bench_result *r)
{
    if (r->device_timing) {
        return json_pack("{s:[o, o], s:[o, o], s:o, s:o, s:b}", "copy_api_gbps",
                         number_or_null(r->copy_api_gbps[0]), number_or_null(r->copy_api_gbps[1]),
                         "copy_kernel_gbps", number_or_null(r->copy_kernel_gbps[0]),
                         number_or_null(r->copy_kernel_gbps[1]), "copy_kernel_min_gbps",
                         number_or_null(r->kcopy_min_gbps), "copy_kernel_max_gbps",
                         number_or_null(r->kcopy_max_gbps), "drift", bitcts_bench_drifted(r));
    }
    json_t *instances = json_array();
    for (int i = 0; i < r->instances; ++i) {
        json_t *o = json_pack("{s:I, s:o, s:o}", "threads", (json_int_t)r->threads[i], "copy_gbps",
                              number_or_null(r->copy_gbps[i]), "triad_gbps",
                              number_or_null(r->triad_gbps[i]));
        json_object_set_new(o, "cpus", placement_json(r, r->threads[i]));
        json_object_set_new(o, "limit_spread", spread_json(r, i));
        json_array_append_new(instances, o);
    }
    return json_pack("{s:o, s:o}", "memcpy_gbps", number_or_null(r->memcpy_gbps), "instances",
                     instances);
}

static json_t *peers_json(const bitcts_bench_result *r)
{
    json_t *a = json_array();
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        const bitcts_bench_peer *peer = &r->peers[p];
        if (!peer->asked) {
            continue;
        }
        json_array_append_new(
            a, json_pack("{s:s, s:b, s:s?, s:s?, s:s, s:o, s:b}", "name", bitcts_bench_peer_name(p),
                         "present", peer->present, "version",
                         peer->version[0] != '\0' ? peer->version : NULL, "device",
                         peer->device[0] != '\0' ? peer->device : NULL, "note", peer->note,
                         "copy_gbps", number_or_null(peer->copy_gbps), "interleaved",
                         peer->interleaved));
    }
    return a;
}

static json_t *small_json(const bitcts_bench_result *r)
{
    json_t *small = json_array();
    for (size_t i = 0; i < r->small_count; ++i) {
        const bitcts_bench_small *s = &r->small[i];
        json_t *o =
            json_pack("{s:s, s:s, s:s, s:I, s:s}", "op", bitcts_op_name(s->op), "in_type",
                      bitcts_dtype_name(s->in_type), "out_type", bitcts_dtype_name(s->out_type),
                      "bytes", (json_int_t)s->bytes, "check", s->check);
        json_object_set_new(o, "note", s->note[0] != '\0' ? json_string(s->note) : json_null());
        json_object_set_new(o, "default_ns", number_or_null(s->default_ns));
        json_object_set_new(o, "scalar_ns", number_or_null(s->scalar_ns));
        json_array_append_new(small, o);
    }
    return small;
}

json_t *bitcts_bench_json(const bitcts_bench_config *cfg, const bitcts_bench_result *r)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < r->row_count; ++i) {
        json_array_append_new(rows, row_json(r, &r->rows[i]));
    }
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:f, s:I}", "schema", "bitcts-bench/2",
                          "timing", r->device_timing ? "device" : "host", "checked_with",
                          bitcts_bench_check_name(r->check), "size_bytes",
                          (json_int_t)r->size_bytes, "reps", (json_int_t)cfg->reps, "seconds",
                          r->seconds, "failures", (json_int_t)r->failures);
    if (o == NULL) {
        json_decref(rows);
        return NULL;
    }
    json_object_set_new(o, "backend", r->backend != NULL ? json_incref(r->backend) : json_null());
    json_object_set_new(o, "budget_s", cfg->budget_s > 0 ? json_real(cfg->budget_s) : json_null());
    json_object_set_new(o, "total_seconds", json_real(r->total_seconds));
    json_object_set_new(o, "complete", json_boolean(!r->in_progress && r->not_measured == 0));
    json_object_set_new(o, "in_progress", json_boolean(r->in_progress));
    json_t *missing = json_array();
    for (size_t i = 0; !r->in_progress && i < r->row_count; ++i) {
        char name[96];
        if (r->rows[i].out_of_time) {
            json_array_append_new(
                missing, json_string(bitcts_bench_row_name(&r->rows[i], name, sizeof name)));
        }
    }
    json_object_set_new(o, "not_measured", missing);
    json_object_set_new(o, "limits", limits_json(r));
    if (!r->device_timing) {
        json_object_set_new(o, "host", host_json(r));
    }
    json_object_set_new(o, "peers", peers_json(r));
    json_object_set_new(o, "results", rows);
    json_object_set_new(o, "small", small_json(r));
    json_object_set_new(o, "error", r->error[0] != '\0' ? json_string(r->error) : json_null());
    return o;
}
