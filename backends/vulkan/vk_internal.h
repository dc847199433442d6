/* SPDX-License-Identifier: MIT */
/* Internal types and functions of the Vulkan backend, shared by its vk_*.c files and never
 * installed: the instance (device, queue, per-instance volk device table, device memory,
 * pipeline cache), the execution plan of an operator, and the helpers that map Vulkan errors
 * to bitcts statuses. Thread-safety: an instance and its operators are single-threaded (the
 * ABI's one-thread-per-instance rule); the process-wide loader lock in vk_device.c guards
 * volk's global pointers. */
#ifndef BITCTS_VULKAN_VK_INTERNAL_H
#define BITCTS_VULKAN_VK_INTERNAL_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* fixed-width integers */

#include "bitcts/bitcts_plugin.h" /* bitcts_abi_*, BITCTS_ABI_*, BITCTS_DT_*, BITCTS_OP_* */
#include "vk_abi.h"               /* BITCTS_VK_*: the numbers the shaders share */
#include <volk.h>                 /* Vulkan types, struct VolkDeviceTable */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options (vk_options.c) ---- */

#define BITCTS__VK_FAULT_NONE 0u
#define BITCTS__VK_FAULT_HANG 1u       /* the strided shader spins until cancelled */
#define BITCTS__VK_FAULT_OOM 2u        /* device allocations report out of memory */
#define BITCTS__VK_FAULT_LOST 3u       /* the next submit reports VK_ERROR_DEVICE_LOST */
#define BITCTS__VK_FAULT_VALIDATION 4u /* the next execute records an invalid barrier */

#define BITCTS__VK_DISABLE_STORAGE8 0x1u
#define BITCTS__VK_DISABLE_STORAGE16 0x2u

#define BITCTS__VK_PATH_AUTO 0u
#define BITCTS__VK_PATH_STRIDED 1u /* every operator on the general shader */

#define BITCTS__VK_DEVICE_AUTO (-1)

typedef struct bitcts__vk_options {
    int32_t device;           /* index, or BITCTS__VK_DEVICE_AUTO */
    uint32_t timeout_ms;      /* deadline of one submission */
    uint32_t validation;      /* 1: VK_LAYER_KHRONOS_validation with a debug messenger */
    uint32_t fault;           /* BITCTS__VK_FAULT_* */
    uint32_t disable;         /* BITCTS__VK_DISABLE_* */
    uint32_t path;            /* BITCTS__VK_PATH_* */
    uint32_t staging_mib;     /* largest staging buffer; larger transfers go in pieces */
    uint32_t unroll;          /* the strided shader's elements per invocation and pass: 1-8 */
    uint32_t packed_unroll;   /* the packed shader's chunks per invocation and pass: 1-4 */
    uint32_t tile_threads;    /* the tile shaders' workgroup: 256, 512, 1024, or 0 for auto */
    uint32_t packed_threads;  /* the packed shader's workgroup: 64-1024 (a power of 2), 0: auto */
    uint32_t packed_chunk;    /* the packed shader's output bytes per chunk: 4, 8, 16, or 0: auto */
    uint32_t max_groups;      /* bound of every grid, or 0 for auto (as large as the work) */
    uint32_t tile_span;       /* tiles per workgroup of the tile shaders: 1-64, or 0 for auto */
    uint32_t timing_rounds;   /* most timed rounds a device-timing call runs, or 0 for auto */
    char loader[256];         /* the Vulkan loader library to open */
    char pipeline_cache[256]; /* auto, off, or the directory of the pipeline cache's file */
} bitcts__vk_options;

/** Parses create-info options; err names the bad key or value.
 * @return BITCTS_ABI_OK or BITCTS_ABI_E_INVALID_ARGUMENT. */
int32_t bitcts__vk_options_parse(const bitcts_abi_create_info *info, bitcts__vk_options *out,
                                 char *err, size_t cap);

/* ---- the plan of an operator (vk_plan.c) ---- */

