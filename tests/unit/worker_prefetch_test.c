/* SPDX-License-Identifier: MIT */
/* Cases built ahead (harness/run/worker_prefetch.c): what the threads (one, or four) hand over
 * is byte for byte what the worker builds itself (the data and both policies' expected outputs),
 * whatever order positions are taken or skipped in; an invalid case, a position taken twice and
 * one past the end are left to the worker (0); a job bigger than the threads' byte budget still
 * completes; stopping with cases held, or before any is taken, frees them (the sanitizer lanes). */
#include <stdlib.h>
#include <string.h>

#include "bitcts/bitcts_status.h"
#include "case_plan.h"
#include "check.h"
#include "ref_ops.h"
#include "worker_prefetch.h"

#define SEED 0x0062697463747331ull

/* The case at plan index idx as the worker builds it, against what the thread built. */
static void same_as_built_here(const bitcts_plan *plan, size_t idx, const bitcts_prefetched *c)
{
    bitcts_case_data d;
    CHECK_EQ_U64(bitcts_plan_case_data(plan, idx, SEED, &d), BITCTS_OK);
    const bitcts_op_desc *x = &d.desc;
    CHECK(memcmp(x, &c->data.desc, sizeof *x) == 0);
    for (uint32_t i = 0; i < x->input_count; ++i) {
        CHECK(memcmp(d.inputs[i], c->data.inputs[i],
                     (size_t)x->inputs[i].total_tensor_size_in_bytes) == 0);
    }
    uint8_t *sat = NULL;
    uint8_t *mask = NULL;
    CHECK_EQ_U64(bitcts_case_expected(&d, BITCTS_SHIFT_POLICY_SATURATE, &sat), BITCTS_OK);
    CHECK_EQ_U64(bitcts_case_expected(&d, BITCTS_SHIFT_POLICY_MASK, &mask), BITCTS_OK);
    const size_t out = (size_t)x->output.total_tensor_size_in_bytes;
    CHECK(c->expected != NULL && memcmp(sat, c->expected, out) == 0);
    if (bitcts_case_is_recorded(&plan->cases[idx])) {
        CHECK(c->expected_mask != NULL && memcmp(mask, c->expected_mask, out) == 0);
    } else {
        CHECK(c->expected_mask == NULL);
    }
    free(sat);
    free(mask);
    bitcts_case_free(&d);
}

/* Job positions over plan indices first, first + step, ...: count of them. */
static size_t *job(size_t first, size_t step, size_t count)
{
    size_t *idx = malloc(count * sizeof *idx);
    CHECK(idx != NULL);
    for (size_t i = 0; i < count; ++i) {
        idx[i] = first + i * step;
    }
    return idx;
}

/* Takes every `stride`-th position of a job; the others are skipped. @return cases handed over. */
static size_t take_every(const bitcts_plan *plan, const size_t *idx, size_t count, size_t stride,
                         unsigned threads)
{
    bitcts_prefetch *p = bitcts_prefetch_start(plan, SEED, idx, count, threads);
    CHECK(p != NULL && bitcts_prefetch_threads(p) == threads);
    size_t got = 0;
    for (size_t pos = 0; pos < count; pos += stride) {
        bitcts_prefetched c;
        const int built = bitcts_prefetch_take(p, pos, &c);
        if (plan->cases[idx[pos]].pattern == BITCTS_PAT_INVALID) {
            CHECK_EQ_U64(built, 0); /* no expected output: the worker builds it */
        } else {
            CHECK_EQ_U64(built, 1);
            same_as_built_here(plan, idx[pos], &c);
            ++got;
        }
        bitcts_prefetched_free(&c);
        CHECK_EQ_U64(bitcts_prefetch_take(p, pos, &c), 0); /* taken before */
    }
    bitcts_prefetched c;
    CHECK_EQ_U64(bitcts_prefetch_take(p, count, &c), 0); /* past the end */
    bitcts_prefetch_stop(p);
    return got;
}

int main(void)
{
    bitcts_plan *plan = NULL;
    CHECK_EQ_U64(bitcts_plan_create(&plan), BITCTS_OK);
    size_t invalid = 0;
    size_t large = plan->count;
    for (size_t i = 0; i < plan->count; ++i) {
        invalid += plan->cases[i].pattern == BITCTS_PAT_INVALID;
        if (large == plan->count && plan->cases[i].pattern == BITCTS_PAT_LARGE_PACKED) {
            large = i;
        }
    }
    CHECK(invalid > 0 && large < plan->count);
    /* A spread over the whole plan (every operator, type, rank and pattern, invalid ones
     * included), taken in order, then every third position, then only the last. */
    const size_t n = 400;
    size_t *spread = job(0, plan->count / n, n);
    /* One thread, and several: each builds the next position none has taken. */
    for (unsigned threads = 1; threads <= 4; threads += 3) {
        CHECK(take_every(plan, spread, n, 1, threads) > n / 2);
        CHECK(take_every(plan, spread, n, 3, threads) > n / 6);
        CHECK(take_every(plan, spread, n, n - 1, threads) >= 1);
        /* Stopped at once, and stopped with the ring full. */
        bitcts_prefetch_stop(bitcts_prefetch_start(plan, SEED, spread, n, threads));
        bitcts_prefetch *p = bitcts_prefetch_start(plan, SEED, spread, n, threads);
        bitcts_prefetched c;
        CHECK(p != NULL && bitcts_prefetch_take(p, 1, &c) <= 1);
        bitcts_prefetched_free(&c);
        bitcts_prefetch_stop(p);
        /* Large cases, many MiB each: past the byte budget the threads wait for the worker. */
        size_t *big = job(large, 1, 4);
        take_every(plan, big, 4, 1, threads);
        free(big);
    }
    /* Asked for none or too many: one, or the most. */
    bitcts_prefetch *p = bitcts_prefetch_start(plan, SEED, spread, n, 0);
    CHECK_EQ_U64(bitcts_prefetch_threads(p), 1);
    bitcts_prefetch_stop(p);
    p = bitcts_prefetch_start(plan, SEED, spread, n, 99);
    CHECK_EQ_U64(bitcts_prefetch_threads(p), BITCTS_PREFETCH_THREADS_MAX);
    bitcts_prefetch_stop(p);
    free(spread);
    bitcts_plan_destroy(plan);
    return check_exit();
}
