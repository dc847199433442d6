/* SPDX-License-Identifier: MIT */
/* Explored cases (docs/explore.md). One stream ("explore") of the case's seed draws, in this
 * order: the operator, the types, the rank, the value class, the sizes, each tensor's layout,
 * in place, spare bytes (rounded up to a multiple of 4) and alignment. A draw that breaks a rule
 * DirectML states is drawn again from the same stream (at most 64 times, then the packed layout),
 * so every index gives one valid case. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc */
#include <string.h> /* memcpy, memset */

#include "bitcts/bitcts_status.h"
#include "explore.h"
#include "rng.h"

void bitcts_case_set_tensors(bitcts_op_desc *d, uint32_t op, uint32_t in_type, uint32_t out_type,
                             uint32_t rank, const uint32_t *sizes)
{
    d->op = op;
    d->input_count = bitcts_op_input_count(op);
    bitcts_tensor_desc *all[3] = {&d->inputs[0], &d->inputs[1], &d->output};
    for (int i = 0; i < 3; ++i) {
        all[i]->data_type = i == 2 ? out_type : in_type;
        all[i]->dimension_count = rank;
        memcpy(all[i]->sizes, sizes, rank * sizeof sizes[0]);
    }
}

/* Sizes a dimension is drawn from: small ones, SIMD and cache-line boundaries and their
 * neighbours, page boundaries, and the 16-bit boundary. */
static const uint32_t small_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const uint32_t boundary_sizes[] = {15,  16,  17,  31,  32,  33,  63,  64,  65,
                                          127, 128, 129, 255, 256, 257, 511, 512, 513};
static const uint32_t big_sizes[] = {1023, 1024, 1025, 2047, 2048,  2049,  4095, 4096,
                                     4097, 8191, 8192, 8193, 65535, 65536, 65537};

/* No buffer above this: padding in many dims multiplies a buffer's size (sizes of 2 padded by 9
 * in 8 dims: 5.5^8 times the elements), so a draw past it is drawn again. The largest packed
 * case, 2^24 elements of 8 bytes, is half of it. */
#define EXPLORE_MAX_BUFFER ((uint64_t)256 << 20)

#define PICK(rng, table) (table)[bitcts_rng_below((rng), sizeof(table) / sizeof((table)[0]))]

/* One drawn case, before its buffers. */
typedef struct explore_draw {
    uint32_t op, in_type, out_type, rank, values;
    bitcts_op_desc desc;
    int alias;
} explore_draw;

static uint32_t draw_size(bitcts_rng *rng, uint32_t esize)
{
    const uint64_t kind = bitcts_rng_below(rng, 100);
    if (kind < 40) {
        return PICK(rng, small_sizes);
    }
    if (kind < 70) {
        return PICK(rng, boundary_sizes);
    }
    if (kind < 80) { /* a page of elements, and its neighbours */
        return 4096 / esize - 1 + (uint32_t)bitcts_rng_below(rng, 3);
    }
    if (kind < 90) {
        return 1 + (uint32_t)bitcts_rng_below(rng, 300);
    }
    return PICK(rng, big_sizes);
}

/* Sizes within an element budget: mostly small cases, some large, a few very large. */
static void draw_sizes(bitcts_rng *rng, uint32_t rank, uint32_t esize, uint32_t *sizes)
{
    const uint64_t roll = bitcts_rng_below(rng, 100);
    const uint64_t budget = roll < 90 ? (1u << 16) : roll < 99 ? (1u << 20) : (1u << 24);
    for (uint32_t k = 0; k < rank; ++k) {
        sizes[k] = draw_size(rng, esize);
    }
    for (;;) { /* halve the largest dimension until the budget holds */
        uint64_t total = 1;
        uint32_t largest = 0;
        for (uint32_t k = 0; k < rank; ++k) { /* capped: 8 sizes of 65537 overflow 64 bits */
            total = total > budget ? budget + 1 : total * sizes[k];
            largest = sizes[k] > sizes[largest] ? k : largest;
        }
        if (total <= budget || sizes[largest] == 1) {
            return;
        }
        sizes[largest] = (sizes[largest] + 1) / 2;
    }
}

/* A tensor's layout: dims in `order` (outermost first) packed, each dim padded with
 * probability 1/4 (1 to 9 spare elements), dims in `zero` broadcast (stride 0). */