#define BITCTS__VK_KIND_PACKED 0u
#define BITCTS__VK_KIND_TILE 1u
#define BITCTS__VK_KIND_STRIDED 2u
#define BITCTS__VK_KIND_ROWS 3u  /* the packed shader over rows at any row strides */
#define BITCTS__VK_KIND_TILEW 4u /* the tile path a 32-bit word at a time (8/16-bit) */
#define BITCTS__VK_KIND_COUNT 5u

/* What a pipeline is created from, and the pipeline cache's key: a shader binary (its index
 * in the embedded table, which names the shader, the widths and the packed shader's chunk)
 * and the values of its specialization constants (the operator; the flavors hang, rows and B
 * tiled; the unrolls; the workgroup sizes). Plans with equal keys share a pipeline. */
typedef struct bitcts__vk_pipeline_key {
    uint32_t binary;
    uint32_t spec[BITCTS_VK_SPEC_COUNT];
} bitcts__vk_pipeline_key;

/* What planning needs to know of the device. */
typedef struct bitcts__vk_limits {
    uint32_t max_threads; /* the largest workgroup along x the device allows */
    uint32_t max_shared;  /* maxComputeSharedMemorySize */
} bitcts__vk_limits;

/* The packed shader's shape for an operator: output bytes per chunk and invocations per
 * workgroup (before the device's bound), by the options packed_chunk and packed_threads or
 * else by the operator (vk_plan.c). */
typedef struct bitcts__vk_packed_shape {
    uint32_t chunk;
    uint32_t threads;
} bitcts__vk_packed_shape;

/* A side, in elements, of the word-wide tile shader's tiles: 32 words of w-byte elements
 * (vk_tilew.comp's TR for the input's width, TC for the output's). */
static inline uint32_t bitcts__vk_tilew_side(uint32_t w)
{
    return BITCTS_VK_TILE * (4u / w);
}

/* Operand slots in the plan: output first, then the inputs. */
#define BITCTS__VK_OUT 0u
#define BITCTS__VK_A 1u
#define BITCTS__VK_B 2u

typedef struct bitcts__vk_plan {
    uint32_t kind;      /* BITCTS__VK_KIND_* */
    uint32_t shader_op; /* the shaders' operator code (vk_abi.h) */
    uint32_t operator_type;
    uint32_t input_count;
    uint32_t width[3]; /* element bytes per operand */
    uint32_t count;    /* logical elements */
    uint32_t rank;     /* after coalescing, >= 1; dimensions outermost first */
    uint32_t sizes[BITCTS_MAX_DIMS];
    uint32_t strides[3][BITCTS_MAX_DIMS]; /* in elements */
    uint64_t span[3];                     /* bytes from the base to the end of the last element */
    uint32_t out_dense;                   /* the output's elements fill [0, span) */
    uint32_t flags;   /* packed and rows: scalar inputs; tile: transposed inputs */
    uint32_t chunk;   /* packed and rows: output bytes per chunk (bitcts__vk_packed_shape_of) */
    uint32_t threads; /* packed and rows: invocations per workgroup (the same, within the device) */
    uint32_t tiles_per_group;    /* tile kinds: tiles a workgroup takes (tile_span) */
    bitcts__vk_pipeline_key key; /* the pipeline it runs on */
} bitcts__vk_plan;

/* An operator description, validated (vk_validate.c). */
typedef struct bitcts__vk_desc {
    uint32_t op;
    uint32_t input_count;
    uint32_t rank;
    uint32_t sizes[BITCTS_MAX_DIMS];
    uint32_t data_type[3];
    uint32_t width[3];
    uint32_t strides[3][BITCTS_MAX_DIMS]; /* explicit, or the packed strides */
} bitcts__vk_desc;

/** Builds the final plan of an operator under the options and the device's limits: coalesced
 * dimensions, spans, the shader kind (fault=hang and too little shared memory included), the
 * packed shader's shape and the pipeline key. Nothing changes a plan after this.
 * @return BITCTS_ABI_OK, or BITCTS_ABI_E_NOT_SUPPORTED (an element offset beyond 2^32-1, or
 *         no shader binary for the widths; explained in err). */
