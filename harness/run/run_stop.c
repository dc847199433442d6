/* SPDX-License-Identifier: MIT */
/* The end of a run a stop rule cut short (every case that did not run gets `not_run`, naming the
 * rule) and --retry-unexpected N: each case whose outcome was unexpected runs again, up to N
 * times, each in a fresh worker; a case whose runs disagree becomes a flake (as under --repeat). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitcts/bitcts_verdict.h"
#include "report_model.h"
#include "run_state.h"

void bitcts__run_mark_not_run(run_state *s)
{
    for (uint32_t r = 0; r < s->rounds; ++r) {
        for (size_t i = 0; i < s->selected_count; ++i) {
            if (s->results[r][s->selected[i]] == NULL) {
                bitcts__run_synthesize(s, s->selected[i], r, BITCTS_VERDICT_NOT_RUN, s->stopped, 0,
                                       NULL);
            }
        }
    }
}

/* A case to run again in round r: its outcome so far fails (the baseline applied), its runs
 * agree (a flake is settled), and round r has no result for it yet (a resumed log may have). */
static int to_retry(run_state *s, size_t idx, uint32_t r)
{
    if (s->results[r][idx] != NULL) {
        return 0;
    }
    json_t *obj = bitcts__run_final_result(s, idx);
    const int verdict = bitcts_verdict_parse(bitcts_report_str(obj, "verdict"));
    const int flaky = json_object_get(obj, "repeats") != NULL;
    json_decref(obj);
    return bitcts_verdict_is_failure(verdict) && !flaky;
}

/* The cases of the first retry round: every unexpected outcome, or, past --retry-cases M, M
 * of them spread evenly over the plan (the j-th of M is the floor(j*X/M)-th of the X). Later
 * rounds take the cases of the round before whose outcomes still agree. Returns how many. */
static size_t pick_retries(run_state *s, uint32_t r, size_t *picked)
{
    size_t n = 0;
    for (size_t i = 0; i < s->selected_count; ++i) {
        const size_t idx = s->selected[i];
        if ((r == s->rounds || s->results[r - 1][idx] != NULL) && to_retry(s, idx, r)) {
            picked[n++] = idx;
        }
    }
    const size_t cap = s->cfg->retry_cases;
    if (r == s->rounds && cap > 0 && n > cap) {
        snprintf(s->retried, sizeof s->retried,
                 "%zu cases had an unexpected outcome; %zu of them, spread evenly over the plan, "
                 "ran again (--retry-cases %zu)",
                 n, cap, cap);
        for (size_t j = 0; j < cap; ++j) {
            picked[j] = picked[(size_t)((unsigned long long)j * n / cap)];
        }
        n = cap;
    }
    return n;
}

void bitcts__run_retry_unexpected(run_state *s, void (*loop)(run_state *))
{
    size_t *picked = malloc((s->selected_count > 0 ? s->selected_count : 1) * sizeof *picked);
    if (picked == NULL) {
        return; /* no retries: every case keeps its verdict */
    }
    s->retrying = 1;
    for (uint32_t k = 0; k < s->retry_rounds; ++k) {
        const uint32_t r = s->rounds + k;
        const size_t queued = pick_retries(s, r, picked);
        for (size_t i = queued; i-- > 0;) { /* a stack: pushed back to front */
            bitcts__run_requeue(s, &picked[i], 1, r, 0);
        }
        if (queued == 0) {
            break;
        }
        s->total += queued;
        loop(s);
        if (s->cfg->interrupted != NULL && *s->cfg->interrupted != 0) {
            break;
        }
    }
    s->retrying = 0;
    free(picked);
    if (s->retried[0] != '\0') { /* how the sample turned out: a guide to the rest */
        size_t flaky = 0, sampled = 0;
        for (size_t i = 0; i < s->selected_count; ++i) {
            const size_t idx = s->selected[i];
            if (s->results[s->rounds][idx] != NULL) {
                json_t *obj = bitcts__run_final_result(s, idx);
                flaky +=
                    bitcts_verdict_parse(bitcts_report_str(obj, "verdict")) == BITCTS_VERDICT_FLAKE;
                ++sampled;
                json_decref(obj);
            }
        }
        const size_t len = strlen(s->retried);
        snprintf(s->retried + len, sizeof s->retried - len, ": %zu of the %zu are flakes", flaky,
                 sampled);
    }
}
