/* SPDX-License-Identifier: MIT */
/* What points at the cause of a diff: what changed between the two runs (bitcts, the backend's
 * library, its device and driver, the host, the seed, the selection), and the regressions
 * grouped as the reports group failures (report_group.h: one verdict, operator and message
 * signature), every regression in exactly one group. */
#include <string.h> /* strcmp */

#include "report.h"
#include "report_diff_cause.h"
#include "report_group.h" /* bitcts__report_groups_create */

/* The identity fields of a report that can explain a change: a path of up to two members. */
static const char *const provenance_fields[][2] = {
    {"suite_version", NULL},
    {"suite_commit", NULL},
    {"generator_version", NULL},
    {"seed", NULL},
    {"backend", "name"},
    {"backend", "vendor"},
    {"backend", "version"},
    {"backend", "build_id"},
    {"backend", "library_xxh3_128"},
    {"backend", "library_size"},
    {"backend", "feature_level"},
    {"backend", "device"},
    {"backend", "info"},
    {"host", "hostname"},
    {"host", "os"},
    {"host", "machine"},
    {"host", "cpus"},
    {"selection", "tier"},
    {"selection", "filter"},
    {"selection", "exclude"},
    {"selection", "feature_level"},
};

static const json_t *field(const json_t *r, const char *const path[2])
{
    const json_t *v = json_object_get(r, path[0]);
    return path[1] != NULL ? json_object_get(v, path[1]) : v;
}

json_t *bitcts__report_diff_provenance(const json_t *a, const json_t *b)
{
    json_t *list = json_array();
    const size_t n = sizeof provenance_fields / sizeof provenance_fields[0];
    for (size_t i = 0; list != NULL && i < n; ++i) {
        const json_t *va = field(a, provenance_fields[i]);
        const json_t *vb = field(b, provenance_fields[i]);
        if ((va == NULL && vb == NULL) || (va != NULL && vb != NULL && json_equal(va, vb))) {
            continue;
        }
        char what[64];
        snprintf(what, sizeof what, "%s%s%s", provenance_fields[i][0],
                 provenance_fields[i][1] != NULL ? "." : "",
                 provenance_fields[i][1] != NULL ? provenance_fields[i][1] : "");
        json_t *e = json_pack("{s:s, s:O, s:O}", "what", what, "from",
                              va != NULL ? va : json_null(), "to", vb != NULL ? vb : json_null());
        if (e == NULL || json_array_append_new(list, e) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    return list;
}

static int keep_all(int verdict)
{
    (void)verdict;
    return 1;
}

/* One group as JSON: its key, size, spread, the verdicts its cases came from, every id. */
static json_t *group_json(const bitcts__report_groups *g, const bitcts__report_group *grp,
                          const json_t *regressions)
{
    json_t *spread = json_object();
    json_t *from = json_object();
    json_t *ids = json_array();
    int rc = spread == NULL || from == NULL || ids == NULL;
    for (int f = 0; !rc && f < BITCTS_REPORT_FACETS; ++f) {
        rc |= json_object_set_new(spread, bitcts__report_facet_name(f),
                                  json_pack("{s:I, s:s, s:I}", "distinct",
                                            (json_int_t)grp->spread[f].distinct, "top",
                                            grp->spread[f].top != NULL ? grp->spread[f].top : "",
                                            "count", (json_int_t)grp->spread[f].top_count)) != 0;
    }
    for (size_t k = 0; !rc && k < grp->count; ++k) {
        const json_t *e = json_array_get(regressions, g->order[grp->start + k]);
        const char *was = bitcts_report_str(e, "from");
        rc |= json_array_append_new(ids, json_string(bitcts_report_str(e, "id"))) != 0;
        rc |= json_object_set_new(
                  from, was, json_integer(json_integer_value(json_object_get(from, was)) + 1)) != 0;
    }
    json_t *out = rc ? NULL
                     : json_pack("{s:s, s:s, s:s, s:I, s:O, s:O, s:O}", "verdict",
                                 bitcts_verdict_name(grp->verdict), "operator", grp->op,
                                 "signature", grp->signature, "count", (json_int_t)grp->count,
                                 "from", from, "spread", spread, "ids", ids);
    json_decref(spread);
    json_decref(from);
    json_decref(ids);
    return out;
}

json_t *bitcts__report_diff_groups(const json_t *regressions)
{
    /* The regressions as the grouping reads cases: the verdict they went to, their detail. */
    json_t *cases = json_array();
    for (size_t i = 0; cases != NULL && i < json_array_size(regressions); ++i) {
        const json_t *e = json_array_get(regressions, i);
        if (json_array_append_new(cases, json_pack("{s:s, s:s, s:s, s:s}", "id",
                                                   bitcts_report_str(e, "id"), "operator",
                                                   bitcts_report_str(e, "operator"), "verdict",
                                                   bitcts_report_str(e, "to"), "detail",
                                                   bitcts_report_str(e, "detail"))) != 0) {
            json_decref(cases);
            cases = NULL;
        }
    }
    bitcts__report_groups *g = NULL;
    json_t *out = NULL;
    if (cases != NULL && bitcts__report_groups_create(cases, keep_all, &g) == BITCTS_OK) {
        out = json_array();
        for (size_t i = 0; out != NULL && i < g->n_groups; ++i) {
            if (json_array_append_new(out, group_json(g, &g->groups[i], regressions)) != 0) {
                json_decref(out);
                out = NULL;
            }
        }
    }
    bitcts__report_groups_destroy(g);
    json_decref(cases);
    return out;
}
