/* SPDX-License-Identifier: MIT */
/* Renders a validated report as report.json, JUnit XML, one self-contained HTML page and a
 * GitHub-flavoured Markdown summary, and writes them atomically. Every renderer appends to one
 * growable buffer that remembers an allocation failure, so the code reads top to bottom and
 * checks once at the end; every string from the report goes through an escaper. */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* malloc, qsort */
#include <string.h> /* strlen */

#include "fs_util.h"
#include "report.h"

/* ---- the text buffer ---- */

typedef struct sbuf {
    char *data;
    size_t len;
    size_t cap;
    int failed;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
sb_printf(sbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
    } else if ((size_t)n < sizeof small) {
        sb_add(b, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (!big) {
            b->failed = 1;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb_add(b, big, (size_t)n);
        free(big);
    }
}

/* XML and HTML text: & < > " ' become references; characters XML 1.0 cannot hold (controls
 * other than tab and newline, U+FFFE, U+FFFF) become U+FFFD; in attributes tab and newline are
 * kept as references so that they survive attribute normalisation. */
static void sb_esc(sbuf *b, const char *s, int attr)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        case '\n': rep = attr ? "&#10;" : "\n"; break;
        case '\t': rep = attr ? "&#9;" : "\t"; break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                rep = "\xEF\xBF\xBD";
            else if (p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
                rep = "\xEF\xBF\xBD", p += 2;
        }
        if (rep)
            sb_puts(b, rep);
        else
            sb_add(b, (const char *)p, 1);
    }
}

/* Markdown text: ASCII punctuation with a meaning is backslash-escaped, line breaks become
 * spaces, so a detail cannot open a table cell, a link, an HTML tag or a heading. */
static void sb_md(sbuf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t')
            sb_add(b, " ", 1);
        else if ((unsigned char)*p < 0x20 || *p == 0x7f)
            sb_puts(b, "\xEF\xBF\xBD");
        else if (strchr("\\`*_[]<>|#!~&", *p))
            sb_add(b, (const char[]){'\\', *p}, 2);
        else
            sb_add(b, p, 1);
    }
}

/* A Markdown code span: the fence is one backtick longer than the longest run inside. In a
 * table cell '|' is escaped, which GitHub requires even inside code; elsewhere a backslash
 * would show, so it is not. */
static void sb_md_span(sbuf *b, const char *s, int in_table)
{
    size_t longest = 0;
    size_t run = 0;
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    if (longest >= 7) { /* no fence of ours could hold it: escaped text instead */
        sb_md(b, s);
        return;
    }
    const size_t fence = longest + 1;
    const int pad = *s == '`' || (*s && s[strlen(s) - 1] == '`');
    sb_add(b, "````````", fence);
    if (pad)
        sb_add(b, " ", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '|' && in_table)
            sb_puts(b, "\\|");
        else if ((unsigned char)*p < 0x20 || *p == 0x7f)
            sb_add(b, " ", 1);
        else
            sb_add(b, p, 1);
    }
    if (pad)
        sb_add(b, " ", 1);
    sb_add(b, "````````", fence);
}

static void sb_md_code(sbuf *b, const char *s)
{
    sb_md_span(b, s, 0);
}

static void sb_md_cell(sbuf *b, const char *s)
{
    sb_md_span(b, s, 1);
}

/* ---- the view: the tally plus what the failure sections need ---- */

typedef struct view {
    const json_t *report;
    const json_t *cases;
    bitcts_report_tally *t;
    size_t listed; /* cases the failure sections list */
    int clean;
} view;

static int is_listed(int verdict)
{
    return verdict != BITCTS_VERDICT_PASS && verdict != BITCTS_VERDICT_RECORDED &&
           verdict != BITCTS_VERDICT_NOT_SUPPORTED;
}

static bitcts_status view_build(view *v, const json_t *report)
{
    *v = (view){.report = report, .cases = json_object_get(report, "cases")};
    const bitcts_status st = bitcts_report_tally_create(report, &v->t);
    if (st != BITCTS_OK)
        return st;
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++)
        v->listed += is_listed(k) ? v->t->totals[k] : 0;
    v->clean = bitcts_report_is_clean(report);
    return BITCTS_OK;
}

