/* SPDX-License-Identifier: MIT */
/* The check driver (harness/judge/check_run.h): manifest and results.json in, the judge of bitcts
 * run (compare.c) over each case, the report builder out. The expected outputs are never read from
 * the export: every case is rebuilt from (seed, id) with the generators and the reference, so a
 * damaged export cannot make a wrong result pass. Result files are mapped read-only, one at a
 * time (a producer usually writes one file for every case). */
#include <errno.h>    /* errno */
#include <fcntl.h>    /* open */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc */
#include <string.h>   /* strcmp */
#include <sys/mman.h> /* mmap */
#include <sys/stat.h> /* fstat */
#include <time.h>     /* time */
#include <unistd.h>   /* close */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "bitcts/bitcts_version.h"
#include "case_json.h"
#include "case_result.h"
#include "check_run.h"
#include "clock.h"
#include "compare.h"
#include "explore.h"
#include "fs_util.h"
#include "ref_ops.h"
#include "report.h"
#include "report_files.h"
#include "sanitize.h"
#include "self_exe.h"
#include "skips.h"
#include "source_commit.h"
#include "tensor_iter.h"
#include "vec_results.h"

#define CHECK_MAX_JSON ((size_t)1 << 30)

/* The result file mapped now. */
typedef struct mapped_file {
    char path[4200];
    const uint8_t *data;
    size_t size;
    int open_errno;   /* the file could not be opened or mapped: errno */
    const char *kind; /* when it is not a regular file: what it is (bitcts_fs_kind_name) */
} mapped_file;

typedef struct check_state {
    const bitcts_check_config *cfg;
    bitcts_check_result *out;
    const char *results_dir;
    char results_json[4200];
    bitcts_plan *plan;
    bitcts_export_manifest manifest;
    bitcts_result_set results;
    mapped_file file;
    bitcts_case_key extra;    /* a case outside the plan (explored, or shrunk): its key */
    size_t plan_cursor;       /* where the last case was found in the plan */
    bitcts_skips skips;       /* --skips */
    bitcts_problem_sink sink; /* cfg->problem, counted in out->problems */
} check_state;

static void unmap(mapped_file *f)
{
    if (f->data != NULL && f->size > 0) {
        munmap((void *)f->data, f->size);
    }
    memset(f, 0, sizeof *f);
}

/* Maps results_dir/rel (kept until another file is asked for). @return 0, or -1 with errno
 * kept in f->open_errno. */
static int map_file(check_state *s, const char *rel)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", s->results_dir, rel);
    if (strcmp(path, s->file.path) == 0) {
        return s->file.open_errno != 0 ? -1 : 0;
    }
    unmap(&s->file);
    snprintf(s->file.path, sizeof s->file.path, "%s", path);
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block */
    struct stat st;
    const int stated = fd >= 0 && fstat(fd, &st) == 0;
    if (!stated || !S_ISREG(st.st_mode)) {
        s->file.open_errno = fd < 0 ? errno : EINVAL;
        s->file.kind = stated ? bitcts_fs_kind_name((unsigned)st.st_mode) : NULL;
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    s->file.size = (size_t)st.st_size;
    if (s->file.size > 0) {
        void *p = mmap(NULL, s->file.size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            s->file.open_errno = errno;
            s->file.size = 0;
            close(fd);
            return -1;
        }
        s->file.data = p;
    }
    close(fd);
    return 0;
}

/* The producer's bytes of a DONE entry, checked against the entry and the size the case needs:
 * NULL with why set when they cannot be believed. */
static const uint8_t *result_bytes(check_state *s, const bitcts_result_entry *e, uint64_t need,
                                   char *why, size_t cap)
{
    if (e->bytes != need) {
        snprintf(why, cap, "%s: %s: \"bytes\" is %llu, the %s of this case is %llu bytes",
                 s->results_json, e->id, (unsigned long long)e->bytes,
                 e->layout == BITCTS_RESULT_BUFFER ? "output buffer" : "logical output",
                 (unsigned long long)need);
        return NULL;
    }
    if (map_file(s, e->path) != 0) {
        if (s->file.kind != NULL) {
            snprintf(why, cap, "%s: %s: %s/%s is %s, not a regular file", s->results_json, e->id,
                     s->results_dir, e->path, s->file.kind);
        } else {
            snprintf(why, cap, "%s: %s: cannot read %s: %s", s->results_json, e->id, e->path,
                     strerror(s->file.open_errno));
        }
        return NULL;
    }
    if (e->offset > s->file.size || s->file.size - e->offset < e->bytes) {
        snprintf(why, cap, "%s/%s: truncated: holds %zu bytes, case %s needs bytes %llu to %llu",
                 s->results_dir, e->path, s->file.size, e->id, (unsigned long long)e->offset,
                 (unsigned long long)(e->offset + e->bytes));
        return NULL;
    }
    const uint8_t *p = s->file.data + e->offset;
    const uint32_t crc = bitcts_crc32(0, p, (size_t)e->bytes);
    if (crc != e->crc32) {
        snprintf(why, cap,
                 "%s/%s: case %s: crc32 of bytes %llu to %llu is %08x, results.json says %08x",
                 s->results_dir, e->path, e->id, (unsigned long long)e->offset,
                 (unsigned long long)(e->offset + e->bytes), crc, e->crc32);
        return NULL;
    }
    return p;
}

