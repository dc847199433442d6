/* SPDX-License-Identifier: MIT */
/* The isolation every call into a backend runs under: a child process in its own process group,
 * with nothing of the harness's but a result channel (descriptors closed, stdin /dev/null,
 * stdout and stderr captured through a pipe the parent reads), killed with the harness. The
 * parent never blocks on it: it polls the channel with deadlines, reaps without waiting, kills
 * the whole group, and, as a child subreaper, also the descendants that left the group
 * (setsid). Lines on the channel carry a per-child nonce, so bytes a backend writes to a stray
 * descriptor cannot pass for the harness's messages. Thread-safety: one thread per process uses
 * these; a sandbox is single-threaded. */
#ifndef BITCTS_HARNESS_SANDBOX_H
#define BITCTS_HARNESS_SANDBOX_H

#include <signal.h>    /* siginfo_t */
#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* pid_t */

#define BITCTS_SANDBOX_NONCE_LEN 16        /* hex digits */
#define BITCTS_SANDBOX_CAPTURE_MAX 4096u   /* captured output kept per excerpt */
#define BITCTS_SANDBOX_SEGMENTS 1024       /* captured segments kept until taken */
#define BITCTS_SANDBOX_LINE_MAX (1u << 26) /* a channel line longer than this is garbage */

/** Where the child says what it is doing, without a system call: a page shared with the parent.
 * The child stores the fields, then bumps seq. The parent reads it while the child runs (a
 * passing inconsistency only delays a deadline by one look) and after the child is gone (then
 * it is exact). `since_ns` is CLOCK_MONOTONIC, the same clock in both processes. */
typedef struct bitcts_sandbox_status {
    volatile uint64_t seq;
    volatile int64_t index; /* the case the phase belongs to, or -1 */
    volatile uint64_t since_ns;
    volatile char phase;
    volatile uint64_t begun;  /* 1 + the index of the last case marked 'B', 0 before any */
    volatile uint32_t batch;  /* cases of a batched call in flight (run's --batch-cases), or 0:
                               * phase P's deadline is theirs together */
    volatile uint32_t answer; /* bumped by the parent to answer a child that asked and waits
                               * (bitcts_supervise_ask): a futex word */
    volatile uint32_t answer_value; /* what the answer says, stored before the bump */
} bitcts_sandbox_status;

/** What the child runs: `chan` is its end of the result channel; every line it writes there
 * starts with `nonce` and a space (bitcts_sandbox_send does that); `status` is the shared page.
 * It must end with _exit. */
typedef void (*bitcts_sandbox_main_fn)(void *arg, int chan, const char *nonce,
                                       bitcts_sandbox_status *status);

/** One child. Zero-initialise, then spawn. */
typedef struct bitcts_sandbox {
    int stdin_fd; /* set before spawn: the child's standard input (the read end of a pipe of
                   * commands, which the parent closes after spawn); 0: /dev/null */
    pid_t pid;    /* 0: no child */
    int chan;     /* the parent's end of the channel, -1 when closed */
    int capture;  /* the parent's end of the child's stdout and stderr, -1 when closed */
    int pidfd;    /* the child itself (pidfd_open), readable once it ended; -1 without one. Set
                   * by spawn: meaningful only while pid > 0 */
    int exited;   /* the child was reaped; status holds its wait status */
    int status;
    bitcts_sandbox_status *shared; /* the child's phase, shared */
    char nonce[BITCTS_SANDBOX_NONCE_LEN + 1];
    char *line; /* channel bytes not yet ending in a newline */
    size_t line_len, line_cap;
    int line_overflow; /* the current line grew past BITCTS_SANDBOX_LINE_MAX */
    uint64_t garbage;  /* channel lines without the nonce */
    /* Captured output, cut into segments at the child's case marks (bitcts_sandbox_mark_output):
     * each segment holds what was written from one mark to the next. */
    struct bitcts_sandbox_segment {
        int64_t index;  /* the mark's case, -1 before the first mark */
        uint64_t bytes; /* bytes written, kept or not */
        size_t len;     /* bytes kept in text */
        char *text;     /* BITCTS_SANDBOX_CAPTURE_MAX bytes, allocated at the first byte */
    } * segments;       /* in the order written; a worker may run ahead of its channel */
    size_t segment_count, segment_cap;
    char mark[64]; /* a case mark being read (it may span reads) */
    size_t mark_len;
    int in_mark;
} bitcts_sandbox;

