/* SPDX-License-Identifier: MIT */
/* `bitcts report diff|merge|render` (matrix: cmd_report_matrix.c): the command line over the
 * reports module. The only file of the module that prints; errors are one line (bitcts_cli_error)
 * with exit code 2. */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp */

#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "report_files.h"

static const char report_usage[] =
    "usage: bitcts report <action> [<args>]\n"
    "\n"
    "Works on report folders written by 'bitcts run --report DIR' (docs/report-schema.md).\n"
    "actions:\n"
    "  diff A B [--json FILE]       compare two runs: regressions, fixes, digest changes\n"
    "  merge --out DIR A B [C...]   join the shard reports of one run into one report\n"
    "  render DIR                   re-write junit.xml, report.html, summary.md from report.json\n"
    "  matrix --out FILE.md R...    operator x type x framework over several reports\n"
    "  verify R                     check a published report against its seed and selection\n"
    "  verdicts                     the verdict table and every change's class, as JSON\n"
    "\n"
    "'bitcts report <action> --help' describes an action.\n";

static const char diff_description[] =
    "Compares run A (earlier) with run B (later), case by case; A and B are report folders or\n"
    "report.json files. Prints one line per difference, then a summary line:\n"
    "  regression  the verdict got worse: pass < warn < fail < timeout < crash; or a case that\n"
    "              was not failing now fails (fail, timeout, crash, missing, internal_error,\n"
    "              unexpected_pass); or a pass/warn/recorded case became not_supported,\n"
    "              expected_fail, skipped or not_run\n"
    "  fix         the reverse of a regression\n"
    "  changed     any other verdict change (e.g. recorded -> pass, crash -> internal_error,\n"
    "              fail -> not_supported: a failure that went away without a fix)\n"
    "  digest      same verdict (pass, warn or recorded), different output digest; only when\n"
    "              both runs used the same seed and generator version\n"
    "  added, removed  cases only in B, only in A\n"
    "Exit code: 0 no regression, 1 regressions, 2 bad input.\n";

static const char merge_description[] =
    "Joins the shard reports (folders or report.json files) of one run into DIR/report.json,\n"
    "junit.xml, report.html and summary.md. The shards must share seed, suite and generator\n"
    "version, backend name, spec, version, library digest and reported variant, and selection\n"
    "(reports of two CPU variants are refused, naming both); every shard i/n must be given\n"
    "exactly once; a case in two shards must have the same result. Cases are put back in plan\n"
    "order, the summary and slowest cases recomputed, durations summed. DIR must not be a\n"
    "shard, and must be missing, empty or a report folder bitcts made.\n";

static const char render_description[] =
    "Validates DIR/report.json and re-writes DIR/junit.xml, DIR/report.html and DIR/summary.md\n"
    "from it (after an upgrade of bitcts, or after editing nothing but wanting fresh views).\n";

static const bitcts_cli_option diff_options[] = {
    BITCTS_OPT_TEXT("--json", "FILE", 0, 0, "also write the diff as JSON"),
};

static const bitcts_cli_option merge_options[] = {
    BITCTS_OPT_REQUIRED("--out", "DIR", 0, 0, "the merged report's folder"),
};

/* Parses an action's command line (options into *value, operands into paths); 0, -1 after
 * --help, or an exit code. */
static int parse_action(const bitcts_cli_spec *spec, int argc, char **argv, const char **paths,
                        int *n_paths)
{
    size_t n = 0;
    const int rc = bitcts_cli_parse(spec, argc, argv, paths, &n);
    *n_paths = (int)n;
    return rc;
}

