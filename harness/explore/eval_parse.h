/* SPDX-License-Identifier: MIT */
/* `bitcts eval`'s input as data: the operator, types, sizes and strides given as text become
 * a validated operator description, and the literal values become its input buffers
 * (docs/spec/operators.md; the command is harness/cli/cmd_eval.c, the fuzz target
 * tests/fuzz/fuzz_eval.c). Errors are one line for the command to print; nothing here prints.
 * Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_EVAL_PARSE_H
#define BITCTS_HARNESS_EVAL_PARSE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t, uint32_t, uint64_t */

#include "tensor_model.h" /* bitcts_op_desc */

/* A comfortable size for the error buffers below (the command line prints at most this). */
#define BITCTS_EVAL_ERROR_CAP 1024u

/** The command's options as text; NULL where one was not given. Borrowed. */
typedef struct bitcts_eval_args {
    const char *op;         /* bit_and, ... */
    const char *type;       /* --type */
    const char *out_type;   /* --out-type (NULL: uint8 for bit_count, else --type) */
    const char *sizes;      /* --sizes N,N,... */
    const char *values[2];  /* --a or --input; --b: "V,V,..." or "@FILE" (raw bits) */
    const char *strides[3]; /* --a-strides or --input-strides; --b-strides; --out-strides */
    const char *format;     /* --format dec|hex|bin (NULL: dec) */
    const char *policy;     /* --shift-policy mask|saturate (NULL: both where they differ) */
} bitcts_eval_args;

/** A description with its buffers, ready for bitcts_ref_execute. */
typedef struct bitcts_eval_problem {
    bitcts_op_desc desc;
    uint8_t *inputs[2]; /* owned; total_tensor_size_in_bytes + 8 bytes each */
    uint8_t *output;    /* owned, zeroed */
    int shift_oob;      /* a shift count >= the width: the two shift policies differ */
} bitcts_eval_problem;

/** Parses an operator name. @return BITCTS_OK, or BITCTS_E_INVALID_ARGUMENT with err. */
int bitcts_eval_parse_op(const char *name, uint32_t *op, char *err, size_t cap);

/** Builds the operator description from the names, sizes and strides (not the values) and
 * validates it at the highest feature level, in the command's order: operator, --type,
 * --out-type, --sizes, --format, strides and buffer sizes, then the validation rules.
 * @param d [out] the valid description.
 * @return BITCTS_OK, or BITCTS_E_INVALID_ARGUMENT with one line in err (what the command
 *         prints after "bitcts eval: error: "). */
int bitcts_eval_describe(const bitcts_eval_args *a, bitcts_op_desc *d, char *err, size_t cap);

/** Parses the values into buffers for a description from bitcts_eval_describe and checks the
 * rest: every input given with exactly as many values as its buffer holds, no --b for a unary
 * operator, a known --shift-policy. A value list "@FILE" names a regular file holding exactly
 * the buffer's elements as raw little-endian bits, in memory order.
 * @param p [out] the problem, freed with bitcts_eval_problem_free; zeroed on failure.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT or BITCTS_E_OUT_OF_MEMORY with err. */
int bitcts_eval_load(const bitcts_eval_args *a, const bitcts_op_desc *d, bitcts_eval_problem *p,
                     char *err, size_t cap);

/** Frees the buffers of a problem (accepts a zeroed one) and zeroes it. */
void bitcts_eval_problem_free(bitcts_eval_problem *p);

/** Parses one literal into the raw bits of `type`: decimal, negative decimal for signed types,
 * 0x-hex raw bits for any type, or for float types what strtod reads (a decimal literal, inf,
 * nan), rounded to the type's width. @return 0, or -1 when it is no value of the type. */
int bitcts_eval_parse_value(const char *text, uint32_t type, uint64_t *out);

/** Writes one element as the command prints it: "bin" as 0b and every bit; "hex", and any
 * float type, as 0x and width / 4 digits; else decimal, negative for signed types.
 * @param out [out] at least 2 + 64 + 1 bytes hold any element. @return out. */
char *bitcts_eval_format_value(uint64_t v, uint32_t type, const char *format, char *out,
                               size_t cap);

#endif
