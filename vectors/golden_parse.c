/* SPDX-License-Identifier: MIT */
/* The golden manifest's reader (docs/golden-vectors.md): bytes in, a checked set out. Pure: no
 * file system, no global state; any bytes give a set or a one-line error (a fuzz target's
 * entry point). Every field the comparison reads is checked for its kind and range, so the
 * rest of the module can trust a parsed set. */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "golden_internal.h"

typedef struct parse_ctx {
    char *err;
    size_t cap;
    char where[64]; /* "cases[12]", "literals[0]" */
} parse_ctx;

static int bad(parse_ctx *p, const char *fmt, ...) BITCTS_PRINTF(2, 3);

static int bad(parse_ctx *p, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->cap, "golden manifest: %s%s%s", p->where, p->where[0] ? ": " : "", text);
    return BITCTS_E_PARSE;
}

static int is_uint(const json_t *v, json_int_t max)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= max;
}

static int is_digest(const json_t *v)
{
    const char *s = json_string_value(v);
    if (s == NULL || json_string_length(v) != 32) {
        return 0;
    }
    for (size_t i = 0; i < 32; ++i) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

static int is_role(const char *s)
{
    return s != NULL && (strcmp(s, "A") == 0 || strcmp(s, "B") == 0 || strcmp(s, "Input") == 0 ||
                         strcmp(s, "Output") == 0);
}

/* [role, DataTypeValue, Flags, Sizes, Strides or null, TotalTensorSizeInBytes, alignment]. */
static int check_tensor(parse_ctx *p, const json_t *t, size_t k)
{
    const json_int_t u32 = 0xFFFFFFFF;
    if (!json_is_array(t) || json_array_size(t) != 7) {
        return bad(p, "tensors[%zu] is not an array of 7", k);
    }
    if (!is_role(json_string_value(json_array_get(t, 0)))) {
        return bad(p, "tensors[%zu]: the role is not A, B, Input or Output", k);
    }
    const json_t *sizes = json_array_get(t, 3);
    const json_t *strides = json_array_get(t, 4);
    if (!is_uint(json_array_get(t, 1), u32) || !is_uint(json_array_get(t, 2), u32) ||
        !is_uint(json_array_get(t, 5), INT64_MAX) || !is_uint(json_array_get(t, 6), u32)) {
        return bad(p, "tensors[%zu]: a number is missing or out of range", k);
    }
    if (!json_is_array(sizes) || json_array_size(sizes) > BITCTS_MAX_DIMS + 1 ||
        !(json_is_null(strides) ||
          (json_is_array(strides) && json_array_size(strides) == json_array_size(sizes)))) {
        return bad(p, "tensors[%zu]: Sizes or Strides malformed", k);
    }
    for (size_t d = 0; d < json_array_size(sizes); ++d) {
        if (!is_uint(json_array_get(sizes, d), u32) ||
            (json_is_array(strides) && !is_uint(json_array_get(strides, d), u32))) {
            return bad(p, "tensors[%zu]: Sizes[%zu] or Strides[%zu] out of range", k, d, d);
        }
    }
    return BITCTS_OK;
}

static int check_description(parse_ctx *p, const json_t *e)
{
    const json_t *tensors = json_object_get(e, "tensors");
    const json_t *aliases = json_object_get(e, "aliases");
    if (!is_uint(json_object_get(e, "op"), 0xFFFFFFFF)) {
        return bad(p, "\"op\" is missing or not a DML_OPERATOR_TYPE");
    }
    if (!json_is_array(tensors) || json_array_size(tensors) < 1 || json_array_size(tensors) > 3) {
        return bad(p, "\"tensors\" is not an array of 1 to 3 tensors");
    }
    for (size_t k = 0; k < json_array_size(tensors); ++k) {
        const int st = check_tensor(p, json_array_get(tensors, k), k);
        if (st != BITCTS_OK) {
            return st;
        }
    }
    if (aliases != NULL && !json_is_null(aliases) && !is_role(json_string_value(aliases))) {
        return bad(p, "\"aliases\" is neither null nor a role");
    }
    return BITCTS_OK;
}

static int check_case(parse_ctx *p, const json_t *e)
{
    const json_t *id = json_object_get(e, "id");
    if (!json_is_object(e) || !json_is_string(id) || json_string_length(id) == 0 ||
        json_string_length(id) >= sizeof((bitcts_case_key *)0)->id) {
        return bad(p, "not an object with an \"id\" of 1 to 95 characters");
    }
    int st = check_description(p, e);
    if (st != BITCTS_OK) {
        return st;
    }
    if (json_object_get(e, "reject") != NULL) {
        return json_is_string(json_object_get(e, "reject"))
                   ? BITCTS_OK
                   : bad(p, "%s: \"reject\" is not a rule id", json_string_value(id));
    }
    const json_t *inputs = json_object_get(e, "inputs");
    const json_t *expected = json_object_get(e, "expected");
    const char *role;
    const json_t *v;
    if (!json_is_object(inputs) || json_object_size(inputs) > 2) {
        return bad(p, "%s: \"inputs\" is not an object of digests", json_string_value(id));
    }
    json_object_foreach((json_t *)inputs, role, v)
    {
        if (!is_role(role) || !is_digest(v)) {
            return bad(p, "%s: input \"%.10s\" is not a role with a 32-digit digest",
                       json_string_value(id), role);
        }
    }
    if (!(is_digest(expected) || (json_is_object(expected) && json_object_size(expected) == 2 &&
                                  is_digest(json_object_get(expected, "mask")) &&
                                  is_digest(json_object_get(expected, "saturate"))))) {
        return bad(p, "%s: \"expected\" is neither a digest nor {mask, saturate} digests",
                   json_string_value(id));
    }
    return BITCTS_OK;
}

static int is_value_list(const json_t *v)
{
    if (!json_is_array(v) || json_array_size(v) == 0) {
        return 0;
    }
    for (size_t i = 0; i < json_array_size(v); ++i) {
        if (!is_uint(json_array_get(v, i), INT64_MAX)) {
            return 0;
        }
    }
    return 1;
}

static int check_literal(parse_ctx *p, const json_t *e)
{
    static const char *const texts[] = {"name", "source", "note", "operator"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
        if (!json_is_string(json_object_get(e, texts[i]))) {
            return bad(p, "\"%s\" is missing or not a string", texts[i]);
        }
    }
    int st = check_description(p, e);
    if (st != BITCTS_OK) {
        return st;
    }
    const json_t *inputs = json_object_get(e, "inputs");
    const char *role;
    const json_t *v;
    if (!json_is_object(inputs)) {
        return bad(p, "\"inputs\" is not an object");
    }
    json_object_foreach((json_t *)inputs, role, v)
    {
        if (!is_role(role) || !is_value_list(v)) {
            return bad(p, "input \"%.10s\" is not a role with a list of values", role);
        }
    }
    const json_t *expected = json_object_get(e, "expected");
    const json_t *reject = json_object_get(e, "reject");
    const json_t *documented = json_object_get(e, "documented_output");
    const json_t *who = json_object_get(e, "documented_output_is");
    if ((expected != NULL) == (reject != NULL) || (expected != NULL && !is_value_list(expected)) ||
        (reject != NULL && !json_is_string(reject))) {
        return bad(p, "needs either \"expected\" (values) or \"reject\" (a rule id)");
    }
    if ((documented != NULL && !is_value_list(documented)) ||
        (who != NULL && !json_is_null(who) && !json_is_string(who))) {
        return bad(p, "\"documented_output\" or \"documented_output_is\" malformed");
    }
    return BITCTS_OK;
}

static int check_header(parse_ctx *p, const json_t *r)
{
    const char *format = json_string_value(json_object_get(r, "format"));
    if (format == NULL || strcmp(format, BITCTS_GOLDEN_FORMAT) != 0) {
        snprintf(p->err, p->cap,
                 "golden manifest: \"format\" is not \"%s\": not a bitcts golden "
                 "manifest",
                 BITCTS_GOLDEN_FORMAT);
        return BITCTS_E_FORMAT_VERSION;
    }
    const char *version = json_string_value(json_object_get(r, "format_version"));
    unsigned major = 0;
    unsigned minor = 0;
    char tail = 0;
    if (version == NULL || sscanf(version, "%3u.%3u%c", &major, &minor, &tail) != 2) {
        return bad(p, "\"format_version\" is not \"major.minor\"");
    }
    if (major != BITCTS_GOLDEN_FORMAT_MAJOR) {
        snprintf(p->err, p->cap,
                 "golden manifest: format_version %s: this bitcts reads major version %u only "
                 "(%s); use a bitcts that reads %u.x",
                 version, BITCTS_GOLDEN_FORMAT_MAJOR, BITCTS_GOLDEN_FORMAT_VERSION, major);
        return BITCTS_E_FORMAT_VERSION;
    }
    const char *seed = json_string_value(json_object_get(r, "seed"));
    const char *tier = json_string_value(json_object_get(r, "tier"));
    const char *digest = json_string_value(json_object_get(r, "digest_algorithm"));
    if (!is_uint(json_object_get(r, "generator_version"), 0xFFFFFFFF) || seed == NULL ||
        strlen(seed) != 18 || strncmp(seed, "0x", 2) != 0 ||
        strspn(seed + 2, "0123456789abcdef") != 16) {
        return bad(p, "\"generator_version\" or \"seed\" (0x and 16 hex digits) malformed");
    }
    if (tier == NULL || bitcts_tier_parse(tier) == 0 || strchr(tier, ',') != NULL) {
        return bad(p, "\"tier\" is not a tier name");
    }
    if (digest == NULL || strcmp(digest, "XXH3-128") != 0) {
        return bad(p, "\"digest_algorithm\" is not \"XXH3-128\"");
    }
    const json_t *cases = json_object_get(r, "cases");
    const json_t *literals = json_object_get(r, "literals");
    if (!json_is_array(cases) || !json_is_array(literals) ||
        !is_uint(json_object_get(r, "case_count"), INT64_MAX) ||
        (size_t)json_integer_value(json_object_get(r, "case_count")) != json_array_size(cases) ||
        !is_uint(json_object_get(r, "literal_count"), INT64_MAX) ||
        (size_t)json_integer_value(json_object_get(r, "literal_count")) !=
            json_array_size(literals)) {
        return bad(p, "\"cases\"/\"literals\" missing, or their counts disagree");
    }
    return BITCTS_OK;
}

int bitcts_golden_parse(const void *data, size_t size, bitcts_golden **out, char *err, size_t cap)
{
    *out = NULL;
    parse_ctx p = {.err = err, .cap = cap};
    json_error_t je;
    json_t *root = json_loadb(data, size, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        snprintf(err, cap, "golden manifest: not JSON: %s (line %d, column %d)", je.text, je.line,
                 je.column);
        for (char *c = err; cap > 0 && *c != '\0'; ++c) { /* one line: jansson quotes input */
            if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7F) {
                *c = '?';
            }
        }
        return BITCTS_E_PARSE;
    }
    int st = json_is_object(root) ? check_header(&p, root) : bad(&p, "not a JSON object");
    const json_t *literals = json_object_get(root, "literals");
    const json_t *cases = json_object_get(root, "cases");
    for (size_t i = 0; st == BITCTS_OK && i < json_array_size(literals); ++i) {
        snprintf(p.where, sizeof p.where, "literals[%zu]", i);
        const json_t *e = json_array_get(literals, i);
        st = json_is_object(e) ? check_literal(&p, e) : bad(&p, "not an object");
    }
    for (size_t i = 0; st == BITCTS_OK && i < json_array_size(cases); ++i) {
        snprintf(p.where, sizeof p.where, "cases[%zu]", i);
        st = check_case(&p, json_array_get(cases, i));
    }
    bitcts_golden *g = st == BITCTS_OK ? calloc(1, sizeof *g) : NULL;
    if (st == BITCTS_OK && g == NULL) {
        st = BITCTS_E_OUT_OF_MEMORY;
    }
    if (st != BITCTS_OK) {
        json_decref(root);
        return st;
    }
    g->root = root;
    if ((st = bitcts__golden_finish(g, err, cap)) != BITCTS_OK) {
        bitcts_golden_destroy(g);
        return st;
    }
    *out = g;
    return BITCTS_OK;
}
