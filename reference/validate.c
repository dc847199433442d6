/* SPDX-License-Identifier: MIT */
/* Validation of an operator description at a feature level against every rule of the spec
 * (docs/spec/validation.md). Rules are checked in the documented order and the first rule broken
 * is named, with the tensor and the offending numbers. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc, qsort */
#include <string.h> /* memset */

#include "bitcts/bitcts_status.h"
#include "tensor_iter.h"
#include "tensor_model.h"
#include "validate.h"

#define RULE_ID_ENTRY(name, value, id, text) [value] = id,
#define RULE_TEXT_ENTRY(name, value, id, text) [value] = text,
static const char *const rule_ids[] = {BITCTS_RULE_LIST(RULE_ID_ENTRY)};
static const char *const rule_texts[] = {BITCTS_RULE_LIST(RULE_TEXT_ENTRY)};
#define RULE_COUNT ((int)(sizeof rule_ids / sizeof rule_ids[0]))

const char *bitcts_rule_id(int rule)
{
    return rule >= 0 && rule < RULE_COUNT && rule_ids[rule] != NULL ? rule_ids[rule]
                                                                    : "unknown_rule";
}

const char *bitcts_rule_text(int rule)
{
    return rule >= 0 && rule < RULE_COUNT && rule_texts[rule] != NULL ? rule_texts[rule]
                                                                      : "unknown rule";
}

static bitcts_rule fail(bitcts_validation *v, bitcts_rule rule, const char *tensor,
                        const char *fmt_detail, unsigned long long x, unsigned long long y)
{
    if (v != NULL) {
        v->rule = rule;
        snprintf(v->tensor, sizeof v->tensor, "%s", tensor);
        snprintf(v->detail, sizeof v->detail, fmt_detail, x, y);
    }
    return rule;
}

static int compare_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a;
    const uint64_t y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* 1 when two logical elements share an offset. Sufficient test first (dims sorted by stride,
 * each stride beyond the span of the smaller ones); when it fails, exact enumeration for up to
 * 2^22 elements; beyond that the layout is reported as overlapping (conservative). */
static int output_overlaps(const bitcts_tensor_desc *t)
{
    uint64_t stride[BITCTS_MAX_DIMS];
    uint64_t size[BITCTS_MAX_DIMS];
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        if (t->sizes[k] > 1) {
            stride[n] = bitcts_tensor_stride(t, k);
            size[n] = t->sizes[k];
            ++n;
        }
    }
    for (uint32_t i = 1; i < n; ++i) { /* insertion sort by stride */
        for (uint32_t j = i; j > 0 && stride[j] < stride[j - 1]; --j) {
            uint64_t s = stride[j], z = size[j];
            stride[j] = stride[j - 1], size[j] = size[j - 1];
            stride[j - 1] = s, size[j - 1] = z;
        }
    }
    int sufficient = 1;
    uint64_t span = 0; /* largest offset reachable with the dims seen so far */
    for (uint32_t i = 0; i < n; ++i) {
        if (stride[i] <= span) {
            sufficient = 0;
        }
        span += (size[i] - 1) * stride[i];
    }
    if (sufficient) {
        return 0;
    }
    const uint64_t count = bitcts_tensor_element_count(t);
    if (count > (1u << 22)) {
        return 1;
    }
    uint64_t *offsets = malloc(count * sizeof *offsets);
    if (offsets == NULL) {
        return 1;
    }
    bitcts_tensor_iter it;
    for (bitcts_tensor_iter_init(&it, t); bitcts_tensor_iter_more(&it);
         bitcts_tensor_iter_next(&it)) {
        offsets[it.index] = it.offset[0];
    }
    qsort(offsets, count, sizeof *offsets, compare_u64);
    int dup = 0;
    for (uint64_t e = 1; e < count && !dup; ++e) {
        dup = offsets[e] == offsets[e - 1];
    }
    free(offsets);
    return dup;
}

