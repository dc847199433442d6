/* SPDX-License-Identifier: MIT */
/* The HTML view of a report: one self-contained page (inline style and script) with the
 * analysis of the failures (report_analysis.h), the run's identity, the verdict table, every
 * listed failure with its description and a bit-level mismatch table, and more. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strlen */

#include "report_render.h"

static const char html_style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;"
    "color:#1f2328;background:#fff}\n"
    "header{background:#24292f;color:#fff;padding:14px 24px}\n"
    "header h1{margin:0;font-size:22px;font-weight:600}\n"
    "main{padding:8px 24px 40px;max-width:1500px}\n"
    "h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}\n"
    ".status{display:inline-block;padding:2px 12px;border-radius:12px;font-size:15px;"
    "margin-left:12px;vertical-align:middle}\n"
    ".passed{background:#1a7f37}.failed{background:#cf222e}\n"
    "dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:3px 18px;margin:12px 0}\n"
    "dl.meta dt{font-weight:600;color:#57606a}dl.meta dd{margin:0;word-break:break-all}\n"
    "table{border-collapse:collapse;margin:8px 0 12px}\n"
    "th,td{border:1px solid #d0d7de;padding:3px 9px;text-align:left;vertical-align:top}\n"
    "th{background:#f6f8fa;font-weight:600}td.n,th.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    "tr.total td{font-weight:600;background:#f6f8fa}td.zero{color:#afb8c1}\n"
    ".v-pass{background:#dafbe1}.v-warn{background:#fff8c5}.v-recorded{background:#ddf4ff}\n"
    ".v-fail,.v-timeout,.v-crash,.v-missing,.v-internal_error,.v-unexpected_pass"
    "{background:#ffebe9}\n"
    ".v-not_supported,.v-expected_fail{background:#eaeef2}\n"
    "code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "font-size:12.5px}\n"
    "pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;"
    "white-space:pre;overflow-x:auto;margin:6px 0}\n"
    "details.group{border:1px solid #d0d7de;border-left:6px solid #cf222e;border-radius:6px;"
    "margin:8px 0;padding:4px 12px}\n"
    "details.group.warn{border-left-color:#bf8700}"
    "details.group.expected_fail{border-left-color:#8c959f}\n"
    "details.group>summary{cursor:pointer;padding:3px 0}\n"
    ".g-count{font-size:15px;font-weight:700;margin-right:6px}.sig{font-family:ui-monospace,"
    "SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}\n"
    "table.cases{width:100%}table.cases td{font-size:12.5px}\n"
    "td.repro code{white-space:nowrap;color:#57606a}"
    "td.repro div{max-width:24em;overflow-x:auto}\n"
    ".facet{margin:4px 0}.facet b{display:inline-block;min-width:5em}\n"
    "button.chip{font:inherit;font-size:12.5px;border:1px solid #d0d7de;border-radius:10px;"
    "background:#f6f8fa;margin:1px 2px;padding:0 7px;cursor:pointer}\n"
    ".case{border:1px solid #d0d7de;border-left:6px solid #cf222e;border-radius:6px;"
    "padding:6px 14px;margin:12px 0}\n"
    ".case.warn{border-left-color:#bf8700}.case.expected_fail{border-left-color:#8c959f}\n"
    ".case h3{margin:4px 0;font-size:14px;word-break:break-all}\n"
    ".badge{display:inline-block;border-radius:10px;padding:0 8px;margin-right:8px;"
    "font-size:12px;font-weight:600;border:1px solid #d0d7de}\n"
    "mark{background:#ffb8b0;color:inherit}\n"
    ".note{color:#57606a}\n"
    /* a row's case description: shown, yet outside the text the search reads */
    ".desc-row::after{content:attr(data-desc);display:block;color:#57606a;font-size:12px}\n"
    "#controls{margin:8px 0;position:sticky;top:0;background:#fff;padding:6px 0;z-index:1}"
    "#controls input{min-width:28em}#controls input,#controls select{font:inherit;"
    "padding:2px 6px}\n";

