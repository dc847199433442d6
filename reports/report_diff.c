/* SPDX-License-Identifier: MIT */
/* Run-to-run comparison: matches the cases of two validated reports by id and sorts every
 * difference into regressions, fixes, other verdict changes, output digest changes, added and
 * removed cases, and explains the regressions (report_analysis.h: the regressed cases against
 * the compared cases that are healthy in B). The result is JSON so the CLI can print it and save
 * it unchanged. */
#include <string.h> /* strcmp */

#include "report.h"
#include "report_analysis.h"   /* bitcts__report_analysis */
#include "report_diff_cause.h" /* provenance, groups */

/* Identity of one side, so a saved diff says what was compared. */
static json_t *side_json(const json_t *r)
{
    const json_t *backend = json_object_get(r, "backend");
    return json_pack("{s:s, s:s, s:s, s:s, s:I}", "suite_version",
                     bitcts_report_str(r, "suite_version"), "seed", bitcts_report_str(r, "seed"),
                     "backend", bitcts_report_str(backend, "name"), "library_xxh3_128",
                     bitcts_report_str(backend, "library_xxh3_128"), "cases",
                     (json_int_t)json_array_size(json_object_get(r, "cases")));
}

static int append(json_t *list, json_t *item)
{
    return item != NULL ? json_array_append_new(list, item) : -1;
}

static int verdict_change_entry(json_t *list, const json_t *ca, const json_t *cb)
{
    return append(list, json_pack("{s:s, s:s, s:s, s:s, s:s}", "id", bitcts_report_str(cb, "id"),
                                  "operator", bitcts_report_str(cb, "operator"), "from",
                                  bitcts_report_str(ca, "verdict"), "to",
                                  bitcts_report_str(cb, "verdict"), "detail",
                                  bitcts_report_str(cb, "detail")));
}

static int presence_entry(json_t *list, const json_t *c)
{
    return append(list, json_pack("{s:s, s:s, s:s}", "id", bitcts_report_str(c, "id"), "operator",
                                  bitcts_report_str(c, "operator"), "verdict",
                                  bitcts_report_str(c, "verdict")));
}

/* Same verdict, one of pass/warn/recorded, two digests that differ: the backend now computes
 * something else where the suite cannot tell (recorded) or still accepts it. */
static int digest_entry(json_t *list, const json_t *ca, const json_t *cb)
{
    const int v = bitcts_report_case_verdict(cb);
    const char *da = bitcts_report_str(ca, "output_xxh3_128");
    const char *db = bitcts_report_str(cb, "output_xxh3_128");
    if (v != bitcts_report_case_verdict(ca) || !bitcts_verdict_is_healthy(v) || !*da || !*db ||
        strcmp(da, db) == 0) {
        return 0;
    }
    return append(list, json_pack("{s:s, s:s, s:s, s:s, s:s}", "id", bitcts_report_str(cb, "id"),
                                  "operator", bitcts_report_str(cb, "operator"), "verdict",
                                  bitcts_report_str(cb, "verdict"), "from", da, "to", db));
}

/* A compared case of B as the analysis of the regressions sees it: "fail" when it regressed,
 * its verdict when healthy, else "not_run" (not judged: it failed in A already, or is masked). */
static int judged_entry(json_t *list, const json_t *cb, int regressed)
{
    const int v = bitcts_report_case_verdict(cb);
    const char *verdict = regressed                      ? "fail"
                          : bitcts_verdict_is_healthy(v) ? bitcts_verdict_name(v)
                                                         : "not_run";
    json_t *stub = json_pack("{s:s, s:s, s:s, s:s}", "id", bitcts_report_str(cb, "id"), "operator",
                             bitcts_report_str(cb, "operator"), "feature_level",
                             bitcts_report_str(cb, "feature_level"), "verdict", verdict);
    const json_t *description = json_object_get(cb, "description");
    if (stub != NULL && description != NULL &&
        json_object_set(stub, "description", (json_t *)description) != 0) {
        json_decref(stub);
        stub = NULL;
    }
    return append(list, stub);
}

typedef struct diff_lists {
    json_t *judged; /* the compared cases of B, for the analysis of the regressions */
    json_t *regressions;
    json_t *fixes;
    json_t *changed;
    json_t *digest_changed;
    json_t *added;
    json_t *removed;
    size_t compared;
} diff_lists;

static int compare_b_cases(diff_lists *d, const json_t *b, const bitcts_report_index *index_a,
                           int digests)
{
    const json_t *cases = json_object_get(b, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *cb = json_array_get(cases, i);
        const json_t *ca = bitcts_report_index_find(index_a, bitcts_report_str(cb, "id"));
        int rc = 0;
        if (ca == NULL) {
            rc = presence_entry(d->added, cb);
        } else {
            ++d->compared;
            const bitcts_report_change change = bitcts_report_verdict_change(
                bitcts_report_case_verdict(ca), bitcts_report_case_verdict(cb));
            if (judged_entry(d->judged, cb, change == BITCTS_REPORT_CHANGE_REGRESSION) != 0) {
                return -1;
            }
            switch (change) {
            case BITCTS_REPORT_CHANGE_REGRESSION:
                rc = verdict_change_entry(d->regressions, ca, cb);
                break;
            case BITCTS_REPORT_CHANGE_FIX: rc = verdict_change_entry(d->fixes, ca, cb); break;
            case BITCTS_REPORT_CHANGE_OTHER: rc = verdict_change_entry(d->changed, ca, cb); break;
            default: rc = digests ? digest_entry(d->digest_changed, ca, cb) : 0;
            }
        }
        if (rc != 0) {
            return -1;
        }
    }
    return 0;
}

