/* SPDX-License-Identifier: MIT */
/* Shader binaries and pipelines. The SPIR-V was compiled at build time (glslc) and embedded by
 * vk_embed.cmake; nothing is compiled at run time but the driver's own pipeline compilation,
 * which happens once per (kind, widths, operator) an instance uses: lazily, then cached. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memset */

#include "vk_internal.h"

typedef struct bitcts__vk_spirv {
    uint32_t kind;
    uint32_t in_w;
    uint32_t out_w;
    uint32_t chunk; /* the packed shader's output bytes per chunk; 0 for the others */
    const uint32_t *words;
    size_t bytes;
} bitcts__vk_spirv;

#include "vk_spirv.h" /* generated: bitcts__vk_spirv_table */

/* (input width, output width) pairs, in the order of the cache's variant index. */
static const uint32_t vk_variant_widths[BITCTS__VK_VARIANTS][2] = {
    {1, 1}, {2, 2}, {4, 4}, {8, 8}, {1, 4}, {2, 1}, {2, 4}, {4, 1}, {8, 1}, {8, 4},
};

static int vk_variant_index(uint32_t in_w, uint32_t out_w)
{
    for (int i = 0; i < (int)BITCTS__VK_VARIANTS; ++i) {
        if (vk_variant_widths[i][0] == in_w && vk_variant_widths[i][1] == out_w) {
            return i;
        }
    }
    return -1;
}

#define VK_SPIRV_COUNT (sizeof bitcts__vk_spirv_table / sizeof bitcts__vk_spirv_table[0])
_Static_assert(VK_SPIRV_COUNT <= BITCTS__VK_MODULES, "raise BITCTS__VK_MODULES");

/* The index in the table of the binary, or -1. */
static int vk_find_spirv(uint32_t kind, uint32_t in_w, uint32_t out_w, uint32_t chunk)
{
    for (size_t i = 0; i < VK_SPIRV_COUNT; ++i) {
        const bitcts__vk_spirv *s = &bitcts__vk_spirv_table[i];
        if (s->kind == kind && s->in_w == in_w && s->out_w == out_w && s->chunk == chunk) {
            return (int)i;
        }
    }
    return -1;
}

int bitcts__vk_packed_chunk_made(uint32_t in_w, uint32_t out_w, uint32_t c)
{
    return c != 0 && vk_find_spirv(BITCTS__VK_KIND_PACKED, in_w, out_w, c) >= 0;
}

static int32_t vk_module(bitcts__vk_instance *inst, int index, VkShaderModule *out)
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

int32_t bitcts__vk_pipeline_get(bitcts__vk_instance *inst, uint32_t kind, uint32_t in_w,
                                uint32_t out_w, uint32_t shader_op, uint32_t flavor,
                                VkPipeline *out)
{
    const int variant = vk_variant_index(in_w, out_w);
    /* The rows kind is the packed shader with ROWS set. */
    const uint32_t shader = kind == BITCTS__VK_KIND_ROWS ? BITCTS__VK_KIND_PACKED : kind;
    /* The packed shader's shape follows the options and the flavor, so the pipeline cache
     * needs no index for it; the other shaders have no chunk (0 in the table). */
    bitcts__vk_packed_shape shape = {0, 0};
    if (shader == BITCTS__VK_KIND_PACKED) {
        shape = bitcts__vk_packed_shape_of(&inst->opt, inst->max_threads, in_w, out_w,
                                           (flavor & BITCTS__VK_FLAVOR_TWO_STREAMS) != 0);
    }
    const int index = variant < 0 ? -1 : vk_find_spirv(shader, in_w, out_w, shape.chunk);
    if (index < 0 || shader_op >= BITCTS__VK_SHADER_OPS) {
        snprintf(inst->last_error, sizeof inst->last_error,
                 "no shader for kind %u with %u-byte input and %u-byte output", kind, in_w, out_w);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    VkPipeline *cached = &inst->pipelines[kind][variant][shader_op][flavor % BITCTS__VK_FLAVORS];
    if (*cached != VK_NULL_HANDLE) {
        *out = *cached;
        return BITCTS_ABI_OK;
    }
    VkShaderModule module = VK_NULL_HANDLE;
    const int32_t rc = vk_module(inst, index, &module); /* rows: packed's */
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    /* 0 OP, 1 FAULT_HANG and 2 UNROLL (the strided shader's), 3 ROWS and 4 UNROLL (the packed
     * shader's), 5 B_TILED and 6 the workgroup size (the tile shaders'), 7 the packed shader's
     * workgroup size; a shader ignores the constants it does not declare. */
    /* The tile shaders' workgroup: tile_threads, or by default (auto) 256 for 32 x 32 element
     * tiles and four passes a tile for the word-wide ones (1024 for 8-bit, 512 for 16-bit
     * elements), what an H100 run measured fastest (docs/gpu/h100.md); 256 where the device
     * allows no more. */
    uint32_t threads = inst->opt.tile_threads;
    if (threads == 0) {
        threads = kind == BITCTS__VK_KIND_TILEW ? 8u * bitcts__vk_tilew_side(out_w) : 256u;
    }
    if (threads > inst->max_threads) {
        threads = 256u;
    }
    const uint32_t constants[8] = {
        shader_op,
        (flavor & BITCTS__VK_FLAVOR_HANG) != 0 ? 1u : 0u,
        inst->opt.unroll,
        kind == BITCTS__VK_KIND_ROWS ? 1u : 0u,
        inst->opt.packed_unroll,
        (flavor & BITCTS__VK_FLAVOR_B_TILED) != 0 ? 1u : 0u,
        threads,
        shape.threads != 0 ? shape.threads : 1024u, /* unused outside the packed shader */
    };
    VkSpecializationMapEntry entries[8];
    for (uint32_t i = 0; i < 8; ++i) {
        entries[i] =
            (VkSpecializationMapEntry){i, i * (uint32_t)sizeof(uint32_t), sizeof(uint32_t)};
    }
    const VkSpecializationInfo spec = {8, entries, sizeof constants, constants};
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
        inst->vk.vkCreateComputePipelines(inst->device, VK_NULL_HANDLE, 1, &info, NULL, cached);
    if (r != VK_SUCCESS) {
        *cached = VK_NULL_HANDLE;
        return bitcts__vk_fail(inst, r, "vkCreateComputePipelines");
    }
    ++inst->pipeline_count;
    *out = *cached;
    return BITCTS_ABI_OK;
}

void bitcts__vk_pipelines_destroy(bitcts__vk_instance *inst)
{
    for (uint32_t k = 0; k < BITCTS__VK_KIND_COUNT; ++k) {
        for (uint32_t v = 0; v < BITCTS__VK_VARIANTS; ++v) {
            for (uint32_t o = 0; o < BITCTS__VK_SHADER_OPS; ++o) {
                for (uint32_t f = 0; f < BITCTS__VK_FLAVORS; ++f) {
                    if (inst->pipelines[k][v][o][f] != VK_NULL_HANDLE) {
                        inst->vk.vkDestroyPipeline(inst->device, inst->pipelines[k][v][o][f], NULL);
                    }
                }
            }
        }
    }
    for (uint32_t m = 0; m < BITCTS__VK_MODULES; ++m) {
        if (inst->modules[m] != VK_NULL_HANDLE) {
            inst->vk.vkDestroyShaderModule(inst->device, inst->modules[m], NULL);
        }
    }
    memset(inst->pipelines, 0, sizeof inst->pipelines);
    memset(inst->modules, 0, sizeof inst->modules);
}
