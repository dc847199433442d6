/* SPDX-License-Identifier: MIT */
/* The regression case file (regress_case.h, docs/regressions.md). The description is written by
 * case_json, as reports and exports write it; reading parses every field strictly, rebuilds the
 * description from what it parsed and requires it to equal the file's, so no field can
 * contradict another; the name is the digest of what was parsed, so damage to any byte that
 * matters is caught. */
#include "regress_case.h"

#include <inttypes.h> /* SCNx64 */
#include <stdarg.h>   /* va_list */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* aligned_alloc, free, malloc */
#include <string.h>   /* memcmp, memcpy, strlen */

#include "bitcts/bitcts_status.h"
#include "case_json.h"
#include "digest.h"
#include "validate.h"

/* ---- the name ---- */

static json_t *canonical_case(const bitcts_case_key *key, const bitcts_case_data *data,
                              const char *id)
{
    bitcts_case_key k = *key;
    snprintf(k.id, sizeof k.id, "%s", id);
    k.pattern = BITCTS_PAT_EXPLORE;
    k.index = UINT32_MAX;
    k.tiers = BITCTS_TIER_ALL;
    k.rule = 0;
    k.feature_level = bitcts_fl_required(k.op, k.in_type, k.out_type, k.rank);
    if (bitcts_case_is_recorded(key)) {
        k.values = BITCTS_VALUES_SHIFT_OOB; /* an exhaustive shift stays recorded, patternless */
    }
    return bitcts_json_case(&k, data);
}

/* The buffers a file holds: the inputs, then the initial output unless it is in place. */
static size_t buffer_list(const bitcts_case_data *d, const uint8_t *bufs[3], uint64_t sizes[3])
{
    size_t n = 0;
    for (uint32_t i = 0; i < d->desc.input_count; ++i) {
        bufs[n] = d->inputs[i];
        sizes[n++] = d->desc.inputs[i].total_tensor_size_in_bytes;
    }
    if (d->alias_input < 0) {
        bufs[n] = d->output;
        sizes[n++] = d->desc.output.total_tensor_size_in_bytes;
    }
    return n;
}

void bitcts_regress_name(const bitcts_case_key *key, const bitcts_case_data *data,
                         char out[BITCTS_REGRESS_NAME_HEX + 1])
{
    out[0] = '\0';
    json_t *c = canonical_case(key, data, BITCTS_REGRESS_ID_PREFIX);
    char *text = c != NULL ? json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(c);
    const uint8_t *bufs[3];
    uint64_t sizes[3];
    const size_t n = buffer_list(data, bufs, sizes);
    size_t total = text != NULL ? strlen(text) + 1 : 0;
    for (size_t i = 0; i < n; ++i) {
        total += (size_t)sizes[i];
    }
    uint8_t *all = text != NULL ? malloc(total) : NULL;
    if (all != NULL) {
        size_t at = strlen(text) + 1;
        memcpy(all, text, at);
        for (size_t i = 0; i < n; ++i) {
            memcpy(all + at, bufs[i], (size_t)sizes[i]);
            at += (size_t)sizes[i];
        }
        char hex[BITCTS_DIGEST_HEX];
        bitcts_digest_bytes(all, total, hex);
        memcpy(out, hex, BITCTS_REGRESS_NAME_HEX);
        out[BITCTS_REGRESS_NAME_HEX] = '\0';
    }
    free(all);
    free(text);
}

/* ---- writing ---- */

static json_t *hex_string(const uint8_t *bytes, uint64_t size)
{
    static const char digits[] = "0123456789abcdef";
    char *text = malloc((size_t)size * 2 + 1);
    if (text == NULL) {
        return NULL;
    }
    for (uint64_t i = 0; i < size; ++i) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 15];
    }
    text[size * 2] = '\0';
    json_t *s = json_string(text);
    free(text);
    return s;
}

static int origin_is_plain(const json_t *origin)
{
    const char *k = NULL;
    json_t *v = NULL;
    if (!json_is_object(origin)) {
        return 0;
    }
    json_object_foreach((json_t *)origin, k, v)
    {
        if (!json_is_string(v) && !json_is_integer(v) && !json_is_null(v)) {
            return 0;
        }
    }
    return 1;
}

static json_t *buffers_json(const bitcts_case_data *data)
{
    json_t *b = json_object();
    for (uint32_t i = 0; b != NULL && i < data->desc.input_count; ++i) {
        json_object_set_new(
            b, bitcts_role_name(data->desc.input_count, i),
            hex_string(data->inputs[i], data->desc.inputs[i].total_tensor_size_in_bytes));
    }
    if (b != NULL && data->alias_input < 0) {
        json_object_set_new(b, "initial",
                            hex_string(data->output, data->desc.output.total_tensor_size_in_bytes));
    }
    return b;
}

