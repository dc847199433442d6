/* SPDX-License-Identifier: MIT */
/* The golden vectors (docs/golden-vectors.md): building a set from the plan and the reference,
 * writing its manifest (one entry a line, so a change is a one-line diff), and comparing a
 * committed set with the current one. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, qsort */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "case_json.h"
#include "digest.h"
#include "golden_internal.h"
#include "ref_ops.h"
#include "validate.h"

/* ---- the index ---- */

static int compare_keys(const void *a, const void *b)
{
    return strcmp(((const bitcts_golden_key *)a)->key, ((const bitcts_golden_key *)b)->key);
}

static int make_index(json_t *array, const char *field, bitcts_golden_key **out, char *err,
                      size_t cap)
{
    const size_t n = json_array_size(array);
    bitcts_golden_key *index = calloc(n + 1, sizeof *index);
    if (index == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; ++i) {
        json_t *e = json_array_get(array, i);
        index[i] = (bitcts_golden_key){json_string_value(json_object_get(e, field)), e, i};
    }
    qsort(index, n, sizeof *index, compare_keys);
    for (size_t i = 1; i < n; ++i) {
        if (strcmp(index[i].key, index[i - 1].key) == 0) {
            snprintf(err, cap, "golden manifest: %s \"%.100s\" appears twice", field, index[i].key);
            free(index);
            return BITCTS_E_PARSE;
        }
    }
    *out = index;
    return BITCTS_OK;
}

int bitcts__golden_finish(bitcts_golden *g, char *err, size_t cap)
{
    json_t *r = g->root;
    bitcts_golden_info *info = &g->info;
    const char *version = json_string_value(json_object_get(r, "format_version"));
    unsigned major = 0;
    unsigned minor = 0;
    if (version != NULL) {
        sscanf(version, "%u.%u", &major, &minor);
    }
    info->format_major = major;
    info->format_minor = minor;
    info->generator_version = (uint32_t)json_integer_value(json_object_get(r, "generator_version"));
    const char *seed = json_string_value(json_object_get(r, "seed"));
    info->seed = seed != NULL ? strtoull(seed, NULL, 16) : 0;
    info->tier = json_string_value(json_object_get(r, "tier"));
    info->case_count = json_array_size(json_object_get(r, "cases"));
    info->literal_count = json_array_size(json_object_get(r, "literals"));
    int st = make_index(json_object_get(r, "cases"), "id", &g->cases_by_id, err, cap);
    if (st == BITCTS_OK) {
        st = make_index(json_object_get(r, "literals"), "name", &g->literals_by_name, err, cap);
    }
    return st;
}

const bitcts_golden_key *bitcts__golden_find(const bitcts_golden_key *index, size_t n,
                                             const char *key)
{
    const bitcts_golden_key probe = {.key = key};
    return bsearch(&probe, index, n, sizeof *index, compare_keys);
}

void bitcts_golden_destroy(bitcts_golden *g)
{
    if (g == NULL) {
        return;
    }
    json_decref(g->root);
    free(g->cases_by_id);
    free(g->literals_by_name);
    free(g);
}

void bitcts_golden_get_info(const bitcts_golden *g, bitcts_golden_info *out)
{
    *out = g->info;
}

/* ---- building ---- */

json_t *bitcts__golden_tensors(const bitcts_op_desc *d)
{
    json_t *all = json_array();
    for (uint32_t i = 0; i <= d->input_count; ++i) {
        const bitcts_tensor_desc *t = i < d->input_count ? &d->inputs[i] : &d->output;
        json_t *sizes = NULL;
        json_t *strides = NULL;
        bitcts_json_dims(t, &sizes, &strides);
        json_array_append_new(all, json_pack("[s, I, I, o, o, I, I]",
                                             bitcts_role_name(d->input_count, i),
                                             (json_int_t)t->data_type, (json_int_t)t->flags, sizes,
                                             strides, (json_int_t)t->total_tensor_size_in_bytes,
                                             (json_int_t)t->guaranteed_base_offset_alignment));
    }
    return all;
}

