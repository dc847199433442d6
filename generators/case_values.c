/* SPDX-License-Identifier: MIT */
/* Value classes and the fixed shapes of the large and exhaustive tiers (docs/case-plan.md,
 * "Input bytes"). Every element slot draws a fixed number of stream words, so element k's value
 * depends on its slot index alone: words 2k and 2k+1 (edge, shift_oob counts) or word k. */
#include <string.h> /* memcpy */

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

uint64_t bitcts_edge_value(uint32_t index, uint32_t width, uint64_t r)
{
    const uint64_t m = mask_of(width);
    const uint64_t top = 1ull << (width - 1);
    const uint64_t walk = 1ull << (r % width);
    const uint64_t table[BITCTS_EDGE_COUNT] = {
        0,                         /* 0: zero */
        m,                         /* 1: all ones (unsigned MAX, signed -1) */
        top,                       /* 2: top bit (signed MIN) */
        1,                         /* 3: low bit */
        walk,                      /* 4: walking one */
        m ^ walk,                  /* 5: walking zero */
        0x5555555555555555ull & m, /* 6: 0101... */
        0xAAAAAAAAAAAAAAAAull & m, /* 7: 1010... */
        m >> 1,                    /* 8: signed MAX */
        m - 1,                     /* 9: unsigned MAX-1 */
        (m >> 1) - 1,              /* 10: signed MAX-1 */
        top + 1,                   /* 11: signed MIN+1 */
        2,                         /* 12: two */
        r & m,                     /* 13: random bits */
    };
    return table[index % BITCTS_EDGE_COUNT];
}

/* IEEE 754 binary16/32/64 specials (spec section 6.3): both signs of each. */
uint64_t bitcts_special_value(uint32_t index, uint32_t width, uint64_t r)
{
    const uint32_t f = width == 16 ? 10 : width == 32 ? 23 : 52; /* fraction bits */
    const uint32_t e = width - 1 - f;                            /* exponent bits */
    const uint64_t s = 1ull << (width - 1);
    const uint64_t x = ((1ull << e) - 1) << f; /* exponent all ones */
    const uint64_t q = 1ull << (f - 1);        /* the quiet bit */
    const uint64_t p = (r % q) | 1;            /* a nonzero payload below the quiet bit */
    const uint64_t one = ((1ull << (e - 1)) - 1) << f;
    const uint64_t table[BITCTS_SPECIAL_COUNT] = {
        0,                     /* 0: +0 */
        s,                     /* 1: -0 */
        x,                     /* 2: +inf */
        s | x,                 /* 3: -inf */
        x | q,                 /* 4: +canonical quiet NaN */
        s | x | q,             /* 5: -canonical quiet NaN */
        x | q | p,             /* 6: +quiet NaN with payload */
        s | x | q | p,         /* 7: -quiet NaN with payload */
        x | p,                 /* 8: +signalling NaN */
        s | x | p,             /* 9: -signalling NaN */
        1,                     /* 10: +smallest denormal */
        s | 1,                 /* 11: -smallest denormal */
        (1ull << f) - 1,       /* 12: +largest denormal */
        s | ((1ull << f) - 1), /* 13: -largest denormal */
        1ull << f,             /* 14: +smallest normal */
        s | (1ull << f),       /* 15: -smallest normal */
        x - 1,                 /* 16: +largest normal */
        s | (x - 1),           /* 17: -largest normal */
        one,                   /* 18: +1.0 */
        s | one,               /* 19: -1.0 */
    };
    return table[index % BITCTS_SPECIAL_COUNT];
}

/* Values drawn from two words: s selects, r supplies random bits. */
static uint64_t edge_element(uint32_t width, int is_float, uint64_t s, uint64_t r)
{
    if (!is_float) {
        return bitcts_edge_value((uint32_t)(s % BITCTS_EDGE_COUNT), width, r);
    }
    if (s % 2 == 0) {
        return bitcts_special_value((uint32_t)((s >> 1) % BITCTS_SPECIAL_COUNT), width, r);
    }
    return bitcts_edge_value((uint32_t)((s >> 1) % BITCTS_EDGE_COUNT), width, r);
}

static uint64_t edge_count(uint32_t width, uint64_t s, uint64_t r)
{
    const uint64_t counts[5] = {0, 1, width - 1, width / 2, r % width};
    return counts[s % 5];
}

static uint64_t oob_count(uint32_t width, uint64_t s, uint64_t r)
{
    const uint64_t m = mask_of(width);
    if (s % 2 == 0) {
        return r % width;
    }
    const uint64_t oob[6] = {width,     width + 1, 2 * width - 1,
                             2 * width, m,         width + r % (m - width + 1)};
    return oob[(s >> 1) % 6];
}

static uint64_t enumerated(const bitcts_case_key *key, uint32_t which, uint64_t slot)
{
    if (bitcts_op_input_count(key->op) == 1) {
        return slot;
    }
    return which == 0 ? slot >> 8 : slot & 0xFF; /* all (a, b) pairs, a-major */
}

/* The words a slot draws: 0 (enumerated), 1 (random bits, random counts, shift_oob's A) or 2. */
static uint32_t words_per_slot(const bitcts_case_key *key, int count)
{
    switch (key->values) {
    case BITCTS_VALUES_ENUMERATED: return 0;
    case BITCTS_VALUES_RANDOM: return 1;
    case BITCTS_VALUES_EDGE: return 2;
    default: return count ? 2 : 1; /* shift_oob */
    }
}

void bitcts_case_fill(const bitcts_case_key *key, uint32_t which, const bitcts_op_desc *desc,
                      bitcts_rng *rng, uint8_t *buffer)
{
    const bitcts_tensor_desc *t = &desc->inputs[which];
    const uint32_t esize = bitcts_dtype_size(t->data_type);
    const uint32_t width = esize * 8;
    const uint64_t m = mask_of(width);
    const uint64_t bytes = t->total_tensor_size_in_bytes;
    const int count = bitcts_op_is_shift(key->op) && which == 1; /* B holds shift counts */
    const int is_float = bitcts_dtype_is_float(t->data_type);
    const uint32_t words = words_per_slot(key, count);
    uint64_t slot = 0;
    for (uint64_t off = 0; off + esize <= bytes; off += esize, ++slot) {
        const uint64_t w0 = words > 0 ? bitcts_rng_next(rng) : 0;
        const uint64_t w1 = words > 1 ? bitcts_rng_next(rng) : 0;
        uint64_t v;
        if (key->values == BITCTS_VALUES_ENUMERATED) {
            v = enumerated(key, which, slot);
        } else if (key->values == BITCTS_VALUES_EDGE) {
            v = count ? edge_count(width, w0, w1) : edge_element(width, is_float, w0, w1);
        } else if (count && key->values == BITCTS_VALUES_SHIFT_OOB) {
            v = slot == 0 ? width : oob_count(width, w0, w1); /* offset 0 is always an element */
        } else {
            v = count ? w0 % width : w0 & m;
        }
        for (uint32_t k = 0; k < esize; ++k) {
            buffer[off + k] = (uint8_t)(v >> (8 * k));
        }
    }
    if (slot * esize < bytes) { /* a trailing partial slot: the next word, low bytes first */
        const uint64_t w = bitcts_rng_next(rng);
        for (uint64_t off = slot * esize, k = 0; off < bytes; ++off, ++k) {
            buffer[off] = (uint8_t)(w >> (8 * k));
        }
    }
}