/* Search over every listed case: each word must occur in the case's row (id, type, rank,
 * pattern, detail, repro); groups without a match hide, groups with one open. "#q=WORDS" in
 * the address fills the box. */
static const char html_script[] =
    "<script>\n"
    "function bitctsFilter(){var q=document.getElementById('f-text'),"
    "w=q.value.toLowerCase().split(/\\s+/).filter(Boolean),"
    "v=document.getElementById('f-verdict').value,all=0,n=0,on=w.length>0||v!=='';"
    "document.querySelectorAll('#failures details.group').forEach(function(g){var k=0;"
    "g.querySelectorAll('tr.case-row').forEach(function(r){var t=r.textContent.toLowerCase(),"
    "ok=(!v||r.dataset.verdict===v)&&w.every(function(x){return t.indexOf(x)>=0;});"
    "r.style.display=ok?'':'none';k+=ok?1:0;++all;});"
    "g.style.display=k?'':'none';g.querySelector('.g-match').textContent=on?' ('+k+' match)':'';"
    "g.querySelectorAll('.case').forEach(function(e){e.style.display=on?'none':'';});"
    "if(on&&k){g.open=true;}n+=k;});"
    "document.getElementById('f-count').textContent=n+' of '+all+' shown';}\n"
    "function bitctsSearch(t){document.getElementById('f-text').value=t;bitctsFilter();}\n"
    "function bitctsOpen(o){document.querySelectorAll('#failures details.group')"
    ".forEach(function(g){g.open=o;});}\n"
    "window.addEventListener('DOMContentLoaded',function(){var h=location.hash;"
    "if(h.indexOf('#q=')===0){bitctsSearch(decodeURIComponent(h.slice(3)));}});\n"
    "</script>\n";

static void html_meta_row(sbuf *b, const char *label, const char *value, int mono)
{
    sb_printf(b, "<dt>%s</dt><dd%s>", label, mono ? " class=\"mono\"" : "");
    sb_esc(b, *value ? value : "\xE2\x80\x94", 0);
    sb_puts(b, "</dd>\n");
}

static void html_identity(sbuf *b, const bitcts__report_view *v)
{
    const json_t *r = v->report;
    const json_t *be = json_object_get(r, "backend");
    const json_t *host = json_object_get(r, "host");
    const json_t *sel = json_object_get(r, "selection");
    char line[512];
    sb_puts(b, "<dl class=\"meta\">\n");
    html_meta_row(b, "Suite version", bitcts_report_str(r, "suite_version"), 0);
    html_meta_row(b, "Suite commit", bitcts_report_str(r, "suite_commit"), 1);
    snprintf(line, sizeof line, "%s \xE2\x80\x94 %s, version %s, build %s",
             bitcts_report_str(be, "name"), bitcts_report_str(be, "vendor"),
             bitcts_report_str(be, "version"), bitcts_report_str(be, "build_id"));
    html_meta_row(b, "Backend", line, 0);
    snprintf(line, sizeof line, "%s (%s)", bitcts_report_str(be, "spec"),
             bitcts_report_str(be, "path"));
    html_meta_row(b, "Backend spec (path)", line, 1);
    html_meta_row(b, "Library XXH3-128", bitcts_report_str(be, "library_xxh3_128"), 1);
    const json_int_t size = json_integer_value(json_object_get(be, "library_size"));
    line[0] = '\0'; /* a built-in, or a report from before 1.2 */
    if (size > 0) {
        snprintf(line, sizeof line, "%lld bytes", (long long)size);
    }
    html_meta_row(b, "Library size", line, 0);
    html_meta_row(b, "Feature level", bitcts_report_str(be, "feature_level"), 0);
    html_meta_row(b, "ABI version", bitcts_report_str(be, "abi_version"), 0);
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)json_object_get(be, "info"), key, value)
    {
        if (json_string_value(value) == NULL || *json_string_value(value) == '\0') {
            continue; /* nothing to show */
        }
        sb_puts(b, "<dt>Backend info: ");
        sb_esc(b, key, 0);
        sb_puts(b, "</dt><dd>");
        sb_esc(b, json_string_value(value), 0);
        sb_puts(b, "</dd>\n");
    }
    snprintf(line, sizeof line, "%s \xE2\x80\x94 %s, %s, %lld CPUs",
             bitcts_report_str(host, "hostname"), bitcts_report_str(host, "os"),
             bitcts_report_str(host, "machine"),
             (long long)json_integer_value(json_object_get(host, "cpus")));
    html_meta_row(b, "Host", line, 0);
    html_meta_row(b, "Seed", bitcts_report_str(r, "seed"), 1);
    sb_puts(b, "<dt>Command line</dt><dd><code>");
    bitcts__report_command_line(b, r, sb_esc_text);
    sb_puts(b, "</code></dd>\n");
    snprintf(line, sizeof line, "tier %s, filter %s, feature level %s, shard %s",
             bitcts_report_str(sel, "tier"), bitcts_report_str(sel, "filter"),
             *bitcts_report_str(sel, "feature_level") ? bitcts_report_str(sel, "feature_level")
                                                      : "any",
             *bitcts_report_str(sel, "shard") ? bitcts_report_str(sel, "shard") : "none");
    html_meta_row(b, "Selection", line, 0);
    snprintf(line, sizeof line, "%s \xE2\x86\x92 %s (%.1f s)", bitcts_report_str(r, "started"),
             bitcts_report_str(r, "finished"), bitcts_report_num(r, "duration_s"));
    html_meta_row(b, "Run", line, 0);
    sb_puts(b, "</dl>\n");
}

