/* SPDX-License-Identifier: MIT */
/* Shrinking a report's failures for `run --shrink` and `explore`: their shared options, progress
 * and repro lines. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* getenv, strtoul */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "runner.h"
#include "shrink.h"
#include "shrink_failures.h"

static const bitcts_cli_option shrink_options[] = {
    BITCTS_OPT_NUMBER("--shrink-seconds", "N", U64, offsetof(bitcts_cli_shrink_args, seconds), 1,
                      86400, "time for all the shrinking (default 120)"),
    BITCTS_OPT_NUMBER("--shrink-max", "N", U64, offsetof(bitcts_cli_shrink_args, max), 1, 100000,
                      "shrink at most N failures, one of each kind first (default 10)"),
    BITCTS_OPT_TEXT("--save", "DIR", offsetof(bitcts_cli_shrink_args, save), 4000,
                    "keep each shrunk failure in DIR as a regression case file, named by its "
                    "digest, that `run --regressions DIR` replays (docs/regressions.md)"),
};

BITCTS_CLI_TABLE_FN(bitcts_cli_shrink_table, bitcts_cli_shrink_args, shrink_options)

int bitcts_cli_shrink_wanted(const json_t *report)
{
    const json_t *cases = json_object_get(report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        char sig[96];
        if (bitcts_shrink_signature(json_array_get(cases, i), sig, sizeof sig)[0] != '\0') {
            return 1;
        }
    }
    return 0;
}

static void on_shrunk(void *user, const bitcts_shrunk *s, size_t done, size_t total)
{
    (void)user;
    if (s->status != BITCTS_OK) {
        printf("  [%zu/%zu] %s (%s): not shrunk: %s\n", done, total, s->id, s->signature, s->error);
        return;
    }
    printf("  [%zu/%zu] %s (%s): %llu elements, rank %u -> %llu elements, rank %u "
           "(%u steps, %u candidates, %.1f s%s)\n"
           "      %s\n      %s\n      vectors: %s/\n",
           done, total, s->id, s->signature, (unsigned long long)s->elements_before, s->rank_before,
           (unsigned long long)s->elements_after, s->rank_after, s->steps, s->candidates,
           s->seconds, s->exhausted ? "" : ", out of time", s->run_command, s->eval_command,
           s->folder);
    if (s->saved[0] != '\0') {
        printf("      saved: %s\n", s->saved);
    }
    fflush(stdout);
}

int bitcts_cli_shrink(const char *cmd, const bitcts_run_config *cfg, const json_t *report,
                      const char *out_dir, size_t max_cases, double budget_s, const char *save_dir)
{
    /* A deliberately broken shrinker, for the tests that prove their checks (docs/explore.md) */
    const char *stop = getenv("BITCTS_SHRINK_STOP_AFTER");
    const bitcts_shrink_failures_options o = {
        .run = cfg,
        .out_dir = out_dir,
        .max_cases = max_cases,
        .budget_s = budget_s,
        .stop_after = stop != NULL ? (unsigned)strtoul(stop, NULL, 10) : 0,
        .on_shrunk = on_shrunk,
        .save_dir = save_dir};
    printf("\nshrinking failures (at most %zu cases, %.0f s):\n", max_cases, budget_s);
    fflush(stdout);
    bitcts_shrunk *list = NULL;
    size_t count = 0;
    char err[4400] = "";
    const int st = bitcts_shrink_failures(&o, report, &list, &count, err, sizeof err);
    int bad = 0;
    for (size_t i = 0; i < count; ++i) {
        bad |= list[i].status != BITCTS_OK;
    }
    bitcts_shrunk_free(list, count);
    if (st != BITCTS_OK) {
        bitcts_cli_error(cmd, "shrinking: %s", err[0] ? err : bitcts_status_message(st));
        return -1;
    }
    if (count == 0) {
        printf("  nothing to shrink (no failure has a signature: docs/explore.md)\n");
    }
    return bad ? -1 : 0;
}
