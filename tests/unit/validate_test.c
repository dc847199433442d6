/* SPDX-License-Identifier: MIT */
/* Each validation rule fires with its precise reason on a description that breaks it alone,
 * and a valid description passes; feature-level gating follows spec 1.3 and 4.2. */
#include <string.h>

#include "check.h"
#include "tensor_model.h"
#include "validate.h"

static bitcts_op_desc binary(uint32_t op, uint32_t type, uint32_t rank, const uint32_t *sizes)
{
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = op;
    d.input_count = 2;
    bitcts_tensor_make_packed(type, rank, sizes, &d.inputs[0]);
    bitcts_tensor_make_packed(type, rank, sizes, &d.inputs[1]);
    bitcts_tensor_make_packed(type, rank, sizes, &d.output);
    return d;
}

static bitcts_op_desc unary(uint32_t op, uint32_t in, uint32_t out, uint32_t rank,
                            const uint32_t *sizes)
{
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = op;
    d.input_count = 1;
    bitcts_tensor_make_packed(in, rank, sizes, &d.inputs[0]);
    bitcts_tensor_make_packed(out, rank, sizes, &d.output);
    return d;
}

static void expect_rule(const bitcts_op_desc *d, uint32_t fl, bitcts_rule rule, const char *tensor)
{
    bitcts_validation v;
    const bitcts_rule got = bitcts_validate_op(d, fl, &v);
    CHECK_EQ_STR(bitcts_rule_id(got), bitcts_rule_id(rule));
    if (tensor != NULL) {
        CHECK_EQ_STR(v.tensor, tensor);
    }
    if (rule != BITCTS_RULE_OK) {
        CHECK(v.detail[0] != '\0');
    }
}

static const uint32_t s4[4] = {2, 3, 4, 5};

static void test_matching_rules(void)
{
    bitcts_op_desc d = binary(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, 4, s4);
    expect_rule(&d, BITCTS_FL_3_0, BITCTS_RULE_OK, "");
    d.inputs[1].sizes[2] = 0;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_SIZE_ZERO, "B");
    d = binary(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, 4, s4);
    d.output.dimension_count = 3;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_DIMS_MISMATCH, "Output");
    d = binary(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, 4, s4);
    d.inputs[1].sizes[3] = 6;
    bitcts_tensor_calc_buffer_size(&d.inputs[1], &d.inputs[1].total_tensor_size_in_bytes);
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_SIZES_MISMATCH, "B");
    d = binary(BITCTS_OP_BIT_AND, BITCTS_DT_UINT8, 4, s4);
    d.output.data_type = BITCTS_DT_INT8;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_TYPE_MISMATCH, "Output");
    d = binary(BITCTS_OP_BIT_AND, BITCTS_DT_UINT8, 4, s4);
    d.inputs[0].data_type = 0;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_UNKNOWN_TYPE, "A");
    d = binary(BITCTS_OP_BIT_AND, BITCTS_DT_UINT8, 4, s4);
    d.inputs[0].dimension_count = 9;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_DIMENSION_COUNT, "A");
    d.inputs[0].dimension_count = 0;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_DIMENSION_COUNT, "A");
    d = binary(BITCTS_OP_BIT_AND, BITCTS_DT_UINT8, 4, s4);
    d.input_count = 1;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_INPUT_COUNT, NULL);
    d.op = 7;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_UNKNOWN_OPERATOR, NULL);
    /* BIT_COUNT's output type may differ from its input's. */
    d = unary(BITCTS_OP_BIT_COUNT, BITCTS_DT_INT64, BITCTS_DT_UINT8, 4, s4);
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d = unary(BITCTS_OP_BIT_NOT, BITCTS_DT_INT64, BITCTS_DT_UINT64, 4, s4);
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_TYPE_MISMATCH, "Output");
}

static void test_feature_level_rules(void)
{
    const uint32_t s3[3] = {2, 3, 4};
    bitcts_op_desc d = binary(BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT16, 4, s4);
    expect_rule(&d, BITCTS_FL_2_1, BITCTS_RULE_OK, NULL);
    expect_rule(&d, BITCTS_FL_2_0, BITCTS_RULE_OPERATOR_FL, NULL);
    d = binary(BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT16, 3, s3);
    expect_rule(&d, BITCTS_FL_2_1, BITCTS_RULE_DIMENSION_COUNT, "Output");
    expect_rule(&d, BITCTS_FL_3_0, BITCTS_RULE_OK, NULL);
    d = binary(BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_DT_UINT64, 4, s4);
    expect_rule(&d, BITCTS_FL_3_0, BITCTS_RULE_TYPE_NOT_ALLOWED, "A");
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d = binary(BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_DT_INT32, 4, s4);
    expect_rule(&d, BITCTS_FL_6_4, BITCTS_RULE_TYPE_NOT_ALLOWED, "A");
    d = binary(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, 4, s4);
    expect_rule(&d, BITCTS_FL_2_1, BITCTS_RULE_OPERATOR_FL, NULL);
    d = binary(BITCTS_OP_BIT_XOR, BITCTS_DT_FLOAT16, 4, s4);
    expect_rule(&d, BITCTS_FL_3_0, BITCTS_RULE_TYPE_NOT_ALLOWED, "A");
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d = unary(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT8, BITCTS_DT_UINT16, 4, s4);
    expect_rule(&d, BITCTS_FL_6_4, BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED, "Output");
    d = unary(BITCTS_OP_BIT_COUNT, BITCTS_DT_INT8, BITCTS_DT_UINT32, 4, s4);
    expect_rule(&d, BITCTS_FL_3_0, BITCTS_RULE_TYPE_NOT_ALLOWED, "Input");
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
}

