/* SPDX-License-Identifier: MIT */
/* The analysis of a report's failures (report_analysis.h): attribute values per case, their
 * pass rates, and the separating rule, searched over small attribute sets. Each case's value of
 * each attribute is an index (at most BITCTS_ANALYSIS_MAX_VALUES per attribute), so a term is a
 * 64-bit mask and a rule's match is a few AND operations per case. */
#include <stdint.h> /* uint64_t */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* memmove, strchr, strcmp, strlen */

#include "report_analysis.h"
#include "report_group.h" /* the facets of a case id */

enum {
    ATTR_OPERATOR,
    ATTR_INPUT_TYPE,
    ATTR_OUTPUT_TYPE,
    ATTR_RANK,
    ATTR_PATTERN,
    ATTR_LAYOUT,
    ATTR_VALUES,
    ATTR_FEATURE_LEVEL,
    ATTR_SIZE_CLASS,
    ATTR_PARITY
};

static const char *const attr_names[BITCTS_ANALYSIS_ATTRS] = {
    "operator", "input_type", "output_type",   "rank",       "pattern",
    "layout",   "values",     "feature_level", "size_class", "parity"};
/* How the views' sentences name each attribute. */
static const char *const attr_phrases[BITCTS_ANALYSIS_ATTRS] = {
    "the operator",      "the input type",   "the output type", "the rank",
    "the pattern",       "the layout",       "the value class", "the feature level",
    "the element count", "the element count"};

const char *bitcts__analysis_attr_name(int attr)
{
    return attr >= 0 && attr < BITCTS_ANALYSIS_ATTRS ? attr_names[attr] : "?";
}

/* The size class of an output with `elements` elements: where SIMD tails and blocking change. */
static const char *size_class(long long elements)
{
    if (elements <= 1) {
        return "1";
    }
    if (elements < 16) {
        return "2-15";
    }
    if (elements < 256) {
        return "16-255";
    }
    return elements < 4096 ? "256-4095" : "4096+";
}

static void put(char *out, const char *s)
{
    size_t n = strlen(s);
    n = n < 63 ? n : 63;
    memmove(out, s, n);
    out[n] = '\0';
}

/* The attributes an id and the case's own members give (reports without descriptions). */
static void values_from_id(const json_t *c, char (*out)[64])
{
    bitcts__report_facets f;
    bitcts__report_case_facets(c, &f);
    put(out[ATTR_OPERATOR], f.value[BITCTS_REPORT_FACET_OP]);
    put(out[ATTR_INPUT_TYPE], f.value[BITCTS_REPORT_FACET_TYPE]);
    char *arrow = strchr(out[ATTR_INPUT_TYPE], '>');
    if (arrow != NULL) { /* "int64>uint8": BIT_COUNT names its output type */
        put(out[ATTR_OUTPUT_TYPE], arrow + 1);
        *arrow = '\0';
    } else {
        put(out[ATTR_OUTPUT_TYPE], out[ATTR_INPUT_TYPE]);
    }
    const char *rank = f.value[BITCTS_REPORT_FACET_RANK];
    put(out[ATTR_RANK], rank[0] == 'r' ? rank + 1 : rank);
    put(out[ATTR_PATTERN], f.value[BITCTS_REPORT_FACET_PATTERN]);
    put(out[ATTR_FEATURE_LEVEL], bitcts_report_str(c, "feature_level"));
}

