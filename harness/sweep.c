/* SPDX-License-Identifier: MIT */
/* Exhaustive sweeps that only a fast backend makes practical, through the same backend ABI as
 * `bitcts run`: NOT and BIT_COUNT over every value of a 32-bit type, every shift of every 16-bit
 * value by every count (2^32 pairs), every pair of 16-bit AND/OR/XOR operands. Inputs are
 * enumerated in chunks of 2^24 elements; the expected values come from the reference, composed
 * through bit-disjointness (the result for hi|lo is built from the reference's results for hi
 * and for lo, computed once), so checking keeps pace with the backend. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* memset */

#include "bitcts/bitcts_status.h"
#include "clock.h"
#include "ref_ops.h"
#include "sweep.h"
#include "worker.h"

#define SWEEP_CHUNK_LOG2 24u
#define SWEEP_CHUNK (1u << SWEEP_CHUNK_LOG2)

typedef struct sweep {
    const bitcts_backend *backend;
    void *instance;
    uint32_t op, type, out_type, width; /* width in bits */
    bitcts_sweep_result *r;
    uint64_t *lo_table; /* reference results for the low half of an element (see check_chunk) */
} sweep;

/* Little-endian element access with a width the compiler sees at each call site (the
 * reference's loaders live in another translation unit and cannot be inlined). */
static inline uint64_t load_le(const uint8_t *p, uint32_t bytes)
{
    uint64_t v = 0;
    for (uint32_t k = 0; k < bytes; ++k) {
        v |= (uint64_t)p[k] << (8 * k);
    }
    return v;
}

static inline void store_le(uint8_t *p, uint32_t bytes, uint64_t v)
{
    for (uint32_t k = 0; k < bytes; ++k) {
        p[k] = (uint8_t)(v >> (8 * k));
    }
}

/* Fills n elements of `bytes` each: element i is base + i, or for pairs (a, b) its halves. */
static void fill(uint8_t *a_out, uint8_t *b_out, uint32_t bytes, uint64_t base, uint32_t n)
{
    const uint32_t bits = bytes * 8;
    switch (bytes) { /* constant widths let each loop vectorise */
    case 1:
        for (uint32_t i = 0; i < n; ++i) {
            store_le(a_out + i, 1, b_out != NULL ? (base + i) >> bits : base + i);
            if (b_out != NULL) {
                store_le(b_out + i, 1, base + i);
            }
        }
        break;
    case 2:
        for (uint32_t i = 0; i < n; ++i) {
            store_le(a_out + 2 * (size_t)i, 2, b_out != NULL ? (base + i) >> bits : base + i);
            if (b_out != NULL) {
                store_le(b_out + 2 * (size_t)i, 2, base + i);
            }
        }
        break;
    default:
        for (uint32_t i = 0; i < n; ++i) {
            store_le(a_out + 4 * (size_t)i, 4, base + i);
        }
        break;
    }
}

/* Element e of the sweep: a unary value, or the pair (a, b) = (e >> w, e & mask). */
static void operands(const sweep *s, uint64_t e, uint64_t *a, uint64_t *b)
{
    if (bitcts_op_input_count(s->op) == 1) {
        *a = e, *b = 0;
        return;
    }
    *a = e >> s->width;
    *b = e & ((1ull << s->width) - 1);
}

/* The backend computes one chunk: packed 1-D tensors of n elements. */
static int run_chunk(sweep *s, uint64_t base, uint32_t n, uint8_t *in[2], uint8_t *out, char *err,
                     size_t cap, double *backend_s)
{
    const uint32_t ob = bitcts_dtype_size(s->out_type);
    fill(in[0], in[1], s->width / 8, base, n);
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = s->op;
    d.input_count = bitcts_op_input_count(s->op);
    for (uint32_t t = 0; t < d.input_count; ++t) {
        bitcts_tensor_make_packed(s->type, 1, &n, &d.inputs[t]);
    }
    bitcts_tensor_make_packed(s->out_type, 1, &n, &d.output);
    bitcts_abi_tensor tensors[3];
    bitcts_abi_operator_desc desc;
    bitcts_worker_abi_desc(&d, tensors, &desc);
    void *op = NULL;
    const void *inputs[2] = {in[0], in[1]};
    memset(out, 0xA5, (size_t)n * ob);
    const double t0 = bitcts_clock_now();
    int32_t st = s->backend->table->operator_create(s->instance, &desc, &op);
    if (st == BITCTS_ABI_OK) {
        st = s->backend->table->operator_execute(s->instance, op, inputs, out);
        s->backend->table->operator_destroy(s->instance, op);
    }
    *backend_s += bitcts_clock_now() - t0;
    if (st != BITCTS_ABI_OK) {
        snprintf(err, cap, "the backend returned status %d (%s)", st, bitcts_status_name(st));
    }
    return st;
}