int32_t bitcts__vk_plan_build(const bitcts__vk_desc *desc, const bitcts__vk_options *opt,
                              const bitcts__vk_limits *lim, bitcts__vk_plan *plan, char *err,
                              size_t cap);

/** The plan of the timing extension's copy kernel: the packed shader's copy operator over
 * `bytes` (rounded up to 32-bit words).
 * @return as bitcts__vk_plan_build. */
int32_t bitcts__vk_plan_copy(uint64_t bytes, const bitcts__vk_options *opt,
                             const bitcts__vk_limits *lim, bitcts__vk_plan *plan, char *err,
                             size_t cap);

/** The packed shader's shape for in_w-byte inputs to out_w-byte outputs, two_streams when
 * both inputs of a binary operator are read (neither is a broadcast scalar); threads is at
 * most max_threads (256 where the choice is larger). */
bitcts__vk_packed_shape bitcts__vk_packed_shape_of(const bitcts__vk_options *opt,
                                                   uint32_t max_threads, uint32_t in_w,
                                                   uint32_t out_w, int two_streams);

/** The constants of the strided shader's division by d (d >= 1), Granlund and Montgomery's
 * round-up method: q = (hi + ((n - hi) >> pre)) >> post with hi the high word of n * magic;
 * shifts = post | pre << 8. */
void bitcts__vk_divisor(uint32_t d, uint32_t *magic, uint32_t *shifts);

/** The strided shader's dimensions beyond the innermost two (the push constants hold those),
 * innermost first, 8 uint32 each: size, output, A and B strides, the size's magic and shifts,
 * two zeros. Returns how many uint32 it wrote. */
uint32_t bitcts__vk_plan_outer_dims(const bitcts__vk_plan *plan, uint32_t *out);

/* ---- device memory ---- */

typedef struct bitcts__vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkDeviceAddress address; /* 0 where the buffer has none */
    void *map;               /* host-visible buffers only */
} bitcts__vk_buffer;

/* Device-local buffers grown on demand: the output, the inputs, the strided shader's
 * parameters, and the timing extension's pristine copy of an in-place input. */
#define BITCTS__VK_SLOT_OUT 0u
#define BITCTS__VK_SLOT_A 1u
#define BITCTS__VK_SLOT_B 2u
#define BITCTS__VK_SLOT_PARAMS 3u
#define BITCTS__VK_SLOT_PRISTINE 4u
#define BITCTS__VK_SLOT_BATCH 5u /* the batch extension's operands, one region each */
#define BITCTS__VK_SLOT_COUNT 6u

#define BITCTS__VK_MODULES 64u /* room for every shader binary (vk_spirv.h's table) */

/* A pipeline of the instance's cache, and the key it was created from. */
typedef struct bitcts__vk_cached_pipeline {
    bitcts__vk_pipeline_key key;
    VkPipeline pipeline;
} bitcts__vk_cached_pipeline;

/* instance->state */
#define BITCTS__VK_STATE_OK 0u
#define BITCTS__VK_STATE_LOST 1u   /* VK_ERROR_DEVICE_LOST was seen */
#define BITCTS__VK_STATE_WEDGED 2u /* a timed-out submission did not stop */

