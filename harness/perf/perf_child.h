/* SPDX-License-Identifier: MIT */
/* How bench and sweep start their one backend process: the backend resolved in the parent (a
 * refusal is the command's, not the backend's), then the command's child under the supervisor
 * with its job (the command's config and the resolved backend), and how that child ended.
 * Internal to harness/perf.
 * Thread-safety: one child at a time per process (the supervisor's rule). */
#ifndef BITCTS_HARNESS_PERF_CHILD_H
#define BITCTS_HARNESS_PERF_CHILD_H

#include <signal.h> /* sig_atomic_t */
#include <stddef.h> /* size_t */

#include "backend.h"   /* bitcts_backend_options, bitcts_backend_spec */
#include "sandbox.h"   /* bitcts_sandbox_main_fn */
#include "supervise.h" /* bitcts_supervise_result */

/** What a bench or sweep child is started with. */
typedef struct bitcts__perf_job {
    const void *cfg; /* the command's: bitcts_bench_config or bitcts_sweep_config */
    const bitcts_backend_spec *spec;
} bitcts__perf_job;

/** What bitcts__perf_run starts: the backend, the deadline, the child and its lines' reader. */
typedef struct bitcts__perf_launch {
    const char *backend_spec;
    const bitcts_backend_options *options;
    double timeout_s; /* 0: 120 */
    volatile sig_atomic_t *interrupted;
    const void *cfg;
    bitcts_sandbox_main_fn child_main; /* takes a bitcts__perf_job */
    int (*on_line)(void *user, char *line);
    void *user;
    void (*on_end)(void *user);    /* bitcts_supervise_config's; NULL: none */
    bitcts_sandbox *const *others; /* bitcts_supervise_config's; NULL: none */
    size_t other_count;
} bitcts__perf_launch;

/* The launch of a bench or sweep config CFG (whose backend_spec, options, timeout_s and
 * interrupted it takes) with its child and its lines' reader. */
#define BITCTS__PERF_LAUNCH(CFG, CHILD_MAIN, ON_LINE, USER)                                        \
    {                                                                                              \
        .backend_spec = (CFG)->backend_spec, .options = &(CFG)->options,                           \
        .timeout_s = (CFG)->timeout_s, .interrupted = (CFG)->interrupted, .cfg = (CFG),            \
        .child_main = (CHILD_MAIN), .on_line = (ON_LINE), .user = (USER)                           \
    }

/** Resolves the backend, then runs child_main supervised until it ends.
 * @return BITCTS_OK with sv filled; the resolver's status with *refused set; or
 *         BITCTS_E_INTERNAL when the child could not be started. err says which. */
int bitcts__perf_run(const bitcts__perf_launch *l, int *refused, bitcts_supervise_result *sv,
                     char *err, size_t cap);

/** How a perf child's run ended, for bitcts__perf_settle: the parent's copies of its lines. */
typedef struct bitcts__perf_end {
    int refusal_status; /* the backend's refusal ("" and 0 when it did not refuse) */
    const char *refusal;
    const char *internal; /* the child's own failure (out of memory), or "" */
    const char *where;    /* what the child was doing, " (...)", or "" when nothing yet */
} bitcts__perf_end;

/** What bench and sweep make of their child's end alike: a refusal (the child exited cleanly
 * after the backend refused; *refused is set), an unclean end as the supervisor describes it
 * (with `where` when it died preparing or computing), or the child's own failure. err says which.
 * @return that status, or BITCTS_OK when none of these happened (the command checks the rest). */
int bitcts__perf_settle(const bitcts_supervise_result *sv, const bitcts__perf_end *end,
                        int *refused, char *err, size_t cap);

#endif
