/* SPDX-License-Identifier: MIT */
/* The instance's thread pool. Workers sleep on a condition variable between tasks; a task is
 * published with a generation counter so a worker never runs the same task twice, and the
 * caller waits until the pending count drops to zero. Workers only start at instance creation,
 * never from a constructor. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* sysconf, posix_memalign */
#endif
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET: placing a worker on one CPU */
#endif

#include "cpu_threads.h"

#include <pthread.h> /* pthread_create, pthread_cond_wait */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, free, posix_memalign */
#include <string.h>  /* strerror */
#include <unistd.h>  /* sysconf */

#include "bitcts/bitcts_plugin.h" /* BITCTS_ABI_* status values */

typedef struct pool_worker {
    struct bitcts__cpu_pool *pool;
    uint32_t index;
    int cpu; /* the one CPU it runs on, or -1: any */
    pthread_t thread;
} pool_worker;

struct bitcts__cpu_pool {
    uint32_t threads;
    uint32_t started; /* workers running */
    unsigned char *scratch;
    size_t scratch_bytes;
    pool_worker *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t done;
    uint64_t generation;
    uint32_t active;  /* workers taking part in the current task */
    uint32_t pending; /* workers of the current task not yet finished */
    int stop;
    bitcts__cpu_task_fn *fn;
    void *arg;
};

uint32_t bitcts__cpu_threads_default(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) {
        return 1;
    }
    return n > (long)BITCTS__CPU_MAX_THREADS ? BITCTS__CPU_MAX_THREADS : (uint32_t)n;
}

static void *pool_worker_main(void *arg)
{
    pool_worker *self = arg;
    bitcts__cpu_pool *pool = self->pool;
    uint64_t seen = 0;
#ifdef __linux__
    if (self->cpu >= 0 && self->cpu < CPU_SETSIZE) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(self->cpu, &set);
        (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* a hint: may fail */
    }
#endif
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->stop && pool->generation == seen) {
            pthread_cond_wait(&pool->wake, &pool->lock);
        }
        if (pool->stop) {
            break;
        }
        seen = pool->generation;
        if (self->index >= pool->active) {
            continue;
        }
        bitcts__cpu_task_fn *fn = pool->fn;
        void *task_arg = pool->arg;
        const uint32_t count = pool->active;
        pthread_mutex_unlock(&pool->lock);
        fn(task_arg, self->index, count, pool->scratch + self->index * pool->scratch_bytes);
        pthread_mutex_lock(&pool->lock);
        if (--pool->pending == 0) {
            pthread_cond_signal(&pool->done);
        }
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int32_t bitcts__cpu_pool_create(uint32_t threads, size_t scratch_bytes, const uint32_t *cpus,
                                uint32_t cpu_count, bitcts__cpu_pool **out, char *err,
                                size_t err_cap)
{
    *out = NULL;
    bitcts__cpu_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) {
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    pool->threads = threads;
    pool->scratch_bytes = (scratch_bytes + 63u) & ~(size_t)63u;
    void *scratch = NULL;
    pool->workers = calloc(threads, sizeof *pool->workers);
    if (pool->workers == NULL || posix_memalign(&scratch, 64, pool->scratch_bytes * threads) != 0) {
        free(pool->workers);
        free(pool);
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    pool->scratch = scratch;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    for (uint32_t i = 1; i < threads; ++i) {
        pool->workers[i].pool = pool;
        pool->workers[i].index = i;
        pool->workers[i].cpu = cpu_count > 0 ? (int)cpus[i % cpu_count] : -1;
        const int rc =
            pthread_create(&pool->workers[i].thread, NULL, pool_worker_main, &pool->workers[i]);
        if (rc != 0) {
            snprintf(err, err_cap, "cannot start worker thread %u of %u: %s", i, threads,
                     strerror(rc));
            bitcts__cpu_pool_destroy(pool);
            return BITCTS_ABI_E_BACKEND_FAILED;
        }
        pool->started = i;
    }
    *out = pool;
    return BITCTS_ABI_OK;
}

void bitcts__cpu_pool_destroy(bitcts__cpu_pool *pool)
{
    if (pool == NULL) {
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t i = 1; i <= pool->started; ++i) {
        pthread_join(pool->workers[i].thread, NULL);
    }
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    free(pool->scratch);
    free(pool->workers);
    free(pool);
}

uint32_t bitcts__cpu_pool_threads(const bitcts__cpu_pool *pool)
{
    return pool->threads;
}

void bitcts__cpu_pool_run(bitcts__cpu_pool *pool, uint32_t count, bitcts__cpu_task_fn *fn,
                          void *arg)
{
    if (count <= 1 || pool->threads <= 1) {
        fn(arg, 0, 1, pool->scratch);
        return;
    }
    count = count < pool->threads ? count : pool->threads;
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->active = count;
    pool->pending = count - 1;
    ++pool->generation;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    fn(arg, 0, count, pool->scratch);
    pthread_mutex_lock(&pool->lock);
    while (pool->pending > 0) {
        pthread_cond_wait(&pool->done, &pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
}
