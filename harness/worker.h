/* SPDX-License-Identifier: MIT */
/* The worker: runs a batch of cases in a child process and reports each over a pipe, so that
 * a crash or a hang in the backend costs one case, never the run. Protocol, one line each:
 *   B <index>          the case begins (generation and the reference)
 *   P <index>          the backend is called now (the watchdog times from here)
 *   C <index>          the backend returned; checking
 *   E <index> <json>   the case ended with this report.json case object
 * Thread-safety: runs alone in its process. */
#ifndef BITCTS_HARNESS_WORKER_H
#define BITCTS_HARNESS_WORKER_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

#include "backend.h"   /* bitcts_backend */
#include "case_plan.h" /* bitcts_plan */

typedef struct bitcts_worker_ctx {
    const bitcts_plan *plan;
    const bitcts_backend *backend;
    uint64_t seed;
    const char *backend_spec;  /* as given to --backend, for the repro line */
    const char *repro_options; /* " --backend-option k=v" ... or "" */
    int fd;                    /* write end of the pipe to the parent */
} bitcts_worker_ctx;

/** Runs the cases in order, reporting each. Returns when the batch is done. */
void bitcts_worker_run(const bitcts_worker_ctx *ctx, const size_t *indices, size_t count);

/** The ABI view of a description: tensors pointing into `desc`'s arrays. */
void bitcts_worker_abi_desc(const bitcts_op_desc *desc, bitcts_abi_tensor tensors[3],
                            bitcts_abi_operator_desc *out);

#endif
