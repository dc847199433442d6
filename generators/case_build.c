/* SPDX-License-Identifier: MIT */
/* Materialises a case from (suite seed, case id): shape, per-tensor layout, buffer bytes
 * (docs/case-plan.md). Each buffer has its own stream, so no buffer depends on another's size. */
#include <stdlib.h> /* calloc */
#include <string.h> /* memcpy */

#include "bitcts/bitcts_status.h"
#include "case_mixed.h"
#include "case_plan.h"
#include "case_values.h"
#include "explore.h"
#include "ref_ops.h"
#include "rng.h"

#define SHAPE_BUDGET 8192u /* default tier: at most this many logical elements */

/* Innermost sizes cross every SIMD width from 1 to 64 bytes; outer sizes stay small. */
static const uint32_t inner_sizes[] = {1,  2,  3,  4,  5,  7,   8,   9,   15,  16,  17, 31,
                                       32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257};
static const uint32_t rank1_sizes[] = {511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097};
static const uint32_t outer_sizes[] = {1, 2, 3, 4, 5, 7, 8};

static void make_shape(bitcts_rng *rng, uint32_t rank, uint32_t *sizes)
{
    const size_t n_inner = sizeof inner_sizes / sizeof inner_sizes[0];
    const size_t n_rank1 = sizeof rank1_sizes / sizeof rank1_sizes[0];
    if (rank == 1) {
        const uint64_t pick = bitcts_rng_below(rng, n_inner + n_rank1);
        sizes[0] = pick < n_inner ? inner_sizes[pick] : rank1_sizes[pick - n_inner];
        return;
    }
    sizes[rank - 1] = inner_sizes[bitcts_rng_below(rng, n_inner)];
    for (uint32_t k = 0; k + 1 < rank; ++k) {
        sizes[k] = outer_sizes[bitcts_rng_below(rng, sizeof outer_sizes / sizeof outer_sizes[0])];
    }
    for (;;) { /* halve the largest outer dimension until the budget holds */
        uint64_t total = 1;
        uint32_t largest = 0;
        for (uint32_t k = 0; k < rank; ++k) {
            total *= sizes[k];
            if (k + 1 < rank && sizes[k] > sizes[largest]) {
                largest = k;
            }
        }
        if (total <= SHAPE_BUDGET || sizes[largest] == 1) {
            break;
        }
        sizes[largest] = (sizes[largest] + 1) / 2;
    }
}

/* Packed strides over the dims in `order` (outermost first), skipping dims in `zero_mask`
 * (those get stride 0). */
static void strides_in_order(bitcts_tensor_desc *t, const uint32_t *order, uint32_t zero_mask)
{
    uint64_t s = 1;
    t->has_strides = 1;
    for (int i = (int)t->dimension_count - 1; i >= 0; --i) {
        const uint32_t d = order[i];
        if (zero_mask & (1u << d)) {
            t->strides[d] = 0;
        } else {
            t->strides[d] = (uint32_t)s;
            s *= t->sizes[d];
        }
    }
}

static void identity_order(uint32_t rank, uint32_t *order)
{
    for (uint32_t k = 0; k < rank; ++k) {
        order[k] = k;
    }
}

static void random_permutation(bitcts_rng *rng, uint32_t rank, uint32_t *order)
{
    identity_order(rank, order);
    for (uint32_t k = rank - 1; k > 0; --k) { /* Fisher-Yates */
        const uint32_t j = (uint32_t)bitcts_rng_below(rng, k + 1);
        const uint32_t tmp = order[k];
        order[k] = order[j];
        order[j] = tmp;
    }
    int identity = 1;
    for (uint32_t k = 0; k < rank; ++k) {
        identity &= order[k] == k;
    }
    if (identity) { /* a permuted case must really be permuted */
        order[rank - 1] = rank - 2;
        order[rank - 2] = rank - 1;
    }
}

/* 1 when the dims of size > 1, taken in `order` (outermost first), are not in logical order. */
static int effectively_permuted(const uint32_t *sizes, uint32_t rank, const uint32_t *order)
{
    int last = -1;
    for (uint32_t i = 0; i < rank; ++i) {
        if (sizes[order[i]] == 1) {
            continue;
        }
        if ((int)order[i] < last) {
            return 1;
        }
        last = (int)order[i];
    }
    return 0;
}

