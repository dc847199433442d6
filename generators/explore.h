/* SPDX-License-Identifier: MIT */
/* Explored cases (docs/explore.md): random valid descriptions beyond the plan, each derived
 * from (suite seed, index) alone and named "explore.<index>", so that `bitcts run` and
 * `bitcts eval` reproduce any of them. Thread-safety: reentrant. */
#ifndef BITCTS_GENERATORS_EXPLORE_H
#define BITCTS_GENERATORS_EXPLORE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

#include "case_plan.h" /* bitcts_case_key, bitcts_plan, bitcts_case_data */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS_EXPLORE_PREFIX "explore."
#define BITCTS_EXPLORE_MAX_INDEX 999999999ull /* ids stay short: explore.0 .. explore.999999999 */

/** The key of explored case `index`: its id, operator, types, rank, value class and the lowest
 * feature level that requires it (pattern BITCTS_PAT_EXPLORE). @return BITCTS_OK, or
 * BITCTS_E_INVALID_ARGUMENT for an index above BITCTS_EXPLORE_MAX_INDEX. */
int bitcts_explore_key(uint64_t suite_seed, uint64_t index, bitcts_case_key *out);

/** The index of an explore id ("explore.17" gives 17); -1 when `id` is not one. */
int64_t bitcts_explore_parse_id(const char *id);
/** The index of the one explored case a filter names: a filter of exactly one glob that is an
 * explore id ("--filter explore.17"); -1 otherwise. */
int64_t bitcts_explore_selected_id(const bitcts_filter *filter);

/** A plan of the explored cases first .. first + count - 1 (tiers 0: no tier selects them).
 * @return BITCTS_OK, OUT_OF_MEMORY or INVALID_ARGUMENT. */
int bitcts_explore_plan(uint64_t suite_seed, uint64_t first, size_t count, bitcts_plan **out);

/** The description of an explored case (called by bitcts_case_build for BITCTS_PAT_EXPLORE):
 * fills desc, and *alias with the input the output aliases (-1: none). */
void bitcts_explore_describe(uint64_t case_seed, const bitcts_case_key *key, bitcts_op_desc *desc,
                             int *alias);

/** Sets d's operator, input count, and the data type, rank and sizes of its inputs and output
 * (the output of out_type, the others of in_type); leaves the rest of d as it is: the plan's
 * cases (bitcts_case_build) and the explored ones alike. */
void bitcts_case_set_tensors(bitcts_op_desc *d, uint32_t op, uint32_t in_type, uint32_t out_type,
                             uint32_t rank, const uint32_t *sizes);

#ifdef __cplusplus
}
#endif
#endif
