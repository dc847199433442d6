/* SPDX-License-Identifier: MIT */
/* `bitcts run`: the command line of the runner. */
#include <signal.h> /* sigaction, SIGINT, SIGTERM */
#include <stdio.h>  /* fputs */
#include <stdlib.h> /* strtod, free */
#include <string.h> /* strcmp */
#include <unistd.h> /* sysconf, isatty */

#include "baseline.h"
#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "explore.h"
#include "fs_util.h"
#include "report.h"
#include "runner.h"
#include "sanitize.h"

static const char run_usage[] =
    "usage: bitcts run --backend B [--backend-option KEY=VALUE]... [--filter GLOB] [--tier T]\n"
    "                  [--feature-level FL] [--jobs N] [--shard I/N] [--baseline FILE]\n"
    "                  [--timeout S] [--report DIR] [--seed S] [--resume] [--quiet]\n"
    "                  [--threads N] [--isolate batch|case] [--repeat N] [--force]\n"
    "                  [--shrink] [--shrink-seconds N] [--shrink-max N]\n"
    "\n"
    "Runs each selected case: generates it, computes the expected output with the reference,\n"
    "runs the backend in a worker process and compares bit for bit. Verdicts: pass, warn, fail,\n"
    "timeout, crash, not_supported, recorded, missing, internal_error, expected_fail,\n"
    "unexpected_pass, flake (docs/report-schema.md). Exit code 0 only when nothing failed;\n"
    "2 for a bad command line or input; 130 when interrupted (the log is kept: --resume).\n"
    "  --backend B         a built-in backend (cpu, cpu:<variant>) or a plugin library path\n"
    "  --backend-option    passed to the backend's instance_create (repeatable)\n"
    "  --jobs N            worker processes (default: the number of cores)\n"
    "  --threads N         threads per backend instance: --backend-option threads=N (cpu)\n"
    "  --shard I/N         run every N-th case starting at the I-th (1-based), interleaved\n"
    "  --baseline FILE     expected failures: lines '<glob> <fail|timeout|crash|flake>\n"
    "                      [reason]'; an unknown verdict or a malformed glob is refused\n"
    "                      (FILE:LINE), a glob that matches no case of any tier is warned of\n"
    "  --timeout S         seconds a backend call may take before the case is a timeout\n"
    "                      (default 30; from 0.1 to 86400)\n"
    "  --report DIR        where results.jsonl and the reports go (default: bitcts-report)\n"
    "  --resume            keep the cases DIR/results.jsonl already has and run the rest\n"
    "  --force             let --report use a folder bitcts did not create\n"
    "  --isolate batch|case  a worker process per batch of cases (default) or per case\n"
    "  --repeat N          run each case N times (1-64), alternately in fresh and reused\n"
    "                      workers; a case whose outcomes differ is a flake\n"
    "  --shrink            then shrink each failure to a smaller case that fails the same\n"
    "                      way: DIR/shrunk/<id>/ (vectors, repro.txt), one bitcts eval line\n"
    "  --shrink-seconds N  time for all the shrinking (default 120)\n"
    "  --shrink-max N      shrink at most N failures, one of each kind first (default 10)\n"
    "  --quiet             no progress line\n";

/* The progress line on a terminal: a bar, counts, rate and the time left. */
static void print_progress(void *user, size_t done, size_t total, double elapsed_s)
{
    (void)user;
    /* The rate counts the time spent waiting on slow or hung cases, so the ETA does too; with
     * nothing ended yet there is no rate to go by. */
    const double rate = (double)done / (elapsed_s + 1e-9);
    char eta[32] = "?";
    if (done > 0) {
        snprintf(eta, sizeof eta, "%.0fs", (double)(total - (done < total ? done : total)) / rate);
    }
    char bar[31];
    const size_t filled = total ? (done < total ? done : total) * 30 / total : 30;
    for (size_t i = 0; i < 30; ++i) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %zu/%zu %5.1f%% %7.0f cases/s ETA %5s ", bar, done, total,
            total ? 100.0 * (double)done / (double)total : 100.0, rate, eta);
    if (done >= total) {
        fputc('\n', stderr);
    }
    fflush(stderr);
}

