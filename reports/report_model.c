/* SPDX-License-Identifier: MIT */
/* Parsing and validation of report.json, the verdict order, recomputed summaries and an id
 * index. Validation is one pass of small checkers, each naming the object and the field, so
 * that every error is one line a person can act on. */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* qsort, malloc */
#include <string.h> /* strcmp, strlen */

#include "report_model.h"

static const char *const policy_names[BITCTS_REPORT_POLICY_COUNT] = {
    "mask", "saturate", "mask_or_saturate", "other", ""};

/* ---- verdicts ---- */

/* Verdicts that hide the case's outcome: not claimed, expected to fail, skipped, not run. */
static int is_masked(int v)
{
    return v == BITCTS_VERDICT_NOT_SUPPORTED || v == BITCTS_VERDICT_EXPECTED_FAIL ||
           v == BITCTS_VERDICT_SKIPPED || v == BITCTS_VERDICT_NOT_RUN;
}

/* The rules are documented at the declaration; the order of the tests is the rule order. */
bitcts_report_change bitcts_report_verdict_change(int from, int to)
{
    if (from == to) {
        return BITCTS_REPORT_CHANGE_SAME;
    }
    const int rank_from = bitcts_verdict_rank(from);
    const int rank_to = bitcts_verdict_rank(to);
    if (rank_from >= 0 && rank_to >= 0) {
        return rank_to > rank_from ? BITCTS_REPORT_CHANGE_REGRESSION : BITCTS_REPORT_CHANGE_FIX;
    }
    if (from == BITCTS_VERDICT_EXPECTED_FAIL && to == BITCTS_VERDICT_UNEXPECTED_PASS) {
        return BITCTS_REPORT_CHANGE_FIX;
    }
    if (from == BITCTS_VERDICT_UNEXPECTED_PASS && to == BITCTS_VERDICT_EXPECTED_FAIL) {
        return BITCTS_REPORT_CHANGE_REGRESSION;
    }
    const int fails_from = bitcts_verdict_is_failure(from);
    const int fails_to = bitcts_verdict_is_failure(to);
    if (fails_from && is_masked(to)) {
        return BITCTS_REPORT_CHANGE_OTHER;
    }
    if (fails_to != fails_from) {
        return fails_to ? BITCTS_REPORT_CHANGE_REGRESSION : BITCTS_REPORT_CHANGE_FIX;
    }
    if (bitcts_verdict_is_healthy(from) && is_masked(to)) {
        return BITCTS_REPORT_CHANGE_REGRESSION;
    }
    if (is_masked(from) && bitcts_verdict_is_healthy(to)) {
        return BITCTS_REPORT_CHANGE_FIX;
    }
    return BITCTS_REPORT_CHANGE_OTHER;
}

const char *bitcts_report_policy_name(int policy)
{
    return policy >= 0 && policy < BITCTS_REPORT_POLICY_COUNT ? policy_names[policy] : "unknown";
}

int bitcts_report_policy_parse(const char *name)
{
    for (int p = 0; name != NULL && p < BITCTS_REPORT_POLICY_COUNT; ++p) {
        if (strcmp(name, policy_names[p]) == 0) {
            return p;
        }
    }
    return -1;
}

/* ---- accessors ---- */

const char *bitcts_report_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s != NULL ? s : "";
}

