/* SPDX-License-Identifier: MIT */
/* Differential test of the CPU backend: every variant this CPU supports runs every operator x
 * type on random shapes of rank 1-8 in packed, padded, broadcast, transposed, mixed and
 * in-place layouts, and must match bitcts_ref_execute bit for bit, write nothing outside the
 * output's logical elements and leave its inputs alone. Also: sizes across the SIMD widths with
 * and without non-temporal stores, transposed inputs over several tiles with ragged edges,
 * exhaustive BIT_COUNT over uint16, threading, options, variant forcing, capabilities and
 * descriptor validation. Exit 0 pass, 1 fail. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv */
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitcts/bitcts_plugin.h"
#include "bitcts/bitcts_status.h"
#include "check.h"
#include "cpu_backend.h"
#include "cpu_dispatch.h"
#include "cpu_features.h"
#include "ref_ops.h"
#include "tensor_model.h"

#define GUARD 64u          /* poisoned bytes before and after every buffer */
#define CASE_ELEMENTS 6000 /* element budget of one random case */
#define MAX_REPORTS 12

static const bitcts_plugin_table *table;
static int reports;

static uint64_t rng_state = 0x0B17C75C0FFEEull;
static uint64_t splitmix64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t rnd(uint32_t n)
{
    return n ? (uint32_t)(splitmix64() % n) : 0;
}

/* ---- instances ---- */

static void *instance_new(const char *variant, const char *threads, const char *nt)
{
    const char *keys[3];
    const char *values[3];
    uint32_t n = 0;
    if (variant != NULL) {
        keys[n] = "variant";
        values[n++] = variant;
    }
    if (threads != NULL) {
        keys[n] = "threads";
        values[n++] = threads;
    }
    if (nt != NULL) {
        keys[n] = "nt";
        values[n++] = nt;
    }
    const bitcts_abi_create_info info = {sizeof info, n, keys, values};
    void *inst = NULL;
    const int32_t rc = table->instance_create(&info, &inst);
    if (rc != BITCTS_ABI_OK) {
        char err[256];
        (void)bitcts_cpu_check_options(&info, err, sizeof err);
        fprintf(stderr, "instance_create(variant=%s) failed: %d %s\n",
                variant != NULL ? variant : "-", rc, err);
        return NULL;
    }
    return inst;
}

/* ---- descriptors ---- */

static uint32_t width_of(uint32_t type)
{
    return bitcts_dtype_size(type);
}

static void to_abi(const bitcts_tensor_desc *d, bitcts_abi_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->struct_size = sizeof *t;
    t->data_type = d->data_type;
    t->flags = d->flags;
    t->dimension_count = d->dimension_count;
    t->sizes = d->sizes;
    t->strides = d->has_strides ? d->strides : NULL;
    t->total_tensor_size_in_bytes = d->total_tensor_size_in_bytes;
    t->guaranteed_base_offset_alignment = d->guaranteed_base_offset_alignment;
}

/* Layout kinds of one tensor. */
enum { L_PACKED, L_PADDED, L_BROADCAST, L_TRANSPOSED, L_KINDS };
/* Layout classes of one case. */
enum { C_PACKED, C_PADDED, C_BROADCAST, C_TRANSPOSED, C_MIXED, C_INPLACE, C_CLASSES };
static const char *const class_names[C_CLASSES] = {"packed",     "padded", "broadcast",
                                                   "transposed", "mixed",  "in_place"};

/* Strides of `kind` for the sizes in d (broadcast only for inputs). */
static void make_strides(bitcts_tensor_desc *d, int kind)
{
    const uint32_t rank = d->dimension_count;
    uint32_t order[BITCTS_MAX_DIMS]; /* physical order, outermost first */
    for (uint32_t k = 0; k < rank; ++k) {
        order[k] = k;
    }
    if (kind == L_TRANSPOSED) {
        for (uint32_t k = rank; k > 1; --k) { /* Fisher-Yates */
            const uint32_t j = rnd(k);
            const uint32_t t = order[k - 1];
            order[k - 1] = order[j];
            order[j] = t;
        }
        if (rank >= 2 && order[rank - 1] == rank - 1) { /* make the innermost dim move */
            order[rank - 1] = order[0];
            order[0] = rank - 1;
        }
    }
    d->has_strides = kind != L_PACKED;
    uint32_t s = (kind == L_PADDED && rnd(4) == 0) ? 2 : 1;
    for (uint32_t k = rank; k-- > 0;) {
        const uint32_t dim = order[k];
        const int zero = kind == L_BROADCAST && (rnd(2) == 0 || d->sizes[dim] == 1);
        d->strides[dim] = zero ? 0 : s;
        if (!zero) {
            s = s * d->sizes[dim] + (kind == L_PADDED ? rnd(4) : 0);
        }
    }
}

static void finish_tensor(bitcts_tensor_desc *d)
{
    uint64_t bytes = 0;
    CHECK(bitcts_tensor_calc_buffer_size(d, &bytes) == BITCTS_OK);
    d->total_tensor_size_in_bytes = bytes + 4 * rnd(3); /* sometimes more than the minimum */
}

/* Random sizes of rank r: the innermost dims cross the SIMD widths, the total stays small. */
static const uint32_t edge_sizes[] = {1,  2,  3,  7,  8,   15,  16,  17,  31,  32,  33,  63,
                                      64, 65, 95, 96, 127, 128, 129, 255, 256, 257, 1000};

static void make_sizes(uint32_t *sizes, uint32_t rank)
{
    uint32_t total = 1;
    for (uint32_t k = rank; k-- > 0;) {
        uint32_t s = edge_sizes[rnd(sizeof edge_sizes / sizeof edge_sizes[0])];
        if (k + 2 < rank || (uint64_t)total * s > CASE_ELEMENTS) {
            s = 1 + rnd(4);
        }
        if ((uint64_t)total * s > CASE_ELEMENTS) {
            s = 1;
        }
        sizes[k] = s;
        total *= s;
    }
}

