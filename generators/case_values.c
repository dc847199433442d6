/* SPDX-License-Identifier: MIT */
/* Value classes (random bits, edge sets, float specials, shift counts), the fixed shapes of the
 * large and exhaustive tiers, and negative-case descriptions (docs/case-plan.md). */
#include <string.h> /* memset */

#include "case_values.h"

static uint64_t mask_of(uint32_t width)
{
    return width >= 64 ? ~0ull : ((1ull << width) - 1);
}

static const struct {
    uint32_t op, in_type;
    uint32_t sizes[4];
} large_shapes[] = {
    {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, {70001, 263}},
    {BITCTS_OP_BIT_AND, BITCTS_DT_INT32, {2053, 4099}},
    {BITCTS_OP_BIT_OR, BITCTS_DT_FLOAT64, {3, 66001, 17}},
    {BITCTS_OP_BIT_NOT, BITCTS_DT_UINT16, {5, 65537, 33}},
    {BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT32, {2047, 4097}},
    {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT64, {4194319}},
    {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, {65541, 129}},
    {BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT32, {65539, 131}},
    {BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_DT_UINT64, {1031, 4111}},
    {BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_DT_UINT8, {2, 3, 70003, 41}},
};

int bitcts_case_fixed_shape(const bitcts_case_key *key, uint32_t *sizes)
{
    if (key->pattern == BITCTS_PAT_EXHAUSTIVE) {
        const int pairs = bitcts_op_input_count(key->op) == 2;
        sizes[0] = (pairs || bitcts_dtype_size(key->in_type) == 2) ? 65536 : 256;
        return 1;
    }
    if (!(key->tiers & BITCTS_TIER_LARGE)) {
        return 0;
    }
    for (size_t i = 0; i < sizeof large_shapes / sizeof large_shapes[0]; ++i) {
        if (large_shapes[i].op == key->op && large_shapes[i].in_type == key->in_type) {
            memcpy(sizes, large_shapes[i].sizes, key->rank * sizeof sizes[0]);
            return 1;
        }
    }
    return 0;
}

/* IEEE 754 specials for a float type of `width` bits (spec section 6.3). */
static uint64_t float_special(bitcts_rng *rng, uint32_t width)
{
    const uint32_t f = width == 16 ? 10 : width == 32 ? 23 : 52; /* mantissa bits */
    const uint32_t e = width - 1 - f;                            /* exponent bits */
    const uint64_t sign = 1ull << (width - 1);
    const uint64_t exp_mask = ((1ull << e) - 1) << f;
    const uint64_t mant_mask = (1ull << f) - 1;
    const uint64_t quiet = 1ull << (f - 1);
    const uint64_t payload = bitcts_rng_below(rng, quiet); /* below the quiet bit */
    const uint64_t one = ((1ull << (e - 1)) - 1) << f;
    const uint64_t specials[] = {
        0,                                 /* +0 */
        sign,                              /* -0 */
        exp_mask,                          /* +inf */
        sign | exp_mask,                   /* -inf */
        exp_mask | quiet,                  /* canonical quiet NaN */
        exp_mask | quiet | payload,        /* quiet NaN with payload */
        exp_mask | (payload | 1),          /* signalling NaN, nonzero payload */
        sign | exp_mask | (payload | 1),   /* negative signalling NaN */
        sign | exp_mask | quiet | payload, /* negative quiet NaN */
        1,                                 /* smallest denormal */
        mant_mask,                         /* largest denormal */
        sign | 1,                          /* negative smallest denormal */
        sign | mant_mask,                  /* negative largest denormal */
        1ull << f,                         /* smallest normal */
        exp_mask - 1,                      /* largest normal */
        one,                               /* 1.0 */
        sign | one,                        /* -1.0 */
    };
    return specials[bitcts_rng_below(rng, sizeof specials / sizeof specials[0])];
}

/* Edge set of the spec's value classes: 0, all ones, top bit, low bit, walking ones and
 * zeros, 0x55/0xAA patterns, signed MIN/MAX, plus a share of random bits. */
