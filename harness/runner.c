/* SPDX-License-Identifier: MIT */
/* The run loop: worker processes take batches of cases; a crash or hang costs the case it hit
 * (Crash / Timeout) and the rest of the batch continues in a new worker; every record goes to
 * the append-only log as it happens. */
#include <errno.h>    /* errno */
#include <fcntl.h>    /* fcntl */
#include <poll.h>     /* poll */
#include <signal.h>   /* kill */
#include <stdio.h>    /* fprintf */
#include <stdlib.h>   /* malloc */
#include <string.h>   /* strerror */
#include <sys/wait.h> /* waitpid */
#include <time.h>     /* time, strftime */
#include <unistd.h>   /* fork, pipe */
#ifdef __linux__
#include <sys/prctl.h> /* PR_SET_PDEATHSIG */
#endif

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "case_result.h"
#include "clock.h"
#include "fs_util.h"
#include "run_state.h"
#include "worker.h"

/* Records a result: baseline applied, logged, stored. Takes ownership of obj. `text` is obj's
 * compact JSON when the caller has it (the worker's line), so the log need not re-encode it. */
static void record_result(run_state *s, size_t idx, json_t *obj, const char *text)
{
    const bitcts_case_key *k = &s->plan->cases[idx];
    const int verdict = bitcts_verdict_parse(json_string_value(json_object_get(obj, "verdict")));
    const bitcts_baseline_entry *e = bitcts_baseline_find(&s->baseline, k->id);
    if (e != NULL) {
        json_object_set_new(obj, "baseline", json_string(e->reason[0] ? e->reason : e->glob));
        json_object_set_new(obj, "verdict",
                            json_string(bitcts_verdict_name(bitcts_baseline_apply(e, verdict))));
        text = NULL;
    }
    if (s->results[idx] != NULL) {
        json_decref(s->results[idx]);
    }
    s->results[idx] = obj;
    ++s->done;
    if (s->log == NULL) {
        return;
    }
    if (text != NULL && text[0] == '{') { /* {"record":"end", + the case object's members */
        fputs("{\"record\":\"end\",", s->log);
        fputs(text + 1, s->log);
        fputc('\n', s->log);
        fflush(s->log);
    } else {
        json_t *rec = json_deep_copy(obj);
        json_object_set_new(rec, "record", json_string("end"));
        bitcts__run_log(s, rec);
    }
}

void bitcts__run_record(run_state *s, size_t idx, json_t *obj)
{
    record_result(s, idx, obj, NULL);
}

/* A result the worker could not report: crash, timeout, internal error. */
static void synthesize(run_state *s, size_t idx, int verdict, const char *detail)
{
    bitcts_case_result r;
    memset(&r, 0, sizeof r);
    r.verdict = verdict;
    snprintf(r.detail, sizeof r.detail, "%s", detail);
    char repro[512];
    bitcts_case_repro(s->cfg->backend_spec, s->repro_options, s->cfg->seed, s->plan->cases[idx].id,
                      repro, sizeof repro);
    bitcts__run_record(s, idx, bitcts_case_result_json(&s->plan->cases[idx], idx, &r, repro));
}

static void push_retry(run_state *s, const size_t *items, size_t count)
{
    if (count == 0) {
        return;
    }
    run_batch *b = &s->retry[s->retry_count++];
    b->items = malloc(count * sizeof *items);
    memcpy(b->items, items, count * sizeof *items);
    b->count = count;
}

static int next_batch(run_state *s, run_batch *out)
{
    if (s->retry_count > 0) {
        *out = s->retry[--s->retry_count];
        return 1;
    }
    if (s->todo_head >= s->todo_count) {
        return 0;
    }
    size_t n = s->batch_size;
    if (n > s->todo_count - s->todo_head) {
        n = s->todo_count - s->todo_head;
    }
    out->items = malloc(n * sizeof *out->items);
    memcpy(out->items, s->todo + s->todo_head, n * sizeof *out->items);
    out->count = n;
    s->todo_head += n;
    return 1;
}