static void make_case(bitcts_op_desc *d, uint32_t op, uint32_t in_type, uint32_t out_type,
                      int klass)
{
    memset(d, 0, sizeof *d);
    d->op = op;
    d->input_count = bitcts_op_input_count(op);
    const uint32_t rank = 1 + rnd(BITCTS_MAX_DIMS);
    uint32_t sizes[BITCTS_MAX_DIMS];
    make_sizes(sizes, rank);
    bitcts_tensor_desc *all[3] = {&d->output, &d->inputs[0], &d->inputs[1]};
    for (uint32_t t = 0; t <= d->input_count; ++t) {
        all[t]->data_type = t == 0 ? out_type : in_type;
        all[t]->dimension_count = rank;
        memcpy(all[t]->sizes, sizes, sizeof sizes);
        int kind = L_PACKED;
        switch (klass) {
        case C_PADDED: kind = L_PADDED; break;
        case C_BROADCAST: kind = t == 0 ? L_PACKED : (rnd(3) ? L_BROADCAST : L_PACKED); break;
        case C_TRANSPOSED: kind = (t == 0 && rnd(3)) ? L_PACKED : L_TRANSPOSED; break;
        case C_MIXED: kind = (int)rnd(L_KINDS); break;
        case C_INPLACE: kind = t == 0 ? (int)rnd(L_KINDS) : L_PACKED; break;
        default: break;
        }
        if (t == 0 && kind == L_BROADCAST) {
            kind = L_PADDED;
        }
        make_strides(all[t], kind);
        if (klass == C_INPLACE && t > 0) {
            *all[t] = d->output; /* identical layout for every input */
        }
        all[t]->data_type = t == 0 ? out_type : in_type;
        finish_tensor(all[t]);
    }
    if (klass == C_INPLACE) {
        for (uint32_t t = 1; t <= d->input_count; ++t) {
            d->inputs[t - 1].total_tensor_size_in_bytes = d->output.total_tensor_size_in_bytes;
        }
    }
}

/* ---- buffers ---- */

/* Random bytes; shift counts (B of a shift) mostly below the width, some at or just above it,
 * some anywhere. */
static void fill_input(uint8_t *p, size_t bytes, int counts, uint32_t w)
{
    for (size_t i = 0; i < bytes; ++i) {
        p[i] = (uint8_t)splitmix64();
    }
    if (!counts) {
        return;
    }
    for (size_t i = 0; i + w <= bytes; i += w) {
        const uint32_t r = rnd(10);
        const uint64_t v = r < 7 ? rnd(8 * w) : r < 9 ? 8 * w + rnd(3) : splitmix64();
        bitcts_ref_store(p + i, w, v);
    }
}

static uint8_t *alloc_guarded(size_t bytes)
{
    uint8_t *p = malloc(bytes + 2 * GUARD + 64);
    if (p != NULL) {
        for (size_t i = 0; i < bytes + 2 * GUARD + 64; ++i) {
            p[i] = (uint8_t)(0xA5 ^ (i * 29));
        }
    }
    return p;
}

static void report_mismatch(const char *what, const char *label, const bitcts_op_desc *d,
                            const uint8_t *got, const uint8_t *want, size_t total, size_t body)
{
    size_t i = 0;
    while (i < total && got[i] == want[i]) {
        ++i;
    }
    ++check_failures;
    if (reports++ >= MAX_REPORTS) {
        return;
    }
    const char *where = i < GUARD ? "guard before" : i >= GUARD + body ? "guard after" : "body";
    fprintf(stderr,
            "MISMATCH %s [%s] %s in=%s out=%s rank=%u: byte %zu (%s) got 0x%02x want 0x%02x\n",
            what, label, bitcts_op_name(d->op), bitcts_dtype_name(d->inputs[0].data_type),
            bitcts_dtype_name(d->output.data_type), d->output.dimension_count, i, where, got[i],
            want[i]);
    fprintf(stderr, "  sizes");
    for (uint32_t k = 0; k < d->output.dimension_count; ++k) {
        fprintf(stderr, " %u", d->output.sizes[k]);
    }
    const bitcts_tensor_desc *t[3] = {&d->output, &d->inputs[0], &d->inputs[1]};
    for (uint32_t j = 0; j <= d->input_count; ++j) {
        fprintf(stderr, " | %s strides", j == 0 ? "out" : j == 1 ? "a" : "b");
        for (uint32_t k = 0; k < d->output.dimension_count; ++k) {
            fprintf(stderr, " %u", t[j]->has_strides ? t[j]->strides[k] : 0xFFFFFFFFu);
        }
    }
    fprintf(stderr, "\n");
}

/* Runs one case on one instance and compares with the reference. in_place: the output is the
 * buffer of input 0 (or 1 when in_place == 2). `shift` offsets every buffer by that many
 * elements from a 64-byte boundary, to move the alignment. */