/* The terminal summary (rendered by the reports module) and where the report went. */
static void print_summary(const bitcts_run_config *cfg, const bitcts_run_result *r)
{
    char *text = NULL;
    if (bitcts_report_render(r->report, BITCTS_REPORT_FORMAT_TEXT, &text, NULL) == BITCTS_OK) {
        printf("\n%s", text);
    }
    free(text);
    printf("\n%zu cases in %.1f s; report in %s/ (report.json, junit.xml, report.html, "
           "summary.md)\n",
           r->cases, r->duration_s, cfg->report_dir);
}

/* Ctrl-C or a polite kill: the runner stops starting cases, ends its workers and keeps the log. */
static volatile sig_atomic_t run_interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    run_interrupted = 1;
}

static void catch_interrupts(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

/* How to go on after an interruption: the command as given, with --resume. */
static void print_resume_hint(int argc, char **argv, const bitcts_run_result *r)
{
    int has_resume = 0;
    fprintf(stderr, "\nbitcts run: interrupted after %zu cases; the log is kept. Resume with:\n",
            r->ended);
    fputs("  bitcts", stderr);
    for (int i = 0; i < argc; ++i) { /* argv[0] is the command's name, "run" */
        const char *word = argv[i];
        const size_t cap = 4 * strlen(word) + 4;
        char *q = malloc(cap);
        fprintf(stderr, " %s", q != NULL ? bitcts_shell_quote(word, q, cap) : "?");
        free(q);
        has_resume |= strcmp(argv[i], "--resume") == 0;
    }
    fprintf(stderr, "%s\n", has_resume ? "" : " --resume");
}

static int parse_shard(const char *v, bitcts_run_config *cfg)
{
    unsigned i = 0, n = 0;
    char tail = 0;
    if (sscanf(v, "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || i == 0 || i > n || n > 100000) {
        return -1;
    }
    cfg->shard_index = i;
    cfg->shard_count = n;
    return 0;
}

int bitcts_cli_run_option(const char *cmd, int argc, char **argv, int *i, bitcts_run_config *cfg,
                          int *handled)
{
    const char *v = NULL;
    int r;
    *handled = 1;
    if ((r = bitcts_cli_option(argc, argv, i, "--backend", &v)) != 0) {
        if (r < 0 || !*v) {
            return bitcts_cli_error(cmd, "--backend needs a backend name or plugin path");
        }
        cfg->backend_spec = v;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--backend-option", &v)) != 0) {
        if (r < 0 || bitcts_backend_options_add(&cfg->options, cfg->option_key_store, v) != 0) {
            return bitcts_cli_error(cmd, "--backend-option needs KEY=VALUE (at most %d)",
                                    BITCTS_MAX_OPTIONS);
        }
    } else if ((r = bitcts_cli_option(argc, argv, i, "--threads", &v)) != 0) {
        uint64_t n = 0;
        if (r < 0 || bitcts_cli_parse_u64(v, &n) || n < 1 || n > 256 ||
            cfg->options.count >= BITCTS_MAX_OPTIONS) {
            return bitcts_cli_error(cmd, "--threads: '%s' is not a number from 1 to 256",
                                    r < 0 ? "" : v);
        }
        cfg->options.keys[cfg->options.count] = "threads";
        cfg->options.values[cfg->options.count++] = v;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--jobs", &v)) != 0) {
        uint64_t n = 0;
        if (r < 0 || bitcts_cli_parse_u64(v, &n) || n < 1 || n > 256) {
            return bitcts_cli_error(cmd, "--jobs: '%s' is not a number from 1 to 256",
                                    r < 0 ? "" : v);
        }
        cfg->jobs = (int)n;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--shard", &v)) != 0) {
        if (r < 0 || parse_shard(v, cfg)) {
            return bitcts_cli_error(cmd, "--shard: '%s' is not I/N with 1 <= I <= N",
                                    r < 0 ? "" : v);
        }
    } else if ((r = bitcts_cli_option(argc, argv, i, "--baseline", &v)) != 0) {
        if (r < 0) {
            return bitcts_cli_error(cmd, "--baseline needs a file");
        }
        cfg->baseline_path = v;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--timeout", &v)) != 0) {
        if (r < 0 || bitcts_cli_parse_seconds(v, &cfg->timeout_s) != 0) {
            return bitcts_cli_error(cmd, "--timeout: '%s' " BITCTS_CLI_SECONDS_RULE,
                                    r < 0 ? "" : v);
        }
    } else if ((r = bitcts_cli_option(argc, argv, i, "--report", &v)) != 0) {
        if (r < 0 || !*v || strlen(v) > 3000) {
            return bitcts_cli_error(cmd, "--report needs a directory");
        }
        cfg->report_dir = v;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--seed", &v)) != 0) {
        if (r < 0 || bitcts_cli_parse_u64(v, &cfg->seed)) {
            return bitcts_cli_error(cmd, "--seed: '%s' is not a 64-bit number", r < 0 ? "" : v);
        }
    } else if ((r = bitcts_cli_option(argc, argv, i, "--isolate", &v)) != 0) {
        if (r < 0 || (strcmp(v, "batch") != 0 && strcmp(v, "case") != 0)) {
            return bitcts_cli_error(cmd, "--isolate: '%s' is not batch or case", r < 0 ? "" : v);
        }
        cfg->isolate_case = strcmp(v, "case") == 0;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--repeat", &v)) != 0) {
        uint64_t n = 0;
        if (r < 0 || bitcts_cli_parse_u64(v, &n) || n < 1 || n > 64) {
            return bitcts_cli_error(cmd, "--repeat: '%s' is not a number from 1 to 64",
                                    r < 0 ? "" : v);
        }
        cfg->repeat = (uint32_t)n;
    } else if (strcmp(argv[*i], "--resume") == 0) {
        cfg->resume = 1;
    } else if (strcmp(argv[*i], "--force") == 0) {
        cfg->force = 1;
    } else {
        *handled = 0;
    }
    return 0;
}

/* Baseline lines that can never apply (their glob matches no case of any tier): one warning
 * line each. A baseline that cannot be read or parsed is refused. */
static int warn_dead_baseline_lines(const bitcts_run_config *cfg, const bitcts_plan *plan)
{
    char err[1200] = "";
    char *text = NULL;
    size_t size = 0;
    bitcts_baseline b;
    int st = bitcts_fs_read(cfg->baseline_path, 64u << 20, &text, &size, err, sizeof err);
    if (st == BITCTS_OK) {
        st = bitcts_baseline_parse(cfg->baseline_path, text, size, &b, err, sizeof err);
    }
    free(text);
    if (st != BITCTS_OK) {
        return bitcts_cli_error("run", "%s", err);
    }
    for (size_t i = 0; i < b.count; ++i) {
        if (!bitcts_baseline_entry_can_match(&b.entries[i], plan)) {
            fprintf(stderr,
                    "bitcts run: warning: %s:%zu: '%s' matches no case of any tier; the line "
                    "can never apply\n",
                    cfg->baseline_path, b.entries[i].line, b.entries[i].glob);
        }
    }
    bitcts_baseline_free(&b);
    return 0;
}

/* The command line against the suite's plan, where a message can name what is wrong: a
 * selection that matches nothing (one explored case, "explore.17", is the runner's to find) and
 * baseline lines that can never apply. */
static int check_against_plan(const bitcts_run_config *cfg)
{
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        return bitcts_cli_error("run", "out of memory");
    }
    int rc = 0;
    if (bitcts_explore_parse_id(cfg->selection.filter) < 0) {
        rc = bitcts_cli_require_cases("run", plan, &cfg->selection, cfg->tier_text);
    }
    if (rc == 0 && cfg->baseline_path != NULL) {
        rc = warn_dead_baseline_lines(cfg, plan);
    }
    bitcts_plan_destroy(plan);
    return rc;
}

json_t *bitcts_cli_command_line(int argc, char **argv)
{
    json_t *list = json_array();
    for (int i = 0; list != NULL && i < argc; ++i) {
        if (json_array_append_new(list, json_string(argv[i])) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

int bitcts_cmd_run(int argc, char **argv)
{
    bitcts_run_config cfg = {.selection = {.tiers = BITCTS_TIER_DEFAULT},
                             .seed = BITCTS_DEFAULT_SEED,
                             .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN),
                             .timeout_s = 30,
                             .report_dir = "bitcts-report"};
    if (cfg.jobs < 1) {
        cfg.jobs = 1;
    }
    int quiet = 0;
    int shrink = 0;
    uint64_t shrink_seconds = 120, shrink_max = 10;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        int r;
        if (strcmp(argv[i], "--shrink") == 0) {
            shrink = 1;
            continue;
        }
        if ((r = bitcts_cli_option(argc, argv, &i, "--shrink-seconds", &v)) != 0) {
            if (r < 0 || bitcts_cli_parse_u64(v, &shrink_seconds) || shrink_seconds < 1 ||
                shrink_seconds > 86400) {
                return bitcts_cli_error("run",
                                        "--shrink-seconds: '%s' is not a number from 1 "
                                        "to 86400",
                                        r < 0 ? "" : v);
            }
            continue;
        }
        if ((r = bitcts_cli_option(argc, argv, &i, "--shrink-max", &v)) != 0) {
            if (r < 0 || bitcts_cli_parse_u64(v, &shrink_max) || shrink_max < 1 ||
                shrink_max > 100000) {
                return bitcts_cli_error("run",
                                        "--shrink-max: '%s' is not a number from 1 to "
                                        "100000",
                                        r < 0 ? "" : v);
            }
            continue;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(run_usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        int handled = 0;
        int rc =
            bitcts_parse_selection("run", argc, argv, &i, &cfg.selection, &cfg.tier_text, &handled);
        if (!rc && !handled) {
            rc = bitcts_cli_run_option("run", argc, argv, &i, &cfg, &handled);
        }
        if (rc) {
            return rc;
        }
        if (!handled) {
            return bitcts_cli_error("run", "unknown argument '%s' (see bitcts run --help)",
                                    argv[i]);
        }
    }
    if (cfg.backend_spec == NULL) {
        return bitcts_cli_error("run", "--backend is required (a built-in name or a plugin path)");
    }
    const int refused = check_against_plan(&cfg);
    if (refused != 0) {
        return refused;
    }
    json_t *command_line = bitcts_cli_command_line(argc, argv);
    if (command_line == NULL) {
        return bitcts_cli_error("run", "out of memory");
    }
    cfg.command_line = command_line;
    if (!quiet && isatty(STDERR_FILENO)) {
        cfg.progress = print_progress;
    }
    struct sigaction old_int, old_term;
    run_interrupted = 0;
    cfg.interrupted = &run_interrupted;
    catch_interrupts(&old_int, &old_term);
    bitcts_run_result result;
    const int st = bitcts_run(&cfg, &result);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (st == BITCTS_OK && result.interrupted) {
        print_resume_hint(argc, argv, &result);
        bitcts_run_result_free(&result);
        json_decref(command_line);
        return BITCTS_EXIT_INTERRUPTED;
    }
    if (st != BITCTS_OK) {
        bitcts_run_result_free(&result);
        json_decref(command_line);
        return bitcts_cli_error("run", "%s", result.error);
    }
    print_summary(&cfg, &result);
    if (shrink && result.failed) {
        char out_dir[3200];
        snprintf(out_dir, sizeof out_dir, "%s/shrunk", cfg.report_dir);
        bitcts_cli_shrink("run", &cfg, result.report, out_dir, (size_t)shrink_max,
                          (double)shrink_seconds);
    }
    const int exit_code = result.failed ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
    bitcts_run_result_free(&result);
    json_decref(command_line);
    return exit_code;
}