/* "0x00ff" -> "0000000011111111"; other text is left out. */
static void hex_to_bin(const char *hex, char *out, size_t cap)
{
    static const char digits[] = "0123456789abcdef0123456789ABCDEF";
    size_t n = 0;
    out[0] = '\0';
    if (hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X') || !hex[2])
        return;
    for (const char *p = hex + 2; *p; p++) {
        const char *d = strchr(digits, *p);
        if (!d || n + 5 > cap) {
            out[0] = '\0';
            return;
        }
        const int value = (int)((d - digits) % 16);
        for (int bit = 3; bit >= 0; bit--)
            out[n++] = (char)('0' + ((value >> bit) & 1));
    }
    out[n] = '\0';
}

/* The shell words of the command line, quoted where needed. */
static void sb_command_line(sbuf *b, const json_t *report, void (*emit)(sbuf *, const char *))
{
    const json_t *argv = json_object_get(report, "command_line");
    sbuf line = {0};
    for (size_t i = 0; i < json_array_size(argv); i++) {
        const char *arg = json_string_value(json_array_get(argv, i));
        const int plain = *arg && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_./:=,+-@%") == strlen(arg);
        if (i)
            sb_add(&line, " ", 1);
        if (plain) {
            sb_puts(&line, arg);
            continue;
        }
        sb_add(&line, "'", 1);
        for (const char *p = arg; *p; p++) {
            if (*p == '\'')
                sb_puts(&line, "'\\''");
            else
                sb_add(&line, p, 1);
        }
        sb_add(&line, "'", 1);
    }
    b->failed |= line.failed;
    emit(b, line.data ? line.data : "");
    free(line.data);
}

static void sb_esc_text(sbuf *b, const char *s)
{
    sb_esc(b, s, 0);
}

static const char *first_input_name(size_t count, size_t i)
{
    static const char *const names[] = {"A", "B", "C", "D"};
    return count == 1 ? "input" : i < 4 ? names[i] : "?";
}

/* ---- JUnit XML ---- */

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
        {"shard", bitcts_report_str(json_object_get(r, "selection"), "shard")},
    };
    sb_puts(b, "    <properties>\n");
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
        sb_printf(b, "      <property name=\"%s\" value=\"", props[i][0]);
        sb_esc(b, props[i][1], 1);
        sb_puts(b, "\"/>\n");
    }
    sb_puts(b, "    </properties>\n");
}

/* The plain-text evidence of a case: detail, mismatch, digest, warnings, baseline, repro. */
static void case_evidence_text(sbuf *b, const json_t *c)
{
    const json_t *failure = json_object_get(c, "failure");
    const json_t *first = json_object_get(failure, "first");
    const json_t *warnings = json_object_get(c, "warnings");
    if (*bitcts_report_str(c, "detail"))
        sb_printf(b, "detail: %s\n", bitcts_report_str(c, "detail"));
    if (json_is_object(failure))
        sb_printf(b, "mismatches: %lld of %lld elements\n",
                  (long long)json_integer_value(json_object_get(failure, "mismatches")),
                  (long long)json_integer_value(json_object_get(failure, "elements")));
    if (json_is_object(first)) {
        const json_t *coords = json_object_get(first, "coords");
        const json_t *inputs = json_object_get(first, "inputs");
        sb_printf(b, "first mismatch: index %lld, coords [",
                  (long long)json_integer_value(json_object_get(first, "index")));
        for (size_t i = 0; i < json_array_size(coords); i++)
            sb_printf(b, "%s%lld", i ? ", " : "",
                      (long long)json_integer_value(json_array_get(coords, i)));
        sb_puts(b, "]\n");
        for (size_t i = 0; i < json_array_size(inputs); i++)
            sb_printf(b, "  %-8s %s\n", first_input_name(json_array_size(inputs), i),
                      json_string_value(json_array_get(inputs, i)));
        sb_printf(b, "  expected %s %s\n  actual   %s %s\n", bitcts_report_str(first, "expected"),
                  bitcts_report_str(first, "expected_bin"), bitcts_report_str(first, "actual"),
                  bitcts_report_str(first, "actual_bin"));
    }
    if (*bitcts_report_str(c, "output_xxh3_128"))
        sb_printf(b, "output xxh3-128: %s\n", bitcts_report_str(c, "output_xxh3_128"));
    for (size_t i = 0; i < json_array_size(warnings); i++)
        sb_printf(b, "warning: %s\n", json_string_value(json_array_get(warnings, i)));
    if (*bitcts_report_str(c, "baseline"))
        sb_printf(b, "baseline: %s\n", bitcts_report_str(c, "baseline"));
    if (*bitcts_report_str(c, "policy"))
        sb_printf(b, "policy: %s\n", bitcts_report_str(c, "policy"));
    sb_printf(b, "repro: %s\n", bitcts_report_str(c, "repro"));
}

