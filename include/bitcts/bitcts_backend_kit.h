/* SPDX-License-Identifier: MIT */
/* The backend kit: negotiation, the capability records DirectML documents, the host's log, the
 * validation of an operator description against every rule of docs/spec/validation.md (feature
 * level 4_1) and the check of an execution's buffers, written once for the in-tree backends and
 * for plugin authors (docs/plugin-abi.md, "The backend kit"). Header-only: the SDK's headers and
 * the C standard library, nothing to link. The oracle (reference/) never uses it: it judges the
 * backends' refusals with a validation of its own.
 * Thread-safety: every function is reentrant and keeps no state. */
#ifndef BITCTS_INCLUDE_BITCTS_BACKEND_KIT_H
#define BITCTS_INCLUDE_BITCTS_BACKEND_KIT_H

#include <stdarg.h> /* va_list */
#include <stddef.h> /* size_t, offsetof */
#include <stdint.h> /* fixed-width integers */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* memset */

#include "bitcts_plugin.h" /* the ABI, with the DML numbers of bitcts_dml.h */

#ifdef __cplusplus
extern "C" {
#endif

/* Tensors of a validated operator, in the ABI's order: ATensor (or InputTensor), BTensor, the
 * output. */
#define BITCTS_KIT_A 0u
#define BITCTS_KIT_B 1u
#define BITCTS_KIT_OUTPUT 2u

/* The largest span, in elements, whose overlap the exact check decides with a bitmap (16 MiB
 * of bits); an output layout beyond it that the sorted-stride proof cannot clear is refused. */
#define BITCTS_KIT_OVERLAP_BITMAP_SPAN (1ull << 27)

/** One tensor of a validated operator. */
typedef struct bitcts_kit_tensor {
    uint32_t data_type;
    uint32_t width;       /* bytes per element; 0 for the absent B of a unary operator */
    uint32_t has_strides; /* 0: Strides was NULL (packed) */
    uint32_t strides[BITCTS_MAX_DIMS]; /* in elements: the explicit ones, or the packed ones */
    uint64_t total_bytes;              /* TotalTensorSizeInBytes */
} bitcts_kit_tensor;

/** A validated operator description, copied out of the caller's borrowed arrays. */
typedef struct bitcts_kit_op {
    uint32_t operator_type;
    uint32_t input_count;
    uint32_t rank;
    uint32_t sizes[BITCTS_MAX_DIMS];
    uint64_t elements;            /* product of sizes, at most 2^32 - 1 */
    bitcts_kit_tensor tensors[3]; /* BITCTS_KIT_A, BITCTS_KIT_B, BITCTS_KIT_OUTPUT */
} bitcts_kit_op;

/** Writes "rule: detail" to err (when err is not NULL) and returns status: how the kit
 * refuses, and how a backend can word refusals of its own the same way. */
static inline int32_t bitcts_kit_refuse(char *err, size_t cap, int32_t status, const char *fmt, ...)
    BITCTS_PRINTF(4, 5);

static inline int32_t bitcts_kit_refuse(char *err, size_t cap, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int32_t st = (int32_t)bitcts_status_vfail(err, cap, (int)status, fmt, ap);
    va_end(ap);
    return st;
}

/* ---- negotiation and capabilities ---- */

/** bitcts_plugin_negotiate for a backend that speaks this SDK's major version up to its minor
 * (PLG-2): checks the record, chooses the highest version both sides speak, writes it and the
 * table. host_out (may be NULL) receives the host's services, which stay valid until
 * plugin_shutdown.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_ARGUMENT (n NULL or its struct_size too small);
 *         BITCTS_ABI_E_INCOMPATIBLE (the ranges do not meet). */
static inline int32_t bitcts_kit_negotiate(bitcts_plugin_negotiation *n,
                                           const bitcts_plugin_table *table,
                                           const bitcts_abi_host **host_out)
{
    if (n == NULL || n->struct_size < sizeof *n) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    const uint32_t lowest = BITCTS_ABI_VERSION(BITCTS_ABI_MAJOR(BITCTS_ABI_VERSION_CURRENT), 0);
    const uint32_t low = n->host_min_version > lowest ? n->host_min_version : lowest;
    const uint32_t high = n->host_max_version < BITCTS_ABI_VERSION_CURRENT
                              ? n->host_max_version
                              : BITCTS_ABI_VERSION_CURRENT;
    if (high < low) {
        return BITCTS_ABI_E_INCOMPATIBLE;
    }
    n->chosen_version = high;
    n->table = table;
    if (host_out != NULL) {
        *host_out = n->host;
    }
    return BITCTS_ABI_OK;
}

/** query_caps's record: the claimed feature level.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_ARGUMENT (out NULL or its struct_size too small). */
static inline int32_t bitcts_kit_caps_fill(bitcts_abi_caps *out, uint32_t feature_level)
{
    if (out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    out->feature_level = feature_level;
    return BITCTS_ABI_OK;
}

/** query_op_caps's record as DirectML documents the operator: its input and output types,
 * DimensionCount 1 to 8, and in place for every operator but BIT_COUNT, whose page says nothing
 * about it (spec 2.2). A backend that supports less clears bits afterwards.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_ARGUMENT (out NULL or its struct_size too small);
 *         BITCTS_ABI_E_NOT_SUPPORTED (not one of the seven operators). */
static inline int32_t bitcts_kit_op_caps_fill(bitcts_abi_op_caps *out, uint32_t operator_type)
{
    if (out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (bitcts_dml_op_inputs(operator_type) == 0) {
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    out->operator_type = operator_type;
    out->input_types = bitcts_dml_op_input_types(operator_type);
    out->output_types = bitcts_dml_op_output_types(operator_type);
    out->dimension_counts = BITCTS_DIMS_1_TO_8;
    out->flags = operator_type == BITCTS_OP_BIT_COUNT ? 0u : BITCTS_ABI_CAP_IN_PLACE;
    return BITCTS_ABI_OK;
}

/** Passes a message to the host's log callback when the host table has one (PLG-16). */
static inline void bitcts_kit_host_log(const bitcts_abi_host *host, int32_t level,
                                       const char *message)
{
    if (host != NULL && host->struct_size >= offsetof(bitcts_abi_host, log) + sizeof host->log &&
        host->log != NULL) {
        host->log(host->user, level, message);
    }
}

/* ---- validation, rule by rule (docs/spec/validation.md, in its order) ---- */

/** The role name of tensor k (BITCTS_KIT_*) of an operator with input_count inputs: "Input"
 * for a unary operator's input, else "A", "B", "Output". */
static inline const char *bitcts_kit_role_name(uint32_t input_count, uint32_t k)
{
    if (k == BITCTS_KIT_OUTPUT) {
        return "Output";
    }
    if (k == BITCTS_KIT_A) {
        return input_count == 1 ? "Input" : "A";
    }
    return "B";
}

/** DMLCalcBufferTensorSize (spec 3.3) in 64 bits: roundup((index of the last element + 1) *
 * element size, 4), or roundup(product of sizes * element size, 4) for a packed tensor.
 * @pre t's DimensionCount is 1 to 8, its Sizes non-zero and its DataType known.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_DESCRIPTOR when it overflows 64 bits. */
static inline int32_t bitcts_kit_calc_buffer_size(const bitcts_abi_tensor *t, uint64_t *out)
{
    const uint64_t width = bitcts_dml_type_bytes(t->data_type);
    uint64_t elements = 1; /* packed: product of sizes; strided: index of last element + 1 */
    if (t->strides == NULL) {
        for (uint32_t d = 0; d < t->dimension_count; ++d) {
            if (elements > UINT64_MAX / t->sizes[d]) {
                return BITCTS_ABI_E_INVALID_DESCRIPTOR;
            }
            elements *= t->sizes[d];
        }
    } else {
        uint64_t last = 0;
        for (uint32_t d = 0; d < t->dimension_count; ++d) {
            const uint64_t term = (uint64_t)(t->sizes[d] - 1) * t->strides[d]; /* 32 x 32 bits */
            if (last > UINT64_MAX - term) {
                return BITCTS_ABI_E_INVALID_DESCRIPTOR;
            }
            last += term;
        }
        if (last == UINT64_MAX) {
            return BITCTS_ABI_E_INVALID_DESCRIPTOR;
        }
        elements = last + 1;
    }
    if (elements > (UINT64_MAX - 3) / width) {
        return BITCTS_ABI_E_INVALID_DESCRIPTOR;
    }
    *out = (elements * width + 3) & ~(uint64_t)3;
    return BITCTS_ABI_OK;
}

/** Rules 3-8, one tensor alone: DimensionCount, sizes, DataType, Flags (OWNED_BY_DML on inputs
 * only), GuaranteedBaseOffsetAlignment; and the record itself (struct_size, Sizes not NULL).
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_DESCRIPTOR; BITCTS_ABI_E_INVALID_ARGUMENT. */
static inline int32_t bitcts_kit_check_tensor(const bitcts_abi_tensor *t, const char *role,
                                              int is_output, char *err, size_t cap)
{
    if (t->struct_size < offsetof(bitcts_abi_tensor, reserved0)) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                                 "abi: %s struct_size %u is too small", role, t->struct_size);
    }
    if (t->dimension_count < 1 || t->dimension_count > BITCTS_MAX_DIMS) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "dimension_count: %s has DimensionCount %u (allowed 1-8)", role,
                                 t->dimension_count);
    }
    if (t->sizes == NULL) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT, "abi: %s Sizes is NULL",
                                 role);
    }
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        if (t->sizes[d] == 0) {
            return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                     "size_zero: %s Sizes[%u] is 0", role, d);
        }
    }
    const uint32_t width = bitcts_dml_type_bytes(t->data_type);
    if (width == 0) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "unknown_type: %s DataType %u is not a known DML data type", role,
                                 t->data_type);
    }
    if ((t->flags & ~BITCTS_TENSOR_FLAGS_KNOWN) != 0) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "unknown_flags: %s Flags 0x%x has bits DirectML does not define",
                                 role, t->flags);
    }
    if (is_output && (t->flags & BITCTS_TENSOR_FLAG_OWNED_BY_DML) != 0) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "output_flags: %s carries DML_TENSOR_FLAG_OWNED_BY_DML (inputs "
                                 "only)",
                                 role);
    }
    const uint32_t align = t->guaranteed_base_offset_alignment;
    if (align != 0 && ((align & (align - 1)) != 0 || align < width)) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "alignment: %s GuaranteedBaseOffsetAlignment %u is not 0 or a "
                                 "power of two >= the element size %u",
                                 role, align, width);
    }
    return BITCTS_ABI_OK;
}

