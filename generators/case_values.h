/* SPDX-License-Identifier: MIT */
/* Value classes (the edge and float-special tables, shift counts, the word-to-element mapping),
 * the fixed shapes of the large and exhaustive tiers, and the negative cases' descriptions
 * (docs/case-plan.md). Internal to generators/. Thread-safety: reentrant. */
#ifndef BITCTS_GENERATORS_CASE_VALUES_H
#define BITCTS_GENERATORS_CASE_VALUES_H

#include "case_plan.h" /* bitcts_case_key */
#include "rng.h"       /* bitcts_rng */

/* Entries of the edge table (docs/case-plan.md, "The edge table"), the same for every width. */
#define BITCTS_EDGE_COUNT 14u
/* Entries of the float-special table (docs/case-plan.md, "The float-special table"). */
#define BITCTS_SPECIAL_COUNT 20u

/** Entry `index` (< BITCTS_EDGE_COUNT) of the edge table for `width` bits; `r` is the slot's
 * second word (walking bit position, random bits). */
uint64_t bitcts_edge_value(uint32_t index, uint32_t width, uint64_t r);
/** Entry `index` (< BITCTS_SPECIAL_COUNT) of the float-special table for a float of `width`
 * bits (16, 32, 64); `r` supplies the NaN payloads. */
uint64_t bitcts_special_value(uint32_t index, uint32_t width, uint64_t r);

/** Fixed sizes of large and exhaustive cases; 0 for cases whose shape is drawn. */
int bitcts_case_fixed_shape(const bitcts_case_key *key, uint32_t *sizes);
/** Fills every element slot of input `which`'s buffer from its value class (padding and the
 * trailing partial slot included), drawing from `rng`, the stream of that input. */
void bitcts_case_fill(const bitcts_case_key *key, uint32_t which, const bitcts_op_desc *desc,
                      bitcts_rng *rng, uint8_t *buffer);
/** The description of a negative case: a valid rank-4 base broken by key->rule, the first
 * rule broken (docs/spec/validation.md). */
void bitcts_case_invalid_desc(const bitcts_case_key *key, bitcts_op_desc *desc);

#endif
