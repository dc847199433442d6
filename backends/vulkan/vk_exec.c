/* SPDX-License-Identifier: MIT */
/* Running a planned operator: the pipeline of its plan's key (after checking the storage
 * features its element widths and layout require), the push constants of its shader kind,
 * and one execution: inputs up to device-local slots through staging, the dispatch, the output
 * back. Shaders reach the slots through buffer device addresses, so a tensor may exceed
 * maxStorageBufferRange. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memcpy */

#include "vk_internal.h"

/* Push constants, laid out as the shaders' push_constant blocks (std430). */
typedef struct vk_packed_push {
    VkDeviceAddress out, a, b;
    uint32_t chunks;
    uint32_t flags;
    uint32_t row_chunks, row_magic, row_shifts; /* the rows kind only */
    uint32_t out_row, a_row, b_row;             /* row strides in chunks */
} vk_packed_push;

typedef struct vk_strided_push {
    VkDeviceAddress out, a, b, dims, control;
    uint32_t count;
    uint32_t inner, inner_magic, inner_shifts; /* the innermost dimension */
    uint32_t stride_out, stride_a, stride_b;
    uint32_t outer, outer_magic, outer_shifts; /* the next one (size 1 at rank 1) */
    uint32_t outer_out, outer_a, outer_b;
    uint32_t more_dims; /* entries of 8 words in dims */
} vk_strided_push;

typedef struct vk_tile_push {
    VkDeviceAddress out, a, b;
    uint32_t rows, cols, tiles_c, tiles;
    uint32_t out_row, out_batch;
    uint32_t a_row, a_col, a_batch;
    uint32_t b_row, b_col, b_batch;
    uint32_t flags;
} vk_tile_push;

_Static_assert(sizeof(vk_packed_push) == 56, "packed push constants");
_Static_assert(sizeof(vk_strided_push) == 96, "strided push constants");
_Static_assert(sizeof(vk_tile_push) == 80, "tile push constants");

static int32_t vk_need_storage(bitcts__vk_instance *inst, uint32_t width)
{
    const int eight = width == 1;
    if ((eight && inst->has_storage8) || (width == 2 && inst->has_storage16) ||
        (width != 1 && width != 2)) {
        return BITCTS_ABI_OK;
    }
    const uint32_t off = eight ? BITCTS__VK_DISABLE_STORAGE8 : BITCTS__VK_DISABLE_STORAGE16;
    snprintf(inst->last_error, sizeof inst->last_error,
             "%u-bit elements in this layout need %s, which is %s; only packed layouts run "
             "without it",
             width * 8, eight ? "storageBuffer8BitAccess" : "storageBuffer16BitAccess",
             (inst->opt.disable & off) != 0 ? "disabled by the disable option"
                                            : "absent on this device");
    return BITCTS_ABI_E_NOT_SUPPORTED;
}

int32_t bitcts__vk_operator_prepare(bitcts__vk_instance *inst, bitcts__vk_operator *op)
{
    const bitcts__vk_plan *p = &op->plan;
    /* Only the element-by-element shaders (tile, strided) load and store 8/16-bit values. */
    if (p->kind == BITCTS__VK_KIND_TILE || p->kind == BITCTS__VK_KIND_STRIDED) {
        for (uint32_t k = 0; k <= p->input_count; ++k) {
            const int32_t rc = vk_need_storage(inst, p->width[k]);
            if (rc != BITCTS_ABI_OK) {
                return rc;
            }
        }
    }
    op->params_words =
        p->kind == BITCTS__VK_KIND_STRIDED ? bitcts__vk_plan_outer_dims(p, op->params) : 0u;
    return bitcts__vk_pipeline_get(inst, &p->key, &op->pipeline);
}

static uint32_t vk_groups(const bitcts__vk_instance *inst, uint64_t items_per_group_256)
{
    const uint64_t g = items_per_group_256 == 0 ? 1 : items_per_group_256;
    return g < inst->max_groups ? (uint32_t)g : inst->max_groups;
}

static uint32_t vk_dispatch_packed(bitcts__vk_instance *inst, const bitcts__vk_plan *p,
                                   const VkDeviceAddress addr[3])
{
    const uint32_t ow = p->width[BITCTS__VK_OUT];
    const uint64_t bytes = (uint64_t)p->count * ow;
    const uint32_t chunk = p->chunk;
    vk_packed_push pc = {
        .out = addr[0],
        .a = addr[1],
        .b = addr[2],
        .chunks = (uint32_t)((bytes + chunk - 1) / chunk),
        .flags = p->flags,
    };
    if (p->kind == BITCTS__VK_KIND_ROWS) { /* vk_plan.c's vk_rows_fit made these exact */
        const uint64_t in_chunk = chunk / ow * p->width[BITCTS__VK_A];
        pc.row_chunks = (uint32_t)((uint64_t)p->sizes[1] * ow / chunk);
        bitcts__vk_divisor(pc.row_chunks, &pc.row_magic, &pc.row_shifts);
        pc.out_row = (uint32_t)((uint64_t)p->strides[BITCTS__VK_OUT][0] * ow / chunk);
        pc.a_row =
            (uint32_t)((uint64_t)p->strides[BITCTS__VK_A][0] * p->width[BITCTS__VK_A] / in_chunk);
        pc.b_row = p->input_count == 2 ? (uint32_t)((uint64_t)p->strides[BITCTS__VK_B][0] *
                                                    p->width[BITCTS__VK_B] / in_chunk)
                                       : 0u;
    }
    inst->vk.vkCmdPushConstants(inst->cmd, inst->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc,
                                &pc);
    const uint64_t per_group = (uint64_t)p->threads * inst->opt.packed_unroll;
    return vk_groups(inst, (pc.chunks + per_group - 1) / per_group);
}

