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
