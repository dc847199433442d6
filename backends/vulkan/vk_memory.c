/* SPDX-License-Identifier: MIT */
/* Device memory and submissions: device-local slots that grow on demand, the host-visible
 * staging buffer every transfer goes through (vkCmdCopyBuffer both ways, on every device),
 * and one submission at a time with a deadline (vkWaitForFences with timeout_ms). A submission
 * that misses the deadline cancels the injected hang through the control word; one that still
 * does not stop leaves the instance wedged. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memcpy */

#include "vk_internal.h"

#define VK_SLOT_GRANULE 256u /* regions are padded so shaders may overrun into slack */
#define VK_CANCEL_GRACE_NS 2000000000ull

/* The memory type for `bits` with the best score: device data wants DEVICE_LOCAL and not
 * HOST_VISIBLE; staging wants HOST_VISIBLE|HOST_COHERENT, preferably HOST_CACHED. */
static uint32_t vk_memory_type(const bitcts__vk_instance *inst, uint32_t bits, int host)
{
    uint32_t best = UINT32_MAX;
    uint32_t best_score = 0;
    const VkMemoryPropertyFlags coherent =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < inst->memory.memoryTypeCount; ++i) {
        if ((bits & (1u << i)) == 0) {
            continue;
        }
        const VkMemoryPropertyFlags f = inst->memory.memoryTypes[i].propertyFlags;
        uint32_t score = 0;
        if (host) {
            score = (f & coherent) != coherent
                        ? 0u
                        : 2u + ((f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) ? 1u : 0u);
        } else {
            score = 1u + ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) ? 2u : 0u) +
                    ((f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) ? 0u : 1u);
        }
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

void bitcts__vk_buffer_destroy(bitcts__vk_instance *inst, bitcts__vk_buffer *b)
{
    if (b->buffer != VK_NULL_HANDLE) {
        inst->vk.vkDestroyBuffer(inst->device, b->buffer, NULL);
    }
    if (b->memory != VK_NULL_HANDLE) {
        inst->vk.vkFreeMemory(inst->device, b->memory, NULL);
    }
    memset(b, 0, sizeof *b);
}

