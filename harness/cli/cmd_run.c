/* SPDX-License-Identifier: MIT */
/* `bitcts run`: the command line of the runner. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* fputs */
#include <stdlib.h> /* strtod, free */
#include <string.h> /* strcmp */
#include <unistd.h> /* sysconf, isatty */

#include "baseline.h"
#include "bitcts/bitcts_status.h"
#include "check_run.h"
#include "cli_rerun.h"
#include "cli_util.h"
#include "commands.h"
#include "explore.h"
#include "fs_util.h"
#include "regress_dir.h"
#include "report.h"
#include "runner.h"
#include "sanitize.h"
#include "self_exe.h"

#define BITCTS_CLI_MAX_TIMEOUTS 5  /* --max-timeouts: a hung backend costs at most this many */
#define BITCTS_CLI_RETRY_CASES 200 /* --retry-cases: a broken backend's retries cost this many */

static const char run_description[] =
    "Runs each selected case: generates it, computes the expected output with the reference,\n"
    "runs the backend in a worker process and compares bit for bit. Verdicts: pass, warn, fail,\n"
    "timeout, crash, not_supported, recorded, missing, internal_error, expected_fail,\n"
    "unexpected_pass, flake, skipped, not_run (docs/report-schema.md). Exit code 0 only when\n"
    "nothing failed; 2 for a bad command line or input; 3 when the environment failed (no\n"
    "device, a backend that cannot start, a full disk: retry); 130 when interrupted (the log\n"
    "is kept: --resume).\n";

/* How progress is shown: a bar on a terminal, else a line every `interval_s` (for CI logs). */
typedef struct run_progress {
    int terminal;
    double interval_s;
    double next_s; /* elapsed time of the next line (no terminal) */
} run_progress;

/* The progress line without a terminal: one line on stderr every interval, never rewritten. */
static void print_progress_line(run_progress *p, size_t done, size_t total, size_t failing,
                                double elapsed_s)
{
    if (elapsed_s < p->next_s || done >= total) {
        return;
    }
    p->next_s = elapsed_s + p->interval_s;
    const double rate = (double)done / (elapsed_s + 1e-9);
    char left[32] = "unknown";
    if (done > 0) {
        snprintf(left, sizeof left, "%.0f s", (double)(total - done) / rate);
    }
    fprintf(stderr, "bitcts run: %zu/%zu cases (%.1f%%), %zu failing, %.1f cases/s, %s left\n",
            done, total, 100.0 * (double)done / (double)total, failing, rate, left);
    fflush(stderr);
}

