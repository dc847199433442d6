/* SPDX-License-Identifier: MIT */
/* The CPU backend's pool places its workers (backends/cpu/cpu_threads.c): with a CPU list,
 * worker i runs on cpus[i % count] only and the caller's thread keeps its own affinity; without
 * one, no worker is restricted. Linux only (elsewhere the list is ignored): skips otherwise. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* pthread_getaffinity_np, CPU_COUNT */
#endif

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "cpu_threads.h"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>

#define POOL_THREADS 4u

typedef struct seen {
    int count[POOL_THREADS]; /* CPUs each worker may run on */
    int first[POOL_THREADS]; /* the lowest of them */
} seen;

static void record(void *arg, uint32_t index, uint32_t count, unsigned char *scratch)
{
    (void)count;
    (void)scratch;
    seen *s = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        return;
    }
    s->count[index] = CPU_COUNT(&set);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &set)) {
            s->first[index] = c;
            break;
        }
    }
}

/* The CPUs this process may use: the pool's list is drawn from them. */
static int allowed(int *cpus, int cap)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE && n < cap; ++c) {
            if (CPU_ISSET(c, &set)) {
                cpus[n++] = c;
            }
        }
    }
    return n;
}

int main(void)
{
    int mine[2];
    const int n = allowed(mine, 2);
    if (n < 1) {
        return 77;
    }
    const uint32_t cpus[2] = {(uint32_t)mine[0], (uint32_t)mine[n - 1]};
    char err[256];
    bitcts__cpu_pool *pool = NULL;
    CHECK(bitcts__cpu_pool_create(POOL_THREADS, 64, cpus, 2, &pool, err, sizeof err) == 0);
    seen s = {{0}, {0}};
    if (pool != NULL) {
        bitcts__cpu_pool_run(pool, POOL_THREADS, record, &s);
        bitcts__cpu_pool_destroy(pool);
    }
    for (uint32_t i = 1; i < POOL_THREADS; ++i) { /* worker i on cpus[i % 2] alone */
        CHECK_EQ_U64(s.count[i], 1);
        CHECK_EQ_U64(s.first[i], cpus[i % 2]);
    }
    int all[CPU_SETSIZE];
    const int total = allowed(all, CPU_SETSIZE);
    CHECK_EQ_U64(s.count[0], total); /* the caller's thread is left alone */
    seen free_run = {{0}, {0}};
    CHECK(bitcts__cpu_pool_create(2, 64, NULL, 0, &pool, err, sizeof err) == 0);
    if (pool != NULL) {
        bitcts__cpu_pool_run(pool, 2, record, &free_run);
        bitcts__cpu_pool_destroy(pool);
    }
    CHECK_EQ_U64(free_run.count[1], total);
    return check_exit();
}
#else
int main(void)
{
    return 77;
}
#endif
