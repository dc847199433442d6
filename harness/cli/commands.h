/* SPDX-License-Identifier: MIT */
/* The subcommands of the bitcts executable, one file each. Each returns the process exit code:
 * 0 success, 1 a completed run with failures, 2 bad input (with a one-line error on stderr).
 * Thread-safety: commands run on the main thread. */
#ifndef BITCTS_HARNESS_CLI_COMMANDS_H
#define BITCTS_HARNESS_CLI_COMMANDS_H

#include <jansson.h> /* json_t */

#include "backend.h"     /* bitcts_backend_options */
#include "case_plan.h"   /* bitcts_selection */
#include "cli_options.h" /* bitcts_cli_table */
#include "runner.h"      /* bitcts_run_config */

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

/** Where --backend and --backend-option go, for a command to hand on to its config. The keys
 * of the options are copied into key_store: it must outlive every use of the options. */
typedef struct bitcts_cli_backend {
    const char *spec;
    bitcts_backend_options options;
    char key_store[BITCTS_MAX_OPTIONS][64];
} bitcts_cli_backend;

/** Which help --backend and --backend-option get. */
typedef enum bitcts_cli_backend_use {
    BITCTS_CLI_BACKEND_REQUIRED,   /* run, explore, sweep: one instance, --backend required */
    BITCTS_CLI_BACKEND_DEFAULT_CPU /* bench: every instance, --backend default cpu */
} bitcts_cli_backend_use;

/** --backend and --backend-option into b. */
bitcts_cli_table bitcts_cli_backend_table(bitcts_cli_backend *b, bitcts_cli_backend_use use);

/** Where `run` and `explore` parse their shared options: the backend's, then the config's. */
typedef struct bitcts_cli_run {
    bitcts_cli_backend backend;
    bitcts_run_config cfg;
} bitcts_cli_run;

/** The options `run` and `explore` share after the backend's (--threads, --jobs, --timeout,
 * --report, --seed, --isolate, --repeat, --force) into r. */
bitcts_cli_table bitcts_cli_run_table(bitcts_cli_run *r);
/** The defaults of `run` and `explore`: the tiers selected, the report folder, the default seed, a
 * worker per core, 30 s timeouts. */
void bitcts_cli_run_init(bitcts_cli_run *r, uint32_t tiers, const char *report_dir);
/** After parsing: the backend's spec and options into r->cfg. */
void bitcts_cli_run_apply(bitcts_cli_run *r);

/** Where `run` and `explore` put the shrink options they share. */
typedef struct bitcts_cli_shrink_args {
    uint64_t seconds; /* --shrink-seconds */
    uint64_t max;     /* --shrink-max */
    const char *save; /* --save: a regression case folder, or NULL */
} bitcts_cli_shrink_args;
/** --shrink-seconds, --shrink-max and --save, shared by `run` and `explore`. */
bitcts_cli_table bitcts_cli_shrink_table(bitcts_cli_shrink_args *args);
/** 1 when some case of `report` has a failure signature to shrink (a warning's included). */
int bitcts_cli_shrink_wanted(const json_t *report);
/** Shrinks the failures of `report` (a run of cfg) into out_dir/<id>/, printing each as it
 * ends, and keeps each shrunk case in save_dir as a regression case file (NULL: not).
 * @return 0, or -1 when shrinking or one of the cases failed (printed). */
int bitcts_cli_shrink(const char *cmd, const bitcts_run_config *cfg, const json_t *report,
                      const char *out_dir, size_t max_cases, double budget_s, const char *save_dir);
/** `run`'s shard options: --shard I/N|auto, --shard-count, --shard-timings. */
typedef struct bitcts_cli_shard {
    const char *text;         /* --shard as given; NULL: not sharded */
    uint32_t index, count;    /* from I/N, or from the engine (auto) */
    uint32_t count_hint;      /* --shard-count */
    const char *timings_path; /* --shard-timings */
    json_t *timings_report;   /* loaded from timings_path; owns the table's ids */
    bitcts_shard_timing *table;
    size_t table_count;
} bitcts_cli_shard;
bitcts_cli_table bitcts_cli_shard_table(bitcts_cli_shard *s);
/** After parsing: resolves auto from the environment (touching Bazel's status file), loads the
 * timings, and sets cfg's shard members. @return 0, or an exit code after printing one line. */
int bitcts_cli_shard_apply(const char *cmd, bitcts_cli_shard *s, bitcts_run_config *cfg);
void bitcts_cli_shard_free(bitcts_cli_shard *s);

/** The command line as a report records it: a JSON array of the program's name as main got it
 * (bitcts_cli_set_program), then the command's argv (argv[0] the command's word); NULL when
 * out of memory. */
json_t *bitcts_cli_command_line(int argc, char **argv);
/** Called by main with its argv[0] (which must outlive the command). */
void bitcts_cli_set_program(const char *argv0);
/** `report matrix`: argv[0] is "matrix". */
int bitcts_cmd_report_matrix(int argc, char **argv);
int bitcts_cmd_report_verify(int argc, char **argv);
int bitcts_cmd_check(int argc, char **argv);
int bitcts_cmd_debug(int argc, char **argv);
/** `baseline update` (and --check): argv[0] is "baseline". */
int bitcts_cmd_baseline(int argc, char **argv);

/** What bitcts_glob_is_valid asks of a glob, for messages. */
#define BITCTS_CLI_GLOB_RULE "an unclosed '[' or a trailing '\\'"

/** The selection in words for a message: "--filter 'A', --filter 'B', [--exclude 'C', ]--tier
 * T[, --feature-level FL]" (every --filter; "--filter '*'" when there is none). */
void bitcts_cli_selection_text(const bitcts_selection *sel, const char *tier_text, char *out,
                               size_t cap);
/** Refuses a selection that matches no case of the plan: one line naming the filter, tier and
 * feature level. @return 0, or BITCTS_EXIT_USAGE after printing. */
int bitcts_cli_require_cases(const char *cmd, const bitcts_plan *plan, const bitcts_selection *sel,
                             const char *tier_text);

/** A selection as the command line gives it: --filter (repeatable: the union), --exclude
 * (repeatable), --tier and --feature-level, and the tier as written for messages. */
typedef struct bitcts_cli_selection {
    bitcts_selection sel;
    const char *tier_text; /* NULL: default */
} bitcts_cli_selection;

/** The selection options (list, vectors export, run) into s. */
bitcts_cli_table bitcts_cli_selection_table(bitcts_cli_selection *s);

#endif