/* Scatters the logical elements (row-major, packed) into the output buffer `out`. */
static void scatter_elements(const bitcts_op_desc *d, const uint8_t *elements, uint8_t *out)
{
    const uint32_t w = bitcts_dtype_size(d->output.data_type);
    bitcts_tensor_iter it;
    uint64_t k = 0;
    for (bitcts_tensor_iter_init_op(&it, d); bitcts_tensor_iter_more(&it);
         bitcts_tensor_iter_next(&it), ++k) {
        memcpy(out + it.offset[d->input_count] * w, elements + k * w, w);
    }
}

static void set_verdict(bitcts_case_result *r, int verdict, const char *fmt, const char *a,
                        const char *b)
{
    char raw[1200];
    r->verdict = verdict;
    snprintf(raw, sizeof raw, fmt, a, b);
    bitcts_sanitize_string(raw, sizeof raw, r->detail, sizeof r->detail);
}

/* A negative case: the producer had to refuse its description. */
static void judge_negative(const bitcts_case_key *key, const bitcts_result_entry *e,
                           bitcts_case_result *r)
{
    const char *rule = bitcts_rule_id((int)key->rule);
    switch (e->status) {
    case BITCTS_RESULT_REJECTED: r->verdict = BITCTS_VERDICT_PASS; break;
    case BITCTS_RESULT_NOT_SUPPORTED:
        set_verdict(r, BITCTS_VERDICT_NOT_SUPPORTED, "not supported by the producer: %s%s",
                    e->reason, "");
        break;
    case BITCTS_RESULT_ERROR:
        set_verdict(r, BITCTS_VERDICT_FAIL, "the producer failed: %s%s", e->reason, "");
        break;
    default:
        set_verdict(r, BITCTS_VERDICT_FAIL,
                    "accepted a description that breaks rule %s (a negative case)%s", rule, "");
        break;
    }
}

/* ---- cases outside the plan ---- */

/* A key marks a case whose data is the export's own (a shrunk case): explore's pattern, an id
 * that is not explore.<index>, and this index. */
#define CHECK_FIXED_INDEX UINT32_MAX

static int is_fixed(const bitcts_case_key *key)
{
    return key->pattern == BITCTS_PAT_EXPLORE && key->index == CHECK_FIXED_INDEX;
}

static const json_t *manifest_entry(const check_state *s, const char *id)
{
    const json_t *cases = json_object_get(s->manifest.root, "cases");
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        if (strcmp(bitcts_report_str(c, "id"), id) == 0) {
            return c;
        }
    }
    return NULL;
}

/* The key of a case the plan does not hold: an explored case from its index, or a case whose
 * entry describes it whole (tensors and files: the shrunk cases of `bitcts explore` and of
 * `bitcts run --shrink`). 0 or -1. */
static int key_outside_plan(check_state *s, const char *id, bitcts_case_key *key)
{
    const int64_t ex = bitcts_explore_parse_id(id);
    if (ex >= 0) {
        return bitcts_explore_key(s->manifest.seed, (uint64_t)ex, key) == BITCTS_OK ? 0 : -1;
    }
    const json_t *e = manifest_entry(s, id);
    const size_t len = strlen(id);
    const char tail[] = ".shrunk"; /* a shrunk plan case (run --shrink) keeps its pattern */
    const int shrunk = len > sizeof tail && strcmp(id + len - (sizeof tail - 1), tail) == 0;
    if (e == NULL || (strcmp(bitcts_report_str(e, "pattern"), "explore") != 0 && !shrunk) ||
        !json_is_array(json_object_get(e, "tensors")) || len >= sizeof key->id) {
        return -1;
    }
    memset(key, 0, sizeof *key);
    snprintf(key->id, sizeof key->id, "%s", id);
    key->op = (uint32_t)json_integer_value(json_object_get(e, "operator_type"));
    key->in_type = bitcts_dtype_parse(bitcts_report_str(e, "input_type"));
    key->out_type = bitcts_dtype_parse(bitcts_report_str(e, "output_type"));
    key->rank = (uint32_t)json_integer_value(json_object_get(e, "rank"));
    key->pattern = BITCTS_PAT_EXPLORE;
    key->index = CHECK_FIXED_INDEX;
    for (uint32_t v = 0; v <= BITCTS_VALUES_ENUMERATED; ++v) {
        if (strcmp(bitcts_values_name(v), bitcts_report_str(e, "values")) == 0) {
            key->values = v;
        }
    }
    key->feature_level = bitcts_fl_required(key->op, key->in_type, key->out_type, key->rank);
    return bitcts_op_name(key->op) != NULL && key->rank >= 1 && key->rank <= BITCTS_MAX_DIMS ? 0
                                                                                             : -1;
}

