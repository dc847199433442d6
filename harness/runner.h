/* SPDX-License-Identifier: MIT */
/* `bitcts run`: selection, sharding, worker processes with a watchdog, the append-only result
 * log, --resume, and the final report (docs/harness.md, docs/report-schema.md).
 * Thread-safety: one run per process. */
#ifndef BITCTS_HARNESS_RUNNER_H
#define BITCTS_HARNESS_RUNNER_H

#include <stdint.h> /* uint64_t */

#include "backend.h"   /* bitcts_backend_options */
#include "case_plan.h" /* bitcts_selection */

typedef struct bitcts_run_config {
    const char *backend_spec;
    bitcts_backend_options options;
    bitcts_selection selection;
    const char *tier_text;
    uint64_t seed;
    int jobs;
    uint32_t shard_index; /* 1-based; 0 when not sharded */
    uint32_t shard_count;
    const char *baseline_path;
    double timeout_s;
    const char *report_dir;
    int resume;
    int quiet;
    int argc;
    char **argv;
    char option_key_store[BITCTS_MAX_OPTIONS][64]; /* the keys of --backend-option */
} bitcts_run_config;

/** Runs the selection; returns the process exit code (0 nothing failed, 1 failures, 2 bad
 * input). Errors are printed as one line on stderr. */
int bitcts_run(const bitcts_run_config *cfg);

#endif