static uint32_t vk_dispatch_strided(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                                    const VkDeviceAddress addr[3], VkDeviceAddress dims)
{
    const bitcts__vk_plan *p = &op->plan;
    const uint32_t inner = p->rank - 1;
    const int binary = p->input_count == 2;
    vk_strided_push pc = {
        .out = addr[0],
        .a = addr[1],
        .b = addr[2],
        .dims = dims,
        .control = inst->control.address,
        .count = p->count,
        .inner = p->sizes[inner],
        .stride_out = p->strides[BITCTS__VK_OUT][inner],
        .stride_a = p->strides[BITCTS__VK_A][inner],
        .stride_b = binary ? p->strides[BITCTS__VK_B][inner] : 0u,
        .outer = 1,
        .more_dims = op->params_words / BITCTS_VK_OUTER_DIM_WORDS,
    };
    bitcts__vk_divisor(pc.inner, &pc.inner_magic, &pc.inner_shifts);
    if (p->rank >= 2) {
        const uint32_t d = p->rank - 2;
        pc.outer = p->sizes[d];
        pc.outer_out = p->strides[BITCTS__VK_OUT][d];
        pc.outer_a = p->strides[BITCTS__VK_A][d];
        pc.outer_b = binary ? p->strides[BITCTS__VK_B][d] : 0u;
    }
    bitcts__vk_divisor(pc.outer, &pc.outer_magic, &pc.outer_shifts);
    inst->vk.vkCmdPushConstants(inst->cmd, inst->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc,
                                &pc);
    /* vk_strided.comp's elements per invocation and pass (UNROLL). */
    const uint64_t per_group = (uint64_t)BITCTS_VK_STRIDED_THREADS * inst->opt.unroll;
    return vk_groups(inst, ((uint64_t)p->count + per_group - 1) / per_group);
}

/* Rank 2 (rows, columns) or 3 (batch, rows, columns); tiles of 32 x 32 elements, or for the
 * word-wide shader 32 input words by 32 output words (vk_tilew.comp's TR x TC). */
static uint32_t vk_dispatch_tile(bitcts__vk_instance *inst, const bitcts__vk_plan *p,
                                 const VkDeviceAddress addr[3])
{
    const int words = p->kind == BITCTS__VK_KIND_TILEW;
    const uint32_t side = words ? bitcts__vk_tilew_side(p->width[BITCTS__VK_OUT]) : BITCTS_VK_TILE;
    const uint32_t side_r = words ? bitcts__vk_tilew_side(p->width[BITCTS__VK_A]) : BITCTS_VK_TILE;
    const uint32_t c = p->rank - 1;
    const uint32_t r = p->rank - 2;
    const int batched = p->rank == 3;
    const uint32_t b_in = p->input_count == 2 ? BITCTS__VK_B : BITCTS__VK_A;
    vk_tile_push pc = {
        .out = addr[0],
        .a = addr[1],
        .b = addr[2],
        .rows = p->sizes[r],
        .cols = p->sizes[c],
        .tiles_c = (p->sizes[c] + side - 1) / side,
        .out_row = p->strides[BITCTS__VK_OUT][r],
        .out_batch = batched ? p->strides[BITCTS__VK_OUT][0] : 0u,
        .a_row = p->strides[BITCTS__VK_A][r],
        .a_col = p->strides[BITCTS__VK_A][c],
        .a_batch = batched ? p->strides[BITCTS__VK_A][0] : 0u,
        .b_row = p->strides[b_in][r],
        .b_col = p->strides[b_in][c],
        .b_batch = batched ? p->strides[b_in][0] : 0u,
        .flags = p->flags,
    };
    const uint64_t tiles =
        (uint64_t)(batched ? p->sizes[0] : 1u) * ((p->sizes[r] + side_r - 1) / side_r) * pc.tiles_c;
    pc.tiles = (uint32_t)tiles;
    inst->vk.vkCmdPushConstants(inst->cmd, inst->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc,
                                &pc);
    return vk_groups(inst, (tiles + p->tiles_per_group - 1) / p->tiles_per_group);
}

