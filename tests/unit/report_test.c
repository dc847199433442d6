/* SPDX-License-Identifier: MIT */
/* Tests of the reports module: builds reports in memory (every verdict, mismatches, odd
 * characters), writes every format and checks them; diff, merge and the parser's errors.
 * With an argument, leaves a sample report folder there (tests/cli/html_chromium.sh). */
#include <stdint.h> /* uint64_t */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* mkdtemp, system */
#include <string.h> /* strstr */
#include <unistd.h> /* access */

#include "check.h"
#include "commands.h"
#include "fs_util.h"
#include "report_files.h"
#include "report_group.h"

#define SEED "0x0062697463747331"
#define ODD_ID "bit_xor.uint8.r1.odd<&\"'>.0"
#define ODD_DETAIL "got <script>alert(1)</script> & \"quotes\" 'apostrophes' | pipes `ticks`"

/* ---- building reports ---- */

static json_t *make_failure(json_int_t mismatches, json_int_t index, const char *in_a,
                            const char *in_b, const char *expected, const char *actual,
                            const char *expected_bin, const char *actual_bin)
{
    json_t *inputs = json_pack("[s]", in_a);
    if (in_b != NULL) {
        json_array_append_new(inputs, json_string(in_b));
    }
    return json_pack("{s:I, s:I, s:{s:I, s:[I,I,I], s:o, s:s, s:s, s:s, s:s}}", "mismatches",
                     mismatches, "elements", (json_int_t)4096, "first", "index", index, "coords",
                     (json_int_t)0, (json_int_t)1, index % 7, "inputs", inputs, "expected",
                     expected, "actual", actual, "expected_bin", expected_bin, "actual_bin",
                     actual_bin);
}

static json_t *make_case(size_t plan_index, const char *id, const char *verdict, double ms,
                         const char *detail, const char *policy, json_t *failure)
{
    char op[64];
    char digest[40];
    char repro[700];
    snprintf(op, sizeof op, "%.*s", (int)strcspn(id, "."), id);
    snprintf(digest, sizeof digest, "%032zx", plan_index * 0x9e3779b9u + 1);
    snprintf(repro, sizeof repro, "bitcts run --backend cpu --filter '%s' --seed " SEED, id);
    const int has_output = strcmp(verdict, "pass") == 0 || strcmp(verdict, "warn") == 0 ||
                           strcmp(verdict, "recorded") == 0 || strcmp(verdict, "fail") == 0;
    return json_pack("{s:s, s:s, s:s, s:s, s:f, s:s, s:s, s:s, s:[], s:o, s:s, s:s, s:I}", "id", id,
                     "operator", op, "feature_level", "3_0", "verdict", verdict, "duration_ms", ms,
                     "output_xxh3_128", has_output ? digest : "", "detail", detail, "policy",
                     policy, "warnings", "failure", failure != NULL ? failure : json_null(),
                     "baseline", "", "repro", repro, "plan_index", (json_int_t)plan_index);
}

/* Recomputes what depends on the cases. */
static void finish_report(json_t *r)
{
    const json_t *cases = json_object_get(r, "cases");
    json_object_set_new(r, "summary", bitcts_report_summarize(cases));
    json_object_set_new(r, "slowest", bitcts_report_slowest(cases, BITCTS_REPORT_SLOWEST));
}

static json_t *make_report(json_t *cases, const char *seed, const char *shard, double duration)
{
    json_t *argv = json_pack("[s,s,s,s,s,s,s]", "bitcts", "run", "--backend", "cpu", "--report",
                             "out dir", "--filter=bit_*");
    if (*shard) {
        json_t *extra = json_pack("[s,s]", "--shard", shard);
        json_array_extend(argv, extra);
        json_decref(extra);
    }
    json_t *r = json_pack(
        "{s:s, s:s, s:s, s:i, s:s, s:o, s:s, s:s, s:f, s:{s:s, s:s, s:s, s:s},"
        " s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{}, s:{s:s, s:s}},"
        " s:{s:s, s:s, s:s, s:i}, s:o}",
        "schema", "bitcts-report", "schema_version", "1.0", "suite_version", "0.1.0",
        "generator_version", 1, "seed", seed, "command_line", argv, "started",
        "2026-11-21T05:40:00Z", "finished", "2026-11-21T05:40:12Z", "duration_s", duration,
        "selection", "tier", "default", "filter", "bit_*", "feature_level", "", "shard", shard,
        "backend", "spec", "cpu", "path", "builtin:cpu", "name", "Test <GPU> & \"Co\"'s", "vendor",
        "bitcts", "version", "1.2.3", "build_id", "b-42", "abi_version", "1.0", "library_xxh3_128",
        "0123456789abcdef0123456789abcdef", "feature_level", "4_1", "capabilities", "info",
        "variant", "avx2 <fast>", "features", "sse2,avx2", "host", "hostname", "ci-host", "os",
        "Linux 6.1", "machine", "x86_64", "cpus", 2, "cases", cases);
    finish_report(r);
    return r;
}

#define FILLER_PER_OP 40
static const char *const ops[] = {"bit_and", "bit_xor", "bit_not", "bit_shift_left", "bit_count"};

