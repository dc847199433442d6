/* SPDX-License-Identifier: MIT */
/* One worker as the parent sees it: its channel messages, and what its end means. Blame follows
 * the phase: a worker that dies or hangs while the backend runs (loading, creating, executing,
 * destroying), or after it ran (the harness checking a case in a process the backend may have
 * damaged), costs the backend a crash or a timeout on the case at hand; a worker that dies
 * before its first case is retried a bounded number of times, then its cases get the verdict. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtoull */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "clock.h"
#include "report_model.h"
#include "run_state.h"

/* The item position of plan index idx in the slot's batch, or -1. */
static long batch_position(const worker_slot *w, size_t idx)
{
    for (size_t i = 0; i < w->batch.count; ++i) {
        if (w->batch.items[i] == idx && !w->ended[i]) {
            return (long)i;
        }
    }
    for (size_t i = 0; i < w->batch.count; ++i) { /* --repeat: a case ends several times */
        if (w->batch.items[i] == idx) {
            return (long)i;
        }
    }
    return -1;
}

void bitcts__slot_observe(worker_slot *w)
{
    const bitcts_sandbox_status *page = w->c.sb.shared;
    if (!bitcts_child_observe(&w->c)) {
        return;
    }
    const int64_t index = w->c.index;
    const uint64_t begun = page->begun;
    if (begun > 0 && begun - 1 < w->job.plan->count) {
        w->last_begun = batch_position(w, (size_t)(begun - 1)) >= 0 ? (long)(begun - 1) : -1;
    }
    w->current = -1;
    if ((w->c.phase == 'B' || w->c.phase == 'P' || w->c.phase == 'C') && index >= 0) {
        const long pos = batch_position(w, (size_t)index);
        w->current = pos >= 0 && !w->ended[pos] ? (long)index : -1;
        w->began_cases |= w->current >= 0;
    }
}

/* Marks every case of the worker's batched call that has not ended to run again alone. */
static void batch_to_solo(worker_slot *w)
{
    for (size_t i = 0; w->batched != NULL && i < w->batch.count; ++i) {
        if (w->batched[i] == BITCTS__SLOT_IN_CALL && !w->ended[i]) {
            w->batched[i] = BITCTS__SLOT_SOLO;
        }
    }
}

/* A result of a case of a batched call: not believed when lines that are not the harness's
 * came during the call (they cannot be charged to one case), nor once the call's cases are to
 * run alone. The first result after the call decides for all of them. */
static int batch_tainted(worker_slot *w, long pos)
{
    if (w->batched[pos] == BITCTS__SLOT_IN_CALL && w->garbage_batch != UINT64_MAX) {
        if (w->c.sb.garbage > w->garbage_batch) {
            snprintf(w->batch_end, sizeof w->batch_end,
                     "the backend wrote %llu lines to the harness's result channel during it",
                     (unsigned long long)(w->c.sb.garbage - w->garbage_batch));
            batch_to_solo(w);
            w->garbage_seen = w->c.sb.garbage;
        }
        w->garbage_batch = UINT64_MAX;
    }
    return w->batched[pos] == BITCTS__SLOT_SOLO;
}

/* An M line: the cases of the batched call the worker is about to make. */
static void take_batch(worker_slot *w, const char *list)
{
    char *end = NULL;
    for (const char *p = list; w->batched != NULL; p = end) {
        const unsigned long long idx = strtoull(p, &end, 10);
        if (end == p) {
            break;
        }
        const long pos = batch_position(w, (size_t)idx);
        if (pos >= 0 && !w->ended[pos]) {
            w->batched[pos] = BITCTS__SLOT_IN_CALL;
        }
    }
    w->garbage_batch = w->c.sb.garbage;
}

