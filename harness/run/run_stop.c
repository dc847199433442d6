/* SPDX-License-Identifier: MIT */
/* The end of a run a stop rule cut short (every case that did not run gets `not_run`, naming the
 * rule) and --retry-unexpected N: each case whose outcome was unexpected runs again, up to N
 * times, each in a fresh worker; a case whose runs disagree becomes a flake (as under --repeat). */

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

void bitcts__run_retry_unexpected(run_state *s, void (*loop)(run_state *))
{
    s->retrying = 1;
    for (uint32_t k = 0; k < s->retry_rounds; ++k) {
        const uint32_t r = s->rounds + k;
        size_t queued = 0;
        for (size_t i = s->selected_count; i-- > 0;) { /* a stack: pushed back to front */
            const size_t idx = s->selected[i];
            if (to_retry(s, idx, r)) {
                bitcts__run_requeue(s, &idx, 1, r, 0);
                ++queued;
            }
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
}
