/* SPDX-License-Identifier: MIT */
/* `bitcts report matrix`: the conformance matrix over several reports, one per framework or
 * backend (docs/check.md, "The matrix"), as Markdown and optionally HTML and JSON. */
#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp */

#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "report_files.h"

static const char matrix_usage[] =
    "usage: bitcts report matrix --out FILE.md [--html FILE] [--json FILE] [LABEL=]REPORT...\n"
    "\n"
    "Folds the reports (folders or report.json files; one per framework or backend, from\n"
    "'bitcts run' or 'bitcts check') into one table: operator x type -> pass, FAIL k/n, n/s\n"
    "(not supported) or recorded (with the shift policies seen for counts >= the width), each\n"
    "failing cell with its first deviation (case id, element, expected vs actual bits), the\n"
    "not-supported reasons and the negative cases. A column is named LABEL, or after the\n"
    "report's backend name and device. No output may be an input report or another output.\n";

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
    const char *md = NULL, *html = NULL, *json_path = NULL;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    const char **labels = calloc((size_t)argc + 1, sizeof *labels);
    char(*label_store)[128] = calloc((size_t)argc + 1, sizeof *label_store);
    json_t **reports = calloc((size_t)argc + 1, sizeof *reports);
    int n = 0, rc = 0;
    if (paths == NULL || labels == NULL || label_store == NULL || reports == NULL) {
        rc = bitcts_cli_error("report matrix", "out of memory");
        goto cleanup;
    }
    for (int i = 1; i < argc && rc == 0; ++i) {
        const char *v = NULL;
        int r = 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(matrix_usage, stdout);
            goto cleanup;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--out", &v)) != 0) {
            rc = r < 0 ? bitcts_cli_error("report matrix", "--out needs a file") : 0;
            md = v;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--html", &v)) != 0) {
            rc = r < 0 ? bitcts_cli_error("report matrix", "--html needs a file") : 0;
            html = v;
        } else if ((r = bitcts_cli_option(argc, argv, &i, "--json", &v)) != 0) {
            rc = r < 0 ? bitcts_cli_error("report matrix", "--json needs a file") : 0;
            json_path = v;
        } else if (argv[i][0] == '-') {
            rc = bitcts_cli_error("report matrix",
                                  "unknown argument '%s' (see bitcts report matrix --help)",
                                  argv[i]);
        } else {
            /* LABEL=PATH when the part before '=' is a short name without '/'. */
            const char *eq = strchr(argv[i], '=');
            const size_t len = eq != NULL ? (size_t)(eq - argv[i]) : 0;
            if (eq != NULL && len > 0 && len < sizeof label_store[0] &&
                memchr(argv[i], '/', len) == NULL) {
                snprintf(label_store[n], sizeof label_store[n], "%.*s", (int)len, argv[i]);
                labels[n] = label_store[n];
                paths[n++] = eq + 1;
            } else {
                labels[n] = NULL;
                paths[n++] = argv[i];
            }
        }
    }
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
    return rc;
}
