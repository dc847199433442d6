/* SPDX-License-Identifier: MIT */
/* `bitcts sweep`: the command line of the exhaustive sweeps (harness/perf/sweep.h): options, the
 * one-line result, the JSON file (written whole, then renamed). */
#include <signal.h> /* sigaction */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* strtod */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "sweep.h"

static const char sweep_usage[] =
    "usage: bitcts sweep --backend B [--backend-option KEY=VALUE]... --op OP --type T\n"
    "                    [--out-type T] [--every N] [--timeout S] [--json FILE]\n"
    "\n"
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
    "returns: a write outside the buffers or into an input or the description fails the chunk.\n"
    "  --every N       a reduced sweep: only chunks 0, N, 2N, ... (every value of the low 24\n"
    "                  bits, a spread of the high ones)\n"
    "  --timeout S     seconds one backend call may take (default 120; from 0.1 to 86400);\n"
    "                  the harness's own work on a chunk may take 10 times that (at least 600)\n"
    "  --json FILE     also write the result as JSON\n"
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
    char keys[BITCTS_MAX_OPTIONS][64];
} sweep_args;

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

static int parse_sweep(int argc, char **argv, sweep_args *a)
{
    const char *op = NULL, *type = NULL, *out_type = NULL, *v = NULL;
    bitcts_sweep_config *cfg = &a->cfg;
    for (int i = 1; i < argc; ++i) {
        int r;
        double d = 0;
        if ((r = bitcts_cli_option(argc, argv, &i, "--backend", &v)) != 0) {
            cfg->backend_spec = r > 0 && *v != '\0' ? v : NULL;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--backend-option", &v)) != 0) {
            if (r < 0 || bitcts_backend_options_add(&cfg->options, a->keys, v) != 0) {
                return bitcts_cli_error("sweep", "--backend-option needs KEY=VALUE");
            }
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--op", &v)) != 0) {
            op = r > 0 ? v : "";
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--type", &v)) != 0) {
            type = r > 0 ? v : "";
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--out-type", &v)) != 0) {
            out_type = r > 0 ? v : "";
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--every", &v)) != 0) {
            uint64_t n = 0;
            if (r < 0 || bitcts_cli_parse_u64(v, &n) != 0 || n < 1 || n > 256) {
                return bitcts_cli_error("sweep", "--every: '%s' is not a number from 1 to 256",
                                        r < 0 ? "" : v);
            }
            cfg->every = (uint32_t)n;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--timeout", &v)) != 0) {
            if (r < 0 || bitcts_cli_parse_seconds(v, &d) != 0) {
                return bitcts_cli_error("sweep", "--timeout: '%s' " BITCTS_CLI_SECONDS_RULE,
                                        r < 0 ? "" : v);
            }
            cfg->timeout_s = d;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--json", &v)) != 0) {
            if (r < 0 || *v == '\0') {
                return bitcts_cli_error("sweep", "--json needs a file");
            }
            a->json = v;
        } else {
            return bitcts_cli_error("sweep", "unknown argument '%s' (see bitcts sweep --help)",
                                    argv[i]);
        }
    }
    return parse_types(a, op, type, out_type);
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
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(sweep_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BITCTS_EXIT_USAGE : 0;
    }
    sweep_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_sweep(argc, argv, &a);
    if (rc) {
        return rc;
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