/* An E line: a case object from the worker, checked like a report's before it is believed. */
static void take_result(run_state *s, worker_slot *w, size_t idx, const char *json)
{
    char err[BITCTS_REPORT_ERROR_CAP];
    json_t *obj = json_loads(json, JSON_REJECT_DUPLICATES, NULL);
    const char *id = json_string_value(json_object_get(obj, "id"));
    if (obj == NULL || id == NULL || strcmp(id, s->plan->cases[idx].id) != 0 ||
        bitcts_report_validate_case(obj, err, sizeof err) != BITCTS_OK) {
        json_decref(obj);
        ++w->c.sb.garbage; /* not the harness's: the backend wrote on the channel */
        return;
    }
    const char *text = json; /* logged as it came while nothing is added to it */
    char excerpt[BITCTS_SANDBOX_CAPTURE_MAX * 4 + 8];
    const uint64_t bytes =
        bitcts_sandbox_take_output(&w->c.sb, (int64_t)idx, excerpt, sizeof excerpt);
    if (bytes > 0) {
        text = NULL;
        json_object_set_new(
            obj, "output", json_pack("{s:I, s:s}", "bytes", (json_int_t)bytes, "excerpt", excerpt));
    }
    if (w->c.sb.garbage > w->garbage_seen) { /* written while this case ran (or before it) */
        char warning[200];
        snprintf(warning, sizeof warning,
                 "the backend wrote %llu lines to the harness's result channel, a descriptor it "
                 "does not own",
                 (unsigned long long)(w->c.sb.garbage - w->garbage_seen));
        text = NULL;
        w->garbage_seen = w->c.sb.garbage;
        json_array_append_new(json_object_get(obj, "warnings"), json_string(warning));
        if (bitcts_report_case_verdict(obj) == BITCTS_VERDICT_PASS) {
            json_object_set_new(obj, "verdict",
                                json_string(bitcts_verdict_name(BITCTS_VERDICT_WARN)));
            json_object_set_new(obj, "detail", json_string(warning));
        }
    }
    if (w->batch.solo != NULL) { /* why it runs alone */
        text = NULL;
        json_array_append_new(json_object_get(obj, "warnings"), json_string(w->batch.solo));
    }
    const long pos = batch_position(w, idx);
    if (pos >= 0 && w->batched != NULL && w->batched[pos] != 0 && batch_tainted(w, pos)) {
        json_decref(obj); /* it runs again alone */
        return;
    }
    if (pos >= 0) {
        w->ended[pos] = 1;
    }
    w->began_cases = 1;
    bitcts__run_log_begin(s, idx, w->batch.round);
    bitcts__run_record_text(s, idx, w->batch.round, obj, text);
    w->last_ended = (long)idx;
    if (w->current == (long)idx) {
        w->current = -1;
    }
}

void bitcts__slot_line(run_state *s, worker_slot *w, char *line)
{
    const char kind = line[0];
    char *rest = line[0] != '\0' && line[1] == ' ' ? line + 2 : line + 1;
    char *end = NULL;
    const unsigned long long idx = strtoull(rest, &end, 10);
    const int has_index = end != rest && idx < s->plan->count && batch_position(w, idx) >= 0;
    switch (kind) {
    case 'E':
        if (has_index) {
            take_result(s, w, idx, end);
        } else {
            ++w->c.sb.garbage;
        }
        break;
    case 'O': /* out of memory: the case that took it is charged, the next one is requeued */
        if (has_index && w->ended[batch_position(w, idx)]) {
            bitcts__run_synthesize(s, idx, w->batch.round, BITCTS_VERDICT_FAIL, end + (*end == ' '),
                                   0, NULL);
            w->requeue_begun = 1;
        } else {
            ++w->c.sb.garbage;
        }
        break;
    case 'F': /* a fault charged to a case that already ended: a write that landed late */
        snprintf(w->fault, sizeof w->fault, "%s", end != NULL ? end + (*end == ' ') : "");
        w->fault_owner = has_index && w->ended[batch_position(w, idx)] ? (long)idx : -1;
        break;
    case 'M': take_batch(w, rest); break;
    case 'U': snprintf(w->batch_end, sizeof w->batch_end, "%s", rest); break;
    case 'S':
        w->refusal_status = (int)strtol(rest, &end, 10);
        snprintf(w->refusal, sizeof w->refusal, "%s", end != NULL ? end + (*end == ' ') : "");
        break;
    case 'Y':
        if (w->job.probe) {
            snprintf(s->claims, sizeof s->claims, "%s", rest);
        } else {
            ++w->c.sb.garbage;
        }
        break;
    case 'R':
        json_decref(w->identity);
        w->identity = json_loads(rest, JSON_REJECT_DUPLICATES, NULL);
        break;
    default: ++w->c.sb.garbage; break;
    }
}

/* How the worker ended, in words: killed by the watchdog, a signal (with the fault's address),
 * an exit status. */
