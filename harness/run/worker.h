/* SPDX-License-Identifier: MIT */
/* The worker: the child process (harness/sandbox/sandbox.h) in which a backend is loaded and
 * called. Its phase is on the shared status page, so that the parent knows at every moment which
 * phase a death or a hang belongs to: L  loading the backend (dlopen, constructors, negotiation) I
 * instance_create Q  the capability and info queries B  a case begins (generation and the
 * reference), with its index P  the backend is called for it (the watchdog times from here) C  the
 * backend returned; checking D  instance_destroy and plugin_shutdown X  done; the process exits and
 * its results on the channel, one line each (the sandbox adds the nonce): S <status> <text>  the
 * plugin host refused the backend (a bad plugin, not a crash) Y <claims>         (probe) the claims
 * that decide verdicts (bitcts_backend_claims_text), which every later worker's instance must
 * repeat R <json>           (probe) the backend's identity and capabilities E <index> <json>   the
 * case ended with this report.json case object O <index> <text>   the harness found no memory for
 * the case at hand before it reached the backend: the earlier case <index>, whose calls took it, is
 * charged; the case at hand goes back to the queue (no E line) F <index> <text>   a fatal signal,
 * with what the faulting address was (from the handler) Thread-safety: runs alone in its process.
 */
#ifndef BITCTS_HARNESS_WORKER_H
#define BITCTS_HARNESS_WORKER_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t */

#include "backend.h"   /* bitcts_backend_spec */
#include "case_plan.h" /* bitcts_plan */
#include "sandbox.h"   /* bitcts_sandbox_status */

/** What a worker is started with; it reads it after the fork (the parent's memory). */
typedef struct bitcts_worker_job {
    const bitcts_plan *plan;
    const bitcts_backend_spec *backend;
    uint64_t seed;
    const char *repro_options; /* " --backend-option 'k=v'"..., for the repro line */
    int probe;                 /* 1: load, create, query, send Y and R; then the first batch
                                * (await_batch), or destroy: no case */
    int await_batch;           /* a probe: after R, its first batch comes on standard input
                                * (bitcts_worker_batch_encode); end of input: none */
    const char *claims;        /* the probe's Y text, or NULL: compared with this instance's */
    const size_t *indices;     /* plan indices to run, in order */
    size_t count;
    uint32_t batch_cases;      /* cases per batched call when the backend offers
                                * bitcts_batch_execute_v1; 0 or 1: one call per case */
    int device;                /* the backend has device memory of its own: its calls wait on it */
    unsigned prefetch_threads; /* threads that build a device or batching backend's cases ahead
                                * (0 or 1: one) */
} bitcts_worker_job;

/** The probe's process kept as the first worker (harness/run/runner.c): the batch a probe with
 * await_batch reads after its R line, in one message: this head, `count` plan indices (uint32_t,
 * host order) and the digest (bitcts_digest_bytes, 32 hex digits) of both. The worker takes a
 * message that is short, malformed or out of the plan for none (a thread the backend left
 * running may read the same descriptor) and ends as a probe does. */
typedef struct bitcts_worker_batch_head {
    uint32_t magic; /* BITCTS_WORKER_BATCH_MAGIC */
    uint32_t count; /* 1 .. the plan's cases */
    uint32_t batch_cases;
    uint32_t device;
    uint32_t prefetch_threads;
    uint32_t reserved; /* 0 */
} bitcts_worker_batch_head;
#define BITCTS_WORKER_BATCH_MAGIC 0x62637462u /* "btcb" */

/** The message for `job` (its indices, count, batch_cases, device, prefetch_threads), malloc'd,
 * *size bytes; NULL when out of memory or count is 0 or above UINT32_MAX. */
unsigned char *bitcts_worker_batch_encode(const bitcts_worker_job *job, size_t *size);

/** The sandbox entry point: arg is a bitcts_worker_job. Never returns. */
void bitcts_worker_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status);

/** `bitcts debug`: the job's cases (probe 0) run here, in the calling process, exactly as a
 * worker runs them, but with no child process, no watchdog and no fault handler, so that a
 * debugger stops where the backend faults. A crash or a hang is the process's own.
 * @param out [out] the report.json case object of the last case run.
 * @return BITCTS_OK; or, with err: BITCTS_E_PLUGIN_LOAD (the backend did not start),
 *         BITCTS_E_INTERNAL (no result). */
int bitcts_worker_debug(const bitcts_worker_job *job, json_t **out, char *err, size_t cap);

/** Why the claims exclude a valid case (its operator, a type, its rank, in place), or NULL:
 * what makes a worker's case not_supported, and what `run --claimed` leaves out. */
const char *bitcts__run_unclaimed_reason(const bitcts_backend_caps *caps, const bitcts_case_key *k,
                                         int in_place, char *buf, size_t cap);

#endif