typedef struct bitcts__vk_instance {
    bitcts__vk_options opt;
    void *loader; /* dlopen handle of the Vulkan loader, owned */
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkDevice device;
    struct VolkDeviceTable vk; /* this instance's device functions */
    uint32_t queue_family;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkPipelineLayout layout;
    VkShaderModule modules[BITCTS__VK_MODULES]; /* by index in the SPIR-V table */
    bitcts__vk_cached_pipeline *pipelines;      /* owned; pipeline_count of pipeline_room in use */
    uint32_t pipeline_count;
    uint32_t pipeline_room;
    VkPhysicalDeviceMemoryProperties memory;
    VkDeviceSize max_allocation;
    uint32_t max_groups;
    bitcts__vk_limits limits;
    uint32_t timing_rounds; /* most timed rounds (option; auto: 1 on a CPU device, else 40) */
    float timestamp_period; /* ns per tick */
    uint32_t timestamp_bits;
    uint32_t has_storage8; /* enabled on the device */
    uint32_t has_storage16;
    uint32_t fault_armed; /* one-shot faults (lost, validation) not yet fired */
    bitcts__vk_buffer slots[BITCTS__VK_SLOT_COUNT];
    bitcts__vk_buffer staging;
    bitcts__vk_buffer control; /* host-visible word the hang fault polls */
    uint32_t state;            /* BITCTS__VK_STATE_* */
    uint32_t validation_count;
    uint32_t validation_reported;
    char validation_first[512];
    char last_error[640];
    char info_device[288];
    char info_driver[320];
    char info_api[24];
    char info_features[256];
    char info_count[16];
    char info_memory[24];   /* MiB of the largest device-local heap */
    VkPipelineCache pcache; /* loaded from and saved to pcache_path, or VK_NULL_HANDLE */
    size_t pcache_loaded;   /* bytes it was created with */
    char pcache_path[320];  /* "" when there is no file (pipeline_cache=off) */
} bitcts__vk_instance;

/* ---- vk_device.c ---- */

/** Opens the loader, creates the VkInstance (with validation when asked), picks the physical
 * device, creates the device, queue, command buffer, fence and pipeline layout.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_NOT_SUPPORTED (no loader, no device, a device without
 *         Vulkan 1.2 or bufferDeviceAddress, no validation layer); BITCTS_ABI_E_INVALID_ARGUMENT
 *         (device=N out of range); BITCTS_ABI_E_OUT_OF_MEMORY; BITCTS_ABI_E_DEVICE. */
int32_t bitcts__vk_device_create(bitcts__vk_instance *inst, char *err, size_t cap);

/** Releases everything bitcts__vk_device_create and later calls made; NULL handles are skipped. */
void bitcts__vk_device_destroy(bitcts__vk_instance *inst);

/* ---- vk_pcache.c ---- */

/** Names the instance's pipeline cache file from the device's properties (pcache_path, "" for
 * none: pipeline_cache=off, no home) and creates its folder (and $XDG_CACHE_HOME or ~/.cache
 * under auto) where missing. */
void bitcts__vk_pcache_name(bitcts__vk_instance *inst, const VkPhysicalDeviceProperties *p);

/** Creates the instance's pipeline cache from its file when that holds data this backend wrote.
 * Best effort: no file, no cache; no name, no cache at all. */
void bitcts__vk_pcache_open(bitcts__vk_instance *inst);

/** Writes the cache back when it grew (merged with the file's data, write then rename) and
 * destroys it. */
void bitcts__vk_pcache_close(bitcts__vk_instance *inst);

/** BITCTS_ABI_E_BACKEND_FAILED with the first validation message when messages arrived
 * since the last check; BITCTS_ABI_OK otherwise. */
int32_t bitcts__vk_check_validation(bitcts__vk_instance *inst);

/* ---- vk_result.c ---- */

/** Text name of a VkResult ("VK_ERROR_DEVICE_LOST"). */
const char *bitcts__vk_result_name(VkResult result);

/** Maps a failed VkResult to a status, marks the instance lost on VK_ERROR_DEVICE_LOST and
 * writes "what: VK_..." into last_error. */
int32_t bitcts__vk_fail(bitcts__vk_instance *inst, VkResult result, const char *what);

/* ---- vk_memory.c ---- */

/** Makes a device-local slot at least `bytes` long (contents are lost when it grows). */
int32_t bitcts__vk_slot_reserve(bitcts__vk_instance *inst, uint32_t slot, VkDeviceSize bytes);