static int junit_is_failure(int v)
{
    return bitcts_verdict_is_failure(v);
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
    if (v == BITCTS_VERDICT_PASS)
        return;
    sbuf text = {0};
    case_evidence_text(&text, c);
    b->failed |= text.failed;
    if (junit_is_failure(v)) {
        sb_printf(b, "      <failure type=\"%s\" message=\"%s%s", name, name, *detail ? ": " : "");
        sb_esc(b, detail, 1);
        sb_puts(b, "\">");
        sb_esc(b, text.data ? text.data : "", 0);
        sb_puts(b, "</failure>\n");
    } else if (v == BITCTS_VERDICT_NOT_SUPPORTED) {
        sb_puts(b, "      <skipped message=\"");
        sb_esc(b, *detail ? detail : "not supported", 1);
        sb_puts(b, "\"/>\n");
    } else { /* warn, recorded, expected_fail */
        sb_printf(b, "      <system-out>%s\n", name);
        sb_esc(b, text.data ? text.data : "", 0);
        sb_puts(b, "</system-out>\n");
    }
    free(text.data);
    sb_puts(b, "    </testcase>\n");
}

static void render_junit(sbuf *b, const view *v)
{
    size_t failures = 0;
    double total_ms = 0;
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++)
        failures += junit_is_failure(k) ? v->t->totals[k] : 0;
    for (size_t i = 0; i < v->t->n_ops; i++)
        total_ms += v->t->ops[i].ms;
    sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_printf(b,
              "<testsuites name=\"bitcts\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
              "skipped=\"%zu\" time=\"%.6f\">\n",
              v->t->n, failures, v->t->totals[BITCTS_VERDICT_NOT_SUPPORTED],
              total_ms / 1000.0);
    for (size_t i = 0; i < v->t->n_ops; i++) {
        const bitcts_report_op_tally *row = &v->t->ops[i];
        size_t row_failures = 0;
        for (int k = 0; k < BITCTS_VERDICT_COUNT; k++)
            row_failures += junit_is_failure(k) ? row->verdicts[k] : 0;
        sb_puts(b, "  <testsuite name=\"bitcts.");
        sb_esc(b, row->name, 1);
        sb_printf(b,
                  "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
                  "time=\"%.6f\" timestamp=\"",
                  row->count, row_failures, row->verdicts[BITCTS_VERDICT_NOT_SUPPORTED],
                  row->ms / 1000.0);
        sb_esc(b, bitcts_report_str(v->report, "started"), 1);
        sb_puts(b, "\" hostname=\"");
        sb_esc(b, bitcts_report_str(json_object_get(v->report, "host"), "hostname"), 1);
        sb_puts(b, "\">\n");
        junit_properties(b, v->report);
        for (size_t k = 0; k < row->count; k++)
            junit_case(b, row->name, json_array_get(v->cases, v->t->order[row->start + k]));
        sb_puts(b, "  </testsuite>\n");
    }
    sb_puts(b, "</testsuites>\n");
}

