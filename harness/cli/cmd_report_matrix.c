/* SPDX-License-Identifier: MIT */
/* `bitcts report matrix`: the conformance matrix over several reports, one per framework or
 * backend (docs/check.md, "The matrix"), as Markdown and optionally HTML and JSON. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp */

#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "report_files.h"

static const char matrix_description[] =
    "Folds the reports (folders or report.json files; one per framework or backend, from\n"
    "'bitcts run' or 'bitcts check') into one table: operator x type -> pass, FAIL k/n, n/s\n"
    "(not supported) or recorded (with the shift policies seen for counts >= the width), each\n"
    "failing cell with its first deviation (case id, element, expected vs actual bits), the\n"
    "not-supported reasons and the negative cases. A column is named LABEL, or after the\n"
    "report's backend name and device. No output may be an input report or another output.\n";

typedef struct matrix_args {
    const char *md;
    const char *html;
    const char *json;
} matrix_args;

static const bitcts_cli_option matrix_options[] = {
    BITCTS_OPT_REQUIRED("--out", "FILE.md", offsetof(matrix_args, md), 0, "the matrix as Markdown"),
    BITCTS_OPT_TEXT("--html", "FILE", offsetof(matrix_args, html), 0,
                    "also the matrix as an HTML page"),
    BITCTS_OPT_TEXT("--json", "FILE", offsetof(matrix_args, json), 0, "also the matrix as JSON"),
};

/* The reports given as [LABEL=]PATH: LABEL=PATH when the part before '=' is a short name
 * without '/'. */
static void split_labels(const char *const *args, int n, const char **paths, const char **labels,
                         char (*label_store)[128])
{
    for (int k = 0; k < n; ++k) {
        const char *eq = strchr(args[k], '=');
        const size_t len = eq != NULL ? (size_t)(eq - args[k]) : 0;
        labels[k] = NULL;
        paths[k] = args[k];
        if (eq != NULL && len > 0 && len < sizeof label_store[0] &&
            memchr(args[k], '/', len) == NULL) {
            snprintf(label_store[k], sizeof label_store[k], "%.*s", (int)len, args[k]);
            labels[k] = label_store[k];
            paths[k] = eq + 1;
        }
    }
}

static int write_text(const char *path, const char *text, size_t size)
{
    char err[4400] = "";
    if (bitcts_fs_write_atomic(path, text, size, err, sizeof err) != 0) {
        return bitcts_cli_error("report matrix", "%s", err);
    }
    return 0;
}

static int render_to(const json_t *matrix, bitcts_report_format format, const char *path)
{
    char *text = NULL;
    size_t size = 0;
    if (bitcts_report_matrix_render(matrix, format, &text, &size) != BITCTS_OK) {
        return bitcts_cli_error("report matrix", "out of memory");
    }
    const int rc = write_text(path, text, size);
    free(text);
    return rc;
}

static int emit(const json_t *const *reports, const char *const *labels, int n, const char *md,
                const char *html, const char *json_path)
{
    json_t *matrix = NULL;
    if (bitcts_report_matrix(reports, labels, (size_t)n, &matrix) != BITCTS_OK) {
        return bitcts_cli_error("report matrix", "out of memory");
    }
    int rc = render_to(matrix, BITCTS_REPORT_FORMAT_MARKDOWN, md);
    if (rc == 0 && html != NULL) {
        rc = render_to(matrix, BITCTS_REPORT_FORMAT_HTML, html);
    }
    if (rc == 0 && json_path != NULL) {
        char *text = json_dumps(matrix, JSON_INDENT(1));
        rc = text != NULL ? write_text(json_path, text, strlen(text))
                          : bitcts_cli_error("report matrix", "out of memory");
        free(text);
    }
    json_decref(matrix);
    if (rc == 0) {
        fprintf(stderr, "wrote the matrix of %d reports to %s\n", n, md);
    }
    return rc;
}

int bitcts_cmd_report_matrix(int argc, char **argv)
{
    matrix_args a = {0};
    const char **args = calloc((size_t)argc + 1, sizeof *args);
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    const char **labels = calloc((size_t)argc + 1, sizeof *labels);
    char(*label_store)[128] = calloc((size_t)argc + 1, sizeof *label_store);
    json_t **reports = calloc((size_t)argc + 1, sizeof *reports);
    size_t n_args = 0;
    int n = 0, rc = 0;
    if (args == NULL || paths == NULL || labels == NULL || label_store == NULL || reports == NULL) {
        rc = bitcts_cli_error("report matrix", "out of memory");
        goto cleanup;
    }
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(matrix_options, &a)};
    const bitcts_cli_spec spec = {.cmd = "report matrix",
                                  .operands = "[LABEL=]REPORT...",
                                  .max_operands = (size_t)argc,
                                  .description = matrix_description,
                                  .tables = tables,
                                  .table_count = 1};
    rc = bitcts_cli_parse(&spec, argc, argv, args, &n_args);
    if (rc != 0) {
        rc = rc == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : rc;
        goto cleanup;
    }
    n = (int)n_args;
    split_labels(args, n, paths, labels, label_store);
    const char *md = a.md, *html = a.html, *json_path = a.json;
    if (rc == 0 && (md == NULL || n == 0)) {
        rc = bitcts_cli_error("report matrix", "--out FILE.md and at least one report are needed");
    }
    if (rc == 0) {
        const char *const outputs[] = {md, html, json_path};
        const char *const names[] = {"--out", "--html", "--json"};
        rc = bitcts_cli_outputs_apart("report matrix", outputs, names, 3, paths, n);
    }
    for (int k = 0; rc == 0 && k < n; ++k) {
        char err[BITCTS_REPORT_ERROR_CAP + 4200] = "";
        if (bitcts_report_files_load(paths[k], &reports[k], err, sizeof err) != BITCTS_OK) {
            rc = bitcts_cli_error("report matrix", "%s", err);
        }
    }
    if (rc == 0) {
        rc = emit((const json_t *const *)reports, labels, n, md, html, json_path);
    }
cleanup:
    for (int k = 0; reports != NULL && k < n; ++k) {
        json_decref(reports[k]);
    }
    free(reports);
    free(label_store);
    free(labels);
    free(paths);
    free(args);
    return rc;
}
