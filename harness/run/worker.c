/* SPDX-License-Identifier: MIT */
/* The worker process: loads the backend, then runs cases one at a time: generate, compute the
 * expected output with the reference into memory the backend cannot write, hand the backend
 * guarded buffers twice (complementary guard bytes, two draws of the output's poison), compare.
 * Fatal signals are reported with the faulting address named; damage the backend leaves in the
 * process (resource limits, the channel, the fault handlers) ends the worker after the case that
 * caused it. */
#define _DEFAULT_SOURCE /* syscall */

#include <errno.h>        /* errno, EINTR */
#include <signal.h>       /* sigaction */
#include <stdio.h>        /* snprintf */
#include <stdlib.h>       /* free */
#include <string.h>       /* memcpy */
#include <sys/mman.h>     /* mmap: the headroom probe */
#include <sys/resource.h> /* getrlimit */
#include <sys/stat.h>     /* fstat */
#include <sys/syscall.h>  /* SYS_gettid */
#include <unistd.h>       /* _exit, read */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "case_buffers.h"
#include "case_json.h"
#include "case_result.h"
#include "clock.h"
#include "digest.h"
#include "lent_desc.h"
#include "sandbox.h"
#include "sigsafe.h"
#include "validate.h"
#include "worker.h"
#include "worker_prefetch.h"

/* What the fault handler needs: plain globals, one worker per process. */
static int worker_chan = -1;
static const char *worker_nonce = "";
static bitcts_sandbox_status *worker_status;
static volatile long worker_case = -1;
static uintptr_t worker_stack_top;   /* an address near the top of the main stack */
static uintptr_t worker_stack_limit; /* RLIMIT_STACK, or 64 MiB when unlimited */
static void *worker_reserve;         /* memory released when the backend leaves none */
static long worker_tid;              /* the thread that runs the cases */

#define BITCTS_WORKER_RESERVE ((size_t)4 << 20)     /* enough to report a case */
#define BITCTS_WORKER_HEADROOM ((uint64_t)64 << 20) /* what the probe leaves the workers */

static const int limits_watched[] = {RLIMIT_AS,    RLIMIT_DATA, RLIMIT_STACK, RLIMIT_NOFILE,
                                     RLIMIT_FSIZE, RLIMIT_CPU,  RLIMIT_CORE};
static const char *const limit_names[] = {"RLIMIT_AS",     "RLIMIT_DATA",  "RLIMIT_STACK",
                                          "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CPU",
                                          "RLIMIT_CORE"};
#define LIMITS ((int)(sizeof limits_watched / sizeof limits_watched[0]))

/* The process as the worker left it, to see what a backend call changed. */
typedef struct process_state {
    struct rlimit limits[LIMITS];
    dev_t chan_dev;
    ino_t chan_ino;
    void (*segv_handler)(int, siginfo_t *, void *);
} process_state;

static void send_text(const char *text)
{
    bitcts_sandbox_send(worker_chan, worker_nonce, text, strlen(text));
}

static void send_mark(char kind, long index)
{
    bitcts_sandbox_mark(worker_status, kind, index);
}

/* ---- fatal signals ---- */

/* The case a fault is charged to: the case at hand, unless a thread other than the one that
 * runs the cases (one the backend left running) wrote into a retired buffer: then the case
 * that buffer belonged to, whose calls left that thread behind. */
static uint64_t fault_owner(int sig, const siginfo_t *info, int *late)
{
    uint64_t owner = worker_case >= 0 ? (uint64_t)worker_case : 0;
    uint64_t buffer_case = 0;
    *late = (sig == SIGSEGV || sig == SIGBUS) && syscall(SYS_gettid) != worker_tid &&
            bitcts_guard_owner(info->si_addr, &buffer_case) == BITCTS_GUARD_KIND_RETIRED &&
            (long)buffer_case != worker_case;
    return *late ? buffer_case : owner;
}

static void on_fatal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    char text[600];
    bitcts_sigsafe_line l = {text, sizeof text, 0};
    int late = 0;
    const uint64_t owner = fault_owner(sig, info, &late);
    bitcts_sigsafe_text(&l, "F ");
    bitcts_sigsafe_number(&l, owner);
    bitcts_sigsafe_text(&l, " signal ");
    bitcts_sigsafe_number(&l, (uint64_t)sig);
    if (sig == SIGSEGV || sig == SIGBUS) {
        char where[256];
        bitcts_sigsafe_text(&l, " at ");
        bitcts_sigsafe_hex(&l, (uint64_t)(uintptr_t)info->si_addr);
        bitcts_sigsafe_text(&l, ": ");
        const uintptr_t addr = (uintptr_t)info->si_addr;
        if (addr < 65536) {
            bitcts_sigsafe_text(&l, "a null pointer (an address in the first 64 KiB)");
        } else if (addr < worker_stack_top &&
                   worker_stack_top - addr < worker_stack_limit + 65536) {
            bitcts_sigsafe_text(&l, "the stack, at its limit (a stack overflow)");
        } else {
            bitcts_guard_describe(info->si_addr, where, sizeof where);
            bitcts_sigsafe_text(&l, where);
        }
        if (late) {
            bitcts_sigsafe_text(&l, ", written by a thread the backend left running after that "
                                    "case's calls, during case ");
            bitcts_sigsafe_number(&l, worker_case >= 0 ? (uint64_t)worker_case : 0);
            bitcts_sigsafe_text(&l, " (which goes back to the queue)");
        }
    }
    bitcts_sandbox_send(worker_chan, worker_nonce, text, l.len);
    /* End with the signal itself, whether a fault or a raise() sent it. */
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
}

static void snapshot(process_state *s)
{
    for (int i = 0; i < LIMITS; ++i) {
        getrlimit(limits_watched[i], &s->limits[i]);
    }
    struct stat st;
    s->chan_dev = 0; /* no channel (bitcts_worker_debug): nothing to compare */
    s->chan_ino = 0;
    if (fstat(worker_chan, &st) == 0) {
        s->chan_dev = st.st_dev;
        s->chan_ino = st.st_ino;
    }
    struct sigaction sa;
    sigaction(SIGSEGV, NULL, &sa);
    s->segv_handler = sa.sa_sigaction;
}

