/* SPDX-License-Identifier: MIT */
/* `bitcts check DIR`: judges results another program computed from an export (docs/check.md)
 * with the judge, verdicts, reports and exit codes of `bitcts run`. */
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

static const char check_usage[] =
    "usage: bitcts check DIR [--results RDIR] [--filter GLOB]... [--report OUT] [--force]\n"
    "                       [--quiet]\n"
    "\n"
    "Judges the results a program wrote for the export DIR ('bitcts vectors export --out DIR'):\n"
    "RDIR/results.json and the output files it names (format: docs/vector-format.md,\n"
    "\"Results\"). Every case is rebuilt from the seed and its id and compared as 'bitcts run'\n"
    "compares: every element bit for bit, shift counts >= the width recorded with the policy\n"
    "seen, bytes of a whole output buffer outside the elements against the initial buffer.\n"
    "  --results RDIR  the result set (default DIR/results)\n"
    "  --filter GLOB   check only the cases whose id matches (repeatable: any of them)\n"
    "  --report OUT    report folder (default bitcts-report): report.json, junit.xml,\n"
    "                  report.html, summary.md; as for run --report, a folder that is not\n"
    "                  a report folder bitcts made is refused unless --force\n"
    "Exit code: 0 nothing failed, 1 some case failed, 2 bad input (a manifest or results.json\n"
    "that cannot be read; or a result entry or file that is bad: one line each, the case\n"
    "fails, the other cases are still checked and the report is written).\n";

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

static json_t *command_line_json(int argc, char **argv)
{
    json_t *list = json_array();
    for (int i = 0; list != NULL && i < argc; ++i) {
        json_array_append_new(list, json_string(argv[i]));
    }
    return list;
}

int bitcts_cmd_check(int argc, char **argv)
{
    bitcts_check_config cfg = {.report_dir = "bitcts-report", .problem = print_problem};
    int quiet = 0, force = 0;
    const char *filters[64];
    size_t n_filters = 0;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        int r = 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(check_usage, stdout);
            return 0;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--force") == 0) {
            force = 1;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--results", &v)) != 0) {
            if (r < 0 || !*v || strlen(v) > 3000) {
                return bitcts_cli_error("check", "--results needs a directory");
            }
            cfg.results_dir = v;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--filter", &v)) != 0) {
            if (r < 0 || !*v || strlen(v) > 300) {
                return bitcts_cli_error("check", "--filter needs a glob of at most 300 bytes");
            }
            if (!bitcts_glob_is_valid(v)) {
                return bitcts_cli_error("check", "--filter: '%s' is a malformed glob (%s)", v,
                                        BITCTS_CLI_GLOB_RULE);
            }
            if (n_filters == sizeof filters / sizeof filters[0]) {
                return bitcts_cli_error("check", "at most 64 --filter options");
            }
            filters[n_filters++] = v;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--report", &v)) != 0) {
            if (r < 0 || !*v || strlen(v) > 3000) {
                return bitcts_cli_error("check", "--report needs a directory");
            }
            cfg.report_dir = v;
        } else if (argv[i][0] == '-' || cfg.export_dir != NULL) {
            return bitcts_cli_error("check", "unknown argument '%s' (see bitcts check --help)",
                                    argv[i]);
        } else if (strlen(argv[i]) > 3000) {
            return bitcts_cli_error("check", "DIR path is too long");
        } else {
            cfg.export_dir = argv[i];
        }
    }
    if (cfg.export_dir == NULL) {
        return bitcts_cli_error("check", "DIR (an export with results) is required");
    }
    const int claimed = report_folder_ok(cfg.report_dir, force);
    if (claimed != 0) {
        return claimed;
    }
    cfg.filters = filters;
    cfg.filter_count = n_filters;
    json_t *command_line = command_line_json(argc, argv);
    cfg.command_line = command_line;
    bitcts_check_result result;
    const int st = bitcts_check(&cfg, &result);
    json_decref(command_line);
    if (st != 0) {
        bitcts_check_result_free(&result);
        return bitcts_cli_error("check", "%s", result.error);
    }
    if (!quiet) {
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
