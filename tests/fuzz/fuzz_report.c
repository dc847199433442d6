/* SPDX-License-Identifier: MIT */
/* Fuzz target: report.json as `bitcts report render/diff/merge` load it (reports/report_model.c:
 * bitcts_report_parse, which harness/base/report_files.c calls on a file's bytes) and a case object
 * as the runner checks one from a worker (bitcts_report_validate_case).
 *
 * A report that validates must stay valid and mean the same: every case validates alone, the
 * summary and the tally count the cases, written back as report.json it parses to an equal
 * tree, every view renders without a control character it must not hold (JUnit and HTML:
 * valid XML text; Markdown and the terminal: nothing but line breaks), a diff with itself finds
 * nothing, and a merge of it alone gives a valid report of the same cases. A case that
 * validates alone must make a valid report through the builder. A failure is one line. */
#include <jansson.h> /* json_t */
#include <string.h>  /* strlen, strchr */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "fuzz_check.h"
#include "report.h"

/* 1 when the bytes are well-formed UTF-8 without U+FFFE and U+FFFF (XML 1.0 characters,
 * control characters aside). */
static int is_xml_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        const unsigned c = p[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
        if ((c >= 0x80 && c < 0xC2) || c > 0xF4 || i + len > n) {
            return 0;
        }
        for (size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) {
                return 0;
            }
        }
        if (len == 3 && c == 0xEF && p[i + 1] == 0xBF && p[i + 2] >= 0xBE) {
            return 0;
        }
        i += len;
    }
    return 1;
}

static void check_error(bitcts_status st, const char *err)
{
    FUZZ_CHECK(st == BITCTS_E_PARSE || st == BITCTS_E_FORMAT_VERSION ||
               st == BITCTS_E_INVALID_ARGUMENT || st == BITCTS_E_OUT_OF_MEMORY);
    FUZZ_CHECK(err[0] != '\0');
    FUZZ_CHECK(fuzz_no_controls(err, strlen(err), NULL));
}

static void check_views(const json_t *r)
{
    static const struct {
        bitcts_report_format format;
        const char *allowed; /* control characters the view may hold */
        int xml;
    } views[] = {
        {BITCTS_REPORT_FORMAT_JUNIT, "\t\n\r", 1},
        {BITCTS_REPORT_FORMAT_HTML, "\t\n\r", 1},
        {BITCTS_REPORT_FORMAT_MARKDOWN, "\n", 0},
        {BITCTS_REPORT_FORMAT_TEXT, "\n", 0},
    };
    for (size_t i = 0; i < sizeof views / sizeof views[0]; ++i) {
        char *text = NULL;
        size_t size = 0;
        FUZZ_CHECK(bitcts_report_render(r, views[i].format, &text, &size) == BITCTS_OK);
        FUZZ_CHECK(text != NULL && strlen(text) == size);
        FUZZ_CHECK(fuzz_no_controls(text, size, views[i].allowed));
        FUZZ_CHECK(!views[i].xml || is_xml_utf8(text, size));
        free(text);
    }
}

/* report.json written back parses to an equal tree. */
static void check_round_trip(const json_t *r)
{
    char *text = NULL;
    size_t size = 0;
    char err[BITCTS_REPORT_ERROR_CAP];
    FUZZ_CHECK(bitcts_report_render(r, BITCTS_REPORT_FORMAT_JSON, &text, &size) == BITCTS_OK);
    json_t *again = NULL;
    FUZZ_CHECK(bitcts_report_parse("again", text, size, &again, err, sizeof err) == BITCTS_OK);
    FUZZ_CHECK(json_equal(again, (json_t *)r));
    json_decref(again);
    free(text);
}

static void check_counts(const json_t *r)
{
    const json_t *cases = json_object_get(r, "cases");
    const size_t n = json_array_size(cases);
    char err[BITCTS_REPORT_ERROR_CAP];
    for (size_t i = 0; i < n; ++i) {
        FUZZ_CHECK(bitcts_report_validate_case(json_array_get(cases, i), err, sizeof err) ==
                   BITCTS_OK);
    }
    json_t *summary = bitcts_report_summarize(cases);
    FUZZ_CHECK(summary != NULL);
    const json_t *given = json_object_get(json_object_get(r, "summary"), "by_verdict");
    const json_t *counted = json_object_get(summary, "by_verdict");
    for (int v = 0; v < BITCTS_VERDICT_COUNT; ++v) {
        const char *name = bitcts_verdict_name(v);
        FUZZ_CHECK(json_integer_value(json_object_get(given, name)) ==
                   json_integer_value(json_object_get(counted, name)));
    }
    json_decref(summary);

    bitcts_report_tally *t = NULL;
    FUZZ_CHECK(bitcts_report_tally_create(r, &t) == BITCTS_OK);
    size_t by_ops = 0;
    size_t by_verdicts = 0;
    for (size_t i = 0; i < t->n_ops; ++i) {
        by_ops += t->ops[i].count;
    }
    for (int v = 0; v < BITCTS_VERDICT_COUNT; ++v) {
        by_verdicts += t->totals[v];
    }
    FUZZ_CHECK(t->n == n && by_ops == n && by_verdicts == n);
    bitcts_report_tally_destroy(t);

    bitcts_report_index *index = NULL;
    FUZZ_CHECK(bitcts_report_index_create(r, &index) == BITCTS_OK);
    for (size_t i = 0; i < n; ++i) {
        const json_t *c = json_array_get(cases, i);
        FUZZ_CHECK(bitcts_report_index_find(index, bitcts_report_str(c, "id")) == c);
    }
    bitcts_report_index_destroy(index);

    json_t *slowest = bitcts_report_slowest(cases, BITCTS_REPORT_SLOWEST);
    FUZZ_CHECK(slowest != NULL);
    FUZZ_CHECK(json_array_size(slowest) == (n < BITCTS_REPORT_SLOWEST ? n : BITCTS_REPORT_SLOWEST));
    for (size_t i = 1; i < json_array_size(slowest); ++i) {
        FUZZ_CHECK(bitcts_report_num(json_array_get(slowest, i - 1), "duration_ms") >=
                   bitcts_report_num(json_array_get(slowest, i), "duration_ms"));
    }
    json_decref(slowest);
}