int bitcts_regress_encode(const bitcts_case_key *key, const bitcts_case_data *data,
                          const json_t *origin, char **text, size_t *size,
                          char name[BITCTS_REGRESS_NAME_HEX + 1])
{
    *text = NULL;
    *size = 0;
    if (key->pattern == BITCTS_PAT_INVALID || data->inputs[0] == NULL || !origin_is_plain(origin)) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    bitcts_regress_name(key, data, name);
    char id[64];
    snprintf(id, sizeof id, "%s%s", BITCTS_REGRESS_ID_PREFIX, name);
    json_t *file =
        json_pack("{s:s, s:s, s:s, s:o, s:o, s:O}", "format", BITCTS_REGRESS_FORMAT,
                  "format_version", BITCTS_REGRESS_FORMAT_VERSION, "name", name, "case",
                  canonical_case(key, data, id), "buffers", buffers_json(data), "origin", origin);
    char *dump = file != NULL && name[0] != '\0'
                     ? json_dumps(file, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER)
                     : NULL;
    json_decref(file);
    if (dump == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    const size_t len = strlen(dump);
    char *out = realloc(dump, len + 2);
    if (out == NULL) {
        free(dump);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    out[len] = '\n';
    out[len + 1] = '\0';
    *text = out;
    *size = len + 1;
    return BITCTS_OK;
}

/* ---- reading ---- */

static int fail(char *err, size_t cap, const char *fmt, ...) BITCTS_PRINTF(3, 4);
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return BITCTS_E_PARSE;
}

/* An integer field in [lo, hi]; 0 or -1. */
static int get_int(const json_t *obj, const char *field, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const json_t *v = json_object_get(obj, field);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < lo ||
        (uint64_t)json_integer_value(v) > hi) {
        return -1;
    }
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int get_u32(const json_t *obj, const char *field, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v = 0;
    if (get_int(obj, field, lo, hi, &v) != 0) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* A u32 array of `n` entries in [lo, UINT32_MAX]; 0 or -1. */
static int get_dims(const json_t *a, uint32_t n, uint32_t lo, uint32_t *out)
{
    if (!json_is_array(a) || json_array_size(a) != n) {
        return -1;
    }
    for (uint32_t k = 0; k < n; ++k) {
        const json_t *v = json_array_get(a, k);
        if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)lo ||
            json_integer_value(v) > (json_int_t)UINT32_MAX) {
            return -1;
        }
        out[k] = (uint32_t)json_integer_value(v);
    }
    return 0;
}

static int parse_tensor(const json_t *j, bitcts_tensor_desc *t)
{
    memset(t, 0, sizeof *t);
    if (!json_is_object(j) || get_u32(j, "DataTypeValue", 0, UINT32_MAX, &t->data_type) != 0 ||
        get_u32(j, "Flags", 0, UINT32_MAX, &t->flags) != 0 ||
        get_u32(j, "DimensionCount", 1, BITCTS_MAX_DIMS, &t->dimension_count) != 0 ||
        get_int(j, "TotalTensorSizeInBytes", 1, (uint64_t)1 << 32,
                &t->total_tensor_size_in_bytes) != 0 ||
        get_u32(j, "GuaranteedBaseOffsetAlignment", 0, UINT32_MAX,
                &t->guaranteed_base_offset_alignment) != 0 ||
        get_dims(json_object_get(j, "Sizes"), t->dimension_count, 1, t->sizes) != 0) {
        return -1;
    }
    const json_t *strides = json_object_get(j, "Strides");
    t->has_strides = !json_is_null(strides);
    return t->has_strides ? get_dims(strides, t->dimension_count, 0, t->strides) : 0;
}

static uint32_t values_parse(const char *name)
{
    for (uint32_t v = 0; v <= BITCTS_VALUES_ENUMERATED; ++v) {
        if (name != NULL && strcmp(bitcts_values_name(v), name) == 0) {
            return v;
        }
    }
    return UINT32_MAX;
}

static const char *str_of(const json_t *obj, const char *field)
{
    return json_string_value(json_object_get(obj, field));
}

