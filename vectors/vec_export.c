/* SPDX-License-Identifier: MIT */
/* The vector exporter (docs/vector-format.md, format 2.0). Each case's bytes depend on (seed, id)
 * alone: its input buffers and initial output buffer, and the expected output buffers that
 * cannot be derived from those, are blobs in one data file per operator (data/<op>.bin, at
 * 64-byte aligned offsets), so a tier is a handful of files rather than three per case. An
 * operator's file is kept in memory and written whole when the plan moves to another operator
 * or when it reaches EXPORT_FILE_CAP bytes (then data/<op>.<k>.bin follows), which bounds the
 * memory whatever the selection. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strlen */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_version.h"
#include "case_initial.h"
#include "case_json.h"
#include "digest.h"
#include "ref_ops.h"
#include "vec_export.h"
#include "vec_results.h"

#define EXPORT_ALIGN 64u             /* a blob's offset: any element type, any alignment */
#define EXPORT_FILE_CAP (256u << 20) /* bytes of a data file before the next one starts */

typedef struct export_ctx {
    const bitcts_vec_sink *sink;
    int have_data_dir;
    int op_slot;                        /* bitcts_op_index of the open file's operator; -1: none */
    unsigned files_of[BITCTS_OP_COUNT]; /* data files started per operator */
    char path[64];                      /* the open data file */
    uint8_t *buf;                       /* its bytes so far */
    size_t len, room;
    bitcts_export_stats *stats;
    char *err;
    size_t cap;
} export_ctx;

/* Writes the open data file, if it holds anything. */
static int flush_data(export_ctx *x)
{
    if (x->len == 0) {
        return BITCTS_OK;
    }
    int st = BITCTS_OK;
    if (!x->have_data_dir) {
        st = x->sink->make_dir(x->sink->user, "data", x->err, x->cap);
        x->have_data_dir = st == BITCTS_OK;
    }
    if (st == BITCTS_OK) {
        st = x->sink->write_file(x->sink->user, x->path, x->buf, x->len, x->err, x->cap);
    }
    ++x->stats->files;
    x->stats->bytes += x->len;
    x->len = 0;
    return st;
}

/* Makes the open data file the operator's, starting a new one on a change or at the cap. */
static int use_data_file(export_ctx *x, uint32_t op, uint64_t need)
{
    const int slot = bitcts_op_index(op);
    if (slot < 0) {
        snprintf(x->err, x->cap, "operator %u has no data file", (unsigned)op);
        return BITCTS_E_INTERNAL;
    }
    if (slot == x->op_slot && (x->len == 0 || x->len + need <= EXPORT_FILE_CAP)) {
        return BITCTS_OK;
    }
    const int st = flush_data(x);
    const unsigned k = ++x->files_of[slot];
    if (k == 1) {
        snprintf(x->path, sizeof x->path, "data/%s.bin", bitcts_op_name(op));
    } else {
        snprintf(x->path, sizeof x->path, "data/%s.%u.bin", bitcts_op_name(op), k);
    }
    x->op_slot = slot;
    return st;
}

/* The digests of a buffer into a record: xxh3_128 and crc32. */
static void put_digests(json_t *record, const uint8_t *data, uint64_t bytes)
{
    char digest[BITCTS_DIGEST_HEX], crc[9];
    bitcts_digest_bytes(data, (size_t)bytes, digest);
    snprintf(crc, sizeof crc, "%08x", (unsigned)bitcts_crc32(0, data, (size_t)bytes));
    json_object_set_new(record, "bytes", json_integer((json_int_t)bytes));
    json_object_set_new(record, "xxh3_128", json_string(digest));
    json_object_set_new(record, "crc32", json_string(crc));
}

/* Appends a blob to the operator's data file; its record {path, offset, bytes, xxh3_128, crc32}
 * into *record (NULL on failure, err set). */