static void run_case(void *inst, const bitcts_op_desc *d, int in_place, uint32_t shift,
                     const char *label)
{
    const uint32_t n_in = d->input_count;
    const int is_shift = bitcts_op_is_shift(d->op);
    const uint32_t w_in = width_of(d->inputs[0].data_type);
    const size_t off = GUARD + (size_t)shift * width_of(d->output.data_type);
    uint8_t *in[2] = {NULL, NULL};
    uint8_t *saved[2] = {NULL, NULL};
    size_t in_total[2] = {0, 0};
    for (uint32_t k = 0; k < n_in; ++k) {
        in_total[k] = (size_t)d->inputs[k].total_tensor_size_in_bytes + 2 * GUARD + 64;
        in[k] = alloc_guarded(in_total[k] - 2 * GUARD - 64);
        saved[k] = malloc(in_total[k]);
        fill_input(in[k] + off, (size_t)d->inputs[k].total_tensor_size_in_bytes, is_shift && k == 1,
                   w_in);
        memcpy(saved[k], in[k], in_total[k]);
    }
    const size_t out_body = (size_t)d->output.total_tensor_size_in_bytes;
    const size_t out_total = out_body + 2 * GUARD + 64;
    uint8_t *out = in_place ? in[in_place - 1] : alloc_guarded(out_body);
    uint8_t *want = malloc(out_total);
    memcpy(want, out, out_total);
    const void *ref_in[2] = {saved[0] + off, n_in > 1 ? saved[1] + off : NULL};
    CHECK(bitcts_ref_execute(d, ref_in, want + off, BITCTS_SHIFT_POLICY_SATURATE) == BITCTS_OK);

    bitcts_abi_tensor abi_in[2];
    bitcts_abi_tensor abi_out;
    for (uint32_t k = 0; k < n_in; ++k) {
        to_abi(&d->inputs[k], &abi_in[k]);
    }
    to_abi(&d->output, &abi_out);
    const bitcts_abi_operator_desc od = {sizeof od, d->op, n_in, 0, abi_in, &abi_out};
    void *op = NULL;
    int32_t rc = table->operator_create(inst, &od, &op);
    if (rc != BITCTS_ABI_OK) {
        ++check_failures;
        fprintf(stderr, "[%s] operator_create failed %d: %s\n", label, rc,
                table->instance_last_error(inst));
    } else {
        const void *args[2] = {in[0] + off, n_in > 1 ? in[1] + off : NULL};
        rc = table->operator_execute(inst, op, args, out + off);
        CHECK(rc == BITCTS_ABI_OK);
        table->operator_destroy(inst, op);
        ++check_count;
        if (memcmp(out, want, out_total) != 0) {
            report_mismatch("output", label, d, out, want, out_total, out_body + off - GUARD);
        }
        for (uint32_t k = 0; k < n_in; ++k) {
            ++check_count;
            if (in[k] != out && memcmp(in[k], saved[k], in_total[k]) != 0) {
                report_mismatch("input changed", label, d, in[k], saved[k], in_total[k],
                                in_total[k] - 2 * GUARD - 64);
            }
        }
    }
    for (uint32_t k = 0; k < n_in; ++k) {
        free(in[k]);
        free(saved[k]);
    }
    if (!in_place) {
        free(out);
    }
    free(want);
}

/* ---- the differential sweep ---- */

static const uint32_t bitwise_ops[4] = {BITCTS_OP_BIT_AND, BITCTS_OP_BIT_OR, BITCTS_OP_BIT_XOR,
                                        BITCTS_OP_BIT_NOT};
static const uint32_t shift_types[4] = {BITCTS_DT_UINT8, BITCTS_DT_UINT16, BITCTS_DT_UINT32,
                                        BITCTS_DT_UINT64};

static void random_cases(void *inst, const char *variant, uint32_t op, uint32_t in_type,
                         uint32_t out_type)
{
    for (int klass = 0; klass < C_CLASSES; ++klass) {
        if (klass == C_INPLACE && op == BITCTS_OP_BIT_COUNT) {
            continue;
        }
        for (int rep = 0; rep < 3; ++rep) {
            bitcts_op_desc d;
            make_case(&d, op, in_type, out_type, klass);
            char label[96];
            snprintf(label, sizeof label, "%s %s #%d", variant, class_names[klass], rep);
            const int in_place = klass == C_INPLACE ? 1 + (int)rnd(d.input_count) : 0;
            run_case(inst, &d, in_place, rnd(4), label);
        }
    }
}

static void test_variant_random(void *inst, const char *variant)
{
    for (int i = 0; i < 4; ++i) {
        for (uint32_t t = 1; t < BITCTS_DT_COUNT; ++t) {
            random_cases(inst, variant, bitwise_ops[i], t, t);
        }
    }
    for (uint32_t t = 1; t < BITCTS_DT_COUNT; ++t) {
        random_cases(inst, variant, BITCTS_OP_BIT_COUNT, t, BITCTS_DT_UINT8);
        random_cases(inst, variant, BITCTS_OP_BIT_COUNT, t, BITCTS_DT_UINT32);
    }
    for (int i = 0; i < 4; ++i) {
        random_cases(inst, variant, BITCTS_OP_BIT_SHIFT_LEFT, shift_types[i], shift_types[i]);
        random_cases(inst, variant, BITCTS_OP_BIT_SHIFT_RIGHT, shift_types[i], shift_types[i]);
    }
}

/* 1-D spans of every length 1..300 at every alignment shift, plain and with a broadcast B:
 * the heads, bodies and tails of each kernel. */
static void make_span(bitcts_op_desc *d, uint32_t op, uint32_t in_type, uint32_t out_type,
                      uint32_t n, int broadcast_b)
{
    memset(d, 0, sizeof *d);
    d->op = op;
    d->input_count = bitcts_op_input_count(op);
    bitcts_tensor_desc *all[3] = {&d->output, &d->inputs[0], &d->inputs[1]};
    for (uint32_t t = 0; t <= d->input_count; ++t) {
        all[t]->data_type = t == 0 ? out_type : in_type;
        all[t]->dimension_count = 1;
        all[t]->sizes[0] = n;
        all[t]->has_strides = t == 2 && broadcast_b;
        finish_tensor(all[t]);
    }
}

static void span_cases(void *inst, const char *label, uint32_t op, uint32_t in_type,
                       uint32_t out_type)
{
    for (uint32_t n = 1; n <= 300; n += (n < 140 ? 1 : 7)) {
        for (int bcast = 0; bcast <= (bitcts_op_input_count(op) == 2); ++bcast) {
            bitcts_op_desc d;
            make_span(&d, op, in_type, out_type, n, bcast);
            run_case(inst, &d, 0, n % 8, label);
        }
    }
}

