/* SPDX-License-Identifier: MIT */
/* A case's result as a report.json case object (docs/report-schema.md). Thread-safety:
 * reentrant. */
#ifndef BITCTS_HARNESS_CASE_RESULT_H
#define BITCTS_HARNESS_CASE_RESULT_H

#include <jansson.h> /* json_t */

#include "case_plan.h" /* bitcts_case_key */
#include "compare.h"   /* bitcts_case_result */

/** The case object: id, operator, feature_level, verdict, duration_ms, output_xxh3_128, detail,
 * policy, warnings, failure, baseline, repro, plan_index. New reference. */
json_t *bitcts_case_result_json(const bitcts_case_key *key, size_t plan_index,
                                const bitcts_case_result *r, const char *repro);
/** The "description" member of a case object (docs/report-schema.md): of the case's description
 * as the export writes it (bitcts_json_case, or an export manifest's entry, borrowed), the
 * members that describe its data and the case object does not already hold (input_type,
 * output_type, rank, pattern, values, rule, tensors, output_aliases), plus "elements" (the
 * output's logical element count) and "layout" (the tensors' strides in effect: "broadcast"
 * when one has a zero stride on a dimension of size > 1, else "strided" when one's strides are
 * not the packed ones on its dimensions of size > 1, else "packed"; "invalid" for a negative
 * case). Its "tensors" (sizes, strides, sizes in bytes) are kept only
 * when `verdict` is one the report lists (not pass, recorded or not_supported), so a passing
 * case costs a few members. New reference, NULL when out of memory or case_json is no object. */
json_t *bitcts_case_description(const json_t *case_json, int verdict);

/** The one-line command that reruns just this case, valid shell whatever the backend path
 * holds, writing its report into its own folder (bitcts-repro/<id>) so that pasting it never
 * replaces the full run's report. It runs as pasted: it starts with the absolute path of this
 * executable (no PATH lookup) and names a plugin file by its absolute path. `options` is already
 * quoted (" --backend-option 'k=v' --timeout 30", bitcts_run_repro_options). */
/* Room enough for a repro line: an executable, a plugin and a baseline path, the options. */
#define BITCTS_CASE_REPRO_CAP 12288

void bitcts_case_repro(const char *backend_spec, const char *options, uint64_t seed, const char *id,
                       char *out, size_t cap);

#endif