static int write_json_file(const json_t *value, const char *path, char *err, size_t cap)
{
    char *text = json_dumps(value, JSON_INDENT(1));
    if (text == NULL) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    const size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (line == NULL) {
        free(text);
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    memcpy(line + len, "\n", 2);
    const int st = bitcts_fs_write_atomic(path, line, len + 1, err, cap);
    free(line);
    return st;
}

/* ---- diff ---- */

/* One verdict change: "LABEL ID  FROM -> TO: DETAIL", after `indent`. */
static void print_change(const char *indent, const char *label, const json_t *e)
{
    const char *detail = bitcts_report_str(e, "detail");
    printf("%s%-11s %s  %s -> %s%s%s\n", indent, label, bitcts_report_str(e, "id"),
           bitcts_report_str(e, "from"), bitcts_report_str(e, "to"), *detail ? ": " : "", detail);
}

static void print_changes(const json_t *diff, const char *key, const char *label)
{
    const json_t *list = json_object_get(diff, key);
    for (size_t i = 0; i < json_array_size(list); ++i) {
        print_change("", label, json_array_get(list, i));
    }
}

/* What changed between the runs, before anything else: where a cause would be. */
static void print_provenance(const json_t *diff)
{
    const json_t *list = json_object_get(diff, "provenance");
    for (size_t i = 0; i < json_array_size(list); ++i) {
        const json_t *e = json_array_get(list, i);
        char *from = json_dumps(json_object_get(e, "from"), JSON_ENCODE_ANY | JSON_COMPACT);
        char *to = json_dumps(json_object_get(e, "to"), JSON_ENCODE_ANY | JSON_COMPACT);
        printf("%-11s %s: %s -> %s\n", "changed", bitcts_report_str(e, "what"),
               from != NULL ? from : "?", to != NULL ? to : "?");
        free(from);
        free(to);
    }
}

/* The regressions group by group (as the reports group failures), every one listed. */
static void print_regression_groups(const json_t *diff)
{
    const json_t *groups = json_object_get(diff, "groups");
    const json_t *regressions = json_object_get(diff, "regressions");
    json_t *by_id = json_object(); /* each regression by its id (borrowed into the object) */
    for (size_t n = 0; by_id != NULL && n < json_array_size(regressions); ++n) {
        json_t *e = json_array_get(regressions, n);
        json_object_set(by_id, bitcts_report_str(e, "id"), e);
    }
    for (size_t i = 0; i < json_array_size(groups); ++i) {
        const json_t *g = json_array_get(groups, i);
        const json_t *type = json_object_get(json_object_get(g, "spread"), "type");
        printf("group %zu: %lld regressions to %s in %s: \"%s\" (%lld types, most %s)\n", i + 1,
               (long long)json_integer_value(json_object_get(g, "count")),
               bitcts_report_str(g, "verdict"), bitcts_report_str(g, "operator"),
               bitcts_report_str(g, "signature"),
               (long long)json_integer_value(json_object_get(type, "distinct")),
               bitcts_report_str(type, "top"));
        const json_t *ids = json_object_get(g, "ids");
        for (size_t k = 0; k < json_array_size(ids); ++k) {
            const char *id = json_string_value(json_array_get(ids, k));
            const json_t *e = id != NULL ? json_object_get(by_id, id) : NULL;
            if (e != NULL) {
                print_change("  ", "regression", e);
            }
        }
    }
    json_decref(by_id);
}

static void print_diff(const json_t *diff)
{
    const json_t *list = json_object_get(diff, "digest_changed");
    print_provenance(diff);
    print_regression_groups(diff);
    print_changes(diff, "fixes", "fix");
    print_changes(diff, "changed", "changed");
    for (size_t i = 0; i < json_array_size(list); ++i) {
        const json_t *e = json_array_get(list, i);
        printf("%-11s %s  (%s) %s -> %s\n", "digest", bitcts_report_str(e, "id"),
               bitcts_report_str(e, "verdict"), bitcts_report_str(e, "from"),
               bitcts_report_str(e, "to"));
    }
    static const char *const presence[] = {"added", "removed"};
    for (size_t p = 0; p < 2; ++p) {
        list = json_object_get(diff, presence[p]);
        for (size_t i = 0; i < json_array_size(list); ++i) {
            printf("%-11s %s  %s\n", presence[p], bitcts_report_str(json_array_get(list, i), "id"),
                   bitcts_report_str(json_array_get(list, i), "verdict"));
        }
    }
    const json_t *a = json_object_get(diff, "a");
    const json_t *b = json_object_get(diff, "b");
    if (!json_is_true(json_object_get(diff, "digests_compared"))) {
        printf("note: the runs used different seeds or generator versions (%s vs %s); output "
               "digests were not compared\n",
               bitcts_report_str(a, "seed"), bitcts_report_str(b, "seed"));
    }
    const json_t *analysis = json_object_get(diff, "analysis");
    if (json_is_object(analysis)) { /* what the regressed cases have in common */
        printf("regressions: %s\n",
               bitcts_report_str(json_object_get(analysis, "explanation"), "text"));
    }
    const json_t *s = json_object_get(diff, "summary");
    printf("report diff: %lld regressions, %lld fixes, %lld other changes, %lld digest changes, "
           "%lld added, %lld removed; %lld cases compared\n",
           (long long)json_integer_value(json_object_get(s, "regressions")),
           (long long)json_integer_value(json_object_get(s, "fixes")),
           (long long)json_integer_value(json_object_get(s, "changed")),
           (long long)json_integer_value(json_object_get(s, "digest_changed")),
           (long long)json_integer_value(json_object_get(s, "added")),
           (long long)json_integer_value(json_object_get(s, "removed")),
           (long long)json_integer_value(json_object_get(s, "compared")));
}

static int cmd_diff(int argc, char **argv)
{
    const char *paths[3] = {NULL, NULL, NULL};
    const char *json_path = NULL;
    int n_paths = 0;
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(diff_options, &json_path)};
    const bitcts_cli_spec spec = {.cmd = "report diff",
                                  .operands = "A B",
                                  .max_operands = 3,
                                  .description = diff_description,
                                  .tables = tables,
                                  .table_count = 1};
    const int parsed = parse_action(&spec, argc, argv, paths, &n_paths);
    if (parsed != 0) {
        return parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
    }
    if (n_paths > 2) {
        return bitcts_cli_error("report diff", "more than two reports given ('%s')", paths[2]);
    }
    if (n_paths != 2) {
        return bitcts_cli_error("report diff",
                                "needs two reports, A and B (see bitcts report diff --help)");
    }
    const char *const outputs[] = {json_path};
    const char *const names[] = {"--json"};
    if (bitcts_cli_outputs_apart("report diff", outputs, names, 1, paths, 2) != 0) {
        return BITCTS_EXIT_USAGE;
    }
    json_t *reports[2] = {NULL, NULL};
    json_t *diff = NULL;
    char err[BITCTS_REPORT_ERROR_CAP + 4200] = "";
    int rc = BITCTS_EXIT_USAGE;
    for (int k = 0; k < 2; ++k) {
        if (bitcts_report_files_load(paths[k], &reports[k], err, sizeof err) != BITCTS_OK) {
            bitcts_cli_error("report diff", "%s", err);
            goto cleanup;
        }
    }
    if (bitcts_report_diff(reports[0], reports[1], &diff) != BITCTS_OK ||
        json_object_set_new(json_object_get(diff, "a"), "path", json_string(paths[0])) != 0 ||
        json_object_set_new(json_object_get(diff, "b"), "path", json_string(paths[1])) != 0) {
        bitcts_cli_error("report diff", "out of memory");
        goto cleanup;
    }
    if (json_path != NULL && write_json_file(diff, json_path, err, sizeof err) != BITCTS_OK) {
        bitcts_cli_error("report diff", "%s", err);
        goto cleanup;
    }
    print_diff(diff);
    rc = json_array_size(json_object_get(diff, "regressions")) ? BITCTS_EXIT_FAILURES
                                                               : BITCTS_EXIT_OK;
cleanup:
    json_decref(reports[0]);
    json_decref(reports[1]);
    json_decref(diff);
    return rc;
}

