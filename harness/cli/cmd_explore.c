/* SPDX-License-Identifier: MIT */
/* `bitcts explore`: random cases beyond the plan, run as `run` runs them, their failures shrunk
 * (docs/explore.md). */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp, memset */
#include <unistd.h> /* isatty */

#include "bitcts/bitcts_status.h"
#include "case_json.h"
#include "cli_util.h"
#include "clock.h"
#include "commands.h"
#include "explore.h"
#include "explore_run.h"
#include "report.h"
#include "runner.h"

static const char explore_description[] =
    "Draws random valid cases the plan does not contain (any operator, type, rank 1-8, sizes\n"
    "biased to powers of two, SIMD and page boundaries, padding, broadcast, permutations, in\n"
    "place, spare bytes, values biased to the edge classes), runs them in worker processes as\n"
    "`run` does and judges them the same way. Case explore.<K> is derived from the seed and K\n"
    "alone: `bitcts run --backend B --seed S --filter explore.K` runs it again. Then shrinks\n"
    "each failure to a smaller case that fails the same way and writes it, beside the\n"
    "original, as vectors `bitcts check` reads (DIR/shrunk/<id>/) with a `bitcts eval`\n"
    "command (docs/explore.md). Give one of --seconds N and --cases N. Exit code 0 when\n"
    "nothing failed, 1 when something did, 2 for a bad command line, 130 when interrupted.\n";

typedef struct explore_args {
    double seconds;
    uint64_t cases;
    uint64_t first;
    int shrink;
    double shrink_seconds;
    uint64_t shrink_max;
    const char *save; /* --save */
    int quiet;
} explore_args;

/* What the options give, before explore_args takes it. */
typedef struct explore_options {
    uint64_t seconds;
    uint64_t cases;
    uint64_t first;
    int no_shrink;
    int quiet;
} explore_options;

#define EXPLORE_AT(field) offsetof(explore_options, field)

static const bitcts_cli_option explore_own_options[] = {
    BITCTS_OPT_NUMBER("--seconds", "N", U64, EXPLORE_AT(seconds), 1, 7 * 86400,
                      "explore for N seconds (cases that have not started are not run)"),
    BITCTS_OPT_NUMBER("--cases", "N", U64, EXPLORE_AT(cases), 1, BITCTS_EXPLORE_MAX_INDEX,
                      "explore cases K .. K+N-1"),
    BITCTS_OPT_NUMBER("--first", "K", U64, EXPLORE_AT(first), 0, BITCTS_EXPLORE_MAX_INDEX,
                      "the first index (default 0)"),
    BITCTS_OPT_FLAG("--no-shrink", EXPLORE_AT(no_shrink), "report the failures as they are"),
    BITCTS_OPT_FLAG("--quiet", EXPLORE_AT(quiet), "no progress line"),
};

/* run's options that explore does not take. */
static const char *const run_only[] = {
    "--shard",   "--shard-count", "--shard-timings", "--baseline", "--resume",  "--filter",
    "--exclude", "--tier",        "--feature-level", "--skips",    "--claimed", NULL};

/* The command line into r and a; 0, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, bitcts_cli_run *r, explore_args *a)
{
    explore_options o = {0};
    bitcts_cli_shrink_args shrink = {.seconds = (uint64_t)a->shrink_seconds, .max = a->shrink_max};
    const bitcts_cli_table tables[] = {
        bitcts_cli_backend_table(&r->backend, BITCTS_CLI_BACKEND_REQUIRED), bitcts_cli_run_table(r),
        BITCTS_CLI_TABLE(explore_own_options, &o), bitcts_cli_shrink_table(&shrink)};
    const bitcts_cli_spec spec = {.cmd = "explore",
                                  .description = explore_description,
                                  .tables = tables,
                                  .needs_arguments = 1,
                                  .table_count = sizeof tables / sizeof tables[0],
                                  .elsewhere = run_only,
                                  .elsewhere_cmd = "run"};
    const int rc = bitcts_cli_parse(&spec, argc, argv, NULL, NULL);
    if (rc != 0) {
        return rc;
    }
    bitcts_run_config *cfg = &r->cfg;
    bitcts_cli_run_apply(r);
    a->seconds = (double)o.seconds;
    a->cases = o.cases;
    a->first = o.first;
    a->shrink = !o.no_shrink;
    a->quiet = o.quiet;
    a->shrink_seconds = (double)shrink.seconds;
    a->shrink_max = shrink.max;
    a->save = shrink.save;
    if (cfg->backend_spec == NULL) {
        return bitcts_cli_error("explore", "--backend is required");
    }
    if ((a->seconds > 0) == (a->cases > 0)) {
        return bitcts_cli_error("explore", "give one of --seconds N and --cases N");
    }
    if (a->save != NULL && !a->shrink) {
        return bitcts_cli_error("explore", "--save keeps shrunk failures: not with --no-shrink");
    }
    if (a->cases > 0 && a->first + a->cases - 1 > BITCTS_EXPLORE_MAX_INDEX) {
        return bitcts_cli_error("explore", "--first + --cases goes past explore.%llu",
                                (unsigned long long)BITCTS_EXPLORE_MAX_INDEX);
    }
    return 0;
}

/* The progress line, on a terminal: rewritten after each round. */
static void on_progress(void *user, size_t ran, size_t failing, double elapsed_s)
{
    (void)user;
    fprintf(stderr, "\rexplored %zu cases (%zu failing) in %.0f s ", ran, failing, elapsed_s);
}

