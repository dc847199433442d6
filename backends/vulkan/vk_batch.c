/* SPDX-License-Identifier: MIT */
/* The "bitcts_batch_execute_v1" extension: several executions in one submission. Each item's
 * operands get regions of their own in one device-local slot (BITCTS__VK_SLOT_BATCH, grown on
 * demand and kept), its transfers a place in the staging buffer; the command buffer holds every
 * upload, one barrier, every dispatch (no item reads or writes another's regions, so the
 * dispatches need no barrier between them), one barrier and every download. A sub-batch ends
 * where the staging limit or the largest allocation would be passed. What cannot share a
 * submission runs as operator_execute runs it: an item too large, an item whose arguments are
 * malformed, every item under an injected fault or validation (their one-shot and per-call
 * semantics are operator_execute's), and every item of a sub-batch whose submission failed. */
#include <stdlib.h> /* malloc */
#include <string.h> /* memcpy */

#include "vk_internal.h"

#define VK_BATCH_GRANULE 256u /* regions padded as slots are: shaders may overrun into slack */

/* One host-device transfer of an item: host bytes to or from a region of the batch slot. */
typedef struct vk_batch_move {
    void *host;
    VkDeviceSize region; /* offset in the batch slot */
    VkDeviceSize bytes;
} vk_batch_move;

/* An item's place in a sub-batch. */
typedef struct vk_batch_place {
    VkDeviceSize region[3]; /* output, A, B: offsets in the batch slot */
    VkDeviceSize params;    /* the strided shader's parameters, or VK_WHOLE_SIZE: none */
    vk_batch_move up[4];
    uint32_t n_up;
    vk_batch_move down;
    VkDeviceSize slot_bytes;    /* the regions together */
    VkDeviceSize staging_bytes; /* the transfers together */
} vk_batch_place;

static VkDeviceSize vk_batch_round(VkDeviceSize x, VkDeviceSize to)
{
    return (x + to - 1) / to * to;
}

/* Where an item's operands go, relative to the sub-batch's running offset `at`: a region of the
 * batch slot for each slot operator_execute would use (bitcts__vk_exec_transfers decides what
 * goes up and down), in slot order: the output's, the inputs' (an aliased input shares the
 * output's, B of a unary operator is A), the parameters'. */
static void vk_batch_layout(const bitcts_abi_batch_item *item, VkDeviceSize at, vk_batch_place *pl)
{
    const bitcts__vk_plan *p = &((const bitcts__vk_operator *)item->op)->plan;
    bitcts__vk_exec_io io;
    bitcts__vk_exec_transfers(item->op, item->inputs, item->output, &io);
    const VkDeviceSize start = at;
    VkDeviceSize region[BITCTS__VK_SLOT_PARAMS + 1];
    region[BITCTS__VK_SLOT_OUT] = at;
    at += vk_batch_round(p->span[BITCTS__VK_OUT] + 1, VK_BATCH_GRANULE);
    region[BITCTS__VK_SLOT_A] = region[BITCTS__VK_SLOT_B] = region[BITCTS__VK_SLOT_OUT];
    region[BITCTS__VK_SLOT_PARAMS] = VK_WHOLE_SIZE;
    for (uint32_t i = 0; i < io.n_up; ++i) {
        const uint32_t slot = io.up[i].slot;
        if (slot != BITCTS__VK_SLOT_OUT) { /* inputs padded as slots are; parameters exact */
            region[slot] = at;
            at +=
                vk_batch_round(io.up[i].bytes + (slot != BITCTS__VK_SLOT_PARAMS), VK_BATCH_GRANULE);
        }
        if (slot == BITCTS__VK_SLOT_A && p->input_count == 1) {
            region[BITCTS__VK_SLOT_B] = region[BITCTS__VK_SLOT_A];
        }
    }
    memset(pl, 0, sizeof *pl);
    for (uint32_t k = 0; k < 3; ++k) {
        pl->region[k] = region[io.operand_slot[k]];
    }
    pl->params = region[BITCTS__VK_SLOT_PARAMS];
    for (uint32_t i = 0; i < io.n_up; ++i) {
        pl->up[pl->n_up++] = (vk_batch_move){io.up[i].host, region[io.up[i].slot], io.up[i].bytes};
    }
    pl->down = (vk_batch_move){io.down[0].host, region[io.down[0].slot], io.down[0].bytes};
    pl->slot_bytes = at - start;
    pl->staging_bytes = vk_batch_round(pl->down.bytes, 16);
    for (uint32_t i = 0; i < pl->n_up; ++i) {
        pl->staging_bytes += vk_batch_round(pl->up[i].bytes, 16);
    }
}

/* Whether an item is well-formed, as operator_execute checks its arguments. */
static int vk_batch_item_ok(const bitcts_abi_batch_item *item)
{
    const bitcts__vk_operator *op = item->op;
    return item->struct_size >= sizeof *item && op != NULL && item->inputs != NULL &&
           item->output != NULL && item->inputs[0] != NULL &&
           (op->plan.input_count != 2 || item->inputs[1] != NULL);
}

/* Records the sub-batch's transfers of one direction between staging (from `at`) and the
 * batch slot; returns the staging offset after them. */
