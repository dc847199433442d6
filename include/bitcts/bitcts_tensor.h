/* SPDX-License-Identifier: MIT */
/* The tensor model of bitcts, mirroring DirectML: data types, operator codes, feature levels,
 * DML_BUFFER_TENSOR_DESC, DMLCalcBufferTensorSize and the validation rules of docs/spec.
 * Implemented in reference/ (it is part of the oracle). Thread-safety: all functions are pure. */
#ifndef BITCTS_INCLUDE_BITCTS_TENSOR_H
#define BITCTS_INCLUDE_BITCTS_TENSOR_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, uint64_t */

#ifdef __cplusplus
extern "C" {
#endif

/* DML_TENSOR_DATA_TYPE values (spec 3.4). */
#define BITCTS_DT_UNKNOWN 0u
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

/* DML_OPERATOR_TYPE values (spec 1.1). */
#define BITCTS_OP_BIT_SHIFT_LEFT 97u
#define BITCTS_OP_BIT_SHIFT_RIGHT 98u
#define BITCTS_OP_BIT_AND 121u
#define BITCTS_OP_BIT_OR 122u
#define BITCTS_OP_BIT_XOR 123u
#define BITCTS_OP_BIT_NOT 124u
#define BITCTS_OP_BIT_COUNT 125u

/* DML_FEATURE_LEVEL values (spec 4.1). */
#define BITCTS_FL_1_0 0x1000u
#define BITCTS_FL_2_0 0x2000u
#define BITCTS_FL_2_1 0x2100u
#define BITCTS_FL_3_0 0x3000u
#define BITCTS_FL_3_1 0x3100u
#define BITCTS_FL_4_0 0x4000u
#define BITCTS_FL_4_1 0x4100u
#define BITCTS_FL_5_0 0x5000u
#define BITCTS_FL_6_4 0x6400u

/* DML_TENSOR_FLAGS (spec 3.5). */
#define BITCTS_TENSOR_FLAG_NONE 0x0u
#define BITCTS_TENSOR_FLAG_OWNED_BY_DML 0x1u

#define BITCTS_MAX_DIMS 8u
#define BITCTS_MAX_ELEMENTS 0xFFFFFFFFull /* 2^32 - 1 (spec 3.6) */

/** DML_BUFFER_TENSOR_DESC with its arrays held inline. has_strides = 0 means Strides == NULL
 * (packed). Strides are in elements. The arrays have one slot more than DirectML allows so
 * that a negative case can describe DimensionCount 9. */
typedef struct bitcts_tensor_desc {
    uint32_t data_type;
    uint32_t flags;
    uint32_t dimension_count;
    uint32_t sizes[BITCTS_MAX_DIMS + 1];
    uint32_t has_strides;
    uint32_t strides[BITCTS_MAX_DIMS + 1];
    uint64_t total_tensor_size_in_bytes;
    uint32_t guaranteed_base_offset_alignment;
} bitcts_tensor_desc;

/** An operator's tensors: inputs[0] is ATensor or InputTensor, inputs[1] BTensor. */
typedef struct bitcts_op_desc {
    uint32_t op;
    uint32_t input_count; /* 1 or 2 */
    bitcts_tensor_desc inputs[2];
    bitcts_tensor_desc output;
} bitcts_op_desc;

/* Validation rules (spec section 0 and 1.2, 1.3, 3.x). name, value, description. Pinned. */
#define BITCTS_RULE_LIST(X)                                                                        \
    X(BITCTS_RULE_OK, 0, "ok", "valid")                                                            \
    X(BITCTS_RULE_UNKNOWN_OPERATOR, 1, "unknown_operator", "the operator is not one of the seven") \
    X(BITCTS_RULE_OPERATOR_FL, 2, "operator_fl",                                                   \
      "the operator does not exist at this feature level")                                        \
    X(BITCTS_RULE_DIMENSION_COUNT, 3, "dimension_count",                                           \
      "DimensionCount is outside what the operator allows at this feature level")                 \
    X(BITCTS_RULE_SIZE_ZERO, 4, "size_zero", "a dimension has size 0")                             \
    X(BITCTS_RULE_DIMS_MISMATCH, 5, "dims_mismatch",                                               \
      "the tensors' DimensionCount values differ")                                                 \
    X(BITCTS_RULE_SIZES_MISMATCH, 6, "sizes_mismatch", "the tensors' Sizes differ")                \
    X(BITCTS_RULE_TYPE_MISMATCH, 7, "type_mismatch", "the tensors' DataType values differ")        \
    X(BITCTS_RULE_UNKNOWN_TYPE, 8, "unknown_type", "DataType is not a known DML data type")        \
    X(BITCTS_RULE_TYPE_NOT_ALLOWED, 9, "type_not_allowed",                                         \
      "the operator does not accept this input DataType at this feature level")                   \
    X(BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED, 10, "output_type_not_allowed",                          \
      "the operator does not accept this output DataType at this feature level")                  \
    X(BITCTS_RULE_TOO_MANY_ELEMENTS, 11, "too_many_elements",                                      \
      "the tensor has more than 2^32-1 elements")                                                  \
    X(BITCTS_RULE_BUFFER_TOO_SMALL, 12, "buffer_too_small",                                        \
      "TotalTensorSizeInBytes is below DMLCalcBufferTensorSize")                                   \
    X(BITCTS_RULE_SIZE_OVERFLOW, 13, "size_overflow",                                              \
      "the implied buffer size overflows 64 bits")                                                 \
    X(BITCTS_RULE_OUTPUT_ZERO_STRIDE, 14, "output_zero_stride",                                    \
      "the output has a zero stride on a dimension of size > 1")                                   \
    X(BITCTS_RULE_OUTPUT_OVERLAP, 15, "output_overlap",                                            \
      "two output elements share an offset")                                                       \
    X(BITCTS_RULE_ALIGNMENT, 16, "alignment",                                                      \
      "GuaranteedBaseOffsetAlignment is not 0 or a power of two >= the element size")            \
    X(BITCTS_RULE_OUTPUT_FLAGS, 17, "output_flags", "an output carries DML_TENSOR_FLAG_OWNED_BY_DML") \
    X(BITCTS_RULE_UNKNOWN_FLAGS, 18, "unknown_flags", "Flags has bits DirectML does not define")    \
    X(BITCTS_RULE_INPUT_COUNT, 19, "input_count", "the operator takes a different number of inputs")

#define BITCTS_RULE_ENUM_ENTRY(name, value, id, text) name = value,
typedef enum bitcts_rule { BITCTS_RULE_LIST(BITCTS_RULE_ENUM_ENTRY) } bitcts_rule;
#undef BITCTS_RULE_ENUM_ENTRY

/** Result of a validation: the rule broken, which tensor ("A", "B", "Input", "Output") and a
 * one-line explanation with the offending numbers. */
typedef struct bitcts_validation {
    bitcts_rule rule;
    char tensor[8];
    char detail[160];
} bitcts_validation;

/* ---- data types ---- */
/** Element size in bytes (1, 2, 4, 8), 0 for an unknown type. */
uint32_t bitcts_dtype_size(uint32_t data_type);
/** Lower-case name ("uint8"), or NULL for an unknown type. */
const char *bitcts_dtype_name(uint32_t data_type);
/** Parses a lower-case name; returns BITCTS_DT_UNKNOWN when it is not one. */
uint32_t bitcts_dtype_parse(const char *name);
/** 1 for FLOAT16/32/64. */
int bitcts_dtype_is_float(uint32_t data_type);
/** 1 for INT8/16/32/64. */
int bitcts_dtype_is_signed(uint32_t data_type);

/* ---- operators ---- */
/** "bit_xor" etc., or NULL. */
const char *bitcts_op_name(uint32_t op);
/** DML_OPERATOR_TYPE value for a name, or 0. */
uint32_t bitcts_op_parse(const char *name);
/** Number of inputs (1 or 2), 0 for an unknown operator. */
uint32_t bitcts_op_input_count(uint32_t op);
/** 1 when the output may alias an input (spec section 0: not BIT_COUNT). */
int bitcts_op_allows_in_place(uint32_t op);
/** The seven operator codes in a fixed order, for iteration. */
extern const uint32_t bitcts_op_all[7];
/** The position of op in bitcts_op_all (0-6), or -1 for an unknown operator. */
int bitcts_op_index(uint32_t op);

/* ---- feature levels ---- */
/** Parses "4_1", "4.1" or "0x4100"; returns 0 when malformed or unknown. */
uint32_t bitcts_fl_parse(const char *text);
/** Formats "4_1" into buf (at least 8 bytes). */
const char *bitcts_fl_format(uint32_t fl, char *buf, size_t cap);
/** The lowest feature level at which op accepts these input/output types and this rank, or 0
 * when no feature level does (spec 1.3, 4.2). */
uint32_t bitcts_fl_required(uint32_t op, uint32_t in_type, uint32_t out_type, uint32_t rank);

/* ---- buffer sizes ---- */
/** DMLCalcBufferTensorSize (spec 3.3) in 64 bits with overflow detection.
 * @return BITCTS_OK, BITCTS_E_INVALID_ARGUMENT (unknown type, rank outside 1-8), or
 *         BITCTS_E_OVERFLOW. */
int bitcts_tensor_calc_buffer_size(const bitcts_tensor_desc *desc, uint64_t *out_bytes);
/** Product of Sizes, 64 bits (cannot overflow for 8 dims of 32 bits? it can: saturates to
 * UINT64_MAX). */
uint64_t bitcts_tensor_element_count(const bitcts_tensor_desc *desc);
/** The element stride of dimension d (the explicit stride or the packed one). */
uint64_t bitcts_tensor_stride(const bitcts_tensor_desc *desc, uint32_t d);
/** Fills a desc with packed layout and the minimum TotalTensorSizeInBytes. */
int bitcts_tensor_make_packed(uint32_t data_type, uint32_t rank, const uint32_t *sizes,
                              bitcts_tensor_desc *out);

/* ---- validation ---- */
/** Checks an operator description at a feature level against every rule of the spec and
 * names the first rule broken. Rules are checked in a fixed, documented order. */
bitcts_rule bitcts_validate_op(const bitcts_op_desc *desc, uint32_t feature_level,
                               bitcts_validation *out);
/** Short id of a rule ("size_zero"); static, never NULL. */
const char *bitcts_rule_id(int rule);
/** One-sentence description of a rule; static, never NULL. */
const char *bitcts_rule_text(int rule);

#ifdef __cplusplus
}
#endif
#endif
