/* SPDX-License-Identifier: MIT */
/* The tensor model: data types, operator codes, feature levels and DMLCalcBufferTensorSize
 * (spec 1.1, 1.3, 3.3, 3.4, 4.1). Part of the oracle: written for obviousness. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtoul */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "tensor_model.h"

typedef struct dtype_info {
    const char *name;
    uint32_t size;
    int is_float;
    int is_signed;
} dtype_info;

/* Indexed by DML_TENSOR_DATA_TYPE (spec 3.4), from the SDK's list. */
#define DTYPE_ENTRY(name_, value, bytes, is_float_, is_signed_, text)                              \
    [value] = {.name = text, .size = bytes, .is_float = is_float_, .is_signed = is_signed_},
static const dtype_info dtype_table[BITCTS_DT_COUNT] = {BITCTS_DML_DATA_TYPE_LIST(DTYPE_ENTRY)};
#undef DTYPE_ENTRY

uint32_t bitcts_dtype_size(uint32_t t)
{
    return t < BITCTS_DT_COUNT ? dtype_table[t].size : 0;
}

const char *bitcts_dtype_name(uint32_t t)
{
    return t < BITCTS_DT_COUNT ? dtype_table[t].name : NULL;
}

int bitcts_dtype_is_float(uint32_t t)
{
    return t < BITCTS_DT_COUNT && dtype_table[t].is_float;
}

int bitcts_dtype_is_signed(uint32_t t)
{
    return t < BITCTS_DT_COUNT && dtype_table[t].is_signed;
}

uint32_t bitcts_dtype_parse(const char *name)
{
    for (uint32_t t = 1; name != NULL && t < BITCTS_DT_COUNT; ++t) {
        if (strcmp(name, dtype_table[t].name) == 0) {
            return t;
        }
    }
    return BITCTS_DT_UNKNOWN;
}

typedef struct op_info {
    uint32_t op;
    uint32_t inputs;
    const char *name;
} op_info;

/* In the SDK list's order, which is bitcts's operator order (spec 1.1). */
#define OP_ENTRY(name_, value, inputs_, text) {.op = value, .inputs = inputs_, .name = text},
static const op_info op_table[BITCTS_OP_COUNT] = {BITCTS_DML_OPERATOR_LIST(OP_ENTRY)};
#undef OP_ENTRY

#define OP_CODE_ENTRY(name_, value, inputs_, text) value,
const uint32_t bitcts_op_all[BITCTS_OP_COUNT] = {BITCTS_DML_OPERATOR_LIST(OP_CODE_ENTRY)};
#undef OP_CODE_ENTRY

int bitcts_op_index(uint32_t op)
{
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        if (op_table[i].op == op) {
            return i;
        }
    }
    return -1;
}

const char *bitcts_op_name(uint32_t op)
{
    const int i = bitcts_op_index(op);
    return i < 0 ? NULL : op_table[i].name;
}

uint32_t bitcts_op_parse(const char *name)
{
    for (uint32_t i = 0; name != NULL && i < BITCTS_OP_COUNT; ++i) {
        if (strcmp(name, op_table[i].name) == 0) {
            return op_table[i].op;
        }
    }
    return 0;
}

uint32_t bitcts_op_input_count(uint32_t op)
{
    const int i = bitcts_op_index(op);
    return i < 0 ? 0 : op_table[i].inputs;
}

int bitcts_op_allows_in_place(uint32_t op)
{
    return bitcts_op_index(op) >= 0 && op != BITCTS_OP_BIT_COUNT;
}

int bitcts_op_is_shift(uint32_t op)
{
    return op == BITCTS_OP_BIT_SHIFT_LEFT || op == BITCTS_OP_BIT_SHIFT_RIGHT;
}

const char *bitcts_role_name(uint32_t input_count, uint32_t index)
{
    if (index >= input_count) {
        return "Output";
    }
    if (input_count == 1) {
        return "Input";
    }
    return index == 0 ? "A" : "B";
}

#define FL_ENTRY(name, value) value,
static const uint32_t known_fls[] = {BITCTS_DML_FEATURE_LEVEL_LIST(FL_ENTRY)};
#undef FL_ENTRY

uint32_t bitcts_fl_parse(const char *text)
{
    if (text == NULL || !*text) {
        return 0;
    }
    uint32_t value = 0;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        char *end = NULL;
        unsigned long v = strtoul(text + 2, &end, 16);
        if (*end || end == text + 2) {
            return 0;
        }
        value = (uint32_t)v;
    } else {
        /* "M_m" or "M.m", one digit each. */
        if (!(text[0] >= '0' && text[0] <= '9') || (text[1] != '_' && text[1] != '.') ||
            !(text[2] >= '0' && text[2] <= '9') || text[3]) {
            return 0;
        }
        value = ((uint32_t)(text[0] - '0') << 12) | ((uint32_t)(text[2] - '0') << 8);
    }
    for (size_t i = 0; i < sizeof known_fls / sizeof known_fls[0]; ++i) {
        if (known_fls[i] == value) {
            return value;
        }
    }
    return 0;
}