/** Rule 9: tensor t (B or the output) against the first input: DimensionCount, Sizes and
 * DataType agree (BIT_COUNT's output may differ in DataType).
 * @pre both passed bitcts_kit_check_tensor. @return BITCTS_ABI_OK or INVALID_DESCRIPTOR. */
static inline int32_t bitcts_kit_check_pair(uint32_t operator_type, const bitcts_abi_tensor *t,
                                            const char *role, int is_output,
                                            const bitcts_abi_tensor *first, const char *first_role,
                                            char *err, size_t cap)
{
    if (t->dimension_count != first->dimension_count) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "dims_mismatch: %s has DimensionCount %u, %s %u", role,
                                 t->dimension_count, first_role, first->dimension_count);
    }
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        if (t->sizes[d] != first->sizes[d]) {
            return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                     "sizes_mismatch: %s Sizes[%u] = %u, %s Sizes[%u] = %u", role,
                                     d, t->sizes[d], first_role, d, first->sizes[d]);
        }
    }
    const int typed = !(is_output && operator_type == BITCTS_OP_BIT_COUNT);
    if (typed && t->data_type != first->data_type) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "type_mismatch: %s DataType %u, %s DataType %u", role,
                                 t->data_type, first_role, first->data_type);
    }
    return BITCTS_ABI_OK;
}

