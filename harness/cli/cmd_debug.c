/* SPDX-License-Identifier: MIT */
/* `bitcts debug`: one case in the foreground, in this process, with no worker process and no
 * watchdog, so that `gdb --args bitcts debug ID --backend ./libmine.so` stops inside the plugin
 * (docs/debugging.md). The case is judged as `bitcts run` judges it. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp */
#include <unistd.h> /* getpid */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "check_run.h"
#include "cli_util.h"
#include "commands.h"
#include "explore.h"
#include "report.h"
#include "runner.h"
#include "sanitize.h"
#include "self_exe.h"
#include "worker.h"

static const char debug_description[] =
    "Runs one case (an id of the plan, explore.N, or a case of --vectors DIR) through the\n"
    "backend in this process, in the foreground: no worker process, no watchdog, no fault\n"
    "handler, so a debugger stops where the backend faults or loops. The case gets the verdict\n"
    "`bitcts run` gives it; the verdict, the detail, the first mismatch and the repro line are\n"
    "printed. Exit code 0 when the verdict is not a failure, 1 when it is, 2 for bad input.\n"
    "A crash or a hang in the backend is this process's own (docs/debugging.md).\n";

typedef struct debug_args {
    uint64_t seed;
    const char *vectors;
} debug_args;

static const bitcts_cli_option debug_options[] = {
    BITCTS_OPT_NUMBER("--seed", "S", U64, offsetof(debug_args, seed), 0, UINT64_MAX,
                      "suite seed (decimal or 0x-hex; default 0x0062697463747331; with --vectors, "
                      "the export's)"),
    BITCTS_OPT_TEXT("--vectors", "DIR", offsetof(debug_args, vectors), 0,
                    "take the case from this export or shrunk folder (its manifest.json)"),
};

/* The plan that holds the case, its seed and the case's index there; 0 or an exit code. */
static int find_case(const char *id, debug_args *a, bitcts_plan **plan, size_t *idx)
{
    char err[1200];
    int st = BITCTS_OK;
    const int64_t explored = bitcts_explore_parse_id(id);
    if (a->vectors != NULL) {
        st = bitcts_check_export_plan(a->vectors, plan, &a->seed, err, sizeof err);
        if (st != BITCTS_OK) {
            return bitcts_cli_error("debug", "--vectors: %s", err);
        }
    } else if (explored >= 0) {
        st = bitcts_explore_plan(a->seed, (uint64_t)explored, 1, plan);
    } else {
        st = bitcts_plan_create(plan);
    }
    if (st != BITCTS_OK) {
        return bitcts_cli_error("debug", "out of memory");
    }
    const bitcts_case_key *key = bitcts_plan_find(*plan, id);
    if (key == NULL) {
        return bitcts_cli_error(
            "debug", "no case '%s' in %s%s", id, a->vectors != NULL ? a->vectors : "bitcts's plan",
            a->vectors != NULL ? "/manifest.json" : " (bitcts list --tier all lists its ids)");
    }
    *idx = (size_t)(key - (*plan)->cases);
    return 0;
}

/* The verdict, the detail, the first mismatch, the warnings and the repro line. */
static void print_case(const json_t *c)
{
    printf("%s: %s\n", bitcts_report_str(c, "id"), bitcts_report_str(c, "verdict"));
    if (bitcts_report_str(c, "detail")[0] != '\0') {
        printf("  detail: %s\n", bitcts_report_str(c, "detail"));
    }
    const json_t *failure = json_object_get(c, "failure");
    const json_t *first = json_object_get(failure, "first");
    if (json_is_object(first)) {
        printf("  %lld of %lld elements differ; the first, element %lld at (",
               (long long)json_integer_value(json_object_get(failure, "mismatches")),
               (long long)json_integer_value(json_object_get(failure, "elements")),
               (long long)json_integer_value(json_object_get(first, "index")));
        size_t i;
        const json_t *v;
        json_array_foreach(json_object_get(first, "coords"), i, v)
        {
            printf("%s%lld", i > 0 ? ", " : "", (long long)json_integer_value(v));
        }
        printf("), inputs");
        json_array_foreach(json_object_get(first, "inputs"), i, v)
        {
            printf(" %s", json_string_value(v));
        }
        printf(":\n    expected %s (%s)\n    actual   %s (%s)\n",
               bitcts_report_str(first, "expected"), bitcts_report_str(first, "expected_bin"),
               bitcts_report_str(first, "actual"), bitcts_report_str(first, "actual_bin"));
    }
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(c, "warnings"), i, w)
    {
        printf("  warning: %s\n", json_string_value(w));
    }
    printf("  repro: %s\n", bitcts_report_str(c, "repro"));
}

