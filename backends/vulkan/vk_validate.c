/* SPDX-License-Identifier: MIT */
/* DirectML's rules for a bitwise operator description (docs/spec/validation.md), checked for
 * the Vulkan backend alone: the operator and its input count, each tensor by itself, agreement
 * between the tensors and the types of FL 4_1, the element limit, DMLCalcBufferTensorSize in
 * 64 bits, and the output's layout (no zero stride, no two elements at one offset). */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* memset, offsetof */

#include "vk_internal.h"

/* Largest span, in elements, whose overlap the exact check decides with a bitmap. */
#define VK_OVERLAP_BITMAP_LIMIT (1ull << 27)

static int32_t vk_reject(char *err, size_t cap, int32_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int32_t vk_reject(char *err, size_t cap, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return status;
}

/* Rules 3-8: one tensor alone. */
static int32_t vk_check_tensor(const bitcts_abi_tensor *t, const char *name, int is_output,
                               char *err, size_t cap)
{
    if (t->struct_size < offsetof(bitcts_abi_tensor, reserved0)) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT, "%s: struct_size %u too small",
                         name, t->struct_size);
    }
    if (t->dimension_count < 1 || t->dimension_count > BITCTS_MAX_DIMS) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "dimension_count: %s DimensionCount %u is outside 1-8", name,
                         t->dimension_count);
    }
    if (t->sizes == NULL) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT, "%s: Sizes is NULL", name);
    }
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        if (t->sizes[d] == 0) {
            return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "size_zero: %s Sizes[%u] is 0", name, d);
        }
    }
    const uint32_t width = bitcts_dml_type_bytes(t->data_type);
    if (width == 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "unknown_type: %s DataType %u is not a DML data type", name, t->data_type);
    }
    if ((t->flags & ~BITCTS_TENSOR_FLAGS_KNOWN) != 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "unknown_flags: %s Flags 0x%x has undefined bits", name, t->flags);
    }
    if (is_output && (t->flags & BITCTS_TENSOR_FLAG_OWNED_BY_DML) != 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "output_flags: %s has DML_TENSOR_FLAG_OWNED_BY_DML (inputs only)", name);
    }
    const uint32_t align = t->guaranteed_base_offset_alignment;
    if (align != 0 && ((align & (align - 1)) != 0 || align < width)) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "alignment: %s GuaranteedBaseOffsetAlignment %u is neither 0 nor a "
                         "power of two >= %u",
                         name, align, width);
    }
    return BITCTS_ABI_OK;
}

/* Rules 9, 12, 13: an input against the output, and the operator's type table. */
static int32_t vk_check_pair(uint32_t op, const bitcts_abi_tensor *in, const char *name,
                             const bitcts_abi_tensor *out, char *err, size_t cap)
{
    if (in->dimension_count != out->dimension_count) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "dims_mismatch: %s DimensionCount %u, Output %u", name,
                         in->dimension_count, out->dimension_count);
    }
    for (uint32_t d = 0; d < out->dimension_count; ++d) {
        if (in->sizes[d] != out->sizes[d]) {
            return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "sizes_mismatch: %s Sizes[%u] = %u, Output Sizes[%u] = %u", name, d,
                             in->sizes[d], d, out->sizes[d]);
        }
    }
    if (op != BITCTS_OP_BIT_COUNT && in->data_type != out->data_type) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "type_mismatch: %s DataType %u, Output DataType %u", name, in->data_type,
                         out->data_type);
    }
    if ((bitcts_dml_op_output_types(op) & BITCTS_DT_BIT(out->data_type)) == 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "output_type_not_allowed: operator %u has no Output DataType %u", op,
                         out->data_type);
    }
    if ((bitcts_dml_op_input_types(op) & BITCTS_DT_BIT(in->data_type)) == 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "type_not_allowed: operator %u has no %s DataType %u", op, name,
                         in->data_type);
    }
    return BITCTS_ABI_OK;
}

/* DMLCalcBufferTensorSize in 64 bits; -1 when it overflows. */
static int vk_min_bytes(const bitcts_abi_tensor *t, uint64_t *out)
{
    const uint64_t width = bitcts_dml_type_bytes(t->data_type);
    uint64_t elements = 1;
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
            const uint64_t step = (uint64_t)(t->sizes[d] - 1) * t->strides[d];
            if (last > UINT64_MAX - step - 1) {
                return -1;
            }
            last += step;
        }
        elements = last + 1;
    }
    if (elements > (UINT64_MAX - 3) / width) {
        return -1;
    }
    *out = (elements * width + 3) & ~(uint64_t)3;
    return 0;
}

/* Rules 14-16. */
static int32_t vk_check_size(const bitcts_abi_tensor *t, const char *name, char *err, size_t cap)
{
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        elements *= t->sizes[d];
        if (elements > BITCTS_MAX_ELEMENTS) {
            return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "too_many_elements: %s has more than 2^32-1 elements", name);
        }
    }
    uint64_t need = 0;
    if (vk_min_bytes(t, &need) != 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "size_overflow: %s DMLCalcBufferTensorSize overflows 64 bits", name);
    }
    if (t->total_tensor_size_in_bytes < need) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "buffer_too_small: %s TotalTensorSizeInBytes %llu < "
                         "DMLCalcBufferTensorSize %llu",
                         name, (unsigned long long)t->total_tensor_size_in_bytes,
                         (unsigned long long)need);
    }
    return BITCTS_ABI_OK;
}

