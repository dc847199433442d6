/* SPDX-License-Identifier: MIT */
/* The analysis as the human views show it (report_analysis.h, bitcts__analysis_lines): a few
 * lines read from the analysis object, never the full table (report.json and report.html hold
 * that). */
#include <string.h> /* strcmp */

#include "report_analysis.h"

static double rate_of(const json_t *values, size_t i)
{
    return bitcts_report_num(json_array_get(values, i), "pass_rate");
}

/* The spread of an attribute's pass rates (best minus worst); 0 for one value. */
static double spread(const json_t *attr)
{
    const json_t *values = json_object_get(attr, "values");
    double lo = 1.0;
    double hi = 0.0;
    for (size_t i = 0; i < json_array_size(values); ++i) {
        const double r = rate_of(values, i);
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    return json_array_size(values) > 1 ? hi - lo : 0.0;
}

static int named_by_explanation(const json_t *analysis, const char *name)
{
    const json_t *terms = json_object_get(json_object_get(analysis, "explanation"), "terms");
    for (size_t i = 0; i < json_array_size(terms); ++i) {
        if (strcmp(bitcts_report_str(json_array_get(terms, i), "attribute"), name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* "pass rate by pattern: permuted 3.1% of 700, ..., packed 100.0% of 1184", worst first. */
static void rate_line(sbuf *line, const json_t *attr)
{
    const json_t *values = json_object_get(attr, "values");
    const size_t n = json_array_size(values);
    size_t order[BITCTS_ANALYSIS_MAX_VALUES];
    size_t count = 0;
    for (size_t i = 0; i < n && count < BITCTS_ANALYSIS_MAX_VALUES; ++i) {
        size_t at = count++;
        for (; at > 0 && rate_of(values, order[at - 1]) > rate_of(values, i); --at) {
            order[at] = order[at - 1];
        }
        order[at] = i;
    }
    sb_printf(line, "pass rate by %s: ", bitcts_report_str(attr, "name"));
    /* Too many values: the worst ones and the best few, the middle left out. */
    const size_t best = 3;
    const size_t worst =
        count > BITCTS_ANALYSIS_VIEW_VALUES ? BITCTS_ANALYSIS_VIEW_VALUES - best : count;
    for (size_t k = 0; k < count; ++k) {
        if (k == worst && k + best < count) {
            sb_printf(line, ", (%zu more)", count - worst - best);
            k = count - best;
        }
        const json_t *v = json_array_get(values, order[k]);
        sb_printf(line, "%s%s %.1f%% of %.0f", k == 0 ? "" : ", ", bitcts_report_str(v, "value"),
                  100.0 * bitcts_report_num(v, "pass_rate"), bitcts_report_num(v, "cases"));
    }
}

static void emit_line(sbuf *b, sbuf *line, const char *prefix, void (*emit)(sbuf *, const char *))
{
    sb_puts(b, prefix);
    emit(b, line->data != NULL ? line->data : "");
    sb_puts(b, "\n");
    b->failed |= line->failed;
    free(line->data);
    *line = (sbuf){0};
}

/* The attributes the views show: the explanation's, then the widest spreads, at most
 * BITCTS_ANALYSIS_VIEW_LINES; their positions in "attributes" into pick. */
static size_t pick_attributes(const json_t *analysis, size_t *pick)
{
    const json_t *attrs = json_object_get(analysis, "attributes");
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(attrs) && n < BITCTS_ANALYSIS_VIEW_LINES; ++i) {
        if (named_by_explanation(analysis, bitcts_report_str(json_array_get(attrs, i), "name"))) {
            pick[n++] = i;
        }
    }
    while (n < BITCTS_ANALYSIS_VIEW_LINES) {
        size_t best = json_array_size(attrs);
        for (size_t i = 0; i < json_array_size(attrs); ++i) {
            const json_t *a = json_array_get(attrs, i);
            int taken = named_by_explanation(analysis, bitcts_report_str(a, "name"));
            for (size_t k = 0; k < n; ++k) {
                taken |= pick[k] == i;
            }
            if (!taken && spread(a) > 0.0 &&
                (best == json_array_size(attrs) ||
                 spread(a) > spread(json_array_get(attrs, best)))) {
                best = i;
            }
        }
        if (best == json_array_size(attrs)) {
            break;
        }
        pick[n++] = best;
    }
    return n;
}

void bitcts__analysis_lines(sbuf *b, const json_t *analysis, const char *line_prefix,
                            void (*emit)(sbuf *, const char *))
{
    if (!json_is_object(analysis)) {
        return;
    }
    sbuf line = {0};
    sb_printf(&line, "%.0f of %.0f judged cases fail", bitcts_report_num(analysis, "failing"),
              bitcts_report_num(analysis, "judged"));
    if (bitcts_report_num(analysis, "not_judged") > 0) {
        sb_printf(&line, " (%.0f more not judged: not supported, skipped, not run or expected)",
                  bitcts_report_num(analysis, "not_judged"));
    }
    emit_line(b, &line, line_prefix, emit);
    sb_puts(&line, bitcts_report_str(json_object_get(analysis, "explanation"), "text"));
    emit_line(b, &line, line_prefix, emit);
    size_t pick[BITCTS_ANALYSIS_VIEW_LINES];
    const size_t n = pick_attributes(analysis, pick);
    for (size_t k = 0; k < n; ++k) {
        rate_line(&line, json_array_get(json_object_get(analysis, "attributes"), pick[k]));
        emit_line(b, &line, line_prefix, emit);
    }
}
