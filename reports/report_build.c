/* SPDX-License-Identifier: MIT */
/* The report builder: the one way a report.json object is assembled (bitcts run, bitcts check
 * and bitcts report merge). It takes what identifies the run, then the cases in order, and
 * derives the rest (summary, slowest) itself, so that every producer computes them alike. */
#include <stdlib.h> /* calloc, free */

#include "report.h"
#include "report_analysis.h" /* bitcts__report_analysis */

struct bitcts_report_builder {
    json_t *report; /* the identity fields, then everything else at finish */
    json_t *cases;
    int failed; /* an add ran out of memory */
};

/* Fields the builder owns: an identity that carries them (a shard being merged) loses them. */
static const char *const derived_fields[] = {"schema",  "schema_version", "cases",      "summary",
                                             "slowest", "finished",       "duration_s", "analysis"};

bitcts_status bitcts_report_builder_create(const json_t *identity, bitcts_report_builder **out)
{
    if (out == NULL || !json_is_object(identity)) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    bitcts_report_builder *b = calloc(1, sizeof *b);
    if (b == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    b->report = json_deep_copy(identity);
    b->cases = json_array();
    if (b->report == NULL || b->cases == NULL) {
        bitcts_report_builder_destroy(b);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < sizeof derived_fields / sizeof derived_fields[0]; ++i) {
        json_object_del(b->report, derived_fields[i]);
    }
    *out = b;
    return BITCTS_OK;
}

bitcts_status bitcts_report_builder_add(bitcts_report_builder *b, json_t *case_obj)
{
    if (b == NULL || !json_is_object(case_obj)) {
        json_decref(case_obj);
        return BITCTS_E_INVALID_ARGUMENT;
    }
    if (json_array_append_new(b->cases, case_obj) != 0) {
        b->failed = 1;
        return BITCTS_E_OUT_OF_MEMORY;
    }
    return BITCTS_OK;
}

/* "analysis" (report_analysis.h) when a case fails; none when none does. */
static bitcts_status set_analysis(json_t *report, const json_t *cases)
{
    json_t *analysis = NULL;
    const bitcts_status st = bitcts__report_analysis(cases, &analysis);
    if (st != BITCTS_OK || analysis == NULL) {
        return st;
    }
    return json_object_set_new(report, "analysis", analysis) == 0 ? BITCTS_OK
                                                                  : BITCTS_E_OUT_OF_MEMORY;
}

bitcts_status bitcts_report_builder_finish(bitcts_report_builder *b, const char *finished,
                                           double duration_s, json_t **out, char *err, size_t cap)
{
    if (b == NULL || finished == NULL || out == NULL || b->report == NULL) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    json_t *r = b->report;
    json_t *summary = bitcts_report_summarize(b->cases);
    json_t *slowest = bitcts_report_slowest(b->cases, BITCTS_REPORT_SLOWEST);
    int rc = b->failed || summary == NULL || slowest == NULL;
    rc = rc || json_object_set_new(r, "schema", json_string(BITCTS_REPORT_SCHEMA)) != 0;
    rc = rc ||
         json_object_set_new(r, "schema_version", json_string(BITCTS_REPORT_SCHEMA_VERSION)) != 0;
    rc = rc || json_object_set_new(r, "finished", json_string(finished)) != 0;
    rc = rc || json_object_set_new(r, "duration_s", json_real(duration_s)) != 0;
    rc = rc || json_object_set(r, "summary", summary) != 0;
    rc = rc || json_object_set(r, "slowest", slowest) != 0;
    rc = rc || json_object_set(r, "cases", b->cases) != 0;
    json_decref(summary);
    json_decref(slowest);
    rc = rc || set_analysis(r, b->cases) != BITCTS_OK;
    if (rc) {
        if (err != NULL && cap > 0) {
            snprintf(err, cap, "out of memory assembling the report");
        }
        return BITCTS_E_OUT_OF_MEMORY;
    }
    const bitcts_status st = bitcts_report_validate(r, "(assembled)", err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    *out = r;
    b->report = NULL;
    return BITCTS_OK;
}

void bitcts_report_builder_destroy(bitcts_report_builder *b)
{
    if (b == NULL) {
        return;
    }
    json_decref(b->report);
    json_decref(b->cases);
    free(b);
}