/* What a backend call changed in the process that the harness relies on, or "" (then 0). */
static int damage(const process_state *before, const char *call, char *out, size_t cap)
{
    process_state now;
    snapshot(&now);
    for (int i = 0; i < LIMITS; ++i) {
        if (now.limits[i].rlim_cur != before->limits[i].rlim_cur ||
            now.limits[i].rlim_max != before->limits[i].rlim_max) {
            snprintf(out, cap,
                     "the backend changed the process's %s during %s (soft limit %llu to %llu)",
                     limit_names[i], call, (unsigned long long)before->limits[i].rlim_cur,
                     (unsigned long long)now.limits[i].rlim_cur);
            return 1;
        }
    }
    if (now.chan_dev != before->chan_dev || now.chan_ino != before->chan_ino) {
        snprintf(out, cap, "the backend closed or replaced the harness's descriptor during %s",
                 call);
        return 1;
    }
    if (now.segv_handler != before->segv_handler) {
        snprintf(out, cap, "the backend replaced the harness's SIGSEGV handler during %s", call);
        return 1;
    }
    /* The room the harness needs after the call (a MiB of address space, a small allocation):
     * a backend that took it all is charged in the call that took it, not the next case that
     * finds none. Address space only (PROT_NONE, no reserve): no memory is used. */
    void *room =
        mmap(NULL, (size_t)1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *small = malloc(256);
    const int starved = room == MAP_FAILED || small == NULL;
    if (room != MAP_FAILED) {
        munmap(room, (size_t)1 << 20);
    }
    free(small);
    if (starved) {
        snprintf(out, cap,
                 "out of memory: the backend's %s left the process no memory or address space "
                 "for the harness (%s failed after it): charged to the backend",
                 call, small == NULL ? "a 256-byte allocation" : "mapping 1 MiB");
        return 1;
    }
    return 0;
}

/* ---- one case ---- */

typedef struct worker {
    const bitcts_worker_job *job;
    bitcts_backend backend;
    void *instance;
    process_state state; /* taken before the first call; each call's end is compared with it
                          * (a call that changed it damages the worker, which then stops) */
    int state_taken;
    bitcts_case_pool pool; /* the case mappings, reused case after case */
    bitcts_lent_desc lent; /* the description the backend is lent, case after case */
    int damaged;           /* the process is no longer trusted: stop after this case */
    char damage_text[300];
    char violation[400]; /* what the backend did to the case's lent data, or "" */
    char claims[BITCTS_BACKEND_CLAIMS_TEXT]; /* this worker's claims differ from the probe's */
    unsigned long calls;                     /* operator calls made in this process */
    unsigned long calls_at_case;             /* ... when the case at hand began */
    long last_case;                          /* the plan index of the case before it, or -1 */
    int no_result;              /* the case at hand did not run: it goes back to the queue */
    int in_process;             /* bitcts_worker_debug: no channel, no marks on stdout */
    json_t *kept;               /* ... the result of the case, kept instead of sent */
    char start_error[1100];     /* ... why the backend did not start */
    struct worker_batch *batch; /* --batch-cases with a backend that batches, else NULL */
    bitcts_prefetch *prefetch;  /* cases built ahead (a device backend, or batching), or NULL */
} worker;

/* The process's virtual size and resident set in MiB, from /proc/self/statm (0 when unknown). */
static void process_mib(double *vm, double *rss)
{
    *vm = *rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0, resident = 0;
    if (f != NULL && fscanf(f, "%llu %llu", &pages, &resident) == 2) {
        const double page = (double)sysconf(_SC_PAGESIZE);
        *vm = (double)pages * page / (1 << 20);
        *rss = (double)resident * page / (1 << 20);
    }
    if (f != NULL) {
        fclose(f);
    }
}

/* The harness could not get memory or address space for its own work on a case. Once the
 * backend has been called in this process, what it holds there is the likely cause, and the
 * backend is charged: the case fails, naming what the process held, and the worker ends after
 * it (its successor starts clean). Before any call, it is the harness's: internal_error. */
static void out_of_memory(worker *w, const char *what, bitcts_case_result *r)
{
    double vm, rss;
    process_mib(&vm, &rss);
    struct rlimit as;
    char limit[64] = "unlimited";
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        snprintf(limit, sizeof limit, "%.0f MiB", (double)as.rlim_cur / (1 << 20));
    }
    if (w->calls == 0) {
        r->verdict = BITCTS_VERDICT_INTERNAL_ERROR;
        snprintf(r->detail, sizeof r->detail,
                 "the harness ran out of memory or address space %s (the worker holds %.0f MiB "
                 "of address space, %.0f MiB resident; RLIMIT_AS %s)",
                 what, vm, rss, limit);
        return;
    }
    free(worker_reserve); /* enough for this case's result to be written and sent */
    worker_reserve = NULL;
    w->damaged = 1;
    const int earlier = w->calls == w->calls_at_case && w->last_case >= 0;
    snprintf(w->damage_text, sizeof w->damage_text,
             "out of memory: after the backend's %lu operator calls %s, the harness could get "
             "no memory or address space %s%s (the worker holds %.0f MiB of address space, "
             "%.0f MiB resident; RLIMIT_AS %s): charged to the backend",
             earlier ? w->calls : w->calls - w->calls_at_case,
             earlier ? "in this worker" : "for this case", what,
             earlier ? " for the next case" : "", vm, rss, limit);
    if (earlier) { /* the memory went in an earlier case's calls: the case before is charged,
                    * and this one, which never reached the backend, goes back to the queue */
        char line[sizeof w->damage_text + 32];
        snprintf(line, sizeof line, "O %ld %s", w->last_case, w->damage_text);
        send_text(line);
        w->no_result = 1;
    }
}

/* Why the backend's claimed capabilities exclude the case, or NULL. */
static const char *unsupported_reason(const bitcts_backend *b, const bitcts_case_key *k,
                                      int in_place, char *buf, size_t cap)
{
    return bitcts__run_unclaimed_reason(&b->caps, k, in_place, buf, cap);
}

