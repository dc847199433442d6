/* SPDX-License-Identifier: MIT */
/* JSON descriptions of cases and tensors (jansson), shared by the vector export and the run
 * report, so both describe a case identically. Thread-safety: reentrant. */
#ifndef BITCTS_GENERATORS_CASE_JSON_H
#define BITCTS_GENERATORS_CASE_JSON_H

#include <jansson.h> /* json_t */

#include "case_plan.h" /* bitcts_case_key, bitcts_case_data */

/** {"role", "DataType", "DataTypeValue", "Flags", "DimensionCount", "Sizes", "Strides",
 * "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment"}. New reference. */
json_t *bitcts_json_tensor(const bitcts_tensor_desc *t, const char *role);
/** The tensor's "Sizes" and "Strides" arrays (Strides null when it has none; no dimensions when
 * DimensionCount exceeds BITCTS_MAX_DIMS + 1). New references. */
void bitcts_json_dims(const bitcts_tensor_desc *t, json_t **sizes, json_t **strides);
/** The case's identity and description (no files): id, operator, types, feature level, tiers,
 * pattern, values, case seed, expectation, tensors, aliasing. New reference. */
json_t *bitcts_json_case(const bitcts_case_key *key, const bitcts_case_data *data);
/** The case as an export describes it (docs/vector-format.md): bitcts_json_case, except that a
 * negative case says nothing of what it is: no "expect", "rule", "pattern" or "values" (a
 * producer must find an invalid description invalid itself). New reference. */
json_t *bitcts_json_case_exported(const bitcts_case_key *key, const bitcts_case_data *data);
/** "0x" and 16 hex digits. */
void bitcts_format_u64(uint64_t v, char out[19]);

#endif