static void describe_end(const worker_slot *w, char *out, size_t cap)
{
    char how[160];
    bitcts_sandbox_describe(w->c.sb.status, how, sizeof how);
    if (w->c.timed_out) {
        bitcts_child_killed_text(&w->c, bitcts_child_phase_name(w->c.killed_for), out, cap);
    } else if (w->fault[0] != '\0') {
        snprintf(out, cap, "the worker died in %s: %s (%s)", bitcts_child_phase_name(w->c.phase),
                 how, w->fault);
    } else {
        snprintf(out, cap, "the worker ended in %s: %s", bitcts_child_phase_name(w->c.phase), how);
    }
    if (w->c.sb.garbage > 0) {
        const size_t used = strlen(out);
        snprintf(out + used, cap - used,
                 "; %llu lines on the harness's channel were not the harness's (the backend "
                 "wrote to a descriptor it does not own)",
                 (unsigned long long)w->c.sb.garbage);
    }
}

/* The verdict of a worker's end: a timeout when the watchdog killed it, else a crash. */
static int end_verdict(const worker_slot *w)
{
    return w->c.timed_out ? BITCTS_VERDICT_TIMEOUT : BITCTS_VERDICT_CRASH;
}

/* A worker that never began a case: retry the batch, or after BITCTS_RUN_BATCH_ATTEMPTS give
 * every case the verdict. */
static void settle_unstarted(run_state *s, worker_slot *w, const char *how)
{
    if (w->batch.attempts + 1 < BITCTS_RUN_BATCH_ATTEMPTS) {
        bitcts__run_requeue_as(s, w->batch.items, w->batch.count, w->batch.round,
                               w->batch.attempts + 1, w->batch.solo);
        return;
    }
    char detail[1200];
    snprintf(detail, sizeof detail, "%s (%u workers in a row)", how, BITCTS_RUN_BATCH_ATTEMPTS);
    for (size_t i = 0; i < w->batch.count; ++i) {
        bitcts__run_synthesize(s, w->batch.items[i], w->batch.round, end_verdict(w), detail, 0,
                               NULL);
    }
}

/* Destroy or exit went wrong after every case ended: the last case carries it. */
static void settle_after_cases(run_state *s, worker_slot *w, const char *how)
{
    if (w->last_ended < 0) {
        return;
    }
    const size_t idx = (size_t)w->last_ended;
    const json_t *prev = s->results[w->batch.round][idx];
    char detail[1400];
    const char *before = prev != NULL ? bitcts_report_str(prev, "detail") : "";
    snprintf(detail, sizeof detail, "%s%safter this case ended in the worker: %s", before,
             before[0] != '\0' ? "; " : "", how);
    bitcts__run_synthesize(s, idx, w->batch.round, end_verdict(w), detail, 0, NULL);
}

/* How many cases of the worker's batch have ended. */
static size_t ended_count(const worker_slot *w)
{
    size_t n = 0;
    for (size_t i = 0; i < w->batch.count; ++i) {
        n += w->ended[i];
    }
    return n;
}

/* Whether plan index idx is a case of the worker's batched call. */
static int in_batched_call(const worker_slot *w, size_t idx)
{
    const long pos = batch_position(w, idx);
    return pos >= 0 && w->batched != NULL && w->batched[pos] != 0;
}

/* Puts the cases marked to run alone back in the queue, each its own call in a fresh worker,
 * and counts them as ended here. @return how many. */
static size_t requeue_solo(run_state *s, worker_slot *w, const char *how)
{
    size_t n = 0;
    size_t *items = malloc((w->batch.count + 1) * sizeof *items);
    for (size_t i = 0; items != NULL && w->batched != NULL && i < w->batch.count; ++i) {
        if (w->batched[i] == BITCTS__SLOT_SOLO && !w->ended[i]) {
            items[n++] = w->batch.items[i];
            w->ended[i] = 1;
        }
    }
    char why[1800];
    snprintf(why, sizeof why,
             "run again alone, one call per case: the batched call that held it and %zu other "
             "cases %s%s",
             n - 1, w->batch_end[0] != '\0' ? "" : "ended: ",
             w->batch_end[0] != '\0' ? w->batch_end : how);
    bitcts__run_requeue_as(s, items, n, w->batch.round, 0, why);
    free(items);
    return n;
}

