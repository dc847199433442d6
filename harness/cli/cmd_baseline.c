/* SPDX-License-Identifier: MIT */
/* `bitcts baseline update`: brings a baseline file (docs/harness.md, "Baselines") up to date with
 * the reports of a run, or with --check says whether it is. Reports are joined with the report
 * merge, so any shard layout gives the same file; the file is written to a temporary file and
 * renamed, and a file that does not parse is never rewritten. */
#include <errno.h>    /* errno, ENOENT */
#include <stdio.h>    /* fprintf */
#include <stdlib.h>   /* calloc */
#include <string.h>   /* strcmp */
#include <sys/stat.h> /* stat */

#include "baseline_update.h"
#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "report_files.h"

#define BASELINE_MAX_BYTES (64u << 20)

static const char baseline_usage[] =
    "usage: bitcts baseline <action> [<args>]\n"
    "\n"
    "Maintains a baseline file for 'bitcts run --baseline FILE' (docs/harness.md).\n"
    "actions:\n"
    "  update --baseline FILE [--check] R...   bring FILE up to date with run reports R\n"
    "\n"
    "'bitcts baseline <action> --help' describes an action.\n";

static const char update_description[] =
    "Brings the baseline FILE up to date with the reports R (report folders or report.json\n"
    "files; the shards of one run, in any layout, or one unsharded run). A failure (fail,\n"
    "timeout, crash, flake) that no line expects gets a line '<id> <kind> # <first line of its\n"
    "detail>' (new lines in id order, at the end or, when an earlier glob names another kind,\n"
    "just before that glob); a line whose cases all pass now, or fail otherwise, is removed; a\n"
    "glob whose cases partly pass is replaced by a line per case that still fails (its reason\n"
    "kept). Lines that govern no case of the reports are kept, and said so; other lines,\n"
    "comments and the order are kept byte for byte. A second update changes nothing. FILE is\n"
    "written to a temporary file and renamed (created when missing); a FILE that does not parse\n"
    "is never rewritten. With --check nothing is written.\n";

static const char update_epilogue[] =
    "Exit code: 0 FILE is current (or was updated), 1 --check found FILE stale, 2 bad input.\n";

typedef struct update_args {
    const char *baseline;
    int check;
    const char **reports;
    size_t n_reports;
} update_args;

static int add_report(const char *value, void *dest, char *err, size_t cap)
{
    (void)err;
    (void)cap;
    update_args *a = dest;
    a->reports[a->n_reports++] = value;
    return 0;
}

static const bitcts_cli_option update_options[] = {
    BITCTS_OPT_REQUIRED("--baseline", "FILE", offsetof(update_args, baseline), 0,
                        "the baseline file to update (created when missing)"),
    BITCTS_CLI_OPTION("--report", 0, "R", BITCTS_CLI_CUSTOM, 1, 0, 0, 0, 0, NULL, 0, add_report,
                      "a report folder or report.json (also as an operand)"),
    BITCTS_OPT_FLAG("--check", offsetof(update_args, check),
                    "write nothing; exit 1 when FILE is stale (for CI)"),
};

/* The reports, merged into one (a single unsharded report merges to itself). */
static int load_merged(const update_args *a, json_t **merged)
{
    json_t **loaded = calloc(a->n_reports, sizeof *loaded);
    char err[BITCTS_REPORT_ERROR_CAP + 4200] = "";
    int rc = BITCTS_EXIT_USAGE;
    if (loaded == NULL) {
        return bitcts_cli_error("baseline update", "out of memory");
    }
    for (size_t k = 0; k < a->n_reports; ++k) {
        if (bitcts_report_files_load(a->reports[k], &loaded[k], err, sizeof err) != BITCTS_OK) {
            rc = bitcts_cli_error("baseline update", "%s", err);
            goto cleanup;
        }
    }
    const bitcts_status st = bitcts_report_merge((const json_t *const *)loaded, a->reports,
                                                 a->n_reports, merged, err, sizeof err);
    rc = st == BITCTS_OK
             ? BITCTS_EXIT_OK
             : bitcts_cli_error("baseline update", "%s", err[0] ? err : bitcts_status_message(st));
cleanup:
    for (size_t k = 0; k < a->n_reports; ++k) {
        json_decref(loaded[k]);
    }
    free(loaded);
    return rc;
}

