/* SPDX-License-Identifier: MIT */
/* Fuzz target: `bitcts eval`'s parsing (harness/explore/eval_parse.c). The input is the command's
 * options as lines: operator, --type, --out-type, --sizes, --a/--input, --b, the three stride
 * lists, --format, --shift-policy (an empty or absent line: not given; a line `""`: given
 * empty).
 *
 * A description the parser accepts is valid and the reference computes it; every value it
 * accepts is the literal the help text promises (decimal or 0x-hex for integers, checked
 * digit by digit here), fits the type, and comes back unchanged from the printed form
 * (hex for any type, decimal for integers); a float16 literal is rounded as an independent
 * conversion rounds the same double; an error is one line. */
#include <fenv.h>   /* fesetround */
#include <math.h>   /* isnan */
#include <string.h> /* strchr, memcpy */

#include "bitcts/bitcts_status.h"
#include "eval_parse.h"
#include "fuzz_check.h"
#include "ref_ops.h"
#include "tensor_iter.h"
#include "validate.h"

enum { FUZZ_FIELDS = 11, FUZZ_MAX_BYTES = 1 << 16 };

/* The same double to binary16, round to nearest even, from the double's bits. */
static uint16_t reference_half(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    const uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
    const int exp = (int)((bits >> 52) & 0x7FF);
    const uint64_t frac = bits & ((1ull << 52) - 1);
    if (exp == 0x7FF) {
        return (uint16_t)(sign | (frac != 0 ? 0x7E00 : 0x7C00));
    }
    if (exp == 0) {
        return sign; /* zero or a double denormal: far below half a float16 denormal */
    }
    const uint64_t value = frac | (1ull << 52); /* value * 2^(e - 52) */
    const int e = exp - 1023;
    if (e >= 16) {
        return (uint16_t)(sign | 0x7C00);
    }
    /* Keep 11 bits for a normal result; a denormal keeps fewer (units of 2^-24). */
    const int shift = e >= -14 ? 42 : 28 - e;
    if (shift >= 64) {
        return sign;
    }
    uint64_t m = value >> shift;
    const uint64_t rest = value & ((1ull << shift) - 1);
    const uint64_t half = 1ull << (shift - 1);
    m += rest > half || (rest == half && (m & 1));
    if (e < -14) {
        return (uint16_t)(sign | m); /* 0x400 when it rounds up to the least normal */
    }
    int biased = e + 15;
    if (m == 1u << 11) {
        m >>= 1;
        ++biased;
    }
    return biased >= 31 ? (uint16_t)(sign | 0x7C00)
                        : (uint16_t)(sign | (biased << 10) | (uint16_t)(m & 0x3FF));
}

/* The literal as a double rounded to odd when it falls between two: a narrower rounding of that
 * double is the rounding of the literal itself. */
static double literal_to_odd(const char *text)
{
    const int saved = fegetround();
    fesetround(FE_TOWARDZERO);
    const double toward_zero = strtod(text, NULL);
    fesetround(FE_DOWNWARD);
    const double down = strtod(text, NULL);
    fesetround(FE_UPWARD);
    const double up = strtod(text, NULL);
    fesetround(saved);
    if (down == up || isnan(down)) {
        return down; /* exact */
    }
    uint64_t bits;
    memcpy(&bits, &toward_zero, sizeof bits);
    bits |= 1; /* the odd one of the two neighbours: toward zero, or the next away from it */
    double odd;
    memcpy(&odd, &bits, sizeof odd);
    return odd;
}

/* The integer literal the help text promises: -?(decimal|0x-hex); its value, if it is one. */
static int strict_integer(const char *text, int *negative, uint64_t *value)
{
    *negative = text[0] == '-';
    const char *p = text + *negative;
    const int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    p += hex ? 2 : 0;
    if (!*p) {
        return 0;
    }
    uint64_t v = 0;
    for (; *p; ++p) {
        const char *digits = "0123456789abcdef";
        const char *d = strchr(digits, *p >= 'A' && *p <= 'F' ? *p - 'A' + 'a' : *p);
        const unsigned base = hex ? 16 : 10;
        if (d == NULL || (unsigned)(d - digits) >= base ||
            v > (UINT64_MAX - (unsigned)(d - digits)) / base) {
            return 0;
        }
        v = v * base + (unsigned)(d - digits);
    }
    *value = v;
    return 1;
}

static void check_value(const char *text, uint32_t type)
{
    uint64_t v = 0;
    if (bitcts_eval_parse_value(text, type, &v) != 0) {
        return;
    }
    const uint32_t width = bitcts_dtype_size(type) * 8;
    FUZZ_CHECK(width == 64 || (v >> width) == 0);
    const int is_hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (!bitcts_dtype_is_float(type) || is_hex) {
        int negative = 0;
        uint64_t literal = 0;
        FUZZ_CHECK(strict_integer(text, &negative, &literal));
        FUZZ_CHECK(negative ? (0 - literal) << (64 - width) >> (64 - width) == v : literal == v);
    } else if (width == 32) {
        const float f = strtof(text, NULL); /* glibc rounds the literal itself */
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        FUZZ_CHECK(isnan(f) ? (v & 0x7FFFFFFF) == (bits & 0x7FFFFFFF) : v == bits);
    } else if (width == 16) {
        const double d = literal_to_odd(text);
        FUZZ_CHECK(isnan(d) ? (v & 0x7FFF) == 0x7E00 : v == reference_half(d));
    }
    char printed[80];
    uint64_t back = 0;
    bitcts_eval_format_value(v, type, "hex", printed, sizeof printed);
    FUZZ_CHECK(strlen(printed) == 2 + width / 4);
    FUZZ_CHECK(bitcts_eval_parse_value(printed, type, &back) == 0 && back == v);
    if (!bitcts_dtype_is_float(type)) {
        bitcts_eval_format_value(v, type, "dec", printed, sizeof printed);
        FUZZ_CHECK(bitcts_eval_parse_value(printed, type, &back) == 0 && back == v);
    }
    bitcts_eval_format_value(v, type, "bin", printed, sizeof printed);
    FUZZ_CHECK(strlen(printed) == 2 + width && strspn(printed + 2, "01") == width);
}