/** Rules 12-13, the types the operator accepts at feature level 4_1: BIT_COUNT's output type
 * first (its set is fixed at every level), then the input type. Rule 9 leaves the other
 * operators' output type equal to the input's.
 * @return BITCTS_ABI_OK or BITCTS_ABI_E_INVALID_DESCRIPTOR. */
static inline int32_t bitcts_kit_check_types(uint32_t operator_type, const bitcts_abi_tensor *a,
                                             const char *a_role, const bitcts_abi_tensor *output,
                                             char *err, size_t cap)
{
    const uint32_t out_types = bitcts_dml_op_output_types(operator_type);
    if (operator_type == BITCTS_OP_BIT_COUNT &&
        (out_types & BITCTS_DT_BIT(output->data_type)) == 0) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "output_type_not_allowed: operator %u does not accept Output "
                                 "DataType %u",
                                 operator_type, output->data_type);
    }
    if ((bitcts_dml_op_input_types(operator_type) & BITCTS_DT_BIT(a->data_type)) == 0) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "type_not_allowed: operator %u does not accept %s DataType %u",
                                 operator_type, a_role, a->data_type);
    }
    return BITCTS_ABI_OK;
}

/** Rules 14-16: at most 2^32-1 elements, DMLCalcBufferTensorSize within 64 bits and no larger
 * than TotalTensorSizeInBytes. @pre t passed bitcts_kit_check_tensor.
 * @return BITCTS_ABI_OK or BITCTS_ABI_E_INVALID_DESCRIPTOR. */
