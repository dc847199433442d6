/* SPDX-License-Identifier: MIT */
/* Shrinking a failing case (docs/explore.md): a greedy search for a smaller case that fails the
 * same way (the same failure signature), trying candidates in a fixed order, simplest first:
 * fewer dims, smaller sizes, simpler layouts (packed before padded before permuted; not in
 * place; no spare bytes), fewer distinct values, values closer to zero. Candidates run in
 * isolated workers through the runner, judged as any case. Deterministic for a deterministic
 * backend; bounded by a time budget. Thread-safety: one shrink at a time per process. */
#ifndef BITCTS_HARNESS_SHRINK_H
#define BITCTS_HARNESS_SHRINK_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t */

#include "case_plan.h" /* bitcts_case_key, bitcts_case_data */
#include "runner.h"    /* bitcts_run_config */

typedef struct bitcts_shrink_options {
    const bitcts_run_config *run; /* backend, options, seed, jobs, timeout; nothing is written */
    double budget_s;              /* wall time for this case */
    unsigned stop_after;          /* 0; N: a deliberately broken shrinker for the tests, which
                                   * stops after N steps as if it had found a local minimum */
} bitcts_shrink_options;

typedef struct bitcts_shrink_result {
    bitcts_case_key key;   /* the smallest case's key (id "<original id>.shrunk") */
    bitcts_case_data data; /* and its data; owned */
    json_t *result;        /* its case object, as the judge gave it; owned */
    char signature[96];    /* the failure signature kept: "fail:mismatch", "crash:signal 11" */
    uint64_t elements_before, elements_after;
    uint32_t rank_before, rank_after;
    unsigned steps;      /* candidates accepted */
    unsigned candidates; /* candidates run */
    int exhausted;       /* 1: no candidate kept the signature; 0: the budget ran out first */
} bitcts_shrink_result;

/** The failure signature of a case object: its verdict and the kind of its failure, or "" for
 * a verdict that is not shrunk (pass, recorded, not_supported, flake, a negative case...). */
const char *bitcts_shrink_signature(const json_t *case_result, char *out, size_t cap);

/** Shrinks `failing` (the data of `key`, whose judged object is `failing_result`).
 * @return BITCTS_OK with out filled (the original itself when nothing smaller fails the same
 *         way); BITCTS_E_INVALID_ARGUMENT when the case has no signature; or the runner's
 *         status, with err. */
int bitcts_shrink_case(const bitcts_shrink_options *o, const bitcts_case_key *key,
                       const bitcts_case_data *failing, const json_t *failing_result,
                       bitcts_shrink_result *out, char *err, size_t cap);
void bitcts_shrink_result_free(bitcts_shrink_result *r);

/* A repro's eval line is never longer than this: past BITCTS_SHRINK_INLINE_MAX characters with
 * its values inline, the values go to files the line names. */
#define BITCTS_SHRINK_REPRO_MAX 8192u
#define BITCTS_SHRINK_INLINE_MAX 2048u

/** The name of input `input` on eval's command line: "input" (unary), "a" or "b". Static. */
const char *bitcts_shrink_role(const bitcts_op_desc *d, uint32_t input);

/** The `bitcts eval` command that computes the case's reference result: operator, types,
 * sizes, every buffer element in memory order (0x raw bits) and the strides. *out is malloc'd.
 * @return BITCTS_OK or BITCTS_E_OUT_OF_MEMORY. */
int bitcts_shrink_eval_command(const bitcts_case_data *data, char **out);

/** The repro line of a shrunk case: bitcts_shrink_eval_command's line when it is at most
 * BITCTS_SHRINK_INLINE_MAX characters; else each input's buffer is written to
 * `vectors_dir`/<role>.bin (raw bits in memory order, written atomically, the folder created)
 * and the line names those files as `--a @FILE` (eval reads them), with sizes and strides as
 * before. Never longer than BITCTS_SHRINK_REPRO_MAX. *out is malloc'd.
 * @return BITCTS_OK; BITCTS_E_IO (a file, with err); BITCTS_E_INVALID_ARGUMENT (the folder's
 *         path makes the line too long, with err); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_shrink_repro_command(const bitcts_case_data *data, const char *vectors_dir, char **out,
                                char *err, size_t cap);

#endif
