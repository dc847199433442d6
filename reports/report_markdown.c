/* SPDX-License-Identifier: MIT */
/* The Markdown view of a report (GitHub-flavoured): identity, the analysis of the failures
 * (report_analysis.h), the verdict table, listed failures with their descriptions and repro
 * commands, the slowest cases. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strlen */

#include "report_render.h"

static void md_verdict_table(sbuf *b, const bitcts__report_view *v)
{
    int shown[BITCTS_VERDICT_COUNT];
    sb_puts(b, "## Verdicts by operator\n\n| operator |");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        shown[k] = v->t->totals[k] || k == BITCTS_VERDICT_PASS || k == BITCTS_VERDICT_FAIL;
        if (shown[k]) {
            sb_printf(b, " %s |", bitcts_verdict_name(k));
        }
    }
    sb_puts(b, " total |\n|---|");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        sb_puts(b, shown[k] ? "---:|" : "");
    }
    sb_puts(b, "---:|\n");
    for (size_t i = 0; i <= v->t->n_ops; ++i) {
        const size_t *counts = i < v->t->n_ops ? v->t->ops[i].verdicts : v->t->totals;
        sb_puts(b, "| ");
        if (i < v->t->n_ops) {
            sb_md_cell(b, v->t->ops[i].name);
        } else {
            sb_puts(b, "**total**");
        }
        sb_puts(b, " |");
        for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
            if (shown[k]) {
                sb_printf(b, " %zu |", counts[k]);
            }
        }
        sb_printf(b, " %zu |\n", i < v->t->n_ops ? v->t->ops[i].count : v->t->n);
    }
}

static void md_case(sbuf *b, const json_t *c)
{
    const json_t *failure = json_object_get(c, "failure");
    const json_t *first = json_object_get(failure, "first");
    sb_puts(b, "- ");
    sb_md_code(b, bitcts_report_str(c, "id"));
    sb_printf(b, " **%s**", bitcts_report_str(c, "verdict"));
    if (*bitcts_report_str(c, "detail")) {
        sb_puts(b, ": ");
        sb_md(b, bitcts_report_str(c, "detail"));
    }
    if (json_is_object(first) && *bitcts_report_str(c, "detail") == '\0') {
        char text[256];
        snprintf(text, sizeof text,
                 "%lld of %lld elements differ; first at index %lld: expected %s, actual %s",
                 (long long)json_integer_value(json_object_get(failure, "mismatches")),
                 (long long)json_integer_value(json_object_get(failure, "elements")),
                 (long long)json_integer_value(json_object_get(first, "index")),
                 bitcts_report_str(first, "expected"), bitcts_report_str(first, "actual"));
        sb_puts(b, " (");
        sb_md(b, text);
        sb_puts(b, ")");
    }
    const json_t *repeats = json_object_get(c, "repeats");
    for (size_t i = 0; i < json_array_size(repeats); ++i) { /* a flake: every run */
        const json_t *run = json_array_get(repeats, i);
        sb_printf(b, "%s%s",
                  i ? ", " : " (runs: ", bitcts_verdict_name(bitcts_report_case_verdict(run)));
        sb_puts(b, i + 1 == json_array_size(repeats) ? ")" : "");
    }
    sbuf desc = {0};
    bitcts__report_case_description(&desc, c);
    if (desc.data != NULL) {
        sb_puts(b, "  \n  case: ");
        sb_md(b, desc.data);
    }
    b->failed |= desc.failed;
    free(desc.data);
    sb_puts(b, "  \n  ");
    sb_md_code(b, bitcts_report_str(c, "repro"));
    sb_puts(b, "\n");
}

/* How a group's cases spread over a facet, for a table cell. */
static void md_spread(sbuf *b, const bitcts__report_group *grp, int f)
{
    const bitcts__report_spread *s = &grp->spread[f];
    if (s->distinct <= 1) {
        sb_md_cell(b, s->top != NULL ? s->top : "");
        return;
    }
    char text[BITCTS_REPORT_FACET_LEN + 48];
    snprintf(text, sizeof text, "%zu (most %s \xC3\x97%zu)", s->distinct, s->top, s->top_count);
    sb_md_cell(b, text);
}