double bitcts_report_num(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

int bitcts_report_case_verdict(const json_t *case_obj)
{
    return bitcts_verdict_parse(json_string_value(json_object_get(case_obj, "verdict")));
}

int bitcts_report_is_clean(const json_t *report)
{
    const json_t *cases = json_object_get(report, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        if (bitcts_verdict_is_failure(bitcts_report_case_verdict(json_array_get(cases, i)))) {
            return 0;
        }
    }
    return 1;
}

/* ---- validation ---- */

typedef struct vctx {
    const char *name;
    char *err;
    size_t cap;
    char where[BITCTS_REPORT_MAX_ID + 96]; /* "case 17 (ID)", "backend", "" at the top */
} vctx;

/* A value quoted in an error: at most 60 bytes, control characters replaced, so the error
 * stays on one line whatever the file holds. */
static const char *shown(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; s[n] && n < 60 && n + 4 < cap; ++n) {
        buf[n] = ((unsigned char)s[n] < 0x20 || s[n] == 0x7f) ? '?' : s[n];
    }
    if (s[n]) {
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80) {
            --n; /* do not cut a UTF-8 sequence */
        }
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

static bitcts_status vfail(vctx *c, bitcts_status st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->err != NULL && c->cap) {
        snprintf(c->err, c->cap, "report %s: %s%s%s", c->name, c->where, c->where[0] ? " " : "",
                 msg);
    }
    return st;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* Reports "field 'k' is missing" or "field 'k' must be WANT, not GOT". */
static bitcts_status bad_field(vctx *c, const json_t *v, const char *key, const char *want)
{
    if (v == NULL) {
        return vfail(c, BITCTS_E_PARSE, "field '%s' is missing", key);
    }
    return vfail(c, BITCTS_E_PARSE, "field '%s' must be %s, not %s", key, want, type_name(v));
}

static bitcts_status check_string(vctx *c, const json_t *v, const char *key, size_t max_len)
{
    if (!json_is_string(v)) {
        return bad_field(c, v, key, "a string");
    }
    const size_t len = json_string_length(v);
    if (strlen(json_string_value(v)) != len) {
        return vfail(c, BITCTS_E_PARSE, "field '%s' contains a NUL character", key);
    }
    if (max_len && len > max_len) {
        return vfail(c, BITCTS_E_PARSE, "field '%s' is longer than %zu bytes", key, max_len);
    }
    return BITCTS_OK;
}

static bitcts_status need_str(vctx *c, const json_t *obj, const char *key, size_t max_len)
{
    return check_string(c, json_object_get(obj, key), key, max_len);
}

/* Every key of a NULL-terminated list must be a string member. */
static bitcts_status need_strs(vctx *c, const json_t *obj, const char *const *keys)
{
    for (; *keys != NULL; ++keys) {
        const bitcts_status st = need_str(c, obj, *keys, 0);
        if (st != BITCTS_OK) {
            return st;
        }
    }
    return BITCTS_OK;
}

static bitcts_status need_count(vctx *c, const json_t *obj, const char *key, json_int_t *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v)) {
        return bad_field(c, v, key, "an integer");
    }
    if (json_integer_value(v) < 0) {
        return vfail(c, BITCTS_E_PARSE, "field '%s' is negative", key);
    }
    if (out != NULL) {
        *out = json_integer_value(v);
    }
    return BITCTS_OK;
}

static bitcts_status need_duration(vctx *c, const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_number(v)) {
        return bad_field(c, v, key, "a number");
    }
    const double d = json_number_value(v);
    if (!(d >= 0.0 && d <= 1e15)) {
        return vfail(c, BITCTS_E_PARSE, "field '%s' is out of range", key);
    }
    return BITCTS_OK;
}

static bitcts_status need_kind(vctx *c, const json_t *obj, const char *key, json_type type,
                               const json_t **out)
{
    const json_t *v = json_object_get(obj, key);
    *out = v;
    if (v == NULL || json_typeof(v) != type) {
        return bad_field(c, v, key, type == JSON_OBJECT ? "an object" : "an array");
    }
    return BITCTS_OK;
}

/* An array of at most max_items strings of at most max_len bytes each. */
static bitcts_status need_str_list(vctx *c, const json_t *obj, const char *key, size_t max_items,
                                   size_t max_len)
{
    const json_t *arr = NULL;
    bitcts_status st = need_kind(c, obj, key, JSON_ARRAY, &arr);
    if (st != BITCTS_OK) {
        return st;
    }
    if (json_array_size(arr) > max_items) {
        return vfail(c, BITCTS_E_PARSE, "field '%s' has more than %zu entries", key, max_items);
    }
    for (size_t i = 0; i < json_array_size(arr); ++i) {
        char item[80];
        snprintf(item, sizeof item, "%s[%zu]", key, i);
        if ((st = check_string(c, json_array_get(arr, i), item, max_len)) != BITCTS_OK) {
            return st;
        }
    }
    return BITCTS_OK;
}

static bitcts_status need_digest(vctx *c, const json_t *obj, const char *key)
{
    bitcts_status st = need_str(c, obj, key, 0);
    if (st != BITCTS_OK) {
        return st;
    }
    const char *s = json_string_value(json_object_get(obj, key));
    const size_t len = strlen(s);
    int hex = len == 32;
    for (size_t i = 0; hex && i < len; ++i) {
        hex = strchr("0123456789abcdefABCDEF", s[i]) != NULL;
    }
    if (len != 0 && !hex) {
        char q[80];
        return vfail(c, BITCTS_E_PARSE, "field '%s' is '%s', not 32 hex digits or \"\"", key,
                     shown(s, q, sizeof q));
    }
    return BITCTS_OK;
}

