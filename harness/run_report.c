/* SPDX-License-Identifier: MIT */
/* The run's records: the append-only results.jsonl (header, begin, end), --resume from it, and
 * the report of docs/report-schema.md. */
#include <errno.h>       /* errno */
#include <stdio.h>       /* fprintf */
#include <stdlib.h>      /* free */
#include <string.h>      /* strcmp */
#include <sys/utsname.h> /* uname */
#include <time.h>        /* strftime */
#include <unistd.h>      /* gethostname */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "bitcts/bitcts_version.h"
#include "case_json.h"
#include "clock.h"
#include "fs_util.h"
#include "report.h"
#include "report_files.h"
#include "run_state.h"

void bitcts__run_log(run_state *s, json_t *rec)
{
    if (s->log != NULL) {
        char *text = json_dumps(rec, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (text != NULL) {
            fputs(text, s->log);
            fputc('\n', s->log);
            fflush(s->log);
            free(text);
        }
    }
    json_decref(rec);
}

static json_t *selection_json(const run_state *s)
{
    char fl[8] = "", shard[24] = "";
    if (s->cfg->selection.max_feature_level) {
        bitcts_fl_format(s->cfg->selection.max_feature_level, fl, sizeof fl);
    }
    if (s->cfg->shard_count) {
        snprintf(shard, sizeof shard, "%u/%u", s->cfg->shard_index, s->cfg->shard_count);
    }
    return json_pack("{s:s, s:s, s:s, s:s}", "tier",
                     s->cfg->tier_text != NULL ? s->cfg->tier_text : "default", "filter",
                     s->cfg->selection.filter != NULL ? s->cfg->selection.filter : "*",
                     "feature_level", fl, "shard", shard);
}

static json_t *header_json(const run_state *s)
{
    char seed[19];
    bitcts_format_u64(s->cfg->seed, seed);
    return json_pack("{s:s, s:s, s:s, s:s, s:o}", "record", "header", "schema_version", "1.0",
                     "seed", seed, "backend", s->cfg->backend_spec, "selection", selection_json(s));
}

/* Loads the ended cases of an earlier, interrupted run of the same selection. */
static int resume_from(run_state *s, const char *path, char *err, size_t cap)
{
    char *text = NULL;
    size_t size = 0;
    int st = bitcts_fs_read(path, (size_t)1 << 31, &text, &size, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    json_t *want = header_json(s);
    size_t line = 0;
    char *p = text;
    while (st == BITCTS_OK && p < text + size) {
        char *nl = memchr(p, '\n', (size_t)(text + size - p));
        if (nl == NULL) {
            break; /* a record cut short by the interruption: it is run again */
        }
        *nl = '\0';
        ++line;
        json_t *rec = json_loads(p, 0, NULL);
        const char *kind = json_string_value(json_object_get(rec, "record"));
        if (rec == NULL || kind == NULL) {
            snprintf(err, cap, "--resume: %s:%zu is not a bitcts log record", path, line);
            st = BITCTS_E_PARSE;
        } else if (line == 1 && (strcmp(kind, "header") || !json_equal(rec, want))) {
            snprintf(err, cap,
                     "--resume: %s was written by a run with another seed, backend or "
                     "selection",
                     path);
            st = BITCTS_E_INVALID_ARGUMENT;
        } else if (strcmp(kind, "end") == 0) {
            const char *id = json_string_value(json_object_get(rec, "id"));
            const json_int_t idx = json_integer_value(json_object_get(rec, "plan_index"));
            if (id == NULL || idx < 0 || (size_t)idx >= s->plan->count ||
                strcmp(s->plan->cases[idx].id, id)) {
                snprintf(err, cap, "--resume: %s:%zu names an unknown case", path, line);
                st = BITCTS_E_PARSE;
            } else {
                json_object_del(rec, "record");
                json_decref(s->results[idx]);
                s->results[idx] = json_incref(rec);
            }
        }
        json_decref(rec);
        p = nl + 1;
    }
    json_decref(want);
    free(text);
    return st;
}

int bitcts__run_open_log(run_state *s, char *err, size_t cap)
{
    int st = bitcts_fs_mkdirs(s->cfg->report_dir, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/results.jsonl", s->cfg->report_dir);
    const int exists = access(path, F_OK) == 0;
    if (s->cfg->resume && exists && (st = resume_from(s, path, err, cap)) != BITCTS_OK) {
        return st;
    }
    s->log = fopen(path, s->cfg->resume && exists ? "a+" : "w");
    if (s->log == NULL) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
        return BITCTS_E_IO;
    }
    if (s->cfg->resume && exists) {
        fseek(s->log, 0, SEEK_END); /* a record cut short gets its line ended */
        if (ftell(s->log) > 0) {
            fseek(s->log, -1, SEEK_END);
            const int last = fgetc(s->log);
            fseek(s->log, 0, SEEK_END);
            if (last != '\n') {
                fputc('\n', s->log);
            }
        }
    } else {
        bitcts__run_log(s, header_json(s));
    }
    return BITCTS_OK;
}

static json_t *types_json(uint32_t mask)
{
    json_t *a = json_array();
    for (uint32_t t = 1; t < BITCTS_DT_COUNT; ++t) {
        if (mask & (1u << t)) {
            json_array_append_new(a, json_string(bitcts_dtype_name(t)));
        }
    }
    return a;
}

static json_t *backend_json(const run_state *s)
{
    const bitcts_backend *b = &s->backend;
    json_t *caps = json_object();
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        if (!b->caps.has_op[i]) {
            continue;
        }
        const bitcts_abi_op_caps *c = &b->caps.ops[i];
        json_t *dims = json_array();
        for (uint32_t n = 1; n <= 8; ++n) {
            if (c->dimension_counts & (1u << n)) {
                json_array_append_new(dims, json_integer(n));
            }
        }
        json_object_set_new(caps, bitcts_op_name(bitcts_op_all[i]),
                            json_pack("{s:o, s:o, s:o, s:b}", "input_types",
                                      types_json(c->input_types), "output_types",
                                      types_json(c->output_types), "dimension_counts", dims,
                                      "in_place", (c->flags & BITCTS_ABI_CAP_IN_PLACE) != 0));
    }
    char fl[8], abi[16];
    bitcts_fl_format(b->caps.feature_level, fl, sizeof fl);
    const uint32_t v = bitcts_plugin_host_abi_version(b->host);
    snprintf(abi, sizeof abi, "%u.%u", BITCTS_ABI_MAJOR(v), BITCTS_ABI_MINOR(v));
    json_t *info = json_pack("{s:s, s:s, s:s}", "variant", b->info_variant, "features",
                             b->info_features, "other", b->info_extra);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "spec",
                     s->cfg->backend_spec, "path", bitcts_plugin_host_path(b->host), "name",
                     bitcts_plugin_host_name(b->host), "vendor", bitcts_plugin_host_vendor(b->host),
                     "version", bitcts_plugin_host_version(b->host), "build_id",
                     bitcts_plugin_host_build_id(b->host), "abi_version", abi, "library_xxh3_128",
                     bitcts_plugin_host_digest(b->host), "feature_level", fl, "capabilities", caps,
                     "info", info);
}

