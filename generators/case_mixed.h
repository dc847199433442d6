/* SPDX-License-Identifier: MIT */
/* The `mixed` pattern family (docs/case-plan.md, "Mixed layouts"): each tensor of a case has
 * its own layout, and a covering array built by a fixed greedy construction puts every required
 * pair of (tensor, layout) with (tensor, layout), operator, type and rank in at least one case.
 * Thread-safety: everything here is reentrant; nothing is global but constant tables. */
#ifndef BITCTS_GENERATORS_CASE_MIXED_H
#define BITCTS_GENERATORS_CASE_MIXED_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t */

#include "case_plan.h" /* bitcts_case_key */

#ifdef __cplusplus
extern "C" {
#endif

/* Per-tensor layouts, in their fixed order: X(ENUM, name). */
#define BITCTS_MIXED_LAYOUT_LIST(X)                                                                \
    X(PACKED, packed)                                                                              \
    X(PADDED_INNER, padded_inner)                                                                  \
    X(PADDED_OUTER, padded_outer)                                                                  \
    X(PERMUTED, permuted)                                                                          \
    X(OVERSIZED, oversized)                                                                        \
    X(BROADCAST, broadcast)                                                                        \
    X(SCALAR, scalar)                                                                              \
    X(INPLACE_A, inplace_a)                                                                        \
    X(INPLACE_B, inplace_b)                                                                        \
    X(INPLACE, inplace)

typedef enum bitcts_mixed_layout {
#define BITCTS_MIXED_ENUM(e, n) BITCTS_ML_##e,
    BITCTS_MIXED_LAYOUT_LIST(BITCTS_MIXED_ENUM)
#undef BITCTS_MIXED_ENUM
        BITCTS_ML_COUNT
} bitcts_mixed_layout;

/* The factors of a mixed case, in the order the construction decides them. */
#define BITCTS_MIXED_FACTOR_LIST(X)                                                                \
    X(OP, operator)                                                                                \
    X(TYPE, type)                                                                                  \
    X(RANK, rank)                                                                                  \
    X(A, A)                                                                                        \
    X(B, B)                                                                                        \
    X(INPUT, Input)                                                                                \
    X(OUTPUT, Output)

typedef enum bitcts_mixed_factor {
#define BITCTS_MIXED_ENUM(e, n) BITCTS_MF_##e,
    BITCTS_MIXED_FACTOR_LIST(BITCTS_MIXED_ENUM)
#undef BITCTS_MIXED_ENUM
        BITCTS_MF_COUNT
} bitcts_mixed_factor;

/** One required pair: factor fa at value va together with factor fb at value vb. fa is always
 * a tensor (BITCTS_MF_A ..); values are layouts for tensors, the DML operator or type code, or
 * the rank. */
typedef struct bitcts_mixed_pair {
    uint32_t fa, va, fb, vb;
} bitcts_mixed_pair;

/** The most required pairs there are (an upper bound, for callers' arrays). */
#define BITCTS_MIXED_MAX_PAIRS 2048u

/** The layout name ("packed", ...); "?" when out of range. */
const char *bitcts_mixed_layout_name(uint32_t layout);
/** The factor name ("operator", "type", "rank", "A", "B", "Input", "Output"). */
const char *bitcts_mixed_factor_name(uint32_t factor);

/** The layout of a mixed case's tensor in slot 0 (A or the Input), 1 (B) or 2 (the Output). */
uint32_t bitcts_mixed_layout_of(const bitcts_case_key *key, uint32_t slot);

/** Every required pair, in the fixed order of docs/case-plan.md; returns how many (at most
 * BITCTS_MIXED_MAX_PAIRS, the size `out` must have). */
size_t bitcts_mixed_pairs(bitcts_mixed_pair *out);

/** 1 when the mixed case `key` has both values of `pair`. */
int bitcts_mixed_covers(const bitcts_case_key *key, const bitcts_mixed_pair *pair);

/** "A=padded_inner Output=permuted", "B=scalar operator=bit_or", "Output=inplace rank=3". */
void bitcts_mixed_pair_text(const bitcts_mixed_pair *pair, char *out, size_t cap);

typedef void (*bitcts_mixed_add_fn)(void *ctx, const bitcts_case_key *key);

/** Builds the covering array and hands each case's key (id empty, index and layouts set) to
 * `add`: by operator in plan order, in construction order within an operator. @return BITCTS_OK or
 * BITCTS_E_OUT_OF_MEMORY. */
int bitcts_mixed_build(bitcts_mixed_add_fn add, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