static uint64_t ref(const sweep *s, uint64_t a, uint64_t b, int policy)
{
    return bitcts_ref_element(s->op, s->width, a, b, policy);
}

/* Tables of reference results used by expected(): built once per sweep. */
static int build_tables(sweep *s)
{
    const int unary = bitcts_op_input_count(s->op) == 1;
    const int shift = bitcts_op_is_shift(s->op);
    const size_t n = unary   ? (s->width > SWEEP_CHUNK_LOG2 ? SWEEP_CHUNK : (size_t)1 << s->width)
                     : shift ? 0
                             : 2 * 65536;
    s->lo_table = calloc(n + 1, sizeof *s->lo_table);
    if (s->lo_table == NULL) {
        return -1;
    }
    for (size_t i = 0; unary && i < n; ++i) { /* the low 24 bits (or every value) */
        s->lo_table[i] = ref(s, i, 0, BITCTS_SHIFT_POLICY_SATURATE);
    }
    for (size_t x = 0; !unary && !shift && x < 256; ++x) {
        for (size_t y = 0; y < 256; ++y) { /* bitwise ops byte by byte: low and high byte */
            s->lo_table[x * 256 + y] = ref(s, x, y, BITCTS_SHIFT_POLICY_SATURATE);
            s->lo_table[65536 + x * 256 + y] = ref(s, x << 8, y << 8, BITCTS_SHIFT_POLICY_SATURATE);
        }
    }
    return 0;
}

static uint64_t load_out(const uint8_t *out, uint32_t ob, uint32_t i)
{
    return ob == 1   ? load_le(out + i, 1)
           : ob == 2 ? load_le(out + 2 * (size_t)i, 2)
                     : load_le(out + 4 * (size_t)i, 4);
}

/* 32-bit unary chunk: expected = f(hi) composed with the table's f(lo) (bits are disjoint:
 * COUNT adds, NOT keeps each half's own bits). */
static inline uint64_t unary32_expected(int count, uint64_t hi, uint64_t lo)
{
    const uint64_t m = SWEEP_CHUNK - 1;
    return count ? hi + lo : (hi & ~m) | (lo & m);
}

/* A tight counting loop; the first mismatch is looked for on a second pass only when there is
 * one. */
static void check_unary32(sweep *s, uint64_t base, uint32_t n, const uint8_t *out, uint32_t ob)
{
    const uint64_t hi = ref(s, base, 0, BITCTS_SHIFT_POLICY_SATURATE);
    const int count = s->op == BITCTS_OP_BIT_COUNT;
    uint64_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
        bad += load_out(out, ob, i) != unary32_expected(count, hi, s->lo_table[i]);
    }
    for (uint32_t i = 0; bad && s->r->mismatches == 0 && i < n; ++i) {
        if (load_out(out, ob, i) != unary32_expected(count, hi, s->lo_table[i])) {
            s->r->first_bad = base + i;
            break;
        }
    }
    s->r->mismatches += bad;
}

static uint64_t expected_of(sweep *s, uint64_t e, uint64_t *by_count, uint64_t *current_a,
                            int *recorded)
{
    const int shift = bitcts_op_is_shift(s->op);
    uint64_t a, b;
    operands(s, e, &a, &b);
    *recorded = 0;
    if (bitcts_op_input_count(s->op) == 1) {
        return s->lo_table[e];
    }
    if (!shift) {
        return s->width == 8 ? ref(s, a, b, BITCTS_SHIFT_POLICY_SATURATE)
                             : (s->lo_table[65536 + (a >> 8) * 256 + (b >> 8)] & 0xFF00) |
                                   (s->lo_table[(a & 255) * 256 + (b & 255)] & 0xFF);
    }
    if (a != *current_a) { /* the in-range results of this value, once */
        *current_a = a;
        for (uint32_t c = 0; c < s->width; ++c) {
            by_count[c] = ref(s, a, c, BITCTS_SHIFT_POLICY_SATURATE);
        }
    }
    *recorded = b >= s->width;
    return by_count[b & (s->width - 1)]; /* for recorded elements: the mask policy's result */
}

/* Checks one chunk; counts mismatches of asserted elements and classifies shift results for
 * counts >= the width (mask: the count & (width - 1) result; saturate: 0). */