/* A permuted case must transpose real extents: at least two dims of size > 1, out of order. */
static void force_transposition(bitcts_op_desc *d, uint32_t *order)
{
    const uint32_t r = d->output.dimension_count;
    uint32_t big = 0;
    for (uint32_t k = 0; k < r; ++k) {
        big += d->output.sizes[k] > 1;
    }
    for (uint32_t k = r; big < 2 && k-- > 0;) {
        if (d->output.sizes[k] == 1) {
            d->output.sizes[k] = 3;
            for (uint32_t i = 0; i < d->input_count; ++i) {
                d->inputs[i].sizes[k] = 3;
            }
            ++big;
        }
    }
    if (effectively_permuted(d->output.sizes, r, order)) {
        return;
    }
    int p = -1, q = -1; /* the last two positions holding dims of size > 1 */
    for (int i = 0; i < (int)r; ++i) {
        if (d->output.sizes[order[i]] > 1) {
            p = q;
            q = i;
        }
    }
    const uint32_t tmp = order[p];
    order[p] = order[q];
    order[q] = tmp;
}

static void layout_padded_inner(bitcts_rng *rng, bitcts_tensor_desc *t)
{
    const uint32_t r = t->dimension_count;
    t->has_strides = 1;
    if (r == 1) {
        t->strides[0] = 2 + (uint32_t)bitcts_rng_below(rng, 3);
        return;
    }
    t->strides[r - 1] = 1;
    t->strides[r - 2] = t->sizes[r - 1] + 1 + (uint32_t)bitcts_rng_below(rng, 9);
    for (int k = (int)r - 3; k >= 0; --k) {
        t->strides[k] = t->strides[k + 1] * t->sizes[k + 1];
    }
}

static void layout_padded_outer(bitcts_rng *rng, bitcts_tensor_desc *t)
{
    uint32_t order[BITCTS_MAX_DIMS];
    identity_order(t->dimension_count, order);
    strides_in_order(t, order, 0);
    t->strides[0] += 1 + (uint32_t)bitcts_rng_below(rng, 17);
}

/* A nonempty proper subset of the rank's dims, uniformly: 1 + below(2^r - 2). */
static uint32_t broadcast_mask(bitcts_rng *rng, uint32_t rank)
{
    const uint32_t all = (1u << rank) - 1;
    return 1 + (uint32_t)bitcts_rng_below(rng, all - 1);
}

/* A nonempty subset of the dims outside `taken` (a nonempty proper subset): x = 1 +
 * below(2^n - 1) over the n free dims, bit j of x going to the j-th lowest free dim. */
static uint32_t broadcast_mask_outside(bitcts_rng *rng, uint32_t rank, uint32_t taken)
{
    const uint32_t free_dims = ((1u << rank) - 1) & ~taken;
    uint32_t n = 0;
    for (uint32_t k = 0; k < rank; ++k) {
        n += (free_dims >> k) & 1;
    }
    const uint32_t x = 1 + (uint32_t)bitcts_rng_below(rng, (1u << n) - 1);
    uint32_t mask = 0;
    uint32_t j = 0;
    for (uint32_t k = 0; k < rank; ++k) {
        if ((free_dims >> k) & 1) {
            mask |= ((x >> j) & 1) << k;
            ++j;
        }
    }
    return mask;
}

static void ensure_broadcast_extent(uint32_t mask, bitcts_op_desc *d)
{
    for (uint32_t k = 0; k < d->output.dimension_count; ++k) {
        if ((mask & (1u << k)) && d->output.sizes[k] > 1) {
            return;
        }
    }
    for (uint32_t k = 0; k < d->output.dimension_count; ++k) {
        if (mask & (1u << k)) { /* give the broadcast dim a real extent */
            d->output.sizes[k] = 3;
            for (uint32_t i = 0; i < d->input_count; ++i) {
                d->inputs[i].sizes[k] = 3;
            }
            return;
        }
    }
}

static void finish_sizes(bitcts_tensor_desc *t, uint64_t extra)
{
    uint64_t need = 0;
    bitcts_tensor_calc_buffer_size(t, &need);
    t->total_tensor_size_in_bytes = need + extra;
}

static void set_common(const bitcts_case_key *key, const uint32_t *sizes, bitcts_op_desc *d)
{
    memset(d, 0, sizeof *d);
    bitcts_case_set_tensors(d, key->op, key->in_type, key->out_type, key->rank, sizes);
}

