/* SPDX-License-Identifier: MIT */
/* `run --rerun REPORT`: the cases of an earlier run's report that did not pass, run again with
 * that run's seed, backend and the options that change outcomes (docs/harness.md, "Reruns").
 * Thread-safety: single-threaded, as the command line. */
#ifndef BITCTS_HARNESS_CLI_RERUN_H
#define BITCTS_HARNESS_CLI_RERUN_H

#include <jansson.h> /* json_t */

#include "commands.h" /* bitcts_cli_run */

/** Parses a `run` command line (argv[0] is "run") into r, naming `cmd` in its error line.
 * @return 0, or an exit code after one line on stderr. */
typedef int (*bitcts_cli_rerun_parse_fn)(int argc, char **argv, bitcts_cli_run *r, const char *cmd);

/** What a rerun takes from its report. Strings point into `report`: keep it until the run ends. */
typedef struct bitcts_cli_rerun {
    json_t *report; /* owned */
    char **argv;    /* the report's command line, its words borrowed from report */
    int argc;
    bitcts_cli_run orig; /* that command line parsed */
    uint64_t seed;       /* the report's seed */
    unsigned char *only; /* per plan index: a case that did not pass there */
    size_t count;        /* cases marked in only */
} bitcts_cli_rerun;

/** Reads REPORT (a folder or a report.json) of a `run` and marks its cases that did not pass:
 * every verdict but pass, warn, recorded, not_supported and skipped.
 * @return 0, or BITCTS_EXIT_USAGE after one line (a report that cannot be read, is not a run's,
 *         names a case this bitcts does not plan). */
int bitcts_cli_rerun_load(const char *path, const bitcts_plan *plan,
                          bitcts_cli_rerun_parse_fn parse, bitcts_cli_rerun *out);

/** Applies the rerun to the command line's r: the report's seed, backend, backend options,
 * --timeout, --isolate and --repeat, every case (the selection is the report's cases, which
 * --filter, --exclude, --skips and --claimed may narrow). An outcome option the command line
 * gives that differs from the report's, --tier, --feature-level, --shard, --shard-count,
 * --shard-timings, or a --report that is REPORT's folder, is refused.
 * @param command_line [in,out] argv as given (bitcts_cli_command_line); the options taken from
 *        the report are appended (the new report records them, so that it can be rerun in turn).
 * @return 0, or BITCTS_EXIT_USAGE after one line. */
int bitcts_cli_rerun_apply(bitcts_cli_rerun *rr, const char *path, int argc, char **argv,
                           bitcts_cli_run *r, json_t *command_line);

void bitcts_cli_rerun_free(bitcts_cli_rerun *rr);

#endif
