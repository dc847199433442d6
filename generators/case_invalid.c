/* SPDX-License-Identifier: MIT */
/* Negative cases' descriptions (docs/case-plan.md, "Negative cases"): a valid rank-4 UINT8 base,
 * changed so that the rule named in the id is the first one the validator finds broken
 * (docs/spec/validation.md; tests/unit/case_plan_test.c checks it at every feature level). */
#include <string.h> /* memset */

#include "case_values.h"

static void repack(bitcts_tensor_desc *t)
{
    uint64_t need = 0;
    if (bitcts_tensor_calc_buffer_size(t, &need) == 0) {
        t->total_tensor_size_in_bytes = need;
    }
}

/* 2^32 - 1: the largest Sizes/Strides value and the element limit (spec 3.6). */
#define U32_MAX 0xFFFFFFFFu

/* size_overflow: one dimension of 2^32 - 1 elements (not too many) whose A stride is also
 * 2^32 - 1, so IndexOfLastElement + 1 = (2^32 - 2)(2^32 - 1) + 1, which times the 2-byte element
 * size exceeds 2^64 - 1. B broadcasts (4 bytes); the output is packed (UINT8 for BIT_COUNT). */
static void overflow_desc(bitcts_op_desc *d, bitcts_tensor_desc **all, uint32_t n)
{
    const uint32_t sizes[4] = {U32_MAX, 1, 1, 1};
    for (uint32_t i = 0; i < n; ++i) {
        bitcts_tensor_make_packed(BITCTS_DT_UINT16, 4, sizes, all[i]);
        if (all[i] != &d->output && all[i] != &d->inputs[0]) {
            all[i]->has_strides = 1; /* strides all 0 */
            repack(all[i]);
        }
    }
    if (d->op == BITCTS_OP_BIT_COUNT) { /* BIT_COUNT writes UINT8 or UINT32 */
        d->output.data_type = BITCTS_DT_UINT8;
        repack(&d->output);
    }
    bitcts_tensor_desc *a = &d->inputs[0];
    a->has_strides = 1;
    a->strides[0] = U32_MAX;
    a->total_tensor_size_in_bytes = 0x7FFFFFFFFFFFFFFCull; /* no size is big enough */
}

static void mismatch(const bitcts_case_key *key, bitcts_tensor_desc *last)
{
    switch (key->rule) {
    case BITCTS_RULE_DIMS_MISMATCH: last->dimension_count = 3; break;
    case BITCTS_RULE_SIZES_MISMATCH: last->sizes[3] = 6; break;
    default: last->data_type = BITCTS_DT_UINT16; break; /* type_mismatch */
    }
    repack(last);
}

static void output_layout(bitcts_op_desc *d, const uint32_t strides[4])
{
    d->output.has_strides = 1;
    memcpy(d->output.strides, strides, 4 * sizeof strides[0]);
    repack(&d->output);
}

/* The changes that touch one tensor's fields or the operator. */
static void break_rule(const bitcts_case_key *key, bitcts_op_desc *d, bitcts_tensor_desc **all,
                       uint32_t n, bitcts_tensor_desc *last)
{
    const uint32_t v = key->index;
    switch (key->rule) {
    case BITCTS_RULE_SIZE_ZERO:
        for (uint32_t i = 0; i < n; ++i) {
            all[i]->sizes[2] = 0;
        }
        break;
    case BITCTS_RULE_DIMENSION_COUNT:
        for (uint32_t i = 0; i < n; ++i) {
            all[i]->dimension_count = v == 0 ? 0 : 9;
            for (uint32_t k = 4; k <= BITCTS_MAX_DIMS; ++k) {
                all[i]->sizes[k] = 1;
            }
        }
        break;
    case BITCTS_RULE_DIMS_MISMATCH:
    case BITCTS_RULE_SIZES_MISMATCH:
    case BITCTS_RULE_TYPE_MISMATCH: mismatch(key, last); break;
    case BITCTS_RULE_UNKNOWN_TYPE:
        for (uint32_t i = 0; i < (v == 0 ? n : 1); ++i) {
            all[i]->data_type = v == 0 ? BITCTS_DT_UNKNOWN : 200;
        }
        break;
    case BITCTS_RULE_TYPE_NOT_ALLOWED:
        for (uint32_t i = 0; i < n; ++i) {
            all[i]->data_type = v == 0 ? BITCTS_DT_INT32 : BITCTS_DT_FLOAT32;
            repack(all[i]);
        }
        break;
    case BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED: {
        static const uint32_t bad[3] = {BITCTS_DT_UINT16, BITCTS_DT_INT32, BITCTS_DT_UINT64};
        d->output.data_type = bad[v % 3];
        repack(&d->output);
        break;
    }
    case BITCTS_RULE_TOO_MANY_ELEMENTS:
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t big[4] = {65536, 65537, 1, 1};
            memcpy(all[i]->sizes, big, sizeof big);
            if (all[i] != &d->output) { /* inputs broadcast: 4 bytes hold them */
                all[i]->has_strides = 1;
            }
            repack(all[i]);
        }
        break;
    case BITCTS_RULE_SIZE_OVERFLOW: overflow_desc(d, all, n); break;
    case BITCTS_RULE_BUFFER_TOO_SMALL:
        (v == 0 ? all[0] : &d->output)->total_tensor_size_in_bytes -= 4;
        break;
    default: break;
    }
}

void bitcts_case_invalid_desc(const bitcts_case_key *key, bitcts_op_desc *d)
{
    static const uint32_t base_sizes[4] = {2, 3, 4, 5};
    static const uint32_t zero_stride[4] = {0, 20, 5, 1};
    static const uint32_t overlap[4] = {1, 1, 1, 1};
    memset(d, 0, sizeof *d);
    d->op = key->op;
    d->input_count = bitcts_op_input_count(key->op);
    if (key->rule == BITCTS_RULE_INPUT_COUNT) { /* 1 <-> 2 inputs, or none */
        d->input_count = key->index == 0 ? 3 - d->input_count : 0;
    }
    if (key->rule == BITCTS_RULE_UNKNOWN_OPERATOR) { /* DML_OPERATOR_INVALID, or past them all */
        d->op = key->index == 0 ? 0 : 0x7FFFFFFFu;
    }
    const uint32_t n = d->input_count + 1; /* tensors in use: inputs then the output */
    bitcts_tensor_desc *all[3] = {&d->inputs[0], &d->inputs[1], &d->output};
    all[n - 1] = &d->output;
    for (uint32_t i = 0; i < n; ++i) {
        bitcts_tensor_make_packed(BITCTS_DT_UINT8, 4, base_sizes, all[i]);
    }
    /* The tensor the mismatch rules change: B, or the unary operator's output. */
    bitcts_tensor_desc *last = d->input_count == 2 ? &d->inputs[1] : &d->output;
    switch (key->rule) {
    case BITCTS_RULE_OUTPUT_ZERO_STRIDE: output_layout(d, zero_stride); break;
    case BITCTS_RULE_OUTPUT_OVERLAP: output_layout(d, overlap); break;
    case BITCTS_RULE_ALIGNMENT:
        if (key->index == 0) {
            d->inputs[0].guaranteed_base_offset_alignment = 3;
        } else {
            d->output.guaranteed_base_offset_alignment = 24;
        }
        break;
    case BITCTS_RULE_OUTPUT_FLAGS: d->output.flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML; break;
    case BITCTS_RULE_UNKNOWN_FLAGS: d->inputs[0].flags = 0x4; break;
    default: break_rule(key, d, all, n, last); break;
    }
}