/* A buffer bound to its own allocation; `host` picks staging memory and maps it. */
static int32_t vk_buffer_create(bitcts__vk_instance *inst, VkDeviceSize bytes,
                                VkBufferUsageFlags usage, int host, bitcts__vk_buffer *out)
{
    memset(out, 0, sizeof *out);
    if (bytes > inst->max_allocation) {
        snprintf(inst->last_error, sizeof inst->last_error,
                 "a buffer of %llu bytes exceeds maxMemoryAllocationSize %llu",
                 (unsigned long long)bytes, (unsigned long long)inst->max_allocation);
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    const VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = bytes,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = inst->vk.vkCreateBuffer(inst->device, &info, NULL, &out->buffer);
    if (r != VK_SUCCESS) {
        out->buffer = VK_NULL_HANDLE;
        return bitcts__vk_fail(inst, r, "vkCreateBuffer");
    }
    VkMemoryRequirements req;
    inst->vk.vkGetBufferMemoryRequirements(inst->device, out->buffer, &req);
    const uint32_t type = vk_memory_type(inst, req.memoryTypeBits, host);
    if (type == UINT32_MAX) {
        bitcts__vk_buffer_destroy(inst, out);
        snprintf(inst->last_error, sizeof inst->last_error, "no memory type for a %s buffer",
                 host ? "staging" : "device");
        return BITCTS_ABI_E_DEVICE;
    }
    const int addressed = (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0;
    const VkMemoryAllocateFlagsInfo flags = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    const VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = addressed ? &flags : NULL,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    r = inst->vk.vkAllocateMemory(inst->device, &alloc, NULL, &out->memory);
    if (r == VK_SUCCESS) {
        r = inst->vk.vkBindBufferMemory(inst->device, out->buffer, out->memory, 0);
    }
    if (r == VK_SUCCESS && host) {
        r = inst->vk.vkMapMemory(inst->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->map);
    }
    if (r != VK_SUCCESS) {
        bitcts__vk_buffer_destroy(inst, out);
        return bitcts__vk_fail(inst, r, host ? "staging memory" : "device memory");
    }
    out->size = bytes;
    if (addressed) {
        const VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                              .buffer = out->buffer};
        out->address = inst->vk.vkGetBufferDeviceAddress(inst->device, &ai);
    }
    return BITCTS_ABI_OK;
}

int32_t bitcts__vk_host_buffer_create(bitcts__vk_instance *inst, VkDeviceSize bytes,
                                      VkBufferUsageFlags usage, bitcts__vk_buffer *out)
{
    return vk_buffer_create(inst, bytes, usage, 1, out);
}

static VkDeviceSize vk_grow(VkDeviceSize need, VkDeviceSize floor)
{
    VkDeviceSize size = floor;
    while (size < need) {
        size *= 2;
    }
    return size;
}

int32_t bitcts__vk_slot_reserve(bitcts__vk_instance *inst, uint32_t slot, VkDeviceSize bytes)
{
    bitcts__vk_buffer *b = &inst->slots[slot];
    const VkDeviceSize need = (bytes + VK_SLOT_GRANULE - 1) / VK_SLOT_GRANULE * VK_SLOT_GRANULE;
    if (b->buffer != VK_NULL_HANDLE && b->size >= need) {
        return BITCTS_ABI_OK;
    }
    bitcts__vk_buffer_destroy(inst, b);
    if (inst->opt.fault == BITCTS__VK_FAULT_OOM) {
        return bitcts__vk_fail(inst, VK_ERROR_OUT_OF_DEVICE_MEMORY,
                               "vkAllocateMemory (injected by fault=oom)");
    }
    VkDeviceSize size = vk_grow(need, 1u << 20);
    if (size > inst->max_allocation && need <= inst->max_allocation) {
        size = need;
    }
    return vk_buffer_create(inst, size,
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            0, b);
}

int32_t bitcts__vk_staging_reserve(bitcts__vk_instance *inst, VkDeviceSize bytes)
{
    if (inst->staging.buffer != VK_NULL_HANDLE && inst->staging.size >= bytes) {
        return BITCTS_ABI_OK;
    }
    bitcts__vk_buffer_destroy(inst, &inst->staging);
    const VkDeviceSize limit = (VkDeviceSize)inst->opt.staging_mib << 20;
    VkDeviceSize size = vk_grow(bytes, 1u << 20);
    size = size < limit ? size : limit;
    size = size > bytes ? size : bytes;
    return vk_buffer_create(inst, size,
                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1,
                            &inst->staging);
}

int32_t bitcts__vk_begin(bitcts__vk_instance *inst)
{
    const VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VkResult r = inst->vk.vkResetCommandBuffer(inst->cmd, 0);
    if (r == VK_SUCCESS) {
        r = inst->vk.vkBeginCommandBuffer(inst->cmd, &begin);
    }
    return r == VK_SUCCESS ? BITCTS_ABI_OK : bitcts__vk_fail(inst, r, "vkBeginCommandBuffer");
}

void bitcts__vk_barrier(bitcts__vk_instance *inst, VkPipelineStageFlags src,
                        VkAccessFlags src_access, VkPipelineStageFlags dst,
                        VkAccessFlags dst_access)
{
    const VkMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = src_access,
        .dstAccessMask = dst_access,
    };
    inst->vk.vkCmdPipelineBarrier(inst->cmd, src, dst, 0, 1, &barrier, 0, NULL, 0, NULL);
}