static void draw_strides(bitcts_rng *rng, bitcts_tensor_desc *t, int permute, int pad,
                         uint32_t zero)
{
    uint32_t order[BITCTS_MAX_DIMS];
    const uint32_t r = t->dimension_count;
    for (uint32_t k = 0; k < r; ++k) {
        order[k] = k;
    }
    for (uint32_t k = r; permute && k-- > 1;) { /* Fisher-Yates */
        const uint32_t j = (uint32_t)bitcts_rng_below(rng, k + 1);
        const uint32_t tmp = order[k];
        order[k] = order[j];
        order[j] = tmp;
    }
    uint64_t s = 1;
    t->has_strides = 1;
    for (uint32_t i = r; i-- > 0;) {
        const uint32_t d = order[i];
        if (zero & (1u << d)) {
            t->strides[d] = 0;
            continue;
        }
        t->strides[d] = s > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)s;
        s *=
            t->sizes[d] + (pad && bitcts_rng_below(rng, 4) == 0 ? 1 + bitcts_rng_below(rng, 9) : 0);
    }
}

/* One of: packed (no strides), explicit packed, padded, permuted, permuted and padded; inputs
 * may also be broadcast along a random subset of dims, or be a scalar. */
static void draw_layout(bitcts_rng *rng, bitcts_tensor_desc *t, int is_input)
{
    const uint64_t kind = bitcts_rng_below(rng, is_input ? 8 : 6);
    const uint32_t all = (1u << t->dimension_count) - 1;
    switch (kind) {
    case 0: t->has_strides = 0; break;
    case 1: draw_strides(rng, t, 0, 0, 0); break;
    case 2: draw_strides(rng, t, 0, 1, 0); break;
    case 3: draw_strides(rng, t, 1, 0, 0); break;
    case 4:
    case 5: draw_strides(rng, t, 1, 1, 0); break;
    case 6:
        draw_strides(rng, t, bitcts_rng_below(rng, 2), bitcts_rng_below(rng, 2),
                     (uint32_t)bitcts_rng_below(rng, all + 1));
        break;
    default: draw_strides(rng, t, 0, 0, all); break; /* a scalar */
    }
}

static int finish(bitcts_tensor_desc *t, uint64_t spare)
{
    uint64_t need = 0;
    if (bitcts_tensor_calc_buffer_size(t, &need) != 0) {
        return -1;
    }
    t->total_tensor_size_in_bytes = need + spare;
    return 0;
}

/* Layouts, in place, spare bytes and alignment of a drawn shape; 0 when the result is valid. */
static int draw_layouts(bitcts_rng *rng, explore_draw *x)
{
    bitcts_op_desc *d = &x->desc;
    const uint32_t n_in = d->input_count;
    x->alias = -1;
    for (uint32_t i = 0; i < n_in; ++i) {
        draw_layout(rng, &d->inputs[i], 1);
    }
    draw_layout(rng, &d->output, 0);
    if (bitcts_op_allows_in_place(x->op) && x->in_type == x->out_type &&
        bitcts_rng_below(rng, 8) == 0) { /* in place: the output is an input, same layout */
        x->alias = (int)bitcts_rng_below(rng, n_in);
        draw_layout(rng, &d->inputs[x->alias], 0);
    }
    const int spare = bitcts_rng_below(rng, 8) == 0;
    const uint32_t align = bitcts_rng_below(rng, 8) == 0 ? 16u : 0u;
    for (uint32_t t = 0; t <= n_in; ++t) {
        bitcts_tensor_desc *desc = t < n_in ? &d->inputs[t] : &d->output;
        desc->guaranteed_base_offset_alignment = align;
        const uint64_t esize = bitcts_dtype_size(desc->data_type);
        /* whole elements and 0-3 bytes, rounded up to 4: a size the spec asserts (docs/spec/
         * validation.md, "Buffer sizes that are not a multiple of 4") */
        const uint64_t extra =
            spare ? esize * bitcts_rng_below(rng, 65) + bitcts_rng_below(rng, 4) : 0;
        if (finish(desc, (extra + 3) & ~(uint64_t)3) != 0 ||
            desc->total_tensor_size_in_bytes > EXPLORE_MAX_BUFFER) {
            return -1;
        }
    }
    if (x->alias >= 0) {
        d->output = d->inputs[x->alias];
    }
    bitcts_validation v;
    const uint32_t fl = bitcts_fl_required(x->op, x->in_type, x->out_type, x->rank);
    return bitcts_validate_op(d, fl, &v) == BITCTS_RULE_OK ? 0 : -1;
}