static json_t *host_json(void)
{
    struct utsname u;
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    const int ok = uname(&u) == 0;
    char os[200];
    snprintf(os, sizeof os, "%s %s", ok ? u.sysname : "?", ok ? u.release : "");
    return json_pack("{s:s, s:s, s:s, s:I}", "hostname", name, "os", os, "machine",
                     ok ? u.machine : "?", "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
}

/* The report object: the run's identity, then the cases of the selection in plan order; the
 * builder derives the summary and the slowest cases. */
int bitcts__run_write_report(run_state *s, char *err, size_t cap)
{
    char seed[19], finished[32];
    bitcts_format_u64(s->cfg->seed, seed);
    const time_t wall = time(NULL);
    strftime(finished, sizeof finished, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
    json_t *identity = json_pack("{s:s, s:I, s:s, s:O, s:s, s:o, s:o, s:o}", "suite_version",
                                 BITCTS_VERSION_STRING, "generator_version",
                                 (json_int_t)BITCTS_GENERATOR_VERSION, "seed", seed, "command_line",
                                 s->cfg->command_line != NULL ? s->cfg->command_line : json_array(),
                                 "started", s->started_iso, "selection", selection_json(s),
                                 "backend", backend_json(s), "host", host_json());
    bitcts_report_builder *b = NULL;
    int st = identity != NULL ? bitcts_report_builder_create(identity, &b) : BITCTS_E_OUT_OF_MEMORY;
    json_decref(identity);
    for (size_t i = 0; st == BITCTS_OK && i < s->selected_count; ++i) {
        st = bitcts_report_builder_add(b, json_incref(s->results[s->selected[i]]));
    }
    json_t *report = NULL;
    if (st == BITCTS_OK) {
        st = bitcts_report_builder_finish(b, finished, bitcts_clock_now() - s->started, &report,
                                          err, cap);
    } else {
        snprintf(err, cap, "out of memory assembling the report");
    }
    bitcts_report_builder_destroy(b);
    if (st == BITCTS_OK) {
        st = bitcts_report_files_write(report, s->cfg->report_dir, err, cap);
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
    if (!s->cfg->progress) {
        return;
    }
    const double t = bitcts_clock_now();
    if (!final && t - s->last_progress < 0.1) {
        return;
    }
    s->last_progress = t;
    s->cfg->progress(s->cfg->progress_user, s->done, s->todo_count, t - s->started);
}
