/* SPDX-License-Identifier: MIT */
/* DirectML's descriptor rules for the seven bitwise operators, checked in a fixed order:
 * operator and input count, then each tensor alone (rank, sizes, type, flags, alignment),
 * then agreement between tensors, the types each operator accepts at FL 4_1, the element
 * limit, the minimum buffer size (DMLCalcBufferTensorSize in 64 bits with overflow checks),
 * and finally the output's strides (no broadcast, no overlapping elements). */
#include "cpu_validate.h"

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* memset, offsetof */

/* Largest span (in elements) the exact overlap check walks with a bitmap (16 MiB of bits). */
#define VALIDATE_BITMAP_SPAN (1ull << 27)

static int32_t validate_fail(char *err, size_t cap, int32_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int32_t validate_fail(char *err, size_t cap, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return status;
}

/* DMLCalcBufferTensorSize (spec 3.3) in 64 bits. Returns 0, or -1 on overflow. */
static int validate_min_bytes(const bitcts_abi_tensor *t, uint32_t es, uint64_t *out)
{
    uint64_t elements = 1; /* packed: product of sizes; strided: index of last element + 1 */
    if (t->strides == NULL) {
        for (uint32_t d = 0; d < t->dimension_count; ++d) {
            if (elements > UINT64_MAX / t->sizes[d]) {
                return -1;
            }
            elements *= t->sizes[d];
        }
    } else {
        uint64_t last = 0;
        for (uint32_t d = 0; d < t->dimension_count; ++d) {
            const uint64_t term = (uint64_t)(t->sizes[d] - 1) * t->strides[d];
            if (last > UINT64_MAX - term) {
                return -1;
            }
            last += term;
        }
        if (last == UINT64_MAX) {
            return -1;
        }
        elements = last + 1;
    }
    if (elements > (UINT64_MAX - 3) / es) {
        return -1;
    }
    *out = (elements * es + 3) & ~(uint64_t)3;
    return 0;
}

/* The rules about one tensor alone. */
static int32_t validate_tensor(const bitcts_abi_tensor *t, const char *name, int is_output,
                               char *err, size_t cap)
{
    if (t->struct_size < offsetof(bitcts_abi_tensor, reserved0)) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                             "%s: struct_size %u is too small", name, t->struct_size);
    }
    if (t->dimension_count < 1 || t->dimension_count > BITCTS_MAX_DIMS) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "dimension_count: %s has DimensionCount %u (allowed 1-8)", name,
                             t->dimension_count);
    }
    if (t->sizes == NULL) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT, "%s: Sizes is NULL", name);
    }
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        if (t->sizes[d] == 0) {
            return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "size_zero: %s dimension %u has size 0", name, d);
        }
    }
    const uint32_t es = bitcts_dml_type_bytes(t->data_type);
    if (es == 0) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "unknown_type: %s DataType %u is not a known DML data type", name,
                             t->data_type);
    }
    if (t->flags & ~BITCTS_TENSOR_FLAG_OWNED_BY_DML) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "unknown_flags: %s Flags 0x%x has bits DirectML does not define", name,
                             t->flags);
    }
    if (is_output && (t->flags & BITCTS_TENSOR_FLAG_OWNED_BY_DML)) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "output_flags: %s carries DML_TENSOR_FLAG_OWNED_BY_DML", name);
    }
    const uint32_t g = t->guaranteed_base_offset_alignment;
    if (g != 0 && ((g & (g - 1)) != 0 || g < es)) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "alignment: %s GuaranteedBaseOffsetAlignment %u is not 0 or a power "
                             "of two >= the element size %u",
                             name, g, es);
    }
    return BITCTS_ABI_OK;
}

/* Agreement between the output and each input, and the operator's type table. */
static int32_t validate_pair(uint32_t op, const bitcts_abi_tensor *in, const char *name,
                             const bitcts_abi_tensor *o, char *err, size_t cap)
{
    if (in->dimension_count != o->dimension_count) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "dims_mismatch: %s has DimensionCount %u, Output %u", name,
                             in->dimension_count, o->dimension_count);
    }
    for (uint32_t d = 0; d < o->dimension_count; ++d) {
        if (in->sizes[d] != o->sizes[d]) {
            return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "sizes_mismatch: %s Sizes[%u] = %u, Output Sizes[%u] = %u", name,
                                 d, in->sizes[d], d, o->sizes[d]);
        }
    }
    if (op != BITCTS_OP_BIT_COUNT && in->data_type != o->data_type) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "type_mismatch: %s DataType %u, Output DataType %u", name,
                             in->data_type, o->data_type);
    }
    if (!(bitcts_dml_op_input_types(op) & (1u << in->data_type))) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "type_not_allowed: operator %u does not accept %s DataType %u", op,
                             name, in->data_type);
    }
    if (!(bitcts_dml_op_output_types(op) & (1u << o->data_type))) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "output_type_not_allowed: operator %u does not accept Output "
                             "DataType %u",
                             op, o->data_type);
    }
    return BITCTS_ABI_OK;
}

static int32_t validate_size(const bitcts_abi_tensor *t, const char *name, char *err, size_t cap)
{
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        elements *= t->sizes[d];
        if (elements > BITCTS_MAX_ELEMENTS) {
            return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "too_many_elements: %s has more than 2^32-1 elements", name);
        }
    }
    uint64_t need = 0;
    if (validate_min_bytes(t, bitcts_dml_type_bytes(t->data_type), &need) != 0) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "size_overflow: %s's implied buffer size overflows 64 bits", name);
    }
    if (t->total_tensor_size_in_bytes < need) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "buffer_too_small: %s TotalTensorSizeInBytes %llu is below "
                             "DMLCalcBufferTensorSize %llu",
                             name, (unsigned long long)t->total_tensor_size_in_bytes,
                             (unsigned long long)need);
    }
    return BITCTS_ABI_OK;
}

