/* SPDX-License-Identifier: MIT */
/* `bitcts sweep`: the command line of the exhaustive sweeps (harness/perf/sweep.h): options, the
 * one-line result, the JSON file (written whole, then renamed). */
#include <signal.h> /* sigaction */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* strtod */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "sweep.h"

static const char sweep_description[] =
    "Runs OP over every input the type allows, in chunks of 2^24 elements, and checks every\n"
    "element against the reference:\n"
    "  bit_not, bit_count          every value of T (2^32 for 32-bit types)\n"
    "  bit_shift_left/right        every value of T by every count of T (uint8: 2^16 pairs,\n"
    "                              uint16: 2^32 pairs); counts >= the width are classified\n"
    "  bit_and, bit_or, bit_xor    every pair of values of an 8- or 16-bit T\n"
    "The backend runs in a child process under a watchdog; a backend with the device-timing\n"
    "extension (vulkan) is timed on the device, apart from transfers and checking. Every call\n"
    "gets guarded buffers (complementary guard bytes from chunk to chunk; a sweep of one chunk\n"
    "runs it twice), a poisoned output and a read-only description, and is checked after it\n"
    "returns: a write outside the buffers or into an input or the description fails the chunk.\n";

static const char sweep_epilogue[] =
    "Exit code 0 when every asserted element matches; 1 when one differs or the backend\n"
    "failed (a refused or failing chunk, a crash, a hang, an exit, a process left running);\n"
    "2 for bad input or a backend that does not start; 130 when interrupted.\n";

static volatile sig_atomic_t sweep_interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    sweep_interrupted = 1;
}

typedef struct sweep_args {
    bitcts_sweep_config cfg;
    const char *json;
    const char *op, *type, *out_type;
    char keys[BITCTS_MAX_OPTIONS][64];
} sweep_args;

static const bitcts_cli_option sweep_options[] = {
    {.name = "--backend",
     .value_name = "B",
     .kind = BITCTS_CLI_TEXT,
     .required = 1,
     .offset = offsetof(sweep_args, cfg.backend_spec),
     .help = "a built-in backend (cpu, cpu:<variant>) or a plugin library path"},
    {.name = "--backend-option",
     .value_name = "KEY=VALUE",
     .kind = BITCTS_CLI_KEYVALUE,
     .repeatable = 1,
     .offset = offsetof(sweep_args, cfg.options),
     .aux = offsetof(sweep_args, keys),
     .help = "passed to the backend's instance_create"},
    {.name = "--op",
     .value_name = "OP",
     .kind = BITCTS_CLI_TEXT,
     .required = 1,
     .offset = offsetof(sweep_args, op),
     .help = "the operator (bit_and, ..., bit_shift_right)"},
    {.name = "--type",
     .value_name = "T",
     .kind = BITCTS_CLI_TEXT,
     .required = 1,
     .offset = offsetof(sweep_args, type),
     .help = "the input type"},
    {.name = "--out-type",
     .value_name = "T",
     .kind = BITCTS_CLI_TEXT,
     .offset = offsetof(sweep_args, out_type),
     .help = "the output type (default: uint8 for bit_count, else T)"},
    {.name = "--every",
     .value_name = "N",
     .kind = BITCTS_CLI_U32,
     .offset = offsetof(sweep_args, cfg.every),
     .lo = 1,
     .hi = 256,
     .help = "a reduced sweep: only chunks 0, N, 2N, ... (every value of the low 24 bits, a "
             "spread of the high ones)"},
    {.name = "--timeout",
     .value_name = "S",
     .kind = BITCTS_CLI_SECONDS,
     .offset = offsetof(sweep_args, cfg.timeout_s),
     .help = "seconds one backend call may take (default 120; from 0.1 to 86400); the harness's "
             "own work on a chunk may take 10 times that (at least 600)"},
    {.name = "--json",
     .value_name = "FILE",
     .kind = BITCTS_CLI_TEXT,
     .offset = offsetof(sweep_args, json),
     .help = "also write the result as JSON"},
};