static bitcts_status check_schema(vctx *c, const json_t *r)
{
    char q[80];
    if (!json_is_object(r)) {
        return vfail(c, BITCTS_E_PARSE, "not a bitcts report (the top level is %s)", type_name(r));
    }
    const json_t *schema = json_object_get(r, "schema");
    if (!json_is_string(schema)) {
        return vfail(c, BITCTS_E_PARSE, "not a bitcts report (no \"schema\" string)");
    }
    if (strcmp(json_string_value(schema), BITCTS_REPORT_SCHEMA) != 0) {
        return vfail(c, BITCTS_E_PARSE, "not a bitcts report (schema '%s')",
                     shown(json_string_value(schema), q, sizeof q));
    }
    bitcts_status st = need_str(c, r, "schema_version", 32);
    if (st != BITCTS_OK) {
        return st;
    }
    const char *version = json_string_value(json_object_get(r, "schema_version"));
    unsigned major = 0, minor = 0;
    int used = 0;
    if (sscanf(version, "%3u.%3u%n", &major, &minor, &used) != 2 || version[used] != '\0' ||
        version[0] < '0' || version[0] > '9') {
        return vfail(c, BITCTS_E_PARSE, "schema_version '%s' is malformed (want MAJOR.MINOR)",
                     shown(version, q, sizeof q));
    }
    if (major != BITCTS_REPORT_SCHEMA_MAJOR) {
        return vfail(c, BITCTS_E_FORMAT_VERSION,
                     "schema_version %s not supported (this bitcts reads 1.x)",
                     shown(version, q, sizeof q));
    }
    return BITCTS_OK;
}

static bitcts_status check_top(vctx *c, const json_t *r)
{
    static const char *const keys[] = {"suite_version", "seed", "started", "finished", NULL};
    bitcts_status st = need_strs(c, r, keys);
    if (st == BITCTS_OK) {
        st = need_count(c, r, "generator_version", NULL);
    }
    if (st == BITCTS_OK) {
        st = need_duration(c, r, "duration_s");
    }
    if (st == BITCTS_OK) {
        st = need_str_list(c, r, "command_line", BITCTS_REPORT_MAX_LIST, 0);
    }
    if (st == BITCTS_OK && json_object_get(r, "stopped") != NULL) { /* optional (1.2) */
        st = need_str(c, r, "stopped", 1024);
    }
    if (st == BITCTS_OK && json_object_get(r, "retried") != NULL) { /* optional (1.2) */
        st = need_str(c, r, "retried", 1024);
    }
    return st;
}

/* An object member `key` of r, checked with the key list, with `where` naming it in errors. */
static bitcts_status check_section(vctx *c, const json_t *r, const char *key,
                                   const char *const *keys, const json_t **out)
{
    c->where[0] = '\0';
    bitcts_status st = need_kind(c, r, key, JSON_OBJECT, out);
    if (st != BITCTS_OK) {
        return st;
    }
    snprintf(c->where, sizeof c->where, "%s", key);
    return need_strs(c, *out, keys);
}

static bitcts_status check_info(vctx *c, const json_t *backend)
{
    const json_t *info = json_object_get(backend, "info");
    const json_t *caps = json_object_get(backend, "capabilities");
    if (caps != NULL && !json_is_object(caps)) {
        return bad_field(c, caps, "capabilities", "an object");
    }
    if (info == NULL) {
        return BITCTS_OK;
    }
    if (!json_is_object(info)) {
        return bad_field(c, info, "info", "an object");
    }
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)info, key, value)
    {
        char item[160];
        char q[80];
        snprintf(item, sizeof item, "info.%s", shown(key, q, sizeof q));
        const bitcts_status st = check_string(c, value, item, 0);
        if (st != BITCTS_OK) {
            return st;
        }
    }
    return BITCTS_OK;
}