/* One exported blob of the case, exactly `bytes` long, into a new buffer: the record's file
 * from its "offset" (format 2.0; 0 when absent, as in 1.x). */
static uint8_t *export_file(const check_state *s, const json_t *rec, uint64_t bytes)
{
    char path[4400], err[256];
    snprintf(path, sizeof path, "%s/%s", s->cfg->export_dir, bitcts_report_str(rec, "path"));
    const json_t *at = json_object_get(rec, "offset");
    const json_int_t offset = at != NULL ? json_integer_value(at) : 0;
    int fd = -1;
    if (strstr(bitcts_report_str(rec, "path"), "..") != NULL || offset < 0 ||
        (at != NULL && !json_is_integer(at)) || bytes > ((uint64_t)1 << 32) ||
        bitcts_fs_open_regular(path, (size_t)1 << 40, &fd, err, sizeof err) != BITCTS_OK) {
        return NULL;
    }
    uint8_t *buf = aligned_alloc(64, ((size_t)bytes + 64) & ~(size_t)63);
    const ssize_t got = buf != NULL ? pread(fd, buf, (size_t)bytes, (off_t)offset) : -1;
    close(fd);
    if (got < 0 || (uint64_t)got != bytes) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A shrunk case's data, from its entry: the descriptions, the input blobs, and as the output
 * buffer the initial one (1.x: expected.bin; its padding is the initial buffer's, and the
 * elements are replaced anyway). */
static int fixed_case_data(const check_state *s, const bitcts_case_key *key, bitcts_case_data *d)
{
    memset(d, 0, sizeof *d);
    d->alias_input = -1;
    const json_t *e = manifest_entry(s, key->id);
    const json_t *tensors = json_object_get(e, "tensors");
    const size_t n = json_array_size(tensors);
    if (e == NULL || n < 2 || n > 3) {
        return BITCTS_E_PARSE;
    }
    d->desc.op = key->op;
    d->desc.input_count = (uint32_t)(n - 1);
    for (size_t t = 0; t < n; ++t) {
        const json_t *j = json_array_get(tensors, t);
        bitcts_tensor_desc *td = t + 1 < n ? &d->desc.inputs[t] : &d->desc.output;
        td->data_type = (uint32_t)json_integer_value(json_object_get(j, "DataTypeValue"));
        td->flags = (uint32_t)json_integer_value(json_object_get(j, "Flags"));
        td->dimension_count = (uint32_t)json_integer_value(json_object_get(j, "DimensionCount"));
        td->total_tensor_size_in_bytes =
            (uint64_t)json_integer_value(json_object_get(j, "TotalTensorSizeInBytes"));
        td->guaranteed_base_offset_alignment =
            (uint32_t)json_integer_value(json_object_get(j, "GuaranteedBaseOffsetAlignment"));
        const json_t *sizes = json_object_get(j, "Sizes");
        const json_t *strides = json_object_get(j, "Strides");
        if (td->dimension_count < 1 || td->dimension_count > BITCTS_MAX_DIMS ||
            json_array_size(sizes) != td->dimension_count ||
            td->total_tensor_size_in_bytes > ((uint64_t)1 << 32)) {
            return BITCTS_E_PARSE;
        }
        td->has_strides = json_is_array(strides);
        for (uint32_t k = 0; k < td->dimension_count; ++k) {
            td->sizes[k] = (uint32_t)json_integer_value(json_array_get(sizes, k));
            td->strides[k] =
                td->has_strides ? (uint32_t)json_integer_value(json_array_get(strides, k)) : 0;
        }
    }
    const char *alias = json_string_value(json_object_get(e, "output_aliases"));
    const json_t *files = json_object_get(e, "files");
    for (uint32_t i = 0; i < d->desc.input_count; ++i) {
        const char *role = bitcts_role_name(d->desc.input_count, i);
        d->inputs[i] = export_file(s, json_object_get(files, role),
                                   d->desc.inputs[i].total_tensor_size_in_bytes);
        if (d->inputs[i] == NULL) {
            bitcts_case_free(d);
            return BITCTS_E_IO;
        }
        if (alias != NULL && strcmp(alias, role) == 0) {
            d->alias_input = (int)i;
        }
    }
    if (d->alias_input >= 0) {
        d->output = d->inputs[d->alias_input];
        return BITCTS_OK;
    }
    const json_t *initial = json_object_get(e, "initial"); /* 1.x: expected.bin */
    d->owned_output = export_file(s, initial != NULL ? initial : json_object_get(e, "expected"),
                                  d->desc.output.total_tensor_size_in_bytes);
    if (d->owned_output == NULL) {
        bitcts_case_free(d);
        return BITCTS_E_IO;
    }
    d->output = d->owned_output;
    return BITCTS_OK;
}

/* A valid case with a DONE entry: the producer's output through the judge of bitcts run. */
static int judge_output(check_state *s, const bitcts_case_key *key, const bitcts_result_entry *e,
                        bitcts_case_result *r)
{
    bitcts_case_data d;
    int st =
        is_fixed(key) ? fixed_case_data(s, key, &d) : bitcts_case_build(s->manifest.seed, key, &d);
    if (st != BITCTS_OK && is_fixed(key)) { /* the export's own files: the producer's is fine */
        set_verdict(r, BITCTS_VERDICT_INTERNAL_ERROR,
                    "%s/manifest.json: case %s: its files "
                    "cannot be read whole",
                    s->cfg->export_dir, key->id);
        bitcts_problem_say(&s->sink, "%s/manifest.json: case %s: its files cannot be read whole",
                           s->cfg->export_dir, key->id);
        return BITCTS_OK;
    }
    if (st != BITCTS_OK) {
        return st;
    }
    const bitcts_op_desc *desc = &d.desc;
    const int recorded = bitcts_case_is_recorded(key);
    const size_t out_bytes = (size_t)desc->output.total_tensor_size_in_bytes;
    const uint64_t logical =
        bitcts_tensor_element_count(&desc->output) * bitcts_dtype_size(desc->output.data_type);
    uint8_t *expected = malloc(out_bytes + 1);
    uint8_t *expected_mask = recorded ? malloc(out_bytes + 1) : NULL;
    uint8_t *before = malloc(out_bytes + 1);
    uint8_t *after = malloc(out_bytes + 1);
    if (expected == NULL || before == NULL || after == NULL ||
        (recorded && expected_mask == NULL)) {
        st = BITCTS_E_OUT_OF_MEMORY;
        goto cleanup;
    }
    st = bitcts_case_expected_into(&d, BITCTS_SHIFT_POLICY_SATURATE, expected);
    if (st == BITCTS_OK && recorded) {
        st = bitcts_case_expected_into(&d, BITCTS_SHIFT_POLICY_MASK, expected_mask);
    }
    if (st != BITCTS_OK) {
        goto cleanup;
    }
    /* The initial output buffer the producer had to start from (docs/vector-format.md). */
    memcpy(before, d.alias_input >= 0 ? d.inputs[d.alias_input] : d.output, out_bytes);
    if (d.alias_input < 0) {
        bitcts_compare_poison(desc, expected, expected_mask, before);
    }
    char why[1200];
    const uint8_t *bytes = result_bytes(
        s, e, e->layout == BITCTS_RESULT_BUFFER ? out_bytes : logical, why, sizeof why);
    if (bytes == NULL) {
        bitcts_problem_say(&s->sink, "%s", why);
        set_verdict(r, BITCTS_VERDICT_FAIL, "bad result: %s%s", why, "");
        goto cleanup;
    }
    if (e->layout == BITCTS_RESULT_BUFFER) {
        memcpy(after, bytes, out_bytes);
    } else {
        memcpy(after, before, out_bytes);
        scatter_elements(desc, bytes, after);
    }
    bitcts_compare_args a;
    memset(&a, 0, sizeof a);
    a.desc = desc;
    a.alias_input = d.alias_input;
    a.recorded = recorded;
    for (uint32_t t = 0; t < desc->input_count; ++t) {
        a.inputs_before[t] = a.inputs_after[t] = d.inputs[t];
    }
    a.output_before = before;
    a.output_after = after;
    a.expected = expected;
    a.expected_mask = expected_mask;
    st = bitcts_compare_case(&a, r);
cleanup:
    free(expected);
    free(expected_mask);
    free(before);
    free(after);
    bitcts_case_free(&d);
    return st;
}

static int judge_case(check_state *s, const bitcts_case_key *key, bitcts_case_result *r)
{
    memset(r, 0, sizeof *r);
    const bitcts_result_entry *e = bitcts_results_find(&s->results, key->id);
    if (e == NULL) {
        set_verdict(r, BITCTS_VERDICT_MISSING, "no result for this case in %s%s", s->results_json,
                    "");
        return BITCTS_OK;
    }
    if (e->duration_ms >= 0) {
        r->duration_ms = e->duration_ms;
    }
    if (e->status == BITCTS_RESULT_BAD) {
        char why[600];
        snprintf(why, sizeof why, "%s: %s: %s", s->results_json, e->id, e->problem);
        bitcts_problem_say(&s->sink, "%s", why);
        set_verdict(r, BITCTS_VERDICT_FAIL, "bad result: %s%s", why, "");
        return BITCTS_OK;
    }
    if (key->pattern == BITCTS_PAT_INVALID) {
        judge_negative(key, e, r);
        return BITCTS_OK;
    }
    switch (e->status) {
    case BITCTS_RESULT_NOT_SUPPORTED:
        set_verdict(r, BITCTS_VERDICT_NOT_SUPPORTED, "not supported by the producer: %s%s",
                    e->reason, "");
        return BITCTS_OK;
    case BITCTS_RESULT_ERROR:
        set_verdict(r, BITCTS_VERDICT_FAIL, "the producer failed: %s%s", e->reason, "");
        return BITCTS_OK;
    case BITCTS_RESULT_REJECTED:
        set_verdict(r, BITCTS_VERDICT_FAIL, "rejected a valid description%s%s",
                    e->reason[0] != '\0' ? ": " : "", e->reason);
        return BITCTS_OK;
    case BITCTS_RESULT_ACCEPTED:
        set_verdict(r, BITCTS_VERDICT_FAIL, "accepted the description but gave no output%s%s", "",
                    "");
        return BITCTS_OK;
    default: return judge_output(s, key, e, r);
    }
}

/* The export's manifest.json into s->manifest; with out->error set when it cannot be read. */
static int load_manifest(check_state *s)
{
    char path[4200], err[1024] = "";
    char *text = NULL;
    size_t size = 0;
    snprintf(path, sizeof path, "%s/manifest.json", s->cfg->export_dir);
    int st = bitcts_fs_read(path, CHECK_MAX_JSON, &text, &size, err, sizeof err);
    if (st == BITCTS_OK) {
        st = bitcts_export_manifest_parse(text, size, &s->manifest, err, sizeof err);
        free(text);
    }
    if (st != BITCTS_OK) {
        snprintf(s->out->error, sizeof s->out->error, "%s: %s", path, err);
        return st;
    }
    if (s->manifest.generator_version != BITCTS_GENERATOR_VERSION) {
        snprintf(s->out->error, sizeof s->out->error,
                 "%s/manifest.json: generator_version %u, this bitcts generates version %u",
                 s->cfg->export_dir, s->manifest.generator_version, BITCTS_GENERATOR_VERSION);
        return BITCTS_E_FORMAT_VERSION;
    }
    return BITCTS_OK;
}

static int load_inputs(check_state *s)
{
    char err[1024] = "";
    char *text = NULL;
    size_t size = 0;
    int st = load_manifest(s);
    if (st != BITCTS_OK) {
        return st;
    }
    st = bitcts_fs_read(s->results_json, CHECK_MAX_JSON, &text, &size, err, sizeof err);
    if (st == BITCTS_OK) {
        st = bitcts_results_parse(text, size, &s->results, err, sizeof err);
        free(text);
    }
    if (st != BITCTS_OK) {
        snprintf(s->out->error, sizeof s->out->error, "%s: %s", s->results_json, err);
        return st;
    }
    if (s->results.seed != s->manifest.seed ||
        s->results.generator_version != s->manifest.generator_version) {
        snprintf(s->out->error, sizeof s->out->error,
                 "%s: computed from another export (seed or generator version differ from "
                 "%s/manifest.json)",
                 s->results_json, s->cfg->export_dir);
        return BITCTS_E_PARSE;
    }
    if (s->results.unattributed > 0) {
        bitcts_problem_say(&s->sink, "%s: %s (%zu entries without an id ignored)", s->results_json,
                           s->results.first_unattributed, s->results.unattributed);
    }
    return bitcts_plan_create(&s->plan);
}

static json_t *identity_json(check_state *s, double started_wall)
{
    char seed[19], started[32], spec[4200], filter[600], name[300], version[300];
    bitcts_format_u64(s->manifest.seed, seed);
    const time_t wall = (time_t)started_wall;
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
    bitcts_sanitize_string(s->results_dir, 4096, spec, sizeof spec);
    char joined[BITCTS_MAX_FILTERS * 320];
    bitcts_filter_join(&s->cfg->filter, joined, sizeof joined);
    bitcts_sanitize_string(s->cfg->filter.count > 0 ? joined : s->manifest.filter, sizeof joined,
                           filter, sizeof filter);
    char exclude[600];
    const char *manifest_exclude = json_string_value(json_object_get(s->manifest.root, "exclude"));
    bitcts_exclude_join(&s->cfg->exclude, joined, sizeof joined);
    bitcts_sanitize_string(s->cfg->exclude.count > 0  ? joined
                           : manifest_exclude != NULL ? manifest_exclude
                                                      : "",
                           sizeof joined, exclude, sizeof exclude);
    bitcts_sanitize_string(s->results.producer_name, 4096, name, sizeof name);
    bitcts_sanitize_string(s->results.producer_version, 4096, version, sizeof version);
    json_t *info = json_object();
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)s->results.producer_info, key, v)
    {
        char k[200], text[1200];
        json_object_set_new(
            info, bitcts_sanitize_string(key, 4096, k, sizeof k),
            json_string(bitcts_sanitize_string(json_string_value(v), 8192, text, sizeof text)));
    }
    json_object_set_new(info, "checked_by", json_string("bitcts check"));
    json_t *backend =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "spec", spec, "path", spec,
                  "name", name, "vendor", "", "version", version, "build_id", "", "abi_version", "",
                  "feature_level", s->manifest.feature_level, "library_xxh3_128", "", "info", info);
    return json_pack("{s:s, s:s, s:I, s:s, s:O, s:s, s:{s:s, s:s, s:s, s:s, s:s}, s:o, s:o}",
                     "suite_version", BITCTS_VERSION_STRING, "suite_commit", bitcts_source_commit(),
                     "generator_version", (json_int_t)BITCTS_GENERATOR_VERSION, "seed", seed,
                     "command_line",
                     s->cfg->command_line != NULL ? s->cfg->command_line : json_array(), "started",
                     started, "selection", "tier", s->manifest.tier, "filter", filter, "exclude",
                     exclude, "feature_level", s->manifest.feature_level, "shard", "", "backend",
                     backend, "host", bitcts_report_files_host_json());
}

