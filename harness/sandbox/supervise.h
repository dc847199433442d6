/* SPDX-License-Identifier: MIT */
/* One backend in one sandboxed child under a watchdog: how `bitcts sweep` and `bitcts bench`
 * call a backend (`bitcts run` has its own pool of workers, harness/run/runner.c). The parent never
 * loads the backend: it spawns the child (harness/sandbox/sandbox.h), reads its phase from the
 * shared status page, gives every phase a deadline, hands the child's channel lines to the command,
 * and when the child is gone kills whatever it left behind and says in one line what went
 * wrong. The child side marks phases, sends lines, reports fatal signals, and notices a
 * backend that left a process of its own running.
 * Phases and deadlines are harness/sandbox/child.h's, the same as `bitcts run`'s; in phase P the
 * page's index names the backend function called (BITCTS_SUPERVISE_CALL_*). Thread-safety: one
 * supervised child per process at a time; the child side is for the child's one thread (the
 * fatal-signal handler is process-wide). */
#ifndef BITCTS_HARNESS_SUPERVISE_H
#define BITCTS_HARNESS_SUPERVISE_H

#include <signal.h> /* sig_atomic_t */
#include <stddef.h> /* size_t */
#include <stdint.h> /* int64_t, uint64_t */

#include "bitcts/bitcts_status.h" /* BITCTS_PRINTF */
#include "sandbox.h"              /* bitcts_sandbox_main_fn, bitcts_sandbox_status */

/* The backend functions a child calls in phase P, as the status page's index. */
#define BITCTS_SUPERVISE_CALL_LIST(X)                                                              \
    X(NONE, "the backend")                                                                         \
    X(OPERATOR_CREATE, "operator_create")                                                          \
    X(OPERATOR_EXECUTE, "operator_execute")                                                        \
    X(OPERATOR_DESTROY, "operator_destroy")                                                        \
    X(TIME_EXECUTE, "time_execute (device timing)")                                                \
    X(TIME_COPY, "time_copy (device timing)")                                                      \
    X(STREAM, "the stream extension's copy or triad")                                              \
    X(REFERENCE_BACKEND, "the cpu backend computing the expected output")

#define BITCTS_SUPERVISE_CALL_ENUM(name, text) BITCTS_SUPERVISE_CALL_##name,
enum { BITCTS_SUPERVISE_CALL_LIST(BITCTS_SUPERVISE_CALL_ENUM) BITCTS_SUPERVISE_CALLS };
#undef BITCTS_SUPERVISE_CALL_ENUM

#define BITCTS_SUPERVISE_OTHERS_MAX 64 /* bitcts_supervise_config.others */
#define BITCTS_SUPERVISE_OUTPUT_CAP (4 * BITCTS_SANDBOX_CAPTURE_MAX + 8) /* sanitised excerpt */

/** How the parent watches. Deadlines follow harness/sandbox/child.h's one rule from timeout_s. */
typedef struct bitcts_supervise_config {
    double timeout_s;       /* the backend's phases; the harness's get ten times that (>= 60 s) */
    int lines_are_progress; /* a child that marks no phase (an interpreter): every phase is the
                             * backend's, and every line it sends restarts its deadline */
    /** A channel line of the command's (not F or K, which the supervisor takes): 0, or -1 when
     * the line is not one the command knows (counted as garbage). */
    int (*on_line)(void *user, char *line);
    void *user;
    volatile sig_atomic_t *interrupted; /* set (by a signal handler) to stop; or NULL */
    double end_at; /* a command's time budget: the child is killed at this bitcts_clock_now()
                    * time, whatever its phase (0: none) */
    /** Called once the child is gone (or killed), before what it left behind is looked for: the
     * command ends processes of its own that are not the child's (the bench's peers), so they
     * are not counted as the backend's. NULL: none. */
    void (*on_end)(void *user);
    /** The command's own child processes (the bench's peers), live or not yet started (pid 0),
     * at most BITCTS_SUPERVISE_OTHERS_MAX: while the child runs, the supervisor reaps any child
     * that ends, and one of these has its end and wait status recorded in its sandbox rather
     * than lost. on_end must end them all (and reap them): what the supervisor reaps and sweeps
     * after it, it takes for the child's leftovers. NULL: none. */
    bitcts_sandbox *const *others;
    size_t other_count;
} bitcts_supervise_config;

