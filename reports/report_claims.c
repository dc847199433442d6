/* SPDX-License-Identifier: MIT */
/* The conformance claim of a `run --claimed` report (report.json "claims") in every view: one
 * line per operator (the type pairs claimed and their results; the ones the feature level
 * requires that the backend does not claim, with their case count) and, where there is room,
 * the table by operator and input/output type. A report without "claims" shows nothing. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* strcmp */

#include "report_render.h"

#define CLAIM_TYPES_SHOWN 12 /* type pairs named in one line; more are counted */

static json_int_t claim_int(const json_t *row, const char *key)
{
    return json_integer_value(json_object_get(row, key));
}

/* "uint8", or "uint8->uint32" when the output type differs. */
static void type_pair(const json_t *row, char *out, size_t cap)
{
    const char *in = bitcts_report_str(row, "input_type");
    const char *out_type = bitcts_report_str(row, "output_type");
    snprintf(out, cap, strcmp(in, out_type) == 0 ? "%s" : "%s->%s", in, out_type);
}

/* The first row of operator k (operators in the order the rows first name them), or -1. */
static long claim_operator_row(const json_t *rows, size_t k)
{
    size_t seen = 0;
    for (size_t i = 0; i < json_array_size(rows); ++i) {
        const char *op = bitcts_report_str(json_array_get(rows, i), "operator");
        size_t j = 0;
        while (j < i && strcmp(bitcts_report_str(json_array_get(rows, j), "operator"), op) != 0) {
            ++j;
        }
        if (j == i && seen++ == k) {
            return (long)i;
        }
    }
    return -1;
}

int bitcts__report_claim_line(const json_t *report, size_t k, char *out, size_t cap)
{
    const json_t *rows = json_object_get(json_object_get(report, "claims"), "rows");
    const long first = claim_operator_row(rows, k);
    if (first < 0) {
        return 0;
    }
    const char *op = bitcts_report_str(json_array_get(rows, (size_t)first), "operator");
    size_t pairs = 0, claimed = 0, run = 0, passed = 0, left = 0, left_pairs = 0;
    char names[600] = "";
    for (size_t i = (size_t)first; i < json_array_size(rows); ++i) {
        const json_t *row = json_array_get(rows, i);
        if (strcmp(bitcts_report_str(row, "operator"), op) != 0) {
            continue;
        }
        ++pairs;
        claimed += claim_int(row, "claimed") > 0;
        run += (size_t)claim_int(row, "run");
        passed += (size_t)claim_int(row, "passed");
        if (claim_int(row, "required_not_claimed") > 0) {
            left += (size_t)claim_int(row, "required_not_claimed");
            char pair[80];
            type_pair(row, pair, sizeof pair);
            const size_t used = strlen(names);
            if (left_pairs++ < CLAIM_TYPES_SHOWN) {
                snprintf(names + used, sizeof names - used, "%s%s", used > 0 ? ", " : "", pair);
            }
        }
    }
    int n = claimed == 0 ? snprintf(out, cap, "%s: not claimed", op)
                         : snprintf(out, cap,
                                    "%s: claimed on %zu of %zu type pairs: %zu cases run, %zu "
                                    "passed",
                                    op, claimed, pairs, run, passed);
    if (left > 0 && n >= 0 && (size_t)n < cap) {
        snprintf(out + n, cap - (size_t)n, "; the feature level %s it on %s%s (%zu cases), not run",
                 claimed == 0 ? "requires" : "also requires", names,
                 left_pairs > CLAIM_TYPES_SHOWN ? ", ..." : "", left);
    }
    return 1;
}

void bitcts__report_claims_heading(char *out, size_t cap, const json_t *report)
{
    const json_t *claims = json_object_get(report, "claims");
    snprintf(out, cap,
             "conformance claim (run --claimed; the backend claims feature level %s): %lld "
             "cases the feature level requires are not claimed and were not run",
             bitcts_report_str(claims, "feature_level"),
             (long long)claim_int(claims, "required_not_claimed"));
}