/* NotSupported is a failure when the backend's claimed feature level requires the case. */
static void not_supported(const bitcts_backend *b, const bitcts_case_key *k, const char *reason,
                          bitcts_case_result *r)
{
    char fl[8], have[8];
    bitcts_fl_format(k->feature_level, fl, sizeof fl);
    bitcts_fl_format(b->caps.feature_level, have, sizeof have);
    if (k->feature_level <= b->caps.feature_level) {
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail,
                 "not supported (%s), but the claimed feature level %s requires it (case needs %s)",
                 reason, have, fl);
    } else {
        r->verdict = BITCTS_VERDICT_NOT_SUPPORTED;
        snprintf(r->detail, sizeof r->detail, "%s (case needs feature level %s; backend claims %s)",
                 reason, fl, have);
    }
}

static void leave_backend_lent(worker *w, long idx, const char *call, const bitcts_lent_desc *lent);

/* The process's state before a call: taken once, and still what the last call's end was
 * compared with (a call that changed it damaged the worker). */
static void state_before_call(worker *w)
{
    if (!w->state_taken) {
        snapshot(&w->state);
        w->state_taken = 1;
    }
}

/* Calls into the backend are bracketed: mark P, then C, and what the call changed in the
 * process is looked at. */
static void enter_backend(worker *w, long idx)
{
    ++w->calls;
    state_before_call(w);
    send_mark('P', idx);
}

static void leave_backend_lent(worker *w, long idx, const char *call, const bitcts_lent_desc *lent)
{
    send_mark('C', idx);
    if (w->violation[0] == '\0') {
        (void)bitcts_lent_desc_changed(lent, call, w->violation, sizeof w->violation);
    }
    if (!w->damaged && damage(&w->state, call, w->damage_text, sizeof w->damage_text)) {
        w->damaged = 1;
    }
}

static void leave_backend(worker *w, long idx, const char *call)
{
    leave_backend_lent(w, idx, call, &w->lent);
}

static void run_negative(worker *w, size_t idx, const bitcts_case_data *data, bitcts_case_result *r)
{
    const bitcts_case_key *k = &w->job->plan->cases[idx];
    const bitcts_abi_operator_desc *desc = bitcts_lent_desc_lend(&w->lent, &data->desc, idx);
    if (desc == NULL) {
        out_of_memory(w, "lending the description", r);
        return;
    }
    void *op = NULL;
    enter_backend(w, (long)idx);
    const double t0 = bitcts_clock_now();
    const int32_t st = w->backend.table->operator_create(w->instance, desc, &op);
    if (st == BITCTS_ABI_OK) {
        w->backend.table->operator_destroy(w->instance, op);
    }
    r->duration_ms = 1e3 * (bitcts_clock_now() - t0);
    leave_backend(w, (long)idx, "operator_create");
    char why[BITCTS_BACKEND_TEXT];
    if (st == BITCTS_ABI_OK) {
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail, "accepted an invalid description (rule %s: %s)",
                 bitcts_rule_id((int)k->rule), bitcts_rule_text((int)k->rule));
    } else {
        r->verdict = BITCTS_VERDICT_PASS;
        snprintf(r->detail, sizeof r->detail, "rejected (rule %s) with status %d: %s",
                 bitcts_rule_id((int)k->rule), st,
                 bitcts_backend_last_error(&w->backend, w->instance, why, sizeof why));
    }
}

/* One execution of the operator on armed buffers; the status of create or execute. */
static int32_t execute_pass(worker *w, size_t idx, const bitcts_abi_operator_desc *desc,
                            bitcts_case_buffers *x, void **op, const char **failed_call)
{
    const void *inputs[2] = {x->in[0], x->in[1]};
    int32_t st = BITCTS_ABI_OK;
    enter_backend(w, (long)idx);
    if (*op == NULL) {
        st = w->backend.table->operator_create(w->instance, desc, op);
        *failed_call = "operator_create";
        if (w->violation[0] == '\0') { /* named apart: create and execute share a bracket */
            (void)bitcts_lent_desc_changed(&w->lent, *failed_call, w->violation,
                                           sizeof w->violation);
        }
    }
    if (st == BITCTS_ABI_OK) {
        st = w->backend.table->operator_execute(w->instance, *op, inputs, x->out);
        *failed_call = "operator_execute";
    }
    leave_backend(w, (long)idx, *failed_call);
    return st;
}

/* A status from the backend: NotSupported (from create) or a failure naming the call. */
static void backend_status(worker *w, const bitcts_case_key *k, int32_t st, const char *call,
                           bitcts_case_result *r)
{
    char why[BITCTS_BACKEND_TEXT];
    bitcts_backend_last_error(&w->backend, w->instance, why, sizeof why);
    if (st == BITCTS_ABI_E_NOT_SUPPORTED && strcmp(call, "operator_create") == 0) {
        char text[BITCTS_BACKEND_TEXT + 32];
        snprintf(text, sizeof text, "operator_create: %s", why);
        not_supported(&w->backend, k, text, r);
        return;
    }
    r->verdict = BITCTS_VERDICT_FAIL;
    snprintf(r->detail, sizeof r->detail, "%s returned status %d (%s): %s", call, st,
             bitcts_status_name(st), why);
}

/* The second pass: the same execution with complementary guard bytes and the second draw of
 * the output's poison. Whatever a stray write stored, it differs from one of the two patterns;
 * and a deterministic backend that reads nothing outside its inputs' elements writes the very
 * bytes it wrote the first time, so an output computed from a guard or poison byte changes. */
static void check_second_pass(const bitcts_compare_args *args, const uint8_t *first_out,
                              bitcts_case_result *r)
{
    char why[sizeof r->detail];
    if (bitcts_compare_untouched(args, why, sizeof why)) {
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail, "%s (seen with the complementary guard bytes)", why);
        return;
    }
    const uint64_t bytes = args->desc->output.total_tensor_size_in_bytes;
    if (memcmp(first_out, args->output_after, (size_t)bytes) != 0) {
        bitcts_case_result second;
        memset(&second, 0, sizeof second);
        (void)bitcts_compare_case(args, &second);
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail,
                 "nondeterministic or reads outside its inputs: a second execution on the same "
                 "inputs, with complementary guard bytes and another output poison, wrote other "
                 "bytes (output digest %s, then %s%s%s)",
                 r->digest, second.digest, second.detail[0] != '\0' ? "; " : "", second.detail);
    }
}

/* A pass's judgement of one case's output: the first pass compares it with the reference, the
 * second with the first pass's bytes. @return BITCTS_OK, or the comparison's status (out of
 * memory). */
