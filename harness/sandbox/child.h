/* SPDX-License-Identifier: MIT */
/* One supervised child, as every command that runs backend code watches it (`run` drives one per
 * worker, `bench`, `sweep` and the bench's peers one each): its sandbox
 * (harness/sandbox/sandbox.h), the phase it publishes, and the one deadline rule. The child marks
 * phases on its shared page; the parent reads them, never blocks, and kills a child whose phase has
 * made no progress for longer than the phase's deadline, keeping what it applied for the message.
 *
 * The phases (the status page's letter), in the order a child goes through them:
 *   (none)  starting the process: the harness's fork and set-up
 *   L  loading the backend (dlopen, its constructors and negotiation)
 *   I  instance_create
 *   Q  the capability and info queries
 *   B  the harness preparing work (generating a case, the reference)
 *   P  the backend's operator calls (the page's index: run's case, or the call for bench and sweep)
 *   C  the harness checking (after the backend had run in the process)
 *   D  instance_destroy and plugin_shutdown
 *   X  the process's exit (the backend's destructors)
 * The deadline rule: the backend's phases (L I Q P D X) get the command's --timeout (phase P of
 * a batched call, N cases in one call, N times that: the sum of its cases' deadlines); the
 * harness's own (none, B, C) ten times that, at least BITCTS_CHILD_HARNESS_MIN_S (generating and
 * checking a large case takes seconds). A foreign child (an interpreter that marks no phase) is
 * the backend's in every phase, and each line it sends is progress.
 * Thread-safety: one thread per process. */
#ifndef BITCTS_HARNESS_CHILD_H
#define BITCTS_HARNESS_CHILD_H

#include <stddef.h>    /* size_t */
#include <stdint.h>    /* int64_t, uint64_t */
#include <sys/types.h> /* pid_t */

#include "sandbox.h" /* bitcts_sandbox */

#define BITCTS_CHILD_HARNESS_MIN_S 60.0 /* the least deadline of a harness phase */
#define BITCTS_CHILD_PHASES "LIQBPCDX"

/** A child and what the parent knows of it. Zero-initialise, then spawn. */
typedef struct bitcts_child {
    bitcts_sandbox sb;
    double timeout_s;      /* the backend's phases */
    int foreign;           /* marks no phase; every line restarts the deadline */
    uint64_t seen_seq;     /* the page's seq when last read */
    char phase;            /* the last phase marked (0: none yet) */
    int64_t index;         /* its index on the page */
    double phase_start;    /* when it began (the child's reading of the clock both share) */
    int timed_out;         /* killed at a deadline: */
    char killed_for;       /* the phase whose deadline passed, */
    double deadline_s;     /* the deadline applied, */
    char state;            /* and the process's state in /proc then (T: stopped, R, S, D) */
    double killed_at;      /* when it was killed (0: not killed) */
    uint32_t batch;        /* the page's cases of a batched call in flight (0: none) */
    uint32_t killed_batch; /* ... when it was killed */
} bitcts_child;

/** Spawns fn(arg, ...) in a sandbox; the deadlines start now. Of *c only sb.stdin_fd is read
 * (bitcts_sandbox's: the child's standard input, 0 for none); the rest is set here.
 * @return 0, or -1 with err. */
int bitcts_child_spawn(bitcts_child *c, bitcts_sandbox_main_fn fn, void *arg, double timeout_s,
                       int foreign, char *err, size_t cap);

/** The deadline of `phase` under the one rule. */
double bitcts_child_deadline(char phase, double timeout_s, int foreign);

/** Reads the page: the phase, its index, since when. @return 1 when it changed. */
int bitcts_child_observe(bitcts_child *c);

/** A line from a foreign child: progress. */
void bitcts_child_progress(bitcts_child *c);

/** Seconds left before the phase's deadline (negative when passed); a large number once the
 * child is killed or reaped. */
double bitcts_child_left(const bitcts_child *c, double now);

/** Kills the child (its whole group) when its phase's deadline has passed, recording the phase,
 * the deadline and the process's state. @return 1 when it was killed now. */
int bitcts_child_enforce(bitcts_child *c, double now);

/** Kills the child for another reason (an interruption); the deadline is not recorded. */
void bitcts_child_kill(bitcts_child *c, double now);

/** The state letter of process `pid` in /proc (R, S, D, T, t, Z), or '?'; its process group
 * in *pgrp when not NULL. */
char bitcts_child_proc_state(pid_t pid, pid_t *pgrp);

/** Whether the phase is the harness's own (none, B, C) rather than the backend's. */
int bitcts_child_harness_phase(char phase, int foreign);

/** The phase in words ("instance_create"). */
const char *bitcts_child_phase_name(char phase);

/** How a killed child was stuck, naming `where` and the deadline applied: "the backend hung in
 * <where>: no progress within 0.5 s, the process running (a busy loop?); killed", "the backend
 * stopped its process (SIGSTOP or a tracer) in <where>: no progress within 1 s; killed", or for
 * the harness's phases "no progress within 60 s in <where>; killed". */
void bitcts_child_killed_text(const bitcts_child *c, const char *where, char *out, size_t cap);

#endif
