/* SPDX-License-Identifier: MIT */
/* The vector exporter (docs/vector-format.md). Each case's files depend on (seed, id) alone. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strstr */
#include <unistd.h> /* getpid */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_version.h"
#include "case_json.h"
#include "digest.h"
#include "fs_util.h"
#include "ref_ops.h"
#include "vec_export.h"

typedef struct export_ctx {
    const char *root; /* staging folder */
    bitcts_export_stats *stats;
    char *err;
    size_t cap;
} export_ctx;

/* Writes one buffer file and returns its manifest record ({path, bytes, xxh3_128}). */
static int write_file(export_ctx *x, const char *id, const char *name, const uint8_t *data,
                      uint64_t bytes, json_t **record)
{
    char rel[256], path[4096], digest[BITCTS_DIGEST_HEX];
    snprintf(rel, sizeof rel, "cases/%s/%s", id, name);
    snprintf(path, sizeof path, "%s/%s", x->root, rel);
    int st = bitcts_fs_write(path, data, (size_t)bytes, x->err, x->cap);
    if (st != BITCTS_OK)
        return st;
    bitcts_digest_bytes(data, (size_t)bytes, digest);
    *record = json_pack("{s:s, s:I, s:s}", "path", rel, "bytes", (json_int_t)bytes, "xxh3_128",
                        digest);
    x->stats->files++;
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

static int export_case(export_ctx *x, uint64_t seed, const bitcts_case_key *key, json_t *cases)
{
    bitcts_case_data d;
    int st = bitcts_case_build(seed, key, &d);
    if (st != BITCTS_OK) {
        snprintf(x->err, x->cap, "case %s: cannot build (%s)", key->id, bitcts_status_message(st));
        return st;
    }
    json_t *entry = bitcts_json_case(key, &d);
    if (key->pattern != BITCTS_PAT_INVALID) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/cases/%s", x->root, key->id);
        st = bitcts_fs_mkdirs(dir, x->err, x->cap);
        json_t *files = json_object();
        for (uint32_t i = 0; st == BITCTS_OK && i < d.desc.input_count; i++) {
            const char *role = bitcts_role_name(d.desc.input_count, i);
            char name[32];
            json_t *rec = NULL;
            snprintf(name, sizeof name, "%s.bin", role);
            st = write_file(x, key->id, name, d.inputs[i], d.desc.inputs[i].total_tensor_size_in_bytes,
                            &rec);
            if (rec)
                json_object_set_new(files, role, rec);
        }
        json_object_set_new(entry, "files", files);
        json_t *rec = NULL;
        if (st == BITCTS_OK && bitcts_case_is_recorded(key)) {
            json_t *by_policy = json_object();
            st = write_expected(x, key, &d, BITCTS_SHIFT_POLICY_MASK, "expected_mask.bin", &rec);
            if (rec)
                json_object_set_new(by_policy, "mask", rec);
            rec = NULL;
            if (st == BITCTS_OK)
                st = write_expected(x, key, &d, BITCTS_SHIFT_POLICY_SATURATE,
                                    "expected_saturate.bin", &rec);
            if (rec)
                json_object_set_new(by_policy, "saturate", rec);
            json_object_set_new(entry, "expected_by_policy", by_policy);
        } else if (st == BITCTS_OK) {
            st = write_expected(x, key, &d, BITCTS_SHIFT_POLICY_SATURATE, "expected.bin", &rec);
            if (rec)
                json_object_set_new(entry, "expected", rec);
        }
    }
    bitcts_case_free(&d);
    json_array_append_new(cases, entry);
    x->stats->cases++;
    return st;
}

/* The destination must be missing, empty, or an earlier export (it is then replaced). */
static int check_destination(const char *out_dir, char *err, size_t cap)
{
    const int state = bitcts_fs_dir_state(out_dir);
    if (state == 0)
        return BITCTS_OK;
    if (state < 0) {
        snprintf(err, cap, "--out %s exists and is not a directory", out_dir);
        return BITCTS_E_EXISTS;
    }
    if (bitcts_fs_dir_is_empty(out_dir))
        return BITCTS_OK;
    char manifest[4096], *text = NULL, ignored[256];
    snprintf(manifest, sizeof manifest, "%s/manifest.json", out_dir);
    const int ok = bitcts_fs_read(manifest, 1u << 30, &text, NULL, ignored, sizeof ignored) ==
                       BITCTS_OK &&
                   strstr(text, "\"" BITCTS_VECTOR_FORMAT "\"") != NULL;
    free(text);
    if (!ok) {
        snprintf(err, cap, "--out %s is not empty and holds no bitcts vector export; not replacing it",
                 out_dir);
        return BITCTS_E_EXISTS;
    }
    return BITCTS_OK;
}

int bitcts_vectors_export(const bitcts_plan *plan, const bitcts_export_options *opt,
                          bitcts_export_stats *stats, char *err, size_t cap)
{
    memset(stats, 0, sizeof *stats);
    int st = check_destination(opt->out_dir, err, cap);
    if (st != BITCTS_OK)
        return st;
    char staging[4096];
    snprintf(staging, sizeof staging, "%s.partial-%ld", opt->out_dir, (long)getpid());
    bitcts_fs_remove_tree(staging);
    if ((st = bitcts_fs_mkdirs(staging, err, cap)) != BITCTS_OK)
        return st;
    export_ctx x = {.root = staging, .stats = stats, .err = err, .cap = cap};
    json_t *cases = json_array();
    for (size_t i = 0; st == BITCTS_OK && i < plan->count; i++) {
        if (bitcts_selection_matches(&opt->selection, &plan->cases[i]))
            st = export_case(&x, opt->seed, &plan->cases[i], cases);
    }
    char seed[19], fl[8] = "";
    bitcts_format_u64(opt->seed, seed);
    if (opt->selection.max_feature_level)
        bitcts_fl_format(opt->selection.max_feature_level, fl, sizeof fl);
    json_t *manifest = json_pack(
        "{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:o}", "format", BITCTS_VECTOR_FORMAT,
        "format_version", BITCTS_VECTOR_FORMAT_VERSION, "suite_version", BITCTS_VERSION_STRING,
        "generator_version", (json_int_t)BITCTS_GENERATOR_VERSION, "seed", seed, "tier",
        opt->tier_text ? opt->tier_text : "default", "filter",
        opt->selection.filter ? opt->selection.filter : "*", "max_feature_level", fl,
        "digest_algorithm", "XXH3-128", "case_count", (json_int_t)stats->cases, "cases", cases);
    if (st == BITCTS_OK) {
        char *text = json_dumps(manifest, JSON_INDENT(1) | JSON_ENSURE_ASCII);
        char path[4096];
        snprintf(path, sizeof path, "%s/manifest.json", staging);
        st = text ? bitcts_fs_write(path, text, strlen(text), err, cap) : BITCTS_E_OUT_OF_MEMORY;
        free(text);
    }
    json_decref(manifest);
    if (st == BITCTS_OK)
        st = bitcts_fs_replace_dir(staging, opt->out_dir, err, cap);
    if (st != BITCTS_OK)
        bitcts_fs_remove_tree(staging);
    return st;
}