static void check_diff_merge(const json_t *r)
{
    const size_t n = json_array_size(json_object_get(r, "cases"));
    json_t *diff = NULL;
    FUZZ_CHECK(bitcts_report_diff(r, r, &diff) == BITCTS_OK);
    const json_t *s = json_object_get(diff, "summary");
    static const char *const none[] = {"regressions",    "fixes", "changed",
                                       "digest_changed", "added", "removed"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i) {
        FUZZ_CHECK(json_integer_value(json_object_get(s, none[i])) == 0);
    }
    FUZZ_CHECK((size_t)json_integer_value(json_object_get(s, "compared")) == n);
    json_decref(diff);

    const json_t *shards[1] = {r};
    const char *names[1] = {"fuzz.json"};
    json_t *merged = NULL;
    char err[BITCTS_REPORT_ERROR_CAP];
    const bitcts_status st = bitcts_report_merge(shards, names, 1, &merged, err, sizeof err);
    if (st == BITCTS_OK) {
        FUZZ_CHECK(bitcts_report_validate(merged, "merged", err, sizeof err) == BITCTS_OK);
        FUZZ_CHECK(json_array_size(json_object_get(merged, "cases")) == n);
        json_decref(merged);
    } else {
        FUZZ_CHECK(merged == NULL);
        check_error(st, err);
    }
}

static void check_report(const json_t *r)
{
    char err[BITCTS_REPORT_ERROR_CAP];
    FUZZ_CHECK(bitcts_report_validate(r, "valid", err, sizeof err) == BITCTS_OK);
    check_counts(r);
    check_round_trip(r);
    check_views(r);
    check_diff_merge(r);
}

/* A case the runner would believe: the builder must make a valid report of it. */
static void check_case(const json_t *c)
{
    char err[BITCTS_REPORT_ERROR_CAP];
    if (bitcts_report_validate_case(c, err, sizeof err) != BITCTS_OK) {
        check_error(BITCTS_E_PARSE, err);
        return;
    }
    json_t *identity = json_pack(
        "{s:s, s:i, s:s, s:[s], s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s, s:s, "
        "s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:i}}",
        "suite_version", "0.1.0", "generator_version", 1, "seed", "0x1", "command_line", "bitcts",
        "started", "2026-01-01T00:00:00Z", "selection", "tier", "smoke", "filter", "*",
        "feature_level", "", "shard", "", "backend", "spec", "cpu", "path", "builtin:cpu", "name",
        "cpu", "vendor", "", "version", "", "build_id", "", "abi_version", "1.0", "feature_level",
        "6_4", "library_xxh3_128", "", "host", "hostname", "h", "os", "Linux", "machine", "x86_64",
        "cpus", 2);
    FUZZ_CHECK(identity != NULL);
    bitcts_report_builder *b = NULL;
    FUZZ_CHECK(bitcts_report_builder_create(identity, &b) == BITCTS_OK);
    FUZZ_CHECK(bitcts_report_builder_add(b, json_deep_copy(c)) == BITCTS_OK);
    json_t *r = NULL;
    const bitcts_status st =
        bitcts_report_builder_finish(b, "2026-01-01T00:00:01Z", 1.0, &r, err, sizeof err);
    if (st != BITCTS_OK) {
        fprintf(stderr, "builder: %s\n", err);
    }
    FUZZ_CHECK(st == BITCTS_OK);
    check_report(r);
    json_decref(r);
    bitcts_report_builder_destroy(b);
    json_decref(identity);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *report = NULL;
    char err[BITCTS_REPORT_ERROR_CAP];
    const bitcts_status st =
        bitcts_report_parse("fuzz.json", (const char *)data, size, &report, err, sizeof err);
    if (st == BITCTS_OK) {
        check_report(report);
        json_decref(report);
    } else {
        FUZZ_CHECK(report == NULL);
        check_error(st, err);
    }
    /* The same bytes as one case, or as a report's cases. */
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (json_is_object(doc) && json_object_get(doc, "cases") == NULL) {
        check_case(doc);
    }
    const json_t *cases = json_object_get(doc, "cases");
    for (size_t i = 0; i < json_array_size(cases) && i < 4; ++i) {
        if (json_is_object(json_array_get(cases, i))) {
            check_case(json_array_get(cases, i));
        }
    }
    json_decref(doc);
    return 0;
}
