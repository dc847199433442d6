/* SPDX-License-Identifier: MIT */
/* The bit-exact scalar reference of the seven DirectML bitwise operators: the oracle. Obviously
 * correct, not fast; shares no code with any backend. Spec: docs/spec/.
 * Thread-safety: reentrant; no global state. */
#ifndef BITCTS_REFERENCE_REF_OPS_H
#define BITCTS_REFERENCE_REF_OPS_H

#include <stdint.h> /* uint64_t */

#include "tensor_model.h" /* bitcts_op_desc */

#ifdef __cplusplus
extern "C" {
#endif

/* What a shift by a count >= the element width gives (spec 1.5: not specified by DirectML). */
#define BITCTS_SHIFT_POLICY_MASK 1     /* the count is masked to the width: count & (width - 1) */
#define BITCTS_SHIFT_POLICY_SATURATE 2 /* the result is 0 */

/** Computes the operator over buffers laid out as the description says. inputs[i] and output
 * hold total_tensor_size_in_bytes bytes each; output may equal an input (in place, identical
 * layout). Only the output's logical elements are written.
 * @param shift_policy BITCTS_SHIFT_POLICY_* used for counts >= width (ignored otherwise).
 * @return BITCTS_OK, or BITCTS_E_INVALID_DESCRIPTOR when the description is not valid at the
 *         highest feature level (the reference computes only valid descriptions). */
int bitcts_ref_execute(const bitcts_op_desc *desc, const void *const *inputs, void *output,
                       int shift_policy);

/** The result of one element: a and b are the raw bits of the inputs (b ignored by unary
 * operators), width the input width in bits. Exposed for eval and for tests. */
uint64_t bitcts_ref_element(uint32_t op, uint32_t width, uint64_t a, uint64_t b, int shift_policy);

/** Reads the little-endian element of `width_bytes` bytes at p. Inline: the harness calls it
 * per element (the poison, the comparison); each width is spelled out so that a compiler makes
 * one load of it, and the loop takes any other width. */
static inline uint64_t bitcts_ref_load(const uint8_t *p, uint32_t width_bytes)
{
    switch (width_bytes) {
    case 1: return p[0];
    case 2: return (uint64_t)p[0] | (uint64_t)p[1] << 8;
    case 4:
        return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    default: {
        uint64_t v = 0;
        for (uint32_t k = 0; k < width_bytes; ++k) {
            v |= (uint64_t)p[k] << (8 * k);
        }
        return v;
    }
    }
}

/** Writes the low `width_bytes` bytes of v at p, little-endian. */
static inline void bitcts_ref_store(uint8_t *p, uint32_t width_bytes, uint64_t v)
{
    for (uint32_t k = 0; k < width_bytes; ++k) {
        p[k] = (uint8_t)(v >> (8 * k));
    }
}

#ifdef __cplusplus
}
#endif
#endif