static inline int32_t bitcts_kit_check_size(const bitcts_abi_tensor *t, const char *role, char *err,
                                            size_t cap)
{
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        elements *= t->sizes[d]; /* stays below 2^64: checked at every step */
        if (elements > BITCTS_MAX_ELEMENTS) {
            return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                     "too_many_elements: %s has more than 2^32-1 elements", role);
        }
    }
    uint64_t need = 0;
    if (bitcts_kit_calc_buffer_size(t, &need) != BITCTS_ABI_OK) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "size_overflow: %s DMLCalcBufferTensorSize overflows 64 bits",
                                 role);
    }
    if (t->total_tensor_size_in_bytes < need) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "buffer_too_small: %s TotalTensorSizeInBytes %llu is below "
                                 "DMLCalcBufferTensorSize %llu",
                                 role, (unsigned long long)t->total_tensor_size_in_bytes,
                                 (unsigned long long)need);
    }
    return BITCTS_ABI_OK;
}

/** The exact overlap test: marks every element's offset in a bitmap of span bits; *hit is 1
 * when one offset comes twice. @pre t has explicit strides and span covers every offset.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_OUT_OF_MEMORY (no bitmap). */
static inline int32_t bitcts_kit_overlap_exact(const bitcts_abi_tensor *t, uint64_t span, int *hit)
{
    unsigned char *seen = (unsigned char *)calloc((size_t)(span / 8 + 1), 1);
    if (seen == NULL) {
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    uint32_t index[BITCTS_MAX_DIMS] = {0};
    uint64_t offset = 0;
    int more = 1;
    *hit = 0;
    while (more && !*hit) {
        const unsigned char bit = (unsigned char)(1u << (offset % 8));
        *hit = (seen[offset / 8] & bit) != 0;
        seen[offset / 8] = (unsigned char)(seen[offset / 8] | bit);
        more = 0; /* the odometer, innermost dimension fastest; 0 once it wraps around */
        for (uint32_t d = t->dimension_count; d-- > 0;) {
            if (++index[d] < t->sizes[d]) {
                offset += t->strides[d];
                more = 1;
                break;
            }
            offset -= (uint64_t)(t->sizes[d] - 1) * t->strides[d];
            index[d] = 0;
        }
    }
    free(seen);
    return BITCTS_ABI_OK;
}

/** Rules 17-18, the output's layout: no zero stride on a dimension of size > 1 and no two
 * elements at one offset. Sorted by stride, each stride must pass the reach of the smaller
 * ones; when that proof fails, a bitmap of the offsets decides (up to
 * BITCTS_KIT_OVERLAP_BITMAP_SPAN elements of span; beyond it the layout is refused).
 * @pre t passed bitcts_kit_check_size.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_DESCRIPTOR; BITCTS_ABI_E_OUT_OF_MEMORY. */
static inline int32_t bitcts_kit_check_output_layout(const bitcts_abi_tensor *t, char *err,
                                                     size_t cap)
{
    if (t->strides == NULL) {
        return BITCTS_ABI_OK;
    }
    uint64_t stride[BITCTS_MAX_DIMS];
    uint64_t size[BITCTS_MAX_DIMS];
    uint32_t n = 0;
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        elements *= t->sizes[d];
        if (t->sizes[d] < 2) {
            continue;
        }
        if (t->strides[d] == 0) {
            return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                     "output_zero_stride: Output dimension %u has size %u and "
                                     "stride 0",
                                     d, t->sizes[d]);
        }
        uint32_t j = n++;
        for (; j > 0 && stride[j - 1] > t->strides[d]; --j) { /* insertion sort by stride */
            stride[j] = stride[j - 1];
            size[j] = size[j - 1];
        }
        stride[j] = t->strides[d];
        size[j] = t->sizes[d];
    }
    uint64_t reach = 0; /* the highest offset the dimensions seen so far produce */
    int proven = 1;
    for (uint32_t i = 0; i < n; ++i) {
        proven = proven && stride[i] > reach;
        reach += (size[i] - 1) * stride[i];
    }
    if (proven) {
        return BITCTS_ABI_OK;
    }
    int hit = 1; /* more elements than offsets, or a span too large to walk: refused */
    if (elements <= reach + 1 && reach < BITCTS_KIT_OVERLAP_BITMAP_SPAN &&
        bitcts_kit_overlap_exact(t, reach + 1, &hit) != BITCTS_ABI_OK) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_OUT_OF_MEMORY,
                                 "output_overlap: no memory for the exact overlap check");
    }
    if (hit) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "output_overlap: Output elements share an offset (%llu elements "
                                 "in a span of %llu)",
                                 (unsigned long long)elements, (unsigned long long)reach + 1);
    }
    return BITCTS_ABI_OK;
}

