/* SPDX-License-Identifier: MIT */
/* The run's records: the report folder and its claim, the append-only results.jsonl (header,
 * begin, end), --resume from it, and the report of docs/report-schema.md, each case's runs
 * combined and the baseline applied by run_outcome.c. */
#include <errno.h>  /* errno */
#include <fcntl.h>  /* open */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp */
#include <time.h>   /* strftime */
#include <unistd.h> /* access, close */
#ifdef __linux__
#include <malloc.h> /* mallopt */
#endif

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "bitcts/bitcts_version.h"
#include "case_json.h"
#include "case_result.h"
#include "clock.h"
#include "fs_util.h"
#include "report.h"
#include "report_files.h"
#include "run_log.h"
#include "run_state.h"
#include "sanitize.h"
#include "source_commit.h"

void bitcts__run_log(run_state *s, json_t *rec)
{
    if (s->log != NULL && rec != NULL) {
        char *text = json_dumps(rec, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (text != NULL) {
            fputs(text, s->log);
            fputc('\n', s->log);
            free(text);
        }
    }
    json_decref(rec);
}

void bitcts__run_log_flush(run_state *s)
{
    if (s->log != NULL) {
        fflush(s->log);
    }
}

/* Whether json_dumps writes `text` as it is between its quotes: printable ASCII, no quote or
 * backslash (JSON_ENSURE_ASCII escapes the rest). */
static int json_plain(const char *text)
{
    for (const char *p = text; *p != '\0'; ++p) {
        if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\') {
            return 0;
        }
    }
    return 1;
}

/* Ends a record: `"round":N}` and the newline. */
static void put_round(FILE *log, uint32_t round)
{
    fprintf(log, "\"round\":%u}\n", (unsigned)round);
}

void bitcts__run_log_begin(run_state *s, size_t idx, uint32_t round)
{
    const char *id = s->plan->cases[idx].id;
    if (s->log == NULL) {
        return;
    }
    if (!json_plain(id)) {
        bitcts__run_log(s, json_pack("{s:s, s:s, s:I}", "record", "begin", "id", id, "round",
                                     (json_int_t)round));
        return;
    }
    /* the bytes json_dumps writes for the record, without building it */
    fputs("{\"record\":\"begin\",\"id\":\"", s->log);
    fputs(id, s->log);
    fputs("\",", s->log);
    put_round(s->log, round);
}

static json_t *selection_json(const run_state *s)
{
    char fl[8] = "", shard[24] = "";
    if (s->cfg->selection.max_feature_level != 0) {
        bitcts_fl_format(s->cfg->selection.max_feature_level, fl, sizeof fl);
    }
    if (s->cfg->shard_count != 0) {
        snprintf(shard, sizeof shard, "%u/%u", s->cfg->shard_index, s->cfg->shard_count);
    }
    char tier[200], filter[600], joined[BITCTS_MAX_FILTERS * 320];
    bitcts_filter_join(&s->cfg->selection.filter, joined, sizeof joined);
    bitcts_sanitize_string(s->cfg->tier_text != NULL ? s->cfg->tier_text : "default", 4096, tier,
                           sizeof tier);
    bitcts_sanitize_string(joined, sizeof joined, filter, sizeof filter);
    char exclude[600];
    bitcts_exclude_join(&s->cfg->selection.exclude, joined, sizeof joined);
    bitcts_sanitize_string(joined, sizeof joined, exclude, sizeof exclude);
    char balance[32] = "";
    if (s->cfg->shard_count != 0 && s->cfg->shard_timings != NULL) {
        bitcts_shard_timings_name(s->cfg->shard_timings, s->cfg->shard_timing_count, balance);
    } else if (s->cfg->shard_count != 0) {
        snprintf(balance, sizeof balance, "interleaved");
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I}", "tier", tier, "filter", filter,
                     "exclude", exclude, "feature_level", fl, "shard", shard, "balance", balance,
                     "cases", (json_int_t)s->selection_total);
}