/* ---- HTML ---- */

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
    "white-space:pre-wrap;word-break:break-all;margin:6px 0}\n"
    ".case{border:1px solid #d0d7de;border-left:6px solid #cf222e;border-radius:6px;"
    "padding:6px 14px;margin:12px 0}\n"
    ".case.warn{border-left-color:#bf8700}.case.expected_fail{border-left-color:#8c959f}\n"
    ".case h3{margin:4px 0;font-size:14px;word-break:break-all}\n"
    ".badge{display:inline-block;border-radius:10px;padding:0 8px;margin-right:8px;"
    "font-size:12px;font-weight:600;border:1px solid #d0d7de}\n"
    "mark{background:#ffb8b0;color:inherit}\n"
    ".note{color:#57606a}\n"
    "#controls{margin:8px 0}#controls input,#controls select{font:inherit;padding:2px 6px}\n";

static const char html_script[] =
    "<script>\n"
    "function bitctsFilter(){var t=document.getElementById('f-text').value.toLowerCase(),"
    "v=document.getElementById('f-verdict').value,n=0;"
    "document.querySelectorAll('#failures .case').forEach(function(e){"
    "var ok=(!v||e.dataset.verdict===v)&&(!t||e.dataset.id.toLowerCase().indexOf(t)>=0);"
    "e.style.display=ok?'':'none';n+=ok?1:0;});"
    "document.getElementById('f-count').textContent=n+' shown';}\n"
    "</script>\n";

static void html_meta_row(sbuf *b, const char *label, const char *value, int mono)
{
    sb_printf(b, "<dt>%s</dt><dd%s>", label, mono ? " class=\"mono\"" : "");
    sb_esc(b, *value ? value : "\xE2\x80\x94", 0);
    sb_puts(b, "</dd>\n");
}

static void html_identity(sbuf *b, const view *v)
{
    const json_t *r = v->report;
    const json_t *be = json_object_get(r, "backend");
    const json_t *host = json_object_get(r, "host");
    const json_t *sel = json_object_get(r, "selection");
    char line[512];
    sb_puts(b, "<dl class=\"meta\">\n");
    html_meta_row(b, "Suite version", bitcts_report_str(r, "suite_version"), 0);
    snprintf(line, sizeof line, "%s \xE2\x80\x94 %s, version %s, build %s",
             bitcts_report_str(be, "name"), bitcts_report_str(be, "vendor"),
             bitcts_report_str(be, "version"), bitcts_report_str(be, "build_id"));
    html_meta_row(b, "Backend", line, 0);
    snprintf(line, sizeof line, "%s (%s)", bitcts_report_str(be, "spec"),
             bitcts_report_str(be, "path"));
    html_meta_row(b, "Backend spec (path)", line, 1);
    html_meta_row(b, "Library XXH3-128", bitcts_report_str(be, "library_xxh3_128"), 1);
    html_meta_row(b, "Feature level", bitcts_report_str(be, "feature_level"), 0);
    html_meta_row(b, "ABI version", bitcts_report_str(be, "abi_version"), 0);
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)json_object_get(be, "info"), key, value)
    {
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
    sb_command_line(b, r, sb_esc_text);
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
    if (count)
        sb_printf(b, "<td class=\"n v-%s\">%zu</td>", bitcts_verdict_name(verdict), count);
    else
        sb_puts(b, "<td class=\"n zero\">0</td>");
}

