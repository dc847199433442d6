/* SPDX-License-Identifier: MIT */
/* The "cpu" backend behind the plugin ABI: instance options and variant selection, capability
 * queries, operator creation (the SDK's backend kit validates, then a walk plan) and execution
 * on the instance's thread pool. Exported as bitcts_cpu_negotiate, and as
 * bitcts_plugin_negotiate when built as a plugin module (BITCTS_CPU_AS_PLUGIN). */
#include "cpu_backend.h"

#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free, getenv, strtoul */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_backend_kit.h" /* validation, negotiation, capability records */
#include "cpu_dispatch.h"
#include "cpu_features.h"
#include "cpu_threads.h"
#include "cpu_walk.h"

#ifndef BITCTS_CPU_BUILD_ID
#define BITCTS_CPU_BUILD_ID "unknown"
#endif
#define CPU_VERSION "1.0.0"
#define CPU_FEATURE_LEVEL BITCTS_FL_4_1
#define CPU_NT_AUTO 0u
#define CPU_NT_ALWAYS 1u
#define CPU_NT_NEVER 2u

typedef struct cpu_instance {
    const bitcts__cpu_variant *variant;
    bitcts__cpu_kernels kernels;
    uint32_t threads;
    uint32_t nt_policy;
    bitcts__cpu_pool *pool;
    char last_error[256];
    char features_text[160];
    char variants_text[96];
    char threads_text[16];
} cpu_instance;

typedef struct cpu_operator {
    bitcts__cpu_plan plan;
    bitcts__cpu_kernel_fn *kernel;
    uint32_t flags;
    bitcts_kit_op desc; /* the validated description, for the check of each call's buffers */
} cpu_operator;

#define CPU_MAX_CPU_ID 4095u

typedef struct cpu_options {
    const char *variant; /* NULL: auto */
    uint32_t threads;
    uint32_t nt_policy;
    uint32_t cpus[BITCTS__CPU_MAX_THREADS]; /* worker i on cpus[i % cpu_count]; none: anywhere */
    uint32_t cpu_count;
} cpu_options;

/* Log services of the host that negotiated last. The ABI retains the host table until
 * plugin_shutdown; the text of a refused instance has nowhere else to go (see cpu_backend.h). */
static const bitcts_abi_host *cpu_host;