static json_t *header_json(const run_state *s)
{
    char seed[19];
    char spec[BITCTS_BACKEND_TEXT];
    bitcts_format_u64(s->cfg->seed, seed);
    bitcts_sanitize_string(s->cfg->backend_spec, 4096, spec, sizeof spec);
    json_t *selection = selection_json(s);
    if (selection != NULL && s->cfg->selection.exclude.count == 0) {
        json_object_del(selection, "exclude"); /* the header of a log without it, resumable */
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:I}", "record", "header", "schema_version", "1.1",
                     "seed", seed, "backend", spec, "selection", selection, "rounds",
                     (json_int_t)s->rounds);
}

/* ---- the folder ---- */

int bitcts__run_claim_folder(run_state *s, char *err, size_t cap)
{
    /* Nothing is written until the run begins (bitcts__run_open_log). */
    return bitcts_report_files_can_claim(s->cfg->report_dir, s->cfg->force, "--report", err, cap);
}

/* ---- the log ---- */

static int take_end(void *user, json_t *rec, size_t line, char *err, size_t cap)
{
    run_state *s = user;
    const char *id = json_string_value(json_object_get(rec, "id"));
    const json_int_t idx = json_integer_value(json_object_get(rec, "plan_index"));
    const json_int_t round = json_integer_value(json_object_get(rec, "round"));
    if (id == NULL || idx < 0 || (size_t)idx >= s->plan->count ||
        strcmp(s->plan->cases[idx].id, id) != 0 || round < 0 ||
        (uint32_t)round >= s->rounds + s->retry_rounds) {
        json_decref(rec);
        snprintf(err, cap, "results.jsonl:%zu names an unknown case", line);
        return BITCTS_E_PARSE;
    }
    json_object_del(rec, "record");
    json_object_del(rec, "round");
    /* Believed only if it is a case result, as a worker's is (run_slot.c): the report is
     * assembled from it. */
    char why[BITCTS_REPORT_ERROR_CAP];
    if (bitcts_report_validate_case(rec, why, sizeof why) != BITCTS_OK) {
        json_decref(rec);
        snprintf(err, cap, "results.jsonl:%zu is not a case result: %s", line, why);
        return BITCTS_E_PARSE;
    }
    json_decref(s->results[round][idx]);
    if (s->results[round][idx] == NULL) {
        ++s->done;
    }
    s->results[round][idx] = rec;
    bitcts__run_note_outcome(s, (size_t)idx, rec);
    return BITCTS_OK;
}

/* Loads the ended cases of an earlier, interrupted run of the same selection and drops a last
 * line the interruption cut short, so that the log can be resumed any number of times. */
static int resume_from(run_state *s, const char *path, char *err, size_t cap)
{
    char *text = NULL;
    size_t size = 0;
    int st = bitcts_fs_read(path, (size_t)1 << 31, &text, &size, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    json_t *want = header_json(s);
    size_t complete = 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "--resume: results.jsonl");
    st = bitcts_run_log_parse(prefix, text, size, want, take_end, s, &complete, err, cap);
    json_decref(want);
    free(text);
    if (st == BITCTS_OK && complete < size && truncate(path, (off_t)complete) != 0) {
        snprintf(err, cap, "--resume: cannot repair %s: %s", path, strerror(errno));
        st = BITCTS_E_IO;
    }
    return st;
}

int bitcts__run_open_log(run_state *s, char *err, size_t cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/results.jsonl", s->cfg->report_dir);
    int st = bitcts_report_files_claim(s->cfg->report_dir, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    const int exists = access(path, F_OK) == 0;
    if (s->cfg->resume && exists && (st = resume_from(s, path, err, cap)) != BITCTS_OK) {
        return st;
    }
    const int append = s->cfg->resume && exists;
    const int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0666);
    s->log = fd >= 0 ? fdopen(fd, append ? "a" : "w") : NULL;
    if (s->log == NULL) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return BITCTS_E_IO;
    }
    if (!append) {
        bitcts__run_log(s, header_json(s));
    }
    return BITCTS_OK;
}

/* ---- results ---- */

