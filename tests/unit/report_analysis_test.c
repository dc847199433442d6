/* SPDX-License-Identifier: MIT */
/* Tests of the failure analysis (reports/report_analysis.h): exact rules of one and two terms,
 * a complement in words, a partial rule with its precision and recall, every case failing, a
 * pattern no conjunction expresses, no failure, cases that are not judged, reports without
 * descriptions, the views' lines, and 12,000 cases (the size of the default tier). */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strstr */

#include "check.h"
#include "report_analysis.h"

static const char *const types[] = {"float16", "float32", "uint8"};
static const char *const value_classes[] = {"random", "edge"};
static const char *const patterns[] = {"packed", "permuted", "padded_outer", "broadcast_b",
                                       "scalar_b"};

/* A case of bit_xor with a description; n is the value class's index. */
static json_t *make_case(const char *type, int rank, const char *pattern, int n,
                         const char *verdict, json_int_t elements)
{
    char id[128];
    snprintf(id, sizeof id, "bit_xor.%s.r%d.%s.%d", type, rank, pattern, n);
    return json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:I, s:s, s:s, s:s, s:I}}", "id", id,
                     "operator", "bit_xor", "feature_level", "4_1", "verdict", verdict,
                     "description", "input_type", type, "output_type", type, "rank",
                     (json_int_t)rank, "pattern", pattern, "layout",
                     strcmp(pattern, "packed") == 0 ? "packed" : "strided", "values",
                     value_classes[n], "elements", elements);
}

/* Every type x value class x pattern x rank 1..4; verdict from fails(). */
static json_t *grid(int (*fails)(const char *type, int n, const char *pattern, int rank))
{
    json_t *cases = json_array();
    for (size_t t = 0; t < 3; ++t) {
        for (int n = 0; n < 2; ++n) {
            for (size_t p = 0; p < 5; ++p) {
                for (int rank = 1; rank <= 4; ++rank) {
                    const int f = fails(types[t], n, patterns[p], rank);
                    json_array_append_new(cases, make_case(types[t], rank, patterns[p], n,
                                                           f ? "fail" : "pass", 100 + rank));
                }
            }
        }
    }
    return cases;
}

static json_t *analyse(const json_t *cases)
{
    json_t *out = NULL;
    CHECK_EQ_U64(bitcts__report_analysis(cases, &out), BITCTS_OK);
    return out;
}

static const json_t *explanation(const json_t *a)
{
    return json_object_get(a, "explanation");
}

/* The term of `attr` as "v1,v2" ("" when the rule has no such term). */
static void term_values(const json_t *a, const char *attr, char *out, size_t cap)
{
    out[0] = '\0';
    const json_t *terms = json_object_get(explanation(a), "terms");
    for (size_t i = 0; i < json_array_size(terms); ++i) {
        const json_t *t = json_array_get(terms, i);
        if (strcmp(bitcts_report_str(t, "attribute"), attr) != 0) {
            continue;
        }
        const json_t *vals = json_object_get(t, "values");
        for (size_t k = 0; k < json_array_size(vals); ++k) {
            const size_t used = strlen(out);
            snprintf(out + used, cap - used, "%s%s", k ? "," : "",
                     json_string_value(json_array_get(vals, k)));
        }
    }
}

/* The explanation's kind, its number of terms and the values of the term of attr. */
static void check_rule(const json_t *a, const char *kind, size_t terms, const char *attr,
                       const char *want)
{
    char vals[256];
    CHECK_EQ_STR(bitcts_report_str(explanation(a), "kind"), kind);
    CHECK_EQ_U64(json_array_size(json_object_get(explanation(a), "terms")), terms);
    term_values(a, attr, vals, sizeof vals);
    CHECK_EQ_STR(vals, want);
}

static int f16_edge(const char *type, int n, const char *pattern, int rank)
{
    (void)pattern;
    (void)rank;
    return strcmp(type, "float16") == 0 && n == 1;
}

static int not_packed(const char *type, int n, const char *pattern, int rank)
{
    (void)type;
    (void)n;
    (void)rank;
    return strcmp(pattern, "packed") != 0;
}

