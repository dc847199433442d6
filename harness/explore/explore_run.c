/* SPDX-License-Identifier: MIT */
/* The explore loop (harness/explore/explore_run.h). Rounds run in memory (no report folder of
 * their own, a bounded plan each); their cases go to one builder, so the report written at the
 * end is one report whatever the number of rounds. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memset */
#include <time.h>   /* time, gmtime, strftime */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "clock.h"
#include "explore.h"
#include "explore_run.h"
#include "fs_util.h"
#include "report.h"
#include "report_files.h"

#define EXPLORE_ROUND 2048u /* cases per runner call: a bounded plan, a report per round */

/* What the rounds share. */
typedef struct explore_state {
    bitcts_run_config run; /* the caller's, with the round's plan and no report folder */
    bitcts_report_builder *builder;
    size_t counts[BITCTS_VERDICT_COUNT];
} explore_state;

static int explore_error(bitcts_explore_result *out, int status, const char *text)
{
    snprintf(out->error, sizeof out->error, "%s", text);
    return status;
}

/* Each case object of a round's report handed to the builder, and counted by verdict. */
static int explore_collect(explore_state *s, const json_t *report, bitcts_explore_result *out)
{
    if (s->builder == NULL && bitcts_report_builder_create(report, &s->builder) != BITCTS_OK) {
        return explore_error(out, BITCTS_E_OUT_OF_MEMORY, "out of memory");
    }
    const json_t *cases = json_object_get(report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        json_t *c = json_array_get(cases, i);
        const int v = bitcts_report_case_verdict(c);
        if (v >= 0 && v < BITCTS_VERDICT_COUNT) {
            ++s->counts[v];
        }
        if (bitcts_report_builder_add(s->builder, json_incref(c)) != BITCTS_OK) {
            return explore_error(out, BITCTS_E_OUT_OF_MEMORY, "out of memory");
        }
    }
    out->ran += json_array_size(cases);
    return BITCTS_OK;
}

/* One round: cases first .. first + n - 1. */
static int explore_round(explore_state *s, uint64_t first, size_t n, bitcts_explore_result *out)
{
    bitcts_plan *plan = NULL;
    if (bitcts_explore_plan(s->run.seed, first, n, &plan) != BITCTS_OK) {
        return explore_error(out, BITCTS_E_OUT_OF_MEMORY, "out of memory");
    }
    s->run.plan = plan;
    bitcts_run_result r;
    int st = bitcts_run(&s->run, &r);
    s->run.plan = NULL;
    bitcts_plan_destroy(plan);
    if (st != BITCTS_OK) {
        st = explore_error(out, st, r.error);
    } else if (r.interrupted) {
        out->interrupted = 1;
    } else {
        st = explore_collect(s, r.report, out);
    }
    bitcts_run_result_free(&r);
    return st;
}

/* Rounds until the cases are done, the time is over or a signal came. */
static int explore_rounds(const bitcts_explore_config *cfg, explore_state *s, double t0,
                          bitcts_explore_result *out)
{
    int st = BITCTS_OK;
    uint64_t next = cfg->first;
    while (st == BITCTS_OK && !out->interrupted) {
        size_t n = EXPLORE_ROUND;
        if (cfg->cases > 0) {
            const uint64_t left = cfg->first + cfg->cases - next;
            n = left < n ? (size_t)left : n;
        }
        if (n == 0 || (s->run.stop_at > 0 && bitcts_clock_now() >= s->run.stop_at) ||
            next + n - 1 > BITCTS_EXPLORE_MAX_INDEX) {
            break;
        }
        const size_t before = out->ran;
        st = explore_round(s, next, n, out);
        next += n;
        if (cfg->progress != NULL) {
            const size_t *k = s->counts;
            cfg->progress(cfg->progress_user, out->ran,
                          out->ran - k[BITCTS_VERDICT_PASS] - k[BITCTS_VERDICT_RECORDED] -
                              k[BITCTS_VERDICT_NOT_SUPPORTED] - k[BITCTS_VERDICT_WARN],
                          bitcts_clock_now() - t0);
        }
        if (out->ran - before < n) {
            break; /* the time box ended inside the round */
        }
    }
    return st;
}

/* The report of every round, finished now. */
static int explore_finish(explore_state *s, double t0, json_t **report, bitcts_explore_result *out)
{
    char finished[32];
    const time_t wall = time(NULL);
    strftime(finished, sizeof finished, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
    char err[1024] = "";
    const int st = bitcts_report_builder_finish(s->builder, finished, bitcts_clock_now() - t0,
                                                report, err, sizeof err);
    if (st != BITCTS_OK) {
        snprintf(out->error, sizeof out->error, "the report: %s", err);
    }
    return st;
}

/* The report folder claimed, and an earlier explore's shrunk cases (not this one's) removed. */
static int explore_prepare(const bitcts_run_config *run, bitcts_explore_result *out)
{
    const int st = bitcts_report_files_can_claim(run->report_dir, run->force, "--report",
                                                 out->error, sizeof out->error);
    if (st != BITCTS_OK) {
        return st;
    }
    char shrunk[3200];
    snprintf(shrunk, sizeof shrunk, "%s/shrunk", run->report_dir);
    bitcts_fs_remove_tree(shrunk);
    return BITCTS_OK;
}

/* Finishes and writes the report; out->report and out->failed on success. */
static int explore_report(const bitcts_explore_config *cfg, explore_state *s, double t0, int st,
                          bitcts_explore_result *out)
{
    json_t *report = NULL;
    if (st == BITCTS_OK && s->builder != NULL) {
        st = explore_finish(s, t0, &report, out);
    }
    if (st == BITCTS_OK && report == NULL) {
        st = explore_error(out, BITCTS_E_NOT_FOUND,
                           out->interrupted ? "interrupted before any case ended"
                                            : "no case started");
    }
    if (st == BITCTS_OK) {
        st = bitcts_report_files_write(report, cfg->run->report_dir, out->error, sizeof out->error);
    }
    if (st != BITCTS_OK) {
        json_decref(report);
        return st;
    }
    out->report = report;
    const json_t *cases = json_object_get(report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        out->failed |=
            bitcts_verdict_is_failure(bitcts_report_case_verdict(json_array_get(cases, i)));
    }
    return BITCTS_OK;
}

int bitcts_explore_run(const bitcts_explore_config *cfg, bitcts_explore_result *out)
{
    memset(out, 0, sizeof *out);
    out->status = explore_prepare(cfg->run, out);
    if (out->status != BITCTS_OK) {
        return out->status;
    }
    explore_state s = {.run = *cfg->run};
    s.run.report_dir = NULL; /* rounds run in memory; the whole report is written at the end */
    const double t0 = bitcts_clock_now();
    s.run.stop_at = cfg->seconds > 0 ? t0 + cfg->seconds : 0;
    const int st = explore_rounds(cfg, &s, t0, out);
    out->status = explore_report(cfg, &s, t0, st, out);
    bitcts_report_builder_destroy(s.builder);
    return out->status;
}

void bitcts_explore_result_free(bitcts_explore_result *r)
{
    json_decref(r->report);
    r->report = NULL;
}
