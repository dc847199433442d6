/* SPDX-License-Identifier: MIT */
/* `bitcts run`: the command line of the runner. */
#include <signal.h> /* sigaction, SIGINT, SIGTERM */
#include <stddef.h> /* offsetof */
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

static const char run_description[] =
    "Runs each selected case: generates it, computes the expected output with the reference,\n"
    "runs the backend in a worker process and compares bit for bit. Verdicts: pass, warn, fail,\n"
    "timeout, crash, not_supported, recorded, missing, internal_error, expected_fail,\n"
    "unexpected_pass, flake (docs/report-schema.md). Exit code 0 only when nothing failed;\n"
    "2 for a bad command line or input; 130 when interrupted (the log is kept: --resume).\n";

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

static int parse_threads(const char *v, void *dest, char *err, size_t cap)
{
    bitcts_backend_options *o = dest;
    uint64_t n = 0;
    if (bitcts_cli_parse_u64(v, &n) || n < 1 || n > 256 || o->count >= BITCTS_MAX_OPTIONS) {
        snprintf(err, cap, "--threads: '%s' is not a number from 1 to 256", v);
        return -1;
    }
    o->keys[o->count] = "threads";
    o->values[o->count++] = v;
    return 0;
}

static int parse_shard(const char *v, void *dest, char *err, size_t cap)
{
    bitcts_run_config *cfg = dest;
    unsigned i = 0, n = 0;
    char tail = 0;
    if (sscanf(v, "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || i == 0 || i > n || n > 100000) {
        snprintf(err, cap, "--shard: '%s' is not I/N with 1 <= I <= N", v);
        return -1;
    }
    cfg->shard_index = i;
    cfg->shard_count = n;
    return 0;
}

static const char *const isolate_words[] = {"batch", "case", NULL};

/* The options run and explore share. */
static const bitcts_cli_option run_options[] = {
    {.name = "--backend",
     .value_name = "B",
     .kind = BITCTS_CLI_TEXT,
     .required = 1,
     .offset = offsetof(bitcts_run_config, backend_spec),
     .help = "a built-in backend (cpu, cpu:<variant>) or a plugin library path"},
    {.name = "--backend-option",
     .value_name = "KEY=VALUE",
     .kind = BITCTS_CLI_KEYVALUE,
     .repeatable = 1,
     .offset = offsetof(bitcts_run_config, options),
     .aux = offsetof(bitcts_run_config, option_key_store),
     .help = "passed to the backend's instance_create"},
    {.name = "--threads",
     .value_name = "N",
     .kind = BITCTS_CLI_CUSTOM,
     .offset = offsetof(bitcts_run_config, options),
     .parse = parse_threads,
     .help = "threads per backend instance (1-256): --backend-option threads=N (cpu)"},
    {.name = "--jobs",
     .short_name = 'j',
     .value_name = "N",
     .kind = BITCTS_CLI_INT,
     .offset = offsetof(bitcts_run_config, jobs),
     .lo = 1,
     .hi = 256,
     .help = "worker processes (1-256; default: the number of cores)"},
    {.name = "--timeout",
     .value_name = "S",
     .kind = BITCTS_CLI_SECONDS,
     .offset = offsetof(bitcts_run_config, timeout_s),
     .help = "seconds a backend call may take before the case is a timeout (default 30; from "
             "0.1 to 86400)"},
    {.name = "--report",
     .value_name = "DIR",
     .kind = BITCTS_CLI_TEXT,
     .offset = offsetof(bitcts_run_config, report_dir),
     .hi = 3000,
     .help = "where results.jsonl and the reports go (default: bitcts-report for run, "
             "bitcts-explore for explore); a folder that is not a report folder bitcts made is "
             "refused unless --force"},
    {.name = "--seed",
     .value_name = "S",
     .kind = BITCTS_CLI_U64,
     .offset = offsetof(bitcts_run_config, seed),
     .hi = UINT64_MAX,
     .help = "suite seed (decimal or 0x-hex; default 0x0062697463747331)"},
    {.name = "--isolate",
     .value_name = "batch|case",
     .kind = BITCTS_CLI_ENUM,
     .offset = offsetof(bitcts_run_config, isolate_case),
     .words = isolate_words,
     .help = "a worker process per batch of cases (default) or per case"},
    {.name = "--repeat",
     .value_name = "N",
     .kind = BITCTS_CLI_U32,
     .offset = offsetof(bitcts_run_config, repeat),
     .lo = 1,
     .hi = 64,
     .help = "run each case N times (1-64), alternately in fresh and reused workers; a case "
             "whose outcomes differ is a flake"},
    {.name = "--force",
     .kind = BITCTS_CLI_FLAG,
     .offset = offsetof(bitcts_run_config, force),
     .help = "let --report use a folder bitcts did not create"},
};

bitcts_cli_table bitcts_cli_run_table(bitcts_run_config *cfg)
{
    return (bitcts_cli_table){run_options, sizeof run_options / sizeof run_options[0], cfg};
}

/* The options of run alone (explore refuses them, naming run). */
static const bitcts_cli_option run_only_options[] = {
    {.name = "--shard",
     .value_name = "I/N",
     .kind = BITCTS_CLI_CUSTOM,
     .parse = parse_shard,
     .help = "run every N-th case starting at the I-th (1-based), interleaved"},
    {.name = "--baseline",
     .value_name = "FILE",
     .kind = BITCTS_CLI_TEXT,
     .offset = offsetof(bitcts_run_config, baseline_path),
     .help = "expected failures: lines '<glob> <fail|timeout|crash|flake> [reason]'; an unknown "
             "verdict or a malformed glob is refused (FILE:LINE), a glob that matches no case of "
             "any tier is warned of"},
    {.name = "--resume",
     .kind = BITCTS_CLI_FLAG,
     .offset = offsetof(bitcts_run_config, resume),
     .help = "keep the cases DIR/results.jsonl already has and run the rest"},
};

typedef struct run_args {
    int shrink;
    int quiet;
} run_args;

static const bitcts_cli_option run_own_options[] = {
    {.name = "--shrink",
     .kind = BITCTS_CLI_FLAG,
     .offset = offsetof(run_args, shrink),
     .help = "then shrink each failure to a smaller case that fails the same way: "
             "DIR/shrunk/<id>/ (vectors, repro.txt), one bitcts eval line"},
    {.name = "--quiet",
     .kind = BITCTS_CLI_FLAG,
     .offset = offsetof(run_args, quiet),
     .help = "no progress line"},
};

/* The command line into cfg, a, shrink; 0, or an exit code (BITCTS_CLI_HELP: 0). */
static int parse_run(int argc, char **argv, bitcts_run_config *cfg, run_args *a,
                     bitcts_cli_shrink_args *shrink)
{
    bitcts_cli_selection sel = {.sel = cfg->selection};
    const bitcts_cli_table tables[] = {
        bitcts_cli_run_table(cfg),
        bitcts_cli_selection_table(&sel),
        {run_only_options, sizeof run_only_options / sizeof run_only_options[0], cfg},
        bitcts_cli_shrink_table(shrink),
        {run_own_options, sizeof run_own_options / sizeof run_own_options[0], a}};
    const bitcts_cli_spec spec = {.cmd = "run",
                                  .description = run_description,
                                  .tables = tables,
                                  .table_count = sizeof tables / sizeof tables[0]};
    size_t n_operands = 0;
    const int rc = bitcts_cli_parse(&spec, argc, argv, NULL, &n_operands);
    cfg->selection = sel.sel;
    cfg->tier_text = sel.tier_text;
    if (rc != 0) {
        return rc == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : rc;
    }
    if (cfg->backend_spec == NULL) {
        return bitcts_cli_error("run", "--backend is required (a built-in name or a plugin path)");
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
    if (bitcts_explore_selected_id(&cfg->selection.filter) < 0) {
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
    run_args a = {0};
    bitcts_cli_shrink_args shrink = {.seconds = 120, .max = 10};
    const int parsed = parse_run(argc, argv, &cfg, &a, &shrink);
    if (parsed != 0 || cfg.backend_spec == NULL) {
        return parsed;
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
    if (!a.quiet && isatty(STDERR_FILENO)) {
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
    if (a.shrink && result.failed) {
        char out_dir[3200];
        snprintf(out_dir, sizeof out_dir, "%s/shrunk", cfg.report_dir);
        bitcts_cli_shrink("run", &cfg, result.report, out_dir, (size_t)shrink.max,
                          (double)shrink.seconds);
    }
    const int exit_code = result.failed ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
    bitcts_run_result_free(&result);
    json_decref(command_line);
    return exit_code;
}