static void html_count_cell(sbuf *b, size_t count, int verdict)
{
    if (count) {
        sb_printf(b, "<td class=\"n v-%s\">%zu</td>", bitcts_verdict_name(verdict), count);
    } else {
        sb_puts(b, "<td class=\"n zero\">0</td>");
    }
}

static void html_verdict_table(sbuf *b, const bitcts__report_view *v)
{
    int shown[BITCTS_VERDICT_COUNT];
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        shown[k] = v->t->totals[k] || k == BITCTS_VERDICT_PASS || k == BITCTS_VERDICT_FAIL;
    }
    sb_puts(b, "<h2 id=\"verdicts\">Verdicts by operator</h2>\n"
               "<table id=\"verdict-table\" class=\"verdicts\">\n<tr><th>operator</th>");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        if (shown[k]) {
            sb_printf(b, "<th class=\"n\">%s</th>", bitcts_verdict_name(k));
        }
    }
    sb_puts(b, "<th class=\"n\">total</th><th class=\"n\">time</th></tr>\n");
    double total_ms = 0;
    for (size_t i = 0; i < v->t->n_ops; ++i) {
        const bitcts_report_op_tally *row = &v->t->ops[i];
        sb_puts(b, "<tr><td><code>");
        sb_esc(b, row->name, 0);
        sb_puts(b, "</code></td>");
        for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
            if (shown[k]) {
                html_count_cell(b, row->verdicts[k], k);
            }
        }
        char time[48];
        bitcts__report_duration(time, sizeof time, row->ms);
        sb_printf(b, "<td class=\"n\">%zu</td><td class=\"n\">%s</td></tr>\n", row->count, time);
        total_ms += row->ms;
    }
    sb_puts(b, "<tr class=\"total\"><td>total</td>");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        if (shown[k]) {
            html_count_cell(b, v->t->totals[k], k);
        }
    }
    char time[48];
    bitcts__report_duration(time, sizeof time, total_ms);
    sb_printf(b, "<td class=\"n\">%zu</td><td class=\"n\">%s</td></tr>\n</table>\n", v->t->n, time);
}

