/* SPDX-License-Identifier: MIT */
/* The JUnit XML view of a report: first, when cases fail, a testsuite "bitcts.analysis" with no
 * testcases whose properties and output hold the analysis (report_analysis.h); then one
 * testsuite per operator, one testcase per case; failing verdicts are failures (their evidence
 * includes the case's description), not_supported, skipped and not_run are skipped, the rest
 * carry their evidence as output. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strlen */

#include "report_render.h"

/* The verdicts JUnit shows as skipped: the case was not judged. */
static int junit_skipped(int v)
{
    return v == BITCTS_VERDICT_NOT_SUPPORTED || v == BITCTS_VERDICT_SKIPPED ||
           v == BITCTS_VERDICT_NOT_RUN;
}

static size_t skipped_of(const size_t *counts)
{
    return counts[BITCTS_VERDICT_NOT_SUPPORTED] + counts[BITCTS_VERDICT_SKIPPED] +
           counts[BITCTS_VERDICT_NOT_RUN];
}

static void junit_properties(sbuf *b, const json_t *r)
{
    const json_t *backend = json_object_get(r, "backend");
    const char *const props[][2] = {
        {"seed", bitcts_report_str(r, "seed")},
        {"backend", bitcts_report_str(backend, "name")},
        {"backend.vendor", bitcts_report_str(backend, "vendor")},
        {"backend.version", bitcts_report_str(backend, "version")},
        {"backend.library_xxh3_128", bitcts_report_str(backend, "library_xxh3_128")},
        {"backend.feature_level", bitcts_report_str(backend, "feature_level")},
        {"suite_version", bitcts_report_str(r, "suite_version")},
        {"suite_commit", bitcts_report_str(r, "suite_commit")},
        {"shard", bitcts_report_str(json_object_get(r, "selection"), "shard")},
        {"stopped", bitcts_report_str(r, "stopped")}, /* "" unless a stop rule ended the run */
        {"retried", bitcts_report_str(r, "retried")}, /* "" unless --retry-cases left some */
    };
    sb_puts(b, "    <properties>\n");
    for (size_t i = 0; i < sizeof props / sizeof props[0]; ++i) {
        sb_printf(b, "      <property name=\"%s\" value=\"", props[i][0]);
        sb_esc(b, props[i][1], 1);
        sb_puts(b, "\"/>\n");
    }
    char line[1200];
    if (json_object_get(r, "claims") != NULL) { /* run --claimed: the conformance claim */
        bitcts__report_claims_heading(line, sizeof line, r);
        sb_puts(b, "      <property name=\"claims\" value=\"");
        sb_esc(b, line, 1);
        sb_puts(b, "\"/>\n");
    }
    for (size_t k = 0; bitcts__report_claim_line(r, k, line, sizeof line); ++k) {
        sb_printf(b, "      <property name=\"claims.%zu\" value=\"", k);
        sb_esc(b, line, 1);
        sb_puts(b, "\"/>\n");
    }
    sb_puts(b, "    </properties>\n");
}

static void junit_case(sbuf *b, const char *op, const json_t *c)
{
    const int v = bitcts_report_case_verdict(c);
    const char *name = bitcts_verdict_name(v);
    const char *detail = bitcts_report_str(c, "detail");
    sb_puts(b, "    <testcase classname=\"bitcts.");
    sb_esc(b, op, 1);
    sb_puts(b, "\" name=\"");
    sb_esc(b, bitcts_report_str(c, "id"), 1);
    sb_printf(b, "\" time=\"%.6f\"%s>\n", bitcts_report_num(c, "duration_ms") / 1000.0,
              v == BITCTS_VERDICT_PASS ? "/" : "");
    if (v == BITCTS_VERDICT_PASS) {
        return;
    }
    sbuf text = {0};
    bitcts__report_case_evidence(&text, c);
    b->failed |= text.failed;
    if (bitcts_verdict_is_failure(v)) {
        sb_printf(b, "      <failure type=\"%s\" message=\"%s%s", name, name, *detail ? ": " : "");
        sb_esc(b, detail, 1);
        sb_puts(b, "\">");
        sb_esc(b, text.data != NULL ? text.data : "", 0);
        sb_puts(b, "</failure>\n");
    } else if (junit_skipped(v)) {
        sb_puts(b, "      <skipped message=\"");
        sb_esc(b, *detail ? detail : name, 1);
        sb_puts(b, "\"/>\n");
    } else { /* warn, recorded, expected_fail */
        sb_printf(b, "      <system-out>%s\n", name);
        sb_esc(b, text.data != NULL ? text.data : "", 0);
        sb_puts(b, "</system-out>\n");
    }
    free(text.data);
    const json_t *output = json_object_get(c, "output");
    if (json_is_object(output)) { /* what the backend printed while running the case */
        sb_puts(b, "      <system-err>");
        sb_esc(b, bitcts_report_str(output, "excerpt"), 0);
        sb_puts(b, "</system-err>\n");
    }
    sb_puts(b, "    </testcase>\n");
}

