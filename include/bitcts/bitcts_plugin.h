/* SPDX-License-Identifier: MIT */
/* The bitcts backend ABI: one contract for built-in backends and third-party plugins. It speaks
 * DirectML's vocabulary (DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE, DML_BUFFER_TENSOR_DESC fields,
 * DML_FEATURE_LEVEL encoding; the numbers are in bitcts_dml.h). Part of the header-only SDK: it
 * needs stdint.h, stddef.h and the SDK's own headers. Requirements PLG-n are numbered in
 * docs/plugin-abi.md.
 * Thread-safety: the host calls one instance from one thread at a time; different instances may
 * be used from different threads. bitcts_plugin_negotiate may be called once per load. */
#ifndef BITCTS_INCLUDE_BITCTS_PLUGIN_H
#define BITCTS_INCLUDE_BITCTS_PLUGIN_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* fixed-width integers */

#include "bitcts_dml.h"    /* BITCTS_OP_*, BITCTS_DT_*, BITCTS_FL_*, BITCTS_TENSOR_FLAG_* */
#include "bitcts_status.h" /* the status list the BITCTS_ABI_* codes are tied to */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define BITCTS_PLUGIN_CALL __cdecl
#define BITCTS_PLUGIN_EXPORT __declspec(dllexport)
#else
#define BITCTS_PLUGIN_CALL
#define BITCTS_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ABI versions pack major (high 16 bits) and minor (low 16 bits). A minor bump only appends
 * fields and table slots; a major bump is incompatible (PLG-2). */
#define BITCTS_ABI_VERSION(major, minor) ((((uint32_t)(major)) << 16) | ((uint32_t)(minor)))
#define BITCTS_ABI_MAJOR(v) ((uint32_t)(v) >> 16)
#define BITCTS_ABI_MINOR(v) ((uint32_t)(v)&0xFFFFu)
#define BITCTS_ABI_VERSION_1_0 BITCTS_ABI_VERSION(1, 0)
#define BITCTS_ABI_VERSION_CURRENT BITCTS_ABI_VERSION_1_0

/* Status values a plugin returns: the same pinned numbers as bitcts_status.h, written out so
 * that a binding in another language can copy them, and checked against the list below. */
#define BITCTS_ABI_OK 0
#define BITCTS_ABI_E_INVALID_ARGUMENT 1
#define BITCTS_ABI_E_OUT_OF_MEMORY 2
#define BITCTS_ABI_E_INVALID_DESCRIPTOR 4
#define BITCTS_ABI_E_NOT_SUPPORTED 200
#define BITCTS_ABI_E_BACKEND_FAILED 201
#define BITCTS_ABI_E_DEVICE 202
#define BITCTS_ABI_E_INCOMPATIBLE 302

#ifdef __cplusplus
#define BITCTS_ABI_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define BITCTS_ABI_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_OK == BITCTS_OK, "BITCTS_ABI_OK");
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_E_INVALID_ARGUMENT == BITCTS_E_INVALID_ARGUMENT,
                         "BITCTS_ABI_E_INVALID_ARGUMENT");
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_E_OUT_OF_MEMORY == BITCTS_E_OUT_OF_MEMORY,
                         "BITCTS_ABI_E_OUT_OF_MEMORY");
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_E_INVALID_DESCRIPTOR == BITCTS_E_INVALID_DESCRIPTOR,
                         "BITCTS_ABI_E_INVALID_DESCRIPTOR");
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_E_NOT_SUPPORTED == BITCTS_E_NOT_SUPPORTED,
                         "BITCTS_ABI_E_NOT_SUPPORTED");
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_E_BACKEND_FAILED == BITCTS_E_BACKEND_FAILED,
                         "BITCTS_ABI_E_BACKEND_FAILED");
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_E_DEVICE == BITCTS_E_DEVICE, "BITCTS_ABI_E_DEVICE");
BITCTS_ABI_STATIC_ASSERT(BITCTS_ABI_E_INCOMPATIBLE == BITCTS_E_PLUGIN_INCOMPATIBLE,
                         "BITCTS_ABI_E_INCOMPATIBLE");

