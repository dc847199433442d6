/* SPDX-License-Identifier: MIT */
/* `bitcts sweep`: the command line of the exhaustive sweeps (harness/perf/sweep.h): options, the
 * one-line result, the JSON file (written whole, then renamed). */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* strtod */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
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

typedef struct sweep_args {
    bitcts_sweep_config cfg;
    bitcts_cli_backend backend; /* into cfg */
    const char *json;
    const char *op, *type, *out_type;
} sweep_args;

#define SWEEP_AT(field) offsetof(sweep_args, field)

static const bitcts_cli_option sweep_options[] = {
    BITCTS_OPT_REQUIRED("--op", "OP", SWEEP_AT(op), 0,
                        "the operator (bit_and, ..., bit_shift_right)"),
    BITCTS_OPT_REQUIRED("--type", "T", SWEEP_AT(type), 0, "the input type"),
    BITCTS_OPT_TEXT("--out-type", "T", SWEEP_AT(out_type), 0,
                    "the output type (default: uint8 for bit_count, else T)"),
    BITCTS_OPT_NUMBER("--every", "N", U32, SWEEP_AT(cfg.every), 1, 256,
                      "a reduced sweep: only chunks 0, N, 2N, ... (every value of the low 24 "
                      "bits, a spread of the high ones)"),
    BITCTS_OPT_SECONDS("--timeout", "S", SWEEP_AT(cfg.timeout_s),
                       "seconds one backend call may take (default 120; from 0.1 to 86400); the "
                       "harness's own work on a chunk may take 10 times that (at least 600)"),
    BITCTS_OPT_TEXT("--json", "FILE", SWEEP_AT(json), 0, "also write the result as JSON"),
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
        bitcts_cli_backend_table(&a->backend, BITCTS_CLI_BACKEND_REQUIRED),
        BITCTS_CLI_TABLE(sweep_options, a)};
    const bitcts_cli_spec spec = {.cmd = "sweep",
                                  .description = sweep_description,
                                  .epilogue = sweep_epilogue,
                                  .tables = tables,
                                  .needs_arguments = 1,
                                  .table_count = 2};
    const int rc = bitcts_cli_parse(&spec, argc, argv, NULL, NULL);
    a->cfg.backend_spec = a->backend.spec;
    a->cfg.options = a->backend.options;
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

/* Runs the sweep with Ctrl-C and SIGTERM caught: the child is killed, nothing is left. */
static int run_sweep(sweep_args *a, bitcts_sweep_result *r, char *err, size_t cap)
{
    bitcts_cli_interrupts saved;
    bitcts_cli_interrupts_catch(&saved);
    a->cfg.interrupted = &bitcts_cli_interrupted;
    const int st = bitcts_sweep_run(&a->cfg, r, err, cap);
    bitcts_cli_interrupts_restore(&saved);
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
    if (bitcts_cli_interrupted) {
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
        const int jrc = bitcts_cli_write_json(
            "sweep", bitcts_sweep_json(&a.cfg, &r, st == BITCTS_OK ? NULL : err), 2, a.json);
        rc = rc == BITCTS_EXIT_OK ? jrc : rc;
    }
    bitcts_sweep_result_free(&r);
    return rc;
}
