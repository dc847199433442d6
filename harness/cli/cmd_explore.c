/* SPDX-License-Identifier: MIT */
/* `bitcts explore`: random cases beyond the plan, run as `run` runs them, their failures shrunk
 * (docs/explore.md). */
#include <signal.h> /* sigaction, SIGINT, SIGTERM */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* strtod */
#include <string.h> /* strcmp */
#include <time.h>   /* time, gmtime, strftime */
#include <unistd.h> /* sysconf, isatty */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "case_json.h"
#include "cli_util.h"
#include "clock.h"
#include "commands.h"
#include "explore.h"
#include "fs_util.h"
#include "report.h"
#include "report_files.h"
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

#define EXPLORE_ROUND 2048u /* cases per runner call: a bounded plan, a report per round */

static volatile sig_atomic_t explore_interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    explore_interrupted = 1;
}

typedef struct explore_args {
    double seconds;
    uint64_t cases;
    uint64_t first;
    int shrink;
    double shrink_seconds;
    uint64_t shrink_max;
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

static const bitcts_cli_option explore_own_options[] = {
    {.name = "--seconds",
     .value_name = "N",
     .kind = BITCTS_CLI_U64,
     .offset = offsetof(explore_options, seconds),
     .lo = 1,
     .hi = 7 * 86400,
     .help = "explore for N seconds (cases that have not started are not run)"},
    {.name = "--cases",
     .value_name = "N",
     .kind = BITCTS_CLI_U64,
     .offset = offsetof(explore_options, cases),
     .lo = 1,
     .hi = BITCTS_EXPLORE_MAX_INDEX,
     .help = "explore cases K .. K+N-1"},
    {.name = "--first",
     .value_name = "K",
     .kind = BITCTS_CLI_U64,
     .offset = offsetof(explore_options, first),
     .hi = BITCTS_EXPLORE_MAX_INDEX,
     .help = "the first index (default 0)"},
    {.name = "--no-shrink",
     .kind = BITCTS_CLI_FLAG,
     .offset = offsetof(explore_options, no_shrink),
     .help = "report the failures as they are"},
    {.name = "--quiet",
     .kind = BITCTS_CLI_FLAG,
     .offset = offsetof(explore_options, quiet),
     .help = "no progress line"},
};

/* run's options that explore does not take. */
static const char *const run_only[] = {"--shard", "--baseline",      "--resume", "--filter",
                                       "--tier",  "--feature-level", NULL};

/* The command line into cfg and a; 0, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, bitcts_run_config *cfg, explore_args *a)
{
    explore_options o = {0};
    bitcts_cli_shrink_args shrink = {.seconds = (uint64_t)a->shrink_seconds, .max = a->shrink_max};
    const bitcts_cli_table tables[] = {
        bitcts_cli_run_table(cfg),
        {explore_own_options, sizeof explore_own_options / sizeof explore_own_options[0], &o},
        bitcts_cli_shrink_table(&shrink)};
    const bitcts_cli_spec spec = {.cmd = "explore",
                                  .description = explore_description,
                                  .tables = tables,
                                  .needs_arguments = 1,
                                  .table_count = sizeof tables / sizeof tables[0],
                                  .elsewhere = run_only,
                                  .elsewhere_cmd = "run"};
    size_t n_operands = 0;
    const int rc = bitcts_cli_parse(&spec, argc, argv, NULL, &n_operands);
    if (rc != 0) {
        return rc;
    }
    a->seconds = (double)o.seconds;
    a->cases = o.cases;
    a->first = o.first;
    a->shrink = !o.no_shrink;
    a->quiet = o.quiet;
    a->shrink_seconds = (double)shrink.seconds;
    a->shrink_max = shrink.max;
    if (cfg->backend_spec == NULL) {
        return bitcts_cli_error("explore", "--backend is required");
    }
    if ((a->seconds > 0) == (a->cases > 0)) {
        return bitcts_cli_error("explore", "give one of --seconds N and --cases N");
    }
    if (a->cases > 0 && a->first + a->cases - 1 > BITCTS_EXPLORE_MAX_INDEX) {
        return bitcts_cli_error("explore", "--first + --cases goes past explore.%llu",
                                (unsigned long long)BITCTS_EXPLORE_MAX_INDEX);
    }
    return 0;
}

/* The report folder: missing, empty, or a report folder bitcts made, unless --force. */
static int check_report_dir(const bitcts_run_config *cfg)
{
    char err[4400];
    if (bitcts_report_files_can_claim(cfg->report_dir, cfg->force, "--report", err, sizeof err) !=
        BITCTS_OK) {
        return bitcts_cli_error("explore", "%s", err);
    }
    return 0;
}

/* One round: cases first .. first + n - 1, each case object handed to the builder. */
static int explore_round(bitcts_run_config *cfg, uint64_t first, size_t n,
                         bitcts_report_builder **builder, size_t counts[BITCTS_VERDICT_COUNT],
                         size_t *ran, int *interrupted)
{
    bitcts_plan *plan = NULL;
    if (bitcts_explore_plan(cfg->seed, first, n, &plan) != BITCTS_OK) {
        return bitcts_cli_error("explore", "out of memory");
    }
    cfg->plan = plan;
    bitcts_run_result r;
    const int st = bitcts_run(cfg, &r);
    cfg->plan = NULL;
    bitcts_plan_destroy(plan);
    if (st != BITCTS_OK) {
        bitcts_run_result_free(&r);
        return bitcts_cli_error("explore", "%s", r.error);
    }
    if (r.interrupted) {
        *interrupted = 1;
        bitcts_run_result_free(&r);
        return 0;
    }
    if (*builder == NULL && bitcts_report_builder_create(r.report, builder) != BITCTS_OK) {
        bitcts_run_result_free(&r);
        return bitcts_cli_error("explore", "out of memory");
    }
    const json_t *cases = json_object_get(r.report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        json_t *c = json_array_get(cases, i);
        const int v = bitcts_report_case_verdict(c);
        if (v >= 0 && v < BITCTS_VERDICT_COUNT) {
            ++counts[v];
        }
        if (bitcts_report_builder_add(*builder, json_incref(c)) != BITCTS_OK) {
            bitcts_run_result_free(&r);
            return bitcts_cli_error("explore", "out of memory");
        }
    }
    *ran += json_array_size(cases);
    bitcts_run_result_free(&r);
    return 0;
}

int bitcts_cmd_explore(int argc, char **argv)
{
    bitcts_run_config cfg = {.selection = {.tiers = BITCTS_TIER_ALL},
                             .seed = BITCTS_DEFAULT_SEED,
                             .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN),
                             .timeout_s = 30,
                             .report_dir = "bitcts-explore"};
    explore_args a = {.shrink = 1, .shrink_seconds = 120, .shrink_max = 10};
    if (cfg.jobs < 1) {
        cfg.jobs = 1;
    }
    const int pr = parse_args(argc, argv, &cfg, &a);
    if (pr != 0) {
        return pr < 0 ? 0 : pr;
    }
    if (check_report_dir(&cfg) != 0) {
        return BITCTS_EXIT_USAGE;
    }
    {
        char shrunk[3200]; /* an earlier explore's shrunk cases are not this one's */
        snprintf(shrunk, sizeof shrunk, "%s/shrunk", cfg.report_dir);
        bitcts_fs_remove_tree(shrunk);
    }
    const char *report_dir = cfg.report_dir;
    json_t *command_line = bitcts_cli_command_line(argc, argv);
    if (command_line == NULL) {
        return bitcts_cli_error("explore", "out of memory");
    }
    cfg.command_line = command_line;
    cfg.report_dir = NULL; /* rounds run in memory; the whole report is written at the end */
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    explore_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    cfg.interrupted = &explore_interrupted;

    const double t0 = bitcts_clock_now();
    const int progress = !a.quiet && isatty(STDERR_FILENO);
    cfg.stop_at = a.seconds > 0 ? t0 + a.seconds : 0;
    bitcts_report_builder *builder = NULL;
    size_t counts[BITCTS_VERDICT_COUNT] = {0};
    size_t ran = 0;
    int interrupted = 0;
    int rc = 0;
    uint64_t next = a.first;
    while (rc == 0 && !interrupted) {
        size_t n = EXPLORE_ROUND;
        if (a.cases > 0) {
            const uint64_t left = a.first + a.cases - next;
            n = left < n ? (size_t)left : n;
        }
        if (n == 0 || (cfg.stop_at > 0 && bitcts_clock_now() >= cfg.stop_at) ||
            next + n - 1 > BITCTS_EXPLORE_MAX_INDEX) {
            break;
        }
        const size_t before = ran;
        rc = explore_round(&cfg, next, n, &builder, counts, &ran, &interrupted);
        next += n;
        if (progress) {
            fprintf(stderr, "\rexplored %zu cases (%zu failing) in %.0f s ", ran,
                    ran - counts[BITCTS_VERDICT_PASS] - counts[BITCTS_VERDICT_RECORDED] -
                        counts[BITCTS_VERDICT_NOT_SUPPORTED] - counts[BITCTS_VERDICT_WARN],
                    bitcts_clock_now() - t0);
        }
        if (ran - before < n) {
            break; /* the time box ended inside the round */
        }
    }
    if (progress) {
        fputc('\n', stderr);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    json_t *report = NULL;
    if (rc == 0 && builder != NULL) {
        char finished[32];
        const time_t wall = time(NULL);
        strftime(finished, sizeof finished, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
        char err[1024] = "";
        if (bitcts_report_builder_finish(builder, finished, bitcts_clock_now() - t0, &report, err,
                                         sizeof err) != BITCTS_OK) {
            rc = bitcts_cli_error("explore", "the report: %s", err);
        }
    }
    bitcts_report_builder_destroy(builder);
    if (rc == 0 && report == NULL) {
        rc = bitcts_cli_error("explore", interrupted ? "interrupted before any case ended"
                                                     : "no case started");
    }
    char err[4400] = "";
    if (rc == 0 && bitcts_report_files_write(report, report_dir, err, sizeof err) != BITCTS_OK) {
        rc = bitcts_cli_error("explore", "%s", err);
    }
    if (rc != 0) {
        json_decref(report);
        json_decref(command_line);
        return rc;
    }
    char *text = NULL;
    if (bitcts_report_render(report, BITCTS_REPORT_FORMAT_TEXT, &text, NULL) == BITCTS_OK) {
        printf("\n%s", text);
    }
    free(text);
    char seed[19];
    bitcts_format_u64(cfg.seed, seed);
    printf("\nexplored explore.%llu .. explore.%llu (seed %s): %zu cases in %.1f s; report in "
           "%s/\n",
           (unsigned long long)a.first, (unsigned long long)(a.first + ran - (ran > 0)), seed, ran,
           bitcts_clock_now() - t0, report_dir);
    int failed = 0;
    const json_t *cases = json_object_get(report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        failed |= bitcts_verdict_is_failure(bitcts_report_case_verdict(json_array_get(cases, i)));
    }
    if (failed && a.shrink && !interrupted) {
        char out_dir[3200];
        snprintf(out_dir, sizeof out_dir, "%s/shrunk", report_dir);
        bitcts_cli_shrink("explore", &cfg, report, out_dir, (size_t)a.shrink_max, a.shrink_seconds);
    }
    json_decref(report);
    json_decref(command_line);
    if (interrupted) {
        fprintf(stderr, "bitcts explore: interrupted; the report holds the cases that ended\n");
        return BITCTS_EXIT_INTERRUPTED;
    }
    return failed ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
}
