/* SPDX-License-Identifier: MIT */
/* `bitcts report verify` (docs/report-schema.md, "Verifying a report"): is a published report
 * what this bitcts would have written for its seed and selection? Every case of the selection
 * exactly once and in plan order, nothing else; one seed, this generator and bitcts version;
 * verdicts that fit their cases; and the output digest of every case whose outputs were right
 * recomputed from (seed, case id) by the reference. It runs no backend. */
#ifndef BITCTS_HARNESS_JUDGE_VERIFY_H
#define BITCTS_HARNESS_JUDGE_VERIFY_H

#include <stddef.h> /* size_t */

#include "case_plan.h" /* bitcts_plan */
#include "report.h"    /* json_t */

/** Called once per problem found, with one line naming the case or field. */
typedef void (*bitcts_verify_problem_fn)(void *user, const char *line);

typedef struct bitcts_verify_result {
    size_t cases;      /* cases in the report */
    size_t selected;   /* cases the report's selection holds (this shard's, when sharded) */
    size_t recomputed; /* output digests recomputed and equal */
    size_t problems;   /* problems reported */
} bitcts_verify_result;

/** Verifies a report that bitcts_report_validate accepted, against the suite's plan.
 * @return BITCTS_OK when nothing is wrong; BITCTS_E_PARSE when problems were reported (each
 *         through `problem`); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_report_verify(const json_t *report, const bitcts_plan *plan,
                         bitcts_verify_problem_fn problem, void *user, bitcts_verify_result *out);

#endif