void bitcts__analysis_case_values(const json_t *case_obj, char (*out)[64])
{
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS; ++a) {
        out[a][0] = '\0';
    }
    values_from_id(case_obj, out);
    const json_t *d = json_object_get(case_obj, "description");
    if (!json_is_object(d)) {
        return;
    }
    static const int from_desc[] = {ATTR_INPUT_TYPE, ATTR_OUTPUT_TYPE, ATTR_PATTERN, ATTR_LAYOUT,
                                    ATTR_VALUES};
    for (size_t i = 0; i < sizeof from_desc / sizeof from_desc[0]; ++i) {
        const char *s = bitcts_report_str(d, attr_names[from_desc[i]]);
        if (*s != '\0') {
            put(out[from_desc[i]], s);
        }
    }
    const json_t *rank = json_object_get(d, "rank");
    if (json_is_integer(rank)) {
        snprintf(out[ATTR_RANK], 64, "%lld", (long long)json_integer_value(rank));
    }
    const json_t *elements = json_object_get(d, "elements");
    if (json_is_integer(elements)) {
        const long long n = (long long)json_integer_value(elements);
        put(out[ATTR_SIZE_CLASS], size_class(n));
        put(out[ATTR_PARITY], n % 2 != 0 ? "odd" : "even");
    }
}

/* ---- the cases as value indices ---- */

typedef struct attr_table {
    char values[BITCTS_ANALYSIS_MAX_VALUES][64]; /* in order of first appearance */
    size_t cases[BITCTS_ANALYSIS_MAX_VALUES];    /* judged cases with the value */
    size_t failing[BITCTS_ANALYSIS_MAX_VALUES];
    size_t n;
    int usable; /* every judged case has a value, and there are at most MAX_VALUES */
} attr_table;

typedef struct analysis {
    attr_table attrs[BITCTS_ANALYSIS_ATTRS];
    unsigned char *vi;    /* per judged case, BITCTS_ANALYSIS_ATTRS value indices */
    unsigned char *fails; /* per judged case: 1 when it fails */
    size_t n;             /* judged cases */
    size_t failing;
    size_t not_judged;
} analysis;

/* A conjunction of terms: attribute a (bit a of attrs) must take a value in set[a]. */
typedef struct rule {
    unsigned attrs;
    uint64_t set[BITCTS_ANALYSIS_ATTRS];
    size_t fm; /* failing cases it matches */
    size_t pm; /* passing cases it matches */
    size_t words;
} rule;

static int judged_kind(int verdict)
{
    if (bitcts_verdict_is_failure(verdict)) {
        return 1;
    }
    return verdict == BITCTS_VERDICT_PASS || verdict == BITCTS_VERDICT_WARN ||
                   verdict == BITCTS_VERDICT_RECORDED
               ? 0
               : -1;
}

/* Records value s of attribute a for a judged case; 255 when the attribute is unusable. */
static unsigned char value_index(attr_table *t, const char *s, int failing)
{
    if (*s == '\0') {
        t->usable = 0;
    }
    size_t i = 0;
    while (i < t->n && strcmp(t->values[i], s) != 0) {
        ++i;
    }
    if (i == t->n) {
        if (t->n == BITCTS_ANALYSIS_MAX_VALUES) {
            t->usable = 0;
            return 255;
        }
        put(t->values[t->n++], s);
    }
    ++t->cases[i];
    t->failing[i] += failing ? 1u : 0u;
    return (unsigned char)i;
}

static bitcts_status collect(analysis *an, const json_t *cases)
{
    const size_t total = json_array_size(cases);
    an->vi = calloc(total > 0 ? total : 1, BITCTS_ANALYSIS_ATTRS);
    an->fails = calloc(total > 0 ? total : 1, 1);
    if (an->vi == NULL || an->fails == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS; ++a) {
        an->attrs[a].usable = 1;
    }
    for (size_t i = 0; i < total; ++i) {
        const json_t *c = json_array_get(cases, i);
        const int kind = judged_kind(bitcts_report_case_verdict(c));
        if (kind < 0) {
            ++an->not_judged;
            continue;
        }
        char values[BITCTS_ANALYSIS_ATTRS][64];
        bitcts__analysis_case_values(c, values);
        for (int a = 0; a < BITCTS_ANALYSIS_ATTRS; ++a) {
            an->vi[an->n * BITCTS_ANALYSIS_ATTRS + (size_t)a] =
                value_index(&an->attrs[a], values[a], kind);
        }
        an->fails[an->n] = (unsigned char)kind;
        an->failing += (size_t)kind;
        ++an->n;
    }
    return BITCTS_OK;
}