static void repro_line(const check_state *s, const char *id, char *out, size_t cap)
{
    char exe[1024], exe_q[4100], path[1024], dir[4300], res[4300], filter[400], folder[420];
    char sub[128];
    snprintf(sub, sizeof sub, "bitcts-repro/%s", id);
    const size_t used = (size_t)snprintf(
        out, cap, "%s check %s",
        bitcts_shell_quote(bitcts_self_exe(exe, sizeof exe), exe_q, sizeof exe_q),
        bitcts_shell_quote(bitcts_paste_path(s->cfg->export_dir, path, sizeof path), dir,
                           sizeof dir));
    const size_t more = (size_t)snprintf(
        out + used, used < cap ? cap - used : 0, " --results %s --filter %s --report %s",
        bitcts_shell_quote(bitcts_paste_path(s->results_dir, path, sizeof path), res, sizeof res),
        bitcts_shell_quote(id, filter, sizeof filter),
        bitcts_shell_quote(sub, folder, sizeof folder));
    if (s->cfg->skips_path != NULL && used + more < cap) { /* a skipped case stays skipped */
        snprintf(out + used + more, cap - used - more, " --skips %s",
                 bitcts_shell_quote(bitcts_paste_path(s->cfg->skips_path, path, sizeof path), res,
                                    sizeof res));
    }
}