static void draw(uint64_t case_seed, explore_draw *x)
{
    bitcts_rng rng;
    bitcts_rng_init(&rng, case_seed, "explore");
    memset(x, 0, sizeof *x);
    x->op = bitcts_op_all[bitcts_rng_below(&rng, BITCTS_OP_COUNT)];
    uint32_t types[16];
    uint32_t n = 0;
    const uint32_t mask = bitcts_dml_op_input_types(x->op);
    for (uint32_t t = 0; t < 16; ++t) {
        if (mask & (1u << t)) {
            types[n++] = t;
        }
    }
    x->in_type = types[bitcts_rng_below(&rng, n)];
    x->out_type = x->op != BITCTS_OP_BIT_COUNT     ? x->in_type
                  : bitcts_rng_below(&rng, 2) == 0 ? BITCTS_DT_UINT8
                                                   : BITCTS_DT_UINT32;
    x->rank = 1 + (uint32_t)bitcts_rng_below(&rng, BITCTS_MAX_DIMS);
    x->values = bitcts_op_is_shift(x->op) && bitcts_rng_below(&rng, 4) == 0
                    ? BITCTS_VALUES_SHIFT_OOB
                : bitcts_rng_below(&rng, 5) < 3 ? BITCTS_VALUES_EDGE
                                                : BITCTS_VALUES_RANDOM;
    uint32_t sizes[BITCTS_MAX_DIMS];
    draw_sizes(&rng, x->rank, bitcts_dtype_size(x->in_type), sizes);
    bitcts_op_desc *d = &x->desc;
    bitcts_case_set_tensors(d, x->op, x->in_type, x->out_type, x->rank, sizes);
    bitcts_tensor_desc *all[3] = {&d->inputs[0], &d->inputs[1], &d->output};
    for (int attempt = 0; attempt < 64; ++attempt) {
        if (draw_layouts(&rng, x) == 0) {
            return;
        }
    }
    x->alias = -1; /* packed always holds: the sizes were drawn within 2^24 elements */
    for (int i = 0; i < 3; ++i) {
        all[i]->has_strides = 0;
        all[i]->guaranteed_base_offset_alignment = 0;
        finish(all[i], 0);
    }
}

int64_t bitcts_explore_parse_id(const char *id)
{
    const size_t n = sizeof BITCTS_EXPLORE_PREFIX - 1;
    if (id == NULL || strncmp(id, BITCTS_EXPLORE_PREFIX, n) != 0 || id[n] == '\0' ||
        (id[n] == '0' && id[n + 1] != '\0')) {
        return -1;
    }
    uint64_t v = 0;
    for (const char *p = id + n; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9' || v > BITCTS_EXPLORE_MAX_INDEX / 10) {
            return -1;
        }
        v = v * 10 + (uint64_t)(*p - '0');
    }
    return v <= BITCTS_EXPLORE_MAX_INDEX ? (int64_t)v : -1;
}

int64_t bitcts_explore_selected_id(const bitcts_filter *filter)
{
    return filter->count == 1 ? bitcts_explore_parse_id(filter->globs[0]) : -1;
}

int bitcts_explore_key(uint64_t suite_seed, uint64_t index, bitcts_case_key *out)
{
    if (index > BITCTS_EXPLORE_MAX_INDEX) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s%llu", BITCTS_EXPLORE_PREFIX, (unsigned long long)index);
    explore_draw x;
    draw(bitcts_case_seed(suite_seed, out->id), &x);
    out->op = x.op;
    out->in_type = x.in_type;
    out->out_type = x.out_type;
    out->rank = x.rank;
    out->pattern = BITCTS_PAT_EXPLORE;
    out->index = (uint32_t)index;
    out->values = x.values;
    out->tiers = 0;
    out->feature_level = bitcts_fl_required(x.op, x.in_type, x.out_type, x.rank);
    return BITCTS_OK;
}

void bitcts_explore_describe(uint64_t case_seed, const bitcts_case_key *key, bitcts_op_desc *desc,
                             int *alias)
{
    (void)key;
    explore_draw x;
    draw(case_seed, &x);
    *desc = x.desc;
    *alias = x.alias;
}

int bitcts_explore_plan(uint64_t suite_seed, uint64_t first, size_t count, bitcts_plan **out)
{
    *out = NULL;
    if (count == 0 || first > BITCTS_EXPLORE_MAX_INDEX ||
        count - 1 > BITCTS_EXPLORE_MAX_INDEX - first) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    bitcts_plan *plan = calloc(1, sizeof *plan);
    bitcts_case_key *keys = calloc(count, sizeof *keys);
    if (plan == NULL || keys == NULL) {
        free(plan);
        free(keys);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < count; ++i) {
        bitcts_explore_key(suite_seed, first + i, &keys[i]);
    }
    plan->cases = keys;
    plan->count = count;
    *out = plan;
    return BITCTS_OK;
}