/* The "end" record of a case: its object followed by "record" and "round", the two members put
 * before its closing brace, so that the stored object is neither copied nor changed. `text` is
 * the object as the worker sent it, when the harness added nothing to it: a worker writes it
 * with the flags used here, so it is the bytes json_dumps would give (a line that only passes
 * for a worker's is logged as it came, still one JSON object). NULL: the object is dumped. */
static void log_end(run_state *s, const json_t *obj, uint32_t round, const char *text)
{
    if (s->log == NULL || obj == NULL) {
        return;
    }
    if (json_object_get(obj, "record") != NULL || json_object_get(obj, "round") != NULL ||
        json_object_size(obj) == 0) { /* not a worker's case object: the general way */
        json_t *rec = json_deep_copy(obj);
        if (rec != NULL) {
            json_object_set_new(rec, "record", json_string("end"));
            json_object_set_new(rec, "round", json_integer(round));
        }
        bitcts__run_log(s, rec);
        return;
    }
    char *dumped = text == NULL ? json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    const char *from = text != NULL ? text + strspn(text, " \t\r") : dumped;
    const char *brace = from != NULL ? strrchr(from, '}') : NULL;
    if (brace != NULL && brace > from) {
        fwrite(from, 1, (size_t)(brace - from), s->log);
        fputs(",\"record\":\"end\",", s->log);
        put_round(s->log, round);
    }
    free(dumped);
}

void bitcts__run_record(run_state *s, size_t idx, uint32_t round, json_t *obj)
{
    bitcts__run_record_text(s, idx, round, obj, NULL);
}

void bitcts__run_record_text(run_state *s, size_t idx, uint32_t round, json_t *obj,
                             const char *text)
{
    const json_t *origin = s->cfg->origins != NULL && obj != NULL
                               ? json_object_get(s->cfg->origins, s->plan->cases[idx].id)
                               : NULL;
    if (origin != NULL) {
        json_object_set(obj, "origin", (json_t *)origin);
        text = NULL; /* no longer what the worker sent */
    }
    if (s->results[round][idx] == NULL) {
        ++s->done;
    }
    json_decref(s->results[round][idx]);
    s->results[round][idx] = obj;
    bitcts__run_note_outcome(s, idx, obj);
    log_end(s, obj, round, text);
}

/* A failing case the worker could not report (a crash, a timeout) gets its description from
 * the plan, built here: the harness describes it as the worker would have. */
static void describe(const run_state *s, size_t idx, int verdict, json_t *obj)
{
    bitcts_case_data d;
    if (bitcts_plan_case_data(s->plan, idx, s->cfg->seed, &d) != BITCTS_OK) {
        return;
    }
    json_t *described = bitcts_json_case(&s->plan->cases[idx], &d);
    json_object_set_new(obj, "description", bitcts_case_description(described, verdict));
    json_decref(described);
    bitcts_case_free(&d);
}

void bitcts__run_synthesize(run_state *s, size_t idx, uint32_t round, int verdict,
                            const char *detail, double duration_ms, bitcts_sandbox *output)
{
    bitcts_case_result r;
    memset(&r, 0, sizeof r);
    r.verdict = verdict;
    r.duration_ms = duration_ms;
    bitcts_sanitize_string(detail, 4096, r.detail, sizeof r.detail);
    char repro[BITCTS_CASE_REPRO_CAP];
    bitcts_case_repro(s->cfg->backend_spec, s->repro_options, s->cfg->seed, s->plan->cases[idx].id,
                      repro, sizeof repro);
    json_t *obj = bitcts_case_result_json(&s->plan->cases[idx], idx, &r, repro);
    if (obj != NULL && bitcts_verdict_is_failure(verdict)) {
        describe(s, idx, verdict, obj);
    }
    if (obj != NULL && output != NULL) { /* what the worker wrote before it ended */
        char excerpt[BITCTS_SANDBOX_CAPTURE_MAX * 4 + 8];
        const uint64_t bytes =
            bitcts_sandbox_take_output(output, (int64_t)idx, excerpt, sizeof excerpt);
        if (bytes > 0) {
            json_object_set_new(
                obj, "output",
                json_pack("{s:I, s:s}", "bytes", (json_int_t)bytes, "excerpt", excerpt));
        }
    }
    bitcts__run_record(s, idx, round, obj);
}

