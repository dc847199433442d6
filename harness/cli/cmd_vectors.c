/* SPDX-License-Identifier: MIT */
/* `bitcts vectors export`: the language-neutral vector export (docs/vector-format.md); `regen`
 * and `verify`, the golden manifest, are in cmd_golden.c. */
#include <signal.h> /* sigaction, SIGINT, SIGTERM */
#include <stdio.h>  /* printf */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "clock.h"
#include "commands.h"
#include "export_dir.h"

static const char vectors_usage[] =
    "usage: bitcts vectors export --out DIR [--filter GLOB] [--tier T] [--feature-level FL]\n"
    "                             [--seed S]\n"
    "       bitcts vectors regen [--golden FILE]     (see bitcts vectors regen --help)\n"
    "       bitcts vectors verify [--golden FILE]\n"
    "\n"
    "Writes, for each selected case, its tensor descriptions, the exact bytes of every input\n"
    "buffer and of the expected output buffer, with XXH3-128 digests, as DIR/manifest.json and\n"
    "DIR/cases/<id>/*.bin (format: docs/vector-format.md). DIR must be missing, empty or an\n"
    "earlier export, which is replaced whole; on error, SIGINT or SIGTERM (exit 130) nothing is\n"
    "left behind.\n"
    "  --seed S   suite seed (decimal or 0x-hex; default 0x0062697463747331)\n";

/* Ctrl-C or a polite kill: the export stops and removes what it wrote. */
static volatile sig_atomic_t export_interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    export_interrupted = 1;
}

/* The export with SIGINT and SIGTERM caught; 130 when they stopped it. */
static int export_caught(const bitcts_plan *plan, const bitcts_export_options *opt,
                         const char *out_dir, bitcts_export_stats *stats)
{
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    export_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    char err[4200] = "";
    const int st =
        bitcts_export_dir(plan, opt, out_dir, &export_interrupted, stats, err, sizeof err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (st != BITCTS_OK && export_interrupted) {
        fprintf(stderr, "bitcts vectors export: interrupted; nothing was written to %s\n", out_dir);
        return BITCTS_EXIT_INTERRUPTED;
    }
    if (st != BITCTS_OK) {
        return bitcts_cli_error("vectors export", "%s", err[0] ? err : bitcts_status_message(st));
    }
    return BITCTS_EXIT_OK;
}

int bitcts_cmd_vectors(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(vectors_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BITCTS_EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "regen") == 0 || strcmp(argv[1], "verify") == 0) {
        return bitcts_cmd_golden(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "export") != 0) {
        return bitcts_cli_error("vectors", "unknown action '%s' (export, regen, verify)", argv[1]);
    }
    bitcts_export_options opt = {.seed = BITCTS_DEFAULT_SEED,
                                 .selection = {.tiers = BITCTS_TIER_DEFAULT}};
    const char *out_dir = NULL;
    for (int i = 2; i < argc; ++i) {
        int handled = 0;
        const char *v = NULL;
        int r = bitcts_parse_selection("vectors export", argc, argv, &i, &opt.selection,
                                       &opt.tier_text, &handled);
        if (r) {
            return r;
        }
        if (handled) {
            continue;
        }
        if ((r = bitcts_cli_option(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0 || !*v) {
                return bitcts_cli_error("vectors export", "--out needs a directory");
            }
            if (strlen(v) > 3000) {
                return bitcts_cli_error("vectors export", "--out path is too long");
            }
            out_dir = v;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--seed", &v)) != 0) {
            if (r < 0 || bitcts_cli_parse_u64(v, &opt.seed) != 0) {
                return bitcts_cli_error("vectors export", "--seed: '%s' is not a 64-bit number",
                                        r < 0 ? "" : v);
            }
        } else if (strcmp(argv[i], "--help") == 0) {
            fputs(vectors_usage, stdout);
            return 0;
        } else {
            return bitcts_cli_error("vectors export", "unknown argument '%s'", argv[i]);
        }
    }
    if (out_dir == NULL) {
        return bitcts_cli_error("vectors export", "--out DIR is required");
    }
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        return bitcts_cli_error("vectors export", "out of memory");
    }
    const int empty =
        bitcts_cli_require_cases("vectors export", plan, &opt.selection, opt.tier_text);
    if (empty != 0) {
        bitcts_plan_destroy(plan);
        return empty;
    }
    const double t0 = bitcts_clock_now();
    bitcts_export_stats stats;
    const int rc = export_caught(plan, &opt, out_dir, &stats);
    const double secs = bitcts_clock_now() - t0;
    bitcts_plan_destroy(plan);
    if (rc != BITCTS_EXIT_OK) {
        return rc;
    }
    fprintf(stderr, "exported %zu cases, %zu files, %.1f MiB to %s in %.2f s\n", stats.cases,
            stats.files, (double)stats.bytes / 1048576.0, out_dir, secs);
    return 0;
}
