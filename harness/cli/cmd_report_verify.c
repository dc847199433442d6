/* SPDX-License-Identifier: MIT */
/* `bitcts report verify R`: a published report checked against what this bitcts makes of its
 * seed and selection (harness/judge/verify.c). Exit 0: verified; 1: problems, each one line;
 * 2: the report cannot be read. */
#include <stdio.h> /* printf */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "report_files.h"
#include "verify.h"

static const char verify_description[] =
    "Verifies a report (a folder or report.json) as a published result: every case of its\n"
    "selection (its shard's, when sharded) exactly once and in plan order, nothing else; the\n"
    "seed, generator and bitcts version this bitcts has; verdicts that fit their cases; and the\n"
    "output digest of every case whose outputs were right (pass, warn, recorded under a known\n"
    "policy, unexpected_pass) recomputed from the seed and the case id by the reference. Runs\n"
    "no backend. Exit 0 when verified, 1 with one line per problem, 2 when R cannot be read.\n";

typedef struct verify_print {
    size_t shown;
} verify_print;

static void on_problem(void *user, const char *line)
{
    verify_print *p = user;
    if (p->shown++ < 50) {
        printf("problem: %s\n", line);
    }
}

int bitcts_cmd_report_verify(int argc, char **argv)
{
    const char *path[1] = {NULL};
    const bitcts_cli_spec spec = {.cmd = "report verify",
                                  .operands = "R",
                                  .max_operands = 1,
                                  .needs = "exactly one report",
                                  .description = verify_description};
    const int parsed = bitcts_cli_parse(&spec, argc, argv, path, NULL);
    if (parsed != 0) {
        return parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
    }
    char err[BITCTS_REPORT_ERROR_CAP + 4200] = "";
    json_t *report = NULL;
    if (bitcts_report_files_load(path[0], &report, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("report verify", "%s", err);
    }
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        json_decref(report);
        return bitcts_cli_error("report verify", "out of memory");
    }
    verify_print p = {0};
    bitcts_verify_result r;
    const int st = bitcts_report_verify(report, plan, on_problem, &p, &r);
    bitcts_plan_destroy(plan);
    json_decref(report);
    if (st == BITCTS_E_OUT_OF_MEMORY) {
        return bitcts_cli_error("report verify", "out of memory");
    }
    if (st != BITCTS_OK) {
        printf("report verify: %s: NOT verified: %zu problems%s (%zu cases, %zu selected, %zu "
               "digests recomputed and equal)\n",
               path[0], r.problems, r.problems > 50 ? ", the first 50 shown" : "", r.cases,
               r.selected, r.recomputed);
        return BITCTS_EXIT_FAILURES;
    }
    printf("report verify: %s: verified: %zu cases, the whole selection once, %zu output digests "
           "recomputed and equal\n",
           path[0], r.cases, r.recomputed);
    return BITCTS_EXIT_OK;
}