static void child_main(run_state *s, int fd, const run_batch *b)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the harness */
#endif
    signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (int i = 0; i < s->cfg->jobs; ++i) { /* other workers' pipes are not ours */
        if (s->slots[i].pid > 0) {
            close(s->slots[i].fd);
        }
    }
    bitcts_worker_ctx ctx = {.plan = s->plan,
                             .backend = &s->backend,
                             .seed = s->cfg->seed,
                             .backend_spec = s->cfg->backend_spec,
                             .repro_options = s->repro_options,
                             .fd = fd};
    bitcts_worker_run(&ctx, b->items, b->count);
    _exit(0);
}

static int spawn(run_state *s, worker_slot *w)
{
    run_batch b;
    if (!next_batch(s, &b)) {
        return 0;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        push_retry(s, b.items, b.count);
        free(b.items);
        return -1;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_main(s, fds[1], &b);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        push_retry(s, b.items, b.count);
        free(b.items);
        return -1;
    }
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    memset(w, 0, sizeof *w);
    w->pid = pid;
    w->fd = fds[0];
    w->batch = b;
    w->ended = calloc(b.count, 1);
    w->current = -1;
    return 1;
}

static void handle_line(run_state *s, worker_slot *w, char *line)
{
    char *end = NULL;
    if (!line[0] || line[1] != ' ') {
        return;
    }
    const size_t idx = (size_t)strtoull(line + 2, &end, 10);
    if (idx >= s->plan->count) {
        return;
    }
    switch (line[0]) {
    case 'B':
        w->current = (long)idx;
        w->phase = 'B';
        w->phase_start = bitcts_clock_now();
        bitcts__run_log(s,
                        json_pack("{s:s, s:s}", "record", "begin", "id", s->plan->cases[idx].id));
        break;
    case 'P':
    case 'C':
        w->phase = line[0];
        w->phase_start = bitcts_clock_now();
        break;
    case 'E': {
        while (*end == ' ') {
            ++end;
        }
        json_error_t e;
        json_t *obj = json_loads(end, 0, &e);
        if (obj == NULL) {
            synthesize(s, idx, BITCTS_VERDICT_INTERNAL_ERROR, "the worker's result did not parse");
        } else {
            record_result(s, idx, obj, end);
        }
        for (size_t i = 0; i < w->batch.count; ++i) {
            w->ended[i] |= w->batch.items[i] == idx;
        }
        w->current = -1;
        w->phase = 0;
        break;
    }
    default: break;
    }
}

static void read_worker(run_state *s, worker_slot *w)
{
    for (;;) {
        if (w->cap - w->len < 65536) {
            w->cap = w->cap ? w->cap * 2 : 262144;
            w->buf = realloc(w->buf, w->cap);
        }
        const ssize_t n = read(w->fd, w->buf + w->len, w->cap - w->len - 1);
        if (n <= 0) {
            return;
        }
        w->len += (size_t)n;
        char *start = w->buf, *nl;
        while ((nl = memchr(start, '\n', (size_t)(w->buf + w->len - start))) != NULL) {
            *nl = '\0';
            handle_line(s, w, start);
            start = nl + 1;
        }
        w->len -= (size_t)(start - w->buf);
        memmove(w->buf, start, w->len);
    }
}

