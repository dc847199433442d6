/* SPDX-License-Identifier: MIT */
/* DirectML's numbers for the bitwise operator family, as the plugin SDK gives them: operator
 * types, tensor data types with their widths, feature levels and tensor flags (docs/spec,
 * sections 1.1, 3.4, 3.5 and 4.1). Each family is one X-macro list, so a plugin can generate its
 * own tables from it; the few helpers below are static inline and need no library.
 * Thread-safety: constants and pure functions only. */
#ifndef BITCTS_INCLUDE_BITCTS_DML_H
#define BITCTS_INCLUDE_BITCTS_DML_H

#include <stdint.h> /* uint32_t, uint64_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- DML_TENSOR_DATA_TYPE (spec 3.4) ----
 * X(NAME, value, bytes, is_float, is_signed_integer, "name"). Values are DirectML's. */
#define BITCTS_DML_DATA_TYPE_LIST(X)                                                               \
    X(FLOAT32, 1, 4, 1, 0, "float32")                                                              \
    X(FLOAT16, 2, 2, 1, 0, "float16")                                                              \
    X(UINT32, 3, 4, 0, 0, "uint32")                                                                \
    X(UINT16, 4, 2, 0, 0, "uint16")                                                                \
    X(UINT8, 5, 1, 0, 0, "uint8")                                                                  \
    X(INT32, 6, 4, 0, 1, "int32")                                                                  \
    X(INT16, 7, 2, 0, 1, "int16")                                                                  \
    X(INT8, 8, 1, 0, 1, "int8")                                                                    \
    X(FLOAT64, 9, 8, 1, 0, "float64")                                                              \
    X(UINT64, 10, 8, 0, 0, "uint64")                                                               \
    X(INT64, 11, 8, 0, 1, "int64")

#define BITCTS_DT_UNKNOWN 0u /* DML_TENSOR_DATA_TYPE_UNKNOWN */
#define BITCTS_DT_FLOAT32 1u
#define BITCTS_DT_FLOAT16 2u
#define BITCTS_DT_UINT32 3u
#define BITCTS_DT_UINT16 4u
#define BITCTS_DT_UINT8 5u
#define BITCTS_DT_INT32 6u
#define BITCTS_DT_INT16 7u
#define BITCTS_DT_INT8 8u
#define BITCTS_DT_FLOAT64 9u
#define BITCTS_DT_UINT64 10u
#define BITCTS_DT_INT64 11u
#define BITCTS_DT_COUNT 12u /* one past the last value bitcts knows */

/* Type masks as the ABI's capability fields use them: bit (1u << data_type). */
#define BITCTS_DT_BIT(data_type) (1u << (data_type))
#define BITCTS_DT_MASK_ALL 0x0FFEu /* the eleven types 1..11 */
#define BITCTS_DT_MASK_SMALL_UNSIGNED                                                              \
    (BITCTS_DT_BIT(BITCTS_DT_UINT8) | BITCTS_DT_BIT(BITCTS_DT_UINT16) |                            \
     BITCTS_DT_BIT(BITCTS_DT_UINT32))
#define BITCTS_DT_MASK_UNSIGNED (BITCTS_DT_MASK_SMALL_UNSIGNED | BITCTS_DT_BIT(BITCTS_DT_UINT64))
/* BIT_COUNT's output types at every feature level (spec 1.6). */
#define BITCTS_DT_MASK_COUNT_OUTPUT                                                                \
    (BITCTS_DT_BIT(BITCTS_DT_UINT8) | BITCTS_DT_BIT(BITCTS_DT_UINT32))

/* ---- DML_OPERATOR_TYPE (spec 1.1) ----
 * X(NAME, value, inputs, "name"), in bitcts's fixed operator order. */
#define BITCTS_DML_OPERATOR_LIST(X)                                                                \
    X(BIT_AND, 121, 2, "bit_and")                                                                  \
    X(BIT_OR, 122, 2, "bit_or")                                                                    \
    X(BIT_XOR, 123, 2, "bit_xor")                                                                  \
    X(BIT_NOT, 124, 1, "bit_not")                                                                  \
    X(BIT_COUNT, 125, 1, "bit_count")                                                              \
    X(BIT_SHIFT_LEFT, 97, 2, "bit_shift_left")                                                     \
    X(BIT_SHIFT_RIGHT, 98, 2, "bit_shift_right")

#define BITCTS_OP_BIT_SHIFT_LEFT 97u
#define BITCTS_OP_BIT_SHIFT_RIGHT 98u
#define BITCTS_OP_BIT_AND 121u
#define BITCTS_OP_BIT_OR 122u
#define BITCTS_OP_BIT_XOR 123u
#define BITCTS_OP_BIT_NOT 124u
#define BITCTS_OP_BIT_COUNT 125u
#define BITCTS_OP_COUNT 7u /* operators in the family */

