/* SPDX-License-Identifier: MIT */
/* The conformance matrix (docs/check.md, "The matrix"): several validated reports, one per
 * framework or backend, folded into operator x type rows and one column per report; each cell
 * says pass, fail, not supported or recorded (with the shift policies seen), and a failing cell
 * keeps its first deviation. Negative cases are counted apart: they say nothing about a type.
 * Rendered as Markdown and HTML. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp */

#include "report.h"
#include "report_sbuf.h"

/* The row key of a case id: "<op>" and "<type>" ("<in>-><out>" for bit_count); 0 when the id
 * has too few components or is a negative case. */
static int row_key(const char *id, char *op, size_t op_cap, char *type, size_t type_cap)
{
    if (strstr(id, ".invalid_") != NULL) {
        return 0;
    }
    const char *d1 = strchr(id, '.');
    const char *d2 = d1 != NULL ? strchr(d1 + 1, '.') : NULL;
    const char *d3 = d2 != NULL ? strchr(d2 + 1, '.') : NULL;
    if (d2 == NULL || d3 == NULL) {
        return 0;
    }
    snprintf(op, op_cap, "%.*s", (int)(d1 - id), id);
    if (strcmp(op, "bit_count") == 0) {
        snprintf(type, type_cap, "%.*s->%.*s", (int)(d2 - d1 - 1), d1 + 1, (int)(d3 - d2 - 1),
                 d2 + 1);
    } else {
        snprintf(type, type_cap, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
    }
    return 1;
}

static json_t *find_row(json_t *rows, const char *op, const char *type, size_t columns)
{
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        if (strcmp(bitcts_report_str(row, "operator"), op) == 0 &&
            strcmp(bitcts_report_str(row, "type"), type) == 0) {
            return row;
        }
    }
    json_t *cells = json_array();
    for (size_t c = 0; c < columns; ++c) {
        json_array_append_new(cells, json_pack("{s:o, s:[], s:n, s:s}", "counts", json_object(),
                                               "policies", "first", "reason", ""));
    }
    row = json_pack("{s:s, s:s, s:o}", "operator", op, "type", type, "cells", cells);
    json_array_append_new(rows, row);
    return row;
}

static void count_into(json_t *counts, const char *key)
{
    json_object_set_new(counts, key,
                        json_integer(json_integer_value(json_object_get(counts, key)) + 1));
}

/* Adds one case to its cell. */
static void add_case(json_t *cell, const json_t *c)
{
    const char *verdict = bitcts_report_str(c, "verdict");
    count_into(json_object_get(cell, "counts"), verdict);
    const int v = bitcts_verdict_parse(verdict);
    if (v == BITCTS_VERDICT_RECORDED) {
        json_t *policies = json_object_get(cell, "policies");
        const char *policy = bitcts_report_str(c, "policy");
        size_t i;
        json_t *p;
        int seen = 0;
        json_array_foreach(policies, i, p)
        {
            seen |= strcmp(json_string_value(p), policy) == 0;
        }
        if (!seen) {
            json_array_append_new(policies, json_string(policy));
        }
    }
    if (v == BITCTS_VERDICT_NOT_SUPPORTED && bitcts_report_str(cell, "reason")[0] == '\0') {
        json_object_set_new(cell, "reason", json_string(bitcts_report_str(c, "detail")));
    }
    if (bitcts_verdict_is_failure(v) && json_is_null(json_object_get(cell, "first"))) {
        const json_t *failure = json_object_get(c, "failure");
        json_t *first = json_pack("{s:s, s:s, s:s}", "id", bitcts_report_str(c, "id"), "verdict",
                                  verdict, "detail", bitcts_report_str(c, "detail"));
        if (json_is_object(failure)) {
            json_object_set(first, "mismatch", json_object_get(failure, "first"));
            json_object_set(first, "mismatches", json_object_get(failure, "mismatches"));
            json_object_set(first, "elements", json_object_get(failure, "elements"));
        }
        json_object_set_new(cell, "first", first);
    }
}

static size_t count_of(const json_t *cell, const char *verdict)
{
    return (size_t)json_integer_value(json_object_get(json_object_get(cell, "counts"), verdict));
}

