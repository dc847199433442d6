/* SPDX-License-Identifier: MIT */
/* The "bitcts_device_timing_v1" extension: operators and copies timed on the device with
 * timestamp queries around each dispatch, on buffers that stay resident in device-local
 * memory, so transfers are never part of a figure. The copy reference comes two ways:
 * vkCmdCopyBuffer, and the packed shader's copy operator (same grid, same 16-byte accesses).
 * Before the timed runs, untimed ones in the same submission (some 50 ms of them, sized by one
 * run timed alone) bring the device out of its idle clocks: a GPU left idle while the host checked
 * the last outputs runs its next kernels at a fraction of its clock (an H100 dropped from 1980 to
 * 345 MHz and timed half its bandwidth). One such round is not always enough: under a bench that
 * keeps it busy a tenth of the time an H100 held its clock at 555-1125 MHz for seconds, and 50 ms
 * of work did not raise it. So rounds of warm-up and timed runs repeat, with no transfers between
 * them, until a round's median is no more than 1 % faster than the last round's (at most the
 * option timing_rounds: by default 40, but 1 on a CPU device such as lavapipe, whose clock is
 * the host's and whose noise would only repeat rounds); the last round's times are the result. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc, qsort */
#include <string.h> /* memset */

#include "vk_internal.h"

typedef struct vk_timing_ctx {
    const bitcts__vk_operator *op; /* NULL: a copy */
    const uint32_t *operand_slot;
    uint32_t reps;
    uint32_t warmup;    /* untimed runs before the timed ones */
    uint32_t aliased;   /* in place: restore the input before each run */
    uint32_t saved;     /* in place: the input is already in the pristine slot */
    VkDeviceSize bytes; /* copies: length; in place: the output's span */
    VkQueryPool queries;
} vk_timing_ctx;

/* Untimed runs before the timed ones: some 50 ms of work as one run took when timed alone
 * (none where one run takes that long: a slow device, or a huge tensor), at most 4096. */
#define VK_WARMUP_NS 50000000ull
static uint32_t vk_warmup_runs(uint64_t one_run_ns)
{
    const uint64_t n = VK_WARMUP_NS / (one_run_ns == 0 ? 1 : one_run_ns);
    return n > 4096 ? 4096u : (uint32_t)n;
}

static int32_t vk_timing_begin(bitcts__vk_instance *inst, uint32_t reps, VkQueryPool *pool)
{
    if (inst->timestamp_bits == 0) {
        snprintf(inst->last_error, sizeof inst->last_error,
                 "the compute queue has no timestamps (timestampValidBits 0)");
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    const VkQueryPoolCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = 2 * reps,
    };
    const VkResult r = inst->vk.vkCreateQueryPool(inst->device, &info, NULL, pool);
    return r == VK_SUCCESS ? BITCTS_ABI_OK : bitcts__vk_fail(inst, r, "vkCreateQueryPool");
}

