/* SPDX-License-Identifier: MIT */
/* Case results as JSON: the first mismatch with its coordinates, input bits, expected and
 * actual values in hex and binary. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* strchr, strlen */

#include "bitcts/bitcts_verdict.h"
#include "case_result.h"
#include "sanitize.h"
#include "self_exe.h"

static json_t *hex(uint64_t v, uint32_t width)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%0*llx", (int)(2 * width), (unsigned long long)v);
    return json_string(buf);
}

static json_t *bin(uint64_t v, uint32_t width)
{
    char buf[72];
    const int bits = (int)(8 * width);
    for (int b = 0; b < bits; ++b) {
        buf[b] = (char)('0' + ((v >> (bits - 1 - b)) & 1));
    }
    buf[bits] = '\0';
    return json_string(buf);
}

static json_t *failure_json(const bitcts_case_result *r)
{
    if (r->verdict != BITCTS_VERDICT_FAIL || !r->has_first) {
        return json_null();
    }
    json_t *coords = json_array();
    for (uint32_t k = 0; k < r->rank; ++k) {
        json_array_append_new(coords, json_integer(r->first_coords[k]));
    }
    json_t *inputs = json_array();
    for (uint32_t t = 0; t < r->input_count; ++t) {
        json_array_append_new(inputs, hex(r->first_inputs[t], r->in_width));
    }
    json_t *first = json_pack(
        "{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "index", (json_int_t)r->first_index, "coords",
        coords, "inputs", inputs, "expected", hex(r->first_expected, r->out_width), "actual",
        hex(r->first_actual, r->out_width), "expected_bin", bin(r->first_expected, r->out_width),
        "actual_bin", bin(r->first_actual, r->out_width));
    return json_pack("{s:I, s:I, s:o}", "mismatches", (json_int_t)r->mismatches, "elements",
                     (json_int_t)r->elements, "first", first);
}

json_t *bitcts_case_result_json(const bitcts_case_key *key, size_t plan_index,
                                const bitcts_case_result *r, const char *repro)
{
    char fl[8];
    bitcts_fl_format(key->feature_level, fl, sizeof fl);
    json_t *warnings = json_array();
    if (r->warning[0]) {
        json_array_append_new(warnings, json_string(r->warning));
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:f, s:s, s:s, s:s, s:o, s:o, s:s, s:s, s:I}", "id",
                     key->id, "operator", bitcts_op_name(key->op), "feature_level", fl, "verdict",
                     bitcts_verdict_name(r->verdict), "duration_ms", r->duration_ms,
                     "output_xxh3_128", r->digest, "detail", r->detail, "policy", r->policy,
                     "warnings", warnings, "failure", failure_json(r), "baseline", "", "repro",
                     repro, "plan_index", (json_int_t)plan_index);
}

/* The product of the last tensor's Sizes (the output's), saturated at 2^53. */
static json_int_t output_elements(const json_t *tensors)
{
    const json_t *sizes =
        json_object_get(json_array_get(tensors, json_array_size(tensors) - 1), "Sizes");
    json_int_t n = json_array_size(sizes) > 0 ? 1 : 0;
    for (size_t k = 0; k < json_array_size(sizes); ++k) {
        const json_int_t size = json_integer_value(json_array_get(sizes, k));
        n = size <= 0 ? 0 : n > ((json_int_t)1 << 53) / size ? ((json_int_t)1 << 53) : n * size;
    }
    return n;
}

/* 0 packed in effect (every dimension of size > 1 has the packed stride), 1 strided otherwise,
 * 2 broadcast (a zero stride on a dimension of size > 1). */
static int tensor_layout(const json_t *t)
{
    const json_t *sizes = json_object_get(t, "Sizes");
    const json_t *strides = json_object_get(t, "Strides");
    if (!json_is_array(strides) || json_array_size(strides) != json_array_size(sizes)) {
        return 0;
    }
    int layout = 0;
    json_int_t packed = 1;
    for (size_t k = json_array_size(sizes); k-- > 0;) {
        const json_int_t size = json_integer_value(json_array_get(sizes, k));
        const json_int_t stride = json_integer_value(json_array_get(strides, k));
        if (size > 1 && stride == 0) {
            return 2;
        }
        layout |= size > 1 && stride != packed ? 1 : 0;
        packed = size > 0 && packed < ((json_int_t)1 << 40) ? packed * size : packed;
    }
    return layout;
}

/* "packed", "strided" or "broadcast": the worst of the case's tensors (tensor_layout). */
static const char *case_layout(const json_t *tensors)
{
    static const char *const names[] = {"packed", "strided", "broadcast"};
    int worst = 0;
    for (size_t i = 0; i < json_array_size(tensors); ++i) {
        const int layout = tensor_layout(json_array_get(tensors, i));
        worst = layout > worst ? layout : worst;
    }
    return names[worst];
}

json_t *bitcts_case_description(const json_t *case_json, int verdict)
{
    static const char *const kept[] = {"input_type", "output_type", "rank",    "pattern",
                                       "values",     "rule",        "tensors", "output_aliases"};
    json_t *d = json_is_object(case_json) ? json_object() : NULL;
    if (d == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; ++i) {
        const json_t *member = json_object_get(case_json, kept[i]);
        if (member != NULL) {
            json_object_set_new(d, kept[i], json_deep_copy(member));
        }
    }
    json_object_set_new(d, "elements",
                        json_integer(output_elements(json_object_get(d, "tensors"))));
    json_object_set_new(d, "layout",
                        json_string(json_object_get(d, "rule") != NULL
                                        ? "invalid" /* a negative case: no layout to run */
                                        : case_layout(json_object_get(d, "tensors"))));
    if (verdict == BITCTS_VERDICT_PASS || verdict == BITCTS_VERDICT_RECORDED ||
        verdict == BITCTS_VERDICT_NOT_SUPPORTED) {
        json_object_del(d, "tensors");
    }
    return d;
}

void bitcts_case_repro(const char *backend_spec, const char *options, uint64_t seed, const char *id,
                       char *out, size_t cap)
{
    char exe[1024], exe_q[4100], path[1024], backend[4100], filter[400], folder[420];
    char dir[128];
    snprintf(dir, sizeof dir, "bitcts-repro/%s", id);
    snprintf(out, cap, "%s run --backend %s%s --tier all --filter %s --seed 0x%016llx --report %s",
             bitcts_shell_quote(bitcts_self_exe(exe, sizeof exe), exe_q, sizeof exe_q),
             bitcts_shell_quote(strchr(backend_spec, '/') != NULL /* a plugin file */
                                    ? bitcts_paste_path(backend_spec, path, sizeof path)
                                    : backend_spec,
                                backend, sizeof backend),
             options, bitcts_shell_quote(id, filter, sizeof filter), (unsigned long long)seed,
             bitcts_shell_quote(dir, folder, sizeof folder));
}