/* The planted cases (plan positions 0..18), then passing filler cases of every operator. */
static json_t *all_cases(void)
{
    json_t *c = json_array();
    size_t i = 0;
    json_array_append_new(c, make_case(i++, "bit_and.uint8.r1.a.0", "pass", 0.42, "", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_and.uint8.r1.a.1", "pass", 0.5, "", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_and.uint16.r2.b.0", "fail", 3.25,
                                       "17 of 4096 elements differ", "",
                                       make_failure(17, 5, "0x00ff", "0x0f0f", "0x000f", "0x0000",
                                                    "0000000000001111", "0000000000000000")));
    json_t *warn = make_case(i++, "bit_and.uint32.r3.c.0", "warn", 1.0, "wrote padding", "", NULL);
    json_array_append_new(json_object_get(warn, "warnings"),
                          json_string("wrote 12 padding bytes <inside> TotalTensorSizeInBytes"));
    json_array_append_new(c, warn);
    json_array_append_new(c, make_case(i++, "bit_xor.uint8.r1.a.0", "pass", 0.3, "", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_xor.int8.r4.d.0", "timeout", 30000.0,
                                       "no result after 30 s", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_xor.uint64.r8.e.0", "crash", 12.0,
                                       "signal 11 (SIGSEGV) <in> & out", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_xor.float16.r2.f.0", "not_supported", 0.01,
                                       "float16 is not in the <capabilities>", "", NULL));
    json_array_append_new(
        c, make_case(i++, ODD_ID, "fail", 2.0, ODD_DETAIL, "",
                     make_failure(1, 3, "0x0f", "0xf0", "0xff", "0xfe", "11111111", "11111110")));
    json_array_append_new(c, make_case(i++, "bit_not.uint8.r1.a.0", "pass", 0.2, "", "", NULL));
    json_array_append_new(
        c, make_case(i++, "bit_not.uint8.r1.a.1", "missing", 0.0, "never reported", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_not.uint16.r1.b.0", "internal_error", 0.1,
                                       "harness: out of memory", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_shift_left.uint8.r1.big.0", "recorded", 0.4,
                                       "shift >= width", "mask", NULL));
    json_array_append_new(c, make_case(i++, "bit_shift_left.uint8.r1.big.1", "recorded", 0.4,
                                       "shift >= width", "saturate", NULL));
    json_t *xfail =
        make_case(i++, "bit_shift_left.uint16.r2.a.0", "expected_fail", 0.6, "known bug", "", NULL);
    json_object_set_new(xfail, "baseline", json_string("vendor bug #12 <tracked> & waived"));
    json_array_append_new(c, xfail);
    json_array_append_new(c, make_case(i++, "bit_shift_left.uint32.r2.a.0", "unexpected_pass", 0.7,
                                       "baseline expected fail", "", NULL));
    json_array_append_new(c, make_case(i++, "bit_count.uint8.r1.a.0", "pass", 0.9, "", "", NULL));
    json_array_append_new(
        c, make_case(i++, "bit_count.uint32.r2.a.0", "fail", 4.5, "popcount wrong", "",
                     make_failure(4096, 0, "0xffffffff", NULL, "0x00000020", "0x0000001f",
                                  "00000000000000000000000000100000",
                                  "00000000000000000000000000011111")));
    json_array_append_new(c,
                          make_case(i++, "bit_count.uint64.r1.a.0", "pass", 812.0, "", "", NULL));
    for (size_t k = 0; k < FILLER_PER_OP; ++k) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
            char id[96];
            snprintf(id, sizeof id, "%s.uint32.r3.random.%zu", ops[o], k);
            json_array_append_new(c,
                                  make_case(i++, id, "pass", 0.05 * (double)(k % 9), "", "", NULL));
        }
    }
    return c;
}

/* Expected counts of the planted cases. */
#define N_PLANTED 19
#define N_CASES (N_PLANTED + FILLER_PER_OP * 5)
#define N_JUNIT_FAILURES 8 /* fail x3, timeout, crash, missing, internal_error, unexpected_pass */
#define N_LISTED 10        /* those, warn and expected_fail */

/* ---- helpers ---- */

static char *read_text(const char *dir, const char *file)
{
    char path[4096];
    char err[512];
    char *text = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (bitcts_fs_read(path, (size_t)1 << 28, &text, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
    }
    return text;
}

static size_t count_of(const char *text, const char *needle)
{
    /* Over known lengths: strstr restarted at each match rescans the rest of the text for its
     * end, quadratic in a report of thousands of cases (under ASan's strict string checks,
     * minutes). Overlapping matches count, as with strstr from the match's next byte. */
    size_t n = 0;
    const size_t len = text != NULL ? strlen(text) : 0;
    const size_t nlen = strlen(needle);
    for (size_t i = 0; nlen > 0 && i + nlen <= len; ++i) {
        const char *p = memchr(text + i, needle[0], len - nlen + 1 - i);
        if (p == NULL) {
            break;
        }
        i = (size_t)(p - text);
        n += memcmp(p, needle, nlen) == 0;
    }
    return n;
}

/* An escaper written independently of the module's. */
static void xml_escaped(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 8 < cap; ++s) {
        const char *rep = *s == '&'    ? "&amp;"
                          : *s == '<'  ? "&lt;"
                          : *s == '>'  ? "&gt;"
                          : *s == '"'  ? "&quot;"
                          : *s == '\'' ? "&#39;"
                                       : NULL;
        if (rep != NULL) {
            memcpy(out + n, rep, strlen(rep));
            n += strlen(rep);
        } else {
            out[n++] = *s;
        }
    }
    out[n] = '\0';
}

static int run_cli(int argc, char **argv)
{
    fflush(stdout);
    const int rc = bitcts_cmd_report(argc, argv);
    fflush(stdout);
    return rc;
}

/* ---- tests ---- */

