/* SPDX-License-Identifier: MIT */
/* A supervised child: the parent's watchdog loop (poll the channel and the captured output,
 * read the phase page, reap without waiting, kill at a deadline, then kill the child's group and
 * sweep the orphans) and the child's helpers (phase marks, lines, the fatal-signal report, the
 * check for processes a backend left running). */
#define _DEFAULT_SOURCE /* WNOWAIT */

#include <dirent.h>   /* opendir */
#include <errno.h>    /* errno */
#include <stdarg.h>   /* va_list */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* strtol */
#include <string.h>   /* memset, strchr */
#include <sys/wait.h> /* waitid, WIFSIGNALED */
#ifdef __linux__
#include <linux/futex.h> /* FUTEX_WAIT, FUTEX_WAKE */
#include <sys/syscall.h> /* SYS_futex */
#endif
#include <time.h>   /* nanosleep */
#include <unistd.h> /* getpid */

#include "child.h"
#include "clock.h"
#include "guard_mem.h"
#include "sandbox.h"
#include "sigsafe.h"
#include "supervise.h"

#define SUPERVISE_REAP_S 10.0 /* for a killed child to be reaped (it may sit in a driver call) */

#define SUPERVISE_CALL_NAME(name, text) text,
static const char *const call_names[BITCTS_SUPERVISE_CALLS] = {
    BITCTS_SUPERVISE_CALL_LIST(SUPERVISE_CALL_NAME)};
#undef SUPERVISE_CALL_NAME

const char *bitcts_supervise_phase_name(char phase, int64_t call)
{
    if (phase == 'P' && call > 0 && call < BITCTS_SUPERVISE_CALLS) {
        return call_names[call];
    }
    return bitcts_child_phase_name(phase);
}

/* ---- the child's side ---- */

static int child_chan = -1;
static const char *child_nonce = "";
static bitcts_sandbox_status *child_status;
static char child_phase;
static int64_t child_call;
static int child_kept_sent;

static const char *signal_text(int sig)
{
    switch (sig) {
    case SIGSEGV: return " (Segmentation fault)";
    case SIGBUS: return " (Bus error)";
    case SIGILL: return " (Illegal instruction)";
    case SIGFPE: return " (Floating point exception)";
    case SIGABRT: return " (Aborted)";
    default: return "";
    }
}

static void child_on_fatal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    char text[512];
    char where[256];
    bitcts_sigsafe_line l = {text, sizeof text, 0};
    bitcts_sigsafe_text(&l, "F signal ");
    bitcts_sigsafe_number(&l, (uint64_t)sig);
    bitcts_sigsafe_text(&l, signal_text(sig));
    if (info->si_code <= 0) { /* kill, raise, abort */
        bitcts_sigsafe_text(&l, ", sent by a process (raise, abort or kill)");
    } else if (sig == SIGSEGV || sig == SIGBUS) {
        bitcts_sigsafe_text(&l, " at address ");
        bitcts_sigsafe_hex(&l, (uint64_t)(uintptr_t)info->si_addr);
        bitcts_guard_describe(info->si_addr, where, sizeof where); /* the guarded buffers */
        bitcts_sigsafe_text(&l, ": ");
        bitcts_sigsafe_text(&l, where);
    }
    bitcts_sandbox_send(child_chan, child_nonce, text, l.len);
    signal(sig, SIG_DFL); /* end with the signal itself */
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
}

void bitcts_supervise_child_start(int chan, const char *nonce, bitcts_sandbox_status *status)
{
    child_chan = chan;
    child_nonce = nonce;
    child_status = status;
    child_phase = 0;
    child_kept_sent = 0;
    bitcts_sandbox_catch_fatal(child_on_fatal);
}

/* Whether this process has a child process, running or ended and not yet waited for; one
 * system call, and nothing is reaped. */
static int child_has_children(void)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