/* Log levels of the host's log callback. */
#define BITCTS_ABI_LOG_ERROR 0
#define BITCTS_ABI_LOG_WARN 1
#define BITCTS_ABI_LOG_INFO 2
#define BITCTS_ABI_LOG_DEBUG 3

/* bitcts_abi_op_caps.flags */
#define BITCTS_ABI_CAP_IN_PLACE 0x1u /* the output may alias an input (identical layout) */

/** DML_BUFFER_TENSOR_DESC, field for field. strides == NULL means packed. The arrays are
 * borrowed for the duration of the call that receives them. */
typedef struct bitcts_abi_tensor {
    uint32_t struct_size;
    uint32_t data_type;       /* DML_TENSOR_DATA_TYPE */
    uint32_t flags;           /* DML_TENSOR_FLAGS */
    uint32_t dimension_count; /* 1..8 */
    const uint32_t *sizes;
    const uint32_t *strides; /* in elements; NULL = packed */
    uint64_t total_tensor_size_in_bytes;
    uint32_t guaranteed_base_offset_alignment;
    uint32_t reserved0;
} bitcts_abi_tensor;

/** An operator description: DML_ELEMENT_WISE_BIT_*_OPERATOR_DESC. inputs[0] is ATensor (or
 * InputTensor), inputs[1] BTensor. */
typedef struct bitcts_abi_operator_desc {
    uint32_t struct_size;
    uint32_t operator_type; /* DML_OPERATOR_TYPE */
    uint32_t input_count;   /* 1 or 2 */
    uint32_t reserved0;
    const bitcts_abi_tensor *inputs; /* input_count entries */
    const bitcts_abi_tensor *output;
} bitcts_abi_operator_desc;

/** What a backend supports for one operator. Type masks have bit (1u << data_type) set;
 * dimension_counts has bit (1u << n) set for each supported DimensionCount n. */
typedef struct bitcts_abi_op_caps {
    uint32_t struct_size;
    uint32_t operator_type;
    uint32_t input_types;
    uint32_t output_types;
    uint32_t dimension_counts;
    uint32_t flags; /* BITCTS_ABI_CAP_* */
} bitcts_abi_op_caps;

/** Instance-wide capabilities. */
typedef struct bitcts_abi_caps {
    uint32_t struct_size;
    uint32_t feature_level; /* DML_FEATURE_LEVEL claimed, e.g. 0x4100 */
} bitcts_abi_caps;

/** Services the host offers. A plugin never links against the host. */
typedef struct bitcts_abi_host {
    uint32_t struct_size;
    uint32_t reserved0;
    void *user;
    void(BITCTS_PLUGIN_CALL *log)(void *user, int32_t level, const char *message);
    uint64_t(BITCTS_PLUGIN_CALL *now_ns)(void *user); /* monotonic clock */
} bitcts_abi_host;

/** Options for an instance as key/value strings (for example "variant"="avx2", "device"="0",
 * "threads"="2"). An unknown key must make instance_create fail (PLG-9). */
typedef struct bitcts_abi_create_info {
    uint32_t struct_size;
    uint32_t option_count;
    const char *const *option_keys;
    const char *const *option_values;
} bitcts_abi_create_info;

/** The plugin's function table. Append-only; NULL means "not provided" (PLG-4). The table and
 * its strings stay valid until plugin_shutdown returns. */
