/* SPDX-License-Identifier: MIT */
/* The run loop. A probe worker loads the backend first and sends its identity (the parent never
 * loads a backend), then waits, its instance made, for the first batch (it is the first worker);
 * then worker processes take the other batches of cases. The parent polls every worker's
 * channel and captured output with a deadline for the phase each is in, reaps without waiting,
 * kills a worker's whole process group, and sweeps up what a dead worker left behind. A case a
 * worker could not finish gets its verdict (harness/run/run_slot.c) and the rest of its batch goes
 * back to the queue, split so that the other workers share it. */
#define _GNU_SOURCE /* pipe2 */

#include <errno.h>  /* errno, EAGAIN */
#include <fcntl.h>  /* O_CLOEXEC, O_NONBLOCK */
#include <poll.h>   /* poll */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* memset */
#include <time.h>   /* time, strftime */
#include <unistd.h> /* pipe2, write, close */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "clock.h"
#include "explore.h"
#include "fs_util.h"
#include "report_model.h"
#include "run_state.h"
#include "sanitize.h"

/* Seconds to hand the waiting probe its first batch (a pipe's worth, which it reads at once). */
#define BITCTS_RUN_ADOPT_WRITE_S 5.0

/* Seconds a killed probe is waited for before it is left to its group's kill. */
#define BITCTS_RUN_KILLED_REAP_S 1.0

static int interrupted(const run_state *s);
static void end_waiting(run_state *s, int kill);

static void close_fd(int fd)
{
    if (fd >= 0) {
        close(fd);
    }
}

/* ---- workers ---- */

static bitcts_sandbox **all_sandboxes(run_state *s, bitcts_sandbox **out)
{
    for (int i = 0; i < s->jobs; ++i) {
        out[i] = s->slots[i].c.sb.pid > 0 ? &s->slots[i].c.sb : NULL;
    }
    return out;
}

/* An empty slot: no process, no batch, no descriptor. */
static void slot_clear(worker_slot *w)
{
    memset(w, 0, sizeof *w);
    w->c.sb.chan = w->c.sb.capture = w->c.sb.pidfd = -1;
}

static void slot_release(run_state *s, worker_slot *w)
{
    bitcts_sandbox_kill(&w->c.sb); /* whatever it left in its group */
    bitcts_sandbox_close(&w->c.sb);
    free(w->batch.items);
    free(w->batch.solo);
    free(w->ended);
    free(w->batched);
    json_decref(w->identity);
    slot_clear(w);
    (void)s;
}

/* Frees what slot_init allocated (the batch stays the caller's). */
static void slot_uninit(worker_slot *w)
{
    free(w->ended);
    free(w->batched);
    w->ended = NULL;
    w->batched = NULL;
}

/* A slot's fields for batch b (its process not yet set): 0, or -1 out of memory. */
static int slot_init(run_state *s, worker_slot *w, run_batch b, int probe)
{
    slot_clear(w);
    w->batch = b;
    w->ended = calloc(b.count + 1, 1);
    w->batched = calloc(b.count + 1, 1);
    w->current = -1;
    w->last_ended = -1;
    w->last_begun = -1;
    w->fault_owner = -1;
    w->job =
        (bitcts_worker_job){.plan = s->plan,
                            .backend = &s->backend,
                            .seed = s->cfg->seed,
                            .repro_options = s->repro_options,
                            .probe = probe,
                            .claims = s->claims,
                            .indices = b.items,
                            .count = b.count,
                            .batch_cases = b.solo != NULL ? 1u : bitcts__run_batch_cases(s->cfg),
                            .device = s->device,
                            .prefetch_threads = s->prefetch_threads};
    if (w->ended == NULL || w->batched == NULL) {
        slot_uninit(w);
        return -1;
    }
    return 0;
}

/* Starts a worker process for batch b (a probe: none), its standard input `stdin_fd` (a probe
 * that is to wait for its first batch there) or none (0). */
static int slot_start(run_state *s, worker_slot *w, run_batch b, int probe, int stdin_fd, char *err,
                      size_t cap)
{
    if (slot_init(s, w, b, probe) != 0) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    w->job.await_batch = probe && stdin_fd > 0;
    w->c.sb.stdin_fd = stdin_fd;
    if (bitcts_child_spawn(&w->c, bitcts_worker_main, &w->job, s->cfg->timeout_s, 0, err, cap) !=
        0) {
        slot_uninit(w);
        return -1;
    }
    return 0;
}