/* Rules on one tensor alone, independent of the feature level. */
static bitcts_rule check_tensor(const bitcts_tensor_desc *t, const char *name, int is_output,
                                bitcts_validation *v)
{
    if (t->dimension_count < 1 || t->dimension_count > BITCTS_MAX_DIMS) {
        return fail(v, BITCTS_RULE_DIMENSION_COUNT, name,
                    "DimensionCount %llu is outside 1-8%.0llu", t->dimension_count, 0);
    }
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        if (t->sizes[k] == 0) {
            return fail(v, BITCTS_RULE_SIZE_ZERO, name, "Sizes[%llu] is 0%.0llu", k, 0);
        }
    }
    const uint32_t esize = bitcts_dtype_size(t->data_type);
    if (esize == 0) {
        return fail(v, BITCTS_RULE_UNKNOWN_TYPE, name, "DataType %llu is not known%.0llu",
                    t->data_type, 0);
    }
    if (t->flags & ~BITCTS_TENSOR_FLAG_OWNED_BY_DML) {
        return fail(v, BITCTS_RULE_UNKNOWN_FLAGS, name, "Flags 0x%llx has undefined bits%.0llu",
                    t->flags, 0);
    }
    if (is_output && (t->flags & BITCTS_TENSOR_FLAG_OWNED_BY_DML)) {
        return fail(v, BITCTS_RULE_OUTPUT_FLAGS, name, "Flags 0x%llx on an output%.0llu", t->flags,
                    0);
    }
    const uint32_t align = t->guaranteed_base_offset_alignment;
    if (align != 0 && ((align & (align - 1)) != 0 || align < esize)) {
        return fail(v, BITCTS_RULE_ALIGNMENT, name,
                    "GuaranteedBaseOffsetAlignment %llu for %llu-byte elements", align, esize);
    }
    return BITCTS_RULE_OK;
}

static bitcts_rule check_sizes(const bitcts_tensor_desc *t, const char *name, int is_output,
                               bitcts_validation *v)
{
    if (bitcts_tensor_element_count(t) > BITCTS_MAX_ELEMENTS) {
        return fail(v, BITCTS_RULE_TOO_MANY_ELEMENTS, name, "%llu elements%.0llu",
                    bitcts_tensor_element_count(t), 0);
    }
    uint64_t need = 0;
    if (bitcts_tensor_calc_buffer_size(t, &need) != BITCTS_OK) {
        return fail(v, BITCTS_RULE_SIZE_OVERFLOW, name, "implied size overflows%.0llu%.0llu", 0, 0);
    }
    if (t->total_tensor_size_in_bytes < need) {
        return fail(v, BITCTS_RULE_BUFFER_TOO_SMALL, name,
                    "TotalTensorSizeInBytes %llu < required %llu", t->total_tensor_size_in_bytes,
                    need);
    }
    if (is_output) {
        for (uint32_t k = 0; k < t->dimension_count; ++k) {
            if (t->sizes[k] > 1 && bitcts_tensor_stride(t, k) == 0) {
                return fail(v, BITCTS_RULE_OUTPUT_ZERO_STRIDE, name, "Strides[%llu] is 0%.0llu", k,
                            0);
            }
        }
        if (output_overlaps(t)) {
            return fail(v, BITCTS_RULE_OUTPUT_OVERLAP, name, "elements overlap%.0llu%.0llu", 0, 0);
        }
    }
    return BITCTS_RULE_OK;
}

