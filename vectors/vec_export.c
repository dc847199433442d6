/* SPDX-License-Identifier: MIT */
/* The vector exporter (docs/vector-format.md). Each case's files depend on (seed, id) alone. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strlen */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_version.h"
#include "case_json.h"
#include "digest.h"
#include "ref_ops.h"
#include "vec_export.h"

typedef struct export_ctx {
    const bitcts_vec_sink *sink;
    int have_cases_dir; /* "cases" exists (made with the first case that has files) */
    bitcts_export_stats *stats;
    char *err;
    size_t cap;
} export_ctx;

/* Writes one buffer file and returns its manifest record ({path, bytes, xxh3_128}). */
static int write_file(export_ctx *x, const char *id, const char *name, const uint8_t *data,
                      uint64_t bytes, json_t **record)
{
    char rel[256], digest[BITCTS_DIGEST_HEX];
    snprintf(rel, sizeof rel, "cases/%s/%s", id, name);
    int st = x->sink->write_file(x->sink->user, rel, data, (size_t)bytes, x->err, x->cap);
    if (st != BITCTS_OK) {
        return st;
    }
    bitcts_digest_bytes(data, (size_t)bytes, digest);
    *record =
        json_pack("{s:s, s:I, s:s}", "path", rel, "bytes", (json_int_t)bytes, "xxh3_128", digest);
    ++x->stats->files;
    x->stats->bytes += bytes;
    return BITCTS_OK;
}

static int write_expected(export_ctx *x, const bitcts_case_key *key, const bitcts_case_data *d,
                          int policy, const char *name, json_t **record)
{
    uint8_t *expected = NULL;
    int st = bitcts_case_expected(d, policy, &expected);
    if (st != BITCTS_OK) {
        snprintf(x->err, x->cap, "case %s: the reference failed (%s)", key->id,
                 bitcts_status_message(st));
        return BITCTS_E_INTERNAL;
    }
    st = write_file(x, key->id, name, expected, d->desc.output.total_tensor_size_in_bytes, record);
    if (st == BITCTS_OK) {
        char logical[BITCTS_DIGEST_HEX];
        bitcts_digest_logical(&d->desc.output, expected, logical);
        json_object_set_new(*record, "logical_xxh3_128", json_string(logical));
    }
    free(expected);
    return st;
}

static int export_case(export_ctx *x, uint64_t seed, const bitcts_plan *plan, size_t index,
                       json_t *cases)
{
    const bitcts_case_key *key = &plan->cases[index];
    bitcts_case_data d;
    int st = bitcts_plan_case_data(plan, index, seed, &d);
    if (st != BITCTS_OK) {
        snprintf(x->err, x->cap, "case %s: cannot build (%s)", key->id, bitcts_status_message(st));
        return st;
    }
    json_t *entry = bitcts_json_case(key, &d);
    if (key->pattern != BITCTS_PAT_INVALID) {
        char dir[256];
        snprintf(dir, sizeof dir, "cases/%s", key->id);
        if (!x->have_cases_dir) {
            st = x->sink->make_dir(x->sink->user, "cases", x->err, x->cap);
            x->have_cases_dir = st == BITCTS_OK;
        }
        if (st == BITCTS_OK) {
            st = x->sink->make_dir(x->sink->user, dir, x->err, x->cap);
        }
        json_t *files = json_object();
        for (uint32_t i = 0; st == BITCTS_OK && i < d.desc.input_count; ++i) {
            const char *role = bitcts_role_name(d.desc.input_count, i);
            char name[32];
            json_t *rec = NULL;
            snprintf(name, sizeof name, "%s.bin", role);
            st = write_file(x, key->id, name, d.inputs[i],
                            d.desc.inputs[i].total_tensor_size_in_bytes, &rec);
            if (rec != NULL) {
                json_object_set_new(files, role, rec);
            }
        }
        json_object_set_new(entry, "files", files);
        json_t *rec = NULL;
        if (st == BITCTS_OK && bitcts_case_is_recorded(key)) {
            json_t *by_policy = json_object();
            st = write_expected(x, key, &d, BITCTS_SHIFT_POLICY_MASK, "expected_mask.bin", &rec);
            if (rec != NULL) {
                json_object_set_new(by_policy, "mask", rec);
            }
            rec = NULL;
            if (st == BITCTS_OK) {
                st = write_expected(x, key, &d, BITCTS_SHIFT_POLICY_SATURATE,
                                    "expected_saturate.bin", &rec);
            }
            if (rec != NULL) {
                json_object_set_new(by_policy, "saturate", rec);
            }
            json_object_set_new(entry, "expected_by_policy", by_policy);
        } else if (st == BITCTS_OK) {
            st = write_expected(x, key, &d, BITCTS_SHIFT_POLICY_SATURATE, "expected.bin", &rec);
            if (rec != NULL) {
                json_object_set_new(entry, "expected", rec);
            }
        }
    }
    bitcts_case_free(&d);
    json_array_append_new(cases, entry);
    ++x->stats->cases;
    return st;
}

int bitcts_vectors_export(const bitcts_plan *plan, const bitcts_export_options *opt,
                          const bitcts_vec_sink *sink, bitcts_export_stats *stats, char *err,
                          size_t cap)
{
    memset(stats, 0, sizeof *stats);
    int st = BITCTS_OK;
    export_ctx x = {.sink = sink, .stats = stats, .err = err, .cap = cap};
    json_t *cases = json_array();
    for (size_t i = 0; st == BITCTS_OK && i < plan->count; ++i) {
        if (opt->every_case || bitcts_selection_matches(&opt->selection, &plan->cases[i])) {
            st = export_case(&x, opt->seed, plan, i, cases);
        }
    }
    char seed[19], fl[8] = "", filter[BITCTS_MAX_FILTERS * 320];
    bitcts_format_u64(opt->seed, seed);
    bitcts_filter_join(&opt->selection.filter, filter, sizeof filter);
    char exclude[BITCTS_MAX_FILTERS * 320];
    bitcts_exclude_join(&opt->selection.exclude, exclude, sizeof exclude);
    if (opt->selection.max_feature_level) {
        bitcts_fl_format(opt->selection.max_feature_level, fl, sizeof fl);
    }
    json_t *manifest = json_pack(
        "{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o}", "format",
        BITCTS_VECTOR_FORMAT, "format_version", BITCTS_VECTOR_FORMAT_VERSION, "suite_version",
        BITCTS_VERSION_STRING, "generator_version", (json_int_t)BITCTS_GENERATOR_VERSION, "seed",
        seed, "tier", opt->tier_text != NULL ? opt->tier_text : "default", "filter", filter,
        "exclude", exclude, "max_feature_level", fl, "digest_algorithm", "XXH3-128", "case_count",
        (json_int_t)stats->cases, "cases", cases);
    if (st == BITCTS_OK) {
        char *text = json_dumps(manifest, JSON_INDENT(1) | JSON_ENSURE_ASCII);
        st = text != NULL
                 ? sink->write_file(sink->user, "manifest.json", text, strlen(text), err, cap)
                 : BITCTS_E_OUT_OF_MEMORY;
        free(text);
    }
    json_decref(manifest);
    return st;
}