/* Binary digits of `bits`, with the digits that differ from `other` marked. */
static void html_bits(sbuf *b, const char *bits, const char *other)
{
    /* Marks per character only for a string of bits: anything else (a report from elsewhere)
     * is shown whole, escaped, so a multi-byte character is never cut into marks. */
    if (strspn(bits, "01 ") != strlen(bits) || strspn(other, "01 ") != strlen(other)) {
        sb_esc(b, bits, 0);
        return;
    }
    const int same_len = strlen(bits) == strlen(other);
    for (size_t i = 0; bits[i]; ++i) {
        const int differs = same_len && bits[i] != other[i];
        if (differs) {
            sb_puts(b, "<mark>");
        }
        sb_esc(b, (const char[]){bits[i], '\0'}, 0);
        if (differs) {
            sb_puts(b, "</mark>");
        }
    }
}

static void html_value_row(sbuf *b, const char *label, const char *hex, const char *bin,
                           const char *other_bin)
{
    sb_printf(b, "<tr><th>%s</th><td class=\"mono\">", label);
    sb_esc(b, hex, 0);
    sb_puts(b, "</td><td class=\"mono\">");
    html_bits(b, bin, other_bin);
    sb_puts(b, "</td></tr>\n");
}

static void html_mismatch(sbuf *b, const json_t *failure)
{
    const json_t *first = json_object_get(failure, "first");
    sb_printf(b, "<p>%lld of %lld elements differ",
              (long long)json_integer_value(json_object_get(failure, "mismatches")),
              (long long)json_integer_value(json_object_get(failure, "elements")));
    if (!json_is_object(first)) {
        sb_puts(b, ".</p>\n");
        return;
    }
    const json_t *coords = json_object_get(first, "coords");
    const json_t *inputs = json_object_get(first, "inputs");
    sb_printf(b, "; the first at index %lld, coordinates [",
              (long long)json_integer_value(json_object_get(first, "index")));
    bitcts__report_int_list(b, coords);
    sb_puts(b,
            "]:</p>\n<table class=\"mismatch\">\n<tr><th></th><th>hex</th><th>binary</th></tr>\n");
    for (size_t i = 0; i < json_array_size(inputs); ++i) {
        const char *hex = json_string_value(json_array_get(inputs, i));
        char bin[80];
        char label[32];
        bitcts__report_hex_to_bin(hex, bin, sizeof bin);
        snprintf(label, sizeof label, "input %s",
                 bitcts__report_input_name(json_array_size(inputs), i));
        html_value_row(b, json_array_size(inputs) == 1 ? "input" : label, hex, bin, "");
    }
    const char *expected_bin = bitcts_report_str(first, "expected_bin");
    const char *actual_bin = bitcts_report_str(first, "actual_bin");
    html_value_row(b, "expected", bitcts_report_str(first, "expected"), expected_bin, actual_bin);
    html_value_row(b, "actual", bitcts_report_str(first, "actual"), actual_bin, expected_bin);
    sb_puts(b, "</table>\n");
}

/* The case's description between `before` and `after`, escaped as text or (attr) as an
 * attribute value; nothing when it has none. */
static void html_description(sbuf *b, const json_t *c, const char *before, int attr,
                             const char *after)
{
    sbuf desc = {0};
    bitcts__report_case_description(&desc, c);
    if (desc.data != NULL) {
        sb_puts(b, before);
        sb_esc(b, desc.data, attr);
        sb_puts(b, after);
    }
    b->failed |= desc.failed;
    free(desc.data);
}