/* ---- the parent's side ---- */

/** Makes this process the child subreaper of its descendants (Linux), so that a grandchild
 * whose parent died is reparented here and can be found and killed. Call once, first. */
void bitcts_sandbox_init(void);

/** Forks the child and runs fn(arg, chan, nonce) in it.
 * @return 0, or -1 with err (fork or pipe failed: the system is out of resources). */
int bitcts_sandbox_spawn(bitcts_sandbox *sb, bitcts_sandbox_main_fn fn, void *arg, char *err,
                         size_t cap);

/** Reads whatever the child has written, without blocking: calls on_line for every complete
 * channel line that carries the nonce (nonce and space removed, newline replaced by NUL),
 * counts the others in sb->garbage, and appends captured output to the excerpt.
 * @return 1 when the channel reached end of file, else 0. */
int bitcts_sandbox_pump(bitcts_sandbox *sb, void (*on_line)(void *user, char *line), void *user);

/** Waits at most `max_s` seconds (never blocking when it is 0 or less) for any child in `all`
 * (count pointers, NULL entries and children already reaped skipped) to write or end: on their
 * channels, their captured output and the processes themselves (pidfds), so that a child's end
 * wakes the parent at once although both its pipes reached end of file earlier. Where the
 * kernel gives no pidfd (before Linux 5.3) and a child's pipes are both closed, nothing would
 * wake the parent: the wait is a few milliseconds at most. At most 256 children are watched.
 * @return poll's result (-1 with errno on failure). */
int bitcts_sandbox_wait(bitcts_sandbox *const *all, size_t count, double max_s);

/** Reaps every child that has ended (never blocks); a reaped sandbox in `all` (count pointers,
 * NULL entries allowed) gets exited and status set; other children (orphans reparented to this
 * subreaper) are just reaped. */
void bitcts_sandbox_reap(bitcts_sandbox *const *all, size_t count);

/** Reaps this child alone if it has ended (never blocks): exited and status set; a child already
 * reaped by another reaper (ECHILD) counts as ended with status -1. */
void bitcts_sandbox_reap_one(bitcts_sandbox *sb);

/** SIGKILLs the child's process group. The child is reaped later by bitcts_sandbox_reap. */
void bitcts_sandbox_kill(bitcts_sandbox *sb);

/** Kills every descendant of this process that no live sandbox in `all` owns (the orphans a
 * killed child left, however they detached), until none is left or `budget_s` has passed.
 * @return the number of processes killed. */
size_t bitcts_sandbox_sweep(bitcts_sandbox *const *all, size_t count, double budget_s);

/** Takes the output captured for case `index` (from the child's mark for it to its next mark,
 * together with anything captured before the first mark): a sanitised excerpt (at most
 * BITCTS_SANDBOX_CAPTURE_MAX bytes of each part) into out, and how many bytes there were.
 * Segments of earlier cases that were never taken are dropped. */
uint64_t bitcts_sandbox_take_output(bitcts_sandbox *sb, int64_t index, char *out, size_t cap);

/** Closes the parent's descriptors and frees the buffers; the child must have been reaped. */
void bitcts_sandbox_close(bitcts_sandbox *sb);

/** Describes a wait status: "exit status 3", "signal 11 (Segmentation fault)". */
void bitcts_sandbox_describe(int status, char *out, size_t cap);

/* ---- the child's side ---- */

/** Sends SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT to `handler` (SA_SIGINFO, reset after one
 * delivery) on an alternate stack, so that a stack overflow is reported too. One per process. */
void bitcts_sandbox_catch_fatal(void (*handler)(int sig, siginfo_t *info, void *context));

/** Publishes the child's phase (async-signal-safe: stores only, and the clock). */
void bitcts_sandbox_mark(bitcts_sandbox_status *status, char phase, int64_t index);

/** Marks the start of case `index` in the captured output (stdout, shared with stderr), so that
 * what a backend prints is charged to the case it printed during. Async-signal-safe. */
void bitcts_sandbox_mark_output(const char *nonce, int64_t index);

/** Writes "<nonce> <text>\n" on the channel, whole or not at all as far as the parent can
 * tell (a line is one write when it fits the pipe buffer). Async-signal-safe. */
void bitcts_sandbox_send(int chan, const char *nonce, const char *text, size_t len);

#endif
