/* SPDX-License-Identifier: MIT */
/* `bitcts vectors export`: the language-neutral vector export (docs/vector-format.md); `regen`
 * and `verify`, the golden manifest, are in cmd_golden.c. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "clock.h"
#include "commands.h"
#include "export_dir.h"
#include "regress_dir.h"

static const char vectors_usage[] =
    "usage: bitcts vectors <action> [<args>]\n"
    "\n"
    "actions:\n"
    "  export    write the selected cases, inputs and expected outputs, as language-neutral\n"
    "            vectors\n"
    "  regen     rewrite the golden manifest (docs/golden-vectors.md)\n"
    "  verify    recompute the golden manifest and name every case that changed\n"
    "\n"
    "'bitcts vectors <action> --help' describes an action.\n";

static const char export_description[] =
    "Writes, for each selected case, its tensor descriptions, the exact bytes of every input\n"
    "buffer and of the expected output buffer, with XXH3-128 digests, as DIR/manifest.json and\n"
    "DIR/cases/<id>/*.bin (format: docs/vector-format.md). DIR must be missing, empty or an\n"
    "earlier export, which is replaced whole; on error, SIGINT or SIGTERM (exit 130) nothing is\n"
    "left behind.\n";

typedef struct export_args {
    const char *out_dir;
    uint64_t seed;
    const char *regressions; /* --regressions */
} export_args;

static const bitcts_cli_option export_options[] = {
    BITCTS_OPT_REQUIRED("--out", "DIR", offsetof(export_args, out_dir), 3000,
                        "the export's folder"),
    BITCTS_OPT_NUMBER("--seed", "S", U64, offsetof(export_args, seed), 0, UINT64_MAX,
                      "suite seed (decimal or 0x-hex; default 0x0062697463747331)"),
    BITCTS_OPT_TEXT("--regressions", "DIR", offsetof(export_args, regressions), 4000,
                    "also export the regression case files of DIR, each with its own bytes "
                    "(docs/regressions.md); without --tier, only them"),
};

/* The export with SIGINT and SIGTERM caught (Ctrl-C or a polite kill: the export stops and
 * removes what it wrote); 130 when they stopped it. */
static int export_caught(const bitcts_plan *plan, const bitcts_export_options *opt,
                         const char *out_dir, bitcts_export_stats *stats)
{
    bitcts_cli_interrupts saved;
    bitcts_cli_interrupts_catch(&saved);
    char err[4200] = "";
    const int st =
        bitcts_export_dir(plan, opt, out_dir, &bitcts_cli_interrupted, stats, err, sizeof err);
    bitcts_cli_interrupts_restore(&saved);
    if (st != BITCTS_OK && bitcts_cli_interrupted) {
        fprintf(stderr, "bitcts vectors export: interrupted; nothing was written to %s\n", out_dir);
        return BITCTS_EXIT_INTERRUPTED;
    }
    if (st != BITCTS_OK) {
        return bitcts_cli_error("vectors export", "%s", err[0] ? err : bitcts_status_message(st));
    }
    return BITCTS_EXIT_OK;
}

/* The plan to export: the suite's, with --regressions DIR's cases added (alone without --tier).
 * 0, or an exit code. */
static int export_plan(const export_args *a, const char *tier_text, bitcts_plan **plan)
{
    bitcts_plan *suite = NULL;
    if ((a->regressions == NULL || tier_text != NULL) && bitcts_plan_create(&suite) != BITCTS_OK) {
        return bitcts_cli_error("vectors export", "out of memory");
    }
    if (a->regressions == NULL) {
        *plan = suite;
        return 0;
    }
    char err[4600];
    json_t *origins = NULL;
    size_t added = 0;
    const int st =
        bitcts_regress_load(a->regressions, suite, plan, &origins, &added, err, sizeof err);
    bitcts_plan_destroy(suite);
    json_decref(origins);
    if (st != BITCTS_OK) {
        return bitcts_cli_error("vectors export", "--regressions: %s", err);
    }
    return 0;
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
    export_args a = {.seed = BITCTS_DEFAULT_SEED};
    bitcts_cli_selection sel = {.sel = {.tiers = BITCTS_TIER_DEFAULT}};
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(export_options, &a),
                                       bitcts_cli_selection_table(&sel)};
    const bitcts_cli_spec spec = {.cmd = "vectors export",
                                  .description = export_description,
                                  .tables = tables,
                                  .table_count = 2};
    const int parsed = bitcts_cli_parse(&spec, argc - 1, argv + 1, NULL, NULL);
    if (parsed != 0) {
        return parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
    }
    if (a.out_dir == NULL) {
        return bitcts_cli_error("vectors export", "--out DIR is required");
    }
    const char *out_dir = a.out_dir;
    const bitcts_export_options opt = {
        .seed = a.seed, .selection = sel.sel, .tier_text = sel.tier_text};
    bitcts_plan *plan = NULL;
    const int made = export_plan(&a, sel.tier_text, &plan);
    if (made != 0) {
        return made;
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