const char *bitcts_fl_format(uint32_t fl, char *buf, size_t cap)
{
    snprintf(buf, cap, "%u_%u", (fl >> 12) & 0xF, (fl >> 8) & 0xF);
    return buf;
}

static int is_small_unsigned(uint32_t t)
{
    return t == BITCTS_DT_UINT8 || t == BITCTS_DT_UINT16 || t == BITCTS_DT_UINT32;
}

/* Spec 1.3 tables and 4.2. */
uint32_t bitcts_fl_required(uint32_t op, uint32_t in_type, uint32_t out_type, uint32_t rank)
{
    if (rank < 1 || rank > BITCTS_MAX_DIMS || bitcts_dtype_size(in_type) == 0) {
        return 0;
    }
    switch (op) {
    case BITCTS_OP_BIT_SHIFT_LEFT:
    case BITCTS_OP_BIT_SHIFT_RIGHT:
        if (out_type != in_type) {
            return 0;
        }
        if (in_type == BITCTS_DT_UINT64) {
            return BITCTS_FL_4_1;
        }
        if (!is_small_unsigned(in_type)) {
            return 0;
        }
        return rank == 4 ? BITCTS_FL_2_1 : BITCTS_FL_3_0;
    case BITCTS_OP_BIT_AND:
    case BITCTS_OP_BIT_OR:
    case BITCTS_OP_BIT_XOR:
    case BITCTS_OP_BIT_NOT:
        if (out_type != in_type) {
            return 0;
        }
        return is_small_unsigned(in_type) ? BITCTS_FL_3_0 : BITCTS_FL_4_1;
    case BITCTS_OP_BIT_COUNT:
        if (out_type != BITCTS_DT_UINT8 && out_type != BITCTS_DT_UINT32) {
            return 0;
        }
        return is_small_unsigned(in_type) ? BITCTS_FL_3_0 : BITCTS_FL_4_1;
    default: return 0;
    }
}

uint64_t bitcts_tensor_stride(const bitcts_tensor_desc *d, uint32_t dim)
{
    if (d->has_strides) {
        return d->strides[dim];
    }
    uint64_t s = 1;
    for (uint32_t k = dim + 1; k < d->dimension_count; ++k) {
        s *= d->sizes[k];
    }
    return s;
}

uint64_t bitcts_tensor_element_count(const bitcts_tensor_desc *d)
{
    uint64_t n = 1;
    for (uint32_t k = 0; k < d->dimension_count && k < BITCTS_MAX_DIMS; ++k) {
        if (d->sizes[k] != 0 && n > UINT64_MAX / d->sizes[k]) {
            return UINT64_MAX;
        }
        n *= d->sizes[k];
    }
    return n;
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    if (a != 0 && b > UINT64_MAX / a) {
        return 0;
    }
    *r = a * b;
    return 1;
}

static int add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    if (b > UINT64_MAX - a) {
        return 0;
    }
    *r = a + b;
    return 1;
}

/* Spec 3.3: roundup((IndexOfLastElement + 1) * ElementSize, 4), or for packed tensors
 * roundup(product(Sizes) * ElementSize, 4). Every step is checked for 64-bit overflow. */
int bitcts_tensor_calc_buffer_size(const bitcts_tensor_desc *d, uint64_t *out_bytes)
{
    const uint32_t esize = bitcts_dtype_size(d->data_type);
    if (esize == 0 || d->dimension_count < 1 || d->dimension_count > BITCTS_MAX_DIMS) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    uint64_t elements = 1;
    for (uint32_t k = 0; k < d->dimension_count; ++k) {
        if (d->sizes[k] == 0) {
            return BITCTS_E_INVALID_ARGUMENT;
        }
        uint64_t term = 0;
        if (d->has_strides) {
            if (!mul_ok((uint64_t)d->sizes[k] - 1, d->strides[k], &term) ||
                !add_ok(elements, term, &elements)) {
                return BITCTS_E_OVERFLOW;
            }
        } else if (!mul_ok(elements, d->sizes[k], &elements)) {
            return BITCTS_E_OVERFLOW;
        }
    }
    /* For strided tensors `elements` started at 1 and so already holds IndexOfLastElement + 1. */
    uint64_t bytes = 0;
    if (!mul_ok(elements, esize, &bytes) || !add_ok(bytes, 3, &bytes)) {
        return BITCTS_E_OVERFLOW;
    }
    *out_bytes = bytes & ~(uint64_t)3;
    return BITCTS_OK;
}

int bitcts_tensor_make_packed(uint32_t data_type, uint32_t rank, const uint32_t *sizes,
                              bitcts_tensor_desc *out)
{
    memset(out, 0, sizeof *out);
    if (rank < 1 || rank > BITCTS_MAX_DIMS) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    out->data_type = data_type;
    out->dimension_count = rank;
    memcpy(out->sizes, sizes, rank * sizeof sizes[0]);
    return bitcts_tensor_calc_buffer_size(out, &out->total_tensor_size_in_bytes);
}