static int judge_pass(const bitcts_case_buffers *x, const bitcts_op_desc *desc, int recorded,
                      uint8_t *guards, const uint8_t *first_out, uint32_t pass,
                      bitcts_case_result *r)
{
    bitcts_compare_args args;
    bitcts_case_buffers_compare_args(x, desc, recorded, guards, &args);
    if (pass == 1) {
        check_second_pass(&args, first_out, r);
        return BITCTS_OK;
    }
    return bitcts_compare_case(&args, r);
}

/* Whether a case's verdict is final after a pass: a failure, or the harness's own error. */
static int case_settled(const bitcts_case_result *r)
{
    return bitcts_verdict_is_failure(r->verdict) || r->verdict == BITCTS_VERDICT_INTERNAL_ERROR;
}

/* Two passes with complementary guards and two poisons; the verdict of the first failing one. */
static void run_passes(worker *w, size_t idx, const bitcts_case_data *d, bitcts_case_buffers *x,
                       int recorded, bitcts_case_result *r)
{
    const bitcts_case_key *k = &w->job->plan->cases[idx];
    const bitcts_abi_operator_desc *desc = bitcts_lent_desc_lend(&w->lent, &d->desc, idx);
    const size_t out_bytes = (size_t)d->desc.output.total_tensor_size_in_bytes;
    uint8_t *guards = malloc(x->guard_bytes + 1);
    uint8_t *first_out = malloc(out_bytes + 1);
    void *op = NULL;
    for (uint32_t pass = 0;
         desc != NULL && guards != NULL && first_out != NULL && pass < BITCTS_CASE_PASSES; ++pass) {
        bitcts_case_buffers_arm(x, pass);
        const char *call = "operator_create";
        const double t0 = bitcts_clock_now();
        const int32_t st = execute_pass(w, idx, desc, x, &op, &call);
        if (pass == 0) {
            r->duration_ms = 1e3 * (bitcts_clock_now() - t0);
        }
        if (st != BITCTS_ABI_OK) {
            backend_status(w, k, st, call, r);
            break;
        }
        if (judge_pass(x, &d->desc, recorded, guards, first_out, pass, r) != BITCTS_OK) {
            out_of_memory(w, "comparing the output", r);
        }
        if (case_settled(r) || w->damaged) {
            break;
        }
        memcpy(first_out, x->out, out_bytes);
    }
    if (op != NULL) {
        enter_backend(w, (long)idx);
        w->backend.table->operator_destroy(w->instance, op);
        leave_backend(w, (long)idx, "operator_destroy");
    }
    if (desc == NULL || guards == NULL || first_out == NULL) {
        out_of_memory(w, "preparing the comparison", r);
    }
    free(guards);
    free(first_out);
}

/* A valid case; `c` its data, and its expected outputs when they were built ahead. */
static void run_valid(worker *w, size_t idx, const bitcts_prefetched *c, bitcts_case_result *r)
{
    const bitcts_case_data *d = &c->data;
    const bitcts_case_key *k = &w->job->plan->cases[idx];
    char why[160];
    const char *reason = unsupported_reason(&w->backend, k, d->alias_input >= 0, why, sizeof why);
    if (reason != NULL) {
        not_supported(&w->backend, k, reason, r);
        return;
    }
    const int recorded = bitcts_case_is_recorded(k);
    bitcts_case_buffers x;
    const int prepared = bitcts_case_buffers_prepare_given(
        d, recorded, idx, c->expected, c->expected_mask, &w->pool, &x, r->detail, sizeof r->detail);
    if (prepared != 0) {
        bitcts_case_buffers_retire(&x);
        if (prepared == -1) {
            out_of_memory(w, "mapping the case's buffers", r);
        }
        return; /* -2: internal_error, the reference refused the case */
    }
    run_passes(w, idx, d, &x, recorded, r);
    bitcts_case_buffers_retire(&x);
}

/* "E <index> <case object>" as one allocated string, or NULL when memory is short (any of
 * the allocations failed: the caller frees the reserve and tries once more). */
static char *encode_result(const json_t *obj, size_t idx)
{
    char *text = obj != NULL ? json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    if (text == NULL) {
        return NULL;
    }
    const size_t len = strlen(text);
    char *line = malloc(len + 32);
    if (line != NULL) {
        const int head = snprintf(line, 32, "E %zu ", idx);
        memcpy(line + head, text, len + 1);
    }
    free(text);
    return line;
}

/* Sends "E <index> <case object>". */
static void send_result(worker *w, size_t idx, const bitcts_case_data *d,
                        const bitcts_case_result *r)
{
    const bitcts_case_key *k = &w->job->plan->cases[idx];
    char repro[BITCTS_CASE_REPRO_CAP];
    bitcts_case_repro(w->job->backend->spec, w->job->repro_options, w->job->seed, k->id, repro,
                      sizeof repro);
    json_t *obj = bitcts_case_result_json(k, idx, r, repro);
    if (obj != NULL && d != NULL) { /* what the case is, next to what it got (optional) */
        json_t *described = bitcts_json_case(k, d);
        json_t *description =
            described != NULL ? bitcts_case_description(described, r->verdict) : NULL;
        json_decref(described);
        if (description != NULL) {
            json_object_set_new(obj, "description", description);
        }
    }
    if (w->in_process) {
        json_decref(w->kept);
        w->kept = obj;
        return;
    }
    char *line = encode_result(obj, idx);
    json_decref(obj);
    if (line == NULL) { /* memory is short: out of memory, charged as anywhere else (the
                         * reserve freed, the worker ends), the result without its description */
        bitcts_case_result oom = *r;
        out_of_memory(w, "writing the case's result", &oom);
        if (w->no_result) { /* an earlier case's calls took it: this one goes back */
            return;
        }
        if (w->damaged) {
            oom.verdict = BITCTS_VERDICT_FAIL;
            snprintf(oom.detail, sizeof oom.detail, "%s", w->damage_text);
        }
        obj = bitcts_case_result_json(k, idx, &oom, repro);
        line = encode_result(obj, idx);
        json_decref(obj);
    }
    if (line == NULL) {
        return; /* the parent reports the case as missing its result */
    }
    bitcts_sandbox_send(worker_chan, worker_nonce, line, strlen(line));
    free(line);
}

