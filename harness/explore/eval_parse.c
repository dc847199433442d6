/* SPDX-License-Identifier: MIT */
/* `bitcts eval`'s text to a validated description and its input buffers. Values are the
 * buffer's elements in memory order, as a list or as a file of raw bits ("@FILE"). */
#include <fenv.h>   /* fesetround */
#include <math.h>   /* frexp, rint */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtod, calloc */
#include <string.h> /* memcpy, strcmp */

#include "bitcts/bitcts_status.h"
#include "eval_parse.h"
#include "fs_util.h"
#include "number_text.h"
#include "ref_ops.h"
#include "validate.h"

static uint16_t half_from_double(double v)
{
    const uint16_t sign = signbit(v) ? 0x8000 : 0;
    if (isnan(v)) {
        return sign | 0x7E00;
    }
    const double a = fabs(v);
    if (isinf(a) || a >= 65520.0) { /* 65520 rounds to +inf under round-to-nearest-even */
        return sign | 0x7C00;
    }
    if (a < 0x1p-14) { /* denormal: units of 2^-24, rint rounds ties to even */
        return sign | (uint16_t)rint(a * 0x1p24);
    }
    int exp2 = 0;
    const double frac = frexp(a, &exp2); /* a = frac * 2^exp2, frac in [0.5, 1) */
    int e = exp2 - 1;
    double m = rint((frac * 2.0 - 1.0) * 1024.0);
    if (m >= 1024.0) {
        m = 0;
        ++e;
    }
    if (e > 15) {
        return sign | 0x7C00;
    }
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)m);
}

/* strtod, but a literal between two doubles gives the one whose last bit is 1 (round to
 * odd): rounding that double to float32 or float16 (to nearest even) then gives the value
 * nearest the literal, as rounding the literal itself would. Rounding it to the nearest double
 * first could land exactly halfway between two floats and tie the wrong way
 * ("1.00000005960464477539062500001" is 1.0f that way, not its successor). */
static double strtod_to_odd(const char *text, char **end)
{
    const int saved = fegetround();
    fesetround(FE_DOWNWARD);
    const double below = strtod(text, end);
    fesetround(FE_UPWARD);
    const double above = strtod(text, NULL);
    fesetround(saved);
    if (below == above || isnan(below)) {
        return below; /* exact (inf and nan included) */
    }
    uint64_t bits;
    memcpy(&bits, &below, sizeof bits);
    return (bits & 1) != 0 ? below : above; /* adjacent doubles: one of them is odd */
}

int bitcts_eval_parse_value(const char *text, uint32_t type, uint64_t *out)
{
    const uint32_t width = bitcts_dtype_size(type) * 8;
    const uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
    uint64_t v = 0;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        if (bitcts_number_text_parse_u64(text, &v) != 0 || (v & ~mask)) {
            return -1;
        }
        *out = v;
        return 0;
    }
    if (bitcts_dtype_is_float(type)) {
        char *end = NULL;
        const double d = width == 64 ? strtod(text, &end) : strtod_to_odd(text, &end);
        if (*end || end == text) {
            return -1;
        }
        if (width == 16) {
            *out = half_from_double(d);
        } else if (width == 32) {
            const float f = (float)d;
            uint32_t bits;
            memcpy(&bits, &f, 4);
            *out = bits;
        } else {
            memcpy(&v, &d, 8);
            *out = v;
        }
        return 0;
    }
    if (text[0] == '-') {
        if (!bitcts_dtype_is_signed(type) || bitcts_number_text_parse_u64(text + 1, &v) != 0 ||
            v > (1ull << (width - 1))) {
            return -1;
        }
        *out = (0 - v) & mask;
        return 0;
    }
    if (bitcts_number_text_parse_u64(text, &v) != 0 || (v & ~mask)) {
        return -1;
    }
    if (bitcts_dtype_is_signed(type) && v > (mask >> 1)) {
        return -1;
    }
    *out = v;
    return 0;
}

char *bitcts_eval_format_value(uint64_t v, uint32_t type, const char *format, char *out, size_t cap)
{
    const uint32_t width = bitcts_dtype_size(type) * 8;
    if (cap == 0) {
        return out;
    }
    if (format != NULL && strcmp(format, "bin") == 0) {
        size_t n = (size_t)snprintf(out, cap, "0b");
        for (int b = (int)width - 1; b >= 0 && n + 1 < cap; --b) {
            out[n++] = (v >> b) & 1 ? '1' : '0';
        }
        out[n < cap ? n : cap - 1] = '\0';
    } else if ((format != NULL && strcmp(format, "hex") == 0) || bitcts_dtype_is_float(type)) {
        snprintf(out, cap, "0x%0*llx", (int)(width / 4), (unsigned long long)v);
    } else if (bitcts_dtype_is_signed(type) && (v >> (width - 1)) & 1) {
        snprintf(out, cap, "-%llu",
                 (unsigned long long)((width == 64 ? 0 - v : (1ull << width) - v)));
    } else {
        snprintf(out, cap, "%llu", (unsigned long long)v);
    }
    return out;
}