/* The key and the descriptions from "case"; BITCTS_OK, or BITCTS_E_PARSE with err. */
static int parse_case(const json_t *c, bitcts_case_key *key, bitcts_case_data *d, char *err,
                      size_t cap)
{
    memset(key, 0, sizeof *key);
    const char *seed = str_of(c, "case_seed");
    unsigned n_read = 0;
    if (!json_is_object(c) || get_u32(c, "operator_type", 1, UINT32_MAX, &key->op) != 0 ||
        bitcts_op_name(key->op) == NULL ||
        get_u32(c, "rank", 1, BITCTS_MAX_DIMS, &key->rank) != 0 ||
        str_of(c, "input_type") == NULL || str_of(c, "output_type") == NULL || seed == NULL ||
        strlen(seed) != 18 || sscanf(seed, "0x%16" SCNx64 "%n", &d->case_seed, &n_read) != 1 ||
        n_read != 18 || (key->values = values_parse(str_of(c, "values"))) == UINT32_MAX) {
        return fail(err, cap,
                    "\"case\" lacks or mangles operator_type, rank, the types, "
                    "case_seed or values");
    }
    key->in_type = bitcts_dtype_parse(str_of(c, "input_type"));
    key->out_type = bitcts_dtype_parse(str_of(c, "output_type"));
    const json_t *tensors = json_object_get(c, "tensors");
    d->desc.op = key->op;
    d->desc.input_count = bitcts_op_input_count(key->op);
    if (json_array_size(tensors) != d->desc.input_count + 1) {
        return fail(err, cap, "\"case\" has %zu tensors, %s takes %u and an output",
                    json_array_size(tensors), bitcts_op_name(key->op), d->desc.input_count);
    }
    for (uint32_t t = 0; t <= d->desc.input_count; ++t) {
        bitcts_tensor_desc *td = t < d->desc.input_count ? &d->desc.inputs[t] : &d->desc.output;
        if (parse_tensor(json_array_get(tensors, t), td) != 0) {
            return fail(err, cap, "tensor %s is malformed",
                        bitcts_role_name(d->desc.input_count, t));
        }
    }
    return BITCTS_OK;
}

/* Hex of exactly `size` bytes into a new 64-byte-aligned buffer; NULL when it is not. */
static uint8_t *unhex(const char *text, uint64_t size)
{
    if (text == NULL || strlen(text) != size * 2) {
        return NULL;
    }
    uint8_t *buf = aligned_alloc(64, ((size_t)size + 64) & ~(size_t)63);
    for (uint64_t i = 0; buf != NULL && i < size * 2; ++i) {
        const char ch = text[i];
        const int v = ch >= '0' && ch <= '9'   ? ch - '0'
                      : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                               : -1;
        if (v < 0) {
            free(buf);
            return NULL;
        }
        buf[i / 2] = (uint8_t)(i % 2 == 0 ? v << 4 : buf[i / 2] | v);
    }
    return buf;
}

/* The buffers and the aliasing; BITCTS_OK, or BITCTS_E_PARSE with err. */
static int parse_buffers(const json_t *c, const json_t *b, bitcts_case_data *d, char *err,
                         size_t cap)
{
    const json_t *alias = json_object_get(c, "output_aliases");
    const size_t want = d->desc.input_count + (json_is_null(alias) ? 1u : 0u);
    if (!json_is_object(b) || json_object_size(b) != want) {
        return fail(err, cap, "\"buffers\" must hold exactly %zu buffers", want);
    }
    for (uint32_t i = 0; i < d->desc.input_count; ++i) {
        const char *role = bitcts_role_name(d->desc.input_count, i);
        d->inputs[i] = unhex(str_of(b, role), d->desc.inputs[i].total_tensor_size_in_bytes);
        if (d->inputs[i] == NULL) {
            return fail(err, cap, "buffer %s is not %llu bytes of lower-case hex", role,
                        (unsigned long long)d->desc.inputs[i].total_tensor_size_in_bytes);
        }
        if (json_is_string(alias) && strcmp(json_string_value(alias), role) == 0) {
            d->alias_input = (int)i;
        }
    }
    if (!json_is_null(alias)) {
        if (d->alias_input < 0 || !bitcts_op_allows_in_place(d->desc.op) ||
            memcmp(&d->desc.output, &d->desc.inputs[d->alias_input], sizeof d->desc.output) != 0) {
            return fail(err, cap, "output_aliases names no input the output may alias");
        }
        d->output = d->inputs[d->alias_input];
        return BITCTS_OK;
    }
    d->owned_output = unhex(str_of(b, "initial"), d->desc.output.total_tensor_size_in_bytes);
    d->output = d->owned_output;
    if (d->output == NULL) {
        return fail(err, cap, "buffer initial is not %llu bytes of lower-case hex",
                    (unsigned long long)d->desc.output.total_tensor_size_in_bytes);
    }
    return BITCTS_OK;
}

