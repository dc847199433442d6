/* SPDX-License-Identifier: MIT */
/* `bitcts check DIR`: judges results another program computed from an export (docs/check.md)
 * with the judge, verdicts, reports and exit codes of `bitcts run`. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "check_run.h"
#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "report.h"
#include "report_files.h"

static const char check_description[] =
    "Judges the results a program wrote for the export DIR ('bitcts vectors export --out DIR'):\n"
    "RDIR/results.json and the output files it names (format: docs/vector-format.md,\n"
    "\"Results\"). Every case is rebuilt from the seed and its id and compared as 'bitcts run'\n"
    "compares: every element bit for bit, shift counts >= the width recorded with the policy\n"
    "seen, bytes of a whole output buffer outside the elements against the initial buffer.\n";

static const char check_epilogue[] =
    "Exit code: 0 nothing failed, 1 some case failed, 2 bad input (a manifest or results.json\n"
    "that cannot be read; or a result entry or file that is bad: one line each, the case\n"
    "fails, the other cases are still checked and the report is written).\n";

typedef struct check_args {
    int quiet;
    int force;
} check_args;

#define CHECK_AT(field) offsetof(bitcts_check_config, field)

static const bitcts_cli_option check_config_options[] = {
    BITCTS_OPT_TEXT("--results", "RDIR", CHECK_AT(results_dir), 3000,
                    "the result set (default DIR/results)"),
    BITCTS_OPT_GLOB("--filter", "GLOB", CHECK_AT(filter), 300,
                    "check only the cases whose id matches; given several times, the cases "
                    "matching any of them"),
    BITCTS_OPT_GLOB("--exclude", "GLOB", CHECK_AT(exclude), 300,
                    "do not check the cases whose id matches, even where a --filter matches them"),
    BITCTS_OPT_TEXT("--skips", "FILE", CHECK_AT(skips_path), 3000,
                    "cases not to judge: lines '<glob> <reason...>' (as for run --skips); they "
                    "get the verdict skipped with the reason and FILE:LINE"),
    BITCTS_OPT_TEXT("--report", "OUT", CHECK_AT(report_dir), 3000,
                    "report folder (default bitcts-report): report.json, junit.xml, "
                    "report.html, summary.md; as for run --report, a folder that is not a report "
                    "folder bitcts made is refused unless --force"),
};

static const bitcts_cli_option check_own_options[] = {
    BITCTS_OPT_FLAG("--force", offsetof(check_args, force),
                    "let --report use a folder bitcts did not create"),
    BITCTS_OPT_FLAG("--quiet", offsetof(check_args, quiet), "no summary on standard output"),
};

/* The command line into cfg and a; 0, or an exit code (BITCTS_CLI_HELP: 0). */
static int parse_check(int argc, char **argv, bitcts_check_config *cfg, check_args *a)
{
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(check_config_options, cfg),
                                       BITCTS_CLI_TABLE(check_own_options, a)};
    const bitcts_cli_spec spec = {.cmd = "check",
                                  .operands = "DIR",
                                  .max_operands = 1,
                                  .description = check_description,
                                  .epilogue = check_epilogue,
                                  .tables = tables,
                                  .table_count = 2};
    const char *dir[1] = {NULL};
    const int rc = bitcts_cli_parse(&spec, argc, argv, dir, NULL);
    if (rc != 0) {
        return rc == BITCTS_CLI_HELP ? -1 : rc;
    }
    if (dir[0] == NULL) {
        return bitcts_cli_error("check", "DIR (an export with results) is required");
    }
    if (strlen(dir[0]) > 3000) {
        return bitcts_cli_error("check", "DIR path is too long");
    }
    cfg->export_dir = dir[0];
    return 0;
}

static void print_problem(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "bitcts check: error: %s\n", line);
}

/* As bitcts run: a --report folder must be missing, empty, or a report folder bitcts made. */
static int report_folder_ok(const char *dir, int force)
{
    char err[4400];
    if (bitcts_report_files_can_claim(dir, force, "--report", err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("check", "%s", err);
    }
    return 0;
}

int bitcts_cmd_check(int argc, char **argv)
{
    bitcts_check_config cfg = {.report_dir = "bitcts-report", .problem = print_problem};
    check_args a = {0};
    const int parsed = parse_check(argc, argv, &cfg, &a);
    if (parsed != 0) {
        return parsed < 0 ? BITCTS_EXIT_OK : parsed;
    }
    const int claimed = report_folder_ok(cfg.report_dir, a.force);
    if (claimed != 0) {
        return claimed;
    }
    json_t *command_line = bitcts_cli_command_line(argc, argv);
    cfg.command_line = command_line;
    bitcts_check_result result;
    const int st = bitcts_check(&cfg, &result);
    json_decref(command_line);
    if (st != 0) {
        bitcts_check_result_free(&result);
        return bitcts_cli_error("check", "%s", result.error);
    }
    if (!a.quiet) {
        char *text = NULL;
        if (bitcts_report_render(result.report, BITCTS_REPORT_FORMAT_TEXT, &text, NULL) == 0) {
            printf("\n%s", text);
        }
        free(text);
        printf("\n%zu cases checked; report in %s/ (report.json, junit.xml, report.html, "
               "summary.md)\n",
               result.cases, cfg.report_dir);
    }
    const int exit_code = result.problems > 0 ? BITCTS_EXIT_USAGE
                          : result.failed     ? BITCTS_EXIT_FAILURES
                                              : BITCTS_EXIT_OK;
    if (result.problems > 0) {
        fprintf(stderr, "bitcts check: %zu problems with the input (see above); exit code 2\n",
                result.problems);
    }
    bitcts_check_result_free(&result);
    return exit_code;
}