static int find_removed(diff_lists *d, const json_t *a, const bitcts_report_index *index_b)
{
    const json_t *cases = json_object_get(a, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *ca = json_array_get(cases, i);
        if (bitcts_report_index_find(index_b, bitcts_report_str(ca, "id")) == NULL &&
            presence_entry(d->removed, ca) != 0) {
            return -1;
        }
    }
    return 0;
}

static json_t *diff_json(diff_lists *d, const json_t *a, const json_t *b, int digests)
{
    json_t *summary = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "compared", (json_int_t)d->compared, "regressions",
        (json_int_t)json_array_size(d->regressions), "fixes", (json_int_t)json_array_size(d->fixes),
        "changed", (json_int_t)json_array_size(d->changed), "digest_changed",
        (json_int_t)json_array_size(d->digest_changed), "added",
        (json_int_t)json_array_size(d->added), "removed", (json_int_t)json_array_size(d->removed));
    json_t *analysis = NULL;
    if (json_array_size(d->regressions) > 0 &&
        bitcts__report_analysis(d->judged, &analysis) != BITCTS_OK) {
        json_decref(summary);
        return NULL;
    }
    /* "O" takes a new reference; the lists stay owned by d and are released by the caller. */
    json_t *diff =
        json_pack("{s:s, s:s, s:o, s:o, s:b, s:O, s:O, s:O, s:O, s:O, s:O, s:o}", "schema",
                  "bitcts-report-diff", "schema_version", "1.1", "a", side_json(a), "b",
                  side_json(b), "digests_compared", digests, "regressions", d->regressions, "fixes",
                  d->fixes, "changed", d->changed, "digest_changed", d->digest_changed, "added",
                  d->added, "removed", d->removed, "summary", summary);
    if (diff != NULL && analysis != NULL && json_object_set_new(diff, "analysis", analysis) != 0) {
        json_decref(diff);
        return NULL;
    }
    if (diff == NULL) {
        json_decref(analysis);
        return NULL;
    }
    /* 1.1: what changed between the runs, and the regressions grouped (report_diff_cause.h) */
    json_t *provenance = bitcts__report_diff_provenance(a, b);
    json_t *groups = bitcts__report_diff_groups(d->regressions);
    const int rc = json_object_set_new(diff, "provenance", provenance) | /* each takes its own */
                   json_object_set_new(diff, "groups", groups);
    if (rc != 0) {
        json_decref(diff);
        return NULL;
    }
    return diff;
}

bitcts_status bitcts_report_diff(const json_t *a, const json_t *b, json_t **out)
{
    if (a == NULL || b == NULL || out == NULL) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    /* Output digests only mean the same thing when the inputs were generated the same way. */
    const int digests = strcmp(bitcts_report_str(a, "seed"), bitcts_report_str(b, "seed")) == 0 &&
                        json_equal(json_object_get(a, "generator_version"),
                                   json_object_get(b, "generator_version"));
    bitcts_report_index *index_a = NULL;
    bitcts_report_index *index_b = NULL;
    diff_lists d = {.judged = json_array(),
                    .regressions = json_array(),
                    .fixes = json_array(),
                    .changed = json_array(),
                    .digest_changed = json_array(),
                    .added = json_array(),
                    .removed = json_array()};
    bitcts_status st = BITCTS_E_OUT_OF_MEMORY;
    if (d.judged == NULL || d.regressions == NULL || d.fixes == NULL || d.changed == NULL ||
        d.digest_changed == NULL || d.added == NULL || d.removed == NULL) {
        goto cleanup;
    }
    if ((st = bitcts_report_index_create(a, &index_a)) != BITCTS_OK ||
        (st = bitcts_report_index_create(b, &index_b)) != BITCTS_OK) {
        goto cleanup;
    }
    st = BITCTS_E_OUT_OF_MEMORY;
    if (compare_b_cases(&d, b, index_a, digests) != 0 || find_removed(&d, a, index_b) != 0) {
        goto cleanup;
    }
    if ((*out = diff_json(&d, a, b, digests)) != NULL) {
        st = BITCTS_OK;
    }
cleanup:
    bitcts_report_index_destroy(index_a);
    bitcts_report_index_destroy(index_b);
    json_decref(d.judged);
    json_decref(d.regressions);
    json_decref(d.fixes);
    json_decref(d.changed);
    json_decref(d.digest_changed);
    json_decref(d.added);
    json_decref(d.removed);
    return st;
}