static bitcts_status check_sections(vctx *c, const json_t *r)
{
    static const char *const sel_keys[] = {"tier", "filter", "feature_level", "shard", NULL};
    static const char *const backend_keys[] = {"spec",        "path",          "name",
                                               "vendor",      "version",       "build_id",
                                               "abi_version", "feature_level", NULL};
    static const char *const host_keys[] = {"hostname", "os", "machine", NULL};
    const json_t *obj = NULL;
    bitcts_status st = check_section(c, r, "selection", sel_keys, &obj);
    if (st == BITCTS_OK) {
        st = check_section(c, r, "backend", backend_keys, &obj);
    }
    if (st == BITCTS_OK) {
        st = need_digest(c, obj, "library_xxh3_128");
    }
    if (st == BITCTS_OK) {
        st = check_info(c, obj);
    }
    if (st == BITCTS_OK) {
        st = check_section(c, r, "host", host_keys, &obj);
    }
    if (st == BITCTS_OK) {
        st = json_is_integer(json_object_get(obj, "cpus")) /* -1: sysconf could not tell */
                 ? BITCTS_OK
                 : bad_field(c, json_object_get(obj, "cpus"), "cpus", "an integer");
    }
    if (st == BITCTS_OK) {
        c->where[0] = '\0';
    }
    return st;
}

