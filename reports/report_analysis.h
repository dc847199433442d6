/* SPDX-License-Identifier: MIT */
/* The analysis of a report's failures (docs/report-schema.md, "analysis"): the pass rate of
 * every value of every case attribute (operator, input type, output type, rank, pattern, layout
 * in effect, value class, feature level, size class, element count parity), and the smallest rule
 * over those attributes that separates the failing cases from the passing ones, in words. It reads
 * only the cases array, so every report (run, check, merge, render) gets the same analysis.
 * Internal to reports/. Thread-safety: reentrant; the cases are only read.
 *
 * The rule is a conjunction of terms "attribute in {values}". Exact: every failing case
 * matches and no passing case does; the search tries every set of up to
 * BITCTS_ANALYSIS_MAX_TERMS attributes, each term holding the values its attribute takes in
 * failing cases (the fewest that still match every failure), and takes the first with no
 * passing match in the order (fewer terms, fewer words, attribute order). When no such rule
 * exists, the best partial rule of at most two terms (each term: the values seen in failures,
 * or the values whose failure rate exceeds the overall one) by F1 score, then fewer words,
 * then the first found in the same order, with its precision and recall. Cost: one pass over the
 * cases per candidate rule, at most 375 rules. */
#ifndef BITCTS_REPORTS_REPORT_ANALYSIS_H
#define BITCTS_REPORTS_REPORT_ANALYSIS_H

#include <jansson.h> /* json_t */

#include "report_model.h" /* bitcts_status */
#include "report_sbuf.h"  /* sbuf */

#define BITCTS_ANALYSIS_ATTRS 10
#define BITCTS_ANALYSIS_MAX_VALUES 64 /* an attribute with more distinct values is not used */
#define BITCTS_ANALYSIS_MAX_TERMS 3   /* the most terms an exact rule may have */
#define BITCTS_ANALYSIS_VIEW_LINES 4  /* pass-rate lines the human views show */
#define BITCTS_ANALYSIS_VIEW_VALUES 8 /* values per pass-rate line in the human views */

/** The attribute's name in report.json ("operator", "input_type", ..., "parity"). */
const char *bitcts__analysis_attr_name(int attr);

/** The attribute values of one case: from its "description" (docs/report-schema.md) where it
 * has one, else from its id and "feature_level"; "" for what neither gives.
 * @param out [out] BITCTS_ANALYSIS_ATTRS strings of at most `len` - 1 bytes each. */
void bitcts__analysis_case_values(const json_t *case_obj, char (*out)[64]);

/** Analyses the cases of a report. Judged cases are the failing ones (bitcts_verdict_is_failure)
 * and the passing ones (pass, warn, recorded); the rest (not_supported, expected_fail,
 * skipped, not_run) are counted as not judged.
 * @param out [out] a new reference: {"judged", "failing", "passing", "not_judged",
 *        "explanation": {"kind": "exact" | "partial" | "none" | "all", "text", "terms":
 *        [{"attribute", "values", "negated"}], "failing_matched", "passing_matched",
 *        "precision", "recall"}, "attributes": [{"name", "values": [{"value", "cases",
 *        "failing", "pass_rate"}]}]}; NULL when no judged case fails.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (cases not an array); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts__report_analysis(const json_t *cases, json_t **out);

/** The analysis as a few plain-text lines (the terminal, Markdown and JUnit views): the
 * explanation, then up to BITCTS_ANALYSIS_VIEW_LINES pass-rate lines (the explanation's
 * attributes first, then those whose rates spread most), each with line_prefix before it.
 * `emit` writes a piece of report text (escaped as the view needs). */
void bitcts__analysis_lines(sbuf *b, const json_t *analysis, const char *line_prefix,
                            void (*emit)(sbuf *, const char *));

#endif