/* ---- merge ---- */

static int merge_loaded(json_t **reports, const char **paths, int n, const char *out_dir)
{
    char err[BITCTS_REPORT_ERROR_CAP + 4200] = "";
    json_t *merged = NULL;
    const bitcts_status st = bitcts_report_merge((const json_t *const *)reports, paths, (size_t)n,
                                                 &merged, err, sizeof err);
    if (st != BITCTS_OK) {
        return bitcts_cli_error("report merge", "%s", err[0] ? err : bitcts_status_message(st));
    }
    const int wr = bitcts_report_files_write(merged, out_dir, err, sizeof err);
    const size_t cases = json_array_size(json_object_get(merged, "cases"));
    const int clean = bitcts_report_is_clean(merged);
    json_decref(merged);
    if (wr != BITCTS_OK) {
        return bitcts_cli_error("report merge", "%s", err);
    }
    fprintf(stderr, "merged %d reports, %zu cases (%s) into %s\n", n, cases,
            clean ? "passed" : "failed", out_dir);
    return BITCTS_EXIT_OK;
}

/* --out DIR: not one of the shards (its report would be replaced before it is merged), and a
 * folder bitcts may write a report into (missing, empty or a report folder bitcts made). */
static int merge_destination_ok(const char *out_dir, const char *const *paths, int n)
{
    char mine[4200];
    snprintf(mine, sizeof mine, "%s/report.json", out_dir);
    for (int k = 0; k < n; ++k) {
        char file[4200];
        bitcts_cli_report_file(paths[k], file, sizeof file);
        if (bitcts_cli_same_file(out_dir, paths[k]) || bitcts_cli_same_file(mine, file)) {
            return bitcts_cli_error("report merge",
                                    "--out %s is the input report %s; give another "
                                    "folder",
                                    out_dir, paths[k]);
        }
    }
    char err[4400];
    if (bitcts_report_files_can_claim(out_dir, 0, "--out", err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("report merge", "%s", err);
    }
    return 0;
}

static int cmd_merge(int argc, char **argv)
{
    const char *out_dir = NULL;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    json_t **reports = calloc((size_t)argc, sizeof *reports);
    int n = 0;
    int rc = BITCTS_EXIT_USAGE;
    if (paths == NULL || reports == NULL) {
        rc = bitcts_cli_error("report merge", "out of memory");
        goto cleanup;
    }
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(merge_options, &out_dir)};
    const bitcts_cli_spec spec = {.cmd = "report merge",
                                  .operands = "A B [C...]",
                                  .max_operands = (size_t)argc,
                                  .description = merge_description,
                                  .tables = tables,
                                  .table_count = 1};
    const int parsed = parse_action(&spec, argc, argv, paths, &n);
    if (parsed != 0) {
        n = 0;
        rc = parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
        goto cleanup;
    }
    if (out_dir == NULL) {
        rc = bitcts_cli_error("report merge", "--out DIR is required");
        goto cleanup;
    }
    if (n == 0) {
        rc = bitcts_cli_error("report merge", "no shard reports given");
        goto cleanup;
    }
    rc = merge_destination_ok(out_dir, paths, n);
    if (rc != 0) {
        goto cleanup;
    }
    rc = BITCTS_EXIT_USAGE;
    for (int k = 0; k < n; ++k) {
        char err[BITCTS_REPORT_ERROR_CAP + 4200] = "";
        if (bitcts_report_files_load(paths[k], &reports[k], err, sizeof err) != BITCTS_OK) {
            rc = bitcts_cli_error("report merge", "%s", err);
            goto cleanup;
        }
    }
    rc = merge_loaded(reports, paths, n, out_dir);
cleanup:
    for (int k = 0; reports != NULL && k < n; ++k) {
        json_decref(reports[k]);
    }
    free(reports);
    free(paths);
    return rc;
}