/** Copies a valid description into out: shape, types, widths, strides (the packed ones when
 * Strides is NULL), buffer sizes. @pre desc passed every rule. */
static inline void bitcts_kit_op_fill(const bitcts_abi_operator_desc *desc, bitcts_kit_op *out)
{
    memset(out, 0, sizeof *out);
    out->operator_type = desc->operator_type;
    out->input_count = desc->input_count;
    out->rank = desc->output->dimension_count;
    out->elements = 1;
    for (uint32_t d = 0; d < out->rank; ++d) {
        out->sizes[d] = desc->output->sizes[d];
        out->elements *= out->sizes[d];
    }
    for (uint32_t k = 0; k < 3; ++k) {
        const bitcts_abi_tensor *t = k == BITCTS_KIT_OUTPUT  ? desc->output
                                     : k < desc->input_count ? &desc->inputs[k]
                                                             : NULL;
        if (t == NULL) {
            continue; /* the B of a unary operator */
        }
        bitcts_kit_tensor *x = &out->tensors[k];
        x->data_type = t->data_type;
        x->width = bitcts_dml_type_bytes(t->data_type);
        x->has_strides = t->strides != NULL;
        x->total_bytes = t->total_tensor_size_in_bytes;
        uint32_t packed = 1; /* at most 2^32 - 1 elements, so packed strides fit */
        for (uint32_t d = out->rank; d-- > 0;) {
            x->strides[d] = t->strides != NULL ? t->strides[d] : packed;
            packed *= out->sizes[d];
        }
    }
}

/** Validates an operator description the way DirectML's CreateOperator does, at feature level
 * 4_1, in the order of docs/spec/validation.md, and on success fills out (may be NULL).
 * @param err [out] on failure "rule: detail", naming the rule id, the tensor and the numbers
 *            ("abi: ..." for a malformed call); untouched on success.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_ARGUMENT (NULL pointers, struct_size too small);
 *         BITCTS_ABI_E_NOT_SUPPORTED (not one of the seven operators);
 *         BITCTS_ABI_E_INVALID_DESCRIPTOR (a rule DirectML enforces);
 *         BITCTS_ABI_E_OUT_OF_MEMORY (the exact overlap check could not allocate). */