/* The report in text, the range explored and the shrunk failures; the exit code. */
static int explore_print(const bitcts_run_config *cfg, const explore_args *a,
                         const bitcts_explore_result *res, const char *report_dir, double t0)
{
    char *text = NULL;
    if (bitcts_report_render(res->report, BITCTS_REPORT_FORMAT_TEXT, &text, NULL) == BITCTS_OK) {
        printf("\n%s", text);
    }
    free(text);
    char seed[19];
    bitcts_format_u64(cfg->seed, seed);
    const size_t ran = res->ran;
    printf("\nexplored explore.%llu .. explore.%llu (seed %s): %zu cases in %.1f s; report in "
           "%s/\n",
           (unsigned long long)a->first, (unsigned long long)(a->first + ran - (ran > 0)), seed,
           ran, bitcts_clock_now() - t0, report_dir);
    if ((res->failed || bitcts_cli_shrink_wanted(res->report)) && a->shrink && !res->interrupted) {
        char out_dir[3200];
        snprintf(out_dir, sizeof out_dir, "%s/shrunk", report_dir);
        bitcts_cli_shrink("explore", cfg, res->report, out_dir, (size_t)a->shrink_max,
                          a->shrink_seconds, a->save);
    }
    if (res->interrupted) {
        fprintf(stderr, "bitcts explore: interrupted; the report holds the cases that ended\n");
        return BITCTS_EXIT_INTERRUPTED;
    }
    return res->failed ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
}

int bitcts_cmd_explore(int argc, char **argv)
{
    bitcts_cli_run r;
    bitcts_cli_run_init(&r, BITCTS_TIER_ALL, "bitcts-explore");
    bitcts_run_config *cfg = &r.cfg;
    explore_args a = {.shrink = 1, .shrink_seconds = 120, .shrink_max = 10};
    const int pr = parse_args(argc, argv, &r, &a);
    if (pr != 0) {
        return pr < 0 ? 0 : pr;
    }
    json_t *command_line = bitcts_cli_command_line(argc, argv);
    if (command_line == NULL) {
        return bitcts_cli_error("explore", "out of memory");
    }
    cfg->command_line = command_line;
    bitcts_cli_interrupts saved;
    bitcts_cli_interrupts_catch(&saved);
    cfg->interrupted = &bitcts_cli_interrupted;

    const double t0 = bitcts_clock_now();
    const int progress = !a.quiet && isatty(STDERR_FILENO);
    const bitcts_explore_config ec = {.run = cfg,
                                      .first = a.first,
                                      .cases = a.cases,
                                      .seconds = a.seconds,
                                      .progress = progress ? on_progress : NULL};
    bitcts_explore_result res;
    const int st = bitcts_explore_run(&ec, &res);
    if (progress) {
        fputc('\n', stderr);
    }
    bitcts_cli_interrupts_restore(&saved);
    const int rc = st != BITCTS_OK ? bitcts_cli_error("explore", "%s", res.error)
                                   : explore_print(cfg, &a, &res, cfg->report_dir, t0);
    bitcts_explore_result_free(&res);
    json_decref(command_line);
    return rc;
}
