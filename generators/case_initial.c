/* SPDX-License-Identifier: MIT */
/* The initial output buffer's poison, and the second draw of it: one walk over the output's
 * logical elements each. */
#include <string.h> /* memcpy */

#include "case_initial.h"
#include "ref_ops.h"
#include "rng.h"
#include "tensor_iter.h"

void bitcts_case_poison(const bitcts_op_desc *desc, const uint8_t *expected,
                        const uint8_t *expected_mask, uint8_t *output)
{
    const uint32_t w = bitcts_dtype_size(desc->output.data_type);
    const uint32_t out = desc->input_count;
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init_op(&it, desc);
    while (bitcts_tensor_iter_more(&it)) {
        const uint64_t off = it.offset[out] * w;
        if (expected_mask == NULL && it.stride[out][it.rank - 1] == 1) {
            /* A contiguous row: each element's complement is the complement of its bytes. */
            const uint64_t bytes = bitcts_tensor_iter_row_left(&it) * w;
            for (uint64_t i = 0; i < bytes; ++i) {
                output[off + i] = (uint8_t)~expected[off + i];
            }
            bitcts_tensor_iter_next_row(&it);
            continue;
        }
        /* The complement within the element's width: compared with the mask policy's value
         * as stored (a complement of all 64 bits never equals a narrower element). */
        const uint64_t width_mask = w < 8 ? ((uint64_t)1 << (8 * w)) - 1 : UINT64_MAX;
        uint64_t v = ~bitcts_ref_load(expected + off, w) & width_mask;
        if (expected_mask != NULL && v == bitcts_ref_load(expected_mask + off, w)) {
            v ^= 1; /* differs from both policies' values */
        }
        bitcts_ref_store(output + off, w, v);
        bitcts_tensor_iter_next(&it);
    }
}

/* The bits that choose each element's kept bit: 6 per element, ten elements per draw. */
typedef struct poison_bits {
    bitcts_rng rng;
    uint64_t word;
    uint32_t left;
} poison_bits;

static uint32_t poison_bit(poison_bits *b, uint32_t bits)
{
    if (b->left == 0) {
        b->word = bitcts_rng_next(&b->rng);
        b->left = 10;
    }
    const uint32_t v = (uint32_t)(b->word & 63u);
    b->word >>= 6;
    --b->left;
    return v % bits;
}

/* One element of the second poison: the complement of the first but for one drawn bit, drawn
 * again while that is the expected value or the mask policy's (at most two of the width's
 * candidates). */
static uint64_t poison_redraw(poison_bits *b, uint32_t bits, uint64_t width_mask, uint64_t first,
                              uint64_t expected, uint64_t masked)
{
    uint64_t v = expected;
    while (v == expected || v == masked) {
        v = (~first & width_mask) ^ ((uint64_t)1 << poison_bit(b, bits));
    }
    return v;
}

void bitcts_case_poison_again(const bitcts_op_desc *desc, const uint8_t *expected,
                              const uint8_t *expected_mask, uint64_t case_seed, uint8_t *output)
{
    const uint32_t w = bitcts_dtype_size(desc->output.data_type);
    const uint32_t out = desc->input_count;
    const uint64_t width_mask = w < 8 ? ((uint64_t)1 << (8 * w)) - 1 : UINT64_MAX;
    poison_bits b;
    bitcts_rng_init(&b.rng, case_seed, "poison.1");
    b.left = 0;
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init_op(&it, desc);
    while (bitcts_tensor_iter_more(&it)) {
        const uint64_t off = it.offset[out] * w;
        if (expected_mask == NULL && it.stride[out][it.rank - 1] == 1) {
            /* A contiguous row, not recorded: the first poison is the complement of the expected
             * value, so the second is the expected value with the drawn bit flipped. */
            const uint64_t n = bitcts_tensor_iter_row_left(&it);
            memcpy(output + off, expected + off, (size_t)(n * w));
            for (uint64_t i = 0; i < n; ++i) {
                const uint32_t bit = poison_bit(&b, 8 * w);
                output[off + i * w + bit / 8] ^= (uint8_t)(1u << (bit % 8));
            }
            bitcts_tensor_iter_next_row(&it);
            continue;
        }
        const uint64_t e = bitcts_ref_load(expected + off, w);
        /* Not recorded: the mask policy's value is the expected one, excluded anyway. */
        const uint64_t m = expected_mask != NULL ? bitcts_ref_load(expected_mask + off, w) : e;
        const uint64_t first = bitcts_ref_load(output + off, w);
        bitcts_ref_store(output + off, w, poison_redraw(&b, 8 * w, width_mask, first, e, m));
        bitcts_tensor_iter_next(&it);
    }
}