static void test_size_rules(void)
{
    bitcts_op_desc d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT32, 4, s4);
    d.inputs[0].total_tensor_size_in_bytes -= 4;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_BUFFER_TOO_SMALL, "A");
    d.inputs[0].total_tensor_size_in_bytes += 1000; /* larger than needed is fine */
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    /* Broadcast input: 4 bytes are enough. */
    d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT32, 4, s4);
    d.inputs[1].has_strides = 1;
    memset(d.inputs[1].strides, 0, sizeof d.inputs[1].strides);
    d.inputs[1].total_tensor_size_in_bytes = 4;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    /* Output broadcast is invalid. */
    d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT32, 4, s4);
    d.output.has_strides = 1;
    const uint32_t zs[4] = {0, 20, 5, 1};
    memcpy(d.output.strides, zs, sizeof zs);
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OUTPUT_ZERO_STRIDE, "Output");
    /* Zero stride on a size-1 dimension is not a broadcast. */
    const uint32_t s1[4] = {1, 3, 4, 5};
    d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT32, 4, s1);
    d.output.has_strides = 1;
    memcpy(d.output.strides, zs, sizeof zs);
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    /* Overlapping output elements; interleaved but distinct offsets are fine. */
    const uint32_t s32[2] = {3, 2};
    d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT8, 2, s32);
    d.output.has_strides = 1;
    d.output.total_tensor_size_in_bytes = 64; /* room for every layout below */
    d.output.strides[0] = 1, d.output.strides[1] = 1;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OUTPUT_OVERLAP, "Output");
    d.output.strides[0] = 2, d.output.strides[1] = 3; /* offsets 0,3,2,5,4,7 */
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d.output.strides[0] = 1, d.output.strides[1] = 3; /* offsets 0,3,1,4,2,5 */
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d.output.strides[0] = 3, d.output.strides[1] = 2; /* offsets 0,2,3,5,6,8 */
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d.output.strides[0] = 2, d.output.strides[1] = 4; /* 0,4,2,6,4,8: 4 twice */
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OUTPUT_OVERLAP, "Output");
    /* More than 2^32-1 elements (inputs broadcast so sizes stay small). */
    const uint32_t big[2] = {65536, 65536};
    d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT8, 2, big);
    d.inputs[0].has_strides = d.inputs[1].has_strides = 1;
    d.inputs[0].total_tensor_size_in_bytes = d.inputs[1].total_tensor_size_in_bytes = 4;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_TOO_MANY_ELEMENTS, "A");
    const uint32_t max_ok[2] = {65535, 65537}; /* exactly 2^32-1 */
    d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT8, 2, max_ok);
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    /* Strided index overflowing 64 bits. */
    d = binary(BITCTS_OP_BIT_OR, BITCTS_DT_UINT8, 4, s4);
    d.inputs[0].has_strides = 1;
    for (int k = 0; k < 4; ++k) {
        d.inputs[0].strides[k] = 0xFFFFFFFFu;
    }
    d.inputs[0].sizes[0] = d.inputs[0].sizes[1] = 0xFFFFFFFFu;
    d.inputs[1].sizes[0] = d.inputs[1].sizes[1] = d.output.sizes[0] = d.output.sizes[1] =
        0xFFFFFFFFu;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_TOO_MANY_ELEMENTS, "A");
}

static void test_flag_rules(void)
{
    bitcts_op_desc d = unary(BITCTS_OP_BIT_NOT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 4, s4);
    d.inputs[0].guaranteed_base_offset_alignment = 3;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_ALIGNMENT, "Input");
    d.inputs[0].guaranteed_base_offset_alignment = 2; /* below the 4-byte element */
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_ALIGNMENT, "Input");
    d.inputs[0].guaranteed_base_offset_alignment = 16;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d.inputs[0].flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML; /* allowed on inputs */
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OK, NULL);
    d.output.flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_OUTPUT_FLAGS, "Output");
    d.output.flags = 0;
    d.inputs[0].flags = 0x8;
    expect_rule(&d, BITCTS_FL_4_1, BITCTS_RULE_UNKNOWN_FLAGS, "Input");
    CHECK_EQ_STR(bitcts_rule_id(BITCTS_RULE_OUTPUT_OVERLAP), "output_overlap");
    CHECK_EQ_STR(bitcts_rule_id(999), "unknown_rule");
}

int main(void)
{
    test_matching_rules();
    test_feature_level_rules();
    test_size_rules();
    test_flag_rules();
    return check_exit();
}
