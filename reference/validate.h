/* SPDX-License-Identifier: MIT */
/* Validation of an operator description at a feature level against the rules of the spec
 * (docs/spec/validation.md): a pinned rule list and one function that names the first rule
 * broken, the tensor and the numbers. Internal; part of the oracle. Thread-safety: pure. */
#ifndef BITCTS_REFERENCE_VALIDATE_H
#define BITCTS_REFERENCE_VALIDATE_H

#include "tensor_model.h" /* bitcts_op_desc */

#ifdef __cplusplus
extern "C" {
#endif

/* Validation rules (spec section 0 and 1.2, 1.3, 3.x). Pinned. One rule a row: name, value and
 * id, then the description. */
/* clang-format off */
#define BITCTS_RULE_LIST(X)                                                                        \
    X(BITCTS_RULE_OK, 0, "ok",                                                                     \
      "valid")                                                                                     \
    X(BITCTS_RULE_UNKNOWN_OPERATOR, 1, "unknown_operator",                                         \
      "the operator is not one of the seven")                                                      \
    X(BITCTS_RULE_OPERATOR_FL, 2, "operator_fl",                                                   \
      "the operator does not exist at this feature level")                                         \
    X(BITCTS_RULE_DIMENSION_COUNT, 3, "dimension_count",                                           \
      "DimensionCount is outside what the operator allows at this feature level")                  \
    X(BITCTS_RULE_SIZE_ZERO, 4, "size_zero",                                                       \
      "a dimension has size 0")                                                                    \
    X(BITCTS_RULE_DIMS_MISMATCH, 5, "dims_mismatch",                                               \
      "the tensors' DimensionCount values differ")                                                 \
    X(BITCTS_RULE_SIZES_MISMATCH, 6, "sizes_mismatch",                                             \
      "the tensors' Sizes differ")                                                                 \
    X(BITCTS_RULE_TYPE_MISMATCH, 7, "type_mismatch",                                               \
      "the tensors' DataType values differ")                                                       \
    X(BITCTS_RULE_UNKNOWN_TYPE, 8, "unknown_type",                                                 \
      "DataType is not a known DML data type")                                                     \
    X(BITCTS_RULE_TYPE_NOT_ALLOWED, 9, "type_not_allowed",                                         \
      "the operator does not accept this input DataType at this feature level")                    \
    X(BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED, 10, "output_type_not_allowed",                          \
      "the operator does not accept this output DataType at this feature level")                   \
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
      "GuaranteedBaseOffsetAlignment is not 0 or a power of two >= the element size")              \
    X(BITCTS_RULE_OUTPUT_FLAGS, 17, "output_flags",                                                \
      "an output carries DML_TENSOR_FLAG_OWNED_BY_DML")                                            \
    X(BITCTS_RULE_UNKNOWN_FLAGS, 18, "unknown_flags",                                              \
      "Flags has bits DirectML does not define")                                                   \
    X(BITCTS_RULE_INPUT_COUNT, 19, "input_count",                                                  \
      "the operator takes a different number of inputs")
/* clang-format on */

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
