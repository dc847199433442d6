/* SPDX-License-Identifier: MIT */
/* The memory of one case in a worker. What the backend is handed (A, B, Output) lives in
 * guarded mappings (harness/sandbox/guard_mem.h) whose guard bytes come from the case's seed; what
 * the harness keeps (the inputs as generated, the output as handed over, the expected outputs, the
 * guards' expected bytes) lives in one mapping of its own, read-only from the moment it is
 * filled. A case is executed in two passes with two draws of the guard bytes (differing in
 * every byte) and of the output's poison: a stray write of any byte value shows in one of them,
 * and an output that depends on a stray read (a guard, the output's initial bytes) changes
 * between them. Thread-safety: one worker, one thread. */
#ifndef BITCTS_HARNESS_CASE_BUFFERS_H
#define BITCTS_HARNESS_CASE_BUFFERS_H

#include <stdint.h> /* uint8_t, uint64_t */

#include "case_plan.h" /* bitcts_case_data */
#include "compare.h"   /* bitcts_compare_args */
#include "guard_mem.h" /* bitcts_guard_buf */
#include "guard_set.h" /* bitcts_guard_set */

#define BITCTS_CASE_PASSES 2
#define BITCTS_CASE_MAPS 4 /* A, B, Output, and the harness's own */

/** The mappings of a worker, reused case after case (no page faults, no zeroing): two
 * generations that take turns, so that while one case runs, the previous case's backend
 * mappings are inaccessible and a stale pointer into them faults. */
typedef struct bitcts_case_pool {
    bitcts_guard_buf gen[2][BITCTS_CASE_MAPS];
    unsigned turn;
} bitcts_case_pool;

typedef struct bitcts_case_buffers {
    bitcts_guard_set guards;   /* handed to the backend: A (or Input), B, Output (NULL: unused);
                                * guards.expect (pattern 0) lies in the harness's mapping */
    bitcts_guard_buf *harness; /* the harness's own mapping, holding the pointers below */
    uint8_t *inputs_before[2]; /* the inputs as generated */
    /* The output as handed over in each pass: poisoned by two draws (in place, the input). */
    uint8_t *output_before[BITCTS_CASE_PASSES];
    uint8_t *expected;      /* saturate policy (the only one when not recorded) */
    uint8_t *expected_mask; /* recorded cases: the mask policy; else NULL */
    uint64_t in_bytes[2], out_bytes, guard_bytes;
    uint8_t *in[2]; /* the data pointers handed to the backend */
    uint8_t *out;   /* may be an input's pointer (in place) */
    uint32_t n_in;
    int alias; /* -1, or the input the output aliases */
    uint32_t pass;
} bitcts_case_buffers;

/** Maps every buffer of a valid case from the pool's next generation, computes its expected
 * outputs (the mask policy's too when `recorded`), and makes the harness's mapping read-only.
 * @return 0; -1 with err when out of memory or address space; -2 with err when the reference
 *         refused the case. */
int bitcts_case_buffers_prepare(const bitcts_case_data *d, int recorded, uint64_t case_index,
                                bitcts_case_pool *pool, bitcts_case_buffers *x, char *err,
                                size_t cap);

/** As bitcts_case_buffers_prepare, with the expected outputs copied from those the case was
 * given with (computed ahead from the same data, as bitcts_case_expected does): `expected`,
 * and `expected_mask` when recorded. expected NULL: computed. */
int bitcts_case_buffers_prepare_given(const bitcts_case_data *d, int recorded, uint64_t case_index,
                                      const uint8_t *expected, const uint8_t *expected_mask,
                                      bitcts_case_pool *pool, bitcts_case_buffers *x, char *err,
                                      size_t cap);

/** Readies pass `pass` (0 or 1): the inputs as generated, the output poisoned with the pass's
 * draw (no element holds its expected value) or, in place, the aliased input; the guards
 * filled with the pass's pattern (harness/sandbox/guard_set.h). */
void bitcts_case_buffers_arm(bitcts_case_buffers *x, uint32_t pass);

/** The comparison's arguments for the pass just run; guard_scratch receives the pass's expected
 * guard bytes (at least x->guard_bytes bytes). */
void bitcts_case_buffers_compare_args(const bitcts_case_buffers *x, const bitcts_op_desc *d,
                                      int recorded, uint8_t *guard_scratch,
                                      bitcts_compare_args *out);

/** Makes the case's backend mappings inaccessible until their generation's next case: a stale
 * pointer into them faults. */
void bitcts_case_buffers_retire(bitcts_case_buffers *x);

/** Unmaps every mapping of the pool (the end of a worker). */
void bitcts_case_pool_free(bitcts_case_pool *pool);

#endif
