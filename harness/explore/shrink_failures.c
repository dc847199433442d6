/* SPDX-License-Identifier: MIT */
/* Shrinking a report's failures and writing each one's vectors (shrink_failures.h). */
#include "shrink_failures.h"

#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free, malloc */
#include <string.h> /* memset, strcmp, strlen */

#include "bitcts/bitcts_status.h"
#include "case_json.h"
#include "case_result.h"
#include "clock.h"
#include "explore.h"
#include "export_dir.h"
#include "fs_util.h"
#include "regress_dir.h"
#include "report.h"
#include "sanitize.h"
#include "shrink.h"

/* The data of a case by id: an explored case from its index, a plan case from the suite plan. */
static int case_by_id(const char *id, uint64_t seed, bitcts_plan **suite, bitcts_case_key *key,
                      bitcts_case_data *data)
{
    const int64_t ex = bitcts_explore_parse_id(id);
    if (ex >= 0) {
        if (bitcts_explore_key(seed, (uint64_t)ex, key) != BITCTS_OK) {
            return BITCTS_E_NOT_FOUND;
        }
        return bitcts_case_build(seed, key, data);
    }
    if (*suite == NULL && bitcts_plan_create(suite) != BITCTS_OK) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < (*suite)->count; ++i) {
        if (strcmp((*suite)->cases[i].id, id) == 0) {
            *key = (*suite)->cases[i];
            return bitcts_case_build(seed, key, data);
        }
    }
    return BITCTS_E_NOT_FOUND;
}

/* `bitcts run` of one case, as the user can paste it: the repro line of a run's report. */
static char *run_command(const bitcts_run_config *run, const char *id)
{
    char *options = malloc(4096);
    char *out = malloc(BITCTS_CASE_REPRO_CAP);
    if (options != NULL && out != NULL) {
        bitcts_run_repro_options(run, options, 4096);
        bitcts_case_repro(run->backend_spec, options, run->seed, id, out, BITCTS_CASE_REPRO_CAP);
    } else {
        free(out);
        out = NULL;
    }
    free(options);
    return out;
}

/* OUT_DIR/<id>: the original and the shrunk case as one vector export, the eval line (its
 * values in OUT_DIR/<id>/vectors/ when they are too many for one line), then repro.txt and
 * shrink.json. */
