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
