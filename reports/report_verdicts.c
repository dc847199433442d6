/* SPDX-License-Identifier: MIT */
/* The verdict table as data (`bitcts report verdicts`): every verdict with its properties, and
 * the class of every change between two of them, from the one list and the one rule the
 * harness and the reports use. Tools that read reports (tools/nightly.py) take their meaning of
 * a verdict and of a regression from here instead of keeping their own. */
#include "report.h"

static const char *const change_names[] = {"same", "regression", "fix", "other"};

static json_t *verdict_list(void)
{
    json_t *list = json_array();
    for (int v = 0; list != NULL && v < BITCTS_VERDICT_COUNT; ++v) {
        json_t *e = json_pack("{s:s, s:i, s:b, s:i, s:b}", "name", bitcts_verdict_name(v), "value",
                              v, "failure", bitcts_verdict_is_failure(v), "rank",
                              bitcts_verdict_rank(v), "healthy", bitcts_verdict_is_healthy(v));
        if (e == NULL || json_array_append_new(list, e) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* {"from": {"to": "regression" | "fix" | "other" | "same"}} over every pair. */
static json_t *change_matrix(void)
{
    json_t *m = json_object();
    for (int a = 0; m != NULL && a < BITCTS_VERDICT_COUNT; ++a) {
        json_t *row = json_object();
        for (int b = 0; row != NULL && b < BITCTS_VERDICT_COUNT; ++b) {
            const int c = (int)bitcts_report_verdict_change(a, b);
            if (json_object_set_new(row, bitcts_verdict_name(b), json_string(change_names[c])) !=
                0) {
                json_decref(row);
                row = NULL;
            }
        }
        if (row == NULL || json_object_set_new(m, bitcts_verdict_name(a), row) != 0) {
            json_decref(m);
            return NULL;
        }
    }
    return m;
}

json_t *bitcts_report_verdict_table(void)
{
    json_t *list = verdict_list();
    json_t *changes = change_matrix();
    if (list == NULL || changes == NULL) {
        json_decref(list);
        json_decref(changes);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:o, s:o}", "schema", "bitcts-verdicts", "schema_version", "1.0",
                     "verdicts", list, "changes", changes);
}
