/* SPDX-License-Identifier: MIT */
/* One case at a time: generate, compute the expected output with the reference, lay the
 * buffers out with guard bands and a poisoned output, call the backend, compare. */
#include <errno.h>  /* errno */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* memcpy */
#include <unistd.h> /* write */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "case_result.h"
#include "clock.h"
#include "ref_ops.h"
#include "validate.h"
#include "worker.h"

static void send_text(int fd, const char *text, size_t len)
{
    while (len > 0) {
        const ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return; /* the parent is gone; nothing to report to */
        }
        text += n;
        len -= (size_t)n;
    }
}

static void send_mark(int fd, char kind, size_t index)
{
    char line[32];
    const int n = snprintf(line, sizeof line, "%c %zu\n", kind, index);
    send_text(fd, line, (size_t)n);
}

void bitcts_worker_abi_desc(const bitcts_op_desc *desc, bitcts_abi_tensor tensors[3],
                            bitcts_abi_operator_desc *out)
{
    for (uint32_t t = 0; t <= desc->input_count; ++t) {
        const bitcts_tensor_desc *d = t < desc->input_count ? &desc->inputs[t] : &desc->output;
        bitcts_abi_tensor *a = &tensors[t];
        memset(a, 0, sizeof *a);
        a->struct_size = sizeof *a;
        a->data_type = d->data_type;
        a->flags = d->flags;
        a->dimension_count = d->dimension_count;
        a->sizes = d->sizes;
        a->strides = d->has_strides ? d->strides : NULL;
        a->total_tensor_size_in_bytes = d->total_tensor_size_in_bytes;
        a->guaranteed_base_offset_alignment = d->guaranteed_base_offset_alignment;
    }
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->operator_type = desc->op;
    out->input_count = desc->input_count;
    out->inputs = tensors;
    out->output = &tensors[desc->input_count];
}

/* Why the backend's claimed capabilities exclude the case, or NULL. */
static const char *unsupported_reason(const bitcts_backend *b, const bitcts_case_key *k,
                                      int in_place, char *buf, size_t cap)
{
    const bitcts_abi_op_caps *c = bitcts_backend_op_caps(b, k->op);
    if (c == NULL) {
        snprintf(buf, cap, "%s is not among the backend's operators", bitcts_op_name(k->op));
    } else if (!(c->input_types & (1u << k->in_type))) {
        snprintf(buf, cap, "input type %s is not claimed", bitcts_dtype_name(k->in_type));
    } else if (!(c->output_types & (1u << k->out_type))) {
        snprintf(buf, cap, "output type %s is not claimed", bitcts_dtype_name(k->out_type));
    } else if (!(c->dimension_counts & (1u << k->rank))) {
        snprintf(buf, cap, "DimensionCount %u is not claimed", k->rank);
    } else if (in_place && !(c->flags & BITCTS_ABI_CAP_IN_PLACE)) {
        snprintf(buf, cap, "in-place execution is not claimed");
    } else {
        return NULL;
    }
    return buf;
}

/* NotSupported is a failure when the backend's claimed feature level requires the case. */
static void not_supported(const bitcts_backend *b, const bitcts_case_key *k, const char *reason,
                          bitcts_case_result *r)
{
    char fl[8], have[8];
    bitcts_fl_format(k->feature_level, fl, sizeof fl);
    bitcts_fl_format(b->caps.feature_level, have, sizeof have);
    if (k->feature_level <= b->caps.feature_level) {
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail,
                 "not supported (%s), but the claimed feature level %s requires it (case needs %s)",
                 reason, have, fl);
    } else {
        r->verdict = BITCTS_VERDICT_NOT_SUPPORTED;
        snprintf(r->detail, sizeof r->detail, "%s (case needs feature level %s; backend claims %s)",
                 reason, fl, have);
    }
}

static const char *last_error(const bitcts_backend *b, void *instance)
{
    const char *e =
        b->table->instance_last_error != NULL ? b->table->instance_last_error(instance) : NULL;
    return e != NULL && *e ? e : "no detail";
}