/* Layouts of a default- or large-tier pattern. Returns the aliased input index or -1. */
static int apply_pattern(bitcts_rng *rng, const bitcts_case_key *key, bitcts_op_desc *d)
{
    const uint32_t r = key->rank;
    const uint32_t n_in = d->input_count;
    uint32_t order[BITCTS_MAX_DIMS];
    identity_order(r, order);
    switch (key->pattern) {
    case BITCTS_PAT_PADDED_INNER:
        for (uint32_t i = 0; i < n_in; ++i) {
            layout_padded_inner(rng, &d->inputs[i]);
        }
        layout_padded_inner(rng, &d->output);
        return -1;
    case BITCTS_PAT_PADDED_OUTER:
        for (uint32_t i = 0; i < n_in; ++i) {
            layout_padded_outer(rng, &d->inputs[i]);
        }
        layout_padded_outer(rng, &d->output);
        return -1;
    case BITCTS_PAT_BROADCAST:
    case BITCTS_PAT_BROADCAST_A:
    case BITCTS_PAT_BROADCAST_B:
    case BITCTS_PAT_LARGE_BROADCAST: {
        const uint32_t which = key->pattern == BITCTS_PAT_BROADCAST_A ? 0 : n_in - 1;
        const uint32_t mask = broadcast_mask(rng, r);
        ensure_broadcast_extent(mask, d);
        strides_in_order(&d->inputs[which], order, mask);
        return -1;
    }
    case BITCTS_PAT_BROADCAST_BOTH: {
        const uint32_t mask_a = broadcast_mask(rng, r);
        const uint32_t mask_b = broadcast_mask_outside(rng, r, mask_a);
        ensure_broadcast_extent(mask_a, d);
        ensure_broadcast_extent(mask_b, d);
        strides_in_order(&d->inputs[0], order, mask_a);
        strides_in_order(&d->inputs[1], order, mask_b);
        return -1;
    }
    case BITCTS_PAT_SCALAR:
    case BITCTS_PAT_SCALAR_A:
    case BITCTS_PAT_SCALAR_B: {
        const uint32_t which = key->pattern == BITCTS_PAT_SCALAR_A ? 0 : n_in - 1;
        strides_in_order(&d->inputs[which], order, (1u << r) - 1);
        return -1;
    }
    case BITCTS_PAT_PERMUTED:
    case BITCTS_PAT_LARGE_PERMUTED:
        random_permutation(rng, r, order);
        force_transposition(d, order);
        strides_in_order(&d->inputs[0], order, 0);
        for (uint32_t t = 1; t <= n_in; ++t) { /* B and the output: packed or permuted */
            bitcts_tensor_desc *desc = t < n_in ? &d->inputs[t] : &d->output;
            if (bitcts_rng_below(rng, 2)) {
                random_permutation(rng, r, order);
                strides_in_order(desc, order, 0);
            }
        }
        return -1;
    case BITCTS_PAT_INPLACE:
    case BITCTS_PAT_INPLACE_A:
    case BITCTS_PAT_INPLACE_B: {
        const int which = key->pattern == BITCTS_PAT_INPLACE_B ? 1 : 0;
        switch (bitcts_rng_below(rng, r >= 2 ? 3 : 2)) { /* the shared layout */
        case 1: layout_padded_inner(rng, &d->inputs[which]); break;
        case 2:
            random_permutation(rng, r, order);
            strides_in_order(&d->inputs[which], order, 0);
            break;
        default: break;
        }
        return which;
    }
    default: /* packed, oversized, large_packed, exhaustive */ return -1;
    }
}

/* Per-tensor layouts of a mixed case (docs/case-plan.md, "Mixed layouts"), from the same
 * layout helpers as the patterns. First the draws that raise sizes (every tensor's), in tensor
 * order; then each tensor's strides and extra bytes, in tensor order. */
typedef struct mixed_tensor {
    uint32_t layout;
    uint32_t mask; /* broadcast */
    uint32_t order[BITCTS_MAX_DIMS];
    uint64_t extra; /* oversized */
} mixed_tensor;

static void mixed_raise(bitcts_rng *rng, const bitcts_case_key *key, bitcts_op_desc *d,
                        mixed_tensor *m)
{
    const uint32_t r = key->rank;
    identity_order(r, m->order);
    if (m->layout == BITCTS_ML_BROADCAST) {
        m->mask = broadcast_mask(rng, r);
        ensure_broadcast_extent(m->mask, d);
    } else if (m->layout == BITCTS_ML_PERMUTED) {
        random_permutation(rng, r, m->order);
        force_transposition(d, m->order);
    }
}

static void mixed_strides(bitcts_rng *rng, bitcts_tensor_desc *t, mixed_tensor *m)
{
    const uint32_t all = (1u << t->dimension_count) - 1;
    switch (m->layout) {
    case BITCTS_ML_PADDED_INNER: layout_padded_inner(rng, t); break;
    case BITCTS_ML_PADDED_OUTER: layout_padded_outer(rng, t); break;
    case BITCTS_ML_PERMUTED: strides_in_order(t, m->order, 0); break;
    case BITCTS_ML_BROADCAST: strides_in_order(t, m->order, m->mask); break;
    case BITCTS_ML_SCALAR: strides_in_order(t, m->order, all); break;
    case BITCTS_ML_OVERSIZED:
        if (bitcts_rng_below(rng, 2)) {
            strides_in_order(t, m->order, 0);
        }
        m->extra = 4 * (1 + bitcts_rng_below(rng, 64));
        t->guaranteed_base_offset_alignment = 16;
        break;
    default: break; /* packed, in place: strides null (in place: the input's, below) */
    }
}