/** Makes the staging buffer at least `bytes` long (at most the staging limit). */
int32_t bitcts__vk_staging_reserve(bitcts__vk_instance *inst, VkDeviceSize bytes);

/** Creates a host-visible buffer (the control word). */
int32_t bitcts__vk_host_buffer_create(bitcts__vk_instance *inst, VkDeviceSize bytes,
                                      VkBufferUsageFlags usage, bitcts__vk_buffer *out);

void bitcts__vk_buffer_destroy(bitcts__vk_instance *inst, bitcts__vk_buffer *b);

/** Starts recording the instance's command buffer. */
int32_t bitcts__vk_begin(bitcts__vk_instance *inst);

/** Ends, submits and waits up to the instance's timeout; a timed-out hang fault is
 * cancelled. Maps every failure (BITCTS_ABI_E_DEVICE, BITCTS_ABI_E_OUT_OF_MEMORY). */
int32_t bitcts__vk_submit_wait(bitcts__vk_instance *inst, const char *what);

/** Records a full memory dependency between two pipeline stages. */
void bitcts__vk_barrier(bitcts__vk_instance *inst, VkPipelineStageFlags src,
                        VkAccessFlags src_access, VkPipelineStageFlags dst,
                        VkAccessFlags dst_access);

/** One host-device transfer of a call: host bytes to or from a region of a slot. */
typedef struct bitcts__vk_transfer {
    void *host;
    uint32_t slot;
    VkDeviceSize bytes;
} bitcts__vk_transfer;

/** Uploads, runs `record` (the dispatches) and downloads, in one submission when everything
 * fits the staging buffer and in pieces otherwise. */
typedef int32_t (*bitcts__vk_record_fn)(bitcts__vk_instance *inst, void *ctx);
int32_t bitcts__vk_run(bitcts__vk_instance *inst, const bitcts__vk_transfer *up, uint32_t n_up,
                       const bitcts__vk_transfer *down, uint32_t n_down,
                       bitcts__vk_record_fn record, void *ctx);

/* ---- vk_shaders.c ---- */

/* One shader binary of the embedded table (vk_spirv.h): the shader (BITCTS__VK_KIND_PACKED,
 * _TILE, _TILEW or _STRIDED), the widths it was built for and the packed shader's chunk. */
typedef struct bitcts__vk_spirv {
    uint32_t kind;
    uint32_t in_w;
    uint32_t out_w;
    uint32_t chunk; /* the packed shader's output bytes per chunk; 0 for the others */
    const uint32_t *words;
    size_t bytes;
} bitcts__vk_spirv;

/** The index in the embedded table of the binary of a shader, or -1 where the build made
 * none. */
int bitcts__vk_binary_find(uint32_t kind, uint32_t in_w, uint32_t out_w, uint32_t chunk);

/** The binary at an index bitcts__vk_binary_find returned. */
const bitcts__vk_spirv *bitcts__vk_binary(uint32_t index);

/** Whether the build made the packed shader with chunks of c output bytes for the widths (the
 * embedded table: 4, 8 or 16 bytes holding at least an output element and an input word). */
int bitcts__vk_packed_chunk_made(uint32_t in_w, uint32_t out_w, uint32_t c);

/** The pipeline of a key (a plan's): the instance's cached one, or one created from the key
 * and cached.
 * @return BITCTS_ABI_OK, BITCTS_ABI_E_OUT_OF_MEMORY (the cache cannot grow), or a mapped
 *         Vulkan failure. */
int32_t bitcts__vk_pipeline_get(bitcts__vk_instance *inst, const bitcts__vk_pipeline_key *key,
                                VkPipeline *out);

/** Destroys every cached pipeline and shader module. */
void bitcts__vk_pipelines_destroy(bitcts__vk_instance *inst);

/* ---- vk_exec.c ---- */

