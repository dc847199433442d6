/* SPDX-License-Identifier: MIT */
/* `bitcts check`: judges results that another program computed from an export
 * (docs/check.md). Each case of the export's manifest is rebuilt from (seed, id), its expected
 * outputs computed by the reference, and the producer's output given to the same comparison as
 * `bitcts run` (harness/judge/compare.h); the report comes from the same builder. A result entry or
 * file that is bad costs its case (fail, charged to the producer) and is named by a problem
 * line; the other cases are still checked. Thread-safety: one check per call, reentrant. */
#ifndef BITCTS_HARNESS_CHECK_RUN_H
#define BITCTS_HARNESS_CHECK_RUN_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */

#include "case_plan.h" /* bitcts_filter */

/** One line naming a file and what is wrong with it (bad input, exit code 2). */
typedef void (*bitcts_check_problem_fn)(void *user, const char *line);

typedef struct bitcts_check_config {
    const char *export_dir;     /* holds manifest.json */
    const char *results_dir;    /* holds results.json; NULL: export_dir/results */
    bitcts_filter filter;       /* globs on case ids: a case matching any is checked; none:
                                 * every case of the manifest */
    bitcts_filter exclude;      /* globs on case ids: a case matching any is not checked */
    const char *report_dir;     /* NULL: nothing written */
    const json_t *command_line; /* recorded as given; borrowed */
    bitcts_check_problem_fn problem;
    void *problem_user;
    const char *skips_path; /* --skips: the cases a line lists are not judged but get the verdict
                             * skipped with its reason (skips.h); NULL: none */
} bitcts_check_config;

typedef struct bitcts_check_result {
    char error[1024]; /* one line when bitcts_check returns an error */
    json_t *report;   /* owned */
    size_t cases;
    int failed;      /* a case has a failing verdict */
    size_t problems; /* problem lines given to cfg->problem */
} bitcts_check_result;

/** Checks a result set against its export and writes the report folder.
 * @return BITCTS_OK (out->report set); or, with out->error: BITCTS_E_IO (a manifest or
 *         results.json that cannot be read, a report that cannot be written), BITCTS_E_PARSE
 *         and BITCTS_E_FORMAT_VERSION (either file malformed or of an unknown version, a
 *         results.json for another seed or generator), BITCTS_E_INVALID_ARGUMENT (a selection
 *         that matches nothing), BITCTS_E_OUT_OF_MEMORY. */
int bitcts_check(const bitcts_check_config *cfg, bitcts_check_result *out);
void bitcts_check_result_free(bitcts_check_result *r);

/** The cases of an export (DIR/manifest.json, from `bitcts vectors export` or a folder of
 * shrunk cases) as a plan a backend can run, read as bitcts_check reads it: a case of the
 * suite's plan by its key (its description must be what the seed builds), an explored case
 * from its index, a shrunk case with the export's own data (plan->fixed). The manifest's ids,
 * in its order.
 * @param seed [out] the manifest's seed, which the plan's cases are built with.
 * @return BITCTS_OK with *out set (bitcts_plan_destroy); or, with one line in err: BITCTS_E_IO,
 *         BITCTS_E_PARSE (a malformed manifest, a case bitcts cannot run, unreadable files),
 *         BITCTS_E_FORMAT_VERSION, BITCTS_E_OUT_OF_MEMORY. */
int bitcts_check_export_plan(const char *export_dir, bitcts_plan **out, uint64_t *seed, char *err,
                             size_t cap);

#endif