static void html_verdict_table(sbuf *b, const view *v)
{
    int shown[BITCTS_VERDICT_COUNT];
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++)
        shown[k] =
            v->t->totals[k] || k == BITCTS_VERDICT_PASS || k == BITCTS_VERDICT_FAIL;
    sb_puts(b, "<h2 id=\"verdicts\">Verdicts by operator</h2>\n"
               "<table id=\"verdict-table\" class=\"verdicts\">\n<tr><th>operator</th>");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++) {
        if (shown[k])
            sb_printf(b, "<th class=\"n\">%s</th>", bitcts_verdict_name(k));
    }
    sb_puts(b, "<th class=\"n\">total</th><th class=\"n\">time (s)</th></tr>\n");
    double total_ms = 0;
    for (size_t i = 0; i < v->t->n_ops; i++) {
        const bitcts_report_op_tally *row = &v->t->ops[i];
        sb_puts(b, "<tr><td><code>");
        sb_esc(b, row->name, 0);
        sb_puts(b, "</code></td>");
        for (int k = 0; k < BITCTS_VERDICT_COUNT; k++) {
            if (shown[k])
                html_count_cell(b, row->verdicts[k], k);
        }
        sb_printf(b, "<td class=\"n\">%zu</td><td class=\"n\">%.2f</td></tr>\n", row->count,
                  row->ms / 1000.0);
        total_ms += row->ms;
    }
    sb_puts(b, "<tr class=\"total\"><td>total</td>");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++) {
        if (shown[k])
            html_count_cell(b, v->t->totals[k], k);
    }
    sb_printf(b, "<td class=\"n\">%zu</td><td class=\"n\">%.2f</td></tr>\n</table>\n", v->t->n,
              total_ms / 1000.0);
}

/* Binary digits of `bits`, with the digits that differ from `other` marked. */
static void html_bits(sbuf *b, const char *bits, const char *other)
{
    const int same_len = strlen(bits) == strlen(other);
    for (size_t i = 0; bits[i]; i++) {
        const int differs = same_len && bits[i] != other[i];
        if (differs)
            sb_puts(b, "<mark>");
        sb_esc(b, (const char[]){bits[i], '\0'}, 0);
        if (differs)
            sb_puts(b, "</mark>");
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
    for (size_t i = 0; i < json_array_size(coords); i++)
        sb_printf(b, "%s%lld", i ? ", " : "",
                  (long long)json_integer_value(json_array_get(coords, i)));
    sb_puts(b,
            "]:</p>\n<table class=\"mismatch\">\n<tr><th></th><th>hex</th><th>binary</th></tr>\n");
    for (size_t i = 0; i < json_array_size(inputs); i++) {
        const char *hex = json_string_value(json_array_get(inputs, i));
        char bin[80];
        char label[32];
        hex_to_bin(hex, bin, sizeof bin);
        snprintf(label, sizeof label, "input %s", first_input_name(json_array_size(inputs), i));
        html_value_row(b, json_array_size(inputs) == 1 ? "input" : label, hex, bin, "");
    }
    const char *expected_bin = bitcts_report_str(first, "expected_bin");
    const char *actual_bin = bitcts_report_str(first, "actual_bin");
    html_value_row(b, "expected", bitcts_report_str(first, "expected"), expected_bin, actual_bin);
    html_value_row(b, "actual", bitcts_report_str(first, "actual"), actual_bin, expected_bin);
    sb_puts(b, "</table>\n");
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
    if (json_is_object(json_object_get(c, "failure")))
        html_mismatch(b, json_object_get(c, "failure"));
    for (size_t i = 0; i < json_array_size(warnings); i++) {
        sb_puts(b, "<p>warning: ");
        sb_esc(b, json_string_value(json_array_get(warnings, i)), 0);
        sb_puts(b, "</p>\n");
    }
    if (*bitcts_report_str(c, "baseline")) {
        sb_puts(b, "<p>baseline: ");
        sb_esc(b, bitcts_report_str(c, "baseline"), 0);
        sb_puts(b, "</p>\n");
    }
    if (*bitcts_report_str(c, "output_xxh3_128"))
        sb_printf(b, "<p>output XXH3-128: <code>%s</code></p>\n",
                  bitcts_report_str(c, "output_xxh3_128")); /* validated: hex digits only */
    sb_puts(b, "<pre><code>");
    sb_esc(b, bitcts_report_str(c, "repro"), 0);
    sb_puts(b, "</code></pre>\n</div>\n");
}

static void html_failures(sbuf *b, const view *v)
{
    sb_printf(b, "<h2 id=\"failures-title\">Failures and warnings (%zu)</h2>\n", v->listed);
    if (!v->listed) {
        sb_puts(b, "<p>None: every case passed, was recorded or is not supported.</p>\n");
        return;
    }
    sb_puts(b, "<div id=\"controls\">Filter: <input id=\"f-text\" placeholder=\"case id contains\" "
               "oninput=\"bitctsFilter()\"> <select id=\"f-verdict\" onchange=\"bitctsFilter()\">"
               "<option value=\"\">all verdicts</option>");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++) {
        if (is_listed(k) && v->t->totals[k])
            sb_printf(b, "<option>%s</option>", bitcts_verdict_name(k));
    }
    sb_puts(b,
            "</select> <span id=\"f-count\" class=\"note\"></span></div>\n<div id=\"failures\">\n");
    size_t shown = 0;
    for (size_t i = 0; i < v->t->n && shown < BITCTS_REPORT_HTML_MAX_FAILURES; i++) {
        const json_t *c = json_array_get(v->cases, i);
        if (is_listed(bitcts_report_case_verdict(c))) {
            html_case(b, c);
            shown++;
        }
    }
    sb_puts(b, "</div>\n");
    if (shown < v->listed)
        sb_printf(b,
                  "<p class=\"note\">%zu more not shown (the first %u are listed); "
                  "report.json and junit.xml hold every case.</p>\n",
                  v->listed - shown, BITCTS_REPORT_HTML_MAX_FAILURES);
}