void bitcts__vk_record_dispatch_at(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                                   const VkDeviceAddress addr[3], VkDeviceAddress params)
{
    const bitcts__vk_plan *p = &op->plan;
    inst->vk.vkCmdBindPipeline(inst->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, op->pipeline);
    uint32_t groups = 1;
    if (p->kind == BITCTS__VK_KIND_PACKED || p->kind == BITCTS__VK_KIND_ROWS) {
        groups = vk_dispatch_packed(inst, p, addr);
    } else if (p->kind == BITCTS__VK_KIND_TILE || p->kind == BITCTS__VK_KIND_TILEW) {
        groups = vk_dispatch_tile(inst, p, addr);
    } else {
        groups = vk_dispatch_strided(inst, op, addr, params);
    }
    inst->vk.vkCmdDispatch(inst->cmd, groups, 1, 1);
}

void bitcts__vk_record_dispatch(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                                const uint32_t operand_slot[3])
{
    const bitcts__vk_plan *p = &op->plan;
    VkDeviceAddress addr[3];
    for (uint32_t k = 0; k < 3; ++k) {
        const uint32_t slot = k <= p->input_count ? operand_slot[k] : operand_slot[BITCTS__VK_A];
        addr[k] = inst->slots[slot].address;
    }
    const bitcts__vk_buffer *params = &inst->slots[BITCTS__VK_SLOT_PARAMS];
    bitcts__vk_record_dispatch_at(inst, op, addr,
                                  params->buffer != VK_NULL_HANDLE ? params->address : addr[1]);
}

void bitcts__vk_exec_transfers(const bitcts__vk_operator *op, const void *const *inputs,
                               void *output, bitcts__vk_exec_io *io)
{
    const bitcts__vk_plan *p = &op->plan;
    uint32_t *operand_slot = io->operand_slot;
    bitcts__vk_transfer *up = io->up;
    uint32_t n = 0;
    int aliased = 0;
    operand_slot[BITCTS__VK_OUT] = BITCTS__VK_SLOT_OUT;
    operand_slot[BITCTS__VK_B] = BITCTS__VK_SLOT_B;
    for (uint32_t k = 0; k < p->input_count; ++k) {
        if (inputs[k] == output) { /* in place: the identical layout shares the output's slot */
            operand_slot[1 + k] = BITCTS__VK_SLOT_OUT;
            aliased = 1;
            continue;
        }
        operand_slot[1 + k] = BITCTS__VK_SLOT_A + k;
        up[n++] = (bitcts__vk_transfer){(void *)(uintptr_t)inputs[k], BITCTS__VK_SLOT_A + k,
                                        p->span[1 + k]};
    }
    /* The output's own bytes go up when they hold an input, or padding the download would
     * otherwise overwrite with whatever the slot held. */
    if (aliased || !p->out_dense) {
        up[n++] = (bitcts__vk_transfer){output, BITCTS__VK_SLOT_OUT, p->span[BITCTS__VK_OUT]};
    }
    if (op->params_words > 0) {
        up[n++] = (bitcts__vk_transfer){(void *)(uintptr_t)op->params, BITCTS__VK_SLOT_PARAMS,
                                        op->params_words * sizeof(uint32_t)};
    }
    io->n_up = n;
    io->down[0] = (bitcts__vk_transfer){output, BITCTS__VK_SLOT_OUT, p->span[BITCTS__VK_OUT]};
    io->n_down = 1;
}

int32_t bitcts__vk_exec_prepare(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                                const void *const *inputs, void *output, bitcts__vk_exec_io *io)
{
    bitcts__vk_exec_transfers(op, inputs, output, io);
    int32_t rc = bitcts__vk_slot_reserve(inst, BITCTS__VK_SLOT_OUT, op->plan.span[BITCTS__VK_OUT]);
    for (uint32_t i = 0; i < io->n_up && rc == BITCTS_ABI_OK; ++i) {
        rc = bitcts__vk_slot_reserve(inst, io->up[i].slot, io->up[i].bytes);
    }
    return rc;
}

typedef struct vk_exec_ctx {
    const bitcts__vk_operator *op;
    const uint32_t *operand_slot;
} vk_exec_ctx;

static int32_t vk_record_execute(bitcts__vk_instance *inst, void *arg)
{
    const vk_exec_ctx *ctx = arg;
    if (inst->fault_armed && inst->opt.fault == BITCTS__VK_FAULT_VALIDATION) {
        inst->fault_armed = 0;
        /* Invalid on purpose: a stage mask of 0 (VUID-vkCmdPipelineBarrier-srcStageMask). */
        inst->vk.vkCmdPipelineBarrier(inst->cmd, 0, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                      NULL, 0, NULL, 0, NULL);
    }
    bitcts__vk_record_dispatch(inst, ctx->op, ctx->operand_slot);
    return BITCTS_ABI_OK;
}

int32_t bitcts__vk_execute(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                           const void *const *inputs, void *output)
{
    bitcts__vk_exec_io io;
    const int32_t rc = bitcts__vk_exec_prepare(inst, op, inputs, output, &io);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    vk_exec_ctx ctx = {op, io.operand_slot};
    return bitcts__vk_run(inst, io.up, io.n_up, io.down, io.n_down, vk_record_execute, &ctx);
}
