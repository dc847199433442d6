/* SPDX-License-Identifier: MIT */
/* Helpers shared by the subcommands: one-line errors (exit code 2), strict number and list
 * parsing, paths (options: cli_options.h). Thread-safety: reentrant except for printing. */
#ifndef BITCTS_HARNESS_CLI_UTIL_H
#define BITCTS_HARNESS_CLI_UTIL_H

#include <jansson.h> /* json_t */
#include <signal.h>  /* sig_atomic_t, struct sigaction */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint32_t */

#include "bitcts/bitcts_status.h" /* BITCTS_PRINTF */

#define BITCTS_EXIT_OK 0
#define BITCTS_EXIT_FAILURES 1      /* the run completed and something failed */
#define BITCTS_EXIT_USAGE 2         /* bad input: flags, files, plugins */
#define BITCTS_EXIT_ENVIRONMENT 3   /* the environment failed (no device, disk full): retry */
#define BITCTS_EXIT_INTERRUPTED 130 /* stopped by SIGINT or SIGTERM; the log is kept */

/** 1 when a command's failure (its status and one-line error) is the environment's, worth a
 * retry (BITCTS_EXIT_ENVIRONMENT): a backend that loaded but could not start (no device, no
 * driver: BITCTS_E_DEVICE), or a disk that is full or failing (BITCTS_E_IO with ENOSPC,
 * EDQUOT or EIO). */
int bitcts_cli_environment_failed(int status, const char *error);
/** Prints "bitcts <cmd>: error: <message>" on one line to stderr; returns BITCTS_EXIT_USAGE. */
int bitcts_cli_error(const char *cmd, const char *fmt, ...) BITCTS_PRINTF(2, 3);
/** Refuses an argument that is not valid UTF-8 (reports record the command line as JSON):
 * prints one line naming the option whose value it is, or its position. @return 0, or
 * BITCTS_EXIT_USAGE. */
int bitcts_cli_check_utf8(const char *cmd, int argc, char **argv);
/* Seconds a timeout may be: below 0.1 s no correct backend finishes a call (every case would
 * be a timeout); above a day is a mistake. */
#define BITCTS_CLI_MIN_TIMEOUT_S 0.1
#define BITCTS_CLI_MAX_TIMEOUT_S 86400.0
#define BITCTS_CLI_SECONDS_RULE "is not a number of seconds from 0.1 to 86400"
/** Parses a timeout in seconds (a decimal number, BITCTS_CLI_MIN_TIMEOUT_S to
 * BITCTS_CLI_MAX_TIMEOUT_S); 0 on success, -1 otherwise. */
int bitcts_cli_parse_seconds(const char *text, double *out);
/** 1 when paths a and b name the same file: the same inode when both exist, else the same
 * canonical folder and name (a file not written yet). */
int bitcts_cli_same_file(const char *a, const char *b);
/** The report.json a report argument names: PATH/report.json for a folder, else PATH. */
void bitcts_cli_report_file(const char *path, char *out, size_t cap);
/** Refuses an output file that is one of the input reports, or another output: one line
 * naming both. outputs[k] may be NULL (not asked for); names[k] is its option.
 * @return 0, or BITCTS_EXIT_USAGE after printing. */
int bitcts_cli_outputs_apart(const char *cmd, const char *const *outputs, const char *const *names,
                             int n_outputs, const char *const *inputs, int n_inputs);
/** Writes doc (indented by `indent`, then released) to path atomically; "out of memory writing
 * PATH" or the writer's error on one line. @return 0, or BITCTS_EXIT_USAGE after printing. */
int bitcts_cli_write_json(const char *cmd, json_t *doc, size_t indent, const char *path);

/** Set by SIGINT and SIGTERM while they are caught: Ctrl-C or a polite kill stops the command,
 * which cleans up and exits with BITCTS_EXIT_INTERRUPTED. */
extern volatile sig_atomic_t bitcts_cli_interrupted;
/** The handlers the command replaced, for bitcts_cli_interrupts_restore. */
typedef struct bitcts_cli_interrupts {
    struct sigaction old_int;
    struct sigaction old_term;
} bitcts_cli_interrupts;
/** Clears bitcts_cli_interrupted and catches SIGINT and SIGTERM into it. */
void bitcts_cli_interrupts_catch(bitcts_cli_interrupts *saved);
/** Puts back the handlers bitcts_cli_interrupts_catch replaced. */
void bitcts_cli_interrupts_restore(const bitcts_cli_interrupts *saved);

/** Parses a whole decimal or 0x-hex unsigned number; 0 on success. */
int bitcts_cli_parse_u64(const char *text, uint64_t *out);
/** Parses "a,b,c" into at most `cap` uint32 values; returns the count or -1 when malformed. */
int bitcts_cli_parse_u32_list(const char *text, uint32_t *out, int cap);

#endif