static int write_folder(const bitcts_shrink_failures_options *o, const bitcts_case_key *key,
                        const bitcts_case_data *orig, const bitcts_shrink_result *r,
                        bitcts_shrunk *s)
{
    bitcts_plan plan = {0};
    bitcts_case_key keys[2] = {*key, r->key};
    bitcts_case_data copies[2];
    bitcts_case_data *fixed[2] = {&copies[0], &copies[1]};
    if (bitcts_case_copy(orig, &copies[0]) != BITCTS_OK) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    if (bitcts_case_copy(&r->data, &copies[1]) != BITCTS_OK) {
        bitcts_case_free(&copies[0]);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    plan.cases = keys;
    plan.count = 2;
    plan.fixed = fixed;
    const bitcts_export_options eo = {.seed = o->run->seed, .tier_text = "shrunk", .every_case = 1};
    bitcts_export_stats stats;
    bitcts_fs_remove_tree(s->folder); /* an earlier shrink of this case */
    int st = bitcts_export_dir(&plan, &eo, s->folder, NULL, &stats, s->error, sizeof s->error);
    bitcts_case_free(&copies[0]);
    bitcts_case_free(&copies[1]);
    if (st != BITCTS_OK) {
        return st;
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/vectors", s->folder);
    st = bitcts_shrink_repro_command(&r->data, path, &s->eval_command, s->error, sizeof s->error);
    if (st != BITCTS_OK) {
        return st;
    }
    const size_t text_cap = strlen(s->eval_command) + strlen(s->run_command) + 1024;
    char *text = malloc(text_cap);
    if (text == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    snprintf(text, text_cap,
             "# %s: %s; shrunk from %llu elements (rank %u) to %llu (rank %u)\n"
             "# the original, on the backend:\n%s\n"
             "# the shrunk case's reference result:\n%s\n",
             s->id, s->signature, (unsigned long long)s->elements_before, s->rank_before,
             (unsigned long long)s->elements_after, s->rank_after, s->run_command, s->eval_command);
    snprintf(path, sizeof path, "%s/repro.txt", s->folder);
    st = bitcts_fs_write_atomic(path, text, strlen(text), s->error, sizeof s->error);
    free(text);
    if (st != BITCTS_OK) {
        return st;
    }
    json_t *info =
        json_pack("{s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:i, s:i, s:b, s:f, s:s, s:s, s:O}", "id",
                  s->id, "shrunk_id", r->key.id, "signature", s->signature, "elements_before",
                  (json_int_t)s->elements_before, "elements_after", (json_int_t)s->elements_after,
                  "rank_before", (int)s->rank_before, "rank_after", (int)s->rank_after, "steps",
                  (int)s->steps, "candidates", (int)s->candidates, "exhausted", s->exhausted,
                  "seconds", s->seconds, "eval_command", s->eval_command, "run_command",
                  s->run_command, "result", r->result != NULL ? r->result : json_null());
    char *dump = info != NULL ? json_dumps(info, JSON_INDENT(1) | JSON_ENSURE_ASCII) : NULL;
    json_decref(info);
    if (dump == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    snprintf(path, sizeof path, "%s/shrink.json", s->folder);
    st = bitcts_fs_write_atomic(path, dump, strlen(dump), s->error, sizeof s->error);
    free(dump);
    return st;
}

/* The shrunk case into o->save_dir, with where it came from. */
static int save_regression(const bitcts_shrink_failures_options *o, const bitcts_shrink_result *r,
                           bitcts_shrunk *s)
{
    json_t *origin = bitcts_regress_origin(o->run, s, r);
    if (origin == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    const int st = bitcts_regress_save(o->save_dir, &r->key, &r->data, origin, s->saved,
                                       sizeof s->saved, s->error, sizeof s->error);
    json_decref(origin);
    return st;
}

static void shrink_one(const bitcts_shrink_failures_options *o, const json_t *c, double budget_s,
                       bitcts_plan **suite, bitcts_shrunk *s)
{
    const double t0 = bitcts_clock_now();
    snprintf(s->id, sizeof s->id, "%s", bitcts_report_str(c, "id"));
    bitcts_shrink_signature(c, s->signature, sizeof s->signature);
    snprintf(s->folder, sizeof s->folder, "%s/%s", o->out_dir, s->id);
    bitcts_case_key key;
    bitcts_case_data data;
    s->status = case_by_id(s->id, o->run->seed, suite, &key, &data);
    if (s->status != BITCTS_OK) {
        snprintf(s->error, sizeof s->error, "%s: cannot rebuild the case (%s)", s->id,
                 bitcts_status_message(s->status));
        return;
    }
    const bitcts_shrink_options so = {
        .run = o->run, .budget_s = budget_s, .stop_after = o->stop_after};
    bitcts_shrink_result r;
    s->status = bitcts_shrink_case(&so, &key, &data, c, &r, s->error, sizeof s->error);
    if (s->status == BITCTS_OK) {
        s->elements_before = r.elements_before;
        s->elements_after = r.elements_after;
        s->rank_before = r.rank_before;
        s->rank_after = r.rank_after;
        s->steps = r.steps;
        s->candidates = r.candidates;
        s->exhausted = r.exhausted;
        s->run_command = run_command(o->run, s->id);
        s->status = s->run_command != NULL ? BITCTS_OK : BITCTS_E_OUT_OF_MEMORY;
        s->seconds = bitcts_clock_now() - t0; /* shrink.json records the shrink's own time */
        if (s->status == BITCTS_OK) {
            s->status = write_folder(o, &key, &data, &r, s);
        }
        if (s->status == BITCTS_OK && o->save_dir != NULL) {
            s->status = save_regression(o, &r, s);
        }
        bitcts_shrink_result_free(&r);
    }
    s->seconds = bitcts_clock_now() - t0;
    bitcts_case_free(&data);
}

int bitcts_shrink_failures(const bitcts_shrink_failures_options *o, const json_t *report,
                           bitcts_shrunk **out, size_t *count, char *err, size_t cap)
{
    *out = NULL;
    *count = 0;
    const json_t *cases = json_object_get(report, "cases");
    const size_t n = json_array_size(cases);
    size_t *order = calloc(n + 1, sizeof *order);
    char(*sigs)[96] = calloc(n + 1, sizeof *sigs);
    if (order == NULL || sigs == NULL) {
        free(order);
        free(sigs);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    /* One case of each signature first (the first in report order), then the rest. */
    size_t picked = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < n; ++i) {
            const json_t *c = json_array_get(cases, i);
            char sig[96];
            if (bitcts_shrink_signature(c, sig, sizeof sig)[0] == '\0') {
                continue;
            }
            int seen = 0;
            for (size_t k = 0; k < picked && !seen; ++k) {
                seen = pass == 0 ? strcmp(sigs[k], sig) == 0 : order[k] == i;
            }
            if (!seen) {
                snprintf(sigs[picked], sizeof sigs[picked], "%s", sig);
                order[picked++] = i;
            }
        }
    }
    if (o->max_cases > 0 && picked > o->max_cases) {
        picked = o->max_cases;
    }
    free(sigs);
    if (picked == 0) {
        free(order);
        return BITCTS_OK;
    }
    if (bitcts_fs_mkdirs(o->out_dir, err, cap) != BITCTS_OK) {
        free(order);
        return BITCTS_E_IO;
    }
    bitcts_shrunk *list = calloc(picked, sizeof *list);
    if (list == NULL) {
        free(order);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    const double end = bitcts_clock_now() + o->budget_s;
    bitcts_plan *suite = NULL;
    for (size_t k = 0; k < picked; ++k) {
        const double left = end - bitcts_clock_now();
        const double share = left / (double)(picked - k); /* the rest shared evenly */
        shrink_one(o, json_array_get(cases, order[k]), share > 1.0 ? share : 1.0, &suite, &list[k]);
        *count = k + 1;
        if (o->on_shrunk != NULL) {
            o->on_shrunk(o->user, &list[k], k + 1, picked);
        }
    }
    bitcts_plan_destroy(suite);
    free(order);
    *out = list;
    return BITCTS_OK;
}

void bitcts_shrunk_free(bitcts_shrunk *list, size_t count)
{
    for (size_t i = 0; list != NULL && i < count; ++i) {
        free(list[i].eval_command);
        free(list[i].run_command);
    }
    free(list);
}