/* The report, and then the results it shares, are freed as a whole once the run is over:
 * hundreds of thousands of small blocks. With glibc's fast bins every free of a large block
 * among them (an array's table) first consolidates every small block freed before it; without
 * them the frees coalesce as they go (the parent's frees after the last worker: 74 -> 22 ms
 * for the 12,186 cases of the default tier). Only the allocator's bookkeeping changes. */
static void malloc_for_tail(void)
{
#if defined(__GLIBC__) && defined(M_MXFAST)
    (void)mallopt(M_MXFAST, 0);
#endif
}

int bitcts__run_write_report(run_state *s, char *err, size_t cap)
{
    bitcts__run_log_flush(s); /* every case is in the log before the report is made */
    malloc_for_tail();
    char seed[19], finished[32];
    bitcts_format_u64(s->cfg->seed, seed);
    const time_t wall = time(NULL);
    strftime(finished, sizeof finished, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
    json_t *identity = json_pack(
        "{s:s, s:s, s:I, s:s, s:O, s:s, s:o, s:O, s:o}", "suite_version", BITCTS_VERSION_STRING,
        "suite_commit", bitcts_source_commit(), "generator_version",
        (json_int_t)BITCTS_GENERATOR_VERSION, "seed", seed, "command_line",
        s->cfg->command_line != NULL ? s->cfg->command_line : json_array(), "started",
        s->started_iso, "selection", selection_json(s), "backend", s->backend_json, "host",
        bitcts_report_files_host_json());
    if (identity != NULL && s->stopped[0] != '\0') { /* a stop rule ended the run early */
        json_object_set_new(identity, "stopped", json_string(s->stopped));
    }
    if (identity != NULL && s->retried[0] != '\0') { /* --retry-cases left some unretried */
        json_object_set_new(identity, "retried", json_string(s->retried));
    }
    bitcts_report_builder *b = NULL;
    int st = identity != NULL ? bitcts_report_builder_create(identity, &b) : BITCTS_E_OUT_OF_MEMORY;
    json_decref(identity);
    for (size_t i = 0; st == BITCTS_OK && i < s->selected_count; ++i) {
        st = bitcts_report_builder_add(b, bitcts__run_final_result(s, s->selected[i]));
    }
    json_t *report = NULL;
    if (st == BITCTS_OK) {
        st = bitcts_report_builder_finish(b, finished, bitcts_clock_now() - s->started, &report,
                                          err, cap);
    } else {
        snprintf(err, cap, "out of memory assembling the report");
    }
    bitcts_report_builder_destroy(b);
    if (st == BITCTS_OK && s->unclaimed != NULL &&
        json_object_set_new(report, "claims",
                            bitcts__run_claims_json(s, json_object_get(report, "cases"))) != 0) {
        snprintf(err, cap, "out of memory assembling the report");
        st = BITCTS_E_OUT_OF_MEMORY;
    }
    if (st == BITCTS_OK && s->cfg->report_dir != NULL) {
        /* the builder validated the report; "claims", added since, is validated with it */
        st = s->unclaimed != NULL
                 ? bitcts_report_files_write(report, s->cfg->report_dir, err, cap)
                 : bitcts_report_files_write_assembled(report, s->cfg->report_dir, err, cap);
    }
    if (st == BITCTS_OK) {
        s->report = report;
    } else {
        json_decref(report);
    }
    return st;
}

void bitcts__run_progress(run_state *s, int final)
{
    if (s->cfg->progress == NULL) {
        return;
    }
    const double t = bitcts_clock_now();
    if (!final && t - s->last_progress < 0.1) {
        return;
    }
    s->last_progress = t;
    s->cfg->progress(s->cfg->progress_user, s->done, s->total, s->failing, t - s->started);
}