/* After a missed deadline: ask an injected hang to stop, give it a grace period. */
static int32_t vk_after_timeout(bitcts__vk_instance *inst, const char *what)
{
    volatile uint32_t *control = inst->control.map;
    control[0] = 1u;
    const VkResult r =
        inst->vk.vkWaitForFences(inst->device, 1, &inst->fence, VK_TRUE, VK_CANCEL_GRACE_NS);
    if (r == VK_SUCCESS) {
        snprintf(inst->last_error, sizeof inst->last_error,
                 "%s: did not finish within timeout_ms=%u; cancelled", what, inst->opt.timeout_ms);
        control[0] = 0u;
        inst->vk.vkResetFences(inst->device, 1, &inst->fence);
        return BITCTS_ABI_E_DEVICE;
    }
    inst->state = BITCTS__VK_STATE_WEDGED;
    snprintf(inst->last_error, sizeof inst->last_error,
             "%s: did not finish within timeout_ms=%u and could not be stopped (%s); the "
             "instance is unusable",
             what, inst->opt.timeout_ms, bitcts__vk_result_name(r));
    return BITCTS_ABI_E_DEVICE;
}

int32_t bitcts__vk_submit_wait(bitcts__vk_instance *inst, const char *what)
{
    VkResult r = inst->vk.vkEndCommandBuffer(inst->cmd);
    if (r != VK_SUCCESS) {
        return bitcts__vk_fail(inst, r, "vkEndCommandBuffer");
    }
    if (inst->fault_armed && inst->opt.fault == BITCTS__VK_FAULT_LOST) {
        inst->fault_armed = 0;
        return bitcts__vk_fail(inst, VK_ERROR_DEVICE_LOST,
                               "vkQueueSubmit (injected by fault=lost)");
    }
    const VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &inst->cmd,
    };
    r = inst->vk.vkQueueSubmit(inst->queue, 1, &submit, inst->fence);
    if (r != VK_SUCCESS) {
        return bitcts__vk_fail(inst, r, "vkQueueSubmit");
    }
    const uint64_t timeout = (uint64_t)inst->opt.timeout_ms * 1000000ull;
    r = inst->vk.vkWaitForFences(inst->device, 1, &inst->fence, VK_TRUE, timeout);
    if (r == VK_TIMEOUT) {
        return vk_after_timeout(inst, what);
    }
    if (r != VK_SUCCESS) {
        return bitcts__vk_fail(inst, r, "vkWaitForFences");
    }
    r = inst->vk.vkResetFences(inst->device, 1, &inst->fence);
    return r == VK_SUCCESS ? BITCTS_ABI_OK : bitcts__vk_fail(inst, r, "vkResetFences");
}

static void vk_copy(bitcts__vk_instance *inst, VkBuffer src, VkDeviceSize src_off, VkBuffer dst,
                    VkDeviceSize dst_off, VkDeviceSize bytes)
{
    const VkBufferCopy region = {src_off, dst_off, bytes};
    inst->vk.vkCmdCopyBuffer(inst->cmd, src, dst, 1, &region);
}

void bitcts__vk_copy(bitcts__vk_instance *inst, VkBuffer src, VkDeviceSize src_off, VkBuffer dst,
                     VkDeviceSize dst_off, VkDeviceSize bytes)
{
    vk_copy(inst, src, src_off, dst, dst_off, bytes);
}

static VkDeviceSize vk_align16(VkDeviceSize x)
{
    return (x + 15u) & ~(VkDeviceSize)15u;
}

