/* SPDX-License-Identifier: MIT */
/* Shader binaries and pipelines. The SPIR-V was compiled at build time (glslc) and embedded by
 * vk_embed.cmake; nothing is compiled at run time but the driver's own pipeline compilation,
 * which happens once per pipeline key (vk_plan.c) an instance uses: lazily, then cached. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* realloc, free */
#include <string.h> /* memcmp, memset */

#include "vk_internal.h"

#include "vk_spirv.h" /* generated: bitcts__vk_spirv_table */

#define VK_SPIRV_COUNT (sizeof bitcts__vk_spirv_table / sizeof bitcts__vk_spirv_table[0])
_Static_assert(VK_SPIRV_COUNT <= BITCTS__VK_MODULES, "raise BITCTS__VK_MODULES");

int bitcts__vk_binary_find(uint32_t kind, uint32_t in_w, uint32_t out_w, uint32_t chunk)
{
    for (size_t i = 0; i < VK_SPIRV_COUNT; ++i) {
        const bitcts__vk_spirv *s = &bitcts__vk_spirv_table[i];
        if (s->kind == kind && s->in_w == in_w && s->out_w == out_w && s->chunk == chunk) {
            return (int)i;
        }
    }
    return -1;
}

const bitcts__vk_spirv *bitcts__vk_binary(uint32_t index)
{
    return &bitcts__vk_spirv_table[index];
}

int bitcts__vk_packed_chunk_made(uint32_t in_w, uint32_t out_w, uint32_t c)
{
    return c != 0 && bitcts__vk_binary_find(BITCTS__VK_KIND_PACKED, in_w, out_w, c) >= 0;
}

static int32_t vk_module(bitcts__vk_instance *inst, uint32_t index, VkShaderModule *out)
{
    const bitcts__vk_spirv *spirv = &bitcts__vk_spirv_table[index];
    VkShaderModule *slot = &inst->modules[index];
    if (*slot == VK_NULL_HANDLE) {
        const VkShaderModuleCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
            .codeSize = spirv->bytes,
            .pCode = spirv->words,
        };
        const VkResult r = inst->vk.vkCreateShaderModule(inst->device, &info, NULL, slot);
        if (r != VK_SUCCESS) {
            *slot = VK_NULL_HANDLE;
            return bitcts__vk_fail(inst, r, "vkCreateShaderModule");
        }
    }
    *out = *slot;
    return BITCTS_ABI_OK;
}

/* A pipeline from a key, and nothing else: the key's binary with its specialization
 * constants. */
static int32_t vk_pipeline_create(bitcts__vk_instance *inst, const bitcts__vk_pipeline_key *key,
                                  VkPipeline *out)
{
    VkShaderModule module = VK_NULL_HANDLE;
    const int32_t rc = vk_module(inst, key->binary, &module);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    VkSpecializationMapEntry entries[BITCTS_VK_SPEC_COUNT];
    for (uint32_t i = 0; i < BITCTS_VK_SPEC_COUNT; ++i) {
        entries[i] =
            (VkSpecializationMapEntry){i, i * (uint32_t)sizeof(uint32_t), sizeof(uint32_t)};
    }
    const VkSpecializationInfo spec = {BITCTS_VK_SPEC_COUNT, entries, sizeof key->spec, key->spec};
    const VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main",
                .pSpecializationInfo = &spec,
            },
        .layout = inst->layout,
    };
    const VkResult r =
        inst->vk.vkCreateComputePipelines(inst->device, inst->pcache, 1, &info, NULL, out);
    if (r != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        return bitcts__vk_fail(inst, r, "vkCreateComputePipelines");
    }
    return BITCTS_ABI_OK;
}

/* Room for one more cached pipeline. */
static int32_t vk_cache_room(bitcts__vk_instance *inst)
{
    if (inst->pipeline_count < inst->pipeline_room) {
        return BITCTS_ABI_OK;
    }
    const uint32_t room = inst->pipeline_room == 0 ? 16u : 2u * inst->pipeline_room;
    bitcts__vk_cached_pipeline *grown = realloc(inst->pipelines, room * sizeof *grown);
    if (grown == NULL) {
        snprintf(inst->last_error, sizeof inst->last_error,
                 "out of host memory for %u cached pipelines", room);
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    inst->pipelines = grown;
    inst->pipeline_room = room;
    return BITCTS_ABI_OK;
}

int32_t bitcts__vk_pipeline_get(bitcts__vk_instance *inst, const bitcts__vk_pipeline_key *key,
                                VkPipeline *out)
{
    for (uint32_t i = 0; i < inst->pipeline_count; ++i) {
        if (memcmp(&inst->pipelines[i].key, key, sizeof *key) == 0) {
            *out = inst->pipelines[i].pipeline;
            return BITCTS_ABI_OK;
        }
    }
    int32_t rc = vk_cache_room(inst);
    VkPipeline pipeline = VK_NULL_HANDLE;
    if (rc == BITCTS_ABI_OK) {
        rc = vk_pipeline_create(inst, key, &pipeline);
    }
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    inst->pipelines[inst->pipeline_count++] = (bitcts__vk_cached_pipeline){*key, pipeline};
    *out = pipeline;
    return BITCTS_ABI_OK;
}

void bitcts__vk_pipelines_destroy(bitcts__vk_instance *inst)
{
    for (uint32_t i = 0; i < inst->pipeline_count; ++i) {
        inst->vk.vkDestroyPipeline(inst->device, inst->pipelines[i].pipeline, NULL);
    }
    free(inst->pipelines);
    inst->pipelines = NULL;
    inst->pipeline_count = 0;
    inst->pipeline_room = 0;
    for (uint32_t m = 0; m < BITCTS__VK_MODULES; ++m) {
        if (inst->modules[m] != VK_NULL_HANDLE) {
            inst->vk.vkDestroyShaderModule(inst->device, inst->modules[m], NULL);
        }
    }
    memset(inst->modules, 0, sizeof inst->modules);
}