static uint64_t edge_value(bitcts_rng *rng, uint32_t width, int is_float)
{
    const uint64_t m = mask_of(width);
    if (is_float && bitcts_rng_below(rng, 2) == 0) {
        return float_special(rng, width);
    }
    const uint64_t bit = 1ull << bitcts_rng_below(rng, width);
    const uint64_t edges[] = {0,
                              m,
                              1ull << (width - 1),
                              1,
                              bit,
                              m ^ bit,
                              0x5555555555555555ull & m,
                              0xAAAAAAAAAAAAAAAAull & m,
                              m >> 1,
                              m - 1,
                              2,
                              bitcts_rng_next(rng) & m};
    return edges[bitcts_rng_below(rng, sizeof edges / sizeof edges[0])];
}

static uint64_t shift_count(bitcts_rng *rng, uint32_t width, uint32_t values)
{
    const uint64_t m = mask_of(width);
    if (values == BITCTS_VALUES_RANDOM) {
        return bitcts_rng_below(rng, width);
    }
    if (values == BITCTS_VALUES_EDGE) {
        const uint64_t counts[] = {0, 1, width - 1, width / 2, bitcts_rng_below(rng, width)};
        return counts[bitcts_rng_below(rng, 5)];
    }
    if (bitcts_rng_below(rng, 2) == 0) { /* shift_oob: half in range, half at or past the width */
        return bitcts_rng_below(rng, width);
    }
    const uint64_t oob[] = {width,     width + 1, 2 * width - 1,
                            2 * width, m,         width + bitcts_rng_below(rng, m - width + 1)};
    return oob[bitcts_rng_below(rng, 6)];
}

static uint64_t enumerated(const bitcts_case_key *key, uint32_t which, uint64_t slot)
{
    if (bitcts_op_input_count(key->op) == 1) {
        return slot;
    }
    return which == 0 ? slot >> 8 : slot & 0xFF; /* all (a, b) pairs, a-major */
}

void bitcts_case_fill(const bitcts_case_key *key, uint32_t which, const bitcts_op_desc *desc,
                      bitcts_rng *rng, uint8_t *buffer)
{
    const bitcts_tensor_desc *t = &desc->inputs[which];
    const uint32_t esize = bitcts_dtype_size(t->data_type);
    const uint32_t width = esize * 8;
    const uint64_t bytes = t->total_tensor_size_in_bytes;
    const int shift = bitcts_op_is_shift(key->op);
    const int is_float = bitcts_dtype_is_float(t->data_type);
    uint64_t slot = 0;
    for (uint64_t off = 0; off + esize <= bytes; off += esize, ++slot) {
        uint64_t v;
        if (key->values == BITCTS_VALUES_ENUMERATED) {
            v = enumerated(key, which, slot);
        } else if (shift && which == 1 && key->values == BITCTS_VALUES_SHIFT_OOB && slot == 0) {
            v = width; /* offset 0 is always an element: every shift_oob case has one */
        } else if (shift && which == 1) {
            v = shift_count(rng, width, key->values);
        } else if (key->values == BITCTS_VALUES_RANDOM) {
            v = bitcts_rng_next(rng);
        } else {
            v = edge_value(rng, width, is_float);
        }
        for (uint32_t k = 0; k < esize; ++k) {
            buffer[off + k] = (uint8_t)(v >> (8 * k));
        }
    }
    for (uint64_t off = slot * esize; off < bytes; ++off) { /* a partial trailing slot */
        buffer[off] = (uint8_t)bitcts_rng_next(rng);
    }
}

static void repack(bitcts_tensor_desc *t)
{
    uint64_t need = 0;
    if (bitcts_tensor_calc_buffer_size(t, &need) == 0) {
        t->total_tensor_size_in_bytes = need;
    }
}

