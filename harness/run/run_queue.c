/* SPDX-License-Identifier: MIT */
/* The run's queue of batches: a stack that pops cases in plan order, filled with what a run
 * (or a resumed one) has still to do, and refilled with what a worker could not finish, split so
 * that free workers share it. A device backend (its instance has device memory of its own) gets
 * one batch a worker, and at most BITCTS_RUN_DEVICE_JOBS workers unless --jobs says otherwise:
 * each worker pays for its own instance, device and pipelines, and the device serves one
 * process's submissions at a time. */
#include <stdlib.h> /* malloc */
#include <string.h> /* memcpy */
#include <unistd.h> /* sysconf */

#include "run_state.h"
#include "worker_prefetch.h" /* BITCTS_PREFETCH_THREADS_MAX */

int bitcts__run_queue_push(run_state *s, run_batch b)
{
    if (s->queue_count == s->queue_cap) {
        const size_t cap = s->queue_cap != 0 ? 2 * s->queue_cap : 64;
        run_batch *grown = realloc(s->queue, cap * sizeof *grown);
        if (grown == NULL) {
            free(b.items);
            free(b.solo);
            return -1;
        }
        s->queue = grown;
        s->queue_cap = cap;
    }
    s->queue[s->queue_count++] = b;
    return 0;
}

void bitcts__run_schedule(run_state *s)
{
    const json_t *device = json_object_get(s->backend_json, "device");
    s->device = json_object_get(device, "device_memory_mib") != NULL;
    if (s->device && s->cfg->jobs_auto && s->jobs > BITCTS_RUN_DEVICE_JOBS) {
        s->jobs = BITCTS_RUN_DEVICE_JOBS;
    }
    /* A worker whose backend waits on a device builds its cases ahead on the cores the jobs
     * leave: one thread each on a machine with a core a job, three for 4 jobs on 16 cores. */
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long spare = s->jobs > 0 && cores > 0 ? cores / s->jobs - 1 : 1;
    s->prefetch_threads = spare < 1                                   ? 1u
                          : spare > (long)BITCTS_PREFETCH_THREADS_MAX ? BITCTS_PREFETCH_THREADS_MAX
                                                                      : (unsigned)spare;
}

/* The batch size a round's mode fixes, or 0 when the batches are sized by the jobs. */
static size_t fixed_batch(const run_state *s, uint32_t round)
{
    if (s->cfg->isolate_case || round % 2 == 1) { /* odd --repeat rounds: a fresh worker each */
        return 1;
    }
    if (s->cfg->stop_at > 0) { /* time-boxed: small batches end soon after the deadline */
        return 8;
    }
    return 0;
}

static size_t batch_size(const run_state *s, size_t todo, uint32_t round)
{
    const size_t fixed = fixed_batch(s, round);
    if (fixed != 0) {
        return fixed;
    }
    /* About four batches a job: enough for the jobs to even out at the end, few enough that
     * a backend whose start is slow starts few workers; one a job for a device backend. */
    const size_t per_job = todo / ((size_t)s->jobs * (s->device ? 1 : 4)) + 1;
    return per_job < 16 ? 16 : per_job > 4096 ? 4096 : per_job;
}

static void push_items(run_state *s, const size_t *items, size_t count, size_t size, uint32_t round,
                       uint32_t attempts, const char *solo)
{
    /* Pushed back to front: the stack pops them in plan order. */
    for (size_t end = count; end > 0;) {
        const size_t start = end > size ? end - size : 0;
        run_batch b = {.count = end - start, .round = round, .attempts = attempts};
        b.items = malloc(b.count * sizeof *b.items);
        b.solo = solo != NULL ? strdup(solo) : NULL;
        if (b.items != NULL && (solo == NULL || b.solo != NULL)) {
            memcpy(b.items, items + start, b.count * sizeof *b.items);
            bitcts__run_queue_push(s, b);
        } else {
            free(b.items);
            free(b.solo);
        }
        end = start;
    }
}

void bitcts__run_requeue_as(run_state *s, const size_t *items, size_t count, uint32_t round,
                            uint32_t attempts, const char *solo)
{
    if (count == 0) {
        return;
    }
    /* Split so that every worker can take a share: cases behind a hang never wait in line. */
    const size_t share = (count + (size_t)s->jobs - 1) / (size_t)s->jobs;
    push_items(s, items, count, attempts > 0 ? count : share, round, attempts, solo);
}

void bitcts__run_requeue(run_state *s, const size_t *items, size_t count, uint32_t round,
                         uint32_t attempts)
{
    bitcts__run_requeue_as(s, items, count, round, attempts, NULL);
}

/* A device backend's round: one batch a job (more when a batch would pass the 4096 cases
 * batch_size allows), each dealt blocks of the round in turn, BITCTS_RUN_DEAL_BLOCKS blocks a
 * batch: the plan's order groups costly cases (an operator's widest types, the negative cases
 * at its end), so a quarter in one piece kept one worker busy long after the others; dealt,
 * every batch holds a like mix, and neighbouring cases (sharing pipelines) stay together. */
#define BITCTS_RUN_DEAL_BLOCKS 8u

static void deal_items(run_state *s, const size_t *items, size_t count, size_t size, uint32_t round)
{
    if (count == 0) {
        return;
    }
    const size_t batches = (count + size - 1) / size;
    const size_t blocks = batches * BITCTS_RUN_DEAL_BLOCKS;
    const size_t block = (count + blocks - 1) / blocks;
    for (size_t b = batches; b-- > 0;) { /* a stack: the first batch is pushed last */
        run_batch batch = {.round = round};
        for (size_t start = b * block; start < count; start += batches * block) {
            batch.count += count - start < block ? count - start : block;
        }
        batch.items = batch.count > 0 ? malloc(batch.count * sizeof *batch.items) : NULL;
        if (batch.items == NULL) {
            continue;
        }
        size_t used = 0;
        for (size_t start = b * block; start < count; start += batches * block) {
            const size_t n = count - start < block ? count - start : block;
            memcpy(batch.items + used, items + start, n * sizeof *items);
            used += n;
        }
        bitcts__run_queue_push(s, batch);
    }
}

void bitcts__run_fill_queue(run_state *s)
{
    size_t *todo = malloc((s->selected_count + 1) * sizeof *todo);
    if (todo == NULL) {
        return;
    }
    for (uint32_t r = s->rounds; r-- > 0;) { /* a stack: the last round is pushed first */
        size_t n = 0;
        for (size_t i = 0; i < s->selected_count; ++i) {
            if (s->results[r][s->selected[i]] == NULL) {
                todo[n++] = s->selected[i];
            }
        }
        if (s->device && fixed_batch(s, r) == 0) {
            deal_items(s, todo, n, batch_size(s, n, r), r);
        } else {
            push_items(s, todo, n, batch_size(s, n, r), r, 0, NULL);
        }
    }
    free(todo);
}

uint32_t bitcts__run_batch_cases(const bitcts_run_config *cfg)
{
    return cfg->batch_cases != 0 ? cfg->batch_cases : BITCTS_RUN_BATCH_CASES;
}
