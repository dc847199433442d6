/* SPDX-License-Identifier: MIT */
/* Internal state of a run, shared by runner.c (the loop) and run_report.c (log, resume,
 * report). Never installed. Thread-safety: one run per process. */
#ifndef BITCTS_HARNESS_RUN_STATE_H
#define BITCTS_HARNESS_RUN_STATE_H

#include <jansson.h>   /* json_t */
#include <stdio.h>     /* FILE */
#include <sys/types.h> /* pid_t */

#include "backend.h"
#include "baseline.h"
#include "case_plan.h"
#include "runner.h"

typedef struct run_batch {
    size_t *items; /* plan indices */
    size_t count;
} run_batch;

typedef struct worker_slot {
    pid_t pid; /* 0 when the slot is free */
    int fd;
    run_batch batch;
    unsigned char *ended; /* per batch item */
    long current;         /* plan index begun and not ended, or -1 */
    char phase;           /* 'B', 'P' (in the backend), 'C' */
    double phase_start;
    int timed_out;
    char *buf;
    size_t len, cap;
} worker_slot;

typedef struct run_state {
    const bitcts_run_config *cfg;
    bitcts_plan *plan;
    bitcts_backend backend;
    bitcts_baseline baseline;
    char repro_options[512];
    size_t *todo; /* plan indices still to run, in order */
    size_t todo_count, todo_head;
    run_batch *retry; /* the rest of batches whose worker died */
    size_t retry_count;
    size_t batch_size;
    size_t *selected; /* plan indices of the selection (this shard), in order */
    size_t selected_count;
    json_t **results; /* by plan index */
    size_t done;
    worker_slot *slots;
    FILE *log;
    double started;
    char started_iso[32];
    double last_progress;
    json_t *report; /* the report written */
} run_state;

void bitcts__run_record(run_state *s, size_t idx, json_t *obj);
/** Appends a record to results.jsonl and flushes it. Takes ownership of rec. */
void bitcts__run_log(run_state *s, json_t *rec);
/** Opens the log (new, or for --resume: loads the ended cases and checks the header). */
int bitcts__run_open_log(run_state *s, char *err, size_t cap);
/** Assembles the report (the reports module's builder) and writes the report folder; keeps the
 * report in s->report. */
int bitcts__run_write_report(run_state *s, char *err, size_t cap);
/** Tells the config's progress callback, at most every 0.1 s unless final. */
void bitcts__run_progress(run_state *s, int final);

#endif
