/* SPDX-License-Identifier: MIT */
/* Value classes, fixed shapes of the large and exhaustive tiers, and the negative cases'
 * descriptions (docs/case-plan.md). Internal to generators/. Thread-safety: reentrant. */
#ifndef BITCTS_GENERATORS_CASE_VALUES_H
#define BITCTS_GENERATORS_CASE_VALUES_H

#include "case_plan.h" /* bitcts_case_key */
#include "rng.h"       /* bitcts_rng */

/** Fixed sizes of large and exhaustive cases; 0 for cases whose shape is drawn. */
int bitcts_case_fixed_shape(const bitcts_case_key *key, uint32_t *sizes);
/** Fills every element slot of input `which`'s buffer from its value class (padding included). */
void bitcts_case_fill(const bitcts_case_key *key, uint32_t which, const bitcts_op_desc *desc,
                      bitcts_rng *rng, uint8_t *buffer);
/** The description of a negative case: a valid rank-4 base broken by exactly key->rule. */
void bitcts_case_invalid_desc(const bitcts_case_key *key, bitcts_op_desc *desc);

#endif