static int32_t cpu_parse_threads(const char *text, uint32_t *out)
{
    char *end = NULL;
    if (text[0] < '0' || text[0] > '9') {
        return -1;
    }
    const unsigned long v = strtoul(text, &end, 10);
    if (*end != '\0' || v < 1 || v > BITCTS__CPU_MAX_THREADS) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* "0,2,4": the CPUs the workers run on, in worker order. */
static int32_t cpu_parse_cpus(const char *text, cpu_options *opt)
{
    const char *p = text;
    opt->cpu_count = 0;
    while (opt->cpu_count < BITCTS__CPU_MAX_THREADS && *p >= '0' && *p <= '9') {
        char *end = NULL;
        const unsigned long v = strtoul(p, &end, 10);
        if (v > CPU_MAX_CPU_ID || (*end != ',' && *end != '\0')) {
            return -1;
        }
        opt->cpus[opt->cpu_count++] = (uint32_t)v;
        if (*end == '\0') {
            return 0;
        }
        p = end + 1;
    }
    return -1;
}

static int32_t cpu_parse_option(const char *key, const char *value, cpu_options *opt, char *err,
                                size_t cap)
{
    if (strcmp(key, "variant") == 0) {
        opt->variant = value;
    } else if (strcmp(key, "threads") == 0) {
        if (cpu_parse_threads(value, &opt->threads) != 0) {
            snprintf(err, cap, "option threads=%s: expected an integer from 1 to %u", value,
                     BITCTS__CPU_MAX_THREADS);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
    } else if (strcmp(key, "cpus") == 0) {
        if (cpu_parse_cpus(value, opt) != 0) {
            snprintf(err, cap, "option cpus=%s: expected 1 to %u CPU numbers 0-%u, e.g. 0,2,4",
                     value, BITCTS__CPU_MAX_THREADS, CPU_MAX_CPU_ID);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
    } else if (strcmp(key, "nt") == 0) {
        if (strcmp(value, "auto") == 0) {
            opt->nt_policy = CPU_NT_AUTO;
        } else if (strcmp(value, "always") == 0) {
            opt->nt_policy = CPU_NT_ALWAYS;
        } else if (strcmp(value, "never") == 0) {
            opt->nt_policy = CPU_NT_NEVER;
        } else {
            snprintf(err, cap, "option nt=%s: expected auto, always or never", value);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
    } else {
        snprintf(err, cap, "unknown option '%s' (known: variant, threads, nt, cpus)", key);
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    return BITCTS_ABI_OK;
}

/* Options, then the environment for an absent variant, then the variant itself. */
static int32_t cpu_resolve_options(const bitcts_abi_create_info *info, cpu_options *opt,
                                   const bitcts__cpu_variant **variant,
                                   bitcts__cpu_kernels *kernels, char *err, size_t cap)
{
    opt->variant = NULL;
    opt->threads = bitcts__cpu_threads_default();
    opt->nt_policy = CPU_NT_AUTO;
    opt->cpu_count = 0;
    if (info != NULL) {
        if (info->struct_size < sizeof *info ||
            (info->option_count > 0 &&
             (info->option_keys == NULL || info->option_values == NULL))) {
            snprintf(err, cap, "create info missing fields or struct_size too small");
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
        for (uint32_t i = 0; i < info->option_count; ++i) {
            const char *key = info->option_keys[i];
            const char *value = info->option_values[i];
            if (key == NULL || value == NULL) {
                snprintf(err, cap, "option %u has a NULL key or value", i);
                return BITCTS_ABI_E_INVALID_ARGUMENT;
            }
            const int32_t rc = cpu_parse_option(key, value, opt, err, cap);
            if (rc != BITCTS_ABI_OK) {
                return rc;
            }
        }
    }
    if (opt->variant == NULL) {
        const char *env = getenv("BITCTS_CPU_VARIANT");
        opt->variant = env != NULL && env[0] != '\0' ? env : NULL;
    }
    return bitcts__cpu_dispatch_select(opt->variant, bitcts__cpu_features_get(), variant, kernels,
                                       err, cap);
}

int32_t bitcts_cpu_check_options(const bitcts_abi_create_info *info, char *err, size_t err_cap)
{
    cpu_options opt;
    const bitcts__cpu_variant *variant = NULL;
    bitcts__cpu_kernels kernels;
    char local[256] = "";
    const int32_t rc = cpu_resolve_options(info, &opt, &variant, &kernels, local, sizeof local);
    if (err != NULL && err_cap > 0) {
        snprintf(err, err_cap, "%s", rc == BITCTS_ABI_OK ? "" : local);
    }
    return rc;
}

static int32_t BITCTS_PLUGIN_CALL cpu_instance_create(const bitcts_abi_create_info *info,
                                                      void **out_instance)
{
    if (out_instance == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    *out_instance = NULL;
    cpu_options opt;
    const bitcts__cpu_variant *variant = NULL;
    bitcts__cpu_kernels kernels;
    char err[256] = "";
    int32_t rc = cpu_resolve_options(info, &opt, &variant, &kernels, err, sizeof err);
    cpu_instance *inst = NULL;
    if (rc == BITCTS_ABI_OK) {
        inst = calloc(1, sizeof *inst);
        rc = inst == NULL ? BITCTS_ABI_E_OUT_OF_MEMORY : BITCTS_ABI_OK;
    }
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__cpu_pool_create(opt.threads, BITCTS__CPU_WALK_SCRATCH_BYTES, opt.cpus,
                                     opt.cpu_count, &inst->pool, err, sizeof err);
    }
    if (rc != BITCTS_ABI_OK) {
        char message[300];
        snprintf(message, sizeof message, "cpu: %s", err[0] ? err : "out of memory");
        bitcts_kit_host_log(cpu_host, BITCTS_ABI_LOG_ERROR, message);
        free(inst);
        return rc;
    }
    inst->variant = variant;
    inst->kernels = kernels;
    inst->threads = opt.threads;
    inst->nt_policy = opt.nt_policy;
    const uint64_t features = bitcts__cpu_features_get();
    bitcts__cpu_features_format(features, inst->features_text, sizeof inst->features_text);
    bitcts__cpu_dispatch_list(features, inst->variants_text, sizeof inst->variants_text);
    snprintf(inst->threads_text, sizeof inst->threads_text, "%u", opt.threads);
    *out_instance = inst;
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL cpu_instance_destroy(void *instance)
{
    cpu_instance *inst = instance;
    if (inst != NULL) {
        bitcts__cpu_pool_destroy(inst->pool);
        free(inst);
    }
}

static const char *BITCTS_PLUGIN_CALL cpu_instance_last_error(void *instance)
{
    return instance != NULL ? ((cpu_instance *)instance)->last_error : "";
}

static int32_t BITCTS_PLUGIN_CALL cpu_query_caps(void *instance, bitcts_abi_caps *out)
{
    return instance != NULL ? bitcts_kit_caps_fill(out, CPU_FEATURE_LEVEL)
                            : BITCTS_ABI_E_INVALID_ARGUMENT;
}

/* Everything DirectML documents for the seven operators. */
static int32_t BITCTS_PLUGIN_CALL cpu_query_op_caps(void *instance, uint32_t operator_type,
                                                    bitcts_abi_op_caps *out)
{
    return instance != NULL ? bitcts_kit_op_caps_fill(out, operator_type)
                            : BITCTS_ABI_E_INVALID_ARGUMENT;
}

static uint32_t cpu_log2(uint32_t width)
{
    return width == 1 ? 0u : width == 2 ? 1u : width == 4 ? 2u : 3u;
}

static bitcts__cpu_kernel_fn *cpu_pick_kernel(const bitcts__cpu_kernels *k,
                                              const bitcts_kit_op *desc)
{
    const uint32_t lw = cpu_log2(desc->tensors[BITCTS_KIT_A].width);
    switch (desc->operator_type) {
    case BITCTS_OP_BIT_AND: return k->bitwise[BITCTS__CPU_BITWISE_AND];
    case BITCTS_OP_BIT_OR: return k->bitwise[BITCTS__CPU_BITWISE_OR];
    case BITCTS_OP_BIT_XOR: return k->bitwise[BITCTS__CPU_BITWISE_XOR];
    case BITCTS_OP_BIT_NOT: return k->bit_not;
    case BITCTS_OP_BIT_SHIFT_LEFT: return k->shift_left[lw];
    case BITCTS_OP_BIT_SHIFT_RIGHT: return k->shift_right[lw];
    default: return k->count[lw][desc->tensors[BITCTS_KIT_OUTPUT].width == 4 ? 1 : 0];
    }
}

static int32_t BITCTS_PLUGIN_CALL cpu_operator_create(void *instance,
                                                      const bitcts_abi_operator_desc *desc,
                                                      void **out_operator)
{
    cpu_instance *inst = instance;
    if (inst == NULL || out_operator == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    *out_operator = NULL;
    inst->last_error[0] = '\0';
    bitcts_kit_op checked;
    const int32_t rc =
        bitcts_kit_validate_op(desc, &checked, inst->last_error, sizeof inst->last_error);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    cpu_operator *op = calloc(1, sizeof *op);
    if (op == NULL) {
        snprintf(inst->last_error, sizeof inst->last_error, "out of memory");
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    op->desc = checked;
    op->kernel = cpu_pick_kernel(&inst->kernels, &checked);
    op->flags = cpu_log2(checked.tensors[BITCTS_KIT_A].width) << BITCTS__CPU_F_LOG2W_SHIFT;
    /* The walk's operands: the output, then the inputs; packed ones without strides. */
    const uint32_t order[3] = {BITCTS_KIT_OUTPUT, BITCTS_KIT_A, BITCTS_KIT_B};
    const uint32_t *strides[3];
    uint32_t widths[3];
    for (uint32_t k = 0; k < 3; ++k) {
        const bitcts_kit_tensor *t = &op->desc.tensors[order[k]];
        strides[k] = t->has_strides ? t->strides : NULL;
        widths[k] = t->width;
    }
    bitcts__cpu_plan_build(&op->plan, checked.rank, checked.sizes, 1 + checked.input_count, strides,
                           widths);
    *out_operator = op;
    return BITCTS_ABI_OK;
}

typedef struct cpu_task {
    const bitcts__cpu_plan *plan;
    const bitcts__cpu_call *call;
} cpu_task;

static void cpu_run_task(void *arg, uint32_t index, uint32_t count, unsigned char *scratch)
{
    const cpu_task *task = arg;
    const size_t units = task->plan->units;
    const size_t begin = (size_t)((uint64_t)units * index / count);
    const size_t end = (size_t)((uint64_t)units * (index + 1) / count);
    bitcts__cpu_plan_run(task->plan, task->call, begin, end, scratch);
}

/* Threads for `elements` elements moving `bytes` bytes: each thread must get a grain of
 * BITCTS__CPU_WALK_UNIT_ELEMENTS elements and CPU_THREAD_GRAIN_BYTES bytes, and there are at
 * most the instance's threads and the number of units. The byte grain is there because waking
 * a worker costs ~5 us here: below ~8 MiB moved, two threads were slower than one on
 * cache-resident data (XOR u8: 6 MiB 68 vs 59 us; 12 MiB 107 vs 122 us). */
#define CPU_THREAD_GRAIN_BYTES (4u << 20)
static uint32_t cpu_thread_count(const cpu_instance *inst, uint64_t elements, uint64_t bytes,
                                 uint64_t units)
{
    uint64_t n = elements / BITCTS__CPU_WALK_UNIT_ELEMENTS;
    const uint64_t by_bytes = bytes / CPU_THREAD_GRAIN_BYTES;
    n = n < by_bytes ? n : by_bytes;
    n = n < inst->threads ? n : inst->threads;
    n = n < units ? n : units;
    return n < 1 ? 1u : (uint32_t)n;
}

static uint32_t cpu_nt_flag(const cpu_instance *inst, uint64_t output_bytes)
{
    if (inst->nt_policy == CPU_NT_ALWAYS ||
        (inst->nt_policy == CPU_NT_AUTO && output_bytes >= BITCTS_CPU_NT_THRESHOLD_BYTES)) {
        return BITCTS__CPU_F_NT;
    }
    return 0;
}

static int32_t BITCTS_PLUGIN_CALL cpu_operator_execute(void *instance, void *op,
                                                       const void *const *inputs, void *output)
{
    cpu_instance *inst = instance;
    const cpu_operator *oper = op;
    if (inst == NULL || oper == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    const int32_t rc = bitcts_kit_check_buffers(&oper->desc, inputs, output, inst->last_error,
                                                sizeof inst->last_error);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    const bitcts__cpu_call call = {
        .kernel = oper->kernel,
        .fence = inst->kernels.nt_fence,
        .transpose = inst->kernels.transpose,
        .flags = oper->flags | cpu_nt_flag(inst, oper->plan.output_bytes),
        .out = output,
        .in = {inputs[0], oper->desc.input_count == 2 ? inputs[1] : NULL},
    };
    cpu_task task = {&oper->plan, &call};
    const uint32_t count =
        cpu_thread_count(inst, oper->plan.elements, oper->plan.moved_bytes, oper->plan.units);
    bitcts__cpu_pool_run(inst->pool, count, cpu_run_task, &task);
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL cpu_operator_destroy(void *instance, void *op)
{
    (void)instance;
    free(op);
}

static const char *BITCTS_PLUGIN_CALL cpu_instance_info(void *instance, const char *key)
{
    const cpu_instance *inst = instance;
    if (inst == NULL || key == NULL) {
        return NULL;
    }
    if (strcmp(key, "variant") == 0) {
        return inst->variant->name;
    }
    if (strcmp(key, "features") == 0) {
        return inst->features_text;
    }
    if (strcmp(key, "variants") == 0) {
        return inst->variants_text;
    }
    if (strcmp(key, "threads") == 0) {
        return inst->threads_text;
    }
    if (strcmp(key, "nt") == 0) {
        return inst->nt_policy == CPU_NT_ALWAYS  ? "always"
               : inst->nt_policy == CPU_NT_NEVER ? "never"
                                                 : "auto";
    }
    return NULL;
}

/* The streaming extension: one contiguous range split evenly over the threads. */
typedef struct cpu_stream_task {
    bitcts__cpu_kernel_fn *kernel;
    bitcts__cpu_fence_fn *fence;
    uint32_t flags;
    uint32_t unit; /* bytes per element: 1 for copy, 8 for triad */
    unsigned char *dst;
    const unsigned char *a;
    const unsigned char *b;
    uint64_t n;
} cpu_stream_task;

static void cpu_run_stream(void *arg, uint32_t index, uint32_t count, unsigned char *scratch)
{
    (void)scratch;
    const cpu_stream_task *t = arg;
    /* Split points on 64-byte multiples keep every thread's NT stores aligned alike. */
    const uint64_t per = 64u / t->unit;
    const uint64_t begin = (t->n * index / count) / per * per;
    const uint64_t end = index + 1 == count ? t->n : (t->n * (index + 1) / count) / per * per;
    const uint64_t off = begin * t->unit;
    t->kernel(t->dst + off, t->a + off, t->b != NULL ? t->b + off : NULL, (size_t)(end - begin),
              t->flags);
    if (t->flags & BITCTS__CPU_F_NT) {
        t->fence();
    }
}

static int32_t cpu_stream(cpu_instance *inst, cpu_stream_task *task)
{
    if (inst == NULL || task->dst == NULL || task->a == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    task->flags = cpu_nt_flag(inst, task->n * task->unit);
    const uint64_t bytes = task->n * task->unit;
    const uint64_t moved = bytes * (task->b != NULL ? 3 : 2);
    const uint32_t count = cpu_thread_count(inst, bytes, moved, task->n);
    bitcts__cpu_pool_run(inst->pool, count, cpu_run_stream, task);
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL cpu_stream_copy(void *instance, void *dst, const void *src,
                                                  uint64_t bytes)
{
    cpu_instance *inst = instance;
    cpu_stream_task task = {inst != NULL ? inst->kernels.stream_copy : NULL,
                            inst != NULL ? inst->kernels.nt_fence : NULL,
                            0,
                            1,
                            dst,
                            src,
                            NULL,
                            bytes};
    return cpu_stream(inst, &task);
}

static int32_t BITCTS_PLUGIN_CALL cpu_stream_triad(void *instance, void *dst, const void *a,
                                                   const void *b, uint64_t words)
{
    cpu_instance *inst = instance;
    if (b == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    cpu_stream_task task = {inst != NULL ? inst->kernels.stream_triad : NULL,
                            inst != NULL ? inst->kernels.nt_fence : NULL,
                            0,
                            8,
                            dst,
                            a,
                            b,
                            words};
    return cpu_stream(inst, &task);
}

/* The shaped stream: the smaller side in 64-byte units, each matched by `ratio` units of the
 * larger. A variant with kernels of its own for it (stream_widen, stream_narrow: AVX2 and
 * AVX-512) runs each thread's range in one call. Otherwise it is composed of the variant's copy
 * and triad, a block at a time (sizes measured best on a 2-core AMD EPYC, AVX2). Widening: each
 * block of src copied ratio times into dst, one copy after another (the first reads memory, the
 * others the cache). Narrowing: ratio blocks of src folded into one block of dst by a chain of
 * triads through an accumulator in the thread's scratch (ordinary stores, in cache), the last
 * written to dst. Either way memory sees src read once and dst written once. */
#define CPU_SHAPED_WIDEN_BLOCK 4096u   /* of src: re-read from L1 */
#define CPU_SHAPED_NARROW_BLOCK 16384u /* of dst: the chain's accumulator in the scratch */
#define CPU_SHAPED_MAX_RATIO 8u
_Static_assert(CPU_SHAPED_NARROW_BLOCK <= BITCTS__CPU_WALK_SCRATCH_BYTES,
               "a narrowing block's accumulator fits the scratch");

typedef struct cpu_shaped_task {
    const bitcts__cpu_kernels *k;
    uint32_t flags; /* for the stores to dst */
    uint32_t ratio; /* the larger side's bytes per byte of the smaller */
    int widen;      /* 1: dst is the larger side */
    unsigned char *dst;
    const unsigned char *src;
    uint64_t units; /* 64-byte units of the smaller side */
} cpu_shaped_task;

static void cpu_shaped_block(const cpu_shaped_task *t, uint64_t at, size_t bytes,
                             unsigned char *scratch)
{
    const uint32_t k = t->ratio;
    if (t->widen) {
        for (uint32_t j = 0; j < k; ++j) {
            t->k->stream_copy(t->dst + at * k + j * bytes, t->src + at, NULL, bytes, t->flags);
        }
        return;
    }
    const unsigned char *in = t->src + at * k;
    if (k == 1) {
        t->k->stream_copy(t->dst + at, in, NULL, bytes, t->flags);
        return;
    }
    /* A chain through one block of the scratch: acc = src_1 + 3 src_0, then acc = src_j + 3
     * acc, the last into dst; src is read in order, one stream, as an operator reads it. */
    const size_t words = bytes / 8;
    if (k == 2) {
        t->k->stream_triad(t->dst + at, in + bytes, in, words, t->flags);
        return;
    }
    t->k->stream_triad(scratch, in + bytes, in, words, 0);
    for (uint32_t j = 2; j + 1 < k; ++j) {
        t->k->stream_triad(scratch, in + j * bytes, scratch, words, 0);
    }
    t->k->stream_triad(t->dst + at, in + (k - 1) * bytes, scratch, words, t->flags);
}

static void cpu_run_shaped(void *arg, uint32_t index, uint32_t count, unsigned char *scratch)
{
    const cpu_shaped_task *t = arg;
    const uint64_t begin = t->units * index / count;
    const uint64_t end = t->units * (index + 1) / count;
    const int slot = t->ratio == 2 ? 0 : t->ratio == 4 ? 1 : 2; /* ratio 2, 4, 8 */
    bitcts__cpu_kernel_fn *kernel =
        t->ratio == 1 ? NULL : (t->widen ? t->k->stream_widen : t->k->stream_narrow)[slot];
    if (kernel != NULL) { /* the variant's own: one pass, a load and its stores at a time */
        kernel(t->dst + begin * 64u * (t->widen ? t->ratio : 1u),
               t->src + begin * 64u * (t->widen ? 1u : t->ratio), NULL, (size_t)(end - begin),
               t->flags);
    } else {
        const uint64_t block = (t->widen ? CPU_SHAPED_WIDEN_BLOCK : CPU_SHAPED_NARROW_BLOCK) / 64u;
        for (uint64_t u = begin; u < end; u += block) {
            const uint64_t n = end - u < block ? end - u : block;
            cpu_shaped_block(t, u * 64u, (size_t)(n * 64u), scratch);
        }
    }
    if (t->flags & BITCTS__CPU_F_NT) {
        t->k->nt_fence();
    }
}

static int32_t BITCTS_PLUGIN_CALL cpu_stream_shaped(void *instance, void *dst, uint64_t dst_bytes,
                                                    const void *src, uint64_t src_bytes)
{
    cpu_instance *inst = instance;
    const int widen = dst_bytes > src_bytes;
    const uint64_t small = widen ? src_bytes : dst_bytes;
    const uint64_t ratio = small > 0 ? (widen ? dst_bytes : src_bytes) / small : 0;
    if (inst == NULL || dst == NULL || src == NULL || ratio == 0 || ratio > CPU_SHAPED_MAX_RATIO ||
        (ratio & (ratio - 1)) != 0 || small * ratio != (widen ? dst_bytes : src_bytes)) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    cpu_shaped_task task = {
        &inst->kernels, cpu_nt_flag(inst, dst_bytes), (uint32_t)ratio, widen, dst, src,
        small / 64u};
    const uint64_t moved = src_bytes + dst_bytes;
    const uint32_t count = cpu_thread_count(inst, moved, moved, task.units);
    if (task.units > 0) {
        bitcts__cpu_pool_run(inst->pool, count, cpu_run_shaped, &task);
    }
    /* The last bytes of the smaller side (fewer than 64), byte by byte: each of dst's depends on
     * the src bytes it stands for, as above. */
    const uint64_t done = task.units * 64u;
    const unsigned char *s = task.src;
    for (uint64_t i = done; i < small; ++i) {
        for (uint64_t j = 0; j < ratio; ++j) {
            if (widen) {
                task.dst[done * ratio + j * (small - done) + (i - done)] = s[i];
            } else {
                const unsigned char v = s[done * ratio + j * (small - done) + (i - done)];
                task.dst[i] = (unsigned char)(j == 0 ? v : task.dst[i] + 3u * v);
            }
        }
    }
    return BITCTS_ABI_OK;
}

static const bitcts_abi_stream_ext cpu_stream_ext = {
    .struct_size = sizeof(bitcts_abi_stream_ext),
    .copy = cpu_stream_copy,
    .triad = cpu_stream_triad,
    .shaped = cpu_stream_shaped,
};

static const void *BITCTS_PLUGIN_CALL cpu_get_extension(const char *name)
{
    if (name != NULL && strcmp(name, BITCTS_ABI_EXT_STREAM) == 0) {
        return &cpu_stream_ext;
    }
    return NULL;
}

static void BITCTS_PLUGIN_CALL cpu_plugin_shutdown(void)
{
    cpu_host = NULL; /* no log call after this returns */
}

static const bitcts_plugin_table cpu_table = {
    .struct_size = sizeof(bitcts_plugin_table),
    .name = "cpu",
    .vendor = "bitcts project",
    .version = CPU_VERSION,
    .build_id = BITCTS_CPU_BUILD_ID,
    .instance_create = cpu_instance_create,
    .instance_destroy = cpu_instance_destroy,
    .instance_last_error = cpu_instance_last_error,
    .query_caps = cpu_query_caps,
    .query_op_caps = cpu_query_op_caps,
    .operator_create = cpu_operator_create,
    .operator_execute = cpu_operator_execute,
    .operator_destroy = cpu_operator_destroy,
    .instance_info = cpu_instance_info,
    .plugin_shutdown = cpu_plugin_shutdown,
    .get_extension = cpu_get_extension,
};

int32_t BITCTS_PLUGIN_CALL bitcts_cpu_negotiate(bitcts_plugin_negotiation *n)
{
    return bitcts_kit_negotiate(n, &cpu_table, &cpu_host);
}

#if defined(BITCTS_CPU_AS_PLUGIN)
/* The one symbol a plugin module exports (PLG-1). */
BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
    return bitcts_cpu_negotiate(n);
}
#endif
