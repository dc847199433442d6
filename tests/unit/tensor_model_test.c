/* SPDX-License-Identifier: MIT */
/* Tests of the tensor model: DML enum values, widths, feature-level gating and the
 * DMLCalcBufferTensorSize rule (broadcast, padding, 4-byte rounding, overflow). */
#include <stdint.h>

#include "bitcts/bitcts_status.h"
#include "check.h"
#include "tensor_model.h"

static uint64_t calc(uint32_t type, uint32_t rank, const uint32_t *sizes, const uint32_t *strides,
                     int *status)
{
    bitcts_tensor_desc t = {.data_type = type, .dimension_count = rank};
    for (uint32_t k = 0; k < rank; ++k) {
        t.sizes[k] = sizes[k];
        if (strides != NULL) {
            t.strides[k] = strides[k];
        }
    }
    t.has_strides = strides != NULL;
    uint64_t bytes = 0;
    *status = bitcts_tensor_calc_buffer_size(&t, &bytes);
    return bytes;
}

static void test_enums(void)
{
    /* DML_TENSOR_DATA_TYPE values (spec 3.4) and widths. */
    const struct {
        uint32_t value, size;
        const char *name;
    } types[] = {{1, 4, "float32"}, {2, 2, "float16"}, {3, 4, "uint32"}, {4, 2, "uint16"},
                 {5, 1, "uint8"},   {6, 4, "int32"},   {7, 2, "int16"},  {8, 1, "int8"},
                 {9, 8, "float64"}, {10, 8, "uint64"}, {11, 8, "int64"}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
        CHECK_EQ_U64(bitcts_dtype_size(types[i].value), types[i].size);
        CHECK_EQ_STR(bitcts_dtype_name(types[i].value), types[i].name);
        CHECK_EQ_U64(bitcts_dtype_parse(types[i].name), types[i].value);
    }
    CHECK_EQ_U64(bitcts_dtype_size(0), 0);
    CHECK_EQ_U64(bitcts_dtype_size(12), 0);
    CHECK_EQ_U64(bitcts_dtype_parse("uint4"), 0);
    /* DML_OPERATOR_TYPE values (spec 1.1). */
    CHECK_EQ_U64(bitcts_op_parse("bit_shift_left"), 97);
    CHECK_EQ_U64(bitcts_op_parse("bit_shift_right"), 98);
    CHECK_EQ_U64(bitcts_op_parse("bit_and"), 121);
    CHECK_EQ_U64(bitcts_op_parse("bit_or"), 122);
    CHECK_EQ_U64(bitcts_op_parse("bit_xor"), 123);
    CHECK_EQ_U64(bitcts_op_parse("bit_not"), 124);
    CHECK_EQ_U64(bitcts_op_parse("bit_count"), 125);
    CHECK_EQ_U64(bitcts_op_parse("bit_nand"), 0);
    CHECK_EQ_U64(bitcts_op_index(BITCTS_OP_BIT_AND), 0);
    CHECK_EQ_U64(bitcts_op_index(BITCTS_OP_BIT_SHIFT_RIGHT), 6);
    CHECK(bitcts_op_index(7) == -1);
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        CHECK(bitcts_op_index(bitcts_op_all[i]) == i);
    }
    CHECK_EQ_U64(bitcts_op_input_count(124), 1);
    CHECK_EQ_U64(bitcts_op_input_count(97), 2);
    CHECK(!bitcts_op_allows_in_place(125));
    CHECK(bitcts_op_allows_in_place(98));
    /* Feature levels as DML encodes them. */
    CHECK_EQ_U64(bitcts_fl_parse("2_1"), 0x2100);
    CHECK_EQ_U64(bitcts_fl_parse("4.1"), 0x4100);
    CHECK_EQ_U64(bitcts_fl_parse("0x3000"), 0x3000);
    CHECK_EQ_U64(bitcts_fl_parse("4_2"), 0);
    CHECK_EQ_U64(bitcts_fl_parse("41"), 0);
    char buf[8];
    CHECK_EQ_STR(bitcts_fl_format(0x4100, buf, sizeof buf), "4_1");
}

static void test_feature_levels(void)
{
    const uint32_t SHL = BITCTS_OP_BIT_SHIFT_LEFT;
    CHECK_EQ_U64(bitcts_fl_required(SHL, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4), 0x2100);
    CHECK_EQ_U64(bitcts_fl_required(SHL, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 3), 0x3000);
    CHECK_EQ_U64(bitcts_fl_required(SHL, BITCTS_DT_UINT64, BITCTS_DT_UINT64, 4), 0x4100);
    CHECK_EQ_U64(bitcts_fl_required(SHL, BITCTS_DT_INT32, BITCTS_DT_INT32, 4), 0);
    CHECK_EQ_U64(bitcts_fl_required(SHL, BITCTS_DT_FLOAT32, BITCTS_DT_FLOAT32, 4), 0);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 8),
                 0x3000);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_XOR, BITCTS_DT_INT8, BITCTS_DT_INT8, 1), 0x4100);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT16, BITCTS_DT_FLOAT16, 2),
                 0x4100);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT16, 2), 0);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT16, BITCTS_DT_UINT8, 2),
                 0x3000);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_COUNT, BITCTS_DT_INT64, BITCTS_DT_UINT8, 2),
                 0x4100);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT8, BITCTS_DT_UINT16, 2), 0);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT8, BITCTS_DT_INT32, 2), 0);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_AND, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 9), 0);
    CHECK_EQ_U64(bitcts_fl_required(BITCTS_OP_BIT_AND, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 0), 0);
}