/* ---- rules ---- */

static uint64_t all_values(const attr_table *t)
{
    return t->n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << t->n) - 1);
}

static size_t popcount64(uint64_t x)
{
    size_t n = 0;
    for (; x != 0; x &= x - 1) {
        ++n;
    }
    return n;
}

/* Term sets: variant 0, the values seen in failing cases; 1, those whose failure rate exceeds
 * the overall one (failing / judged). 0 when the term would say nothing (no value, or every
 * value). */
static uint64_t term_set(const analysis *an, const attr_table *t, int variant)
{
    uint64_t set = 0;
    for (size_t i = 0; i < t->n; ++i) {
        /* failing[i] / cases[i] > failing / n, in integers */
        const int enriched = (uint64_t)t->failing[i] * an->n > (uint64_t)an->failing * t->cases[i];
        if (variant == 0 ? t->failing[i] > 0 : enriched) {
            set |= (uint64_t)1 << i;
        }
    }
    return set == all_values(t) || !t->usable ? 0 : set;
}

/* Fills the rule's matches and its length in words (each term: its values or their
 * complement, whichever is shorter). */
static void evaluate(const analysis *an, rule *r)
{
    r->fm = 0;
    r->pm = 0;
    r->words = 0;
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS; ++a) {
        if (r->attrs & (1u << a)) {
            const size_t k = popcount64(r->set[a]);
            const size_t rest = an->attrs[a].n - k;
            r->words += k < rest || rest == 0 ? k : rest;
        }
    }
    for (size_t i = 0; i < an->n; ++i) {
        const unsigned char *vi = &an->vi[i * BITCTS_ANALYSIS_ATTRS];
        int match = 1;
        for (int a = 0; a < BITCTS_ANALYSIS_ATTRS && match; ++a) {
            if (r->attrs & (1u << a)) {
                match = vi[a] < 64 && ((r->set[a] >> vi[a]) & 1u);
            }
        }
        if (match) {
            *(an->fails[i] ? &r->fm : &r->pm) += 1;
        }
    }
}

/* The rule over the attribute set `attrs`, the term of attribute a of variant 1 when bit a of
 * `variants` is set, else of variant 0 (term_set); 0 when a term says nothing. */
static int make_rule(const analysis *an, unsigned attrs, unsigned variants, rule *r)
{
    *r = (rule){.attrs = attrs};
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS; ++a) {
        if (attrs & (1u << a)) {
            r->set[a] = term_set(an, &an->attrs[a], (variants >> a) & 1u);
            if (r->set[a] == 0) {
                return 0;
            }
        }
    }
    evaluate(an, r);
    return 1;
}

/* The exact rule with the fewest terms, then words, then the lowest attribute set. */
static int find_exact(const analysis *an, rule *best)
{
    for (size_t terms = 1; terms <= BITCTS_ANALYSIS_MAX_TERMS; ++terms) {
        int found = 0;
        for (unsigned attrs = 1; attrs < (1u << BITCTS_ANALYSIS_ATTRS); ++attrs) {
            rule r;
            if (popcount64(attrs) != terms || !make_rule(an, attrs, 0u, &r) || r.pm != 0) {
                continue;
            }
            if (!found || r.words < best->words) {
                *best = r;
                found = 1;
            }
        }
        if (found) {
            return 1;
        }
    }
    return 0;
}

/* 1 when r has the higher F1 score (2 fm / (F + fm + pm)), or the same with fewer words. */
static int better(const rule *r, const rule *than, size_t failing)
{
    const uint64_t lhs = (uint64_t)r->fm * (failing + than->fm + than->pm);
    const uint64_t rhs = (uint64_t)than->fm * (failing + r->fm + r->pm);
    return lhs > rhs || (lhs == rhs && r->words < than->words);
}