static void on_slot_line(void *user, char *line)
{
    void **pair = user;
    bitcts__slot_line(pair[0], pair[1], line);
}

static void pump_slot(run_state *s, worker_slot *w)
{
    void *pair[2] = {s, w};
    bitcts_sandbox_pump(&w->c.sb, on_slot_line, pair);
}

/* Waits for the slots' descriptors, at most until the nearest deadline. */
static void wait_for_workers(worker_slot *slots, int n)
{
    bitcts_sandbox *sbs[256];
    double wait = 0.1;
    const double now = bitcts_clock_now();
    for (int i = 0; i < n; ++i) {
        sbs[i] = slots[i].c.sb.pid > 0 ? &slots[i].c.sb : NULL;
        if (sbs[i] != NULL) {
            const double left = bitcts_child_left(&slots[i].c, now);
            wait = left < wait ? left : wait;
        }
    }
    (void)bitcts_sandbox_wait(sbs, (size_t)n, wait);
}

/* One round of the loop over `slots`: read, reap, finish the ended, enforce deadlines. */
static void service(run_state *s, worker_slot *slots, int n)
{
    bitcts_sandbox *sbs[256] = {NULL};
    for (int i = 0; i < n; ++i) {
        sbs[i] = slots[i].c.sb.pid > 0 ? &slots[i].c.sb : NULL;
    }
    for (int i = 0; i < n; ++i) {
        if (slots[i].c.sb.pid > 0) {
            bitcts__slot_observe(&slots[i]);
            pump_slot(s, &slots[i]);
        }
    }
    bitcts_sandbox_reap(sbs, (size_t)n);
    const double now = bitcts_clock_now();
    for (int i = 0; i < n; ++i) {
        worker_slot *w = &slots[i];
        if (w->c.sb.pid <= 0) {
            continue;
        }
        if (w->c.sb.exited) {
            bitcts__slot_observe(w); /* the child is gone: its status page is final */
            pump_slot(s, w);         /* and so is what it wrote */
            if (!w->job.probe) {
                bitcts__slot_finish(s, w);
                slot_release(s, w);
                bitcts_sandbox *live[256];
                bitcts_sandbox_sweep(all_sandboxes(s, live), (size_t)s->jobs, 1.0);
            }
            continue;
        }
        (void)bitcts_child_enforce(&w->c, now);
    }
}

/* ---- the probe ---- */

/* The backend's identity and capabilities, learnt by a worker that runs no case. A refusal by
 * the plugin host is bad input (BITCTS_E_PLUGIN_*); a probe that dies or hangs does not stop
 * the run: every case will fail with what the backend did. */
static int probe(run_state *s, char *err, size_t cap)
{
    worker_slot w;
    run_batch none = {0};
    int cmd[2] = {-1, -1};
    if (pipe2(cmd, O_CLOEXEC) != 0) { /* without one, the probe ends after its identity */
        cmd[0] = cmd[1] = -1;
    }
    if (slot_start(s, &w, none, 1, cmd[0], err, cap) != 0) {
        close_fd(cmd[0]);
        close_fd(cmd[1]);
        return BITCTS_E_INTERNAL;
    }
    close_fd(cmd[0]);
    while (!w.c.sb.exited && w.identity == NULL) {
        wait_for_workers(&w, 1);
        service(s, &w, 1);
    }
    int st = BITCTS_OK;
    if (w.refusal[0] != '\0') {
        snprintf(err, cap, "%s", w.refusal);
        st = w.refusal_status != 0 ? w.refusal_status : BITCTS_E_PLUGIN_LOAD;
    } else if (w.identity != NULL) { /* a backend that misbehaves later shows it per case */
        char spec[BITCTS_BACKEND_TEXT];
        json_object_set_new(
            w.identity, "spec",
            json_string(bitcts_sanitize_string(s->cfg->backend_spec, 4096, spec, sizeof spec)));
        s->backend_json = json_incref(w.identity);
    } else {
        char how[600];
        char what[700];
        char shown[BITCTS_BACKEND_TEXT];
        bitcts_sandbox_describe(w.c.sb.status, how, sizeof how);
        if (w.c.timed_out) {
            bitcts_child_killed_text(&w.c, bitcts_child_phase_name(w.c.killed_for), what,
                                     sizeof what);
        } else {
            snprintf(what, sizeof what, "the process ended in %s (%s)",
                     bitcts_child_phase_name(w.c.phase), how);
        }
        snprintf(s->backend_problem, sizeof s->backend_problem,
                 "the backend could not be started: %s%s%s", what, w.fault[0] != '\0' ? ": " : "",
                 w.fault);
        s->backend_json = json_pack(
            "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{}, s:{s:s, s:s, s:s}}", "spec",
            bitcts_sanitize_string(s->cfg->backend_spec, 4096, shown, sizeof shown), "path", shown,
            "name", "", "vendor", "", "version", "", "build_id", "", "abi_version", "",
            "library_xxh3_128", "", "feature_level", "", "capabilities", "info", "variant", "",
            "features", "", "other", s->backend_problem);
    }
    s->waiting = w; /* kept, with its instance, for the first batch, */
    s->waiting_cmd = cmd[1];
    if (st != BITCTS_OK || w.identity == NULL || w.c.sb.exited || !w.job.await_batch ||
        cmd[1] < 0 || fcntl(cmd[1], F_SETFL, O_NONBLOCK) != 0) {
        end_waiting(s, 0); /* or ended now */
    }
    return st;
}