/* ---- DML_FEATURE_LEVEL (spec 4.1): 0xMm00 for M_m ---- */
#define BITCTS_DML_FEATURE_LEVEL_LIST(X)                                                           \
    X(1_0, 0x1000)                                                                                 \
    X(2_0, 0x2000)                                                                                 \
    X(2_1, 0x2100)                                                                                 \
    X(3_0, 0x3000)                                                                                 \
    X(3_1, 0x3100)                                                                                 \
    X(4_0, 0x4000)                                                                                 \
    X(4_1, 0x4100)                                                                                 \
    X(5_0, 0x5000)                                                                                 \
    X(5_1, 0x5100)                                                                                 \
    X(5_2, 0x5200)                                                                                 \
    X(6_0, 0x6000)                                                                                 \
    X(6_1, 0x6100)                                                                                 \
    X(6_2, 0x6200)                                                                                 \
    X(6_3, 0x6300)                                                                                 \
    X(6_4, 0x6400)

#define BITCTS_FL_1_0 0x1000u
#define BITCTS_FL_2_0 0x2000u
#define BITCTS_FL_2_1 0x2100u /* BIT_SHIFT_LEFT/RIGHT, exactly 4 dims */
#define BITCTS_FL_3_0 0x3000u /* all seven, 1-8 dims, UINT8/16/32 */
#define BITCTS_FL_3_1 0x3100u
#define BITCTS_FL_4_0 0x4000u
#define BITCTS_FL_4_1 0x4100u /* the extended types */
#define BITCTS_FL_5_0 0x5000u
#define BITCTS_FL_6_4 0x6400u

/* ---- DML_TENSOR_FLAGS (spec 3.5) and limits (spec 3.6) ---- */
#define BITCTS_TENSOR_FLAG_NONE 0x0u
#define BITCTS_TENSOR_FLAG_OWNED_BY_DML 0x1u /* inputs only */
#define BITCTS_TENSOR_FLAGS_KNOWN 0x1u       /* every bit DirectML defines */

#define BITCTS_MAX_DIMS 8u
#define BITCTS_DIMS_1_TO_8 0x01FEu        /* dimension_counts mask: bit n for DimensionCount n */
#define BITCTS_MAX_ELEMENTS 0xFFFFFFFFull /* 2^32 - 1 elements per tensor */

/* ---- helpers ---- */

/** Element size in bytes of a DML_TENSOR_DATA_TYPE (1, 2, 4, 8); 0 for an unknown type. */
static inline uint32_t bitcts_dml_type_bytes(uint32_t data_type)
{
#define BITCTS_DML_TYPE_BYTES_CASE(name, value, bytes, is_float, is_signed, text)                  \
    case value: return bytes;
    switch (data_type) {
        BITCTS_DML_DATA_TYPE_LIST(BITCTS_DML_TYPE_BYTES_CASE)
    default: return 0;
    }
#undef BITCTS_DML_TYPE_BYTES_CASE
}

/** Inputs of one of the seven operators (1 or 2); 0 for any other operator type. */
static inline uint32_t bitcts_dml_op_inputs(uint32_t operator_type)
{
#define BITCTS_DML_OP_INPUTS_CASE(name, value, inputs, text)                                       \
    case value: return inputs;
    switch (operator_type) {
        BITCTS_DML_OPERATOR_LIST(BITCTS_DML_OP_INPUTS_CASE)
    default: return 0;
    }
#undef BITCTS_DML_OP_INPUTS_CASE
}

/** The input types DirectML documents for an operator (bit 1 << type): the unsigned ones for
 * the shifts, all eleven for the others; 0 for any other operator type. */
static inline uint32_t bitcts_dml_op_input_types(uint32_t operator_type)
{
    if (operator_type == BITCTS_OP_BIT_SHIFT_LEFT || operator_type == BITCTS_OP_BIT_SHIFT_RIGHT) {
        return BITCTS_DT_MASK_UNSIGNED;
    }
    return bitcts_dml_op_inputs(operator_type) != 0 ? BITCTS_DT_MASK_ALL : 0u;
}

/** The output types DirectML documents: UINT8 and UINT32 for BIT_COUNT, else the input types. */
static inline uint32_t bitcts_dml_op_output_types(uint32_t operator_type)
{
    return operator_type == BITCTS_OP_BIT_COUNT ? BITCTS_DT_MASK_COUNT_OUTPUT
                                                : bitcts_dml_op_input_types(operator_type);
}

#ifdef __cplusplus
}
#endif
#endif