static void test_variant_spans(void *inst, const char *label)
{
    for (int i = 0; i < 4; ++i) {
        span_cases(inst, label, bitwise_ops[i], shift_types[i], shift_types[i]);
        span_cases(inst, label, bitwise_ops[(i + 1) % 4], shift_types[i], shift_types[i]);
        span_cases(inst, label, BITCTS_OP_BIT_SHIFT_LEFT, shift_types[i], shift_types[i]);
        span_cases(inst, label, BITCTS_OP_BIT_SHIFT_RIGHT, shift_types[i], shift_types[i]);
        span_cases(inst, label, BITCTS_OP_BIT_COUNT, shift_types[i], BITCTS_DT_UINT8);
        span_cases(inst, label, BITCTS_OP_BIT_COUNT, shift_types[i], BITCTS_DT_UINT32);
    }
}

/* ---- transposed tiles: several per dim, ragged last ones, odd strides, batches ---- */

/* The walk cuts a transposed pair into tiles of 64 output columns by 512 bytes of A's columns
 * (512 / w rows); these shapes have two or three tiles along each, the last one ragged or
 * whole, so an index swapped or an edge dropped in the gather, its transposes or the tile
 * order shows. batch x rows x cols: A column-major within each batch, its columns `pad`
 * elements apart beyond `rows` and its batches `pad` beyond that (odd pads misalign the
 * columns); the output's rows `opad` elements beyond `cols`; B packed (b_kind 0), transposed
 * like A (1: both inputs gathered) or one row broadcast over rows and batches (2). */
typedef struct tile_shape {
    uint32_t op, out_type; /* out_type 0: the input's */
    uint32_t batch, rows_extra, row_tiles, cols, pad, opad, b_kind;
} tile_shape;

static void tile_case(bitcts_op_desc *d, const tile_shape *s, uint32_t in_type)
{
    memset(d, 0, sizeof *d);
    d->op = s->op;
    d->input_count = bitcts_op_input_count(s->op);
    const uint32_t rows = s->row_tiles * (512 / width_of(in_type)) + s->rows_extra;
    const uint32_t sizes[3] = {s->batch, rows, s->cols};
    bitcts_tensor_desc *all[3] = {&d->output, &d->inputs[0], &d->inputs[1]};
    for (uint32_t t = 0; t <= d->input_count; ++t) {
        all[t]->data_type = t == 0 && s->out_type != 0 ? s->out_type : in_type;
        all[t]->dimension_count = 3;
        memcpy(all[t]->sizes, sizes, sizeof sizes);
    }
    const uint32_t col = rows + s->pad;
    const uint32_t a_strides[3] = {col * s->cols + s->pad, 1, col};
    const uint32_t b_strides[3] = {0, 0, 1};
    const uint32_t o_strides[3] = {rows * (s->cols + s->opad), s->cols + s->opad, 1};
    d->inputs[0].has_strides = 1;
    memcpy(d->inputs[0].strides, a_strides, sizeof a_strides);
    if (d->input_count == 2 && s->b_kind != 0) {
        d->inputs[1].has_strides = 1;
        memcpy(d->inputs[1].strides, s->b_kind == 1 ? a_strides : b_strides, sizeof a_strides);
    }
    if (s->opad != 0) {
        d->output.has_strides = 1;
        memcpy(d->output.strides, o_strides, sizeof o_strides);
    }
    for (uint32_t t = 0; t <= d->input_count; ++t) {
        finish_tensor(all[t]);
    }
}

static void test_variant_tiles(void *inst, const char *label)
{
    static const tile_shape shapes[] = {
        {BITCTS_OP_BIT_XOR, 0, 2, 3, 1, 69, 3, 0, 0},
        {BITCTS_OP_BIT_AND, 0, 1, 3, 2, 133, 1, 3, 1},
        {BITCTS_OP_BIT_OR, 0, 2, 0, 1, 128, 0, 0, 2},
        {BITCTS_OP_BIT_NOT, 0, 3, 1, 1, 65, 5, 1, 0},
        {BITCTS_OP_BIT_SHIFT_LEFT, 0, 1, 17, 1, 70, 0, 0, 0},
        {BITCTS_OP_BIT_SHIFT_RIGHT, 0, 2, 0, 1, 64, 2, 0, 1},
        {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT8, 2, 3, 1, 69, 3, 0, 0},
        {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, 1, 3, 2, 133, 2, 3, 0},
    };
    for (uint32_t i = 0; i < 4; ++i) {
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
            bitcts_op_desc d;
            tile_case(&d, &shapes[k], shift_types[i]);
            char text[96];
            snprintf(text, sizeof text, "%s tiles #%zu", label, k);
            run_case(inst, &d, 0, i, text);
        }
    }
}

/* ---- BIT_COUNT exhaustive over uint16, a slice of uint32, random uint64 ---- */

static uint32_t popcount_slow(uint64_t v)
{
    uint32_t c = 0;
    for (; v; v &= v - 1) {
        ++c;
    }
    return c;
}

static void count_values(void *inst, const char *variant, uint32_t in_type, uint32_t out_type,
                         const uint8_t *values, uint32_t n)
{
    const uint32_t w = width_of(in_type);
    const uint32_t ow = width_of(out_type);
    bitcts_tensor_desc tin = {0};
    bitcts_tensor_desc tout = {0};
    tin.data_type = in_type;
    tout.data_type = out_type;
    tin.dimension_count = tout.dimension_count = 1;
    tin.sizes[0] = tout.sizes[0] = n;
    finish_tensor(&tin);
    finish_tensor(&tout);
    bitcts_abi_tensor ai, ao;
    to_abi(&tin, &ai);
    to_abi(&tout, &ao);
    const bitcts_abi_operator_desc od = {sizeof od, BITCTS_OP_BIT_COUNT, 1, 0, &ai, &ao};
    uint8_t *out = calloc(1, (size_t)tout.total_tensor_size_in_bytes);
    void *op = NULL;
    CHECK(table->operator_create(inst, &od, &op) == BITCTS_ABI_OK);
    const void *args[1] = {values};
    CHECK(op != NULL && table->operator_execute(inst, op, args, out) == BITCTS_ABI_OK);
    table->operator_destroy(inst, op);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t got = bitcts_ref_load(out + (size_t)i * ow, ow);
        const uint64_t want = popcount_slow(bitcts_ref_load(values + (size_t)i * w, w));
        if (got != want && bad++ < 3) {
            fprintf(stderr, "COUNT %s %s->%s element %u: got %llu want %llu\n", variant,
                    bitcts_dtype_name(in_type), bitcts_dtype_name(out_type), i,
                    (unsigned long long)got, (unsigned long long)want);
        }
    }
    ++check_count;
    check_failures += bad != 0;
    free(out);
}