/* The progress line on a terminal: a bar, counts, failures, rate and the time left. */
static void print_progress(void *user, size_t done, size_t total, size_t failing, double elapsed_s)
{
    run_progress *p = user;
    if (!p->terminal) {
        print_progress_line(p, done, total, failing, elapsed_s);
        return;
    }
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
    fprintf(stderr, "\r[%s] %zu/%zu %5.1f%% %zu failing %7.0f cases/s ETA %5s ", bar, done, total,
            total ? 100.0 * (double)done / (double)total : 100.0, failing, rate, eta);
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

/* How to go on after an interruption: the command as given, with --resume. */
static void print_resume_hint(int argc, char **argv, const bitcts_run_result *r)
{
    int has_resume = 0;
    fprintf(stderr, "\nbitcts run: interrupted after %zu cases; the log is kept. Resume with:\n",
            r->ended);
    char exe[1024], quoted[4100];
    fprintf(stderr, "  %s",
            bitcts_shell_quote(bitcts_self_exe(exe, sizeof exe), quoted, sizeof quoted));
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

static const char *const isolate_words[] = {"batch", "case", NULL};

/* --backend (KIND: REQUIRED or TEXT) and --backend-option, declared once for both uses. */
#define BACKEND_OPTIONS(KIND, BACKEND_HELP, OPTION_HELP)                                           \
    {                                                                                              \
        BITCTS_OPT_##KIND("--backend", "B", offsetof(bitcts_cli_backend, spec), 0, BACKEND_HELP),  \
            BITCTS_OPT_KEYVALUE("--backend-option", "KEY=VALUE",                                   \
                                offsetof(bitcts_cli_backend, options),                             \
                                offsetof(bitcts_cli_backend, key_store), OPTION_HELP)              \
    }

static const bitcts_cli_option backend_options[] =
    BACKEND_OPTIONS(REQUIRED, "a built-in backend (cpu, cpu:<variant>) or a plugin library path",
                    "passed to the backend's instance_create");
static const bitcts_cli_option bench_backend_options[] =
    BACKEND_OPTIONS(TEXT, "a built-in backend or a plugin library path (default cpu)",
                    "passed to every instance's instance_create");

bitcts_cli_table bitcts_cli_backend_table(bitcts_cli_backend *b, bitcts_cli_backend_use use)
{
    if (use == BITCTS_CLI_BACKEND_DEFAULT_CPU) {
        return (bitcts_cli_table)BITCTS_CLI_TABLE(bench_backend_options, b);
    }
    return (bitcts_cli_table)BITCTS_CLI_TABLE(backend_options, b);
}

#define RUN_AT(field) offsetof(bitcts_cli_run, cfg.field)

_Static_assert(BITCTS_RUN_DEVICE_JOBS == 4, "--jobs's help text says 4");
_Static_assert(BITCTS_RUN_BATCH_CASES == 16 && BITCTS_RUN_BATCH_CASES_MAX == 64,
               "--batch-cases's help text says 16 and 64");

/* The options run and explore share, after the backend's. */
static const bitcts_cli_option run_options[] = {
    BITCTS_OPT_CUSTOM("--threads", "N", offsetof(bitcts_cli_run, backend.options), parse_threads,
                      "threads per backend instance (1-256): --backend-option threads=N (cpu)"),
    BITCTS_CLI_OPTION("--jobs", 'j', "N", BITCTS_CLI_INT, 0, 0, RUN_AT(jobs), 1, 256, NULL, 0, NULL,
                      "worker processes (1-256; default: the number of cores, but at most 4 for a "
                      "device backend such as vulkan)"),
    BITCTS_OPT_SECONDS("--timeout", "S", RUN_AT(timeout_s),
                       "seconds a backend call may take before the case is a timeout (default "
                       "30; from 0.1 to 86400)"),
    BITCTS_OPT_TEXT("--report", "DIR", RUN_AT(report_dir), 3000,
                    "where results.jsonl and the reports go (default: bitcts-report for run, "
                    "bitcts-explore for explore); a folder that is not a report folder bitcts "
                    "made is refused unless --force"),
    BITCTS_OPT_NUMBER("--seed", "S", U64, RUN_AT(seed), 0, UINT64_MAX,
                      "suite seed (decimal or 0x-hex; default 0x0062697463747331)"),
    BITCTS_OPT_WORDS("--isolate", "batch|case", ENUM, RUN_AT(isolate_case), isolate_words,
                     "a worker process per batch of cases (default) or per case"),
    BITCTS_OPT_NUMBER("--repeat", "N", U32, RUN_AT(repeat), 1, 64,
                      "run each case N times (1-64), alternately in fresh and reused workers; a "
                      "case whose outcomes differ is a flake"),
    BITCTS_OPT_FLAG("--force", RUN_AT(force), "let --report use a folder bitcts did not create"),
};

BITCTS_CLI_TABLE_FN(bitcts_cli_run_table, bitcts_cli_run, run_options)

void bitcts_cli_run_init(bitcts_cli_run *r, uint32_t tiers, const char *report_dir)
{
    memset(r, 0, sizeof *r);
    r->cfg = (bitcts_run_config){.selection = {.tiers = tiers},
                                 .seed = BITCTS_DEFAULT_SEED,
                                 .timeout_s = 30,
                                 .report_dir = report_dir};
}

void bitcts_cli_run_apply(bitcts_cli_run *r)
{
    if (r->cfg.jobs == 0) { /* --jobs not given (it takes 1-256): the cores */
        r->cfg.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
        r->cfg.jobs = r->cfg.jobs < 1 ? 1 : r->cfg.jobs;
        r->cfg.jobs_auto = 1;
    }
    r->cfg.backend_spec = r->backend.spec;
    r->cfg.options = r->backend.options;
}

/* The options of run alone (explore refuses them, naming run). */
static const bitcts_cli_option run_only_options[] = {
    BITCTS_OPT_TEXT("--baseline", "FILE", offsetof(bitcts_run_config, baseline_path), 0,
                    "expected failures: lines '<glob> <fail|timeout|crash|flake> [reason]'; an "
                    "unknown verdict or a malformed glob is refused (FILE:LINE), a glob that "
                    "matches no case of any tier is warned of"),
    BITCTS_OPT_FLAG("--resume", offsetof(bitcts_run_config, resume),
                    "keep the cases DIR/results.jsonl already has and run the rest"),
    BITCTS_OPT_TEXT("--skips", "FILE", offsetof(bitcts_run_config, skips_path), 0,
                    "cases not to run: lines '<glob> <reason...>'; a selected case a line "
                    "matches gets the verdict skipped with the reason and FILE:LINE; a line "
                    "without a reason or with a malformed glob is refused (FILE:LINE)"),
    BITCTS_OPT_FLAG("--claimed", offsetof(bitcts_run_config, claimed),
                    "run only the selected cases the backend claims (its capabilities); the "
                    "report's conformance claim lists, by operator and type, what the feature "
                    "level requires that the backend does not claim, with counts"),
    BITCTS_OPT_NUMBER("--max-fails", "N", U32, offsetof(bitcts_run_config, max_fails), 1,
                      UINT32_MAX,
                      "stop once N cases have failed: the cases not run get not_run, the "
                      "reports say why, exit code 1"),
    BITCTS_OPT_NUMBER("--max-timeouts", "K", U32, offsetof(bitcts_run_config, max_timeouts), 0,
                      UINT32_MAX,
                      "stop after K timeouts in a row (a backend that stopped answering): the "
                      "cases not run get not_run (default 5; 0: never stop)"),
    BITCTS_OPT_NUMBER("--retry-unexpected", "N", U32, offsetof(bitcts_run_config, retry_unexpected),
                      1, 64,
                      "then run each case whose outcome was unexpected (a failure; with "
                      "--baseline, one it does not expect) again, up to N times (1-64), each in a "
                      "fresh worker; a case whose outcomes differ is a flake"),
    BITCTS_OPT_NUMBER("--batch-cases", "N", U32, offsetof(bitcts_run_config, batch_cases), 1,
                      BITCTS_RUN_BATCH_CASES_MAX,
                      "consecutive valid cases per backend call (1-64; default 16) when the "
                      "backend offers batched execution (bitcts_batch_execute_v1), each judged "
                      "apart; a call that crashes, hangs or goes wrong runs its cases again one "
                      "call each; 1: one call per case"),
    BITCTS_OPT_NUMBER("--retry-cases", "M", U32, offsetof(bitcts_run_config, retry_cases), 0,
                      UINT32_MAX,
                      "with --retry-unexpected: when more than M cases were unexpected, retry M "
                      "of them spread evenly over the plan; the report says so (default 200; 0: "
                      "all)"),
};

typedef struct run_args {
    int shrink;
    int quiet;
    double progress_s; /* --progress-interval */
    const char *rerun; /* --rerun */
    const char *vectors;
    const char *regressions; /* --regressions */
} run_args;

static const bitcts_cli_option run_own_options[] = {
    BITCTS_OPT_FLAG("--shrink", offsetof(run_args, shrink),
                    "then shrink each failure to a smaller case that fails the same way: "
                    "DIR/shrunk/<id>/ (vectors, repro.txt), one bitcts eval line"),
    BITCTS_OPT_FLAG("--quiet", offsetof(run_args, quiet), "no progress line"),
    BITCTS_OPT_SECONDS("--progress-interval", "S", offsetof(run_args, progress_s),
                       "without a terminal, a progress line on stderr every S seconds (default "
                       "10; from 0.1 to 86400): done/total, failing, rate, time left"),
    BITCTS_OPT_TEXT("--rerun", "REPORT", offsetof(run_args, rerun), 4000,
                    "run only the cases that did not pass in REPORT (a report folder or its "
                    "report.json), with its seed, backend and the options that change outcomes "
                    "(docs/harness.md)"),
    BITCTS_OPT_TEXT("--vectors", "DIR", offsetof(run_args, vectors), 0,
                    "run the cases of an export or a shrunk folder (DIR/manifest.json, read as "
                    "bitcts check reads it) instead of the plan's, with the export's seed; "
                    "--filter selects among them"),
    BITCTS_OPT_TEXT("--regressions", "DIR", offsetof(run_args, regressions), 4000,
                    "also run every regression case file of DIR (regression.<name>; "
                    "docs/regressions.md); without --tier, only them; --filter selects among "
                    "all"),
};

/* The command line into r, a, shrink; 0, or an exit code (BITCTS_CLI_HELP: 0). */
static int parse_run(int argc, char **argv, bitcts_cli_run *r, run_args *a,
                     bitcts_cli_shrink_args *shrink, bitcts_cli_shard *shard, const char *cmd)
{
    bitcts_run_config *cfg = &r->cfg;
    bitcts_cli_selection sel = {.sel = cfg->selection};
    const bitcts_cli_table tables[] = {
        bitcts_cli_backend_table(&r->backend, BITCTS_CLI_BACKEND_REQUIRED),
        bitcts_cli_run_table(r),
        bitcts_cli_selection_table(&sel),
        BITCTS_CLI_TABLE(run_only_options, cfg),
        bitcts_cli_shard_table(shard),
        bitcts_cli_shrink_table(shrink),
        BITCTS_CLI_TABLE(run_own_options, a)};
    const bitcts_cli_spec spec = {.cmd = cmd,
                                  .description = run_description,
                                  .tables = tables,
                                  .table_count = sizeof tables / sizeof tables[0]};
    const int rc = bitcts_cli_parse(&spec, argc, argv, NULL, NULL);
    bitcts_cli_run_apply(r);
    cfg->selection = sel.sel;
    cfg->tier_text = sel.tier_text;
    if (rc == BITCTS_CLI_HELP) { /* printed: nothing is to run */
        cfg->backend_spec = NULL;
        a->rerun = NULL;
        return BITCTS_EXIT_OK;
    }
    if (rc != 0) {
        return rc;
    }
    if (cfg->backend_spec == NULL && a->rerun == NULL) {
        return bitcts_cli_error(cmd, "--backend is required (a built-in name or a plugin path)");
    }
    /* A report's command line (--rerun) leaves its shard unapplied: a rerun takes none of it. */
    return strcmp(cmd, "run") == 0 ? bitcts_cli_shard_apply(cmd, shard, cfg) : 0;
}

/* A report's command line, for --rerun: parsed as run's, its errors naming where it is. */
static int parse_report_run(int argc, char **argv, bitcts_cli_run *r, const char *cmd)
{
    bitcts_cli_run_init(r, BITCTS_TIER_DEFAULT, "bitcts-report");
    run_args a = {0};
    bitcts_cli_shrink_args shrink = {0};
    bitcts_cli_shard shard = {0};
    const int rc = parse_run(argc, argv, r, &a, &shrink, &shard, cmd);
    bitcts_cli_shard_free(&shard);
    if (rc == 0 && r->cfg.backend_spec == NULL) {
        return bitcts_cli_error(cmd, "it names no --backend");
    }
    return rc;
}

/* --rerun: the report's failing cases and outcome options into r; the command line to record. */
static int start_rerun(bitcts_cli_run *r, const char *path, int argc, char **argv,
                       bitcts_cli_rerun *rr, json_t **command_line)
{
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        return bitcts_cli_error("run", "out of memory");
    }
    int rc = bitcts_cli_rerun_load(path, plan, parse_report_run, rr);
    bitcts_plan_destroy(plan);
    if (rc == 0 && (*command_line = bitcts_cli_command_line(argc, argv)) == NULL) {
        rc = bitcts_cli_error("run", "out of memory");
    }
    if (rc == 0) {
        rc = bitcts_cli_rerun_apply(rr, path, argc, argv, r, *command_line);
    }
    return rc;
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

/* The program's name as main got it (argv[0]), for the command line a report records. */
static const char *cli_program = "bitcts";

void bitcts_cli_set_program(const char *argv0)
{
    cli_program = argv0 != NULL ? argv0 : "bitcts";
}

json_t *bitcts_cli_command_line(int argc, char **argv)
{
    json_t *list = json_array();
    char program[1200];
    bitcts_sanitize_string(cli_program, 4096, program, sizeof program);
    if (list == NULL || json_array_append_new(list, json_string(program)) != 0) {
        json_decref(list);
        return NULL;
    }
    for (int i = 0; i < argc; ++i) {
        if (json_array_append_new(list, json_string(argv[i])) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* `option` and the folder's absolute path, quoted, for every repro line: 0, or -1 (no memory). */
static int repro_folder(const char *option, const char *dir, char *extra, size_t cap)
{
    char path[1024];
    const size_t qcap = 4 * sizeof path + 4;
    char *quoted = malloc(qcap);
    if (quoted == NULL) {
        return -1;
    }
    snprintf(extra, cap, "%s%s", option,
             bitcts_shell_quote(bitcts_paste_path(dir, path, sizeof path), quoted, qcap));
    free(quoted);
    return 0;
}

/* --vectors DIR: the export's cases become the plan, its seed the run's, and every repro line
 * names the folder. 0, or an exit code. */
static int use_vectors(bitcts_run_config *cfg, const char *dir, bitcts_plan **plan, char *extra,
                       size_t cap)
{
    char err[1200];
    uint64_t seed = 0;
    if (bitcts_check_export_plan(dir, plan, &seed, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("run", "--vectors: %s", err);
    }
    if (cfg->seed != BITCTS_DEFAULT_SEED && cfg->seed != seed) {
        return bitcts_cli_error("run",
                                "--seed 0x%016llx is not the seed of %s/manifest.json "
                                "(0x%016llx), which its cases are built with",
                                (unsigned long long)cfg->seed, dir, (unsigned long long)seed);
    }
    if (repro_folder(" --vectors ", dir, extra, cap) != 0) {
        return bitcts_cli_error("run", "out of memory");
    }
    cfg->plan = *plan;
    cfg->seed = seed;
    cfg->repro_extra = extra;
    if (cfg->tier_text == NULL) {
        cfg->tier_text = "all"; /* an explicit plan: every case of it is in the selection */
    }
    return 0;
}

/* --regressions DIR: its cases added to the tier's (to none without --tier), their origins
 * recorded, every repro line naming the folder. 0, or an exit code. */
static int use_regressions(bitcts_run_config *cfg, const char *dir, bitcts_plan **plan,
                           json_t **origins, char *extra, size_t cap)
{
    char err[4600];
    bitcts_plan *suite = NULL;
    if (cfg->tier_text != NULL && bitcts_plan_create(&suite) != BITCTS_OK) {
        return bitcts_cli_error("run", "out of memory");
    }
    size_t added = 0;
    const int st = bitcts_regress_load(dir, suite, plan, origins, &added, err, sizeof err);
    bitcts_plan_destroy(suite);
    if (st != BITCTS_OK) {
        return bitcts_cli_error("run", "--regressions: %s", err);
    }
    if (added == 0) {
        return bitcts_cli_error("run", "--regressions: %s holds no regression case (<name>.json)",
                                dir);
    }
    if (repro_folder(" --regressions ", dir, extra, cap) != 0) {
        return bitcts_cli_error("run", "out of memory");
    }
    cfg->plan = *plan;
    cfg->plan_tiers = 1; /* the tier chooses among the suite's cases; a regression case is in
                          * every tier (vectors/regress_case.c) */
    cfg->origins = *origins;
    cfg->repro_extra = extra;
    if (cfg->tier_text == NULL) {
        cfg->tier_text = "all"; /* only the regression cases, each in every tier */
    }
    return bitcts_cli_require_cases("run", *plan, &cfg->selection, cfg->tier_text);
}

/* The plan the options name: the export's (--vectors), the suite's and the regression cases
 * (--regressions), or the suite's. 0, or an exit code. */
static int choose_plan(bitcts_run_config *cfg, const run_args *a, bitcts_plan **plan,
                       json_t **origins, char *extra, size_t cap)
{
    if (a->vectors != NULL && a->regressions != NULL) {
        return bitcts_cli_error("run", "--vectors and --regressions each name the cases: give one");
    }
    if (a->vectors != NULL) {
        return use_vectors(cfg, a->vectors, plan, extra, cap);
    }
    if (a->regressions != NULL) {
        return use_regressions(cfg, a->regressions, plan, origins, extra, cap);
    }
    return check_against_plan(cfg);
}

/* Runs r and prints its summary; the exit code. */
static int run_and_report(int argc, char **argv, bitcts_cli_run *r, const run_args *a,
                          const bitcts_cli_shrink_args *shrink)
{
    run_progress progress = {.terminal = isatty(STDERR_FILENO) != 0,
                             .interval_s = a->progress_s > 0 ? a->progress_s : 10};
    progress.next_s = progress.interval_s;
    if (!a->quiet) {
        r->cfg.progress = print_progress;
        r->cfg.progress_user = &progress;
    }
    /* Ctrl-C or a polite kill: the runner stops starting cases, ends its workers, keeps the log */
    bitcts_cli_interrupts saved;
    bitcts_cli_interrupts_catch(&saved);
    r->cfg.interrupted = &bitcts_cli_interrupted;
    bitcts_run_result result;
    const int st = bitcts_run(&r->cfg, &result);
    bitcts_cli_interrupts_restore(&saved);
    if (st == BITCTS_OK && result.interrupted) {
        print_resume_hint(argc, argv, &result);
        bitcts_run_result_free(&result);
        return BITCTS_EXIT_INTERRUPTED;
    }
    if (st != BITCTS_OK) {
        bitcts_run_result_free(&result);
        const int code = bitcts_cli_error("run", "%s", result.error);
        return bitcts_cli_environment_failed(st, result.error) ? BITCTS_EXIT_ENVIRONMENT : code;
    }
    print_summary(&r->cfg, &result);
    if (a->shrink && (result.failed || bitcts_cli_shrink_wanted(result.report))) {
        char out_dir[3200];
        snprintf(out_dir, sizeof out_dir, "%s/shrunk", r->cfg.report_dir);
        bitcts_cli_shrink("run", &r->cfg, result.report, out_dir, (size_t)shrink->max,
                          (double)shrink->seconds, shrink->save);
    }
    const int failed = result.failed || result.stopped[0] != '\0';
    bitcts_run_result_free(&result);
    return failed ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
}

int bitcts_cmd_run(int argc, char **argv)
{
    bitcts_cli_run r;
    bitcts_cli_run_init(&r, BITCTS_TIER_DEFAULT, "bitcts-report");
    r.cfg.max_timeouts = BITCTS_CLI_MAX_TIMEOUTS;
    r.cfg.retry_cases = BITCTS_CLI_RETRY_CASES;
    run_args a = {0};
    bitcts_cli_shrink_args shrink = {.seconds = 120, .max = 10};
    bitcts_cli_shard shard = {0};
    const int parsed = parse_run(argc, argv, &r, &a, &shrink, &shard, "run");
    if (parsed != 0 || (r.cfg.backend_spec == NULL && a.rerun == NULL)) {
        bitcts_cli_shard_free(&shard);
        return parsed; /* an error, or the help */
    }
    if ((shrink.save != NULL && !a.shrink) || (a.rerun != NULL && a.regressions != NULL)) {
        bitcts_cli_shard_free(&shard);
        return bitcts_cli_error("run", a.rerun != NULL ? "--rerun takes its cases from the report: "
                                                         "not with --regressions"
                                                       : "--save keeps shrunk failures: give "
                                                         "--shrink");
    }
    bitcts_cli_rerun rr;
    memset(&rr, 0, sizeof rr);
    json_t *command_line = NULL;
    bitcts_plan *vectors = NULL;
    json_t *origins = NULL;
    char vectors_option[4200];
    int rc = a.rerun != NULL ? start_rerun(&r, a.rerun, argc, argv, &rr, &command_line) : 0;
    if (rc == 0 && a.rerun != NULL && rr.count == 0) {
        printf("bitcts run: nothing to rerun: every case of %s passed\n", a.rerun);
    } else if (rc == 0 && (rc = choose_plan(&r.cfg, &a, &vectors, &origins, vectors_option,
                                            sizeof vectors_option)) == 0) {
        command_line = command_line != NULL ? command_line : bitcts_cli_command_line(argc, argv);
        r.cfg.command_line = command_line;
        rc = command_line != NULL ? run_and_report(argc, argv, &r, &a, &shrink)
                                  : bitcts_cli_error("run", "out of memory");
    }
    json_decref(command_line);
    json_decref(origins);
    bitcts_plan_destroy(vectors);
    bitcts_cli_rerun_free(&rr);
    bitcts_cli_shard_free(&shard);
    return rc;
}
