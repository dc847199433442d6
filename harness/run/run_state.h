/* SPDX-License-Identifier: MIT */
/* Internal state of a run, shared by runner.c (scheduling and the loop), run_queue.c (the
 * queue of batches), run_slot.c (one worker: its messages, its end, who is to blame),
 * run_report.c (log, resume, report), run_outcome.c (a case's runs combined, the stop rules
 * counted) and run_stop.c (a run cut short, --retry-unexpected).
 * Never installed. Thread-safety: one run per process. */
#ifndef BITCTS_HARNESS_RUN_STATE_H
#define BITCTS_HARNESS_RUN_STATE_H

#include <jansson.h> /* json_t */
#include <stdio.h>   /* FILE */

#include "backend.h"
#include "baseline.h"
#include "case_plan.h"
#include "child.h"
#include "runner.h"
#include "sandbox.h"
#include "skips.h"
#include "worker.h"

#define BITCTS_RUN_BATCH_ATTEMPTS 3 /* workers a batch may take that die before its first case */

typedef struct run_batch {
    size_t *items; /* plan indices */
    size_t count;
    uint32_t round;    /* the --repeat round */
    uint32_t attempts; /* workers that already died on it before its first case */
    char *solo;        /* cases of a batched call that went wrong, run one call per case: what
                        * happened to the call (a warning on each case), owned; else NULL */
} run_batch;

#define BITCTS__SLOT_IN_CALL 1u
#define BITCTS__SLOT_SOLO 2u

typedef struct worker_slot {
    bitcts_child c;        /* the worker process, its phase and deadline */
    bitcts_worker_job job; /* read by the child after the fork */
    run_batch batch;
    unsigned char *ended;  /* per batch item */
    long current;          /* the case of the phase (B, P, C), or -1 */
    long last_ended;       /* the last plan index that ended in this worker, or -1 */
    long last_begun;       /* the last plan index the worker began (its page says), or -1 */
    uint64_t garbage_seen; /* sb.garbage when the last case's result came */
    int began_cases;       /* a case of the batch began in this worker */
    int requeue_begun;     /* the case at hand is not charged: it goes back to the queue */
    long fault_owner;      /* an F line charged to a case that had ended (a late write), or -1 */
    char fault[600];       /* an F line's text */
    char refusal[1100];    /* an S line's text */
    int refusal_status;
    json_t *identity; /* the probe's R */
    /* --batch-cases: per batch item, BITCTS__SLOT_IN_CALL while the case is in the worker's
     * batched call (its M line), BITCTS__SLOT_SOLO when it is to run again alone (the call went
     * wrong, or lines that are not the harness's came during it), else 0; garbage_batch is
     * sb.garbage when the M line came */
    unsigned char *batched;
    uint64_t garbage_batch;
    char batch_end[600]; /* why the worker gave its batched call's cases back (a U line) */
} worker_slot;

typedef struct run_state {
    const bitcts_run_config *cfg;
    bitcts_plan *plan;
    int plan_owned; /* the runner made the plan (else it is cfg->plan's) */
    int any_tier;   /* an explored or explicit plan: tiers do not select its cases */
    bitcts_backend_spec backend;
    json_t *backend_json;      /* what the probe learnt, for the report */
    char backend_problem[700]; /* the probe's death, when it died: every case fails with it */
    char claims[BITCTS_BACKEND_CLAIMS_TEXT]; /* the probe's Y line: every worker repeats it */
    bitcts_baseline baseline;
    char repro_options[4096];
    uint32_t rounds;
    run_batch *queue; /* batches waiting for a worker, a stack */
    size_t queue_count, queue_cap;
    size_t *selected; /* plan indices of the selection (this shard), in order */
    size_t selected_count;
    size_t selection_total; /* the selection's cases in every shard together */
    json_t ***results;      /* [round][plan index] */
    size_t done, total;
    worker_slot *slots;
    worker_slot waiting; /* the probe's process, alive with its instance, until it takes the
                          * first batch (c.sb.pid 0: none) */
    int waiting_cmd;     /* the write end of its standard input, or -1 */
    int jobs;
    int device; /* the probe's instance has device memory of its own: one dealt batch a worker */
    unsigned prefetch_threads; /* per worker, for a device or batching backend (run_queue.c) */
    FILE *log;
    double started;
    char started_iso[32];
    double last_progress;
    json_t *report;
    uint32_t retry_rounds;       /* rounds after s->rounds kept for --retry-unexpected */
    unsigned char *failed_cases; /* per plan index: counted in s->failing */
    size_t failing;              /* cases with a failing verdict so far (baseline applied) */
    uint32_t timeouts_in_row;    /* workers the watchdog killed since a case last ended */
    char stopped[200];           /* why a stop rule ended the run, or "" */
    int retrying;                /* in --retry-unexpected's rounds: the stop rules are off */
    char retried[200];           /* --retry-cases left unexpected outcomes unretried: why, or "" */
    bitcts_skips skips;          /* --skips */
    size_t *unclaimed; /* --claimed: plan indices of the selection left out, not claimed */
    size_t unclaimed_count;
    bitcts_backend_caps caps; /* --claimed: the probe's claims, parsed */
} run_state;

