/* SPDX-License-Identifier: MIT */
/* `bitcts run`: selection, sharding, worker processes with a watchdog, the append-only result
 * log, --resume, and the final report (docs/harness.md, docs/report-schema.md).
 * Thread-safety: one run per process. */
#ifndef BITCTS_HARNESS_RUNNER_H
#define BITCTS_HARNESS_RUNNER_H

#include <jansson.h> /* json_t */
#include <signal.h>  /* sig_atomic_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t */

#include "backend.h"   /* bitcts_backend_options */
#include "case_plan.h" /* bitcts_selection */
#include "shard.h"     /* bitcts_shard_timing */

/** Progress of a run: cases ended and to run, cases with a failing verdict so far (the
 * baseline applied), seconds since the start. Called from the run's thread at most every 0.1 s
 * and once more at the end. */
typedef void (*bitcts_run_progress_fn)(void *user, size_t done, size_t total, size_t failing,
                                       double elapsed_s);

/* Workers for a device backend when --jobs is not given: the device runs one process's
 * submissions at a time, and every further process switches it between contexts. */
#define BITCTS_RUN_DEVICE_JOBS 4

/* Cases per batched call (--batch-cases) when not given, and the most a call may take. */
#define BITCTS_RUN_BATCH_CASES 16
#define BITCTS_RUN_BATCH_CASES_MAX 64

typedef struct bitcts_run_config {
    const char *backend_spec;
    bitcts_backend_options options;
    bitcts_selection selection;
    const char *tier_text;
    uint64_t seed;
    int jobs;
    int jobs_auto; /* jobs was not asked for (it holds the cores): a backend whose instance has
                    * device memory of its own (a GPU) gets at most BITCTS_RUN_DEVICE_JOBS */
    uint32_t shard_index; /* 1-based; 0 when not sharded */
    uint32_t shard_count;
    const bitcts_shard_timing *shard_timings; /* sorted by id: the shards balanced by these
                                               * durations (bitcts_shard_balance); NULL:
                                               * interleaved (every N-th case) */
    size_t shard_timing_count;
    const char *baseline_path;
    double timeout_s;
    const char *report_dir;  /* NULL: nothing written, the report is only returned */
    const bitcts_plan *plan; /* the cases to choose from; NULL: the suite's plan, or the one
                              * explored case a filter names exactly ("explore.17") */
    int plan_tiers;          /* the plan's cases carry their tiers and the selection's tier
                              * chooses among them (the suite's and regression cases); 0: every
                              * case of a given plan is in any tier (an export, candidates) */
    double stop_at;          /* bitcts_clock_now() after which no case starts; the cases that never
                              * started are left out of the report (a time-boxed run); 0: none */
    int resume;
    int force;        /* --report may take a folder bitcts did not create */
    int isolate_case; /* one worker process per case (--isolate case) */
    uint32_t repeat;  /* runs of each case (--repeat); a case that disagrees: flake */
    volatile sig_atomic_t *interrupted; /* set (by a signal handler) to stop the run; or NULL */
    const json_t *command_line;         /* recorded in the report as given (provenance); borrowed */
    const char *repro_extra;            /* appended to every repro line, already quoted (options
                                         * the command knows and the runner does not, such as
                                         * " --vectors '/abs/dir'"); or NULL */
    bitcts_run_progress_fn progress;    /* NULL: none */
    void *progress_user;
    /* Stop rules and retries (docs/harness.md, "Stopping early"): */
    uint32_t max_fails;        /* stop once this many cases failed; 0: never */
    uint32_t max_timeouts;     /* stop after this many timeouts in a row; 0: never */
    uint32_t retry_unexpected; /* run each unexpected outcome again up to N times; 0: none */
    uint32_t retry_cases;      /* at most this many cases retried, spread over the plan; 0: all */
    const unsigned char *only; /* per plan index: 1 runs (--rerun's cases); NULL: all selected */
    const char *skips_path;    /* --skips: the cases a line lists are not run but get the verdict
                                * skipped with its reason (harness/judge/skips.h); NULL: none */
    int claimed; /* --claimed: only the cases the backend claims are run; the report carries the
                  * conformance claim (docs/report-schema.md, "claims") */
    uint32_t batch_cases;  /* --batch-cases: consecutive valid cases per batched call of a
                            * backend that offers bitcts_batch_execute_v1 (1: one call per case,
                            * 0: BITCTS_RUN_BATCH_CASES) */
    const json_t *origins; /* case id -> where the case came from, recorded as the case's
                            * "origin" (regression cases, harness/explore/regress_dir.h); NULL:
                            * none; borrowed */
} bitcts_run_config;

/** What a run gives back. */
typedef struct bitcts_run_result {
    int status;        /* BITCTS_OK when the run completed and its report was written */
    char error[1024];  /* one line naming the problem when status is not BITCTS_OK */
    json_t *report;    /* the report written (docs/report-schema.md); owned */
    size_t cases;      /* cases in the report */
    int failed;        /* some case has a failing verdict (bitcts_verdict_is_failure) */
    int interrupted;   /* stopped by *cfg->interrupted: no report; the log holds what ended */
    size_t ended;      /* cases ended (in the log) when it stopped */
    char stopped[200]; /* why a stop rule ended the run early (as in the report), or "" */
    double duration_s; /* wall time of the run */
} bitcts_run_result;

/** Runs the selection in worker processes and writes the report folder. A backend that crashes,
 * hangs or exits while loading still gets a report: every case fails with what it did.
 * @param out [out] the result; release it with bitcts_run_result_free.
 * @return out->status: BITCTS_OK (also when interrupted: see out->interrupted); or the status
 *         of what stopped the run before it began (a selection matching nothing, an unreadable
 *         baseline, a backend the plugin host refuses, a report folder that is not bitcts's,
 *         a log that cannot be resumed) or before its report was written, with out->error. */
int bitcts_run(const bitcts_run_config *cfg, bitcts_run_result *out);
void bitcts_run_result_free(bitcts_run_result *r);

/** The options of cfg that a repro line must carry to give a case the verdict it got, quoted
 * for the shell, each with a leading space: every --backend-option (--threads among them),
 * --timeout, --isolate case, --feature-level, --repeat, --baseline and --skips (absolute),
 * then cfg->repro_extra. Not --exclude or --claimed: a case they leave out has no repro line,
 * and they change nothing for a case they keep. For bitcts_case_repro. */
void bitcts_run_repro_options(const bitcts_run_config *cfg, char *out, size_t cap);

#endif