static void html_recorded(sbuf *b, const view *v)
{
    if (!v->t->totals[BITCTS_VERDICT_RECORDED])
        return;
    sb_printf(b,
              "<h2 id=\"recorded\">Recorded cases by policy (%zu)</h2>\n"
              "<p class=\"note\">Shift counts at or above the element width: the result is "
              "classified, not asserted.</p>\n<table>\n<tr><th>operator</th>",
              v->t->totals[BITCTS_VERDICT_RECORDED]);
    for (size_t p = 0; p < BITCTS_REPORT_POLICY_COUNT; p++)
        sb_printf(b, "<th class=\"n\">%s</th>",
                  *bitcts_report_policy_name((int)p) ? bitcts_report_policy_name((int)p)
                                                     : "(none)");
    sb_puts(b, "</tr>\n");
    for (size_t i = 0; i < v->t->n_ops; i++) {
        if (!v->t->ops[i].verdicts[BITCTS_VERDICT_RECORDED])
            continue;
        sb_puts(b, "<tr><td><code>");
        sb_esc(b, v->t->ops[i].name, 0);
        sb_puts(b, "</code></td>");
        for (size_t p = 0; p < BITCTS_REPORT_POLICY_COUNT; p++)
            sb_printf(b, "<td class=\"n\">%zu</td>", v->t->ops[i].policies[p]);
        sb_puts(b, "</tr>\n");
    }
    sb_puts(b, "</table>\n");
}

static void html_slowest(sbuf *b, const view *v)
{
    const json_t *slowest = json_object_get(v->report, "slowest");
    if (!json_array_size(slowest))
        return;
    sb_puts(b, "<h2 id=\"slowest\">Slowest cases</h2>\n<table>\n"
               "<tr><th>case</th><th class=\"n\">ms</th></tr>\n");
    for (size_t i = 0; i < json_array_size(slowest); i++) {
        const json_t *e = json_array_get(slowest, i);
        sb_puts(b, "<tr><td><code>");
        sb_esc(b, bitcts_report_str(e, "id"), 0);
        sb_printf(b, "</code></td><td class=\"n\">%.3f</td></tr>\n",
                  bitcts_report_num(e, "duration_ms"));
    }
    sb_puts(b, "</table>\n");
}

static void render_html(sbuf *b, const view *v)
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
    sb_printf(b, "<p id=\"overview\">%zu cases, %zu listed below as failures or warnings.</p>\n",
              v->t->n, v->listed);
    html_identity(b, v);
    html_verdict_table(b, v);
    html_failures(b, v);
    html_recorded(b, v);
    html_slowest(b, v);
    sb_puts(b, "</main>\n</body>\n</html>\n");
}