static VkDeviceSize vk_batch_moves(bitcts__vk_instance *inst, const vk_batch_place *pl, uint32_t n,
                                   VkDeviceSize at, int upload)
{
    unsigned char *map = inst->staging.map;
    const VkBuffer slot = inst->slots[BITCTS__VK_SLOT_BATCH].buffer;
    for (uint32_t i = 0; i < n; ++i) {
        const vk_batch_move *moves = upload ? pl[i].up : &pl[i].down;
        const uint32_t count = upload ? pl[i].n_up : 1u;
        for (uint32_t m = 0; m < count; ++m) {
            if (upload) {
                memcpy(map + at, moves[m].host, (size_t)moves[m].bytes);
                bitcts__vk_copy(inst, inst->staging.buffer, at, slot, moves[m].region,
                                moves[m].bytes);
            } else {
                bitcts__vk_copy(inst, slot, moves[m].region, inst->staging.buffer, at,
                                moves[m].bytes);
            }
            at += vk_batch_round(moves[m].bytes, 16);
        }
    }
    return at;
}

/* One submission for items[0 .. n) laid out in pl. */
static int32_t vk_batch_submit(bitcts__vk_instance *inst, bitcts_abi_batch_item *items,
                               const vk_batch_place *pl, uint32_t n, VkDeviceSize slot_bytes,
                               VkDeviceSize staging_bytes)
{
    int32_t rc = bitcts__vk_slot_reserve(inst, BITCTS__VK_SLOT_BATCH, slot_bytes);
    rc = rc != BITCTS_ABI_OK ? rc : bitcts__vk_staging_reserve(inst, staging_bytes);
    rc = rc != BITCTS_ABI_OK ? rc : bitcts__vk_begin(inst);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    const VkDeviceSize down_at = vk_batch_moves(inst, pl, n, 0, 1);
    bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const VkDeviceAddress base = inst->slots[BITCTS__VK_SLOT_BATCH].address;
    for (uint32_t i = 0; i < n; ++i) {
        const VkDeviceAddress addr[3] = {base + pl[i].region[0], base + pl[i].region[1],
                                         base + pl[i].region[2]};
        const VkDeviceAddress params =
            pl[i].params != VK_WHOLE_SIZE ? base + pl[i].params : addr[1];
        bitcts__vk_record_dispatch_at(inst, items[i].op, addr, params);
    }
    bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    (void)vk_batch_moves(inst, pl, n, down_at, 0);
    bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    rc = bitcts__vk_submit_wait(inst, "batched operator dispatch");
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    const unsigned char *map = inst->staging.map;
    VkDeviceSize at = down_at;
    for (uint32_t i = 0; i < n; ++i) {
        memcpy(pl[i].down.host, map + at, (size_t)pl[i].down.bytes);
        at += vk_batch_round(pl[i].down.bytes, 16);
        items[i].status = BITCTS_ABI_OK;
    }
    return BITCTS_ABI_OK;
}

/* Items [first, first + n) as one submission; when it fails, each as operator_execute. */
static void vk_batch_flush(bitcts__vk_instance *inst, bitcts_abi_batch_item *items,
                           vk_batch_place *pl, uint32_t first, uint32_t n,
                           bitcts__vk_execute_fn solo)
{
    if (n == 0) {
        return;
    }
    VkDeviceSize slot_bytes = 0;
    VkDeviceSize staging_bytes = 0;
    for (uint32_t i = first; i < first + n; ++i) {
        vk_batch_layout(&items[i], slot_bytes, &pl[i]);
        slot_bytes += pl[i].slot_bytes;
        staging_bytes += pl[i].staging_bytes;
    }
    if (vk_batch_submit(inst, items + first, pl + first, n, slot_bytes, staging_bytes) !=
        BITCTS_ABI_OK) {
        for (uint32_t i = first; i < first + n; ++i) {
            items[i].status = solo(inst, items[i].op, items[i].inputs, items[i].output);
        }
    }
}

int32_t bitcts__vk_batch_execute(bitcts__vk_instance *inst, uint32_t count,
                                 bitcts_abi_batch_item *items, bitcts__vk_execute_fn solo)
{
    if (inst == NULL || (items == NULL && count > 0)) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    inst->last_error[0] = '\0';
    vk_batch_place *pl = malloc(((size_t)count + 1) * sizeof *pl);
    const int alone = pl == NULL || inst->opt.fault != BITCTS__VK_FAULT_NONE ||
                      inst->opt.validation != 0 || inst->state != BITCTS__VK_STATE_OK;
    const VkDeviceSize staging_limit = (VkDeviceSize)inst->opt.staging_mib << 20;
    uint32_t first = 0;
    VkDeviceSize slot_bytes = 0;
    VkDeviceSize staging_bytes = 0;
    for (uint32_t i = 0; i < count; ++i) {
        vk_batch_place one;
        const int ok = !alone && vk_batch_item_ok(&items[i]);
        if (ok) {
            vk_batch_layout(&items[i], 0, &one);
        }
        const int fits =
            ok && one.slot_bytes <= inst->max_allocation && one.staging_bytes <= staging_limit;
        if (!fits || slot_bytes + one.slot_bytes > inst->max_allocation ||
            staging_bytes + one.staging_bytes > staging_limit) {
            vk_batch_flush(inst, items, pl, first, i - first, solo);
            first = i;
            slot_bytes = staging_bytes = 0;
        }
        if (!fits) {
            items[i].status = solo(inst, items[i].op, items[i].inputs, items[i].output);
            first = i + 1;
            continue;
        }
        slot_bytes += one.slot_bytes;
        staging_bytes += one.staging_bytes;
    }
    if (!alone) {
        vk_batch_flush(inst, items, pl, first, count - first, solo);
    }
    free(pl);
    return BITCTS_ABI_OK;
}
