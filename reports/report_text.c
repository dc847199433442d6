/* SPDX-License-Identifier: MIT */
/* The terminal view of a report: the analysis of the failures (report_analysis.h), the verdict
 * table by operator, the failing cases in groups (one verdict, operator and message) with the first
 * case of each and its description and repro command (the largest BITCTS_REPORT_TEXT_MAX_GROUPS
 * groups), and the slowest cases from the report's own "slowest" list, so that every view ranks
 * them alike. Text from the report is shown with control characters replaced, so that nothing in a
 * report can drive a terminal. */
#include <stdlib.h> /* free */

#include "report_render.h"

/* Plain text with every control character (and DEL) replaced by '?'. */
static void sb_plain(sbuf *b, const char *s)
{
    for (const char *p = s; *p != '\0'; ++p) {
        const unsigned char c = (unsigned char)*p;
        sb_add(b, c < 0x20 || c == 0x7f ? "?" : p, 1);
    }
}

/* The same into a bounded buffer, for a padded table cell. */
static const char *plain_copy(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (; s[n] != '\0' && n + 1 < cap; ++n) {
        const unsigned char c = (unsigned char)s[n];
        out[n] = c < 0x20 || c == 0x7f ? '?' : s[n];
    }
    out[n] = '\0';
    return out;
}

static void text_verdict_table(sbuf *b, const bitcts__report_view *v)
{
    sb_printf(b, "%-16s", "operator");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        if (v->t->totals[k] != 0) {
            sb_printf(b, " %15s", bitcts_verdict_name(k));
        }
    }
    sb_puts(b, "\n");
    for (size_t i = 0; i <= v->t->n_ops; ++i) {
        const size_t *counts = i < v->t->n_ops ? v->t->ops[i].verdicts : v->t->totals;
        char name[64];
        sb_printf(b, "%-16s",
                  plain_copy(name, sizeof name, i < v->t->n_ops ? v->t->ops[i].name : "total"));
        for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
            if (v->t->totals[k] != 0) {
                sb_printf(b, " %15zu", counts[k]);
            }
        }
        sb_puts(b, "\n");
    }
}

static void text_claims(sbuf *b, const bitcts__report_view *v)
{
    if (json_object_get(v->report, "claims") == NULL) {
        return;
    }
    char line[1200];
    bitcts__report_claims_heading(line, sizeof line, v->report);
    sb_puts(b, "\n");
    sb_plain(b, line);
    sb_puts(b, ":\n");
    for (size_t k = 0; bitcts__report_claim_line(v->report, k, line, sizeof line); ++k) {
        sb_puts(b, "  ");
        sb_plain(b, line);
        sb_puts(b, "\n");
    }
}

/* "         case: <description>" when the case has one. */
static void text_description(sbuf *b, const json_t *c)
{
    sbuf line = {0};
    bitcts__report_case_description(&line, c);
    if (line.data != NULL) {
        sb_seq(b, sb_plain, "         case: ", line.data, "\n", NULL);
    }
    b->failed |= line.failed;
    free(line.data);
}

/* The analysis of the failures, first: what the failing cases have in common. */
static void text_analysis(sbuf *b, const bitcts__report_view *v)
{
    if (v->analysis == NULL) {
        return;
    }
    sb_puts(b, "analysis:\n");
    bitcts__analysis_lines(b, v->analysis, "  ", sb_plain);
    sb_puts(b, "\n");
}

static void text_failures(sbuf *b, const bitcts__report_view *v)
{
    const bitcts__report_groups *g = v->groups;
    size_t failing = 0;
    size_t groups = 0;
    for (size_t i = 0; i < g->n_groups; ++i) {
        if (bitcts_verdict_is_failure(g->groups[i].verdict)) {
            failing += g->groups[i].count;
            ++groups;
        }
    }
    if (failing == 0) {
        return;
    }
    sb_printf(b, "\nfailures (%zu) in %zu group%s (one verdict, operator and message):\n", failing,
              groups, groups == 1 ? "" : "s");
    size_t shown = 0;
    for (size_t i = 0; i < g->n_groups && shown < BITCTS_REPORT_TEXT_MAX_GROUPS; ++i) {
        const bitcts__report_group *grp = &g->groups[i];
        if (!bitcts_verdict_is_failure(grp->verdict)) {
            continue;
        }
        ++shown;
        const json_t *c = json_array_get(v->cases, g->order[grp->start]);
        sb_printf(b, "  %6zu x %s ", grp->count, bitcts_verdict_name(grp->verdict));
        sb_seq(b, sb_plain, "", grp->op, ": ", grp->signature,
               "\n         first: ", bitcts_report_str(c, "id"), ": ",
               bitcts_report_str(c, "detail"), "\n", NULL);
        text_description(b, c);
        sb_seq(b, sb_plain, "         ", bitcts_report_str(c, "repro"), "\n", NULL);
    }
    if (shown < groups) {
        sb_printf(b, "  ... and %zu more groups (report.html lists every case)\n", groups - shown);
    }
}

static void text_slowest(sbuf *b, const bitcts__report_view *v)
{
    const json_t *slowest = json_object_get(v->report, "slowest");
    if (json_array_size(slowest) == 0) {
        return;
    }
    sb_puts(b, "\nslowest:\n");
    for (size_t i = 0; i < json_array_size(slowest) && i < BITCTS_REPORT_TEXT_SLOWEST; ++i) {
        const json_t *e = json_array_get(slowest, i);
        sb_printf(b, "  %9.2f ms  ", bitcts_report_num(e, "duration_ms"));
        sb_plain(b, bitcts_report_str(e, "id"));
        sb_puts(b, "\n");
    }
}

void bitcts__report_render_text(sbuf *b, const bitcts__report_view *v)
{
    const char *stopped = bitcts_report_str(v->report, "stopped");
    if (stopped[0] != '\0') { /* a stop rule ended the run early */
        char shown[1100];
        sb_printf(b, "the run stopped early: %s\n\n", plain_copy(shown, sizeof shown, stopped));
    }
    const char *retried = bitcts_report_str(v->report, "retried");
    if (retried[0] != '\0') { /* --retry-cases left some unexpected outcomes unretried */
        char shown[1100];
        sb_printf(b, "retries: %s\n\n", plain_copy(shown, sizeof shown, retried));
    }
    text_analysis(b, v);
    text_verdict_table(b, v);
    text_claims(b, v);
    text_failures(b, v);
    text_slowest(b, v);
}