static void test_count_exhaustive(void *inst, const char *variant)
{
    const uint32_t n16 = 65536;
    const uint32_t n32 = 1u << 20;
    uint8_t *v = malloc((size_t)n32 * 4 + 8);
    for (uint32_t i = 0; i < n16; ++i) {
        bitcts_ref_store(v + 2 * i, 2, i);
    }
    for (uint32_t o = 0; o < 2; ++o) {
        const uint32_t out_type = o ? BITCTS_DT_UINT32 : BITCTS_DT_UINT8;
        count_values(inst, variant, BITCTS_DT_UINT16, out_type, v, n16);
        count_values(inst, variant, BITCTS_DT_INT16, out_type, v, n16);
        count_values(inst, variant, BITCTS_DT_FLOAT16, out_type, v, n16);
    }
    for (uint32_t i = 0; i < n16 * 2; ++i) { /* every uint8 value, many times */
        v[i] = (uint8_t)i;
    }
    count_values(inst, variant, BITCTS_DT_UINT8, BITCTS_DT_UINT8, v, n16 * 2);
    count_values(inst, variant, BITCTS_DT_INT8, BITCTS_DT_UINT32, v, n16 * 2);
    for (uint32_t i = 0; i < n32; ++i) { /* low 16 bits exhaustive under varied high halves */
        bitcts_ref_store(v + 4 * (size_t)i, 4, (uint32_t)i * 0x9E3779B1u ^ (i >> 4));
    }
    count_values(inst, variant, BITCTS_DT_UINT32, BITCTS_DT_UINT8, v, n32);
    count_values(inst, variant, BITCTS_DT_FLOAT32, BITCTS_DT_UINT32, v, n32);
    for (uint32_t i = 0; i < n32 / 2; ++i) {
        bitcts_ref_store(v + 8 * (size_t)i, 8, splitmix64() >> rnd(64));
    }
    count_values(inst, variant, BITCTS_DT_UINT64, BITCTS_DT_UINT8, v, n32 / 2);
    count_values(inst, variant, BITCTS_DT_INT64, BITCTS_DT_UINT32, v, n32 / 2);
    free(v);
}

/* ---- threads: a big tensor multi-threaded equals single-threaded and the reference ---- */

static void big_case(bitcts_op_desc *d, uint32_t op, uint32_t type, uint32_t out_type,
                     int transposed)
{
    memset(d, 0, sizeof *d);
    d->op = op;
    d->input_count = bitcts_op_input_count(op);
    const uint32_t sizes[3] = {7, 700, 653}; /* 3.2 M elements */
    bitcts_tensor_desc *all[3] = {&d->output, &d->inputs[0], &d->inputs[1]};
    for (uint32_t t = 0; t <= d->input_count; ++t) {
        all[t]->data_type = t == 0 ? out_type : type;
        all[t]->dimension_count = 3;
        memcpy(all[t]->sizes, sizes, sizeof sizes);
        if (transposed && t == 1) {
            all[t]->has_strides = 1;
            all[t]->strides[0] = 700 * 653;
            all[t]->strides[1] = 1;
            all[t]->strides[2] = 700;
        }
        finish_tensor(all[t]);
    }
}

static void run_on(void *inst, const bitcts_op_desc *d, uint8_t *const *in, uint8_t *out)
{
    bitcts_abi_tensor ai[2], ao;
    for (uint32_t k = 0; k < d->input_count; ++k) {
        to_abi(&d->inputs[k], &ai[k]);
    }
    to_abi(&d->output, &ao);
    const bitcts_abi_operator_desc od = {sizeof od, d->op, d->input_count, 0, ai, &ao};
    void *op = NULL;
    CHECK(table->operator_create(inst, &od, &op) == BITCTS_ABI_OK);
    const void *args[2] = {in[0], in[1]};
    CHECK(op != NULL && table->operator_execute(inst, op, args, out) == BITCTS_ABI_OK);
    table->operator_destroy(inst, op);
}

/* Under ThreadSanitizer (tools/test.sh's tsan lane) the one-thread instance's tests are left
 * out: a race needs two threads, and every other build runs them. */
#if defined(__SANITIZE_THREAD__)
#define RACES_ONLY 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RACES_ONLY 1
#endif
#endif
#ifndef RACES_ONLY
#define RACES_ONLY 0
#endif

