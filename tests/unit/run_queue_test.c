/* SPDX-License-Identifier: MIT */
/* The run's batches (harness/run/run_queue.c): a host backend gets about four batches a job, as
 * before; a device backend (the probe's identity names its device memory) gets one batch a job,
 * and at most BITCTS_RUN_DEVICE_JOBS jobs when --jobs was not given, but exactly the jobs asked
 * for when it was; --isolate case keeps one case a batch for both. A device backend's batches
 * are dealt: each holds blocks from the whole round (the first eighth of the plan to the last),
 * of sizes within a block of each other, every case once and in plan order within a batch. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "run_state.h"

#define CASES 12024u

typedef struct fixture {
    bitcts_run_config cfg;
    run_state s;
    json_t *round0[CASES];
    json_t **results[1];
    size_t selected[CASES];
} fixture;

/* A run of CASES cases, none done, `jobs` jobs (jobs_auto: --jobs not given), after a probe
 * whose identity is `identity` (JSON text). */
static void setup(fixture *f, int jobs, int jobs_auto, const char *identity)
{
    memset(f, 0, sizeof *f);
    f->cfg.jobs = jobs;
    f->cfg.jobs_auto = jobs_auto;
    f->s.cfg = &f->cfg;
    f->s.jobs = jobs;
    f->s.rounds = 1;
    f->results[0] = f->round0;
    f->s.results = f->results;
    for (size_t i = 0; i < CASES; ++i) {
        f->selected[i] = i;
    }
    f->s.selected = f->selected;
    f->s.selected_count = CASES;
    f->s.backend_json = json_loads(identity, 0, NULL);
    CHECK(f->s.backend_json != NULL);
}

/* Schedules and fills the queue; returns the number of batches, and checks that they hold
 * every case once: in plan order as the stack pops them (a host backend's), or (a device
 * backend's) each batch in plan order, with cases from the first and the last eighth of the
 * plan, and sizes within a block (an eighth of a batch) of each other. */
static size_t fill(fixture *f)
{
    bitcts__run_schedule(&f->s);
    bitcts__run_fill_queue(&f->s);
    static unsigned char seen[CASES];
    memset(seen, 0, sizeof seen);
    size_t next = 0, total = 0, smallest = CASES, largest = 0;
    for (size_t b = f->s.queue_count; b-- > 0;) {
        const run_batch *batch = &f->s.queue[b];
        for (size_t i = 0; i < batch->count; ++i) {
            if (!f->s.device) {
                CHECK_EQ_U64(batch->items[i], next);
            } else if (i > 0) {
                CHECK(batch->items[i] > batch->items[i - 1]);
            }
            ++next;
            CHECK(batch->items[i] < CASES && seen[batch->items[i]] == 0);
            seen[batch->items[i] % CASES] = 1;
        }
        if (f->s.device && batch->count > 1) {
            CHECK(batch->items[0] < CASES / 8 && batch->items[batch->count - 1] >= CASES * 7 / 8);
        }
        total += batch->count;
        smallest = batch->count < smallest ? batch->count : smallest;
        largest = batch->count > largest ? batch->count : largest;
    }
    CHECK_EQ_U64(total, CASES);
    if (f->s.device && f->s.queue_count > 1 && smallest > 1) {
        CHECK(largest - smallest <= largest / 8 + 1);
    }
    return f->s.queue_count;
}

static void teardown(fixture *f)
{
    for (size_t i = 0; i < f->s.queue_count; ++i) {
        free(f->s.queue[i].items);
    }
    free(f->s.queue);
    json_decref(f->s.backend_json);
}

static const char *const host = "{\"device\": {\"device\": \"x86-64 (AVX2)\"}}";
static const char *const gpu =
    "{\"device\": {\"device\": \"NVIDIA H200\", \"device_memory_mib\": \"143771\"}}";

int main(void)
{
    static fixture f;
    /* A host backend: unchanged, 16 jobs and about four batches a job. */
    setup(&f, 16, 1, host);
    CHECK_EQ_U64(fill(&f), 64);
    CHECK_EQ_U64(f.s.jobs, 16);
    CHECK_EQ_U64(f.s.device, 0);
    teardown(&f);
    /* A device backend with the default jobs: BITCTS_RUN_DEVICE_JOBS workers, a batch each. */
    setup(&f, 16, 1, gpu);
    CHECK_EQ_U64(fill(&f), BITCTS_RUN_DEVICE_JOBS);
    CHECK_EQ_U64(f.s.jobs, BITCTS_RUN_DEVICE_JOBS);
    CHECK_EQ_U64(f.s.device, 1);
    teardown(&f);
    /* Fewer cores than that: the cores (a batch each, but at most 4096 cases a batch). */
    setup(&f, 2, 1, gpu);
    CHECK_EQ_U64(fill(&f), 3);
    CHECK_EQ_U64(f.s.jobs, 2);
    teardown(&f);
    /* --jobs 16 given: 16 workers, a batch each. */
    setup(&f, 16, 0, gpu);
    CHECK_EQ_U64(fill(&f), 16);
    CHECK_EQ_U64(f.s.jobs, 16);
    teardown(&f);
    /* --isolate case: one case a batch, device or not. */
    setup(&f, 16, 1, gpu);
    f.cfg.isolate_case = 1;
    CHECK_EQ_U64(fill(&f), CASES);
    teardown(&f);
    /* A probe that learnt nothing (the backend did not start): a host backend's batches. */
    setup(&f, 16, 1, "{}");
    CHECK_EQ_U64(fill(&f), 64);
    CHECK_EQ_U64(f.s.device, 0);
    teardown(&f);
    return check_exit();
}