static void html_case(sbuf *b, const json_t *c)
{
    const char *verdict = bitcts_report_str(c, "verdict");
    const char *id = bitcts_report_str(c, "id");
    const json_t *warnings = json_object_get(c, "warnings");
    sb_printf(b, "<div class=\"case %s\" data-verdict=\"%s\" data-id=\"", verdict, verdict);
    sb_esc(b, id, 1);
    sb_puts(b, "\" id=\"case-");
    sb_esc(b, id, 1);
    sb_printf(b, "\">\n<h3><span class=\"badge v-%s\">%s</span><code>", verdict, verdict);
    sb_esc(b, id, 0);
    sb_printf(b, "</code> <span class=\"note\">%.3f ms</span></h3>\n",
              bitcts_report_num(c, "duration_ms"));
    if (*bitcts_report_str(c, "detail")) {
        sb_puts(b, "<p class=\"detail\">");
        sb_esc(b, bitcts_report_str(c, "detail"), 0);
        sb_puts(b, "</p>\n");
    }
    html_description(b, c, "<p class=\"desc\">case: ", 0, "</p>\n");
    if (json_is_object(json_object_get(c, "failure"))) {
        html_mismatch(b, json_object_get(c, "failure"));
    }
    for (size_t i = 0; i < json_array_size(warnings); ++i) {
        sb_puts(b, "<p>warning: ");
        sb_esc(b, json_string_value(json_array_get(warnings, i)), 0);
        sb_puts(b, "</p>\n");
    }
    if (*bitcts_report_str(c, "baseline")) {
        sb_puts(b, "<p>baseline: ");
        sb_esc(b, bitcts_report_str(c, "baseline"), 0);
        sb_puts(b, "</p>\n");
    }
    const json_t *repeats = json_object_get(c, "repeats");
    if (json_array_size(repeats) > 0) { /* a flake: every run's outcome */
        sb_puts(b, "<p>runs (--repeat): ");
        for (size_t i = 0; i < json_array_size(repeats); ++i) {
            const json_t *run = json_array_get(repeats, i);
            sb_printf(b, "%s<span class=\"badge v-%s\">%s</span>", i ? " " : "",
                      bitcts_verdict_name(bitcts_report_case_verdict(run)),
                      bitcts_verdict_name(bitcts_report_case_verdict(run)));
            if (*bitcts_report_str(run, "detail")) {
                sb_puts(b, " ");
                sb_esc(b, bitcts_report_str(run, "detail"), 0);
            }
        }
        sb_puts(b, "</p>\n");
    }
    const json_t *output = json_object_get(c, "output");
    if (json_is_object(output)) { /* what the backend printed while running the case */
        sb_printf(b, "<details><summary>backend output (%lld bytes)</summary><pre>",
                  (long long)json_integer_value(json_object_get(output, "bytes")));
        sb_esc(b, bitcts_report_str(output, "excerpt"), 0);
        sb_puts(b, "</pre></details>\n");
    }
    if (*bitcts_report_str(c, "output_xxh3_128")) {
        sb_printf(b, "<p>output XXH3-128: <code>%s</code></p>\n",
                  bitcts_report_str(c, "output_xxh3_128")); /* validated: hex digits only */
    }
    sb_puts(b, "<pre><code>");
    sb_esc(b, bitcts_report_str(c, "repro"), 0);
    sb_puts(b, "</code></pre>\n</div>\n");
}

/* The values of each facet over every listed case, as buttons that search for them. */
static void html_facets(sbuf *b, const bitcts__report_groups *g)
{
    sb_puts(b, "<div id=\"facets\">\n");
    for (int f = 0; f < BITCTS_REPORT_FACETS; ++f) {
        if (g->n_values[f] == 0 || (g->n_values[f] == 1 && *g->values[f][0] == '\0')) {
            continue; /* no case has this facet */
        }
        sb_printf(b, "<div class=\"facet\" id=\"facet-%s\"><b>%s</b>", bitcts__report_facet_name(f),
                  bitcts__report_facet_name(f));
        for (size_t i = 0; i < g->n_values[f]; ++i) {
            const char *value = *g->values[f][i] ? g->values[f][i] : "(none)";
            sb_puts(b, "<button class=\"chip\" data-q=\"");
            sb_esc(b, value, 1);
            sb_puts(b, "\" onclick=\"bitctsSearch(this.dataset.q)\">");
            sb_esc(b, value, 0);
            sb_printf(b, " <span class=\"note\">%zu</span></button>", g->counts[f][i]);
        }
        sb_puts(b, "</div>\n");
    }
    sb_puts(b, "</div>\n");
}

