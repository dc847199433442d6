/* SPDX-License-Identifier: MIT */
/* `bitcts explore`: random cases beyond the plan, run as `run` runs them, their failures shrunk
 * (docs/explore.md). */
#include <signal.h> /* sigaction, SIGINT, SIGTERM */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp, memset */
#include <unistd.h> /* sysconf, isatty */

#include "bitcts/bitcts_status.h"
#include "case_json.h"
#include "cli_util.h"
#include "clock.h"
#include "commands.h"
#include "explore.h"
#include "explore_run.h"
#include "report.h"
#include "runner.h"

static const char explore_usage[] =
    "usage: bitcts explore --backend B (--seconds N | --cases N) [--seed S] [--first K]\n"
    "                      [--backend-option KEY=VALUE]... [--jobs N] [--threads N]\n"
    "                      [--timeout S] [--isolate batch|case] [--repeat N] [--report DIR]\n"
    "                      [--force] [--no-shrink] [--shrink-seconds N] [--shrink-max N]\n"
    "                      [--quiet]\n"
    "\n"
    "Draws random valid cases the plan does not contain (any operator, type, rank 1-8, sizes\n"
    "biased to powers of two, SIMD and page boundaries, padding, broadcast, permutations, in\n"
    "place, spare bytes, values biased to the edge classes), runs them in worker processes as\n"
    "`run` does and judges them the same way. Case explore.<K> is derived from the seed and K\n"
    "alone: `bitcts run --backend B --seed S --filter explore.K` runs it again. Then shrinks\n"
    "each failure to a smaller case that fails the same way and writes it, beside the\n"
    "original, as vectors `bitcts check` reads (DIR/shrunk/<id>/) with a `bitcts eval`\n"
    "command (docs/explore.md). Exit code 0 when nothing failed, 1 when something did, 2 for\n"
    "a bad command line, 130 when interrupted.\n"
    "  --seconds N         explore for N seconds (cases that have not started are not run)\n"
    "  --cases N           explore cases K .. K+N-1\n"
    "  --first K           the first index (default 0)\n"
    "  --report DIR        where the report goes (default: bitcts-explore)\n"
    "  --no-shrink         report the failures as they are\n"
    "  --shrink-seconds N  time for all the shrinking (default 120)\n"
    "  --shrink-max N      shrink at most N failures, one of each kind first (default 10)\n"
    "  the other options are run's (bitcts run --help)\n";

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

static int parse_number(const char *flag, const char *v, int r, uint64_t lo, uint64_t hi,
                        uint64_t *out)
{
    if (r < 0 || bitcts_cli_parse_u64(v, out) != 0 || *out < lo || *out > hi) {
        return bitcts_cli_error("explore", "%s: '%s' is not a number from %llu to %llu", flag,
                                r < 0 ? "" : v, (unsigned long long)lo, (unsigned long long)hi);
    }
    return 0;
}

static int parse_args(int argc, char **argv, bitcts_run_config *cfg, explore_args *a)
{
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        int r;
        int handled = 0;
        uint64_t n = 0;
        if (strcmp(argv[i], "--shard") == 0 || strcmp(argv[i], "--baseline") == 0 ||
            strcmp(argv[i], "--resume") == 0 || strcmp(argv[i], "--filter") == 0 ||
            strcmp(argv[i], "--tier") == 0) {
            return bitcts_cli_error("explore", "%s is run's, not explore's (see --help)", argv[i]);
        }
        if ((r = bitcts_cli_option(argc, argv, &i, "--seconds", &v)) != 0) {
            if (parse_number("--seconds", v, r, 1, 7 * 86400, &n)) {
                return 2;
            }
            a->seconds = (double)n;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--cases", &v)) != 0) {
            if (parse_number("--cases", v, r, 1, BITCTS_EXPLORE_MAX_INDEX, &a->cases)) {
                return 2;
            }
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--first", &v)) != 0) {
            if (parse_number("--first", v, r, 0, BITCTS_EXPLORE_MAX_INDEX, &a->first)) {
                return 2;
            }
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--shrink-seconds", &v)) != 0) {
            if (parse_number("--shrink-seconds", v, r, 1, 86400, &n)) {
                return 2;
            }
            a->shrink_seconds = (double)n;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--shrink-max", &v)) != 0) {
            if (parse_number("--shrink-max", v, r, 1, 100000, &a->shrink_max)) {
                return 2;
            }
        } else if (strcmp(argv[i], "--no-shrink") == 0) {
            a->shrink = 0;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            a->quiet = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(explore_usage, stdout);
            return -1;
        } else {
            r = bitcts_cli_run_option("explore", argc, argv, &i, cfg, &handled);
            if (r != 0) {
                return r;
            }
            if (!handled) {
                return bitcts_cli_error(
                    "explore", "unknown argument '%s' (see bitcts explore --help)", argv[i]);
            }
        }
    }
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
    if (res->failed && a->shrink && !res->interrupted) {
        char out_dir[3200];
        snprintf(out_dir, sizeof out_dir, "%s/shrunk", report_dir);
        bitcts_cli_shrink("explore", cfg, res->report, out_dir, (size_t)a->shrink_max,
                          a->shrink_seconds);
    }
    if (res->interrupted) {
        fprintf(stderr, "bitcts explore: interrupted; the report holds the cases that ended\n");
        return BITCTS_EXIT_INTERRUPTED;
    }
    return res->failed ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
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
    if (argc < 2) {
        fputs(explore_usage, stderr);
        return BITCTS_EXIT_USAGE;
    }
    const int pr = parse_args(argc, argv, &cfg, &a);
    if (pr != 0) {
        return pr < 0 ? 0 : pr;
    }
    json_t *command_line = bitcts_cli_command_line(argc, argv);
    if (command_line == NULL) {
        return bitcts_cli_error("explore", "out of memory");
    }
    cfg.command_line = command_line;
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
    const bitcts_explore_config ec = {.run = &cfg,
                                      .first = a.first,
                                      .cases = a.cases,
                                      .seconds = a.seconds,
                                      .progress = progress ? on_progress : NULL};
    bitcts_explore_result res;
    const int st = bitcts_explore_run(&ec, &res);
    if (progress) {
        fputc('\n', stderr);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    const int rc = st != BITCTS_OK ? bitcts_cli_error("explore", "%s", res.error)
                                   : explore_print(&cfg, &a, &res, cfg.report_dir, t0);
    bitcts_explore_result_free(&res);
    json_decref(command_line);
    return rc;
}