/* XML text escaping for bitcts__analysis_lines. */
static void esc_text(sbuf *b, const char *s)
{
    sb_esc(b, s, 0);
}

static void junit_analysis(sbuf *b, const bitcts__report_view *v)
{
    if (v->analysis == NULL) {
        return;
    }
    const json_t *e = json_object_get(v->analysis, "explanation");
    sb_puts(b, "  <testsuite name=\"bitcts.analysis\" tests=\"0\" failures=\"0\" errors=\"0\" "
               "skipped=\"0\">\n    <properties>\n");
    sb_printf(b, "      <property name=\"analysis.kind\" value=\"");
    sb_esc(b, bitcts_report_str(e, "kind"), 1);
    sb_printf(b, "\"/>\n      <property name=\"analysis.explanation\" value=\"");
    sb_esc(b, bitcts_report_str(e, "text"), 1);
    sb_printf(b,
              "\"/>\n      <property name=\"analysis.failing\" value=\"%.0f\"/>\n"
              "      <property name=\"analysis.judged\" value=\"%.0f\"/>\n",
              bitcts_report_num(v->analysis, "failing"), bitcts_report_num(v->analysis, "judged"));
    sb_puts(b, "    </properties>\n    <system-out>");
    bitcts__analysis_lines(b, v->analysis, "", esc_text);
    sb_puts(b, "</system-out>\n  </testsuite>\n");
}

void bitcts__report_render_junit(sbuf *b, const bitcts__report_view *v)
{
    size_t failures = 0;
    double total_ms = 0;
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        failures += bitcts_verdict_is_failure(k) ? v->t->totals[k] : 0;
    }
    for (size_t i = 0; i < v->t->n_ops; ++i) {
        total_ms += v->t->ops[i].ms;
    }
    sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_printf(b,
              "<testsuites name=\"bitcts\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
              "skipped=\"%zu\" time=\"%.6f\">\n",
              v->t->n, failures, skipped_of(v->t->totals), total_ms / 1000.0);
    junit_analysis(b, v);
    for (size_t i = 0; i < v->t->n_ops; ++i) {
        const bitcts_report_op_tally *row = &v->t->ops[i];
        size_t row_failures = 0;
        for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
            row_failures += bitcts_verdict_is_failure(k) ? row->verdicts[k] : 0;
        }
        sb_puts(b, "  <testsuite name=\"bitcts.");
        sb_esc(b, row->name, 1);
        sb_printf(b,
                  "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
                  "time=\"%.6f\" timestamp=\"",
                  row->count, row_failures, skipped_of(row->verdicts), row->ms / 1000.0);
        sb_esc(b, bitcts_report_str(v->report, "started"), 1);
        sb_puts(b, "\" hostname=\"");
        sb_esc(b, bitcts_report_str(json_object_get(v->report, "host"), "hostname"), 1);
        sb_puts(b, "\">\n");
        junit_properties(b, v->report);
        for (size_t k = 0; k < row->count; ++k) {
            junit_case(b, row->name, json_array_get(v->cases, v->t->order[row->start + k]));
        }
        sb_puts(b, "  </testsuite>\n");
    }
    sb_puts(b, "</testsuites>\n");
}