static int add_blob(export_ctx *x, uint32_t op, const uint8_t *data, uint64_t bytes,
                    json_t **record)
{
    *record = NULL;
    const int st = use_data_file(x, op, bytes);
    if (st != BITCTS_OK) {
        return st;
    }
    const size_t at = (x->len + EXPORT_ALIGN - 1) / EXPORT_ALIGN * EXPORT_ALIGN;
    if (at + bytes > x->room) {
        size_t room = x->room ? x->room : (size_t)1 << 20;
        while (room < at + bytes) {
            room *= 2;
        }
        uint8_t *grown = realloc(x->buf, room);
        if (grown == NULL) {
            snprintf(x->err, x->cap, "out of memory");
            return BITCTS_E_OUT_OF_MEMORY;
        }
        x->buf = grown;
        x->room = room;
    }
    memset(x->buf + x->len, 0, at - x->len);
    memcpy(x->buf + at, data, (size_t)bytes);
    x->len = at + (size_t)bytes;
    *record = json_pack("{s:s, s:I}", "path", x->path, "offset", (json_int_t)at);
    put_digests(*record, data, bytes);
    return BITCTS_OK;
}

/* The expected buffers of a valid case: saturate (the only one when not recorded) and mask. */
typedef struct case_outputs {
    uint8_t *expected;
    uint8_t *mask; /* recorded cases only */
    uint8_t *initial;
} case_outputs;

static int compute_outputs(const bitcts_case_key *key, const bitcts_case_data *d, case_outputs *o,
                           char *err, size_t cap)
{
    const size_t bytes = (size_t)d->desc.output.total_tensor_size_in_bytes;
    const int recorded = bitcts_case_is_recorded(key);
    o->expected = malloc(bytes + 1);
    o->mask = recorded ? malloc(bytes + 1) : NULL;
    o->initial = malloc(bytes + 1);
    if (o->expected == NULL || o->initial == NULL || (recorded && o->mask == NULL)) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    int st = bitcts_case_expected_into(d, BITCTS_SHIFT_POLICY_SATURATE, o->expected);
    if (st == BITCTS_OK && recorded) {
        st = bitcts_case_expected_into(d, BITCTS_SHIFT_POLICY_MASK, o->mask);
    }
    if (st != BITCTS_OK) {
        snprintf(err, cap, "case %s: the reference failed (%s)", key->id,
                 bitcts_status_message(st));
        return BITCTS_E_INTERNAL;
    }
    /* As bitcts_case_initial_into, from the expected buffers already computed. */
    memcpy(o->initial, d->alias_input >= 0 ? d->inputs[d->alias_input] : d->output, bytes);
    if (d->alias_input < 0) {
        bitcts_case_poison(&d->desc, o->expected, o->mask, o->initial);
    }
    return BITCTS_OK;
}

/* An expected buffer's record into *record: its digests, and its bytes as a blob unless
 * `derivable` (the initial output buffer with every logical element complemented). */
static int expected_record(export_ctx *x, const bitcts_case_data *d, const uint8_t *buf,
                           int derivable, json_t **record)
{
    const uint64_t bytes = d->desc.output.total_tensor_size_in_bytes;
    int st = BITCTS_OK;
    if (derivable) {
        *record = json_object();
    } else {
        st = add_blob(x, d->desc.op, buf, bytes, record);
    }
    if (st == BITCTS_OK) {
        char logical[BITCTS_DIGEST_HEX];
        put_digests(*record, buf, bytes);
        bitcts_digest_logical(&d->desc.output, buf, logical);
        json_object_set_new(*record, "logical_xxh3_128", json_string(logical));
    }
    return st;
}

/* The input blobs into "files" and, unless in place, the initial output buffer's into
 * "initial". */
static int export_inputs(export_ctx *x, const bitcts_case_data *d, const uint8_t *initial,
                         json_t *entry)
{
    int st = BITCTS_OK;
    json_t *files = json_object();
    for (uint32_t i = 0; st == BITCTS_OK && i < d->desc.input_count; ++i) {
        json_t *rec = NULL;
        st = add_blob(x, d->desc.op, d->inputs[i], d->desc.inputs[i].total_tensor_size_in_bytes,
                      &rec);
        json_object_set_new(files, bitcts_role_name(d->desc.input_count, i), rec);
    }
    json_object_set_new(entry, "files", files);
    if (st == BITCTS_OK && d->alias_input < 0) {
        json_t *rec = NULL;
        st = add_blob(x, d->desc.op, initial, d->desc.output.total_tensor_size_in_bytes, &rec);
        json_object_set_new(entry, "initial", rec);
    }
    return st;
}

