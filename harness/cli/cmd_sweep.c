/* SPDX-License-Identifier: MIT */
/* `bitcts sweep`: the command line of the exhaustive sweeps (harness/sweep.c). */
#include <stdio.h>  /* printf */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "sweep.h"

static const char sweep_usage[] =
    "usage: bitcts sweep --backend B [--backend-option KEY=VALUE]... --op OP --type T\n"
    "                    [--out-type T]\n"
    "\n"
    "Runs OP over every input the type allows, in chunks of 2^24 elements, and checks every\n"
    "element against the reference:\n"
    "  bit_not, bit_count          every value of T (2^32 for 32-bit types)\n"
    "  bit_shift_left/right        every value of T by every count of T (uint8: 2^16 pairs,\n"
    "                              uint16: 2^32 pairs); counts >= the width are classified\n"
    "  bit_and, bit_or, bit_xor    every pair of values of an 8- or 16-bit T\n"
    "Exit code 0 when every asserted element matches, 1 otherwise, 2 for bad input.\n";

static int parse_sweep(int argc, char **argv, bitcts_sweep_config *cfg, char keys[][64])
{
    const char *op = NULL, *type = NULL, *out_type = NULL, *v = NULL;
    for (int i = 1; i < argc; ++i) {
        int r;
        if ((r = bitcts_cli_option(argc, argv, &i, "--backend", &v)) != 0) {
            cfg->backend_spec = r > 0 ? v : NULL;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--backend-option", &v)) != 0) {
            if (r < 0 || bitcts_backend_options_add(&cfg->options, keys, v) != 0) {
                return bitcts_cli_error("sweep", "--backend-option needs KEY=VALUE");
            }
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--op", &v)) != 0) {
            op = r > 0 ? v : "";
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--type", &v)) != 0) {
            type = r > 0 ? v : "";
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--out-type", &v)) != 0) {
            out_type = r > 0 ? v : "";
        } else {
            return bitcts_cli_error("sweep", "unknown argument '%s' (see bitcts sweep --help)",
                                    argv[i]);
        }
    }
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
    if (!cfg->out_type) {
        return bitcts_cli_error("sweep", "--out-type: unknown data type '%s'", out_type);
    }
    uint64_t total = 0;
    char err[256];
    if (bitcts_sweep_check(cfg, &total, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("sweep", "%s", err);
    }
    return 0;
}

int bitcts_cmd_sweep(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(sweep_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BITCTS_EXIT_USAGE : 0;
    }
    bitcts_sweep_config cfg;
    memset(&cfg, 0, sizeof cfg);
    char keys[BITCTS_MAX_OPTIONS][64];
    int rc = parse_sweep(argc, argv, &cfg, keys);
    if (rc) {
        return rc;
    }
    bitcts_sweep_result r;
    char err[1024] = "";
    const int st = bitcts_sweep_run(&cfg, &r, err, sizeof err);
    const char *op = bitcts_op_name(cfg.op);
    if (st == BITCTS_E_BACKEND_FAILED) {
        printf("%s %s: chunk at %llu: %s\n", op, bitcts_dtype_name(cfg.type),
               (unsigned long long)r.failed_chunk, err);
        return BITCTS_EXIT_FAILURES;
    }
    if (st != BITCTS_OK) {
        return bitcts_cli_error("sweep", "%s", err[0] ? err : bitcts_status_message(st));
    }
    printf("%s %s->%s: %llu elements, %llu mismatches", op, bitcts_dtype_name(cfg.type),
           bitcts_dtype_name(cfg.out_type), (unsigned long long)r.total,
           (unsigned long long)r.mismatches);
    if (r.mismatches) {
        printf(" (first at element %llu)", (unsigned long long)r.first_bad);
    }
    if (r.oob) {
        printf("; %llu with counts >= %u recorded: %llu match mask, %llu saturate",
               (unsigned long long)r.oob, bitcts_dtype_size(cfg.type) * 8,
               (unsigned long long)r.oob_mask, (unsigned long long)r.oob_saturate);
    }
    printf("; %.2f s in all, %.2f s in the backend (%.0f M elements/s)\n", r.seconds,
           r.backend_seconds, (double)r.total / r.backend_seconds / 1e6);
    return r.mismatches ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
}