static bitcts_status check_first(vctx *c, const json_t *first)
{
    static const char *const keys[] = {"expected", "actual", "expected_bin", "actual_bin", NULL};
    bitcts_status st = need_count(c, first, "index", NULL);
    if (st == BITCTS_OK) {
        st = need_strs(c, first, keys);
    }
    if (st == BITCTS_OK) {
        st = need_str_list(c, first, "inputs", BITCTS_REPORT_MAX_INPUTS, 80);
    }
    const json_t *coords = NULL;
    if (st == BITCTS_OK) {
        st = need_kind(c, first, "coords", JSON_ARRAY, &coords);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    if (json_array_size(coords) > BITCTS_REPORT_MAX_DIMS) {
        return vfail(c, BITCTS_E_PARSE, "failure.first has more than %u coords",
                     BITCTS_REPORT_MAX_DIMS);
    }
    for (size_t i = 0; i < json_array_size(coords); ++i) {
        const json_t *v = json_array_get(coords, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            return vfail(c, BITCTS_E_PARSE, "failure.first.coords[%zu] is not a count", i);
        }
    }
    return BITCTS_OK;
}

static bitcts_status check_failure(vctx *c, const json_t *obj)
{
    const json_t *failure = json_object_get(obj, "failure");
    if (json_is_null(failure)) {
        return BITCTS_OK;
    }
    if (!json_is_object(failure)) {
        return bad_field(c, failure, "failure", "null or an object");
    }
    bitcts_status st = need_count(c, failure, "mismatches", NULL);
    if (st == BITCTS_OK) {
        st = need_count(c, failure, "elements", NULL);
    }
    const json_t *first = json_object_get(failure, "first");
    if (st != BITCTS_OK || first == NULL || json_is_null(first)) {
        return st;
    }
    if (!json_is_object(first)) {
        return bad_field(c, first, "failure.first", "null or an object");
    }
    return check_first(c, first);
}

/* The optional "output": {"bytes": N, "excerpt": "..."} a backend printed while the case ran. */
static bitcts_status check_output(vctx *c, const json_t *obj)
{
    const json_t *out = json_object_get(obj, "output");
    if (out == NULL) {
        return BITCTS_OK;
    }
    if (!json_is_object(out)) {
        return bad_field(c, out, "output", "an object");
    }
    bitcts_status st = need_count(c, out, "bytes", NULL);
    return st != BITCTS_OK ? st : need_str(c, out, "excerpt", 4 * 65536);
}

/* The optional "repeats" of a flake: each run's verdict, detail and digest. */
static bitcts_status check_repeats(vctx *c, const json_t *obj)
{
    const json_t *runs = json_object_get(obj, "repeats");
    if (runs == NULL) {
        return BITCTS_OK;
    }
    if (!json_is_array(runs) || json_array_size(runs) > 64) {
        return bad_field(c, runs, "repeats", "an array of at most 64 runs");
    }
    char q[80];
    for (size_t i = 0; i < json_array_size(runs); ++i) {
        const json_t *run = json_array_get(runs, i);
        if (!json_is_object(run)) {
            return bad_field(c, run, "repeats[]", "an object");
        }
        bitcts_status st = need_str(c, run, "verdict", 0);
        if (st == BITCTS_OK) {
            st = need_str(c, run, "detail", 0);
        }
        if (st != BITCTS_OK) {
            return st;
        }
        const char *name = json_string_value(json_object_get(run, "verdict"));
        if (bitcts_verdict_parse(name) < 0) {
            return vfail(c, BITCTS_E_PARSE, "has a run with unknown verdict '%s'",
                         shown(name, q, sizeof q));
        }
    }
    return BITCTS_OK;
}

static bitcts_status check_case_fields(vctx *c, const json_t *obj, int *verdict)
{
    static const char *const keys[] = {"feature_level", "detail", "baseline", "repro", NULL};
    char q[80];
    bitcts_status st = need_str(c, obj, "operator", BITCTS_REPORT_MAX_NAME);
    if (st == BITCTS_OK && !*json_string_value(json_object_get(obj, "operator"))) {
        return vfail(c, BITCTS_E_PARSE, "has an empty operator");
    }
    if (st == BITCTS_OK) {
        st = need_str(c, obj, "verdict", 0);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    const char *name = json_string_value(json_object_get(obj, "verdict"));
    if ((*verdict = bitcts_verdict_parse(name)) < 0) {
        return vfail(c, BITCTS_E_PARSE, "has unknown verdict '%s'", shown(name, q, sizeof q));
    }
    if ((st = need_strs(c, obj, keys)) == BITCTS_OK) {
        st = need_duration(c, obj, "duration_ms");
    }
    if (st == BITCTS_OK) {
        st = need_digest(c, obj, "output_xxh3_128");
    }
    if (st == BITCTS_OK) {
        st = need_str(c, obj, "policy", 0);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    const char *policy = json_string_value(json_object_get(obj, "policy"));
    if (bitcts_report_policy_parse(policy) < 0) {
        return vfail(c, BITCTS_E_PARSE, "has unknown policy '%s'", shown(policy, q, sizeof q));
    }
    if ((st = need_str_list(c, obj, "warnings", BITCTS_REPORT_MAX_LIST, 0)) != BITCTS_OK) {
        return st;
    }
    if (json_object_get(obj, "plan_index") != NULL &&
        (st = need_count(c, obj, "plan_index", NULL))) {
        return st;
    }
    if ((st = check_output(c, obj)) != BITCTS_OK || (st = check_repeats(c, obj)) != BITCTS_OK) {
        return st;
    }
    return check_failure(c, obj);
}

static bitcts_status check_case(vctx *c, size_t pos, const json_t *obj, int *verdict)
{
    char q[80];
    snprintf(c->where, sizeof c->where, "case %zu", pos);
    if (!json_is_object(obj)) {
        return vfail(c, BITCTS_E_PARSE, "is %s, not an object", type_name(obj));
    }
    bitcts_status st = need_str(c, obj, "id", BITCTS_REPORT_MAX_ID);
    if (st != BITCTS_OK) {
        return st;
    }
    const char *id = json_string_value(json_object_get(obj, "id"));
    if (!*id) {
        return vfail(c, BITCTS_E_PARSE, "has an empty id");
    }
    for (const char *s = id; *s; ++s) {
        if ((unsigned char)*s <= 0x20 || *s == 0x7f) {
            return vfail(c, BITCTS_E_PARSE, "id '%s' contains a space or control character",
                         shown(id, q, sizeof q));
        }
    }
    snprintf(c->where, sizeof c->where, "case %zu (%s)", pos, id);
    return check_case_fields(c, obj, verdict);
}

static bitcts_status check_summary(vctx *c, const json_t *r, const size_t *counts, size_t total)
{
    const json_t *summary = NULL;
    const json_t *by = NULL;
    json_int_t n = 0;
    bitcts_status st = need_kind(c, r, "summary", JSON_OBJECT, &summary);
    if (st != BITCTS_OK) {
        return st;
    }
    snprintf(c->where, sizeof c->where, "summary");
    if ((st = need_count(c, summary, "total", &n)) == BITCTS_OK) {
        st = need_kind(c, summary, "by_verdict", JSON_OBJECT, &by);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    if ((size_t)n != total) {
        return vfail(c, BITCTS_E_PARSE, "total %lld does not match the %zu cases", (long long)n,
                     total);
    }
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)by, key, value)
    {
        char q[80];
        const int v = bitcts_verdict_parse(key);
        if (v < 0) {
            return vfail(c, BITCTS_E_PARSE, "counts unknown verdict '%s'", shown(key, q, sizeof q));
        }
        if (!json_is_integer(value) || json_integer_value(value) < 0 ||
            (size_t)json_integer_value(value) != counts[v]) {
            return vfail(c, BITCTS_E_PARSE, "count of '%s' does not match the cases (%zu)", key,
                         counts[v]);
        }
    }
    for (int v = 0; v < BITCTS_VERDICT_COUNT; ++v) {
        if (counts[v] && json_object_get(by, bitcts_verdict_name(v)) == NULL) {
            return vfail(c, BITCTS_E_PARSE, "does not count the %zu '%s' cases", counts[v],
                         bitcts_verdict_name(v));
        }
    }
    c->where[0] = '\0';
    return BITCTS_OK;
}

static bitcts_status check_slowest(vctx *c, const json_t *r)
{
    const json_t *arr = NULL;
    bitcts_status st = need_kind(c, r, "slowest", JSON_ARRAY, &arr);
    if (st != BITCTS_OK) {
        return st;
    }
    if (json_array_size(arr) > BITCTS_REPORT_MAX_LIST) {
        return vfail(c, BITCTS_E_PARSE, "field 'slowest' has more than %u entries",
                     BITCTS_REPORT_MAX_LIST);
    }
    for (size_t i = 0; i < json_array_size(arr) && st == BITCTS_OK; ++i) {
        const json_t *e = json_array_get(arr, i);
        snprintf(c->where, sizeof c->where, "slowest[%zu]", i);
        if (!json_is_object(e)) {
            return vfail(c, BITCTS_E_PARSE, "is %s, not an object", type_name(e));
        }
        st = need_str(c, e, "id", BITCTS_REPORT_MAX_ID);
        if (st == BITCTS_OK) {
            st = need_duration(c, e, "duration_ms");
        }
    }
    if (st == BITCTS_OK) {
        c->where[0] = '\0';
    }
    return st;
}

/* ---- the id index ---- */

struct bitcts_report_index {
    size_t count;
    bitcts__report_keyed *entries; /* key: the id; sorted by id, then by position */
};

int bitcts__report_keyed_cmp(const void *a, const void *b)
{
    const bitcts__report_keyed *x = a;
    const bitcts__report_keyed *y = b;
    const int c = strcmp(x->key, y->key);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

bitcts_status bitcts_report_index_create(const json_t *report, bitcts_report_index **out)
{
    const json_t *cases = json_object_get(report, "cases");
    if (out == NULL || !json_is_array(cases)) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    const size_t n = json_array_size(cases);
    bitcts_report_index *index = calloc(1, sizeof *index);
    if (index == NULL ||
        ((index->entries = malloc((n ? n : 1) * sizeof *index->entries)) == NULL)) {
        free(index);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; ++i) {
        const json_t *obj = json_array_get(cases, i);
        const char *id = json_string_value(json_object_get(obj, "id"));
        if (id != NULL) {
            index->entries[index->count++] =
                (bitcts__report_keyed){.key = id, .obj = obj, .pos = i};
        }
    }
    qsort(index->entries, index->count, sizeof *index->entries, bitcts__report_keyed_cmp);
    *out = index;
    return BITCTS_OK;
}

void bitcts_report_index_destroy(bitcts_report_index *index)
{
    if (index == NULL) {
        return;
    }
    free(index->entries);
    free(index);
}

const json_t *bitcts_report_index_find(const bitcts_report_index *index, const char *id)
{
    size_t lo = 0;
    size_t hi = index != NULL ? index->count : 0;
    while (lo < hi) { /* the first entry whose id is >= id */
        const size_t mid = lo + (hi - lo) / 2;
        if (strcmp(index->entries[mid].key, id) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < (index != NULL ? index->count : 0) && strcmp(index->entries[lo].key, id) == 0
               ? index->entries[lo].obj
               : NULL;
}

static bitcts_status check_unique_ids(vctx *c, const json_t *r)
{
    bitcts_report_index *index = NULL;
    if (bitcts_report_index_create(r, &index) != BITCTS_OK) {
        return vfail(c, BITCTS_E_OUT_OF_MEMORY, "out of memory");
    }
    bitcts_status st = BITCTS_OK;
    for (size_t i = 1; i < index->count && st == BITCTS_OK; ++i) {
        const bitcts__report_keyed *e = &index->entries[i];
        if (strcmp(e[-1].key, e->key) == 0) {
            snprintf(c->where, sizeof c->where, "case %zu (%s)", e->pos, e->key);
            st = vfail(c, BITCTS_E_PARSE, "repeats the id of case %zu", e[-1].pos);
        }
    }
    bitcts_report_index_destroy(index);
    return st;
}

/* ---- validation, parsing, loading ---- */

bitcts_status bitcts_report_validate_case(const json_t *case_obj, char *err, size_t cap)
{
    vctx c = {.name = "(case)", .err = err, .cap = cap};
    if (err != NULL && cap > 0) {
        err[0] = '\0';
    }
    return check_case(&c, 0, case_obj, &(int){0});
}

static bitcts_status check_cases(vctx *c, const json_t *r)
{
    const json_t *cases = NULL;
    size_t counts[BITCTS_VERDICT_COUNT] = {0};
    bitcts_status st = need_kind(c, r, "cases", JSON_ARRAY, &cases);
    if (st != BITCTS_OK) {
        return st;
    }
    const size_t n = json_array_size(cases);
    if (n > BITCTS_REPORT_MAX_CASES) {
        return vfail(c, BITCTS_E_PARSE, "has %zu cases, more than the %u supported", n,
                     BITCTS_REPORT_MAX_CASES);
    }
    for (size_t i = 0; i < n; ++i) {
        int verdict = -1;
        if ((st = check_case(c, i, json_array_get(cases, i), &verdict)) != BITCTS_OK) {
            return st;
        }
        ++counts[verdict];
    }
    c->where[0] = '\0';
    if ((st = check_unique_ids(c, r)) != BITCTS_OK) {
        return st;
    }
    return check_summary(c, r, counts, n);
}

bitcts_status bitcts_report_validate(const json_t *report, const char *name, char *err, size_t cap)
{
    vctx c = {.name = name != NULL ? name : "(report)", .err = err, .cap = cap};
    if (err != NULL && cap) {
        err[0] = '\0';
    }
    if (report == NULL) {
        return vfail(&c, BITCTS_E_INVALID_ARGUMENT, "no report given");
    }
    bitcts_status st = check_schema(&c, report);
    if (st == BITCTS_OK) {
        st = check_top(&c, report);
    }
    if (st == BITCTS_OK) {
        st = check_sections(&c, report);
    }
    if (st == BITCTS_OK) {
        st = check_cases(&c, report);
    }
    if (st == BITCTS_OK) {
        st = check_slowest(&c, report);
    }
    return st;
}

bitcts_status bitcts_report_parse(const char *name, const char *bytes, size_t size, json_t **out,
                                  char *err, size_t cap)
{
    vctx c = {.name = name != NULL ? name : "(report)", .err = err, .cap = cap};
    if (err != NULL && cap) {
        err[0] = '\0';
    }
    if (out == NULL || (bytes == NULL && size)) {
        return vfail(&c, BITCTS_E_INVALID_ARGUMENT, "invalid arguments");
    }
    *out = NULL;
    if (size > BITCTS_REPORT_MAX_BYTES) {
        return vfail(&c, BITCTS_E_PARSE, "is larger than %zu bytes", BITCTS_REPORT_MAX_BYTES);
    }
    json_error_t jerr;
    json_t *report = json_loadb(bytes != NULL ? bytes : "", size, JSON_REJECT_DUPLICATES, &jerr);
    if (report == NULL) {
        char q[200];
        snprintf(q, sizeof q, "%s", jerr.text);
        for (char *p = q; *p; ++p) { /* jansson quotes the bytes near the error as they are */
            *p = (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p;
        }
        return vfail(&c, BITCTS_E_PARSE, "malformed JSON at line %d column %d: %s", jerr.line,
                     jerr.column, q);
    }
    const bitcts_status st = bitcts_report_validate(report, c.name, err, cap);
    if (st != BITCTS_OK) {
        json_decref(report);
        return st;
    }
    *out = report;
    return BITCTS_OK;
}

/* ---- recomputed parts ---- */

json_t *bitcts_report_summarize(const json_t *cases)
{
    size_t counts[BITCTS_VERDICT_COUNT] = {0};
    const size_t n = json_array_size(cases);
    for (size_t i = 0; i < n; ++i) {
        const int v = bitcts_report_case_verdict(json_array_get(cases, i));
        if (v < 0) {
            return NULL;
        }
        ++counts[v];
    }
    json_t *by = json_object();
    json_t *summary = json_pack("{s:I, s:o}", "total", (json_int_t)n, "by_verdict", by);
    for (int v = 0; summary != NULL && v < BITCTS_VERDICT_COUNT; ++v) {
        if (counts[v] && json_object_set_new(by, bitcts_verdict_name(v),
                                             json_integer((json_int_t)counts[v])) != 0) {
            json_decref(summary);
            return NULL;
        }
    }
    return summary;
}

typedef struct timed_case {
    double ms;
    const char *id;
} timed_case;

static int compare_slowest(const void *a, const void *b)
{
    const timed_case *x = a;
    const timed_case *y = b;
    if (x->ms != y->ms) {
        return x->ms < y->ms ? 1 : -1;
    }
    return strcmp(x->id, y->id);
}

json_t *bitcts_report_slowest(const json_t *cases, size_t limit)
{
    const size_t n = json_array_size(cases);
    timed_case *all = malloc((n ? n : 1) * sizeof *all);
    json_t *out = json_array();
    if (all == NULL || out == NULL) {
        free(all);
        json_decref(out);
        return NULL;
    }
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        const json_t *c = json_array_get(cases, i);
        const char *id = json_string_value(json_object_get(c, "id"));
        if (id != NULL) {
            all[count++] = (timed_case){.ms = bitcts_report_num(c, "duration_ms"), .id = id};
        }
    }
    qsort(all, count, sizeof *all, compare_slowest);
    for (size_t i = 0; i < count && i < limit; ++i) {
        if (json_array_append_new(
                out, json_pack("{s:s, s:f}", "id", all[i].id, "duration_ms", all[i].ms)) != 0) {
            json_decref(out);
            out = NULL;
            break;
        }
    }
    free(all);
    return out;
}

/* ---- counts by operator ---- */

static int compare_tallies(const void *a, const void *b)
{
    const bitcts_report_op_tally *x = a;
    const bitcts_report_op_tally *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

static int tally_case(bitcts_report_tally *t, bitcts_report_op_tally *row, const json_t *c)
{
    const int verdict = bitcts_report_case_verdict(c);
    if (verdict < 0) {
        return -1;
    }
    ++row->count;
    ++row->verdicts[verdict];
    ++t->totals[verdict];
    row->ms += bitcts_report_num(c, "duration_ms");
    if (verdict == BITCTS_VERDICT_RECORDED) {
        const int p = bitcts_report_policy_parse(bitcts_report_str(c, "policy"));
        row->policies[p < 0 ? BITCTS_REPORT_POLICY_COUNT - 1 : p]++;
        t->policies[p < 0 ? BITCTS_REPORT_POLICY_COUNT - 1 : p]++;
    }
    return 0;
}

/* Sorting (operator, position) pairs groups the cases in O(n log n) whatever the number of
 * operators; sorting the groups by their first position restores the plan's operator order. */
bitcts_status bitcts_report_tally_create(const json_t *report, bitcts_report_tally **out)
{
    const json_t *cases = json_object_get(report, "cases");
    if (out == NULL || !json_is_array(cases)) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    const size_t n = json_array_size(cases);
    bitcts_report_tally *t = calloc(1, sizeof *t);
    bitcts__report_keyed *pairs = malloc((n ? n : 1) * sizeof *pairs);
    if (t != NULL) {
        t->order = malloc((n ? n : 1) * sizeof *t->order);
        t->ops = calloc(n ? n : 1, sizeof *t->ops);
    }
    if (t == NULL || pairs == NULL || t->order == NULL || t->ops == NULL) {
        free(pairs);
        bitcts_report_tally_destroy(t);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    t->n = n;
    for (size_t i = 0; i < n; ++i) {
        pairs[i] = (bitcts__report_keyed){
            .key = bitcts_report_str(json_array_get(cases, i), "operator"), .pos = i};
    }
    qsort(pairs, n, sizeof *pairs, bitcts__report_keyed_cmp);
    for (size_t i = 0; i < n; ++i) {
        t->order[i] = pairs[i].pos;
        if (!t->n_ops || strcmp(t->ops[t->n_ops - 1].name, pairs[i].key) != 0) {
            t->ops[t->n_ops++] =
                (bitcts_report_op_tally){.name = pairs[i].key, .first = pairs[i].pos, .start = i};
        }
        if (tally_case(t, &t->ops[t->n_ops - 1], json_array_get(cases, pairs[i].pos)) != 0) {
            free(pairs);
            bitcts_report_tally_destroy(t);
            return BITCTS_E_INVALID_ARGUMENT;
        }
    }
    free(pairs);
    qsort(t->ops, t->n_ops, sizeof *t->ops, compare_tallies);
    *out = t;
    return BITCTS_OK;
}

void bitcts_report_tally_destroy(bitcts_report_tally *tally)
{
    if (tally == NULL) {
        return;
    }
    free(tally->order);
    free(tally->ops);
    free(tally);
}