/* The best rule of one or two terms, each term of either variant. */
static int find_partial(const analysis *an, rule *best)
{
    int found = 0;
    for (size_t terms = 1; terms <= 2; ++terms) {
        for (unsigned attrs = 1; attrs < (1u << BITCTS_ANALYSIS_ATTRS); ++attrs) {
            if (popcount64(attrs) != terms) {
                continue;
            }
            for (unsigned variants = 0;; variants = ((variants | ~attrs) + 1) & attrs) {
                rule r;
                if (make_rule(an, attrs, variants, &r) && r.fm > 0 &&
                    (!found || better(&r, best, an->failing))) {
                    *best = r;
                    found = 1;
                }
                if (variants == attrs) {
                    break;
                }
            }
        }
    }
    return found;
}

/* ---- words ---- */

/* "a", "a or b", "a, b or c"; at most BITCTS_ANALYSIS_VIEW_VALUES values, then "N more". */
static void value_list(sbuf *b, const attr_table *t, uint64_t set, const char *last_sep)
{
    const size_t k = popcount64(set);
    size_t shown = 0;
    for (size_t i = 0; i < t->n; ++i) {
        if (!((set >> i) & 1u)) {
            continue;
        }
        if (shown == BITCTS_ANALYSIS_VIEW_VALUES) {
            sb_printf(b, "%s%zu more", last_sep, k - shown);
            return;
        }
        const int final = shown + 1 == k;
        sb_puts(b, shown == 0 ? "" : final ? last_sep : ", ");
        sb_puts(b, t->values[i]);
        ++shown;
    }
}

static void term_words(sbuf *b, const attr_table *t, int attr, uint64_t set)
{
    const uint64_t rest = all_values(t) & ~set;
    const size_t k = popcount64(set);
    const size_t nk = popcount64(rest);
    sb_printf(b, "%s is ", attr_phrases[attr]);
    if (nk < k) {
        sb_puts(b, nk == 1 ? "not " : "other than ");
        value_list(b, t, rest, " or ");
    } else {
        value_list(b, t, set, " or ");
    }
}

static void rule_words(sbuf *b, const analysis *an, const rule *r)
{
    int first = 1;
    int lists = 0; /* a term names several values: ", and " keeps the terms apart */
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS; ++a) {
        const size_t k = popcount64(r->set[a]);
        lists |= (r->attrs & (1u << a)) && k > 1 && an->attrs[a].n - k > 1;
    }
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS; ++a) {
        if (r->attrs & (1u << a)) {
            sb_puts(b, first ? "" : lists ? ", and " : " and ");
            term_words(b, &an->attrs[a], a, r->set[a]);
            first = 0;
        }
    }
}

static void explanation_text(sbuf *b, const analysis *an, const char *kind, const rule *r)
{
    const size_t passing = an->n - an->failing;
    if (strcmp(kind, "all") == 0) {
        sb_printf(b, "every judged case fails (%zu of %zu)", an->failing, an->n);
    } else if (strcmp(kind, "none") == 0) {
        sb_puts(b, "no attribute value separates the failing cases from the passing ones: "
                   "failures are spread over every value of every attribute");
    } else if (strcmp(kind, "exact") == 0) {
        sb_puts(b, "fails only when ");
        rule_words(b, an, r);
        sb_printf(b, " (all %zu failures; none of the %zu passing cases)", an->failing, passing);
    } else {
        sb_puts(b, "no small set of attribute values separates the failures; best partial "
                   "explanation: fails mostly when ");
        rule_words(b, an, r);
        sb_printf(b,
                  " (matches %zu of %zu failures and %zu of %zu passing cases: precision "
                  "%.1f%%, recall %.1f%%)",
                  r->fm, an->failing, r->pm, passing,
                  100.0 * (double)r->fm / (double)(r->fm + r->pm),
                  100.0 * (double)r->fm / (double)an->failing);
    }
}