/* The cell's state and its one-line text. */
static void finish_cell(json_t *cell)
{
    const json_t *counts = json_object_get(cell, "counts");
    size_t total = 0, failing = 0;
    const char *key;
    const json_t *n;
    json_object_foreach((json_t *)counts, key, n)
    {
        total += (size_t)json_integer_value(n);
        failing += bitcts_verdict_is_failure(bitcts_verdict_parse(key))
                       ? (size_t)json_integer_value(n)
                       : 0;
    }
    const size_t ns = count_of(cell, "not_supported");
    const size_t recorded = count_of(cell, "recorded");
    const size_t warn = count_of(cell, "warn");
    char text[200] = "", tail[64] = "";
    const char *state;
    if (ns > 0 && ns < total) {
        snprintf(tail, sizeof tail, " (n/s %zu)", ns);
    }
    if (total == 0) {
        state = "none";
        snprintf(text, sizeof text, "-");
    } else if (failing > 0) {
        state = "fail";
        snprintf(text, sizeof text, "FAIL %zu/%zu%s", failing, total, tail);
    } else if (ns == total) {
        state = "not_supported";
        snprintf(text, sizeof text, "n/s");
    } else if (recorded > 0) {
        state = "recorded";
        size_t used = (size_t)snprintf(text, sizeof text, "pass, >=w: ");
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(cell, "policies"), i, p)
        {
            used += (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0,
                                     "%s%s", i > 0 ? "+" : "", json_string_value(p));
        }
        snprintf(text + (used < sizeof text ? used : sizeof text - 1),
                 used < sizeof text ? sizeof text - used : 1, "%s", tail);
    } else {
        state = "pass";
        if (warn > 0) {
            snprintf(text, sizeof text, "pass (warn %zu)%s", warn, tail);
        } else {
            snprintf(text, sizeof text, "pass%s", tail);
        }
    }
    json_object_set_new(cell, "state", json_string(state));
    json_object_set_new(cell, "text", json_string(text));
    json_object_set_new(cell, "cases", json_integer((json_int_t)total));
    json_object_set_new(cell, "failing", json_integer((json_int_t)failing));
}

static json_t *column_json(const json_t *r, const char *label)
{
    const json_t *backend = json_object_get(r, "backend");
    const json_t *info = json_object_get(backend, "info");
    char name[300];
    const char *device = bitcts_report_str(info, "device");
    if (device[0] == '\0') { /* a report of bitcts run: the CPU backend's variant, if any */
        device = bitcts_report_str(info, "variant");
    }
    if (label != NULL && label[0] != '\0') {
        snprintf(name, sizeof name, "%s", label);
    } else if (device[0] != '\0') {
        snprintf(name, sizeof name, "%s (%s)", bitcts_report_str(backend, "name"), device);
    } else {
        snprintf(name, sizeof name, "%s", bitcts_report_str(backend, "name"));
    }
    /* The tiers the report ran: a smoke column (a few cases a cell) and a default one (many)
     * are told apart. */
    const char *tier = bitcts_report_str(json_object_get(r, "selection"), "tier");
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:O}", "label", name, "name",
                     bitcts_report_str(backend, "name"), "version",
                     bitcts_report_str(backend, "version"), "device", device, "tier", tier, "seed",
                     bitcts_report_str(r, "seed"), "info",
                     json_is_object(info) ? info : json_object());
}

bitcts_status bitcts_report_matrix(const json_t *const *reports, const char *const *labels,
                                   size_t count, json_t **out)
{
    if (reports == NULL || out == NULL || count == 0) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    json_t *columns = json_array();
    json_t *rows = json_array();
    json_t *negative = json_array();
    for (size_t k = 0; k < count; ++k) {
        json_array_append_new(columns, column_json(reports[k], labels != NULL ? labels[k] : NULL));
        json_t *neg = json_object();
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(reports[k], "cases"), i, c)
        {
            char op[64], type[96];
            if (!row_key(bitcts_report_str(c, "id"), op, sizeof op, type, sizeof type)) {
                count_into(neg, bitcts_report_str(c, "verdict"));
                continue;
            }
            add_case(json_array_get(json_object_get(find_row(rows, op, type, count), "cells"), k),
                     c);
        }
        json_array_append_new(negative, neg);
    }
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        size_t k;
        json_t *cell;
        json_array_foreach(json_object_get(row, "cells"), k, cell)
        {
            finish_cell(cell);
        }
    }
    *out = json_pack("{s:s, s:s, s:o, s:o, s:o}", "schema", "bitcts-matrix", "schema_version",
                     "1.0", "columns", columns, "rows", rows, "negative", negative);
    return *out != NULL ? BITCTS_OK : BITCTS_E_OUT_OF_MEMORY;
}

/* ---- rendering ---- */

/* How first_deviation writes: Markdown, HTML text, or plain text (for an attribute, which the
 * caller escapes). */
enum { DEVIATION_MD, DEVIATION_HTML, DEVIATION_PLAIN };

