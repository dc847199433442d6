/* SPDX-License-Identifier: MIT */
/* The explore loop (docs/explore.md): explored cases drawn round by round (generators/explore.h),
 * each round run through the runner as `bitcts run` runs a plan, every case handed to one
 * report builder, and the whole report written at the end. `bitcts explore` is its command line;
 * the shrinking of the failures comes after it (shrink_failures.h). Nothing here prints.
 * Thread-safety: one call at a time per process (it runs the runner). */
#ifndef BITCTS_HARNESS_EXPLORE_RUN_H
#define BITCTS_HARNESS_EXPLORE_RUN_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t */

#include "runner.h" /* bitcts_run_config */

/** Progress of an explore: cases ended so far, of them the failing ones, seconds since the
 * start. Called after each round. */
typedef void (*bitcts_explore_progress_fn)(void *user, size_t ran, size_t failing,
                                           double elapsed_s);

typedef struct bitcts_explore_config {
    /** How each round runs (backend, seed, jobs, timeout, isolation, repeat, interruption,
     * command line); its report_dir is where the whole report goes. Its plan and stop_at are the
     * loop's. Borrowed. */
    const bitcts_run_config *run;
    uint64_t first; /* the first index */
    uint64_t cases; /* explore.<first> .. explore.<first + cases - 1>; 0: until `seconds` */
    double seconds; /* no case starts after this many seconds; 0: until `cases` */
    bitcts_explore_progress_fn progress; /* NULL: none */
    void *progress_user;
} bitcts_explore_config;

/** What an explore gives back. */
typedef struct bitcts_explore_result {
    int status;       /* BITCTS_OK when the report was written */
    char error[4400]; /* one line naming the problem when status is not BITCTS_OK */
    json_t *report;   /* the report written (docs/report-schema.md); owned */
    size_t ran;       /* cases in the report */
    int failed;       /* some case has a failing verdict (bitcts_verdict_is_failure) */
    int interrupted;  /* stopped by *run->interrupted: the report holds the cases that ended */
} bitcts_explore_result;

/** Claims run->report_dir (missing, empty, or a report folder bitcts made, unless run->force),
 * removes an earlier explore's shrunk cases from it (report_dir/shrunk), runs the explored cases
 * in rounds of at most 2048 until `cases` are done, `seconds` are over or *run->interrupted is
 * set, and writes the report of the cases that ended.
 * @param out [out] the result; release it with bitcts_explore_result_free.
 * @return out->status: BITCTS_OK (also when interrupted: see out->interrupted);
 *         BITCTS_E_EXISTS (a report folder that is not bitcts's); the status of a round the
 *         runner refused (bitcts_run); BITCTS_E_NOT_FOUND (no case ended); the status of
 *         building or writing the report; BITCTS_E_OUT_OF_MEMORY; each with out->error. */
int bitcts_explore_run(const bitcts_explore_config *cfg, bitcts_explore_result *out);
void bitcts_explore_result_free(bitcts_explore_result *r);

#endif