/* ---- render ---- */

static int cmd_render(int argc, char **argv)
{
    const char *dir[1] = {NULL};
    const bitcts_cli_spec spec = {.cmd = "report render",
                                  .operands = "DIR",
                                  .max_operands = 1,
                                  .needs = "exactly one report folder",
                                  .description = render_description};
    const int parsed = bitcts_cli_parse(&spec, argc, argv, dir, NULL);
    if (parsed != 0) {
        return parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
    }
    const char *folder = dir[0];
    if (bitcts_fs_dir_state(folder) != 1) {
        return bitcts_cli_error("report render", "%s is not a report folder", folder);
    }
    char err[BITCTS_REPORT_ERROR_CAP + 4200] = "";
    json_t *report = NULL;
    if (bitcts_report_files_load(folder, &report, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error("report render", "%s", err);
    }
    const int st = bitcts_report_files_write_views(report, folder, err, sizeof err);
    json_decref(report);
    if (st != BITCTS_OK) {
        return bitcts_cli_error("report render", "%s", err);
    }
    fprintf(stderr, "rendered %s/junit.xml, report.html, summary.md\n", folder);
    return BITCTS_EXIT_OK;
}

/* ---- verdicts ---- */

static const char verdicts_description[] =
    "Prints the verdict table as JSON: every verdict with whether it fails a run, its rank in\n"
    "pass < warn < fail < timeout < crash (-1 outside it) and whether it is healthy, and the\n"
    "class report diff gives every change from one verdict to another (same, regression, fix,\n"
    "other). Tools that read reports take the meaning of a verdict from here.\n";

static int cmd_verdicts(int argc, char **argv)
{
    const bitcts_cli_spec spec = {.cmd = "report verdicts", .description = verdicts_description};
    const int parsed = bitcts_cli_parse(&spec, argc, argv, NULL, NULL);
    if (parsed != 0) {
        return parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
    }
    json_t *table = bitcts_report_verdict_table();
    char *text = table != NULL ? json_dumps(table, JSON_INDENT(1)) : NULL;
    json_decref(table);
    if (text == NULL) {
        return bitcts_cli_error("report verdicts", "out of memory");
    }
    puts(text);
    free(text);
    return BITCTS_EXIT_OK;
}

int bitcts_cmd_report(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(report_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? BITCTS_EXIT_USAGE : BITCTS_EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } actions[] = {{"diff", cmd_diff},
                   {"merge", cmd_merge},
                   {"render", cmd_render},
                   {"matrix", bitcts_cmd_report_matrix},
                   {"verify", bitcts_cmd_report_verify},
                   {"verdicts", cmd_verdicts}};
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; ++i) {
        if (strcmp(argv[1], actions[i].name) == 0) {
            return actions[i].run(argc - 1, argv + 1);
        }
    }
    return bitcts_cli_error(
        "report", "unknown action '%s' (diff, merge, render, matrix, verify, verdicts)", argv[1]);
}