/* A case begins: the fault handler's case, its phase mark and output segment. */
static void case_begin(worker *w, size_t idx)
{
    worker_case = (long)idx;
    send_mark('B', (long)idx);
    if (!w->in_process) {
        bitcts_sandbox_mark_output(worker_nonce, (int64_t)idx);
    }
    w->violation[0] = '\0';
    w->calls_at_case = w->calls;
}

/* A case ends: what the backend did to its lent data or to the process decides over its own
 * verdict; the result is sent. */
static void case_end(worker *w, size_t idx, const bitcts_case_data *data, bitcts_case_result *r)
{
    if (w->violation[0] != '\0') { /* the case's own verdict was judged on the host's copy */
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail, "%s", w->violation);
    }
    if (w->damaged) { /* the case that did it fails, and the process ends after it */
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail, "%s", w->damage_text);
    }
    if (!w->no_result) {
        send_result(w, idx, data, r);
    }
    w->last_case = (long)idx;
}

/* The case at job position pos (plan index idx) with its expected outputs when they were built
 * ahead, else its data alone (expected NULL), built here. */
static int case_data(worker *w, size_t pos, size_t idx, bitcts_prefetched *c)
{
    if (w->prefetch != NULL && bitcts_prefetch_take(w->prefetch, pos, c)) {
        return BITCTS_OK;
    }
    memset(c, 0, sizeof *c);
    return bitcts_plan_case_data(w->job->plan, idx, w->job->seed, &c->data);
}

static void run_case(worker *w, size_t pos)
{
    const size_t idx = w->job->indices[pos];
    const bitcts_case_key *k = &w->job->plan->cases[idx];
    bitcts_case_result r;
    memset(&r, 0, sizeof r);
    r.verdict = BITCTS_VERDICT_INTERNAL_ERROR;
    case_begin(w, idx);
    bitcts_prefetched pc;
    const int st = case_data(w, pos, idx, &pc);
    const bitcts_case_data *const data = &pc.data;
    if (w->claims[0] != '\0') { /* the backend is not asked: what it claims here is not known */
        r.verdict = BITCTS_VERDICT_FAIL;
        snprintf(r.detail, sizeof r.detail, "%s", w->claims);
    } else if (st != BITCTS_OK) {
        snprintf(r.detail, sizeof r.detail, "cannot generate the case: %s",
                 bitcts_status_message(st));
    } else if (k->pattern == BITCTS_PAT_INVALID) {
        run_negative(w, idx, data, &r);
    } else {
        run_valid(w, idx, &pc, &r);
    }
    case_end(w, idx, st == BITCTS_OK ? data : NULL, &r);
    bitcts_prefetched_free(&pc);
}

/* ---- batched calls (--batch-cases) ---- */

/* A batched call takes up to job->batch_cases consecutive valid cases, and cases whose buffers
 * together stay within this many bytes (the first always goes). */
#define BITCTS_WORKER_BATCH_BYTES ((uint64_t)64 << 20)
#define BITCTS_WORKER_BATCH_MAX 64u

/* One case of a batched call: everything run_passes keeps for one case. */
typedef struct batch_case {
    size_t idx;
    bitcts_prefetched pre; /* its data (and expected outputs when built ahead) */
    bitcts_case_result r;
    bitcts_case_buffers x;
    const bitcts_abi_operator_desc *desc; /* lent */
    void *op;
    int recorded;
    int settled; /* a failing verdict: no further pass */
    uint8_t *guards;
    uint8_t *first_out;
    const void *inputs[2];
} batch_case;

/* Each case of a call has its own mappings (two generations, as a worker's own pool: the
 * previous call's are retired) and its own lent description. */
typedef struct worker_batch {
    const bitcts_abi_batch_ext *ext;
    uint32_t max;
    bitcts_case_pool pools[BITCTS_WORKER_BATCH_MAX];
    bitcts_lent_desc lents[BITCTS_WORKER_BATCH_MAX];
    batch_case cases[BITCTS_WORKER_BATCH_MAX];
    bitcts_abi_batch_item items[BITCTS_WORKER_BATCH_MAX];
    size_t where[BITCTS_WORKER_BATCH_MAX]; /* items[i] is cases[where[i]] */
} worker_batch;

/* Batching is on when asked for, offered by the backend, and the address space is not limited
 * (each case of a call takes a worker's no-access zones: under RLIMIT_AS they were sized for
 * one case at a time). */
static void batch_start(worker *w)
{
    const bitcts_plugin_table *t = w->backend.table;
    struct rlimit as;
    if (w->job->batch_cases <= 1 || w->job->probe || w->in_process || t->get_extension == NULL ||
        getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY) {
        return;
    }
    const bitcts_abi_batch_ext *ext = t->get_extension(BITCTS_ABI_EXT_BATCH_EXECUTE);
    if (ext == NULL || ext->struct_size < sizeof *ext || ext->execute_batch == NULL) {
        return;
    }
    w->batch = calloc(1, sizeof *w->batch);
    if (w->batch != NULL) {
        w->batch->ext = ext;
        w->batch->max = w->job->batch_cases < BITCTS_WORKER_BATCH_MAX ? w->job->batch_cases
                                                                      : BITCTS_WORKER_BATCH_MAX;
    }
}

static void batch_end(worker *w)
{
    for (uint32_t i = 0; w->batch != NULL && i < BITCTS_WORKER_BATCH_MAX; ++i) {
        bitcts_case_pool_free(&w->batch->pools[i]);
        bitcts_lent_desc_free(&w->batch->lents[i]);
    }
    free(w->batch);
    w->batch = NULL;
}

static void batch_case_free(batch_case *c)
{
    bitcts_case_buffers_retire(&c->x);
    bitcts_prefetched_free(&c->pre);
    free(c->guards);
    free(c->first_out);
    c->guards = c->first_out = NULL;
}

/* Generates the case at job position pos and, when it can join a batched call (valid, claimed, its
 * memory mapped), begins it: buffers from the slot's pool, the description lent, operator_create in
 * its own bracket. @return 1: it joins; 0: it ended on its own (create refused it, or changed its
 * description or the process: sent as run_case would); -1: it cannot join (nothing begun). */