int bitcts_eval_parse_op(const char *name, uint32_t *op, char *err, size_t cap)
{
    if ((*op = bitcts_op_parse(name)) == 0) {
        return bitcts_status_fail(
            err, cap, BITCTS_E_INVALID_ARGUMENT,
            "unknown operator '%s' (bit_and, bit_or, bit_xor, bit_not, bit_count, "
            "bit_shift_left, bit_shift_right)",
            name != NULL ? name : "");
    }
    return BITCTS_OK;
}

static int make_tensor(const char *role, uint32_t type, uint32_t rank, const uint32_t *sizes,
                       const char *strides, bitcts_tensor_desc *t, char *err, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->data_type = type;
    t->dimension_count = rank;
    memcpy(t->sizes, sizes, rank * sizeof sizes[0]);
    if (strides != NULL) {
        const int n = bitcts_number_text_parse_u32_list(strides, t->strides, BITCTS_MAX_DIMS);
        if (n != (int)rank) {
            return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                      "--%s-strides: need %u comma-separated strides, got '%s'",
                                      role, rank, strides);
        }
        t->has_strides = 1;
    }
    /* An invalid shape (size 0) is left to the validation, which names the rule. */
    const int st = bitcts_tensor_calc_buffer_size(t, &t->total_tensor_size_in_bytes);
    return st == BITCTS_E_OVERFLOW ? bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                                        "%s: the buffer size overflows", role)
                                   : BITCTS_OK;
}

/* The role names of the inputs by input count: "input"; "a", "b". */
static const char *const eval_roles[2][2] = {{"input", NULL}, {"a", "b"}};

/* The types, sizes and format, in the command's order. */
static int describe_names(const bitcts_eval_args *a, bitcts_op_desc *d, uint32_t *type,
                          uint32_t *out_type, uint32_t *sizes, int *rank, char *err, size_t cap)
{
    *type = bitcts_dtype_parse(a->type);
    if (a->type == NULL || *type == 0) {
        return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                  "--type: unknown data type '%s'", a->type != NULL ? a->type : "");
    }
    *out_type = a->out_type != NULL ? bitcts_dtype_parse(a->out_type)
                                    : (d->op == BITCTS_OP_BIT_COUNT ? BITCTS_DT_UINT8 : *type);
    if (*out_type == 0) {
        return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                  "--out-type: unknown data type '%s'", a->out_type);
    }
    *rank =
        a->sizes != NULL ? bitcts_number_text_parse_u32_list(a->sizes, sizes, BITCTS_MAX_DIMS) : -1;
    if (*rank < 1) {
        return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                  "--sizes: malformed size list '%s' (1-8 comma-separated numbers)",
                                  a->sizes != NULL ? a->sizes : "");
    }
    const char *format = a->format != NULL ? a->format : "dec";
    if (strcmp(format, "dec") && strcmp(format, "hex") && strcmp(format, "bin")) {
        return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                  "--format: '%s' is not dec, hex or bin", format);
    }
    return BITCTS_OK;
}

int bitcts_eval_describe(const bitcts_eval_args *a, bitcts_op_desc *d, char *err, size_t cap)
{
    memset(d, 0, sizeof *d);
    int st = bitcts_eval_parse_op(a->op, &d->op, err, cap);
    uint32_t type = 0;
    uint32_t out_type = 0;
    uint32_t sizes[BITCTS_MAX_DIMS];
    int rank = 0;
    if (st == BITCTS_OK) {
        st = describe_names(a, d, &type, &out_type, sizes, &rank, err, cap);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    d->input_count = bitcts_op_input_count(d->op);
    for (uint32_t i = 0; i < d->input_count; ++i) {
        st = make_tensor(eval_roles[d->input_count - 1][i], type, (uint32_t)rank, sizes,
                         a->strides[i], &d->inputs[i], err, cap);
        if (st != BITCTS_OK) {
            return st;
        }
    }
    st = make_tensor("out", out_type, (uint32_t)rank, sizes, a->strides[2], &d->output, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    bitcts_validation why;
    if (bitcts_validate_op(d, BITCTS_FL_6_4, &why) != BITCTS_RULE_OK) {
        return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                  "invalid description (rule %s, %s): %s", bitcts_rule_id(why.rule),
                                  why.tensor[0] ? why.tensor : "operator", why.detail);
    }
    return BITCTS_OK;
}

/* "@FILE": the buffer's elements as raw little-endian bits in memory order, exactly `elements`
 * of them (the form a shrunk case's repro takes when its values are too many for one line). */
static int read_values(const char *role, const char *path, uint64_t elements, uint32_t esize,
                       uint8_t *buffer, char *err, size_t cap)
{
    char *bytes = NULL;
    size_t size = 0;
    char why[BITCTS_EVAL_ERROR_CAP];
    const int st = bitcts_fs_read(path, (size_t)(elements * esize) + 1, &bytes, &size, why,
                                  sizeof why); /* one byte more: a longer file is seen */
    if (st != BITCTS_OK && strstr(why, "is larger than") == NULL) {
        return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT, "--%s: %s", role, why);
    }
    const int ok = st == BITCTS_OK && size == elements * esize;
    if (ok) {
        memcpy(buffer, bytes, size);
    }
    free(bytes);
    return ok ? BITCTS_OK
              : bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                   "--%s: %s holds %s%zu bytes, its buffer %llu elements of %u "
                                   "bytes",
                                   role, path, st == BITCTS_OK ? "" : "more than ",
                                   st == BITCTS_OK ? size : (size_t)(elements * esize),
                                   (unsigned long long)elements, esize);
}