/* Every item of a value list accepted as a whole. */
static void check_list(const char *list, uint32_t type)
{
    char item[64];
    for (const char *p = list; p != NULL && *p;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        FUZZ_CHECK(len > 0 && len < sizeof item);
        memcpy(item, p, len);
        item[len] = '\0';
        check_value(item, type);
        p = comma != NULL ? comma + 1 : NULL;
    }
}

static int small_enough(const bitcts_op_desc *d)
{
    for (uint32_t i = 0; i < d->input_count; ++i) {
        if (d->inputs[i].total_tensor_size_in_bytes > FUZZ_MAX_BYTES) {
            return 0;
        }
    }
    return d->output.total_tensor_size_in_bytes <= FUZZ_MAX_BYTES;
}

/* Runs what the command prints: every policy, every output element formatted. */
static void check_problem(const bitcts_eval_args *a, bitcts_eval_problem *p)
{
    const bitcts_op_desc *d = &p->desc;
    for (uint32_t i = 0; i < d->input_count; ++i) {
        check_list(a->values[i], d->inputs[i].data_type);
    }
    const int policies[2] = {BITCTS_SHIFT_POLICY_MASK, BITCTS_SHIFT_POLICY_SATURATE};
    const uint32_t esize = bitcts_dtype_size(d->output.data_type);
    for (int k = 0; k < 2; ++k) {
        const void *inputs[2] = {p->inputs[0], p->inputs[1]};
        FUZZ_CHECK(bitcts_ref_execute(d, inputs, p->output, policies[k]) == BITCTS_OK);
        bitcts_tensor_iter it;
        for (bitcts_tensor_iter_init(&it, &d->output); bitcts_tensor_iter_more(&it);
             bitcts_tensor_iter_next(&it)) {
            char text[80];
            const uint64_t v = bitcts_ref_load(p->output + it.offset[0] * esize, esize);
            bitcts_eval_format_value(v, d->output.data_type, a->format, text, sizeof text);
            uint64_t back = 0;
            if (strncmp(text, "0b", 2) != 0) {
                FUZZ_CHECK(bitcts_eval_parse_value(text, d->output.data_type, &back) == 0);
                FUZZ_CHECK(back == v);
            }
        }
    }
}

/* Splits the input into the options; the strings live in `store`. */
static void split(const uint8_t *data, size_t size, char *store, bitcts_eval_args *a)
{
    const char **fields[FUZZ_FIELDS] = {
        &a->op,         &a->type,       &a->out_type,   &a->sizes,  &a->values[0], &a->values[1],
        &a->strides[0], &a->strides[1], &a->strides[2], &a->format, &a->policy};
    memset(a, 0, sizeof *a);
    memcpy(store, data, size);
    store[size] = '\0';
    char *p = store;
    for (size_t f = 0; f < FUZZ_FIELDS && p != NULL; ++f) {
        char *nl = strchr(p, '\n');
        if (nl != NULL) {
            *nl = '\0';
        }
        *fields[f] = strcmp(p, "\"\"") == 0 ? "" : *p ? p : NULL;
        p = nl != NULL ? nl + 1 : NULL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *store = malloc(size + 1);
    FUZZ_CHECK(store != NULL);
    bitcts_eval_args a;
    split(data, size, store, &a);
    char err[BITCTS_EVAL_ERROR_CAP];
    bitcts_op_desc d;
    int st = bitcts_eval_describe(&a, &d, err, sizeof err);
    if (st == BITCTS_OK && small_enough(&d)) {
        bitcts_validation why;
        FUZZ_CHECK(bitcts_validate_op(&d, BITCTS_FL_6_4, &why) == BITCTS_RULE_OK);
        bitcts_eval_problem p;
        st = bitcts_eval_load(&a, &d, &p, err, sizeof err);
        if (st == BITCTS_OK) {
            check_problem(&a, &p);
            bitcts_eval_problem_free(&p);
        } else {
            FUZZ_CHECK(p.inputs[0] == NULL && p.inputs[1] == NULL && p.output == NULL);
        }
    }
    if (st != BITCTS_OK) {
        FUZZ_CHECK(st == BITCTS_E_INVALID_ARGUMENT || st == BITCTS_E_OUT_OF_MEMORY);
        FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
    }
    /* Single literals of every type, from the first value line. */
    if (a.values[0] != NULL && strlen(a.values[0]) < 64 && strchr(a.values[0], ',') == NULL) {
        for (uint32_t t = 1; t < BITCTS_DT_COUNT; ++t) {
            if (bitcts_dtype_size(t) != 0) {
                check_value(a.values[0], t);
            }
        }
    }
    free(store);
    return 0;
}
