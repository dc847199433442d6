/* SPDX-License-Identifier: MIT */
/* What the renderers of reports/ share: the view of a validated report (its tally and what the
 * failure sections list), the helpers every format uses, and one entry point per format.
 * Internal to reports/. Thread-safety: reentrant; a view only reads its report. */
#ifndef BITCTS_REPORTS_REPORT_RENDER_H
#define BITCTS_REPORTS_REPORT_RENDER_H

#include "report.h"          /* bitcts_report_tally, the model */
#include "report_analysis.h" /* the analysis of the failures */
#include "report_group.h"    /* the failures grouped */
#include "report_sbuf.h"     /* sbuf and the escapers */

/** A validated report as the renderers see it. */
typedef struct bitcts__report_view {
    const json_t *report;
    const json_t *cases;
    bitcts_report_tally *t;
    size_t listed; /* cases the failure sections list */
    int clean;
    bitcts__report_groups *groups; /* the listed cases, grouped */
    json_t *analysis;              /* recomputed from the cases (report_analysis.h); NULL: none */
} bitcts__report_view;

/** Tallies the report and groups its listed cases.
 * @return BITCTS_OK or BITCTS_E_OUT_OF_MEMORY (see tally_create). */
bitcts_status bitcts__report_view_build(bitcts__report_view *v, const json_t *report);
void bitcts__report_view_release(bitcts__report_view *v);
/** "12.3 ms", "4.56 s", "3 min 2 s": a duration for people. */
void bitcts__report_duration(char *out, size_t cap, double ms);
/** 1 for the verdicts the failure sections list (all but pass, recorded, not_supported). */
int bitcts__report_is_listed(int verdict);
/** "0x00ff" -> "0000000011111111" into out; "" for anything else. */
void bitcts__report_hex_to_bin(const char *hex, char *out, size_t cap);
/** The report's command line as shell words, quoted where needed, through `emit`. */
void bitcts__report_command_line(sbuf *b, const json_t *report, void (*emit)(sbuf *, const char *));
/** The integers of a JSON array separated by ", " (a mismatch's coordinates). */
void bitcts__report_int_list(sbuf *b, const json_t *array);
/** The name of input i of a first mismatch with `count` inputs: "input", or "A", "B". */
const char *bitcts__report_input_name(size_t count, size_t i);
/** The case's description (docs/report-schema.md, "description") on one line, plain text:
 * operator and types, rank, pattern, value class, feature level, element count, in place or
 * not, and each tensor's sizes, strides and size in bytes; nothing when it has none. */
void bitcts__report_case_description(sbuf *b, const json_t *c);
/** The plain-text evidence of a case: detail, description, mismatch, digest, warnings,
 * baseline, repro. */
void bitcts__report_case_evidence(sbuf *b, const json_t *c);

/** The conformance claim of a `run --claimed` report (report_claims.c): the line of operator
 * k into out (0 when there is no k-th operator); the heading line; the Markdown and HTML
 * sections (nothing for a report without "claims"). */
int bitcts__report_claim_line(const json_t *report, size_t k, char *out, size_t cap);
void bitcts__report_claims_heading(char *out, size_t cap, const json_t *report);
void bitcts__report_claims_markdown(sbuf *b, const json_t *report);
void bitcts__report_claims_html(sbuf *b, const json_t *report);

void bitcts__report_render_junit(sbuf *b, const bitcts__report_view *v);
void bitcts__report_render_html(sbuf *b, const bitcts__report_view *v);
void bitcts__report_render_markdown(sbuf *b, const bitcts__report_view *v);
void bitcts__report_render_text(sbuf *b, const bitcts__report_view *v);

#endif
