/* SPDX-License-Identifier: MIT */
/* The initial output buffer's poison: one walk over the output's logical elements. */
#include "case_initial.h"
#include "ref_ops.h"
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