/* The first deviation of a failing cell in words: case, element, inputs, expected vs got. */
static void first_deviation(sbuf *b, const json_t *first, int mode)
{
    void (*esc)(sbuf *, const char *) = mode == DEVIATION_HTML ? sb_esc_text
                                        : mode == DEVIATION_MD ? sb_md
                                                               : sb_puts;
    const json_t *m = json_object_get(first, "mismatch");
    sb_puts(b, "first: ");
    if (mode == DEVIATION_HTML) {
        sb_puts(b, "<code>");
        sb_esc_text(b, bitcts_report_str(first, "id"));
        sb_puts(b, "</code>");
    } else if (mode == DEVIATION_MD) {
        sb_md_code(b, bitcts_report_str(first, "id"));
    } else {
        sb_puts(b, bitcts_report_str(first, "id"));
    }
    if (!json_is_object(m)) {
        sb_seq(b, esc, " (", bitcts_report_str(first, "verdict"),
               "): ", bitcts_report_str(first, "detail"), NULL);
        return;
    }
    sb_printf(b, ", %lld of %lld elements differ; element %lld [",
              (long long)json_integer_value(json_object_get(first, "mismatches")),
              (long long)json_integer_value(json_object_get(first, "elements")),
              (long long)json_integer_value(json_object_get(m, "index")));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(m, "coords"), i, v)
    {
        sb_printf(b, "%s%lld", i > 0 ? ", " : "", (long long)json_integer_value(v));
    }
    sb_puts(b, "], inputs ");
    const json_t *inputs = json_object_get(m, "inputs");
    json_array_foreach(inputs, i, v)
    {
        sb_puts(b, i > 0 ? ", " : "");
        esc(b, json_string_value(v));
    }
    sb_seq(b, esc, ": expected ", bitcts_report_str(m, "expected"), " (",
           bitcts_report_str(m, "expected_bin"), "), got ", bitcts_report_str(m, "actual"), " (",
           bitcts_report_str(m, "actual_bin"), ")", NULL);
}

/* A cell as rendered: its text and its case count, "pass (7)", unless the text gives the count
 * already ("FAIL k/n") or the cell is empty ("-"). */
static const char *cell_text(const json_t *cell, char *out, size_t cap)
{
    const char *text = bitcts_report_str(cell, "text");
    const json_int_t cases = json_integer_value(json_object_get(cell, "cases"));
    if (cases == 0 || strcmp(bitcts_report_str(cell, "state"), "fail") == 0) {
        snprintf(out, cap, "%s", text);
    } else {
        snprintf(out, cap, "%s (%lld)", text, (long long)cases);
    }
    return out;
}

/* A table cell in code, or "-" when empty. */
static void md_cell(sbuf *b, const char *text)
{
    if (text[0] == '\0') {
        sb_puts(b, "-");
    } else {
        sb_md_cell(b, text);
    }
}

static void render_columns_md(sbuf *b, const json_t *columns)
{
    size_t k;
    json_t *col;
    sb_puts(b, "| framework | version | device | tier | Python | NumPy | seed |\n"
               "|---|---|---|---|---|---|---|\n");
    json_array_foreach(columns, k, col)
    {
        const json_t *info = json_object_get(col, "info");
        sb_seq(b, md_cell, "| ", bitcts_report_str(col, "label"), " | ",
               bitcts_report_str(col, "version"), " | ", bitcts_report_str(col, "device"), " | ",
               bitcts_report_str(col, "tier"), " | ", bitcts_report_str(info, "python"), " | ",
               bitcts_report_str(info, "numpy"), " | ", bitcts_report_str(col, "seed"), " |\n",
               NULL);
    }
}

/* The distinct not-supported reasons of column k, each with the rows whose first reason it is.
 * @return the number of reasons listed. */
static size_t render_reasons(sbuf *b, const json_t *rows, size_t k, const char *label)
{
    size_t listed = 0;
    size_t i, j;
    json_t *row, *other;
    json_array_foreach(rows, i, row)
    {
        const char *reason =
            bitcts_report_str(json_array_get(json_object_get(row, "cells"), k), "reason");
        int seen = reason[0] == '\0';
        for (j = 0; j < i && !seen; ++j) {
            other = json_array_get(rows, j);
            seen = strcmp(bitcts_report_str(json_array_get(json_object_get(other, "cells"), k),
                                            "reason"),
                          reason) == 0;
        }
        if (seen) {
            continue;
        }
        ++listed;
        sb_puts(b, "* ");
        sb_md(b, label);
        sb_puts(b, ": ");
        sb_md(b, reason);
        sb_puts(b, " (");
        int first = 1;
        for (j = i; j < json_array_size(rows); ++j) {
            other = json_array_get(rows, j);
            if (strcmp(
                    bitcts_report_str(json_array_get(json_object_get(other, "cells"), k), "reason"),
                    reason) == 0) {
                sb_puts(b, first ? "" : ", ");
                sb_md(b, bitcts_report_str(other, "operator"));
                sb_puts(b, " ");
                sb_md(b, bitcts_report_str(other, "type"));
                first = 0;
            }
        }
        sb_puts(b, ")\n");
    }
    return listed;
}