void bitcts_supervise_mark(char phase, int64_t call)
{
    const int backend_phase = child_phase != 0 && strchr("LIQPD", child_phase) != NULL;
    if (backend_phase && (phase != child_phase || call != child_call) && !child_kept_sent &&
        child_has_children()) {
        bitcts_supervise_sendf("K %c %lld", child_phase, (long long)child_call);
        child_kept_sent = 1;
    }
    child_phase = phase;
    child_call = call;
    bitcts_sandbox_mark(child_status, phase, call);
}

void bitcts_supervise_send(const char *text)
{
    bitcts_sandbox_send(child_chan, child_nonce, text, strlen(text));
}

void bitcts_supervise_sendf(const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) {
        bitcts_sandbox_send(child_chan, child_nonce, line,
                            (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
}

/* The answer word of the status page: a futex shared by the two processes (polled where there
 * is none). */
static void answer_wait(volatile uint32_t *word, uint32_t seen, double max_s)
{
#if defined(__linux__) && defined(SYS_futex)
    const struct timespec t = {(time_t)max_s, (long)((max_s - (double)(time_t)max_s) * 1e9)};
    (void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, &t, NULL, 0);
#else
    (void)word;
    (void)seen;
    const struct timespec t = {0, max_s < 1e-3 ? (long)(max_s * 1e9) : 1000000};
    nanosleep(&t, NULL);
#endif
}

int64_t bitcts_supervise_ask(const char *text, double max_s)
{
    const uint32_t seen = __atomic_load_n(&child_status->answer, __ATOMIC_ACQUIRE);
    bitcts_supervise_mark('C', -1); /* the harness's deadline, from now */
    bitcts_supervise_send(text);
    const double end = bitcts_clock_now() + max_s;
    for (double now = bitcts_clock_now(); now < end; now = bitcts_clock_now()) {
        if (__atomic_load_n(&child_status->answer, __ATOMIC_ACQUIRE) != seen) {
            return (int64_t)child_status->answer_value;
        }
        answer_wait(&child_status->answer, seen, end - now < 0.5 ? end - now : 0.5);
    }
    return __atomic_load_n(&child_status->answer, __ATOMIC_ACQUIRE) != seen
               ? (int64_t)child_status->answer_value
               : -1;
}

/* ---- the parent's side ---- */

typedef struct supervisor {
    const bitcts_supervise_config *cfg;
    bitcts_child c;
    bitcts_supervise_result *r;
} supervisor;

static supervisor *running; /* the one supervised child of this process, or NULL */

long bitcts_supervise_child_pid(void)
{
    return running != NULL ? (long)running->c.sb.pid : 0;
}

void bitcts_supervise_answer(uint32_t value)
{
    if (running == NULL || running->c.sb.shared == NULL) {
        return;
    }
    running->c.sb.shared->answer_value = value & 0x7fffffffu;
    volatile uint32_t *word = &running->c.sb.shared->answer;
    __atomic_add_fetch(word, 1u, __ATOMIC_RELEASE);
#if defined(__linux__) && defined(SYS_futex)
    (void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
#endif
}

static void on_channel_line(void *user, char *line)
{
    supervisor *s = user;
    bitcts_child_progress(&s->c);
    if (line[0] == 'F' && line[1] == ' ') {
        snprintf(s->r->fault, sizeof s->r->fault, "%s", line + 2);
    } else if (line[0] == 'K' && line[1] == ' ' && line[2] != '\0' &&
               strchr(BITCTS_CHILD_PHASES, line[2]) != NULL && s->r->kept_phase == 0) {
        s->r->kept_phase = line[2];
        s->r->kept_call = line[3] == ' ' ? strtoll(line + 4, NULL, 10) : -1;
    } else if (s->cfg->on_line == NULL || s->cfg->on_line(s->cfg->user, line) != 0) {
        ++s->r->garbage;
    }
}

/* The phase page: the phase, its call, and since when. */
static void observe(supervisor *s)
{
    if (bitcts_child_observe(&s->c) && s->c.phase != 0) {
        s->r->phase = s->c.phase;
        s->r->call = s->c.index;
    }
}

/* Live (not zombie) processes in process group `group`. */
static size_t group_members(pid_t group)
{
    DIR *dir = opendir("/proc");
    if (dir == NULL) {
        return 0;
    }
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        char *end = NULL;
        const long pid = strtol(e->d_name, &end, 10);
        pid_t pgrp = 0;
        if (pid > 0 && *end == '\0' && bitcts_child_proc_state((pid_t)pid, &pgrp) != 'Z' &&
            pgrp == group) {
            ++n;
        }
    }
    closedir(dir);
    return n;
}

static void wait_for_child(supervisor *s, double max_s)
{
    bitcts_sandbox *one[1] = {&s->c.sb};
    if (bitcts_sandbox_wait(one, 1, max_s < 0.1 ? max_s : 0.1) < 0 && errno != EINTR) {
        const struct timespec pause = {0, 10000000};
        nanosleep(&pause, NULL);
    }
}

/* The loop: until the child is reaped (or, once killed, SUPERVISE_REAP_S have passed). */
static void watch(supervisor *s)
{
    bitcts_sandbox *all[1 + BITCTS_SUPERVISE_OTHERS_MAX] = {&s->c.sb};
    for (size_t i = 0; i < s->cfg->other_count; ++i) {
        all[1 + i] = s->cfg->others[i];
    }
    for (;;) {
        observe(s);
        bitcts_sandbox_pump(&s->c.sb, on_channel_line, s);
        bitcts_sandbox_reap(all, 1 + s->cfg->other_count);
        if (s->c.sb.exited) {
            observe(s); /* the child is gone: its page and what it wrote are final */
            bitcts_sandbox_pump(&s->c.sb, on_channel_line, s);
            s->r->exited = 1;
            s->r->status = s->c.sb.status;
            return;
        }
        const double now = bitcts_clock_now();
        if (s->c.killed_at > 0 && now - s->c.killed_at > SUPERVISE_REAP_S) {
            return; /* unkillable for now (a driver call); it dies with this process */
        }
        if (s->c.killed_at == 0 && s->cfg->interrupted != NULL && *s->cfg->interrupted != 0) {
            s->r->interrupted = 1;
            bitcts_child_kill(&s->c, now);
        }
        if (s->c.killed_at == 0 && s->cfg->end_at > 0 && now >= s->cfg->end_at) {
            s->r->over_budget = 1;
            bitcts_child_kill(&s->c, now);
        }
        if (bitcts_child_enforce(&s->c, now)) {
            s->r->timed_out = 1;
            s->r->killed_for = s->c.killed_for;
            s->r->deadline_s = s->c.deadline_s;
            s->r->state = s->c.state;
        }
        double wait = s->c.killed_at > 0 ? 0.01 : bitcts_child_left(&s->c, now);
        if (s->c.killed_at == 0 && s->cfg->end_at > 0 && s->cfg->end_at - now < wait) {
            wait = s->cfg->end_at - now;
        }
        wait_for_child(s, wait);
    }
}

int bitcts_supervise_run(const bitcts_supervise_config *cfg, bitcts_sandbox_main_fn fn, void *arg,
                         bitcts_supervise_result *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->call = -1;
    out->foreign = cfg->lines_are_progress;
    if (cfg->other_count > BITCTS_SUPERVISE_OTHERS_MAX) {
        snprintf(err, cap,
                 "%zu processes of the command's own to watch beside the child; at most %d",
                 cfg->other_count, BITCTS_SUPERVISE_OTHERS_MAX);
        return -1;
    }
    supervisor s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.r = out;
    bitcts_sandbox_init();
    const double t0 = bitcts_clock_now();
    if (bitcts_child_spawn(&s.c, fn, arg, cfg->timeout_s, cfg->lines_are_progress, err, cap) != 0) {
        return -1;
    }
    running = &s;
    watch(&s);
    running = NULL;
    if (cfg->on_end != NULL) {
        cfg->on_end(cfg->user);
    }
    /* What the child left: members of its group, then orphans that left the group. */
    const pid_t group = s.c.sb.pid;
    out->leftovers = group_members(group);
    bitcts_sandbox_kill(&s.c.sb);
    bitcts_sandbox *none[1] = {NULL};
    const struct timespec pause = {0, 2000000};
    for (int i = 0; i < 500 && group_members(group) > 0; ++i) { /* gone before the sweep looks */
        bitcts_sandbox_reap(none, 1);
        nanosleep(&pause, NULL);
    }
    out->leftovers += bitcts_sandbox_sweep(none, 1, 2.0);
    nanosleep(&pause, NULL);
    bitcts_sandbox_reap(none, 1); /* the killed leftovers, reparented here */
    out->output_bytes = bitcts_sandbox_take_output(&s.c.sb, -1, out->output, sizeof out->output);
    out->garbage += s.c.sb.garbage; /* lines without the nonce */
    if (!out->exited) {
        s.c.sb.exited = 1; /* closed unreaped: it goes with the group kill above */
    }
    bitcts_sandbox_close(&s.c.sb);
    out->seconds = bitcts_clock_now() - t0;
    return 0;
}

int bitcts_supervise_clean(const bitcts_supervise_result *r)
{
    return r->exited && !r->timed_out && !r->interrupted && r->phase == 'X' &&
           WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0 && r->garbage == 0 &&
           r->kept_phase == 0 && r->leftovers == 0;
}

/* The main event: killed, signalled, exited early; "" when none. */
static void describe_end(const bitcts_supervise_result *r, char *out, size_t cap)
{
    const char *where =
        bitcts_supervise_phase_name(r->timed_out ? r->killed_for : r->phase, r->call);
    char how[160];
    out[0] = '\0';
    if (r->interrupted) {
        snprintf(out, cap, "interrupted in %s; the backend's process was killed", where);
    } else if (r->timed_out) {
        const bitcts_child killed = {.timed_out = 1,
                                     .killed_for = r->killed_for,
                                     .deadline_s = r->deadline_s,
                                     .state = r->state,
                                     .foreign = r->foreign};
        bitcts_child_killed_text(&killed, where, out, cap);
    } else if (!r->exited) {
        snprintf(out, cap, "the backend's process could not be reaped in %s", where);
    } else if (WIFSIGNALED(r->status)) {
        bitcts_sandbox_describe(r->status, how, sizeof how);
        snprintf(out, cap, "the backend crashed in %s: %s", where,
                 r->fault[0] != '\0' ? r->fault : how);
    } else if (r->phase != 'X' || WEXITSTATUS(r->status) != 0) {
        bitcts_sandbox_describe(r->status, how, sizeof how);
        snprintf(out, cap, "the backend ended the process in %s: %s", where, how);
    }
}

void bitcts_supervise_describe(const bitcts_supervise_result *r, char *out, size_t cap)
{
    describe_end(r, out, cap);
    size_t used = strlen(out);
    if (r->kept_phase != 0 || r->leftovers > 0) {
        char after[96] = "";
        if (r->kept_phase != 0) {
            snprintf(after, sizeof after, " (one was running after %s)",
                     bitcts_supervise_phase_name(r->kept_phase, r->kept_call));
        }
        used += (size_t)snprintf(out + used, used < cap ? cap - used : 0,
                                 "%sthe backend left %zu process%s of its own running%s; killed",
                                 used > 0 ? "; " : "", r->leftovers > 0 ? r->leftovers : 1,
                                 r->leftovers > 1 ? "es" : "", after);
    }
    if (r->garbage > 0 && used < cap) {
        used += (size_t)snprintf(out + used, cap - used,
                                 "%sthe backend wrote %llu line%s on the harness's result channel "
                                 "(a descriptor it does not own)",
                                 used > 0 ? "; " : "", (unsigned long long)r->garbage,
                                 r->garbage > 1 ? "s" : "");
    }
    if (used > 0 && used < cap && r->output_bytes > 0) {
        snprintf(out + used, cap - used, "; its output (%llu bytes) begins: %.160s",
                 (unsigned long long)r->output_bytes, r->output);
    }
}
