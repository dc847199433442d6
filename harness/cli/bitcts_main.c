/* SPDX-License-Identifier: MIT */
/* The bitcts executable: git-style subcommands. */
#include <errno.h>  /* errno */
#include <stdio.h>  /* printf */
#include <string.h> /* strcmp, strerror */
#include <unistd.h> /* isatty */

#include "bitcts/bitcts_version.h"
#include "cli_util.h"
#include "commands.h"
#include "source_commit.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"list", bitcts_cmd_list, "list case ids of a selection, or a coverage summary (--count)"},
    {"eval", bitcts_cmd_eval, "reference result for literal inputs"},
    {"vectors", bitcts_cmd_vectors, "export cases as language-neutral vectors"},
    {"run", bitcts_cmd_run, "run a backend over a selection and report the verdicts"},
    {"explore", bitcts_cmd_explore, "run random cases beyond the plan and shrink what fails"},
    {"sweep", bitcts_cmd_sweep,
     "exhaustive 2^32 sweeps of a backend, checked against the reference"},
    {"bench", bitcts_cmd_bench, "CPU backend speed against measured memory limits and NumPy"},
    {"check", bitcts_cmd_check, "judge results another program computed from an export"},
    {"report", bitcts_cmd_report, "compare, merge or re-render run reports"},
    {"debug", bitcts_cmd_debug,
     "one case in this process, for a debugger (no worker, no watchdog)"},
    {"baseline", bitcts_cmd_baseline, "bring a baseline file up to date with run reports"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bitcts [--help] [--version] <command> [<args>]\n\n"
            "bitcts: the conformance suite for the DirectML bitwise element-wise operators.\n\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; ++i) {
        fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    }
    fprintf(out, "\n'bitcts <command> --help' describes a command.\n");
}

/* Standard output flushed and closed: output that was lost (a full disk, a closed pipe with
 * SIGPIPE ignored) is an error, never exit code 0. */
static int close_stdout(const char *cmd, int rc)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    int e = errno;
    failed |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (!failed) {
        return rc;
    }
    bitcts_cli_error(cmd, "cannot write standard output: %s", e != 0 ? strerror(e) : "I/O error");
    return rc != BITCTS_EXIT_OK ? rc : BITCTS_EXIT_USAGE;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return BITCTS_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; ++i) {
                if (strcmp(argv[2], subcommands[i].name) == 0) {
                    char *help_argv[] = {argv[2], "--help", NULL};
                    return subcommands[i].run(2, help_argv);
                }
            }
            return bitcts_cli_error(NULL, "unknown command '%s'", argv[2]);
        }
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("bitcts %s (commit %s)\n", BITCTS_VERSION_STRING, bitcts_source_commit());
        return 0;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; ++i) {
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            const int rc = bitcts_cli_check_utf8(subcommands[i].name, argc - 1, argv + 1);
            return rc != 0 ? rc : subcommands[i].run(argc - 1, argv + 1);
        }
    }
    return bitcts_cli_error(NULL, "unknown command '%s' (see bitcts --help)", argv[1]);
}

int main(int argc, char **argv)
{
    const char *cmd = NULL;
    /* Not a terminal: one buffer of 64 KiB, so that output up to that size (a command's help)
     * is written once, at the close below, which then knows why it failed (a full disk). */
    static char buffer[(size_t)1 << 16]; /* glibc ignores a size without a buffer */
    if (!isatty(STDOUT_FILENO)) {
        setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    }
    bitcts_cli_set_program(argv[0]);
    for (size_t i = 0; argc > 1 && i < sizeof subcommands / sizeof subcommands[0]; ++i) {
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            cmd = subcommands[i].name;
        }
    }
    return close_stdout(cmd, dispatch(argc, argv));
}