static int32_t vk_timing_results(bitcts__vk_instance *inst, VkQueryPool pool, uint32_t reps,
                                 uint64_t *ns)
{
    for (uint32_t i = 0; i < reps; ++i) {
        uint64_t t[2] = {0, 0};
        const VkResult r =
            inst->vk.vkGetQueryPoolResults(inst->device, pool, 2 * i, 2, sizeof t, t, sizeof t[0],
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (r != VK_SUCCESS) {
            return bitcts__vk_fail(inst, r, "vkGetQueryPoolResults");
        }
        const uint64_t mask =
            inst->timestamp_bits >= 64 ? ~0ull : (1ull << inst->timestamp_bits) - 1;
        const uint64_t ticks = (t[1] - t[0]) & mask;
        ns[i] = (uint64_t)((double)ticks * inst->timestamp_period + 0.5);
    }
    return BITCTS_ABI_OK;
}

static void vk_copy_slot(bitcts__vk_instance *inst, uint32_t from, uint32_t to, VkDeviceSize n)
{
    const VkBufferCopy region = {0, 0, n};
    inst->vk.vkCmdCopyBuffer(inst->cmd, inst->slots[from].buffer, inst->slots[to].buffer, 1,
                             &region);
}

/* Between runs: every earlier write done before the next run reads or writes. */
static void vk_between_runs(bitcts__vk_instance *inst)
{
    const VkPipelineStageFlags stages =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    const VkAccessFlags access = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                 VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    bitcts__vk_barrier(inst, stages, access, stages, access);
}

static int32_t vk_record_timed(bitcts__vk_instance *inst, void *arg)
{
    const vk_timing_ctx *c = arg;
    inst->vk.vkCmdResetQueryPool(inst->cmd, c->queries, 0, 2 * c->reps);
    if (c->aliased && !c->saved) {
        vk_copy_slot(inst, BITCTS__VK_SLOT_OUT, BITCTS__VK_SLOT_PRISTINE, c->bytes);
    }
    for (uint32_t i = 0; i < c->warmup; ++i) { /* restored below where in place */
        vk_between_runs(inst);
        if (c->op != NULL) {
            bitcts__vk_record_dispatch(inst, c->op, c->operand_slot);
        } else {
            vk_copy_slot(inst, BITCTS__VK_SLOT_A, BITCTS__VK_SLOT_OUT, c->bytes);
        }
    }
    for (uint32_t i = 0; i < c->reps; ++i) {
        if (c->aliased && (i > 0 || c->warmup > 0 || c->saved)) {
            vk_between_runs(inst);
            vk_copy_slot(inst, BITCTS__VK_SLOT_PRISTINE, BITCTS__VK_SLOT_OUT, c->bytes);
        }
        vk_between_runs(inst);
        inst->vk.vkCmdWriteTimestamp(inst->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, c->queries,
                                     2 * i);
        if (c->op != NULL) { /* an operator, or the copy shader */
            bitcts__vk_record_dispatch(inst, c->op, c->operand_slot);
        } else {
            vk_copy_slot(inst, BITCTS__VK_SLOT_A, BITCTS__VK_SLOT_OUT, c->bytes);
        }
        inst->vk.vkCmdWriteTimestamp(inst->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, c->queries,
                                     2 * i + 1);
    }
    return BITCTS_ABI_OK;
}

static int vk_cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x;
    const uint64_t b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static uint64_t vk_median(const uint64_t *ns, uint32_t n, uint64_t *scratch)
{
    memcpy(scratch, ns, n * sizeof ns[0]);
    qsort(scratch, n, sizeof scratch[0], vk_cmp_u64);
    return scratch[n / 2];
}

#define VK_STEADY_GAIN 0.01

/* The timed rounds, the buffers already on the device and ns[0] one run timed alone (it sizes
 * each round's warm-up): until the clocks are steady (see the top of the file). */
static int32_t vk_time_steady(bitcts__vk_instance *inst, vk_timing_ctx *c, uint32_t reps,
                              uint64_t *ns)
{
    uint64_t *scratch = malloc(reps * sizeof *scratch);
    if (scratch == NULL) {
        snprintf(inst->last_error, sizeof inst->last_error, "out of host memory for %u times",
                 reps);
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    c->reps = reps;
    c->warmup = vk_warmup_runs(ns[0]);
    int32_t rc = BITCTS_ABI_OK;
    uint64_t last = 0;
    for (uint32_t round = 0; round < inst->timing_rounds && rc == BITCTS_ABI_OK; ++round) {
        rc = bitcts__vk_run(inst, NULL, 0, NULL, 0, vk_record_timed, c);
        if (rc == BITCTS_ABI_OK) {
            rc = vk_timing_results(inst, c->queries, reps, ns);
        }
        const uint64_t median = rc == BITCTS_ABI_OK ? vk_median(ns, reps, scratch) : 0;
        if (round > 0 && (double)median >= (double)last * (1.0 - VK_STEADY_GAIN)) {
            break;
        }
        last = median;
    }
    free(scratch);
    return rc;
}

static int32_t vk_record_nothing(bitcts__vk_instance *inst, void *arg)
{
    (void)inst;
    (void)arg;
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL vk_time_execute(void *instance, void *op,
                                                  const void *const *inputs, void *output,
                                                  uint32_t reps, uint64_t *ns)
{
    bitcts__vk_instance *inst = instance;
    const bitcts__vk_operator *oper = op;
    if (inst == NULL || oper == NULL || inputs == NULL || output == NULL || ns == NULL ||
        reps == 0 || inputs[0] == NULL || (oper->plan.input_count == 2 && inputs[1] == NULL)) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (inst->state != BITCTS__VK_STATE_OK) {
        snprintf(inst->last_error, sizeof inst->last_error, "the device is lost or wedged");
        return BITCTS_ABI_E_DEVICE;
    }
    bitcts__vk_exec_io io;
    int32_t rc = bitcts__vk_exec_prepare(inst, oper, inputs, output, &io);
    vk_timing_ctx ctx = {.op = oper, .operand_slot = io.operand_slot, .reps = reps};
    ctx.aliased =
        io.operand_slot[BITCTS__VK_A] == BITCTS__VK_SLOT_OUT ||
        (oper->plan.input_count == 2 && io.operand_slot[BITCTS__VK_B] == BITCTS__VK_SLOT_OUT);
    ctx.bytes = oper->plan.span[BITCTS__VK_OUT];
    if (rc == BITCTS_ABI_OK && ctx.aliased) {
        rc = bitcts__vk_slot_reserve(inst, BITCTS__VK_SLOT_PRISTINE, ctx.bytes);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_timing_begin(inst, reps, &ctx.queries);
    }
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    /* The inputs up and one run timed alone (it sizes the warm-up; in place it also saves the
     * input to the pristine slot); the timed rounds; then the output of the last run down. */
    ctx.reps = 1;
    rc = bitcts__vk_run(inst, io.up, io.n_up, io.down, 0, vk_record_timed, &ctx);
    if (rc == BITCTS_ABI_OK) {
        rc = vk_timing_results(inst, ctx.queries, 1, ns);
    }
    ctx.saved = 1;
    if (rc == BITCTS_ABI_OK) {
        rc = vk_time_steady(inst, &ctx, reps, ns);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_run(inst, NULL, 0, io.down, io.n_down, vk_record_nothing, NULL);
    }
    inst->vk.vkDestroyQueryPool(inst->device, ctx.queries, NULL);
    return rc;
}

static int32_t vk_copy_operator(bitcts__vk_instance *inst, uint64_t bytes, bitcts__vk_operator *op)
{
    memset(op, 0, sizeof *op);
    const int32_t rc = bitcts__vk_plan_copy(bytes, &inst->opt, &inst->limits, &op->plan,
                                            inst->last_error, sizeof inst->last_error);
    return rc != BITCTS_ABI_OK ? rc : bitcts__vk_pipeline_get(inst, &op->plan.key, &op->pipeline);
}

static int32_t BITCTS_PLUGIN_CALL vk_time_copy(void *instance, uint64_t bytes, uint32_t method,
                                               uint32_t reps, uint64_t *ns)
{
    bitcts__vk_instance *inst = instance;
    if (inst == NULL || ns == NULL || reps == 0 || bytes == 0 || bytes > 4ull * UINT32_MAX) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (method != BITCTS_ABI_COPY_API && method != BITCTS_ABI_COPY_KERNEL) {
        snprintf(inst->last_error, sizeof inst->last_error, "copy method %u is unknown", method);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    if (inst->state != BITCTS__VK_STATE_OK) {
        snprintf(inst->last_error, sizeof inst->last_error, "the device is lost or wedged");
        return BITCTS_ABI_E_DEVICE;
    }
    bitcts__vk_operator op;
    const uint32_t operand_slot[3] = {BITCTS__VK_SLOT_OUT, BITCTS__VK_SLOT_A, BITCTS__VK_SLOT_A};
    vk_timing_ctx ctx = {.operand_slot = operand_slot, .reps = reps, .bytes = bytes};
    int32_t rc = bitcts__vk_slot_reserve(inst, BITCTS__VK_SLOT_A, bytes);
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_slot_reserve(inst, BITCTS__VK_SLOT_OUT, bytes);
    }
    if (rc == BITCTS_ABI_OK && method == BITCTS_ABI_COPY_KERNEL) {
        rc = vk_copy_operator(inst, bytes, &op);
        ctx.op = &op;
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_timing_begin(inst, reps, &ctx.queries);
    }
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    /* The source filled and one copy timed alone (it sizes the warm-up); the timed rounds. */
    ctx.reps = 1;
    rc = bitcts__vk_begin(inst);
    if (rc == BITCTS_ABI_OK) {
        inst->vk.vkCmdFillBuffer(inst->cmd, inst->slots[BITCTS__VK_SLOT_A].buffer, 0,
                                 (bytes + 3) & ~3ull, 0x5A5A5A5Au);
        vk_record_timed(inst, &ctx);
        rc = bitcts__vk_submit_wait(inst, "timed copy");
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_timing_results(inst, ctx.queries, 1, ns);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_time_steady(inst, &ctx, reps, ns);
    }
    inst->vk.vkDestroyQueryPool(inst->device, ctx.queries, NULL);
    return rc;
}

const bitcts_abi_device_timing_ext bitcts__vk_timing_ext = {
    .struct_size = sizeof(bitcts_abi_device_timing_ext),
    .time_execute = vk_time_execute,
    .time_copy = vk_time_copy,
};
