/* SPDX-License-Identifier: MIT */
/* Exhaustive sweeps of a backend (`bitcts sweep`): every value (unary operators, up to 32-bit
 * types) or every pair of values (binary operators, up to 16-bit types) through the backend in
 * chunks of 2^24 elements (a backend without device memory gets a chunk in calls of 2^16, each
 * checked while in the cache), every element checked against the reference. The backend runs in a
 * sandboxed child under a watchdog (harness/sandbox/supervise.h); the child sends the counts, times
 * and the digest of the outputs. Every call is handed guarded buffers (harness/sandbox/guard_set.h)
 * and a lent description, and is checked when it returns: guards, description, and (when the next
 * chunk is filled) the inputs; the output is poisoned so an element left unwritten fails. A
 * backend with the device-timing extension is run through it, so the device's own time is
 * reported apart from transfers and checking.
 * Thread-safety: one sweep at a time per process. */
#ifndef BITCTS_HARNESS_SWEEP_H
#define BITCTS_HARNESS_SWEEP_H

#include <jansson.h> /* json_t */
#include <signal.h>  /* sig_atomic_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint32_t, uint64_t */

#include "backend.h" /* bitcts_backend_options, bitcts_backend_spec */
#include "sandbox.h" /* bitcts_sandbox_status */

#define BITCTS_SWEEP_CHUNK_LOG2 24u

typedef struct bitcts_sweep_config {
    const char *backend_spec;
    bitcts_backend_options options;
    uint32_t op, type, out_type;
    uint32_t every;   /* 1: every chunk; N: chunks 0, N, 2N, ... only (a reduced sweep) */
    double timeout_s; /* deadline of one backend call (the harness's own work: 10 times that) */
    volatile sig_atomic_t *interrupted; /* set by a signal handler to stop; or NULL */
} bitcts_sweep_config;

typedef struct bitcts_sweep_result {
    uint64_t total;   /* elements of the whole sweep: values or pairs */
    uint64_t checked; /* elements run and checked (total unless every > 1) */
    uint64_t chunks, chunks_total;
    uint64_t mismatches;    /* asserted elements that differ */
    uint64_t first_bad;     /* the first of them (valid when mismatches > 0) */
    uint64_t oob;           /* shift elements with counts >= the width: recorded, not asserted */
    uint64_t oob_mask;      /* of those, the ones that match the mask policy */
    uint64_t oob_saturate;  /* and the saturate policy (0) */
    uint64_t failed_chunk;  /* the chunk the backend refused or whose calls broke what they were
                             * lent (status BITCTS_E_BACKEND_FAILED) */
    double seconds;         /* wall time in all */
    double backend_seconds; /* host clock around the backend's calls (transfers included) */
    double device_seconds;  /* device time of the executions (timing extension); < 0: none */
    double fill_seconds, check_seconds; /* the harness's own work */
    char digest[33]; /* XXH3-128 of the outputs, chunk after chunk; "" when none */
    json_t *backend; /* the backend's identity (report.json's "backend"); owned, or NULL */
    int refused;     /* the plugin host or instance_create refused the backend */
} bitcts_sweep_result;

/** Whether the operator and types can be swept, and how many elements that is.
 * @return BITCTS_OK or BITCTS_E_INVALID_ARGUMENT with the reason in err. */
int bitcts_sweep_check(const bitcts_sweep_config *cfg, uint64_t *total, char *err, size_t cap);

/** Runs the sweep in a supervised child. @return BITCTS_OK (the result says whether elements
 * differ); BITCTS_E_INVALID_ARGUMENT; the plugin host's or the backend's refusal to start
 * (out->refused; err says why); BITCTS_E_BACKEND_FAILED: the backend refused a chunk or a call
 * of a chunk wrote outside its buffers, changed its inputs or its lent description, or gave
 * another output when the chunk ran again (err, failed_chunk), or its process crashed, hung,
 * exited, stopped itself, left processes running or wrote on the harness's channel (err says
 * which, in which phase); BITCTS_E_INTERNAL: the child could not be started or sent something
 * unreadable. Release with bitcts_sweep_result_free. */
int bitcts_sweep_run(const bitcts_sweep_config *cfg, bitcts_sweep_result *out, char *err,
                     size_t cap);

/** The sweep as JSON: configuration, backend, counts, times, digest, and `error` (the text of a
 * failed run, or null). New reference, NULL when out of memory. */
json_t *bitcts_sweep_json(const bitcts_sweep_config *cfg, const bitcts_sweep_result *r,
                          const char *error);

void bitcts_sweep_result_free(bitcts_sweep_result *r);

/** The sandbox entry point of the sweep's child: arg is a bitcts__perf_job (perf_child.h) of a
 * bitcts_sweep_config. Sends, one line
 * each: S <status> <text> (the backend refused to start), I <identity json>, T <0|1> (device
 * timing), N <base> (a chunk begins), B <base> <status> <text> (the backend refused a chunk),
 * V <base> <text> (a call of that chunk broke what it was lent), R <counts, times, digest> (the
 * result). Never returns. */
void bitcts__sweep_child_main(void *arg, int chan, const char *nonce,
                              bitcts_sandbox_status *status);

#endif