static void test_verdicts(void)
{
    CHECK_EQ_U64(BITCTS_VERDICT_COUNT, 14);
    for (int v = 0; v < BITCTS_VERDICT_COUNT; ++v) {
        CHECK_EQ_U64(bitcts_verdict_parse(bitcts_verdict_name(v)), v);
    }
    CHECK_EQ_U64(bitcts_verdict_parse("flaky"), (uint64_t)-1);
    CHECK_EQ_STR(bitcts_verdict_name(99), "unknown");
    static const struct {
        const char *from, *to;
        bitcts_report_change change;
    } table[] = {
        {"pass", "pass", BITCTS_REPORT_CHANGE_SAME},
        {"pass", "warn", BITCTS_REPORT_CHANGE_REGRESSION},
        {"fail", "timeout", BITCTS_REPORT_CHANGE_REGRESSION},
        {"crash", "fail", BITCTS_REPORT_CHANGE_FIX},
        {"pass", "not_supported", BITCTS_REPORT_CHANGE_REGRESSION},
        {"recorded", "missing", BITCTS_REPORT_CHANGE_REGRESSION},
        {"warn", "internal_error", BITCTS_REPORT_CHANGE_REGRESSION},
        {"recorded", "expected_fail", BITCTS_REPORT_CHANGE_REGRESSION},
        {"not_supported", "pass", BITCTS_REPORT_CHANGE_FIX},
        {"not_supported", "fail", BITCTS_REPORT_CHANGE_REGRESSION},
        {"fail", "not_supported", BITCTS_REPORT_CHANGE_OTHER},
        {"fail", "expected_fail", BITCTS_REPORT_CHANGE_OTHER},
        {"missing", "pass", BITCTS_REPORT_CHANGE_FIX},
        {"crash", "internal_error", BITCTS_REPORT_CHANGE_OTHER},
        {"pass", "recorded", BITCTS_REPORT_CHANGE_OTHER},
        {"expected_fail", "unexpected_pass", BITCTS_REPORT_CHANGE_FIX},
        {"pass", "skipped", BITCTS_REPORT_CHANGE_REGRESSION},
        {"skipped", "pass", BITCTS_REPORT_CHANGE_FIX},
        {"fail", "not_run", BITCTS_REPORT_CHANGE_OTHER},
        {"pass", "not_run", BITCTS_REPORT_CHANGE_REGRESSION},
        {"not_run", "crash", BITCTS_REPORT_CHANGE_REGRESSION},
        {"unexpected_pass", "expected_fail", BITCTS_REPORT_CHANGE_REGRESSION},
        {"unexpected_pass", "pass", BITCTS_REPORT_CHANGE_FIX},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const bitcts_report_change got = bitcts_report_verdict_change(
            bitcts_verdict_parse(table[i].from), bitcts_verdict_parse(table[i].to));
        if (got != table[i].change) {
            fprintf(stderr, "change %s -> %s\n", table[i].from, table[i].to);
        }
        CHECK_EQ_U64(got, table[i].change);
    }
}

static void test_roundtrip(const char *dir, const json_t *report)
{
    char err[BITCTS_REPORT_ERROR_CAP];
    json_t *back = NULL;
    CHECK_EQ_U64(bitcts_report_files_load(dir, &back, err, sizeof err), BITCTS_OK);
    CHECK(back != NULL && json_equal(back, report));
    CHECK_EQ_U64(json_array_size(json_object_get(back, "cases")), N_CASES);
    json_decref(back);
    /* Rendering again from the parsed file gives the same bytes. */
    char *html1 = read_text(dir, "report.html");
    CHECK_EQ_U64(bitcts_report_files_write_views(report, dir, err, sizeof err), BITCTS_OK);
    char *html2 = read_text(dir, "report.html");
    CHECK(html1 != NULL && html2 != NULL && strcmp(html1, html2) == 0);
    free(html1);
    free(html2);
}

static void test_junit(const char *dir)
{
    char *xml = read_text(dir, "junit.xml");
    CHECK(xml != NULL);
    if (access("/usr/bin/xmllint", X_OK) == 0) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "/usr/bin/xmllint --noout '%s/junit.xml'", dir);
        CHECK_EQ_U64(system(cmd), 0);
    } else {
        CHECK_EQ_U64(count_of(xml, "<testcase "), count_of(xml, "</testcase>"));
        CHECK_EQ_U64(count_of(xml, "<testsuite "), count_of(xml, "</testsuite>"));
    }
    CHECK_EQ_U64(count_of(xml, "<testsuite "), 6); /* the analysis, then 5 operators */
    CHECK(strstr(xml, "<testsuite name=\"bitcts.analysis\" tests=\"0\"") != NULL);
    CHECK(strstr(xml, "<testsuite name=\"bitcts.analysis\"") < strstr(xml, "bitcts.bit_"));
    CHECK(strstr(xml, "<property name=\"analysis.explanation\" value=\"") != NULL);
    CHECK_EQ_U64(count_of(xml, "<testcase "), N_CASES);
    CHECK_EQ_U64(count_of(xml, "<failure "), N_JUNIT_FAILURES);
    CHECK_EQ_U64(count_of(xml, "<skipped "), 1);
    /* warn, 2 recorded, expected_fail, and the analysis's lines */
    CHECK_EQ_U64(count_of(xml, "<system-out>"), 5);
    CHECK(strstr(xml, "<testsuites name=\"bitcts\" tests=\"219\" failures=\"8\"") != NULL);
    CHECK(strstr(xml, "<testsuite name=\"bitcts.bit_and\" tests=\"44\" failures=\"1\"") != NULL);
    CHECK(strstr(xml, "<property name=\"seed\" value=\"" SEED "\"/>") != NULL);
    CHECK(strstr(xml, "name=\"bit_xor.uint8.r1.odd&lt;&amp;&quot;&#39;&gt;.0\"") != NULL);
    CHECK(strstr(xml, "<script>") == NULL);
    CHECK(strstr(xml, "first mismatch: index 5, coords [0, 1, 5]") != NULL);
    CHECK(strstr(xml, "repro: bitcts run --backend cpu --filter &#39;bit_and.uint16.r2.b.0&#39;") !=
          NULL);
    free(xml);
}