/* Ends the probe's process if it still waits for a batch: the end of its input, then (bounded
 * by its phases' deadlines) its teardown; killed when `kill` is set or the run is interrupted,
 * and then waited for at most BITCTS_RUN_KILLED_REAP_S (a process stuck in a driver goes with
 * its group). Only ever called while no worker slot has a process: its reaping and its sweep
 * know the probe alone (the waiting probe is adopted or ended at run_loop's first slot, before
 * any worker starts, and kill_all ends it after the slots). */
static void end_waiting(run_state *s, int kill)
{
    worker_slot *w = &s->waiting;
    close_fd(s->waiting_cmd);
    s->waiting_cmd = -1;
    if (w->c.sb.pid <= 0) {
        return;
    }
    while (!w->c.sb.exited) {
        const double now = bitcts_clock_now();
        if (w->c.killed_at == 0 && (kill || interrupted(s))) {
            bitcts_child_kill(&w->c, now);
        } else if (w->c.killed_at > 0 && now - w->c.killed_at > BITCTS_RUN_KILLED_REAP_S) {
            w->c.sb.exited = 1; /* closed unreaped: it went with its group */
            break;
        }
        wait_for_workers(w, 1);
        service(s, w, 1);
    }
    slot_release(s, w);
    bitcts_sandbox *none_live[1] = {NULL};
    bitcts_sandbox_sweep(none_live, 1, 1.0);
}

/* n bytes to a non-blocking descriptor within max_s seconds: 1, or 0 (closed, or full). */
static int write_all(int fd, const unsigned char *p, size_t n, double max_s)
{
    const double end = bitcts_clock_now() + max_s;
    while (n > 0) {
        const ssize_t put = write(fd, p, n);
        if (put > 0) {
            p += put;
            n -= (size_t)put;
            continue;
        }
        const double left = end - bitcts_clock_now();
        if (put < 0 && errno == EINTR) {
            continue;
        }
        if (put < 0 && errno == EAGAIN && left > 0) {
            struct pollfd out = {.fd = fd, .events = POLLOUT};
            (void)poll(&out, 1, (int)(left * 1000) + 1);
            continue;
        }
        return 0;
    }
    return 1;
}

/* The probe's process (its device already made) takes batch b in the free slot w: 0; or -1 when
 * none waits or it could not be handed the batch (then it is ended, and b is the caller's). */
static int adopt_probe(run_state *s, worker_slot *w, run_batch b)
{
    if (s->waiting.c.sb.pid <= 0) {
        return -1;
    }
    size_t size = 0;
    unsigned char *message = NULL;
    bitcts_sandbox_reap_one(&s->waiting.c.sb); /* it died waiting: its pipe may have a reader */
    if (s->waiting.c.sb.exited || slot_init(s, w, b, 0) != 0 ||
        (message = bitcts_worker_batch_encode(&w->job, &size)) == NULL ||
        !write_all(s->waiting_cmd, message, size, BITCTS_RUN_ADOPT_WRITE_S)) {
        free(message);
        slot_uninit(w);
        slot_clear(w);
        end_waiting(s, 1); /* no use waiting for the teardown of a probe that cannot be fed */
        return -1;
    }
    free(message);
    close_fd(s->waiting_cmd); /* one message: the rest of its input is its end */
    s->waiting_cmd = -1;
    w->c = s->waiting.c; /* the process, its channel and its page move to the slot */
    w->c.phase_start = bitcts_clock_now(); /* its wait (phase B) ends now, not at its R line */
    json_decref(s->waiting.identity);
    slot_uninit(&s->waiting);
    slot_clear(&s->waiting);
    return 0;
}