static void test_buffer_size(void)
{
    int st;
    const uint32_t s23[2] = {2, 3};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT8, 2, s23, NULL, &st), 8); /* 6 rounded up to 4 */
    CHECK_EQ_U64(st, BITCTS_OK);
    CHECK_EQ_U64(calc(BITCTS_DT_UINT32, 2, s23, NULL, &st), 24);
    const uint32_t s3[1] = {3};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT16, 1, s3, NULL, &st), 8);
    const uint32_t s4[1] = {4};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT8, 1, s4, NULL, &st), 4);
    /* Broadcast: zero strides add nothing. */
    const uint32_t s53[2] = {5, 3}, b01[2] = {0, 1};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT32, 2, s53, b01, &st), 12);
    const uint32_t zero[2] = {0, 0};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT8, 2, s53, zero, &st), 4); /* a scalar: 1 byte -> 4 */
    CHECK_EQ_U64(calc(BITCTS_DT_UINT64, 2, s53, zero, &st), 8);
    CHECK_EQ_U64(calc(BITCTS_DT_UINT16, 2, s53, zero, &st), 4);
    /* Padding: IndexOfLastElement = 1*5 + 2*1 = 7, so 8 bytes; stride 6 gives 9 -> 12. */
    const uint32_t p51[2] = {5, 1}, p61[2] = {6, 1};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT8, 2, s23, p51, &st), 8);
    CHECK_EQ_U64(calc(BITCTS_DT_UINT8, 2, s23, p61, &st), 12);
    /* Packed strides given explicitly equal the NULL-strides size. */
    const uint32_t packed[2] = {3, 1};
    CHECK_EQ_U64(calc(BITCTS_DT_INT16, 2, s23, packed, &st),
                 calc(BITCTS_DT_INT16, 2, s23, NULL, &st));
    /* The spec's example: 2x2x3 with strides {6,3,1}: last index 11 -> 12 elements. */
    const uint32_t dhw[3] = {2, 2, 3}, dhw_s[3] = {6, 3, 1};
    CHECK_EQ_U64(calc(BITCTS_DT_FLOAT32, 3, dhw, dhw_s, &st), 48);
    /* Large but representable: 2^32-1 elements of 8 bytes. */
    const uint32_t big[2] = {65535, 65537};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT64, 2, big, NULL, &st), 65535ull * 65537ull * 8);
    CHECK_EQ_U64(st, BITCTS_OK);
    /* Overflow in 64 bits: packed product and strided index. */
    const uint32_t huge[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    calc(BITCTS_DT_UINT64, 3, huge, NULL, &st);
    CHECK_EQ_U64(st, BITCTS_E_OVERFLOW);
    const uint32_t eight[8] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                               0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    calc(BITCTS_DT_UINT8, 8, eight, eight, &st);
    CHECK_EQ_U64(st, BITCTS_E_OVERFLOW);
    const uint32_t two[2] = {0x80000000u, 0x80000000u};
    const uint32_t one_s[2] = {0xFFFFFFFFu, 0xFFFFFFFFu};
    CHECK_EQ_U64(calc(BITCTS_DT_UINT8, 2, two, one_s, &st),
                 (2 * 0x7FFFFFFFull * 0xFFFFFFFFull + 1 + 3) & ~3ull);
    CHECK_EQ_U64(st, BITCTS_OK);
    /* Size 0, unknown type, rank 0. */
    const uint32_t s0[2] = {2, 0};
    calc(BITCTS_DT_UINT8, 2, s0, NULL, &st);
    CHECK_EQ_U64(st, BITCTS_E_INVALID_ARGUMENT);
    calc(0, 2, s23, NULL, &st);
    CHECK_EQ_U64(st, BITCTS_E_INVALID_ARGUMENT);
    calc(BITCTS_DT_UINT8, 0, s23, NULL, &st);
    CHECK_EQ_U64(st, BITCTS_E_INVALID_ARGUMENT);
}

static void test_status(void)
{
    CHECK_EQ_STR(bitcts_status_name(BITCTS_E_PARSE), "BITCTS_E_PARSE");
    CHECK_EQ_U64(BITCTS_E_PLUGIN_LOAD, 300); /* pinned */
    CHECK_EQ_U64(BITCTS_E_NOT_SUPPORTED, 200);
    CHECK_EQ_STR(bitcts_status_message(9999), "unknown status");
}

int main(void)
{
    test_enums();
    test_feature_levels();
    test_buffer_size();
    test_status();
    return check_exit();
}