typedef struct bitcts__vk_operator {
    bitcts__vk_plan plan;
    VkPipeline pipeline;
    uint32_t params_words; /* strided: uint32 words of outer dimensions */
    uint32_t params[BITCTS_VK_OUTER_DIM_WORDS * BITCTS_MAX_DIMS];
} bitcts__vk_operator;

/** Gets the pipeline of a planned operator, after checking the storage features its plan
 * needs, and the strided shader's parameter block. The plan is not changed. */
int32_t bitcts__vk_operator_prepare(bitcts__vk_instance *inst, bitcts__vk_operator *op);

/** operator_execute: uploads, dispatches, downloads. */
int32_t bitcts__vk_execute(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                           const void *const *inputs, void *output);

/** Records the operator's dispatch with operands in the given slots (the timing extension
 * uses it between timestamps). */
void bitcts__vk_record_dispatch(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                                const uint32_t operand_slot[3]);

/** The same with the operands' device addresses given (the batch extension's regions) and the
 * strided shader's parameter block at `params`. */
void bitcts__vk_record_dispatch_at(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                                   const VkDeviceAddress addr[3], VkDeviceAddress params);

/** An execution's operand slots (an aliased input shares the output's slot) and the transfers
 * that bring the operands to the device and the output back. */
typedef struct bitcts__vk_exec_io {
    uint32_t operand_slot[3];
    bitcts__vk_transfer up[4];
    bitcts__vk_transfer down[1];
    uint32_t n_up;
    uint32_t n_down;
} bitcts__vk_exec_io;

/** The slots of an execution's operands and its transfers: which bytes go up (the inputs, the
 * output's own bytes when they hold an input or padding, the parameters) and come down. */
void bitcts__vk_exec_transfers(const bitcts__vk_operator *op, const void *const *inputs,
                               void *output, bitcts__vk_exec_io *io);

/** Fills io for an execution of op and grows every slot its transfers and the plan touch.
 * @return BITCTS_ABI_OK or the status of a slot that could not grow. */
int32_t bitcts__vk_exec_prepare(bitcts__vk_instance *inst, const bitcts__vk_operator *op,
                                const void *const *inputs, void *output, bitcts__vk_exec_io *io);

/* ---- vk_batch.c ---- */

/** operator_execute as the backend's table has it (arguments checked, the device usable). */
typedef int32_t (*bitcts__vk_execute_fn)(void *instance, void *op, const void *const *inputs,
                                         void *output);

/** The "bitcts_batch_execute_v1" extension's call: items in sub-batches of one submission
 * each (uploads, dispatches, downloads), sized by the staging limit and the largest
 * allocation, the operands in regions of the batch slot. Items that cannot share a submission
 * (too large, an injected fault, validation on, a device not usable) run through `solo`, as
 * operator_execute would run them. */
int32_t bitcts__vk_batch_execute(bitcts__vk_instance *inst, uint32_t count,
                                 bitcts_abi_batch_item *items, bitcts__vk_execute_fn solo);

/** Records a buffer copy of `bytes` bytes between offsets of two buffers. */
void bitcts__vk_copy(bitcts__vk_instance *inst, VkBuffer src, VkDeviceSize src_off, VkBuffer dst,
                     VkDeviceSize dst_off, VkDeviceSize bytes);

/* ---- vk_timing.c ---- */

/** The "bitcts_device_timing_v1" extension table. */
extern const bitcts_abi_device_timing_ext bitcts__vk_timing_ext;

/* ---- vk_validate.c ---- */

/** Validates an operator description the way DirectML does and fills desc.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_INVALID_ARGUMENT; BITCTS_ABI_E_NOT_SUPPORTED (not one
 *         of the seven); BITCTS_ABI_E_INVALID_DESCRIPTOR (err names the rule);
 *         BITCTS_ABI_E_OUT_OF_MEMORY (the exact overlap check). */
int32_t bitcts__vk_validate(const bitcts_abi_operator_desc *abi, bitcts__vk_desc *desc, char *err,
                            size_t cap);

#ifdef __cplusplus
}
#endif
#endif