/* One line of a group's summary: how its cases spread over a facet. */
static void html_spread(sbuf *b, const bitcts__report_group *grp, int f)
{
    const bitcts__report_spread *s = &grp->spread[f];
    if (s->distinct == 0 || *s->top == '\0') {
        return;
    }
    if (s->distinct == 1) {
        sb_printf(b, " \xC2\xB7 %s ", bitcts__report_facet_name(f));
        sb_esc(b, s->top, 0);
        return;
    }
    sb_printf(b, " \xC2\xB7 %zu %ss (most: ", s->distinct, bitcts__report_facet_name(f));
    sb_esc(b, s->top, 0);
    sb_printf(b, " \xC3\x97%zu)", s->top_count);
}

/* One row per case: every listed case is in the page, found by the search. */
static void html_case_row(sbuf *b, const json_t *c, const bitcts__report_facets *fc)
{
    const char *verdict = bitcts_report_str(c, "verdict");
    const char *id = bitcts_report_str(c, "id");
    char time[48];
    bitcts__report_duration(time, sizeof time, bitcts_report_num(c, "duration_ms"));
    sb_printf(b, "<tr class=\"case-row\" data-verdict=\"%s\" id=\"row-", verdict);
    sb_esc(b, id, 1);
    sb_puts(b, "\"><td><code>");
    sb_esc(b, id, 0);
    sb_puts(b, "</code></td>");
    for (int f = BITCTS_REPORT_FACET_TYPE; f < BITCTS_REPORT_FACETS; ++f) {
        sb_puts(b, "<td>");
        sb_esc(b, fc->value[f], 0);
        sb_puts(b, "</td>");
    }
    sb_printf(b, "<td class=\"n\">%s</td><td>", time);
    sb_esc(b, bitcts_report_str(c, "detail"), 0);
    html_description(b, c, "<div class=\"desc-row\" data-desc=\"case: ", 1, "\"></div>");
    sb_puts(b, "</td><td class=\"repro\"><div><code>");
    sb_esc(b, bitcts_report_str(c, "repro"), 0);
    sb_puts(b, "</code></div></td></tr>\n");
}

static void html_group(sbuf *b, const bitcts__report_view *v, const bitcts__report_group *grp,
                       size_t index)
{
    const char *verdict = bitcts_verdict_name(grp->verdict);
    char time[48];
    bitcts__report_duration(time, sizeof time, grp->ms);
    sb_printf(b,
              "<details class=\"group %s\" id=\"group-%zu\" data-verdict=\"%s\"%s>\n<summary>"
              "<span class=\"badge v-%s\">%s</span><span class=\"g-count\">%zu</span><code>",
              verdict, index + 1, verdict, index == 0 ? " open" : "", verdict, verdict, grp->count);
    sb_esc(b, *grp->op ? grp->op : "(no operator)", 0);
    sb_puts(b, "</code> <span class=\"sig\">");
    sb_esc(b, *grp->signature ? grp->signature : "(no detail)", 0);
    sb_puts(b, "</span><span class=\"g-match note\"></span><br><span class=\"note\">");
    sb_printf(b, "%zu case%s", grp->count, grp->count == 1 ? "" : "s");
    for (int f = BITCTS_REPORT_FACET_TYPE; f < BITCTS_REPORT_FACETS; ++f) {
        html_spread(b, grp, f);
    }
    sb_printf(b, " \xC2\xB7 %s</span></summary>\n", time);
    for (size_t j = 0; j < grp->count && j < BITCTS_REPORT_HTML_GROUP_CARDS; ++j) {
        html_case(b, json_array_get(v->cases, v->groups->order[grp->start + j]));
    }
    sb_puts(b, "<table class=\"cases\"><thead><tr><th>case</th><th>type</th><th>rank</th>"
               "<th>pattern</th><th class=\"n\">time</th><th>detail</th><th>repro</th></tr>"
               "</thead><tbody>\n");
    for (size_t j = 0; j < grp->count; ++j) {
        html_case_row(b, json_array_get(v->cases, v->groups->order[grp->start + j]),
                      &v->groups->facets[grp->start + j]);
    }
    sb_puts(b, "</tbody></table>\n</details>\n");
}