/* Everything in one submission: uploads, the dispatches, downloads. */
static int32_t vk_run_once(bitcts__vk_instance *inst, const bitcts__vk_transfer *up, uint32_t n_up,
                           const bitcts__vk_transfer *down, uint32_t n_down,
                           bitcts__vk_record_fn record, void *ctx)
{
    int32_t rc = bitcts__vk_begin(inst);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    unsigned char *map = inst->staging.map;
    VkDeviceSize at = 0;
    for (uint32_t i = 0; i < n_up; ++i) {
        memcpy(map + at, up[i].host, (size_t)up[i].bytes);
        vk_copy(inst, inst->staging.buffer, at, inst->slots[up[i].slot].buffer, 0, up[i].bytes);
        at += vk_align16(up[i].bytes);
    }
    bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    rc = record(inst, ctx);
    if (rc != BITCTS_ABI_OK) {
        inst->vk.vkEndCommandBuffer(inst->cmd);
        return rc;
    }
    bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    const VkDeviceSize down_at = at;
    for (uint32_t i = 0; i < n_down; ++i) {
        vk_copy(inst, inst->slots[down[i].slot].buffer, 0, inst->staging.buffer, at, down[i].bytes);
        at += vk_align16(down[i].bytes);
    }
    bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    rc = bitcts__vk_submit_wait(inst, "operator dispatch");
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    at = down_at;
    for (uint32_t i = 0; i < n_down; ++i) {
        memcpy(down[i].host, map + at, (size_t)down[i].bytes);
        at += vk_align16(down[i].bytes);
    }
    return BITCTS_ABI_OK;
}

/* One transfer through the staging buffer in pieces of its size. */
static int32_t vk_transfer_pieces(bitcts__vk_instance *inst, const bitcts__vk_transfer *t,
                                  int upload)
{
    unsigned char *host = t->host;
    const VkDeviceSize piece = inst->staging.size;
    for (VkDeviceSize done = 0; done < t->bytes; done += piece) {
        const VkDeviceSize n = t->bytes - done < piece ? t->bytes - done : piece;
        int32_t rc = bitcts__vk_begin(inst);
        if (rc != BITCTS_ABI_OK) {
            return rc;
        }
        if (upload) {
            memcpy(inst->staging.map, host + done, (size_t)n);
            vk_copy(inst, inst->staging.buffer, 0, inst->slots[t->slot].buffer, done, n);
        } else {
            vk_copy(inst, inst->slots[t->slot].buffer, done, inst->staging.buffer, 0, n);
            bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                               VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
        }
        rc = bitcts__vk_submit_wait(inst, upload ? "upload" : "download");
        if (rc != BITCTS_ABI_OK) {
            return rc;
        }
        if (!upload) {
            memcpy(host + done, inst->staging.map, (size_t)n);
        }
    }
    return BITCTS_ABI_OK;
}

int32_t bitcts__vk_run(bitcts__vk_instance *inst, const bitcts__vk_transfer *up, uint32_t n_up,
                       const bitcts__vk_transfer *down, uint32_t n_down,
                       bitcts__vk_record_fn record, void *ctx)
{
    VkDeviceSize total = 0;
    for (uint32_t i = 0; i < n_up; ++i) {
        total += vk_align16(up[i].bytes);
    }
    for (uint32_t i = 0; i < n_down; ++i) {
        total += vk_align16(down[i].bytes);
    }
    const VkDeviceSize limit = (VkDeviceSize)inst->opt.staging_mib << 20;
    if (total <= limit) {
        const int32_t rc = bitcts__vk_staging_reserve(inst, total > 0 ? total : 16);
        return rc != BITCTS_ABI_OK ? rc : vk_run_once(inst, up, n_up, down, n_down, record, ctx);
    }
    int32_t rc = bitcts__vk_staging_reserve(inst, limit);
    for (uint32_t i = 0; i < n_up && rc == BITCTS_ABI_OK; ++i) {
        rc = vk_transfer_pieces(inst, &up[i], 1);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_begin(inst);
    }
    if (rc == BITCTS_ABI_OK) {
        bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        rc = record(inst, ctx);
        bitcts__vk_barrier(inst, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        rc = rc != BITCTS_ABI_OK ? rc : bitcts__vk_submit_wait(inst, "operator dispatch");
    }
    for (uint32_t i = 0; i < n_down && rc == BITCTS_ABI_OK; ++i) {
        rc = vk_transfer_pieces(inst, &down[i], 0);
    }
    return rc;
}