static int f16_edge_noisy(const char *type, int n, const char *pattern, int rank)
{
    if (strcmp(type, "uint8") == 0 && n == 0 && rank == 1 && strcmp(pattern, "packed") == 0) {
        return 1; /* a failure the rule does not name */
    }
    if (strcmp(type, "float16") == 0 && n == 1 && rank == 2 && strcmp(pattern, "packed") == 0) {
        return 0; /* a case the rule names that passes */
    }
    return f16_edge(type, n, pattern, rank);
}

/* Fails when exactly one of (rank odd, value class edge) holds: every value of every attribute
 * fails half of its cases, so no conjunction of value sets separates anything. */
static int exclusive(const char *type, int n, const char *pattern, int rank)
{
    (void)type;
    (void)pattern;
    return (rank % 2 == 1) != (n == 1);
}

static void test_exact_two_terms(void)
{
    json_t *cases = grid(f16_edge);
    json_t *a = analyse(cases);
    check_rule(a, "exact", 2, "input_type", "float16");
    check_rule(a, "exact", 2, "values", "edge");
    CHECK(strstr(bitcts_report_str(explanation(a), "text"),
                 "fails only when the input type is float16 and the value class is edge (all 20 "
                 "failures; none of the 100 passing cases)") != NULL);
    CHECK_EQ_U64(json_integer_value(json_object_get(a, "failing")), 20);
    json_t *again = analyse(cases); /* deterministic */
    CHECK(json_equal(a, again));
    json_decref(again);
    json_decref(a);
    json_decref(cases);
}

static void test_exact_complement(void)
{
    json_t *cases = grid(not_packed);
    json_t *a = analyse(cases);
    /* pattern ("not packed") and layout ("strided") both separate in one word: the first in
     * attribute order, pattern, is taken */
    check_rule(a, "exact", 1, "pattern", "permuted,padded_outer,broadcast_b,scalar_b");
    CHECK(json_is_true(
        json_object_get(json_array_get(json_object_get(explanation(a), "terms"), 0), "negated")));
    CHECK(strstr(bitcts_report_str(explanation(a), "text"),
                 "fails only when the pattern is not packed") != NULL);
    json_decref(a);
    json_decref(cases);
}

static void test_partial(void)
{
    json_t *cases = grid(f16_edge_noisy);
    json_t *a = analyse(cases);
    const json_t *e = explanation(a);
    check_rule(a, "partial", 2, "input_type", "float16");
    check_rule(a, "partial", 2, "values", "edge");
    CHECK_EQ_U64(json_integer_value(json_object_get(e, "failing_matched")), 19);
    CHECK_EQ_U64(json_integer_value(json_object_get(e, "passing_matched")), 1);
    CHECK(strstr(bitcts_report_str(e, "text"),
                 "no small set of attribute values separates the failures") != NULL);
    CHECK(strstr(bitcts_report_str(e, "text"), "precision 95.0%, recall 95.0%") != NULL);
    json_decref(a);
    json_decref(cases);
}

/* Every case of the grid given the verdict `verdict`. */
static void set_all(json_t *cases, const char *verdict)
{
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        json_object_set_new(json_array_get(cases, i), "verdict", json_string(verdict));
    }
}

static void test_all_none_and_clean(void)
{
    json_t *cases = grid(f16_edge);
    set_all(cases, "fail");
    json_t *a = analyse(cases);
    CHECK_EQ_STR(bitcts_report_str(explanation(a), "kind"), "all");
    json_decref(a);
    json_decref(cases);
    cases = grid(exclusive);
    a = analyse(cases);
    CHECK_EQ_STR(bitcts_report_str(explanation(a), "kind"), "none");
    CHECK_EQ_U64(json_array_size(json_object_get(explanation(a), "terms")), 0);
    json_decref(a);
    json_decref(cases);
    cases = grid(f16_edge);
    set_all(cases, "pass");
    a = analyse(cases);
    CHECK(a == NULL); /* nothing fails: no analysis */
    json_decref(cases);
    json_t *empty = json_object();
    CHECK_EQ_U64(bitcts__report_analysis(empty, &a), BITCTS_E_INVALID_ARGUMENT);
    json_decref(empty);
}