static void html_failures(sbuf *b, const bitcts__report_view *v)
{
    const bitcts__report_groups *g = v->groups;
    sb_printf(b, "<h2 id=\"failures-title\">Failures and warnings (%zu)</h2>\n", v->listed);
    if (!v->listed) {
        sb_puts(b, "<p>None: every case passed, was recorded or is not supported.</p>\n");
        return;
    }
    sb_printf(b,
              "<p class=\"note\" id=\"groups-note\">%zu cases in %zu group%s (one verdict, "
              "operator and message, numbers aside), largest first. Every case is listed in its "
              "group and found by the search; the first %u of each group show their bits. "
              "Click a value to search for it.</p>\n",
              g->n, g->n_groups, g->n_groups == 1 ? "" : "s", BITCTS_REPORT_HTML_GROUP_CARDS);
    html_facets(b, g);
    sb_puts(b, "<div id=\"controls\">Search: <input id=\"f-text\" placeholder=\"words in the id, "
               "type, rank, pattern, detail\" oninput=\"bitctsFilter()\"> <select "
               "id=\"f-verdict\" onchange=\"bitctsFilter()\"><option value=\"\">all "
               "verdicts</option>");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        if (bitcts__report_is_listed(k) && v->t->totals[k]) {
            sb_printf(b, "<option>%s</option>", bitcts_verdict_name(k));
        }
    }
    sb_printf(b,
              "</select> <button onclick=\"bitctsOpen(true)\">expand all</button> <button "
              "onclick=\"bitctsOpen(false)\">collapse all</button> <span id=\"f-count\" "
              "class=\"note\">%zu of %zu shown</span></div>\n<div id=\"failures\">\n",
              g->n, g->n);
    for (size_t i = 0; i < g->n_groups; ++i) {
        html_group(b, v, &g->groups[i], i);
    }
    sb_puts(b, "</div>\n");
}

static void html_recorded(sbuf *b, const bitcts__report_view *v)
{
    if (!v->t->totals[BITCTS_VERDICT_RECORDED]) {
        return;
    }
    sb_printf(b,
              "<h2 id=\"recorded\">Recorded cases by policy (%zu)</h2>\n"
              "<p class=\"note\">Shift counts at or above the element width: the result is "
              "classified, not asserted.</p>\n<table>\n<tr><th>operator</th>",
              v->t->totals[BITCTS_VERDICT_RECORDED]);
    for (size_t p = 0; p < BITCTS_REPORT_POLICY_COUNT; ++p) {
        if (v->t->policies[p] == 0) {
            continue; /* no empty columns */
        }
        sb_printf(b, "<th class=\"n\">%s</th>",
                  *bitcts_report_policy_name((int)p) ? bitcts_report_policy_name((int)p)
                                                     : "(none)");
    }
    sb_puts(b, "</tr>\n");
    for (size_t i = 0; i < v->t->n_ops; ++i) {
        if (!v->t->ops[i].verdicts[BITCTS_VERDICT_RECORDED]) {
            continue;
        }
        sb_puts(b, "<tr><td><code>");
        sb_esc(b, v->t->ops[i].name, 0);
        sb_puts(b, "</code></td>");
        for (size_t p = 0; p < BITCTS_REPORT_POLICY_COUNT; ++p) {
            if (v->t->policies[p] == 0) {
                continue;
            }
            sb_printf(b, "<td class=\"n\">%zu</td>", v->t->ops[i].policies[p]);
        }
        sb_puts(b, "</tr>\n");
    }
    sb_puts(b, "</table>\n");
}

static void html_slowest(sbuf *b, const bitcts__report_view *v)
{
    const json_t *slowest = json_object_get(v->report, "slowest");
    if (!json_array_size(slowest)) {
        return;
    }
    sb_puts(b, "<h2 id=\"slowest\">Slowest cases</h2>\n<table>\n"
               "<tr><th>case</th><th class=\"n\">ms</th></tr>\n");
    for (size_t i = 0; i < json_array_size(slowest); ++i) {
        const json_t *e = json_array_get(slowest, i);
        sb_puts(b, "<tr><td><code>");
        sb_esc(b, bitcts_report_str(e, "id"), 0);
        sb_printf(b, "</code></td><td class=\"n\">%.3f</td></tr>\n",
                  bitcts_report_num(e, "duration_ms"));
    }
    sb_puts(b, "</table>\n");
}