/* Feature-level rules (spec 1.3): the operator, the dimension count, the types. */
static bitcts_rule check_feature_level(const bitcts_op_desc *d, uint32_t fl, bitcts_validation *v)
{
    const uint32_t op_fl = bitcts_op_is_shift(d->op) ? BITCTS_FL_2_1 : BITCTS_FL_3_0;
    if (fl < op_fl) {
        return fail(v, BITCTS_RULE_OPERATOR_FL, "", "needs feature level 0x%llx, have 0x%llx",
                    op_fl, fl);
    }
    const uint32_t rank = d->output.dimension_count;
    if (bitcts_op_is_shift(d->op) && fl < BITCTS_FL_3_0 && rank != 4) {
        return fail(v, BITCTS_RULE_DIMENSION_COUNT,
                    bitcts_role_name(d->input_count, d->input_count),
                    "DimensionCount %llu; feature level 2_1 shifts need exactly 4%.0llu", rank, 0);
    }
    const uint32_t in_type = d->inputs[0].data_type;
    const uint32_t out_type = d->output.data_type;
    /* Output type first for BIT_COUNT, whose output set is fixed at every feature level. */
    if (d->op == BITCTS_OP_BIT_COUNT &&
        bitcts_fl_required(d->op, BITCTS_DT_UINT8, out_type, 1) == 0) {
        return fail(v, BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED,
                    bitcts_role_name(d->input_count, d->input_count),
                    "DataType %llu; BIT_COUNT writes UINT8 (5) or UINT32 (3)%.0llu", out_type, 0);
    }
    const uint32_t need = bitcts_fl_required(d->op, in_type, out_type, rank);
    if (need == 0) {
        return fail(v, BITCTS_RULE_TYPE_NOT_ALLOWED, bitcts_role_name(d->input_count, 0),
                    "DataType %llu is not accepted by this operator at any feature level%.0llu",
                    in_type, 0);
    }
    if (need > fl) {
        return fail(v, BITCTS_RULE_TYPE_NOT_ALLOWED, bitcts_role_name(d->input_count, 0),
                    "DataType %llu needs feature level 0x%llx", in_type, need);
    }
    return BITCTS_RULE_OK;
}

bitcts_rule bitcts_validate_op(const bitcts_op_desc *d, uint32_t fl, bitcts_validation *v)
{
    if (v != NULL) {
        memset(v, 0, sizeof *v);
    }
    const uint32_t inputs = bitcts_op_input_count(d->op);
    if (inputs == 0) {
        return fail(v, BITCTS_RULE_UNKNOWN_OPERATOR, "", "operator type %llu%.0llu", d->op, 0);
    }
    if (d->input_count != inputs) {
        return fail(v, BITCTS_RULE_INPUT_COUNT, "", "%llu inputs given, operator takes %llu",
                    d->input_count, inputs);
    }
    bitcts_rule r;
    for (uint32_t i = 0; i < inputs; ++i) {
        if ((r = check_tensor(&d->inputs[i], bitcts_role_name(d->input_count, i), 0, v)) !=
            BITCTS_RULE_OK) {
            return r;
        }
    }
    if ((r = check_tensor(&d->output, bitcts_role_name(d->input_count, d->input_count), 1, v)) !=
        BITCTS_RULE_OK) {
        return r;
    }
    /* Matching DimensionCount, Sizes, DataType (spec 1.2; BIT_COUNT: not DataType). */
    const bitcts_tensor_desc *ref = &d->inputs[0];
    for (uint32_t i = 1; i <= inputs; ++i) {
        const bitcts_tensor_desc *t = i < inputs ? &d->inputs[i] : &d->output;
        const char *name = bitcts_role_name(inputs, i);
        if (t->dimension_count != ref->dimension_count) {
            return fail(v, BITCTS_RULE_DIMS_MISMATCH, name, "DimensionCount %llu vs %llu",
                        t->dimension_count, ref->dimension_count);
        }
        for (uint32_t k = 0; k < ref->dimension_count; ++k) {
            if (t->sizes[k] != ref->sizes[k]) {
                return fail(v, BITCTS_RULE_SIZES_MISMATCH, name, "Sizes[%llu] differs (%llu)", k,
                            t->sizes[k]);
            }
        }
        const int typed = !(d->op == BITCTS_OP_BIT_COUNT && i == inputs);
        if (typed && t->data_type != ref->data_type) {
            return fail(v, BITCTS_RULE_TYPE_MISMATCH, name, "DataType %llu vs %llu", t->data_type,
                        ref->data_type);
        }
    }
    if ((r = check_feature_level(d, fl, v)) != BITCTS_RULE_OK) {
        return r;
    }
    for (uint32_t i = 0; i < inputs; ++i) {
        if ((r = check_sizes(&d->inputs[i], bitcts_role_name(d->input_count, i), 0, v)) !=
            BITCTS_RULE_OK) {
            return r;
        }
    }
    return check_sizes(&d->output, bitcts_role_name(d->input_count, d->input_count), 1, v);
}