static json_t *digest_json(const uint8_t *data, uint64_t size)
{
    char hex[BITCTS_DIGEST_HEX];
    bitcts_digest_bytes(data, (size_t)size, hex);
    return json_string(hex);
}

/* The digest of the expected output under a shift policy. */
static int expected_digest(const bitcts_case_data *d, int policy, json_t **out)
{
    uint8_t *expected = NULL;
    const int st = bitcts_case_expected(d, policy, &expected);
    if (st == BITCTS_OK) {
        *out = digest_json(expected, d->desc.output.total_tensor_size_in_bytes);
    }
    free(expected);
    return st;
}

static int case_entry(uint64_t seed, const bitcts_case_key *key, json_t **out, char *err,
                      size_t cap)
{
    bitcts_case_data d;
    int st = bitcts_case_build(seed, key, &d);
    if (st != BITCTS_OK) {
        snprintf(err, cap, "case %s: cannot build (%s)", key->id, bitcts_status_message(st));
        return st;
    }
    json_t *e =
        json_pack("{s:s, s:I, s:o, s:o}", "id", key->id, "op", (json_int_t)d.desc.op, "tensors",
                  bitcts__golden_tensors(&d.desc), "aliases",
                  d.alias_input >= 0
                      ? json_string(bitcts_role_name(d.desc.input_count, (uint32_t)d.alias_input))
                      : json_null());
    if (key->pattern == BITCTS_PAT_INVALID) {
        json_object_set_new(e, "reject", json_string(bitcts_rule_id((int)key->rule)));
    } else {
        json_t *inputs = json_object();
        for (uint32_t i = 0; i < d.desc.input_count; ++i) {
            json_object_set_new(
                inputs, bitcts_role_name(d.desc.input_count, i),
                digest_json(d.inputs[i], d.desc.inputs[i].total_tensor_size_in_bytes));
        }
        json_object_set_new(e, "inputs", inputs);
        json_t *mask = NULL;
        json_t *saturate = NULL;
        st = expected_digest(&d, BITCTS_SHIFT_POLICY_SATURATE, &saturate);
        if (st == BITCTS_OK && bitcts_case_is_recorded(key)) {
            st = expected_digest(&d, BITCTS_SHIFT_POLICY_MASK, &mask);
            json_object_set_new(e, "expected",
                                json_pack("{s:o, s:o}", "mask", mask, "saturate", saturate));
        } else if (st == BITCTS_OK) {
            json_object_set_new(e, "expected", saturate);
        }
        if (st != BITCTS_OK) {
            json_decref(saturate);
            snprintf(err, cap, "case %s: the reference failed (%s)", key->id,
                     bitcts_status_message(st));
            st = BITCTS_E_INTERNAL;
        }
    }
    bitcts_case_free(&d);
    if (st != BITCTS_OK || e == NULL) {
        json_decref(e);
        return st != BITCTS_OK ? st : BITCTS_E_OUT_OF_MEMORY;
    }
    *out = e;
    return BITCTS_OK;
}