static int batch_add(worker *w, size_t pos, uint32_t slot, uint64_t *bytes)
{
    worker_batch *b = w->batch;
    batch_case *c = &b->cases[slot];
    const size_t idx = w->job->indices[pos];
    const bitcts_case_key *k = &w->job->plan->cases[idx];
    char why[160];
    memset(c, 0, sizeof *c);
    if (w->claims[0] != '\0' || k->pattern == BITCTS_PAT_INVALID ||
        case_data(w, pos, idx, &c->pre) != BITCTS_OK) {
        bitcts_prefetched_free(&c->pre);
        return -1;
    }
    const bitcts_case_data *const data = &c->pre.data;
    const size_t out_bytes = (size_t)data->desc.output.total_tensor_size_in_bytes;
    c->idx = idx;
    c->recorded = bitcts_case_is_recorded(k);
    c->r.verdict = BITCTS_VERDICT_INTERNAL_ERROR;
    if (unsupported_reason(&w->backend, k, data->alias_input >= 0, why, sizeof why) != NULL) {
        bitcts_prefetched_free(&c->pre);
        return -1;
    }
    case_begin(w, idx);
    if (bitcts_case_buffers_prepare_given(data, c->recorded, idx, c->pre.expected,
                                          c->pre.expected_mask, &b->pools[slot], &c->x, c->r.detail,
                                          sizeof c->r.detail) != 0 ||
        (c->desc = bitcts_lent_desc_lend(&b->lents[slot], &data->desc, idx)) == NULL ||
        (c->guards = malloc(c->x.guard_bytes + 1)) == NULL ||
        (c->first_out = malloc(out_bytes + 1)) == NULL) {
        batch_case_free(c); /* it runs alone, where what went wrong is charged as ever */
        return -1;
    }
    enter_backend(w, (long)idx);
    const int32_t st = w->backend.table->operator_create(w->instance, c->desc, &c->op);
    leave_backend_lent(w, (long)idx, "operator_create", &b->lents[slot]);
    if (st == BITCTS_ABI_OK && w->violation[0] == '\0' && !w->damaged) {
        *bytes += c->x.in_bytes[0] + c->x.in_bytes[1] + c->x.out_bytes;
        c->inputs[0] = c->x.in[0];
        c->inputs[1] = c->x.in[1];
        return 1;
    }
    if (st != BITCTS_ABI_OK) {
        backend_status(w, k, st, "operator_create", &c->r);
    } else if (!w->damaged) { /* a changed description fails the case: no execution */
        enter_backend(w, (long)idx);
        w->backend.table->operator_destroy(w->instance, c->op);
        leave_backend_lent(w, (long)idx, "operator_destroy", &b->lents[slot]);
    }
    case_end(w, idx, data, &c->r);
    batch_case_free(c);
    return 0;
}

/* One batched call over the cases not yet settled, for `pass`; then each one's comparison.
 * @return 0, or -1 with `why` when the call or what it left cannot be charged to one case. */
static int batch_pass(worker *w, uint32_t n, uint32_t pass, char *why, size_t cap)
{
    worker_batch *b = w->batch;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; ++i) {
        batch_case *c = &b->cases[i];
        if (!c->settled) {
            bitcts_case_buffers_arm(&c->x, pass);
            b->items[m] =
                (bitcts_abi_batch_item){sizeof b->items[m], -1, c->op, c->inputs, c->x.out};
            b->where[m++] = i;
        }
    }
    if (m == 0) {
        return 0;
    }
    const long first = (long)b->cases[b->where[0]].idx;
    worker_case = first;
    worker_status->batch = m; /* the call's deadline: the sum of its cases' */
    ++w->calls;
    state_before_call(w);
    send_mark('P', first);
    const double t0 = bitcts_clock_now();
    const int32_t st = b->ext->execute_batch(w->instance, m, b->items);
    const double ms = 1e3 * (bitcts_clock_now() - t0) / m;
    send_mark('C', first);
    int bad = st != BITCTS_ABI_OK;
    snprintf(why, cap, "returned status %d", st);
    if (!bad && damage(&w->state, "execute_batch", w->damage_text, sizeof w->damage_text)) {
        bad = 1;
        snprintf(why, cap, "left damage: %s", w->damage_text);
    }
    for (uint32_t j = 0; j < m && !bad; ++j) {
        const batch_case *c = &b->cases[b->where[j]];
        bad = b->items[j].status != BITCTS_ABI_OK;
        if (bad) {
            snprintf(why, cap, "returned status %d for case %zu", b->items[j].status, c->idx);
        } else if (bitcts_lent_desc_changed(&b->lents[b->where[j]], "execute_batch", w->violation,
                                            sizeof w->violation)) {
            bad = 1;
            snprintf(why, cap, "changed the description of case %zu: %s", c->idx, w->violation);
        }
    }
    for (uint32_t j = 0; j < m && !bad; ++j) {
        batch_case *c = &b->cases[b->where[j]];
        worker_case = (long)c->idx;
        send_mark('C', (long)c->idx);
        if (pass == 0) {
            c->r.duration_ms = ms;
        }
        bad = judge_pass(&c->x, &c->pre.data.desc, c->recorded, c->guards, c->first_out, pass,
                         &c->r) != BITCTS_OK;
        if (bad) {
            snprintf(why, cap, "left the harness no memory to compare case %zu", c->idx);
        }
        c->settled = case_settled(&c->r);
        if (!c->settled && !bad) {
            memcpy(c->first_out, c->x.out, (size_t)c->x.out_bytes);
        }
    }
    return bad ? -1 : 0;
}

/* The batched calls of n begun cases, then each case's operator_destroy in its own bracket and
 * its result. A call that goes wrong (a status other than OK, damage to the process, a changed
 * description, no memory to compare) ends the worker with no result for any of its cases: the
 * parent runs them again one call each (their M line, and the page's batch count). */