/* Runs the case in this process and prints it; the exit code. */
static int debug_case(const bitcts_cli_backend *b, const debug_args *a, const bitcts_plan *plan,
                      size_t idx)
{
    char err[1200];
    bitcts_backend_spec spec;
    if (bitcts_backend_resolve(b->spec, &b->options, &spec, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("debug", "%s", err);
    }
    char path[1024], quoted[4200], extra[4300] = "";
    if (a->vectors != NULL) {
        snprintf(extra, sizeof extra, " --vectors %s",
                 bitcts_shell_quote(bitcts_paste_path(a->vectors, path, sizeof path), quoted,
                                    sizeof quoted));
    }
    const bitcts_run_config cfg = {.options = b->options, .timeout_s = 30, .repro_extra = extra};
    char options[4096];
    bitcts_run_repro_options(&cfg, options, sizeof options);
    const bitcts_worker_job job = {.plan = plan,
                                   .backend = &spec,
                                   .seed = a->seed,
                                   .repro_options = options,
                                   .indices = &idx,
                                   .count = 1};
    fprintf(stderr, "bitcts debug: %s in this process (pid %ld): no worker, no watchdog\n",
            plan->cases[idx].id, (long)getpid());
    json_t *c = NULL;
    if (bitcts_worker_debug(&job, &c, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("debug", "%s", err);
    }
    print_case(c);
    const int failed =
        bitcts_verdict_is_failure(bitcts_verdict_parse(bitcts_report_str(c, "verdict")));
    json_decref(c);
    return failed ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
}

int bitcts_cmd_debug(int argc, char **argv)
{
    bitcts_cli_backend b;
    memset(&b, 0, sizeof b);
    debug_args a = {.seed = BITCTS_DEFAULT_SEED};
    const bitcts_cli_table tables[] = {bitcts_cli_backend_table(&b, BITCTS_CLI_BACKEND_REQUIRED),
                                       BITCTS_CLI_TABLE(debug_options, &a)};
    const bitcts_cli_spec spec = {.cmd = "debug",
                                  .operands = "CASE",
                                  .max_operands = 1,
                                  .needs_arguments = 1,
                                  .description = debug_description,
                                  .tables = tables,
                                  .table_count = sizeof tables / sizeof tables[0]};
    const char *operands[1] = {NULL};
    size_t n = 0;
    const int rc = bitcts_cli_parse(&spec, argc, argv, operands, &n);
    if (rc != 0) {
        return rc == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : rc;
    }
    if (b.spec == NULL) {
        return bitcts_cli_error("debug",
                                "--backend is required (a built-in name or a plugin path)");
    }
    if (n != 1) {
        return bitcts_cli_error("debug",
                                "one case id is needed (bitcts list --tier all lists them)");
    }
    bitcts_plan *plan = NULL;
    size_t idx = 0;
    int exit_code = find_case(operands[0], &a, &plan, &idx);
    if (exit_code == 0) {
        exit_code = debug_case(&b, &a, plan, idx);
    }
    bitcts_plan_destroy(plan);
    return exit_code;
}