static void test_threads(const char *variant)
{
    void *one = instance_new(variant, "1", NULL);
    void *many = instance_new(variant, "4", NULL);
    void *many_nt = instance_new(variant, "3", "always");
    CHECK(one != NULL && many != NULL && many_nt != NULL);
    if (one == NULL || many == NULL || many_nt == NULL) {
        return;
    }
    CHECK_EQ_STR(table->instance_info(many, "threads"), "4");
    static const uint32_t ops[3] = {BITCTS_OP_BIT_XOR, BITCTS_OP_BIT_SHIFT_LEFT,
                                    BITCTS_OP_BIT_COUNT};
    for (int i = 0; i < 6; ++i) {
        bitcts_op_desc d;
        const uint32_t type = i % 3 == 0 ? BITCTS_DT_UINT32 : BITCTS_DT_UINT8;
        big_case(&d, ops[i % 3], type, i % 3 == 2 ? BITCTS_DT_UINT32 : type, i >= 3);
        uint8_t *in[2] = {NULL, NULL};
        for (uint32_t k = 0; k < d.input_count; ++k) {
            in[k] = malloc((size_t)d.inputs[k].total_tensor_size_in_bytes);
            fill_input(in[k], (size_t)d.inputs[k].total_tensor_size_in_bytes, k == 1, 1);
        }
        const size_t ob = (size_t)d.output.total_tensor_size_in_bytes;
        uint8_t *o[4];
        for (int j = 0; j < 4; ++j) {
            o[j] = calloc(1, ob);
        }
        run_on(one, &d, in, o[0]);
        run_on(many, &d, in, o[1]);
        run_on(many_nt, &d, in, o[2]);
        const void *ref_in[2] = {in[0], in[1]};
        CHECK(bitcts_ref_execute(&d, ref_in, o[3], BITCTS_SHIFT_POLICY_SATURATE) == BITCTS_OK);
        CHECK(memcmp(o[0], o[3], ob) == 0);
        CHECK(memcmp(o[1], o[0], ob) == 0);
        CHECK(memcmp(o[2], o[0], ob) == 0);
        for (int j = 0; j < 4; ++j) {
            free(o[j]);
        }
        free(in[0]);
        free(in[1]);
    }
    table->instance_destroy(one);
    table->instance_destroy(many);
    table->instance_destroy(many_nt);
}

/* ---- the stream extension's shaped stream (the bench's limit for counts to another width) ---- */

/* dst after shaped(dst, dst_bytes, src, src_bytes) over a dst filled with `poison`. */
static int32_t shaped_into(const bitcts_abi_stream_ext *x, void *inst, uint8_t *dst, uint64_t db,
                           const uint8_t *src, uint64_t sb, uint8_t poison)
{
    memset(dst, poison, (size_t)db);
    return x->shaped(inst, dst, db, src, sb);
}

/* Every byte of dst is written (two poisons: a byte left alone keeps each) and depends on the
 * src bytes: a byte changed anywhere in src, the tail included, changes dst. */
static void shaped_case(const bitcts_abi_stream_ext *x, void *inst, const char *label,
                        uint64_t small, uint32_t ratio, int widen)
{
    const uint64_t sb = widen ? small : small * ratio, db = widen ? small * ratio : small;
    uint8_t *src = malloc((size_t)sb), *d1 = malloc((size_t)db), *d2 = malloc((size_t)db);
    CHECK(src != NULL && d1 != NULL && d2 != NULL);
    if (src == NULL || d1 == NULL || d2 == NULL) {
        free(src);
        free(d1);
        free(d2);
        return;
    }
    fill_input(src, (size_t)sb, 0, 1);
    CHECK(shaped_into(x, inst, d1, db, src, sb, 0xA5) == BITCTS_ABI_OK);
    CHECK(shaped_into(x, inst, d2, db, src, sb, 0x5A) == BITCTS_ABI_OK);
    size_t unwritten = 0;
    for (uint64_t i = 0; i < db; ++i) {
        unwritten += d1[i] != d2[i];
    }
    if (unwritten != 0) {
        fprintf(stderr, "shaped %s (%llu <- %llu bytes): %zu dst bytes not written\n", label,
                (unsigned long long)db, (unsigned long long)sb, unwritten);
        CHECK(unwritten == 0);
    }
    const uint64_t at[4] = {0, sb / 2 + 1, sb - 65 < sb ? sb - 65 : 0, sb - 1};
    for (int k = 0; k < 4; ++k) {
        src[at[k]] ^= 0x10;
        CHECK(shaped_into(x, inst, d2, db, src, sb, 0xA5) == BITCTS_ABI_OK);
        if (memcmp(d1, d2, (size_t)db) == 0) {
            fprintf(stderr, "shaped %s: src byte %llu of %llu is not read\n", label,
                    (unsigned long long)at[k], (unsigned long long)sb);
            CHECK(0);
        }
        src[at[k]] ^= 0x10;
    }
    free(src);
    free(d1);
    free(d2);
}

static void test_stream_shaped(const char *variant)
{
    void *one = instance_new(variant, "1", NULL);
    void *many_nt = instance_new(variant, "3", "always");
    const bitcts_abi_stream_ext *x = table->get_extension(BITCTS_ABI_EXT_STREAM);
    CHECK(one != NULL && many_nt != NULL && x != NULL &&
          x->struct_size >= offsetof(bitcts_abi_stream_ext, shaped) + sizeof x->shaped &&
          x->shaped != NULL);
    if (one != NULL && many_nt != NULL && x != NULL && x->shaped != NULL) {
        static const uint64_t smalls[4] = {64, 4096 * 3 + 64 * 5, 1u << 20, 100003};
        for (int inst = 0; inst < 2; ++inst) {
            for (uint32_t ratio = 1; ratio <= 8; ratio *= 2) {
                for (int k = 0; k < 4; ++k) {
                    char label[64];
                    snprintf(label, sizeof label, "%s %s", variant, inst ? "3 threads nt" : "1");
                    shaped_case(x, inst ? many_nt : one, label, smalls[k], ratio, 1);
                    shaped_case(x, inst ? many_nt : one, label, smalls[k], ratio, 0);
                }
            }
        }
        uint8_t buf[256];
        CHECK(x->shaped(one, buf, 192, buf, 64) == BITCTS_ABI_E_INVALID_ARGUMENT); /* 3 */
        CHECK(x->shaped(one, buf, 16, buf, 256) == BITCTS_ABI_E_INVALID_ARGUMENT); /* 1/16 */
        CHECK(x->shaped(one, buf, 100, buf, 64) == BITCTS_ABI_E_INVALID_ARGUMENT); /* no ratio */
        CHECK(x->shaped(one, buf, 0, buf, 64) == BITCTS_ABI_E_INVALID_ARGUMENT);   /* empty */
        CHECK(x->shaped(NULL, buf, 64, buf, 64) == BITCTS_ABI_E_INVALID_ARGUMENT); /* no inst */
    }
    table->instance_destroy(one);
    table->instance_destroy(many_nt);
}