int bitcts_golden_build(const bitcts_plan *plan, uint64_t seed, const char *tier,
                        bitcts_golden **out, char *err, size_t cap)
{
    *out = NULL;
    const bitcts_selection sel = {.tiers = bitcts_tier_parse(tier)};
    if (sel.tiers == 0 || strchr(tier, ',') != NULL) {
        snprintf(err, cap, "unknown tier '%s'", tier);
        return BITCTS_E_INVALID_ARGUMENT;
    }
    json_t *cases = json_array();
    int st = BITCTS_OK;
    for (size_t i = 0; st == BITCTS_OK && i < plan->count; ++i) {
        json_t *e = NULL;
        if (bitcts_selection_matches(&sel, &plan->cases[i]) &&
            (st = case_entry(seed, &plan->cases[i], &e, err, cap)) == BITCTS_OK) {
            json_array_append_new(cases, e);
        }
    }
    json_t *literals = st == BITCTS_OK ? bitcts__golden_literals(err, cap) : NULL;
    if (st == BITCTS_OK && literals == NULL) {
        st = BITCTS_E_OUT_OF_MEMORY;
    }
    char seed_text[19];
    bitcts_format_u64(seed, seed_text);
    bitcts_golden *g = calloc(1, sizeof *g);
    if (st == BITCTS_OK && g != NULL) {
        g->root = json_pack(
            "{s:s, s:s, s:I, s:s, s:s, s:s, s:I, s:I, s:o, s:o}", "format", BITCTS_GOLDEN_FORMAT,
            "format_version", BITCTS_GOLDEN_FORMAT_VERSION, "generator_version",
            (json_int_t)BITCTS_GENERATOR_VERSION, "seed", seed_text, "tier", tier,
            "digest_algorithm", "XXH3-128", "literal_count", (json_int_t)json_array_size(literals),
            "case_count", (json_int_t)json_array_size(cases), "literals", literals, "cases", cases);
        literals = cases = NULL;
        st = g->root != NULL ? bitcts__golden_finish(g, err, cap) : BITCTS_E_OUT_OF_MEMORY;
    } else if (st == BITCTS_OK) {
        st = BITCTS_E_OUT_OF_MEMORY;
    }
    json_decref(literals);
    json_decref(cases);
    if (st != BITCTS_OK) {
        bitcts_golden_destroy(g);
        return st;
    }
    *out = g;
    return BITCTS_OK;
}

/* ---- writing ---- */

typedef struct text_buf {
    char *data;
    size_t size;
    size_t cap;
    int failed;
} text_buf;

static void put(text_buf *t, const char *s)
{
    const size_t n = strlen(s);
    if (t->failed) {
        return;
    }
    if (t->size + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1u << 20;
        while (t->size + n + 1 > cap) {
            cap *= 2;
        }
        char *grown = realloc(t->data, cap);
        if (grown == NULL) {
            t->failed = 1;
            return;
        }
        t->data = grown;
        t->cap = cap;
    }
    memcpy(t->data + t->size, s, n + 1);
    t->size += n;
}

static void put_json(text_buf *t, const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
    if (s == NULL) {
        t->failed = 1;
        return;
    }
    put(t, s);
    free(s);
}

/* An array with one element a line. */
static void put_lines(text_buf *t, const char *name, const json_t *array, int last)
{
    put(t, "\"");
    put(t, name);
    put(t, "\": [\n");
    for (size_t i = 0; i < json_array_size(array); ++i) {
        put_json(t, json_array_get(array, i));
        put(t, i + 1 < json_array_size(array) ? ",\n" : "\n");
    }
    put(t, last ? "]\n" : "],\n");
}

int bitcts_golden_write(const bitcts_golden *g, const bitcts_vec_sink *sink, const char *rel,
                        char *err, size_t cap)
{
    static const char *const header[] = {"format",        "format_version", "generator_version",
                                         "seed",          "tier",           "digest_algorithm",
                                         "literal_count", "case_count"};
    text_buf t = {0};
    put(&t, "{\n");
    for (size_t i = 0; i < sizeof header / sizeof header[0]; ++i) {
        put(&t, "\"");
        put(&t, header[i]);
        put(&t, "\": ");
        put_json(&t, json_object_get(g->root, header[i]));
        put(&t, ",\n");
    }
    put_lines(&t, "literals", json_object_get(g->root, "literals"), 0);
    put_lines(&t, "cases", json_object_get(g->root, "cases"), 1);
    put(&t, "}\n");
    int st = BITCTS_E_OUT_OF_MEMORY;
    if (!t.failed) {
        st = sink->write_file(sink->user, rel, t.data, t.size, err, cap);
    } else {
        snprintf(err, cap, "out of memory writing the golden manifest");
    }
    free(t.data);
    return st;
}