/* FILE's bytes; a missing file is an empty baseline. */
static int read_baseline(const char *path, char **text, size_t *size)
{
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT) {
        *text = calloc(1, 1);
        *size = 0;
        return *text != NULL ? BITCTS_EXIT_OK
                             : bitcts_cli_error("baseline update", "out of memory");
    }
    char err[4400];
    if (bitcts_fs_read(path, BASELINE_MAX_BYTES, text, size, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("baseline update", "%s", err);
    }
    return BITCTS_EXIT_OK;
}

static int finish(const update_args *a, const bitcts_baseline_update *u, int stale)
{
    fputs(u->notes, stderr);
    if (a->check) {
        fprintf(stderr, "%s is %s: %zu lines to add, %zu to remove\n", a->baseline,
                stale ? "stale" : "current", u->added, u->removed);
        return stale ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
    }
    if (stale) {
        char err[4400];
        if (bitcts_fs_write_atomic(a->baseline, u->text, u->size, err, sizeof err) != 0) {
            return bitcts_cli_error("baseline update", "%s", err);
        }
    }
    fprintf(stderr, "%s: %zu lines added, %zu removed, %zu kept that govern no case%s\n",
            a->baseline, u->added, u->removed, u->unmatched, stale ? "" : " (unchanged)");
    return BITCTS_EXIT_OK;
}

static int cmd_update(int argc, char **argv)
{
    update_args a = {.reports = calloc((size_t)argc + 1, sizeof(const char *))};
    if (a.reports == NULL) {
        return bitcts_cli_error("baseline update", "out of memory");
    }
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(update_options, &a)};
    const bitcts_cli_spec spec = {.cmd = "baseline update",
                                  .operands = "[R...]",
                                  .max_operands = (size_t)argc,
                                  .needs_arguments = 1,
                                  .description = update_description,
                                  .epilogue = update_epilogue,
                                  .tables = tables,
                                  .table_count = 1};
    size_t n_ops = 0;
    const char **ops = calloc((size_t)argc + 1, sizeof *ops);
    int rc = ops == NULL ? bitcts_cli_error("baseline update", "out of memory")
                         : bitcts_cli_parse(&spec, argc, argv, ops, &n_ops);
    for (size_t k = 0; rc == 0 && k < n_ops; ++k) {
        a.reports[a.n_reports++] = ops[k];
    }
    free(ops);
    char *text = NULL;
    size_t size = 0;
    json_t *merged = NULL;
    bitcts_baseline_update u = {0};
    if (rc != 0) {
        rc = rc == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : rc;
    } else if (a.baseline == NULL) {
        rc = bitcts_cli_error("baseline update", "--baseline FILE is required");
    } else if (a.n_reports == 0) {
        rc = bitcts_cli_error("baseline update", "no report given (--report R or operands)");
    } else if ((rc = read_baseline(a.baseline, &text, &size)) == 0 &&
               (rc = load_merged(&a, &merged)) == 0) {
        char err[4400];
        if (bitcts_baseline_update_run(a.baseline, text, size, merged, &u, err, sizeof err) != 0) {
            rc = bitcts_cli_error("baseline update", "%s", err);
        } else {
            rc = finish(&a, &u, u.size != size || memcmp(u.text, text, size) != 0);
        }
    }
    bitcts_baseline_update_free(&u);
    json_decref(merged);
    free(text);
    free(a.reports);
    return rc;
}

int bitcts_cmd_baseline(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(baseline_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BITCTS_EXIT_USAGE : BITCTS_EXIT_OK;
    }
    if (strcmp(argv[1], "update") == 0) {
        return cmd_update(argc - 1, argv + 1);
    }
    return bitcts_cli_error("baseline", "unknown action '%s' (update)", argv[1]);
}