/* The manifest's entry i describes the case the seed builds for its id: every member of the
 * description (bitcts_json_case, or bitcts_json_case_exported from format 2.0) equal. A case
 * another bitcts, or an edit, described otherwise would be judged against a case the producer never
 * saw. 1, or 0 with a problem named. */
static int described_as_built(check_state *s, const bitcts_case_key *key, size_t i)
{
    const json_t *entry = json_array_get(json_object_get(s->manifest.root, "cases"), i);
    bitcts_case_data d;
    if (bitcts_case_build(s->manifest.seed, key, &d) != BITCTS_OK) {
        return 1; /* judged (and reported) as any case the reference cannot build */
    }
    /* 2.x: as the export describes it (a negative case without its verdict). */
    json_t *built = s->manifest.format_major >= 2 ? bitcts_json_case_exported(key, &d)
                                                  : bitcts_json_case(key, &d);
    bitcts_case_free(&d);
    const char *member = NULL;
    const char *k;
    json_t *v;
    json_object_foreach(built, k, v)
    {
        if (member == NULL && !json_equal(v, json_object_get(entry, k))) {
            member = k;
        }
    }
    if (member != NULL) {
        char seed[19];
        bitcts_format_u64(s->manifest.seed, seed);
        bitcts_problem_say(
            &s->sink,
            "%s/manifest.json: case %s: \"%s\" is not what seed %s builds for this id; the "
            "case is not checked",
            s->cfg->export_dir, key->id, member, seed);
    }
    json_decref(built);
    return member == NULL;
}