static int parse_types(sweep_args *a, const char *op, const char *type, const char *out_type)
{
    bitcts_sweep_config *cfg = &a->cfg;
    if (cfg->backend_spec == NULL) {
        return bitcts_cli_error("sweep", "--backend is required");
    }
    if (op == NULL || (cfg->op = bitcts_op_parse(op)) == 0) {
        return bitcts_cli_error("sweep", "--op: unknown operator '%s'", op != NULL ? op : "");
    }
    if (type == NULL || (cfg->type = bitcts_dtype_parse(type)) == 0) {
        return bitcts_cli_error("sweep", "--type: unknown data type '%s'",
                                type != NULL ? type : "");
    }
    cfg->out_type = out_type != NULL
                        ? bitcts_dtype_parse(out_type)
                        : (cfg->op == BITCTS_OP_BIT_COUNT ? BITCTS_DT_UINT8 : cfg->type);
    if (cfg->out_type == 0) {
        return bitcts_cli_error("sweep", "--out-type: unknown data type '%s'", out_type);
    }
    uint64_t total = 0;
    char err[256];
    if (bitcts_sweep_check(cfg, &total, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("sweep", "%s", err);
    }
    return 0;
}

/* The command line into a; 0, or an exit code (BITCTS_CLI_HELP: -1). */
static int parse_sweep(int argc, char **argv, sweep_args *a)
{
    const bitcts_cli_table tables[] = {
        {sweep_options, sizeof sweep_options / sizeof sweep_options[0], a}};
    const bitcts_cli_spec spec = {.cmd = "sweep",
                                  .description = sweep_description,
                                  .epilogue = sweep_epilogue,
                                  .tables = tables,
                                  .needs_arguments = 1,
                                  .table_count = 1};
    size_t n_operands = 0;
    const int rc = bitcts_cli_parse(&spec, argc, argv, NULL, &n_operands);
    return rc != 0 ? rc : parse_types(a, a->op, a->type, a->out_type);
}

static void print_result(const bitcts_sweep_config *cfg, const bitcts_sweep_result *r)
{
    printf("%s %s->%s: %llu elements", bitcts_op_name(cfg->op), bitcts_dtype_name(cfg->type),
           bitcts_dtype_name(cfg->out_type), (unsigned long long)r->checked);
    if (r->checked < r->total) {
        printf(" of %llu (every %u-th chunk: %llu of %llu)", (unsigned long long)r->total,
               cfg->every, (unsigned long long)r->chunks,
               (unsigned long long)r->chunks_total * (cfg->every > 1 ? cfg->every : 1));
    }
    printf(", %llu mismatches", (unsigned long long)r->mismatches);
    if (r->mismatches) {
        printf(" (first at element %llu)", (unsigned long long)r->first_bad);
    }
    if (r->oob) {
        printf("; %llu with counts >= %u recorded: %llu match mask, %llu saturate",
               (unsigned long long)r->oob, bitcts_dtype_size(cfg->type) * 8,
               (unsigned long long)r->oob_mask, (unsigned long long)r->oob_saturate);
    }
    printf("; %.2f s in all, %.2f s in the backend (%.0f M elements/s)", r->seconds,
           r->backend_seconds, (double)r->checked / (r->backend_seconds + 1e-12) / 1e6);
    if (r->device_seconds >= 0) {
        printf(", %.4f s on the device (%.0f M elements/s)", r->device_seconds,
               (double)r->checked / (r->device_seconds + 1e-12) / 1e6);
    }
    printf(", %.2f s filling, %.2f s checking; outputs xxh3-128 %s\n", r->fill_seconds,
           r->check_seconds, r->digest);
}

static int write_json(const sweep_args *a, const bitcts_sweep_result *r, const char *error)
{
    json_t *doc = bitcts_sweep_json(&a->cfg, r, error);
    char *text = doc != NULL ? json_dumps(doc, JSON_INDENT(2)) : NULL;
    json_decref(doc);
    if (text == NULL) {
        return bitcts_cli_error("sweep", "out of memory writing %s", a->json);
    }
    char err[1024];
    const int st = bitcts_fs_write_atomic(a->json, text, strlen(text), err, sizeof err);
    free(text);
    return st == 0 ? 0 : bitcts_cli_error("sweep", "%s", err);
}

/* Runs the sweep with Ctrl-C and SIGTERM caught: the child is killed, nothing is left. */
static int run_sweep(sweep_args *a, bitcts_sweep_result *r, char *err, size_t cap)
{
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sweep_interrupted = 0;
    a->cfg.interrupted = &sweep_interrupted;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    const int st = bitcts_sweep_run(&a->cfg, r, err, cap);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return st;
}

int bitcts_cmd_sweep(int argc, char **argv)
{
    sweep_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_sweep(argc, argv, &a);
    if (rc) {
        return rc == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : rc;
    }
    bitcts_sweep_result r;
    char err[2048] = "";
    const int st = run_sweep(&a, &r, err, sizeof err);
    if (sweep_interrupted) {
        fprintf(stderr, "bitcts sweep: interrupted; the backend's process was killed\n");
        bitcts_sweep_result_free(&r);
        return BITCTS_EXIT_INTERRUPTED;
    }
    if (st != BITCTS_OK && (r.refused || st == BITCTS_E_INVALID_ARGUMENT)) {
        bitcts_sweep_result_free(&r);
        return bitcts_cli_error("sweep", "%s", err[0] ? err : bitcts_status_message(st));
    }
    if (st == BITCTS_OK) {
        print_result(&a.cfg, &r);
        rc = r.mismatches ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
    } else {
        fprintf(stderr, "bitcts sweep: %s %s: FAILED: %s\n", bitcts_op_name(a.cfg.op),
                bitcts_dtype_name(a.cfg.type), err[0] ? err : bitcts_status_message(st));
        rc = BITCTS_EXIT_FAILURES;
    }
    if (a.json != NULL) {
        const int jrc = write_json(&a, &r, st == BITCTS_OK ? NULL : err);
        rc = rc == BITCTS_EXIT_OK ? jrc : rc;
    }
    bitcts_sweep_result_free(&r);
    return rc;
}