/* One line of the analysis as a list item. */
static void html_analysis_line(sbuf *b, const char *s)
{
    sb_puts(b, "<li>");
    sb_esc(b, s, 0);
    sb_puts(b, "</li>");
}

/* The full pass-rate table of one attribute. */
static void html_attribute(sbuf *b, const json_t *attr)
{
    const json_t *values = json_object_get(attr, "values");
    sb_puts(b, "<tr><th>");
    sb_esc(b, bitcts_report_str(attr, "name"), 0);
    sb_puts(b, "</th><td>");
    for (size_t i = 0; i < json_array_size(values); ++i) {
        const json_t *val = json_array_get(values, i);
        sb_puts(b, i ? ", " : "");
        sb_esc(b, bitcts_report_str(val, "value"), 0);
        sb_printf(b, " %.1f%% of %.0f", 100.0 * bitcts_report_num(val, "pass_rate"),
                  bitcts_report_num(val, "cases"));
    }
    sb_puts(b, "</td></tr>\n");
}

/* The analysis of the failures, at the top: the explanation, the most telling pass rates, and
 * every attribute's pass rates folded away. */
static void html_analysis(sbuf *b, const bitcts__report_view *v)
{
    if (v->analysis == NULL) {
        return;
    }
    sb_puts(b, "<section id=\"analysis\"><h2>Analysis</h2>\n<ul>");
    bitcts__analysis_lines(b, v->analysis, "", html_analysis_line);
    sb_puts(b, "</ul>\n<details><summary>pass rate of every attribute value</summary>"
               "<table>\n");
    const json_t *attrs = json_object_get(v->analysis, "attributes");
    for (size_t i = 0; i < json_array_size(attrs); ++i) {
        html_attribute(b, json_array_get(attrs, i));
    }
    sb_puts(b, "</table></details></section>\n");
}

void bitcts__report_render_html(sbuf *b, const bitcts__report_view *v)
{
    const char *backend = bitcts_report_str(json_object_get(v->report, "backend"), "name");
    sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>bitcts report: ");
    sb_esc(b, backend, 0);
    sb_printf(b,
              "</title>\n<style>\n%s</style>\n%s</head>\n<body>\n<header><h1>bitcts "
              "conformance report<span class=\"status %s\">%s</span></h1></header>\n<main>\n",
              html_style, html_script, v->clean ? "passed" : "failed",
              v->clean ? "PASSED" : "FAILED");
    sb_printf(b,
              "<p id=\"overview\">%zu cases, %zu listed below as failures or warnings, in %zu "
              "group%s.</p>\n",
              v->t->n, v->listed, v->groups->n_groups, v->groups->n_groups == 1 ? "" : "s");
    if (bitcts_report_str(v->report, "stopped")[0] != '\0') { /* a stop rule ended it early */
        sb_puts(b, "<p id=\"stopped\"><strong>The run stopped early:</strong> ");
        sb_esc(b, bitcts_report_str(v->report, "stopped"), 0);
        sb_puts(b, "</p>\n");
    }
    if (bitcts_report_str(v->report, "retried")[0] != '\0') { /* --retry-cases */
        sb_puts(b, "<p id=\"retried\"><strong>Retries:</strong> ");
        sb_esc(b, bitcts_report_str(v->report, "retried"), 0);
        sb_puts(b, "</p>\n");
    }
    html_analysis(b, v);
    html_identity(b, v);
    html_verdict_table(b, v);
    bitcts__report_claims_html(b, v->report);
    html_failures(b, v);
    html_recorded(b, v);
    html_slowest(b, v);
    sb_puts(b, "</main>\n</body>\n</html>\n");
}
