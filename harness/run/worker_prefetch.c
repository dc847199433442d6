/* SPDX-License-Identifier: MIT */
/* The cases of a worker's job built ahead by a thread (harness/run/worker_prefetch.h). */
#include <pthread.h> /* pthread_create */
#include <signal.h>  /* sigfillset */
#include <stdlib.h>  /* calloc */
#include <string.h>  /* memset */

#include "bitcts/bitcts_status.h"
#include "case_plan.h" /* bitcts_plan_case_data */
#include "ref_ops.h"   /* BITCTS_SHIFT_POLICY_* */
#include "worker_prefetch.h"

#define BITCTS_PREFETCH_AHEAD 64u
#define BITCTS_PREFETCH_BYTES ((uint64_t)64 << 20)

/* A position of the ring: claimed by a thread (BUILDING), then READY, full when built. */
enum { SLOT_EMPTY, SLOT_BUILDING, SLOT_READY };
typedef struct slot {
    size_t pos; /* the job position it holds, unless EMPTY */
    int state;
    int full;
    uint64_t bytes;
    bitcts_prefetched c;
} slot;

struct bitcts_prefetch {
    const bitcts_plan *plan;
    uint64_t seed;
    const size_t *indices;
    size_t count;
    pthread_t threads[BITCTS_PREFETCH_THREADS_MAX];
    unsigned thread_count;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t claim; /* the next position a thread takes to build */
    size_t next;  /* the taker's next position: those below it are gone */
    uint64_t held;
    int stop;
    slot ring[BITCTS_PREFETCH_AHEAD];
};

void bitcts_prefetched_free(bitcts_prefetched *c)
{
    bitcts_case_free(&c->data);
    free(c->expected);
    free(c->expected_mask);
    c->expected = c->expected_mask = NULL;
}

/* The case at plan index idx with its expected outputs; 0, or -1 (nothing held). */
static int build(const bitcts_prefetch *p, size_t idx, bitcts_prefetched *c, uint64_t *bytes)
{
    const bitcts_case_key *k = &p->plan->cases[idx];
    memset(c, 0, sizeof *c);
    if (k->pattern == BITCTS_PAT_INVALID ||
        bitcts_plan_case_data(p->plan, idx, p->seed, &c->data) != BITCTS_OK) {
        return -1; /* an invalid case has no expected output: the worker builds it */
    }
    int st = bitcts_case_expected(&c->data, BITCTS_SHIFT_POLICY_SATURATE, &c->expected);
    if (st == BITCTS_OK && bitcts_case_is_recorded(k)) {
        st = bitcts_case_expected(&c->data, BITCTS_SHIFT_POLICY_MASK, &c->expected_mask);
    }
    if (st != BITCTS_OK) {
        bitcts_prefetched_free(c);
        return -1;
    }
    const bitcts_op_desc *d = &c->data.desc;
    *bytes = d->inputs[0].total_tensor_size_in_bytes + d->inputs[1].total_tensor_size_in_bytes +
             3 * d->output.total_tensor_size_in_bytes;
    return 0;
}

/* Room for position pos: within the ring, and within the bytes unless nothing is held. */
static int has_room(const bitcts_prefetch *p, size_t pos)
{
    return pos < p->next + BITCTS_PREFETCH_AHEAD &&
           (p->held < BITCTS_PREFETCH_BYTES || pos == p->next);
}