/* Judges every selected case of the manifest into the builder. */
static int judge_all(check_state *s, bitcts_report_builder *b)
{
    for (size_t i = 0; i < s->manifest.count; ++i) {
        const char *id = s->manifest.ids[i];
        if (!bitcts_ids_select(&s->cfg->filter, &s->cfg->exclude, id)) {
            continue;
        }
        const bitcts_case_key *key = bitcts_plan_find_from(s->plan, id, &s->plan_cursor);
        size_t plan_index = key != NULL ? (size_t)(key - s->plan->cases) : i;
        if (key == NULL && key_outside_plan(s, id, &s->extra) == 0) {
            key = &s->extra; /* explored or shrunk: plan_index is the manifest's */
        }
        if (key == NULL) {
            bitcts_problem_say(
                &s->sink,
                "%s/manifest.json: case %s is not a case of bitcts's plan (nor an explored "
                "or shrunk case); it is not checked",
                s->cfg->export_dir, id);
            continue;
        }
        const bitcts_skip_entry *skip = bitcts_skips_find(&s->skips, id);
        if (skip == NULL && !is_fixed(key) && !described_as_built(s, key, i)) {
            continue;
        }
        bitcts_case_result r;
        int st = BITCTS_OK;
        if (skip != NULL) { /* not judged */
            bitcts_skips_result(&s->skips, skip, &r);
        } else {
            st = judge_case(s, key, &r);
        }
        if (st != BITCTS_OK) {
            snprintf(s->out->error, sizeof s->out->error, "case %s: %s", id,
                     bitcts_status_message(st));
            return st;
        }
        char repro[9000];
        repro_line(s, id, repro, sizeof repro);
        json_t *obj = bitcts_case_result_json(key, plan_index, &r, repro);
        if (obj != NULL) { /* the manifest's description: the one the producer computed from */
            json_object_set_new(
                obj, "description",
                bitcts_case_description(
                    json_array_get(json_object_get(s->manifest.root, "cases"), i), r.verdict));
        }
        s->out->failed |= bitcts_verdict_is_failure(r.verdict);
        ++s->out->cases;
        const int added = bitcts_report_builder_add(b, obj);
        if (added != BITCTS_OK) {
            snprintf(s->out->error, sizeof s->out->error, "out of memory assembling the report");
            return added;
        }
    }
    if (s->out->cases == 0) {
        char filters[700] = "";
        for (size_t f = 0; f < s->cfg->filter.count; ++f) {
            const size_t used = strlen(filters);
            snprintf(filters + used, sizeof filters - used, "%s--filter '%s'", f > 0 ? ", " : "",
                     s->cfg->filter.globs[f]);
        }
        for (size_t f = 0; f < s->cfg->exclude.count; ++f) {
            const size_t used = strlen(filters);
            snprintf(filters + used, sizeof filters - used, "%s--exclude '%s'",
                     used > 0 ? ", " : "", s->cfg->exclude.globs[f]);
        }
        snprintf(s->out->error, sizeof s->out->error,
                 "the selection matches no case of %s/manifest.json (%s cases): %s",
                 s->cfg->export_dir, s->manifest.count > 0 ? "its" : "it has no",
                 filters[0] != '\0' ? filters : "no --filter");
        return BITCTS_E_INVALID_ARGUMENT;
    }
    return BITCTS_OK;
}

