/* SPDX-License-Identifier: MIT */
/* `bitcts eval`: the reference result for literal inputs given on the command line. Values
 * are the buffer's elements in memory order; the output is printed in logical order. */
#include <math.h>   /* frexp, rint */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* strtod */
#include <string.h> /* memcpy */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "ref_ops.h"
#include "tensor_iter.h"
#include "validate.h"

static const char eval_usage[] =
    "usage: bitcts eval OPERATOR --type T [--out-type T] --sizes N,N,...\n"
    "                   (--a V,... --b V,... | --input V,...)\n"
    "                   [--a-strides S,...] [--b-strides S,...] [--input-strides S,...]\n"
    "                   [--out-strides S,...] [--format dec|hex|bin] [--shift-policy "
    "mask|saturate]\n"
    "\n"
    "Computes the reference result of OPERATOR (bit_and, bit_or, bit_xor, bit_not, bit_count,\n"
    "bit_shift_left, bit_shift_right) for literal inputs and prints the output's logical\n"
    "elements, comma-separated. Values are the input buffer's elements in memory order (with\n"
    "strides, every element the buffer holds): decimal, negative decimal for signed types,\n"
    "0x-hex raw bits for any type, or for float types a decimal literal, inf or nan.\n"
    "Shift counts >= the width are not specified by DirectML: by default both policies are shown.\n"
    "Example (the XOR example bitcts ships, docs/spec/operators.md):\n"
    "  bitcts eval bit_xor --type uint8 --sizes 2,2 --a 0,128,42,255 --b 255,128,15,1\n"
    "  -> 255,0,37,254\n";

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