static inline int32_t bitcts_kit_validate_op(const bitcts_abi_operator_desc *desc,
                                             bitcts_kit_op *out, char *err, size_t cap)
{
    if (desc == NULL || desc->struct_size < sizeof *desc) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                                 "abi: the operator description is NULL or its struct_size is too "
                                 "small");
    }
    const uint32_t op = desc->operator_type;
    const uint32_t inputs = bitcts_dml_op_inputs(op);
    if (inputs == 0) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_NOT_SUPPORTED,
                                 "unknown_operator: operator type %u is not one of the seven "
                                 "bitwise operators",
                                 op);
    }
    if (desc->input_count != inputs) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "input_count: operator %u takes %u inputs, the description has %u",
                                 op, inputs, desc->input_count);
    }
    if (desc->inputs == NULL || desc->output == NULL) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                                 "abi: the operator description has no tensors");
    }
    const bitcts_abi_tensor *t[3] = {&desc->inputs[0], inputs == 2 ? &desc->inputs[1] : NULL,
                                     desc->output};
    int32_t rc = BITCTS_ABI_OK;
    for (uint32_t k = 0; k < 3 && rc == BITCTS_ABI_OK; ++k) { /* rules 3-8: A, B, Output */
        if (t[k] != NULL) {
            rc = bitcts_kit_check_tensor(t[k], bitcts_kit_role_name(inputs, k),
                                         k == BITCTS_KIT_OUTPUT, err, cap);
        }
    }
    const char *a_role = bitcts_kit_role_name(inputs, BITCTS_KIT_A);
    for (uint32_t k = BITCTS_KIT_B; k <= BITCTS_KIT_OUTPUT && rc == BITCTS_ABI_OK; ++k) {
        if (t[k] != NULL) { /* rule 9 */
            rc = bitcts_kit_check_pair(op, t[k], bitcts_kit_role_name(inputs, k),
                                       k == BITCTS_KIT_OUTPUT, t[BITCTS_KIT_A], a_role, err, cap);
        }
    }
    if (rc == BITCTS_ABI_OK) { /* rules 12-13 */
        rc = bitcts_kit_check_types(op, t[BITCTS_KIT_A], a_role, desc->output, err, cap);
    }
    for (uint32_t k = 0; k < 3 && rc == BITCTS_ABI_OK; ++k) { /* rules 14-16 */
        if (t[k] != NULL) {
            rc = bitcts_kit_check_size(t[k], bitcts_kit_role_name(inputs, k), err, cap);
        }
    }
    if (rc == BITCTS_ABI_OK) { /* rules 17-18 */
        rc = bitcts_kit_check_output_layout(desc->output, err, cap);
    }
    if (rc == BITCTS_ABI_OK && out != NULL) {
        bitcts_kit_op_fill(desc, out);
    }
    return rc;
}

/* ---- execution ---- */

/** 1 when input k may be passed as the output's own buffer: the operator allows in place
 * (not BIT_COUNT) and the two tensors have the same element width and the same stride on
 * every dimension of size > 1 (PLG-11). */
static inline int bitcts_kit_may_alias(const bitcts_kit_op *op, uint32_t k)
{
    if (op->operator_type == BITCTS_OP_BIT_COUNT || k >= op->input_count) {
        return 0;
    }
    const bitcts_kit_tensor *in = &op->tensors[k];
    const bitcts_kit_tensor *out = &op->tensors[BITCTS_KIT_OUTPUT];
    if (in->width != out->width) {
        return 0;
    }
    for (uint32_t d = 0; d < op->rank; ++d) {
        if (op->sizes[d] > 1 && in->strides[d] != out->strides[d]) {
            return 0;
        }
    }
    return 1;
}

/** The buffers of operator_execute (PLG-11): one per input and the output, none NULL; an
 * input is either the output's very buffer (in place, bitcts_kit_may_alias) or apart from it.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_ARGUMENT (err says why). */
static inline int32_t bitcts_kit_check_buffers(const bitcts_kit_op *op, const void *const *inputs,
                                               const void *output, char *err, size_t cap)
{
    if (inputs == NULL || output == NULL) {
        return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                                 "abi: operator_execute without buffers");
    }
    const uintptr_t out_begin = (uintptr_t)output;
    const uintptr_t out_end = out_begin + (uintptr_t)op->tensors[BITCTS_KIT_OUTPUT].total_bytes;
    for (uint32_t k = 0; k < op->input_count; ++k) {
        const char *role = bitcts_kit_role_name(op->input_count, k);
        if (inputs[k] == NULL) {
            return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                                     "abi: the buffer of %s is NULL", role);
        }
        if (inputs[k] == output) {
            if (!bitcts_kit_may_alias(op, k)) {
                return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                                         "abi: %s is the output's buffer, but the operator or "
                                         "the layouts do not allow in place",
                                         role);
            }
            continue;
        }
        const uintptr_t begin = (uintptr_t)inputs[k];
        const uintptr_t end = begin + (uintptr_t)op->tensors[k].total_bytes;
        if (begin < out_end && out_begin < end) {
            return bitcts_kit_refuse(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                                     "abi: the buffer of %s partly overlaps the output's", role);
        }
    }
    return BITCTS_ABI_OK;
}

#ifdef __cplusplus
}
#endif
#endif