static void batch_run(worker *w, uint32_t n)
{
    worker_batch *b = w->batch;
    char line[BITCTS_WORKER_BATCH_MAX * 21 + 4] = "M";
    size_t used = 1;
    for (uint32_t i = 0; i < n; ++i) {
        used += (size_t)snprintf(line + used, sizeof line - used, " %zu", b->cases[i].idx);
    }
    send_text(line);
    char why[sizeof w->violation + 64];
    if (batch_pass(w, n, 0, why + 2, sizeof why - 2) != 0 ||
        batch_pass(w, n, 1, why + 2, sizeof why - 2) != 0) {
        why[0] = 'U';
        why[1] = ' ';
        send_text(why);
        w->damaged = 1; /* the page keeps the batch count: the cases run again alone */
        for (uint32_t i = 0; i < n; ++i) {
            batch_case_free(&b->cases[i]);
        }
        return;
    }
    worker_status->batch = 0;
    for (uint32_t i = 0; i < n; ++i) {
        batch_case *c = &b->cases[i];
        if (!w->damaged) {
            case_begin(w, c->idx);
            enter_backend(w, (long)c->idx);
            w->backend.table->operator_destroy(w->instance, c->op);
            leave_backend_lent(w, (long)c->idx, "operator_destroy", &b->lents[i]);
            bitcts_case_buffers_retire(&c->x);
            case_end(w, c->idx, &c->pre.data, &c->r);
        }
        batch_case_free(c); /* after damage the rest go back to the queue: no result */
    }
}

/* Cases from job position `start`: a batched call of those that can join one, or the first
 * alone when it cannot. @return the job positions consumed. */
static size_t run_group(worker *w, size_t start)
{
    uint64_t bytes = 0;
    uint32_t n = 0;
    size_t used = 0;
    while (start + used < w->job->count && n < w->batch->max && bytes < BITCTS_WORKER_BATCH_BYTES &&
           !w->damaged) {
        const int joined = batch_add(w, start + used, n, &bytes);
        if (joined < 0) {
            break;
        }
        ++used;
        n += (uint32_t)joined;
    }
    if (used == 0) {
        run_case(w, start);
        return 1;
    }
    if (w->damaged) { /* damage in a create: the cases begun before it go back to the queue */
        for (uint32_t i = 0; i < n; ++i) {
            batch_case_free(&w->batch->cases[i]);
        }
        return used;
    }
    if (n > 0) {
        batch_run(w, n);
    }
    return used;
}

/* ---- the process ---- */

/* Cases built ahead (harness/run/worker_prefetch.h) where the backend's calls wait on a device or
 * are batched, and the address space is not limited (what the thread holds comes on top of the
 * worker's zones). A device backend's worker starts it before instance_create: the first cases
 * are built while the device is brought up. */
static void prefetch_start(worker *w)
{
    struct rlimit as;
    if (w->prefetch != NULL || w->job->probe || w->job->count < 2 ||
        (!w->job->device && w->batch == NULL) || getrlimit(RLIMIT_AS, &as) != 0 ||
        as.rlim_cur != RLIM_INFINITY) {
        return;
    }
    w->prefetch = bitcts_prefetch_start(w->job->plan, w->job->seed, w->job->indices, w->job->count,
                                        w->job->prefetch_threads);
}

/* Reports a refusal by the host as S (and keeps it) and returns -1. */
static int refuse_start(worker *w, int st, const char *err)
{
    char line[1100];
    snprintf(line, sizeof line, "S %d %s", st, err);
    snprintf(w->start_error, sizeof w->start_error, "%s", err);
    send_text(line);
    return -1;
}

/* Loads the backend and creates the instance; a refusal by the host is reported as S. */
static int start(worker *w)
{
    char err[1024];
    send_mark('L', -1);
    int st = bitcts_backend_load(w->job->backend, &w->backend, err, sizeof err);
    if (st != BITCTS_OK) {
        return refuse_start(w, st, err);
    }
    send_mark('I', -1);
    st = bitcts_backend_instance(&w->backend, &w->instance, err, sizeof err);
    if (st != BITCTS_OK) {
        return refuse_start(w, st, err);
    }
    send_mark('Q', -1);
    st = bitcts_backend_query(&w->backend, w->instance, err, sizeof err);
    if (st == BITCTS_OK && bitcts_guard_choose_zone(w->job->probe ? BITCTS_WORKER_HEADROOM : 0, err,
                                                    sizeof err) != 0) {
        st = BITCTS_E_OUT_OF_MEMORY; /* the address space is too small: said up front */
    }
    if (st != BITCTS_OK) {
        return refuse_start(w, st, err);
    }
    worker_reserve = malloc(BITCTS_WORKER_RESERVE);
    return 0;
}

/* Whether this worker's instance claims what the probe's did: the verdicts of every case
 * follow the claims, and the report states the probe's; a backend whose claims change from
 * instance to instance has every case of such a worker fail with the difference. */
static void compare_claims(worker *w)
{
    char mine[BITCTS_BACKEND_CLAIMS_TEXT];
    bitcts_backend_claims_text(&w->backend, mine, sizeof mine);
    if (w->job->claims == NULL || w->job->claims[0] == '\0' || strcmp(mine, w->job->claims) == 0) {
        return;
    }
    bitcts_backend_claims_diff(w->job->claims, mine, w->claims, sizeof w->claims);
}

/* Y and R: the claims and the identity, both built (the backend's instance_info answers in Q)
 * before a probe that waits for its first batch marks the harness's phase B and sends them: when
 * the parent has read R, the backend's phase is over, so no deadline of Q can fall on the wait.
 * Returns 1 when R was sent (the parent waits for it before it hands the first batch). */
