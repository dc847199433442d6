/* SPDX-License-Identifier: MIT */
/* `bitcts bench`: speed of the CPU backend's operators as a fraction of the memory-bandwidth
 * limits measured in the same run on the same buffers, next to NumPy, with every timed output
 * checked against the reference. Thread-safety: a command; runs on the calling thread (the
 * backend uses its own pool). */
#ifndef BITCTS_HARNESS_CMD_BENCH_H
#define BITCTS_HARNESS_CMD_BENCH_H

/** Runs `bitcts bench` (argv[0] is "bench").
 * @return the process exit code: 0 all outputs correct, 1 a WRONG or failed operator,
 *         2 a usage error (one line on stderr). */
int bitcts_cmd_bench(int argc, char **argv);

#endif