/* Returns the aliased input index, or -1. */
static int apply_mixed(bitcts_rng *rng, const bitcts_case_key *key, bitcts_op_desc *d)
{
    const uint32_t n_in = d->input_count;
    mixed_tensor m[3];
    memset(m, 0, sizeof m);
    bitcts_tensor_desc *t[3] = {&d->inputs[0], n_in == 2 ? &d->inputs[1] : NULL, &d->output};
    for (uint32_t s = 0; s < 3; ++s) {
        m[s].layout = bitcts_mixed_layout_of(key, s);
        if (t[s] != NULL) {
            mixed_raise(rng, key, d, &m[s]);
        }
    }
    for (uint32_t s = 0; s < 3; ++s) {
        if (t[s] != NULL) {
            mixed_strides(rng, t[s], &m[s]);
        }
    }
    for (uint32_t s = 0; s < 3; ++s) {
        if (t[s] != NULL) {
            finish_sizes(t[s], m[s].extra);
        }
    }
    switch (m[2].layout) {
    case BITCTS_ML_INPLACE_A:
    case BITCTS_ML_INPLACE: return 0;
    case BITCTS_ML_INPLACE_B: return 1;
    default: return -1;
    }
}

static int alloc_buffer(uint64_t bytes, uint8_t **out)
{
    /* At least 1 byte so every buffer has an address; 64-byte alignment for backends. */
    const size_t size = (size_t)((bytes + 63) & ~(uint64_t)63);
    *out = aligned_alloc(64, size ? size : 64);
    return *out != NULL ? BITCTS_OK : BITCTS_E_OUT_OF_MEMORY;
}

/* The description of a plan case: its shape, then its pattern's layouts. */
static void describe(uint64_t seed, const bitcts_case_key *key, bitcts_case_data *out)
{
    bitcts_rng shape;
    bitcts_rng_init(&shape, seed, "shape");
    uint32_t sizes[BITCTS_MAX_DIMS] = {0};
    if (!bitcts_case_fixed_shape(key, sizes)) {
        make_shape(&shape, key->rank, sizes);
    }
    set_common(key, sizes, &out->desc);
    bitcts_rng layout;
    bitcts_rng_init(&layout, seed, "layout");
    if (key->pattern == BITCTS_PAT_MIXED) {
        out->alias_input = apply_mixed(&layout, key, &out->desc);
        if (out->alias_input >= 0) { /* the output is the aliased input: identical description */
            out->desc.output = out->desc.inputs[out->alias_input];
        }
        return;
    }
    out->alias_input = apply_pattern(&layout, key, &out->desc);
    const uint32_t n_in = out->desc.input_count;
    const int oversized = key->pattern == BITCTS_PAT_OVERSIZED;
    for (uint32_t t = 0; t <= n_in; ++t) {
        bitcts_tensor_desc *desc = t < n_in ? &out->desc.inputs[t] : &out->desc.output;
        if (oversized) {
            desc->has_strides = (uint32_t)bitcts_rng_below(&layout, 2);
            if (desc->has_strides) {
                uint32_t order[BITCTS_MAX_DIMS];
                identity_order(desc->dimension_count, order);
                strides_in_order(desc, order, 0);
            }
            desc->guaranteed_base_offset_alignment = 16;
        }
        finish_sizes(desc, oversized ? 4 * (1 + bitcts_rng_below(&layout, 64)) : 0);
    }
    if (out->alias_input >= 0) { /* the output is the aliased input: identical description */
        out->desc.output = out->desc.inputs[out->alias_input];
    }
}