/** How the child ended, and what it left. */
typedef struct bitcts_supervise_result {
    int exited; /* reaped; status is its wait status */
    int status;
    char phase;        /* the last phase marked (0: none) */
    int64_t call;      /* BITCTS_SUPERVISE_CALL_* of that phase, or -1 */
    int timed_out;     /* killed at a deadline: */
    char killed_for;   /* the phase whose deadline passed, */
    double deadline_s; /* that deadline */
    int foreign;       /* the child marked no phase (cfg.lines_are_progress) */
    char state;        /* the child's state in /proc when it was killed (T: stopped, R, S, D) */
    int interrupted;   /* killed because cfg->interrupted was set */
    int over_budget;   /* killed at cfg->end_at */
    uint64_t garbage;  /* channel lines without the nonce, or that on_line refused */
    char kept_phase;   /* a phase after which the child had a process of its own running */
    int64_t kept_call; /* and its call */
    size_t leftovers;  /* processes found after the child ended, all killed */
    char fault[600];   /* the fatal-signal line, or "" */
    char output[BITCTS_SUPERVISE_OUTPUT_CAP]; /* the child's stdout and stderr (an excerpt) */
    uint64_t output_bytes;
    double seconds;
} bitcts_supervise_result;

/* ---- the parent's side ---- */

/** Runs fn(arg, ...) in a sandboxed child until it ends or is killed (deadline, interruption),
 * then kills its process group and every orphan it left.
 * @return 0, or -1 with err when the child could not be started. */
int bitcts_supervise_run(const bitcts_supervise_config *cfg, bitcts_sandbox_main_fn fn, void *arg,
                         bitcts_supervise_result *out, char *err, size_t cap);

/** Answers the supervised child that asked (bitcts_supervise_ask) and waits, with `value` (0 to
 * 2^31 - 1): from the command's on_line, once what the child asked for is done. Nothing when no
 * child is supervised. */
void bitcts_supervise_answer(uint32_t value);

/** The supervised child's process id, 0 when none is supervised. */
long bitcts_supervise_child_pid(void);

/** 1 when the child reached X, exited with status 0, was not killed, wrote nothing on the
 * channel that was not the harness's and left no process behind. */
int bitcts_supervise_clean(const bitcts_supervise_result *r);

/** What went wrong, in one line naming what the backend (or the process) did and in which
 * phase: "the backend crashed in operator_execute: signal 6 (Aborted)". "" when clean. */
void bitcts_supervise_describe(const bitcts_supervise_result *r, char *out, size_t cap);

/** A phase letter and call in words: "instance_create", "operator_execute". */
const char *bitcts_supervise_phase_name(char phase, int64_t call);

/* ---- the child's side ---- */

/** Keeps the channel and the status page and installs the fatal-signal handler (SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE, SIGABRT: an F line, then the signal's default action). Call first. */
void bitcts_supervise_child_start(int chan, const char *nonce, bitcts_sandbox_status *status);

/** Marks a phase (and, in P, the call). When the phase left was the backend's and the process
 * now has a child process, sends "K <phase>" once. */
void bitcts_supervise_mark(char phase, int64_t call);

/** Sends one line (without its newline; a newline inside is the caller's bug). */
void bitcts_supervise_send(const char *text);

/** Sends a formatted line of at most 4 KiB. */
void bitcts_supervise_sendf(const char *fmt, ...) BITCTS_PRINTF(1, 2);

/** Marks the harness's phase C, sends `text` and waits, at most max_s seconds, for the parent to
 * answer it (bitcts_supervise_answer): for work the parent does between two of the child's
 * steps (the bench's peers, on its buffers). @return the answer's value, or -1 when the time
 * ran out. */
int64_t bitcts_supervise_ask(const char *text, double max_s);

#endif