static void check_chunk(sweep *s, uint64_t base, uint32_t n, const uint8_t *out)
{
    const uint32_t ob = bitcts_dtype_size(s->out_type);
    if (bitcts_op_input_count(s->op) == 1 && s->width > SWEEP_CHUNK_LOG2) {
        check_unary32(s, base, n, out, ob);
        return;
    }
    uint64_t by_count[64] = {0}, current_a = ~0ull;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t e = base + i, actual = load_out(out, ob, i);
        int recorded = 0;
        const uint64_t expected = expected_of(s, e, by_count, &current_a, &recorded);
        if (recorded) {
            ++s->r->oob;
            s->r->oob_mask += actual == expected;
            s->r->oob_saturate += actual == 0;
        } else if (actual != expected && s->r->mismatches++ == 0) {
            s->r->first_bad = e;
        }
    }
}

int bitcts_sweep_check(const bitcts_sweep_config *cfg, uint64_t *total, char *err, size_t cap)
{
    const uint32_t width = bitcts_dtype_size(cfg->type) * 8;
    const int unary = bitcts_op_input_count(cfg->op) == 1;
    if (bitcts_op_index(cfg->op) < 0 || width == 0 ||
        bitcts_fl_required(cfg->op, cfg->type, cfg->out_type, 1) == 0) {
        snprintf(err, cap, "%s does not take %s -> %s", bitcts_op_name(cfg->op),
                 bitcts_dtype_name(cfg->type), bitcts_dtype_name(cfg->out_type));
        return BITCTS_E_INVALID_ARGUMENT;
    }
    if (width > (unary ? 32u : 16u)) {
        snprintf(err, cap, "%s over %s is not sweepable (at most %u-bit types)",
                 bitcts_op_name(cfg->op), bitcts_dtype_name(cfg->type), unary ? 32u : 16u);
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *total = 1ull << (unary ? width : 2 * width);
    return BITCTS_OK;
}

/* Every chunk through the backend, each checked. */
static int sweep_chunks(sweep *s, uint8_t *in[2], uint8_t *out, char *err, size_t cap)
{
    const uint64_t total = s->r->total;
    const uint32_t chunk = total < SWEEP_CHUNK ? (uint32_t)total : SWEEP_CHUNK;
    for (uint64_t base = 0; base < total; base += chunk) {
        if (run_chunk(s, base, chunk, in, out, err, cap, &s->r->backend_seconds) != BITCTS_ABI_OK) {
            s->r->failed_chunk = base;
            return BITCTS_E_BACKEND_FAILED;
        }
        check_chunk(s, base, chunk, out);
    }
    return BITCTS_OK;
}

int bitcts_sweep_run(const bitcts_sweep_config *cfg, bitcts_sweep_result *out, char *err,
                     size_t cap)
{
    memset(out, 0, sizeof *out);
    const double t0 = bitcts_clock_now();
    sweep s = {.op = cfg->op,
               .type = cfg->type,
               .out_type = cfg->out_type,
               .width = bitcts_dtype_size(cfg->type) * 8,
               .r = out};
    int st = bitcts_sweep_check(cfg, &out->total, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    bitcts_backend backend;
    if ((st = bitcts_backend_open(cfg->backend_spec, &cfg->options, &backend, err, cap)) !=
        BITCTS_OK) {
        return st;
    }
    s.backend = &backend;
    const size_t chunk_bytes = (size_t)SWEEP_CHUNK * 8 + 64;
    const int binary = bitcts_op_input_count(s.op) == 2;
    uint8_t *in[2] = {malloc(chunk_bytes), binary ? malloc(chunk_bytes) : NULL};
    uint8_t *outbuf = malloc(chunk_bytes);
    if (in[0] == NULL || outbuf == NULL || (binary && in[1] == NULL) || build_tables(&s) != 0) {
        snprintf(err, cap, "out of memory");
        st = BITCTS_E_OUT_OF_MEMORY;
    } else {
        st = bitcts_backend_instance(&backend, &s.instance, err, cap);
    }
    if (st == BITCTS_OK) {
        st = sweep_chunks(&s, in, outbuf, err, cap);
    }
    if (s.instance != NULL) {
        backend.table->instance_destroy(s.instance);
    }
    bitcts_backend_close(&backend);
    free(in[0]);
    free(in[1]);
    free(outbuf);
    free(s.lo_table);
    out->seconds = bitcts_clock_now() - t0;
    return st;
}