/* A valid case's blobs and records into its entry. */
static int export_buffers(export_ctx *x, const bitcts_case_key *key, const bitcts_case_data *d,
                          json_t *entry)
{
    case_outputs o = {NULL, NULL, NULL};
    int st = compute_outputs(key, d, &o, x->err, x->cap);
    if (st == BITCTS_OK) {
        st = export_inputs(x, d, o.initial, entry);
    }
    if (st == BITCTS_OK && o.mask != NULL) {
        json_t *mask = NULL;
        json_t *saturate = NULL;
        st = expected_record(x, d, o.mask, 0, &mask);
        if (st == BITCTS_OK) {
            st = expected_record(x, d, o.expected, 0, &saturate);
        }
        json_object_set_new(entry, "expected_by_policy",
                            json_pack("{s:o*, s:o*}", "mask", mask, "saturate", saturate));
    } else if (st == BITCTS_OK) {
        json_t *rec = NULL;
        st = expected_record(x, d, o.expected, d->alias_input < 0, &rec);
        json_object_set_new(entry, "expected", rec);
    }
    free(o.expected);
    free(o.mask);
    free(o.initial);
    return st;
}

static int export_case(export_ctx *x, uint64_t seed, const bitcts_plan *plan, size_t index,
                       json_t *cases)
{
    const bitcts_case_key *key = &plan->cases[index];
    bitcts_case_data d;
    int st = bitcts_plan_case_data(plan, index, seed, &d);
    if (st != BITCTS_OK) {
        snprintf(x->err, x->cap, "case %s: cannot build (%s)", key->id, bitcts_status_message(st));
        return st;
    }
    json_t *entry = bitcts_json_case_exported(key, &d);
    if (key->pattern != BITCTS_PAT_INVALID) {
        st = export_buffers(x, key, &d, entry);
    }
    bitcts_case_free(&d);
    json_array_append_new(cases, entry);
    ++x->stats->cases;
    return st;
}

int bitcts_vectors_export(const bitcts_plan *plan, const bitcts_export_options *opt,
                          const bitcts_vec_sink *sink, bitcts_export_stats *stats, char *err,
                          size_t cap)
{
    memset(stats, 0, sizeof *stats);
    int st = BITCTS_OK;
    export_ctx x = {.sink = sink, .op_slot = -1, .stats = stats, .err = err, .cap = cap};
    json_t *cases = json_array();
    for (size_t i = 0; st == BITCTS_OK && i < plan->count; ++i) {
        if (opt->every_case || bitcts_selection_matches(&opt->selection, &plan->cases[i])) {
            st = export_case(&x, opt->seed, plan, i, cases);
        }
    }
    if (st == BITCTS_OK) {
        st = flush_data(&x);
    }
    free(x.buf);
    char seed[19], fl[8] = "", filter[BITCTS_MAX_FILTERS * 320];
    bitcts_format_u64(opt->seed, seed);
    bitcts_filter_join(&opt->selection.filter, filter, sizeof filter);
    char exclude[BITCTS_MAX_FILTERS * 320];
    bitcts_exclude_join(&opt->selection.exclude, exclude, sizeof exclude);
    if (opt->selection.max_feature_level) {
        bitcts_fl_format(opt->selection.max_feature_level, fl, sizeof fl);
    }
    json_t *manifest = json_pack(
        "{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:[s, s], s:I, s:o}", "format",
        BITCTS_VECTOR_FORMAT, "format_version", BITCTS_VECTOR_FORMAT_VERSION, "suite_version",
        BITCTS_VERSION_STRING, "generator_version", (json_int_t)BITCTS_GENERATOR_VERSION, "seed",
        seed, "tier", opt->tier_text != NULL ? opt->tier_text : "default", "filter", filter,
        "exclude", exclude, "max_feature_level", fl, "digest_algorithms", "XXH3-128", "CRC-32",
        "case_count", (json_int_t)stats->cases, "cases", cases);
    if (st == BITCTS_OK) {
        char *text = json_dumps(manifest, JSON_INDENT(1) | JSON_ENSURE_ASCII);
        st = text != NULL
                 ? sink->write_file(sink->user, "manifest.json", text, strlen(text), err, cap)
                 : BITCTS_E_OUT_OF_MEMORY;
        free(text);
    }
    json_decref(manifest);
    return st;
}