/* ---- options, variants, capabilities, validation ---- */

static int32_t try_create(const char *key, const char *value, char *err, size_t cap)
{
    const char *keys[1] = {key};
    const char *values[1] = {value};
    const bitcts_abi_create_info info = {sizeof info, 1, keys, values};
    void *inst = NULL;
    const int32_t rc = table->instance_create(&info, &inst);
    CHECK((rc == BITCTS_ABI_OK) == (inst != NULL));
    table->instance_destroy(inst);
    CHECK(bitcts_cpu_check_options(&info, err, cap) == rc);
    return rc;
}

static void test_options(void)
{
    char err[256];
    CHECK(try_create("variant", "bogus", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(strstr(err, "unknown variant 'bogus'") != NULL);
#if defined(__x86_64__) || defined(__i386__)
    CHECK(try_create("variant", "neon", err, sizeof err) == BITCTS_ABI_E_NOT_SUPPORTED);
#else
    CHECK(try_create("variant", "avx2", err, sizeof err) == BITCTS_ABI_E_NOT_SUPPORTED);
#endif
    CHECK(strstr(err, "not built into this backend") != NULL);
    CHECK(try_create("colour", "blue", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(strstr(err, "unknown option 'colour'") != NULL);
    CHECK(try_create("threads", "0", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(try_create("threads", "2x", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(try_create("threads", "-1", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(try_create("nt", "maybe", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(try_create("threads", "3", err, sizeof err) == BITCTS_ABI_OK);
    CHECK(err[0] == '\0');
    CHECK(try_create("cpus", "0", err, sizeof err) == BITCTS_ABI_OK);
    CHECK(try_create("cpus", "0,1,2,3", err, sizeof err) == BITCTS_ABI_OK);
    CHECK(try_create("cpus", "", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(strstr(err, "option cpus=") != NULL);
    CHECK(try_create("cpus", "0,", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(try_create("cpus", "0-3", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(try_create("cpus", "4096", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);

    /* A variant whose features the CPU lacks: the dispatcher on a reduced feature mask. */
    const bitcts__cpu_variant *v = NULL;
    bitcts__cpu_kernels k;
    const uint64_t sse_only = BITCTS_CPU_FEAT_SSE2;
#if defined(__x86_64__) || defined(__i386__)
    CHECK(bitcts__cpu_dispatch_select("avx512", sse_only, &v, &k, err, sizeof err) ==
          BITCTS_ABI_E_NOT_SUPPORTED);
    if (strstr(err, "not built") == NULL) { /* unless BITCTS_CPU_VARIANTS left it out */
        CHECK_EQ_STR(err, "variant avx512 needs avx2 and avx512f and avx512bw and avx512vl, "
                          "which this CPU lacks");
    }
    CHECK(bitcts__cpu_dispatch_select(NULL, sse_only, &v, &k, err, sizeof err) == BITCTS_ABI_OK);
    if (strcmp(v->name, "sse2") == 0) { /* sse2 has no shifts: they come from scalar */
        CHECK(k.shift_left[0] == bitcts__cpu_variant_scalar.kernels.shift_left[0]);
    }
#endif
    CHECK(bitcts__cpu_dispatch_select(NULL, 0, &v, &k, err, sizeof err) == BITCTS_ABI_OK);
    CHECK_EQ_STR(v->name, "scalar");

    /* The environment selects; the option wins over it; a bad environment value fails. */
    setenv("BITCTS_CPU_VARIANT", "scalar", 1);
    void *inst = instance_new(NULL, NULL, NULL);
    CHECK(inst != NULL && strcmp(table->instance_info(inst, "variant"), "scalar") == 0);
    table->instance_destroy(inst);
    inst = instance_new("auto", NULL, NULL);
    CHECK(inst != NULL && strcmp(table->instance_info(inst, "variant"), "scalar") != 0);
    table->instance_destroy(inst);
    setenv("BITCTS_CPU_VARIANT", "nonesuch", 1);
    CHECK(try_create("threads", "1", err, sizeof err) == BITCTS_ABI_E_INVALID_ARGUMENT);
    unsetenv("BITCTS_CPU_VARIANT");
}

static void test_caps(void *inst)
{
    bitcts_abi_caps caps = {sizeof caps, 0};
    CHECK(table->query_caps(inst, &caps) == BITCTS_ABI_OK);
    CHECK_EQ_U64(caps.feature_level, 0x4100);
    bitcts_abi_op_caps oc = {sizeof oc, 0, 0, 0, 0, 0};
    CHECK(table->query_op_caps(inst, 1, &oc) == BITCTS_ABI_E_NOT_SUPPORTED);
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        CHECK(table->query_op_caps(inst, bitcts_op_all[i], &oc) == BITCTS_ABI_OK);
        CHECK_EQ_U64(oc.dimension_counts, 0x1FE);
        const int count = bitcts_op_all[i] == BITCTS_OP_BIT_COUNT;
        const int shift = bitcts_op_is_shift(bitcts_op_all[i]);
        CHECK_EQ_U64(oc.input_types, shift ? 0x438u : 0xFFEu);
        CHECK_EQ_U64(oc.output_types, count ? 0x28u : shift ? 0x438u : 0xFFEu);
        CHECK_EQ_U64(oc.flags, count ? 0u : BITCTS_ABI_CAP_IN_PLACE);
    }
    CHECK(table->instance_info(inst, "features") != NULL &&
          table->instance_info(inst, "variants") != NULL);
    CHECK(table->instance_info(inst, "nonesuch") == NULL);
    bitcts_plugin_negotiation n = {
        sizeof n, BITCTS_ABI_VERSION(1, 1), BITCTS_ABI_VERSION(1, 2), 0, NULL, NULL};
    CHECK(bitcts_cpu_negotiate(&n) == BITCTS_ABI_E_INCOMPATIBLE);
}

/* One invalid description: status and the rule id in last_error. */
static void expect_invalid(void *inst, bitcts_op_desc *d, const uint32_t *out_strides,
                           int32_t status, const char *rule)
{
    bitcts_abi_tensor ai[2], ao;
    for (uint32_t k = 0; k < 2; ++k) {
        to_abi(&d->inputs[k], &ai[k]);
    }
    to_abi(&d->output, &ao);
    if (out_strides != NULL) {
        ao.strides = out_strides;
    }
    const bitcts_abi_operator_desc od = {sizeof od, d->op, d->input_count, 0, ai, &ao};
    void *op = NULL;
    const int32_t rc = table->operator_create(inst, &od, &op);
    CHECK_EQ_U64(rc, status);
    CHECK(op == NULL);
    const char *e = table->instance_last_error(inst);
    if (strncmp(e, rule, strlen(rule)) != 0) {
        ++check_failures;
        fprintf(stderr, "expected rule %s, got \"%s\"\n", rule, e);
    }
}

static void test_validation(void *inst)
{
    bitcts_op_desc base;
    make_span(&base, BITCTS_OP_BIT_XOR, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 10, 0);
    bitcts_op_desc d = base;
    d.inputs[1].sizes[0] = 0;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "size_zero");
    d = base;
    d.output.dimension_count = d.inputs[0].dimension_count = d.inputs[1].dimension_count = 9;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "dimension_count");
    d = base;
    d.inputs[0].data_type = BITCTS_DT_INT16;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "type_mismatch");
    d = base;
    d.inputs[1].total_tensor_size_in_bytes = 18;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "buffer_too_small");
    d = base;
    d.output.flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_flags");
    d = base;
    d.inputs[0].flags = 0x10;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "unknown_flags");
    d = base;
    d.inputs[0].guaranteed_base_offset_alignment = 1;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "alignment");
    d = base;
    d.op = BITCTS_OP_BIT_NOT;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "input_count");
    d = base;
    d.op = 7;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_NOT_SUPPORTED, "unknown_operator");
    const uint32_t zero[1] = {0};
    expect_invalid(inst, &base, zero, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_zero_stride");
    make_span(&d, BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT8, BITCTS_DT_UINT16, 10, 0);
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_type_not_allowed");
    make_span(&d, BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_INT8, BITCTS_DT_INT8, 10, 0);
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "type_not_allowed");
    /* 2-D outputs of sizes {3, 2}: strides {1, 2} put (0,1) and (2,0) on offset 2 (invalid);
     * strides {2, 3} interleave without a collision (valid, though not provably by sorting). */
    bitcts_op_desc two;
    make_span(&two, BITCTS_OP_BIT_NOT, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 1, 0);
    two.output.dimension_count = two.inputs[0].dimension_count = 2;
    two.output.sizes[0] = two.inputs[0].sizes[0] = 3;
    two.output.sizes[1] = two.inputs[0].sizes[1] = 2;
    two.output.total_tensor_size_in_bytes = two.inputs[0].total_tensor_size_in_bytes = 64;
    const uint32_t overlap[2] = {1, 2};
    expect_invalid(inst, &two, overlap, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_overlap");
    two.output.has_strides = 1;
    two.output.strides[0] = 2;
    two.output.strides[1] = 3;
    run_case(inst, &two, 0, 0, "interleaved output");
    d = two;
    d.output.sizes[0] = d.inputs[0].sizes[0] = 0xFFFFu;
    d.output.sizes[1] = d.inputs[0].sizes[1] = 0x10002u;
    expect_invalid(inst, &d, NULL, BITCTS_ABI_E_INVALID_DESCRIPTOR, "too_many_elements");
}

int main(void)
{
    bitcts_plugin_negotiation n = {
        sizeof n, BITCTS_ABI_VERSION_1_0, BITCTS_ABI_VERSION_1_0, 0, NULL, NULL};
    if (bitcts_cpu_negotiate(&n) != BITCTS_ABI_OK || n.table == NULL) {
        return 1;
    }
    table = n.table;
    unsetenv("BITCTS_CPU_VARIANT");
    void *probe = instance_new(NULL, NULL, NULL);
    if (probe == NULL) {
        return 1;
    }
    char variants[128];
    snprintf(variants, sizeof variants, "%s", table->instance_info(probe, "variants"));
    printf("features: %s\nvariants: %s\nauto: %s\n", table->instance_info(probe, "features"),
           variants, table->instance_info(probe, "variant"));
    test_caps(probe);
    test_validation(probe);
    table->instance_destroy(probe);
    test_options();

    for (char *name = strtok(variants, " "); name != NULL; name = strtok(NULL, " ")) {
        const int before = check_failures;
        void *inst = instance_new(name, "1", NULL);
        void *inst_nt = instance_new(name, "2", "always");
        CHECK(inst != NULL && inst_nt != NULL);
        if (inst != NULL && inst_nt != NULL) {
            CHECK_EQ_STR(table->instance_info(inst, "variant"), name);
            if (!RACES_ONLY) {
                test_variant_random(inst, name);
                test_variant_spans(inst, name);
                test_variant_tiles(inst, name);
            }
            char label[64];
            snprintf(label, sizeof label, "%s nt", name);
            test_variant_spans(inst_nt, label);
            test_variant_tiles(inst_nt, label);
            test_variant_random(inst_nt, label);
            if (!RACES_ONLY) {
                test_count_exhaustive(inst, name);
            }
        }
        table->instance_destroy(inst);
        table->instance_destroy(inst_nt);
        test_threads(name);
        test_stream_shaped(name);
        printf("variant %-10s %s\n", name, check_failures == before ? "ok" : "FAILED");
    }
    return check_exit();
}