/* Parses one literal into the raw bits of `type`; 0 on success. */
static int parse_value(const char *text, uint32_t type, uint64_t *out)
{
    const uint32_t width = bitcts_dtype_size(type) * 8;
    const uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
    uint64_t v = 0;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        if (bitcts_cli_parse_u64(text, &v) != 0 || (v & ~mask)) {
            return -1;
        }
        *out = v;
        return 0;
    }
    if (bitcts_dtype_is_float(type)) {
        char *end = NULL;
        const double d = strtod(text, &end);
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
        if (!bitcts_dtype_is_signed(type) || bitcts_cli_parse_u64(text + 1, &v) != 0 ||
            v > (1ull << (width - 1))) {
            return -1;
        }
        *out = (0 - v) & mask;
        return 0;
    }
    if (bitcts_cli_parse_u64(text, &v) != 0 || (v & ~mask)) {
        return -1;
    }
    if (bitcts_dtype_is_signed(type) && v > (mask >> 1)) {
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_values(const char *role, const char *list, const bitcts_tensor_desc *t,
                        uint8_t **buffer)
{
    const uint32_t esize = bitcts_dtype_size(t->data_type);
    uint64_t elements = 1; /* IndexOfLastElement + 1: the elements the buffer holds */
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        elements += (uint64_t)(t->sizes[k] - 1) * bitcts_tensor_stride(t, k);
    }
    *buffer = calloc(1, (size_t)t->total_tensor_size_in_bytes + 8);
    if (*buffer == NULL) {
        return bitcts_cli_error("eval", "out of memory");
    }
    uint64_t n = 0;
    const char *p = list;
    while (p != NULL && *p) {
        const char *comma = strchr(p, ',');
        char item[64];
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        uint64_t v = 0;
        if (len == 0 || len >= sizeof item) {
            return bitcts_cli_error("eval", "--%s: malformed value list '%s'", role, list);
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (parse_value(item, t->data_type, &v) != 0) {
            return bitcts_cli_error("eval", "--%s: '%s' is not a %s value", role, item,
                                    bitcts_dtype_name(t->data_type));
        }
        if (n < elements) {
            bitcts_ref_store(*buffer + n * esize, esize, v);
        }
        ++n;
        p = comma != NULL ? comma + 1 : NULL;
    }
    if (n != elements) {
        return bitcts_cli_error("eval", "--%s: %llu values given, its buffer holds %llu elements",
                                role, (unsigned long long)n, (unsigned long long)elements);
    }
    return 0;
}

static void print_element(uint64_t v, uint32_t type, const char *format)
{
    const uint32_t width = bitcts_dtype_size(type) * 8;
    if (strcmp(format, "bin") == 0) {
        printf("0b");
        for (int b = (int)width - 1; b >= 0; --b) {
            putchar((v >> b) & 1 ? '1' : '0');
        }
    } else if (strcmp(format, "hex") == 0 || bitcts_dtype_is_float(type)) {
        printf("0x%0*llx", (int)(width / 4), (unsigned long long)v);
    } else if (bitcts_dtype_is_signed(type) && (v >> (width - 1)) & 1) {
        printf("-%llu", (unsigned long long)((width == 64 ? 0 - v : (1ull << width) - v)));
    } else {
        printf("%llu", (unsigned long long)v);
    }
}

static void print_output(const bitcts_tensor_desc *t, const uint8_t *buffer, const char *format)
{
    const uint32_t esize = bitcts_dtype_size(t->data_type);
    bitcts_tensor_iter it;
    for (bitcts_tensor_iter_init(&it, t); bitcts_tensor_iter_more(&it);
         bitcts_tensor_iter_next(&it)) {
        if (it.index > 0) {
            putchar(',');
        }
        print_element(bitcts_ref_load(buffer + it.offset[0] * esize, esize), t->data_type, format);
    }
    putchar('\n');
}

typedef struct eval_args {
    const char *type, *out_type, *sizes, *values[2], *strides[3], *format, *policy;
} eval_args;

static int parse_eval_args(int argc, char **argv, eval_args *a)
{
    static const char *const names[] = {"--type",        "--out-type",  "--sizes",
                                        "--a",           "--b",         "--input",
                                        "--a-strides",   "--b-strides", "--input-strides",
                                        "--out-strides", "--format",    "--shift-policy"};
    const char **slots[] = {&a->type,       &a->out_type,   &a->sizes,      &a->values[0],
                            &a->values[1],  &a->values[0],  &a->strides[0], &a->strides[1],
                            &a->strides[0], &a->strides[2], &a->format,     &a->policy};
    for (int i = 2; i < argc; ++i) {
        int matched = 0;
        for (size_t n = 0; n < sizeof names / sizeof names[0] && !matched; ++n) {
            const int r = bitcts_cli_option(argc, argv, &i, names[n], slots[n]);
            if (r < 0) {
                return bitcts_cli_error("eval", "%s needs a value", names[n]);
            }
            matched = r;
        }
        if (!matched) {
            return bitcts_cli_error("eval", "unknown argument '%s' (see bitcts eval --help)",
                                    argv[i]);
        }
    }
    return 0;
}

static int make_tensor(const char *role, uint32_t type, uint32_t rank, const uint32_t *sizes,
                       const char *strides, bitcts_tensor_desc *t)
{
    memset(t, 0, sizeof *t);
    t->data_type = type;
    t->dimension_count = rank;
    memcpy(t->sizes, sizes, rank * sizeof sizes[0]);
    if (strides != NULL) {
        const int n = bitcts_cli_parse_u32_list(strides, t->strides, BITCTS_MAX_DIMS);
        if (n != (int)rank) {
            return bitcts_cli_error("eval",
                                    "--%s-strides: need %u comma-separated strides, got '%s'", role,
                                    rank, strides);
        }
        t->has_strides = 1;
    }
    /* An invalid shape (size 0) is left to the validation, which names the rule. */
    const int st = bitcts_tensor_calc_buffer_size(t, &t->total_tensor_size_in_bytes);
    return st == BITCTS_E_OVERFLOW ? bitcts_cli_error("eval", "%s: the buffer size overflows", role)
                                   : 0;
}

int bitcts_cmd_eval(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(eval_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BITCTS_EXIT_USAGE : 0;
    }
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    if ((d.op = bitcts_op_parse(argv[1])) == 0) {
        return bitcts_cli_error("eval",
                                "unknown operator '%s' (bit_and, bit_or, bit_xor, bit_not, "
                                "bit_count, bit_shift_left, bit_shift_right)",
                                argv[1]);
    }
    eval_args a = {.format = "dec", .policy = NULL};
    int rc = parse_eval_args(argc, argv, &a);
    if (rc) {
        return rc;
    }
    const uint32_t type = bitcts_dtype_parse(a.type);
    if (a.type == NULL || type == 0) {
        return bitcts_cli_error("eval", "--type: unknown data type '%s'",
                                a.type != NULL ? a.type : "");
    }
    const uint32_t out_type = a.out_type != NULL
                                  ? bitcts_dtype_parse(a.out_type)
                                  : (d.op == BITCTS_OP_BIT_COUNT ? BITCTS_DT_UINT8 : type);
    if (out_type == 0) {
        return bitcts_cli_error("eval", "--out-type: unknown data type '%s'", a.out_type);
    }
    uint32_t sizes[BITCTS_MAX_DIMS];
    const int rank =
        a.sizes != NULL ? bitcts_cli_parse_u32_list(a.sizes, sizes, BITCTS_MAX_DIMS) : -1;
    if (rank < 1) {
        return bitcts_cli_error("eval",
                                "--sizes: malformed size list '%s' (1-8 comma-separated "
                                "numbers)",
                                a.sizes != NULL ? a.sizes : "");
    }
    if (strcmp(a.format, "dec") && strcmp(a.format, "hex") && strcmp(a.format, "bin")) {
        return bitcts_cli_error("eval", "--format: '%s' is not dec, hex or bin", a.format);
    }
    d.input_count = bitcts_op_input_count(d.op);
    static const char *const roles[2][2] = {{"input", NULL}, {"a", "b"}};
    for (uint32_t i = 0; i < d.input_count; ++i) {
        if ((rc = make_tensor(roles[d.input_count - 1][i], type, (uint32_t)rank, sizes,
                              a.strides[i], &d.inputs[i]))) {
            return rc;
        }
    }
    if ((rc = make_tensor("out", out_type, (uint32_t)rank, sizes, a.strides[2], &d.output))) {
        return rc;
    }
    bitcts_validation why;
    if (bitcts_validate_op(&d, BITCTS_FL_6_4, &why) != BITCTS_RULE_OK) {
        return bitcts_cli_error("eval", "invalid description (rule %s, %s): %s",
                                bitcts_rule_id(why.rule), why.tensor[0] ? why.tensor : "operator",
                                why.detail);
    }
    uint8_t *in[2] = {NULL, NULL};
    for (uint32_t i = 0; i < d.input_count && !rc; ++i) {
        const char *role = roles[d.input_count - 1][i];
        if (a.values[i] == NULL) {
            rc = bitcts_cli_error("eval", "--%s is missing", role);
        } else {
            rc = parse_values(role, a.values[i], &d.inputs[i], &in[i]);
        }
    }
    if (d.input_count == 1 && a.values[1] != NULL && !rc) {
        rc = bitcts_cli_error("eval", "%s takes one input (--input), not --b", argv[1]);
    }
    uint8_t *out = rc ? NULL : calloc(1, (size_t)d.output.total_tensor_size_in_bytes + 8);
    if (!rc && out == NULL) {
        rc = bitcts_cli_error("eval", "out of memory");
    }
    const int shift = bitcts_op_is_shift(d.op);
    const int policies[2] = {BITCTS_SHIFT_POLICY_MASK, BITCTS_SHIFT_POLICY_SATURATE};
    const char *const policy_names[2] = {"mask", "saturate"};
    int oob = 0;
    if (!rc && shift) { /* any count >= width? then the result depends on the policy */
        const uint32_t esize = bitcts_dtype_size(type);
        for (uint64_t off = 0; off + esize <= d.inputs[1].total_tensor_size_in_bytes;
             off += esize) {
            oob |= bitcts_ref_load(in[1] + off, esize) >= esize * 8;
        }
    }
    if (!rc && a.policy != NULL && strcmp(a.policy, "mask") && strcmp(a.policy, "saturate")) {
        rc = bitcts_cli_error("eval", "--shift-policy: '%s' is not mask or saturate", a.policy);
    }
    for (int p = 0; !rc && p < 2; ++p) {
        if ((a.policy != NULL && strcmp(a.policy, policy_names[p])) ||
            (a.policy == NULL && !oob && p == 0)) {
            continue;
        }
        const void *inputs[2] = {in[0], in[1]};
        bitcts_ref_execute(&d, inputs, out, policies[p]);
        if (oob && a.policy == NULL) {
            printf("%s: ", policy_names[p]);
        }
        print_output(&d.output, out, a.format);
    }
    if (oob && a.policy == NULL && !rc) {
        fprintf(stderr,
                "note: shift counts >= %u bits are not specified by DirectML; both "
                "policies shown\n",
                bitcts_dtype_size(type) * 8);
    }
    free(in[0]);
    free(in[1]);
    free(out);
    return rc;
}