typedef struct bitcts_plugin_table {
    uint32_t struct_size;
    uint32_t reserved0;
    const char *name;     /* short, stable: "example" */
    const char *vendor;   /* "bitcts project" */
    const char *version;  /* free-form version string */
    const char *build_id; /* free-form build identity (commit, date) */

    int32_t(BITCTS_PLUGIN_CALL *instance_create)(const bitcts_abi_create_info *info,
                                                 void **out_instance);
    void(BITCTS_PLUGIN_CALL *instance_destroy)(void *instance);
    /* Detail text of the last failure on this instance; owned by the plugin, valid until the
     * next call on the instance. May return NULL or "". */
    const char *(BITCTS_PLUGIN_CALL *instance_last_error)(void *instance);
    int32_t(BITCTS_PLUGIN_CALL *query_caps)(void *instance, bitcts_abi_caps *out);
    /* BITCTS_ABI_E_NOT_SUPPORTED when the operator is not supported at all. */
    int32_t(BITCTS_PLUGIN_CALL *query_op_caps)(void *instance, uint32_t operator_type,
                                               bitcts_abi_op_caps *out);
    /* Validates and prepares an operator (CreateOperator + CompileOperator). Returns
     * BITCTS_ABI_E_INVALID_DESCRIPTOR for a description DirectML would reject and
     * BITCTS_ABI_E_NOT_SUPPORTED for a valid one it cannot run. */
    int32_t(BITCTS_PLUGIN_CALL *operator_create)(void *instance,
                                                 const bitcts_abi_operator_desc *desc,
                                                 void **out_operator);
    /* Runs the operator. inputs[i] and output point at buffers of exactly
     * total_tensor_size_in_bytes bytes; in place, output equals the aliased input pointer. */
    int32_t(BITCTS_PLUGIN_CALL *operator_execute)(void *instance, void *op,
                                                  const void *const *inputs, void *output);
    void(BITCTS_PLUGIN_CALL *operator_destroy)(void *instance, void *op);
    /* Free-form facts about the instance for reports ("variant", "features", "device");
     * NULL when unknown. Owned by the plugin, valid until instance_destroy. */
    const char *(BITCTS_PLUGIN_CALL *instance_info)(void *instance, const char *key);
    void(BITCTS_PLUGIN_CALL *plugin_shutdown)(void);
    /* Optional extensions by name; NULL when unknown. */
    const void *(BITCTS_PLUGIN_CALL *get_extension)(const char *name);
} bitcts_plugin_table;

/** The record the host passes to bitcts_plugin_negotiate. */
typedef struct bitcts_plugin_negotiation {
    uint32_t struct_size;
    uint32_t host_min_version;
    uint32_t host_max_version;
    uint32_t chosen_version;          /* out: written by the plugin */
    const bitcts_abi_host *host;      /* retained by the plugin until plugin_shutdown */
    const bitcts_plugin_table *table; /* out: written by the plugin */
} bitcts_plugin_negotiation;

/* ---- extensions (get_extension) ---- */

/** "bitcts_stream_v1": a backend's own streaming kernels over host memory, with the variant,
 * threads and store policy of an instance. `bitcts bench` measures the backend's operators
 * against them: the memory limit, measured in the same run on the same buffers. */
#define BITCTS_ABI_EXT_STREAM "bitcts_stream_v1"

typedef struct bitcts_abi_stream_ext {
    uint32_t struct_size;
    uint32_t reserved0;
    /** dst = src over `bytes` bytes (2 streams). */
    int32_t(BITCTS_PLUGIN_CALL *copy)(void *instance, void *dst, const void *src, uint64_t bytes);
    /** dst[i] = a[i] + 3 * b[i] over `words` uint64 words (3 streams, integer: no FP). */
    int32_t(BITCTS_PLUGIN_CALL *triad)(void *instance, void *dst, const void *a, const void *b,
                                       uint64_t words);
    /** Optional (read when struct_size covers it; NULL: none): the traffic of an operator whose
     * output is wider or narrower than its input, src read once over src_bytes and dst written
     * once over dst_bytes (2 streams), interleaved at their ratio, a power of two from 1/8 to 8;
     * another ratio is BITCTS_ABI_E_INVALID_ARGUMENT. dst's bytes are the backend's (no value
     * is checked). The bench's limit for a BIT_COUNT to another width. */
    int32_t(BITCTS_PLUGIN_CALL *shaped)(void *instance, void *dst, uint64_t dst_bytes,
                                        const void *src, uint64_t src_bytes);
} bitcts_abi_stream_ext;