/* Exact check by marking every element's offset in a bitmap: 1 when two elements collide. */
static int validate_bitmap_overlap(const bitcts_abi_tensor *t, uint64_t span, int *overlap)
{
    unsigned char *bits = calloc((size_t)(span / 8 + 1), 1);
    if (bits == NULL) {
        return -1;
    }
    uint32_t idx[BITCTS_MAX_DIMS] = {0};
    uint64_t off = 0;
    const uint32_t rank = t->dimension_count;
    *overlap = 0;
    for (;;) {
        if (bits[off / 8] & (1u << (off % 8))) {
            *overlap = 1;
            break;
        }
        bits[off / 8] |= (unsigned char)(1u << (off % 8));
        uint32_t d = rank;
        while (d-- > 0) {
            off += t->strides[d];
            if (++idx[d] < t->sizes[d]) {
                break;
            }
            off -= (uint64_t)t->sizes[d] * t->strides[d];
            idx[d] = 0;
        }
        if (d == UINT32_MAX) {
            break; /* wrapped around: every element visited */
        }
    }
    free(bits);
    return 0;
}

/* Output strides: no zero stride on a dim of size > 1, no two elements at one offset. The fast
 * test sorts dims by stride and asks each stride to pass the extent of the dims below it; when
 * it cannot prove the layout disjoint, the bitmap decides. */
static int32_t validate_output_layout(const bitcts_abi_tensor *t, char *err, size_t cap)
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
            return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                                 "output_zero_stride: Output dimension %u has size %u and stride "
                                 "0",
                                 d, t->sizes[d]);
        }
        uint32_t j = n++;
        for (; j > 0 && stride[j - 1] > t->strides[d]; --j) {
            stride[j] = stride[j - 1];
            size[j] = size[j - 1];
        }
        stride[j] = t->strides[d];
        size[j] = t->sizes[d];
    }
    uint64_t extent = 0;
    int proven = 1;
    for (uint32_t i = 0; i < n; ++i) {
        proven &= stride[i] > extent;
        extent += (size[i] - 1) * stride[i];
    }
    if (proven) {
        return BITCTS_ABI_OK;
    }
    int overlap = 1;
    if (elements <= extent + 1 && extent < VALIDATE_BITMAP_SPAN) {
        if (validate_bitmap_overlap(t, extent + 1, &overlap) != 0) {
            return validate_fail(err, cap, BITCTS_ABI_E_OUT_OF_MEMORY,
                                 "output_overlap: no memory for the exact overlap check");
        }
    }
    if (overlap) {
        return validate_fail(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "output_overlap: Output elements share an offset (%llu elements "
                             "in a span of %llu)",
                             (unsigned long long)elements, (unsigned long long)extent + 1);
    }
    return BITCTS_ABI_OK;
}

static void validate_copy(const bitcts_abi_tensor *t, bitcts__cpu_op_info *out, uint32_t k)
{
    out->data_type[k] = t->data_type;
    out->width[k] = bitcts_dml_type_bytes(t->data_type);
    out->has_strides[k] = t->strides != NULL;
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        out->strides[k][d] = t->strides != NULL ? t->strides[d] : 0;
    }
}

int32_t bitcts__cpu_validate_op(const bitcts_abi_operator_desc *desc, bitcts__cpu_op_info *out,
                                char *err, size_t err_cap)
{
    if (desc == NULL || desc->struct_size < sizeof *desc) {
        return validate_fail(err, err_cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                             "operator description missing or struct_size too small");
    }
    const uint32_t op = desc->operator_type;
    const uint32_t inputs = bitcts_dml_op_inputs(op);
    if (inputs == 0) {
        return validate_fail(err, err_cap, BITCTS_ABI_E_NOT_SUPPORTED,
                             "unknown_operator: operator type %u is not a bitwise operator", op);
    }
    if (desc->input_count != inputs) {
        return validate_fail(err, err_cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "input_count: operator %u takes %u inputs, not %u", op, inputs,
                             desc->input_count);
    }
    if (desc->inputs == NULL || desc->output == NULL) {
        return validate_fail(err, err_cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                             "operator description without tensors");
    }
    const char *const names[2] = {inputs == 1 ? "Input" : "A", "B"};
    const bitcts_abi_tensor *o = desc->output;
    int32_t rc = validate_tensor(o, "Output", 1, err, err_cap);
    for (uint32_t k = 0; k < inputs && rc == BITCTS_ABI_OK; ++k) {
        rc = validate_tensor(&desc->inputs[k], names[k], 0, err, err_cap);
    }
    for (uint32_t k = 0; k < inputs && rc == BITCTS_ABI_OK; ++k) {
        rc = validate_pair(op, &desc->inputs[k], names[k], o, err, err_cap);
    }
    for (uint32_t k = 0; k < inputs && rc == BITCTS_ABI_OK; ++k) {
        rc = validate_size(&desc->inputs[k], names[k], err, err_cap);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = validate_size(o, "Output", err, err_cap);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = validate_output_layout(o, err, err_cap);
    }
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    memset(out, 0, sizeof *out);
    out->op = op;
    out->input_count = inputs;
    out->rank = o->dimension_count;
    for (uint32_t d = 0; d < out->rank; ++d) {
        out->sizes[d] = o->sizes[d];
    }
    validate_copy(o, out, 0);
    for (uint32_t k = 0; k < inputs; ++k) {
        validate_copy(&desc->inputs[k], out, k + 1);
    }
    return BITCTS_ABI_OK;
}