/* Negative cases: every mutation breaks exactly the rule named in the id (tested). */
void bitcts_case_invalid_desc(const bitcts_case_key *key, bitcts_op_desc *d)
{
    static const uint32_t base_sizes[4] = {2, 3, 4, 5};
    memset(d, 0, sizeof *d);
    d->op = key->op;
    d->input_count = bitcts_op_input_count(key->op);
    bitcts_tensor_desc *all[3] = {&d->inputs[0], &d->inputs[1], &d->output};
    const uint32_t n = d->input_count + 1; /* tensors in use: inputs then the output */
    all[n - 1] = &d->output;
    for (uint32_t i = 0; i < n; ++i) {
        bitcts_tensor_make_packed(BITCTS_DT_UINT8, 4, base_sizes, all[i]);
    }
    bitcts_tensor_desc *last = all[n - 1]; /* B, or the unary operator's output */
    if (d->input_count == 2) {
        last = &d->inputs[1];
    }
    const uint32_t v = key->index;
    switch (key->rule) {
    case BITCTS_RULE_SIZE_ZERO:
        for (uint32_t i = 0; i < n; ++i) {
            all[i]->sizes[2] = 0;
        }
        break;
    case BITCTS_RULE_DIMENSION_COUNT:
        for (uint32_t i = 0; i < n; ++i) {
            all[i]->dimension_count = v == 0 ? 0 : 9;
            all[i]->sizes[4] = all[i]->sizes[5] = all[i]->sizes[6] = all[i]->sizes[7] = 1;
            all[i]->sizes[8] = 1;
        }
        break;
    case BITCTS_RULE_DIMS_MISMATCH:
        last->dimension_count = 3;
        repack(last);
        break;
    case BITCTS_RULE_SIZES_MISMATCH:
        last->sizes[3] = 6;
        repack(last);
        break;
    case BITCTS_RULE_TYPE_MISMATCH:
        last->data_type = BITCTS_DT_UINT16;
        repack(last);
        break;
    case BITCTS_RULE_UNKNOWN_TYPE:
        for (uint32_t i = 0; i < (v == 0 ? n : 1); ++i) {
            all[i]->data_type = v == 0 ? BITCTS_DT_UNKNOWN : 200;
        }
        break;
    case BITCTS_RULE_TYPE_NOT_ALLOWED:
        for (uint32_t i = 0; i < n; ++i) {
            all[i]->data_type = v == 0 ? BITCTS_DT_INT32 : BITCTS_DT_FLOAT32;
            repack(all[i]);
        }
        break;
    case BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED: {
        static const uint32_t bad[3] = {BITCTS_DT_UINT16, BITCTS_DT_INT32, BITCTS_DT_UINT64};
        d->output.data_type = bad[v % 3];
        repack(&d->output);
        break;
    }
    case BITCTS_RULE_TOO_MANY_ELEMENTS:
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t big[4] = {65536, 65537, 1, 1};
            memcpy(all[i]->sizes, big, sizeof big);
            if (all[i] != &d->output) { /* inputs broadcast: 4 bytes hold them */
                all[i]->has_strides = 1;
                memset(all[i]->strides, 0, sizeof all[i]->strides);
            }
            repack(all[i]);
        }
        break;
    case BITCTS_RULE_BUFFER_TOO_SMALL:
        (v == 0 ? all[0] : &d->output)->total_tensor_size_in_bytes -= 4;
        break;
    case BITCTS_RULE_OUTPUT_ZERO_STRIDE: {
        const uint32_t strides[4] = {0, 20, 5, 1};
        d->output.has_strides = 1;
        memcpy(d->output.strides, strides, sizeof strides);
        repack(&d->output);
        break;
    }
    case BITCTS_RULE_OUTPUT_OVERLAP: {
        const uint32_t strides[4] = {1, 1, 1, 1};
        d->output.has_strides = 1;
        memcpy(d->output.strides, strides, sizeof strides);
        repack(&d->output);
        break;
    }
    case BITCTS_RULE_ALIGNMENT:
        if (v == 0) {
            d->inputs[0].guaranteed_base_offset_alignment = 3;
        } else {
            d->output.guaranteed_base_offset_alignment = 24;
        }
        break;
    case BITCTS_RULE_OUTPUT_FLAGS: d->output.flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML; break;
    case BITCTS_RULE_UNKNOWN_FLAGS: d->inputs[0].flags = 0x4; break;
    default: break;
    }
}