/* not_supported, skipped, not_run and expected_fail cases are neither failing nor passing. */
static void test_not_judged(void)
{
    json_t *cases = grid(f16_edge);
    static const char *const masked[] = {"not_supported", "skipped", "not_run", "expected_fail"};
    for (size_t i = 0; i < 4; ++i) { /* cases that would spoil the rule if judged */
        json_array_append_new(cases, make_case("float16", 9, "packed", 1, masked[i], 7));
    }
    json_array_append_new(cases, make_case("float16", 9, "packed", 1, "recorded", 7));
    json_t *a = analyse(cases);
    CHECK_EQ_U64(json_integer_value(json_object_get(a, "not_judged")), 4);
    CHECK_EQ_U64(json_integer_value(json_object_get(a, "judged")), 121);
    /* the recorded float16/edge case passes: the two-term rule no longer separates, the rank
     * does (rank 9 is the recorded case's alone) */
    CHECK(strcmp(bitcts_report_str(explanation(a), "kind"), "exact") == 0);
    CHECK(strstr(bitcts_report_str(explanation(a), "text"), "the rank is") != NULL);
    json_decref(a);
    json_decref(cases);
}

/* Without descriptions the id gives operator, types, rank and pattern; the rest is unknown
 * and left out. */
static void test_from_ids(void)
{
    json_t *cases = grid(not_packed);
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        json_object_del(json_array_get(cases, i), "description");
    }
    json_t *a = analyse(cases);
    const json_t *attrs = json_object_get(a, "attributes");
    int layout = 0;
    int pattern = 0;
    for (size_t i = 0; i < json_array_size(attrs); ++i) {
        layout |= strcmp(bitcts_report_str(json_array_get(attrs, i), "name"), "layout") == 0;
        pattern |= strcmp(bitcts_report_str(json_array_get(attrs, i), "name"), "pattern") == 0;
    }
    CHECK(!layout && pattern);
    CHECK(strstr(bitcts_report_str(explanation(a), "text"),
                 "fails only when the pattern is not packed") != NULL);
    char values[BITCTS_ANALYSIS_ATTRS][64];
    json_t *count = json_pack("{s:s, s:s}", "id", "bit_count.int64.uint8.r3.permuted.0",
                              "feature_level", "4_1");
    bitcts__analysis_case_values(count, values);
    CHECK_EQ_STR(values[1], "int64");
    CHECK_EQ_STR(values[2], "uint8");
    CHECK_EQ_STR(values[3], "3");
    CHECK_EQ_STR(values[4], "permuted");
    json_decref(count);
    json_decref(a);
    json_decref(cases);
}

static void plain(sbuf *b, const char *s)
{
    sb_puts(b, s);
}

static void test_lines(void)
{
    json_t *cases = grid(not_packed);
    json_t *a = analyse(cases);
    sbuf b = {0};
    bitcts__analysis_lines(&b, a, "> ", plain);
    static const char head[] = "> 96 of 120 judged cases fail\n> fails only";
    CHECK(b.data != NULL && strncmp(b.data, head, sizeof head - 1) == 0);
    CHECK(strstr(b.data,
                 "> pass rate by pattern: permuted 0.0% of 24, padded_outer 0.0% of 24, "
                 "broadcast_b 0.0% of 24, scalar_b 0.0% of 24, packed 100.0% of 24\n") != NULL);
    size_t lines = 0;
    for (const char *p = b.data; p != NULL && *p != '\0'; ++p) {
        lines += *p == '\n';
    }
    CHECK(lines <= 2 + BITCTS_ANALYSIS_VIEW_LINES);
    free(b.data);
    json_decref(a);
    json_decref(cases);
}

/* The default tier's size: 12,000 cases, one attribute combination failing. */
static void test_scale(void)
{
    json_t *cases = json_array();
    for (int i = 0; i < 12000; ++i) {
        const int f = i % 97 == 3;
        json_array_append_new(cases, make_case(types[i % 3], 1 + i % 8, patterns[i % 5], i % 2,
                                               f ? "fail" : "pass", 1 + i % 300));
    }
    json_t *a = analyse(cases);
    CHECK(a != NULL);
    CHECK_EQ_U64(json_integer_value(json_object_get(a, "judged")), 12000);
    json_decref(a);
    json_decref(cases);
}

int main(void)
{
    test_exact_two_terms();
    test_exact_complement();
    test_partial();
    test_all_none_and_clean();
    test_not_judged();
    test_from_ids();
    test_lines();
    test_scale();
    return check_exit();
}
