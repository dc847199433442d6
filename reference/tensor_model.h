/* SPDX-License-Identifier: MIT */
/* The tensor model of bitcts, mirroring DirectML: DML_BUFFER_TENSOR_DESC and operator
 * descriptions held inline, data types, operator codes, feature levels and
 * DMLCalcBufferTensorSize (docs/spec). Internal to bitcts (the SDK has the numbers,
 * bitcts_dml.h); part of the oracle. Thread-safety: all functions are pure. */
#ifndef BITCTS_REFERENCE_TENSOR_MODEL_H
#define BITCTS_REFERENCE_TENSOR_MODEL_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, uint64_t */

#include "bitcts/bitcts_dml.h" /* BITCTS_DT_*, BITCTS_OP_*, BITCTS_FL_*, BITCTS_MAX_DIMS */

#ifdef __cplusplus
extern "C" {
#endif

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
/** 1 for BIT_SHIFT_LEFT and BIT_SHIFT_RIGHT, whose B holds per-element shift counts. */
int bitcts_op_is_shift(uint32_t op);
/** The operator codes in bitcts's fixed order (BITCTS_DML_OPERATOR_LIST), for iteration. */
extern const uint32_t bitcts_op_all[BITCTS_OP_COUNT];
/** The position of op in bitcts_op_all (0 .. BITCTS_OP_COUNT - 1), or -1 for an unknown one. */
int bitcts_op_index(uint32_t op);

/* ---- tensor roles ---- */
/** The name DirectML gives tensor `index` of an operator with `input_count` inputs: "A" and
 * "B" (binary), "Input" (unary), and "Output" for any index >= input_count. Static. */
const char *bitcts_role_name(uint32_t input_count, uint32_t index);

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

#ifdef __cplusplus
}
#endif
#endif