/* ---- JSON ---- */

static json_t *terms_json(const analysis *an, const rule *r)
{
    json_t *terms = json_array();
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS && terms != NULL; ++a) {
        if (!(r->attrs & (1u << a))) {
            continue;
        }
        const attr_table *t = &an->attrs[a];
        json_t *values = json_array();
        for (size_t i = 0; i < t->n; ++i) {
            if ((r->set[a] >> i) & 1u) {
                json_array_append_new(values, json_string(t->values[i]));
            }
        }
        const size_t k = popcount64(r->set[a]);
        json_array_append_new(terms, json_pack("{s:s, s:o, s:b}", "attribute", attr_names[a],
                                               "values", values, "negated", t->n - k < k));
    }
    return terms;
}

static json_t *explanation_json(const analysis *an)
{
    rule r = {0};
    const char *kind = "none";
    if (an->failing == an->n) {
        kind = "all";
        r.fm = an->failing;
    } else if (find_exact(an, &r)) {
        kind = "exact";
    } else if (find_partial(an, &r)) {
        kind = "partial";
    }
    sbuf text = {0};
    explanation_text(&text, an, kind, &r);
    const double matched = (double)(r.fm + r.pm);
    json_t *e = json_pack("{s:s, s:s, s:o, s:I, s:I, s:f, s:f}", "kind", kind, "text",
                          text.data != NULL ? text.data : "", "terms", terms_json(an, &r),
                          "failing_matched", (json_int_t)r.fm, "passing_matched", (json_int_t)r.pm,
                          "precision", matched > 0 ? (double)r.fm / matched : 0.0, "recall",
                          (double)r.fm / (double)an->failing);
    free(text.data);
    return e;
}

static json_t *attributes_json(const analysis *an)
{
    json_t *attrs = json_array();
    for (int a = 0; a < BITCTS_ANALYSIS_ATTRS && attrs != NULL; ++a) {
        const attr_table *t = &an->attrs[a];
        if (!t->usable) {
            continue;
        }
        json_t *values = json_array();
        for (size_t i = 0; i < t->n; ++i) {
            const double rate = (double)(t->cases[i] - t->failing[i]) / (double)t->cases[i];
            json_array_append_new(values, json_pack("{s:s, s:I, s:I, s:f}", "value", t->values[i],
                                                    "cases", (json_int_t)t->cases[i], "failing",
                                                    (json_int_t)t->failing[i], "pass_rate", rate));
        }
        json_array_append_new(attrs,
                              json_pack("{s:s, s:o}", "name", attr_names[a], "values", values));
    }
    return attrs;
}

/* Whether a judged case fails: else there is no analysis, and nothing to collect. */
static int any_failing(const json_t *cases)
{
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        if (judged_kind(bitcts_report_case_verdict(json_array_get(cases, i))) == 1) {
            return 1;
        }
    }
    return 0;
}

bitcts_status bitcts__report_analysis(const json_t *cases, json_t **out)
{
    if (out == NULL || !json_is_array(cases)) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (!any_failing(cases)) {
        return BITCTS_OK; /* what collect would conclude, without reading every case's values */
    }
    analysis *an = calloc(1, sizeof *an);
    bitcts_status st = an != NULL ? collect(an, cases) : BITCTS_E_OUT_OF_MEMORY;
    if (st == BITCTS_OK && an->failing > 0) {
        *out = json_pack("{s:I, s:I, s:I, s:I, s:o, s:o}", "judged", (json_int_t)an->n, "failing",
                         (json_int_t)an->failing, "passing", (json_int_t)(an->n - an->failing),
                         "not_judged", (json_int_t)an->not_judged, "explanation",
                         explanation_json(an), "attributes", attributes_json(an));
        st = *out != NULL ? BITCTS_OK : BITCTS_E_OUT_OF_MEMORY;
    }
    if (an != NULL) {
        free(an->vi);
        free(an->fails);
    }
    free(an);
    return st;
}