static int send_identity(worker *w)
{
    char claims[BITCTS_BACKEND_CLAIMS_TEXT + 2] = "Y ";
    bitcts_backend_claims_text(&w->backend, claims + 2, sizeof claims - 2);
    json_t *id = bitcts_backend_identity_json(&w->backend);
    if (id != NULL) { /* the device or CPU the instance runs on, where the backend says */
        json_object_set_new(id, "device", bitcts_backend_device_json(&w->backend, w->instance));
    }
    char *text = id != NULL ? json_dumps(id, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(id);
    const size_t len = text != NULL ? strlen(text) : 0;
    char *line = text != NULL ? malloc(len + 3) : NULL;
    const int sent = line != NULL;
    if (w->job->await_batch && sent) {
        send_mark('B', -1);
    }
    send_text(claims);
    if (line != NULL) {
        memcpy(line, "R ", 2);
        memcpy(line + 2, text, len);
        bitcts_sandbox_send(worker_chan, worker_nonce, line, len + 2);
    }
    free(line);
    free(text);
    return sent;
}

unsigned char *bitcts_worker_batch_encode(const bitcts_worker_job *job, size_t *size)
{
    if (job->count == 0 || job->count > UINT32_MAX) {
        return NULL;
    }
    const bitcts_worker_batch_head head = {.magic = BITCTS_WORKER_BATCH_MAGIC,
                                           .count = (uint32_t)job->count,
                                           .batch_cases = job->batch_cases,
                                           .device = job->device != 0,
                                           .prefetch_threads = job->prefetch_threads};
    const size_t body = sizeof head + job->count * sizeof(uint32_t);
    unsigned char *m = malloc(body + BITCTS_DIGEST_HEX - 1);
    if (m == NULL) {
        return NULL;
    }
    memcpy(m, &head, sizeof head);
    for (size_t i = 0; i < job->count; ++i) {
        const uint32_t idx = (uint32_t)job->indices[i];
        memcpy(m + sizeof head + i * sizeof idx, &idx, sizeof idx);
    }
    char digest[BITCTS_DIGEST_HEX];
    bitcts_digest_bytes(m, body, digest);
    memcpy(m + body, digest, BITCTS_DIGEST_HEX - 1);
    *size = body + BITCTS_DIGEST_HEX - 1;
    return m;
}

/* n bytes from standard input: 1, or 0 at its end or on an error. */
static int read_input(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        const ssize_t got = read(0, p, n);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return 0;
        }
        p += got;
        n -= (size_t)got;
    }
    return 1;
}

/* A probe kept as a worker: its batch (bitcts_worker_batch_encode) into `job`, a copy of its
 * own with the batch's fields and probe off, the indices malloc'd into *items. 0: none (the
 * end of input, or a message that is not whole and sound); the process then ends as a probe. */
static int await_batch(const worker *w, bitcts_worker_job *job, size_t **items)
{
    if (!w->job->await_batch) {
        return 0;
    }
    bitcts_worker_batch_head head;
    if (!read_input(&head, sizeof head) || head.magic != BITCTS_WORKER_BATCH_MAGIC ||
        head.count == 0 || head.count > w->job->plan->count || head.reserved != 0) {
        return 0;
    }
    const size_t body = sizeof head + (size_t)head.count * sizeof(uint32_t);
    unsigned char *m = malloc(body);
    size_t *out = malloc((size_t)head.count * sizeof *out);
    char digest[BITCTS_DIGEST_HEX] = "";
    char want[BITCTS_DIGEST_HEX];
    int ok = m != NULL && out != NULL;
    if (ok) {
        memcpy(m, &head, sizeof head);
        ok = read_input(m + sizeof head, body - sizeof head) &&
             read_input(digest, BITCTS_DIGEST_HEX - 1);
    }
    if (ok) {
        bitcts_digest_bytes(m, body, want);
        ok = memcmp(digest, want, BITCTS_DIGEST_HEX - 1) == 0;
    }
    for (size_t i = 0; ok && i < head.count; ++i) {
        uint32_t idx;
        memcpy(&idx, m + sizeof head + i * sizeof idx, sizeof idx);
        out[i] = idx;
        ok = idx < w->job->plan->count;
    }
    free(m);
    if (!ok) {
        free(out);
        return 0;
    }
    *job = *w->job;
    job->probe = job->await_batch = 0;
    job->claims = NULL; /* its own are the probe's, which every other worker repeats */
    job->indices = out;
    job->count = head.count;
    job->batch_cases = head.batch_cases;
    job->device = head.device != 0;
    job->prefetch_threads = head.prefetch_threads;
    *items = out;
    return 1;
}

void bitcts_worker_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status)
{
    char top = 0;
    struct rlimit stack;
    worker_stack_top = (uintptr_t)&top;
    worker_stack_limit = getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY
                             ? (uintptr_t)stack.rlim_cur
                             : (uintptr_t)64 << 20;
    worker_tid = (long)syscall(SYS_gettid);
    worker_chan = chan;
    worker_nonce = nonce;
    worker_status = status;
    bitcts_sandbox_catch_fatal(on_fatal);
    worker w;
    memset(&w, 0, sizeof w);
    w.job = arg;
    w.last_case = -1;
    bitcts_worker_job taken;
    size_t *items = NULL;
    prefetch_start(&w); /* a device backend's */
    if (start(&w) == 0) {
        if (w.job->probe) {
            if (send_identity(&w) && await_batch(&w, &taken, &items)) {
                w.job = &taken; /* the probe's instance runs the first batch, */
                char err[512];  /* in a worker's zones, not the probe's */
                (void)bitcts_guard_choose_zone(0, err, sizeof err);
            }
        } else {
            compare_claims(&w);
        }
        batch_start(&w);
        prefetch_start(&w); /* a batching backend's */
        for (size_t i = 0; !w.job->probe && i < w.job->count && !w.damaged;) {
            i += w.batch != NULL ? run_group(&w, i) : (run_case(&w, i), 1u);
        }
        bitcts_prefetch_stop(w.prefetch);
        w.prefetch = NULL;
        worker_case = -1;
        send_mark('D', -1);
        w.backend.table->instance_destroy(w.instance);
        bitcts_backend_shutdown(&w.backend);
        bitcts_lent_desc_free(&w.lent);
        batch_end(&w);
        free(items);
    }
    send_mark('X', -1);
    _exit(0);
}

int bitcts_worker_debug(const bitcts_worker_job *job, json_t **out, char *err, size_t cap)
{
    static bitcts_sandbox_status page; /* the phases go nowhere: nobody watches */
    worker_status = &page;
    worker_chan = -1;
    worker_tid = (long)syscall(SYS_gettid);
    *out = NULL;
    worker w;
    memset(&w, 0, sizeof w);
    w.job = job;
    w.last_case = -1;
    w.in_process = 1;
    if (start(&w) != 0) {
        snprintf(err, cap, "the backend did not start: %s", w.start_error);
        return BITCTS_E_PLUGIN_LOAD;
    }
    for (size_t i = 0; i < job->count && !w.damaged; ++i) {
        run_case(&w, i);
    }
    w.backend.table->instance_destroy(w.instance);
    bitcts_backend_close(&w.backend);
    bitcts_lent_desc_free(&w.lent);
    bitcts_case_pool_free(&w.pool);
    *out = w.kept;
    if (w.kept == NULL) {
        snprintf(err, cap, "the case gave no result");
        return BITCTS_E_INTERNAL;
    }
    return BITCTS_OK;
}