/* ---- the run ---- */

static void kill_all(run_state *s)
{
    for (int i = 0; i < s->jobs; ++i) {
        if (s->slots[i].c.sb.pid > 0) {
            bitcts_sandbox_kill(&s->slots[i].c.sb);
        }
    }
    for (int round = 0; round < 200; ++round) { /* reap them: bounded, they were SIGKILLed */
        bitcts_sandbox *live[256];
        int left = 0;
        bitcts_sandbox_reap(all_sandboxes(s, live), (size_t)s->jobs);
        for (int i = 0; i < s->jobs; ++i) {
            left += s->slots[i].c.sb.pid > 0 && !s->slots[i].c.sb.exited;
        }
        if (left == 0) {
            break;
        }
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    for (int i = 0; i < s->jobs; ++i) {
        if (s->slots[i].c.sb.pid > 0) {
            slot_release(s, &s->slots[i]);
        }
    }
    bitcts_sandbox *none_live[1] = {NULL};
    bitcts_sandbox_sweep(none_live, 1, 2.0);
    end_waiting(s, 1); /* a probe never adopted (none is left by then: run_loop ends it) */
}

static int interrupted(const run_state *s)
{
    return s->cfg->interrupted != NULL && *s->cfg->interrupted != 0;
}

static void run_loop(run_state *s)
{
    char err[512];
    for (;;) {
        int active = 0;
        const int starting =
            (s->cfg->stop_at <= 0 || bitcts_clock_now() < s->cfg->stop_at) && s->stopped[0] == '\0';
        for (int i = 0; i < s->jobs && !interrupted(s); ++i) {
            worker_slot *w = &s->slots[i];
            if (w->c.sb.pid <= 0 && s->queue_count > 0 && starting) {
                run_batch b = s->queue[--s->queue_count];
                if (adopt_probe(s, w, b) != 0 && slot_start(s, w, b, 0, 0, err, sizeof err) != 0) {
                    bitcts__run_queue_push(s, b); /* out of processes: retry when a worker ends */
                }
            }
            active += w->c.sb.pid > 0;
        }
        if (active == 0 || interrupted(s) || s->stopped[0] != '\0') {
            break;
        }
        wait_for_workers(s->slots, s->jobs);
        service(s, s->slots, s->jobs);
        bitcts__run_log_flush(s); /* the round's records, in one write */
        bitcts__run_progress(s, 0);
    }
    end_waiting(s, 0); /* not adopted: nothing was left to run */
}

/* Keeps this shard's share of the selection: every N-th case from the I-th, or the cases
 * bitcts_shard_balance puts on shard I by the timings. */
static int keep_shard(run_state *s)
{
    const bitcts_run_config *c = s->cfg;
    const size_t n = s->selected_count;
    uint32_t *shard_of = malloc((n + 1) * sizeof *shard_of);
    double *cost = malloc((n + 1) * sizeof *cost);
    const char **ids = malloc((n + 1) * sizeof *ids);
    int rc = shard_of == NULL || cost == NULL || ids == NULL ? -1 : 0;
    for (size_t k = 0; rc == 0 && k < n; ++k) {
        ids[k] = s->plan->cases[s->selected[k]].id;
        shard_of[k] = (uint32_t)(k % c->shard_count);
    }
    if (rc == 0 && c->shard_timings != NULL) {
        bitcts_shard_costs(c->shard_timings, c->shard_timing_count, ids, n, cost);
        rc = bitcts_shard_balance(cost, n, c->shard_count, shard_of);
    }
    size_t kept = 0;
    for (size_t k = 0; rc == 0 && k < n; ++k) {
        if (shard_of[k] == c->shard_index - 1) {
            s->selected[kept++] = s->selected[k];
        }
    }
    s->selected_count = rc == 0 ? kept : s->selected_count;
    free(shard_of);
    free(cost);
    free(ids);
    return rc;
}

/* The selection in plan order, then this shard's share of it. */
static int select_cases(run_state *s, char *err, size_t cap)
{
    s->selected = malloc((s->plan->count + 1) * sizeof *s->selected);
    s->results = calloc(s->rounds + s->retry_rounds, sizeof *s->results);
    s->slots = calloc((size_t)s->jobs, sizeof *s->slots);
    s->failed_cases = calloc(s->plan->count + 1, 1);
    if (s->selected == NULL || s->results == NULL || s->slots == NULL || s->failed_cases == NULL) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (uint32_t r = 0; r < s->rounds + s->retry_rounds; ++r) {
        if ((s->results[r] = calloc(s->plan->count + 1, sizeof **s->results)) == NULL) {
            snprintf(err, cap, "out of memory");
            return BITCTS_E_OUT_OF_MEMORY;
        }
    }
    size_t position = 0;
    for (size_t i = 0; i < s->plan->count; ++i) {
        bitcts_case_key key = s->plan->cases[i];
        if (s->any_tier) {
            key.tiers = BITCTS_TIER_ALL;
        }
        if (!bitcts_selection_matches(&s->cfg->selection, &key) ||
            (s->cfg->only != NULL && !s->cfg->only[i])) {
            continue;
        }
        ++position;
        s->selected[s->selected_count++] = i;
    }
    s->selection_total = s->selected_count;
    if (s->cfg->shard_count != 0 && keep_shard(s) != 0) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (int i = 0; i < s->jobs; ++i) {
        slot_clear(&s->slots[i]);
    }
    if (s->selected_count == 0) {
        snprintf(err, cap, "the selection matches no case%s (see bitcts list)",
                 position > 0 ? " in this shard" : "");
        return BITCTS_E_INVALID_ARGUMENT;
    }
    return BITCTS_OK;
}

static int load_baseline(run_state *s, char *err, size_t cap)
{
    if (s->cfg->baseline_path == NULL) {
        return BITCTS_OK;
    }
    char *text = NULL;
    size_t size = 0;
    int st = bitcts_fs_read(s->cfg->baseline_path, 64u << 20, &text, &size, err, cap);
    if (st == BITCTS_OK) {
        st = bitcts_baseline_parse(s->cfg->baseline_path, text, size, &s->baseline, err, cap);
    }
    free(text);
    return st;
}

static void free_state(run_state *s)
{
    end_waiting(s, 0); /* a run that ended before its cases (bad input found after the probe) */
    if (s->log != NULL) {
        fclose(s->log);
    }
    for (uint32_t r = 0; s->results != NULL && r < s->rounds + s->retry_rounds; ++r) {
        for (size_t i = 0; s->results[r] != NULL && i < s->plan->count; ++i) {
            json_decref(s->results[r][i]);
        }
        free(s->results[r]);
    }
    for (size_t i = 0; i < s->queue_count; ++i) {
        free(s->queue[i].items);
        free(s->queue[i].solo);
    }
    free(s->results);
    free(s->failed_cases);
    free(s->selected);
    free(s->queue);
    free(s->slots);
    json_decref(s->backend_json);
    json_decref(s->report);
    bitcts_baseline_free(&s->baseline);
    bitcts_skips_free(&s->skips);
    free(s->unclaimed);
    if (s->plan_owned) {
        bitcts_plan_destroy(s->plan);
    }
}

/* Every case of every round that the log does not already hold goes to the queue. */
static int prepare(run_state *s, char *err, size_t cap)
{
    s->jobs = s->cfg->jobs < 1 ? 1 : s->cfg->jobs > 256 ? 256 : s->cfg->jobs;
    s->rounds = s->cfg->repeat > 1 ? s->cfg->repeat : 1;
    s->retry_rounds = s->cfg->retry_unexpected;
    const int64_t explored = bitcts_explore_selected_id(&s->cfg->selection.filter);
    int made = BITCTS_OK;
    if (s->cfg->plan != NULL) {
        s->plan = (bitcts_plan *)s->cfg->plan; /* not destroyed: plan_owned stays 0 */
        s->any_tier = !s->cfg->plan_tiers;
    } else if (explored >= 0) { /* one explored case, by its id */
        made = bitcts_explore_plan(s->cfg->seed, (uint64_t)explored, 1, &s->plan);
        s->plan_owned = s->any_tier = 1;
    } else {
        made = bitcts_plan_create(&s->plan);
        s->plan_owned = 1;
    }
    if (made != BITCTS_OK) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    int st = select_cases(s, err, cap);
    if (st == BITCTS_OK) {
        st = load_baseline(s, err, cap);
    }
    if (st == BITCTS_OK) {
        st = bitcts__run_load_skips(s, err, cap);
    }
    if (st == BITCTS_OK) {
        st = bitcts_backend_resolve(s->cfg->backend_spec, &s->cfg->options, &s->backend, err, cap);
    }
    if (st == BITCTS_OK && s->cfg->report_dir != NULL) {
        st = bitcts__run_claim_folder(s, err, cap);
    }
    if (st == BITCTS_OK) {
        bitcts_run_repro_options(s->cfg, s->repro_options, sizeof s->repro_options);
        st = probe(s, err, cap);
    }
    if (st == BITCTS_OK) {
        bitcts__run_schedule(s);
        st = bitcts__run_scope_claimed(s, err, cap);
    }
    if (st == BITCTS_OK && s->cfg->report_dir != NULL) {
        st = bitcts__run_open_log(s, err, cap);
    }
    s->total = s->selected_count * s->rounds;
    return st;
}

/* The backend never started: every case fails with what it did. */
static void fail_everything(run_state *s)
{
    for (uint32_t r = 0; r < s->rounds; ++r) {
        for (size_t i = 0; i < s->selected_count; ++i) {
            if (s->results[r][s->selected[i]] == NULL) {
                const int killed = strstr(s->backend_problem, "no progress") != NULL;
                bitcts__run_synthesize(s, s->selected[i], r,
                                       killed ? BITCTS_VERDICT_TIMEOUT : BITCTS_VERDICT_CRASH,
                                       s->backend_problem, 0, NULL);
            }
        }
    }
}

int bitcts_run(const bitcts_run_config *cfg, bitcts_run_result *out)
{
    memset(out, 0, sizeof *out);
    run_state s;
    memset(&s, 0, sizeof s);
    s.waiting_cmd = -1;
    slot_clear(&s.waiting);
    s.cfg = cfg;
    s.started = bitcts_clock_now();
    const time_t wall = time(NULL);
    strftime(s.started_iso, sizeof s.started_iso, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
    bitcts_sandbox_init();
    out->status = prepare(&s, out->error, sizeof out->error);
    if (out->status != BITCTS_OK) {
        if (out->error[0] == '\0') {
            snprintf(out->error, sizeof out->error, "%s", bitcts_status_message(out->status));
        }
        free_state(&s);
        return out->status;
    }
    bitcts__run_skip_listed(&s); /* never run, whatever the backend does */
    if (s.backend_problem[0] != '\0') {
        fail_everything(&s);
    } else {
        bitcts__run_fill_queue(&s);
        run_loop(&s);
    }
    if (s.stopped[0] != '\0' && !interrupted(&s)) { /* a stop rule: end the workers */
        kill_all(&s);
        bitcts__run_mark_not_run(&s);
    } else if (s.retry_rounds > 0 && !interrupted(&s)) {
        bitcts__run_retry_unexpected(&s, run_loop);
    }
    snprintf(out->stopped, sizeof out->stopped, "%s", s.stopped);
    if (interrupted(&s)) {
        kill_all(&s);
        out->interrupted = 1;
        out->ended = s.done;
        out->duration_s = bitcts_clock_now() - s.started;
        free_state(&s);
        return out->status;
    }
    if (s.cfg->stop_at > 0) { /* time-boxed: the cases that never started are left out */
        size_t kept = 0;
        for (size_t i = 0; i < s.selected_count; ++i) {
            int ran = 1;
            for (uint32_t r = 0; r < s.rounds; ++r) {
                ran &= s.results[r][s.selected[i]] != NULL;
            }
            if (ran) {
                s.selected[kept++] = s.selected[i];
            }
        }
        s.selected_count = kept;
        s.total = kept * s.rounds;
    }
    bitcts__run_progress(&s, 1);
    for (uint32_t r = 0; r < s.rounds; ++r) { /* never lose a case silently */
        for (size_t i = 0; i < s.selected_count; ++i) {
            if (s.results[r][s.selected[i]] == NULL) {
                bitcts__run_synthesize(&s, s.selected[i], r, BITCTS_VERDICT_MISSING,
                                       "no result was reported", 0, NULL);
            }
        }
    }
    out->cases = s.selected_count;
    out->status = bitcts__run_write_report(&s, out->error, sizeof out->error);
    for (size_t i = 0; s.report != NULL && i < json_array_size(json_object_get(s.report, "cases"));
         ++i) {
        out->failed |= bitcts_verdict_is_failure(
            bitcts_report_case_verdict(json_array_get(json_object_get(s.report, "cases"), i)));
    }
    out->report = s.report;
    s.report = NULL;
    out->duration_s = bitcts_clock_now() - s.started;
    free_state(&s);
    return out->status;
}

void bitcts_run_result_free(bitcts_run_result *r)
{
    if (r != NULL) {
        json_decref(r->report);
        r->report = NULL;
    }
}
