/* SPDX-License-Identifier: MIT */
/* Validation of an operator description the way DirectML validates it (spec sections 1.2,
 * 1.3, 3.x), written for the CPU backend alone: a backend shares no code with the oracle.
 * On success the description is copied into a bitcts__cpu_op_info that outlives the caller's
 * borrowed arrays. Thread-safety: pure (allocates only for the exact overlap check). */
#ifndef BITCTS_CPU_CPU_VALIDATE_H
#define BITCTS_CPU_CPU_VALIDATE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, int32_t */

#include "bitcts/bitcts_plugin.h" /* bitcts_abi_operator_desc */

#ifdef __cplusplus
extern "C" {
#endif

/** A validated operator: operand 0 is the output, 1 and 2 the inputs. */
typedef struct bitcts__cpu_op_info {
    uint32_t op;
    uint32_t input_count;
    uint32_t rank;
    uint32_t sizes[BITCTS_MAX_DIMS];
    uint32_t data_type[3];
    uint32_t width[3];       /* element bytes */
    uint32_t has_strides[3]; /* 0: packed */
    uint32_t strides[3][BITCTS_MAX_DIMS];
} bitcts__cpu_op_info;

/** Checks every rule and fills out.
 * @param err [out] on failure, "rule_id: detail" naming the tensor and the numbers.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_ARGUMENT (NULL pointers, struct_size too small);
 *         BITCTS_ABI_E_NOT_SUPPORTED (not one of the seven operators);
 *         BITCTS_ABI_E_INVALID_DESCRIPTOR (a rule DirectML enforces);
 *         BITCTS_ABI_E_OUT_OF_MEMORY (the exact overlap check could not allocate). */
int32_t bitcts__cpu_validate_op(const bitcts_abi_operator_desc *desc, bitcts__cpu_op_info *out,
                                char *err, size_t err_cap);

#ifdef __cplusplus
}
#endif
#endif