/* Every failing cell with its first deviation. */
static void render_failures_md(sbuf *b, const json_t *columns, const json_t *rows)
{
    size_t k, i;
    json_t *row, *cell;
    sb_puts(b, "\n## Failures: the first deviation of each failing cell\n\n");
    size_t listed = 0;
    json_array_foreach(rows, i, row)
    {
        json_array_foreach(json_object_get(row, "cells"), k, cell)
        {
            if (strcmp(bitcts_report_str(cell, "state"), "fail") != 0) {
                continue;
            }
            ++listed;
            sb_seq(b, sb_md, "* **", bitcts_report_str(json_array_get(columns, k), "label"), " / ",
                   bitcts_report_str(row, "operator"), " / ", bitcts_report_str(row, "type"), NULL);
            sb_printf(b, "**: %lld of %lld cases fail; ",
                      (long long)json_integer_value(json_object_get(cell, "failing")),
                      (long long)json_integer_value(json_object_get(cell, "cases")));
            first_deviation(b, json_object_get(cell, "first"), DEVIATION_MD);
            sb_puts(b, "\n");
        }
    }
    if (listed == 0) {
        sb_puts(b, "None.\n");
    }
}

static void render_notes_md(sbuf *b, const json_t *m);

static void render_markdown(sbuf *b, const json_t *m)
{
    const json_t *columns = json_object_get(m, "columns");
    const json_t *rows = json_object_get(m, "rows");
    size_t k, i;
    json_t *col, *row, *cell;
    sb_puts(b, "## Frameworks\n\n");
    render_columns_md(b, columns);
    sb_puts(b, "\n## Operator x type\n\n`pass`: every case bit-exact; `FAIL k/n`: k of n cases "
               "fail; `n/s`: not supported (the reason below); `>=w: P`: shift counts >= the "
               "width behave as policy P (mask: the count taken modulo the width; saturate: 0; "
               "other: neither), recorded, not asserted; `(n)`: the cell's n cases. A column "
               "is headed by its tier.\n\n| operator | type |");
    json_array_foreach(columns, k, col)
    {
        sb_seq(b, sb_md_cell, " ", bitcts_report_str(col, "label"), " [",
               bitcts_report_str(col, "tier"), "] |", NULL);
    }
    sb_puts(b, "\n|---|---|");
    for (k = 0; k < json_array_size(columns); ++k) {
        sb_puts(b, "---|");
    }
    sb_puts(b, "\n");
    json_array_foreach(rows, i, row)
    {
        sb_seq(b, sb_md_cell, "| ", bitcts_report_str(row, "operator"), " | ",
               bitcts_report_str(row, "type"), " |", NULL);
        json_array_foreach(json_object_get(row, "cells"), k, cell)
        {
            char text[240];
            sb_seq(b, sb_md, " ", cell_text(cell, text, sizeof text), " |", NULL);
        }
        sb_puts(b, "\n");
    }
    render_failures_md(b, columns, rows);
    render_notes_md(b, m);
}

/* The not-supported reasons and the negative cases. */
static void render_notes_md(sbuf *b, const json_t *m)
{
    const json_t *columns = json_object_get(m, "columns");
    const json_t *rows = json_object_get(m, "rows");
    size_t k;
    json_t *col;
    sb_puts(b, "\n## Not supported: the reasons given, with the cells they cover\n\n");
    size_t listed = 0;
    json_array_foreach(columns, k, col)
    {
        listed += render_reasons(b, rows, k, bitcts_report_str(col, "label"));
    }
    if (listed == 0) {
        sb_puts(b, "None.\n");
    }
    sb_puts(b, "\n## Negative cases (descriptions that must be rejected)\n\n");
    json_array_foreach(columns, k, col)
    {
        sb_seq(b, sb_md, "* ", bitcts_report_str(col, "label"), ":", NULL);
        const char *key;
        json_t *n;
        int any = 0;
        json_object_foreach(json_array_get(json_object_get(m, "negative"), k), key, n)
        {
            sb_printf(b, "%s %lld ", any ? "," : "", (long long)json_integer_value(n));
            sb_md(b, key);
            any = 1;
        }
        sb_puts(b, any ? "\n" : " none\n");
    }
}

