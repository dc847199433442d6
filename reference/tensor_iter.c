/* SPDX-License-Identifier: MIT */
/* The logical-element iterator: an odometer over the shape. Each step adds the innermost
 * dimension's stride to every offset; a dimension that wraps subtracts what it added. */
#include <string.h> /* memset */

#include "tensor_iter.h"

static void iter_reset(bitcts_tensor_iter *it, const bitcts_tensor_desc *shape, uint32_t tensors)
{
    memset(it, 0, sizeof *it);
    it->rank = shape->dimension_count;
    it->tensors = tensors;
    for (uint32_t k = 0; k < it->rank; ++k) {
        it->sizes[k] = shape->sizes[k];
    }
    it->count = bitcts_tensor_element_count(shape);
}

void bitcts_tensor_iter_init(bitcts_tensor_iter *it, const bitcts_tensor_desc *t)
{
    iter_reset(it, t, 1);
    for (uint32_t k = 0; k < it->rank; ++k) {
        it->stride[0][k] = bitcts_tensor_stride(t, k);
    }
}

void bitcts_tensor_iter_init_op(bitcts_tensor_iter *it, const bitcts_op_desc *d)
{
    iter_reset(it, &d->output, d->input_count + 1);
    for (uint32_t k = 0; k < it->rank; ++k) {
        for (uint32_t t = 0; t < d->input_count; ++t) {
            it->stride[t][k] = bitcts_tensor_stride(&d->inputs[t], k);
        }
        it->stride[d->input_count][k] = bitcts_tensor_stride(&d->output, k);
    }
}

void bitcts_tensor_iter_step(bitcts_tensor_iter *it)
{
    ++it->index;
    for (uint32_t k = it->rank; k-- > 0;) {
        for (uint32_t t = 0; t < it->tensors; ++t) {
            it->offset[t] += it->stride[t][k];
        }
        if (++it->coord[k] < it->sizes[k]) {
            return;
        }
        for (uint32_t t = 0; t < it->tensors; ++t) {
            it->offset[t] -= (uint64_t)it->coord[k] * it->stride[t][k];
        }
        it->coord[k] = 0;
    }
}

uint64_t bitcts_tensor_iter_row_left(const bitcts_tensor_iter *it)
{
    const uint32_t k = it->rank - 1;
    return (uint64_t)(it->sizes[k] - it->coord[k]);
}

void bitcts_tensor_iter_next_row(bitcts_tensor_iter *it)
{
    /* Stand on the row's last element, then take one ordinary step from there. */
    const uint32_t k = it->rank - 1;
    const uint64_t skip = bitcts_tensor_iter_row_left(it) - 1;
    for (uint32_t t = 0; t < it->tensors; ++t) {
        it->offset[t] += skip * it->stride[t][k];
    }
    it->coord[k] += (uint32_t)skip;
    it->index += skip;
    bitcts_tensor_iter_next(it);
}