static void run_negative(const bitcts_worker_ctx *ctx, void *instance, size_t idx,
                         const bitcts_case_data *data, bitcts_case_result *r)
{
    const bitcts_case_key *k = &ctx->plan->cases[idx];
    bitcts_abi_tensor tensors[3];
    bitcts_abi_operator_desc desc;
    bitcts_worker_abi_desc(&data->desc, tensors, &desc);
    void *op = NULL;
    send_mark(ctx->fd, 'P', idx);
    const double t0 = 1e3 * bitcts_clock_now();
    const int32_t st = ctx->backend->table->operator_create(instance, &desc, &op);
    r->duration_ms = 1e3 * bitcts_clock_now() - t0;
    send_mark(ctx->fd, 'C', idx);
    if (st == BITCTS_ABI_OK) {
        ctx->backend->table->operator_destroy(instance, op);
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail, "accepted an invalid description (rule %s: %s)",
                 bitcts_rule_id((int)k->rule), bitcts_rule_text((int)k->rule));
    } else {
        r->verdict = BITCTS_VERDICT_PASS;
        snprintf(r->detail, sizeof r->detail, "rejected (rule %s) with status %d: %s",
                 bitcts_rule_id((int)k->rule), st, last_error(ctx->backend, instance));
    }
}

/* The buffers of one execution: guarded copies of the inputs, the output (or the alias). */
typedef struct exec_buffers {
    uint8_t *in[2];
    uint8_t *out; /* owned unless it aliases an input */
    uint8_t *out_before;
    uint8_t *expected[2]; /* [0] saturate (or the only one), [1] mask */
} exec_buffers;

static void free_buffers(exec_buffers *x, int alias)
{
    bitcts_guarded_free(x->in[0]);
    bitcts_guarded_free(x->in[1]);
    if (alias < 0) {
        bitcts_guarded_free(x->out);
    }
    free(x->out_before);
    free(x->expected[0]);
    free(x->expected[1]);
}

static int prepare_buffers(const bitcts_case_data *d, int recorded, exec_buffers *x)
{
    memset(x, 0, sizeof *x);
    if (bitcts_case_expected(d, BITCTS_SHIFT_POLICY_SATURATE, &x->expected[0]) != BITCTS_OK) {
        return -1;
    }
    if (recorded &&
        bitcts_case_expected(d, BITCTS_SHIFT_POLICY_MASK, &x->expected[1]) != BITCTS_OK) {
        return -1;
    }
    for (uint32_t i = 0; i < d->desc.input_count; ++i) {
        const uint64_t size = d->desc.inputs[i].total_tensor_size_in_bytes;
        if (((x->in[i] = bitcts_guarded_alloc(size)) == NULL)) {
            return -1;
        }
        memcpy(x->in[i], d->inputs[i], (size_t)size);
    }
    const uint64_t out_size = d->desc.output.total_tensor_size_in_bytes;
    if (d->alias_input >= 0) {
        x->out = x->in[d->alias_input];
    } else {
        if (((x->out = bitcts_guarded_alloc(out_size)) == NULL)) {
            return -1;
        }
        memcpy(x->out, d->output, (size_t)out_size);
        bitcts_compare_poison(&d->desc, x->expected[0], x->expected[1], x->out);
    }
    if (((x->out_before = malloc((size_t)out_size + 1)) == NULL)) {
        return -1;
    }
    memcpy(x->out_before, x->out, (size_t)out_size);
    return 0;
}