/* A worker that ended inside a batched call (the page's batch count): no case of the call is
 * charged, and its kill is no timeout in a row; the call's cases run again alone. */
static void settle_batched(run_state *s, worker_slot *w)
{
    if (w->c.batch == 0) {
        if (w->c.timed_out) {
            bitcts__run_note_timeout(s);
        }
        return;
    }
    batch_to_solo(w);
    const long pos = w->current >= 0 ? batch_position(w, (size_t)w->current) : -1;
    if (pos >= 0 && w->batched[pos] == BITCTS__SLOT_SOLO) {
        w->current = -1;
    }
    w->requeue_begun = 1;
}

void bitcts__slot_finish(run_state *s, worker_slot *w)
{
    bitcts__slot_observe(w); /* the child is gone: the page is final */
    const int clean = !w->c.timed_out && w->c.phase == 'X' && WIFEXITED(w->c.sb.status) &&
                      WEXITSTATUS(w->c.sb.status) == 0;
    char how[1100];
    describe_end(w, how, sizeof how);
    if (w->job.probe) {
        return; /* the probe's end is read by the runner */
    }
    settle_batched(s, w);
    if (w->fault_owner >= 0) { /* the case whose calls left the writer running is charged;
                                * the one at hand goes back to the queue */
        bitcts__run_synthesize(s, (size_t)w->fault_owner, w->batch.round, BITCTS_VERDICT_CRASH, how,
                               0, NULL);
        w->current = -1;
        w->requeue_begun = 1;
    }
    if (w->current < 0 && w->last_begun >= 0 && !w->requeue_begun &&
        !in_batched_call(w, (size_t)w->last_begun)) {
        /* The page moved on (the worker went on to destroy and exit) without the case's
         * result reaching the channel: the backend closed or took the harness's descriptor. */
        const long pos = batch_position(w, (size_t)w->last_begun);
        if (pos >= 0 && !w->ended[pos]) {
            char end[200];
            bitcts_sandbox_describe(w->c.sb.status, end, sizeof end);
            w->current = w->last_begun;
            if (!w->c.timed_out) {
                snprintf(
                    how, sizeof how,
                    "the case ran, but its result never reached the harness: the backend "
                    "closed or replaced the harness's descriptors while running it (the worker "
                    "then ended in %s: %s)",
                    bitcts_child_phase_name(w->c.phase), end);
            }
        }
    }
    const size_t ended_before = ended_count(w);
    if (w->current >= 0) { /* a case that began and never ended */
        const size_t idx = (size_t)w->current;
        bitcts__run_log_begin(s, idx, w->batch.round);
        const double ms = w->c.phase == 'P' ? 1e3 * (bitcts_clock_now() - w->c.phase_start) : 0;
        bitcts__run_synthesize(s, idx, w->batch.round, end_verdict(w), how, ms, &w->c.sb);
        const long pos = batch_position(w, idx);
        if (pos >= 0) {
            w->ended[pos] = 1;
        }
    } else if (!w->began_cases && w->refusal[0] != '\0') {
        char detail[1200];
        snprintf(detail, sizeof detail, "in the worker: %s", w->refusal);
        for (size_t i = 0; i < w->batch.count; ++i) { /* a refusal is not retried */
            bitcts__run_synthesize(s, w->batch.items[i], w->batch.round, BITCTS_VERDICT_FAIL,
                                   detail, 0, NULL);
            w->ended[i] = 1;
        }
    } else if (!w->began_cases && !clean) {
        settle_unstarted(s, w, how);
        return;
    } else if (!clean && (w->c.phase == 'D' || w->c.phase == 'X' || w->c.timed_out)) {
        settle_after_cases(s, w, how);
    }
    const size_t solo = requeue_solo(s, w, how); /* a batched call's cases, one call each */
    size_t rest = 0;                             /* what never began goes back to the queue */
    for (size_t i = 0; i < w->batch.count; ++i) {
        if (!w->ended[i]) {
            w->batch.items[rest++] = w->batch.items[i];
        }
    }
    if (ended_count(w) == 0 && rest > 0 && ended_before == 0 && solo == 0) {
        /* No case ended and none was charged: a worker that makes no progress is retried a
         * bounded number of times, never forever. */
        settle_unstarted(s, w, how);
        return;
    }
    bitcts__run_requeue_as(s, w->batch.items, rest, w->batch.round, 0, w->batch.solo);
}
