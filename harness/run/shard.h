/* SPDX-License-Identifier: MIT */
/* Shards (docs/harness.md, "Shards"): the slice a job engine hands out (`--shard auto`), and the
 * assignment of a selection's cases to shards, interleaved or balanced by a previous report's
 * case durations. Pure functions: the environment comes through a callback, durations as an
 * array; the same inputs give the same shards on every host. */
#ifndef BITCTS_HARNESS_RUN_SHARD_H
#define BITCTS_HARNESS_RUN_SHARD_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t */

/** The value of an environment variable, or NULL when it is not set (getenv's contract). */
typedef const char *(*bitcts_env_fn)(void *user, const char *name);

/** The engine's slice. */
typedef struct bitcts_shard_slice {
    uint32_t index;         /* 1-based, as --shard I/N */
    uint32_t count;         /* N */
    char engine[48];        /* "Slurm array", "Kubernetes indexed job", ... */
    char status_file[4096]; /* a file the engine wants touched when sharding is honoured
                             * (Bazel, GoogleTest: TEST_SHARD_STATUS_FILE); "" when none */
} bitcts_shard_slice;

/** Reads the slice from the engine that started this process: Kubernetes Indexed Jobs
 * (JOB_COMPLETION_INDEX, counted from 0; the count from `count_hint` or BITCTS_SHARD_COUNT),
 * Slurm arrays (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT), GitLab
 * (CI_NODE_INDEX from 1, of CI_NODE_TOTAL), Bazel and GoogleTest (TEST_SHARD_INDEX from 0, of
 * TEST_TOTAL_SHARDS). `count_hint` is 0 when no count was given on the command line.
 * @return 0, or -1 with one line in err: no engine found (naming what was looked for), two
 *         engines at once (naming both), or an engine's variable that is not a number in range
 *         (naming it and its value). */
int bitcts_shard_from_env(bitcts_env_fn get, void *user, uint32_t count_hint,
                          bitcts_shard_slice *out, char *err, size_t cap);

/** A previous run's duration of one case (report.json's duration_ms), by id. */
typedef struct bitcts_shard_timing {
    const char *id;
    double ms;
} bitcts_shard_timing;

/** The cost of each of `n` cases by id from a timing table sorted by id (strcmp): its duration
 * plus 1 ms (a case costs the harness something whatever the backend took); a case the table
 * lacks costs the table's median (1 ms for an empty table). */
void bitcts_shard_costs(const bitcts_shard_timing *table, size_t table_count,
                        const char *const *ids, size_t n, double *cost);

/** The digest that names a timing table in reports ("timings:" and 16 hex digits): shards are
 * one run only when they were balanced by the same table. */
void bitcts_shard_timings_name(const bitcts_shard_timing *table, size_t table_count, char out[32]);

/** Puts each of `n` cases (in plan order, with their costs) on one of `count` shards, 0-based:
 * longest first onto the least loaded shard (ties: the lower plan position, the lower shard),
 * so that the shards' summed costs are close. Deterministic: a pure function of the costs and
 * count. Costs must be finite and >= 0.
 * @return 0, or -1 when out of memory. */
int bitcts_shard_balance(const double *cost, size_t n, uint32_t count, uint32_t *shard_of);

#endif
