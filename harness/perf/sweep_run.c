/* SPDX-License-Identifier: MIT */
/* The sweep's parent: checks the request, resolves the backend without loading it, runs the
 * child (harness/perf/sweep.c) under the supervisor, and believes only what it can parse: every
 * line is read with strict number parsing and checked against the sweep's own bounds, every string
 * is sanitised again. A child that did not end cleanly fails the sweep, whatever it sent. */
#include <math.h>   /* isfinite */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtoull */
#include <string.h> /* strncmp */

#include "bitcts/bitcts_status.h"
#include "perf_child.h"
#include "sanitize.h"
#include "supervise.h"
#include "sweep.h"
#include "tensor_model.h"

int bitcts_sweep_check(const bitcts_sweep_config *cfg, uint64_t *total, char *err, size_t cap)
{
    const uint32_t width = bitcts_dtype_size(cfg->type) * 8;
    const int unary = bitcts_op_input_count(cfg->op) == 1;
    if (bitcts_op_index(cfg->op) < 0 || width == 0 ||
        bitcts_fl_required(cfg->op, cfg->type, cfg->out_type, 1) == 0) {
        snprintf(err, cap, "%s does not take %s -> %s", bitcts_op_name(cfg->op),
                 bitcts_dtype_name(cfg->type), bitcts_dtype_name(cfg->out_type));
        return BITCTS_E_INVALID_ARGUMENT;
    }
    if (width > (unary ? 32u : 16u)) {
        snprintf(err, cap, "%s over %s is not sweepable (at most %u-bit types)",
                 bitcts_op_name(cfg->op), bitcts_dtype_name(cfg->type), unary ? 32u : 16u);
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *total = 1ull << (unary ? width : 2 * width);
    return BITCTS_OK;
}

typedef struct sweep_parent {
    bitcts_sweep_result *r;
    int got_result;
    int refusal_status;
    char refusal[1100];
    int chunk_status;
    int violation; /* a V line: the backend broke what a chunk's calls were lent */
    char chunk_text[700];
    char internal[300];
    int has_current;
    uint64_t current; /* the chunk that began last */
} sweep_parent;

/* A whole unsigned decimal number, then one space or the end; advances *p. */
static int take_u64(char **p, uint64_t *out)
{
    char *end = NULL;
    if (**p < '0' || **p > '9') {
        return -1;
    }
    *out = strtoull(*p, &end, 10);
    if (end == *p || (*end != ' ' && *end != '\0')) {
        return -1;
    }
    *p = *end == ' ' ? end + 1 : end;
    return 0;
}

static int take_double(char **p, double *out)
{
    char *end = NULL;
    *out = strtod(*p, &end);
    if (end == *p || (*end != ' ' && *end != '\0') || !isfinite(*out)) {
        return -1;
    }
    *p = *end == ' ' ? end + 1 : end;
    return 0;
}

/* "status text": a status number, then text. */
static int take_status(char *p, int *status, char *text, size_t cap)
{
    char *end = NULL;
    const long st = strtol(p, &end, 10);
    if (end == p || st <= 0 || st > 999) {
        return -1;
    }
    *status = (int)st;
    bitcts_sanitize_again(*end == ' ' ? end + 1 : end, 4096, text, cap);
    return 0;
}

static int take_result(sweep_parent *p, char *line)
{
    bitcts_sweep_result *r = p->r;
    uint64_t v[7];
    double d[4];
    for (int i = 0; i < 7; ++i) {
        if (take_u64(&line, &v[i]) != 0) {
            return -1;
        }
    }
    for (int i = 0; i < 4; ++i) {
        if (take_double(&line, &d[i]) != 0) {
            return -1;
        }
    }
    if (v[0] > r->total || v[1] > r->chunks_total || v[2] > v[0] || v[3] >= r->total ||
        v[4] > v[0] || v[5] > v[4] || v[6] > v[4] || strlen(line) != 32 ||
        strspn(line, "0123456789abcdef") != 32 || d[0] < 0 || d[2] < 0 || d[3] < 0) {
        return -1;
    }
    r->checked = v[0];
    r->chunks = v[1];
    r->mismatches = v[2];
    r->first_bad = v[3];
    r->oob = v[4];
    r->oob_mask = v[5];
    r->oob_saturate = v[6];
    r->backend_seconds = d[0];
    r->device_seconds = d[1] >= 0 ? d[1] : -1;
    r->fill_seconds = d[2];
    r->check_seconds = d[3];
    snprintf(r->digest, sizeof r->digest, "%s", line);
    p->got_result = 1;
    return 0;
}

static int on_line(void *user, char *line)
{
    sweep_parent *p = user;
    char *rest = line[0] != '\0' && line[1] == ' ' ? line + 2 : NULL;
    uint64_t n = 0;
    if (rest == NULL) {
        return -1;
    }
    switch (line[0]) {
    case 'S': return take_status(rest, &p->refusal_status, p->refusal, sizeof p->refusal);
    case 'I':
        if (p->r->backend == NULL) {
            p->r->backend = json_loads(rest, JSON_REJECT_DUPLICATES, NULL);
            return json_is_object(p->r->backend) ? 0 : -1;
        }
        return -1;
    case 'T': return strcmp(rest, "0") == 0 || strcmp(rest, "1") == 0 ? 0 : -1;
    case 'N':
        if (take_u64(&rest, &n) != 0 || n >= p->r->total) {
            return -1;
        }
        p->current = n;
        p->has_current = 1;
        return 0;
    case 'B':
        if (take_u64(&rest, &n) != 0 || n >= p->r->total) {
            return -1;
        }
        p->r->failed_chunk = n;
        return take_status(rest, &p->chunk_status, p->chunk_text, sizeof p->chunk_text);
    case 'V':
        if (p->violation || take_u64(&rest, &n) != 0 || n >= p->r->total) {
            return -1;
        }
        p->violation = 1;
        p->r->failed_chunk = n;
        bitcts_sanitize_again(rest, 4096, p->chunk_text, sizeof p->chunk_text);
        return 0;
    case 'E': bitcts_sanitize_again(rest, 4096, p->internal, sizeof p->internal); return 0;
    case 'R': return p->got_result ? -1 : take_result(p, rest);
    default: return -1;
    }
}

/* What the child ended with, as the sweep's status and one line in err. */
static int settle(const bitcts_sweep_config *cfg, sweep_parent *p,
                  const bitcts_supervise_result *sv, char *err, size_t cap)
{
    char where[160] = "";
    if (p->has_current) {
        snprintf(where, sizeof where, " (the chunk starting at element %llu of %s %s)",
                 (unsigned long long)p->current, bitcts_op_name(cfg->op),
                 bitcts_dtype_name(cfg->type));
    }
    const bitcts__perf_end end = {p->refusal_status, p->refusal, p->internal, where};
    const int st = bitcts__perf_settle(sv, &end, &p->r->refused, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    if (p->violation) {
        snprintf(err, cap, "the chunk starting at element %llu: %s",
                 (unsigned long long)p->r->failed_chunk, p->chunk_text);
        return BITCTS_E_BACKEND_FAILED;
    }
    if (p->chunk_status != 0) {
        snprintf(err, cap, "the backend returned status %d: %s", p->chunk_status, p->chunk_text);
        return BITCTS_E_BACKEND_FAILED;
    }
    if (!p->got_result) {
        snprintf(err, cap, "the sweep's process ended without a result");
        return BITCTS_E_INTERNAL;
    }
    return BITCTS_OK;
}

int bitcts_sweep_run(const bitcts_sweep_config *cfg, bitcts_sweep_result *out, char *err,
                     size_t cap)
{
    memset(out, 0, sizeof *out);
    out->device_seconds = -1;
    int st = bitcts_sweep_check(cfg, &out->total, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    const uint64_t chunk = 1ull << BITCTS_SWEEP_CHUNK_LOG2;
    const uint64_t chunks = (out->total + chunk - 1) / chunk;
    const uint32_t every = cfg->every > 1 ? cfg->every : 1;
    out->chunks_total = (chunks + every - 1) / every;
    sweep_parent p;
    memset(&p, 0, sizeof p);
    p.r = out;
    const bitcts__perf_launch launch =
        BITCTS__PERF_LAUNCH(cfg, bitcts__sweep_child_main, on_line, &p);
    bitcts_supervise_result sv;
    if ((st = bitcts__perf_run(&launch, &out->refused, &sv, err, cap)) != BITCTS_OK) {
        return st;
    }
    out->seconds = sv.seconds;
    return settle(cfg, &p, &sv, err, cap);
}

static json_t *number_or_null(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

json_t *bitcts_sweep_json(const bitcts_sweep_config *cfg, const bitcts_sweep_result *r,
                          const char *error)
{
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f}",
        "schema", "bitcts-sweep/1", "op", bitcts_op_name(cfg->op), "type",
        bitcts_dtype_name(cfg->type), "out_type", bitcts_dtype_name(cfg->out_type), "every",
        (json_int_t)(cfg->every > 1 ? cfg->every : 1), "total", (json_int_t)r->total, "checked",
        (json_int_t)r->checked, "chunks", (json_int_t)r->chunks, "chunks_total",
        (json_int_t)r->chunks_total, "mismatches", (json_int_t)r->mismatches, "oob",
        (json_int_t)r->oob, "oob_mask", (json_int_t)r->oob_mask, "oob_saturate",
        (json_int_t)r->oob_saturate, "seconds", r->seconds, "backend_seconds", r->backend_seconds,
        "fill_seconds", r->fill_seconds, "check_seconds", r->check_seconds);
    if (o == NULL) {
        return NULL;
    }
    json_object_set_new(o, "device_seconds", number_or_null(r->device_seconds));
    json_object_set_new(o, "first_bad",
                        r->mismatches > 0 ? json_integer((json_int_t)r->first_bad) : json_null());
    json_object_set_new(o, "digest_xxh3_128",
                        r->digest[0] != '\0' ? json_string(r->digest) : json_null());
    json_object_set_new(o, "backend", r->backend != NULL ? json_incref(r->backend) : json_null());
    json_object_set_new(o, "error",
                        error != NULL && error[0] != '\0' ? json_string(error) : json_null());
    json_object_set_new(
        o, "passed",
        json_boolean((error == NULL || error[0] == '\0') && r->mismatches == 0 && r->checked > 0));
    return o;
}

void bitcts_sweep_result_free(bitcts_sweep_result *r)
{
    if (r != NULL) {
        json_decref(r->backend);
        r->backend = NULL;
    }
}