/* The description is valid and the file's fields say what was parsed; BITCTS_OK, or
 * BITCTS_E_PARSE with err. */
static int check_case(const json_t *file, const json_t *c, const bitcts_case_key *key,
                      const bitcts_case_data *d, const char *name, char *err, size_t cap)
{
    bitcts_validation v;
    const uint32_t fl = bitcts_fl_required(key->op, key->in_type, key->out_type, key->rank);
    if (fl == 0 || d->desc.inputs[0].data_type != key->in_type ||
        d->desc.output.data_type != key->out_type) {
        return fail(err, cap,
                    "input_type and output_type are not the tensors' types, or no "
                    "feature level has them at this rank");
    }
    if (bitcts_validate_op(&d->desc, fl, &v) != BITCTS_RULE_OK) {
        return fail(err, cap, "the case is not valid (%s: %s)", v.tensor, v.detail);
    }
    char computed[BITCTS_REGRESS_NAME_HEX + 1];
    bitcts_regress_name(key, d, computed);
    if (strcmp(computed, name) != 0) {
        return fail(err, cap, "its name %s is not the digest of its case and buffers (%s)", name,
                    computed);
    }
    json_t *again = canonical_case(key, d, key->id);
    const int same = again != NULL && json_equal(again, (json_t *)c);
    json_decref(again);
    if (!same) {
        return fail(err, cap,
                    "\"case\" contradicts itself (a field is not what its tensors, "
                    "types and name imply)");
    }
    if (!origin_is_plain(json_object_get(file, "origin"))) {
        return fail(err, cap, "\"origin\" is not an object of strings, integers and nulls");
    }
    return BITCTS_OK;
}

static int check_header(const json_t *file, char *name, char *err, size_t cap)
{
    const char *format = str_of(file, "format");
    const char *version = str_of(file, "format_version");
    const char *n = str_of(file, "name");
    if (format == NULL || strcmp(format, BITCTS_REGRESS_FORMAT) != 0 || version == NULL) {
        return fail(err, cap, "not a bitcts regression case (\"format\": \"%s\")",
                    BITCTS_REGRESS_FORMAT);
    }
    if (strncmp(version, "1.", 2) != 0) {
        fail(err, cap, "format_version %.20s is not 1.x", version);
        return BITCTS_E_FORMAT_VERSION;
    }
    if (n == NULL || strlen(n) != BITCTS_REGRESS_NAME_HEX ||
        strspn(n, "0123456789abcdef") != BITCTS_REGRESS_NAME_HEX) {
        return fail(err, cap, "\"name\" is not %d lower-case hex digits", BITCTS_REGRESS_NAME_HEX);
    }
    memcpy(name, n, BITCTS_REGRESS_NAME_HEX + 1);
    return BITCTS_OK;
}

int bitcts_regress_decode(const char *text, size_t size, bitcts_case_key *key,
                          bitcts_case_data *data, json_t **origin,
                          char name[BITCTS_REGRESS_NAME_HEX + 1], char *err, size_t cap)
{
    memset(data, 0, sizeof *data);
    data->alias_input = -1;
    if (origin != NULL) {
        *origin = NULL;
    }
    json_error_t je;
    json_t *file = json_loadb(text, size, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(file)) {
        json_decref(file);
        return fail(err, cap, "not a JSON object (line %d: %s)", je.line, je.text);
    }
    int st = check_header(file, name, err, cap);
    const json_t *c = json_object_get(file, "case");
    if (st == BITCTS_OK) {
        st = parse_case(c, key, data, err, cap);
    }
    if (st == BITCTS_OK) {
        st = parse_buffers(c, json_object_get(file, "buffers"), data, err, cap);
    }
    if (st == BITCTS_OK) {
        snprintf(key->id, sizeof key->id, "%s%s", BITCTS_REGRESS_ID_PREFIX, name);
        key->pattern = BITCTS_PAT_EXPLORE;
        key->index = UINT32_MAX;
        key->tiers = BITCTS_TIER_ALL;
        key->feature_level = bitcts_fl_required(key->op, key->in_type, key->out_type, key->rank);
        st = check_case(file, c, key, data, name, err, cap);
    }
    if (st == BITCTS_OK && origin != NULL) {
        *origin = json_incref(json_object_get(file, "origin"));
    }
    if (st != BITCTS_OK) {
        bitcts_case_free(data);
    }
    json_decref(file);
    return st;
}
