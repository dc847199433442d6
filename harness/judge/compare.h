/* SPDX-License-Identifier: MIT */
/* The comparison and verdict logic: one module that every way of running a case calls (bitcts
 * run today, bitcts check for results computed elsewhere later). It works on buffers alone:
 * the case's description, the bytes before and after, the expected outputs. docs/harness.md.
 * Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_COMPARE_H
#define BITCTS_HARNESS_COMPARE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t */

#include "tensor_model.h"

/** The outcome of one case. */
typedef struct bitcts_case_result {
    int verdict;          /* bitcts_verdict */
    char detail[640];     /* one line; "" for pass */
    char policy[24];      /* recorded cases: mask, saturate, mask_or_saturate, other */
    char warning[160];    /* a write inside the output's padding, etc. */
    char digest[33];      /* XXH3-128 of the actual output's logical elements */
    double duration_ms;   /* the backend's create + execute */
    uint64_t elements;    /* logical elements of the output */
    uint64_t mismatches;  /* asserted elements that differ */
    int has_first;        /* the first mismatch below is filled */
    uint64_t first_index; /* linear logical index */
    uint32_t first_coords[BITCTS_MAX_DIMS];
    uint32_t rank;
    uint32_t in_width, out_width; /* bytes */
    uint32_t input_count;
    uint64_t first_inputs[2];
    uint64_t first_expected, first_actual;
} bitcts_case_result;

/** The guard bytes around one buffer: where they are now and what they must still hold. A
 * length of 0 means the buffer has no guard of that side to check. */
typedef struct bitcts_compare_guard {
    const uint8_t *before;
    const uint8_t *before_expect;
    size_t before_len; /* the guard ends where the data begins */
    const uint8_t *after;
    const uint8_t *after_expect;
    size_t after_len; /* the guard begins where the data ends */
} bitcts_compare_guard;

/** The buffers of an executed case. */
typedef struct bitcts_compare_args {
    const bitcts_op_desc *desc;
    int alias_input; /* -1, or the input the output aliases */
    int recorded;    /* shift counts >= width occur: classify those elements */
    const uint8_t *inputs_before[2];
    const uint8_t *inputs_after[2]; /* the same buffers after execution */
    const uint8_t *output_before;   /* the output's bytes before execution */
    const uint8_t *output_after;
    const uint8_t *expected;        /* saturate policy (the only one when not recorded) */
    const uint8_t *expected_mask;   /* recorded cases: the mask policy; else NULL */
    bitcts_compare_guard guards[3]; /* the inputs, then the output at index input_count */
} bitcts_compare_args;

/** Fills every logical element of `output` with a value that differs from the expected one(s),
 * so that an element the backend does not write cannot pass. */
void bitcts_compare_poison(const bitcts_op_desc *desc, const uint8_t *expected,
                           const uint8_t *expected_mask, uint8_t *output);

/** Compares and decides the verdict (pass, warn, fail, recorded) into *out (its timing fields
 * are left alone). The guards are checked too: a byte that differs from what it must hold is a
 * write outside the buffer, named with its distance from the data.
 * @return BITCTS_OK or BITCTS_E_OUT_OF_MEMORY. */
int bitcts_compare_case(const bitcts_compare_args *args, bitcts_case_result *out);

/** The guards alone: appends to `why` (a "; " between problems) what differs from what the guards
 * must hold, naming the buffer (guards[t]: input t, the output at d->input_count) and the bytes.
 * O(guard bytes): sweep and bench call it after every backend call.
 * @return 1 when a guard was written, else 0. */
int bitcts_compare_guards(const bitcts_op_desc *d, const bitcts_compare_guard guards[3], char *why,
                          size_t cap);

/** The part of the comparison that concerns what the backend must not touch: the guards and
 * the inputs (but an input the output aliases). @return 1 with the problems in why, else 0. */
int bitcts_compare_untouched(const bitcts_compare_args *args, char *why, size_t cap);

#endif
