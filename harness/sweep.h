/* SPDX-License-Identifier: MIT */
/* Exhaustive sweeps of a backend (`bitcts sweep`): every value (unary operators, up to 32-bit
 * types) or every pair of values (binary operators, up to 16-bit types) through the backend in
 * chunks, every element checked against the reference. Thread-safety: one sweep at a time. */
#ifndef BITCTS_HARNESS_SWEEP_H
#define BITCTS_HARNESS_SWEEP_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, uint64_t */

#include "backend.h" /* bitcts_backend_options */

typedef struct bitcts_sweep_config {
    const char *backend_spec;
    bitcts_backend_options options;
    uint32_t op, type, out_type;
} bitcts_sweep_config;

typedef struct bitcts_sweep_result {
    uint64_t total;        /* elements: values or pairs */
    uint64_t mismatches;   /* asserted elements that differ */
    uint64_t first_bad;    /* the first of them (valid when mismatches > 0) */
    uint64_t oob;          /* shift elements with counts >= the width: recorded, not asserted */
    uint64_t oob_mask;     /* of those, the ones that match the mask policy */
    uint64_t oob_saturate; /* and the saturate policy (0) */
    uint64_t failed_chunk; /* the chunk the backend refused (status BITCTS_E_BACKEND_FAILED) */
    double seconds;        /* in all */
    double backend_seconds;
} bitcts_sweep_result;

/** Whether the operator and types can be swept, and how many elements that is.
 * @return BITCTS_OK or BITCTS_E_INVALID_ARGUMENT with the reason in err. */
int bitcts_sweep_check(const bitcts_sweep_config *cfg, uint64_t *total, char *err, size_t cap);

/** Runs the sweep. @return BITCTS_OK (the result says whether elements differ);
 * BITCTS_E_INVALID_ARGUMENT; the backend's open or instance status; BITCTS_E_BACKEND_FAILED (a
 * chunk was refused: err and failed_chunk say which); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_sweep_run(const bitcts_sweep_config *cfg, bitcts_sweep_result *out, char *err,
                     size_t cap);

#endif