/* ---- Markdown ---- */

static void md_verdict_table(sbuf *b, const view *v)
{
    int shown[BITCTS_VERDICT_COUNT];
    sb_puts(b, "## Verdicts by operator\n\n| operator |");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++) {
        shown[k] =
            v->t->totals[k] || k == BITCTS_VERDICT_PASS || k == BITCTS_VERDICT_FAIL;
        if (shown[k])
            sb_printf(b, " %s |", bitcts_verdict_name(k));
    }
    sb_puts(b, " total |\n|---|");
    for (int k = 0; k < BITCTS_VERDICT_COUNT; k++)
        sb_puts(b, shown[k] ? "---:|" : "");
    sb_puts(b, "---:|\n");
    for (size_t i = 0; i <= v->t->n_ops; i++) {
        const size_t *counts = i < v->t->n_ops ? v->t->ops[i].verdicts : v->t->totals;
        sb_puts(b, "| ");
        if (i < v->t->n_ops)
            sb_md_cell(b, v->t->ops[i].name);
        else
            sb_puts(b, "**total**");
        sb_puts(b, " |");
        for (int k = 0; k < BITCTS_VERDICT_COUNT; k++) {
            if (shown[k])
                sb_printf(b, " %zu |", counts[k]);
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
    if (json_is_object(first)) {
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
    sb_puts(b, "  \n  ");
    sb_md_code(b, bitcts_report_str(c, "repro"));
    sb_puts(b, "\n");
}

static void render_markdown(sbuf *b, const view *v)
{
    const json_t *r = v->report;
    const json_t *be = json_object_get(r, "backend");
    sb_printf(b, "# bitcts report: %s\n\n", v->clean ? "PASSED" : "FAILED");
    sb_printf(b, "%zu cases; suite ", v->t->n);
    sb_md(b, bitcts_report_str(r, "suite_version"));
    sb_puts(b, "; backend **");
    sb_md(b, bitcts_report_str(be, "name"));
    sb_puts(b, "** ");
    sb_md(b, bitcts_report_str(be, "vendor"));
    sb_puts(b, " ");
    sb_md(b, bitcts_report_str(be, "version"));
    sb_puts(b, ", feature level ");
    sb_md(b, bitcts_report_str(be, "feature_level"));
    sb_puts(b, "; library ");
    sb_md_code(b, *bitcts_report_str(be, "library_xxh3_128")
                      ? bitcts_report_str(be, "library_xxh3_128")
                      : "built-in");
    sb_puts(b, "; seed ");
    sb_md_code(b, bitcts_report_str(r, "seed"));
    sb_puts(b, "; host ");
    sb_md(b, bitcts_report_str(json_object_get(r, "host"), "hostname"));
    sb_puts(b, ".\n\nCommand: ");
    sb_command_line(b, r, sb_md_code);
    sb_puts(b, "\n\n");
    md_verdict_table(b, v);
    sb_printf(b, "\n## Failures and warnings (%zu)\n\n", v->listed);
    size_t shown = 0;
    for (size_t i = 0; i < v->t->n && shown < BITCTS_REPORT_MD_MAX_FAILURES; i++) {
        const json_t *c = json_array_get(v->cases, i);
        if (is_listed(bitcts_report_case_verdict(c))) {
            md_case(b, c);
            shown++;
        }
    }
    if (!v->listed)
        sb_puts(b, "None.\n");
    else if (shown < v->listed)
        sb_printf(b, "\n%zu more not shown; see report.html or report.json.\n", v->listed - shown);
    const json_t *slowest = json_object_get(r, "slowest");
    if (json_array_size(slowest))
        sb_puts(b, "\n## Slowest cases\n\n| case | ms |\n|---|---:|\n");
    for (size_t i = 0; i < json_array_size(slowest); i++) {
        sb_puts(b, "| ");
        sb_md_cell(b, bitcts_report_str(json_array_get(slowest, i), "id"));
        sb_printf(b, " | %.3f |\n", bitcts_report_num(json_array_get(slowest, i), "duration_ms"));
    }
}

/* ---- entry points ---- */

bitcts_status bitcts_report_render(const json_t *report, bitcts_report_format format, char **out,
                                   size_t *size)
{
    if (!report || !out || format < BITCTS_REPORT_FORMAT_JSON ||
        format > BITCTS_REPORT_FORMAT_MARKDOWN)
        return BITCTS_E_INVALID_ARGUMENT;
    *out = NULL;
    if (format == BITCTS_REPORT_FORMAT_JSON) {
        char *text = json_dumps(report, JSON_INDENT(1));
        const size_t len = text ? strlen(text) : 0;
        char *with_newline = text ? realloc(text, len + 2) : NULL;
        if (!with_newline) {
            free(text);
            return BITCTS_E_OUT_OF_MEMORY;
        }
        memcpy(with_newline + len, "\n", 2);
        *out = with_newline;
        if (size)
            *size = len + 1;
        return BITCTS_OK;
    }
    view v;
    const bitcts_status st = view_build(&v, report);
    if (st != BITCTS_OK)
        return st;
    sbuf b = {0};
    if (format == BITCTS_REPORT_FORMAT_JUNIT)
        render_junit(&b, &v);
    else if (format == BITCTS_REPORT_FORMAT_HTML)
        render_html(&b, &v);
    else
        render_markdown(&b, &v);
    bitcts_report_tally_destroy(v.t);
    if (b.failed || !b.data) {
        free(b.data);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    *out = b.data;
    if (size)
        *size = b.len;
    return BITCTS_OK;
}

static int write_format(const json_t *report, const char *dir, const char *file,
                        bitcts_report_format format, char *err, size_t cap)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) {
        snprintf(err, cap, "report folder path is too long: %s", dir);
        return BITCTS_E_INVALID_ARGUMENT;
    }
    char *text = NULL;
    size_t size = 0;
    const bitcts_status st = bitcts_report_render(report, format, &text, &size);
    if (st != BITCTS_OK) {
        snprintf(err, cap, "cannot render %s: %s", path, bitcts_status_message(st));
        return st;
    }
    const int wr = bitcts_fs_write_atomic(path, text, size, err, cap);
    free(text);
    return wr;
}

/* Validates and creates the folder; shared by both writers. */
static int prepare(const json_t *report, const char *dir, char *err, size_t cap)
{
    if (!report || !dir || !*dir || !err || !cap) {
        if (err && cap)
            snprintf(err, cap, "no report or folder given");
        return BITCTS_E_INVALID_ARGUMENT;
    }
    err[0] = '\0';
    char name[4096];
    snprintf(name, sizeof name, "%s/report.json", dir);
    const bitcts_status st = bitcts_report_validate(report, name, err, cap);
    if (st != BITCTS_OK)
        return st;
    return bitcts_fs_mkdirs(dir, err, cap);
}

static int write_views(const json_t *report, const char *dir, char *err, size_t cap)
{
    int st = write_format(report, dir, "junit.xml", BITCTS_REPORT_FORMAT_JUNIT, err, cap);
    if (st == BITCTS_OK)
        st = write_format(report, dir, "report.html", BITCTS_REPORT_FORMAT_HTML, err, cap);
    if (st == BITCTS_OK)
        st = write_format(report, dir, "summary.md", BITCTS_REPORT_FORMAT_MARKDOWN, err, cap);
    return st;
}

int bitcts_report_write_views(const json_t *report, const char *dir, char *err, size_t cap)
{
    const int st = prepare(report, dir, err, cap);
    return st != BITCTS_OK ? st : write_views(report, dir, err, cap);
}

int bitcts_report_write_all(const json_t *report, const char *dir, char *err, size_t cap)
{
    int st = prepare(report, dir, err, cap);
    if (st == BITCTS_OK)
        st = write_format(report, dir, "report.json", BITCTS_REPORT_FORMAT_JSON, err, cap);
    return st != BITCTS_OK ? st : write_views(report, dir, err, cap);
}