static void test_html(const char *dir, const json_t *report)
{
    char *html = read_text(dir, "report.html");
    CHECK(html != NULL);
    if (html == NULL) {
        return;
    }
    CHECK(strstr(html, "<table id=\"verdict-table\"") != NULL);
    CHECK(strstr(html, "<th class=\"n\">unexpected_pass</th>") != NULL);
    CHECK(strstr(html, "<tr><td><code>bit_shift_left</code></td>") != NULL);
    CHECK(strstr(html, "<td class=\"n v-pass\">206</td>") != NULL); /* total passes */
    CHECK(strstr(html, "FAILED") != NULL);
    CHECK(strstr(html, "<script>alert") == NULL);
    CHECK(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;") != NULL);
    CHECK(strstr(html, "Test &lt;GPU&gt; &amp; &quot;Co&quot;&#39;s") != NULL);
    CHECK(strstr(html, "0123456789abcdef0123456789abcdef") != NULL);
    CHECK(
        strstr(
            html,
            "<code>bitcts run --backend cpu --report &#39;out dir&#39; &#39;--filter=bit_*&#39;") !=
        NULL);
    CHECK(strstr(html, "<link") == NULL && strstr(html, " src=") == NULL); /* self-contained */
    CHECK_EQ_U64(count_of(html, "<div class=\"case "), N_LISTED);
    CHECK(strstr(html, "<mark>") != NULL);
    const json_t *cases = json_object_get(report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        const char *v = bitcts_report_str(c, "verdict");
        if (!strcmp(v, "pass") || !strcmp(v, "recorded") || !strcmp(v, "not_supported")) {
            continue;
        }
        char want[700];
        char esc[600];
        xml_escaped(bitcts_report_str(c, "id"), esc, sizeof esc);
        snprintf(want, sizeof want, "<code>%s</code>", esc);
        if (strstr(html, want) == NULL) {
            fprintf(stderr, "missing failure %s\n", want);
        }
        CHECK(strstr(html, want) != NULL);
    }
    CHECK(strstr(html, "Recorded cases by policy") != NULL);
    CHECK(
        strstr(html, "<td><code>bit_count.uint64.r1.a.0</code></td><td class=\"n\">812.000</td>") !=
        NULL);
    free(html);
}

static void test_markdown(const char *dir)
{
    char *md = read_text(dir, "summary.md");
    CHECK(md != NULL);
    CHECK(md != NULL && strstr(md, "# bitcts report: FAILED") != NULL);
    CHECK(md != NULL && strstr(md, "| operator | pass | warn | fail |") != NULL);
    CHECK(md != NULL && strstr(md, "| `bit_and` | 42 | 1 | 1 |") != NULL);
    CHECK(md != NULL && strstr(md, "- `bit_and.uint16.r2.b.0` **fail**: 17 of 4096") != NULL);
    CHECK(md != NULL && strstr(md, "\\<script\\>alert(1)\\</script\\> \\& \"quotes\"") != NULL);
    CHECK(md != NULL && strstr(md, "\\| pipes \\`ticks\\`") != NULL);
    CHECK(md != NULL && strstr(md, "## Slowest cases") != NULL);
    CHECK_EQ_U64(count_of(md, "\n- `"), N_LISTED);
    free(md);
}

static json_t *case_by_id(json_t *report, const char *id)
{
    json_t *cases = json_object_get(report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        if (strcmp(bitcts_report_str(json_array_get(cases, i), "id"), id) == 0) {
            return json_array_get(cases, i);
        }
    }
    return NULL;
}

static void check_ids(const json_t *diff, const char *key, const char *const *ids, size_t n)
{
    const json_t *list = json_object_get(diff, key);
    CHECK_EQ_U64(json_array_size(list), n);
    for (size_t i = 0; i < n && i < json_array_size(list); ++i) {
        CHECK_EQ_STR(bitcts_report_str(json_array_get(list, i), "id"), ids[i]);
    }
}

/* B: a copy of A with planted changes. */
static json_t *planted_b(const json_t *a)
{
    json_t *b = json_deep_copy(a);
    json_object_set_new(case_by_id(b, "bit_and.uint8.r1.a.0"), "verdict", json_string("fail"));
    json_object_set_new(case_by_id(b, "bit_xor.uint8.r1.a.0"), "verdict",
                        json_string("not_supported"));
    json_object_set_new(case_by_id(b, "bit_xor.int8.r4.d.0"), "verdict", json_string("pass"));
    json_object_set_new(case_by_id(b, "bit_not.uint16.r1.b.0"), "verdict", json_string("crash"));
    json_object_set_new(case_by_id(b, "bit_and.uint8.r1.a.1"), "output_xxh3_128",
                        json_string("ffffffffffffffffffffffffffffffff"));
    json_t *cases = json_object_get(b, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        if (!strcmp(bitcts_report_str(json_array_get(cases, i), "id"), "bit_count.uint8.r1.a.0")) {
            json_array_remove(cases, i);
        }
    }
    json_array_append_new(cases,
                          make_case(9999, "bit_count.uint8.r1.new.0", "pass", 1.0, "", "", NULL));
    finish_report(b);
    return b;
}

/* Every regression in exactly one group; a group's cases share its operator and verdict. */
static void check_groups(const json_t *diff, const char *const *ids, size_t n)
{
    const json_t *groups = json_object_get(diff, "groups");
    size_t seen = 0;
    for (size_t i = 0; i < json_array_size(groups); ++i) {
        const json_t *g = json_array_get(groups, i);
        const json_t *gids = json_object_get(g, "ids");
        CHECK_EQ_U64(json_array_size(gids),
                     (uint64_t)json_integer_value(json_object_get(g, "count")));
        for (size_t k = 0; k < json_array_size(gids); ++k) {
            const char *id = json_string_value(json_array_get(gids, k));
            size_t found = 0;
            for (size_t j = 0; j < n; ++j) {
                found += id != NULL && strcmp(id, ids[j]) == 0;
            }
            CHECK_EQ_U64(found, 1);
            CHECK(id != NULL && strncmp(id, bitcts_report_str(g, "operator"),
                                        strlen(bitcts_report_str(g, "operator"))) == 0);
            ++seen;
        }
    }
    CHECK_EQ_U64(seen, n);
}

static void test_diff(const char *tmp, const json_t *a)
{
    static const char *const regressions[] = {"bit_and.uint8.r1.a.0", "bit_xor.uint8.r1.a.0"};
    static const char *const fixes[] = {"bit_xor.int8.r4.d.0"};
    static const char *const changed[] = {"bit_not.uint16.r1.b.0"};
    static const char *const digests[] = {"bit_and.uint8.r1.a.1"};
    static const char *const added[] = {"bit_count.uint8.r1.new.0"};
    static const char *const removed[] = {"bit_count.uint8.r1.a.0"};
    json_t *b = planted_b(a);
    json_t *diff = NULL;
    char err[BITCTS_REPORT_ERROR_CAP];
    CHECK_EQ_U64(bitcts_report_validate(b, "B", err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(bitcts_report_diff(a, b, &diff), BITCTS_OK);
    check_ids(diff, "regressions", regressions, 2);
    check_ids(diff, "fixes", fixes, 1);
    check_ids(diff, "changed", changed, 1);
    check_ids(diff, "digest_changed", digests, 1);
    check_ids(diff, "added", added, 1);
    check_ids(diff, "removed", removed, 1);
    CHECK_EQ_U64(json_integer_value(json_object_get(json_object_get(diff, "summary"), "compared")),
                 N_CASES - 1);
    check_groups(diff, regressions, 2);
    json_decref(diff);
    /* Identical runs: nothing, and nothing changed between them. Different seeds and a new
     * library: digests are not compared, and both changes are named. */
    CHECK_EQ_U64(bitcts_report_diff(a, a, &diff), BITCTS_OK);
    CHECK_EQ_U64(
        json_integer_value(json_object_get(json_object_get(diff, "summary"), "regressions")) +
            json_array_size(json_object_get(diff, "digest_changed")) +
            json_array_size(json_object_get(diff, "provenance")) +
            json_array_size(json_object_get(diff, "groups")),
        0);
    json_decref(diff);
    json_object_set_new(b, "seed", json_string("0x1"));
    json_object_set_new(b, "backend", json_deep_copy(json_object_get(b, "backend")));
    json_object_set_new(json_object_get(b, "backend"), "library_xxh3_128",
                        json_string("fedcba9876543210fedcba9876543210"));
    CHECK_EQ_U64(bitcts_report_diff(a, b, &diff), BITCTS_OK);
    CHECK(json_is_false(json_object_get(diff, "digests_compared")));
    CHECK_EQ_U64(json_array_size(json_object_get(diff, "digest_changed")), 0);
    const json_t *prov = json_object_get(diff, "provenance");
    CHECK_EQ_U64(json_array_size(prov), 2);
    CHECK_EQ_STR(bitcts_report_str(json_array_get(prov, 0), "what"), "seed");
    CHECK_EQ_STR(bitcts_report_str(json_array_get(prov, 0), "from"), SEED);
    CHECK_EQ_STR(bitcts_report_str(json_array_get(prov, 0), "to"), "0x1");
    CHECK_EQ_STR(bitcts_report_str(json_array_get(prov, 1), "what"), "backend.library_xxh3_128");
    CHECK_EQ_STR(bitcts_report_str(json_array_get(prov, 1), "to"),
                 "fedcba9876543210fedcba9876543210");
    json_decref(diff);
    json_object_set_new(
        json_object_get(b, "backend"), "library_xxh3_128",
        json_string(bitcts_report_str(json_object_get(a, "backend"), "library_xxh3_128")));
    json_object_set_new(b, "seed", json_string(SEED));
    /* The command: exit codes and --json. */
    char dir_a[4096], dir_b[4096], json_file[4096];
    snprintf(dir_a, sizeof dir_a, "%s/diff-a", tmp);
    snprintf(dir_b, sizeof dir_b, "%s/diff-b", tmp);
    snprintf(json_file, sizeof json_file, "%s/diff.json", tmp);
    CHECK_EQ_U64(bitcts_report_files_write(a, dir_a, err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(bitcts_report_files_write(b, dir_b, err, sizeof err), BITCTS_OK);
    char *argv1[] = {"report", "diff", dir_a, dir_b, "--json", json_file, NULL};
    CHECK_EQ_U64(run_cli(6, argv1), 1);
    json_t *saved = json_load_file(json_file, 0, NULL);
    CHECK(saved != NULL && json_array_size(json_object_get(saved, "regressions")) == 2);
    CHECK_EQ_STR(bitcts_report_str(json_object_get(saved, "b"), "path"), dir_b);
    json_decref(saved);
    char *argv2[] = {"report", "diff", dir_a, dir_a, NULL};
    CHECK_EQ_U64(run_cli(4, argv2), 0);
    char *argv3[] = {"report", "diff", dir_a, "/nonexistent/report", NULL};
    CHECK_EQ_U64(run_cli(4, argv3), 2);
    char *argv4[] = {"report", "diff", dir_a, NULL};
    CHECK_EQ_U64(run_cli(3, argv4), 2);
    json_decref(b);
}

/* Shard i of 3 (1-based): the cases whose plan_index % 3 == i - 1, as the runner deals them. */
static json_t *make_shard(const json_t *cases, unsigned i, double duration)
{
    json_t *mine = json_array();
    for (size_t k = 0; k < json_array_size(cases); ++k) {
        if (k % 3 == i - 1) {
            json_array_append_new(mine, json_deep_copy(json_array_get(cases, k)));
        }
    }
    char shard[8];
    snprintf(shard, sizeof shard, "%u/3", i);
    return make_report(mine, SEED, shard, duration);
}

static void expect_merge_error(json_t **shards, size_t n, const char *want)
{
    static const char *const names[] = {"S1", "S2", "S3", "S4"};
    json_t *merged = NULL;
    char err[BITCTS_REPORT_ERROR_CAP];
    CHECK_EQ_U64(
        bitcts_report_merge((const json_t *const *)shards, names, n, &merged, err, sizeof err),
        BITCTS_E_INVALID_ARGUMENT);
    CHECK(merged == NULL);
    if (strstr(err, want) == NULL) {
        fprintf(stderr, "merge error \"%s\" lacks \"%s\"\n", err, want);
    }
    CHECK(strstr(err, want) != NULL);
}

static void test_merge_errors(json_t **shards)
{
    json_t *odd[4] = {shards[0], shards[1], shards[2], shards[2]};
    expect_merge_error(odd, 4, "are both shard 3/3");
    expect_merge_error(shards, 2, "got 2 of the 3 shards");
    json_t *other = json_deep_copy(shards[1]);
    json_object_set_new(other, "seed", json_string("0x2"));
    odd[1] = other;
    expect_merge_error(odd, 3, "S1 and S2 are not shards of one run: seed differs");
    json_decref(other);
    /* One case in two shards with different results. */
    other = json_deep_copy(shards[1]);
    json_t *stolen = json_deep_copy(json_array_get(json_object_get(shards[0], "cases"), 0));
    json_object_set_new(stolen, "verdict", json_string("crash"));
    json_array_append_new(json_object_get(other, "cases"), stolen);
    finish_report(other);
    odd[1] = other;
    expect_merge_error(
        odd, 3, "case bit_and.uint8.r1.a.1 has different results in S1 (pass) and S2 (crash)");
    json_decref(other);
}

static void test_merge(const char *tmp, const json_t *whole)
{
    const json_t *cases = json_object_get(whole, "cases");
    json_t *shards[3] = {make_shard(cases, 2, 2.0), make_shard(cases, 1, 1.0),
                         make_shard(cases, 3, 3.5)};
    static const char *const names[] = {"S2", "S1", "S3"};
    json_t *merged = NULL;
    char err[BITCTS_REPORT_ERROR_CAP];
    CHECK_EQ_U64(
        bitcts_report_merge((const json_t *const *)shards, names, 3, &merged, err, sizeof err),
        BITCTS_OK);
    if (merged == NULL) {
        fprintf(stderr, "merge: %s\n", err);
        return;
    }
    CHECK(json_equal(json_object_get(merged, "cases"), cases));
    CHECK(json_equal(json_object_get(merged, "summary"), json_object_get(whole, "summary")));
    CHECK(json_equal(json_object_get(merged, "slowest"), json_object_get(whole, "slowest")));
    CHECK(json_equal(json_object_get(merged, "command_line"),
                     json_object_get(whole, "command_line")));
    CHECK_EQ_STR(bitcts_report_str(json_object_get(merged, "selection"), "shard"), "");
    CHECK(bitcts_report_num(merged, "duration_s") == 6.5);
    CHECK_EQ_U64(bitcts_report_validate(merged, "merged", err, sizeof err), BITCTS_OK);
    json_decref(merged);
    /* The command: shards written to folders, merged into another. */
    char paths[3][4096];
    char out[4096];
    for (int i = 0; i < 3; ++i) {
        snprintf(paths[i], sizeof paths[i], "%s/shard-%d", tmp, i);
        CHECK_EQ_U64(bitcts_report_files_write(shards[i], paths[i], err, sizeof err), BITCTS_OK);
    }
    snprintf(out, sizeof out, "%s/merged", tmp);
    char *argv[] = {"report", "merge", "--out", out, paths[0], paths[1], paths[2], NULL};
    CHECK_EQ_U64(run_cli(7, argv), 0);
    json_t *back = NULL;
    CHECK_EQ_U64(bitcts_report_files_load(out, &back, err, sizeof err), BITCTS_OK);
    CHECK(back != NULL && json_equal(json_object_get(back, "cases"), cases));
    json_decref(back);
    char *html = read_text(out, "report.html");
    CHECK(html != NULL && strstr(html, "verdict-table") != NULL);
    free(html);
    char *render[] = {"report", "render", out, NULL};
    CHECK_EQ_U64(run_cli(3, render), 0);
    test_merge_errors(shards);
    for (int i = 0; i < 3; ++i) {
        json_decref(shards[i]);
    }
}

/* Parses `report` (serialised, possibly cut) and checks the status and the message. */
static void expect_parse_error(const json_t *report, size_t cut, bitcts_status want_status,
                               const char *want)
{
    char *text = json_dumps(report, JSON_INDENT(1));
    const size_t len = text != NULL ? strlen(text) : 0;
    json_t *out = NULL;
    char err[BITCTS_REPORT_ERROR_CAP];
    const bitcts_status st =
        bitcts_report_parse("A/report.json", text, cut ? cut : len, &out, err, sizeof err);
    CHECK_EQ_U64(st, want_status);
    CHECK(out == NULL);
    if (strstr(err, want) == NULL || strncmp(err, "report A/report.json: ", 22) != 0) {
        fprintf(stderr, "parse error \"%s\" lacks \"%s\"\n", err, want);
    }
    CHECK(strstr(err, want) != NULL);
    CHECK(strncmp(err, "report A/report.json: ", 22) == 0);
    CHECK(strchr(err, '\n') == NULL);
    json_decref(out);
    free(text);
}

static void test_malformed(const char *tmp, const json_t *report)
{
    char *text = json_dumps(report, 0);
    expect_parse_error(report, strlen(text) / 2, BITCTS_E_PARSE, "malformed JSON at line 1");
    free(text);
    json_t *bad = json_deep_copy(report);
    json_object_set_new(json_array_get(json_object_get(bad, "cases"), 17), "verdict",
                        json_string("flaky"));
    expect_parse_error(bad, 0, BITCTS_E_PARSE,
                       "case 17 (bit_count.uint32.r2.a.0) has unknown verdict 'flaky'");
    json_object_set_new(json_array_get(json_object_get(bad, "cases"), 17), "verdict",
                        json_string("fl\naky"));
    expect_parse_error(bad, 0, BITCTS_E_PARSE, "has unknown verdict 'fl?aky'");
    json_decref(bad);

    bad = json_deep_copy(report);
    json_object_set_new(bad, "schema", json_string("junit"));
    expect_parse_error(bad, 0, BITCTS_E_PARSE, "not a bitcts report");
    json_object_set_new(bad, "schema", json_string("bitcts-report"));
    json_object_set_new(bad, "schema_version", json_string("2.0"));
    expect_parse_error(bad, 0, BITCTS_E_FORMAT_VERSION, "schema_version 2.0 not supported");
    json_object_set_new(bad, "schema_version", json_string("1.7")); /* a newer minor is read */
    char err[BITCTS_REPORT_ERROR_CAP];
    CHECK_EQ_U64(bitcts_report_validate(bad, "x", err, sizeof err), BITCTS_OK);
    json_object_del(bad, "cases");
    expect_parse_error(bad, 0, BITCTS_E_PARSE, "field 'cases' is missing");
    json_decref(bad);

    json_t *array = json_array();
    expect_parse_error(array, 0, BITCTS_E_PARSE, "not a bitcts report");
    json_decref(array);
    bad = json_deep_copy(report);
    json_object_set_new(json_object_get(bad, "summary"), "total", json_integer(3));
    expect_parse_error(bad, 0, BITCTS_E_PARSE, "summary total 3 does not match the 219 cases");
    json_decref(bad);
    bad = json_deep_copy(report);
    json_object_set_new(json_array_get(json_object_get(bad, "cases"), 4), "id",
                        json_string("bit_and.uint8.r1.a.0"));
    expect_parse_error(bad, 0, BITCTS_E_PARSE,
                       "case 4 (bit_and.uint8.r1.a.0) repeats the id of case 0");
    json_decref(bad);
    bad = json_deep_copy(report);
    json_object_set_new(json_array_get(json_object_get(bad, "cases"), 2), "output_xxh3_128",
                        json_string("xyz"));
    expect_parse_error(bad, 0, BITCTS_E_PARSE,
                       "case 2 (bit_and.uint16.r2.b.0) field 'output_xxh3_128' is 'xyz'");
    json_object_set_new(json_array_get(json_object_get(bad, "cases"), 2), "output_xxh3_128",
                        json_string(""));
    json_object_set_new(
        json_object_get(json_array_get(json_object_get(bad, "cases"), 2), "failure"), "mismatches",
        json_string("17"));
    expect_parse_error(bad, 0, BITCTS_E_PARSE,
                       "field 'mismatches' must be an integer, not a string");
    /* The writer refuses an invalid report and writes nothing. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/refused", tmp);
    CHECK_EQ_U64(bitcts_report_files_write(bad, dir, err, sizeof err), BITCTS_E_PARSE);
    CHECK(strstr(err, "refused/report.json") != NULL);
    CHECK_EQ_U64(bitcts_fs_dir_state(dir), 0);
    json_decref(bad);
    /* A file that is not there; a folder without a report. */
    json_t *none = NULL;
    CHECK_EQ_U64(bitcts_report_files_load("/nonexistent/x", &none, err, sizeof err), BITCTS_E_IO);
    CHECK_EQ_U64(bitcts_report_files_load(tmp, &none, err, sizeof err), BITCTS_E_IO);
    CHECK(none == NULL);
}

/* ---- grouping at scale ---- */

static void test_group_parts(void)
{
    char sig[BITCTS_REPORT_SIGNATURE_LEN];
    bitcts__report_signature("17 of 4096 elements differ; first at index 5: expected 0x00ff, got "
                             "0xFF00 after 1.5 s",
                             sig, sizeof sig);
    CHECK_EQ_STR(sig, "# of # elements differ; first at index #: expected #, got # after # s");
    bitcts__report_facets f;
    json_t *c = json_pack("{s:s, s:s}", "id", "bit_count.int64.uint8.r3.padded_inner.1", "operator",
                          "bit_count");
    bitcts__report_case_facets(c, &f);
    CHECK_EQ_STR(f.value[BITCTS_REPORT_FACET_OP], "bit_count");
    CHECK_EQ_STR(f.value[BITCTS_REPORT_FACET_TYPE], "int64>uint8");
    CHECK_EQ_STR(f.value[BITCTS_REPORT_FACET_RANK], "r3");
    CHECK_EQ_STR(f.value[BITCTS_REPORT_FACET_PATTERN], "padded_inner");
    json_decref(c);
    c = json_pack("{s:s, s:s}", "id", "vendor-set/case 7", "operator", "");
    bitcts__report_case_facets(c, &f);
    CHECK_EQ_STR(f.value[BITCTS_REPORT_FACET_OP], "");
    CHECK_EQ_STR(f.value[BITCTS_REPORT_FACET_RANK], "");
    json_decref(c);
}

/* 10,000 failures in a few patterns: every one in the HTML (its row), the groups largest
 * first in every view, durations shown, no cap. */
#define N_SCALE 10000
static void test_groups_at_scale(const char *tmp)
{
    static const char *const types[] = {"uint8", "uint16", "int32", "uint64"};
    json_t *cases = json_array();
    for (size_t i = 0; i < N_SCALE; ++i) {
        char id[96];
        char detail[96];
        const char *op = ops[i % 3];
        snprintf(id, sizeof id, "%s.%s.r%zu.packed.%zu", op, types[i % 4], 1 + i % 5, i);
        snprintf(detail, sizeof detail,
                 i % 10 == 9 ? "signal 11 after %zu calls"
                             : "%zu of 64 elements differ; first at index 0: expected 0x0, got 0x1",
                 i % 60 + 1);
        json_array_append_new(
            cases, make_case(i, id, i % 10 == 9 ? "crash" : "fail", 1.25, detail, "", NULL));
    }
    json_array_append_new(cases,
                          make_case(N_SCALE, "bit_not.uint8.r1.a.0", "pass", 0.5, "", "", NULL));
    json_t *report = make_report(cases, SEED, "", 30.0);
    char dir[4200];
    char err[BITCTS_REPORT_ERROR_CAP];
    snprintf(dir, sizeof dir, "%s/scale", tmp);
    CHECK_EQ_U64(bitcts_report_files_write(report, dir, err, sizeof err), BITCTS_OK);
    bitcts__report_groups *g = NULL;
    CHECK_EQ_U64(bitcts__report_groups_create(json_object_get(report, "cases"),
                                              bitcts_verdict_is_failure, &g),
                 BITCTS_OK);
    if (g != NULL) {
        CHECK_EQ_U64(g->n, N_SCALE);
        CHECK_EQ_U64(g->n_groups, 6); /* 3 operators x (fail, crash) */
        CHECK_EQ_U64(g->groups[0].count, 3000);
        CHECK_EQ_U64(g->groups[5].count, 333);
        CHECK_EQ_STR(g->groups[5].signature, "signal # after # calls");
        CHECK_EQ_U64(g->groups[0].spread[BITCTS_REPORT_FACET_RANK].distinct, 5);
        CHECK_EQ_U64(g->n_values[BITCTS_REPORT_FACET_TYPE], 4);
    }
    bitcts__report_groups_destroy(g);
    char *html = read_text(dir, "report.html");
    CHECK(html != NULL);
    if (html != NULL) {
        CHECK_EQ_U64(count_of(html, "<tr class=\"case-row\""), N_SCALE);
        CHECK_EQ_U64(count_of(html, "<details class=\"group "), 6);
        CHECK(strstr(html, "10000 of 10000 shown") != NULL);
        CHECK(strstr(html, "more not shown") == NULL);
        CHECK(strstr(html, "<code>bit_and.uint64.r5.packed.9999</code>") != NULL);
        CHECK(strstr(html, "<td class=\"n\">10001</td><td class=\"n\">12.50 s</td>") !=
              NULL); /* 10,000 x 1.25 ms */
        CHECK(strstr(html, "<dt>Backend info: features</dt>") != NULL);
        free(html);
    }
    char *md = read_text(dir, "summary.md");
    CHECK(md != NULL && strstr(md, "10000 cases in 6 groups") != NULL);
    CHECK(md != NULL && strstr(md, "| 3000 | fail | `bit_and` | `# of 64 elements") == NULL);
    CHECK(md != NULL && strstr(md, "| 3000 | fail | `bit_and` | `# of # elements differ") != NULL);
    CHECK(md != NULL && count_of(md, "\n- `") == 6);
    free(md);
    char *text = NULL;
    CHECK_EQ_U64(bitcts_report_render(report, BITCTS_REPORT_FORMAT_TEXT, &text, NULL), BITCTS_OK);
    CHECK(text != NULL && strstr(text, "failures (10000) in 6 groups") != NULL);
    CHECK(text != NULL && strstr(text, "3000 x fail bit_and: # of # elements differ") != NULL);
    free(text);
    json_decref(report);
}

/* Several formats from one view: each output as the format rendered alone, in any order and
 * twice over (a renderer that changed the shared view would change the ones after it);
 * report.json as json_dumps writes it; the files of a folder are the renders, each in its own
 * file (report.json is rendered in a thread of its own); an unknown format renders nothing. */
static void test_render_set(const char *tmp, const json_t *report)
{
    static const bitcts_report_format order[] = {
        BITCTS_REPORT_FORMAT_TEXT,  BITCTS_REPORT_FORMAT_HTML,     BITCTS_REPORT_FORMAT_JSON,
        BITCTS_REPORT_FORMAT_JUNIT, BITCTS_REPORT_FORMAT_MARKDOWN, BITCTS_REPORT_FORMAT_HTML,
        BITCTS_REPORT_FORMAT_TEXT};
    enum { N = sizeof order / sizeof order[0] };
    char *out[N];
    size_t size[N];
    CHECK_EQ_U64(bitcts_report_render_set(report, order, N, out, size), BITCTS_OK);
    for (size_t i = 0; i < N; ++i) {
        char *alone = NULL;
        size_t len = 0;
        CHECK_EQ_U64(bitcts_report_render(report, order[i], &alone, &len), BITCTS_OK);
        CHECK(alone != NULL && out[i] != NULL && len == size[i] && strlen(out[i]) == size[i] &&
              memcmp(alone, out[i], len) == 0);
        free(alone);
    }
    char *dumped = json_dumps(report, JSON_INDENT(1));
    CHECK(dumped != NULL && out[2] != NULL && strlen(out[2]) == strlen(dumped) + 1 &&
          strncmp(out[2], dumped, strlen(dumped)) == 0 && out[2][strlen(dumped)] == '\n');
    free(dumped);
    char dir[4200];
    char err[BITCTS_REPORT_ERROR_CAP];
    snprintf(dir, sizeof dir, "%s/render_set", tmp);
    CHECK_EQ_U64(bitcts_report_files_write_assembled(report, dir, err, sizeof err), BITCTS_OK);
    static const char *const files[] = {"report.json", "junit.xml", "summary.md"};
    static const size_t of[] = {2, 3, 4};
    for (size_t k = 0; k < 3; ++k) {
        char *text = read_text(dir, files[k]);
        CHECK(text != NULL && out[of[k]] != NULL && strcmp(text, out[of[k]]) == 0);
        free(text);
    }
    char *html = read_text(dir, "report.html");
    CHECK(html != NULL && out[1] != NULL && strcmp(html, out[1]) == 0);
    free(html);
    for (size_t i = 0; i < N; ++i) {
        free(out[i]);
    }
    const bitcts_report_format bad[] = {BITCTS_REPORT_FORMAT_JSON, (bitcts_report_format)99};
    char *none[2] = {(char *)"x", (char *)"x"};
    CHECK_EQ_U64(bitcts_report_render_set(report, bad, 2, none, NULL), BITCTS_E_INVALID_ARGUMENT);
    CHECK(none[0] == NULL && none[1] == NULL);
}

int main(int argc, char **argv)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "/tmp/bitcts-report-test-XXXXXX");
    if (mkdtemp(tmp) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    json_t *report = make_report(all_cases(), SEED, "", 12.5);
    char err[BITCTS_REPORT_ERROR_CAP];
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/report", tmp);
    CHECK_EQ_U64(bitcts_report_files_write(report, dir, err, sizeof err), BITCTS_OK);
    if (err[0]) {
        fprintf(stderr, "write_all: %s\n", err);
    }
    test_verdicts();
    test_roundtrip(dir, report);
    test_junit(dir);
    test_html(dir, report);
    test_markdown(dir);
    test_diff(tmp, report);
    test_merge(tmp, report);
    test_malformed(tmp, report);
    test_group_parts();
    test_groups_at_scale(tmp);
    test_render_set(tmp, report);
    if (argc > 1) { /* the sample for the browser check */
        CHECK_EQ_U64(bitcts_report_files_write(report, argv[1], err, sizeof err), BITCTS_OK);
        if (err[0]) {
            fprintf(stderr, "sample: %s\n", err);
        }
    }
    json_decref(report);
    bitcts_fs_remove_tree(tmp);
    return check_exit();
}
