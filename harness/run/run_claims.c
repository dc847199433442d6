/* SPDX-License-Identifier: MIT */
/* The claims of a backend against the cases: why the claims exclude a case (what makes a
 * worker's case not_supported, and what `run --claimed` leaves out), and the conformance claim
 * of a --claimed run (report.json "claims"): per operator and input/output type, the cases
 * selected, required by the claimed feature level, claimed, run, passed and left out. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc */

#include "bitcts/bitcts_verdict.h"
#include "report_model.h" /* bitcts_report_case_verdict */
#include "run_state.h"

const char *bitcts__run_unclaimed_reason(const bitcts_backend_caps *caps, const bitcts_case_key *k,
                                         int in_place, char *buf, size_t cap)
{
    const int op = bitcts_op_index(k->op);
    const bitcts_abi_op_caps *c = op >= 0 && caps->has_op[op] ? &caps->ops[op] : NULL;
    if (c == NULL) {
        snprintf(buf, cap, "%s is not among the backend's operators", bitcts_op_name(k->op));
    } else if ((c->input_types & (1u << k->in_type)) == 0) {
        snprintf(buf, cap, "input type %s is not claimed", bitcts_dtype_name(k->in_type));
    } else if ((c->output_types & (1u << k->out_type)) == 0) {
        snprintf(buf, cap, "output type %s is not claimed", bitcts_dtype_name(k->out_type));
    } else if ((c->dimension_counts & (1u << k->rank)) == 0) {
        snprintf(buf, cap, "DimensionCount %u is not claimed", k->rank);
    } else if (in_place && (c->flags & BITCTS_ABI_CAP_IN_PLACE) == 0) {
        snprintf(buf, cap, "in-place execution is not claimed");
    } else {
        return NULL;
    }
    return buf;
}

/* One row of the claim: an operator and its input and output types. */
typedef struct claim_row {
    uint32_t op, in, out;
    size_t selected, required, claimed, run, passed, unclaimed, unclaimed_required;
} claim_row;

#define CLAIM_MAX_ROWS 4096

static claim_row *claim_row_of(claim_row *rows, size_t *n, const bitcts_case_key *k)
{
    for (size_t i = 0; i < *n; ++i) {
        if (rows[i].op == k->op && rows[i].in == k->in_type && rows[i].out == k->out_type) {
            return &rows[i];
        }
    }
    if (*n == CLAIM_MAX_ROWS) {
        return NULL;
    }
    rows[*n] = (claim_row){.op = k->op, .in = k->in_type, .out = k->out_type};
    return &rows[(*n)++];
}

/* Counts one case into its row: `claimed` (run, or skipped) with its report object, else left
 * out. */
static void claim_count(claim_row *row, const run_state *s, const bitcts_case_key *k, int claimed,
                        const json_t *c)
{
    const int required = k->feature_level <= s->caps.feature_level;
    ++row->selected;
    row->required += required;
    if (!claimed) {
        ++row->unclaimed;
        /* a negative case is rejected, trivially, by a backend without the operator: left
         * out, but not a requirement the backend fails to claim */
        row->unclaimed_required += required && k->pattern != BITCTS_PAT_INVALID;
        return;
    }
    ++row->claimed;
    const int v = bitcts_report_case_verdict(c);
    row->run += v != BITCTS_VERDICT_SKIPPED && v != BITCTS_VERDICT_NOT_RUN;
    row->passed += v == BITCTS_VERDICT_PASS || v == BITCTS_VERDICT_WARN ||
                   v == BITCTS_VERDICT_RECORDED || v == BITCTS_VERDICT_EXPECTED_FAIL;
}

static json_t *claim_rows_json(const claim_row *rows, size_t n, size_t *left_out_required)
{
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < n; ++i) {
        const claim_row *r = &rows[i];
        *left_out_required += r->unclaimed_required;
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "operator",
                            bitcts_op_name(r->op), "input_type", bitcts_dtype_name(r->in),
                            "output_type", bitcts_dtype_name(r->out), "selected",
                            (json_int_t)r->selected, "required", (json_int_t)r->required, "claimed",
                            (json_int_t)r->claimed, "run", (json_int_t)r->run, "passed",
                            (json_int_t)r->passed, "not_claimed", (json_int_t)r->unclaimed,
                            "required_not_claimed", (json_int_t)r->unclaimed_required));
    }
    return list;
}

json_t *bitcts__run_claims_json(const run_state *s, const json_t *cases)
{
    claim_row *rows = calloc(CLAIM_MAX_ROWS, sizeof *rows);
    size_t n = 0;
    if (rows == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        const json_int_t idx = json_integer_value(json_object_get(c, "plan_index"));
        if (idx >= 0 && (size_t)idx < s->plan->count) {
            const bitcts_case_key *k = &s->plan->cases[idx];
            claim_row *row = claim_row_of(rows, &n, k);
            if (row != NULL) {
                claim_count(row, s, k, 1, c);
            }
        }
    }
    for (size_t i = 0; i < s->unclaimed_count; ++i) {
        const bitcts_case_key *k = &s->plan->cases[s->unclaimed[i]];
        claim_row *row = claim_row_of(rows, &n, k);
        if (row != NULL) {
            claim_count(row, s, k, 0, NULL);
        }
    }
    size_t left_out_required = 0;
    json_t *list = claim_rows_json(rows, n, &left_out_required);
    free(rows);
    char fl[8];
    bitcts_fl_format(s->caps.feature_level, fl, sizeof fl);
    return list == NULL ? NULL
                        : json_pack("{s:s, s:I, s:I, s:o}", "feature_level", fl, "not_claimed",
                                    (json_int_t)s->unclaimed_count, "required_not_claimed",
                                    (json_int_t)left_out_required, "rows", list);
}
