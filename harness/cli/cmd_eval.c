/* SPDX-License-Identifier: MIT */
/* `bitcts eval`: the reference result for literal inputs given on the command line. Values
 * are the buffer's elements in memory order (parsed by harness/explore/eval_parse.c); the output is
 * printed in logical order. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "eval_parse.h"
#include "ref_ops.h"
#include "tensor_iter.h"

static const char eval_description[] =
    "Computes the reference result of OPERATOR (bit_and, bit_or, bit_xor, bit_not, bit_count,\n"
    "bit_shift_left, bit_shift_right) for literal inputs and prints the output's logical\n"
    "elements, comma-separated. Values are the input buffer's elements in memory order (with\n"
    "strides, every element the buffer holds): decimal, negative decimal for signed types,\n"
    "0x-hex raw bits for any type, or for float types a decimal literal, inf or nan. Give --a\n"
    "and --b to a binary operator, --input to a unary one. @FILE instead of a list reads the\n"
    "buffer's elements from FILE as raw little-endian bits (what a shrunk case's repro names\n"
    "when its values are too many for one line).\n"
    "Shift counts >= the width are not specified by DirectML: by default both policies are shown.\n"
    "Example (the XOR example bitcts ships, docs/spec/operators.md):\n"
    "  bitcts eval bit_xor --type uint8 --sizes 2,2 --a 0,128,42,255 --b 255,128,15,1\n"
    "  -> 255,0,37,254\n";

#define EVAL_AT(field) offsetof(bitcts_eval_args, field)

static const bitcts_cli_option eval_options[] = {
    BITCTS_OPT_REQUIRED("--type", "T", EVAL_AT(type), 0,
                        "the input type (uint8, int16, float32, ...)"),
    BITCTS_OPT_TEXT("--out-type", "T", EVAL_AT(out_type), 0,
                    "the output type (default: uint8 for bit_count, else T)"),
    BITCTS_OPT_REQUIRED("--sizes", "N,N,...", EVAL_AT(sizes), 0, "the shape, 1 to 8 sizes"),
    BITCTS_OPT_TEXT("--a", "V,...|@FILE", EVAL_AT(values[0]), 0, "the first input's buffer"),
    BITCTS_OPT_TEXT("--b", "V,...|@FILE", EVAL_AT(values[1]), 0, "the second input's buffer"),
    BITCTS_OPT_TEXT("--input", "V,...|@FILE", EVAL_AT(values[0]), 0,
                    "the input's buffer (a unary operator)"),
    BITCTS_OPT_TEXT("--a-strides", "S,...", EVAL_AT(strides[0]), 0,
                    "the first input's strides, in elements"),
    BITCTS_OPT_TEXT("--b-strides", "S,...", EVAL_AT(strides[1]), 0, "the second input's strides"),
    BITCTS_OPT_TEXT("--input-strides", "S,...", EVAL_AT(strides[0]), 0, "the input's strides"),
    BITCTS_OPT_TEXT("--out-strides", "S,...", EVAL_AT(strides[2]), 0, "the output's strides"),
    BITCTS_OPT_TEXT("--format", "dec|hex|bin", EVAL_AT(format), 0,
                    "how the output is printed (default dec)"),
    BITCTS_OPT_TEXT("--shift-policy", "mask|saturate", EVAL_AT(policy), 0,
                    "the one policy for shift counts >= the width (default: both where they "
                    "differ)"),
};

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

int bitcts_cmd_eval(int argc, char **argv)
{
    bitcts_eval_args a = {.format = "dec", .policy = NULL};
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(eval_options, &a)};
    const bitcts_cli_spec spec = {.cmd = "eval",
                                  .operands = "OPERATOR",
                                  .max_operands = 1,
                                  .description = eval_description,
                                  .tables = tables,
                                  .needs_arguments = 1,
                                  .table_count = 1};
    const int rc = bitcts_cli_parse(&spec, argc, argv, &a.op, NULL);
    if (rc != 0) {
        return rc == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : rc;
    }
    char err[BITCTS_EVAL_ERROR_CAP];
    uint32_t op = 0;
    if (a.op == NULL) {
        return bitcts_cli_error("eval", "OPERATOR is required (see bitcts eval --help)");
    }
    if (bitcts_eval_parse_op(a.op, &op, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("eval", "%s", err);
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