/** "bitcts_device_timing_v1": for backends whose operators run on a device with its own memory
 * (GPUs), where the host's clock would time the transfers too. The backend keeps the buffers
 * resident on the device and times the work itself (timestamp queries), next to a copy on the
 * same device: the limit `bitcts bench` measures such a backend against. */
#define BITCTS_ABI_EXT_DEVICE_TIMING "bitcts_device_timing_v1"

/* Methods of bitcts_abi_device_timing_ext.time_copy. */
#define BITCTS_ABI_COPY_API 0u    /* the API's own buffer copy (vkCmdCopyBuffer, cudaMemcpy) */
#define BITCTS_ABI_COPY_KERNEL 1u /* a copy kernel written like the backend's operators */

typedef struct bitcts_abi_device_timing_ext {
    uint32_t struct_size;
    uint32_t reserved0;
    /** Uploads the operator's inputs and the output's initial bytes once, runs the operator
     * `reps` times on the device, writes each run's device time in nanoseconds to ns[0 ..
     * reps), then downloads the output of the last run into `output` (so the caller can check
     * it). Buffers are as for operator_execute. */
    int32_t(BITCTS_PLUGIN_CALL *time_execute)(void *instance, void *op, const void *const *inputs,
                                              void *output, uint32_t reps, uint64_t *ns);
    /** Copies `bytes` bytes between two device-local buffers `reps` times with `method`
     * (BITCTS_ABI_COPY_*) and writes each copy's device time in nanoseconds to ns[0 .. reps).
     * BITCTS_ABI_E_NOT_SUPPORTED for a method the backend lacks. */
    int32_t(BITCTS_PLUGIN_CALL *time_copy)(void *instance, uint64_t bytes, uint32_t method,
                                           uint32_t reps, uint64_t *ns);
} bitcts_abi_device_timing_ext;

/** "bitcts_batch_execute_v1": several executions in one call, for backends whose every call
 * pays a fixed cost (a device submission and its wait). The host uses it, when offered, for
 * runs of cases whose operators it has already created, and still judges each case apart. */
#define BITCTS_ABI_EXT_BATCH_EXECUTE "bitcts_batch_execute_v1"

/** One execution of a batch: an operator of the instance (from operator_create, not yet
 * destroyed), its buffers as for operator_execute, and the status the backend writes back. No
 * item's buffers overlap another item's. */
typedef struct bitcts_abi_batch_item {
    uint32_t struct_size;
    int32_t status; /* out: what operator_execute would have returned for this item */
    void *op;
    const void *const *inputs;
    void *output;
} bitcts_abi_batch_item;

typedef struct bitcts_abi_batch_ext {
    uint32_t struct_size;
    uint32_t reserved0;
    /** Runs items[0 .. count) with exactly the effect of operator_execute called on each in
     * order, and writes each item's status. Returns BITCTS_ABI_OK when every item's status was
     * written (each may be an error), another status when the call as a whole failed (the
     * items' statuses and outputs are then unspecified). instance_last_error describes the
     * last failing item, or the call's failure. */
    int32_t(BITCTS_PLUGIN_CALL *execute_batch)(void *instance, uint32_t count,
                                               bitcts_abi_batch_item *items);
} bitcts_abi_batch_ext;

#define BITCTS_PLUGIN_ENTRY_NAME "bitcts_plugin_negotiate"
typedef int32_t(BITCTS_PLUGIN_CALL *bitcts_plugin_negotiate_fn)(bitcts_plugin_negotiation *n);

#ifdef __cplusplus
}
#endif
#endif