/* Walks every element's offset into a bitmap; *hit is 1 when one offset comes twice. */
static int vk_overlap_exact(const bitcts_abi_tensor *t, uint64_t span, int *hit)
{
    unsigned char *seen = calloc((size_t)(span / 8 + 1), 1);
    if (seen == NULL) {
        return -1;
    }
    uint32_t index[BITCTS_MAX_DIMS] = {0};
    uint64_t offset = 0;
    const uint32_t rank = t->dimension_count;
    *hit = 0;
    for (;;) {
        const unsigned char bit = (unsigned char)(1u << (offset % 8));
        if ((seen[offset / 8] & bit) != 0) {
            *hit = 1;
            break;
        }
        seen[offset / 8] |= bit;
        int done = 1;
        for (uint32_t d = rank; d > 0; --d) {
            if (++index[d - 1] < t->sizes[d - 1]) {
                offset += t->strides[d - 1];
                done = 0;
                break;
            }
            offset -= (uint64_t)(t->sizes[d - 1] - 1) * t->strides[d - 1];
            index[d - 1] = 0;
        }
        if (done) {
            break;
        }
    }
    free(seen);
    return 0;
}

/* Rules 17-18. Sorted by stride, each stride must pass the extent of the smaller ones; when
 * that proof fails, the bitmap decides (or, beyond its limit, the layout is refused). */
static int32_t vk_check_output_layout(const bitcts_abi_tensor *t, char *err, size_t cap)
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
        if (t->sizes[d] == 1) {
            continue;
        }
        if (t->strides[d] == 0) {
            return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             "output_zero_stride: Output dimension %u (size %u) has stride 0", d,
                             t->sizes[d]);
        }
        uint32_t j = n;
        while (j > 0 && stride[j - 1] > t->strides[d]) {
            stride[j] = stride[j - 1];
            size[j] = size[j - 1];
            --j;
        }
        stride[j] = t->strides[d];
        size[j] = t->sizes[d];
        ++n;
    }
    uint64_t extent = 0;
    int disjoint = 1;
    for (uint32_t i = 0; i < n; ++i) {
        disjoint = disjoint && stride[i] > extent;
        extent += (size[i] - 1) * stride[i];
    }
    if (disjoint) {
        return BITCTS_ABI_OK;
    }
    int hit = 1;
    if (elements <= extent + 1 && extent < VK_OVERLAP_BITMAP_LIMIT &&
        vk_overlap_exact(t, extent + 1, &hit) != 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_OUT_OF_MEMORY,
                         "output_overlap: no memory for the exact overlap check");
    }
    if (hit) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "output_overlap: Output elements share offsets (%llu elements, span "
                         "%llu)",
                         (unsigned long long)elements, (unsigned long long)extent + 1);
    }
    return BITCTS_ABI_OK;
}

static void vk_copy_tensor(const bitcts_abi_tensor *t, uint32_t k, bitcts__vk_desc *desc)
{
    desc->data_type[k] = t->data_type;
    desc->width[k] = bitcts_dml_type_bytes(t->data_type);
    uint32_t packed = 1;
    for (uint32_t d = t->dimension_count; d > 0; --d) {
        desc->strides[k][d - 1] = t->strides != NULL ? t->strides[d - 1] : packed;
        packed *= t->sizes[d - 1];
    }
}

int32_t bitcts__vk_validate(const bitcts_abi_operator_desc *abi, bitcts__vk_desc *desc, char *err,
                            size_t cap)
{
    if (abi == NULL || abi->struct_size < sizeof *abi) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT,
                         "operator description missing or struct_size too small");
    }
    const uint32_t op = abi->operator_type;
    const uint32_t inputs = bitcts_dml_op_inputs(op);
    if (inputs == 0) {
        return vk_reject(err, cap, BITCTS_ABI_E_NOT_SUPPORTED,
                         "unknown_operator: %u is not one of the seven bitwise operators", op);
    }
    if (abi->input_count != inputs) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_DESCRIPTOR,
                         "input_count: operator %u takes %u inputs, the description has %u", op,
                         inputs, abi->input_count);
    }
    if (abi->inputs == NULL || abi->output == NULL) {
        return vk_reject(err, cap, BITCTS_ABI_E_INVALID_ARGUMENT, "description without tensors");
    }
    const char *const names[2] = {inputs == 1 ? "Input" : "A", "B"};
    const bitcts_abi_tensor *out = abi->output;
    int32_t rc = vk_check_tensor(out, "Output", 1, err, cap);
    for (uint32_t k = 0; k < inputs && rc == BITCTS_ABI_OK; ++k) {
        rc = vk_check_tensor(&abi->inputs[k], names[k], 0, err, cap);
    }
    for (uint32_t k = 0; k < inputs && rc == BITCTS_ABI_OK; ++k) {
        rc = vk_check_pair(op, &abi->inputs[k], names[k], out, err, cap);
    }
    for (uint32_t k = 0; k < inputs && rc == BITCTS_ABI_OK; ++k) {
        rc = vk_check_size(&abi->inputs[k], names[k], err, cap);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_check_size(out, "Output", err, cap);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_check_output_layout(out, err, cap);
    }
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    memset(desc, 0, sizeof *desc);
    desc->op = op;
    desc->input_count = inputs;
    desc->rank = out->dimension_count;
    memcpy(desc->sizes, out->sizes, desc->rank * sizeof desc->sizes[0]);
    vk_copy_tensor(out, BITCTS__VK_OUT, desc);
    for (uint32_t k = 0; k < inputs; ++k) {
        vk_copy_tensor(&abi->inputs[k], BITCTS__VK_A + k, desc);
    }
    return BITCTS_ABI_OK;
}