/* The table's cells of one row, in column order. */
static const char *const claim_columns[] = {
    "selected", "required", "claimed", "run", "passed", "not_claimed", "required_not_claimed"};

/* The markup of one view around the claim's pieces. */
typedef struct claim_markup {
    void (*esc)(sbuf *, const char *);      /* for the lines */
    void (*esc_cell)(sbuf *, const char *); /* for the text cells */
    const char *heading, *heading_end;      /* around the heading line */
    const char *item, *item_end;            /* around an operator's line */
    const char *table;                      /* after the lines: the table and its text columns */
    const char *th, *th_end;                /* around a number column's name */
    const char *head_end;                   /* after the header row */
    const char *row, *sep, *text_end;       /* a row's text cells: before, between, after */
    const char *num, *num_end;              /* around a number cell */
    const char *row_end, *end;
} claim_markup;

static void claims_section(sbuf *b, const json_t *report, const claim_markup *m)
{
    const json_t *rows = json_object_get(json_object_get(report, "claims"), "rows");
    if (rows == NULL) {
        return;
    }
    char line[1200];
    bitcts__report_claims_heading(line, sizeof line, report);
    sb_seq(b, m->esc, m->heading, line, m->heading_end, NULL);
    for (size_t k = 0; bitcts__report_claim_line(report, k, line, sizeof line); ++k) {
        sb_seq(b, m->esc, m->item, line, m->item_end, NULL);
    }
    sb_puts(b, m->table);
    for (size_t c = 0; c < sizeof claim_columns / sizeof claim_columns[0]; ++c) {
        sb_seq(b, sb_esc_text, m->th, claim_columns[c], m->th_end, NULL);
    }
    sb_puts(b, m->head_end);
    for (size_t i = 0; i < json_array_size(rows); ++i) {
        const json_t *row = json_array_get(rows, i);
        sb_seq(b, m->esc_cell, m->row, bitcts_report_str(row, "operator"), m->sep,
               bitcts_report_str(row, "input_type"), m->sep, bitcts_report_str(row, "output_type"),
               m->text_end, NULL);
        for (size_t c = 0; c < sizeof claim_columns / sizeof claim_columns[0]; ++c) {
            sb_printf(b, "%s%lld", m->num, (long long)claim_int(row, claim_columns[c]));
            sb_puts(b, m->num_end);
        }
        sb_puts(b, m->row_end);
    }
    sb_puts(b, m->end);
}

void bitcts__report_claims_markdown(sbuf *b, const json_t *report)
{
    static const claim_markup md = {
        .esc = sb_md,
        .esc_cell = sb_md_cell,
        .heading = "## Conformance claim\n\n",
        .heading_end = "\n\n",
        .item = "- ",
        .item_end = "\n",
        .table = "\n| operator | input | output |",
        .th = " ",
        .th_end = " |",
        .head_end = "\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
        .row = "| ",
        .sep = " | ",
        .text_end = " |",
        .num = " ",
        .num_end = " |",
        .row_end = "\n",
        .end = "\n",
    };
    claims_section(b, report, &md);
}

void bitcts__report_claims_html(sbuf *b, const json_t *report)
{
    static const claim_markup html = {
        .esc = sb_esc_text,
        .esc_cell = sb_esc_text,
        .heading = "<h2 id=\"claims\">Conformance claim</h2>\n<p>",
        .heading_end = "</p>\n<ul>\n",
        .item = "<li>",
        .item_end = "</li>\n",
        .table = "</ul>\n<table>\n<tr><th>operator</th><th>input</th><th>output</th>",
        .th = "<th class=\"n\">",
        .th_end = "</th>",
        .head_end = "</tr>\n",
        .row = "<tr><td>",
        .sep = "</td><td>",
        .text_end = "</td>",
        .num = "<td class=\"n\">",
        .num_end = "</td>",
        .row_end = "</tr>\n",
        .end = "</table>\n",
    };
    claims_section(b, report, &html);
}