/* The groups as a table, then the first case of each with its repro command. */
static void md_groups(sbuf *b, const bitcts__report_view *v)
{
    const bitcts__report_groups *g = v->groups;
    sb_printf(b, "\n## Failures and warnings (%zu)\n\n", v->listed);
    if (!v->listed) {
        sb_puts(b, "None.\n");
        return;
    }
    const size_t shown =
        g->n_groups < BITCTS_REPORT_MD_MAX_GROUPS ? g->n_groups : BITCTS_REPORT_MD_MAX_GROUPS;
    sb_printf(b,
              "%zu cases in %zu group%s (one verdict, operator and message, numbers aside), "
              "largest first; report.html lists and searches every case.\n\n"
              "| cases | verdict | operator | message | types | ranks | patterns |\n"
              "|---:|---|---|---|---|---|---|\n",
              g->n, g->n_groups, g->n_groups == 1 ? "" : "s");
    for (size_t i = 0; i < shown; ++i) {
        const bitcts__report_group *grp = &g->groups[i];
        sb_printf(b, "| %zu | %s | ", grp->count, bitcts_verdict_name(grp->verdict));
        sb_md_cell(b, grp->op);
        sb_puts(b, " | ");
        sb_md_cell(b, grp->signature);
        for (int f = BITCTS_REPORT_FACET_TYPE; f < BITCTS_REPORT_FACETS; ++f) {
            sb_puts(b, " | ");
            md_spread(b, grp, f);
        }
        sb_puts(b, " |\n");
    }
    if (shown < g->n_groups) {
        sb_printf(b, "\n%zu more groups (%zu groups in all): see report.html.\n",
                  g->n_groups - shown, g->n_groups);
    }
    sb_puts(b, "\n### The first case of each group\n\n");
    for (size_t i = 0; i < shown; ++i) {
        md_case(b, json_array_get(v->cases, g->order[g->groups[i].start]));
    }
}

void bitcts__report_render_markdown(sbuf *b, const bitcts__report_view *v)
{
    const json_t *r = v->report;
    const json_t *be = json_object_get(r, "backend");
    sb_printf(b, "# bitcts report: %s\n\n", v->clean ? "PASSED" : "FAILED");
    sb_printf(b, "%zu cases; suite ", v->t->n);
    sb_md(b, bitcts_report_str(r, "suite_version"));
    if (*bitcts_report_str(r, "suite_commit")) {
        sb_puts(b, " (commit ");
        sb_md_code(b, bitcts_report_str(r, "suite_commit"));
        sb_puts(b, ")");
    }
    sb_seq(b, sb_md, "; backend **", bitcts_report_str(be, "name"), "** ",
           bitcts_report_str(be, "vendor"), " ", bitcts_report_str(be, "version"),
           ", feature level ", bitcts_report_str(be, "feature_level"), "; library ", NULL);
    sb_md_code(b, *bitcts_report_str(be, "library_xxh3_128")
                      ? bitcts_report_str(be, "library_xxh3_128")
                      : "built-in");
    sb_puts(b, "; seed ");
    sb_md_code(b, bitcts_report_str(r, "seed"));
    sb_puts(b, "; host ");
    sb_md(b, bitcts_report_str(json_object_get(r, "host"), "hostname"));
    sb_puts(b, ".\n\nCommand: ");
    bitcts__report_command_line(b, r, sb_md_code);
    sb_puts(b, "\n\n");
    if (bitcts_report_str(r, "stopped")[0] != '\0') { /* a stop rule ended the run early */
        sb_puts(b, "**The run stopped early:** ");
        sb_md(b, bitcts_report_str(r, "stopped"));
        sb_puts(b, "\n\n");
    }
    if (bitcts_report_str(r, "retried")[0] != '\0') { /* --retry-cases */
        sb_puts(b, "**Retries:** ");
        sb_md(b, bitcts_report_str(r, "retried"));
        sb_puts(b, "\n\n");
    }
    if (v->analysis != NULL) { /* what the failing cases have in common, first */
        sb_puts(b, "## Analysis\n\n");
        bitcts__analysis_lines(b, v->analysis, "- ", sb_md);
        sb_puts(b, "\n");
    }
    md_verdict_table(b, v);
    bitcts__report_claims_markdown(b, r);
    md_groups(b, v);
    const json_t *slowest = json_object_get(r, "slowest");
    if (json_array_size(slowest)) {
        sb_puts(b, "\n## Slowest cases\n\n| case | ms |\n|---|---:|\n");
    }
    for (size_t i = 0; i < json_array_size(slowest); ++i) {
        sb_puts(b, "| ");
        sb_md_cell(b, bitcts_report_str(json_array_get(slowest, i), "id"));
        sb_printf(b, " | %.3f |\n", bitcts_report_num(json_array_get(slowest, i), "duration_ms"));
    }
}