static void describe_exit(int status, char *out, size_t cap)
{
    if (WIFSIGNALED(status)) {
        snprintf(out, cap, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else {
        snprintf(out, cap, "exit status %d", WEXITSTATUS(status));
    }
}

/* The worker's pipe closed: reap it, settle the case it was in, requeue the rest. */
static void reap(run_state *s, worker_slot *w)
{
    read_worker(s, w);
    int status = 0;
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (w->current >= 0) {
        char how[96], detail[256];
        describe_exit(status, how, sizeof how);
        const size_t idx = (size_t)w->current;
        if (w->timed_out) {
            snprintf(detail, sizeof detail,
                     "no result within %.3g s in the backend; the worker was killed",
                     s->cfg->timeout_s);
            synthesize(s, idx, BITCTS_VERDICT_TIMEOUT, detail);
        } else if (w->phase == 'P') {
            snprintf(detail, sizeof detail, "the worker died inside the backend: %s", how);
            synthesize(s, idx, BITCTS_VERDICT_CRASH, detail);
        } else {
            snprintf(detail, sizeof detail, "the worker died outside the backend (phase %c): %s",
                     w->phase, how);
            synthesize(s, idx, BITCTS_VERDICT_INTERNAL_ERROR, detail);
        }
        for (size_t i = 0; i < w->batch.count; ++i) {
            w->ended[i] |= w->batch.items[i] == idx;
        }
    }
    size_t rest = 0; /* the cases of the batch that never ended go to a new worker */
    for (size_t i = 0; i < w->batch.count; ++i) {
        if (!w->ended[i]) {
            w->batch.items[rest++] = w->batch.items[i];
        }
    }
    push_retry(s, w->batch.items, rest);
    close(w->fd);
    free(w->batch.items);
    free(w->ended);
    free(w->buf);
    memset(w, 0, sizeof *w);
    w->fd = -1;
}

static int poll_timeout_ms(const run_state *s)
{
    double wait = 0.25;
    for (int i = 0; i < s->cfg->jobs; ++i) {
        const worker_slot *w = &s->slots[i];
        if (w->pid > 0 && w->phase == 'P' && !w->timed_out) {
            const double left = w->phase_start + s->cfg->timeout_s - bitcts_clock_now();
            if (left < wait) {
                wait = left > 0 ? left : 0;
            }
        }
    }
    return (int)(wait * 1000) + 1;
}

static void enforce_timeouts(run_state *s)
{
    const double t = bitcts_clock_now();
    for (int i = 0; i < s->cfg->jobs; ++i) {
        worker_slot *w = &s->slots[i];
        if (w->pid > 0 && w->phase == 'P' && !w->timed_out &&
            t - w->phase_start > s->cfg->timeout_s) {
            kill(w->pid, SIGKILL);
            w->timed_out = 1;
        }
    }
}

static void run_loop(run_state *s)
{
    const int jobs = s->cfg->jobs;
    struct pollfd *pfd = calloc((size_t)jobs, sizeof *pfd);
    for (;;) {
        int active = 0;
        for (int i = 0; i < jobs; ++i) {
            if (s->slots[i].pid == 0) {
                spawn(s, &s->slots[i]);
            }
            active += s->slots[i].pid > 0;
        }
        if (active == 0) {
            break;
        }
        for (int i = 0; i < jobs; ++i) {
            pfd[i].fd = s->slots[i].pid > 0 ? s->slots[i].fd : -1;
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
        }
        if (poll(pfd, (nfds_t)jobs, poll_timeout_ms(s)) < 0 && errno != EINTR) {
            break;
        }
        for (int i = 0; i < jobs; ++i) {
            worker_slot *w = &s->slots[i];
            if (w->pid <= 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) {
                continue;
            }
            read_worker(s, w);
            if (pfd[i].revents & (POLLHUP | POLLERR)) {
                reap(s, w);
            }
        }
        enforce_timeouts(s);
        bitcts__run_progress(s, 0);
    }
    free(pfd);
}

/* The selection in plan order, then this shard's interleaved share of it. */
static int select_cases(run_state *s)
{
    s->selected = malloc((s->plan->count + 1) * sizeof *s->selected);
    s->todo = malloc((s->plan->count + 1) * sizeof *s->todo);
    s->results = calloc(s->plan->count + 1, sizeof *s->results);
    s->retry = calloc(s->plan->count + 1, sizeof *s->retry);
    s->slots = calloc((size_t)s->cfg->jobs, sizeof *s->slots);
    if (s->selected == NULL || s->todo == NULL || s->results == NULL || s->retry == NULL ||
        s->slots == NULL) {
        return -1;
    }
    size_t position = 0;
    for (size_t i = 0; i < s->plan->count; ++i) {
        if (!bitcts_selection_matches(&s->cfg->selection, &s->plan->cases[i])) {
            continue;
        }
        const int mine =
            s->cfg->shard_count == 0 || position % s->cfg->shard_count == s->cfg->shard_index - 1;
        ++position;
        if (mine) {
            s->selected[s->selected_count++] = i;
        }
    }
    for (int i = 0; i < s->cfg->jobs; ++i) {
        s->slots[i].fd = -1;
    }
    return 0;
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

static void repro_options(run_state *s)
{
    size_t used = 0;
    const bitcts_backend_options *o = &s->cfg->options;
    for (uint32_t i = 0; i < o->count; ++i) {
        used += (size_t)snprintf(s->repro_options + used, sizeof s->repro_options - used,
                                 " --backend-option '%s=%s'", o->keys[i], o->values[i]);
    }
}

static void free_state(run_state *s)
{
    if (s->log != NULL) {
        fclose(s->log);
    }
    for (size_t i = 0; s->results != NULL && i < s->plan->count; ++i) {
        json_decref(s->results[i]);
    }
    for (size_t i = 0; i < s->retry_count; ++i) {
        free(s->retry[i].items);
    }
    free(s->results), free(s->selected), free(s->todo), free(s->retry), free(s->slots);
    bitcts_baseline_free(&s->baseline);
    bitcts_backend_close(&s->backend);
    bitcts_plan_destroy(s->plan);
}

static int prepare(run_state *s, char *err, size_t cap)
{
    int st = bitcts_plan_create(&s->plan);
    if (st != BITCTS_OK || select_cases(s) != 0) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    if ((st = load_baseline(s, err, cap)) != BITCTS_OK) {
        return st;
    }
    if ((st = bitcts_backend_open(s->cfg->backend_spec, &s->cfg->options, &s->backend, err, cap))) {
        return st;
    }
    repro_options(s);
    if ((st = bitcts__run_open_log(s, err, cap)) != BITCTS_OK) {
        return st;
    }
    for (size_t i = 0; i < s->selected_count; ++i) { /* --resume: ended cases stay */
        if (s->results[s->selected[i]] == NULL) {
            s->todo[s->todo_count++] = s->selected[i];
        }
    }
    const size_t per_job = s->todo_count / ((size_t)s->cfg->jobs * 8) + 1;
    s->batch_size = per_job < 16 ? 16 : per_job > 256 ? 256 : per_job;
    return BITCTS_OK;
}

int bitcts_run(const bitcts_run_config *cfg, bitcts_run_result *out)
{
    memset(out, 0, sizeof *out);
    run_state s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.started = bitcts_clock_now();
    const time_t wall = time(NULL);
    strftime(s.started_iso, sizeof s.started_iso, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
    signal(SIGPIPE, SIG_IGN);
    out->status = prepare(&s, out->error, sizeof out->error);
    if (out->status != BITCTS_OK) {
        if (out->error[0] == '\0') {
            snprintf(out->error, sizeof out->error, "%s", bitcts_status_message(out->status));
        }
        free_state(&s);
        return out->status;
    }
    run_loop(&s);
    bitcts__run_progress(&s, 1);
    for (size_t i = 0; i < s.selected_count; ++i) { /* never lose a case silently */
        if (s.results[s.selected[i]] == NULL) {
            synthesize(&s, s.selected[i], BITCTS_VERDICT_MISSING, "no result was reported");
        }
    }
    for (size_t i = 0; i < s.selected_count; ++i) {
        const char *v = json_string_value(json_object_get(s.results[s.selected[i]], "verdict"));
        out->failed |= bitcts_verdict_is_failure(bitcts_verdict_parse(v));
    }
    out->cases = s.selected_count;
    out->status = bitcts__run_write_report(&s, out->error, sizeof out->error);
    out->report = s.report;
    out->duration_s = bitcts_clock_now() - s.started;
    s.report = NULL;
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