/* Every failing cell with its first deviation, as an HTML list. */
static void render_failures_html(sbuf *b, const json_t *columns, const json_t *rows)
{
    size_t k, i;
    json_t *row, *cell;
    sb_puts(b, "<h2>Failures: the first deviation of each failing cell</h2>\n<ul>\n");
    json_array_foreach(rows, i, row)
    {
        json_array_foreach(json_object_get(row, "cells"), k, cell)
        {
            if (strcmp(bitcts_report_str(cell, "state"), "fail") == 0) {
                sb_puts(b, "<li><b>");
                sb_esc_text(b, bitcts_report_str(json_array_get(columns, k), "label"));
                sb_puts(b, " / ");
                sb_esc_text(b, bitcts_report_str(row, "operator"));
                sb_puts(b, " / ");
                sb_esc_text(b, bitcts_report_str(row, "type"));
                sb_puts(b, "</b>: ");
                first_deviation(b, json_object_get(cell, "first"), DEVIATION_HTML);
                sb_puts(b, "</li>\n");
            }
        }
    }
    sb_puts(b, "</ul>\n");
}

/* The page's head, its style (a class a cell state) and the table's first header cells. */
static const char matrix_page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<title>bitcts conformance matrix</title><style>"
    "body{font-family:sans-serif}table{border-collapse:collapse}"
    "td,th{border:1px solid #999;padding:2px 6px;font-size:13px}"
    ".pass{background:#dfd}.fail{background:#fbb}.not_supported{background:#eee}"
    ".recorded{background:#ffd}</style></head><body>\n"
    "<h1>bitcts conformance matrix</h1>\n<table><tr><th>operator</th><th>type</th>";

/* The page up to the table's header row, one column a report. */
static void render_head_html(sbuf *b, const json_t *columns)
{
    size_t k;
    json_t *col;
    sb_puts(b, matrix_page_head);
    json_array_foreach(columns, k, col)
    {
        sb_seq(b, sb_esc_text, "<th>", bitcts_report_str(col, "label"), "<br>",
               bitcts_report_str(col, "version"), "<br>tier ", bitcts_report_str(col, "tier"),
               "</th>", NULL);
    }
    sb_puts(b, "</tr>\n");
}

static void render_html(sbuf *b, const json_t *m)
{
    const json_t *columns = json_object_get(m, "columns");
    size_t k, i;
    json_t *row, *cell;
    render_head_html(b, columns);
    json_array_foreach(json_object_get(m, "rows"), i, row)
    {
        sb_seq(b, sb_esc_text, "<tr><td>", bitcts_report_str(row, "operator"), "</td><td>",
               bitcts_report_str(row, "type"), "</td>", NULL);
        json_array_foreach(json_object_get(row, "cells"), k, cell)
        {
            sb_puts(b, "<td class=\"");
            sb_esc(b, bitcts_report_str(cell, "state"), 1);
            sb_puts(b, "\" title=\"");
            if (!json_is_null(json_object_get(cell, "first"))) {
                sbuf why = {0};
                first_deviation(&why, json_object_get(cell, "first"), DEVIATION_PLAIN);
                sb_esc(b, why.data != NULL ? why.data : "", 1);
                free(why.data);
            } else {
                sb_esc(b, bitcts_report_str(cell, "reason"), 1);
            }
            sb_puts(b, "\">");
            char text[240];
            sb_esc_text(b, cell_text(cell, text, sizeof text));
            sb_puts(b, "</td>");
        }
        sb_puts(b, "</tr>\n");
    }
    sb_puts(b, "</table>\n");
    render_failures_html(b, columns, json_object_get(m, "rows"));
    sb_puts(b, "</body></html>\n");
}

bitcts_status bitcts_report_matrix_render(const json_t *matrix, bitcts_report_format format,
                                          char **out, size_t *size)
{
    if (matrix == NULL || out == NULL ||
        (format != BITCTS_REPORT_FORMAT_MARKDOWN && format != BITCTS_REPORT_FORMAT_HTML)) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    sbuf b = {0};
    if (format == BITCTS_REPORT_FORMAT_MARKDOWN) {
        render_markdown(&b, matrix);
    } else {
        render_html(&b, matrix);
    }
    if (b.failed || b.data == NULL) {
        free(b.data);
        *out = NULL;
        return BITCTS_E_OUT_OF_MEMORY;
    }
    *out = b.data;
    if (size != NULL) {
        *size = b.len;
    }
    return BITCTS_OK;
}