static void *run(void *arg)
{
    bitcts_prefetch *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (p->claim < p->next) { /* the worker went past: those it builds itself */
            p->claim = p->next;
        }
        if (p->stop || p->claim >= p->count) {
            break;
        }
        if (!has_room(p, p->claim)) {
            pthread_cond_wait(&p->changed, &p->lock);
            continue;
        }
        const size_t pos = p->claim++;
        p->ring[pos % BITCTS_PREFETCH_AHEAD] = (slot){.pos = pos, .state = SLOT_BUILDING};
        pthread_mutex_unlock(&p->lock);
        slot s = {.pos = pos, .state = SLOT_READY};
        s.full = build(p, p->indices[pos], &s.c, &s.bytes) == 0;
        pthread_mutex_lock(&p->lock);
        if (pos >= p->next && !p->stop) { /* not taken or passed while it was built */
            p->ring[pos % BITCTS_PREFETCH_AHEAD] = s;
            p->held += s.full ? s.bytes : 0;
        } else if (s.full) {
            bitcts_prefetched_free(&s.c);
        }
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Frees what the slot of pos holds (the lock held); a position still being built is freed by
 * its thread, which finds it passed. */
static void drop(bitcts_prefetch *p, size_t pos)
{
    slot *s = &p->ring[pos % BITCTS_PREFETCH_AHEAD];
    if (s->state == SLOT_READY && s->pos == pos) {
        if (s->full) {
            bitcts_prefetched_free(&s->c);
            p->held -= s->bytes;
        }
        memset(s, 0, sizeof *s);
    }
}

bitcts_prefetch *bitcts_prefetch_start(const bitcts_plan *plan, uint64_t seed,
                                       const size_t *indices, size_t count, unsigned threads)
{
    bitcts_prefetch *p = calloc(1, sizeof *p);
    if (p == NULL) {
        return NULL;
    }
    *p = (bitcts_prefetch){.plan = plan, .seed = seed, .indices = indices, .count = count};
    threads = threads < 1                             ? 1
              : threads > BITCTS_PREFETCH_THREADS_MAX ? BITCTS_PREFETCH_THREADS_MAX
                                                      : threads;
    sigset_t all, old;
    sigfillset(&all);
    int ok = pthread_mutex_init(&p->lock, NULL) == 0;
    if (ok && pthread_cond_init(&p->changed, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        ok = 0;
    }
    if (ok) { /* the threads are born with every signal blocked: they reach the worker's thread */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        while (p->thread_count < threads &&
               pthread_create(&p->threads[p->thread_count], NULL, run, p) == 0) {
            ++p->thread_count;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (p->thread_count == 0) { /* fewer than asked for still build every case */
            pthread_cond_destroy(&p->changed);
            pthread_mutex_destroy(&p->lock);
            ok = 0;
        }
    }
    if (!ok) {
        free(p);
        return NULL;
    }
    return p;
}

unsigned bitcts_prefetch_threads(const bitcts_prefetch *p)
{
    return p != NULL ? p->thread_count : 0;
}

int bitcts_prefetch_take(bitcts_prefetch *p, size_t pos, bitcts_prefetched *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&p->lock);
    if (pos < p->next) { /* taken before */
        pthread_mutex_unlock(&p->lock);
        return 0;
    }
    for (size_t q = p->next; q < pos; ++q) {
        drop(p, q);
    }
    p->next = pos;
    pthread_cond_broadcast(&p->changed); /* room, maybe */
    int got = 0;
    if (pos < p->count) { /* a thread claims it: wait until it is built or given up */
        slot *s = &p->ring[pos % BITCTS_PREFETCH_AHEAD];
        while (!(s->state == SLOT_READY && s->pos == pos)) {
            pthread_cond_wait(&p->changed, &p->lock);
        }
        got = s->full;
        if (got) {
            *out = s->c;
            p->held -= s->bytes;
        }
        memset(s, 0, sizeof *s);
    }
    p->next = pos + 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return got;
}

void bitcts_prefetch_stop(bitcts_prefetch *p)
{
    if (p == NULL) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->thread_count; ++i) {
        pthread_join(p->threads[i], NULL);
    }
    for (size_t i = 0; i < BITCTS_PREFETCH_AHEAD; ++i) {
        slot *s = &p->ring[i];
        if (s->state == SLOT_READY && s->full) {
            bitcts_prefetched_free(&s->c);
        }
    }
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
