/* SPDX-License-Identifier: MIT */
/* A small pthread pool owned by one CPU backend instance: threads - 1 workers wait on a
 * condition variable, and the calling thread takes part as worker 0. Each worker has its own
 * 64-byte aligned scratch. Thread-safety: a pool is used by one caller thread at a time (the
 * instance's rule); pool_run returns only when every worker has finished the task. */
#ifndef BITCTS_CPU_CPU_THREADS_H
#define BITCTS_CPU_CPU_THREADS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, int32_t */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS__CPU_MAX_THREADS 256u

typedef struct bitcts__cpu_pool bitcts__cpu_pool;

/** The work of one worker: index in [0, count), scratch private to it. */
typedef void bitcts__cpu_task_fn(void *arg, uint32_t index, uint32_t count, unsigned char *scratch);

/** Online processors (at least 1, at most BITCTS__CPU_MAX_THREADS). */
uint32_t bitcts__cpu_threads_default(void);

/** Starts threads - 1 workers and allocates threads scratch areas. With cpu_count > 0, worker i
 * (1 <= i < threads) runs on CPU cpus[i % cpu_count] only (Linux; elsewhere the list is ignored);
 * worker 0 is the caller's thread, whose affinity stays the caller's.
 * @return BITCTS_ABI_OK, BITCTS_ABI_E_OUT_OF_MEMORY, or BITCTS_ABI_E_BACKEND_FAILED (a thread
 *         could not be started; the detail goes to err). */
int32_t bitcts__cpu_pool_create(uint32_t threads, size_t scratch_bytes, const uint32_t *cpus,
                                uint32_t cpu_count, bitcts__cpu_pool **out, char *err,
                                size_t err_cap);

/** Stops and joins the workers, frees the pool. Accepts NULL. */
void bitcts__cpu_pool_destroy(bitcts__cpu_pool *pool);

/** Number of threads (workers + caller). */
uint32_t bitcts__cpu_pool_threads(const bitcts__cpu_pool *pool);

/** Runs fn on count workers (1 <= count <= threads) and waits for all of them. */
void bitcts__cpu_pool_run(bitcts__cpu_pool *pool, uint32_t count, bitcts__cpu_task_fn *fn,
                          void *arg);

#ifdef __cplusplus
}
#endif
#endif