static int parse_values(const char *role, const char *list, const bitcts_tensor_desc *t,
                        uint8_t **buffer, char *err, size_t cap)
{
    const uint32_t esize = bitcts_dtype_size(t->data_type);
    uint64_t elements = 1; /* IndexOfLastElement + 1: the elements the buffer holds */
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        elements += (uint64_t)(t->sizes[k] - 1) * bitcts_tensor_stride(t, k);
    }
    *buffer = calloc(1, (size_t)t->total_tensor_size_in_bytes + 8);
    if (*buffer == NULL) {
        return bitcts_status_fail(err, cap, BITCTS_E_OUT_OF_MEMORY, "out of memory");
    }
    if (list != NULL && list[0] == '@') {
        return read_values(role, list + 1, elements, esize, *buffer, err, cap);
    }
    uint64_t n = 0;
    const char *p = list;
    while (p != NULL && *p) {
        const char *comma = strchr(p, ',');
        char item[64];
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        uint64_t v = 0;
        if (len == 0 || len >= sizeof item) {
            return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                      "--%s: malformed value list '%s'", role, list);
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (bitcts_eval_parse_value(item, t->data_type, &v) != 0) {
            return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                      "--%s: '%s' is not a %s value", role, item,
                                      bitcts_dtype_name(t->data_type));
        }
        if (n < elements) {
            bitcts_ref_store(*buffer + n * esize, esize, v);
        }
        ++n;
        p = comma != NULL ? comma + 1 : NULL;
    }
    if (n != elements) {
        return bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                  "--%s: %llu values given, its buffer holds %llu elements", role,
                                  (unsigned long long)n, (unsigned long long)elements);
    }
    return BITCTS_OK;
}

/* 1 when a shift count >= the width occurs in B: the result then depends on the policy. */
static int shift_out_of_range(const bitcts_op_desc *d, const uint8_t *b)
{
    const uint32_t esize = bitcts_dtype_size(d->inputs[0].data_type);
    int oob = 0;
    for (uint64_t off = 0; off + esize <= d->inputs[1].total_tensor_size_in_bytes; off += esize) {
        oob |= bitcts_ref_load(b + off, esize) >= esize * 8;
    }
    return oob;
}

int bitcts_eval_load(const bitcts_eval_args *a, const bitcts_op_desc *d, bitcts_eval_problem *p,
                     char *err, size_t cap)
{
    memset(p, 0, sizeof *p);
    p->desc = *d;
    int st = BITCTS_OK;
    for (uint32_t i = 0; i < d->input_count && st == BITCTS_OK; ++i) {
        const char *role = eval_roles[d->input_count - 1][i];
        if (a->values[i] == NULL) {
            st = bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT, "--%s is missing", role);
        } else {
            st = parse_values(role, a->values[i], &d->inputs[i], &p->inputs[i], err, cap);
        }
    }
    if (st == BITCTS_OK && d->input_count == 1 && a->values[1] != NULL) {
        st = bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                "%s takes one input (--input), not --b", a->op);
    }
    if (st == BITCTS_OK &&
        (p->output = calloc(1, (size_t)d->output.total_tensor_size_in_bytes + 8)) == NULL) {
        st = bitcts_status_fail(err, cap, BITCTS_E_OUT_OF_MEMORY, "out of memory");
    }
    if (st == BITCTS_OK && bitcts_op_is_shift(d->op)) {
        p->shift_oob = shift_out_of_range(d, p->inputs[1]);
    }
    if (st == BITCTS_OK && a->policy != NULL && strcmp(a->policy, "mask") &&
        strcmp(a->policy, "saturate")) {
        st = bitcts_status_fail(err, cap, BITCTS_E_INVALID_ARGUMENT,
                                "--shift-policy: '%s' is not mask or saturate", a->policy);
    }
    if (st != BITCTS_OK) {
        bitcts_eval_problem_free(p);
    }
    return st;
}

void bitcts_eval_problem_free(bitcts_eval_problem *p)
{
    if (p == NULL) {
        return;
    }
    free(p->inputs[0]);
    free(p->inputs[1]);
    free(p->output);
    memset(p, 0, sizeof *p);
}
