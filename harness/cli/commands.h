/* SPDX-License-Identifier: MIT */
/* The subcommands of the bitcts executable, one file each. Each returns the process exit code:
 * 0 success, 1 a completed run with failures, 2 bad input (with a one-line error on stderr).
 * Thread-safety: commands run on the main thread. */
#ifndef BITCTS_HARNESS_CLI_COMMANDS_H
#define BITCTS_HARNESS_CLI_COMMANDS_H

#include <jansson.h> /* json_t */

#include "case_plan.h"   /* bitcts_selection */
#include "cli_options.h" /* bitcts_cli_table */

struct bitcts_run_config; /* runner.h */

int bitcts_cmd_list(int argc, char **argv);
int bitcts_cmd_eval(int argc, char **argv);
int bitcts_cmd_vectors(int argc, char **argv);
/** `vectors regen` and `vectors verify`: argv[0] is the action. */
int bitcts_cmd_golden(int argc, char **argv);
int bitcts_cmd_run(int argc, char **argv);
int bitcts_cmd_sweep(int argc, char **argv);
int bitcts_cmd_bench(int argc, char **argv);
int bitcts_cmd_report(int argc, char **argv);
int bitcts_cmd_explore(int argc, char **argv);

/** Where `run` and `explore` put the options they share. */
typedef struct bitcts_cli_shrink_args {
    uint64_t seconds; /* --shrink-seconds */
    uint64_t max;     /* --shrink-max */
} bitcts_cli_shrink_args;

/** The options `run` and `explore` share (--backend, --backend-option, --threads, --jobs,
 * --timeout, --report, --seed, --isolate, --repeat, --force) into cfg. */
bitcts_cli_table bitcts_cli_run_table(struct bitcts_run_config *cfg);
/** --shrink-seconds and --shrink-max, shared by `run` and `explore`. */
bitcts_cli_table bitcts_cli_shrink_table(bitcts_cli_shrink_args *args);
/** Shrinks the failures of `report` (a run of cfg) into out_dir/<id>/, printing each as it
 * ends. @return 0, or -1 when shrinking or one of the cases failed (printed). */
int bitcts_cli_shrink(const char *cmd, const struct bitcts_run_config *cfg, const json_t *report,
                      const char *out_dir, size_t max_cases, double budget_s);
/** The command line as a report records it (a JSON array of argv); NULL when out of memory. */
json_t *bitcts_cli_command_line(int argc, char **argv);
/** `report matrix`: argv[0] is "matrix". */
int bitcts_cmd_report_matrix(int argc, char **argv);
int bitcts_cmd_check(int argc, char **argv);

/** What bitcts_glob_is_valid asks of a glob, for messages. */
#define BITCTS_CLI_GLOB_RULE "an unclosed '[' or a trailing '\\'"

/** The selection in words for a message: "--filter 'A', --filter 'B', --tier T[,
 * --feature-level FL]" (every --filter; "--filter '*'" when there is none). */
void bitcts_cli_selection_text(const bitcts_selection *sel, const char *tier_text, char *out,
                               size_t cap);
/** Refuses a selection that matches no case of the plan: one line naming the filter, tier and
 * feature level. @return 0, or BITCTS_EXIT_USAGE after printing. */
int bitcts_cli_require_cases(const char *cmd, const bitcts_plan *plan, const bitcts_selection *sel,
                             const char *tier_text);

/** A selection as the command line gives it: --filter (repeatable: the union), --tier and
 * --feature-level, and the tier as written for messages. */
typedef struct bitcts_cli_selection {
    bitcts_selection sel;
    const char *tier_text; /* NULL: default */
} bitcts_cli_selection;

/** The selection options (list, vectors export, run) into s. */
bitcts_cli_table bitcts_cli_selection_table(bitcts_cli_selection *s);

#endif