int bitcts_check(const bitcts_check_config *cfg, bitcts_check_result *out)
{
    memset(out, 0, sizeof *out);
    check_state s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.out = out;
    s.sink = (bitcts_problem_sink){cfg->problem, cfg->problem_user, &out->problems};
    char default_results[4200];
    snprintf(default_results, sizeof default_results, "%s/results", cfg->export_dir);
    s.results_dir = cfg->results_dir != NULL ? cfg->results_dir : default_results;
    snprintf(s.results_json, sizeof s.results_json, "%s/results.json", s.results_dir);
    const double t0 = bitcts_clock_now();
    const double wall0 = (double)time(NULL);
    int st = cfg->skips_path != NULL
                 ? bitcts_skips_load(cfg->skips_path, &s.skips, out->error, sizeof out->error)
                 : BITCTS_OK;
    if (st == BITCTS_OK) {
        st = load_inputs(&s);
    }
    bitcts_report_builder *b = NULL;
    if (st == BITCTS_OK) {
        json_t *identity = identity_json(&s, wall0);
        st = identity != NULL ? bitcts_report_builder_create(identity, &b) : BITCTS_E_OUT_OF_MEMORY;
        json_decref(identity);
    }
    if (st == BITCTS_OK) {
        st = judge_all(&s, b);
    }
    if (st == BITCTS_OK) {
        char finished[32];
        const time_t wall = time(NULL);
        strftime(finished, sizeof finished, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
        st = bitcts_report_builder_finish(b, finished, bitcts_clock_now() - t0, &out->report,
                                          out->error, sizeof out->error);
    }
    if (st == BITCTS_OK && cfg->report_dir != NULL) {
        st = bitcts_report_files_write(out->report, cfg->report_dir, out->error, sizeof out->error);
    }
    if (st != BITCTS_OK && out->error[0] == '\0') {
        snprintf(out->error, sizeof out->error, "%s", bitcts_status_message(st));
    }
    bitcts_report_builder_destroy(b);
    unmap(&s.file);
    bitcts_plan_destroy(s.plan);
    bitcts_export_manifest_free(&s.manifest);
    bitcts_result_set_free(&s.results);
    bitcts_skips_free(&s.skips);
    return st;
}

void bitcts_check_result_free(bitcts_check_result *r)
{
    if (r != NULL) {
        json_decref(r->report);
        r->report = NULL;
    }
}

/* The problem line of a case the export plan cannot take, as the error. */
static void keep_problem(void *user, const char *line)
{
    bitcts_check_result *out = user;
    if (out->error[0] == '\0') {
        snprintf(out->error, sizeof out->error, "%s", line);
    }
}

/* The key (and, for a shrunk case, the data) of the manifest's case i into plan slot i. */
static int export_case(check_state *s, const bitcts_plan *suite, size_t i, bitcts_plan *plan)
{
    const char *id = s->manifest.ids[i];
    const bitcts_case_key *key = bitcts_plan_find(suite, id);
    if (key == NULL && key_outside_plan(s, id, &s->extra) == 0) {
        key = &s->extra;
    }
    if (key == NULL) {
        bitcts_problem_say(
            &s->sink,
            "%s/manifest.json: case %s is not a case of bitcts's plan (nor an explored or "
            "shrunk case)",
            s->cfg->export_dir, id);
        return BITCTS_E_PARSE;
    }
    if (!is_fixed(key) && !described_as_built(s, key, i)) {
        return BITCTS_E_PARSE;
    }
    plan->cases[i] = *key;
    if (!is_fixed(key)) {
        return BITCTS_OK;
    }
    plan->fixed[i] = malloc(sizeof *plan->fixed[i]);
    if (plan->fixed[i] == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    const int st = fixed_case_data(s, key, plan->fixed[i]);
    if (st != BITCTS_OK) {
        free(plan->fixed[i]);
        plan->fixed[i] = NULL;
        bitcts_problem_say(&s->sink, "%s/manifest.json: case %s: its files cannot be read whole",
                           s->cfg->export_dir, id);
    }
    return st;
}

int bitcts_check_export_plan(const char *export_dir, bitcts_plan **out, uint64_t *seed, char *err,
                             size_t cap)
{
    *out = NULL;
    bitcts_check_result res;
    memset(&res, 0, sizeof res);
    const bitcts_check_config cfg = {
        .export_dir = export_dir, .problem = keep_problem, .problem_user = &res};
    check_state s;
    memset(&s, 0, sizeof s);
    s.cfg = &cfg;
    s.out = &res;
    s.sink = (bitcts_problem_sink){cfg.problem, cfg.problem_user, &res.problems};
    bitcts_plan *suite = NULL;
    bitcts_plan *plan = calloc(1, sizeof *plan);
    int st = plan != NULL ? load_manifest(&s) : BITCTS_E_OUT_OF_MEMORY;
    if (st == BITCTS_OK) {
        plan->count = s.manifest.count;
        plan->cases = calloc(plan->count + 1, sizeof *plan->cases);
        plan->fixed = calloc(plan->count + 1, sizeof *plan->fixed);
        st = plan->cases != NULL && plan->fixed != NULL ? bitcts_plan_create(&suite)
                                                        : BITCTS_E_OUT_OF_MEMORY;
    }
    for (size_t i = 0; st == BITCTS_OK && i < s.manifest.count; ++i) {
        st = export_case(&s, suite, i, plan);
    }
    if (st == BITCTS_OK) {
        *seed = s.manifest.seed;
        *out = plan;
    } else {
        snprintf(err, cap, "%s", res.error[0] != '\0' ? res.error : bitcts_status_message(st));
        bitcts_plan_destroy(plan);
    }
    bitcts_plan_destroy(suite);
    bitcts_export_manifest_free(&s.manifest);
    return st;
}