static void run_valid(const bitcts_worker_ctx *ctx, void *instance, size_t idx,
                      const bitcts_case_data *d, bitcts_case_result *r)
{
    const bitcts_case_key *k = &ctx->plan->cases[idx];
    const bitcts_backend *b = ctx->backend;
    char why[160];
    const char *reason = unsupported_reason(b, k, d->alias_input >= 0, why, sizeof why);
    if (reason != NULL) {
        not_supported(b, k, reason, r);
        return;
    }
    exec_buffers x;
    const int recorded = bitcts_case_is_recorded(k);
    if (prepare_buffers(d, recorded, &x) != 0) {
        free_buffers(&x, d->alias_input);
        snprintf(r->detail, sizeof r->detail, "out of memory preparing the buffers");
        return; /* internal_error */
    }
    bitcts_abi_tensor tensors[3];
    bitcts_abi_operator_desc desc;
    bitcts_worker_abi_desc(&d->desc, tensors, &desc);
    const void *inputs[2] = {x.in[0], x.in[1]};
    void *op = NULL;
    send_mark(ctx->fd, 'P', idx);
    const double t0 = 1e3 * bitcts_clock_now();
    int32_t st = b->table->operator_create(instance, &desc, &op);
    int32_t exec_st = BITCTS_ABI_OK;
    if (st == BITCTS_ABI_OK) {
        exec_st = b->table->operator_execute(instance, op, inputs, x.out);
        b->table->operator_destroy(instance, op);
    }
    r->duration_ms = 1e3 * bitcts_clock_now() - t0;
    send_mark(ctx->fd, 'C', idx);
    if (st == BITCTS_ABI_E_NOT_SUPPORTED) {
        char text[200];
        snprintf(text, sizeof text, "operator_create: %s", last_error(b, instance));
        not_supported(b, k, text, r);
    } else if (st != BITCTS_ABI_OK || exec_st != BITCTS_ABI_OK) {
        r->verdict = BITCTS_VERDICT_FAIL;
        snprintf(r->detail, sizeof r->detail, "%s returned status %d (%s): %s",
                 st != BITCTS_ABI_OK ? "operator_create" : "operator_execute",
                 st != BITCTS_ABI_OK ? st : exec_st,
                 bitcts_status_name(st != BITCTS_ABI_OK ? st : exec_st), last_error(b, instance));
    } else {
        bitcts_compare_args args = {.desc = &d->desc,
                                    .alias_input = d->alias_input,
                                    .recorded = recorded,
                                    .inputs_before = {d->inputs[0], d->inputs[1]},
                                    .inputs_after = {x.in[0], x.in[1]},
                                    .output_before = x.out_before,
                                    .output_after = x.out,
                                    .expected = x.expected[0],
                                    .expected_mask = x.expected[1]};
        if (bitcts_compare_case(&args, r) != BITCTS_OK) {
            r->verdict = BITCTS_VERDICT_INTERNAL_ERROR;
            snprintf(r->detail, sizeof r->detail, "out of memory while comparing");
        }
    }
    free_buffers(&x, d->alias_input);
}

/* Sends "E <index> <case object>" with the case's repro line. */
static void send_result(const bitcts_worker_ctx *ctx, size_t idx, const bitcts_case_result *r)
{
    const bitcts_case_key *k = &ctx->plan->cases[idx];
    char repro[512];
    bitcts_case_repro(ctx->backend_spec, ctx->repro_options, ctx->seed, k->id, repro, sizeof repro);
    json_t *obj = bitcts_case_result_json(k, idx, r, repro);
    char *text = json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(obj);
    if (text == NULL) {
        return; /* the parent reports the case as an internal error */
    }
    char head[32];
    const int n = snprintf(head, sizeof head, "E %zu ", idx);
    send_text(ctx->fd, head, (size_t)n);
    send_text(ctx->fd, text, strlen(text));
    send_text(ctx->fd, "\n", 1);
    free(text);
}

static void run_case(const bitcts_worker_ctx *ctx, void *instance, size_t idx)
{
    const bitcts_case_key *k = &ctx->plan->cases[idx];
    bitcts_case_result r;
    memset(&r, 0, sizeof r);
    r.verdict = BITCTS_VERDICT_INTERNAL_ERROR;
    send_mark(ctx->fd, 'B', idx);
    bitcts_case_data data;
    const int st = bitcts_case_build(ctx->seed, k, &data);
    if (st != BITCTS_OK) {
        snprintf(r.detail, sizeof r.detail, "cannot generate the case: %s",
                 bitcts_status_message(st));
    } else if (k->pattern == BITCTS_PAT_INVALID) {
        run_negative(ctx, instance, idx, &data, &r);
    } else {
        run_valid(ctx, instance, idx, &data, &r);
    }
    bitcts_case_free(&data);
    send_result(ctx, idx, &r);
}

void bitcts_worker_run(const bitcts_worker_ctx *ctx, const size_t *indices, size_t count)
{
    char err[512];
    void *instance = NULL;
    if (bitcts_backend_instance(ctx->backend, &instance, err, sizeof err) != BITCTS_OK) {
        /* Every case of the batch fails with the reason; nothing runs. */
        for (size_t i = 0; i < count; ++i) {
            bitcts_case_result r;
            memset(&r, 0, sizeof r);
            r.verdict = BITCTS_VERDICT_FAIL;
            snprintf(r.detail, sizeof r.detail, "in the worker: %s", err);
            send_mark(ctx->fd, 'B', indices[i]);
            send_result(ctx, indices[i], &r);
        }
        return;
    }
    for (size_t i = 0; i < count; ++i) {
        run_case(ctx, instance, indices[i]);
    }
    ctx->backend->table->instance_destroy(instance);
}
