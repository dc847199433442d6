/* SPDX-License-Identifier: MIT */
/* A worker's cases generated ahead: threads of the worker build the cases of its job, in job
 * order, and their expected outputs (both shift policies where the case is recorded), while the
 * worker's own thread hands earlier ones to the backend. Used where the backend's calls wait on a
 * device (a device backend, or one that batches): the harness's own per-case work then overlaps
 * the waits. Generation depends on the suite seed and the case alone, so what the thread builds
 * is byte for byte what the worker would have built; a case it could not build (out of memory) is
 * built by the worker as before. The threads run harness code only, with every signal blocked
 * (process signals reach the worker's thread, as without it), and never touches a buffer the
 * backend is lent. */
#ifndef BITCTS_WORKER_PREFETCH_H
#define BITCTS_WORKER_PREFETCH_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t */

#include "case_plan.h" /* bitcts_plan, bitcts_case_data */

typedef struct bitcts_prefetch bitcts_prefetch;

/** A case built ahead: its data and expected outputs, owned by the taker. */
typedef struct bitcts_prefetched {
    bitcts_case_data data;
    uint8_t *expected;      /* the saturate policy's output */
    uint8_t *expected_mask; /* recorded cases: the mask policy's, else NULL */
} bitcts_prefetched;

/** The most threads one prefetcher starts. */
#define BITCTS_PREFETCH_THREADS_MAX 8u

/** Starts `threads` threads (1 to BITCTS_PREFETCH_THREADS_MAX; fewer when the system gives
 * fewer) over job positions 0..count-1 (plan indices `indices`), each building the next position
 * no thread has taken. At most BITCTS_PREFETCH_AHEAD cases and about BITCTS_PREFETCH_BYTES (and
 * one case a thread) are held ahead of the taker.
 * @return the prefetcher, or NULL (no memory, or no thread): the worker builds every case. */
bitcts_prefetch *bitcts_prefetch_start(const bitcts_plan *plan, uint64_t seed,
                                       const size_t *indices, size_t count, unsigned threads);

/** The threads it runs (0 for NULL). */
unsigned bitcts_prefetch_threads(const bitcts_prefetch *p);

/** The case at job position `pos`, waiting for the thread to reach it. Positions are taken in
 * increasing order; those skipped are dropped. @return 1 with `out` filled (free it with
 * bitcts_prefetched_free), or 0 when the thread did not build it (an invalid case, a case taken
 * before, no memory): the caller builds it. */
int bitcts_prefetch_take(bitcts_prefetch *p, size_t pos, bitcts_prefetched *out);

void bitcts_prefetched_free(bitcts_prefetched *c);

/** Stops the thread, waits for it and frees what it holds. NULL is allowed. */
void bitcts_prefetch_stop(bitcts_prefetch *p);

#endif
