/* SPDX-License-Identifier: MIT */
/* The harness's one clock: monotonic seconds, for durations (watchdogs, case times, benchmarks,
 * progress). Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_CLOCK_H
#define BITCTS_HARNESS_CLOCK_H

/** Seconds of CLOCK_MONOTONIC (an arbitrary origin; only differences mean anything). */
double bitcts_clock_now(void);

#endif
