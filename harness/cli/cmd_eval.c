/* SPDX-License-Identifier: MIT */
/* `bitcts eval`: the reference result for literal inputs given on the command line. Values
 * are the buffer's elements in memory order (parsed by harness/explore/eval_parse.c); the output is
 * printed in logical order. */
#include <stdio.h>  /* printf */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "eval_parse.h"
#include "ref_ops.h"
#include "tensor_iter.h"

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

static void print_output(const bitcts_tensor_desc *t, const uint8_t *buffer, const char *format)
{
    const uint32_t esize = bitcts_dtype_size(t->data_type);
    bitcts_tensor_iter it;
    for (bitcts_tensor_iter_init(&it, t); bitcts_tensor_iter_more(&it);
         bitcts_tensor_iter_next(&it)) {
        char text[80];
        if (it.index > 0) {
            putchar(',');
        }
        fputs(bitcts_eval_format_value(bitcts_ref_load(buffer + it.offset[0] * esize, esize),
                                       t->data_type, format, text, sizeof text),
              stdout);
    }
    putchar('\n');
}

/* The options, by name, into the fields of the arguments; argv[1] is the operator. */
static int parse_eval_args(int argc, char **argv, bitcts_eval_args *a)
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

int bitcts_cmd_eval(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(eval_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BITCTS_EXIT_USAGE : 0;
    }
    char err[BITCTS_EVAL_ERROR_CAP];
    uint32_t op = 0;
    if (bitcts_eval_parse_op(argv[1], &op, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("eval", "%s", err);
    }
    bitcts_eval_args a = {.op = argv[1], .format = "dec", .policy = NULL};
    const int rc = parse_eval_args(argc, argv, &a);
    if (rc) {
        return rc;
    }
    bitcts_op_desc d;
    bitcts_eval_problem p;
    if (bitcts_eval_describe(&a, &d, err, sizeof err) != BITCTS_OK ||
        bitcts_eval_load(&a, &d, &p, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("eval", "%s", err);
    }
    const int policies[2] = {BITCTS_SHIFT_POLICY_MASK, BITCTS_SHIFT_POLICY_SATURATE};
    const char *const policy_names[2] = {"mask", "saturate"};
    for (int k = 0; k < 2; ++k) {
        if ((a.policy != NULL && strcmp(a.policy, policy_names[k])) ||
            (a.policy == NULL && !p.shift_oob && k == 0)) {
            continue;
        }
        const void *inputs[2] = {p.inputs[0], p.inputs[1]};
        bitcts_ref_execute(&p.desc, inputs, p.output, policies[k]);
        if (p.shift_oob && a.policy == NULL) {
            printf("%s: ", policy_names[k]);
        }
        print_output(&p.desc.output, p.output, a.format);
    }
    if (p.shift_oob && a.policy == NULL) {
        fprintf(stderr,
                "note: shift counts >= %u bits are not specified by DirectML; both "
                "policies shown\n",
                bitcts_dtype_size(p.desc.inputs[0].data_type) * 8);
    }
    bitcts_eval_problem_free(&p);
    return 0;
}