/** Appends a record to results.jsonl (buffered: bitcts__run_log_flush writes it out). Takes
 * ownership of rec. */
void bitcts__run_log(run_state *s, json_t *rec);
/** Appends the "begin" record of plan index idx in the round (buffered). */
void bitcts__run_log_begin(run_state *s, size_t idx, uint32_t round);
/** Writes out the records appended since the last flush: once per round of the run loop, so
 * that a run killed at any moment loses at most the cases that ended in the round in flight
 * (--resume runs them again). */
void bitcts__run_log_flush(run_state *s);
/** Creates and marks the report folder, then opens the log (new, or for --resume: loads the
 * ended cases, drops a cut last line). */
int bitcts__run_open_log(run_state *s, char *err, size_t cap);
/** Checks that the report folder is new, empty or a bitcts report folder; writes nothing (a
 * run refused later leaves no trace). */
int bitcts__run_claim_folder(run_state *s, char *err, size_t cap);
/** Records a case result: baseline applied, logged, stored. Takes ownership of obj. */
void bitcts__run_record(run_state *s, size_t idx, uint32_t round, json_t *obj);
/** The same for a worker's result: `text` is the case object as the worker sent it, parsed into
 * obj and unchanged since (it is logged as it is, not dumped again), or NULL. */
void bitcts__run_record_text(run_state *s, size_t idx, uint32_t round, json_t *obj,
                             const char *text);
/** A result the worker could not send: crash, timeout, missing, internal error. */
void bitcts__run_synthesize(run_state *s, size_t idx, uint32_t round, int verdict,
                            const char *detail, double duration_ms, bitcts_sandbox *output);
/** The final result of each case (the rounds combined: a case that disagrees with itself is a
 * flake); assembles the report and writes the report folder; keeps it in s->report. */
int bitcts__run_write_report(run_state *s, char *err, size_t cap);
/** Counts a case's outcome for the stop rules (--max-fails, --max-timeouts) and the progress
 * line; sets s->stopped when a rule fires. */
void bitcts__run_note_outcome(run_state *s, size_t idx, const json_t *obj);
/** A worker the watchdog killed: one more timeout in a row (--max-timeouts). */
void bitcts__run_note_timeout(run_state *s);
/** Gives every selected case without a result in some round `not_run`, naming s->stopped. */
void bitcts__run_mark_not_run(run_state *s);
/** --retry-unexpected: runs the unexpected outcomes again, each in a fresh worker. */
void bitcts__run_retry_unexpected(run_state *s, void (*loop)(run_state *));
/** The final object of a case: its runs (every round that has one) combined, a case that
 * disagrees with itself being a flake, then the baseline. New reference, to read only: it may
 * be the stored result itself (shared, not copied). */
json_t *bitcts__run_final_result(run_state *s, size_t idx);
/** Reads --skips (bad input: err names FILE:LINE). */
int bitcts__run_load_skips(run_state *s, char *err, size_t cap);
/** Gives every selected case a skips line lists the verdict skipped (each round), unless it
 * already has a result (--resume). */
void bitcts__run_skip_listed(run_state *s);
/** --claimed: takes the cases the probe's claims exclude out of the selection (into
 * s->unclaimed). @return BITCTS_OK, BITCTS_E_OUT_OF_MEMORY or BITCTS_E_INVALID_ARGUMENT (the
 * backend claims no selected case). */
int bitcts__run_scope_claimed(run_state *s, char *err, size_t cap);
/** The conformance claim of a --claimed run (docs/report-schema.md "claims"), from the
 * report's case objects and what was left out. New reference, or NULL (out of memory). */
json_t *bitcts__run_claims_json(const run_state *s, const json_t *cases);
/** Tells the config's progress callback, at most every 0.1 s unless final. */
void bitcts__run_progress(run_state *s, int final);

/** The cases per batched call the config asks for (its default when 0). */
uint32_t bitcts__run_batch_cases(const bitcts_run_config *cfg);
/** Handles one channel line of slot w. */
void bitcts__slot_line(run_state *s, worker_slot *w, char *line);
/** Reads the slot's status page: its phase, since when, and its case. */
void bitcts__slot_observe(worker_slot *w);
/** The slot's worker is over (reaped): settles its current case, blames the right party, and
 * puts what did not run back in the queue. */
void bitcts__slot_finish(run_state *s, worker_slot *w);
/** Pushes a batch on the queue (it takes the batch's items). @return 0, or -1 (items freed). */
int bitcts__run_queue_push(run_state *s, run_batch b);
/** After the probe: whether the backend is a device backend (its identity's device names its
 * device memory), and the jobs for one when --jobs was not given. */
void bitcts__run_schedule(run_state *s);
/** Queues every selected case of every round that has no result yet, in plan order. */
void bitcts__run_fill_queue(run_state *s);
/** Puts cases back in the queue, split so that free workers can share them. */
void bitcts__run_requeue(run_state *s, const size_t *items, size_t count, uint32_t round,
                         uint32_t attempts);
/** The same for cases that are to run one call each, without batching, when `solo` (what
 * happened to their batched call) is not NULL. */
void bitcts__run_requeue_as(run_state *s, const size_t *items, size_t count, uint32_t round,
                            uint32_t attempts, const char *solo);

#endif