static int build_valid(uint64_t seed, const bitcts_case_key *key, bitcts_case_data *out)
{
    if (key->pattern == BITCTS_PAT_EXPLORE) {
        bitcts_explore_describe(seed, key, &out->desc, &out->alias_input);
    } else {
        describe(seed, key, out);
    }
    const uint32_t n_in = out->desc.input_count;
    for (uint32_t i = 0; i < n_in; ++i) { /* each input's stream is named by its role */
        int st = alloc_buffer(out->desc.inputs[i].total_tensor_size_in_bytes, &out->inputs[i]);
        if (st != BITCTS_OK) {
            return st;
        }
        bitcts_rng stream;
        bitcts_rng_init(&stream, seed, bitcts_role_name(n_in, i));
        bitcts_case_fill(key, i, &out->desc, &stream, out->inputs[i]);
    }
    if (out->alias_input >= 0) {
        out->output = out->inputs[out->alias_input];
        return BITCTS_OK;
    }
    int st = alloc_buffer(out->desc.output.total_tensor_size_in_bytes, &out->owned_output);
    if (st != BITCTS_OK) {
        return st;
    }
    bitcts_rng stream;
    bitcts_rng_init(&stream, seed, "Output");
    for (uint64_t k = 0; k < out->desc.output.total_tensor_size_in_bytes; k += 8) {
        const uint64_t v = bitcts_rng_next(&stream);
        for (uint64_t j = 0; j < 8 && k + j < out->desc.output.total_tensor_size_in_bytes; ++j) {
            out->owned_output[k + j] = (uint8_t)(v >> (8 * j));
        }
    }
    out->output = out->owned_output;
    return BITCTS_OK;
}

int bitcts_case_build(uint64_t suite_seed, const bitcts_case_key *key, bitcts_case_data *out)
{
    memset(out, 0, sizeof *out);
    out->alias_input = -1;
    out->case_seed = bitcts_case_seed(suite_seed, key->id);
    if (key->pattern == BITCTS_PAT_INVALID) {
        bitcts_case_invalid_desc(key, &out->desc);
        return BITCTS_OK;
    }
    const int st = build_valid(out->case_seed, key, out);
    if (st != BITCTS_OK) {
        bitcts_case_free(out);
    }
    return st;
}

int bitcts_case_copy(const bitcts_case_data *src, bitcts_case_data *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->desc = src->desc;
    dst->case_seed = src->case_seed;
    dst->alias_input = src->alias_input;
    for (uint32_t i = 0; i < src->desc.input_count && src->inputs[i] != NULL; ++i) {
        const uint64_t bytes = src->desc.inputs[i].total_tensor_size_in_bytes;
        if (alloc_buffer(bytes, &dst->inputs[i]) != BITCTS_OK) {
            bitcts_case_free(dst);
            return BITCTS_E_OUT_OF_MEMORY;
        }
        memcpy(dst->inputs[i], src->inputs[i], (size_t)bytes);
    }
    if (src->output == NULL) { /* a negative case: a description only */
        return BITCTS_OK;
    }
    if (src->alias_input >= 0) {
        dst->output = dst->inputs[src->alias_input];
        return BITCTS_OK;
    }
    const uint64_t bytes = src->desc.output.total_tensor_size_in_bytes;
    if (alloc_buffer(bytes, &dst->owned_output) != BITCTS_OK) {
        bitcts_case_free(dst);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    memcpy(dst->owned_output, src->output, (size_t)bytes);
    dst->output = dst->owned_output;
    return BITCTS_OK;
}

int bitcts_plan_case_data(const bitcts_plan *plan, size_t index, uint64_t suite_seed,
                          bitcts_case_data *out)
{
    if (plan->fixed != NULL && plan->fixed[index] != NULL) {
        return bitcts_case_copy(plan->fixed[index], out);
    }
    return bitcts_case_build(suite_seed, &plan->cases[index], out);
}

void bitcts_case_free(bitcts_case_data *data)
{
    if (data == NULL) {
        return;
    }
    free(data->inputs[0]);
    free(data->inputs[1]);
    free(data->owned_output);
    memset(data, 0, sizeof *data);
    data->alias_input = -1;
}

int bitcts_case_expected_into(const bitcts_case_data *data, int shift_policy, uint8_t *dst)
{
    memcpy(dst, data->output, (size_t)data->desc.output.total_tensor_size_in_bytes);
    const void *inputs[2] = {data->inputs[0], data->inputs[1]};
    if (data->alias_input >= 0) { /* in place: the reference reads and writes the copy */
        inputs[data->alias_input] = dst;
    }
    return bitcts_ref_execute(&data->desc, inputs, dst, shift_policy);
}

int bitcts_case_expected(const bitcts_case_data *data, int shift_policy, uint8_t **out)
{
    *out = NULL;
    uint8_t *expected = NULL;
    int st = alloc_buffer(data->desc.output.total_tensor_size_in_bytes, &expected);
    if (st == BITCTS_OK) {
        st = bitcts_case_expected_into(data, shift_policy, expected);
    }
    if (st != BITCTS_OK) {
        free(expected);
        return st;
    }
    *out = expected;
    return BITCTS_OK;
}
