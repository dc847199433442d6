/* SPDX-License-Identifier: MIT */
/* Shrinking the failures of a report (docs/explore.md): `bitcts explore` and `bitcts run
 * --shrink`. Each failing case with a failure signature is rebuilt from its id (a plan case or an
 * explored one), shrunk (shrink.h) and written as a vector export that `bitcts check` reads,
 * beside a repro file: OUT_DIR/<id>/manifest.json with the original and "<id>.shrunk",
 * OUT_DIR/<id>/cases/..., OUT_DIR/<id>/repro.txt and OUT_DIR/<id>/shrink.json.
 * One case of each distinct signature first, in report order, then the others.
 * Thread-safety: one call at a time per process (it runs the runner). */
#ifndef BITCTS_HARNESS_SHRINK_FAILURES_H
#define BITCTS_HARNESS_SHRINK_FAILURES_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t */

#include "runner.h" /* bitcts_run_config */

typedef struct bitcts_shrunk {
    char id[96];
    char signature[96];
    int status; /* BITCTS_OK, or why this case was not shrunk (error) */
    char error[512];
    uint64_t elements_before, elements_after;
    uint32_t rank_before, rank_after;
    unsigned steps, candidates;
    int exhausted; /* 1: a local minimum; 0: its time ran out first */
    double seconds;
    char *eval_command; /* `bitcts eval ...` of the shrunk case; owned */
    char *run_command;  /* `bitcts run ... --filter <id>` of the original; owned */
    char folder[4200];  /* OUT_DIR/<id> */
    char saved[4400];   /* the regression case file written or kept (save_dir), or "" */
} bitcts_shrunk;

/** Called after each case is shrunk (for progress lines); may be NULL. */
typedef void (*bitcts_shrunk_fn)(void *user, const bitcts_shrunk *s, size_t done, size_t total);

typedef struct bitcts_shrink_failures_options {
    const bitcts_run_config *run; /* the run whose report it is (backend, seed, jobs...) */
    const char *out_dir;          /* created if missing; an earlier shrink's folders replaced */
    size_t max_cases;             /* at most this many cases shrunk (0: every one) */
    double budget_s;              /* wall time for all of them */
    unsigned stop_after;          /* 0; N: bitcts_shrink_options.stop_after (tests only) */
    bitcts_shrunk_fn on_shrunk;
    void *user;
    const char *save_dir; /* each shrunk case also kept there as a regression case file
                           * (regress_dir.h); NULL: not */
} bitcts_shrink_failures_options;

/** Shrinks the failures of `report` (a validated report of o->run).
 * @param out [out] an array of *count entries (malloc'd; free with bitcts_shrunk_free), one
 *        per case tried, each with its own status.
 * @return BITCTS_OK (also when some cases could not be shrunk: see their status);
 *         BITCTS_E_IO (out_dir cannot be made, err names it); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_shrink_failures(const bitcts_shrink_failures_options *o, const json_t *report,
                           bitcts_shrunk **out, size_t *count, char *err, size_t cap);
void bitcts_shrunk_free(bitcts_shrunk *list, size_t count);

#endif
