/* SPDX-License-Identifier: MIT */
/* The one logical-element iterator of bitcts: visits the logical elements of a tensor, or of an
 * operator's tensors together, in row-major order of the shape, keeping the coordinates, the
 * linear index and each tensor's element offset (docs/spec: offset = dot(coord, Strides)).
 * Offsets are stepped with additions only. Used by the reference, validation, the comparison,
 * the digests and eval. Thread-safety: an iterator is single-threaded; the functions are pure. */
#ifndef BITCTS_REFERENCE_TENSOR_ITER_H
#define BITCTS_REFERENCE_TENSOR_ITER_H

#include <stdint.h> /* uint32_t, uint64_t */

#include "tensor_model.h" /* bitcts_tensor_desc, bitcts_op_desc, BITCTS_MAX_DIMS */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS_ITER_MAX_TENSORS 3u /* A, B and the output */

/** The state of a walk. Read coord, index and offset[] between steps; write nothing. */
typedef struct bitcts_tensor_iter {
    uint32_t rank;
    uint32_t tensors;                         /* tensors walked together */
    uint32_t sizes[BITCTS_MAX_DIMS];          /* the shape walked */
    uint32_t coord[BITCTS_MAX_DIMS];          /* the current element's coordinates */
    uint64_t index;                           /* its row-major linear index, 0 .. count - 1 */
    uint64_t count;                           /* logical elements */
    uint64_t offset[BITCTS_ITER_MAX_TENSORS]; /* its element offset in each tensor */
    uint64_t stride[BITCTS_ITER_MAX_TENSORS][BITCTS_MAX_DIMS];
} bitcts_tensor_iter;

/** Starts a walk over one tensor's logical elements (offset[0] is the tensor's).
 * @pre 1 <= t->dimension_count <= BITCTS_MAX_DIMS. */
void bitcts_tensor_iter_init(bitcts_tensor_iter *it, const bitcts_tensor_desc *t);

/** Starts a walk over an operator's tensors in the output's shape: offset[i] for the inputs
 * i < input_count, offset[input_count] for the output (so the roles of bitcts_role_name).
 * @pre the description is valid (equal ranks and sizes). */
void bitcts_tensor_iter_init_op(bitcts_tensor_iter *it, const bitcts_op_desc *d);

/** 1 while the iterator stands on an element (index < count). */
static inline int bitcts_tensor_iter_more(const bitcts_tensor_iter *it)
{
    return it->index < it->count;
}

/** The step of bitcts_tensor_iter_next, whole (any dimension may wrap). */
void bitcts_tensor_iter_step(bitcts_tensor_iter *it);

/** Steps to the next element in row-major order (the last dimension fastest). Inline where the
 * step stays in its row (most steps); bitcts_tensor_iter_step otherwise. */
static inline void bitcts_tensor_iter_next(bitcts_tensor_iter *it)
{
    const uint32_t k = it->rank - 1;
    if (it->coord[k] + 1 < it->sizes[k]) {
        ++it->index;
        ++it->coord[k];
        for (uint32_t t = 0; t < it->tensors; ++t) {
            it->offset[t] += it->stride[t][k];
        }
        return;
    }
    bitcts_tensor_iter_step(it);
}

/** The elements from the current one to the end of its row (the last dimension), this one
 * included: 1 .. sizes[rank - 1]. @pre bitcts_tensor_iter_more(it). */
uint64_t bitcts_tensor_iter_row_left(const bitcts_tensor_iter *it);

/** Steps past the rest of the current row: the same as bitcts_tensor_iter_row_left(it) calls
 * of bitcts_tensor_iter_next, in one step. @pre bitcts_tensor_iter_more(it). */
void bitcts_tensor_iter_next_row(bitcts_tensor_iter *it);

#ifdef __cplusplus
}
#endif
#endif
