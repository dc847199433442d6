/* SPDX-License-Identifier: MIT */
/* What a run leaves out of what it was asked to select: the cases a --skips file lists (they
 * get the verdict skipped with the line's reason, never run) and, for --claimed, the cases the
 * backend does not claim (taken out of the selection; the report's conformance claim counts
 * them per operator and type, so a partial implementation reports what it leaves out). */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "report_model.h" /* bitcts_report_case_verdict */
#include "run_state.h"

int bitcts__run_load_skips(run_state *s, char *err, size_t cap)
{
    if (s->cfg->skips_path == NULL) {
        return BITCTS_OK;
    }
    return bitcts_skips_load(s->cfg->skips_path, &s->skips, err, cap);
}

void bitcts__run_skip_listed(run_state *s)
{
    for (size_t i = 0; s->skips.count > 0 && i < s->selected_count; ++i) {
        const size_t idx = s->selected[i];
        const bitcts_skip_entry *e = bitcts_skips_find(&s->skips, s->plan->cases[idx].id);
        if (e == NULL) {
            continue;
        }
        bitcts_case_result r;
        bitcts_skips_result(&s->skips, e, &r);
        for (uint32_t round = 0; round < s->rounds; ++round) {
            if (s->results[round][idx] == NULL) {
                bitcts__run_synthesize(s, idx, round, r.verdict, r.detail, 0, NULL);
            }
        }
    }
}

/* 1 when the case is in place: its pattern says so, or (explored and shrunk cases) its data. */
static int case_in_place(const run_state *s, size_t idx)
{
    const uint32_t p = s->plan->cases[idx].pattern;
    if (p == BITCTS_PAT_INPLACE || p == BITCTS_PAT_INPLACE_A || p == BITCTS_PAT_INPLACE_B) {
        return 1;
    }
    if (p != BITCTS_PAT_EXPLORE && s->plan->fixed == NULL) {
        return 0;
    }
    bitcts_case_data d;
    if (bitcts_plan_case_data(s->plan, idx, s->cfg->seed, &d) != BITCTS_OK) {
        return 0; /* run: the worker reports what it cannot build */
    }
    const int in_place = d.alias_input >= 0;
    bitcts_case_free(&d);
    return in_place;
}

/* 1 when the claims cover the case; a negative case needs only its operator. */
static int is_claimed(const run_state *s, size_t idx)
{
    const bitcts_case_key *k = &s->plan->cases[idx];
    char why[160];
    if (k->pattern == BITCTS_PAT_INVALID) {
        const int op = bitcts_op_index(k->op);
        return op >= 0 && s->caps.has_op[op];
    }
    return bitcts__run_unclaimed_reason(&s->caps, k, case_in_place(s, idx), why, sizeof why) ==
           NULL;
}

int bitcts__run_scope_claimed(run_state *s, char *err, size_t cap)
{
    if (!s->cfg->claimed || s->backend_problem[0] != '\0') {
        return BITCTS_OK; /* a backend that never started claims nothing: every case fails */
    }
    if (bitcts_backend_claims_parse(s->claims, &s->caps) != 0) {
        snprintf(err, cap, "--claimed: the backend's claims could not be read ('%.200s')",
                 s->claims);
        return BITCTS_E_INTERNAL;
    }
    s->unclaimed = malloc((s->selected_count + 1) * sizeof *s->unclaimed);
    if (s->unclaimed == NULL) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    size_t kept = 0;
    for (size_t i = 0; i < s->selected_count; ++i) {
        if (is_claimed(s, s->selected[i])) {
            s->selected[kept++] = s->selected[i];
        } else {
            s->unclaimed[s->unclaimed_count++] = s->selected[i];
        }
    }
    s->selected_count = kept;
    if (kept == 0) {
        snprintf(err, cap,
                 "--claimed: the backend claims none of the %zu selected cases (its claims: %s)",
                 s->unclaimed_count, s->claims);
        return BITCTS_E_INVALID_ARGUMENT;
    }
    return BITCTS_OK;
}

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
        row->unclaimed_required += required;
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
