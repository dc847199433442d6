/* SPDX-License-Identifier: MIT */
/* The outcome of a case and of the run so far: the runs of a case combined (a case that
 * disagrees with itself is a flake, as under --repeat and --retry-unexpected), the baseline
 * applied, and the stop rules counted. --max-fails N stops the run once N cases have a failing
 * verdict (the baseline applied); --max-timeouts K stops it once the watchdog has killed K
 * workers in a row with no case ending in between (a backend that stopped answering costs K
 * timeouts, not one per case). */
#include <stdio.h>  /* snprintf */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_verdict.h"
#include "report_model.h"
#include "run_state.h"
#include "sanitize.h"

/* The runs of a case agree when their verdicts agree and, where they produced output, their
 * digests. */
static int runs_agree(json_t *const *runs, uint32_t n)
{
    for (uint32_t r = 1; r < n; ++r) {
        if (strcmp(bitcts_report_str(runs[r], "verdict"), bitcts_report_str(runs[0], "verdict")) !=
                0 ||
            strcmp(bitcts_report_str(runs[r], "output_xxh3_128"),
                   bitcts_report_str(runs[0], "output_xxh3_128")) != 0) {
            return 0;
        }
    }
    return 1;
}

/* Where run r (0-based) of a case ran: --repeat alternates reused and fresh workers; the runs of
 * --retry-unexpected (from first_retry on) each had a fresh one. */
static const char *run_worker(uint32_t r, uint32_t first_retry)
{
    if (r >= first_retry) {
        return "a fresh worker (--retry-unexpected)";
    }
    return r % 2 == 1 ? "a fresh worker" : "a reused worker";
}

/* A case that disagreed with itself: the first run's object, verdict flake, every run listed. */
static json_t *flake(json_t *const *runs, const uint32_t *round, uint32_t n, uint32_t first_retry)
{
    json_t *obj = json_copy(runs[0]); /* shallow: only its own members change */
    json_t *list = json_array();
    char detail[640];
    size_t used = (size_t)snprintf(detail, sizeof detail, "disagrees with itself over %u runs:", n);
    for (uint32_t r = 0; r < n; ++r) {
        const char *worker = run_worker(round[r], first_retry);
        json_array_append_new(
            list, json_pack("{s:I, s:s, s:s, s:s, s:s}", "run", (json_int_t)round[r] + 1, "worker",
                            worker, "verdict", bitcts_report_str(runs[r], "verdict"), "detail",
                            bitcts_report_str(runs[r], "detail"), "output_xxh3_128",
                            bitcts_report_str(runs[r], "output_xxh3_128")));
        if (used < sizeof detail) {
            used += (size_t)snprintf(detail + used, sizeof detail - used, "%s run %u (%s): %s",
                                     r > 0 ? ";" : "", round[r] + 1, worker,
                                     bitcts_report_str(runs[r], "verdict"));
        }
    }
    json_object_set_new(obj, "verdict", json_string("flake"));
    json_object_set_new(obj, "detail", json_string(detail));
    json_object_set_new(obj, "repeats", list);
    return obj;
}

json_t *bitcts__run_final_result(run_state *s, size_t idx)
{
    json_t *runs[128] = {NULL};
    uint32_t round[128] = {0};
    uint32_t n = 0;
    uint32_t unrun = 0;
    for (uint32_t r = 0; r < s->rounds + s->retry_rounds && n < 128; ++r) {
        if (s->results[r][idx] != NULL || r < s->rounds) {
            unrun += bitcts_report_case_verdict(s->results[r][idx]) == BITCTS_VERDICT_NOT_RUN;
            round[n] = r;
            runs[n++] = s->results[r][idx];
        }
    }
    if (unrun > 0 && unrun < n) { /* rounds a stop rule left unrun do not disagree with those
                                   * that ran */
        uint32_t kept = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (bitcts_report_case_verdict(runs[i]) != BITCTS_VERDICT_NOT_RUN) {
                round[kept] = round[i];
                runs[kept++] = runs[i];
            }
        }
        n = kept;
    }
    const bitcts_baseline_entry *e = bitcts_baseline_find(&s->baseline, s->plan->cases[idx].id);
    /* The stored run itself where nothing changes (the caller only reads it, and the report
     * holds it beside s->results): a shallow copy where the baseline sets members. */
    json_t *obj = n > 1 && !runs_agree(runs, n) ? flake(runs, round, n, s->rounds)
                  : e != NULL                   ? json_copy(runs[0])
                                                : json_incref(runs[0]);
    if (obj != NULL && e != NULL) {
        const int verdict = bitcts_verdict_parse(bitcts_report_str(obj, "verdict"));
        const int applied = bitcts_baseline_apply(e, verdict);
        char reason[400];
        bitcts_sanitize_string(e->reason[0] != '\0' ? e->reason : e->glob, 4096, reason,
                               sizeof reason);
        json_object_set_new(obj, "baseline", json_string(reason));
        json_object_set_new(obj, "verdict", json_string(bitcts_verdict_name(applied)));
    }
    return obj;
}

static int final_verdict(run_state *s, size_t idx, const json_t *obj)
{
    int verdict = bitcts_verdict_parse(bitcts_report_str(obj, "verdict"));
    const bitcts_baseline_entry *e = bitcts_baseline_find(&s->baseline, s->plan->cases[idx].id);
    if (e != NULL) {
        verdict = bitcts_baseline_apply(e, verdict);
    }
    return verdict;
}

void bitcts__run_note_outcome(run_state *s, size_t idx, const json_t *obj)
{
    if (obj == NULL) {
        return;
    }
    const int verdict = final_verdict(s, idx, obj);
    if (verdict != BITCTS_VERDICT_TIMEOUT && verdict != BITCTS_VERDICT_NOT_RUN) {
        s->timeouts_in_row = 0; /* the backend answered */
    }
    if (!bitcts_verdict_is_failure(verdict) || s->failed_cases == NULL || s->failed_cases[idx]) {
        return;
    }
    s->failed_cases[idx] = 1;
    ++s->failing;
    const uint32_t max = s->cfg->max_fails;
    if (max > 0 && s->failing >= max && s->stopped[0] == '\0' && !s->retrying) {
        snprintf(s->stopped, sizeof s->stopped,
                 "the run stopped after %u failures (--max-fails %u)", max, max);
    }
}

void bitcts__run_note_timeout(run_state *s)
{
    const uint32_t max = s->cfg->max_timeouts;
    ++s->timeouts_in_row;
    if (max > 0 && s->timeouts_in_row >= max && s->stopped[0] == '\0' && !s->retrying) {
        snprintf(s->stopped, sizeof s->stopped,
                 "the backend stopped answering: %u timeouts in a row (--max-timeouts %u)", max,
                 max);
    }
}
