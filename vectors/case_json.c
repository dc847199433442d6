/* SPDX-License-Identifier: MIT */
/* JSON descriptions of cases and tensors (docs/vector-format.md, "Case entries"). */
#include <ctype.h>  /* toupper */
#include <stdio.h>  /* snprintf */
#include <string.h> /* strlen */

#include "case_json.h"

void bitcts_format_u64(uint64_t v, char out[19])
{
    snprintf(out, 19, "0x%016llx", (unsigned long long)v);
}

void bitcts_json_dims(const bitcts_tensor_desc *t, json_t **sizes, json_t **strides)
{
    const uint32_t dims = t->dimension_count <= BITCTS_MAX_DIMS + 1 ? t->dimension_count : 0;
    *sizes = json_array();
    *strides = t->has_strides ? json_array() : json_null();
    for (uint32_t k = 0; k < dims; ++k) {
        json_array_append_new(*sizes, json_integer(t->sizes[k]));
        if (t->has_strides) {
            json_array_append_new(*strides, json_integer(t->strides[k]));
        }
    }
}

json_t *bitcts_json_tensor(const bitcts_tensor_desc *t, const char *role)
{
    char upper[16] = "UNKNOWN";
    const char *name = bitcts_dtype_name(t->data_type);
    if (name != NULL) {
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof upper; ++i) {
            upper[i] = (char)toupper((unsigned char)name[i]);
        }
        upper[i] = '\0';
    }
    json_t *sizes = NULL;
    json_t *strides = NULL;
    bitcts_json_dims(t, &sizes, &strides);
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:I, s:I}", "role", role, "DataType",
                     upper, "DataTypeValue", (json_int_t)t->data_type, "Flags",
                     (json_int_t)t->flags, "DimensionCount", (json_int_t)t->dimension_count,
                     "Sizes", sizes, "Strides", strides, "TotalTensorSizeInBytes",
                     (json_int_t)t->total_tensor_size_in_bytes, "GuaranteedBaseOffsetAlignment",
                     (json_int_t)t->guaranteed_base_offset_alignment);
}

static json_t *tiers_json(uint32_t tiers)
{
    static const char *const names[4] = {"smoke", "default", "large", "exhaustive"};
    json_t *a = json_array();
    for (int i = 0; i < 4; ++i) {
        if (tiers & (1u << i)) {
            json_array_append_new(a, json_string(names[i]));
        }
    }
    return a;
}

json_t *bitcts_json_case(const bitcts_case_key *key, const bitcts_case_data *data)
{
    char fl[8], seed[19];
    bitcts_fl_format(key->feature_level, fl, sizeof fl);
    bitcts_format_u64(data->case_seed, seed);
    const int invalid = key->pattern == BITCTS_PAT_INVALID;
    json_t *tensors = json_array();
    for (uint32_t i = 0; i <= data->desc.input_count; ++i) {
        const bitcts_tensor_desc *t =
            i < data->desc.input_count ? &data->desc.inputs[i] : &data->desc.output;
        json_array_append_new(tensors,
                              bitcts_json_tensor(t, bitcts_role_name(data->desc.input_count, i)));
    }
    json_t *c = json_pack(
        "{s:s, s:s, s:I, s:s, s:s, s:I, s:s, s:I, s:o, s:s, s:s, s:s, s:s}", "id", key->id,
        "operator", bitcts_op_name(key->op), "operator_type", (json_int_t)data->desc.op,
        "input_type", bitcts_dtype_name(key->in_type), "output_type",
        bitcts_dtype_name(key->out_type), "rank", (json_int_t)key->rank, "feature_level", fl,
        "feature_level_value", (json_int_t)key->feature_level, "tiers", tiers_json(key->tiers),
        "pattern", invalid ? "invalid" : bitcts_pattern_name(key->pattern), "values",
        invalid ? "none" : bitcts_values_name(key->values), "case_seed", seed, "expect",
        invalid ? "reject" : (bitcts_case_is_recorded(key) ? "recorded" : "pass"));
    if (invalid) {
        json_object_set_new(c, "rule", json_string(bitcts_rule_id((int)key->rule)));
    }
    json_object_set_new(c, "tensors", tensors);
    json_object_set_new(
        c, "output_aliases",
        data->alias_input >= 0
            ? json_string(bitcts_role_name(data->desc.input_count, (uint32_t)data->alias_input))
            : json_null());
    return c;
}

json_t *bitcts_json_case_exported(const bitcts_case_key *key, const bitcts_case_data *data)
{
    json_t *c = bitcts_json_case(key, data);
    if (c != NULL && key->pattern == BITCTS_PAT_INVALID) {
        static const char *const verdicts[] = {"expect", "rule", "pattern", "values"};
        for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; ++i) {
            json_object_del(c, verdicts[i]);
        }
    }
    return c;
}
